#!/bin/bash
# Session 28, last build: two standard runs at once under busy = fail, twice; root's lock
# directory afterwards.
set -u
cd "$(dirname "$0")/.."
R=/tmp/r28c; rm -rf $R; mkdir -p $R
printf 'busy = fail\n' > $R/fail.policy
b=$PWD/.gpu/bin
export LD_LIBRARY_PATH=$b GPUVERIFY_WORKER=$b/gpuverify-worker
for i in 1 2; do
  $b/gv-check --sysroot / --json --policy $R/fail.policy > $R/pair-$i.a.json 2>&1 & a=$!
  $b/gv-check --sysroot / --json --policy $R/fail.policy > $R/pair-$i.b.json 2>&1 & c=$!
  wait $a $c
done
ls -la /run/gpuverify /run/lock > $R/dirs.txt 2>&1; cat /run/gpuverify/* >> $R/dirs.txt 2>&1
tar czf $OUT/s28c.tgz -C /tmp r28c
cat $R/dirs.txt
for f in $R/*.json; do python3 - $f <<'PY'
import json,sys,collections,re
d=json.load(open(sys.argv[1]))
c=collections.Counter(x["verdict"] for x in d["checks"])
g=" ".join("%s:%s:%s" % (x["id"][5:], x["verdict"], (re.search(r"= (\d+)% of the", x["message"]) or [0,"?"])[1]) for x in d["checks"] if x["id"].startswith("gemm."))
print(sys.argv[1].split("/")[-1], d["verdict"], "%.2f s" % d["duration_s"], dict(c), g)
PY
done
