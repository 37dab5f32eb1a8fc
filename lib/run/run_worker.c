/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker: the caller's side.
 *
 * The node's worker gathers the facts and runs the checks in catalog order. When it has two or
 * more GPUs to test it names them ("lanes") before its first test on a GPU: it keeps the first
 * GPU's tests and each other GPU's tests (gv_catalog_per_gpu) run at the same time in a worker
 * of its own, so one GPU's hang or crash costs only that GPU's rows and the time to a verdict
 * does not grow with the GPU count. The tests across GPUs (copies of all at once, pairs, NCCL,
 * stress) run after every lane has finished, in one more worker, on the GPUs that did not hang.
 *
 * Rows arrive as the workers finish them. Each lane's deadline is that of the check it is in,
 * cut short when a check that has sent heartbeats (core/progress.h) stops sending them, and
 * capped by the run's budget: past it the worker's process group is killed. Whatever happens,
 * every check the plan chose ends with a row: a hang makes its check FAIL and the lane's other
 * checks SKIP; a crash makes its check an ERROR and a fresh worker runs the checks after it
 * (at most MAX_WORKERS per lane); the budget makes what is left an ERROR. */
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/checks.h"
#include "run/run_events.h"
#include "run/run_worker.h"
#include "run/worker_args.h"
#include "core/util.h"
#include "report/report.h"
#include "worker/lines.h"
#include "worker/protocol.h"
#include "worker/spawn.h"
#include "worker/worker.h"

#define MAX_WORKERS 4 /* per lane: the first and three fresh ones after crashes */

_Static_assert(GV_PROGRESS_MAX_GPUS == GV_RUN_MAX_GPUS, "a watch names the GPUs a run can test");

/* How one worker's run ended. */
enum outcome { ENDED, TIMED_OUT, DIED, GARBLED, FAILED };

struct client;

/* A sequence of workers testing one GPU (or the node), one worker at a time. */
typedef struct lane {
    struct client *c;
    int ordinal;          /* the CUDA ordinal this lane tests; the node's: its own GPU's */
    char gpu_subject[48]; /* its rows' subject: "gpu3"; "node" for the node's lane */
    char gpus[GV_RUN_MAX_GPUS * 4]; /* its workers' --gpus; "" the plan's */
    int lanes_mode;                 /* its workers may open lanes (gv_run_plan.lanes) */
    int pending[GV_CATALOG_MAX];    /* chosen entries this lane has yet to finish */
    int assigned[GV_CATALOG_MAX];   /* what the current worker was given */
    int rows[GV_CATALOG_MAX];       /* rows received per entry */
    int accept_any;                 /* the node's first worker: its delegated judges count too */
    int workers;                    /* started so far */
    int running, finished, timed_out, starting;
    gv_worker_proc p;
    gv_line_reader reader;
    /* Where the current worker is. */
    char check[48], subject[48], stage[256];
    double began;
    double waiting_s; /* > 0: what began is a wait of this long before `check` (GV_PROGRESS_WAIT) */
    double last_beat; /* > 0: the check has sent heartbeats, the last at this time */
    /* The GPUs the check watches now (core/progress.h), by CUDA ordinal: when each last showed
     * it was alive (its beat, or the watch); those that left the watch since the last GPU
     * joined it have finished their part. */
    int watched[GV_RUN_MAX_GPUS], finished_part[GV_RUN_MAX_GPUS];
    double gpu_alive[GV_RUN_MAX_GPUS];
    double watch_allow_s; /* the watch's allowance on top of the deadline */
    int watching;         /* the check has watched GPUs: the context's rule is theirs */
    int late_gpu;         /* the watched GPU whose deadline is the lane's; -1 none */
    /* The pace of GPUs whose beats say how far they are (> 0: the fraction of their fixed
     * work done, at gpu_done_at; the first such beat since the check began, gpu_first_*). */
    double gpu_done[GV_RUN_MAX_GPUS], gpu_done_at[GV_RUN_MAX_GPUS];
    double gpu_first_done[GV_RUN_MAX_GPUS], gpu_first_at[GV_RUN_MAX_GPUS];
    int slow_gpu;              /* the GPU whose pace set the lane's deadline; -1 none */
    int hung[GV_RUN_MAX_GPUS]; /* after a hang or a stall: the GPUs named, by ordinal */
    size_t hung_count;
    char error[512]; /* an "error" event's message */
    int errored;     /* the worker sent an "error" event */
    gv_status error_status;
    char garbage[80];
    int ended; /* the worker said "end" or "error" */
    int by_budget, by_liveness, by_pace;
    int drained; /* its pipe was read once after its deadline passed */
} lane;

static void watch_clear(lane *l)
{
    memset(l->watched, 0, sizeof l->watched);
    memset(l->finished_part, 0, sizeof l->finished_part);
    l->late_gpu = -1;
    l->watch_allow_s = 0;
    l->watching = 0;
}

/* A watch event: the GPUs the check works on from now. One that left the set had finished its
 * part, unless the set took in a GPU it did not have (a new part, the pair after a pair). */
static void watch_take(lane *l, json_t *ev)
{
    int gpus[GV_RUN_MAX_GPUS], now_watched[GV_RUN_MAX_GPUS] = {0}, joined = 0;
    size_t n = gv_worker_event_gpus(ev, gpus, GV_RUN_MAX_GPUS);
    for (size_t i = 0; i < n; i++) {
        now_watched[gpus[i]] = 1;
        joined |= !l->watched[gpus[i]];
    }
    double now = gv_now_s();
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++) {
        if (joined)
            l->finished_part[g] = 0;
        else if (l->watched[g] && !now_watched[g])
            l->finished_part[g] = 1;
        if (now_watched[g] && (joined || !l->watched[g]))
            l->gpu_alive[g] = now;
        l->watched[g] = now_watched[g];
    }
    if (l->last_beat > 0)
        l->last_beat = now; /* a check that moved on is alive */
    l->watch_allow_s = gv_worker_event_allow(ev);
    l->watching |= n > 0;
}

