/* SPDX-License-Identifier: Apache-2.0 */
/* Where time and memory go in a run: gv_run once per stage in one context (stages are check
 * selections separated by ';'), printing after each the wall time and the process's resident
 * memory (VmRSS, its high-water mark VmHWM, anonymous and file-backed parts), then the largest
 * mappings. Usage: bench_footprint "driver;cuda.init,cuda.alloc;gemm.fp16;cudnn.version" */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_proc.h"

static void print_stage(const char *name, const char *verdict, double seconds)
{
    printf("%-34s %-5s %7.3f s  rss %7.1f  hwm %7.1f  anon %7.1f  file %7.1f MiB\n", name, verdict,
           seconds, status_mib("VmRSS"), status_mib("VmHWM"), status_mib("RssAnon"),
           status_mib("RssFile"));
    fflush(stdout);
}

/* The mappings holding the most resident memory, summed per backing file. */
static void print_largest_mappings(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return;
    enum { MAX = 256 };
    static char names[MAX][160];
    static double kib[MAX];
    size_t used = 0, current = MAX;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            char *path = strchr(line, '/');
            if (!path)
                path = strchr(line, '[');
            const char *name = path ? path : "[anonymous]";
            char clean[160];
            snprintf(clean, sizeof clean, "%s", name);
            clean[strcspn(clean, "\n")] = 0;
            current = MAX;
            for (size_t i = 0; i < used; i++)
                if (strcmp(names[i], clean) == 0)
                    current = i;
            if (current == MAX && used < MAX) {
                current = used++;
                snprintf(names[current], sizeof names[current], "%s", clean);
                kib[current] = 0;
            }
        } else if (strncmp(line, "Rss:", 4) == 0 && current < MAX) {
            kib[current] += strtod(line + 4, NULL);
        }
    }
    fclose(f);
    for (int shown = 0; shown < 12; shown++) {
        size_t best = MAX;
        for (size_t i = 0; i < used; i++)
            if (kib[i] > 0 && (best == MAX || kib[i] > kib[best]))
                best = i;
        if (best == MAX)
            break;
        printf("  %8.1f MiB  %s\n", kib[best] / 1024.0, names[best]);
        kib[best] = 0;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s 'checks;checks;...'\n", argv[0]);
        return 2;
    }
    double t0 = now_s();
    print_stage("start", "", 0);
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    print_stage("gv_ctx_create", "", now_s() - t0);
    char *stages = strdup(argv[1]);
    for (char *save = NULL, *stage = strtok_r(stages, ";", &save); stage;
         stage = strtok_r(NULL, ";", &save)) {
        double t = now_s();
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.checks = stage;
        gv_report *report = NULL;
        if (gv_run(ctx, &o, &report) != GV_OK) {
            fprintf(stderr, "gv_run(%s): %s\n", stage, gv_ctx_last_error(ctx));
            return 2;
        }
        double seconds = now_s() - t;
        print_stage(stage, gv_verdict_name(gv_report_verdict(report)), seconds);
        gv_report_free(report);
    }
    print_stage("total", "", now_s() - t0);
    print_largest_mappings();
    free(stages);
    gv_ctx_destroy(ctx);
    return 0;
}
