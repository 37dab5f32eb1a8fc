#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gv-check --watch on a real GPU: a quiet watch (no Xid: it waits the time asked), then one in
# which bench/poke_illegal_address.py makes the driver report Xid 31 (a program's MMU fault,
# harmless to the GPU) 3 s in: the watch must end then, with the Xid on GPU 0's gpu.xid row.
# Kernel log lines are kept for comparison. Usage: bench/run_xid_watch.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
timed quiet --checks gpu.xid --watch 5
timed quiet_no_watch --checks gpu.xid
dmesg 2>/dev/null | grep -c 'NVRM: Xid' >"$out/xids_before.txt"
timed poked --checks gpu.xid --watch 30 &
sleep 3
python3 "$here/poke_illegal_address.py" 0 >"$out/poke.txt" 2>&1
date +%s.%N >"$out/poked_at.txt"
wait
dmesg 2>/dev/null | grep 'NVRM: Xid' | tail -5 >"$out/xids_after.txt"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("quiet", "quiet_no_watch", "poked"):
    try:
        r = json.load(open("%s/%s.json" % (out, name)))
    except Exception as e:
        print(name, "no report:", e)
        continue
    for c in r["checks"]:
        print(name, c["verdict"], c["subject"], c["message"])
PY
cat "$out/walls.txt" "$out/poke.txt" "$out/xids_after.txt"
