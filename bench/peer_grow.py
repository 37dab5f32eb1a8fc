#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A tenant whose memory grows and shrinks, as a training job's does (PyTorch's caching
allocator asking the driver for more on a new batch shape, giving it back on empty_cache): it
holds BASE of the GPU's total memory, then grows 1 GiB every 50 ms up to TOP of it, gives the
growth back, and again, for SECONDS. An allocation refused is what kills a job: each one is
counted (the tenant then gives its growth back and goes on). Prints one JSON line at the end.
Usage: peer_grow.py SECONDS [BASE TOP]"""
import json, sys, time
import torch

seconds = float(sys.argv[1])
base_frac = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
top_frac = float(sys.argv[3]) if len(sys.argv) > 3 else 0.8
dev = torch.device("cuda:0")
free, total = torch.cuda.mem_get_info()
base = torch.empty(int(total * base_frac), dtype=torch.uint8, device=dev)
print("peer_grow: ready, holding %.1f GiB of %.1f" % (base.numel() / 2**30, total / 2**30),
      flush=True)
growth, cycles, refused, first_refusal = [], 0, 0, None
t0 = time.time()
while time.time() - t0 < seconds:
    try:
        growth.append(torch.empty(1 << 30, dtype=torch.uint8, device=dev))
    except torch.OutOfMemoryError:
        refused += 1
        if first_refusal is None:
            first_refusal = round(time.time() - t0, 2)
        growth = []
        torch.cuda.empty_cache()
        continue
    if base.numel() + len(growth) * 2**30 >= total * top_frac:
        growth = []
        torch.cuda.empty_cache()
        cycles += 1
    time.sleep(0.05)
print(json.dumps({"seconds": seconds, "total_gib": round(total / 2**30, 1),
                  "base_gib": round(base.numel() / 2**30, 1), "top_frac": top_frac,
                  "cycles": cycles, "refused": refused, "first_refusal_s": first_refusal}),
      flush=True)
