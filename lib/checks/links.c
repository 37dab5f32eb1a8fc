/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU's links: gpu.pcie_link (sysfs width and speed against the most the GPU and its slot
 * allow) and gpu.nvlink (NVML link states). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/nvabi/nvml_abi.h"
#include "checks/checks.h"
#include "core/util.h"

void gv_check_gpu_pcie_link(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        const gv_gpu *p = &g->gpu;
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (g->in_pci && g->link_problem[0]) {
            gv_check_result *c = gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_ERROR,
                                               "link unknown: %s", g->link_problem);
            gv_result_remedy(c, "read the GPU's link with `lspci -vv` (LnkSta, LnkCap); a value "
                                "no PCIe link has is the kernel's or the sysroot's fault");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            continue;
        }
        if (!g->in_pci || p->link_width_current_sysfs < 0 || p->link_speed_current_gts < 0) {
            gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_SKIP,
                          "%s: sysfs has no current link speed and width for this GPU",
                          p->pci_bus_id[0] ? p->pci_bus_id : "this GPU");
            continue;
        }
        /* The achievable maximum: the GPU's own and its upstream port's, the lower. */
        int width_best = (int)gv_min_known(p->link_width_max_sysfs, g->upstream_width_max);
        double speed_best = gv_min_known(p->link_speed_max_gts, g->upstream_speed_max);
        int width = p->link_width_current_sysfs;
        double speed = p->link_speed_current_gts;
        gv_check_result *c;
        if (width < width_best) {
            c = gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_FAIL,
                              "%s link is x%d, GPU and slot allow x%d: %s of the bandwidth lost",
                              p->pci_bus_id, width, width_best, width == 0 ? "all" : "part");
            gv_result_remedy(c,
                             "reseat the GPU and check its riser or cable; `lspci -vv -s %s` "
                             "shows LnkSta against LnkCap",
                             p->pci_bus_id);
            gv_result_action(c, GV_ACTION_HW_INSPECT); /* lanes lost: seating, riser, cable */
        } else if (speed_best > 0 && speed < speed_best && g->utilization > 0) {
            c = gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_WARN,
                              "%s link at %.1f GT/s while the GPU is %d%% busy (up to %.1f GT/s)",
                              p->pci_bus_id, speed, g->utilization, speed_best);
            gv_result_remedy(c, "check the slot's PCIe generation setting in the BIOS and the "
                                "riser; a retrained link needs a reboot");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (speed_best > 0 && speed < speed_best) {
            c = gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_PASS,
                              "%s x%d at %.1f GT/s while idle (up to %.1f GT/s): GPUs lower the "
                              "link speed to save power and raise it under load",
                              p->pci_bus_id, width, speed, speed_best);
        } else {
            c = gv_report_add(r, gv_id_gpu_pcie_link, subject, GV_PASS,
                              "%s x%d at %.1f GT/s, the most GPU and slot allow", p->pci_bus_id,
                              width, speed);
        }
        gv_result_measured(c, width, "lanes", "%.1f GT/s x%d", speed, width);
        gv_result_expected(c, "PCI", "x%d, %.1f GT/s (GPU and upstream port maxima)", width_best,
                           speed_best);
    }
}

void gv_check_gpu_nvlink(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (f->nvml_init != 0 || !gv_gpu_nvml_ok(g)) {
            gv_report_add(r, gv_id_gpu_nvlink, subject, GV_SKIP,
                          "NVML does not answer for this GPU (driver.nvml, gpu.nvml)");
            gv_report_delegate(r, gv_id_gpu_nvml);
            continue;
        }
        if (g->nvlink_count == 0) {
            gv_report_add(r, gv_id_gpu_nvlink, subject, GV_SKIP, "no NVLink: NVML reports none");
            continue;
        }
        int active = 0;
        char down[128] = "", number[8];
        for (int l = 0; l < g->nvlink_count; l++) {
            active += g->nvlinks[l].active;
            snprintf(number, sizeof number, "%d", l);
            if (!g->nvlinks[l].active)
                gv_append(down, sizeof down, ", ", number);
        }
        gv_check_result *c;
        if (active == g->nvlink_count) {
            c = gv_report_add(r, gv_id_gpu_nvlink, subject, GV_PASS, "%d of %d NVLinks active",
                              active, g->nvlink_count);
        } else if (active > 0) {
            c = gv_report_add(r, gv_id_gpu_nvlink, subject, GV_FAIL,
                              "%d of %d NVLinks down (links %s): peer bandwidth is cut",
                              g->nvlink_count - active, g->nvlink_count, down);
            gv_result_remedy(c,
                             "`nvidia-smi nvlink -s -i %d` and `-e` for errors; drain the "
                             "node, reset the GPU or the NVSwitch fabric",
                             (int)g->gpu.nvml_index);
            /* A link that trained once comes back with the reset; one that stays down after
             * it is hardware (gpu.nvlink_errors, the next run). */
            gv_result_action(c, GV_ACTION_RESET_GPU);
        } else if (g->gpu.cc_major >= 9 &&
                   g->health.fabric_state == GVNV_FABRIC_STATE_NOT_SUPPORTED) {
            /* From Hopper on NVML says whether a GPU is on an NVSwitch fabric: one that is not,
             * with no link up, is a card without NVLink bridges, as PCIe nodes are built. A
             * fabric that is down says so (gpu.fabric) and keeps the WARN below. */
            c = gv_report_add(r, gv_id_gpu_nvlink, subject, GV_SKIP,
                              "none of %d NVLinks connected and no NVSwitch fabric (NVML: not "
                              "supported): a card without NVLink bridges, its peers over PCIe",
                              g->nvlink_count);
        } else if (f->gpu_count > 1) {
            c = gv_report_add(r, gv_id_gpu_nvlink, subject, GV_WARN,
                              "none of %d NVLinks active on a node with %zu GPUs: peers talk "
                              "over PCIe (no bridge, or the fabric is down)",
                              g->nvlink_count, f->gpu_count);
            gv_result_remedy(c, "check the NVLink bridges or the fabric manager "
                                "(systemctl status nvidia-fabricmanager)");
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* mostly the fabric manager not up */
        } else {
            c = gv_report_add(r, gv_id_gpu_nvlink, subject, GV_SKIP,
                              "%d NVLinks, none active: a single GPU has no peer", g->nvlink_count);
        }
        gv_result_measured(c, active, "links", "%d active", active);
        gv_result_expected(c, "NVML", "%d active", g->nvlink_count);
        gv_counter k[2];
        uint32_t nk = 0;
        gv_counter_set(k, &nk, 2, "active", active);
        gv_counter_set(k, &nk, 2, "links", g->nvlink_count);
        gv_report_attach_counters(r, c, k, nk);
    }
}
