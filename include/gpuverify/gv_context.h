/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: the context, its options, logging and per-context error text. */
#ifndef GPUVERIFY_GV_CONTEXT_H
#define GPUVERIFY_GV_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "gv_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque context: options, loaded libraries, last error. One per thread at a time;
 * different contexts may be used from different threads at once. */
typedef struct gv_ctx gv_ctx;

/* Log levels for gv_ctx_opts.log_level and the callback. */
enum gv_log_level { GV_LOG_ERROR = 0, GV_LOG_WARN = 1, GV_LOG_INFO = 2, GV_LOG_DEBUG = 3 };

/* Tri-state option value where 0 and 1 are meaningful. */
#define GV_AUTO (-1)

/* Called for each log line at or below the chosen level; the text is valid during the call. */
typedef void (*gv_log_fn)(void *user, int32_t level, const char *message);

/* gv_ctx_opts.flags. The calls that drive an NVIDIA library or read the machine through one
 * (gv_check_driver, gv_cuda_check, gv_mem_test, gv_gemm_bench, gv_stress_gemm, gv_cudnn_check,
 * gv_nccl_bench, gv_nccl_bench_rank, gv_topology, gv_rdma_status, gv_library_status) run in
 * gpuverify-worker when one is found, killed at their deadline so that none can hang the
 * caller (docs/ABI.md, "Isolation"). This flag runs them in the caller's process instead: no
 * process start, but a call stuck inside the driver is not bounded there. */
#define GV_CTX_IN_PROCESS 0x1u

/* Context options. Start from GV_CTX_OPTS_INIT; NULL strings mean "the default". */
typedef struct gv_ctx_opts {
    uint32_t struct_size;
    uint32_t flags; /* GV_CTX_IN_PROCESS, or 0 */
    /* Root under which every file is read (/proc, /sys, /etc, /boot). NULL = "/". */
    const char *sysroot;
    /* Directory holding the NVIDIA libraries. When set, libraries are loaded from here only.
     * NULL = $GPUVERIFY_LIBRARY_DIR, else the system's search. */
    const char *library_dir;
    /* Exact file of each library; NULL = $GPUVERIFY_<NAME>_LIBRARY, else search. */
    const char *cuda_library;
    const char *nvml_library;
    const char *cublaslt_library;
    const char *cudnn_library;
    const char *nccl_library;
    const char *ibverbs_library;
    gv_log_fn log_fn; /* NULL = no logging */
    void *log_user;
    int32_t log_level; /* enum gv_log_level */
    /* Query the live NVIDIA libraries (NVML, CUDA)? GV_AUTO = yes when sysroot is "/" or a
     * library directory or file is named; an offline sysroot is otherwise judged from files. */
    int32_t live_libraries;
    /* Default deadline in seconds of each check (and of gathering the facts) where the catalog
     * sets none; 0 = 30 s. Enforced by gv_run when the checks run in gpuverify-worker: at the
     * deadline the worker is killed and the check FAILs as timed out (docs/checks.md); the
     * single calls' deadlines are made of it too (docs/ABI.md, "Isolation"). */
    double deadline_s;
    /* The gpuverify-worker executable; NULL = $GPUVERIFY_WORKER, else the one installed
     * with the library (gv_library_status(ctx, GV_LIB_WORKER, ...) says where it looked). */
    const char *worker_path;
    /* Since ABI 1.1. The history database (SQLite) gv_run keeps each GPU's and the node's
     * record in and judges the history.* checks from (docs/history.md); NULL = none: no file
     * is read or written and history.* are not run. */
    const char *state_path;
    /* Since ABI 1.1. The node's name in the report (its hostname), so in the metrics'
     * Hostname label, the one line and the history's keys; NULL = $GPUVERIFY_NODE_NAME, else
     * the host name (the sysroot's /proc/sys/kernel/hostname; a host root seen from another
     * UTS namespace, as a pod's, its /etc/hostname where it has one). A container names the node it
     * runs on (Kubernetes: spec.nodeName through the downward API), or a recreated pod starts
     * the node's history over under its own name. At most 63 printable characters. */
    const char *node_name;
} gv_ctx_opts;

#ifdef __cplusplus
#define GV_CTX_OPTS_INIT                                                                           \
    {                                                                                              \
        sizeof(gv_ctx_opts), 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,        \
            GV_LOG_WARN, GV_AUTO, 0.0, NULL, NULL, NULL                                            \
    }
#else
#define GV_CTX_OPTS_INIT                                                                           \
    {                                                                                              \
        .struct_size = sizeof(gv_ctx_opts), .log_level = GV_LOG_WARN, .live_libraries = GV_AUTO    \
    }
#endif

/* Fills opts with GV_CTX_OPTS_INIT's defaults, for callers that cannot use the macro (a binding
 * through a foreign-function interface). size: sizeof the caller's gv_ctx_opts, which may be an
 * older, shorter layout; struct_size is set to it and nothing past it is written. GV_OK;
 * GV_ERR_INVALID_ARG for NULL or a size no layout has (above 64 KiB, or short of this header's
 * and ending inside a field: neither on an 8-byte boundary nor where the first layout ends);
 * GV_ERR_VERSION below the first layout. */
GV_API gv_status gv_ctx_opts_init(gv_ctx_opts *opts, size_t size);
/* Creates a context. opts may be NULL (all defaults). On error *out is NULL. */
GV_API gv_status gv_ctx_create(const gv_ctx_opts *opts, gv_ctx **out);
/* Destroys a context; NULL-safe. Libraries stay loaded for the process (never dlclose'd). */
GV_API void gv_ctx_destroy(gv_ctx *ctx);
/* Detail of the last error on this context, "" when none; never NULL. Valid until the next
 * call on the context. A NULL context gives why this thread's last gv_ctx_create failed
 * ("sysroot /x: No such file or directory"), valid until its next gv_ctx_create, or a fixed
 * text when it did not fail. */
GV_API const char *gv_ctx_last_error(const gv_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
