#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What NCCL's first rank in a process costs, and which part of it could be paid before a GPU
is free. A fresh process per trial, as gpuverify-worker's tests across GPUs start on standby:
cuInit, then a pause of 1 s (the lanes still testing), then GPU 0's primary context and its
rank (its thread makes the unique ID first, unless it was made during the pause), then DELAY
later GPU 1's context and rank; ranks non-blocking, each polled in its own thread. Printed per
trial: ncclGetUniqueId's time, each rank's creation, and the tail (every rank created, after the
last GPU's context). Variants alternate: "uid in rank" (as the worker does), "uid early" (made
during the pause). Needs two GPUs.
Usage: nccl_first_rank.py [DELAY_S] [ROUNDS] [LIBNCCL]"""
import ctypes
import subprocess
import sys
import threading
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from nccl_late_rank import UniqueId, nonblocking  # noqa: E402


def child(early, delay, lib):
    cu, nccl = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL(lib)
    assert cu.cuInit(0) == 0
    uid, uid_s = UniqueId(), [0.0]

    def make_uid():
        t = time.monotonic()
        assert nccl.ncclGetUniqueId(ctypes.byref(uid)) == 0
        uid_s[0] = time.monotonic() - t

    t_pause = time.monotonic()
    if early:
        make_uid()
    time.sleep(max(0.0, 1.0 - (time.monotonic() - t_pause)))
    t0 = time.monotonic()
    comms = [ctypes.c_void_p() for _ in range(2)]
    made, began, ready = [0.0, 0.0], [0.0, 0.0], threading.Event()

    def rank(r):
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        cu.cuDeviceGet(ctypes.byref(dev), r)
        assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
        cu.cuCtxSetCurrent(ctx)
        began[r] = time.monotonic() - t0
        if r == 0:
            if not early:
                make_uid()
            ready.set()
        ready.wait()
        cfg = nonblocking()
        assert nccl.ncclCommInitRankConfig(ctypes.byref(comms[r]), 2, uid, r,
                                           ctypes.byref(cfg)) in (0, 7)
        state = ctypes.c_int(7)
        while state.value == 7:
            nccl.ncclCommGetAsyncError(comms[r], ctypes.byref(state))
            time.sleep(0.001)
        assert state.value == 0
        made[r] = time.monotonic() - t0

    threads = [threading.Thread(target=rank, args=(0,))]
    threads[0].start()
    time.sleep(delay)
    threads.append(threading.Thread(target=rank, args=(1,)))
    threads[1].start()
    for t in threads:
        t.join()
    print("%-11s uid %.3f s | rank 0 context %.3f, created %.3f | rank 1 context %.3f, created "
          "%.3f | tail %.3f s" % ("uid early" if early else "uid in rank", uid_s[0], began[0],
                                  made[0], began[1], made[1], max(made) - began[1]), flush=True)


if len(sys.argv) > 1 and sys.argv[1] == "--child":
    child(sys.argv[2] == "1", float(sys.argv[3]), sys.argv[4])
    sys.exit(0)
delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.2
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
lib = sys.argv[3] if len(sys.argv) > 3 else "libnccl.so.2"
for rnd in range(rounds):
    for early in ((0, 1) if rnd % 2 == 0 else (1, 0)):
        r = subprocess.run([sys.executable, __file__, "--child", str(early), str(delay), lib],
                           capture_output=True, text=True, timeout=120)
        print(r.stdout + r.stderr[-400:], end="", flush=True)
