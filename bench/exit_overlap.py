#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a lane's exit costs the test after it on the same GPU: a "lane" process makes the
primary context, holds HOLD_MIB of device memory and a loaded stream's work, says "end" and
exits (the driver tears its context down); a "next" process, CUDA already initialised, makes
its own context on that GPU (retain, set current, a 1 MiB allocation, synchronize) either once
the lane has exited (waitpid: what gv_run does today before the worker across GPUs prepares
the last lane's GPU) or as soon as the lane said "end" (its teardown still running). Prints,
per round and trial: the lane's exit (from its "end" to waitpid), the next context's own time,
and the time from "end" to the next context ready. libcuda through ctypes, no PyTorch.
Usage: exit_overlap.py [ROUNDS] [HOLD_MIB] [GPU]"""
import ctypes
import os
import sys
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
HOLD_MIB = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
GPU = int(sys.argv[3]) if len(sys.argv) > 3 else 0


def cuda():
    cu = ctypes.CDLL("libcuda.so.1")
    assert cu.cuInit(0) == 0
    return cu


def check(rc, what):
    if rc != 0:
        raise SystemExit("%s: CUDA error %d" % (what, rc))


def context(cu):
    dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
    check(cu.cuDeviceGet(ctypes.byref(dev), GPU), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return ptr


def lane(write_fd):
    cu = cuda()
    ptr = context(cu)
    check(cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(HOLD_MIB << 20)), "cuMemAlloc")
    check(cu.cuMemsetD8_v2(ptr, 1, ctypes.c_size_t(HOLD_MIB << 20)), "cuMemsetD8")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    os.write(write_fd, b"end %.6f\n" % time.time())
    os._exit(0)  # the worker's exit: the driver tears the context and the memory down


def next_context(cu):
    t = time.time()
    ptr = context(cu)
    check(cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)), "cuMemAlloc")
    check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
    return t, time.time()


def trial(at_end):
    """One lane and one next context: (the lane's exit, the context's own, end to ready)."""
    r, w = os.pipe()
    go_r, go_w = os.pipe()
    res_r, res_w = os.pipe()
    nxt = os.fork()
    if nxt == 0:  # the next worker: CUDA up first, as the worker across GPUs has it
        os.close(w), os.close(r), os.close(go_w), os.close(res_r)
        cu = cuda()
        os.read(go_r, 1)
        t0, t1 = next_context(cu)
        os.write(res_w, b"%.6f %.6f\n" % (t0, t1))
        os._exit(0)
    os.close(go_r), os.close(res_w)
    pid = os.fork()
    if pid == 0:
        os.close(r)
        lane(w)
    os.close(w)
    end = float(os.read(r, 64).split()[1])
    if at_end:
        os.write(go_w, b"g")
    os.waitpid(pid, 0)
    exited = time.time()
    if not at_end:
        os.write(go_w, b"g")
    t0, t1 = (float(x) for x in os.read(res_r, 64).split())
    os.waitpid(nxt, 0)
    for fd in (r, go_w, res_r):
        os.close(fd)
    return exited - end, t1 - t0, t1 - end


print("lane holds %d MiB on GPU %d; %d rounds" % (HOLD_MIB, GPU, ROUNDS), flush=True)
print("%-6s %-22s %10s %12s %12s" % ("round", "next context", "lane exit", "its context",
                                      "end->ready"), flush=True)
for k in range(ROUNDS):
    for at_end in (False, True):
        ex, own, total = trial(at_end)
        print("%-6d %-22s %9.3fs %11.3fs %11.3fs" % (
            k + 1, "at the lane's end" if at_end else "after its exit", ex, own, total),
            flush=True)
