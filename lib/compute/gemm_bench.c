/* SPDX-License-Identifier: Apache-2.0 */
/* gv_gemm_bench: a tensor-core GEMM through cuBLASLt, timed and verified the way
 * a fair benchmark must be: random inputs, the fastest of the heuristic's
 * candidates, warm-up, CUDA-event-timed batches (median and best), NVML telemetry during the
 * batches, and sampled outputs against an FP64 host reference. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/gemm_run.h"
#include "compute/gpu_specs.h"
#include "compute/session.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "kernels/gv_float_bits.h"
#include "worker/call.h"

/* Where element (i, k) of the M x K operand A lives: stored K x M and transposed, or M x K. */
static uint64_t a_index(const gv_gemm_opts *o, int transpose_a, uint64_t i, uint64_t k)
{
    return transpose_a ? i * o->k + k : k * o->m + i;
}

#define GV_GEMMS_PER_BATCH_MAX 1000.0

const char *gv_dtype_name(int32_t dtype)
{
    switch (dtype) {
    case GV_DTYPE_FP32:
        return "fp32";
    case GV_DTYPE_TF32:
        return "tf32";
    case GV_DTYPE_FP16:
        return "fp16";
    case GV_DTYPE_BF16:
        return "bf16";
    case GV_DTYPE_FP8_E4M3:
        return "fp8";
    default:
        return "unknown";
    }
}

static gv_status check_opts(gv_ctx *ctx, const gv_gemm_opts *o)
{
    if (o->flags)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gemm_opts.flags 0x%x: none are defined",
                       o->flags);
    if (o->dtype < GV_DTYPE_FP32 || o->dtype > GV_DTYPE_FP8_E4M3)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gemm_opts.dtype %d is not a gv_dtype",
                       (int)o->dtype);
    if (o->m < 1 || o->n < 1 || o->k < 1 || o->m > 65536 || o->n > 65536 || o->k > 65536)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gemm_opts: m %u, n %u, k %u must be 1..65536",
                       o->m, o->n, o->k);
    if (o->dtype == GV_DTYPE_FP8_E4M3 && (o->m % 16 || o->n % 16 || o->k % 16))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "FP8 GEMM needs m, n, k multiples of 16");
    if (!(o->warmup_s >= 0 && o->warmup_s <= 600) || !(o->batch_s > 0 && o->batch_s <= 600) ||
        o->batches < 1 || o->batches > 1000)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_gemm_opts: warmup_s %g (0..600), batch_s %g (0..600], batches %u "
                       "(1..1000)",
                       o->warmup_s, o->batch_s, o->batches);
    if (o->algo_candidates < 1 || o->algo_candidates > 64 || o->verify_samples > 4096)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_gemm_opts: algo_candidates %u (1..64), verify_samples %u (0..4096)",
                       o->algo_candidates, o->verify_samples);
    if (!(o->fail_fraction >= 0 && o->fail_fraction <= o->warn_fraction && o->warn_fraction <= 1))
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_gemm_opts: need 0 <= fail_fraction %g <= warn_fraction %g <= 1",
                       o->fail_fraction, o->warn_fraction);
    return GV_OK;
}

/* Output element (i, j) against the FP64 dot product of the same random inputs. */
static gv_status verify(gv_gemm_run *g, gv_gemm_result *r)
{
    const gv_gemm_opts *o = &g->o;
    const gv_dtype_plan *p = g->plan;
    r->verify_samples = o->verify_samples;
    r->verified = o->verify_samples ? 1 : -1;
    for (uint32_t s = 0; s < o->verify_samples; s++) {
        uint64_t h = gv_mix64(o->seed ^ (0xc0ffee + s));
        uint64_t i = h % o->m, j = (h >> 32) % o->n;
        uint32_t bits = 0;
        int rc = g->s.cu->cuMemcpyDtoH(&bits, g->d + (j * o->m + i) * p->out_size, p->out_size);
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(&g->s, &g->err, "reading the GEMM output", rc);
        double got = gv_bits_to_double(p->out_bits, bits), want = 0, magnitude = 0;
        for (uint64_t k = 0; k < o->k; k++) {
            double a = gv_bits_to_double(
                p->in_bits, gv_random_bits(p->in_bits, o->seed, a_index(o, p->transpose_a, i, k)));
            double b = gv_bits_to_double(p->in_bits,
                                         gv_random_bits(p->in_bits, o->seed + 1, j * o->k + k));
            want += a * b;
            magnitude += fabs(a * b);
        }
        double bound = p->tolerance * magnitude / sqrt((double)o->k);
        double worst = isfinite(got) ? fabs(got - want) / bound : INFINITY;
        if (worst > r->verify_worst)
            r->verify_worst = worst;
        if (!(worst <= 1.0)) {
            r->verify_errors++;
            r->verified = 0;
        }
    }
    return GV_OK;
}

