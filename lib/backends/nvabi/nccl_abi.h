/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the NCCL ABI (see cuda_abi.h for why). Checked against
 * nccl.h by test_nvabi where the toolkit ships it. */
#ifndef GV_NVABI_NCCL_ABI_H
#define GV_NVABI_NCCL_ABI_H

#include <limits.h>
#include <stddef.h>

#include "backends/nvabi/cuda_abi.h"

typedef int gvnc_result;                /* ncclResult_t */
typedef struct gvnc_comm_st *gvnc_comm; /* ncclComm_t */
typedef int gvnc_data_type;             /* ncclDataType_t */
typedef int gvnc_red_op;                /* ncclRedOp_t */

#define GVNC_UNIQUE_ID_BYTES 128
typedef struct gvnc_unique_id { /* ncclUniqueId */
    char internal[GVNC_UNIQUE_ID_BYTES];
} gvnc_unique_id;

/* The head of ncclConfig_t as NCCL 2.17 laid it out. NCCL copies min(size, its own size) bytes
 * over its defaults, so a caller built against an older layout stays compatible. */
typedef struct gvnc_config {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cga_cluster_size;
    int min_ctas;
    int max_ctas;
    const char *net_name;
    int split_share;
} gvnc_config;

#define GVNC_CONFIG_MAGIC 0xcafebeefu
#define GVNC_CONFIG_UNDEF_INT INT_MIN
/* NCCL_VERSION(x, y, z) for 2.9 and later. */
#define GVNC_VERSION(x, y, z) ((x)*10000 + (y)*100 + (z))
#define GVNC_CONFIG_VERSION GVNC_VERSION(2, 17, 0)

#define GVNC_SUCCESS 0
#define GVNC_UNHANDLED_CUDA_ERROR 1
#define GVNC_SYSTEM_ERROR 2
#define GVNC_INTERNAL_ERROR 3
#define GVNC_INVALID_ARGUMENT 4
#define GVNC_INVALID_USAGE 5
#define GVNC_REMOTE_ERROR 6
#define GVNC_IN_PROGRESS 7

#define GVNC_FLOAT32 7 /* ncclFloat32 */
#define GVNC_SUM 0     /* ncclSum */

#endif
