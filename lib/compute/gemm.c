/* gv_gemm_bench: a tensor-core GEMM through cuBLASLt, timed and verified the way
 * ../shared/design/MEASUREMENT.md says: random inputs, the fastest of the heuristic's
 * candidates, warm-up, CUDA-event-timed batches (median and best), NVML telemetry during the
 * batches, and sampled outputs against an FP64 host reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cublaslt_backend.h"
#include "compute/compute.h"
#include "compute/gpu_specs.h"
#include "compute/session.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "kernels/gv_float_bits.h"

/* How each data type runs: encodings in and out, cuBLASLt types, verification tolerance. */
static const struct dtype_plan {
    int in_bits, out_bits;
    int in_type, out_type, compute;
    size_t in_size, out_size;
    double tolerance; /* of |error| against sum|a*b| / sqrt(K) */
    int cc_needed;    /* major*10 + minor */
    int transpose_a;  /* "TN": what FP8 requires and the faster layout for 16-bit types; FP32
                         and TF32 kernels run best "NN" (measured on H200, bench/results) */
} plans[] = {
    [GV_DTYPE_FP32] = {GV_BITS_FP32, GV_BITS_FP32, GVBL_R_32F, GVBL_R_32F, GVBL_COMPUTE_32F, 4, 4,
                       1e-5, 0, 0},
    [GV_DTYPE_TF32] = {GV_BITS_FP32, GV_BITS_FP32, GVBL_R_32F, GVBL_R_32F,
                       GVBL_COMPUTE_32F_FAST_TF32, 4, 4, 4e-3, 80, 0},
    [GV_DTYPE_FP16] = {GV_BITS_FP16, GV_BITS_FP16, GVBL_R_16F, GVBL_R_16F, GVBL_COMPUTE_32F, 2, 2,
                       1e-2, 0, 1},
    [GV_DTYPE_BF16] = {GV_BITS_BF16, GV_BITS_BF16, GVBL_R_16BF, GVBL_R_16BF, GVBL_COMPUTE_32F, 2, 2,
                       2e-2, 80, 1},
    [GV_DTYPE_FP8_E4M3] = {GV_BITS_FP8_E4M3, GV_BITS_BF16, GVBL_R_8F_E4M3, GVBL_R_16BF,
                           GVBL_COMPUTE_32F, 1, 2, 5e-2, 89, 1},
};

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

/* Everything one run holds, released by gemm_release whatever happened. */
typedef struct gemm_run {
    gv_session s;
    const struct gv_cublaslt_api *lt;
    const struct dtype_plan *plan;
    gv_gemm_opts o;
    gvbl_handle handle;
    gvbl_matmul_desc desc;
    gvbl_layout la, lb, lc;
    gvbl_preference pref;
    gvcu_deviceptr a, b, d, workspace, scale;
    size_t workspace_bytes;
    gvcu_event start, end;
    gvbl_algo algo;
    gv_errbuf err;
} gemm_run;

static gv_status lt_fail(gemm_run *g, const char *call, int status)
{
    const char *name = g->lt->cublasLtGetStatusName ? g->lt->cublasLtGetStatusName(status) : NULL;
    return gv_err(&g->err, GV_ERR_DRIVER, "%s: %s (%d)", call, name ? name : "cuBLAS status",
                  status);
}

