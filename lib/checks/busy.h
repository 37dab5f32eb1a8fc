/* SPDX-License-Identifier: Apache-2.0 */
/* Whether another process used a GPU while a performance test ran on it. A figure measured
 * on a shared GPU says nothing about the hardware, so the policy's busy rule decides what its
 * verdict becomes (gv_policy.busy); results that are wrong stay FAIL whatever the load. */
#ifndef GV_CHECKS_BUSY_H
#define GV_CHECKS_BUSY_H

#include <stddef.h>

#include "backends/nvml_backend.h"
#include "facts/facts.h"
#include "gpuverify/gv_policy.h"
#include "gpuverify/gv_report.h"

#define GV_BUSY_MAX 16

typedef struct gv_busy {
    size_t n;
    struct {
        unsigned pid;
        unsigned gpu;    /* inventory index */
        long long bytes; /* GPU memory it holds, -1 unknown */
        char name[32];   /* /proc/<pid>/comm, "" when not visible here */
    } seen[GV_BUSY_MAX];
} gv_busy;

/* Adds the compute and graphics processes NVML lists on the GPU now, other than this one (the
 * worker, or the caller when not isolated), and as PID 0 the memory held beyond what the
 * listed ones hold (processes of another PID namespace, which NVML does not list). Nothing
 * when NVML cannot say. */
void gv_busy_sample(gv_ctx *ctx, const gv_gpu_record *g, gv_busy *b);
/* "GPU 0 used by PID 4121 (python3, 38.0 GiB)"; "" when nobody else was seen. */
void gv_busy_text(const gv_busy *b, char *out, size_t cap);
/* GPU memory the others hold on inventory GPU `gpu`, in bytes (unknown sizes count 0). */
long long gv_busy_bytes(const gv_busy *b, unsigned gpu);
/* Applies the busy rule to a performance row measured while others used the GPU: SKIP "not
 * judged: ..." (default), WARN, FAIL, or unchanged (ignore). A row whose results were wrong is
 * left alone (wrong = 1). */
void gv_busy_apply(const gv_busy *b, const gv_policy *p, gv_check_result *res, int wrong);
/* Whether a GPU others use is to be spared the tests that take from them (mem.test holds 92%
 * of the free memory, stress.* loads the GPU for the run's duration, cuda.alloc's second test
 * holds half the free memory): 1 under the default busy = skip, whose figures on a shared GPU
 * would not be judged anyway, when b saw another process. A job whose allocator grows while
 * such a test holds the memory fails with out-of-memory. `why` then says who and why not. */
int gv_busy_spares(const gv_busy *b, const gv_policy *p, const char *what, char *why, size_t cap);
/* A row of a GPU refused for want of its memory (CUDA_ERROR_OUT_OF_MEMORY: a context, an
 * allocation), or because another process has it in exclusive-process mode
 * (CUDA_ERROR_DEVICE_UNAVAILABLE), while other processes hold it: the load, not the GPU, so
 * the busy rule judges it, FAIL or ERROR alike. gv_run passes every row through this as it becomes
 * final (the report's finalize hook), whichever check made it: on an H100 whose memory a job held
 * but for 296 MiB, no context could be made and cuda.init, cuda.copy_all, cuda.p2p and
 * cudnn.version FAILed. A refusal with nobody else on the GPU stays as it was. */
void gv_busy_judge_refusal(gv_ctx *ctx, const gv_facts *f, const gv_policy *p,
                           gv_check_result *row);

#endif
