/* SPDX-License-Identifier: Apache-2.0 */
/* gv_cuda_check: a CUDA context on one GPU, VRAM written and read back on the device, and the
 * copy bandwidths judged against the PCIe link and the datasheet DRAM bandwidth. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/copy_bw.h"
#include "compute/gpu_specs.h"
#include "compute/session.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "worker/call.h"

#define GV_MAX_BYTES (1ull << 46) /* 64 TiB: beyond any GPU, so a size past it is a mistake */

/* Policy: pinned PCIe copies reach 75-88% of the raw link rate on healthy systems. */
#define COPY_WARN_FRACTION 0.65
#define COPY_FAIL_FRACTION 0.40
#define D2D_WARN_FRACTION 0.50
#define D2D_FAIL_FRACTION 0.25

static gv_status check_opts(gv_ctx *ctx, const gv_cuda_opts *o)
{
    if (o->flags & ~(GV_CUDA_SKIP_ALLOC | GV_CUDA_SKIP_COPY))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cuda_opts.flags 0x%x: unknown bits", o->flags);
    if (o->quick_alloc_bytes < 8 || o->quick_alloc_bytes > GV_MAX_BYTES)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_cuda_opts.quick_alloc_bytes %llu: 8 B .. 64 TiB",
                       (unsigned long long)o->quick_alloc_bytes);
    if (o->alloc_bytes > GV_MAX_BYTES)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cuda_opts.alloc_bytes %llu: above 64 TiB",
                       (unsigned long long)o->alloc_bytes);
    if (o->alloc_bytes == 0 && !(o->alloc_fraction > 0 && o->alloc_fraction <= 1))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cuda_opts.alloc_fraction %g: not in (0, 1]",
                       o->alloc_fraction);
    if (o->copy_bytes < 4096 || o->copy_bytes > (1ull << 40))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cuda_opts.copy_bytes %llu: 4 KiB .. 1 TiB",
                       (unsigned long long)o->copy_bytes);
    if (o->copy_samples < 1 || o->copy_samples > 64 || o->copies_per_sample < 1 ||
        o->copies_per_sample > 1024)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_cuda_opts: copy_samples %u (1..64), copies_per_sample %u (1..1024)",
                       o->copy_samples, o->copies_per_sample);
    return GV_OK;
}

/* Allocates, fills and checks one buffer; counts bad words. GV_OK with *oom set when the
 * allocation itself failed for lack of memory. */
static gv_status vram_pass(gv_session *s, uint64_t bytes, uint64_t seed, uint64_t *bad, int *oom,
                           gv_errbuf *err)
{
    const struct gv_cuda_api *cu = s->cu;
    gvcu_deviceptr buf = 0, counter = 0;
    *oom = 0;
    /* The error counter first: refused like the buffer when another process took the memory
     * in between, and then nothing is left to free. */
    int rc = cu->cuMemAlloc(&counter, sizeof(uint64_t));
    if (rc == GVCU_SUCCESS && (rc = cu->cuMemAlloc(&buf, bytes)) != GVCU_SUCCESS) {
        cu->cuMemFree(counter);
        counter = 0;
    }
    if (rc == GVCU_ERROR_OUT_OF_MEMORY) {
        *oom = 1;
        return GV_OK;
    }
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(s, err, "cuMemAlloc", rc);
    uint64_t zero = 0, count = 0;
    const char *step = "cuMemcpyHtoD";
    if ((rc = cu->cuMemcpyHtoD(counter, &zero, sizeof zero)) == 0 &&
        (step = "gv_fill_pattern", rc = gv_session_fill_pattern(s, buf, bytes / 8, seed)) == 0 &&
        (step = "gv_check_pattern",
         rc = gv_session_check_pattern(s, buf, bytes / 8, seed, counter)) == 0 &&
        (step = "waiting for the VRAM test", rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S)) ==
            0 &&
        (step = "cuMemcpyDtoH", rc = cu->cuMemcpyDtoH(&count, counter, sizeof count)) == 0)
        *bad += count;
    gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S);
    if (counter)
        cu->cuMemFree(counter);
    cu->cuMemFree(buf);
    return rc == GVCU_SUCCESS ? GV_OK : gv_session_fail(s, err, step, rc);
}

