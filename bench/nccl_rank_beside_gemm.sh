#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Does an NCCL rank being made on one GPU cost a GEMM measured on another? gpuverify-worker's
# tests across GPUs make the sweep's ranks as the lanes finish, while other lanes still run
# their GEMMs (lib/nccl/nccl_ahead.h). gv-gemm on GPU 1 (fp32, bf16), ROUNDS times alone and
# ROUNDS times while a loop of fresh processes on GPU 0 makes the first rank of two over and
# over (cuInit, the context, NCCL's kernels, then the wait for a peer that never comes, cut at
# 0.6 s): more than the worker does, which makes each GPU's context and rank once.
# Usage: bench/nccl_rank_beside_gemm.sh BINDIR OUTDIR [ROUNDS]   (BINDIR holds gv-gemm)
set -u
bin=$(cd "$1" && pwd) out=$2 rounds=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
gemm() { # NAME
    LD_LIBRARY_PATH=$bin "$bin/gv-gemm" --gpu 1 --dtype fp32,bf16 --json >"$out/$1.json" 2>&1
}
for round in $(seq 1 "$rounds"); do
    gemm "alone-r$round"
    (while :; do
        CUDA_VISIBLE_DEVICES=0 timeout 0.6 python3 "$here/nccl_late_rank.py" --rank-alone >/dev/null 2>&1
    done) &
    loop=$!
    sleep 0.3
    gemm "beside-r$round"
    kill "$loop" 2>/dev/null
    wait "$loop" 2>/dev/null
done
python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for dtype in ("fp32", "bf16"):
    row = []
    for kind in ("alone", "beside"):
        figures = []
        for r in range(1, rounds + 1):
            for g in json.load(open("%s/%s-r%d.json" % (out, kind, r))):
                if g.get("dtype") == dtype:
                    figures.append(g["tflops_median"])
        row.append("%s %.1f TFLOPS (%s)" % (kind, statistics.median(figures),
                                            ", ".join("%.1f" % f for f in figures)))
    print("gemm.%s on GPU 1: %s" % (dtype, "; ".join(row)))
EOF
