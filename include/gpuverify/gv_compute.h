/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: active GPU tests. A CUDA context with VRAM and copy bandwidth tests, a
 * tensor-core GEMM benchmark through cuBLASLt, and a cuDNN convolution checked on the host.
 *
 * `gpu` is the CUDA device ordinal (gv_gpu.cuda_index: after CUDA_VISIBLE_DEVICES and MIG).
 * Each call returns GV_OK when the test ran, whatever its verdict; the verdict, figures and a
 * message are in the result. One gpuverify at a time works on a GPU (a lock per GPU between
 * processes, shared by the threads of one): a call waits up to half the context's deadline for
 * another to finish with its GPU, then returns GV_ERR_BUSY naming it (gv_ctx_last_error).
 * Units: GB/s = 1e9 B/s, TFLOPS = 1e12 FLOP/s. */
#ifndef GPUVERIFY_GV_COMPUTE_H
#define GPUVERIFY_GV_COMPUTE_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- gv_cuda_check: context, VRAM, copies ---------------------------------------------- */

#define GV_CUDA_SKIP_ALLOC 0x1u /* no VRAM test */
#define GV_CUDA_SKIP_COPY 0x2u  /* no bandwidth test */

typedef struct gv_cuda_opts {
    uint32_t struct_size;
    uint32_t flags;             /* GV_CUDA_SKIP_* */
    uint64_t quick_alloc_bytes; /* first VRAM test, default 64 MiB */
    double alloc_fraction;      /* second VRAM test: this fraction of free memory, (0, 1] */
    uint64_t alloc_bytes;       /* second test of exactly this size instead; 0 = use fraction */
    uint64_t copy_bytes;        /* buffer of each copy, default 256 MiB */
    uint32_t copy_samples;      /* timed samples per direction, default 5 (median reported) */
    uint32_t copies_per_sample; /* default 16 */
} gv_cuda_opts;

#ifdef __cplusplus
#define GV_CUDA_OPTS_INIT                                                                          \
    {                                                                                              \
        sizeof(gv_cuda_opts), 0, 64ull << 20, 0.5, 0, 256ull << 20, 5, 16                          \
    }
#else
#define GV_CUDA_OPTS_INIT                                                                          \
    {                                                                                              \
        .struct_size = sizeof(gv_cuda_opts), .quick_alloc_bytes = 64ull << 20,                     \
        .alloc_fraction = 0.5, .copy_bytes = 256ull << 20, .copy_samples = 5,                      \
        .copies_per_sample = 16                                                                    \
    }
#endif

typedef struct gv_cuda_result {
    uint32_t struct_size;
    int32_t verdict; /* enum gv_verdict: the worst of the parts below */
    int32_t cuda_index;
    char name[96];
    char pci_bus_id[32];
    char message[256];
    double context_s;      /* time to create the context */
    uint64_t memory_total; /* cuMemGetInfo before the tests, bytes */
    uint64_t memory_free;
    /* VRAM: a pattern written and read back on the device. */
    int32_t alloc_verdict;
    uint32_t reserved0;
    uint64_t alloc_quick_bytes;
    uint64_t alloc_bytes;  /* the second test's size, 0 when not run */
    uint64_t alloc_errors; /* 8-byte words read back wrong, over both tests */
    char alloc_message[256];
    /* Copies: pinned host buffers on the GPU's NUMA node, medians of the samples, timed with
     * no other gpuverify copying to or from the host. GV_ERROR: not measured, another held the
     * host's links past twice the deadline (copy_message says who). */
    int32_t copy_verdict;
    int32_t numa_node; /* where the host buffers live; -1 unknown */
    double h2d_gbps;
    double d2h_gbps;
    double d2d_gbps;          /* counting read + write, as DRAM sees it */
    double link_current_gbps; /* PCIe raw rate per direction at the link's state after the test */
    double link_max_gbps;     /* at the achievable maximum (device and upstream port) */
    double memory_bw_gbps;    /* datasheet DRAM bandwidth, 0 unknown */
    char copy_message[256];
} gv_cuda_result;

