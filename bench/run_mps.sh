#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gv-check with the CUDA MPS control daemon running (a user-space daemon: the card's settings
# are untouched; stopped at the end): alone, then beside an MPS client (peer_load.py) using
# the GPU. Usage: bench/run_mps.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
export CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) CUDA_MPS_LOG_DIRECTORY=$(mktemp -d)
nvidia-cuda-mps-control -d || { echo "the MPS daemon did not start" >&2; exit 1; }
trap 'echo quit | nvidia-cuda-mps-control' EXIT
for level in quick standard; do
    "$bin/gv-check" --sysroot / --json --level $level >"$out/mps-alone-$level"_0.json 2>>"$out/stderr.txt"
done
python3 "$here/peer_load.py" 60 8 >"$out/peer_load.txt" 2>&1 &
peer=$!
for _ in $(seq 60); do grep -q started "$out/peer_load.txt" && break; sleep 1; done
"$bin/gv-check" --sysroot / --json --level standard >"$out/mps-beside-a-client-standard_0.json" 2>>"$out/stderr.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >"$out/compute-apps.txt"
kill $peer; wait $peer 2>/dev/null
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
