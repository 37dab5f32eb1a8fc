/* The run levels. quick fits a Slurm prolog: files, libraries, a CUDA context with a VRAM test
 * and our own FP16/FP32 matmul per GPU (no cuBLASLt in the process, so no driver.compat), no
 * bandwidth sweep, no collective, no GPUDirect RDMA readiness (a multi-node matter, not every
 * job's); standard is the whole catalog with short GPU tests; extended runs the GPU tests at
 * benchmark length. */
#include "run/levels.h"

#include "gpuverify/gv_report.h"

static const gv_level_def levels[] = {
    [GV_LEVEL_STANDARD] = {"standard", 180.0, "^stress", 0},
    [GV_LEVEL_QUICK] =
        {"quick", 30.0,
         "system,driver,^driver.compat,gpu,topo,rdma,cuda.init,cuda.alloc,cuda.matmul,"
         "cudnn.version,nccl.version",
         0},
    [GV_LEVEL_EXTENDED] = {"extended", 900.0, NULL, 1},
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
