/* SPDX-License-Identifier: Apache-2.0 */
/* gv_mem_test: most of the free VRAM, allocated in chunks and walked by our own kernel
 * (gv_mem_step): own address and complement, moving inversions of a walking bit and of random
 * words, each word compared on the device. Wrong words are located in the tested memory, and the
 * DRAM ECC counters are read around the test, since ECC corrects what the patterns cannot see. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/session.h"
#include "compute/telemetry.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "kernels/gv_random.h"
#include "worker/call.h"

#define PAGE (2ull << 20) /* allocations in whole 2 MiB pages, as the driver maps them */
#define LOG_WORDS (1 + 3 * GV_MEM_LOG)

/* One round: each step reads what the step before wrote, so every word is checked against
 * every pattern; the name says what was being read when a word came back wrong. */
static const struct step {
    int expect, write, descending;
    const char *name;
} steps[] = {
    {GV_MEM_NONE, GV_MEM_ADDRESS, 0, "own address, write"},
    {GV_MEM_ADDRESS, GV_MEM_ADDRESS | GV_MEM_INVERT, 0, "own address, ascending"},
    {GV_MEM_ADDRESS | GV_MEM_INVERT, GV_MEM_WALK, 1, "address complement, descending"},
    {GV_MEM_WALK, GV_MEM_WALK | GV_MEM_INVERT, 0, "walking one, ascending"},
    {GV_MEM_WALK | GV_MEM_INVERT, GV_MEM_WALK, 1, "walking zero, descending"},
    {GV_MEM_WALK, GV_MEM_RANDOM, 0, "walking one, read back"},
    {GV_MEM_RANDOM, GV_MEM_RANDOM | GV_MEM_INVERT, 0, "random, ascending"},
    {GV_MEM_RANDOM | GV_MEM_INVERT, GV_MEM_RANDOM, 1, "random complement, descending"},
    {GV_MEM_RANDOM, GV_MEM_NONE, 0, "random, read back"},
};
#define STEPS (sizeof steps / sizeof *steps)

typedef struct chunk {
    gvcu_deviceptr p;
    uint64_t bytes, offset;
} chunk;

typedef struct memtest {
    gv_session *s;
    const gv_memtest_opts *o;
    gv_memtest_result *r;
    gv_errbuf *err;
    chunk *chunks;
    size_t count;
    uint64_t wanted; /* bytes the fraction asked for */
    gvcu_deviceptr log;
    gvcu_event start, end;
} memtest;

static gv_status check_opts(gv_ctx *ctx, const gv_memtest_opts *o)
{
    if (o->flags)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_memtest_opts.flags 0x%x: must be 0", o->flags);
    if (!(o->fraction > 0 && o->fraction <= 0.99))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_memtest_opts.fraction %g: not in (0, 0.99]",
                       o->fraction);
    if (o->chunk_bytes < PAGE || o->chunk_bytes > (64ull << 30))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_memtest_opts.chunk_bytes %llu: 2 MiB .. 64 GiB",
                       (unsigned long long)o->chunk_bytes);
    if (o->rounds < 1 || o->rounds > 100000)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_memtest_opts.rounds %u: 1 .. 100000",
                       o->rounds);
    if (!(o->duration_s >= 0 && o->duration_s <= 30 * 86400.0))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_memtest_opts.duration_s %g: 0 .. 30 days",
                       o->duration_s);
    return GV_OK;
}

/* Allocates chunks up to the wanted bytes, halving the chunk when the driver refuses one (free
 * memory is fragmented near its end); stops at the first refusal of a single page. */
static gv_status allocate(memtest *m)
{
    const struct gv_cuda_api *cu = m->s->cu;
    m->wanted = (uint64_t)(m->o->fraction * (double)m->r->memory_free) / PAGE * PAGE;
    uint64_t size = m->o->chunk_bytes / PAGE * PAGE, got = 0;
    m->chunks = calloc(m->wanted / PAGE + 1, sizeof *m->chunks);
    if (!m->chunks)
        return gv_err(m->err, GV_ERR_NO_MEMORY, "out of host memory for %llu chunks",
                      (unsigned long long)(m->wanted / PAGE + 1));
    while (got < m->wanted) {
        uint64_t want = m->wanted - got < size ? m->wanted - got : size;
        gvcu_deviceptr p = 0;
        int rc = cu->cuMemAlloc(&p, want);
        if (rc == GVCU_ERROR_OUT_OF_MEMORY && want > PAGE) {
            size = want / 2 / PAGE * PAGE;
            continue;
        }
        if (rc == GVCU_ERROR_OUT_OF_MEMORY)
            break;
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(m->s, m->err, "cuMemAlloc", rc);
        m->chunks[m->count++] = (chunk){p, want, got};
        got += want;
    }
    m->r->bytes_tested = got;
    m->r->chunks = (uint32_t)m->count;
    return GV_OK;
}

