/* SPDX-License-Identifier: Apache-2.0 */
/* Links against the installed libgpuverify and runs the driver checks on a fixture node. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (gv_version_number() / 10000 != GV_VERSION_MAJOR) {
        fprintf(stderr, "built against %d, loaded %u\n", GV_VERSION_NUMBER, gv_version_number());
        return 1;
    }
    gv_ctx_opts opts = GV_CTX_OPTS_INIT;
    opts.sysroot = argc > 1 ? argv[1] : NULL;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&opts, &ctx) != GV_OK)
        return 1;
    gv_report *report = NULL;
    gv_run_opts run = GV_RUN_OPTS_INIT;
    run.checks = "system,driver.module";
    if (gv_run(ctx, &run, &report) != GV_OK) {
        fprintf(stderr, "%s\n", gv_ctx_last_error(ctx));
        return 1;
    }
    gv_check_result r = GV_CHECK_RESULT_INIT;
    gv_report_result(report, 2, &r);
    printf("gpuverify %s: %s %s: %s\n", gv_version_string(), r.id, gv_verdict_name(r.verdict),
           r.message);
    int ok = strcmp(r.id, "driver.module") == 0;
    gv_report_free(report);
    gv_ctx_destroy(ctx);
    return ok ? 0 : 1;
}
