# SPDX-License-Identifier: Apache-2.0
"""python -m gpuverify: gv-check in Python, with the same options, output modes and exit codes.

Exit status: 0 healthy (PASS, WARN, SKIP only); 1 a check FAILed; 2 usage error, or the run
could not start (no library, a bad policy file, ...); 3 could not judge: no FAIL, but a check
ERRORed; 4 not judged because another gpuverify held the GPUs: no FAIL, and every ERROR is
such a hold (run again once it has finished). With --npd, node-problem-detector's own: 0 OK,
1 problem, 2 unknown, one line on stdout."""
import argparse
import signal
import sys

from . import __version__
from .api import (EXIT_FAIL, EXIT_HEALTHY, EXIT_USAGE, Context, catalog, library_path,
                  version)
from .errors import GpuverifyError

EPILOG = """exit status:
  0  healthy: PASS, WARN and SKIP only
  1  a check FAILed
  2  usage error, or the run could not start (library not found, bad policy file, ...)
  3  could not judge: no FAIL, but a check ERRORed
  4  not judged: no FAIL, and every ERROR is a GPU another gpuverify held (run again later)
  with --npd: 0 OK, 1 problem, 2 unknown (node-problem-detector's protocol)

libgpuverify is looked for in $GPUVERIFY_LIBRARY (a file), the directory recorded at install,
this interpreter's prefix (lib/), ctypes.util.find_library, then the soname libgpuverify.so.1."""


def _seconds(least, most):
    """An argparse type: seconds from least to most, gv-check's range for the option (a
    deadline under half a second FAILs a healthy node; a budget of 0 is no run)."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not least <= value <= most:
            raise argparse.ArgumentTypeError("wants seconds from %g to %g, not %r" % (
                least, most, text))
        return value
    return parse


DAY, WEEK = 86400.0, 7 * 86400.0


def _whole(lo, hi):
    """A whole number from lo to hi (argparse type), as gv-check takes it."""
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            value = lo - 1
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError("wants a whole number from %d to %d, not %r" % (
                lo, hi, text))
        return value
    return parse


def _gpus(text):
    """CUDA device indices, "0,2" (argparse type)."""
    try:
        gpus = [int(g, 10) for g in text.split(",")]
    except ValueError:
        gpus = [-1]
    if any(g < 0 for g in gpus):
        raise argparse.ArgumentTypeError("wants CUDA device indices like 0,2, not %r" % text)
    return gpus


def _state(text):
    """--state: a file or "default" (argparse type)."""
    if not text:
        raise argparse.ArgumentTypeError("wants a file or 'default', not ''")
    return text


def _publish(path, report):
    """--textfile: the report's metrics, or when the run could not start the lines that say
    the node was not found healthy (no earlier healthy file stays behind), through a temporary
    file in the same folder renamed over it, so that a collector reads the old file or the new
    one, never half of one. False after saying why it could not."""
    import os
    import tempfile
    body = report.prometheus if report is not None else (
        "# HELP gpuverify_node_healthy 1 when no check FAILed or ERRORed, else 0\n"
        "# TYPE gpuverify_node_healthy gauge\n"
        "gpuverify_node_healthy 0\n")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.",
                                   dir=os.path.dirname(os.path.abspath(path)))
        with os.fdopen(fd, "w") as f:
            f.write(body)
            f.flush()
            os.fchmod(f.fileno(), 0o644)  # mkstemp makes 0600; the collector may be another user
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return True
    except OSError as e:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        print("gpuverify: --textfile %s: %s" % (path, e.strerror or e), file=sys.stderr)
        return False


class _Version(argparse.Action):
    """--version: this package's and the loaded library's versions, and where it was loaded
    from; exit 2 when the library cannot be loaded."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, help=kw.get("help"))

    def __call__(self, parser, namespace, values, option_string=None):
        print("gpuverify (Python) %s" % __version__)
        try:
            print("libgpuverify %s (%s)" % (version(), library_path()))
        except GpuverifyError as e:
            print("gpuverify: %s" % e, file=sys.stderr)
            parser.exit(EXIT_USAGE)
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """Under --quiet or --npd a usage error also says one line on stdout, as gv-check's: what
    node-problem-detector shows for its Unknown, and a Prolog's log."""

    def error(self, message):
        if {"--quiet", "--npd"} & set(sys.argv[1:] if self.argv is None else self.argv):
            print("ERROR gpuverify: usage error (the reason on stderr)", flush=True)
        super().error(message)


