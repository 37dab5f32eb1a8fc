/* SPDX-License-Identifier: Apache-2.0 */
/* The report: JSON through jansson read back, Prometheus text, and versioned copies out. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "report/report.h"

static void json_round_trip(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-gpu-lost");
    char *text = NULL;
    assert_int_equal(gv_report_json(r, 0, &text), GV_OK);
    json_error_t err;
    json_t *root = json_loads(text, 0, &err);
    assert_non_null(root);
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 9);
    assert_string_equal(json_string_value(json_object_get(root, "verdict")), "FAIL");
    /* GPU 3 off the bus: the node's action is the strongest row's, hardware inspection. */
    assert_string_equal(json_string_value(json_object_get(root, "action")), "hw_inspect");
    assert_int_equal(gv_report_action(r), GV_ACTION_HW_INSPECT);
    assert_string_equal(json_string_value(json_object_get(root, "hostname")), "gpu-h100-017");
    json_t *gpus = json_object_get(root, "gpus");
    assert_int_equal(json_array_size(gpus), 8);
    json_t *lost = json_array_get(gpus, 3);
    assert_true(json_is_null(json_object_get(lost, "cuda_index"))); /* unknown is null, not -1 */
    assert_int_equal(json_integer_value(json_object_get(lost, "nvml_result")), 15);
    /* The lost GPU alone is unusable: driver.gpu_count's node FAIL counts for no GPU. */
    assert_string_equal(json_string_value(json_object_get(lost, "verdict")), "FAIL");
    json_t *failed = json_object_get(lost, "failed_checks");
    assert_int_equal(json_array_size(failed), 1);
    assert_string_equal(json_string_value(json_array_get(failed, 0)), "gpu.nvml");
    assert_string_equal(json_string_value(json_object_get(json_array_get(gpus, 0), "verdict")),
                        "PASS");
    assert_int_equal(json_array_size(json_object_get(json_array_get(gpus, 0), "failed_checks")), 0);
    assert_int_equal(gv_report_gpu_verdict(r, 3), GV_FAIL);
    assert_int_equal(gv_report_gpu_verdict(r, 0), GV_PASS);
    json_t *checks = json_object_get(root, "checks");
    assert_int_equal(json_array_size(checks), gv_report_count(r));
    size_t fails = 0;
    for (size_t i = 0; i < json_array_size(checks); i++) {
        json_t *c = json_array_get(checks, i);
        assert_non_null(json_string_value(json_object_get(c, "id")));
        const char *verdict = json_string_value(json_object_get(c, "verdict"));
        const char *action = json_string_value(json_object_get(c, "action"));
        fails += strcmp(verdict, "FAIL") == 0;
        /* Every row names an action: none exactly for PASS and SKIP. */
        assert_non_null(action);
        assert_int_equal(strcmp(action, "none") == 0,
                         strcmp(verdict, "PASS") == 0 || strcmp(verdict, "SKIP") == 0);
    }
    assert_int_equal(fails, (size_t)count_verdict(r, GV_FAIL));
    json_t *summary = json_object_get(root, "summary");
    assert_int_equal(json_integer_value(json_object_get(summary, "FAIL")), fails);
    json_decref(root);
    gv_free(text);
    assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &text), GV_OK);
    assert_null(strchr(text, '\n'));
    gv_free(text);
    assert_int_equal(gv_report_json(r, 0x80, &text), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_report_json(r, 0, NULL), GV_ERR_INVALID_ARG);
    gv_report_free(r);
}

/* Series (lines not starting with '#') in a Prometheus text, and those starting with `name`. */
static size_t series_count(const char *text, const char *name)
{
    size_t n = 0;
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        if (*line != '#' && strncmp(line, name, strlen(name)) == 0)
            n++;
        if (!strchr(line, '\n'))
            break;
    }
    return n;
}

