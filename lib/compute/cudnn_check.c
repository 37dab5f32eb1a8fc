/* SPDX-License-Identifier: Apache-2.0 */
/* gv_cudnn_check: cuDNN loads, makes a handle, and computes a small convolution (FP32, then
 * FP16 with FP32 accumulation) that matches an FP64 host reference. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cudnn_backend.h"
#include "compute/compute.h"
#include "compute/session.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "kernels/gv_float_bits.h"
#include "worker/call.h"

/* A 3x3 convolution, stride 1, padding 1: batch 2, 8 -> 16 channels, 16x16 images. */
enum { CN = 2, CC = 8, CK = 16, CH = 16, CW = 16, CR = 3 };
#define X_COUNT (CN * CC * CH * CW)
#define W_COUNT (CK * CC * CR * CR)
#define Y_COUNT (CN * CK * CH * CW)

typedef struct conv_run {
    gv_session s;
    const struct gv_cudnn_api *dn;
    gvdn_handle handle;
    gvdn_tensor xd, yd;
    gvdn_filter wd;
    gvdn_conv cd;
    gvcu_deviceptr x, w, y, workspace;
    gv_errbuf err;
} conv_run;

static gv_status dn_fail(conv_run *c, const char *call, int status)
{
    return gv_err(&c->err, GV_ERR_DRIVER, "%s: %s", call, c->dn->cudnnGetErrorString(status));
}

static void conv_free(conv_run *c)
{
    const struct gv_cudnn_api *dn = c->dn;
    if (c->xd)
        dn->cudnnDestroyTensorDescriptor(c->xd);
    if (c->yd)
        dn->cudnnDestroyTensorDescriptor(c->yd);
    if (c->wd)
        dn->cudnnDestroyFilterDescriptor(c->wd);
    if (c->cd)
        dn->cudnnDestroyConvolutionDescriptor(c->cd);
    c->xd = c->yd = NULL;
    c->wd = NULL;
    c->cd = NULL;
    gvcu_deviceptr bufs[] = {c->x, c->w, c->y, c->workspace};
    for (size_t i = 0; i < 4; i++)
        if (bufs[i])
            c->s.cu->cuMemFree(bufs[i]);
    c->x = c->w = c->y = c->workspace = 0;
}

/* Host reference of output element (n, k, h, w) and the sum of |products| that bounds it. */
static double reference(int kind, int n, int k, int h, int w, double *magnitude)
{
    double sum = 0;
    *magnitude = 0;
    for (int c = 0; c < CC; c++)
        for (int r = 0; r < CR; r++)
            for (int s = 0; s < CR; s++) {
                int ih = h + r - 1, iw = w + s - 1;
                if (ih < 0 || ih >= CH || iw < 0 || iw >= CW)
                    continue;
                uint64_t xi = (((uint64_t)n * CC + c) * CH + ih) * CW + iw;
                uint64_t wi = (((uint64_t)k * CC + c) * CR + r) * CR + s;
                double xv = gv_bits_to_double(kind, gv_random_bits(kind, 11, xi));
                double wv = gv_bits_to_double(kind, gv_random_bits(kind, 12, wi));
                sum += xv * wv;
                *magnitude += fabs(xv * wv);
            }
    return sum;
}

static gv_status upload(conv_run *c, gvcu_deviceptr dst, int kind, uint64_t seed, size_t count,
                        size_t elem)
{
    unsigned char *host = malloc(count * elem);
    if (!host)
        return gv_err(&c->err, GV_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < count; i++) {
        uint32_t bits = gv_random_bits(kind, seed, i);
        memcpy(host + i * elem, &bits, elem); /* little-endian: the low bytes */
    }
    int rc = c->s.cu->cuMemcpyHtoD(dst, host, count * elem);
    free(host);
    return rc == GVCU_SUCCESS ? GV_OK : gv_session_fail(&c->s, &c->err, "cuMemcpyHtoD", rc);
}

