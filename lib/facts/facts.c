/* SPDX-License-Identifier: Apache-2.0 */
/* Gathering the facts and merging each source's GPUs into one inventory keyed by PCI address. */
#include "facts/facts_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"

static void unknown_gpu(gv_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->struct_size = sizeof *g;
    int32_t *ints[] = {&g->nvml_index,
                       &g->cuda_index,
                       &g->pci_vendor_id,
                       &g->pci_device_id,
                       &g->pci_class,
                       &g->numa_node,
                       &g->cc_major,
                       &g->cc_minor,
                       &g->sm_count,
                       &g->max_sm_clock_mhz,
                       &g->persistence_mode,
                       &g->ecc_current,
                       &g->ecc_pending,
                       &g->mig_current,
                       &g->mig_pending,
                       &g->compute_mode,
                       &g->power_limit_mw,
                       &g->temperature_c,
                       &g->pcie_gen_current,
                       &g->pcie_gen_max,
                       &g->pcie_width_current,
                       &g->pcie_width_max,
                       &g->link_width_current_sysfs,
                       &g->link_width_max_sysfs};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        *ints[i] = -1;
    g->memory_total = g->memory_used = g->memory_free = -1;
    g->link_speed_current_gts = g->link_speed_max_gts = -1;
}

gv_gpu_record *gv_facts_gpu_add(gv_facts *f)
{
    gv_gpu_record *grown = realloc(f->gpus, (f->gpu_count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    f->gpus = grown;
    gv_gpu_record *r = &f->gpus[f->gpu_count++];
    memset(r, 0, sizeof *r);
    unknown_gpu(&r->gpu);
    r->upstream_speed_max = -1;
    r->upstream_width_max = -1;
    r->utilization = -1;
    r->dmabuf = -1;
    r->minor = -1;
    gv_health_init(&r->health);
    return r;
}

gv_gpu_record *gv_facts_gpu_at(gv_facts *f, const gv_pci_addr *addr)
{
    char bdf[32];
    gv_pci_format_addr(addr, bdf, sizeof bdf);
    for (size_t i = 0; i < f->gpu_count; i++)
        if (strcmp(f->gpus[i].gpu.pci_bus_id, bdf) == 0)
            return &f->gpus[i];
    gv_gpu_record *r = gv_facts_gpu_add(f);
    if (r)
        memcpy(r->gpu.pci_bus_id, bdf, strlen(bdf) + 1);
    return r;
}

gv_gpu_record *gv_facts_gpu_find(gv_facts *f, const gv_pci_addr *addr)
{
    char bdf[32];
    gv_pci_format_addr(addr, bdf, sizeof bdf);
    for (size_t i = 0; i < f->gpu_count; i++)
        if (strcmp(f->gpus[i].gpu.pci_bus_id, bdf) == 0)
            return &f->gpus[i];
    return NULL;
}

gv_gpu_record *gv_facts_gpu_join(gv_facts *f, const gv_pci_addr *addr,
                                 int (*taken)(const gv_gpu_record *))
{
    gv_gpu_record *r = gv_facts_gpu_find(f, addr), *only = NULL;
    if (r)
        return r;
    size_t candidates = 0;
    for (size_t i = 0; i < f->gpu_count; i++) {
        gv_pci_addr a;
        r = &f->gpus[i];
        if (!r->in_pci || taken(r) || gv_pci_parse_addr(r->gpu.pci_bus_id, &a) != 0)
            continue;
        if (a.bus == addr->bus && a.device == addr->device && a.function == addr->function) {
            only = r;
            candidates++;
        }
    }
    return candidates == 1 ? only : gv_facts_gpu_at(f, addr);
}

/* GPUs with an address in PCI order, then any without (lost before NVML told its address). */
static int by_bus_id(const void *a, const void *b)
{
    const gv_gpu *x = &((const gv_gpu_record *)a)->gpu, *y = &((const gv_gpu_record *)b)->gpu;
    gv_pci_addr ax, ay;
    int hx = gv_pci_parse_addr(x->pci_bus_id, &ax) == 0;
    int hy = gv_pci_parse_addr(y->pci_bus_id, &ay) == 0;
    if (hx != hy)
        return hx ? -1 : 1;
    if (!hx)
        return x->nvml_index - y->nvml_index;
    return gv_pci_addr_compare(&ax, &ay);
}

gv_status gv_facts_collect(gv_ctx *ctx, gv_facts *f, unsigned optional)
{
    double t0 = gv_now_s();
    memset(f, 0, sizeof *f);
    memcpy(f->sysroot, ctx->sysroot, strlen(ctx->sysroot) + 1);
    f->nvml_init = f->cuda_init = -1;
    f->nvml_cuda_version = f->cuda_driver_version = -1;
    f->pci_count = f->nvml_count = f->cuda_count = -1;
    f->nvswitch_count = f->nvswitch_device = -1;
    f->live = ctx->live;
    f->optional = optional;
    /* Said before the first read: /proc/driver/nvidia's files are the driver's, and block where
     * it is wedged; a worker that said nothing at all never got here (a wrong program). */
    gv_progress_begin(ctx, "driver.nvml", "node");
    gv_progress_stage(ctx, "reading the driver's files (/proc/driver/nvidia, sysfs)");
    gv_facts_files(f);
    /* The node named by the caller (a pod's spec.nodeName): the host name seen from inside a
     * container is the pod's. */
    if (ctx->node_name[0])
        snprintf(f->hostname, sizeof f->hostname, "%s", ctx->node_name);
    gv_facts_nvml(ctx, f);
    if (optional & GV_FACTS_CUDA) {
        gv_facts_cuda(ctx, f);
    } else {
        f->cuda_lib.state = GV_LIBSTATE_NOT_QUERIED;
        snprintf(f->cuda_lib.detail, sizeof f->cuda_lib.detail,
                 "CUDA not probed: driver.cuda "
                 "not selected");
    }
    if (f->gpu_count)
        qsort(f->gpus, f->gpu_count, sizeof *f->gpus, by_bus_id);
    for (size_t i = 0; i < f->gpu_count; i++)
        f->gpus[i].gpu.index = (uint32_t)i;
    gv_facts_set_apart(f);
    f->fm_found = -1;
    if (optional & GV_FACTS_HEALTH)
        f->fm_found = gv_find_process(f->sysroot, GV_FABRIC_MANAGER_COMM, &f->fm, &f->fm_err);
    f->kmsg_status = GV_ERR_UNSUPPORTED;
    if (optional & GV_FACTS_KERNEL_LOG)
        f->kmsg_status =
            gv_kmsg_xids(f->sysroot, &f->kmsg_events, &f->kmsg_count, &f->kmsg_span, &f->kmsg_err);
    f->p2pdma_status = GV_ERR_UNSUPPORTED;
    if (optional & GV_FACTS_KERNEL_CONFIG)
        f->p2pdma_status =
            gv_kconfig_lookup(f->sysroot, f->kernel, "CONFIG_PCI_P2PDMA", &f->p2pdma,
                              f->p2pdma_tried, sizeof f->p2pdma_tried, &f->p2pdma_err);
    f->duration_s = gv_now_s() - t0;
    return GV_OK;
}

void gv_facts_free(gv_facts *f)
{
    free(f->gpus);
    free(f->others);
    free(f->kmsg_events);
    gv_xid_watch_free(&f->watch);
    f->kmsg_events = NULL;
    f->kmsg_count = 0;
    f->gpus = f->others = NULL;
    f->gpu_count = f->other_count = 0;
}

int gv_facts_has_gpus(const gv_facts *f)
{
    return f->pci_count > 0 || f->gpu_count > 0 || f->nvml_count > 0;
}

void gv_facts_driver_info(const gv_facts *f, gv_driver_info *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    d->module_loaded = f->nvidia_loaded;
    d->module_kind = f->module.kind;
    d->nouveau_loaded = f->nouveau_loaded;
    memcpy(d->module_version, f->module.version, sizeof d->module_version);
    memcpy(d->kernel_release, f->kernel, sizeof d->kernel_release);
    memcpy(d->os_name, f->os.pretty_name, sizeof d->os_name);
    d->nvml_state = f->nvml_lib.state;
    d->cuda_state = f->cuda_lib.state;
    memcpy(d->driver_version, f->driver_version, sizeof d->driver_version);
    memcpy(d->nvml_version, f->nvml_version, sizeof d->nvml_version);
    d->cuda_driver_version = f->cuda_driver_version;
    d->nvml_cuda_version = f->nvml_cuda_version;
    d->cuda_init_result = f->cuda_init;
    d->nvml_init_result = f->nvml_init;
    d->gpu_count_pci = f->pci_count;
    d->gpu_count_nvml = f->nvml_count;
    d->gpu_count_cuda = f->cuda_count;
    d->gpu_count = (int32_t)(f->gpu_count + f->other_count);
}

void gv_ctx_drop_facts(gv_ctx *ctx)
{
    if (ctx->facts) {
        gv_facts_free(ctx->facts);
        free(ctx->facts);
        ctx->facts = NULL;
    }
    free(ctx->inventory);
    ctx->inventory = NULL;
    ctx->inventory_count = 0;
    ctx->has_inventory = 0;
}

gv_status gv_refresh_facts(gv_ctx *ctx, unsigned optional, gv_facts **out)
{
    gv_facts *f = calloc(1, sizeof *f);
    if (!f)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory gathering facts");
    gv_status s = gv_facts_collect(ctx, f, optional);
    if (s != GV_OK) {
        free(f);
        return gv_fail(ctx, s, "gathering facts: %s", gv_strerror(s));
    }
    gv_ctx_drop_facts(ctx);
    ctx->facts = f;
    ctx->drop_facts = gv_ctx_drop_facts;
    *out = f;
    return GV_OK;
}
