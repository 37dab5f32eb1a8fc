/* SPDX-License-Identifier: Apache-2.0 */
/* gv-rdma: is the RDMA stack ready for multi-node training? A verify-rdma style readiness
 * report built from gpuverify's rdma.* checks: kernel modules, devices and links, MTU, RoCE
 * traffic class, and what NCCL would do with the node's settings. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>

#include "sections.h"

static const tool_section sections[] = {
    {"Inbox RDMA Kernel Modules", "rdma.modules"},
    {"RDMA Devices", "rdma.devices,rdma.ports"},
    {"MTU Configuration", "rdma.mtu"},
    {"RoCE Traffic Class (QoS)", "rdma.roce_tos"},
    {"NCCL Settings", "rdma.nccl_env"},
};

static const char *link_word(int32_t state)
{
    return state == GV_PORT_ACTIVE ? "ACTIVE" : state == GV_PORT_DOWN ? "DOWN" : "OTHER";
}

/* After the devices: `rdma link show` lines; after NCCL: each setting and where it came from. */
static void extra(gv_ctx *ctx, const gv_report *report, size_t section)
{
    (void)report;
    if (section != 1 && section != 4)
        return;
    gv_rdma_report *r = NULL;
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    if (gv_rdma_status(ctx, NULL, &r) != GV_OK || gv_rdma_summary(r, &info) != GV_OK) {
        gv_rdma_free(r);
        return;
    }
    if (section == 1 && info.port_count) {
        printf("\n--- rdma link show ---\n");
        for (uint32_t i = 0; i < info.port_count; i++) {
            gv_rdma_port p = GV_RDMA_PORT_INIT;
            gv_rdma_port_at(r, i, &p);
            printf("link %s/%u state %s physical_state %s netdev %s\n", p.device, p.port,
                   link_word(p.state), p.phys_state_text[0] ? p.phys_state_text : "?",
                   p.netdev[0] ? p.netdev : "-");
        }
    }
    if (section == 4) {
        printf("\nNCCL settings (environment, then NCCL's configuration files):\n");
        for (uint32_t i = 0; i < info.setting_count; i++) {
            gv_rdma_setting s = GV_RDMA_SETTING_INIT;
            gv_rdma_setting_at(r, i, &s);
            if (s.set)
                printf("  %s=%s  (%s)\n", s.name, s.value, s.source);
        }
    }
    gv_rdma_free(r);
}

int main(int argc, char **argv)
{
    return sections_main(argc, argv, "gv-rdma", sections, sizeof sections / sizeof *sections,
                         extra);
}
