/* SPDX-License-Identifier: Apache-2.0 */
/* driver.compat (gv_active_compat): the toolkit libraries (cuBLASLt, cuDNN, NCCL) against the
 * CUDA version the driver supports, from the library compatibility test. */
#include "checks/active.h"
#include "checks/checks.h"
#include "compute/compute.h"

void gv_active_compat(gv_active_run *run)
{
    static const struct {
        int32_t library;
        const char *subject;
    } libs[] = {{GV_LIB_CUBLASLT, "cublasLt"}, {GV_LIB_CUDNN, "cudnn"}, {GV_LIB_NCCL, "nccl"}};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        gv_compat c;
        gv_compat_check(run->ctx, libs[i].library, &c);
        gv_check_result *res = gv_report_add(run->report, gv_id_driver_compat, libs[i].subject,
                                             c.verdict, "%s", c.message);
        if (c.library_cuda > 0) {
            gv_result_measured(res, c.library_cuda, "", "CUDA %d.%d", c.library_cuda / 1000,
                               c.library_cuda % 1000 / 10);
            gv_result_expected(res, "driver", "<= CUDA %d.%d", c.driver_cuda / 1000,
                               c.driver_cuda % 1000 / 10);
        }
        if (c.verdict == GV_FAIL)
            gv_result_remedy(res,
                             "install a driver that supports CUDA %d.%d, or a %s built for "
                             "CUDA %d.%d",
                             c.library_cuda / 1000, c.library_cuda % 1000 / 10, libs[i].subject,
                             c.driver_cuda / 1000, c.driver_cuda % 1000 / 10);
        gv_result_action(res, GV_ACTION_FIX_CONFIG); /* libraries against the driver */
    }
}
