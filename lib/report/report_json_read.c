/* SPDX-License-Identifier: Apache-2.0 */
/* gv_report_from_json: a report read back from its JSON (schema_version 1 to 9), so that a report
 * made elsewhere (another process, another node) is handled like one made here: accessors,
 * Prometheus text, JSON again. Fields the JSON does not carry come back unknown (-1). */
#define _GNU_SOURCE /* timegm */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/c_locale.h"
#include "core/context.h"
#include "core/util.h"
#include "report/report.h"

typedef struct reader {
    gv_ctx *ctx;
    char where[96]; /* the object being read, for messages */
    gv_status status;
} reader;

static void bad(reader *rd, const char *key, const char *want)
{
    if (rd->status == GV_OK)
        rd->status = gv_fail(rd->ctx, GV_ERR_PARSE, "report JSON: %s%s%s: %s", rd->where,
                             rd->where[0] ? "." : "", key, want);
}

static void text(reader *rd, json_t *o, const char *key, char *out, size_t cap)
{
    json_t *v = json_object_get(o, key);
    if (json_is_string(v))
        gv_copy_text(out, cap, json_string_value(v));
    else if (json_is_null(v))
        out[0] = '\0';
    else
        bad(rd, key, "a string or null");
}

static long long integer(reader *rd, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v))
        return json_integer_value(v);
    if (!json_is_null(v))
        bad(rd, key, "an integer or null");
    return -1;
}

/* A key added after the first layout of its schema version: -1 when absent. */
static long long later_integer(reader *rd, json_t *o, const char *key)
{
    return json_object_get(o, key) ? integer(rd, o, key) : -1;
}

static double number(reader *rd, json_t *o, const char *key, double if_null)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v))
        return json_number_value(v);
    if (!json_is_null(v))
        bad(rd, key, "a number or null");
    return if_null;
}

static int32_t boolean(reader *rd, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_boolean(v))
        return json_is_true(v);
    if (!json_is_null(v))
        bad(rd, key, "true, false or null");
    return -1;
}

/* An enum by its name in names[]; -1 unless found. */
static int32_t named(reader *rd, json_t *o, const char *key, const char *const *names, int n)
{
    const char *s = json_string_value(json_object_get(o, key));
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    bad(rd, key, "a known name");
    return -1;
}

static void driver(reader *rd, json_t *o, gv_driver_info *d)
{
    snprintf(rd->where, sizeof rd->where, "driver");
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    d->module_loaded = boolean(rd, o, "module_loaded");
    d->module_kind = named(rd, o, "module_kind", gv_module_kind_names, GV_MODULE_KIND_NAMES);
    text(rd, o, "module_version", d->module_version, sizeof d->module_version);
    d->nouveau_loaded = boolean(rd, o, "nouveau_loaded");
    text(rd, o, "os", d->os_name, sizeof d->os_name);
    text(rd, o, "kernel", d->kernel_release, sizeof d->kernel_release);
    d->nvml_state = named(rd, o, "nvml", gv_library_state_names, GV_LIBRARY_STATE_NAMES);
    d->cuda_state = named(rd, o, "cuda", gv_library_state_names, GV_LIBRARY_STATE_NAMES);
    text(rd, o, "driver_version", d->driver_version, sizeof d->driver_version);
    text(rd, o, "nvml_version", d->nvml_version, sizeof d->nvml_version);
    d->cuda_driver_version = (int32_t)integer(rd, o, "cuda_driver_version");
    d->nvml_cuda_version = (int32_t)integer(rd, o, "nvml_cuda_version");
    d->nvml_init_result = (int32_t)later_integer(rd, o, "nvml_init_result");
    d->cuda_init_result = (int32_t)later_integer(rd, o, "cuda_init_result");
    d->gpu_count_pci = (int32_t)integer(rd, o, "gpu_count_pci");
    d->gpu_count_nvml = (int32_t)integer(rd, o, "gpu_count_nvml");
    d->gpu_count_cuda = (int32_t)integer(rd, o, "gpu_count_cuda");
    d->gpu_count = (int32_t)integer(rd, o, "gpu_count");
}

