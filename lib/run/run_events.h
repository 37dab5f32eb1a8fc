/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run_opts.on_event: the caller's progress callback, fed from wherever the checks run: the
 * progress hooks in the caller's process (GV_ISOLATION_NONE), or the worker's begin events and
 * rows as the client reads them. */
#ifndef GV_RUN_RUN_EVENTS_H
#define GV_RUN_RUN_EVENTS_H

#include "run/run.h"

typedef struct gv_run_observer {
    gv_run_event_fn fn; /* NULL: the caller asked for none, and every call is a no-op */
    void *user;
    const int *chosen; /* the plan's selection, per catalog entry */
    double t0, budget_s;
    uint32_t selected, started;
} gv_run_observer;

void gv_run_observer_init(gv_run_observer *o, const gv_run_plan *plan, double t0);
/* A check begins on a subject (the progress hook's GV_PROGRESS_BEGIN). */
void gv_run_observer_started(gv_run_observer *o, const char *check, const char *subject);
/* A row is final: a report sink (gv_report.sink), user = the observer. */
void gv_run_observer_row(void *user, const gv_check_result *row);
/* A ctx->progress hook for runs in the caller's process: begins become STARTED events. */
void gv_run_observer_progress(void *user, int kind, const char *check, const char *text);

#endif
