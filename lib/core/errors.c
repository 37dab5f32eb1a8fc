/* SPDX-License-Identifier: Apache-2.0 */
/* Per-context error text and the log callback. The library never prints: both go to the
 * caller, through gv_ctx_last_error() and gv_ctx_opts.log_fn. */
#include <stdarg.h>
#include <stdio.h>

#include "core/c_locale.h"
#include "core/context.h"

gv_status gv_fail(gv_ctx *ctx, gv_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
        va_end(ap);
        gv_log(ctx, GV_LOG_DEBUG, "error %d: %s", (int)status, ctx->last_error);
    }
    return status;
}

void gv_clear_error(gv_ctx *ctx)
{
    if (ctx)
        ctx->last_error[0] = '\0';
}

void gv_log(const gv_ctx *ctx, int32_t level, const char *fmt, ...)
{
    if (!ctx || !ctx->log_fn || level > ctx->log_level)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    locale_t ours = gv_c_locale_pause(); /* the caller's callback runs in the caller's locale */
    ctx->log_fn(ctx->log_user, level, line);
    gv_c_locale_resume(ours);
}
