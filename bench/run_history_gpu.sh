#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Each GPU against its own record, on a real GPU: RUNS idle runs of the GPU tests build a
# history (gv-check --state), then one run with another process loading one GPU (peer_load.py:
# a PyTorch BF16 matmul loop) under `busy = ignore` must show history.performance WARN naming
# that GPU's own median, and only on that GPU; a last idle run PASSes again. The GPUs' settings
# are never changed (a lower power limit would be the natural slow GPU; sharing it is the slow
# GPU we may make).
# Usage: bench/run_history_gpu.sh BUILD OUTDIR [RUNS]
#   BUILD: the library and gpuverify-worker, with gv-check and gv-history there or in examples/
# Environment: HISTORY_GPUS, gv-check's --gpus (0); HISTORY_LOADED, the GPU the other process
# loads (the first of HISTORY_GPUS).
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
runs=${3:-10}
tools=$bin
[ -x "$bin/examples/gv-check" ] && tools=$bin/examples
db=$out/history.db
checks=cuda.init,cuda.matmul,cuda.copy,gemm.bf16,gemm.fp16,history
gpus=${HISTORY_GPUS:-0}
loaded=${HISTORY_LOADED:-${gpus%%,*}}
rm -f "$db" "$db-wal" "$db-shm"
printf 'busy = ignore\n' >"$out/busy-ignore.conf"
for i in $(seq "$runs"); do
    "$tools/gv-check" --gpus "$gpus" --checks "$checks" --state "$db" --json >"$out/idle_$i.json" \
        2>"$out/idle_$i.err"
    echo "idle run $i: exit $?"
done
CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$loaded python3 "$here/peer_load.py" 60 4 >"$out/load.log" 2>&1 &
load=$!
sleep 8 # the tenant's context and first GEMMs
"$tools/gv-check" --gpus "$gpus" --checks "$checks" --state "$db" --policy "$out/busy-ignore.conf" \
    --json >"$out/busy.json" 2>"$out/busy.err"
echo "busy run: exit $?"
kill "$load" 2>/dev/null
wait "$load" 2>/dev/null
"$tools/gv-check" --gpus "$gpus" --checks "$checks" --state "$db" --json >"$out/after.json" \
    2>"$out/after.err"
echo "idle run after: exit $?"
[ -x "$tools/gv-history" ] && "$tools/gv-history" --state "$db" --gpu "gpu$loaded" \
    --checks gemm,cuda.copy --chart >"$out/chart.txt" 2>&1
ls -l "$db" >"$out/db_size.txt"
python3 - "$out" "$runs" "$loaded" <<'PY'
import json, os, sys
out, runs, loaded = sys.argv[1], int(sys.argv[2]), "gpu" + sys.argv[3]
def rows(name):
    return json.load(open(os.path.join(out, name)))["checks"]
def figures(name, subject):
    return ", ".join("%s %.1f %s" % (c["id"], c["value"], c["unit"]) for c in rows(name)
                     if c["subject"] == subject and c["unit"] in ("TFLOPS", "GB/s") and
                     c["value"] is not None)
def performance(name):  # history.performance's verdict on each GPU
    return " ".join("%s %s" % (c["subject"], c["verdict"]) for c in rows(name)
                    if c["id"] == "history.performance")
for i in range(1, runs + 1):
    print("idle %2d: %s: %s | history.performance %s" % (
        i, loaded, figures("idle_%d.json" % i, loaded), performance("idle_%d.json" % i) or "-"))
for name in ("busy.json", "after.json"):
    print("%s: %s: %s" % (name, loaded, figures(name, loaded)))
    for c in rows(name):
        if c["id"].startswith("history."):
            print("  %s %s %s [%s]: %s" % (c["id"], c["subject"], c["verdict"], c["action"],
                                           c["message"]))
PY
