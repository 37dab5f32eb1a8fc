/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's protocol without a worker: its command line both ways, and gv_run's reading of
 * a stream (gv_worker_replay) that ends well, stops short, garbles or reports an error. The
 * real worker, its deadlines and crashes are tests/faults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "core/context.h"
#include "helpers.h"
#include "run/run_worker.h"
#include "run/worker_args.h"
#include "worker/protocol.h"
#include "worker/worker.h"

static gv_ctx *offline_ctx(void)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.live_libraries = 0;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    return ctx;
}

static void command_line_round_trip(void **state)
{
    (void)state;
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = fixture("sysroots/h100-open");
    co.library_dir = fakelib();
    co.nccl_library = "/opt/nccl/libnccl.so.2";
    co.deadline_s = 7.5;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_policy p = GV_POLICY_INIT;
    p.gpu_count = 4;
    p.busy = GV_BUSY_WARN;
    p.gemm_min_tflops[GV_DTYPE_BF16] = 612.5;
    snprintf(p.xids, sizeof p.xids, "48,79");
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.level = GV_LEVEL_EXTENDED;
    ro.gemm_size = 1024;
    ro.copy_bytes = 3ull << 20;
    ro.nccl_bytes = 1ull << 30;
    ro.gpus = "0,2";
    char xml[4096]; /* a file the run can read: gv_run refuses one it cannot */
    snprintf(xml, sizeof xml, "%s/hwloc/xml/24em64t-2n6c2t-pci.xml",
             getenv("GV_TEST_SOURCE_FIXTURES"));
    ro.topology_xml = xml;
    ro.policy = &p;
    ro.checks = "driver,gemm.bf16";
    gv_run_plan plan;
    assert_int_equal(gv_run_plan_make(ctx, &ro, &plan), GV_OK);
    plan.lanes = 1;
    plan.standby = 1;
    plan.await_cuda = 1;
    plan.without[GV_LIB_CUDA] = "its start crashed gpuverify-worker earlier in this run";
    plan.without_nvml_gpus = "3,5";
    char **argv = gv_worker_argv(ctx, &plan, plan.chosen, 42.0, "/x/gpuverify-worker");
    assert_non_null(argv);
    int argc = 0;
    while (argv[argc])
        argc++;
    gv_worker_args a;
    char why[256];
    assert_int_equal(gv_worker_args_parse(argc, argv, &a, why, sizeof why), GV_OK);
    assert_string_equal(a.ctx.sysroot, ctx->sysroot);
    assert_string_equal(a.ctx.library_dir, fakelib());
    assert_string_equal(a.ctx.nccl_library, "/opt/nccl/libnccl.so.2");
    assert_true(a.ctx.deadline_s == 7.5);
    assert_int_equal(a.ctx.live_libraries, 1);
    assert_int_equal(a.run.level, GV_LEVEL_EXTENDED);
    assert_true(a.run.budget_s == 42.0);
    assert_int_equal(a.run.gemm_size, 1024);
    assert_true(a.run.copy_bytes == 3ull << 20 && a.run.nccl_bytes == 1ull << 30);
    assert_string_equal(a.run.gpus, "0,2");
    assert_string_equal(a.run.topology_xml, xml);
    assert_int_equal(a.run.isolation, GV_ISOLATION_NONE); /* the worker is the isolation */
    assert_int_equal(a.lanes, 1);
    assert_int_equal(a.standby, 1);
    assert_int_equal(a.await_cuda, 1);
    assert_string_equal(a.without[GV_LIB_CUDA], plan.without[GV_LIB_CUDA]);
    assert_null(a.without[GV_LIB_NVML]);
    assert_string_equal(a.without_nvml_gpus, "3,5");
    assert_non_null(strstr(a.run.checks, "driver.gpu_count"));
    assert_non_null(strstr(a.run.checks, "gemm.bf16"));
    assert_null(strstr(a.run.checks, "gemm.fp16"));
    gv_policy q = GV_POLICY_INIT;
    assert_int_equal(gv_policy_parse(ctx, a.policy_text, &q), GV_OK);
    assert_int_equal(memcmp(&p, &q, sizeof p), 0);
    char *bad[] = {"w", "--level", "nine", NULL};
    assert_int_equal(gv_worker_args_parse(3, bad, &a, why, sizeof why), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "--level nine"));
    gv_worker_argv_free(argv);
    gv_ctx_destroy(ctx);
}

