/* SPDX-License-Identifier: Apache-2.0 */
/* The context's private layout and the helpers every module uses on it. */
#ifndef GV_CORE_CONTEXT_H
#define GV_CORE_CONTEXT_H

#include <limits.h>
#include <stddef.h>

#include "gpuverify/gv_context.h"
#include "gpuverify/gv_driver.h"
#include "core/progress.h"

#define GV_LIBRARY_KINDS 6 /* GV_LIB_CUDA .. GV_LIB_IBVERBS */

/* What one context knows about one library (backends/loader.h fills it). */
typedef struct gv_lib_slot {
    int attempted;
    int32_t state; /* enum gv_library_state */
    void *dl;      /* dlopen handle when loaded; never dlclose'd */
    char path[512];
    char version[64];
    char tried[1024];
    char detail[256];
} gv_lib_slot;

struct gv_cuda_api;
struct gv_nvml_api;
struct gv_cublaslt_api;
struct gv_cudnn_api;
struct gv_nccl_api;
struct gv_nccl_ahead;
struct gv_ibverbs_api;
struct gv_facts;

/* Inside gpuverify-worker, for one CUDA ordinal: a primary context a session left retained for
 * the next one, and our kernels' module loaded in it (compute/session.c). */
typedef struct gv_kept_gpu {
    int retained;
    void *module; /* a CUmodule */
} gv_kept_gpu;

struct gv_ctx {
    char sysroot[PATH_MAX]; /* "/" or an absolute directory without a trailing slash */
    char library_dir[PATH_MAX];
    char library_path[GV_LIBRARY_KINDS][PATH_MAX];
    gv_log_fn log_fn;
    void *log_user;
    int32_t log_level;
    int live;          /* query live NVIDIA libraries */
    double deadline_s; /* default deadline of blocking calls */
    char last_error[1024];

