#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How often a healthy node got a verdict other than PASS: every gv-check JSON report under
DIR (one per run, named <mode>_<n>.json), per mode the overall verdicts, the wall times and
every row that was not PASS or SKIP (a SKIP's reason is counted too). Usage: soak_summary.py DIR"""
import collections, glob, json, os, re, sys

modes = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    mode = re.sub(r"_\d+\.json$", "", os.path.basename(path))
    try:
        modes[mode].append(json.load(open(path)))
    except ValueError as e:
        modes[mode].append({"verdict": "UNREADABLE", "checks": [], "duration_s": 0, "error": str(e)})

bad_runs = 0
for mode, runs in modes.items():
    verdicts = collections.Counter(r["verdict"] for r in runs)
    times = sorted(r.get("duration_s", 0) for r in runs)
    print("## %s: %d runs, verdicts %s, wall %.1f-%.1f s (median %.1f)" % (
        mode, len(runs), dict(verdicts), times[0], times[-1], times[len(times) // 2]))
    rows = collections.Counter()
    skips = collections.Counter()
    for r in runs:
        for c in r["checks"]:
            if c["verdict"] == "SKIP":
                skips[(c["id"], re.sub(r"\b\d+(\.\d+)?\b", "#", c["message"])[:90])] += 1
            elif c["verdict"] != "PASS":
                rows[(c["verdict"], c["id"], c["subject"], c["message"][:160])] += 1
    for (v, cid, subject, message), n in rows.most_common():
        print("- %s x%d %s %s: %s" % (v, n, cid, subject, message))
    for (cid, message), n in skips.most_common():
        print("  SKIP x%d %s: %s" % (n, cid, message))
    bad_runs += sum(n for v, n in verdicts.items() if v in ("FAIL", "ERROR", "UNREADABLE"))
print("\nruns FAIL/ERROR/unreadable: %d" % bad_runs)
