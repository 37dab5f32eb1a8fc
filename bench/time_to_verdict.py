#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Wall time and peak RSS of a command, median of N runs, like `/usr/bin/time -v` reports them
(Maximum resident set size = the child's ru_maxrss). Usage: time_to_verdict.py N -- cmd...
Prints one JSON object."""
import json, os, statistics, sys, time

n = int(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]
walls, rss, codes = [], [], []
for _ in range(n):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execvp(cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    walls.append(time.perf_counter() - t0)
    rss.append(usage.ru_maxrss / 1024.0)  # KiB -> MiB
    codes.append(os.waitstatus_to_exitcode(status))
print(json.dumps({"cmd": " ".join(cmd), "runs": n, "wall_s": walls, "rss_mib": rss,
                  "exit": codes, "wall_median_s": statistics.median(walls),
                  "rss_median_mib": statistics.median(rss)}))
