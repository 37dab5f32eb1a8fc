/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA report and its accessors: the sysfs reader, libibverbs when it loads, the NCCL
 * settings and NCCL's choice, copied out through versioned structs (gv_rdma_status, in
 * rdma_call.c, builds it in gpuverify-worker). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ibverbs_backend.h"
#include "backends/libraries.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/settle.h"
#include "rdma/rdma.h"
#include "sys/os.h"

static void verbs(gv_ctx *ctx, uint32_t flags, gv_rdma_report *r)
{
    gv_rdma_info *info = &r->info;
    if (flags & GV_RDMA_NO_VERBS) {
        info->verbs_state = GV_LIBSTATE_NOT_QUERIED;
        snprintf(info->verbs_detail, sizeof info->verbs_detail,
                 "libibverbs not queried (GV_RDMA_NO_VERBS)");
        return;
    }
    gv_progress_stage(ctx, GV_RDMA_VERBS_STAGE "loading it");
    const struct gv_ibverbs_api *ibv = gv_ibverbs(ctx);
    const gv_lib_slot *slot = gv_library_slot(ctx, GV_LIB_IBVERBS);
    info->verbs_state = slot->state;
    snprintf(info->verbs_detail, sizeof info->verbs_detail, "%s",
             slot->state == GV_LIBSTATE_LOADED ? slot->path
             : slot->detail[0]                 ? slot->detail
                                               : slot->tried);
    if (ibv)
        gv_rdma_query_verbs(ctx, ibv, r);
}

int gv_rdma_has_hardware(const gv_rdma_report *r)
{
    return r->device_count > 0 || r->info.mellanox_functions > 0;
}

/* Everything the report holds, leaving it empty (not freed). */
static void clear(gv_rdma_report *r)
{
    free(r->modules);
    free(r->devices);
    free(r->ports);
    free(r->gids);
    free(r->settings);
    free(r->netdevs);
    memset(r, 0, sizeof *r);
    r->info.struct_size = sizeof r->info;
}

void gv_rdma_free(gv_rdma_report *r)
{
    if (!r)
        return;
    clear(r);
    free(r);
}

/* Ports on their way to ACTIVE (core/settle.h): an InfiniBand port whose link is up waits a
 * sweep or two of the subnet manager (INIT, ARMED), and at boot a link still training is DOWN,
 * Polling, for seconds. The whole tree is read again (a port's LID, rate and GIDs come with
 * it), and only on the live machine: a captured sysroot judged offline does not change. */
typedef struct {
    const char *root;
    gv_rdma_report *r;
    double uptime_s;
} port_wait;

static int ports_on_their_way(void *user)
{
    const port_wait *w = user;
    int booting = gv_settle_booting(w->uptime_s);
    for (size_t i = 0; !w->r->out_of_memory && i < w->r->port_count; i++) {
        const gv_rdma_port *p = &w->r->ports[i];
        if (p->state == GV_PORT_INIT || p->state == GV_PORT_ARMED ||
            (booting && p->state == GV_PORT_DOWN && p->phys_state == 2 /* Polling */))
            return 1;
    }
    return 0;
}

static void read_ports_again(void *user)
{
    port_wait *w = user;
    clear(w->r);
    gv_rdma_read_sysfs(w->root, w->r);
}

gv_status gv_rdma_build(gv_ctx *ctx, uint32_t flags, gv_rdma_report **out)
{
    gv_rdma_report *r = calloc(1, sizeof *r);
    if (!r)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading the RDMA stack");
    r->info.struct_size = sizeof r->info;
    gv_progress_stage(ctx, "sysfs: RDMA modules, devices, ports and GIDs");
    gv_rdma_read_sysfs(ctx->sysroot, r);
    if (ctx->live) {
        port_wait w = {ctx->sysroot, r, gv_read_uptime_s(ctx->sysroot)};
        r->port_wait_s = gv_settle(ctx, "waiting for RDMA ports on their way to ACTIVE",
                                   ports_on_their_way, read_ports_again, &w);
    }
    for (size_t i = 0; i < r->device_count; i++)
        r->devices[i].verbs_visible = r->devices[i].dmabuf_mr = -1;
    if (!r->out_of_memory)
        verbs(ctx, flags, r);
    gv_progress_stage(ctx, "the NCCL settings");
    gv_rdma_read_nccl(ctx->sysroot, !(flags & GV_RDMA_IGNORE_ENVIRONMENT), r);
    if (r->out_of_memory) {
        gv_rdma_free(r);
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading the RDMA stack");
    }
    gv_rdma_nccl_choice(r);
    gv_rdma_info *info = &r->info;
    info->module_count = (uint32_t)r->module_count;
    info->device_count = (uint32_t)r->device_count;
    info->port_count = (uint32_t)r->port_count;
    info->gid_count = (uint32_t)r->gid_count;
    info->setting_count = (uint32_t)r->setting_count;
    *out = r;
    return GV_OK;
}

gv_status gv_rdma_summary(const gv_rdma_report *r, gv_rdma_info *out)
{
    if (!r || !out)
        return GV_ERR_INVALID_ARG;
    return gv_copy_out(out, &r->info, sizeof r->info, GV_RDMA_INFO_SIZE_V1);
}

/* The accessors share one shape: bounds, then a versioned copy out. */
static gv_status item_at(const void *items, size_t count, size_t size, size_t min_size,
                         uint32_t index, void *out)
{
    if (!items && count)
        return GV_ERR_INVALID_ARG;
    if (!out)
        return GV_ERR_INVALID_ARG;
    if (index >= count)
        return GV_ERR_NOT_FOUND;
    return gv_copy_out(out, (const char *)items + (size_t)index * size, size, min_size);
}

gv_status gv_rdma_module_at(const gv_rdma_report *r, uint32_t index, gv_rdma_module *out)
{
    return r ? item_at(r->modules, r->module_count, sizeof *r->modules, GV_RDMA_MODULE_SIZE_V1,
                       index, out)
             : GV_ERR_INVALID_ARG;
}

gv_status gv_rdma_device_at(const gv_rdma_report *r, uint32_t index, gv_rdma_device *out)
{
    return r ? item_at(r->devices, r->device_count, sizeof *r->devices, GV_RDMA_DEVICE_SIZE_V1,
                       index, out)
             : GV_ERR_INVALID_ARG;
}

gv_status gv_rdma_port_at(const gv_rdma_report *r, uint32_t index, gv_rdma_port *out)
{
    return r ? item_at(r->ports, r->port_count, sizeof *r->ports, GV_RDMA_PORT_SIZE_V1, index, out)
             : GV_ERR_INVALID_ARG;
}

gv_status gv_rdma_gid_at(const gv_rdma_report *r, uint32_t index, gv_rdma_gid *out)
{
    return r ? item_at(r->gids, r->gid_count, sizeof *r->gids, GV_RDMA_GID_SIZE_V1, index, out)
             : GV_ERR_INVALID_ARG;
}

gv_status gv_rdma_setting_at(const gv_rdma_report *r, uint32_t index, gv_rdma_setting *out)
{
    return r ? item_at(r->settings, r->setting_count, sizeof *r->settings, GV_RDMA_SETTING_SIZE_V1,
                       index, out)
             : GV_ERR_INVALID_ARG;
}
