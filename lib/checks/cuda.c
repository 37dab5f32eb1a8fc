/* SPDX-License-Identifier: Apache-2.0 */
/* cuda.init, cuda.alloc, cuda.copy, cuda.matmul (gv_active_cuda): rows from gv_cuda_check and
 * our own matmul, one CUDA context per GPU for the group. gv_run uses short settings: a verdict
 * in seconds per GPU (the public functions take full control). */
#include <stdio.h>
#include <string.h>

#include "checks/active.h"
#include "checks/busy.h"
#include "checks/checks.h"
#include "compute/compute.h"
#include "compute/session.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "gpuverify/gv_policy.h"

/* One short window is not a slow part. The figures the run measures briefly (64 MiB copies, a
 * tenth of a second of GEMM) fall below their floors when something else on the host takes the
 * bus or the memory for that moment: a healthy H100 showed D2H 35.0 GB/s (56% of its link) in
 * one standard run of seventeen and 54-55 GB/s in the others. So a figure below its floor is
 * measured again once, at benchmark length, and judged on that longer measurement; the row
 * keeps the first figure. Wrong results are never measured again: they stand; nor is a figure
 * taken while another process used the GPU (the busy rule judges that one, and a tenant made
 * every figure of a standard run slow: measuring each again took it from 6 s to 20 s). */
static void copies_again(gv_active_run *run, uint32_t gpu, const char *subject, uint64_t copy_bytes,
                         gv_cuda_result *r)
{
    if ((r->copy_verdict != GV_WARN && r->copy_verdict != GV_FAIL) || r->h2d_gbps <= 0 ||
        r->d2h_gbps <= 0 || strstr(r->copy_message, "wrong"))
        return; /* judged on something else than a figure (an error, wrong data) */
    gv_cuda_opts o = GV_CUDA_OPTS_INIT; /* benchmark length's samples, the same buffers */
    o.flags = GV_CUDA_SKIP_ALLOC;
    o.copy_bytes = copy_bytes;
    gv_cuda_result again = GV_CUDA_RESULT_INIT;
    gv_progress_begin(run->ctx, gv_id_cuda_copy, subject);
    if (gv_cuda_check(run->ctx, gpu, &o, &again) != GV_OK || again.h2d_gbps <= 0 ||
        again.d2h_gbps <= 0)
        return; /* no figures the second time: the first measurement stands */
    char first[96];
    snprintf(first, sizeof first,
             "measured again: the first, shorter, gave H2D %.1f, D2H %.1f GB/s", r->h2d_gbps,
             r->d2h_gbps);
    r->copy_verdict = again.copy_verdict;
    r->h2d_gbps = again.h2d_gbps;
    r->d2h_gbps = again.d2h_gbps;
    r->d2d_gbps = again.d2d_gbps;
    r->link_current_gbps = again.link_current_gbps;
    r->link_max_gbps = again.link_max_gbps;
    snprintf(r->copy_message, sizeof r->copy_message, "%s", again.copy_message);
    gv_append(r->copy_message, sizeof r->copy_message, "; ", first);
}

/* One GPU's tests: what was measured on it, and who else used it meanwhile. */
typedef struct cuda_gpu {
    int gpu; /* CUDA ordinal */
    char subject[48];
    gv_busy busy;
    int spares;     /* the second VRAM test at the first's size (gv_busy_spares) */
    int context_ok; /* a context was made and the memory read */
    gv_cuda_result r;
    int matmul; /* cuda.matmul selected, m and ms its outcome */
    gv_matmul_result m;
    gv_status ms;
} cuda_gpu;

/* The group's settings: short copies unless at benchmark length (256 MiB, 5 samples of 16). */
static gv_cuda_opts group_opts(const gv_active_run *run)
{
    gv_cuda_opts o = GV_CUDA_OPTS_INIT;
    if (!run->benchmark) {
        o.copy_bytes = 64ull << 20;
        o.copy_samples = 3;
        o.copies_per_sample = 8;
    }
    if (run->copy_bytes)
        o.copy_bytes = run->copy_bytes;
    if (!gv_active_selected(run, gv_id_cuda_alloc))
        o.flags |= GV_CUDA_SKIP_ALLOC;
    if (!gv_active_selected(run, gv_id_cuda_copy))
        o.flags |= GV_CUDA_SKIP_COPY;
    return o;
}

/* Runs the group's tests on one GPU in one context; 0 when gv_cuda_check could not (the rows
 * are then the group's ERRORs). */
