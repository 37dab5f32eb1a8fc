/* SPDX-License-Identifier: Apache-2.0 */
/* gv_nccl_* over the fake libnccl and libcuda: exact data for every collective, figures by
 * nccl-tests' formulas, the fault scenarios (wrong sum, hang, crash, absent), the deadline with
 * a rank that never arrives (in gpuverify-worker, the default, and in the caller), the nccl.*
 * rows of gv_run, and refusals of bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/context.h"
#include "helpers.h"
#include "nccl/nccl_ahead.h"
#include "nccl/nccl_log.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* A short sweep the fake computes quickly: 64 B .. 256 KiB. */
static gv_nccl_opts small(int collective)
{
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    o.collective = collective;
    o.min_bytes = 64;
    o.max_bytes = 256 << 10;
    o.step_factor = 4;
    o.iters = 3;
    o.deadline_s = 20;
    return o;
}

static void allreduce_over_eight_gpus_is_exact_with_nccl_tests_figures(void **state)
{
    (void)state;
    unsetenv("NCCL_ALGO");
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.nranks, 8);
    assert_int_equal(r.local_gpus, 8);
    assert_int_equal(r.rank, 0);
    assert_int_equal(r.nccl_version, 22809);
    assert_string_equal(r.version, "2.28.9");
    assert_int_equal(r.nccl_cuda, 13000); /* read from the library's version string */
    assert_int_equal(r.size_count, 7);    /* 64 B, 256 B, ... 256 KiB */
    assert_int_equal(r.sizes[0].bytes, 64);
    assert_int_equal(r.sizes[0].count, 16);
    assert_int_equal(r.sizes[6].bytes, 256 << 10);
    assert_int_equal(r.wrong_elements, 0);
    for (uint32_t i = 0; i < r.size_count; i++) {
        const gv_nccl_size *s = &r.sizes[i];
        assert_int_equal(s->wrong, 0);
        assert_true(s->time_us > 0);
        /* busbw = algbw x 2(n-1)/n, algbw = bytes / time. */
        assert_true(fabs(s->algbw_gbps - s->bytes / (s->time_us * 1e-6) / 1e9) <
                    1e-6 * s->algbw_gbps + 1e-9);
        assert_true(fabs(s->busbw_gbps - s->algbw_gbps * 14.0 / 8.0) < 1e-9 + 1e-9 * s->busbw_gbps);
        assert_true(s->busbw_gbps <= r.peak_busbw_gbps);
    }
    assert_non_null(strstr(r.gpus, "0=0000:18:00.0"));
    assert_non_null(strstr(r.gpus, "7=0000:db:00.0"));
    assert_non_null(strstr(r.settings, "none set"));
    assert_non_null(strstr(r.message, "data exact at 7 sizes"));
    assert_int_equal(r.isolation, GV_ISOLATION_PROCESS); /* the build tree's worker was found */
    /* In the caller's process: the same figures' shape, the same exact data. */
    o.flags = GV_NCCL_IN_PROCESS;
    gv_nccl_result here = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &here), GV_OK);
    assert_int_equal(here.verdict, GV_PASS);
    assert_int_equal(here.isolation, GV_ISOLATION_NONE);
    assert_int_equal(here.size_count, r.size_count);
    assert_int_equal(here.wrong_elements, 0);
    assert_string_equal(here.gpus, r.gpus);
    gv_ctx_destroy(ctx);
}

/* nccl-tests' bus factor and "size" for each collective over 3 ranks. */
static double factor_over_three(int coll)
{
    return coll == GV_NCCL_ALL_REDUCE ? 4.0 / 3
           : coll == GV_NCCL_BROADCAST || coll == GV_NCCL_REDUCE || coll == GV_NCCL_SEND_RECV
               ? 1
               : 2.0 / 3;
}

static void every_collective_is_exact_on_an_odd_number_of_gpus(void **state)
{
    (void)state;
    setenv("NCCL_ALGO", "Ring", 1);
    /* NCCL 2.28's own all-to-all, gather and scatter; 2.27's made of sends and receives. */
    const char *scenarios[] = {"h100x8", "h100x8-nccl-2.27"};
    for (size_t sc = 0; sc < 2; sc++) {
        gv_ctx *ctx = scenario_ctx("h100-open", scenarios[sc]);
        for (int coll = 0; coll < GV_NCCL_PAIRS; coll++) {
            gv_nccl_opts o = small(coll);
            o.gpu_count = 3;
            o.gpus[0] = 5, o.gpus[1] = 1, o.gpus[2] = 2;
            o.flags = GV_NCCL_IN_PLACE;
            gv_nccl_result r = GV_NCCL_RESULT_INIT;
            assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
            assert_int_equal(r.verdict, GV_PASS);
            /* In place too, exact, where the collective has an in-place form. */
            int in_place = coll != GV_NCCL_ALL_TO_ALL && coll != GV_NCCL_SEND_RECV;
            for (uint32_t i = 0; i < r.size_count; i++) {
                assert_int_equal(r.in_place[i].bytes, r.sizes[i].bytes);
                assert_int_equal(r.in_place[i].wrong, 0);
                assert_true(in_place ? r.in_place[i].time_us > 0 : r.in_place[i].time_us == 0);
            }
            assert_int_equal(r.nranks, 3);
            assert_int_equal(r.collective, coll);
            assert_int_equal(r.wrong_elements, 0);
            assert_true(r.size_count >= 6);
            const gv_nccl_size *last = &r.sizes[r.size_count - 1];
            assert_true(fabs(last->busbw_gbps - last->algbw_gbps * factor_over_three(coll)) <
                        1e-9 * last->busbw_gbps + 1e-12);
            if (coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_REDUCE_SCATTER ||
                coll == GV_NCCL_GATHER || coll == GV_NCCL_SCATTER) {
                /* nccl-tests' size is the whole gathered (scattered) buffer: whole elements per
                 * rank. */
                assert_int_equal(last->bytes, last->count * 4 * 3);
                assert_int_equal(last->count, (256 << 10) / 4 / 3);
            } else if (coll == GV_NCCL_ALL_TO_ALL) {
                /* Parts of whole 16 bytes, as nccl-tests makes them. */
                assert_int_equal(last->count, ((256 << 10) / 4 / 3) & ~3u);
                assert_int_equal(last->bytes, last->count * 4 * 3);
            } else {
                assert_int_equal(last->bytes, 256 << 10);
            }
            assert_string_equal(r.gpus, "5=0000:ab:00.0 1=0000:2a:00.0 2=0000:3a:00.0");
            assert_non_null(strstr(r.settings, "NCCL_ALGO=Ring (environment)"));
            assert_non_null(strstr(r.message, gv_nccl_collective_name(coll)));
        }
        gv_ctx_destroy(ctx);
    }
    unsetenv("NCCL_ALGO");
}

