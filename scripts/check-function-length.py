#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails on a function of lib/ longer than the limit (100 lines), naming each with its length.

Usage (Debian's /usr/bin/python3; ctest runs it as the test `function_length`):
    scripts/check-function-length.py [SOURCE_DIR] [--max LINES]

A function that long decides too many things at once: a judge split along its decisions
(checks/rdma.c), a loop whose body is a function of its own, reads as what it does. A function
is counted from the first line of its signature to its closing brace, both included. The tree
is clang-formatted (.clang-format, BreakBeforeBraces: Linux), so a function's body opens with
"{" alone at the start of a line and closes with "}" there; its signature is the lines above
that "{" back to the first one that starts in column 0.

Exit 0 when every function of lib/'s .c, .h and .cu files is within the limit, 1 otherwise."""
import os
import sys

SOURCES = (".c", ".h", ".cu")


def functions(path):
    """(name line, first line number, length) of each function defined in path."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{" and start is None:
            start = i - 1
            while start > 0 and lines[start][:1] in (" ", "\t"):
                start -= 1  # a signature wrapped over several lines
        elif line.startswith("}") and start is not None:
            yield lines[start].strip(), start + 1, i - start + 1
            start = None


def main():
    args = sys.argv[1:]
    limit = 100
    if "--max" in args:
        i = args.index("--max")
        limit = int(args[i + 1])
        del args[i:i + 2]
    source = os.path.abspath(args[0] if args else
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    long_ones, count, longest = [], 0, 0
    for root, _, files in sorted(os.walk(os.path.join(source, "lib"))):
        for name in sorted(files):
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(root, name)
            for signature, line, length in functions(path):
                count += 1
                longest = max(longest, length)
                if length > limit:
                    long_ones.append("%s:%d: %d lines (at most %d): %s" % (
                        os.path.relpath(path, source), line, length, limit, signature))
    for problem in long_ones:
        print(problem)
    if long_ones:
        print("%d function(s) of lib/ over %d lines: split them along their decisions" %
              (len(long_ones), limit))
        return 1
    print("function length: %d functions of lib/, the longest %d lines (at most %d)" %
          (count, longest, limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
