/* SPDX-License-Identifier: Apache-2.0 */
/* gv_check_driver and gv_gpu_info: the node's inventory (driver, NVML, CUDA, the GPUs). Where
 * the calls run in gpuverify-worker (worker/call.h), the facts are gathered there as gv_run's
 * are, within driver.nvml's and driver.cuda's deadlines, and only the summary comes back: a
 * hang in nvmlInit or cuInit is this call's GV_ERR_TIMEOUT, and the caller never loads NVML or
 * libcuda. */
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "facts/facts.h"
#include "run/run.h"
#include "core/context.h"
#include "core/sizes.h"
#include "report/report.h"
#include "worker/call.h"
#include "run/run_worker.h"
#include "worker/worker.h"

void gv_ctx_keep_inventory(gv_ctx *ctx, const gv_report *report)
{
    gv_gpu *gpus = report->gpu_count ? malloc(report->gpu_count * sizeof *gpus) : NULL;
    gv_ctx_drop_facts(ctx);
    if (report->gpu_count && !gpus)
        return; /* out of memory: gv_gpu_info gathers again */
    if (gpus)
        memcpy(gpus, report->gpus, report->gpu_count * sizeof *gpus);
    ctx->inventory = gpus;
    ctx->inventory_count = report->gpu_count;
    ctx->has_inventory = 1;
    ctx->drop_facts = gv_ctx_drop_facts;
}

/* The facts gv_run gathers first, in a worker of their own: the report of driver.nvml and
 * driver.cuda, whose rows say why when the worker never got as far as the facts. */
static gv_status gather_in_worker(gv_ctx *ctx, const char *worker, gv_driver_info *driver)
{
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "driver.nvml,driver.cuda";
    o.isolation = GV_ISOLATION_PROCESS;
    gv_run_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory gathering the inventory");
    gv_report *r = NULL;
    gv_status s = gv_run_plan_make(ctx, &o, plan);
    plan->inventory = 1;
    if (s == GV_OK)
        s = gv_worker_run(ctx, plan, worker, &r);
    free(plan);
    if (s != GV_OK)
        return s;
    if (!r->facts_known) {
        /* The client's own row for the check the worker was in: FAIL when it timed out, ERROR
         * when the worker died or broke its protocol. */
        const gv_check_result *why = r->count ? &r->results[0] : NULL;
        s = why && why->verdict == GV_FAIL ? GV_ERR_TIMEOUT : GV_ERR_DRIVER;
        gv_fail(ctx, s, "gathering the inventory in gpuverify-worker: %s",
                why ? why->message : "the worker ended without a word");
    } else {
        gv_ctx_keep_inventory(ctx, r);
        *driver = r->driver;
    }
    gv_report_free(r);
    return s;
}

/* The inventory, wherever the context says calls run; *driver its summary. */
static gv_status gather(gv_ctx *ctx, gv_driver_info *driver)
{
    gv_worker_place where;
    if (gv_call_isolated(ctx, &where))
        return gather_in_worker(ctx, where.path, driver);
    gv_facts *f;
    gv_status s = gv_refresh_facts(ctx, GV_FACTS_CUDA, &f);
    if (s == GV_OK)
        gv_facts_driver_info(f, driver);
    return s;
}

gv_status gv_check_driver(gv_ctx *ctx, gv_driver_info *out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_check_driver: out is NULL");
    if (out->struct_size < GV_DRIVER_INFO_SIZE_V1)
        return gv_fail(ctx, GV_ERR_VERSION, "gv_driver_info.struct_size %u < %zu",
                       (unsigned)out->struct_size, (size_t)GV_DRIVER_INFO_SIZE_V1);
    gv_driver_info d;
    gv_status s = gather(ctx, &d);
    if (s != GV_OK)
        return s;
    s = gv_copy_out(out, &d, sizeof d, GV_DRIVER_INFO_SIZE_V1);
    return s == GV_OK ? GV_OK : gv_fail(ctx, s, "gv_driver_info.struct_size is not valid");
}

gv_status gv_gpu_info(gv_ctx *ctx, uint32_t index, gv_gpu *out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_gpu_info: out is NULL");
    if (out->struct_size < GV_GPU_SIZE_V1)
        return gv_fail(ctx, GV_ERR_VERSION, "gv_gpu.struct_size %u < %zu",
                       (unsigned)out->struct_size, (size_t)GV_GPU_SIZE_V1);
    gv_driver_info ignored;
    if (!ctx->facts && !ctx->has_inventory) {
        gv_status s = gather(ctx, &ignored);
        if (s != GV_OK)
            return s;
    }
    size_t count = ctx->facts ? ctx->facts->gpu_count : ctx->inventory_count;
    if (index >= count)
        return gv_fail(ctx, GV_ERR_NOT_FOUND, "GPU index %u: the inventory has %zu GPU(s)",
                       (unsigned)index, count);
    const gv_gpu *gpu = ctx->facts ? &ctx->facts->gpus[index].gpu : &ctx->inventory[index];
    return gv_copy_out(out, gpu, sizeof *gpu, GV_GPU_SIZE_V1);
}
