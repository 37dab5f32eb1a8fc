/* SPDX-License-Identifier: Apache-2.0 */
/* The active tests over the fake libcuda, cuBLASLt and cuDNN: verdicts and figures per
 * scenario, and refusals of bad input. */
#define _GNU_SOURCE /* usleep */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/gpu_specs.h"
#include "compute/session.h"
#include "core/context.h"
#include "helpers.h"

static gv_gemm_result gemm_on_part(const char *sysroot, const char *scenario, int dtype)
{
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_gemm_opts o = small_gemm(dtype);
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

static gv_gemm_result gemm_on(const char *scenario, int dtype)
{
    return gemm_on_part("h100-open", scenario, dtype);
}

static void gemm_healthy_is_verified_and_judged_against_the_datasheet(void **state)
{
    (void)state;
    gv_gemm_result r = gemm_on("h100x1-compute", GV_DTYPE_FP16);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.verified, 1);
    assert_int_equal(r.verify_samples, 64);
    assert_int_equal(r.verify_errors, 0);
    assert_true(r.verify_worst < 1.0);
    /* The fake GPU runs at 700 TFLOPS: the datasheet of PCI id 0x2330 says 989.4. */
    assert_true(fabs(r.tflops_median - 700) < 1);
    assert_true(fabs(r.peak_tflops - 989.4) < 0.01);
    assert_non_null(strstr(r.peak_source, "0x2330"));
    assert_true(fabs(r.fraction_of_peak - 700 / 989.4) < 0.01);
    assert_string_equal(r.library_version, "13.1.0");
    assert_non_null(strstr(r.message, "verified"));
}

static void gemm_every_dtype_verifies(void **state)
{
    (void)state;
    for (int d = GV_DTYPE_FP32; d <= GV_DTYPE_FP8_E4M3; d++) {
        gv_gemm_result r = gemm_on("h100x1-compute", d);
        assert_int_equal(r.dtype, d);
        assert_int_equal(r.verified, 1);
        assert_int_not_equal(r.verdict, GV_FAIL);
    }
}

static void gemm_silent_corruption_fails(void **state)
{
    (void)state;
    gv_gemm_result r = gemm_on("h100x1-corrupt", GV_DTYPE_BF16);
    assert_int_equal(r.verdict, GV_FAIL);
    assert_int_equal(r.verified, 0);
    assert_int_equal(r.verify_errors, 64);
    assert_non_null(strstr(r.message, "silent data corruption"));
}

/* The result fingerprint: whatever the benchmark's size, the same product of fixed inputs with
 * an algorithm without split-K, named in the key; the same hash at every run and on every GPU
 * of a model, another for another data type, and another on a node whose GPUs all compute one
 * bit wrong, which the benchmark itself passes. */
static gv_gemm_result fingerprint_of(gv_ctx *ctx, uint32_t gpu, int dtype, uint32_t size)
{
    gv_gemm_opts o = small_gemm(dtype);
    o.m = o.n = o.k = size;
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, gpu, &o, &r), GV_OK);
    assert_int_equal(r.verified, 1);
    assert_int_equal(r.verdict, GV_PASS);
    return r;
}

static void gemm_fingerprint_is_the_same_on_every_run_and_gpu(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_gemm_result first = fingerprint_of(ctx, 0, GV_DTYPE_FP16, 32);
    const gv_gemm_fingerprint *fp = &first.fingerprint;
    assert_int_equal(strlen(fp->hash), strlen("crc32:") + 8);
    assert_int_equal(strspn(fp->hash + 6, "0123456789abcdef"), 8);
    assert_string_equal(fp->key, "NVIDIA H100 80GB HBM3|132 SMs|580.95.05|cublasLt 130100|fp16|"
                                 "2048x2048x2048|algo 23 tile 18 stages 9 splitk 1 reduction 0 "
                                 "swizzle 0 custom 0 inner 0 cluster 0");
    /* Again, on another GPU, at another benchmark size: the same. */
    gv_gemm_result again = fingerprint_of(ctx, 0, GV_DTYPE_FP16, 32);
    gv_gemm_result other = fingerprint_of(ctx, 5, GV_DTYPE_FP16, 64);
    assert_string_equal(again.fingerprint.hash, fp->hash);
    assert_string_equal(other.fingerprint.hash, fp->hash);
    assert_string_equal(other.fingerprint.key, fp->key);
    /* Another data type: another key and another hash. */
    gv_gemm_result bf16 = fingerprint_of(ctx, 0, GV_DTYPE_BF16, 32);
    assert_non_null(strstr(bf16.fingerprint.key, "|bf16|2048x2048x2048|"));
    assert_string_not_equal(bf16.fingerprint.hash, fp->hash);
    gv_ctx_destroy(ctx);
    /* Every GPU one bit wrong alike: the benchmark passes, verified; the key is the same, the
     * hash not. */
    ctx = scenario_ctx("h100-open", "h100x8-same-wrong");
    gv_gemm_result wrong = fingerprint_of(ctx, 0, GV_DTYPE_FP16, 32);
    gv_gemm_result wrong5 = fingerprint_of(ctx, 5, GV_DTYPE_FP16, 32);
    assert_string_equal(wrong.fingerprint.key, fp->key);
    assert_string_not_equal(wrong.fingerprint.hash, fp->hash);
    assert_string_equal(wrong5.fingerprint.hash, wrong.fingerprint.hash);
    gv_ctx_destroy(ctx);
}

/* cuda.matmul, our own kernels: the fake's off-by-one outputs are caught, whatever the size. */
static void own_matmul_catches_corruption(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-corrupt");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "cuda.matmul";
    o.gemm_size = 40; /* rounded up to 48, a multiple of the 16-wide tiles */
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_check_result c = result_of(r, "cuda.matmul", "gpu0");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "128 of 128 sampled outputs wrong"));
    assert_non_null(strstr(c.message, "48^3"));
    assert_non_null(strstr(c.remediation, "drain"));
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

