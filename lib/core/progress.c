/* SPDX-License-Identifier: Apache-2.0 */
#include "core/progress.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/context.h"
#include "core/util.h"

void gv_progress_group(gv_ctx *ctx, const char *check)
{
    if (ctx->progress)
        ctx->progress(ctx->progress_user, GV_PROGRESS_GROUP, check, "");
}

void gv_progress_begin(gv_ctx *ctx, const char *check, const char *subject)
{
    if (ctx->progress)
        ctx->progress(ctx->progress_user, GV_PROGRESS_BEGIN, check, subject);
}

void gv_progress_stage(gv_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->progress)
        return;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ctx->progress(ctx->progress_user, GV_PROGRESS_STAGE, "", text);
}

void gv_progress_wait(gv_ctx *ctx, const char *check, double seconds, const char *why)
{
    if (!ctx->progress)
        return;
    char text[256];
    snprintf(text, sizeof text, "%.3f %s", seconds, why);
    ctx->progress(ctx->progress_user, GV_PROGRESS_WAIT, check, text);
}

static int beat_slot(int gpu)
{
    return gpu >= 0 && gpu < GV_PROGRESS_MAX_GPUS ? gpu : GV_PROGRESS_MAX_GPUS;
}

/* Whether a beat may go out now on this slot: at most one every 0.2 s. Threads of one check
 * (copies on every GPU at once) beat too: one of them sends. */
static int beat_due(long long *slot)
{
    long long now_ms = (long long)(gv_now_s() * 1e3);
    long long last = __atomic_load_n(slot, __ATOMIC_RELAXED);
    return now_ms - last >= 200 &&
           __atomic_compare_exchange_n(slot, &last, now_ms, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void gv_progress_beat(gv_ctx *ctx, int gpu)
{
    if (!ctx->progress || !beat_due(&ctx->progress_beat_ms[beat_slot(gpu)]))
        return;
    char text[16] = "";
    if (gpu >= 0 && gpu < GV_PROGRESS_MAX_GPUS)
        snprintf(text, sizeof text, "%d", gpu);
    ctx->progress(ctx->progress_user, GV_PROGRESS_BEAT, "", text);
}

void gv_progress_watch(gv_ctx *ctx, const int *gpus, size_t n)
{
    gv_progress_watch_for(ctx, gpus, n, 0);
}

void gv_progress_watch_for(gv_ctx *ctx, const int *gpus, size_t n, double allow_s)
{
    if (!ctx->progress)
        return;
    char text[GV_PROGRESS_MAX_GPUS * 4 + 32] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (gpus[i] < 0 || gpus[i] >= GV_PROGRESS_MAX_GPUS)
            continue;
        /* The first beat after the watch goes out whenever it comes: it tells a GPU that went
         * on from one that never did. */
        __atomic_store_n(&ctx->progress_beat_ms[gpus[i]], 0, __ATOMIC_RELAXED);
        int w = snprintf(text + used, sizeof text - used, "%s%d", used ? "," : "", gpus[i]);
        if (w < 0 || (size_t)w >= sizeof text - used)
            break;
        used += (size_t)w;
    }
    if (allow_s > 0 && allow_s < 1e6)
        snprintf(text + used, sizeof text - used, "/%.3f", allow_s);
    ctx->progress(ctx->progress_user, GV_PROGRESS_WATCH, "", text);
}

void gv_progress_done(gv_ctx *ctx, int gpu)
{
    if (!ctx->progress || gpu < 0 || gpu >= GV_PROGRESS_MAX_GPUS)
        return;
    char text[16];
    snprintf(text, sizeof text, "%d", gpu);
    /* The GPU's first beat when it works again goes out at once: it brings it back. */
    __atomic_store_n(&ctx->progress_beat_ms[gpu], 0, __ATOMIC_RELAXED);
    ctx->progress(ctx->progress_user, GV_PROGRESS_DONE, "", text);
}

void gv_progress_part(gv_ctx *ctx, int gpu, double done)
{
    if (!ctx->progress || gpu < 0 || gpu >= GV_PROGRESS_MAX_GPUS || !(done >= 0 && done <= 1) ||
        !beat_due(&ctx->progress_part_ms[gpu]))
        return;
    char text[32];
    snprintf(text, sizeof text, "%d/%.4f", gpu, done);
    ctx->progress(ctx->progress_user, GV_PROGRESS_PART, "", text);
}
