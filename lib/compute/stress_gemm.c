/* SPDX-License-Identifier: Apache-2.0 */
/* gv_stress_gemm: the same cuBLASLt GEMM on every chosen GPU at once for a duration, each
 * result hashed on the GPU (gv_hash_words) and compared with the first iteration's and across
 * GPUs, throughput and NVML telemetry sampled per interval.
 *
 * All GPUs are driven from the calling thread, as gv_nccl_bench does: each has its own session
 * (primary context, stream), switched to with cuCtxSetCurrent. Per interval a batch of GEMMs is
 * queued on every GPU, then each is waited for in turn, so the GPUs run concurrently and the
 * host's work between batches is a small fraction of an interval. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/gemm_run.h"
#include "compute/gpu_lock.h"
#include "compute/session.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "worker/call.h"

#define MAX_BATCH 1024 /* GEMMs per interval: the hash slots each batch needs */
#define WINDOW_S 10.0  /* "the first 10 s" and "the last 10 s" of the issue */
#define FALL_WARN 0.90 /* throughput in the last window below this share of the first */

typedef struct stress_gpu {
    gv_gemm_run g;
    gv_sampler sampler;
    gvcu_deviceptr slots; /* one 64-bit hash per GEMM of a batch */
    uint64_t *host_slots; /* pinned: where the hashes come back */
    uint64_t *zeros;      /* pinned: what clears the slots before a batch */
    unsigned batch;
    int running; /* set up, and no error since */
    double *rates, *times;
    uint32_t nrates, cap;
    /* Batches since the last sample: a batch of MAX_BATCH small GEMMs may take less than an
     * interval, and the series holds one sample per interval (its capacity is made so). */
    double pending_ms, last_sample_t;
    unsigned pending_gemms;
    uint32_t pending_bad;
    gv_stress_gpu *out;
} stress_gpu;

typedef struct stress {
    gv_ctx *ctx;
    gv_stress_opts o;
    const gv_call_watch *watch; /* hears each sample of the series */
    gv_stress_result *r;
    stress_gpu *gpus;
    uint32_t count; /* GPUs opened (sessions pushed in this order) */
} stress;

static gv_status check_opts(gv_ctx *ctx, const gv_stress_opts *o)
{
    if (o->flags)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.flags 0x%x: must be 0", o->flags);
    if (o->dtype < GV_DTYPE_FP32 || o->dtype > GV_DTYPE_FP8_E4M3)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.dtype %d is not a gv_dtype",
                       (int)o->dtype);
    if (o->size < 16 || o->size > 32768 || o->size % 16)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_stress_opts.size %u: a multiple of 16 in 16 .. 32768", o->size);
    if (!(o->duration_s > 0 && o->duration_s <= 30 * 86400.0))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.duration_s %g: (0 .. 30 days]",
                       o->duration_s);
    if (!(o->interval_s >= 0.01 && o->interval_s <= 60))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.interval_s %g: 0.01 .. 60",
                       o->interval_s);
    if (o->gpu_count > GV_STRESS_MAX_GPUS)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.gpu_count %u: 0 .. %d",
                       o->gpu_count, GV_STRESS_MAX_GPUS);
    if (o->series_capacity && !o->series)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_stress_opts.series_capacity %u needs series (NULL)", o->series_capacity);
    for (uint32_t i = 0; i < o->gpu_count; i++)
        for (uint32_t j = 0; j < i; j++)
            if (o->gpus[i] == o->gpus[j])
                return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_opts.gpus: %u twice",
                               o->gpus[i]);
    return GV_OK;
}

static int use(stress_gpu *sg)
{
    return sg->g.s.cu->cuCtxSetCurrent(sg->g.s.context);
}

/* Queues: clear the slots, the batch of GEMMs each followed by the hash of its result, and the
 * hashes' copy back; timed by the run's events. */
