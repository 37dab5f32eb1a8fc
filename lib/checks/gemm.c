/* SPDX-License-Identifier: Apache-2.0 */
/* gemm.fp32 .. gemm.fp8: gv_gemm_bench on each chosen GPU (gv_run's short settings, or the
 * benchmark's at the extended level), judged against the part's datasheet peak; a figure
 * below its floor is measured again before it is judged.
 *
 * A part the datasheet table does not know has only the formula's estimate of its peak, the
 * architecture's data-centre rate, which parts built slower never reach (an H20 does 148 of
 * the 632 FP16 TFLOPS the formula gives its 78 Hopper SMs; GeForce cards run half the tensor
 * rate): judged against it, every healthy such GPU FAILed. An estimate judges nothing
 * (gv_gemm_bench passes it, labelled); such a GPU is judged against the node's other GPUs of
 * the same part once all of them have been measured: slower than they are is what a fault
 * looks like, whatever the part's true peak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/active.h"
#include "checks/check_ids.h"
#include "compute/gpu_specs.h"
#include "checks/busy.h"
#include "core/progress.h"
#include "core/util.h"
#include "gpuverify/gv_compute.h"
#include "gpuverify/gv_policy.h"

/* Of the median of the node's other GPUs of the part: well outside how identical GPUs
 * differ (a few percent; their power caps, ten), and the datasheet rule's distance between
 * what healthy parts reach (70-90% of the peak) and its own WARN (60%) and FAIL (40%). */
#define PEER_WARN 0.75
#define PEER_FAIL 0.50

/* The check of each data type (enum gv_dtype). */
static const char *const ids[] = {[GV_DTYPE_FP32] = gv_id_gemm_fp32,
                                  [GV_DTYPE_TF32] = gv_id_gemm_tf32,
                                  [GV_DTYPE_FP16] = gv_id_gemm_fp16,
                                  [GV_DTYPE_BF16] = gv_id_gemm_bf16,
                                  [GV_DTYPE_FP8_E4M3] = gv_id_gemm_fp8};

/* One GPU's figure for one data type. */
typedef struct gemm_figure {
    int gpu;
    int dtype;
    int part; /* PCI device id, -1 unknown: with the estimated peak, which part it is */
    char subject[48];
    gv_gemm_opts o;
    gv_gemm_result r;
    gv_busy busy;
} gemm_figure;

/* The judgment of an estimated figure by the node's other GPUs of its part. */
typedef struct peers {
    int others;    /* how many were measured alike (verified, nobody else on them) */
    double median; /* of their TFLOPS */
} peers;

/* A figure under the policy's TFLOPS floor (0: none); wrong results are judged as such. */
static int below_policy_floor(const gv_gemm_result *r, double min_tflops)
{
    return min_tflops > 0 && r->verified != 0 && r->tflops_median > 0 &&
           r->tflops_median < min_tflops;
}

/* Measures again with the benchmark's batches, and keeps that figure with the first's in the
 * message: one short window is not a slow part (docs/checks.md). The GPU is warm and its
 * algorithm chosen: a short warm-up, the same candidates. */
static void measure_again(gv_active_run *run, gemm_figure *f)
{
    gv_gemm_opts longer = f->o;
    longer.warmup_s = f->o.warmup_s > 0.2 ? f->o.warmup_s : 0.2;
    longer.batches = 5;
    longer.batch_s = 0.3;
    gv_gemm_result again = GV_GEMM_RESULT_INIT;
    if (gv_gemm_bench(run->ctx, (uint32_t)f->gpu, &longer, &again) == GV_OK &&
        again.verified != -1) {
        char first[96];
        snprintf(first, sizeof first, "measured again: the first, shorter, gave %.1f TFLOPS",
                 f->r.tflops_median);
        f->r = again;
        gv_append(f->r.message, sizeof f->r.message, "; ", first);
    }
    gv_active_sample_busy(run, f->gpu, &f->busy);
}

static int same_part(const gemm_figure *a, const gemm_figure *b)
{
    return a->dtype == b->dtype && a->part == b->part &&
           a->r.peak_tflops == b->r.peak_tflops; /* the same SMs and clocks */
}

/* The median of the figures of f's part other than f's own. */
static peers peers_of(const gemm_figure *all, size_t n, const gemm_figure *f)
{
    peers p = {0, 0};
    double *v = malloc(n * sizeof *v);
    if (!v)
        return p;
    for (size_t i = 0; i < n; i++)
        if (&all[i] != f && same_part(&all[i], f) && all[i].busy.n == 0 && all[i].r.verified == 1 &&
            all[i].r.tflops_median > 0)
            v[p.others++] = all[i].r.tflops_median;
    if (p.others)
        p.median = gv_median(v, (size_t)p.others);
    free(v);
    return p;
}

