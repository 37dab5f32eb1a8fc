/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker, the caller's side: the rows a worker that stopped leaves,
 * one function per way it can stop (enum outcome): ended, refused the run, stopped at the budget,
 * at its check's deadline (GPUs that hung, a check too slow), wrote garbage, died; and whether a
 * fresh worker follows. Every check the plan chose ends with a row. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/report.h"
#include "run/run_worker_lane.h"
#include "worker/worker.h"

/* The subject of a row made for entry i of the lane: its GPU's; for the node's lane, the
 * GPU it tests itself when the entry is a test of one GPU and lanes are open. */
static const char *subject_of(const lane *l, size_t i)
{
    return is_node(l) && l->c->lanes_opened && gv_catalog_per_gpu(i) ? l->c->own_subject
                                                                     : l->gpu_subject;
}

/* The node's worker that tested its GPUs itself (one GPU: no lanes) left test i unrun: a row
 * on each of those GPUs, as the test's own would be (on "node" every GPU's verdict read
 * PASS). How many. */
static int unrun_on_gpus(lane *l, size_t i, int verdict, int32_t action, const char *why)
{
    const client *c = l->c;
    const gv_report *r = c->report;
    if (!is_node(l) || c->lanes_opened || c->across_started || !gv_catalog_row_per_gpu(i))
        return 0;
    int rows = 0;
    for (size_t g = 0; g < r->gpu_count; g++) {
        int o = r->gpus[g].cuda_index;
        if (o < 0 || o >= GV_RUN_MAX_GPUS || (c->plan->opts.gpus && !c->plan->gpu_chosen[o]))
            continue;
        char subject[48];
        snprintf(subject, sizeof subject, "gpu%u", r->gpus[g].index); /* gv_gpu_subject's */
        if (!report_has(r, gv_checks[i].id, subject))
            gv_result_action(gv_report_add(c->report, gv_checks[i].id, subject, verdict, "%s", why),
                             action);
        rows++;
    }
    return rows;
}

void gv_lane_close_pending(lane *l, int verdict, int32_t action, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i]) {
            /* One that sent its rows before the worker stopped has its verdict already. */
            if (!l->rows[i] && !unrun_on_gpus(l, i, verdict, action, why))
                gv_result_action(gv_report_add(l->c->report, gv_checks[i].id, subject_of(l, i),
                                               verdict, "%s", why),
                                 action);
            l->pending[i] = 0;
        }
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

/* A row of the node for a test across GPUs names the GPUs the lane gave it (counters gpuN =
 * 1, as gv_active_row_covers' rows): a hang there stands in the history until a run over
 * those GPUs judges the test again, not a run over two of them. */
static void name_its_gpus(lane *l, int index, const gv_check_result *res)
{
    if (!res || index < 0 || !gv_catalog_across_gpus((size_t)index) || strcmp(res->subject, "node"))
        return;
    char tested[sizeof l->gpus];
    snprintf(tested, sizeof tested, "%s", l->gpus);
    if (!tested[0])
        tested_gpus(l->c, tested, sizeof tested);
    gv_counter k[GV_ROW_COUNTERS_MAX];
    uint32_t n = 0;
    for (char *p = tested, *end = NULL; *p; p = *end == ',' ? end + 1 : end) {
        long g = strtol(p, &end, 10);
        if (end == p)
            break;
        char subject[48];
        gpu_subject_of(l->c, (int)g, subject, sizeof subject);
        if (gv_subject_gpu(subject) >= 0)
            gv_counter_set(k, &n, GV_ROW_COUNTERS_MAX, subject, 1);
    }
    if (n)
        gv_report_attach_counters(l->c->report, res, k, n);
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
    name_its_gpus(l, index, res);
    if (index >= 0)
        l->pending[index] = 0;
}

static void stopped_row(lane *l, int verdict, int32_t action, const char *why, const char *remedy,
                        double spent)
{
    stopped_row_on(l, NULL, verdict, action, why, remedy, spent);
}

void gv_lane_skip_left_out(client *c, const int *checks, const char *subject, const char *why)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (checks[i] && gv_catalog_row_per_gpu(i) &&
            !report_has(c->report, gv_checks[i].id, subject))
            gv_report_add(c->report, gv_checks[i].id, subject, GV_SKIP, "%s", why);
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

/* The checks of the stopped check's group that sent their rows are done: a fresh worker that
 * goes on does not make them again. */
static void group_rows_done(lane *l)
{
    int group = gv_catalog_group(gv_catalog_index(l->check));
    for (size_t i = 0; i < gv_check_count; i++)
        if (l->pending[i] && l->rows[i] && gv_catalog_group((int)i) == group)
            l->pending[i] = 0;
}

