#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One gv_run's timeline through the Python binding's progress events: when the Context was
made, when each check started and each row finished (seconds since this process started, and
the library's own elapsed_s), so that what comes before the first check and what runs one
after another shows. Usage: levels_timeline.py LEVEL GPUS   (GPUS: "0,1,2,3" or "all");
GPUVERIFY_LIBRARY names the library."""
import sys
import time

t0 = time.monotonic()
import gpuverify  # noqa: E402  (timed: the import is part of the start)

level, gpus = sys.argv[1], sys.argv[2]
marks = [(time.monotonic() - t0, "imported gpuverify", "", "")]
seen = set()


def progress(e):
    # Each check's start once per subject: the lanes' GPUs start each check at their own time.
    key = (e["check"], e.get("subject"))
    if e["kind"] == "started" and key in seen:
        return
    seen.add(key)
    marks.append((time.monotonic() - t0, e["kind"], e["check"], "%s %s (lib %.2f s)" % (
        e.get("subject") or "", e.get("verdict") or "", e["elapsed_s"])))


with gpuverify.Context() as ctx:
    marks.append((time.monotonic() - t0, "context made", "", ""))
    kw = {} if gpus == "all" else {"gpus": [int(g) for g in gpus.split(",")]}
    report = ctx.run(level, progress=progress, **kw)
marks.append((time.monotonic() - t0, "run returned", report.verdict.name, ""))
for t, kind, check, extra in marks:
    print("%7.2f  %-18s %-22s %s" % (t, kind, check, extra))
