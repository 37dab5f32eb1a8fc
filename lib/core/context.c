/* SPDX-License-Identifier: Apache-2.0 */
/* Creating and destroying contexts from versioned options. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/context.h"
#include "core/c_locale.h"
#include "core/sizes.h"

#define GV_DEFAULT_DEADLINE_S 30.0

static const char *const library_env[GV_LIBRARY_KINDS] = {
    "GPUVERIFY_CUDA_LIBRARY",  "GPUVERIFY_NVML_LIBRARY", "GPUVERIFY_CUBLASLT_LIBRARY",
    "GPUVERIFY_CUDNN_LIBRARY", "GPUVERIFY_NCCL_LIBRARY", "GPUVERIFY_IBVERBS_LIBRARY"};

/* Copies an option string, or the environment's value when the option is NULL. */
static gv_status take_path(char *dst, size_t cap, const char *opt, const char *env_name,
                           const char *what, char *err, size_t errcap)
{
    const char *v = opt ? opt : (env_name ? getenv(env_name) : NULL);
    dst[0] = '\0';
    if (!v || !*v)
        return GV_OK;
    if (strlen(v) >= cap) {
        snprintf(err, errcap, "%s is longer than %zu bytes", what, cap - 1);
        return GV_ERR_INVALID_ARG;
    }
    strcpy(dst, v);
    return GV_OK;
}

/* The node's name: printable, no spaces (a label value and a history key), at most 63 bytes. */
static gv_status take_node_name(gv_ctx *ctx, const char *opt, char *err, size_t errcap)
{
    gv_status s = take_path(ctx->node_name, sizeof ctx->node_name, opt, "GPUVERIFY_NODE_NAME",
                            "node_name", err, errcap);
    for (const char *p = ctx->node_name; s == GV_OK && *p; p++)
        if (*p <= ' ' || *p > '~') {
            snprintf(err, errcap,
                     "node_name: byte 0x%02x at %zu: a node's name is printable ASCII, no spaces",
                     (unsigned char)*p, (size_t)(p - ctx->node_name));
            s = GV_ERR_INVALID_ARG;
        }
    return s;
}

static gv_status take_sysroot(gv_ctx *ctx, const char *opt, char *err, size_t errcap)
{
    if (!opt || !*opt || strcmp(opt, "/") == 0) {
        strcpy(ctx->sysroot, "/");
        return GV_OK;
    }
    if (opt[0] != '/') {
        snprintf(err, errcap, "sysroot '%s' is not an absolute path", opt);
        return GV_ERR_INVALID_ARG;
    }
    gv_status s = take_path(ctx->sysroot, sizeof ctx->sysroot, opt, NULL, "sysroot", err, errcap);
    if (s != GV_OK)
        return s;
    size_t n = strlen(ctx->sysroot);
    while (n > 1 && ctx->sysroot[n - 1] == '/')
        ctx->sysroot[--n] = '\0';
    struct stat st;
    if (stat(ctx->sysroot, &st) != 0) {
        snprintf(err, errcap, "sysroot %s: %s", ctx->sysroot, strerror(errno));
        return GV_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "sysroot %s: not a directory", ctx->sysroot);
        return GV_ERR_INVALID_ARG;
    }
    return GV_OK;
}

