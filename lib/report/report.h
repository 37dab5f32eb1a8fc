/* SPDX-License-Identifier: Apache-2.0 */
/* The report model inside the library: results appended by the checks, facts kept beside. */
#ifndef GV_REPORT_REPORT_H
#define GV_REPORT_REPORT_H

#include <stddef.h>

#include "facts/facts.h"
#include "gpuverify/gv_compute.h"
#include "gpuverify/gv_report.h"

/* A row's time series (stress.gemm): the samples of its subject, in time order. */
typedef struct gv_row_series {
    size_t row; /* index into results */
    gv_stress_sample *samples;
    uint32_t count;
} gv_row_series;

/* A row's counters (report_counters.c): named raw numbers beside its one value. */
#define GV_ROW_COUNTERS_MAX 32
typedef struct gv_counter {
    char name[32];
    double value;
} gv_counter;
typedef struct gv_row_counters {
    size_t row; /* index into results */
    gv_counter *items;
    uint32_t count;
} gv_row_counters;

struct gv_report {
    int facts_known; /* this run gathered driver, hostname and gpus (its worker may not have) */
    gv_driver_info driver;
    char sysroot[4096];
    char hostname[64];
    char started_at[32];    /* UTC, ISO 8601 */
    long long started_unix; /* the same instant, seconds since the epoch; 0 unknown */
    double duration_s;
    char level[16]; /* the run level's name */
    double budget_s;
    gv_gpu *gpus;
    size_t gpu_count;
    gv_check_result *results;
    size_t count, cap;
    int out_of_memory; /* a result could not be added */
    /* How the checks ran: "process" (in gpuverify-worker) or "none" (in the caller's process),
     * with the worker's path or why none was used. */
    char isolation[16];
    char isolation_detail[1024];
    /* Streaming: rows before `flushed` are final and were handed to the sink (the worker
     * writes them to its pipe); `mark` is when the rows after them began. */
    size_t flushed;
    double mark;
    void (*sink)(void *user, const gv_check_result *row);
    void *sink_user;
    /* The run's last word on each row as it becomes final (flushed or settled), before the
     * sink sees it (gv_run: the busy rule for GPUs refused for want of memory, and the row's
     * action, checks/actions.h), NULL for none. */
    void (*finalize)(void *user, gv_check_result *row);
    void *finalize_user;
    gv_row_series *series; /* the rows that have one */
    size_t series_count;
    gv_row_counters *counters; /* the rows that have some */
    size_t counters_count;
    /* Checks whose judgment other rows left to them (gv_report_delegate), for gv_run to run
     * when the selection did not. */
    char delegated[8][32];
    size_t delegated_count;
};

/* The names the JSON report gives enum values (report_json.c writes them, report_json_read.c
 * reads them back): enum gv_module_kind and enum gv_library_state, indexed by value. */
#define GV_MODULE_KIND_NAMES 3
#define GV_LIBRARY_STATE_NAMES 4
extern const char *const gv_module_kind_names[GV_MODULE_KIND_NAMES];
extern const char *const gv_library_state_names[GV_LIBRARY_STATE_NAMES];

/* A report holding a copy of the facts' driver summary and GPUs; NULL when out of memory. */
gv_report *gv_report_new(const gv_facts *facts);
/* A report with no facts yet (all unknown), for a run whose worker sends none; NULL when out
 * of memory. */
gv_report *gv_report_blank(const gv_ctx *ctx);
/* The action gv_action_name names ("reboot_node"); -1 for a name it does not give. */
int32_t gv_action_named(const char *name);
/* Stamps the start time (UTC), the level's name and the budget on a report. */
void gv_report_stamp(gv_report *r, const char *level, double budget_s, long long started_unix);

/* Per-GPU verdicts (report_gpus.c). N of a subject "gpuN", -1 for any other ("node", "mlx5_0"). */
long gv_subject_gpu(const char *subject);
/* The verdict of the GPU whose gv_gpu.index is `gpu`, from the rows whose subject is "gpu<gpu>":
 * FAIL when one FAILed, else ERROR when one ERRORed, else WARN, else PASS; SKIP when no row
 * judged it. Node rows count for no GPU. */
