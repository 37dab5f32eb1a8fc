# SPDX-License-Identifier: Apache-2.0
"""gv-history over a database gv-check --state wrote over the fakes: six runs of the healthy
8-GPU node (sysroot h100-open, scenario h100x8), gpu0's fp16 GEMM slowing from 700 to 600
TFLOPS over the first five, then the first two GPUs swapping slots with the slower one at 580.
Asserted: the table, --json, --csv and --chart hold the runs, rows and values the runs had;
--gpu gpuN follows the UUID that slot held in the newest run, across slots; --last, --since,
--node (the host name exactly) and --checks select, 400 runs without --last or --since;
control characters in the database never reach the terminal; nothing matched exits 1; a missing
file, a file that is no database and another program's SQLite file exit 2 naming the file.

usage: test_gv_history.py EXAMPLES_DIR FIXTURES_DIR FAKELIB_DIR
"""
import csv
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

examples, fixtures, fakelib = (os.path.abspath(a) for a in sys.argv[1:4])
gv_check = os.path.join(examples, "gv-check")
gv_history = os.path.join(examples, "gv-history")
failures = []
checked = 0

UUID_A = "GPU-6a3f0e10-1c5e-4b0a-9d2e-5d1e00c0ffee"  # gpu0, then gpu1 in the last run
UUID_B = "GPU-6a3f0e11-1c5e-4b0a-9d2e-5d1e00c0ffef"  # gpu1, then gpu0 in the last run
HOST = "gpu-h100-017"  # the sysroot's /etc/hostname
SLOWING = [700, 690, 660, 640, 600, 580]  # UUID_A's TFLOPS, oldest run first
CHECKS = "system,driver,gpu,gemm.fp16,history"


def expect(cond, what, out=""):
    global checked
    checked += 1
    if not cond:
        failures.append("%s\n    output: %r" % (what, out[:600]))


def scenario(work, n, tflops, swap):
    """h100x8 with UUID_A's GEMM at `tflops`; with swap, gpu0 and gpu1 trade UUIDs (and serials),
    as when two boards are moved between slots."""
    lines = open(os.path.join(fixtures, "scenarios", "h100x8.conf")).read().splitlines()
    gpus = [i for i, line in enumerate(lines) if line.startswith("gpu = ")]
    if swap:
        a, b = lines[gpus[0]], lines[gpus[1]]
        ida = re.search(r"uuid=[^;]+; serial=[^;]+", a).group(0)
        idb = re.search(r"uuid=[^;]+; serial=[^;]+", b).group(0)
        lines[gpus[0]], lines[gpus[1]] = a.replace(ida, idb), b.replace(idb, ida)
    lines = [line + "; gemm_tflops=%d" % tflops if UUID_A in line else line for line in lines]
    path = os.path.join(work, "run%d.conf" % n)
    open(path, "w").write("\n".join(lines) + "\n")
    return path


