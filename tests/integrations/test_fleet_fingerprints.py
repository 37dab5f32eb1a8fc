# SPDX-License-Identifier: Apache-2.0
"""Result fingerprints across nodes, end to end over the fakes: three nodes' gv-check --json
reports, two healthy and one whose GPUs all compute the same wrong result (scenario
h100x8-same-wrong: bit 0 of one output element of every GEMM flipped, within every tolerance).
That node's own report passes gemm.* and stress.gemm (its GPUs agree with each other and with
themselves); `gv-fleet report` names that node, by its rows and only its rows, against the
fleet's majority hash per key. Two nodes that differ have no majority: both are reported (WARN),
neither is called right.

Usage (ctest): test_fleet_fingerprints.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import json
import os
import subprocess
import sys
import tempfile

GPUS = ["gpu0", "gpu1"]
IDS = ["gemm.fp32", "gemm.tf32", "gemm.fp16", "gemm.bf16", "gemm.fp8", "stress.gemm"]


def node_report(gv_check, fixtures, fakelib, scenario, hostname):
    out = subprocess.run(
        [gv_check, "--json", "--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
         "--library-dir", fakelib, "--checks", "gemm,stress.gemm", "--gpus", "0,1",
         "--gemm-size", "32", "--duration", "0.3"], capture_output=True, text=True,
        env=dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                           scenario + ".conf")))
    report = json.loads(out.stdout)
    report["hostname"] = hostname
    return out.returncode, report


def fleet(tool, tmp, reports, text=False):
    path = os.path.join(tmp, "reports.json")
    with open(path, "w") as f:
        f.write("\n".join(json.dumps(r, indent=2) for r in reports))  # as srun prints them
    res = subprocess.run([sys.executable, tool, "report"] + ([] if text else ["--json"]) + [path],
                         capture_output=True, text=True)
    return res.returncode, res.stdout if text else (json.loads(res.stdout) if res.stdout else {})


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    tool = os.path.join(examples, "fleet", "gv-fleet")
    failures = []
    nodes = {}
    for hostname, scenario in (("n1", "h100x8"), ("n2", "h100x8"), ("n3", "h100x8-same-wrong")):
        rc, report = node_report(gv_check, fixtures, fakelib, scenario, hostname)
        rows = {(c["id"], c["subject"]): c for c in report["checks"]}
        # Every node judges itself healthy: the wrong one is missed within it.
        if rc != 0 or report["verdict"] != "PASS":
            failures.append("%s (%s): exit %d, verdict %s" % (hostname, scenario, rc,
                                                              report["verdict"]))
        for check in IDS:
            for gpu in GPUS:
                c = rows.get((check, gpu))
                if not c or c["verdict"] != "PASS" or "hash" not in (c.get("fingerprint") or {}):
                    failures.append("%s %s %s: %r" % (hostname, check, gpu, c))
        nodes[hostname] = report
    fp = lambda node, check, gpu: next(c["fingerprint"] for c in nodes[node]["checks"]
                                       if c["id"] == check and c["subject"] == gpu)
    # The same hash at every run and on every GPU of a healthy node; the wrong node's differs
    # under the same key; stress.gemm's is gemm.bf16's.
    for check in IDS:
        want = fp("n1", check, "gpu0")
        for node, gpu in (("n1", "gpu1"), ("n2", "gpu0"), ("n2", "gpu1")):
            if fp(node, check, gpu) != want:
                failures.append("%s %s %s: %r, n1 gpu0 %r" % (node, check, gpu,
                                                              fp(node, check, gpu), want))
        wrong = fp("n3", check, "gpu0")
        if wrong["key"] != want["key"] or wrong["hash"] == want["hash"]:
            failures.append("n3 %s: %r against the healthy %r" % (check, wrong, want))
    if fp("n1", "stress.gemm", "gpu0") != fp("n1", "gemm.bf16", "gpu0"):
        failures.append("stress.gemm's fingerprint is not gemm.bf16's")

    with tempfile.TemporaryDirectory() as tmp:
        # Three nodes: n3's twelve rows name it, and nothing else is named.
        rc, result = fleet(tool, tmp, [nodes["n1"], nodes["n2"], nodes["n3"]])
        by = {n["hostname"]: n for n in result.get("nodes", [])}
        flagged = sorted((h, r["check"], r["subject"]) for h, n in by.items()
                         for r in n["reasons"] if r["kind"] == "fingerprint")
        want = sorted(("n3", check, gpu) for check in IDS for gpu in GPUS)
        verdicts = {h: n["verdict"] for h, n in by.items()}
        if rc != 1 or flagged != want or verdicts != {"n1": "PASS", "n2": "PASS", "n3": "FAIL"}:
            failures.append("fleet of three: exit %d, %r, %r" % (rc, verdicts, flagged))
        keys = result.get("fingerprints", [])
        if len(keys) != 5 or any(k["gpus"] != 6 or
                                 k["majority"] != fp("n1", "gemm." + k["key"].split("|")[4],
                                                     "gpu0")["hash"] or
                                 k["hashes"][k["majority"]] != 4 for k in keys):
            failures.append("fleet of three: fingerprints %r" % keys)
        rc, text = fleet(tool, tmp, [nodes["n1"], nodes["n2"], nodes["n3"]], text=True)
        lines = [l.split()[:2] for l in text.splitlines()]
        if rc != 1 or ["FAIL", "n3"] not in lines or any(l[1:] == ["n1"] for l in lines):
            failures.append("fleet of three, as a table: exit %d\n%s" % (rc, text))
        # The two healthy nodes: nothing to flag.
        rc, result = fleet(tool, tmp, [nodes["n1"], nodes["n2"]])
        if rc != 0 or any(n["verdict"] != "PASS" for n in result.get("nodes", [])):
            failures.append("healthy pair: exit %d, %r" % (rc, result.get("nodes")))
        # A healthy node and the wrong one: a tie, no majority, both reported.
        rc, result = fleet(tool, tmp, [nodes["n1"], nodes["n3"]])
        whys = {(n["hostname"], n["verdict"], r["kind"]) for n in result.get("nodes", [])
                for r in n["reasons"]}
        if rc != 1 or whys != {("n1", "WARN", "fingerprint"), ("n3", "WARN", "fingerprint")} \
                or any(k["majority"] is not None for k in result.get("fingerprints", [])):
            failures.append("tie: exit %d, %r, %r" % (rc, whys, result.get("fingerprints")))
        rc, text = fleet(tool, tmp, [nodes["n1"], nodes["n3"]], text=True)
        if rc != 1 or "no majority" not in text:
            failures.append("tie, as a table: exit %d\n%s" % (rc, text))
    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