/* Free device memory now; 0 when it cannot be read. */
static uint64_t free_now(gv_session *s)
{
    uint64_t free_b, total_b;
    gv_session_memory(s, &free_b, &total_b);
    return free_b;
}

/* The large test's size: the options' bytes, else their fraction of `free_bytes`, in whole
 * 2 MiB pages. */
static uint64_t large_size(const gv_cuda_opts *o, uint64_t free_bytes)
{
    uint64_t want =
        o->alloc_bytes ? o->alloc_bytes : (uint64_t)(o->alloc_fraction * (double)free_bytes);
    want = want / (2u << 20) * (2u << 20);
    return want < 8 ? 8 : want;
}

static gv_status vram_tests(gv_session *s, const gv_cuda_opts *o, gv_cuda_result *r, gv_errbuf *err)
{
    uint64_t bad = 0;
    int oom = 0;
    r->alloc_quick_bytes = o->quick_alloc_bytes / 8 * 8;
    gv_status st = vram_pass(s, r->alloc_quick_bytes, 0x7e57ab1e, &bad, &oom, err);
    if (st != GV_OK)
        return st;
    if (oom) {
        size_t left = free_now(s);
        char now[48] = "";
        if (left)
            snprintf(now, sizeof now, ", %.2f GiB now", left / GV_GIB);
        r->alloc_verdict = GV_FAIL;
        snprintf(r->alloc_message, sizeof r->alloc_message,
                 "the quick %.0f MiB allocation failed: out of memory (%.2f GiB free of %.2f GiB "
                 "at the start%s)",
                 r->alloc_quick_bytes / GV_MIB, r->memory_free / GV_GIB, r->memory_total / GV_GIB,
                 now);
        return GV_OK;
    }
    uint64_t want = large_size(o, r->memory_free);
    r->alloc_bytes = want;
    if ((st = vram_pass(s, want, 0xfeedface, &bad, &oom, err)) != GV_OK)
        return st;
    /* Refused because another process took memory since it was measured (two checks started
     * together, a job starting): the test is repeated once at the share of what is free now,
     * so a shared GPU is still tested and not blamed. */
    char shrunk[128] = "";
    size_t left = oom && !o->alloc_bytes ? free_now(s) : 0;
    if (left < want && left >= r->alloc_quick_bytes) {
        want = r->alloc_bytes = large_size(o, left);
        if ((st = vram_pass(s, want, 0xfeedface, &bad, &oom, err)) != GV_OK)
            return st;
        snprintf(shrunk, sizeof shrunk,
                 "; free memory fell from %.2f to %.2f GiB during the test (another process "
                 "allocated it)",
                 r->memory_free / GV_GIB, left / GV_GIB);
    }
    r->alloc_errors = bad;
    if (oom) {
        /* The context must survive a refused allocation: prove it with a small one. */
        uint64_t again = 0;
        int still = 0;
        st = vram_pass(s, 1u << 20, 0xa11c, &again, &still, err);
        r->alloc_verdict = GV_FAIL;
        snprintf(r->alloc_message, sizeof r->alloc_message,
                 "allocating %.2f GiB failed: out of memory with %.2f GiB free of %.2f GiB; "
                 "the context %s%s",
                 want / GV_GIB, r->memory_free / GV_GIB, r->memory_total / GV_GIB,
                 st == GV_OK && !still && !again ? "is still usable" : "is no longer usable",
                 shrunk);
        return GV_OK;
    }
    if (bad) {
        r->alloc_verdict = GV_FAIL;
        snprintf(r->alloc_message, sizeof r->alloc_message,
                 "%llu of %llu words read back wrong after writing %.0f MiB and %.2f GiB: a VRAM "
                 "or ECC fault",
                 (unsigned long long)bad, (unsigned long long)((r->alloc_quick_bytes + want) / 8),
                 r->alloc_quick_bytes / GV_MIB, want / GV_GIB);
        return GV_OK;
    }
    r->alloc_verdict = GV_PASS;
    snprintf(r->alloc_message, sizeof r->alloc_message,
             "%.0f MiB and %.2f GiB (of %.2f GiB free) written and read back on the device%s",
             r->alloc_quick_bytes / GV_MIB, want / GV_GIB, r->memory_free / GV_GIB, shrunk);
    return GV_OK;
}

