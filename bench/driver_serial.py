#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What the NVIDIA driver does one process at a time: one process per GPU named, all starting
together (after their own cuInit), each timing its primary context's creation, allocating 90%
of the free memory in CHUNK_GIB chunks, freeing it, and pinning 256 MiB of host memory. Run it
with one GPU, then with several: the figures that grow are the work the lanes of gv_run wait
for each other on. libcuda through ctypes, nothing else.
Usage: driver_serial.py CHUNK_GIB GPU [GPU ...]"""
import ctypes
import multiprocessing
import sys
import time


def one(gpu, chunk_gib, start_at, out):
    cu = ctypes.CDLL("libcuda.so.1")
    t = time.monotonic
    t0 = t()
    assert cu.cuInit(0) == 0
    init_s = t() - t0
    dev = ctypes.c_int()
    assert cu.cuDeviceGet(ctypes.byref(dev), gpu) == 0
    while time.time() < start_at:
        time.sleep(0.0005)
    t0 = t()
    ctx = ctypes.c_void_p()
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0
    ctx_s = t() - t0
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    cu.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total))
    want, chunk, ptrs, got = int(free.value * 0.9), chunk_gib << 30, [], 0
    t0 = t()
    while got < want:
        p, n = ctypes.c_uint64(), min(chunk, want - got)
        if cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)) != 0:
            break
        ptrs.append(p.value)
        got += n
    alloc_s = t() - t0
    t0 = t()
    for p in ptrs:
        cu.cuMemFree_v2(ctypes.c_uint64(p))
    free_s = t() - t0
    host = ctypes.c_void_p()
    t0 = t()
    cu.cuMemHostAlloc(ctypes.byref(host), ctypes.c_size_t(256 << 20), 0)
    pin_s = t() - t0
    cu.cuMemFreeHost(host)
    out.put("gpu%d chunk %d GiB: cuInit %.3f s, context %.3f s, alloc %.3f s (%d chunks), "
            "free %.3f s, pin 256 MiB %.3f s" % (gpu, chunk_gib, init_s, ctx_s, alloc_s,
                                                 len(ptrs), free_s, pin_s))


def main():
    chunk_gib, gpus = int(sys.argv[1]), [int(g) for g in sys.argv[2:]]
    start_at = time.time() + 2.0  # past every process's cuInit
    out = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=one, args=(g, chunk_gib, start_at, out)) for g in gpus]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    while not out.empty():
        print(out.get())


if __name__ == "__main__":
    main()