static int queue_batch(stress_gpu *sg, unsigned n)
{
    gv_gemm_run *g = &sg->g;
    const struct gv_cuda_api *cu = g->s.cu;
    uint64_t words = (uint64_t)g->o.m * g->o.n * g->plan->out_size / 8;
    int rc = cu->cuMemcpyHtoDAsync(sg->slots, sg->zeros, n * sizeof(uint64_t), g->s.stream);
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventRecord(g->start, g->s.stream);
    for (unsigned i = 0; i < n && rc == GVCU_SUCCESS; i++) {
        int st = gv_gemm_matmul(g, &g->algo);
        if (st != GVBL_STATUS_SUCCESS)
            return gv_gemm_lt_fail(g, "cublasLtMatmul", st), -1;
        rc = gv_session_hash_words(&g->s, g->d, words, sg->slots + i * sizeof(uint64_t));
    }
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventRecord(g->end, g->s.stream);
    if (rc == GVCU_SUCCESS)
        rc = cu->cuMemcpyDtoHAsync(sg->host_slots, sg->slots, n * sizeof(uint64_t), g->s.stream);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(&g->s, &g->err, "queueing the stress GEMMs", rc), -1;
    return 0;
}

/* Waits for the queued batch; its GPU time in ms, or -1 (err set). */
static double wait_batch(stress_gpu *sg)
{
    gv_gemm_run *g = &sg->g;
    float ms = 0;
    int rc = gv_session_sync(&g->s, GV_SESSION_STEP_TIMEOUT_S);
    if (rc == GVCU_SUCCESS)
        rc = g->s.cu->cuEventElapsedTime(&ms, g->start, g->end);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(&g->s, &g->err, "waiting for the stress GEMMs", rc), -1;
    return ms;
}

/* Session, cuBLASLt, inputs, the algorithm (the fastest of the heuristic's candidates on the
 * first GPU of a model, the same candidate on the others, so that their results can be
 * compared bit for bit), buffers for the hashes, and the first result's hash. */
static gv_status open_gpu(stress *st, uint32_t cuda, stress_gpu *sg)
{
    gv_stress_gpu *out = sg->out;
    gv_gemm_run *g = &sg->g;
    gv_gemm_opts o = GV_GEMM_OPTS_INIT;
    o.dtype = st->o.dtype;
    o.m = o.n = o.k = st->o.size;
    o.seed = st->o.seed;
    g->o = o;
    g->plan = &gv_gemm_plans[o.dtype];
    gv_gemm_result scratch = GV_GEMM_RESULT_INIT;
    gv_status s = gv_gemm_prepare(st->ctx, g, cuda, &scratch);
    snprintf(out->name, sizeof out->name, "%s", g->s.name);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%s", g->s.bus_id);
    if (s != GV_OK)
        return s; /* not a GPU of this node: the caller's error */
    snprintf(st->r->library_version, sizeof st->r->library_version, "%s", scratch.library_version);
    if (scratch.verdict != GV_PASS) {
        out->verdict = scratch.verdict;
        snprintf(out->message, sizeof out->message, "%s", scratch.message);
        return GV_OK;
    }
    const struct gv_cuda_api *cu = g->s.cu;
    double ms = 0;
    int rc;
    for (stress_gpu *peer = st->gpus; peer < sg && !g->candidate; peer++)
        if (peer->g.candidate && !strcmp(peer->out->name, out->name))
            g->candidate = peer->g.candidate;
    if (gv_gemm_setup(g) != GV_OK || gv_gemm_choose_algo(g, &scratch, &ms) != GV_OK) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message, "%s", g->err.text);
        return GV_OK;
    }
    void *host = NULL, *zeros = NULL;
    if ((rc = cu->cuMemAlloc(&sg->slots, MAX_BATCH * sizeof(uint64_t))) != GVCU_SUCCESS ||
        (rc = cu->cuMemHostAlloc(&host, MAX_BATCH * sizeof(uint64_t), 0)) != GVCU_SUCCESS ||
        (rc = cu->cuMemHostAlloc(&zeros, MAX_BATCH * sizeof(uint64_t), 0)) != GVCU_SUCCESS) {
        gv_session_fail(&g->s, &g->err, "allocating the result hashes", rc);
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message, "%s", g->err.text);
        if (host)
            cu->cuMemFreeHost(host);
        return GV_OK;
    }
    sg->host_slots = host;
    sg->zeros = zeros;
    memset(sg->zeros, 0, MAX_BATCH * sizeof(uint64_t));
    if (queue_batch(sg, 1) != 0 || wait_batch(sg) < 0) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message, "%s", g->err.text);
        return GV_OK;
    }
    out->result_hash = sg->host_slots[0];
    /* GEMM and hash together, timed once more now that the kernels are loaded; by the host's
     * clock too, which is what an interval is when launches cost more than the work. */
    double wall = gv_now_s();
    double per = queue_batch(sg, 2) == 0 ? wait_batch(sg) / 2 : -1;
    wall = (gv_now_s() - wall) * 1e3 / 2;
    if (per > 0 && wall > per)
        per = wall;
    if (per <= 0) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message, "%s", g->err.text);
        return GV_OK;
    }
    double fit = st->o.interval_s * 1e3 / per;
    sg->batch = fit < 1 ? 1 : fit > MAX_BATCH ? MAX_BATCH : (unsigned)fit;
    sg->cap = (uint32_t)(st->o.duration_s / (0.9 * st->o.interval_s)) + 16;
    sg->rates = calloc(sg->cap, sizeof *sg->rates);
    sg->times = calloc(sg->cap, sizeof *sg->times);
    if (!sg->rates || !sg->times)
        return gv_err(&g->err, GV_ERR_NO_MEMORY, "out of memory for the time series");
    out->power_limit_w = gv_telemetry_power_limit_w(st->ctx, g->s.bus_id);
    sg->running = 1;
    return GV_OK;
}

