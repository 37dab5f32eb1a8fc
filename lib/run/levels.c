/* SPDX-License-Identifier: Apache-2.0 */
/* The run levels. quick fits a Slurm prolog: files, libraries, a CUDA context with a VRAM test
 * and our own FP16/FP32 matmul per GPU (no cuBLASLt in the process, so no driver.compat), no
 * bandwidth sweep, no collective, no GPUDirect RDMA readiness (a multi-node matter, not every
 * job's); standard is the whole catalog with short GPU tests; extended runs the GPU tests at
 * benchmark length. */
#include "run/levels.h"

#include "checks/checks.h"
#include "gpuverify/gv_report.h"

static const gv_level_def levels[] = {
    [GV_LEVEL_STANDARD] = {.name = "standard", .budget_s = 180.0, .runs_from = GV_FROM_STANDARD},
    [GV_LEVEL_QUICK] = {.name = "quick", .budget_s = 30.0, .runs_from = GV_FROM_QUICK},
    [GV_LEVEL_EXTENDED] = {.name = "extended",
                           .budget_s = 900.0,
                           .runs_from = GV_FROM_EXTENDED,
                           .benchmark = 1},
};

const gv_level_def *gv_level_def_of(int32_t level)
{
    return level >= 0 && level < (int32_t)(sizeof levels / sizeof *levels) ? &levels[level] : NULL;
}

const char *gv_level_name(int32_t level)
{
    const gv_level_def *d = gv_level_def_of(level);
    return d ? d->name : "unknown";
}
