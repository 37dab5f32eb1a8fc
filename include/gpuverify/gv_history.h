/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: the history database gv_run keeps when gv_ctx_opts.state_path names one
 * (docs/history.md), read back: each GPU's record by UUID and the node's by host name. */
#ifndef GPUVERIFY_GV_HISTORY_H
#define GPUVERIFY_GV_HISTORY_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gv_history_opts {
    uint32_t struct_size;
    uint32_t flags; /* reserved, must be 0 */
    /* Whose record: a GPU's UUID ("GPU-6a3f..."), a node's host name, or "<host>/<subject>"
     * ("node1/mlx5_0/1"); NULL = every run's whole. */
    const char *subject;
    /* Which checks, as gv-check's --checks: comma-separated IDs or prefixes ("gemm",
     * "history.performance"), ^ID leaving one out; a run without a row selected is left out.
     * NULL = all. */
    const char *checks;
    /* Runs since this time (seconds since the epoch); 0 = all. */
    int64_t since_unix;
    /* At most this many runs, the newest that match; 0 = all. */
    uint32_t max_runs;
    uint32_t reserved;
} gv_history_opts;

#define GV_HISTORY_OPTS_INIT GV_STRUCT_INIT(gv_history_opts)

/* The database at `path` as JSON (free *out with gv_free): {"database": path, "runs": [...]},
 * runs newest first, each with its time, host, level, versions, verdict and action, its GPUs
 * (UUID, name, PCI bus id, verdict) and its rows (check, subject, verdict, action, value, unit,
 * measured, message, counters) matching opts (NULL: all). The file is only read.
 * GV_ERR_NOT_FOUND when there is no file; GV_ERR_IO when it cannot be read, is not a gpuverify
 * history, or is corrupt (gv_ctx_last_error says which). */
GV_API gv_status gv_history_json(gv_ctx *ctx, const char *path, const gv_history_opts *opts,
                                 char **out);

#ifdef __cplusplus
}
#endif
#endif
