/* SPDX-License-Identifier: Apache-2.0 */
/* stress.gemm and stress.power: gv_stress_gemm on every chosen GPU at once for the run's
 * duration (extended level). stress.gemm judges what the GPUs computed and how throughput
 * held; stress.power whether each GPU drew its power limit under that load, and at what clock
 * and temperature. One run serves both rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/active.h"
#include "checks/check_ids.h"
#include "checks/busy.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "gpuverify/gv_compute.h"

#define SERIES_MAX 3000 /* samples per GPU in the report: a burn of hours gets longer intervals */
#define POWER_HELD 0.95 /* of the enforced limit: a GPU at full tensor load reaches it */
#define CLOCK_TOP 0.97  /* of the maximum SM clock: the GPU ran as fast as it can */

/* The power the GPU held under the load: the median of its intervals' readings, 0 when none
 * had one. NVML's reading is a one-second average, which trails a load that just started: the
 * mean of a 5 s stress on a healthy H100 counted its first second and read 656 W, 94% of the
 * 700 W limit the power cap held it at, and WARNed "did not reach its limit". */
static double held_power_w(const gv_stress_opts *o, const gv_stress_result *r, int32_t cuda_index)
{
    double *v = malloc((r->series_count ? r->series_count : 1) * sizeof *v);
    size_t n = 0;
    for (uint32_t i = 0; v && i < r->series_count; i++)
        if (o->series[i].cuda_index == cuda_index && o->series[i].power_w > 0)
            v[n++] = o->series[i].power_w;
    double held = n ? gv_median(v, n) : 0;
    free(v);
    return held;
}

/* stress.power: whether the GPU drew its power limit under the load, or ran at its maximum
 * clock without needing it (a GPU the load does not make power-limited is not faulty: only
 * one held below both its limit and its top clock is). */
static void power_row(gv_active_run *run, const char *subject, const gv_stress_gpu *g,
                      double drawn_w)
{
    gv_check_result *c;
    if (g->iterations == 0) {
        gv_result_action(gv_report_add(run->report, gv_id_stress_power, subject,
                                       g->verdict == GV_SKIP ? GV_SKIP : GV_FAIL, "no load ran: %s",
                                       g->message),
                         GV_ACTION_RESET_GPU); /* as stress.gemm's row without a GEMM */
        return;
    }
    if (g->power_limit_w <= 0 || g->power_mean_w <= 0) {
        gv_report_add(run->report, gv_id_stress_power, subject, GV_SKIP,
                      "NVML gives no power reading or limit for this GPU: not judged");
        return;
    }
    if (drawn_w <= 0)
        drawn_w = g->power_mean_w;
    double share = drawn_w / g->power_limit_w;
    int capped = (g->clock_event_reasons & GV_CLOCK_EVENT_POWER_CAP) != 0;
    int held = share >= POWER_HELD;
    const gv_gpu_record *rec = gv_active_gpu_record(run->facts, g->cuda_index);
    double top = rec ? rec->gpu.max_sm_clock_mhz : 0;
    int at_top = !held && !capped && top > 0 && g->sm_clock_mean_mhz >= CLOCK_TOP * top;
    /* A limit lowered below the board's default (nvidia-smi -pl) holds the draw to it: the
     * power delivery was not tested where the board was built to run, and held or not says
     * nothing of it then (as gemm.* judges such a GPU at its peak, not at the capped clock). */
    double board = gv_telemetry_power_default_w(run->ctx, g->pci_bus_id);
    int lowered = gv_power_limit_lowered(g->power_limit_w, board);
    char tail[192] = "";
    if (capped)
        snprintf(tail, sizeof tail, "; clocks held back by the power cap");
    else if (at_top)
        snprintf(tail, sizeof tail, "; its top SM clock is %.0f MHz", top);
    if (lowered) {
        char why[128];
        snprintf(why, sizeof why,
                 "; the limit is lowered from the board's default %.0f W: power delivery was "
                 "not tested there",
                 board);
        gv_append(tail, sizeof tail, "", why);
    }
    c = gv_report_add(run->report, gv_id_stress_power, subject,
                      (held || at_top) && !lowered ? GV_PASS : GV_WARN,
                      "%s %.0f W median (%.0f%% of the %.0f W limit), %.0f W mean, %.0f W "
                      "peak, at %.0f MHz mean (min %.0f) and up to %.0f C%s",
                      held     ? "held"
                      : at_top ? "ran at its top clock below its limit (not power-limited):"
                               : "did not reach its limit:",
                      drawn_w, 100 * share, g->power_limit_w, g->power_mean_w, g->power_max_w,
                      g->sm_clock_mean_mhz, g->sm_clock_min_mhz, g->temperature_max_c, tail);
    gv_result_measured(c, drawn_w, "W", "%.0f W", drawn_w);
    gv_result_expected(c, "NVML limit", ">= %.0f W (%.0f%% of %.0f)", POWER_HELD * g->power_limit_w,
                       100 * POWER_HELD, g->power_limit_w);
    if (lowered)
        gv_result_remedy(c,
                         "the power limit is %.0f W, the board's default %.0f W: if nobody "
                         "meant to lower it, restore it (nvidia-smi -pl %.0f) and run the "
                         "stress again",
                         g->power_limit_w, board, board);
    else if (!held && !at_top)
        gv_result_remedy(c, "check the power supply and cabling, the power limit "
                            "(nvidia-smi -q -d POWER) and whether clocks are locked");
    /* A limit someone lowered is a setting; a draw short of an untouched limit is the
     * board's power delivery. */
    gv_result_action(c, lowered ? GV_ACTION_FIX_CONFIG : GV_ACTION_HW_INSPECT);
}

