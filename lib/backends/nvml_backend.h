/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML vtable (from nvml_api.def), resolved with dlsym, newest names first. */
#ifndef GV_BACKENDS_NVML_BACKEND_H
#define GV_BACKENDS_NVML_BACKEND_H

#include <stddef.h>

#include "backends/nvabi/nvml_abi.h"
#include "gpuverify/gv_context.h"

struct gv_nvml_api {
#define GV_NVML_FN(field, newest, fallback, required, params) gvnv_return(*field) params;
#include "backends/nvml_api.def"
#undef GV_NVML_FN
};

/* The context's NVML vtable, loading it and calling nvmlInit once per context; NULL when
 * absent, broken or when nvmlInit failed (ctx->nvml_init_result holds its code). */
const struct gv_nvml_api *gv_nvml(gv_ctx *ctx);
/* nvmlShutdown when this context initialized NVML (NVML counts its inits). */
void gv_nvml_release(gv_ctx *ctx);
/* "NVML_ERROR_GPU_IS_LOST"; "NVML error <n>" for codes we do not name. */
const char *gv_nvml_error_name(int result, char *buf, size_t cap);

#endif