static void prometheus_text(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-gpu-lost");
    char *text = NULL;
    assert_int_equal(gv_report_prometheus(r, 0, &text), GV_OK);
    assert_true(strncmp(text, "# HELP gpuverify_info ", 22) == 0);
    assert_non_null(strstr(text, "\ngpuverify_node_healthy 0\n"));
    /* The node's action: one series, the action named and ordered (GPU 3 off the bus). */
    assert_non_null(strstr(text, "\n# TYPE gpuverify_node_action gauge\n"
                                 "gpuverify_node_action{action=\"hw_inspect\"} 6\n"));
    assert_int_equal(series_count(text, "gpuverify_node_action{"), 1);
    char line[512];
    snprintf(
        line, sizeof line,
        "gpuverify_info{version=\"%s\",Hostname=\"gpu-h100-017\",driver_version=\"580.95.05\",",
        gv_version_string());
    assert_non_null(strstr(text, line));
    /* One series per WARN, FAIL or ERROR row, with dcgm-exporter's labels for a GPU. */
    assert_non_null(strstr(text, "\ngpuverify_check_status{check=\"driver.gpu_count\","
                                 "subject=\"node\",verdict=\"FAIL\",action=\"hw_inspect\","
                                 "Hostname=\"gpu-h100-017\"} 1\n"));
    gv_gpu lost = gpu_of(r, 3);
    snprintf(line, sizeof line,
             "\ngpuverify_check_status{check=\"gpu.nvml\",subject=\"gpu3\",verdict=\"FAIL\","
             "action=\"hw_inspect\",gpu=\"3\",UUID=\"%s\",pci_bus_id=\"00000000:5D:00.0\","
             "Hostname=\"gpu-h100-017\"} 1\n",
             lost.uuid);
    assert_string_equal(lost.pci_bus_id, "0000:5d:00.0");
    assert_non_null(strstr(text, line));
    snprintf(line, sizeof line,
             "\ngpuverify_gpu_usable{gpu=\"3\",UUID=\"%s\",pci_bus_id=\"00000000:5D:00.0\","
             "Hostname=\"gpu-h100-017\"} 0\n",
             lost.uuid);
    assert_non_null(strstr(text, line));
    assert_int_equal(series_count(text, "gpuverify_gpu_usable{"), 8);
    assert_int_equal(series_count(text, "gpuverify_gpu_usable{gpu=\"0\","), 1);
    assert_true(strncmp(strchr(strstr(text, "gpuverify_gpu_usable{gpu=\"0\","), '}'), "} 1\n", 4) ==
                0);
    assert_int_equal(series_count(text, "gpuverify_check_status{"), count_verdict(r, GV_WARN) +
                                                                        count_verdict(r, GV_FAIL) +
                                                                        count_verdict(r, GV_ERROR));
    assert_null(strstr(text, "verdict=\"PASS\","));
    assert_null(strstr(text, "verdict=\"SKIP\","));
    assert_null(strstr(text, "gpuverify_check_verdict"));
    assert_null(strstr(text, "gpuverify_check_value"));
    /* Quantities in base units, named by the metric; counters end in _total. */
    gv_gpu g0 = gpu_of(r, 0);
    snprintf(line, sizeof line,
             "\ngpuverify_gpu_tlimit_margin_celsius{check=\"gpu.temperature\",gpu=\"0\","
             "UUID=\"%s\",pci_bus_id=\"00000000:18:00.0\",Hostname=\"gpu-h100-017\"} %.17g\n",
             g0.uuid, result_of(r, "gpu.temperature", "gpu0").value);
    assert_non_null(strstr(text, line));
    assert_non_null(
        strstr(text, "\n# TYPE gpuverify_gpu_ecc_uncorrectable_errors_total counter\n"));
    assert_non_null(strstr(text, "\n# TYPE gpuverify_gpu_xid_faults_total counter\n"));
    snprintf(line, sizeof line, "gpuverify_checks{verdict=\"FAIL\"} %d\n",
             count_verdict(r, GV_FAIL));
    assert_non_null(strstr(text, line));
    gv_free(text);
    assert_int_equal(gv_report_prometheus(r, 1, &text), GV_ERR_INVALID_ARG);
    assert_null(text);
    assert_int_equal(gv_report_prometheus(r, 0, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_report_prometheus(NULL, 0, &text), GV_ERR_INVALID_ARG);
    gv_report_free(r);

    /* The series budget (docs/outputs.md): a healthy 8-GPU node, at most 40 per GPU + 20. */
    r = run_scenario("h100-open", "h100x8");
    assert_int_equal(gv_report_prometheus(r, 0, &text), GV_OK);
    assert_true(series_count(text, "") <= 40 * 8 + 20);
    assert_int_equal(series_count(text, "gpuverify_check_status{"), 0); /* all PASS or SKIP */
    assert_non_null(strstr(text, "\ngpuverify_node_action{action=\"none\"} 0\n"));
    gv_free(text);
    gv_report_free(r);

    /* Label values escaped as the exposition format requires; units scaled into base units;
     * PCI bus IDs as NVML writes them; a row of no metric's unit, or of a GPU the inventory
     * lacks, gets what can be known. */
    struct gv_report *odd = calloc(1, sizeof *odd);
    odd->gpus = calloc(1, sizeof *odd->gpus);
    odd->gpu_count = 1;
    strcpy(odd->gpus[0].uuid, "GPU-x");
    strcpy(odd->gpus[0].pci_bus_id, "10000:0a:00.0");
    /* gv_report_add cleans a subject's newline; a row read from elsewhere may still hold one. */
    gv_check_result *c = gv_report_add(odd, "x.y", "node", GV_WARN, "m");
    strcpy(c->subject, "a\"b\\c\nd");
    gv_result_action(c, GV_ACTION_RERUN);
    c = gv_report_add(odd, "gpu.memory_unowned", "gpu0", GV_PASS, "m");
    gv_result_measured(c, 3, "MiB", "3 MiB");
    c = gv_report_add(odd, "gemm.fp8", "gpu0", GV_PASS, "m");
    gv_result_measured(c, 1.5, "TFLOPS", "1.5 TFLOPS");
    c = gv_report_add(odd, "gpu.temperature", "gpu0", GV_PASS, "m");
    gv_result_measured(c, 40, "F", "40 F");
    c = gv_report_add(odd, "nccl.allreduce", "node", GV_PASS, "m");
    gv_result_measured(c, 2.5, "GB/s", "2.5 GB/s");
    c = gv_report_add(odd, "gpu.xid", "gpu9", GV_FAIL, "m");
    gv_result_measured(c, 2, "Xids", "2");
    assert_int_equal(gv_report_prometheus(odd, 0, &text), GV_OK);
    assert_non_null(strstr(text, "\ngpuverify_check_status{check=\"x.y\","
                                 "subject=\"a\\\"b\\\\c\\nd\",verdict=\"WARN\","
                                 "action=\"rerun\"} 1\n"));
    assert_non_null(strstr(text,
                           "\ngpuverify_gpu_memory_unowned_bytes{check=\"gpu.memory_unowned\","
                           "gpu=\"0\",UUID=\"GPU-x\",pci_bus_id=\"00010000:0A:00.0\"} 3145728\n"));
    assert_non_null(
        strstr(text, "\ngpuverify_gpu_matmul_flops_per_second{check=\"gemm.fp8\","
                     "gpu=\"0\",UUID=\"GPU-x\",pci_bus_id=\"00010000:0A:00.0\"} 1500000000000\n"));
    assert_non_null(strstr(text, "\ngpuverify_node_nccl_bus_bandwidth_bytes_per_second{"
                                 "check=\"nccl.allreduce\"} 2500000000\n"));
    /* A row made without the run's finalize (none here) says none: the label is still there. */
    assert_non_null(strstr(text, "\ngpuverify_check_status{check=\"gpu.xid\",subject=\"gpu9\","
                                 "verdict=\"FAIL\",action=\"none\",gpu=\"9\"} 1\n"));
    assert_non_null(strstr(text, "\ngpuverify_node_action{action=\"rerun\"} 1\n"));
    assert_non_null(
        strstr(text, "\ngpuverify_gpu_xid_faults_total{check=\"gpu.xid\",gpu=\"9\"} 2\n"));
    assert_null(strstr(text, "celsius")); /* "F" is no unit of the table */
    gv_free(text);
    gv_report_free(odd);
}

/* Every report reads back from its JSON into one that renders the same JSON. */
static void json_read_back(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"h100-open", "h100x8-gpu-lost"}, {"debian12-proprietary", "t4"}, {"no-nvidia", NULL}};
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gv_report *r = run_scenario(cases[i][0], cases[i][1]);
        char *first = NULL, *second = NULL;
        assert_int_equal(gv_report_json(r, 0, &first), GV_OK);
        gv_report *back = NULL;
        assert_int_equal(gv_report_from_json(ctx, first, &back), GV_OK);
        assert_int_equal(gv_report_json(back, 0, &second), GV_OK);
        assert_string_equal(first, second);
        assert_int_equal(gv_report_count(back), gv_report_count(r));
        assert_int_equal(gv_report_verdict(back), gv_report_verdict(r));
        assert_int_equal(gv_report_action(back), gv_report_action(r));
        for (uint32_t k = 0; k < gv_report_count(r); k++) {
            gv_check_result x = GV_CHECK_RESULT_INIT, y = GV_CHECK_RESULT_INIT;
            assert_int_equal(gv_report_result(r, k, &x), GV_OK);
            assert_int_equal(gv_report_result(back, k, &y), GV_OK);
            assert_int_equal(x.action, y.action);
        }
        gv_check_result a = GV_CHECK_RESULT_INIT, b = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, 0, &a), GV_OK);
        assert_int_equal(gv_report_result(back, 0, &b), GV_OK);
        assert_string_equal(a.message, b.message);
        char *prom_a = NULL, *prom_b = NULL;
        assert_int_equal(gv_report_prometheus(r, 0, &prom_a), GV_OK);
        assert_int_equal(gv_report_prometheus(back, 0, &prom_b), GV_OK);
        assert_string_equal(prom_a, prom_b);
        gv_free(prom_a);
        gv_free(prom_b);
        gv_free(first);
        gv_free(second);
        gv_report_free(back);
        gv_report_free(r);
    }
    static const char *const bad[] = {
        "not json", "{\"schema_version\": 7}", "[1, 2]",
        "{\"schema_version\": 1, \"driver\": {}, \"gpus\": [], \"checks\": 3}",
        "{\"schema_version\": 1, \"hostname\": 5, \"driver\": {}, \"gpus\": [], "
        "\"checks\": []}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gv_report *r = (gv_report *)&bad; /* must be reset to NULL */
        assert_int_equal(gv_report_from_json(ctx, bad[i], &r), GV_ERR_PARSE);
        assert_null(r);
        assert_non_null(strstr(gv_ctx_last_error(ctx), "report JSON"));
    }
    gv_report *r = NULL;
    assert_int_equal(gv_report_from_json(ctx, NULL, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_report_from_json(NULL, "{}", &r), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
}

/* A message longer than the row's field, read back from JSON, is cut before a character it
 * would split: the read-back report's JSON keeps the text (jansson refuses a lone lead byte,
 * which would have turned every other character of it into '?'). */
static void json_read_back_cuts_text_whole(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_report *r = run_scenario("h100-open", "h100x8");
    char *text = NULL;
    assert_int_equal(gv_report_json(r, 0, &text), GV_OK);
    json_t *root = json_loads(text, 0, NULL);
    assert_non_null(root);
    char long_text[1201] = "";
    for (int i = 0; i < 600; i++)
        strcat(long_text, "\xc3\xa9"); /* e acute: two bytes each */
    json_t *first = json_array_get(json_object_get(root, "checks"), 0);
    assert_int_equal(json_object_set_new(first, "message", json_string(long_text)), 0);
    char *edited = json_dumps(root, 0);
    gv_report *back = NULL;
    assert_int_equal(gv_report_from_json(ctx, edited, &back), GV_OK);
    gv_check_result c = GV_CHECK_RESULT_INIT;
    assert_int_equal(gv_report_result(back, 0, &c), GV_OK);
    size_t n = strlen(c.message);
    assert_true(n > 400 && n % 2 == 0); /* whole characters only */
    assert_int_equal(strncmp(c.message, long_text, n), 0);
    char *again = NULL;
    assert_int_equal(gv_report_json(back, 0, &again), GV_OK);
    assert_non_null(strstr(again, "\\u00E9\\u00E9\\u00E9")); /* JSON_ENSURE_ASCII */
    gv_free(again);
    gv_report_free(back);
    free(edited);
    json_decref(root);
    gv_free(text);
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

/* A row another gpuverify's hold left unrun says who held the GPU and how long, in the row and
 * in its JSON (held_by), and reads back the same; other rows have no held_by. */
static void held_row(void **state)
{
    (void)state;
    struct gv_report *r = calloc(1, sizeof *r);
    gv_report_add(r, "driver.module", "node", GV_PASS, "loaded");
    gv_check_result *c = gv_report_add(r, "cuda.init", "node", GV_ERROR, "not run: held");
    c->held_by_other = 1;
    c->held_by_pid = 4121;
    c->held_s = 400.5;
    char *text = NULL;
    assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &text), GV_OK);
    assert_non_null(strstr(text, "\"held_by\":{\"pid\":4121,\"held_s\":400.5}"));
    assert_null(strstr(strstr(text, "held_by") + 1, "held_by")); /* the PASS row has none */
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_report *back = NULL;
    assert_int_equal(gv_report_from_json(ctx, text, &back), GV_OK);
    gv_check_result a = GV_CHECK_RESULT_INIT, b = GV_CHECK_RESULT_INIT;
    assert_int_equal(gv_report_result(back, 0, &a), GV_OK);
    assert_int_equal(gv_report_result(back, 1, &b), GV_OK);
    assert_int_equal(a.held_by_other, 0);
    assert_int_equal(b.held_by_other, 1);
    assert_int_equal(b.held_by_pid, 4121);
    assert_true(b.held_s > 400.4 && b.held_s < 400.6);
    /* Unknown holder: nulls, read back as 0 and negative. */
    c->held_by_pid = 0;
    c->held_s = -1;
    gv_free(text);
    assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &text), GV_OK);
    assert_non_null(strstr(text, "\"held_by\":{\"pid\":null,\"held_s\":null}"));
    gv_report_free(back);
    assert_int_equal(gv_report_from_json(ctx, text, &back), GV_OK);
    assert_int_equal(gv_report_result(back, 1, &b), GV_OK);
    assert_int_equal(b.held_by_other, 1);
    assert_int_equal(b.held_by_pid, 0);
    assert_true(b.held_s < 0);
    gv_free(text);
    gv_report_free(back);
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

