/* SPDX-License-Identifier: Apache-2.0 */
/* GPUDirect RDMA readiness: every prerequisite as its own row, then gpudirect.ready, the one
 * verdict. The path judged is DMA-BUF (open NVIDIA module + kernel P2PDMA + a GPU and a NIC
 * that support it, the NIC near the GPU); legacy peer memory beside it is flagged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "core/context.h"
#include "core/util.h"
#include "rdma/rdma.h"
#include "sys/pci.h"
#include "sys/pci_acs.h"
#include "topo/topology.h"
#include "gpuverify/gv_policy.h"

/* The default minimum kernel for DMA-BUF GPUDirect RDMA: a policy value, not a kernel fact (DMA-BUF
 * memory registration itself arrived in 5.12); gv_policy.kernel_min overrides it. */
#define KERNEL_MIN_DEFAULT "6.2"

static void open_module(gv_active_run *run)
{
    const gv_facts *f = run->facts;
    gv_check_result *c;
    if (f->module.kind == GV_MODULE_OPEN) {
        c = gv_report_add(run->report, gv_id_gpudirect_open_module, "node", GV_PASS,
                          "Using nvidia-open driver %s (taint %s): DMA-BUF supported",
                          f->module.version, f->sysfs_taint[0] ? f->sysfs_taint : "?");
    } else if (f->module.kind == GV_MODULE_PROPRIETARY) {
        c = gv_report_add(run->report, gv_id_gpudirect_open_module, "node", GV_FAIL,
                          "proprietary NVIDIA module %s (taint %s): it cannot export GPU memory "
                          "as DMA-BUF",
                          f->module.version, f->sysfs_taint[0] ? f->sysfs_taint : "?");
        gv_result_remedy(c,
                         "install the open kernel module of the same driver (e.g. "
                         "nvidia-driver-%.3s-open, or the .run installer's -m=kernel-open)",
                         f->module.version);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_open_module, "node", GV_ERROR,
                          "cannot tell which NVIDIA module is loaded: %s",
                          f->version_src.status != GV_OK ? f->version_src.err.text
                                                         : "no /proc/driver/nvidia/version");
    }
    gv_result_measured(c, NAN, "", "%s",
                       f->module.kind == GV_MODULE_OPEN          ? "open"
                       : f->module.kind == GV_MODULE_PROPRIETARY ? "proprietary"
                                                                 : "unknown");
    gv_result_expected(c, "DMA-BUF", "open");
    /* The prerequisites of GPUDirect RDMA are the node's software and settings: the module,
     * the kernel's configuration and version, NCCL's settings, rdma-core. */
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
}

static void p2pdma(gv_active_run *run)
{
    const gv_kconfig_value *v = &run->facts->p2pdma;
    gv_status s = run->facts->p2pdma_status;
    gv_check_result *c;
    if (s == GV_ERR_NOT_FOUND) {
        gv_report_add(run->report, gv_id_gpudirect_p2pdma, "node", GV_SKIP,
                      "cannot tell whether the kernel has CONFIG_PCI_P2PDMA: no configuration "
                      "found (tried %s)",
                      run->facts->p2pdma_tried);
        return;
    }
    if (s != GV_OK) {
        gv_result_action(gv_report_add(run->report, gv_id_gpudirect_p2pdma, "node", GV_ERROR, "%s",
                                       run->facts->p2pdma_err.text),
                         GV_ACTION_FIX_CONFIG);
        return;
    }
    if (strcmp(v->value, "y") == 0) {
        c = gv_report_add(run->report, gv_id_gpudirect_p2pdma, "node", GV_PASS,
                          "Kernel has CONFIG_PCI_P2PDMA=y (P2P DMA enabled; %s)", v->source);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_p2pdma, "node", GV_FAIL,
                          "Kernel %s: CONFIG_PCI_P2PDMA %s (%s): no PCI peer-to-peer DMA, so "
                          "no DMA-BUF GPUDirect RDMA",
                          run->facts->kernel[0] ? run->facts->kernel : "?",
                          v->listed ? (strcmp(v->value, "n") == 0 ? "is not set" : v->value)
                                    : "is absent from the configuration",
                          v->source);
        gv_result_remedy(c, "boot a kernel built with CONFIG_PCI_P2PDMA=y (Ubuntu 24.04's 6.8 "
                            "kernels are)");
    }
    gv_result_measured(c, NAN, "", "%s", v->value);
    gv_result_expected(c, "DMA-BUF", "y");
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
}

