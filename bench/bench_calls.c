/* SPDX-License-Identifier: Apache-2.0 */
/* The single-purpose calls in gpuverify-worker beside the same calls in this process
 * (GV_CTX_IN_PROCESS), alternating, on one GPU: each call's wall time and its own figure, so
 * that isolation is seen to cost a process start and nothing of what is measured. Then a call
 * killed at its deadline in the middle of its kernels, and the same call again in this process
 * with the default deadline: the GPU and the caller go on. gv_check_driver, gv_gpu_info,
 * gv_topology (live), gv_rdma_status and gv_library_status in both places first. One JSON
 * object per line.
 * usage: bench_calls [GPU [ROUNDS [STRESS_SECONDS]]] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"

static gv_ctx *context(uint32_t flags, double deadline_s)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.flags = flags;
    o.deadline_s = deadline_s;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&o, &ctx) != GV_OK) {
        fprintf(stderr, "bench_calls: gv_ctx_create failed\n");
        exit(2);
    }
    return ctx;
}

static void line(const char *call, const char *place, int round, gv_status st, double wall,
                 const char *figure, double value, int32_t verdict, const char *message)
{
    printf("{\"call\": \"%s\", \"place\": \"%s\", \"round\": %d, \"status\": \"%s\", "
           "\"wall_s\": %.3f, \"figure\": \"%s\", \"value\": %.2f, \"verdict\": \"%s\", "
           "\"message\": \"%.200s\"}\n",
           call, place, round, gv_strerror(st), wall, figure, value, gv_verdict_name(verdict),
           message);
    fflush(stdout);
}

/* The fields of one GPU that do not move from one moment to the next. */
static int same_gpu(const gv_gpu *a, const gv_gpu *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->uuid, b->uuid) &&
           !strcmp(a->serial, b->serial) && !strcmp(a->pci_bus_id, b->pci_bus_id) &&
           !strcmp(a->vbios, b->vbios) && a->pci_vendor_id == b->pci_vendor_id &&
           a->pci_device_id == b->pci_device_id && a->memory_total == b->memory_total &&
           a->cc_major == b->cc_major && a->cc_minor == b->cc_minor && a->sm_count == b->sm_count &&
           a->max_sm_clock_mhz == b->max_sm_clock_mhz &&
           a->persistence_mode == b->persistence_mode && a->ecc_current == b->ecc_current &&
           a->mig_current == b->mig_current && a->power_limit_mw == b->power_limit_mw &&
           a->pcie_gen_max == b->pcie_gen_max && a->pcie_width_max == b->pcie_width_max &&
           a->cuda_index == b->cuda_index && a->nvml_index == b->nvml_index &&
           a->numa_node == b->numa_node && a->nvml_result == b->nvml_result;
}

/* gv_check_driver and gv_gpu_info in both places: the time, and whether they agree. */
static void inventory(gv_ctx *worker, gv_ctx *here, int round)
{
    gv_driver_info d[2] = {GV_DRIVER_INFO_INIT, GV_DRIVER_INFO_INIT};
    gv_ctx *ctx[2] = {worker, here};
    const char *place[2] = {"worker", "in-process"};
    gv_status st[2];
    for (int i = 0; i < 2; i++) {
        double t0 = now_s();
        st[i] = gv_check_driver(ctx[i], &d[i]);
        char text[200];
        snprintf(text, sizeof text, "driver %s, NVML %s, cuInit %d, %d GPU(s)", d[i].driver_version,
                 d[i].nvml_version, d[i].cuda_init_result, d[i].gpu_count);
        line("gv_check_driver", place[i], round, st[i], now_s() - t0, "gpu_count", d[i].gpu_count,
             st[i] == GV_OK ? GV_PASS : GV_FAIL, text);
    }
    int same = st[0] == GV_OK && st[1] == GV_OK && d[0].gpu_count == d[1].gpu_count &&
               !strcmp(d[0].driver_version, d[1].driver_version) &&
               d[0].cuda_init_result == d[1].cuda_init_result &&
               d[0].cuda_driver_version == d[1].cuda_driver_version;
    for (int g = 0; same && g < d[0].gpu_count; g++) {
        gv_gpu a = GV_GPU_INIT, b = GV_GPU_INIT;
        same = gv_gpu_info(worker, (uint32_t)g, &a) == GV_OK &&
               gv_gpu_info(here, (uint32_t)g, &b) == GV_OK && same_gpu(&a, &b);
    }
    line("gv_gpu_info", "both", round, GV_OK, 0, "identical", same, same ? GV_PASS : GV_FAIL,
         same ? "every GPU's static fields equal" : "the two inventories differ");
}

