/* SPDX-License-Identifier: Apache-2.0 */
/* cuda.copy_all: pinned host<->device copies on every chosen GPU alone, then on all of them at
 * once (gv_copy_together). GPUs behind one PCIe switch or root port, or a host whose memory
 * cannot feed them all, each reach their link's rate alone and fall short together: only the
 * second measurement shows it. GPUs that sysfs places under one switch or root port split its
 * link by design (two GPUs per switch uplink in DGX/HGX systems): each is judged against the
 * share that link leaves it, so a healthy node of that design passes, and a share lost
 * elsewhere (a switch sysfs does not show, host memory) still warns. A GPU's figures alone
 * are cuda.copy's when it measured them in this process (the same copies, at the same sizes,
 * one GPU at a time): measured once, not twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/active.h"
#include "checks/check_ids.h"
#include "checks/busy.h"
#include "compute/copy_bw.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "sys/pci_share.h"

#define SHARED_WARN 0.75 /* of what a GPU's links leave it: below it, something else is shared */

typedef struct copy_gpu {
    int ordinal;
    char subject[48];
    gv_session s;
    double share;     /* of its own rate, that the links it shares leave it (1: none shared) */
    char shared[160]; /* the GPUs under the port that sets it, "" */
    gv_copy_figures alone;
    gv_copy_gpu at_once;
} copy_gpu;

/* Each GPU's share of the PCIe links it shares with the others, from sysfs. */
static void link_shares(const gv_active_run *run, copy_gpu *g, size_t n)
{
    const gv_pci_function *pci[GV_RUN_MAX_GPUS];
    const char *names[GV_RUN_MAX_GPUS];
    for (size_t i = 0; i < n; i++) {
        pci[i] = g[i].s.have_pci ? &g[i].s.pci : NULL;
        names[i] = g[i].subject;
    }
    for (size_t i = 0; i < n; i++)
        g[i].share =
            gv_pci_link_share(run->ctx->sysroot, pci, names, n, i, g[i].shared, sizeof g[i].shared);
}

/* "gpu2 12.0 of 27.5 GB/s (44%)" for each GPU whose rate at once is below SHARED_WARN of what
 * its links leave it (its own rate alone times its share), in one direction; the lowest
 * fraction in *worst. */
static void below(const copy_gpu *g, size_t n, int h2d, char *out, size_t cap, double *worst)
{
    for (size_t i = 0; i < n; i++) {
        double alone = h2d ? g[i].alone.h2d_gbps : g[i].alone.d2h_gbps;
        double both = h2d ? g[i].at_once.out.h2d_gbps : g[i].at_once.out.d2h_gbps;
        if (g[i].at_once.status != GV_OK || alone <= 0)
            continue;
        double left = alone * g[i].share, kept = both / left;
        if (kept < *worst)
            *worst = kept;
        if (kept < SHARED_WARN) {
            char one[96];
            snprintf(one, sizeof one, "%s %s %.1f of %.1f GB/s (%.0f%%)", h2d ? "H2D" : "D2H",
                     g[i].subject, both, left, 100 * kept);
            gv_append(out, cap, ", ", one);
        }
    }
}

/* "gpu2, gpu3 under 0000:38:00.0 (50% each)" for every group of GPUs that shares a link,
 * each group named once, "; " between them. */
static void shared_by_design(const copy_gpu *g, size_t n, char *out, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        int first = g[i].shared[0] != '\0';
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(g[j].shared, g[i].shared) != 0;
        if (!first)
            continue;
        char one[200];
        snprintf(one, sizeof one, "%s (%.0f%% each)", g[i].shared, 100 * g[i].share);
        gv_append(out, cap, "; ", one);
    }
}

static double total(const copy_gpu *g, size_t n, int h2d)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (g[i].at_once.status == GV_OK)
            sum += h2d ? g[i].at_once.out.h2d_gbps : g[i].at_once.out.d2h_gbps;
    return sum;
}

