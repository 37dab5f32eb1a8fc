#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The history database end to end through gv-check --state over the fakes: a database that
cannot be used (corrupt, another program's SQLite file, locked by another writer for longer
than the policy's wait, read-only, full) gives an ERROR row naming it and a report otherwise
complete; without --state the report is the same as before history existed; 100 runs from 4
processes at once lose no row.

usage: test_history_db.py GV_CHECK FIXTURES FAKELIB WORK_DIR"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time

from expectations import expect, finish

GV_CHECK, FIXTURES, FAKELIB, WORK = sys.argv[1:5]
CHECKS = "system,driver,gpu"


def gv_check(state=None, policy=None, extra=()):
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios", "h100x8.conf"))
    checks = CHECKS + (",history" if state else "")
    cmd = [GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", checks,
           "--sysroot", os.path.join(FIXTURES, "sysroots", "h100-open")] + list(extra)
    if state:
        cmd += ["--state", state]
    if policy:
        path = os.path.join(WORK, "policy.conf")
        open(path, "w").write(policy)
        cmd += ["--policy", path]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout), p.returncode, time.monotonic() - t0


def others(report):
    return [(c["id"], c["subject"], c["verdict"]) for c in report["checks"]
            if not c["id"].startswith("history.")]


def history_rows(report):
    return [c for c in report["checks"] if c["id"].startswith("history.")]


def unusable(name, path, words, policy=None, wait_bound=None):
    """The run with an unusable database: one ERROR row per history check naming the file and
    SQLite's words, the other rows as a stateless run's."""
    report, code, wall = gv_check(state=path, policy=policy)
    rows = history_rows(report)
    expect(rows and all(r["verdict"] == "ERROR" and path in r["message"] and words in r["message"]
                        and r["action"] == "fix_config" for r in rows),
           "%s: every history row an ERROR naming %s and '%s' (%s)" %
           (name, path, words, [r["message"] for r in rows]))
    expect(others(report) == others(STATELESS), "%s: the other rows as a stateless run's" % name)
    expect(code == 3, "%s: gv-check exits 3 (not judged), got %d" % (name, code))
    if wait_bound:
        expect(wall < wait_bound, "%s: returned in %.1f s (bound %.1f s)" % (name, wall,
                                                                              wait_bound))


