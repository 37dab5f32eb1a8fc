/* SPDX-License-Identifier: Apache-2.0 */
/* gv_topology: GPUs and RDMA NICs from hwloc (live or XML), merged with NVML and sysfs facts
 * when live, every pair classified, and the result copied out so no hwloc state outlives the
 * call. hwloc is used through PCI bus ids only: its cuda/nvml/opencl components stay off. */
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "facts/facts.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "worker/worker.h"
#include "sys/netvsc.h"
#include "sys/pci.h"
#include "sys/sysroot.h"
#include "topo/paths.h"
#include "topo/topology.h"

/* A device while the topology is built: the public record plus its hwloc object. */
typedef struct pending {
    gv_topo_device dev;
    hwloc_obj_t obj; /* NULL: hwloc does not know it */
    gv_pci_addr addr;
    const gv_gpu_record *facts; /* live GPUs: NVML and sysfs facts, else NULL */
} pending;

typedef struct builder {
    pending *items;
    size_t count, cap;
} builder;

static pending *add(builder *b, int kind)
{
    if (b->count == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        pending *grown = realloc(b->items, cap * sizeof *grown);
        if (!grown)
            return NULL;
        b->items = grown;
        b->cap = cap;
    }
    pending *p = &b->items[b->count++];
    memset(p, 0, sizeof *p);
    gv_topo_device *d = &p->dev;
    d->struct_size = sizeof *d;
    d->kind = kind;
    d->nvml_index = d->cuda_index = -1;
    d->numa_node = -1;
    d->link_speed_current_gts = d->link_speed_max_gts = d->link_speed_achievable_gts = -1;
    d->link_width_current = d->link_width_max = d->link_width_achievable = -1;
    d->nearest_nic = d->nearest_nic_count = d->nearest_path = d->gdr_capable = -1;
    return p;
}

static void from_pci_object(pending *p, hwloc_obj_t pci)
{
    const struct hwloc_pcidev_attr_s *a = &pci->attr->pcidev;
    p->obj = pci;
    p->dev.in_hwloc = 1;
    p->addr = (gv_pci_addr){a->domain, a->bus, a->dev, a->func};
    gv_pci_format_addr(&p->addr, p->dev.pci_bus_id, sizeof p->dev.pci_bus_id);
    p->dev.pci_vendor_id = a->vendor_id;
    p->dev.pci_device_id = a->device_id;
    p->dev.pci_class = a->class_id;
    hwloc_obj_t local = gv_path_locality(pci);
    if (local && local->cpuset)
        hwloc_bitmap_list_snprintf(p->dev.cpus, sizeof p->dev.cpus, local->cpuset);
    if (local && local->nodeset && !hwloc_bitmap_iszero(local->nodeset))
        hwloc_bitmap_list_snprintf(p->dev.numa_affinity, sizeof p->dev.numa_affinity,
                                   local->nodeset);
    p->dev.numa_node = gv_path_numa_node(pci);
}

static int is_gpu(hwloc_obj_t pci)
{
    return pci->attr->pcidev.vendor_id == GV_PCI_VENDOR_NVIDIA &&
           (pci->attr->pcidev.class_id >> 8) == 0x03;
}

static gv_status collect_gpus(hwloc_topology_t t, builder *b)
{
    for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o)) {
        if (!is_gpu(o))
            continue;
        pending *p = add(b, GV_TOPO_GPU);
        if (!p)
            return GV_ERR_NO_MEMORY;
        from_pci_object(p, o);
        const char *model = hwloc_obj_get_info_by_name(o, "PCIDevice");
        snprintf(p->dev.name, sizeof p->dev.name, "%s", model ? model : "NVIDIA GPU");
    }
    return GV_OK;
}

/* RDMA NICs are OpenFabrics OS devices ("mlx5_0") of a PCI function, not a PCI class. Live
 * (sysroot given), a VF carrying the VM's frontend Ethernet is no fabric NIC: left out. */
