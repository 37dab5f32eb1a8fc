#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""gv-fleet report over a fleet of fake nodes, each report made by gv-check over the fakes:
four healthy H100 nodes, one with a GPU off the bus, one with a GPU at 86% of its peers' GEMM
rate (its own check passes it), one whose GPU 3 has another VBIOS, one on another driver, one
whose GPUs all compute the same wrong result, and two healthy H20 nodes. The JSON must name
exactly the bad nodes, each with the right kind of reason, and pass the H20s (a group of two:
reported, not judged); exit 1. The input is as srun prints it (one line per report, from
gv-check writing to a pipe), with a truncated document in the middle that is skipped and
named; srun --label output reads the same; a healthy fleet exits 0; a missing file exits 2.
Then gv-nccl results: a node bad with two partners is named, its partners are not; figures
under 0.1 GB/s read apart from their median (figures_text). Every --json document is
validated against docs/fleet-report.schema.json (python3-jsonschema) and every --prometheus
text with `promtool check metrics` (Debian's prometheus); without either, that validation is
not made and said so.

usage: test_report.py GV_FLEET GV_CHECK GV_NCCL FIXTURES FAKELIB"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    jsonschema = None

GV_FLEET, GV_CHECK, GV_NCCL, FIXTURES, FAKELIB = sys.argv[1:6]
CHECKS = "driver,gpu,system,gemm.fp16,nccl.version"
DOCS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "docs")
SCHEMA = os.path.normpath(os.path.join(DOCS, "fleet-report.schema.json"))
PROMTOOL = shutil.which("promtool")
failures = []
validated = {"--json": 0, "--prometheus": 0}


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def scenario_text(name):
    return open(os.path.join(FIXTURES, "scenarios", name + ".conf")).read()


def gpu_line(text, index, change):
    """The scenario with GPU `index`'s line changed by `change` (a function of the line)."""
    lines, seen = text.splitlines(), -1
    for i, line in enumerate(lines):
        if line.startswith("gpu ="):
            seen += 1
            if seen == index:
                lines[i] = change(line)
    return "\n".join(lines) + "\n"


def sysroot_with_driver(tmp, version):
    """The H100 sysroot with another driver's kernel module: a node upgraded apart."""
    root = os.path.join(tmp, "sysroot-" + version)
    shutil.copytree(os.path.join(FIXTURES, "sysroots", "h100-open"), root, symlinks=True)
    files = [os.path.join(root, "sys", "module", "nvidia", "version")]
    for d, _, names in os.walk(os.path.join(root, "proc", "driver", "nvidia")):
        files += [os.path.join(d, f) for f in names]
    for path in files:
        if os.path.isfile(path) and not os.path.islink(path):
            text = open(path).read()
            open(path, "w").write(text.replace("580.95.05", version))
    return root


def report(tmp, hostname, text, sysroot=None):
    path = os.path.join(tmp, hostname + ".conf")
    open(path, "w").write(text)
    p = subprocess.run([GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", CHECKS,
                        "--gemm-size", "32",
                        "--sysroot", sysroot or os.path.join(FIXTURES, "sysroots", "h100-open")],
                       capture_output=True, text=True, env=dict(os.environ,
                                                               GV_FAKE_SCENARIO=path))
    # gv-check writes one line when its output is not a terminal (srun's, a pipe's).
    expect(p.stdout.count("\n") == 1, "%s: gv-check --json to a pipe is one line" % hostname)
    doc = json.loads(p.stdout)
    doc["hostname"] = hostname  # one machine plays every node
    return doc, p.returncode


def schema_validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALIDATOR = schema_validator() if jsonschema else None