/* A GEMM at 500 TFLOPS (a WARN when judged) beside a process named `name` that NVML lists. */
static gv_check_result gemm_beside(const char *name)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        prctl(PR_SET_NAME, name);
        /* Dies with the test: a failed assertion must not leave it holding ctest's pipe. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        pause();
        _exit(0);
    }
    char comm[64] = "", path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)child);
    for (int i = 0; i < 1000 && strncmp(comm, name, 15); i++) { /* until it has its name */
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = '\0';
            fclose(f);
        }
        usleep(1000);
    }
    char text[4096], scenario[PATH_MAX];
    FILE *in = fopen(fixture("scenarios/h100x1-slow.conf"), "r");
    assert_non_null(in);
    size_t n = fread(text, 1, sizeof text - 64, in);
    fclose(in);
    text[n] = '\0';
    while (n && text[n - 1] == '\n')
        text[--n] = '\0';
    snprintf(text + n, sizeof text - n, "; procs=%d:66\n", (int)child); /* on the gpu line */
    snprintf(scenario, sizeof scenario, "/tmp/gv-mps-%d.conf", (int)getpid());
    FILE *out = fopen(scenario, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
    setenv("GV_FAKE_SCENARIO", scenario, 1);
    gv_ctx *ctx = sysroot_ctx("h100-open", 1);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "gemm.fp16";
    o.gemm_size = 32;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_check_result c = result_of(r, "gemm.fp16", "gpu0");
    gv_report_free(r);
    gv_ctx_destroy(ctx);
    unlink(scenario);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return c;
}

/* MPS's server holds its clients' contexts, this one's too: not a tenant. Any other process
 * NVML lists is. */
static void mps_server_is_not_a_tenant(void **state)
{
    (void)state;
    gv_check_result c = gemm_beside("nvidia-cuda-mps");
    assert_int_equal(c.verdict, GV_WARN);
    assert_null(strstr(c.message, "used by PID"));
    c = gemm_beside("python3");
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "(python3, 0.1 GiB)"));
}

static void gemm_slow_warns_then_fails_by_policy(void **state)
{
    (void)state;
    gv_gemm_result slow = gemm_on("h100x1-slow", GV_DTYPE_FP16);
    assert_int_equal(slow.verdict, GV_WARN); /* 500 / 989.4 = 51% */
    gv_gemm_result very = gemm_on("h100x1-very-slow", GV_DTYPE_FP16);
    assert_int_equal(very.verdict, GV_FAIL); /* 30% */
    /* Held by its power cap at 1000 of 1980 MHz, 51% of the peak is 100% of it at that clock:
     * the power limit, not the GPU, sets the figure. */
    gv_gemm_result capped = gemm_on("h100x1-power-capped", GV_DTYPE_FP16);
    assert_int_equal(capped.verdict, GV_PASS);
    assert_non_null(strstr(capped.message, "51% of the 989 TFLOPS dense peak (100% of the peak at "
                                           "the 1000 MHz its power limit held, judged on that)"));
    /* The same under a limit someone lowered below the board's default: a setting, not the
     * design, judged at the peak and named. */
    gv_gemm_result lowered = gemm_on("h100x1-power-lowered", GV_DTYPE_FP16);
    assert_int_equal(lowered.verdict, GV_WARN);
    assert_null(strstr(lowered.message, "judged on that"));
    assert_non_null(strstr(lowered.message, "under a power limit of 350 W, lowered from the "
                                            "board's default 700 W"));
    /* Slow at the clock its cap holds: 300 TFLOPS at 1800 MHz is 33% there. */
    assert_int_equal(gemm_on("h100x1-power-capped-slow", GV_DTYPE_FP16).verdict, GV_FAIL);
    /* The hardware cutting the clocks (thermal slowdown) is no design: judged at the peak. */
    gv_gemm_result hot = gemm_on("h100x1-hw-slowdown", GV_DTYPE_FP16);
    assert_int_equal(hot.verdict, GV_WARN);
    assert_null(strstr(hot.message, "judged on that"));
    /* The thresholds are policy: lowered, the slow GPU passes. */
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-slow");
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    o.warn_fraction = 0.5;
    o.fail_fraction = 0.2;
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    gv_ctx_destroy(ctx);
}

/* A MIG instance is judged against its share of the datasheet, not the whole GPU's: 110
 * TFLOPS on 16 of an H100's 132 SMs is 92% of 119.9, not 11% of 989.4 (a FAIL before). */
static void gemm_on_a_mig_instance_is_judged_against_its_share(void **state)
{
    (void)state;
    gv_gemm_result r = gemm_on("h100x1-mig-slice", GV_DTYPE_FP16);
    assert_int_equal(r.verdict, GV_PASS);
    assert_float_equal(r.peak_tflops, 989.4 * 16 / 132, 0.01);
    assert_non_null(strstr(r.peak_source, "datasheet H100 SXM (PCI id 0x2330) x 16/132 SMs"));
    char source[128];
    int estimated = -1;
    assert_float_equal(
        gv_peak_tflops(0x2330, 9, 0, 132, 1980, GV_DTYPE_BF16, source, sizeof source, &estimated),
        989.4, 1e-9);
    assert_int_equal(estimated, 0);
    assert_null(strstr(source, "SMs"));
    /* DRAM: the same share; never more than the whole part, whatever the SM count says. */
    assert_float_equal(gv_memory_bandwidth_gbps(0x2330, 16), 3350.0 * 16 / 132, 1e-9);
    assert_float_equal(gv_memory_bandwidth_gbps(0x2330, 132), 3350, 1e-9);
    assert_float_equal(gv_memory_bandwidth_gbps(0x2330, 0), 3350, 1e-9);
    assert_float_equal(gv_memory_bandwidth_gbps(0x2330, 200), 3350, 1e-9);
    assert_float_equal(gv_memory_bandwidth_gbps(0x1234, 16), 0, 1e-9);
}

