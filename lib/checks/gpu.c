/* SPDX-License-Identifier: Apache-2.0 */
/* Per-GPU checks: gpu.pci, gpu.nvml, driver.persistence, gpu.ecc, gpu.mig, gpu.model. */
#define _GNU_SOURCE /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/nvml_backend.h"
#include "checks/checks.h"
#include "gpuverify/gv_policy.h"

void gv_gpu_subject(const gv_gpu_record *g, char *out, size_t cap)
{
    snprintf(out, cap, "gpu%u", g->gpu.index);
}

int gv_gpu_nvml_ok(const gv_gpu_record *g)
{
    return g->gpu.nvml_index >= 0 && g->gpu.nvml_result == 0;
}

void gv_check_gpu_pci(const gv_facts *f, gv_report *r)
{
    /* sysfs that cannot be read, or a node judged from files that lack its GPUs: where the
     * check runs, not the GPU. */
    if (f->pci_src.status != GV_OK) {
        gv_result_action(
            gv_report_add(r, gv_id_gpu_pci, "node", GV_ERROR, "%s", f->pci_src.err.text),
            GV_ACTION_FIX_CONFIG);
        return;
    }
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        const gv_gpu *p = &g->gpu;
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (!g->in_pci) {
            gv_check_result *c =
                gv_report_add(r, gv_id_gpu_pci, subject, GV_WARN,
                              "%s is not in /sys/bus/pci/devices (seen by %s only)",
                              p->pci_bus_id[0] ? p->pci_bus_id : "this GPU",
                              p->nvml_index >= 0 ? "NVML" : "the driver");
            gv_result_remedy(c, "judge the node from its own /sys: a sysroot of another machine, "
                                "or a container without the host's sysfs, lacks the GPU's PCI "
                                "function");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            continue;
        }
        if (g->pci_problem[0]) {
            gv_result_action(
                gv_report_add(r, gv_id_gpu_pci, subject, GV_ERROR, "%s", g->pci_problem),
                GV_ACTION_FIX_CONFIG);
            continue;
        }
        char numa[16];
        snprintf(numa, sizeof numa, "%d", (int)p->numa_node);
        gv_check_result *c = gv_report_add(
            r, gv_id_gpu_pci, subject, GV_PASS,
            "%s %04x:%04x class %06x, NUMA node %s, CPUs %s, link %.1f GT/s x%d (max %.1f GT/s "
            "x%d)",
            p->pci_bus_id, (unsigned)p->pci_vendor_id, (unsigned)p->pci_device_id,
            (unsigned)p->pci_class, p->numa_node < 0 ? "unknown" : numa,
            p->local_cpus[0] ? p->local_cpus : "unknown", p->link_speed_current_gts,
            (int)p->link_width_current_sysfs, p->link_speed_max_gts, (int)p->link_width_max_sysfs);
        gv_result_measured(c, NAN, "", "%s", p->pci_bus_id);
    }
}

void gv_check_gpu_nvml(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (f->nvml_init != 0) {
            gv_report_add(r, gv_id_gpu_nvml, subject, GV_SKIP, "NVML is not usable (driver.nvml)");
            gv_report_delegate(r, gv_id_driver_nvml);
            continue;
        }
        if (g->gpu.nvml_index < 0) {
            gv_check_result *c = gv_report_add(
                r, gv_id_gpu_nvml, subject, g->excluded ? GV_WARN : GV_FAIL, "%s: %s",
                g->gpu.pci_bus_id,
                g->excluded ? "excluded by the driver (NVreg_ExcludedGpus or an inforom fault)"
                            : "on the PCI bus but not visible to NVML");
            gv_result_remedy(c, "check `dmesg` for NVRM errors on this bus id; reset or reboot");
            /* Excluded: mostly NVreg_ExcludedGpus, a setting. Unseen by NVML: a GPU missing. */
            gv_result_action(c, g->excluded ? GV_ACTION_FIX_CONFIG : GV_ACTION_HW_INSPECT);
            continue;
        }
        if (g->gpu.nvml_result != 0) {
            gv_check_result *c =
                gv_report_add(r, gv_id_gpu_nvml, subject, GV_FAIL, "%s (NVML index %d)", g->problem,
                              (int)g->gpu.nvml_index);
            gv_result_remedy(c, g->gpu.nvml_result == GVNV_ERROR_GPU_IS_LOST
                                    ? "the GPU fell off the bus: drain the node, look for Xid 79 "
                                      "in `dmesg`, reset the GPU or reboot"
                                    : "check `dmesg` for NVRM/Xid errors on this GPU");
            /* Fallen off the bus: as driver.gpu_count's. A GPU that answers NVML's handle but
             * not its queries is reset first. */
            gv_result_action(c, g->gpu.nvml_result == GVNV_ERROR_GPU_IS_LOST ? GV_ACTION_HW_INSPECT
                                                                             : GV_ACTION_RESET_GPU);
            continue;
        }
        gv_report_add(r, gv_id_gpu_nvml, subject, GV_PASS, "%s %s answers NVML queries",
                      g->gpu.name, g->gpu.pci_bus_id);
    }
}

void gv_check_driver_persistence(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (!gv_gpu_nvml_ok(g) || g->gpu.persistence_mode < 0) {
            gv_report_add(r, gv_id_driver_persistence, subject, GV_SKIP,
                          "persistence mode unknown: NVML has no answer for this GPU");
            continue;
        }
        int on = g->gpu.persistence_mode == 1;
        gv_check_result *c =
            gv_report_add(r, gv_id_driver_persistence, subject, on ? GV_PASS : GV_WARN,
                          "persistence mode %s", on ? "enabled" : "disabled");
        gv_result_measured(c, on, "", "%s", on ? "Enabled" : "Disabled");
        if (!on) {
            gv_result_expected(c, "NVIDIA datacenter guidance", "Enabled");
            gv_result_remedy(c,
                             "run nvidia-persistenced (systemctl enable --now "
                             "nvidia-persistenced) so the driver stays initialised between jobs");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        }
    }
}

