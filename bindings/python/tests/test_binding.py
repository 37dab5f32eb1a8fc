# SPDX-License-Identifier: Apache-2.0
"""gpuverify over the fakes: loading, struct layouts, the run, the benchmarks, policies and
errors, and python -m gpuverify against gv-check."""
import ctypes
import json
import os
import subprocess
import sys
import time

import pytest

import gpuverify
from gpuverify import _native, _structs

PASSIVE = "^cuda,^mem,^gemm,^cudnn,^driver.compat,^nccl"
HERE = os.path.join(os.path.dirname(__file__), "..")


def python(*args, env=None):
    e = dict(os.environ, PYTHONPATH=HERE, **(env or {}))
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True, env=e)


def test_import_needs_no_library_and_use_names_where_it_looked():
    res = python("-c", "import gpuverify\n"
                       "try:\n"
                       "    gpuverify.Context()\n"
                       "except gpuverify.LibraryNotFoundError as e:\n"
                       "    print('raised:', e)\n",
                 env={"GPUVERIFY_LIBRARY": "/nonexistent/libgpuverify.so.1"})
    assert res.returncode == 0, res.stderr
    assert "raised: libgpuverify could not be loaded" in res.stdout
    assert "/nonexistent/libgpuverify.so.1" in res.stdout


def test_every_function_is_declared_and_every_mirror_matches_the_library():
    lib = _native.lib()
    for name, (restype, argtypes) in _native.PROTOTYPES.items():
        fn = getattr(lib, name)
        assert fn.restype == restype and fn.argtypes == argtypes, name
    for mirror in _structs.MIRRORS:
        theirs = lib.gv_struct_size(mirror.c_name.encode())
        # A result struct may have grown at its end after the library was built (c_min_size:
        # the layout it had before): the library then fills what it knows.
        known = {ctypes.sizeof(mirror), getattr(mirror, "c_min_size", ctypes.sizeof(mirror))}
        assert theirs in known, mirror.c_name
    assert lib.gv_struct_size(b"gv_no_such_struct") == 0
    assert gpuverify.version() == "1.0.0"


def test_run_reports_verdicts_and_details(node):
    healthy = node("h100-open", "h100x8").run(checks=PASSIVE)
    assert healthy.verdict == "PASS" and healthy.healthy
    lost = node("h100-open", "h100x8-gpu-lost").run(checks=PASSIVE)
    assert lost.verdict == "FAIL" and not lost.healthy
    count = next(c for c in lost.checks if c.id == "driver.gpu_count")
    assert count.verdict == "FAIL"
    # (The fakes are process-wide: which library notices the lost GPU first depends on the
    # scenarios this process saw before, so only the verdict and its advice are asserted.)
    assert "GPU" in count.message and count.remediation
    assert count.to_dict()["id"] == "driver.gpu_count"
    doc = lost.document()
    assert doc["schema_version"] >= 4 and len(doc["gpus"]) == 8
    assert [c["verdict"] for c in doc["checks"]] == [c.verdict for c in lost.checks]
    assert "gpuverify_node_healthy 0" in lost.prometheus


def test_a_context_that_cannot_be_made_says_why():
    with pytest.raises(gpuverify.IOFailureError) as bad:
        gpuverify.Context(sysroot="/nonexistent/sysroot")
    assert "sysroot /nonexistent/sysroot: No such file or directory" in str(bad.value)


def test_isolation_in_the_worker_or_in_process_gives_the_same_verdicts(node):
    ctx = node("h100-open", "h100x8-gpu-lost")
    isolated = ctx.run(checks=PASSIVE, isolation="process")
    inline = ctx.run(checks=PASSIVE, isolation="none")
    assert isolated.isolation == "process" and inline.isolation == "none"
    assert [(c.id, c.subject, c.verdict) for c in isolated.checks] == \
        [(c.id, c.subject, c.verdict) for c in inline.checks]
    with pytest.raises(gpuverify.InvalidArgumentError):
        ctx.run(isolation="elsewhere")


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_progress_sees_every_row(node, isolation):
    events = []
    report = node("h100-open", "h100x8").run(checks="system,driver,gpu.ecc", isolation=isolation,
                                             progress=events.append)
    finished = [e for e in events if e["kind"] == "finished"]
    assert [(e["check"], e["subject"], e["verdict"]) for e in finished] == \
        [(c.id, c.subject, c.verdict) for c in report.checks]
    started = [e["check"] for e in events if e["kind"] == "started"]
    assert "gpu.ecc" in started and "system.os" in started
    positions = [e["checks_started"] for e in events]
    assert positions == sorted(positions) and positions[-1] == events[-1]["checks_selected"]