static void gpu(reader *rd, json_t *o, size_t index, gv_gpu *g)
{
    snprintf(rd->where, sizeof rd->where, "gpus[%zu]", index);
    memset(g, 0, sizeof *g);
    g->struct_size = sizeof *g;
    g->index = (uint32_t)integer(rd, o, "index");
    g->nvml_index = (int32_t)integer(rd, o, "nvml_index");
    g->cuda_index = (int32_t)integer(rd, o, "cuda_index");
    text(rd, o, "name", g->name, sizeof g->name);
    text(rd, o, "uuid", g->uuid, sizeof g->uuid);
    text(rd, o, "serial", g->serial, sizeof g->serial);
    text(rd, o, "pci_bus_id", g->pci_bus_id, sizeof g->pci_bus_id);
    g->pci_vendor_id = (int32_t)later_integer(rd, o, "pci_vendor_id");
    g->pci_device_id = (int32_t)integer(rd, o, "pci_device_id");
    g->pci_class = (int32_t)integer(rd, o, "pci_class");
    g->numa_node = (int32_t)integer(rd, o, "numa_node");
    text(rd, o, "local_cpus", g->local_cpus, sizeof g->local_cpus);
    g->memory_total = integer(rd, o, "memory_total_bytes");
    g->memory_used = integer(rd, o, "memory_used_bytes");
    g->memory_free = integer(rd, o, "memory_free_bytes");
    char cc[16] = "";
    text(rd, o, "compute_capability", cc, sizeof cc);
    g->cc_major = g->cc_minor = -1;
    if (cc[0] && sscanf(cc, "%d.%d", &g->cc_major, &g->cc_minor) != 2)
        bad(rd, "compute_capability", "major.minor");
    g->sm_count = (int32_t)integer(rd, o, "sm_count");
    g->max_sm_clock_mhz = (int32_t)integer(rd, o, "max_sm_clock_mhz");
    text(rd, o, "vbios", g->vbios, sizeof g->vbios);
    /* Since schema 8: absent from older reports. */
    if (json_object_get(o, "inforom_image"))
        text(rd, o, "inforom_image", g->inforom_image, sizeof g->inforom_image);
    if (json_object_get(o, "gsp_firmware"))
        text(rd, o, "gsp_firmware", g->gsp_firmware, sizeof g->gsp_firmware);
    if (json_object_get(o, "board_part_number"))
        text(rd, o, "board_part_number", g->board_part_number, sizeof g->board_part_number);
    static const struct {
        const char *key;
        size_t offset;
    } ints[] = {
        {"persistence_mode", offsetof(gv_gpu, persistence_mode)},
        {"ecc_current", offsetof(gv_gpu, ecc_current)},
        {"ecc_pending", offsetof(gv_gpu, ecc_pending)},
        {"mig_current", offsetof(gv_gpu, mig_current)},
        {"mig_pending", offsetof(gv_gpu, mig_pending)},
        {"compute_mode", offsetof(gv_gpu, compute_mode)},
        {"power_limit_mw", offsetof(gv_gpu, power_limit_mw)},
        {"temperature_c", offsetof(gv_gpu, temperature_c)},
        {"pcie_gen_current", offsetof(gv_gpu, pcie_gen_current)},
        {"pcie_gen_max", offsetof(gv_gpu, pcie_gen_max)},
        {"pcie_width_current", offsetof(gv_gpu, pcie_width_current)},
        {"pcie_width_max", offsetof(gv_gpu, pcie_width_max)},
        {"link_width_current", offsetof(gv_gpu, link_width_current_sysfs)},
        {"link_width_max", offsetof(gv_gpu, link_width_max_sysfs)},
        {"nvml_result", offsetof(gv_gpu, nvml_result)},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        *(int32_t *)((char *)g + ints[i].offset) = (int32_t)integer(rd, o, ints[i].key);
    /* Version 4: before it, every GPU of the inventory was the reporting process's. */
    g->inaccessible =
        json_object_get(o, "inaccessible") ? (int32_t)integer(rd, o, "inaccessible") : 0;
    /* Version 6's verdict and failed_checks are not read: they follow from the rows, and are
     * judged again from them (gv_report_gpu_verdict). */
    g->link_speed_current_gts = number(rd, o, "link_speed_current_gts", -1);
    g->link_speed_max_gts = number(rd, o, "link_speed_max_gts", -1);
}

static void check(reader *rd, json_t *o, size_t index, gv_check_result *c)
{
    snprintf(rd->where, sizeof rd->where, "checks[%zu]", index);
    memset(c, 0, sizeof *c);
    c->struct_size = sizeof *c;
    text(rd, o, "id", c->id, sizeof c->id);
    text(rd, o, "subject", c->subject, sizeof c->subject);
    c->verdict = -1;
    const char *verdict = json_string_value(json_object_get(o, "verdict"));
    for (int32_t v = GV_PASS; verdict && v <= GV_ERROR; v++)
        if (strcmp(verdict, gv_verdict_name(v)) == 0)
            c->verdict = v;
    if (c->verdict < 0)
        bad(rd, "verdict", "PASS, WARN, FAIL, SKIP or ERROR");
    text(rd, o, "message", c->message, sizeof c->message);
    text(rd, o, "measured", c->measured, sizeof c->measured);
    c->value = number(rd, o, "value", NAN);
    text(rd, o, "unit", c->unit, sizeof c->unit);
    text(rd, o, "expected", c->expected, sizeof c->expected);
    text(rd, o, "expected_source", c->expected_source, sizeof c->expected_source);
    text(rd, o, "remediation", c->remediation, sizeof c->remediation);
    c->duration_s = number(rd, o, "duration_s", 0);
    /* Version 5: a row no judgement because another gpuverify held its GPU. */
    json_t *held = json_object_get(o, "held_by");
    if (json_is_object(held)) {
        c->held_by_other = 1;
        json_int_t pid = json_integer_value(json_object_get(held, "pid"));
        c->held_by_pid = pid > 0 && pid <= INT32_MAX ? (int32_t)pid : 0;
        json_t *s = json_object_get(held, "held_s");
        c->held_s = json_is_number(s) ? json_number_value(s) : -1;
    }
    /* Version 7: the row's action (absent before: none) and its fingerprint. */
    const char *action = json_string_value(json_object_get(o, "action"));
    int32_t named = gv_action_named(action);
    if (named >= 0)
        c->action = named;
    if (json_object_get(o, "action") && !action)
        bad(rd, "action", "a string");
    json_t *fp = json_object_get(o, "fingerprint");
    if (json_is_object(fp)) {
        text(rd, fp, "hash", c->fingerprint, sizeof c->fingerprint);
        text(rd, fp, "key", c->fingerprint_key, sizeof c->fingerprint_key);
    }
}

static void read_report(reader *rd, json_t *root, gv_report *r)
{
    text(rd, root, "hostname", r->hostname, sizeof r->hostname);
    text(rd, root, "sysroot", r->sysroot, sizeof r->sysroot);
    text(rd, root, "started_at", r->started_at, sizeof r->started_at);
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = r->started_at[0] ? strptime(r->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
    r->started_unix = end && !*end ? (long long)timegm(&tm) : 0;
    r->duration_s = number(rd, root, "duration_s", 0);
    text(rd, root, "level", r->level, sizeof r->level);
    r->budget_s = number(rd, root, "budget_s", 0);
    /* Schema version 2: a version 1 report has neither. */
    if (json_object_get(root, "isolation"))
        text(rd, root, "isolation", r->isolation, sizeof r->isolation);
    if (json_object_get(root, "isolation_detail"))
        text(rd, root, "isolation_detail", r->isolation_detail, sizeof r->isolation_detail);
    json_t *d = json_object_get(root, "driver"), *gpus = json_object_get(root, "gpus"),
           *checks = json_object_get(root, "checks");
    if (!json_is_object(d) || !json_is_array(gpus) || !json_is_array(checks)) {
        bad(rd, "driver/gpus/checks", "an object and two arrays");
        return;
    }
    driver(rd, d, &r->driver);
    size_t n = json_array_size(gpus), m = json_array_size(checks);
    r->gpus = n ? calloc(n, sizeof *r->gpus) : NULL;
    r->results = m ? calloc(m, sizeof *r->results) : NULL;
    if ((n && !r->gpus) || (m && !r->results)) {
        rd->status = gv_fail(rd->ctx, GV_ERR_NO_MEMORY, "out of memory reading a report");
        return;
    }
    for (size_t i = 0; i < n && rd->status == GV_OK; i++)
        gpu(rd, json_array_get(gpus, i), i, &r->gpus[i]);
    r->gpu_count = n;
    for (size_t i = 0; i < m && rd->status == GV_OK; i++)
        check(rd, json_array_get(checks, i), i, &r->results[i]);
    r->count = r->cap = m;
    for (size_t i = 0; i < m && rd->status == GV_OK; i++)
        rd->status = gv_series_from_json(rd->ctx, json_array_get(checks, i), r, i);
    for (size_t i = 0; i < m && rd->status == GV_OK; i++)
        rd->status = gv_counters_from_json(rd->ctx, json_array_get(checks, i), r, i);
}

gv_status gv_result_from_json(gv_ctx *ctx, json_t *o, gv_check_result *out)
{
    reader rd = {.ctx = ctx, .status = GV_OK};
    if (!json_is_object(o))
        return gv_fail(ctx, GV_ERR_PARSE, "report JSON: a check result is not an object");
    check(&rd, o, 0, out);
    return rd.status;
}

gv_status gv_report_from_jansson(gv_ctx *ctx, json_t *root, gv_report **out)
{
    *out = NULL;
    reader rd = {.ctx = ctx, .status = GV_OK};
    json_t *version = json_object_get(root, "schema_version");
    gv_report *r = calloc(1, sizeof *r);
    if (!r)
        rd.status = gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory reading a report");
    else if (!json_is_integer(version) || json_integer_value(version) < 1 ||
             json_integer_value(version) > 9)
        rd.status = gv_fail(ctx, GV_ERR_PARSE,
                            "report JSON: schema_version %s: this library reads versions 1 to 9",
                            json_is_integer(version) ? "is not 1 to 9" : "missing");
    else
        read_report(&rd, root, r);
    if (rd.status != GV_OK) {
        gv_report_free(r);
        return rd.status;
    }
    r->flushed = r->count;
    *out = r;
    return GV_OK;
}

gv_status gv_report_from_json(gv_ctx *ctx, const char *json, gv_report **out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!json || !out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_report_from_json: json or out is NULL");
    *out = NULL;
    json_error_t err;
    json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return gv_fail(ctx, GV_ERR_PARSE, "report JSON: line %d: %s", err.line, err.text);
    gv_status s = gv_report_from_jansson(ctx, root, out);
    json_decref(root);
    return s;
}
