/* SPDX-License-Identifier: Apache-2.0 */
/* gv_mem_test on one GPU at its defaults (92% of free memory, 1 GiB chunks), printed as one
 * JSON object for bench/run_memtest.sh to set beside the D2D copy rate of the same run.
 * usage: bench_memtest [GPU [ROUNDS]] */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned gpu = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    gv_memtest_opts o = GV_MEMTEST_OPTS_INIT;
    if (argc > 2)
        o.rounds = (uint32_t)atoi(argv[2]);
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    if (gv_mem_test(ctx, gpu, &o, &r) != GV_OK) {
        fprintf(stderr, "bench_memtest: %s\n", gv_ctx_last_error(ctx));
        return 2;
    }
    printf("{\"gpu\": \"%s\", \"bus_id\": \"%s\", \"memory_total\": %llu, \"memory_free\": %llu, "
           "\"bytes_tested\": %llu, \"coverage_of_free\": %.4f, \"chunks\": %u, \"rounds\": %u, "
           "\"steps\": %u, \"gpu_seconds\": %.4f, \"gbps\": %.1f, \"errors\": %llu, "
           "\"ecc_corrected\": [%lld, %lld], \"ecc_uncorrected\": [%lld, %lld], "
           "\"verdict\": \"%s\", \"message\": \"%s\"}\n",
           r.name, r.pci_bus_id, (unsigned long long)r.memory_total,
           (unsigned long long)r.memory_free, (unsigned long long)r.bytes_tested,
           r.memory_free ? (double)r.bytes_tested / (double)r.memory_free : 0.0, r.chunks, r.rounds,
           r.steps, r.seconds, r.gbps, (unsigned long long)r.errors,
           (long long)r.ecc_corrected_before, (long long)r.ecc_corrected_after,
           (long long)r.ecc_uncorrected_before, (long long)r.ecc_uncorrected_after,
           gv_verdict_name(r.verdict), r.message);
    gv_ctx_destroy(ctx);
    return r.verdict == GV_FAIL ? 1 : 0;
}