static gv_status measure(gv_gemm_run *g, gv_gemm_result *r)
{
    double est = 1;
    gv_progress_stage(g->s.ctx, "cuBLASLt: the first matmuls, choosing the algorithm");
    gv_status st = gv_gemm_choose_algo(g, r, &est);
    if (st != GV_OK)
        return st;
    gv_progress_stage(g->s.ctx, "cuBLASLt: warm-up and timed batches");
    /* Warm-up: clocks ramp and modules load; in chunks of ~50 ms so the queue stays short.
     * Batches hold at most GV_GEMMS_PER_BATCH_MAX GEMMs: tiny shapes get shorter batches rather
     * than queues of millions of launches. */
    unsigned chunk = (unsigned)fmin(0.05 / (est * 1e-3) + 1, GV_GEMMS_PER_BATCH_MAX);
    for (double t0 = gv_now_s(); gv_now_s() - t0 < g->o.warmup_s;)
        if (gv_gemm_timed(g, &g->algo, chunk) < 0)
            return GV_ERR_DRIVER;
    unsigned per_batch = (unsigned)fmin(g->o.batch_s / (est * 1e-3), GV_GEMMS_PER_BATCH_MAX);
    r->gemms_per_batch = per_batch ? per_batch : 1;
    double ms[1000];
    gv_sampler sampler;
    gv_sampler_start(&sampler, g->s.ctx, g->s.bus_id);
    for (r->batches = 0; r->batches < g->o.batches; r->batches++) {
        ms[r->batches] = gv_gemm_timed(g, &g->algo, r->gemms_per_batch);
        if (ms[r->batches] < 0)
            break;
    }
    gv_sampler_stop(&sampler);
    g->power_limit_w = gv_telemetry_power_limit_w(g->s.ctx, g->s.bus_id);
    g->power_default_w = gv_telemetry_power_default_w(g->s.ctx, g->s.bus_id);
    if (r->batches < g->o.batches)
        return GV_ERR_DRIVER;
    r->time_median_ms = gv_median(ms, r->batches);
    double flop = 2.0 * g->o.m * g->o.n * g->o.k;
    r->tflops_median = flop / (r->time_median_ms * 1e-3) / 1e12;
    r->tflops_best = flop / (ms[0] * 1e-3) / 1e12;
    gv_sample_totals t;
    gv_sampler_totals(&sampler, &t);
    r->sm_clock_mean_mhz = t.clock_mean_mhz;
    r->sm_clock_min_mhz = t.clock_min_mhz;
    r->power_mean_w = t.power_mean_w;
    r->power_max_w = t.power_max_w;
    r->temperature_max_c = t.temperature_max_c;
    r->clock_event_reasons = t.reasons;
    return verify(g, r);
}

