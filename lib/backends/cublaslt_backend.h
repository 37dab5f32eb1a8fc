/* SPDX-License-Identifier: Apache-2.0 */
/* The cuBLASLt vtable (from cublaslt_api.def), resolved with dlsym. */
#ifndef GV_BACKENDS_CUBLASLT_BACKEND_H
#define GV_BACKENDS_CUBLASLT_BACKEND_H

#include "backends/nvabi/cublaslt_abi.h"
#include "gpuverify/gv_context.h"

struct gv_cublaslt_api {
#define GV_CUBLASLT_FN(ret, name, required, params) ret(*name) params;
#include "backends/cublaslt_api.def"
#undef GV_CUBLASLT_FN
};

/* The context's cuBLASLt vtable, loading the library on first use (sonames chosen by the
 * driver's CUDA major); NULL when absent or broken (the library slot says why). */
const struct gv_cublaslt_api *gv_cublaslt(gv_ctx *ctx);

#endif