/* One convolution in the given precision; *worst = largest |error| / tolerance. */
static gv_status conv_once(conv_run *c, int half, double *worst)
{
    const struct gv_cudnn_api *dn = c->dn;
    const struct gv_cuda_api *cu = c->s.cu;
    int type = half ? GVDN_DATA_HALF : GVDN_DATA_FLOAT, kind = half ? GV_BITS_FP16 : GV_BITS_FP32;
    size_t elem = half ? 2 : 4;
    int st;
    if ((st = dn->cudnnCreateTensorDescriptor(&c->xd)) ||
        (st = dn->cudnnCreateTensorDescriptor(&c->yd)) ||
        (st = dn->cudnnCreateFilterDescriptor(&c->wd)) ||
        (st = dn->cudnnCreateConvolutionDescriptor(&c->cd)))
        return dn_fail(c, "creating descriptors", st);
    if ((st = dn->cudnnSetTensor4dDescriptor(c->xd, GVDN_TENSOR_NCHW, type, CN, CC, CH, CW)) ||
        (st = dn->cudnnSetTensor4dDescriptor(c->yd, GVDN_TENSOR_NCHW, type, CN, CK, CH, CW)) ||
        (st = dn->cudnnSetFilter4dDescriptor(c->wd, type, GVDN_TENSOR_NCHW, CK, CC, CR, CR)) ||
        (st = dn->cudnnSetConvolution2dDescriptor(c->cd, 1, 1, 1, 1, 1, 1, GVDN_CROSS_CORRELATION,
                                                  GVDN_DATA_FLOAT)) ||
        (st = dn->cudnnSetConvolutionMathType(c->cd,
                                              half ? GVDN_TENSOR_OP_MATH : GVDN_DEFAULT_MATH)))
        return dn_fail(c, "describing the convolution", st);
    int rc;
    if ((rc = cu->cuMemAlloc(&c->x, X_COUNT * elem)) ||
        (rc = cu->cuMemAlloc(&c->w, W_COUNT * elem)) ||
        (rc = cu->cuMemAlloc(&c->y, Y_COUNT * elem)))
        return gv_session_fail(&c->s, &c->err, "cuMemAlloc", rc);
    gv_status g;
    if ((g = upload(c, c->x, kind, 11, X_COUNT, elem)) ||
        (g = upload(c, c->w, kind, 12, W_COUNT, elem)))
        return g;
    gvdn_fwd_perf perf[8];
    int found = 0;
    if ((st = dn->cudnnGetConvolutionForwardAlgorithm_v7(c->handle, c->xd, c->wd, c->cd, c->yd, 8,
                                                         &found, perf)))
        return dn_fail(c, "cudnnGetConvolutionForwardAlgorithm_v7", st);
    int pick = -1;
    for (int i = 0; i < found && pick < 0; i++)
        if (perf[i].status == GVDN_STATUS_SUCCESS && perf[i].memory <= (64u << 20))
            pick = i;
    if (pick < 0)
        return gv_err(&c->err, GV_ERR_UNSUPPORTED, "no convolution algorithm for %s",
                      half ? "FP16" : "FP32");
    size_t ws = 0;
    if ((st = dn->cudnnGetConvolutionForwardWorkspaceSize(c->handle, c->xd, c->wd, c->cd, c->yd,
                                                          perf[pick].algo, &ws)))
        return dn_fail(c, "cudnnGetConvolutionForwardWorkspaceSize", st);
    if (ws && (rc = cu->cuMemAlloc(&c->workspace, ws)))
        return gv_session_fail(&c->s, &c->err, "cuMemAlloc (workspace)", rc);
    float alpha = 1, beta = 0;
    if ((st = dn->cudnnConvolutionForward(c->handle, &alpha, c->xd, (void *)(uintptr_t)c->x, c->wd,
                                          (void *)(uintptr_t)c->w, c->cd, perf[pick].algo,
                                          (void *)(uintptr_t)c->workspace, ws, &beta, c->yd,
                                          (void *)(uintptr_t)c->y)))
        return dn_fail(c, "cudnnConvolutionForward", st);
    unsigned char *out = malloc(Y_COUNT * elem);
    if (!out)
        return gv_err(&c->err, GV_ERR_NO_MEMORY, "out of memory");
    if ((rc = gv_session_sync(&c->s, GV_SESSION_STEP_TIMEOUT_S)) ||
        (rc = cu->cuMemcpyDtoH(out, c->y, Y_COUNT * elem))) {
        free(out);
        return gv_session_fail(&c->s, &c->err, "running the convolution", rc);
    }
    double tol = half ? 1e-2 : 1e-5;
    *worst = 0;
    for (int i = 0; i < Y_COUNT; i++) {
        int w = i % CW, h = i / CW % CH, k = i / (CW * CH) % CK, n = i / (CW * CH * CK);
        uint32_t bits = 0;
        memcpy(&bits, out + (size_t)i * elem, elem);
        double mag, want = reference(kind, n, k, h, w, &mag);
        double got = gv_bits_to_double(kind, bits);
        double e =
            isfinite(got) ? fabs(got - want) / (tol * mag / sqrt(CC * CR * CR) + 1e-30) : INFINITY;
        if (!(e <= *worst))
            *worst = e;
    }
    free(out);
    return GV_OK;
}

