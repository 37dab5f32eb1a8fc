# SPDX-License-Identifier: Apache-2.0
"""The command-line conventions every gpuverify tool keeps (examples/cli.h), asserted tool by tool:

  --version           exit 0, "<tool> X.Y.Z ..." on stdout, nothing on stderr, one version for all
  -h, --help          exit 0, the usage on stdout (naming every option tested here), nothing on
                      stderr
  an unknown option   exit 2, nothing on stdout, one line naming it and a hint to --help on stderr
  a missing value     exit 2, a message naming the option; also where another option stands
                      in the value's place
  a bad number        ('abc', '-1', an absurd value) exit 2, nothing on stdout, a message naming the
                      option, the value and the allowed range ("from A to B"); every numeric
                      option refuses each of ONCE_MISREAD ("5abc", "16Q", "1e30", ...)
  the edges           values at the edges of each range are taken (exit 0 before --list or
                      --version, nothing on stderr)
  a bad name          (dtype, op, level, ...) exit 2, a message listing every allowed name
  incompatible modes  exit 2, a message naming both options
  NO_COLOR=1          under a pseudo-terminal: no escape sequence at all; without it, the tools
                      that colour do (so the first assertion is not vacuous)

usage: test_cli_conventions.py EXAMPLES_DIR FIXTURES_DIR FAKELIB_DIR
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from terminal import run_on_terminal

examples, fixtures, fakelib = (os.path.abspath(a) for a in sys.argv[1:4])
source_fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
failures = []
checked = 0


def scenario(name):
    return os.path.join(fixtures, "scenarios", name + ".conf")


def sysroot(name):
    return os.path.join(fixtures, "sysroots", name)


XML = os.path.join(source_fixtures, "hwloc", "xml", "24em64t-2n6c2t-pci.xml")
PASSIVE = "^cuda,^mem,^gemm,^cudnn,^driver.compat,^topo,^rdma,^gpudirect,^nccl"
RDMA_ENV = {"HWLOC_FSROOT": sysroot("h100-roce"), "GV_FAKE_SCENARIO": scenario("h100x8-rdma")}
RDMA_ARGS = ["--sysroot", sysroot("h100-roce"), "--library-dir", fakelib]

def history_db():
    """A history database of one gv-check run over the fakes, for gv-history to show."""
    path = os.path.join(tempfile.mkdtemp(prefix="gv-cli-history."), "history.db")
    subprocess.run([os.path.join(examples, "gv-check"), "--sysroot", sysroot("h100-open"),
                    "--library-dir", fakelib, "--checks", PASSIVE, "--state", path, "--quiet"],
                   env=dict(os.environ, GV_FAKE_SCENARIO=scenario("h100x8")),
                   capture_output=True, timeout=120)
    return path


HISTORY_DB = history_db()

# Per tool: numeric options and values each must refuse; named values (option, bad value, the
# names its message must list); incompatible options (args, the two option names); a real run
# over the fakes for the terminal test (args, environment, whether it colours on a terminal).
TOOLS = {
    "gv-check": {
        "numbers": [("--deadline", ["abc", "-1", "0", "0.005", "86401", "0x10", "inf"]),
                    ("--gemm-size", ["abc", "-1", "0", "65537"]),
                    ("--copy-mib", ["abc", "-1", "0"]), ("--nccl-kib", ["abc", "-1", "0"]),
                    ("--budget", ["abc", "-1", "86401"]), ("--duration", ["abc", "-1", "nan"]),
                    ("--gpus", ["abc", "-1", "64", "0,", "0,,1", " 1", "+1"])],
        "accepted": [["--deadline", "86400", "--budget", "0.5", "--duration", "604800",
                      "--gemm-size", "65536", "--copy-mib", "1", "--nccl-kib", "16777216",
                      "--gpus", "0,2,63", "--list"]],
        "names": [("--level", "fast", ["quick", "standard", "extended"]),
                  ("--isolation", "sometimes", ["auto", "process", "none"])],
        "incompatible": [],
        "run": (["--sysroot", sysroot("h100-open"), "--library-dir", fakelib, "--checks",
                 PASSIVE], {"GV_FAKE_SCENARIO": scenario("h100x8")}, True),
    },
    "gv-gemm": {
        "numbers": [("--gpu", ["abc", "-1", "100000"]), ("--size", ["abc", "-1", "0", "1e9"]),
                    ("--warmup", ["abc", "-1", "1e9", "nan"]), ("--batch", ["abc", "-1", "0"]),
                    ("--batches", ["abc", "-1", "0", "99999999999999999999"]),
                    ("--mnk", ["abc", "8,8", "8,8,-1", "8,8,8,8", "8,8,65537"])],
        "accepted": [["--gpu", "63", "--size", "65536", "--warmup", "600", "--batch", "0.001",
                      "--batches", "1000", "--version"], ["--mnk", "1,65536,16", "--version"]],
        "names": [("--dtype", "fp64", ["fp32", "tf32", "fp16", "bf16", "fp8"]),
                  ("--dtype", "fp16,fp4", ["fp32", "tf32", "fp16", "bf16", "fp8"])],
        "incompatible": [(["--size", "64", "--mnk", "64,64,64"], ["--size", "--mnk"])],
        "run": (["--dtype", "fp16", "--size", "32", "--warmup", "0", "--batch", "0.001",
                 "--batches", "2"],
                {"GV_FAKE_SCENARIO": scenario("h100x1-compute"),
                 "GPUVERIFY_CUDA_LIBRARY": os.path.join(fakelib, "libcuda.so.1"),
                 "GPUVERIFY_NVML_LIBRARY": os.path.join(fakelib, "libnvidia-ml.so.1"),
                 "GPUVERIFY_CUBLASLT_LIBRARY": os.path.join(fakelib, "libcublasLt.so.13")}, False),
    },
    "gv-topo": {
        "numbers": [],
        "names": [("--gdr-level", "NVL", ["LOC", "PIX", "PXB", "PHB", "SYS"]),
                  ("--gdr-level", "9", ["LOC", "PIX", "PXB", "PHB", "SYS"]),
                  ("--gdr-level", "5abc", ["LOC", "PIX", "PXB", "PHB", "SYS"]),
                  ("--gdr-level", "1e30", ["LOC", "PIX", "PXB", "PHB", "SYS"])],
        "incompatible": [(["--xml", XML, "--sysroot", sysroot("h100-open")],
                          ["--xml", "--sysroot"])],
        "run": (["--xml", XML], {}, False),
    },
    "gv-rdma": {"numbers": [], "names": [], "incompatible": [],
                "run": (RDMA_ARGS, RDMA_ENV, True)},
    "gv-gpudirect": {"numbers": [], "names": [], "incompatible": [],
                     "run": (RDMA_ARGS, RDMA_ENV, True)},
    "gv-history": {
        "numbers": [("--last", ["abc", "-1", "0", "1000001"]),
                    ("--since", ["abc", "-1", "0d", "36501d", "2026-13-01", "2026-02-30",
                                 "1969-12-31", "2026-1-01", "+1d", "1.5d"])],
        "accepted": [["--last", "1", "--since", "36500d", "--version"],
                     ["--last", "1000000", "--since", "1970-01-01", "--version"],
                     ["--since", "1d", "--since", "9999-12-31", "--version"]],
        "names": [],
        "incompatible": [(["--json", "--csv"], ["--json", "--csv"]),
                         (["--chart", "--json"], ["--chart", "--json"])],
        "run": (["--state", HISTORY_DB], {}, True),
    },
    "gv-nccl": {
        "numbers": [("-b", ["abc", "-1", "2", "1T", "65G", "8X"]), ("-e", ["abc", "-1", "1E"]),
                    ("-f", ["abc", "-1", "1", "4096"]), ("-n", ["abc", "-1", "0", "1e3"]),
                    ("-w", ["abc", "-1", "10000000"]),
                    ("--deadline", ["abc", "-1", "0", "1e9", "inf"]),
                    ("--min-busbw", ["abc", "-1", "1e12"]),
                    ("--gpus", ["abc", "-1", "0,,1", "0,1000"]),
                    ("--withhold", ["abc", "-1", "1048576"]),
                    ("--rendezvous", ["foo", ":29500", "host:", "host:0", "host:65536",
                                      "host:29x", "host:-1", "localhost:99999"])],
        "accepted": [["-b", "4", "-e", "64G", "-f", "1024", "-n", "100000", "-w", "0",
                      "--deadline", "86400", "--min-busbw", "0", "--gpus", "0,63", "--version"],
                     ["--rendezvous", "node-0.cluster:65535", "--version"],
                     ["--rendezvous", "[fd00::1]:1", "--version"]],
        "names": [("--op", "allreduce", ["all_reduce", "all_gather", "reduce_scatter",
                                         "broadcast", "reduce", "alltoall", "gather", "scatter",
                                         "sendrecv", "pairs"])],
        "incompatible": [(["-b", "1M", "-e", "1K"], ["-b", "-e"]),
                         (["--withhold", "1", "--library-dir", fakelib], ["--withhold", "MPI"])],
        "run": (["--library-dir", fakelib, "-b", "64", "-e", "1K", "-f", "4", "-n", "2"],
                {"GV_FAKE_SCENARIO": scenario("h100x8")}, False),
    },
}


# Inputs that were once taken for another number ("--deadline 5abc" as 30 s, "-e 16Q" as 16
# bytes, "-e 1e30" as 1 byte): every numeric option of every tool must refuse each of them.
ONCE_MISREAD = ["abc", "5abc", "16Q", "1e30"]
for _spec in TOOLS.values():
    _spec["numbers"] = [(opt, values + [v for v in ONCE_MISREAD if v not in values])
                        for opt, values in _spec["numbers"]]
    _spec.setdefault("accepted", [])


def run(tool, args, env=None, timeout=60):
    global checked
    checked += 1
    try:
        p = subprocess.run([os.path.join(examples, tool)] + args, capture_output=True,
                           text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return p.returncode, p.stdout, p.stderr


def fail(tool, args, why, out="", err=""):
    failures.append("%s %s: %s\n    stdout: %r\n    stderr: %r"
                    % (tool, " ".join(args), why, out[:300], err[:300]))


def on_terminal(tool, args, env, timeout=120):
    """The tool's stdout and stderr on one pseudo-terminal: (exit status, all it wrote)."""
    global checked
    checked += 1
    return run_on_terminal([os.path.join(examples, tool)] + args, dict(os.environ, **env),
                           timeout=timeout)


