/* SPDX-License-Identifier: Apache-2.0 */
/* The report in Prometheus' text exposition format (version 0.0.4), for node_exporter's
 * textfile collector (docs/outputs.md, "Prometheus").
 *
 * One metric per quantity, in base units named in the metric (`_celsius`, `_bytes`,
 * `_seconds`, `_watts`, `_ratio`, `_bytes_per_second`, `_flops_per_second`), counters that only
 * grow as `_total`; a GPU's series carry dcgm-exporter's labels (gpu, UUID, pci_bus_id,
 * Hostname) so that they join its DCGM_FI_* series `on(UUID)`; a node's carry Hostname. A
 * check's verdict is one series per WARN, FAIL or ERROR row (gpuverify_check_status, with the
 * row's action), none for PASS or SKIP; the node's action is one series (gpuverify_node_action).
 * Everything comes from the report's rows and its GPU inventory, so a report read
 * back from its JSON renders the same text.
 *
 * Metric and label names are stable like the JSON keys: a rename keeps the old name beside the
 * new one for one release. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/prometheus.h"
#include "report/report.h"

/* A metric's definition (metrics.def); which rows feed it is their check's catalog line's. */
enum scope { GPU, NODE };

typedef struct metric_def {
    const char *name;
    const char *type; /* "gauge" or "counter" (name ends in _total) */
    enum scope scope;
    const char *unit; /* the rows' unit */
    double scale;     /* into the base unit */
    const char *help;
} metric_def;

#define GIGA 1e9
#define TERA 1e12
#define MIB 1048576.0