def _parser(argv=None):
    """The command line, gv-check's options."""
    ap = _Parser(prog="python -m gpuverify",
                                 description=__doc__.splitlines()[0].split(": ", 1)[1],
                                 epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", action=_Version,
                    help="print this package's and libgpuverify's versions and exit")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="print the report as JSON (docs/report.schema.json)")
    out.add_argument("--prometheus", action="store_true",
                     help="print it in Prometheus' text format (node_exporter textfile)")
    out.add_argument("--failures", action="store_true",
                     help="only the WARN, FAIL and ERROR rows, then the counts")
    out.add_argument("--quiet", action="store_true",
                     help="the verdict in one line of at most 200 bytes")
    out.add_argument("--npd", action="store_true",
                     help="node-problem-detector plugin: the one line; exit 0 OK, 1 problem, "
                          "2 unknown")
    ap.add_argument("--textfile", metavar="FILE",
                    help="also write the Prometheus text to FILE, replaced atomically whatever "
                         "the verdict (node_exporter's textfile collector)")
    ap.add_argument("--list", action="store_true", help="print every check ID and exit")
    root = ap.add_mutually_exclusive_group()
    root.add_argument("--sysroot", metavar="DIR",
                      help="judge a captured node tree (/proc, /sys, /etc) offline")
    root.add_argument("--host-root", metavar="DIR",
                      help="the live node whose / is mounted at DIR (a container's hostPath /): "
                           "files read there, NVIDIA libraries queried")
    ap.add_argument("--library-dir", metavar="DIR",
                    help="load the NVIDIA libraries from DIR only")
    ap.add_argument("--checks", metavar="LIST",
                    help="comma-separated check IDs or prefixes (driver,gpu.ecc); ^ID leaves "
                         "one out")
    ap.add_argument("--level", default="standard", choices=["quick", "standard", "extended"],
                    help="quick (a prolog), standard (default), extended (benchmarks)")
    ap.add_argument("--budget", type=_seconds(0.001, DAY), default=0.0, metavar="S",
                    help="wall-clock budget of the run (default: the level's)")
    ap.add_argument("--duration", type=_seconds(0.001, WEEK), default=0.0, metavar="S",
                    help="how long stress.* loads the GPUs (extended level; default 120; "
                         "hours for a burn-in)")
    ap.add_argument("--watch", type=_seconds(0, DAY), default=0.0, metavar="S",
                    help="before judging gpu.xid, wait up to S s for an Xid NVML reports (half "
                         "a second more after the first): a loop of passes that watches in "
                         "place of a sleep sees each Xid at once, also where the kernel log "
                         "cannot be read")
    ap.add_argument("--gpus", type=_gpus, metavar="LIST",
                    help="CUDA devices the GPU tests use, 0,2 (default all)")
    ap.add_argument("--policy", metavar="FILE",
                    help="the site's expectations, key = value")
    ap.add_argument("--gemm-size", type=_whole(1, 65536), default=0, metavar="N",
                    help="m = n = k of the gemm.* checks (default 8192, FP32/TF32 4096)")
    ap.add_argument("--copy-mib", type=_whole(1, 1 << 20), default=0, metavar="N",
                    help="buffer of the cuda.copy check (default 64)")
    ap.add_argument("--nccl-kib", type=_whole(1, 1 << 24), default=0, metavar="N",
                    help="largest all-reduce of nccl.allreduce (default 262144)")
    ap.add_argument("--topology-xml", metavar="F",
                    help="topo.* checks on this `lstopo --of xml` file, not this machine")
    ap.add_argument("--isolation", default="auto", choices=["auto", "process", "none"],
                    help="auto (default: gpuverify-worker when installed), process "
                         "(required), none (in this process, no hard deadlines)")
    ap.add_argument("--deadline", type=_seconds(0.5, DAY), default=0.0, metavar="S",
                    help="each check's deadline (30, at least 0.5), times the catalog's "
                         "factor for some (driver.nvml 2x, driver.cuda 4x)")
    ap.add_argument("--state", type=_state, metavar="FILE|default",
                    help="record every run in this SQLite file and judge each GPU against its "
                         "own history (history.*); 'default': /var/lib/gpuverify/history.db "
                         "for root, else $XDG_STATE_HOME/gpuverify/history.db")
    ap.add_argument("--node-name", metavar="NAME",
                    help="the node's name in the report, metrics and history (default "
                         "$GPUVERIFY_NODE_NAME, else the host name)")
    ap.argv = argv
    return ap