def refused(tool, args, must_name, ranged=False, names=()):
    """Exit 2, nothing on stdout, a message on stderr naming each of must_name (and the range
    or every allowed name)."""
    rc, out, err = run(tool, args)
    if rc != 2:
        fail(tool, args, "exit %s, want 2" % rc, out, err)
    elif out:
        fail(tool, args, "printed on stdout", out, err)
    elif not err.strip():
        fail(tool, args, "no message on stderr", out, err)
    else:
        for word in must_name:
            if word not in err:
                fail(tool, args, "the message does not name %r" % word, out, err)
        if ranged and not re.search(r"\bfrom \S+ to \S+", err):
            fail(tool, args, "the message does not give the range (\"from A to B\")", out, err)
        for name in names:
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(name), err):
                fail(tool, args, "the message does not list %r" % name, out, err)


versions = {}
for tool, spec in TOOLS.items():
    before = len(failures)
    # --version
    rc, out, err = run(tool, ["--version"])
    m = re.match(r"%s (\d+\.\d+\.\d+)\b" % re.escape(tool), out)
    if rc != 0 or not m or err or out.count("\n") != 1:
        fail(tool, ["--version"], "exit %s; want exit 0 and one line '%s X.Y.Z' on stdout only"
             % (rc, tool), out, err)
    else:
        versions[tool] = m.group(1)
    # -h and --help
    usage = ""
    for flag in ("-h", "--help"):
        rc, out, err = run(tool, [flag])
        if rc != 0 or err or not out.startswith("usage: %s" % tool):
            fail(tool, [flag], "exit %s; want exit 0, 'usage: %s' on stdout, stderr empty"
                 % (rc, tool), out, err)
        usage = out or usage
    named = [o for o, _ in spec["numbers"]] + [o for o, _, _ in spec["names"]]
    for opt in named:
        if usage and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), usage):
            fail(tool, ["--help"], "the usage does not name %s" % opt, usage)
    # An unknown option, a stray argument: one line and the hint.
    for args in (["--no-such-option"], ["no-such-argument"]):
        rc, out, err = run(tool, args)
        if rc != 2 or out or len(err.strip().splitlines()) != 1 or args[0] not in err \
                or "--help" not in err:
            fail(tool, args, "exit %s; want exit 2, one line on stderr naming it with a hint "
                 "to --help" % rc, out, err)
    # A missing value, for each option that takes one; an option where its value belongs is
    # one missing too (never read as the value: "--state --quiet" named a file "--quiet").
    for opt in dict.fromkeys(named):
        refused(tool, [opt], [opt])
        refused(tool, [opt, "--help"], [opt, "not the option --help"])
    # Numbers and names.
    for opt, values in spec["numbers"]:
        for value in values:
            refused(tool, [opt, value], [opt, "'%s'" % value], ranged=True)
    for opt, value, names in spec["names"]:
        refused(tool, [opt, value], [opt], names=names)
    for args, opts in spec["incompatible"]:
        refused(tool, args, opts)
    # Values at the edges of each range are taken (the option before --list or --version is
    # parsed, then the tool exits 0).
    for args in spec["accepted"]:
        rc, out, err = run(tool, args)
        if rc != 0 or err:
            fail(tool, args, "exit %s; want the values taken (exit 0, stderr empty)" % rc,
                 out, err)
    # NO_COLOR under a terminal: no escape sequence; without it, colour where the tool has any.
    args, env, colours = spec["run"]
    rc, text = on_terminal(tool, args, dict(env, NO_COLOR="1"))
    if rc not in (0, 1):
        fail(tool, args, "under a terminal with NO_COLOR=1: exit %s" % rc, text)
    elif "\x1b" in text:
        fail(tool, args, "NO_COLOR=1 under a terminal: an escape sequence in the output", text)
    if colours:
        env = {k: v for k, v in env.items()}
        saved = os.environ.pop("NO_COLOR", None)
        try:
            rc, text = on_terminal(tool, args, env)
        finally:
            if saved is not None:
                os.environ["NO_COLOR"] = saved
        if "\x1b[" not in text:
            fail(tool, args, "under a terminal without NO_COLOR: no colour (exit %s)" % rc, text)
    print("%-13s %s" % (tool, "ok" if len(failures) == before
                        else "%d problem(s)" % (len(failures) - before)))

