#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Reads many nodes' gpuverify JSON reports and flags the outliers against the fleet median.

    srun -N 64 --ntasks-per-node=1 gv-check --json --checks gemm,cuda.copy,nccl > reports.json
    for pair in ...; do srun -N 2 -w $pair --ntasks-per-node=8 --mpi=pmix gv-nccl --json; done \
        > pairs.json                                      # docs/nccl.md, "Two nodes and more"
    gpuverify-fleet.py reports.json pairs.json  # or several files, or - for stdin

Input: report objects (docs/report.schema.json) and gv-nccl --json objects, one per file or
several concatenated (as srun prints them). For every check that measures a number (TFLOPS,
GB/s) the fleet median is taken per check ID over all nodes and subjects; a node whose value
lies more than --tolerance below it (default 10%) is an outlier, as is any FAIL or ERROR. Nodes
are named by their report's hostname. gv-nccl runs are grouped by collective and by the set of
hosts their ranks ran on ("a+b" for a node pair): the median peak busbw over the pairs, and a
pair more than --tolerance below it, or whose run FAILed, is an outlier (the one bad link or
NIC shows up in every pair it is part of).
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
            nccl = isinstance(obj, dict) and "collective" in obj and "hosts" in obj
            if not nccl and (not isinstance(obj, dict) or
                             obj.get("schema_version") not in (1, 2, 3, 4, 5, 6, 7)):
                raise ValueError("%s: neither a gpuverify report (schema_version 1 to 7) nor "
                                 "gv-nccl --json output" % path)
            yield obj


def analyse_pairs(runs, tolerance):
    """gv-nccl runs by (collective, hosts): the median peak busbw per collective, outliers."""
    by = {}  # collective -> [(hosts, busbw, run)]
    problems = []
    for run in runs:
        hosts = "+".join(sorted(set(run["hosts"]))) or "?"
        if run["verdict"] in ("FAIL", "ERROR"):
            problems.append({"node": hosts, "check": "nccl." + run["collective"],
                             "subject": "%d ranks" % run["nranks"], "why": run["verdict"],
                             "message": run["message"]})
        by.setdefault(run["collective"], []).append((hosts, run["peak_busbw_gbps"], run))
    medians = {}
    for coll, rows in sorted(by.items()):
        median = statistics.median(b for _, b, _ in rows)
        medians["nccl." + coll] = {"median": median, "unit": "GB/s busbw", "samples": len(rows)}
        for hosts, busbw, run in rows:
            if median > 0 and busbw < (1 - tolerance) * median:
                problems.append({"node": hosts, "check": "nccl." + coll,
                                 "subject": "%d ranks" % run["nranks"],
                                 "why": "%.0f%% of the median pair" % (100 * busbw / median),
                                 "message": "peak busbw %.1f GB/s vs median %.1f GB/s; %s"
                                 % (busbw, median, run.get("transports") or "")})
    return medians, problems


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
    nccl_runs = [r for r in all_reports if "collective" in r]
    node_reports = [r for r in all_reports if "collective" not in r]
    medians, problems = analyse(node_reports, args.tolerance)
    pair_medians, pair_problems = analyse_pairs(nccl_runs, args.tolerance)
    medians.update(pair_medians)
    problems += pair_problems
    if args.json:
        print(json.dumps({"nodes": len(node_reports), "nccl_runs": len(nccl_runs),
                          "medians": medians, "outliers": problems}, indent=2))
    else:
        print("%d node reports, %d gv-nccl runs" % (len(node_reports), len(nccl_runs)))
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
