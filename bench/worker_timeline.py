#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One run's workers on one clock, from the log bench/worker_events.py wrote: each worker's
start and end, the checks it began, the stages inside them and its waits, in seconds since the
run began (the log's first line), sorted. Rows and heartbeats are left out unless --all.
Usage: worker_timeline.py LOG [--all]"""
import json
import signal
import sys

# Read through head or less: a closed pipe ends the listing, not with a traceback.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

path = sys.argv[1]
everything = "--all" in sys.argv[2:]
lines = [line.rstrip("\n") for line in open(path)]
t0 = float(lines[0].split()[0])
out = []
for line in lines:
    parts = line.split(" ", 2)
    t, pid, rest = float(parts[0]) - t0, parts[1], parts[2] if len(parts) > 2 else ""
    if rest in ("start", "end", "spawn", "exit"):
        out.append((t, pid, rest.upper() if rest in ("spawn", "exit") else rest, ""))
        continue
    try:
        ev = json.loads(rest)
    except ValueError:
        out.append((t, pid, "??", rest[:80]))
        continue
    kind = ev.pop("event", "?")
    if kind in ("row", "beat", "done_part", "watch", "group", "facts") and not everything:
        continue
    if kind == "row":
        r = ev.get("result", {})
        detail = "%s %s %s" % (r.get("id"), r.get("subject"), r.get("verdict"))
    else:
        detail = " ".join("%s=%s" % (k, v) for k, v in ev.items())
    out.append((t, pid, kind, detail[:140]))
for t, pid, kind, detail in sorted(out, key=lambda x: x[0]):
    print("%7.3f %7s %-6s %s" % (t, pid, kind, detail))