static void take_sample(stress *st, stress_gpu *sg, double t);

/* The batch's hashes against the first result; a sample into the series once an interval has
 * passed since the last (or at once when a result differed). */
static void take_batch(stress *st, stress_gpu *sg, double ms, double t)
{
    gv_stress_gpu *out = sg->out;
    uint32_t bad = 0;
    for (unsigned i = 0; i < sg->batch; i++) {
        out->iterations++;
        if (sg->host_slots[i] != out->result_hash) {
            bad++;
            if (!out->first_mismatch)
                out->first_mismatch = out->iterations;
        }
    }
    out->mismatches += bad;
    sg->pending_ms += ms;
    sg->pending_gemms += sg->batch;
    sg->pending_bad += bad;
    /* 0.9: a batch sized to fill an interval ends a little short of it (a whole number of
     * GEMMs), and each such batch is a sample of its own. */
    if (t - sg->last_sample_t >= 0.9 * st->o.interval_s || bad)
        take_sample(st, sg, t);
}

/* The batches since the last sample as one sample of the series. */
static void take_sample(stress *st, stress_gpu *sg, double t)
{
    gv_stress_gpu *out = sg->out;
    double flop = 2.0 * st->o.size * st->o.size * (double)st->o.size;
    double tflops =
        sg->pending_ms > 0 ? flop * sg->pending_gemms / (sg->pending_ms * 1e-3) / 1e12 : 0;
    uint32_t bad = sg->pending_bad;
    sg->pending_ms = 0;
    sg->pending_gemms = 0;
    sg->pending_bad = 0;
    sg->last_sample_t = t;
    if (sg->nrates < sg->cap) {
        sg->rates[sg->nrates] = tflops;
        sg->times[sg->nrates++] = t;
    }
    gv_sample_interval iv;
    gv_sampler_take(&sg->sampler, &iv);
    gv_stress_result *r = st->r;
    if (r->series_count < st->o.series_capacity && st->watch && st->watch->sample) {
        gv_stress_sample one = {
            t,          tflops,          iv.clock_mhz, iv.power_w, iv.temperature_c,
            iv.reasons, out->cuda_index, bad};
        st->watch->sample(st->watch->user, &one);
        r->series_count++;
    } else {
        r->series_dropped++;
    }
}

/* A GPU's batch failed or never completed: it stops, the others go on. */
static void stop_gpu(stress_gpu *sg)
{
    sg->running = 0;
    sg->out->verdict = GV_FAIL;
    snprintf(sg->out->message, sizeof sg->out->message, "%s", sg->g.err.text);
}

/* Queues a batch and marks its end; when it was queued, or -1 (err set). */
static double start_batch(stress_gpu *sg)
{
    int rc = use(sg);
    if (rc == GVCU_SUCCESS && queue_batch(sg, sg->batch) != 0)
        return -1;
    if (rc == GVCU_SUCCESS)
        rc = gv_session_mark(&sg->g.s);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(&sg->g.s, &sg->g.err, "queueing the stress GEMMs", rc), -1;
    return gv_now_s();
}

/* The batch's GPU time in ms once it is done; 0 while it runs; -1 (err set) on an error or
 * past the step's time. */
