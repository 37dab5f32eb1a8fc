/* SPDX-License-Identifier: Apache-2.0 */
/* What passes between gv_run and gpuverify-worker: the worker's command line (a context, as
 * worker/protocol.h writes it, and a plan) and its output, one compact JSON object per line:
 *   {"event":"facts","report":<the report JSON without rows>}
 *   {"event":"group","check":"gemm.fp32"}              a catalog group starts
 *   {"event":"begin","check":"gemm.bf16","subject":"gpu0"}   deadline clock restarts
 *   {"event":"stage","stage":"cuStreamSynchronize"}
 *   {"event":"beat","gpu":3}                 the GPU finished queued work ("gpu" optional)
 *   {"event":"beat","gpu":3,"done":0.25}     ... and a quarter of its fixed work (its pace)
 *   {"event":"watch","gpus":[0,3]}           each of these GPUs must beat from now on
 *   {"event":"done_part","gpu":3}            a watched GPU finished its part
 *   {"event":"wait","check":"mem.test","seconds":15,"for":"another gpuverify to finish
 *    with the GPUs"}                                     a wait before the check
 *   {"event":"lanes","gpus":[{"cuda":0,"subject":"gpu0"},...],"together":["gemm.fp16"]}
 *   {"event":"row","result":<one check result as in the report's "checks">}
 *   {"event":"error","status":-5,"message":"..."}       the run could not be made
 *   {"event":"end"}
 * Rows and facts are the report's own JSON (report_json.c and report_json_read.c). A worker
 * started with --standby reads one line on stdin once it has gathered the facts, "go 0,2,3
 * cuda.copy_all,cuda.p2p" (the GPUs it tests, then the checks of its --checks it runs), before
 * it sends anything else; "prepare 2,3" lines may come first, for GPUs of its --gpus whose
 * lanes have finished: it makes them ready meanwhile (gv_run_hold_ahead). One started with
 * --await-cuda as well reads "cuda" before its cuInit (gv_run_plan.await_cuda). One started
 * with --without-cuda WHY (or --without-nvml, ...) loads no such library, which reads as
 * unusable for WHY (gv_run_plan.without); with --without-nvml-gpus 3,5 it queries no NVML GPU of
 * those indices. */
#ifndef GV_RUN_WORKER_ARGS_H
#define GV_RUN_WORKER_ARGS_H

#include "core/context.h"
#include "run/run.h"
#include "worker/call.h"
#include "worker/protocol.h"

/* The worker's argv (NULL-terminated, argv[0] = path) for the checks in `pending` with
 * `budget_s` left; free with gv_worker_argv_free. NULL when out of memory. */
char **gv_worker_argv(const gv_ctx *ctx, const gv_run_plan *plan, const int *pending,
                      double budget_s, const char *path);

/* The calls the worker runs by name (worker/call.h), each defined beside its public function,
 * and the kind named on the worker's command line (NULL when none is). */
extern const gv_call_kind gv_call_cuda_check, gv_call_mem_test, gv_call_gemm_bench,
    gv_call_stress_gemm, gv_call_cudnn_check, gv_call_nccl, gv_call_topology, gv_call_rdma_status,
    gv_call_library_status;
const gv_call_kind *gv_call_kind_named(const char *name);

/* The worker's side: its argv back into options. Strings point into argv or into `policy`'s
 * text buffer; a call's arguments are allocated (free call_args). GV_ERR_INVALID_ARG with the
 * reason in why. */
typedef struct gv_worker_args {
    gv_ctx_opts ctx;
    gv_run_opts run;
    gv_policy policy;
    int has_policy;
    int lanes;      /* --lanes 1: gv_run_plan.lanes */
    int standby;    /* --standby 1: gv_run_plan.standby; the GPUs come on stdin */
    int await_cuda; /* --await-cuda 1: gv_run_plan.await_cuda; "cuda" comes on stdin first */
    const char *without[GV_LIBRARY_KINDS]; /* --without-cuda WHY...: gv_run_plan.without */
    const char *without_nvml_gpus;         /* --without-nvml-gpus 3,5 */
    const char *policy_text;
    const gv_call_kind *call; /* --call: one call instead of checks */
    void *call_args;          /* its arguments, from --args */
} gv_worker_args;
gv_status gv_worker_args_parse(int argc, char **argv, gv_worker_args *out, char *why, size_t cap);

#endif