static void a_wrong_result_fails_every_collective(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-wrong-sum");
    for (int coll = 0; coll < GV_NCCL_COLLECTIVES; coll++) {
        gv_nccl_opts o = small(coll);
        o.max_bytes = 4096;
        o.gpu_count = 2, o.gpus[0] = 0, o.gpus[1] = 1;
        o.flags = GV_NCCL_IN_PLACE;
        gv_nccl_result r = GV_NCCL_RESULT_INIT;
        assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
        assert_int_equal(r.verdict, GV_FAIL); /* rank 0's first element is off by one */
        assert_true(r.wrong_elements >= 1);
        /* Caught in place as well, where there is an in-place form (root 0 receives in all). */
        if (coll != GV_NCCL_ALL_TO_ALL && coll != GV_NCCL_SEND_RECV && coll != GV_NCCL_PAIRS)
            assert_true(r.in_place[0].wrong >= 1);
        assert_non_null(strstr(r.message, "wrong element(s)"));
    }
    gv_ctx_destroy(ctx);
}

static void a_wrong_sum_fails_with_the_count(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-wrong-sum");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_FAIL);
    /* One wrong element in the verified operation of each of the 7 sizes. */
    assert_int_equal(r.wrong_elements, 7);
    assert_int_equal(r.sizes[0].wrong, 1);
    assert_non_null(strstr(r.message, "7 wrong element(s), the first at 64 bytes"));
    gv_ctx_destroy(ctx);
}

/* Both places a sweep runs: gpuverify-worker (flags 0) and the caller (GV_NCCL_IN_PROCESS). */
static const uint32_t places[] = {0, GV_NCCL_IN_PROCESS};

static void pairs_time_every_link_and_name_the_slow_one(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_nccl_opts o = small(GV_NCCL_PAIRS);
    /* 50 operations of 256 KiB: the fake's copies, not the host's hiccups, set the times. */
    o.min_bytes = 64, o.max_bytes = 256 << 10, o.iters = 50;
    o.gpu_count = 4;
    for (uint32_t i = 0; i < 4; i++)
        o.gpus[i] = i;
    /* The fake's links are host copies: a CI machine busy with other tests can stall one pair
     * long enough to look slow, which a second try does not repeat. */
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    for (int attempt = 0; attempt < 3 && (attempt == 0 || r.verdict != GV_PASS); attempt++) {
        r = (gv_nccl_result)GV_NCCL_RESULT_INIT;
        assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    }
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.pair_count, 12);
    assert_int_equal(r.size_count, 2); /* min_bytes and max_bytes only */
    assert_int_equal(r.sizes[0].bytes, 64);
    assert_int_equal(r.sizes[1].bytes, 256 << 10);
    assert_int_equal(r.pairs[0].from, 0);
    assert_int_equal(r.pairs[0].to, 1);
    assert_int_equal(r.pairs[11].from, 3);
    assert_int_equal(r.pairs[11].to, 2);
    for (uint32_t k = 0; k < r.pair_count; k++) {
        assert_true(r.pairs[k].latency_us > 0 && r.pairs[k].busbw_gbps > 0);
        assert_int_equal(r.pairs[k].wrong, 0);
    }
    assert_non_null(strstr(r.message, "the median of 12 pairs"));
    gv_ctx_destroy(ctx);

    /* One link crawls both ways: the pair is named, the data still exact (a WARN). */
    ctx = scenario_ctx("h100-open", "h100x8-nccl-slow-link");
    gv_nccl_result slow = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &slow), GV_OK);
    assert_int_equal(slow.verdict, GV_WARN);
    assert_true(strstr(slow.message, "1->2 moves") || strstr(slow.message, "2->1 moves"));
    assert_non_null(strstr(slow.message, "under half the median pair's"));
    gv_ctx_destroy(ctx);

    /* A receiver gets a wrong element: FAIL, counted on the pair. */
    ctx = scenario_ctx("h100-open", "h100x8-nccl-wrong-sum");
    gv_nccl_result wrong = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &wrong), GV_OK);
    assert_int_equal(wrong.verdict, GV_FAIL);
    assert_true(wrong.pairs[3].wrong > 0);     /* 1->0: rank 0 receives one off */
    assert_int_equal(wrong.pairs[0].wrong, 0); /* 0->1 */

    /* Pairs need 2 to 16 ranks. */
    o.gpu_count = 1;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "between 2 and 16 ranks"));
    gv_ctx_destroy(ctx);
}