def count_runs(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM runs").fetchone()[0], \
            db.execute("SELECT count(DISTINCT run_id) FROM results").fetchone()[0]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
STATELESS, code, _ = gv_check()
expect(not history_rows(STATELESS) and code == 0,
       "without --state: no history row, exit 0 (stateless as before)")

# A named history check without a database says why it did not run.
report, _, _ = gv_check(extra=["--checks", "history.record"])
rows = history_rows(report)
expect(len(rows) == 1 and rows[0]["verdict"] == "SKIP" and "state_path" in rows[0]["message"],
       "history.record named without --state: SKIP naming state_path")

good = os.path.join(WORK, "good.db")
for i in range(6):
    report, code, _ = gv_check(state=good)
expect(code == 0 and others(report) == others(STATELESS), "with --state: the other rows unchanged")
record = [r for r in history_rows(report) if r["id"] == "history.record"]
expect(record and all(r["verdict"] == "PASS" and "0 of 6 runs" in r["message"] for r in record),
       "six healthy runs: history.record PASS, 0 of 6 runs")
expect(count_runs(good) == (6, 6), "six runs recorded, each with its rows")

# A selection without history.* still records the run: the record is of every run.
env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios", "h100x8.conf"))
p = subprocess.run([GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", "system,driver",
                    "--sysroot", os.path.join(FIXTURES, "sysroots", "h100-open"), "--state", good],
                   env=env, capture_output=True, text=True, timeout=120)
expect(p.returncode == 0 and not history_rows(json.loads(p.stdout)) and count_runs(good)[0] == 7,
       "--checks system,driver with --state: no history row, the run recorded (7 runs)")

corrupt = os.path.join(WORK, "corrupt.db")
shutil.copy(good, corrupt)
with open(corrupt, "r+b") as f:
    f.seek(0)
    f.write(b"this is no database header" * 8)
unusable("corrupt", corrupt, "file is not a database")

# Bytes flipped inside the file, its header intact: the runs index's page says it holds 4 of
# its cells. SQLite reads on and history.record would count "4 earlier runs"; the day's
# integrity check (quick_check) refuses the file instead, and gv-history refuses it every time.
flipped = os.path.join(WORK, "flipped.db")
shutil.copy(good, flipped)
for suffix in ("-wal", "-shm"):
    if os.path.exists(good + suffix):
        shutil.copy(good + suffix, flipped + suffix)
with sqlite3.connect(flipped, isolation_level=None) as db:
    db.execute("UPDATE upkeep SET done_unix = done_unix - 86400")  # a day later
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs_by_host'").fetchone()[0]
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
with open(flipped, "r+b") as f:
    f.seek((root - 1) * page_size + 3)  # the page's cell count
    f.write((4).to_bytes(2, "big"))
unusable("flipped bytes", flipped, "damaged (SQLite's quick_check: ")
p = subprocess.run([os.path.join(os.path.dirname(GV_CHECK), "gv-history"), "--state", flipped],
                   capture_output=True, text=True, timeout=60)
expect(p.returncode == 2 and "damaged (SQLite's quick_check: " in p.stderr,
       "gv-history refuses the damaged file (exit %d: %s)" % (p.returncode, p.stderr.strip()))

foreign = os.path.join(WORK, "foreign.db")
with sqlite3.connect(foreign) as db:
    db.execute("CREATE TABLE notes(text)")
unusable("another program's SQLite file", foreign, "not a gpuverify history database")
with sqlite3.connect(foreign) as db:
    mode = db.execute("PRAGMA journal_mode").fetchone()[0]
expect(mode == "delete" and not os.path.exists(foreign + "-wal"),
       "another program's SQLite file left as it was (journal mode %s, no -wal beside it)" % mode)

# Locked: another writer holds the database for longer than the policy's wait (1 s). Its
# write-ahead log lets the run read the record and judge by it; one ERROR row says the run was
# not recorded.
locked = os.path.join(WORK, "locked.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(good + suffix):
        shutil.copy(good + suffix, locked + suffix)
holder = sqlite3.connect(locked, isolation_level=None)
holder.execute("BEGIN EXCLUSIVE")
report, code, wall = gv_check(state=locked, policy="history_wait_s = 1\n")
errors = [r for r in history_rows(report) if r["verdict"] == "ERROR"]
expect(code == 3 and wall < 10 and len(errors) == 1 and locked in errors[0]["message"] and
       "database is locked; this run is not recorded" in errors[0]["message"] and
       any(r["verdict"] == "PASS" for r in history_rows(report)) and
       others(report) == others(STATELESS),
       "locked by another writer: judged by the record it read, one ERROR: not recorded "
       "(exit %d, %.1f s, %s)" % (code, wall, [r["message"] for r in errors]))
# The budget bounds the history step too: the policy's wait (10 s by default) gives way to what
# the budget has left, so the run returns within its budget + 1 s.
# What the process spends outside gv_run (start, JSON out) is the host's, measured beside it.
_, _, bare_wall = gv_check()
report, code, wall = gv_check(state=locked, extra=["--budget", "3"])
outside = max(0.0, bare_wall - STATELESS.get("duration_s", bare_wall))
rows = history_rows(report)
expect(code == 3 and wall < 4.0 + outside and
       any("database is locked" in r["message"] and r["verdict"] == "ERROR" for r in rows),
       "locked, --budget 3: returned in %.1f s (bound 4 s + %.1f s outside the run), exit %d, "
       "the lock named" % (wall, outside, code))
holder.execute("ROLLBACK")
holder.close()

# --state with --checks that leave every history.* check out: the run is recorded, and the
# user hears that nothing judged it against its history.
quiet_db = os.path.join(WORK, "unjudged.db")
p = subprocess.run([GV_CHECK, "--library-dir", FAKELIB, "--checks", CHECKS, "--sysroot",
                    os.path.join(FIXTURES, "sysroots", "h100-open"), "--state", quiet_db],
                   env=dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios",
                                                                      "h100x8.conf")),
                   capture_output=True, text=True, timeout=120)
recorded = count_runs(quiet_db)[0] if os.path.exists(quiet_db) else 0
expect(p.returncode == 0 and "selects no history.* check: nothing judged it" in p.stderr
       and recorded == 1,
       "--state without history.*: exit %d, recorded %d run(s), stderr %r"
       % (p.returncode, recorded, p.stderr[-300:]))

# An idle reader (an open sqlite3 shell) keeps the write-ahead log from being folded into the
# file: a run waits a moment for it, not its whole busy timeout (10 s), and the node's
# history.record says the log grows and why, once it is past 1 MB.
idle = os.path.join(WORK, "idle.db")
gv_check(state=idle)
reader = sqlite3.connect(idle, isolation_level=None)
reader.execute("BEGIN")
reader.execute("SELECT count(*) FROM runs").fetchone()
said, slowest = None, 0.0
for _ in range(20):
    report, code, wall = gv_check(state=idle)
    slowest = max(slowest, wall)
    said = [r for r in history_rows(report) if "write-ahead log" in r["message"]]
    if said:
        break
expect(said and said[0]["id"] == "history.record" and said[0]["subject"] == "node" and
       said[0]["verdict"] == "WARN" and said[0]["action"] == "fix_config" and
       "keeps a read open on " + idle in said[0]["message"] and slowest < 5 + bare_wall,
       "an idle reader: the growing log said on history.record node (%r), the slowest run %.1f s"
       % (said and said[0]["message"], slowest))
