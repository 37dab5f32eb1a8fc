/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify-worker: the process gv_run isolates the checks in, and the public calls that drive
 * an NVIDIA library their work (docs/ABI.md, "Isolation").
 *
 * The caller's side finds the executable, starts it with posix_spawn (a clean environment plus
 * what the NVIDIA libraries read, its own process group, stdin and stderr on /dev/null, only
 * the pipe inherited) (spawn.h), reads one JSON event per line (lines.h) and enforces each
 * deadline by killing the worker's process group. One call there is call.h's; a whole run,
 * run/run_worker.h's. */
#ifndef GV_WORKER_WORKER_H
#define GV_WORKER_WORKER_H

#include <limits.h>

#include "core/context.h"

typedef struct gv_worker_place {
    char path[PATH_MAX]; /* the executable found, "" when none */
    char tried[2048];    /* every place looked at, "; "-separated, with why it was not used */
} gv_worker_place;

/* Looks where gv_ctx_opts.worker_path / $GPUVERIFY_WORKER says, else beside the library
 * (installed: <libdir>/GV_WORKER_RELPATH; build tree: <libdir>/gpuverify-worker). 1 found. */
int gv_worker_find(const gv_ctx *ctx, gv_worker_place *out);

/* Loads a topology XML with hwloc in a worker before the caller does (hwloc 2.9 crashes on
 * some malformed files): GV_ERR_PARSE when the worker crashed on it, GV_ERR_TIMEOUT past the
 * context's deadline, GV_OK otherwise (also when no worker is found: then nothing is
 * checked). */
gv_status gv_worker_probe_xml(gv_ctx *ctx, const char *xml);
#define GV_WORKER_PROBE_REFUSED 3 /* the probe's exit status when hwloc refused the file */

#endif
