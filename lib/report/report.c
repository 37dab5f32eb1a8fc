/* SPDX-License-Identifier: Apache-2.0 */
/* Building reports and the public accessors on them. */
#include "report/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/context.h"
#include "core/parse.h"
#include "core/sizes.h"
#include "core/util.h"

/* Every text a row gets is formatted here and cleaned on its way in: checks copy values read
 * from outside (files, the environment) into their messages, and one control byte among them
 * would give a one-line output (--npd, gv_report_line) a second line or a terminal escape. */
static void put_clean(char *field, size_t cap, const char *fmt, va_list ap)
{
    char raw[1024];
    vsnprintf(raw, sizeof raw, fmt, ap);
    gv_text_clean(field, cap, raw);
}

static int by_index(const void *a, const void *b)
{
    uint32_t x = ((const gv_gpu *)a)->index, y = ((const gv_gpu *)b)->index;
    return (x > y) - (x < y);
}

gv_report *gv_report_new(const gv_facts *f)
{
    gv_report *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->facts_known = 1;
    r->mark = gv_now_s(); /* not 0: a first row timed from it would count the uptime */
    gv_facts_driver_info(f, &r->driver);
    snprintf(r->sysroot, sizeof r->sysroot, "%s", f->sysroot);
    snprintf(r->hostname, sizeof r->hostname, "%s", f->hostname);
    /* The inventory is the node's: the GPUs set apart keep their place (gv_gpu.index). */
    size_t n = f->gpu_count + f->other_count;
    if (n) {
        r->gpus = calloc(n, sizeof *r->gpus);
        if (!r->gpus) {
            free(r);
            return NULL;
        }
        for (size_t i = 0; i < f->gpu_count; i++)
            r->gpus[i] = f->gpus[i].gpu;
        for (size_t i = 0; i < f->other_count; i++) {
            r->gpus[f->gpu_count + i] = f->others[i].gpu;
            r->gpus[f->gpu_count + i].inaccessible = 1;
        }
        qsort(r->gpus, n, sizeof *r->gpus, by_index);
        r->gpu_count = n;
    }
    return r;
}

void gv_report_stamp(gv_report *r, const char *level, double budget_s, long long started_unix)
{
    time_t wall = (time_t)started_unix;
    struct tm tm;
    if (gmtime_r(&wall, &tm))
        strftime(r->started_at, sizeof r->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->started_unix = started_unix;
    snprintf(r->level, sizeof r->level, "%s", level);
    r->budget_s = budget_s;
}

gv_report *gv_report_blank(const gv_ctx *ctx)
{
    gv_facts *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    snprintf(f->sysroot, sizeof f->sysroot, "%s", ctx->sysroot);
    f->nvidia_loaded = f->nouveau_loaded = -1;
    f->nvml_init = f->cuda_init = -1;
    f->nvml_cuda_version = f->cuda_driver_version = -1;
    f->pci_count = f->nvml_count = f->cuda_count = -1;
    f->nvswitch_count = f->nvswitch_device = -1;
    f->nvml_lib.state = f->cuda_lib.state = GV_LIBSTATE_NOT_QUERIED;
    gv_report *r = gv_report_new(f);
    free(f);
    if (r)
        r->facts_known = 0; /* until the worker's facts come */
    return r;
}

void gv_report_flush(gv_report *r)
{
    double now = gv_now_s();
    if (r->flushed < r->count) {
        /* A row whose maker set its time (a check over several GPUs at once, the row of a
         * stopped worker) keeps it; the others share the time since the mark. */
        size_t unset = 0;
        for (size_t k = r->flushed; k < r->count; k++)
            unset += !(r->results[k].duration_s > 0);
        double each = unset ? (now - r->mark) / (double)unset : 0;
        for (size_t k = r->flushed; k < r->count; k++) {
            if (r->finalize)
                r->finalize(r->finalize_user, &r->results[k]);
            if (!(r->results[k].duration_s > 0))
                r->results[k].duration_s = each;
            if (r->sink)
                r->sink(r->sink_user, &r->results[k]);
        }
        r->flushed = r->count;
    }
    r->mark = now;
}

void gv_report_settle(gv_report *r)
{
    for (size_t k = r->flushed; k < r->count; k++) {
        if (r->finalize)
            r->finalize(r->finalize_user, &r->results[k]);
        if (r->sink)
            r->sink(r->sink_user, &r->results[k]);
    }
    r->flushed = r->count;
}

void gv_report_delegate(gv_report *r, const char *judge)
{
    for (size_t i = 0; i < r->delegated_count; i++)
        if (!strcmp(r->delegated[i], judge))
            return;
    if (r->delegated_count < sizeof r->delegated / sizeof r->delegated[0])
        snprintf(r->delegated[r->delegated_count++], sizeof r->delegated[0], "%s", judge);
}

void gv_report_begin_rows(gv_report *r)
{
    gv_report_flush(r);
}

gv_check_result *gv_report_add(gv_report *r, const char *id, const char *subject, int verdict,
                               const char *fmt, ...)
{
    if (r->flushed < r->count)
        gv_report_flush(r);
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        gv_check_result *grown = realloc(r->results, cap * sizeof *grown);
        if (!grown) {
            r->out_of_memory = 1;
            return NULL;
        }
        r->results = grown;
        r->cap = cap;
    }
    gv_check_result *res = &r->results[r->count++];
    memset(res, 0, sizeof *res);
    res->struct_size = sizeof *res;
    res->verdict = verdict;
    res->value = NAN;
    snprintf(res->id, sizeof res->id, "%s", id);
    gv_text_clean(res->subject, sizeof res->subject, subject);
    va_list ap;
    va_start(ap, fmt);
    put_clean(res->message, sizeof res->message, fmt, ap);
    va_end(ap);
    return res;
}

