#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cuda.p2p in rounds (every GPU copying at once, each to another) against one pair at a time,
# on a node whose GPUs are joined by NVSwitch: two builds, the one before the rounds (OLD) and
# the one with them (NEW), alternating three times at the standard and the extended level.
# Prints per ordered pair the GB/s of each (median of the three runs), their ratio, and the
# check's time in each build.
# Usage: bench/run_p2p_rounds.sh OLD_BINDIR NEW_BINDIR OUTDIR   (each BINDIR holds gv-check)
set -u
old=$1 new=$2 out=$3
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; } >"$out/env.txt" 2>&1
for level in standard extended; do
    for round in 1 2 3; do
        for build in old new; do
            eval bin=\$$build
            LD_LIBRARY_PATH=$bin "$bin/gv-check" --level $level --checks cuda.p2p --json \
                >"$out/$level-$build-$round.json" 2>"$out/$level-$build-$round.err"
        done
    done
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, re, statistics, sys
out = sys.argv[1]
for level in ("standard", "extended"):
    rates = {"old": {}, "new": {}}
    secs = {"old": [], "new": []}
    verdicts = {"old": set(), "new": set()}
    for build in ("old", "new"):
        for r in (1, 2, 3):
            d = json.load(open(os.path.join(out, "%s-%s-%d.json" % (level, build, r))))
            rows = [c for c in d["checks"] if c["id"] == "cuda.p2p"]
            secs[build].append(sum(c["duration_s"] or 0 for c in rows))
            for c in rows:
                verdicts[build].add((c["subject"], c["verdict"]))
                m = re.match(r"gpu(\d+)", c["subject"])
                if not m:
                    continue
                for dst, rate in re.findall(r"gpu(\d+) ([0-9.]+)", c["message"]):
                    rates[build].setdefault((int(m.group(1)), int(dst)), []).append(float(rate))
    print("%s level: cuda.p2p %.2f s one pair at a time, %.2f s in rounds (median of 3 each)"
          % (level, statistics.median(secs["old"]), statistics.median(secs["new"])))
    print("  verdicts the same: %s" % (verdicts["old"] == verdicts["new"]))
    ratios = []
    for pair in sorted(rates["old"]):
        o, n = statistics.median(rates["old"][pair]), statistics.median(rates["new"].get(pair, [0]))
        ratios.append(n / o if o else 0)
        print("  %d->%d  one at a time %7.1f GB/s  rounds %7.1f GB/s  ratio %.3f" % (pair + (o, n, ratios[-1])))
    if ratios:
        print("  ratio rounds / one at a time: min %.3f, median %.3f, max %.3f over %d pairs"
              % (min(ratios), statistics.median(ratios), max(ratios), len(ratios)))
PY
