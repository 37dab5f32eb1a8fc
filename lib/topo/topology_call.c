/* SPDX-License-Identifier: Apache-2.0 */
/* gv_topology as a call in gpuverify-worker (worker/call.h): live discovery runs hwloc over
 * sysfs and nvmlInit, either of which a wedged driver can stall, and hwloc 2.9 crashes on some
 * malformed XML files; in the worker a stall ends at the call's deadline and a crash is the
 * worker's.
 *
 * The topology crosses back as records, one device or one link per sample, each carrying the
 * device count; the caller rebuilds the object from them and checks that every record came.
 * In the caller's own process the same records rebuild it, so both places share one path. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/context.h"
#include "core/sizes.h"
#include "topo/topology.h"
#include "worker/call.h"

typedef struct topo_args {
    char xml[PATH_MAX]; /* "" live */
    int32_t gdr_level;  /* enum gv_path, resolved by the caller (its environment) */
} topo_args;

/* What the call returns besides its records; verdict and message are where the caller writes
 * a timeout or a crash (call.h). */
typedef struct topo_result {
    uint32_t struct_size;
    int32_t verdict;
    char message[512];
    gv_topo_info info;
    uint32_t devices;
} topo_result;

enum { RECORD_DEVICE = 1, RECORD_LINK = 2 };

typedef struct topo_record {
    int32_t what;   /* RECORD_* */
    uint32_t count; /* devices in the topology */
    uint32_t a, b;  /* the device (a), or the link's two devices */
    union {
        gv_topo_device device;
        gv_topo_link link;
    } u;
} topo_record;

static gv_status topo_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    const topo_args *a = args;
    topo_result *r = result;
    gv_topo *t = NULL;
    gv_status s = gv_topo_build(ctx, a->xml[0] ? a->xml : NULL, a->gdr_level, NULL, &t);
    if (s != GV_OK)
        return s;
    r->info = t->info;
    r->devices = (uint32_t)t->count;
    topo_record rec;
    memset(&rec, 0, sizeof rec); /* every byte crosses to the caller */
    rec.count = r->devices;
    rec.what = RECORD_DEVICE;
    for (size_t i = 0; i < t->count; i++) {
        rec.a = (uint32_t)i;
        rec.u.device = t->devices[i];
        watch->sample(watch->user, &rec);
    }
    memset(&rec.u, 0, sizeof rec.u);
    rec.what = RECORD_LINK;
    for (size_t i = 0; i < t->count * t->count; i++) {
        rec.a = (uint32_t)(i / t->count);
        rec.b = (uint32_t)(i % t->count);
        rec.u.link = t->links[i];
        watch->sample(watch->user, &rec);
    }
    gv_topo_free(t);
    return GV_OK;
}

static double topo_deadline(const gv_ctx *ctx, const void *args)
{
    const topo_args *a = args;
    return gv_call_deadline(ctx, a->xml[0] ? 0 : GV_DEADLINE_NVML_START, GV_DEADLINE_TOPOLOGY, 1,
                            0);
}

static void topo_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)result;
    const topo_args *a = args;
    if (a->xml[0])
        snprintf(out, cap, "gv_topology on %s", a->xml);
    else
        snprintf(out, cap, "gv_topology of this machine");
}

const gv_call_kind gv_call_topology =
    GV_CALL_KIND("topology", topo_args, topo_result, sizeof(topo_record), topo_here, topo_deadline,
                 NULL, topo_describe);

/* The topology the records rebuild; `broken` once one did not fit. */
typedef struct rebuild {
    gv_topo *t;
    unsigned char *seen; /* per device, then per link */
    size_t seen_count;
    int broken;
} rebuild;

static int start(rebuild *rb, uint32_t count)
{
    if (count > 1024) /* beyond any machine: a record that is not one */
        return -1;
    rb->t = calloc(1, sizeof *rb->t);
    size_t n = count ? count : 1;
    if (rb->t) {
        rb->t->count = count;
        rb->t->devices = calloc(n, sizeof *rb->t->devices);
        rb->t->links = calloc(n * n, sizeof *rb->t->links);
    }
    rb->seen = calloc(count + (size_t)count * count + 1, 1);
    if (!rb->t || !rb->t->devices || !rb->t->links || !rb->seen)
        return -1;
    return 0;
}

