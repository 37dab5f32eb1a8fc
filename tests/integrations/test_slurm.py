#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""examples/integrations/slurm/gpuverify-healthcheck.sh on a real Slurm: Debian 12's munged,
slurmctld and slurmd started here as a one-node cluster on loopback (config, keys, sockets,
state and logs in a temporary directory; nothing in /etc), the script as slurmd's
HealthCheckProgram and Prolog over the fake GPUs, and `srun --mpi=pmix` running gv-nccl's two
ranks over the fake NCCL.

The health check's wrapper runs the shipped script only while a step file names a scenario
(the test writes it, waits for a run that read it, removes it), one run at a time; slurmd
gives a HealthCheckProgram a bare environment, so the wrapper says everything itself. Asserted
through `sinfo -R` and `scontrol show node`:
  - a FAIL (h100x8-gpu-lost) drains the node, the reason naming the check and the
    node's action ([hw_inspect]);
  - healthy (h100x8) resumes a node the script drained;
  - an NVML hang (fault-nvml-init-hang) drains it, the script ending well inside the 60 s
    after which slurmd kills a HealthCheckProgram (its duration measured and printed);
  - a node an admin drained ("maintenance") keeps that reason through a FAIL and a healthy run;
  - GPUs another gpuverify holds (its lock file): held for less than the script's limit, the
    node is left as it is; held longer, it is drained naming the stuck holder;
  - the Prolog: a FAIL makes `srun` fail ("prolog failed"), `sbatch`'s job requeued held, the
    node drained with the script's reason; healthy, `srun -n 2 --mpi=pmix gv-nccl` runs and
    prints its table;
  - every run keeps the node's record (GPUVERIFY_STATE): the runs and gpu3's marks are in it.
Exit 77 (skipped) only when not root or a daemon cannot start here.

usage: test_slurm.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import os
import shlex
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import daemons
import gpu_holder

