/* SPDX-License-Identifier: Apache-2.0 */
#include "backends/cudnn_backend.h"

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol cudnn_symbols[] = {
#define GV_CUDNN_FN(ret, name, required, params)                                                   \
    {#name, #name, 0, required, offsetof(struct gv_cudnn_api, name)},
#include "backends/cudnn_api.def"
#undef GV_CUDNN_FN
};

const struct gv_cudnn_api *gv_cudnn(gv_ctx *ctx)
{
    if (!ctx->cudnn)
        ctx->cudnn = gv_library_vtable(ctx, GV_LIB_CUDNN, cudnn_symbols,
                                       sizeof cudnn_symbols / sizeof *cudnn_symbols,
                                       sizeof(struct gv_cudnn_api), gv_resolve_dlsym);
    return ctx->cudnn;
}