/* Parts whose PCI ids name one product in several forms (A100 PCIe 40GB as 0x20b1 and 0x20f1)
 * are all in the table; where NVIDIA's sheets give a part two figures, it keeps the lower
 * (H100 NVL: 835.5 dense BF16 TFLOPS, not 989.5), which cannot judge a healthy GPU slow. */
static void datasheet_parts_by_pci_id(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *name;
        double bf16, memory;
    } parts[] = {{0x20b1, "A100 PCIe 40GB", 312, 1555},
                 {0x20f1, "A100 PCIe 40GB", 312, 1555},
                 {0x20b7, "A30", 165, 933},
                 {0x2321, "H100 NVL", 835.5, 3900},
                 {0x233b, "H200 NVL", 835.5, 4800},
                 {0x2342, "GH200 96GB", 989.5, 4000},
                 {0x26b5, "L40", 181, 864}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        char source[128], want[64];
        int estimated = -1;
        double peak = gv_peak_tflops(parts[i].id, 9, 0, 0, 1980, GV_DTYPE_BF16, source,
                                     sizeof source, &estimated);
        assert_float_equal(peak, parts[i].bf16, 1e-9);
        assert_int_equal(estimated, 0);
        snprintf(want, sizeof want, "datasheet %s (PCI id 0x%04x)", parts[i].name,
                 (unsigned)parts[i].id);
        assert_string_equal(source, want);
        assert_float_equal(gv_memory_bandwidth_gbps(parts[i].id, 0), parts[i].memory, 1e-9);
    }
    /* Ampere has no FP8: the table says 0, not the formula an estimate. */
    char source[128];
    int estimated = -1;
    assert_float_equal(gv_peak_tflops(0x20b7, 8, 0, 56, 1440, GV_DTYPE_FP8_E4M3, source,
                                      sizeof source, &estimated),
                       0, 1e-9);
    assert_int_equal(estimated, 0);
}

/* A part the datasheet table does not know is never judged against the formula's estimate:
 * an H20 reaches 148 of the 632 FP16 TFLOPS its 78 Hopper SMs would at the data-centre rate,
 * and every healthy one FAILed. Any figure below an estimate passes gv_gemm_bench, labelled. */
static void gemm_estimated_peak_judges_nothing(void **state)
{
    (void)state;
    gv_gemm_result r = gemm_on_part("h20", "h20x1", GV_DTYPE_FP16);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.peak_estimated, 1);
    assert_float_equal(r.peak_tflops, 78 * 4096 * 1980e6 / 1e12, 0.01);
    assert_true(r.fraction_of_peak < 0.25);
    assert_non_null(strstr(r.peak_source, "formula: 78 SMs"));
    assert_non_null(strstr(r.message, "23% of an estimated 633 TFLOPS (no datasheet figure for "
                                      "this part: not judged against it)"));
    /* Every architecture's formula alike: an estimate never makes a WARN or a FAIL. */
    static const int ccs[][2] = {{7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}};
    for (size_t i = 0; i < sizeof ccs / sizeof *ccs; i++)
        for (int d = GV_DTYPE_FP32; d <= GV_DTYPE_FP8_E4M3; d++) {
            char source[128];
            int estimated = 0;
            double peak = gv_peak_tflops(0x2329, ccs[i][0], ccs[i][1], 78, 1980, d, source,
                                         sizeof source, &estimated);
            assert_int_equal(estimated, peak > 0);
        }
    /* A datasheet part is judged as before: 500 of 989.4 WARNs. */
    assert_int_equal(gemm_on("h100x1-slow", GV_DTYPE_FP16).peak_estimated, 0);
}

/* gv_run judges such GPUs against the node's other GPUs of the part, after measuring again
 * the ones slower than they are: of four H20s (GPUs 0, 4, 5, 6 of eight: the fakes compute
 * every GEMM on the host, a second or two per GPU), the one at 100 TFLOPS WARNs (68% of the
 * others' 148), the one at 60 FAILs (41%), the two others pass. */
static void gemm_estimated_peak_is_judged_by_the_nodes_peers(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h20", "h20x8-slow-gpus");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "gemm.fp16";
    o.gemm_size = 32;
    o.gpus = "0,4,5,6";
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu4"), GV_PASS);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu5"), GV_WARN);
    assert_int_equal(verdict_of(r, "gemm.fp16", "gpu6"), GV_FAIL);
    gv_check_result slow = result_of(r, "gemm.fp16", "gpu5");
    assert_non_null(strstr(slow.message, "68% of the median of the node's 3 other GPU(s) of this "
                                         "part (148.0 TFLOPS), judged on that"));
    assert_non_null(strstr(slow.message, "measured again: the first, shorter, gave 100.0"));
    assert_string_equal(slow.expected_source, "node");
    assert_non_null(strstr(slow.remediation, "than its peers"));
    gv_check_result ok = result_of(r, "gemm.fp16", "gpu4");
    assert_non_null(strstr(ok.message, "not judged against it"));
    assert_non_null(strstr(ok.message, "148% of the median of the node's 3 other GPU(s)"));
    assert_string_equal(ok.expected_source, "node");
    assert_string_equal(ok.remediation, "");
    gv_report_free(r);
    gv_ctx_destroy(ctx);

    /* Two alike pass. */
    ctx = scenario_ctx("h20", "h20x8");
    o.gpus = "2,3";
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    gv_report_free(r);
    gv_ctx_destroy(ctx);

    /* One alone passes, not judged on throughput. */
    ctx = scenario_ctx("h20", "h20x1");
    o.gpus = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    gv_check_result alone = result_of(r, "gemm.fp16", "gpu0");
    assert_non_null(strstr(alone.message, "no other GPU of this part on the node"));
    assert_string_equal(alone.expected_source, "formula");
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

