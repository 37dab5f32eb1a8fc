#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/internals/architecture.md and adding-a-check.md against the tree (ctest: docs_internals).

Asserts:
  - architecture.md's layer table lists the folders of lib/LAYERS, each once, in its order;
  - every file or folder the two docs name in a code span exists: `lib/...`, `tests/...`,
    `scripts/...`, `docs/...` from the top of the tree, `run/run.c` (a layer's folder first)
    under lib/, a bare name (`catalog.c`, `facts_*.c`) somewhere under lib/;
  - every `gv_...` function (or type) they name in a code span is in the C sources of lib/ or
    include/ outside comments; the names adding-a-check.md's worked example itself adds (its
    GV_PASSIVE line's gv_check_<name> and gv_id_<name>, the functions its code blocks define)
    are the example's and are not looked for.
A span with a placeholder (`<name>`, `gv_check_x(...)` in a prototype) names nothing.

Usage: check_internals.py SOURCE_DIR"""
import glob
import os
import re
import sys

SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)
PATH = re.compile(r"^[\w.*/-]+(\.(c|h|def|py|txt|md|sh|json)|/|LAYERS)$")
FUNC = re.compile(r"^(gv_\w+)(\(.*\))?,?$")
ROOTS = ("lib/", "tests/", "scripts/", "docs/", "include/", "examples/", "man/", "bindings/")


def layers(src):
    with open(os.path.join(src, "lib", "LAYERS")) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def layer_table(text):
    """The folders of architecture.md's table whose header starts with `| folder |`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\|\s*folder\s*\|", line):
            out = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                m = re.match(r"^\|\s*`([^`]+)`\s*\|", row)
                out.append(m.group(1) if m else row)
            return out
    return None


def path_exists(src, layer_names, p):
    p = p.rstrip("/") if p.endswith("/") and len(p) > 1 else p
    if p.startswith(ROOTS) or "/" not in p and os.path.exists(os.path.join(src, p)):
        cands = [os.path.join(src, p)]
    elif p.split("/")[0] in layer_names:
        cands = [os.path.join(src, "lib", p)]
    else:  # a bare name, or a folder inside a layer (nvabi/)
        cands = [os.path.join(src, "lib", "**", p)]
    return any(glob.glob(c, recursive=True) for c in cands)


def code_text(src):
    """The C of lib/ and include/ with comments taken out."""
    parts = []
    for pattern in ("lib/**/*.c", "lib/**/*.h", "lib/**/*.def", "include/**/*.h"):
        for name in glob.glob(os.path.join(src, pattern), recursive=True):
            with open(name, errors="replace") as f:
                text = f.read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            parts.append(re.sub(r"//[^\n]*", " ", text))
    return "\n".join(parts)


def example_names(text):
    """The names a doc's own code blocks add: gv_check_/gv_id_ of each GV_PASSIVE line, and the
    functions (and test cases) they define."""
    names = set()
    for block in FENCE.findall(text):
        for nm in re.findall(r"GV_(?:PASSIVE|ACTIVE|HISTORY)\((\w+),", block):
            names |= {"gv_check_" + nm, "gv_id_" + nm}
        names |= set(re.findall(r"^\w[\w\s*]*?\b(gv_\w+)\s*\(", block, re.M))
    return names


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    names = layers(src)
    errors = []
    docs = {d: open(os.path.join(src, "docs", "internals", d)).read()
            for d in ("architecture.md", "adding-a-check.md")}

    table = layer_table(docs["architecture.md"])
    if table is None:
        errors.append("architecture.md: no layer table (a row starting `| folder |`)")
    elif table != names:
        errors.append("architecture.md's layer table lists %s; lib/LAYERS, lowest first: %s"
                      % (", ".join(table), ", ".join(names)))

    code = code_text(src)
    for doc, text in docs.items():
        own = example_names(text)
        prose = FENCE.sub(" ", text)  # the code blocks are the example's, not the tree's
        for span in sorted(set(SPAN.findall(prose))):
            if "<" in span or " " in span:
                continue
            if PATH.match(span) and not span.startswith("gv_"):
                if not path_exists(src, names, span):
                    errors.append("%s names `%s`, which is not in the tree" % (doc, span))
                continue
            m = FUNC.match(span)
            if m and m.group(1) not in own and not re.search(r"\b%s\b" % m.group(1), code):
                errors.append("%s names `%s`, which lib/ and include/ do not define"
                              % (doc, span))
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print("docs/internals: the layer table is lib/LAYERS; every file and gv_ name they use exists")


if __name__ == "__main__":
    main()
