/* SPDX-License-Identifier: Apache-2.0 */
/* What every active group uses on its run (checks/active.h): the inventory record and subject
 * of a CUDA ordinal, the run's GPU selection, the GPU's other processes, and the rows of a group
 * that could not run. */
#include <stdio.h>

#include "checks/active.h"
#include "checks/busy.h"
#include "checks/checks.h"

const gv_gpu_record *gv_active_gpu_record(const gv_facts *f, int ordinal)
{
    for (size_t i = 0; i < f->gpu_count; i++)
        if (f->gpus[i].gpu.cuda_index == ordinal)
            return &f->gpus[i];
    return NULL;
}

void gv_active_sample_busy(gv_active_run *run, int ordinal, gv_busy *b)
{
    const gv_gpu_record *g = gv_active_gpu_record(run->facts, ordinal);
    if (g)
        gv_busy_sample(run->ctx, g, b);
}

void gv_active_subject(const gv_facts *f, int ordinal, char *out, size_t cap)
{
    const gv_gpu_record *g = gv_active_gpu_record(f, ordinal);
    if (g)
        gv_gpu_subject(g, out, cap);
    else
        snprintf(out, cap, "cuda%d", ordinal);
}

void gv_active_row_covers(gv_active_run *run, const gv_check_result *c, const int *ordinals,
                          size_t n)
{
    gv_counter k[GV_ROW_COUNTERS_MAX];
    uint32_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        char subject[48];
        gv_active_subject(run->facts, ordinals[i], subject, sizeof subject);
        if (gv_subject_gpu(subject) >= 0) /* "cuda3", not in the inventory: no history of its own */
            gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, subject, 1);
    }
    if (c && nk)
        gv_report_attach_counters(run->report, c, k, nk);
}

const char *gv_active_first_selected(const gv_active_run *run, gv_active_members m)
{
    for (size_t i = m.first; i < m.end; i++)
        if (run->chosen[i])
            return gv_checks[i].id;
    return NULL;
}

void gv_active_rows_action(gv_active_run *run, gv_active_members m, const char *subject,
                           int verdict, int32_t action, const char *why)
{
    for (size_t i = m.first; i < m.end; i++)
        if (run->chosen[i])
            gv_result_action(
                gv_report_add(run->report, gv_checks[i].id, subject, verdict, "%s", why), action);
}

void gv_active_rows(gv_active_run *run, gv_active_members m, const char *subject, int verdict,
                    const char *why)
{
    gv_active_rows_action(run, m, subject, verdict, GV_ACTION_NONE, why);
}

int gv_active_no_devices(gv_active_run *run, gv_active_members m)
{
    const gv_facts *f = run->facts;
    if (f->cuda_count > 0)
        return 0;
    char why[256];
    if (f->cuda_lib.state != GV_LIBSTATE_LOADED || f->cuda_init != 0) {
        /* driver.cuda judges why, once: a FAIL when CUDA is broken on a node with GPUs, a WARN
         * when CUDA_VISIBLE_DEVICES hides them all (a GPU test here FAILed "no GPU to test" on
         * a healthy node then), none when the node has no GPU. */
        if (f->cuda_lib.state != GV_LIBSTATE_LOADED)
            snprintf(why, sizeof why, "libcuda is not usable: %s (driver.cuda judges that)",
                     f->cuda_lib.detail[0] ? f->cuda_lib.detail : f->cuda_lib.tried);
        else
            snprintf(why, sizeof why,
                     "cuInit failed (CUresult %d): no GPU to test (driver.cuda judges that)",
                     f->cuda_init);
        gv_active_rows(run, m, "node", GV_SKIP, why);
        gv_report_delegate(run->report, gv_id_driver_cuda);
        return 1;
    }
    snprintf(why, sizeof why, "CUDA sees no GPU to test");
    /* GPUs on the node, cuInit fine, and none enumerated: as driver.gpu_count's NVML-against-
     * CUDA count, not a GPU to name for a reset. */
    gv_active_rows_action(run, m, "node", gv_facts_has_gpus(f) ? GV_FAIL : GV_SKIP,
                          GV_ACTION_REBOOT_NODE, why);
    return 1;
}

int gv_active_gpu_chosen(const gv_active_run *run, int ordinal)
{
    return !run->gpu_chosen ||
           (ordinal >= 0 && ordinal < GV_RUN_MAX_GPUS && run->gpu_chosen[ordinal]);
}
