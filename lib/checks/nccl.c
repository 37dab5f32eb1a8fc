/* nccl.version and nccl.allreduce: NCCL loads and says its version, and an all-reduce over the
 * run's GPUs from one process returns exact sums. gv_run keeps the sweep short (1 to 256 MiB,
 * four-fold steps; to 4 GiB at the extended level); gv_nccl_bench gives full control. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/libraries.h"
#include "checks/active.h"
#include "checks/busy.h"
#include "checks/checks.h"
#include "compute/compute.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "gpuverify/gv_policy.h"
#include "gpuverify/gv_nccl.h"

static void version_row(gv_active_run *run)
{
    gv_compat c;
    gv_compat_check(run->ctx, GV_LIB_NCCL, &c);
    if (c.verdict == GV_SKIP && c.version[0])
        c.verdict = GV_PASS; /* it loads; only its CUDA version is unknown */
    gv_check_result *res =
        gv_report_add(run->report, "nccl.version", "node", c.verdict, "%s", c.message);
    if (c.version[0])
        gv_result_measured(res, NAN, "", "%s", c.version);
    if (c.verdict == GV_FAIL)
        gv_result_remedy(res,
                         "install a driver that supports CUDA %d.%d, or an NCCL built for "
                         "CUDA %d.%d",
                         c.library_cuda / 1000, c.library_cuda % 1000 / 10, c.driver_cuda / 1000,
                         c.driver_cuda % 1000 / 10);
}

static void allreduce_row(gv_active_run *run)
{
    const gv_facts *f = run->facts;
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    for (int gpu = 0; gpu < f->cuda_count && gpu < GV_NCCL_MAX_GPUS; gpu++)
        if (gv_active_gpu_chosen(run, gpu))
            o.gpus[o.gpu_count++] = (uint32_t)gpu;
    if (o.gpu_count < 2) {
        gv_report_add(run->report, "nccl.allreduce", "node", GV_SKIP,
                      "%u GPU(s) to test (CUDA sees %d): an all-reduce inside the node needs two "
                      "or more",
                      (unsigned)o.gpu_count, f->cuda_count);
        return;
    }
    /* Short: 1 to 256 MiB by four-fold steps; extended: to 4 GiB doubling, where peaks are. */
    o.max_bytes = run->nccl_bytes ? run->nccl_bytes : run->benchmark ? 4ull << 30 : 256ull << 20;
    o.min_bytes = o.max_bytes < (1ull << 20) ? o.max_bytes : 1ull << 20;
    o.step_factor = run->benchmark ? 2 : 4;
    /* The deadline is what remains of the run's budget (at least a second). */
    double left = run->budget_end - gv_now_s();
    o.deadline_s = left > 1 ? left : 1;
    /* gv_run in the caller's process (GV_ISOLATION_NONE, or no worker found) keeps NCCL there
     * too; in the worker the sweep runs in place with blocking communicators. */
    if (!run->ctx->in_worker)
        o.flags |= GV_NCCL_IN_PROCESS;
    const gv_policy *p = run->policy;
    if (p && p->nccl_min_busbw_gbps > 0)
        o.min_busbw_gbps = p->nccl_min_busbw_gbps;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_status st = GV_OK;
    gv_progress_begin(run->ctx, "nccl.allreduce", "node");
    gv_busy busy = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < o.gpu_count; i++)
            for (size_t k = 0; k < f->gpu_count; k++)
                if (f->gpus[k].gpu.cuda_index == (int32_t)o.gpus[i])
                    gv_busy_sample(run->ctx, &f->gpus[k], &busy);
        if (pass == 0)
            st = gv_nccl_bench(run->ctx, &o, &r);
    }
    if (st != GV_OK && st != GV_ERR_TIMEOUT) {
        /* Without NCCL there is nothing to judge; any other error is the check failing. */
        gv_report_add(run->report, "nccl.allreduce", "node",
                      st == GV_ERR_LIBRARY ? GV_SKIP : GV_ERROR, "%s", gv_ctx_last_error(run->ctx));
        return;
    }
    gv_check_result *c =
        gv_report_add(run->report, "nccl.allreduce", "node", r.verdict, "%s", r.message);
    if (r.size_count)
        gv_result_measured(c, r.peak_busbw_gbps, "GB/s", "busbw %.1f GB/s at %llu MiB",
                           r.peak_busbw_gbps, (unsigned long long)(r.peak_bytes >> 20));
    if (o.min_busbw_gbps > 0)
        gv_result_expected(c, "policy", ">= %.1f GB/s busbw", o.min_busbw_gbps);
    if (r.wrong_elements)
        gv_result_remedy(c, "drain the node: a GPU or NVLink/PCIe path corrupts data; run "
                            "nccl-tests per GPU pair and the vendor diagnostics to find it");
    else if (st == GV_ERR_TIMEOUT)
        gv_result_remedy(c, "check NVLink/NVSwitch state (nvidia-smi nvlink -s, fabric manager) "
                            "and NCCL_DEBUG=INFO output for the transport that hangs");
    if (st == GV_OK)
        gv_busy_apply(&busy, p, c, r.wrong_elements != 0);
}

void gv_active_nccl(gv_active_run *run)
{
    if (gv_active_selected(run, "nccl.version"))
        version_row(run);
    if (gv_active_selected(run, "nccl.allreduce"))
        allreduce_row(run);
}
