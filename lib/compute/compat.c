/* SPDX-License-Identifier: Apache-2.0 */
/* A toolkit library built for a newer CUDA than the driver supports fails at its first call
 * with an error that names neither; this says so before anything runs. */
#include <stdio.h>
#include <string.h>

#include "backends/cublaslt_backend.h"
#include "backends/cuda_backend.h"
#include "backends/cudnn_backend.h"
#include "backends/libraries.h"
#include "backends/nccl_backend.h"
#include "compute/compute.h"
#include "core/context.h"

/* cuBLAS 130100 = 13.1.0; cuDNN 9: 91400 = 9.14.0; cuDNN 8: 8907 = 8.9.7. */
static void format_version(int32_t library, size_t v, char *out, size_t cap)
{
    if (library == GV_LIB_CUDNN && v < 90000)
        snprintf(out, cap, "%zu.%zu.%zu", v / 1000, v / 100 % 10, v % 100);
    else
        snprintf(out, cap, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
}

void gv_compat_check(gv_ctx *ctx, int32_t library, gv_compat *out)
{
    memset(out, 0, sizeof *out);
    const char *name = library == GV_LIB_CUDNN  ? "cuDNN"
                       : library == GV_LIB_NCCL ? "NCCL"
                                                : "cuBLASLt";
    size_t version = 0, cudart = 0;
    if (library == GV_LIB_NCCL) {
        const struct gv_nccl_api *nc = gv_nccl(ctx);
        int v = 0;
        if (nc && nc->ncclGetVersion(&v) == GVNC_SUCCESS && v > 0)
            version = (size_t)v, cudart = (size_t)gv_nccl_build_cuda(ctx);
    } else if (library == GV_LIB_CUDNN) {
        const struct gv_cudnn_api *dn = gv_cudnn(ctx);
        if (dn)
            version = dn->cudnnGetVersion(), cudart = dn->cudnnGetCudartVersion();
    } else {
        const struct gv_cublaslt_api *lt = gv_cublaslt(ctx);
        if (lt)
            version = lt->cublasLtGetVersion(), cudart = lt->cublasLtGetCudartVersion();
    }
    gv_lib_slot *slot = gv_library_slot(ctx, library);
    if (!version) {
        out->verdict = GV_SKIP;
        snprintf(out->message, sizeof out->message, "%s %s: %s", name,
                 slot->state == GV_LIBSTATE_BROKEN ? "is broken" : "not found",
                 slot->detail[0] ? slot->detail : slot->tried);
        return;
    }
    if (library == GV_LIB_NCCL)
        gv_nccl_version_text((int)version, out->version, sizeof out->version);
    else
        format_version(library, version, out->version, sizeof out->version);
    out->library_cuda = (int)cudart;
    if (cudart == 0) {
        out->verdict = GV_SKIP;
        snprintf(out->message, sizeof out->message,
                 "%s %s (%s); the CUDA version it was built for is not recorded in the library: "
                 "not judged",
                 name, out->version, slot->path);
        return;
    }
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    int driver = 0;
    if (cu && cu->cuDriverGetVersion(&driver) != GVCU_SUCCESS)
        driver = 0;
    out->driver_cuda = driver;
    if (driver <= 0) {
        out->verdict = GV_SKIP;
        snprintf(out->message, sizeof out->message,
                 "%s %s (%s), built for CUDA %d.%d; the driver's CUDA version is unknown (libcuda "
                 "not usable): not judged",
                 name, out->version, slot->path, (int)cudart / 1000, (int)cudart % 1000 / 10);
        return;
    }
    if ((int)cudart > driver) {
        out->verdict = GV_FAIL;
        snprintf(out->message, sizeof out->message,
                 "%s %s (%s) is built for CUDA %d.%d but the driver supports CUDA %d.%d: upgrade "
                 "the driver, or use a %s built for CUDA %d.%d or older",
                 name, out->version, slot->path, (int)cudart / 1000, (int)cudart % 1000 / 10,
                 driver / 1000, driver % 1000 / 10, name, driver / 1000, driver % 1000 / 10);
        return;
    }
    out->verdict = GV_PASS;
    snprintf(out->message, sizeof out->message,
             "%s %s (%s), built for CUDA %d.%d; driver CUDA %d.%d", name, out->version, slot->path,
             (int)cudart / 1000, (int)cudart % 1000 / 10, driver / 1000, driver % 1000 / 10);
}