/* What a healthy all-reduce of small() over the local GPUs takes here now, run where `flags`
 * says: the host's part of a sweep, which a hang's deadline does not cover. */
static double healthy_sweep_s(uint32_t flags)
{
    const char *scenario = getenv("GV_FAKE_SCENARIO");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", scenario ? scenario : "");
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    o.flags = flags;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    double t0 = now_s();
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    double took = now_s() - t0;
    gv_ctx_destroy(ctx);
    if (saved[0])
        setenv("GV_FAKE_SCENARIO", saved, 1);
    return took;
}

/* An all-reduce whose 1 s deadline must pass (rank 0 of 2 with an id, else over the local
 * GPUs), run where `flags` says: GV_ERR_TIMEOUT and a FAIL at least 1 s after the call, and
 * within 1 s more than a healthy sweep takes here. */
static gv_nccl_result must_time_out(gv_ctx *ctx, uint32_t flags, const gv_nccl_id *id)
{
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    o.deadline_s = 1.0;
    o.flags = flags;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    double t0 = now_s();
    assert_int_equal(id ? gv_nccl_bench_rank(ctx, id, 0, 2, 0, &o, &r) : gv_nccl_bench(ctx, &o, &r),
                     GV_ERR_TIMEOUT);
    double took = now_s() - t0;
    assert_true(took >= 1.0 && took < 2.0 + healthy_sweep_s(flags));
    assert_int_equal(r.verdict, GV_FAIL);
    return r;
}

static void a_hang_times_out_within_the_deadline_and_the_process_stays_usable(void **state)
{
    (void)state;
    for (size_t p = 0; p < 2; p++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-hang");
        gv_nccl_result r = must_time_out(ctx, places[p], NULL);
        assert_non_null(
            strstr(r.message, "deadline of 1.0 s passed while running all_reduce at 64"));
        /* The worker notices the stuck stream itself and aborts before it is killed. */
        assert_non_null(strstr(gv_ctx_last_error(ctx), "aborted"));
        /* The same process, healthy again. */
        gv_ctx_destroy(ctx);
        ctx = scenario_ctx("h100-open", "h100x8");
        gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
        o.flags = places[p];
        gv_nccl_result again = GV_NCCL_RESULT_INIT;
        assert_int_equal(gv_nccl_bench(ctx, &o, &again), GV_OK);
        assert_int_equal(again.verdict, GV_PASS);
        gv_ctx_destroy(ctx);
    }
}

static void a_rank_that_never_arrives_times_out(void **state)
{
    (void)state;
    for (size_t p = 0; p < 2; p++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
        gv_nccl_id id;
        assert_int_equal(gv_nccl_unique_id(ctx, &id), GV_OK);
        gv_nccl_result r = must_time_out(ctx, places[p], &id);
        assert_int_equal(r.nranks, 2);
        assert_int_equal(r.size_count, 0);
        assert_non_null(strstr(r.message, "creating the communicators"));
        /* In the worker the blocking creation never returns: the caller kills the worker. In
         * the caller the non-blocking one is polled and aborted. */
        assert_non_null(strstr(r.message, p == 0 ? "gpuverify-worker was stopped" : "aborted"));
        assert_int_equal(r.isolation, p == 0 ? GV_ISOLATION_PROCESS : GV_ISOLATION_NONE);
        gv_ctx_destroy(ctx);
    }
}

/* NCCL stuck in its own host code: the worker's blocking call never returns, and neither the
 * caller of gv_nccl_bench nor gv_run waits for it; gv_run's row is this check's FAIL (its
 * worker's sweep is polled and aborted at the deadline), not a run out of budget. */
static void a_hang_in_nccls_host_code_fails_within_the_deadline(void **state)
{
    (void)state;
    for (size_t p = 0; p < 2; p++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-host-hang");
        gv_nccl_result r = must_time_out(ctx, places[p], NULL);
        assert_non_null(strstr(r.message, "running all_reduce at 64 bytes"));
        assert_non_null(strstr(r.message, p == 0 ? "gpuverify-worker was stopped" : "aborted"));
        gv_ctx_destroy(ctx);
    }
    gv_report *rep = NULL;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "nccl.allreduce";
    ro.isolation = GV_ISOLATION_PROCESS;
    ro.budget_s = 6;
    ro.nccl_bytes = 1 << 20;
    /* The same run on a healthy node: the host's part, which the budget does not cover. */
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    double t0 = now_s();
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    double healthy = now_s() - t0;
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
    ctx = scenario_ctx("h100-open", "h100x8-nccl-host-hang");
    t0 = now_s();
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    assert_true(now_s() - t0 < 6 + 1.5 + healthy);
    gv_check_result row = result_of(rep, "nccl.allreduce", "node");
    assert_int_equal(row.verdict, GV_FAIL);
    assert_non_null(strstr(row.message, "did not finish"));
    assert_non_null(strstr(row.message, "the communicators were aborted"));
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
}