reader.execute("ROLLBACK")
reader.close()

# A link planted at the path (as another user could in a shared folder): refused, its target
# untouched; a FIFO: refused at once, not an open() that blocks for ever; a file anyone may
# write: refused.
target = os.path.join(WORK, "nologin")
open(target, "w").close()
link = os.path.join(WORK, "link.db")
os.symlink(target, link)
unusable("a symbolic link", link, "is a symbolic link", wait_bound=20)
expect(os.path.getsize(target) == 0 and not os.path.exists(target + "-wal"),
       "the link's target left as it was (empty, no -wal)")
fifo = os.path.join(WORK, "fifo.db")
os.mkfifo(fifo)
unusable("a FIFO", fifo, "is a FIFO", wait_bound=20)
wide = os.path.join(WORK, "wide.db")
shutil.copy(good, wide)
os.chmod(wide, 0o666)
unusable("writable by everyone", wide, "anyone may write it")
p = subprocess.run([os.path.join(os.path.dirname(GV_CHECK), "gv-history"), "--state", fifo],
                   capture_output=True, text=True, timeout=20)
expect(p.returncode != 0 and "is a FIFO" in p.stderr,
       "gv-history --state FIFO: refused at once (exit %d: %s)" % (p.returncode, p.stderr.strip()))
report, code, wall = gv_check(state=good, policy="history_wait_s = 2200000\n")
expect(code == 0 and not [r for r in history_rows(report) if r["verdict"] == "ERROR"],
       "history_wait_s = 2200000: the wait does not wrap into none (exit %d)" % code)

# Read-only and full need a file system of their own: a tmpfs, as root.
if os.geteuid() == 0 and shutil.which("mount"):
    mnt = os.path.join(WORK, "mnt")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt]).returncode == 0:
        try:
            ro = os.path.join(mnt, "ro.db")
            gv_check(state=ro)
            subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
            # Read-only: judged from the record it holds, the run not recorded: one ERROR row.
            report, code, _ = gv_check(state=ro)
            rows = [r for r in history_rows(report) if r["verdict"] == "ERROR"]
            expect(len(rows) == 1 and ro in rows[0]["message"] and
                   "read-only" in rows[0]["message"] and "not recorded" in rows[0]["message"],
                   "read-only: one ERROR row naming the file, read-only, not recorded (%s)" %
                   [r["message"] for r in history_rows(report)])
            expect(others(report) == others(STATELESS), "read-only: the other rows as a stateless "
                   "run's")
            subprocess.run(["mount", "-o", "remount,rw,size=256k", mnt], check=True)
            full = os.path.join(mnt, "full.db")
            filler = os.path.join(mnt, "filler")
            gv_check(state=full)
            try:  # the rest of the file system
                with open(filler, "wb") as f:
                    while True:
                        f.write(b"\0" * 4096)
                        f.flush()
            except OSError:
                pass
            report, code, _ = gv_check(state=full)
            rows = [r for r in history_rows(report) if r["verdict"] == "ERROR"]
            expect(rows and any(full in r["message"] and "full" in r["message"] for r in rows),
                   "full: an ERROR row naming the file and 'full' (%s)" %
                   [r["message"] for r in history_rows(report)])
            expect(others(report) == others(STATELESS), "full: the other rows as a stateless run's")
        finally:
            subprocess.run(["umount", mnt])
    else:
        print("skip: read-only and full (no tmpfs mount here)")
else:
    print("skip: read-only and full (not root)")

# A new database opened by 8 runs at once, five times: none takes it for another program's (the
# schema's three values read in one snapshot; read one by one they straddled the first run's
# commit under load).
fresh_problems = []
for attempt in range(5):
    fresh = os.path.join(WORK, "fresh-%d.db" % attempt)
    results = []
    starters = [threading.Thread(target=lambda: results.append(gv_check(state=fresh)))
                for _ in range(8)]
    for t in starters:
        t.start()
    for t in starters:
        t.join()
    fresh_problems += [r["message"] for rep, code, _ in results for r in history_rows(rep)
                       if r["verdict"] == "ERROR"]
expect(not fresh_problems, "a new database, 8 runs at once x 5: no ERROR (%s)" % fresh_problems[:2])

# 100 runs from 4 processes at once: none lost, none waiting past the policy's bound.
together = os.path.join(WORK, "together.db")
codes = []


def writer():
    for _ in range(25):
        report, code, _ = gv_check(state=together)
        codes.append((code, [r["message"] for r in history_rows(report)
                             if r["verdict"] == "ERROR"]))


