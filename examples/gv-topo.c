/* SPDX-License-Identifier: Apache-2.0 */
/* gv-topo: the GPU/NIC matrix like `nvidia-smi topo -m` (path classes or NV#, CPU and NUMA
 * affinity, legends), then each device's link and nearest NIC. --json for programs, --xml FILE
 * for a topology saved elsewhere with `lstopo --of xml`. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char *const tool = "gv-topo";

static void usage(void)
{
    printf("usage: gv-topo [--xml FILE | --sysroot DIR] [--gdr-level LEVEL] [--json] [--version]\n"
           "  --xml FILE         a topology saved with `lstopo --of xml` (another node's)\n"
           "  --sysroot DIR      a captured node tree (/sys, /proc) rather than this machine\n"
           "  --gdr-level LEVEL  NCCL_NET_GDR_LEVEL: LOC, PIX, PXB, PHB, SYS or NCCL's 0-5\n"
           "                     (default $NCCL_NET_GDR_LEVEL, else PXB)\n"
           "  --json             the devices, their links and paths as one JSON object\n"
           "Exit status: 0 printed, 2 usage error or no topology.\n");
}

/* NCCL_NET_GDR_LEVEL's names (any case) or its legacy numbers, as the library takes them. */
static int gdr_level_arg(const char *text)
{
    static const char *const levels[] = {"LOC", "PIX", "PXB", "PHB", "SYS", "0",
                                         "1",   "2",   "3",   "4",   "5"};
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
        if (strcasecmp(text, levels[k]) == 0)
            return 0;
    return gv_cli_choice(tool, "--gdr-level", text, levels, sizeof levels / sizeof *levels);
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void print_json(const gv_topo *t, const gv_topo_info *info)
{
    uint32_t n = gv_topo_device_count(t);
    printf("{\"source\": ");
    json_string(info->source);
    printf(", \"numa_nodes\": %u, \"packages\": %u, \"pus\": %u, \"gdr_level\": \"%s\", "
           "\"devices\": [",
           info->numa_nodes, info->packages, info->pus, gv_path_name(info->gdr_level));
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device d = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(t, i, &d);
        printf("%s\n  {\"label\": \"%s\", \"kind\": \"%s\", \"name\": ", i ? "," : "", d.label,
               d.kind == GV_TOPO_GPU ? "gpu" : "nic");
        json_string(d.name);
        printf(", \"netdev\": ");
        json_string(d.netdev);
        printf(", \"pci_bus_id\": \"%s\", \"nvml_index\": %d, \"in_hwloc\": %s, \"numa_node\": ",
               d.pci_bus_id, (int)d.nvml_index, d.in_hwloc ? "true" : "false");
        if (d.numa_node < 0)
            printf("null");
        else
            printf("%d", (int)d.numa_node);
        printf(", \"numa_affinity\": \"%s\", \"cpus\": \"%s\", \"link\": {\"speed_gts\": %.1f, "
               "\"width\": %d, "
               "\"max_speed_gts\": %.1f, \"max_width\": %d, \"achievable_speed_gts\": %.1f, "
               "\"achievable_width\": %d}",
               d.numa_affinity, d.cpus, d.link_speed_current_gts, (int)d.link_width_current,
               d.link_speed_max_gts, (int)d.link_width_max, d.link_speed_achievable_gts,
               (int)d.link_width_achievable);
        if (d.kind == GV_TOPO_GPU && d.nearest_nic >= 0)
            printf(", \"nearest_nic\": %d, \"nearest_nic_count\": %d, \"nearest_path\": \"%s\", "
                   "\"gdr_capable\": %s",
                   (int)d.nearest_nic, (int)d.nearest_nic_count, gv_path_name(d.nearest_path),
                   d.gdr_capable ? "true" : "false");
        printf(", \"paths\": {");
        for (uint32_t j = 0; j < n; j++) {
            gv_topo_link l = GV_TOPO_LINK_INIT;
            gv_topo_device other = GV_TOPO_DEVICE_INIT;
            gv_topo_link_at(t, i, j, &l);
            gv_topo_device_at(t, j, &other);
            printf("%s\"%s\": \"%s\"", j ? ", " : "", other.label, l.label);
        }
        printf("}}");
    }
    printf("\n]}\n");
}

/* "32.0 GT/s x16", or "unknown" (an XML topology has no link state). */
static const char *link_text(double gts, int width, char *buf, size_t cap)
{
    if (gts < 0 && width < 0)
        return "unknown";
    snprintf(buf, cap, "%.1f GT/s x%d", gts, width);
    return buf;
}

