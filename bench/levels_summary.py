#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/run_levels.sh's figures: per selection the median wall time of gv-check (the process,
start to exit) and of its run (the report's duration_s), the standard level's ratio to one GPU,
and where the time goes: each check's rows (their count, the longest row, all rows' sum: rows
of one GPU's lane run beside the other GPUs' lanes, node checks one after another).
Usage: levels_summary.py OUTDIR"""
import collections
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
walls = collections.defaultdict(list)
codes = collections.defaultdict(set)
for line in open(os.path.join(out, "walls.txt")):
    name, rc, wall = line.split()
    group = re.sub(r"-r\d+$", "", name)
    walls[group].append((float(wall), name))
    codes[group].add(int(rc))


def report(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        return None


print("%-22s %5s %9s %9s %6s  %s" % ("selection", "runs", "wall s", "run s", "exit", "verdict"))
medians = {}
for group in sorted(walls):
    w = statistics.median(x for x, _ in walls[group])
    runs = [report(n) for _, n in walls[group]]
    run_s = [r["duration_s"] for r in runs if r]
    medians[group] = w
    verdicts = sorted({r.get("verdict", "?") for r in runs if r})
    print("%-22s %5d %9.2f %9.2f %6s  %s" % (group, len(walls[group]), w,
                                            statistics.median(run_s) if run_s else float("nan"),
                                            ",".join(map(str, sorted(codes[group]))),
                                            ",".join(verdicts)))
one = medians.get("standard-1gpu")
if one:
    for group in sorted(medians):
        m = re.match(r"standard-(\d+)gpu$", group)
        if m and m.group(1) != "1":
            print("standard level, %s GPUs / 1 GPU: %.2fx" % (m.group(1), medians[group] / one))

for group in sorted(walls):
    # The run nearest the median, check by check.
    w = statistics.median(x for x, _ in walls[group])
    _, name = min(walls[group], key=lambda x: abs(x[0] - w))
    r = report(name)
    if not r:
        continue
    per = collections.OrderedDict()
    for c in r["checks"]:
        d = c.get("duration_s") or 0.0
        e = per.setdefault(c["id"], [0, 0.0, 0.0])
        e[0] += 1
        e[1] = max(e[1], d)
        e[2] += d
    print("\n%s (%s): wall %.2f s, run %.2f s, outside the run %.2f s" % (
        group, name, w, r["duration_s"], w - r["duration_s"]))
    for cid, (rows, longest, total) in per.items():
        if total >= 0.05:
            print("  %-28s %3d row(s)  longest %6.2f s  sum %6.2f s" % (cid, rows, longest, total))
