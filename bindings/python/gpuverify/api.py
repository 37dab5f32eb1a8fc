"""The Pythonic surface: a Context, results as dataclasses with to_dict()."""
import ctypes as C
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _structs as S
from ._native import lib, text
from .errors import GpuverifyError, for_status

VERDICTS = ("PASS", "WARN", "FAIL", "SKIP", "ERROR")
LEVELS = {"standard": 0, "quick": 1, "extended": 2}
ISOLATIONS = {"auto": 0, "process": 1, "none": 2}
DTYPES = {"fp32": 0, "tf32": 1, "fp16": 2, "bf16": 3, "fp8": 4}
COLLECTIVES = {"all_reduce": 0, "all_gather": 1, "reduce_scatter": 2, "broadcast": 3, "reduce": 4,
               "alltoall": 5, "gather": 6, "scatter": 7, "sendrecv": 8, "pairs": 9}
CTX_IN_PROCESS = 0x1  # gv_ctx_opts.flags: the calls in the caller, not gpuverify-worker
NCCL_IN_PROCESS = 0x1  # gv_nccl_opts.flags: NCCL in the caller, not gpuverify-worker
NCCL_IN_PLACE = 0x2  # gv_nccl_opts.flags: each size in place too


def version() -> str:
    """The version of the libgpuverify loaded (not of this binding)."""
    return text(lib().gv_version_string())


def catalog() -> List[str]:
    """Every check ID, in run order (docs/checks.md)."""
    L = lib()
    return [text(L.gv_catalog_id(i)) for i in range(L.gv_catalog_count())]


def verdict_name(v: int) -> str:
    return VERDICTS[v] if 0 <= v < len(VERDICTS) else "UNKNOWN"


class _Result:
    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class CheckResult(_Result):
    id: str
    subject: str
    verdict: str
    message: str
    measured: str
    value: Optional[float]
    unit: str
    expected: str
    expected_source: str
    remediation: str
    duration_s: float

    @classmethod
    def _from(cls, c: S.CheckResult) -> "CheckResult":
        return cls(text(c.id), text(c.subject), verdict_name(c.verdict), text(c.message),
                   text(c.measured), None if math.isnan(c.value) else c.value, text(c.unit),
                   text(c.expected), text(c.expected_source), text(c.remediation), c.duration_s)


@dataclass
class Report(_Result):
    verdict: str
    level: str
    duration_s: float
    checks: List[CheckResult] = field(default_factory=list)
    isolation: str = ""  # "process" (gpuverify-worker) or "none" (this process)
    json: str = field(default="", repr=False)
    prometheus: str = field(default="", repr=False)

    @property
    def healthy(self) -> bool:
        """No check FAILed or ERRORed (gv-check's exit status 0)."""
        return self.verdict not in ("FAIL", "ERROR")

    def document(self) -> Dict[str, Any]:
        """The JSON report (docs/report.schema.json) as a dict: inventory, driver, checks."""
        return json.loads(self.json)


def _struct_dict(s: C.Structure) -> Dict[str, Any]:
    out = {}
    for name, ctype in s._fields_:
        if name in ("struct_size",) or name.startswith("reserved"):
            continue
        v = getattr(s, name)
        if isinstance(v, bytes):
            v = text(v)
        elif isinstance(v, C.Array):
            v = [_struct_dict(x) if isinstance(x, C.Structure) else x for x in v]
        if name == "verdict" or name.endswith("_verdict"):
            v = verdict_name(v)
        out[name] = v
    return out


@dataclass
class GemmResult(_Result):
    verdict: str
    dtype: str
    tflops_median: float
    tflops_best: float
    peak_tflops: float
    fraction_of_peak: float
    verified: bool
    message: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass
class NcclResult(_Result):
    verdict: str
    collective: str
    nranks: int
    peak_busbw_gbps: float
    peak_bytes: int
    wrong_elements: int
    nccl_version: str
    message: str
    sizes: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass
class Outcome(_Result):
    """cuda_check, mem_test and cudnn_check: the verdict, the message and every field of the C
    struct."""
    verdict: str
    message: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


