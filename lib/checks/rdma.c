/* SPDX-License-Identifier: Apache-2.0 */
/* rdma.modules, rdma.devices, rdma.ports, rdma.mtu, rdma.roce_tos, rdma.nccl_env (and
 * rdma.port_errors, rdma_errors.c): judged on the run's gv_rdma_status report, grouped as
 * gv-rdma prints them. A node with no RDMA hardware at all gets SKIP rows that say so: RDMA
 * matters only for multi-node work. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "gpuverify/gv_policy.h"
#include "core/context.h"
#include "core/util.h"
#include "rdma/rdma.h"
#include "topo/paths.h"
#include "gpuverify/gv_topology.h"

const gv_rdma_report *gv_active_rdma_report(gv_active_run *run)
{
    if (!run->rdma && run->rdma_status == GV_OK)
        run->rdma_status = gv_rdma_build(run->ctx, 0, &run->rdma);
    return run->rdma;
}

/* mlx5_core/mlx5_ib are needed by mlx5 devices, and by Mellanox functions that have no RDMA
 * device yet (their generation unknown); an mlx4 card needs mlx4_ib instead. */
static int needs_mlx5(const gv_rdma_report *r)
{
    if (r->info.functions_without_rdma[0])
        return 1;
    for (size_t i = 0; i < r->device_count; i++)
        if (strncmp(r->devices[i].name, "mlx5_", 5) == 0)
            return 1;
    return 0;
}

static void port_subject(const gv_rdma_port *p, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%u", p->device, p->port);
}

static void judge_modules(gv_active_run *run, const gv_rdma_report *r)
{
    for (size_t i = 0; i < r->module_count; i++) {
        const gv_rdma_module *m = &r->modules[i];
        int mlx5 = strncmp(m->name, "mlx5_", 5) == 0;
        gv_check_result *c;
        if (m->state == GV_MODULE_LOADED || m->state == GV_MODULE_BUILTIN) {
            c = gv_report_add(run->report, gv_id_rdma_modules, m->name, GV_PASS, "%s %s", m->name,
                              m->state == GV_MODULE_LOADED ? "loaded" : "built into the kernel");
        } else if (!gv_rdma_has_hardware(r)) {
            c = gv_report_add(run->report, gv_id_rdma_modules, m->name, GV_SKIP,
                              "%s not loaded; no RDMA hardware on this node (no RDMA device, "
                              "no Mellanox NIC)",
                              m->name);
        } else if (mlx5 && !needs_mlx5(r)) {
            c = gv_report_add(run->report, gv_id_rdma_modules, m->name, GV_SKIP,
                              "%s not loaded; not needed: no mlx5 device", m->name);
        } else if (m->state == GV_MODULE_STATE_UNKNOWN) {
            c = gv_report_add(run->report, gv_id_rdma_modules, m->name, GV_ERROR,
                              "cannot tell whether %s is loaded: %s", m->name, r->modules_err.text);
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* /proc/modules unreadable */
        } else {
            c = gv_report_add(run->report, gv_id_rdma_modules, m->name, GV_FAIL,
                              "%s not loaded (not in /proc/modules nor built in)", m->name);
            gv_result_remedy(c, "modprobe %s, and list it in /etc/modules-load.d/ for boot",
                             m->name);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        }
        gv_result_measured(c, NAN, "", "%s",
                           m->state == GV_MODULE_LOADED    ? "loaded"
                           : m->state == GV_MODULE_BUILTIN ? "built in"
                           : m->state == GV_MODULE_ABSENT  ? "absent"
                                                           : "unknown");
    }
}

