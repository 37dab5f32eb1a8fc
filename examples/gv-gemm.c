/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* gv-gemm: the cuBLASLt tensor-core GEMM benchmark of libgpuverify, per data type: TFLOPS,
 * % of the dense datasheet peak, SM clock and power during the timed batches, whether the
 * sampled results matched the host, and the algorithm kept. Exit status: 0 no FAIL, 1 a FAIL
 * (the NVIDIA libraries not usable too), 2 usage error, no such GPU or no context. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const tool = "gv-gemm";

/* CUDA device indices (as gv-nccl's --gpus), and gv_gemm_bench's own bounds. */
#define GEMM_MAX_GPU 63
#define GEMM_MAX_DIM 65536
#define GEMM_MAX_DTYPES 16

static void usage(void)
{
    printf("usage: gv-gemm [--gpu N] [--dtype LIST] [--size N | --mnk M,N,K] [--warmup S]\n"
           "               [--batch S] [--batches N] [--json] [--version]\n"
           "  --gpu N       CUDA device, 0 to %d (default 0)\n"
           "  --dtype LIST  fp32,tf32,fp16,bf16,fp8 (default all)\n"
           "  --size N      m = n = k, 1 to %d (default 8192; fp8 needs multiples of 16)\n"
           "  --mnk M,N,K   each 1 to %d\n"
           "  --warmup S    untimed GEMMs first, 0 to 600 s (default 1)\n"
           "  --batch S     one timed batch, 0.001 to 600 s (default 0.3)\n"
           "  --batches N   timed batches, 1 to 1000 (default 5)\n"
           "  --json        one JSON array, an object per data type\n"
           "Exit status: 0 no FAIL, 1 a FAIL (the NVIDIA libraries not usable too: this\n"
           "node cannot run GEMMs, as gv-check's driver.cuda FAILs it), 2 usage error, no\n"
           "such GPU or no context.\n",
           GEMM_MAX_GPU, GEMM_MAX_DIM, GEMM_MAX_DIM);
}

