/* SPDX-License-Identifier: Apache-2.0 */
/* One public call in gpuverify-worker: the single-purpose calls that drive an NVIDIA library
 * (gv_cuda_check, gv_mem_test, gv_gemm_bench, gv_stress_gemm, gv_cudnn_check, the NCCL
 * sweeps) and those that read the machine through a library (gv_topology: hwloc and NVML;
 * gv_rdma_status: libibverbs; gv_library_status: the load itself) run in a process of their own, so
 * that a call stuck inside the driver is killed at its deadline instead of hanging its caller, and
 * a crash there is the worker's.
 *
 * Each call is a kind: its arguments (checked and completed by the public function) cross to
 * the worker as their bytes in hex; its stages, results so far and samples stream back as
 * events; its final result comes back the same way. Worker and library of one build go
 * together, so the bytes are the same struct on both sides. Events, one JSON line each:
 *   {"event":"stage","stage":"cuBLASLt: warm-up and timed batches"}
 *   {"event":"partial","result":"<result hex>"}       the result so far (NCCL, after each size)
 *   {"event":"sample","sample":"<sample hex>"}        one entry of a time series (stress)
 *   {"event":"done","status":0,"message":"","result":"<result hex>"}
 *   {"event":"error","status":-1,"message":"..."}     the worker refused its command line */
#ifndef GV_WORKER_CALL_H
#define GV_WORKER_CALL_H

#include <jansson.h>
#include <stddef.h>

#include "core/context.h"
#include "worker/worker.h"

/* Who hears how a call goes, in the worker (and nobody in the caller's own process). */
typedef struct gv_call_watch {
    void (*stage)(void *user, const char *stage);
    void (*partial)(void *user, const void *result_so_far);
    void (*sample)(void *user, const void *sample);
    void *user;
} gv_call_watch;

typedef struct gv_call_kind {
    const char *name; /* the worker's --call argument: "gemm" */
    size_t args_size;
    size_t result_size;
    size_t sample_size; /* 0: the call has no time series */
    /* Where the result keeps its verdict and message, for what the caller writes itself
     * (a timeout, a crash). */
    size_t verdict_at, message_at, message_cap;
    /* The call in this process; *result (zeroed, struct_size set) filled as far as it got. */
    gv_status (*here)(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result);
    /* Seconds the whole call may take in the worker, its start included. */
    double (*deadline)(const gv_ctx *ctx, const void *args);
    /* What the result says before the worker says anything (the GPU it is about); may be NULL. */
    void (*prefill)(const void *args, void *result);
    /* The call in words for a message: "gv_gemm_bench (fp16) on GPU 0". */
    void (*describe)(const void *args, const void *result, char *out, size_t cap);
} gv_call_kind;

/* A kind's definition: sizes and where the verdict and message are, from the types, for a
 * result with `verdict` and `message` fields as every public result has. */
#define GV_CALL_KIND(name, args_type, result_type, sample_size, here, deadline, prefill, describe) \
    {                                                                                              \
        name, sizeof(args_type), sizeof(result_type), sample_size, offsetof(result_type, verdict), \
            offsetof(result_type, message), sizeof(((result_type *)0)->message), here, deadline,   \
            prefill, describe                                                                      \
    }

/* Whether calls run in gpuverify-worker (1, where found) rather than in this process: not
 * when this is the worker already, gv_run runs its checks in the caller (GV_ISOLATION_NONE),
 * the context asked for its own process (GV_CTX_IN_PROCESS) or no worker is found. */
int gv_call_isolated(const gv_ctx *ctx, gv_worker_place *where);

/* Runs the call where the context says: in gpuverify-worker when one is found, unless this is
 * the worker already, gv_run runs its checks in the caller (GV_ISOLATION_NONE) or the context
 * asked for its own process (GV_CTX_IN_PROCESS). *result starts zeroed with struct_size set.
 * `sample` hears each sample of the series, in either place. GV_ERR_TIMEOUT (the result's
 * verdict FAIL) when the worker was killed at the deadline; GV_ERR_DRIVER (verdict ERROR)
 * when it crashed or broke its protocol. */
gv_status gv_call(gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                  void (*sample)(void *user, const void *sample), void *user, void *result);

/* The same in the worker at `worker`, whatever the context says (the NCCL calls decide for
 * themselves where they run). */
gv_status gv_call_in_worker(gv_ctx *ctx, const char *worker, const gv_call_kind *kind,
                            const void *args, void (*sample)(void *user, const void *sample),
                            void *user, void *result);

/* A call's deadline is counted in units of the context's deadline (gv_ctx_opts.deadline_s), so
 * that a caller who shortens the unit shortens every call. Each kind names its own factors
 * beside its definition; the catalog gives the checks that make these calls the same ones, so
 * that gv_run's deadline for a check and its call's agree without the call knowing checks.
 * What a call needs first in the worker: loading NVML and nvmlInit (seconds per GPU without
 * persistence mode), or cuInit and a context, longer still. */
#define GV_DEADLINE_NVML_START 2.0
#define GV_DEADLINE_CUDA_START 4.0

/* A call's deadline in seconds: start_factor units for what it needs first (0: nothing),
 * `times` times `factor` units for its work, and extra_s (the time the options ask for). */
double gv_call_deadline(const gv_ctx *ctx, double start_factor, double factor, double times,
                        double extra_s);

/* A public call's ending: its result r copied out to the caller's `out` when there is one to
 * read (GV_OK; GV_ERR_TIMEOUT and GV_ERR_DRIVER, whose verdict and message say what stopped
 * it), and its status. */
gv_status gv_call_out(gv_status st, void *out, const void *r, size_t size, size_t min_size);

/* The worker's side: runs the call here and writes its events through emit, which takes each
 * event and writes it as one line. */
void gv_call_serve(gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                   void (*emit)(json_t *ev));

#endif