/* The row of one figure: judged by the policy's floor, else the datasheet (gv_gemm_bench's
 * verdict), else, for an estimated peak, by its peers (NULL: not judged by them). */
static void add_row(gv_active_run *run, const gemm_figure *f, double min_tflops,
                    int fractions_by_policy, const peers *by_peers)
{
    const gv_gemm_result *r = &f->r;
    const char *id = ids[f->dtype];
    int below_floor = below_policy_floor(r, min_tflops);
    int verdict = below_floor ? GV_FAIL : r->verdict;
    char judged[200] = "";
    double ratio = 0;
    if (by_peers && by_peers->others > 0 && by_peers->median > 0) {
        ratio = r->tflops_median / by_peers->median;
        verdict = ratio < PEER_FAIL ? GV_FAIL : ratio < PEER_WARN ? GV_WARN : GV_PASS;
        snprintf(judged, sizeof judged,
                 "; %.0f%% of the median of the node's %d other GPU(s) of this part (%.1f "
                 "TFLOPS), judged on that",
                 100 * ratio, by_peers->others, by_peers->median);
    } else if (by_peers) {
        snprintf(judged, sizeof judged,
                 "; no other GPU of this part on the node measured alike "
                 "to judge it against");
    }
    gv_check_result *c =
        gv_report_add(run->report, id, f->subject, verdict, "%s%s%s",
                      below_floor ? "below the policy's floor: " : "", r->message, judged);
    if (r->fingerprint.hash[0])
        gv_result_fingerprint(c, r->fingerprint.hash, r->fingerprint.key);
    if (r->tflops_median > 0) {
        gv_result_measured(c, r->tflops_median, "TFLOPS", "%.1f TFLOPS", r->tflops_median);
        if (min_tflops > 0)
            gv_result_expected(c, "policy", ">= %.0f TFLOPS", min_tflops);
        else if (by_peers && by_peers->others > 0)
            gv_result_expected(c, "node",
                               ">= %.1f TFLOPS (%.0f%% of the median of %d other "
                               "GPU(s) of this part)",
                               PEER_WARN * by_peers->median, 100 * PEER_WARN, by_peers->others);
        else if (r->peak_tflops > 0 && r->peak_estimated)
            gv_result_expected(c, "formula", "not judged: %.0f TFLOPS is an estimate (%s)",
                               r->peak_tflops, r->peak_source);
        else if (r->peak_tflops > 0)
            gv_result_expected(c, fractions_by_policy ? "policy" : "datasheet",
                               ">= %.0f TFLOPS (%.0f%% of %.0f: %s)",
                               f->o.warn_fraction * r->peak_tflops, 100 * f->o.warn_fraction,
                               r->peak_tflops, r->peak_source);
    }
    if (verdict == GV_FAIL && r->verified == 0)
        gv_result_remedy(c, "drain the node: the GPU computes wrong results; run the "
                            "vendor diagnostics (dcgmi diag -r 3) and replace it");
    else if ((verdict == GV_WARN || verdict == GV_FAIL) && ratio > 0)
        gv_result_remedy(c, "compare this GPU's clocks, power and thermals with the others' "
                            "(nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE); replace it if it "
                            "stays slower than its peers");
    else if (verdict == GV_WARN || verdict == GV_FAIL)
        gv_result_remedy(c, "check clocks, power and thermals (nvidia-smi -q -d "
                            "PERFORMANCE) and other processes on the GPU");
    /* Wrong results, or a figure still low when measured again at benchmark length: the GPU.
     * No figure at all: a cuBLASLt or CUDA call failed on it, and a reset comes first. */
    gv_result_action(c, r->verified == 0 || r->tflops_median > 0 ? GV_ACTION_HW_INSPECT
                                                                 : GV_ACTION_RESET_GPU);
    gv_busy_apply(&f->busy, run->policy, c, r->verified == 0 && r->verdict == GV_FAIL);
}

/* The estimated figures, once every GPU was measured: each one slower than its peers allow
 * is measured again, then each is judged against the others' figures as they stand. */
