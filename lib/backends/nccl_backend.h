/* SPDX-License-Identifier: Apache-2.0 */
/* The NCCL vtable (from nccl_api.def), resolved with dlsym, and what NCCL says about itself. */
#ifndef GV_BACKENDS_NCCL_BACKEND_H
#define GV_BACKENDS_NCCL_BACKEND_H

#include "backends/nvabi/nccl_abi.h"
#include "gpuverify/gv_context.h"

struct gv_nccl_api {
#define GV_NCCL_FN(ret, name, required, params) ret(*name) params;
#include "backends/nccl_api.def"
#undef GV_NCCL_FN
};

/* The context's NCCL vtable, loading libnccl.so.2 on first use; NULL when absent or broken (the
 * library slot says why). */
const struct gv_nccl_api *gv_nccl(gv_ctx *ctx);

/* The CUDA version (13000) the loaded NCCL was built for, read from the version string NCCL keeps
 * in its read-only data for this purpose ("NCCL version 2.28.9+cuda13.0"); 0 when unknown. */
int gv_nccl_build_cuda(gv_ctx *ctx);

/* NCCL_VERSION_CODE as text: 22809 -> "2.28.9", 2708 (before 2.9) -> "2.7.8". */
void gv_nccl_version_text(int code, char *out, size_t cap);

#endif
