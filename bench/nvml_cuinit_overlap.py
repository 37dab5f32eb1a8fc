#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Whether NVML's facts and cuInit can overlap in one process, as a run's first worker would
have them: per trial a fresh process (never having loaded either library) gathers NVML's facts
(nvmlInit, then per GPU its handle, name, memory, PCI address, clocks, temperature, power and
ECC mode) and makes cuInit and the device count, either one after the other or cuInit in a
thread begun first. Printed per trial: when both were done, and each part's own time. The
orders alternate; five rounds. libcuda and libnvidia-ml through ctypes, nothing else.
Usage: nvml_cuinit_overlap.py [ROUNDS]"""
import ctypes
import multiprocessing as mp
import sys
import threading
import time


def nvml_facts(out):
    t0 = time.time()
    nv = ctypes.CDLL("libnvidia-ml.so.1")
    assert nv.nvmlInit_v2() == 0
    n = ctypes.c_uint()
    assert nv.nvmlDeviceGetCount_v2(ctypes.byref(n)) == 0
    buf = ctypes.create_string_buffer(96)
    words = (ctypes.c_ulonglong * 3)()
    pci = ctypes.create_string_buffer(256)
    val = ctypes.c_uint()
    for i in range(n.value):
        h = ctypes.c_void_p()
        assert nv.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)) == 0
        nv.nvmlDeviceGetName(h, buf, 96)
        nv.nvmlDeviceGetMemoryInfo(h, words)
        nv.nvmlDeviceGetPciInfo_v3(h, pci)
        nv.nvmlDeviceGetClockInfo(h, 1, ctypes.byref(val))
        nv.nvmlDeviceGetTemperature(h, 0, ctypes.byref(val))
        nv.nvmlDeviceGetPowerUsage(h, ctypes.byref(val))
        nv.nvmlDeviceGetEccMode(h, ctypes.byref(val), ctypes.byref(ctypes.c_uint()))
    out["nvml"] = time.time() - t0


def cuda_init(out):
    t0 = time.time()
    cu = ctypes.CDLL("libcuda.so.1")
    assert cu.cuInit(0) == 0
    n = ctypes.c_int()
    assert cu.cuDeviceGetCount(ctypes.byref(n)) == 0
    out["cuinit"] = time.time() - t0


def one(overlap, q):
    out = {}
    t0 = time.time()
    if overlap:
        th = threading.Thread(target=cuda_init, args=(out,))
        th.start()
        nvml_facts(out)
        th.join()
    else:
        nvml_facts(out)
        cuda_init(out)
    q.put((time.time() - t0, out["nvml"], out["cuinit"]))


def trial(overlap):
    q = mp.Queue()
    p = mp.Process(target=one, args=(overlap, q))
    p.start()
    both, nvml, cuinit = q.get()
    p.join()
    print("%-9s both done %.3f s | NVML's facts %.3f s | cuInit %.3f s" %
          ("overlap" if overlap else "serial", both, nvml, cuinit), flush=True)
    return both


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    mp.set_start_method("fork")
    times = {False: [], True: []}
    for r in range(rounds):
        for overlap in ((False, True) if r % 2 == 0 else (True, False)):
            times[overlap].append(trial(overlap))
    for overlap, xs in times.items():
        xs.sort()
        print("%-9s median %.3f s (%s)" % ("overlap" if overlap else "serial", xs[len(xs) // 2],
                                           " ".join("%.3f" % x for x in xs)))


if __name__ == "__main__":
    main()
