/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn.version, cudnn.conv (gv_active_cudnn): rows from gv_cudnn_check, or the version alone
 * from the library compatibility test when no convolution is selected. */
#include <math.h>
#include <string.h>

#include "checks/active.h"
#include "checks/checks.h"
#include "compute/compute.h"
#include "core/context.h"
#include "core/progress.h"

#define CUDNN_REMEDY                                                                               \
    "install the cuDNN built for the driver's CUDA (driver.compat names both versions), or a "     \
    "driver for cuDNN's"

void gv_active_cudnn(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_cudnn);
    if (!gv_active_selected(run, gv_id_cudnn_conv)) {
        /* The version alone needs no GPU: load the library and ask it. */
        gv_compat c;
        gv_compat_check(run->ctx, GV_LIB_CUDNN, &c);
        gv_check_result *res =
            gv_report_add(run->report, gv_id_cudnn_version, "node", c.verdict, "%s", c.message);
        if (c.version[0])
            gv_result_measured(res, NAN, "", "%s", c.version);
        if (c.verdict == GV_FAIL)
            gv_result_remedy(res, CUDNN_REMEDY);
        gv_result_action(res, GV_ACTION_FIX_CONFIG);
        return;
    }
    if (gv_active_no_devices(run, members))
        return;
    /* cuDNN is the same library for every GPU: the first chosen one answers for the node. */
    int gpu = 0;
    while (gpu < run->facts->cuda_count - 1 && !gv_active_gpu_chosen(run, gpu))
        gpu++;
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    char subject[48];
    gv_active_subject(run->facts, gpu, subject, sizeof subject);
    gv_progress_begin(run->ctx, gv_id_cudnn_conv, subject);
    if (gv_cudnn_check(run->ctx, (uint32_t)gpu, &r) != GV_OK) {
        gv_active_rows_action(run, members, subject, GV_ERROR, GV_ACTION_RERUN,
                              gv_ctx_last_error(run->ctx));
        return;
    }
    int loaded = r.version[0] != '\0';
    if (gv_active_selected(run, gv_id_cudnn_version)) {
        int v = !loaded ? r.verdict
                : r.verdict == GV_FAIL && r.fp32_verdict != GV_SKIP
                    ? GV_PASS /* the conv row carries its failure */
                    : r.verdict;
        gv_check_result *c =
            gv_report_add(run->report, gv_id_cudnn_version, "node", v, "%s",
                          loaded && v == GV_PASS ? "cuDNN loads and makes a handle" : r.message);
        if (loaded)
            gv_result_measured(c, NAN, "", "%s", r.version);
        if (v == GV_FAIL)
            gv_result_remedy(c, CUDNN_REMEDY);
        /* Not loaded, or loaded and no handle: the installation; a context refused: the GPU. */
        gv_result_action(c, loaded || !strstr(r.message, "CUDA_ERROR") ? GV_ACTION_FIX_CONFIG
                                                                       : GV_ACTION_RESET_GPU);
    }
    if (gv_active_selected(run, gv_id_cudnn_conv)) {
        int v = r.fp32_verdict == GV_SKIP && r.fp16_verdict == GV_SKIP ? GV_SKIP : r.verdict;
        gv_check_result *c =
            gv_report_add(run->report, gv_id_cudnn_conv, subject, v, "%s", r.message);
        double worst = r.fp32_worst > r.fp16_worst ? r.fp32_worst : r.fp16_worst;
        if (r.fp32_verdict != GV_SKIP)
            gv_result_measured(c, worst, "x tolerance", "error %.2g x tolerance", worst);
        /* A convolution that ran and came out wrong is the GPU's arithmetic; one that did not
         * run (cuDNN not loaded, no handle, an execution error) leaves a context a reset
         * clears, or an installation: a rerun after the reset tells. */
        gv_result_action(c, strstr(r.message, "convolution wrong") ? GV_ACTION_HW_INSPECT
                            : !loaded                              ? GV_ACTION_FIX_CONFIG
                                                                   : GV_ACTION_RESET_GPU);
    }
}
