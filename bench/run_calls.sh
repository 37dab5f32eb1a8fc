#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The single-purpose calls in gpuverify-worker beside the same calls in the caller's process
# (bench_calls, alternating, three rounds), PyTorch's GEMM in the same run for reference, a
# call killed at its deadline inside its kernels and the same GPU tested again after it, and
# gv-check's standard level with the same build.
# Usage: bench/run_calls.sh BINDIR OUTDIR [STRESS_SECONDS]  (BINDIR: bench_calls, gv-check,
#        gpuverify-worker and libgpuverify.so.1 side by side)
set -u
bin=$(cd "$1" && pwd); out=$2; stress=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,power.limit --format=csv; uname -r;
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } >"$out/env.txt" 2>&1
"$bin/bench_calls" 0 3 "$stress" >"$out/calls.jsonl" 2>"$out/calls.err"
echo "exit $?" >>"$out/calls.err"
for round in 1 2 3; do
    python3 "$here/peer_torch.py" 8192 >"$out/torch_$round.json" 2>"$out/torch_$round.err"
done
"$bin/gv-check" --sysroot / >"$out/gv_check_standard.txt" 2>&1
echo "exit $?" >>"$out/gv_check_standard.txt"
echo done
