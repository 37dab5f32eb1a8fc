/* SPDX-License-Identifier: Apache-2.0 */
/* The history.* checks' judges and what they share: this run's rows against each GPU's and the
 * node's own record in the history database (docs/history.md). gv_run calls them in the
 * caller's process once every other row is in, before it appends the run. (lib/history/history.h
 * is the database itself.) */
#ifndef GV_CHECKS_HISTORY_JUDGE_H
#define GV_CHECKS_HISTORY_JUDGE_H

#include "gpuverify/gv_policy.h"
#include "history/history.h"
#include "report/report.h"

typedef struct gv_history_judge {
    gv_history *db;
    gv_report *report;         /* this run's; the history rows are appended to it */
    size_t judged;             /* rows before the history rows: the run being judged */
    const gv_policy *policy;   /* at the library's size; NULL = the defaults */
    const gv_history_run *run; /* this run's time and what its figures compare with */
} gv_history_judge;

/* The policy's history settings, each defaulted (gv_policy.h names the defaults). */
typedef struct gv_history_policy {
    long min_runs, runs;
    double perf_warn_fraction, window_days, ecc_per_day_warn, remap_warn;
    double exhaustion_days_warn, record_warn;
    double symbol_error_warn_per_h, symbol_error_fail_per_h;
    gv_history_limits limits;
} gv_history_policy;
void gv_history_policy_of(const gv_policy *p, gv_history_policy *out);

/* The subjects judged: "gpuN" for each GPU of the run with a UUID, then "node"; how many. */
size_t gv_history_subjects(const gv_report *r, char (*out)[48], size_t cap);
/* This run's row of `check` on `subject` (its index into *index when not NULL); NULL when it
 * has none. */
const gv_check_result *gv_history_row_now(const gv_history_judge *j, const char *check,
                                          const char *subject, size_t *index);
/* A query that failed: the subject's row is an ERROR naming the database, to be run again. */
void gv_history_query_failed(gv_history_judge *j, const char *id, const char *subject,
                             const char *why);
/* A counter of this run's row of `check` on `subject` (report_counters.c); NAN when absent. */
double gv_history_counter_now(const gv_history_judge *j, const char *check, const char *subject,
                              const char *name);
/* A time stamp's day, "2026-11-28" (UTC), and its minute, "2026-11-28 00:12 UTC". */
void gv_history_day(long long unix_s, char *out, size_t cap);
void gv_history_minute(long long unix_s, char *out, size_t cap);

/* Each history check's judge, gv_check_<name> (checks.def), in history.c or the other
 * history_*.c. */
#define GV_HISTORY(nm, ...) void gv_check_##nm(gv_history_judge *judge);
#define GV_PASSIVE(...)
#define GV_ACTIVE(...)
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY

#endif
