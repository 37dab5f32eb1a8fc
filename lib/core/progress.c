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

void gv_progress_wait(gv_ctx *ctx, const char *check, double seconds)
{
    if (!ctx->progress)
        return;
    char text[32];
    snprintf(text, sizeof text, "%.3f", seconds);
    ctx->progress(ctx->progress_user, GV_PROGRESS_WAIT, check, text);
}

void gv_progress_beat(gv_ctx *ctx)
{
    if (!ctx->progress)
        return;
    /* Threads of one check (copies on every GPU at once) beat too: one of them sends. */
    long long now_ms = (long long)(gv_now_s() * 1e3);
    long long last = __atomic_load_n(&ctx->progress_beat_ms, __ATOMIC_RELAXED);
    if (now_ms - last < 200 || !__atomic_compare_exchange_n(&ctx->progress_beat_ms, &last, now_ms,
                                                            0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    ctx->progress(ctx->progress_user, GV_PROGRESS_BEAT, "", "");
}
