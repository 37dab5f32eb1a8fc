#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One fault scenario of the isolated worker, end to end through gv-check --json: the
verdicts and messages it must give, the exit status, and the wall time it must keep.

usage: run_fault.py GV_CHECK FIXTURES FAKELIB WORK_DIR NAME
Each NAME is its own ctest (tests/CMakeLists.txt). A hang gets a deadline of 2 s: the run
must come back within that deadline + 1 s, with the rows finished before it kept.

The wall time a case may take is what its fault may cost (the deadline a hang is cut at, + 1 s)
on top of what the same command takes without the fault, measured just before in the same
test (the scenario's fault lines, the case's worker and environment left out): the host's
load slows both alike, and a hang not cut at its deadline still goes past. A case that injects
nothing is bounded by its deadline, and none of its rows may say a deadline passed."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

DEADLINE = 2.0
REAL_WORKER = None  # the build's gpuverify-worker, found from gv-check's path in main()
# The fakes compute GEMMs and memory tests on the host: seconds in a release build, more under
# the sanitizers and on a loaded host. Cases that do not hang get this deadline, so only a hang
# times out; their wall bound is that deadline (a run that waited one out takes at least that
# long), whatever the host's load makes of their computing.
SLOW_FAKE = 120.0
TIMED_OUT = "timed out after"


class Seconds:
    """A row text holding a time gv-check measured: `text` with {} where the seconds are
    (%.1f). The time is at least `least` (the deadline or wait it stands for) and within the
    case's bound: a loaded host ends a wait late, never early."""

    def __init__(self, text, least):
        self.text, self.least = text, least
        before, after = text.split("{}")
        self.pattern = re.compile(re.escape(before) + r"([0-9]+\.[0-9])" + re.escape(after))

    def found_in(self, shown, most):
        return any(self.least - 0.05 <= float(m.group(1)) <= most
                   for m in self.pattern.finditer(shown))

    def __repr__(self):
        return repr(self.text.format("%.1f or more" % self.least))


def timed_out(seconds, where):
    return Seconds(TIMED_OUT + " {} s in " + where, seconds)


# rows: (id, subject, verdict, text[, action]); text is looked for in the row's message, then
# after "remedy: " in its remediation ("remedy: start nvidia-fabricmanager"); action, when
# given, is the row's (docs/checks.md, "Actions"). Every case also asserts what every report
# must: each WARN, FAIL and ERROR row names an action (its rule's, or its check's catalog line's),
# each PASS and SKIP row none.
# exit_code: gv-check's, 1 for a FAIL, 3 when no check FAILed but one ERRORed.
# plan: {id: n}, the number of rows the report must have of that check (one per GPU of the
# plan, whatever happened to the workers that held them).
# wall: what the fault may cost beyond the same run without it (default: the deadline + 1 s);
# a case that injects nothing has no such run and no bound: its rows must wait out no deadline.
# baseline_args: the arguments of that run, where the case's own would not end without the
# fault (a stress of 600 s stalled at 5 s: the same 5 s without the stall).
# gpus: {index: verdict}, the per-GPU verdicts the report must give (gpus[i].verdict).
def case(scenario, checks, rows, exit_code=1, sysroot="h100-open", args=(), env=None,
         wall=None, worker=None, policy=None, deadline=DEADLINE, plan=None, error=None,
         baseline_args=None, gpus=None, sigchld_ignored=False):
    if wall is None:
        wall = deadline if deadline >= SLOW_FAKE else deadline + 1.0
    return dict(scenario=scenario, checks=checks, rows=rows, exit=exit_code, sysroot=sysroot,
                args=list(args), env=env or {}, wall=wall, worker=worker,
                policy=policy, deadline=deadline, plan=plan or {}, error=error,
                baseline_args=baseline_args, gpus=gpus or {}, sigchld_ignored=sigchld_ignored)


EIGHT = ["gpu%d" % i for i in range(8)]


