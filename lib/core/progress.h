/* SPDX-License-Identifier: Apache-2.0 */
/* Where the work is, for the deadlines gv_run enforces from outside the worker: a check that
 * begins on a subject (its deadline clock restarts) and the step inside it that a hang would
 * be in ("cuStreamSynchronize"). No-ops outside gpuverify-worker. */
#ifndef GV_CORE_PROGRESS_H
#define GV_CORE_PROGRESS_H

#include <stddef.h>

#include "gpuverify/gv_context.h"

enum gv_progress_kind {
    GV_PROGRESS_GROUP = 0, /* a catalog group starts: the checks before it have finished */
    GV_PROGRESS_BEGIN = 1, /* a check starts on a subject: its deadline clock restarts */
    GV_PROGRESS_STAGE = 2, /* a step inside the check that began last */
    GV_PROGRESS_WAIT = 3,  /* before `check` begins ("": within the check under way), a wait
                              of up to `text` seconds, then after a space what for ("another
                              gpuverify to finish with the GPUs"): the deadline is the wait's;
                              0 seconds: the wait is over, the check's time starts again */
    GV_PROGRESS_BEAT = 4,  /* a GPU (`text`: its CUDA ordinal, "" none) finished a piece of
                              the check's work: it is alive */
    GV_PROGRESS_WATCH = 5, /* the check works on these GPUs now (`text`: CUDA ordinals, "0,3",
                              and after a '/' the seconds allowed on top, "0,3/1.5"; "" none):
                              each must beat within the context's deadline */
    GV_PROGRESS_DONE = 6,  /* a watched GPU (`text`: its ordinal) finished its part */
    GV_PROGRESS_PART = 7   /* a beat that says how far the GPU is (`text`: "3/0.2500", its
                              ordinal and the fraction of its fixed work done) */
};

/* CUDA ordinals a heartbeat can name; the run's own limit (GV_RUN_MAX_GPUS) is the same. */
#define GV_PROGRESS_MAX_GPUS 64

void gv_progress_group(gv_ctx *ctx, const char *check);
void gv_progress_begin(gv_ctx *ctx, const char *check, const char *subject);
void gv_progress_stage(gv_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `why` ends "waiting up to 30 s for ...": "another gpuverify to finish with the GPUs". */
void gv_progress_wait(gv_ctx *ctx, const char *check, double seconds, const char *why);
/* A heartbeat of CUDA device `gpu` (-1: of no GPU in particular): call it where the GPU's side
 * of the work completed (an event or a kernel that finished), never from a timer, so that a GPU
 * stuck mid-check stops the beats. A check that has beaten once is held to them: gv_run kills
 * its worker when none came for the context's deadline, however long the check was to run.
 * Sent at most every 0.2 s per GPU, and always the first after a watch. */
void gv_progress_beat(gv_ctx *ctx, int gpu);
/* The check works on these CUDA devices now (n = 0: on none in particular), until the next
 * watch or begin: each must beat within the context's deadline from now on, counted from this
 * call, so that a GPU hung from its first kernel is found a deadline later, not at the end of
 * the check's whole time, and named: gv_run's row for the hang is on the GPUs that stopped
 * while the others went on. Call it where the GPUs start their part and again when the part
 * changes (one pair of GPUs after another, teardown one GPU after another). */
void gv_progress_watch(gv_ctx *ctx, const int *gpus, size_t n);
/* The same for work each GPU is expected to take allow_s seconds over (NCCL's timed operations
 * queued at once, waited for together): each must beat within allow_s + the deadline. */
void gv_progress_watch_for(gv_ctx *ctx, const int *gpus, size_t n, double allow_s);
/* A watched GPU finished its part while others go on (copies on every GPU at once, each ending
 * when it has done): it leaves the watch, and tells gv_run that the GPUs still in it stopped
 * alone, if they stop. */
void gv_progress_done(gv_ctx *ctx, int gpu);
/* A heartbeat of CUDA device `gpu` that also says which fraction (0..1) of its part of the
 * check's fixed work it has done: gv_run judges a GPU that goes on, but too slowly to finish
 * within the check's own time, by that pace (a stall, not a hang: its row says how far it got
 * and what it would need). Call it where the GPU completed a piece of a known amount of work
 * (a memory test step of its rounds), not for work bounded by time. At most every 0.2 s per
 * GPU, besides the plain beats. */
void gv_progress_part(gv_ctx *ctx, int gpu, double done);

#endif
