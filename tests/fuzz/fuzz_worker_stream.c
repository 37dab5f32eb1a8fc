/* libFuzzer: the caller's reader of gpuverify-worker's output (gv_worker_replay), as if a
 * worker had written these bytes and exited. Whatever it wrote, the report must render and
 * every planned check must have a row or a reason. */
#include <stdint.h>
#include <stdlib.h>

#include "checks/run.h"
#include "core/context.h"
#include "worker/worker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gv_ctx *ctx;
    static gv_run_plan plan;
    if (!ctx) {
        gv_ctx_opts o = GV_CTX_OPTS_INIT;
        o.live_libraries = 0;
        gv_run_opts ro = GV_RUN_OPTS_INIT;
        ro.checks = "system,driver,gemm.fp16,nccl";
        if (gv_ctx_create(&o, &ctx) != GV_OK || gv_run_plan_make(ctx, &ro, &plan) != GV_OK)
            abort();
    }
    gv_report *r = NULL;
    if (gv_worker_replay(ctx, &plan, (const char *)data, size, &r) == GV_OK) {
        char *json = NULL;
        if (gv_report_json(r, 0, &json) != GV_OK)
            abort();
        gv_free(json);
        gv_report_free(r);
    }
    return 0;
}
