/* gv_run through gpuverify-worker: the caller's side. Rows arrive as the worker finishes
 * them; a check that outlives its deadline gets the worker's process group killed and FAILs
 * as timed out, the checks not started SKIP saying why, and a worker that dies makes its
 * check an ERROR and is replaced for the checks after it. */
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/checks.h"
#include "core/util.h"
#include "checks/run_events.h"
#include "report/report.h"
#include "worker/lines.h"
#include "worker/protocol.h"
#include "worker/spawn.h"
#include "worker/worker.h"

#define MAX_WORKERS 4 /* one crash after another: give up after this many */

/* How one worker's run ended. */
enum outcome { ENDED, TIMED_OUT, DIED, GARBLED, FAILED };

typedef struct client {
    gv_ctx *ctx;
    const gv_run_plan *plan;
    gv_report *report;
    int have_facts;
    int pending[GV_CATALOG_MAX]; /* chosen entries whose group has not started */
    double budget_end;
    /* Where the current worker is. */
    char check[48], subject[48], stage[256];
    double began;
    double waiting_s; /* > 0: what began is a wait of this long before `check` (GV_PROGRESS_WAIT) */
    char error[512];  /* an "error" event's message */
    gv_status error_status;
    char garbage[80];
    int ended;                /* the worker said "end" or "error" */
    int by_budget;            /* the deadline in force is the run's budget, not the check's */
    gv_run_observer observer; /* the caller's progress callback, as the rows and begins come */
} client;

static void skip_pending(client *c, int verdict, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void skip_pending(client *c, int verdict, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->pending[i]) {
            gv_report_add(c->report, gv_checks[i].id, "node", verdict, "%s", why);
            c->pending[i] = 0;
        }
}

/* Marks the entries of groups before `group` as done. */
static void groups_done_before(client *c, int group)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->pending[i] && gv_catalog_group((int)i) < group)
            c->pending[i] = 0;
}

static void take_facts(client *c, json_t *report_json)
{
    gv_report *facts = NULL;
    if (c->have_facts || gv_report_from_jansson(c->ctx, report_json, &facts) != GV_OK)
        return;
    gv_report *r = c->report;
    r->driver = facts->driver;
    memcpy(r->hostname, facts->hostname, sizeof r->hostname);
    free(r->gpus);
    r->gpus = facts->gpus;
    r->gpu_count = facts->gpu_count;
    facts->gpus = NULL;
    gv_report_free(facts);
    c->have_facts = r->facts_known = 1;
}

static void take_row(client *c, json_t *o)
{
    gv_check_result row;
    if (gv_result_from_json(c->ctx, o, &row) != GV_OK)
        return;
    gv_check_result *res =
        gv_report_add(c->report, row.id, row.subject, row.verdict, "%s", row.message);
    if (res) {
        *res = row;
        /* A series that does not parse is left out; the row stands without it. */
        (void)gv_series_from_json(c->ctx, o, c->report, (size_t)(res - c->report->results));
        gv_report_settle(c->report); /* its duration came with it */
    }
}

/* One event line; 0 when it is one, -1 when it is not the worker's. */
static int take_line(void *user, char *line)
{
    client *c = user;
    int *ended = &c->ended;
    json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const char *kind = json_string_value(json_object_get(ev, "event"));
    int ok = kind != NULL;
    if (!ok) {
        ;
    } else if (!strcmp(kind, "row")) {
        take_row(c, json_object_get(ev, "result"));
    } else if (!strcmp(kind, "begin")) {
        gv_worker_event_text(ev, "check", c->check, sizeof c->check);
        gv_worker_event_text(ev, "subject", c->subject, sizeof c->subject);
        c->stage[0] = '\0';
        c->began = gv_now_s();
        c->waiting_s = 0;
        gv_run_observer_started(&c->observer, c->check, c->subject);
    } else if (!strcmp(kind, "wait")) {
        gv_worker_event_text(ev, "check", c->check, sizeof c->check);
        snprintf(c->subject, sizeof c->subject, "node");
        double s = json_number_value(json_object_get(ev, "seconds"));
        snprintf(c->stage, sizeof c->stage,
                 "waiting up to %.0f s for another gpuverify to "
                 "finish with the GPUs",
                 s);
        c->began = gv_now_s();
        c->waiting_s = s > 0 ? s : 0;
    } else if (!strcmp(kind, "stage")) {
        gv_worker_event_text(ev, "stage", c->stage, sizeof c->stage);
    } else if (!strcmp(kind, "group")) {
        const char *id = json_string_value(json_object_get(ev, "check"));
        int index = id ? gv_catalog_index(id) : -1;
        if (index >= 0)
            groups_done_before(c, gv_catalog_group(index));
    } else if (!strcmp(kind, "facts")) {
        take_facts(c, json_object_get(ev, "report"));
    } else if (!strcmp(kind, "end")) {
        *ended = 1;
    } else if (!strcmp(kind, "error")) {
        gv_worker_event_text(ev, "message", c->error, sizeof c->error);
        c->error_status = gv_worker_event_status(ev);
        *ended = 1;
    } else {
        ok = 0;
    }
    json_decref(ev);
    if (!ok)
        snprintf(c->garbage, sizeof c->garbage, "%.60s", line);
    return ok ? 0 : -1;
}