# gv-check under --quiet or --npd answers in one line on stdout, a usage error included
# (wherever the flag stands), and a --textfile it cannot write leaves the exit the verdict's.
for args in (["--npd", "--budget", "-1"], ["--gemm-size", "0", "--quiet"], ["--npd", "--bogus"],
             ["--quiet", "--json"]):
    rc, out, err = run("gv-check", args)
    if rc != 2 or out.count("\n") != 1 or not out.startswith("ERROR gv-check: usage error at '") \
            or not err.strip():
        fail("gv-check", args, "exit %s; want exit 2, one ERROR line on stdout naming the "
             "argument, the reason on stderr" % rc, out, err)
args = ["--sysroot", sysroot("h100-open"), "--library-dir", fakelib, "--checks", PASSIVE,
        "--npd", "--textfile", "/nonexistent/dir/gpuverify.prom"]
rc, out, err = run("gv-check", args, {"GV_FAKE_SCENARIO": scenario("h100x8")})
if rc != 0 or not out.startswith("OK ") or "--textfile /nonexistent/dir/gpuverify.prom" not in err:
    fail("gv-check", args, "exit %s; want the verdict's exit (0, OK) and the file's error on "
         "stderr" % rc, out, err)

# A writer killed between its temporary file and the rename (a pod's liveness probe) left
# "gpuverify.prom.tmp.XXXXXX": the next --textfile write removes its own older than an hour,
# never a younger one (another writer's at work) nor another file's.
folder = tempfile.mkdtemp(prefix="gv-textfile-")
left = {name: age for name, age in (("gpuverify.prom.tmp.AbC123", 7200),
                                     ("gpuverify.prom.tmp.XyZ789", 60),
                                     ("other.prom.tmp.AbC123", 7200))}