CASES = {
    # NVML's facts have twice the context's deadline, cuInit four times (catalog factors).
    # A start that hung is not tried again: a fresh worker judges the rest without that
    # library (the inventory from sysfs and CUDA here).
    "nvml_init_hang": case("fault-nvml-init-hang", "driver,gpu.nvml", [
        ("driver.nvml", "node", "FAIL", timed_out(4.0, "driver.nvml on node, in loading NVML and nvmlInit_v2 (worker stopped)"),
         "reboot_node"),
        ("gpu.nvml", "gpu0", "SKIP", "NVML is not usable (driver.nvml)"),
        ("driver.cuda", "node", "PASS", "cuInit OK")],
        wall=2 * DEADLINE + 1),
    # NVML that hangs (or crashes) on one GPU: only that GPU's queries are left out after it,
    # and it is the GPU named.
    "nvml_handle_hang": case("fault-nvml-handle-hang", "driver,gpu.nvml,gpu.nvlink", [
        ("driver.nvml", "node", "FAIL", "queries of NVML GPU 3 (worker stopped)"),
        ("gpu.nvml", "gpu3", "FAIL", "NVML's queries of this GPU hung or crashed", "reset_gpu"),
        ("driver.gpu_count", "node", "FAIL", "usable 7; NVML cannot query: gpu3", "reset_gpu"),
        ("gpu.nvlink", "gpu3", "SKIP", "NVML does not answer for this GPU"),
        ("gpu.nvml", "gpu2", "PASS", "answers NVML queries")],
        wall=2 * DEADLINE + 1, gpus={3: "FAIL", 2: "PASS"}),
    "nvml_handle_crash": case("fault-nvml-handle-crash", "driver,gpu.nvml,cuda.init", [
        ("driver.nvml", "node", "FAIL",
         "in nvmlDeviceGetHandleByIndex and queries of NVML GPU 3, twice in this run; the other "
         "checks ran without NVML's queries of NVML GPU 3", "reset_gpu"),
        ("gpu.nvml", "gpu3", "FAIL", "NVML's queries of this GPU hung or crashed", "reset_gpu"),
        ("gpu.nvml", "gpu7", "PASS", "answers NVML queries"),
        ("cuda.init", "gpu3", "PASS", "")],
        args=["--copy-mib", "1"], wall=5, gpus={3: "FAIL"}),
    "cuinit_hang": case("fault-cuinit-hang", "driver,cuda.init", [
        ("driver.cuda", "node", "FAIL", timed_out(8.0, "driver.cuda on node, in cuInit (worker stopped)")),
        ("driver.nvml", "node", "PASS", "NVML"),
        ("driver.persistence", "gpu3", "PASS", "persistence mode enabled"),
        ("cuda.init", "node", "SKIP",
         "libcuda is not usable: its start did not return in gpuverify-worker earlier in this run")],
        wall=4 * DEADLINE + 1),
    # cuInit crashing every process that calls it costs the tests that need CUDA, not the NVML
    # inventory and the rest; driver.cuda FAILs once it crashed twice (a rerun would crash
    # again).
    # The same with driver.cuda chosen: its row is the fresh worker's, saying so.
    "cuinit_crash_once_judged": case("fault-cuinit-crash-once", "driver.cuda,cuda.init", [
        ("driver.cuda", "node", "ERROR",
         "in cuInit, and a fresh worker got past it: CUDA driver API 13.0, cuInit OK", "rerun"),
        ("cuda.init", "gpu3", "PASS", "")],
        exit_code=3, args=["--copy-mib", "1", "--gpus", "0,3"], wall=5),
    # The Xid watch leaves the GPU NVML could not query alone (it crashed there again).
    "nvml_handle_crash_watch": case("fault-nvml-handle-crash", "driver,gpu.xid,gpu.nvml", [
        ("gpu.nvml", "gpu3", "FAIL", "NVML's queries of this GPU hung or crashed", "reset_gpu"),
        ("gpu.xid", "gpu0", "PASS", "while it watched 7 GPU(s)")],
        args=["--copy-mib", "1", "--watch", "0.5"], wall=5, gpus={3: "FAIL"}),
    # libibverbs that hangs or crashes as the RDMA checks open a device costs what needs it:
    # rdma.devices names it, the RDMA checks go on from sysfs, the GPUs are tested.
    "ibv_open_hang": case("fault-ibv-open-hang", "rdma,cuda.init", [
        ("rdma.devices", "node", "FAIL",
         timed_out(DEADLINE, "rdma.modules on node, in libibverbs: mlx5_0: opening it"),
         "reboot_node"),
        ("rdma.devices", "mlx5_0", "PASS", "MT4129"),
        ("rdma.ports", "mlx5_0/1", "PASS", "PORT_ACTIVE"),
        ("rdma.mtu", "mlx5_0/1", "SKIP", "libibverbs is not usable: its start did not return"),
        ("rdma.nccl_env", "node", "SKIP", "this run left libibverbs out"),
        ("cuda.init", "gpu3", "PASS", "CUDA context")],
        sysroot="h100-ib", args=["--copy-mib", "1"], wall=DEADLINE + 1.5),
    # The tests across GPUs ask libibverbs too (nccl.transport's port): the worker across GPUs
    # started with it is stopped, so the hang costs one deadline, and no row comes twice.
    "ibv_open_hang_standard": case("fault-ibv-open-hang", "rdma,cuda.init,cuda.p2p,nccl", [
        ("rdma.devices", "node", "FAIL",
         timed_out(DEADLINE, "rdma.modules on node, in libibverbs: mlx5_0: opening it")),
        ("nccl.allreduce", "node", "PASS", "all_reduce over 8 ranks")],
        sysroot="h100-ib", args=["--copy-mib", "1", "--nccl-kib", "64"], wall=DEADLINE + 2.5),
    "ibv_open_crash": case("fault-ibv-open-crash", "rdma,cuda.init", [
        ("rdma.devices", "node", "ERROR",
         "in libibverbs: mlx5_0: opening it, its ports, DMA-BUF registration; the other checks "
         "ran without libibverbs", "rerun"),
        ("rdma.ports", "mlx5_0/1", "PASS", "PORT_ACTIVE"),
        ("rdma.nccl_env", "node", "SKIP", "this run left libibverbs out"),
        ("cuda.init", "gpu3", "PASS", "CUDA context")],
        exit_code=3, sysroot="h100-ib", args=["--copy-mib", "1"], wall=5),
    # Met first by nccl.transport (NCCL's port), after nccl.version's row: the fresh worker
    # that does without libibverbs makes the group's other rows, not that one again. The crash
    # costs NCCL's set-up and sweep once more (two GPUs: 16 s more for eight under ASan).
    "ibv_open_crash_in_nccl": case("fault-ibv-open-crash", "nccl.version,nccl.transport", [
        ("rdma.devices", "node", "ERROR", "during nccl.transport on node, in libibverbs: mlx5_0: opening it", "rerun"),
        ("nccl.transport", "node", "PASS", "2 connections: 2 P2P"),
        ("nccl.version", "node", "PASS", "NCCL 2.28.9")],
        exit_code=3, sysroot="h100-ib", args=["--nccl-kib", "64", "--gpus", "0,1"], wall=10,
        plan={"nccl.version": 1}),
    "cuinit_crash": case("fault-cuinit-crash", "driver,gpu.nvml,cuda.init", [
        ("driver.cuda", "node", "FAIL",  # signal 11, or ASan's exit
         "during driver.cuda on node, in cuInit, twice in this run; the other checks ran "
         "without libcuda", "fix_config"),
        ("driver.nvml", "node", "PASS", "NVML"),
        ("gpu.nvml", "gpu7", "PASS", ""),
        ("cuda.init", "node", "SKIP",
         "in its start, twice in this run: not tried again (driver.cuda judges that)")],
        args=["--copy-mib", "1"], wall=5),
    "ctx_oom": case("fault-ctx-oom", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL", "OUT_OF_MEMORY")], sysroot=None),
    # The same refusal while a job holds the GPU's memory is the load: the busy rule judges
    # every row it made (FAIL or ERROR before: cuda.init, cuda.matmul, cudnn.version).
    "ctx_oom_busy": case("fault-ctx-oom-busy", "cuda.init,cuda.alloc,cuda.matmul,cudnn.version", [
        ("cuda.init", "gpu0", "SKIP", "not judged: GPU 0 used by PID 4121"),
        ("cuda.init", "gpu0", "SKIP", "measured: cuDevicePrimaryCtxRetain on GPU 0: CUDA_ERROR_OUT_OF_MEMORY"),
        ("cuda.matmul", "gpu0", "SKIP", "not judged: GPU 0 used by PID 4121")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32"]),
    # Exclusive-process mode with a job on the GPU: no context for us either; the busy rule
    # judges it. Refused with nobody there, it stays a FAIL.
    "exclusive_busy": case("fault-exclusive-busy", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "SKIP", "not judged: GPU 0 used by PID 4121"),
        ("cuda.init", "gpu0", "SKIP", "CUDA_ERROR_DEVICE_UNAVAILABLE")], exit_code=0, sysroot=None),
    "exclusive_nobody": case("fault-exclusive-nobody", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL", "CUDA_ERROR_DEVICE_UNAVAILABLE")], sysroot=None),
    # A job NVML does not list to this process (another PID namespace: gv-check in a container)
    # shows in the memory all processes hold: its slow figures are not judged either.
    "hidden_tenant": case("h100x1-hidden-tenant", "gemm.fp16", [
        ("gemm.fp16", "gpu0", "SKIP", "not judged: GPU 0 used by processes NVML does not list to "
         "this one ("),
        ("gemm.fp16", "gpu0", "SKIP", ") holding 9.0 GiB during the test; measured: ")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32"], deadline=SLOW_FAKE),
    # Variables of the caller's that change what cuBLASLt does are not the worker's: inherited,
    # NVIDIA_TF32_OVERRIDE=0 made gemm.tf32 run at the FP32 rate and CUDA_FORCE_PTX_JIT=1 made
    # cublasLtCreate fail on an H100. In the caller's own process they still apply.
    "caller_env_worker": case("h100x1-compute", "gemm.tf32,gemm.fp16", [
        ("gemm.tf32", "gpu0", "PASS", "verified"), ("gemm.fp16", "gpu0", "PASS", "verified")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32"], wall=30, deadline=SLOW_FAKE,
        env={"NVIDIA_TF32_OVERRIDE": "0", "CUDA_FORCE_PTX_JIT": "1"}),
    "caller_env_in_process": case("h100x1-compute", "gemm.tf32", [
        ("gemm.tf32", "gpu0", "FAIL", "cublasLtCreate")], sysroot=None,
        args=["--gemm-size", "32", "--isolation", "none"], wall=30, deadline=SLOW_FAKE,
        env={"CUDA_FORCE_PTX_JIT": "1"}),
    # A CUDA call that fails mid-test: that part's row FAILs naming the call.
    "kernel_error": case("fault-kernel-error", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "PASS", ""), ("cuda.alloc", "gpu0", "FAIL", "gv_fill_pattern")],
        sysroot=None, args=["--copy-mib", "1"], wall=10),
    "memalloc_hang": case("fault-memalloc-hang", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL", TIMED_OUT)], sysroot=None),
    "kernel_hang": case("fault-kernel-hang", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL", TIMED_OUT, "reset_gpu")], sysroot=None),
    "cublaslt_hang": case("fault-cublaslt-hang", "system.os,gemm.fp16", [
        ("system.os", "node", "PASS", ""),
        ("gemm.fp16", "gpu0", "FAIL",
         timed_out(5.0, "gemm.fp16 on gpu0, in cuBLASLt: the first matmuls"))],
        sysroot=None, args=["--gemm-size", "32"], deadline=5),
    "cudnn_hang": case("fault-cudnn-hang", "cudnn", [
        ("cudnn.conv", "gpu0", "FAIL", timed_out(2.0, "cudnn.conv on gpu0"))], sysroot=None),
    "nccl_hang": case("h100x8-nccl-hang", "nccl.allreduce", [
        ("nccl.allreduce", "node", "FAIL", "deadline")], args=["--budget", "2", "--nccl-kib", "64"],
        wall=3.5),
    # A crash is an ERROR naming the signal; a fresh worker runs the checks after it.
    # A hang the run's budget stops before the check's own deadline: ERROR, never a PASS.
    # The checks it never reached are ERRORs too: not run, so the node cannot pass on them.
    "budget_stops_a_hang": case("fault-cublaslt-hang", "gemm.fp16,cudnn.conv", [
        ("gemm.fp16", "gpu0", "ERROR", "not finished within the run's budget of 3 s", "rerun"),
        ("cudnn.conv", "node", "ERROR", "not run: the run's budget of 3 s was spent", "rerun")],
        exit_code=3, sysroot=None, args=["--gemm-size", "32", "--budget", "3"], deadline=SLOW_FAKE,
        wall=4.5),
    "gemm_crash": case("fault-gemm-crash", "cuda.init,gemm.fp16,cudnn.version", [
        ("cuda.init", "gpu0", "PASS", ""),
        ("gemm.fp16", "gpu0", "ERROR", "during gemm.fp16 on gpu0", "rerun"),  # signal 11, or ASan's exit
        ("cudnn.version", "node", "PASS", "")], exit_code=3, sysroot=None,
        args=["--gemm-size", "32"], deadline=SLOW_FAKE),
    "worker_missing": case("h100x8", "driver", [], exit_code=2, worker="/nonexistent/gpuverify-worker",
                           args=["--isolation", "process"], wall=5),
    "worker_not_executable": case("h100x8", "driver", [], exit_code=2, worker="@plain-file",
                                  args=["--isolation", "process"], wall=5),
    # A worker named on purpose that cannot run is an error, not a run without deadlines.
    "worker_missing_auto": case("h100x8", "driver.module", [], exit_code=2,
                                worker="/nonexistent/gpuverify-worker", wall=5),
    # A selection that leaves nothing to run is refused: a report of no rows would pass. On a
    # node without GPUs any selection brings in driver.gpu_count to judge that.
    "nothing_selected": case("h100x8", "^system,^driver,^gpu,^nvswitch,^topo,^rdma,^gpudirect,"
                             "^cuda,^mem,^gemm,^cudnn,^nccl", [], exit_code=2, sysroot="no-nvidia", wall=5,
                             error="leaves none of the standard level's checks to run"),
    "gpu_less_rdma_only": case("no-gpus", "rdma.modules", [
        ("driver.gpu_count", "node", "FAIL", "no NVIDIA GPU found")], sysroot="no-nvidia", wall=5),
    # An RDMA port's error counters as they stand: listed, never judged by their size alone
    # (history.port_errors judges their growth); a counter that is no number WARNs naming the
    # file, a port without the counters directory or without a link SKIPs.
    "rdma_port_errors_counted": case("h100x8-rdma", "rdma.port_errors", [
        ("rdma.port_errors", "mlx5_2/1", "PASS", "symbol_error 2 since the driver loaded"),
        ("rdma.port_errors", "mlx5_3/1", "PASS", "port_xmit_discards 14 since the driver loaded"),
        ("rdma.port_errors", "mlx5_6/1", "PASS", "link_downed 1 since the driver loaded"),
        ("rdma.port_errors", "mlx5_0/1", "PASS", "no error counted since the driver loaded")],
        exit_code=0, sysroot="h100-ib", wall=5, plan={"rdma.port_errors": 8}),
    "rdma_port_errors_unreadable": case("h100x8-rdma", "rdma.port_errors,rdma.ports", [
        ("rdma.port_errors", "mlx5_3/1", "WARN",
         "counters unreadable: counters/symbol_error: '12abc': a number followed by other bytes",
         "fix_config"),
        ("rdma.port_errors", "mlx5_3/1", "WARN", "remedy: read the files named by hand"),
        ("rdma.ports", "mlx5_3/1", "PASS", "PORT_ACTIVE"),
        ("rdma.port_errors", "mlx5_5/1", "SKIP", "has no counters directory (ports/1/counters)"),
        ("rdma.port_errors", "mlx5_1/1", "SKIP", "state unknown, not ACTIVE"),
        ("rdma.port_errors", "mlx5_0/1", "PASS", "carrier_changes 2")],
        exit_code=3, sysroot="h100-roce-malformed", wall=5),
    "rdma_port_errors_port_down": case("h100x8-rdma", "rdma.port_errors", [
        ("rdma.port_errors", "mlx5_5/1", "SKIP", "state DOWN, not ACTIVE"),
        ("rdma.port_errors", "mlx5_4/1", "PASS", "")],
        exit_code=0, sysroot="h100-roce-port-down", wall=5),
    # Each GPU in a lane of its own: a hang or crash on one GPU costs that GPU's row only, and
    # every GPU of the plan has its row.
    "lanes_hang_two": case("fault-ctx-hang-gpu3-gpu5", "cuda.init,cuda.matmul", [
        ("cuda.init", "gpu3", "FAIL", timed_out(3.0, "cuda.init on gpu3"), "reset_gpu"),
        ("cuda.init", "gpu5", "FAIL", timed_out(3.0, "cuda.init on gpu5")),
        ("cuda.matmul", "gpu3", "SKIP", "not run: the worker was stopped after cuda.init timed out on gpu3"),
        ("cuda.init", "gpu0", "PASS", ""), ("cuda.matmul", "gpu4", "PASS", ""),
        ("cuda.init", "gpu7", "PASS", "")],
        args=["--copy-mib", "1", "--gemm-size", "32"], deadline=3, wall=7,
        plan={"cuda.init": 8, "cuda.matmul": 8}),
    # A GPU whose every kernel launch crashes: a fresh worker for each of its checks, the
    # other GPUs untouched.
    "lanes_crash_gpu3": case("fault-kernel-crash-gpu3", "cuda.init,cuda.alloc,cuda.matmul", [
        ("cuda.init", "gpu3", "ERROR", "during cuda.init on gpu3"),
        ("cuda.alloc", "gpu3", "ERROR", "during cuda."),
        ("cuda.matmul", "gpu3", "ERROR", "during cuda."),
        ("cuda.alloc", "gpu2", "PASS", ""), ("cuda.matmul", "gpu4", "PASS", "")],
        exit_code=3, args=["--copy-mib", "1", "--gemm-size", "32"], deadline=SLOW_FAKE, wall=30,
        plan={"cuda.init": 8, "cuda.alloc": 8, "cuda.matmul": 8}),
    # Tests the budget left unrun are each GPU's ERROR, as their rows would have been: on
    # "node" every GPU's verdict read PASS, none tested.
    "budget_unrun_per_gpu": case("h100x8", "driver,cuda.init,mem.test", [
        ("mem.test", "gpu3", "ERROR", "not run: the standard level's budget of 0.001 s was spent",
         "rerun")],
        exit_code=3, args=["--isolation", "none", "--budget", "0.001", "--copy-mib", "1"],
        deadline=SLOW_FAKE, gpus={3: "ERROR", 0: "ERROR"}, plan={"mem.test": 8}),
    # A release that never returns is named as such, not as the step before it.
    "ctx_release_hang": case("fault-ctx-release-hang", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL",
         "in cuda.init on gpu0, in releasing the CUDA context of GPU 0 (worker stopped)")],
        sysroot=None, args=["--copy-mib", "1"]),
    # A GPU that crashed every worker of its lane is left out of the tests across GPUs, as a
    # hung one is: they are judged over the others, not crashed once more by it.
    "lanes_crash_gpu3_left_out": case("fault-kernel-crash-gpu3", "cuda.init,cuda.alloc,cuda.copy,cuda.matmul,cuda.copy_all,cuda.p2p,nccl.allreduce", [
        ("cuda.matmul", "gpu3", "ERROR", "during cuda.matmul on gpu3"),
        ("cuda.p2p", "gpu3", "SKIP", "not run: the GPU's own tests crashed every worker started for them"),
        ("cuda.copy_all", "node", "PASS", "7 GPUs copying at once"),
        ("nccl.allreduce", "node", "PASS", "all_reduce over 7 ranks")],
        exit_code=3, args=["--copy-mib", "1", "--gemm-size", "32", "--nccl-kib", "64"],
        deadline=SLOW_FAKE, wall=30, gpus={3: "ERROR", 2: "PASS"}, plan={"cuda.p2p": 8}),
    # The budget ends every lane at once, however many GPUs hang.
    "lanes_budget": case("fault-ctx-hang-gpu3-gpu5", "cuda.init", [
        ("cuda.init", "gpu3", "ERROR", "not finished within the run's budget of 3 s"),
        ("cuda.init", "gpu5", "ERROR", "not finished within the run's budget of 3 s"),
        ("cuda.init", "gpu0", "PASS", ""), ("cuda.init", "gpu6", "PASS", "")],
        exit_code=3, args=["--copy-mib", "1", "--budget", "3"], deadline=SLOW_FAKE, wall=4,
        plan={"cuda.init": 8}),
    # A crash costs its own check: a fresh worker runs the rest of its group.
    "crash_fresh_worker_stress": case("fault-gemm-crash-once", "stress", [
        ("stress.gemm", "node", "ERROR", "during stress.gemm"),
        ("stress.power", "gpu0", "PASS", "")], exit_code=3, sysroot=None,
        args=["--gemm-size", "32", "--duration", "1"], deadline=SLOW_FAKE, wall=30),
    # A caller that ignores SIGCHLD: the same verdicts; how the worker ended is not known, and
    # the row says so rather than "exited with status 0".
    "crash_sigchld_ignored": case("fault-kernel-crash-once", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "ERROR", "worker ended, how unknown (this process reaps its "
         "children itself: SIGCHLD ignored or handled) during cuda.init on gpu0"),
        ("cuda.alloc", "gpu0", "PASS", "")], exit_code=3, sysroot=None,
        args=["--copy-mib", "1"], deadline=SLOW_FAKE, wall=30, sigchld_ignored=True),
    "crash_fresh_worker_cuda": case("fault-kernel-crash-once", "cuda.init,cuda.alloc,cuda.copy,cuda.matmul", [
        ("cuda.init", "gpu0", "ERROR", "during cuda.init on gpu0"),
        ("cuda.alloc", "gpu0", "PASS", ""), ("cuda.copy", "gpu0", "PASS", ""),
        ("cuda.matmul", "gpu0", "PASS", "")], exit_code=3, sysroot=None,
        args=["--copy-mib", "1", "--gemm-size", "32"], deadline=SLOW_FAKE, wall=30),
    # NCCL's sweep crashes its worker: its rows ERROR, naming where, and the checks after it run.
    "crash_in_nccl_group": case("h100x8-nccl-crash", "nccl.allreduce,stress.power", [
        ("nccl.allreduce", "node", "ERROR", "during nccl.allreduce on node, in running all_reduce at 65536 bytes"),
        ("stress.power", "gpu0", "PASS", ""), ("stress.power", "gpu7", "PASS", "")],
        exit_code=3, args=["--level", "extended", "--nccl-kib", "64", "--gemm-size", "32",
                           "--duration", "0.2"], deadline=SLOW_FAKE, wall=30,
        plan={"stress.power": 8}),
    # Work that never completes on the GPU, 5 s into a 600 s stress: the heartbeats stop, and
    # the worker is stopped one deadline later, not at the end of the 600 s (the same run
    # without the stall stresses those 5 s).
    "stress_stall": case("fault-kernel-stall", "stress.gemm", [
        ("stress.gemm", "gpu0", "FAIL", Seconds("no progress on gpu0 for {} s in stress.gemm", 5.0))], sysroot=None,
        args=["--gemm-size", "32", "--duration", "600"], deadline=5, wall=6,
        baseline_args=["--gemm-size", "32", "--duration", "5"]),
    # One bound for the whole run: an NVML hang (twice the deadline) within --budget, stopped
    # a quarter of the budget before its end (at most 5 s) so that a fresh worker judges the
    # rest without NVML. Its own deadline not reached, it is an ERROR, not the hang's FAIL.
    "nvml_hang_budget": case("fault-nvml-init-hang", "driver,gpu.nvml", [
        ("driver.nvml", "node", "ERROR",
         "in loading NVML and nvmlInit_v2, of its 60 s: stopped 2.5 s before the end of the run's "
         "budget of 10 s so that the other checks ran without it", "rerun"),
        ("driver.cuda", "node", "PASS", "cuInit OK"),
        ("gpu.nvml", "gpu0", "SKIP", "NVML is not usable (driver.nvml)")],
        exit_code=3, args=["--budget", "10"], deadline=30, wall=11),
    # The same for cuInit (four times the deadline) at the quick level: the inventory, the
    # NVML checks and the kernel log are judged, the checks that need CUDA say why not.
    "cuinit_hang_budget": case("fault-cuinit-hang", "driver,gpu.nvml,gpu.xid,cuda.init", [
        ("driver.cuda", "node", "ERROR",
         "in cuInit, of its 120 s: stopped 3.0 s before the end of the run's budget of 12 s",
         "rerun"),
        ("driver.nvml", "node", "PASS", "NVML"),
        ("gpu.nvml", "gpu3", "PASS", "answers NVML queries"),
        ("gpu.xid", "gpu3", "PASS", ""),
        ("cuda.init", "node", "SKIP", "libcuda is not usable: its start did not return")],
        exit_code=3, args=["--level", "quick", "--budget", "12"], deadline=30, wall=13),
    "worker_garbage": case("h100x8", "driver", [
        ("driver.nvml", "node", "ERROR", "not its protocol", "fix_config")], exit_code=3, worker="@garbage",
        wall=5),
    # A worker that never says a word (a wrong program, or one that cannot run here) is no driver
    # hang: it says where NVML's load begins before anything can hang.
    "worker_silent": case("h100x8", "driver", [
        ("driver.nvml", "node", "ERROR", "said nothing in the", "fix_config")], exit_code=3,
        worker="@silent", wall=4 * DEADLINE + 3),
    # Workers on standby: the lanes' spares start with the node's worker, and so does the one
    # for the tests across GPUs. Those gone when their work comes are replaced by fresh ones:
    # the rows are as always.
    "standby_gone": case("h100x8", "cuda.init,cuda.copy_all,cuda.p2p", [
        ("cuda.init", "gpu7", "PASS", ""),
        ("cuda.copy_all", "node", "PASS", "8 GPUs copying at once"),
        ("cuda.p2p", "gpu7", "PASS", "copies to gpu0")], args=["--copy-mib", "1"],
        worker="@standby-exits", exit_code=0, wall=5),
    # One stuck before it reads its GPUs (in cuInit, say) is that test's hang, within its deadline.
    "standby_stuck": case("h100x8", "cuda.init,cuda.copy_all,cuda.p2p", [
        ("cuda.init", "gpu7", "PASS", ""),
        ("cuda.copy_all", "node", "FAIL",
         timed_out(4 * DEADLINE, "cuda.copy_all on node, in starting gpuverify-worker")),
        ("cuda.p2p", "node", "SKIP", "")], args=["--copy-mib", "1"],
        worker="@standby-sleeps", wall=4 * DEADLINE + 3),
    # A lane's spare stuck before it reads its work is that lane's hang, within cuInit's deadline
    # (a lane's worker starts there); the other GPU's rows stand.
    "spare_stuck": case("h100x8", "cuda.init", [
        ("cuda.init", "gpu0", "PASS", ""),
        ("cuda.init", "gpu3", "FAIL",
         timed_out(4 * DEADLINE, "cuda.init on gpu3, in starting gpuverify-worker"))],
        args=["--copy-mib", "1", "--gpus", "0,3"], worker="@spares-sleep",
        wall=4 * DEADLINE + 3, gpus={3: "FAIL"}),
    # The spares' cuInit waits for the node's worker's (several at once cost each about what
    # all would one after another): the run's first cuInit is the node's worker's, whose crash
    # there is driver.cuda's ERROR (one crash is tried again in a fresh worker, and the GPUs
    # are tested); a spare's would have been replaced without a row.
    "cuinit_node_first": case("fault-cuinit-crash-once", "cuda.init", [
        ("driver.cuda", "node", "ERROR",
         "during driver.cuda on node, in cuInit, and a fresh worker got past it", "rerun"),
        ("cuda.init", "gpu0", "PASS", ""), ("cuda.init", "gpu3", "PASS", "")],
        exit_code=3, args=["--copy-mib", "1", "--gpus", "0,3"], wall=5),
    "gpu_gone": case("fault-gpu-gone", "cuda.init", [
        ("cuda.init", "gpu0", "PASS", ""), ("cuda.init", "gpu1", "FAIL", "")],
        args=["--copy-mib", "1"], wall=10),
    "nvml_cuda_disagree": case("fault-cuda-missing", "driver", [
        ("driver.gpu_count", "node", "FAIL", "NVML sees 8 usable GPU(s) but CUDA enumerates 7",
         "reboot_node")]),
    "busy_skip": case("fault-busy", "gemm.fp16,cuda.alloc", [
        ("gemm.fp16", "gpu0", "SKIP", "not judged: GPU 0 used by PID 4121"),
        ("cuda.alloc", "gpu0", "PASS", "other processes hold 38.0 GiB")], exit_code=0,
        sysroot=None, args=["--gemm-size", "32", "--copy-mib", "1"], deadline=SLOW_FAKE),
    "busy_fail": case("fault-busy", "gemm.fp16", [
        ("gemm.fp16", "gpu0", "FAIL", "GPU shared: GPU 0 used by PID 4121", "wait")], sysroot=None,
        args=["--gemm-size", "32"], policy="busy = fail\n", deadline=SLOW_FAKE),
    "memory_full": case("fault-memory-full", "cuda.init,cuda.alloc", [
        ("cuda.alloc", "gpu0", "FAIL", "")], sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # Memory another process takes during the test: the large test is repeated at the share
    # of what is free now; when even that is gone, the busy rule judges the refusal.
    "memory_taken_retry": case("fault-memory-taken", "cuda.init,cuda.alloc", [
        ("cuda.alloc", "gpu0", "PASS", "free memory fell from 0.25 to 0.09 GiB during the test")],
        exit_code=0, sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "memory_taken_busy": case("fault-memory-taken-busy", "cuda.init,cuda.alloc", [
        ("cuda.alloc", "gpu0", "SKIP", "not judged: GPU 0 used by PID 4121")],
        exit_code=0, sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # Copies on every GPU at once: a shared link shows only then.
    "copy_all_healthy": case("h100x8", "cuda.copy_all", [
        ("cuda.copy_all", "node", "PASS", "8 GPUs copying at once: H2D 400.0, D2H 400.0 GB/s in all")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "copy_all_shared": case("copy-shared-link", "cuda.copy,cuda.copy_all", [
        ("cuda.copy", "gpu2", "PASS", "pinned H2D 50.0 GB/s"),
        ("cuda.copy_all", "node", "WARN",
         "below 75% of what their PCIe links leave them: H2D gpu2 25.0 of 50.0 GB/s (50%), H2D gpu3 25.0 of 50.0 GB/s (50%), D2H gpu2"),
        # Each GPU's copies alone measured once: cuda.copy's figures, not a second pass.
        ("cuda.copy_all", "node", "WARN", "; each GPU alone as cuda.copy measured it")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE,
        plan={"cuda.copy": 8, "cuda.copy_all": 1}),
    # Two GPUs under one switch (sysfs says so) split its uplink by design: half each passes.
    "copy_all_switch_pair": case("copy-shared-link", "cuda.copy_all", [
        ("cuda.copy_all", "node", "PASS", "every GPU kept at least 100% of what its PCIe links "
         "leave it; shared by design: gpu2, gpu3 under 0000:38:00.0 (50% each)")],
        exit_code=0, sysroot="h100-switch-pair", args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # GPU 2's link idle at 2.5 GT/s when sysfs was read: the share is the links' design.
    "copy_all_switch_pair_idle": case("copy-shared-link", "cuda.copy_all", [
        ("cuda.copy_all", "node", "PASS", "shared by design: gpu2, gpu3 under 0000:38:00.0 (50% each)")],
        exit_code=0, sysroot="h100-switch-pair-idle", args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # A third GPU sharing that link, which sysfs does not show: below the designed half, WARN.
    "copy_all_switch_pair_more": case("copy-shared-three", "cuda.copy_all", [
        ("cuda.copy_all", "node", "WARN", "H2D gpu2 16.7 of 25.0 GB/s (67%), H2D gpu3 16.7 of 25.0 "
         "GB/s (67%), H2D gpu4 16.7 of 50.0 GB/s (33%)"),
        ("cuda.copy_all", "node", "WARN", "links shared by design: gpu2, gpu3 under 0000:38:00.0 (50% each)")],
        exit_code=0, sysroot="h100-switch-pair", args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "copy_all_one_gpu": case("h100x1-compute", "cuda.copy_all", [
        ("cuda.copy_all", "node", "SKIP", "one GPU: no link for GPUs to share")],
        exit_code=0, sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # Copies between every pair of GPUs: the one slow GPU, the one without peer access.
    "p2p_healthy": case("h100x8", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "PASS", "copies to gpu1 450.0, gpu2 450.0"),
        ("cuda.p2p", "gpu7", "PASS", "(peer access on)"),
        ("cuda.p2p", "gpu3", "PASS", "the slowest is 100% of its NVLink 18 x 25 = 450 GB/s nominal")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "p2p_slow_gpu": case("p2p-slow-gpu", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "WARN", "slow copies to gpu5 100.0 GB/s (22% of the node's 450.0 over NVLink)"),
        ("cuda.p2p", "gpu5", "WARN", "slow copies to gpu0 100.0 GB/s"),
        ("cuda.p2p", "gpu4", "WARN", "gpu5 100.0 GB/s")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "p2p_no_peer": case("p2p-no-peer", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "WARN", "no peer access (through the host) to gpu3"),
        ("cuda.p2p", "gpu3", "WARN", "no peer access (through the host) to gpu0, gpu1, gpu2, gpu4"),
        ("cuda.p2p", "gpu1", "WARN", "the slowest is 40% of its PCIe = 63 GB/s nominal")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # Every NVLink pair alike: the medians see nothing, the NVLinks' design does.
    "p2p_nvlink_slow": case("p2p-nvlink-slow", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "WARN", "slow copies to gpu1 100.0 GB/s (22% of its NVLink 18 x 25 = 450 GB/s nominal)")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "p2p_nvlink_no_peer": case("p2p-nvlink-no-peer", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "WARN", "no peer access (through the host) to gpu1, gpu2")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # PCIe GPUs with peer access only within their NUMA node, as most two-socket hosts allow:
    # the pairs across go through the host by design, judged against their own kind.
    "p2p_numa_peers": case("pcie-numa-peers", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "PASS", "copies to gpu1 50.0, gpu2 50.0, gpu3 50.0, gpu4 25.0"),
        ("cuda.p2p", "gpu0", "PASS", "(peer access on)"),
        ("cuda.p2p", "gpu0", "PASS", "through the host, as every pair across NUMA nodes on this "
         "node: gpu4, gpu5, gpu6, gpu7"),
        ("cuda.p2p", "gpu7", "PASS", "through the host, as every pair across NUMA nodes on this "
         "node: gpu0, gpu1, gpu2, gpu3")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # The same node with one pair inside a NUMA node refusing peer access: that one WARNs.
    "p2p_numa_peers_one_refused": case("pcie-numa-peers-one-refused", "cuda.p2p", [
        ("cuda.p2p", "gpu0", "WARN", "no peer access (through the host) to gpu3"),
        ("cuda.p2p", "gpu4", "PASS", "through the host, as every pair across NUMA nodes")],
        exit_code=0, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "p2p_one_gpu": case("h100x1-compute", "cuda.p2p", [
        ("cuda.p2p", "node", "SKIP", "one GPU: no pair to copy between")],
        exit_code=0, sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # A GPU the node does not have is the caller's mistake: a usage error (exit 2), not a FAIL
    # that reads as broken hardware (in the worker and in the caller).
    "gpus_absent": case("h100x8", "gemm.fp16", [], exit_code=2,
        args=["--gpus", "1,9", "--gemm-size", "32"], wall=SLOW_FAKE,
        error='gv_run_opts.gpus "1,9": there is no GPU 9: this process can have 8 GPU(s) on this node (CUDA ordinals 0-7)'),
    "gpus_absent_in_process": case("h100x8", "gemm.fp16", [], exit_code=2,
        args=["--gpus", "12", "--gemm-size", "32", "--isolation", "none"], wall=SLOW_FAKE,
        error='gv_run_opts.gpus "12": there is no GPU 12'),
    # One the node has but CUDA lost (GPU 3 fell off the bus: CUDA's ordinals are 0-6) FAILs
    # instead of being passed over: hardware, whichever GPU that moved CUDA's ordinals it is.
    "gpus_missing": case("h100x8-gpu-lost", "gemm.fp16", [
        ("driver.gpu_count", "node", "FAIL", 'CUDA GPU 7 was asked for (gpus "1,7") but CUDA sees 7 GPU(s) (0-6) of the node\'s 8: nothing tested it', "hw_inspect"),
        ("gemm.fp16", "gpu1", "PASS", "verified")],
        args=["--gpus", "1,7", "--gemm-size", "32"], deadline=SLOW_FAKE),
    "gpus_missing_in_process": case("h100x8-gpu-lost", "gemm.fp16", [
        ("driver.gpu_count", "node", "FAIL", 'CUDA GPU 7 was asked for (gpus "7") but CUDA sees 7 GPU(s) (0-6)')],
        args=["--gpus", "7", "--gemm-size", "32", "--isolation", "none"], deadline=SLOW_FAKE),
    # A container given GPUs 0 and 1 of eight tests those and says the others were not its;
    # one given none ERRORs whatever checks are selected (never PASS, never a broken GPU).
    "given_two": case("h100x8-given-2", "driver.gpu_count,gemm.fp16", [
        ("driver.gpu_count", "node", "PASS", "6 GPU(s) not this process's, not tested: gpu2, gpu3"),
        ("gemm.fp16", "gpu1", "PASS", "verified")], exit_code=0, sysroot="h100-container",
        args=["--gemm-size", "32"], deadline=SLOW_FAKE),
    # CUDA unusable: the CUDA tests leave it to driver.cuda, brought into the run: an ERROR when
    # CUDA_VISIBLE_DEVICES hides every GPU (nothing tested), a FAIL when cuInit fails.
    "cuda_hidden_selected": case("h100x8", "gemm.fp16", [
        ("gemm.fp16", "node", "SKIP", "no GPU to test (driver.cuda judges that)"),
        ("driver.cuda", "node", "ERROR", "CUDA_VISIBLE_DEVICES=NoDevFiles")],
        exit_code=3, env={"CUDA_VISIBLE_DEVICES": "NoDevFiles"}),
    "cuinit_fails_selected": case("h100x8-cuinit-nodevice", "gemm.fp16,cuda.init", [
        ("cuda.init", "node", "SKIP", "(driver.cuda judges that)"),
        ("driver.cuda", "node", "FAIL", "cuInit: CUDA_ERROR_NO_DEVICE")]),
    # cuInit's errors that name their cause: the fabric manager (an NVSwitch fabric down),
    # libcuda of another driver than the kernel module's (driver.version brought in).
    "cuinit_fabric_not_ready": case("h100x8-fabric-down", "driver.cuda,gpu.fabric", [
        ("driver.cuda", "node", "FAIL", "cuInit: CUDA_ERROR_SYSTEM_NOT_READY"),
        ("driver.cuda", "node", "FAIL", "remedy: CUDA waits for a system daemon: on an NVSwitch node start nvidia-fabricmanager"),
        ("gpu.fabric", "gpu0", "FAIL", "not registered with the NVSwitch fabric")]),
    "cuinit_driver_mismatch": case("h100x8-cuda-mismatch", "driver.cuda", [
        ("driver.cuda", "node", "FAIL", "cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        ("driver.cuda", "node", "FAIL", "remedy: libcuda and the kernel module are of different drivers"),
        ("driver.version", "node", "PASS", "")]),
    # A GPU gone from the bus altogether: PCI, NVML and CUDA agree on seven, the baseboard's
    # four NVSwitches say eight; a policy's count still decides where there is one.
    "gpu_missing_from_bus": case("h100x8-gpu-missing", "driver.gpu_count", [
        ("driver.gpu_count", "node", "FAIL", "7 GPU(s) on the PCI bus where the node's 4 H100 NVSwitch functions connect 8 (an HGX baseboard holds 8): 1 GPU(s) missing from the bus"),
        ("driver.gpu_count", "node", "FAIL", "remedy: drain the node; ask the BMC")],
        sysroot="h100-gpu-missing"),
    "gpu_missing_from_bus_policy": case("h100x8-gpu-missing", "driver.gpu_count", [
        ("driver.gpu_count", "node", "PASS", "7 GPU(s): pci=7 nvml=7")],
        sysroot="h100-gpu-missing", policy="gpu_count = 7\n", exit_code=0),
    "given_none": case("h100x8-given-none", "gemm.fp16", [
        ("gemm.fp16", "node", "SKIP", "not applicable: none of the node's GPUs is this process's"),
        ("driver.gpu_count", "node", "ERROR", "none of the node's 8 GPU(s) is this process's to test")],
        exit_code=3, sysroot="h100-container-none"),
    # A figure below its floor for one short moment is measured again, longer, and judged on
    # that; one that stays below (h100x1-slow-copy, h100x1-slow) keeps its verdict.
    "transient_slow_copy": case("transient-slow-copy", "cuda.copy", [
        ("cuda.copy", "gpu0", "PASS", "pinned H2D 50.0 GB/s, D2H 50.0 GB/s = 79% of the link's 63.0 GB/s (now 63.0); D2D 4000 GB/s; measured again: the first, shorter, gave H2D 25.0, D2H 25.0 GB/s")],
        exit_code=0, sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    "transient_slow_gemm": case("transient-slow-gemm", "gemm.fp16", [
        ("gemm.fp16", "gpu0", "PASS", "fp16 32x32x32: 700.0 TFLOPS = 71% of the 989 TFLOPS dense peak, SM clock 1980 MHz, verified; measured again: the first, shorter, gave 350.0 TFLOPS")],
        exit_code=0, args=["--gemm-size", "32"], deadline=SLOW_FAKE),
    "slow_copy_stays": case("h100x1-slow-copy", "cuda.copy", [
        ("cuda.copy", "gpu0", "FAIL", "H2D 20.0 GB/s, D2H 20.0 GB/s = 32% of the link's 63.0 GB/s (now 63.0); D2D 1600 GB/s; measured again: the first, shorter, gave H2D 20.0, D2H 20.0 GB/s")],
        sysroot=None, args=["--copy-mib", "1"], deadline=SLOW_FAKE),
    # Sustained stress: every result compared with the first and across GPUs; power held.
    "stress_healthy": case("h100x8", "stress", [
        ("stress.gemm", "gpu0", "PASS", "results identical to the first and to the other GPUs'"),
        ("stress.gemm", "gpu7", "PASS", "results identical to the first and to the other GPUs'"),
        ("stress.power", "gpu3", "PASS", "held 686 W median (98% of the 700 W limit), 686 W mean")],
        exit_code=0, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    "stress_odd_gpu": case("stress-odd-gpu", "stress.gemm", [
        ("stress.gemm", "gpu4", "PASS", "identical to the first and to the other GPUs'"),
        ("stress.gemm", "gpu5", "FAIL", "differs from the other NVIDIA H100 80GB HBM3 GPUs' on the same inputs")],
        args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    # The power cap and SW thermal slowdown under load are the GPU managing itself: named, not
    # judged; HW thermal slowdown and HW power brake are the hardware stepping in.
    "stress_clocks": case("stress-clocks", "stress.gemm", [
        ("stress.gemm", "gpu0", "PASS", "identical to the first and to the other GPUs'; clocks managed by power cap, thermal (software)"),
        ("stress.gemm", "gpu1", "WARN", "the hardware cut the clocks during the stress (thermal (hardware))"),
        ("stress.gemm", "gpu2", "WARN", "the hardware cut the clocks during the stress (power brake)"),
        ("stress.gemm", "gpu3", "PASS", "identical to the first and to the other GPUs'")],
        exit_code=0, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    "stress_drift": case("stress-drift", "stress.gemm", [
        ("stress.gemm", "gpu0", "FAIL", "bf16 GEMM results differed from the first (first at iteration ")],
        sysroot=None, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    # NVML's one-second average trails the load's start: judged on the median reading, not
    # the mean (a healthy H100's 5 s stress read 94% of its limit as a mean).
    "stress_power_ramp": case("stress-power-ramp", "stress.power", [
        ("stress.power", "gpu0", "PASS", "held 686 W median (98% of the 700 W limit)"),
        ("stress.power", "gpu0", "PASS", "clocks held back by the power cap")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32", "--duration", "1"], deadline=SLOW_FAKE),
    "stress_low_power": case("stress-low-power", "stress.power", [
        ("stress.power", "gpu0", "WARN", "did not reach its limit: 560 W median (80% of the 700 W limit), 560 W mean, 560 W peak, at 1400 MHz")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    # Held its limit, but one lowered below the board's default: power delivery untested.
    "stress_power_lowered": case("h100x1-power-lowered", "stress.power", [
        ("stress.power", "gpu0", "WARN", "held 343 W median (98% of the 350 W limit)"),
        ("stress.power", "gpu0", "WARN", "the limit is lowered from the board's default 700 W: power delivery was not tested there")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    # At its top clock below its limit: the load does not make this GPU power-limited.
    "stress_clock_bound": case("stress-clock-bound", "stress.power", [
        ("stress.power", "gpu0", "PASS", "ran at its top clock below its limit (not power-limited): 560 W median (80% of the 700 W limit)"),
        ("stress.power", "gpu0", "PASS", "its top SM clock is 1980 MHz")],
        exit_code=0, sysroot=None, args=["--gemm-size", "32", "--duration", "0.2"], deadline=SLOW_FAKE),
    # The long checks keep their deadlines: four times the unit, plus the stress duration.
    # A GPU hung from its first kernel (or its first GEMM call): the memory test and the stress
    # checks watch their GPUs from their start, so they stop a deadline after it, not after
    # their whole multiplied time and the stress duration (a 600 s burn-in answers in 5 s, not
    # 620), and the row is the GPU's.
    "mem_test_hang": case("fault-kernel-hang", "mem.test", [
        ("mem.test", "gpu0", "FAIL", Seconds("no progress on gpu0 for {} s in mem.test on gpu0", 2.0))],
        sysroot=None, wall=DEADLINE + 1),
    # One GPU, no lanes: the node's worker tests it, and what its hang left unrun is the GPU's.
    "hang_unrun_on_the_gpu": case("fault-kernel-hang", "cuda.init,cuda.alloc", [
        ("cuda.init", "gpu0", "FAIL", "in cuda.init on gpu0"),
        ("cuda.alloc", "gpu0", "SKIP", "not run: the worker was stopped after cuda.init timed out")],
        sysroot=None, args=["--copy-mib", "1"], wall=DEADLINE + 1),
    "stress_hang": case("fault-cublaslt-hang", "stress", [
        ("stress.gemm", "gpu0", "FAIL", Seconds("no progress on gpu0 for {} s in stress.gemm on node", 2.0)),
        ("stress.power", "gpu0", "SKIP", "")],
        sysroot=None, args=["--gemm-size", "32", "--duration", "1"], wall=DEADLINE + 2),
    "stress_hang_from_start": case("fault-kernel-hang", "stress", [
        ("stress.gemm", "gpu0", "FAIL", Seconds("no progress on gpu0 for {} s in stress.gemm on node", 5.0)),
        ("stress.power", "gpu0", "SKIP", "")],
        sysroot=None, args=["--gemm-size", "32", "--duration", "600"], deadline=5, wall=5 + 2,
        baseline_args=["--gemm-size", "32", "--duration", "5"]),
    # The memory test: a stuck bit found at its offset, ECC errors during the test, memory
    # another process takes (tested as far as it goes), none at all.
    "mem_stuck_bit": case("mem-stuck-bit", "mem.test", [
        ("mem.test", "gpu0", "FAIL", "words read back wrong in 0.11 GiB; first at offset 0x12340 ")],
        sysroot=None, deadline=SLOW_FAKE),
    "mem_ecc_corrected": case("mem-ecc-corrected", "mem.test", [
        ("mem.test", "gpu0", "WARN", "DRAM ECC corrected errors rose during the test (corrected 0 -> 3")],
        exit_code=0, sysroot=None, deadline=SLOW_FAKE),
    "mem_ecc_uncorrected": case("mem-ecc-uncorrected", "mem.test", [
        ("mem.test", "gpu0", "FAIL", "uncorrected 0 -> 1")], sysroot=None, deadline=SLOW_FAKE),
    "mem_taken": case("fault-memory-taken", "mem.test", [
        ("mem.test", "gpu0", "PASS", "every word read back right")],
        exit_code=0, sysroot=None, deadline=SLOW_FAKE),
    "mem_taken_busy": case("fault-memory-taken-busy", "mem.test", [
        ("mem.test", "gpu0", "SKIP", "not run: GPU 0 used by PID 4121")],
        exit_code=0, sysroot=None, deadline=SLOW_FAKE),
    # A GPU a job uses is spared the tests that would take from it (its free memory, the
    # run's duration at full power); the others are tested. busy = ignore asks for them.
    "busy_spared": case("h100x8-gpu3-busy", "cuda.alloc,mem.test,stress", [
        ("mem.test", "gpu3", "SKIP", "not run: GPU 3 used by PID 4121 (38.0 GiB); holding 92% "
         "of its free memory would take what that process may need next"),
        ("mem.test", "gpu2", "PASS", "every word read back right"),
        ("stress.gemm", "gpu3", "SKIP", "loading it at full power for the run's duration"),
        ("stress.power", "gpu3", "SKIP", "not run: GPU 3 used by PID 4121"),
        ("stress.gemm", "gpu4", "PASS", "identical to the first and to the other GPUs'"),
        ("cuda.alloc", "gpu3", "PASS", "64 MiB and 0.06 GiB"),
        ("cuda.alloc", "gpu3", "PASS", "the second test at the first's size")],
        exit_code=0, args=["--gemm-size", "32", "--duration", "0.2", "--copy-mib", "1"], deadline=SLOW_FAKE),
    "busy_ignore_tests": case("h100x8-gpu3-busy", "mem.test", [
        ("mem.test", "gpu3", "PASS", "every word read back right")],
        exit_code=0, policy="busy = ignore\n", deadline=SLOW_FAKE),
    "mem_full": case("fault-memory-full", "mem.test", [
        ("mem.test", "gpu0", "FAIL", "no memory to test: not one 2 MiB page could be allocated")],
        sysroot=None, deadline=SLOW_FAKE),
    # Health counters: each finding with its verdict and message, and the policy's thresholds.
    "health_memory": case("health-memory", "gpu.ecc_errors,gpu.row_remap,gpu.memory_repair", [
        ("gpu.ecc_errors", "gpu0", "FAIL", "2 uncorrectable ECC error(s) since the last reset"),
        ("gpu.ecc_errors", "gpu1", "FAIL", "SRAM uncorrectable errors exceeded NVIDIA's threshold"),
        ("gpu.ecc_errors", "gpu2", "PASS", "DRAM correctable 12"),
        ("gpu.row_remap", "gpu0", "PASS", "banks by spare rows: max 3072"),
        ("gpu.row_remap", "gpu3", "WARN", "a row remapping is pending: reset needed"),
        ("gpu.row_remap", "gpu4", "FAIL", "a row remapping failed"),
        ("gpu.row_remap", "gpu5", "WARN", "2 bank(s) with no spare row and 1 with few left"),
        ("gpu.memory_repair", "gpu0", "PASS", "unrepairable memory: no"),
        ("gpu.memory_repair", "gpu6", "WARN", "a repair is pending: reset needed"),
        ("gpu.memory_repair", "gpu7", "FAIL", "the GPU reports unrepairable memory")]),
    "health_ecc_policy": case("health-memory", "gpu.ecc_errors", [
        ("gpu.ecc_errors", "gpu2", "WARN", "12 correctable ECC errors since the last reset (policy: 10)")],
        policy="ecc_correctable_warn = 10\n"),
    "health_retired": case("health-retired", "gpu.retired_pages,gpu.row_remap,gpu.memory_repair", [
        ("gpu.retired_pages", "gpu0", "FAIL", "65 pages retired, at or past 60"),
        ("gpu.retired_pages", "gpu1", "WARN", "a page retirement is pending: reset needed"),
        ("gpu.row_remap", "gpu0", "SKIP", "not applicable: Tesla V100-SXM2-32GB does not remap rows"),
        ("gpu.memory_repair", "gpu0", "SKIP", "not applicable")], sysroot=None),
    "health_retired_policy": case("health-retired", "gpu.retired_pages", [
        ("gpu.retired_pages", "gpu0", "WARN", "a page retirement is pending")], sysroot=None,
        policy="retired_pages_fail = 100\n", exit_code=0),
    # NVLink 5's counters where NVML gives them: a failed recovery took its link down (FAIL),
    # errors FEC could not correct WARN, corrected symbol errors are only counted.
    "nvlink5_counters": case("h100x8-nvlink5-counters", "gpu.nvlink_errors", [
        ("gpu.nvlink_errors", "gpu1", "FAIL", "NVLink 4: 2 failed link recoveries", "hw_inspect"),
        ("gpu.nvlink_errors", "gpu2", "WARN", "NVLink 4: 7 errors FEC did not correct", "hw_inspect"),
        ("gpu.nvlink_errors", "gpu0", "PASS", "NVLink 5: link recoveries 0 succeeded, 0 failed; uncorrected (effective) errors 0; symbol errors 12345 (corrected by FEC)")]),
    "health_links": case("health-links", "gpu.nvlink_errors,gpu.clock_events,gpu.temperature,gpu.pcie_errors", [
        ("gpu.nvlink_errors", "gpu0", "WARN", "NVLink 5: 3 recoveries"),
        ("gpu.nvlink_errors", "gpu1", "PASS", "CRC flit 150"),
        ("gpu.clock_events", "gpu2", "WARN", "HW thermal slowdown held the clocks for 45.0 s (over 1 s)"),
        ("gpu.clock_events", "gpu6", "WARN", "HW power brake held the clocks for 4.0 s"),
        ("gpu.clock_events", "gpu0", "PASS", "SW power cap 1.2 s"),
        ("gpu.clock_events", "gpu7", "PASS", "SW power cap 7200.0 s, sync boost 0.0 s, SW thermal slowdown 3600.0 s, HW thermal slowdown 0.0 s"),
        ("gpu.pcie_errors", "gpu3", "WARN", "PCIe replays above 8 per minute; replays 10000 (83.33 per minute over 2.0 h"),
        ("gpu.temperature", "gpu4", "WARN", "within 5 C of T.Limit"),
        ("gpu.temperature", "gpu5", "FAIL", "at the hardware slowdown point"),
        ("gpu.temperature", "gpu0", "PASS", "40 C below T.Limit")], sysroot="h100-aer"),
    "health_links_policy": case("health-links", "gpu.nvlink_errors,gpu.clock_events,gpu.temperature,gpu.pcie_errors", [
        ("gpu.nvlink_errors", "gpu1", "WARN", "NVLink 0: 150 CRC errors"),
        ("gpu.clock_events", "gpu6", "PASS", "HW power brake 4.0 s"),
        ("gpu.temperature", "gpu4", "PASS", "3 C below T.Limit"),
        ("gpu.pcie_errors", "gpu3", "PASS", "replays 10000")], sysroot="h100-aer",
        policy="nvlink_crc_warn = 100\nclock_event_warn_s = 60\ntemp_margin_warn_c = 2\n"
               "pcie_replay_warn_per_min = 100\n"),
    # The switch port's surprise link-down is history when the driver asks nothing of GPU 0
    # (h100x8: recovery action none); a present fault when it asks a reboot, or cannot say.
    "health_aer": case("h100x8", "gpu.pcie_errors", [
        ("gpu.pcie_errors", "gpu0", "WARN", "the driver now reports no recovery action needed for this GPU (gpu.recovery) and it answers: the link recovered"),
        ("gpu.pcie_errors", "gpu0", "WARN", "fatal PCIe errors on the GPU's path since boot; replays 0 (0.00 per minute over 2.0 h of uptime); AER over 4 function(s) from the GPU to the root port: correctable 3, non-fatal 0, fatal 1 (SDES 1 on 0000:17:00.0)"),
        ("gpu.pcie_errors", "gpu1", "WARN", "non-fatal PCIe errors"),
        ("gpu.pcie_errors", "gpu2", "WARN", "an AER statistics file is unreadable (aer_dev_correctable of 0000:3a:00.0: malformed (no TOTAL_ERR_ line))"),
        ("gpu.pcie_errors", "gpu3", "PASS", "correctable 5, non-fatal 0, fatal 0 (RxErr 5 on 0000:5d:00.0)"),
        ("gpu.pcie_errors", "gpu4", "PASS", "correctable 0, non-fatal 0, fatal 0")], sysroot="h100-aer",
        exit_code=0),
    "health_aer_pending": case("h100x8-aer-reboot", "gpu.pcie_errors", [
        ("gpu.pcie_errors", "gpu0", "FAIL", "fatal PCIe errors on the GPU's path; replays 0"),
        ("gpu.pcie_errors", "gpu0", "FAIL", "; the driver says the GPU needs a node reboot (gpu.recovery)"),
        ("gpu.pcie_errors", "gpu3", "PASS", "correctable 5")], sysroot="h100-aer"),
    "health_aer_no_recovery_action": case("h100x8-no-recovery-action", "gpu.pcie_errors", [
        ("gpu.pcie_errors", "gpu0", "FAIL", "fatal PCIe errors on the GPU's path; replays 0"),
        ("gpu.pcie_errors", "gpu1", "WARN", "non-fatal PCIe errors")], sysroot="h100-aer"),
    "health_aer_policy": case("h100x8", "gpu.pcie_errors", [
        ("gpu.pcie_errors", "gpu0", "WARN", "fatal"),
        ("gpu.pcie_errors", "gpu3", "WARN", "5 correctable PCIe errors (policy: 1)"),
        ("gpu.pcie_errors", "gpu4", "PASS", "")], sysroot="h100-aer", policy="aer_correctable_warn = 1\n",
        exit_code=0),
    # The fabric manager's daemon: running since boot, not running (a WARN while the fabric it
    # set up carries on, a FAIL with the GPUs unregistered), restarted hours after boot.
    "fabric_manager_running": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "PASS", "nv-fabricmanager running (pid 4242) since 38 s after boot")],
        exit_code=0),
    "fabric_manager_down": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "WARN", "nv-fabricmanager is not running on a node with an NVSwitch fabric", "fix_config")],
        sysroot="h100-fm-down", exit_code=0),
    # Outside the host's PID namespace (a pod without hostPID) the daemon cannot be seen: not
    # judged, never "start it".
    "fabric_manager_unseen_in_a_container": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "SKIP", "not judged: this process is outside the host's PID namespace")],
        sysroot="h100-container-no-host-pid", exit_code=0),
    "fabric_manager_down_seen_from_a_container": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "WARN", "nv-fabricmanager is not running", "fix_config")],
        sysroot="h100-container-host-proc", exit_code=0),
    "fabric_manager_down_fabric_down": case("h100x8-fabric-down", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "FAIL", "GPUs are not registered with the fabric (gpu.fabric)", "fix_config")],
        sysroot="h100-fm-down"),
    "fabric_manager_restarted": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "WARN", "nv-fabricmanager (pid 4242) started 7.5 h after boot (the node is up 72.0 h): it was restarted", "fix_config")],
        sysroot="h100-fm-restarted", exit_code=0),
    "fabric_manager_not_applicable": case("h100x8-pcie-no-bridge", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "SKIP", "not applicable: no NVSwitch")],
        sysroot="azure-nc-h100", exit_code=0),
    # A VM given an HGX board's GPUs: their fabric is set up, the NVSwitches and their daemon
    # are the host's (2 x H200 VMs answer so).
    "fabric_manager_in_a_vm": case("h100x8", "nvswitch.fabric_manager", [
        ("nvswitch.fabric_manager", "node", "SKIP", "not judged here: 8 GPU(s) in an NVSwitch fabric, but no NVSwitch on this node's PCI bus")],
        sysroot="azure-nd-h100", exit_code=0),
    # Two minutes after boot a fabric still on its way is not yet a fault.
    "fabric_at_boot": case("h100x8-fabric-down", "gpu.fabric", [
        ("gpu.fabric", "gpu0", "WARN", "not registered with the NVSwitch fabric yet (probe not started", "rerun"),
        ("gpu.fabric", "gpu0", "WARN", "120 s after boot")],
        sysroot="h100-booting", exit_code=0, deadline=3.0),
    "health_fabric": case("health-fabric", "gpu.fabric", [
        ("gpu.fabric", "gpu0", "PASS", "registered with the NVSwitch fabric"),
        ("gpu.fabric", "gpu1", "FAIL", Seconds("not registered with the NVSwitch fabric (probe in progress after waiting {} s", 1.0)),
        ("gpu.fabric", "gpu2", "FAIL", "the fabric probe completed with an error: NVML_ERROR_UNKNOWN"),
        ("gpu.fabric", "gpu3", "WARN", "bandwidth degraded"),
        ("gpu.fabric", "gpu4", "FAIL", "probe not started")]),
    # The fabric manager finishing while gv-check runs (a node checked at boot): the probe in
    # progress is waited for, and the GPUs judged once it completed.
    # Its NVLinks train with it: read again once it completed.
    "fabric_completes_while_waiting": case("h100x8-fabric-booting", "gpu.fabric,gpu.nvlink", [
        ("gpu.fabric", "gpu0", "PASS", "registered with the NVSwitch fabric (probe completed after waiting "),
        ("gpu.nvlink", "gpu0", "PASS", "18"),
        ("gpu.nvlink", "gpu7", "PASS", "18"),
        ("gpu.fabric", "gpu7", "PASS", "registered with the NVSwitch fabric (probe completed after waiting ")],
        exit_code=0, deadline=6.0),
    # cuInit answers CUDA_ERROR_SYSTEM_NOT_READY until the fabric manager registered the GPUs:
    # driver.cuda checked alone, without the health facts, waits for the fabric too.
    "cuinit_waits_for_the_fabric": case("h100x8-fabric-booting-cuda", "driver.cuda", [
        ("driver.cuda", "node", "PASS", "cuInit OK")], exit_code=0, deadline=6.0),
    # Memory no listed process holds: from the host's PID namespace, where NVML lists every
    # process, left behind by one that ended (waited for first); from a container's, maybe
    # another container's job, not judged.
    "unowned_memory_left_behind": case("h100x8-memory-left-behind", "gpu.memory_unowned", [
        ("gpu.memory_unowned", "gpu2", "FAIL", Seconds("43.9 GiB of the GPU's memory held by no process, "
                 "after waiting {} s for it to be freed", 2.0)),
        ("gpu.memory_unowned", "gpu2", "FAIL", "a job gets at most 35.7 of its 79.6 GiB"),
        ("gpu.memory_unowned", "gpu2", "FAIL", "remedy: reset the GPU while no job runs"),
        ("gpu.memory_unowned", "gpu5", "WARN", "9.0 GiB of the GPU's memory held by no process"),
        ("gpu.memory_unowned", "gpu0", "PASS", "held by the 0 process(es) NVML lists")],
        sysroot="h100-open-host-ns", deadline=3.0),
    "unowned_memory_in_a_container": case("h100x8-memory-left-behind", "gpu.memory_unowned", [
        ("gpu.memory_unowned", "gpu2", "SKIP", "not judged: 43.9 GiB held by processes NVML does "
         "not list to this one; outside the host's PID namespace"),
        ("gpu.memory_unowned", "gpu0", "PASS", "")],
        sysroot="h100-open-container", deadline=3.0, exit_code=0),
    "ecc_pending": case("fault-ecc-pending", "gpu.ecc", [
        ("gpu.ecc", "gpu2", "WARN", "")], exit_code=0),
    "xid79_in_kmsg": case("h100x8-xid", "gpu.xid", [
        ("gpu.xid", "gpu3", "FAIL", "1 Xid fault(s) logged since boot"),
        ("gpu.xid", "gpu3", "FAIL", "fallen off the bus"),
        ("gpu.xid", "gpu6", "WARN", "the driver now reports no recovery action needed"),
        ("gpu.xid", "gpu1", "PASS", "no Xid logged since boot")], sysroot="h100-xid"),
    # The ring buffer overwrote its beginning: what was read is said, not "since boot".
    # The driver's own record of what each GPU needs, readable without root (gpu.xid's log
    # needs it): the GPU a fault left needing a reset or reboot FAILs until it gets one.
    "recovery_pending": case("h100x8-xid", "gpu.recovery", [
        ("gpu.recovery", "gpu3", "FAIL", "the driver says this GPU needs a node reboot before it is used again (NVML recovery action 2"),
        ("gpu.recovery", "gpu4", "FAIL", "needs a GPU reset"),
        ("gpu.recovery", "gpu0", "PASS", "the driver reports no recovery action needed")]),
    "recovery_unknown": case("h100x8-no-recovery-action", "gpu.recovery", [
        ("gpu.recovery", "gpu0", "SKIP", "NVML gives no recovery action for this GPU (a driver before R550")],
        exit_code=0),
    "xid_log_wrapped": case("h100x8", "gpu.xid", [
        ("gpu.xid", "gpu0", "PASS", "1 Xid event(s) since 225.7 h after boot (the kernel log no longer reaches back to boot: its first 152361 records were overwritten) (codes 13)"),
        ("gpu.xid", "gpu1", "PASS", "no Xid logged since 225.7 h after boot")], sysroot="h100-kmsg-wrapped",
        exit_code=0),
    # NVML's Xid events, watched before judging (gv-check --watch, the DaemonSet's pause): a
    # fault ends the wait at once (the wall bound holds a 30 s watch to its deadline + 1 s) and
    # FAILs its GPU also where the kernel log cannot be read.
    "xid_watched_without_log": case("h100x8-xid-event", "gpu.xid", [
        ("gpu.xid", "node", "WARN", "kernel log not read, no Xid logged before this run judged", "fix_config"),
        ("gpu.xid", "node", "WARN", "1 reported by NVML while it watched 8 GPU(s)"),
        ("gpu.xid", "gpu5", "FAIL", "1 Xid fault(s) reported while NVML was watched for", "reboot_node"),
        ("gpu.xid", "gpu5", "FAIL", "last: Xid 79 reported by NVML 0.")],
        sysroot="h100-open-no-kmsg", args=["--watch", "30"], plan={"gpu.xid": 2}),
    "xid_watched_with_log": case("h100x8-xid-event", "gpu.xid", [
        ("gpu.xid", "gpu5", "FAIL", "1 Xid fault(s) logged since boot (codes 79); last: Xid 79 reported by NVML"),
        ("gpu.xid", "gpu5", "FAIL", "; 1 reported by NVML while it watched 8 GPU(s)"),
        ("gpu.xid", "gpu1", "PASS", "no Xid logged since boot; 0 reported by NVML while it watched 8 GPU(s)")],
        args=["--watch", "30"]),
    "xid_watch_quiet": case("h100x8", "gpu.xid", [
        ("gpu.xid", "gpu1", "PASS", Seconds("no Xid logged since boot; 0 reported by NVML while it watched 8 GPU(s) for {} s", 0.5))],
        args=["--watch", "0.5"], exit_code=0),
    "xid_watch_unsupported": case("h100x8-events-unsupported", "gpu.xid", [
        ("gpu.xid", "gpu1", "PASS", "NVML's Xid events not watched: no GPU reports Xid events to NVML (8 GPU(s) cannot; first: 0000:18:00.0: NVML_ERROR_NOT_SUPPORTED)")],
        args=["--watch", "0.5"], exit_code=0),
    # A wait that never returns is cut at the watch + the deadline, as any hang; a fresh worker
    # judges the other checks without the watch. A registration names its GPU.
    "xid_watch_hang": case("fault-event-wait-hang", "gpu.xid,driver,gpu.nvml,cuda.init", [
        ("gpu.xid", "node", "FAIL", timed_out(3.0, "gpu.xid on node, in watching 8 GPU(s) for Xid events")),
        ("driver.nvml", "node", "PASS", "NVML"),
        ("gpu.nvml", "gpu3", "PASS", "answers NVML queries"),
        ("cuda.init", "gpu3", "PASS", "CUDA context")],
        args=["--watch", "1", "--copy-mib", "1"], wall=4.5),
    "xid_watch_register_hang": case("fault-event-register-hang-gpu3", "gpu.xid,driver", [
        ("gpu.xid", "node", "FAIL", timed_out(3.0, "gpu.xid on node, in registering NVML GPU 3 for Xid events")),
        ("driver.gpu_count", "node", "PASS", "")],
        args=["--watch", "1"], wall=4.5),
    # A library's start that begins within the budget's reserve (libibverbs' for
    # nccl.transport, after NCCL's sweep, past a 15 s watch of a 20 s run: its last 5 s)
    # runs to its end: stopping it would leave the rest no more time, and its fresh worker
    # made nccl.version's row again. The devices' slow opens (0.1 s each) keep the worker in
    # that start when the caller reads it; two GPUs keep the fake NCCL's sweep before it short
    # (eight took over 5 s beside CI's load).
    "start_within_reserve": case("fault-ibv-open-slow", "gpu.xid,nccl.version,nccl.transport", [
        ("nccl.transport", "node", "PASS", "2 connections: 2 P2P"),
        ("nccl.version", "node", "PASS", "NCCL 2.28.9")],
        sysroot="h100-ib", args=["--watch", "15", "--budget", "5", "--nccl-kib", "64",
                                 "--gpus", "0,1"],
        exit_code=0, wall=21,
        plan={"nccl.version": 1, "nccl.transport": 1, "rdma.devices": 0}),
    # The NVSwitches' SXids: a fatal one FAILs its switch until the reboot that resets the
    # fabric; non-fatal ones are named and pass; a garbled code may be a fatal one.
    "sxid_logged": case("h100x8", "nvswitch.sxid", [
        ("nvswitch.sxid", "nvswitch0", "FAIL", "nvswitch0 (0000:05:00.0): 1 fatal SXid(s) logged since boot: 24007 Fatal on link 30: sourcetrack timeout error", "reboot_node"),
        ("nvswitch.sxid", "nvswitch1", "PASS", "2 non-fatal SXid(s) logged since boot, corrected by the switch: 20009 Non-fatal on link 28: RX Short Error Rate; 28006 Non-fatal on link 29: MC TS crumbstore MCTO"),
        ("nvswitch.sxid", "nvswitch2", "FAIL", "an SXid whose code could not be read")],
        sysroot="h100-sxid"),
    # Where NVML names each NVLink's NVSwitch and port, the fatal SXid's link leads to its GPU.
    "sxid_to_gpu": case("h100x8-nvswitch-ports", "nvswitch.sxid", [
        ("nvswitch.sxid", "nvswitch0", "FAIL", "24007 Fatal on link 30 (gpu6's NVLink 0): sourcetrack timeout error", "reboot_node"),
        ("nvswitch.sxid", "nvswitch1", "PASS", "20009 Non-fatal on link 28 (gpu5's NVLink 8): RX Short Error Rate")],
        sysroot="h100-sxid"),
    "sxid_none": case("h100x8", "nvswitch.sxid", [
        ("nvswitch.sxid", "node", "PASS", "no SXid logged since boot by the node's 4 NVSwitch(es)")],
        exit_code=0),
    "sxid_no_nvswitch": case("nvml-mismatch", "nvswitch.sxid", [
        ("nvswitch.sxid", "node", "SKIP", "not applicable: no NVSwitch on the PCI bus")],
        sysroot="debian12-proprietary", exit_code=0),
    "nvml_wrong_version": case("nvml-mismatch", "driver.nvml", [
        ("driver.nvml", "node", "FAIL", "")], sysroot="debian12-proprietary"),
    # The health counters alone with NVML broken: every row SKIPs "NVML has no answer", and the
    # judgment they leave to gpu.nvml and driver.nvml joins the run, so the node cannot pass.
    "nvml_broken_counters_only": case("nvml-mismatch", "gpu.ecc_errors,gpu.row_remap,gpu.ecc", [
        ("gpu.ecc", "gpu0", "SKIP", "NVML has no answer for this GPU (gpu.nvml)"),
        ("gpu.nvml", "gpu0", "SKIP", "NVML is not usable (driver.nvml)"),
        ("driver.nvml", "node", "FAIL", "NVML_ERROR_LIB_RM_VERSION_MISMATCH"),
        ("gpu.ecc_errors", "gpu0", "SKIP", "NVML has no answer for this GPU (gpu.nvml)")],
        sysroot="debian12-proprietary"),
    "nvml_is_directory": case("h100x8", "driver.nvml", [
        ("driver.nvml", "node", "FAIL", "")], env={"GPUVERIFY_NVML_LIBRARY": "@dir"}),
    "nvml_truncated_elf": case("h100x8", "driver.nvml", [
        ("driver.nvml", "node", "FAIL", "")], env={"GPUVERIFY_NVML_LIBRARY": "@truncated"}),
    "nvml_empty_file": case("h100x8", "driver.nvml", [
        ("driver.nvml", "node", "FAIL", "")], env={"GPUVERIFY_NVML_LIBRARY": "@empty"}),
}


# The hang table: each long check on 8 GPUs, the first GPU or another stopping at each hang
# point (its first work, its middle: the stress 1 s into 600, NCCL at its 5th operation, the
# others at their third wait on that GPU, its teardown). The row of that GPU FAILs within the
# deadline + 2 s naming it, and its per-GPU verdict is FAIL; the run goes on without it.
# check: (--checks, its arguments, the arguments of the run without the fault or None)
HANG_CHECKS = {
    # two lanes, not eight: the fakes' memory test is the host's work, slow on a loaded host
    "mem": ("mem.test", ["--gpus", "0,3"], None),
    "stress": ("stress.gemm", ["--gemm-size", "32", "--duration", "600"],
               ["--gemm-size", "32", "--duration", "0.2"]),
    "copy_all": ("cuda.copy_all", ["--copy-mib", "1"], None),
    "p2p": ("cuda.p2p", ["--copy-mib", "1"], None),
    "nccl": ("nccl.allreduce", ["--nccl-kib", "64"], None),
}
# point: the scenario (hang-<scenario>-gpuN), NCCL's own where it has one
HANG_POINTS = {"first": ("stall", "nccl"), "teardown": ("free", "nccl-destroy")}


def hang_case(check, point, gpu):
    checks, args, baseline_args = HANG_CHECKS[check]
    if point == "teardown" and baseline_args:
        args = baseline_args  # a teardown comes after the whole stress: the short one
    # The stress's middle is a time (1 s into 600); the others' a call (their third wait).
    middle = {"stress": "stall-later", "nccl": "nccl-middle"}.get(check, "stall-middle")
    scenario = "hang-" + (middle if point == "middle" else HANG_POINTS[point][check == "nccl"])
    subject = "gpu%d" % gpu
    if check == "nccl" and point == "teardown":
        # The sweep's worker ends with it: a sweep that went well leaves the communicators to
        # its exit, and never calls the ncclCommDestroy that would hang.
        return case("%s-gpu%d" % (scenario, gpu), checks, [
            (checks, "node", "PASS", "all_reduce over 8 ranks")], sysroot=None, args=args,
            exit_code=0, wall=DEADLINE + 2)
    return case("%s-gpu%d" % (scenario, gpu), checks, [
        (checks, subject, "FAIL", Seconds("no progress on %s for {} s in " % subject, DEADLINE),
         "reset_gpu")], sysroot=None, args=args, baseline_args=baseline_args,
        wall=DEADLINE + 2, gpus={gpu: "FAIL"})


# The tests across GPUs after a hang go on without the GPU that hung: NCCL over the other 7.
CASES["hang_then_nccl_without_it"] = case("hang-stall-gpu3", "cuda.copy_all,nccl.allreduce", [
    ("cuda.copy_all", "gpu3", "FAIL", Seconds("no progress on gpu3 for {} s in ", DEADLINE),
     "reset_gpu"),
    ("nccl.allreduce", "node", "PASS", "all_reduce over 7 ranks")],
    sysroot=None, args=["--copy-mib", "1", "--nccl-kib", "64"], wall=DEADLINE + 2,
    gpus={3: "FAIL"})

# Each GPU's lane measures its copies holding the host's links: a GPU that hangs in them holds
# the links until its worker is stopped at the check's deadline; the other lanes wait for them
# (a wait, not their test's time) and then measure, as always.
CASES["copy_hang_holds_the_links"] = case("hang-stall-gpu3", "cuda.copy", [
    ("cuda.copy", "gpu3", "FAIL", timed_out(DEADLINE, "cuda.copy on gpu3")),
    ("cuda.copy", "gpu0", "PASS", "pinned H2D"), ("cuda.copy", "gpu7", "PASS", "pinned H2D")],
    sysroot=None, args=["--copy-mib", "1"], wall=DEADLINE + 2, gpus={3: "FAIL"})

# The worker of the tests across GPUs makes each GPU ready as its lane finishes: never the GPU
# whose lane hung, so the pairs run over the seven others in the worker that made them ready;
# the one left out has its row all the same.
CASES["lane_hang_then_pairs_without_it"] = case("hang-stall-gpu3", "cuda.init,cuda.p2p", [
    ("cuda.init", "gpu3", "FAIL", timed_out(DEADLINE, "cuda.init on gpu3")),
    ("cuda.p2p", "gpu3", "SKIP", "not run: the GPU's own tests timed out"),
    ("cuda.p2p", "gpu0", "PASS", "gpu2 450.0, gpu4 450.0"),
    ("cuda.p2p", "gpu7", "PASS", "gpu2 450.0, gpu4 450.0")],
    sysroot=None, args=["--copy-mib", "1"], wall=DEADLINE + 2, gpus={3: "FAIL"},
    plan={"cuda.p2p": 8})

# A GPU that hangs in one test across GPUs is left out of the next, which names it: its row,
# and the checks already judged (nccl.version) are not judged again by the fresh worker.
CASES["hang_across_then_rows_once"] = case("hang-stall-middle-gpu3", "cuda.copy_all,cuda.p2p,nccl", [
    ("cuda.copy_all", "gpu3", "FAIL", Seconds("no progress on gpu3 for {} s in ", DEADLINE),
     "reset_gpu"),
    ("cuda.p2p", "gpu3", "SKIP", "not run: gpu3 made no progress in cuda.copy_all"),
    ("nccl.allreduce", "node", "PASS", "all_reduce over 7 ranks")],
    sysroot=None, args=["--copy-mib", "1", "--nccl-kib", "64"], wall=DEADLINE + 2,
    gpus={3: "FAIL"}, plan={"cuda.p2p": 8})
# A GPU whose work crashes the worker while cuda.copy_all copies each GPU alone is that GPU's
# row; the tests across GPUs after it go on without it, as after a hang.
CASES["crash_across_then_without_it"] = case("fault-kernel-crash-gpu3", "cuda.copy_all,cuda.p2p,nccl.allreduce", [
    ("cuda.copy_all", "gpu3", "ERROR", "in each GPU's copies alone, at work on gpu3", "rerun"),
    ("cuda.p2p", "gpu3", "SKIP", "not run: gpu3 crashed the worker in cuda.copy_all"),
    ("cuda.p2p", "gpu0", "PASS", "gpu2 450.0, gpu4 450.0"),
    ("nccl.allreduce", "node", "PASS", "all_reduce over 7 ranks")],
    exit_code=3, args=["--copy-mib", "1", "--nccl-kib", "64"], wall=5, gpus={3: "ERROR"},
    plan={"cuda.p2p": 8})
# nccl.version, judged before the collective hung, is not judged again after it.
CASES["nccl_hang_then_version_once"] = case("hang-nccl-gpu3", "nccl.version,nccl.allreduce", [
    ("nccl.version", "node", "PASS", "NCCL 2.28"),
    ("nccl.allreduce", "gpu3", "FAIL", Seconds("no progress on gpu3 for {} s in ", DEADLINE),
     "reset_gpu")],
    sysroot=None, args=["--nccl-kib", "64"], wall=DEADLINE + 2, gpus={3: "FAIL"})

# A stall is not a hang: GPU 3 completes each of its 9 steps seconds late (under the deadline),
# beating all along. Its row is a FAIL for inspection (not a reset) saying how far it got: by
# its pace (after its first piece) once that says it needs 1.5x the check's time (3.5 s a step
# at --deadline 5: about 33 s of the check's 20, known at its second step, 7 s in), else at
# the check's time (1.5 s a step at --deadline 3: about 14 s of its 12).
CASES["stall_by_pace"] = case("stall-gpu3-3500ms", "mem.test", [
    ("mem.test", "gpu3", "FAIL", "too slow: gpu3 had done 22% of its work after ", "hw_inspect"),
    ("mem.test", "gpu3", "FAIL", "x the check's 20 s, in mem.test on gpu3"),
    ("mem.test", "gpu0", "PASS", "every word read back right")],
    sysroot=None, args=["--gpus", "0,3"], deadline=5.0, wall=2 * 3.5 + 5.0,
    gpus={3: "FAIL", 0: "PASS"})
# A hang after the GPU's first beats, in a check whose deadline is one unit: the beats stopped
# seconds before the deadline, so it is a hang (reset_gpu), not a slow GPU still at work.
CASES["hang_after_beats"] = case("fault-query-hang-third-gpu3", "cuda.init,cuda.alloc,cuda.copy", [
    ("cuda.init", "gpu3", "FAIL", timed_out(5.0, "cuda.init on gpu3"), "reset_gpu"),
    ("cuda.init", "gpu0", "PASS", "CUDA context")],
    args=["--copy-mib", "1", "--gpus", "0,3"], deadline=5.0, gpus={3: "FAIL", 0: "PASS"})
CASES["stall_at_its_time"] = case("stall-gpu3-1500ms", "mem.test", [
    ("mem.test", "gpu3", "FAIL", "too slow: ", "hw_inspect"),
    ("mem.test", "gpu3", "FAIL", "the check's 12 s"),
    ("mem.test", "gpu0", "PASS", "every word read back right")],
    sysroot=None, args=["--gpus", "0,3"], deadline=3.0, wall=4 * 3.0 + 2,
    gpus={3: "FAIL", 0: "PASS"})

for _check in HANG_CHECKS:
    for _point in list(HANG_POINTS) + ["middle"]:
        for _gpu in (0, 3):
            CASES["hang_%s_%s_gpu%d" % (_check, _point, _gpu)] = hang_case(_check, _point, _gpu)


# Wrappers of the real worker whose workers on standby (run_worker_standby.c) exit at once or
# sleep: (the across-GPU worker's command, the lanes' spares').
EXIT, SLEEP, RUN = "exit 1", "exec /bin/sleep 600", ":"
STANDBY_WRAPPERS = {"@standby-exits": (EXIT, EXIT), "@standby-sleeps": (SLEEP, RUN),
                    "@spares-sleep": (RUN, SLEEP)}


def materialise(work, what):
    """@dir, @truncated, @empty, @plain-file, @garbage, @silent, STANDBY_WRAPPERS: files made for the
    case."""
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, what[1:])
    if what == "@dir":
        os.makedirs(path, exist_ok=True)
    elif what == "@truncated":
        open(path, "wb").write(b"\x7fELF\x02\x01\x01" + b"\0" * 9)
    elif what in ("@empty", "@plain-file"):
        open(path, "wb").close()
    elif what == "@garbage":
        open(path, "w").write("#!/bin/sh\necho 'hello, this is not JSON'\nsleep 30\n")
        os.chmod(path, 0o755)
    elif what == "@silent":
        open(path, "w").write("#!/bin/sh\nexec sleep 30\n")
        os.chmod(path, 0o755)
    elif what in STANDBY_WRAPPERS:
        # The worker for the tests across GPUs is given them in --checks; spares are not.
        across, spare = STANDBY_WRAPPERS[what]
        open(path, "w").write('#!/bin/sh\ncase " $* " in *" --standby 1 "*)\n'
                              '    case " $* " in *cuda.copy_all*|*cuda.p2p*|*nccl.*|*stress.*) %s ;;\n'
                              '    *) %s ;; esac ;; esac\nexec %s "$@"\n'
                              % (across, spare, REAL_WORKER))
        os.chmod(path, 0o755)
    return path


def selected(catalog, checks):
    """The IDs a --checks list selects at the standard level (gv_run_plan_make's rule)."""
    tokens = [t.strip() for t in checks.split(",") if t.strip()]
    picks = lambda t, i: i == t or i.startswith(t + ".")
    only_exclusions = all(t.startswith("^") for t in tokens)
    chosen = {i for i in catalog if only_exclusions and not picks("stress", i)}
    for t in tokens:
        if t.startswith("^"):
            chosen -= {i for i in catalog if picks(t[1:], i)}
        else:
            chosen |= {i for i in catalog if picks(t, i)}
    return chosen


def plan_problems(gv_check, c, rows):
    """Rows = plan, whatever the fault: every check the selection chose has a row, and no
    check has two rows for one subject."""
    catalog = subprocess.run([gv_check, "--list"], capture_output=True, text=True).stdout.split()
    problems = ["%s: no row at all" % i for i in sorted(selected(catalog, c["checks"]))
                if not any(r["id"] == i for r in rows)]
    seen = set()
    for r in rows:
        key = (r["id"], r["subject"])
        if key in seen:
            problems.append("%s %s: two rows" % key)
        seen.add(key)
    return problems


FAULT_LINE = re.compile(r"^\s*(nccl_)?fault\s*=")


def command(gv_check, fixtures, fakelib, work, name, c, scenario, args, inject):
    """gv-check's command line and environment for case c over `scenario`; with inject, the
    case's worker and environment too."""
    once = os.path.join(work, name + ".once")  # crash_once's marks: fresh for every run
    shutil.rmtree(once, ignore_errors=True)
    os.makedirs(once)
    env = dict(os.environ, GV_FAKE_SCENARIO=scenario, GV_FAKE_ONCE_DIR=once)
    for k, v in c["env"].items() if inject else ():
        env[k] = materialise(work, v) if v.startswith("@") else v
    if c["worker"] and inject:
        env["GPUVERIFY_WORKER"] = (materialise(work, c["worker"]) if c["worker"].startswith("@")
                                   else c["worker"])
    cmd = [gv_check, "--json", "--library-dir", fakelib, "--deadline", str(c["deadline"]),
           "--checks", c["checks"]] + args
    if c["sigchld_ignored"]:  # a caller whose children the kernel reaps: gv-check inherits it
        cmd = ["/bin/bash", "-c", "trap '' CHLD; exec \"$@\"", "bash"] + cmd
    if c["sysroot"]:
        cmd += ["--sysroot", os.path.join(fixtures, "sysroots", c["sysroot"])]
    if c["policy"]:
        path = os.path.join(work, name + ".policy")
        os.makedirs(work, exist_ok=True)
        open(path, "w").write(c["policy"])
        cmd += ["--policy", path]
    return cmd, env


def timed(cmd, env, timeout):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


def main():
    global REAL_WORKER
    gv_check, fixtures, fakelib, work, name = sys.argv[1:6]
    # gv-check finds its worker in the build folder, above examples/.
    REAL_WORKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(gv_check))),
                               "gpuverify-worker")
    c = CASES[name]
    scenario = os.path.join(fixtures, "scenarios", c["scenario"] + ".conf")
    lines = open(scenario).read().splitlines(True)
    healthy = [line for line in lines if not FAULT_LINE.match(line)]
    baseline = None
    if len(healthy) < len(lines) or c["worker"] or c["env"]:
        # The same run without the fault: the part of the bound the host's load sets.
        os.makedirs(work, exist_ok=True)
        without = os.path.join(work, name + ".without-fault.conf")
        open(without, "w").writelines(healthy)
        baseline = command(gv_check, fixtures, fakelib, work, name + ".without-fault", c,
                           without, c["baseline_args"] or c["args"], False)
    base = timed(*baseline, timeout=240)[1] if baseline else 0.0
    cmd, env = command(gv_check, fixtures, fakelib, work, name, c, scenario, c["args"], True)
    p, wall = timed(cmd, env, timeout=max(120, 2 * (c["wall"] + base)))
    if baseline and wall > c["wall"] + base:
        # The load may have grown since: the slower of the runs without the fault around it.
        base = max(base, timed(*baseline, timeout=240)[1])
    problems = []
    if not baseline:
        # Nothing injected, nothing to wait out: a row that did is the host's speed deciding.
        for r in (json.loads(p.stdout)["checks"] if p.stdout.startswith("{") else []):
            if any(w in r["message"] for w in (TIMED_OUT, "did not finish", "no progress for")):
                problems.append("%s %s waited out a deadline with no fault: %s" % (
                    r["id"], r["subject"], r["message"]))
    if p.returncode != c["exit"]:
        problems.append("exit %d, expected %d (stderr: %s)" % (p.returncode, c["exit"], p.stderr.strip()))
    # The bound is on what a fault costs beyond the same run without it. With nothing injected
    # there is no such run: its wall time is the host's speed (3.4 s for passive checks under
    # ASan beside a loaded CI), and the rows above say whether it waited out a deadline.
    if baseline and wall > c["wall"] + base:
        problems.append("took %.2f s, the bound is %.1f s + %.2f s without the fault" % (
            wall, c["wall"], base))
    if c["exit"] == 2 and c["error"]:
        if c["error"] not in p.stderr:
            problems.append("the error does not say %r: %s" % (c["error"], p.stderr))
    elif c["exit"] == 2:
        if "tried" not in p.stderr and "gpuverify-worker" not in p.stderr:
            problems.append("the error does not say where the worker was looked for: " + p.stderr)
    else:
        report = json.loads(p.stdout)
        rows = report["checks"]
        for want_id, subject, verdict, text, *action in c["rows"]:
            found = [r for r in rows if r["id"] == want_id and (subject is None or r["subject"] == subject)]
            if not found:
                problems.append("no row %s %s" % (want_id, subject))
                continue
            r = found[0]
            shown = r["message"] + "\nremedy: " + (r.get("remediation") or "")
            found_text = (text.found_in(shown, c["wall"] + base) if isinstance(text, Seconds)
                          else text in shown)
            if r["verdict"] != verdict or not found_text:
                problems.append("%s %s: %s %r, wanted %s containing %r" % (
                    want_id, subject, r["verdict"], r["message"], verdict, text))
            if action and r["action"] != action[0]:
                problems.append("%s %s: action %s, wanted %s" % (
                    want_id, subject, r["action"], action[0]))
        for r in rows:
            judged = r["verdict"] in ("WARN", "FAIL", "ERROR")
            if judged == (r["action"] == "none"):
                problems.append("%s %s: %s with the action %s" % (
                    r["id"], r["subject"], r["verdict"], r["action"]))
            # A row's time is its check's on its subject: never longer than the run (a clock
            # that was never set counted the machine's uptime; a stopped worker's row, the
            # whole group's).
            if not 0 <= r.get("duration_s", 0) <= report["duration_s"] + 0.05:
                problems.append("%s %s: duration_s %.2f s, the run's %.2f s" % (
                    r["id"], r["subject"], r["duration_s"], report["duration_s"]))
        problems += plan_problems(gv_check, c, rows)
        verdicts = {g.get("index"): g.get("verdict") for g in report.get("gpus", [])}
        for index, verdict in c["gpus"].items():
            if verdicts.get(index) != verdict:
                problems.append("gpus[%d].verdict %s, wanted %s" % (index, verdicts.get(index),
                                                                    verdict))
        for want_id, n in c["plan"].items():
            got = sorted(r["subject"] for r in rows if r["id"] == want_id)
            if len(got) != n or len(set(got)) != n:
                problems.append("%s: %d row(s) %s, the plan has %d, one per GPU" % (
                    want_id, len(got), got, n))
    print("%s: exit %d in %.2f s (bound %.1f s + %.2f s without the fault)" % (
        name, p.returncode, wall, c["wall"], base))
    for line in problems:
        print("PROBLEM: " + line)
    if problems:
        print(p.stdout[-4000:])
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:  # the case names, for tests/CMakeLists.txt
        print(";".join(CASES))
        sys.exit(0)
    sys.exit(main())
