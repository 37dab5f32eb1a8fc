#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NCCL's communicator creation with one rank per process, as a design with NCCL in each GPU's
lane would make it (bench/nccl_init_timings.py makes every GPU's in one process): N processes
(PyTorch, torch.distributed's NCCL), each its GPU's context, then init_process_group and a
first all_reduce of 4 MiB, timed. Run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT to read
NCCL's own "Init timings" per rank (kernels, bootstrap, ...).
Usage: nccl_init_ranks.py N"""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, n, started):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533", RANK=str(rank),
                      WORLD_SIZE=str(n), LOCAL_RANK=str(rank))
    t0 = time.time()
    torch.cuda.set_device(rank)
    torch.zeros(1, device=rank)
    torch.cuda.synchronize()
    t1 = time.time()
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    x = torch.ones(1 << 20, device=rank)
    dist.all_reduce(x)
    torch.cuda.synchronize()
    t2 = time.time()
    print("rank %d: context %.3f s, NCCL init and the first all_reduce %.3f s (done %.3f s after "
          "the start)" % (rank, t1 - t0, t2 - t1, t2 - started), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    n = int(sys.argv[1])
    print("torch", torch.__version__, "NCCL", torch.cuda.nccl.version(), flush=True)
    mp.spawn(rank_main, args=(n, time.time()), nprocs=n)
