/* SPDX-License-Identifier: Apache-2.0 */
/* One cuBLASLt GEMM on one GPU, set up for gv_gemm_bench and gv_stress_gemm (gemm_run.h). */
#include "compute/gemm_run.h"

#include <stdio.h>
#include <stdlib.h>

#include "compute/compute.h"
#include "core/context.h"
#include "kernels/gv_float_bits.h"

const gv_dtype_plan gv_gemm_plans[GV_DTYPE_FP8_E4M3 + 1] = {
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

gv_status gv_gemm_lt_fail(gv_gemm_run *g, const char *call, int status)
{
    const char *name = g->lt->cublasLtGetStatusName ? g->lt->cublasLtGetStatusName(status) : NULL;
    return gv_err(&g->err, GV_ERR_DRIVER, "%s: %s (%d)", call, name ? name : "cuBLAS status",
                  status);
}

gv_status gv_gemm_setup(gv_gemm_run *g)
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
        return gv_gemm_lt_fail(g, "cublasLtCreate", st);
    }
    int32_t ta = g->plan->transpose_a ? GVBL_OP_T : GVBL_OP_N, tb = GVBL_OP_N;
    if ((st = lt->cublasLtMatmulDescCreate(&g->desc, g->plan->compute, GVBL_R_32F)))
        return g->desc = NULL, gv_gemm_lt_fail(g, "cublasLtMatmulDescCreate", st);
    if ((st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_TRANSA, &ta,
                                                 sizeof ta)) ||
        (st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_TRANSB, &tb, sizeof tb)))
        return gv_gemm_lt_fail(g, "cublasLtMatmulDescSetAttribute", st);
    if (o->dtype == GV_DTYPE_FP8_E4M3) {
        void *scale = (void *)(uintptr_t)g->scale;
        if ((st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_A_SCALE_POINTER,
                                                     &scale, sizeof scale)) ||
            (st = lt->cublasLtMatmulDescSetAttribute(g->desc, GVBL_MATMUL_DESC_B_SCALE_POINTER,
                                                     &scale, sizeof scale)))
            return gv_gemm_lt_fail(g, "cublasLtMatmulDescSetAttribute (FP8 scales)", st);
    }
    /* Column-major: A stored K x M and transposed ("TN"), or M x K ("NN"); B is K x N. */
    if ((st = g->plan->transpose_a
                  ? lt->cublasLtMatrixLayoutCreate(&g->la, g->plan->in_type, o->k, o->m, o->k)
                  : lt->cublasLtMatrixLayoutCreate(&g->la, g->plan->in_type, o->m, o->k, o->m)) ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->lb, g->plan->in_type, o->k, o->n, o->k)) ||
        (st = lt->cublasLtMatrixLayoutCreate(&g->lc, g->plan->out_type, o->m, o->n, o->m)))
        return gv_gemm_lt_fail(g, "cublasLtMatrixLayoutCreate", st);
    uint64_t ws = g->workspace_bytes;
    if ((st = lt->cublasLtMatmulPreferenceCreate(&g->pref)))
        return g->pref = NULL, gv_gemm_lt_fail(g, "cublasLtMatmulPreferenceCreate", st);
    if ((st = lt->cublasLtMatmulPreferenceSetAttribute(
             g->pref, GVBL_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)))
        return gv_gemm_lt_fail(g, "cublasLtMatmulPreferenceSetAttribute", st);
    return GV_OK;
}

void gv_gemm_free(gv_gemm_run *g)
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
    g->pref = NULL, g->la = g->lb = g->lc = NULL, g->desc = NULL, g->handle = NULL;
    g->a = g->b = g->d = g->workspace = g->scale = 0;
    g->start = g->end = NULL;
}

void gv_gemm_release(gv_gemm_run *g)
{
    gv_gemm_free(g);
    gv_session_close(&g->s);
}

int gv_gemm_matmul(gv_gemm_run *g, const gvbl_algo *algo)
{
    const float alpha = 1.0f, beta = 0.0f;
    return g->lt->cublasLtMatmul(g->handle, g->desc, &alpha, (const void *)(uintptr_t)g->a, g->la,
                                 (const void *)(uintptr_t)g->b, g->lb, &beta,
                                 (const void *)(uintptr_t)g->d, g->lc, (void *)(uintptr_t)g->d,
                                 g->lc, algo, (void *)(uintptr_t)g->workspace, g->workspace_bytes,
                                 g->s.stream);
}

