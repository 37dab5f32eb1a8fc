# SPDX-License-Identifier: Apache-2.0
"""What the history tests share: each expectation printed as it is checked, and the exit
status from those that failed."""
import sys

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    else:
        print("ok:", what)


def finish():
    """Exits 1 naming how many expectations failed, else 0."""
    if failures:
        print("%d failure(s)" % len(failures))
    sys.exit(1 if failures else 0)
