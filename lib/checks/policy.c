/* SPDX-License-Identifier: Apache-2.0 */
/* gv_policy_parse and gv_policy_load: a site's expectations from key = value text. The whole
 * text is parsed into a copy first, so a bad line leaves the caller's policy as it was. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/policy.h"
#include "core/c_locale.h"
#include "core/context.h"
#include "core/parse.h"
#include "core/sizes.h"
#include "gpuverify/gv_compute.h"
#include "gpuverify/gv_policy.h"
#include "sys/sysroot.h"

/* Where a person who wrote a policy file reads its keys and values: the user's documentation,
 * not the C header (a site's administrator edits the file, not a program). */
#define POLICY_DOCS "the keys and their values: docs/checks.md#policy"

/* A number in [lo, hi], the whole value; 0 when it parses. */
static int number(const char *v, double lo, double hi, double *out)
{
    return gv_parse_double(v, lo, hi, out) == GV_PARSE_OK ? 0 : -1;
}

/* "6.2", "5.15": major.minor, each under 1000. */
static int kernel_version(const char *v)
{
    unsigned major, minor;
    char rest;
    return sscanf(v, "%u.%u%c", &major, &minor, &rest) == 2 && major < 1000 && minor < 1000 ? 0
                                                                                            : -1;
}

/* "48, 79,94": numbers 1..999 separated by commas and spaces; 0 when it is one. */
static int xid_list(const char *v)
{
    int any = 0;
    while (*v) {
        char *end;
        long x = strtol(v, &end, 10);
        if (end == v || x < 1 || x > 999)
            return -1;
        any = 1;
        v = end + strspn(end, ", ");
        if (end == v && *v)
            return -1;
    }
    return any ? 0 : -1;
}

/* The health and history thresholds: keys named as their fields, all numbers >= 0. */
static const struct {
    const char *key;
    size_t offset;
} health_keys[] = {
    {"ecc_correctable_warn", offsetof(gv_policy, ecc_correctable_warn)},
    {"pcie_replay_warn_per_min", offsetof(gv_policy, pcie_replay_warn_per_min)},
    {"aer_correctable_warn", offsetof(gv_policy, aer_correctable_warn)},
    {"nvlink_crc_warn", offsetof(gv_policy, nvlink_crc_warn)},
    {"clock_event_warn_s", offsetof(gv_policy, clock_event_warn_s)},
    {"temp_margin_warn_c", offsetof(gv_policy, temp_margin_warn_c)},
    {"history_min_runs", offsetof(gv_policy, history_min_runs)},
    {"history_runs", offsetof(gv_policy, history_runs)},
    {"history_perf_warn_fraction", offsetof(gv_policy, history_perf_warn_fraction)},
    {"history_window_days", offsetof(gv_policy, history_window_days)},
    {"history_ecc_per_day_warn", offsetof(gv_policy, history_ecc_per_day_warn)},
    {"history_remap_warn", offsetof(gv_policy, history_remap_warn)},
    {"history_exhaustion_days_warn", offsetof(gv_policy, history_exhaustion_days_warn)},
    {"history_record_warn", offsetof(gv_policy, history_record_warn)},
    {"history_keep_days", offsetof(gv_policy, history_keep_days)},
    {"history_keep_runs", offsetof(gv_policy, history_keep_runs)},
    {"history_keep_mb", offsetof(gv_policy, history_keep_mb)},
    {"history_wait_s", offsetof(gv_policy, history_wait_s)},
    {"history_symbol_error_warn_per_h", offsetof(gv_policy, history_symbol_error_warn_per_h)},
    {"history_symbol_error_fail_per_h", offsetof(gv_policy, history_symbol_error_fail_per_h)},
};

static double *health_threshold(gv_policy *p, const char *key)
{
    for (size_t i = 0; i < sizeof health_keys / sizeof *health_keys; i++)
        if (!strcmp(key, health_keys[i].key))
            return (double *)((char *)p + health_keys[i].offset);
    return NULL;
}