typedef struct client {
    gv_ctx *ctx;
    const gv_run_plan *plan;
    const char *worker;
    gv_report *report;
    int have_facts;
    double budget_end;
    gv_run_observer observer; /* the caller's progress callback, as the rows and begins come */
    lane node;
    lane *lanes; /* the other GPUs' lanes */
    size_t lane_count;
    int lanes_opened;
    char own_subject[48];       /* the GPU the node's worker tests itself, once lanes are open */
    int own_gpu_hung;           /* the node's worker hung in a test of that GPU */
    int across[GV_CATALOG_MAX]; /* tests across GPUs, run once every lane has finished */
    int across_started;
    gv_status failed; /* the run could not be made: the caller gets this error */
} client;

static int lane_index(const lane *l, const char *id)
{
    (void)l;
    return id ? gv_catalog_index(id) : -1;
}

static int is_node(const lane *l)
{
    return l == &l->c->node;
}

/* The subject of a row made for entry i of the lane: its GPU's; for the node's lane, the
 * GPU it tests itself when the entry is a test of one GPU and lanes are open. */
static const char *subject_of(const lane *l, size_t i)
{
    return is_node(l) && l->c->lanes_opened && gv_catalog_per_gpu(i) ? l->c->own_subject
                                                                     : l->gpu_subject;
}

/* One row per pending entry of the lane, all with this verdict, action and text. */
static void close_pending(lane *l, int verdict, int32_t action, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void close_pending(lane *l, int verdict, int32_t action, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i]) {
            /* One that sent its rows before the worker stopped has its verdict already. */
            if (!l->rows[i])
                gv_result_action(gv_report_add(l->c->report, gv_checks[i].id, subject_of(l, i),
                                               verdict, "%s", why),
                                 action);
            l->pending[i] = 0;
        }
}

/* Marks the entries of groups before `group` as done. */
static void groups_done_before(lane *l, int group)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i] && gv_catalog_group((int)i) < group)
            l->pending[i] = 0;
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

static int report_has(const gv_report *r, const char *id, const char *subject)
{
    for (size_t k = 0; k < r->count; k++)
        if (!strcmp(r->results[k].id, id) && !strcmp(r->results[k].subject, subject))
            return 1;
    return 0;
}

/* A row from the lane's worker; one for a check it was not given (a judge a later worker
 * brought in again) is the node's first worker's to make, and dropped. */
static void take_row(lane *l, json_t *o)
{
    client *c = l->c;
    gv_check_result row;
    if (gv_result_from_json(c->ctx, o, &row) != GV_OK)
        return;
    int index = lane_index(l, row.id);
    /* A judge a lane's worker brought in (driver.cuda when cuInit failed there) counts when it
     * found something the node's worker did not: its SKIPs must not pass the node. */
    if (!l->accept_any && (index < 0 || !l->assigned[index]) &&
        ((row.verdict != GV_FAIL && row.verdict != GV_ERROR) ||
         report_has(c->report, row.id, row.subject)))
        return;
    if (index >= 0)
        l->rows[index]++;
    gv_check_result *res =
        gv_report_add(c->report, row.id, row.subject, row.verdict, "%s", row.message);
    if (res) {
        *res = row;
        /* A series that does not parse is left out; the row stands without it. */
        (void)gv_series_from_json(c->ctx, o, c->report, (size_t)(res - c->report->results));
        (void)gv_counters_from_json(c->ctx, o, c->report, (size_t)(res - c->report->results));
        gv_report_settle(c->report); /* its duration came with it */
    }
}

/* The node's worker names the GPUs it tests in lanes: a lane for each but its own, and the
 * tests across GPUs put aside until the lanes have finished. Once per run: a fresh worker
 * of the node's names them again. */
static void open_lanes(client *c, json_t *ev)
{
    json_t *gpus = json_object_get(ev, "gpus");
    size_t n = json_array_size(gpus);
    if (c->lanes_opened || n < 2 || n > GV_RUN_MAX_GPUS)
        return;
    c->lanes = calloc(n - 1, sizeof *c->lanes);
    if (!c->lanes) {
        c->failed = gv_fail(c->ctx, GV_ERR_NO_MEMORY, "out of memory opening the GPUs' lanes");
        return;
    }
    c->lanes_opened = 1;
    for (size_t k = 0; k < n; k++) {
        json_t *g = json_array_get(gpus, k);
        json_t *ord = json_object_get(g, "cuda");
        int ordinal = json_is_integer(ord) ? (int)json_integer_value(ord) : -1;
        if (ordinal < 0 || ordinal >= GV_RUN_MAX_GPUS)
            continue;
        if (k == 0) {
            /* A fresh worker of the node's tests its own GPU only: the others are the lanes'. */
            c->node.ordinal = ordinal;
            snprintf(c->node.gpus, sizeof c->node.gpus, "%d", ordinal);
            gv_worker_event_text(g, "subject", c->own_subject, sizeof c->own_subject);
            continue;
        }
        lane *l = &c->lanes[c->lane_count++];
        l->c = c;
        l->ordinal = ordinal;
        gv_worker_event_text(g, "subject", l->gpu_subject, sizeof l->gpu_subject);
        if (!l->gpu_subject[0])
            snprintf(l->gpu_subject, sizeof l->gpu_subject, "cuda%d", ordinal);
        snprintf(l->gpus, sizeof l->gpus, "%d", ordinal);
        for (size_t i = 0; i < gv_check_count; i++)
            l->pending[i] = c->plan->chosen[i] && gv_catalog_per_gpu(i);
    }
    /* Tests across GPUs, and those of one GPU judged by the others' figures. */
    int together[GV_CATALOG_MAX] = {0};
    json_t *id;
    size_t k;
    json_array_foreach(json_object_get(ev, "together"), k, id)
    {
        int index = lane_index(&c->node, json_string_value(id));
        if (index >= 0)
            together[index] = 1;
    }
    for (size_t i = 0; i < gv_check_count; i++) {
        if (c->node.pending[i] && (gv_catalog_across_gpus(i) || together[i])) {
            c->across[i] = 1;
            c->node.pending[i] = 0;
        }
        for (size_t l = 0; together[i] && l < c->lane_count; l++)
            c->lanes[l].pending[i] = 0;
    }
}

