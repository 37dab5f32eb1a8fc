#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 3's figures on a GPU machine, ours beside PyTorch in one run on the same GPU:
# GEMM per data type at 8192^3, pinned copies, and time to verdict for the six checks of
# bench/peer_seed_checks.py.
# Usage: bench/run_compute.sh BINDIR OUTDIR   (BINDIR holds gv-gemm, gv-check, bench_copy)
set -u
bin=$1; out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,power.limit --format=csv;
  uname -r; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } >"$out/env.txt" 2>&1
for round in 1 2 3; do
    "$bin/gv-gemm" --json >"$out/gv_gemm_$round.json" 2>"$out/gv_gemm_$round.err"
    python3 "$here/peer_torch.py" 8192 >"$out/torch_$round.json" 2>"$out/torch_$round.err"
    "$bin/bench_copy" >"$out/gv_copy_$round.json" 2>"$out/gv_copy_$round.err"
done
SIX=driver,cuda.init,cuda.alloc,gemm.fp16,gemm.fp32,cudnn
"$bin/gv-check" --checks $SIX >"$out/gv_check_six.txt" 2>&1
python3 "$here/time_to_verdict.py" 5 -- "$bin/gv-check" --checks $SIX >"$out/ttv_gv_check.json"
python3 "$here/time_to_verdict.py" 5 -- python3 "$here/peer_seed_checks.py" >"$out/ttv_seed.json"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$bin/gv-check" --checks $SIX >/dev/null 2>"$out/time_v_gv_check.txt"
    /usr/bin/time -v python3 "$here/peer_seed_checks.py" >/dev/null 2>"$out/time_v_seed.txt"
fi
"$bin/gv-check" >"$out/gv_check_all.txt" 2>&1
echo done