static void judge(gv_active_run *run, copy_gpu *g, size_t n, size_t reused, const gv_busy *busy)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].at_once.status == GV_ERR_BUSY) {
            /* Another's copies on the host's links all along: not measured, wait for them. */
            gv_result_action(gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_ERROR, "%s",
                                           g[i].at_once.err.text),
                             GV_ACTION_WAIT);
            return;
        } else if (g[i].at_once.status != GV_OK) {
            /* A CUDA call failed mid-copy: the GPU's context is gone, a reset first. */
            gv_result_action(gv_report_add(run->report, gv_id_cuda_copy_all, g[i].subject, GV_FAIL,
                                           "copying with the other GPUs failed: %s",
                                           g[i].at_once.err.text),
                             GV_ACTION_RESET_GPU);
            return;
        }
    char low[400] = "", design[400] = "";
    double worst = 1e9;
    below(g, n, 1, low, sizeof low, &worst);
    below(g, n, 0, low, sizeof low, &worst);
    shared_by_design(g, n, design, sizeof design);
    double h2d = total(g, n, 1), d2h = total(g, n, 0);
    gv_check_result *c;
    if (low[0])
        c = gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_WARN,
                          "%zu GPUs copying at once fall below %.0f%% of what their PCIe links "
                          "leave them: %s (H2D %.1f, D2H %.1f GB/s in all): a PCIe switch, root "
                          "port or host memory they share%s%s",
                          n, 100 * SHARED_WARN, low, h2d, d2h,
                          design[0] ? "; links shared by design: " : "", design);
    else
        c = gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_PASS,
                          "%zu GPUs copying at once: H2D %.1f, D2H %.1f GB/s in all; every GPU "
                          "kept at least %.0f%% of %s%s",
                          n, h2d, d2h, 100 * worst,
                          design[0] ? "what its PCIe links leave it; shared by design: "
                                    : "its own rate",
                          design);
    if (c && reused == n)
        gv_append(c->message, sizeof c->message, "; ", "each GPU alone as cuda.copy measured it");
    int ordinals[GV_RUN_MAX_GPUS];
    for (size_t i = 0; i < n; i++)
        ordinals[i] = g[i].ordinal;
    gv_active_row_covers(run, c, ordinals, n);
    gv_result_measured(c, h2d, "GB/s", "H2D %.1f, D2H %.1f GB/s in all", h2d, d2h);
    gv_result_expected(c, "own rate x PCIe link share",
                       ">= %.0f%% of each GPU's own rate times "
                       "its share of the links it shares (sysfs)",
                       100 * SHARED_WARN);
    if (low[0])
        gv_result_remedy(c, "see which GPUs share a switch or root port (nvidia-smi topo -m, "
                            "lspci -tv) and the host's memory channels; place jobs accordingly");
    /* Each GPU alone was fine: what they share (a switch, a root port, host memory) is the
     * node's layout, and jobs are placed around it. */
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
    gv_busy_apply(busy, run->policy, c, 0);
}

/* Each GPU's copies alone (cuda.copy's when the run measured them), then all at once; the
 * row. */
static void measure(gv_active_run *run, copy_gpu *g, gv_copy_gpu *at_once, size_t n, uint64_t bytes,
                    unsigned samples, unsigned copies, gv_busy *busy)
{
    link_shares(run, g, n);
    gv_progress_stage(run->ctx, "each GPU's copies alone");
    size_t failed = n, reused = 0;
    int ordinals[GV_RUN_MAX_GPUS];
    for (size_t i = 0; i < n && failed == n; i++) {
        ordinals[i] = g[i].ordinal;
        double h2d = run->copy_alone_h2d[g[i].ordinal], d2h = run->copy_alone_d2h[g[i].ordinal];
        if (h2d > 0 && d2h > 0) { /* cuda.copy's, moments ago: the same copies */
            g[i].alone.h2d_gbps = h2d;
            g[i].alone.d2h_gbps = d2h;
            reused++;
            continue;
        }
        /* The GPU copying must beat (core/progress.h): one that hangs is named. */
        gv_progress_watch(run->ctx, &g[i].ordinal, 1);
        if (gv_copy_together(&at_once[i], 1, bytes, samples, copies) != GV_OK ||
            at_once[i].status != GV_OK)
            failed = i;
        g[i].alone = at_once[i].out;
    }
    gv_progress_stage(run->ctx, "%zu GPUs' copies at once", n);
    if (failed == n)
        gv_progress_watch(run->ctx, ordinals, n);
    if (failed < n && at_once[failed].status == GV_ERR_BUSY) {
        /* Another's copies on the host's links all along: not measured, wait for them. */
        gv_result_action(gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_ERROR, "%s",
                                       at_once[failed].err.text),
                         GV_ACTION_WAIT);
    } else if (failed < n) {
        gv_result_action(
            gv_report_add(run->report, gv_id_cuda_copy_all, g[failed].subject, GV_FAIL,
                          "copying alone failed: %s",
                          at_once[failed].err.text[0] ? at_once[failed].err.text : "out of memory"),
            GV_ACTION_RESET_GPU);
    } else if (gv_copy_together(at_once, n, bytes, samples, copies) != GV_OK) {
        gv_result_action(
            gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_ERROR, "out of memory"),
            GV_ACTION_RERUN);
    } else {
        for (size_t i = 0; i < n; i++) {
            g[i].at_once = at_once[i];
            gv_active_sample_busy(run, g[i].ordinal, busy);
        }
        judge(run, g, n, reused, busy);
    }
}