/* One event line; 0 when it is one, -1 when it is not the worker's. */
static int take_line(void *user, char *line)
{
    lane *l = user;
    client *c = l->c;
    json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const char *kind = json_string_value(json_object_get(ev, "event"));
    int ok = 1;
    if (!kind) {
        ok = 0; /* not an event: garbage */
    } else if (!strcmp(kind, "row")) {
        take_row(l, json_object_get(ev, "result"));
    } else if (!strcmp(kind, "begin")) {
        gv_worker_event_text(ev, "check", l->check, sizeof l->check);
        gv_worker_event_text(ev, "subject", l->subject, sizeof l->subject);
        l->stage[0] = '\0';
        l->began = gv_now_s();
        l->waiting_s = l->last_beat = 0;
        l->starting = 0;
        watch_clear(l);
        memset(l->gpu_done, 0, sizeof l->gpu_done);
        memset(l->gpu_first_done, 0, sizeof l->gpu_first_done);
        gv_run_observer_started(&c->observer, l->check, l->subject);
    } else if (!strcmp(kind, "beat")) {
        l->last_beat = gv_now_s();
        int gpu = gv_worker_event_gpu(ev);
        if (gpu >= 0 && l->finished_part[gpu]) /* at work again after its part */
            l->watched[gpu] = 1, l->finished_part[gpu] = 0;
        if (gpu >= 0 && l->watched[gpu])
            l->gpu_alive[gpu] = l->last_beat;
        double done = gv_worker_event_done(ev);
        if (gpu >= 0 && done > 0) {
            if (l->gpu_first_done[gpu] <= 0)
                l->gpu_first_done[gpu] = done, l->gpu_first_at[gpu] = l->last_beat;
            l->gpu_done[gpu] = done, l->gpu_done_at[gpu] = l->last_beat;
        }
    } else if (!strcmp(kind, "watch")) {
        watch_take(l, ev);
    } else if (!strcmp(kind, "done_part")) {
        int gpu = gv_worker_event_gpu(ev);
        if (gpu >= 0 && l->watched[gpu])
            l->watched[gpu] = 0, l->finished_part[gpu] = 1;
    } else if (!strcmp(kind, "wait")) {
        gv_worker_event_text(ev, "check", l->check, sizeof l->check);
        snprintf(l->subject, sizeof l->subject, "%s", l->gpu_subject);
        double s = json_number_value(json_object_get(ev, "seconds"));
        snprintf(l->stage, sizeof l->stage,
                 "waiting up to %.0f s for another gpuverify to finish with the GPUs", s);
        l->began = gv_now_s();
        l->waiting_s = s > 0 ? s : 0;
        l->last_beat = 0;
        l->starting = 0;
    } else if (!strcmp(kind, "stage")) {
        gv_worker_event_text(ev, "stage", l->stage, sizeof l->stage);
    } else if (!strcmp(kind, "group")) {
        int index = lane_index(l, json_string_value(json_object_get(ev, "check")));
        if (index >= 0)
            groups_done_before(l, gv_catalog_group(index));
        watch_clear(l);
    } else if (!strcmp(kind, "facts")) {
        take_facts(c, json_object_get(ev, "report")); /* the first worker's; the same node */
        l->starting = 0;
    } else if (!strcmp(kind, "lanes")) {
        if (is_node(l) && l->lanes_mode)
            open_lanes(c, ev);
    } else if (!strcmp(kind, "end")) {
        l->ended = 1;
    } else if (!strcmp(kind, "error")) {
        gv_worker_event_text(ev, "message", l->error, sizeof l->error);
        l->error_status = gv_worker_event_status(ev);
        l->ended = l->errored = 1;
    } else {
        ok = 0;
    }
    json_decref(ev);
    if (!ok)
        snprintf(l->garbage, sizeof l->garbage, "%.60s", line);
    return ok ? 0 : -1;
}

/* The deadline of what the lane's worker is doing now: its check's, or its last sign of life
 * plus the context's deadline when that comes first, or the moment a GPU's pace showed it
 * cannot finish in the check's time; capped by the run's budget. The budget cap comes a
 * moment late, so that a check that keeps the budget itself (NCCL aborts its communicators)
 * reports first; the kill is the backstop. */
#define BUDGET_GRACE_S 0.25
/* A GPU's pace is that of its work after its first piece (which paid for the set-up: on a busy
 * host, or with the memory to map, it alone would say a healthy GPU crawls). It is judged once
 * a deadline of the check's work went by, and only when it says the check needs this many
 * times its time; short of that, the check's own time judges. */
#define PACE_MARGIN 1.5

/* When GPU g's work would end, from the check's start, at its pace so far; 0 when it has no
 * pace yet (fewer than two pieces done). */
static double paced_total(const lane *l, int g)
{
    double done = l->gpu_done[g], first = l->gpu_first_done[g];
    if (done <= first || done >= 1)
        return 0;
    double per_fraction = (l->gpu_done_at[g] - l->gpu_first_at[g]) / (done - first);
    return l->gpu_done_at[g] + (1 - done) * per_fraction - l->began;
}