static const metric_def metrics[] = {
    [GV_METRIC_none] = {0},
#define GV_METRIC(nm, ty, sc, un, scl, hlp)                                                        \
    [GV_METRIC_##nm] = {                                                                           \
        .name = "gpuverify_" #nm, .type = ty, .scope = sc, .unit = un, .scale = scl, .help = hlp},
#include "report/metrics.def"
#undef GV_METRIC
};

/* A label, after a comma unless it is the first: backslash, double quote and line feed
 * escaped, as the format requires. An empty value is no label (Prometheus reads them alike). */
static void label(FILE *f, int *first, const char *name, const char *value)
{
    if (!value[0])
        return;
    fprintf(f, "%s%s=\"", *first ? "" : ",", name);
    *first = 0;
    for (const char *c = value; *c; c++) {
        if (*c == '\\' || *c == '"')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* N of a "gpuN" subject, -1 for another subject. */
static long subject_index(const char *subject)
{
    return gv_subject_gpu(subject);
}

/* The inventory's GPU of index n; NULL when it lacks one. */
static const gv_gpu *inventory_gpu(const gv_report *r, long n)
{
    if (n >= 0 && (size_t)n < r->gpu_count && r->gpus[n].index == (uint32_t)n)
        return &r->gpus[n];
    for (size_t i = 0; n >= 0 && i < r->gpu_count; i++)
        if (r->gpus[i].index == (uint32_t)n)
            return &r->gpus[i];
    return NULL;
}

/* A PCI bus ID as NVML and DCGM write it: an eight-digit domain, upper-case hex
 * ("0000:18:00.0" -> "00000000:18:00.0"); wider domains keep their digits. */
static void nvml_bus_id(const char *sysfs, char *out, size_t cap)
{
    const char *colon = strchr(sysfs, ':');
    size_t pad = colon && colon - sysfs < 8 ? 8 - (size_t)(colon - sysfs) : 0;
    size_t n = 0;
    for (; n < pad && n + 1 < cap; n++)
        out[n] = '0';
    for (const char *c = sysfs; *c && n + 1 < cap; c++)
        out[n++] = (char)toupper((unsigned char)*c);
    out[n] = '\0';
}

/* dcgm-exporter's labels of a row's subject: gpu, UUID, pci_bus_id for a GPU (its model is
 * left to DCGM's series: promtool refuses the camelCase modelName), and Hostname. */
static void subject_labels(FILE *f, int *first, const gv_report *r, const char *subject)
{
    long n = subject_index(subject);
    const gv_gpu *g = inventory_gpu(r, n);
    if (n >= 0) {
        char index[16], bus[48] = "";
        snprintf(index, sizeof index, "%ld", n);
        label(f, first, "gpu", index);
        if (g) {
            label(f, first, "UUID", g->uuid);
            nvml_bus_id(g->pci_bus_id, bus, sizeof bus);
            label(f, first, "pci_bus_id", bus);
        }
    }
    label(f, first, "Hostname", r->hostname);
}

/* The metric a row feeds, NULL for none: its check's, when the row's value is finite, its unit
 * the metric's and its subject of the metric's kind ("gpuN" or "node"). */
static const metric_def *row_metric(const gv_check_result *c, gv_metric_of_fn check_metric)
{
    int k = check_metric(c->id);
    if (!isfinite(c->value) || k <= GV_METRIC_none || (size_t)k >= sizeof metrics / sizeof *metrics)
        return NULL;
    const metric_def *m = &metrics[k];
    if (strcmp(c->unit, m->unit) != 0)
        return NULL;
    return (m->scope == GPU ? subject_index(c->subject) >= 0 : strcmp(c->subject, "node") == 0)
               ? m
               : NULL;
}

static void render(const gv_report *r, gv_metric_of_fn check_metric, FILE *f)
{
    int first = 1;
    family(f, "gpuverify_info", "gauge",
           "The gpuverify library and the node it judged (always 1).");
    fputs("gpuverify_info{", f);
    label(f, &first, "version", gv_version_string());
    label(f, &first, "Hostname", r->hostname);
    label(f, &first, "driver_version", r->driver.driver_version);
    label(f, &first, "kernel", r->driver.kernel_release);
    fputs("} 1\n", f);
    int32_t verdict = gv_report_verdict(r);
    family(f, "gpuverify_node_healthy", "gauge",
           "1 when no check failed or errored (warnings and skips count as healthy), else 0.");
    fprintf(f, "gpuverify_node_healthy %d\n", verdict != GV_FAIL && verdict != GV_ERROR);
    /* One series whose label names the action and whose value orders it, so that an alert can
     * say which (the label) or compare (> 3: a reset, a reboot or an inspection). */
    int32_t action = gv_report_action(r);
    family(f, "gpuverify_node_action", "gauge",
           "What to do about the node, the strongest of its checks' actions: 0 none, 1 rerun, 2 "
           "wait, 3 fix_config, 4 reset_gpu, 5 reboot_node, 6 hw_inspect.");
    fprintf(f, "gpuverify_node_action{action=\"%s\"} %d\n", gv_action_name(action), (int)action);
    family(f, "gpuverify_checks", "gauge",
           "Rows (a check on one subject: a GPU, a port) in this run per verdict.");
    for (int v = GV_PASS; v <= GV_ERROR; v++) {
        size_t n = 0;
        for (size_t i = 0; i < r->count; i++)
            n += r->results[i].verdict == v;
        fprintf(f, "gpuverify_checks{verdict=\"%s\"} %zu\n", gv_verdict_name(v), n);
    }
    family(f, "gpuverify_check_status", "gauge",
           "1 for each check row that WARNed, FAILed or ERRORed, with what to do about it "
           "(action); PASS and SKIP rows have none.");
    for (size_t i = 0; i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        if (c->verdict != GV_WARN && c->verdict != GV_FAIL && c->verdict != GV_ERROR)
            continue;
        first = 1;
        fputs("gpuverify_check_status{", f);
        label(f, &first, "check", c->id);
        label(f, &first, "subject", c->subject);
        label(f, &first, "verdict", gv_verdict_name(c->verdict));
        label(f, &first, "action", gv_action_name(c->action));
        subject_labels(f, &first, r, c->subject);
        fputs("} 1\n", f);
    }
    /* One series per GPU of the inventory that this process was given (a GPU set apart has no
     * rows: nothing judged it); node rows count for no GPU (gpuverify_node_healthy says them). */
    int usable_header = 0;
    for (size_t i = 0; i < r->gpu_count; i++) {
        const gv_gpu *g = &r->gpus[i];
        if (g->inaccessible)
            continue;
        if (!usable_header++)
            family(f, "gpuverify_gpu_usable", "gauge",
                   "1 when no check of this GPU failed or errored (warnings and skips count as "
                   "usable), else 0; node-wide checks count for no GPU.");
        int32_t v = gv_gpu_verdict_of(r, g->index);
        char subject[24];
        snprintf(subject, sizeof subject, "gpu%u", g->index);
        first = 1;
        fputs("gpuverify_gpu_usable{", f);
        subject_labels(f, &first, r, subject);
        fprintf(f, "} %d\n", v != GV_FAIL && v != GV_ERROR);
    }
    for (size_t k = GV_METRIC_none + 1; k < sizeof metrics / sizeof *metrics; k++) {
        const metric_def *m = &metrics[k];
        int header = 0;
        for (size_t i = 0; i < r->count; i++) {
            const gv_check_result *c = &r->results[i];
            if (row_metric(c, check_metric) != m)
                continue;
            if (!header++)
                family(f, m->name, m->type, m->help);
            first = 1;
            fprintf(f, "%s{", m->name);
            label(f, &first, "check", c->id);
            subject_labels(f, &first, r, c->subject);
            fprintf(f, "} %.17g\n", c->value * m->scale);
        }
    }
    family(f, "gpuverify_run_duration_seconds", "gauge", "How long the run took.");
    fprintf(f, "gpuverify_run_duration_seconds %.6f\n", r->duration_s);
    if (r->started_unix > 0) {
        family(f, "gpuverify_run_timestamp_seconds", "gauge", "When the run started, Unix time.");
        fprintf(f, "gpuverify_run_timestamp_seconds %lld\n", r->started_unix);
    }
}

gv_status gv_report_prometheus_text(const gv_report *r, uint32_t flags, gv_metric_of_fn metric_of,
                                    char **out)
{
    if (!out)
        return GV_ERR_INVALID_ARG;
    *out = NULL;
    if (!r || flags || !metric_of)
        return GV_ERR_INVALID_ARG;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return GV_ERR_NO_MEMORY;
    render(r, metric_of, f);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(text);
        return GV_ERR_NO_MEMORY;
    }
    *out = text; /* plain malloc: gv_free releases it */
    return GV_OK;
}
