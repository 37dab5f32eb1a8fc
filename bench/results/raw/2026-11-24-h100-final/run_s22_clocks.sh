#!/bin/sh
# Session 22: the clock-event rules on a healthy H100: extended (120 s stress) with the new
# rules, then standard with the new rules and with the build before them (same counters).
set -u
cd "$(dirname "$0")/.."
o=$OUT/ck; mkdir -p "$o"
run() { # build level name
  b=$PWD/.gpu/$1
  s=$(date +%s.%N)
  LD_LIBRARY_PATH=$b GPUVERIFY_WORKER=$b/gpuverify-worker "$b/gv-check" --sysroot / --level $2 --json >"$o/$3.json" 2>"$o/$3.err"; rc=$?
  echo "$3 ($1, $2): exit $rc in $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s" | tee -a "$o/summary.txt"
  python3 - "$o/$3.json" <<'PY' | tee -a "$o/summary.txt"
import json,sys,collections
d=json.load(open(sys.argv[1]))
rows=d["checks"]
print("  verdict", d["verdict"], dict(collections.Counter(r["verdict"] for r in rows)))
for r in rows:
    if r["verdict"] not in ("PASS","SKIP") or r["id"] in ("gpu.clock_events","stress.gemm","stress.power"):
        print("  ", r["verdict"], r["id"], r.get("subject"), r["message"][:260])
PY
}
nvidia-smi -q -d PERFORMANCE >"$o/perf_before.txt" 2>&1
run bin extended extended_new
nvidia-smi -q -d PERFORMANCE,TEMPERATURE >"$o/perf_after.txt" 2>&1
run bin standard standard_new
run bin_before standard standard_before
run bin extended extended_new_2
run bin_before standard standard_before_2
cd "$OUT" && tar czf ck.tgz ck && rm -rf ck
