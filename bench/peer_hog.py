#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Another tenant holding nearly all of a GPU's memory, as TensorFlow does by default (and JAX
75%): PyTorch allocates until refused, then gives back LEAVE MiB, and idles for SECONDS.
Prints what it holds and what cudaMemGetInfo says is free. Usage: peer_hog.py SECONDS LEAVE"""
import sys, time
import torch

seconds, leave = float(sys.argv[1]), int(sys.argv[2])
dev = torch.device("cuda:0")
held = []
for chunk in (1 << 30, 64 << 20, 2 << 20):
    while True:
        try:
            held.append(torch.empty(chunk, dtype=torch.uint8, device=dev))
        except torch.OutOfMemoryError:
            break
given = 0
while held and given < leave << 20:
    given += held.pop().numel()
torch.cuda.empty_cache()
free, total = torch.cuda.mem_get_info()
print("peer_hog: holding %.2f GiB, %.0f MiB free of %.2f GiB" % (
    sum(t.numel() for t in held) / (1 << 30), free / (1 << 20), total / (1 << 30)), flush=True)
time.sleep(seconds)
