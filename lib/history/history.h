/* SPDX-License-Identifier: Apache-2.0 */
/* The history database (gv_ctx_opts.state_path; docs/history.md): every run's rows, their
 * figures and counters, per GPU by UUID and per node, in SQLite. gv_run appends each run and
 * the history.* checks read it back. Every function returns 0, or -1 with the reason in `why`
 * (the database's path and SQLite's words): the run then goes on without history. */
#ifndef GV_HISTORY_HISTORY_H
#define GV_HISTORY_HISTORY_H

#include <stddef.h>

#include "report/report.h"

typedef struct gv_history gv_history;

/* How long a write waits for another process's, and what is kept (the policy's). */
typedef struct gv_history_limits {
    double wait_s;    /* a lock held by another run is waited for this long */
    double keep_days; /* runs older than this are deleted */
    double keep_runs; /* at most this many runs are kept, the oldest deleted first */
    double keep_mb;   /* the file is kept under this size, the oldest runs deleted first */
} gv_history_limits;

/* Opens the database, creating it and its tables, migrating an older schema; once a day it
 * checks the whole file first (SQLite's quick_check) and refuses one that is damaged. */
int gv_history_open(const char *path, const gv_history_limits *limits, gv_history **out, char *why,
                    size_t cap);
/* Opens an existing database to read only (gv_history_json): nothing is created or migrated;
 * a damaged file (quick_check, every time) is refused. */
int gv_history_open_read(const char *path, gv_history **out, char *why, size_t cap);
void gv_history_close(gv_history *h); /* NULL-safe */

/* What a figure is comparable with: the run's parameters that change it (driver, level, GEMM
 * size, copy size, stress time). */
typedef struct gv_history_run {
    long long started_unix;
    char comparable[160];
    /* The report's last rows that are the history checks' own (0: none), which judge the
     * record and are not part of a subject's. */
    size_t history_rows;
} gv_history_run;

/* The subject a row's history belongs to: the GPU's UUID for a "gpuN" row whose GPU has one, else
 * "<hostname>/<subject>" ("node1/node", "node1/mlx5_0/1"), so that a GPU moved to another slot
 * or node keeps its record. */
void gv_history_subject(const gv_report *r, const char *subject, char *out, size_t cap);

/* Whether a row is a mark on its subject's record (history.record): a FAIL, or an ERROR whose
 * action asks for more than running again or waiting (a hung driver call counts; a run the
 * host's budget cut short, another job's memory or another gpuverify's hold does not). */
int gv_history_bad_row(const gv_check_result *c);

/* Appends the report as one run, in one transaction, then deletes what the limits no longer
 * keep. */
int gv_history_append(gv_history *h, const gv_report *r, const gv_history_run *run, char *why,
                      size_t cap);
/* What the last append recorded but left undone, for the run's row ("" nothing): a reader that
 * kept the write-ahead log from being folded into the file. */
const char *gv_history_note(const gv_history *h);

/* One earlier value of a figure or counter. */
typedef struct gv_history_point {
    long long started_unix;
    double value;
} gv_history_point;

/* A figure's earlier values: rows of `check` on `subject` (gv_history_subject) with this unit,
 * judged PASS or WARN, in runs of the same comparable key; newest first, at most `max`. The
 * count, or -1. */
long gv_history_figures(gv_history *h, const char *subject, const char *check, const char *unit,
                        const char *comparable, gv_history_point *out, size_t max, char *why,
                        size_t cap);

/* A counter's (a row's counters, report_counters.c) oldest (oldest 1) or newest (oldest 0)
 * value stamped from since_unix to until_unix into out: 1, 0 when there is none, -1 on error.
 * until_unix is the judged run's time: a run stamped after it (a clock that was ahead) is not
 * "the last run". */
int gv_history_counter_end(gv_history *h, const char *subject, const char *check, const char *name,
                           long long since_unix, long long until_unix, int oldest,
                           gv_history_point *out, char *why, size_t cap);