static void kernel(gv_active_run *run)
{
    const char *release = run->facts->kernel;
    int major, minor;
    if (!release[0] || gv_kernel_version(release, &major, &minor) != 0) {
        gv_result_action(
            gv_report_add(
                run->report, gv_id_gpudirect_kernel, "node", GV_ERROR, "kernel version unknown: %s",
                run->facts->kernel_src.status != GV_OK ? run->facts->kernel_src.err.text : release),
            GV_ACTION_FIX_CONFIG);
        return;
    }
    const char *min =
        run->policy && run->policy->kernel_min[0] ? run->policy->kernel_min : KERNEL_MIN_DEFAULT;
    int min_major = 6, min_minor = 2;
    sscanf(min, "%d.%d", &min_major, &min_minor); /* gv_policy_parse validated it */
    int ok = major > min_major || (major == min_major && minor >= min_minor);
    gv_check_result *c = gv_report_add(
        run->report, gv_id_gpudirect_kernel, "node", ok ? GV_PASS : GV_FAIL,
        ok ? "Kernel %d.%d supports DMA-BUF (%d.%d+ required)"
           : "Kernel %d.%d is older than %d.%d, the minimum for DMA-BUF GPUDirect RDMA",
        major, minor, min_major, min_minor);
    gv_result_measured(c, major + minor / 100.0, "", "%s", release);
    gv_result_expected(c, run->policy && run->policy->kernel_min[0] ? "policy" : "default",
                       ">= %d.%d", min_major, min_minor);
    if (!ok)
        gv_result_remedy(c, "upgrade the kernel to %d.%d or later", min_major, min_minor);
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
}

static void peermem(gv_active_run *run, const gv_rdma_report *r)
{
    gv_check_result *c;
    int open = run->facts->module.kind == GV_MODULE_OPEN;
    if (!r->info.peer_memory) {
        c = gv_report_add(run->report, gv_id_gpudirect_peermem, "node", GV_PASS,
                          "nvidia-peermem NOT loaded (using DMA-BUF instead)");
    } else if (open) {
        c = gv_report_add(run->report, gv_id_gpudirect_peermem, "node", GV_WARN,
                          "legacy peer memory is loaded (%s) beside the DMA-BUF path: NCCL "
                          "prefers DMA-BUF and the module is unused, or masks a broken DMA-BUF "
                          "setup",
                          r->info.peer_memory_source);
        gv_result_remedy(c, "rmmod nvidia_peermem and stop loading it at boot "
                            "(/etc/modules-load.d)");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_peermem, "node", GV_PASS,
                          "legacy peer memory is loaded (%s): the proprietary module's only "
                          "GPUDirect RDMA path",
                          r->info.peer_memory_source);
    }
    gv_result_measured(c, NAN, "", "%s", r->info.peer_memory ? "loaded" : "absent");
}

static void gpu_dmabuf(gv_active_run *run, const gv_rdma_report *r)
{
    const gv_facts *f = run->facts;
    if (f->cuda_lib.state != GV_LIBSTATE_LOADED || f->cuda_count <= 0) {
        gv_report_add(run->report, gv_id_gpudirect_dmabuf, "node", GV_SKIP,
                      "CUDA cannot be asked (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED): %s",
                      f->cuda_lib.state != GV_LIBSTATE_LOADED
                          ? (f->cuda_lib.detail[0] ? f->cuda_lib.detail : f->cuda_lib.tried)
                          : "CUDA sees no GPU");
        return;
    }
    size_t yes = 0, asked = 0;
    char without[256] = "";
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        if (g->gpu.cuda_index < 0 || g->dmabuf < 0)
            continue;
        asked++;
        if (g->dmabuf)
            yes++;
        else
            gv_append(without, sizeof without, ", ", g->gpu.pci_bus_id);
    }
    const gv_rdma_setting *off = gv_rdma_setting_find(r, "NCCL_DMABUF_ENABLE");
    int disabled = off && strtol(off->value, NULL, 10) == 0;
    gv_check_result *c;
    if (asked == 0) {
        c = gv_report_add(run->report, gv_id_gpudirect_dmabuf, "node", GV_SKIP,
                          "no GPU answered CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED");
    } else if (yes < asked) {
        c = gv_report_add(run->report, gv_id_gpudirect_dmabuf, "node", GV_FAIL,
                          "%zu of %zu GPUs cannot export memory as DMA-BUF (%s): driver or "
                          "kernel support is missing",
                          asked - yes, asked, without);
        gv_result_remedy(c, "use the open NVIDIA module on a kernel with CONFIG_PCI_P2PDMA=y");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (disabled) {
        c = gv_report_add(run->report, gv_id_gpudirect_dmabuf, "node", GV_WARN,
                          "%zu/%zu GPUs support DMA-BUF, but NCCL_DMABUF_ENABLE=%s (%s) keeps "
                          "NCCL from using it",
                          yes, asked, off->value, off->source);
        gv_result_remedy(c, "remove NCCL_DMABUF_ENABLE=0 (%s)", off->source);
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_dmabuf, "node", GV_PASS,
                          "%zu/%zu GPUs support DMA-BUF (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED)",
                          yes, asked);
    }
    gv_result_measured(c, (double)yes, "GPUs", "%zu/%zu", yes, asked);
}