/* One line's key and value into p; a message in why when they are not acceptable. */
static int apply(gv_policy *p, const char *key, const char *value, char *why, size_t cap)
{
    double d, *threshold;
    if (!strcmp(key, "gpu_count")) {
        if (number(value, 0, 4096, &d) || d != floor(d))
            return snprintf(why, cap, "gpu_count wants a whole number 0..4096"), -1;
        p->gpu_count = (int32_t)d;
    } else if (!strcmp(key, "require_rdma")) {
        int yes = !strcmp(value, "1") || !strcmp(value, "yes") || !strcmp(value, "true");
        int no = !strcmp(value, "0") || !strcmp(value, "no") || !strcmp(value, "false");
        if (!yes && !no)
            return snprintf(why, cap, "require_rdma wants yes or no"), -1;
        p->require_rdma = yes;
    } else if (!strcmp(key, "gpu_model")) {
        if (strlen(value) >= sizeof p->gpu_model)
            return snprintf(why, cap, "gpu_model is longer than %zu bytes",
                            sizeof p->gpu_model - 1),
                   -1;
        snprintf(p->gpu_model, sizeof p->gpu_model, "%s", value);
    } else if (!strcmp(key, "kernel_min")) {
        if (kernel_version(value))
            return snprintf(why, cap, "kernel_min wants major.minor, like 6.2"), -1;
        snprintf(p->kernel_min, sizeof p->kernel_min, "%s", value);
    } else if (!strcmp(key, "gemm_warn_fraction") || !strcmp(key, "gemm_fail_fraction")) {
        if (number(value, 0, 1, &d))
            return snprintf(why, cap, "%s wants a fraction 0..1", key), -1;
        *(key[5] == 'w' ? &p->gemm_warn_fraction : &p->gemm_fail_fraction) = d;
    } else if (!strncmp(key, "gemm_min_tflops.", 16)) {
        int dtype = -1;
        for (int t = GV_DTYPE_FP32; t <= GV_DTYPE_FP8_E4M3; t++)
            if (!strcmp(key + 16, gv_dtype_name(t)))
                dtype = t;
        if (dtype < 0)
            return snprintf(why, cap, "gemm_min_tflops.<fp32|tf32|fp16|bf16|fp8>"), -1;
        if (number(value, 0, 1e6, &d))
            return snprintf(why, cap, "%s wants TFLOPS >= 0", key), -1;
        p->gemm_min_tflops[dtype] = d;
    } else if (!strcmp(key, "copy_min_gbps") || !strcmp(key, "nccl_min_busbw_gbps")) {
        if (number(value, 0, 1e6, &d))
            return snprintf(why, cap, "%s wants GB/s >= 0", key), -1;
        *(key[0] == 'c' ? &p->copy_min_gbps : &p->nccl_min_busbw_gbps) = d;
    } else if (!strcmp(key, "xids")) {
        if (strlen(value) >= sizeof p->xids || xid_list(value))
            return snprintf(why, cap, "xids wants Xid numbers, comma-separated (48,79,94)"), -1;
        snprintf(p->xids, sizeof p->xids, "%s", value);
    } else if (!strcmp(key, "busy")) {
        int rule = -1;
        for (int32_t b = GV_BUSY_SKIP; b <= GV_BUSY_IGNORE; b++)
            if (!strcmp(value, gv_busy_rule_name(b)))
                rule = b;
        if (rule < 0)
            return snprintf(why, cap, "busy wants skip, warn, fail or ignore"), -1;
        p->busy = rule;
    } else if (!strcmp(key, "history_perf_warn_fraction")) {
        if (number(value, 0, 1, &d))
            return snprintf(why, cap, "%s wants a fraction 0..1", key), -1;
        p->history_perf_warn_fraction = d;
    } else if ((threshold = health_threshold(p, key))) {
        if (number(value, 0, 1e12, &d))
            return snprintf(why, cap, "%s wants a number >= 0", key), -1;
        *threshold = d;
    } else if (!strcmp(key, "retired_pages_fail")) {
        if (number(value, 0, 1e6, &d) || d != floor(d))
            return snprintf(why, cap, "retired_pages_fail wants a whole number of pages"), -1;
        p->retired_pages_fail = (int32_t)d;
    } else {
        return snprintf(why, cap, "unknown key '%s'", key), -1;
    }
    return 0;
}

