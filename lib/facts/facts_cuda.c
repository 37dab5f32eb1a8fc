/* SPDX-License-Identifier: Apache-2.0 */
/* Facts from the CUDA driver API: its version, cuInit, and the devices it enumerates (after
 * CUDA_VISIBLE_DEVICES and MIG), matched to the inventory by PCI address. No context is
 * created here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_backend.h"
#include "facts/facts_internal.h"
#include "core/context.h"
#include "core/progress.h"

static void format_uuid(const gvcu_uuid *u, char *out, size_t cap)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(out, cap, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

static void device(const struct gv_cuda_api *cu, gvcu_device dev, gv_gpu_record *r)
{
    gv_gpu *g = &r->gpu;
    int v;
    if (cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == 0)
        g->sm_count = v;
    if (g->cc_major < 0 &&
        cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == 0) {
        g->cc_major = v;
        if (cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == 0)
            g->cc_minor = v;
    }
    if (cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev) == 0)
        r->dmabuf = v != 0;
    char name[96];
    if (!g->name[0] && cu->cuDeviceGetName(name, (int)sizeof name, dev) == 0)
        snprintf(g->name, sizeof g->name, "%s", name);
    size_t bytes;
    if (g->memory_total < 0 && cu->cuDeviceTotalMem(&bytes, dev) == 0)
        g->memory_total = (int64_t)bytes;
    gvcu_uuid uuid;
    if (!g->uuid[0] && cu->cuDeviceGetUuid && cu->cuDeviceGetUuid(&uuid, dev) == 0)
        format_uuid(&uuid, g->uuid, sizeof g->uuid);
}

static int named_by_cuda(const gv_gpu_record *r)
{
    return r->gpu.cuda_index >= 0;
}

void gv_facts_cuda(gv_ctx *ctx, gv_facts *f)
{
    gv_progress_begin(ctx, "driver.cuda", "node");
    if (ctx->before_cuinit) /* before libcuda too: what it waits for is always read */
        ctx->before_cuinit(ctx);
    gv_progress_stage(ctx, "loading libcuda");
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    f->cuda_lib = ctx->libs[GV_LIB_CUDA];
    if (!cu)
        return;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible) {
        f->cuda_visible_set = 1;
        snprintf(f->cuda_visible, sizeof f->cuda_visible, "%s", visible);
    }
    int v;
    if (cu->cuDriverGetVersion(&v) == GVCU_SUCCESS)
        f->cuda_driver_version = v;
    gv_progress_stage(ctx, "cuInit");
    f->cuda_init = gv_cuda_init(ctx);
    gv_progress_stage(ctx, "enumerating CUDA devices");
    int count = 0;
    if (f->cuda_init != GVCU_SUCCESS || cu->cuDeviceGetCount(&count) != GVCU_SUCCESS)
        return;
    f->cuda_count = count;
    for (int j = 0; j < count; j++) {
        gvcu_device dev;
        char bus[64];
        gv_pci_addr addr;
        if (cu->cuDeviceGet(&dev, j) != GVCU_SUCCESS ||
            cu->cuDeviceGetPCIBusId(bus, (int)sizeof bus, dev) != GVCU_SUCCESS ||
            gv_pci_parse_addr(bus, &addr) != 0)
            continue;
        gv_gpu_record *r = gv_facts_gpu_join(f, &addr, named_by_cuda);
        if (!r)
            return;
        r->gpu.cuda_index = j;
        device(cu, dev, r);
    }
}