/* The one line: its class is the outcome, OK counts checks and rows apart, it fits 200 bytes
 * with the counts whole and the message cut at a word, a held run says for how long, and bad
 * arguments change nothing. */
static void one_line(void **state)
{
    (void)state;
    char line[GV_REPORT_LINE_MAX + 1];
    struct gv_report *r = calloc(1, sizeof *r);
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HEALTHY);
    assert_string_equal(line, "OK 0 checks, 0 rows: 0 PASS, 0 SKIP");
    /* A check with a row per GPU is one check: checks and rows counted apart, the rows of a
     * check counted once wherever they are in the report. */
    gv_report_add(r, "gpu.ecc", "gpu0", GV_PASS, "on");
    gv_report_add(r, "driver.module", "node", GV_PASS, "loaded");
    gv_report_add(r, "gpu.ecc", "gpu1", GV_PASS, "on");
    gv_report_add(r, "gpu.ecc", "gpu2", GV_SKIP, "not applicable");
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HEALTHY);
    assert_string_equal(line, "OK 2 checks, 4 rows: 3 PASS, 1 SKIP");
    gv_report_free(r);
    r = calloc(1, sizeof *r);
    gv_report_add(r, "driver.module", "node", GV_PASS, "loaded");
    gv_report_add(r, "gpu.thermal", "gpu3", GV_WARN, "T.Limit margin 4 C");
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HEALTHY);
    assert_string_equal(line, "WARN gpu.thermal gpu3: T.Limit margin 4 C (1 WARN of 2)");
    gv_check_result *held = gv_report_add(r, "cuda.init", "node", GV_ERROR, "not run: held");
    held->held_by_other = 1;
    held->held_by_pid = 4121;
    held->held_s = 403.7;
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HELD);
    assert_string_equal(line, "HELD for 403 s by PID 4121: cuda.init node: not run: held");
    /* Two holders: the line names the one that has held its GPU longest, seconds and PID. */
    gv_check_result *older = gv_report_add(r, "gemm.bf16", "node", GV_ERROR, "not run: held");
    older->held_by_other = 1;
    older->held_by_pid = 777;
    older->held_s = 900.2;
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HELD);
    assert_string_equal(line, "HELD for 900 s by PID 777: gemm.bf16 node: not run: held");
    gv_report_add(r, "gemm.fp16", "node", GV_ERROR, "not run: the budget was spent");
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_UNJUDGED);
    assert_string_equal(line, "ERROR gemm.fp16 node: not run: the budget was spent "
                              "(3 ERROR, 1 WARN of 5)");
    char words[400] = "";
    for (int i = 0; i < 30; i++) /* 390 bytes */
        strcat(words, "counter\tnine ");
    gv_report_add(r, "gpu.ecc_errors", "gpu0", GV_FAIL, "%s", words);
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_true(strlen(line) <= GV_REPORT_LINE_MAX);
    assert_true(strncmp(line, "FAIL gpus 0: gpu.ecc_errors gpu0: counter nine", 46) == 0);
    const char *cut = strstr(line, "... (1 FAIL, 1 WARN, 3 ERROR of 6)");
    assert_non_null(cut); /* the counts whole, after a word cut whole */
    assert_true(cut[-1] == 'e' || cut[-1] == 'r');
    assert_null(strchr(line, '\t'));
    /* A message without spaces, of three-byte characters: cut between two of them. */
    char dashes[3 * 100 + 1] = "";
    for (int i = 0; i < 100; i++)
        strcat(dashes, "\xe2\x80\x93"); /* U+2013 */
    gv_report_free(r);
    r = calloc(1, sizeof *r);
    gv_report_add(r, "x.y", "node", GV_FAIL, "%s", dashes);
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    const char *from = line + strlen("FAIL x.y node: "), *to = strstr(line, "...");
    assert_non_null(to);
    assert_int_equal((to - from) % 3, 0);
    /* The node's action closes every line but OK's, after the counts, never cut. */
    gv_report_free(r);
    r = calloc(1, sizeof *r);
    gv_check_result *pending = gv_report_add(r, "gpu.row_remap", "gpu2", GV_WARN, "pending");
    gv_result_action(pending, GV_ACTION_RESET_GPU);
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_HEALTHY);
    assert_string_equal(line, "WARN gpu.row_remap gpu2: pending (1 WARN of 1) [reset_gpu]");
    gv_result_action(gv_report_add(r, "gpu.nvml", "gpu3", GV_FAIL, "%s", words),
                     GV_ACTION_HW_INSPECT);
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_true(strlen(line) <= GV_REPORT_LINE_MAX);
    assert_non_null(strstr(line, "... (1 FAIL, 1 WARN, 0 ERROR of 2) [hw_inspect]"));
    assert_string_equal(line + strlen(line) - strlen("[hw_inspect]"), "[hw_inspect]");
    strcpy(line, "unchanged");
    assert_int_equal(gv_report_line(r, line, GV_REPORT_LINE_MAX), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_report_line(NULL, line, sizeof line), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_report_line(r, NULL, sizeof line), GV_ERR_INVALID_ARG);
    assert_string_equal(line, "unchanged");
    gv_report_free(r);
}