static double deadline_now(lane *l)
{
    client *c = l->c;
    double unit = c->ctx->deadline_s, own;
    l->by_liveness = l->by_pace = 0;
    l->late_gpu = l->slow_gpu = -1;
    if (l->waiting_s > 0) {
        own = l->began + l->waiting_s + unit; /* the wait, then a unit until the check begins */
    } else if (l->starting) {
        /* A lane's worker gathers the facts first: cuInit's deadline. */
        own = l->began + gv_catalog_deadline(c->ctx, c->plan, gv_catalog_index(gv_id_driver_cuda));
    } else {
        double limit = gv_catalog_deadline(c->ctx, c->plan, gv_catalog_index(l->check));
        own = l->began + limit;
        /* A check that watches its GPUs is held to their beats while it does, and between
         * its watched parts (host work, NCCL's set-up) to its own deadline only. */
        if (!l->watching && l->last_beat > 0 && l->last_beat + unit < own) {
            own = l->last_beat + unit;
            l->by_liveness = 1;
        }
        double allowed = unit + l->watch_allow_s;
        for (int g = 0; g < GV_RUN_MAX_GPUS; g++)
            if (l->watched[g] && l->gpu_alive[g] + allowed <= own) {
                own = l->gpu_alive[g] + allowed;
                l->by_liveness = 1;
                l->late_gpu = g;
            }
        for (int g = 0; g < GV_RUN_MAX_GPUS; g++) {
            if (paced_total(l, g) <= PACE_MARGIN * limit)
                continue;
            double sure = fmax(l->began + unit, l->gpu_done_at[g]);
            if (sure < own) {
                own = sure;
                l->by_pace = 1;
                l->by_liveness = 0;
                l->late_gpu = -1;
                l->slow_gpu = g;
            }
        }
    }
    double budget = c->budget_end + BUDGET_GRACE_S;
    l->by_budget = budget < own;
    return l->by_budget ? budget : own;
}

static const char *where_now(const lane *l, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s%s%s", l->check, l->subject[0] ? " on " : "", l->subject,
             l->stage[0] ? ", in " : "", l->stage);
    return out;
}

/* The entry a stopped worker's row goes to: the check it was in, or, when that one has its
 * row already (a worker that died twice where the facts are gathered), the lane's first
 * pending entry. -1 when nothing is left to give it to. */
static int stopped_entry(lane *l)
{
    int index = lane_index(l, l->check);
    if (index >= 0 && (l->pending[index] || (l->accept_any && !l->rows[index])))
        return index;
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i])
            return (int)i;
    return index;
}

/* The subject of the row for a stopped worker: a lane's rows are its GPU's, whatever the worker
 * was at (the facts, on "node"). */
static const char *stopped_subject(const lane *l)
{
    return !is_node(l) || !l->subject[0] ? l->gpu_subject : l->subject;
}

/* What a hang asks for: a call into the driver that never returned leaves the GPU it was on to
 * be reset (NVIDIA's first step after a hang, as for Xids of a GPU that stopped); one on the
 * node's own subject (NVML's start, a NIC, a file) names no GPU to reset, and a worker the
 * kernel would not let die is stuck in the driver where no GPU reset reaches: a reboot. */
static int32_t hang_action(const lane *l, int reaped)
{
    if (!reaped || !strcmp(stopped_subject(l), "node"))
        return GV_ACTION_REBOOT_NODE;
    return GV_ACTION_RESET_GPU;
}

/* The row for the check a worker was stopped in, on `subject` (NULL: stopped_subject's). */
static void stopped_row_on(lane *l, const char *subject, int verdict, int32_t action,
                           const char *why, const char *remedy, double spent)
{
    int index = stopped_entry(l);
    const char *id = index >= 0 ? gv_checks[index].id : l->check;
    gv_check_result *res =
        gv_report_add(l->c->report, id, subject ? subject : stopped_subject(l), verdict, "%s", why);
    if (res)
        res->duration_s = spent;
    if (remedy)
        gv_result_remedy(res, "%s", remedy);
    gv_result_action(res, action);
    if (index >= 0)
        l->pending[index] = 0;
}

static void stopped_row(lane *l, int verdict, int32_t action, const char *why, const char *remedy,
                        double spent)
{
    stopped_row_on(l, NULL, verdict, action, why, remedy, spent);
}

/* The subject of CUDA device `ordinal`: its GPU's, as the worker names it (checks/active.h). */
static void gpu_subject_of(const client *c, int ordinal, char *out, size_t cap)
{
    for (uint32_t k = 0; k < c->report->gpu_count; k++)
        if (c->report->gpus[k].cuda_index == ordinal) {
            snprintf(out, cap, "gpu%u", c->report->gpus[k].index);
            return;
        }
    snprintf(out, cap, "cuda%d", ordinal);
}

/* After a watched GPU's deadline passed (late_gpu): the GPUs that stopped, those watched that
 * showed no sign of life in the later half of that deadline. They are named when a GPU of the
 * check went on (beat lately, or finished its part) or the check watched that GPU alone; when
 * every GPU stopped together nobody can tell which held the others up (NCCL's ranks wait for
 * each other), and none is. */
static void name_hung(lane *l)
{
    double unit = l->c->ctx->deadline_s + l->watch_allow_s, at = l->gpu_alive[l->late_gpu] + unit;
    size_t went_on = 0;
    l->hung_count = 0;
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++) {
        if (l->watched[g] && l->gpu_alive[g] <= at - unit / 2)
            l->hung[l->hung_count++] = g;
        else if (l->watched[g] || l->finished_part[g])
            went_on++;
    }
    if (!went_on && l->hung_count > 1)
        l->hung_count = 0;
}

/* The GPUs the run tests, as --gpus names them: the facts' CUDA ordinals the plan chose (every
 * one when it names none). */
static void tested_gpus(const client *c, char *out, size_t cap)
{
    out[0] = '\0';
    for (uint32_t k = 0; k < c->report->gpu_count; k++) {
        int ordinal = c->report->gpus[k].cuda_index;
        if (ordinal < 0 || ordinal >= GV_RUN_MAX_GPUS ||
            (c->plan->opts.gpus && !c->plan->gpu_chosen[ordinal]))
            continue;
        char one[16];
        snprintf(one, sizeof one, "%s%d", out[0] ? "," : "", ordinal);
        gv_append(out, cap, "", one);
    }
}