static void a_crash_in_nccl_is_an_error_and_the_caller_lives_on(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-crash");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_ERR_DRIVER);
    assert_int_equal(r.verdict, GV_ERROR);
    /* Signal 11, or under ASan its report and exit status. */
    assert_true(strstr(r.message, "gpuverify-worker died with signal 11 (Segmentation fault)") ||
                strstr(r.message, "gpuverify-worker exited with status"));
    assert_non_null(strstr(r.message, "while running all_reduce at 64 bytes"));
    assert_string_equal(gv_ctx_last_error(ctx), r.message);
    gv_ctx_destroy(ctx);
}

static void a_busbw_floor_fails_a_slow_fabric(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-nccl-slow");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    o.min_bytes = o.max_bytes = 1 << 20;
    o.iters = 2;
    o.gpu_count = 2, o.gpus[0] = 0, o.gpus[1] = 1;
    o.min_busbw_gbps = 100;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_FAIL);
    /* The fake takes at least the time of 2 GB/s of bus bandwidth (more on a slow host). */
    assert_true(r.peak_busbw_gbps > 0 && r.peak_busbw_gbps < 2.1);
    assert_non_null(strstr(r.message, "below the floor of 100 GB/s"));
    gv_ctx_destroy(ctx);
}

static void nccl_absent_is_an_error_naming_the_file(void **state)
{
    (void)state;
    setenv("GPUVERIFY_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_ERR_LIBRARY);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "/nonexistent/libnccl.so.2"));
    gv_nccl_id id;
    assert_int_equal(gv_nccl_unique_id(ctx, &id), GV_ERR_LIBRARY);
    gv_report *rep = NULL;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "nccl";
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    assert_int_equal(verdict_of(rep, "nccl.version", "node"), GV_SKIP);
    assert_int_equal(verdict_of(rep, "nccl.allreduce", "node"), GV_SKIP);
    assert_non_null(strstr(result_of(rep, "nccl.allreduce", "node").message, "/nonexistent"));
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
    unsetenv("GPUVERIFY_NCCL_LIBRARY");
}

static void run_rows_judge_the_node(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_report *rep = NULL;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "nccl,driver.compat";
    ro.nccl_bytes = 4 << 20; /* 1 and 4 MiB */
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result v = result_of(rep, "nccl.version", "node");
    assert_int_equal(v.verdict, GV_PASS);
    assert_string_equal(v.measured, "2.28.9");
    gv_check_result a = result_of(rep, "nccl.allreduce", "node");
    assert_int_equal(a.verdict, GV_PASS);
    assert_true(a.value > 0);
    assert_string_equal(a.unit, "GB/s");
    assert_non_null(strstr(a.message, "all_reduce over 8 ranks: data exact at 2 sizes"));
    assert_int_equal(verdict_of(rep, "driver.compat", "nccl"), GV_PASS);
    gv_report_free(rep);
    gv_ctx_destroy(ctx);

    /* NCCL built for CUDA 13.0 on a CUDA 12.8 driver. */
    ctx = scenario_ctx("h100-open", "h100x8-old-driver");
    ro.checks = "driver.compat,nccl.version";
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result c = result_of(rep, "driver.compat", "nccl");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "NCCL 2.28.9"));
    assert_non_null(strstr(c.message, "built for CUDA 13.0 but the driver supports CUDA 12.8"));
    assert_int_equal(verdict_of(rep, "nccl.version", "node"), GV_FAIL);
    gv_report_free(rep);
    gv_ctx_destroy(ctx);

    /* NVLink joins every pair (18 x 25 GB/s), and the collective runs at 2 GB/s of bus
     * bandwidth from 64 MiB up: NVLink is not carrying it. Below 64 MiB it is not judged so. */
    ctx = scenario_ctx("h100-open", "h100x8-nccl-slow");
    ro.checks = "nccl.allreduce";
    ro.gpus = "0,1";
    ro.nccl_bytes = 64 << 20;
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result slow = result_of(rep, "nccl.allreduce", "node");
    if (slow.verdict != GV_WARN)
        print_message("nccl.allreduce: %s\n", slow.message);
    assert_int_equal(slow.verdict, GV_WARN);
    assert_non_null(strstr(slow.message, "from 64 MiB up, below a quarter of the 450 GB/s the "
                                         "NVLinks joining every pair carry"));
    assert_string_equal(slow.expected_source, "NVLink design");
    gv_report_free(rep);
    ro.nccl_bytes = 16 << 20;
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    assert_int_equal(verdict_of(rep, "nccl.allreduce", "node"), GV_PASS);
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
    ro.gpus = NULL;
    ro.nccl_bytes = 4 << 20;

    /* One GPU: nothing to all-reduce with. */
    ctx = scenario_ctx("h100-open", "h100x1-compute");
    ro.checks = "nccl.allreduce";
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result one = result_of(rep, "nccl.allreduce", "node");
    assert_int_equal(one.verdict, GV_SKIP);
    assert_non_null(strstr(one.message, "needs two or more"));
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
}

/* A job on GPU 3 (NVML: PID 4121, 38 GiB): under the default busy = skip the sweep stops at
 * 64 MiB there, its figure not judged; busy = ignore sweeps as far as asked (96 MiB: the
 * sweep's sizes are the same, 1 to 64 MiB, and nothing was cut). */