static void judge_devices(gv_active_run *run, const gv_rdma_report *r)
{
    const gv_rdma_info *info = &r->info;
    if (info->functions_without_rdma[0]) {
        gv_check_result *c = gv_report_add(
            run->report, gv_id_rdma_devices, "node", GV_FAIL,
            "Mellanox NIC function(s) %s have no RDMA device: mlx5_ib is not bound to them",
            info->functions_without_rdma);
        gv_result_remedy(c, "modprobe mlx5_ib; check dmesg | grep mlx5 for firmware or "
                            "probe errors");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (r->device_count == 0) {
        int required = run->policy && run->policy->require_rdma;
        gv_check_result *c = gv_report_add(
            run->report, gv_id_rdma_devices, "node", required ? GV_FAIL : GV_SKIP,
            "no RDMA device (/sys/class/infiniband is empty or absent) and no Mellanox NIC: this "
            "node cannot do multi-node RDMA%s%s%s",
            info->vm_frontend[0] ? "; left out: " : "", info->vm_frontend,
            info->vm_frontend[0] ? ", the VM's frontend Ethernet (Accelerated Networking)" : "");
        if (required) {
            gv_result_expected(c, "policy", "an RDMA device (require_rdma)");
            gv_result_remedy(c, "check the NIC is seated and its driver (mlx5_core, mlx5_ib) "
                                "loaded; or a policy for nodes without RDMA");
            /* Not even a Mellanox function on the bus: the NIC is absent or unpowered. */
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        }
        return;
    }
    for (size_t i = 0; i < r->device_count; i++) {
        const gv_rdma_device *d = &r->devices[i];
        if (d->problem[0]) {
            gv_result_action(gv_report_add(run->report, gv_id_rdma_devices, d->name, GV_ERROR,
                                           "%s: %s", d->name, d->problem),
                             GV_ACTION_FIX_CONFIG); /* its sysfs files malformed */
            continue;
        }
        char where[96] = "not a PCI device";
        if (d->pci_bus_id[0] && d->numa_node >= 0)
            snprintf(where, sizeof where, "PCI %s, NUMA %d", d->pci_bus_id, d->numa_node);
        else if (d->pci_bus_id[0])
            snprintf(where, sizeof where, "PCI %s, NUMA unknown", d->pci_bus_id);
        int hidden = info->verbs_state == GV_LIBSTATE_LOADED && d->verbs_visible == 0;
        gv_check_result *c = gv_report_add(
            run->report, gv_id_rdma_devices, d->name, hidden ? GV_WARN : GV_PASS,
            "%s: %s, firmware %s, %s, %u port(s)%s", d->name, d->hca_type[0] ? d->hca_type : "?",
            d->fw_ver[0] ? d->fw_ver : "unknown", where, d->port_count,
            hidden ? "; libibverbs does not list it (ib_uverbs not loaded, or no user-space "
                     "provider for it)"
                   : "");
        gv_result_measured(c, d->port_count, "ports", "%s", d->fw_ver);
        if (hidden)
            gv_result_remedy(c, "modprobe ib_uverbs; install the rdma-core provider "
                                "(ibverbs-providers)");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    }
}

static int device_active(const gv_rdma_report *r, const char *device)
{
    for (size_t i = 0; i < r->port_count; i++)
        if (r->ports[i].state == GV_PORT_ACTIVE && strcmp(r->ports[i].device, device) == 0)
            return 1;
    return 0;
}

/* Whether device's ports being down cost a GPU its nearest path to the network: a GPU whose
 * nearest RDMA NICs (every NIC at its nearest PCIe class) are device and NICs with no ACTIVE
 * port, named in gpus ("GPU5 (PIX)"). 1 such GPUs, 0 none (each GPU keeps an ACTIVE NIC as near:
 * NCCL uses only ACTIVE ports, so an unused or uncabled port costs no job anything), -1 when
 * the topology cannot tell (not this machine's, not built, or the device not in it). */
static int leaves_gpus_far(gv_active_run *run, const gv_rdma_report *r, const char *device,
                           char *gpus, size_t cap)
{
    char why[256];
    gpus[0] = '\0';
    if (!gv_active_topology_usable(run, why, sizeof why))
        return -1;
    const gv_topo *t = gv_active_topology(run);
    uint32_t n = gv_topo_device_count(t);
    int in_topology = 0;
    for (uint32_t j = 0; j < n; j++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT;
        in_topology |= gv_topo_device_at(t, j, &d) == GV_OK && d.kind == GV_TOPO_NIC &&
                       strcmp(d.name, device) == 0;
    }
    if (!in_topology)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device g = GV_TOPO_DEVICE_INIT;
        if (gv_topo_device_at(t, i, &g) != GV_OK || g.kind != GV_TOPO_GPU ||
            g.nearest_path == GV_PATH_UNKNOWN)
            continue;
        int ours = 0, active = 0; /* over the NICs at the GPU's nearest class (the topology's) */
        for (uint32_t j = 0; j < n; j++) {
            gv_topo_device nic = GV_TOPO_DEVICE_INIT;
            gv_topo_link l = GV_TOPO_LINK_INIT;
            if (gv_topo_device_at(t, j, &nic) != GV_OK || nic.kind != GV_TOPO_NIC ||
                gv_topo_link_at(t, i, j, &l) != GV_OK || l.pcie_path != g.nearest_path)
                continue;
            ours |= strcmp(nic.name, device) == 0;
            active |= device_active(r, nic.name);
        }
        if (ours && !active) {
            char one[48];
            snprintf(one, sizeof one, "%s (%s)", g.label, gv_path_name(g.nearest_path));
            gv_append(gpus, cap, ", ", one);
        }
    }
    return gpus[0] != '\0';
}

