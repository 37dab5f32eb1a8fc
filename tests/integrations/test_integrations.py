# SPDX-License-Identifier: Apache-2.0
"""The integration examples end to end over the fakes: the Slurm health check's decisions
(scontrol replaced by a fake keeping one node's state: drains a failing node with the failing
check's line, resumes only its own drains, keeps an admin's reason, cuts long reasons at a word,
GPUs another gpuverify holds, a gv-check that never answers; test_slurm.py runs it on a real
Slurm). The fleet report has its own test (tests/fleet/test_report.py).

Usage (ctest): test_integrations.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import gpu_holder


FAKE_SCONTROL = """#!%(python)s
# scontrol for one node: show node, update nodename=N state=drain|resume [reason=...]
import json, os, sys
state_file = os.path.join(%(dir)r, "node.json")
node = json.load(open(state_file)) if os.path.exists(state_file) else {"state": "IDLE", "reason": ""}
args = sys.argv[1:]
if args[:2] == ["show", "node"]:
    print("NodeName=%%s Arch=x86_64 CoresPerSocket=1" %% args[2])
    print("   State=%%s ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A" %% node["state"])
    print("   Partitions=gv")
    if node["reason"]:
        print("   Reason=%%s [root@2026-11-25T14:30:00]" %% node["reason"])
    sys.exit(0)
if args[:1] == ["update"]:
    with open(os.path.join(%(dir)r, "scontrol.args"), "a") as f:
        f.write("\\n".join(args) + "\\n--\\n")
    opts = dict(a.split("=", 1) for a in args[1:])
    if opts.get("state") == "drain":
        node = {"state": node["state"].split("+")[0] + "+DRAIN", "reason": opts["reason"]}
    elif opts.get("state") == "resume":
        node = {"state": "IDLE", "reason": ""}
    json.dump(node, open(state_file, "w"))
    sys.exit(0)
