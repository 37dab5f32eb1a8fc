#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check this rank's GPU before training, under torchrun (or any launcher that sets LOCAL_RANK).

    torchrun --nproc-per-node 8 examples/python/torchrun_check.py

Each rank checks only its own GPU (gpus=[LOCAL_RANK]) at the quick level: the node's files
and libraries, a CUDA context and a small GEMM, a few seconds. Ranks check side by side: each
holds only its own GPU. Do it before the training touches CUDA: a context this process
already has on the GPU would be taken for another job's.

Each rank judges its own GPU: the rows of that GPU (report.gpu(cuda_index=...)), and the
node's rows (subject "node", NICs) only when no GPU's rows explain them. A node row that
another GPU's FAIL explains ("PCI sees 8 GPU(s), usable 7" beside gpu3's own FAIL) is that
GPU's rank's to act on: this rank logs it and goes on. A node row nothing explains (the driver,
CUDA itself) is every GPU's failure, so every rank exits 1. What each rank does, by gpuverify's
exit codes (python -m gpuverify's and gv-check's):

  0 its GPU is healthy          train.
    (PASS, WARN, SKIP)
  1 its GPU FAILed, or CUDA     print its failures and exit 1 at once. CUDA's ordinals move
    does not see it             when a GPU falls off the bus: with gpu3 lost, CUDA calls the
                                seven left 0-6, so it is rank 7 that finds no GPU and exits 1.
  4 another gpuverify held the  a node health check or another job's prolog is testing the
    GPU (not judged yet)        GPU: wait and run again, for --hold-wait seconds in all;
                                then exit 4, distinct, so that the launcher can tell "busy"
                                from "broken".
  3 could not judge (an ERROR)  exit 3, unless --allow-unjudged.
  2 the run could not start     (library not found; a GPU the node does not have, e.g.
                                LOCAL_RANK 9 on a node of eight: a usage error): exit 2.

