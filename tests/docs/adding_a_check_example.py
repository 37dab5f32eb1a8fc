#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""docs/internals/adding-a-check.md's worked example, applied as written to a copy of the tree
(ctest: docs_adding_a_check, label docs_example).

The copy: the files git knows (tracked, and untracked ones it does not ignore) copied into a
temporary directory, or the tree less its build directories where there is no git. Applied
there, from the doc's own code blocks: step 1's line into lib/checks/checks.def after the
gpu.mig line, step 2's judge into lib/checks/gpu.c after gv_check_gpu_mig, step 3's case into
tests/unit/test_driver.c with the `cmocka_unit_test(...)` line the doc names, step 5's line into
CHANGELOG.md's [Unreleased] Added list. Then, as the doc says: the copy is built (the targets
test_driver and gv-check need, -j2), ctest runs test_driver, check_ids_frozen and
report_outputs there, and the doc's gv-check command over the fake scenario prints the FAIL row
and the remedy the doc shows.

Usage: adding_a_check_example.py SOURCE_DIR [WORK_DIR]  (WORK_DIR is emptied first)
Exit 0 when the example passes as written; 1 with what failed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOC = os.path.join("docs", "internals", "adding-a-check.md")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def copy_tree(src, dst):
    if os.path.isdir(os.path.join(src, ".git")) or os.path.isfile(os.path.join(src, ".git")):
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "-co", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        for rel in filter(None, out.decode().split("\0")):
            s = os.path.join(src, rel)
            if not os.path.isfile(s) or os.path.islink(s) and not os.path.exists(s):
                continue  # a file deleted in the work tree, or a submodule's folder
            d = os.path.join(dst, rel)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d, follow_symlinks=False)
    else:
        shutil.copytree(src, dst, symlinks=True,
                        ignore=shutil.ignore_patterns("build", "build-*", ".git"))


def steps(doc):
    """The worked example's code blocks by the file their step names: {path: [blocks]}."""
    text = doc[doc.index("## Worked example"):]
    out = {}
    for m in re.finditer(r"\*\*\d+\. `([^`]+)`\*\*(.*?)(?=\*\*\d+\. `|\Z)", text, re.S):
        out[m.group(1)] = (re.findall(r"```c\n(.*?)```", m.group(2), re.S), m.group(2))
    return out


