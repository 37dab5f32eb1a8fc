/* SPDX-License-Identifier: Apache-2.0 */
/* gv_struct_size: this library's size of each public struct, so that bindings that mirror the
 * structs (the ctypes package) can check their layouts against the library they loaded. */
#include <string.h>

#include "gpuverify/gpuverify.h"

static const struct {
    const char *name;
    size_t size;
} sizes[] = {
    {"gv_check_result", sizeof(gv_check_result)},
    {"gv_ctx_opts", sizeof(gv_ctx_opts)},
    {"gv_cuda_opts", sizeof(gv_cuda_opts)},
    {"gv_cuda_result", sizeof(gv_cuda_result)},
    {"gv_cudnn_result", sizeof(gv_cudnn_result)},
    {"gv_driver_info", sizeof(gv_driver_info)},
    {"gv_gemm_fingerprint", sizeof(gv_gemm_fingerprint)},
    {"gv_gemm_opts", sizeof(gv_gemm_opts)},
    {"gv_gemm_result", sizeof(gv_gemm_result)},
    {"gv_gpu", sizeof(gv_gpu)},
    {"gv_history_opts", sizeof(gv_history_opts)},
    {"gv_library_info", sizeof(gv_library_info)},
    {"gv_memtest_error", sizeof(gv_memtest_error)},
    {"gv_memtest_opts", sizeof(gv_memtest_opts)},
    {"gv_memtest_result", sizeof(gv_memtest_result)},
    {"gv_nccl_id", sizeof(gv_nccl_id)},
    {"gv_nccl_opts", sizeof(gv_nccl_opts)},
    {"gv_nccl_pair", sizeof(gv_nccl_pair)},
    {"gv_nccl_result", sizeof(gv_nccl_result)},
    {"gv_nccl_size", sizeof(gv_nccl_size)},
    {"gv_policy", sizeof(gv_policy)},
    {"gv_rdma_device", sizeof(gv_rdma_device)},
    {"gv_rdma_gid", sizeof(gv_rdma_gid)},
    {"gv_rdma_info", sizeof(gv_rdma_info)},
    {"gv_rdma_module", sizeof(gv_rdma_module)},
    {"gv_rdma_opts", sizeof(gv_rdma_opts)},
    {"gv_rdma_port", sizeof(gv_rdma_port)},
    {"gv_rdma_setting", sizeof(gv_rdma_setting)},
    {"gv_run_event", sizeof(gv_run_event)},
    {"gv_run_opts", sizeof(gv_run_opts)},
    {"gv_stress_gpu", sizeof(gv_stress_gpu)},
    {"gv_stress_opts", sizeof(gv_stress_opts)},
    {"gv_stress_result", sizeof(gv_stress_result)},
    {"gv_stress_sample", sizeof(gv_stress_sample)},
    {"gv_topo_device", sizeof(gv_topo_device)},
    {"gv_topo_info", sizeof(gv_topo_info)},
    {"gv_topo_link", sizeof(gv_topo_link)},
    {"gv_topo_opts", sizeof(gv_topo_opts)},
};

uint32_t gv_struct_size(const char *type_name)
{
    for (size_t i = 0; type_name && i < sizeof sizes / sizeof *sizes; i++)
        if (strcmp(sizes[i].name, type_name) == 0)
            return (uint32_t)sizes[i].size;
    return 0;
}
