/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "compute/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute/gpu_lock.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "kernels/gv_random.h"

extern const char gv_kernels_ptx[]; /* generated from lib/kernels/gv_kernels.ptx */

gv_status gv_session_fail(gv_session *s, gv_errbuf *err, const char *call, int rc)
{
    char buf[32];
    const char *name = gv_cuda_error_name(rc, buf, sizeof buf);
    return gv_err(err, GV_ERR_DRIVER, "%s on GPU %d: %s", call, s->cuda_index, name);
}

static void describe(gv_session *s)
{
    const struct gv_cuda_api *cu = s->cu;
    int v;
    if (cu->cuDeviceGetName(s->name, (int)sizeof s->name, s->device) != GVCU_SUCCESS)
        s->name[0] = '\0';
    if (cu->cuDeviceGetPCIBusId(s->bus_id, (int)sizeof s->bus_id, s->device) != GVCU_SUCCESS)
        s->bus_id[0] = '\0';
    for (char *c = s->bus_id; *c; c++)
        if (*c >= 'A' && *c <= 'F')
            *c = (char)(*c - 'A' + 'a');
    s->cc_major = cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                           s->device) == GVCU_SUCCESS
                      ? v
                      : 0;
    s->cc_minor = cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                           s->device) == GVCU_SUCCESS
                      ? v
                      : 0;
    s->sm_count = cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                           s->device) == GVCU_SUCCESS
                      ? v
                      : 0;
    s->max_sm_clock_mhz =
        cu->cuDeviceGetAttribute(&v, GVCU_DEVICE_ATTRIBUTE_CLOCK_RATE, s->device) == GVCU_SUCCESS
            ? v / 1000
            : 0;
}

/* The worker's slot for GPU s's context and module; NULL outside gpuverify-worker, whose
 * caller's contexts are not ours to keep. */
static gv_kept_gpu *kept_slot(const gv_session *s)
{
    if (!s->ctx->in_worker || s->cuda_index < 0 ||
        s->cuda_index >= (int)(sizeof s->ctx->kept / sizeof s->ctx->kept[0]))
        return NULL;
    return &s->ctx->kept[s->cuda_index];
}

/* The kept references go; a context with no other takes our module with it. */
static void release_kept(gv_ctx *ctx)
{
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    for (size_t i = 0; cu && i < sizeof ctx->kept / sizeof ctx->kept[0]; i++) {
        gvcu_device device;
        if (ctx->kept[i].retained && cu->cuDeviceGet(&device, (int)i) == GVCU_SUCCESS)
            cu->cuDevicePrimaryCtxRelease(device);
        ctx->kept[i].retained = 0;
        ctx->kept[i].module = NULL;
    }
}

/* The worker's own reference on GPU `index`'s primary context, taken once, so that the context
 * outlives the sessions (release_kept lets it go); 0 when held. */
static int keep_retained(gv_ctx *ctx, int index, gvcu_device device)
{
    gv_kept_gpu *kept = &ctx->kept[index];
    gvcu_context context;
    if (!kept->retained &&
        gv_cuda(ctx)->cuDevicePrimaryCtxRetain(&context, device) == GVCU_SUCCESS) {
        kept->retained = 1;
        ctx->release_kept = release_kept;
    }
    return kept->retained ? 0 : -1;
}

static gv_status load_kernels(gv_session *s, gv_errbuf *err)
{
    const struct gv_cuda_api *cu = s->cu;
    gv_kept_gpu *kept = kept_slot(s);
    int rc = GVCU_SUCCESS;
    if (kept && kept->module)
        s->module = kept->module;
    else
        rc = cu->cuModuleLoadData(&s->module, gv_kernels_ptx);
    if (rc != GVCU_SUCCESS) {
        s->module = NULL;
        return gv_session_fail(s, err, "cuModuleLoadData (the PTX of lib/kernels)", rc);
    }
    if (kept && kept->retained) {
        kept->module = s->module;
        s->module_kept = 1;
    }
    static const struct {
        const char *name;
        size_t offset;
    } fns[] = {
        {"gv_fill_pattern", offsetof(gv_session, fill_pattern)},
        {"gv_check_pattern", offsetof(gv_session, check_pattern)},
        {"gv_fill_random", offsetof(gv_session, fill_random)},
        {"gv_gate", offsetof(gv_session, gate)},
        {"gv_fill_collective", offsetof(gv_session, fill_collective)},
        {"gv_check_collective", offsetof(gv_session, check_collective)},
        {"gv_matmul_f16", offsetof(gv_session, matmul_f16)},
        {"gv_matmul_f32", offsetof(gv_session, matmul_f32)},
        {"gv_mem_step", offsetof(gv_session, mem_step)},
        {"gv_hash_words", offsetof(gv_session, hash_words)},
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        gvcu_function *f = (gvcu_function *)((char *)s + fns[i].offset);
        if ((rc = cu->cuModuleGetFunction(f, s->module, fns[i].name)) != GVCU_SUCCESS)
            return gv_session_fail(s, err, fns[i].name, rc);
    }
    return GV_OK;
}

