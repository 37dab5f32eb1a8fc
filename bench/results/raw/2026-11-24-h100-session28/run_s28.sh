#!/bin/bash
# Session 28: two gpuverify runs on one GPU at once (two Slurm prologs of jobs starting
# together, a health agent beside a prolog): what each says, with the build of the session's
# start (binold) and this session's (bin).
set -u
cd "$(dirname "$0")/.."
R=/tmp/r28${TAG:-}; rm -rf $R; mkdir -p $R
export GPUVERIFY_WORKER_UNUSED=1
nvidia-smi -L > $R/node.txt 2>&1
printf 'busy = fail\n' > $R/fail.policy
pair() { # build name level-of-second policy-args
  local b=$PWD/.gpu/$1 n=$2
  export LD_LIBRARY_PATH=$b GPUVERIFY_WORKER=$b/gpuverify-worker
  s=$(date +%s%N)
  $b/gv-check --sysroot / --json $4 > $R/$n.a.json 2> $R/$n.a.err & a=$!
  $b/gv-check --sysroot / --json --level $3 $4 > $R/$n.b.json 2> $R/$n.b.err & c=$!
  wait $a; ea=$?; wait $c; eb=$?
  echo "$n exit $ea $eb $(( ($(date +%s%N)-s)/1000000 )) ms" >> $R/times.txt
}
for build in ${BUILDS:-binold bin}; do
  for i in 1 2 3; do
    pair $build $build-std-std-$i standard ""
    pair $build $build-std-std-fail-$i standard "--policy $R/fail.policy"
  done
  pair $build $build-std-quick-fail quick "--policy $R/fail.policy"
  # a long run beside: extended with 15 s of stress against a standard run started with it
  export LD_LIBRARY_PATH=$PWD/.gpu/$build GPUVERIFY_WORKER=$PWD/.gpu/$build/gpuverify-worker
  $PWD/.gpu/$build/gv-check --sysroot / --json --level extended --duration 15 > $R/$build-ext.json 2> $R/$build-ext.err & e=$!
  sleep 3
  ( s=$(date +%s%N); $PWD/.gpu/$build/gv-check --sysroot / --json --level quick --policy $R/fail.policy > $R/$build-quick-beside-ext.json 2> $R/$build-quick-beside-ext.err; echo "$build-quick-beside-ext exit $? $(( ($(date +%s%N)-s)/1000000 )) ms" >> $R/times.txt ) & q=$!
  ls -la /run/lock/ > $R/$build-locks.txt 2>&1; cat /run/lock/gpuverify-gpu-* >> $R/$build-locks.txt 2>&1
  s=$(date +%s%N); $PWD/.gpu/$build/gv-check --sysroot / --json --policy $R/fail.policy > $R/$build-beside-ext.json 2> $R/$build-beside-ext.err
  echo "$build-beside-ext exit $? $(( ($(date +%s%N)-s)/1000000 )) ms" >> $R/times.txt
  wait $e; echo "$build-ext exit $?" >> $R/times.txt; wait $q
done
tar czf $OUT/s28${TAG:-}.tgz -C /tmp r28${TAG:-}
cat $R/node.txt $R/times.txt
for f in $R/*.json; do python3 - $f <<'PY'
import json,sys,collections
try: d=json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[1], "unreadable", e); sys.exit()
c=collections.Counter(x["verdict"] for x in d["checks"])
print(sys.argv[1].split("/")[-1], d["verdict"], "%.2f s" % d["duration_s"], dict(c))
for x in d["checks"]:
    if x["verdict"] in ("FAIL","WARN","ERROR") or "gpuverify" in x["message"] or "not judged" in x["message"]:
        print("  ", x["id"], x["subject"], x["verdict"], x["message"][:200])
PY
done
