#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where NCCL's communicator creation goes on this node: one process makes every GPU's context
(through PyTorch), then ncclCommInitAll over all of them twice, with NCCL's INIT log on, and
prints NCCL's own "Init timings" (kernels, alloc, bootstrap, topo, graphs, connections) for
each. The first creation in a process loads NCCL's kernels on each GPU; the second finds them.
Runs with the environment as given, then with NCCL_IB_DISABLE=1 and NCCL_CUMEM_ENABLE=0.
Usage: nccl_init_timings.py [LIBNCCL]   (default: libnccl.so.2 as ldconfig finds it)"""
import ctypes
import os
import subprocess
import sys
import time


def child(lib):
    import torch
    n = torch.cuda.device_count()
    t = time.time()
    for d in range(n):
        torch.zeros(1, device=d)
        torch.cuda.synchronize(d)
    print("  contexts on %d GPUs %.3f s" % (n, time.time() - t), flush=True)
    nccl = ctypes.CDLL(lib)
    for k in range(2):
        comms = (ctypes.c_void_p * n)()
        devs = (ctypes.c_int * n)(*range(n))
        t = time.time()
        rc = nccl.ncclCommInitAll(comms, n, devs)
        print("  ncclCommInitAll #%d: rc %d, %.3f s" % (k + 1, rc, time.time() - t), flush=True)
    os._exit(0)


if len(sys.argv) > 2 and sys.argv[1] == "--child":
    child(sys.argv[2])
lib = sys.argv[1] if len(sys.argv) > 1 else "libnccl.so.2"
for label, extra in (("as set", {}), ("NCCL_IB_DISABLE=1", {"NCCL_IB_DISABLE": "1"}),
                     ("NCCL_CUMEM_ENABLE=0", {"NCCL_CUMEM_ENABLE": "0"})):
    env = dict(os.environ, NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT", **extra)
    print("==", label, flush=True)
    r = subprocess.run([sys.executable, __file__, "--child", lib], env=env, capture_output=True,
                       text=True)
    for line in (r.stdout + r.stderr).splitlines():
        # One timings line per creation (rank 0's), and ours.
        if line.startswith("  ") or ("Init timings" in line and " rank 0 " in line):
            print(line[line.find("Init timings"):] if "Init timings" in line else line)
