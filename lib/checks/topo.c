/* SPDX-License-Identifier: Apache-2.0 */
/* topo.numa and topo.gpu_nic: judged on gv_topology, built once per run (live hwloc, or the
 * run's topology XML). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "core/context.h"
#include "rdma/rdma.h"
#include "topo/paths.h"
#include "topo/topology.h"

static void rows_for_all(gv_active_run *run, int verdict, const char *why)
{
    /* No topology (hwloc or the XML failed): not judged, run again. */
    gv_active_rows_action(run, gv_active_group(gv_active_topo), "node", verdict, GV_ACTION_RERUN,
                          why);
}

static void judge_numa(gv_active_run *run, const gv_topo *t, const gv_topo_info *info)
{
    for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        if (d.kind != GV_TOPO_GPU)
            continue;
        char subject[48];
        snprintf(subject, sizeof subject, "gpu%s", d.label + 3);
        gv_check_result *c;
        if (info->numa_nodes <= 1) {
            c = gv_report_add(run->report, gv_id_topo_numa, subject, GV_PASS,
                              "%s: one NUMA node on this host, every CPU is local (CPUs %s)",
                              d.pci_bus_id, d.cpus[0] ? d.cpus : "unknown");
        } else if (d.numa_node < 0) {
            c = gv_report_add(run->report, gv_id_topo_numa, subject, GV_WARN,
                              "%s has no NUMA node on a host with %u (CPU affinity %s, NUMA "
                              "affinity %s): jobs cannot be bound next to it",
                              d.pci_bus_id, info->numa_nodes, d.cpus[0] ? d.cpus : "unknown",
                              d.numa_affinity[0] ? d.numa_affinity : "unknown");
            gv_result_remedy(c,
                             "enable NUMA reporting for PCI devices in the BIOS (or the VM's "
                             "vNUMA/PCI locality), then check /sys/bus/pci/devices/%s/numa_node",
                             d.pci_bus_id);
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* the BIOS's or the VM's */
        } else {
            c = gv_report_add(run->report, gv_id_topo_numa, subject, GV_PASS,
                              "%s on NUMA node %d of %u, CPUs %s", d.pci_bus_id, (int)d.numa_node,
                              info->numa_nodes, d.cpus);
        }
        gv_result_measured(c, d.numa_node >= 0 ? d.numa_node : NAN, "", "%s",
                           d.numa_node >= 0 ? d.numa_affinity : "unknown");
    }
}

static void judge_gpu_nic(gv_active_run *run, const gv_topo *t, const gv_topo_info *info)
{
    /* NCCL told the topology by a file (a VM whose PCI tree hides the real one, as Azure ND
     * images describe it): the tree seen here is reported, not judged. */
    const gv_rdma_report *rdma = gv_active_rdma_report(run);
    const gv_rdma_setting *file = rdma ? gv_rdma_setting_find(rdma, "NCCL_TOPO_FILE") : NULL;
    /* No GPU with a NIC beside it is how the node was built (NICs off the CPU): each GPU's
     * distance is reported, and gpudirect.nic_locality says it once for the node. */
    int any_near = 0;
    for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        any_near |= d.kind == GV_TOPO_GPU && d.nearest_path > GV_PATH_UNKNOWN &&
                    d.nearest_path <= GV_PATH_PXB;
    }
    int built_far = !any_near && !(run->policy && run->policy->require_rdma);
    for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT, nic = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        if (d.kind != GV_TOPO_GPU)
            continue;
        char subject[48];
        snprintf(subject, sizeof subject, "gpu%s", d.label + 3);
        if (info->nic_count == 0) {
            gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_SKIP,
                          "no RDMA NIC on this node (no OpenFabrics device)");
            continue;
        }
        if (d.nearest_nic < 0) {
            gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_SKIP,
                          "%s is not in hwloc's topology: its distance to the NICs is unknown",
                          d.pci_bus_id);
            continue;
        }
        gv_topo_device_at(t, (uint32_t)d.nearest_nic, &nic);
        const char *cls = gv_path_name(d.nearest_path);
        gv_check_result *c;
        if (d.nearest_path <= GV_PATH_PXB) {
            c = gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_PASS,
                              "%s: nearest NIC %s (%s) at %s%s", d.pci_bus_id, nic.name,
                              nic.pci_bus_id, cls,
                              d.gdr_capable ? ", within NCCL's GPUDirect RDMA level"
                                            : ", beyond NCCL_NET_GDR_LEVEL");
        } else if (built_far) {
            c = gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_PASS,
                              "%s: nearest NIC %s (%s) at %s, as built: no GPU of this node has a "
                              "NIC beside it (gpudirect.nic_locality)",
                              d.pci_bus_id, nic.name, nic.pci_bus_id, cls);
        } else if (file) {
            c = gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_SKIP,
                              "%s: nearest NIC %s (%s) at %s in the PCI tree this process sees; "
                              "not judged: NCCL takes the node's topology from NCCL_TOPO_FILE=%s",
                              d.pci_bus_id, nic.name, nic.pci_bus_id, cls, file->value);
        } else {
            c = gv_report_add(run->report, gv_id_topo_gpu_nic, subject, GV_WARN,
                              "%s: nearest NIC %s (%s) is at %s%s: RDMA traffic of this GPU "
                              "crosses %s",
                              d.pci_bus_id, nic.name, nic.pci_bus_id, cls,
                              d.gdr_capable ? "" : " (no GPUDirect RDMA at NCCL's level)",
                              d.nearest_path == GV_PATH_SYS ? "the socket interconnect"
                                                            : "the CPU's host bridge");
            gv_result_remedy(c, "put a NIC under the same PCIe switch as each GPU (the "
                                "vendor's reference layout), or pin the job's NIC with "
                                "NCCL_IB_HCA to the nearest one");
            /* Some GPUs have a NIC beside them and this one not: a NIC missing or moved from
             * the vendor's layout. */
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        }
        gv_result_measured(c, d.nearest_path, "", "%s via %s", cls, nic.name);
        gv_result_expected(c, "topology", "PIX or PXB");
    }
}

