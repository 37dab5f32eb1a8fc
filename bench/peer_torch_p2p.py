#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's GPU-to-GPU copy beside cuda.p2p (issue 15's P2P bar): for every ordered pair,
tensor.to("cuda:j") of the same size as gv-check's extended level (256 MiB), 2 warm-up copies,
samples of 8 copies between CUDA events on the source GPU, median of 5. Prints one JSON object.
usage: peer_torch_p2p.py [MiB]"""
import json, statistics, sys
import torch

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 256
n = torch.cuda.device_count()
pairs = []
for i in range(n):
    src = torch.empty(MIB << 20, dtype=torch.uint8, device="cuda:%d" % i).random_(0, 255)
    for j in range(n):
        if i == j:
            continue
        dst = torch.empty(MIB << 20, dtype=torch.uint8, device="cuda:%d" % j)
        with torch.cuda.device(i):
            for _ in range(2):
                dst.copy_(src, non_blocking=True)
            torch.cuda.synchronize(i)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            rates = []
            for _ in range(5):
                start.record()
                for _ in range(8):
                    dst.copy_(src, non_blocking=True)
                end.record()
                end.synchronize()
                rates.append((MIB << 20) * 8 / (start.elapsed_time(end) * 1e-3) / 1e9)
        pairs.append({"src": i, "dst": j, "gbps": statistics.median(rates),
                      "can_access_peer": torch.cuda.can_device_access_peer(i, j)})
print(json.dumps({"torch": torch.__version__, "gpus": n, "mib": MIB, "pairs": pairs}))
