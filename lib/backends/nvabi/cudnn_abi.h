/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the cuDNN ABI (see cuda_abi.h for why): the legacy
 * convolution API, present in cuDNN 8 and 9. Checked against cudnn.h by test_nvabi. */
#ifndef GV_NVABI_CUDNN_ABI_H
#define GV_NVABI_CUDNN_ABI_H

#include <stddef.h>

#include "backends/nvabi/cuda_abi.h"

typedef int gvdn_status;                    /* cudnnStatus_t */
typedef struct gvdn_handle_st *gvdn_handle; /* cudnnHandle_t */
typedef struct gvdn_tensor_st *gvdn_tensor; /* cudnnTensorDescriptor_t */
typedef struct gvdn_filter_st *gvdn_filter; /* cudnnFilterDescriptor_t */
typedef struct gvdn_conv_st *gvdn_conv;     /* cudnnConvolutionDescriptor_t */
typedef int gvdn_data_type;                 /* cudnnDataType_t */
typedef int gvdn_format;                    /* cudnnTensorFormat_t */
typedef int gvdn_conv_mode;                 /* cudnnConvolutionMode_t */
typedef int gvdn_math_type;                 /* cudnnMathType_t */
typedef int gvdn_fwd_algo;                  /* cudnnConvolutionFwdAlgo_t */

typedef struct gvdn_fwd_perf { /* cudnnConvolutionFwdAlgoPerf_t */
    gvdn_fwd_algo algo;
    gvdn_status status;
    float time;
    size_t memory;
    int determinism;
    gvdn_math_type math_type;
    int reserved[3];
} gvdn_fwd_perf;

#define GVDN_STATUS_SUCCESS 0
#define GVDN_DATA_FLOAT 0
#define GVDN_DATA_HALF 2
#define GVDN_TENSOR_NCHW 0
#define GVDN_CROSS_CORRELATION 1
#define GVDN_DEFAULT_MATH 0
#define GVDN_TENSOR_OP_MATH 1

#endif