static double batch_done(stress_gpu *sg, double queued)
{
    gv_gemm_run *g = &sg->g;
    int rc = use(sg);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_poll(&g->s);
    if (rc == GVCU_ERROR_NOT_READY)
        rc = gv_now_s() - queued > GV_SESSION_STEP_TIMEOUT_S ? GVCU_ERROR_LAUNCH_TIMEOUT : rc;
    if (rc == GVCU_ERROR_NOT_READY)
        return 0;
    float ms = 0;
    if (rc == GVCU_SUCCESS)
        rc = g->s.cu->cuEventElapsedTime(&ms, g->start, g->end);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(&g->s, &g->err, "waiting for the stress GEMMs", rc), -1;
    return ms > 0 ? ms : 1e-6;
}

/* The run itself: a batch queued on every GPU, and each GPU's next as soon as its last is
 * done, so that each runs at its own pace: a slow or hung GPU holds up no other (its heartbeats
 * stop alone, and gv_run names it). */
static void run(stress *st)
{
    int watched[GV_STRESS_MAX_GPUS];
    size_t nwatched = 0;
    for (uint32_t i = 0; i < st->count; i++)
        if (st->gpus[i].running) {
            gv_sampler_start(&st->gpus[i].sampler, st->ctx, st->gpus[i].g.s.bus_id);
            watched[nwatched++] = st->gpus[i].out->cuda_index;
        }
    double t0 = gv_now_s();
    gv_progress_stage(st->ctx, "GEMMs on %u GPU(s) for %.0f s", st->count, st->o.duration_s);
    gv_progress_watch(st->ctx, watched, nwatched);
    double queued[GV_STRESS_MAX_GPUS] = {0};
    for (uint32_t i = 0; i < st->count; i++)
        if (st->gpus[i].running && (queued[i] = start_batch(&st->gpus[i])) < 0)
            stop_gpu(&st->gpus[i]);
    for (int busy = 1; busy;) {
        busy = 0;
        for (uint32_t i = 0; i < st->count; i++) {
            stress_gpu *sg = &st->gpus[i];
            if (!sg->running || queued[i] <= 0)
                continue;
            double ms = batch_done(sg, queued[i]);
            if (ms == 0) {
                busy = 1;
                continue;
            }
            queued[i] = 0;
            if (ms < 0) {
                stop_gpu(sg);
                continue;
            }
            take_batch(st, sg, ms, gv_now_s() - t0);
            if (gv_now_s() - t0 < st->o.duration_s) {
                if ((queued[i] = start_batch(sg)) < 0)
                    stop_gpu(sg);
                else
                    busy = 1;
            }
        }
        if (busy) {
            struct timespec nap = {0, 20000}; /* 20 us, as gv_session_sync */
            nanosleep(&nap, NULL);
        }
    }
    st->r->duration_s = gv_now_s() - t0;
    for (uint32_t i = 0; i < st->count; i++) {
        stress_gpu *sg = &st->gpus[i];
        if (sg->pending_gemms) /* the last interval's batches, however short */
            take_sample(st, sg, gv_now_s() - t0);
        gv_sampler_stop(&sg->sampler);
        gv_stress_gpu *out = sg->out;
        gv_sample_totals t;
        gv_sampler_totals(&sg->sampler, &t);
        out->sm_clock_mean_mhz = t.clock_mean_mhz;
        out->sm_clock_min_mhz = t.clock_min_mhz;
        out->power_mean_w = t.power_mean_w;
        out->power_max_w = t.power_max_w;
        out->temperature_max_c = t.temperature_max_c;
        out->clock_event_reasons = t.reasons;
    }
}

/* Median of the rates whose time lies in [from, to). */
static double window_median(const stress_gpu *sg, double from, double to)
{
    double *v = malloc((sg->nrates ? sg->nrates : 1) * sizeof *v);
    size_t n = 0;
    for (uint32_t i = 0; v && i < sg->nrates; i++)
        if (sg->times[i] >= from && sg->times[i] < to)
            v[n++] = sg->rates[i];
    double m = n ? gv_median(v, n) : 0;
    free(v);
    return m;
}

/* Whether two GPUs ran the same computation: the same model and the same algorithm (the
 * candidate index was shared; the bytes say cuBLASLt gave the same algorithm for it). Only
 * those must give the same bits. */
static int comparable(const stress_gpu *a, const stress_gpu *b)
{
    return a->out->iterations && b->out->iterations && !strcmp(a->out->name, b->out->name) &&
           !memcmp(&a->g.algo, &b->g.algo, sizeof a->g.algo);
}

