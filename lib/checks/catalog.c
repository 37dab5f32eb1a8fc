/* SPDX-License-Identifier: Apache-2.0 */
/* The catalog table made from checks.def, and the lookups gv_run and the checks make in it
 * (docs/checks.md describes each check). */
#include <string.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "compute/compute.h"
#include "gpuverify/gv_report.h"
#include "report/prometheus.h"
#include "rdma/rdma.h"
#include "topo/topology.h"
#include "worker/call.h"

#define GV_PASSIVE(nm, i, ...) const char gv_id_##nm[] = i;
#define GV_ACTIVE(nm, i, ...) const char gv_id_##nm[] = i;
#define GV_HISTORY(nm, i, ...) const char gv_id_##nm[] = i;
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY

/* A finding without an action is no line of the catalog: the line's warn and fail columns must
 * name one, checked here where the line is compiled rather than by a run's output. */
#define GV_ACTIONS_NAMED(i, w, fl)                                                                 \
    _Static_assert(GV_ACTION_##w > GV_ACTION_NONE && GV_ACTION_##w <= GV_ACTION_HW_INSPECT &&      \
                       GV_ACTION_##fl > GV_ACTION_NONE && GV_ACTION_##fl <= GV_ACTION_HW_INSPECT,  \
                   "checks.def, " i ": its warn and fail columns must each name an action "        \
                   "(RERUN, WAIT, FIX_CONFIG, RESET_GPU, REBOOT_NODE or HW_INSPECT), not NONE");
#define GV_PASSIVE(nm, i, lv, f, nd, dl, w, fl, m) GV_ACTIONS_NAMED(i, w, fl)
#define GV_ACTIVE(nm, i, lv, g, f, nd, dl, du, w, fl, m) GV_ACTIONS_NAMED(i, w, fl)
#define GV_HISTORY(nm, i, lv, w, fl, m) GV_ACTIONS_NAMED(i, w, fl)
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY

/* Each macro's parameters are checks.def's fields, abbreviated so that none is also a member
 * name of gv_check_def: (name, id, level, group, facts, needs, deadline, duration, warn, fail,
 * metric). */
const gv_check_def gv_checks[] = {
#define GV_PASSIVE(nm, i, lv, f, nd, dl, w, fl, m)                                                 \
    {.id = gv_id_##nm,                                                                             \
     .level = GV_FROM_##lv,                                                                        \
     .run = gv_check_##nm,                                                                         \
     .facts = f,                                                                                   \
     .needs = nd,                                                                                  \
     .deadline_factor = dl,                                                                        \
     .warn_action = GV_ACTION_##w,                                                                 \
     .fail_action = GV_ACTION_##fl,                                                                \
     .metric = GV_METRIC_##m},
#define GV_ACTIVE(nm, i, lv, g, f, nd, dl, du, w, fl, m)                                           \
    {.id = gv_id_##nm,                                                                             \
     .level = GV_FROM_##lv,                                                                        \
     .active = gv_active_##g,                                                                      \
     .facts = f,                                                                                   \
     .needs = nd,                                                                                  \
     .deadline_factor = dl,                                                                        \
     .loads_for_duration = du,                                                                     \
     .warn_action = GV_ACTION_##w,                                                                 \
     .fail_action = GV_ACTION_##fl,                                                                \
     .metric = GV_METRIC_##m},
#define GV_HISTORY(nm, i, lv, w, fl, m)                                                            \
    {.id = gv_id_##nm,                                                                             \
     .level = GV_FROM_##lv,                                                                        \
     .history = gv_check_##nm,                                                                     \
     .warn_action = GV_ACTION_##w,                                                                 \
     .fail_action = GV_ACTION_##fl,                                                                \
     .metric = GV_METRIC_##m},
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY
};
const size_t gv_check_count = sizeof gv_checks / sizeof gv_checks[0];
_Static_assert(sizeof gv_checks / sizeof gv_checks[0] <= GV_CATALOG_MAX,
               "GV_CATALOG_MAX is smaller than the catalog");

int gv_catalog_index(const char *id)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (strcmp(gv_checks[i].id, id) == 0)
            return (int)i;
    return -1;
}

int gv_catalog_group(int index)
{
    if (index < 0 || (size_t)index >= gv_check_count || !gv_checks[index].active)
        return index;
    while (index > 0 && gv_checks[index - 1].active == gv_checks[index].active)
        index--;
    return index;
}

static int active_is(size_t i, const gv_active_fn *fns, size_t n)
{
    for (size_t k = 0; i < gv_check_count && k < n; k++)
        if (gv_checks[i].active == fns[k])
            return 1;
    return 0;
}

int gv_catalog_per_gpu(size_t i)
{
    static const gv_active_fn each[] = {gv_active_cuda, gv_active_memtest, gv_active_gemm};
    return active_is(i, each, sizeof each / sizeof *each);
}

int gv_catalog_across_gpus(size_t i)
{
    static const gv_active_fn together[] = {gv_active_copy_all, gv_active_p2p, gv_active_nccl,
                                            gv_active_stress};
    return active_is(i, together, sizeof together / sizeof *together);
}

int gv_catalog_row_per_gpu(size_t i)
{
    static const gv_active_fn each[] = {gv_active_p2p, gv_active_stress};
    return gv_catalog_per_gpu(i) || active_is(i, each, sizeof each / sizeof *each);
}

uint32_t gv_catalog_count(void)
{
    return (uint32_t)gv_check_count;
}

const char *gv_catalog_id(uint32_t index)
{
    return index < gv_check_count ? gv_checks[index].id : NULL;
}

gv_active_members gv_active_group(gv_active_fn group)
{
    gv_active_members m = {0, 0};
    for (size_t i = 0; i < gv_check_count; i++)
        if (gv_checks[i].active == group) {
            if (m.first == m.end)
                m.first = i;
            m.end = i + 1;
        }
    return m;
}

gv_active_members gv_active_span(const char *first, const char *last)
{
    int a = gv_catalog_index(first), b = gv_catalog_index(last);
    if (a < 0 || b < a || gv_checks[a].active != gv_checks[b].active)
        return (gv_active_members){0, 0};
    return (gv_active_members){(size_t)a, (size_t)b + 1};
}

int gv_active_selected(const gv_active_run *run, const char *id)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (strcmp(gv_checks[i].id, id) == 0)
            return run->chosen[i];
    return 0;
}