/* The lane's --gpus without the GPUs named hung; how many are left. */
static size_t drop_hung(lane *l)
{
    char kept[sizeof l->gpus] = "";
    size_t left = 0;
    for (char *p = l->gpus; *p;) {
        char *end = NULL;
        long g = strtol(p, &end, 10);
        if (end == p)
            break;
        int hung = 0;
        for (size_t k = 0; k < l->hung_count; k++)
            hung |= l->hung[k] == g;
        if (!hung) {
            char one[16];
            snprintf(one, sizeof one, "%s%ld", left ? "," : "", g);
            gv_append(kept, sizeof kept, "", one);
            left++;
        }
        p = *end == ',' ? end + 1 : end;
    }
    snprintf(l->gpus, sizeof l->gpus, "%s", kept);
    return left;
}

static int any_pending(const int *pending)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (pending[i])
            return 1;
    return 0;
}

/* Starts a worker for what the lane has pending; the first pending check is where it starts. */
static gv_status start(lane *l)
{
    client *c = l->c;
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i]) {
            /* Until it says otherwise the node's worker is gathering facts, NVML first. */
            snprintf(l->check, sizeof l->check, "%s",
                     is_node(l) && !c->have_facts ? gv_id_driver_nvml : gv_checks[i].id);
            break;
        }
    snprintf(l->subject, sizeof l->subject, "%s", l->gpu_subject);
    snprintf(l->stage, sizeof l->stage, "starting gpuverify-worker");
    l->began = gv_now_s();
    l->waiting_s = l->last_beat = 0;
    watch_clear(l);
    l->starting = !is_node(l);
    l->ended = 0;
    l->error[0] = l->garbage[0] = '\0';
    l->errored = 0;
    l->accept_any = is_node(l) && l->workers == 0 && !c->across_started;
    memcpy(l->assigned, l->pending, sizeof l->assigned);
    l->workers++;
    gv_run_plan plan = *c->plan;
    plan.lanes = l->lanes_mode;
    if (l->gpus[0])
        plan.opts.gpus = l->gpus;
    double left = c->budget_end - gv_now_s();
    char **argv = gv_worker_argv(c->ctx, &plan, l->pending, left > 0.001 ? left : 0.001, c->worker);
    if (!argv)
        return gv_fail(c->ctx, GV_ERR_NO_MEMORY, "out of memory starting gpuverify-worker");
    char why[PATH_MAX + 128];
    gv_status s = gv_worker_spawn(c->worker, argv, &l->p, why, sizeof why);
    gv_worker_argv_free(argv);
    if (s != GV_OK)
        return gv_fail(c->ctx, s, "%s", why);
    l->running = 1;
    return GV_OK;
}

#define HANG_REMEDY                                                                                \
    "drain the node: a call into the NVIDIA driver did not return; check dmesg for Xid errors, "   \
    "then reset the GPU or reboot"

/* The rows of a check stopped because GPUs in it made no progress: a FAIL on each of them, and
 * for a check across GPUs a word on the others, which it did not finish judging. */
/* After the GPUs in `named` stopped a check across GPUs: a SKIP on the node for the others,
 * when it had others. */
static void others_row(lane *l, int index, const char *named, const char *what, double spent)
{
    size_t others = 0;
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++)
        others += (l->watched[g] || l->finished_part[g]) != 0;
    if (index < 0 || others <= l->hung_count)
        return;
    gv_check_result *res =
        gv_report_add(l->c->report, gv_checks[index].id, "node", GV_SKIP,
                      "not judged on the other GPUs: stopped when %s %s", named, what);
    if (res)
        res->duration_s = spent;
}

static void hung_gpu_rows(lane *l, const char *where, double spent, double planned,
                          const char *how_stopped, int reaped)
{
    client *c = l->c;
    char named[GV_RUN_MAX_GPUS * 12] = "", why[800];
    int index = stopped_entry(l);
    for (size_t k = 0; k < l->hung_count; k++) {
        char subject[48];
        gpu_subject_of(c, l->hung[k], subject, sizeof subject);
        gv_append(named, sizeof named, ", ", subject);
        snprintf(why, sizeof why,
                 "no progress on %s for %.1f s in %s, after %.1f s of its %.0f s (worker %s)",
                 subject, gv_now_s() - l->gpu_alive[l->hung[k]], where, spent, planned,
                 how_stopped);
        int32_t action = reaped ? GV_ACTION_RESET_GPU : GV_ACTION_REBOOT_NODE;
        if (k == 0) {
            stopped_row_on(l, subject, GV_FAIL, action, why, HANG_REMEDY, spent);
        } else if (index >= 0) {
            gv_check_result *res =
                gv_report_add(c->report, gv_checks[index].id, subject, GV_FAIL, "%s", why);
            if (res)
                res->duration_s = spent;
            gv_result_remedy(res, "%s", HANG_REMEDY);
            gv_result_action(res, action);
        }
    }
    others_row(l, index, named, "made no progress", spent);
}

/* At the check's own deadline: whether it was still making progress (each GPU it watches beat
 * within the deadline, short of the end of its work; watching none, its last beat did). Then
 * it is too slow, not hung. A GPU that did all its work and is held in its teardown is not. */
static int still_going(const lane *l, double now)
{
    double unit = l->c->ctx->deadline_s + l->watch_allow_s;
    if (!l->watching)
        return l->last_beat > 0 && now - l->last_beat < unit;
    int any = 0;
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++)
        if (l->watched[g]) {
            if (now - l->gpu_alive[g] >= unit || l->gpu_done[g] >= 1)
                return 0;
            any = 1;
        }
    return any;
}

/* The GPU a stall is charged to: the one whose pace set the deadline, else the watched GPU that
 * got least far, else the only one watched; -1 when none can be told. */
static int slowest_gpu(const lane *l)
{
    if (l->slow_gpu >= 0)
        return l->slow_gpu;
    int slowest = -1, watched = 0, only = -1;
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++) {
        if (!l->watched[g])
            continue;
        watched++;
        only = g;
        if (l->gpu_done[g] > 0 && (slowest < 0 || l->gpu_done[g] < l->gpu_done[slowest]))
            slowest = g;
    }
    return slowest >= 0 ? slowest : watched == 1 ? only : -1;
}

