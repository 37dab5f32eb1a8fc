# SPDX-License-Identifier: Apache-2.0
"""The peer for gv-nccl: torch.distributed.all_reduce (NCCL backend) timed the way nccl-tests and
gv_nccl_bench time it. Run under torchrun, one process per GPU:

    torchrun --nproc_per_node=N bench/peer_torch_nccl.py MIN MAX FACTOR ITERS

Same sizes (bytes of FP32), one warm-up and one untimed operation per size, then ITERS
operations between two host clock reads and a synchronize; busbw = algbw x 2(n-1)/n. The sum is
checked exactly (every rank contributes small integers). Rank 0 prints one JSON object."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    lo, hi, factor, iters = (int(a) for a in sys.argv[1:5])
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    base = torch.arange(hi // 4, dtype=torch.float32, device="cuda").remainder_(61).sub_(30)
    buf = torch.empty_like(base)
    rows, size = [], lo
    while size <= hi:
        count = size // 4
        x = buf[:count]
        x.copy_(base[:count]).add_(rank)
        dist.all_reduce(x)  # warm-up, and the result checked below
        want = base[:count] * n + n * (n - 1) / 2
        wrong = int((x != want).sum().item())
        dist.all_reduce(x)  # untimed
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        seconds = (time.perf_counter() - t0) / iters
        algbw = size / seconds / 1e9
        rows.append({"bytes": size, "time_us": seconds * 1e6, "algbw_gbps": algbw,
                     "busbw_gbps": algbw * 2 * (n - 1) / n, "wrong": wrong})
        size *= factor
    times = torch.tensor([r["time_us"] for r in rows], device="cuda")
    dist.all_reduce(times)  # nccl-tests reports the mean over ranks
    for r, t in zip(rows, (times / n).tolist()):
        r["time_us"] = t
        r["algbw_gbps"] = r["bytes"] / (t * 1e-6) / 1e9
        r["busbw_gbps"] = r["algbw_gbps"] * 2 * (n - 1) / n
    if rank == 0:
        peak = max(rows, key=lambda r: r["busbw_gbps"])
        print(json.dumps({"peer": "torch.distributed.all_reduce", "torch": torch.__version__,
                          "nccl": ".".join(map(str, torch.cuda.nccl.version())), "nranks": n,
                          "peak_busbw_gbps": peak["busbw_gbps"], "peak_bytes": peak["bytes"],
                          "sizes": rows}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