static gv_status collect_nics(hwloc_topology_t t, builder *b, const char *sysroot)
{
    for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o; o = hwloc_get_next_osdev(t, o)) {
        if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || !o->parent ||
            o->parent->type != HWLOC_OBJ_PCI_DEVICE)
            continue;
        pending *p = add(b, GV_TOPO_NIC);
        if (!p)
            return GV_ERR_NO_MEMORY;
        from_pci_object(p, o->parent);
        char bdf[32], why[64];
        gv_pci_format_addr(&p->addr, bdf, sizeof bdf);
        if (sysroot && gv_netvsc_vf(sysroot, bdf, why, sizeof why)) {
            b->count--; /* the VM's frontend Ethernet (sys/netvsc.h) */
            continue;
        }
        snprintf(p->dev.name, sizeof p->dev.name, "%s", o->name ? o->name : "?");
        for (hwloc_obj_t sib = o->parent->io_first_child; sib; sib = sib->next_sibling)
            if (sib->type == HWLOC_OBJ_OS_DEVICE &&
                sib->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && sib->name)
                gv_append(p->dev.netdev, sizeof p->dev.netdev, ",", sib->name);
    }
    return GV_OK;
}

/* The facts of one live GPU onto its device. */
static void apply_gpu_facts(pending *p, const gv_gpu_record *r)
{
    p->facts = r;
    p->dev.nvml_index = r->gpu.nvml_index;
    if (r->gpu.name[0])
        snprintf(p->dev.name, sizeof p->dev.name, "%s", r->gpu.name);
    else if (!p->dev.name[0])
        snprintf(p->dev.name, sizeof p->dev.name, "NVIDIA GPU");
    if (r->in_pci) /* sysfs is the authority on NUMA: -1 there is unknown, never 0 */
        p->dev.numa_node = r->gpu.numa_node;
    p->dev.link_speed_current_gts = r->gpu.link_speed_current_gts;
    p->dev.link_speed_max_gts = r->gpu.link_speed_max_gts;
    p->dev.link_width_current = r->gpu.link_width_current_sysfs;
    p->dev.link_width_max = r->gpu.link_width_max_sysfs;
}

/* Live: NVML's names and indices, sysfs's NUMA node and links. A GPU the facts know but the
 * vendor test missed (a capture without vendor files) is looked up in hwloc by bus id; one
 * hwloc does not know at all (a 32-bit PCI domain) is added with unknown paths. */
static gv_status merge_facts(hwloc_topology_t h, const gv_facts *f, builder *b)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *r = &f->gpus[i];
        gv_pci_addr addr;
        if (gv_pci_parse_addr(r->gpu.pci_bus_id, &addr) != 0)
            continue;
        pending *p = NULL;
        for (size_t k = 0; k < b->count && !p; k++)
            if (b->items[k].dev.kind == GV_TOPO_GPU &&
                gv_pci_addr_compare(&b->items[k].addr, &addr) == 0)
                p = &b->items[k];
        if (!p) {
            if (!(p = add(b, GV_TOPO_GPU)))
                return GV_ERR_NO_MEMORY;
            hwloc_obj_t known = addr.domain <= 0xffff
                                    ? hwloc_get_pcidev_by_busid(h, addr.domain, addr.bus,
                                                                addr.device, addr.function)
                                    : NULL;
            if (known) {
                from_pci_object(p, known);
                apply_gpu_facts(p, r);
                continue;
            }
            p->addr = addr;
            gv_pci_format_addr(&addr, p->dev.pci_bus_id, sizeof p->dev.pci_bus_id);
            p->dev.pci_vendor_id = r->gpu.pci_vendor_id;
            p->dev.pci_device_id = r->gpu.pci_device_id;
            p->dev.pci_class = r->gpu.pci_class >= 0 ? r->gpu.pci_class >> 8 : -1;
            snprintf(p->dev.cpus, sizeof p->dev.cpus, "%s", r->gpu.local_cpus);
            if (r->gpu.numa_node >= 0)
                snprintf(p->dev.numa_affinity, sizeof p->dev.numa_affinity, "%d",
                         (int)r->gpu.numa_node);
        }
        apply_gpu_facts(p, r);
    }
    return GV_OK;
}