static void judge_by_peers(gv_active_run *run, gemm_figure *waiting, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        peers p = peers_of(waiting, n, &waiting[i]);
        if (p.others && waiting[i].r.tflops_median < PEER_WARN * p.median) {
            gv_progress_begin(run->ctx, ids[waiting[i].dtype], waiting[i].subject);
            measure_again(run, &waiting[i]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        peers p = peers_of(waiting, n, &waiting[i]);
        add_row(run, &waiting[i], 0, 0, &p);
    }
}

int gv_gemm_needs_peers(const gv_facts *f, const int *gpu_chosen)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu *g = &f->gpus[i].gpu;
        if (g->cuda_index < 0 || (gpu_chosen && !gpu_chosen[g->cuda_index]))
            continue;
        for (int dtype = GV_DTYPE_FP32; dtype <= GV_DTYPE_FP8_E4M3; dtype++) {
            char source[128];
            int estimated = 0;
            if (gv_peak_tflops(g->pci_device_id, g->cc_major, g->cc_minor, g->sm_count,
                               g->max_sm_clock_mhz, dtype, source, sizeof source, &estimated) > 0 &&
                estimated)
                return 1;
        }
    }
    return 0;
}

static gv_gemm_opts gemm_opts(const gv_active_run *run, int dtype)
{
    const gv_policy *p = run->policy;
    gv_gemm_opts o = GV_GEMM_OPTS_INIT; /* benchmark length: 8192^3, 1 s warm-up */
    o.dtype = dtype;
    if (!run->benchmark) {
        o.m = o.n = o.k = dtype <= GV_DTYPE_TF32 ? 4096 : 8192;
        o.warmup_s = 0.1;
        o.batch_s = 0.03;
        o.batches = 3;
        o.algo_candidates = 2;
    }
    if (run->gemm_size)
        o.m = o.n = o.k = run->gemm_size;
    if (p && p->gemm_warn_fraction > 0)
        o.warn_fraction = p->gemm_warn_fraction;
    if (p && p->gemm_fail_fraction > 0)
        o.fail_fraction = p->gemm_fail_fraction;
    if (o.fail_fraction > o.warn_fraction)
        o.warn_fraction = o.fail_fraction;
    return o;
}

void gv_active_gemm(gv_active_run *run)
{
    if (gv_active_no_devices(run, gv_active_group(gv_active_gemm)))
        return;
    const gv_policy *p = run->policy;
    int fractions_by_policy = p && (p->gemm_warn_fraction > 0 || p->gemm_fail_fraction > 0);
    /* The figures whose peak is an estimate wait for their peers. */
    size_t waiting_n = 0;
    gemm_figure *waiting = calloc((size_t)run->facts->cuda_count * 5 + 1, sizeof *waiting);
    for (int gpu = 0; gpu < run->facts->cuda_count; gpu++) {
        if (!gv_active_gpu_chosen(run, gpu))
            continue;
        const gv_gpu_record *g = gv_active_gpu_record(run->facts, gpu);
        for (int dtype = GV_DTYPE_FP32; dtype <= GV_DTYPE_FP8_E4M3; dtype++) {
            if (!gv_active_selected(run, ids[dtype]))
                continue;
            gemm_figure f = {.gpu = gpu, .dtype = dtype, .part = g ? g->gpu.pci_device_id : -1};
            gv_active_subject(run->facts, gpu, f.subject, sizeof f.subject);
            f.o = gemm_opts(run, dtype);
            f.r.struct_size = sizeof f.r;
            double min_tflops = p ? p->gemm_min_tflops[dtype] : 0;
            gv_progress_begin(run->ctx, ids[dtype], f.subject);
            gv_active_sample_busy(run, gpu, &f.busy);
            gv_status bench = gv_gemm_bench(run->ctx, (uint32_t)gpu, &f.o, &f.r);
            gv_active_sample_busy(run, gpu, &f.busy);
            if (bench != GV_OK) {
                gv_result_action(gv_report_add(run->report, ids[dtype], f.subject, GV_ERROR, "%s",
                                               gv_ctx_last_error(run->ctx)),
                                 GV_ACTION_RERUN);
                continue;
            }
            /* Below a floor but right: measured again, and judged on that. */
            if (f.r.verified == 1 && f.busy.n == 0 &&
                (below_policy_floor(&f.r, min_tflops) || f.r.verdict == GV_WARN ||
                 f.r.verdict == GV_FAIL))
                measure_again(run, &f);
            if (waiting && f.r.peak_estimated && f.r.verified == 1 && f.busy.n == 0 &&
                min_tflops <= 0)
                waiting[waiting_n++] = f;
            else
                add_row(run, &f, min_tflops, fractions_by_policy, NULL);
        }
    }
    if (waiting)
        judge_by_peers(run, waiting, waiting_n);
    free(waiting);
}
