/* SPDX-License-Identifier: Apache-2.0 */
#include "run/run_hold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "compute/gpu_lock.h"
#include "compute/session.h"
#include "core/progress.h"
#include "core/util.h"

int gv_run_hold_needed(const int *chosen, size_t i)
{
    static const gv_active_fn on_gpus[] = {gv_active_cuda,    gv_active_copy_all, gv_active_p2p,
                                           gv_active_memtest, gv_active_gemm,     gv_active_cudnn,
                                           gv_active_nccl,    gv_active_stress};
    if (i >= gv_check_count)
        return 0;
    int on_gpu = 0;
    for (size_t k = 0; k < sizeof on_gpus / sizeof *on_gpus; k++)
        on_gpu |= gv_checks[i].active == on_gpus[k];
    for (size_t k = 0; on_gpu && k < gv_check_count; k++)
        if (chosen[k] && gv_checks[k].active == gv_checks[i].active &&
            strcmp(gv_checks[k].id, gv_id_nccl_version) != 0)
            return 1;
    return 0;
}

static int by_bus_id(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Who kept what this run waited for, into h (and as text into who, for its why). */
static void note_holder(gv_run_hold *h, const gv_gpu_holder *holder, char *who, size_t cap)
{
    gv_gpu_holder_text(holder, who, cap);
    h->holder_pid = holder->pid;
    h->holder_held_s = holder->held_s;
    h->holder_foreign = holder->foreign;
}

int gv_run_hold_take(gv_active_run *run, gv_run_hold *h, const char *check, double until)
{
    if (h->tried)
        return h->held;
    h->tried = 1;
    const gv_facts *f = run->facts;
    char want[GV_RUN_MAX_GPUS][32];
    size_t n = 0;
    for (size_t k = 0; k < f->gpu_count && n < GV_RUN_MAX_GPUS; k++) {
        int ordinal = f->gpus[k].gpu.cuda_index;
        if (ordinal >= 0 && gv_active_gpu_chosen(run, ordinal) && f->gpus[k].gpu.pci_bus_id[0])
            snprintf(want[n++], sizeof want[0], "%s", f->gpus[k].gpu.pci_bus_id);
    }
    qsort(want, n, sizeof want[0], by_bus_id);
    double wait_s = until - gv_now_s();
    gv_progress_wait(run->ctx, check, wait_s > 0 ? wait_s : 0,
                     "another gpuverify to finish with the GPUs");
    if (n > 1) {
        gv_gpu_holder holder;
        if (gv_several_gpus_take(run->ctx, wait_s > 0 ? wait_s : 0, &holder) != 0) {
            char who[200];
            note_holder(h, &holder, who, sizeof who);
            snprintf(h->why, sizeof h->why,
                     "not run: several GPUs of this node are being tested by %s; this run waited "
                     "%.0f s for them, until half its budget",
                     who, wait_s > 0 ? wait_s : 0);
            return 0;
        }
        h->several = 1;
    }
    for (size_t i = 0; i < n; i++) {
        double left = until - gv_now_s();
        gv_gpu_holder holder;
        if (gv_gpu_lock_take(run->ctx, want[i], left > 0 ? left : 0, &holder) != 0) {
            char who[200];
            note_holder(h, &holder, who, sizeof who);
            snprintf(h->why, sizeof h->why,
                     holder.foreign ? "not run: GPU %s's gpuverify lock is held by %s; this run "
                                      "waited %.0f s for it, until half its budget"
                                    : "not run: GPU %s is being tested by %s; this run waited "
                                      "%.0f s for it, until half its budget",
                     want[i], who, wait_s > 0 ? wait_s : 0);
            gv_run_hold_give(h);
            return 0;
        }
        snprintf(h->bus_ids[h->n++], sizeof h->bus_ids[0], "%s", want[i]);
    }
    h->held = 1;
    return 1;
}

void gv_run_hold_give(gv_run_hold *h)
{
    for (size_t i = 0; i < h->n; i++)
        gv_gpu_lock_give(h->bus_ids[i]);
    h->n = 0;
    if (h->several)
        gv_several_gpus_give();
    h->several = 0;
}

void gv_run_hold_ahead(gv_ctx *ctx, const gv_facts *f, const int *gpu_chosen, int *made)
{
    /* Taken as their lanes end, in any order, and kept to the worker's exit: several GPUs held
     * while the tests may wait for more, which only the holder of the several-GPUs lock may
     * do. Another run's tests across GPUs under way: none is taken ahead, the tests' own hold
     * waits its turn. */
    if (gv_several_gpus_take(ctx, 0, NULL) != 0)
        return;
    for (size_t k = 0; k < f->gpu_count; k++) {
        const gv_gpu *g = &f->gpus[k].gpu;
        if (g->cuda_index < 0 || g->cuda_index >= GV_RUN_MAX_GPUS || !gpu_chosen[g->cuda_index] ||
            !g->pci_bus_id[0] || gv_gpu_lock_take(ctx, g->pci_bus_id, 0, NULL) != 0)
            continue;
        made[g->cuda_index] = gv_session_make_ahead(ctx, (uint32_t)g->cuda_index) == 0;
        gv_gpu_lock_give(g->pci_bus_id); /* kept to the worker's exit */
    }
    gv_several_gpus_give(); /* kept to the worker's exit, as the GPUs */
}