static void a_busy_gpu_keeps_its_memory_from_the_sweep(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8-gpu3-busy");
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "nccl.allreduce";
    ro.gpus = "2,3";
    ro.nccl_bytes = 256 << 20;
    gv_report *rep = NULL;
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result c = result_of(rep, "nccl.allreduce", "node");
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "not judged: GPU 3 used by PID 4121"));
    assert_non_null(strstr(c.message, "sizes above 64 MiB not run: holding twice the largest "
                                      "(512 MiB) on each GPU"));
    if (!strstr(c.message, "data exact at 4 sizes"))
        print_message("nccl.allreduce: %s\n", c.message);
    assert_non_null(strstr(c.message, "data exact at 4 sizes")); /* 1 to 64 MiB */
    gv_report_free(rep);
    gv_policy p = GV_POLICY_INIT;
    p.busy = GV_BUSY_IGNORE;
    ro.policy = &p;
    ro.nccl_bytes = 96 << 20; /* the fake GPU's memory holds no more than that */
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    c = result_of(rep, "nccl.allreduce", "node");
    assert_non_null(strstr(c.message, "data exact at 4 sizes"));
    assert_null(strstr(c.message, "not judged"));
    assert_null(strstr(c.message, "not run"));
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
}

/* NCCL 2.28.3's own line formats (src/transport/{p2p,shm,net,coll_net}.cc, src/init.cc,
 * src/transport/nvls.cc), with a timestamp prefix on one and lines that are not connections. */
static const char nccl_log[] =
    "vm:1262:1270 [0] NCCL INFO NCCL_DEBUG_SUBSYS set by environment to INIT.\n"
    "vm:1262:1270 [0] NCCL INFO Using network IB\n"
    "vm:1262:1270 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS "
    "16)\n"
    "vm:1262:1275 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "vm:1262:1275 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "vm:1262:1276 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n"
    "[2026-11-23 22:40:01] vm:1262:1276 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via "
    "SHM/direct/direct\n"
    "vm:1262:1277 [2] NCCL INFO Channel 00/0 : 3[3] -> 2[2] [receive] via NET/IB/0/GDRDMA\n"
    "vm:1262:1277 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] [send] via NET/Socket/1\n"
    "vm:1262:1277 [2] NCCL INFO CollNet 00/0 : 2 [send] via COLLNET/SHARP/0/GDRDMA\n"
    "vm:1262:1277 [2] enqueue.cc:12 NCCL WARN Channel 05/0 : 9[9] -> 8[8] via P2P/IPC\n"
    "vm:1262:1270 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1\n";

static void nccls_log_says_which_transport_each_connection_took(void **state)
{
    (void)state;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_nccl_log_parse(nccl_log, &r);
    assert_int_equal(r.transport_known, 1);
    assert_int_equal(r.via_p2p, 2); /* 0->1 twice (two channels) counts once */
    assert_int_equal(r.via_shm, 1);
    assert_int_equal(r.via_net, 2);
    assert_int_equal(r.via_socket, 1);
    assert_int_equal(r.via_collnet, 1); /* the WARN line is not NCCL's account of a connection */
    assert_int_equal(r.nvls, 1);
    assert_string_equal(r.network, "IB");
    /* Those off P2P first: a long list is cut, and they are the ones a check judges. */
    assert_string_equal(r.transports, "1->2 SHM/direct/direct; 3->2 NET/IB/0/GDRDMA; 2->3 "
                                      "NET/Socket/1; 2->network COLLNET/SHARP/0/GDRDMA; 0->1 "
                                      "P2P/CUMEM/read; 1->0 P2P/CUMEM/read");
    /* A real log: NCCL 2.28.3 on one H200, one rank (no connection; sockets, no IB device). */
    char path[4096];
    snprintf(path, sizeof path, "%s/nccl/nccl-2.28.3-h200-one-rank.log",
             getenv("GV_TEST_SOURCE_FIXTURES"));
    gv_nccl_result real = GV_NCCL_RESULT_INIT;
    gv_nccl_log_read(path, 0, &real);
    assert_int_equal(real.transport_known, 1);
    assert_string_equal(real.network, "Socket");
    assert_int_equal(real.via_p2p + real.via_shm + real.via_net + real.via_collnet, 0);
    assert_int_equal(real.nvls, 0);
    gv_nccl_result unread = GV_NCCL_RESULT_INIT;
    gv_nccl_log_read("/nonexistent/nccl.log", 0, &unread);
    assert_int_equal(unread.transport_known, 0);
    gv_nccl_result none = GV_NCCL_RESULT_INIT;
    gv_nccl_log_parse("not NCCL at all\n\n", &none);
    assert_int_equal(none.via_p2p + none.via_shm + none.via_net, 0);
    assert_string_equal(none.transports, "");
    /* Eight GPUs' rings, 30 connections: whole ones while they fit, then how many are left. */
    char ring[4096] = "";
    for (int from = 0; from < 8; from++)
        for (int to = 0; to < 8; to++)
            if (to != from && (to == (from + 1) % 8 || from == (to + 1) % 8 || to == 7 - from)) {
                char line[128];
                snprintf(line, sizeof line,
                         "h:1:2 [0] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read\n",
                         from, from, to, to);
                strcat(ring, line);
            }
    gv_nccl_result many = GV_NCCL_RESULT_INIT;
    gv_nccl_log_parse(ring, &many);
    size_t len = strlen(many.transports);
    assert_true(len < sizeof many.transports);
    const char *more = strrchr(many.transports, ';');
    assert_non_null(more);
    unsigned left = 0;
    assert_int_equal(sscanf(more, "; %u more", &left), 1);
    size_t whole = 0;
    for (const char *p = many.transports; (p = strstr(p, " P2P/CUMEM/read")); p++)
        whole++;
    assert_int_equal(whole + left, many.via_p2p);
    assert_true(left > 0);
}

