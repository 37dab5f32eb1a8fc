#!/bin/sh
# Session 22, final build: every library's status in the worker and in the caller, the calls
# once more (short stress), gv-check standard, the kernel log's first record, a FIFO policy.
set -u
cd "$(dirname "$0")/.."
bin=$PWD/.gpu/bin
export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
o=$OUT/fin; mkdir -p "$o"
"$bin/bench_calls" 0 2 3 >"$o/calls.jsonl" 2>"$o/calls.err"; echo "exit $?" >>"$o/calls.err"
grep '"gv_library_status"' "$o/calls.jsonl" | cut -c1-300
grep '"both"' "$o/calls.jsonl" | cut -c1-220
grep -v '"both"\|library_status\|topology\|rdma' "$o/calls.jsonl" | cut -c1-230
"$bin/gv-check" --sysroot / --json >"$o/standard.json" 2>"$o/standard.err"; echo "standard exit $?"
python3 -c "
import json,collections,sys
d=json.load(open('$o/standard.json'))
print(d['verdict'], dict(collections.Counter(r['verdict'] for r in d['checks'])))
[print(r['verdict'], r['id'], r['subject'], r['message'][:200]) for r in d['checks'] if r['id'] in ('gpu.xid','gpu.clock_events') or r['verdict'] not in ('PASS','SKIP')]"
dd if=/dev/kmsg bs=8192 count=1 iflag=nonblock 2>/dev/null | head -c 160; echo
mkfifo /tmp/gv-policy-fifo; s=$(date +%s.%N)
timeout 20 "$bin/gv-check" --sysroot / --checks system.os --policy /tmp/gv-policy-fifo; echo "fifo policy exit $? in $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{printf "%.2f", b-a}') s"
cd "$OUT" && tar czf fin.tgz fin && rm -rf fin
