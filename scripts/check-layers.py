#!/usr/bin/python3
"""Fails on an #include that goes up the library's layers (lib/LAYERS), and names every
circle between folders.

Usage (Debian's /usr/bin/python3; ctest runs it as the test `layers`):
    scripts/check-layers.py [SOURCE_DIR]

lib/LAYERS lists lib/'s folders one per line, lowest first ('#' starts a comment). A file
under lib/<folder>/ may include its own folder and the folders listed before it, and the
public headers (include/gpuverify) anywhere. A quoted include is resolved as the compiler
resolves it: beside the including file first, then in the include paths CMake gives the
library (include/, lib/). One that resolves to nothing in the tree is an error too, so that
no include escapes the check by a spelling the compiler would still find.

Exit 0 when every include goes down or sideways within its folder, 1 otherwise."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".c", ".h", ".cu", ".def")


def read_layers(path):
    layers = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            name = line.split("#", 1)[0].strip()
            if not name:
                continue
            if name in layers or "/" in name or " " in name:
                sys.exit("%s:%d: '%s': one folder of lib/ per line, each once" % (path, n, name))
            layers.append(name)
    return layers


def strip_comments(text):
    """C comments out, lines kept (an include in a comment is no include)."""
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def resolve(source, including, name):
    """The file a quoted include names, relative to the source tree; None when none is."""
    for base in (os.path.dirname(including), "include", "lib"):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(source, candidate)):
            return candidate
    return None


def folder_of(path):
    """lib/<folder>/... -> folder; None for anything else (include/, a file in lib/ itself)."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "lib" else None


def cycles(edges):
    """The strongly connected components of more than one folder (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    source = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    layers_file = os.path.join(source, "lib", "LAYERS")
    layers = read_layers(layers_file)
    rank = {name: i for i, name in enumerate(layers)}
    problems = []
    folders = sorted(d for d in os.listdir(os.path.join(source, "lib"))
                     if os.path.isdir(os.path.join(source, "lib", d)))
    for d in folders:
        if d not in rank:
            problems.append("lib/%s/: not in lib/LAYERS (every folder has its place)" % d)
    for d in layers:
        if d not in folders:
            problems.append("lib/LAYERS: '%s' is no folder of lib/" % d)
    edges = {}
    upward = 0
    for root, _, files in sorted(os.walk(os.path.join(source, "lib"))):
        for name in sorted(files):
            if not name.endswith(SOURCES):
                continue
            path = os.path.relpath(os.path.join(root, name), source)
            mine = folder_of(path)
            with open(os.path.join(source, path), errors="replace") as f:
                text = strip_comments(f.read())
            for m in INCLUDE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                target = resolve(source, path, m.group(1))
                if target is None:
                    problems.append('%s:%d: #include "%s" names no file of the tree' %
                                    (path, line, m.group(1)))
                    continue
                if target.startswith(os.path.join("include", "gpuverify") + os.sep):
                    continue  # the public API: every layer may use it
                theirs = folder_of(target)
                if theirs is None:
                    problems.append('%s:%d: #include "%s" is %s, outside lib/<folder>/ and '
                                    "include/gpuverify/" % (path, line, m.group(1), target))
                    continue
                if mine is None or theirs == mine:
                    continue
                edges.setdefault(mine, set()).add(theirs)
                if mine in rank and theirs in rank and rank[theirs] > rank[mine]:
                    upward += 1
                    problems.append('%s:%d: #include "%s" goes up: %s is above %s in lib/LAYERS' %
                                    (path, line, m.group(1), theirs, mine))
    for comp in cycles(edges):
        problems.append("folders in one include circle: " + " ".join(comp))
    for p in problems:
        print(p)
    if problems:
        print("%d problem(s), %d upward include(s); the order, lowest first: %s" %
              (len(problems), upward, " ".join(layers)))
        return 1
    print("layers: %d folders, every include goes down (%s)" % (len(layers), " <- ".join(layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
