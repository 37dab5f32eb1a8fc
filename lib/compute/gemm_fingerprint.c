/* SPDX-License-Identifier: Apache-2.0 */
/* The result fingerprint of a GEMM data type on one GPU (gemm_run.h, docs/checks.md "Result
 * fingerprints").
 *
 * gemm.* samples a GPU's outputs against the host within a tolerance and stress.gemm compares a
 * node's GPUs with each other: a fault that makes every GPU of a node compute the same wrong
 * bits (a broken driver or library build, firmware, a setting applied to all of them) passes
 * both. The fingerprint is the hash of one product whose inputs, size and algorithm are fixed,
 * whatever the benchmark's, so that nodes can be compared with each other; its key names what
 * makes two hashes comparable: GPU model and SM count, driver, cuBLASLt version, data type, size
 * and algorithm.
 *
 * cuBLAS promises the same bits at every run for the same architecture, SM count and library
 * only; which split-K factor its heuristic takes follows the SM count and the workspace, and
 * the reduction of the parts is a kernel of its own. Asked for algorithms that compute each dot
 * product in one sequence (no split-K reduction), the heuristic's choice is one kernel whose
 * configuration the key names: nodes whose heuristic chose differently are not compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "compute/gemm_run.h"
#include "compute/telemetry.h"
#include "core/util.h"

/* The configuration of the algorithm f->algo as "algo 23 tile 18 stages 9 splitk 1 ...". */
static gv_status name_algo(gv_gemm_run *f, char *out, size_t cap)
{
    const struct gv_cublaslt_api *lt = f->lt;
    static const struct {
        int attribute;
        size_t size; /* what cuBLASLt stores: int32_t, uint32_t or uint16_t */
        int is_signed;
        int newer; /* not in every cuBLASLt: left out where this one has it not (the version
                      is in the key, so every node of a key leaves out the same) */
        const char *name;
    } parts[] = {
        {GVBL_ALGO_CONFIG_ID, 4, 1, 0, "algo"},
        {GVBL_ALGO_CONFIG_TILE_ID, 4, 0, 0, "tile"},
        {GVBL_ALGO_CONFIG_STAGES_ID, 4, 0, 0, "stages"},
        {GVBL_ALGO_CONFIG_SPLITK_NUM, 4, 1, 0, "splitk"},
        {GVBL_ALGO_CONFIG_REDUCTION_SCHEME, 4, 0, 0, "reduction"},
        {GVBL_ALGO_CONFIG_CTA_SWIZZLING, 4, 0, 0, "swizzle"},
        {GVBL_ALGO_CONFIG_CUSTOM_OPTION, 4, 0, 0, "custom"},
        {GVBL_ALGO_CONFIG_INNER_SHAPE_ID, 2, 0, 1, "inner"},
        {GVBL_ALGO_CONFIG_CLUSTER_SHAPE_ID, 2, 0, 1, "cluster"},
    };
    if (!lt->cublasLtMatmulAlgoConfigGetAttribute)
        return gv_err(&f->err, GV_ERR_LIBRARY,
                      "this cuBLASLt has no cublasLtMatmulAlgoConfigGetAttribute: the algorithm "
                      "cannot be named");
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        uint32_t v32 = 0;
        uint16_t v16 = 0;
        size_t written = 0;
        void *value = parts[i].size == 2 ? (void *)&v16 : (void *)&v32;
        int st = lt->cublasLtMatmulAlgoConfigGetAttribute(&f->algo, parts[i].attribute, value,
                                                          parts[i].size, &written);
        if (st == GVBL_STATUS_INVALID_VALUE && parts[i].newer)
            continue;
        if (st != GVBL_STATUS_SUCCESS)
            return gv_gemm_lt_fail(f, "cublasLtMatmulAlgoConfigGetAttribute", st);
        long long v = parts[i].size == 2   ? (long long)v16
                      : parts[i].is_signed ? (long long)(int32_t)v32
                                           : (long long)v32;
        int n = snprintf(out + used, cap - used, "%s%s %lld", used ? " " : "", parts[i].name, v);
        if (n < 0 || (size_t)n >= cap - used)
            return gv_err(&f->err, GV_ERR_INTERNAL, "the algorithm's name is too long");
        used += (size_t)n;
    }
    return GV_OK;
}

