#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cuda.copy_all's peer: every GPU copying to and from pinned host memory at the same time, one
process per GPU (no interpreter lock between them) through PyTorch. Each process pins its own
buffer of MiB, waits for the others at a barrier, then takes 5 samples of 16 copies between CUDA
events, host to device, and after a second barrier the same device to host; the median of each.
Prints one JSON object: per GPU and in all.
usage: peer_torch_copy_all.py [MiB]"""
import json
import statistics
import sys

import torch
import torch.multiprocessing as mp

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 256


def rate(copy, nbytes):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rates = []
    for _ in range(5):
        start.record()
        for _ in range(16):
            copy()
        end.record()
        end.synchronize()
        rates.append(nbytes * 16 / (start.elapsed_time(end) * 1e-3) / 1e9)
    return statistics.median(rates)


def worker(gpu, barrier, results):
    torch.cuda.set_device(gpu)
    nbytes = MIB << 20
    host = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
    host.random_(0, 255)
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda:%d" % gpu)
    for _ in range(2):
        dev.copy_(host, non_blocking=True)
        host.copy_(dev, non_blocking=True)
    torch.cuda.synchronize()
    barrier.wait()
    h2d = rate(lambda: dev.copy_(host, non_blocking=True), nbytes)
    barrier.wait()
    d2h = rate(lambda: host.copy_(dev, non_blocking=True), nbytes)
    results[gpu] = (h2d, d2h)


def main():
    n = torch.cuda.device_count()
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(n), ctx.Manager().dict()
    procs = [ctx.Process(target=worker, args=(g, barrier, results)) for g in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    gpus = [{"gpu": g, "h2d": results[g][0], "d2h": results[g][1]} for g in sorted(results)]
    print(json.dumps({"torch": torch.__version__, "gpus": gpus, "mib": MIB,
                      "h2d_total": sum(g["h2d"] for g in gpus),
                      "d2h_total": sum(g["d2h"] for g in gpus)}))


if __name__ == "__main__":
    main()