#define GV_CUDA_RESULT_INIT GV_STRUCT_INIT(gv_cuda_result)

GV_API gv_status gv_cuda_check(gv_ctx *ctx, uint32_t gpu, const gv_cuda_opts *opts,
                               gv_cuda_result *out);

/* ---- gv_mem_test: VRAM test over most of the free memory ------------------------------- */

/* Allocates `fraction` of the free memory in chunks and runs, per round, on the GPU: own
 * address and its complement (every address line), moving inversions of a walking one/zero
 * and of seeded random words, up and down the address range; every word is read back and
 * compared on the device. The DRAM ECC counters are read before and after. */
typedef struct gv_memtest_opts {
    uint32_t struct_size;
    uint32_t flags;       /* reserved, must be 0 */
    double fraction;      /* of free memory, default 0.92, (0, 0.99] */
    uint64_t chunk_bytes; /* allocation size, default 1 GiB: 2 MiB .. 64 GiB */
    uint32_t rounds;      /* default 1 (1..100000); each round shifts the patterns */
    uint32_t reserved0;
    double duration_s; /* > 0: further rounds while this much time has not passed */
    uint64_t seed;     /* of the random and walking patterns */
} gv_memtest_opts;

#ifdef __cplusplus
#define GV_MEMTEST_OPTS_INIT                                                                       \
    {                                                                                              \
        sizeof(gv_memtest_opts), 0, 0.92, 1ull << 30, 1, 0, 0.0, 0x6d656d74657374ull               \
    }
#else
#define GV_MEMTEST_OPTS_INIT                                                                       \
    {                                                                                              \
        .struct_size = sizeof(gv_memtest_opts), .fraction = 0.92, .chunk_bytes = 1ull << 30,       \
        .rounds = 1, .seed = 0x6d656d74657374ull                                                   \
    }
#endif

/* A word that read back wrong. */
typedef struct gv_memtest_error {
    uint64_t address;  /* device address of the 8-byte word */
    uint64_t offset;   /* byte offset in the tested memory (the chunks in allocation order) */
    uint64_t expected; /* what was written */
    uint64_t read;     /* what came back */
    uint32_t round;    /* 1-based */
    uint32_t reserved0;
    char step[48]; /* the pass that read it: "random complement, descending" */
} gv_memtest_error;

#define GV_MEMTEST_MAX_ERRORS 8

typedef struct gv_memtest_result {
    uint32_t struct_size;
    int32_t verdict; /* FAIL: a word read back wrong, or uncorrected ECC errors during the test;
                        WARN: corrected ECC errors during the test */
    int32_t cuda_index;
    uint32_t rounds; /* completed */
    char name[96];
    char pci_bus_id[32];
    char message[512];
    uint64_t memory_total; /* cuMemGetInfo before the test, bytes */
    uint64_t memory_free;
    uint64_t bytes_tested; /* allocated and tested */
    uint32_t chunks;
    uint32_t steps;         /* kernel passes over the memory per round */
    double seconds;         /* on the GPU, all rounds */
    double gbps;            /* bytes read + written per second on the GPU */
    uint64_t errors;        /* words read back wrong, all rounds */
    uint32_t errors_logged; /* entries of first_errors filled */
    uint32_t reserved1;
    gv_memtest_error first_errors[GV_MEMTEST_MAX_ERRORS];
    /* DRAM ECC counters (NVML volatile) before and after; -1 unknown. */
    int64_t ecc_corrected_before, ecc_corrected_after;
    int64_t ecc_uncorrected_before, ecc_uncorrected_after;
} gv_memtest_result;

#define GV_MEMTEST_RESULT_INIT GV_STRUCT_INIT(gv_memtest_result)

GV_API gv_status gv_mem_test(gv_ctx *ctx, uint32_t gpu, const gv_memtest_opts *opts,
                             gv_memtest_result *out);

/* ---- gv_gemm_bench: cuBLASLt tensor-core GEMM ------------------------------------------ */