#define SLOW_REMEDY                                                                                \
    "a GPU this slow holds back every job on it: read its clocks and throttle reasons "            \
    "(nvidia-smi -q -d PERFORMANCE,CLOCK), its temperature and PCIe link (-d TEMPERATURE,PCI), "   \
    "and drain it until they are understood"

/* A check that went on too slowly to finish in its time (its pace said so, or its time ran out
 * while its GPUs still beat): a stall, charged to the slow GPU as one for inspection, not a
 * hang to reset. */
static void slow_rows(lane *l, const char *where, double spent, const char *how_stopped)
{
    client *c = l->c;
    double limit = gv_catalog_deadline(c->ctx, c->plan, gv_catalog_index(l->check));
    double now = gv_now_s();
    int g = slowest_gpu(l), index = stopped_entry(l);
    char subject[48], why[800];
    snprintf(subject, sizeof subject, "%s", stopped_subject(l));
    if (g >= 0)
        gpu_subject_of(c, g, subject, sizeof subject);
    double need = g >= 0 ? paced_total(l, g) : 0;
    if (need > 0) {
        double seen = l->gpu_done_at[g] - l->began;
        snprintf(why, sizeof why,
                 "too slow: %s had done %.0f%% of its work after %.1f s and was still at it (last "
                 "progress %.1f s before); at that pace it needs %.0f s, %.1fx the check's %.0f s, "
                 "in %s (worker %s)",
                 subject, 100 * l->gpu_done[g], seen, now - l->gpu_done_at[g], need, need / limit,
                 limit, where, how_stopped);
    } else {
        double last = g >= 0 ? l->gpu_alive[g] : l->last_beat;
        char part[64] = "";
        if (g >= 0 && l->gpu_done[g] > 0)
            snprintf(part, sizeof part, " (%s had done %.0f%% of its work)", subject,
                     100 * l->gpu_done[g]);
        snprintf(why, sizeof why,
                 "too slow: not finished in the check's %.0f s%s though still making progress "
                 "(last %.1f s before), in %s (worker %s)",
                 limit, part, now - last, where, how_stopped);
    }
    stopped_row_on(l, subject, GV_FAIL, GV_ACTION_HW_INSPECT, why, SLOW_REMEDY, spent);
    if (g >= 0) {
        l->hung[0] = g;
        l->hung_count = 1;
        others_row(l, index, subject, "was too slow", spent);
    }
}

/* After one worker of the lane: rows for what stopped it, and whether a fresh one follows. */
static void conclude(lane *l, enum outcome how, int reaped, int status, double spent)
{
    client *c = l->c;
    char where[400], why[800], ended[96];
    where_now(l, where, sizeof where);
    const char *how_stopped = reaped ? "stopped" : "killed, stuck in the kernel";
    if (how == ENDED) {
        /* A GPU's check that ended without its row (the GPU gone between the node's facts and
         * the lane's): never silently none. */
        if (!is_node(l))
            for (size_t i = 0; i < gv_check_count; i++)
                if (l->pending[i] && !l->rows[i])
                    gv_result_action(
                        gv_report_add(c->report, gv_checks[i].id, l->gpu_subject, GV_ERROR,
                                      "not run: the worker testing %s ended without a row for it "
                                      "(see driver.gpu_count and driver.cuda)",
                                      l->gpu_subject),
                        GV_ACTION_RERUN);
        groups_done_before(l, GV_CATALOG_MAX);
    } else if (how == FAILED) {
        /* The node's first worker could not make the run: the caller gets the error. Any
         * later worker's refusal costs its lane's checks only. */
        if (is_node(l) && l->workers == 1 && !c->across_started)
            /* An argument it refuses is the caller's (a GPU the node does not have), said as
             * gv_run in this process says it; anything else is the worker's. */
            c->failed = gv_fail(
                c->ctx, l->error_status, "%s%s",
                l->error_status == GV_ERR_INVALID_ARG ? "" : "gpuverify-worker: ", l->error);
        else
            close_pending(l, GV_ERROR, GV_ACTION_RERUN,
                          "not run: gpuverify-worker refused them: %s", l->error);
    } else if (how == TIMED_OUT && l->by_budget) {
        /* Its own deadline had not passed: slow or hung, nobody can tell. Not a FAIL of the
         * hardware, and never a PASS. */
        snprintf(why, sizeof why,
                 "not finished within the run's budget of %.0f s: stopped after %.1f s in %s "
                 "(worker %s)",
                 c->plan->budget_s, spent, where, how_stopped);
        stopped_row(l, GV_ERROR, GV_ACTION_RERUN, why,
                    "raise the run's budget (gv_run_opts.budget_s, --budget) or select fewer "
                    "checks",
                    spent);
        close_pending(l, GV_ERROR, GV_ACTION_RERUN, "not run: the run's budget of %.0f s was spent",
                      c->plan->budget_s);
    } else if (how == TIMED_OUT) {
        int index = gv_catalog_index(l->check);
        double planned = index >= 0 && gv_checks[index].loads_for_duration
                             ? c->plan->stress_s
                             : gv_catalog_deadline(c->ctx, c->plan, index);
        l->hung_count = 0;
        if (l->by_liveness && l->late_gpu >= 0)
            name_hung(l);
        if (l->hung_count) {
            hung_gpu_rows(l, where, spent, planned, how_stopped, reaped);
        } else if (l->by_pace || (!l->by_liveness && still_going(l, gv_now_s()))) {
            slow_rows(l, where, spent, how_stopped);
        } else {
            if (l->by_liveness)
                snprintf(why, sizeof why,
                         "no progress for %.1f s in %s, after %.1f s of its %.0f s (worker %s)",
                         gv_now_s() - (l->late_gpu >= 0 ? l->gpu_alive[l->late_gpu] : l->last_beat),
                         where, spent, planned, how_stopped);
            else
                snprintf(why, sizeof why, "timed out after %.1f s in %s (worker %s)", spent, where,
                         how_stopped);
            stopped_row(l, GV_FAIL, hang_action(l, reaped), why, HANG_REMEDY, spent);
        }
        if (is_node(l) && c->lanes_opened && index >= 0 && gv_catalog_per_gpu((size_t)index))
            c->own_gpu_hung = 1;
        /* Tests across GPUs go on without the GPUs that hung, in a fresh worker. */
        if (l->hung_count && is_node(l) && index >= 0 && gv_catalog_across_gpus((size_t)index) &&
            any_pending(l->pending) && l->workers < MAX_WORKERS) {
            if (!l->gpus[0])
                tested_gpus(c, l->gpus, sizeof l->gpus);
            if (drop_hung(l) > 0) {
                l->lanes_mode = 0;
                gv_report_settle(c->report);
                return;
            }
        }
        close_pending(l, GV_SKIP, GV_ACTION_NONE,
                      "not run: the worker was stopped after %s timed out%s%s", l->check,
                      is_node(l) ? "" : " on ", is_node(l) ? "" : l->gpu_subject);
        l->timed_out = 1;
    } else if (how == GARBLED) {
        snprintf(why, sizeof why,
                 "gpuverify-worker wrote something that is not its protocol during %s: \"%s\" "
                 "(a mismatched or broken worker at %s)",
                 where, l->garbage, c->worker);
        /* A worker of another build, or a broken one: the installation, not the node. */
        stopped_row(l, GV_ERROR, GV_ACTION_FIX_CONFIG, why, NULL, spent);
        close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: the worker's output could not be read");
    } else {
        gv_worker_end_text(status, ended, sizeof ended);
        snprintf(why, sizeof why, "worker %s during %s", reaped ? ended : "vanished", where);
        /* The checks of its group that sent their rows are done; the rest, and every check
         * after, go to a fresh worker. */
        stopped_row(l, GV_ERROR, GV_ACTION_RERUN, why, NULL, spent);
        int group = gv_catalog_group(gv_catalog_index(l->check));
        for (size_t i = 0; i < gv_check_count; i++)
            if (l->pending[i] && l->rows[i] && gv_catalog_group((int)i) == group)
                l->pending[i] = 0;
        if (any_pending(l->pending) && l->workers >= MAX_WORKERS)
            close_pending(l, GV_ERROR, GV_ACTION_RERUN, "not run: %d workers in a row died",
                          MAX_WORKERS);
    }
    gv_report_settle(c->report); /* rows made here carry their own durations */
    if (how != DIED || !any_pending(l->pending))
        l->finished = 1;
}