    gv_lib_slot libs[GV_LIBRARY_KINDS];
    const struct gv_cuda_api *cuda; /* NULL until loaded */
    int cuda_init_result;           /* -1 before cuInit */
    const struct gv_nvml_api *nvml;
    int nvml_init_result; /* -1 before nvmlInit */
    const struct gv_cublaslt_api *cublaslt;
    const struct gv_cudnn_api *cudnn;
    const struct gv_nccl_api *nccl;
    int nccl_build_cuda; /* gv_nccl_build_cuda's answer, -1 before it is read */
    const struct gv_ibverbs_api *ibverbs;
    /* The inventory of the last gv_check_driver/gv_run, read by gv_gpu_info: the facts when
     * they were gathered in this process, the GPUs alone when in gpuverify-worker. */
    struct gv_facts *facts;
    gv_gpu *inventory;
    size_t inventory_count;
    int has_inventory;
    /* Frees facts and inventory, set by whoever keeps them here (facts/facts.h): the context
     * sits below the layer that knows what facts are. NULL while there are none. */
    void (*drop_facts)(gv_ctx *ctx);
    /* Ends what a library keeps open for this context (nvmlShutdown), set by the backend that
     * opened it; NULL when nothing is open. */
    void (*release_libraries)(gv_ctx *ctx);
    char worker_path[PATH_MAX]; /* gv_ctx_opts.worker_path or $GPUVERIFY_WORKER; "" = search */
    char state_path[PATH_MAX];  /* gv_ctx_opts.state_path, the history database; "" = none */
    char node_name[64];         /* gv_ctx_opts.node_name or $GPUVERIFY_NODE_NAME; "" = host's */
    uint32_t flags;             /* gv_ctx_opts.flags: GV_CTX_IN_PROCESS */
    int in_worker;  /* this process is gpuverify-worker: nothing is handed to another one */
    int calls_here; /* gv_run runs its checks in this process: so do their calls (worker/call.h) */
    /* Inside gpuverify-worker: nothing in this process uses the GPUs after the work under way
     * but its exit (a worker serving one call; gv_run's last test on the GPUs). A call that
     * leaves what that exit frees (NCCL's communicators) sets left_to_exit: the process then
     * ends without unloading the libraries still in use. */
    int exit_follows, left_to_exit;
    /* Inside gpuverify-worker: the file NCCL writes its INFO log to (nccl/nccl_log.h), "" when
     * NCCL's log is not captured (always in the caller's process, whose environment is not
     * ours to change). */
    char nccl_log[PATH_MAX];
    /* Set inside gpuverify-worker only: where the work is (core/progress.h). */
    void (*progress)(void *user, int kind, const char *check, const char *text);
    void *progress_user;
    /* Set inside gpuverify-worker only: called before cuInit, which it may hold back (a
     * lane's spare waits for the caller's word that another worker has CUDA up). */
    void (*before_cuinit)(gv_ctx *ctx);
    /* Set inside gpuverify-worker only: libraries not to load, each with why ("" loads it): its
     * start hung or crashed an earlier worker of the run, which goes on without it. */
    char library_refused[GV_LIBRARY_KINDS][200];
    /* Set inside gpuverify-worker only: NVML GPUs (by NVML index) not to query, for the same
     * reason: their queries hung or crashed an earlier worker. */
    unsigned char nvml_gpu_refused[GV_PROGRESS_MAX_GPUS];
    /* gv_now_s() in ms of the last heartbeat sent for each CUDA ordinal, the last slot for
     * beats of no GPU (atomic) */
    long long progress_beat_ms[GV_PROGRESS_MAX_GPUS + 1];
    long long progress_part_ms[GV_PROGRESS_MAX_GPUS]; /* the same for the beats with a pace */
    gv_kept_gpu kept[GV_PROGRESS_MAX_GPUS];           /* per CUDA ordinal, in gpuverify-worker */
    void (*release_kept)(gv_ctx *ctx); /* set by whoever kept one: lets them all go */
    /* In gpuverify-worker: the NCCL ranks made ahead of the sweep (nccl/nccl_ahead.h), and
     * what gives them up; NULL when there are none. */
    struct gv_nccl_ahead *nccl_ahead;
    void (*drop_nccl_ahead)(gv_ctx *ctx);
};

/* Records the detail of an error on the context and returns status, for `return gv_fail(...)`. */
gv_status gv_fail(gv_ctx *ctx, gv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears the last error at the start of a public call. */
void gv_clear_error(gv_ctx *ctx);
/* Hands one line to the caller's log callback when level is enabled. */
void gv_log(const gv_ctx *ctx, int32_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies a caller's versioned struct in: min(struct_size, ours), the rest from defaults.
 * GV_ERR_VERSION when struct_size is below min_size; GV_ERR_INVALID_ARG past any layout or
 * ending inside one of our fields (docs/ABI.md). */
gv_status gv_copy_in(void *dst, size_t dst_size, const void *src, size_t min_size,
                     const void *defaults);
/* Fills a caller's options struct of `size` bytes (its layout's sizeof) with our defaults:
 * the first min(size, ours) bytes from defaults, zeros after, struct_size = size. NULL or a
 * size no layout has (past any, or ending inside a field): GV_ERR_INVALID_ARG; below the
 * first layout: GV_ERR_VERSION. */
gv_status gv_opts_fill(void *opts, size_t size, const void *defaults, size_t ours, size_t min_size);
/* Copies our struct out to a caller's buffer of (*(uint32_t *)dst) bytes, keeping its size. */
gv_status gv_copy_out(void *dst, const void *src, size_t src_size, size_t min_size);
/* A public call's versioned arguments, refused with the error on the context naming the type:
 * the caller's options over the defaults (the defaults alone for NULL), and an output struct
 * older than its first layout. */
gv_status gv_opts_in(gv_ctx *ctx, const char *type, void *dst, size_t dst_size, const void *src,
                     size_t min_size, const void *defaults);
gv_status gv_out_known(gv_ctx *ctx, const char *type, const void *out, size_t min_size);

#endif
