/* The report in Prometheus' text exposition format (version 0.0.4), for node_exporter's
 * textfile collector. Metric and label names are stable like the JSON keys. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* A label value: backslash, double quote and line feed escaped, as the format requires. */
static void label(FILE *f, const char *name, const char *value, int last)
{
    fprintf(f, "%s=\"", name);
    for (const char *c = value; *c; c++) {
        if (*c == '\\' || *c == '"')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else
            fputc(*c, f);
    }
    fputs(last ? "\"" : "\",", f);
}

static void family(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void render(const gv_report *r, FILE *f)
{
    family(f, "gpuverify_info", "The gpuverify library and the node it judged (always 1).");
    fputs("gpuverify_info{", f);
    label(f, "version", gv_version_string(), 0);
    label(f, "hostname", r->hostname, 0);
    label(f, "driver_version", r->driver.driver_version, 0);
    label(f, "kernel", r->driver.kernel_release, 1);
    fputs("} 1\n", f);
    int32_t verdict = gv_report_verdict(r);
    family(f, "gpuverify_node_healthy",
           "1 when no check failed or errored (warnings and skips count as healthy), else 0.");
    fprintf(f, "gpuverify_node_healthy %d\n", verdict != GV_FAIL && verdict != GV_ERROR);
    family(f, "gpuverify_checks", "Checks in this run per verdict.");
    for (int v = GV_PASS; v <= GV_ERROR; v++) {
        size_t n = 0;
        for (size_t i = 0; i < r->count; i++)
            n += r->results[i].verdict == v;
        fprintf(f, "gpuverify_checks{verdict=\"%s\"} %zu\n", gv_verdict_name(v), n);
    }
    family(f, "gpuverify_check_verdict",
           "Each check's verdict as a state set: 1 for the verdict it got, 0 for the others.");
    for (size_t i = 0; i < r->count; i++)
        for (int v = GV_PASS; v <= GV_ERROR; v++) {
            const gv_check_result *c = &r->results[i];
            fputs("gpuverify_check_verdict{", f);
            label(f, "check", c->id, 0);
            label(f, "subject", c->subject, 0);
            label(f, "verdict", gv_verdict_name(v), 1);
            fprintf(f, "} %d\n", c->verdict == v);
        }
    family(f, "gpuverify_check_value", "The value a check measured, in the unit of its label.");
    for (size_t i = 0; i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        if (!isfinite(c->value))
            continue;
        fputs("gpuverify_check_value{", f);
        label(f, "check", c->id, 0);
        label(f, "subject", c->subject, 0);
        label(f, "unit", c->unit, 1);
        fprintf(f, "} %.17g\n", c->value);
    }
    family(f, "gpuverify_run_duration_seconds", "How long the run took.");
    fprintf(f, "gpuverify_run_duration_seconds %.6f\n", r->duration_s);
    if (r->started_unix > 0) {
        family(f, "gpuverify_run_timestamp_seconds", "When the run started, Unix time.");
        fprintf(f, "gpuverify_run_timestamp_seconds %lld\n", r->started_unix);
    }
}

gv_status gv_report_prometheus(const gv_report *r, uint32_t flags, char **out)
{
    if (!out)
        return GV_ERR_INVALID_ARG;
    *out = NULL;
    if (!r || flags)
        return GV_ERR_INVALID_ARG;
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return GV_ERR_NO_MEMORY;
    render(r, f);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(text);
        return GV_ERR_NO_MEMORY;
    }
    *out = text; /* plain malloc: gv_free releases it */
    return GV_OK;
}