/* What makes two hashes comparable, into out->key. */
static gv_status make_key(gv_gemm_run *f, const char *algo, gv_gemm_fingerprint *out)
{
    char driver[96];
    gv_telemetry_driver_version(f->s.ctx, driver, sizeof driver);
    int cuda = 0;
    if (!driver[0] && f->s.cu->cuDriverGetVersion(&cuda) == GVCU_SUCCESS)
        snprintf(driver, sizeof driver, "CUDA driver %d", cuda);
    /* TF32 with the override off runs as FP32: other bits from the same call. */
    const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
    int tf32_off = f->o.dtype == GV_DTYPE_TF32 && tf32 && !strcmp(tf32, "0");
    int n = snprintf(out->key, sizeof out->key, "%s|%d SMs|%s|cublasLt %zu|%s%s|%ux%ux%u|%s",
                     f->s.name, f->s.sm_count, driver[0] ? driver : "driver unknown",
                     f->lt->cublasLtGetVersion(), gv_dtype_name(f->o.dtype),
                     tf32_off ? " NVIDIA_TF32_OVERRIDE=0" : "", f->o.m, f->o.n, f->o.k, algo);
    /* A key cut short could make two different ones equal: none rather than that. */
    if (n < 0 || (size_t)n >= sizeof out->key)
        return gv_err(&f->err, GV_ERR_INTERNAL, "the fingerprint's key is longer than %zu bytes",
                      sizeof out->key - 1);
    return GV_OK;
}

/* The heuristic's first algorithm without split-K, its product, the result's CRC-32. */
static gv_status compute(gv_gemm_run *f, gv_gemm_fingerprint *out)
{
    const struct gv_cublaslt_api *lt = f->lt;
    uint32_t schemes = GVBL_REDUCTION_SCHEME_NONE;
    int st = lt->cublasLtMatmulPreferenceSetAttribute(
        f->pref, GVBL_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes);
    if (st != GVBL_STATUS_SUCCESS)
        return gv_gemm_lt_fail(f, "cublasLtMatmulPreferenceSetAttribute (no split-K)", st);
    gvbl_heuristic cand;
    int found = 0;
    memset(&cand, 0, sizeof cand);
    st = lt->cublasLtMatmulAlgoGetHeuristic(f->handle, f->desc, f->la, f->lb, f->lc, f->lc, f->pref,
                                            1, &cand, &found);
    if (st != GVBL_STATUS_SUCCESS || found < 1 || cand.state != GVBL_STATUS_SUCCESS)
        return gv_gemm_lt_fail(f, "cublasLtMatmulAlgoGetHeuristic (no algorithm without split-K)",
                               st ? st : GVBL_STATUS_NOT_SUPPORTED);
    f->algo = cand.algo;
    char algo[128];
    gv_status s = name_algo(f, algo, sizeof algo);
    if (s == GV_OK)
        s = make_key(f, algo, out);
    if (s != GV_OK)
        return s;
    if ((st = gv_gemm_matmul(f, &f->algo)) != GVBL_STATUS_SUCCESS)
        return gv_gemm_lt_fail(f, "cublasLtMatmul", st);
    size_t bytes = (size_t)f->o.m * f->o.n * f->plan->out_size;
    unsigned char *host = malloc(bytes);
    if (!host)
        return gv_err(&f->err, GV_ERR_NO_MEMORY, "out of memory for the result (%zu MiB)",
                      bytes >> 20);
    int rc = gv_session_sync(&f->s, GV_SESSION_STEP_TIMEOUT_S);
    if (rc == GVCU_SUCCESS)
        rc = f->s.cu->cuMemcpyDtoH(host, f->d, bytes);
    if (rc != GVCU_SUCCESS) {
        free(host);
        return gv_session_fail(&f->s, &f->err, "reading the result back", rc);
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, host, (uInt)bytes); /* 16 MiB at most: within uInt */
    free(host);
    snprintf(out->hash, sizeof out->hash, "crc32:%08lx", (unsigned long)crc);
    return GV_OK;
}

gv_status gv_gemm_make_fingerprint(gv_gemm_run *g, int32_t dtype, gv_gemm_fingerprint *out,
                                   gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    if (dtype < GV_DTYPE_FP32 || dtype > GV_DTYPE_FP8_E4M3 || !g->lt)
        return gv_err(err, GV_ERR_INVALID_ARG, "no fingerprint for data type %d", (int)dtype);
    double t0 = gv_now_s();
    gv_gemm_run *f = calloc(1, sizeof *f);
    if (!f)
        return gv_err(err, GV_ERR_NO_MEMORY, "out of memory");
    /* The session is g's, borrowed: its owner closes it, never gv_gemm_free. */
    f->s = g->s;
    f->lt = g->lt;
    f->plan = &gv_gemm_plans[dtype];
    gv_gemm_opts o = GV_GEMM_OPTS_INIT;
    o.dtype = dtype;
    o.m = o.n = o.k = GV_FINGERPRINT_SIZE;
    o.seed = GV_FINGERPRINT_SEED;
    f->o = o;
    gv_status st = gv_gemm_setup(f);
    if (st == GV_OK)
        st = compute(f, out);
    gv_gemm_free(f);
    out->seconds = gv_now_s() - t0;
    if (st != GV_OK) {
        memset(out, 0, sizeof *out);
        gv_err(err, st, "%s", f->err.text);
    }
    free(f);
    return st;
}
