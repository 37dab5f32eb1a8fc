/* SPDX-License-Identifier: Apache-2.0 */
#include "backends/ibverbs_backend.h"

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol ibverbs_symbols[] = {
#define GV_IBV_FN(ret, name, required, params)                                                     \
    {#name, #name, 0, required, offsetof(struct gv_ibverbs_api, name)},
#include "backends/ibverbs_api.def"
#undef GV_IBV_FN
};

const struct gv_ibverbs_api *gv_ibverbs(gv_ctx *ctx)
{
    if (!ctx->ibverbs)
        ctx->ibverbs = gv_library_vtable(ctx, GV_LIB_IBVERBS, ibverbs_symbols,
                                         sizeof ibverbs_symbols / sizeof *ibverbs_symbols,
                                         sizeof(struct gv_ibverbs_api), gv_resolve_dlsym);
    return ctx->ibverbs;
}
