#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gv-check under a CPU limit, as a pod's resources.limits.cpu sets it: a cgroup v2 child with
# cpu.max of 0.25 and 0.1 CPU, the quick and the standard level under each. Needs root and a
# cgroup v2 hierarchy it may write. Usage: bench/run_cpu_limit.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
cg=/sys/fs/cgroup/gv-cpu-limit
mkdir -p "$cg" && echo "+cpu" >/sys/fs/cgroup/cgroup.subtree_control || { echo "no writable cgroup v2" >&2; exit 1; }
for quota in 25000 10000; do
    echo "$quota 100000" >"$cg/cpu.max"
    for level in quick standard; do
        bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' - "$cg" \
            "$bin/gv-check" --sysroot / --json --level $level >"$out/cpu-$quota-of-100000-$level"_0.json 2>>"$out/stderr.txt"
    done
    { echo "cpu.max $quota 100000"; head -6 "$cg/cpu.stat"; } >>"$out/cpu-stat.txt"
done
rmdir "$cg" 2>/dev/null
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