def validate(args, p):
    """A --json document against the schema, a --prometheus text with promtool: any error is
    a failure."""
    if p.returncode not in (0, 1):
        return
    if "--json" in args and VALIDATOR:
        try:
            errors = ["%s at /%s" % (e.message, "/".join(map(str, e.path))) for e in sorted(
                VALIDATOR.iter_errors(json.loads(p.stdout)), key=lambda e: list(e.path))]
        except ValueError as e:
            errors = ["not JSON: %s" % e]
        validated["--json"] += 1
        if errors:
            expect(False, "report %s: the JSON against %s: %s" % (
                " ".join(args), SCHEMA, "; ".join(errors[:5])))
    if "--prometheus" in args and PROMTOOL:
        check = subprocess.run([PROMTOOL, "check", "metrics"], input=p.stdout,
                               capture_output=True, text=True)
        validated["--prometheus"] += 1
        if check.returncode != 0 or check.stdout.strip() or check.stderr.strip():
            expect(False, "report %s: promtool check metrics (exit %d): %s%s" % (
                " ".join(args), check.returncode, check.stdout, check.stderr))


def fleet(args, stdin=None):
    p = subprocess.run([sys.executable, GV_FLEET, "report"] + args, capture_output=True,
                       text=True, input=stdin)
    validate(args, p)
    return p.returncode, p.stdout, p.stderr


def front_matter():
    """--version says the project's version, as gv-check's; --help lists what a user runs."""
    tool = subprocess.run([sys.executable, GV_FLEET, "--version"], capture_output=True,
                          text=True)
    check = subprocess.run([GV_CHECK, "--version"], capture_output=True, text=True)
    version = check.stdout.split()[1] if check.stdout.startswith("gv-check ") else "?"
    expect(tool.returncode == 0 and tool.stdout.strip() == "gv-fleet %s" % version,
           "gv-fleet --version says %r, gv-check's version %s" % (tool.stdout.strip(), version))
    usage = subprocess.run([sys.executable, GV_FLEET, "--help"], capture_output=True, text=True)
    expect(usage.returncode == 0 and "{run,report}" in usage.stdout and
           "SUPPRESS" not in usage.stdout and "node-check" not in usage.stdout,
           "gv-fleet --help lists run and report only:\n%s" % usage.stdout)


