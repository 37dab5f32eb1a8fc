/* SPDX-License-Identifier: Apache-2.0 */
/* How long gv_rdma_status takes: median and worst of N reads of the RDMA stack (sysfs, configfs,
 * modules, NCCL settings, libibverbs when it loads) on this machine or a fixture sysroot.
 * usage: bench_rdma [--sysroot DIR] [--library-dir DIR] [--runs N] */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    int runs = 51;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sysroot") == 0)
            o.sysroot = argv[i + 1];
        else if (strcmp(argv[i], "--library-dir") == 0)
            o.library_dir = argv[i + 1];
        else if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
    }
    if (runs < 1 || runs > 10000)
        return 2;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&o, &ctx) != GV_OK)
        return 2;
    double *t = calloc((size_t)runs, sizeof *t);
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    for (int i = 0; t && i < runs; i++) {
        gv_rdma_report *r = NULL;
        double t0 = now_s();
        gv_status s = gv_rdma_status(ctx, NULL, &r);
        t[i] = now_s() - t0;
        if (s != GV_OK) {
            fprintf(stderr, "gv_rdma_status: %s\n", gv_ctx_last_error(ctx));
            return 1;
        }
        gv_rdma_summary(r, &info);
        gv_rdma_free(r);
    }
    qsort(t, (size_t)runs, sizeof *t, by_value);
    printf("gv_rdma_status %s: %u devices, %u ports, %u GIDs, libibverbs state %d; min %.3f ms, "
           "median %.3f ms, max %.3f ms over %d runs\n",
           o.sysroot ? o.sysroot : "/", info.device_count, info.port_count, info.gid_count,
           (int)info.verbs_state, t[0] * 1e3, t[runs / 2] * 1e3, t[runs - 1] * 1e3, runs);
    free(t);
    gv_ctx_destroy(ctx);
    return 0;
}
