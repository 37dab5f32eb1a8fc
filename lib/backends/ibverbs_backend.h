/* SPDX-License-Identifier: Apache-2.0 */
/* The libibverbs vtable (from ibverbs_api.def), resolved with dlsym. */
#ifndef GV_BACKENDS_IBVERBS_BACKEND_H
#define GV_BACKENDS_IBVERBS_BACKEND_H

#include "backends/ibverbs_abi.h"
#include "gpuverify/gv_context.h"

struct gv_ibverbs_api {
#define GV_IBV_FN(ret, name, required, params) ret(*name) params;
#include "backends/ibverbs_api.def"
#undef GV_IBV_FN
};

/* The context's libibverbs vtable, loading libibverbs.so.1 on first use; NULL when absent or
 * broken (the library slot says why). */
const struct gv_ibverbs_api *gv_ibverbs(gv_ctx *ctx);

#endif
