# SPDX-License-Identifier: Apache-2.0
"""The Python API's edges over the fakes' h100x8-gpu-lost (GPU 3 off the bus, CUDA's ordinals
0-6 for the seven left): typed per-GPU results with their CUDA index, history by slot as
gv-history's --gpu, a closed Context, a readable policy, python -m gpuverify's gv-check options,
and a GPU the node does not have as a usage error."""
import json
import os
import subprocess
import sys

import pytest

import gpuverify

HERE = os.path.join(os.path.dirname(__file__), "..")
LOST = "0000:5d:00.0"  # gpu3 of h100x8, fallen off the bus


@pytest.fixture
def lost(node, tmp_path):
    """A Context over h100x8-gpu-lost recording into a history of its own, and its quick run."""
    ctx = node("h100-open", "h100x8-gpu-lost", state_path=str(tmp_path / "history.db"))
    return ctx, ctx.run("quick", gemm_size=32)


def test_gpus_are_typed_results_that_still_read_as_dicts(lost):
    _, report = lost
    assert [type(g) for g in report.gpus] == [gpuverify.GpuResult] * 8
    gpu3, gpu4 = report.gpus[3], report.gpus[4]
    assert gpu3.verdict is gpuverify.Verdict.FAIL and gpu3["verdict"] == "FAIL"
    assert gpu4.verdict is gpuverify.Verdict.PASS and gpu4["verdict"] == "PASS"
    assert gpu3.pci_bus_id == LOST and gpu3.cuda_index is None and gpu3.index == 3
    assert [g.cuda_index for g in report.gpus] == [0, 1, 2, None, 3, 4, 5, 6]
    assert "gpu.nvml" in gpu3.failed_checks
    assert gpu3.checks and {c.subject for c in gpu3.checks} == {"gpu3"}
    assert any(c.id == "gpu.nvml" and c.verdict == "FAIL" for c in gpu3.checks)
    # A dict still: its keys, and JSON as before.
    assert gpu4["cuda_index"] == 3 and gpu4.get("name") == gpu4.name
    doc = json.loads(json.dumps(report.to_dict()))
    assert doc["gpus"][3]["verdict"] == "FAIL" and doc["gpus"][3]["cuda_index"] is None


def test_a_gpu_is_found_by_its_cuda_index(lost):
    _, report = lost
    assert report.gpu(cuda_index=3).pci_bus_id == "0000:9a:00.0"  # gpu4: CUDA's 3
    assert report.gpu(index=3).pci_bus_id == LOST
    assert report.gpu(uuid=report.gpus[5].uuid) is report.gpus[5]
    with pytest.raises(gpuverify.NotFoundError, match="CUDA sees 7: ordinals 0-6"):
        report.gpu(cuda_index=7)
    with pytest.raises(TypeError):
        report.gpu()
    with pytest.raises(TypeError):
        report.gpu(cuda_index=1, index=1)


