/* SPDX-License-Identifier: Apache-2.0 */
/* The single-purpose calls in gpuverify-worker (lib/worker/call.h): a call stuck inside the
 * driver comes back at its deadline as a FAIL naming where it stopped, a crash is an ERROR
 * naming the signal, a broken worker is an ERROR, and the caller's process goes on either way.
 * The same calls' results through the worker are test_compute's own assertions, run again as
 * test_compute_in_worker. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A context over one fake H100 in `scenario`, with this deadline, flags and worker. */
static gv_ctx *call_ctx(const char *scenario, double deadline_s, uint32_t flags, const char *worker)
{
    use_scenario(scenario);
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = fakelib();
    o.deadline_s = deadline_s;
    o.flags = flags;
    o.worker_path = worker;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    return ctx;
}

/* The context deadline of the hang tests: 0.3 s, or on a host slower than that now (loaded, or
 * the sanitizers') the slowest healthy call below, in tenths of a second as the messages print
 * it, so that a healthy call still ends within the deadlines it gives (main measures it). The
 * deadlines the calls get from it: the start in the worker (four units, as driver.cuda), the
 * call's own unit(s), what the options ask for. */
static double UNIT = 0.3;
#define START (4 * UNIT)
/* The slowest of those healthy calls through the worker, measured the same way: what a call
 * costs beyond its deadline may include that much of the host's slowness, + 1 s. */
static double healthy_s;
#define PAST_DEADLINE (1.0 + healthy_s)

typedef struct hang_case {
    const char *scenario;
    const char *call;
    double units;      /* what the call is allowed before the kill: START + units * UNIT */
    double extra;      /* + what its options ask for (seconds) */
    const char *stage; /* where it was, as the worker last said */
} hang_case;

/* Runs the call of case c on ctx; its status, its result's verdict and message. */
static gv_status call_one(gv_ctx *ctx, const char *call, int32_t *verdict, char *message,
                          size_t cap)
{
    gv_status st;
    if (!strcmp(call, "gemm")) {
        gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
        gv_gemm_result r = GV_GEMM_RESULT_INIT;
        st = gv_gemm_bench(ctx, 0, &o, &r);
        *verdict = r.verdict;
        snprintf(message, cap, "%s", r.message);
    } else if (!strcmp(call, "cuda")) {
        gv_cuda_opts o = GV_CUDA_OPTS_INIT;
        o.copy_bytes = 1 << 20;
        gv_cuda_result r = GV_CUDA_RESULT_INIT;
        st = gv_cuda_check(ctx, 0, &o, &r);
        *verdict = r.verdict;
        snprintf(message, cap, "%s", r.message);
    } else if (!strcmp(call, "memtest")) {
        gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
        st = gv_mem_test(ctx, 0, NULL, &r);
        *verdict = r.verdict;
        snprintf(message, cap, "%s", r.message);
    } else if (!strcmp(call, "cudnn")) {
        gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
        st = gv_cudnn_check(ctx, 0, &r);
        *verdict = r.verdict;
        snprintf(message, cap, "%s", r.message);
    } else {
        gv_stress_opts o = GV_STRESS_OPTS_INIT;
        o.size = 32;
        o.duration_s = 0.2;
        o.interval_s = 0.05;
        gv_stress_result r = GV_STRESS_RESULT_INIT;
        st = gv_stress_gemm(ctx, &o, &r);
        *verdict = r.verdict;
        snprintf(message, cap, "%s", r.message);
    }
    return st;
}

static const hang_case cases[] = {
    {"fault-cublaslt-hang", "gemm", 1, 0, "while cuBLASLt: the first matmuls"},
    {"fault-kernel-hang", "cuda", 1, 0, "while copies between pinned host memory"},
    {"fault-kernel-hang", "memtest", 4, 0, "while round 1, own address, write"},
    {"fault-cuinit-hang", "memtest", 4, 0, "while CUDA context"},
    {"fault-cudnn-hang", "cudnn", 1, 0, "while cuDNN: cudnnCreate"},
    {"fault-cublaslt-hang", "stress", 4, 0.2, "while contexts, inputs and the first GEMMs"},
};

