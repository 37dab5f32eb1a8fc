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

/* Loads a topology XML with hwloc in a worker before the caller does (hwloc 2.9 crashes on
 * some malformed files): GV_ERR_PARSE when the worker crashed on it, GV_ERR_TIMEOUT past the
 * context's deadline, GV_OK otherwise (also when no worker is found: then nothing is
 * checked). */
gv_status gv_worker_probe_xml(gv_ctx *ctx, const char *xml);
#define GV_WORKER_PROBE_REFUSED 3 /* the probe's exit status when hwloc refused the file */

/* The caller's side over a stream already read (data[0..n), the worker's whole output): the
 * report gv_worker_run would make of it, the worker having ended where the data ends. For
 * tests and the fuzzer of the row stream. */
gv_status gv_worker_replay(gv_ctx *ctx, const gv_run_plan *plan, const char *data, size_t n,
                           gv_report **out);

#endif
