/* SPDX-License-Identifier: Apache-2.0 */
/* The history.* checks on fixture histories: a GPU slowing over 20 runs, correctable errors
 * climbing, a port that flapped between runs, a lemon GPU; each judged on a database built
 * from an 8-GPU report whose figures and counters are set run by run, days apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "helpers.h"
#include "history/history.h"
#include "report/report.h"

#define DAY 86400LL
#define T0 1792900000LL /* 2026-10-25 */

typedef struct history_fixture {
    char *dir;
    char path[512];
    gv_history *db;
    gv_report *r;
} history_fixture;

static int setup(void **state)
{
    history_fixture *f = calloc(1, sizeof *f);
    f->dir = temp_root();
    snprintf(f->path, sizeof f->path, "%s/history.db", f->dir);
    gv_history_limits limits = {.wait_s = 5, .keep_days = 3650, .keep_runs = 10000, .keep_mb = 256};
    char why[1024];
    if (gv_history_open(f->path, &limits, &f->db, why, sizeof why))
        fail_msg("%s", why);
    f->r = run_scenario("h100-open", "h100x8");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    history_fixture *f = *state;
    gv_history_close(f->db);
    gv_report_free(f->r);
    remove_tree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

/* The row of id on subject, made when the report has none. */
static gv_check_result *row(gv_report *r, const char *id, const char *subject)
{
    for (size_t i = 0; i < r->count; i++)
        if (!strcmp(r->results[i].id, id) && !strcmp(r->results[i].subject, subject))
            return &r->results[i];
    gv_check_result *c = gv_report_add(r, id, subject, GV_PASS, "made by the test");
    assert_non_null(c);
    return c;
}

static void set_value(gv_report *r, const char *id, const char *subject, double value,
                      const char *unit)
{
    gv_result_measured(row(r, id, subject), value, unit, "%g %s", value, unit);
}

static void set_counter(gv_report *r, const char *id, const char *subject, const char *name,
                        double value)
{
    gv_check_result *c = row(r, id, subject);
    size_t index = (size_t)(c - r->results);
    for (size_t i = 0; i < r->counters_count; i++) {
        gv_row_counters *rc = &r->counters[i];
        if (rc->row != index)
            continue;
        for (uint32_t k = 0; k < rc->count; k++)
            if (!strcmp(rc->items[k].name, name)) {
                rc->items[k].value = value;
                return;
            }
        rc->items = realloc(rc->items, (rc->count + 1) * sizeof *rc->items);
        assert_non_null(rc->items);
        gv_counter_set(rc->items, &rc->count, rc->count + 1, name, value);
        return;
    }
    gv_counter one;
    uint32_t n = 0;
    gv_counter_set(&one, &n, 1, name, value);
    assert_int_equal(gv_report_attach_counters(r, c, &one, n), 0);
}

static void append(history_fixture *f, long long when)
{
    gv_history_run run = {.started_unix = when, .comparable = "driver 580|standard|gemm 0"};
    char why[1024];
    if (gv_history_append(f->db, f->r, &run, why, sizeof why))
        fail_msg("%s", why);
}

/* Judges the report as the run at `when` with one history check; returns its row on subject. */
static gv_check_result judge(history_fixture *f, void (*check)(gv_history_judge *), long long when,
                             const char *id, const char *subject, const gv_policy *policy)
{
    gv_history_run run = {.started_unix = when, .comparable = "driver 580|standard|gemm 0"};
    size_t before = f->r->count;
    gv_history_judge j = {
        .db = f->db, .report = f->r, .judged = before, .policy = policy, .run = &run};
    check(&j);
    gv_check_result found = GV_CHECK_RESULT_INIT;
    int seen = 0;
    for (size_t i = before; i < f->r->count; i++) {
        if (!strcmp(f->r->results[i].id, id) && !strcmp(f->r->results[i].subject, subject)) {
            found = f->r->results[i];
            seen++;
        }
    }
    assert_int_equal(seen, 1);
    f->r->count = before; /* the judged rows are not part of the next run */
    return found;
}

static void slowing_gpu_warns_against_its_own_median(void **state)
{
    history_fixture *f = *state;
    /* gpu0 holds 740 for 14 runs, then slows 6 TFLOPS a run; gpu1 holds 700 throughout. */
    for (int i = 0; i < 20; i++) {
        set_value(f->r, "gemm.fp16", "gpu0", i < 14 ? 740 : 740 - 6 * (i - 13), "TFLOPS");
        set_value(f->r, "gemm.fp16", "gpu1", 700, "TFLOPS");
        append(f, T0 + i * DAY);
    }
    set_value(f->r, "gemm.fp16", "gpu0", 690, "TFLOPS");
    set_value(f->r, "gemm.fp16", "gpu1", 701, "TFLOPS");
    gv_check_result c =
        judge(f, gv_check_history_performance, T0 + 20 * DAY, "history.performance", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_RERUN);
    /* Its last 20 runs: 14 at 740 and 6 slower, median 740. */
    assert_non_null(strstr(c.message, "gemm.fp16 690 TFLOPS vs this GPU's median 740 over 20 runs "
                                      "since 2026-10-25"));
    assert_true(fabs(c.value - 690.0 / 740.0) < 1e-6);
    c = judge(f, gv_check_history_performance, T0 + 20 * DAY, "history.performance", "gpu1", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "median 700 over 20 runs"));
    /* A tighter window of the policy: the median of the last 5 runs is the slow ones'. */
    gv_policy p = GV_POLICY_INIT;
    p.history_runs = 5;
    c = judge(f, gv_check_history_performance, T0 + 20 * DAY, "history.performance", "gpu0", &p);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "median 716 over 5 runs"));
}