/* The GPU's PCI function in sysfs, found by its bus id; 0 when found. */
static int find_pci(const gv_session *s, gv_pci_function *out)
{
    gv_pci_addr want;
    if (gv_pci_parse_addr(s->bus_id, &want) != 0)
        return -1;
    gv_pci_function *all = NULL;
    size_t n = 0;
    if (gv_pci_nvidia_gpus(s->ctx->sysroot, &all, &n, NULL) != GV_OK)
        return -1;
    int found = -1;
    for (size_t i = 0; i < n && found < 0; i++)
        if (!all[i].addr_unknown && gv_pci_addr_compare(&all[i].addr, &want) == 0) {
            *out = all[i];
            found = 0;
        }
    free(all);
    return found;
}

gv_status gv_session_open(gv_ctx *ctx, uint32_t gpu, gv_session *s, gv_errbuf *err)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->cuda_index = (int)gpu;
    s->cu = gv_cuda(ctx);
    if (!s->cu)
        return gv_err(err, GV_ERR_LIBRARY, "libcuda is not usable: %s",
                      ctx->libs[GV_LIB_CUDA].detail[0] ? ctx->libs[GV_LIB_CUDA].detail
                                                       : "not found");
    double t0 = gv_now_s();
    int rc = gv_cuda_init(ctx);
    char buf[32];
    if (rc != GVCU_SUCCESS)
        return gv_err(err, GV_ERR_LIBRARY, "cuInit failed: %s",
                      gv_cuda_error_name(rc, buf, sizeof buf));
    int count = 0;
    if ((rc = s->cu->cuDeviceGetCount(&count)) != GVCU_SUCCESS)
        return gv_session_fail(s, err, "cuDeviceGetCount", rc);
    if (gpu >= (uint32_t)count)
        return gv_err(err, GV_ERR_NOT_FOUND, "GPU %u: CUDA sees %d device(s)", (unsigned)gpu,
                      count);
    if ((rc = s->cu->cuDeviceGet(&s->device, (int)gpu)) != GVCU_SUCCESS)
        return gv_session_fail(s, err, "cuDeviceGet", rc);
    describe(s);
    /* Before the context: a second gpuverify's context is what the first's busy rule sees. */
    gv_gpu_holder holder;
    double wait_s = ctx->deadline_s / 2;
    if (gv_gpu_lock_take(ctx, s->bus_id, wait_s, &holder) != 0) {
        char who[160];
        gv_gpu_holder_text(&holder, who, sizeof who);
        return gv_err(err, GV_ERR_BUSY, "GPU %d (%s) is being tested by %s; waited %.0f s",
                      s->cuda_index, s->bus_id, who, wait_s);
    }
    s->gpu_held = 1;
    s->have_pci = find_pci(s, &s->pci) == 0;
    if (s->have_pci)
        s->pci_device_id = s->pci.device;
    if ((rc = s->cu->cuDevicePrimaryCtxRetain(&s->context, s->device)) != GVCU_SUCCESS)
        return gv_session_fail(s, err, "cuDevicePrimaryCtxRetain", rc);
    s->retained = 1;
    if (kept_slot(s))
        keep_retained(ctx, s->cuda_index, s->device);
    if ((rc = s->cu->cuCtxPushCurrent(s->context)) != GVCU_SUCCESS)
        return gv_session_fail(s, err, "cuCtxPushCurrent", rc);
    s->pushed = 1;
    if ((rc = s->cu->cuStreamCreate(&s->stream, GVCU_STREAM_NON_BLOCKING)) != GVCU_SUCCESS) {
        s->stream = NULL;
        return gv_session_fail(s, err, "cuStreamCreate", rc);
    }
    if ((rc = s->cu->cuEventCreate(&s->done, GVCU_EVENT_DEFAULT)) != GVCU_SUCCESS) {
        s->done = NULL;
        return gv_session_fail(s, err, "cuEventCreate", rc);
    }
    gv_status st = load_kernels(s, err);
    s->context_s = gv_now_s() - t0;
    s->opened = st == GV_OK;
    return st;
}