/* A counter's values above 0 stamped from since_unix to until_unix: how many runs had one,
 * their sum, and the newest's time and its row's message (gpu.xid's watched_faults: the Xid
 * faults NVML reported during earlier runs since boot). */
typedef struct gv_history_sum {
    long runs;
    double total;
    long long last_unix;
    char last_message[256];
} gv_history_sum;
int gv_history_counter_sum(gv_history *h, const char *subject, const char *check, const char *name,
                           long long since_unix, long long until_unix, gv_history_sum *out,
                           char *why, size_t cap);

/* The history keys of the GPUs a row of the node judged over, each followed by a space: 64
 * GPUs' "GPU-<uuid>" or "<hostname>/gpuN". */
#define GV_HISTORY_GPU_KEYS (64 * 72)
/* A check whose last judgement of a subject was a FAIL (history.standing). */
typedef struct gv_history_standing {
    char subject[160]; /* its history key (gv_history_subject) */
    char check[48], row_subject[48], action[16], level[16];
    char message[256];
    long long started_unix;
    char gpus[GV_HISTORY_GPU_KEYS]; /* a row of the node: the GPUs it FAILed over ("" none) */
} gv_history_standing;
/* The GPUs row `row` of the report judged over (its counters "gpuN": the tests across GPUs),
 * as gv_history_standing's gpus; "" when it names none. */
void gv_history_row_gpus(const gv_report *r, size_t row, char *out, size_t cap);
/* Whether row `row` of the report, of s's check, judged that check again where s stands: on
 * s's subject over at least s's GPUs, or as a PASS of the whole node (none of the check's rows
 * FAILed) that names s's GPU, or covers s's GPUs on a subject of the node's own (the node, an
 * NVSwitch, a port). A SKIP or an ERROR judged nothing; a PASS over some GPUs ends nothing of
 * the others. */
int gv_history_judged_again(const gv_report *r, size_t row, const gv_history_standing *s);
/* The checks whose last judgement (PASS, WARN or FAIL) was a FAIL stamped from since_unix on
 * (table standing): of `subject` (a GPU's UUID), or with hosts_of set of the node's own
 * subjects on host `subject` ("<hostname>/node", "<hostname>/mlx5_0/1"); at most max into out,
 * newest first. The count, or -1. */
long gv_history_standing_of(gv_history *h, const char *subject, int hosts_of, long long since_unix,
                            gv_history_standing *out, size_t max, char *why, size_t cap);

/* A GPU's (its UUID) runs since `since_unix`, counted up to at_most; -1 on error. */
long gv_history_runs_of(gv_history *h, const char *uuid, long long since_unix, long at_most,
                        char *why, size_t cap);

/* Runs since `since_unix` of a GPU (its UUID) or a node ("<hostname>/node"), and how many of
 * them had a FAIL, or an ERROR not caused by another gpuverify's hold, among its rows (the
 * node's: any row); the first such run's time. */
typedef struct gv_history_record {
    long runs, bad;
    long long first_unix;
} gv_history_record;
/* The time stamp of the newest run recorded for host `hostname` (by when it was recorded, not
 * by its stamp): 1 with *started_unix, 0 when there is none, -1 on error (why). */
int gv_history_last_run(gv_history *h, const char *hostname, long long *started_unix, char *why,
                        size_t cap);

int gv_history_record_of(gv_history *h, const char *subject, long long since_unix,
                         gv_history_record *out, char *why, size_t cap);

/* The database as JSON (gv_history_json): runs newest first, each with its rows, filtered by
 * subject, a --checks list (gv-check's rules; a run without a row it selects is left out),
 * time and count. */
struct json_t;
int gv_history_export(gv_history *h, const char *subject, const char *checks, long long since_unix,
                      long max_runs, struct json_t **out, char *why, size_t cap);

#endif