static gv_status gemm_setup(gemm_run *g)
{
    const struct gv_cuda_api *cu = g->s.cu;
    const gv_gemm_opts *o = &g->o;
    int rc;
    size_t a_bytes = (size_t)o->k * o->m * g->plan->in_size;
    size_t b_bytes = (size_t)o->k * o->n * g->plan->in_size;
    size_t d_bytes = (size_t)o->m * o->n * g->plan->out_size;
    g->workspace_bytes = g->s.cc_major >= 9 ? 32u << 20 : 4u << 20;
    const char *step = "cuMemAlloc";
    if ((rc = cu->cuMemAlloc(&g->a, a_bytes)) || (rc = cu->cuMemAlloc(&g->b, b_bytes)) ||
        (rc = cu->cuMemAlloc(&g->d, d_bytes)) ||
        (rc = cu->cuMemAlloc(&g->workspace, g->workspace_bytes)) ||
        (rc = cu->cuMemAlloc(&g->scale, sizeof(float))) ||
        (step = "cuEventCreate", rc = cu->cuEventCreate(&g->start, GVCU_EVENT_DEFAULT)) ||
        (rc = cu->cuEventCreate(&g->end, GVCU_EVENT_DEFAULT)))
        return gv_session_fail(&g->s, &g->err, step, rc);
    float one = 1.0f;
    if ((rc = cu->cuMemcpyHtoD(g->scale, &one, sizeof one)) ||
        (rc = gv_session_fill_random(&g->s, g->a, (uint64_t)o->k * o->m, g->plan->in_bits,
                                     o->seed)) ||
        (rc = gv_session_fill_random(&g->s, g->b, (uint64_t)o->k * o->n, g->plan->in_bits,
                                     o->seed + 1)))
        return gv_session_fail(&g->s, &g->err, "filling the random inputs", rc);

    const struct gv_cublaslt_api *lt = g->lt;
    int st;
    if ((st = lt->cublasLtCreate(&g->handle)) != GVBL_STATUS_SUCCESS) {
        g->handle = NULL;
        return lt_fail(g, "cublasLtCreate", st);
    }
    int32_t ta = g->plan->transpose_a ? GVBL_OP_T : GVBL_OP_N, tb = GVBL_OP_N;
    if ((st = lt->cublasLtMatmulDescCreate(&g->desc, g->plan->compute, GVBL_R_32F)))
        return g->desc = NULL, lt_fail(g, "cublasLtMatmulDescCreate", st);
    if ((st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_TRANSA, &ta,
                                                 sizeof ta)) ||
        (st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_TRANSB, &tb, sizeof tb)))
        return lt_fail(g, "cublasLtMatmulDescSetAttribute", st);
    if (o->dtype == GV_DTYPE_FP8_E4M3) {
        void *scale = (void *)(uintptr_t)g->scale;
        if ((st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_A_SCALE_POINTER,
                                                     &scale, sizeof scale)) ||
            (st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_B_SCALE_POINTER,
                                                     &scale, sizeof scale)))
            return lt_fail(g, "cublasLtMatmulDescSetAttribute (FP8 scales)", st);
    }
    /* Column-major: A stored K x M and transposed ("TN"), or M x K ("NN"); B is K x N. */
    if ((st = g->plan->transpose_a
                  ? lt->cublasLtMatrixLayoutCreate(&g->la, g->plan->in_type, o->k, o->m, o->k)
                  : lt->cublasLtMatrixLayoutCreate(&g->la, g->plan->in_type, o->m, o->k, o->m)) ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->lb, g->plan->in_type, o->k, o->n, o->k)) ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->lc, g->plan->out_type, o->m, o->n, o->m)))
        return lt_fail(g, "cublasLtMatrixLayoutCreate", st);
    uint64_t ws = g->workspace_bytes;
    if ((st = lt->cublasLtMatmulPreferenceCreate(&g->pref)))
        return g->pref = NULL, lt_fail(g, "cublasLtMatmulPreferenceCreate", st);
    if ((st = lt->cublasLtMatmulPreferenceSetAttribute(
             g->pref, GVBL_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)))
        return lt_fail(g, "cublasLtMatmulPreferenceSetAttribute", st);
    return GV_OK;
}

static void gemm_release(gemm_run *g)
{
    const struct gv_cuda_api *cu = g->s.cu;
    const struct gv_cublaslt_api *lt = g->lt;
    if (cu && g->s.stream)
        gv_session_sync(&g->s, GV_SESSION_STEP_TIMEOUT_S);
    if (lt) {
        if (g->pref)
            lt->cublasLtMatmulPreferenceDestroy(g->pref);
        if (g->la)
            lt->cublasLtMatrixLayoutDestroy(g->la);
        if (g->lb)
            lt->cublasLtMatrixLayoutDestroy(g->lb);
        if (g->lc)
            lt->cublasLtMatrixLayoutDestroy(g->lc);
        if (g->desc)
            lt->cublasLtMatmulDescDestroy(g->desc);
        if (g->handle)
            lt->cublasLtDestroy(g->handle);
    }
    if (cu) {
        gvcu_deviceptr bufs[] = {g->a, g->b, g->d, g->workspace, g->scale};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
            if (bufs[i])
                cu->cuMemFree(bufs[i]);
        if (g->start)
            cu->cuEventDestroy(g->start);
        if (g->end)
            cu->cuEventDestroy(g->end);
    }
    gv_session_close(&g->s);
}