def _npd(report):
    """node-problem-detector's plugin protocol: the one line, 0 OK, 1 a FAIL, 2 unknown."""
    print(report.verdict_line())
    code = report.exit_code
    return 0 if code == EXIT_HEALTHY else 1 if code == EXIT_FAIL else 2


def main(argv=None):
    """Runs the command line (sys.argv[1:] by default) and returns the exit status."""
    args = _parser(argv).parse_args(argv)
    if args.list:
        try:
            print("\n".join(catalog()))
            return 0
        except GpuverifyError as e:
            print("gpuverify: %s" % e, file=sys.stderr)
            return EXIT_USAGE
    try:
        with Context(sysroot=args.sysroot, host_root=args.host_root,
                     library_dir=args.library_dir, deadline_s=args.deadline,
                     state_path=args.state, node_name=args.node_name) as ctx:
            state = ctx.state_path
            policy = ctx.policy(path=args.policy) if args.policy else None
            report = ctx.run(args.level, checks=args.checks, budget_s=args.budget,
                             gpus=args.gpus, policy=policy, gemm_size=args.gemm_size,
                             copy_bytes=args.copy_mib << 20, nccl_bytes=args.nccl_kib << 10,
                             topology_xml=args.topology_xml, isolation=args.isolation,
                             duration_s=args.duration, watch_s=args.watch)
    except (GpuverifyError, ValueError, OSError) as e:
        print("gpuverify: %s" % e, file=sys.stderr)
        if args.npd or args.quiet:  # one line of at most 200 bytes, as gv-check's
            said = " ".join(str(e).split()).encode()[:150].decode(errors="ignore")
            print("ERROR gpuverify: %s" % said)
        if args.textfile:
            _publish(args.textfile, None)
        return EXIT_USAGE
    code = _output(args, report, state)
    if args.textfile:  # a file it cannot write is said; the exit stays the verdict's
        _publish(args.textfile, report)
    return code


def _output(args, report, state):
    """Prints the report as asked; returns the exit status."""
    if state and not args.npd and not args.quiet and \
            not any(c.id.startswith("history.") for c in report.checks):
        print("gpuverify: this run is recorded in %s, but --checks selects no history.* check: "
              "nothing judged it against its history" % state, file=sys.stderr)
    if args.npd:
        return _npd(report)
    if args.quiet:
        print(report.verdict_line())
        return report.exit_code
    if args.json:
        print(report.json)
    elif args.prometheus:
        sys.stdout.write(report.prometheus)
    else:
        for c in (report.failures if args.failures else report.checks):
            print("%-7s %-22s %-10s %s" % (c.verdict, c.id, c.subject, c.message))
        print("\n" + "  ".join("%s: %d" % kv for kv in report.counts.items()) +
              "  => " + report.verdict +
              ("" if report.action == "none" else " [%s]" % report.action))
    return report.exit_code


if __name__ == "__main__":
    # Ctrl-C ends it at once, as it ends gv-check: Python would raise KeyboardInterrupt only
    # once the library call under way returned (the run's whole budget), and the workers end
    # with their caller.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
