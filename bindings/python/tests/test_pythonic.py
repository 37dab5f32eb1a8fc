# SPDX-License-Identifier: Apache-2.0
"""What a Python user expects: Verdict as an enum, Report.failures and a lean to_dict(), the
held_by rows of a GPU another gpuverify holds, exit codes, and python -m gpuverify's
--version, --duration and --help."""
import ctypes
import json
import os
import subprocess
import sys
import time

import pytest

import gpuverify
from gpuverify import _native, _structs
from gpuverify.api import Verdict

PASSIVE = "^cuda,^mem,^gemm,^cudnn,^driver.compat,^nccl"
HERE = os.path.join(os.path.dirname(__file__), "..")


def python(*args, env=None, timeout=120):
    e = dict(os.environ, PYTHONPATH=HERE, **(env or {}))
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True, env=e,
                          timeout=timeout)


def test_verdict_is_an_enum_with_the_library_numbers_that_still_compares_as_text():
    assert [(v.name, v.value) for v in Verdict] == [("PASS", 0), ("WARN", 1), ("FAIL", 2),
                                                    ("SKIP", 3), ("ERROR", 4)]
    assert Verdict(2) is Verdict.FAIL and Verdict("FAIL") is Verdict.FAIL
    assert gpuverify.Verdict is Verdict
    # The strings verdicts were before still work.
    assert Verdict.FAIL == "FAIL" and Verdict.FAIL in ("FAIL", "ERROR")
    assert str(Verdict.WARN) == "WARN" and "%s" % Verdict.WARN == "WARN"
    assert f"{Verdict.ERROR:>6}" == " ERROR"
    assert json.dumps({"v": Verdict.SKIP}) == '{"v": "SKIP"}'
    assert repr(Verdict.PASS) == "<Verdict.PASS: 0>"
    with pytest.raises(ValueError):
        Verdict(7)
    with pytest.raises(ValueError):
        Verdict("MAYBE")
    lib = _native.lib()
    for v in Verdict:  # the library's own names agree
        assert lib.gv_verdict_name(v.value).decode() == v.name


def test_action_is_an_enum_ordered_by_strength_that_compares_as_text():
    Action = gpuverify.Action
    assert [(a, a.value) for a in Action] == [
        ("none", 0), ("rerun", 1), ("wait", 2), ("fix_config", 3), ("reset_gpu", 4),
        ("reboot_node", 5), ("hw_inspect", 6)]
    assert Action(4) is Action.RESET_GPU and Action("reset_gpu") is Action.RESET_GPU
    assert Action.HW_INSPECT == "hw_inspect" and str(Action.WAIT) == "wait"
    assert json.dumps({"a": Action.RERUN}) == '{"a": "rerun"}'
    assert Action.RERUN < Action.WAIT < Action.HW_INSPECT  # strength, not spelling
    assert max(Action.REBOOT_NODE, Action.FIX_CONFIG) is Action.REBOOT_NODE
    with pytest.raises(ValueError):
        Action("maybe")
    lib = _native.lib()
    lib.gv_action_name.restype = ctypes.c_char_p
    for a in Action:  # the library's own names agree
        assert lib.gv_action_name(a.value).decode() == a


def test_rows_and_the_report_carry_actions(node):
    Action = gpuverify.Action
    report = node("h100-open", "h100x8-gpu-lost").run(checks=PASSIVE)
    assert report.action is Action.HW_INSPECT  # GPU 3 off the bus
    assert report.action == max(c.action for c in report.checks)
    lost = next(c for c in report.checks if c.id == "gpu.nvml" and c.subject == "gpu3")
    assert lost.action is Action.HW_INSPECT
    for c in report.checks:
        assert isinstance(c.action, Action)
        assert (c.action is Action.NONE) == (c.verdict in ("PASS", "SKIP"))
    assert report.verdict_line().endswith(" [hw_inspect]")
    assert report.to_dict()["action"] == "hw_inspect"
    report = node("h100-open", "health-memory").run(checks=PASSIVE)
    actions = {(c.id, c.subject): c.action for c in report.checks}
    assert actions[("gpu.row_remap", "gpu3")] is Action.RESET_GPU  # remapping pending
    assert actions[("gpu.row_remap", "gpu4")] is Action.HW_INSPECT  # remapping failed
    assert node("h100-open", "h100x8").run(checks=PASSIVE).action is Action.NONE


def test_results_carry_verdicts(node):
    report = node("h100-open", "h100x8-gpu-lost").run(checks=PASSIVE)
    assert report.verdict is Verdict.FAIL
    assert all(isinstance(c.verdict, Verdict) for c in report.checks)
    fast = dict(size=32, warmup_s=0, batch_s=1e-9, batches=1, algo_candidates=1)
    gemm = node("h100-open", "h100x1-compute").gemm_bench(**fast)
    assert gemm.verdict is Verdict.PASS
    cudnn = node("h100-open", "h100x1-compute").cudnn_check()
    assert cudnn.verdict is Verdict.PASS and cudnn.raw["fp32_verdict"] is Verdict.PASS
    events = []
    node("h100-open", "h100x8").run(checks="system", progress=events.append)
    assert {type(e["verdict"]) for e in events if e["kind"] == "finished"} == {Verdict}