/* A figure whose own row FAILs (slower than the datasheet allows) is still compared with its
 * record, and a FAIL run's figure is no part of the median. */
static void a_failing_figure_is_still_judged(void **state)
{
    history_fixture *f = *state;
    gv_check_result *copy = row(f->r, "cuda.copy", "gpu1");
    for (int i = 0; i < 7; i++) {
        set_value(f->r, "cuda.copy", "gpu1", i < 6 ? 54 : 20, "GB/s");
        copy->verdict = i < 6 ? GV_PASS : GV_FAIL;
        append(f, T0 + i * DAY);
    }
    set_value(f->r, "cuda.copy", "gpu1", 22, "GB/s");
    gv_check_result c =
        judge(f, gv_check_history_performance, T0 + 7 * DAY, "history.performance", "gpu1", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "cuda.copy 22 GB/s vs this GPU's median 54 over 6 runs"));
}

static void a_noisy_gpu_is_judged_by_its_own_spread(void **state)
{
    history_fixture *f = *state;
    /* The short GEMM of an idle H100 measured on the GPU machine: 650 to 719 TFLOPS, run to
     * run. The slowest of them is no finding; a shared GPU's 291 is. */
    static const double idle[] = {651.9, 697.2, 654.4, 701.9, 718.8,
                                  712.7, 657.5, 650.5, 674.1, 658.2};
    for (int i = 0; i < 10; i++) {
        set_value(f->r, "gemm.fp16", "gpu0", idle[i], "TFLOPS");
        append(f, T0 + i * DAY);
    }
    set_value(f->r, "gemm.fp16", "gpu0", 640, "TFLOPS");
    gv_check_result c =
        judge(f, gv_check_history_performance, T0 + 10 * DAY, "history.performance", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    set_value(f->r, "gemm.fp16", "gpu0", 290.9, "TFLOPS");
    c = judge(f, gv_check_history_performance, T0 + 10 * DAY, "history.performance", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "spread"));
    /* The floor is the policy's 0.95 or three spreads below the median, the lower. */
    assert_true(c.value < 0.5);
}

static void too_few_runs_skip_saying_how_many(void **state)
{
    history_fixture *f = *state;
    set_value(f->r, "gemm.fp16", "gpu0", 740, "TFLOPS");
    for (int i = 0; i < 3; i++)
        append(f, T0 + i * DAY);
    gv_check_result c =
        judge(f, gv_check_history_performance, T0 + 3 * DAY, "history.performance", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "3 comparable earlier run(s) of 5 needed"));
    c = judge(f, gv_check_history_record, T0 + 3 * DAY, "history.record", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "3 earlier run(s)"));
}

static void climbing_correctable_errors_warn(void **state)
{
    history_fixture *f = *state;
    /* gpu2: 300 more correctable errors a day, two rows remapped on the way; gpu3 steady. */
    for (int i = 0; i < 10; i++) {
        set_counter(f->r, "gpu.ecc_errors", "gpu2", "correctable_aggregate", 1000 + 300 * i);
        set_counter(f->r, "gpu.row_remap", "gpu2", "remapped_correctable", i < 5 ? 0 : 2);
        set_counter(f->r, "gpu.ecc_errors", "gpu3", "correctable_aggregate", 12);
        append(f, T0 + i * DAY);
    }
    set_counter(f->r, "gpu.ecc_errors", "gpu2", "correctable_aggregate", 4000);
    set_counter(f->r, "gpu.row_remap", "gpu2", "remapped_correctable", 2);
    set_counter(f->r, "gpu.ecc_errors", "gpu3", "correctable_aggregate", 12);
    gv_check_result c = judge(f, gv_check_history_memory_errors, T0 + 10 * DAY,
                              "history.memory_errors", "gpu2", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_HW_INSPECT);
    assert_non_null(strstr(c.message, "correctable ECC +3000 since 2026-10-25 (300.0/day"));
    assert_non_null(strstr(c.message, "+2 row(s) remapped"));
    c = judge(f, gv_check_history_memory_errors, T0 + 10 * DAY, "history.memory_errors", "gpu3",
              NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "correctable ECC +0"));
}

