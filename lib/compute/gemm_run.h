/* SPDX-License-Identifier: Apache-2.0 */
/* One cuBLASLt GEMM set up on one GPU: the session, random inputs, the matmul descriptors and
 * the algorithm. Shared by the benchmark (gemm_bench.c, gv_gemm_bench) and the sustained stress
 * (stress_gemm.c, gv_stress_gemm). */
#ifndef GV_COMPUTE_GEMM_RUN_H
#define GV_COMPUTE_GEMM_RUN_H

#include "backends/cublaslt_backend.h"
#include "compute/session.h"
#include "core/errbuf.h"
#include "gpuverify/gv_compute.h"

/* How each data type runs: encodings in and out, cuBLASLt types, verification tolerance. */
typedef struct gv_dtype_plan {
    int in_bits, out_bits;
    int in_type, out_type, compute;
    size_t in_size, out_size;
    double tolerance; /* of |error| against sum|a*b| / sqrt(K) */
    int cc_needed;    /* major*10 + minor */
    int transpose_a;  /* "TN": what FP8 requires and the faster layout for 16-bit types; FP32
                         and TF32 kernels run best "NN" (measured on H200, bench/results) */
} gv_dtype_plan;

extern const gv_dtype_plan gv_gemm_plans[GV_DTYPE_FP8_E4M3 + 1];

/* Everything one run holds, released by gv_gemm_release whatever happened. */
typedef struct gv_gemm_run {
    gv_session s;
    const struct gv_cublaslt_api *lt;
    const gv_dtype_plan *plan;
    gv_gemm_opts o;
    gvbl_handle handle;
    gvbl_matmul_desc desc;
    gvbl_layout la, lb, lc;
    gvbl_preference pref;
    gvcu_deviceptr a, b, d, workspace, scale;
    size_t workspace_bytes;
    gvcu_event start, end;
    gvbl_algo algo;
    /* 1-based heuristic candidate: set before gv_gemm_choose_algo to take that one untimed
     * (0: time them), and the one taken after it. */
    int candidate;
    /* The power limit in force during the run and the board's default, W (0 unknown). */
    double power_limit_w, power_default_w;
    gv_errbuf err;
} gv_gemm_run;

/* Opens the session and loads cuBLASLt. GV_OK with verdict PASS when the GEMM can run, else
 * the verdict (SKIP: unsupported or absent; FAIL: no context, or a library the driver cannot
 * run) and why in r->message; GV_ERR_NOT_FOUND for a GPU index CUDA does not have. g->o and
 * g->plan are set by the caller. */
gv_status gv_gemm_prepare(gv_ctx *ctx, gv_gemm_run *g, uint32_t gpu, gv_gemm_result *r);
/* Buffers, random inputs from g->o.seed, descriptors and the workspace preference. */
gv_status gv_gemm_setup(gv_gemm_run *g);
void gv_gemm_release(gv_gemm_run *g);
/* What gv_gemm_setup made, freed (again safe), the session left open: its memory goes back
 * before the result fingerprint takes its own. */
void gv_gemm_free(gv_gemm_run *g);
/* Times the heuristic's first g->o.algo_candidates candidates and keeps the fastest in g->algo,
 * or takes candidate g->candidate untimed: the heuristic lists the same candidates on every GPU
 * of a model, so GPUs given the same one compute the same bits. */
gv_status gv_gemm_choose_algo(gv_gemm_run *g, gv_gemm_result *r, double *ms_out);
/* One GEMM D = A x B queued on the session's stream; a cuBLAS status. */
int gv_gemm_matmul(gv_gemm_run *g, const gvbl_algo *algo);
/* Runs `count` GEMMs between the run's events; their mean time in ms, or -1 (g->err set). */
double gv_gemm_timed(gv_gemm_run *g, const gvbl_algo *algo, unsigned count);
/* g->err from a cuBLAS status. */
gv_status gv_gemm_lt_fail(gv_gemm_run *g, const char *call, int status);

/* The result fingerprint (gemm_fingerprint.c, docs/checks.md "Result fingerprints"): m = n = k
 * of the product, whatever the benchmark's, and the seed of its inputs. */
#define GV_FINGERPRINT_SIZE 2048u
#define GV_FINGERPRINT_SEED 0x66696e6765727072ull /* "fingerpr" */

/* Data type `dtype`'s fingerprint on the GPU of g's session (open, cuBLASLt loaded; g's own
 * GEMM, set up or not, is left alone): one product of fixed inputs with the algorithm cuBLASLt's
 * heuristic gives when no split-K reduction is allowed, its result copied back and CRC-32'd.
 * GV_OK with out set, else an error with why in err and out empty. */
gv_status gv_gemm_make_fingerprint(gv_gemm_run *g, int32_t dtype, gv_gemm_fingerprint *out,
                                   gv_errbuf *err);

#endif
