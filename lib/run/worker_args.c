/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's command line for a run, written by gv_run and read by gpuverify-worker, and the
 * calls the worker knows by name. */
#include "run/worker_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/policy.h"

/* The flag naming library k as one the worker is not to load (gv_run_plan.without):
 * "--without-cuda" beside the context's "--cuda-library". */
static const char *without_flag(int k, char *out, size_t cap)
{
    const char *name = gv_worker_library_flags[k] + 2;
    snprintf(out, cap, "--without-%.*s", (int)strcspn(name, "-"), name);
    return out;
}

char **gv_worker_argv(const gv_ctx *ctx, const gv_run_plan *plan, const int *pending,
                      double budget_s, const char *path)
{
    gv_argv a = {0};
    gv_argv_add_context(&a, ctx, path);
    const gv_run_opts *o = &plan->opts;
    gv_argv_add_number(&a, "--level", "%.0f", o->level);
    /* The worker's plan adds the watch to its budget again, as the caller's did. */
    int watch = o->watch_s > 0 && pending[gv_catalog_index(gv_id_gpu_xid)];
    if (watch)
        budget_s = budget_s - o->watch_s > 0.001 ? budget_s - o->watch_s : 0.001;
    gv_argv_add_number(&a, "--budget", "%.17g", budget_s);
    char *checks = calloc(gv_check_count, 48);
    if (!checks)
        a.failed = 1;
    for (size_t i = 0; checks && i < gv_check_count; i++)
        if (pending[i]) {
            if (checks[0])
                strcat(checks, ",");
            strcat(checks, gv_checks[i].id);
        }
    /* None pending: a worker for the node's facts alone (a run of history.* alone records the
     * node and its GPUs). An empty list would mean "the level's checks"; history.record
     * selects one the worker leaves to its caller, which judges the history. */
    gv_argv_add(&a, "--checks", checks && checks[0] ? checks : gv_id_history_record);
    free(checks);
    if (o->gemm_size)
        gv_argv_add_number(&a, "--gemm-size", "%.0f", o->gemm_size);
    if (o->copy_bytes)
        gv_argv_add_number(&a, "--copy-bytes", "%.0f", (double)o->copy_bytes);
    if (o->nccl_bytes)
        gv_argv_add_number(&a, "--nccl-bytes", "%.0f", (double)o->nccl_bytes);
    if (o->duration_s > 0)
        gv_argv_add_number(&a, "--duration", "%.17g", o->duration_s);
    if (watch)
        gv_argv_add_number(&a, "--watch", "%.17g", o->watch_s);
    if (o->gpus)
        gv_argv_add(&a, "--gpus", o->gpus);
    if (plan->lanes)
        gv_argv_add(&a, "--lanes", "1");
    if (plan->standby)
        gv_argv_add(&a, "--standby", "1");
    if (plan->await_cuda)
        gv_argv_add(&a, "--await-cuda", "1");
    char flag[48];
    for (int k = 0; k < GV_LIBRARY_KINDS; k++)
        if (plan->without[k])
            gv_argv_add(&a, without_flag(k, flag, sizeof flag), plan->without[k]);
    if (plan->without_nvml_gpus)
        gv_argv_add(&a, "--without-nvml-gpus", plan->without_nvml_gpus);
    if (o->topology_xml)
        gv_argv_add(&a, "--topology-xml", o->topology_xml);
    if (o->policy) {
        char text[2048];
        if (gv_policy_format(o->policy, text, sizeof text) != 0)
            a.failed = 1;
        gv_argv_add(&a, "--policy", text);
    }
    return gv_argv_finish(&a);
}

const gv_call_kind *gv_call_kind_named(const char *name)
{
    static const gv_call_kind *const kinds[] = {
        &gv_call_cuda_check,  &gv_call_mem_test,    &gv_call_gemm_bench,
        &gv_call_stress_gemm, &gv_call_cudnn_check, &gv_call_nccl,
        &gv_call_topology,    &gv_call_rdma_status, &gv_call_library_status};
    for (size_t i = 0; name && i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(kinds[i]->name, name))
            return kinds[i];
    return NULL;
}

/* The call named by --call, its arguments from --args' hex. */
static gv_status take_call(gv_worker_args *out, const char *name, const char *hex, char *why,
                           size_t cap)
{
    out->call = gv_call_kind_named(name);
    if (!out->call || !hex) {
        snprintf(why, cap, "gpuverify-worker: %s",
                 !out->call ? "--call names no call" : "--call without --args");
        return GV_ERR_INVALID_ARG;
    }
    out->call_args = malloc(out->call->args_size);
    if (!out->call_args || gv_worker_hex_get(hex, out->call_args, out->call->args_size) != 0) {
        free(out->call_args);
        out->call_args = NULL;
        snprintf(why, cap, "gpuverify-worker: --args is not %s's arguments", name);
        return GV_ERR_INVALID_ARG;
    }
    return GV_OK;
}