/* Where a device address lies in the tested memory. */
static uint64_t offset_of(const memtest *m, uint64_t address)
{
    for (size_t i = 0; i < m->count; i++)
        if (address >= m->chunks[i].p && address - m->chunks[i].p < m->chunks[i].bytes)
            return m->chunks[i].offset + (address - m->chunks[i].p);
    return UINT64_MAX;
}

/* The step's mismatches from the device log into the result; the log is then cleared. */
static int collect(memtest *m, const struct step *st, uint32_t round)
{
    const struct gv_cuda_api *cu = m->s->cu;
    uint64_t log[LOG_WORDS];
    int rc = cu->cuMemcpyDtoH(log, m->log, sizeof log);
    if (rc != GVCU_SUCCESS || log[0] == 0)
        return rc;
    gv_memtest_result *r = m->r;
    for (uint64_t k = 0; k < log[0] && k < GV_MEM_LOG && r->errors_logged < GV_MEMTEST_MAX_ERRORS;
         k++) {
        gv_memtest_error *e = &r->first_errors[r->errors_logged++];
        e->address = log[1 + 3 * k];
        e->offset = offset_of(m, e->address);
        e->expected = log[2 + 3 * k];
        e->read = log[3 + 3 * k];
        e->round = round;
        snprintf(e->step, sizeof e->step, "%s", st->name);
    }
    r->errors += log[0];
    memset(log, 0, sizeof log);
    return cu->cuMemcpyHtoD(m->log, log, sizeof log);
}

/* One step over every chunk, timed on the GPU; mismatches collected. */
static gv_status run_step(memtest *m, const struct step *st, uint32_t round, uint64_t seed)
{
    gv_session *s = m->s;
    const struct gv_cuda_api *cu = s->cu;
    gv_progress_stage(s->ctx, "round %u, %s", round, st->name);
    const char *call = "cuEventRecord";
    int rc = cu->cuEventRecord(m->start, s->stream);
    if (rc == GVCU_SUCCESS)
        call = "gv_mem_step";
    for (size_t i = 0; i < m->count && rc == GVCU_SUCCESS; i++)
        rc = gv_session_mem_step(s, m->chunks[i].p, m->chunks[i].bytes / 16, st->expect, st->write,
                                 seed, st->descending, m->log);
    if (rc == GVCU_SUCCESS) {
        call = "cuEventRecord";
        rc = cu->cuEventRecord(m->end, s->stream);
    }
    if (rc == GVCU_SUCCESS) {
        call = "waiting for the memory test";
        rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S);
    }
    float ms = 0;
    if (rc == GVCU_SUCCESS) {
        call = "cuEventElapsedTime";
        rc = cu->cuEventElapsedTime(&ms, m->start, m->end);
    }
    if (rc == GVCU_SUCCESS) {
        call = "reading the error log";
        rc = collect(m, st, round);
    }
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(s, m->err, call, rc);
    m->r->seconds += ms * 1e-3;
    return GV_OK;
}

static gv_status run_rounds(memtest *m)
{
    gv_session *s = m->s;
    const struct gv_cuda_api *cu = s->cu;
    uint64_t zero[LOG_WORDS] = {0};
    int rc = cu->cuMemAlloc(&m->log, sizeof zero);
    if (rc == GVCU_ERROR_OUT_OF_MEMORY) {
        m->log = 0;
        return GV_OK; /* not even the log fits: no chunk, judged as no memory to test */
    }
    if (rc == GVCU_SUCCESS)
        rc = cu->cuMemcpyHtoD(m->log, zero, sizeof zero);
    if (rc == GVCU_SUCCESS &&
        (rc = cu->cuEventCreate(&m->start, GVCU_EVENT_DEFAULT)) == GVCU_SUCCESS)
        rc = cu->cuEventCreate(&m->end, GVCU_EVENT_DEFAULT);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(s, m->err, "setting up the memory test", rc);
    gv_status st = allocate(m);
    if (st != GV_OK || m->count == 0)
        return st;
    uint64_t per_round = 0;
    for (size_t k = 0; k < STEPS; k++)
        per_round += m->r->bytes_tested * (uint64_t)(!!steps[k].expect + !!steps[k].write);
    double started = gv_now_s();
    for (uint32_t round = 1;
         round <= m->o->rounds || (m->o->duration_s > 0 && gv_now_s() - started < m->o->duration_s);
         round++) {
        for (size_t k = 0; k < STEPS && st == GV_OK; k++) {
            st = run_step(m, &steps[k], round, m->o->seed + round - 1);
            /* Rounds by count are a known amount of work: its pace tells a stall early. */
            if (st == GV_OK && m->o->duration_s <= 0)
                gv_progress_part(s->ctx, s->cuda_index,
                                 (double)((round - 1) * STEPS + k + 1) /
                                     ((double)m->o->rounds * STEPS));
        }
        if (st != GV_OK)
            return st;
        m->r->rounds = round;
        m->r->gbps = m->r->seconds > 0 ? (double)per_round * round / m->r->seconds / 1e9 : 0;
    }
    return GV_OK;
}