/* nccl.transport through gv_run in the worker, which captures the (fake) NCCL's log. */
static gv_check_result transport_row(const char *sysroot, const char *scenario, int isolation)
{
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_report *rep = NULL;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "nccl.transport";
    ro.isolation = isolation;
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    gv_check_result row = result_of(rep, "nccl.transport", "node");
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
    return row;
}

static void the_transport_check_fails_nvlink_gpus_on_shm_and_sockets_beside_active_rdma(void **s)
{
    (void)s;
    gv_check_result p2p = transport_row("h100-open", "h100x8", GV_ISOLATION_PROCESS);
    assert_int_equal(p2p.verdict, GV_PASS);
    assert_non_null(strstr(p2p.message, "16 connections: 16 P2P, 0 SHM"));
    assert_non_null(strstr(p2p.message, "network IB"));
    assert_non_null(strstr(p2p.message, "0->1 P2P/CUMEM/read"));

    setenv("NCCL_P2P_DISABLE", "1", 1);
    gv_check_result shm = transport_row("h100-open", "h100x8-nccl-shm", GV_ISOLATION_PROCESS);
    unsetenv("NCCL_P2P_DISABLE");
    assert_int_equal(shm.verdict, GV_FAIL);
    assert_non_null(strstr(shm.message, "16 of 16 connections between GPUs joined by NVLink go "
                                        "through host memory (SHM), not P2P (0->1 "
                                        "SHM/direct/direct)"));
    assert_non_null(strstr(shm.message, "NCCL_P2P_DISABLE=1 (environment)"));
    assert_non_null(strstr(shm.remediation, "NCCL_P2P_DISABLE"));

    /* NVLink bridges joining GPUs in pairs: the other pairs on SHM are the node's design, a
     * bridged pair on SHM is not. */
    gv_check_result pairs = transport_row("h100-open", "h100x8-nvl-pairs", GV_ISOLATION_PROCESS);
    assert_int_equal(pairs.verdict, GV_PASS);
    assert_non_null(strstr(pairs.message, "16 connections: 8 P2P, 8 SHM"));
    assert_non_null(strstr(pairs.message, "1->2 SHM/direct/direct"));
    gv_check_result bridged =
        transport_row("h100-open", "h100x8-nvl-pairs-shm", GV_ISOLATION_PROCESS);
    assert_int_equal(bridged.verdict, GV_FAIL);
    assert_non_null(strstr(bridged.message, "connections between GPUs joined by NVLink go "
                                            "through host memory (SHM), not P2P (0->1 "
                                            "SHM/direct/direct)"));

    /* Without NVLink, sockets are NCCL's choice to make, unless an RDMA port is ACTIVE. */
    gv_check_result pcie =
        transport_row("h100-open", "h100x8-pcie-nccl-socket", GV_ISOLATION_PROCESS);
    assert_int_equal(pcie.verdict, GV_PASS);
    assert_non_null(strstr(pcie.message, "16 NET (16 sockets)"));
    gv_check_result roce =
        transport_row("h100-roce", "h100x8-pcie-nccl-socket", GV_ISOLATION_PROCESS);
    assert_int_equal(roce.verdict, GV_FAIL);
    assert_non_null(strstr(roce.message, "NCCL connects through sockets (0->1 NET/Socket/0) "
                                         "while mlx5_0 port 1 is ACTIVE"));

    /* In the caller's process NCCL's log is not captured: no verdict without it. */
    gv_check_result here = transport_row("h100-open", "h100x8-nccl-shm", GV_ISOLATION_NONE);
    assert_int_equal(here.verdict, GV_SKIP);
    assert_non_null(strstr(here.message, "only gpuverify-worker captures"));

    /* One GPU: no connection to judge. */
    gv_check_result one = transport_row("h100-open", "h100x1-compute", GV_ISOLATION_PROCESS);
    assert_int_equal(one.verdict, GV_SKIP);
}

/* GPUs 0 and 1 join a communicator of nranks ahead, then the worker's sweep over them (in its
 * process, as gv_run's is) is exact, and nothing made ahead is left. */
static void joined_then_swept(gv_ctx *ctx, int nranks)
{
    for (uint32_t g = 0; g < 2; g++)
        assert_int_equal(gv_nccl_ahead_join(ctx, g, (int)g, nranks), 0);
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    o.gpu_count = 2, o.gpus[0] = 0, o.gpus[1] = 1;
    o.flags = GV_NCCL_IN_PROCESS;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.nranks, 2);
    assert_null(ctx->nccl_ahead);
}

/* gpuverify-worker's tests across GPUs make the sweep's ranks as GPUs become free: the sweep
 * takes them when they are its GPUs in its order, and otherwise makes its own. */