/* After the node's worker stopped in a test across GPUs on the GPUs in l->hung (they `what`
 * it: "made no progress in"): the tests across GPUs left go on without them, in a fresh worker,
 * each of those GPUs with its row. 1 when a fresh worker follows. */
static int go_on_without(lane *l, int index, const char *what)
{
    client *c = l->c;
    if (index < 0 || !gv_catalog_across_gpus((size_t)index))
        return 0;
    group_rows_done(l);
    for (size_t k = 0; k < l->hung_count; k++) {
        char subject[48], left_out[160];
        gpu_subject_of(c, l->hung[k], subject, sizeof subject);
        snprintf(left_out, sizeof left_out, "not run: %s %s %s", subject, what, l->check);
        gv_lane_skip_left_out(c, l->pending, subject, left_out);
    }
    if (!any_pending(l->pending) || !gv_lane_may_restart(l))
        return 0;
    if (!l->gpus[0])
        tested_gpus(c, l->gpus, sizeof l->gpus);
    if (drop_hung(l) == 0)
        return 0;
    l->lanes_mode = 0;
    gv_report_settle(c->report);
    return 1;
}

/* The one GPU the check watches now, -1 when none or several. */
static int only_watched(const lane *l)
{
    int g = -1;
    for (int k = 0; k < GV_RUN_MAX_GPUS; k++)
        if (l->watched[k]) {
            if (g >= 0)
                return -1;
            g = k;
        }
    return g;
}

#define HANG_REMEDY                                                                                \
    "drain the node: a call into the NVIDIA driver did not return; check dmesg for Xid errors, "   \
    "then reset the GPU or reboot"
#define VERBS_HANG_REMEDY                                                                          \
    "drain the node: a call into libibverbs did not return (a NIC whose firmware stopped "         \
    "answering); check dmesg for mlx5 errors, then restart the RDMA stack or reboot"
/* A library's start stopped before its own deadline, for the budget (START_RESERVE_S). */
#define SILENT_REMEDY                                                                              \
    "run gpuverify-worker by hand (it prints its usage): gv_ctx_opts.worker_path or "              \
    "$GPUVERIFY_WORKER must name the gpuverify-worker installed with this library, one this host " \
    "can run"
#define START_CUT_REMEDY                                                                           \
    "a start this slow is a driver in trouble (dmesg: Xid and NVRM errors) or GPUs without "       \
    "persistence mode (driver.persistence); run with a larger budget (--budget) to let it end "    \
    "or reach its deadline"

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

/* The rows of a check stopped because GPUs in it made no progress: a FAIL on each of them, and
 * for a check across GPUs a word on the others, which it did not finish judging. */
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

/* Less than this since a GPU's last beat is progress whatever its cadence: a loaded host
 * delays beats by up to about a second (its worker and this process not scheduled). */
#define BEAT_GAP_FLOOR_S 1.0

/* A beat came lately: within twice the longest wait between its beats so far (at least
 * BEAT_GAP_FLOOR_S, at most the unit). One that beat at the check's start and then stopped has
 * stopped, however short the check's deadline is next to the unit. */
static int beat_lately(double now, double last, double gap, double unit)
{
    return last > 0 && now - last < fmin(unit, fmax(2 * gap, BEAT_GAP_FLOOR_S));
}

/* At the check's own deadline: whether it was still making progress (each GPU it watches beat
 * lately, short of the end of its work; watching none, the check did). Then it is too slow,
 * not hung. A GPU that did all its work and is held in its teardown is not. */