def test_a_report_reads_back_from_its_json(node):
    ctx = node("h100-open", "h100x8-gpu-lost")
    report = ctx.run(checks=PASSIVE)
    again = ctx.read_report(report.json)
    assert again.json == report.json and again.prometheus == report.prometheus
    assert [c.to_dict() for c in again.checks] == [c.to_dict() for c in report.checks]
    doc = report.document()
    doc["schema_version"] += 1  # a schema this library does not know
    with pytest.raises(gpuverify.ParseError) as bad:
        ctx.read_report(doc)
    assert "schema_version" in str(bad.value)


def test_quick_level_gives_gv_checks_verdicts(node, fixtures, fakelib, gv_check):
    report = node("h100-open", "h100x1-compute").run("quick", gemm_size=32)
    assert report.level == "quick"
    ids = {c.id for c in report.checks}
    assert {"cuda.init", "cuda.matmul", "nccl.version"} <= ids and "cuda.copy" not in ids
    out = subprocess.run([gv_check, "--json", "--level", "quick", "--gemm-size", "32",
                          "--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
                          "--library-dir", fakelib], capture_output=True, text=True)
    theirs = [(c["id"], c["subject"], c["verdict"]) for c in json.loads(out.stdout)["checks"]]
    assert theirs == [(c.id, c.subject, c.verdict) for c in report.checks]


def test_gemm_bench_measures_and_catches_corruption(node):
    fast = dict(size=32, warmup_s=0, batch_s=1e-9, batches=2, algo_candidates=1)
    good = node("h100-open", "h100x1-compute").gemm_bench(gpu=0, dtype="bf16", **fast)
    assert good.verdict == "PASS" and good.verified
    assert abs(good.tflops_median - 700) < 1
    assert good.to_dict()["raw"]["library_version"] == "13.1.0"
    fingerprint = good.raw["fingerprint"]
    assert fingerprint["hash"].startswith("crc32:") and fingerprint["seconds"] > 0
    assert "|bf16|2048x2048x2048|algo " in fingerprint["key"]
    bad = node("h100-open", "h100x1-corrupt").gemm_bench(gpu=0, dtype="fp16", **fast)
    assert bad.verdict == "FAIL" and not bad.verified
    with pytest.raises(gpuverify.NotFoundError):
        node("h100-open", "h100x1-compute").gemm_bench(gpu=7, **fast)
    with pytest.raises(gpuverify.InvalidArgumentError):
        node("h100-open", "h100x1-compute").gemm_bench(dtype="int4")


def test_mem_test_locates_a_stuck_bit(node):
    good = node("h100-open", "h100x1-compute").mem_test(gpu=0, chunk_bytes=32 << 20)
    assert good.verdict == "PASS"
    assert good.raw["bytes_tested"] == 116 << 20 and good.raw["chunks"] == 4
    bad = node("h100-open", "mem-stuck-bit").mem_test(gpu=0)
    assert bad.verdict == "FAIL"
    first = bad.raw["first_errors"]
    assert first and all(e["offset"] == 0x12340 for e in first)
    assert all(e["expected"] ^ e["read"] == 1 << 5 for e in first)
    assert first[0]["step"] == ("address complement, descending" if first[0]["address"] & 0x20
                                else "own address, ascending")
    with pytest.raises(gpuverify.InvalidArgumentError):
        node("h100-open", "h100x1-compute").mem_test(fraction=1.5)


