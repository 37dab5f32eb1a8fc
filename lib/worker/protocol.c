/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's command line and the fields of its events, as every client of
 * gpuverify-worker writes and reads them. */
#include "worker/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"

const char *const gv_worker_library_flags[GV_LIBRARY_KINDS] = {
    "--cuda-library",  "--nvml-library", "--cublaslt-library",
    "--cudnn-library", "--nccl-library", "--ibverbs-library"};

void gv_argv_add(gv_argv *a, const char *flag, const char *value)
{
    if (a->failed)
        return;
    if (a->n + 3 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        char **grown = realloc(a->v, cap * sizeof *grown);
        if (!grown) {
            a->failed = 1;
            return;
        }
        a->v = grown;
        a->cap = cap;
    }
    a->v[a->n] = strdup(flag);
    a->v[a->n + 1] = value ? strdup(value) : NULL;
    a->n += value ? 2 : 1;
    a->v[a->n] = NULL;
    if (!a->v[a->n - 1])
        a->failed = 1;
}

void gv_argv_add_number(gv_argv *a, const char *flag, const char *fmt, double v)
{
    char text[64];
    snprintf(text, sizeof text, fmt, v);
    gv_argv_add(a, flag, text);
}

void gv_argv_add_context(gv_argv *a, const gv_ctx *ctx, const char *path)
{
    gv_argv_add(a, path, NULL);
    gv_argv_add(a, "--sysroot", ctx->sysroot);
    if (ctx->library_dir[0])
        gv_argv_add(a, "--library-dir", ctx->library_dir);
    for (int i = 0; i < GV_LIBRARY_KINDS; i++)
        if (ctx->library_path[i][0])
            gv_argv_add(a, gv_worker_library_flags[i], ctx->library_path[i]);
    gv_argv_add(a, "--live", ctx->live ? "1" : "0");
    if (ctx->node_name[0])
        gv_argv_add(a, "--node-name", ctx->node_name);
    gv_argv_add_number(a, "--deadline", "%.17g", ctx->deadline_s);
}

char **gv_argv_finish(gv_argv *a)
{
    if (!a->failed)
        return a->v;
    gv_worker_argv_free(a->v);
    return NULL;
}

void gv_worker_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char **gv_worker_call_argv(const gv_ctx *ctx, const gv_call_kind *kind, const void *call_args,
                           const char *path)
{
    gv_argv a = {0};
    gv_argv_add_context(&a, ctx, path);
    char *hex = malloc(2 * kind->args_size + 1);
    if (hex)
        gv_worker_hex_put(call_args, kind->args_size, hex);
    else
        a.failed = 1;
    gv_argv_add(&a, "--call", kind->name);
    gv_argv_add(&a, "--args", hex);
    free(hex);
    return gv_argv_finish(&a);
}

void gv_worker_event_text(json_t *ev, const char *key, char *dst, size_t cap)
{
    const char *v = json_string_value(json_object_get(ev, key));
    snprintf(dst, cap, "%s", v ? v : "");
}

gv_status gv_worker_event_status(json_t *ev)
{
    json_t *st = json_object_get(ev, "status");
    return json_is_integer(st) ? (gv_status)json_integer_value(st) : GV_ERR_INTERNAL;
}

int gv_worker_is_liveness(int kind)
{
    return kind == GV_PROGRESS_BEAT || kind == GV_PROGRESS_PART || kind == GV_PROGRESS_WATCH ||
           kind == GV_PROGRESS_DONE;
}

json_t *gv_worker_progress_event(int kind, const char *text)
{
    if (kind == GV_PROGRESS_BEAT)
        return *text ? json_pack("{s:s, s:i}", "event", "beat", "gpu", atoi(text))
                     : json_pack("{s:s}", "event", "beat");
    if (kind == GV_PROGRESS_DONE)
        return json_pack("{s:s, s:i}", "event", "done_part", "gpu", atoi(text));
    if (kind == GV_PROGRESS_PART) {
        const char *slash = strchr(text, '/');
        return json_pack("{s:s, s:i, s:f}", "event", "beat", "gpu", atoi(text), "done",
                         slash ? atof(slash + 1) : 0.0);
    }
    json_t *gpus = json_array();
    const char *p = text;
    while (*p && *p != '/') {
        char *end = NULL;
        long g = strtol(p, &end, 10);
        if (end == p)
            break;
        json_array_append_new(gpus, json_integer(g));
        p = *end == ',' ? end + 1 : end;
    }
    double allow = *p == '/' ? atof(p + 1) : 0;
    return allow > 0
               ? json_pack("{s:s, s:o, s:f}", "event", "watch", "gpus", gpus, "allow_s", allow)
               : json_pack("{s:s, s:o}", "event", "watch", "gpus", gpus);
}

static int gpu_in_range(json_t *v)
{
    json_int_t g = json_is_integer(v) ? json_integer_value(v) : -1;
    return g >= 0 && g < GV_PROGRESS_MAX_GPUS ? (int)g : -1;
}

double gv_worker_event_allow(json_t *ev)
{
    double allow = json_number_value(json_object_get(ev, "allow_s"));
    return allow > 0 && allow < 1e6 ? allow : 0;
}

double gv_worker_event_done(json_t *ev)
{
    json_t *v = json_object_get(ev, "done");
    double done = json_is_number(v) ? json_number_value(v) : -1;
    return done >= 0 && done <= 1 ? done : -1;
}

int gv_worker_event_gpu(json_t *ev)
{
    return gpu_in_range(json_object_get(ev, "gpu"));
}

size_t gv_worker_event_gpus(json_t *ev, int *gpus, size_t cap)
{
    size_t n = 0, i;
    json_t *v;
    json_array_foreach(json_object_get(ev, "gpus"), i, v)
    {
        int g = gpu_in_range(v);
        if (g >= 0 && n < cap)
            gpus[n++] = g;
    }
    return n;
}

int gv_worker_relay_progress(gv_ctx *ctx, const char *kind, json_t *ev)
{
    if (!strcmp(kind, "beat")) {
        double done = gv_worker_event_done(ev);
        if (done >= 0)
            gv_progress_part(ctx, gv_worker_event_gpu(ev), done);
        else
            gv_progress_beat(ctx, gv_worker_event_gpu(ev));
        return 1;
    }
    if (!strcmp(kind, "done_part")) {
        gv_progress_done(ctx, gv_worker_event_gpu(ev));
        return 1;
    }
    if (!strcmp(kind, "watch")) {
        int gpus[GV_PROGRESS_MAX_GPUS];
        gv_progress_watch_for(ctx, gpus, gv_worker_event_gpus(ev, gpus, GV_PROGRESS_MAX_GPUS),
                              gv_worker_event_allow(ev));
        return 1;
    }
    return 0;
}

void gv_worker_hex_put(const void *data, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

int gv_worker_hex_get(const char *text, void *data, size_t n)
{
    unsigned char *p = data;
    if (!text || strlen(text) != 2 * n)
        return -1;
    for (size_t i = 0; i < 2 * n; i++) {
        char c = text[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        p[i / 2] = (unsigned char)(i % 2 ? (p[i / 2] << 4) | v : v);
    }
    return 0;
}