def history(*args, env=None):
    p = subprocess.run([gv_history] + list(args), capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def near(a, b):
    return abs(a - b) < 0.01 * b


work = tempfile.mkdtemp(prefix="gv-history-test.")
os.environ.setdefault("GPUVERIFY_LOCK_DIR", os.path.join(work, "locks"))
os.makedirs(os.environ["GPUVERIFY_LOCK_DIR"], exist_ok=True)
db = os.path.join(work, "history.db")
for n, tflops in enumerate(SLOWING):
    cmd = [gv_check, "--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
           "--library-dir", fakelib, "--checks", CHECKS, "--gemm-size", "32", "--state", db,
           "--quiet"]
    env = dict(os.environ, GV_FAKE_SCENARIO=scenario(work, n, tflops, n == len(SLOWING) - 1))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    if p.returncode != 0:
        sys.exit("gv-check run %d: exit %d: %s%s" % (n, p.returncode, p.stdout, p.stderr))
RUNS = len(SLOWING)

# --json: gv_history_json's document, every run newest first, every GPU and row.
rc, out, err = history("--state", db, "--json")
doc = json.loads(out) if rc == 0 else {"runs": []}
runs = doc["runs"]
expect(rc == 0 and not err and doc.get("database") == db, "--json: exit %s, database %r"
       % (rc, doc.get("database")), out + err)
expect(len(runs) == RUNS, "--json: %d runs, want %d" % (len(runs), RUNS), out)
expect([r["started_unix"] for r in runs] == sorted((r["started_unix"] for r in runs),
                                                   reverse=True)
       and [r["id"] for r in runs] == sorted((r["id"] for r in runs), reverse=True),
       "--json: runs not newest first", out)
expect(all(r["hostname"] == HOST and r["verdict"] in ("PASS", "WARN") and len(r["gpus"]) == 8
           for r in runs), "--json: each run of %s, healthy, with its 8 GPUs" % HOST, out)
total_rows = sum(len(r["checks"]) for r in runs)
expect(total_rows > 100 * RUNS, "--json: %d rows in %d runs" % (total_rows, RUNS), out)

# --csv: the same rows, one line each, with the header.
rc, out, err = history("--state", db, "--csv")
rows = list(csv.reader(io.StringIO(out)))
expect(rc == 0 and rows and rows[0] == ["started_at", "hostname", "run_verdict", "check",
                                        "subject", "history_subject", "verdict", "action",
                                        "value", "unit", "measured", "message"],
       "--csv: exit %s, header %r" % (rc, rows[:1]), out + err)
expect(len(rows) - 1 == total_rows, "--csv: %d rows, --json %d" % (len(rows) - 1, total_rows))
expect(all(len(r) == 12 for r in rows), "--csv: a line without 12 fields", out)

# The table: a line per run, a line per row.
rc, out, err = history("--state", db)
run_lines = [line for line in out.splitlines() if re.match(r"\d{4}-\d\d-\d\dT", line)]
ROW = re.compile(r"    (PASS|WARN|FAIL|SKIP|ERROR) ")  # a row; its message, if any, below it
row_lines = [line for line in out.splitlines() if ROW.match(line)]
expect(rc == 0 and len(run_lines) == RUNS and len(row_lines) == total_rows,
       "table: exit %s, %d run lines (want %d), %d row lines (want %d)"
       % (rc, len(run_lines), RUNS, len(row_lines), total_rows), out + err)
expect(all(HOST in line and "standard" in line for line in run_lines),
       "table: a run line without its host and level", out)
expect(("%d run(s), %d row(s)" % (RUNS, total_rows)) in out, "table: no count line", out)
rc, out, err = history("--state", db, "--gpu", "gpu1", "--checks", "gemm.fp16")
shown = [line.split()[:4] for line in out.splitlines() if ROW.match(line)]
expect(rc == 0 and [s[3] for s in shown] == [str(t) for t in reversed(SLOWING)]
       and all(s[1] == "gemm.fp16" and s[4:] == [] for s in shown)
       and [s[2] for s in shown] == ["gpu1"] + ["gpu0"] * (RUNS - 1),
       "table --gpu gpu1: want its %d GEMM rows newest first" % RUNS, out + err)

# --gpu gpu1 follows UUID_A, gpu1 in the newest run: its six GEMM figures, wherever it sat.
rc, out, err = history("--state", db, "--gpu", "gpu1", "--checks", "gemm.fp16", "--csv")
rows = list(csv.DictReader(io.StringIO(out)))
expect(rc == 0 and len(rows) == RUNS, "--gpu gpu1 --csv: exit %s, %d rows, want %d"
       % (rc, len(rows), RUNS), out + err)
expect(all(r["history_subject"] == UUID_A and r["check"] == "gemm.fp16" and r["hostname"] == HOST
           and r["unit"] == "TFLOPS" for r in rows), "--gpu gpu1: a row not UUID_A's", out)
expect([r["subject"] for r in rows] == ["gpu1"] + ["gpu0"] * (RUNS - 1),
       "--gpu gpu1: its slots newest first, want gpu1 then gpu0", out)
values = [float(r["value"]) for r in rows]
expect(len(values) == RUNS and all(near(v, t) for v, t in zip(values, reversed(SLOWING))),
       "--gpu gpu1: values %r, want %r" % (values, SLOWING[::-1]), out)
rc2, out2, _ = history("--state", db, "--gpu", UUID_A, "--checks", "gemm.fp16", "--csv")
expect(rc2 == 0 and out2 == out, "--gpu UUID_A differs from --gpu gpu1", out2)
rc, out, err = history("--state", db, "--gpu", "gpu0", "--checks", "gemm.fp16", "--json")
runs = json.loads(out)["runs"] if rc == 0 else []
expect(len(runs) == RUNS and all(len(r["checks"]) == 1 and r["checks"][0]["history_subject"]
                                 == UUID_B and [g["uuid"] for g in r["gpus"]] == [UUID_B]
                                 for r in runs),
       "--gpu gpu0: want UUID_B's %d runs, its one row and GPU each" % RUNS, out + err)
expect(all(near(r["checks"][0]["value"], 700) for r in runs), "--gpu gpu0: not 700 TFLOPS", out)

# --last 2: the newest two, in every output.
rc, out, err = history("--state", db, "--gpu", "gpu1", "--checks", "gemm.fp16", "--last", "2",
                       "--json")
runs = json.loads(out)["runs"] if rc == 0 else []
expect([round(r["checks"][0]["value"]) for r in runs] == SLOWING[:-3:-1],
       "--last 2 --json: want the newest two, %r" % SLOWING[:-3:-1], out + err)
rc, out, err = history("--state", db, "--last", "2")
expect(rc == 0 and len([line for line in out.splitlines()
                        if re.match(r"\d{4}-\d\d-\d\dT", line)]) == 2,
       "--last 2 table: want 2 runs", out + err)
rc, out, err = history("--state", db, "--gpu", "gpu1", "--checks", "gemm.fp16,gpu.temperature",
                       "--last", "2", "--csv")
rows = list(csv.DictReader(io.StringIO(out)))
expect(rc == 0 and len(rows) == 4 and {r["check"] for r in rows} == {"gemm.fp16",
                                                                   "gpu.temperature"},
       "--last 2 with two checks: want 2 runs x 2 rows", out + err)
rc, out, err = history("--state", db, "--checks", "gpu,^gpu.pci,^gpu.xid", "--last", "1",
                       "--json")
ids = {c["id"] for r in json.loads(out)["runs"] for c in r["checks"]} if rc == 0 else set()
expect(ids and all(i.startswith("gpu.") for i in ids) and not {"gpu.pci", "gpu.xid"} & ids,
       "--checks gpu,^gpu.pci,^gpu.xid: rows %r" % sorted(ids), out + err)
# --last counts the runs that have a row selected: the newest two of the GEMM's runs, the
# history.* rows' runs alike.
rc, out, err = history("--state", db, "--checks", "gemm", "--last", "2", "--json")
runs = json.loads(out)["runs"] if rc == 0 else []
expect(len(runs) == 2 and all(r["checks"] and all(c["id"].startswith("gemm.")
                                                  for c in r["checks"]) for r in runs),
       "--checks gemm --last 2: want 2 runs, each with its gemm rows only", out + err)

# --chart: one figure for UUID_A's GEMM, oldest to newest, with its statistics.
for locale, first, last in (("C.UTF-8", "\u2588", "\u2581"), ("C", "@", ".")):
    rc, out, err = history("--state", db, "--gpu", "gpu1", "--checks", "gemm.fp16", "--chart",
                           env={"LC_ALL": locale})
    lines = [line for line in out.splitlines() if line.startswith("gemm.fp16")]
    f = lines[0].split() if len(lines) == 1 else []
    # Check Subject Unit Runs Trend Min Median Max Last vs-median
    expect(rc == 0 and len(f) == 10 and f[1] == "gpu1" and f[2] == "TFLOPS"
           and f[3] == str(RUNS), "--chart (%s): want one gemm.fp16 line of gpu1's %d runs"
           % (locale, RUNS), out + err)
    if len(f) == 10:
        expect(len(f[4]) == RUNS and f[4][0] == first and f[4][-1] == last
               and list(f[4]) == sorted(f[4], key=lambda c: -(".:-=+*#@".find(c)
                                                              if locale == "C" else ord(c))),
               "--chart (%s): trend %r, want %d columns falling from %r to %r"
               % (locale, f[4], RUNS, first, last), out)
        expect([f[5], f[6], f[7], f[8]] == ["580", "650", "700", "580"]
               and f[9] == "-10.8%", "--chart (%s): min/median/max/last %r" % (locale, f[5:]),
               out)
    expect(locale != "C" or out.isascii(), "--chart under LC_ALL=C: not ASCII", out)
rc, out, err = history("--state", db, "--checks", "gemm.fp16", "--chart", env={"LC_ALL": "C"})
subjects = [line.split()[1] for line in out.splitlines() if line.startswith("gemm.fp16")]
# The seven GPUs whose GEMM held steady have no trend to draw: counted, not charted.
expect(rc == 0 and subjects == ["gpu1"] and "7 more did not change over these runs" in out,
       "--chart of every GPU: want gpu1 charted and 7 steady ones counted, got %r" % subjects,
       out + err)

# Selections that match nothing: exit 1, a message, and nothing but the empty document.
for args in (["--node", "no-such-host"], ["--checks", "no.such"], ["--since", "9999-01-01"],
             ["--gpu", "GPU-00000000-0000-0000-0000-000000000000"]):
    rc, out, err = history("--state", db, *args)
    expect(rc == 1 and not out and "no run" in err, "%s: exit %s, want 1 and no output"
           % (" ".join(args), rc), out + err)
# A misspelt check is named, not only an empty answer; one the catalog knows is not.
rc, out, err = history("--state", db, "--checks", "gemm.fp16, ^gemm.fp16,gemm.fp61")
expect(rc == 1 and "'gemm.fp61' in --checks names no check" in err,
       "--checks gemm.fp61: exit %s, want 1 naming the unknown check" % rc, out + err)
rc, out, err = history("--state", db, "--since", "9999-01-01", "--checks", "gemm, ^gpu.pci")
expect(rc == 1 and "names no check" not in err,
       "--checks gemm,^gpu.pci: known checks called unknown", out + err)
rc, out, err = history("--state", db, "--gpu", "gpu8")
expect(rc == 1 and not out and "gpu8" in err, "--gpu gpu8: exit %s, want 1 naming gpu8" % rc,
       out + err)
# ... and with --json or --csv, the empty document or the header, as for any empty selection.
rc, out, err = history("--state", db, "--gpu", "gpu8", "--json")
expect(rc == 1 and out and json.loads(out)["runs"] == [] and "gpu8" in err,
       "--gpu gpu8 --json: exit %s, want 1 and the empty document" % rc, out + err)
rc, out, err = history("--state", db, "--gpu", "gpu8", "--csv")
expect(rc == 1 and out.startswith("started_at,") and len(out.splitlines()) == 1,
       "--gpu gpu8 --csv: exit %s, want 1 and the header alone" % rc, out + err)
# A --gpu that is neither gpuN nor a UUID is a usage error, not an empty selection; so is an
# option where a value should be (it would name a file "--json").
for args in (["--gpu", "3"], ["--gpu", "gpu03"], ["--gpu", "gpu-1"], ["--gpu", "gpu"],
             ["--gpu", "--json"]):
    rc, out, err = history("--state", db, *args)
    expect(rc == 2 and not out and err, "%s: exit %s, want 2 and a message"
           % (" ".join(args), rc), out + err)
rc, out, err = history("--state", "--json")
expect(rc == 2 and "not the option --json" in err,
       "--state --json: exit %s, want 2 (the option is no file name)" % rc, out + err)
rc, out, err = history("--state", db, "--node", HOST, "--since", "2000-01-01", "--since", "30d")
expect(rc == 0 and ("%d run(s)" % RUNS) in out, "--node %s --since 30d: want %d runs"
       % (HOST, RUNS), out + err)

# The database's text reaches a terminal only without its control characters (a host name or
# a message holding an escape sequence); --node is the host name exactly, '_' no wildcard.
def copy_of(name):
    """The database copied whole (its WAL too), through SQLite's backup."""
    path = os.path.join(work, name)
    source, copy = sqlite3.connect(db), sqlite3.connect(path)
    source.backup(copy)
    source.close()
    return path, copy


odd, con = copy_of("odd.db")
newest = con.execute("SELECT max(id) FROM runs").fetchone()[0]
con.execute("UPDATE runs SET hostname = hostname || char(27) || '[31m' WHERE id = ?", (newest,))
con.execute("UPDATE results SET message = char(27) || ']0;owned' || char(7) WHERE run_id = ?",
            (newest,))
con.commit()
for mode in ([], ["--csv"], ["--chart"]):
    rc, out, err = history("--state", odd, *mode)
    shown = rc == 0 and "\x1b" not in out and "\x07" not in out
    expect(shown and (mode == ["--chart"] or "?[31m" in out),
           "%s: a control character reached the terminal" % " ".join(mode or ["table"]), out)
rc, out, err = history("--state", odd, "--json")
expect(rc == 0 and "\x1b" not in out and "\\u001b" in out.lower(), "--json: escapes as JSON", out)
rc, out, err = history("--state", db, "--node", HOST.replace("-", "_"))
expect(rc == 1, "--node %s: exit %s, want 1 (no host of that name)"
       % (HOST.replace("-", "_"), rc), out + err)

# --failures: of the runs selected, only the WARN, FAIL and ERROR rows, and only the runs that
# have one, in every output; a healthy selection exits 1 saying so.
bad, con = copy_of("failures.db")
run_ids = [r[0] for r in con.execute("SELECT id FROM runs ORDER BY id")]
con.execute("UPDATE results SET verdict = 'PASS', message = '' WHERE verdict IN "
            "('WARN', 'FAIL', 'ERROR')")
con.execute("UPDATE results SET verdict = 'FAIL', message = 'lost' WHERE run_id = ? AND "
            "check_id = 'gpu.nvml' AND row_subject = 'gpu3'", (run_ids[-2],))
con.execute("UPDATE results SET verdict = 'WARN', message = 'warm' WHERE run_id = ? AND "
            "check_id = 'gpu.temperature' AND row_subject IN ('gpu0', 'gpu5')", (run_ids[0],))
con.commit()
rc, out, err = history("--state", bad, "--failures")
rows = [line.split()[:3] for line in out.splitlines() if ROW.match(line)]
run_lines = [line for line in out.splitlines() if re.match(r"\d{4}-\d\d-\d\dT", line)]
expect(rc == 0 and len(run_lines) == 2 and rows == [["FAIL", "gpu.nvml", "gpu3"],
                                                     ["WARN", "gpu.temperature", "gpu0"],
                                                     ["WARN", "gpu.temperature", "gpu5"]]
       and "2 run(s), 3 row(s)" in out and "%d more run(s) had none" % (RUNS - 2) in out,
       "--failures: want the two runs with a failure and their 3 rows", out + err)
rc, out, err = history("--state", bad, "--failures", "--csv")
expect(rc == 0 and [r["verdict"] for r in csv.DictReader(io.StringIO(out))]
       == ["FAIL", "WARN", "WARN"], "--failures --csv: want the 3 rows", out + err)
rc, out, err = history("--state", bad, "--failures", "--json")
runs = json.loads(out)["runs"] if rc == 0 else []
expect([[c["verdict"] for c in r["checks"]] for r in runs] == [["FAIL"], ["WARN", "WARN"]],
       "--failures --json: want the 2 runs, their failing rows only", out + err)
# --last first, then --failures: the failures of the newest run alone are none.
rc, out, err = history("--state", bad, "--failures", "--last", "1")
expect(rc == 1 and not out and "no WARN, FAIL or ERROR row in the 1 run(s) selected" in err,
       "--failures --last 1: want exit 1 and a word that the run had none", out + err)
rc, out, err = history("--state", bad, "--failures", "--last", "2", "--checks", "gpu.nvml")
expect(rc == 0 and "1 run(s), 1 row(s)" in out, "--failures --last 2 --checks gpu.nvml",
       out + err)

# The table fits the terminal: with COLUMNS no line is wider (the value and message wrap under
# their columns); piped without it, a row is one line; long check IDs keep the columns.
rc, out, err = history("--state", bad, "--last", "2", env={"COLUMNS": "60"})
expect(rc == 0 and out and max(len(line) for line in out.splitlines()) <= 60,
       "COLUMNS=60: a line of %d columns" % max(len(line) for line in out.splitlines() or [""]),
       out + err)
rc, out, err = history("--state", bad, "--last", "2")
starts = {m.start(1) for m in (re.match(r"    (?:PASS|WARN|FAIL|SKIP|ERROR) +\S+ +\S+ +(\S)", line)
                               for line in out.splitlines()) if m}
expect(rc == 0 and len(starts) == 1, "piped: the values start in one column, not %s"
       % sorted(starts), out)

# Without --last or --since, the newest 400 runs and a word that there are more.
many, con = copy_of("many.db")
cols = [c[1] for c in con.execute("PRAGMA table_info(runs)") if c[1] != "id"]
for _ in range(7):  # 6 runs doubled 7 times: 768
    con.execute("INSERT INTO runs(%s) SELECT %s FROM runs" % (",".join(cols), ",".join(cols)))
con.commit()
rc, out, err = history("--state", many)
expect(rc == 0 and "400 run(s)" in out and "the newest 400 runs shown" in err,
       "768 runs: want the newest 400 and a word on stderr", out[-300:] + err)
rc, out, err = history("--state", many, "--last", "500")
expect(rc == 0 and "500 run(s)" in out and not err, "--last 500: want 500 runs", out[-300:] + err)

# Files that are no history: exit 2 naming them, nothing on stdout.
missing = os.path.join(work, "missing.db")
text = os.path.join(work, "text.db")
open(text, "w").write("not a database\n" * 100)
other = os.path.join(work, "other.db")
sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
for path, why in ((missing, "No such file"), (text, "not a database"),
                  (other, "not a gpuverify history database (another program's SQLite file)")):
    for mode in ([], ["--json"], ["--csv"], ["--chart"]):
        rc, out, err = history("--state", path, *mode)
        # The library's reason alone: "input/output error" would suggest a disk fault.
        expect(rc == 2 and not out and path in err and why in err and "input/output" not in err,
               "%s %s: exit %s, want 2 and a message naming it (%s)"
               % (os.path.basename(path), " ".join(mode), rc, why), out + err)

# --state default: the file gv-check --state default writes (a user's; root's is the system's,
# not for a test to write).
if os.geteuid() != 0:
    env = {"XDG_STATE_HOME": os.path.join(work, "xdg")}
    os.makedirs(os.path.join(work, "xdg", "gpuverify"))
    shutil.copy(db, os.path.join(work, "xdg", "gpuverify", "history.db"))
    rc, out, err = history("--state", "default", "--last", "1", env=env)
    expect(rc == 0 and "1 run(s)" in out, "--state default under $XDG_STATE_HOME", out + err)

# A run of history.* alone through the worker is recorded as any other: the node's name and
# its GPUs (it was "unknown" with none, and gv-history --gpu gpu0 then found no gpu0).
p = subprocess.run([gv_check, "--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
                    "--library-dir", fakelib, "--checks", "history", "--state", db, "--quiet"],
                   capture_output=True, text=True, timeout=300,
                   env=dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                                       "h100x8.conf")))
rc, out, err = history("--state", db, "--last", "1", "--json")
newest = json.loads(out)["runs"][0] if rc == 0 else {}
expect(p.returncode == 0 and newest.get("hostname") == HOST and len(newest.get("gpus", [])) == 8,
       "a run of history.* alone: host %r, %d GPUs; want %s and 8" % (
           newest.get("hostname"), len(newest.get("gpus", [])), HOST), p.stdout + p.stderr + err)
rc, out, err = history("--state", db, "--gpu", "gpu0", "--last", "1")
expect(rc == 0, "--gpu gpu0 after a run of history.* alone: exit %s" % rc, out + err)

for f in failures:
    print("FAIL " + f)
print("%d assertions, %d problem(s)" % (checked, len(failures)))
if not failures:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
