#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gv-check in a PID namespace of its own (as in a container) while a job outside it
# (peer_load.py: a PyTorch BF16 matmul loop holding 8 GiB) uses the GPU, and alone: NVML
# lists only this namespace's processes, so the job must show through the memory all
# processes hold. Also the quick level with nobody else, in and out of the namespace.
# Needs root and unshare. Usage: bench/run_pid_namespace.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
ns() { unshare -p -f --mount-proc "$@"; }
check() { "$@" "$bin/gv-check" --sysroot / --json --level standard; }
check ns >"$out/alone-in-namespace_0.json" 2>>"$out/stderr.txt"
check env >"$out/alone_0.json" 2>>"$out/stderr.txt"
python3 "$here/peer_load.py" 90 8 >"$out/peer_load.txt" 2>&1 &
peer=$!
for _ in $(seq 60); do grep -q started "$out/peer_load.txt" && break; sleep 1; done
for i in 0 1; do
    check ns >"$out/job-outside-namespace_$i.json" 2>>"$out/stderr.txt"
done
check env >"$out/job-beside_0.json" 2>>"$out/stderr.txt"
kill $peer; wait $peer 2>/dev/null
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