static void release(memtest *m)
{
    const struct gv_cuda_api *cu = m->s->cu;
    if (cu && m->log) { /* the log comes first: without it nothing else was allocated */
        gv_session_sync(m->s, GV_SESSION_STEP_TIMEOUT_S);
        for (size_t i = 0; i < m->count; i++)
            cu->cuMemFree(m->chunks[i].p);
        cu->cuMemFree(m->log);
    }
    if (cu && m->start)
        cu->cuEventDestroy(m->start);
    if (cu && m->end)
        cu->cuEventDestroy(m->end);
    free(m->chunks);
}

int gv_memtest_ecc_rose(const gv_memtest_result *r, int uncorrected)
{
    int64_t before = uncorrected ? r->ecc_uncorrected_before : r->ecc_corrected_before;
    int64_t after = uncorrected ? r->ecc_uncorrected_after : r->ecc_corrected_after;
    return before >= 0 && after > before;
}

/* "from 3 to 5" or "unknown". */
static void ecc_text(long long before, long long after, char *out, size_t cap)
{
    if (before < 0 || after < 0)
        snprintf(out, cap, "unknown");
    else if (before == after)
        snprintf(out, cap, "%lld", after);
    else
        snprintf(out, cap, "%lld -> %lld", before, after);
}

static void judge(const memtest *m, gv_memtest_result *r)
{
    char cor[48], unc[48], cover[160] = "";
    ecc_text(r->ecc_corrected_before, r->ecc_corrected_after, cor, sizeof cor);
    ecc_text(r->ecc_uncorrected_before, r->ecc_uncorrected_after, unc, sizeof unc);
    if (r->bytes_tested < m->wanted)
        snprintf(cover, sizeof cover,
                 "; the driver refused more than %.2f GiB of the %.2f GiB "
                 "wanted",
                 r->bytes_tested / GV_GIB, m->wanted / GV_GIB);
    int unc_rose = gv_memtest_ecc_rose(r, 1), cor_rose = gv_memtest_ecc_rose(r, 0);
    if (r->errors) {
        const gv_memtest_error *e = &r->first_errors[0];
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%llu words read back wrong in %.2f GiB; first at offset 0x%llx (address "
                 "0x%llx) in round %u, %s: wrote 0x%016llx, read 0x%016llx (bits 0x%llx); DRAM "
                 "ECC corrected %s, uncorrected %s",
                 (unsigned long long)r->errors, r->bytes_tested / GV_GIB,
                 (unsigned long long)e->offset, (unsigned long long)e->address, e->round, e->step,
                 (unsigned long long)e->expected, (unsigned long long)e->read,
                 (unsigned long long)(e->expected ^ e->read), cor, unc);
    } else if (unc_rose || cor_rose) {
        r->verdict = unc_rose ? GV_FAIL : GV_WARN;
        snprintf(r->message, sizeof r->message,
                 "every word read back right, but DRAM ECC %s errors rose during the test "
                 "(corrected %s, uncorrected %s) over %.2f GiB%s",
                 unc_rose ? "uncorrected" : "corrected", cor, unc, r->bytes_tested / GV_GIB, cover);
    } else {
        r->verdict = GV_PASS;
        snprintf(r->message, sizeof r->message,
                 "%.2f GiB (%.0f%% of %.2f GiB free) in %u chunk%s, %u round%s of %u passes: "
                 "every word read back right at %.0f GB/s read + write; DRAM ECC corrected %s, "
                 "uncorrected %s%s",
                 r->bytes_tested / GV_GIB, 100.0 * r->bytes_tested / (double)r->memory_free,
                 r->memory_free / GV_GIB, r->chunks, r->chunks == 1 ? "" : "s", r->rounds,
                 r->rounds == 1 ? "" : "s", r->steps, r->gbps, cor, unc, cover);
    }
}