static void every_call_stuck_in_the_driver_comes_back_at_its_deadline(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const hang_case *c = &cases[i];
        double deadline = START + c->units * UNIT + c->extra;
        gv_ctx *ctx = call_ctx(c->scenario, UNIT, 0, NULL);
        int32_t verdict = -1;
        char message[512];
        double t0 = now_s();
        gv_status st = call_one(ctx, c->call, &verdict, message, sizeof message);
        double took = now_s() - t0;
        print_message("%s in %s: %.2f s (deadline %.2f): %s\n", c->call, c->scenario, took,
                      deadline, message);
        assert_int_equal(st, GV_ERR_TIMEOUT);
        assert_int_equal(verdict, GV_FAIL);
        char want[64];
        snprintf(want, sizeof want, "the deadline of %.1f s passed while", deadline + 1e-6);
        assert_non_null(strstr(message, want));
        assert_non_null(strstr(message, "gpuverify-worker was stopped"));
        assert_non_null(strstr(message, c->stage));
        assert_string_equal(gv_ctx_last_error(ctx), message);
        /* The same caller, the same context, a healthy GPU again: what the call takes without
         * the hang, which the hang may add to its deadline (+ 1 s). */
        use_scenario("h100x1-compute");
        t0 = now_s();
        assert_int_equal(call_one(ctx, c->call, &verdict, message, sizeof message), GV_OK);
        double healthy = now_s() - t0;
        assert_int_equal(verdict, GV_PASS);
        assert_true(took >= deadline && took < deadline + 1.0 + healthy);
        gv_ctx_destroy(ctx);
    }
}

/* Where each call was when it hung: the stage the worker last reported. */
static void a_timeout_names_the_stage(void **state)
{
    (void)state;
    gv_ctx *ctx = call_ctx("fault-cublaslt-hang", UNIT, 0, NULL);
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &r), GV_ERR_TIMEOUT);
    assert_non_null(strstr(r.message, "gv_gemm_bench (fp16, 32x32x32) on GPU 0 did not finish"));
    assert_non_null(strstr(r.message, "while cuBLASLt"));
    assert_int_equal(r.cuda_index, 0);
    assert_int_equal(r.m, 32);
    gv_ctx_destroy(ctx);
}

static void a_crash_is_an_error_and_the_caller_lives_on(void **state)
{
    (void)state;
    gv_ctx *ctx = call_ctx("fault-gemm-crash", 60, 0, NULL);
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &r), GV_ERR_DRIVER);
    assert_int_equal(r.verdict, GV_ERROR);
    /* Signal 11, or the sanitizers' exit status under them. */
    assert_true(strstr(r.message, "gpuverify-worker died with signal 11 (Segmentation fault)") ||
                strstr(r.message, "gpuverify-worker exited with status"));
    assert_non_null(strstr(r.message, "while cuBLASLt"));
    gv_ctx_destroy(ctx);
}

/* A stress run's samples reach the caller's buffer from the worker, counted as they came. */
static void the_stress_series_streams_back(void **state)
{
    (void)state;
    gv_ctx *ctx = call_ctx("h100x1-compute", 60, 0, NULL);
    gv_stress_sample series[3];
    memset(series, 0, sizeof series);
    gv_stress_opts o = GV_STRESS_OPTS_INIT;
    o.size = 32;
    /* 50 intervals for the 4 samples asserted: a batch fitted to 20 ms may take much longer
     * on a loaded host. */
    o.duration_s = 1.0;
    o.interval_s = 0.02;
    o.series = series;
    o.series_capacity = 3;
    gv_stress_result r = GV_STRESS_RESULT_INIT;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.series_count, 3);
    assert_true(r.series_dropped >= 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(series[i].cuda_index, 0);
        assert_true(series[i].tflops > 0);
        assert_true(i == 0 || series[i].t_s > series[i - 1].t_s);
    }
    gv_ctx_destroy(ctx);
}

