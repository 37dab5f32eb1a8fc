/* SPDX-License-Identifier: Apache-2.0 */
/* The output style gv-rdma and gv-gpudirect share, that of readiness shell scripts (verify-rdma,
 * verify-gpudirect): sections under a banner, one [OK]/[WARN]/[FAIL]/[SKIP]/[ERROR] line per
 * check result, and the closing counts. */
#ifndef GV_EXAMPLES_SECTIONS_H
#define GV_EXAMPLES_SECTIONS_H

#include <gpuverify/gpuverify.h>
#include <stddef.h>

typedef struct tool_section {
    const char *title;
    const char *checks; /* check IDs or prefixes, comma-separated ("rdma.devices,rdma.ports") */
} tool_section;

/* Printed after a section's lines (extra facts, like `rdma link show`). */
typedef void (*section_extra_fn)(gv_ctx *ctx, const gv_report *report, size_t section);

/* The whole tool: options (--sysroot DIR, --library-dir DIR, --topology-xml FILE,
 * --policy FILE, --json, --version, -h/--help; cli.h's conventions), a gv_run of every
 * section's checks, the sections (tags coloured where gv_cli_colour says) or the JSON report.
 * Exit 0 healthy, 1 on FAIL or ERROR, 2 on bad usage or when the checks could not run. */
int sections_main(int argc, char **argv, const char *tool, const tool_section *sections, size_t n,
                  section_extra_fn extra);

#endif
