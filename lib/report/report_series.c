/* SPDX-License-Identifier: Apache-2.0 */
/* Time series attached to report rows (stress.gemm): kept beside the results, written as the
 * row's "series" array in JSON and read back from it, so that they travel from the worker to
 * the caller and survive gv_report_from_json. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "report/report.h"

int gv_report_attach_series(gv_report *r, const gv_check_result *row,
                            const gv_stress_sample *samples, uint32_t count)
{
    if (!row || row < r->results || row >= r->results + r->count || count == 0)
        return 0;
    gv_row_series *grown = realloc(r->series, (r->series_count + 1) * sizeof *grown);
    gv_stress_sample *copy = malloc(count * sizeof *copy);
    if (grown)
        r->series = grown;
    if (!grown || !copy) {
        free(copy);
        r->out_of_memory = 1;
        return -1;
    }
    memcpy(copy, samples, count * sizeof *copy);
    r->series[r->series_count++] = (gv_row_series){(size_t)(row - r->results), copy, count};
    return 0;
}

const gv_row_series *gv_report_series_of(const gv_report *r, size_t index)
{
    for (size_t i = 0; i < r->series_count; i++)
        if (r->series[i].row == index)
            return &r->series[i];
    return NULL;
}

static json_t *real_or_null(double v)
{
    return v > 0 && isfinite(v) ? json_real(v) : json_null();
}

json_t *gv_report_row_to_json(const gv_report *r, size_t index)
{
    json_t *o = gv_result_to_json(&r->results[index]);
    if (o)
        gv_counters_to_json(r, index, o);
    const gv_row_series *s = gv_report_series_of(r, index);
    if (!o || !s)
        return o;
    json_t *a = json_array();
    for (uint32_t i = 0; i < s->count; i++) {
        const gv_stress_sample *p = &s->samples[i];
        json_array_append_new(
            a, json_pack("{s:f, s:f, s:o, s:o, s:o, s:I, s:I}", "t_s", p->t_s, "tflops", p->tflops,
                         "sm_clock_mhz", real_or_null(p->sm_clock_mhz), "power_w",
                         real_or_null(p->power_w), "temperature_c", real_or_null(p->temperature_c),
                         "clock_event_reasons", (json_int_t)p->clock_event_reasons, "mismatches",
                         (json_int_t)p->mismatches));
    }
    json_object_set_new(o, "series", a);
    return o;
}

static double number_or_zero(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : 0;
}

gv_status gv_series_from_json(gv_ctx *ctx, json_t *o, gv_report *r, size_t index)
{
    json_t *a = json_object_get(o, "series");
    if (!a || index >= r->count)
        return GV_OK;
    if (!json_is_array(a))
        return gv_fail(ctx, GV_ERR_PARSE, "report JSON: checks[%zu].series is not an array", index);
    size_t n = json_array_size(a);
    gv_stress_sample *samples = calloc(n ? n : 1, sizeof *samples);
    if (!samples)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading a time series");
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(a, i), *t = json_object_get(p, "t_s");
        json_t *reasons = json_object_get(p, "clock_event_reasons");
        json_t *bad = json_object_get(p, "mismatches");
        if (!json_is_number(t) || !json_is_integer(reasons) || !json_is_integer(bad)) {
            free(samples);
            return gv_fail(ctx, GV_ERR_PARSE,
                           "report JSON: checks[%zu].series[%zu] needs t_s, clock_event_reasons "
                           "and mismatches",
                           index, i);
        }
        samples[i] = (gv_stress_sample){json_number_value(t),
                                        number_or_zero(json_object_get(p, "tflops")),
                                        number_or_zero(json_object_get(p, "sm_clock_mhz")),
                                        number_or_zero(json_object_get(p, "power_w")),
                                        number_or_zero(json_object_get(p, "temperature_c")),
                                        (uint64_t)json_integer_value(reasons),
                                        -1,
                                        (uint32_t)json_integer_value(bad)};
    }
    int rc = gv_report_attach_series(r, &r->results[index], samples, (uint32_t)n);
    free(samples);
    return rc == 0 ? GV_OK : gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading a series");
}