int gv_active_topology_usable(const gv_active_run *run, char *why_not, size_t cap)
{
    if (run->topology_xml || strcmp(run->ctx->sysroot, "/") == 0)
        return 1;
    /* hwloc replays a captured tree from HWLOC_FSROOT (tests and offline analysis). */
    const char *fsroot = getenv("HWLOC_FSROOT");
    char a[PATH_MAX], b[PATH_MAX];
    if (fsroot && realpath(fsroot, a) && realpath(run->ctx->sysroot, b) && strcmp(a, b) == 0)
        return 1;
    snprintf(why_not, cap,
             "the sysroot is not this machine and live hwloc reads this machine: pass the "
             "node's topology XML (lstopo --of xml)");
    return 0;
}

const gv_topo *gv_active_topology(gv_active_run *run)
{
    if (run->topo || run->topo_status != GV_OK)
        return run->topo;
    /* One level for topo.gpu_nic and gpudirect.nic_locality: NCCL's, files included. A value
     * NCCL would not parse falls back to the default (rdma.nccl_env warns about it). */
    const gv_rdma_report *r = gv_active_rdma_report(run);
    const gv_rdma_setting *s = r ? gv_rdma_setting_find(r, "NCCL_NET_GDR_LEVEL") : NULL;
    int32_t level;
    if (!s || gv_path_parse_gdr_level(s->value, &level) != 0)
        level = GV_PATH_PXB;
    run->topo_status = gv_topo_build(run->ctx, run->topology_xml, level, run->facts, &run->topo);
    if (run->topo_status != GV_OK)
        snprintf(run->topo_error, sizeof run->topo_error, "%s", gv_ctx_last_error(run->ctx));
    return run->topo;
}

void gv_active_topo(gv_active_run *run)
{
    char why[256];
    if (!gv_active_topology_usable(run, why, sizeof why)) {
        rows_for_all(run, GV_SKIP, why);
        return;
    }
    const gv_topo *t = gv_active_topology(run);
    if (!t) {
        rows_for_all(run, GV_ERROR, run->topo_error);
        return;
    }
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    if (info.gpu_count == 0)
        rows_for_all(run, GV_SKIP, "no NVIDIA GPU in the topology");
    else {
        if (gv_active_selected(run, gv_id_topo_numa))
            judge_numa(run, t, &info);
        if (gv_active_selected(run, gv_id_topo_gpu_nic))
            judge_gpu_nic(run, t, &info);
    }
}
