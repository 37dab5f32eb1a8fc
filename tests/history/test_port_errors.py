#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""history.port_errors end to end: two gv-check --state runs over the fakes, the first on a
healthy HGX node's RDMA ports (sysroots/h100-ib, h100-roce), the second on the same node whose
port counters grew (h100-ib-port-errors, h100-roce-flapped). The first run is moved two hours
back in the database between them, as if it had run then, so that the rates per hour are known:
growth / 2 h.

usage: test_port_errors.py GV_CHECK FIXTURES FAKELIB WORK_DIR"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

from expectations import expect, finish

GV_CHECK, FIXTURES, FAKELIB, WORK = sys.argv[1:5]


def gv_check(sysroot, state, policy=None):
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios", "h100x8-rdma.conf"))
    cmd = [GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", "rdma,history",
           "--sysroot", os.path.join(FIXTURES, "sysroots", sysroot), "--state", state]
    if policy:
        path = os.path.join(WORK, "policy.conf")
        open(path, "w").write(policy)
        cmd += ["--policy", path]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout), p.returncode


def rows(report, check):
    return {c["subject"]: c for c in report["checks"] if c["id"] == check}


def two_hours_back(state):
    """The runs recorded so far moved to two hours before now, just before the next run starts:
    the rates then come out of 2 h whatever time the first run took on a loaded host (the
    stamps are whole seconds: 2 h or 2 h and 1 s)."""
    with sqlite3.connect(state) as db:
        last = db.execute("SELECT max(started_unix) FROM runs").fetchone()[0]
        shift = int(time.time()) - 7200 - last
        for table in ("runs", "gpus", "counters"):
            db.execute("UPDATE %s SET started_unix = started_unix + ?" % table, (shift,))


def expect_row(got, subject, verdict, text, action=None):
    row = got.get(subject)
    ok = (row is not None and row["verdict"] == verdict and text in row["message"]
          and (action is None or row["action"] == action)
          and (verdict not in ("WARN", "FAIL") or row["remediation"]))
    expect(ok, "%s: %s%s with '%s' (got %s)" % (
        subject, verdict, " [%s]" % action if action else "", text,
        (row["verdict"], row["action"], row["message"]) if row else None))


def pair(name, before, after, policy=None):
    """The second run's history.port_errors rows, the first's, and the second's exit status."""
    state = os.path.join(WORK, name + ".db")
    first, code = gv_check(before, state, policy)
    expect(code == 0, "%s: the first run over %s exits 0, got %d" % (name, before, code))
    two_hours_back(state)
    second, code = gv_check(after, state, policy)
    return rows(second, "history.port_errors"), rows(first, "history.port_errors"), second, code


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

got, first, report, code = pair("ib", "h100-ib", "h100-ib-port-errors")
expect(len(first) == 8 and all(r["verdict"] == "SKIP" and "no earlier run" in r["message"]
                               for r in first.values()),
       "first run: every port SKIPs, no earlier run (%s)" % [r["message"] for r in first.values()])
expect(code == 1, "second run: exit 1 (a FAIL), got %d" % code)
expect_row(got, "mlx5_0/1", "PASS", "no error counter grew since the last run")
expect_row(got, "mlx5_0/1", "PASS", "2.0 h before")
expect_row(got, "mlx5_1/1", "WARN", "rnr_nak_retry_err +37 (0 -> 37, 18.5/h", "fix_config")
expect_row(got, "mlx5_2/1", "FAIL", "symbol_error +400 (2 -> 402, 200/h; FAIL above 120/h",
           "hw_inspect")
expect(abs(got.get("mlx5_2/1", {}).get("value", 0) - 200) < 0.1 and
       got.get("mlx5_2/1", {}).get("unit") == "symbol errors/h",
       "mlx5_2/1: value 200 symbol errors/h (%s)" % got.get("mlx5_2/1"))
expect_row(got, "mlx5_3/1", "WARN", "symbol_error +10 (0 -> 10, 5/h; WARN above 0/h", "hw_inspect")
expect_row(got, "mlx5_4/1", "WARN", "port_rcv_errors +6 (0 -> 6, 3/h", "hw_inspect")
expect_row(got, "mlx5_4/1", "WARN", "local_link_integrity_errors +2 (0 -> 2, 1/h")
expect_row(got, "mlx5_5/1", "FAIL", "link_downed +1 (0 -> 1, 0.5/h: link went down)", "hw_inspect")
expect_row(got, "mlx5_5/1", "FAIL", "link_error_recovery +3 (0 -> 3, 1.5/h")
expect_row(got, "mlx5_6/1", "PASS", "counted as no growth: link_downed 1 -> 0")
expect_row(got, "mlx5_7/1", "PASS", "no error counter grew")
snapshot = rows(report, "rdma.port_errors")
expect(snapshot.get("mlx5_2/1", {}).get("verdict") == "PASS" and
       snapshot["mlx5_2/1"].get("counters", {}).get("symbol_error") == 402,
       "rdma.port_errors alone PASSes mlx5_2/1 with its counters (symbol_error 402)")

# The site's rates: symbol errors fail above 250/h, warn above 10/h.
got, _, _, code = pair("ib-policy", "h100-ib", "h100-ib-port-errors",
                       policy="history_symbol_error_fail_per_h = 250\n"
                              "history_symbol_error_warn_per_h = 10\n")
expect_row(got, "mlx5_2/1", "WARN", "200/h; WARN above 10/h")
expect_row(got, "mlx5_3/1", "PASS", "5/h; at or below the WARN rate 10/h")

# RoCE: mlx5_4's link flapped, its netdev's carrier went down and up.
got, _, _, code = pair("roce", "h100-roce", "h100-roce-flapped")
expect_row(got, "mlx5_4/1", "FAIL", "link_downed +1 (0 -> 1, 0.5/h", "hw_inspect")
expect_row(got, "mlx5_4/1", "FAIL", "carrier_changes +2 (2 -> 4, 1/h: netdev carrier changes)")
expect_row(got, "mlx5_0/1", "PASS", "no error counter grew")
expect(code == 1, "RoCE flap: exit 1, got %d" % code)

finish()
