#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The checks whose duration differs most between the two builds of a bench/run_ab.sh output
folder, in its runs on all GPUs: per check and subject, each build's median over the rounds of
the row's duration_s (rows over 0.05 s), the twelve largest differences first.
Usage: ab_check_durations.py OUTDIR"""
import glob
import json
import os
import statistics
import sys

durations = {}
for path in glob.glob(os.path.join(sys.argv[1], "*gpu-r*.json")):
    build, gpus = os.path.basename(path).split("-")[:2]
    if gpus == "1gpu":
        continue
    try:
        report = json.load(open(path))
    except ValueError:
        continue
    for row in report["checks"]:
        durations.setdefault((row["id"], row["subject"]), {}).setdefault(build, []).append(
            row.get("duration_s") or 0)
diffs = []
for key, by_build in durations.items():
    if "old" in by_build and "new" in by_build:
        old, new = statistics.median(by_build["old"]), statistics.median(by_build["new"])
        if max(old, new) > 0.05:
            diffs.append((new - old, key, old, new))
for diff, (check, subject), old, new in sorted(diffs, reverse=True)[:12]:
    print("%-22s %-8s old %.3f new %.3f diff %+.3f" % (check, subject, old, new, diff))
