/* SPDX-License-Identifier: Apache-2.0 */
#include "sections.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const banner = "==========================================";

static void usage(const char *tool)
{
    printf("usage: %s [--sysroot DIR] [--library-dir DIR] [--topology-xml FILE]\n"
           "       %*s [--policy FILE] [--json] [--version]\n"
           "  --sysroot DIR       judge a captured node tree (/proc, /sys, /etc) offline\n"
           "  --library-dir DIR   load the NVIDIA and RDMA libraries from DIR only\n"
           "  --topology-xml F    GPU/NIC locality from this `lstopo --of xml` file\n"
           "  --policy FILE       the site's expectations, key = value lines (the keys:\n"
           "                      docs/checks.md#policy)\n"
           "  --json              the gpuverify report as JSON (docs/report.schema.json)\n"
           "Exit status: 0 healthy, 1 a check FAILed or ERRORed, 2 usage or library error.\n",
           tool, (int)strlen(tool), "");
}

/* Whether id is named by the comma-separated list (an ID, or a prefix ending at a dot). */
static int listed(const char *list, const char *id)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (strncmp(id, p, len) == 0 && (id[len] == '\0' || id[len] == '.'))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static const char *tag(int32_t verdict)
{
    switch (verdict) {
    case GV_PASS:
        return "[OK]";
    case GV_WARN:
        return "[WARN]";
    case GV_FAIL:
        return "[FAIL]";
    case GV_SKIP:
        return "[SKIP]";
    default:
        return "[ERROR]";
    }
}

/* The row as "[OK] message" (its fix under it), counted by verdict. */
static void print_row(const gv_check_result *c, int colour, unsigned counts[5])
{
    const char *on = colour ? gv_cli_verdict_colour(c->verdict) : "";
    printf("%s%s%s %s\n", on, tag(c->verdict), *on ? "\033[0m" : "", c->message);
    if (c->remediation[0] && c->verdict != GV_PASS)
        printf("       fix: %s\n", c->remediation);
    if (c->verdict >= GV_PASS && c->verdict <= GV_ERROR)
        counts[c->verdict]++;
}

/* Whether a section of the tool lists the check. */
static int in_a_section(const tool_section *sections, size_t n, const char *id)
{
    for (size_t s = 0; s < n; s++)
        if (listed(sections[s].checks, id))
            return 1;
    return 0;
}

/* The sections, then the rows the run added beyond them (a check the sections' rows left their
 * judgement to: driver.gpu_count on a node without a GPU), and the counts; the exit status is
 * the report's verdict's, as with --json. */
static int print_sections(gv_ctx *ctx, const gv_report *r, const tool_section *sections, size_t n,
                          section_extra_fn extra)
{
    unsigned counts[5] = {0};
    int colour = gv_cli_colour(stdout), others = 0;
    for (size_t s = 0; s <= n; s++) {
        if (s < n)
            printf("%s\n%s\n%s\n", banner, sections[s].title, banner);
        for (uint32_t i = 0; i < gv_report_count(r); i++) {
            gv_check_result c = GV_CHECK_RESULT_INIT;
            if (gv_report_result(r, i, &c) != GV_OK ||
                (s < n ? !listed(sections[s].checks, c.id) : in_a_section(sections, n, c.id)))
                continue;
            if (s == n && !others++)
                printf("%s\nAlso judged (what the checks above rely on)\n%s\n", banner, banner);
            print_row(&c, colour, counts);
        }
        if (extra && s < n)
            extra(ctx, r, s);
        if (s < n || others)
            printf("\n");
    }
    printf("%s\nResults\n%s\nOK: %u  WARN: %u  FAIL: %u", banner, banner, counts[GV_PASS],
           counts[GV_WARN], counts[GV_FAIL]);
    if (counts[GV_SKIP] || counts[GV_ERROR])
        printf("  (SKIP: %u  ERROR: %u)", counts[GV_SKIP], counts[GV_ERROR]);
    printf("\n");
    int32_t v = gv_report_verdict(r);
    return v == GV_FAIL || v == GV_ERROR;
}

int sections_main(int argc, char **argv, const char *tool, const tool_section *sections, size_t n,
                  section_extra_fn extra)
{
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    gv_policy policy = GV_POLICY_INIT;
    const char *policy_path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(tool);
            return 0;
        } else if (!strcmp(a, "--version")) {
            gv_cli_version(tool);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (strcmp(a, "--sysroot") && strcmp(a, "--library-dir") &&
                   strcmp(a, "--topology-xml") && strcmp(a, "--policy")) {
            return gv_cli_unknown(tool, a);
        } else if (!(v = gv_cli_value(tool, argc, argv, &i))) {
            return GV_CLI_USAGE;
        } else if (!strcmp(a, "--sysroot")) {
            co.sysroot = v;
        } else if (!strcmp(a, "--library-dir")) {
            co.library_dir = v;
        } else if (!strcmp(a, "--topology-xml")) {
            ro.topology_xml = v;
        } else {
            policy_path = v;
        }
    }
    char checks[512] = "";
    for (size_t s = 0; s < n; s++)
        snprintf(checks + strlen(checks), sizeof checks - strlen(checks), "%s%s", s ? "," : "",
                 sections[s].checks);
    ro.checks = checks;
    gv_ctx *ctx = NULL;
    gv_status st = gv_ctx_create(&co, &ctx);
    if (st != GV_OK) {
        fprintf(stderr, "%s: %s\n", tool, gv_cli_reason(NULL, st));
        return 2;
    }
    gv_report *r = NULL;
    if (policy_path && (st = gv_policy_load(ctx, policy_path, &policy)) == GV_OK)
        ro.policy = &policy;
    if (st != GV_OK || (st = gv_run(ctx, &ro, &r)) != GV_OK) {
        fprintf(stderr, "%s: %s\n", tool, gv_cli_reason(ctx, st));
        gv_ctx_destroy(ctx);
        return 2;
    }
    int rc;
    if (json) {
        char *text = NULL;
        if (gv_report_json(r, 0, &text) != GV_OK) {
            fprintf(stderr, "%s: cannot render JSON: %s\n", tool, gv_ctx_last_error(ctx));
            rc = 2;
        } else {
            printf("%s\n", text);
            int32_t v = gv_report_verdict(r);
            rc = v == GV_FAIL || v == GV_ERROR;
        }
        gv_free(text);
    } else {
        rc = print_sections(ctx, r, sections, n, extra);
    }
    gv_report_free(r);
    gv_ctx_destroy(ctx);
    return rc;
}