/* The link's raw rate now and at its best, from NVML, else sysfs. */
static void link_rates(gv_session *s, gv_cuda_result *r)
{
    gv_link_state l;
    int gen = 0, width = 0, gen_max = 0, width_max = 0;
    if (gv_telemetry_link(s->ctx, s->bus_id, &l) == 0) {
        gen = l.gen_current, width = l.width_current;
        gen_max = l.gen_max, width_max = l.width_max;
    }
    const gv_pci_function *pci = &s->pci;
    if (s->have_pci) {
        if (!gen)
            gen = gv_pcie_gen_of_speed(pci->link_speed_current);
        if (!width)
            width = pci->link_width_current;
        int dev_gen = gv_pcie_gen_of_speed(pci->link_speed_max);
        if (dev_gen && (!gen_max || dev_gen < gen_max))
            gen_max = dev_gen;
        if (pci->link_width_max > 0 && (!width_max || pci->link_width_max < width_max))
            width_max = pci->link_width_max;
        int up_gen = gv_pcie_gen_of_speed(pci->upstream_speed_max);
        if (up_gen && up_gen < gen_max)
            gen_max = up_gen; /* the port above caps what the link can reach */
        if (pci->upstream_width_max > 0 && pci->upstream_width_max < width_max)
            width_max = pci->upstream_width_max;
    }
    r->link_current_gbps = gv_pcie_raw_gbps(gen, width);
    r->link_max_gbps = gv_pcie_raw_gbps(gen_max, width_max);
}

/* share: how the DRAM figure was scaled to a part of the GPU, "" for the whole GPU. */
static void judge_copies(gv_cuda_result *r, const gv_copy_figures *f, const char *share)
{
    char *m = r->copy_message;
    size_t cap = sizeof r->copy_message;
    if (f->bad_words) {
        r->copy_verdict = GV_FAIL;
        snprintf(m, cap, "%llu words arrived wrong after the copies (H2D %.1f, D2H %.1f GB/s)",
                 (unsigned long long)f->bad_words, r->h2d_gbps, r->d2h_gbps);
        return;
    }
    double slow = r->h2d_gbps < r->d2h_gbps ? r->h2d_gbps : r->d2h_gbps;
    r->copy_verdict = GV_PASS;
    if (r->link_max_gbps > 0) {
        double frac = slow / r->link_max_gbps;
        if (frac < COPY_FAIL_FRACTION)
            r->copy_verdict = GV_FAIL;
        else if (frac < COPY_WARN_FRACTION)
            r->copy_verdict = GV_WARN;
        snprintf(m, cap,
                 "pinned H2D %.1f GB/s, D2H %.1f GB/s = %.0f%% of the link's %.1f GB/s "
                 "(now %.1f); D2D %.0f GB/s",
                 r->h2d_gbps, r->d2h_gbps, 100 * frac, r->link_max_gbps, r->link_current_gbps,
                 r->d2d_gbps);
    } else {
        snprintf(m, cap,
                 "pinned H2D %.1f GB/s, D2H %.1f GB/s (link rate unknown: not judged); "
                 "D2D %.0f GB/s",
                 r->h2d_gbps, r->d2h_gbps, r->d2d_gbps);
    }
    if (r->memory_bw_gbps > 0) {
        double frac = r->d2d_gbps / r->memory_bw_gbps;
        int v = frac < D2D_FAIL_FRACTION ? GV_FAIL : frac < D2D_WARN_FRACTION ? GV_WARN : GV_PASS;
        if (v > r->copy_verdict)
            r->copy_verdict = v;
        size_t used = strlen(m);
        snprintf(m + used, cap - used, " = %.0f%% of %.0f GB/s DRAM%s", 100 * frac,
                 r->memory_bw_gbps, share);
    }
}