/* GPUs comparable with `a` whose first result hashed as `hash`. */
static uint32_t sharing(const stress *st, const stress_gpu *a, uint64_t hash)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < st->count; k++)
        n += comparable(a, &st->gpus[k]) && st->gpus[k].out->result_hash == hash;
    return n;
}

/* Which GPUs' first results agree: the hash most comparable GPUs gave is the reference, and a
 * GPU with another is the one that computes differently; with two that differ, both. */
static void compare_gpus(stress *st)
{
    for (uint32_t i = 0; i < st->count; i++) {
        stress_gpu *a = &st->gpus[i];
        a->out->agrees = -1;
        uint32_t peers = 0, best = 0;
        for (uint32_t j = 0; j < st->count; j++) {
            if (!comparable(a, &st->gpus[j]))
                continue;
            peers++;
            uint32_t n = sharing(st, a, st->gpus[j].out->result_hash);
            best = n > best ? n : best;
        }
        if (peers < 2)
            continue; /* nothing to compare with */
        uint32_t same = sharing(st, a, a->out->result_hash);
        a->out->agrees = same == best && same * 2 > peers ? 1 : 0;
    }
}

static void judge_gpu(const stress *st, stress_gpu *sg)
{
    gv_stress_gpu *out = sg->out;
    if (out->iterations == 0) {
        if (out->verdict == GV_PASS) {
            out->verdict = GV_FAIL;
            snprintf(out->message, sizeof out->message, "no GEMM completed");
        }
        return;
    }
    double end = st->r->duration_s;
    double window = end >= 2 * WINDOW_S ? WINDOW_S : end / 10;
    out->samples = sg->nrates;
    out->tflops_median = gv_median(sg->rates, sg->nrates);
    out->tflops_min = sg->rates[0];
    for (uint32_t i = 1; i < sg->nrates; i++)
        if (sg->rates[i] < out->tflops_min)
            out->tflops_min = sg->rates[i];
    out->tflops_first = window_median(sg, 0, window);
    out->tflops_last = window_median(sg, end - window, end + 1);
    if (out->tflops_first <= 0)
        out->tflops_first = sg->rates[0];
    if (out->tflops_last <= 0)
        out->tflops_last = sg->rates[sg->nrates - 1];
    char held[96];
    gv_clock_events_text(out->clock_event_reasons, held, sizeof held);
    const char *dtype = gv_dtype_name(st->o.dtype);
    if (out->verdict == GV_FAIL) { /* a CUDA error stopped it: keep that message */
        size_t len = strlen(out->message);
        snprintf(out->message + len, sizeof out->message - len, " (after %llu GEMMs)",
                 (unsigned long long)out->iterations);
    } else if (out->mismatches) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message,
                 "%llu of %llu %s GEMM results differed from the first (first at iteration "
                 "%llu): silent data corruption",
                 (unsigned long long)out->mismatches, (unsigned long long)out->iterations, dtype,
                 (unsigned long long)out->first_mismatch);
    } else if (out->agrees == 0) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message,
                 "its %s GEMM result (hash 0x%016llx) differs from the other %s GPUs' on the same "
                 "inputs: silent data corruption",
                 dtype, (unsigned long long)out->result_hash, out->name);
    } else if (out->tflops_last < FALL_WARN * out->tflops_first) {
        out->verdict = GV_WARN;
        snprintf(out->message, sizeof out->message,
                 "throughput fell %.0f%%: %.1f TFLOPS in the first %.3g s, %.1f in the last%s%s",
                 100 * (1 - out->tflops_last / out->tflops_first), out->tflops_first, window,
                 out->tflops_last, held[0] ? "; held back by " : "", held);
    } else if (out->clock_event_reasons & GV_CLOCK_EVENTS_PROTECTIVE) {
        char stepped[96];
        gv_clock_events_text(out->clock_event_reasons & GV_CLOCK_EVENTS_PROTECTIVE, stepped,
                             sizeof stepped);
        out->verdict = GV_WARN;
        snprintf(out->message, sizeof out->message,
                 "the hardware cut the clocks during the stress (%s), max %.0f C; %.1f TFLOPS "
                 "median (held back by %s)",
                 stepped, out->temperature_max_c, out->tflops_median, held);
    } else {
        out->verdict = GV_PASS;
        snprintf(out->message, sizeof out->message,
                 "%s %u^3 for %.0f s: %.1f TFLOPS median (first %.3g s %.1f, last %.1f, min "
                 "%.1f); %llu results identical to the first%s%s%s",
                 dtype, st->o.size, end, out->tflops_median, window, out->tflops_first,
                 out->tflops_last, out->tflops_min, (unsigned long long)out->iterations,
                 out->agrees == 1 ? " and to the other GPUs'" : "",
                 held[0] ? "; clocks managed by " : "", held);
    }
}

