/* SPDX-License-Identifier: Apache-2.0 */
/* Time of gv_topology (build, classify, free), median of N: on an XML file when one is given
 * (the bar is the largest hwloc fixture, 96em64t-4n4d3ca2co-pci.xml, under 50 ms), and live
 * on this machine. Usage: bench_topology [FILE.xml] [N]; prints one JSON object. */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds of n builds; -1 when one fails. */
static double median_ms(gv_ctx *ctx, const char *xml, int n, unsigned *devices)
{
    double *ms = calloc((size_t)n, sizeof *ms);
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    o.xml_path = xml;
    for (int i = 0; i < n; i++) {
        gv_topo *t = NULL;
        double t0 = now_s();
        if (gv_topology(ctx, &o, &t) != GV_OK) {
            fprintf(stderr, "bench_topology: %s\n", gv_ctx_last_error(ctx));
            free(ms);
            return -1;
        }
        *devices = gv_topo_device_count(t);
        gv_topo_free(t);
        ms[i] = 1e3 * (now_s() - t0);
    }
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    double m = ms[n / 2];
    free(ms);
    return m;
}

int main(int argc, char **argv)
{
    const char *xml = argc > 1 && argv[1][0] ? argv[1] : NULL;
    int n = argc > 2 ? atoi(argv[2]) : 21;
    if (n < 1)
        n = 1;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    unsigned xml_devices = 0, live_devices = 0;
    double xml_ms = xml ? median_ms(ctx, xml, n, &xml_devices) : -1;
    double live_ms = median_ms(ctx, NULL, n, &live_devices);
    printf("{\"runs\": %d, \"xml\": \"%s\", \"xml_median_ms\": %.2f, \"xml_devices\": %u, "
           "\"live_median_ms\": %.2f, \"live_devices\": %u}\n",
           n, xml ? xml : "", xml_ms, xml_devices, live_ms, live_devices);
    gv_ctx_destroy(ctx);
    return xml_ms < 0 && xml ? 1 : 0;
}
