/* SPDX-License-Identifier: Apache-2.0 */
/* gv-gpudirect: is GPUDirect RDMA over DMA-BUF ready? A verify-gpudirect style readiness
 * report built from gpuverify's gpudirect.* checks, each prerequisite on its own line and one
 * verdict. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>

#include "sections.h"

static const tool_section sections[] = {
    {"NVIDIA Driver Status", "driver.module,driver.gpu_count"},
    {"DMA-BUF Support (NVIDIA-Recommended Method)",
     "gpudirect.p2pdma,gpudirect.open_module,gpudirect.kernel,gpudirect.dmabuf,"
     "gpudirect.nic_dmabuf"},
    {"Legacy nvidia-peermem (Not Used)", "gpudirect.peermem"},
    {"GPU/NIC Locality", "gpudirect.nic_locality"},
    {"PCIe ACS (Peer Traffic Through the Root Complex)", "gpudirect.acs"},
    {"GPUDirect RDMA", "gpudirect.ready"},
};

/* Under the driver: "580.95.05, NVIDIA H100 80GB HBM3, 81559 MiB" per GPU, as nvidia-smi's
 * --query-gpu=driver_version,name,memory.total --format=csv,noheader prints it. */
static void extra(gv_ctx *ctx, const gv_report *report, size_t section)
{
    (void)ctx;
    if (section == 0) {
        gv_driver_info d = GV_DRIVER_INFO_INIT;
        if (gv_report_driver(report, &d) != GV_OK)
            return;
        for (uint32_t i = 0; i < gv_report_gpu_count(report); i++) {
            gv_gpu g = GV_GPU_INIT;
            if (gv_report_gpu(report, i, &g) != GV_OK)
                continue;
            char mib[32] = "unknown";
            if (g.memory_total > 0)
                snprintf(mib, sizeof mib, "%lld MiB", (long long)(g.memory_total >> 20));
            printf("%s, %s, %s\n", d.driver_version[0] ? d.driver_version : d.module_version,
                   g.name[0] ? g.name : "unknown", mib);
        }
    }
}

int main(int argc, char **argv)
{
    return sections_main(argc, argv, "gv-gpudirect", sections, sizeof sections / sizeof *sections,
                         extra);
}