void gv_active_copy_all(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_copy_all);
    if (gv_active_no_devices(run, members))
        return;
    copy_gpu *g = calloc(GV_RUN_MAX_GPUS, sizeof *g);
    gv_copy_gpu *at_once = calloc(GV_RUN_MAX_GPUS, sizeof *at_once);
    if (!g || !at_once) {
        free(g);
        free(at_once);
        gv_active_rows_action(run, members, "node", GV_ERROR, GV_ACTION_RERUN, "out of memory");
        return;
    }
    gv_progress_begin(run->ctx, gv_id_cuda_copy_all, "node");
    /* The sizes of cuda.copy at this level: the figures alone are comparable with its row. */
    uint64_t bytes = run->copy_bytes  ? run->copy_bytes
                     : run->benchmark ? 256ull << 20
                                      : 64ull << 20;
    unsigned samples = run->benchmark ? 5 : 3, copies = run->benchmark ? 16 : 8;
    size_t n = 0;
    gv_busy busy = {0};
    for (int ordinal = 0; ordinal < run->facts->cuda_count && n < GV_RUN_MAX_GPUS; ordinal++) {
        if (!gv_active_gpu_chosen(run, ordinal))
            continue;
        copy_gpu *c = &g[n];
        c->ordinal = ordinal;
        gv_active_subject(run->facts, ordinal, c->subject, sizeof c->subject);
        gv_errbuf err;
        gv_status st = gv_session_open(run->ctx, (uint32_t)ordinal, &c->s, &err);
        if (st != GV_OK) {
            gv_session_close(&c->s);
            /* Held by another gpuverify: wait for it; no context: reset the GPU. */
            gv_result_action(gv_report_add(run->report, gv_id_cuda_copy_all, c->subject,
                                           st == GV_ERR_BUSY ? GV_ERROR : GV_FAIL, "%s", err.text),
                             st == GV_ERR_BUSY ? GV_ACTION_WAIT : GV_ACTION_RESET_GPU);
            continue;
        }
        gv_active_sample_busy(run, ordinal, &busy);
        at_once[n] = (gv_copy_gpu){.s = &c->s,
                                   .local_cpus = c->s.have_pci ? c->s.pci.local_cpus : "",
                                   .numa_node = c->s.have_pci ? c->s.pci.numa_node : -1};
        n++;
    }
    if (n < 2) {
        if (n == 1)
            gv_report_add(run->report, gv_id_cuda_copy_all, "node", GV_SKIP,
                          "one GPU: no link for GPUs to share (cuda.copy measures it)");
    } else {
        measure(run, g, at_once, n, bytes, samples, copies, &busy);
    }
    for (size_t i = n; i-- > 0;) { /* pushed in order: popped in reverse */
        gv_progress_watch(run->ctx, &g[i].ordinal, 1);
        gv_session_close(&g[i].s);
    }
    gv_progress_watch(run->ctx, NULL, 0);
    free(g);
    free(at_once);
}
