/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libcudnn.so.9 for CI, built from lib/backends/cudnn_api.def: descriptors are kept,
 * and the forward convolution (NCHW, cross-correlation) is computed on the host. Test code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nvabi/cudnn_abi.h"
#include "fake_cuda_device.h"
#include "kernels/gv_float_bits.h"

#define GV_CUDNN_FN(ret, name, required, params)                                                   \
    __attribute__((visibility("default"))) ret name params;
#include "backends/cudnn_api.def"
#undef GV_CUDNN_FN

#define BAD_PARAM 3 /* CUDNN_STATUS_BAD_PARAM */

struct gvdn_tensor_st {
    int type, n, c, h, w;
};
struct gvdn_filter_st {
    int type, k, c, h, w;
};
struct gvdn_conv_st {
    int pad_h, pad_w, stride_h, stride_w;
};

size_t cudnnGetVersion(void)
{
    return 91400;
}

size_t cudnnGetCudartVersion(void)
{
    return 13000;
}

const char *cudnnGetErrorString(gvdn_status status)
{
    return status == GVDN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_BAD_PARAM";
}

gvdn_status cudnnCreate(gvdn_handle *handle)
{
    int fault = fake_cuda_fault("cudnnCreate");
    if (fault)
        return (gvdn_status)fault;
    *handle = fake_cuda_current_gpu() ? (gvdn_handle)malloc(1) : NULL;
    return *handle ? GVDN_STATUS_SUCCESS : BAD_PARAM;
}

gvdn_status cudnnDestroy(gvdn_handle handle)
{
    free(handle);
    return GVDN_STATUS_SUCCESS;
}

gvdn_status cudnnSetStream(gvdn_handle handle, gvcu_stream stream)
{
    (void)handle, (void)stream;
    return GVDN_STATUS_SUCCESS;
}

#define CREATE_DESTROY(type, create, destroy)                                                      \
    gvdn_status create(type *desc)                                                                 \
    {                                                                                              \
        *desc = calloc(1, sizeof **desc);                                                          \
        return *desc ? GVDN_STATUS_SUCCESS : BAD_PARAM;                                            \
    }                                                                                              \
    gvdn_status destroy(type desc)                                                                 \
    {                                                                                              \
        free(desc);                                                                                \
        return GVDN_STATUS_SUCCESS;                                                                \
    }
CREATE_DESTROY(gvdn_tensor, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor)
CREATE_DESTROY(gvdn_filter, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor)
CREATE_DESTROY(gvdn_conv, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor)

gvdn_status cudnnSetTensor4dDescriptor(gvdn_tensor desc, gvdn_format format, gvdn_data_type type,
                                       int n, int c, int h, int w)
{
    if (format != GVDN_TENSOR_NCHW || n <= 0 || c <= 0 || h <= 0 || w <= 0)
        return BAD_PARAM;
    *desc = (struct gvdn_tensor_st){type, n, c, h, w};
    return GVDN_STATUS_SUCCESS;
}

gvdn_status cudnnSetFilter4dDescriptor(gvdn_filter desc, gvdn_data_type type, gvdn_format format,
                                       int k, int c, int h, int w)
{
    if (format != GVDN_TENSOR_NCHW || k <= 0 || c <= 0 || h <= 0 || w <= 0)
        return BAD_PARAM;
    *desc = (struct gvdn_filter_st){type, k, c, h, w};
    return GVDN_STATUS_SUCCESS;
}

gvdn_status cudnnSetConvolution2dDescriptor(gvdn_conv desc, int pad_h, int pad_w, int stride_h,
                                            int stride_w, int dilation_h, int dilation_w,
                                            gvdn_conv_mode mode, gvdn_data_type compute_type)
{
    (void)compute_type;
    if (dilation_h != 1 || dilation_w != 1 || mode != GVDN_CROSS_CORRELATION)
        return BAD_PARAM;
    *desc = (struct gvdn_conv_st){pad_h, pad_w, stride_h, stride_w};
    return GVDN_STATUS_SUCCESS;
}