static gv_report *replay(gv_ctx *ctx, const char *checks, const char *stream, gv_status want)
{
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = checks;
    gv_run_plan plan;
    assert_int_equal(gv_run_plan_make(ctx, &ro, &plan), GV_OK);
    gv_report *r = NULL;
    assert_int_equal(gv_worker_replay(ctx, &plan, stream, strlen(stream), &r), want);
    return r;
}

#define ROW(id, subject, verdict)                                                                  \
    "{\"event\":\"row\",\"result\":{\"id\":\"" id "\",\"subject\":\"" subject                      \
    "\",\"verdict\":\"" verdict "\",\"message\":\"m\",\"measured\":null,\"value\":null,"           \
    "\"unit\":null,\"expected\":null,\"expected_source\":null,\"remediation\":null,"               \
    "\"duration_s\":0.5}}\n"

static void streams_that_end_well_or_not(void **state)
{
    (void)state;
    gv_ctx *ctx = offline_ctx();
    /* Ended: the rows as written, durations kept. */
    gv_report *r =
        replay(ctx, "system",
               "{\"event\":\"group\",\"check\":\"system.os\"}\n" ROW("system.os", "node", "PASS")
                   ROW("system.kernel", "node", "WARN") "{\"event\":\"end\"}\n",
               GV_OK);
    assert_int_equal(gv_report_count(r), 2);
    assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_WARN);
    assert_true(result_of(r, "system.os", "node").duration_s == 0.5);
    gv_report_free(r);
    /* Stopped short inside gemm.fp16 on gpu1: the finished row stays, the check is an ERROR
     * naming where, the rest of the run is left for a fresh worker (here: nothing). */
    r = replay(ctx, "gemm.fp16,gemm.bf16",
               "{\"event\":\"group\",\"check\":\"gemm.fp16\"}\n" ROW(
                   "gemm.fp16", "gpu0",
                   "PASS") "{\"event\":\"begin\",\"check\":\"gemm.fp16\",\"subject\":\"gpu1\"}\n"
                           "{\"event\":\"stage\",\"stage\":\"cuBLASLt: warm-up\"}\n",
               GV_OK);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu0"), GV_PASS);
    gv_check_result died = result_of(r, "gemm.fp16", "gpu1");
    assert_int_equal(died.verdict, GV_ERROR);
    assert_non_null(strstr(died.message, "during gemm.fp16 on gpu1, in cuBLASLt: warm-up"));
    assert_int_equal(verdict_of(r, "gemm.bf16", "node"), GV_SKIP);
    gv_report_free(r);
    /* Garbled: an ERROR quoting it, nothing after it trusted. */
    r = replay(ctx, "system",
               ROW("system.os", "node", "PASS") "Segmentation fault\n" ROW(
                   "system.kernel", "node", "PASS") "{\"event\":\"end\"}\n",
               GV_OK);
    assert_int_equal(verdict_of(r, "system.os", "node"), GV_PASS);
    assert_non_null(strstr(result_of(r, "driver.nvml", "node").message, "Segmentation fault"));
    assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_SKIP);
    assert_int_equal(count_verdict(r, GV_PASS), 1);
    gv_report_free(r);
    /* The worker could not make the run: its status and message reach the caller. */
    r = replay(ctx, "system",
               "{\"event\":\"error\",\"status\":-1,\"message\":\"no check matches 'x'\"}\n",
               GV_ERR_INVALID_ARG);
    assert_null(r);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "no check matches 'x'"));
    gv_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(command_line_round_trip),
                                       cmocka_unit_test(streams_that_end_well_or_not)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