static void gemm_fp8_needs_ada_or_hopper(void **state)
{
    (void)state;
    gv_gemm_result r = gemm_on("t4", GV_DTYPE_FP8_E4M3);
    assert_int_equal(r.verdict, GV_SKIP);
    assert_non_null(strstr(r.message, "compute capability 8.9"));
}

static void cublas_newer_than_the_driver_fails_with_the_fix(void **state)
{
    (void)state;
    char lt[4096];
    snprintf(lt, sizeof lt, "%s/libcublasLt.so.13", fakelib());
    setenv("GPUVERIFY_CUBLASLT_LIBRARY", lt, 1);
    gv_gemm_result r = gemm_on("h100x1-cublas-newer", GV_DTYPE_FP16);
    unsetenv("GPUVERIFY_CUBLASLT_LIBRARY");
    assert_int_equal(r.verdict, GV_FAIL);
    assert_non_null(strstr(r.message, "built for CUDA 13.1 but the driver supports CUDA 12.8"));
    assert_non_null(strstr(r.message, "upgrade the driver"));
}

static void cuda_check_measures_and_verifies(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_cuda_opts o = GV_CUDA_OPTS_INIT;
    o.quick_alloc_bytes = 1 << 20;
    o.copy_bytes = 1 << 20;
    o.copy_samples = 3;
    o.copies_per_sample = 4;
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    assert_int_equal(gv_cuda_check(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.alloc_verdict, GV_PASS);
    assert_int_equal(r.alloc_errors, 0);
    assert_int_equal(r.memory_free, 128u << 20);
    assert_int_equal(r.alloc_bytes, 64u << 20); /* half of the free memory, in 2 MiB pages */
    assert_int_equal(r.copy_verdict, GV_PASS);
    assert_true(fabs(r.h2d_gbps - 50) < 0.5 && fabs(r.d2h_gbps - 50) < 0.5);
    assert_true(fabs(r.d2d_gbps - 4000) < 40); /* 40x the link rate, read + write */
    assert_true(fabs(r.link_max_gbps - 63.0) < 0.1);
    assert_int_equal(r.numa_node, 0);
    assert_string_equal(r.pci_bus_id, "0000:18:00.0");
    gv_ctx_destroy(ctx);
}

/* A counter of the fake libcuda (fake_cuda_device.h), from `lib`: the test holds the library
 * open, so that its counts outlive the contexts that load it. */
static int (*fake_counter(void *lib, const char *name))(int)
{
    int (*fn)(int);
    *(void **)&fn = dlsym(lib, name);
    assert_non_null(fn);
    return fn;
}

/* Opens and closes a session on GPU 0; how many contexts that made. */
static int session_made(gv_ctx *ctx, int (*made)(int))
{
    int before = made(0);
    gv_session s;
    gv_errbuf err;
    assert_int_equal(gv_session_open(ctx, 0, &s, &err), GV_OK);
    gv_session_close(&s);
    return made(0) - before;
}

/* In gpuverify-worker a GPU's context and kernels outlive a session for the next (made once:
 * 0.15-0.2 s a GPU each time on an H200), unless the session ended with the context failing;
 * in the caller's process every session's context goes with it. */
static void worker_keeps_a_healthy_context_between_sessions(void **state)
{
    (void)state;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/libcuda.so.1", fakelib());
    void *lib = dlopen(path, RTLD_NOW);
    assert_non_null(lib);
    int (*made)(int) = fake_counter(lib, "fake_cuda_contexts_made");
    int (*refs)(int) = fake_counter(lib, "fake_cuda_context_refs");
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    assert_int_equal(refs(0), 0);
    assert_int_equal(session_made(ctx, made), 1);
    assert_int_equal(session_made(ctx, made), 1);
    ctx->in_worker = 1;
    assert_int_equal(session_made(ctx, made), 1);
    assert_int_equal(refs(0), 1); /* kept */
    assert_int_equal(session_made(ctx, made), 0);
    assert_int_equal(session_made(ctx, made), 0);
    assert_int_equal(refs(0), 1);
    assert_non_null(ctx->kept[0].module);
    gv_ctx_destroy(ctx);
    assert_int_equal(refs(0), 0); /* the context's end lets them go */

    /* The GPU fails the wait at every session's end: its context is dropped each time. */
    char *root = temp_root(), conf[PATH_MAX], line[4096];
    snprintf(conf, sizeof conf, "%s/failing.conf", root);
    FILE *in = fopen(fixture("scenarios/h100x1-compute.conf"), "r"), *out = fopen(conf, "w");
    assert_non_null(in);
    assert_non_null(out);
    while (fgets(line, sizeof line, in))
        fputs(line, out);
    fputs("fault = cuEventQuery error=700 gpu=0\n", out);
    fclose(in);
    fclose(out);
    ctx = sysroot_ctx("h100-open", 1);
    setenv("GV_FAKE_SCENARIO", conf, 1);
    ctx->in_worker = 1;
    assert_int_equal(session_made(ctx, made), 1);
    assert_int_equal(refs(0), 0);
    assert_int_equal(session_made(ctx, made), 1);
    assert_null(ctx->kept[0].module);
    gv_ctx_destroy(ctx);
    use_scenario(NULL);
    remove_tree(root);
    free(root);
    dlclose(lib);
}

static void cuda_check_slow_copies_fail_against_the_link(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-slow-copy");
    gv_cuda_opts o = GV_CUDA_OPTS_INIT;
    o.flags = GV_CUDA_SKIP_ALLOC;
    o.copy_bytes = 1 << 20;
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    assert_int_equal(gv_cuda_check(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.copy_verdict, GV_FAIL); /* 20 of 63 GB/s = 32% */
    assert_int_equal(r.alloc_verdict, GV_SKIP);
    assert_non_null(strstr(r.copy_message, "32% of the link's 63.0 GB/s"));
    gv_ctx_destroy(ctx);
}

static void cuda_check_oversized_allocation_fails_cleanly(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_cuda_opts o = GV_CUDA_OPTS_INIT;
    o.flags = GV_CUDA_SKIP_COPY;
    o.quick_alloc_bytes = 1 << 20;
    o.alloc_bytes = 64ull << 30; /* 64 GiB with 128 MiB free */
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    assert_int_equal(gv_cuda_check(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.alloc_verdict, GV_FAIL);
    assert_int_equal(r.verdict, GV_FAIL);
    assert_non_null(strstr(r.alloc_message, "allocating 64.00 GiB failed: out of memory with"));
    assert_non_null(strstr(r.alloc_message, "still usable"));
    /* Everything was released: the next check sees all 128 MiB free again. */
    o.alloc_bytes = 0;
    assert_int_equal(gv_cuda_check(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.memory_free, 128u << 20);
    assert_int_equal(r.alloc_verdict, GV_PASS);
    gv_ctx_destroy(ctx);
}

static void cudnn_convolutions_match_the_host(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    assert_int_equal(gv_cudnn_check(ctx, 0, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_string_equal(r.version, "9.14.0");
    assert_int_equal(r.cudart_version, 13000);
    assert_int_equal(r.fp32_verdict, GV_PASS);
    assert_int_equal(r.fp16_verdict, GV_PASS);
    assert_true(r.fp32_worst < 1.0 && r.fp16_worst < 1.0);
    gv_ctx_destroy(ctx);
}

static void cudnn_absent_is_a_skip_naming_the_file(void **state)
{
    (void)state;
    setenv("GPUVERIFY_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9", 1);
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    unsetenv("GPUVERIFY_CUDNN_LIBRARY");
    gv_cudnn_result r = GV_CUDNN_RESULT_INIT;
    assert_int_equal(gv_cudnn_check(ctx, 0, &r), GV_OK);
    assert_int_equal(r.verdict, GV_SKIP);
    assert_non_null(strstr(r.message, "/nonexistent/libcudnn.so.9"));
    gv_ctx_destroy(ctx);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_gemm_result gr = GV_GEMM_RESULT_INIT;
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    assert_int_equal(gv_gemm_bench(NULL, 0, &o, &gr), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, NULL), GV_ERR_INVALID_ARG);
    o.dtype = 7;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "dtype 7"));
    o = small_gemm(GV_DTYPE_FP16);
    o.m = 0;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_INVALID_ARG);
    o.m = 70000;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_INVALID_ARG);
    o = small_gemm(GV_DTYPE_FP8_E4M3);
    o.k = 40;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_INVALID_ARG);
    o = small_gemm(GV_DTYPE_FP16);
    o.warn_fraction = 0.3; /* below fail_fraction 0.4 */
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_INVALID_ARG);
    o = small_gemm(GV_DTYPE_FP16);
    o.struct_size = 8;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &gr), GV_ERR_VERSION);
    o = small_gemm(GV_DTYPE_FP16);
    assert_int_equal(gv_gemm_bench(ctx, 5, &o, &gr), GV_ERR_NOT_FOUND);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "CUDA sees 1 device"));

    gv_cuda_result cr = GV_CUDA_RESULT_INIT;
    gv_cuda_opts co = GV_CUDA_OPTS_INIT;
    co.copy_bytes = 0;
    assert_int_equal(gv_cuda_check(ctx, 0, &co, &cr), GV_ERR_INVALID_ARG);
    co = (gv_cuda_opts)GV_CUDA_OPTS_INIT;
    co.alloc_bytes = ~0ull; /* overflowing */
    assert_int_equal(gv_cuda_check(ctx, 0, &co, &cr), GV_ERR_INVALID_ARG);
    co = (gv_cuda_opts)GV_CUDA_OPTS_INIT;
    co.alloc_fraction = NAN;
    assert_int_equal(gv_cuda_check(ctx, 0, &co, &cr), GV_ERR_INVALID_ARG);
    co = (gv_cuda_opts)GV_CUDA_OPTS_INIT;
    co.flags = 0x80;
    assert_int_equal(gv_cuda_check(ctx, 0, &co, &cr), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_cuda_check(ctx, 3, NULL, &cr), GV_ERR_NOT_FOUND);
    cr.struct_size = 4;
    assert_int_equal(gv_cuda_check(ctx, 0, NULL, &cr), GV_ERR_VERSION);
    assert_int_equal(gv_cudnn_check(ctx, 0, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_cudnn_check(NULL, 0, NULL), GV_ERR_INVALID_ARG);
    assert_string_equal(gv_dtype_name(GV_DTYPE_BF16), "bf16");
    assert_string_equal(gv_dtype_name(-1), "unknown");
    gv_ctx_destroy(ctx);
}

