/* SPDX-License-Identifier: Apache-2.0 */
#include "run/run_history.h"

#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "core/context.h"
#include "core/util.h"
#include "history/history.h"
#include "run/run_events.h"

/* A token of the caller's list that is no exclusion and selects `id` ("history" or the ID). */
static int named(const char *list, const char *id)
{
    for (const char *p = list; p && *p;) {
        p += strspn(p, ", ");
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        if (len && *p != '^' && !strncmp(id, p, len) && (id[len] == '\0' || id[len] == '.'))
            return 1;
        p += strcspn(p, ",");
    }
    return 0;
}

int gv_run_history_select(const gv_ctx *ctx, const char *checks, gv_run_plan *plan)
{
    int n = 0;
    for (size_t i = 0; i < gv_check_count; i++) {
        if (!gv_checks[i].history)
            continue;
        plan->history[i] =
            plan->chosen[i] && (ctx->state_path[0] || named(checks, gv_checks[i].id));
        plan->chosen[i] = 0;
        n += plan->history[i];
    }
    return n;
}

/* The comparable key of this run's figures: what changes them besides the GPU. */
static void comparable(const gv_run_plan *plan, const gv_report *r, char *out, size_t cap)
{
    snprintf(out, cap, "driver %s|%s|gemm %u|copy %llu|nccl %llu|stress %g",
             r->driver.driver_version[0] ? r->driver.driver_version : "?", plan->level->name,
             plan->opts.gemm_size, (unsigned long long)plan->opts.copy_bytes,
             (unsigned long long)plan->opts.nccl_bytes, plan->stress_s);
}

/* Every history check selected gets a row saying why there is no history. */
static void without_history(const gv_run_plan *plan, gv_report *r, int verdict, int action,
                            const char *why)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (plan->history[i]) {
            gv_check_result *c = gv_report_add(r, gv_checks[i].id, "node", verdict, "%s", why);
            gv_result_action(c, action);
            if (verdict == GV_ERROR)
                gv_result_remedy(c, "name a database that can be read and written (gv-check "
                                    "--state), moving a corrupt one aside; the run itself is "
                                    "complete");
        }
}

/* The check whose row says the database could not be used: the first history check selected,
 * else history.record (a run that judges nothing against its history is still recorded). */
static const char *reporter(const gv_run_plan *plan)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (plan->history[i])
            return gv_checks[i].id;
    return gv_id_history_record;
}

/* What the recording left undone, said on the node's row of `id` among this step's rows; a WARN
 * at least (fix_config): the database keeps growing until someone closes what holds it. */
static void note_on_node_row(gv_report *r, size_t first, const char *id, const char *note)
{
    for (size_t i = first; i < r->count; i++) {
        gv_check_result *c = &r->results[i];
        if (strcmp(c->id, id) != 0 || strcmp(c->subject, "node") != 0)
            continue;
        gv_append(c->message, sizeof c->message, "; ", note);
        if (c->verdict == GV_PASS || c->verdict == GV_SKIP) {
            c->verdict = GV_WARN;
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            gv_result_remedy(c, "close the program that keeps the history database open");
        }
        return;
    }
    gv_check_result *c = gv_report_add(r, id, "node", GV_WARN, "%s", note);
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
    gv_result_remedy(c, "close the program that keeps the history database open");
}

void gv_run_history(gv_ctx *ctx, const gv_run_plan *plan, gv_report *r)
{
    int any = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        any |= plan->history[i];
    /* With a database every run is recorded, whatever it checked; without one, only a history
     * check that was named has a row to make. */
    if (!any && !ctx->state_path[0])
        return;
    double t0 = gv_now_s();
    size_t first = r->count;
    gv_report_begin_rows(r);
    gv_history_policy pol;
    gv_history_policy_of(plan->opts.policy, &pol);
    /* The run returns within its budget + 1 s, the history step included: another writer's
     * lock is waited for only as long as the budget has left (then the run is not recorded,
     * and says so). */
    double left = plan->budget_s + 0.25 - r->duration_s;
    if (pol.limits.wait_s > left)
        pol.limits.wait_s = left > 0 ? left : 0;
    char why[1024];
    gv_history *db = NULL;
    if (!ctx->state_path[0]) {
        without_history(plan, r, GV_SKIP, GV_ACTION_NONE,
                        "no history database: gv_ctx_opts.state_path (gv-check --state) is not "
                        "set");
    } else if (gv_history_open(ctx->state_path, &pol.limits, &db, why, sizeof why)) {
        gv_append(why, sizeof why, "", "; this run is judged without history and not recorded");
        if (any) {
            without_history(plan, r, GV_ERROR, GV_ACTION_FIX_CONFIG, why);
        } else {
            gv_check_result *c = gv_report_add(r, reporter(plan), "node", GV_ERROR, "%s", why);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            gv_result_remedy(c, "name a database that can be read and written (gv-check "
                                "--state); the run itself is complete");
        }
    } else {
        gv_history_run run = {.started_unix = r->started_unix};
        comparable(plan, r, run.comparable, sizeof run.comparable);
        gv_history_judge judge = {
            .db = db, .report = r, .judged = first, .policy = plan->opts.policy, .run = &run};
        for (size_t i = 0; i < gv_check_count; i++)
            if (plan->history[i])
                gv_checks[i].history(&judge);
        gv_report_flush(r);
        run.history_rows = r->count - first;
        if (gv_history_append(db, r, &run, why, sizeof why)) {
            /* The rows above stand; one row says the run was not kept. */
            gv_append(why, sizeof why, "", "; this run is not recorded");
            gv_check_result *c = gv_report_add(r, reporter(plan), "node", GV_ERROR, "%s", why);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            gv_result_remedy(c, "free space or a writable path for the database (gv-check "
                                "--state); the run itself is complete");
        } else if (gv_history_note(db)[0]) {
            int record = plan->history[gv_catalog_index(gv_id_history_record)];
            note_on_node_row(r, first, record ? gv_id_history_record : reporter(plan),
                             gv_history_note(db));
        }
        gv_history_close(db);
    }
    gv_report_flush(r);
    r->duration_s += gv_now_s() - t0;
    gv_run_observer o;
    gv_run_observer_init(&o, plan, t0);
    for (size_t i = first; o.fn && i < r->count; i++)
        gv_run_observer_row(&o, &r->results[i]);
}