void gv_result_measured(gv_check_result *res, double value, const char *unit, const char *fmt, ...)
{
    if (!res)
        return;
    res->value = value;
    snprintf(res->unit, sizeof res->unit, "%s", unit ? unit : "");
    va_list ap;
    va_start(ap, fmt);
    put_clean(res->measured, sizeof res->measured, fmt, ap);
    va_end(ap);
}

void gv_result_expected(gv_check_result *res, const char *source, const char *fmt, ...)
{
    if (!res)
        return;
    snprintf(res->expected_source, sizeof res->expected_source, "%s", source);
    va_list ap;
    va_start(ap, fmt);
    put_clean(res->expected, sizeof res->expected, fmt, ap);
    va_end(ap);
}

void gv_result_remedy(gv_check_result *res, const char *fmt, ...)
{
    if (!res)
        return;
    va_list ap;
    va_start(ap, fmt);
    put_clean(res->remediation, sizeof res->remediation, fmt, ap);
    va_end(ap);
}

void gv_result_action(gv_check_result *res, int32_t action)
{
    if (res)
        res->action = action;
}

void gv_result_fingerprint(gv_check_result *res, const char *hash, const char *key)
{
    if (!res)
        return;
    snprintf(res->fingerprint, sizeof res->fingerprint, "%s", hash);
    snprintf(res->fingerprint_key, sizeof res->fingerprint_key, "%s", key);
}

void gv_report_free(gv_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->series_count; i++)
        free(r->series[i].samples);
    free(r->series);
    for (size_t i = 0; i < r->counters_count; i++)
        free(r->counters[i].items);
    free(r->counters);
    free(r->results);
    free(r->gpus);
    free(r);
}

uint32_t gv_report_count(const gv_report *r)
{
    return r ? (uint32_t)r->count : 0;
}

gv_status gv_report_result(const gv_report *r, uint32_t index, gv_check_result *out)
{
    if (!r || !out)
        return GV_ERR_INVALID_ARG;
    if (index >= r->count)
        return GV_ERR_NOT_FOUND;
    return gv_copy_out(out, &r->results[index], sizeof *out, GV_CHECK_RESULT_SIZE_V1);
}

int32_t gv_report_verdict(const gv_report *r)
{
    int32_t worst = GV_PASS; /* SKIPs count as PASS */
    for (size_t i = 0; r && i < r->count; i++)
        worst = gv_verdict_worse(worst, r->results[i].verdict);
    return worst;
}

int32_t gv_report_action(const gv_report *r)
{
    int32_t strongest = GV_ACTION_NONE;
    for (size_t i = 0; r && i < r->count; i++)
        if (r->results[i].action > strongest && r->results[i].action <= GV_ACTION_HW_INSPECT)
            strongest = r->results[i].action;
    return strongest;
}

int32_t gv_action_named(const char *name)
{
    for (int32_t a = GV_ACTION_NONE; name && a <= GV_ACTION_HW_INSPECT; a++)
        if (strcmp(name, gv_action_name(a)) == 0)
            return a;
    return -1;
}

gv_status gv_report_driver(const gv_report *r, gv_driver_info *out)
{
    if (!r || !out)
        return GV_ERR_INVALID_ARG;
    return gv_copy_out(out, &r->driver, sizeof r->driver, GV_DRIVER_INFO_SIZE_V1);
}

uint32_t gv_report_gpu_count(const gv_report *r)
{
    return r ? (uint32_t)r->gpu_count : 0;
}

gv_status gv_report_gpu(const gv_report *r, uint32_t index, gv_gpu *out)
{
    if (!r || !out)
        return GV_ERR_INVALID_ARG;
    if (index >= r->gpu_count)
        return GV_ERR_NOT_FOUND;
    return gv_copy_out(out, &r->gpus[index], sizeof *out, GV_GPU_SIZE_V1);
}
