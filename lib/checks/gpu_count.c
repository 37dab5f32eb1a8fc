/* SPDX-License-Identifier: Apache-2.0 */
/* driver.gpu_count: PCI, NVML and CUDA must agree on the GPUs, or the difference must have an
 * explanation (CUDA_VISIBLE_DEVICES, MIG, GPUs the driver excludes, GPUs not given to this
 * process). "PCI sees 8, NVML 7" is a GPU that fell off the bus. */
#include <stdio.h>
#include <string.h>

#include "backends/nvabi/nvml_abi.h"
#include "checks/checks.h"
#include "gpuverify/gv_policy.h"
#include "core/util.h"

typedef struct counts {
    int usable;        /* seen by NVML with every query answered */
    int mig;           /* usable GPUs in MIG mode */
    int excluded;      /* excluded by the driver (/proc/driver/nvidia/gpus) */
    char missing[256]; /* PCI functions NVML does not see */
    char broken[256];  /* GPUs NVML sees but cannot query */
    int lost;          /* of those, GPUs NVML says fell off the bus */
} counts;

static void tally(const gv_facts *f, counts *k)
{
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char who[64];
        snprintf(who, sizeof who, "gpu%u %s", g->gpu.index,
                 g->gpu.pci_bus_id[0] ? g->gpu.pci_bus_id : "(no address)");
        k->excluded += g->excluded;
        if (g->gpu.nvml_index < 0) {
            if (g->in_pci && !g->excluded)
                gv_append(k->missing, sizeof k->missing, ", ", who);
        } else if (g->gpu.nvml_result != 0) {
            gv_append(k->broken, sizeof k->broken, ", ", who);
            k->lost += g->gpu.nvml_result == GVNV_ERROR_GPU_IS_LOST;
        } else {
            k->usable++;
            k->mig += g->gpu.mig_current == 1;
        }
    }
}

/* "3", or an en dash when the source could not be asked (absent library, failed init). */
static const char *count_text(int n, char *buf, size_t cap)
{
    if (n < 0)
        return "\xe2\x80\x93";
    snprintf(buf, cap, "%d", n);
    return buf;
}

/* No NVIDIA GPU by any source. A GPU node whose GPUs all fell off the bus looks exactly like
 * this, so it is a finding unless the policy says the node has none (gpu_count = 0). */
static void no_gpu(const gv_facts *f, int want, gv_report *r)
{
    const char *id = gv_id_driver_gpu_count;
    char pci[16], nvml[16], cuda[16], measured[64];
    snprintf(measured, sizeof measured, "PCI %s, NVML %s, CUDA %s",
             count_text(f->pci_count < 0 ? 0 : f->pci_count, pci, sizeof pci),
             count_text(f->nvml_count, nvml, sizeof nvml),
             count_text(f->cuda_count, cuda, sizeof cuda));
    gv_check_result *c;
    if (want == 0) {
        c = gv_report_add(r, id, "node", GV_PASS, "no NVIDIA GPU (%s), as the policy expects",
                          measured);
        gv_result_expected(c, "policy", "0");
    } else {
        c = gv_report_add(r, id, "node", GV_FAIL, "no NVIDIA GPU found: %s", measured);
        if (want > 0)
            gv_result_expected(c, "policy", "%d", want);
        else
            gv_result_expected(c, "default", ">= 1 (gpu_count = 0 in the policy for a CPU node)");
        gv_result_remedy(c, "check `lspci -d 10de:` and dmesg: GPUs that fell off the bus "
                            "(Xid 79), power or seating; on a node without GPUs on purpose, "
                            "set gpu_count = 0 in the policy");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    }
    gv_result_measured(c, 0, "GPUs", "%s", measured);
}

/* The GPUs an HGX baseboard's NVSwitches connect, from the switches this node has on its PCI
 * bus (Fabric Manager user guide, "GPU Baseboard Topologies": eight GPUs per baseboard; six
 * NVSwitches on HGX-2 and HGX A100, four on HGX H100/H200). Proportional, so that a VM given
 * part of a baseboard with its share of the switches expects its share of the GPUs. 0 when the
 * node has none of these (NVSwitch gen4, HGX B200, is not a PCI function of the host). */