static gv_status copy_tests(gv_session *s, const gv_cuda_opts *o, gv_cuda_result *r, gv_errbuf *err)
{
    r->numa_node = s->have_pci ? s->pci.numa_node : -1;
    gv_copy_figures f;
    gv_status st = gv_copy_bandwidth(s, s->have_pci ? s->pci.local_cpus : "", r->numa_node,
                                     o->copy_bytes, o->copy_samples, o->copies_per_sample, &f, err);
    if (st != GV_OK)
        return st;
    r->h2d_gbps = f.h2d_gbps;
    r->d2h_gbps = f.d2h_gbps;
    r->d2d_gbps = f.d2d_gbps;
    link_rates(s, r); /* right after the copies, while the link is up */
    r->memory_bw_gbps = gv_memory_bandwidth_gbps(s->pci_device_id, s->sm_count);
    char share[64] = "";
    int part_sms = gv_part_sms(s->pci_device_id);
    if (s->sm_count > 0 && s->sm_count < part_sms) /* a MIG instance */
        snprintf(share, sizeof share, " (this device's %d/%d SMs' share)", s->sm_count, part_sms);
    judge_copies(r, &f, share);
    return GV_OK;
}

void gv_cuda_context_message(const gv_cuda_result *r, char *out, size_t cap)
{
    snprintf(out, cap, "CUDA context on %s (%s) in %.0f ms; %.2f GiB free", r->name, r->pci_bus_id,
             1e3 * r->context_s, r->memory_free / GV_GIB);
}

/* What crosses to gpuverify-worker: the GPU and the checked options. */
typedef struct cuda_call {
    uint32_t gpu;
    uint32_t reserved0;
    gv_cuda_opts o;
} cuda_call;