/* The deadline of what the worker is doing now: its check's, capped by the run's budget.
 * The budget cap comes half a second late, so that a check that keeps the budget itself
 * (NCCL aborts its communicators) reports first; the kill is the backstop. */
#define BUDGET_GRACE_S 0.5
static double deadline_now(void *user)
{
    client *c = user;
    /* A wait's deadline: the wait, then a unit for what follows it until the check begins. */
    double own = c->began + (c->waiting_s > 0 ? c->waiting_s + c->ctx->deadline_s
                                              : gv_catalog_deadline(c->ctx, c->plan,
                                                                    gv_catalog_index(c->check)));
    double budget = c->budget_end + BUDGET_GRACE_S;
    c->by_budget = budget < own;
    return c->by_budget ? budget : own;
}

/* Reads events until the worker ends, dies, garbles or outlives a deadline. */
static enum outcome drive(client *c, gv_worker_proc *p)
{
    c->ended = 0;
    enum gv_read_end end = gv_worker_read_lines(p->fd, deadline_now, take_line, c);
    if (end == GV_READ_TOO_LONG)
        snprintf(c->garbage, sizeof c->garbage, "a line longer than %u bytes", GV_READ_MAX_LINE);
    if (c->error[0])
        return FAILED;
    return end == GV_READ_DEADLINE                             ? TIMED_OUT
           : end == GV_READ_GARBLED || end == GV_READ_TOO_LONG ? GARBLED
           : end == GV_READ_EOF && c->ended                    ? ENDED
                                                               : DIED;
}

static const char *where_now(const client *c, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s%s%s", c->check, c->subject[0] ? " on " : "", c->subject,
             c->stage[0] ? ", in " : "", c->stage);
    return out;
}

/* After a worker that did not end well: the row for the check it was in, and the rest of
 * that check's group closed. */
static void close_group(client *c, int verdict, const char *why, const char *remedy, double spent)
{
    gv_check_result *res =
        gv_report_add(c->report, c->check, c->subject[0] ? c->subject : "node", verdict, "%s", why);
    if (res)
        res->duration_s = spent;
    if (remedy)
        gv_result_remedy(res, "%s", remedy);
    int index = gv_catalog_index(c->check);
    int group = gv_catalog_group(index);
    if (index >= 0)
        c->pending[index] = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->pending[i] && gv_catalog_group((int)i) == group) {
            gv_report_add(c->report, gv_checks[i].id, "node", GV_SKIP,
                          "not finished: the worker was stopped in %s", c->check);
            c->pending[i] = 0;
        }
}

static int any_pending(const client *c)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->pending[i])
            return 1;
    return 0;
}

/* Starts a worker for what is pending; the first pending check is where it starts. */
static gv_status start(client *c, const char *worker, gv_worker_proc *p)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->pending[i]) {
            /* Until it says otherwise the worker is gathering facts, NVML first. */
            snprintf(c->check, sizeof c->check, "%s",
                     c->have_facts ? gv_checks[i].id : "driver.nvml");
            break;
        }
    snprintf(c->subject, sizeof c->subject, "node");
    snprintf(c->stage, sizeof c->stage, "starting gpuverify-worker");
    c->began = gv_now_s();
    double left = c->budget_end - gv_now_s();
    char **argv = gv_worker_argv(c->ctx, c->plan, c->pending, left > 0.001 ? left : 0.001, worker);
    if (!argv)
        return gv_fail(c->ctx, GV_ERR_NO_MEMORY, "out of memory starting gpuverify-worker");
    char why[PATH_MAX + 128];
    gv_status s = gv_worker_spawn(worker, argv, p, why, sizeof why);
    gv_worker_argv_free(argv);
    return s == GV_OK ? GV_OK : gv_fail(c->ctx, s, "%s", why);
}