/* Ends the lane's current worker after `how`. */
static void stop_worker(lane *l, enum outcome how)
{
    double spent = gv_now_s() - l->began;
    int status = 0;
    int reaped = gv_worker_stop_by(&l->p, how != ENDED, 1.0, l->c->budget_end + 0.75, &status);
    gv_line_reader_free(&l->reader);
    l->running = 0;
    conclude(l, how, reaped, status, spent);
}

static enum outcome outcome_of(lane *l, enum gv_read_end end)
{
    if (end == GV_READ_TOO_LONG)
        snprintf(l->garbage, sizeof l->garbage, "a line longer than %u bytes", GV_READ_MAX_LINE);
    if (l->errored)
        return FAILED;
    return end == GV_READ_DEADLINE                             ? TIMED_OUT
           : end == GV_READ_GARBLED || end == GV_READ_TOO_LONG ? GARBLED
           : end == GV_READ_EOF && l->ended                    ? ENDED
                                                               : DIED;
}

static int lanes_done(const client *c)
{
    if (c->node.running || !c->node.finished)
        return 0;
    for (size_t k = 0; k < c->lane_count; k++)
        if (c->lanes[k].running || !c->lanes[k].finished)
            return 0;
    return 1;
}

/* The tests across GPUs, once every lane has finished: in the node's lane again, on the GPUs
 * whose lanes did not hang. */
static void start_across(client *c)
{
    lane *n = &c->node;
    c->across_started = 1;
    char gpus[sizeof n->gpus] = "";
    int left = 0;
    for (size_t k = 0; k <= c->lane_count; k++) {
        const lane *l = k == 0 ? n : &c->lanes[k - 1];
        /* A GPU whose own tests hung is left out; the node's worker may have hung at a node
         * check (a file, a NIC), which costs its GPU nothing. */
        int hung = k == 0 ? c->own_gpu_hung : l->timed_out;
        if (hung) {
            /* The tests of one GPU among these (gemm.* judged by its peers) get their row. */
            for (size_t i = 0; i < gv_check_count; i++)
                if (c->across[i] && gv_catalog_per_gpu(i))
                    gv_report_add(c->report, gv_checks[i].id,
                                  k == 0 ? c->own_subject : l->gpu_subject, GV_SKIP,
                                  "not run: the GPU's own tests timed out");
            continue;
        }
        char text[8];
        snprintf(text, sizeof text, "%s%d", gpus[0] ? "," : "", l->ordinal);
        gv_append(gpus, sizeof gpus, "", text);
        left++;
    }
    memcpy(n->pending, c->across, sizeof n->pending);
    memset(c->across, 0, sizeof c->across);
    memset(n->rows, 0, sizeof n->rows);
    if (gv_now_s() >= c->budget_end) {
        close_pending(n, GV_ERROR, GV_ACTION_RERUN, "not run: the run's budget of %.0f s was spent",
                      c->plan->budget_s);
        return;
    }
    if (!left) {
        close_pending(n, GV_SKIP, GV_ACTION_NONE,
                      "not run: every GPU's own tests timed out (see their rows)");
        return;
    }
    snprintf(n->gpus, sizeof n->gpus, "%s", gpus);
    n->lanes_mode = 0;
    n->workers = 0;
    n->finished = 0;
    n->timed_out = 0;
}