SKIP = 77
STEP_TIMEOUT = 90  # a health-check interval, then a run of at most the script's 45 s


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def find(tool):
    for d in ("/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        p = os.path.join(d, tool)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(tool)


class Cluster:
    def __init__(self, tmp, args):
        self.tmp = tmp
        self.gv_check, self.fixtures, self.fakelib, self.examples = args
        self.gv_nccl = os.path.join(os.path.dirname(self.gv_check), "gv-nccl")
        self.script = os.path.join(self.examples, "slurm", "gpuverify-healthcheck.sh")
        self.node = socket.gethostname().split(".")[0]
        self.procs = {}
        self.conf = os.path.join(tmp, "slurm.conf")
        self.locks = os.path.join(tmp, "locks")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for k in list(self.env):
            if k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_")) and k != "SLURM_CONF":
                del self.env[k]
        self.tools = {t: find(t) for t in ("munged", "munge", "slurmctld", "slurmd", "scontrol",
                                           "sinfo", "srun", "sbatch", "squeue", "scancel")}

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def scenario(self, name):
        return os.path.join(self.fixtures, "scenarios", name + ".conf")

    # --- daemons -------------------------------------------------------------------------
    def start(self):
        missing = [t for t, p in self.tools.items() if not p]
        if missing:
            raise Skip("not installed: %s (scripts/setup-debian.sh installs munge, slurmctld, "
                       "slurmd, slurm-client)" % ", ".join(missing))
        os.makedirs(self.locks)
        os.mkdir(self.path("etc"), 0o700)
        for d in ("state", "spool", "log", "run"):
            os.mkdir(self.path(d), 0o755)
        argv, self.munge_socket, answers = daemons.munged(self.tmp, self.tools["munged"],
                                                          self.tools["munge"])
        self.spawn("munged", argv)
        self.wait_for("munged", answers, 15, skip=True)
        self.write_conf()
        self.spawn("slurmctld", [self.tools["slurmctld"], "-D", "-i", "-f", self.conf])
        self.wait_for("slurmctld", lambda: self.run(["scontrol", "ping"], check=False)
                      .stdout.find("is UP") >= 0, 30, skip=True)
        self.spawn("slurmd", [self.tools["slurmd"], "-D", "-f", self.conf, "-N", self.node])
        # A daemon that exited cannot run here (skip); a node that never comes up idle is this
        # test's configuration (fail).
        self.wait_for("slurmd to register the node idle", lambda: self.node_state()[0] == "IDLE",
                      60, skip=False, exited_skips=True)

    def write_conf(self):
        cpus = os.cpu_count() or 1
        hw = "CPUs=%d" % cpus
        out = subprocess.run([self.tools["slurmd"], "-C"], capture_output=True, text=True)
        for line in out.stdout.splitlines():
            if line.startswith("NodeName="):
                hw = " ".join(w for w in line.split()[1:] if not w.startswith("RealMemory="))
        plugstack = self.path("etc", "plugstack.conf")
        open(plugstack, "w").close()
        wrapper = self.write_wrappers()
        conf = {
            "ClusterName": "gvtest%d" % os.getpid(),
            "SlurmctldHost": "%s(127.0.0.1)" % self.node,
            "SlurmctldPort": daemons.free_port(),
            "SlurmdPort": daemons.free_port(),
            "SlurmUser": "root",
            "SlurmdUser": "root",
            "AuthType": "auth/munge",
            "CredType": "cred/munge",
            "AuthInfo": "socket=" + self.munge_socket,
            "StateSaveLocation": self.path("state"),
            "SlurmdSpoolDir": self.path("spool"),
            "SlurmctldPidFile": self.path("run", "slurmctld.pid"),
            "SlurmdPidFile": self.path("run", "slurmd.pid"),
            "SlurmctldLogFile": self.path("log", "slurmctld.log"),
            "SlurmdLogFile": self.path("log", "slurmd.log"),
            "SlurmctldDebug": "verbose",
            "SlurmdDebug": "verbose",
            "PlugStackConfig": plugstack,
            "ProctrackType": "proctrack/linuxproc",
            "TaskPlugin": "task/none",
            "SelectType": "select/cons_tres",
            "SelectTypeParameters": "CR_Core",
            "SchedulerType": "sched/builtin",
            "AccountingStorageType": "accounting_storage/none",
            "JobAcctGatherType": "jobacct_gather/none",
            "JobCompType": "jobcomp/none",
            "MpiDefault": "none",
            "ReturnToService": "2",
            "HealthCheckInterval": "2",
            "HealthCheckNodeState": "IDLE",  # as the script recommends: drained idle nodes too
            "HealthCheckProgram": wrapper["healthcheck"],
            "Prolog": wrapper["prolog"],
            "KillWait": "2",
            "InactiveLimit": "0",
        }
        with open(self.conf, "w") as f:
            for k, v in conf.items():
                f.write("%s=%s\n" % (k, v))
            f.write("NodeName=%s NodeAddr=127.0.0.1 NodeHostname=%s %s State=UNKNOWN\n"
                    % (self.node, self.node, hw))
            f.write("PartitionName=gv Nodes=%s Default=YES MaxTime=INFINITE State=UP\n"
                    % self.node)

    def write_wrappers(self):
        """The HealthCheckProgram and Prolog: run the shipped script while a step file says
        how, record start, end and exit status. The step file is the script's own
        GPUVERIFY_HEALTHCHECK_CONF (the scenario, GPUVERIFY_*): slurmd passes no environment.
        One health check at a time: slurmctld asks every 2 s, a run can take 20."""
        paths = {}
        for kind in ("healthcheck", "prolog"):
            p = self.path(kind + ".sh")
            with open(p, "w") as f:
                f.write("""#!/bin/sh
# written by tests/integrations/test_slurm.py
PATH=/usr/sbin:/usr/bin:/sbin:/bin
SLURM_CONF={conf}
export PATH SLURM_CONF
exec 9>>{lock}
flock -n 9 || exit 0
# This run's own copy: the test replaces and removes the step file as it goes.
GPUVERIFY_HEALTHCHECK_CONF={copy}.$$
export GPUVERIFY_HEALTHCHECK_CONF
cp {step} "$GPUVERIFY_HEALTHCHECK_CONF" 2>/dev/null || exit 0
GV_STEP=$(sed -n 's/^GV_STEP=//p' "$GPUVERIFY_HEALTHCHECK_CONF")
start=$(date +%s.%N)
sh {script} >>{out} 2>&1
rc=$?
rm -f "$GPUVERIFY_HEALTHCHECK_CONF"
echo "$GV_STEP $start $(date +%s.%N) $rc" >>{runs}
exit $rc
""".format(conf=shlex.quote(self.conf), lock=shlex.quote(self.path("run", kind + ".lock")),
           step=shlex.quote(self.path(kind + ".step")), script=shlex.quote(self.script),
           copy=shlex.quote(self.path("run", kind + ".conf")),
           out=shlex.quote(self.path("log", kind + ".out")),
           runs=shlex.quote(self.path("log", kind + ".runs"))))
            os.chmod(p, 0o755)
            paths[kind] = p
        return paths

    def spawn(self, name, argv):
        log = open(self.path("log", name + ".stderr"), "w")
        try:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=log, env=self.env,
                                                start_new_session=True)
        except OSError as e:
            raise Skip("%s cannot start: %s" % (name, e))

    def wait_for(self, what, ok, timeout, skip=False, exited_skips=False):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    why = "%s exited with status %s: %s" % (name, p.returncode,
                                                          self.tail(name))
                    if skip or exited_skips:
                        raise Skip(why)
                    raise Failure(why)
            try:
                if ok():
                    return
            except Exception:  # a client asking before the daemon listens
                pass
            time.sleep(0.25)
        why = "%s not up within %d s: %s" % (what, timeout,
                                             self.tail(what.split()[0]))
        if skip:
            raise Skip(why)
        raise Failure(why)

    def tail(self, name, lines=8):
        text = []
        for f in (self.path("log", name + ".stderr"), self.path("log", name + ".log")):
            if os.path.exists(f):
                with open(f, errors="replace") as fh:
                    text += fh.read().splitlines()[-lines:]
        return " | ".join(text[-lines:])

    def stop(self):
        """Every daemon this test started, whatever state the test left them in."""
        ctld = self.procs.get("slurmctld")
        if ctld and ctld.poll() is None:
            try:
                self.run(["scancel", "--full", "-w", self.node], check=False, timeout=10)
            except (OSError, subprocess.SubprocessError):
                pass
        daemons.stop(self.procs, ("slurmd", "slurmctld", "munged"))

    # --- clients -------------------------------------------------------------------------
    def run(self, argv, check=True, timeout=30, env=None):
        argv = [self.tools.get(argv[0]) or argv[0]] + argv[1:]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                             env=env or self.env)
        if check and res.returncode:
            raise Failure("%s: exit %d: %s" % (" ".join(argv), res.returncode,
                                              (res.stderr or res.stdout).strip()))
        return res

    def node_state(self):
        """(base state, flags, reason) from `scontrol show node`, e.g. ("IDLE", {"DRAIN"},
        "gpuverify: FAIL ...")."""
        out = self.run(["scontrol", "show", "node", self.node]).stdout
        state, reason = "", ""
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("State="):
                state = line.split()[0][len("State="):]
            elif line.startswith("Reason="):
                reason = line[len("Reason="):]
                if reason.endswith("]") and " [" in reason:
                    reason = reason[:reason.rindex(" [")]
        base, *flags = state.split("+")
        return base.rstrip("*"), set(flags), reason

    def wait_responding(self, seconds=30):
        """Until slurmctld hears from slurmd again (no `*`, no NOT_RESPONDING): a job asked
        for while it does not may wait for the next scheduling pass, past srun's --immediate."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            out = self.run(["scontrol", "show", "node", self.node]).stdout
            state = next((w for w in out.split() if w.startswith("State=")), "")
            if state and "*" not in state and "NOT_RESPONDING" not in state:
                return
            time.sleep(0.5)

    def sinfo_reason(self):
        """The node's reason as `sinfo -R` shows it ('' when it has none)."""
        out = self.run(["sinfo", "-R", "-h", "-n", self.node, "-o", "%E|%N"]).stdout
        for line in out.splitlines():
            reason, _, nodes = line.rpartition("|")
            if nodes.strip() == self.node:
                return reason
        return ""

    # --- steps ---------------------------------------------------------------------------
    def step(self, kind, name, scenario, timeout=STEP_TIMEOUT, **env):
        """Writes the step file, returns the first run of it that ended (end time, duration,
        exit status), the step file removed again."""
        env = dict({"GV_STEP": name, "GV_FAKE_SCENARIO": self.scenario(scenario),
                    "GPUVERIFY_LOCK_DIR": self.locks,
                    "GPUVERIFY_GV_CHECK": "%s --sysroot %s --library-dir %s" % (
                        self.gv_check, os.path.join(self.fixtures, "sysroots", "h100-open"),
                        self.fakelib),
                    "GPUVERIFY_CHECKS": "^cuda,^mem,^gemm,^cudnn,^nccl",
                    "GPUVERIFY_STATE": self.path("history.db")}, **env)
        step = self.path(kind + ".step")
        with open(step + ".new", "w") as f:
            for k, v in env.items():
                f.write("%s=%s\n" % (k, shlex.quote(v)))
        os.rename(step + ".new", step)
        if kind == "prolog":
            return None  # the caller starts the job and reads the run with prolog_run()
        try:
            return self.wait_run(kind, name, timeout)
        finally:
            os.remove(step)

    def wait_run(self, kind, name, timeout=STEP_TIMEOUT):
        runs = self.path("log", kind + ".runs")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(runs):
                with open(runs) as f:
                    for line in f:
                        words = line.split()
                        if len(words) == 4 and words[0] == name:
                            return float(words[2]) - float(words[1]), int(words[3])
            if self.procs["slurmd"].poll() is not None:
                raise Failure("slurmd exited: " + self.tail("slurmd"))
            time.sleep(0.2)
        raise Failure("no %s run of step %s within %d s" % (kind, name, timeout))

    def out(self, kind):
        p = self.path("log", kind + ".out")
        return open(p, errors="replace").read() if os.path.exists(p) else ""


