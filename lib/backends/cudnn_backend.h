/* SPDX-License-Identifier: Apache-2.0 */
/* The cuDNN vtable (from cudnn_api.def), resolved with dlsym. */
#ifndef GV_BACKENDS_CUDNN_BACKEND_H
#define GV_BACKENDS_CUDNN_BACKEND_H

#include "backends/nvabi/cudnn_abi.h"
#include "gpuverify/gv_context.h"

struct gv_cudnn_api {
#define GV_CUDNN_FN(ret, name, required, params) ret(*name) params;
#include "backends/cudnn_api.def"
#undef GV_CUDNN_FN
};

/* The context's cuDNN vtable, loading the library on first use (sonames chosen by the
 * driver's CUDA major); NULL when absent or broken (the library slot says why). */
const struct gv_cudnn_api *gv_cudnn(gv_ctx *ctx);

#endif