/* Text from outside (NCCL_SOCKET_IFNAME=$'eth0\nFAIL injected', a file's escape sequence)
 * reaches no row with its control bytes: the one line stays one line. */
static void control_bytes_never_reach_a_row(void **state)
{
    (void)state;
    struct gv_report *r = calloc(1, sizeof *r);
    const char *hostile = "eth0\nFAIL injected \x1b[31mred\x1b[0m\r";
    gv_check_result *c = gv_report_add(r, "rdma.nccl_env", "node\n\x1b[2J", GV_FAIL,
                                       "NCCL_SOCKET_IFNAME=%s", hostile);
    gv_result_measured(c, 0, "", "%s", hostile);
    gv_result_expected(c, "policy", "%s", hostile);
    gv_result_remedy(c, "fix %s", hostile);
    const char *fields[] = {c->message, c->measured, c->expected, c->remediation, c->subject};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        assert_null(strchr(fields[i], '\n'));
        assert_null(strchr(fields[i], '\r'));
        assert_null(strchr(fields[i], '\x1b'));
    }
    assert_string_equal(c->message, "NCCL_SOCKET_IFNAME=eth0?FAIL injected ?[31mred?[0m?");
    char line[GV_REPORT_LINE_MAX + 1];
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_null(strchr(line, '\n'));
    assert_null(strchr(line, '\x1b'));
    assert_non_null(strstr(line, "FAIL rdma.nccl_env node??[2J: NCCL_SOCKET_IFNAME=eth0?FAIL"));
    gv_report_free(r);
}

