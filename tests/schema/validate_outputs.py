# SPDX-License-Identifier: Apache-2.0
"""Runs gv-check over every fake scenario and fixture sysroot and checks its outputs with real
validators: the JSON against docs/report.schema.json (python3-jsonschema), the Prometheus text
with `promtool check metrics` (Debian's prometheus package) and against the series budget, and
the exit code of each mode
(default: 0 healthy, 1 FAIL, 3 ERROR, 4 ERRORs all from another gpuverify's hold; --npd: 0 OK,
1 FAIL, 2 unknown, one line of at most 200 bytes), that every
FAIL and WARN says what to do and no row prints an unknown as a number, and that every WARN,
FAIL and ERROR row names an action (its rule's, or its check's catalog line's) and every PASS and
SKIP row none, the node's the strongest, in each output.

Usage (ctest runs it with Debian's /usr/bin/python3):
    validate_outputs.py GV_CHECK FIXTURES FAKELIB EMPTYLIB SCHEMA PROMTOOL
GV_VALIDATE_CASES (a regular expression) limits the run to the cases whose names it matches.
The Prometheus text judged against a report is the --textfile of the same --json run: two runs
of a fault scenario on a loaded host may end differently (a hang cut at its deadline or not),
one run's outputs never do; the --prometheus run is checked on its own.
Exit 77 when jsonschema or promtool is missing (scripts/setup-debian.sh installs both)."""
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: not validated")
    sys.exit(77)

# Active checks at sizes the fakes compute quickly; one H100 for the GPU work, eight for NCCL.
SMALL = ["--gemm-size", "32", "--copy-mib", "1", "--nccl-kib", "64"]
EIGHT_GPU_CHECKS = "^cuda,^mem,^gemm,^cudnn"


def cases(fixtures, fakelib, emptylib):
    """(name, sysroot, library dir, scenario file, extra arguments, environment)."""
    roots = os.path.join(fixtures, "sysroots")
    for conf in sorted(os.listdir(os.path.join(fixtures, "scenarios"))):
        name = conf[:-len(".conf")]
        scenario = os.path.join(fixtures, "scenarios", conf)
        env = {}
        if name in ("t4", "nvml-mismatch"):
            root = "debian12-proprietary"
        elif "rdma" in name:
            root = "h100-roce-mtu1500" if "mtu1500" in name else "h100-roce"
            env["HWLOC_FSROOT"] = os.path.join(roots, root)
        else:
            root = "h100-open"
        args = SMALL + ([] if name.startswith("h100x1") else ["--checks", EIGHT_GPU_CHECKS])
        if name.startswith("fault-"):  # hangs and crashes: the rows they leave, in seconds
            args = SMALL + ["--deadline", "1", "--checks", EIGHT_GPU_CHECKS]
        if name in ("h100x8-nccl-hang", "h100x8-nccl-host-hang"):
            continue  # its all-reduce waits for what remains of the budget; test_nccl covers it
        yield name, os.path.join(roots, root), fakelib, scenario, args, env
    for root in sorted(os.listdir(roots)):
        env = {"HWLOC_FSROOT": os.path.join(roots, root)} if root.startswith("h100-roce") else {}
        yield "no libraries: " + root, os.path.join(roots, root), emptylib, None, [], env


# An unknown printed as a number: -1 standing alone, nan, inf, (null), a wrapped sentinel. A
# quoted value keeps its brackets ("sysfs -1)", "fd -1)") and is not matched.
UNKNOWN_AS_NUMBER = re.compile(r"(?<![\w.-])-1(?![\w.)])|\bnan\b|\binf\b|\(null\)|"
                               r"-2147483648|4294967295|18446744073709551615", re.I)