static void spare_banks_running_out_are_projected(void **state)
{
    history_fixture *f = *state;
    /* 3072 banks at full availability, 40 a day falling to none: out in about 66 days. */
    for (int i = 0; i <= 10; i++) {
        set_counter(f->r, "gpu.row_remap", "gpu4", "banks_max", 3072 - 40 * i);
        set_counter(f->r, "gpu.row_remap", "gpu4", "banks_none", 40 * i);
        if (i < 10)
            append(f, T0 + i * DAY);
    }
    gv_check_result c = judge(f, gv_check_history_memory_errors, T0 + 10 * DAY,
                              "history.memory_errors", "gpu4", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "banks out of spares in about 67 days"));
    assert_true(fabs(c.value - (3072 - 400) * 4.0 / 160.0) < 0.5);
}

static void a_port_that_flapped_between_runs_warns(void **state)
{
    history_fixture *f = *state;
    gv_check_result *port = gv_report_add(f->r, "rdma.ports", "mlx5_0/1", GV_PASS, "ACTIVE");
    (void)port;
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "state", 4);
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "link_downed", 3);
    set_counter(f->r, "gpu.nvlink", "gpu5", "active", 18);
    append(f, T0);
    /* ACTIVE again at this run, but it went down twice in between; gpu5 lost a link. */
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "link_downed", 5);
    set_counter(f->r, "gpu.nvlink", "gpu5", "active", 17);
    gv_check_result c =
        judge(f, gv_check_history_links, T0 + DAY, "history.links", "mlx5_0/1", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_HW_INSPECT);
    assert_non_null(strstr(c.message, "link went down +2 (3 -> 5)"));
    c = judge(f, gv_check_history_links, T0 + DAY, "history.links", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "NVLinks active 18 -> 17"));
    c = judge(f, gv_check_history_links, T0 + DAY, "history.links", "gpu6", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    /* A counter lower than before was reset with the driver: no flap is made of it. */
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "link_downed", 0);
    c = judge(f, gv_check_history_links, T0 + DAY, "history.links", "mlx5_0/1", NULL);
    assert_int_equal(c.verdict, GV_PASS);
}

/* history.port_errors on mlx5_0/1's rdma.port_errors counters: `now` against the run 2 h
 * before whose counters were `before`; the row. */
static gv_check_result port_errors(history_fixture *f, const char *name, double before, double now,
                                   long long apart, const gv_policy *policy)
{
    static const char *const all[] = {"link_downed", "symbol_error", "port_rcv_errors",
                                      "port_xmit_discards", "carrier_changes"};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        set_counter(f->r, "rdma.port_errors", "mlx5_0/1", all[k],
                    strcmp(all[k], name) ? 2 : before);
    append(f, T0);
    set_counter(f->r, "rdma.port_errors", "mlx5_0/1", name, now);
    gv_check_result c = judge(f, gv_check_history_port_errors, T0 + apart, "history.port_errors",
                              "mlx5_0/1", policy);
    /* The next case starts from a database without this run's predecessor. */
    char why[1024];
    gv_history_close(f->db);
    remove(f->path);
    gv_history_limits limits = {.wait_s = 5, .keep_days = 3650, .keep_runs = 10000, .keep_mb = 256};
    if (gv_history_open(f->path, &limits, &f->db, why, sizeof why))
        fail_msg("%s", why);
    return c;
}

static void expect_port(gv_check_result c, int verdict, int32_t action, const char *text)
{
    if (c.verdict != verdict || c.action != action || !strstr(c.message, text))
        fail_msg("history.port_errors %s [%s] '%s', wanted %s [%s] with '%s'",
                 gv_verdict_name(c.verdict), gv_action_name(c.action), c.message,
                 gv_verdict_name(verdict), gv_action_name(action), text);
    if (verdict == GV_WARN || verdict == GV_FAIL)
        assert_true(c.remediation[0] != '\0');
}