def _progress_adapter(progress: Callable[[Dict[str, Any]], None]):
    """gv_run_event as a dict for the caller's progress function."""
    def call(event, _user):
        e = event.contents
        d = {"kind": "finished" if e.kind == 1 else "started", "check": text(e.check),
             "subject": text(e.subject), "checks_started": e.checks_started,
             "checks_selected": e.checks_selected, "elapsed_s": e.elapsed_s,
             "budget_s": e.budget_s}
        if e.result:
            d["verdict"] = verdict_name(C.cast(e.result, C.POINTER(S.CheckResult)).contents.verdict)
        progress(d)
    return call


def _b(s: Optional[str]) -> Optional[bytes]:
    return None if s is None else str(s).encode()


class Context:
    """A libgpuverify context. Use as `with gpuverify.Context() as ctx: ctx.run("quick")`.

    sysroot: judge a captured node tree instead of this machine; library_dir: load the NVIDIA
    libraries from there only; deadline_s: each check's deadline where the catalog sets none
    (enforced when the checks and calls run in gpuverify-worker); worker_path: that executable;
    in_process: run gemm_bench, mem_test, ... in this process, not in gpuverify-worker (no
    process start, no deadline on a call stuck in the driver)."""

    def __init__(self, sysroot: Optional[str] = None, library_dir: Optional[str] = None,
                 deadline_s: float = 0.0, worker_path: Optional[str] = None,
                 in_process: bool = False):
        self._lib = lib()
        # alive as long as the context
        self._keep = [_b(sysroot), _b(library_dir), _b(worker_path)]
        opts = S.CtxOpts(sysroot=self._keep[0], library_dir=self._keep[1], log_level=1,
                         live_libraries=-1, deadline_s=deadline_s, worker_path=self._keep[2],
                         flags=CTX_IN_PROCESS if in_process else 0)
        handle = C.c_void_p()
        st = self._lib.gv_ctx_create(C.byref(opts), C.byref(handle))
        if st != 0:
            raise for_status(st, "gv_ctx_create: %s: %s" % (text(self._lib.gv_strerror(st)),
                                                             text(self._lib.gv_ctx_last_error(None))))
        self._ctx = handle

    def close(self) -> None:
        if getattr(self, "_ctx", None):
            self._lib.gv_ctx_destroy(self._ctx)
            self._ctx = None

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()

    def _raise(self, st: int, call: str):
        message = "%s: %s: %s" % (call, text(self._lib.gv_strerror(st)),
                                  text(self._lib.gv_ctx_last_error(self._ctx)))
        raise for_status(st, message)

    def _check(self, st: int, call: str) -> None:
        if st != 0:
            self._raise(st, call)

    def _finish(self, st: int, call: str, result):
        """result, or the error of st carrying it: a call stopped at its deadline (DeadlineError)
        or by its worker's crash (DriverError) still says so in its verdict and message."""
        if st != 0:
            try:
                self._raise(st, call)
            except GpuverifyError as e:
                e.result = result
                raise
        return result

    def policy(self, source: Union[str, Dict[str, Any], None] = None, *,
               path: Optional[str] = None) -> S.Policy:
        """A gv_policy from key = value text, a dict of the same keys, or a file (path=)."""
        p = S.Policy()
        if isinstance(source, dict):
            source = "\n".join("%s = %s" % kv for kv in source.items())
        if path is not None:
            self._check(self._lib.gv_policy_load(self._ctx, _b(path), C.byref(p)),
                        "gv_policy_load")
        if source:
            self._check(self._lib.gv_policy_parse(self._ctx, _b(source), C.byref(p)),
                        "gv_policy_parse")
        return p

    def run(self, level: str = "standard", *, checks: Union[str, Sequence[str], None] = None,
            budget_s: float = 0.0, gpus: Optional[Sequence[int]] = None,
            policy: Union[S.Policy, Dict[str, Any], str, None] = None,
            gemm_size: int = 0, copy_bytes: int = 0, nccl_bytes: int = 0,
            topology_xml: Optional[str] = None, isolation: str = "auto",
            progress: Optional[Callable[[Dict[str, Any]], None]] = None,
            duration_s: float = 0.0) -> Report:
        """gv_run: the checks of a level ("quick", "standard", "extended"), or those named;
        isolation "auto" (gpuverify-worker when found), "process" (required) or "none".
        progress(event) is called as checks start and rows finish (gv_run_event): a dict with
        kind "started" or "finished", check, subject, verdict (finished), checks_started,
        checks_selected, elapsed_s, budget_s. What it raises is printed and ignored.
        duration_s: how long stress.* loads the GPUs (extended level; 0 = 120 s)."""
        if level not in LEVELS:
            raise for_status(-1, "level %r: one of %s" % (level, ", ".join(LEVELS)))
        if isolation not in ISOLATIONS:
            raise for_status(-1, "isolation %r: one of %s" % (isolation, ", ".join(ISOLATIONS)))
        if checks is not None and not isinstance(checks, str):
            checks = ",".join(checks)
        if policy is not None and not isinstance(policy, S.Policy):
            policy = self.policy(policy)
        keep = [_b(checks), _b(topology_xml),
                _b(",".join(str(g) for g in gpus)) if gpus is not None else None]
        opts = S.RunOpts(checks=keep[0], gemm_size=gemm_size, copy_bytes=copy_bytes,
                         topology_xml=keep[1], nccl_bytes=nccl_bytes, level=LEVELS[level],
                         budget_s=budget_s, gpus=keep[2],
                         policy=C.pointer(policy) if policy is not None else None,
                         isolation=ISOLATIONS[isolation], duration_s=duration_s)
        if progress is not None:
            opts.on_event = keep_fn = S.RUN_EVENT_FN(_progress_adapter(progress))
            keep.append(keep_fn)
        rep = C.c_void_p()
        self._check(self._lib.gv_run(self._ctx, C.byref(opts), C.byref(rep)), "gv_run")
        try:
            return self._report(rep)
        finally:
            self._lib.gv_report_free(rep)

    def read_report(self, document: Union[str, Dict[str, Any]]) -> Report:
        """A report from its JSON (gv_report_from_json): another process's or node's, e.g. one
        line of `srun gv-check --json`. ParseError names what does not fit its schema version."""
        if not isinstance(document, str):
            document = json.dumps(document)
        rep = C.c_void_p()
        self._check(self._lib.gv_report_from_json(self._ctx, document.encode(), C.byref(rep)),
                    "gv_report_from_json")
        try:
            return self._report(rep)
        finally:
            self._lib.gv_report_free(rep)

    def _render(self, fn, rep) -> str:
        out = C.c_void_p()
        st = fn(rep, 0, C.byref(out))
        if st != 0:
            self._raise(st, fn.__name__)
        try:
            return C.string_at(out.value).decode("utf-8", "replace")
        finally:
            self._lib.gv_free(out)

    def _report(self, rep) -> Report:
        L = self._lib
        checks = []
        for i in range(L.gv_report_count(rep)):
            c = S.CheckResult()
            self._check(L.gv_report_result(rep, i, C.byref(c)), "gv_report_result")
            checks.append(CheckResult._from(c))
        doc = self._render(L.gv_report_json, rep)
        parsed = json.loads(doc)
        return Report(verdict=verdict_name(L.gv_report_verdict(rep)), level=parsed.get("level"),
                      duration_s=parsed["duration_s"], checks=checks, json=doc,
                      isolation=parsed.get("isolation") or "",
                      prometheus=self._render(L.gv_report_prometheus, rep))

    def gemm_bench(self, gpu: int = 0, dtype: str = "fp16", size: int = 8192, **opts) -> GemmResult:
        """gv_gemm_bench: TFLOPS of one data type on one GPU, verified against the host."""
        if dtype not in DTYPES:
            raise for_status(-1, "dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
        o = S.GemmOpts(dtype=DTYPES[dtype], m=size, n=size, k=size, **opts)
        r = S.GemmResult()
        st = self._lib.gv_gemm_bench(self._ctx, gpu, C.byref(o), C.byref(r))
        return self._finish(st, "gv_gemm_bench", GemmResult(
            verdict_name(r.verdict), dtype, r.tflops_median, r.tflops_best, r.peak_tflops,
            r.fraction_of_peak, r.verified == 1, text(r.message), _struct_dict(r)))

    def cuda_check(self, gpu: int = 0, **opts) -> Outcome:
        """gv_cuda_check: context, VRAM test and copy bandwidths on one GPU."""
        o = S.CudaOpts(**opts)
        r = S.CudaResult()
        st = self._lib.gv_cuda_check(self._ctx, gpu, C.byref(o), C.byref(r))
        return self._finish(st, "gv_cuda_check",
                            Outcome(verdict_name(r.verdict), text(r.message), _struct_dict(r)))

    def mem_test(self, gpu: int = 0, **opts) -> Outcome:
        """gv_mem_test: most of the free VRAM written and read back with our own kernels;
        raw["first_errors"] locates the words that read back wrong."""
        o = S.MemtestOpts(**opts)
        r = S.MemtestResult()
        st = self._lib.gv_mem_test(self._ctx, gpu, C.byref(o), C.byref(r))
        details = _struct_dict(r)
        details["first_errors"] = [_struct_dict(r.first_errors[i])
                                   for i in range(r.errors_logged)]
        return self._finish(st, "gv_mem_test",
                            Outcome(verdict_name(r.verdict), text(r.message), details))

    def stress_gemm(self, gpus: Optional[Sequence[int]] = None, dtype: str = "bf16",
                    size: int = 8192, duration_s: float = 120.0, interval_s: float = 0.1,
                    **opts) -> Outcome:
        """gv_stress_gemm: the same GEMM on every GPU (or those named) at once for the duration,
        every result compared with the first and across GPUs; raw["gpus"] per GPU and
        raw["series"] the time series (one dict per GPU and interval)."""
        if dtype not in DTYPES:
            raise for_status(-1, "dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
        gpus = list(gpus or [])
        capacity = int(duration_s / interval_s + 64) * max(1, len(gpus) or 16)
        series = (S.StressSample * capacity)()
        o = S.StressOpts(dtype=DTYPES[dtype], size=size, duration_s=duration_s,
                         interval_s=interval_s, gpu_count=len(gpus), series_capacity=capacity,
                         series=C.cast(series, C.POINTER(S.StressSample)), **opts)
        for i, g in enumerate(gpus):
            o.gpus[i] = g
        r = S.StressResult()
        st = self._lib.gv_stress_gemm(self._ctx, C.byref(o), C.byref(r))
        raw = _struct_dict(r)
        raw["gpus"] = raw["gpus"][:r.gpu_count]
        raw["series"] = [_struct_dict(series[i]) for i in range(r.series_count)]
        return self._finish(st, "gv_stress_gemm",
                            Outcome(verdict_name(r.verdict), text(r.message), raw))

    def cudnn_check(self, gpu: int = 0) -> Outcome:
        r = S.CudnnResult()
        st = self._lib.gv_cudnn_check(self._ctx, gpu, C.byref(r))
        return self._finish(st, "gv_cudnn_check",
                            Outcome(verdict_name(r.verdict), text(r.message), _struct_dict(r)))

    def nccl_bench(self, gpus: Optional[Sequence[int]] = None, collective: str = "all_reduce",
                   min_bytes: int = 8, max_bytes: int = 1 << 30, in_process: bool = False,
                   in_place: bool = False, **opts) -> NcclResult:
        """gv_nccl_bench over local GPUs (all by default), in gpuverify-worker unless
        in_process (raw["isolation"] says where it ran); in_place times each size in place too
        (raw["in_place"]). A deadline raises DeadlineError
        carrying the partial result in .result."""
        if collective not in COLLECTIVES:
            raise for_status(-1, "collective %r: one of %s" % (collective, ", ".join(COLLECTIVES)))
        o = S.NcclOpts(collective=COLLECTIVES[collective], min_bytes=min_bytes,
                       max_bytes=max_bytes, **opts)
        if in_process:
            o.flags |= NCCL_IN_PROCESS
        if in_place:
            o.flags |= NCCL_IN_PLACE
        for i, g in enumerate(gpus or []):
            o.gpus[i] = g
        o.gpu_count = len(gpus or [])
        r = S.NcclResult()
        st = self._lib.gv_nccl_bench(self._ctx, C.byref(o), C.byref(r))
        result = NcclResult(verdict_name(r.verdict), collective, r.nranks, r.peak_busbw_gbps,
                            r.peak_bytes, r.wrong_elements, text(r.version), text(r.message),
                            [_struct_dict(r.sizes[i]) for i in range(r.size_count)],
                            _struct_dict(r))
        return self._finish(st, "gv_nccl_bench", result)