/* Live NICs: sysfs NUMA node and links. Every device: the achievable link maximum. */
static void read_links(const char *sysroot, builder *b, int live)
{
    for (size_t i = 0; i < b->count; i++) {
        pending *p = &b->items[i];
        gv_pci_function fn;
        gv_errbuf err;
        if (!live || gv_pci_read_function(sysroot, &p->addr, &fn, &err) != GV_OK)
            continue;
        if (p->dev.kind == GV_TOPO_NIC) {
            p->dev.numa_node = fn.numa_node;
            p->dev.link_speed_current_gts = fn.link_speed_current;
            p->dev.link_speed_max_gts = fn.link_speed_max;
            p->dev.link_width_current = fn.link_width_current;
            p->dev.link_width_max = fn.link_width_max;
        }
        p->dev.link_speed_achievable_gts =
            gv_min_known(p->dev.link_speed_max_gts, fn.upstream_speed_max);
        p->dev.link_width_achievable =
            (int32_t)gv_min_known(p->dev.link_width_max, fn.upstream_width_max);
    }
}

/* Natural order of names: mlx5_2 before mlx5_10. */
static int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            char *ea, *eb;
            unsigned long na = strtoul(a, &ea, 10), nb = strtoul(b, &eb, 10);
            if (na != nb)
                return na < nb ? -1 : 1;
            a = ea;
            b = eb;
        } else if (*a != *b) {
            return (unsigned char)*a - (unsigned char)*b;
        } else {
            a++;
            b++;
        }
    }
    return (unsigned char)*a - (unsigned char)*b;
}

/* GPUs in PCI order, then NICs by name. */
static int device_order(const void *x, const void *y)
{
    const pending *a = x, *b = y;
    if (a->dev.kind != b->dev.kind)
        return a->dev.kind - b->dev.kind;
    if (a->dev.kind == GV_TOPO_NIC)
        return natural_compare(a->dev.name, b->dev.name);
    return gv_pci_addr_compare(&a->addr, &b->addr);
}

static void classify(gv_topo *t, const builder *b)
{
    size_t n = t->count;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            gv_topo_link *l = &t->links[i * n + j];
            const pending *a = &b->items[i], *c = &b->items[j];
            l->struct_size = sizeof *l;
            l->pcie_path = i == j             ? GV_PATH_SELF
                           : a->obj && c->obj ? gv_path_between(a->obj, c->obj)
                                              : GV_PATH_UNKNOWN;
            l->path = l->pcie_path;
            if (i != j && a->dev.kind == GV_TOPO_GPU && c->dev.kind == GV_TOPO_GPU)
                l->nvlinks = gv_nvlinks_between(a->facts, c->facts);
            if (l->nvlinks > 0)
                l->path = GV_PATH_NVLINK;
            if (l->path == GV_PATH_NVLINK)
                snprintf(l->label, sizeof l->label, "NV%d", (int)l->nvlinks);
            else
                snprintf(l->label, sizeof l->label, "%s", gv_path_name(l->path));
        }
}

static void nearest_nics(gv_topo *t)
{
    size_t n = t->count;
    for (size_t i = 0; i < n; i++) {
        gv_topo_device *g = &t->devices[i];
        if (g->kind != GV_TOPO_GPU || t->info.nic_count == 0)
            continue;
        g->nearest_path = GV_PATH_UNKNOWN;
        g->nearest_nic_count = 0;
        for (size_t j = 0; j < n; j++) {
            int32_t path = t->links[i * n + j].pcie_path;
            if (t->devices[j].kind != GV_TOPO_NIC || path == GV_PATH_UNKNOWN)
                continue;
            if (g->nearest_nic < 0 || path < g->nearest_path) {
                g->nearest_nic = (int32_t)j;
                g->nearest_path = path;
                g->nearest_nic_count = 1;
            } else if (path == g->nearest_path) {
                g->nearest_nic_count++;
            }
        }
        g->gdr_capable = gv_path_within(g->nearest_path, t->info.gdr_level);
    }
}

