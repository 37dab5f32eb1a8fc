#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Copies what a gpuverify-worker sends its caller (worker/protocol.h: begin, stage, wait,
beat, row, end) from stdin to stdout, and each line to LOG with the wall time it arrived and
the worker's PID (this filter's parent), so that a run's timeline shows inside each check
(NVML, cuInit, the context, NCCL's stages) and when each worker started and ended. The worker
must stay the child of the run's caller (the lanes' busy rule knows the run's other workers
by their parent), so it is exec'ed with its output through this filter; the run's workers get
a clean environment, so GPUVERIFY_WORKER names a bash script that embeds the paths:
    #!/bin/bash
    exec /path/gpuverify-worker "$@" > >(exec python3 /path/bench/worker_events.py LOG)
Usage: worker_events.py LOG"""
import os
import sys
import time

pid = os.getppid()
with open(sys.argv[1], "a") as log:
    log.write("%.4f %d spawn\n" % (time.time(), pid))
    log.flush()
    for line in sys.stdin.buffer:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        log.write("%.4f %d %s" % (time.time(), pid, line.decode(errors="replace")))
    log.write("%.4f %d exit\n" % (time.time(), pid))