def test_stress_names_the_gpu_that_computes_differently(node):
    r = node("h100-open", "stress-odd-gpu").stress_gemm(gpus=[4, 5, 6], size=32, duration_s=0.05,
                                                       interval_s=0.01)
    assert r.verdict == "FAIL"
    assert [g["verdict"] for g in r.raw["gpus"]] == ["PASS", "FAIL", "PASS"]
    assert [g["agrees"] for g in r.raw["gpus"]] == [1, 0, 1]
    # Result fingerprints: GPU 5 computes differently, the two others alike.
    hashes = [f["hash"] for f in r.raw["fingerprints"]]
    assert hashes[0] == hashes[2] != hashes[1] and hashes[0].startswith("crc32:")
    assert r.raw["series"] and {s["cuda_index"] for s in r.raw["series"]} == {4, 5, 6}
    report = node("h100-open", "h100x1-compute").run(checks="stress", gemm_size=32,
                                                      duration_s=0.2)
    assert [(c.id, c.verdict) for c in report.checks] == [("stress.gemm", "PASS"),
                                                          ("stress.power", "PASS")]
    assert json.loads(report.json)["checks"][0]["series"]


def test_a_call_stuck_in_the_driver_raises_at_its_deadline_with_its_result(node):
    # The same call on a healthy GPU: what the host takes for it now, which a hang may add.
    started = time.monotonic()
    assert node("h100-open", "h100x1-compute", deadline_s=60).cudnn_check(gpu=0).verdict == "PASS"
    healthy = time.monotonic() - started
    ctx = node("h100-open", "fault-cudnn-hang", deadline_s=0.3)
    started = time.monotonic()
    with pytest.raises(gpuverify.DeadlineError) as hang:
        ctx.cudnn_check(gpu=0)
    took = time.monotonic() - started
    # The start in the worker (4 x 0.3 s) and cudnn.conv's own 0.3 s, then the kill.
    assert 1.5 <= took < 2.5 + healthy
    assert hang.value.result.verdict == "FAIL"
    assert "while cuDNN: cudnnCreate" in hang.value.result.message
    crash = node("h100-open", "fault-gemm-crash")
    with pytest.raises(gpuverify.DriverError) as died:
        crash.gemm_bench(size=32, warmup_s=0, batch_s=1e-9, batches=1, algo_candidates=1)
    assert died.value.result.verdict == "ERROR"
    here = node("h100-open", "h100x1-compute", in_process=True, worker_path="/nonexistent")
    assert here.cudnn_check(gpu=0).verdict == "PASS"


def test_nccl_bench_exact_and_deadline(node):
    r = node("h100-open", "h100x8").nccl_bench(min_bytes=64, max_bytes=64 << 10, iters=2)
    assert r.verdict == "PASS" and r.nranks == 8 and r.wrong_elements == 0
    assert r.sizes[-1]["bytes"] == 64 << 10 and r.nccl_version == "2.28.9"
    assert r.raw["isolation"] == gpuverify.api.ISOLATIONS["process"]  # the library's worker
    here = node("h100-open", "h100x8").nccl_bench(max_bytes=1024, iters=2, in_process=True)
    assert here.verdict == "PASS" and here.raw["isolation"] == gpuverify.api.ISOLATIONS["none"]
    both = node("h100-open", "h100x8").nccl_bench(collective="gather", max_bytes=1024, iters=2,
                                                  in_place=True)
    assert both.verdict == "PASS" and both.raw["in_place"][0]["time_us"] > 0
    pairs = node("h100-open", "h100x8").nccl_bench(gpus=[0, 1, 2], collective="pairs",
                                                   min_bytes=64, max_bytes=4096, iters=2)
    assert pairs.raw["pair_count"] == 6 and pairs.verdict in ("PASS", "WARN")
    assert [(p["from_"], p["to"]) for p in pairs.raw["pairs"][:6]] == [(0, 1), (0, 2), (1, 0),
                                                                        (1, 2), (2, 0), (2, 1)]
    with pytest.raises(gpuverify.DeadlineError) as hang:
        node("h100-open", "h100x8-nccl-hang").nccl_bench(max_bytes=1024, deadline_s=0.5)
    assert hang.value.result.verdict == "FAIL"
    assert "deadline of 0.5 s" in str(hang.value)


