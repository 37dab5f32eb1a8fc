#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gv-fleet's node checks, without a launcher: the node-check subcommand names its node as
Slurm does (SLURMD_NODENAME) with its rank in the launch, kills a gv-check past its deadline
with everything it started (a site's wrapper script and its children), and reports gv-check's
exit; node_record matches answers to the launch's nodes by name, short name, or (a hostfile of
addresses under mpirun) by the addresses the answering host has, never by rank: Open MPI puts
rank 0 on the node mpirun runs on.

usage: test_node_checks.py GV_FLEET"""
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

GV_FLEET = os.path.realpath(sys.argv.pop(1) if len(sys.argv) > 1 else "examples/fleet/gv-fleet")


def load_tool():
    loader = importlib.machinery.SourceFileLoader("gv_fleet_tool", GV_FLEET)
    spec = importlib.util.spec_from_loader("gv_fleet_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


tool = load_tool()


def node_check(gv_check, deadline, env=None):
    p = subprocess.run([sys.executable, GV_FLEET, "node-check", "--gv-check", gv_check,
                        "--deadline", str(deadline), "--"], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})), timeout=60)
    return json.loads(p.stdout.strip().splitlines()[-1])


class NodeCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gv-fleet-node-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def script(self, name, body):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return path

    def test_named_as_slurm_names_it_with_its_rank(self):
        ok = self.script("ok", "echo 'OK 3 checks, 3 rows: 3 PASS'\n")
        rec = node_check(ok, 10, {"SLURMD_NODENAME": "gpu-017", "SLURM_PROCID": "3"})
        self.assertEqual((rec["gv_fleet_node"], rec["rank"], rec["exit"], rec["summary"]),
                         ("gpu-017", 3, 0, "OK 3 checks, 3 rows: 3 PASS"))

    def test_usage_error_is_exit_2(self):
        usage = self.script("usage", "echo \"gv-check: usage error at '--nope'\"; exit 2\n")
        rec = node_check(usage, 10)
        self.assertEqual((rec["exit"], rec["summary"]), (2, "gv-check: usage error at '--nope'"))
        rec = node_check(os.path.join(self.tmp, "absent"), 10)
        self.assertEqual(rec["exit"], 2)
        self.assertIn("cannot run", rec["summary"])

    def test_deadline_kills_what_the_wrapper_started(self):
        marker = os.path.join(self.tmp, "child.pid")
        hang = self.script("hang", "sleep 300 &\necho $! > %s\nwait\n" % marker)
        started = time.monotonic()
        rec = node_check(hang, 1)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(rec["exit"], -1)
        self.assertIn("did not answer within 1 s", rec["summary"])
        child = int(open(marker).read())
        for _ in range(50):  # SIGKILL is delivered at once; its reaping by init may lag
            if not os.path.exists("/proc/%d" % child) or \
                    open("/proc/%d/stat" % child).read().split()[2] == "Z":
                break
            time.sleep(0.1)
        else:
            self.fail("the wrapper's child %d outlived the node check" % child)


class NodeRecordTest(unittest.TestCase):
    def answers(self, *named):
        return [{"gv_fleet_node": name, "rank": rank, "exit": 0, "addresses": addresses}
                for name, rank, addresses in named]

    def match(self, nodes, records):
        return [(tool.node_record(n, records) or {}).get("gv_fleet_node") for n in nodes]

    def test_by_name_and_short_name(self):
        recs = self.answers(("n2.cluster", 0, []), ("n1", 1, []))
        self.assertEqual(self.match(["n1", "n2"], recs), ["n1", "n2.cluster"])

    def test_addresses_by_the_hosts_own(self):
        # mpirun over a hostfile of addresses, run on the second of them: Open MPI put rank 0
        # there, and the ranks no longer follow the list.
        recs = self.answers(("n2", 0, ["127.0.0.1", "10.0.0.12", "fd00::12"]),
                            ("n1", 1, ["10.0.0.11"]), ("n3", 2, ["10.0.0.13"]))
        self.assertEqual(self.match(["10.0.0.11", "10.0.0.12", "10.0.0.13", "fd00:0::12"], recs),
                         ["n1", "n2", "n3", "n2"])

    def test_an_address_has_no_short_name(self):
        # A host whose name is its address: "10.9.0.2" is not "10.9.0.1"'s short name "10".
        recs = self.answers(("10.9.0.2", 0, []), ("gpu-a", 1, ["10.9.0.1"]))
        self.assertEqual(self.match(["10.9.0.1", "10.9.0.2"], recs), ["gpu-a", "10.9.0.2"])

    def test_a_node_that_did_not_answer_has_none(self):
        recs = self.answers(("n1", 0, ["10.0.0.11"]), ("n3", 2, ["10.0.0.13"]))
        self.assertEqual(self.match(["n1", "n2", "n3", "10.0.0.12"], recs),
                         ["n1", None, "n3", None])

    def test_the_node_check_names_its_addresses(self):
        mine = tool.local_addresses()
        self.assertIn("127.0.0.1", mine)
        if os.path.exists("/proc/net/if_inet6") and "::1" in open("/proc/net/if_inet6").read() \
                .replace("00000000000000000000000000000001", "::1"):
            self.assertIn("::1", mine)  # IPv6's loopback, not read as 0.0.0.1


if __name__ == "__main__":
    unittest.main(verbosity=1)
