#!/bin/sh
# Session 22: the verdict of a healthy H100 at every level (quick, standard twice, extended at
# its default duration), with each level's wall time; every row not PASS printed.
set -u
cd "$(dirname "$0")/.."
bin=$PWD/.gpu/bin
export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
o=$OUT/lv; mkdir -p "$o"
for l in quick standard standard extended; do
  n=$(ls "$o" | grep -c "^$l") ; f="$o/${l}_$n"
  s=$(date +%s.%N); "$bin/gv-check" --sysroot / --level $l --json >"$f.json" 2>"$f.err"; rc=$?
  e=$(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}')
  "$bin/gv-check" --sysroot / --level quick --checks system.os >/dev/null 2>&1
  echo "$l run $n: exit $rc in $e s" | tee -a "$o/summary.txt"
  python3 - "$f.json" <<'PY' | tee -a "$o/summary.txt"
import json,sys,collections
d=json.load(open(sys.argv[1]))
rows=d.get("results") or d.get("checks") or []
c=collections.Counter(r["verdict"] for r in rows)
print("  verdict", d.get("verdict"), dict(c))
for r in rows:
    if r["verdict"] not in ("PASS","SKIP"):
        print("  ", r["verdict"], r["id"], r.get("subject"), r["message"][:200])
PY
done
cd "$OUT" && tar czf lv.tgz lv && rm -rf lv