/* A report of gpu0..gpu7 (and gpu8, set apart) whose gpu3 FAILs and gpu5 ERRORs, beside a node
 * FAIL: what a scheduler reads to take gpu3 alone out of service. */
static struct gv_report *eight_gpus(void)
{
    struct gv_report *r = calloc(1, sizeof *r);
    snprintf(r->hostname, sizeof r->hostname, "n1");
    r->gpu_count = 9;
    r->gpus = calloc(r->gpu_count, sizeof *r->gpus);
    for (uint32_t i = 0; i < r->gpu_count; i++) {
        r->gpus[i].index = i;
        snprintf(r->gpus[i].uuid, sizeof r->gpus[i].uuid, "GPU-%u", i);
        snprintf(r->gpus[i].pci_bus_id, sizeof r->gpus[i].pci_bus_id, "0000:%u0:00.0", i + 1);
    }
    r->gpus[8].inaccessible = 1;
    gv_report_add(r, "driver.gpu_count", "node", GV_FAIL, "PCI sees 9 GPU(s), NVML 8");
    for (int i = 0; i < 7; i++) {
        char subject[16];
        snprintf(subject, sizeof subject, "gpu%d", i);
        gv_report_add(r, "gpu.ecc_errors", subject, GV_PASS, "no error");
    }
    gv_report_add(r, "gpu.ecc_errors", "gpu7", GV_SKIP, "not tested");
    gv_report_add(r, "gpu.temperature", "gpu1", GV_WARN, "T.Limit margin 4 C");
    gv_report_add(r, "cuda.init", "gpu3", GV_ERROR, "worker crashed"); /* FAIL outranks it */
    gv_report_add(r, "gemm.bf16", "gpu3", GV_FAIL, "120 TFLOPS, expected 700");
    gv_report_add(r, "gemm.bf16", "gpu3", GV_FAIL, "again"); /* named once */
    gv_report_add(r, "cuda.init", "gpu5", GV_ERROR, "not run: the budget was spent");
    gv_report_add(r, "gemm.bf16", "gpu5", GV_SKIP, "cuda.init did not run");
    gv_report_add(r, "topo.numa", "gpu2 (0000:30:00.0)", GV_FAIL, "not a GPU's subject");
    return r;
}

