/* SPDX-License-Identifier: Apache-2.0 */
/* Where the work is, for the deadlines gv_run enforces from outside the worker: a check that
 * begins on a subject (its deadline clock restarts) and the step inside it that a hang would
 * be in ("cuStreamSynchronize"). No-ops outside gpuverify-worker. */
#ifndef GV_CORE_PROGRESS_H
#define GV_CORE_PROGRESS_H

#include "gpuverify/gv_context.h"

enum gv_progress_kind {
    GV_PROGRESS_GROUP = 0, /* a catalog group starts: the checks before it have finished */
    GV_PROGRESS_BEGIN = 1, /* a check starts on a subject: its deadline clock restarts */
    GV_PROGRESS_STAGE = 2, /* a step inside the check that began last */
    GV_PROGRESS_WAIT = 3,  /* before `check` begins, a wait of up to `text` seconds (another
                              gpuverify's hold on the GPUs): the deadline is the wait's */
    GV_PROGRESS_BEAT = 4   /* the GPU finished a piece of the check's work: it is alive */
};

void gv_progress_group(gv_ctx *ctx, const char *check);
void gv_progress_begin(gv_ctx *ctx, const char *check, const char *subject);
void gv_progress_stage(gv_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gv_progress_wait(gv_ctx *ctx, const char *check, double seconds);
/* A heartbeat: call it where the GPU's side of the work completed (an event or a kernel that
 * finished), never from a timer, so that a GPU stuck mid-check stops the beats. A check that
 * has beaten once is held to them: gv_run kills its worker when none came for the context's
 * deadline, however long the check was to run. Sent at most every 0.2 s. */
void gv_progress_beat(gv_ctx *ctx);

#endif
