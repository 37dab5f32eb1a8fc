#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Can a communicator's ranks be created as their GPUs become free, so that only the last
rank's creation follows the last GPU? One process, as gpuverify-worker's tests across GPUs
are: every GPU's primary context made first (libcuda), then one thread per rank calls
ncclCommInitRank, rank k starting DELAY*k seconds after rank 0. Prints, per rank, when it
started and how long its creation took, and how long after the last rank's start every
creation had returned ("tail"), against the same with every rank started at once.
Then, as gpuverify-worker makes them (non-blocking, each rank polled in a thread of its own):
the CPU the process spends while rank 0 waits for the others, and a rank whose peers never
come (of three ranks on two GPUs) aborted, then a fresh communicator over both GPUs.
--rank-alone: the first rank of two on GPU 0, waiting for ever (bench/nccl_rank_beside_gemm.sh).
Usage: nccl_late_rank.py [DELAY_S] [ROUNDS] [LIBNCCL] | --rank-alone"""
import ctypes
import os
import subprocess
import sys
import threading
import time


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


class Config(ctypes.Structure):  # ncclConfig_t's head as NCCL 2.17 laid it out
    _fields_ = [("size", ctypes.c_size_t), ("magic", ctypes.c_uint), ("version", ctypes.c_uint),
                ("blocking", ctypes.c_int), ("cga", ctypes.c_int), ("min_ctas", ctypes.c_int),
                ("max_ctas", ctypes.c_int), ("net_name", ctypes.c_char_p),
                ("split_share", ctypes.c_int)]


def open_gpus(lib, count=None):
    """libcuda and NCCL loaded, cuInit, and every GPU's primary context (the first `count`)."""
    cu, nccl = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL(lib)
    assert cu.cuInit(0) == 0
    n = ctypes.c_int()
    cu.cuDeviceGetCount(ctypes.byref(n))
    ctxs = []
    for d in range(count or n.value):
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        cu.cuDeviceGet(ctypes.byref(dev), d)
        assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
        ctxs.append(ctx)
    return cu, nccl, ctxs


def nonblocking():
    undef = -2147483648
    return Config(ctypes.sizeof(Config), 0xcafebeef, 21700, 0, undef, undef, undef, None, undef)


def stale(lib):
    """Rank 0 of 3 made non-blocking and polled in its thread; 1.0 s later it is told to give up
    and aborts itself; then ncclCommInitAll over both GPUs."""
    cu, nccl, ctxs = open_gpus(lib, 2)
    uid = UniqueId()
    assert nccl.ncclGetUniqueId(ctypes.byref(uid)) == 0
    give_up = threading.Event()
    out = {}

    def rank0():
        cu.cuCtxSetCurrent(ctxs[0])
        comm, cfg = ctypes.c_void_p(), nonblocking()
        out["init rc"] = nccl.ncclCommInitRankConfig(ctypes.byref(comm), 3, uid, 0,
                                                     ctypes.byref(cfg))
        state = ctypes.c_int(7)
        while state.value == 7:
            nccl.ncclCommGetAsyncError(comm, ctypes.byref(state))
            if give_up.is_set():
                t = time.monotonic()
                out["abort rc"] = nccl.ncclCommAbort(comm)
                out["abort s"] = round(time.monotonic() - t, 3)
                break
            time.sleep(0.001)
        out["state"] = state.value

    th = threading.Thread(target=rank0)
    c0 = os.times()
    th.start()
    time.sleep(1.0)
    c1 = os.times()
    out["CPU s while waiting 1.0 s"] = round(c1.user + c1.system - c0.user - c0.system, 3)
    give_up.set()
    th.join()
    comms = (ctypes.c_void_p * 2)()
    devs = (ctypes.c_int * 2)(0, 1)
    t = time.monotonic()
    out["fresh ncclCommInitAll rc"] = nccl.ncclCommInitAll(comms, 2, devs)
    out["fresh s"] = round(time.monotonic() - t, 3)
    print("  ", out, flush=True)
    os._exit(0)


def child(delay, lib):
    cu, nccl, ctxs = open_gpus(lib)
    n = len(ctxs)
    uid = UniqueId()
    assert nccl.ncclGetUniqueId(ctypes.byref(uid)) == 0
    comms = [ctypes.c_void_p() for _ in range(n)]
    start, took, rcs = [0.0] * n, [0.0] * n, [None] * n
    t0 = time.monotonic()

    def rank(r):
        time.sleep(delay * r)
        cu.cuCtxSetCurrent(ctxs[r])
        start[r] = time.monotonic() - t0
        rcs[r] = nccl.ncclCommInitRank(ctypes.byref(comms[r]), n, uid, r)
        took[r] = time.monotonic() - t0 - start[r]

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = max(start[r] + took[r] for r in range(n))
    for r in range(n):
        print("  rank %d: started %.3f s, creation %.3f s, rc %s" % (r, start[r], took[r], rcs[r]))
    print("  tail (every creation returned, after the last rank started): %.3f s" %
          (done - start[n - 1]), flush=True)
    os._exit(0)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--rank-alone":
        cu, nccl, ctxs = open_gpus("libnccl.so.2", 1)
        cu.cuCtxSetCurrent(ctxs[0])
        uid, comm = UniqueId(), ctypes.c_void_p()
        nccl.ncclGetUniqueId(ctypes.byref(uid))
        nccl.ncclCommInitRank(ctypes.byref(comm), 2, uid, 0)
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--stale":
        stale(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(float(sys.argv[2]), sys.argv[3])
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    lib = sys.argv[3] if len(sys.argv) > 3 else "libnccl.so.2"
    for rnd in range(rounds):
        for d in (0.0, delay):
            print("== round %d, rank k starts %.1f s after rank k-1" % (rnd + 1, d), flush=True)
            r = subprocess.run([sys.executable, __file__, "--child", str(d), lib],
                               capture_output=True, text=True)
            print(r.stdout + r.stderr[-400:], end="", flush=True)
    for rnd in range(2):
        print("== a rank whose peers never come, aborted; then a fresh communicator", flush=True)
        r = subprocess.run([sys.executable, __file__, "--stale", lib], capture_output=True, text=True,
                           timeout=60)
        print(r.stdout + r.stderr[-400:], end="", flush=True)


if __name__ == "__main__":
    main()
