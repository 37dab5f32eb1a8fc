#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gv-fleet on a real multi-node Slurm: Debian 12's munged, one slurmctld and six slurmd, each
daemon in a network namespace of its own with its own address on a veth bridge, its own host
name (a UTS namespace), started here and stopped here (config, keys, state and logs in a
temporary directory; nothing in /etc).

Each node's GPUs are the fakes: a TaskProlog gives every task its node's scenario and GPU lock
folder. The fake NCCL runs with GV_FAKE_NCCL_NET=socket, so every group test's bytes cross
the veth links between the namespaces. Runs, each `salloc -N 6 gv-fleet run --json`:
  1. a healthy cluster: exit 0, no culprit, every node's own checks PASS;
  2. node n4's link shaped with tc tbf (both directions) and node n2 with a GPU off the bus:
     exactly n2 (its own checks) and n4 (the search) named, exit 1;
  3. only n3's link shaped, six nodes in the search (two screen groups of three): exactly n3
     named;
  4. n2's and n5's links shaped, one in each screen group: judged against each other both
     groups pass alike, and the pair round after them names exactly n2 and n5;
  (and a mistyped gv-check option on every node: exit 2, nobody named);
  5. `srun -N 6 gv-check --json` with n2's GPU off the bus, its output read by `gv-fleet report
     --drain` as srun printed it: n2 FAILs and is drained with a "gpuverify: fleet:" reason,
     the others PASS and stay in service.
It asserts the shaped node's veth carried the search's bytes, and that no daemon, namespace,
veth or bridge is left behind. Exit 77 (skipped) only when not root or Slurm is not installed.

usage: test_slurm_fleet.py FLEET_TOOL GV_CHECK GV_NCCL FIXTURES FAKELIB"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import daemons

SKIP = 77
NODES = ["n1", "n2", "n3", "n4", "n5", "n6"]
PASSIVE = "^cuda,^mem,^gemm,^cudnn,^driver.compat,^nccl"
# 10 Mbit/s: a 1 MiB all-reduce takes ~0.8 s over it, ~3 ms over a healthy veth; the healthy
# pairs' figures swing with the CPU (the fake reduces on it, beside ctest's other tests), so
# the test judges at a tenth of the best figure (--tolerance 0.1), far from both.
SHAPED = "rate 10mbit burst 64kbit latency 50ms"


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def sh(*argv, check=True):
    p = subprocess.run(argv, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise Failure("%s: exit %d: %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
    return p


class Cluster:
    def __init__(self, tmp, fleet, gv_check, gv_nccl, fixtures, fakelib):
        self.tmp = tmp
        self.fleet, self.gv_check, self.gv_nccl = fleet, gv_check, gv_nccl
        self.fixtures, self.fakelib = fixtures, fakelib
        tag = os.getpid() % 10000
        self.net = 20 + os.getpid() % 200  # 10.77.<net>.0/24, this run's own
        self.bridge = "gvfb%d" % tag
        self.ns = {n: "gvf%d-%s" % (tag, n) for n in ["c0"] + NODES}
        self.host_if = {n: "gvfh%d%s" % (tag, n) for n in self.ns}
        self.addr = {n: "10.77.%d.%d" % (self.net, 10 + i) for i, n in enumerate(self.ns)}
        self.procs = {}
        self.made_ns = []
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SALLOC_"))}
        self.env["SLURM_CONF"] = self.conf

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    # --- network -------------------------------------------------------------------------
    def make_network(self):
        if os.geteuid() != 0:
            raise Skip("needs root (network namespaces, slurmd)")
        for tool in ("ip", "tc", "nsenter", "unshare", "munged", "slurmctld", "slurmd",
                     "salloc", "sinfo"):
            if not shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
                raise Skip("not installed: %s (scripts/setup-debian.sh test installs it)" % tool)
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "link", "set", self.bridge, "up")
        for node, ns in self.ns.items():
            sh("ip", "netns", "add", ns)
            self.made_ns.append(ns)
            host, peer = self.host_if[node], "eth0"
            sh("ip", "link", "add", host, "type", "veth", "peer", "name", peer, "netns", ns)
            sh("ip", "link", "set", host, "master", self.bridge)
            sh("ip", "link", "set", host, "up")
            sh("ip", "-n", ns, "addr", "add", self.addr[node] + "/24", "dev", peer)
            sh("ip", "-n", ns, "link", "set", peer, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")

    def shape(self, node, on):
        """tbf on both ends of the node's link: what the bridge sends it, what it sends."""
        for argv in (["tc", "qdisc", "%s" % ("replace" if on else "del"), "dev",
                      self.host_if[node], "root"],
                     ["tc", "-n", self.ns[node], "qdisc", "replace" if on else "del", "dev",
                      "eth0", "root"]):
            sh(*(argv + (["tbf"] + SHAPED.split() if on else [])))

    def tx_bytes(self, node):
        """Bytes the bridge sent to the node (its host-side veth's tx counter)."""
        with open("/sys/class/net/%s/statistics/tx_bytes" % self.host_if[node]) as f:
            return int(f.read())

    def in_ns(self, node, hostname, argv):
        return ["nsenter", "--net=/run/netns/" + self.ns[node], "unshare", "--uts", "sh", "-c",
                "hostname %s && exec %s" % (hostname, " ".join(shlex.quote(a) for a in argv))]

    # --- daemons -------------------------------------------------------------------------
    def start(self):
        for d in ["etc", "state", "log", "run", "locks"] + ["spool/" + n for n in NODES]:
            os.makedirs(self.path(d), 0o755)
        os.chmod(self.path("etc"), 0o700)
        argv, self.munge_socket, answers = daemons.munged(self.tmp)
        self.spawn("munged", argv)
        self.wait_for("munged", answers, 30)
        self.write_conf()
        self.spawn("slurmctld", self.in_ns("c0", "c0", ["slurmctld", "-D", "-i", "-f",
                                                        self.conf]))
        self.wait_for("slurmctld", lambda: "is UP" in self.slurm(["scontrol", "ping"]).stdout,
                      60)
        for n in NODES:
            self.spawn("slurmd-" + n, self.in_ns(n, n, ["slurmd", "-D", "-f", self.conf, "-N", n]))
        self.wait_for("every node idle", self.all_idle, 90)

    def spawn(self, name, argv):
        log = open(self.path("log", name + ".out"), "w")
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                            env=self.env, start_new_session=True)

    def wait_for(self, what, ready, seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            dead = [n for n, p in self.procs.items() if p.poll() is not None]
            if dead:
                raise Failure("%s exited while waiting for %s: %s" % (
                    dead[0], what, self.log_tail(dead[0])))
            if ready():
                return
            time.sleep(0.3)
        raise Failure("%s not ready within %d s" % (what, seconds))

    def log_tail(self, name):
        for p in (self.path("log", name + ".out"), self.path("log", name + ".log")):
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    return "".join(f.readlines()[-15:])
        return ""

    def all_idle(self):
        out = self.slurm(["sinfo", "-N", "-h", "-o", "%N %t"]).stdout.split("\n")
        states = dict(line.split() for line in out if line.strip())
        return all(states.get(n) == "idle" for n in NODES)

    def slurm(self, argv, **kw):
        """A Slurm command from the controller's namespace, so that every callback to it stays
        on the bridge."""
        return subprocess.run(["nsenter", "--net=/run/netns/" + self.ns["c0"]] + argv,
                              capture_output=True, text=True, env=self.env, **kw)

    def write_conf(self):
        task_prolog = self.path("task-prolog.sh")
        with open(task_prolog, "w") as f:
            # A TaskProlog's "export NAME=value" lines set the task's environment: each node
            # its own scenario (the file scenario.<node>, else healthy) and GPU lock folder.
            f.write("""#!/bin/sh
node=$SLURMD_NODENAME
scenario=$(cat {tmp}/scenario.$node 2>/dev/null || echo h100x8)
mkdir -p {tmp}/locks/$node
echo "export GV_FAKE_SCENARIO={fixtures}/scenarios/$scenario.conf"
echo "export GPUVERIFY_LOCK_DIR={tmp}/locks/$node"
""".format(tmp=self.tmp, fixtures=self.fixtures))
        os.chmod(task_prolog, 0o755)
        plugstack = self.path("etc", "plugstack.conf")
        open(plugstack, "w").close()
        conf = {
            "ClusterName": "gvfleet%d" % (os.getpid() % 10000),
            "SlurmctldHost": "c0(%s)" % self.addr["c0"],
            "SlurmctldPort": 6817, "SlurmdPort": 6818,
            "SlurmUser": "root", "SlurmdUser": "root",
            "AuthType": "auth/munge", "CredType": "cred/munge",
            "AuthInfo": "socket=" + self.munge_socket,
            "StateSaveLocation": self.path("state"),
            "SlurmdSpoolDir": self.path("spool", "%n"),
            "SlurmctldPidFile": self.path("run", "slurmctld.pid"),
            "SlurmdPidFile": self.path("run", "slurmd-%n.pid"),
            "SlurmctldLogFile": self.path("log", "slurmctld.log"),
            "SlurmdLogFile": self.path("log", "slurmd-%n.log"),
            "SlurmctldDebug": "info", "SlurmdDebug": "info",
            "PlugStackConfig": plugstack,
            "ProctrackType": "proctrack/linuxproc", "TaskPlugin": "task/none",
            "TaskProlog": task_prolog,
            "SelectType": "select/cons_tres", "SelectTypeParameters": "CR_Core",
            "SchedulerType": "sched/builtin",
            "AccountingStorageType": "accounting_storage/none",
            "JobAcctGatherType": "jobacct_gather/none", "JobCompType": "jobcomp/none",
            "MpiDefault": "none", "ReturnToService": "2", "KillWait": "2",
            "InactiveLimit": "0",
            # A node is not marked down for a slow answer under a loaded CI machine.
            "SlurmdTimeout": "300", "MessageTimeout": "60",
        }
        cpus = max(2, os.cpu_count() or 2)
        with open(self.conf, "w") as f:
            for k, v in conf.items():
                f.write("%s=%s\n" % (k, v))
            for n in NODES:
                f.write("NodeName=%s NodeAddr=%s NodeHostname=%s CPUs=%d State=UNKNOWN\n"
                        % (n, self.addr[n], n, cpus))
            f.write("PartitionName=gv Nodes=%s Default=YES MaxTime=INFINITE State=UP\n"
                    % ",".join(NODES))

    # --- runs ----------------------------------------------------------------------------
    def fleet_run(self, label, gv_check_args=()):
        """gv-fleet run's answer: (exit, its JSON), or (exit, its stderr) when it printed no
        JSON and exited 2 (a usage error)."""
        argv = ["salloc", "-N", str(len(NODES)), "--immediate=120", "--quiet",
                sys.executable, self.fleet, "run", "--json", "--deadline", "60",
                "--bytes", "1M", "--iters", "3", "--tolerance", "0.1",
                "--gv-check", self.gv_check, "--gv-nccl", self.gv_nccl]
        for a in ("--sysroot", os.path.join(self.fixtures, "sysroots", "h100-open"),
                  "--library-dir", self.fakelib, "--checks", PASSIVE) + tuple(gv_check_args):
            argv.append("--gv-check-arg=" + a)
        argv += ["--gv-nccl-arg=--library-dir", "--gv-nccl-arg=" + self.fakelib]
        for k in ("GV_FAKE_NCCL_NET=socket",):
            self.env[k.split("=")[0]] = k.split("=")[1]
        started = time.monotonic()
        p = self.slurm(argv, timeout=900)
        took = time.monotonic() - started
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            if p.returncode == 2 and not p.stdout.strip():
                print("%s: exit 2 in %.1f s: %s" % (label, took, p.stderr.strip()))
                return 2, p.stderr
            raise Failure("%s: gv-fleet printed no JSON (exit %d): %s\n%s" % (
                label, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        print("%s: exit %d in %.1f s; culprits %s; %d group tests; best busbw %s" % (
            label, p.returncode, took, [(c["node"], c["found_by"]) for c in doc["culprits"]],
            len(doc["tests"]), doc["reference_busbw_gbps"]))
        for t in doc["tests"]:
            print("    round %-9s %-5s %8.4f GB/s %5.1f s  %s" % (
                t["round"], t["verdict"], t["busbw_gbps"], t["seconds"], ",".join(t["nodes"])))
            if t["verdict"] != "PASS":
                print("        " + t["why"][:300])
        return p.returncode, doc

    def report_run(self, label):
        """Every node's gv-check at once through srun, read by gv-fleet report --drain."""
        out = self.path("reports.json")
        # Each node its own copy of the fixture's files, with its own host name in them.
        for n in NODES:
            root = self.path("sysroot." + n)
            if not os.path.isdir(root):
                shutil.copytree(os.path.join(self.fixtures, "sysroots", "h100-open"), root,
                                symlinks=True)
                with open(os.path.join(root, "proc", "sys", "kernel", "hostname"), "w") as f:
                    f.write(n + "\n")
        argv = ["salloc", "-N", str(len(NODES)), "--immediate=120", "--quiet",
                "srun", "--label", "--ntasks-per-node=1", "sh", "-c",
                'exec "$0" "$@" --sysroot %s.$SLURMD_NODENAME' % self.path("sysroot"),
                self.gv_check, "--json", "--library-dir", self.fakelib, "--checks", PASSIVE]
        p = self.slurm(argv, timeout=600)
        open(out, "w").write(p.stdout)
        r = self.slurm([sys.executable, self.fleet, "report", "--json", "--drain", out],
                       timeout=120)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            raise Failure("%s: gv-fleet report printed no JSON (exit %d): %s" % (
                label, r.returncode, r.stderr[-2000:]))
        print("%s: srun printed %d lines, report exit %d: %s; %s" % (
            label, p.stdout.count("\n"), r.returncode,
            [(n["hostname"], n["verdict"]) for n in doc["nodes"]], r.stderr.strip()[-500:]))
        return r.returncode, doc

    def node_reason(self, node):
        shown = self.slurm(["scontrol", "show", "node", node]).stdout
        state = shown.split("State=")[1].split()[0] if "State=" in shown else ""
        reason = shown.split("Reason=")[1].split(" [")[0] if "Reason=" in shown else ""
        return state, reason

    def stop(self):
        daemons.stop(self.procs, ["slurmd-" + n for n in NODES] + ["slurmctld", "munged"])
        for node, ns in self.ns.items():
            subprocess.run(["ip", "link", "del", self.host_if[node]], capture_output=True)
            if ns in self.made_ns:
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    def leftovers(self):
        """What is still here of this run: daemons, namespaces, links (the kernel removes a
        namespace's links after `ip netns del` returns: a few seconds allowed)."""
        until = time.monotonic() + 10
        while True:
            left = self._leftovers()
            if not left or time.monotonic() > until:
                return left
            time.sleep(0.5)

    def _leftovers(self):
        left = [n for n, p in self.procs.items() if p.poll() is None]
        names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        left += [ns for ns in self.made_ns if ns in names.split()]
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        left += [i for i in [self.bridge] + list(self.host_if.values()) if i + ":" in links or
                 i + "@" in links]
        return left


def check(cond, what):
    if not cond:
        raise Failure(what)


def main(argv):
    if len(argv) != 6:
        print(__doc__)
        return 2
    fleet, gv_check, gv_nccl, fixtures, fakelib = argv[1:]
    tmp = tempfile.mkdtemp(prefix="gv-slurm-fleet-")
    os.chmod(tmp, 0o755)
    c = Cluster(tmp, fleet, gv_check, gv_nccl, fixtures, fakelib)
    code = 0
    try:
        c.make_network()
        c.start()
        rc, doc = c.fleet_run("healthy")
        check(rc == 0 and doc["verdict"] == "PASS" and not doc["culprits"],
              "healthy cluster: exit %d, culprits %s" % (rc, doc["culprits"]))
        check(all(r["exit"] == 0 for r in doc["node_checks"].values()),
              "healthy cluster: a node's own checks did not pass: %s" % doc["node_checks"])

        # A mistyped option is the site's: gv-check exits 2 on every node, no node is named.
        rc, err = c.fleet_run("a usage error on every node", ["--no-such-option"])
        check(rc == 2 and "gv-check could not run on any node" in err,
              "a usage error on every node: exit %d: %s" % (rc, err))

        with open(c.path("scenario.n2"), "w") as f:
            f.write("h100x8-gpu-lost\n")
        c.shape("n4", True)
        before = c.tx_bytes("n4")
        rc, doc = c.fleet_run("n2 GPU lost, n4 shaped")
        moved = c.tx_bytes("n4") - before
        named = sorted((x["node"], x["found_by"]) for x in doc["culprits"])
        check(rc == 1 and named == [("n2", "own checks"), ("n4", "search")],
              "n2 and n4 planted: exit %d, named %s" % (rc, named))
        check(moved > 2 << 20, "n4's link carried only %d bytes of the search" % moved)
        print("n4's shaped link carried %.1f MB of the tests" % (moved / 1e6))
        c.shape("n4", False)
        os.unlink(c.path("scenario.n2"))

        c.shape("n3", True)
        rc, doc = c.fleet_run("n3 shaped")
        named = sorted(x["node"] for x in doc["culprits"])
        check(rc == 1 and named == ["n3"], "n3 planted: exit %d, named %s" % (rc, named))
        check(doc["search"] and len(doc["search"]["rounds"][0]) == 2,
              "six nodes: the screen should test two groups: %s" % doc["search"])
        c.shape("n3", False)

        for n in ("n2", "n5"):
            c.shape(n, True)
        rc, doc = c.fleet_run("n2 and n5 shaped, one in each screen group")
        named = sorted(x["node"] for x in doc["culprits"])
        check(rc == 1 and named == ["n2", "n5"], "n2 and n5 planted: exit %d, named %s" % (
            rc, named))
        rounds = doc["search"]["rounds"]
        check(all(len(g["nodes"]) == 2 for g in rounds[1]),
              "the screen's groups passed alike: a round of pairs should follow: %s" % rounds)
        for n in ("n2", "n5"):
            c.shape(n, False)

        with open(c.path("scenario.n2"), "w") as f:
            f.write("h100x8-gpu-lost\n")
        rc, doc = c.report_run("srun gv-check, n2 GPU lost")
        verdicts = {n["hostname"]: n["verdict"] for n in doc["nodes"]}
        check(rc == 1 and verdicts == dict({n: "PASS" for n in NODES}, n2="FAIL")
              and not doc["skipped"], "srun's reports: exit %d, %s, skipped %s" % (
                  rc, verdicts, doc["skipped"]))
        state, reason = c.node_reason("n2")
        check("DRAIN" in state and reason.startswith("gpuverify: fleet: "),
              "n2 drained by the report: %s, %r" % (state, reason))
        others = {n: c.node_reason(n)[0] for n in NODES if n != "n2"}
        check(all("DRAIN" not in s for s in others.values()), "others drained: %s" % others)
        print("n2 drained: %s" % reason)
        print("PASS")
    except Skip as e:
        print("SKIP: %s" % e)
        code = SKIP
    except (Failure, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        for name in ["slurmctld"] + ["slurmd-" + n for n in NODES]:
            print("--- %s:\n%s" % (name, c.log_tail(name)))
        code = 1
    finally:
        c.stop()
        left = c.leftovers()
        if left:
            print("FAIL: left behind: %s" % left)
            code = 1
        shutil.rmtree(tmp, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
