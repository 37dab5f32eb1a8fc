# SPDX-License-Identifier: Apache-2.0
"""The caller's arguments checked before they reach ctypes, which would otherwise wrap an int to
its C type without a word (gpu=2**33 is GPU 0, -1 is 4294967295) and keep an unknown keyword as
a Python attribute the library never sees. The ranges are the C library's (include/gpuverify/*.h,
the calls' option checks, gv_run_plan_make); docs/inputs.md lists them.

A value of the wrong type raises TypeError, a number outside its range InvalidArgumentError (a
ValueError, as the library's own refusals) naming the argument and the range, an unknown keyword
TypeError naming the ones the call takes."""
import math
import numbers
from typing import Any, Dict, Iterable, Optional, Tuple

from .errors import InvalidArgumentError

U32 = (1 << 32) - 1
U64 = (1 << 64) - 1
KIB, MIB, GIB, TIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40
DAY = 86400.0

# One option: ("int", lo, hi) or ("float", lo, hi, lo_open); "0 or" ranges are ("int0", lo, hi).
Spec = Tuple[Any, ...]


def whole(name: str, value: Any, lo: int, hi: int, zero: bool = False) -> int:
    """value as an int within [lo, hi] (or 0 when zero is set: "0 = the default")."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s wants a whole number, not %r" % (name, value))
    v = int(value)
    if not (lo <= v <= hi or (zero and v == 0)):
        raise InvalidArgumentError("%s %d: a whole number from %d to %d%s" % (
            name, v, lo, hi, " (or 0 for the default)" if zero else ""))
    return v


def real(name: str, value: Any, lo: float, hi: float, lo_open: bool = False) -> float:
    """value as a finite float within [lo, hi] ((lo, hi] when lo_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s wants a number, not %r" % (name, value))
    v = float(value)
    if not (math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi):
        raise InvalidArgumentError("%s %r: a number from %g%s to %g" % (
            name, value, lo, " (excluded)" if lo_open else "", hi))
    return v


def options(call: str, given: Dict[str, Any], specs: Dict[str, Spec]) -> Dict[str, Any]:
    """The keyword options of `call`, each checked against its spec; TypeError for one the call
    does not take (a typo would otherwise be ignored)."""
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise TypeError("%s() got unexpected keyword argument%s %s (it takes %s)" % (
            call, "s" if len(unknown) > 1 else "", ", ".join(map(repr, unknown)),
            ", ".join(sorted(specs))))
    out = {}
    for name, value in given.items():
        kind, lo, hi, *more = specs[name]
        if kind == "float":
            out[name] = real(name, value, lo, hi, bool(more and more[0]))
        else:
            out[name] = whole(name, value, lo, hi, zero=kind == "int0")
    return out


def gpu_list(name: str, gpus: Optional[Iterable[Any]], most: int, hi: int = U32):
    """CUDA ordinals: at most `most` of them, each 0..hi; None stays None."""
    if gpus is None:
        return None
    if isinstance(gpus, (str, bytes)):
        raise TypeError("%s wants a sequence of CUDA device indices, not %r" % (name, gpus))
    out = [whole("%s[%d]" % (name, i), g, 0, hi) for i, g in enumerate(gpus)]
    if len(out) > most:
        raise InvalidArgumentError("%s: %d GPUs, at most %d" % (name, len(out), most))
    return out


def policy_text(items: Iterable[Tuple[Any, Any]]) -> str:
    """A policy dict as "key = value" lines. Each key and value must be one line of text: a
    newline would start another policy line ({"gpu_count": "8\\nxids = 79"} sets xids), '#'
    would cut the rest as a comment, '=' in a key would move the split."""
    lines = []
    for key, value in items:
        k, v = str(key), str(value)
        for what, text, extra in (("key", k, "=# "), ("value", v, "#")):
            bad = [c for c in text if ord(c) < 0x20 or ord(c) == 0x7f or c in extra]
            if bad or (what == "key" and not text):
                raise InvalidArgumentError("policy %s %r: %s" % (
                    what, text, "empty" if not bad else
                    "%r is not allowed (one line of text, no '#'%s)" % (
                        bad[0], ", '=' or blank" if what == "key" else "")))
        lines.append("%s = %s" % (k, v))
    return "\n".join(lines)


# The C library's ranges of each call's keyword options.
GEMM_OPTS = {"warmup_s": ("float", 0, 600), "batch_s": ("float", 0, 600, True),
             "batches": ("int", 1, 1000), "algo_candidates": ("int", 1, 64),
             "verify_samples": ("int", 0, 4096), "warn_fraction": ("float", 0, 1),
             "fail_fraction": ("float", 0, 1), "seed": ("int", 0, U64)}
CUDA_OPTS = {"flags": ("int", 0, 3), "quick_alloc_bytes": ("int", 8, 64 * TIB),
             "alloc_fraction": ("float", 0, 1), "alloc_bytes": ("int", 0, 64 * TIB),
             "copy_bytes": ("int", 4 * KIB, TIB), "copy_samples": ("int", 1, 64),
             "copies_per_sample": ("int", 1, 1024)}
MEMTEST_OPTS = {"fraction": ("float", 0, 0.99, True), "chunk_bytes": ("int", 2 * MIB, 64 * GIB),
                "rounds": ("int", 1, 100000), "duration_s": ("float", 0, 30 * DAY),
                "seed": ("int", 0, U64)}
STRESS_OPTS = {"seed": ("int", 0, U64)}
NCCL_OPTS = {"step_factor": ("int", 2, 1024), "iters": ("int", 1, 100000),
             "warmup_iters": ("int", 0, 100000), "deadline_s": ("float", 0, DAY),
             "min_busbw_gbps": ("float", 0, 1e6), "seed": ("int", 0, U64)}