The other ranks wait: they go on to training and block in its first collective (or in
init_process_group's rendezvous) until torchrun's elastic agent, seeing the failed worker's
exit 1, stops the whole worker group (SIGTERM to every local worker) and restarts it
(--max-restarts) or ends the job; the scheduler's requeue can then place the job elsewhere.
So one failed GPU stops the job, and the logs name that rank and GPU, not eight "FAIL"s.

It runs without torch: the training step below is a stand-in that uses torch when it is
installed. gpuverify itself needs only libgpuverify (pip install ./bindings/python).
"""
import argparse
import os
import sys
import time

import gpuverify


def log(rank, text):
    """One line on stderr, prefixed with the rank, as torchrun's --tee would show it."""
    print("[rank %s] %s" % (rank, text), file=sys.stderr, flush=True)


def check_gpu(gpu, rank, args):
    """Checks one GPU, waiting out another gpuverify's hold; returns this rank's exit code."""
    give_up = time.monotonic() + args.hold_wait
    while True:
        try:
            with gpuverify.Context(sysroot=args.sysroot, library_dir=args.library_dir) as ctx:
                report = ctx.run(args.level, gpus=[gpu], budget_s=args.budget,
                                 gemm_size=args.gemm_size)
        except gpuverify.GpuverifyError as e:
            log(rank, "gpuverify could not run: %s" % e)
            return gpuverify.EXIT_USAGE
        code = report.exit_code
        if code != gpuverify.EXIT_HELD:
            break
        held = next(c for c in report.checks if c.held_by is not None)
        who = "PID %d" % held.held_by.pid if held.held_by.pid else "another gpuverify"
        left = give_up - time.monotonic()
        if left <= 0:
            log(rank, "GPU %d still held by %s after %.0f s: not judged" %
                (gpu, who, args.hold_wait))
            return code
        log(rank, "GPU %d held by %s; trying again in %.0f s" %
            (gpu, who, min(args.retry_every, left)))
        time.sleep(min(args.retry_every, left))

    return judge_own_gpu(report, gpu, rank, args)


def judge_own_gpu(report, gpu, rank, args):
    """This rank's exit code from the report: its GPU's rows, and the node's rows that no
    GPU's failure explains (see the module's docstring)."""
    try:
        mine = report.gpu(cuda_index=gpu)
    except gpuverify.NotFoundError as e:
        mine = None
        missing = str(e)
    others_failed = [g for g in report.gpus
                     if g is not mine and g.verdict == gpuverify.Verdict.FAIL]
    node_rows = [c for c in report.failures if not c.subject.startswith("gpu")]
    own_rows = mine.checks if mine is not None else []
    if mine is None:
        verdict = gpuverify.Verdict.FAIL
    elif node_rows and not others_failed:
        # Nothing on another GPU explains the node's problem: it is this GPU's too.
        verdict = worst([mine.verdict] + [c.verdict for c in node_rows])
    else:
        verdict = mine.verdict
    for c in [c for c in own_rows if c.verdict.is_problem] + (
            node_rows if mine is None or not others_failed else []):
        log(rank, "%s %s %s: %s%s" % (c.verdict, c.id, c.subject, c.message,
                                      " (%s)" % c.remediation if c.remediation else ""))
    if mine is not None and others_failed:
        log(rank, "the node: %s on %s, not this rank's GPU: left to %s" % (
            report.verdict, ", ".join("%s (%s)" % (g.subject, g.pci_bus_id)
                                      for g in others_failed),
            "the rank of that GPU" if any(g.cuda_index is not None for g in others_failed)
            else "the rank whose CUDA device is missing"))
    if mine is None:
        log(rank, "GPU %d: FAIL: CUDA does not see it (%s)" % (gpu, missing))
        return gpuverify.EXIT_FAIL
    log(rank, "GPU %d: %s (%s %s, %d checks, %.1f s)" % (
        gpu, verdict, mine.subject, mine.pci_bus_id, len(report.checks), report.duration_s))
    if verdict == gpuverify.Verdict.FAIL:
        return gpuverify.EXIT_FAIL
    if verdict == gpuverify.Verdict.ERROR:
        if args.allow_unjudged:
            log(rank, "GPU %d could not be judged; training anyway (--allow-unjudged)" % gpu)
            return gpuverify.EXIT_HEALTHY
        return gpuverify.EXIT_UNJUDGED
    return gpuverify.EXIT_HEALTHY


def worst(verdicts):
    """The verdict that weighs most: FAIL, ERROR, WARN, PASS, SKIP."""
    order = [gpuverify.Verdict.SKIP, gpuverify.Verdict.PASS, gpuverify.Verdict.WARN,
             gpuverify.Verdict.ERROR, gpuverify.Verdict.FAIL]
    return max(verdicts, key=order.index)


def train(gpu, rank):
    """The training would start here; a stand-in that touches the GPU when torch is
    installed (imported only now: after the check, and only if present)."""
    try:
        import torch
    except ImportError:
        log(rank, "torch not installed: skipping the training step")
        return
    if torch.cuda.is_available():
        torch.cuda.set_device(gpu)
        x = torch.ones(1024, 1024, device="cuda")
        log(rank, "training on cuda:%d (%.0f)" % (gpu, float((x @ x).sum())))
    else:
        log(rank, "torch sees no CUDA device: skipping the training step")


def main(argv=None):
    """Checks LOCAL_RANK's GPU, then trains; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="exit status: 0 trained, 1 this rank's GPU FAILed, 2 "
                                        "gpuverify could not run (or no such GPU), 3 could not "
                                        "judge, 4 held by another gpuverify past --hold-wait")
    ap.add_argument("--level", default="quick", choices=["quick", "standard", "extended"])
    ap.add_argument("--budget", type=float, default=0.0,
                    help="each run's budget (0: the level's); a hold is waited for up to half")
    ap.add_argument("--hold-wait", type=float, default=600.0,
                    help="seconds in all to wait for another gpuverify holding the GPU")
    ap.add_argument("--retry-every", type=float, default=30.0,
                    help="seconds between two tries while the GPU is held")
    ap.add_argument("--allow-unjudged", action="store_true",
                    help="train when a check could not do its work (exit 3 otherwise)")
    ap.add_argument("--gemm-size", type=int, default=0,
                    help="m = n = k of the quick GEMM (0: the level's; tests use 32)")
    ap.add_argument("--sysroot", help="judge a captured node tree (tests)")
    ap.add_argument("--library-dir", help="load the NVIDIA libraries from there only")
    args = ap.parse_args(argv)

    # torchrun sets LOCAL_RANK (and RANK); the GPU is the CUDA device of that index. With
    # CUDA_VISIBLE_DEVICES narrowed to one device per rank, that device is index 0.
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    rank = os.environ.get("RANK", str(local_rank))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    gpu = 0 if visible and "," not in visible else local_rank

    code = check_gpu(gpu, rank, args)
    if code != gpuverify.EXIT_HEALTHY:
        return code
    train(gpu, rank)
    return 0


if __name__ == "__main__":
    sys.exit(main())
