# SPDX-License-Identifier: Apache-2.0
"""The Pythonic surface: a Context, verdicts as an enum, results as dataclasses with
to_dict()."""
import ctypes as C
import enum
import functools
import json
import math
import os
import re
import sys
import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _args as A
from . import _native
from . import _structs as S
from ._native import lib, text
from .errors import (ContextClosedError, GpuverifyError, InvalidArgumentError,
                     NotFoundError, for_status)

LEVELS = {"standard": 0, "quick": 1, "extended": 2}
ISOLATIONS = {"auto": 0, "process": 1, "none": 2}
DTYPES = {"fp32": 0, "tf32": 1, "fp16": 2, "bf16": 3, "fp8": 4}
COLLECTIVES = {"all_reduce": 0, "all_gather": 1, "reduce_scatter": 2, "broadcast": 3, "reduce": 4,
               "alltoall": 5, "gather": 6, "scatter": 7, "sendrecv": 8, "pairs": 9}
CTX_IN_PROCESS = 0x1  # gv_ctx_opts.flags: the calls in the caller, not gpuverify-worker
NCCL_IN_PROCESS = 0x1  # gv_nccl_opts.flags: NCCL in the caller, not gpuverify-worker
NCCL_IN_PLACE = 0x2  # gv_nccl_opts.flags: each size in place too

# python -m gpuverify's and gv-check's exit status.
EXIT_HEALTHY = 0  # no check FAILed or ERRORed (PASS, WARN, SKIP)
EXIT_FAIL = 1  # a check FAILed
EXIT_USAGE = 2  # usage error, or the run could not start
EXIT_UNJUDGED = 3  # no FAIL, but a check ERRORed: the node could not be judged
EXIT_HELD = 4  # no FAIL, and every ERROR is a GPU another gpuverify held: not judged yet


class _LibraryEnum(str, enum.Enum):
    """An enum of the library's whose members are also the strings its JSON report writes:
    `.value` is the library's number, and the class takes either (Verdict(2), Verdict("FAIL"))."""

    def __new__(cls, text: str, number: int):
        member = str.__new__(cls, text)
        member._value_ = number
        return member

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            for member in cls:
                if str.__str__(member) == value:
                    return member
        return None

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return "<%s.%s: %d>" % (type(self).__name__, self.name, self.value)

    __format__ = str.__format__


class Verdict(_LibraryEnum):
    """A check's verdict. `.value` is the library's number (PASS 0, WARN 1, FAIL 2, SKIP 3,
    ERROR 4); `Verdict(2)` and `Verdict("FAIL")` both give Verdict.FAIL.

    Each member is also the string of its name, so code written when verdicts were plain
    strings keeps working: ``Verdict.FAIL == "FAIL"``, ``verdict in ("FAIL", "ERROR")``,
    ``str(verdict)``, f-strings and ``json.dumps`` all give ``"FAIL"``.

    PASS: as expected. WARN: works, but something needs a look. FAIL: not fit for work.
    SKIP: not tested, and the message says why (not applicable, not asked for). ERROR: the
    check could not do its work, so the node was not judged on it."""

    PASS = ("PASS", 0)
    WARN = ("WARN", 1)
    FAIL = ("FAIL", 2)
    SKIP = ("SKIP", 3)
    ERROR = ("ERROR", 4)

    @property
    def is_problem(self) -> bool:
        """WARN, FAIL or ERROR: a result someone should read."""
        return self in (Verdict.WARN, Verdict.FAIL, Verdict.ERROR)


class Action(_LibraryEnum):
    """What to do about a row or a node, in rising order of strength (docs/checks.md,
    "Actions"). `.value` is the library's number (enum gv_action: NONE 0 ... HW_INSPECT 6);
    `Action(4)` and `Action("reset_gpu")` both give Action.RESET_GPU, and each member is also
    the string the JSON report writes: ``Action.RESET_GPU == "reset_gpu"``.

    NONE: nothing (PASS and SKIP rows). RERUN: not judged, or a transient result: run again.
    WAIT: the GPU is in use or another gpuverify is testing it: run again once it is free.
    FIX_CONFIG: software or configuration (driver, modules, settings, the policy). RESET_GPU:
    reset the GPU (nvidia-smi -r) before it is used. REBOOT_NODE: reboot the node.
    HW_INSPECT: drain the node for hardware inspection or replacement. Members compare by
    strength: ``max(actions)`` is the strongest."""

    NONE = ("none", 0)
    RERUN = ("rerun", 1)
    WAIT = ("wait", 2)
    FIX_CONFIG = ("fix_config", 3)
    RESET_GPU = ("reset_gpu", 4)
    REBOOT_NODE = ("reboot_node", 5)
    HW_INSPECT = ("hw_inspect", 6)

    # By strength (the library's order), not as strings.
    def __lt__(self, other):
        return self.value < other.value if isinstance(other, Action) else NotImplemented

    def __le__(self, other):
        return self.value <= other.value if isinstance(other, Action) else NotImplemented

    def __gt__(self, other):
        return self.value > other.value if isinstance(other, Action) else NotImplemented

    def __ge__(self, other):
        return self.value >= other.value if isinstance(other, Action) else NotImplemented

    __hash__ = str.__hash__


def _action(number_or_name) -> Union[Action, int, str]:
    """The Action of a library number or JSON name; one this binding does not know (a newer
    library's) stays as it came rather than being taken for another action."""
    try:
        return Action(number_or_name)
    except ValueError:
        return number_or_name


def _verdict(number: int) -> Union[Verdict, int]:
    """The Verdict of a library number; a number this binding does not know (a newer library's)
    stays an int rather than being taken for another verdict."""
    try:
        return Verdict(number)
    except ValueError:
        return number


def verdict_name(v: int) -> str:
    """The name of a verdict number: "PASS", ..., "UNKNOWN" outside the enum."""
    got = _verdict(v)
    return got.name if isinstance(got, Verdict) else "UNKNOWN"


def version() -> str:
    """The version of the libgpuverify loaded (not of this package: see
    gpuverify.__version__). Loads the library; LibraryNotFoundError says where it looked."""
    return text(lib().gv_version_string())


def library_path() -> str:
    """The file libgpuverify was loaded from (loading it if need be)."""
    return _native.library_path()


