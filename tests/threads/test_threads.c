/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run from 8 threads at once, each on its own context, against the fake libraries: through
 * gpuverify-worker (the caller's side: spawning, reading, killing) and in-process (loading,
 * NVML, the checks). Built under ThreadSanitizer (-DGPUVERIFY_TSAN=ON, .ci/run), which fails
 * the run on any data race; each thread also checks its verdicts. docs/ABI.md, "Threads and
 * fork", states the rules this proves. Usage: test_threads FIXTURES FAKELIB WORKER */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define ROUNDS 3

static const char *fixtures, *fakelib, *worker;

typedef struct job {
    int index;
    int isolation;
    int failures;
    char problem[256];
} job;

static const char *verdict_of(const gv_report *r, const char *id, char *message, size_t cap)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) == GV_OK && strcmp(c.id, id) == 0) {
            snprintf(message, cap, "%s", c.message);
            return gv_verdict_name(c.verdict);
        }
    }
    return "absent";
}

static void *run(void *arg)
{
    job *j = arg;
    char root[4096];
    snprintf(root, sizeof root, "%s/sysroots/h100-open", fixtures);
    for (int round = 0; round < ROUNDS; round++) {
        gv_ctx_opts co = GV_CTX_OPTS_INIT;
        co.sysroot = root;
        co.library_dir = fakelib;
        co.worker_path = worker;
        co.deadline_s = 60;
        gv_ctx *ctx = NULL;
        if (gv_ctx_create(&co, &ctx) != GV_OK) {
            snprintf(j->problem, sizeof j->problem, "gv_ctx_create failed");
            j->failures++;
            return NULL;
        }
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.isolation = j->isolation;
        o.checks = "system,driver.module,driver.nvml,driver.version,driver.gpu_count,gpu.nvml,"
                   "gpu.ecc";
        gv_report *r = NULL;
        gv_status s = gv_run(ctx, &o, &r);
        char message[512] = "";
        const char *v = s == GV_OK ? verdict_of(r, "driver.gpu_count", message, sizeof message)
                                   : gv_ctx_last_error(ctx);
        if (s != GV_OK || strcmp(v, "PASS") != 0 || !strstr(message, "8 GPU(s)") ||
            gv_report_count(r) < 20) {
            snprintf(j->problem, sizeof j->problem, "thread %d round %d: %s %s (%u rows)", j->index,
                     round, v, message, gv_report_count(r));
            j->failures++;
        }
        gv_report_free(r);
        gv_ctx_destroy(ctx);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_threads FIXTURES FAKELIB WORKER\n");
        return 2;
    }
    fixtures = argv[1];
    fakelib = argv[2];
    worker = argv[3];
    char scenario[4096];
    snprintf(scenario, sizeof scenario, "%s/scenarios/h100x8.conf", fixtures);
    setenv("GV_FAKE_SCENARIO", scenario, 1); /* before any thread starts */
    int failures = 0;
    for (int isolation = GV_ISOLATION_PROCESS; isolation <= GV_ISOLATION_NONE; isolation++) {
        pthread_t t[THREADS];
        job jobs[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (job){.index = i, .isolation = isolation};
            if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0)
                return 2;
        }
        for (int i = 0; i < THREADS; i++) {
            pthread_join(t[i], NULL);
            if (jobs[i].failures)
                fprintf(stderr, "%s\n", jobs[i].problem);
            failures += jobs[i].failures;
        }
        printf("%d threads x %d runs, isolation %s: %d wrong\n", THREADS, ROUNDS,
               isolation == GV_ISOLATION_PROCESS ? "process" : "none", failures);
    }
    return failures ? 1 : 0;
}
