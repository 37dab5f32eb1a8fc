/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker: the caller's side (run_worker.c), and the same over a
 * stream already read. */
#ifndef GV_RUN_RUN_WORKER_H
#define GV_RUN_RUN_WORKER_H

#include <stddef.h>

#include "core/context.h"
#include "run/run.h"

/* Runs the plan in workers started from `worker`; the report holds every row they finished,
 * and a FAIL/ERROR/SKIP row for what a hang, crash or unreadable output stopped. */
gv_status gv_worker_run(gv_ctx *ctx, const gv_run_plan *plan, const char *worker, gv_report **out);

/* The caller's side over a stream already read (data[0..n), the worker's whole output): the
 * report gv_worker_run would make of it, the worker having ended where the data ends. For
 * tests and the fuzzer of the row stream. */
gv_status gv_worker_replay(gv_ctx *ctx, const gv_run_plan *plan, const char *data, size_t n,
                           gv_report **out);

#endif