/* Two topologies' devices and links, field by field; 1 when equal. */
static int same_topology(const gv_topo *a, const gv_topo *b)
{
    uint32_t n = gv_topo_device_count(a);
    if (n != gv_topo_device_count(b))
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        gv_topo_device x = GV_TOPO_DEVICE_INIT, y = GV_TOPO_DEVICE_INIT;
        gv_topo_device_at(a, i, &x);
        gv_topo_device_at(b, i, &y);
        if (strcmp(x.label, y.label) || strcmp(x.name, y.name) || strcmp(x.netdev, y.netdev) ||
            strcmp(x.pci_bus_id, y.pci_bus_id) || strcmp(x.cpus, y.cpus) ||
            strcmp(x.numa_affinity, y.numa_affinity) || x.numa_node != y.numa_node ||
            x.nvml_index != y.nvml_index || x.in_hwloc != y.in_hwloc ||
            x.link_speed_max_gts != y.link_speed_max_gts || x.link_width_max != y.link_width_max ||
            x.nearest_nic != y.nearest_nic || x.nearest_path != y.nearest_path ||
            x.gdr_capable != y.gdr_capable)
            return 0;
        for (uint32_t j = 0; j < n; j++) {
            gv_topo_link l = GV_TOPO_LINK_INIT, m = GV_TOPO_LINK_INIT;
            gv_topo_link_at(a, i, j, &l);
            gv_topo_link_at(b, i, j, &m);
            if (l.path != m.path || l.pcie_path != m.pcie_path || l.nvlinks != m.nvlinks ||
                strcmp(l.label, m.label))
                return 0;
        }
    }
    return 1;
}

/* gv_topology (live), gv_rdma_status and gv_library_status in both places: the time, and
 * whether they agree. */
static void readers(gv_ctx *worker, gv_ctx *here, int round)
{
    gv_ctx *ctx[2] = {worker, here};
    const char *place[2] = {"worker", "in-process"};
    gv_topo *t[2] = {NULL, NULL};
    gv_rdma_report *r[2] = {NULL, NULL};
    gv_rdma_info ri[2] = {GV_RDMA_INFO_INIT, GV_RDMA_INFO_INIT};
    for (int i = 0; i < 2; i++) {
        double t0 = now_s();
        gv_status st = gv_topology(ctx[i], NULL, &t[i]);
        gv_topo_info info = GV_TOPO_INFO_INIT;
        gv_topo_summary(t[i], &info);
        char text[200];
        snprintf(text, sizeof text, "%u GPU(s), %u NIC(s), %u NUMA node(s); %s", info.gpu_count,
                 info.nic_count, info.numa_nodes, st == GV_OK ? "" : gv_ctx_last_error(ctx[i]));
        line("gv_topology live", place[i], round, st, now_s() - t0, "devices",
             gv_topo_device_count(t[i]), st == GV_OK ? GV_PASS : GV_FAIL, text);
        t0 = now_s();
        st = gv_rdma_status(ctx[i], NULL, &r[i]);
        gv_rdma_summary(r[i], &ri[i]);
        snprintf(text, sizeof text, "%u device(s), %u port(s), %u GID(s), libibverbs %d: %.100s",
                 ri[i].device_count, ri[i].port_count, ri[i].gid_count, ri[i].verbs_state,
                 st == GV_OK ? ri[i].verbs_detail : gv_ctx_last_error(ctx[i]));
        line("gv_rdma_status", place[i], round, st, now_s() - t0, "devices", ri[i].device_count,
             st == GV_OK ? GV_PASS : GV_FAIL, text);
    }
    int same = t[0] && t[1] && same_topology(t[0], t[1]);
    line("gv_topology live", "both", round, GV_OK, 0, "identical", same, same ? GV_PASS : GV_FAIL,
         same ? "every device and link equal" : "the two topologies differ");
    same = r[0] && r[1] && ri[0].device_count == ri[1].device_count &&
           ri[0].port_count == ri[1].port_count && ri[0].gid_count == ri[1].gid_count &&
           ri[0].module_count == ri[1].module_count && ri[0].verbs_state == ri[1].verbs_state &&
           ri[0].nccl_net == ri[1].nccl_net && !strcmp(ri[0].nccl_reason, ri[1].nccl_reason);
    line("gv_rdma_status", "both", round, GV_OK, 0, "identical", same, same ? GV_PASS : GV_FAIL,
         same ? "the summaries equal" : "the two reports differ");
    for (int i = 0; i < 2; i++) {
        gv_topo_free(t[i]);
        gv_rdma_free(r[i]);
    }
    /* Each NVIDIA library loaded and resolved in both places. */
    static const int32_t libs[] = {GV_LIB_CUDA,  GV_LIB_NVML, GV_LIB_CUBLASLT,
                                   GV_LIB_CUDNN, GV_LIB_NCCL, GV_LIB_IBVERBS};
    for (size_t k = 0; k < sizeof libs / sizeof *libs; k++) {
        gv_library_info li[2] = {GV_LIBRARY_INFO_INIT, GV_LIBRARY_INFO_INIT};
        for (int i = 0; i < 2; i++) {
            double t0 = now_s();
            gv_status st = gv_library_status(ctx[i], libs[k], &li[i]);
            char text[200];
            snprintf(text, sizeof text, "%s: state %d, %s %s", li[i].name, li[i].state, li[i].path,
                     li[i].version);
            line("gv_library_status", place[i], round, st, now_s() - t0, "state", li[i].state,
                 st == GV_OK ? GV_PASS : GV_FAIL, text);
        }
        same = li[0].state == li[1].state && !strcmp(li[0].path, li[1].path) &&
               !strcmp(li[0].version, li[1].version);
        line("gv_library_status", "both", round, GV_OK, 0, "identical", same,
             same ? GV_PASS : GV_FAIL, li[0].name);
    }
}