def test_policy_from_dict_text_and_file(node, tmp_path):
    ctx = node("h100-open", "h100x8")
    report = ctx.run(checks="driver.gpu_count,gpu.model",
                     policy={"gpu_count": 4, "gpu_model": "H100"})
    by_id = {c.id: c for c in report.checks}
    assert by_id["driver.gpu_count"].verdict == "FAIL"
    assert by_id["driver.gpu_count"].expected_source == "policy"
    assert by_id["gpu.model"].verdict == "PASS"
    with pytest.raises(gpuverify.ParseError) as bad:
        ctx.policy("gpu_count = many")
    assert "line 1" in str(bad.value)
    f = tmp_path / "policy.conf"
    f.write_text("gpu_model = A100\n")
    assert ctx.run(checks="gpu.model", policy=ctx.policy(path=str(f))).verdict == "FAIL"
    with pytest.raises(gpuverify.IOFailureError):
        ctx.policy(path=str(tmp_path / "missing.conf"))


def test_bad_input_raises_the_status_class(node):
    ctx = node()
    with pytest.raises(gpuverify.InvalidArgumentError) as e:
        ctx.run(checks="no.such_check")
    assert "no.such_check" in str(e.value)
    with pytest.raises(gpuverify.InvalidArgumentError):
        ctx.run("fastest")
    with pytest.raises(gpuverify.InvalidArgumentError):
        gpuverify.Context(sysroot="relative/path")
    assert isinstance(e.value, ValueError) and e.value.status == -1


@pytest.mark.parametrize("scenario,want", [("h100x8", 0), ("h100x8-gpu-lost", 1)])
def test_cli_mirrors_gv_check(fixtures, fakelib, gv_check, scenario, want):
    env = {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", scenario + ".conf")}
    common = ["--sysroot", os.path.join(fixtures, "sysroots", "h100-open"), "--library-dir",
              fakelib, "--checks", PASSIVE]
    for mode in ([], ["--npd"], ["--json"]):
        ours = python("-m", "gpuverify", *(common + mode), env=env)
        theirs = subprocess.run([gv_check] + common + mode, capture_output=True, text=True,
                                env=dict(os.environ, **env))
        assert ours.returncode == theirs.returncode == want, (mode, ours.stderr)
        if mode == ["--npd"]:
            assert ours.stdout == theirs.stdout
        if mode == ["--json"]:
            a, b = json.loads(ours.stdout), json.loads(theirs.stdout)
            assert [c["verdict"] for c in a["checks"]] == [c["verdict"] for c in b["checks"]]
    listed = python("-m", "gpuverify", "--list")
    assert listed.stdout.split() == gpuverify.catalog()


def test_cli_that_cannot_start_says_so_on_stdout_for_npd(fixtures, fakelib):
    # node-problem-detector shows stdout for its Unknown (exit 2): never an empty line.
    common = ["--sysroot", os.path.join(fixtures, "sysroots", "h100-open"), "--library-dir",
              fakelib]
    for args, said in ((["--policy", "/nonexistent"], "/nonexistent"),
                       (["--no-such-option"], "usage error")):
        for mode in ("--npd", "--quiet"):
            p = python("-m", "gpuverify", mode, *(common + args))
            assert p.returncode == 2 and p.stdout.startswith("ERROR gpuverify: ") and \
                said in p.stdout, (mode, args, p.stdout, p.stderr)
    p = python("-m", "gpuverify", "--json", "--no-such-option", *common)
    assert p.returncode == 2 and p.stdout == ""
    p = python("-m", "gpuverify", "--npd", "--policy", "/" + "x" * 300, *common)
    assert p.returncode == 2 and len(p.stdout.encode()) <= 201 and p.stdout.count("\n") == 1


def test_gv_check_draws_progress_only_on_a_terminal(fixtures, fakelib, gv_check):
    import pty
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", "h100x8.conf"))
    cmd = [gv_check, "--json", "--library-dir", fakelib, "--checks", "system,gpu.ecc",
           "--sysroot", os.path.join(fixtures, "sysroots", "h100-open")]
    piped = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""
    controller, terminal = pty.openpty()
    on_tty = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=terminal, text=True)
    os.close(terminal)
    drawn = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal side is closed: all of it was read
            break
        if not chunk:
            break
        drawn += chunk
    os.close(controller)
    assert on_tty.returncode == 0 and json.loads(on_tty.stdout)["checks"]
    lines = drawn.decode().split("\r\x1b[K")
    assert any(l.startswith("[3/3] ") and "gpu.ecc" in l for l in lines), lines
    assert lines[-1] == ""  # the line is cleared before the report


