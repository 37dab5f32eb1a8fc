/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU session for the active tests: the device's primary context made current on the calling
 * thread (push/pop, so the caller's thread is left as it was), a stream of our own, and our
 * kernels loaded from the embedded PTX. */
#ifndef GV_COMPUTE_SESSION_H
#define GV_COMPUTE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "backends/cuda_backend.h"
#include "core/errbuf.h"
#include "sys/pci.h"

typedef struct gv_session {
    gv_ctx *ctx;
    const struct gv_cuda_api *cu;
    gvcu_device device;
    int cuda_index;
    int retained, pushed;
    int gpu_held; /* this process holds the GPU's gpuverify lock for the session (core/gpu_lock.h)
                   */
    int module_kept; /* module is the worker's, kept for the next session (not unloaded) */
    int opened;      /* gv_session_open succeeded */
    gvcu_context context;
    gvcu_stream stream;
    gvcu_event done; /* recorded and polled by gv_session_sync */
    gvcu_module module;
    gvcu_function fill_pattern, check_pattern, fill_random, gate, fill_collective, check_collective,
        matmul_f16, matmul_f32, mem_step, hash_words;
    char name[96];
    char bus_id[32];
    int cc_major, cc_minor, sm_count, max_sm_clock_mhz;
    int pci_device_id; /* 0x2335; 0 unknown */
    int have_pci;      /* pci holds the GPU's sysfs function (NUMA node, CPUs, link) */
    gv_pci_function pci;
    double context_s;
} gv_session;

/* Opens a session on CUDA device `gpu`, holding the GPU's gpuverify lock (waiting up to half
 * the context's deadline for another gpuverify to finish with it). In gpuverify-worker the
 * primary context and our kernels' module outlive the session for the next one on that GPU
 * (one process, one test after another: making them took 0.15-0.2 s a GPU each time on an
 * H200), unless the session ended with the context failing: then the next makes a fresh one.
 * GV_ERR_LIBRARY: no usable libcuda or cuInit failed; GV_ERR_NOT_FOUND: no such device;
 * GV_ERR_DRIVER: a CUDA call failed; GV_ERR_BUSY: another gpuverify held the GPU all that time. err
 * says which. */
gv_status gv_session_open(gv_ctx *ctx, uint32_t gpu, gv_session *s, gv_errbuf *err);
/* Before one call opens sessions on `count` GPUs (gv_nccl_bench, gv_stress_gemm): for more than
 * one, the several-GPUs lock (compute/gpu_lock.h), waited for up to half the context's deadline
 * as a GPU's, so that the call never holds one GPU while it waits for another that a run holds.
 * *taken says whether to give it back (gv_several_gpus_give) after the sessions close. GV_OK, or
 * GV_ERR_BUSY when another process held it all along (err says who). */
gv_status gv_session_take_several(gv_ctx *ctx, uint32_t count, int *taken, gv_errbuf *err);
/* Keeps GPU `gpu`'s primary context alive between sessions (keep = 1 retains it, 0 releases
 * that retain), so that checks run one after another on a GPU create it once: a session's
 * close would otherwise destroy it, and the next open pay for it again. */
void gv_session_keep_context(gv_ctx *ctx, uint32_t gpu, int keep);
/* In gpuverify-worker: makes GPU `gpu`'s primary context and loads our kernels into it ahead of
 * the first session, kept as that session would keep them (a session that fails still lets
 * them go). The caller holds the GPU's lock (run_hold.c). 0 when made or already there; -1
 * when CUDA refused, which leaves the first session to try again. */
int gv_session_make_ahead(gv_ctx *ctx, uint32_t gpu);

/* Frees what open made and pops the context; safe on a half-opened session. */
void gv_session_close(gv_session *s);

/* cuMemGetInfo on the session's context: free and total device memory; a CUresult (both 0 when
 * it fails). */
int gv_session_memory(gv_session *s, uint64_t *free_bytes, uint64_t *total_bytes);

/* The CUDA error as text with the call that returned it, for messages. */
gv_status gv_session_fail(gv_session *s, gv_errbuf *err, const char *call, int rc);

/* Waits for everything queued on the stream, polling so that a wedged GPU gives
 * GVCU_ERROR_LAUNCH_TIMEOUT after timeout_s instead of hanging the caller. */
int gv_session_sync(gv_session *s, double timeout_s);
/* The same in two steps, for a caller that waits on several GPUs at once: mark what is queued
 * on the stream now, then poll (GVCU_ERROR_NOT_READY until the GPU has done it; a heartbeat of
 * the GPU when it has, core/progress.h). */
int gv_session_mark(gv_session *s);
int gv_session_poll(gv_session *s);

/* Kernels (lib/kernels/gv_kernels.cu), queued on the session's stream. */
int gv_session_fill_pattern(gv_session *s, gvcu_deviceptr p, uint64_t words, uint64_t seed);
int gv_session_check_pattern(gv_session *s, gvcu_deviceptr p, uint64_t words, uint64_t seed,
                             gvcu_deviceptr errors);
/* One step of the memory test (gv_mem_step) over `pairs` 16-byte pairs of words at p: compare
 * each word with pattern `expect` (GV_MEM_*, 0 none), then write pattern `write` (0 none);
 * mismatches counted and logged at `log` (1 + 3 x GV_MEM_LOG words). */
int gv_session_mem_step(gv_session *s, gvcu_deviceptr p, uint64_t pairs, int expect, int write,
                        uint64_t seed, int descending, gvcu_deviceptr log);
/* Adds the hash of `words` 64-bit words at p into the 64-bit word at sum (gv_hash_words). */
int gv_session_hash_words(gv_session *s, gvcu_deviceptr p, uint64_t words, gvcu_deviceptr sum);
int gv_session_fill_random(gv_session *s, gvcu_deviceptr p, uint64_t count, int kind,
                           uint64_t seed);
int gv_session_gate(gv_session *s, gvcu_stream stream, gvcu_deviceptr flag, uint64_t timeout_ns);
/* rank < 0 fills NaN (an output not yet written). */
int gv_session_fill_collective(gv_session *s, gvcu_deviceptr p, uint64_t count, int rank,
                               uint64_t seed);
int gv_session_check_collective(gv_session *s, gvcu_deviceptr p, uint64_t n, int coll,
                                uint32_t nranks, uint32_t rank, uint64_t count, uint64_t seed,
                                gvcu_deviceptr errors);

/* C = A x B with our own kernels (cuda.matmul): half = 1 FP16 on tensor cores, else FP32.
 * A row-major M x K, B column-major K x N, C column-major FP32; sizes multiples of 16. */
int gv_session_matmul(gv_session *s, int half, gvcu_deviceptr a, gvcu_deviceptr b, gvcu_deviceptr c,
                      uint32_t m, uint32_t n, uint32_t k);

/* Seconds to wait for one queued step before calling the GPU hung. */
#define GV_SESSION_STEP_TIMEOUT_S 60.0

#endif