static void no_cuda_is_a_verdict_not_an_error(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("no-nvidia", NULL);
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    gv_gemm_result r = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_FAIL);
    assert_non_null(strstr(r.message, "libcuda is not usable"));
    gv_ctx_destroy(ctx);
}

static void run_rows_for_every_active_check(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "cuda,gemm,cudnn,driver.compat";
    o.gemm_size = 32;
    o.copy_bytes = 1 << 20;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    static const char *const ids[] = {"cuda.init", "cuda.alloc", "cuda.copy", "cuda.matmul",
                                      "gemm.fp32", "gemm.tf32",  "gemm.fp16", "gemm.bf16",
                                      "gemm.fp8",  "cudnn.conv"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        assert_int_equal(verdict_of(r, ids[i], "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(r, "cudnn.version", "node"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.compat", "cublasLt"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.compat", "cudnn"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.compat", "nccl"), GV_PASS);
    gv_check_result c = result_of(r, "gemm.fp16", "gpu0");
    assert_string_equal(c.unit, "TFLOPS");
    assert_true(fabs(c.value - 700) < 1);
    assert_int_equal(gv_report_count(r), 16); /* and cuda.copy_all, cuda.p2p: SKIP, one GPU */
    gv_check_result mm = result_of(r, "cuda.matmul", "gpu0");
    assert_string_equal(mm.unit, "TFLOPS");
    assert_true(fabs(mm.value - 700) < 1); /* the fake GPU's rate, timed by events */
    assert_non_null(strstr(mm.message, "128 sampled outputs verified"));
    gv_report_free(r);
    o.gemm_size = 100000;
    assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
}

static void memtest_covers_the_fraction_and_every_word(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_memtest_opts o = GV_MEMTEST_OPTS_INIT;
    o.chunk_bytes = 16u << 20; /* 116 MiB in seven chunks and a smaller last one */
    o.rounds = 2;
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_OK);
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.memory_free, 128u << 20);
    assert_int_equal(r.bytes_tested, 116u << 20); /* 92% of 128 MiB in whole 2 MiB pages */
    assert_int_equal(r.chunks, 8);
    assert_int_equal(r.rounds, 2);
    assert_int_equal(r.steps, 9);
    assert_int_equal(r.errors, 0);
    /* Nine passes move 16 x the memory a round; the fake runs them at 40 x 50 GB/s. */
    assert_true(fabs(r.gbps - 2000) < 20);
    assert_int_equal(r.ecc_corrected_before, 0);
    assert_int_equal(r.ecc_uncorrected_after, 0);
    assert_non_null(strstr(r.message, "every word read back right"));
    /* Everything was released. */
    gv_cuda_opts co = GV_CUDA_OPTS_INIT;
    co.flags = GV_CUDA_SKIP_COPY | GV_CUDA_SKIP_ALLOC;
    gv_cuda_result cr = GV_CUDA_RESULT_INIT;
    assert_int_equal(gv_cuda_check(ctx, 0, &co, &cr), GV_OK);
    assert_int_equal(cr.memory_free, 128u << 20);
    gv_ctx_destroy(ctx);
}

