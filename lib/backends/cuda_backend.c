/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "backends/cuda_backend.h"

#include <dlfcn.h>
#include <stdio.h>

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol cuda_symbols[] = {
#define GV_CUDA_FN(name, abi_version, required, params)                                            \
    {#name, #name, abi_version, required, offsetof(struct gv_cuda_api, name)},
#include "backends/cuda_api.def"
#undef GV_CUDA_FN
};

/* Each entry by base name and the CUDA version whose ABI our declaration matches, the way
 * the CUDA runtime itself asks the driver (cuGetProcAddress with a version). */
static void *cuda_resolve(void *dl, const gv_symbol *symbol)
{
    void *fn = NULL;
    gvcu_get_proc_address_v2_fn v2 = (gvcu_get_proc_address_v2_fn)dlsym(dl, "cuGetProcAddress_v2");
    if (v2) {
        gvcu_proc_query found = GVCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (v2(symbol->name, &fn, symbol->cuda_version, GVCU_GET_PROC_ADDRESS_DEFAULT, &found) ==
                GVCU_SUCCESS &&
            found == GVCU_GET_PROC_ADDRESS_SUCCESS)
            return fn;
        return NULL;
    }
    gvcu_get_proc_address_fn v1 = (gvcu_get_proc_address_fn)dlsym(dl, "cuGetProcAddress");
    if (v1 &&
        v1(symbol->name, &fn, symbol->cuda_version, GVCU_GET_PROC_ADDRESS_DEFAULT) == GVCU_SUCCESS)
        return fn;
    return NULL;
}

const struct gv_cuda_api *gv_cuda(gv_ctx *ctx)
{
    if (ctx->cuda)
        return ctx->cuda;
    gv_lib_slot *slot = gv_library_slot(ctx, GV_LIB_CUDA);
    if (slot->state != GV_LIBSTATE_LOADED)
        return NULL;
    if (!dlsym(slot->dl, "cuGetProcAddress_v2") && !dlsym(slot->dl, "cuGetProcAddress")) {
        slot->state = GV_LIBSTATE_BROKEN;
        snprintf(slot->detail, sizeof slot->detail,
                 "%s has no cuGetProcAddress: a driver older than CUDA 11.3", slot->path);
        return NULL;
    }
    char missing[128];
    ctx->cuda = gv_loader_vtable(slot->dl, cuda_symbols, sizeof cuda_symbols / sizeof *cuda_symbols,
                                 sizeof(struct gv_cuda_api), cuda_resolve, missing, sizeof missing);
    if (!ctx->cuda) {
        slot->state = GV_LIBSTATE_BROKEN;
        snprintf(slot->detail, sizeof slot->detail, "required entry point %s not found", missing);
    }
    return ctx->cuda;
}

int gv_cuda_init(gv_ctx *ctx)
{
    if (ctx->cuda_init_result >= 0)
        return ctx->cuda_init_result;
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    if (!cu)
        return -1;
    ctx->cuda_init_result = cu->cuInit(0);
    return ctx->cuda_init_result;
}

const char *gv_cuda_error_name(int result, char *buf, size_t cap)
{
    static const struct {
        int code;
        const char *name;
    } names[] = {
        {GVCU_SUCCESS, "CUDA_SUCCESS"},
        {GVCU_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
        {GVCU_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
        {GVCU_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
        {GVCU_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED"},
        {GVCU_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY"},
        {GVCU_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
        {GVCU_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
        {GVCU_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
        {GVCU_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
        {GVCU_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY"},
        {GVCU_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
        {GVCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
        {GVCU_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == result)
            return names[i].name;
    snprintf(buf, cap, "CUDA error %d", result);
    return buf;
}