static void nic_dmabuf(gv_active_run *run, const gv_rdma_report *r)
{
    if (r->device_count == 0) {
        gv_report_add(run->report, gv_id_gpudirect_nic_dmabuf, "node", GV_SKIP,
                      "no RDMA NIC on this node");
        return;
    }
    if (r->info.verbs_state != GV_LIBSTATE_LOADED) {
        gv_report_add(run->report, gv_id_gpudirect_nic_dmabuf, "node", GV_SKIP,
                      "libibverbs is needed to probe ibv_reg_dmabuf_mr: %s", r->info.verbs_detail);
        return;
    }
    size_t yes = 0, asked = 0;
    char without[512] = "";
    for (size_t i = 0; i < r->device_count; i++) {
        const gv_rdma_device *d = &r->devices[i];
        if (d->dmabuf_mr < 0)
            continue;
        asked++;
        if (d->dmabuf_mr)
            yes++;
        else {
            char one[256];
            snprintf(one, sizeof one, "%s (%s)", d->name, d->verbs_detail);
            gv_append(without, sizeof without, ", ", one);
        }
    }
    gv_check_result *c;
    if (asked == 0) {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_dmabuf, "node", GV_SKIP,
                          "libibverbs could open none of the %zu RDMA devices", r->device_count);
    } else if (yes < asked) {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_dmabuf, "node", GV_FAIL,
                          "%zu of %zu RDMA devices cannot register DMA-BUF memory: %s", asked - yes,
                          asked, without);
        gv_result_remedy(c, "use rdma-core 34 or newer and the inbox mlx5 driver of a kernel "
                            ">= 5.12");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_dmabuf, "node", GV_PASS,
                          "%zu/%zu RDMA devices register DMA-BUF memory (ibv_reg_dmabuf_mr)", yes,
                          asked);
    }
    gv_result_measured(c, (double)yes, "NICs", "%zu/%zu", yes, asked);
}

/* Each GPU of the topology against its nearest RDMA NIC: within NCCL's GPUDirect RDMA level
 * (near, the farthest such path in worst), beyond it (named in far), or at a distance hwloc
 * cannot tell (named in unplaced). */
typedef struct locality {
    size_t gpus, near, unknown;
    int worst;
    char far[384], unplaced[192];
} locality;

static void gpu_distances(const gv_topo *t, locality *l)
{
    memset(l, 0, sizeof *l);
    l->worst = GV_PATH_UNKNOWN;
    for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT, nic = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        if (d.kind != GV_TOPO_GPU)
            continue;
        l->gpus++;
        if (d.gdr_capable == 1) {
            l->near++;
            l->worst = d.nearest_path > l->worst ? d.nearest_path : l->worst;
            continue;
        }
        char one[160];
        /* A distance hwloc cannot tell (a GPU it does not place) is no finding: named, not
         * judged. */
        if (d.nearest_nic < 0 || d.nearest_path == GV_PATH_UNKNOWN ||
            gv_topo_device_at(t, (uint32_t)d.nearest_nic, &nic) != GV_OK) {
            l->unknown++;
            snprintf(one, sizeof one, "%s (%s)", d.label, d.pci_bus_id);
            gv_append(l->unplaced, sizeof l->unplaced, ", ", one);
            continue;
        }
        snprintf(one, sizeof one, "%s (%s: nearest %s at %s)", d.label, d.pci_bus_id, nic.name,
                 gv_path_name(d.nearest_path));
        gv_append(l->far, sizeof l->far, ", ", one);
    }
}

