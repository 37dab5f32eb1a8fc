/* SPDX-License-Identifier: Apache-2.0 */
/* Xid events as NVML reports them while a run waits for them (gv_run_opts.watch_s): the
 * driver's own report of a fault the moment it happens, which a process that cannot read the
 * kernel log (a container without /dev/kmsg or CAP_SYSLOG) would otherwise never see, and
 * which ends the wait at once, so that a loop of passes judges a fault within seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/nvml_backend.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "facts/facts.h"

/* Events that come together (a fault seen by several GPUs, an NVLink's two ends) are read
 * together: after the first, the wait goes on this long at most. */
#define GV_XID_WATCH_GATHER_S 0.5
/* NVML's code for an Xid it cannot name. */
#define GVNV_XID_UNKNOWN 999

typedef struct registered {
    gvnv_device dev;
    const gv_gpu_record *gpu;
} registered;

static void add_event(gv_xid_watch *w, const registered *on, unsigned long long code, double at_s)
{
    gv_xid_event *more = realloc(w->events, (w->count + 1) * sizeof *more);
    if (!more)
        return; /* out of memory: the first events are kept */
    w->events = more;
    gv_xid_event *e = &w->events[w->count++];
    memset(e, 0, sizeof *e);
    snprintf(e->bus, sizeof e->bus, "%s", on->gpu->gpu.pci_bus_id);
    e->link = -1;
    e->from_nvml = 1;
    e->watched_at_s = at_s;
    if (code == 0 || code > 65535 || code == GVNV_XID_UNKNOWN) {
        e->unreadable = 1;
        snprintf(e->text, sizeof e->text,
                 "NVML reported an Xid event whose code it cannot name "
                 "(%llu)",
                 code);
    } else {
        e->xid = (int)code;
        snprintf(e->text, sizeof e->text, "Xid %d reported by NVML %.1f s into the watch", e->xid,
                 at_s);
    }
}

/* Registers each GPU NVML names for Xid events; the count registered. */
static int register_gpus(gv_ctx *ctx, const struct gv_nvml_api *nv, const gv_facts *f,
                         gvnv_event_set set, registered *out, gv_xid_watch *w)
{
    int n = 0;
    char name[48];
    for (size_t i = 0; i < f->gpu_count && n < GV_XID_WATCH_MAX_GPUS; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        gvnv_device dev = NULL;
        unsigned long long types = 0;
        if (g->gpu.nvml_index < 0 || g->gpu.nvml_result != 0)
            continue;
        /* A registration that never returns names its GPU. */
        gv_progress_stage(ctx, "registering NVML GPU %d for Xid events", (int)g->gpu.nvml_index);
        if (nv->device_get_handle_by_index((unsigned)g->gpu.nvml_index, &dev) != GVNV_SUCCESS)
            continue;
        gvnv_return rc = GVNV_ERROR_NOT_SUPPORTED;
        if (nv->device_get_supported_event_types(dev, &types) == GVNV_SUCCESS &&
            (types & GVNV_EVENT_TYPE_XID_CRITICAL_ERROR))
            rc = nv->device_register_events(dev, GVNV_EVENT_TYPE_XID_CRITICAL_ERROR, set);
        if (rc != GVNV_SUCCESS) {
            if (!w->unsupported++)
                snprintf(w->unsupported_why, sizeof w->unsupported_why, "%s: %s", g->gpu.pci_bus_id,
                         gv_nvml_error_name(rc, name, sizeof name));
            continue;
        }
        out[n].dev = dev;
        out[n].gpu = g;
        n++;
    }
    return n;
}

static const registered *of_device(const registered *r, int n, gvnv_device dev)
{
    for (int i = 0; i < n; i++)
        if (r[i].dev == dev)
            return &r[i];
    return NULL;
}

void gv_facts_watch_xids(gv_ctx *ctx, gv_facts *f, double seconds)
{
    gv_xid_watch *w = &f->watch;
    memset(w, 0, sizeof *w);
    w->status = GV_OK;
    if (seconds <= 0)
        return;
    double t0 = gv_now_s(), end = t0 + seconds;
    const struct gv_nvml_api *nv = f->live ? gv_nvml(ctx) : NULL;
    gvnv_event_set set = NULL;
    char name[48];
    gvnv_return rc;
    if (!nv) {
        w->status = gv_err(&w->err, GV_ERR_LIBRARY, "NVML not loaded");
    } else if (!nv->event_set_create || !nv->device_register_events || !nv->event_set_wait ||
               !nv->event_set_free || !nv->device_get_supported_event_types) {
        w->status = gv_err(&w->err, GV_ERR_UNSUPPORTED, "this NVML has no event API");
    } else if ((rc = nv->event_set_create(&set)) != GVNV_SUCCESS) {
        w->status = gv_err(&w->err, GV_ERR_DRIVER, "nvmlEventSetCreate: %s",
                           gv_nvml_error_name(rc, name, sizeof name));
        set = NULL;
    }
    registered regs[GV_XID_WATCH_MAX_GPUS];
    int n = set ? register_gpus(ctx, nv, f, set, regs, w) : 0;
    w->registered = n;
    if (set && !n)
        w->status = gv_err(&w->err, GV_ERR_UNSUPPORTED,
                           "no GPU reports Xid events to NVML (%d GPU(s) cannot; first: %s)",
                           w->unsupported, w->unsupported_why[0] ? w->unsupported_why : "none");
    gv_progress_stage(ctx, "watching %d GPU(s) for Xid events NVML reports, up to %.0f s", n,
                      seconds);
    for (double now = gv_now_s(); n && now < end; now = gv_now_s()) {
        gvnv_event_data d;
        memset(&d, 0, sizeof d);
        double left_ms = (end - now) * 1000.0;
        rc = nv->event_set_wait(set, &d, left_ms < 1 ? 1 : (unsigned)left_ms);
        if (rc == GVNV_ERROR_TIMEOUT)
            continue;
        if (rc != GVNV_SUCCESS) {
            w->status = gv_err(&w->err, GV_ERR_DRIVER, "nvmlEventSetWait: %s",
                               gv_nvml_error_name(rc, name, sizeof name));
            break;
        }
        const registered *on = of_device(regs, n, d.device);
        if (!on || !(d.event_type & GVNV_EVENT_TYPE_XID_CRITICAL_ERROR))
            continue;
        double at = gv_now_s();
        add_event(w, on, d.event_data, at - t0);
        if (end > at + GV_XID_WATCH_GATHER_S)
            end = at + GV_XID_WATCH_GATHER_S;
    }
    /* Nothing to wait on still takes the time asked: a loop of passes keeps its pace. */
    if (!n) {
        double left = end - gv_now_s();
        struct timespec nap = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        if (left > 0)
            nanosleep(&nap, NULL);
    }
    if (set)
        nv->event_set_free(set);
    w->watched_s = gv_now_s() - t0;
}

void gv_xid_watch_free(gv_xid_watch *w)
{
    free(w->events);
    w->events = NULL;
    w->count = 0;
}