for name, age in left.items():
    with open(os.path.join(folder, name), "w") as f:
        f.write("x 1\n")
    then = time.time() - age
    os.utime(os.path.join(folder, name), (then, then))
args = ["--sysroot", sysroot("h100-open"), "--library-dir", fakelib, "--checks", PASSIVE,
        "--quiet", "--textfile", os.path.join(folder, "gpuverify.prom")]
rc, out, err = run("gv-check", args, {"GV_FAKE_SCENARIO": scenario("h100x8")})
now = sorted(os.listdir(folder))
if now != ["gpuverify.prom", "gpuverify.prom.tmp.XyZ789", "other.prom.tmp.AbC123"]:
    fail("gv-check", args, "the folder after the write: %s; want its own stale temporary file "
         "gone, the rest kept" % now, out, err)
shutil.rmtree(folder, ignore_errors=True)

# A file named and unreadable: said as the file it is, never as the library's field.
args = ["--checks", "topo", "--topology-xml", "/nonexistent/topology.xml"]
rc, out, err = run("gv-check", args)
if rc != 2 or "topology XML /nonexistent/topology.xml: No such file" not in err or "gv_" in err:
    fail("gv-check", args, "exit %s; want exit 2 naming the file, not a struct field" % rc,
         out, err)

# What the library refuses is said in gv-nccl's options, never as gv_nccl_opts' fields.
args = ["--library-dir", fakelib, "--op", "gather", "-b", "4", "-e", "8"]
rc, out, err = run("gv-nccl", args, {"GV_FAKE_SCENARIO": scenario("h100x8")})
if rc != 2 or "-e 8 leaves no element per rank" not in err or "gv_" in err:
    fail("gv-nccl", args, "exit %s; want exit 2 naming -e, not a struct field" % rc, out, err)