/* The row's time series: the samples of this GPU, in time order. */
static void attach_series(gv_active_run *run, gv_check_result *c, const gv_stress_opts *o,
                          const gv_stress_result *r, int32_t cuda_index)
{
    gv_stress_sample *mine = malloc((r->series_count ? r->series_count : 1) * sizeof *mine);
    uint32_t n = 0;
    for (uint32_t i = 0; mine && i < r->series_count; i++)
        if (o->series[i].cuda_index == cuda_index)
            mine[n++] = o->series[i];
    if (mine)
        gv_report_attach_series(run->report, c, mine, n);
    free(mine);
}

static void gemm_row(gv_active_run *run, const char *subject, const gv_stress_gpu *g,
                     const gv_busy *busy, const gv_stress_opts *o, const gv_stress_result *r)
{
    gv_check_result *c =
        gv_report_add(run->report, gv_id_stress_gemm, subject, g->verdict, "%s", g->message);
    attach_series(run, c, o, r, g->cuda_index);
    const gv_gemm_fingerprint *fp = &r->fingerprints[g - r->gpus];
    if (fp->hash[0])
        gv_result_fingerprint(c, fp->hash, fp->key);
    if (g->iterations)
        gv_result_measured(c, g->tflops_median, "TFLOPS", "%.1f TFLOPS", g->tflops_median);
    int wrong = g->mismatches != 0 || g->agrees == 0;
    if (wrong)
        gv_result_remedy(c, "drain the node: the GPU computes wrong results under load; run "
                            "the vendor diagnostics (dcgmi diag -r 3) and replace it");
    else if (g->verdict == GV_WARN)
        gv_result_remedy(c, "check cooling and power (nvidia-smi -q -d PERFORMANCE,POWER): "
                            "airflow, fans, inlet temperature");
    /* Wrong results, or throughput the hardware cut (cooling, power): the GPU. Stopped by a
     * CUDA error, or no GEMM done: its context is gone, a reset first. */
    gv_result_action(c,
                     wrong || g->verdict == GV_WARN ? GV_ACTION_HW_INSPECT : GV_ACTION_RESET_GPU);
    gv_busy_apply(busy, run->policy, c, wrong);
}

