/* SPDX-License-Identifier: Apache-2.0 */
/* The report as JSON, through jansson. Keys are stable: never renamed once released. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "report/report.h"

/* 2: isolation and isolation_detail added (docs/report.schema.v1.json is version 1);
 * 3: a check's optional series (docs/report.schema.v2.json is version 2);
 * 4: a GPU's inaccessible (docs/report.schema.v3.json is version 3).
 * 5: a check's optional held_by (docs/report.schema.v4.json is version 4).
 * 6: a GPU's verdict and failed_checks (docs/report.schema.v5.json is version 5).
 * 7: the node's and each check's action, a check's optional fingerprint (docs/report.schema.v6.json
 *    is version 6). */
#define GV_REPORT_SCHEMA_VERSION 9

/* -1 (unknown) becomes null, so no consumer mistakes it for a value. */
static json_t *int_or_null(long long v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/* Text read from a node's files may not be UTF-8: such bytes become '?' rather than the key
 * going missing (jansson refuses invalid UTF-8). */
static json_t *str(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char clean[1024];
    size_t n = 0;
    for (; s[n] && n < sizeof clean - 1; n++)
        clean[n] = (unsigned char)s[n] < 0x80 ? s[n] : '?';
    clean[n] = '\0';
    return json_string(clean);
}

static json_t *text_or_null(const char *s)
{
    return s && *s ? str(s) : json_null();
}

static json_t *real_or_null(double v)
{
    return isfinite(v) && v >= 0 ? json_real(v) : json_null();
}

const char *const gv_module_kind_names[GV_MODULE_KIND_NAMES] = {"unknown", "open", "proprietary"};
const char *const gv_library_state_names[GV_LIBRARY_STATE_NAMES] = {"loaded", "absent", "broken",
                                                                    "not_queried"};

static const char *state_name(int32_t s)
{
    return s >= 0 && s < GV_LIBRARY_STATE_NAMES ? gv_library_state_names[s] : "unknown";
}

static json_t *driver_json(const gv_driver_info *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "module_loaded",
                        d->module_loaded < 0 ? json_null() : json_boolean(d->module_loaded));
    json_object_set_new(o, "module_kind",
                        json_string(d->module_kind >= 0 && d->module_kind < GV_MODULE_KIND_NAMES
                                        ? gv_module_kind_names[d->module_kind]
                                        : "unknown"));
    json_object_set_new(o, "module_version", text_or_null(d->module_version));
    json_object_set_new(o, "nouveau_loaded",
                        d->nouveau_loaded < 0 ? json_null() : json_boolean(d->nouveau_loaded));
    json_object_set_new(o, "os", text_or_null(d->os_name));
    json_object_set_new(o, "kernel", text_or_null(d->kernel_release));
    json_object_set_new(o, "nvml", json_string(state_name(d->nvml_state)));
    json_object_set_new(o, "cuda", json_string(state_name(d->cuda_state)));
    json_object_set_new(o, "driver_version", text_or_null(d->driver_version));
    json_object_set_new(o, "nvml_version", text_or_null(d->nvml_version));
    json_object_set_new(o, "cuda_driver_version", int_or_null(d->cuda_driver_version));
    json_object_set_new(o, "nvml_cuda_version", int_or_null(d->nvml_cuda_version));
    json_object_set_new(o, "nvml_init_result", int_or_null(d->nvml_init_result));
    json_object_set_new(o, "cuda_init_result", int_or_null(d->cuda_init_result));
    json_object_set_new(o, "gpu_count_pci", int_or_null(d->gpu_count_pci));
    json_object_set_new(o, "gpu_count_nvml", int_or_null(d->gpu_count_nvml));
    json_object_set_new(o, "gpu_count_cuda", int_or_null(d->gpu_count_cuda));
    json_object_set_new(o, "gpu_count", json_integer(d->gpu_count));
    return o;
}

