/* SPDX-License-Identifier: Apache-2.0 */
/* The size of each public struct in its first released layout (ABI 1.0). A caller's
 * struct_size below these is GV_ERR_VERSION; these numbers never change once released. */
#ifndef GV_CORE_SIZES_H
#define GV_CORE_SIZES_H

#include <stddef.h>

#include "gpuverify/gpuverify.h"

#define GV_CTX_OPTS_SIZE_V1 (offsetof(gv_ctx_opts, deadline_s) + sizeof(double))
#define GV_LIBRARY_INFO_SIZE_V1 (offsetof(gv_library_info, detail) + 256)
#define GV_DRIVER_INFO_SIZE_V1 (offsetof(gv_driver_info, gpu_count) + sizeof(int32_t))
#define GV_GPU_SIZE_V1 (offsetof(gv_gpu, inaccessible) + sizeof(int32_t))
#define GV_CHECK_RESULT_SIZE_V1 (offsetof(gv_check_result, duration_s) + sizeof(double))
#define GV_RUN_OPTS_SIZE_V1 (offsetof(gv_run_opts, checks) + sizeof(const char *))

#define GV_CUDA_OPTS_SIZE_V1 (offsetof(gv_cuda_opts, copies_per_sample) + sizeof(uint32_t))
#define GV_CUDA_RESULT_SIZE_V1 (offsetof(gv_cuda_result, copy_message) + 256)
#define GV_MEMTEST_OPTS_SIZE_V1 (offsetof(gv_memtest_opts, seed) + sizeof(uint64_t))
#define GV_MEMTEST_RESULT_SIZE_V1                                                                  \
    (offsetof(gv_memtest_result, ecc_uncorrected_after) + sizeof(int64_t))
#define GV_GEMM_OPTS_SIZE_V1 (offsetof(gv_gemm_opts, seed) + sizeof(uint64_t))
#define GV_GEMM_RESULT_SIZE_V1 (offsetof(gv_gemm_result, gemms_per_batch) + sizeof(uint32_t))
#define GV_STRESS_OPTS_SIZE_V1 (offsetof(gv_stress_opts, seed) + sizeof(uint64_t))
#define GV_STRESS_RESULT_SIZE_V1                                                                   \
    (offsetof(gv_stress_result, gpus) + GV_STRESS_MAX_GPUS * sizeof(gv_stress_gpu))
#define GV_CUDNN_RESULT_SIZE_V1 (offsetof(gv_cudnn_result, fp16_worst) + sizeof(double))
#define GV_TOPO_OPTS_SIZE_V1 (offsetof(gv_topo_opts, gdr_level) + sizeof(const char *))
#define GV_TOPO_INFO_SIZE_V1 (offsetof(gv_topo_info, source) + 512)
#define GV_TOPO_DEVICE_SIZE_V1 (offsetof(gv_topo_device, gdr_capable) + sizeof(int32_t))
#define GV_TOPO_LINK_SIZE_V1 (offsetof(gv_topo_link, label) + 8)
#define GV_RDMA_OPTS_SIZE_V1 (offsetof(gv_rdma_opts, flags) + sizeof(uint32_t))
#define GV_RDMA_INFO_SIZE_V1 (offsetof(gv_rdma_info, nccl_ports) + 256)
#define GV_RDMA_MODULE_SIZE_V1 (offsetof(gv_rdma_module, source) + 96)
#define GV_RDMA_DEVICE_SIZE_V1 (offsetof(gv_rdma_device, verbs_detail) + 160)
#define GV_RDMA_PORT_SIZE_V1 (offsetof(gv_rdma_port, problem) + 256)
#define GV_RDMA_GID_SIZE_V1 (offsetof(gv_rdma_gid, netdev) + 64)
#define GV_RDMA_SETTING_SIZE_V1 (offsetof(gv_rdma_setting, source) + 256)
#define GV_NCCL_OPTS_SIZE_V1 (offsetof(gv_nccl_opts, seed) + sizeof(uint64_t))
#define GV_NCCL_RESULT_SIZE_V1                                                                     \
    (offsetof(gv_nccl_result, sizes) + GV_NCCL_MAX_SIZES * sizeof(gv_nccl_size))
#define GV_POLICY_SIZE_V1 (offsetof(gv_policy, xids) + 128)
/* ABI 1.1 */
#define GV_HISTORY_OPTS_SIZE_V1 (offsetof(gv_history_opts, reserved) + sizeof(uint32_t))

#endif
