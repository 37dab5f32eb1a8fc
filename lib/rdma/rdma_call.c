/* SPDX-License-Identifier: Apache-2.0 */
/* gv_rdma_status as a call in gpuverify-worker (worker/call.h): libibverbs opens every RDMA
 * device and asks its firmware about the ports, and a NIC whose firmware stopped answering
 * keeps that call waiting for as long as the kernel's command timeout, or for ever; in the
 * worker the call ends at its deadline instead.
 *
 * The report crosses back as records, one module, device, port, GID or setting each, in the
 * order the report holds them; the caller appends them and checks the counts against the
 * summary that comes last. In the caller's own process the same records rebuild it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/context.h"
#include "core/sizes.h"
#include "rdma/rdma.h"
#include "worker/call.h"

/* What the call returns besides its records; verdict and message are where the caller writes
 * a timeout or a crash (call.h). */
typedef struct rdma_result {
    uint32_t struct_size;
    int32_t verdict;
    char message[512];
    gv_rdma_info info;
} rdma_result;

enum { RECORD_MODULE, RECORD_DEVICE, RECORD_PORT, RECORD_GID, RECORD_SETTING, RECORD_KINDS };

typedef struct rdma_record {
    int32_t what; /* RECORD_* */
    uint32_t reserved;
    union {
        gv_rdma_module module;
        gv_rdma_device device;
        gv_rdma_port port;
        gv_rdma_gid gid;
        gv_rdma_setting setting;
    } u;
} rdma_record;

/* Where records of each kind live in a report. */
typedef struct record_array {
    void **items;
    size_t *count, *cap;
    size_t size;
} record_array;

static record_array array_of(gv_rdma_report *r, int what)
{
    switch (what) {
    case RECORD_MODULE:
        return (record_array){(void **)&r->modules, &r->module_count, &r->module_cap,
                              sizeof *r->modules};
    case RECORD_DEVICE:
        return (record_array){(void **)&r->devices, &r->device_count, &r->device_cap,
                              sizeof *r->devices};
    case RECORD_PORT:
        return (record_array){(void **)&r->ports, &r->port_count, &r->port_cap, sizeof *r->ports};
    case RECORD_GID:
        return (record_array){(void **)&r->gids, &r->gid_count, &r->gid_cap, sizeof *r->gids};
    default:
        return (record_array){(void **)&r->settings, &r->setting_count, &r->setting_cap,
                              sizeof *r->settings};
    }
}

static gv_status rdma_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    gv_rdma_report *r = NULL;
    gv_status s = gv_rdma_build(ctx, *(const uint32_t *)args, &r);
    if (s != GV_OK)
        return s;
    ((rdma_result *)result)->info = r->info;
    rdma_record rec;
    for (int what = 0; what < RECORD_KINDS; what++) {
        record_array a = array_of(r, what);
        for (size_t i = 0; i < *a.count; i++) {
            memset(&rec, 0, sizeof rec); /* every byte crosses to the caller */
            rec.what = what;
            memcpy(&rec.u, (const char *)*a.items + i * a.size, a.size);
            watch->sample(watch->user, &rec);
        }
    }
    gv_rdma_free(r);
    return GV_OK;
}

static double rdma_deadline(const gv_ctx *ctx, const void *args)
{
    (void)args;
    return gv_call_deadline(ctx, 0, GV_DEADLINE_RDMA_STATUS, 1, 0);
}

static void rdma_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)args;
    (void)result;
    snprintf(out, cap, "gv_rdma_status");
}

const gv_call_kind gv_call_rdma_status =
    GV_CALL_KIND("rdma_status", uint32_t, rdma_result, sizeof(rdma_record), rdma_here,
                 rdma_deadline, NULL, rdma_describe);

/* The report the records rebuild; `broken` once one did not fit. */
typedef struct rebuild {
    gv_rdma_report *r;
    int broken;
} rebuild;

static void take_record(void *user, const void *sample)
{
    rebuild *rb = user;
    const rdma_record *rec = sample;
    if (rb->broken || rec->what < 0 || rec->what >= RECORD_KINDS) {
        rb->broken = 1;
        return;
    }
    record_array a = array_of(rb->r, rec->what);
    void *item = gv_rdma_grow(rb->r, a.items, a.count, a.cap, a.size);
    if (item)
        memcpy(item, &rec->u, a.size);
}

/* Whether the records that came are the ones the summary counts, each pointing inside the
 * report (a device's ports). */
static int whole(const gv_rdma_report *r)
{
    const gv_rdma_info *i = &r->info;
    if (r->module_count != i->module_count || r->device_count != i->device_count ||
        r->port_count != i->port_count || r->gid_count != i->gid_count ||
        r->setting_count != i->setting_count)
        return 0;
    for (size_t d = 0; d < r->device_count; d++)
        if (r->devices[d].first_port + (size_t)r->devices[d].port_count > r->port_count)
            return 0;
    return 1;
}

gv_status gv_rdma_status(gv_ctx *ctx, const gv_rdma_opts *opts, gv_rdma_report **out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_rdma_status: out is NULL");
    *out = NULL;
    static const gv_rdma_opts defaults = GV_RDMA_OPTS_INIT;
    gv_rdma_opts o = defaults;
    if (opts) {
        if (gv_copy_in(&o, sizeof o, opts, GV_RDMA_OPTS_SIZE_V1, &defaults) != GV_OK)
            return gv_fail(ctx, GV_ERR_VERSION, "gv_rdma_opts.struct_size %u is not a valid layout",
                           (unsigned)opts->struct_size);
        if (o.flags & ~(GV_RDMA_IGNORE_ENVIRONMENT | GV_RDMA_NO_VERBS))
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_rdma_opts.flags 0x%x: unknown bits",
                           o.flags);
    }
    rebuild rb = {calloc(1, sizeof *rb.r), 0};
    if (!rb.r)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "gv_rdma_status: out of memory");
    rdma_result res = {.struct_size = sizeof res};
    gv_status s = gv_call(ctx, &gv_call_rdma_status, &o.flags, take_record, &rb, &res);
    rb.r->info = res.info;
    if (s == GV_OK && rb.r->out_of_memory)
        s = gv_fail(ctx, GV_ERR_NO_MEMORY, "gv_rdma_status: out of memory");
    else if (s == GV_OK && (rb.broken || !whole(rb.r)))
        s = gv_fail(ctx, GV_ERR_DRIVER,
                    "gv_rdma_status: the records that came back do not make the report their "
                    "summary counts (a mismatched gpuverify-worker)");
    if (s != GV_OK) {
        gv_rdma_free(rb.r);
        return s;
    }
    *out = rb.r;
    return GV_OK;
}
