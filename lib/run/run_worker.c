/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker: the caller's side, the workers' supervision: starting them,
 * their deadlines, the loop that reads them until every lane has finished. The events they send
 * are taken in run_worker_events.c, the rows a stopped one leaves made in run_worker_rows.c
 * (their lane: run_worker_lane.h).
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
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/checks.h"
#include "core/util.h"
#include "report/report.h"
#include "run/run_events.h"
#include "run/run_worker.h"
#include "run/run_worker_lane.h"
#include "run/worker_args.h"
#include "worker/lines.h"
#include "worker/protocol.h"
#include "worker/spawn.h"
#include "worker/worker.h"

_Static_assert(GV_PROGRESS_MAX_GPUS == GV_RUN_MAX_GPUS, "a watch names the GPUs a run can test");

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

double gv_lane_paced_total(const lane *l, int g)
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
    l->by_liveness = l->by_pace = l->by_reserve = 0;
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
            if (gv_lane_paced_total(l, g) <= PACE_MARGIN * limit)
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
    if (l->ended && l->ended_at + GV_WORKER_EXIT_GRACE_S < own)
        own = l->ended_at + GV_WORKER_EXIT_GRACE_S; /* its last word came: only its exit is left */
    /* A start that began within the reserve has no time to leave the rest by stopping: the
     * budget judges it (libibverbs' start for nccl.transport, late in a run that waited). */
    double reserve_end = c->budget_end - start_reserve_s(c);
    if (!c->reserve_taken && gv_lane_stopped_in_start(l) >= 0 && reserve_end < own &&
        l->start_began < reserve_end) {
        own = reserve_end;
        l->by_reserve = 1;
    }
    double budget = c->budget_end + BUDGET_GRACE_S;
    l->by_budget = budget < own;
    return l->by_budget ? budget : own;
}

/* The lanes' GPUs for a worker's --gpus ("0,2,3"), less those left out of the tests across
 * GPUs (gpu_left_out) when skip_hung; how many. */
static int lanes_gpus(const client *c, int skip_hung, char *gpus, size_t cap)
{
    int n = 0;
    gpus[0] = '\0';
    for (size_t k = 0; k <= c->lane_count; k++) {
        const lane *l = k == 0 ? &c->node : &c->lanes[k - 1];
        if (skip_hung && gpu_left_out(l))
            continue;
        char text[8];
        snprintf(text, sizeof text, "%s%d", gpus[0] ? "," : "", l->ordinal);
        gv_append(gpus, cap, "", text);
        n++;
    }
    return n;
}

void gv_lane_plan_without(const client *c, gv_run_plan *plan)
{
    for (int k = 0; k < GV_LIBRARY_KINDS; k++)
        plan->without[k] = c->without[k][0] ? c->without[k] : NULL;
    plan->without_nvml_gpus = c->without_nvml_gpus[0] ? c->without_nvml_gpus : NULL;
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
    gv_lane_watch_clear(l);
    l->starting = !is_node(l);
    l->ended = 0;
    l->error[0] = l->garbage[0] = '\0';
    l->errored = 0;
    l->starting_library = -1;
    l->accept_any = is_node(l) && l->workers == 0 && !c->across_started;
    memcpy(l->assigned, l->pending, sizeof l->assigned);
    l->workers++;
    l->heard = 0;
    l->adopted =
        is_node(l) ? c->across_started && gv_standby_adopt(l) == 0 : gv_spare_adopt(l) == 0;
    if (l->adopted) {
        l->running = 1;
        return GV_OK;
    }
    gv_run_plan plan = *c->plan;
    plan.lanes = l->lanes_mode;
    gv_lane_plan_without(c, &plan);
    if (l->gpus[0])
        plan.opts.gpus = l->gpus;
    double left = c->budget_end - gv_now_s();
    char **argv = gv_worker_argv(c->ctx, &plan, l->pending, left > 0.001 ? left : 0.001, c->worker);
    if (!argv)
        return gv_fail(c->ctx, GV_ERR_NO_MEMORY, "out of memory starting gpuverify-worker");
    char why[PATH_MAX + 128];
    gv_status s = gv_worker_spawn(c->worker, argv, 0, c->ctx, &l->p, why, sizeof why);
    gv_worker_argv_free(argv);
    if (s != GV_OK)
        return gv_fail(c->ctx, s, "%s", why);
    l->running = 1;
    return GV_OK;
}

