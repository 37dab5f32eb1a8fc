/* SPDX-License-Identifier: Apache-2.0 */
#include "backends/nvml_backend.h"

#include <stdio.h>

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol nvml_symbols[] = {
#define GV_NVML_FN(field, newest, fallback, required, params)                                      \
    {#newest, #fallback, 0, required, offsetof(struct gv_nvml_api, field)},
#include "backends/nvml_api.def"
#undef GV_NVML_FN
};

static const struct gv_nvml_api *nvml_vtable(gv_ctx *ctx)
{
    if (!ctx->nvml)
        ctx->nvml = gv_library_vtable(ctx, GV_LIB_NVML, nvml_symbols,
                                      sizeof nvml_symbols / sizeof *nvml_symbols,
                                      sizeof(struct gv_nvml_api), gv_resolve_dlsym);
    return ctx->nvml;
}

const struct gv_nvml_api *gv_nvml(gv_ctx *ctx)
{
    const struct gv_nvml_api *nv = nvml_vtable(ctx);
    if (!nv)
        return NULL;
    if (ctx->nvml_init_result < 0) {
        ctx->nvml_init_result = nv->init();
        if (ctx->nvml_init_result == GVNV_SUCCESS)
            ctx->release_libraries = gv_nvml_release;
        gv_lib_slot *slot = &ctx->libs[GV_LIB_NVML];
        char v[GVNV_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        if (ctx->nvml_init_result == GVNV_SUCCESS && !slot->version[0] &&
            nv->system_get_nvml_version(v, sizeof v) == GVNV_SUCCESS)
            snprintf(slot->version, sizeof slot->version, "%s", v);
    }
    return ctx->nvml_init_result == GVNV_SUCCESS ? nv : NULL;
}

void gv_nvml_release(gv_ctx *ctx)
{
    if (ctx->nvml && ctx->nvml_init_result == GVNV_SUCCESS)
        ctx->nvml->shutdown();
    ctx->nvml_init_result = -1;
}

const char *gv_nvml_error_name(int result, char *buf, size_t cap)
{
    static const char *const names[] = {
        "NVML_SUCCESS",
        "NVML_ERROR_UNINITIALIZED",
        "NVML_ERROR_INVALID_ARGUMENT",
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_ALREADY_INITIALIZED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_INSUFFICIENT_SIZE",
        "NVML_ERROR_INSUFFICIENT_POWER",
        "NVML_ERROR_DRIVER_NOT_LOADED",
        "NVML_ERROR_TIMEOUT",
        "NVML_ERROR_IRQ_ISSUE",
        "NVML_ERROR_LIBRARY_NOT_FOUND",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_CORRUPTED_INFOROM",
        "NVML_ERROR_GPU_IS_LOST",
        "NVML_ERROR_RESET_REQUIRED",
        "NVML_ERROR_OPERATING_SYSTEM",
        "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        "NVML_ERROR_IN_USE",
        "NVML_ERROR_MEMORY",
        "NVML_ERROR_NO_DATA",
    };
    if (result >= 0 && (size_t)result < sizeof names / sizeof *names)
        return names[result];
    if (result == GVNV_ERROR_UNKNOWN)
        return "NVML_ERROR_UNKNOWN";
    snprintf(buf, cap, "NVML error %d", result);
    return buf;
}
