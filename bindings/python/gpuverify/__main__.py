"""python -m gpuverify: gv-check in Python, with the same options, output modes and exit codes
(0 healthy, 1 a check FAILed or ERRORed, 2 usage or library error; --npd: 0 OK, 1 problem,
2 unknown, one line)."""
import argparse
import sys

from .api import Context, catalog
from .errors import GpuverifyError


def _parser():
    ap = argparse.ArgumentParser(prog="python -m gpuverify", description=__doc__.splitlines()[0])
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the report as JSON")
    out.add_argument("--prometheus", action="store_true", help="Prometheus text")
    out.add_argument("--npd", action="store_true", help="node-problem-detector plugin mode")
    ap.add_argument("--list", action="store_true", help="print every check ID and exit")
    ap.add_argument("--sysroot")
    ap.add_argument("--library-dir")
    ap.add_argument("--checks")
    ap.add_argument("--level", default="standard", choices=["quick", "standard", "extended"])
    ap.add_argument("--budget", type=float, default=0.0)
    ap.add_argument("--gpus", help="CUDA devices, 0,2")
    ap.add_argument("--policy", help="a key = value policy file")
    ap.add_argument("--gemm-size", type=int, default=0)
    ap.add_argument("--copy-mib", type=int, default=0)
    ap.add_argument("--nccl-kib", type=int, default=0)
    ap.add_argument("--topology-xml")
    ap.add_argument("--isolation", default="auto", choices=["auto", "process", "none"])
    ap.add_argument("--deadline", type=float, default=0.0,
                    help="each check's deadline where the catalog sets none (30)")
    return ap


def _npd(report):
    fails = [c for c in report.checks if c.verdict == "FAIL"]
    errors = [c for c in report.checks if c.verdict == "ERROR"]
    first = (fails or errors or [None])[0]
    if first is None:
        print("gpuverify: %d checks, no failure" % len(report.checks))
        return 0
    more = len(fails or errors) - 1
    print("%s %s %s: %s%s" % (first.verdict, first.id, first.subject, first.message,
                              " (and %d more)" % more if more else ""))
    return 1 if fails else 2


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.list:
            print("\n".join(catalog()))
            return 0
        with Context(sysroot=args.sysroot, library_dir=args.library_dir,
                     deadline_s=args.deadline) as ctx:
            policy = ctx.policy(path=args.policy) if args.policy else None
            gpus = [int(g) for g in args.gpus.split(",")] if args.gpus else None
            report = ctx.run(args.level, checks=args.checks, budget_s=args.budget, gpus=gpus,
                             policy=policy, gemm_size=args.gemm_size,
                             copy_bytes=args.copy_mib << 20, nccl_bytes=args.nccl_kib << 10,
                             topology_xml=args.topology_xml, isolation=args.isolation)
    except (GpuverifyError, ValueError) as e:
        print("gpuverify: %s" % e, file=sys.stdout if args.npd else sys.stderr)
        return 2
    if args.npd:
        return _npd(report)
    if args.json:
        print(report.json)
    elif args.prometheus:
        sys.stdout.write(report.prometheus)
    else:
        for c in report.checks:
            print("%-7s %-22s %-10s %s" % (c.verdict, c.id, c.subject, c.message))
        counts = {v: sum(c.verdict == v for c in report.checks)
                  for v in ("PASS", "WARN", "FAIL", "SKIP", "ERROR")}
        print("\n" + "  ".join("%s: %d" % kv for kv in counts.items()) + "  => " + report.verdict)
    return 0 if report.healthy else 1


if __name__ == "__main__":
    sys.exit(main())
