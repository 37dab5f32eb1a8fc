#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/checks.md against the catalog (ctest: docs_checks).

For every check ID of the catalog (`gv-check --list`, or lib/checks/checks.def's lines):
  - the "## Catalog" table names it in its IDs column: the ID itself, a family's `prefix.*`,
    or a range `first` ... `last` (the IDs of the catalog between them, in its order);
  - it has a section: a heading `### ...` whose code spans include the ID (one heading may
    name several, `### \\`gemm.fp32\\`, \\`gemm.tf32\\``);
  - the "## Actions" table (its rows `| check | finding: action |`) names it in its first
    column, itself or as `prefix.*`, unless it is in NEVER_WARNS below: every check that can
    WARN or FAIL says there which action each finding gets. Today every check can.
Usage: check_catalog_doc.py SOURCE_DIR [GV_CHECK]"""
import os
import re
import subprocess
import sys

# IDs that never make a WARN or FAIL row (only PASS, SKIP, ERROR): the Actions table need not
# name them. Empty: a check added here says why in a comment.
NEVER_WARNS = set()

SPAN = re.compile(r"`([^`]+)`")


def catalog_ids(src, gv_check):
    if gv_check:
        out = subprocess.run([gv_check, "--list"], capture_output=True, text=True, check=True)
        ids = [l.split()[0] for l in out.stdout.splitlines() if l.strip()]
    else:  # the catalog's lines, in run order (check_ids.txt is in the order IDs were added)
        with open(os.path.join(src, "lib", "checks", "checks.def")) as f:
            ids = re.findall(r'^GV_\w+\(\w+, "([^"]+)"', f.read(), re.M)
    return ids


def section(text, title):
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text, re.M | re.S)
    if not m:
        sys.exit("docs/checks.md: no \"## %s\" section" % title)
    return m.group(1)


def table_rows(body):
    return [l for l in body.splitlines() if l.startswith("|") and not re.match(r"^\|[-|]+\|$", l)]


def covered(i, pattern):
    return pattern == i or (pattern.endswith(".*") and i.startswith(pattern[:-1]))


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    ids = catalog_ids(src, sys.argv[2] if len(sys.argv) > 2 else None)
    with open(os.path.join(src, "docs", "checks.md")) as f:
        doc = f.read()
    errors = []

    # The catalog table: the IDs column (the second), ranges written `a` ... `b`.
    in_catalog = set()
    for row in table_rows(section(doc, "Catalog"))[1:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) < 2:
            continue
        col = cells[1]
        for a, b in re.findall(r"`([^`]+)`\s*\.\.\.\s*`([^`]+)`", col):
            if a in ids and b in ids and ids.index(a) <= ids.index(b):
                in_catalog |= set(ids[ids.index(a):ids.index(b) + 1])
            else:
                errors.append("catalog table: the range `%s` ... `%s` is not one of the "
                              "catalog's, in its order" % (a, b))
        for p in SPAN.findall(col):
            in_catalog |= {i for i in ids if covered(i, p)}

    headings = set()
    for h in re.findall(r"^### (.*)$", doc, re.M):
        headings |= set(SPAN.findall(h))

    actions = set()
    rows = table_rows(section(doc, "Actions"))
    start = [k for k, r in enumerate(rows) if re.match(r"^\|\s*check\s*\|", r)]
    if not start:
        errors.append("Actions: no table with a `| check | finding: action |` header")
    else:
        for row in rows[start[0] + 1:]:
            actions |= set(SPAN.findall(row.strip("|").split("|")[0]))

    for i in ids:
        if i not in in_catalog:
            errors.append("%s: not in the catalog table (## Catalog)" % i)
        if i not in headings:
            errors.append("%s: no ### section names it" % i)
        if i not in NEVER_WARNS and not any(covered(i, p) for p in actions):
            errors.append("%s: not in the Actions table (## Actions, `| check |`)" % i)
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print("docs/checks.md: %d check IDs, each in the catalog table, a section and the Actions "
          "table" % len(ids))


if __name__ == "__main__":
    main()