static void print_matrix(const gv_topo *t)
{
    uint32_t n = gv_topo_device_count(t);
    gv_topo_device d = GV_TOPO_DEVICE_INIT, other = GV_TOPO_DEVICE_INIT;
    for (uint32_t j = 0; j < n; j++) {
        gv_topo_device_at(t, j, &d);
        printf("\t%s", d.label);
    }
    printf("\tCPU Affinity\tNUMA Affinity\n");
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device_at(t, i, &d);
        printf("%s", d.label);
        for (uint32_t j = 0; j < n; j++) {
            gv_topo_link l = GV_TOPO_LINK_INIT;
            gv_topo_link_at(t, i, j, &l);
            printf("\t%s", i == j ? " X " : l.label);
        }
        if (d.kind == GV_TOPO_GPU)
            printf("\t%s\t%s", d.cpus[0] ? d.cpus : "N/A",
                   d.numa_affinity[0] ? d.numa_affinity : "N/A");
        printf("\n");
    }
    printf("\nLegend:\n\n"
           "  X    = Self\n"
           "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA "
           "nodes (e.g., QPI/UPI)\n"
           "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
           "Bridges within a NUMA node\n"
           "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the "
           "CPU)\n"
           "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe "
           "Host Bridge)\n"
           "  PIX  = Connection traversing at most a single PCIe bridge\n"
           "  NV#  = Connection traversing a bonded set of # NVLinks\n"
           "  UNKNOWN = hwloc does not know this device (filtered out, or a 32-bit PCI domain)\n");
    int nics = 0;
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device_at(t, i, &d);
        if (d.kind != GV_TOPO_NIC)
            continue;
        printf("%s  %s: %s\n", nics++ ? "" : "\nNIC Legend:\n\n", d.label, d.name);
    }
    printf("\nDevices:\n\n");
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device_at(t, i, &d);
        char now[32], max[32], best[32];
        char numa[16] = "unknown";
        if (d.numa_node >= 0)
            snprintf(numa, sizeof numa, "%d", (int)d.numa_node);
        printf("  %s %s %s%s%s, NUMA node %s, PCIe %s (max %s, achievable %s)", d.label,
               d.pci_bus_id, d.name, d.netdev[0] ? " " : "", d.netdev, numa,
               link_text(d.link_speed_current_gts, d.link_width_current, now, sizeof now),
               link_text(d.link_speed_max_gts, d.link_width_max, max, sizeof max),
               link_text(d.link_speed_achievable_gts, d.link_width_achievable, best, sizeof best));
        if (d.kind == GV_TOPO_GPU && d.nearest_nic >= 0) {
            gv_topo_device_at(t, (uint32_t)d.nearest_nic, &other);
            printf(", nearest NIC %s (%s, %s%s)", other.label, other.name,
                   gv_path_name(d.nearest_path), d.gdr_capable ? ", GPUDirect RDMA" : "");
        }
        printf("%s\n", d.in_hwloc ? "" : " [not in hwloc]");
    }
}

int main(int argc, char **argv)
{
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--version")) {
            gv_cli_version(tool);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (strcmp(a, "--xml") && strcmp(a, "--gdr-level") && strcmp(a, "--sysroot")) {
            return gv_cli_unknown(tool, a);
        } else if (!(v = gv_cli_value(tool, argc, argv, &i))) {
            return GV_CLI_USAGE;
        } else if (!strcmp(a, "--xml")) {
            o.xml_path = v;
        } else if (!strcmp(a, "--sysroot")) {
            co.sysroot = v;
        } else if (gdr_level_arg(v) < 0) {
            return GV_CLI_USAGE;
        } else {
            o.gdr_level = v;
        }
    }
    /* The XML file is the whole topology: a sysroot would be read for nothing. */
    if (o.xml_path && co.sysroot) {
        fprintf(stderr, "%s: --xml and --sysroot are two sources of the topology: give one\n",
                tool);
        return GV_CLI_USAGE;
    }
    gv_ctx *ctx = NULL;
    gv_status s = gv_ctx_create(&co, &ctx);
    if (s != GV_OK) {
        fprintf(stderr, "gv-topo: %s\n", gv_cli_reason(NULL, s));
        return 2;
    }
    gv_topo *t = NULL;
    if ((s = gv_topology(ctx, &o, &t)) != GV_OK) {
        fprintf(stderr, "gv-topo: %s\n", gv_ctx_last_error(ctx));
        gv_ctx_destroy(ctx);
        return 2;
    }
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    if (json)
        print_json(t, &info);
    else
        print_matrix(t);
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
    return 0;
}