gv_status gv_session_take_several(gv_ctx *ctx, uint32_t count, int *taken, gv_errbuf *err)
{
    *taken = 0;
    if (count < 2)
        return GV_OK;
    gv_gpu_holder holder;
    double wait_s = ctx->deadline_s / 2;
    if (gv_several_gpus_take(ctx, wait_s, &holder) != 0) {
        char who[160];
        gv_gpu_holder_text(&holder, who, sizeof who);
        return gv_err(err, GV_ERR_BUSY,
                      "several GPUs of this node are being tested by %s; waited %.0f s", who,
                      wait_s);
    }
    *taken = 1;
    return GV_OK;
}

void gv_session_keep_context(gv_ctx *ctx, uint32_t gpu, int keep)
{
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    gvcu_device device;
    gvcu_context context;
    if (!cu || gv_cuda_init(ctx) != GVCU_SUCCESS || cu->cuDeviceGet(&device, (int)gpu))
        return;
    if (keep)
        cu->cuDevicePrimaryCtxRetain(&context, device);
    else
        cu->cuDevicePrimaryCtxRelease(device);
}

int gv_session_make_ahead(gv_ctx *ctx, uint32_t gpu)
{
    const struct gv_cuda_api *cu = gv_cuda(ctx);
    gvcu_device device;
    gvcu_context context, popped;
    if (!ctx->in_worker || gpu >= sizeof ctx->kept / sizeof ctx->kept[0] || !cu ||
        gv_cuda_init(ctx) != GVCU_SUCCESS || cu->cuDeviceGet(&device, (int)gpu) != GVCU_SUCCESS)
        return -1;
    gv_kept_gpu *kept = &ctx->kept[gpu];
    if (kept->module)
        return 0;
    /* The kept reference holds the context; this one is for the push and goes after it. */
    if (keep_retained(ctx, (int)gpu, device) != 0 ||
        cu->cuDevicePrimaryCtxRetain(&context, device) != GVCU_SUCCESS)
        return -1;
    if (cu->cuCtxPushCurrent(context) != GVCU_SUCCESS) {
        cu->cuDevicePrimaryCtxRelease(device);
        return 0;
    }
    gvcu_module module;
    if (cu->cuModuleLoadData(&module, gv_kernels_ptx) == GVCU_SUCCESS)
        kept->module = module;
    cu->cuCtxPopCurrent(&popped);
    cu->cuDevicePrimaryCtxRelease(device);
    return 0;
}

void gv_session_close(gv_session *s)
{
    if (!s->cu)
        return;
    int healthy = s->opened;
    if (s->stream) {
        healthy = healthy && gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S) == GVCU_SUCCESS;
        s->cu->cuStreamDestroy(s->stream);
    }
    if (s->done)
        s->cu->cuEventDestroy(s->done);
    s->done = NULL;
    gv_kept_gpu *kept = kept_slot(s);
    /* A context that failed (an error CUDA keeps, a wedged GPU, a half-made session) is not
     * the next session's: it goes with our module, and the next open makes a fresh one. */
    int drop = kept && kept->retained && !healthy;
    if (s->retained || drop) /* a release that hangs is named as such, not the last step */
        gv_progress_stage(s->ctx, "releasing the CUDA context of GPU %d", s->cuda_index);
    if (s->module && (!s->module_kept || drop))
        s->cu->cuModuleUnload(s->module);
    if (drop) {
        kept->module = NULL;
        kept->retained = 0;
        s->cu->cuDevicePrimaryCtxRelease(s->device);
    }
    if (s->pushed) {
        gvcu_context popped;
        s->cu->cuCtxPopCurrent(&popped);
    }
    if (s->retained)
        s->cu->cuDevicePrimaryCtxRelease(s->device);
    s->stream = NULL;
    s->module = NULL;
    s->pushed = s->retained = s->module_kept = s->opened = 0;
    /* Last: the next holder must not see this context as a job on the GPU. */
    if (s->gpu_held)
        gv_gpu_lock_give(s->bus_id);
    s->gpu_held = 0;
}

int gv_session_memory(gv_session *s, uint64_t *free_bytes, uint64_t *total_bytes)
{
    size_t f = 0, t = 0;
    int rc = s->cu->cuMemGetInfo(&f, &t);
    *free_bytes = rc == GVCU_SUCCESS ? f : 0;
    *total_bytes = rc == GVCU_SUCCESS ? t : 0;
    return rc;
}

int gv_session_mark(gv_session *s)
{
    return s->done ? s->cu->cuEventRecord(s->done, s->stream) : GVCU_ERROR_NOT_INITIALIZED;
}

