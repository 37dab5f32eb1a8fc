/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: the caller's reader of gpuverify-worker's output (gv_worker_replay), as if a
 * worker had written these bytes and exited. Whatever it wrote, the report must render and
 * every planned check must have a row or a reason.
 *
 * Then the same bytes damage a clean stream (fuzz_text.h): byte 0 picks one of the seeds of
 * tests/fuzz/corpus/fuzz_worker_stream, or h100x8.jsonl with rows turned FAIL, WARN, SKIP and
 * ERROR; bytes 1-2 cut it there (when inside it: a worker that died); each 4 bytes after them
 * insert a byte no worker writes. A row the clean stream did not PASS must not PASS: a garbled
 * or lost row is never taken for a good one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "core/context.h"
#include "fuzz_text.h"
#include "run/run_worker.h"
#include "worker/worker.h"

/* The report of a stream; NULL when the replay refused it. It must render. */
static gv_report *replay(gv_ctx *ctx, const gv_run_plan *plan, const char *data, size_t size)
{
    gv_report *r = NULL;
    if (gv_worker_replay(ctx, plan, data, size, &r) != GV_OK)
        return NULL;
    char *json = NULL;
    if (gv_report_json(r, 0, &json) != GV_OK)
        abort();
    gv_free(json);
    return r;
}

#define MAX_CLEAN 8
static struct {
    char *data;
    size_t size;
    fuzz_rows not_pass;
} clean[MAX_CLEAN];
static size_t nclean;

static void add_clean(gv_ctx *ctx, const gv_run_plan *plan, char *data, size_t size,
                      const char *name)
{
    if (nclean == MAX_CLEAN) {
        free(data);
        return;
    }
    gv_report *r = replay(ctx, plan, data, size);
    if (!r)
        abort(); /* a seed the replay refuses */
    fuzz_rows_not_pass(r, &clean[nclean].not_pass);
    gv_report_free(r);
    for (size_t i = 0; getenv("GV_FUZZ_SHOW") && i < clean[nclean].not_pass.n; i++)
        fprintf(stderr, "fuzz_worker_stream: %s: not PASS: %s\n", name,
                clean[nclean].not_pass.key[i]);
    clean[nclean].data = data;
    clean[nclean++].size = size;
}

/* h100x8.jsonl's rows, every other one's verdict turned FAIL, WARN, SKIP, ERROR in turn. */
static char *unhealthy(const char *data, size_t *size)
{
    static const char *const verdicts[] = {"FAIL", "WARN", "SKIP", "ERROR"};
    static const char pass[] = "\"verdict\":\"PASS\"";
    char *out = malloc(*size * 2 + 1);
    if (!out)
        abort();
    size_t o = 0, turned = 0, seen = 0;
    for (const char *p = data; *p;) {
        const char *at = strstr(p, pass);
        size_t keep = at ? (size_t)(at - p) : strlen(p);
        memcpy(out + o, p, keep);
        o += keep;
        if (!at)
            break;
        if (seen++ % 2)
            o += (size_t)sprintf(out + o, "\"verdict\":\"%s\"", verdicts[turned++ % 4]);
        else
            o += (size_t)sprintf(out + o, "%s", pass);
        p = at + sizeof pass - 1;
    }
    out[o] = '\0';
    *size = o;
    return out;
}

static void load_clean(gv_ctx *ctx, const gv_run_plan *plan)
{
    static const char *const seeds[] = {"h100x8.jsonl", "cut-short.jsonl"};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
        char path[512];
        size_t size;
        snprintf(path, sizeof path, "%s/fuzz_worker_stream/%s", GV_FUZZ_CORPUS, seeds[k]);
        char *data = fuzz_read_file(path, &size);
        if (!data) {
            fprintf(stderr, "fuzz_worker_stream: cannot read %s\n", path);
            abort();
        }
        if (k == 0) {
            size_t turned_size = size;
            add_clean(ctx, plan, unhealthy(data, &turned_size), turned_size, "h100x8, turned");
        }
        add_clean(ctx, plan, data, size, seeds[k]);
    }
}

/* A clean stream damaged as the input says: no row it did not PASS may PASS. */
static void damage(gv_ctx *ctx, const gv_run_plan *plan, const uint8_t *data, size_t size)
{
    if (size < 3)
        return;
    size_t which = data[0] % nclean, len = clean[which].size;
    size_t cut = (size_t)data[1] | (size_t)data[2] << 8;
    char *text = fuzz_text((const uint8_t *)clean[which].data, len);
    fuzz_damage d[FUZZ_MAX_DAMAGE];
    size_t n = fuzz_damages(data + 3, size - 3, d);
    for (size_t k = 0; k < n; k++)
        text = fuzz_insert(text, &len, d[k].at, d[k].byte);
    if (cut < len)
        len = cut;
    gv_report *r = replay(ctx, plan, text, len);
    if (r)
        fuzz_assert_no_new_pass(&clean[which].not_pass, r, "fuzz_worker_stream");
    gv_report_free(r);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gv_ctx *ctx;
    static gv_run_plan plan;
    if (!ctx) {
        gv_ctx_opts o = GV_CTX_OPTS_INIT;
        o.live_libraries = 0;
        gv_run_opts ro = GV_RUN_OPTS_INIT;
        ro.checks = "system,driver,gemm.fp16,nccl";
        if (gv_ctx_create(&o, &ctx) != GV_OK || gv_run_plan_make(ctx, &ro, &plan) != GV_OK)
            abort();
        load_clean(ctx, &plan);
    }
    gv_report_free(replay(ctx, &plan, (const char *)data, size));
    damage(ctx, &plan, data, size);
    return 0;
}