def test_failures_and_a_lean_to_dict(node):
    report = node("h100-open", "h100x8-gpu-lost").run("quick", gemm_size=32, gpus=[0])
    failures = report.failures
    assert failures and failures == [c for c in report.checks
                                     if c.verdict in ("WARN", "FAIL", "ERROR")]
    assert {c.id for c in failures} >= {"driver.gpu_count", "gpu.nvml"}
    assert report.counts["FAIL"] == sum(c.verdict is Verdict.FAIL for c in report.checks)
    d = report.to_dict()
    assert set(d) == {"verdict", "action", "level", "duration_s", "isolation", "hostname",
                      "started_at", "counts", "checks", "driver", "gpus"}
    assert d["verdict"] == "FAIL" and d["level"] == "quick" and len(d["gpus"]) == 8
    assert d["driver"]["gpu_count_pci"] == 8
    assert [c["id"] for c in d["checks"]] == [c.id for c in report.checks]
    text = json.dumps(d)
    # The JSON report and the Prometheus text stay on the report, not in to_dict(): on the
    # fakes' eight GPUs it was 242 KB with them, about 70 KB without.
    assert '"gpuverify_node_healthy' not in text and '"schema_version"' not in text
    assert len(text) < 100_000 < len(text) + len(report.json) + len(report.prometheus)
    assert report.document()["checks"] and "gpuverify_node_healthy 0" in report.prometheus
    assert json.loads(text)["checks"][0]["verdict"] in ("PASS", "WARN", "FAIL", "SKIP", "ERROR")


def _row(**held):
    c = _structs.CheckResult(verdict=4, **held)
    c.id, c.subject, c.message = b"cuda.init", b"node", b"not run: held"
    c.value = float("nan")
    return c


def test_held_by_comes_from_the_library_that_knows_it(monkeypatch):
    _native.lib()
    full = ctypes.sizeof(_structs.CheckResult)
    row = _row(held_by_other=1, held_by_pid=4121, held_s=35.5)
    monkeypatch.setitem(_native._sizes, "gv_check_result", full)
    assert gpuverify.CheckResult._from(row).held_by == gpuverify.HeldBy(pid=4121, held_s=35.5)
    unknown = _row(held_by_other=1)  # PID 0 and held_s -1: unknown
    assert gpuverify.CheckResult._from(unknown).held_by == gpuverify.HeldBy(None, None)
    assert gpuverify.CheckResult._from(_row()).held_by is None
    # A library from before the fields: whatever the memory past its layout holds, no hold.
    monkeypatch.setitem(_native._sizes, "gv_check_result", _structs.CheckResult.c_min_size)
    assert gpuverify.CheckResult._from(row).held_by is None
    assert _structs.CheckResult().held_s == -1.0


@pytest.mark.parametrize("scenario,code", [("h100x8", 0), ("h100x8-mig", 0),
                                           ("h100x8-gpu-lost", 1), ("health-memory", 1)])
def test_the_line_and_exit_code_are_gv_checks(node, fixtures, fakelib, gv_check, scenario, code):
    """The library writes the one line and decides the outcome; Python and gv-check show the
    same."""
    checks = "^cuda,^mem,^gemm,^cudnn,^nccl"
    report = node("h100-open", scenario).run("standard", checks=checks)
    quiet = subprocess.run(
        [gv_check, "--quiet", "--checks", checks, "--sysroot",
         os.path.join(fixtures, "sysroots", "h100-open"), "--library-dir", fakelib],
        capture_output=True, text=True,
        env=dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                           scenario + ".conf")))
    assert report.exit_code == quiet.returncode == code
    assert report.verdict_line() == quiet.stdout.rstrip("\n")
    assert 0 < len(report.verdict_line().encode()) <= 200
    assert report.held_by_other is False
    assert (gpuverify.EXIT_HEALTHY, gpuverify.EXIT_FAIL, gpuverify.EXIT_USAGE,
            gpuverify.EXIT_UNJUDGED, gpuverify.EXIT_HELD) == (0, 1, 2, 3, 4)