/* Shared by the mode checks (ECC, MIG): SKIP when NVML has no answer or the GPU lacks the
 * feature, WARN when a change waits for a GPU reset. Returns 1 when it judged, 0 when the
 * caller should judge the current mode. */
static int mode_judged(gv_report *r, const char *id, const char *subject, const gv_gpu_record *g,
                       const char *feature, int current, int pending)
{
    if (!gv_gpu_nvml_ok(g) || current < 0) {
        gv_report_add(r, id, subject, GV_SKIP, "%s %s", gv_gpu_nvml_ok(g) ? feature : "NVML",
                      gv_gpu_nvml_ok(g) ? "not supported on this GPU"
                                        : "has no answer for this GPU (gpu.nvml)");
        if (!gv_gpu_nvml_ok(g))
            gv_report_delegate(r, gv_id_gpu_nvml);
        return 1;
    }
    if (pending >= 0 && pending != current) {
        gv_check_result *c = gv_report_add(
            r, id, subject, GV_WARN, "%s %s now, %s after the next GPU reset", feature,
            current ? "enabled" : "disabled", pending ? "enabled" : "disabled");
        gv_result_measured(c, current, "", "%s", current ? "Enabled" : "Disabled");
        gv_result_remedy(c, "reset the GPU or reboot to apply the pending %s mode", feature);
        gv_result_action(c, GV_ACTION_RESET_GPU);
        return 1;
    }
    return 0;
}

void gv_check_gpu_ecc(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        const gv_gpu *p = &g->gpu;
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (mode_judged(r, gv_id_gpu_ecc, subject, g, "ECC", p->ecc_current, p->ecc_pending))
            continue;
        gv_check_result *c;
        if (!p->ecc_current) {
            c = gv_report_add(r, gv_id_gpu_ecc, subject, GV_WARN,
                              "ECC disabled: memory errors go undetected");
            gv_result_expected(c, "GPU supports ECC", "Enabled");
            gv_result_remedy(c, "enable ECC (`nvidia-smi -i %u -e 1`) and reset the GPU",
                             (unsigned)(p->nvml_index < 0 ? 0 : p->nvml_index));
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* a setting, applied by the reset */
        } else {
            c = gv_report_add(r, gv_id_gpu_ecc, subject, GV_PASS, "ECC enabled");
        }
        gv_result_measured(c, p->ecc_current, "", "%s", p->ecc_current ? "Enabled" : "Disabled");
    }
}

void gv_check_gpu_mig(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        const gv_gpu *p = &g->gpu;
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        if (mode_judged(r, gv_id_gpu_mig, subject, g, "MIG", p->mig_current, p->mig_pending))
            continue;
        gv_check_result *c = gv_report_add(
            r, gv_id_gpu_mig, subject, GV_PASS, "%s",
            p->mig_current ? "MIG enabled: checks needing the whole GPU run on its MIG instances"
                           : "MIG disabled");
        gv_result_measured(c, p->mig_current, "", "%s", p->mig_current ? "Enabled" : "Disabled");
    }
}

/* Every GPU is the policy's model; without one, every GPU is the model of the node's first
 * (a mixed node is worth a look: jobs assume identical GPUs). */
void gv_check_gpu_model(const gv_facts *f, gv_report *r)
{
    const char *want = f->policy ? f->policy->gpu_model : "";
    const char *first = NULL;
    for (size_t i = 0; i < f->gpu_count && !first; i++)
        if (f->gpus[i].gpu.name[0])
            first = f->gpus[i].gpu.name;
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        const char *name = g->gpu.name;
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        gv_check_result *c;
        if (!name[0] && g->proc_problem[0]) {
            /* The driver's file that names it is there but unreadable: not judged is not
             * enough, the file is broken. */
            c = gv_report_add(r, gv_id_gpu_model, subject, GV_ERROR,
                              "the GPU's name is unknown: %s", g->proc_problem);
            gv_result_remedy(c, "reload the nvidia module, or capture the sysroot again");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
            continue;
        }
        if (!name[0]) {
            gv_report_add(r, gv_id_gpu_model, subject, GV_SKIP,
                          "the GPU's name is unknown (NVML and CUDA cannot name it)");
            continue;
        }
        if (want[0] && !strcasestr(name, want)) {
            c = gv_report_add(r, gv_id_gpu_model, subject, GV_FAIL,
                              "%s is not the model the policy expects ('%s')", name, want);
            gv_result_remedy(c, "a node of another type, or a policy for another pool");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else if (!want[0] && strcmp(name, first) != 0) {
            c = gv_report_add(r, gv_id_gpu_model, subject, GV_WARN,
                              "%s differs from the node's first GPU (%s)", name, first);
            gv_result_remedy(c, "mixed GPUs in one node: check the inventory, or set gpu_model "
                                "in the policy");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else {
            c = gv_report_add(r, gv_id_gpu_model, subject, GV_PASS, "%s", name);
        }
        gv_result_measured(c, NAN, "", "%s", name);
        if (want[0])
            gv_result_expected(c, "policy", "name contains '%s'", want);
        else
            gv_result_expected(c, "node", "%s", first);
    }
}