void gv_active_stress(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_stress);
    if (gv_active_no_devices(run, members))
        return;
    gv_stress_opts o = GV_STRESS_OPTS_INIT;
    o.duration_s = run->stress_s;
    if (o.duration_s / o.interval_s > SERIES_MAX)
        o.interval_s = o.duration_s / SERIES_MAX;
    /* Each interval's batch ends in a heartbeat from the GPU (core/progress.h): a few of them
     * within the deadline, whatever the series' length. */
    if (o.interval_s > run->ctx->deadline_s / 4)
        o.interval_s = run->ctx->deadline_s / 4 > 0.1 ? run->ctx->deadline_s / 4 : 0.1;
    if (run->gemm_size)
        o.size = (run->gemm_size + 15) / 16 * 16;
    gv_busy busy[GV_STRESS_MAX_GPUS] = {{0}};
    for (int gpu = 0; gpu < run->facts->cuda_count && o.gpu_count < GV_STRESS_MAX_GPUS; gpu++) {
        if (!gv_active_gpu_chosen(run, gpu))
            continue;
        gv_busy *b = &busy[o.gpu_count];
        *b = (gv_busy){0};
        gv_active_sample_busy(run, gpu, b);
        char spared[512], subject[48];
        if (gv_busy_spares(b, run->policy, "loading it at full power for the run's duration",
                           spared, sizeof spared)) {
            gv_active_subject(run->facts, gpu, subject, sizeof subject);
            gv_active_rows(run, members, subject, GV_SKIP, spared);
            continue;
        }
        o.gpus[o.gpu_count++] = (uint32_t)gpu;
    }
    if (o.gpu_count == 0)
        return; /* every chosen GPU spared, each with its rows */
    gv_progress_begin(run->ctx, gv_id_stress_gemm, "node");
    gv_stress_result *r = malloc(sizeof *r);
    /* A sample every 0.9 interval at the most (stress_gemm.c). */
    o.series_capacity =
        (uint32_t)(o.duration_s / (0.9 * o.interval_s) + 64) * (o.gpu_count ? o.gpu_count : 1);
    o.series = calloc(o.series_capacity, sizeof *o.series);
    if (!r || !o.series) {
        free(o.series);
        free(r);
        gv_active_rows_action(run, members, "node", GV_ERROR, GV_ACTION_RERUN, "out of memory");
        return;
    }
    *r = (gv_stress_result)GV_STRESS_RESULT_INIT;
    double began = gv_now_s();
    gv_status st = gv_stress_gemm(run->ctx, &o, r); /* it watches its GPUs (core/progress.h) */
    gv_progress_watch(run->ctx, NULL, 0);
    /* Every GPU was loaded at once: each row's time is the whole stress, not a share. */
    double took = gv_now_s() - began;
    if (st != GV_OK) {
        gv_active_rows_action(run, members, "node", GV_ERROR, GV_ACTION_RERUN,
                              gv_ctx_last_error(run->ctx));
        free(o.series);
        free(r);
        return;
    }
    for (uint32_t i = 0; i < r->gpu_count; i++) {
        gv_active_sample_busy(run, (int)o.gpus[i], &busy[i]);
        char subject[48];
        gv_active_subject(run->facts, r->gpus[i].cuda_index, subject, sizeof subject);
        /* Set on each row as it is made: the next row's making streams it. */
        size_t before = run->report->count;
        if (gv_active_selected(run, gv_id_stress_gemm))
            gemm_row(run, subject, &r->gpus[i], &busy[i], &o, r);
        if (run->report->count > before)
            run->report->results[run->report->count - 1].duration_s = took;
        before = run->report->count;
        if (gv_active_selected(run, gv_id_stress_power))
            power_row(run, subject, &r->gpus[i], held_power_w(&o, r, r->gpus[i].cuda_index));
        if (run->report->count > before)
            run->report->results[run->report->count - 1].duration_s = took;
    }
    free(o.series);
    free(r);
}