def test_history_by_slot_follows_the_gpu_as_gv_history_does(lost, tmp_path, gv_check,
                                                            fixtures, fakelib):
    ctx, report = lost
    ctx.run("quick", checks="gpu.pci,driver", gemm_size=32)
    uuid = report.gpus[3].uuid
    by_slot = ctx.history(subject="gpu3")
    assert len(by_slot["runs"]) == 2
    assert by_slot == ctx.history(subject=uuid)
    assert all(g["uuid"] == uuid for r in by_slot["runs"] for g in r["gpus"])
    assert len(ctx.history(subject="gpu3", last=1)["runs"]) == 1
    host = by_slot["runs"][0]["hostname"]
    assert len(ctx.history(subject="gpu3", node=host)["runs"]) == 2
    with pytest.raises(gpuverify.NotFoundError, match="no run in .* of no-such-node"):
        ctx.history(subject="gpu3", node="no-such-node")
    with pytest.raises(gpuverify.NotFoundError, match="has no gpu9"):
        ctx.history(subject="gpu9")
    # gv-history --gpu gpu3 over the same file finds as many runs.
    tool = os.path.join(os.path.dirname(gv_check), "gv-history")
    out = subprocess.run([tool, "--state", ctx.state_path, "--gpu", "gpu3", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["runs"]) == len(by_slot["runs"])


def test_a_closed_context_says_so(node):
    ctx = node("h100-open", "h100x8")
    ctx.close()
    ctx.close()  # again: nothing
    assert ctx.closed
    with pytest.raises(gpuverify.ContextClosedError, match=r"Context.run: this Context is closed"):
        ctx.run("quick")
    with pytest.raises(gpuverify.InvalidArgumentError, match="Context.history: .* closed"):
        ctx.history("/nonexistent.db", subject="gpu3")
    with pytest.raises(gpuverify.ContextClosedError, match="Context.policy"):
        ctx.policy("gpu_count = 8")
    with pytest.raises(gpuverify.ContextClosedError):
        with ctx:
            pass


def test_close_from_another_thread_waits_for_the_run(node):
    # close() freed the context beneath a run under way in another thread: a bus error or a
    # segfault in 3 of 12 tries. It now waits for the run, which returns its report.
    import threading
    import time
    for _ in range(3):
        ctx = node("h100-open", "h100x8")
        closer = threading.Thread(target=lambda: (time.sleep(0.02), ctx.close()))
        closer.start()
        report = ctx.run("quick", gemm_size=32)
        closer.join()
        assert report.verdict in ("PASS", "WARN") and ctx.closed


def test_texts_are_str_without_nul_and_checks_name_something(node, tmp_path):
    ctx = node("h100-open", "h100x8")
    # A NUL would end the text where the library reads it ("driver\0gpu" ran driver.*).
    with pytest.raises(gpuverify.InvalidArgumentError, match="checks .* NUL"):
        ctx.run("quick", checks="driver\0gpu")
    with pytest.raises(gpuverify.InvalidArgumentError, match="sysroot .* NUL"):
        node("/tmp\0/x")
    with pytest.raises(TypeError, match="sysroot wants a str"):
        gpuverify.Context(sysroot=5)
    # "" and [] would be every check to the library; gv-check refuses them.
    for checks in ("", [], ","):
        with pytest.raises(gpuverify.InvalidArgumentError, match="names no check"):
            ctx.run("quick", checks=checks)
    with pytest.raises(gpuverify.InvalidArgumentError, match="state_path ''"):
        gpuverify.Context(state_path="")
    # history's subject as gv-history's --gpu takes it; its checks as run()'s.
    db = str(tmp_path / "h.db")
    node("h100-open", "h100x8", state_path=db).run("quick", gemm_size=32)
    for subject in ("gpu03", "3"):
        with pytest.raises(gpuverify.InvalidArgumentError, match="subject"):
            ctx.history(db, subject=subject)
    with pytest.raises(TypeError, match="subject wants a str"):
        ctx.history(db, subject=3)
    runs = ctx.history(db, checks=["driver.nvml"])["runs"]
    assert runs and all(c["id"] == "driver.nvml" for c in runs[0]["checks"])


def test_policy_is_readable_and_runs(node):
    ctx = node("h100-open", "h100x8")
    p = ctx.policy("gpu_count = 4\ngpu_model = H100\nbusy = warn\ngemm_min_tflops.bf16 = 600")
    assert isinstance(p, gpuverify.Policy)
    assert p.gpu_count == 4 and p.gpu_model == "H100" and p.busy == "warn"
    assert p.gemm_min_tflops["bf16"] == 600 and p.gemm_min_tflops["fp16"] == 0
    assert p.changed() == {"gpu_count": 4, "gpu_model": "H100", "busy": "warn",
                           "gemm_min_tflops": {"fp32": 0.0, "tf32": 0.0, "fp16": 0.0,
                                               "bf16": 600.0, "fp8": 0.0}}
    assert repr(p).startswith("Policy(gpu_count=4, gpu_model='H100'")
    assert set(p.to_dict()) == set(gpuverify.Policy.fields()) and "xids" in p.to_dict()
    with pytest.raises(AttributeError):
        p.no_such_key
    rows = {c.id: c for c in ctx.run(checks="driver.gpu_count", policy=p).checks}
    assert rows["driver.gpu_count"].verdict == "FAIL"  # 8 where the policy expects 4
    p.gpu_count = 8
    p.busy = "fail"
    assert p.busy == "fail" and ctx.policy(p) == p
    assert ctx.run(checks="driver.gpu_count", policy=p).verdict == "PASS"
    # A field is refused when set to what its C field cannot hold as given (ctypes would
    # wrap 2**32 + 7 to 7, a healthy 8-GPU node then FAILing "where the policy expects 7").
    for field, value, error in (("gpu_count", 2**32 + 7, gpuverify.InvalidArgumentError),
                                ("gpu_count", 5000, gpuverify.InvalidArgumentError),
                                ("busy", 99, gpuverify.InvalidArgumentError),
                                ("temp_margin_warn_c", float("nan"), gpuverify.InvalidArgumentError),
                                ("gpu_model", "x" * 96, gpuverify.InvalidArgumentError),
                                ("gpu_model", "a\0b", gpuverify.InvalidArgumentError),
                                ("gpu_count", "x", TypeError)):
        with pytest.raises(error, match=field):
            setattr(ctx.policy(p), field, value)
    assert p.gpu_count == 8
    # What no policy text could say, set in the C struct itself, is refused by the run, in a
    # worker or not.
    for field, value, named in (("gpu_count", 5000, "gpu_count wants"),
                                ("temp_margin_warn_c", float("nan"), "temp_margin_warn_c"),
                                ("gpu_model", b"a\nb", "gv_policy.gpu_model")):
        bad = ctx.policy(p)
        setattr(bad._struct, field, value)
        for isolation in ("auto", "none"):
            with pytest.raises(gpuverify.InvalidArgumentError, match=named):
                ctx.run(checks="driver.gpu_count", policy=bad, isolation=isolation)


def test_a_gpu_the_node_does_not_have_is_a_usage_error(node):
    ctx = node("h100-open", "h100x8-gpu-lost")
    for isolation in ("auto", "none"):
        with pytest.raises(gpuverify.InvalidArgumentError,
                           match=r'gpus "1,9": there is no GPU 9: .* 8 GPU\(s\)'):
            ctx.run("quick", gpus=[1, 9], isolation=isolation)
    # One the node has but CUDA lost (its ordinals moved) is hardware: a FAIL row.
    report = ctx.run("quick", gpus=[7], gemm_size=32)
    row = next(c for c in report.checks if "CUDA GPU 7 was asked for" in c.message)
    assert row.verdict == "FAIL" and row.subject == "node" and report.exit_code == 1


def cli(fixtures, fakelib, scenario, *args, env=None):
    full = dict(os.environ, PYTHONPATH=HERE,
                GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", scenario + ".conf"),
                **(env or {}))
    return subprocess.run([sys.executable, "-m", "gpuverify", "--library-dir", fakelib,
                           "--gemm-size", "32"] + list(args),
                          capture_output=True, text=True, env=full, timeout=120)


def test_cli_gpus_past_the_node_exits_2(fixtures, fakelib, tmp_path):
    root = os.path.join(fixtures, "sysroots", "h100-open")
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--level", "quick",
               "--gpus", "9", "--textfile", str(tmp_path / "gv.prom"))
    assert done.returncode == 2, done.stderr
    assert "there is no GPU 9" in done.stderr and "FAIL" not in done.stdout
    assert "gpuverify_node_healthy 0" in (tmp_path / "gv.prom").read_text()