static int dim_arg(const char *opt, const char *text, uint32_t *out)
{
    uint64_t v;
    if (gv_cli_uint64(tool, opt, text, 1, GEMM_MAX_DIM, &v) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "M,N,K": three dimensions, each 1..GEMM_MAX_DIM. */
static int mnk_arg(const char *text, gv_gemm_opts *o)
{
    uint32_t *dims[3] = {&o->m, &o->n, &o->k};
    const char *p = text;
    int n = 0;
    for (; n < 3; n++) {
        char *end = NULL;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (!end || v < 1 || v > GEMM_MAX_DIM || *end != (n < 2 ? ',' : '\0'))
            break;
        *dims[n] = (uint32_t)v;
        p = end + 1;
    }
    if (n == 3)
        return 0;
    fprintf(stderr, "%s: --mnk wants M,N,K, each a whole number from 1 to %d, not '%s'\n", tool,
            GEMM_MAX_DIM, text);
    return -1;
}

/* "fp16,bf16": each a data type gv_dtype_name knows. */
static int dtype_arg(const char *text, int *dtypes, int *count)
{
    const char *names[GV_DTYPE_FP8_E4M3 + 1];
    for (int d = GV_DTYPE_FP32; d <= GV_DTYPE_FP8_E4M3; d++)
        names[d] = gv_dtype_name(d);
    char buf[256];
    if (strlen(text) >= sizeof buf || !*text) {
        fprintf(stderr,
                "%s: --dtype wants a comma-separated list of fp32, tf32, fp16, bf16, fp8, not "
                "'%s'\n",
                tool, text);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    *count = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int d = gv_cli_choice(tool, "--dtype", t, names, GV_DTYPE_FP8_E4M3 + 1);
        if (d < 0)
            return -1;
        if (*count == GEMM_MAX_DTYPES) {
            fprintf(stderr, "%s: --dtype lists at most %d data types\n", tool, GEMM_MAX_DTYPES);
            return -1;
        }
        dtypes[(*count)++] = d;
    }
    if (!*count) {
        fprintf(stderr,
                "%s: --dtype wants a comma-separated list of fp32, tf32, fp16, bf16, fp8, not "
                "'%s'\n",
                tool, text);
        return -1;
    }
    return 0;
}

static void print_json(const gv_gemm_result *r, int first)
{
    printf("%s{\"dtype\": \"%s\", \"m\": %u, \"n\": %u, \"k\": %u, \"verdict\": \"%s\", "
           "\"tflops_median\": %.2f, \"tflops_best\": %.2f, \"peak_tflops\": %.1f, "
           "\"fraction_of_peak\": %.4f, \"clock_efficiency\": %.4f, \"sm_clock_mean_mhz\": %.0f, "
           "\"sm_clock_min_mhz\": %.0f, \"power_mean_w\": %.1f, \"temperature_max_c\": %.0f, "
           "\"clock_event_reasons\": %llu, \"verified\": %d, \"verify_worst\": %.3g, "
           "\"algo\": \"%s\", \"cublaslt\": \"%s\", \"message\": \"%s\", \"fingerprint\": ",
           first ? "" : ",\n ", gv_dtype_name(r->dtype), r->m, r->n, r->k,
           gv_verdict_name(r->verdict), r->tflops_median, r->tflops_best, r->peak_tflops,
           r->fraction_of_peak, r->clock_efficiency, r->sm_clock_mean_mhz, r->sm_clock_min_mhz,
           r->power_mean_w, r->temperature_max_c, (unsigned long long)r->clock_event_reasons,
           (int)r->verified, r->verify_worst, r->algo, r->library_version, r->message);
    /* The result fingerprint (docs/checks.md), as the report's rows carry it, and its cost. */
    if (r->fingerprint.hash[0])
        printf("{\"hash\": \"%s\", \"key\": \"%s\", \"seconds\": %.4f}}", r->fingerprint.hash,
               r->fingerprint.key, r->fingerprint.seconds);
    else
        printf("null}");
}

int main(int argc, char **argv)
{
    gv_gemm_opts o = GV_GEMM_OPTS_INIT;
    int dtypes[GEMM_MAX_DTYPES], ndtypes = 0;
    for (int d = GV_DTYPE_FP32; d <= GV_DTYPE_FP8_E4M3; d++)
        dtypes[ndtypes++] = d;
    uint64_t gpu = 0, batches = 0;
    int json = 0, size_given = 0, mnk_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--version")) {
            gv_cli_version(tool);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (strcmp(a, "--gpu") && strcmp(a, "--dtype") && strcmp(a, "--size") &&
                   strcmp(a, "--mnk") && strcmp(a, "--warmup") && strcmp(a, "--batch") &&
                   strcmp(a, "--batches")) {
            return gv_cli_unknown(tool, a);
        } else if (!(v = gv_cli_value(tool, argc, argv, &i))) {
            return GV_CLI_USAGE;
        } else if (!strcmp(a, "--gpu")) {
            if (gv_cli_uint64(tool, a, v, 0, GEMM_MAX_GPU, &gpu) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--dtype")) {
            if (dtype_arg(v, dtypes, &ndtypes) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--size")) {
            if (dim_arg(a, v, &o.m) != 0)
                return GV_CLI_USAGE;
            o.n = o.k = o.m;
            size_given = 1;
        } else if (!strcmp(a, "--mnk")) {
            if (mnk_arg(v, &o) != 0)
                return GV_CLI_USAGE;
            mnk_given = 1;
        } else if (!strcmp(a, "--warmup")) {
            if (gv_cli_double(tool, a, v, 0, 600, &o.warmup_s) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--batch")) {
            if (gv_cli_double(tool, a, v, 0.001, 600, &o.batch_s) != 0)
                return GV_CLI_USAGE;
        } else if (gv_cli_uint64(tool, a, v, 1, 1000, &batches) != 0) { /* --batches */
            return GV_CLI_USAGE;
        } else {
            o.batches = (uint32_t)batches;
        }
    }
    if (size_given && mnk_given) {
        fprintf(stderr, "%s: --size and --mnk both set the shape: give one of them\n", tool);
        return GV_CLI_USAGE;
    }
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK) {
        fprintf(stderr, "gv-gemm: cannot create a context: %s\n", gv_ctx_last_error(NULL));
        return 2;
    }
    int worst = GV_PASS, first = 1;
    if (json)
        printf("[");
    else
        printf("%-5s %-16s %9s %9s %7s %9s %7s %-8s %s\n", "dtype", "m x n x k", "TFLOPS", "best",
               "% peak", "SM MHz", "W", "verified", "algorithm / message");
    for (int k = 0; k < ndtypes; k++) {
        const char *t = gv_dtype_name(dtypes[k]);
        o.dtype = dtypes[k];
        gv_gemm_result r = GV_GEMM_RESULT_INIT;
        if (gv_gemm_bench(ctx, (uint32_t)gpu, &o, &r) != GV_OK) {
            fprintf(stderr, "gv-gemm: %s: %s\n", t, gv_ctx_last_error(ctx));
            gv_ctx_destroy(ctx);
            return 2;
        }
        if (r.verdict == GV_FAIL || r.verdict == GV_ERROR)
            worst = GV_FAIL;
        if (json) {
            print_json(&r, first);
        } else {
            char shape[32];
            snprintf(shape, sizeof shape, "%ux%ux%u", r.m, r.n, r.k);
            printf("%-5s %-16s %9.1f %9.1f %6.0f%% %9.0f %7.0f %-8s %s\n", t, shape,
                   r.tflops_median, r.tflops_best, 100 * r.fraction_of_peak, r.sm_clock_mean_mhz,
                   r.power_mean_w,
                   r.verified == 1   ? "yes"
                   : r.verified == 0 ? "NO"
                                     : "-",
                   r.verdict == GV_PASS ? r.algo : r.message);
        }
        first = 0;
    }
    if (json)
        printf("]\n");
    gv_ctx_destroy(ctx);
    return worst == GV_FAIL ? 1 : 0;
}