def catalog() -> List[str]:
    """Every check ID, in run order (docs/checks.md)."""
    L = lib()
    return [text(L.gv_catalog_id(i)) for i in range(L.gv_catalog_count())]


class _Result:
    def to_dict(self) -> Dict[str, Any]:
        """The fields as plain Python values (dicts, lists, str, numbers; verdicts are
        Verdict, a str), ready for json.dumps."""
        return asdict(self)


@dataclass
class HeldBy:
    """Another gpuverify that held a GPU a check needed, so the check's row is no judgement.

    pid: that process's PID (None when unknown); held_s: how long it had held the GPU, in
    seconds, when this run gave up waiting (None when unknown)."""
    pid: Optional[int]
    held_s: Optional[float]


@dataclass
class CheckResult(_Result):
    """One row of a report: a check's verdict on one subject ("node", "gpu0", ...).

    id: the check ID ("driver.gpu_count"); subject: what it judged; verdict: a Verdict;
    message: one line saying what was found; measured / value / unit: the measurement as text,
    as a number (None when not numeric) and its unit; expected / expected_source: the
    expectation and where it came from ("policy", "PCI", ...); remediation: what to do about a
    WARN, FAIL or ERROR; duration_s: how long the check took; held_by: a HeldBy when the row
    is no judgement because another gpuverify held a GPU it needed (None otherwise, and always
    with a library that does not say); action: what to do about the row, an Action (NONE for
    PASS and SKIP, and with a library before ABI 1.1)."""
    id: str
    subject: str
    verdict: Verdict
    message: str
    measured: str
    value: Optional[float]
    unit: str
    expected: str
    expected_source: str
    remediation: str
    duration_s: float
    held_by: Optional[HeldBy] = None
    action: Action = Action.NONE

    @classmethod
    def _from(cls, c: S.CheckResult) -> "CheckResult":
        held = None
        if c.held_by_other and _native.knows_field(S.CheckResult, "held_by_other"):
            held = HeldBy(c.held_by_pid or None, c.held_s if c.held_s >= 0 else None)
        action = (_action(c.action) if _native.knows_field(S.CheckResult, "action")
                  else Action.NONE)
        return cls(text(c.id), text(c.subject), _verdict(c.verdict), text(c.message),
                   text(c.measured), None if math.isnan(c.value) else c.value, text(c.unit),
                   text(c.expected), text(c.expected_source), text(c.remediation), c.duration_s,
                   held, action)


class GpuResult(dict):
    """One GPU of a report: its inventory (the JSON report's gpus[i]) and its own verdict.

    Typed attributes: index (the inventory's, PCI order: the N of the rows' subject "gpuN"),
    cuda_index (the CUDA ordinal, what ``gpus=`` and torch's ``cuda:N`` name; None when CUDA
    does not see the GPU, e.g. one fallen off the bus), nvml_index, name, uuid, pci_bus_id,
    subject ("gpuN"), verdict (a Verdict: judged by the rows of its subject only, never the
    node's rows: FAIL, else ERROR, else WARN or PASS, SKIP when no row judged it),
    failed_checks (the IDs that gave that verdict), checks (those rows, CheckResult).

    Still the dict it was before (``g["verdict"] == "PASS"``, ``g["memory_total_bytes"]``,
    ``json.dumps``): every key of the JSON report's GPU, with "verdict" a Verdict."""

    def __init__(self, data=(), checks: Sequence[CheckResult] = ()):
        super().__init__(data)
        if "verdict" in self and self["verdict"] is not None:
            self["verdict"] = _verdict_text(self["verdict"])
        self._checks = [c for c in checks if c.subject == self.subject]

    @property
    def index(self) -> int:
        return self["index"]

    @property
    def cuda_index(self) -> Optional[int]:
        return self.get("cuda_index")

    @property
    def nvml_index(self) -> Optional[int]:
        return self.get("nvml_index")

    @property
    def name(self) -> str:
        return self.get("name") or ""

    @property
    def uuid(self) -> str:
        return self.get("uuid") or ""

    @property
    def pci_bus_id(self) -> str:
        return self.get("pci_bus_id") or ""

    @property
    def subject(self) -> str:
        return "gpu%d" % self["index"]

    @property
    def verdict(self) -> Verdict:
        return self.get("verdict") or Verdict.SKIP

    @property
    def failed_checks(self) -> List[str]:
        return list(self.get("failed_checks") or [])

    @property
    def checks(self) -> List[CheckResult]:
        return list(self._checks)

    def to_dict(self) -> Dict[str, Any]:
        """The GPU as a plain dict (the JSON report's keys; verdict a Verdict, a str)."""
        return dict(self)

    def __repr__(self) -> str:
        return "GpuResult(index=%d, cuda_index=%r, name=%r, pci_bus_id=%r, verdict=%r)" % (
            self.index, self.cuda_index, self.name, self.pci_bus_id, self.verdict)


def _verdict_text(v) -> Union[Verdict, str]:
    """The Verdict of the JSON's "PASS", ...; an unknown word stays as it came."""
    try:
        return Verdict(v)
    except ValueError:
        return v


