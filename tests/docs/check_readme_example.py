#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""README.md's gv-check example against the run it shows (ctest: docs_readme_example).

The README shows, shortened, gv-check over the fakes with GPU 3 off the bus (the command is
docs/testing.md's). This runs that command and holds the README to it: its summary lines (the
check and row counts, each verdict's count, the node's verdict) are the run's, word for word,
and each row it shows starts as one of the run's rows. Exit 1 naming what differs.
Usage: check_readme_example.py SOURCE_DIR GV_CHECK FIXTURES FAKELIB"""
import os
import re
import subprocess
import sys
import tempfile

src, gv_check, fixtures, fakelib = sys.argv[1:5]
readme = open(os.path.join(src, "README.md")).read().splitlines()
# The example: the indented block that begins with the table's header line.
start = next(i for i, l in enumerate(readme) if re.match(r"    Verdict Check\s+Subject", l))
block = []
for line in readme[start:]:
    if line and not line.startswith("    "):
        break
    block.append(line[4:])
shown_rows = [l for l in block[1:] if re.match(r"(PASS|WARN|FAIL|SKIP|ERROR)\s", l)]
shown_summary = [l for l in block if re.match(r"\d+ checks in \d+ rows|PASS: \d+", l)]

locks = tempfile.TemporaryDirectory(prefix="gv-readme-")  # removed when the script ends
env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                      "h100x8-gpu-lost.conf"),
           GPUVERIFY_LOCK_DIR=locks.name)
env.pop("COLUMNS", None)  # piped, as the README shows it: no wrapping
run = subprocess.run([gv_check, "--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
                      "--library-dir", fakelib, "--gemm-size", "32", "--copy-mib", "1",
                      "--nccl-kib", "64"], capture_output=True, text=True, env=env, timeout=300)
out = run.stdout.splitlines()
problems = []
if run.returncode != 1:
    problems.append("the example's command exited %d, the README says 1 (FAIL)"
                    % run.returncode)
summary = [l for l in out if re.match(r"\d+ checks in \d+ rows|PASS: \d+", l)]
if len(shown_summary) != 2 or shown_summary != summary:
    problems.append("README's summary %r, the run's %r" % (shown_summary, summary))
for row in shown_rows:
    # The README may shorten a message; what it shows must be how the run's row begins.
    words = row.split()
    if not any(l.split()[:len(words)] == words for l in out if l.strip()):
        problems.append("README's row %r is in no row of the run" % row)
for p in problems:
    print("FAIL: " + p)
print("%d rows and the summary of README.md's example checked, %d problem(s)"
      % (len(shown_rows), len(problems)))
sys.exit(1 if problems else 0)
