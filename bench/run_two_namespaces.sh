#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Two gv-check at the standard level at once, each in a PID namespace of its own (two
# containers, or a container and the host's agent): neither is listed to the other by NVML,
# so each sees the other only through the memory all processes hold. Three rounds.
# Needs root and unshare. Usage: bench/run_two_namespaces.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
for i in 0 1 2; do
    unshare -p -f --mount-proc "$bin/gv-check" --sysroot / --json --level standard \
        >"$out/namespace-a_$i.json" 2>>"$out/stderr.txt" &
    unshare -p -f --mount-proc "$bin/gv-check" --sysroot / --json --level standard \
        >"$out/namespace-b_$i.json" 2>>"$out/stderr.txt"
    wait
done
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