static void judge(stress *st)
{
    gv_stress_result *r = st->r;
    compare_gpus(st);
    r->verdict = GV_SKIP;
    uint32_t ran = 0;
    for (uint32_t i = 0; i < st->count; i++) {
        judge_gpu(st, &st->gpus[i]);
        r->verdict = gv_verdict_worse(r->verdict, st->gpus[i].out->verdict);
        ran += st->gpus[i].out->iterations > 0;
    }
    double sum = 0;
    for (uint32_t i = 0; i < st->count; i++)
        sum += st->gpus[i].out->tflops_median;
    snprintf(r->message, sizeof r->message,
             "%s %u^3 on %u of %u GPU(s) at once for %.1f s: %.1f TFLOPS in all (medians)",
             gv_dtype_name(st->o.dtype), st->o.size, ran, st->count, r->duration_s, sum);
}

/* Each GPU's result fingerprint of the stress's data type, now that the load ran (the GPU hot,
 * at the clocks the load brought), its stress buffers given back first; a GPU an error stopped
 * gets none. One that cannot be made changes no verdict, and the GPU's message says why. */
static void fingerprint_all(stress *st)
{
    gv_progress_stage(st->ctx, "cuBLASLt: the result fingerprints (%u^3, no split-K)",
                      GV_FINGERPRINT_SIZE);
    for (uint32_t i = 0; i < st->count; i++) {
        stress_gpu *sg = &st->gpus[i];
        if (!sg->running)
            continue;
        gv_progress_watch(st->ctx, &sg->out->cuda_index, 1);
        if (use(sg) != GVCU_SUCCESS)
            continue;
        gv_gemm_free(&sg->g);
        gv_errbuf why = {{0}};
        if (gv_gemm_make_fingerprint(&sg->g, st->o.dtype, &st->r->fingerprints[i], &why) != GV_OK) {
            char text[sizeof why.text + 32];
            snprintf(text, sizeof text, "no result fingerprint: %s", why.text);
            gv_append(sg->out->message, sizeof sg->out->message, "; ", text);
        }
    }
}

static void close_all(stress *st)
{
    for (uint32_t i = st->count; i-- > 0;) {
        stress_gpu *sg = &st->gpus[i];
        const struct gv_cuda_api *cu = sg->g.s.cu;
        gv_progress_watch(st->ctx, &sg->out->cuda_index, 1); /* its teardown may hang too */
        if (cu && sg->g.s.context)
            use(sg);
        if (cu && sg->slots)
            cu->cuMemFree(sg->slots);
        if (cu && sg->host_slots)
            cu->cuMemFreeHost(sg->host_slots);
        if (cu && sg->zeros)
            cu->cuMemFreeHost(sg->zeros);
        free(sg->rates);
        free(sg->times);
        gv_gemm_release(&sg->g);
    }
    free(st->gpus);
}

/* The options cross to gpuverify-worker whole; their series pointer means nothing there: the
 * samples come back through the watch. */