sys.exit(1)
"""


def slurm_healthcheck(script, tmp, gv_check, root, fakelib, scenario):
    """The script's decisions over gv-check's answers: the real gv-check over the fakes, and a
    fake one printing a given --quiet line with a given exit status."""
    failures = []
    state_file = os.path.join(tmp, "node.json")
    record = os.path.join(tmp, "scontrol.args")
    fake_gv = os.path.join(tmp, "fake-gv-check")
    with open(fake_gv, "w") as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$*" > %s/fake-gv-check.args\n'
                '[ -n "${FAKE_SLEEP:-}" ] && exec sleep "$FAKE_SLEEP"\n'
                'printf "%s\\n" "$FAKE_LINE"\nexit "$FAKE_RC"\n' % ("%s", tmp, "%s"))
    os.chmod(fake_gv, 0o755)
    real = "%s --sysroot %s --library-dir %s" % (gv_check, root, fakelib)

    def run(what, node, want_rc, gv=real, scen="h100x8", extra_env=None, args=()):
        """Runs the script with the node in `node` (state, reason); returns (updates as
        lists of arguments, the node after, stdout)."""
        json.dump({"state": node[0], "reason": node[1]}, open(state_file, "w"))
        if os.path.exists(record):
            os.remove(record)
        env = dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"],
                   GV_FAKE_SCENARIO=scenario(scen), GPUVERIFY_GV_CHECK=gv,
                   GPUVERIFY_CHECKS="^cuda,^mem,^gemm,^cudnn,^nccl", SLURMD_NODENAME="n1",
                   GPUVERIFY_HEALTHCHECK_CONF=os.path.join(tmp, "no-such.conf"))
        env.update(extra_env or {})
        for k in ("SLURM_SCRIPT_CONTEXT", "SLURM_JOB_ID"):
            if k not in (extra_env or {}):
                env.pop(k, None)
        start = time.monotonic()
        res = subprocess.run(["sh", script] + list(args), env=env, capture_output=True, text=True)
        took = time.monotonic() - start
        updates = []
        if os.path.exists(record):
            updates = [u.strip().split("\n") for u in open(record).read().split("--\n") if u.strip()]
        after = json.load(open(state_file))
        if res.returncode != want_rc:
            failures.append("healthcheck %s: exit %d, want %d (%s)" % (what, res.returncode,
                                                                      want_rc, res.stdout + res.stderr))
        return updates, after, res.stdout, took

    def drained_with(what, updates, prefix):
        reasons = [a[len("reason="):] for u in updates for a in u if a.startswith("reason=")]
        if (len(updates) != 1 or "state=drain" not in updates[0] or "nodename=n1" not in updates[0]
                or not reasons[0].startswith(prefix) or len(reasons[0]) > 200):
            failures.append("healthcheck %s: scontrol %r, want one drain, reason %r..."
                            % (what, updates, prefix))
            return ""
        return reasons[0]

    def untouched(what, updates):
        if updates:
            failures.append("healthcheck %s: scontrol %r, want no update" % (what, updates))

    # The real gv-check over the fakes: healthy, a GPU off the bus.
    updates, _, _, _ = run("healthy", ("IDLE", ""), 0)
    untouched("healthy", updates)
    updates, after, _, _ = run("FAIL", ("IDLE", ""), 1, scen="h100x8-gpu-lost")
    reason = drained_with("FAIL", updates,
                          "gpuverify: FAIL gpus 3: driver.gpu_count node: PCI sees 8 GPU(s)")
    if not reason.endswith(") [hw_inspect]"):  # the node's action after the counts
        failures.append("healthcheck FAIL: the reason %r does not end with the action" % reason)
    if after["state"] != "IDLE+DRAIN":
        failures.append("healthcheck FAIL: node %r" % after)
    # Its own drain is resumed once healthy, and not re-drained with the same reason.
    updates, _, _, _ = run("healthy after its drain", ("IDLE+DRAIN", after["reason"]), 0)
    if updates != [["update", "nodename=n1", "state=resume"]]:
        failures.append("healthcheck healthy after its drain: scontrol %r, want a resume" % updates)
    updates, _, out, _ = run("FAIL again", ("IDLE+DRAIN", after["reason"]), 1, scen="h100x8-gpu-lost")
    untouched("FAIL on its own drain with the same reason", updates)
    # An admin's reason is the admin's, through a FAIL and a healthy run; a down node's too.
    for state, reason in (("IDLE+DRAIN", "maintenance"), ("DOWN", "Not responding"),
                          ("MIXED+DRAIN", "swap the PSU")):
        for scen, want in (("h100x8-gpu-lost", 1), ("h100x8", 0)):
            updates, after, out, _ = run("%s %r, %s" % (state, reason, scen), (state, reason),
                                         want, scen=scen)
            untouched("%s %r, %s" % (state, reason, scen), updates)
        if after["reason"] != reason:
            failures.append("healthcheck: the reason %r became %r" % (reason, after["reason"]))
    # gv-check's options: the budget and deadlines inside the limit.
    run("options", ("IDLE", ""), 0, gv=fake_gv, extra_env={"FAKE_LINE": "OK 3 checks", "FAKE_RC": "0"})
    got = open(os.path.join(tmp, "fake-gv-check.args")).read().split()
    # The deadline: a quarter of the budget less gv-check's reserve at its end (5 s) and 2 s for
    # its start, so that cuInit's four deadlines end inside the budget.
    if got[:5] != ["--quiet", "--budget", "30", "--deadline", "5"]:
        failures.append("healthcheck: gv-check got %r, want --quiet --budget 30 --deadline 5" % got)
    # What each mode runs unless GPUVERIFY_CHECKS says: the health check all but the long GPU
    # benchmarks, the Prolog (which holds a job's start) the quick level.
    for what, extra, want in (("health check", {}, ["--checks",
                                                    "^gemm,^nccl,^cuda.copy,^cuda.copy_all,^mem"]),
                              ("Prolog", {"SLURM_SCRIPT_CONTEXT": "prolog_slurmd"},
                               ["--level", "quick"])):
        run("default selection, " + what, ("IDLE", ""), 0, gv=fake_gv, extra_env=dict(
            extra, FAKE_LINE="OK 3 checks", FAKE_RC="0", GPUVERIFY_CHECKS=""))
        got = open(os.path.join(tmp, "fake-gv-check.args")).read().split()
        if got[5:] != want:
            failures.append("healthcheck's default selection as %s: gv-check got %r, want %r"
                            % (what, got, want))
    # The site's file (slurmd passes no environment): read, and it wins over the environment.
    conf = os.path.join(tmp, "gpuverify-healthcheck.conf")
    with open(conf, "w") as f:
        f.write("GPUVERIFY_TIMEOUT=24\nGPUVERIFY_CHECKS=driver\n")
    run("options from the site's file", ("IDLE", ""), 0, gv=fake_gv, extra_env={
        "FAKE_LINE": "OK 3 checks", "FAKE_RC": "0", "GPUVERIFY_HEALTHCHECK_CONF": conf})
    got = open(os.path.join(tmp, "fake-gv-check.args")).read().split()
    if got != ["--quiet", "--budget", "16", "--deadline", "2", "--checks", "driver"]:
        failures.append("healthcheck with the site's file: gv-check got %r" % got)
    # A reason past 200 characters is cut at a word, " ..." after it.
    words = "FAIL gpu.ecc gpu3: " + " ".join("word%02d" % i for i in range(40))
    long_line = words[:196] + " (8 FAIL)"
    updates, _, _, _ = run("long reason", ("IDLE", ""), 1, gv=fake_gv,
                           extra_env={"FAKE_LINE": long_line, "FAKE_RC": "1"})
    reason = drained_with("long reason", updates, "gpuverify: FAIL gpu.ecc gpu3: word00 word01")
    kept = reason[:-len(" ... (8 FAIL)")]
    full = "gpuverify: " + long_line
    if (not reason.endswith(" ... (8 FAIL)") or len(reason) > 200 or not full.startswith(kept)
            or full[len(kept)] != " "):
        failures.append("healthcheck: long reason cut as %r" % reason)
    # The action after the counts is kept with them.
    updates, _, _, _ = run("long reason with its action", ("IDLE", ""), 1, gv=fake_gv,
                           extra_env={"FAKE_LINE": long_line + " [reset_gpu]", "FAKE_RC": "1"})
    reason = drained_with("long reason with its action", updates,
                          "gpuverify: FAIL gpu.ecc gpu3: word00 word01")
    if not reason.endswith(" ... (8 FAIL) [reset_gpu]") or len(reason) > 200:
        failures.append("healthcheck: long reason with its action cut as %r" % reason)
    # A long line without counts (HELD) is cut at a word too.
    updates, _, _, _ = run("long reason without counts", ("IDLE", ""), 1, gv=fake_gv,
                           extra_env={"FAKE_LINE": words[:199], "FAKE_RC": "1"})
    reason = drained_with("long reason without counts", updates, "gpuverify: FAIL gpu.ecc gpu3:")
    if (not reason.endswith(" ...") or len(reason) > 200
            or not ("gpuverify: " + words).startswith(reason[:-4] + " ")):
        failures.append("healthcheck: long reason without counts cut as %r" % reason)
    # Could not judge; gv-check broken. (A drain on an answer given at once: what the script
    # takes around gv-check on this host now.)
    updates, _, _, drain_took = run("ERROR", ("IDLE", ""), 1, gv=fake_gv, extra_env={
        "FAKE_LINE": "ERROR cuda.init gpu0: not finished within the run's budget (1 ERROR)",
        "FAKE_RC": "3"})
    drained_with("ERROR", updates, "gpuverify: could not judge: ERROR cuda.init gpu0: not finished")
    updates, _, _, _ = run("gv-check missing", ("IDLE", ""), 1, gv=os.path.join(tmp, "no-such-gv-check"))
    drained_with("gv-check missing", updates, "gpuverify: could not run gv-check (exit 127): ")
    # GPUs another gpuverify holds, from the HELD line's seconds: up to the limit that run's to
    # judge; longer, stuck; unknown, not judged.
    held = "HELD for %s s by PID 4121: cuda.init gpu0: not run: GPU 0000:18:00.0 is being tested"
    updates, _, out, _ = run("HELD 30 s", ("IDLE", ""), 0, gv=fake_gv,
                             extra_env={"FAKE_LINE": held % "30", "FAKE_RC": "4"})
    untouched("HELD 30 s", updates)
    updates, _, _, _ = run("HELD 400 s", ("IDLE", ""), 1, gv=fake_gv,
                           extra_env={"FAKE_LINE": held % "400", "FAKE_RC": "4"})
    drained_with("HELD 400 s", updates,
                 "gpuverify: another gpuverify stuck on the GPUs: HELD for 400 s by PID 4121:")
    updates, _, _, _ = run("HELD ? s", ("IDLE", ""), 1, gv=fake_gv,
                           extra_env={"FAKE_LINE": held % "?", "FAKE_RC": "4"})
    drained_with("HELD ? s", updates, "gpuverify: could not judge: HELD for ? s by PID 4121:")
    # gv-check that never answers: killed, the node drained, all inside GPUVERIFY_TIMEOUT
    # (+ 1 s, + what the same drain takes on an answer given at once).
    updates, _, _, took = run("hang", ("IDLE", ""), 1, gv=fake_gv,
                              extra_env={"FAKE_SLEEP": "60", "GPUVERIFY_TIMEOUT": "12"})
    reason = drained_with("hang", updates, "gpuverify: no verdict within 10 s")
    if not reason.endswith(" [reboot_node]"):
        failures.append("healthcheck hang: the reason %r names no reboot" % reason)
    if took > 13 + drain_took:
        failures.append("healthcheck hang: took %.1f s with GPUVERIFY_TIMEOUT=12 (a drain at "
                        "once %.1f s)" % (took, drain_took))
    # Prolog: said by slurmd's SLURM_SCRIPT_CONTEXT or --prolog; a failure exits 1.
    _, _, out, _ = run("Prolog FAIL", ("ALLOCATED", ""), 1, scen="h100x8-gpu-lost", extra_env={
        "SLURM_SCRIPT_CONTEXT": "prolog_slurmd", "SLURM_JOB_ID": "77"})
    if "(prolog of job 77)" not in out:
        failures.append("healthcheck as Prolog: %r" % out)
    _, _, out, _ = run("--prolog", ("ALLOCATED", ""), 0, args=["--prolog"])
    run("unknown option", ("IDLE", ""), 2, args=["--bogus"])
    run("GPUVERIFY_TIMEOUT=abc", ("IDLE", ""), 2, extra_env={"GPUVERIFY_TIMEOUT": "abc"})
    shellcheck = shutil.which("shellcheck")
    if shellcheck:
        res = subprocess.run([shellcheck, "-s", "sh", script], capture_output=True, text=True)
        if res.returncode:
            failures.append("shellcheck %s: %s" % (script, res.stdout))

    # Another gpuverify holding GPU 0 (its lock file, as gpu_lock.c writes it), with the real
    # gv-check: for 5 s it judges the node, which is not drained; for 400 s it is stuck.
    locks = os.path.join(tmp, "locks")
    os.mkdir(locks)
    for held_s, want in ((5, 0), (400, 1)):
        holder = gpu_holder.start(locks, held_s, 60)
        updates, _, _, _ = run("beside a gpuverify holding the GPU for %d s" % held_s, ("IDLE", ""),
                               want, scen="h100x1-compute", extra_env={
                                   "GPUVERIFY_LOCK_DIR": locks, "GPUVERIFY_TIMEOUT": "12",
                                   "GPUVERIFY_CHECKS": "cuda.init"})
        gpu_holder.stop(holder)
        if want:
            drained_with("beside a stuck gpuverify", updates,
                         "gpuverify: another gpuverify stuck on the GPUs: HELD for 4")
        else:
            untouched("beside a gpuverify holding the GPU for 5 s", updates)
    return failures


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    root = os.path.join(fixtures, "sysroots", "h100-open")
    scenario = lambda name: os.path.join(fixtures, "scenarios", name + ".conf")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # Slurm: the health check's logic against a fake scontrol (test_slurm.py runs it on a
        # real Slurm). The fake keeps one node's state and reason in a file, answers
        # `scontrol show node` from it as Slurm prints it, applies and records updates.
        fake = os.path.join(tmp, "scontrol")
        with open(fake, "w") as f:
            f.write(FAKE_SCONTROL % {"python": sys.executable, "dir": tmp})
        os.chmod(fake, 0o755)
        script = os.path.join(examples, "slurm", "gpuverify-healthcheck.sh")
        failures += slurm_healthcheck(script, tmp, gv_check, root, fakelib, scenario)

    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