def main():
    front_matter()
    h100 = scenario_text("h100x8")
    # Healthy H20s: their own rate (560 TFLOPS where the H100s reach 700) passes their checks;
    # beside the H100s' median it would be 80% of it.
    h20 = scenario_text("h20x8").replace("gemm_tflops=148", "gemm_tflops=560")
    nodes = {
        "n1": h100, "n2": h100, "n3": h100, "n4": h100,
        "lost": scenario_text("h100x8-gpu-lost"),
        "slow": gpu_line(h100, 2, lambda l: l + "; gemm_tflops=600"),
        "vbios": gpu_line(h100, 3, lambda l: l.replace("vbios=96.00.99.00.01",
                                                        "vbios=96.00.74.00.0B")),
        "driver": h100.replace("580.95.05", "580.82.07"),
        # A GPU of another board revision (the fleet's configuration majority, issue 47).
        "board": gpu_line(h100, 5, lambda l: l.replace("board_part=692-2G520-0200-000",
                                                        "board_part=692-2G520-0202-000")),
        "wrong": scenario_text("h100x8-same-wrong"),
        "h20a": h20, "h20b": h20,
    }
    want = {"lost": ("FAIL", "own check"), "slow": ("FAIL", "slow"),
            "vbios": ("WARN", "configuration"), "driver": ("WARN", "configuration"),
            "board": ("WARN", "configuration"),
            "wrong": ("FAIL", "fingerprint")}
    with tempfile.TemporaryDirectory() as tmp:
        docs = {}
        for host, text in nodes.items():
            root = sysroot_with_driver(tmp, "580.82.07") if host == "driver" else None
            docs[host], rc = report(tmp, host, text, root)
            if host in ("slow", "vbios", "driver", "board", "h20a"):
                expect(rc == 0, "%s passes its own checks (exit %d)" % (host, rc))
        lines = [json.dumps(docs[h]) for h in nodes]
        # A task killed mid-write: half a document, then the others go on.
        lines.insert(3, lines[0][:5000])
        stream = os.path.join(tmp, "srun.out")
        open(stream, "w").write("\n".join(lines) + "\n")
        rc, out, err = fleet(["--json", stream])
        result = json.loads(out) if out.startswith("{") else {}
        verdicts = {n["hostname"]: n for n in result.get("nodes", [])}
        expect(rc == 1, "a fleet with bad nodes exits 1 (got %d: %s)" % (rc, err.strip()))
        expect(sorted(verdicts) == sorted(nodes), "one entry per node: %s" % sorted(verdicts))
        bad = sorted(h for h, n in verdicts.items() if n["verdict"] != "PASS")
        expect(bad == sorted(want), "exactly the bad nodes named: %s" % bad)
        for host, (verdict, kind) in want.items():
            n = verdicts.get(host, {"verdict": None, "reasons": []})
            kinds = sorted({r["kind"] for r in n["reasons"]})
            expect(n["verdict"] == verdict and kind in kinds,
                   "%s: %s with a reason of kind %s (got %s, %s)" % (
                       host, verdict, kind, n["verdict"], kinds))
        slow = [r for r in verdicts.get("slow", {}).get("reasons", []) if r["kind"] == "slow"]
        expect(len(slow) == 1 and slow[0]["subject"] == "gpu2" and
               round(slow[0]["figure"]) == 600 and
               round(slow[0]["compared_with"]["median"]) == 700,
               "slow: gpu2's 600 TFLOPS against the median 700: %s" % slow)
        vb = [r for r in verdicts.get("vbios", {}).get("reasons", [])]
        expect(len(vb) == 1 and vb[0]["setting"] == "vbios@gpu3" and
               vb[0]["majority"] == "96.00.99.00.01",
               "vbios: GPU 3's VBIOS against the majority, nothing else: %s" % vb)
        bp = [r for r in verdicts.get("board", {}).get("reasons", [])]
        expect(len(bp) == 1 and bp[0]["setting"] == "board_part_number@gpu5" and
               bp[0]["majority"] == "692-2G520-0200-000",
               "board: GPU 5's board part number against the majority, nothing else: %s" % bp)
        dr = sorted(r.get("setting", r["why"]) for r in verdicts.get("driver", {}).get("reasons", []))
        # The GSP firmware comes with the driver: one reason for its eight GPUs.
        expect(dr == ["driver_version", "gsp_firmware"],
               "driver: the driver version and its GSP firmware: %s" % dr)
        expect(all(verdicts.get(h, {}).get("verdict") == "PASS" for h in ("h20a", "h20b")),
               "the H20 nodes pass: never judged against the H100s' figures")
        h20 = [g for g in result.get("figures", []) if "H20" in str(g["model"])]
        expect(h20 and not h20[0]["judged"] and h20[0]["nodes"] == 2,
               "the H20 group of two is reported, not judged: %s" % h20)
        skipped = result.get("skipped", [])
        expect(len(skipped) == 1 and skipped[0]["line"] == 4 and
               skipped[0]["source"] == stream,
               "the truncated document skipped and named by file and line: %s" % skipped)
        expect("skipped %s line 4" % stream in err, "the skip said on stderr: %s" % err)

        # srun --label: each line "<task>: ..." (a long line cut in pieces joins up again).
        labelled = []
        for t, h in enumerate(nodes):
            text = json.dumps(docs[h])
            labelled += ["%d: %s" % (t, text[i:i + 4096]) for i in range(0, len(text), 4096)]
        rc2, out2, _ = fleet(["--json", "-"], stdin="\n".join(labelled) + "\n")
        bad2 = sorted(n["hostname"] for n in json.loads(out2)["nodes"]
                      if n["verdict"] != "PASS") if out2.startswith("{") else None
        expect(rc2 == 1 and bad2 == sorted(want), "srun --label output: %s" % bad2)
        # ... also with srun's own message among the pieces, as sbatch writes both to one file.
        noisy = labelled[:1] + ["srun: Job step 12.0 aborted: a task was killed"] + labelled[1:]
        rc2, out2, err2 = fleet(["--json", "-"], stdin="\n".join(noisy) + "\n")
        bad2 = sorted(n["hostname"] for n in json.loads(out2)["nodes"]
                      if n["verdict"] != "PASS") if out2.startswith("{") else None
        expect(rc2 == 1 and bad2 == sorted(want) and "lines without a label" in err2,
               "srun --label output with an unlabelled line: %s %s" % (bad2, err2))

        # The table: one line per node that is not PASS, then the counts.
        rc3, table, _ = fleet([stream])
        named = [l.split()[1] for l in table.splitlines() if l.split()[0] in ("FAIL", "WARN")]
        expect(sorted(named) == sorted(want) and table.splitlines()[-1].startswith(
            "%d node(s): 6 PASS, 3 WARN, 0 ERROR, 3 FAIL" % len(nodes)),
            "table: a line per bad node and the counts:\n%s" % table)
        rc4, prom, _ = fleet(["--prometheus", stream])
        expect('gpuverify_fleet_node_ok{Hostname="slow",verdict="FAIL"} 0' in prom and
               'gpuverify_fleet_node_ok{Hostname="n1",verdict="PASS"} 1' in prom,
               "Prometheus: gpuverify_fleet_node_ok per node")
        rc5, dry, _ = fleet(["--drain-dry-run", stream])
        drains = [l for l in dry.splitlines() if l.startswith("scontrol update")]
        expect(len(drains) == 3 and all("'reason=gpuverify: fleet: " in l for l in drains),
               "--drain-dry-run: the three FAIL nodes, the health check's reason format: %s"
               % drains)

        # A pinned value: the driver the site requires; the node on another one FAILs.
        rc6, out6, _ = fleet(["--json", "--pin", "driver_version=580.95.05", stream])
        pin = [r for n in json.loads(out6)["nodes"] if n["hostname"] == "driver"
               for r in n["reasons"] if r.get("pinned")]
        expect(rc6 == 1 and len(pin) == 1 and pin[0]["verdict"] == "FAIL",
               "--pin driver_version: the node on another driver FAILs: %s" % pin)
        # A setting no report has, mistyped: refused, never a pin that judges nothing.
        rc7, out7, err7 = fleet(["--pin", "drivr_version=580.95.05", stream])
        expect(rc7 == 2 and not out7 and "no setting 'drivr_version'" in err7 and
               "driver_version" in err7,
               "--pin drivr_version: a usage error listing the settings (exit %d): %s" % (
                   rc7, err7[-300:]))
        rc8, out8, _ = fleet(["--json", "--pin", "vbios@gpu3=96.00.99.00.01", stream])
        pinned = {n["hostname"] for n in json.loads(out8 or "{}").get("nodes", [])
                  for r in n["reasons"] if r.get("pinned")}
        expect(rc8 == 1 and "vbios" in pinned and "n1" not in pinned,
               "--pin vbios@gpu3: a GPU's setting pinned, the node with another FAILs: %s" %
               sorted(pinned))

        healthy = os.path.join(tmp, "healthy.out")
        open(healthy, "w").write("\n".join(json.dumps(docs[h])
                                           for h in ("n1", "n2", "n3", "h20a", "h20b")) + "\n")
        rc, out, _ = fleet([healthy])
        expect(rc == 0, "a healthy fleet exits 0:\n%s" % out)
        rc, _, err = fleet([os.path.join(tmp, "absent.json")])
        expect(rc == 2 and "absent.json" in err, "a missing file exits 2 naming it: %s" % err)
        rc, _, err = fleet(["-"], stdin='{"schema_version": 7, "checks": [{"id": 3}]}\n')
        expect(rc == 2 and "skipped stdin line 1" in err,
               "a report with wrong types is skipped, and nothing left is exit 2: %s" % err)
        rc, _, _ = fleet(["--tolerance", "nan", healthy])
        expect(rc == 2, "--tolerance nan is a usage error (exit %d)" % rc)
        # NaN figures (Python's json writes them) take no part in a median.
        nan = dict(docs["n1"], hostname="nan")
        nan["checks"] = [dict(c, value=float("nan")) if c["id"] == "gemm.fp16" else c
                         for c in nan["checks"]]
        rc, out, _ = fleet(["--json", "-"], stdin="\n".join(
            json.dumps(d) for d in (docs["n1"], docs["n2"], docs["n3"], nan)))
        medians = [g["median"] for g in json.loads(out)["figures"]]
        expect(rc == 0 and all(m == m for m in medians), "NaN figures left out: %s" % medians)

        # Collectives: n3 slow with n2 and failed with n4: n3 is named, n2 and n4 are not;
        # a pair result between two nodes seen nowhere else is their link.
        p = subprocess.run([GV_NCCL, "--library-dir", FAKELIB, "--gpus", "0,1", "-b", "1M",
                            "-e", "1M", "-n", "2", "--json"], capture_output=True, text=True,
                           env=dict(os.environ, GV_FAKE_SCENARIO=os.path.join(
                               FIXTURES, "scenarios", "h100x8.conf")))
        base = json.loads(p.stdout)
        runs = [dict(base, hosts=h, nranks=2, peak_busbw_gbps=b, verdict=v)
                for h, b, v in ((["n1", "n2"], 2.0, "PASS"), (["n1", "n4"], 2.0, "PASS"),
                                (["n2", "n3"], 0.5, "PASS"), (["n3", "n4"], 1.9, "FAIL"),
                                (["h20a", "h20b"], 0.4, "PASS"))]
        pairs = os.path.join(tmp, "pairs.out")
        open(pairs, "w").write("\n".join(json.dumps(r) for r in runs) + "\n")
        rc, out, _ = fleet(["--json", healthy, pairs])
        got = {n["hostname"]: (n["verdict"], sorted({r["kind"] for r in n["reasons"]}))
               for n in json.loads(out)["nodes"]}
        expect(rc == 1 and got.get("n3") == ("FAIL", ["collective"]) and
               got.get("n2", ("PASS",))[0] == "PASS" and got.get("n4")[0] == "ERROR",
               "collectives: n3 named, n2 not; n4 has no report of its own: %s" % got)
        expect(got.get("h20a") == ("WARN", ["link"]) and got.get("h20b")[0] == "WARN",
               "a slow pair seen nowhere else is a link: %s" % got)
        # One failed run over four nodes names none of them (its members are suspects beside
        # each other); a failed pair of one of them with a fifth node, sharing no other node
        # with that run, names it.
        four = dict(base, hosts=["m1", "m2", "m3", "m4"], nranks=4, verdict="FAIL",
                    message="rank 2: timed out")
        open(pairs, "w").write(json.dumps(four) + "\n")
        rc, out, _ = fleet(["--json", pairs])
        got = {n["hostname"]: (n["verdict"], [r["kind"] for r in n["reasons"]])
               for n in json.loads(out)["nodes"]}
        expect(rc == 1 and got == {h: ("WARN", ["collective"]) for h in four["hosts"]},
               "one failed run over four nodes: four suspects, none named: %s" % got)
        rc, out, _ = fleet(["--drain-dry-run", pairs])
        expect("scontrol" not in out, "no node drained for one failed run: %s" % out)
        open(pairs, "a").write(json.dumps(dict(base, hosts=["m2", "m5"], nranks=2,
                                               verdict="FAIL")) + "\n")
        rc, out, _ = fleet(["--json", pairs])
        got = {n["hostname"]: n["verdict"] for n in json.loads(out)["nodes"]
               if n["verdict"] != "PASS"}
        expect(got == {"m2": "FAIL"}, "m2 bad with m1+m3+m4 and with m5: named alone: %s" % got)
        # Ranks that never came ("?": gv-nccl does not know their hosts) are no node: two
        # results sharing only "?" leave their known hosts suspects (the report not healthy),
        # none named.
        open(pairs, "w").write("".join(json.dumps(dict(base, hosts=[h, "?"], nranks=2,
                                                       verdict="FAIL")) + "\n"
                                       for h in ("g1", "g2")))
        rc, out, _ = fleet(["--json", pairs])
        got = {n["hostname"]: n["verdict"] for n in json.loads(out)["nodes"]
               if n["verdict"] != "PASS"}
        expect(got == {"g1": "WARN", "g2": "WARN"},
               "results with a rank that never came: their known hosts suspects, '?' no node: "
               "%s" % got)
        # A result or answer of the wrong shape is skipped, never read as names.
        for bad in ({"launcher": "mpirun", "culprits": [], "verdict": "FAIL",
                     "search": {"links": "n1", "undecided": "gpu-7"}},
                    {"launcher": "mpirun", "culprits": [{"node": 5}], "verdict": "FAIL"},
                    dict(base, hosts=[], verdict="FAIL")):
            rc, out, err = fleet(["--json", "-"], stdin=json.dumps(bad) + "\n")
            expect(rc == 2 and "skipped stdin line 1" in err,
                   "a document of the wrong shape is skipped: exit %d %s" % (rc, err))

        # Figures under 0.1: the slow run and the median read apart ("0.1 GB/s, 38% of the
        # median 0.1 GB/s" said nothing), in the JSON's reasons and the table alike.
        tiny = [dict(r, peak_busbw_gbps=0.05 if r["hosts"] == ["n2", "n3"] else 0.13,
                     verdict="PASS") for r in runs]
        open(pairs, "w").write("\n".join(json.dumps(r) for r in tiny) + "\n")
        rc, out, _ = fleet(["--json", healthy, pairs])
        whys = [r["why"] for n in json.loads(out)["nodes"] if n["hostname"] == "n3"
                for r in n["reasons"]]
        want_why = "all_reduce over n2+n3: 0.05 GB/s busbw, 38% of the median 0.13 GB/s"
        expect(rc == 1 and any(want_why in w for w in whys),
               "slow figures under 0.1 told apart from the median: %s" % whys)
        rc, table, _ = fleet([healthy, pairs])
        expect(want_why in table, "the table tells them apart too:\n%s" % table)

        # gv-fleet run answers: a node its own checks named, one the search named, suspects
        # it left undecided, a node not judged; a run that found its fault between the groups
        # names no node and still fails the report.
        answer = {"launcher": "slurm", "nodes": ["n1", "n2", "n3", "n4"], "verdict": "FAIL",
                  "culprits": [{"node": "n1", "found_by": "own checks", "why": "FAIL ..."},
                               {"node": "n2", "found_by": "search", "why": "failed with n3"}],
                  "not_judged": [{"node": "n3", "why": "ERROR gv-check: usage error"}],
                  "search": {"undecided": ["n4", "h20a"], "links": [],
                             "between_groups": False}}
        fabric = {"launcher": "slurm", "nodes": ["n1", "n2"], "verdict": "FAIL", "culprits": [],
                  "not_judged": [], "search": {"undecided": [], "links": [],
                                               "between_groups": True}}
        rc, out, _ = fleet(["--json", "-"], stdin=json.dumps(answer) + "\n")
        got = {n["hostname"]: (n["verdict"], [r["kind"] for r in n["reasons"]])
               for n in json.loads(out)["nodes"]}
        expect(rc == 1 and got == {"n1": ("FAIL", ["own checks"]),
                                   "n2": ("FAIL", ["culprit search"]),
                                   "n3": ("ERROR", ["own checks"]),
                                   "n4": ("WARN", ["undecided"]),
                                   "h20a": ("WARN", ["undecided"])},
               "a run answer's culprits, not judged and undecided nodes: %s" % got)
        # Every node the run tested has its answer: those it found nothing in pass.
        healthy_run = dict(fabric, verdict="PASS", search=None, nodes=["n1", "n2", "n3"])
        rc, table, _ = fleet(["-"], stdin=json.dumps(healthy_run) + "\n")
        expect(rc == 0 and table.splitlines()[-1].startswith("3 node(s): 3 PASS"),
               "a healthy run's nodes each pass:\n%s" % table)
        rc, out, _ = fleet(["--json", "-"], stdin=json.dumps(fabric) + "\n")
        doc = json.loads(out)
        expect(rc == 1 and {n["verdict"] for n in doc["nodes"]} == {"PASS"} and
               len(doc["fabric"]) == 1 and
               "between the groups" in doc["fabric"][0]["why"],
               "a fault between the groups fails the report with no node named: %s" % doc)

        def table_and_metric(doc, line, between):
            """The table's line on a run answer, and Prometheus' count of faults between."""
            rc, table, _ = fleet(["-"], stdin=json.dumps(doc) + "\n")
            expect(rc == 1 and line in table, "the table says %r:\n%s" % (line, table))
            rc, text, _ = fleet(["--prometheus", "-"], stdin=json.dumps(doc) + "\n")
            expect("gpuverify_fleet_faults_between_nodes %d" % between in text,
                   "Prometheus counts %d fault(s) between nodes:\n%s" % (between, text))

        table_and_metric(fabric, "FAIL  fabric: every group passed alone", 1)
        # A run that failed only because a node's own checks could not judge it, or a test
        # failed once with nothing named: those nodes, never a fault of the fabric.
        unjudged = dict(fabric, search=dict(fabric["search"], between_groups=False),
                        not_judged=[{"node": "n2", "why": "ERROR gv-check: exit 3"}])
        rc, out, _ = fleet(["--json", "-"], stdin=json.dumps(unjudged) + "\n")
        doc = json.loads(out)
        expect(rc == 1 and doc["fabric"] == [] and
               [n["verdict"] for n in doc["nodes"] if n["hostname"] == "n2"] == ["ERROR"],
               "a node not judged is no fault between nodes: %s" % doc)
        once = dict(fabric, search=dict(fabric["search"], between_groups=False),
                    unexplained_failures=[{"round": "all nodes", "nodes": ["n1", "n2"],
                                           "verdict": "FAIL", "busbw_gbps": 0.0,
                                           "why": "wrong data", "seconds": 1.0}])
        rc, out, _ = fleet(["--json", "-"], stdin=json.dumps(once) + "\n")
        doc = json.loads(out)
        expect(rc == 1 and doc["fabric"] == [] and
               {n["hostname"]: [r["kind"] for r in n["reasons"]] for n in doc["nodes"]} ==
               {"n1": ["unexplained"], "n2": ["unexplained"]},
               "a failure nothing explains names its nodes: %s" % doc)
        # Three healthy nodes without a floor: the run FAILs (its speed not judged), naming no
        # node; that is the search's, not a fault between the groups for a dashboard.
        undecided = dict(fabric, search=dict(fabric["search"], between_groups=False),
                         speed_judged=False)
        table_and_metric(undecided, "FAIL  search: the all-nodes run's speed was not judged", 0)
        rc, out, _ = fleet(["--drain-dry-run", "-"], stdin=json.dumps(answer) + "\n")
        expect("reason=gpuverify: fleet: own checks FAIL" in out,
               "a node its own checks named is drained for them, not the search: %s" % out)

    # The rule itself: one decimal (two for pairs) as before, more significant digits only
    # where two figures that differ would read the same or one would read as 0.
    sys.path.insert(0, os.path.dirname(os.path.realpath(GV_FLEET)))
    from gvfleet.report import figures_text
    for values, kw, want_text in (((600.0, 700.0), {}, ["600.0", "700.0"]),
                                  ((0.05, 0.13), {}, ["0.05", "0.13"]),
                                  ((700.04, 700.01), {}, ["700.04", "700.01"]),
                                  ((0.04,), {}, ["0.04"]),
                                  ((0.0, 5.0), {}, ["0.0", "5.0"]),
                                  ((5.0, 5.0), {}, ["5.0", "5.0"]),
                                  ((0.5, 1.9), {"decimals": 2}, ["0.50", "1.90"]),
                                  ((0.001, 0.004), {"decimals": 2}, ["0.001", "0.004"])):
        got_text = figures_text(*values, **kw)
        expect(got_text == want_text, "figures_text%r: %r, want %r" % (values, got_text,
                                                                       want_text))
    if not jsonschema:
        print("python3-jsonschema is not installed: the --json documents are not validated")
    if not PROMTOOL:
        print("promtool is not installed: the --prometheus texts are not checked")
    print("%d --json documents validated against %s, %d --prometheus texts checked by "
          "promtool" % (validated["--json"], SCHEMA, validated["--prometheus"]))
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