static void take_record(void *user, const void *sample)
{
    rebuild *rb = user;
    const topo_record *rec = sample;
    if (rb->broken)
        return;
    if (!rb->t && start(rb, rec->count) != 0) {
        rb->broken = 1;
        return;
    }
    size_t n = rb->t->count, slot;
    if (rec->count != n || rec->a >= n || (rec->what == RECORD_LINK && rec->b >= n)) {
        rb->broken = 1;
        return;
    }
    if (rec->what == RECORD_DEVICE) {
        slot = rec->a;
        rb->t->devices[rec->a] = rec->u.device;
    } else if (rec->what == RECORD_LINK) {
        slot = n + (size_t)rec->a * n + rec->b;
        rb->t->links[(size_t)rec->a * n + rec->b] = rec->u.link;
    } else {
        rb->broken = 1;
        return;
    }
    rb->seen_count += !rb->seen[slot];
    rb->seen[slot] = 1;
}

gv_status gv_topology(gv_ctx *ctx, const gv_topo_opts *opts, gv_topo **out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_topology: out is NULL");
    *out = NULL;
    static const gv_topo_opts defaults = GV_TOPO_OPTS_INIT;
    gv_topo_opts o = defaults;
    if (opts) {
        gv_status s = gv_copy_in(&o, sizeof o, opts, GV_TOPO_OPTS_SIZE_V1, &defaults);
        if (s != GV_OK)
            return gv_fail(ctx, s, "gv_topo_opts.struct_size %u is not a valid layout",
                           (unsigned)opts->struct_size);
        if (o.flags)
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_topo_opts.flags 0x%x: none are defined",
                           o.flags);
    }
    topo_args a = {0};
    gv_status s = gv_topo_gdr_level(ctx, o.gdr_level, &a.gdr_level);
    if (s != GV_OK)
        return s;
    if (o.xml_path && (!o.xml_path[0] || strlen(o.xml_path) >= sizeof a.xml))
        return gv_fail(ctx, o.xml_path[0] ? GV_ERR_INVALID_ARG : GV_ERR_IO, "topology XML path %s",
                       o.xml_path[0] ? "too long" : "is empty");
    if (o.xml_path)
        snprintf(a.xml, sizeof a.xml, "%s", o.xml_path);
    topo_result r = {.struct_size = sizeof r};
    rebuild rb = {0};
    s = gv_call(ctx, &gv_call_topology, &a, take_record, &rb, &r);
    if (s == GV_OK && !rb.t && !rb.broken && r.devices == 0 && start(&rb, 0) != 0)
        s = gv_fail(ctx, GV_ERR_NO_MEMORY, "gv_topology: out of memory");
    else if (s == GV_OK && (rb.broken || !rb.t || rb.t->count != r.devices ||
                            rb.seen_count != r.devices + (size_t)r.devices * r.devices))
        s = gv_fail(ctx, GV_ERR_DRIVER,
                    "gv_topology: %s of %u devices and their links came back whole (a "
                    "mismatched gpuverify-worker, or out of memory)",
                    rb.broken ? "not every record" : "not all", r.devices);
    else if (s == GV_ERR_DRIVER && a.xml[0]) {
        /* The worker died reading the file: hwloc crashed on it (call.h says how). */
        char why[512];
        snprintf(why, sizeof why, "%s", gv_ctx_last_error(ctx));
        s = gv_fail(ctx, GV_ERR_PARSE, "not a topology hwloc can load: %s", why);
    }
    free(rb.seen);
    if (s != GV_OK) {
        gv_topo_free(rb.t);
        return s;
    }
    rb.t->info = r.info;
    *out = rb.t;
    return GV_OK;
}
