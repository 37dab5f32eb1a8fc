/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run's last step with a history database (gv_ctx_opts.state_path): the history.* checks
 * judge the finished report against it, then the run is appended. In the caller's process,
 * after every worker has ended; a database that cannot be used is an ERROR row naming it and the
 * report stands without history. */
#ifndef GV_RUN_RUN_HISTORY_H
#define GV_RUN_RUN_HISTORY_H

#include "run/run.h"

/* Marks the history checks the selection holds in plan->history and takes them out of
 * plan->chosen (no worker runs them): those of the level only with a database, those named
 * always. Returns how many. */
int gv_run_history_select(const gv_ctx *ctx, const char *checks, gv_run_plan *plan);

/* Judges and records the run (plan->history); r gets the history rows. */
void gv_run_history(gv_ctx *ctx, const gv_run_plan *plan, gv_report *r);

#endif