/* Starts a worker for every lane that has checks left and none running. */
static void start_lanes(client *c)
{
    if (c->failed != GV_OK)
        return;
    if (any_pending(c->across) && lanes_done(c))
        start_across(c);
    for (size_t k = 0; k <= c->lane_count; k++) {
        lane *l = k == 0 ? &c->node : &c->lanes[k - 1];
        if (l->running || l->finished)
            continue;
        if (!any_pending(l->pending)) {
            l->finished = 1;
            continue;
        }
        if (start(l) == GV_OK)
            continue;
        if (is_node(l) && l->workers == 1 && !c->across_started) {
            c->failed = GV_ERR_LIBRARY; /* nothing ran: the caller gets the error */
            return;
        }
        close_pending(l, GV_ERROR, GV_ACTION_RERUN, "not run: %s", gv_ctx_last_error(c->ctx));
        l->finished = 1;
    }
}

/* Reads every running worker until each lane has finished. */
static void drive(client *c)
{
    for (;;) {
        start_lanes(c);
        if (c->failed != GV_OK)
            break;
        struct pollfd fds[GV_RUN_MAX_GPUS + 1];
        lane *of[GV_RUN_MAX_GPUS + 1];
        size_t n = 0;
        double now = gv_now_s(), next = INFINITY;
        lane *expired[GV_RUN_MAX_GPUS + 1];
        size_t n_expired = 0;
        int drained_any = 0;
        for (size_t k = 0; k <= c->lane_count; k++) {
            lane *l = k == 0 ? &c->node : &c->lanes[k - 1];
            if (!l->running)
                continue;
            double limit = deadline_now(l);
            /* What the worker sent while this process was not scheduled counts before the
             * deadline does: a loaded host must not turn a late read into a hang. */
            if (now >= limit && !l->drained) {
                struct pollfd one = {.fd = l->p.fd, .events = POLLIN};
                l->drained = 1;
                if (poll(&one, 1, 0) > 0) {
                    enum gv_read_end end = gv_line_reader_feed(&l->reader, l->p.fd, take_line, l);
                    if (end != GV_READ_MORE)
                        stop_worker(l, outcome_of(l, end));
                    drained_any = 1;
                    continue;
                }
            }
            if (now >= limit) {
                expired[n_expired++] = l;
                continue;
            }
            l->drained = 0;
            next = limit < next ? limit : next;
            fds[n] = (struct pollfd){.fd = l->p.fd, .events = POLLIN};
            of[n++] = l;
        }
        if (drained_any)
            continue; /* the deadlines again, with what was read */
        if (n_expired) {
            /* All killed first, then reaped: hangs on several GPUs at once (the budget's end)
             * cost the caller one wait, not one each. */
            for (size_t k = 0; k < n_expired; k++)
                kill(-expired[k]->p.pid, SIGKILL);
            /* One that said "end" (or "error") and then would not exit ended all the same. */
            for (size_t k = 0; k < n_expired; k++)
                stop_worker(expired[k], expired[k]->errored ? FAILED
                                        : expired[k]->ended ? ENDED
                                                            : TIMED_OUT);
            continue; /* a fresh look: what follows the stopped workers may start now */
        }
        if (!n)
            break;
        double wait_ms = ceil((next - now) * 1000.0);
        if (poll(fds, (nfds_t)n, wait_ms > 60000 ? 60000 : (int)wait_ms) <= 0)
            continue; /* EINTR or no data yet: the loop's head decides about the deadlines */
        for (size_t i = 0; i < n; i++) {
            if (!fds[i].revents)
                continue;
            enum gv_read_end end = gv_line_reader_feed(&of[i]->reader, fds[i].fd, take_line, of[i]);
            if (end != GV_READ_MORE)
                stop_worker(of[i], outcome_of(of[i], end));
        }
    }
    /* An error that ends the run: no worker is left behind. */
    for (size_t k = 0; k <= c->lane_count; k++) {
        lane *l = k == 0 ? &c->node : &c->lanes[k - 1];
        if (l->running) {
            gv_worker_stop(&l->p, 1, 0, NULL);
            gv_line_reader_free(&l->reader);
            l->running = 0;
        }
    }
}

/* Rows made here (a hang, a crash, the budget) and rows read back pass the same last word as
 * the worker's own: a row's action (checks/actions.h). */
static void settle_row(void *user, gv_check_result *row)
{
    (void)user;
    gv_action_settle(row);
}

static client *client_new(gv_ctx *ctx, const gv_run_plan *plan, const char *worker)
{
    client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ctx = ctx;
    c->plan = plan;
    c->worker = worker;
    c->budget_end = gv_now_s() + plan->budget_s;
    c->node.c = c;
    c->node.ordinal = -1;
    c->node.lanes_mode = 1;
    snprintf(c->node.gpu_subject, sizeof c->node.gpu_subject, "node");
    memcpy(c->node.pending, plan->chosen, sizeof c->node.pending);
    c->report = gv_report_blank(ctx);
    if (!c->report) {
        free(c);
        return NULL;
    }
    gv_report_stamp(c->report, plan->level->name, plan->budget_s, (long long)time(NULL));
    c->report->finalize = settle_row;
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
    r->finalize = NULL;
    r->duration_s = gv_now_s() - t0;
    free(c->lanes);
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
    drive(c);
    return client_finish(c, c->failed, t0, out);
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
    lane *l = &c->node;
    snprintf(l->check, sizeof l->check, "%s", gv_id_driver_nvml);
    l->accept_any = 1;
    l->workers = 1;
    memcpy(l->assigned, l->pending, sizeof l->assigned);
    enum outcome how = gv_worker_take_lines(buf, &len, take_line, l) != 0 ? GARBLED
                       : l->errored                                       ? FAILED
                       : l->ended                                         ? ENDED
                                                                          : DIED;
    free(buf);
    /* A replay has no worker to start again: what a crash left pending is not run. */
    conclude(l, how, 1, 0, 0);
    if (how == DIED)
        close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: the worker's output ends here");
    for (size_t k = 0; k < c->lane_count; k++)
        close_pending(&c->lanes[k], GV_SKIP, GV_ACTION_NONE, "not run: a replay runs no lane");
    memcpy(l->pending, c->across, sizeof l->pending);
    close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: a replay runs no lane");
    return client_finish(c, c->failed, t0, out);
}