int gv_session_poll(gv_session *s)
{
    int rc = s->cu->cuEventQuery(s->done);
    if (rc == GVCU_SUCCESS)
        gv_progress_beat(s->ctx, s->cuda_index); /* the GPU finished what was queued */
    return rc;
}

int gv_session_sync(gv_session *s, double timeout_s)
{
    int rc = gv_session_mark(s);
    if (rc == GVCU_SUCCESS) {
        double until = gv_now_s() + timeout_s;
        struct timespec nap = {0, 20000}; /* 20 us: far below any step worth timing */
        while ((rc = gv_session_poll(s)) == GVCU_ERROR_NOT_READY) {
            if (gv_now_s() > until) {
                rc = GVCU_ERROR_LAUNCH_TIMEOUT;
                break;
            }
            nanosleep(&nap, NULL);
        }
    }
    return rc;
}

/* A grid that fills the GPU a few times over; the kernels stride through the rest. */
static unsigned grid_for(const gv_session *s, uint64_t items)
{
    uint64_t blocks = (items + 255) / 256;
    uint64_t cap = (uint64_t)(s->sm_count > 0 ? s->sm_count : 16) * 8;
    return (unsigned)(blocks < cap ? (blocks ? blocks : 1) : cap);
}

static int launch(gv_session *s, gvcu_function f, gvcu_stream stream, unsigned grid, unsigned block,
                  void **params)
{
    return s->cu->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, params, NULL);
}

int gv_session_fill_pattern(gv_session *s, gvcu_deviceptr p, uint64_t words, uint64_t seed)
{
    void *params[] = {&p, &words, &seed};
    return launch(s, s->fill_pattern, s->stream, grid_for(s, words), 256, params);
}

int gv_session_check_pattern(gv_session *s, gvcu_deviceptr p, uint64_t words, uint64_t seed,
                             gvcu_deviceptr errors)
{
    void *params[] = {&p, &words, &seed, &errors};
    return launch(s, s->check_pattern, s->stream, grid_for(s, words), 256, params);
}

int gv_session_mem_step(gv_session *s, gvcu_deviceptr p, uint64_t pairs, int expect, int write,
                        uint64_t seed, int descending, gvcu_deviceptr log)
{
    void *params[] = {&p, &pairs, &expect, &write, &seed, &descending, &log};
    return launch(s, s->mem_step, s->stream, grid_for(s, pairs), 256, params);
}

int gv_session_hash_words(gv_session *s, gvcu_deviceptr p, uint64_t words, gvcu_deviceptr sum)
{
    void *params[] = {&p, &words, &sum};
    return launch(s, s->hash_words, s->stream, grid_for(s, words / 2 + 1), 256, params);
}

int gv_session_fill_random(gv_session *s, gvcu_deviceptr p, uint64_t count, int kind, uint64_t seed)
{
    void *params[] = {&p, &count, &kind, &seed};
    return launch(s, s->fill_random, s->stream, grid_for(s, count), 256, params);
}

int gv_session_gate(gv_session *s, gvcu_stream stream, gvcu_deviceptr flag, uint64_t timeout_ns)
{
    void *params[] = {&flag, &timeout_ns};
    return launch(s, s->gate, stream, 1, 1, params);
}

int gv_session_fill_collective(gv_session *s, gvcu_deviceptr p, uint64_t count, int rank,
                               uint64_t seed)
{
    void *params[] = {&p, &count, &rank, &seed};
    return launch(s, s->fill_collective, s->stream, grid_for(s, count), 256, params);
}

int gv_session_check_collective(gv_session *s, gvcu_deviceptr p, uint64_t n, int coll,
                                uint32_t nranks, uint32_t rank, uint64_t count, uint64_t seed,
                                gvcu_deviceptr errors)
{
    void *params[] = {&p, &n, &coll, &nranks, &rank, &count, &seed, &errors};
    return launch(s, s->check_collective, s->stream, grid_for(s, n), 256, params);
}

int gv_session_matmul(gv_session *s, int half, gvcu_deviceptr a, gvcu_deviceptr b, gvcu_deviceptr c,
                      uint32_t m, uint32_t n, uint32_t k)
{
    void *params[] = {&a, &b, &c, &m, &n, &k};
    if (half) { /* a warp per 16 x 16 tile, 8 warps a block */
        uint64_t warps = (uint64_t)(m / 16) * (n / 16);
        return s->cu->cuLaunchKernel(s->matmul_f16, (unsigned)((warps + 7) / 8), 1, 1, 256, 1, 1, 0,
                                     s->stream, params, NULL);
    }
    return s->cu->cuLaunchKernel(s->matmul_f32, m / 16, n / 16, 1, 16, 16, 1, 0, s->stream, params,
                                 NULL);
}