static int matmul(gemm_run *g, const gvbl_algo *algo)
{
    const float alpha = 1.0f, beta = 0.0f;
    return g->lt->cublasLtMatmul(g->handle, g->desc, &alpha, (const void *)(uintptr_t)g->a, g->la,
                                 (const void *)(uintptr_t)g->b, g->lb, &beta,
                                 (const void *)(uintptr_t)g->d, g->lc, (void *)(uintptr_t)g->d,
                                 g->lc, algo, (void *)(uintptr_t)g->workspace, g->workspace_bytes,
                                 g->s.stream);
}

/* Runs `count` GEMMs between the two events; their mean time in ms, or -1 (err set). */
static double timed(gemm_run *g, const gvbl_algo *algo, unsigned count)
{
    const struct gv_cuda_api *cu = g->s.cu;
    int rc = cu->cuEventRecord(g->start, g->s.stream);
    int st = GVBL_STATUS_SUCCESS;
    for (unsigned i = 0; i < count && rc == GVCU_SUCCESS && st == GVBL_STATUS_SUCCESS; i++)
        st = matmul(g, algo);
    if (st != GVBL_STATUS_SUCCESS) {
        lt_fail(g, "cublasLtMatmul", st);
        return -1;
    }
    float ms = 0;
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventRecord(g->end, g->s.stream);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_sync(&g->s, GV_SESSION_STEP_TIMEOUT_S);
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventElapsedTime(&ms, g->start, g->end);
    if (rc != GVCU_SUCCESS) {
        gv_session_fail(&g->s, &g->err, "timing the GEMMs", rc);
        return -1;
    }
    return ms / count;
}

/* Times each heuristic candidate briefly and keeps the fastest. */
static gv_status choose_algo(gemm_run *g, gv_gemm_result *r, double *ms_out)
{
    gvbl_heuristic cands[64];
    int found = 0;
    int st =
        g->lt->cublasLtMatmulAlgoGetHeuristic(g->handle, g->desc, g->la, g->lb, g->lc, g->lc,
                                              g->pref, (int)g->o.algo_candidates, cands, &found);
    if (st != GVBL_STATUS_SUCCESS || found <= 0)
        return lt_fail(g, "cublasLtMatmulAlgoGetHeuristic (no algorithm for this GEMM)",
                       st ? st : GVBL_STATUS_NOT_SUPPORTED);
    /* Brief timings of power-capped kernels are noisy: time every candidate, then the two
     * fastest again, longer, and take a later candidate only when it is clearly faster than the
     * heuristic's own preference. */
    double ms[64];
    int first = -1, second = -1;
    for (int i = 0; i < found; i++) {
        ms[i] = -1;
        if (cands[i].state != GVBL_STATUS_SUCCESS || timed(g, &cands[i].algo, 1) < 0)
            continue; /* the first run loads the kernel: not timed */
        ms[i] = timed(g, &cands[i].algo, 2);
        r->algos_timed++;
        if (ms[i] <= 0)
            continue;
        if (first < 0 || ms[i] < ms[first]) {
            second = first;
            first = i;
        } else if (second < 0 || ms[i] < ms[second]) {
            second = i;
        }
    }
    if (first < 0)
        return g->err.text[0] ? GV_ERR_DRIVER
                              : gv_err(&g->err, GV_ERR_DRIVER, "no heuristic candidate ran");
    int best_i = first;
    if (second >= 0) {
        double a = 0, b = 0;
        for (int round = 0; round < 3; round++) {
            a += timed(g, &cands[first].algo, 3);
            b += timed(g, &cands[second].algo, 3);
        }
        int early = first < second ? first : second, late = first < second ? second : first;
        double t_early = early == first ? a : b, t_late = early == first ? b : a;
        best_i = t_late < 0.99 * t_early ? late : early;
    }
    double best = ms[best_i];
    g->algo = cands[best_i].algo;
    snprintf(r->algo, sizeof r->algo, "heuristic #%d of %d, workspace %zu MiB", best_i + 1, found,
             g->workspace_bytes >> 20);
    *ms_out = best;
    return GV_OK;
}

