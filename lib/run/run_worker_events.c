/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker, the caller's side: the events a worker sends, one line each
 * (worker/protocol.h), taken into its lane: rows, where it is (begin, stage, wait), signs of
 * life (beat, watch, done_part), the facts, the GPUs it opens lanes for, its end. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "core/util.h"
#include "rdma/rdma.h"
#include "report/report.h"
#include "run/run_worker_lane.h"
#include "worker/protocol.h"

void gv_lane_watch_clear(lane *l)
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

void gv_lane_groups_done_before(lane *l, int group)
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
    c->node.starting_library = -1;
    gv_lane_start_passed(c);
}

/* A lane's cuda.copy figures (its row's "H2D 54.9, D2H 55.2 GB/s"), measured with no other GPU
 * copying: cuda.copy_all's figures alone, handed to the worker of the tests across GPUs. */
static void keep_copy_figures(lane *l, const gv_check_result *row)
{
    client *c = l->c;
    double h2d, d2h;
    int gpu = l->ordinal;
    if (strcmp(row->id, gv_id_cuda_copy) != 0 || gpu < 0 || gpu >= GV_RUN_MAX_GPUS ||
        (row->verdict != GV_PASS && row->verdict != GV_WARN && row->verdict != GV_FAIL) ||
        strstr(row->message, "wrong") || sscanf(row->measured, "H2D %lf, D2H %lf", &h2d, &d2h) != 2)
        return;
    c->copy_h2d[gpu] = h2d;
    c->copy_d2h[gpu] = d2h;
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
    gv_lane_start_crashed(c, &row); /* an ERROR now, where a crash was tried again */
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
        keep_copy_figures(l, res);
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

/* The node's worker is in library k's start from now on (-1: in none). */
static void set_starting(lane *l, int k)
{
    if (k >= 0 && k != l->starting_library)
        l->start_began = gv_now_s();
    l->starting_library = k;
}

/* A "begin" event: the worker is at a check on a subject. */
static void take_begin(lane *l, json_t *ev)
{
    gv_worker_event_text(ev, "check", l->check, sizeof l->check);
    gv_worker_event_text(ev, "subject", l->subject, sizeof l->subject);
    l->stage[0] = '\0';
    l->began = gv_now_s();
    l->waiting_s = l->last_beat = l->beat_gap = 0;
    memset(l->gpu_gap, 0, sizeof l->gpu_gap);
    l->starting = 0;
    set_starting(l, !is_node(l) || l->c->have_facts ? -1 : gv_lane_start_library(l->check));
    gv_lane_watch_clear(l);
    memset(l->gpu_done, 0, sizeof l->gpu_done);
    memset(l->gpu_first_done, 0, sizeof l->gpu_first_done);
    gv_run_observer_started(&l->c->observer, l->check, l->subject);
}

/* A "beat" event: the check (or one of its GPUs) is alive, and how far that GPU is. */
static void take_beat(lane *l, json_t *ev)
{
    double now = gv_now_s();
    l->beat_gap = fmax(l->beat_gap, now - (l->last_beat > 0 ? l->last_beat : l->began));
    l->last_beat = now;
    int gpu = gv_worker_event_gpu(ev);
    if (gpu >= 0 && l->finished_part[gpu]) /* at work again after its part */
        l->watched[gpu] = 1, l->finished_part[gpu] = 0;
    if (gpu >= 0 && l->watched[gpu]) {
        l->gpu_gap[gpu] = fmax(l->gpu_gap[gpu], now - l->gpu_alive[gpu]);
        l->gpu_alive[gpu] = now;
    }
    double done = gv_worker_event_done(ev);
    if (gpu >= 0 && done > 0) {
        if (l->gpu_first_done[gpu] <= 0)
            l->gpu_first_done[gpu] = done, l->gpu_first_at[gpu] = l->last_beat;
        l->gpu_done[gpu] = done, l->gpu_done_at[gpu] = l->last_beat;
    }
}

/* A "stage" event. The node's worker in libibverbs' start or queries (the RDMA checks' facts,
 * whichever check began them) is in a library's start, as in NVML's and libcuda's. */
static void take_stage(lane *l, json_t *ev)
{
    gv_worker_event_text(ev, "stage", l->stage, sizeof l->stage);
    size_t verbs = strlen(GV_RDMA_VERBS_STAGE);
    if (is_node(l) && !strncmp(l->stage, GV_RDMA_VERBS_STAGE, verbs))
        set_starting(l, GV_LIB_IBVERBS);
    else if (l->starting_library == GV_LIB_IBVERBS)
        l->starting_library = -1;
}

/* A "wait" event: the check waits before it begins (another gpuverify's hold on the GPUs), or
 * within the check under way (no check named: another GPU's copies on the host's links); a
 * wait of 0 s is over, and the check's own time starts again. */
static void take_wait(lane *l, json_t *ev)
{
    char check[sizeof l->check];
    gv_worker_event_text(ev, "check", check, sizeof check);
    if (check[0]) {
        snprintf(l->check, sizeof l->check, "%s", check);
        snprintf(l->subject, sizeof l->subject, "%s", l->gpu_subject);
    }
    double s = json_number_value(json_object_get(ev, "seconds"));
    char why[160];
    gv_worker_event_text(ev, "for", why, sizeof why);
    if (s > 0)
        snprintf(l->stage, sizeof l->stage, "waiting up to %.0f s for %s", s,
                 why[0] ? why : "another gpuverify to finish with the GPUs");
    else
        l->stage[0] = '\0'; /* the wait is over */
    l->began = gv_now_s();
    l->waiting_s = s > 0 ? s : 0;
    l->last_beat = l->beat_gap = 0;
    l->starting = 0;
    l->starting_library = -1; /* the Xid watch, a lock: past the libraries' start */
}

int gv_lane_take_line(void *user, char *line)
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
        take_begin(l, ev);
    } else if (!strcmp(kind, "beat")) {
        take_beat(l, ev);
    } else if (!strcmp(kind, "watch")) {
        watch_take(l, ev);
    } else if (!strcmp(kind, "done_part")) {
        int gpu = gv_worker_event_gpu(ev);
        if (gpu >= 0 && l->watched[gpu])
            l->watched[gpu] = 0, l->finished_part[gpu] = 1;
    } else if (!strcmp(kind, "wait")) {
        take_wait(l, ev);
    } else if (!strcmp(kind, "stage")) {
        take_stage(l, ev);
    } else if (!strcmp(kind, "group")) {
        int index = lane_index(l, json_string_value(json_object_get(ev, "check")));
        if (index >= 0)
            gv_lane_groups_done_before(l, gv_catalog_group(index));
        gv_lane_watch_clear(l);
    } else if (!strcmp(kind, "facts")) {
        take_facts(c, json_object_get(ev, "report")); /* the first worker's; the same node */
        l->starting = 0;
    } else if (!strcmp(kind, "lanes")) {
        if (is_node(l) && l->lanes_mode)
            open_lanes(c, ev);
    } else if (!strcmp(kind, "end")) {
        l->ended = 1;
        l->ended_at = gv_now_s();
    } else if (!strcmp(kind, "error")) {
        gv_worker_event_text(ev, "message", l->error, sizeof l->error);
        l->error_status = gv_worker_event_status(ev);
        l->ended = l->errored = 1;
        l->ended_at = gv_now_s();
    } else {
        ok = 0;
    }
    json_decref(ev);
    l->heard |= ok;
    if (!ok)
        snprintf(l->garbage, sizeof l->garbage, "%.60s", line);
    return ok ? 0 : -1;
}