static void judge_conv(conv_run *c, int half, int32_t *verdict, double *worst, char *note,
                       size_t cap)
{
    gv_status st = conv_once(c, half, worst);
    conv_free(c);
    const char *name = half ? "FP16" : "FP32";
    if (st == GV_ERR_UNSUPPORTED) {
        *verdict = GV_SKIP;
        snprintf(note, cap, "%s: %s", name, c->err.text);
    } else if (st != GV_OK) {
        *verdict = GV_FAIL;
        snprintf(note, cap, "%s convolution failed: %s", name, c->err.text);
    } else if (!(*worst <= 1.0)) {
        *verdict = GV_FAIL;
        snprintf(note, cap, "%s convolution wrong: error up to %.3g x the tolerance", name, *worst);
    } else {
        *verdict = GV_PASS;
        snprintf(note, cap, "%s convolution matches the host (worst %.2g of tolerance)", name,
                 *worst);
    }
}

/* The GPU is all that crosses to gpuverify-worker. */
static gv_status cudnn_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    (void)watch;
    const uint32_t *gpu_arg = args;
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    r.cuda_index = (int32_t)gpu_arg[0];
    r.fp32_verdict = r.fp16_verdict = GV_SKIP;
    conv_run c;
    memset(&c, 0, sizeof c);
    gv_progress_stage(ctx, "CUDA context");
    gv_status st = gv_session_open(ctx, gpu_arg[0], &c.s, &c.err);
    if (st == GV_ERR_NOT_FOUND || st == GV_ERR_BUSY) {
        gv_session_close(&c.s);
        return gv_fail(ctx, st, "%s", c.err.text);
    }
    gv_compat compat;
    if (st != GV_OK) {
        r.verdict = GV_FAIL;
        snprintf(r.message, sizeof r.message, "%s", c.err.text);
    } else {
        gv_compat_check(ctx, GV_LIB_CUDNN, &compat);
        snprintf(r.version, sizeof r.version, "%s", compat.version);
        r.cudart_version = compat.library_cuda;
        r.verdict = compat.verdict;
        snprintf(r.message, sizeof r.message, "%s", compat.message);
    }
    if (r.verdict == GV_PASS) {
        c.dn = gv_cudnn(ctx);
        gv_progress_stage(ctx, "cuDNN: cudnnCreate");
        int rc = c.dn->cudnnCreate(&c.handle);
        if (rc != GVDN_STATUS_SUCCESS) {
            c.handle = NULL;
            r.verdict = GV_FAIL;
            snprintf(r.message, sizeof r.message, "cuDNN %s: cudnnCreate: %s", r.version,
                     c.dn->cudnnGetErrorString(rc));
        } else {
            c.dn->cudnnSetStream(c.handle, c.s.stream);
            char n32[200], n16[200];
            gv_progress_stage(ctx, "cuDNN: FP32 convolution");
            judge_conv(&c, 0, &r.fp32_verdict, &r.fp32_worst, n32, sizeof n32);
            gv_progress_stage(ctx, "cuDNN: FP16 convolution");
            judge_conv(&c, 1, &r.fp16_verdict, &r.fp16_worst, n16, sizeof n16);
            c.dn->cudnnDestroy(c.handle);
            r.verdict = r.fp32_verdict == GV_FAIL || r.fp16_verdict == GV_FAIL ? GV_FAIL
                        : r.fp32_verdict == GV_SKIP                            ? GV_SKIP
                                                                               : GV_PASS;
            snprintf(r.message, sizeof r.message, "cuDNN %s: %s; %s", r.version, n32, n16);
        }
    }
    gv_session_close(&c.s);
    *(gv_cudnn_result *)result = r;
    return GV_OK;
}

static double cudnn_deadline(const gv_ctx *ctx, const void *args)
{
    (void)args;
    return gv_call_deadline(ctx, GV_DEADLINE_CUDA_START, GV_DEADLINE_CUDNN_CHECK, 1, 0);
}

static void cudnn_prefill(const void *args, void *result)
{
    gv_cudnn_result *r = result;
    r->cuda_index = (int32_t) * (const uint32_t *)args;
    r->fp32_verdict = r->fp16_verdict = GV_SKIP;
}

static void cudnn_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    snprintf(out, cap, "gv_cudnn_check on GPU %u", *(const uint32_t *)args);
}

const gv_call_kind gv_call_cudnn_check =
    GV_CALL_KIND("cudnn_check", uint32_t, gv_cudnn_result, 0, cudnn_here, cudnn_deadline,
                 cudnn_prefill, cudnn_describe);

gv_status gv_cudnn_check(gv_ctx *ctx, uint32_t gpu, gv_cudnn_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cudnn_check: out is NULL");
    gv_status st = gv_out_known(ctx, "gv_cudnn_result", out, GV_CUDNN_RESULT_SIZE_V1);
    if (st != GV_OK)
        return st;
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    st = gv_call(ctx, &gv_call_cudnn_check, &gpu, NULL, NULL, &r);
    return gv_call_out(st, out, &r, sizeof r, GV_CUDNN_RESULT_SIZE_V1);
}