/* "InfiniBand, LID 0x12", "Ethernet (RoCE v2 GID 3 on eth2)". */
static void link_layer_text(const gv_rdma_port *p, char *out, size_t cap)
{
    if (p->link_layer == GV_LINK_LAYER_INFINIBAND)
        snprintf(out, cap, "InfiniBand, LID 0x%x", p->lid < 0 ? 0 : p->lid);
    else if (p->link_layer == GV_LINK_LAYER_ETHERNET && p->roce_v2_gid >= 0)
        snprintf(out, cap, "Ethernet (RoCE v2 GID %d on %s)", p->roce_v2_gid,
                 p->netdev[0] ? p->netdev : "?");
    else
        snprintf(out, cap, "%s",
                 p->link_layer == GV_LINK_LAYER_ETHERNET ? "Ethernet" : "unknown link layer");
}

/* The row of an ACTIVE port. */
static gv_check_result *active_port(gv_active_run *run, const gv_rdma_port *p, const char *subject)
{
    gv_check_result *c;
    if (p->rate_gbps < 0) {
        /* An ACTIVE port whose rate is unknown cannot be said to carry traffic at speed. */
        c = gv_report_add(run->report, gv_id_rdma_ports, subject, GV_ERROR,
                          "%s port %u: PORT_ACTIVE, rate unknown: %s", p->device, p->port,
                          p->problem[0] ? p->problem : "no rate file");
        gv_result_remedy(c, "read the port's rate with `ibstat`; a rate no port has is the "
                            "NIC driver's or the sysroot's fault");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return c;
    }
    char layer[160];
    link_layer_text(p, layer, sizeof layer);
    int no_v2 = p->link_layer == GV_LINK_LAYER_ETHERNET && p->roce_v2_gid < 0;
    int verdict = no_v2 || p->problem[0] ? GV_WARN : GV_PASS;
    c = gv_report_add(run->report, gv_id_rdma_ports, subject, verdict,
                      "%s port %u: PORT_ACTIVE, %s, %s, %s%s%s%s", p->device, p->port,
                      p->phys_state_text[0] ? p->phys_state_text : "?",
                      p->rate_text[0] ? p->rate_text : "rate unknown", layer,
                      no_v2 ? "; no RoCE v2 GID: its netdev has no IP address" : "",
                      p->problem[0] ? "; " : "", p->problem);
    if (no_v2)
        gv_result_remedy(c, "give %s an IP address: RoCE v2 GIDs follow the netdev's addresses",
                         p->netdev[0] ? p->netdev : "the port's netdev");
    else if (p->problem[0])
        gv_result_remedy(c, "read the port's sysfs files named by hand; a malformed attribute is "
                            "the NIC driver's or the kernel's");
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
    return c;
}