def unhelpful_rows(report):
    """What a person acting on the report could not act on: a FAIL or WARN that says nothing
    to do, an unknown printed as a number."""
    for c in report["checks"]:
        where = "%s %s" % (c["id"], c["subject"])
        if c["verdict"] in ("FAIL", "WARN") and not c.get("remediation"):
            yield "%s: %s without a remediation: %s" % (where, c["verdict"], c["message"][:120])
        for key in ("message", "remediation"):
            m = UNKNOWN_AS_NUMBER.search(c.get(key) or "")
            if m:
                yield "%s: %s shows an unknown as %r: %s" % (where, key, m.group(0),
                                                             c[key][:120])


ACTIONS = ("none", "rerun", "wait", "fix_config", "reset_gpu", "reboot_node", "hw_inspect")


def action_problems(report):
    """The action of each row: one for every WARN, FAIL and ERROR, none for PASS and SKIP,
    wait for another gpuverify's hold; the node's the strongest of its rows'."""
    strongest = "none"
    for c in report["checks"]:
        where = "%s %s" % (c["id"], c["subject"])
        judged = c["verdict"] in ("WARN", "FAIL", "ERROR")
        if judged and c["action"] == "none":
            yield "%s: %s without an action: %s" % (where, c["verdict"], c["message"][:120])
        elif not judged and c["action"] != "none":
            yield "%s: %s with the action %s" % (where, c["verdict"], c["action"])
        if "held_by" in c and c["action"] != "wait":
            yield "%s: held by another gpuverify, action %s" % (where, c["action"])
        if ACTIONS.index(c["action"]) > ACTIONS.index(strongest):
            strongest = c["action"]
    if report["action"] != strongest:
        yield "the node's action %s, its strongest row's %s" % (report["action"], strongest)


# The series budget (docs/outputs.md, "Series budget"): at most 40 per GPU and 20 for the node.
SERIES_PER_GPU, SERIES_PER_NODE = 40, 20
GPU_LABEL = re.compile(r'[{,]gpu="(\d+)"')


def prometheus_problems(text, gpus):
    """A Prometheus text on its own terms (the JSON came from another run): one
    gpuverify_check_status series per row its gpuverify_checks counts WARN, FAIL or ERROR (none
    for PASS or SKIP), the state set and the unit-mixing gauge of earlier releases gone, and the
    series within the budget for a node of `gpus` GPUs: in all, and on a healthy node per GPU
    and for the node."""
    series = [line for line in text.splitlines() if line and not line.startswith("#")]
    status = [line for line in series if line.startswith("gpuverify_check_status{")]
    counts = dict(re.findall(r'^gpuverify_checks\{verdict="(\w+)"\} (\d+)$', text, re.M))
    judged = sum(int(counts.get(v, 0)) for v in ("WARN", "FAIL", "ERROR"))
    if len(status) != judged:
        yield "%d gpuverify_check_status series for %d WARN/FAIL/ERROR rows" % (
            len(status), judged)
    for old in ("gpuverify_check_verdict", "gpuverify_check_value"):
        if old in text:
            yield "the removed metric %s is still written" % old
    if len(series) > SERIES_PER_GPU * gpus + SERIES_PER_NODE:
        yield "%d series for %d GPU(s): over the budget of %d per GPU + %d" % (
            len(series), gpus, SERIES_PER_GPU, SERIES_PER_NODE)
    if "\ngpuverify_node_healthy 1\n" in text:
        per = collections.Counter()
        for line in series:
            m = GPU_LABEL.search(line.split("}")[0])
            per["gpu " + m.group(1) if m else "the node"] += 1
        for who, n in sorted(per.items()):
            limit = SERIES_PER_NODE if who == "the node" else SERIES_PER_GPU
            if n > limit:
                yield "%d series for %s: over its budget of %d" % (n, who, limit)


GPU_RANK = {"SKIP": 0, "PASS": 1, "WARN": 2, "ERROR": 3, "FAIL": 4}