/* GEMM data types: inputs, and (FP32 accumulate) outputs of the same type, BF16 for FP8. */
enum gv_dtype {
    GV_DTYPE_FP32 = 0,
    GV_DTYPE_TF32 = 1, /* FP32 data, TF32 tensor cores */
    GV_DTYPE_FP16 = 2,
    GV_DTYPE_BF16 = 3,
    GV_DTYPE_FP8_E4M3 = 4 /* compute capability 8.9 and later */
};

/* "fp32", "tf32", "fp16", "bf16", "fp8"; "unknown" otherwise. Static, never NULL. */
GV_API const char *gv_dtype_name(int32_t dtype);

typedef struct gv_gemm_opts {
    uint32_t struct_size;
    uint32_t flags;           /* reserved, must be 0 */
    int32_t dtype;            /* enum gv_dtype, default FP16 */
    uint32_t m, n, k;         /* default 8192 each; FP8 needs multiples of 16 */
    double warmup_s;          /* default 1.0 */
    double batch_s;           /* length of one timed batch, default 0.3 */
    uint32_t batches;         /* default 5; median and best reported */
    uint32_t algo_candidates; /* heuristic candidates timed, default 16 (1..64) */
    uint32_t verify_samples;  /* output elements checked on the host, default 64 */
    uint32_t reserved0;
    double warn_fraction; /* of the dense peak, default 0.60; a GPU the power cap held (and
                           * nothing in the hardware) is judged against the peak at the SM
                           * clock it ran, when below this at the peak's clock */
    double fail_fraction; /* default 0.40 */
    uint64_t seed;        /* of the random inputs */
} gv_gemm_opts;

#ifdef __cplusplus
#define GV_GEMM_OPTS_INIT                                                                          \
    {                                                                                              \
        sizeof(gv_gemm_opts), 0, GV_DTYPE_FP16, 8192, 8192, 8192, 1.0, 0.3, 5, 16, 64, 0, 0.60,    \
            0.40, 0x9e3779b97f4a7c15ull                                                            \
    }
#else
#define GV_GEMM_OPTS_INIT                                                                          \
    {                                                                                              \
        .struct_size = sizeof(gv_gemm_opts), .dtype = GV_DTYPE_FP16, .m = 8192, .n = 8192,         \
        .k = 8192, .warmup_s = 1.0, .batch_s = 0.3, .batches = 5, .algo_candidates = 16,           \
        .verify_samples = 64, .warn_fraction = 0.60, .fail_fraction = 0.40,                        \
        .seed = 0x9e3779b97f4a7c15ull                                                              \
    }
#endif

/* A result fingerprint (docs/checks.md, "Result fingerprints"): the hash of the result of one
 * product of fixed inputs, and what makes two hashes comparable. A GPU that computes wrong
 * alike with every other GPU of its node agrees with them; a fleet compares the hashes of nodes
 * whose keys are equal, and healthy GPUs give equal hashes under equal keys. Since ABI 1.1. */
typedef struct gv_gemm_fingerprint {
    char hash[32];  /* "crc32:<8 hex digits>", zlib's CRC-32 of the result's bytes; "" none */
    char key[224];  /* GPU model, driver, cuBLASLt version, data type, size, the algorithm:
                       "NVIDIA H200|132 SMs|580.95.05|cublasLt 130200|fp16|2048x2048x2048|algo
                       23 tile 18 stages 9 splitk 1 ..." */
    double seconds; /* what it took: inputs, product, copy back, CRC; 0 when not computed */
} gv_gemm_fingerprint;