/* The row of a port that is not ACTIVE: switched off, beside no GPU's traffic, or a fault. */
static gv_check_result *inactive_port(gv_active_run *run, const gv_rdma_report *r,
                                      const gv_rdma_port *p, const char *subject)
{
    gv_check_result *c;
    char far[256] = "";
    if (p->state == GV_PORT_DOWN && p->phys_state == 3) {
        c = gv_report_add(run->report, gv_id_rdma_ports, subject, GV_WARN,
                          "%s port %u: DOWN, physical state Disabled (administratively off)",
                          p->device, p->port);
        gv_result_remedy(c,
                         "if this port should carry traffic, enable it (ip link set %s "
                         "up, or the switch port)",
                         p->netdev[0] ? p->netdev : "<netdev>");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (p->state == GV_PORT_DOWN &&
               leaves_gpus_far(run, r, p->device, far, sizeof far) == 0) {
        /* No GPU's traffic leaves through it: a NIC beside none of them (storage,
         * management), or the unused port of one whose other ports serve them. */
        c = gv_report_add(run->report, gv_id_rdma_ports, subject, GV_WARN,
                          "%s port %u: %s, physical state %s: no link; every GPU keeps an "
                          "ACTIVE RDMA NIC as near as this one (NCCL uses only ACTIVE "
                          "ports): not a fault of the GPUs' fabric",
                          p->device, p->port, p->state_text,
                          p->phys_state_text[0] ? p->phys_state_text : "?");
        gv_result_remedy(c, "if this port should carry traffic (storage, a second rail), "
                            "check its cable, transceiver and switch port");
        /* Not the GPUs' fabric: whether the port is meant to carry traffic comes first, a
         * cable only then. */
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        const char *why = p->state == GV_PORT_INIT
                              ? "the link is up but no subnet manager has configured it"
                          : p->state == GV_PORT_ARMED ? "waiting for the subnet manager"
                                                      : "no link";
        c = gv_report_add(run->report, gv_id_rdma_ports, subject, GV_FAIL,
                          "%s port %u: %s, physical state %s: %s%s%s%s", p->device, p->port,
                          p->state_text, p->phys_state_text[0] ? p->phys_state_text : "?", why,
                          far[0] ? "; the nearest RDMA NIC of " : "", far,
                          far[0] ? ", whose traffic leaves through a farther NIC or none" : "");
        gv_result_remedy(c, p->state == GV_PORT_DOWN
                                ? "check the cable, the transceiver and the switch port "
                                  "(Polling: nothing answers at the other end)"
                                : "start a subnet manager (opensm) or check the fabric's SM");
        /* No link: the cable, transceiver or switch port. A link without a subnet
         * manager's configuration: the fabric's settings. */
        gv_result_action(c, p->state == GV_PORT_DOWN ? GV_ACTION_HW_INSPECT : GV_ACTION_FIX_CONFIG);
    }
    return c;
}

/* What every port's row carries: the wait for ports on their way, the rate, and the counters
 * history.links compares between runs. */
static void port_figures(gv_active_run *run, const gv_rdma_report *r, const gv_rdma_port *p,
                         gv_check_result *c)
{
    if (c && r->port_wait_s > 0) /* gv_rdma_build waited for ports on their way */
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 " (read after waiting %.1f s for ports on their way to ACTIVE)", r->port_wait_s);
    gv_result_measured(c, p->rate_gbps >= 0 ? p->rate_gbps : NAN, "Gb/s", "%s",
                       p->state_text[0] ? p->state_text : "?");
    gv_result_expected(c, "kernel", "ACTIVE, LinkUp");
    /* What history.links compares between runs: a port that went down and came back
     * between two runs is ACTIVE in both, but its link_downed grew. */
    gv_counter k[GV_ROW_COUNTERS_MAX];
    uint32_t nk = 0;
    gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "state", p->state);
    gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "phys_state", p->phys_state);
    gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "link_downed", (double)p->link_downed);
    gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "link_error_recovery",
                   (double)p->link_error_recovery);
    gv_report_attach_counters(run->report, c, k, nk);
}