int gv_check_baseboard_gpus(const gv_facts *f, const char **switch_name)
{
    static const struct {
        int device, per_baseboard;
        const char *name;
    } boards[] = {{0x1ac2, 6, "NVSwitch (HGX-2)"},
                  {0x1af1, 6, "A100 NVSwitch"},
                  {0x22a3, 4, "H100 NVSwitch"}};
    for (size_t i = 0; f->nvswitch_count > 0 && i < sizeof boards / sizeof *boards; i++)
        if (boards[i].device == f->nvswitch_device) {
            *switch_name = boards[i].name;
            return f->nvswitch_count * 8 / boards[i].per_baseboard;
        }
    return 0;
}

/* A GPU PCI has and NVML lacks or cannot query, or CUDA enumerating fewer than NVML: 1 with
 * the FAIL row added. */
static int lost(const gv_facts *f, const counts *k, const char *measured, gv_report *r)
{
    const char *id = gv_id_driver_gpu_count;
    gv_check_result *c;
    if (f->nvml_count >= 0 && (k->missing[0] || k->broken[0])) {
        c = gv_report_add(r, id, "node", GV_FAIL,
                          "PCI sees %d GPU(s), NVML %d, usable %d%s%s%s%s: a GPU fell off the bus "
                          "or the driver cannot reach it",
                          f->pci_count, f->nvml_count, k->usable,
                          k->missing[0] ? "; not in NVML: " : "", k->missing,
                          k->broken[0] ? "; NVML cannot query: " : "", k->broken);
        gv_result_remedy(c, "drain the node; check `dmesg` for Xid 79/NVRM errors, then reset the "
                            "GPU or reboot; reseat or replace hardware if it recurs");
        /* A GPU off the bus: NVIDIA lists hardware, bus and thermal causes for Xid 79 before
         * the driver's, and a reboot that brings it back hides a part that will fall off
         * again; the reboot is the inspection's first step (the remedy says so). A GPU that
         * answers NVML's handle but not its queries is reset first, as gpu.nvml says. */
        gv_result_action(c, k->missing[0] || k->lost ? GV_ACTION_HW_INSPECT : GV_ACTION_RESET_GPU);
        gv_result_expected(c, "PCI", "%d", f->pci_count);
        gv_result_measured(c, k->usable, "GPUs", "%s", measured);
        return 1;
    }
    int expected_cuda = k->usable - k->mig;
    if (f->cuda_count >= 0 && f->nvml_count >= 0 && !f->cuda_visible_set &&
        f->cuda_count < expected_cuda) {
        c = gv_report_add(r, id, "node", GV_FAIL,
                          "NVML sees %d usable GPU(s) but CUDA enumerates %d", k->usable,
                          f->cuda_count);
        gv_result_remedy(c, "check `dmesg` for errors on the missing GPUs; reset or reboot");
        /* NVML has them, CUDA does not: which GPU CUDA dropped is not known here, so not a
         * GPU reset but the node's. */
        gv_result_action(c, GV_ACTION_REBOOT_NODE);
        gv_result_expected(c, "NVML", "%d", expected_cuda);
        gv_result_measured(c, f->cuda_count, "GPUs", "%s", measured);
        return 1;
    }
    return 0;
}

/* Fewer GPUs on the bus than the baseboard's NVSwitches connect: 1 with the FAIL row added.
 * Without a policy, the baseboard says how many GPUs the node has: a GPU gone from the
 * bus altogether (not powered, not trained after a reboot) leaves PCI, NVML and CUDA
 * agreeing on one fewer, and nothing else would notice. */
static int baseboard_short(const gv_facts *f, int want, const char *measured, gv_report *r)
{
    const char *switch_name = NULL;
    int board = want < 0 ? gv_check_baseboard_gpus(f, &switch_name) : 0;
    if (board > 0 && f->pci_count >= 0 && f->pci_count < board) {
        gv_check_result *c = gv_report_add(
            r, gv_id_driver_gpu_count, "node", GV_FAIL,
            "%d GPU(s) on the PCI bus where the node's %d %s functions connect %d "
            "(an HGX baseboard holds 8): %d GPU(s) missing from the bus; %s",
            f->pci_count, f->nvswitch_count, switch_name, board, board - f->pci_count, measured);
        gv_result_expected(c, "NVSwitch baseboard", "%d", board);
        gv_result_measured(c, f->pci_count, "GPUs", "%s", measured);
        gv_result_remedy(c, "drain the node; ask the BMC which baseboard GPU is absent or "
                            "unpowered, check `dmesg` for PCIe link training errors at boot, "
                            "reseat or replace it");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
        return 1;
    }
    return 0;
}

