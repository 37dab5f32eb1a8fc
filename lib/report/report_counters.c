/* SPDX-License-Identifier: Apache-2.0 */
/* Counters attached to report rows: the raw numbers a health row was judged from (correctable
 * and uncorrectable ECC, remapped rows and spare banks, link states and error counts) beyond its
 * one value, written as the row's "counters" object in JSON and read back from it, so that
 * they travel from the worker to the caller and into the history database. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "report/report.h"

void gv_counter_set(gv_counter *list, uint32_t *n, uint32_t cap, const char *name, double value)
{
    if (*n >= cap || !isfinite(value) || value < 0)
        return; /* unknown counters (-1) are left out, never recorded as 0 */
    snprintf(list[*n].name, sizeof list[*n].name, "%s", name);
    list[*n].value = value;
    (*n)++;
}

int gv_report_attach_counters(gv_report *r, const gv_check_result *row, const gv_counter *items,
                              uint32_t count)
{
    if (!row || row < r->results || row >= r->results + r->count || count == 0)
        return 0;
    gv_row_counters *grown = realloc(r->counters, (r->counters_count + 1) * sizeof *grown);
    gv_counter *copy = malloc(count * sizeof *copy);
    if (grown)
        r->counters = grown;
    if (!grown || !copy) {
        free(copy);
        r->out_of_memory = 1;
        return -1;
    }
    memcpy(copy, items, count * sizeof *copy);
    r->counters[r->counters_count++] = (gv_row_counters){(size_t)(row - r->results), copy, count};
    return 0;
}

const gv_row_counters *gv_report_counters_of(const gv_report *r, size_t index)
{
    for (size_t i = 0; i < r->counters_count; i++)
        if (r->counters[i].row == index)
            return &r->counters[i];
    return NULL;
}

void gv_counters_to_json(const gv_report *r, size_t index, json_t *row)
{
    const gv_row_counters *c = gv_report_counters_of(r, index);
    if (!c)
        return;
    json_t *o = json_object();
    for (uint32_t i = 0; i < c->count; i++)
        json_object_set_new(o, c->items[i].name, json_real(c->items[i].value));
    json_object_set_new(row, "counters", o);
}

gv_status gv_counters_from_json(gv_ctx *ctx, json_t *o, gv_report *r, size_t index)
{
    json_t *c = json_object_get(o, "counters");
    if (!c || index >= r->count)
        return GV_OK;
    if (!json_is_object(c))
        return gv_fail(ctx, GV_ERR_PARSE, "report JSON: checks[%zu].counters is not an object",
                       index);
    gv_counter items[GV_ROW_COUNTERS_MAX];
    uint32_t n = 0;
    const char *name;
    json_t *v;
    json_object_foreach(c, name, v)
    {
        if (!json_is_number(v))
            return gv_fail(ctx, GV_ERR_PARSE,
                           "report JSON: checks[%zu].counters.%s is not a number", index, name);
        gv_counter_set(items, &n, GV_ROW_COUNTERS_MAX, name, json_number_value(v));
    }
    return gv_report_attach_counters(r, &r->results[index], items, n) == 0
               ? GV_OK
               : gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading a row's counters");
}
