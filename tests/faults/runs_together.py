#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs started together on one node take turns on its GPUs, and each gives its verdict.

usage: runs_together.py GV_CHECK FIXTURES FAKELIB
Three gv-check at the quick level, then three at the standard level, started at once over
the fakes' healthy 8-GPU node, sharing one lock directory (as on a node: a Slurm Prolog, the
health check and a DaemonSet's pass). Each must exit 0 with no row "HELD" by another run.
Before, a worker of each run held some GPUs to its exit, taken out of order as its lanes
finished, while its other lanes waited for GPUs another run held the same way: all three
waited until half their budget and exited 4 (15 s at the quick level, 90 s at the standard).
The budget here is long (300 s) so that a slow or loaded host, where the runs wait for each
other for real, still gives each its turn: a run that waits out half of it is the deadlock."""
import json
import os
import subprocess
import sys
import tempfile
import time

RUNS = 3
BUDGET_S = 300


def main():
    gv_check, fixtures, fakelib = sys.argv[1:4]
    problems = []
    for level in ("quick", "standard"):
        locks = tempfile.mkdtemp(prefix="gv-runs-together-")
        env = dict(os.environ, GPUVERIFY_LOCK_DIR=locks,
                   GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", "h100x8.conf"))
        cmd = [gv_check, "--json", "--library-dir", fakelib, "--level", level,
               "--budget", str(BUDGET_S), "--gemm-size", "32", "--copy-mib", "1",
               "--nccl-kib", "64", "--sysroot", os.path.join(fixtures, "sysroots", "h100-open")]
        started = time.monotonic()
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(RUNS)]
        for k, p in enumerate(procs):
            out, err = p.communicate(timeout=BUDGET_S + 60)
            took = time.monotonic() - started
            try:
                rows = json.loads(out)["checks"]
            except (ValueError, KeyError):
                rows = []
            held = ["%s %s: %s" % (r["id"], r["subject"], r["message"][:160]) for r in rows
                    if r.get("held_by")]
            print("%s run %d: exit %d after %.1f s, %d rows, %d held" % (
                level, k, p.returncode, took, len(rows), len(held)))
            if p.returncode != 0 or held or not rows:
                problems.append("%s run %d: exit %d, %d row(s) held by another run: %s %s" % (
                    level, k, p.returncode, len(held), held[:2], err.strip()[-300:]))
    for line in problems:
        print("PROBLEM: " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