@dataclass
class Report(_Result):
    """What a run found: every CheckResult, the overall verdict and the facts judged.

    verdict: the worst verdict (SKIP counts as PASS); level: "quick", "standard" or
    "extended"; duration_s: the run's wall-clock time; checks: the rows in run order;
    isolation: "process" (the checks ran in gpuverify-worker) or "none" (in this process);
    hostname, started_at: where and when (UTC, ISO 8601) it ran; driver: the driver and
    libraries found (dict); gpus: one GpuResult per GPU in PCI order (its verdict, index,
    cuda_index, name, UUID, PCI bus ID, memory, ...; still a dict), gpu(cuda_index=N) the one
    CUDA calls N; action: what to do about the node, the strongest of its rows' (an Action).

    The JSON report (docs/report.schema.json) and the Prometheus text are kept as the
    `json` and `prometheus` attributes (strings) and `document()` (a dict); to_dict() leaves
    them out."""
    verdict: Verdict
    level: str
    duration_s: float
    checks: List[CheckResult] = field(default_factory=list)
    isolation: str = ""  # "process" (gpuverify-worker) or "none" (this process)
    json: str = field(default="", repr=False, compare=False)
    prometheus: str = field(default="", repr=False, compare=False)
    hostname: str = ""
    started_at: str = ""
    driver: Dict[str, Any] = field(default_factory=dict, repr=False)
    gpus: List[GpuResult] = field(default_factory=list, repr=False)
    line: str = ""  # the library's one line (verdict_line())
    outcome: int = EXIT_HEALTHY  # the library's outcome (exit_code)
    action: Action = Action.NONE  # the node's (gv_report_action)

    @property
    def healthy(self) -> bool:
        """No check FAILed or ERRORed (exit status 0)."""
        return self.verdict not in (Verdict.FAIL, Verdict.ERROR)

    @property
    def failures(self) -> List[CheckResult]:
        """The rows someone should read: WARN, FAIL and ERROR, in run order."""
        return [c for c in self.checks if c.verdict in (Verdict.WARN, Verdict.FAIL,
                                                        Verdict.ERROR)]

    @property
    def counts(self) -> Dict[str, int]:
        """How many rows have each verdict: {"PASS": n, "WARN": n, ...}."""
        return {v.name: sum(c.verdict == v for c in self.checks) for v in Verdict}

    def gpu(self, *, cuda_index: Optional[int] = None, index: Optional[int] = None,
            uuid: Optional[str] = None) -> GpuResult:
        """The GPU CUDA calls cuda_index (what ``gpus=`` and ``cuda:N`` name), or the one of
        inventory index (PCI order, the N of subject "gpuN"), or of that UUID: exactly one of
        them. NotFoundError when the report has no such GPU: a CUDA ordinal past what CUDA sees
        (a GPU fell off the bus and moved the ordinals, or none was ever there)."""
        given = [(k, v) for k, v in (("cuda_index", cuda_index), ("index", index),
                                     ("uuid", uuid)) if v is not None]
        if len(given) != 1:
            raise TypeError("Report.gpu() takes one of cuda_index=, index=, uuid=")
        key, want = given[0]
        for g in self.gpus:
            if g.get(key) == want:
                return g
        cuda = [g.cuda_index for g in self.gpus if g.cuda_index is not None]
        raise NotFoundError("Report.gpu: no GPU with %s %r in this report (%d GPU(s), CUDA "
                            "sees %d%s)" % (key, want, len(self.gpus), len(cuda),
                                            ": ordinals %d-%d" % (min(cuda), max(cuda))
                                            if cuda else ""))

    @property
    def held_by_other(self) -> bool:
        """Not judged because another gpuverify held the GPUs: no FAIL, at least one ERROR,
        and every ERROR a row another gpuverify's hold left unrun. Running again once it has
        finished gives a verdict."""
        return self.outcome == EXIT_HELD

    @property
    def exit_code(self) -> int:
        """python -m gpuverify's (and gv-check's) exit status for this report, as the library
        decides it: 0 healthy, 1 a check FAILed, 3 could not judge (no FAIL, but a check
        ERRORed), 4 not judged because another gpuverify held the GPUs (no FAIL, every ERROR
        such a hold). 2, a usage error or a run that could not start, has no report."""
        return self.outcome

    def verdict_line(self) -> str:
        """The verdict in one line of at most 200 bytes, as the library writes it for
        gv-check's --quiet and --npd. Its first word is the class, and the grammar is stable
        (docs/outputs.md):

            OK <c> checks, <n> rows: <p> PASS, <s> SKIP
            WARN <check> <subject>: <message> (<w> WARN of <n>) [<action>]
            FAIL <check> <subject>: <message> (<f> FAIL, <w> WARN, <e> ERROR of <n>) [<action>]
            ERROR <check> <subject>: <message> (<e> ERROR, <w> WARN of <n>) [<action>]
            HELD for <seconds|?> s by PID <pid|?>: <check> <subject>: <message> [<action>]

        <c> counts checks, <n> and the verdicts' counts rows (a check has one per subject it
        judged). The message is cut at a word, never the counts nor the node's action."""
        return self.line

    def document(self) -> Dict[str, Any]:
        """The JSON report (docs/report.schema.json) as a dict: inventory, driver, checks,
        and what to_dict() leaves out (stress series, the library's version, ...)."""
        return json.loads(self.json)

    def to_dict(self) -> Dict[str, Any]:
        """The verdict, the results and the facts as plain values, without the JSON and
        Prometheus texts (see `json`, `prometheus`, `document()`)."""
        return {"verdict": self.verdict, "action": self.action, "level": self.level,
                "duration_s": self.duration_s, "isolation": self.isolation,
                "hostname": self.hostname,
                "started_at": self.started_at, "counts": self.counts,
                "checks": [c.to_dict() for c in self.checks], "driver": self.driver,
                "gpus": [g.to_dict() for g in self.gpus]}


def _struct_dict(s: C.Structure) -> Dict[str, Any]:
    """Every field of a result struct as plain values (text as str, verdicts as Verdict)."""
    out = {}
    for name, ctype in s._fields_:
        if name in ("struct_size",) or name.startswith("reserved"):
            continue
        v = getattr(s, name)
        if isinstance(v, bytes):
            v = text(v)
        elif isinstance(v, C.Array):
            v = [_struct_dict(x) if isinstance(x, C.Structure) else x for x in v]
        elif isinstance(v, C.Structure):
            v = _struct_dict(v)
        if name == "verdict" or name.endswith("_verdict"):
            v = _verdict(v)
        out[name] = v
    return out


@dataclass
class GemmResult(_Result):
    """Context.gemm_bench's answer: one data type's matrix multiply on one GPU.

    verdict: a Verdict (FAIL when slow against the peak or when a result was wrong); dtype;
    tflops_median / tflops_best: measured throughput; peak_tflops: the GPU's peak for the type;
    fraction_of_peak: median / peak; verified: the results matched a host computation;
    message: one line; raw: every field the library reported (clocks, power, algorithm, the
    result fingerprint as raw["fingerprint"]: hash, key, seconds; docs/checks.md)."""
    verdict: Verdict
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
    """Context.nccl_bench's answer: one collective over local GPUs, nccl-tests style.

    verdict: a Verdict (FAIL when an element was wrong or the bus bandwidth below the
    policy's); collective; nranks: GPUs taking part; peak_busbw_gbps and peak_bytes: the best
    bus bandwidth and the size it was reached at; wrong_elements: elements that differed from
    the expected; nccl_version: "2.28.9"; message: one line; sizes: one dict per size (bytes,
    time_us, algbw_gbps, busbw_gbps, wrong); raw: every field the library reported."""
    verdict: Verdict
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
    """The answer of cuda_check, mem_test, stress_gemm and cudnn_check: a Verdict, one line
    of message, and in raw every figure the library reported, as a dict."""
    verdict: Verdict
    message: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