static void judge(const gv_gemm_run *g, gv_gemm_result *r)
{
    char held[96];
    gv_clock_events_text(r->clock_event_reasons, held, sizeof held);
    const char *name = gv_dtype_name(r->dtype);
    if (r->verified == 0) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s GEMM gave wrong results: %u of %u sampled outputs off by up to %.3g x the "
                 "tolerance (silent data corruption)",
                 name, r->verify_errors, r->verify_samples, r->verify_worst);
        return;
    }
    int n = snprintf(r->message, sizeof r->message, "%s %ux%ux%u: %.1f TFLOPS", name, r->m, r->n,
                     r->k, r->tflops_median);
    size_t used = n > 0 ? (size_t)n : 0;
    if (r->peak_tflops > 0 && r->peak_estimated) {
        /* The formula gives the architecture's data-centre rate, which a part built slower
         * never reaches (an H20 reaches 148 of its 632 FP16 TFLOPS): an estimate cannot say a
         * GPU is slow, only a datasheet figure, the policy or the node's other GPUs can. */
        r->fraction_of_peak = r->tflops_median / r->peak_tflops;
        r->verdict = GV_PASS;
        used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                 " = %.0f%% of an estimated %.0f TFLOPS (no datasheet figure for "
                                 "this part: not judged against it)",
                                 100 * r->fraction_of_peak, r->peak_tflops);
    } else if (r->peak_tflops > 0) {
        r->fraction_of_peak = r->tflops_median / r->peak_tflops;
        /* Held at its power limit, a GPU runs the clock its power allows (a part or a limit
         * built for less power than the datasheet's clock needs): below the thresholds at the
         * peak's clock, it is judged at the clock it ran, and only slow at that clock is it a
         * finding. Not when the hardware cut the clocks (thermal, power brake), nor under a
         * limit someone lowered below the board's default (`nvidia-smi -pl`): that is a setting,
         * not the design, and the figure it costs is judged at the peak and the limit named. */
        double at_clock = 0;
        uint64_t why = r->clock_event_reasons;
        int lowered = gv_power_limit_lowered(g->power_limit_w, g->power_default_w);
        if ((why & GV_CLOCK_EVENT_POWER_CAP) && !(why & GV_CLOCK_EVENTS_PROTECTIVE) && !lowered &&
            r->sm_clock_mean_mhz > 0 && r->sm_clock_mean_mhz < g->s.max_sm_clock_mhz &&
            r->fraction_of_peak < g->o.warn_fraction)
            at_clock = r->fraction_of_peak * g->s.max_sm_clock_mhz / r->sm_clock_mean_mhz;
        double judged = fmax(r->fraction_of_peak, at_clock);
        r->verdict = judged < g->o.fail_fraction   ? GV_FAIL
                     : judged < g->o.warn_fraction ? GV_WARN
                                                   : GV_PASS;
        used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                 " = %.0f%% of the %.0f TFLOPS dense peak",
                                 100 * r->fraction_of_peak, r->peak_tflops);
        if (at_clock > 0 && used < sizeof r->message)
            used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                     " (%.0f%% of the peak at the %.0f MHz its power limit held, "
                                     "judged on that)",
                                     100 * at_clock, r->sm_clock_mean_mhz);
        if (lowered && (why & GV_CLOCK_EVENT_POWER_CAP) && used < sizeof r->message)
            used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                     " under a power limit of %.0f W, lowered from the board's "
                                     "default %.0f W",
                                     g->power_limit_w, g->power_default_w);
    } else {
        r->verdict = GV_PASS;
        used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                 " (peak unknown: not judged)");
    }
    if (used < sizeof r->message && r->sm_clock_mean_mhz > 0)
        used += (size_t)snprintf(r->message + used, sizeof r->message - used, ", SM clock %.0f MHz",
                                 r->sm_clock_mean_mhz);
    if (used < sizeof r->message && held[0])
        snprintf(r->message + used, sizeof r->message - used, ", held back by %s", held);
    if (used < sizeof r->message && r->verified == 1)
        snprintf(r->message + strlen(r->message), sizeof r->message - strlen(r->message),
                 ", verified");
}

/* The data type's result fingerprint, with the benchmark's memory given back first. One that
 * cannot be made changes no verdict (it is for comparing nodes), and the message says why. */
static void fingerprint(gv_gemm_run *g, gv_gemm_result *r)
{
    gv_progress_stage(g->s.ctx, "cuBLASLt: the result fingerprint (%u^3, no split-K)",
                      GV_FINGERPRINT_SIZE);
    gv_gemm_free(g);
    gv_errbuf why = {{0}};
    if (gv_gemm_make_fingerprint(g, r->dtype, &r->fingerprint, &why) != GV_OK) {
        char text[sizeof why.text + 32];
        snprintf(text, sizeof text, "no result fingerprint: %s", why.text);
        gv_append(r->message, sizeof r->message, "; ", text);
    }
}

/* What crosses to gpuverify-worker: the GPU and the checked options. */
typedef struct gemm_call {
    uint32_t gpu;
    uint32_t reserved0;
    gv_gemm_opts o;
} gemm_call;

