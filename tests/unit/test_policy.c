/* SPDX-License-Identifier: Apache-2.0 */
/* Policies (parse, load, the expectations the checks take from them), run levels, budgets and
 * GPU selection, over the fixtures and fakes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static gv_report *run_with(const char *sysroot, const char *scenario, gv_run_opts *o)
{
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

static void parse_fills_every_key_and_refuses_bad_lines(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_policy p = GV_POLICY_INIT;
    assert_int_equal(gv_policy_parse(ctx,
                                     "# site policy\n"
                                     "gpu_count = 8\n"
                                     "gpu_model = H100   # any H100\n"
                                     "require_rdma = yes\n"
                                     "kernel_min = 6.8\n"
                                     "gemm_warn_fraction = 0.7\n"
                                     "gemm_fail_fraction = 0.5\n"
                                     "gemm_min_tflops.fp16 = 600\n"
                                     "gemm_min_tflops.fp8 = 1200\n"
                                     "copy_min_gbps = 40\n"
                                     "nccl_min_busbw_gbps = 350\n",
                                     &p),
                     GV_OK);
    assert_int_equal(p.gpu_count, 8);
    assert_string_equal(p.gpu_model, "H100");
    assert_int_equal(p.require_rdma, 1);
    assert_string_equal(p.kernel_min, "6.8");
    assert_true(p.gemm_warn_fraction == 0.7 && p.gemm_fail_fraction == 0.5);
    assert_true(p.gemm_min_tflops[GV_DTYPE_FP16] == 600);
    assert_true(p.gemm_min_tflops[GV_DTYPE_FP8_E4M3] == 1200);
    assert_true(p.gemm_min_tflops[GV_DTYPE_FP32] == 0);
    assert_true(p.copy_min_gbps == 40 && p.nccl_min_busbw_gbps == 350);

    static const char *const bad[] = {
        "gpu_count = eight\n",      "gpu_count = -1\n",
        "color = blue\n",           "gpu_model\n",
        "kernel_min = six\n",       "gemm_min_tflops.fp64 = 1\n",
        "copy_min_gbps = -3\n",     "require_rdma = maybe\n",
        "gemm_warn_fraction = 2\n", "gemm_warn_fraction = 0.5\ngemm_fail_fraction = 0.6\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gv_policy before = p;
        assert_int_equal(gv_policy_parse(ctx, bad[i], &p), GV_ERR_PARSE);
        assert_memory_equal(&before, &p, sizeof p); /* nothing changed */
        assert_non_null(strstr(gv_ctx_last_error(ctx), "policy"));
        /* Whoever wrote the file is sent to the keys' documentation, not to a C header. */
        assert_non_null(strstr(gv_ctx_last_error(ctx), "docs/checks.md#policy"));
        assert_null(strstr(gv_ctx_last_error(ctx), "gv_policy.h"));
    }
    assert_int_equal(gv_policy_parse(ctx, "color = blue\n", &p), GV_ERR_PARSE);
    assert_string_equal(gv_ctx_last_error(ctx), "policy line 1: unknown key 'color' (the keys and "
                                                "their values: docs/checks.md#policy)");
    assert_int_equal(gv_policy_parse(ctx, "gpu_count = 8\nwhat\n", &p), GV_ERR_PARSE);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "line 2"));
    gv_policy small = {.struct_size = 8};
    assert_int_equal(gv_policy_parse(ctx, "", &small), GV_ERR_VERSION);
    /* Garbage (an uninitialised struct) and a size that ends inside a field are refused, and
     * the struct is left as it was. */
    const uint32_t refused[] = {0xFFFFFFFFu, 65537u, (uint32_t)sizeof(gv_policy) - 3};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        gv_policy odd = GV_POLICY_INIT;
        odd.struct_size = refused[i];
        assert_int_equal(gv_policy_parse(ctx, "gpu_count = 8\n", &odd), GV_ERR_INVALID_ARG);
        assert_int_equal(odd.gpu_count, -1);
    }
    assert_int_equal(gv_policy_parse(ctx, NULL, &p), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_policy_parse(NULL, "", &p), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
}

