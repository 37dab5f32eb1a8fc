#!/usr/bin/python3
"""Reads many nodes' gpuverify JSON reports and flags the outliers against the fleet median.

    srun -N 64 --ntasks-per-node=1 gv-check --json --checks gemm,cuda.copy,nccl > reports.json
    gpuverify-fleet.py reports.json            # or several files, or - for stdin

Input: report objects (docs/report.schema.json), one per file or several concatenated (as srun
prints them). For every check that measures a number (TFLOPS, GB/s) the fleet median is taken
per check ID over all nodes and subjects; a node whose value lies more than --tolerance below it
(default 10%) is an outlier, as is any FAIL or ERROR. Nodes are named by their report's hostname.
Output: a table, or --json. Exit status: 0 no outlier, 1 outliers, 2 bad input."""
import argparse
import json
import statistics
import sys

# Units where more is better; other numbers (error ratios, times) are reported but not ranked.
HIGHER_IS_BETTER = {"TFLOPS", "GB/s"}


def reports(paths):
    decoder = json.JSONDecoder()
    for path in paths:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            obj, pos = decoder.raw_decode(text, pos)
            if not isinstance(obj, dict) or obj.get("schema_version") not in (1, 2, 3):
                raise ValueError("%s: not a gpuverify report (schema_version 1 to 3)" % path)
            yield obj


def analyse(all_reports, tolerance):
    values = {}  # check id -> [(node, subject, value, unit)]
    problems = []
    for i, r in enumerate(all_reports):
        node = r.get("hostname") or "report%d" % i
        for c in r["checks"]:
            if c["verdict"] in ("FAIL", "ERROR"):
                problems.append({"node": node, "check": c["id"], "subject": c["subject"],
                                 "why": c["verdict"], "message": c["message"]})
            if c["value"] is not None and c["unit"] in HIGHER_IS_BETTER:
                values.setdefault(c["id"], []).append((node, c["subject"], c["value"], c["unit"]))
    medians = {}
    for check, rows in sorted(values.items()):
        median = statistics.median(v for _, _, v, _ in rows)
        medians[check] = {"median": median, "unit": rows[0][3], "samples": len(rows)}
        for node, subject, value, unit in rows:
            if median > 0 and value < (1 - tolerance) * median:
                problems.append({"node": node, "check": check, "subject": subject,
                                 "why": "%.0f%% of the fleet median" % (100 * value / median),
                                 "message": "%.1f %s vs median %.1f %s" % (value, unit, median,
                                                                          unit)})
    return medians, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="report files, - for stdin")
    ap.add_argument("--tolerance", type=float, default=0.10,
                    help="flag values this fraction below the fleet median (default 0.10)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args()
    try:
        all_reports = list(reports(args.reports))
    except (OSError, ValueError) as e:
        print("gpuverify-fleet: %s" % e, file=sys.stderr)
        return 2
    medians, problems = analyse(all_reports, args.tolerance)
    if args.json:
        print(json.dumps({"nodes": len(all_reports), "medians": medians, "outliers": problems},
                         indent=2))
    else:
        print("%d node reports" % len(all_reports))
        for check, m in medians.items():
            print("  %-16s median %8.1f %-6s over %d results" % (check, m["median"], m["unit"],
                                                                   m["samples"]))
        for p in problems:
            print("OUTLIER %-20s %-16s %-20s %s: %s" % (p["node"], p["check"], p["subject"],
                                                          p["why"], p["message"]))
        if not problems:
            print("no outlier")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