def test_a_gpu_another_gpuverify_holds_raises_gpu_busy(node, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVERIFY_LOCK_DIR", str(tmp_path))
    # Another process holding GPU 0's lock, as a gpuverify testing it does: named as
    # gpuverify-worker is, its note (PID, program) in the lock file.
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import ctypes, fcntl, os, sys, time\n"
         "ctypes.CDLL(None).prctl(15, b'gpuverify-worker', 0, 0, 0)\n"
         "f = open(sys.argv[1], 'w')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.write('pid=%d\\nsince_ms=%d\\nprogram=gpuverify-worke\\n'"
         " % (os.getpid(), time.time() * 1000))\n"
         "f.flush()\n"
         "print('held', flush=True)\n"
         "time.sleep(60)\n",
         str(tmp_path / "gpuverify-gpu-0000:18:00.0.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        ctx = node("h100-open", "h100x1-compute", deadline_s=1)
        with pytest.raises(gpuverify.GpuBusyError) as busy:
            ctx.gemm_bench(size=32, warmup_s=0, batch_s=1e-9, batches=1, algo_candidates=1)
        assert busy.value.status == -12
        assert "is being tested by another gpuverify" in str(busy.value)
    finally:
        holder.kill()
        holder.wait()
    r = node("h100-open", "h100x1-compute").gemm_bench(size=32, warmup_s=0, batch_s=1e-9,
                                                       batches=1, algo_candidates=1)
    assert r.verdict == "PASS"


def test_history_is_kept_and_read_back(node, tmp_path):
    db = str(tmp_path / "history.db")
    ctx = node("h100-open", "h100x8", state_path=db)
    for _ in range(3):
        report = ctx.run(checks="driver.gpu_count,gpu.row_remap,history.record")
    record = [c for c in report.checks if c.id == "history.record"]
    assert record and all(c.verdict == "SKIP" and "2 earlier run(s)" in c.message for c in record)
    doc = ctx.history(db, checks="gpu.row_remap", last=2)
    assert len(doc["runs"]) == 2
    rows = doc["runs"][0]["checks"]
    assert len(rows) == 8 and all(r["id"] == "gpu.row_remap" for r in rows)
    assert rows[0]["counters"]["banks_max"] > 0
    uuid = doc["runs"][0]["gpus"][0]["uuid"]
    one = ctx.history(db, subject=uuid)
    assert len(one["runs"]) == 3 and all(len(r["gpus"]) == 1 for r in one["runs"])
    with pytest.raises(gpuverify.NotFoundError):
        ctx.history(str(tmp_path / "none.db"))
    (tmp_path / "text.db").write_text("not a database at all, not even close" * 40)
    with pytest.raises(gpuverify.IOFailureError):
        ctx.history(str(tmp_path / "text.db"))
    with pytest.raises(gpuverify.InvalidArgumentError):
        ctx.history(db, last=-1)
    assert len(ctx.history(last=1)["runs"]) == 1  # the context's own state_path
    # A newer run without gpu.row_remap: last=2 still gives the two newest runs that have it.
    ctx.run(checks="driver.gpu_count")
    doc = ctx.history(db, checks="gpu.row_remap", last=2)
    assert len(doc["runs"]) == 2 and all(len(r["checks"]) == 8 for r in doc["runs"])
    # gv-check's --checks rules: a comma list, ^ID leaving one out; a check no run has, no run.
    ids = {c["id"] for r in ctx.history(db, checks="driver,gpu.row_remap", last=1)["runs"]
           for c in r["checks"]}
    assert ids == {"driver.gpu_count"}
    ids = {c["id"] for r in ctx.history(db, checks="driver,gpu,^gpu.row_remap")["runs"]
           for c in r["checks"]}
    assert ids == {"driver.gpu_count"}
    assert ctx.history(db, checks="no.such")["runs"] == []
