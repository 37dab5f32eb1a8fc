# SPDX-License-Identifier: Apache-2.0
"""examples/python/torchrun_check.py over the fakes, as torchrun would start one rank of it:
LOCAL_RANK set, only that GPU checked, exit 0 (trained), 1 (a FAIL), 4 (held by another
gpuverify past the wait; 3 with a library that does not say so), retried while held."""
import importlib.util
import os
import subprocess
import sys

import pytest

from gpuverify import _native, _structs
from test_pythonic import hold_gpu

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "examples", "python", "torchrun_check.py")
PACKAGE = os.path.join(os.path.dirname(__file__), "..")
GPU3 = "0000:5d:00.0"  # CUDA index 3 of h100x8
GPU0 = "0000:18:00.0"


@pytest.fixture
def rank(fixtures, fakelib, tmp_path):
    """rank(local_rank, scenario, *options) -> the finished process of one rank."""
    def start(local_rank, scenario="h100x8", *options):
        env = dict(os.environ, PYTHONPATH=PACKAGE, LOCAL_RANK=str(local_rank),
                   GPUVERIFY_LOCK_DIR=str(tmp_path),
                   GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", scenario + ".conf"))
        env.pop("CUDA_VISIBLE_DEVICES", None)
        return subprocess.run(
            [sys.executable, EXAMPLE, "--sysroot", os.path.join(fixtures, "sysroots",
                                                                 "h100-open"),
             "--library-dir", fakelib, "--gemm-size", "32"] + list(options),
            capture_output=True, text=True, env=env, timeout=120)
    return start


def library_says_held():
    return _native.knows_field(_structs.CheckResult, "held_by_other")


def test_a_healthy_gpu_trains(rank):
    done = rank(3)
    assert done.returncode == 0, done.stderr
    assert "[rank 3] GPU 3: PASS" in done.stderr
    if importlib.util.find_spec("torch") is None:
        assert "[rank 3] torch not installed: skipping the training step" in done.stderr


def test_only_the_rank_whose_gpu_failed_exits_1(rank):
    # GPU 3 fell off the bus: CUDA calls the seven left 0-6. Rank 3 tests CUDA's 3 (gpu4,
    # healthy) and trains; rank 7 finds no CUDA device 7 and alone exits 1.
    three = rank(3, "h100x8-gpu-lost")
    assert three.returncode == 0, three.stderr
    assert "[rank 3] GPU 3: PASS (gpu4 0000:9a:00.0" in three.stderr
    assert "not this rank's GPU" in three.stderr and "FAIL driver.gpu_count" not in three.stderr
    seven = rank(7, "h100x8-gpu-lost")
    assert seven.returncode == 1, seven.stderr
    assert "[rank 7] FAIL driver.gpu_count node: CUDA GPU 7 was asked for" in seven.stderr
    assert "[rank 7] GPU 7: FAIL: CUDA does not see it" in seven.stderr
    assert "training" not in seven.stderr


def test_every_rank_of_eight_reports_its_own_gpu(rank):
    codes = {r: rank(r, "h100x8-gpu-lost") for r in range(8)}
    assert {r: p.returncode for r, p in codes.items()} == {r: 1 if r == 7 else 0 for r in range(8)}
    for r in range(7):
        assert "[rank %d] GPU %d: PASS" % (r, r) in codes[r].stderr, codes[r].stderr


def test_a_gpu_that_breaks_fails_its_rank_only(rank):
    # h100x8-xid: GPU 3 needs a reboot, GPU 4 a reset; CUDA still sees all eight.
    assert rank(3, "h100x8-xid").returncode == 1
    ok = rank(0, "h100x8-xid")
    assert ok.returncode == 0, ok.stderr
    assert "left to the rank of that GPU" in ok.stderr


def test_a_gpu_the_node_does_not_have_is_a_usage_error(rank):
    done = rank(9, "h100x8")
    assert done.returncode == 2, done.stderr
    assert "there is no GPU 9" in done.stderr


def test_each_rank_checks_its_own_gpu_only(rank, tmp_path):
    holder = hold_gpu(str(tmp_path), GPU0)  # another gpuverify on GPU 0: not rank 3's
    try:
        done = rank(3, "h100x8", "--budget", "20", "--hold-wait", "0")
        assert done.returncode == 0, done.stderr
        held = rank(0, "h100x8", "--budget", "6", "--hold-wait", "0")
        assert held.returncode == (4 if library_says_held() else 3), held.stderr
        if library_says_held():
            assert "GPU 0 still held by PID %d" % holder.pid in held.stderr
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.skipif(not os.environ.get("GPUVERIFY_LIBRARY"), reason="run through ctest")
def test_a_held_gpu_is_waited_for_then_checked(rank, tmp_path):
    if not library_says_held():
        pytest.skip("this libgpuverify does not say which rows another gpuverify held")
    # A run waits for a held GPU until half its budget (15 s): held for 20 s, the first run
    # gives up and the example tries again; the next run gets the GPU with 25 s of its budget
    # left for the checks, however loaded the host (a budget of 2 s ran out under load).
    holder = hold_gpu(str(tmp_path), GPU3, seconds=20)
    try:
        done = rank(3, "h100x8", "--budget", "30", "--hold-wait", "60", "--retry-every", "0.5")
        assert done.returncode == 0, done.stderr
        assert "GPU 3 held by PID %d; trying again" % holder.pid in done.stderr
        assert "[rank 3] GPU 3: PASS" in done.stderr
    finally:
        holder.kill()
        holder.wait()