/* What crosses to gpuverify-worker: the GPU and the checked options. */
typedef struct memtest_call {
    uint32_t gpu;
    uint32_t reserved0;
    gv_memtest_opts o;
} memtest_call;

static gv_status memtest_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch,
                              void *result)
{
    (void)watch; /* its stages go through gv_progress_stage */
    const memtest_call *c = args;
    gv_status st;
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    r.cuda_index = (int32_t)c->gpu;
    r.steps = (uint32_t)STEPS;
    r.ecc_corrected_before = r.ecc_corrected_after = -1;
    r.ecc_uncorrected_before = r.ecc_uncorrected_after = -1;
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
    memtest m = {.s = &s, .o = &c->o, .r = &r, .err = &err};
    int rc;
    if (st == GV_OK && (rc = gv_session_memory(&s, &r.memory_free, &r.memory_total)) != 0)
        st = gv_session_fail(&s, &err, "cuMemGetInfo", rc);
    long long cor = -1, unc = -1;
    gv_telemetry_dram_ecc(ctx, s.bus_id, &cor, &unc);
    r.ecc_corrected_before = cor, r.ecc_uncorrected_before = unc;
    if (st == GV_OK)
        st = run_rounds(&m);
    release(&m);
    gv_session_close(&s);
    gv_telemetry_dram_ecc(ctx, r.pci_bus_id, &cor, &unc);
    r.ecc_corrected_after = cor, r.ecc_uncorrected_after = unc;
    if (st != GV_OK) {
        /* No usable context, or a CUDA call failed mid-test: a verdict, not an API error. */
        r.verdict = GV_FAIL;
        snprintf(r.message, sizeof r.message, "%s", err.text);
    } else if (r.chunks == 0) {
        r.verdict = GV_FAIL;
        snprintf(r.message, sizeof r.message,
                 "no memory to test: not one 2 MiB page could be allocated with %.0f MiB free "
                 "of %.2f GiB",
                 r.memory_free / (1024.0 * 1024.0), r.memory_total / GV_GIB);
    } else {
        judge(&m, &r);
    }
    *(gv_memtest_result *)result = r;
    return GV_OK;
}

/* Each round within its allowance (GV_DEADLINE_MEM_TEST), and the duration asked for. */
static double memtest_deadline(const gv_ctx *ctx, const void *args)
{
    const gv_memtest_opts *o = &((const memtest_call *)args)->o;
    return gv_call_deadline(ctx, GV_DEADLINE_CUDA_START, GV_DEADLINE_MEM_TEST,
                            o->rounds + (o->duration_s > 0), o->duration_s);
}

static void memtest_prefill(const void *args, void *result)
{
    gv_memtest_result *r = result;
    r->cuda_index = (int32_t)((const memtest_call *)args)->gpu;
    r->steps = (uint32_t)STEPS;
    r->ecc_corrected_before = r->ecc_corrected_after = -1;
    r->ecc_uncorrected_before = r->ecc_uncorrected_after = -1;
}

static void memtest_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    snprintf(out, cap, "gv_mem_test on GPU %u", ((const memtest_call *)args)->gpu);
}

const gv_call_kind gv_call_mem_test =
    GV_CALL_KIND("mem_test", memtest_call, gv_memtest_result, 0, memtest_here, memtest_deadline,
                 memtest_prefill, memtest_describe);

gv_status gv_mem_test(gv_ctx *ctx, uint32_t gpu, const gv_memtest_opts *opts,
                      gv_memtest_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_mem_test: out is NULL");
    static const gv_memtest_opts defaults = GV_MEMTEST_OPTS_INIT;
    memtest_call c = {.gpu = gpu};
    gv_status st;
    if ((st = gv_out_known(ctx, "gv_memtest_result", out, GV_MEMTEST_RESULT_SIZE_V1)) ||
        (st = gv_opts_in(ctx, "gv_memtest_opts", &c.o, sizeof c.o, opts, GV_MEMTEST_OPTS_SIZE_V1,
                         &defaults)) ||
        (st = check_opts(ctx, &c.o)))
        return st;
    gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
    st = gv_call(ctx, &gv_call_mem_test, &c, NULL, NULL, &r);
    return gv_call_out(st, out, &r, sizeof r, GV_MEMTEST_RESULT_SIZE_V1);
}
