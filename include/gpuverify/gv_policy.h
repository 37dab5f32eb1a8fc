/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: a site's policy, what it expects of its nodes beyond the datasheet.
 *
 * Every expectation a check takes from the policy is reported with expected_source "policy";
 * a field left unset keeps the library's default (the datasheet, the device's own maxima, the
 * defaults in docs/checks.md). A policy is a struct, or a key = value file:
 *
 *     # /etc/gpuverify/policy.conf
 *     gpu_count = 8
 *     gpu_model = H100
 *     gemm_min_tflops.fp16 = 600
 *     nccl_min_busbw_gbps = 350
 *     busy = skip                  # skip | warn | fail | ignore
 *
 * A CPU node checked on purpose says `gpu_count = 0`. Keys are the field names below
 * (gemm_min_tflops.<dtype> per data type); '#' starts a comment. */
#ifndef GPUVERIFY_GV_POLICY_H
#define GPUVERIFY_GV_POLICY_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gv_policy {
    uint32_t struct_size;
    uint32_t flags;       /* reserved, must be 0 */
    int32_t gpu_count;    /* GPUs the node must have (driver.gpu_count); -1 = not set: then a node
                             with no NVIDIA GPU FAILs, and 0 says it is a CPU node on purpose */
    int32_t require_rdma; /* 1: a node without an RDMA device FAILs rdma.devices; 0 SKIP */
    char gpu_model[96];   /* text every GPU's name must contain (gpu.model); "" = any */
    char kernel_min[32];  /* minimum kernel for GPUDirect RDMA (gpudirect.kernel); "" = 6.2 */
    double gemm_warn_fraction;  /* gemm.*: WARN below this fraction of the dense peak; 0 = 0.60 */
    double gemm_fail_fraction;  /* FAIL below; 0 = 0.40 */
    double gemm_min_tflops[5];  /* gemm.* per enum gv_dtype: FAIL below this; 0 = not set */
    double copy_min_gbps;       /* cuda.copy: FAIL when H2D or D2H is below; 0 = by the link */
    double nccl_min_busbw_gbps; /* nccl.allreduce: FAIL below this peak busbw; 0 = no floor */
    /* gpu.xid: the Xid codes that FAIL a GPU, comma-separated ("48,79,94"); "" = the default
     * set of hardware faults (docs/checks.md); others are reported, not counted. */
    char xids[128];
    /* Performance verdicts (gemm.*, cuda.copy, cuda.matmul, nccl.allreduce) when another
     * process used the GPU during the test (enum gv_busy_rule); wrong results FAIL whatever
     * the load. */
    int32_t busy;
    int32_t reserved;
    /* Health counters (gpu.ecc_errors, gpu.pcie_errors, ...; docs/checks.md). 0 = the default
     * named on each field. */
    double ecc_correctable_warn;     /* WARN at this many volatile correctable ECC errors
                                        (SRAM + DRAM); 0 = reported, not judged */
    double pcie_replay_warn_per_min; /* WARN above this many PCIe replays per minute since boot;
                                        0 = 8, DCGM's PCIe health watch */
    double aer_correctable_warn;     /* WARN at this many correctable AER errors on a function of
                                        the GPU's path; 0 = reported, not judged */
    double nvlink_crc_warn;     /* WARN at this many CRC errors on one NVLink; 0 = not judged */
    double clock_event_warn_s;  /* WARN when HW thermal slowdown or HW power brake held the
                                   clocks longer than this since boot; 0 = 1 s (the SW power
                                   cap and SW thermal slowdown are reported, not judged) */
    double temp_margin_warn_c;  /* WARN below this many degrees under T.Limit; 0 = 5 */
    int32_t retired_pages_fail; /* FAIL at this many retired pages (before Ampere); 0 = 60,
                                   NVIDIA's replacement criterion */
    int32_t reserved1;
    /* Since ABI 1.1. Each GPU against its own history (gv_ctx_opts.state_path; docs/history.md).
     * 0 = the default named on each field. */
    double history_min_runs;             /* earlier comparable runs before history.* judge; 0 = 5 */
    double history_runs;                 /* history.performance: the median of this many last
                                            comparable runs; 0 = 20 */
    double history_perf_warn_fraction;   /* WARN below this fraction of the GPU's own median;
                                            0 = 0.95 */
    double history_window_days;          /* history.memory_errors, .links, .record: how far back;
                                            0 = 30 */
    double history_ecc_per_day_warn;     /* WARN when correctable ECC errors grow faster than this
                                            per day over the window; 0 = 100 */
    double history_remap_warn;           /* WARN when this many rows were remapped in the window;
                                            0 = 1 */
    double history_exhaustion_days_warn; /* WARN when the GPU's banks would run out of spare
                                            rows within this many days at the window's
                                            rate; 0 = 180 */
    double history_record_warn;          /* history.record: WARN at this many FAIL/ERROR runs in the
                                            window (a GPU's or the node's); 0 = 3 */
    double history_keep_days;            /* retention: runs older are deleted; 0 = 365 */
    double history_keep_runs;            /* retention: at most this many runs; 0 = 10000 */
    double history_keep_mb;              /* retention: the file's size; 0 = 256 */
    double history_wait_s;               /* a run waits this long for another's write; 0 = 10 */
    /* Since ABI 1.1. history.port_errors: an RDMA port's symbol errors per hour between two
     * runs (their growth over the time between, an hour at least). */
    double history_symbol_error_warn_per_h; /* WARN above this rate; 0 = any growth (Meta's GCM
                                               warns above 0) */
    double history_symbol_error_fail_per_h; /* FAIL above this rate; 0 = 120 (NVIDIA NVSentinel's
                                               fatal rate) */
} gv_policy;

/* What a performance verdict becomes when the GPU was shared during its test. */
enum gv_busy_rule {
    GV_BUSY_SKIP = 0,  /* SKIP "not judged: GPU 0 used by PID ... during the test"; mem.test,
                        * stress.* and cuda.alloc's large test do not run on such a GPU */
    GV_BUSY_WARN = 1,  /* WARN with the same text, the figure reported */
    GV_BUSY_FAIL = 2,  /* FAIL: the node must be idle when it is checked */
    GV_BUSY_IGNORE = 3 /* judge the figure as if the GPU were idle */
};

#ifdef __cplusplus
extern "C++" {
inline gv_policy gv_policy_init_(void)
{
    gv_policy p = GV_STRUCT_INIT(gv_policy);
    p.gpu_count = -1;
    return p;
}
}
#define GV_POLICY_INIT gv_policy_init_()
#else
#define GV_POLICY_INIT                                                                             \
    {                                                                                              \
        .struct_size = sizeof(gv_policy), .gpu_count = -1                                          \
    }
#endif

/* Parses key = value text into *out, over what it holds (start from GV_POLICY_INIT). An unknown
 * key or a bad value is GV_ERR_PARSE naming the line, and *out is left unchanged. */
GV_API gv_status gv_policy_parse(gv_ctx *ctx, const char *text, gv_policy *out);
/* The same from a file: GV_ERR_IO when it cannot be read, GV_ERR_PARSE when it is no policy
 * text (larger than 64 KiB, a NUL byte in it) or the text is refused as above. */
GV_API gv_status gv_policy_load(gv_ctx *ctx, const char *path, gv_policy *out);

#ifdef __cplusplus
}
#endif
#endif