static void each_call(gv_ctx *ctx, const char *place, int round, uint32_t gpu, double stress_s)
{
    double t0 = now_s();
    gv_cuda_result c = GV_CUDA_RESULT_INIT;
    gv_status st = gv_cuda_check(ctx, gpu, NULL, &c);
    line("gv_cuda_check", place, round, st, now_s() - t0, "h2d_gbps", c.h2d_gbps, c.verdict,
         c.message);

    t0 = now_s();
    gv_memtest_result m = GV_MEMTEST_RESULT_INIT;
    st = gv_mem_test(ctx, gpu, NULL, &m);
    line("gv_mem_test", place, round, st, now_s() - t0, "gbps", m.gbps, m.verdict, m.message);

    t0 = now_s();
    gv_gemm_opts go = GV_GEMM_OPTS_INIT;
    go.dtype = GV_DTYPE_BF16;
    gv_gemm_result g = GV_GEMM_RESULT_INIT;
    st = gv_gemm_bench(ctx, gpu, &go, &g);
    line("gv_gemm_bench bf16", place, round, st, now_s() - t0, "tflops_median", g.tflops_median,
         g.verdict, g.message);

    t0 = now_s();
    gv_cudnn_result d = GV_CUDNN_RESULT_INIT;
    st = gv_cudnn_check(ctx, gpu, &d);
    line("gv_cudnn_check", place, round, st, now_s() - t0, "fp32_worst", d.fp32_worst, d.verdict,
         d.message);

    static gv_stress_sample series[4096];
    gv_stress_opts so = GV_STRESS_OPTS_INIT;
    so.duration_s = stress_s;
    so.gpu_count = 1;
    so.gpus[0] = gpu;
    so.series = series;
    so.series_capacity = sizeof series / sizeof *series;
    gv_stress_result *s = calloc(1, sizeof *s);
    s->struct_size = sizeof *s;
    t0 = now_s();
    st = gv_stress_gemm(ctx, &so, s);
    double wall = now_s() - t0;
    char text[160];
    snprintf(text, sizeof text, "%u samples, first at %.2f s, last at %.2f s; %s", s->series_count,
             s->series_count ? series[0].t_s : 0,
             s->series_count ? series[s->series_count - 1].t_s : 0, s->gpus[0].message);
    line("gv_stress_gemm bf16", place, round, st, wall, "tflops_median", s->gpus[0].tflops_median,
         s->verdict, text);
    free(s);
}

int main(int argc, char **argv)
{
    uint32_t gpu = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    double stress_s = argc > 3 ? atof(argv[3]) : 10;
    gv_ctx *worker = context(0, 0), *here = context(GV_CTX_IN_PROCESS, 0);
    for (int r = 1; r <= rounds; r++) {
        inventory(worker, here, r);
        readers(worker, here, r);
    }
    for (int r = 1; r <= rounds; r++) {
        int first_here = r % 2 == 0; /* alternate which goes first */
        each_call(first_here ? here : worker, first_here ? "in-process" : "worker", r, gpu,
                  stress_s);
        each_call(first_here ? worker : here, first_here ? "worker" : "in-process", r, gpu,
                  stress_s);
    }
    /* A deadline of 0.05 s a unit: the memory test may take 8 units (0.4 s) with its start,
     * and the caller waits 0.4 s more for its last word: an H200 (141 GB) is killed inside its
     * kernels, an H100 (80 GB) finished in 0.71 s. */
    gv_ctx *tight = context(0, 0.05);
    double t0 = now_s();
    gv_memtest_result m = GV_MEMTEST_RESULT_INIT;
    gv_status st = gv_mem_test(tight, gpu, NULL, &m);
    line("gv_mem_test deadline unit 0.05 s", "worker", 0, st, now_s() - t0, "gbps", m.gbps,
         m.verdict, m.message);
    /* The caller and the GPU afterwards: the whole test again, in this process. */
    t0 = now_s();
    m = (gv_memtest_result)GV_MEMTEST_RESULT_INIT;
    st = gv_mem_test(here, gpu, NULL, &m);
    char text[256];
    snprintf(text, sizeof text, "%.2f GiB free of %.2f GiB; %s", m.memory_free / 1073741824.0,
             m.memory_total / 1073741824.0, m.message);
    line("gv_mem_test after the kill", "in-process", 0, st, now_s() - t0, "gbps", m.gbps, m.verdict,
         text);
    gv_ctx_destroy(tight);
    gv_ctx_destroy(worker);
    gv_ctx_destroy(here);
    return 0;
}
