#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What cuInit costs when several processes make it at once, as a run's lanes do: per trial,
N processes start cuInit at the same instant and then make their GPU's primary context;
printed: when the last was ready, each one's cuInit and context, and how long their exits
took. Trials: one process alone; four at once; four at once each seeing only its GPU
(CUDA_VISIBLE_DEVICES); and the same after a "holder" process has made its cuInit and context
and keeps them (the node's worker of a run). Three rounds. libcuda through ctypes, nothing else.
Usage: cuinit_concurrency.py [N]   (N: the processes at once, default 4)"""
import ctypes
import multiprocessing as mp
import os
import sys
import time


def one(gpu, own_only, start_at, q, hold_s):
    if own_only:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
    cu = ctypes.CDLL("libcuda.so.1")
    while time.time() < start_at:
        time.sleep(0.0002)
    t0 = time.time()
    assert cu.cuInit(0) == 0
    t1 = time.time()
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cu.cuDeviceGet(ctypes.byref(dev), 0 if own_only else gpu) == 0
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0
    t2 = time.time()
    q.put((gpu, t1 - t0, t2 - t1, t2))
    time.sleep(hold_s)
    os._exit(0)


def trial(name, n, own_only=False, holder=False):
    q = mp.Queue()
    held = None
    if holder:
        held = mp.Process(target=one, args=(0, False, time.time(), q, 30))
        held.start()
        holder_s = q.get()[1]
    start_at = time.time() + 0.3
    procs = [mp.Process(target=one, args=(g, own_only, start_at, q, 0.5)) for g in range(n)]
    for p in procs:
        p.start()
    res = sorted(q.get() for _ in procs)
    last = max(r[3] for r in res)
    for p in procs:
        p.join()
    exits = time.time() - (last + 0.5)
    text = "%-22s ready %.3f s | cuInit %s | context %s | exits %.3f s" % (
        name, last - start_at, " ".join("%.3f" % r[1] for r in res),
        " ".join("%.3f" % r[2] for r in res), exits)
    if held:
        held.kill()
        held.join()
        text += " | the holder's cuInit %.3f s" % holder_s
    print(text, flush=True)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    mp.set_start_method("fork")
    for _ in range(3):
        trial("alone", 1)
        trial("%d at once" % n, n)
        trial("%d at once, own GPU" % n, n, own_only=True)
        trial("holder, then 1", 1, holder=True)
        trial("holder, then %d" % n, n, holder=True)
        trial("holder, then %d own" % n, n, own_only=True, holder=True)


if __name__ == "__main__":
    main()
