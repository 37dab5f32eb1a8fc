/* SPDX-License-Identifier: Apache-2.0 */
#include "run/run_events.h"

#include "checks/checks.h"
#include "core/c_locale.h"
#include "core/progress.h"
#include "core/util.h"

void gv_run_observer_init(gv_run_observer *o, const gv_run_plan *plan, double t0)
{
    *o = (gv_run_observer){.fn = plan->opts.on_event,
                           .user = plan->opts.on_event_user,
                           .chosen = plan->chosen,
                           .t0 = t0,
                           .budget_s = plan->budget_s};
    for (size_t i = 0; i < gv_check_count; i++)
        o->selected += plan->chosen[i] != 0;
}

static void emit(gv_run_observer *o, int kind, const char *check, const char *subject,
                 const gv_check_result *row)
{
    gv_run_event e = {.struct_size = sizeof e,
                      .kind = kind,
                      .check = check,
                      .subject = subject,
                      .result = row,
                      .checks_started = o->started,
                      .checks_selected = o->selected,
                      .elapsed_s = gv_now_s() - o->t0,
                      .budget_s = o->budget_s};
    locale_t ours = gv_c_locale_pause(); /* the caller's hook runs in the caller's locale */
    o->fn(&e, o->user);
    gv_c_locale_resume(ours);
}

void gv_run_observer_started(gv_run_observer *o, const char *check, const char *subject)
{
    if (!o->fn)
        return;
    /* The position of the check in the selection: checks of one group run per GPU in turn
     * (cuda.init, cuda.matmul on gpu0, then gpu1), so the count only ever moves forward. */
    int index = gv_catalog_index(check);
    uint32_t position = 0;
    for (int i = 0; i <= index; i++)
        position += o->chosen[i] != 0;
    if (position > o->started)
        o->started = position;
    emit(o, GV_RUN_EVENT_STARTED, check, subject, NULL);
}

void gv_run_observer_row(void *user, const gv_check_result *row)
{
    gv_run_observer *o = user;
    if (o->fn)
        emit(o, GV_RUN_EVENT_FINISHED, row->id, row->subject, row);
}

void gv_run_observer_progress(void *user, int kind, const char *check, const char *text)
{
    if (kind == GV_PROGRESS_BEGIN)
        gv_run_observer_started(user, check, text);
}