static void memtest_locates_a_stuck_bit(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "mem-stuck-bit");
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    assert_int_equal(gv_mem_test(ctx, 0, NULL, &r), GV_OK);
    assert_int_equal(r.verdict, GV_FAIL);
    assert_int_equal(r.chunks, 1);
    /* Bit 5 stuck at 1 shows wherever a pattern holds 0 there: the address complement, the
     * walking one at this word (bit 5 is not its one), and one or both random passes. */
    assert_true(r.errors >= 3 && r.errors <= 5);
    assert_int_equal(r.errors_logged, r.errors);
    for (uint32_t i = 0; i < r.errors_logged; i++) {
        const gv_memtest_error *e = &r.first_errors[i];
        assert_int_equal(e->offset, 0x12340);
        assert_int_equal(e->expected ^ e->read, 1u << 5);
        assert_int_equal(e->read & (1u << 5), 1u << 5);
        assert_int_equal(e->round, 1);
    }
    /* Where the own-address pattern has a 0 in bit 5 the first pass finds it, else its
     * complement does: it depends on where the fake's allocation landed. */
    assert_string_equal(r.first_errors[0].step, r.first_errors[0].address & 0x20
                                                    ? "address complement, descending"
                                                    : "own address, ascending");
    assert_non_null(strstr(r.message, "first at offset 0x12340"));
    gv_ctx_destroy(ctx);
}

static void memtest_refuses_bad_options(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    gv_memtest_opts o = GV_MEMTEST_OPTS_INIT;
    o.fraction = 1.0;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "fraction"));
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.fraction = NAN;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.chunk_bytes = 4096;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.rounds = 0;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.duration_s = -1;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.flags = 1;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_memtest_opts)GV_MEMTEST_OPTS_INIT;
    o.struct_size = 8;
    assert_int_equal(gv_mem_test(ctx, 0, &o, &r), GV_ERR_VERSION);
    assert_int_equal(gv_mem_test(ctx, 4, NULL, &r), GV_ERR_NOT_FOUND);
    assert_int_equal(gv_mem_test(ctx, 0, NULL, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_mem_test(NULL, 0, NULL, &r), GV_ERR_INVALID_ARG);
    r.struct_size = 4;
    assert_int_equal(gv_mem_test(ctx, 0, NULL, &r), GV_ERR_VERSION);
    /* Nothing was written into a refused result. */
    assert_int_equal(r.verdict, GV_PASS);
    assert_int_equal(r.bytes_tested, 0);
    gv_ctx_destroy(ctx);
}

