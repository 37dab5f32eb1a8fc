# SPDX-License-Identifier: Apache-2.0
"""examples/integrations/nhc/gpuverify.nhc under LBNL NHC's driver (test_nhc_driver.sh: NHC's
helpers, variables, watchdog and offline/online calls), over the fakes: a healthy node passes and
is marked online; a lost GPU dies with the FAIL line naming driver.gpu_count, which reaches
node-mark-offline intact; a WARN passes (logged); nvmlInit hanging dies naming driver.nvml inside
what is left of NHC's TIMEOUT; another gpuverify holding the GPU for 5 s passes, for 400 s dies
(stuck). A stand-in gv-check then drives the paths the fakes cannot: the budget and deadline
given, ERROR (exit 3), a quote in the message, a gv-check that never answers, no time left,
no gv-check.

Usage (ctest): test_nhc.py GV_CHECK FIXTURES FAKELIB EXAMPLES_DIR"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import gpu_holder

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LINE = "check_gpuverify -c ^cuda,^mem,^gemm,^cudnn,^nccl"


def main():
    gv_check, fixtures, fakelib, examples = map(os.path.abspath, sys.argv[1:5])
    root = os.path.join(fixtures, "sysroots", "h100-open")
    scenario = lambda name: os.path.join(fixtures, "scenarios", name + ".conf")
    script = os.path.join(examples, "nhc", "gpuverify.nhc")
    failures = []

    with tempfile.TemporaryDirectory() as tmp:
        offline_file = os.path.join(tmp, "offline")
        online_file = os.path.join(tmp, "online")
        for name, path in (("offline", offline_file), ("online", online_file)):
            helper = os.path.join(tmp, "node-mark-" + name)
            with open(helper, "w") as f:
                f.write('#!/bin/sh\nprintf "%%s\\n" "$@" > %s\n' % path)
            os.chmod(helper, 0o755)
        syslog_file = os.path.join(tmp, "syslog")

        def nhc(line, gv=None, limit=60, **env):
            """NHC running one check line: (exit, offline reason or None, online?, log, wall)."""
            for path in (offline_file, online_file, syslog_file):
                if os.path.exists(path):
                    os.remove(path)
            full = dict(os.environ, HOSTNAME="gpu017",
                        OFFLINE_NODE=os.path.join(tmp, "node-mark-offline"),
                        ONLINE_NODE=os.path.join(tmp, "node-mark-online"), SYSLOG_FILE=syslog_file,
                        GPUVERIFY_GV_CHECK=gv or "%s --sysroot %s --library-dir %s" % (
                            gv_check, root, fakelib))
            full.update(env)
            t0 = time.monotonic()
            try:
                res = subprocess.run(["bash", os.path.join(HERE, "test_nhc_driver.sh"), script,
                                      line], env=full, capture_output=True, text=True,
                                     timeout=limit)
                rc, out = res.returncode, res.stdout + res.stderr
            except subprocess.TimeoutExpired as e:
                rc, out = "timeout", str(e.stdout or "")
            wall = time.monotonic() - t0
            offline = None
            if os.path.exists(offline_file):
                args = open(offline_file).read().split("\n")
                offline = args[1] if args[0] == "gpu017" and len(args) > 1 else repr(args)
            return rc, offline, os.path.exists(online_file), out, wall

        def expect(what, got, rc, reason=None, within=None):
            """reason: a text the offline reason contains (None: healthy, marked online)."""
            code, offline, online, out, wall = got
            print("%-60s exit %-3s %4.1f s  %s" % (what[:60], code, wall,
                                                   offline if offline is not None else
                                                   "online" if online else "-"))
            problems = []
            if code != rc:
                problems.append("exit %r, want %d" % (code, rc))
            if reason is None and (offline is not None or not online):
                problems.append("healthy node: offline %r, online %r" % (offline, online))
            if reason is not None and (offline is None or reason not in offline):
                problems.append("offline reason %r, want it to contain %r" % (offline, reason))
            if offline is not None and "\n" in offline.strip():
                problems.append("reason of more than one line: %r" % offline)
            if within is not None and wall > within:
                problems.append("took %.1f s, more than %.0f s" % (wall, within))
            if "Script timed out" in out:
                problems.append("NHC's watchdog fired")
            if problems:
                failures.append("%s: %s\n  log: %s" % (what, "; ".join(problems),
                                                        out.strip().replace("\n", "\n       ")))
            return got

        # Over the fakes.
        expect("h100x8", nhc(DEFAULT_LINE, GV_FAKE_SCENARIO=scenario("h100x8")), 0, within=10)
        expect("h100x8-gpu-lost", nhc(DEFAULT_LINE, GV_FAKE_SCENARIO=scenario("h100x8-gpu-lost")),
               1, reason="check_gpuverify:  FAIL gpus 3: driver.gpu_count node: PCI sees 8 GPU(s)",
               within=10)
        # -s keeps the node's record: two runs, the lost GPU's a mark on gpu3's.
        db = os.path.join(tmp, "history.db")
        for name in ("h100x8", "h100x8-gpu-lost"):
            nhc(DEFAULT_LINE + " -s " + db, GV_FAKE_SCENARIO=scenario(name))
        with sqlite3.connect(db) as con:
            runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            marks = con.execute("SELECT count(*) FROM gpus WHERE subject = 'gpu3' AND bad")\
                .fetchone()[0]
        print("%-60s %d runs, gpu3 marked in %d" % ("-s history.db", runs, marks))
        if (runs, marks) != (2, 1):
            failures.append("-s %s: %d runs and %d marks on gpu3, want 2 and 1" % (db, runs,
                                                                                  marks))
        got = expect("h100x8-mig (WARN)",
                     nhc(DEFAULT_LINE, GV_FAKE_SCENARIO=scenario("h100x8-mig")), 0, within=10)
        if "WARN gpu.mig" not in got[3]:
            failures.append("h100x8-mig: the WARN line not in NHC's log: %r" % got[3])
        # nvmlInit never returns, and NHC has spent 12 of its 30 s on earlier checks: the check
        # has 16 s, gv-check a budget of 14 s with 1 s deadlines; it dies at driver.nvml's.
        expect("fault-nvml-init-hang",
               nhc(DEFAULT_LINE, GV_FAKE_SCENARIO=scenario("fault-nvml-init-hang"),
                   NHC_ELAPSED="12"), 1, reason="driver.nvml", within=30 - 12)
        # cuInit never returns: four deadlines end before the 5 s gv-check keeps at its
        # budget's end, so the hang is a FAIL naming its action, not "could not judge".
        expect("fault-cuinit-hang",
               nhc(DEFAULT_LINE, GV_FAKE_SCENARIO=scenario("fault-cuinit-hang")), 1,
               reason="check_gpuverify:  FAIL driver.cuda node: timed out after", within=30)

        # Another gpuverify holding GPU 0 (its lock file, as gpu_lock.c writes it): for 5 s it
        # judges the node, which passes; for 400 s it is stuck, and the node dies. -H 2 makes
        # the 5 s holder stuck too.
        locks = os.path.join(tmp, "locks")
        os.mkdir(locks)
        held_line = "check_gpuverify -c cuda.init,gemm.fp16 -t 8"
        for held_s, line, rc, reason in ((5, held_line, 0, None),
                                         (400, held_line, 1, "stuck (held over 300 s):  HELD for"),
                                         (5, held_line + " -H 2", 1, "by PID %d")):
            holder = gpu_holder.start(locks, held_s, 60)
            reason = reason and reason.replace("%d", str(holder.pid))
            got = nhc(line, gv="%s --sysroot %s --library-dir %s --gemm-size 32" % (
                          gv_check, root, fakelib),
                      GV_FAKE_SCENARIO=scenario("h100x1-compute"), GPUVERIFY_LOCK_DIR=locks)
            gpu_holder.stop(holder)
            expect("beside a gpuverify holding the GPU for %d s (%s)" % (held_s, line), got, rc,
                   reason=reason, within=10)
            if rc == 0 and "another gpuverify is testing these GPUs" not in got[3]:
                failures.append("held for %d s: not logged: %r" % (held_s, got[3]))

        # A stand-in gv-check: records its arguments, answers MOCK_LINE with MOCK_RC after
        # MOCK_SLEEP seconds.
        mock = os.path.join(tmp, "gv-check-mock")
        args_file = os.path.join(tmp, "mock.args")
        with open(mock, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$*" > %s\nsleep "${MOCK_SLEEP:-0}"\n'
                    'printf "%%s\\n" "$MOCK_LINE"\nexit "${MOCK_RC:-0}"\n' % args_file)
        os.chmod(mock, 0o755)
        got = expect("mock OK", nhc(DEFAULT_LINE, gv=mock, MOCK_LINE="OK 12 checks"), 0)
        quick = got[4]  # NHC around an answer given at once, on this host now
        argv = open(args_file).read().strip() if os.path.exists(args_file) else ""
        # 30 s less 2 for NHC, less 2 for the run's end: 26, or 25 where the driver took a
        # second to reach the check.
        want = "--quiet --budget 26 --deadline 4 --checks ^cuda,^mem,^gemm,^cudnn,^nccl"
        if argv not in (want, want.replace("--budget 26", "--budget 25")):
            failures.append("NHC's TIMEOUT of 30 s: gv-check got %r, want %r" % (argv, want))
        nhc("check_gpuverify -l quick -t 11 -p /etc/gv.policy -s default", gv=mock,
            MOCK_LINE="OK")
        argv = open(args_file).read().strip() if os.path.exists(args_file) else ""
        want = ("--quiet --budget 9 --deadline 1 --level quick --policy /etc/gv.policy "
                "--state default")
        if argv != want:
            failures.append("-l quick -t 11 -p: gv-check got %r, want %r" % (argv, want))
        nhc("check_gpuverify -t 600", gv=mock, MOCK_LINE="OK", TIMEOUT="900")
        argv = open(args_file).read().strip() if os.path.exists(args_file) else ""
        if not argv.startswith("--quiet --budget 598 --deadline 30 --checks"):
            failures.append("-t 600 under TIMEOUT=900: gv-check got %r" % argv)
        expect("mock ERROR",
               nhc(DEFAULT_LINE, gv=mock, MOCK_RC="3",
                   MOCK_LINE="ERROR gpu.ecc gpu2: NVML_ERROR_UNKNOWN (1 ERROR, 40 PASS)"),
               1, reason="check_gpuverify:  could not judge:  ERROR gpu.ecc gpu2: NVML_ERROR_UNKNOWN")
        expect("mock FAIL with quotes",
               nhc(DEFAULT_LINE, gv=mock, MOCK_RC="1",
                   MOCK_LINE="FAIL gpu.x gpu1: the GPU's 'link' $HOME `id` \"down\""),
               1, reason="FAIL gpu.x gpu1: the GPUs link HOME id down")
        # NHC hands "NHC: <reason>" to Slurm: at most 200 bytes, the counts and action kept.
        long_line = "FAIL gemm.fp16 gpu2: " + "slow " * 28 + "(1 FAIL, 0 WARN of 90) [hw_inspect]"
        got = expect("mock FAIL of 200 bytes", nhc(DEFAULT_LINE, gv=mock, MOCK_RC="1",
                                                   MOCK_LINE=long_line),
                     1, reason="... (1 FAIL, 0 WARN of 90) [hw_inspect]")
        if got[1] is not None and len("NHC: " + got[1]) > 200:
            failures.append("the reason is %d bytes with NHC's prefix: %r" % (
                len("NHC: " + got[1]), got[1]))
        expect("mock usage error",
               nhc(DEFAULT_LINE, gv=mock, MOCK_RC="2", MOCK_LINE="gv-check: bad --checks"),
               1, reason="gv-check could not run:  gv-check: bad --checks")
        expect("mock never answers",
               nhc("check_gpuverify -t 5", gv=mock, MOCK_SLEEP="100", MOCK_LINE="OK"),
               1, reason="no verdict within 5 s", within=8 + quick)
        # 2 s left (30 - 26 - 2), or 1 where the driver took a second to reach the check.
        expect("no time left",
               nhc(DEFAULT_LINE, gv=mock, MOCK_LINE="OK", NHC_ELAPSED="26"),
               1, reason=" s left of the NHC TIMEOUT of 30 s for gv-check (5 needed)")
        expect("no gv-check", nhc(DEFAULT_LINE, gv="/nonexistent/gv-check"), 1,
               reason="cannot run /nonexistent/gv-check")
        expect("bad option", nhc("check_gpuverify -x", gv=mock), 1,
               reason="Invalid option:  -x")

    for f in failures:
        print("FAIL", f)
    print("%d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