static void load_reads_a_file_and_names_it_in_errors(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    char *root = temp_root();
    put_file(root, "/good.conf", "gpu_model = H100\n");
    put_file(root, "/bad.conf", "gpu_model = H100\nnccl_min_busbw_gbps = fast\n");
    char path[4096];
    gv_policy p = GV_POLICY_INIT;
    snprintf(path, sizeof path, "%s/good.conf", root);
    assert_int_equal(gv_policy_load(ctx, path, &p), GV_OK);
    assert_string_equal(p.gpu_model, "H100");
    snprintf(path, sizeof path, "%s/bad.conf", root);
    assert_int_equal(gv_policy_load(ctx, path, &p), GV_ERR_PARSE);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "bad.conf: policy line 2"));
    snprintf(path, sizeof path, "%s/missing.conf", root);
    assert_int_equal(gv_policy_load(ctx, path, &p), GV_ERR_IO);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "missing.conf"));
    /* A FIFO or a directory in place of the file: refused at once, the policy unchanged. */
    snprintf(path, sizeof path, "%s/fifo.conf", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(gv_policy_load(ctx, path, &p), GV_ERR_IO);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "fifo.conf: not a regular file"));
    assert_int_equal(gv_policy_load(ctx, root, &p), GV_ERR_IO);
    assert_string_equal(p.gpu_model, "H100");
    /* A NUL byte: what follows it is never read as settings, and none of the file is taken. */
    snprintf(path, sizeof path, "%s/nul.conf", root);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    static const char nul_text[] = "gpu_count = 2\n\0\ngpu_count = 9\n";
    assert_int_equal(fwrite(nul_text, 1, sizeof nul_text - 1, f), sizeof nul_text - 1);
    fclose(f);
    assert_int_equal(gv_policy_load(ctx, path, &p), GV_ERR_PARSE);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "nul.conf: a NUL byte at offset 14: not text"));
    assert_int_equal(p.gpu_count, -1);
    remove_tree(root);
    free(root);
    gv_ctx_destroy(ctx);
}

/* A policy set field by field is held to what its text could say, in a worker or not: the run
 * is refused, naming the field, where the text would not parse. */
static void a_policy_set_by_fields_is_checked(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    static const int32_t isolations[] = {GV_ISOLATION_AUTO, GV_ISOLATION_NONE};
    for (size_t k = 0; k < 2; k++) {
        gv_policy p = GV_POLICY_INIT;
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.checks = "driver.gpu_count";
        o.isolation = isolations[k];
        o.policy = &p;
        gv_report *r = NULL;
        p.gpu_count = 5000;
        assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
        assert_non_null(strstr(gv_ctx_last_error(ctx), "gpu_count wants a whole number"));
        p.gpu_count = -5; /* -1 is unset; another negative count is no count */
        assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
        p.gpu_count = 8;
        p.temp_margin_warn_c = NAN;
        assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
        assert_non_null(strstr(gv_ctx_last_error(ctx), "temp_margin_warn_c"));
        p.temp_margin_warn_c = 5;
        snprintf(p.gpu_model, sizeof p.gpu_model, "H100\ngpu_count = 2");
        assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
        assert_non_null(strstr(gv_ctx_last_error(ctx), "gv_policy.gpu_model"));
        snprintf(p.gpu_model, sizeof p.gpu_model, "H100");
        p.require_rdma = 1;
        assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
        assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_PASS);
        gv_report_free(r);
    }
    gv_ctx_destroy(ctx);
}

