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
typedef int gvbl_algo_config_attribute;               /* cublasLtMatmulAlgoConfigAttributes_t */

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
/* uint32_t: the reduction schemes (split-K) the heuristic may offer; NONE alone: only
 * algorithms that compute each dot product in one sequence. */
#define GVBL_MATMUL_PREF_REDUCTION_SCHEME_MASK 3
#define GVBL_REDUCTION_SCHEME_NONE 0
#define GVBL_REDUCTION_SCHEME_INPLACE 1
#define GVBL_REDUCTION_SCHEME_COMPUTE_TYPE 2

/* cublasLtMatmulAlgoConfigGetAttribute: what names an algorithm (its sizes in the comments). */
#define GVBL_ALGO_CONFIG_ID 0               /* int32_t */
#define GVBL_ALGO_CONFIG_TILE_ID 1          /* uint32_t */
#define GVBL_ALGO_CONFIG_SPLITK_NUM 2       /* int32_t */
#define GVBL_ALGO_CONFIG_REDUCTION_SCHEME 3 /* uint32_t */
#define GVBL_ALGO_CONFIG_CTA_SWIZZLING 4    /* uint32_t */
#define GVBL_ALGO_CONFIG_CUSTOM_OPTION 5    /* uint32_t */
#define GVBL_ALGO_CONFIG_STAGES_ID 6        /* uint32_t */
#define GVBL_ALGO_CONFIG_INNER_SHAPE_ID 7   /* uint16_t */
#define GVBL_ALGO_CONFIG_CLUSTER_SHAPE_ID 8 /* uint16_t */

#endif
