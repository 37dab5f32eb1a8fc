/* SPDX-License-Identifier: Apache-2.0 */
/* The library in a caller that chose its user's locale (setlocale(LC_ALL, "")): a German one
 * writes "0,5" for 0.5 and reads "0.5" as 0, a Turkish one does not match "i" with "I". Every
 * run, call, policy and output must be what it is in the C locale, the caller's hooks run in
 * its own locale, and its locale is left as it was. The locales come from $GV_TEST_LOCALES (ctest
 * makes them with localedef). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define CHECKS "system,driver,gpu,cuda.init,cuda.alloc,gemm.fp16"

/* The decimal point the caller's event hook saw last: its own locale's, not the C locale the
 * library works in. */
static char hook_point[8];

static void hook(const gv_run_event *e, void *user)
{
    (void)e, (void)user;
    snprintf(hook_point, sizeof hook_point, "%s", localeconv()->decimal_point);
}

/* A run over the fakes, in gpuverify-worker (isolation process) or in this process (none),
 * with a policy whose fraction and model a locale could misread; then a call, its verdict in
 * *call. */
static gv_report *run(int isolation, int *call)
{
    /* A fractional deadline crosses to the worker as text. */
    gv_ctx *ctx = worker_ctx("h100x8", 7.5);
    gv_policy p = GV_POLICY_INIT;
    assert_int_equal(
        gv_policy_parse(ctx, "gemm_warn_fraction = 0.5\ngpu_model = nvidia h100\n", &p), GV_OK);
    assert_true(p.gemm_warn_fraction == 0.5);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = CHECKS;
    o.gemm_size = 32;
    o.isolation = isolation;
    o.policy = &p;
    o.budget_s = 60.25;
    o.on_event = hook;
    hook_point[0] = '\0';
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_string_equal(hook_point, localeconv()->decimal_point);
    gv_cuda_result c = GV_CUDA_RESULT_INIT; /* in the worker: its deadline as text too */
    assert_int_equal(gv_cuda_check(ctx, 0, NULL, &c), GV_OK);
    *call = c.verdict;
    gv_ctx_destroy(ctx);
    return r;
}

static int by_text(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Each row's check, subject and verdict, one a line, sorted: the GPUs' lanes end in any order. */
static char *verdicts(const gv_report *r)
{
    uint32_t n = gv_report_count(r);
    char(*rows)[160] = calloc(n ? n : 1, sizeof *rows);
    char *out = calloc(n + 1, sizeof *rows);
    assert_non_null(rows);
    assert_non_null(out);
    for (uint32_t i = 0; i < n; i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        snprintf(rows[i], sizeof rows[i], "%s %s %s\n", c.id, c.subject,
                 gv_verdict_name(c.verdict));
    }
    qsort(rows, n, sizeof *rows, by_text);
    for (uint32_t i = 0; i < n; i++)
        strcat(out, rows[i]);
    free(rows);
    return out;
}

/* The report's Prometheus text without its run's duration (which differs run to run). */
static char *metrics(const gv_report *r)
{
    char *text = NULL;
    assert_int_equal(gv_report_prometheus(r, 0, &text), GV_OK);
    return text;
}

static void runs_calls_and_outputs_do_not_follow_the_callers_locale(void **state)
{
    (void)state;
    const char *list = getenv("GV_TEST_LOCALES");
    assert_non_null(list);
    char *expected[2];
    gv_report *in_c[2];
    int call_in_c[2];
    for (int iso = 0; iso < 2; iso++) {
        in_c[iso] = run(iso ? GV_ISOLATION_NONE : GV_ISOLATION_PROCESS, &call_in_c[iso]);
        expected[iso] = verdicts(in_c[iso]);
        assert_int_equal(gv_report_verdict(in_c[iso]), GV_PASS);
    }
    char locales[256];
    snprintf(locales, sizeof locales, "%s", list);
    for (char *save = NULL, *name = strtok_r(locales, " ", &save); name;
         name = strtok_r(NULL, " ", &save)) {
        assert_non_null(setlocale(LC_ALL, name)); /* made by ctest's localedef */
        const char *point = localeconv()->decimal_point;
        char before[8];
        snprintf(before, sizeof before, "%s", point);
        for (int iso = 0; iso < 2; iso++) {
            int call;
            gv_report *r = run(iso ? GV_ISOLATION_NONE : GV_ISOLATION_PROCESS, &call);
            assert_int_equal(call, call_in_c[iso]);
            char *got = verdicts(r);
            assert_string_equal(got, expected[iso]);
            free(got);
            /* The same report renders the same text whatever the locale. */
            setlocale(LC_ALL, "C");
            char *want = metrics(in_c[iso]);
            assert_non_null(setlocale(LC_ALL, name));
            char *text = metrics(in_c[iso]);
            assert_string_equal(text, want);
            gv_free(text);
            gv_free(want);
            gv_report_free(r);
        }
        /* The caller's locale is still its own. */
        assert_string_equal(setlocale(LC_ALL, NULL), name);
        assert_string_equal(localeconv()->decimal_point, before);
    }
    setlocale(LC_ALL, "C");
    for (int iso = 0; iso < 2; iso++) {
        free(expected[iso]);
        gv_report_free(in_c[iso]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_calls_and_outputs_do_not_follow_the_callers_locale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