/* Closes the run after one worker: rows for what stopped it, pending checks settled. */
static gv_status conclude(client *c, enum outcome how, int by_budget, int reaped, int status,
                          double spent, const char *worker)
{
    char where[400], why[700], ended[96];
    where_now(c, where, sizeof where);
    gv_status s = GV_OK;
    if (how == ENDED) {
        groups_done_before(c, GV_CATALOG_MAX);
    } else if (how == FAILED) {
        s = gv_fail(c->ctx, c->error_status, "gpuverify-worker: %s", c->error);
    } else if (how == TIMED_OUT && by_budget) {
        /* Its own deadline had not passed: slow or hung, nobody can tell. Not a FAIL of the
         * hardware, and never a PASS. */
        snprintf(why, sizeof why,
                 "not finished within the run's budget of %.0f s: stopped after %.1f s in %s "
                 "(worker %s)",
                 c->plan->budget_s, spent, where,
                 reaped ? "stopped" : "killed, stuck in the kernel");
        close_group(c, GV_ERROR, why,
                    "raise the run's budget (gv_run_opts.budget_s, --budget) or select fewer "
                    "checks",
                    spent);
        skip_pending(c, GV_ERROR, "not run: the run's budget of %.0f s was spent",
                     c->plan->budget_s);
    } else if (how == TIMED_OUT) {
        snprintf(why, sizeof why, "timed out after %.1f s in %s (worker %s)", spent, where,
                 reaped ? "stopped" : "killed, stuck in the kernel");
        close_group(c, GV_FAIL, why,
                    "drain the node: a call into the NVIDIA driver did not return; check dmesg "
                    "for Xid errors, then reset the GPU or reboot",
                    spent);
        skip_pending(c, GV_SKIP, "not run: the worker was stopped after %s timed out", c->check);
    } else if (how == GARBLED) {
        snprintf(why, sizeof why,
                 "gpuverify-worker wrote something that is not its protocol during %s: \"%s\" "
                 "(a mismatched or broken worker at %s)",
                 where, c->garbage, worker);
        close_group(c, GV_ERROR, why, NULL, spent);
        skip_pending(c, GV_SKIP, "not run: the worker's output could not be read");
    } else {
        gv_worker_end_text(status, ended, sizeof ended);
        snprintf(why, sizeof why, "worker %s during %s", reaped ? ended : "vanished", where);
        close_group(c, GV_ERROR, why, NULL, spent);
    }
    gv_report_settle(c->report); /* rows made here carry their own durations */
    return s;
}

static client *client_new(gv_ctx *ctx, const gv_run_plan *plan, const char *worker)
{
    client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = ctx;
    c->plan = plan;
    c->budget_end = gv_now_s() + plan->budget_s;
    memcpy(c->pending, plan->chosen, sizeof c->pending);
    c->report = gv_report_blank(ctx);
    if (!c->report) {
        free(c);
        return NULL;
    }
    gv_report_stamp(c->report, plan, (long long)time(NULL));
    gv_run_observer_init(&c->observer, plan, gv_now_s());
    if (c->observer.fn) {
        c->report->sink = gv_run_observer_row;
        c->report->sink_user = &c->observer;
    }
    snprintf(c->report->isolation, sizeof c->report->isolation, "process");
    snprintf(c->report->isolation_detail, sizeof c->report->isolation_detail, "%s", worker);
    return c;
}

/* Hands the report over (or frees it on error) and frees the client. */
static gv_status client_finish(client *c, gv_status s, double t0, gv_report **out)
{
    gv_report *r = c->report;
    gv_ctx *ctx = c->ctx;
    gv_report_settle(r);
    r->sink = NULL; /* the observer goes with the client */
    r->duration_s = gv_now_s() - t0;
    free(c);
    if (s != GV_OK || r->out_of_memory) {
        gv_report_free(r);
        return s != GV_OK ? s : gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory adding results");
    }
    *out = r;
    return GV_OK;
}

gv_status gv_worker_run(gv_ctx *ctx, const gv_run_plan *plan, const char *worker, gv_report **out)
{
    *out = NULL;
    double t0 = gv_now_s();
    client *c = client_new(ctx, plan, worker);
    if (!c)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory creating the report");
    gv_status s = GV_OK;
    for (int workers = 0; any_pending(c) && s == GV_OK; workers++) {
        if (workers == MAX_WORKERS) {
            skip_pending(c, GV_ERROR, "not run: %d workers in a row died", MAX_WORKERS);
            break;
        }
        gv_worker_proc p;
        if ((s = start(c, worker, &p)) != GV_OK) {
            if (workers == 0)
                break; /* nothing ran: the caller gets the error */
            skip_pending(c, GV_ERROR, "not run: %s", gv_ctx_last_error(ctx));
            s = GV_OK;
            break;
        }
        int status = 0;
        enum outcome how = drive(c, &p);
        double spent = gv_now_s() - c->began;
        int reaped = gv_worker_stop(&p, how != ENDED, 1.0, &status);
        s = conclude(c, how, c->by_budget, reaped, status, spent, worker);
    }
    return client_finish(c, s, t0, out);
}

gv_status gv_worker_replay(gv_ctx *ctx, const gv_run_plan *plan, const char *data, size_t n,
                           gv_report **out)
{
    *out = NULL;
    double t0 = gv_now_s();
    client *c = client_new(ctx, plan, "(replay)");
    char *buf = c ? malloc(n + 1) : NULL;
    if (!buf) {
        if (c)
            gv_report_free(c->report);
        free(c);
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    }
    memcpy(buf, data, n);
    buf[n] = '\0';
    size_t len = n;
    snprintf(c->check, sizeof c->check, "driver.nvml");
    enum outcome how = gv_worker_take_lines(buf, &len, take_line, c) != 0 ? GARBLED
                       : c->error[0]                                      ? FAILED
                       : c->ended                                         ? ENDED
                                                                          : DIED;
    free(buf);
    return client_finish(c, conclude(c, how, 0, 1, 0, 0, "(replay)"), t0, out);
}
