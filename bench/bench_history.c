/* SPDX-License-Identifier: Apache-2.0 */
/* The cost of the history database per run (gv_ctx_opts.state_path, gv-check --state): what
 * gv_run adds to a run once every check is in, at a given depth of history. A real report
 * (gv-check --json, its level's plan) is the template: one gv_run_history on a fresh database,
 * then copies of that run appended with gv_history_append (started_unix INTERVAL apart, the
 * newest now) until HISTORY runs are kept, then REPS runs timed, each exactly gv_run's step:
 * gv_run_history (open, the history.* judges, append, close) on a fresh copy of the report.
 * Then a breakdown of the same steps one by one (REPS / 4 runs more), to say where the time
 * goes. Prints a summary block for bench/results/.
 *
 * The default interval (30 min) puts every run inside the judges' 30-day window, so each run
 * reads the whole record: the worst case for the depth.
 *
 * usage: bench_history REPORT.json DATABASE [HISTORY [REPS [INTERVAL_S [SECONDS]]]]
 *        (defaults 1000 200 1800 240: REPS timed runs or as many as SECONDS hold, at least 4;
 *        DATABASE is removed first, with its -wal and -shm) */
#include <errno.h>
#include <gpuverify/gpuverify.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_clock.h"
#include "checks/checks.h"
#include "checks/history_judge.h"
#include "history/history.h"
#include "history/history_db.h"
#include "report/report.h"
#include "run/run.h"
#include "run/run_history.h"

#define TOOL "bench_history"
/* The bar: history may cost a quick run this much (the quick level is a job prolog). */
#define BAR_MS 5.0

static void die(const char *what, const char *why)
{
    fprintf(stderr, "%s: %s%s%s\n", TOOL, what, why ? ": " : "", why ? why : "");
    exit(2);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0)
        if ((n += got) + 1 == cap)
            text = realloc(text, cap *= 2);
    fclose(f);
    if (!text)
        die(path, "out of memory");
    text[n] = '\0';
    return text;
}

