#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Time to a verdict flat in the GPU count: the per-GPU tests of 8 GPUs take at most 1.3x
their time on one GPU, each GPU in a worker of its own.

usage: lanes_time.py GV_CHECK FIXTURES FAKELIB
The scenario's kernels each take 100 ms of wall time asleep (h100x8-kernel-wall), so that the
GPUs' time, not the host's CPU, sets how long a test takes. The median of three runs each."""
import json
import os
import statistics
import subprocess
import sys
import time

CHECKS = "cuda.init,cuda.matmul"  # no cuda.alloc: the fake fills its memory on the host
BOUND = 1.3


def run(gv_check, fixtures, fakelib, gpus):
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                         "h100x8-kernel-wall.conf"))
    cmd = [gv_check, "--json", "--library-dir", fakelib, "--checks", CHECKS, "--copy-mib", "1",
           "--gemm-size", "32", "--sysroot", os.path.join(fixtures, "sysroots", "h100-open")]
    if gpus:
        cmd += ["--gpus", gpus]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    wall = time.monotonic() - t0
    rows = json.loads(p.stdout)["checks"]
    bad = [(r["id"], r["subject"], r["verdict"]) for r in rows if r["verdict"] != "PASS"]
    if p.returncode != 0 or bad:
        sys.exit("gpus %s: exit %d, rows not PASS: %s" % (gpus or "all", p.returncode, bad))
    return wall, len(rows)


def main():
    gv_check, fixtures, fakelib = sys.argv[1:4]
    one = [run(gv_check, fixtures, fakelib, "0") for _ in range(3)]
    eight = [run(gv_check, fixtures, fakelib, None) for _ in range(3)]
    if one[0][1] != 2 or eight[0][1] != 16:
        sys.exit("rows: %d on one GPU, %d on eight (want 2 and 16)" % (one[0][1], eight[0][1]))
    t1 = statistics.median(w for w, _ in one)
    t8 = statistics.median(w for w, _ in eight)
    print("one GPU %.2f s, eight GPUs %.2f s: %.2fx (bound %.1fx)" % (t1, t8, t8 / t1, BOUND))
    return 0 if t8 <= BOUND * t1 else 1


if __name__ == "__main__":
    sys.exit(main())
