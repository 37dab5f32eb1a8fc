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

Result fingerprints (docs/checks.md, "Result fingerprints"): gemm.* and stress.gemm rows carry
the hash of one product of fixed inputs and a key naming what makes two hashes comparable (GPU
model, driver, cuBLASLt version, data type, size, algorithm). A node whose GPUs all compute the
same wrong result passes every check within itself; across the fleet its hash stands out. The
rows are grouped by key, each GPU voting once per key for its hash; the hash most GPUs gave is
the fleet's majority, and every row whose hash differs from it is an outlier ("fingerprint
differs from the fleet's majority"). A key whose most common hashes are tied has no majority:
reported as such ("no majority"), every GPU under it listed, since which of them compute wrong
cannot be told. A key only one GPU gave is reported, nothing to compare it with.
Output: a table, or --json. Exit status: 0 no outlier, 1 outliers or a key with no majority,
2 bad input."""
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


def analyse_fingerprints(all_reports):
    """Rows with a fingerprint grouped by key: per key the hashes and how many GPUs gave each,
    the majority hash (None on a tie), and the rows whose hash differs from it."""
    by_key = {}  # key -> {hash: set of (node, subject)}, rows
    rows = {}  # key -> [(node, check, subject, hash)]
    for i, r in enumerate(all_reports):
        node = r.get("hostname") or "report%d" % i
        for c in r["checks"]:
            fp = c.get("fingerprint")
            if not isinstance(fp, dict) or not fp.get("hash") or not fp.get("key"):
                continue
            # One vote per GPU for each hash it gave under a key: gemm.bf16 and stress.gemm of
            # one GPU share their key.
            by_key.setdefault(fp["key"], {}).setdefault(fp["hash"], set()).add(
                (node, c["subject"]))
            rows.setdefault(fp["key"], []).append((node, c["id"], c["subject"], fp["hash"]))
    summary = {}
    problems = []
    for key in sorted(by_key):
        votes = {h: len(gpus) for h, gpus in by_key[key].items()}
        ranked = sorted(votes.items(), key=lambda hv: (-hv[1], hv[0]))
        tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
        majority = None if tie else ranked[0][0]
        total = sum(votes.values())
        summary[key] = {"majority": majority, "hashes": dict(ranked), "gpus": total,
                        "nodes": len({n for gpus in by_key[key].values() for n, _ in gpus})}
        counts = ", ".join("%s x%d" % hv for hv in ranked)
        for node, check, subject, h in rows[key]:
            if tie:
                problems.append({"node": node, "check": check, "subject": subject,
                                 "why": "no majority",
                                 "message": "%s; the fleet's GPUs gave %s, under %s"
                                 % (h, counts, key)})
            elif h != majority:
                problems.append({"node": node, "check": check, "subject": subject,
                                 "why": "fingerprint differs from the fleet's majority",
                                 "message": "%s where %d of %d GPUs gave %s, under %s"
                                 % (h, ranked[0][1], total, majority, key)})
    return summary, problems


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
    # Nodes are named by their host name: two reports of one name are counted as one node's,
    # which is what a node checked twice is, and a mistake when two nodes share a name.
    seen = {}
    for r in node_reports:
        seen[r.get("hostname")] = seen.get(r.get("hostname"), 0) + 1
    for host, n in seen.items():
        if host and n > 1:
            print("gpuverify-fleet: %d reports name host %s: counted as one node's" % (n, host),
                  file=sys.stderr)
    medians, problems = analyse(node_reports, args.tolerance)
    pair_medians, pair_problems = analyse_pairs(nccl_runs, args.tolerance)
    medians.update(pair_medians)
    problems += pair_problems
    fingerprints, fingerprint_problems = analyse_fingerprints(node_reports)
    problems += fingerprint_problems
    if args.json:
        print(json.dumps({"nodes": len(node_reports), "nccl_runs": len(nccl_runs),
                          "medians": medians, "fingerprints": fingerprints,
                          "outliers": problems}, indent=2))
    else:
        print("%d node reports, %d gv-nccl runs" % (len(node_reports), len(nccl_runs)))
        for check, m in medians.items():
            print("  %-16s median %8.1f %-6s over %d results" % (check, m["median"], m["unit"],
                                                                   m["samples"]))
        for key, f in fingerprints.items():
            if f["majority"] is None:
                print("  fingerprint NO MAJORITY: %s over %d GPUs of %d nodes, key %s"
                      % (", ".join("%s x%d" % hv for hv in f["hashes"].items()), f["gpus"],
                         f["nodes"], key))
            else:
                print("  fingerprint %s: %d of %d GPUs of %d nodes, key %s"
                      % (f["majority"], f["hashes"][f["majority"]], f["gpus"], f["nodes"], key))
        for p in problems:
            print("OUTLIER %-20s %-16s %-20s %s: %s" % (p["node"], p["check"], p["subject"],
                                                          p["why"], p["message"]))
        if not problems:
            print("no outlier")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
