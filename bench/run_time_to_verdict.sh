#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 3's time to verdict on a GPU machine: gv-check covering a health-check script's six checks
# (driver, runtime, VRAM, FP16 matmul, cuDNN, matmul benchmark) beside that script
# (bench/peer_seed_checks.py), same machine, one run: wall time and peak RSS, median of 5, and
# /usr/bin/time -v once each. Usage: bench/run_time_to_verdict.sh BINDIR OUTDIR
set -u
bin=$(cd "$1" && pwd); out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin
# The script's six checks: nvidia-smi -> driver.*, torch.cuda.is_available -> driver.cuda and
# cuda.init, torch.rand on the GPU -> cuda.alloc, FP16 and FP32 x @ x -> cuda.matmul (our own
# kernels, verified), cudnn.version() -> cudnn.version.
SIX=driver.module,driver.nvml,driver.version,driver.cuda,driver.gpu_count,cuda.init,cuda.alloc,cuda.matmul,cudnn.version
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; uname -r
  python3 -c 'import torch; print("torch", torch.__version__)'; } >"$out/env.txt" 2>&1
"$bin/gv-check" --checks $SIX >"$out/gv_check_six.txt" 2>&1; echo "exit $?" >>"$out/gv_check_six.txt"
python3 "$here/peer_seed_checks.py" >"$out/seed.txt" 2>&1; echo "exit $?" >>"$out/seed.txt"
for round in 1 2; do
    python3 "$here/time_to_verdict.py" 5 -- "$bin/gv-check" --checks $SIX >"$out/ttv_gv_check_$round.json"
    python3 "$here/time_to_verdict.py" 5 -- python3 "$here/peer_seed_checks.py" >"$out/ttv_seed_$round.json"
done
/usr/bin/time -v "$bin/gv-check" --checks $SIX >/dev/null 2>"$out/time_v_gv_check.txt"
/usr/bin/time -v python3 "$here/peer_seed_checks.py" >/dev/null 2>"$out/time_v_seed.txt"
"$bin/gv-check" --level quick >"$out/gv_check_quick.txt" 2>&1
python3 "$here/time_to_verdict.py" 5 -- "$bin/gv-check" --level quick >"$out/ttv_quick.json"
"$bin/gv-check" --checks cuda.matmul,gemm.fp16,gemm.fp32 --gemm-size 8192 >"$out/matmul_vs_gemm.txt" 2>&1
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
echo done