/* An executable that answers with something else than the protocol. */
static char *garbage_worker(char *root)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/gpuverify-worker", root);
    put_file(root, "/gpuverify-worker", "#!/bin/sh\necho 'this is not gpuverify'\n");
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

/* A broken worker is an ERROR; GV_CTX_IN_PROCESS runs the call here, the worker unused. */
static void a_broken_worker_is_an_error_and_in_process_needs_none(void **state)
{
    (void)state;
    char *root = temp_root();
    const char *worker = garbage_worker(root);
    gv_ctx *ctx = call_ctx("h100x1-compute", 60, 0, worker);
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    assert_int_equal(gv_cudnn_check(ctx, 0, &r), GV_ERR_DRIVER);
    assert_int_equal(r.verdict, GV_ERROR);
    assert_non_null(strstr(r.message, "gv_cudnn_check on GPU 0: gpuverify-worker wrote something "
                                      "that is not its protocol"));
    assert_non_null(strstr(r.message, "this is not gpuverify"));
    gv_ctx_destroy(ctx);

    ctx = call_ctx("h100x1-compute", 60, GV_CTX_IN_PROCESS, worker);
    r = (gv_cudnn_result)GV_CUDNN_RESULT_INIT;
    assert_int_equal(gv_cudnn_check(ctx, 0, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    gv_ctx_destroy(ctx);
    /* gv_run in the caller's process runs its calls there too. */
    ctx = call_ctx("h100x1-compute", 60, 0, worker);
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "cudnn.conv";
    ro.isolation = GV_ISOLATION_NONE;
    gv_report *rep = NULL;
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    assert_int_equal(verdict_of(rep, "cudnn.conv", "gpu0"), GV_PASS);
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);
}

/* A worker whose wrapper left a process holding the worker's output open: its caller stops
 * reading once the worker gave its last word, never waiting for the deadline; what the wrapper
 * left is gone with the worker. */
static void a_pipe_held_open_after_the_last_word_keeps_no_caller(void **state)
{
    (void)state;
    char *root = temp_root();
    char path[PATH_MAX], pids[PATH_MAX], text[2 * PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/gpuverify-worker", root);
    snprintf(pids, sizeof pids, "%s/holders", root);
    snprintf(text, sizeof text, "#!/bin/sh\n/bin/sleep 300 &\necho $! >> %s\nexec %s \"$@\"\n",
             pids, getenv("GV_TEST_WORKER"));
    put_file(root, "/gpuverify-worker", text);
    assert_int_equal(chmod(path, 0755), 0);
    /* Waiting for the output to close would last the call's deadline: far past the bound. */
    double bound = 8 + 2 * healthy_s;
    gv_ctx *ctx = call_ctx("h100x1-compute", 30, 0, path);
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    double t0 = now_s();
    assert_int_equal(gv_cudnn_check(ctx, 0, &r), GV_OK);
    double took = now_s() - t0;
    print_message("gv_cudnn_check: %.2f s (bound %.1f s)\n", took, bound);
    assert_int_equal(r.verdict, GV_PASS);
    assert_true(took < bound);

    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "cudnn.conv,cuda.init";
    gv_report *rep = NULL;
    t0 = now_s();
    assert_int_equal(gv_run(ctx, &ro, &rep), GV_OK);
    took = now_s() - t0;
    print_message("gv_run: %.2f s (bound %.1f s)\n", took, bound);
    assert_int_equal(verdict_of(rep, "cudnn.conv", "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(rep, "cuda.init", "gpu0"), GV_PASS);
    assert_true(took < bound);
    gv_report_free(rep);
    gv_ctx_destroy(ctx);

    FILE *f = fopen(pids, "r");
    assert_non_null(f);
    long pid;
    int holders = 0;
    while (fscanf(f, "%ld", &pid) == 1) {
        holders++;
        char stat[64], line[256] = "";
        snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
        int alive = 0;
        for (int tries = 0; tries < 200; tries++) {
            FILE *s = fopen(stat, "r");
            /* Gone, or a zombie whose new parent has not reaped it yet. */
            alive = s && fgets(line, sizeof line, s) && !strstr(line, ") Z ");
            if (s)
                fclose(s);
            if (!alive)
                break;
            usleep(10000);
        }
        assert_false(alive);
    }
    fclose(f);
    assert_true(holders >= 2);
    remove_tree(root);
    free(root);
}

/* gv_check_driver gathers the inventory in the worker, within driver.nvml's (2 units) and
 * driver.cuda's (4 units) deadlines; gv_gpu_info reads what came back. */
static void the_inventory_comes_from_the_worker_and_a_hang_there_times_out(void **state)
{
    (void)state;
    const struct {
        const char *scenario;
        double within;
        const char *where;
    } hangs[] = {{"fault-nvml-init-hang", 2 * UNIT, "in driver.nvml on node"},
                 {"fault-cuinit-hang", 4 * UNIT, "in driver.cuda on node, in cuInit"}};
    for (size_t i = 0; i < sizeof hangs / sizeof *hangs; i++) {
        gv_ctx *ctx = call_ctx(hangs[i].scenario, UNIT, 0, NULL);
        gv_driver_info d = GV_DRIVER_INFO_INIT;
        double t0 = now_s();
        assert_int_equal(gv_check_driver(ctx, &d), GV_ERR_TIMEOUT);
        double took = now_s() - t0;
        print_message("%s: %.2f s: %s\n", hangs[i].scenario, took, gv_ctx_last_error(ctx));
        assert_true(took >= hangs[i].within && took < hangs[i].within + 0.5 + PAST_DEADLINE);
        assert_non_null(strstr(gv_ctx_last_error(ctx), hangs[i].where));
        assert_int_equal(d.gpu_count, 0); /* nothing written */
        gv_ctx_destroy(ctx);
    }
    gv_ctx *ctx = call_ctx("h100x8", 30, 0, NULL);
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    assert_int_equal(gv_check_driver(ctx, &d), GV_OK);
    assert_int_equal(d.gpu_count, 8);
    assert_int_equal(d.cuda_init_result, 0);
    gv_gpu g = GV_GPU_INIT;
    assert_int_equal(gv_gpu_info(ctx, 7, &g), GV_OK);
    assert_int_equal(g.pci_vendor_id, 0x10de);
    assert_int_equal(gv_gpu_info(ctx, 8, &g), GV_ERR_NOT_FOUND);
    gv_ctx_destroy(ctx);
}

/* gv_topology and gv_rdma_status read the machine in the worker: nvmlInit stuck under a live
 * topology ends within driver.nvml's 2 units plus the topology's unit, an RDMA device that
 * never opens within rdma.devices' unit; nothing is handed back. */
static void the_machine_readers_come_back_at_their_deadlines(void **state)
{
    (void)state;
    setenv("HWLOC_FSROOT", fixture("hwloc/fsroot/40intel64-2g2n4c+pci"), 1);
    gv_ctx *ctx = call_ctx("fault-nvml-init-hang", UNIT, 0, NULL);
    gv_topo *t = (gv_topo *)&t;
    double t0 = now_s();
    assert_int_equal(gv_topology(ctx, NULL, &t), GV_ERR_TIMEOUT);
    double took = now_s() - t0;
    print_message("gv_topology: %.2f s: %s\n", took, gv_ctx_last_error(ctx));
    assert_true(took >= 3 * UNIT && took < 3 * UNIT + PAST_DEADLINE);
    assert_null(t);
    char want[128];
    snprintf(want, sizeof want,
             "gv_topology of this machine did not finish: the deadline of %.1f s passed while "
             "loading NVML and nvmlInit_v2",
             3 * UNIT + 1e-6);
    assert_non_null(strstr(gv_ctx_last_error(ctx), want));
    gv_ctx_destroy(ctx);
    unsetenv("HWLOC_FSROOT");

    use_scenario("fault-ibv-open-hang");
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = fakelib();
    o.deadline_s = UNIT;
    o.sysroot = fixture("sysroots/h100-roce");
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    gv_rdma_report *r = (gv_rdma_report *)&r;
    t0 = now_s();
    assert_int_equal(gv_rdma_status(ctx, NULL, &r), GV_ERR_TIMEOUT);
    took = now_s() - t0;
    print_message("gv_rdma_status: %.2f s: %s\n", took, gv_ctx_last_error(ctx));
    assert_true(took >= UNIT && took < UNIT + PAST_DEADLINE);
    assert_null(r);
    snprintf(want, sizeof want,
             "gv_rdma_status did not finish: the deadline of %.1f s passed while libibverbs: "
             "mlx5_0: opening it",
             UNIT + 1e-6);
    assert_non_null(strstr(gv_ctx_last_error(ctx), want));
    /* Without libibverbs the files alone answer, in time. */
    gv_rdma_opts ro = GV_RDMA_OPTS_INIT;
    ro.flags = GV_RDMA_NO_VERBS;
    assert_int_equal(gv_rdma_status(ctx, &ro, &r), GV_OK);
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    assert_int_equal(gv_rdma_summary(r, &info), GV_OK);
    assert_int_equal(info.device_count, 8);
    gv_rdma_free(r);
    gv_ctx_destroy(ctx);
}

/* Loading a library runs in the worker too: a library file that never opens (a FIFO here, a
 * network file system that stopped answering in the field) ends at driver.nvml's 2 units, and
 * the caller's struct is left as it was. */
static void a_library_that_never_loads_comes_back_at_its_deadline(void **state)
{
    (void)state;
    char *root = temp_root();
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/libnvidia-ml.so.1", root);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    use_scenario("h100x1-compute");
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = fakelib();
    o.nvml_library = fifo;
    o.deadline_s = UNIT;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    li.state = 77;
    double t0 = now_s();
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_ERR_TIMEOUT);
    double took = now_s() - t0;
    print_message("gv_library_status: %.2f s: %s\n", took, gv_ctx_last_error(ctx));
    assert_true(took >= 2 * UNIT && took < 2 * UNIT + PAST_DEADLINE);
    assert_int_equal(li.state, 77);
    char want[96];
    snprintf(want, sizeof want,
             "gv_library_status (libnvidia-ml) did not finish: the deadline of %.1f s passed",
             2 * UNIT + 1e-6);
    assert_non_null(strstr(gv_ctx_last_error(ctx), want));
    /* The other libraries of the same context load as before. */
    assert_int_equal(gv_library_status(ctx, GV_LIB_CUDA, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_LOADED);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);
}

/* A worker that crashes on a topology XML is hwloc crashing on the file (GV_ERR_PARSE); one that
 * loses a record on the way gives no topology or report at all (GV_ERR_DRIVER). */
static void a_lost_record_or_a_crash_gives_no_object(void **state)
{
    (void)state;
    char *root = temp_root();
    char crashing[PATH_MAX], lossy[PATH_MAX];
    snprintf(crashing, sizeof crashing, "%s/crashing-worker", root);
    put_file(root, "/crashing-worker", "#!/bin/sh\nkill -SEGV $$\n");
    snprintf(lossy, sizeof lossy, "%s/lossy-worker", root);
    /* The real worker, its first record dropped on the way. */
    put_file(root, "/lossy-worker",
             "#!/bin/sh\n\"$GV_TEST_WORKER\" \"$@\" | sed -u '0,/\"sample\"/{/\"sample\"/d}'\n");
    assert_int_equal(chmod(crashing, 0755), 0);
    assert_int_equal(chmod(lossy, 0755), 0);
    char xml[PATH_MAX];
    snprintf(xml, sizeof xml, "%s", fixture("hwloc/xml/32em64t-2n8c2t-pci-normalio.xml"));
    gv_topo_opts to = GV_TOPO_OPTS_INIT;
    to.xml_path = xml;
    gv_topo *t = (gv_topo *)&t;

    gv_ctx *ctx = call_ctx("h100x8-rdma", 30, 0, crashing);
    assert_int_equal(gv_topology(ctx, &to, &t), GV_ERR_PARSE);
    assert_null(t);
    assert_non_null(
        strstr(gv_ctx_last_error(ctx), "not a topology hwloc can load: gv_topology on"));
    assert_non_null(strstr(gv_ctx_last_error(ctx), "signal 11"));
    gv_ctx_destroy(ctx);

    ctx = call_ctx("h100x8-rdma", 30, 0, lossy);
    assert_int_equal(gv_topology(ctx, &to, &t), GV_ERR_DRIVER);
    assert_null(t);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "not all of 4 devices and their links"));
    gv_rdma_report *r = (gv_rdma_report *)&r;
    assert_int_equal(gv_rdma_status(ctx, NULL, &r), GV_ERR_DRIVER);
    assert_null(r);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "do not make the report their summary counts"));
    gv_ctx_destroy(ctx);
    /* The same worker, unlossy, in the caller's own process: whole. */
    ctx = call_ctx("h100x8-rdma", 30, GV_CTX_IN_PROCESS, lossy);
    assert_int_equal(gv_topology(ctx, &to, &t), GV_OK);
    assert_int_equal(gv_topo_device_count(t), 4);
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);
}