typedef struct gv_gemm_result {
    uint32_t struct_size;
    int32_t verdict; /* enum gv_verdict */
    int32_t dtype;
    int32_t cuda_index;
    uint32_t m, n, k;
    uint32_t reserved0;
    char message[256];
    char library_version[32]; /* cuBLASLt version, "13.1.0" */
    double tflops_median;
    double tflops_best;
    double time_median_ms; /* one GEMM */
    double peak_tflops;    /* dense peak for this data type */
    char peak_source[96];  /* "datasheet, PCI id 0x2335" or the formula used */
    double fraction_of_peak;
    double clock_efficiency;  /* achieved / (SMs x FLOP/clk/SM x mean SM clock); 0 unknown */
    double sm_clock_mean_mhz; /* NVML samples during the timed batches; 0 unknown */
    double sm_clock_min_mhz;
    double power_mean_w;
    double power_max_w;
    double temperature_max_c;
    uint64_t clock_event_reasons; /* OR of NVML clock-event reasons seen (nvmlClocksEventReason) */
    int32_t verified;             /* 1 verified, 0 errors found, -1 not verified */
    uint32_t verify_samples;
    uint32_t verify_errors;
    uint32_t algos_timed;
    double verify_worst; /* largest |error| / tolerance seen; > 1 is an error */
    char algo[64];       /* the fastest candidate: "heuristic #2 of 16, workspace 32 MiB" */
    uint32_t batches;
    uint32_t gemms_per_batch;
    /* 1: peak_tflops is the formula's estimate (no datasheet figure for this part, which may
     * be built slower than its architecture's rate): reported, not judged (verdict PASS unless
     * wrong results; gv_run judges it against the node's other GPUs of the part). */
    uint32_t peak_estimated;
    /* Since ABI 1.1. This data type's result fingerprint on the GPU, computed after the
     * benchmark: 2048^3 on fixed inputs, whatever m, n, k; empty when it could not be. */
    gv_gemm_fingerprint fingerprint;
} gv_gemm_result;

#define GV_GEMM_RESULT_INIT GV_STRUCT_INIT(gv_gemm_result)

GV_API gv_status gv_gemm_bench(gv_ctx *ctx, uint32_t gpu, const gv_gemm_opts *opts,
                               gv_gemm_result *out);

/* ---- gv_stress_gemm: sustained tensor-core GEMM on every GPU at once --------------------- */

/* The same GEMM (same random inputs, the heuristic's algorithm) runs on each GPU for the
 * duration. Every result is hashed on the GPU and compared bit for bit with the first
 * iteration's, and the GPUs' first results with one another: silent data corruption shows as
 * a mismatch. Throughput, SM clock, power, temperature and clock-event reasons are sampled
 * every interval into the caller's series buffer. */
#define GV_STRESS_MAX_GPUS 16

typedef struct gv_stress_sample {
    double t_s;                   /* end of the interval, since the stress began */
    double tflops;                /* GEMM throughput over the interval */
    double sm_clock_mhz;          /* NVML means over the interval; 0 unknown */
    double power_w;               /* NVML mean over the interval; 0 unknown */
    double temperature_c;         /* highest over the interval; 0 unknown */
    uint64_t clock_event_reasons; /* OR of nvmlClocksEventReason* over the interval */
    int32_t cuda_index;
    uint32_t mismatches; /* results of the interval that differed from the first */
} gv_stress_sample;

typedef struct gv_stress_opts {
    uint32_t struct_size;
    uint32_t flags;                    /* reserved, must be 0 */
    int32_t dtype;                     /* enum gv_dtype, default BF16 */
    uint32_t size;                     /* m = n = k, default 8192; a multiple of 16 */
    double duration_s;                 /* default 120 */
    double interval_s;                 /* sample period, default 0.1 */
    uint32_t gpu_count;                /* 0: every GPU CUDA sees (up to GV_STRESS_MAX_GPUS) */
    uint32_t gpus[GV_STRESS_MAX_GPUS]; /* CUDA ordinals */
    uint32_t series_capacity;          /* samples `series` holds */
    gv_stress_sample *series;          /* the caller's buffer for the time series; NULL none */
    uint64_t seed;                     /* of the random inputs */
} gv_stress_opts;

