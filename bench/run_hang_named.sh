#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A GPU that stops inside a check of several GPUs, on a real multi-GPU node: bench/stall_shim.c
# (the build's bench/stall/libcuda.so.1, copied to BINDIR/stall/) makes gpuverify's waits on one GPU never complete, as a
# GPU that stopped would, while the real driver runs everything. For each long check, with
# GPU $STALL_GPU (default 1) stalling from its first wait or AFTER seconds in, at --deadline 5:
# the row, the per-GPU verdict, its usable metric and the seconds from the stall to the answer.
# Then the same checks with the real driver alone at --deadline 5: no row may say a deadline
# passed. With SLOW_MS set, GPU $STALL_GPU crawls instead (each wait answered SLOW_MS late) and
# only mem.test runs, at --deadline ${DEADLINE:-5}: a stall judged by its pace, not a hang.
# Prints a summary (OUTDIR/summary.txt); the reports stay in OUTDIR.
#
# usage: bench/run_hang_named.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
gpu=${STALL_GPU:-1}
summary=$out/summary.txt
: >"$summary"
say() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
real=$(ldconfig -p | awk '/libcuda.so.1 .*x86-64/ {print $NF; exit}')
say "GPUs" "$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"
say "driver" "$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1), real libcuda $real"

# name checks after [args]: one stalled run
stalled() {
    name=$1 checks=$2 after=$3
    shift 3
    t0=$(now_ms)
    GPUVERIFY_CUDA_LIBRARY=$bin/stall/libcuda.so.1 GV_STALL_REAL=$real GV_STALL_GPU=$gpu \
        GV_STALL_AFTER=$after GV_SLOW_MS=${SLOW_MS:-0} "$bin/gv-check" --json \
        --deadline "${DEADLINE:-5}" --checks "$checks" "$@" \
        >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    took=$(($(now_ms) - t0))
    python3 - "$out/$name.json" "$gpu" "$name" "$rc" "$took" "$after" <<'EOF' | tee -a "$summary"
import json, sys
path, gpu, name, rc, took, after = sys.argv[1:]
r = json.load(open(path))
subject = "gpu" + gpu
mine = [c for c in r["checks"] if c["subject"] == subject and c["verdict"] == "FAIL"]
verdicts = {g["index"]: g.get("verdict") for g in r.get("gpus", [])}
print("%-22s exit %s in %5.1f s (stall from %s s): gpus[%s].verdict %s" % (
    name, rc, int(took) / 1e3, after, gpu, verdicts.get(int(gpu))))
for c in r["checks"]:
    print("    %-14s %-5s %-5s %-11s %s" % (c["id"], c["subject"], c["verdict"], c.get("action", ""), c["message"][:300]))
EOF
}

if [ "${SLOW_MS:-0}" -gt 0 ]; then
    stalled "mem_test_slow_${SLOW_MS}ms" mem.test 0
    exit 0
fi
stalled stress_middle stress.gemm 8 --level extended --duration 60
stalled stress_first stress.gemm 0 --level extended --duration 600
stalled copy_all cuda.copy_all 0
stalled p2p cuda.p2p 0
stalled mem_test mem.test 0
stalled nccl nccl.allreduce 0
GPUVERIFY_CUDA_LIBRARY=$bin/stall/libcuda.so.1 GV_STALL_REAL=$real GV_STALL_GPU=$gpu \
    GV_STALL_AFTER=0 "$bin/gv-check" --prometheus --deadline 5 --checks cuda.copy_all \
    2>/dev/null | grep '^gpuverify_gpu_usable' | tee -a "$summary"

# The real driver alone at the same deadline: nothing may read as a hang.
for level in standard extended; do
    t0=$(now_ms)
    "$bin/gv-check" --json --level $level --duration 30 --deadline 5 >"$out/healthy-$level.json" \
        2>"$out/healthy-$level.err"
    rc=$?
    python3 - "$out/healthy-$level.json" "$level" "$rc" "$(($(now_ms) - t0))" <<'EOF' | tee -a "$summary"
import json, sys
path, level, rc, took = sys.argv[1:]
r = json.load(open(path))
hangs = [c for c in r["checks"] if "no progress" in c["message"] or "timed out" in c["message"]]
print("healthy %-9s exit %s in %.1f s, %d rows, %d read as a hang%s" % (
    level, rc, int(took) / 1e3, len(r["checks"]), len(hangs),
    "".join("\n    %s %s %s" % (c["id"], c["subject"], c["message"][:150]) for c in hangs)))
for c in r["checks"]:
    if c["verdict"] not in ("PASS", "SKIP"):
        print("    %-14s %-5s %-5s %s" % (c["id"], c["subject"], c["verdict"], c["message"][:150]))
EOF
done