def insert_after(path, anchor_re, text, what):
    with open(path) as f:
        lines = f.read().split("\n")
    at = [i for i, l in enumerate(lines) if re.search(anchor_re, l)]
    if not at:
        fail("%s: no line matching %s to put %s after" % (path, anchor_re, what))
    lines[at[0] + 1:at[0] + 1] = text.rstrip("\n").split("\n")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def end_of_function(path, name):
    """The line index of the closing brace of the function `name` defined in path."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = [i for i, l in enumerate(lines) if re.match(r"^\w.*\b%s\(" % name, l)]
    if not start:
        fail("%s: no function %s" % (path, name))
    for i in range(start[0], len(lines)):
        if lines[i] == "}":
            return i
    fail("%s: %s does not end" % (path, name))


def apply(doc, tree):
    s = steps(doc)
    for need in ("lib/checks/checks.def", "lib/checks/gpu.c", "tests/unit/test_driver.c",
                 "CHANGELOG.md"):
        if need not in s:
            fail("the worked example has no step for %s" % need)
    # 1: the catalog line, after gpu.mig's.
    (line,), _ = s["lib/checks/checks.def"]
    insert_after(os.path.join(tree, "lib/checks/checks.def"), r'"gpu\.mig"', line, "step 1")
    # 2: the judge, after gv_check_gpu_mig.
    (judge,), _ = s["lib/checks/gpu.c"]
    gpu_c = os.path.join(tree, "lib/checks/gpu.c")
    end = end_of_function(gpu_c, "gv_check_gpu_mig")
    with open(gpu_c) as f:
        lines = f.read().split("\n")
    lines[end + 1:end + 1] = [""] + judge.rstrip("\n").split("\n")
    with open(gpu_c, "w") as f:
        f.write("\n".join(lines))
    # 3: the test case before main, and its line in the list the doc names.
    (case,), prose = s["tests/unit/test_driver.c"]
    entry = re.search(r"`(cmocka_unit_test\(\w+\),?)`", prose)
    if not entry:
        fail("step 3 names no `cmocka_unit_test(...)` line")
    test_c = os.path.join(tree, "tests/unit/test_driver.c")
    with open(test_c) as f:
        t = f.read()
    if "int main(void)" not in t or "const struct CMUnitTest tests[] = {" not in t:
        fail("tests/unit/test_driver.c: no main with a CMUnitTest list")
    t = t.replace("int main(void)", case.rstrip("\n") + "\n\nint main(void)", 1)
    t = t.replace("const struct CMUnitTest tests[] = {",
                  "const struct CMUnitTest tests[] = {\n        " + entry.group(1), 1)
    with open(test_c, "w") as f:
        f.write(t)
    # 5: the changelog's line, first under [Unreleased]'s Added heading and its blank line.
    _, prose = s["CHANGELOG.md"]
    entry = re.search(r"`(- [^`]+)`", prose)
    if not entry:
        fail("step 5 names no changelog line `- ...`")
    path = os.path.join(tree, "CHANGELOG.md")
    with open(path) as f:
        lines = f.read().split("\n")
    at = lines.index("## [Unreleased]")
    at = next((i for i in range(at, len(lines)) if lines[i] == "### Added"), None)
    if at is None or lines[at + 1] != "":
        fail("CHANGELOG.md: no '### Added' heading and blank line under [Unreleased]")
    lines[at + 2:at + 2] = [entry.group(1)]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    new_id = re.search(r'"([a-z_]+\.[a-z_]+)"', line)
    if not new_id:
        fail("step 1's line names no ID")
    return new_id.group(1)


def shown_output(doc):
    """The command and output block the doc shows for the fake scenario."""
    m = re.search(r"\n    \$ (GV_FAKE_SCENARIO=.*?)\n\n", doc, re.S)
    if not m:
        fail("the doc shows no `$ GV_FAKE_SCENARIO=... gv-check` run")
    block = m.group(1).split("\n")
    block = block[:1] + [l[4:] for l in block[1:]]
    command, rows, more = [], [], True
    for l in block:
        if more:
            command.append(l.rstrip("\\").strip())
            more = l.rstrip().endswith("\\")
        else:
            rows.append(" ".join(l.split()))
    return " ".join(command), rows


def run(cmd, cwd, log, timeout):
    print("+", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    with open(log, "a") as f:
        f.write(p.stdout)
    return p


def main():
    src = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gv-adding-a-check-")
    shutil.rmtree(work, ignore_errors=True)
    tree, build, log = (os.path.join(work, d) for d in ("src", "build", "log.txt"))
    os.makedirs(work)
    with open(os.path.join(src, DOC)) as f:
        doc = f.read()
    copy_tree(src, tree)
    new_id = apply(doc, tree)
    print("applied the worked example (%s) to %s" % (new_id, tree), flush=True)

    if run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], work, log,
           600).returncode:
        fail("cmake configure failed (%s)" % log)
    p = run(["cmake", "--build", build, "-j2", "--target", "test_driver", "gv-check"], work, log,
            1800)
    if p.returncode:
        print(p.stdout[-6000:])
        fail("the example does not build (%s)" % log)
    # report_outputs over the scenarios the example is judged on: the whole sweep is the
    # release stage's, and a second one beside it doubles its time for nothing new.
    os.environ["GV_VALIDATE_CASES"] = "^(h100x8|fault-exclusive-nobody|no libraries: h100-open)$"
    p = run(["ctest", "--test-dir", build, "-R", "^(test_driver|check_ids_frozen|report_outputs)$",
             "--output-on-failure"], work, log, 1800)
    print(p.stdout[-6000:])
    if p.returncode:
        fail("ctest -R test_driver/check_ids_frozen/report_outputs fails with the example applied")

    command, rows = shown_output(doc)
    env = dict(os.environ)
    argv = []
    for word in command.split():
        m = re.match(r"^(\w+)=(.*)$", word)
        if m and not argv:
            env[m.group(1)] = os.path.join(work, m.group(2))  # build/...: the copy's build
        else:
            argv.append(os.path.join(work, word) if word.startswith("build/") else word)
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    got = [" ".join(l.split()) for l in p.stdout.splitlines()]
    for row in rows:
        if row not in got:
            fail("the doc's gv-check run shows\n    %s\nwhich it did not print; it printed:\n%s"
                 % (row, p.stdout + p.stderr))
    print("the worked example passes as written: %s, test_driver, check_ids_frozen and "
          "report_outputs, and %s" % (new_id, command))
    # Passed: the copy and its build go (a failure leaves them beside log.txt to look at).
    for d in (tree, build) if len(sys.argv) > 2 else (work,):
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
