# SPDX-License-Identifier: Apache-2.0
"""How gv-fleet starts work on nodes: through the launcher the site already has (Slurm's srun
inside an allocation, Open MPI's mpirun over a host list), never SSH of its own. A round is
several launches at once, each on its own nodes and each bounded by a deadline: a launch still
running then is stopped (SIGTERM, which srun and mpirun pass to their tasks, then SIGKILL) and
counts as hung; the others go on."""
import os
import signal
import subprocess
import tempfile
import time

GRACE_S = 10.0  # a launcher's own start and stop, beyond the work's deadline
STOP_S = 10.0  # then SIGTERM, and SIGKILL 5 s later, each waited for 5 s (Run.stop)


class Launcher:
    """Builds the command line that runs `argv` once per node (or `per_node` times) on
    `nodes`."""

    name = "?"

    def __init__(self, extra_args=()):
        self.extra = list(extra_args)

    def command(self, nodes, per_node, argv):
        raise NotImplementedError

    def address(self, node):
        """The address other nodes reach this node at."""
        return node


class Slurm(Launcher):
    """srun job steps inside the allocation (salloc, sbatch): one step per group, the groups of
    a round side by side on disjoint nodes. No PMIx needed: gv-nccl's ranks meet through
    --rendezvous at the group's first node. --overlap: a step stopped at its deadline on a node
    that hangs or lost its network is not over for slurmctld until that node answers, and
    without it the step would keep its nodes' CPUs, so that no later step on its healthy nodes
    could start: each would run into its deadline and blame whoever shared it."""

    name = "slurm"

    def command(self, nodes, per_node, argv):
        return (["srun", "--nodes=%d" % len(nodes), "--ntasks=%d" % (len(nodes) * per_node),
                 "--ntasks-per-node=%d" % per_node, "--nodelist=" + ",".join(nodes),
                 "--kill-on-bad-exit=0", "--overlap", "--quiet"] + self.extra + list(argv))

    def address(self, node):
        """Where the node listens: its NodeAddr in Slurm (names alone may not resolve)."""
        if not hasattr(self, "_addrs"):
            self._addrs = {}
            try:
                out = subprocess.run(["scontrol", "show", "node", "--oneliner"],
                                     capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.TimeoutExpired):
                out = ""  # the names then, as given
            for line in out.splitlines():
                fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
                if "NodeName" in fields and "NodeAddr" in fields:
                    self._addrs[fields["NodeName"]] = fields["NodeAddr"]
        return self._addrs.get(node, node)

    @staticmethod
    def allocation_nodes():
        """The allocation's nodes, in Slurm's order; [] outside one."""
        nodelist = os.environ.get("SLURM_JOB_NODELIST") or os.environ.get("SLURM_NODELIST")
        if not nodelist:
            return []
        try:
            out = subprocess.run(["scontrol", "show", "hostnames", nodelist],
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return []
        return out.stdout.split() if out.returncode == 0 else []


class Mpirun(Launcher):
    """Open MPI's mpirun over a host list: one mpirun per group."""

    name = "mpirun"

    def command(self, nodes, per_node, argv):
        hosts = ",".join("%s:%d" % (n, per_node) for n in nodes)
        return (["mpirun", "-np", str(len(nodes) * per_node), "--host", hosts,
                 "--map-by", "ppr:%d:node" % per_node] + self.extra + list(argv))

    @staticmethod
    def hostfile_nodes(path):
        """The hosts of an Open MPI hostfile ("host slots=8" lines, # comments), in order."""
        nodes = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = line.split("#", 1)[0].split()
                if words and words[0] not in nodes:
                    nodes.append(words[0])
        return nodes


class Run:
    """One launch of a round: its nodes, process, output and how it ended."""

    def __init__(self, nodes, command, env):
        self.nodes = tuple(nodes)
        self.command = command
        self.started = time.monotonic()
        # Files, not pipes: a launch with much to say must not block on a full pipe.
        self._out, self._err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, stdout=self._out, stderr=self._err,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        self.stdout = self.stderr = ""
        self.returncode = None
        self.hung = False
        self.seconds = 0.0


def stop_all(runs):
    """SIGTERM each launcher's group (srun and mpirun pass it to their tasks), SIGKILL what is
    left 5 s later, all at once: launches that hang together are stopped within STOP_S
    together, not one after another."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for r in runs:
            try:
                os.killpg(r.proc.pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + STOP_S / 2
        while any(r.proc.poll() is None for r in runs) and time.monotonic() < end:
            time.sleep(0.05)
        runs = [r for r in runs if r.proc.poll() is None]
        if not runs:
            return


def run_round(launcher, groups, per_node, argv_for, deadline_s, env=None):
    """Launches argv_for(group) on every group at once and waits for all, each at most
    deadline_s + GRACE_S; returns the Runs in the order of groups. A launcher that outlives
    SIGKILL (stuck in the kernel) is left behind, its exit unknown (returncode None)."""
    started = time.monotonic()
    runs = [Run(g, launcher.command(g, per_node, argv_for(g)), env) for g in groups]
    for r in runs:  # one deadline for the round: launches that hang are stopped together
        r.started = started
    limit = deadline_s + GRACE_S
    pending = list(runs)
    while pending:
        now = time.monotonic()
        late = []
        for r in list(pending):
            if r.proc.poll() is not None:
                r.seconds = now - r.started
                pending.remove(r)
            elif now - r.started > limit:
                r.hung = True
                late.append(r)
                pending.remove(r)
        if late:
            stop_all(late)
            for r in late:
                r.seconds = time.monotonic() - r.started
        if pending:
            time.sleep(0.05)
    for r in runs:
        for f in (r._out, r._err):
            f.seek(0)
        r.stdout = r._out.read().decode(errors="replace")
        r.stderr = r._err.read().decode(errors="replace")
        r._out.close(), r._err.close()
        r.returncode = r.proc.poll()
    return runs
