#define _POSIX_C_SOURCE 200809L
/* gv-gemm: the cuBLASLt tensor-core GEMM benchmark of libgpuverify, per data type: TFLOPS,
 * % of the dense datasheet peak, SM clock and power during the timed batches, whether the
 * sampled results matched the host, and the algorithm kept. Exit status: 0 no FAIL, 1 a FAIL,
 * 2 usage or library error. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to)
{
    fprintf(to, "usage: gv-gemm [--gpu N] [--dtype LIST] [--size N | --mnk M,N,K] [--warmup S]\n"
                "               [--batch S] [--batches N] [--json]\n"
                "  --dtype LIST  fp32,tf32,fp16,bf16,fp8 (default all)\n"
                "  --size N      m = n = k (default 8192)\n");
}

static void print_json(const gv_gemm_result *r, int first)
{
    printf("%s{\"dtype\": \"%s\", \"m\": %u, \"n\": %u, \"k\": %u, \"verdict\": \"%s\", "
           "\"tflops_median\": %.2f, \"tflops_best\": %.2f, \"peak_tflops\": %.1f, "
           "\"fraction_of_peak\": %.4f, \"clock_efficiency\": %.4f, \"sm_clock_mean_mhz\": %.0f, "
           "\"sm_clock_min_mhz\": %.0f, \"power_mean_w\": %.1f, \"temperature_max_c\": %.0f, "
           "\"clock_event_reasons\": %llu, \"verified\": %d, \"verify_worst\": %.3g, "
           "\"algo\": \"%s\", \"cublaslt\": \"%s\", \"message\": \"%s\"}",
           first ? "" : ",\n ", gv_dtype_name(r->dtype), r->m, r->n, r->k,
           gv_verdict_name(r->verdict), r->tflops_median, r->tflops_best, r->peak_tflops,
           r->fraction_of_peak, r->clock_efficiency, r->sm_clock_mean_mhz, r->sm_clock_min_mhz,
           r->power_mean_w, r->temperature_max_c, (unsigned long long)r->clock_event_reasons,
           (int)r->verified, r->verify_worst, r->algo, r->library_version, r->message);
}

int main(int argc, char **argv)
{
    gv_gemm_opts o = GV_GEMM_OPTS_INIT;
    const char *dtypes = "fp32,tf32,fp16,bf16,fp8";
    unsigned gpu = 0;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--gpu") && v)
            gpu = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--dtype") && v)
            dtypes = argv[++i];
        else if (!strcmp(a, "--size") && v)
            o.m = o.n = o.k = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--mnk") && v && sscanf(argv[++i], "%u,%u,%u", &o.m, &o.n, &o.k) == 3)
            ;
        else if (!strcmp(a, "--warmup") && v)
            o.warmup_s = atof(argv[++i]);
        else if (!strcmp(a, "--batch") && v)
            o.batch_s = atof(argv[++i]);
        else if (!strcmp(a, "--batches") && v)
            o.batches = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            usage(!strcmp(a, "-h") || !strcmp(a, "--help") ? stdout : stderr);
            return !strcmp(a, "-h") || !strcmp(a, "--help") ? 0 : 2;
        }
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
    char list[64];
    snprintf(list, sizeof list, "%s", dtypes);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int dtype = -1;
        for (int d = GV_DTYPE_FP32; d <= GV_DTYPE_FP8_E4M3; d++)
            if (!strcmp(t, gv_dtype_name(d)))
                dtype = d;
        o.dtype = dtype;
        gv_gemm_result r = GV_GEMM_RESULT_INIT;
        if (gv_gemm_bench(ctx, gpu, &o, &r) != GV_OK) {
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
