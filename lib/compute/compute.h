/* SPDX-License-Identifier: Apache-2.0 */
/* What the active tests share inside the library: their calls' deadlines, whether a toolkit
 * library can run on this driver, our own matmul, and the pieces of their results the cuda.*,
 * mem.test and driver.compat checks (checks/cuda.c, checks/mem.c, checks/driver_compat.c) turn
 * into rows. */
#ifndef GV_COMPUTE_COMPUTE_H
#define GV_COMPUTE_COMPUTE_H

#include <stdint.h>

#include "gpuverify/gv_compute.h"
#include "gpuverify/gv_context.h"
#include "gpuverify/gv_report.h"

typedef struct gv_compat {
    int32_t verdict;  /* PASS: usable; FAIL: needs a newer driver; SKIP: absent */
    char version[32]; /* the library's own version, "13.1.0" */
    int library_cuda; /* the CUDA version it was built for, 13010; 0 unknown */
    int driver_cuda;  /* cuDriverGetVersion; 0 unknown */
    char message[256];
} gv_compat;

/* The deadlines of the calls these tests make in gpuverify-worker, in units of the context's
 * deadline (worker/call.h), on top of starting CUDA (GV_DEADLINE_CUDA_START); the catalog gives
 * the checks that run them the same. */
#define GV_DEADLINE_CUDA_CHECK 1.0  /* gv_cuda_check: cuda.* */
#define GV_DEADLINE_GEMM_BENCH 1.0  /* gv_gemm_bench, on top of its timed batches: gemm.* */
#define GV_DEADLINE_CUDNN_CHECK 1.0 /* gv_cudnn_check: cudnn.* */
/* gv_mem_test, per round: nearly all free memory walked 16 times, about a second on an H200,
 * far longer on the slowest memory (mem.test). */
#define GV_DEADLINE_MEM_TEST 4.0
/* gv_stress_gemm's setup on every GPU, on top of the duration it loads them (stress.*). */
#define GV_DEADLINE_STRESS 4.0

/* Loads cuBLASLt, cuDNN or NCCL (library = GV_LIB_CUBLASLT / _CUDNN / _NCCL) and compares the CUDA
 * version it needs with the driver's. */
void gv_compat_check(gv_ctx *ctx, int32_t library, gv_compat *out);

/* gv_cuda_check's message on a context it made: name, bus id, r->context_s, free memory. */
void gv_cuda_context_message(const gv_cuda_result *r, char *out, size_t cap);

/* cuda.matmul (matmul.c): n x n x n products with our own kernels, FP16 on tensor cores and
 * FP32, 64 sampled outputs each against an FP64 host reference. n a multiple of 16. */
typedef struct gv_matmul_result {
    int32_t verdict; /* PASS, or FAIL with wrong outputs or a CUDA error */
    uint32_t n;
    double f16_tflops, f32_tflops;
    uint32_t errors; /* sampled outputs outside the tolerance */
    double worst;    /* largest |error| / tolerance */
    char message[256];
} gv_matmul_result;

gv_status gv_matmul_check(gv_ctx *ctx, uint32_t gpu, uint32_t n, gv_matmul_result *out);

/* Whether the DRAM ECC counters of a memory test rose while it ran (uncorrected = 1: those
 * counters, 0: the corrected ones); 0 when either reading is unknown. */
int gv_memtest_ecc_rose(const gv_memtest_result *r, int uncorrected);

#endif