BUSY_RULES = ("skip", "warn", "fail", "ignore")  # gv_policy.busy, enum gv_busy_rule


class Policy:
    """The site's expectations (include/gpuverify/gv_policy.h; the keys of docs/checks.md), as
    Context.policy() reads them, readable: ``policy.gpu_count``, ``policy.gpu_model`` (str),
    ``policy.gemm_min_tflops`` ({"fp32": ..., "bf16": ...}), ``policy.busy`` ("skip", "warn",
    "fail", "ignore"); 0, "" or gpu_count -1 mean not set (the library's default). ``repr()``
    shows the fields set, ``to_dict()`` all of them. Fields can be set the same way
    (``policy.gpu_count = 8``). Pass it as run(policy=...); ``bytes(policy)`` is the C
    struct's bytes."""

    _SKIP = ("struct_size", "flags")

    def __init__(self, struct: Optional[S.Policy] = None):
        object.__setattr__(self, "_struct", struct if struct is not None else S.Policy())

    @classmethod
    def fields(cls) -> List[str]:
        """The field names, in the C struct's order."""
        return [n for n, _ in S.Policy._fields_
                if n not in cls._SKIP and not n.startswith("reserved")]

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self.fields():
            raise AttributeError("Policy has no field %r (fields: %s)" % (
                name, ", ".join(self.fields())))
        v = getattr(self._struct, name)
        if isinstance(v, bytes):
            return text(v)
        if name == "gemm_min_tflops":
            return dict(zip(DTYPES, list(v)))
        if name == "busy":
            return BUSY_RULES[v] if 0 <= v < len(BUSY_RULES) else v
        return v

    def __setattr__(self, name: str, value) -> None:
        """Sets a field as the policy text would, refusing what the C field cannot hold as
        given (ctypes would wrap 2**32 + 7 to 7 and cut a long text without a word)."""
        if name not in self.fields():
            raise AttributeError("Policy has no field %r" % name)
        if name == "gemm_min_tflops":
            for dtype, tflops in dict(value).items():
                if dtype not in DTYPES:
                    raise InvalidArgumentError("gemm_min_tflops: dtype %r: one of %s" % (
                        dtype, ", ".join(DTYPES)))
                self._struct.gemm_min_tflops[DTYPES[dtype]] = A.real(
                    "gemm_min_tflops[%s]" % dtype, tflops, 0, 1e9)
            return
        ctype = dict(S.Policy._fields_)[name]
        if name == "busy" and isinstance(value, str):
            if value not in BUSY_RULES:
                raise InvalidArgumentError("busy %r: one of %s" % (value, ", ".join(BUSY_RULES)))
            value = BUSY_RULES.index(value)
        if name == "busy":
            value = A.whole("busy", value, 0, len(BUSY_RULES) - 1)
        elif name == "gpu_count":
            value = A.whole("gpu_count", value, -1, 4096)  # -1: not set
        elif ctype is C.c_int32:
            value = A.whole(name, value, -(1 << 31), (1 << 31) - 1)
        elif ctype is C.c_double:
            value = A.real(name, value, -sys.float_info.max, sys.float_info.max)
        else:  # char[N]: a text of up to N - 1 bytes
            value = _b(value, name)
            if len(value) >= ctype._length_:
                raise InvalidArgumentError("%s: %d bytes, at most %d" % (
                    name, len(value), ctype._length_ - 1))
        setattr(self._struct, name, value)

    def to_dict(self) -> Dict[str, Any]:
        """Every field as plain values (texts as str, gemm_min_tflops by data type, busy by
        name)."""
        return {n: getattr(self, n) for n in self.fields()}

    def changed(self) -> Dict[str, Any]:
        """The fields that differ from an empty policy's: what the text, dict or file set."""
        blank = Policy()
        return {n: v for n, v in self.to_dict().items() if v != getattr(blank, n)}

    def __bytes__(self) -> bytes:
        return bytes(self._struct)

    def __eq__(self, other) -> bool:
        if isinstance(other, (Policy, S.Policy)):
            return bytes(self) == bytes(other)
        return NotImplemented

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        return "Policy(%s)" % ", ".join("%s=%r" % kv for kv in self.changed().items())


def _progress_adapter(progress: Callable[[Dict[str, Any]], None]):
    """A run's progress events as dicts for the caller's progress function."""
    def call(event, _user):
        e = event.contents
        d = {"kind": "finished" if e.kind == 1 else "started", "check": text(e.check),
             "subject": text(e.subject), "checks_started": e.checks_started,
             "checks_selected": e.checks_selected, "elapsed_s": e.elapsed_s,
             "budget_s": e.budget_s}
        if e.result:
            d["verdict"] = _verdict(C.cast(e.result, C.POINTER(S.CheckResult)).contents.verdict)
        progress(d)
    return call


# gv-history's --gpu slot: "gpu0", "gpu7" (no leading zero), the inventory's index.
_SLOT = re.compile(r"gpu(0|[1-9][0-9]*)\Z")


def _checks_text(call: str, checks: Union[str, Sequence[str], None]) -> Optional[str]:
    """checks as the comma-separated text the library reads; None stays None (the level's).
    One that names nothing ("", [], ",") is refused, as gv-check and gv-history refuse it:
    the library would read it as every check."""
    if checks is None:
        return None
    if not isinstance(checks, str):
        if isinstance(checks, bytes) or not all(isinstance(c, str) for c in checks):
            raise TypeError("%s: checks wants a str or a sequence of str, not %r" % (
                call, checks))
        checks = ",".join(checks)
    if not checks.replace(",", "").replace("^", "").strip():
        raise InvalidArgumentError("%s: checks %r names no check (None: the level's checks)"
                                   % (call, checks))
    return checks


def _subject_text(subject: Any) -> Optional[str]:
    """Context.history's subject as gv-history's --gpu takes it: gpuN, a UUID (GPU-..., MIG-...)
    or "host/subject"; anything else would match nothing without a word."""
    if subject is None:
        return None
    if not isinstance(subject, str):
        raise TypeError("Context.history: subject wants a str, not %r" % (subject,))
    if _SLOT.match(subject) or subject.startswith(("GPU-", "MIG-")) or \
            ("/" in subject and not subject.startswith("/")):
        return subject
    raise InvalidArgumentError("Context.history: subject %r: gpuN (gpu0, gpu7), a GPU's UUID "
                               "(GPU-...) or host/subject" % subject)