static void checks_take_their_expectations_from_the_policy(void **state)
{
    (void)state;
    gv_policy p = GV_POLICY_INIT;
    p.gpu_count = 4;
    snprintf(p.gpu_model, sizeof p.gpu_model, "h100"); /* case does not matter */
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "driver.gpu_count,gpu.model";
    o.policy = &p;
    gv_report *r = run_with("h100-open", "h100x8", &o);
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_string_equal(c.expected_source, "policy");
    assert_non_null(strstr(c.message, "8 GPU(s) where the policy expects 4"));
    gv_check_result m = result_of(r, "gpu.model", "gpu3");
    assert_int_equal(m.verdict, GV_PASS);
    assert_string_equal(m.expected_source, "policy");
    gv_report_free(r);

    snprintf(p.gpu_model, sizeof p.gpu_model, "A100");
    p.gpu_count = 8;
    r = run_with("h100-open", "h100x8", &o);
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_PASS);
    assert_int_equal(verdict_of(r, "gpu.model", "gpu0"), GV_FAIL);
    gv_report_free(r);

    /* Without a policy: every GPU like the node's first. */
    o.policy = NULL;
    r = run_with("h100-open", "h100x8", &o);
    gv_check_result same = result_of(r, "gpu.model", "gpu7");
    assert_int_equal(same.verdict, GV_PASS);
    assert_string_equal(same.expected_source, "node");
    assert_string_equal(result_of(r, "driver.gpu_count", "node").expected_source, "");
    gv_report_free(r);

    /* GEMM floor, copy floor, NCCL floor on the fakes (700 TFLOPS, 50 GB/s). */
    gv_policy q = GV_POLICY_INIT;
    q.gemm_min_tflops[GV_DTYPE_FP16] = 800;
    q.copy_min_gbps = 60;
    q.nccl_min_busbw_gbps = 1e6;
    o = (gv_run_opts)GV_RUN_OPTS_INIT;
    o.checks = "gemm.fp16,cuda.copy";
    o.gemm_size = 32;
    o.copy_bytes = 1 << 20;
    o.policy = &q;
    r = run_with("h100-open", "h100x1-compute", &o);
    gv_check_result g = result_of(r, "gemm.fp16", "gpu0");
    assert_int_equal(g.verdict, GV_FAIL);
    assert_string_equal(g.expected_source, "policy");
    assert_non_null(strstr(g.message, "below the policy's floor"));
    gv_check_result cp = result_of(r, "cuda.copy", "gpu0");
    assert_int_equal(cp.verdict, GV_FAIL);
    assert_string_equal(cp.expected, ">= 60.0 GB/s");
    gv_report_free(r);
    q.gemm_min_tflops[GV_DTYPE_FP16] = 600;
    q.copy_min_gbps = 10;
    r = run_with("h100-open", "h100x1-compute", &o);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(r, "cuda.copy", "gpu0"), GV_PASS);
    gv_report_free(r);
    o.checks = "nccl.allreduce";
    o.nccl_bytes = 64 << 10;
    r = run_with("h100-open", "h100x8", &o);
    gv_check_result n = result_of(r, "nccl.allreduce", "node");
    assert_int_equal(n.verdict, GV_FAIL);
    assert_string_equal(n.expected_source, "policy");
    gv_report_free(r);
}

static void rdma_and_kernel_expectations(void **state)
{
    (void)state;
    gv_policy p = GV_POLICY_INIT;
    p.require_rdma = 1;
    snprintf(p.kernel_min, sizeof p.kernel_min, "6.10");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma.devices,gpudirect.kernel";
    o.policy = &p;
    gv_report *r = run_with("h100-open", "h100x8", &o);
    gv_check_result d = result_of(r, "rdma.devices", "node");
    assert_int_equal(d.verdict, GV_FAIL);
    assert_string_equal(d.expected_source, "policy");
    gv_check_result k = result_of(r, "gpudirect.kernel", "node");
    assert_int_equal(k.verdict, GV_FAIL); /* the fixture runs 6.8 */
    assert_string_equal(k.expected, ">= 6.10");
    gv_report_free(r);
    /* Without require_rdma a node with no RDMA NIC is not judged on GPUDirect RDMA at all. */
    o.policy = NULL;
    r = run_with("h100-open", "h100x8", &o);
    assert_int_equal(verdict_of(r, "rdma.devices", "node"), GV_SKIP);
    gv_check_result na = result_of(r, "gpudirect.kernel", "node");
    assert_int_equal(na.verdict, GV_SKIP);
    assert_non_null(strstr(na.message, "not applicable: no RDMA NIC"));
    gv_report_free(r);
    /* With a NIC the default minimum applies. */
    r = run_with("h100-roce", "h100x8-rdma", &o);
    assert_int_equal(verdict_of(r, "gpudirect.kernel", "node"), GV_PASS);
    assert_string_equal(result_of(r, "gpudirect.kernel", "node").expected_source, "default");
    gv_report_free(r);
}

