# SPDX-License-Identifier: Apache-2.0
"""The caller's arguments (docs/inputs.md): an unknown keyword option raises TypeError, a number
outside the C library's range ValueError before ctypes could wrap it (gpu=2**33 was GPU 0), a
policy dict whose key or value holds a newline, another control byte or '#' ValueError (it
would add a policy line or cut one); the edges the library takes still go through."""
import os
import subprocess
import sys

import pytest

import gpuverify
from gpuverify import _args

HERE = os.path.join(os.path.dirname(__file__), "..")
DAY = 86400.0

# (method, keyword arguments): each one value just outside the C library's range.
OUT_OF_RANGE = [
    ("gemm_bench", dict(gpu=2 ** 33)), ("gemm_bench", dict(gpu=-1)),
    ("gemm_bench", dict(size=0)), ("gemm_bench", dict(size=65537)),
    ("gemm_bench", dict(warmup_s=-0.1)), ("gemm_bench", dict(warmup_s=600.5)),
    ("gemm_bench", dict(warmup_s=float("nan"))), ("gemm_bench", dict(batch_s=0)),
    ("gemm_bench", dict(batch_s=float("inf"))), ("gemm_bench", dict(batches=0)),
    ("gemm_bench", dict(batches=1001)), ("gemm_bench", dict(batches=2 ** 32 + 5)),
    ("gemm_bench", dict(algo_candidates=0)), ("gemm_bench", dict(algo_candidates=65)),
    ("gemm_bench", dict(verify_samples=4097)), ("gemm_bench", dict(warn_fraction=1.5)),
    ("gemm_bench", dict(fail_fraction=-0.1)), ("gemm_bench", dict(seed=2 ** 64)),
    ("gemm_bench", dict(seed=-1)),
    ("cuda_check", dict(gpu=2 ** 32)), ("cuda_check", dict(quick_alloc_bytes=7)),
    ("cuda_check", dict(quick_alloc_bytes=(64 << 40) + 1)),
    ("cuda_check", dict(alloc_bytes=(64 << 40) + 1)), ("cuda_check", dict(alloc_fraction=1.01)),
    ("cuda_check", dict(copy_bytes=4095)), ("cuda_check", dict(copy_bytes=(1 << 40) + 1)),
    ("cuda_check", dict(copy_samples=0)), ("cuda_check", dict(copy_samples=65)),
    ("cuda_check", dict(copies_per_sample=1025)), ("cuda_check", dict(flags=4)),
    ("mem_test", dict(gpu=2 ** 33)), ("mem_test", dict(fraction=0)),
    ("mem_test", dict(fraction=0.995)), ("mem_test", dict(chunk_bytes=(2 << 20) - 1)),
    ("mem_test", dict(chunk_bytes=(64 << 30) + 1)), ("mem_test", dict(rounds=0)),
    ("mem_test", dict(rounds=100001)), ("mem_test", dict(duration_s=30 * DAY + 1)),
    ("mem_test", dict(seed=2 ** 64)),
    ("stress_gemm", dict(gpus=[2 ** 33])), ("stress_gemm", dict(gpus=list(range(17)))),
    ("stress_gemm", dict(size=8)), ("stress_gemm", dict(size=32784)),
    ("stress_gemm", dict(duration_s=0)), ("stress_gemm", dict(duration_s=30 * DAY + 1)),
    ("stress_gemm", dict(interval_s=0.001)), ("stress_gemm", dict(interval_s=61)),
    ("cudnn_check", dict(gpu=2 ** 33)), ("cudnn_check", dict(gpu=-1)),
    ("nccl_bench", dict(gpus=[-1])), ("nccl_bench", dict(gpus=[2 ** 32])),
    ("nccl_bench", dict(gpus=list(range(65)))), ("nccl_bench", dict(min_bytes=3)),
    ("nccl_bench", dict(max_bytes=(64 << 30) + 1)), ("nccl_bench", dict(max_bytes=2 ** 64)),
    ("nccl_bench", dict(step_factor=1)), ("nccl_bench", dict(step_factor=1025)),
    ("nccl_bench", dict(iters=0)), ("nccl_bench", dict(iters=100001)),
    ("nccl_bench", dict(warmup_iters=100001)), ("nccl_bench", dict(deadline_s=DAY + 1)),
    ("nccl_bench", dict(deadline_s=-1)), ("nccl_bench", dict(min_busbw_gbps=-1)),
    ("nccl_bench", dict(min_busbw_gbps=float("inf"))),
    ("run", dict(budget_s=DAY + 1)), ("run", dict(budget_s=-1)),
    ("run", dict(duration_s=7 * DAY + 1)), ("run", dict(gemm_size=65537)),
    ("run", dict(gemm_size=-1)), ("run", dict(copy_bytes=4095)),
    ("run", dict(copy_bytes=(1 << 40) + 1)), ("run", dict(nccl_bytes=1023)),
    ("run", dict(nccl_bytes=(64 << 30) + 1)), ("run", dict(gpus=[64])),
    ("run", dict(gpus=[2 ** 33])), ("run", dict(gpus=[-1])),
]

# Keyword options each method does not take (a typo, a field it sets itself).
UNKNOWN = [("gemm_bench", dict(warmup=1)), ("gemm_bench", dict(flags=1)),
           ("cuda_check", dict(copy_mib=1)), ("mem_test", dict(fractions=0.5)),
           ("stress_gemm", dict(series_capacity=1)), ("nccl_bench", dict(iterations=2)),
           ("nccl_bench", dict(gpu_count=3))]


@pytest.fixture
def ctx(node):
    return node("h100-open", "h100x1-compute")


