/* SPDX-License-Identifier: Apache-2.0 */
/* Copy bandwidth of gv_cuda_check the nvbandwidth way (256 MiB pinned buffers on the GPU's NUMA
 * node, 4 warm-up copies, gated batches of 16, median of samples), printed as one JSON object
 * for bench/run_compute.sh to set beside PyTorch's pinned copy_. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    unsigned gpu = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    gv_cuda_opts o = GV_CUDA_OPTS_INIT;
    o.flags = GV_CUDA_SKIP_ALLOC;
    o.copy_samples = 9;
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    if (gv_cuda_check(ctx, gpu, &o, &r) != GV_OK) {
        fprintf(stderr, "bench_copy: %s\n", gv_ctx_last_error(ctx));
        return 2;
    }
    printf(
        "{\"gpu\": \"%s\", \"bus_id\": \"%s\", \"numa_node\": %d, \"bytes\": %llu, "
        "\"h2d_gbps\": %.2f, \"d2h_gbps\": %.2f, \"d2d_gbps\": %.1f, \"link_current_gbps\": %.1f, "
        "\"link_max_gbps\": %.1f, \"verdict\": \"%s\", \"message\": \"%s\"}\n",
        r.name, r.pci_bus_id, (int)r.numa_node, (unsigned long long)o.copy_bytes, r.h2d_gbps,
        r.d2h_gbps, r.d2d_gbps, r.link_current_gbps, r.link_max_gbps,
        gv_verdict_name(r.copy_verdict), r.copy_message);
    gv_ctx_destroy(ctx);
    return r.copy_verdict == GV_FAIL ? 1 : 0;
}