static gv_status stress_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch,
                             void *result)
{
    stress st = {.ctx = ctx, .o = *(const gv_stress_opts *)args, .watch = watch};
    gv_status s = GV_OK;
    gv_stress_result *r = result;
    st.gpus = calloc(GV_STRESS_MAX_GPUS, sizeof *st.gpus);
    if (!st.gpus)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    r->dtype = st.o.dtype;
    r->size = st.o.size;
    st.r = r;
    /* Every GPU CUDA has when none are named (one when CUDA cannot say: its row says why). */
    uint32_t wanted = st.o.gpu_count;
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    int visible = 0;
    if (!wanted)
        wanted = cu && gv_cuda_init(ctx) == GVCU_SUCCESS &&
                         cu->cuDeviceGetCount(&visible) == GVCU_SUCCESS && visible > 0
                     ? (uint32_t)(visible < GV_STRESS_MAX_GPUS ? visible : GV_STRESS_MAX_GPUS)
                     : 1;
    gv_progress_stage(ctx, "contexts, inputs and the first GEMMs");
    int several;
    gv_errbuf busy = {0};
    if ((s = gv_session_take_several(ctx, wanted, &several, &busy)) != GV_OK) {
        free(st.gpus);
        return gv_fail(ctx, s, "%s", busy.text);
    }
    for (uint32_t i = 0; i < wanted && s == GV_OK; i++) {
        stress_gpu *sg = &st.gpus[st.count++];
        sg->out = &r->gpus[i];
        sg->out->cuda_index = (int32_t)(st.o.gpu_count ? st.o.gpus[i] : i);
        /* From its first call: a GPU hung in its setup is found a deadline later and named. */
        gv_progress_watch(ctx, &sg->out->cuda_index, 1);
        s = open_gpu(&st, (uint32_t)sg->out->cuda_index, sg);
    }
    r->gpu_count = st.count;
    if (s == GV_OK) {
        gv_progress_stage(ctx, "GEMMs on %u GPU%s for %.0f s", st.count, st.count == 1 ? "" : "s",
                          st.o.duration_s);
        run(&st);
        judge(&st);
        fingerprint_all(&st);
    }
    if (s != GV_OK) {
        const char *why = st.gpus[st.count - 1].g.err.text;
        gv_fail(ctx, s, "%s", why[0] ? why : gv_strerror(s));
    }
    close_all(&st);
    if (several)
        gv_several_gpus_give();
    return s;
}

/* The setup within its allowance (GV_DEADLINE_STRESS), then the duration. */
static double stress_deadline(const gv_ctx *ctx, const void *args)
{
    return gv_call_deadline(ctx, GV_DEADLINE_CUDA_START, GV_DEADLINE_STRESS, 1,
                            ((const gv_stress_opts *)args)->duration_s);
}

static void stress_prefill(const void *args, void *result)
{
    const gv_stress_opts *o = args;
    gv_stress_result *r = result;
    r->dtype = o->dtype;
    r->size = o->size;
}

static void stress_describe(const void *args, const void *result, char *out, size_t cap)
{
    const gv_stress_opts *o = args;
    uint32_t gpus = ((const gv_stress_result *)result)->gpu_count;
    if (!gpus)
        gpus = o->gpu_count;
    char on[48] = "every GPU";
    if (gpus)
        snprintf(on, sizeof on, "%u GPU%s", gpus, gpus == 1 ? "" : "s");
    snprintf(out, cap, "gv_stress_gemm (%s, %u) on %s", gv_dtype_name(o->dtype), o->size, on);
}

const gv_call_kind gv_call_stress_gemm =
    GV_CALL_KIND("stress_gemm", gv_stress_opts, gv_stress_result, sizeof(gv_stress_sample),
                 stress_here, stress_deadline, stress_prefill, stress_describe);

/* The caller's series buffer, filled wherever the stress runs. */
typedef struct series_sink {
    gv_stress_sample *series;
    uint32_t capacity, count;
} series_sink;

static void put_sample(void *user, const void *sample)
{
    series_sink *sink = user;
    if (sink->count < sink->capacity)
        memcpy(&sink->series[sink->count++], sample, sizeof(gv_stress_sample));
}

gv_status gv_stress_gemm(gv_ctx *ctx, const gv_stress_opts *opts, gv_stress_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out || !opts)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_stress_gemm: %s is NULL", out ? "opts" : "out");
    static const gv_stress_opts defaults = GV_STRESS_OPTS_INIT;
    gv_stress_opts o;
    gv_status s;
    if ((s = gv_out_known(ctx, "gv_stress_result", out, GV_STRESS_RESULT_SIZE_V1)) ||
        (s = gv_opts_in(ctx, "gv_stress_opts", &o, sizeof o, opts, GV_STRESS_OPTS_SIZE_V1,
                        &defaults)) ||
        (s = check_opts(ctx, &o)))
        return s;
    gv_stress_result *r = calloc(1, sizeof *r);
    if (!r)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    r->struct_size = sizeof *r;
    series_sink sink = {o.series, o.series_capacity, 0};
    s = gv_call(ctx, &gv_call_stress_gemm, &o, put_sample, &sink, r);
    /* What reached the caller's buffer, also from a worker killed mid-run. */
    r->series_count = sink.count;
    s = gv_call_out(s, out, r, sizeof *r, GV_STRESS_RESULT_SIZE_V1);
    free(r);
    return s;
}