def gpu_verdict_problems(report):
    """Each GPU's verdict and failed_checks (schema 6) against the rows whose subject is that
    GPU: FAIL over ERROR over WARN over PASS, SKIP with no row; the checks of that verdict
    when FAIL or ERROR. Node rows count for no GPU."""
    for g in report["gpus"]:
        rows = [c for c in report["checks"] if c["subject"] == "gpu%d" % g["index"]]
        want = max((c["verdict"] for c in rows), key=GPU_RANK.get, default="SKIP")
        ids = []
        for c in rows:
            if want in ("FAIL", "ERROR") and c["verdict"] == want and c["id"] not in ids:
                ids.append(c["id"])
        if g["verdict"] != want or g["failed_checks"] != ids:
            yield "gpus[%d]: verdict %s %s, its rows say %s %s" % (
                g["index"], g["verdict"], g["failed_checks"], want, ids)


USABLE = re.compile(r'^gpuverify_gpu_usable\{([^}]*)\} (\S+)$', re.M)
STATUS = re.compile(r'^gpuverify_check_status\{[^}]*subject="gpu(\d+)",verdict="(FAIL|ERROR)"',
                    re.M)


def gpu_usable_problems(text, given):
    """gpuverify_gpu_usable on its own terms: one series for each of the `given` GPUs (those
    not inaccessible), 0 exactly for a GPU with a FAIL or ERROR gpuverify_check_status."""
    usable = {}
    for labels, value in USABLE.findall(text):
        m = GPU_LABEL.search("{" + labels)
        if not m or m.group(1) in usable or value not in ("0", "1"):
            yield "gpuverify_gpu_usable{%s} %s: no gpu label, twice or not 0/1" % (labels, value)
            continue
        usable[m.group(1)] = value
    if len(usable) != given:
        yield "%d gpuverify_gpu_usable series for %d GPUs given to the run" % (len(usable), given)
    bad = {n for n, _ in STATUS.findall(text)}
    for n, value in sorted(usable.items()):
        if value != ("0" if n in bad else "1"):
            yield "gpuverify_gpu_usable{gpu=\"%s\"} %s against its check_status rows" % (n, value)


def run(gv_check, sysroot, libdir, scenario, args, env, mode):
    """One gv-check run; a --json run also writes its Prometheus text (--textfile), kept as
    the result's `textfile`."""
    e = dict(os.environ, **env)
    e.pop("GV_FAKE_SCENARIO", None)
    if scenario:
        e["GV_FAKE_SCENARIO"] = scenario
    cmd = [gv_check, "--sysroot", sysroot, "--library-dir", libdir] + args + ([mode] if mode else [])
    with tempfile.TemporaryDirectory() as tmp:
        e["GV_FAKE_ONCE_DIR"] = tmp  # a fault "crash_once" crashes the run's first worker only
        textfile = os.path.join(tmp, "gpuverify.prom")
        if mode == "--json":
            cmd += ["--textfile", textfile]
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=300)
        p.textfile = open(textfile).read() if os.path.exists(textfile) else ""
    return p


MODES = ("--json", "--prometheus", "--npd")