@pytest.mark.parametrize("method,kwargs", OUT_OF_RANGE,
                         ids=["%s-%s" % (m, "-".join(k)) for m, k in OUT_OF_RANGE])
def test_a_number_outside_the_c_range_raises_value_error(ctx, method, kwargs):
    with pytest.raises(ValueError) as e:
        getattr(ctx, method)(**kwargs)
    # InvalidArgumentError as the library's refusals, but said by the binding, naming the
    # argument first: the value never reached C (where "Context.<call>: ..." would be said).
    assert isinstance(e.value, gpuverify.InvalidArgumentError)
    assert str(e.value).startswith(list(kwargs)[0]), str(e.value)


@pytest.mark.parametrize("method,kwargs", UNKNOWN,
                         ids=["%s-%s" % (m, "-".join(k)) for m, k in UNKNOWN])
def test_an_unknown_keyword_option_raises_type_error(ctx, method, kwargs):
    with pytest.raises(TypeError) as e:
        getattr(ctx, method)(**kwargs)
    assert repr(list(kwargs)[0]) in str(e.value)


def test_a_value_of_the_wrong_type_raises_type_error(ctx):
    for method, kwargs in (("gemm_bench", dict(gpu="0")), ("gemm_bench", dict(size=64.0)),
                           ("mem_test", dict(rounds=True)), ("run", dict(gpus="0,2")),
                           ("nccl_bench", dict(deadline_s="5"))):
        with pytest.raises(TypeError):
            getattr(ctx, method)(**kwargs)


def test_the_context_deadline_is_checked(fixtures, fakelib):
    for bad in (-1, DAY + 1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="deadline_s"):
            gpuverify.Context(deadline_s=bad)
    with gpuverify.Context(deadline_s=DAY):  # the edge itself is the library's too
        pass


def test_the_edges_of_each_range_are_taken():
    """Values at the edges of the ranges pass the binding's checks unchanged (the library's
    own checks have the same edges: include/gpuverify/*.h)."""
    inside = {"gemm_bench": (_args.GEMM_OPTS, dict(warmup_s=600, batch_s=1e-9, batches=1000,
                                                   algo_candidates=64, verify_samples=0,
                                                   warn_fraction=1, fail_fraction=0,
                                                   seed=2 ** 64 - 1)),
              "cuda_check": (_args.CUDA_OPTS, dict(quick_alloc_bytes=8, alloc_bytes=64 << 40,
                                                   copy_bytes=4096, copy_samples=64,
                                                   copies_per_sample=1024, flags=3)),
              "mem_test": (_args.MEMTEST_OPTS, dict(fraction=0.99, chunk_bytes=64 << 30,
                                                    rounds=100000, duration_s=30 * DAY)),
              "nccl_bench": (_args.NCCL_OPTS, dict(step_factor=1024, iters=1, warmup_iters=0,
                                                   deadline_s=DAY, min_busbw_gbps=0))}
    for call, (specs, given) in inside.items():
        assert _args.options(call, given, specs) == given
    assert _args.whole("gpu", 2 ** 32 - 1, 0, _args.U32) == 2 ** 32 - 1
    assert _args.gpu_list("gpus", range(64), 64, hi=63) == list(range(64))


def test_run_takes_its_edges(node):
    ctx = node("h100-open", "h100x8")
    report = ctx.run(checks="system", budget_s=DAY, duration_s=7 * DAY, gemm_size=65536,
                     copy_bytes=1 << 40, nccl_bytes=64 << 30, gpus=[0, 7])
    assert report.checks
    # GPU 63 is inside gv_run_opts.gpus' range, so it reaches the library, which refuses it on
    # a node of eight GPUs as a usage error (not a FAIL row that reads as broken hardware).
    with pytest.raises(gpuverify.InvalidArgumentError, match="there is no GPU 63"):
        ctx.run(checks="system", gpus=[0, 63])


@pytest.mark.parametrize("policy", [
    {"gpu_count": "8\nxids = 79"}, {"gpu_count": "8\rxids = 79"}, {"gpu_model": "H100\x00"},
    {"gpu_model": "H100\x1b[31m"}, {"gpu_model": "H100 \x7f"}, {"gpu_model": "H100\t"},
    {"gpu_model": "H100 # a comment cuts the value"}, {"gpu_count\nxids": "79"},
    {"xids = 79\ngpu_count": 8}, {"gpu count": 8}, {"": 8}, {"gpu_count=": 8}])
def test_a_policy_dict_cannot_add_or_cut_a_line(ctx, policy):
    with pytest.raises(ValueError) as e:
        ctx.policy(policy)
    assert str(e.value).startswith("policy "), str(e.value)  # before the library's parser


def test_a_clean_policy_dict_is_the_text_policy(ctx):
    d = ctx.policy({"gpu_count": 8, "gpu_model": "H100 80GB HBM3", "xids": "48,79"})
    t = ctx.policy("gpu_count = 8\ngpu_model = H100 80GB HBM3\nxids = 48,79")
    assert bytes(d) == bytes(t) and d == t
    assert d.gpu_count == 8 and d.xids == "48,79"  # readable: text as str


def test_python_m_gpuverify_refuses_what_run_refuses(fixtures, fakelib):
    env = dict(os.environ, PYTHONPATH=HERE)
    for args in (["--copy-mib", "99999999999999"], ["--gpus", "64"], ["--budget", "1e9"],
                 ["--deadline", "1e9"]):
        p = subprocess.run([sys.executable, "-m", "gpuverify"] + args,
                           capture_output=True, text=True, env=env, timeout=60)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert "from" in p.stderr and args[0].lstrip("-").split("-")[0] in p.stderr, p.stderr
