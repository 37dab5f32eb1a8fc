/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* Times gv_ctx_create + gv_ctx_destroy with no NVIDIA library present (library_dir pointing
 * at an empty directory), and the driver-and-inventory gv_check_driver on this machine.
 * Prints the median and min of N runs in microseconds. Usage: bench_ctx_create EMPTY_DIR [N] */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ctx_create EMPTY_DIR [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 1001;
    if (runs < 1 || runs > 1000000)
        return 2;
    double *t = calloc((size_t)runs, sizeof *t);
    if (!t)
        return 2;
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = argv[1];
    for (int i = 0; i < runs; i++) {
        double t0 = now_us();
        gv_ctx *ctx = NULL;
        if (gv_ctx_create(&o, &ctx) != GV_OK)
            return 1;
        gv_ctx_destroy(ctx);
        t[i] = now_us() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, by_value);
    printf("gv_ctx_create+destroy (no NVIDIA library): median %.2f us, min %.2f us, %d runs\n",
           t[runs / 2], t[0], runs);
    /* The same context also answering the driver check with the libraries absent. */
    for (int i = 0; i < runs; i++) {
        gv_ctx *ctx = NULL;
        gv_driver_info d = GV_DRIVER_INFO_INIT;
        double t0 = now_us();
        if (gv_ctx_create(&o, &ctx) != GV_OK || gv_check_driver(ctx, &d) != GV_OK)
            return 1;
        gv_ctx_destroy(ctx);
        t[i] = now_us() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, by_value);
    printf("gv_ctx_create+gv_check_driver+destroy (no NVIDIA library): median %.2f us, min %.2f "
           "us\n",
           t[runs / 2], t[0]);
    free(t);
    return 0;
}
