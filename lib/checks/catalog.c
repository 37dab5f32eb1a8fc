/* The catalog: every check in run order, what it needs and how long it may take, and the
 * lookups gv_run and the checks make in it (docs/checks.md describes each check). */
#include <string.h>

#include "checks/checks.h"
#include "compute/compute.h"
#include "gpuverify/gv_report.h"
#include "rdma/rdma.h"
#include "topo/topology.h"
#include "worker/call.h"

/* GPUDirect RDMA is a GPU talking to an RDMA NIC: without a NIC there is nothing to judge. */
#define GPUDIRECT_NEEDS (GV_NEEDS_GPU | GV_NEEDS_RDMA_NIC)

const gv_check_def gv_checks[] = {
    {"system.os", gv_check_system_os, NULL, 0, 0, 0, 0},
    {"system.kernel", gv_check_system_kernel, NULL, 0, 0, 0, 0},
    {"driver.module", gv_check_driver_module, NULL, 0, 0, 0, 0},
    /* Facts are gathered under these two: NVML and cuInit take seconds per GPU on a node
     * without persistence mode, so twice and four times the unit (60 s, 120 s by default).
     * Deadlines of checks whose work is one call in gpuverify-worker are that call's
     * (worker/call.h). */
    {"driver.nvml", gv_check_driver_nvml, NULL, 0, 0, GV_DEADLINE_NVML_START, 0},
    {"driver.version", gv_check_driver_version, NULL, 0, 0, 0, 0},
    {"driver.cuda", gv_check_driver_cuda, NULL, GV_FACTS_CUDA, 0, GV_DEADLINE_CUDA_START, 0},
    {"driver.gpu_count", gv_check_driver_gpu_count, NULL, 0, 0, 0, 0},
    {"driver.persistence", gv_check_driver_persistence, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.pci", gv_check_gpu_pci, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.pcie_link", gv_check_gpu_pcie_link, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.nvml", gv_check_gpu_nvml, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.nvlink", gv_check_gpu_nvlink, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.ecc", gv_check_gpu_ecc, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.mig", gv_check_gpu_mig, NULL, 0, GV_NEEDS_GPU, 0, 0},
    {"gpu.model", gv_check_gpu_model, NULL, 0, GV_NEEDS_GPU, 0, 0},
    /* The driver's recovery action (a health fact) tells a fault's history from its present. */
    {"gpu.xid", gv_check_gpu_xid, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    /* Health counters: NVML and sysfs only, no CUDA context (checks/health.c). */
    {"gpu.ecc_errors", gv_check_gpu_ecc_errors, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.row_remap", gv_check_gpu_row_remap, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.retired_pages", gv_check_gpu_retired_pages, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.memory_repair", gv_check_gpu_memory_repair, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.recovery", gv_check_gpu_recovery, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.pcie_errors", gv_check_gpu_pcie_errors, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.nvlink_errors", gv_check_gpu_nvlink_errors, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.clock_events", gv_check_gpu_clock_events, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.temperature", gv_check_gpu_temperature, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.fabric", gv_check_gpu_fabric, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    {"gpu.memory_unowned", gv_check_gpu_memory_unowned, NULL, GV_FACTS_HEALTH, GV_NEEDS_GPU, 0, 0},
    /* topo.numa may judge another node's XML. */
    {"topo.numa", NULL, gv_active_topo, 0, 0, GV_DEADLINE_TOPOLOGY, 0},
    {"topo.gpu_nic", NULL, gv_active_topo, 0, 0, GV_DEADLINE_TOPOLOGY, 0},
    {"rdma.modules", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"rdma.devices", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"rdma.ports", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"rdma.mtu", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"rdma.roce_tos", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"rdma.nccl_env", NULL, gv_active_rdma, 0, 0, GV_DEADLINE_RDMA_STATUS, 0},
    {"gpudirect.open_module", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.p2pdma", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.kernel", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.peermem", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.dmabuf", NULL, gv_active_gpudirect, GV_FACTS_CUDA, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.nic_dmabuf", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.nic_locality", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"gpudirect.ready", NULL, gv_active_gpudirect, 0, GPUDIRECT_NEEDS, 0, 0},
    {"driver.compat", NULL, gv_active_compat, GV_FACTS_CUDA, GV_NEEDS_GPU, 0, 0},
    {"cuda.init", NULL, gv_active_cuda, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_CUDA_CHECK, 0},
    {"cuda.alloc", NULL, gv_active_cuda, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_CUDA_CHECK, 0},
    {"cuda.copy", NULL, gv_active_cuda, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_CUDA_CHECK, 0},
    {"cuda.matmul", NULL, gv_active_cuda, GV_FACTS_CUDA, GV_NEEDS_GPU, 0, 0},
    /* Each GPU alone, then all at once: about a second per GPU at benchmark length. */
    {"cuda.copy_all", NULL, gv_active_copy_all, GV_FACTS_CUDA, GV_NEEDS_GPU, 4, 0},
    /* Every ordered pair in one call: n (n - 1) pairs, 240 on 16 GPUs through the host. */
    {"cuda.p2p", NULL, gv_active_p2p, GV_FACTS_CUDA, GV_NEEDS_GPU, 10, 0},
    {"mem.test", NULL, gv_active_memtest, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_MEM_TEST, 0},
    {"gemm.fp32", NULL, gv_active_gemm, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_GEMM_BENCH, 0},
    {"gemm.tf32", NULL, gv_active_gemm, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_GEMM_BENCH, 0},
    {"gemm.fp16", NULL, gv_active_gemm, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_GEMM_BENCH, 0},
    {"gemm.bf16", NULL, gv_active_gemm, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_GEMM_BENCH, 0},
    {"gemm.fp8", NULL, gv_active_gemm, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_GEMM_BENCH, 0},
    {"cudnn.version", NULL, gv_active_cudnn, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_CUDNN_CHECK,
     0},
    {"cudnn.conv", NULL, gv_active_cudnn, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_CUDNN_CHECK, 0},
    /* The collective's own deadline is the run's remaining budget (nccl.c); this (600 s by
     * default) is the backstop for a hang outside it. */
    {"nccl.version", NULL, gv_active_nccl, GV_FACTS_CUDA, GV_NEEDS_GPU, 20, 0},
    {"nccl.allreduce", NULL, gv_active_nccl, GV_FACTS_CUDA, GV_NEEDS_GPU, 20, 0},
    {"nccl.transport", NULL, gv_active_nccl, GV_FACTS_CUDA, GV_NEEDS_GPU, 20, 0},
    /* Extended level only: the GPUs loaded for the run's duration (120 s unless the caller
     * says), the setup within four times the unit. */
    {"stress.gemm", NULL, gv_active_stress, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_STRESS, 1},
    {"stress.power", NULL, gv_active_stress, GV_FACTS_CUDA, GV_NEEDS_GPU, GV_DEADLINE_STRESS, 1},
};
const size_t gv_check_count = sizeof gv_checks / sizeof gv_checks[0];
_Static_assert(sizeof gv_checks / sizeof gv_checks[0] <= GV_CATALOG_MAX,
               "GV_CATALOG_MAX is smaller than the catalog");

int gv_catalog_index(const char *id)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (strcmp(gv_checks[i].id, id) == 0)
            return (int)i;
    return -1;
}

int gv_catalog_group(int index)
{
    if (index < 0 || (size_t)index >= gv_check_count || !gv_checks[index].active)
        return index;
    while (index > 0 && gv_checks[index - 1].active == gv_checks[index].active)
        index--;
    return index;
}

static int active_is(size_t i, const gv_active_fn *fns, size_t n)
{
    for (size_t k = 0; i < gv_check_count && k < n; k++)
        if (gv_checks[i].active == fns[k])
            return 1;
    return 0;
}

int gv_catalog_per_gpu(size_t i)
{
    static const gv_active_fn each[] = {gv_active_cuda, gv_active_memtest, gv_active_gemm};
    return active_is(i, each, sizeof each / sizeof *each);
}

int gv_catalog_across_gpus(size_t i)
{
    static const gv_active_fn together[] = {gv_active_copy_all, gv_active_p2p, gv_active_nccl,
                                            gv_active_stress};
    return active_is(i, together, sizeof together / sizeof *together);
}

uint32_t gv_catalog_count(void)
{
    return (uint32_t)gv_check_count;
}

const char *gv_catalog_id(uint32_t index)
{
    return index < gv_check_count ? gv_checks[index].id : NULL;
}

int gv_active_selected(const gv_active_run *run, const char *id)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (strcmp(gv_checks[i].id, id) == 0)
            return run->chosen[i];
    return 0;
}