static gv_status gemm_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    (void)watch; /* its stages go through gv_progress_stage */
    const gemm_call *c = args;
    gv_gemm_result *rp = result;
    gv_gemm_run *g = calloc(1, sizeof *g);
    if (!g)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    g->o = c->o;
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    r.dtype = g->o.dtype;
    r.cuda_index = (int32_t)c->gpu;
    r.m = g->o.m, r.n = g->o.n, r.k = g->o.k;
    r.verified = -1;
    g->plan = &gv_gemm_plans[g->o.dtype];
    gv_progress_stage(ctx, "CUDA context, memory and inputs");
    gv_status st = gv_gemm_prepare(ctx, g, c->gpu, &r);
    if (st == GV_OK && r.verdict == GV_PASS) {
        int estimated;
        r.peak_tflops = gv_peak_tflops(g->s.pci_device_id, g->s.cc_major, g->s.cc_minor,
                                       g->s.sm_count, g->s.max_sm_clock_mhz, r.dtype, r.peak_source,
                                       sizeof r.peak_source, &estimated);
        r.peak_estimated = r.peak_tflops > 0 && estimated;
        gv_status run = gv_gemm_setup(g);
        if (run == GV_OK)
            run = measure(g, &r);
        if (run != GV_OK) {
            r.verdict = GV_FAIL;
            snprintf(r.message, sizeof r.message, "%s GEMM failed: %s", gv_dtype_name(r.dtype),
                     g->err.text);
        } else {
            double rate = gv_flop_per_clock_per_sm(g->s.cc_major, g->s.cc_minor, r.dtype);
            if (rate > 0 && r.sm_clock_mean_mhz > 0 && g->s.sm_count > 0)
                r.clock_efficiency =
                    r.tflops_median * 1e12 / (g->s.sm_count * rate * r.sm_clock_mean_mhz * 1e6);
            judge(g, &r);
            fingerprint(g, &r);
        }
    }
    gv_gemm_release(g);
    if (st != GV_OK)
        st = gv_fail(ctx, st, "%s", g->err.text);
    free(g);
    *rp = r;
    return st;
}

/* The warm-up and the timed batches on top of starting CUDA and the bench's own allowance. */
static double gemm_deadline(const gv_ctx *ctx, const void *args)
{
    const gv_gemm_opts *o = &((const gemm_call *)args)->o;
    return gv_call_deadline(ctx, GV_DEADLINE_CUDA_START, GV_DEADLINE_GEMM_BENCH, 1,
                            o->warmup_s + o->batches * o->batch_s);
}

static void gemm_prefill(const void *args, void *result)
{
    const gemm_call *c = args;
    gv_gemm_result *r = result;
    r->dtype = c->o.dtype;
    r->cuda_index = (int32_t)c->gpu;
    r->m = c->o.m, r->n = c->o.n, r->k = c->o.k;
    r->verified = -1;
}

static void gemm_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    const gemm_call *c = args;
    snprintf(out, cap, "gv_gemm_bench (%s, %ux%ux%u) on GPU %u", gv_dtype_name(c->o.dtype), c->o.m,
             c->o.n, c->o.k, c->gpu);
}

const gv_call_kind gv_call_gemm_bench = GV_CALL_KIND(
    "gemm", gemm_call, gv_gemm_result, 0, gemm_here, gemm_deadline, gemm_prefill, gemm_describe);

gv_status gv_gemm_bench(gv_ctx *ctx, uint32_t gpu, const gv_gemm_opts *opts, gv_gemm_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gemm_bench: out is NULL");
    static const gv_gemm_opts defaults = GV_GEMM_OPTS_INIT;
    gemm_call c = {.gpu = gpu};
    gv_status st;
    if ((st = gv_out_known(ctx, "gv_gemm_result", out, GV_GEMM_RESULT_SIZE_V1)) ||
        (st = gv_opts_in(ctx, "gv_gemm_opts", &c.o, sizeof c.o, opts, GV_GEMM_OPTS_SIZE_V1,
                         &defaults)) ||
        (st = check_opts(ctx, &c.o)))
        return st;
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    st = gv_call(ctx, &gv_call_gemm_bench, &c, NULL, NULL, &r);
    return gv_call_out(st, out, &r, sizeof r, GV_GEMM_RESULT_SIZE_V1);
}
