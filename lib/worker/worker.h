/* gpuverify-worker: the process gv_run isolates the checks in (docs/ABI.md, "Isolation").
 *
 * The caller's side finds the executable, starts it with posix_spawn (a clean environment plus
 * what the NVIDIA libraries read, its own process group, stdin and stderr on /dev/null, only
 * the pipe inherited), reads one JSON event per line and enforces each check's deadline by
 * killing the worker's process group. The worker's side runs gv_run_in_process and writes the
 * events (protocol.h). */
#ifndef GV_WORKER_WORKER_H
#define GV_WORKER_WORKER_H

#include <limits.h>

#include "checks/run.h"
#include "core/context.h"

typedef struct gv_worker_place {
    char path[PATH_MAX]; /* the executable found, "" when none */
    char tried[2048];    /* every place looked at, "; "-separated, with why it was not used */
} gv_worker_place;

/* Looks where gv_ctx_opts.worker_path / $GPUVERIFY_WORKER says, else beside the library
 * (installed: <libdir>/GV_WORKER_RELPATH; build tree: <libdir>/gpuverify-worker). 1 found. */
int gv_worker_find(const gv_ctx *ctx, gv_worker_place *out);

/* Runs the plan in workers started from `worker`; the report holds every row they finished,
 * and a FAIL/ERROR/SKIP row for what a hang, crash or unreadable output stopped. */
gv_status gv_worker_run(gv_ctx *ctx, const gv_run_plan *plan, const char *worker, gv_report **out);

#endif
