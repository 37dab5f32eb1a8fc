#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gv-fleet run from end to end over a model fleet, no network: `mpirun` on PATH is a model
launcher that answers each group test as gv-nccl would, from a model of the fleet (healthy
40 GB/s, slow nodes at 0.3 of it, a fault between the groups that slows only the test of every
node, and transients: the tests, counted from 0, that come out at 0.4 of their figure). It
asserts what gv-fleet concludes: one transient in the all-nodes collective is not a fault of
the fabric (the collective is tested again before it is blamed), a fault that stays is, and a
slow node is named. Every document is validated against docs/fleet-run.schema.json
(python3-jsonschema; without it, not validated and said so).

usage: test_run.py GV_FLEET"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

try:
    import jsonschema
except ImportError:
    jsonschema = None

GV_FLEET = os.path.realpath(sys.argv.pop(1) if len(sys.argv) > 1 else "examples/fleet/gv-fleet")
NODES = ["n%d" % i for i in range(16)]
DOCS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "docs")
SCHEMA = os.path.normpath(os.path.join(DOCS, "fleet-run.schema.json"))


def schema_errors(doc):
    """What doc breaks of docs/fleet-run.schema.json ([] without python3-jsonschema)."""
    if jsonschema is None:
        return []
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    return ["%s at /%s" % (e.message, "/".join(map(str, e.path)))
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.path))]


MODEL_LAUNCHER = textwrap.dedent('''\
    #!%s
    import json, os, signal, sys, time
    import subprocess
    model = json.load(open(os.environ["GV_FLEET_MODEL"]))
    hosts = [h.split(":")[0] for h in sys.argv[sys.argv.index("--host") + 1].split(",")]
    if model["root"]:  # Open MPI's refusal, as root without --allow-run-as-root (exit 1)
        sys.stderr.write("-" * 74 + "\\nmpirun has detected an attempt to run as root.\\n\\n"
                         "Running as root is *strongly* discouraged.\\n"
                         "We reiterate our advice against doing so.\\n" + "-" * 74 + "\\n")
        sys.exit(1)
    if set(hosts) & set(model["down"]):  # as mpirun: no daemon there, nothing started anywhere
        sys.stderr.write("ORTE was unable to reliably start one or more daemons.\\n")
        sys.exit(255)
    if model["launcher_hang"] or set(hosts) & set(model["hang"]):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopped only by SIGKILL
        time.sleep(3600)
    if "node-check" in sys.argv:  # every node's own checks: the command run on each
        argv = sys.argv[sys.argv.index("--map-by") + 2:]
        for rank, h in enumerate(hosts):
            subprocess.run(argv, env=dict(os.environ, SLURMD_NODENAME=h, SLURM_PROCID=str(rank),
                                          GV_MODEL_EXIT=str(model["node_exit"].get(h, 0))))
        sys.exit(0)
    if model["usage"]:  # gv-nccl refusing its arguments on every rank
        sys.stderr.write("gv-nccl: unknown option '--no-such-flag' (--help lists the options)\\n")
        sys.exit(2)
    if model["missing"] in hosts:  # a node without gv-nccl: its rank cannot start
        sys.stderr.write("%%s: gv-nccl: command not found\\n" %% model["missing"])
        sys.exit(127)
    with open(model["counter"], "a+") as f:
        f.seek(0)
        k = len(f.read())
        f.write(".")
    busbw = 40.0
    if set(hosts) & set(model["slow"]) or (model["between"] and len(hosts) == len(model["nodes"])):
        busbw *= 0.3
    if k in model["transient"]:
        busbw *= 0.4
    wrong = k in model["wrong"]  # the sums wrong in this test
    print(json.dumps({"collective": "all_reduce", "verdict": "FAIL" if wrong else "PASS",
                      "peak_busbw_gbps": busbw, "message": "wrong data" if wrong else
                      "%%d ranks" %% len(hosts)}))
    ''') % sys.executable


class RunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gv-fleet-run-")
        launcher = os.path.join(self.tmp, "mpirun")
        with open(launcher, "w") as f:
            f.write(MODEL_LAUNCHER)
        os.chmod(launcher, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_fleet(self, nodes=NODES, slow=(), between=False, transient=(), floor="28",
                  usage=False, node_exit=None, args=("--level", "none", "--json"), wrong=(),
                  hang=(), launcher_hang=False, missing=None, down=(), root=False):
        """gv-fleet run over the model (a floor of 28 GB/s unless said): the process."""
        model = os.path.join(self.tmp, "model.json")
        counter = os.path.join(self.tmp, "calls")
        if os.path.exists(counter):
            os.unlink(counter)
        with open(model, "w") as f:
            json.dump({"nodes": list(nodes), "slow": list(slow), "between": between,
                       "transient": list(transient), "counter": counter, "usage": usage,
                       "node_exit": node_exit or {}, "wrong": list(wrong), "hang": list(hang),
                       "launcher_hang": launcher_hang, "missing": missing,
                       "down": list(down), "root": root}, f)
        gv_check = os.path.join(self.tmp, "gv-check")
        with open(gv_check, "w") as f:
            f.write('#!/bin/sh\necho "model gv-check: exit $GV_MODEL_EXIT"\nexit "$GV_MODEL_EXIT"\n')
        os.chmod(gv_check, 0o755)
        env = dict(os.environ, PATH=self.tmp + os.pathsep + os.environ.get("PATH", ""),
                   GV_FLEET_MODEL=model)
        return subprocess.run([sys.executable, GV_FLEET, "run", "--launcher", "mpirun", "--hosts",
                               ",".join(nodes), "--min-busbw", floor, "--deadline", "30",
                               "--gv-check", gv_check] + list(args), capture_output=True,
                              text=True, env=env, timeout=300)

    def fleet(self, **kw):
        """gv-fleet run --json over the model: (exit, document), the document validated."""
        p = self.run_fleet(**kw)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            self.fail("no JSON (exit %d): %s %s" % (p.returncode, p.stdout, p.stderr))
        self.assertEqual(schema_errors(doc), [], "against %s: %s" % (SCHEMA, p.stdout))
        return p.returncode, doc

    def test_one_transient_in_the_collective_is_not_the_fabric(self):
        rc, doc = self.fleet(transient=[0])
        rounds = [t["round"] for t in doc["tests"]]
        self.assertEqual((rc, doc["verdict"], doc["culprits"]), (0, "PASS", []), doc)
        self.assertEqual(rounds[0], "all nodes")
        self.assertEqual(rounds[-1], "all nodes again")
        self.assertTrue(doc["all_nodes"]["passed"])

    def test_a_fault_that_stays_is_between_the_groups(self):
        rc, doc = self.fleet(between=True)
        self.assertEqual((rc, doc["verdict"], doc["culprits"]), (1, "FAIL", []), doc)
        self.assertTrue(doc["search"]["between_groups"])
        self.assertFalse(doc["all_nodes"]["passed"])
        self.assertEqual(doc["tests"][-1]["round"], "all nodes again")

    def test_a_slow_node_is_named_without_testing_the_whole_again(self):
        rc, doc = self.fleet(slow=["n9"])
        self.assertEqual((rc, [c["node"] for c in doc["culprits"]]), (1, ["n9"]), doc)
        self.assertNotIn("all nodes again", [t["round"] for t in doc["tests"]])

    def test_few_nodes_without_a_floor_leave_the_speed_undecided(self):
        # Three nodes, one slow: every test holds a pair or the whole, and the whole has no
        # other group of its size to be judged against: never "healthy".
        rc, doc = self.fleet(nodes=["a", "b", "c"], slow=["a"], floor="0")
        self.assertEqual((rc, doc["verdict"], doc["speed_judged"]), (1, "FAIL", False), doc)
        # b slow: the first pair (a, b) had nothing to be judged against yet; it is not left
        # for healthy once the pair after it (c, a) measured more.
        rc, doc = self.fleet(nodes=["a", "b", "c"], slow=["b"], floor="0")
        self.assertIn(["a", "b"], [t["nodes"] for t in doc["unexplained_failures"]], doc)
        p = self.run_fleet(nodes=["a", "b", "c"], slow=["a"], floor="0", args=("--level", "none"))
        self.assertIn("UNDECIDED speed", p.stdout)
        # Six nodes screen in two groups of three: the whole is judged, a slow node named.
        six = ["n%d" % i for i in range(6)]
        rc, doc = self.fleet(nodes=six, floor="0")
        self.assertEqual((rc, doc["verdict"], doc["speed_judged"]), (0, "PASS", True), doc)
        rc, doc = self.fleet(nodes=six, slow=["n4"], floor="0")
        self.assertEqual((rc, [c["node"] for c in doc["culprits"]]), (1, ["n4"]), doc)

    def test_wrong_data_once_is_not_healthy(self):
        # The all-nodes run's sums wrong once; every part and the whole pass after it.
        rc, doc = self.fleet(wrong=[0])
        self.assertEqual((rc, doc["verdict"], doc["culprits"]), (1, "FAIL", []), doc)
        self.assertEqual([t["round"] for t in doc["unexplained_failures"]], ["all nodes"], doc)
        self.assertFalse(doc["search"]["between_groups"], doc)
        p = self.run_fleet(wrong=[0], args=("--level", "none"))
        self.assertIn("UNEXPLAINED", p.stdout)
        self.assertIn("wrong data", p.stdout)

    def test_a_healthy_run_finds_nothing_between_the_groups(self):
        rc, doc = self.fleet(nodes=["n%d" % i for i in range(6)], floor="0")
        self.assertEqual((rc, doc["verdict"]), (0, "PASS"), doc)
        self.assertFalse(doc["search"]["between_groups"], doc)
        self.assertEqual(doc["unexplained_failures"], [])

    def test_a_node_without_gv_nccl_is_named_not_the_setup(self):
        p = self.run_fleet(missing="n0", args=("--level", "none", "--json"))
        self.assertNotEqual(p.returncode, 2, p.stdout + p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual((p.returncode, [c["node"] for c in doc["culprits"]]), (1, ["n0"]), doc)

    def test_a_launcher_that_starts_nothing_blames_no_node(self):
        p = self.run_fleet(launcher_hang=True, args=("--level", "quick", "--deadline", "1"))
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("started no node check (no answer within", p.stderr)
        self.assertNotIn("CULPRIT", p.stdout)

    def test_launches_that_hang_together_are_stopped_together(self):
        # One node hangs in each of the eight screen groups of 64, and ignores SIGTERM: each
        # launch is stopped within the bound printed (deadline + 10 s + 10 s), not 5 s more
        # for every other launch stopped before it.
        nodes = ["n%d" % i for i in range(64)]
        rc, doc = self.fleet(nodes=nodes, hang=["n%d" % (8 * g + 3) for g in range(8)],
                             args=("--level", "none", "--json", "--deadline", "1",
                                   "--max-rounds", "1"))
        screen = [t for t in doc["tests"] if t["round"] == 1]
        self.assertEqual(len(screen), 8, doc["tests"])
        self.assertTrue(all(t["seconds"] <= 1 + 20 for t in doc["tests"]), doc["tests"])
        self.assertLessEqual(doc["seconds"], 3 * 21, doc)

    def test_a_node_named_twice_is_refused_an_address_is_whole(self):
        p = self.run_fleet(nodes=["n1", "N1.cluster", "n2"])
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("a node is named twice", p.stderr)
        rc, doc = self.fleet(nodes=["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"])
        self.assertEqual((rc, doc["verdict"]), (0, "PASS"), doc)

    def test_gv_nccl_that_cannot_run_is_a_usage_error(self):
        p = self.run_fleet(usage=True)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("gv-nccl could not run through mpirun", p.stderr)
        self.assertIn("unknown option", p.stderr)

    def test_a_node_its_own_checks_could_not_judge_is_not_healthy(self):
        rc, doc = self.fleet(nodes=["a", "b", "c", "d"], node_exit={"c": 3},
                             args=("--level", "quick", "--json"))
        self.assertEqual((rc, doc["verdict"], [j["node"] for j in doc["not_judged"]]),
                         (1, "FAIL", ["c"]), doc)
        rc, doc = self.fleet(nodes=["a", "b", "c", "d"], args=("--level", "quick", "--json"))
        self.assertEqual((rc, doc["verdict"]), (0, "PASS"), doc)

    def test_mpirun_refusing_to_run_is_the_setup(self):
        # mpirun as root without --allow-run-as-root runs nothing anywhere: no node is at
        # fault, and its headline, not its last line, says why.
        for level in ("none", "quick"):
            p = self.run_fleet(nodes=["a", "b", "c", "d"], root=True, args=("--level", level))
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("mpirun has detected an attempt to run as root", p.stderr)

    def test_a_node_mpirun_cannot_start_is_named(self):
        # One node down: mpirun over all nodes starts nothing anywhere; each node by itself
        # then finds it (not the site's setup, exit 2).
        rc, doc = self.fleet(nodes=["a", "b", "c", "d"], down=["c"],
                             args=("--level", "quick", "--json"))
        self.assertEqual((rc, doc["verdict"], [c["node"] for c in doc["culprits"]]),
                         (1, "FAIL", ["c"]), doc)
        self.assertIn("launcher exit 255", doc["node_checks"]["c"]["summary"])

    def test_the_bound_printed_is_what_a_launch_may_take(self):
        # Each launch: its deadline, the launcher's grace (10 s), SIGTERM then SIGKILL (10 s).
        p = self.run_fleet(nodes=[" a", "b "], args=("--level", "none", "--max-rounds", "1"))
        self.assertIn("at most 3 launches", p.stdout)
        self.assertIn("each stopped after 50 s: 150 s in all", p.stdout)
        self.assertIn("2 nodes through mpirun", p.stdout)
        self.assertIn("a,b", p.stdout)  # the names without their blanks

    def test_slurm_without_scontrol_is_a_usage_error(self):
        srun = os.path.join(self.tmp, "srun")
        with open(srun, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(srun, 0o755)
        p = subprocess.run([sys.executable, GV_FLEET, "run", "--launcher", "slurm", "--hosts",
                            "a,b", "--level", "none"], capture_output=True, text=True,
                           env=dict(os.environ, PATH=self.tmp), timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("scontrol is not on PATH", p.stderr)
        self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    if jsonschema is None:
        print("python3-jsonschema is not installed: the documents are not validated")
    unittest.main(verbosity=2)