#ifdef __cplusplus
#define GV_STRESS_OPTS_INIT                                                                        \
    {                                                                                              \
        sizeof(gv_stress_opts), 0, GV_DTYPE_BF16, 8192, 120.0, 0.1, 0, {0}, 0, NULL,               \
            0x5354524553530000ull                                                                  \
    }
#else
#define GV_STRESS_OPTS_INIT                                                                        \
    {                                                                                              \
        .struct_size = sizeof(gv_stress_opts), .dtype = GV_DTYPE_BF16, .size = 8192,               \
        .duration_s = 120.0, .interval_s = 0.1, .seed = 0x5354524553530000ull                      \
    }
#endif

typedef struct gv_stress_gpu {
    int32_t cuda_index;
    int32_t verdict; /* FAIL: a result differed (from its first, or from the other GPUs'), or a
                        CUDA/cuBLAS error; WARN: throughput fell > 10% from the first 10 s, or
                        thermal slowdown; SKIP: the GEMM cannot run here */
    char name[96];
    char pci_bus_id[32];
    char message[256];
    uint64_t iterations;     /* GEMMs run and compared */
    uint64_t mismatches;     /* of them, results that differed from the first */
    uint64_t first_mismatch; /* 1-based iteration of the first, 0 none */
    uint64_t result_hash;    /* of the first iteration's result */
    int32_t agrees;          /* with the other GPUs' first result: 1 yes, 0 no, -1 not compared */
    uint32_t samples;        /* intervals sampled */
    double tflops_median;    /* over the intervals */
    double tflops_min;
    double tflops_first;      /* median of the first 10 s (the first tenth when shorter) */
    double tflops_last;       /* median of the last 10 s */
    double sm_clock_mean_mhz; /* NVML over the whole run; 0 unknown */
    double sm_clock_min_mhz;
    double power_mean_w;
    double power_max_w;
    double power_limit_w; /* NVML's enforced limit; 0 unknown */
    double temperature_max_c;
    uint64_t clock_event_reasons; /* OR over the run */
} gv_stress_gpu;

typedef struct gv_stress_result {
    uint32_t struct_size;
    int32_t verdict; /* the worst of the GPUs' */
    int32_t dtype;
    uint32_t size;
    char message[512];
    double duration_s; /* wall time of the stress itself */
    uint32_t gpu_count;
    uint32_t series_count;   /* samples written to opts.series */
    uint64_t series_dropped; /* samples that did not fit */
    char library_version[32];
    gv_stress_gpu gpus[GV_STRESS_MAX_GPUS];
    /* Since ABI 1.1. gpus[i]'s result fingerprint of the stress's data type, computed after the
     * stress (the GPU still hot): as gv_gemm_bench's, whatever the size. */
    gv_gemm_fingerprint fingerprints[GV_STRESS_MAX_GPUS];
} gv_stress_result;

#define GV_STRESS_RESULT_INIT GV_STRUCT_INIT(gv_stress_result)

GV_API gv_status gv_stress_gemm(gv_ctx *ctx, const gv_stress_opts *opts, gv_stress_result *out);

/* ---- gv_cudnn_check: cuDNN handle and a convolution ------------------------------------ */

typedef struct gv_cudnn_result {
    uint32_t struct_size;
    int32_t verdict; /* enum gv_verdict */
    int32_t cuda_index;
    int32_t reserved0;
    char message[256];
    char version[32];       /* "9.14.0" */
    int64_t cudart_version; /* the CUDA version cuDNN was built for, 12080 = 12.8 */
    int32_t fp32_verdict;   /* the FP32 convolution against the host reference */
    int32_t fp16_verdict;   /* FP16 with FP32 accumulation; SKIP where unsupported */
    double fp32_worst;      /* largest |error| / tolerance; > 1 is an error */
    double fp16_worst;
} gv_cudnn_result;

#define GV_CUDNN_RESULT_INIT GV_STRUCT_INIT(gv_cudnn_result)

GV_API gv_status gv_cudnn_check(gv_ctx *ctx, uint32_t gpu, gv_cudnn_result *out);

#ifdef __cplusplus
}
#endif
#endif