threads = [threading.Thread(target=writer) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
bad = [c for c in codes if c[0] != 0]
expect(not bad, "4 writers x 25 runs: every run exit 0 (%s)" % bad[:3])
expect(count_runs(together) == (100, 100), "4 writers x 25 runs: 100 runs recorded, each with "
       "its rows (%s)" % (count_runs(together),))
with sqlite3.connect(together) as db:
    expect(db.execute("PRAGMA journal_mode").fetchone()[0] == "wal", "the database is in WAL mode")
    expect(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity_check ok")

# A file of schema version 2 (before the FAILs that stand were kept) is brought up to date by
# the next run; a gpu.xid FAIL stands from then on over the runs that do not judge it again
# (history.standing). A run over some GPUs ends none of the others' FAILs.
standing = os.path.join(WORK, "standing.db")


def node_run(checks, sysroot="h100-open", scenario="h100x8", more=()):
    env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(FIXTURES, "scenarios", scenario + ".conf"))
    p = subprocess.run([GV_CHECK, "--json", "--library-dir", FAKELIB, "--checks", checks,
                        "--sysroot", os.path.join(FIXTURES, "sysroots", sysroot),
                        "--state", standing, "--nccl-kib", "64", *more],
                       env=env, capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout), p.returncode


def standing_fails(checks="system,history.standing", more=()):
    report, code = node_run(checks, more=more)
    return {(c["subject"], c["message"].split(" ")[0]) for c in report["checks"]
            if c["id"] == "history.standing" and c["verdict"] == "FAIL"}


node_run("system")
with sqlite3.connect(standing, isolation_level=None) as db:
    db.execute("DROP TABLE standing")
    db.execute("PRAGMA user_version = 2")
node_run("system")
with sqlite3.connect(standing) as db:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    columns = [r[1] for r in db.execute("PRAGMA table_info(standing)")]
expect(version == 4 and "standing" in tables and "gpus" in columns,
       "schema 2 brought to 4 by the next run (version %s, tables %s, standing's columns %s)"
       % (version, sorted(tables), columns))
report, code = node_run("gpu.xid,gpu.recovery", sysroot="h100-xid", scenario="h100x8-xid")
expect(code == 1 and any(c["id"] == "gpu.xid" and c["subject"] == "gpu3" and
                         c["verdict"] == "FAIL" for c in report["checks"]),
       "a run FAILs gpu3's gpu.xid (exit %d)" % code)
report, code = node_run("system,history.standing")
rows = {c["subject"]: c for c in report["checks"] if c["id"] == "history.standing"}
expect(code == 1 and rows.get("gpu3", {}).get("verdict") == "FAIL" and
       "gpu.xid FAILed when last judged here" in rows["gpu3"]["message"] and
       rows["gpu3"]["action"] == "reboot_node",
       "the next run, which does not run gpu.xid, FAILs it standing: %s" % rows.get("gpu3"))

# gpu3 hangs the all-reduce and gpu4 the transports' test: a run over GPUs 0 and 1 PASSes both
# without judging gpu3 or gpu4, whose FAILs stand; one over every GPU ends them.
node_run("nccl", scenario="hang-nccl-gpu3", more=("--deadline", "3"))
fails = standing_fails("nccl,history.standing", more=("--gpus", "0,1"))
expect(fails >= {("gpu3", "nccl.allreduce"), ("gpu4", "nccl.transport")},
       "a run over gpu0 and gpu1 leaves gpu3's and gpu4's FAILs standing: %s" % sorted(fails))
expect(standing_fails() >= {("gpu3", "nccl.allreduce"), ("gpu4", "nccl.transport")},
       "and so does the passive run after it")
node_run("nccl", scenario="hang-nccl-gpu3", more=("--deadline", "3", "--node-name", "moved"))
node_run("nccl")  # the GPUs' FAILs on node "moved" end here: a GPU's record goes with it
fails = standing_fails()
expect(not any(check.startswith("nccl.") for _, check in fails),
       "a run over every GPU ends them, those FAILed on another node too: %s" % sorted(fails))
# Wrong sums over eight GPUs, a FAIL of the node's: a run over two does not end it.
node_run("nccl.allreduce", scenario="h100x8-nccl-wrong-sum")
node_run("nccl.allreduce", more=("--gpus", "0,1"))
expect(("node", "nccl.allreduce") in standing_fails(),
       "wrong sums over eight GPUs stand after a run over two")
node_run("nccl.allreduce")
expect(("node", "nccl.allreduce") not in standing_fails(),
       "and end with a run over all eight")
# The all-reduce hung with no GPU to blame, its worker stopped by the caller: that row of the
# node names the eight GPUs too.
node_run("nccl.allreduce", scenario="h100x8-nccl-host-hang", more=("--deadline", "0.5"))
node_run("nccl.allreduce", more=("--gpus", "0,1"))
expect(("node", "nccl.allreduce") in standing_fails(),
       "an all-reduce over eight GPUs stopped by the caller stands after a run over two")

finish()
