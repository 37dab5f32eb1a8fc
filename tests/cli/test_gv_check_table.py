# SPDX-License-Identifier: Apache-2.0
"""gv-check's table over the fakes: the healthy 8-GPU RoCE node (sysroot h100-roce), whose
rdma.* and gpudirect.* rows have the longest check IDs (gpudirect.nic_locality) and subjects
(ib_uverbs), and the node with GPU 3 off the bus (rows with a remediation line).

Asserted: piped and without COLUMNS, one line per row, every message in one column whatever
the IDs' and subjects' lengths (each row is exactly the JSON's verdict, ID, subject, message);
with COLUMNS, and on a terminal of a set size (TIOCGWINSZ) without it, no line wider than the
terminal, and nothing but white space changed; the summary counts the checks and the rows
apart, as the JSON has them, and so does --quiet's OK line.

usage: test_gv_check_table.py EXAMPLES_DIR FIXTURES_DIR FAKELIB_DIR
"""
import json
import os
import re
import subprocess
import sys

from terminal import run_on_terminal

examples, fixtures, fakelib = (os.path.abspath(a) for a in sys.argv[1:4])
gv_check = os.path.join(examples, "gv-check")
failures = []
checked = 0

ROCE = os.path.join(fixtures, "sysroots", "h100-roce")
NODES = {
    "roce": (["--sysroot", ROCE, "--checks", "system,driver,gpu,topo,rdma,gpudirect"],
             {"HWLOC_FSROOT": ROCE,
              "GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", "h100x8-rdma.conf")}),
    "lost": (["--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
              "--checks", "system,driver,gpu"],
             {"GV_FAKE_SCENARIO": os.path.join(fixtures, "scenarios", "h100x8-gpu-lost.conf")}),
}
ROW = re.compile(r"(PASS|WARN|FAIL|SKIP|ERROR) ")


def expect(cond, what, out=""):
    global checked
    checked += 1
    if not cond:
        failures.append("%s\n    output: %r" % (what, out[:800]))


def environment(extra, columns=None):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(extra, NO_COLOR="1")
    if columns:
        env["COLUMNS"] = str(columns)
    return env


def check(node, *args, columns=None):
    argv, extra = NODES[node]
    p = subprocess.run([gv_check, "--library-dir", fakelib] + argv + list(args),
                       capture_output=True, text=True, timeout=120,
                       env=environment(extra, columns))
    return p.returncode, p.stdout, p.stderr


def on_terminal(node, cols):
    """The table written to a pseudo-terminal of `cols` columns, COLUMNS unset."""
    argv, extra = NODES[node]
    return run_on_terminal([gv_check, "--library-dir", fakelib] + argv, environment(extra),
                           cols=cols, stderr_too=False)


def dense(text):
    return "".join(text.split())


for node in NODES:
    rc, out, err = check(node, "--json")
    rows = json.loads(out)["checks"] if out.startswith("{") else []
    expect(rows, "%s --json: exit %s" % (node, rc), out + err)
    checks = len({r["id"] for r in rows})

    # Piped, no COLUMNS: a row per line, the message in the header's column.
    rc, table, err = check(node)
    lines = table.splitlines()
    header = [line for line in lines if line.startswith("Verdict ")]
    col = header[0].find("Message") if header else -1
    shown = [line for line in lines if ROW.match(line)]
    expect(len(shown) == len(rows), "%s piped: %d row lines, the JSON has %d rows"
           % (node, len(shown), len(rows)), table)
    idw = max(len(r["id"]) for r in rows) if rows else 0
    sw = max(max(len(r["subject"]) for r in rows) if rows else 0, len("Subject"))
    expect(col == 8 + idw + 1 + sw + 1, "%s: the message column at %d, want %d (the longest ID "
           "%d, subject %d)" % (node, col, 8 + idw + 1 + sw + 1, idw, sw), "\n".join(header))
    for line, r in zip(shown, rows):
        want = "%-7s %-*s %-*s %s" % (r["verdict"], idw, r["id"], sw, r["subject"], r["message"])
        if line != want:
            expect(False, "%s: a row out of its columns" % node, "%s\nwant\n%s" % (line, want))
            break
    counts = "%d checks in %d rows (a row per check and subject):" % (checks, len(rows))
    expect(counts in lines, "%s: want the line %r" % (node, counts), table[-400:])

    # A terminal's width: no line wider, nothing but white space changed.
    for width in (40, 80, 100):
        rc, wrapped, err = check(node, columns=width)
        widest = max(len(line) for line in wrapped.splitlines())
        expect(widest <= width, "%s COLUMNS=%d: a line of %d columns" % (node, width, widest),
               wrapped)
        expect(dense(wrapped) == dense(table), "%s COLUMNS=%d: not the piped table's text"
               % (node, width), wrapped)
    # Narrower than 40 every word of the header broke over lines: the piped table instead.
    rc, narrow, err = check(node, columns=5)
    expect(narrow == table, "%s COLUMNS=5: not the piped table" % node, narrow[:400])
    rc, tty = on_terminal(node, 72)
    widest = max(len(line) for line in tty.splitlines()) if tty else 0
    expect(tty and widest <= 72, "%s on a terminal of 72 columns: a line of %d" % (node, widest),
           tty)
    expect(dense(tty) == dense(table), "%s on a terminal: not the piped table's text" % node, tty)

    # --failures, piped: the WARN, FAIL and ERROR rows, one line each.
    rc, out, err = check(node, "--failures")
    bad = [r for r in rows if r["verdict"] in ("WARN", "FAIL", "ERROR")]
    expect(len([line for line in out.splitlines() if ROW.match(line)]) == len(bad)
           and counts in out.splitlines(), "%s --failures: want %d rows and the counts"
           % (node, len(bad)), out)

# --quiet: the OK line counts checks and rows apart.
rc, out, err = check("roce", "--json")
rows = json.loads(out)["checks"]
rc, out, err = check("roce", "--quiet")
want = "OK %d checks, %d rows: %d PASS, %d SKIP\n" % (
    len({r["id"] for r in rows}), len(rows), sum(r["verdict"] == "PASS" for r in rows),
    sum(r["verdict"] == "SKIP" for r in rows))
expect(rc == 0 and out == want, "--quiet: want %r" % want, out + err)

for f in failures:
    print("FAIL " + f)
print("%d assertions, %d problem(s)" % (checked, len(failures)))
sys.exit(1 if failures else 0)
