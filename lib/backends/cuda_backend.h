/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA driver API vtable (from cuda_api.def), resolved through cuGetProcAddress_v2. */
#ifndef GV_BACKENDS_CUDA_BACKEND_H
#define GV_BACKENDS_CUDA_BACKEND_H

#include <stddef.h>

#include "backends/nvabi/cuda_abi.h"
#include "gpuverify/gv_context.h"

struct gv_cuda_api {
#define GV_CUDA_FN(name, abi_version, required, params) gvcu_result(*name) params;
#include "backends/cuda_api.def"
#undef GV_CUDA_FN
};

/* The context's libcuda vtable, loading it on first use; NULL when absent or broken (the
 * library slot says why). Does not call cuInit. */
const struct gv_cuda_api *gv_cuda(gv_ctx *ctx);
/* cuInit(0), once per context; returns its CUresult, or -1 when libcuda is not usable. */
int gv_cuda_init(gv_ctx *ctx);
/* "CUDA_ERROR_NO_DEVICE"; "CUDA error <n>" for codes we do not name. */
const char *gv_cuda_error_name(int result, char *buf, size_t cap);

#endif
