#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""gv-check --json over every fake scenario and fixture sysroot the tests use, each report
saved with what depends on time or on the machine taken out, so that two builds can be
compared file by file: a change meant to keep behaviour (moving code between layers) must
leave every file the same.

Usage (Debian's /usr/bin/python3, nothing from PyPI):
    scripts/scenario-json.py BUILD_DIR OUT_DIR [-j N] [--only REGEX]
    diff -r OUT_BEFORE OUT_AFTER

The cases are those of tests/schema/validate_outputs.py (each scenario with small active
checks, each sysroot with no libraries) and of tests/faults/run_fault.py (each fault with its
own checks, deadline, worker and policy). Each case gets its own GPU lock directory, so cases
run side by side do not wait for one another's holds.

What is taken out: timestamps, durations, the build directory's path, PIDs, and the figures
the fakes time with the host's clock (bandwidths, rates, latencies, throughput) in the rows of
the tests that run on the GPUs; the rows are sorted, since GPUs tested in lanes finish in any
order. Verdicts, IDs, subjects, messages otherwise and everything the facts say are kept."""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SOURCE, "tests", "faults"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "schema"))
import run_fault  # noqa: E402  (the fault cases, as ctest runs them)
import validate_outputs  # noqa: E402  (the scenario and sysroot cases, as ctest runs them)

SMALL = validate_outputs.SMALL
EIGHT_GPU_CHECKS = validate_outputs.EIGHT_GPU_CHECKS
# The scenarios validate_outputs leaves out (an all-reduce that waits for the rest of the
# budget), here with NCCL left out so that the rest of their report is compared.
NCCL_HANGS = ("h100x8-nccl-hang", "h100x8-nccl-host-hang")

# Rows of the tests that run work on the fake GPUs: their figures are timed with the host's
# clock, and the memory test's addresses are the allocator's.
TIMED = re.compile(r"^(cuda|gemm|mem|stress|nccl|cudnn)\.")
HEX = re.compile(r"0x[0-9a-fA-F]+")
NUMBER = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")
PID = re.compile(r"\b(PID|pid|process) \d+")
SECONDS = re.compile(r"\d+(\.\d+)? ?(s|ms|us|seconds?)\b")


def output_cases(fixtures, fakelib, emptylib):
    """validate_outputs.py's cases: (name, argv tail, environment)."""
    cases = validate_outputs.cases(fixtures, fakelib, emptylib)
    for name, root, lib, scenario, args, env in cases:
        env = dict(env, GV_FAKE_SCENARIO=scenario) if scenario else env
        argv = ["--sysroot", root, "--library-dir", lib] + args
        yield ("sysroot-" + name[len("no libraries: "):] if not scenario else "outputs-" + name,
               argv, env)
    roots = os.path.join(fixtures, "sysroots")
    for name in NCCL_HANGS:
        env = {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", name + ".conf")}
        args = SMALL + ["--checks", EIGHT_GPU_CHECKS + ",^nccl"]
        root = os.path.join(roots, "h100-open")
        yield "outputs-" + name, ["--sysroot", root, "--library-dir", fakelib] + args, env


def fault_cases(fixtures, fakelib, work):
    """run_fault.py's, with its files made in work."""
    for name, c in sorted(run_fault.CASES.items()):
        env = {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", c["scenario"] + ".conf"),
               "GV_FAKE_ONCE_DIR": os.path.join(work, name + ".once")}
        for k, v in c["env"].items():
            env[k] = run_fault.materialise(work, v) if v.startswith("@") else v
        if c["worker"]:
            env["GPUVERIFY_WORKER"] = (run_fault.materialise(work, c["worker"])
                                       if c["worker"].startswith("@") else c["worker"])
        args = ["--library-dir", fakelib, "--deadline", str(c["deadline"]), "--checks",
                c["checks"]] + c["args"]
        if c["sysroot"]:
            args += ["--sysroot", os.path.join(fixtures, "sysroots", c["sysroot"])]
        if c["policy"]:
            path = os.path.join(work, name + ".policy")
            with open(path, "w") as f:
                f.write(c["policy"])
            args += ["--policy", path]
        yield "fault-" + name, args, env


def scrub_text(text, timed, paths):
    for path, name in paths:
        text = text.replace(path, name)
    text = PID.sub(lambda m: m.group(1) + " <pid>", text)
    if timed:
        text = NUMBER.sub("#", HEX.sub("0x#", text))
    else:
        text = SECONDS.sub("# s", text)  # waits and timeouts measured on the clock
    return text


def scrub(report, paths):
    for key in ("started_at", "duration_s", "budget_s"):
        report.pop(key, None)
    for key in ("sysroot", "isolation_detail"):
        if isinstance(report.get(key), str):
            report[key] = scrub_text(report[key], False, paths)
    for row in report.get("checks", []):
        timed = bool(TIMED.match(row.get("id", "")))
        row.pop("duration_s", None)
        row.pop("held_s", None)
        if "held_by_pid" in row:
            row["held_by_pid"] = "<pid>"
        if timed:
            for key in ("value", "series"):
                if row.get(key) is not None:
                    row[key] = "#"
        for key in ("message", "measured", "expected", "remediation"):
            if isinstance(row.get(key), str):
                row[key] = scrub_text(row[key], timed, paths)
    # GPUs tested in lanes (a worker each) finish in any order: rows sorted, not as they came.
    if isinstance(report.get("checks"), list):
        report["checks"].sort(key=lambda r: (r.get("id", ""), r.get("subject", ""),
                                             json.dumps(r, sort_keys=True)))
    return report


def run_case(gv_check, build, paths, out_dir, lock_root, case):
    name, args, env = case
    locks = os.path.join(lock_root, name)
    os.makedirs(locks, exist_ok=True)
    once = env.get("GV_FAKE_ONCE_DIR")
    if once:
        shutil.rmtree(once, ignore_errors=True)
        os.makedirs(once)
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("GV_", "GPUVERIFY_", "HWLOC_", "CUDA_", "NVIDIA_"))}
    e.update(env)
    e["GPUVERIFY_LOCK_DIR"] = locks
    # This build's library (and the worker beside it), wherever its RUNPATH points.
    e["LD_LIBRARY_PATH"] = build
    try:
        p = subprocess.run([gv_check, "--json"] + args, env=e, capture_output=True, text=True,
                           timeout=300)
        stdout, stderr, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        stdout, stderr, rc = "", "timed out after 300 s", "timeout"
    try:
        body = scrub(json.loads(stdout), paths)
    except json.JSONDecodeError:
        body = {"not_json": scrub_text(stdout, False, paths),
                "stderr": scrub_text(stderr, False, paths)}
    body = {"exit": rc, "report": body}
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(body, f, indent=1, sort_keys=True)
        f.write("\n")
    return name, rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", default="", help="a regular expression the case names match")
    a = ap.parse_args()
    build = os.path.realpath(a.build)
    fixtures = os.path.join(build, "tests", "fixtures")
    fakelib = os.path.join(build, "tests", "fakelib")
    emptylib = os.path.join(build, "tests", "emptylib")
    gv_check = os.path.join(build, "examples", "gv-check")
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gv-scenario-json-")
    try:
        cases = list(output_cases(fixtures, fakelib, emptylib))
        cases += list(fault_cases(fixtures, fakelib, work))
        cases = [c for c in cases if re.search(a.only, c[0])]
        with concurrent.futures.ThreadPoolExecutor(a.j) as pool:
            paths = [(work, "<work>"), (build, "<build>")]
            jobs = [pool.submit(run_case, gv_check, build, paths, a.out, os.path.join(work, "locks"), c)
                    for c in cases]
            for job in concurrent.futures.as_completed(jobs):
                name, rc = job.result()
                print("%s: exit %s" % (name, rc), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d reports in %s" % (len(cases), a.out))


if __name__ == "__main__":
    main()