/* The count as expected: n GPUs, with what else the message should say of them. */
static void count_pass(const gv_facts *f, const counts *k, int want, int n, const char *measured,
                       const char *apart, gv_report *r)
{
    gv_check_result *c =
        gv_report_add(r, gv_id_driver_gpu_count, "node", GV_PASS, "%d GPU(s): %s", n, measured);
    gv_result_measured(c, n, "GPUs", "%s", measured);
    if (want >= 0)
        gv_result_expected(c, "policy", "%d", want);
    if (c && f->cuda_visible_set)
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 "; CUDA_VISIBLE_DEVICES=%s shows this process %d of them", f->cuda_visible,
                 f->cuda_count);
    if (c && k->mig)
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 "; %d GPU(s) in MIG mode, enumerated by CUDA as MIG instances", k->mig);
    if (c && f->other_count)
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 "; %zu GPU(s) not this process's, not tested: %s", f->other_count, apart);
    if (c && k->excluded)
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 "; %d GPU(s) excluded by the driver", k->excluded);
}

/* The GPUs this process was given, against what the node should have: the policy's count, or
 * its baseboard's. */
static void judge_given(const gv_facts *f, const counts *k, int want, const char *measured,
                        gv_report *r)
{
    const char *id = gv_id_driver_gpu_count;
    gv_check_result *c;
    /* "gpu2, gpu3 (gpu2: /dev/nvidia2: absent ...)": the GPUs set apart and the first's reason. */
    char apart[384] = "", why[256] = "";
    for (size_t i = 0; i < f->other_count; i++) {
        char who[16];
        snprintf(who, sizeof who, "gpu%u", f->others[i].gpu.index);
        gv_append(apart, sizeof apart, ", ", who);
    }
    if (f->other_count) {
        snprintf(why, sizeof why, " (gpu%u: %s)", f->others[0].gpu.index, f->others[0].not_ours);
        gv_append(apart, sizeof apart, "", why);
    }
    if (k->usable == 0 && f->other_count) {
        c = gv_report_add(r, id, "node", GV_ERROR,
                          "none of the node's %zu GPU(s) is this process's to test: %s",
                          f->other_count, apart);
        gv_result_remedy(c, "run gpuverify where the GPUs are given to it: as root on the host, "
                            "or in a container or job given all of them");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        gv_result_measured(c, 0, "GPUs", "%s", measured);
        return;
    }
    /* The node's GPUs: those this process may use and those it was not given. */
    int n = (f->nvml_count >= 0 ? k->usable : f->pci_count) + (int)f->other_count;
    if (want >= 0 && n != want) {
        c = gv_report_add(r, id, "node", GV_FAIL, "%d GPU(s) where the policy expects %d: %s", n,
                          want, measured);
        gv_result_expected(c, "policy", "%d", want);
        gv_result_measured(c, n, "GPUs", "%s", measured);
        gv_result_remedy(c, "look for GPUs missing from `lspci -d 10de:` (seating, power, "
                            "BIOS/PCIe settings) or a policy written for another node type");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
        return;
    }
    if (baseboard_short(f, want, measured, r))
        return;
    count_pass(f, k, want, n, measured, apart, r);
}

void gv_check_driver_gpu_count(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_driver_gpu_count;
    int want = f->policy ? f->policy->gpu_count : -1;
    if (!gv_facts_has_gpus(f) && f->cuda_count <= 0) {
        no_gpu(f, want, r);
        return;
    }
    if (f->nvml_count < 0 && f->cuda_count < 0) {
        gv_report_add(r, id, "node", GV_SKIP,
                      "NVML and CUDA unusable (driver.nvml, driver.cuda): only PCI counted, %d "
                      "GPU(s)",
                      f->pci_count);
        return;
    }
    counts k;
    tally(f, &k);
    char measured[96], pci[16], nvml[16], cuda[16];
    snprintf(measured, sizeof measured, "pci=%s nvml=%s cuda=%s",
             count_text(f->pci_count, pci, sizeof pci),
             count_text(f->nvml_count, nvml, sizeof nvml),
             count_text(f->cuda_count, cuda, sizeof cuda));
    if (lost(f, &k, measured, r))
        return;
    judge_given(f, &k, want, measured, r);
}
