/* SPDX-License-Identifier: Apache-2.0 */
#include "backends/libraries.h"

#include <stdio.h>
#include <string.h>

#include "backends/cublaslt_backend.h"
#include "backends/cuda_backend.h"
#include "backends/cudnn_backend.h"
#include "backends/ibverbs_backend.h"
#include "backends/nvml_backend.h"
#include "core/c_locale.h"
#include "core/context.h"
#include "core/sizes.h"
#include "worker/call.h"
#include "worker/worker.h"

/* The driver's CUDA major picks the toolkit sonames (cuBLASLt 13 before 12 on r580). */
static int driver_cuda_major(gv_ctx *ctx)
{
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    int v = 0;
    if (cu && cu->cuDriverGetVersion(&v) == GVCU_SUCCESS && v > 0)
        return v / 1000;
    return 0;
}

gv_lib_slot *gv_library_slot(gv_ctx *ctx, int32_t library)
{
    gv_lib_slot *slot = &ctx->libs[library];
    if (slot->attempted)
        return slot;
    if (!ctx->live) {
        char detail[sizeof slot->detail];
        snprintf(detail, sizeof detail,
                 "live libraries not queried: judging the offline sysroot %s", ctx->sysroot);
        memset(slot, 0, sizeof *slot);
        slot->attempted = 1;
        slot->state = GV_LIBSTATE_NOT_QUERIED;
        memcpy(slot->detail, detail, sizeof detail);
        return slot;
    }
    if (ctx->library_refused[library][0]) {
        memset(slot, 0, sizeof *slot);
        slot->attempted = 1;
        slot->state = GV_LIBSTATE_BROKEN;
        _Static_assert(sizeof slot->detail >= sizeof ctx->library_refused[0], "detail holds why");
        memcpy(slot->detail, ctx->library_refused[library], sizeof ctx->library_refused[library]);
        return slot;
    }
    int major = 0;
    if (library == GV_LIB_CUBLASLT || library == GV_LIB_CUDNN || library == GV_LIB_NCCL)
        major = driver_cuda_major(ctx);
    gv_loader_open(gv_lib_spec_of(library), ctx->library_path[library], ctx->library_dir, major,
                   slot);
    gv_log(ctx, GV_LOG_DEBUG, "%s: state %d, file '%s', tried: %s", gv_lib_spec_of(library)->name,
           (int)slot->state, slot->path, slot->tried);
    return slot;
}

const void *gv_library_vtable(gv_ctx *ctx, int32_t library, const gv_symbol *symbols, size_t count,
                              size_t vtable_size, gv_resolver resolve)
{
    gv_lib_slot *slot = gv_library_slot(ctx, library);
    if (slot->state != GV_LIBSTATE_LOADED)
        return NULL;
    char missing[128];
    const void *vt =
        gv_loader_vtable(slot->dl, symbols, count, vtable_size, resolve, missing, sizeof missing);
    if (!vt) {
        slot->state = GV_LIBSTATE_BROKEN;
        snprintf(slot->detail, sizeof slot->detail, "required entry point %s not found", missing);
    }
    return vt;
}

/* The worker is looked for, not loaded: "loaded" means found and executable. */
static gv_status worker_status(gv_ctx *ctx, gv_library_info *out)
{
    gv_worker_place where;
    gv_library_info info = GV_LIBRARY_INFO_INIT;
    info.library = GV_LIB_WORKER;
    info.state = gv_worker_find(ctx, &where) ? GV_LIBSTATE_LOADED : GV_LIBSTATE_ABSENT;
    snprintf(info.name, sizeof info.name, "gpuverify-worker");
    snprintf(info.path, sizeof info.path, "%s", where.path);
    snprintf(info.tried, sizeof info.tried, "%s", where.tried);
    if (info.state != GV_LIBSTATE_LOADED)
        snprintf(info.detail, sizeof info.detail,
                 "no executable gpuverify-worker: gv_run runs the checks in the caller's process");
    gv_status s = gv_copy_out(out, &info, sizeof info, GV_LIBRARY_INFO_SIZE_V1);
    return s == GV_OK ? GV_OK
                      : gv_fail(ctx, s, "gv_library_info.struct_size %u is not a valid layout",
                                (unsigned)out->struct_size);
}

/* What the call returns: the description, and where the caller writes a timeout or a crash
 * (worker/call.h). */
typedef struct status_result {
    uint32_t struct_size;
    int32_t verdict;
    char message[512];
    gv_library_info info;
} status_result;

/* Loads the library in this process and describes it. */
static gv_status status_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch,
                             void *result)
{
    (void)watch;
    int32_t library = *(const int32_t *)args;
    const gv_lib_spec *spec = gv_lib_spec_of(library);
    gv_lib_slot *slot = gv_library_slot(ctx, library);
    /* Loading alone does not prove a library usable: resolve its vtable where we have one. */
    if (library == GV_LIB_CUDA)
        (void)gv_cuda(ctx);
    else if (library == GV_LIB_NVML)
        (void)gv_nvml(ctx);
    else if (library == GV_LIB_CUBLASLT)
        (void)gv_cublaslt(ctx);
    else if (library == GV_LIB_CUDNN)
        (void)gv_cudnn(ctx);
    else if (library == GV_LIB_IBVERBS)
        (void)gv_ibverbs(ctx);
    gv_library_info *info = &((status_result *)result)->info;
    *info = (gv_library_info)GV_LIBRARY_INFO_INIT;
    info->library = library;
    info->state = slot->state;
    snprintf(info->name, sizeof info->name, "%s", spec->name);
    snprintf(info->path, sizeof info->path, "%s", slot->path);
    snprintf(info->version, sizeof info->version, "%s", slot->version);
    snprintf(info->tried, sizeof info->tried, "%s", slot->tried);
    snprintf(info->detail, sizeof info->detail, "%s", slot->detail);
    return GV_OK;
}

/* Loading a library and resolving it: as long as starting NVML (loading it and nvmlInit). */
static double status_deadline(const gv_ctx *ctx, const void *args)
{
    (void)args;
    return gv_call_deadline(ctx, 0, GV_DEADLINE_NVML_START, 1, 0);
}

static void status_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    const gv_lib_spec *spec = gv_lib_spec_of(*(const int32_t *)args);
    snprintf(out, cap, "gv_library_status (%s)", spec ? spec->name : "?");
}

/* In gpuverify-worker: a library's constructors run when it loads, and a library directory on
 * a network file system that stopped answering blocks the load itself. */
const gv_call_kind gv_call_library_status =
    GV_CALL_KIND("library_status", int32_t, status_result, 0, status_here, status_deadline, NULL,
                 status_describe);

gv_status gv_library_status(gv_ctx *ctx, int32_t library, gv_library_info *out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_library_status: out is NULL");
    gv_status s = gv_out_known(ctx, "gv_library_info", out, GV_LIBRARY_INFO_SIZE_V1);
    if (s != GV_OK)
        return s;
    if (library == GV_LIB_WORKER)
        return worker_status(ctx, out);
    if (!gv_lib_spec_of(library))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "library %d is not a gv_library", (int)library);
    status_result r = {.struct_size = sizeof r};
    s = gv_call(ctx, &gv_call_library_status, &library, NULL, NULL, &r);
    if (s != GV_OK)
        return s;
    s = gv_copy_out(out, &r.info, sizeof r.info, GV_LIBRARY_INFO_SIZE_V1);
    if (s != GV_OK)
        return gv_fail(ctx, s, "gv_library_info.struct_size %u is not a valid layout",
                       (unsigned)out->struct_size);
    return GV_OK;
}