gvdn_status cudnnSetConvolutionMathType(gvdn_conv desc, gvdn_math_type math)
{
    (void)desc;
    return math == GVDN_DEFAULT_MATH || math == GVDN_TENSOR_OP_MATH ? GVDN_STATUS_SUCCESS
                                                                    : BAD_PARAM;
}

gvdn_status cudnnGetConvolutionForwardAlgorithm_v7(gvdn_handle handle, gvdn_tensor x, gvdn_filter w,
                                                   gvdn_conv conv, gvdn_tensor y, int requested,
                                                   int *returned, gvdn_fwd_perf *results)
{
    (void)handle, (void)x, (void)w, (void)conv, (void)y;
    if (requested < 1)
        return BAD_PARAM;
    memset(results, 0, sizeof *results);
    results[0].algo = 0; /* IMPLICIT_GEMM */
    results[0].status = GVDN_STATUS_SUCCESS;
    *returned = 1;
    return GVDN_STATUS_SUCCESS;
}

gvdn_status cudnnGetConvolutionForwardWorkspaceSize(gvdn_handle handle, gvdn_tensor x,
                                                    gvdn_filter w, gvdn_conv conv, gvdn_tensor y,
                                                    gvdn_fwd_algo algo, size_t *bytes)
{
    (void)handle, (void)x, (void)w, (void)conv, (void)y, (void)algo;
    *bytes = 0;
    return GVDN_STATUS_SUCCESS;
}

static int kind_of(int type)
{
    return type == GVDN_DATA_HALF ? GV_BITS_FP16 : GV_BITS_FP32;
}

static double load(int type, const void *base, size_t i)
{
    uint32_t bits = 0;
    size_t size = type == GVDN_DATA_HALF ? 2 : 4;
    memcpy(&bits, (const unsigned char *)base + i * size, size);
    return gv_bits_to_double(kind_of(type), bits);
}

gvdn_status cudnnConvolutionForward(gvdn_handle handle, const void *alpha, gvdn_tensor xd,
                                    const void *x, gvdn_filter wd, const void *w, gvdn_conv conv,
                                    gvdn_fwd_algo algo, void *workspace, size_t workspace_bytes,
                                    const void *beta, gvdn_tensor yd, void *y)
{
    (void)handle, (void)algo, (void)workspace, (void)workspace_bytes, (void)beta;
    if (xd->c != wd->c || yd->c != wd->k || xd->n != yd->n)
        return BAD_PARAM;
    size_t out_size = yd->type == GVDN_DATA_HALF ? 2 : 4;
    for (int n = 0; n < yd->n; n++)
        for (int k = 0; k < yd->c; k++)
            for (int oh = 0; oh < yd->h; oh++)
                for (int ow = 0; ow < yd->w; ow++) {
                    double sum = 0;
                    for (int c = 0; c < wd->c; c++)
                        for (int r = 0; r < wd->h; r++)
                            for (int s = 0; s < wd->w; s++) {
                                int ih = oh * conv->stride_h + r - conv->pad_h;
                                int iw = ow * conv->stride_w + s - conv->pad_w;
                                if (ih < 0 || ih >= xd->h || iw < 0 || iw >= xd->w)
                                    continue;
                                sum += load(xd->type, x,
                                            (((size_t)n * xd->c + c) * xd->h + ih) * xd->w + iw) *
                                       load(wd->type, w,
                                            (((size_t)k * wd->c + c) * wd->h + r) * wd->w + s);
                            }
                    uint32_t bits =
                        gv_float_to_bits(kind_of(yd->type), sum * *(const float *)alpha);
                    size_t i = (((size_t)n * yd->c + k) * yd->h + oh) * yd->w + ow;
                    memcpy((unsigned char *)y + i * out_size, &bits, out_size);
                }
    return GVDN_STATUS_SUCCESS;
}
