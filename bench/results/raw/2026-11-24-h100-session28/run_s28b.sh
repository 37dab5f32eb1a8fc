#!/bin/bash
# Session 28, second call: the final build's paired runs again, and two contexts of one process
# running gv_run in that process at once (a scheduler's two threads, GV_ISOLATION_NONE).
set -u
cd "$(dirname "$0")/.."
R=/tmp/r28b${TAG:-}; rm -rf $R; mkdir -p $R
printf 'busy = fail\n' > $R/fail.policy
for build in ${BUILDS:-binold bin}; do
  b=$PWD/.gpu/$build
  export LD_LIBRARY_PATH=$b GPUVERIFY_WORKER=$b/gpuverify-worker
  for i in 1 2; do
    $b/gv-check --sysroot / --json --policy $R/fail.policy > $R/$build-pair-$i.a.json 2>&1 & a=$!
    $b/gv-check --sysroot / --json --policy $R/fail.policy > $R/$build-pair-$i.b.json 2>&1 & c=$!
    wait $a $c
  done
  for i in 1 2; do
    GPUVERIFY_LIBRARY=$b/libgpuverify.so.1 PYTHONPATH=$PWD/bindings/python timeout 300 python3 - $R/$build-threads-$i <<'PY' > $R/$build-threads-$i.txt 2>&1
import sys, threading, json, time, gpuverify
out = sys.argv[1]
def one(k):
    with gpuverify.Context() as ctx:
        t = time.monotonic()
        r = ctx.run("standard", isolation="none")
        open("%s.%d.json" % (out, k), "w").write(r.json)
        print(k, r.verdict, "%.2f s" % (time.monotonic() - t), flush=True)
ts = [threading.Thread(target=one, args=(k,)) for k in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]
PY
  done
done
tar czf $OUT/s28b${TAG:-}.tgz -C /tmp r28b${TAG:-}
cat $R/*.txt
for f in $R/*.json; do python3 - $f <<'PY'
import json,sys,collections,re
try: d=json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[1].split("/")[-1], "unreadable", e); sys.exit()
c=collections.Counter(x["verdict"] for x in d["checks"])
g=" ".join("%s:%s:%s" % (x["id"][5:], x["verdict"], (re.search(r"= (\d+)% of the", x["message"]) or [0,"?"])[1]) for x in d["checks"] if x["id"].startswith("gemm."))
print(sys.argv[1].split("/")[-1], d["verdict"], "%.2f s" % d["duration_s"], dict(c), g)
for x in d["checks"]:
    if x["verdict"] in ("FAIL","WARN","ERROR") or "not judged" in x["message"]:
        print("  ", x["id"], x["subject"], x["verdict"], x["message"][:160])
PY
done