static void nic_locality(gv_active_run *run, const gv_rdma_report *r)
{
    char why[256];
    if (r->device_count == 0) {
        gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_SKIP,
                      "no RDMA NIC on this node");
        return;
    }
    if (!gv_active_topology_usable(run, why, sizeof why)) {
        gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_SKIP, "%s", why);
        return;
    }
    const gv_rdma_setting *level = gv_rdma_setting_find(r, "NCCL_NET_GDR_LEVEL");
    const gv_rdma_setting *file = gv_rdma_setting_find(r, "NCCL_TOPO_FILE");
    if (file && file->set) { /* a VM's hidden PCI tree, described to NCCL (Azure ND) */
        gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_SKIP,
                      "NCCL takes the node's topology from NCCL_TOPO_FILE=%s (%s), not from the "
                      "PCI tree this process sees: not judged",
                      file->value, file->source);
        return;
    }
    const gv_topo *t = gv_active_topology(run);
    if (!t) {
        gv_result_action(gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_ERROR,
                                       "%s", run->topo_error),
                         GV_ACTION_RERUN);
        return;
    }
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    locality l;
    gpu_distances(t, &l);
    size_t gpus = l.gpus, near = l.near, unknown = l.unknown;
    const char *far = l.far, *unplaced = l.unplaced;
    int worst = l.worst;
    const char *lvl = gv_path_name(info.gdr_level);
    gv_check_result *c;
    if (gpus == 0 || info.nic_count == 0) {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_SKIP,
                          "the topology has %u GPU(s) and %u RDMA NIC(s)", info.gpu_count,
                          info.nic_count);
    } else if (unknown == gpus) {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_SKIP,
                          "the distance from every GPU to the RDMA NICs is unknown: hwloc does "
                          "not place %s",
                          unplaced);
    } else if (near == 0 && !(run->policy && run->policy->require_rdma)) {
        /* Every GPU alike far from every NIC is how the node was built (a PCIe server whose
         * NICs hang off the CPU), not a NIC lost beside some GPUs: no GPUDirect RDMA here, and
         * NCCL's network traffic goes through host memory, a figure nccl.* and the fleet see. */
        c = gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_WARN,
                          "none of the %zu GPUs has an RDMA NIC within NCCL_NET_GDR_LEVEL=%s: %s; "
                          "the node is built without GPUDirect RDMA locality, NCCL stages network "
                          "traffic through host memory%s%s",
                          gpus - unknown, lvl, far,
                          unknown ? "; distance unknown, not judged: " : "", unplaced);
        gv_result_remedy(c, "if multi-node jobs need GPUDirect RDMA, put a NIC under the PCIe "
                            "switch of each GPU; a site that requires it says require_rdma = 1 "
                            "(then this FAILs)");
        /* How the node was built: the site's choice of node type, not a part to inspect. */
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (near + unknown < gpus) {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_FAIL,
                          "%zu of %zu GPUs have no RDMA NIC within NCCL_NET_GDR_LEVEL=%s: %s; "
                          "NCCL stages their traffic through host memory%s%s",
                          gpus - near - unknown, gpus, lvl, far,
                          unknown ? "; distance unknown, not judged: " : "", unplaced);
        gv_result_remedy(c, "put a NIC under the same PCIe switch as each GPU, or raise "
                            "NCCL_NET_GDR_LEVEL if the platform's P2P is fast across the CPU");
        /* Some GPUs have a NIC beside them and others not: a NIC missing from the layout. */
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else {
        c = gv_report_add(run->report, gv_id_gpudirect_nic_locality, "node", GV_PASS,
                          "%zu/%zu GPUs have an RDMA NIC within NCCL_NET_GDR_LEVEL=%s "
                          "(farthest nearest NIC: %s)%s%s",
                          near, gpus, lvl, gv_path_name(worst),
                          unknown ? "; distance unknown, not judged: " : "", unplaced);
    }
    gv_result_measured(c, (double)near, "GPUs", "%zu/%zu", near, gpus);
    gv_result_expected(c, level ? level->source : "NCCL default", "within %s", lvl);
}

/* The ports below the nearest switch the GPU and the NIC share (their own downstream ports and
 * any between): where ACS would send their peer traffic up to the root complex. 0 when they
 * share none (their traffic crosses the CPU whatever ACS says). */
