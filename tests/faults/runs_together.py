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
The standard level leaves out its long per-GPU benchmarks (mem.test, gemm.*, cudnn.*): the
lanes and the tests across GPUs, where the cycle was, stay. The budget is long (600 s): a run
holds its first GPU to its end, so the last of three waits for two whole runs, which under the
sanitizers on a loaded host took 150 s; a run that waits out half of it is the deadlock."""
import json
import os
import subprocess
import sys
import tempfile
import time

RUNS = 3
BUDGET_S = 600
LEVELS = (("quick", []), ("standard", ["--checks", "^mem,^gemm,^cudnn"]))


def main():
    gv_check, fixtures, fakelib = sys.argv[1:4]
    problems = []
    for level, selection in LEVELS:
        locks = tempfile.TemporaryDirectory(prefix="gv-runs-together-")
        env = dict(os.environ, GPUVERIFY_LOCK_DIR=locks.name,
                   GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios", "h100x8.conf"))
        cmd = [gv_check, "--json", "--library-dir", fakelib, "--level", level,
               "--budget", str(BUDGET_S), "--gemm-size", "32", "--copy-mib", "1",
               "--nccl-kib", "64", "--sysroot",
               os.path.join(fixtures, "sysroots", "h100-open")] + selection
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
        locks.cleanup()
    for line in problems:
        print("PROBLEM: " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