def _b(s: Any, name: str = "a text argument") -> Optional[bytes]:
    """A str, bytes or path as the NUL-terminated bytes the library reads; None stays None.
    TypeError for another type (5 is no path), InvalidArgumentError for a NUL inside (the
    library would read only what is before it: "/tmp\\0/x" as /tmp)."""
    if s is None:
        return None
    if isinstance(s, os.PathLike):
        s = os.fspath(s)
    if isinstance(s, str):
        s = s.encode()
    if not isinstance(s, bytes):
        raise TypeError("%s wants a str, not %r" % (name, s))
    if b"\0" in s:
        raise InvalidArgumentError("%s %r: a NUL character inside (the library would read "
                                   "only what is before it)" % (name, s))
    return s


def _serialized(method):
    """The library's rule, one context used by one thread at a time, kept: a call waits for
    another thread's call on the same Context, and close() for every call under way (it would
    free the context beneath it)."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return call


def _default_state() -> str:
    """gv-check's `--state default`: root's history under /var/lib, a user's under
    $XDG_STATE_HOME (else ~/.local/state), the directory made if missing."""
    import os
    if os.geteuid() == 0:
        path = "/var/lib/gpuverify/history.db"
    else:
        base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".local", "state")
        path = os.path.join(base, "gpuverify", "history.db")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


class Context:
    """A session with the library: its settings, and the runs and measurements made with it.
    Use as ``with gpuverify.Context() as ctx: report = ctx.run("quick")``, or call close().

    sysroot: judge a captured node tree (an absolute path holding proc/, sys/, etc/) instead
    of this machine; library_dir: load the NVIDIA libraries from that directory only;
    deadline_s: each check's deadline where the catalog sets none (30 s when 0), enforced when
    the checks and calls run in gpuverify-worker; worker_path: that executable (found beside
    the library by default); in_process: run gemm_bench, mem_test, ... in this process rather
    than in gpuverify-worker (no process start, but no deadline on a call stuck in the driver);
    state_path: the history database run() records every run in and judges history.* from
    (docs/history.md), "default" as gv-check's --state default, None for none; node_name: the
    node's name in the report, metrics and history (None: $GPUVERIFY_NODE_NAME, else the host's);
    host_root: the live node whose / is mounted there (a container's hostPath /), its files read
    there and its NVIDIA libraries queried (gv-check --host-root; not with sysroot).

    Once closed (close(), the end of the with-block) every call raises ContextClosedError.

    Raises LibraryNotFoundError when libgpuverify cannot be loaded, InvalidArgumentError for a
    relative sysroot, IOFailureError for one that does not exist. Calls on one context from
    several threads take turns (the library's rule), and close() waits for a call under way.

    Every method checks its numbers against the C library's ranges before the call
    (docs/inputs.md): one outside raises InvalidArgumentError, a ValueError, naming the range
    (never wrapped to the C type: gpu=2**33 is not GPU 0); a value of the wrong type or a
    keyword option the method does not take raises TypeError."""

    def __init__(self, sysroot: Optional[str] = None, library_dir: Optional[str] = None,
                 deadline_s: float = 0.0, worker_path: Optional[str] = None,
                 in_process: bool = False, state_path: Optional[str] = None,
                 node_name: Optional[str] = None, host_root: Optional[str] = None):
        self._handle = None
        self._lock = threading.RLock()
        deadline_s = A.real("deadline_s", deadline_s, 0, A.DAY)  # gv_ctx_opts: 0 .. a day
        if sysroot is not None and host_root is not None:
            raise InvalidArgumentError("Context(): sysroot or host_root, not both")
        self._lib = lib()
        # alive as long as the context
        self.state_path = _default_state() if state_path == "default" else state_path
        if state_path == "":
            raise InvalidArgumentError("Context(): state_path '' names no file (None: no "
                                       "history; \"default\": gv-check's --state default)")
        self._keep = [_b(host_root if host_root is not None else sysroot,
                         "host_root" if host_root is not None else "sysroot"),
                      _b(library_dir, "library_dir"), _b(worker_path, "worker_path"),
                      _b(self.state_path, "state_path"), _b(node_name, "node_name")]
        # A host's root seen from a container is a live node: its NVIDIA libraries answer for
        # the GPUs its files describe (gv-check --host-root); a sysroot alone is a capture.
        opts = S.CtxOpts(sysroot=self._keep[0], library_dir=self._keep[1], log_level=1,
                         live_libraries=1 if host_root is not None else -1,
                         deadline_s=deadline_s, worker_path=self._keep[2],
                         flags=CTX_IN_PROCESS if in_process else 0, state_path=self._keep[3],
                         node_name=self._keep[4])
        handle = C.c_void_p()
        st = self._lib.gv_ctx_create(C.byref(opts), C.byref(handle))
        if st != 0:
            raise for_status(st, "Context(): %s" % self._reason(st, None))
        self._handle = handle

    @property
    def _ctx(self):
        """The library's handle; ContextClosedError, naming the method, once closed (the
        library would only say "no context (NULL)")."""
        if not self._handle:
            frame = sys._getframe(1)  # the public method called, not its helpers
            while frame.f_back and frame.f_code.co_name.startswith("_") and \
                    frame.f_code.co_name != "__enter__":
                frame = frame.f_back
            raise ContextClosedError(
                "Context.%s: this Context is closed (close() was called or its with-block "
                "ended); make a new gpuverify.Context()" % frame.f_code.co_name)
        return self._handle

    @property
    def closed(self) -> bool:
        """Whether close() has released the context."""
        return not self._handle

    def close(self) -> None:
        """Releases the context (and the NVIDIA libraries it loaded in this process), once a
        call another thread has under way on it returned. Calling it again does nothing; any
        other call afterwards raises ContextClosedError."""
        if not hasattr(self, "_lock"):
            return  # __init__ failed before it: nothing to release
        with self._lock:
            if self._handle:
                self._lib.gv_ctx_destroy(self._handle)
                self._handle = None

    def __enter__(self) -> "Context":
        """The context itself; leaving the with-block closes it."""
        self._ctx  # a closed one cannot be entered again
        return self

    def __exit__(self, *exc) -> None:
        """Closes the context."""
        self.close()

    def __del__(self):
        self.close()

    def _reason(self, st: int, handle) -> str:
        """The library's reason for status st, without the status's name before it (the
        exception's class and `status` say that; "input/output error: policy ...: No such
        file" read as a disk fault): its name only where the library gave no reason."""
        return text(self._lib.gv_ctx_last_error(handle)) or text(self._lib.gv_strerror(st))

    def _raise(self, st: int, call: str):
        """Raises the exception class of status st, with the library's explanation."""
        raise for_status(st, "%s: %s" % (call, self._reason(st, self._ctx)))

    def _check(self, st: int, call: str) -> None:
        """Raises unless st is success."""
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

    @_serialized
    def policy(self, source: Union[str, Dict[str, Any], None] = None, *,
               path: Optional[str] = None) -> "Policy":
        """The site's expectations (gpu_count, gpu_model, gemm thresholds, busy, ...; the keys
        of docs/checks.md) from ``key = value`` text, a dict of the same keys, or a file
        (path=; source, when given too, overrides it), as a Policy: readable fields
        (``.gpu_count``, ``.gpu_model``, ``.busy``), repr() the ones set. Pass the result, or
        the dict or text itself, as run(policy=...). ParseError names the line that does not parse;
        IOFailureError a file that cannot be read. A dict's key or value with a newline or
        another control byte, or a '#', raises ValueError: it would be another line of the
        policy, or a comment."""
        p = S.Policy()
        if isinstance(source, Policy):
            return Policy(S.Policy.from_buffer_copy(bytes(source)))
        if isinstance(source, dict):
            source = A.policy_text(source.items())
        if path is not None:
            self._check(self._lib.gv_policy_load(self._ctx, _b(path, "policy path"), C.byref(p)),
                        "Context.policy")
        if source:
            self._check(self._lib.gv_policy_parse(self._ctx, _b(source, "policy"), C.byref(p)),
                        "Context.policy")
        return Policy(p)

    @_serialized
    def run(self, level: str = "standard", *, checks: Union[str, Sequence[str], None] = None,
            budget_s: float = 0.0, gpus: Optional[Sequence[int]] = None,
            policy: Union["Policy", S.Policy, Dict[str, Any], str, None] = None,
            gemm_size: int = 0, copy_bytes: int = 0, nccl_bytes: int = 0,
            topology_xml: Optional[str] = None, isolation: str = "auto",
            progress: Optional[Callable[[Dict[str, Any]], None]] = None,
            duration_s: float = 0.0, watch_s: float = 0.0) -> Report:
        """Runs the checks and returns a Report; a FAIL is a verdict in the report, never an
        exception.

        level: "quick" (files, libraries, a CUDA context and a small GEMM: a job's prolog),
        "standard" (every check, short GPU tests: about a minute) or "extended" (benchmark
        lengths and the stress.* load); checks: IDs or prefixes to run instead ("driver",
        "gpu.ecc"; "^cuda" leaves one out), a string or a list; budget_s: the run's wall-clock
        budget (0: the level's); gpus: the CUDA device indices the GPU tests use (None: all);
        policy: the site's expectations (see policy()); gemm_size, copy_bytes, nccl_bytes:
        sizes of the GEMM, the copy test and the largest all-reduce (0: the level's);
        topology_xml: judge topo.* on an ``lstopo --of xml`` file; isolation: "auto"
        (gpuverify-worker when found), "process" (required) or "none" (this process);
        progress(event): called as checks start and rows finish with a dict: kind ("started"
        or "finished"), check, subject, verdict (finished only), checks_started,
        checks_selected, elapsed_s, budget_s (what it raises is printed and ignored);
        duration_s: how long stress.* loads the GPUs at the extended level (0: 120 s);
        watch_s: before judging gpu.xid, wait up to this long for an Xid NVML reports (the
        wait ends half a second after the first): a loop of passes that watches in place of
        a sleep sees each Xid at once, also where the kernel log cannot be read.

        A GPU another gpuverify is testing is waited for (up to half the budget); rows it left
        unrun are ERRORs with held_by set. Raises InvalidArgumentError for an unknown level,
        check or isolation."""
        if level not in LEVELS:
            raise for_status(-1, "level %r: one of %s" % (level, ", ".join(LEVELS)))
        if isolation not in ISOLATIONS:
            raise for_status(-1, "isolation %r: one of %s" % (isolation, ", ".join(ISOLATIONS)))
        checks = _checks_text("Context.run", checks)
        # gv_run_plan_make's ranges: ctypes would wrap what does not fit without a word.
        budget_s = A.real("budget_s", budget_s, 0, A.DAY)
        duration_s = A.real("duration_s", duration_s, 0, 7 * A.DAY)
        watch_s = A.real("watch_s", watch_s, 0, A.DAY)
        gemm_size = A.whole("gemm_size", gemm_size, 0, 65536)
        copy_bytes = A.whole("copy_bytes", copy_bytes, 4 * A.KIB, A.TIB, zero=True)
        nccl_bytes = A.whole("nccl_bytes", nccl_bytes, A.KIB, 64 * A.GIB, zero=True)
        gpus = A.gpu_list("gpus", gpus, 64, hi=63)
        if isinstance(policy, Policy):
            policy = policy._struct
        elif policy is not None and not isinstance(policy, S.Policy):
            policy = self.policy(policy)._struct
        keep = [_b(checks, "checks"), _b(topology_xml, "topology_xml"),
                _b(",".join(str(g) for g in gpus)) if gpus is not None else None]
        opts = S.RunOpts(checks=keep[0], gemm_size=gemm_size, copy_bytes=copy_bytes,
                         topology_xml=keep[1], nccl_bytes=nccl_bytes, level=LEVELS[level],
                         budget_s=budget_s, gpus=keep[2],
                         policy=C.pointer(policy) if policy is not None else None,
                         isolation=ISOLATIONS[isolation], duration_s=duration_s,
                         watch_s=watch_s)
        if progress is not None:
            opts.on_event = keep_fn = S.RUN_EVENT_FN(_progress_adapter(progress))
            keep.append(keep_fn)
        rep = C.c_void_p()
        self._check(self._lib.gv_run(self._ctx, C.byref(opts), C.byref(rep)), "Context.run")
        try:
            return self._report(rep)
        finally:
            self._lib.gv_report_free(rep)

    @_serialized
    def read_report(self, document: Union[str, Dict[str, Any]]) -> Report:
        """A Report from its JSON (a str or the dict of Report.document()): another process's
        or node's, e.g. one line of ``srun gv-check --json``. ParseError names what does not
        fit its schema version."""
        if not isinstance(document, str):
            document = json.dumps(document)
        rep = C.c_void_p()
        self._check(self._lib.gv_report_from_json(self._ctx, document.encode(), C.byref(rep)),
                    "Context.read_report")
        try:
            return self._report(rep)
        finally:
            self._lib.gv_report_free(rep)

    @_serialized
    def history(self, path: Optional[str] = None, subject: Optional[str] = None,
                checks: Optional[str] = None, since_unix: int = 0,
                last: int = 0, node: Optional[str] = None) -> Dict[str, Any]:
        """The history database at path (default: the context's state_path; "default" as for
        gv-check) as a dict (docs/history.md): {"database", "runs": [...]},
        runs newest first with their GPUs and rows, filtered by subject, checks (as gv-check's:
        IDs or prefixes, comma-separated, ^ID leaving one out; a run without a row selected is
        left out), since_unix, node (a host name) and the last N runs that match.

        subject, as gv-history's --gpu: a GPU's UUID ("GPU-..."), followed in whatever slot or
        node it ran; "gpuN", the GPU in slot N of the newest run (of node, when given),
        followed by its UUID; or "host/subject". Without subject, node selects the node's runs.
        The file is only read. NotFoundError when there is none, or no GPU "gpuN" in the
        newest run; IOFailureError when it is not a gpuverify history or cannot be read."""
        path = _default_state() if path == "default" else path or self.state_path
        if not path:
            raise InvalidArgumentError("Context.history: no path, and the context has no "
                                       "state_path")
        since_unix = A.whole("since_unix", since_unix, 0, 2**63 - 1, zero=True)
        last = A.whole("last", last, 0, 2**32 - 1, zero=True)
        subject = _subject_text(subject)
        checks = _checks_text("Context.history", checks)
        if subject is not None and _SLOT.match(subject):
            subject = self._follow_slot(path, subject, node)
        # The library selects one subject: with a GPU and a node both, the node's runs and
        # the last N are taken here afterwards (as gv-history does).
        both = subject is not None and node is not None
        doc = self._history(path, subject if subject is not None else node, checks, since_unix,
                            0 if both else last)
        if both:
            doc["runs"] = [r for r in doc["runs"] if r.get("hostname") == node]
            if last:
                del doc["runs"][last:]
        return doc

    def _follow_slot(self, path: str, slot: str, node: Optional[str]) -> str:
        """gv-history's --gpu gpuN: the UUID of slot N in the newest run (of node), so that the
        GPU is followed across slots and nodes; "<host>/gpuN" for one without a UUID."""
        runs = self._history(path, node, None, 0, 1)["runs"]
        of = " of %s" % node if node else ""
        if not runs:
            raise NotFoundError("Context.history: no run in %s%s: no %s to follow" % (
                path, of, slot))
        run = runs[0]
        for g in run.get("gpus") or []:
            if g.get("subject") == slot:
                return g.get("uuid") or "%s/%s" % (run.get("hostname"), slot)
        raise NotFoundError("Context.history: the newest run in %s (%s, %s) has no %s "
                            "(%d GPU(s))" % (path, run.get("started_at"), run.get("hostname"),
                                             slot, len(run.get("gpus") or [])))

    def _history(self, path: str, subject: Optional[str], checks: Optional[str],
                 since_unix: int, last: int) -> Dict[str, Any]:
        """gv_history_json as a dict."""
        keep = [_b(subject, "subject"), _b(checks, "checks")]
        opts = S.HistoryOpts(subject=keep[0], checks=keep[1], since_unix=since_unix,
                             max_runs=last)
        out = C.c_void_p()
        self._check(self._lib.gv_history_json(self._ctx, _b(path, "path"), C.byref(opts),
                                              C.byref(out)),
                    "Context.history")
        try:
            return json.loads(C.string_at(out.value).decode("utf-8", "replace"))
        finally:
            self._lib.gv_free(out)

    def _render(self, fn, rep) -> str:
        """One of the library's renderings of a report (JSON, Prometheus) as str."""
        out = C.c_void_p()
        st = fn(rep, 0, C.byref(out))
        if st != 0:
            self._raise(st, fn.__name__)
        try:
            return C.string_at(out.value).decode("utf-8", "replace")
        finally:
            self._lib.gv_free(out)

    def _report(self, rep) -> Report:
        """A Report from the library's report handle (freed by the caller)."""
        L = self._lib
        checks = []
        for i in range(L.gv_report_count(rep)):
            c = S.CheckResult()
            self._check(L.gv_report_result(rep, i, C.byref(c)), "Context.run")
            checks.append(CheckResult._from(c))
        doc = self._render(L.gv_report_json, rep)
        parsed = json.loads(doc)
        line = C.create_string_buffer(256)
        outcome = L.gv_report_line(rep, line, len(line))
        if outcome < 0:
            self._raise(outcome, "Context.run")
        return Report(verdict=_verdict(L.gv_report_verdict(rep)), level=parsed.get("level"),
                      duration_s=parsed["duration_s"], checks=checks, json=doc,
                      isolation=parsed.get("isolation") or "",
                      prometheus=self._render(L.gv_report_prometheus, rep),
                      hostname=parsed.get("hostname") or "",
                      started_at=parsed.get("started_at") or "",
                      driver=parsed.get("driver") or {},
                      gpus=[GpuResult(g, checks) for g in parsed.get("gpus") or []],
                      line=line.value.decode("utf-8", "replace"), outcome=outcome,
                      action=_action(parsed.get("action", "none")))

    @_serialized
    def gemm_bench(self, gpu: int = 0, dtype: str = "fp16", size: int = 8192, **opts) -> GemmResult:
        """Matrix-multiply throughput (TFLOPS) of one data type ("fp32", "tf32", "fp16",
        "bf16", "fp8") on one GPU (a CUDA index), size x size x size, the results verified
        against the host; opts: warmup_s, batch_s, batches, algo_candidates, verify_samples,
        warn_fraction, fail_fraction, seed. NotFoundError for a GPU CUDA does not have."""
        if dtype not in DTYPES:
            raise for_status(-1, "dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
        gpu = A.whole("gpu", gpu, 0, A.U32)
        size = A.whole("size", size, 1, 65536)
        opts = A.options("gemm_bench", opts, A.GEMM_OPTS)
        o = S.GemmOpts(dtype=DTYPES[dtype], m=size, n=size, k=size, **opts)
        r = S.GemmResult()
        st = self._lib.gv_gemm_bench(self._ctx, gpu, C.byref(o), C.byref(r))
        return self._finish(st, "Context.gemm_bench", GemmResult(
            _verdict(r.verdict), dtype, r.tflops_median, r.tflops_best, r.peak_tflops,
            r.fraction_of_peak, r.verified == 1, text(r.message), _struct_dict(r)))

    @_serialized
    def cuda_check(self, gpu: int = 0, **opts) -> Outcome:
        """A CUDA context, an allocation test and the host/device copy bandwidths on one GPU
        (a CUDA index); opts: quick_alloc_bytes, alloc_fraction, alloc_bytes, copy_bytes,
        copy_samples, copies_per_sample, flags (1: no allocation test, 2: no copy test). raw
        holds every figure."""
        gpu = A.whole("gpu", gpu, 0, A.U32)
        o = S.CudaOpts(**A.options("cuda_check", opts, A.CUDA_OPTS))
        r = S.CudaResult()
        st = self._lib.gv_cuda_check(self._ctx, gpu, C.byref(o), C.byref(r))
        return self._finish(st, "Context.cuda_check",
                            Outcome(_verdict(r.verdict), text(r.message), _struct_dict(r)))

    @_serialized
    def mem_test(self, gpu: int = 0, **opts) -> Outcome:
        """Most of one GPU's free memory written and read back with gpuverify's own kernels;
        opts: fraction (of the free memory, 0.92), chunk_bytes, rounds, duration_s, seed.
        raw["first_errors"] locates the words that read back wrong (address, offset,
        expected, read, step)."""
        gpu = A.whole("gpu", gpu, 0, A.U32)
        o = S.MemtestOpts(**A.options("mem_test", opts, A.MEMTEST_OPTS))
        r = S.MemtestResult()
        st = self._lib.gv_mem_test(self._ctx, gpu, C.byref(o), C.byref(r))
        details = _struct_dict(r)
        details["first_errors"] = [_struct_dict(r.first_errors[i])
                                   for i in range(r.errors_logged)]
        return self._finish(st, "Context.mem_test",
                            Outcome(_verdict(r.verdict), text(r.message), details))

    @_serialized
    def stress_gemm(self, gpus: Optional[Sequence[int]] = None, dtype: str = "bf16",
                    size: int = 8192, duration_s: float = 120.0, interval_s: float = 0.1,
                    **opts) -> Outcome:
        """The same GEMM on every GPU (or those named) at once for duration_s seconds, every
        result compared with the first and across GPUs; raw["gpus"] has one dict per GPU
        (verdict, agrees, TFLOPS, clocks, power), raw["fingerprints"] each GPU's result
        fingerprint (hash, key, seconds) and raw["series"] the time series sampled every
        interval_s (one dict per GPU and interval)."""
        if dtype not in DTYPES:
            raise for_status(-1, "dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
        gpus = A.gpu_list("gpus", gpus, 16) or []  # GV_STRESS_MAX_GPUS
        size = A.whole("size", size, 16, 32768)
        duration_s = A.real("duration_s", duration_s, 0, 30 * A.DAY, lo_open=True)
        interval_s = A.real("interval_s", interval_s, 0.01, 60)
        opts = A.options("stress_gemm", opts, A.STRESS_OPTS)
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
        raw["fingerprints"] = raw["fingerprints"][:r.gpu_count]
        raw["series"] = [_struct_dict(series[i]) for i in range(r.series_count)]
        return self._finish(st, "Context.stress_gemm",
                            Outcome(_verdict(r.verdict), text(r.message), raw))

    @_serialized
    def cudnn_check(self, gpu: int = 0) -> Outcome:
        """cuDNN on one GPU: a small FP32 and FP16 convolution checked against the host
        (raw: version, fp32_verdict, fp16_verdict, worst errors)."""
        gpu = A.whole("gpu", gpu, 0, A.U32)
        r = S.CudnnResult()
        st = self._lib.gv_cudnn_check(self._ctx, gpu, C.byref(r))
        return self._finish(st, "Context.cudnn_check",
                            Outcome(_verdict(r.verdict), text(r.message), _struct_dict(r)))

    @_serialized
    def nccl_bench(self, gpus: Optional[Sequence[int]] = None, collective: str = "all_reduce",
                   min_bytes: int = 8, max_bytes: int = 1 << 30, in_process: bool = False,
                   in_place: bool = False, **opts) -> NcclResult:
        """One NCCL collective ("all_reduce", "all_gather", ..., "pairs") over local GPUs
        (CUDA indices; all by default), from min_bytes to max_bytes, like nccl-tests, every
        element checked; in gpuverify-worker unless in_process (raw["isolation"] says where it
        ran); in_place times each size in place too (raw["in_place"]); opts: step_factor,
        iters, warmup_iters, deadline_s, min_busbw_gbps, seed. A deadline raises
        DeadlineError carrying the partial result in .result."""
        if collective not in COLLECTIVES:
            raise for_status(-1, "collective %r: one of %s" % (collective, ", ".join(COLLECTIVES)))
        gpus = A.gpu_list("gpus", gpus, S.MAX_NCCL_GPUS)
        min_bytes = A.whole("min_bytes", min_bytes, 4, 64 * A.GIB)
        max_bytes = A.whole("max_bytes", max_bytes, 4, 64 * A.GIB)
        opts = A.options("nccl_bench", opts, A.NCCL_OPTS)
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
        result = NcclResult(_verdict(r.verdict), collective, r.nranks, r.peak_busbw_gbps,
                            r.peak_bytes, r.wrong_elements, text(r.version), text(r.message),
                            [_struct_dict(r.sizes[i]) for i in range(r.size_count)],
                            _struct_dict(r))
        return self._finish(st, "Context.nccl_bench", result)