static void unknown_context_flags_are_refused(void **state)
{
    (void)state;
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.flags = 0x2;
    gv_ctx *ctx = (gv_ctx *)&o; /* overwritten with NULL on error */
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_ERR_INVALID_ARG);
    assert_null(ctx);
}

/* Each call of the hang tests on a healthy GPU through the worker, as they make it, with time
 * to spare: UNIT such that each takes at most half the deadline it gets from it, and
 * healthy_s the slowest less what its options ask for. */
static void measure_healthy_calls(void)
{
    use_scenario("h100x1-compute");
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = fakelib();
    o.deadline_s = 60;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&o, &ctx) != GV_OK)
        return;
    double unit = UNIT;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const hang_case *c = &cases[i];
        int32_t verdict = -1;
        char message[512];
        double t0 = now_s();
        if (call_one(ctx, c->call, &verdict, message, sizeof message) != GV_OK)
            continue;
        double took = now_s() - t0;
        if (took - c->extra > healthy_s)
            healthy_s = took - c->extra;
        /* 2 * took <= (4 + units) * unit + extra */
        double needed = (2 * took - c->extra) / (4 + c->units);
        if (needed > unit)
            unit = needed;
    }
    gv_ctx_destroy(ctx);
    UNIT = ceil(unit * 10 - 1e-9) / 10;
    print_message("a healthy call takes up to %.2f s here: deadline unit %.1f s\n", healthy_s,
                  UNIT);
}

int main(void)
{
    /* The tests link the library's objects, so the worker is not "beside the library". */
    setenv("GPUVERIFY_WORKER", getenv("GV_TEST_WORKER"), 1);
    measure_healthy_calls();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_call_stuck_in_the_driver_comes_back_at_its_deadline),
        cmocka_unit_test(a_timeout_names_the_stage),
        cmocka_unit_test(a_crash_is_an_error_and_the_caller_lives_on),
        cmocka_unit_test(the_stress_series_streams_back),
        cmocka_unit_test(a_broken_worker_is_an_error_and_in_process_needs_none),
        cmocka_unit_test(a_pipe_held_open_after_the_last_word_keeps_no_caller),
        cmocka_unit_test(the_inventory_comes_from_the_worker_and_a_hang_there_times_out),
        cmocka_unit_test(the_machine_readers_come_back_at_their_deadlines),
        cmocka_unit_test(a_lost_record_or_a_crash_gives_no_object),
        cmocka_unit_test(a_library_that_never_loads_comes_back_at_its_deadline),
        cmocka_unit_test(unknown_context_flags_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
