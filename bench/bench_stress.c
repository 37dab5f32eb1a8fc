/* SPDX-License-Identifier: Apache-2.0 */
/* stress.gemm's bar (issue 15): gv_gemm_bench's BF16 figure on each GPU alone, then
 * gv_stress_gemm on all of them at once for the duration; prints one JSON object with both
 * and their ratio per GPU, and writes the time series as CSV.
 * usage: bench_stress DURATION_S SERIES.csv */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    double duration = argc > 1 ? atof(argv[1]) : 120;
    const char *csv = argc > 2 ? argv[2] : "stress_series.csv";
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    double alone[GV_STRESS_MAX_GPUS] = {0};
    unsigned gpus = 0;
    for (unsigned g = 0; g < GV_STRESS_MAX_GPUS; g++) {
        gv_gemm_opts o = GV_GEMM_OPTS_INIT;
        o.dtype = GV_DTYPE_BF16;
        gv_gemm_result r = GV_GEMM_RESULT_INIT;
        if (gv_gemm_bench(ctx, g, &o, &r) != GV_OK)
            break; /* past the last GPU */
        alone[g] = r.tflops_median;
        gpus++;
    }
    gv_stress_opts o = GV_STRESS_OPTS_INIT;
    o.duration_s = duration;
    o.series_capacity = (uint32_t)(duration / o.interval_s + 64) * (gpus ? gpus : 1);
    o.series = calloc(o.series_capacity, sizeof *o.series);
    gv_stress_result *r = calloc(1, sizeof *r);
    if (!o.series || !r)
        return 2;
    *r = (gv_stress_result)GV_STRESS_RESULT_INIT;
    if (gv_stress_gemm(ctx, &o, r) != GV_OK) {
        fprintf(stderr, "bench_stress: %s\n", gv_ctx_last_error(ctx));
        return 2;
    }
    FILE *f = fopen(csv, "w");
    if (f) {
        fprintf(f, "t_s,gpu,tflops,sm_clock_mhz,power_w,temperature_c,reasons,mismatches\n");
        for (uint32_t i = 0; i < r->series_count; i++) {
            const gv_stress_sample *s = &o.series[i];
            fprintf(f, "%.3f,%d,%.2f,%.0f,%.1f,%.0f,0x%llx,%u\n", s->t_s, s->cuda_index, s->tflops,
                    s->sm_clock_mhz, s->power_w, s->temperature_c,
                    (unsigned long long)s->clock_event_reasons, s->mismatches);
        }
        fclose(f);
    }
    printf("{\"duration_s\": %.1f, \"verdict\": \"%s\", \"message\": \"%s\", \"library\": \"%s\", "
           "\"series\": %u, \"dropped\": %llu, \"gpus\": [",
           r->duration_s, gv_verdict_name(r->verdict), r->message, r->library_version,
           r->series_count, (unsigned long long)r->series_dropped);
    for (uint32_t i = 0; i < r->gpu_count; i++) {
        const gv_stress_gpu *g = &r->gpus[i];
        double solo =
            g->cuda_index >= 0 && g->cuda_index < GV_STRESS_MAX_GPUS ? alone[g->cuda_index] : 0;
        printf("%s{\"gpu\": %d, \"name\": \"%s\", \"verdict\": \"%s\", \"gemm_bf16_alone\": %.1f, "
               "\"stress_median\": %.1f, \"ratio\": %.3f, \"first\": %.1f, \"last\": %.1f, "
               "\"min\": %.1f, \"iterations\": %llu, \"mismatches\": %llu, \"agrees\": %d, "
               "\"clock_mean\": %.0f, \"clock_min\": %.0f, \"power_mean\": %.1f, \"power_max\": "
               "%.1f, \"power_limit\": %.0f, \"temp_max\": %.0f, \"reasons\": \"0x%llx\", "
               "\"message\": \"%s\"}",
               i ? ", " : "", g->cuda_index, g->name, gv_verdict_name(g->verdict), solo,
               g->tflops_median, solo > 0 ? g->tflops_median / solo : 0, g->tflops_first,
               g->tflops_last, g->tflops_min, (unsigned long long)g->iterations,
               (unsigned long long)g->mismatches, g->agrees, g->sm_clock_mean_mhz,
               g->sm_clock_min_mhz, g->power_mean_w, g->power_max_w, g->power_limit_w,
               g->temperature_max_c, (unsigned long long)g->clock_event_reasons, g->message);
    }
    printf("]}\n");
    free(o.series);
    free(r);
    gv_ctx_destroy(ctx);
    return 0;
}
