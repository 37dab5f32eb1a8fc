/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the cuBLASLt ABI (see cuda_abi.h for why); checked against
 * cublasLt.h by tests/unit/test_nvabi.c where the toolkit is installed. */
#ifndef GV_NVABI_CUBLASLT_ABI_H
#define GV_NVABI_CUBLASLT_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "backends/nvabi/cuda_abi.h"

typedef int gvbl_status;                              /* cublasStatus_t */
typedef struct gvbl_handle_st *gvbl_handle;           /* cublasLtHandle_t */
typedef struct gvbl_matmul_desc_st *gvbl_matmul_desc; /* cublasLtMatmulDesc_t */
typedef struct gvbl_layout_st *gvbl_layout;           /* cublasLtMatrixLayout_t */
typedef struct gvbl_preference_st *gvbl_preference;   /* cublasLtMatmulPreference_t */
typedef int gvbl_compute_type;                        /* cublasComputeType_t */
typedef int gvbl_data_type;                           /* cudaDataType_t */
typedef int gvbl_desc_attribute;                      /* cublasLtMatmulDescAttributes_t */
typedef int gvbl_preference_attribute;                /* cublasLtMatmulPreferenceAttributes_t */

typedef struct gvbl_algo { /* cublasLtMatmulAlgo_t */
    uint64_t data[8];
} gvbl_algo;

typedef struct gvbl_heuristic { /* cublasLtMatmulHeuristicResult_t */
    gvbl_algo algo;
    size_t workspace_size;
    gvbl_status state;
    float waves_count;
    int reserved[4];
} gvbl_heuristic;

#define GVBL_STATUS_SUCCESS 0
#define GVBL_STATUS_NOT_INITIALIZED 1
#define GVBL_STATUS_ALLOC_FAILED 3
#define GVBL_STATUS_INVALID_VALUE 7
#define GVBL_STATUS_ARCH_MISMATCH 8
#define GVBL_STATUS_EXECUTION_FAILED 13
#define GVBL_STATUS_INTERNAL_ERROR 14
#define GVBL_STATUS_NOT_SUPPORTED 15

#define GVBL_COMPUTE_32F 68
#define GVBL_COMPUTE_32F_FAST_TF32 77

/* cudaDataType_t */
#define GVBL_R_32F 0
#define GVBL_R_16F 2
#define GVBL_R_16BF 14
#define GVBL_R_8F_E4M3 28

#define GVBL_OP_N 0
#define GVBL_OP_T 1

#define GVBL_MATMUL_DESC_TRANSA 3
#define GVBL_MATMUL_DESC_TRANSB 4
#define GVBL_MATMUL_DESC_A_SCALE_POINTER 17
#define GVBL_MATMUL_DESC_B_SCALE_POINTER 18
#define GVBL_MATMUL_PREF_MAX_WORKSPACE_BYTES 1

#endif