static json_t *gpu_json(const gv_gpu *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(g->index));
    json_object_set_new(o, "nvml_index", int_or_null(g->nvml_index));
    json_object_set_new(o, "cuda_index", int_or_null(g->cuda_index));
    json_object_set_new(o, "name", text_or_null(g->name));
    json_object_set_new(o, "uuid", text_or_null(g->uuid));
    json_object_set_new(o, "serial", text_or_null(g->serial));
    json_object_set_new(o, "pci_bus_id", text_or_null(g->pci_bus_id));
    json_object_set_new(o, "pci_vendor_id", int_or_null(g->pci_vendor_id));
    json_object_set_new(o, "pci_device_id", int_or_null(g->pci_device_id));
    json_object_set_new(o, "pci_class", int_or_null(g->pci_class));
    json_object_set_new(o, "numa_node", int_or_null(g->numa_node));
    json_object_set_new(o, "local_cpus", text_or_null(g->local_cpus));
    json_object_set_new(o, "memory_total_bytes", int_or_null(g->memory_total));
    json_object_set_new(o, "memory_used_bytes", int_or_null(g->memory_used));
    json_object_set_new(o, "memory_free_bytes", int_or_null(g->memory_free));
    json_object_set_new(o, "compute_capability",
                        g->cc_major < 0 ? json_null()
                                        : json_sprintf("%d.%d", (int)g->cc_major,
                                                       (int)(g->cc_minor < 0 ? 0 : g->cc_minor)));
    json_object_set_new(o, "sm_count", int_or_null(g->sm_count));
    json_object_set_new(o, "max_sm_clock_mhz", int_or_null(g->max_sm_clock_mhz));
    json_object_set_new(o, "vbios", text_or_null(g->vbios));
    json_object_set_new(o, "inforom_image", text_or_null(g->inforom_image));
    json_object_set_new(o, "gsp_firmware", text_or_null(g->gsp_firmware));
    json_object_set_new(o, "board_part_number", text_or_null(g->board_part_number));
    json_object_set_new(o, "persistence_mode", int_or_null(g->persistence_mode));
    json_object_set_new(o, "ecc_current", int_or_null(g->ecc_current));
    json_object_set_new(o, "ecc_pending", int_or_null(g->ecc_pending));
    json_object_set_new(o, "mig_current", int_or_null(g->mig_current));
    json_object_set_new(o, "mig_pending", int_or_null(g->mig_pending));
    json_object_set_new(o, "compute_mode", int_or_null(g->compute_mode));
    json_object_set_new(o, "power_limit_mw", int_or_null(g->power_limit_mw));
    json_object_set_new(o, "temperature_c", int_or_null(g->temperature_c));
    json_object_set_new(o, "pcie_gen_current", int_or_null(g->pcie_gen_current));
    json_object_set_new(o, "pcie_gen_max", int_or_null(g->pcie_gen_max));
    json_object_set_new(o, "pcie_width_current", int_or_null(g->pcie_width_current));
    json_object_set_new(o, "pcie_width_max", int_or_null(g->pcie_width_max));
    json_object_set_new(o, "link_speed_current_gts", real_or_null(g->link_speed_current_gts));
    json_object_set_new(o, "link_speed_max_gts", real_or_null(g->link_speed_max_gts));
    json_object_set_new(o, "link_width_current", int_or_null(g->link_width_current_sysfs));
    json_object_set_new(o, "link_width_max", int_or_null(g->link_width_max_sysfs));
    json_object_set_new(o, "nvml_result", json_integer(g->nvml_result));
    json_object_set_new(o, "inaccessible", json_integer(g->inaccessible));
    return o;
}

/* Version 6: the GPU's verdict from its rows (gv_report_gpu_verdict) and the IDs of the checks
 * that gave it, each once, when it is FAIL or ERROR ([] otherwise). Derived from the rows, so
 * the reader recomputes them rather than reading them. */
static json_t *gpu_verdict_json(const gv_report *r, json_t *o, uint32_t gpu)
{
    int32_t verdict = gv_gpu_verdict_of(r, gpu);
    json_t *ids = json_array();
    for (size_t i = 0; (verdict == GV_FAIL || verdict == GV_ERROR) && i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        if (c->verdict != verdict || gv_subject_gpu(c->subject) != (long)gpu)
            continue;
        int seen = 0;
        for (size_t k = 0; k < json_array_size(ids) && !seen; k++)
            seen = strcmp(json_string_value(json_array_get(ids, k)), c->id) == 0;
        if (!seen)
            json_array_append_new(ids, str(c->id));
    }
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(verdict)));
    json_object_set_new(o, "failed_checks", ids);
    return o;
}

