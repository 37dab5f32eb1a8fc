#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails on an #include that goes up the library's layers (lib/LAYERS), and names every
circle between folders.

Usage (Debian's /usr/bin/python3; ctest runs it as the test `layers`):
    scripts/check-layers.py [SOURCE_DIR] [--objects BUILD_DIR]

lib/LAYERS lists lib/'s folders one per line, lowest first ('#' starts a comment). A file
under lib/<folder>/ may include its own folder and the folders listed before it, and the
public headers (include/gpuverify) anywhere. A quoted include is resolved as the compiler
resolves it: beside the including file first, then in the include paths CMake gives the
library (include/, lib/). One that resolves to nothing in the tree is an error too, so that
no include escapes the check by a spelling the compiler would still find.

With --objects, the built objects of lib/ (nm) are held to the same rule: a function or
variable one folder uses must be defined in that folder or below it. That finds the calls up
that no include shows, a function declared in a low header but defined above it.

Exit 0 when every include and every symbol goes down or stays in its folder, 1 otherwise."""
import os
import re
import subprocess
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


def objects_of(source, build):
    """(folder, source path) of each object built from lib/<folder>/<file>; objects of files
    no longer in the tree (moved since that build) are passed over."""
    for root, _, files in os.walk(build):
        for name in files:
            path = os.path.join(root, name)
            m = re.search(r"/lib/([^/]+)/([^/]+)\.o$", path)
            if m and os.path.isfile(os.path.join(source, "lib", m.group(1), m.group(2))):
                yield m.group(1), "lib/%s/%s" % (m.group(1), m.group(2)), path


def symbol_problems(source, build, rank):
    """Each use of a symbol defined in a folder above the user's."""
    defined, used = {}, []
    for folder, src, obj in sorted(objects_of(source, build)):
        out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            if kind == "U":
                used.append((folder, src, name))
            elif kind.isupper() and kind not in "UVW":
                defined.setdefault(name, (folder, src))
    problems = []
    for folder, src, name in used:
        if name not in defined:
            continue  # a library's or the C runtime's
        theirs, where = defined[name]
        if theirs != folder and rank.get(theirs, -1) > rank.get(folder, len(rank)):
            problems.append("%s: uses %s, defined above it in %s" % (src, name, where))
    return problems


def main():
    args = sys.argv[1:]
    build = None
    if "--objects" in args:
        i = args.index("--objects")
        build = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    source = os.path.abspath(args[0] if args else
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
    if build:
        problems += symbol_problems(source, build, rank)
    for p in problems:
        print(p)
    if problems:
        print("%d problem(s), %d upward include(s); the order, lowest first: %s" %
              (len(problems), upward, " ".join(layers)))
        return 1
    print("layers: %d folders, every include%s goes down (%s)" % (
        len(layers), " and symbol" if build else "", " <- ".join(layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