static gv_status cuda_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    (void)watch; /* its stages go through gv_progress_stage */
    const cuda_call *c = args;
    gv_status st;
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    r.cuda_index = (int32_t)c->gpu;
    r.numa_node = -1;
    r.alloc_verdict = r.copy_verdict = GV_SKIP;
    gv_session s;
    gv_errbuf err = {""};
    gv_progress_stage(ctx, "CUDA context");
    st = gv_session_open(ctx, c->gpu, &s, &err);
    if (st == GV_ERR_NOT_FOUND || st == GV_ERR_INTERNAL || st == GV_ERR_BUSY) {
        gv_session_close(&s);
        return gv_fail(ctx, st, "%s", err.text);
    }
    snprintf(r.name, sizeof r.name, "%s", s.name);
    snprintf(r.pci_bus_id, sizeof r.pci_bus_id, "%s", s.bus_id);
    r.context_s = s.context_s;
    int rc;
    if (st == GV_OK && (rc = gv_session_memory(&s, &r.memory_free, &r.memory_total)) != 0)
        st = gv_session_fail(&s, &err, "cuMemGetInfo", rc);
    /* Copies first: right after a large allocation is freed, the driver scrubs it with the
     * copy engines and H2D runs at half speed (measured on H200, bench/results). */
    /* A CUDA call that fails mid-test is that part's FAIL, with the call named; a part left
     * after it says why it did not run (never a SKIP with nothing to say). */
    if (st == GV_OK && !(c->o.flags & GV_CUDA_SKIP_COPY))
        gv_progress_stage(ctx, "copies between pinned host memory and the GPU");
    if (st == GV_OK && !(c->o.flags & GV_CUDA_SKIP_COPY) &&
        (st = copy_tests(&s, &c->o, &r, &err)) != GV_OK) {
        /* Held off the host's links: not measured, and the VRAM test still runs. */
        r.copy_verdict = st == GV_ERR_BUSY ? GV_ERROR : GV_FAIL;
        snprintf(r.copy_message, sizeof r.copy_message, "%s", err.text);
        if (st == GV_ERR_BUSY)
            st = GV_OK, err.text[0] = '\0';
        else if (!(c->o.flags & GV_CUDA_SKIP_ALLOC))
            snprintf(r.alloc_message, sizeof r.alloc_message,
                     "not run: the copy test failed first");
    }
    if (st == GV_OK && !(c->o.flags & GV_CUDA_SKIP_ALLOC))
        gv_progress_stage(ctx, "VRAM pattern test");
    if (st == GV_OK && !(c->o.flags & GV_CUDA_SKIP_ALLOC) &&
        (st = vram_tests(&s, &c->o, &r, &err)) != GV_OK) {
        r.alloc_verdict = GV_FAIL;
        snprintf(r.alloc_message, sizeof r.alloc_message, "%s", err.text);
    }
    gv_session_close(&s);
    if (st != GV_OK) {
        /* No usable context, or a CUDA call failed mid-test: a verdict, not an API error. */
        r.verdict = GV_FAIL;
        snprintf(r.message, sizeof r.message, "%s", err.text);
    } else {
        r.verdict = gv_verdict_worse(r.alloc_verdict, r.copy_verdict);
        if (r.verdict == GV_SKIP)
            r.verdict = GV_PASS;
        gv_cuda_context_message(&r, r.message, sizeof r.message);
    }
    *(gv_cuda_result *)result = r;
    return GV_OK;
}

static double cuda_deadline(const gv_ctx *ctx, const void *args)
{
    (void)args;
    return gv_call_deadline(ctx, GV_DEADLINE_CUDA_START, GV_DEADLINE_CUDA_CHECK, 1, 0);
}

static void cuda_prefill(const void *args, void *result)
{
    gv_cuda_result *r = result;
    r->cuda_index = (int32_t)((const cuda_call *)args)->gpu;
    r->numa_node = -1;
    r->alloc_verdict = r->copy_verdict = GV_SKIP;
}

static void cuda_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    snprintf(out, cap, "gv_cuda_check on GPU %u", ((const cuda_call *)args)->gpu);
}

const gv_call_kind gv_call_cuda_check =
    GV_CALL_KIND("cuda_check", cuda_call, gv_cuda_result, 0, cuda_here, cuda_deadline, cuda_prefill,
                 cuda_describe);

gv_status gv_cuda_check(gv_ctx *ctx, uint32_t gpu, const gv_cuda_opts *opts, gv_cuda_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_cuda_check: out is NULL");
    static const gv_cuda_opts defaults = GV_CUDA_OPTS_INIT;
    cuda_call c = {.gpu = gpu};
    gv_status st;
    if ((st = gv_out_known(ctx, "gv_cuda_result", out, GV_CUDA_RESULT_SIZE_V1)) ||
        (st = gv_opts_in(ctx, "gv_cuda_opts", &c.o, sizeof c.o, opts, GV_CUDA_OPTS_SIZE_V1,
                         &defaults)) ||
        (st = check_opts(ctx, &c.o)))
        return st;
    gv_cuda_result r = GV_CUDA_RESULT_INIT;
    st = gv_call(ctx, &gv_call_cuda_check, &c, NULL, NULL, &r);
    return gv_call_out(st, out, &r, sizeof r, GV_CUDA_RESULT_SIZE_V1);
}