static void stress_compares_every_result_and_fills_the_series(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "stress-odd-gpu");
    gv_stress_sample series[64];
    gv_stress_opts o = GV_STRESS_OPTS_INIT;
    o.size = 32;
    o.duration_s = 0.05;
    o.interval_s = 0.01;
    o.gpu_count = 3;
    o.gpus[0] = 4, o.gpus[1] = 5, o.gpus[2] = 6;
    o.series = series;
    o.series_capacity = 2; /* too small: the rest is counted as dropped */
    gv_stress_result r = GV_STRESS_RESULT_INIT;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_OK);
    assert_int_equal(r.gpu_count, 3);
    assert_int_equal(r.verdict, GV_FAIL);
    assert_int_equal(r.series_count, 2);
    assert_true(r.series_dropped >= 1);
    assert_int_equal(series[0].cuda_index, 4);
    assert_true(series[0].tflops > 0 && series[1].tflops > 0);
    for (int i = 0; i < 3; i++) {
        const gv_stress_gpu *g = &r.gpus[i];
        assert_int_equal(g->cuda_index, 4 + i);
        assert_true(g->iterations > 0);
        assert_int_equal(g->mismatches, 0); /* each GPU agrees with itself */
        assert_int_equal(g->agrees, i == 1 ? 0 : 1);
        assert_int_equal(g->verdict, i == 1 ? GV_FAIL : GV_PASS);
        assert_true(fabs(g->tflops_median - 700) < 1);
        assert_true(fabs(g->power_limit_w - 700) < 0.5);
        /* The sampler reads NVML at least once before it stops (an interval's reading may
         * come before its first: 0, unknown). */
        assert_true(fabs(g->power_mean_w - 686) < 0.5);
    }
    assert_int_not_equal(r.gpus[0].result_hash, r.gpus[1].result_hash);
    assert_int_equal(r.gpus[0].result_hash, r.gpus[2].result_hash);
    assert_non_null(strstr(r.gpus[1].message, "differs from the other"));
    gv_ctx_destroy(ctx);
}

/* Every GPU of a node one bit wrong alike: the stress sees GPUs that agree with each other and
 * with themselves and passes them; their fingerprints, the same as gemm.*'s of the data type,
 * are what differs from a healthy node's. */
static void stress_fingerprints_tell_a_node_wrong_alike(void **state)
{
    (void)state;
    gv_stress_result runs[2];
    static const char *const scenarios[] = {"h100x8", "h100x8-same-wrong"};
    for (int s = 0; s < 2; s++) {
        gv_ctx *ctx = scenario_ctx("h100-open", scenarios[s]);
        gv_stress_opts o = GV_STRESS_OPTS_INIT;
        o.size = 32;
        o.duration_s = 0.05;
        o.interval_s = 0.01;
        o.gpu_count = 3;
        o.gpus[0] = 0, o.gpus[1] = 3, o.gpus[2] = 7;
        gv_stress_result *r = &runs[s];
        *r = (gv_stress_result)GV_STRESS_RESULT_INIT;
        assert_int_equal(gv_stress_gemm(ctx, &o, r), GV_OK);
        assert_int_equal(r->verdict, GV_PASS);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(r->gpus[i].agrees, 1);
            assert_int_equal(r->gpus[i].mismatches, 0);
            assert_string_equal(r->fingerprints[i].hash, r->fingerprints[0].hash);
            assert_string_equal(r->fingerprints[i].key, r->fingerprints[0].key);
        }
        assert_non_null(strstr(r->fingerprints[0].key, "|bf16|2048x2048x2048|algo 23 "));
        if (s == 0) { /* gemm.bf16's fingerprint on the same node */
            gv_gemm_result g = fingerprint_of(ctx, 3, GV_DTYPE_BF16, 32);
            assert_string_equal(g.fingerprint.hash, r->fingerprints[0].hash);
            assert_string_equal(g.fingerprint.key, r->fingerprints[0].key);
        }
        gv_ctx_destroy(ctx);
    }
    assert_string_equal(runs[1].fingerprints[0].key, runs[0].fingerprints[0].key);
    assert_string_not_equal(runs[1].fingerprints[0].hash, runs[0].fingerprints[0].hash);
}