/* An XML file that cannot be read is the caller's error, named before hwloc sees it. */
static gv_status check_readable(gv_ctx *ctx, const char *path)
{
    int fd = gv_open_regular(path);
    if (fd < 0)
        return gv_fail(ctx, GV_ERR_IO, "topology XML %s: %s", path,
                       errno == EINVAL ? "not a regular file" : strerror(errno));
    close(fd);
    return GV_OK;
}

static gv_status load_hwloc(gv_ctx *ctx, const char *xml, hwloc_topology_t *out)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "hwloc_topology_init failed");
    /* The whole machine even inside a job's cgroup, as nvidia-smi reports affinity. */
    hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    /* Devices by PCI bus id only: no vendor components. PCI comes from hwloc's Linux sysfs
     * reader, not the libpciaccess plugin ("pci"), which leaks and ignores HWLOC_FSROOT. */
    static const char *const off[] = {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl", "pci"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, off[i]);
    if (xml && hwloc_topology_set_xml(t, xml) != 0) {
        hwloc_topology_destroy(t);
        return gv_fail(ctx, GV_ERR_PARSE, "hwloc cannot use %s as a topology XML", xml);
    }
    if (hwloc_topology_load(t) != 0) {
        int e = errno;
        hwloc_topology_destroy(t);
        return gv_fail(ctx, xml ? GV_ERR_PARSE : GV_ERR_INTERNAL,
                       "hwloc could not load the topology%s%s: %s", xml ? " from " : "",
                       xml ? xml : "", e ? strerror(e) : "malformed input");
    }
    *out = t;
    return GV_OK;
}

static void summarise(gv_topo *t, hwloc_topology_t h, const char *xml, int32_t gdr_level)
{
    gv_topo_info *i = &t->info;
    i->struct_size = sizeof *i;
    i->numa_nodes = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    i->packages = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
    i->pus = (uint32_t)hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    i->live = xml == NULL;
    i->gdr_level = gdr_level;
    snprintf(i->source, sizeof i->source, "%s", xml ? xml : "live");
    for (size_t k = 0; k < t->count; k++) {
        gv_topo_device *d = &t->devices[k];
        snprintf(d->label, sizeof d->label, "%s%u", d->kind == GV_TOPO_GPU ? "GPU" : "NIC",
                 d->kind == GV_TOPO_GPU ? i->gpu_count : i->nic_count);
        if (d->kind == GV_TOPO_GPU)
            i->gpu_count++;
        else
            i->nic_count++;
    }
}

gv_status gv_topo_gdr_level(gv_ctx *ctx, const char *given, int32_t *level)
{
    if (given) {
        if (gv_path_parse_gdr_level(given, level) != 0)
            return gv_fail(ctx, GV_ERR_INVALID_ARG,
                           "gdr_level '%s': expected LOC, PIX, PXB, PHB, SYS or 0-5", given);
        return GV_OK;
    }
    /* NCCL ignores a value it cannot read and keeps its default: so do we. */
    const char *env = getenv("NCCL_NET_GDR_LEVEL");
    if (!env || gv_path_parse_gdr_level(env, level) != 0)
        *level = GV_PATH_PXB;
    return GV_OK;
}

