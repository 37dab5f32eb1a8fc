/* SPDX-License-Identifier: Apache-2.0 */
/* cuda.matmul: matrix products with gpuverify's own kernels (lib/kernels: WMMA on the tensor
 * cores for FP16, shared-memory tiles for FP32), checked against an FP64 host reference. A
 * functional check like a health-check script's "FP16 matmul" and "matmul benchmark" that needs
 * no toolkit library: no cuBLASLt image (175 MiB) in the process. Its TFLOPS say that the GPU
 * computes at speed, not what it peaks at; gemm.* is the benchmark. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/session.h"
#include "core/context.h"
#include "kernels/gv_float_bits.h"
#include "kernels/gv_random.h"

#define SAMPLES 64
#define SEED 0x6d61746d756cull /* "matmul" */

/* One product of n x n matrices; its time (one launch after a warm-up) and the samples. */
static gv_status one(gv_session *s, int half, uint32_t n, double *tflops, uint32_t *errors,
                     double *worst, gv_errbuf *err)
{
    const struct gv_cuda_api *cu = s->cu;
    int kind = half ? GV_BITS_FP16 : GV_BITS_FP32;
    size_t in = half ? 2 : 4, count = (size_t)n * n;
    gvcu_deviceptr a = 0, b = 0, c = 0;
    gvcu_event start = NULL, stop = NULL;
    gv_status st = GV_OK;
    int rc;
    if ((rc = cu->cuMemAlloc(&a, count * in)) || (rc = cu->cuMemAlloc(&b, count * in)) ||
        (rc = cu->cuMemAlloc(&c, count * 4)) || (rc = cu->cuEventCreate(&start, 0)) ||
        (rc = cu->cuEventCreate(&stop, 0)) ||
        (rc = gv_session_fill_random(s, a, count, kind, SEED)) ||
        (rc = gv_session_fill_random(s, b, count, kind, SEED + 1)) ||
        (rc = gv_session_matmul(s, half, a, b, c, n, n, n)) ||
        (rc = cu->cuEventRecord(start, s->stream)) ||
        (rc = gv_session_matmul(s, half, a, b, c, n, n, n)) ||
        (rc = cu->cuEventRecord(stop, s->stream)) ||
        (rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S))) {
        st = gv_session_fail(s, err, half ? "the FP16 matmul" : "the FP32 matmul", rc);
        goto out;
    }
    float ms = 0;
    if ((rc = cu->cuEventElapsedTime(&ms, start, stop))) {
        st = gv_session_fail(s, err, "cuEventElapsedTime", rc);
        goto out;
    }
    *tflops = ms > 0 ? 2.0 * n * n * n / (ms * 1e-3) / 1e12 : 0;
    /* FP32 accumulation of n exact products (FP16 inputs) or rounded ones (FP32): the error
     * grows like sqrt(n) units of the last place of the magnitude; 16 of them is far from a
     * false alarm and far below what a broken unit writes. */
    for (uint32_t t = 0; t < SAMPLES; t++) {
        uint64_t h = gv_mix64(SEED ^ (0xfeed + t + (half ? 1000 : 0)));
        uint64_t i = h % n, j = (h >> 32) % n;
        float got = 0;
        if ((rc = cu->cuMemcpyDtoH(&got, c + (j * n + i) * 4, 4))) {
            st = gv_session_fail(s, err, "reading the matmul output", rc);
            goto out;
        }
        double want = 0, magnitude = 0;
        for (uint64_t q = 0; q < n; q++) {
            double x = gv_bits_to_double(kind, gv_random_bits(kind, SEED, i * n + q));
            double y = gv_bits_to_double(kind, gv_random_bits(kind, SEED + 1, j * n + q));
            want += x * y;
            magnitude += fabs(x * y);
        }
        double bound = 16 * sqrt((double)n) * ldexp(magnitude, -24);
        double ratio = isfinite(got) ? fabs(got - want) / bound : INFINITY;
        if (ratio > *worst)
            *worst = ratio;
        *errors += !(ratio <= 1.0);
    }
out:
    if (start)
        cu->cuEventDestroy(start);
    if (stop)
        cu->cuEventDestroy(stop);
    gvcu_deviceptr bufs[] = {a, b, c};
    for (size_t k = 0; k < 3; k++)
        if (bufs[k])
            cu->cuMemFree(bufs[k]);
    return st;
}

gv_status gv_matmul_check(gv_ctx *ctx, uint32_t gpu, uint32_t n, gv_matmul_result *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    gv_session s;
    gv_errbuf err;
    gv_status st = gv_session_open(ctx, gpu, &s, &err);
    if (st == GV_ERR_BUSY) { /* not a verdict on this GPU */
        gv_session_close(&s);
        snprintf(out->message, sizeof out->message, "%s", err.text);
        return gv_fail(ctx, st, "%s", err.text);
    }
    if (st == GV_OK)
        st = one(&s, 1, n, &out->f16_tflops, &out->errors, &out->worst, &err);
    if (st == GV_OK)
        st = one(&s, 0, n, &out->f32_tflops, &out->errors, &out->worst, &err);
    gv_session_close(&s);
    if (st != GV_OK) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message, "%s", err.text);
        return st;
    }
    out->verdict = out->errors ? GV_FAIL : GV_PASS;
    if (out->errors)
        snprintf(out->message, sizeof out->message,
                 "%u of %u sampled outputs wrong (worst %.3g x the tolerance): silent data "
                 "corruption (FP16 %u^3 on tensor cores %.1f TFLOPS, FP32 %.1f)",
                 (unsigned)out->errors, 2 * SAMPLES, out->worst, (unsigned)n, out->f16_tflops,
                 out->f32_tflops);
    else
        snprintf(out->message, sizeof out->message,
                 "FP16 %u^3 on tensor cores %.1f TFLOPS, FP32 %.1f TFLOPS with gpuverify's own "
                 "kernels (functional; gemm.* is the benchmark), %u sampled outputs verified",
                 (unsigned)n, out->f16_tflops, out->f32_tflops, 2 * SAMPLES);
    return GV_OK;
}