static gv_status configure(gv_ctx *ctx, const gv_ctx_opts *o, char *err, size_t errcap)
{
    if (o->flags & ~GV_CTX_IN_PROCESS) {
        snprintf(err, errcap, "flags 0x%x: only GV_CTX_IN_PROCESS (0x1) is defined", o->flags);
        return GV_ERR_INVALID_ARG;
    }
    if (o->log_level < GV_LOG_ERROR || o->log_level > GV_LOG_DEBUG) {
        snprintf(err, errcap, "log_level %d is not a gv_log_level", (int)o->log_level);
        return GV_ERR_INVALID_ARG;
    }
    if (o->live_libraries != GV_AUTO && o->live_libraries != 0 && o->live_libraries != 1) {
        snprintf(err, errcap, "live_libraries %d: expected GV_AUTO, 0 or 1",
                 (int)o->live_libraries);
        return GV_ERR_INVALID_ARG;
    }
    if (!(o->deadline_s >= 0.0) || o->deadline_s > 86400.0) {
        snprintf(err, errcap, "deadline_s %g: expected 0 (default) to 86400 seconds",
                 o->deadline_s);
        return GV_ERR_INVALID_ARG;
    }
    gv_status s = take_sysroot(ctx, o->sysroot, err, errcap);
    if (s == GV_OK)
        s = take_path(ctx->library_dir, sizeof ctx->library_dir, o->library_dir,
                      "GPUVERIFY_LIBRARY_DIR", "library_dir", err, errcap);
    const char *const paths[GV_LIBRARY_KINDS] = {o->cuda_library,     o->nvml_library,
                                                 o->cublaslt_library, o->cudnn_library,
                                                 o->nccl_library,     o->ibverbs_library};
    int named = ctx->library_dir[0] != '\0';
    for (int i = 0; s == GV_OK && i < GV_LIBRARY_KINDS; i++) {
        s = take_path(ctx->library_path[i], sizeof ctx->library_path[i], paths[i], library_env[i],
                      "library path", err, errcap);
        named |= ctx->library_path[i][0] != '\0';
    }
    if (s == GV_OK)
        s = take_path(ctx->worker_path, sizeof ctx->worker_path, o->worker_path, "GPUVERIFY_WORKER",
                      "worker_path", err, errcap);
    /* No environment variable: a caller who did not ask for a history never gets one. */
    if (s == GV_OK)
        s = take_path(ctx->state_path, sizeof ctx->state_path, o->state_path, NULL, "state_path",
                      err, errcap);
    if (s == GV_OK)
        s = take_node_name(ctx, o->node_name, err, errcap);
    if (s != GV_OK)
        return s;
    ctx->flags = o->flags;
    ctx->log_fn = o->log_fn;
    ctx->log_user = o->log_user;
    ctx->log_level = o->log_level;
    ctx->deadline_s = o->deadline_s > 0.0 ? o->deadline_s : GV_DEFAULT_DEADLINE_S;
    if (o->live_libraries == GV_AUTO)
        ctx->live = strcmp(ctx->sysroot, "/") == 0 || named;
    else
        ctx->live = o->live_libraries;
    return GV_OK;
}

/* Why this thread's last gv_ctx_create failed ("" after a success): there is no context to
 * hold it, and gv_ctx_last_error(NULL) gives it to the caller. */
static _Thread_local char create_error[sizeof(((gv_ctx *)0)->last_error)];

static gv_status create_failed(gv_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static gv_status create_failed(gv_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(create_error, sizeof create_error, fmt, ap);
    va_end(ap);
    return s;
}

gv_status gv_ctx_opts_init(gv_ctx_opts *opts, size_t size)
{
    static const gv_ctx_opts defaults = GV_CTX_OPTS_INIT;
    return gv_opts_fill(opts, size, &defaults, sizeof defaults, GV_CTX_OPTS_SIZE_V1);
}

gv_status gv_ctx_create(const gv_ctx_opts *opts, gv_ctx **out)
{
    GV_IN_C_LOCALE();
    if (!out)
        return create_failed(GV_ERR_INVALID_ARG, "gv_ctx_create: out is NULL");
    *out = NULL;
    static const gv_ctx_opts defaults = GV_CTX_OPTS_INIT;
    gv_ctx_opts o;
    if (opts) {
        gv_status s = gv_copy_in(&o, sizeof o, opts, GV_CTX_OPTS_SIZE_V1, &defaults);
        if (s != GV_OK)
            return create_failed(s, "gv_ctx_opts.struct_size %u is not a valid layout",
                                 (unsigned)opts->struct_size);
    } else {
        o = defaults;
    }
    gv_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return create_failed(GV_ERR_NO_MEMORY, "gv_ctx_create: out of memory");
    char err[sizeof ctx->last_error] = "";
    gv_status s = configure(ctx, &o, err, sizeof err);
    if (s != GV_OK) {
        /* No context to hold the detail: gv_ctx_last_error(NULL) has it, and the log
         * callback hears it if there is one. */
        if (opts && o.log_fn) {
            locale_t ours = gv_c_locale_pause(); /* the caller's callback, in its locale */
            o.log_fn(o.log_user, GV_LOG_ERROR, err);
            gv_c_locale_resume(ours);
        }
        free(ctx);
        return create_failed(s, "%s", err);
    }
    create_error[0] = '\0';
    ctx->cuda_init_result = -1;
    ctx->nccl_build_cuda = -1;
    ctx->nvml_init_result = -1;
    *out = ctx;
    return GV_OK;
}

void gv_ctx_destroy(gv_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->drop_facts)
        ctx->drop_facts(ctx);
    if (ctx->drop_nccl_ahead) /* before the contexts they use */
        ctx->drop_nccl_ahead(ctx);
    if (ctx->release_kept)
        ctx->release_kept(ctx);
    if (ctx->release_libraries)
        ctx->release_libraries(ctx);
    free(ctx);
}

const char *gv_ctx_last_error(const gv_ctx *ctx)
{
    if (ctx)
        return ctx->last_error;
    return create_error[0] ? create_error : "no context (NULL)";
}