static void xids_fail_the_gpus_with_hardware_faults(void **state)
{
    (void)state;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "gpu.xid";
    gv_report *r = run_with("h100-xid", "h100x8-xid", &o);
    gv_check_result lost = result_of(r, "gpu.xid", "gpu3");
    assert_int_equal(lost.verdict, GV_FAIL);
    assert_non_null(strstr(lost.message, "1 Xid fault(s) logged since boot (codes 79, 154, 31)"));
    assert_non_null(strstr(lost.message, "GPU has fallen off the bus"));
    assert_non_null(strstr(lost.message, "the driver says the GPU needs a node reboot"));
    assert_string_equal(lost.expected_source, "default");
    gv_check_result dbe = result_of(r, "gpu.xid", "gpu4"); /* Xid 48: DBE */
    assert_int_equal(dbe.verdict, GV_FAIL);
    assert_non_null(strstr(dbe.message, "needs a GPU reset (gpu.recovery)"));
    /* Reset since its contained ECC error: the driver has nothing pending, the log keeps it. */
    gv_check_result history = result_of(r, "gpu.xid", "gpu6");
    assert_int_equal(history.verdict, GV_WARN);
    assert_non_null(strstr(history.message, "1 Xid fault(s) logged since boot (codes 94, 154)"));
    assert_non_null(strstr(history.message, "no recovery action needed for this GPU"));
    gv_check_result app = result_of(r, "gpu.xid", "gpu0");
    assert_int_equal(app.verdict, GV_PASS); /* Xid 13 is a program's */
    assert_non_null(strstr(app.message, "none a hardware fault"));
    assert_string_equal(result_of(r, "gpu.xid", "gpu7").message, "no Xid logged since boot");
    /* A row marked for remapping is the memory's repair, judged live by gpu.row_remap. */
    gv_check_result remap = result_of(r, "gpu.xid", "gpu5");
    assert_int_equal(remap.verdict, GV_PASS);
    assert_non_null(strstr(remap.message, "a row marked for remapping (63, judged by "
                                          "gpu.row_remap)"));
    gv_report_free(r);

    /* A driver that gives no recovery action cannot tell history from present: each FAILs. */
    r = run_with("h100-xid", "h100x8-no-recovery-action", &o);
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu6"), GV_FAIL);
    assert_null(strstr(result_of(r, "gpu.xid", "gpu6").message, "recovery"));
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu3"), GV_FAIL);
    gv_report_free(r);

    /* The policy decides which codes count: here only 13. */
    gv_policy p = GV_POLICY_INIT;
    gv_ctx *ctx = scenario_ctx("h100-xid", "h100x8");
    assert_int_equal(gv_policy_parse(ctx, "xids = 13\n", &p), GV_OK);
    assert_int_equal(gv_policy_parse(ctx, "xids = 13,abc\n", &p), GV_ERR_PARSE);
    gv_ctx_destroy(ctx);
    o.policy = &p;
    r = run_with("h100-xid", "h100x8-no-recovery-action", &o);
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu0"), GV_FAIL);
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu3"), GV_PASS);
    assert_string_equal(result_of(r, "gpu.xid", "gpu0").expected_source, "policy");
    gv_report_free(r);

    /* No kernel log in the tree: one node WARN saying why, to fix_config (not a SKIP, which a
     * dashboard never sees). */
    r = run_with("vm-wide-domain", "h100x8", &o);
    gv_check_result none = result_of(r, "gpu.xid", "node");
    assert_int_equal(none.verdict, GV_WARN);
    assert_int_equal(none.action, GV_ACTION_FIX_CONFIG);
    assert_non_null(
        strstr(none.message, "kernel log not read, no Xid logged before this run judged"));
    assert_non_null(strstr(none.message, "dev/kmsg"));
    gv_report_free(r);
}

static int has(const gv_report *r, const char *id)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        if (strcmp(c.id, id) == 0)
            return 1;
    }
    return 0;
}