static void port_error_growth_is_judged_as_rates(void **state)
{
    history_fixture *f = *state;
    const long long two_h = 7200;
    /* Before any earlier run: nothing to make a rate of. */
    set_counter(f->r, "rdma.port_errors", "mlx5_0/1", "symbol_error", 2);
    gv_check_result c =
        judge(f, gv_check_history_port_errors, T0, "history.port_errors", "mlx5_0/1", NULL);
    expect_port(c, GV_SKIP, GV_ACTION_NONE, "no earlier run with this port's error counters");
    /* Any link-down between runs fails, however slow. */
    c = port_errors(f, "link_downed", 3, 4, 5 * DAY, NULL);
    expect_port(c, GV_FAIL, GV_ACTION_HW_INSPECT, "link_downed +1 (3 -> 4, 0.00833/h");
    /* Symbol errors: 300 in 2 h is 150/h, above NVSentinel's 120/h; 100 in 2 h a WARN. */
    c = port_errors(f, "symbol_error", 12, 312, two_h, NULL);
    expect_port(c, GV_FAIL, GV_ACTION_HW_INSPECT,
                "symbol_error +300 (12 -> 312, 150/h; FAIL above 120/h");
    assert_true(fabs(c.value - 150) < 1e-9);
    assert_string_equal(c.unit, "symbol errors/h");
    c = port_errors(f, "symbol_error", 12, 112, two_h, NULL);
    expect_port(c, GV_WARN, GV_ACTION_HW_INSPECT,
                "symbol_error +100 (12 -> 112, 50/h; WARN above 0/h");
    /* The policy's rates: 50/h under a warn rate of 60/h is reported, not a finding; over a
     * fail rate of 40/h it fails. */
    gv_policy pol = GV_POLICY_INIT;
    pol.history_symbol_error_warn_per_h = 60;
    c = port_errors(f, "symbol_error", 12, 112, two_h, &pol);
    expect_port(c, GV_PASS, GV_ACTION_NONE,
                "symbol_error +100 (12 -> 112, 50/h; at or below the WARN rate 60/h");
    pol.history_symbol_error_fail_per_h = 40;
    c = port_errors(f, "symbol_error", 12, 112, two_h, &pol);
    expect_port(c, GV_FAIL, GV_ACTION_HW_INSPECT, "FAIL above 40/h");
    /* Runs a minute apart: the rate is over an hour at least, a burst is no 180/h. */
    c = port_errors(f, "symbol_error", 0, 3, 60, NULL);
    expect_port(c, GV_WARN, GV_ACTION_HW_INSPECT, "symbol_error +3 (0 -> 3, 3/h");
    assert_non_null(strstr(c.message, "0.0 h before; rates over 1 h at least"));
    /* A counter lower than before was reset: no growth, and said. */
    c = port_errors(f, "symbol_error", 812, 0, two_h, NULL);
    expect_port(c, GV_PASS, GV_ACTION_NONE, "counted as no growth: symbol_error 812 -> 0");
    /* Discards are the traffic's (congestion), a flap of RoCE's carrier the link's. */
    c = port_errors(f, "port_xmit_discards", 14, 2014, two_h, NULL);
    expect_port(c, GV_WARN, GV_ACTION_FIX_CONFIG, "port_xmit_discards +2000 (14 -> 2014, 1e+03/h");
    c = port_errors(f, "carrier_changes", 2, 4, two_h, NULL);
    expect_port(c, GV_WARN, GV_ACTION_HW_INSPECT,
                "carrier_changes +2 (2 -> 4, 1/h: netdev carrier");
    c = port_errors(f, "port_rcv_errors", 5, 5, two_h, NULL);
    expect_port(c, GV_PASS, GV_ACTION_NONE, "no error counter grew since the last run");
    assert_non_null(strstr(c.message, "2.0 h before"));
}

