/* SPDX-License-Identifier: Apache-2.0 */
#include "backends/cublaslt_backend.h"

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol cublaslt_symbols[] = {
#define GV_CUBLASLT_FN(ret, name, required, params)                                                \
    {#name, #name, 0, required, offsetof(struct gv_cublaslt_api, name)},
#include "backends/cublaslt_api.def"
#undef GV_CUBLASLT_FN
};

const struct gv_cublaslt_api *gv_cublaslt(gv_ctx *ctx)
{
    if (!ctx->cublaslt)
        ctx->cublaslt = gv_library_vtable(ctx, GV_LIB_CUBLASLT, cublaslt_symbols,
                                          sizeof cublaslt_symbols / sizeof *cublaslt_symbols,
                                          sizeof(struct gv_cublaslt_api), gv_resolve_dlsym);
    return ctx->cublaslt;
}
