/* SPDX-License-Identifier: Apache-2.0 */
/* A provisioning agent's view of gv_run: one context, gv_run at the quick level N times
 * through gpuverify-worker (GV_ISOLATION_PROCESS), as an agent that links the library would.
 * After each run: the verdict, the wall time and this process's resident memory; at the end
 * its peak (VmHWM) and whether any NVIDIA library was ever mapped into it.
 * Usage: bench_agent [N] [level]   (default 100 quick) */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_proc.h"

/* 1 when a mapping of this process names an NVIDIA library. */
static int nvidia_mapped(char *which, size_t cap)
{
    static const char *const names[] = {"libcuda.so", "libnvidia-ml", "libcublas", "libcudnn",
                                        "libnccl"};
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int found = 0;
    which[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (strstr(line, names[i]) && !found) {
                snprintf(which, cap, "%s", strrchr(line, ' ') ? strrchr(line, ' ') + 1 : line);
                found = 1;
            }
    if (f)
        fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    const char *level_name = argc > 2 ? argv[2] : "quick";
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.isolation = GV_ISOLATION_PROCESS;
    for (int32_t l = GV_LEVEL_STANDARD; l <= GV_LEVEL_EXTENDED; l++)
        if (!strcmp(level_name, gv_level_name(l)))
            o.level = l;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    int mapped_ever = 0, failures = 0;
    char which[512] = "";
    for (int i = 0; i < n; i++) {
        double t0 = now_s();
        gv_report *r = NULL;
        gv_status s = gv_run(ctx, &o, &r);
        double wall = now_s() - t0;
        if (s != GV_OK) {
            fprintf(stderr, "run %d: %s: %s\n", i, gv_strerror(s), gv_ctx_last_error(ctx));
            gv_ctx_destroy(ctx);
            return 2;
        }
        int32_t v = gv_report_verdict(r);
        failures += v == GV_FAIL || v == GV_ERROR;
        mapped_ever |= nvidia_mapped(which, sizeof which);
        printf("run %3d  %-5s  %u rows  %.3f s  rss %.1f MiB  hwm %.1f MiB\n", i,
               gv_verdict_name(v), gv_report_count(r), wall, status_mib("VmRSS"),
               status_mib("VmHWM"));
        fflush(stdout);
        gv_report_free(r);
    }
    gv_ctx_destroy(ctx);
    printf("agent: %d runs, %d not healthy, peak RSS %.1f MiB, NVIDIA library mapped: %s%s\n", n,
           failures, status_mib("VmHWM"), mapped_ever ? "yes " : "no", which);
    return failures || mapped_ever ? 1 : 0;
}