static void a_lemon_gpu_and_node_are_named(void **state)
{
    history_fixture *f = *state;
    gv_check_result *ecc = row(f->r, "gpu.ecc_errors", "gpu7");
    /* gpu7 has a mark in 2 of 8 runs: a FAIL, and an ERROR asking for a reboot (a hung driver
     * call). An ERROR that asks only to run again (the host's budget ran out) and a hold by
     * another gpuverify are no marks against it. */
    for (int i = 0; i < 8; i++) {
        ecc->verdict = i == 1 ? GV_FAIL : i == 2 || i == 4 || i == 6 ? GV_ERROR : GV_PASS;
        ecc->action = i == 1   ? GV_ACTION_HW_INSPECT
                      : i == 2 ? GV_ACTION_RERUN
                      : i == 4 ? GV_ACTION_REBOOT_NODE
                      : i == 6 ? GV_ACTION_WAIT
                               : GV_ACTION_NONE;
        ecc->held_by_other = i == 6;
        append(f, T0 + i * DAY);
    }
    ecc->verdict = GV_FAIL;
    ecc->action = GV_ACTION_HW_INSPECT;
    ecc->held_by_other = 0;
    gv_check_result c =
        judge(f, gv_check_history_record, T0 + 8 * DAY, "history.record", "gpu7", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_HW_INSPECT);
    assert_non_null(strstr(c.message, "3 of 9 runs in the last 30 days had a FAIL or ERROR on "
                                      "this GPU, the first on 2026-10-26"));
    assert_true(c.value == 3);
    c = judge(f, gv_check_history_record, T0 + 8 * DAY, "history.record", "node", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    c = judge(f, gv_check_history_record, T0 + 8 * DAY, "history.record", "gpu0", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "0 of 9 runs"));
    /* Out of the window, the record is clean again. */
    ecc->verdict = GV_PASS;
    ecc->action = GV_ACTION_NONE;
    c = judge(f, gv_check_history_record, T0 + 60 * DAY, "history.record", "gpu7", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
}

/* The record counts the window's runs only, however many came before it. */
static void the_record_counts_only_its_window(void **state)
{
    history_fixture *f = *state;
    gv_check_result *ecc = row(f->r, "gpu.ecc_errors", "gpu7");
    for (int i = 0; i < 40; i++) {
        ecc->verdict = i == 2 || i == 5 || i == 15 || i == 20 ? GV_FAIL : GV_PASS;
        append(f, T0 + i * DAY);
    }
    ecc->verdict = GV_PASS;
    /* The window starts at day 10: days 10-39 and this run. */
    gv_check_result c =
        judge(f, gv_check_history_record, T0 + 40 * DAY, "history.record", "gpu7", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "2 of 31 runs in the last 30 days"));
    c = judge(f, gv_check_history_record, T0 + 40 * DAY, "history.record", "node", NULL);
    assert_non_null(strstr(c.message, "2 of 31 runs in the last 30 days"));
    ecc->verdict = GV_FAIL;
    c = judge(f, gv_check_history_record, T0 + 40 * DAY, "history.record", "gpu7", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "3 of 31 runs in the last 30 days had a FAIL or ERROR on "
                                      "this GPU, the first on 2026-11-09"));
    c = judge(f, gv_check_history_record, T0 + 40 * DAY, "history.record", "gpu0", NULL);
    assert_non_null(strstr(c.message, "0 of 31 runs"));
}

static void a_gpu_moved_to_another_slot_keeps_its_record(void **state)
{
    history_fixture *f = *state;
    char uuid[96];
    snprintf(uuid, sizeof uuid, "%s", f->r->gpus[0].uuid);
    set_value(f->r, "gemm.fp16", "gpu0", 740, "TFLOPS");
    for (int i = 0; i < 6; i++)
        append(f, T0 + i * DAY);
    /* Now the same GPU sits at index 1 and reads slow there; gpu0 is another GPU. */
    snprintf(f->r->gpus[0].uuid, sizeof f->r->gpus[0].uuid, "%s", f->r->gpus[1].uuid);
    snprintf(f->r->gpus[1].uuid, sizeof f->r->gpus[1].uuid, "%s", uuid);
    set_value(f->r, "gemm.fp16", "gpu1", 650, "TFLOPS");
    gv_check_result c =
        judge(f, gv_check_history_performance, T0 + 6 * DAY, "history.performance", "gpu1", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "median 740 over 6 runs"));
}

/* The fixture's database opened again with 30 days' and keep_runs runs' retention. */
static void reopen_keeping(history_fixture *f, double keep_runs)
{
    gv_history_close(f->db);
    gv_history_limits limits = {
        .wait_s = 5, .keep_days = 30, .keep_runs = keep_runs, .keep_mb = 256};
    char why[1024];
    if (gv_history_open(f->path, &limits, &f->db, why, sizeof why))
        fail_msg("%s", why);
}