/* Runs `count` GEMMs between the two events; their mean time in ms, or -1 (err set). */
double gv_gemm_timed(gv_gemm_run *g, const gvbl_algo *algo, unsigned count)
{
    const struct gv_cuda_api *cu = g->s.cu;
    int rc = cu->cuEventRecord(g->start, g->s.stream);
    int st = GVBL_STATUS_SUCCESS;
    for (unsigned i = 0; i < count && rc == GVCU_SUCCESS && st == GVBL_STATUS_SUCCESS; i++)
        st = gv_gemm_matmul(g, algo);
    if (st != GVBL_STATUS_SUCCESS) {
        gv_gemm_lt_fail(g, "cublasLtMatmul", st);
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
gv_status gv_gemm_choose_algo(gv_gemm_run *g, gv_gemm_result *r, double *ms_out)
{
    gvbl_heuristic cands[64];
    int found = 0;
    int st =
        g->lt->cublasLtMatmulAlgoGetHeuristic(g->handle, g->desc, g->la, g->lb, g->lc, g->lc,
                                              g->pref, (int)g->o.algo_candidates, cands, &found);
    if (st != GVBL_STATUS_SUCCESS || found <= 0)
        return gv_gemm_lt_fail(g, "cublasLtMatmulAlgoGetHeuristic (no algorithm for this GEMM)",
                               st ? st : GVBL_STATUS_NOT_SUPPORTED);
    if (g->candidate > 0) {
        if (g->candidate > found || cands[g->candidate - 1].state != GVBL_STATUS_SUCCESS)
            return gv_err(&g->err, GV_ERR_DRIVER,
                          "cuBLASLt offers %d candidate(s) here, not candidate #%d as on the "
                          "first GPU",
                          found, g->candidate);
        g->algo = cands[g->candidate - 1].algo;
        snprintf(r->algo, sizeof r->algo, "heuristic #%d of %d, workspace %zu MiB", g->candidate,
                 found, g->workspace_bytes >> 20);
        *ms_out = gv_gemm_timed(g, &g->algo, 2);
        return *ms_out > 0 ? GV_OK : GV_ERR_DRIVER;
    }
    /* Brief timings of power-capped kernels are noisy: time every candidate, then the two
     * fastest again, longer, and take a later candidate only when it is clearly faster than the
     * heuristic's own preference. */
    double ms[64];
    int first = -1, second = -1;
    for (int i = 0; i < found; i++) {
        ms[i] = -1;
        if (cands[i].state != GVBL_STATUS_SUCCESS || gv_gemm_timed(g, &cands[i].algo, 1) < 0)
            continue; /* the first run loads the kernel: not timed */
        ms[i] = gv_gemm_timed(g, &cands[i].algo, 2);
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
            a += gv_gemm_timed(g, &cands[first].algo, 3);
            b += gv_gemm_timed(g, &cands[second].algo, 3);
        }
        int early = first < second ? first : second, late = first < second ? second : first;
        double t_early = early == first ? a : b, t_late = early == first ? b : a;
        best_i = t_late < 0.99 * t_early ? late : early;
    }
    double best = ms[best_i];
    g->algo = cands[best_i].algo;
    g->candidate = best_i + 1;
    snprintf(r->algo, sizeof r->algo, "heuristic #%d of %d, workspace %zu MiB", best_i + 1, found,
             g->workspace_bytes >> 20);
    *ms_out = best;
    return GV_OK;
}

/* Opens the session and loads cuBLASLt. GV_OK with verdict PASS when the GEMM can run, else
 * the verdict (SKIP: unsupported or absent; FAIL: no context, or a library the driver cannot
 * run) and why; GV_ERR_NOT_FOUND for a GPU index CUDA does not have, GV_ERR_BUSY for one another
 * gpuverify is testing. */
gv_status gv_gemm_prepare(gv_ctx *ctx, gv_gemm_run *g, uint32_t gpu, gv_gemm_result *r)
{
    gv_status st = gv_session_open(ctx, gpu, &g->s, &g->err);
    if (st == GV_ERR_NOT_FOUND || st == GV_ERR_BUSY) /* not a verdict on this GPU */
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