static void per_gpu_verdicts(void **state)
{
    (void)state;
    struct gv_report *r = eight_gpus();
    static const int32_t want[] = {GV_PASS,  GV_WARN, GV_PASS, GV_FAIL, GV_PASS,
                                   GV_ERROR, GV_PASS, GV_SKIP, GV_SKIP};
    for (uint32_t i = 0; i < 9; i++)
        assert_int_equal(gv_report_gpu_verdict(r, i), want[i]);
    assert_int_equal(gv_report_gpu_verdict(r, 9), -1);
    assert_int_equal(gv_report_gpu_verdict(NULL, 0), -1);
    assert_int_equal(gv_report_verdict(r), GV_ERROR); /* the node's verdict is as before */

    /* JSON: each GPU's verdict and the checks that gave it, and it reads back the same. */
    char *text = NULL;
    assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &text), GV_OK);
    json_error_t err;
    json_t *root = json_loads(text, 0, &err);
    assert_non_null(root);
    json_t *gpus = json_object_get(root, "gpus");
    static const char *const names[] = {"PASS",  "WARN", "PASS", "FAIL", "PASS",
                                        "ERROR", "PASS", "SKIP", "SKIP"};
    for (size_t i = 0; i < 9; i++) {
        json_t *g = json_array_get(gpus, i);
        assert_string_equal(json_string_value(json_object_get(g, "verdict")), names[i]);
        json_t *ids = json_object_get(g, "failed_checks");
        assert_true(json_is_array(ids));
        assert_int_equal(json_array_size(ids), i == 3 || i == 5);
    }
    json_t *ids3 = json_object_get(json_array_get(gpus, 3), "failed_checks");
    json_t *ids5 = json_object_get(json_array_get(gpus, 5), "failed_checks");
    assert_string_equal(json_string_value(json_array_get(ids3, 0)), "gemm.bf16");
    assert_string_equal(json_string_value(json_array_get(ids5, 0)), "cuda.init");
    json_decref(root);
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_report *back = NULL;
    assert_int_equal(gv_report_from_json(ctx, text, &back), GV_OK);
    for (uint32_t i = 0; i < 9; i++)
        assert_int_equal(gv_report_gpu_verdict(back, i), want[i]);
    char *again = NULL;
    assert_int_equal(gv_report_json(back, GV_JSON_COMPACT, &again), GV_OK);
    assert_string_equal(text, again);
    gv_free(again);
    gv_free(text);

    /* Prometheus: one gpuverify_gpu_usable per GPU given to the run, with the GPU's labels;
     * the node's FAIL makes no GPU unusable. */
    assert_int_equal(gv_report_prometheus(r, 0, &text), GV_OK);
    assert_int_equal(series_count(text, "gpuverify_gpu_usable{"), 8); /* not gpu8 */
    assert_non_null(strstr(text, "\n# TYPE gpuverify_gpu_usable gauge\n"));
    assert_non_null(strstr(text, "\ngpuverify_gpu_usable{gpu=\"3\",UUID=\"GPU-3\","
                                 "pci_bus_id=\"00000000:40:00.0\",Hostname=\"n1\"} 0\n"));
    assert_non_null(strstr(text, "\ngpuverify_gpu_usable{gpu=\"5\",UUID=\"GPU-5\","
                                 "pci_bus_id=\"00000000:60:00.0\",Hostname=\"n1\"} 0\n"));
    static const char *const usable[] = {"0", "1", "2", "4", "6", "7"};
    for (size_t i = 0; i < sizeof usable / sizeof *usable; i++) {
        char line[160];
        snprintf(line, sizeof line, "\ngpuverify_gpu_usable{gpu=\"%s\",UUID=\"GPU-%s\",", usable[i],
                 usable[i]);
        const char *at = strstr(text, line);
        assert_non_null(at);
        assert_true(strncmp(strchr(at, '}'), "} 1\n", 4) == 0);
    }
    assert_null(strstr(text, "gpuverify_gpu_usable{gpu=\"8\""));
    char *a = NULL, *b = NULL;
    assert_int_equal(gv_report_prometheus(back, 0, &a), GV_OK);
    assert_string_equal(text, a); /* the same from the report read back */
    gv_free(text);
    gv_report_free(back);

    /* The one line names the GPUs that FAILed, before the first FAIL row, the class first. */
    char line[GV_REPORT_LINE_MAX + 1];
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_string_equal(line, "FAIL gpus 3: driver.gpu_count node: PCI sees 9 GPU(s), NVML 8 "
                              "(4 FAIL, 1 WARN, 2 ERROR of 16)");
    static const char *const more[] = {"gpu0", "gpu1", "gpu2", "gpu6", "gpu7"};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        gv_report_add(r, "gpu.xid", more[i], GV_FAIL, "Xid 79");
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_true(strncmp(line, "FAIL gpus 0-3,6,7: driver.gpu_count node: ", 42) == 0);
    assert_int_equal(gv_report_prometheus(r, 0, &b), GV_OK);
    assert_string_not_equal(a, b); /* gpu0 is unusable now */
    gv_free(a);
    gv_free(b);
    gv_report_free(r);

    /* Only the node FAILed: the line is as before. Many GPUs: the list ends in "..." after a
     * whole GPU, within 200 bytes, the counts kept. */
    r = calloc(1, sizeof *r);
    gv_report_add(r, "driver.gpu_count", "node", GV_FAIL, "no NVIDIA GPU found");
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_string_equal(line, "FAIL driver.gpu_count node: no NVIDIA GPU found (1 FAIL, 0 WARN, "
                              "0 ERROR of 1)");
    for (int i = 0; i < 144; i += 2) {
        char subject[16];
        snprintf(subject, sizeof subject, "gpu%d", i);
        gv_report_add(r, "gpu.xid", subject, GV_FAIL, "Xid 79");
    }
    assert_int_equal(gv_report_line(r, line, sizeof line), GV_OUTCOME_FAIL);
    assert_true(strlen(line) <= GV_REPORT_LINE_MAX);
    assert_true(strncmp(line, "FAIL gpus 0,2,4,6,8,10,", 23) == 0);
    const char *dots = strstr(line, "...: driver.gpu_count node: ");
    assert_non_null(dots);
    assert_true(dots[-1] >= '0' && dots[-1] <= '9' && strlen("FAIL ") + 48 > (size_t)(dots - line));
    assert_non_null(strstr(line, " (73 FAIL, 0 WARN, 0 ERROR of 73)"));
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