static void retention_keeps_the_newest_runs(void **state)
{
    history_fixture *f = *state;
    reopen_keeping(f, 4);
    char why[1024];
    for (int i = 0; i < 10; i++)
        append(f, T0 + i * DAY);
    gv_history_record rec;
    assert_int_equal(gv_history_record_of(f->db, "gpu-h100-017/node", 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 4);
    append(f, T0 + 100 * DAY); /* age counts from the run before: nothing deleted by age */
    assert_int_equal(gv_history_record_of(f->db, "gpu-h100-017/node", 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 4);
}

/* A GPU's record counts the run's own rows, not the history checks' after them, which judge the
 * record: a history row's FAIL on gpu0 leaves gpu0's run clean; one of the run's own marks it. */
static void history_rows_are_not_part_of_the_record(void **state)
{
    history_fixture *f = *state;
    char why[1024], uuid[96];
    snprintf(uuid, sizeof uuid, "%s", f->r->gpus[0].uuid);
    gv_history_record rec;
    size_t before = f->r->count;
    gv_result_action(gv_report_add(f->r, "history.performance", "gpu0", GV_FAIL, "slower"),
                     GV_ACTION_HW_INSPECT);
    gv_history_run run = {.started_unix = T0, .comparable = "x", .history_rows = 1};
    if (gv_history_append(f->db, f->r, &run, why, sizeof why))
        fail_msg("%s", why);
    assert_int_equal(gv_history_record_of(f->db, uuid, 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 1);
    assert_int_equal(rec.bad, 0);
    run.started_unix = T0 + DAY;
    run.history_rows = 0; /* the same row as the run's own */
    if (gv_history_append(f->db, f->r, &run, why, sizeof why))
        fail_msg("%s", why);
    assert_int_equal(gv_history_record_of(f->db, uuid, 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 2);
    assert_int_equal(rec.bad, 1);
    f->r->count = before;
}

/* A run with its clock 400 days ahead deletes nothing; the runs after it, back on time, keep
 * theirs and are compared with the last run before them in time, not with it. */
static void a_clock_far_ahead_erases_nothing(void **state)
{
    history_fixture *f = *state;
    reopen_keeping(f, 1000);
    char why[1024];
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "link_downed", 3);
    for (int i = 0; i < 20; i++)
        append(f, T0 + i * DAY);
    append(f, T0 + 400 * DAY);
    gv_history_record rec;
    assert_int_equal(gv_history_record_of(f->db, "gpu-h100-017/node", 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 21);
    /* The clock is right again, and the port flapped: reported once, by the first run after. */
    set_counter(f->r, "rdma.ports", "mlx5_0/1", "link_downed", 5);
    gv_check_result c =
        judge(f, gv_check_history_links, T0 + 20 * DAY, "history.links", "mlx5_0/1", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    /* The step back is said on the node's record, not judged as anything else. */
    c = judge(f, gv_check_history_record, T0 + 20 * DAY, "history.record", "node", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_FIX_CONFIG);
    assert_non_null(strstr(c.message, "the clock is behind the last run's"));
    assert_non_null(strstr(c.message, "380.0 days after this one"));
    append(f, T0 + 20 * DAY);
    assert_int_equal(gv_history_record_of(f->db, "gpu-h100-017/node", 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 22);
    /* The next run compares with that one, not with the run stamped ahead: not again. */
    c = judge(f, gv_check_history_links, T0 + 21 * DAY, "history.links", "mlx5_0/1", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    c = judge(f, gv_check_history_record, T0 + 21 * DAY, "history.record", "node", NULL);
    assert_null(strstr(c.message, "the clock is behind")); /* the last run is on time again */
    /* Runs far older than the window go, down to the newest ten, never fewer. */
    for (int i = 0; i < 3; i++)
        append(f, T0 + (200 + i) * DAY);
    assert_int_equal(gv_history_record_of(f->db, "gpu-h100-017/node", 0, &rec, why, sizeof why), 0);
    assert_int_equal(rec.runs, 10);
}

/* history.xid: Xid 79 on gpu5 seen only by an earlier run's watch of NVML's events, the kernel
 * log unreadable. Recalled by every run of the same boot: FAIL while the driver names a
 * recovery action or cannot say, WARN once it reports none; forgotten at the next boot. */
static void a_watched_fault_is_recalled_until_the_next_boot(void **state)
{
    history_fixture *f = *state;
    gv_check_result c = judge(f, gv_check_history_xid, T0, "history.xid", "node", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "the kernel log was read"));
    /* The log not read from here on: gpu.xid's node row, and gpu5's row of the fault. */
    gv_check_result *node = row(f->r, "gpu.xid", "node");
    node->verdict = GV_WARN;
    c = judge(f, gv_check_history_xid, T0, "history.xid", "node", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "boot time is unknown"));
    set_counter(f->r, "gpu.xid", "node", "boot_unix", (double)(T0 - DAY));
    set_counter(f->r, "gpu.xid", "node", "watched_s", 60);
    c = judge(f, gv_check_history_xid, T0, "history.xid", "node", NULL);
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "no earlier run since the node booted"));
    gv_check_result *fault = row(f->r, "gpu.xid", "gpu5");
    fault->verdict = GV_FAIL;
    snprintf(fault->message, sizeof fault->message, "%s",
             "1 Xid fault(s) reported while NVML was watched for 0.8 s (codes 79)");
    set_counter(f->r, "gpu.xid", "gpu5", "watched_faults", 1);
    append(f, T0);
    /* The next pass saw nothing itself. */
    fault->verdict = GV_PASS;
    set_counter(f->r, "gpu.xid", "gpu5", "watched_faults", 0);
    append(f, T0 + 60);
    gv_check_result *recovery = row(f->r, "gpu.recovery", "gpu5");
    recovery->verdict = GV_FAIL;
    recovery->action = GV_ACTION_RESET_GPU;
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_int_equal(c.action, GV_ACTION_RESET_GPU);
    assert_non_null(strstr(c.message, "1 Xid fault(s) reported by NVML to 1 earlier run(s)"));
    assert_non_null(strstr(c.message, "(codes 79)"));
    assert_non_null(strstr(c.message, "still needs its recovery action"));
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu4", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "the 2 earlier run(s) that watched"));
    recovery->verdict = GV_SKIP; /* a driver before R550 */
    recovery->action = GV_ACTION_NONE;
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_int_equal(c.action, GV_ACTION_REBOOT_NODE);
    assert_non_null(strstr(c.message, "the driver cannot say what it needs"));
    snprintf(recovery->id, sizeof recovery->id, "%s", "gpu.other"); /* gpu.recovery not run */
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "gpu.recovery, which reads whether the driver"));
    snprintf(recovery->id, sizeof recovery->id, "%s", "gpu.recovery");
    recovery->verdict = GV_PASS; /* reset since */
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_WARN);
    assert_int_equal(c.action, GV_ACTION_RERUN);
    /* Rebooted after the fault: its runs are an earlier boot's. */
    set_counter(f->r, "gpu.xid", "node", "boot_unix", (double)(T0 + 30));
    recovery->verdict = GV_FAIL;
    c = judge(f, gv_check_history_xid, T0 + 120, "history.xid", "gpu5", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "the 1 earlier run(s) that watched"));
}