json_t *gv_result_to_json(const gv_check_result *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", str(c->id));
    json_object_set_new(o, "subject", str(c->subject));
    json_object_set_new(o, "verdict", json_string(gv_verdict_name(c->verdict)));
    json_object_set_new(o, "message", str(c->message));
    json_object_set_new(o, "measured", text_or_null(c->measured));
    json_object_set_new(o, "value", isfinite(c->value) ? json_real(c->value) : json_null());
    json_object_set_new(o, "unit", text_or_null(c->unit));
    json_object_set_new(o, "expected", text_or_null(c->expected));
    json_object_set_new(o, "expected_source", text_or_null(c->expected_source));
    json_object_set_new(o, "remediation", text_or_null(c->remediation));
    json_object_set_new(o, "duration_s", json_real(c->duration_s));
    json_object_set_new(o, "action", json_string(gv_action_name(c->action)));
    if (c->fingerprint[0]) {
        json_t *fp = json_object();
        json_object_set_new(fp, "hash", str(c->fingerprint));
        json_object_set_new(fp, "key", str(c->fingerprint_key));
        json_object_set_new(o, "fingerprint", fp);
    }
    if (c->held_by_other) {
        json_t *held = json_object();
        json_object_set_new(held, "pid",
                            c->held_by_pid > 0 ? json_integer(c->held_by_pid) : json_null());
        json_object_set_new(held, "held_s", c->held_s >= 0 ? json_real(c->held_s) : json_null());
        json_object_set_new(o, "held_by", held);
    }
    return o;
}

json_t *gv_report_to_json(const gv_report *r)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema_version", json_integer(GV_REPORT_SCHEMA_VERSION));
    json_object_set_new(root, "gpuverify_version", json_string(gv_version_string()));
    json_object_set_new(root, "hostname", text_or_null(r->hostname));
    json_object_set_new(root, "sysroot", str(r->sysroot));
    json_object_set_new(root, "started_at", text_or_null(r->started_at));
    json_object_set_new(root, "duration_s", json_real(r->duration_s));
    json_object_set_new(root, "level", text_or_null(r->level));
    json_object_set_new(root, "budget_s", real_or_null(r->budget_s));
    json_object_set_new(root, "isolation", text_or_null(r->isolation));
    json_object_set_new(root, "isolation_detail", text_or_null(r->isolation_detail));
    json_object_set_new(root, "verdict", json_string(gv_verdict_name(gv_report_verdict(r))));
    json_object_set_new(root, "action", json_string(gv_action_name(gv_report_action(r))));
    json_t *summary = json_object();
    for (int v = GV_PASS; v <= GV_ERROR; v++) {
        size_t n = 0;
        for (size_t i = 0; i < r->count; i++)
            n += r->results[i].verdict == v;
        json_object_set_new(summary, gv_verdict_name(v), json_integer((json_int_t)n));
    }
    json_object_set_new(root, "summary", summary);
    json_object_set_new(root, "driver", driver_json(&r->driver));
    json_t *gpus = json_array();
    for (size_t i = 0; i < r->gpu_count; i++)
        json_array_append_new(gpus, gpu_verdict_json(r, gpu_json(&r->gpus[i]), r->gpus[i].index));
    json_object_set_new(root, "gpus", gpus);
    json_t *checks = json_array();
    for (size_t i = 0; i < r->count; i++)
        json_array_append_new(checks, gv_report_row_to_json(r, i));
    json_object_set_new(root, "checks", checks);
    return root;
}

gv_status gv_report_json(const gv_report *r, uint32_t flags, char **out)
{
    GV_IN_C_LOCALE();
    if (!out)
        return GV_ERR_INVALID_ARG;
    *out = NULL;
    if (!r || (flags & ~GV_JSON_COMPACT))
        return GV_ERR_INVALID_ARG;
    json_t *root = gv_report_to_json(r);
    size_t jflags = JSON_ENSURE_ASCII | ((flags & GV_JSON_COMPACT) ? JSON_COMPACT : JSON_INDENT(2));
    char *text = root ? json_dumps(root, jflags) : NULL;
    json_decref(root);
    if (!text)
        return GV_ERR_NO_MEMORY;
    /* Hand out memory that gv_free (plain free) releases, whatever jansson's allocator is. */
    *out = strdup(text);
    free(text);
    return *out ? GV_OK : GV_ERR_NO_MEMORY;
}
