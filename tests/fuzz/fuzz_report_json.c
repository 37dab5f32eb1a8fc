/* libFuzzer: gv_report_from_json over any text (a report from another node or process).
 * What reads must render to JSON and Prometheus, and read back again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gv_ctx *ctx = fuzz_ctx();
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