/* history.standing: gpu3's GEMM and the node's all-reduce FAILed in a standard run; the passive
 * runs after it do not run them, and publish those FAILs until a run judges them again. A run
 * that could not judge (the GPU busy: SKIP) leaves the FAIL standing; a run that PASSes it
 * clears it; past the window it is forgotten. */
static void a_fail_stands_until_judged_again(void **state)
{
    history_fixture *f = *state;
    gv_check_result c = judge(f, gv_check_history_standing, T0, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    size_t passive = f->r->count;
    gv_check_result *gemm = gv_report_add(f->r, "gemm.bf16", "gpu3", GV_FAIL, "products wrong");
    gv_result_action(gemm, GV_ACTION_HW_INSPECT);
    gv_result_action(gv_report_add(f->r, "nccl.allreduce", "node", GV_FAIL, "1 wrong element"),
                     GV_ACTION_HW_INSPECT);
    append(f, T0);
    f->r->count = passive; /* the passive runs after it */
    append(f, T0 + 60);
    c = judge(f, gv_check_history_standing, T0 + 120, "history.standing", "gpu3", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_int_equal(c.action, GV_ACTION_HW_INSPECT);
    assert_non_null(strstr(c.message, "gemm.bf16 FAILed when last judged here"));
    assert_non_null(strstr(c.message, "products wrong"));
    c = judge(f, gv_check_history_standing, T0 + 120, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "nccl.allreduce FAILed"));
    /* gpu3 busy with a job: its GEMM not judged, the FAIL stands. */
    gv_report_add(f->r, "gemm.bf16", "gpu3", GV_SKIP, "not judged: busy");
    append(f, T0 + 180);
    c = judge(f, gv_check_history_standing, T0 + 240, "history.standing", "gpu3", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    /* This run judges it: it is this run's verdict, not a standing one. */
    f->r->results[f->r->count - 1].verdict = GV_PASS;
    c = judge(f, gv_check_history_standing, T0 + 240, "history.standing", "node", NULL);
    assert_non_null(strstr(c.message, "nccl.allreduce")); /* the node's alone stands */
    append(f, T0 + 240);
    f->r->count = passive;
    c = judge(f, gv_check_history_standing, T0 + 300, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "nccl.allreduce"));
    /* Past the window, what was last judged a month and more ago is forgotten. */
    c = judge(f, gv_check_history_standing, T0 + 31 * DAY, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
}

/* A check that FAILs a subject and PASSes the node in one row (nvswitch.sxid, cuda.copy_all):
 * its PASS judges every subject, in this run and in the record. Pruning by count leaves a FAIL
 * that stands; the history rows that repeat it do not make each run a bad one. */
static void a_pass_of_the_whole_node_ends_what_stood(void **state)
{
    history_fixture *f = *state;
    reopen_keeping(f, 3);
    gv_check_result *whole = row(f->r, "nvswitch.sxid", "node");
    whole->verdict = GV_SKIP; /* the passive runs below do not judge it */
    size_t passive = f->r->count;
    gv_result_action(gv_report_add(f->r, "nvswitch.sxid", "nvswitch2", GV_FAIL, "SXid 24007"),
                     GV_ACTION_REBOOT_NODE);
    append(f, T0);
    f->r->count = passive;
    for (int i = 1; i <= 5; i++) { /* more runs than kept: the FAIL's run is deleted */
        gv_result_action(gv_report_add(f->r, "history.standing", "nvswitch2", GV_FAIL, "stands"),
                         GV_ACTION_REBOOT_NODE);
        gv_history_run run = {.started_unix = T0 + 60 * i, .comparable = "x", .history_rows = 1};
        char why[1024];
        if (gv_history_append(f->db, f->r, &run, why, sizeof why))
            fail_msg("%s", why);
        f->r->count = passive;
    }
    gv_check_result c =
        judge(f, gv_check_history_standing, T0 + 600, "history.standing", "nvswitch2", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_int_equal(c.action, GV_ACTION_REBOOT_NODE);
    c = judge(f, gv_check_history_record, T0 + 600, "history.record", "node", NULL);
    assert_true(c.value == 0); /* history.standing's FAILs in 3 runs kept: no bad run */
    whole->verdict = GV_PASS;  /* "no SXid logged since boot" */
    c = judge(f, gv_check_history_standing, T0 + 600, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    append(f, T0 + 600);
    f->r->count = passive;
    c = judge(f, gv_check_history_standing, T0 + 660, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
}

/* gpu.xid's FAIL that stands where the log is no longer read: one read from the log of this
 * boot stands; one NVML reported to a watch is history.xid's to recall; one of an earlier
 * boot is gone with it. */
static void an_xid_from_the_log_stands_without_it(void **state)
{
    history_fixture *f = *state;
    size_t passive = f->r->count;
    gv_result_action(gv_report_add(f->r, "gpu.xid", "gpu3", GV_FAIL, "1 Xid fault(s) logged"),
                     GV_ACTION_REBOOT_NODE);
    append(f, T0);
    f->r->count = passive;
    for (size_t i = 0; i < passive; i++) /* the log not read from here on */
        if (!strcmp(f->r->results[i].id, "gpu.xid"))
            f->r->results[i].verdict = GV_SKIP;
    row(f->r, "gpu.xid", "node")->verdict = GV_WARN;
    set_counter(f->r, "gpu.xid", "node", "boot_unix", (double)(T0 - DAY));
    gv_check_result c =
        judge(f, gv_check_history_standing, T0 + 60, "history.standing", "gpu3", NULL);
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "gpu.xid FAILed"));
    gv_report_add(f->r, "history.xid", "gpu3", GV_WARN, "recalled by history.xid");
    c = judge(f, gv_check_history_standing, T0 + 60, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
    f->r->count--;
    set_counter(f->r, "gpu.xid", "node", "boot_unix", (double)(T0 + 30)); /* rebooted since */
    c = judge(f, gv_check_history_standing, T0 + 60, "history.standing", "node", NULL);
    assert_int_equal(c.verdict, GV_PASS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(slowing_gpu_warns_against_its_own_median, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failing_figure_is_still_judged, setup, teardown),
        cmocka_unit_test_setup_teardown(a_noisy_gpu_is_judged_by_its_own_spread, setup, teardown),
        cmocka_unit_test_setup_teardown(too_few_runs_skip_saying_how_many, setup, teardown),
        cmocka_unit_test_setup_teardown(climbing_correctable_errors_warn, setup, teardown),
        cmocka_unit_test_setup_teardown(spare_banks_running_out_are_projected, setup, teardown),
        cmocka_unit_test_setup_teardown(a_port_that_flapped_between_runs_warns, setup, teardown),
        cmocka_unit_test_setup_teardown(port_error_growth_is_judged_as_rates, setup, teardown),
        cmocka_unit_test_setup_teardown(a_lemon_gpu_and_node_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(the_record_counts_only_its_window, setup, teardown),
        cmocka_unit_test_setup_teardown(a_gpu_moved_to_another_slot_keeps_its_record, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(retention_keeps_the_newest_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(history_rows_are_not_part_of_the_record, setup, teardown),
        cmocka_unit_test_setup_teardown(a_clock_far_ahead_erases_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_watched_fault_is_recalled_until_the_next_boot, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_fail_stands_until_judged_again, setup, teardown),
        cmocka_unit_test_setup_teardown(a_pass_of_the_whole_node_ends_what_stood, setup, teardown),
        cmocka_unit_test_setup_teardown(an_xid_from_the_log_stands_without_it, setup, teardown),
    };
    return run_shard("test_history", tests, sizeof tests / sizeof *tests);
}