const char *gv_busy_rule_name(int32_t rule)
{
    static const char *const names[] = {"skip", "warn", "fail", "ignore"};
    return rule >= GV_BUSY_SKIP && rule <= GV_BUSY_IGNORE ? names[rule] : "skip";
}

/* Appends one "key = value" line; the text is cut short rather than overflowing. */
static void line(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(char *out, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(out);
    va_list ap;
    va_start(ap, fmt);
    if (n < cap)
        vsnprintf(out + n, cap - n, fmt, ap);
    va_end(ap);
}

int gv_policy_format(const gv_policy *p, char *out, size_t cap)
{
    out[0] = '\0';
    if (p->gpu_count != -1)
        line(out, cap, "gpu_count = %d\n", (int)p->gpu_count);
    line(out, cap, "require_rdma = %d\n", p->require_rdma ? 1 : 0);
    if (p->gpu_model[0])
        line(out, cap, "gpu_model = %s\n", p->gpu_model);
    if (p->kernel_min[0])
        line(out, cap, "kernel_min = %s\n", p->kernel_min);
    if (p->gemm_warn_fraction != 0)
        line(out, cap, "gemm_warn_fraction = %.17g\n", p->gemm_warn_fraction);
    if (p->gemm_fail_fraction != 0)
        line(out, cap, "gemm_fail_fraction = %.17g\n", p->gemm_fail_fraction);
    for (int t = GV_DTYPE_FP32; t <= GV_DTYPE_FP8_E4M3; t++)
        if (p->gemm_min_tflops[t] != 0)
            line(out, cap, "gemm_min_tflops.%s = %.17g\n", gv_dtype_name(t), p->gemm_min_tflops[t]);
    if (p->copy_min_gbps != 0)
        line(out, cap, "copy_min_gbps = %.17g\n", p->copy_min_gbps);
    if (p->nccl_min_busbw_gbps != 0)
        line(out, cap, "nccl_min_busbw_gbps = %.17g\n", p->nccl_min_busbw_gbps);
    if (p->xids[0])
        line(out, cap, "xids = %s\n", p->xids);
    line(out, cap, "busy = %s\n", gv_busy_rule_name(p->busy));
    for (size_t i = 0; i < sizeof health_keys / sizeof *health_keys; i++) {
        double v = *(const double *)((const char *)p + health_keys[i].offset);
        if (v != 0) /* a negative or NaN threshold too, for gv_policy_check to refuse */
            line(out, cap, "%s = %.17g\n", health_keys[i].key, v);
    }
    if (p->retired_pages_fail != 0)
        line(out, cap, "retired_pages_fail = %d\n", (int)p->retired_pages_fail);
    return strlen(out) + 1 < cap ? 0 : -1;
}

/* A text field that would not read back as itself: a line break or another control byte, or
 * a '#' that starts a comment. */
static int unreadable_text(const char *v)
{
    for (; *v; v++)
        if ((unsigned char)*v < 0x20 || *v == 0x7f || *v == '#')
            return 1;
    return 0;
}

gv_status gv_policy_check(gv_ctx *ctx, const gv_policy *p)
{
    const char *texts[] = {p->gpu_model, p->kernel_min, p->xids};
    const char *names[] = {"gpu_model", "kernel_min", "xids"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (unreadable_text(texts[i]))
            return gv_fail(ctx, GV_ERR_INVALID_ARG,
                           "gv_policy.%s holds a line break, a control byte or a '#'", names[i]);
    char text[4096];
    if (gv_policy_format(p, text, sizeof text) != 0)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_policy: its fields do not fit a policy text");
    gv_policy scratch = GV_POLICY_INIT;
    char why[160] = "";
    for (char *line = text, *next; line && *line && !why[0]; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strstr(line, " = ");
        if (eq) {
            *eq = '\0';
            apply(&scratch, line, eq + 3, why, sizeof why);
        }
    }
    if (why[0])
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_policy: %s (%s)", why, POLICY_DOCS);
    if (p->gemm_warn_fraction > 0 && p->gemm_fail_fraction > p->gemm_warn_fraction)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_policy: gemm_fail_fraction %g above gemm_warn_fraction %g (%s)",
                       p->gemm_fail_fraction, p->gemm_warn_fraction, POLICY_DOCS);
    return GV_OK;
}

gv_status gv_policy_parse(gv_ctx *ctx, const char *text, gv_policy *out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!text || !out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_policy_parse: text or out is NULL");
    /* The fields an older caller's struct lacks are 0, each field's "not set". */
    static const gv_policy unset;
    gv_policy p;
    gv_status in = gv_opts_in(ctx, "gv_policy", &p, sizeof p, out, GV_POLICY_SIZE_V1, &unset);
    if (in != GV_OK)
        return in;
    char *copy = strdup(text);
    if (!copy)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    unsigned line_no = 0;
    gv_status st = GV_OK;
    for (char *line = copy, *next; line && st == GV_OK; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line = gv_trim(line);
        if (!*line)
            continue;
        char *eq = strchr(line, '=');
        char why[160] = "";
        if (!eq)
            snprintf(why, sizeof why, "expected key = value");
        else {
            *eq = '\0';
            apply(&p, gv_trim(line), gv_trim(eq + 1), why, sizeof why);
        }
        if (why[0])
            st = gv_fail(ctx, GV_ERR_PARSE, "policy line %u: %s (%s)", line_no, why, POLICY_DOCS);
    }
    free(copy);
    if (st == GV_OK && p.gemm_warn_fraction > 0 && p.gemm_fail_fraction > p.gemm_warn_fraction)
        st = gv_fail(ctx, GV_ERR_PARSE,
                     "policy: gemm_fail_fraction %g above gemm_warn_fraction %g (%s)",
                     p.gemm_fail_fraction, p.gemm_warn_fraction, POLICY_DOCS);
    if (st == GV_OK)
        memcpy(out, &p, out->struct_size < sizeof p ? out->struct_size : sizeof p);
    return st;
}

gv_status gv_policy_load(gv_ctx *ctx, const char *path, gv_policy *out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!path || !out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_policy_load: path or out is NULL");
    int fd = gv_open_regular(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gv_fail(ctx, GV_ERR_IO, "policy %s: %s", path,
                       e == EINVAL ? "not a regular file" : strerror(e));
    }
    char *text = malloc(65537);
    size_t n = text ? fread(text, 1, 65537, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!text)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    if (bad || n > 65536) {
        free(text);
        return gv_fail(ctx, bad ? GV_ERR_IO : GV_ERR_PARSE, "policy %s: %s", path,
                       bad ? "read error" : "larger than 64 KiB");
    }
    text[n] = '\0';
    /* Text ends at a NUL byte: what follows one would be dropped unread, unjudged. */
    const char *nul = memchr(text, '\0', n);
    if (nul) {
        gv_status st = gv_fail(ctx, GV_ERR_PARSE, "policy %s: a NUL byte at offset %zu: not text",
                               path, (size_t)(nul - text));
        free(text);
        return st;
    }
    gv_status st = gv_policy_parse(ctx, text, out);
    if (st == GV_ERR_PARSE) {
        char detail[sizeof ctx->last_error];
        snprintf(detail, sizeof detail, "%s", ctx->last_error);
        st = gv_fail(ctx, st, "%s: %s", path, detail);
    }
    free(text);
    return st;
}
