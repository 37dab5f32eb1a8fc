/* SPDX-License-Identifier: Apache-2.0 */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *env_or_fail(const char *name)
{
    const char *v = getenv(name);
    if (!v)
        fail_msg("%s is not set: run the tests through ctest", name);
    return v;
}

const char *fixture(const char *rel)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", env_or_fail("GV_TEST_FIXTURES"), rel);
    return path;
}

const char *fakelib(void)
{
    return env_or_fail("GV_TEST_FAKELIB");
}

const char *emptylib(void)
{
    return env_or_fail("GV_TEST_EMPTYLIB");
}

void use_scenario(const char *scenario)
{
    if (!scenario) {
        unsetenv("GV_FAKE_SCENARIO");
        return;
    }
    char sc[PATH_MAX];
    snprintf(sc, sizeof sc, "%s", fixture("scenarios/"));
    strncat(sc, scenario, sizeof sc - strlen(sc) - 6);
    strcat(sc, ".conf");
    setenv("GV_FAKE_SCENARIO", sc, 1);
}

gv_gemm_opts small_gemm(int dtype)
{
    gv_gemm_opts o = GV_GEMM_OPTS_INIT;
    o.dtype = dtype;
    o.m = o.n = o.k = 32;
    o.warmup_s = 0;
    o.batch_s = 1e-9;
    o.batches = 3;
    o.algo_candidates = 2;
    return o;
}

gv_ctx *scenario_ctx(const char *sysroot, const char *scenario)
{
    use_scenario(scenario);
    return sysroot_ctx(sysroot, scenario != NULL);
}

gv_ctx *sysroot_ctx(const char *sysroot, int fakes)
{
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", fixture("sysroots/"));
    strncat(root, sysroot, sizeof root - strlen(root) - 1);
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.sysroot = root;
    o.library_dir = fakes ? fakelib() : emptylib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    return ctx;
}

gv_ctx *worker_ctx(const char *scenario, double deadline_s)
{
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    char root[4096];
    snprintf(root, sizeof root, "%s", fixture("sysroots/h100-open"));
    co.sysroot = root;
    co.library_dir = fakelib();
    co.worker_path = getenv("GV_TEST_WORKER");
    co.deadline_s = deadline_s;
    use_scenario(scenario);
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    return ctx;
}

gv_report *run_scenario(const char *sysroot, const char *scenario)
{
    return run_scenario_policy(sysroot, scenario, NULL);
}

gv_report *run_scenario_policy(const char *sysroot, const char *scenario, const gv_policy *policy)
{
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_report *r = NULL;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = GV_TEST_PASSIVE_CHECKS;
    o.policy = policy;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_non_null(r);
    gv_ctx_destroy(ctx);
    return r;
}

gv_check_result result_of(const gv_report *r, const char *id, const char *subject)
{
    gv_check_result c = GV_CHECK_RESULT_INIT;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        if (strcmp(c.id, id) == 0 && strcmp(c.subject, subject) == 0)
            return c;
    }
    fail_msg("no result %s for %s", id, subject);
    return c;
}

int verdict_of(const gv_report *r, const char *id, const char *subject)
{
    return result_of(r, id, subject).verdict;
}

int count_verdict(const gv_report *r, int verdict)
{
    int n = 0;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        n += c.verdict == verdict;
    }
    return n;
}

gv_gpu gpu_of(const gv_report *r, uint32_t index)
{
    gv_gpu g = GV_GPU_INIT;
    assert_int_equal(gv_report_gpu(r, index, &g), GV_OK);
    return g;
}

char *temp_root(void)
{
    char tmpl[] = "/tmp/gv-test-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

char *copy_of_h100(void)
{
    char *root = temp_root();
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp -a '%s/.' '%s/'", fixture("sysroots/h100-open"), root);
    assert_int_equal(system(cmd), 0);
    return root;
}

void put_file(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void remove_tree(const char *root)
{
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int run_shard(const char *name, const struct CMUnitTest *tests, size_t count)
{
    /* GV_TEST_ONLY / GV_TEST_SKIP: one test of a suite in a ctest test of its own (one that
     * must run alone), the rest without it. */
    if (getenv("GV_TEST_ONLY"))
        cmocka_set_test_filter(getenv("GV_TEST_ONLY"));
    if (getenv("GV_TEST_SKIP"))
        cmocka_set_skip_filter(getenv("GV_TEST_SKIP"));
    const char *shard = getenv("GV_TEST_SHARD");
    unsigned i = 0, n = 0;
    if (!shard || sscanf(shard, "%u/%u", &i, &n) != 2 || n == 0 || i < 1 || i > n)
        return _cmocka_run_group_tests(name, tests, count, NULL, NULL);
    struct CMUnitTest *mine = calloc(count, sizeof *mine);
    size_t k = 0;
    for (size_t t = 0; mine && t < count; t++)
        if (t % n == i - 1)
            mine[k++] = tests[t];
    int failed = mine ? _cmocka_run_group_tests(name, mine, k, NULL, NULL) : 1;
    free(mine);
    return failed;
}