static int still_going(const lane *l, double now)
{
    double unit = l->c->ctx->deadline_s + l->watch_allow_s;
    if (!l->watching)
        return beat_lately(now, l->last_beat, l->beat_gap, unit);
    int any = 0;
    for (int g = 0; g < GV_RUN_MAX_GPUS; g++)
        if (l->watched[g]) {
            if (!beat_lately(now, l->gpu_alive[g], l->gpu_gap[g], unit) || l->gpu_done[g] >= 1)
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
    double need = g >= 0 ? gv_lane_paced_total(l, g) : 0;
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

/* A worker that said "end": a GPU's check that ended without its row (the GPU gone between the
 * node's facts and the lane's) is never silently none. */
static void concluded_ended(lane *l)
{
    client *c = l->c;
    if (!is_node(l))
        for (size_t i = 0; i < gv_check_count; i++)
            if (l->pending[i] && !l->rows[i])
                gv_result_action(gv_report_add(c->report, gv_checks[i].id, l->gpu_subject, GV_ERROR,
                                               "not run: the worker testing %s ended without a "
                                               "row for it (see driver.gpu_count and driver.cuda)",
                                               l->gpu_subject),
                                 GV_ACTION_RERUN);
    gv_lane_groups_done_before(l, GV_CATALOG_MAX);
}

/* A worker that sent "error". The node's first worker could not make the run: the caller gets
 * the error. Any later worker's refusal costs its lane's checks only. */
static void concluded_failed(lane *l)
{
    client *c = l->c;
    if (is_node(l) && l->workers == 1 && !c->across_started)
        /* An argument it refuses is the caller's (a GPU the node does not have), said as
         * gv_run in this process says it; anything else is the worker's. */
        c->failed =
            gv_fail(c->ctx, l->error_status, "%s%s",
                    l->error_status == GV_ERR_INVALID_ARG ? "" : "gpuverify-worker: ", l->error);
    else
        gv_lane_close_pending(l, GV_ERROR, GV_ACTION_RERUN,
                              "not run: gpuverify-worker refused them: %s", l->error);
}

/* Stopped at the run's budget, its own deadline not passed: slow or hung, nobody can tell. Not
 * a FAIL of the hardware, and never a PASS. */
static void concluded_by_budget(lane *l, const char *where, const char *how_stopped, double spent)
{
    client *c = l->c;
    char why[800];
    snprintf(why, sizeof why,
             "not finished within the run's budget of %g s: stopped after %.1f s in %s "
             "(worker %s)",
             c->plan->budget_s, spent, where, how_stopped);
    stopped_row(l, GV_ERROR, GV_ACTION_RERUN, why,
                "raise the run's budget (gv_run_opts.budget_s, --budget) or select fewer "
                "checks",
                spent);
    gv_lane_close_pending(l, GV_ERROR, GV_ACTION_RERUN,
                          "not run: the run's budget of %g s was spent", c->plan->budget_s);
}

/* Stopped at its check's deadline: GPUs that hung, a check too slow, or a hang nobody can pin
 * on a GPU. 1 when a fresh worker goes on with the tests across GPUs without the hung ones. */
static int concluded_timed_out(lane *l, const char *where, const char *how_stopped, int reaped,
                               double spent)
{
    client *c = l->c;
    char why[800];
    int index = gv_catalog_index(l->check);
    double planned = index >= 0 && gv_checks[index].loads_for_duration
                         ? c->plan->stress_s
                         : gv_catalog_deadline(c->ctx, c->plan, index);
    l->hung_count = 0;
    /* The node's worker in the Xid watch (NVML's event API), before any check. */
    int in_watch = is_node(l) && l->waiting_s > 0 && !strcmp(l->check, gv_id_gpu_xid);
    /* The node's first worker says where it is before it reads a file of the driver's or loads
     * a library (gv_facts_collect): one that said nothing at all is not gpuverify's worker, or
     * cannot run here, rather than a driver that hangs; no GPU was reached. */
    if (is_node(l) && !c->have_facts && !l->adopted && !l->heard) {
        snprintf(why, sizeof why,
                 "gpuverify-worker (%s) said nothing in the %.1f s after it was started (worker "
                 "%s): it is not the worker of this library, or cannot run here",
                 c->worker, spent, how_stopped);
        stopped_row(l, GV_ERROR, GV_ACTION_FIX_CONFIG, why, SILENT_REMEDY, spent);
        gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE,
                              "not run: gpuverify-worker said nothing after it was started");
        l->timed_out = 1;
        return 0;
    }
    int library = gv_lane_stopped_in_start(l);
    if (library >= 0)
        group_rows_done(l); /* nccl.version, before libibverbs' start in nccl.transport */
    if (library >= 0 && l->by_reserve) {
        c->reserve_taken = 1;
        snprintf(why, sizeof why,
                 "not finished after %.1f s in %s, of its %.0f s: stopped %.1f s before the "
                 "end of the run's budget of %g s so that the other checks ran without it "
                 "(worker %s)",
                 spent, where, planned, start_reserve_s(c), c->plan->budget_s, how_stopped);
        gv_lane_hung_in_start(l, GV_ERROR, why, GV_ACTION_RERUN, START_CUT_REMEDY, spent);
        return 1;
    }
    if (library >= 0) {
        snprintf(why, sizeof why, "timed out after %.1f s in %s (worker %s)", spent, where,
                 how_stopped);
        gv_lane_hung_in_start(l, GV_FAIL, why, hang_action(l, reaped),
                              library == GV_LIB_IBVERBS ? VERBS_HANG_REMEDY : HANG_REMEDY, spent);
        return 1;
    }
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
    /* gpu.xid FAILs for it; a fresh worker judges the rest, without the watch (gpu.xid done). */
    if (in_watch && any_pending(l->pending) && gv_lane_may_restart(l))
        return 1;
    if (is_node(l) && c->lanes_opened && index >= 0 && gv_catalog_per_gpu((size_t)index))
        c->own_gpu_hung = 1;
    if (l->hung_count && is_node(l) && go_on_without(l, index, "made no progress in"))
        return 1;
    gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE,
                          "not run: the worker was stopped after %s timed out%s%s", l->check,
                          is_node(l) ? "" : " on ", is_node(l) ? "" : l->gpu_subject);
    l->timed_out = 1;
    return 0;
}

