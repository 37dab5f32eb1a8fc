/* SPDX-License-Identifier: Apache-2.0 */
/* What libibverbs adds to the files: which devices it can open, the ports' MTUs (InfiniBand has
 * no MTU file), and whether the provider registers DMA-BUF memory (GPUDirect RDMA without
 * peer memory), probed the way NCCL does: ibv_reg_dmabuf_mr with fd -1 fails with EOPNOTSUPP
 * or EPROTONOSUPPORT only when the provider or kernel lacks it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ibverbs_backend.h"
#include "core/progress.h"
#include "rdma/rdma.h"

static void query_ports(const struct gv_ibverbs_api *ibv, gv_ibv_context *c, gv_rdma_report *r,
                        size_t device)
{
    const gv_rdma_device *d = &r->devices[device];
    for (uint32_t i = d->first_port; i < d->first_port + d->port_count; i++) {
        gv_rdma_port *p = &r->ports[i];
        _Alignas(8) unsigned char buf[GV_IBV_PORT_ATTR_BYTES];
        memset(buf, 0, sizeof buf);
        if (p->port == 0 || p->port > 255 || ibv->ibv_query_port(c, (uint8_t)p->port, buf) != 0)
            continue;
        gv_ibv_port_attr attr;
        memcpy(&attr, buf, sizeof attr);
        int active = gv_ibv_mtu_bytes(attr.active_mtu), max = gv_ibv_mtu_bytes(attr.max_mtu);
        if (active > 0 && max > 0) {
            p->active_mtu = active;
            p->max_mtu = max;
            p->mtu_source = GV_MTU_VERBS;
        }
    }
}

static void probe_dmabuf(const struct gv_ibverbs_api *ibv, gv_ibv_context *c, gv_rdma_device *v)
{
    if (!ibv->ibv_reg_dmabuf_mr) {
        v->dmabuf_mr = 0;
        snprintf(v->verbs_detail, sizeof v->verbs_detail,
                 "libibverbs has no ibv_reg_dmabuf_mr (rdma-core older than 34)");
        return;
    }
    gv_ibv_pd *pd = ibv->ibv_alloc_pd(c);
    if (!pd) {
        snprintf(v->verbs_detail, sizeof v->verbs_detail, "ibv_alloc_pd: %s", strerror(errno));
        return;
    }
    errno = 0;
    gv_ibv_mr *mr = ibv->ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
    int e = errno;
    if (mr) {
        ibv->ibv_dereg_mr(mr);
        v->dmabuf_mr = 1;
    } else {
        v->dmabuf_mr = e != EOPNOTSUPP && e != EPROTONOSUPPORT;
    }
    snprintf(v->verbs_detail, sizeof v->verbs_detail, "ibv_reg_dmabuf_mr(fd -1): %s",
             mr ? "registered" : strerror(e));
    ibv->ibv_dealloc_pd(pd);
}

void gv_rdma_query_verbs(gv_ctx *ctx, const struct gv_ibverbs_api *ibv, gv_rdma_report *r)
{
    int n = 0;
    errno = 0;
    gv_progress_stage(ctx, GV_RDMA_VERBS_STAGE "ibv_get_device_list");
    gv_ibv_device **list = ibv->ibv_get_device_list(&n);
    if (!list) {
        snprintf(r->info.verbs_detail, sizeof r->info.verbs_detail, "ibv_get_device_list: %s",
                 strerror(errno ? errno : ENODEV));
        return;
    }
    for (size_t d = 0; d < r->device_count; d++)
        r->devices[d].verbs_visible = 0;
    for (int i = 0; i < n; i++) {
        const char *name = ibv->ibv_get_device_name(list[i]);
        size_t d = 0;
        while (name && d < r->device_count && strcmp(r->devices[d].name, name) != 0)
            d++;
        if (!name || d == r->device_count)
            continue;
        gv_rdma_device *v = &r->devices[d];
        v->verbs_visible = 1;
        gv_progress_stage(
            ctx, GV_RDMA_VERBS_STAGE "%s: opening it, its ports, DMA-BUF registration", name);
        gv_ibv_context *c = ibv->ibv_open_device(list[i]);
        if (!c) {
            snprintf(v->verbs_detail, sizeof v->verbs_detail, "ibv_open_device: %s",
                     strerror(errno));
            continue;
        }
        query_ports(ibv, c, r, d);
        probe_dmabuf(ibv, c, v);
        ibv->ibv_close_device(c);
    }
    ibv->ibv_free_device_list(list);
}