int32_t gv_gpu_verdict_of(const gv_report *r, uint32_t gpu);

/* Starts a group of rows: earlier rows are flushed, the clock of the next ones starts now. */
void gv_report_begin_rows(gv_report *r);
/* Finalises the rows added since the last flush: each gets an equal share of the time since
 * the mark as its duration_s, and goes to the sink. gv_report_add flushes before it appends,
 * so a row is final (and streamed) as soon as the next one starts. */
void gv_report_flush(gv_report *r);

/* Marks the rows added since the last flush final as they are (durations of their own, as
 * rows read back from a worker carry), passes each through finalize and hands it to the sink. */
void gv_report_settle(gv_report *r);

/* Attaches a copy of the samples to row `row` (a row of the report); 0, or -1 out of memory
 * (the report's out_of_memory is set). */
int gv_report_attach_series(gv_report *r, const gv_check_result *row,
                            const gv_stress_sample *samples, uint32_t count);
/* The series of row `index`; NULL when it has none. */
const gv_row_series *gv_report_series_of(const gv_report *r, size_t index);

/* Adds a counter to a list being built (at most cap); an unknown (negative or not finite) value
 * is left out. */
void gv_counter_set(gv_counter *list, uint32_t *n, uint32_t cap, const char *name, double value);
/* Attaches a copy of the counters to row `row`; 0, or -1 out of memory. */
int gv_report_attach_counters(gv_report *r, const gv_check_result *row, const gv_counter *items,
                              uint32_t count);
/* The counters of row `index`; NULL when it has none. */
const gv_row_counters *gv_report_counters_of(const gv_report *r, size_t index);

/* A row that could not judge its subject because something another check judges is broken
 * ("NVML is not usable") leaves that judgment to `judge` (a catalog ID): gv_run then makes
 * sure the report has it, so that no selection of checks turns a broken prerequisite into a
 * report of SKIPs that passes. */
void gv_report_delegate(gv_report *r, const char *judge);

/* Appends a result with its message; NULL when out of memory (the setters accept NULL). */
gv_check_result *gv_report_add(gv_report *r, const char *id, const char *subject, int verdict,
                               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The measured value: text, and the number (NaN if none) with its unit. */
void gv_result_measured(gv_check_result *res, double value, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The expectation and where it came from ("kernel module", "PCI", "NVML", "policy"). */
void gv_result_expected(gv_check_result *res, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gv_result_remedy(gv_check_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* What a scheduler is to do about the row (enum gv_action). */
void gv_result_action(gv_check_result *res, int32_t action);
/* The result fingerprint of a GEMM row: its hash and comparability key. */
void gv_result_fingerprint(gv_check_result *res, const char *hash, const char *key);

/* The JSON of one row and of a report (report_json.c), and their readers (report_json_read.c):
 * the worker streams rows and facts in the report's own format. */
struct json_t;
struct json_t *gv_result_to_json(const gv_check_result *c);
/* The row at `index` with its time series, if it has one: what the worker streams and the
 * report's "checks" array holds. */
struct json_t *gv_report_row_to_json(const gv_report *r, size_t index);
struct json_t *gv_report_to_json(const gv_report *r);
gv_status gv_result_from_json(gv_ctx *ctx, struct json_t *o, gv_check_result *out);
/* Attaches a row object's "series" (absent: nothing) to row `index` of the report. */
gv_status gv_series_from_json(gv_ctx *ctx, struct json_t *o, gv_report *r, size_t index);
/* The row's "counters" object into the row's JSON (none: nothing), and back. */
void gv_counters_to_json(const gv_report *r, size_t index, struct json_t *row);
gv_status gv_counters_from_json(gv_ctx *ctx, struct json_t *o, gv_report *r, size_t index);
/* A report (facts and rows) from its parsed JSON; *out NULL on error (the context says why). */
gv_status gv_report_from_jansson(gv_ctx *ctx, struct json_t *root, gv_report **out);

#endif
