#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Another tenant on the GPU: a PyTorch BF16 matmul loop on cuda:0 for SECONDS, holding
GIB GiB of memory, as a job sharing the node would. Usage: peer_load.py SECONDS [GIB]"""
import sys, time
import torch

seconds = float(sys.argv[1])
gib = float(sys.argv[2]) if len(sys.argv) > 2 else 8
dev = torch.device("cuda:0")
held = torch.empty(int(gib * (1 << 30)), dtype=torch.uint8, device=dev)
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
b = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
print("peer_load: started", flush=True)
end = time.time() + seconds
while time.time() < end:
    for _ in range(20):
        a @ b
    torch.cuda.synchronize()
print("peer_load: done", flush=True)