static size_t ports_between(const gv_pci_function *gpu, const gv_pci_function *nic,
                            gv_pci_addr *out, size_t cap)
{
    for (size_t g = 0; g < gpu->parent_count; g++)
        for (size_t k = 0; k < nic->parent_count; k++) {
            if (gv_pci_addr_compare(&gpu->parents[g], &nic->parents[k]) != 0)
                continue;
            size_t n = 0;
            for (size_t i = 0; i < g && n < cap; i++)
                out[n++] = gpu->parents[i];
            for (size_t i = 0; i < k && n < cap; i++)
                out[n++] = nic->parents[i];
            return n;
        }
    return 0;
}

/* ACS on the switch ports between each GPU and its nearest RDMA NIC (NCCL's troubleshooting
 * guide: "ACSCtl: SrcValid+" there forces GPUDirect traffic through the CPU, slow or hung). */
static void acs(gv_active_run *run, const gv_rdma_report *r)
{
    const char *id = gv_id_gpudirect_acs;
    char why[256];
    if (r->device_count == 0) {
        gv_report_add(run->report, id, "node", GV_SKIP, "no RDMA NIC on this node");
        return;
    }
    if (!gv_active_topology_usable(run, why, sizeof why)) {
        gv_report_add(run->report, id, "node", GV_SKIP, "%s", why);
        return;
    }
    const gv_topo *t = gv_active_topology(run);
    if (!t) {
        gv_result_action(gv_report_add(run->report, id, "node", GV_ERROR, "%s", run->topo_error),
                         GV_ACTION_RERUN);
        return;
    }
    gv_pci_addr seen[64];
    size_t ports = 0, pairs = 0;
    char on[512] = "", unread[320] = "";
    for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT, nic = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        if (d.kind != GV_TOPO_GPU || d.nearest_nic < 0 ||
            gv_topo_device_at(t, (uint32_t)d.nearest_nic, &nic) != GV_OK)
            continue;
        gv_pci_addr ga, na;
        gv_pci_function gf, nf;
        gv_errbuf err;
        if (gv_pci_parse_addr(d.pci_bus_id, &ga) != 0 ||
            gv_pci_parse_addr(nic.pci_bus_id, &na) != 0 ||
            gv_pci_read_function(run->ctx->sysroot, &ga, &gf, &err) != GV_OK ||
            gv_pci_read_function(run->ctx->sysroot, &na, &nf, &err) != GV_OK)
            continue;
        gv_pci_addr between[2 * GV_PCI_MAX_PARENTS];
        size_t n = ports_between(&gf, &nf, between, sizeof between / sizeof *between);
        pairs += n > 0;
        for (size_t b = 0; b < n; b++) {
            size_t s = 0;
            while (s < ports && gv_pci_addr_compare(&seen[s], &between[b]) != 0)
                s++;
            if (s < ports || ports == sizeof seen / sizeof *seen)
                continue;
            seen[ports++] = between[b];
            char bdf[32], bits[64], one[160];
            gv_pci_format_addr(&between[b], bdf, sizeof bdf);
            gv_pci_acs a;
            gv_status st = gv_pci_acs_read(run->ctx->sysroot, bdf, &a, &err);
            if (st != GV_OK) {
                if (!unread[0])
                    snprintf(unread, sizeof unread, "%s", err.text);
                continue;
            }
            if (!a.present || !(a.control & GV_ACS_PEER_TRAFFIC))
                continue;
            gv_pci_acs_bits(a.control, bits, sizeof bits);
            snprintf(one, sizeof one, "%s (between %s %s and %s %s: %s)", bdf, d.label,
                     d.pci_bus_id, nic.name, nic.pci_bus_id, bits);
            gv_append(on, sizeof on, "; ", one);
        }
    }
    gv_check_result *c;
    if (on[0]) {
        c = gv_report_add(run->report, id, "node", GV_WARN,
                          "ACS reroutes peer traffic on the switch ports between GPUs and their "
                          "NICs: %s: GPUDirect RDMA goes through the CPU or fails",
                          on);
        gv_result_remedy(c, "turn ACS off on those ports: in the BIOS (PCIe ACS / IOMMU "
                            "settings), or until reboot with setpci -s <port> ECAP_ACS+0x6.w=0000 "
                            "(NCCL's troubleshooting guide); keep it where VMs need it");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (pairs == 0) {
        c = gv_report_add(run->report, id, "node", GV_SKIP,
                          "no GPU shares a PCIe switch with its nearest RDMA NIC: their traffic "
                          "crosses the CPU whatever ACS says (gpudirect.nic_locality)");
    } else if (unread[0]) {
        c = gv_report_add(run->report, id, "node", GV_SKIP, "ACS not read: %s", unread);
    } else {
        c = gv_report_add(run->report, id, "node", GV_PASS,
                          "no ACS redirect or source validation on the %zu switch port(s) "
                          "between %zu GPU(s) and their nearest RDMA NICs",
                          ports, pairs);
    }
    gv_result_measured(c, (double)ports, "ports", "%zu port(s)", ports);
}