static void levels_select_and_budgets_bound_the_run(void **state)
{
    (void)state;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.level = GV_LEVEL_QUICK;
    o.gemm_size = 32;
    o.checks = "^topo"; /* exclusions apply to the level's selection */
    gv_report *r = run_with("h100-open", "h100x1-compute", &o);
    assert_true(has(r, "driver.version") && has(r, "cuda.init") && has(r, "cuda.alloc"));
    assert_true(has(r, "cuda.matmul") && has(r, "cudnn.version") && has(r, "nccl.version"));
    assert_false(has(r, "cuda.copy") || has(r, "gemm.fp16") || has(r, "cudnn.conv"));
    assert_false(has(r, "driver.compat")); /* no cuBLASLt in a quick run */
    assert_false(has(r, "nccl.allreduce") || has(r, "topo.numa"));
    char *json = NULL;
    assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &json), GV_OK);
    assert_non_null(strstr(json, "\"level\":\"quick\",\"budget_s\":30"));
    gv_free(json);
    gv_report_free(r);

    /* An explicit list picks exactly its checks, whatever the level. */
    o.checks = "cudnn.conv";
    r = run_with("h100-open", "h100x1-compute", &o);
    assert_int_equal(gv_report_count(r), 1);
    assert_int_equal(verdict_of(r, "cudnn.conv", "gpu0"), GV_PASS);
    gv_report_free(r);

    /* A budget spent before the GPU tests: they are ERRORs saying so, and the run cannot
     * pass on what it never reached. */
    o.checks = NULL;
    o.budget_s = 1e-6;
    r = run_with("h100-open", "h100x1-compute", &o);
    gv_check_result g = result_of(r, "cuda.matmul", "gpu0"); /* the GPU's, never "node" */
    assert_int_equal(g.verdict, GV_ERROR);
    assert_int_equal(gv_report_verdict(r), GV_ERROR);
    if (!strstr(g.message, "budget of 1e-06 s was spent") &&
        !strstr(g.message, "the run's budget was spent"))
        fail_msg("cuda.matmul: %s", g.message);
    assert_false(has(r, "cuda.copy"));
    gv_report_free(r);

    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_run_opts bad = GV_RUN_OPTS_INIT;
    bad.level = 7;
    assert_int_equal(gv_run(ctx, &bad, &r), GV_ERR_INVALID_ARG);
    bad = (gv_run_opts)GV_RUN_OPTS_INIT;
    bad.budget_s = -1;
    assert_int_equal(gv_run(ctx, &bad, &r), GV_ERR_INVALID_ARG);
    bad = (gv_run_opts)GV_RUN_OPTS_INIT;
    bad.gpus = "0,x";
    assert_int_equal(gv_run(ctx, &bad, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "0,x"));
    gv_policy tiny = {.struct_size = 4};
    bad = (gv_run_opts)GV_RUN_OPTS_INIT;
    bad.policy = &tiny;
    assert_int_equal(gv_run(ctx, &bad, &r), GV_ERR_VERSION);
    gv_ctx_destroy(ctx);
    assert_string_equal(gv_level_name(GV_LEVEL_EXTENDED), "extended");
    assert_string_equal(gv_level_name(9), "unknown");
}

static void gpu_selection_limits_the_gpu_tests(void **state)
{
    (void)state;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "gemm.fp16,nccl.allreduce";
    o.gemm_size = 32;
    o.nccl_bytes = 64 << 10;
    o.gpus = "2,5";
    gv_report *r = run_with("h100-open", "h100x8", &o);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu2"), GV_PASS);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu5"), GV_PASS);
    assert_int_equal(gv_report_count(r), 3); /* two GEMM rows and the all-reduce */
    gv_check_result n = result_of(r, "nccl.allreduce", "node");
    assert_int_equal(n.verdict, GV_PASS);
    assert_non_null(strstr(n.message, "over 2 ranks"));
    gv_report_free(r);
    o.gpus = "4";
    r = run_with("h100-open", "h100x8", &o);
    assert_int_equal(verdict_of(r, "nccl.allreduce", "node"), GV_SKIP);
    gv_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_fills_every_key_and_refuses_bad_lines),
        cmocka_unit_test(load_reads_a_file_and_names_it_in_errors),
        cmocka_unit_test(a_policy_set_by_fields_is_checked),
        cmocka_unit_test(checks_take_their_expectations_from_the_policy),
        cmocka_unit_test(rdma_and_kernel_expectations),
        cmocka_unit_test(xids_fail_the_gpus_with_hardware_faults),
        cmocka_unit_test(levels_select_and_budgets_bound_the_run),
        cmocka_unit_test(gpu_selection_limits_the_gpu_tests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
