# SPDX-License-Identifier: Apache-2.0
"""The systemd units for bare-metal nodes (examples/integrations/systemd): `systemd-analyze
verify` accepts the services and timers (with gv-check at the build's path), the timers run the
passive service every minute and the active one daily, and each service's own ExecStart line,
run as systemd would (its Environment= expanded, /var/lib/gpuverify and the textfile folder
moved to the test's, the node a fixture over the fakes), does what the unit says: the passive
one publishes gpuverify_node_healthy 1 on a healthy node and 0 with a GPU off the bus (an exit
its SuccessExitStatus= accepts), each run kept in the history; the active one records its run.

Usage (ctest): test_systemd.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile


def unit(path):
    """{section: {key: [values]}} of a unit file (keys may repeat)."""
    out, section = {}, None
    for line in open(path):
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = out.setdefault(line.strip("[]"), {})
        else:
            k, _, v = line.partition("=")
            section.setdefault(k.strip(), []).append(v.strip())
    return out


def command(service, gv_check, replace):
    """The service's ExecStart as argv: Environment= expanded, gv-check at the build's path,
    paths replaced."""
    env = dict(e.split("=", 1) for e in service["Service"].get("Environment", []))
    line = service["Service"]["ExecStart"][0]
    line = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], line)
    for old, new in replace.items():
        line = line.replace(old, new)
    argv = shlex.split(line)
    assert argv[0] == "gv-check", argv
    return [gv_check] + argv[1:]


def runs(db):
    return sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0] \
        if os.path.exists(db) else 0


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    src = os.path.join(examples, "systemd")
    failures = []
    passive = unit(os.path.join(src, "gpuverify.service"))
    active = unit(os.path.join(src, "gpuverify-active.service"))
    timer = unit(os.path.join(src, "gpuverify.timer"))
    daily = unit(os.path.join(src, "gpuverify-active.timer"))
    if timer["Timer"].get("OnUnitActiveSec") != ["1min"] or \
            daily["Timer"].get("OnCalendar") != ["daily"]:
        failures.append("timers: passive not every minute or active not daily: %s %s" %
                        (timer["Timer"], daily["Timer"]))
    ok_exits = {0} | {int(x) for x in passive["Service"]["SuccessExitStatus"][0].split()}
    with tempfile.TemporaryDirectory() as tmp:
        analyze = shutil.which("systemd-analyze")
        if analyze:
            # The units as installed, gv-check where this build has it.
            copies = []
            for name in sorted(os.listdir(src)):
                text = open(os.path.join(src, name)).read()
                copy = os.path.join(tmp, name)
                open(copy, "w").write(text.replace("ExecStart=gv-check", "ExecStart=" + gv_check))
                copies.append(copy)
            p = subprocess.run([analyze, "verify", "--man=no"] + copies, capture_output=True,
                               text=True)
            if p.returncode != 0 or p.stderr.strip():
                failures.append("systemd-analyze verify: exit %d: %s" % (p.returncode,
                                                                         p.stderr.strip()))
        else:
            print("systemd-analyze not installed: the units are not verified by systemd")
        state = os.path.join(tmp, "state")
        textdir = os.path.join(tmp, "textfile")
        os.makedirs(state)
        os.makedirs(textdir)
        replace = {"/var/lib/gpuverify/": state + "/",
                   "/var/lib/prometheus/node-exporter/": textdir + "/"}
        node = ["--sysroot", os.path.join(fixtures, "sysroots", "h100-open"),
                "--library-dir", fakelib]
        db = os.path.join(state, "history.db")
        published = os.path.join(textdir, "gpuverify.prom")
        argv = command(passive, gv_check, replace) + node
        for n, (scenario, healthy) in enumerate((("h100x8", 1), ("h100x8-gpu-lost", 0))):
            env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                                 scenario + ".conf"))
            p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=150)
            text = open(published).read() if os.path.exists(published) else ""
            if p.returncode not in ok_exits or \
                    "\ngpuverify_node_healthy %d\n" % healthy not in text:
                failures.append("gpuverify.service on %s: exit %d, published %r" % (
                    scenario, p.returncode, text[:200]))
            if runs(db) != n + 1:
                failures.append("gpuverify.service on %s: %d run(s) in the history, want %d" %
                                (scenario, runs(db), n + 1))
        # The active run: GPU 0 alone and small sizes, as the fakes compute on the CPU.
        argv = command(active, gv_check, replace) + node + [
            "--gpus", "0", "--gemm-size", "32", "--copy-mib", "1", "--nccl-kib", "64"]
        env = dict(os.environ, GV_FAKE_SCENARIO=os.path.join(fixtures, "scenarios",
                                                             "h100x8.conf"))
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        if p.returncode != 0 or runs(db) != 3:
            failures.append("gpuverify-active.service: exit %d, %d run(s) in the history "
                            "(want 3): %s" % (p.returncode, runs(db), p.stdout[-500:]))
    for f in failures:
        print("FAIL", f)
    print("systemd units: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