args = ["--library-dir", fakelib, "--gpus", "1,2,1"]
rc, out, err = run("gv-nccl", args, {"GV_FAKE_SCENARIO": scenario("h100x8")})
if rc != 2 or "--gpus '1,2,1' lists GPU 1 twice" not in err:
    fail("gv-nccl", args, "exit %s; want a usage error naming the GPU twice" % rc, out, err)

# gv-nccl under a launcher (a rank and a world size set): a --rendezvous that is not HOST:PORT
# is a usage error before anything runs, never a rank that failed to join.
for where in ("foo", "localhost:99999"):
    args = ["--library-dir", fakelib, "--deadline", "2", "--rendezvous", where]
    rc, out, err = run("gv-nccl", args, {"RANK": "1", "WORLD_SIZE": "2"})
    if rc != 2 or out or "--rendezvous '%s'" % where not in err:
        fail("gv-nccl", args, "as rank 1 of 2: exit %s; want exit 2 naming the option" % rc,
             out, err)


def free_port(family, host):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# Two ranks meeting through --rendezvous over the fakes: at an IPv4 address, and at IPv6's
# loopback bracketed (rank 0 listens on both families), where this host has it.
meetings = ["127.0.0.1:%d" % free_port(socket.AF_INET, "127.0.0.1")]
try:
    meetings.append("[::1]:%d" % free_port(socket.AF_INET6, "::1"))
except OSError:
    print("no IPv6 loopback here: the bracketed rendezvous is not tried")