/* The one verdict over the rows this group added: the worst of them, SKIPs aside unless every
 * prerequisite was skipped. */
static void ready(gv_active_run *run, size_t first)
{
    int worst = GV_PASS, considered = 0;
    int32_t action = GV_ACTION_NONE; /* the strongest of the prerequisites' */
    char failing[384] = "", skipped[256] = "";
    for (size_t i = first; i < run->report->count; i++) {
        const gv_check_result *res = &run->report->results[i];
        const char *dot = strchr(res->id, '.'); /* "p2pdma" of gpudirect.p2pdma */
        const char *name = dot ? dot + 1 : res->id;
        if (res->verdict == GV_SKIP) {
            gv_append(skipped, sizeof skipped, ", ", name);
            continue;
        }
        considered++;
        if (res->verdict != GV_PASS)
            gv_append(failing, sizeof failing, ", ", name);
        int rank = res->verdict == GV_ERROR ? GV_FAIL : res->verdict;
        worst = rank > worst ? rank : worst;
        if (res->verdict != GV_PASS && res->action > action)
            action = res->action;
    }
    gv_check_result *c;
    if (!considered)
        c = gv_report_add(run->report, gv_id_gpudirect_ready, "node", GV_SKIP,
                          "no prerequisite could be checked (%s)", skipped);
    else if (worst == GV_PASS)
        c = gv_report_add(run->report, gv_id_gpudirect_ready, "node", GV_PASS,
                          "GPUDirect RDMA over DMA-BUF is ready%s%s%s",
                          skipped[0] ? " (not checked: " : "", skipped, skipped[0] ? ")" : "");
    else
        c = gv_report_add(run->report, gv_id_gpudirect_ready, "node", worst,
                          "GPUDirect RDMA %s: %s%s%s%s",
                          worst == GV_FAIL ? "is NOT ready" : "works with warnings", failing,
                          skipped[0] ? " (not checked: " : "", skipped, skipped[0] ? ")" : "");
    if (considered && worst != GV_PASS)
        gv_result_remedy(c, "the gpudirect.* rows named say what each needs");
    gv_result_action(c, action);
    gv_result_measured(c, NAN, "", "%s",
                       worst == GV_PASS && considered ? "ready"
                       : worst == GV_FAIL             ? "not ready"
                                                      : "unknown");
}

void gv_active_gpudirect(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_gpudirect);
    if (!gv_facts_has_gpus(run->facts)) {
        gv_active_rows(run, members, "node", GV_SKIP, "no NVIDIA GPU on this node");
        return;
    }
    const gv_rdma_report *r = gv_active_rdma_report(run);
    if (!r) {
        gv_active_rows_action(run, members, "node", GV_ERROR, GV_ACTION_RERUN,
                              gv_ctx_last_error(run->ctx));
        return;
    }
    size_t first = run->report->count;
    if (gv_active_selected(run, gv_id_gpudirect_open_module))
        open_module(run);
    if (gv_active_selected(run, gv_id_gpudirect_p2pdma))
        p2pdma(run);
    if (gv_active_selected(run, gv_id_gpudirect_kernel))
        kernel(run);
    if (gv_active_selected(run, gv_id_gpudirect_peermem))
        peermem(run, r);
    if (gv_active_selected(run, gv_id_gpudirect_dmabuf))
        gpu_dmabuf(run, r);
    if (gv_active_selected(run, gv_id_gpudirect_nic_dmabuf))
        nic_dmabuf(run, r);
    if (gv_active_selected(run, gv_id_gpudirect_nic_locality))
        nic_locality(run, r);
    if (gv_active_selected(run, gv_id_gpudirect_acs))
        acs(run, r);
    if (gv_active_selected(run, gv_id_gpudirect_ready))
        ready(run, first);
}