/* Ends the lane's current worker after `how`. */
static void stop_worker(lane *l, enum outcome how)
{
    double spent = gv_now_s() - l->began;
    int status = 0;
    int reaped = gv_worker_stop_by(&l->p, how != ENDED, 1.0, l->c->budget_end + 0.75, &status);
    gv_line_reader_free(&l->reader);
    l->running = 0;
    /* One started on standby that died without a word was gone before it read its work, as
     * one found gone when told it would have been: a fresh worker takes its place. */
    if (how == DIED && l->adopted && !l->heard) {
        l->workers--;
        return;
    }
    gv_lane_conclude(l, how, reaped, status, spent);
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
    for (size_t k = 0; k <= c->lane_count; k++) {
        const lane *l = k == 0 ? n : &c->lanes[k - 1];
        /* A GPU whose own tests hung or crashed is left out; the tests with a row per GPU
         * (cuda.p2p, gemm.* judged by its peers) get their row there. */
        if (gpu_left_out(l))
            gv_lane_skip_left_out(c, c->across, k == 0 ? c->own_subject : l->gpu_subject,
                                  gpu_hung(l) ? "not run: the GPU's own tests timed out"
                                              : "not run: the GPU's own tests crashed every "
                                                "worker started for them");
    }
    char gpus[sizeof n->gpus];
    int left = lanes_gpus(c, 1, gpus, sizeof gpus);
    memcpy(n->pending, c->across, sizeof n->pending);
    memset(c->across, 0, sizeof c->across);
    memset(n->rows, 0, sizeof n->rows);
    if (gv_now_s() >= c->budget_end) {
        gv_standby_stop(c);
        gv_lane_close_pending(n, GV_ERROR, GV_ACTION_RERUN,
                              "not run: the run's budget of %g s was spent", c->plan->budget_s);
        return;
    }
    if (!left) {
        gv_standby_stop(c);
        gv_lane_close_pending(n, GV_SKIP, GV_ACTION_NONE,
                              "not run: every GPU's own tests timed out (see their rows)");
        return;
    }
    snprintf(n->gpus, sizeof n->gpus, "%s", gpus);
    n->lanes_mode = 0;
    n->workers = 0;
    n->finished = 0;
    n->timed_out = 0;
}

/* A run whose checks are history.* alone still gathers the node's facts in a worker: its
 * record names the node and its GPUs, and its judges find the node's earlier runs. */
static int facts_wanted(const client *c)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (c->plan->history[i])
            return 1;
    return 0;
}

/* The node's worker is at a test of one GPU without having opened lanes: it will not. */
static int node_tests_a_gpu(const client *c)
{
    int index = gv_catalog_index(c->node.check);
    return !c->lanes_opened && index >= 0 && gv_catalog_per_gpu((size_t)index);
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
        if (!any_pending(l->pending) && !(is_node(l) && !l->workers && facts_wanted(c))) {
            l->finished = 1;
            continue;
        }
        if (l->workers && gv_now_s() >= c->budget_end) {
            /* A fresh worker after one that stopped would have no time left for anything. */
            gv_lane_close_pending(l, GV_ERROR, GV_ACTION_RERUN,
                                  "not run: the run's budget of %g s was spent", c->plan->budget_s);
            l->finished = 1;
            continue;
        }
        if (start(l) == GV_OK)
            continue;
        if (is_node(l) && l->workers == 1 && !c->across_started) {
            c->failed = GV_ERR_LIBRARY; /* nothing ran: the caller gets the error */
            return;
        }
        gv_lane_close_pending(l, GV_ERROR, GV_ACTION_RERUN, "not run: %s",
                              gv_ctx_last_error(c->ctx));
        l->finished = 1;
    }
    if (!c->spares_tried && c->node.running)
        gv_spares_start(c);
    /* Past its cuInit: its facts came, or it waits after them (Xid events, a lock). */
    if (c->have_facts || c->node.waiting_s > 0)
        gv_spares_tell_cuda(c);
    /* Spares wait for the lanes the node's worker opens before its first test on a GPU; when
     * it will open none, it runs the tests across GPUs itself. */
    int no_lanes = !c->lanes_opened && (!c->node.running || node_tests_a_gpu(c));
    if (c->spare_count && (c->lanes_opened || no_lanes))
        gv_spares_stop(c);
    if (no_lanes && c->standby.pid > 0)
        gv_standby_stop(c);
    if (c->lanes_opened && !c->standby_tried && !c->across_started && any_pending(c->across)) {
        char gpus[sizeof c->node.gpus];
        lanes_gpus(c, 0, gpus, sizeof gpus);
        gv_standby_start(c, gpus, c->across);
    }
    if (c->lanes_opened && !c->across_started)
        gv_standby_prepare(c);
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
                    enum gv_read_end end =
                        gv_line_reader_feed(&l->reader, l->p.fd, gv_lane_take_line, l);
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
            enum gv_read_end end =
                gv_line_reader_feed(&of[i]->reader, fds[i].fd, gv_lane_take_line, of[i]);
            if (end != GV_READ_MORE)
                stop_worker(of[i], outcome_of(of[i], end));
        }
    }
    /* An error that ends the run: no worker is left behind. */
    gv_spares_stop(c);
    gv_standby_stop(c);
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
    c->standby = gv_no_worker;
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
    enum outcome how = gv_worker_take_lines(buf, &len, gv_lane_take_line, l) != 0 ? GARBLED
                       : l->errored                                               ? FAILED
                       : l->ended                                                 ? ENDED
                                                                                  : DIED;
    free(buf);
    /* A replay has no worker to start again: what a crash left pending is not run. */
    gv_lane_conclude(l, how, 1, 0, 0);
    if (how == DIED)
        gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: the worker's output ends here");
    for (size_t k = 0; k < c->lane_count; k++)
        gv_lane_close_pending(&c->lanes[k], GV_SKIP, GV_ACTION_NONE,
                              "not run: a replay runs no lane");
    memcpy(l->pending, c->across, sizeof l->pending);
    gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: a replay runs no lane");
    return client_finish(c, c->failed, t0, out);
}