static gv_status build(gv_ctx *ctx, const char *xml, int32_t gdr_level, hwloc_topology_t h,
                       const gv_facts *facts, gv_topo **out)
{
    gv_status s;
    builder b = {0};
    gv_topo *t = calloc(1, sizeof *t);
    s = t ? collect_gpus(h, &b) : GV_ERR_NO_MEMORY;
    if (s == GV_OK)
        s = collect_nics(h, &b, facts ? ctx->sysroot : NULL);
    if (s == GV_OK && facts)
        s = merge_facts(h, facts, &b);
    if (s == GV_OK) {
        read_links(ctx->sysroot, &b, facts != NULL);
        if (b.count)
            qsort(b.items, b.count, sizeof *b.items, device_order);
        t->count = b.count;
        t->devices = calloc(b.count ? b.count : 1, sizeof *t->devices);
        t->links = calloc(b.count ? b.count * b.count : 1, sizeof *t->links);
        if (!t->devices || !t->links)
            s = GV_ERR_NO_MEMORY;
    }
    if (s != GV_OK) {
        free(b.items);
        gv_topo_free(t);
        return gv_fail(ctx, s, "building the topology: out of memory");
    }
    for (size_t i = 0; i < b.count; i++)
        t->devices[i] = b.items[i].dev;
    summarise(t, h, xml, gdr_level);
    classify(t, &b);
    nearest_nics(t);
    free(b.items);
    *out = t;
    return GV_OK;
}

gv_status gv_topo_build(gv_ctx *ctx, const char *xml, int32_t gdr_level, const gv_facts *facts,
                        gv_topo **out)
{
    gv_status s = xml ? check_readable(ctx, xml) : GV_OK;
    /* hwloc crashes on some malformed files: a worker reads it first where one is found. */
    if (s == GV_OK && xml && !ctx->in_worker)
        s = gv_worker_probe_xml(ctx, xml);
    hwloc_topology_t h = NULL;
    gv_progress_stage(ctx, "hwloc: reading %s", xml ? xml : "this machine");
    if (s == GV_OK)
        s = load_hwloc(ctx, xml, &h);
    if (s != GV_OK)
        return s;
    /* Live: the GPUs' NVML identity and sysfs facts (no CUDA: cuInit costs 0.2 s), gathered
     * here unless the caller (a gv_run) has them already. */
    gv_facts *own = NULL;
    if (!xml && !facts) {
        own = calloc(1, sizeof *own);
        gv_progress_stage(ctx, "NVML and sysfs: the GPUs' identities");
        if (!own || gv_facts_collect(ctx, own, 0) != GV_OK) {
            free(own);
            hwloc_topology_destroy(h);
            return gv_fail(ctx, GV_ERR_NO_MEMORY, "gathering facts: out of memory");
        }
        facts = own;
    }
    s = build(ctx, xml, gdr_level, h, xml ? NULL : facts, out);
    if (own)
        gv_facts_free(own);
    free(own);
    hwloc_topology_destroy(h);
    return s;
}

void gv_topo_free(gv_topo *t)
{
    if (!t)
        return;
    free(t->devices);
    free(t->links);
    free(t);
}

gv_status gv_topo_summary(const gv_topo *t, gv_topo_info *out)
{
    if (!t || !out)
        return GV_ERR_INVALID_ARG;
    return gv_copy_out(out, &t->info, sizeof t->info, GV_TOPO_INFO_SIZE_V1);
}

uint32_t gv_topo_device_count(const gv_topo *t)
{
    return t ? (uint32_t)t->count : 0;
}

gv_status gv_topo_device_at(const gv_topo *t, uint32_t index, gv_topo_device *out)
{
    if (!t || !out)
        return GV_ERR_INVALID_ARG;
    if (index >= t->count)
        return GV_ERR_NOT_FOUND;
    return gv_copy_out(out, &t->devices[index], sizeof t->devices[0], GV_TOPO_DEVICE_SIZE_V1);
}

gv_status gv_topo_link_at(const gv_topo *t, uint32_t a, uint32_t b, gv_topo_link *out)
{
    if (!t || !out)
        return GV_ERR_INVALID_ARG;
    if (a >= t->count || b >= t->count)
        return GV_ERR_NOT_FOUND;
    return gv_copy_out(out, &t->links[(size_t)a * t->count + b], sizeof t->links[0],
                       GV_TOPO_LINK_SIZE_V1);
}