/* A caller built against a newer, larger layout gets our part and keeps its size. */
static void versioned_copy_out(void **state)
{
    (void)state;
    gv_report *r = run_scenario("debian12-proprietary", "t4");
    struct {
        gv_check_result ours;
        char newer_fields[64];
    } bigger;
    memset(&bigger, 0x5a, sizeof bigger);
    bigger.ours.struct_size = sizeof bigger;
    assert_int_equal(gv_report_result(r, 0, &bigger.ours), GV_OK);
    assert_int_equal(bigger.ours.struct_size, sizeof bigger);
    assert_string_equal(bigger.ours.id, "system.os");
    assert_int_equal((unsigned char)bigger.newer_fields[0], 0x5a); /* untouched */
    gv_check_result small = GV_CHECK_RESULT_INIT;
    small.struct_size = 16;
    assert_int_equal(gv_report_result(r, 0, &small), GV_ERR_VERSION);
    assert_int_equal(gv_report_result(r, 9999, &small), GV_ERR_NOT_FOUND);
    gv_gpu g = GV_GPU_INIT;
    assert_int_equal(gv_report_gpu(r, 1, &g), GV_ERR_NOT_FOUND);
    gv_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(json_round_trip),
                                       cmocka_unit_test(prometheus_text),
                                       cmocka_unit_test(json_read_back),
                                       cmocka_unit_test(json_read_back_cuts_text_whole),
                                       cmocka_unit_test(held_row),
                                       cmocka_unit_test(one_line),
                                       cmocka_unit_test(versioned_copy_out),
                                       cmocka_unit_test(per_gpu_verdicts),
                                       cmocka_unit_test(control_bytes_never_reach_a_row)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
