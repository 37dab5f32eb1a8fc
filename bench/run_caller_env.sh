#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The caller's environment and the verdict: gv-check (GEMMs, copies, memtest, cuDNN) with
# variables a job or a debugging session sets that change what CUDA and cuBLAS do, each alone.
# Usage: bench/run_caller_env.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
for v in NONE=1 NVIDIA_TF32_OVERRIDE=0 CUDA_FORCE_PTX_JIT=1 CUDA_LAUNCH_BLOCKING=1 CUBLASLT_LOG_LEVEL=5; do
    env "$v" "$bin/gv-check" --sysroot / --json --checks gemm,cuda.copy,cuda.matmul,mem.test,cudnn \
        >"$out/${v%%=*}_0.json" 2>>"$out/stderr.txt"
done
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