static void ranks_made_ahead_are_the_sweeps_when_they_fit(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    /* Only a worker makes ranks ahead: they would outlive a caller's call. */
    assert_int_equal(gv_nccl_ahead_join(ctx, 0, 0, 4), -1);
    assert_null(ctx->nccl_ahead);
    ctx->in_worker = 1;
    for (uint32_t g = 0; g < 3; g++)
        assert_int_equal(gv_nccl_ahead_join(ctx, g, (int)g, 4), 0);
    assert_int_equal(gv_nccl_ahead_join(ctx, 1, 1, 4), -1); /* joined already */
    assert_int_equal(gv_nccl_ahead_join(ctx, 3, 3, 5), -1); /* another communicator */
    const uint32_t gpus[] = {0, 1, 2, 3};
    gvnc_comm comms[4] = {0};
    long log_from = -1;
    char why[160] = "";
    /* GPU 3 joins now; every rank is made within the deadline, and the comms are handed over. */
    assert_int_equal(
        gv_nccl_ahead_take(ctx, gpus, 4, now_s() + 10, comms, &log_from, why, sizeof why), 1);
    assert_null(ctx->nccl_ahead);
    assert_int_equal(log_from, 0);
    for (int i = 0; i < 4; i++) {
        assert_non_null(comms[i]);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(comms[i], comms[j]);
        assert_int_equal(gv_nccl(ctx)->ncclCommDestroy(comms[i]), 0);
    }
    joined_then_swept(ctx, 2);
    gv_ctx_destroy(ctx);
}

static void ranks_made_ahead_for_other_gpus_are_given_up(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    ctx->in_worker = 1;
    /* Three ranks expected, GPU 2's lane hung: ranks 0 and 1 wait for a peer that never comes.
     * The sweep over GPUs 0 and 1 gives them up and makes its own, at once. */
    double t0 = now_s();
    joined_then_swept(ctx, 3);
    assert_true(now_s() - t0 < 5);
    /* Ranks in another order than the sweep's do not fit either. */
    assert_int_equal(gv_nccl_ahead_join(ctx, 1, 0, 2), 0);
    const uint32_t gpus[] = {0, 1};
    gvnc_comm comms[2] = {0};
    long log_from = -1;
    char why[160] = "";
    assert_int_equal(
        gv_nccl_ahead_take(ctx, gpus, 2, now_s() + 10, comms, &log_from, why, sizeof why), 0);
    assert_null(comms[0]);
    assert_null(ctx->nccl_ahead);
    /* Before the tests measure, a GPU of the sweep not joined (another gpuverify held it) gives
     * the ranks up rather than begin one there. */
    assert_int_equal(gv_nccl_ahead_join(ctx, 0, 0, 2), 0);
    gv_nccl_ahead_settle(ctx, gpus, 2, now_s() + 10);
    assert_null(ctx->nccl_ahead);
    /* Left waiting at the end, they are given up with the context, without a hang. */
    assert_int_equal(gv_nccl_ahead_join(ctx, 0, 0, 2), 0);
    t0 = now_s();
    gv_ctx_destroy(ctx);
    assert_true(now_s() - t0 < 3);
}

static void a_rank_that_fails_fails_the_take_at_once(void **state)
{
    (void)state;
    /* GPU 1's context cannot be had: its rank fails at once, and rank 0 would wait for it for
     * ever. The settle and the take see the failure then, not at their deadline. */
    const uint32_t gpus[] = {0, 1};
    gvnc_comm comms[2] = {0};
    long log_from = -1;
    char why[160] = "";
    for (int take = 0; take < 2; take++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "fault-gpu-gone");
        ctx->in_worker = 1;
        for (uint32_t g = 0; g < 2; g++)
            assert_int_equal(gv_nccl_ahead_join(ctx, g, (int)g, 2), 0);
        double t0 = now_s();
        if (take) {
            assert_int_equal(
                gv_nccl_ahead_take(ctx, gpus, 2, now_s() + 20, comms, &log_from, why, sizeof why),
                -1);
            assert_non_null(strstr(why, "rank 1 (GPU 1): cuDevicePrimaryCtxRetain failed"));
        } else {
            gv_nccl_ahead_settle(ctx, gpus, 2, now_s() + 20);
        }
        assert_true(now_s() - t0 < 5);
        assert_null(ctx->nccl_ahead);
        gv_ctx_destroy(ctx);
    }
}