/* Output element (i, j) against the FP64 dot product of the same random inputs. */
static gv_status verify(gemm_run *g, gv_gemm_result *r)
{
    const gv_gemm_opts *o = &g->o;
    const struct dtype_plan *p = g->plan;
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

static gv_status measure(gemm_run *g, gv_gemm_result *r)
{
    double est = 1;
    gv_progress_stage(g->s.ctx, "cuBLASLt: the first matmuls, choosing the algorithm");
    gv_status st = choose_algo(g, r, &est);
    if (st != GV_OK)
        return st;
    gv_progress_stage(g->s.ctx, "cuBLASLt: warm-up and timed batches");
    /* Warm-up: clocks ramp and modules load; in chunks of ~50 ms so the queue stays short.
     * Batches hold at most GV_GEMMS_PER_BATCH_MAX GEMMs: tiny shapes get shorter batches rather
     * than queues of millions of launches. */
    unsigned chunk = (unsigned)fmin(0.05 / (est * 1e-3) + 1, GV_GEMMS_PER_BATCH_MAX);
    for (double t0 = gv_now_s(); gv_now_s() - t0 < g->o.warmup_s;)
        if (timed(g, &g->algo, chunk) < 0)
            return GV_ERR_DRIVER;
    unsigned per_batch = (unsigned)fmin(g->o.batch_s / (est * 1e-3), GV_GEMMS_PER_BATCH_MAX);
    r->gemms_per_batch = per_batch ? per_batch : 1;
    double ms[1000];
    gv_sampler sampler;
    gv_sampler_start(&sampler, g->s.ctx, g->s.bus_id);
    for (r->batches = 0; r->batches < g->o.batches; r->batches++) {
        ms[r->batches] = timed(g, &g->algo, r->gemms_per_batch);
        if (ms[r->batches] < 0)
            break;
    }
    gv_sampler_stop(&sampler);
    if (r->batches < g->o.batches)
        return GV_ERR_DRIVER;
    r->time_median_ms = gv_median(ms, r->batches);
    double flop = 2.0 * g->o.m * g->o.n * g->o.k;
    r->tflops_median = flop / (r->time_median_ms * 1e-3) / 1e12;
    r->tflops_best = flop / (ms[0] * 1e-3) / 1e12;
    if (sampler.samples) {
        r->sm_clock_mean_mhz = sampler.clock_sum / sampler.samples;
        r->sm_clock_min_mhz = sampler.clock_min;
    }
    if (sampler.power_samples) {
        r->power_mean_w = sampler.power_sum / sampler.power_samples;
        r->power_max_w = sampler.power_max;
    }
    r->temperature_max_c = sampler.temp_max;
    r->clock_event_reasons = sampler.reasons;
    return verify(g, r);
}

/* The clock-event reasons that mean the GPU was held back (NVML nvmlClocksEventReason*). */
static void describe_reasons(uint64_t reasons, char *out, size_t cap)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {{0x4, "power cap"},
                 {0x8, "hardware slowdown"},
                 {0x20, "thermal (software)"},
                 {0x40, "thermal (hardware)"},
                 {0x80, "power brake"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (reasons & names[i].bit)
            gv_append(out, cap, ", ", names[i].name);
}

static void judge(const gemm_run *g, gv_gemm_result *r)
{
    char held[96];
    describe_reasons(r->clock_event_reasons, held, sizeof held);
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
    if (r->peak_tflops > 0) {
        r->fraction_of_peak = r->tflops_median / r->peak_tflops;
        r->verdict = r->fraction_of_peak < g->o.fail_fraction   ? GV_FAIL
                     : r->fraction_of_peak < g->o.warn_fraction ? GV_WARN
                                                                : GV_PASS;
        used += (size_t)snprintf(r->message + used, sizeof r->message - used,
                                 " = %.0f%% of the %.0f TFLOPS dense peak",
                                 100 * r->fraction_of_peak, r->peak_tflops);
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

/* Opens the session and loads cuBLASLt. GV_OK with verdict PASS when the GEMM can run, else
 * the verdict (SKIP: unsupported or absent; FAIL: no context, or a library the driver cannot
 * run) and why; GV_ERR_NOT_FOUND for a GPU index CUDA does not have. */
static gv_status prepare(gv_ctx *ctx, gemm_run *g, uint32_t gpu, gv_gemm_result *r)
{
    gv_status st = gv_session_open(ctx, gpu, &g->s, &g->err);
    if (st == GV_ERR_NOT_FOUND)
        return st;
    r->verdict = GV_FAIL;
    if (st != GV_OK) {
        snprintf(r->message, sizeof r->message, "%s", g->err.text);
        return GV_OK;
    }
    int cc = g->s.cc_major * 10 + g->s.cc_minor;
    if (cc < g->plan->cc_needed) {
        r->verdict = GV_SKIP;
        snprintf(r->message, sizeof r->message,
                 "%s GEMM needs compute capability %d.%d; %s is %d.%d", gv_dtype_name(r->dtype),
                 g->plan->cc_needed / 10, g->plan->cc_needed % 10, g->s.name, g->s.cc_major,
                 g->s.cc_minor);
        return GV_OK;
    }
    gv_compat c;
    gv_compat_check(ctx, GV_LIB_CUBLASLT, &c);
    snprintf(r->library_version, sizeof r->library_version, "%s", c.version);
    r->verdict = c.verdict;
    if (c.verdict != GV_PASS) {
        snprintf(r->message, sizeof r->message, "%s", c.message);
        return GV_OK;
    }
    g->lt = gv_cublaslt(ctx);
    return GV_OK;
}

gv_status gv_gemm_bench(gv_ctx *ctx, uint32_t gpu, const gv_gemm_opts *opts, gv_gemm_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gemm_bench: out is NULL");
    if (out->struct_size < GV_GEMM_RESULT_SIZE_V1)
        return gv_fail(ctx, GV_ERR_VERSION, "gv_gemm_result.struct_size %u < %zu",
                       (unsigned)out->struct_size, (size_t)GV_GEMM_RESULT_SIZE_V1);
    static const gv_gemm_opts defaults = GV_GEMM_OPTS_INIT;
    gemm_run *g = calloc(1, sizeof *g);
    if (!g)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    g->o = defaults;
    gv_status st = GV_OK;
    if (opts && (st = gv_copy_in(&g->o, sizeof g->o, opts, GV_GEMM_OPTS_SIZE_V1, &defaults)))
        st = gv_fail(ctx, st, "gv_gemm_opts.struct_size %u is not a valid layout",
                     (unsigned)opts->struct_size);
    if (st == GV_OK)
        st = check_opts(ctx, &g->o);
    if (st != GV_OK) {
        free(g);
        return st;
    }
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    r.dtype = g->o.dtype;
    r.cuda_index = (int32_t)gpu;
    r.m = g->o.m, r.n = g->o.n, r.k = g->o.k;
    r.verified = -1;
    g->plan = &plans[g->o.dtype];
    gv_progress_stage(ctx, "CUDA context, memory and inputs");
    st = prepare(ctx, g, gpu, &r);
    if (st == GV_OK && r.verdict == GV_PASS) {
        r.peak_tflops =
            gv_peak_tflops(g->s.pci_device_id, g->s.cc_major, g->s.cc_minor, g->s.sm_count,
                           g->s.max_sm_clock_mhz, r.dtype, r.peak_source, sizeof r.peak_source);
        gv_status run = gemm_setup(g);
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
        }
    }
    gemm_release(g);
    if (st != GV_OK)
        st = gv_fail(ctx, st, "%s", g->err.text);
    free(g);
    return st != GV_OK ? st : gv_copy_out(out, &r, sizeof r, GV_GEMM_RESULT_SIZE_V1);
}