def ranks_at(where, launches, *more, deadline="20"):
    """gv-nccl's ranks meeting at `where` over the fakes, each of `launches` a list of
    (launcher rank, world size, launch ID, seconds to wait before it starts): (arguments,
    [[(exit, stdout, stderr)] per rank] per launch)."""
    global checked
    args = ["--library-dir", fakelib, "--rendezvous", where, "-b", "1K", "-e", "4K", "-f", "4",
            "-n", "1", "--deadline", deadline] + list(more)
    procs = []
    for launch in launches:
        procs.append([])
        for rank, size, run_id, after in launch:
            env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(size), LOCAL_RANK=str(rank),
                       TORCHELASTIC_RUN_ID=run_id, GV_FAKE_SCENARIO=scenario("h100x8"))
            procs[-1].append(subprocess.Popen(
                ["sh", "-c", 'sleep %s; exec "$0" "$@"' % after,
                 os.path.join(examples, "gv-nccl")] + args,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            checked += 1
    return args, [[(p.wait(timeout=90), *p.communicate(timeout=60)) for p in launch]
                  for launch in procs]


def two_ranks(where, *more):
    """Two ranks of one launch: (arguments, exits, the stdout of both, the stderr of both); the
    one on the rendezvous's host that listened prints, whichever it is."""
    args, (ranks,) = ranks_at(where, [[(0, 2, "a", 0), (1, 2, "a", 0)]], *more)
    return (args, [r[0] for r in ranks], "".join(r[1] for r in ranks),
            "".join(r[2] for r in ranks))


for where in meetings:
    args, exits, out, err = two_ranks(where)
    if exits != [0, 0] or "# PASS: all_reduce over 2 ranks" not in out:
        fail("gv-nccl", args, "two ranks at %s: exits %s" % (where, exits), out, err)

# The ranks' combined figure is the one judged and said: under a floor above it, FAIL naming
# that figure; without a floor, PASS naming it (never rank 0's own).
for floor in ("0", "10000"):
    args, _, out, err = two_ranks("127.0.0.1:%d" % free_port(socket.AF_INET, "127.0.0.1"),
                                  "--json", "--min-busbw", floor)
    try:
        result = json.loads(out)
    except ValueError:
        result = {}
    peak = result.get("peak_busbw_gbps", -1)
    said = re.search(r"peak busbw ([0-9.e+-]+) GB/s", result.get("message", ""))
    want = "FAIL" if floor != "0" else "PASS"
    if result.get("verdict") != want or not said or \
            abs(float(said.group(1)) - peak) > 1e-3 * peak:
        fail("gv-nccl", args, "two ranks: want %s naming the combined %s GB/s" % (want, peak),
             out, err)

# The launcher's rank 0 is not where the rendezvous listens when it comes late (as when Open MPI
# puts it on the node mpirun runs on): another rank on the rendezvous's host listens and prints,
# the launcher's rank 0 joins it, and the three meet.
args, (ranks,) = ranks_at("127.0.0.1:%d" % free_port(socket.AF_INET, "127.0.0.1"),
                          [[(0, 3, "a", 2), (1, 3, "a", 0), (2, 3, "a", 0)]], "--json")
outs = [json.loads(r[1]) for r in ranks if r[1].strip()]
if [r[0] for r in ranks] != [0, 0, 0] or len(outs) != 1 or ranks[0][1] != "" or \
        outs[0].get("verdict") != "PASS" or outs[0].get("nranks") != 3:
    fail("gv-nccl", args, "the launcher's rank 0 late: exits %s, %d result(s) %s"
         % ([r[0] for r in ranks], len(outs), outs), "", "".join(r[2] for r in ranks))

# Two launches at one port at once (a test started while another's rank 0 waits for its rank
# 1): the other's rank 1 is not let in, in place of its own; it listens once the port is free,
# and fails for want of its own rank 0.
args, (a, b) = ranks_at("127.0.0.1:%d" % free_port(socket.AF_INET, "127.0.0.1"),
                        [[(0, 2, "a", 0), (1, 2, "a", 1.5)], [(1, 2, "b", 0.3)]], "--json",
                        deadline="4")
try:
    got = (json.loads(a[0][1]).get("verdict"), a[1][0], json.loads(b[0][1]).get("message", ""))
except ValueError:
    got = None
if got is None or got[:2] != ("PASS", 0) or "1 of 2 ranks joined" not in got[2]:
    fail("gv-nccl", args, "two launches at one port: %s" % (got,),
         "".join(r[1] for r in a + b), "".join(r[2] for r in a + b))

shutil.rmtree(os.path.dirname(HISTORY_DB), ignore_errors=True)
if len(set(versions.values())) > 1:
    failures.append("--version differs between tools: %r" % versions)
for f in failures:
    print("FAIL " + f)
print("%d invocations, %d problem(s)" % (checked, len(failures)))
sys.exit(1 if failures else 0)