static gv_report *report_of(gv_ctx *ctx, const char *json)
{
    gv_report *r = NULL;
    if (gv_report_from_json(ctx, json, &r) != GV_OK)
        die("the report does not read", gv_ctx_last_error(ctx));
    return r;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t and gives its median and 95th percentile (nearest rank). */
static void stats(double *t, size_t n, double *median, double *p95)
{
    qsort(t, n, sizeof *t, by_value);
    *median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    size_t rank = (95 * n + 99) / 100;
    *p95 = t[rank ? rank - 1 : 0];
}

/* The rows gv_run_history added to r from `first`: their verdicts counted; the first ERROR's
 * message kept (the database could not be used: the figures would time nothing). */
static void history_rows(const gv_report *r, size_t first, int count[5], char *error, size_t cap)
{
    for (size_t i = first; i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        if (strncmp(c->id, "history.", 8) != 0)
            continue;
        if (c->verdict >= GV_PASS && c->verdict <= GV_ERROR)
            count[c->verdict]++;
        if (c->verdict == GV_ERROR && !error[0])
            snprintf(error, cap, "%s %s: %s", c->id, c->subject, c->message);
    }
}

/* The newest run's comparable key, as gv_run_history wrote it: the copies appended after it are
 * then comparable with the timed runs, as a node's own earlier runs are. */
static void comparable_of(gv_history *h, char *out, size_t cap)
{
    sqlite3_stmt *st;
    out[0] = '\0';
    if (sqlite3_prepare_v2(h->db, "SELECT comparable FROM runs ORDER BY id DESC LIMIT 1", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (!out[0])
        die("the first run left no comparable key in the database", NULL);
}

static long long query(gv_history *h, const char *sql)
{
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static long long file_size(const char *path, const char *suffix)
{
    char p[4200];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : 0;
}

/* One run of gv_run_history's steps, each timed (ms into step[]: open, the judges in catalog
 * order, append, close), as lib/run/run_history.c takes them. */
enum { STEP_OPEN, STEP_APPEND, STEP_CLOSE, STEP_JUDGES };
static void steps(const gv_run_plan *plan, const char *path, gv_report *r, const char *comparable,
                  double *step)
{
    size_t first = r->count;
    gv_report_begin_rows(r);
    gv_history_policy pol;
    gv_history_policy_of(plan->opts.policy, &pol);
    char why[1024];
    gv_history *db = NULL;
    double t = now_s();
    if (gv_history_open(path, &pol.limits, &db, why, sizeof why))
        die("opening the database", why);
    step[STEP_OPEN] = 1e3 * (now_s() - t);
    gv_history_run run = {.started_unix = r->started_unix};
    snprintf(run.comparable, sizeof run.comparable, "%s", comparable);
    gv_history_judge judge = {
        .db = db, .report = r, .judged = first, .policy = plan->opts.policy, .run = &run};
    size_t k = STEP_JUDGES;
    for (size_t i = 0; i < gv_check_count; i++)
        if (plan->history[i]) {
            t = now_s();
            gv_checks[i].history(&judge);
            step[k++] = 1e3 * (now_s() - t);
        }
    gv_report_flush(r);
    t = now_s();
    if (gv_history_append(db, r, &run, why, sizeof why))
        die("appending", why);
    step[STEP_APPEND] = 1e3 * (now_s() - t);
    t = now_s();
    gv_history_close(db);
    step[STEP_CLOSE] = 1e3 * (now_s() - t);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPORT.json DATABASE [HISTORY [REPS [INTERVAL_S [SECONDS]]]]\n",
                TOOL);
        return 2;
    }
    const char *report_path = argv[1], *path = argv[2];
    long history = argc > 3 ? atol(argv[3]) : 1000, reps = argc > 4 ? atol(argv[4]) : 200;
    long interval = argc > 5 ? atol(argv[5]) : 1800;
    double seconds = argc > 6 ? atof(argv[6]) : 240;
    if (history < 1 || history > 1000000 || reps < 4 || reps > 100000 || interval < 1 ||
        !(seconds > 0))
        die("HISTORY 1..1000000, REPS 4..100000, INTERVAL_S >= 1, SECONDS > 0", NULL);
    static const char *const files[] = {"", "-wal", "-shm"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", path, files[k]);
        if (unlink(p) != 0 && errno != ENOENT)
            die(p, strerror(errno));
    }
    char *json = slurp(report_path);
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.state_path = path;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&o, &ctx) != GV_OK)
        die("gv_ctx_create", gv_ctx_last_error(NULL));
    gv_report *r = report_of(ctx, json);
    /* The plan of the report's level, as gv_run makes it with a state path: the history checks
     * of that level selected. */
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    static const int32_t levels[] = {GV_LEVEL_QUICK, GV_LEVEL_STANDARD, GV_LEVEL_EXTENDED};
    ro.level = -1;
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
        if (strcmp(r->level, gv_level_name(levels[k])) == 0)
            ro.level = levels[k];
    if (ro.level < 0)
        die("the report's level is none of quick, standard, extended", r->level);
    gv_run_plan *plan = calloc(1, sizeof *plan);
    if (!plan || gv_run_plan_make(ctx, &ro, plan) != GV_OK)
        die("gv_run_plan_make", gv_ctx_last_error(ctx));
    int judges = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        judges += plan->history[i];
    size_t rows = r->count, gpus = r->gpu_count;
    char host[sizeof r->hostname], level[sizeof r->level];
    snprintf(host, sizeof host, "%s", r->hostname);
    snprintf(level, sizeof level, "%s", r->level);

    /* The first run: gv_run_history on the fresh database. Every run is INTERVAL after the one
     * before, the last of the breakdown now when all REPS run. */
    long parts = reps / 4, width = STEP_JUDGES + judges;
    long long next = (long long)time(NULL) - (long long)(history + reps + parts - 1) * interval;
    int count[5] = {0};
    char error[1200] = "";
    r->started_unix = next;
    next += interval;
    gv_run_history(ctx, plan, r);
    history_rows(r, rows, count, error, sizeof error);
    if (error[0])
        die("the history could not be used", error);

    /* The record: copies of that run (its history rows included, as a node's runs have them),
     * each a transaction of its own as gv_run makes them. */
    gv_history_policy pol;
    gv_history_policy_of(NULL, &pol);
    char why[1024], comparable[160];
    gv_history *h = NULL;
    if (gv_history_open(path, &pol.limits, &h, why, sizeof why))
        die("opening the database", why);
    comparable_of(h, comparable, sizeof comparable);
    double *fill = malloc((size_t)history * sizeof *fill);
    double *t = malloc((size_t)reps * sizeof *t);
    double *step = calloc((size_t)(parts * width), sizeof *step);
    if (!fill || !t || !step)
        die("out of memory", NULL);
    double fill_s = now_s();
    for (long i = 1; i < history; i++, next += interval) {
        gv_history_run run = {.started_unix = next};
        snprintf(run.comparable, sizeof run.comparable, "%s", comparable);
        r->started_unix = run.started_unix;
        double a = now_s();
        if (gv_history_append(h, r, &run, why, sizeof why))
            die("appending", why);
        fill[i - 1] = 1e3 * (now_s() - a);
    }
    fill_s = now_s() - fill_s;
    long long before = query(h, "SELECT count(*) FROM runs");
    gv_history_close(h);
    gv_report_free(r);
    long long size_before = file_size(path, "") + file_size(path, "-wal");

    /* The timed runs: each gv_run's last step on a fresh copy of the report, REPS of them or
     * as many as SECONDS hold (a slow history must not outlast a lent machine's command). */
    long timed = 0;
    double end = now_s() + seconds;
    while (timed < reps && (timed < 4 || now_s() < end)) {
        r = report_of(ctx, json);
        r->started_unix = next;
        next += interval;
        double a = now_s();
        gv_run_history(ctx, plan, r);
        t[timed++] = 1e3 * (now_s() - a);
        memset(count, 0, sizeof count); /* the last run's are shown */
        history_rows(r, rows, count, error, sizeof error);
        gv_report_free(r);
        if (error[0])
            die("a timed run could not use the history", error);
    }

    /* The breakdown: the same steps one by one, on a quarter as many runs again. */
    parts = timed / 4;
    for (long k = 0; k < parts; k++, next += interval) {
        r = report_of(ctx, json);
        r->started_unix = next;
        steps(plan, path, r, comparable, step + k * width);
        gv_report_free(r);
    }
    if (gv_history_open_read(path, &h, why, sizeof why))
        die("reading the database back", why);
    long long after = query(h, "SELECT count(*) FROM runs");
    long long rows_kept = query(h, "SELECT count(*) FROM results");
    long long counters = query(h, "SELECT count(*) FROM counters");
    gv_history_close(h);
    long long size_after = file_size(path, "") + file_size(path, "-wal");

    double median, p95, fill_median = 0, fill_p95 = 0;
    if (history > 1)
        stats(fill, (size_t)history - 1, &fill_median, &fill_p95);
    stats(t, (size_t)timed, &median, &p95);
    printf("## bench_history: the cost of history per run\n\n");
    printf("report        %s: level %s, %zu rows, %zu GPU(s), host %s\n", report_path, level, rows,
           gpus, host);
    printf("database      %s, SQLite %s, %d history check(s) at this level\n", path,
           sqlite3_libversion(), judges);
    printf("record        %ld runs, %ld s apart, the newest now: %lld runs kept, %.2f MiB "
           "(%.1f KiB per run)\n",
           history, interval, before, size_before / 1048576.0,
           before > 0 ? size_before / 1024.0 / (double)before : 0);
    if (history > 1)
        printf("fill          gv_history_append alone: median %.3f ms, p95 %.3f ms, %.2f s for "
               "%ld\n",
               fill_median, fill_p95, fill_s, history - 1);
    printf("per run       gv_run_history (open, %d judge(s), append, close), %ld runs (of %ld "
           "asked, %.0f s at most) from %lld runs of history:\n",
           judges, timed, reps, seconds, before);
    double mean = 0;
    for (long k = 0; k < timed; k++)
        mean += t[k] / (double)timed;
    printf("              median %.3f ms, mean %.3f ms, p95 %.3f ms, min %.3f ms, max %.3f ms\n",
           median, mean, p95, t[0], t[timed - 1]);
    printf("bar           <= %.0f ms per run: median %s, mean %s, p95 %s\n", BAR_MS,
           median <= BAR_MS ? "within" : "OVER", mean <= BAR_MS ? "within" : "OVER",
           p95 <= BAR_MS ? "within" : "OVER");
    printf("steps         median ms over %ld more runs:", parts);
    const char *names[] = {"open", "append", "close"};
    for (long s = 0; s < width; s++) {
        double *col = malloc((size_t)parts * sizeof *col), m, p;
        if (!col)
            die("out of memory", NULL);
        for (long k = 0; k < parts; k++)
            col[k] = step[k * width + s];
        stats(col, (size_t)parts, &m, &p);
        free(col);
        const char *name = s < STEP_JUDGES ? names[s] : NULL;
        size_t seen = 0;
        for (size_t i = 0; !name && i < gv_check_count; i++)
            if (plan->history[i] && seen++ == (size_t)(s - STEP_JUDGES))
                name = gv_checks[i].id;
        printf(" %s %.3f%s", name, m, s + 1 < width ? "," : "\n");
    }
    printf("after         %lld runs, %lld rows, %lld counters, %.2f MiB\n", after, rows_kept,
           counters, size_after / 1048576.0);
    printf("last run      history rows: PASS %d, WARN %d, FAIL %d, SKIP %d, ERROR %d\n",
           count[GV_PASS], count[GV_WARN], count[GV_FAIL], count[GV_SKIP], count[GV_ERROR]);
    free(fill);
    free(t);
    free(step);
    free(plan);
    free(json);
    gv_ctx_destroy(ctx);
    return 0;
}