/* A worker that wrote something not its protocol: of another build, or a broken one; the
 * installation, not the node. */
static void concluded_garbled(lane *l, const char *where, double spent)
{
    char why[800];
    snprintf(why, sizeof why,
             "gpuverify-worker wrote something that is not its protocol during %s: \"%s\" "
             "(a mismatched or broken worker at %s)",
             where, l->garbage, l->c->worker);
    stopped_row(l, GV_ERROR, GV_ACTION_FIX_CONFIG, why, NULL, spent);
    gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE,
                          "not run: the worker's output could not be read");
}

/* The GPU a crash of the node's worker is charged to: in a test across GPUs at work on one
 * GPU alone (cuda.copy_all's copies of each) among several tested, that one; else -1. */
static int crashed_gpu(const lane *l)
{
    int index = gv_catalog_index(l->check), g = is_node(l) ? only_watched(l) : -1;
    if (g < 0 || index < 0 || !gv_catalog_across_gpus((size_t)index))
        return -1;
    char tested[sizeof l->gpus];
    snprintf(tested, sizeof tested, "%s", l->gpus);
    if (!tested[0])
        tested_gpus(l->c, tested, sizeof tested);
    return gv_list_count(tested) > 1 ? g : -1;
}

/* A worker that died (a crash, or it vanished). The checks of its group that sent their rows
 * are done; the rest, and every check after, go to a fresh worker. */
static void concluded_died(lane *l, const char *where, int reaped, int status, double spent)
{
    char why[800], ended[96];
    gv_worker_end_text(status, ended, sizeof ended);
    if (!reaped)
        snprintf(ended, sizeof ended, "vanished");
    snprintf(why, sizeof why, "worker %s during %s", ended, where);
    if (gv_lane_stopped_in_start(l) >= 0) {
        group_rows_done(l);
        gv_lane_died_in_start(l, why, ended, spent);
        return;
    }
    int g = crashed_gpu(l);
    if (g < 0) {
        stopped_row(l, GV_ERROR, GV_ACTION_RERUN, why, NULL, spent);
    } else {
        char subject[48];
        gpu_subject_of(l->c, g, subject, sizeof subject);
        gv_append(why, sizeof why, ", at work on ", subject);
        stopped_row_on(l, subject, GV_ERROR, GV_ACTION_RERUN, why, NULL, spent);
        l->hung[0] = g;
        l->hung_count = 1;
        if (go_on_without(l, gv_catalog_index(l->check), "crashed the worker in"))
            return;
    }
    /* gv_check_driver's facts: a crash there is the call's error (GV_ERR_DRIVER), not gone
     * past in a fresh worker. */
    if (is_node(l) && !l->c->have_facts && l->c->plan->inventory)
        gv_lane_close_pending(l, GV_SKIP, GV_ACTION_NONE, "not run: %s", why);
    group_rows_done(l);
    if (gv_lane_may_restart(l))
        return;
    int index = gv_catalog_index(l->check);
    if (!is_node(l))
        l->gave_up = 1;
    else if (l->c->lanes_opened && index >= 0 && gv_catalog_per_gpu((size_t)index))
        l->c->own_gpu_gave_up = 1;
    if (any_pending(l->pending))
        gv_lane_close_pending(l, GV_ERROR, GV_ACTION_RERUN, "not run: %d workers in a row died",
                              MAX_WORKERS);
}

void gv_lane_conclude(lane *l, enum outcome how, int reaped, int status, double spent)
{
    char where[400];
    where_now(l, where, sizeof where);
    const char *how_stopped = reaped ? "stopped" : "killed, stuck in the kernel";
    if (how == ENDED)
        concluded_ended(l);
    else if (how == FAILED)
        concluded_failed(l);
    else if (how == TIMED_OUT && l->by_budget)
        concluded_by_budget(l, where, how_stopped, spent);
    else if (how == TIMED_OUT) {
        if (concluded_timed_out(l, where, how_stopped, reaped, spent))
            return; /* a fresh worker follows */
    } else if (how == GARBLED)
        concluded_garbled(l, where, spent);
    else
        concluded_died(l, where, reaped, status, spent);
    gv_report_settle(l->c->report); /* rows made here carry their own durations */
    if (how != DIED || !any_pending(l->pending))
        l->finished = 1;
}
