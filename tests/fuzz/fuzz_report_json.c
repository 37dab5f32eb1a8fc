/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: gv_report_from_json over any text (a report from another node or process).
 * What reads must render to JSON and Prometheus, and read back again.
 *
 * Then the same bytes damage a seed of tests/fuzz/corpus/fuzz_report_json (fuzz_text.h: byte
 * 0 picks it, bytes 1-2 cut it there when inside it, each 4 bytes after them insert a byte no
 * writer puts in JSON): what reads must not PASS a row the seed did not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "gpuverify/gpuverify.h"

#define MAX_CLEAN 8
static struct {
    char *text;
    size_t size;
    fuzz_rows not_pass;
} clean[MAX_CLEAN];
static size_t nclean;

static void load_clean(gv_ctx *ctx)
{
    static const char *const seeds[] = {"h100x8-gpu-lost.json", "no-nvidia.json"};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/fuzz_report_json/%s", GV_FUZZ_CORPUS, seeds[k]);
        clean[nclean].text = fuzz_read_file(path, &clean[nclean].size);
        gv_report *r = NULL;
        if (!clean[nclean].text || gv_report_from_json(ctx, clean[nclean].text, &r) != GV_OK) {
            fprintf(stderr, "fuzz_report_json: %s does not read\n", path);
            abort();
        }
        fuzz_rows_not_pass(r, &clean[nclean++].not_pass);
        gv_report_free(r);
    }
}

static void damage(gv_ctx *ctx, const uint8_t *data, size_t size)
{
    if (size < 3)
        return;
    size_t which = data[0] % nclean, len = clean[which].size;
    size_t cut = (size_t)data[1] | (size_t)data[2] << 8;
    char *text = fuzz_text((const uint8_t *)clean[which].text, len);
    fuzz_damage d[FUZZ_MAX_DAMAGE];
    size_t n = fuzz_damages(data + 3, size - 3, d);
    for (size_t k = 0; k < n; k++)
        text = fuzz_insert(text, &len, d[k].at, d[k].byte);
    if (cut < len)
        text[cut] = '\0';
    gv_report *r = NULL;
    if (gv_report_from_json(ctx, text, &r) == GV_OK)
        fuzz_assert_no_new_pass(&clean[which].not_pass, r, "fuzz_report_json");
    gv_report_free(r);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gv_ctx *ctx = fuzz_ctx();
    if (!nclean)
        load_clean(ctx);
    damage(ctx, data, size);
    char *text = fuzz_text(data, size);
    gv_report *r = NULL;
    if (gv_report_from_json(ctx, text, &r) == GV_OK) {
        char *json = NULL, *prom = NULL;
        if (gv_report_json(r, GV_JSON_COMPACT, &json) != GV_OK ||
            gv_report_prometheus(r, 0, &prom) != GV_OK)
            abort();
        gv_report *back = NULL;
        if (gv_report_from_json(ctx, json, &back) != GV_OK ||
            gv_report_count(back) != gv_report_count(r))
            abort();
        gv_report_free(back);
        gv_free(json);
        gv_free(prom);
        gv_report_free(r);
    }
    free(text);
    return 0;
}
