#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""history.xid end to end: gv-check --state runs over the fakes on a node whose kernel log
cannot be read (sysroots/h100-open-no-kmsg, up a day). The first run's watch sees Xid 79 on
GPU 5 through NVML's events; the runs after it, whose watches see nothing, recall it from the
history: WARN while the driver reports no recovery action pending, FAIL where it cannot say;
after a reboot (the same node up a minute, the runs before it ten minutes back) and where the log is read there is nothing to
recall.

usage: test_xid_recall.py GV_CHECK FIXTURES FAKELIB WORK_DIR"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

from expectations import expect, finish

GV_CHECK, FIXTURES, FAKELIB, WORK = sys.argv[1:5]
STATE = os.path.join(WORK, "history.db")


def gv_check(scenario, sysroot, *extra):
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios", scenario + ".conf"),
               GPUVERIFY_LOCK_DIR=WORK)
    if not os.path.isabs(sysroot):
        sysroot = os.path.join(FIXTURES, "sysroots", sysroot)
    cmd = [GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", "gpu.xid,gpu.recovery,history",
           "--sysroot", sysroot, "--state", STATE] + list(extra)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout), p.returncode


def row(report, check, subject):
    found = [c for c in report["checks"] if c["id"] == check and c["subject"] == subject]
    return found[0] if len(found) == 1 else None


def expect_row(report, check, subject, verdict, text, action=None):
    r = row(report, check, subject)
    ok = (r is not None and r["verdict"] == verdict and text in r["message"]
          and (action is None or r["action"] == action))
    expect(ok, "%s %s: %s%s with '%s' (got %s)" % (
        check, subject, verdict, " [%s]" % action if action else "", text,
        (r["verdict"], r["action"], r["message"]) if r else None))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# The pass whose watch sees GPU 5 fall off the bus.
report, code = gv_check("h100x8-xid-event", "h100-open-no-kmsg", "--watch", "30")
expect(code == 1, "the pass that saw Xid 79 exits 1, got %d" % code)
expect_row(report, "gpu.xid", "gpu5", "FAIL", "1 Xid fault(s) reported while NVML was watched")
node = row(report, "gpu.xid", "node") or {}
counters = node.get("counters", {})
expect(set(counters) == {"boot_unix", "watched_s"} and counters["watched_s"] > 0,
       "gpu.xid's node row keeps the boot time and the time watched (%s)" % counters)
expect((row(report, "gpu.xid", "gpu5") or {}).get("counters") == {"watched_faults": 1},
       "gpu5's row keeps the fault NVML reported (%s)" % row(report, "gpu.xid", "gpu5"))
expect_row(report, "history.xid", "node", "SKIP", "no earlier run since the node booted")

# The next pass sees nothing itself; the driver reports no recovery action pending (reset).
report, code = gv_check("h100x8", "h100-open-no-kmsg", "--watch", "0.2")
expect(row(report, "gpu.xid", "gpu5") is None, "the next pass's own watch saw nothing on gpu5")
expect_row(report, "history.xid", "gpu5", "WARN",
           "1 Xid fault(s) reported by NVML to 1 earlier run(s) since the node booted", "rerun")
expect_row(report, "history.xid", "gpu5", "WARN", "(codes 79)")
expect_row(report, "history.xid", "gpu0", "PASS", "the 1 earlier run(s) that watched")
expect(code == 0, "a fault the driver says needs nothing now is a WARN: exit 0, got %d" % code)

# A driver that cannot say what the GPU needs (before R550): FAIL, reboot the node.
report, code = gv_check("h100x8-no-recovery-action", "h100-open-no-kmsg")
expect_row(report, "history.xid", "gpu5", "FAIL", "the driver cannot say what it needs",
           "reboot_node")
expect_row(report, "history.xid", "gpu0", "PASS", "the 2 earlier run(s) that watched")
expect(code == 1, "a fault recalled that may still be there FAILs: exit 1, got %d" % code)

# Rebooted since: the runs so far moved ten minutes back, the same node up one minute. Nothing
# of the earlier boot is recalled.
with sqlite3.connect(STATE) as db:
    for table in ("runs", "gpus", "counters"):
        db.execute("UPDATE %s SET started_unix = started_unix - 600" % table)
rebooted = os.path.join(WORK, "rebooted")
shutil.copytree(os.path.join(FIXTURES, "sysroots", "h100-open-no-kmsg"), rebooted, symlinks=True)
with open(os.path.join(rebooted, "proc", "uptime"), "w") as f:
    f.write("60.00 900.00\n")
report, code = gv_check("h100x8-no-recovery-action", rebooted)
expect_row(report, "history.xid", "node", "SKIP", "no earlier run since the node booted")
expect(not any(c["id"] == "history.xid" and c["subject"] != "node" for c in report["checks"]),
       "after the reboot no GPU has a history.xid row")

# Where the log is read, gpu.xid reads every Xid since boot in it.
report, code = gv_check("h100x8", "h100-open")
expect_row(report, "history.xid", "node", "SKIP", "the kernel log was read")

shutil.rmtree(WORK, ignore_errors=True)
finish()
