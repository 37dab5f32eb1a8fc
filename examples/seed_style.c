#include "seed_style.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const banner = "==========================================";

static int usage(const char *tool)
{
    fprintf(stderr,
            "usage: %s [--sysroot DIR] [--library-dir DIR] [--topology-xml FILE] [--json]\n", tool);
    return 2;
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

static int print_sections(gv_ctx *ctx, const gv_report *r, const seed_section *sections, size_t n,
                          seed_extra_fn extra)
{
    unsigned counts[5] = {0};
    for (size_t s = 0; s < n; s++) {
        printf("%s\n%s\n%s\n", banner, sections[s].title, banner);
        for (uint32_t i = 0; i < gv_report_count(r); i++) {
            gv_check_result c = GV_CHECK_RESULT_INIT;
            if (gv_report_result(r, i, &c) != GV_OK || !listed(sections[s].checks, c.id))
                continue;
            printf("%s %s\n", tag(c.verdict), c.message);
            if (c.remediation[0] && c.verdict != GV_PASS)
                printf("       fix: %s\n", c.remediation);
            if (c.verdict >= GV_PASS && c.verdict <= GV_ERROR)
                counts[c.verdict]++;
        }
        if (extra)
            extra(ctx, r, s);
        printf("\n");
    }
    printf("%s\nResults\n%s\nOK: %u  WARN: %u  FAIL: %u", banner, banner, counts[GV_PASS],
           counts[GV_WARN], counts[GV_FAIL]);
    if (counts[GV_SKIP] || counts[GV_ERROR])
        printf("  (SKIP: %u  ERROR: %u)", counts[GV_SKIP], counts[GV_ERROR]);
    printf("\n");
    return counts[GV_FAIL] || counts[GV_ERROR] ? 1 : 0;
}

int seed_main(int argc, char **argv, const char *tool, const seed_section *sections, size_t n,
              seed_extra_fn extra)
{
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    gv_policy policy = GV_POLICY_INIT;
    const char *policy_path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--sysroot") == 0 && i + 1 < argc)
            co.sysroot = argv[++i];
        else if (strcmp(argv[i], "--library-dir") == 0 && i + 1 < argc)
            co.library_dir = argv[++i];
        else if (strcmp(argv[i], "--topology-xml") == 0 && i + 1 < argc)
            ro.topology_xml = argv[++i];
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
            policy_path = argv[++i];
        else
            return usage(tool);
    }
    char checks[512] = "";
    for (size_t s = 0; s < n; s++)
        snprintf(checks + strlen(checks), sizeof checks - strlen(checks), "%s%s", s ? "," : "",
                 sections[s].checks);
    ro.checks = checks;
    gv_ctx *ctx = NULL;
    gv_status st = gv_ctx_create(&co, &ctx);
    if (st != GV_OK) {
        fprintf(stderr, "%s: %s: %s\n", tool, gv_strerror(st), gv_ctx_last_error(NULL));
        return 2;
    }
    gv_report *r = NULL;
    if (policy_path && (st = gv_policy_load(ctx, policy_path, &policy)) == GV_OK)
        ro.policy = &policy;
    if (st != GV_OK || (st = gv_run(ctx, &ro, &r)) != GV_OK) {
        fprintf(stderr, "%s: %s: %s\n", tool, gv_strerror(st), gv_ctx_last_error(ctx));
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
