"""The integration examples end to end over the fakes: the Slurm health check drains a failing
node with the failing check's message (scontrol replaced by a recorder) and leaves a healthy one
alone; the fleet aggregator flags the node whose GEMM is below the fleet median, and the node
pair whose gv-nccl busbw is below the median pair's.

Usage (ctest): test_integrations.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    root = os.path.join(fixtures, "sysroots", "h100-open")
    scenario = lambda name: os.path.join(fixtures, "scenarios", name + ".conf")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # Slurm: a recording scontrol on PATH.
        record = os.path.join(tmp, "scontrol.args")
        fake = os.path.join(tmp, "scontrol")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$@" > %s\n' % record)
        os.chmod(fake, 0o755)
        script = os.path.join(examples, "slurm", "gpuverify-healthcheck.sh")
        for name, want in (("h100x8", 0), ("h100x8-gpu-lost", 1)):
            if os.path.exists(record):
                os.remove(record)
            env = dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"],
                       GV_FAKE_SCENARIO=scenario(name),
                       GPUVERIFY_GV_CHECK="%s --sysroot %s --library-dir %s" % (gv_check, root,
                                                                                fakelib),
                       GPUVERIFY_CHECKS="^cuda,^mem,^gemm,^cudnn,^nccl")
            rc = subprocess.run(["sh", script], env=env).returncode
            drained = open(record).read() if os.path.exists(record) else ""
            if rc != want:
                failures.append("healthcheck %s: exit %d, want %d" % (name, rc, want))
            if want and "reason=gpuverify: FAIL driver.gpu_count node: PCI sees 8 GPU(s)" not in drained:
                failures.append("healthcheck %s: scontrol got %r" % (name, drained))
            if want and "state=drain" not in drained:
                failures.append("healthcheck %s: node not drained: %r" % (name, drained))
            if not want and drained:
                failures.append("healthcheck %s: healthy node drained: %r" % (name, drained))

        # Another gpuverify holding GPU 0 (its lock file, as gpu_lock.c writes it): for 5 s it
        # judges the node, which is not drained; for 400 s it is stuck, and the node drained.
        locks = os.path.join(tmp, "locks")
        os.mkdir(locks)
        for held_s, want in ((5, 0), (400, 1)):
            if os.path.exists(record):
                os.remove(record)
            holder = subprocess.Popen(
                [sys.executable, "-c",
                 "import fcntl, sys, time\n"
                 "f = open(sys.argv[1], 'w')\n"
                 "fcntl.flock(f, fcntl.LOCK_EX)\n"
                 "f.write('pid=4121\\nsince_ms=%d\\nprogram=gpuverify-worke\\n' %"
                 " (time.time() * 1000 - float(sys.argv[2]) * 1000))\n"
                 "f.flush()\n"
                 "print('held', flush=True)\n"
                 "time.sleep(60)\n",
                 os.path.join(locks, "gpuverify-gpu-0000:18:00.0.lock"), str(held_s)],
                stdout=subprocess.PIPE, text=True)
            holder.stdout.readline()
            env = dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"],
                       GV_FAKE_SCENARIO=scenario("h100x1-compute"), GPUVERIFY_LOCK_DIR=locks,
                       GPUVERIFY_GV_CHECK="%s --sysroot %s --library-dir %s --budget 4 "
                                          "--gemm-size 32" % (gv_check, root, fakelib),
                       GPUVERIFY_CHECKS="cuda.init,gemm.fp16")
            rc = subprocess.run(["sh", script], env=env).returncode
            holder.kill()
            holder.wait()
            drained = open(record).read() if os.path.exists(record) else ""
            if rc != want or bool(drained) != bool(want):
                failures.append("healthcheck beside a gpuverify holding the GPU for %d s: exit %d, "
                                "scontrol %r" % (held_s, rc, drained))
            if want and "being tested by another gpuverify (PID 4121" not in drained:
                failures.append("healthcheck beside a stuck gpuverify: reason %r" % drained)

        # Fleet: three nodes at 700 TFLOPS, one at 500.
        reports = []
        for node, name in (("n1", "h100x1-compute"), ("n2", "h100x1-compute"),
                           ("n3", "h100x1-slow"), ("n4", "h100x1-compute")):
            out = subprocess.run([gv_check, "--json", "--library-dir", fakelib, "--checks",
                                  "gemm.fp16", "--gemm-size", "32"], capture_output=True,
                                 text=True, env=dict(os.environ, GV_FAKE_SCENARIO=scenario(name)))
            report = json.loads(out.stdout)
            report["hostname"] = node
            reports.append(json.dumps(report, indent=2))
        fleet_file = os.path.join(tmp, "reports.json")
        with open(fleet_file, "w") as f:
            f.write("\n".join(reports))  # concatenated, as srun prints them
        tool = os.path.join(examples, "fleet", "gpuverify-fleet.py")
        res = subprocess.run([sys.executable, tool, "--json", fleet_file], capture_output=True,
                             text=True)
        result = json.loads(res.stdout) if res.stdout else {}
        outliers = result.get("outliers", [])
        if res.returncode != 1 or [o["node"] for o in outliers] != ["n3"]:
            failures.append("fleet: exit %d, outliers %r" % (res.returncode, outliers))
        median = result.get("medians", {}).get("gemm.fp16", {}).get("median", 0)
        if abs(median - 700) > 1:
            failures.append("fleet: median %r, want 700" % median)
        healthy = os.path.join(tmp, "healthy.json")
        with open(healthy, "w") as f:
            f.write("\n".join(reports[:2]))
        if subprocess.run([sys.executable, tool, healthy], capture_output=True).returncode != 0:
            failures.append("fleet: healthy nodes flagged")
        # Node pairs: a real gv-nccl --json object, as if run on four pairs of nodes; the pair
        # at a quarter of the others' busbw, and one whose run FAILed, are the outliers.
        gv_nccl = os.path.join(os.path.dirname(gv_check), "gv-nccl")
        out = subprocess.run([gv_nccl, "--library-dir", fakelib, "--gpus", "0,1", "-b", "1M",
                              "-e", "1M", "-n", "2", "--json"], capture_output=True, text=True,
                             env=dict(os.environ, GV_FAKE_SCENARIO=scenario("h100x8-nccl-slow")))
        base = json.loads(out.stdout)
        runs = []
        for hosts, busbw, verdict in ((["n1", "n2"], 2.0, "PASS"), (["n1", "n3"], 2.0, "PASS"),
                                      (["n2", "n3"], 0.5, "PASS"), (["n3", "n4"], 1.9, "FAIL")):
            run = dict(base, hosts=hosts * 8, peak_busbw_gbps=busbw, verdict=verdict)
            runs.append(json.dumps(run))
        pairs_file = os.path.join(tmp, "pairs.json")
        with open(pairs_file, "w") as f:
            f.write("\n".join(runs))
        res = subprocess.run([sys.executable, tool, "--json", fleet_file, pairs_file],
                             capture_output=True, text=True)
        result = json.loads(res.stdout) if res.stdout else {}
        flagged = sorted((o["node"], o["why"]) for o in result.get("outliers", [])
                         if o["check"] == "nccl.all_reduce")
        # median of 2.0, 2.0, 0.5, 1.9 = 1.95: 0.5 is 26% of it; 1.9 is within 10%.
        if res.returncode != 1 or flagged != [("n2+n3", "26% of the median pair"),
                                              ("n3+n4", "FAIL")]:
            failures.append("fleet pairs: exit %d, flagged %r" % (res.returncode, flagged))
        if result.get("nccl_runs") != 4 or result.get("nodes") != 4:
            failures.append("fleet pairs: counted %r" % result)
        bad = subprocess.run([sys.executable, tool, record if os.path.exists(record) else fake],
                             capture_output=True, text=True)
        if bad.returncode != 2:
            failures.append("fleet: a file that is no report gave exit %d" % bad.returncode)
    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