static int measure(gv_active_run *run, const gv_cuda_opts *o, const char *charged, cuda_gpu *t)
{
    gv_progress_begin(run->ctx, charged, t->subject);
    gv_active_sample_busy(run, t->gpu, &t->busy);
    /* The second VRAM test holds half the free memory: on a GPU others use, the quick test's
     * size instead (gv_busy_spares). */
    gv_cuda_opts here = *o;
    char spared[512];
    t->spares =
        gv_busy_spares(&t->busy, run->policy, "half its free memory", spared, sizeof spared);
    if (t->spares)
        here.alloc_bytes = here.quick_alloc_bytes;
    /* One context for the group's tests on this GPU: retained here, so creating it is timed
     * here and added to what gv_cuda_check measured (then next to nothing). */
    double made = gv_now_s();
    gv_session_keep_context(run->ctx, (uint32_t)t->gpu, 1);
    made = gv_now_s() - made;
    if (gv_cuda_check(run->ctx, (uint32_t)t->gpu, &here, &t->r) != GV_OK) {
        gv_active_rows_action(run, gv_active_group(gv_active_cuda), t->subject, GV_ERROR,
                              GV_ACTION_RERUN, gv_ctx_last_error(run->ctx));
        gv_session_keep_context(run->ctx, (uint32_t)t->gpu, 0);
        return 0;
    }
    /* While the context lives: the matmul (its row comes after the others). */
    t->matmul = gv_active_selected(run, gv_id_cuda_matmul);
    if (t->matmul) {
        /* 4096, a health-check script's size (8192 at benchmark length), or the GEMM size. */
        uint32_t n = run->gemm_size   ? (run->gemm_size + 15) / 16 * 16
                     : run->benchmark ? 8192
                                      : 4096;
        gv_progress_begin(run->ctx, gv_id_cuda_matmul, t->subject);
        t->ms = gv_matmul_check(run->ctx, (uint32_t)t->gpu, n, &t->m);
    }
    gv_active_sample_busy(run, t->gpu, &t->busy);
    if (gv_active_selected(run, gv_id_cuda_copy) && t->r.context_s > 0 && t->busy.n == 0) {
        copies_again(run, (uint32_t)t->gpu, t->subject, o->copy_bytes, &t->r);
        gv_active_sample_busy(run, t->gpu, &t->busy);
    }
    gv_session_keep_context(run->ctx, (uint32_t)t->gpu, 0);
    t->context_ok = t->r.context_s > 0 && t->r.memory_total > 0;
    if (t->context_ok) { /* the context's creation happened in the retain above */
        t->r.context_s += made;
        gv_cuda_context_message(&t->r, t->r.message, sizeof t->r.message);
    }
    return 1;
}

static void init_row(gv_active_run *run, const cuda_gpu *t)
{
    gv_check_result *c = gv_report_add(run->report, gv_id_cuda_init, t->subject,
                                       t->context_ok ? GV_PASS : GV_FAIL, "%s", t->r.message);
    if (t->context_ok)
        gv_result_measured(c, t->r.context_s, "s", "%.3f s", t->r.context_s);
    /* No context on a GPU NVML answers for: reset it first (a refusal for want of memory
     * others hold is the busy rule's, as the row becomes final). */
    gv_result_action(c, GV_ACTION_RESET_GPU);
}

static void alloc_row(gv_active_run *run, const cuda_gpu *t)
{
    const gv_cuda_result *r = &t->r;
    gv_check_result *c = gv_report_add(run->report, gv_id_cuda_alloc, t->subject,
                                       t->context_ok ? r->alloc_verdict : GV_SKIP, "%s",
                                       t->context_ok ? r->alloc_message : "no CUDA context");
    gv_result_measured(c, (double)r->alloc_errors, "words", "%llu bad words",
                       (unsigned long long)r->alloc_errors);
    if (r->alloc_verdict == GV_FAIL && r->alloc_errors)
        gv_result_remedy(c, "check ECC error counters (nvidia-smi -q -d ECC) and row "
                            "remapping; drain the node and reset or replace the GPU");
    /* Words read back wrong: the memory. Refused or failed otherwise: the context or memory
     * left behind, which a reset clears. */
    gv_result_action(c, r->alloc_errors ? GV_ACTION_HW_INSPECT : GV_ACTION_RESET_GPU);
    const gv_gpu_record *g = gv_active_gpu_record(run->facts, t->gpu);
    long long held = g ? gv_busy_bytes(&t->busy, g->gpu.index) : 0;
    if (c && held > 0) {
        size_t len = strlen(c->message);
        snprintf(c->message + len, sizeof c->message - len,
                 "; other processes hold %.1f GiB of this GPU", (double)held / (1 << 30));
    }
    if (c && t->spares && t->context_ok)
        gv_append(c->message, sizeof c->message, "; ",
                  "the second test at the first's size: the free memory is for the processes "
                  "using the GPU (busy = skip)");
    /* A refused allocation while others hold memory is the load, not the GPU; words read back
     * wrong stay FAIL whatever the load. */
    if (t->context_ok && r->alloc_verdict == GV_FAIL)
        gv_busy_apply(&t->busy, run->policy, c, r->alloc_errors != 0);
}