def hold_gpu(lock_dir, bus_id, seconds=60):
    """Another gpuverify holding a GPU's lock, as gpuverify writes it (PID, since when): a
    process to kill."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         "f = open(sys.argv[1], 'w')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.write('pid=%d\\nparent=%d\\nsince_ms=%.0f\\nuntil_exit=0\\nprogram=python3\\n'\n"
         "        % (os.getpid(), os.getppid(), time.time() * 1000 - 5000))\n"
         "f.flush()\n"
         "print('held', flush=True)\n"
         "time.sleep(float(sys.argv[2]))\n",
         os.path.join(lock_dir, "gpuverify-gpu-%s.lock" % bus_id), str(seconds)],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def library_says_held():
    return _native.knows_field(_structs.CheckResult, "held_by_other")


def test_a_gpu_another_gpuverify_holds_is_not_judged(node, tmp_path, monkeypatch, fixtures,
                                                     fakelib):
    monkeypatch.setenv("GPUVERIFY_LOCK_DIR", str(tmp_path))
    holder = hold_gpu(str(tmp_path), "0000:18:00.0")  # GPU 0
    try:
        report = node("h100-open", "h100x8").run("quick", gpus=[0], gemm_size=32, budget_s=2)
        errors = [c for c in report.checks if c.verdict is Verdict.ERROR]
        assert errors and not any(c.verdict is Verdict.FAIL for c in report.checks)
        assert all("another gpuverify" in c.message for c in errors)
        if library_says_held():
            assert all(c.held_by == gpuverify.HeldBy(holder.pid, c.held_by.held_s)
                       for c in errors)
            assert all(c.held_by.held_s >= 4 for c in errors)
            assert report.held_by_other and report.exit_code == 4
            assert report.verdict_line().startswith("HELD for %d s by PID %d: cuda.init gpu0: "
                                                    % (int(errors[0].held_by.held_s),
                                                       holder.pid))
        else:  # a library without gv_check_result.held_by_other: could not judge
            assert all(c.held_by is None for c in errors) and report.exit_code == 3
        env = {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", "h100x8.conf")}
        cli = python("-m", "gpuverify", "--sysroot", os.path.join(fixtures, "sysroots",
                                                                   "h100-open"),
                     "--library-dir", fakelib, "--level", "quick", "--gpus", "0",
                     "--gemm-size", "32", "--budget", "2", env=env)
        assert cli.returncode == report.exit_code, cli.stderr
        quiet = python("-m", "gpuverify", "--quiet", *cli.args[3:], env=env)
        assert quiet.returncode == report.exit_code
        assert quiet.stdout.split()[0] == report.verdict_line().split()[0]  # HELD or ERROR
    finally:
        holder.kill()
        holder.wait()


def test_cli_version(fixtures):
    out = python("-m", "gpuverify", "--version")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "gpuverify (Python) %s" % gpuverify.__version__
    assert lines[1] == "libgpuverify %s (%s)" % (gpuverify.version(),
                                                 gpuverify.library_path())
    assert os.path.samefile(gpuverify.library_path(), os.environ["GPUVERIFY_LIBRARY"])
    missing = python("-m", "gpuverify", "--version",
                     env={"GPUVERIFY_LIBRARY": "/nonexistent/libgpuverify.so.1"})
    assert missing.returncode == 2
    assert missing.stdout.startswith("gpuverify (Python) ")
    assert "/nonexistent/libgpuverify.so.1" in missing.stderr


def test_cli_help_says_the_exit_codes_and_refuses_bad_values():
    out = python("-m", "gpuverify", "--help")
    assert out.returncode == 0
    for line in ("0  healthy", "1  a check FAILed", "2  usage error",
                 "3  could not judge", "4  not judged", "--duration S", "--version"):
        assert line in out.stdout, line
    # gv-check's ranges: a budget of 0 is no run, a deadline under 0.5 s FAILs a healthy node.
    for bad in (["--duration", "-1"], ["--duration", "soon"], ["--budget", "nan"],
                ["--budget", "0"], ["--deadline", "0.1"],
                ["--gpus", "0,x"], ["--gemm-size", "-5"], ["--level", "fastest"]):
        refused = python("-m", "gpuverify", *bad)
        assert refused.returncode == 2 and bad[0] in refused.stderr, bad


def test_cli_duration_sets_how_long_stress_loads_the_gpus(fixtures, fakelib):
    env = {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", "h100x1-compute.conf")}
    started = time.monotonic()
    out = python("-m", "gpuverify", "--json", "--sysroot",
                 os.path.join(fixtures, "sysroots", "h100-open"), "--library-dir", fakelib,
                 "--checks", "stress", "--gemm-size", "32", "--duration", "0.3", env=env,
                 timeout=60)
    took = time.monotonic() - started
    assert out.returncode == 0, out.stderr
    rows = {c["id"]: c for c in json.loads(out.stdout)["checks"]}
    assert rows["stress.gemm"]["verdict"] == "PASS"
    series = rows["stress.gemm"]["series"]
    # Not the default 120 s, whatever the host's load makes of 0.3 s.
    assert series and max(s["t_s"] for s in series) < 30
    assert took < 60