static void judge_ports(gv_active_run *run, const gv_rdma_report *r)
{
    for (size_t i = 0; i < r->port_count; i++) {
        const gv_rdma_port *p = &r->ports[i];
        char subject[96];
        port_subject(p, subject, sizeof subject);
        if (p->state == GV_PORT_STATE_UNKNOWN) {
            gv_result_action(gv_report_add(run->report, gv_id_rdma_ports, subject, GV_ERROR,
                                           "%s port %u: state unreadable: %s", p->device, p->port,
                                           p->problem),
                             GV_ACTION_FIX_CONFIG);
            continue;
        }
        gv_check_result *c = p->state == GV_PORT_ACTIVE ? active_port(run, p, subject)
                                                        : inactive_port(run, r, p, subject);
        port_figures(run, r, p, c);
    }
}

static void judge_mtu(gv_active_run *run, const gv_rdma_report *r)
{
    for (size_t i = 0; i < r->port_count; i++) {
        const gv_rdma_port *p = &r->ports[i];
        char subject[96], netdev[128] = "";
        port_subject(p, subject, sizeof subject);
        if (p->netdev_mtu > 0)
            snprintf(netdev, sizeof netdev, " (netdev %s MTU %d)", p->netdev, p->netdev_mtu);
        if (p->state != GV_PORT_ACTIVE) {
            gv_report_add(run->report, gv_id_rdma_mtu, subject, GV_SKIP,
                          "%s port %u is not ACTIVE: no MTU is negotiated", p->device, p->port);
            continue;
        }
        if (p->mtu_source == GV_MTU_UNKNOWN) {
            int ib = p->link_layer == GV_LINK_LAYER_INFINIBAND;
            gv_check_result *c =
                gv_report_add(run->report, gv_id_rdma_mtu, subject, ib ? GV_SKIP : GV_ERROR,
                              ib ? "%s port %u: InfiniBand has no MTU file; ibv_query_port is "
                                   "needed and libibverbs is not usable: %s"
                                 : "%s port %u: RoCE MTU follows the netdev, which is unknown%s",
                              p->device, p->port, ib ? r->info.verbs_detail : "");
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* the netdev's, unreadable */
            continue;
        }
        gv_check_result *c;
        if (p->active_mtu < p->max_mtu) {
            c = gv_report_add(run->report, gv_id_rdma_mtu, subject, GV_WARN,
                              "%s port %u: active_mtu=%d < max %d%s", p->device, p->port,
                              p->active_mtu, p->max_mtu, netdev);
            if (p->link_layer == GV_LINK_LAYER_ETHERNET)
                gv_result_remedy(c,
                                 "raise the MTU of %s to 4200 or more (9000 on a lossless "
                                 "fabric, the same on the switch ports): ip link set %s mtu 9000",
                                 p->netdev, p->netdev);
            else
                gv_result_remedy(c, "raise the partition MTU on the subnet manager (opensm "
                                    "partitions.conf mtu=5)");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else {
            c = gv_report_add(run->report, gv_id_rdma_mtu, subject, GV_PASS,
                              "%s port %u: active_mtu=%d (max supported)%s", p->device, p->port,
                              p->active_mtu, netdev);
        }
        gv_result_measured(c, p->active_mtu, "bytes", "%d", p->active_mtu);
        gv_result_expected(c, p->mtu_source == GV_MTU_VERBS ? "ibv_query_port" : "RoCE maximum",
                           "%d", p->max_mtu);
    }
}

static void judge_tos(gv_active_run *run, const gv_rdma_report *r)
{
    const gv_rdma_setting *tc = gv_rdma_setting_find(r, "NCCL_IB_TC");
    for (size_t i = 0; i < r->port_count; i++) {
        const gv_rdma_port *p = &r->ports[i];
        char subject[96];
        port_subject(p, subject, sizeof subject);
        if (p->link_layer != GV_LINK_LAYER_ETHERNET) {
            gv_report_add(run->report, gv_id_rdma_roce_tos, subject, GV_SKIP,
                          "%s port %u is not RoCE: InfiniBand traffic classes come from the "
                          "subnet manager's service levels",
                          p->device, p->port);
            continue;
        }
        gv_check_result *c;
        if (p->roce_tos < 0) {
            c = gv_report_add(run->report, gv_id_rdma_roce_tos, subject, GV_WARN,
                              "%s port %u: RDMA-CM ToS not configured (no "
                              "/sys/kernel/config/rdma_cm/%s): RDMA-CM traffic goes out with "
                              "ToS 0, outside the lossless class",
                              p->device, p->port, p->device);
            gv_result_remedy(c,
                             "mkdir /sys/kernel/config/rdma_cm/%s && echo 104 > "
                             "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos (at boot, "
                             "from a oneshot unit such as rdma-cm-tos.service)",
                             p->device, p->device, p->port);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else if (p->roce_tos == 0) {
            c = gv_report_add(run->report, gv_id_rdma_roce_tos, subject, GV_WARN,
                              "%s port %u: RDMA-CM ToS=0 (best effort), not a lossless class",
                              p->device, p->port);
            gv_result_remedy(c,
                             "echo 104 > /sys/kernel/config/rdma_cm/%s/ports/%u/"
                             "default_roce_tos (DSCP 26, the fabric's lossless class)",
                             p->device, p->port);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else if (tc && strtol(tc->value, NULL, 0) != p->roce_tos) {
            c = gv_report_add(run->report, gv_id_rdma_roce_tos, subject, GV_WARN,
                              "%s: RDMA-CM ToS=%d (DSCP %d) but NCCL_IB_TC=%s (%s): NCCL's "
                              "traffic goes in another class than RDMA-CM's",
                              p->device, p->roce_tos, p->roce_tos >> 2, tc->value, tc->source);
            gv_result_remedy(c, "set NCCL_IB_TC=%d, or the ToS to NCCL's class", p->roce_tos);
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else {
            c = gv_report_add(run->report, gv_id_rdma_roce_tos, subject, GV_PASS,
                              "%s: RDMA-CM ToS=%d (DSCP %d)%s%s", p->device, p->roce_tos,
                              p->roce_tos >> 2, p->roce_mode[0] ? ", mode " : "", p->roce_mode);
        }
        gv_result_measured(c, p->roce_tos >= 0 ? p->roce_tos : NAN, "", "%d", p->roce_tos);
        if (tc)
            gv_result_expected(c, "NCCL_IB_TC", "%s", tc->value);
    }
}

/* Problems of the settings NCCL would run with, appended to text; the worst verdict. */
static int nccl_setting_problems(const gv_rdma_report *r, char *text, size_t cap)
{
    int verdict = GV_PASS;
    char line[400];
    const gv_rdma_setting *s;
    int roce = 0;
    for (size_t i = 0; i < r->port_count; i++)
        roce |=
            r->ports[i].state == GV_PORT_ACTIVE && r->ports[i].link_layer == GV_LINK_LAYER_ETHERNET;
    if ((s = gv_rdma_setting_find(r, "NCCL_SOCKET_IFNAME"))) {
        int any = 0;
        for (size_t i = 0; i < r->netdev_count && !any; i++)
            any = gv_nccl_list_matches(s->value, r->netdevs[i], 0);
        if (!any && r->netdev_count) {
            snprintf(line, sizeof line,
                     "NCCL_SOCKET_IFNAME=%s (%s) matches no network interface: NCCL's bootstrap "
                     "will fail",
                     s->value, s->source);
            gv_append(text, cap, "; ", line);
            verdict = GV_FAIL;
        }
    }
    if (roce && !gv_rdma_setting_find(r, "NCCL_IB_TC")) {
        gv_append(text, cap, "; ",
                  "NCCL_IB_TC not set: NCCL's RoCE traffic uses traffic class 0, outside the "
                  "lossless class");
        verdict = verdict > GV_WARN ? verdict : GV_WARN;
    }
    if ((s = gv_rdma_setting_find(r, "NCCL_IB_GID_INDEX"))) {
        long want = strtol(s->value, NULL, 10);
        for (size_t i = 0; i < r->port_count && want >= 0; i++) {
            const gv_rdma_port *p = &r->ports[i];
            if (p->state != GV_PORT_ACTIVE || p->link_layer != GV_LINK_LAYER_ETHERNET)
                continue;
            const gv_rdma_gid *found = NULL;
            for (uint32_t g = p->first_gid; g < p->first_gid + p->gid_count; g++)
                if (r->gids[g].index == (uint32_t)want)
                    found = &r->gids[g];
            if (!found || strcmp(found->type, "RoCE v2") != 0) {
                snprintf(line, sizeof line, "NCCL_IB_GID_INDEX=%s (%s): %s port %u has %s%s%s",
                         s->value, s->source, p->device, p->port,
                         found ? "a GID of type " : "no GID there",
                         found ? (found->type[0] ? found->type : "unknown") : "",
                         found ? " there, not RoCE v2" : "");
                gv_append(text, cap, "; ", line);
                verdict = verdict > GV_WARN ? verdict : GV_WARN;
                break;
            }
        }
    }
    static const char *const levels[] = {"NCCL_NET_GDR_LEVEL", "NCCL_P2P_LEVEL"};
    for (size_t i = 0; i < 2; i++) {
        int32_t level;
        if ((s = gv_rdma_setting_find(r, levels[i])) &&
            gv_path_parse_gdr_level(s->value, &level) != 0 && strcmp(s->value, "NVL") != 0 &&
            strcmp(s->value, "LOC") != 0) {
            snprintf(line, sizeof line, "%s=%s (%s) is not a level NCCL knows", s->name, s->value,
                     s->source);
            gv_append(text, cap, "; ", line);
            verdict = verdict > GV_WARN ? verdict : GV_WARN;
        }
    }
    return verdict;
}

static void judge_nccl(gv_active_run *run, const gv_rdma_report *r)
{
    const gv_rdma_info *info = &r->info;
    char settings[512] = "", problems[768] = "";
    for (size_t i = 0; i < r->setting_count; i++) {
        const gv_rdma_setting *s = &r->settings[i];
        if (!s->set)
            continue;
        char one[320];
        snprintf(one, sizeof one, "%s=%s (%s)", s->name, s->value, s->source);
        gv_append(settings, sizeof settings, ", ", one);
    }
    int ib = info->nccl_net == GV_NCCL_NET_IB;
    /* libibverbs left out of this run after it hung or crashed (run/run_worker_start.c): NCCL
     * would load it too, so what NCCL would do is not known here; rdma.devices says why. */
    const char *refused = run->ctx->library_refused[GV_LIB_IBVERBS];
    if (!ib && refused[0] && gv_rdma_has_hardware(r)) {
        gv_report_add(run->report, gv_id_rdma_nccl_env, "node", GV_SKIP,
                      "NCCL's transport not judged: this run left libibverbs out (%s; "
                      "rdma.devices judges that)",
                      refused);
        gv_report_delegate(run->report, gv_id_rdma_devices);
        return;
    }
    int verdict = ib                        ? nccl_setting_problems(r, problems, sizeof problems)
                  : gv_rdma_has_hardware(r) ? GV_FAIL
                                            : GV_SKIP;
    /* A file that may hold a setting but could not be read leaves NCCL's choice unknown; a
     * FAIL from the settings known stands. */
    char unknown[300] = "";
    if (r->nccl_problem[0]) {
        snprintf(unknown, sizeof unknown, "%s %.240s; ",
                 verdict == GV_FAIL ? "NCCL's settings partly unknown:"
                                    : "NCCL's settings unknown:",
                 r->nccl_problem);
        verdict = verdict == GV_FAIL ? GV_FAIL : GV_ERROR;
    }
    gv_check_result *c;
    if (ib)
        c = gv_report_add(run->report, gv_id_rdma_nccl_env, "node", verdict,
                          "%sNCCL would use IB over %s (%s)%s%s; settings: %s", unknown,
                          info->nccl_ports, info->nccl_reason, problems[0] ? "; " : "", problems,
                          settings[0] ? settings : "none (NCCL's defaults)");
    else
        c = gv_report_add(run->report, gv_id_rdma_nccl_env, "node", verdict,
                          "%sNCCL would fall back to sockets: %s; settings: %s", unknown,
                          info->nccl_reason, settings[0] ? settings : "none (NCCL's defaults)");
    gv_result_measured(c, NAN, "", "%s", ib ? "IB" : "Socket");
    gv_result_expected(c, "RDMA hardware", "%s", gv_rdma_has_hardware(r) ? "IB" : "Socket");
    if (verdict == GV_ERROR)
        gv_result_remedy(c, "make each file named a regular text file of KEY=VALUE lines (at most "
                            "1 MiB), or remove it");
    else if (verdict == GV_FAIL)
        gv_result_remedy(c, "%s",
                         ib ? "fix NCCL_SOCKET_IFNAME to an interface that exists (ip -br link)"
                            : "remove NCCL_IB_DISABLE / NCCL_NET=Socket, make NCCL_IB_HCA name "
                              "ACTIVE ports (ibv_devinfo), install libibverbs1");
    else if (verdict == GV_WARN)
        gv_result_remedy(c, "set NCCL_IB_TC to the fabric's lossless ToS (104) in "
                            "/etc/nccl.conf, and correct the settings named");
    gv_result_action(c, GV_ACTION_FIX_CONFIG); /* NCCL's settings and the files holding them */
}

void gv_active_rdma(gv_active_run *run)
{
    const gv_rdma_report *r = gv_active_rdma_report(run);
    if (!r) {
        gv_active_rows_action(run, gv_active_group(gv_active_rdma), "node", GV_ERROR,
                              GV_ACTION_RERUN, gv_ctx_last_error(run->ctx));
        return;
    }
    if (gv_active_selected(run, gv_id_rdma_modules))
        judge_modules(run, r);
    if (gv_active_selected(run, gv_id_rdma_devices))
        judge_devices(run, r);
    /* The checks of each port: the group's lines from rdma.ports through rdma.roce_tos. */
    const gv_active_members per_port = gv_active_span(gv_id_rdma_ports, gv_id_rdma_roce_tos);
    if (r->port_count == 0 && gv_rdma_has_hardware(r)) {
        gv_active_rows_action(run, per_port, "node", GV_FAIL, GV_ACTION_FIX_CONFIG,
                              "the RDMA hardware has no port to check (no RDMA device is bound)");
    } else if (r->port_count == 0) {
        gv_active_rows(run, per_port, "node", GV_SKIP, "no RDMA port on this node");
    } else {
        if (gv_active_selected(run, gv_id_rdma_ports))
            judge_ports(run, r);
        if (gv_active_selected(run, gv_id_rdma_port_errors))
            gv_rdma_judge_port_errors(run, r);
        if (gv_active_selected(run, gv_id_rdma_mtu))
            judge_mtu(run, r);
        if (gv_active_selected(run, gv_id_rdma_roce_tos))
            judge_tos(run, r);
    }
    if (gv_active_selected(run, gv_id_rdma_nccl_env))
        judge_nccl(run, r);
}