static void stress_refuses_bad_options(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
    gv_stress_result r = GV_STRESS_RESULT_INIT;
    gv_stress_opts o = GV_STRESS_OPTS_INIT;
    assert_int_equal(gv_stress_gemm(ctx, NULL, &r), GV_ERR_INVALID_ARG);
    o.size = 100; /* not a multiple of 16 */
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.duration_s = 0;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.interval_s = NAN;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.series_capacity = 8; /* and no buffer */
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "series_capacity 8 needs series"));
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.gpu_count = 99; /* the error names this field alone */
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "gpu_count 99: 0 .. "));
    assert_null(strstr(gv_ctx_last_error(ctx), "series"));
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.gpu_count = 2; /* GPU 0 twice */
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_INVALID_ARG);
    o = (gv_stress_opts)GV_STRESS_OPTS_INIT;
    o.gpu_count = 1;
    o.gpus[0] = 3;
    o.size = 32;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_NOT_FOUND);
    o.struct_size = 8;
    assert_int_equal(gv_stress_gemm(ctx, &o, &r), GV_ERR_VERSION);
    r.struct_size = 8;
    assert_int_equal(gv_stress_gemm(ctx, NULL, &r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_stress_gemm(NULL, &o, &r), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
}

/* stress.* through gv_run: rows per GPU, the time series in the JSON report, through the worker
 * and in-process, and read back by gv_report_from_json. */
static void stress_rows_carry_their_series(void **state)
{
    (void)state;
    setenv("GPUVERIFY_WORKER", getenv("GV_TEST_WORKER"), 1);
    static const int32_t isolations[] = {GV_ISOLATION_PROCESS, GV_ISOLATION_NONE};
    for (size_t i = 0; i < 2; i++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.checks = "stress";
        o.gemm_size = 32;
        o.duration_s = 0.2;
        o.isolation = isolations[i];
        gv_report *r = NULL;
        assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
        assert_int_equal(verdict_of(r, "stress.gemm", "gpu0"), GV_PASS);
        assert_int_equal(verdict_of(r, "stress.power", "gpu0"), GV_PASS);
        char *json = NULL, *again = NULL;
        assert_int_equal(gv_report_json(r, GV_JSON_COMPACT, &json), GV_OK);
        const char *series = strstr(json, "\"series\":[{\"t_s\":");
        assert_non_null(series);
        assert_non_null(strstr(series, "\"tflops\":"));
        gv_report *back = NULL;
        assert_int_equal(gv_report_from_json(ctx, json, &back), GV_OK);
        assert_int_equal(gv_report_json(back, GV_JSON_COMPACT, &again), GV_OK);
        assert_non_null(strstr(again, "\"series\":[{\"t_s\":"));
        /* The same samples: everything from the series on matches, up to the duration. */
        assert_int_equal(strncmp(strstr(again, "\"series\""), strstr(json, "\"series\""), 200), 0);
        gv_free(json);
        gv_free(again);
        gv_report_free(back);
        gv_report_free(r);
        gv_ctx_destroy(ctx);
    }
    unsetenv("GPUVERIFY_WORKER");
}

/* gv_run_opts.on_event: what a progress display sees, the same through the worker and in the
 * caller's process. */
typedef struct seen_events {
    unsigned started, finished, bad;
    uint32_t last_position, selected;
    char last_mem_subject[48];
} seen_events;

static void count_event(const gv_run_event *e, void *user)
{
    seen_events *s = user;
    s->bad += e->struct_size != sizeof *e || !e->check || !e->subject ||
              e->checks_started > e->checks_selected || e->checks_started < s->last_position ||
              !(e->elapsed_s >= 0 && e->elapsed_s <= e->budget_s);
    s->last_position = e->checks_started;
    s->selected = e->checks_selected;
    if (e->kind == GV_RUN_EVENT_STARTED) {
        s->started++;
        s->bad += e->result != NULL;
        if (!strcmp(e->check, "mem.test")) /* the group on "node", then each GPU */
            snprintf(s->last_mem_subject, sizeof s->last_mem_subject, "%s", e->subject);
    } else {
        s->finished++;
        s->bad +=
            e->kind != GV_RUN_EVENT_FINISHED || !e->result || strcmp(e->result->id, e->check) != 0;
    }
}

static void run_events_follow_the_checks(void **state)
{
    (void)state;
    setenv("GPUVERIFY_WORKER", getenv("GV_TEST_WORKER"), 1);
    static const int32_t isolations[] = {GV_ISOLATION_PROCESS, GV_ISOLATION_NONE};
    for (size_t i = 0; i < 2; i++) {
        gv_ctx *ctx = scenario_ctx("h100-open", "h100x1-compute");
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.checks = "system,driver.version,cuda.init,cuda.alloc,mem.test";
        o.copy_bytes = 1 << 20;
        o.isolation = isolations[i];
        seen_events seen = {0};
        o.on_event = count_event;
        o.on_event_user = &seen;
        gv_report *r = NULL;
        assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
        assert_int_equal(seen.bad, 0);
        assert_int_equal(seen.selected, 6);
        assert_int_equal(seen.last_position, 6);
        assert_int_equal(seen.finished, gv_report_count(r)); /* every row, once */
        assert_true(seen.started >= 5);
        assert_string_equal(seen.last_mem_subject, "gpu0");
        gv_report_free(r);
        gv_ctx_destroy(ctx);
    }
    unsetenv("GPUVERIFY_WORKER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_healthy_is_verified_and_judged_against_the_datasheet),
        cmocka_unit_test(gemm_every_dtype_verifies),
        cmocka_unit_test(gemm_silent_corruption_fails),
        cmocka_unit_test(gemm_fingerprint_is_the_same_on_every_run_and_gpu),
        cmocka_unit_test(own_matmul_catches_corruption),
        cmocka_unit_test(gemm_slow_warns_then_fails_by_policy),
        cmocka_unit_test(mps_server_is_not_a_tenant),
        cmocka_unit_test(gemm_on_a_mig_instance_is_judged_against_its_share),
        cmocka_unit_test(datasheet_parts_by_pci_id),
        cmocka_unit_test(gemm_estimated_peak_judges_nothing),
        cmocka_unit_test(gemm_estimated_peak_is_judged_by_the_nodes_peers),
        cmocka_unit_test(gemm_fp8_needs_ada_or_hopper),
        cmocka_unit_test(cublas_newer_than_the_driver_fails_with_the_fix),
        cmocka_unit_test(cuda_check_measures_and_verifies),
        cmocka_unit_test(worker_keeps_a_healthy_context_between_sessions),
        cmocka_unit_test(cuda_check_slow_copies_fail_against_the_link),
        cmocka_unit_test(cuda_check_oversized_allocation_fails_cleanly),
        cmocka_unit_test(memtest_covers_the_fraction_and_every_word),
        cmocka_unit_test(memtest_locates_a_stuck_bit),
        cmocka_unit_test(memtest_refuses_bad_options),
        cmocka_unit_test(run_events_follow_the_checks),
        cmocka_unit_test(stress_compares_every_result_and_fills_the_series),
        cmocka_unit_test(stress_fingerprints_tell_a_node_wrong_alike),
        cmocka_unit_test(stress_refuses_bad_options),
        cmocka_unit_test(stress_rows_carry_their_series),
        cmocka_unit_test(cudnn_convolutions_match_the_host),
        cmocka_unit_test(cudnn_absent_is_a_skip_naming_the_file),
        cmocka_unit_test(bad_input_is_refused),
        cmocka_unit_test(no_cuda_is_a_verdict_not_an_error),
        cmocka_unit_test(run_rows_for_every_active_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