static void copy_row(gv_active_run *run, const cuda_gpu *t)
{
    const gv_cuda_result *r = &t->r;
    double copy_min = run->policy ? run->policy->copy_min_gbps : 0;
    double slow = r->h2d_gbps < r->d2h_gbps ? r->h2d_gbps : r->d2h_gbps;
    int wrong = strstr(r->copy_message, "wrong") != NULL;
    int verdict = t->context_ok ? r->copy_verdict : GV_SKIP;
    /* A policy floor replaces the link-based judgement, except for wrong data. */
    int by_policy = copy_min > 0 && t->context_ok && r->copy_verdict != GV_SKIP && !wrong;
    if (by_policy)
        verdict = slow >= copy_min ? GV_PASS : GV_FAIL;
    gv_check_result *c = gv_report_add(run->report, gv_id_cuda_copy, t->subject, verdict, "%s",
                                       t->context_ok ? r->copy_message : "no CUDA context");
    gv_result_measured(c, slow, "GB/s", "H2D %.1f, D2H %.1f GB/s", r->h2d_gbps, r->d2h_gbps);
    if (by_policy)
        gv_result_expected(c, "policy", ">= %.1f GB/s", copy_min);
    else if (r->link_max_gbps > 0)
        gv_result_expected(c, "PCIe link", ">= %.1f GB/s (65%% of %.1f)", 0.65 * r->link_max_gbps,
                           r->link_max_gbps);
    if (r->copy_verdict == GV_WARN || r->copy_verdict == GV_FAIL)
        gv_result_remedy(c, "check the link (lspci -vv: LnkSta), the slot and riser, IOMMU "
                            "settings and the NUMA placement of the job");
    /* Figures below the link's (measured twice), or data wrong: the path's hardware. No
     * figures at all: a CUDA call failed, and the GPU is reset first. */
    /* Not measured, another's copies on the host's links all along: wait for them. */
    gv_result_action(c, r->copy_verdict == GV_ERROR ? GV_ACTION_WAIT
                        : r->h2d_gbps > 0 || wrong  ? GV_ACTION_HW_INSPECT
                                                    : GV_ACTION_RESET_GPU);
    gv_busy_apply(&t->busy, run->policy, c, wrong);
    /* Figures of a GPU nobody else used, data right: cuda.copy_all's alone. */
    if (t->context_ok && t->busy.n == 0 && !wrong && t->gpu >= 0 && t->gpu < GV_RUN_MAX_GPUS) {
        run->copy_alone_h2d[t->gpu] = r->h2d_gbps;
        run->copy_alone_d2h[t->gpu] = r->d2h_gbps;
    }
}

static void matmul_row(gv_active_run *run, const cuda_gpu *t)
{
    const gv_matmul_result *m = &t->m;
    gv_check_result *c = gv_report_add(run->report, gv_id_cuda_matmul, t->subject,
                                       t->ms == GV_OK ? m->verdict : GV_ERROR, "%s", m->message);
    if (t->ms == GV_OK && !m->errors)
        gv_result_measured(c, m->f16_tflops, "TFLOPS", "FP16 %.1f, FP32 %.1f TFLOPS", m->f16_tflops,
                           m->f32_tflops);
    if (m->errors)
        gv_result_remedy(c, "drain the node: the GPU computes wrong results; run the vendor "
                            "diagnostics (dcgmi diag -r 3) and replace it");
    /* Wrong products or slow ones: the GPU. The call failing: run it again; a kernel that
     * failed on the GPU without a figure: reset it. */
    gv_result_action(c, t->ms != GV_OK                   ? GV_ACTION_RERUN
                        : m->errors || m->f16_tflops > 0 ? GV_ACTION_HW_INSPECT
                                                         : GV_ACTION_RESET_GPU);
    gv_busy_apply(&t->busy, run->policy, c, m->errors != 0);
}

void gv_active_cuda(gv_active_run *run)
{
    if (gv_active_no_devices(run, gv_active_group(gv_active_cuda)))
        return;
    /* A hang in the context, the VRAM test or the copies is charged to the first of them
     * selected: never to one left out (cuda.matmul when it is alone). */
    const char *charged =
        gv_active_first_selected(run, gv_active_span(gv_id_cuda_init, gv_id_cuda_copy));
    if (!charged)
        charged = gv_id_cuda_matmul;
    gv_cuda_opts o = group_opts(run);
    for (int gpu = 0; gpu < run->facts->cuda_count; gpu++) {
        if (!gv_active_gpu_chosen(run, gpu))
            continue;
        cuda_gpu t = {.gpu = gpu, .r = GV_CUDA_RESULT_INIT};
        gv_active_subject(run->facts, gpu, t.subject, sizeof t.subject);
        if (!measure(run, &o, charged, &t))
            continue;
        if (gv_active_selected(run, gv_id_cuda_init))
            init_row(run, &t);
        if (gv_active_selected(run, gv_id_cuda_alloc))
            alloc_row(run, &t);
        if (gv_active_selected(run, gv_id_cuda_copy))
            copy_row(run, &t);
        if (t.matmul)
            matmul_row(run, &t);
    }
}