def check_case(name, report_run, prom, npd, promtool, validator):
    """One case's three runs and what each must be: (problems, the check IDs its report has).
    The Prometheus text and the --npd line are judged against the --json run's report."""
    failures = []
    try:
        report = json.loads(report_run.stdout)
    except json.JSONDecodeError as e:
        return ["%s: not JSON (%s), exit %d: %s" % (name, e, report_run.returncode,
                                                    report_run.stderr.strip())], set()
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    for e in errors[:5]:
        failures.append("%s: %s at %s" % (name, e.message, "/".join(map(str, e.path))))
    bad = report["verdict"] in ("FAIL", "ERROR")
    errors_rows = [c for c in report["checks"] if c["verdict"] == "ERROR"]
    held = bool(errors_rows) and all("held_by" in c for c in errors_rows)
    fail = any(c["verdict"] == "FAIL" for c in report["checks"])
    want_exit = 1 if fail else (4 if held else 3) if errors_rows else 0
    if report_run.returncode != want_exit:
        failures.append("%s: --json exit %d (want %d) with verdict %s" % (
            name, report_run.returncode, want_exit, report["verdict"]))
    failures += ["%s: %s" % (name, p) for p in unhelpful_rows(report)]
    failures += ["%s: %s" % (name, p) for p in action_problems(report)]
    failures += ["%s: %s" % (name, p) for p in gpu_verdict_problems(report)]

    for text, what in ((prom.stdout, "--prometheus"), (report_run.textfile, "--textfile")):
        check = subprocess.run([promtool, "check", "metrics"], input=text,
                               capture_output=True, text=True)
        if check.returncode != 0 or not text.startswith("# HELP gpuverify_info"):
            failures.append("%s: promtool on %s: %s%s" % (name, what, check.stdout, check.stderr))
    prom = subprocess.CompletedProcess(prom.args, prom.returncode, report_run.textfile, "")
    healthy = "gpuverify_node_healthy %d" % (0 if bad else 1)
    if healthy not in prom.stdout:
        failures.append("%s: Prometheus text lacks '%s'" % (name, healthy))
    failures += ["%s: %s" % (name, p) for p in prometheus_problems(prom.stdout, len(report["gpus"]))]
    node_action = 'gpuverify_node_action{action="%s"} %d' % (
        report["action"], ACTIONS.index(report["action"]))
    if "\n" + node_action + "\n" not in prom.stdout:
        failures.append("%s: Prometheus text lacks '%s'" % (name, node_action))
    given = sum(1 for g in report["gpus"] if not g["inaccessible"])
    failures += ["%s: %s" % (name, p) for p in gpu_usable_problems(prom.stdout, given)]

    verdicts = [c["verdict"] for c in report["checks"]]
    want = 1 if "FAIL" in verdicts else 2 if "ERROR" in verdicts else 0
    lines = npd.stdout.splitlines()
    if npd.returncode != want or len(lines) != 1 or len(npd.stdout.encode()) > 201:
        failures.append("%s: --npd exit %d (want %d), %d line(s): %r" % (
            name, npd.returncode, want, len(lines), npd.stdout[:200]))
    elif want and "[%s]" % report["action"] not in npd.stdout:
        failures.append("%s: --npd line lacks the action [%s]: %r" % (
            name, report["action"], npd.stdout[:200]))
    return failures, {c["id"] for c in report["checks"]}


# gv-check runs at once: most of a run's time is waiting (hangs cut at their deadline, the
# fabric's probe, the worker's start), not the CPU, so more runs than cores go side by side.
PARALLEL = 4 * (os.cpu_count() or 1)


def main():
    gv_check, fixtures, fakelib, emptylib, schema_path = map(os.path.abspath, sys.argv[1:6])
    promtool = sys.argv[6]
    if not shutil.which(promtool):
        print("promtool is not installed: not validated")
        return 77
    schema = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    # Runs side by side would wait for one another's hold on the same fake GPUs (the GPU
    # locks, as two gpuverify runs on one node do): each run its own lock folder.
    locks = os.environ.get("GPUVERIFY_LOCK_DIR") or tempfile.mkdtemp(prefix="gv-locks-")
    only = re.compile(os.environ.get("GV_VALIDATE_CASES", ""))
    all_cases = [c for c in cases(fixtures, fakelib, emptylib) if only.search(c[0])]
    runs = []
    for i, (name, root, libdir, scenario, args, env) in enumerate(all_cases):
        for mode in MODES:
            lock_dir = os.path.join(locks, "case-%d%s" % (i, mode))
            os.makedirs(lock_dir, exist_ok=True)
            runs.append((root, libdir, scenario, args, dict(env, GPUVERIFY_LOCK_DIR=lock_dir),
                         mode))
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        done = list(pool.map(lambda r: run(gv_check, *r), runs))
    failures, seen_ids = [], set()
    for i, case in enumerate(all_cases):
        problems, ids = check_case(case[0], *done[3 * i:3 * i + 3], promtool, validator)
        failures += problems
        seen_ids |= ids
    for f in failures:
        print("FAIL", f)
    print("%d cases, %d check IDs seen, %d problems" % (len(all_cases), len(seen_ids),
                                                         len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