def scenarios(c, failures, timings):
    def expect(what, base=None, flags=None, reason=None, reason_has=None):
        got_base, got_flags, got_reason = c.node_state()
        shown = c.sinfo_reason()
        problems = []
        if base is not None and got_base != base:
            problems.append("state %s, want %s" % (got_base, base))
        if flags is not None and ("DRAIN" in got_flags) != ("DRAIN" in flags):
            problems.append("flags %s, want %s" % (sorted(got_flags), sorted(flags)))
        if reason is not None and (got_reason != reason or shown != reason):
            problems.append("reason %r (sinfo -R %r), want %r" % (got_reason, shown, reason))
        for part in reason_has or ():
            if part not in got_reason or part not in shown:
                problems.append("reason %r (sinfo -R %r) lacks %r" % (got_reason, shown, part))
        if problems:
            failures.append("%s: %s" % (what, "; ".join(problems)))
        print("%-44s %-24s %r" % (what, "+".join([got_base] + sorted(got_flags)), got_reason))
        return got_reason

    # 1. A GPU fell off the bus: drained, the reason naming the check.
    dur, rc = c.step("healthcheck", "gpu-lost", "h100x8-gpu-lost")
    timings["gpu-lost"] = dur
    # ... and what the node needs, at its end (docs/checks.md, "Actions").
    expect("FAIL (h100x8-gpu-lost)", flags={"DRAIN"},
           reason_has=["gpuverify: FAIL gpus 3: driver.gpu_count node: PCI sees 8 GPU(s)",
                       ") [hw_inspect]"])
    if rc != 1:
        failures.append("FAIL run: exit %d, want 1" % rc)

    # 2. Healthy: the node this script drained is resumed.
    dur, rc = c.step("healthcheck", "healthy", "h100x8")
    timings["healthy"] = dur
    expect("healthy after the FAIL", base="IDLE", flags=set(), reason="")
    if rc != 0:
        failures.append("healthy run: exit %d, want 0" % rc)

    # 3. nvmlInit hangs: a FAIL naming driver.nvml, well inside slurmd's 60 s.
    dur, rc = c.step("healthcheck", "nvml-hang", "fault-nvml-init-hang")
    timings["nvml-hang"] = dur
    expect("hang (fault-nvml-init-hang)", flags={"DRAIN"},
           reason_has=["gpuverify: FAIL driver.nvml node: timed out after", " [reboot_node]"])
    if dur >= 45:
        failures.append("hang: the script took %.1f s (slurmd kills it at 60 s; its own limit "
                        "is 45 s)" % dur)
    dur, rc = c.step("healthcheck", "healthy-after-hang", "h100x8")
    expect("healthy after the hang", base="IDLE", flags=set(), reason="")
    # cuInit hangs: its four deadlines (the script's default) end before the 5 s gv-check keeps
    # at its budget's end, so it is a FAIL, not "could not judge ... [rerun]" (the action is
    # the node's record's by now: it has failed in this test before).
    dur, rc = c.step("healthcheck", "cuinit-hang", "fault-cuinit-hang")
    timings["cuinit-hang"] = dur
    expect("hang (fault-cuinit-hang)", flags={"DRAIN"},
           reason_has=["gpuverify: FAIL driver.cuda node: timed out after"])
    dur, rc = c.step("healthcheck", "healthy-after-cuinit-hang", "h100x8")
    expect("healthy after the cuInit hang", base="IDLE", flags=set(), reason="")

    # 4. An admin's drain is the admin's: kept through a FAIL and through a healthy run.
    c.run(["scontrol", "update", "nodename=" + c.node, "state=drain", "reason=maintenance"])
    c.step("healthcheck", "admin-fail", "h100x8-gpu-lost")
    expect("admin's drain, then a FAIL", flags={"DRAIN"}, reason="maintenance")
    c.step("healthcheck", "admin-healthy", "h100x8")
    expect("admin's drain, then healthy", flags={"DRAIN"}, reason="maintenance")
    if "keeps" not in c.out("healthcheck") and "kept" not in c.out("healthcheck"):
        failures.append("admin's drain: the script did not log that it kept the reason")
    c.run(["scontrol", "update", "nodename=" + c.node, "state=resume"])

    # 5. GPUs another gpuverify holds: for a short while that run judges them; for longer than
    # the script's limit it is stuck. A 24 s limit: budget 16 s, half of it waited for the GPU.
    # The state is read while the holder still holds: slurmd starts the next health check as
    # soon as one ends, and one that copied the step before it was removed would find the GPUs
    # free once the holder is stopped and resume the node before it was read (seen under load).
    held_env = dict(GPUVERIFY_TIMEOUT="24", GPUVERIFY_CHECKS="cuda.init")
    for held_s, name in ((5, "held-5s"), (400, "held-400s")):
        holder = gpu_holder.start(c.locks, held_s)
        try:
            dur, rc = c.step("healthcheck", name, "h100x1-compute", **held_env)
            timings[name] = dur
            if held_s == 5:
                expect("GPUs held 5 s by another gpuverify", base="IDLE", flags=set(), reason="")
                if rc != 0 or "another gpuverify is testing" not in c.out("healthcheck"):
                    failures.append("held 5 s: exit %d, log %r" % (rc,
                                                                  c.out("healthcheck")[-300:]))
            else:
                expect("GPUs held 400 s by another gpuverify", flags={"DRAIN"},
                       reason_has=["gpuverify: another gpuverify stuck on the GPUs: HELD for 4",
                                   " s by PID %d: " % holder.pid])
        finally:
            gpu_holder.stop(holder)
    c.step("healthcheck", "healthy-after-held", "h100x8")
    expect("healthy after the stuck holder", base="IDLE", flags=set(), reason="")

    # 6. The Prolog: a FAIL fails srun's job ("prolog failed") and drains the node.
    c.step("prolog", "prolog-srun-fail", "h100x8-gpu-lost")
    # The health checks before resumed the node: under load slurmctld may not have heard from
    # slurmd since (IDLE+NOT_RESPONDING), and a job asked for then waits for a later scheduling
    # pass, past --immediate (one CI run in two failed so on a fresh machine).
    c.wait_responding(60)
    res = c.run(["srun", "--immediate=60", "-N", "1", "-n", "1", "-t", "1", "true"], check=False,
                timeout=120)
    dur, rc = c.wait_run("prolog", "prolog-srun-fail")
    timings["prolog-fail"] = dur
    if res.returncode == 0 or "prolog" not in (res.stderr + res.stdout).lower():
        failures.append("srun with a failing Prolog: exit %d, %r" % (res.returncode,
                                                                   res.stderr[-300:]))
    expect("Prolog FAIL (srun)", flags={"DRAIN"},
           reason_has=["gpuverify: FAIL gpus 3: driver.gpu_count node: PCI sees 8 GPU(s)"])
    if "(prolog of job " not in c.out("prolog"):
        failures.append("Prolog: the script did not know it ran as a Prolog: %r"
                        % c.out("prolog")[-300:])
    c.step("healthcheck", "healthy-after-srun", "h100x8")
    expect("healthy after the srun Prolog", base="IDLE", flags=set(), reason="")

    # A batch job: requeued and held, the node drained.
    c.step("prolog", "prolog-sbatch-fail", "h100x8-gpu-lost")
    res = c.run(["sbatch", "--parsable", "-N", "1", "-t", "1", "-o", c.path("log", "job-%j.out"),
                 "--wrap", "true"])
    job = res.stdout.strip().split(";")[0]
    c.wait_run("prolog", "prolog-sbatch-fail")
    end = time.monotonic() + 30
    state = ""
    while time.monotonic() < end:
        state = c.run(["squeue", "-h", "-j", job, "-o", "%T %r"], check=False).stdout.strip()
        # Slurm shows the job COMPLETING (launch failed, requeued held) while it cleans up
        # the failed launch; the state that lasts is PENDING.
        if state.startswith("PENDING") and "held" in state.lower():
            break
        time.sleep(0.5)
    print("%-44s %s" % ("batch job %s after the Prolog FAIL" % job, state))
    if not state.startswith("PENDING") or "held" not in state.lower():
        failures.append("sbatch with a failing Prolog: job %s is %r, want PENDING, requeued "
                        "held" % (job, state))
    expect("Prolog FAIL (sbatch)", flags={"DRAIN"},
           reason_has=["gpuverify: FAIL gpus 3: driver.gpu_count node: PCI sees 8 GPU(s)"])
    c.run(["scancel", job], check=False)
    os.remove(c.path("prolog.step"))
    c.step("healthcheck", "healthy-after-sbatch", "h100x8")
    expect("healthy after the sbatch Prolog", base="IDLE", flags=set(), reason="")

    # Every run above kept the node's record (GPUVERIFY_STATE): the health checks and the
    # Prologs that reached a verdict, gpu3's lost runs marks on its record, the file intact.
    with sqlite3.connect(c.path("history.db")) as db:
        runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        marks = db.execute("SELECT count(*) FROM gpus WHERE subject = 'gpu3' AND bad").fetchone()[0]
        intact = db.execute("PRAGMA integrity_check").fetchone()[0]
    print("%-44s %d runs, gpu3 marked in %d, integrity %s" % ("history kept by the script", runs,
                                                               marks, intact))
    if runs < 10 or marks < 4 or intact != "ok":
        failures.append("GPUVERIFY_STATE: %d runs recorded (want >= 10), gpu3 marked in %d (want "
                        ">= 4: the lost-GPU runs), integrity %s" % (runs, marks, intact))

    # 7. Healthy Prolog, then gv-nccl's two ranks through Slurm's PMIx over the fake NCCL.
    ldd = subprocess.run(["ldd", c.gv_nccl], capture_output=True, text=True).stdout
    if "libmpi" not in ldd:
        print("gv-nccl built without MPI: srun --mpi=pmix gv-nccl not run")
        return
    c.step("prolog", "prolog-nccl", "h100x8")
    c.wait_responding()
    # srun hands the job its environment. Under ASan (.ci/run's second pass) Open MPI's own
    # allocations would fail LeakSanitizer, as in the mpirun tests.
    env = dict(c.env, GV_FAKE_SCENARIO=c.scenario("h100x8"), GPUVERIFY_LOCK_DIR=c.locks,
               OMPI_MCA_btl="self,vader", ASAN_OPTIONS="detect_leaks=0")
    res = c.run(["srun", "--immediate=60", "-N", "1", "-n", "2", "--overcommit", "--mpi=pmix", "-t", "2",
                 c.gv_nccl, "--library-dir", c.fakelib, "-b", "64", "-e", "1M", "-f", "4",
                 "-n", "5"], check=False, timeout=120, env=env)
    os.remove(c.path("prolog.step"))
    dur, rc = c.wait_run("prolog", "prolog-nccl")
    timings["prolog-healthy"] = dur
    table = "all_reduce over 2 ranks (2 processes)"
    print("srun -n 2 --mpi=pmix gv-nccl: exit %d" % res.returncode)
    print("\n".join("  " + l for l in res.stdout.splitlines()[-14:]))
    if rc != 0:
        failures.append("healthy Prolog: exit %d: %r" % (rc, c.out("prolog")[-300:]))
    if (res.returncode != 0 or table not in res.stdout or "1048576" not in res.stdout
            or "# PASS: all_reduce over 2 ranks: data exact" not in res.stdout):
        failures.append("srun --mpi=pmix gv-nccl: exit %d, stdout %r, stderr %r" % (
            res.returncode, res.stdout[-600:], res.stderr[-600:]))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    if os.geteuid() != 0:
        print("SKIP: slurmd and slurmctld run as root here, and this is uid %d" % os.geteuid())
        return SKIP
    args = list(map(os.path.abspath, sys.argv[1:5]))
    tmp = tempfile.mkdtemp(prefix="gv-slurm-")
    os.chmod(tmp, 0o755)  # munged: its socket's directories searchable by all
    c = Cluster(tmp, args)
    failures, timings = [], {}
    started = time.monotonic()
    try:
        c.start()
        print("cluster up in %.1f s: node %s, %s" % (time.monotonic() - started, c.node, tmp))
        scenarios(c, failures, timings)
    except Skip as e:
        c.stop()
        print("SKIP:", e)
        shutil.rmtree(tmp, ignore_errors=True)
        return SKIP
    except (Failure, subprocess.SubprocessError, OSError) as e:
        failures.append("%s: %s" % (type(e).__name__, e))
    finally:
        c.stop()
    for name, dur in timings.items():
        print("script run %-16s %5.1f s" % (name, dur))
    print("whole test %.1f s" % (time.monotonic() - started))
    if failures:
        for kind in ("healthcheck", "prolog"):
            print("--- %s output\n%s" % (kind, c.out(kind)[-3000:]))
        for name in ("slurmctld", "slurmd"):
            print("--- %s log: %s" % (name, c.tail(name, 15)))
        print("(kept %s)" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
