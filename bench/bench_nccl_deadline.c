/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* The deadline on a real machine: rank 0 of a two-rank communicator whose rank 1 never
 * arrives must return GV_ERR_TIMEOUT within deadline + 1 s, and the process must then run a
 * healthy all-reduce over its local GPUs. Prints one JSON object.
 * Usage: bench_nccl_deadline [DEADLINE_S]   (default 5) */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

int main(int argc, char **argv)
{
    double deadline = argc > 1 ? atof(argv[1]) : 5.0;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    gv_nccl_id id;
    if (gv_nccl_unique_id(ctx, &id) != GV_OK) {
        fprintf(stderr, "bench_nccl_deadline: %s\n", gv_ctx_last_error(ctx));
        return 2;
    }
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    o.min_bytes = 1 << 20;
    o.max_bytes = 64 << 20;
    o.deadline_s = deadline;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    double t0 = now_s();
    gv_status st = gv_nccl_bench_rank(ctx, &id, 0, 2, 0, &o, &r);
    double took = now_s() - t0;
    /* The same process afterwards: all local GPUs, a short sweep. */
    o.deadline_s = 60;
    gv_nccl_result after = GV_NCCL_RESULT_INIT;
    double t1 = now_s();
    gv_status st2 = gv_nccl_bench(ctx, &o, &after);
    double took2 = now_s() - t1;
    printf("{\"deadline_s\": %.1f, \"status\": \"%s\", \"returned_after_s\": %.3f, "
           "\"within_deadline_plus_1s\": %s, \"verdict\": \"%s\", \"message\": \"%s\",\n"
           " \"after\": {\"status\": \"%s\", \"verdict\": \"%s\", \"nranks\": %d, "
           "\"seconds\": %.3f, \"peak_busbw_gbps\": %.1f, \"message\": \"%s\"}}\n",
           deadline, gv_strerror(st), took,
           st == GV_ERR_TIMEOUT && took <= deadline + 1.0 ? "true" : "false",
           gv_verdict_name(r.verdict), r.message, gv_strerror(st2), gv_verdict_name(after.verdict),
           (int)after.nranks, took2, after.peak_busbw_gbps, after.message);
    gv_ctx_destroy(ctx);
    return st == GV_ERR_TIMEOUT && took <= deadline + 1.0 && after.verdict == GV_PASS ? 0 : 1;
}