static void a_rank_that_cannot_be_made_fails_the_take(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    ctx->in_worker = 1;
    /* Ranks of three on GPUs 0 and 1; the take asks for three GPUs but the third's rank cannot
     * be made by the deadline when the third GPU is one CUDA does not have. */
    assert_int_equal(gv_nccl_ahead_join(ctx, 0, 0, 3), 0);
    assert_int_equal(gv_nccl_ahead_join(ctx, 1, 1, 3), 0);
    const uint32_t gpus[] = {0, 1, 9};
    gvnc_comm comms[3] = {0};
    long log_from = -1;
    char why[160] = "";
    double t0 = now_s();
    assert_int_equal(
        gv_nccl_ahead_take(ctx, gpus, 3, now_s() + 0.5, comms, &log_from, why, sizeof why), -1);
    assert_true(now_s() - t0 < 3);
    assert_non_null(strstr(why, "rank 2 (GPU 9)"));
    assert_null(ctx->nccl_ahead);
    gv_ctx_destroy(ctx);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_nccl_opts o = small(GV_NCCL_ALL_REDUCE);
    assert_int_equal(gv_nccl_bench(NULL, &o, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_bench(ctx, &o, NULL), GV_ERR_INVALID_ARG);
    gv_nccl_result tiny = {.struct_size = 8};
    assert_int_equal(gv_nccl_bench(ctx, &o, &tiny), GV_ERR_VERSION);
    gv_nccl_opts bad_size = o;
    bad_size.struct_size = 4;
    assert_int_equal(gv_nccl_bench(ctx, &bad_size, &r), GV_ERR_VERSION);
    struct {
        const char *what;
        gv_nccl_opts o;
    } cases[] = {{"collective", o}, {"flags", o}, {"min 0", o},     {"max < min", o},
                 {"huge", o},       {"step", o},  {"sizes", o},     {"iters", o},
                 {"deadline", o},   {"floor", o}, {"gpu_count", o}, {"twice", o}};
    cases[0].o.collective = GV_NCCL_COLLECTIVES;
    cases[1].o.flags = 4;
    cases[2].o.min_bytes = 0;
    cases[3].o.max_bytes = 32;
    cases[4].o.max_bytes = 1ull << 40;
    cases[5].o.step_factor = 1;
    cases[6].o.collective = GV_NCCL_ALL_GATHER, cases[6].o.min_bytes = 4;
    cases[6].o.max_bytes = 16; /* no element per rank over 8 ranks */
    cases[7].o.iters = 0;
    cases[8].o.deadline_s = NAN;
    cases[9].o.min_busbw_gbps = -1;
    cases[10].o.gpu_count = GV_NCCL_MAX_GPUS + 1;
    cases[11].o.gpu_count = 2, cases[11].o.gpus[0] = cases[11].o.gpus[1] = 3;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        r.verdict = 77;
        assert_int_equal(gv_nccl_bench(ctx, &cases[i].o, &r), GV_ERR_INVALID_ARG);
        assert_int_equal(r.verdict, 77); /* nothing written */
    }
    gv_nccl_opts missing = o;
    missing.gpu_count = 2, missing.gpus[0] = 0, missing.gpus[1] = 99;
    assert_int_equal(gv_nccl_bench(ctx, &missing, &r), GV_ERR_NOT_FOUND);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "GPU 99"));
    gv_nccl_id id;
    assert_int_equal(gv_nccl_unique_id(ctx, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_unique_id(NULL, &id), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_unique_id(ctx, &id), GV_OK);
    assert_int_equal(gv_nccl_bench_rank(ctx, NULL, 0, 1, 0, &o, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_bench_rank(ctx, &id, 2, 2, 0, &o, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_bench_rank(ctx, &id, -1, 2, 0, &o, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_nccl_bench_rank(ctx, &id, 0, 0, 0, &o, &r), GV_ERR_INVALID_ARG);
    /* One rank of one: a complete communicator, busbw 0 by definition. */
    assert_int_equal(gv_nccl_bench_rank(ctx, &id, 0, 1, 4, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_true(r.peak_busbw_gbps == 0);
    assert_string_equal(r.gpus, "4=0000:9a:00.0");
    assert_string_equal(gv_nccl_collective_name(GV_NCCL_REDUCE_SCATTER), "reduce_scatter");
    assert_string_equal(gv_nccl_collective_name(GV_NCCL_SEND_RECV), "sendrecv");
    assert_string_equal(gv_nccl_collective_name(GV_NCCL_PAIRS), "pairs");
    assert_string_equal(gv_nccl_collective_name(GV_NCCL_COLLECTIVES), "unknown");
    assert_string_equal(gv_nccl_collective_name(-1), "unknown");
    gv_ctx_destroy(ctx);
}

int main(void)
{
    /* The tests link the library's objects, so the worker is not "beside the library". */
    setenv("GPUVERIFY_WORKER", getenv("GV_TEST_WORKER"), 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(allreduce_over_eight_gpus_is_exact_with_nccl_tests_figures),
        cmocka_unit_test(every_collective_is_exact_on_an_odd_number_of_gpus),
        cmocka_unit_test(a_wrong_sum_fails_with_the_count),
        cmocka_unit_test(a_wrong_result_fails_every_collective),
        cmocka_unit_test(pairs_time_every_link_and_name_the_slow_one),
        cmocka_unit_test(a_hang_times_out_within_the_deadline_and_the_process_stays_usable),
        cmocka_unit_test(a_rank_that_never_arrives_times_out),
        cmocka_unit_test(a_hang_in_nccls_host_code_fails_within_the_deadline),
        cmocka_unit_test(a_crash_in_nccl_is_an_error_and_the_caller_lives_on),
        cmocka_unit_test(a_busbw_floor_fails_a_slow_fabric),
        cmocka_unit_test(nccl_absent_is_an_error_naming_the_file),
        cmocka_unit_test(run_rows_judge_the_node),
        cmocka_unit_test(a_busy_gpu_keeps_its_memory_from_the_sweep),
        cmocka_unit_test(nccls_log_says_which_transport_each_connection_took),
        cmocka_unit_test(
            the_transport_check_fails_nvlink_gpus_on_shm_and_sockets_beside_active_rdma),
        cmocka_unit_test(ranks_made_ahead_are_the_sweeps_when_they_fit),
        cmocka_unit_test(ranks_made_ahead_for_other_gpus_are_given_up),
        cmocka_unit_test(a_rank_that_fails_fails_the_take_at_once),
        cmocka_unit_test(a_rank_that_cannot_be_made_fails_the_take),
        cmocka_unit_test(bad_input_is_refused),
    };
    return run_shard("test_nccl", tests, sizeof tests / sizeof *tests);
}