def test_cli_empty_checks_exit_2_and_ctrl_c_ends_it(fixtures, fakelib):
    root = os.path.join(fixtures, "sysroots", "h100-open")
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--level", "quick",
               "--checks", "")
    assert done.returncode == 2 and "names no check" in done.stderr, done.stderr
    # SIGINT during a run stuck in nvmlInit: gone at once, as gv-check (not at the deadline).
    import signal
    import time
    full = dict(os.environ, PYTHONPATH=HERE,
                GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", "fault-nvml-init-hang.conf"))
    p = subprocess.Popen([sys.executable, "-m", "gpuverify", "--library-dir", fakelib,
                          "--sysroot", root, "--level", "quick", "--deadline", "20", "--quiet"],
                         env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(2)
    started = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == -signal.SIGINT and time.monotonic() - started < 5


def test_cli_has_gv_checks_state_textfile_and_host_root(fixtures, fakelib, tmp_path):
    root = os.path.join(fixtures, "sysroots", "h100-open")
    db, prom = tmp_path / "h.db", tmp_path / "gv.prom"
    prom.write_text("stale\n")
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--level", "quick",
               "--state", str(db), "--textfile", str(prom), "--node-name", "n17", "--quiet")
    assert done.returncode == 0, done.stderr
    assert db.stat().st_size > 0
    text = prom.read_text()
    assert "gpuverify_node_healthy 1" in text and "stale" not in text
    assert oct(prom.stat().st_mode & 0o777) == "0o644"
    with gpuverify.Context(state_path=str(db)) as ctx:
        assert [r["hostname"] for r in ctx.history()["runs"]] == ["n17"]
    # The run is recorded, but no history.* check judged it: said on stderr.
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--checks", "system",
               "--state", str(db))
    assert done.returncode == 0 and "selects no history.* check" in done.stderr
    # --host-root: one or the other of --sysroot.
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--host-root", root)
    assert done.returncode == 2 and "not allowed with" in done.stderr
    done = cli(fixtures, fakelib, "h100x8", "--host-root", root, "--checks", "driver.gpu_count",
               "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sysroot"] == root
    # A textfile that cannot be written is said; the exit stays the verdict's, as gv-check's.
    done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--checks", "system",
               "--textfile", str(tmp_path / "no" / "such" / "dir" / "gv.prom"))
    assert done.returncode == 0 and "--textfile" in done.stderr, done.stderr
    # Sizes in gv-check's ranges: 0 is not "the default" (it would run the default size).
    for option, bad, range_text in (("--gemm-size", "0", "from 1 to 65536"),
                                    ("--gemm-size", "99999999", "from 1 to 65536"),
                                    ("--copy-mib", "0", "from 1 to 1048576"),
                                    ("--nccl-kib", "0", "from 1 to 16777216")):
        done = cli(fixtures, fakelib, "h100x8", "--sysroot", root, "--checks", "system",
                   option, bad)
        assert done.returncode == 2 and range_text in done.stderr, (option, bad, done.stderr)


def test_cli_help_lists_every_gv_check_option_that_applies(gv_check):
    ours = subprocess.run([sys.executable, "-m", "gpuverify", "--help"], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=HERE), timeout=60).stdout
    theirs = subprocess.run([gv_check, "--help"], capture_output=True, text=True,
                            timeout=60).stdout
    import re
    options = set(re.findall(r"(--[a-z][a-z-]+)", theirs))
    missing = sorted(o for o in options if o not in ours)
    assert not missing, missing


def test_errors_say_the_reason_not_the_status_name(tmp_path):
    # The class says what kind ("input/output error: ..." read as a disk fault); the message
    # starts with the call and the library's reason, as gv-check's do.
    missing = str(tmp_path / "no-such-sysroot")
    with pytest.raises(gpuverify.IOFailureError) as e:
        gpuverify.Context(sysroot=missing)
    assert str(e.value).startswith("Context(): ") and missing in str(e.value)
    assert "input/output error" not in str(e.value), str(e.value)