static int number(const char *text, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

gv_status gv_worker_args_parse(int argc, char **argv, gv_worker_args *out, char *why, size_t cap)
{
    static const gv_ctx_opts ctx_defaults = GV_CTX_OPTS_INIT;
    static const gv_run_opts run_defaults = GV_RUN_OPTS_INIT;
    static const gv_policy policy_defaults = GV_POLICY_INIT;
    out->ctx = ctx_defaults;
    out->run = run_defaults;
    out->run.isolation = GV_ISOLATION_NONE; /* the worker is the isolation */
    out->policy = policy_defaults;
    out->has_policy = 0;
    out->lanes = 0;
    out->standby = out->await_cuda = 0;
    memset(out->without, 0, sizeof out->without);
    out->without_nvml_gpus = NULL;
    out->policy_text = NULL;
    out->call = NULL;
    out->call_args = NULL;
    const char *call = NULL, *call_hex = NULL;
    const char **library[GV_LIBRARY_KINDS] = {
        &out->ctx.cuda_library,  &out->ctx.nvml_library, &out->ctx.cublaslt_library,
        &out->ctx.cudnn_library, &out->ctx.nccl_library, &out->ctx.ibverbs_library};
    for (int i = 1; i < argc; i += 2) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        double d = 0;
        int bad = !value;
        if (bad)
            ;
        else if (!strcmp(flag, "--sysroot"))
            out->ctx.sysroot = value;
        else if (!strcmp(flag, "--library-dir"))
            out->ctx.library_dir = value;
        else if (!strcmp(flag, "--node-name"))
            out->ctx.node_name = value;
        else if (!strcmp(flag, "--live"))
            out->ctx.live_libraries = !strcmp(value, "1");
        else if (!strcmp(flag, "--deadline"))
            bad = number(value, 0, 86400, &out->ctx.deadline_s);
        else if (!strcmp(flag, "--level"))
            bad = number(value, 0, 16, &d), out->run.level = (int32_t)d;
        else if (!strcmp(flag, "--budget"))
            bad = number(value, 0, 86400, &out->run.budget_s);
        else if (!strcmp(flag, "--checks"))
            out->run.checks = value;
        else if (!strcmp(flag, "--gemm-size"))
            bad = number(value, 0, 65536, &d), out->run.gemm_size = (uint32_t)d;
        else if (!strcmp(flag, "--copy-bytes"))
            bad = number(value, 0, 1e13, &d), out->run.copy_bytes = (uint64_t)d;
        else if (!strcmp(flag, "--nccl-bytes"))
            bad = number(value, 0, 1e12, &d), out->run.nccl_bytes = (uint64_t)d;
        else if (!strcmp(flag, "--duration"))
            bad = number(value, 0, 7 * 86400.0, &out->run.duration_s);
        else if (!strcmp(flag, "--watch"))
            bad = number(value, 0, 86400.0, &out->run.watch_s);
        else if (!strcmp(flag, "--gpus"))
            out->run.gpus = value;
        else if (!strcmp(flag, "--lanes"))
            out->lanes = !strcmp(value, "1");
        else if (!strcmp(flag, "--standby"))
            out->standby = !strcmp(value, "1");
        else if (!strcmp(flag, "--await-cuda"))
            out->await_cuda = !strcmp(value, "1");
        else if (!strcmp(flag, "--without-nvml-gpus"))
            out->without_nvml_gpus = value;
        else if (!strcmp(flag, "--topology-xml"))
            out->run.topology_xml = value;
        else if (!strcmp(flag, "--policy"))
            out->policy_text = value, out->has_policy = 1;
        else if (!strcmp(flag, "--call"))
            call = value;
        else if (!strcmp(flag, "--args"))
            call_hex = value;
        else {
            bad = 1;
            char without[48];
            for (int k = 0; k < GV_LIBRARY_KINDS; k++)
                if (!strcmp(flag, gv_worker_library_flags[k]))
                    *library[k] = value, bad = 0;
                else if (!strcmp(flag, without_flag(k, without, sizeof without)))
                    out->without[k] = value, bad = 0;
        }
        if (bad) {
            snprintf(why, cap, "gpuverify-worker: bad argument %s %s", flag, value ? value : "");
            return GV_ERR_INVALID_ARG;
        }
    }
    return call || call_hex ? take_call(out, call, call_hex, why, cap) : GV_OK;
}
