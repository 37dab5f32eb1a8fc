/* gv-check: runs the checks gpuverify has and prints a health summary (or JSON, or Prometheus
 * text). Exit status: 0 healthy (PASS/WARN/SKIP only), 1 a check FAILed or ERRORed, 2 usage or
 * library error; with --npd node-problem-detector's 0 OK, 1 problem, 2 unknown. Thin by
 * design: all logic lives in libgpuverify. */
#include <gpuverify/gpuverify.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *to)
{
    fprintf(to,
            "usage: gv-check [--json | --prometheus | --npd] [--sysroot DIR] [--library-dir DIR]\n"
            "                [--checks LIST]\n"
            "                [--gemm-size N] [--copy-mib N] [--nccl-kib N]\n"
            "                [--topology-xml FILE] [--level L] [--budget S] [--gpus LIST]\n"
            "                [--duration S] [--policy FILE] [--isolation I] [--deadline S]\n"
            "                [--list]\n"
            "  --json             print the report as JSON (docs/report.schema.json)\n"
            "  --prometheus       print it in Prometheus' text format (node_exporter textfile)\n"
            "  --npd              node-problem-detector plugin: one line; exit 0 OK, 1 problem,\n"
            "                     2 unknown\n"
            "  --sysroot DIR      judge a captured node tree (/proc, /sys, /etc) offline\n"
            "  --library-dir DIR  load the NVIDIA libraries from DIR only\n"
            "  --list             print every check ID and exit\n"
            "  --checks LIST      comma-separated check IDs or prefixes (driver,gpu.ecc);\n"
            "                     ^ID leaves one out\n"
            "  --gemm-size N      m = n = k of the gemm.* checks (default 8192, FP32/TF32 4096)\n"
            "  --copy-mib N       buffer of the cuda.copy check (default 64)\n"
            "  --nccl-kib N       largest all-reduce of nccl.allreduce (default 262144)\n"
            "  --topology-xml F   topo.* checks on this `lstopo --of xml` file, not this machine\n"
            "  --level L          quick (a prolog), standard (default), extended (benchmarks)\n"
            "  --budget S         wall-clock budget of the run (default: the level's)\n"
            "  --duration S       how long stress.* loads the GPUs (extended level; default\n"
            "                     120; hours for a burn-in)\n"
            "  --gpus LIST        CUDA devices the GPU tests use, 0,2 (default all)\n"
            "  --policy FILE      the site's expectations, key = value (gv_policy.h)\n"
            "  --isolation I      auto (default: gpuverify-worker when installed), process\n"
            "                     (required), none (in this process, no hard deadlines)\n"
            "  --deadline S       each check's deadline where the catalog sets none (30)\n");
}

static const char *colour(int verdict, int tty)
{
    if (!tty)
        return "";
    switch (verdict) {
    case GV_PASS:
        return "\033[32m";
    case GV_WARN:
        return "\033[33m";
    case GV_FAIL:
    case GV_ERROR:
        return "\033[31m";
    default:
        return "\033[90m";
    }
}

static void print_inventory(const gv_report *r)
{
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    gv_report_driver(r, &d);
    int cv = d.nvml_cuda_version > 0 ? d.nvml_cuda_version : d.cuda_driver_version;
    char cuda[16] = "-";
    if (cv > 0)
        snprintf(cuda, sizeof cuda, "%d.%d", cv / 1000, (cv % 1000) / 10);
    printf("Driver %s   CUDA %s   %s   kernel %s\n",
           d.driver_version[0] ? d.driver_version : (d.module_version[0] ? d.module_version : "-"),
           cuda, d.os_name, d.kernel_release);
    printf("%-3s %-28s %-16s %-40s %9s %-4s %-4s %-6s %-7s %-8s %-10s\n", "GPU", "Name", "Bus-Id",
           "UUID", "Mem MiB", "CC", "SMs", "Pers-M", "ECC", "Power W", "PCIe");
    for (uint32_t i = 0; i < gv_report_gpu_count(r); i++) {
        gv_gpu g = GV_GPU_INIT;
        if (gv_report_gpu(r, i, &g) != GV_OK)
            continue;
        if (g.inaccessible) { /* its container or job was not given it: driver.gpu_count */
            printf("%-3u %-28.28s %-16s %s\n", g.index, g.name[0] ? g.name : "(unknown)",
                   g.pci_bus_id, "not this process's GPU: not tested");
            continue;
        }
        char cc[16] = "-", pcie[24] = "-", power[16] = "-", mem[24] = "-", sms[16] = "-";
        if (g.cc_major >= 0)
            snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
        if (g.pcie_gen_current >= 0)
            snprintf(pcie, sizeof pcie, "%dx%d/%dx%d", g.pcie_gen_current, g.pcie_width_current,
                     g.pcie_gen_max, g.pcie_width_max);
        if (g.power_limit_mw >= 0)
            snprintf(power, sizeof power, "%.0f", g.power_limit_mw / 1000.0);
        if (g.memory_total >= 0)
            snprintf(mem, sizeof mem, "%lld", (long long)(g.memory_total >> 20));
        if (g.sm_count >= 0)
            snprintf(sms, sizeof sms, "%d", g.sm_count);
        printf("%-3u %-28.28s %-16s %-40.40s %9s %-4s %-4s %-6s %-7s %-8s %-10s\n", g.index,
               g.name[0] ? g.name : "(unknown)", g.pci_bus_id, g.uuid[0] ? g.uuid : "-", mem, cc,
               sms, g.persistence_mode < 0 ? "-" : (g.persistence_mode ? "On" : "Off"),
               g.ecc_current < 0 ? "N/A" : (g.ecc_current ? "On" : "Off"), power, pcie);
    }
}

static void print_table(const gv_report *r)
{
    int tty = isatty(STDOUT_FILENO);
    printf("GPU Health Check Summary\n");
    print_inventory(r);
    printf("\n%-7s %-20s %-8s %s\n", "Verdict", "Check", "Subject", "Message");
    int count[5] = {0};
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) != GV_OK)
            continue;
        if (c.verdict >= GV_PASS && c.verdict <= GV_ERROR)
            count[c.verdict]++;
        printf("%s%-7s%s %-20s %-8s %s\n", colour(c.verdict, tty), gv_verdict_name(c.verdict),
               tty ? "\033[0m" : "", c.id, c.subject, c.message);
        if (c.remediation[0] && c.verdict != GV_PASS && c.verdict != GV_SKIP)
            printf("%-7s %-20s %-8s -> %s\n", "", "", "", c.remediation);
    }
    printf("\nPASS: %d  WARN: %d  FAIL: %d  SKIP: %d  ERROR: %d  => %s\n", count[GV_PASS],
           count[GV_WARN], count[GV_FAIL], count[GV_SKIP], count[GV_ERROR],
           gv_verdict_name(gv_report_verdict(r)));
}

/* node-problem-detector's custom plugin protocol: one line on stdout, exit 0 OK, 1 a problem
 * (a FAIL), 2 unknown (no FAIL but a check could not do its work). */
static int print_npd(const gv_report *r)
{
    uint32_t fails = 0, errors = 0, n = gv_report_count(r);
    gv_check_result first = GV_CHECK_RESULT_INIT, first_error = GV_CHECK_RESULT_INIT;
    for (uint32_t i = 0; i < n; i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) != GV_OK)
            continue;
        if (c.verdict == GV_FAIL && fails++ == 0)
            first = c;
        if (c.verdict == GV_ERROR && errors++ == 0)
            first_error = c;
    }
    const gv_check_result *c = fails ? &first : errors ? &first_error : NULL;
    if (!c) {
        printf("gpuverify: %u checks, no failure\n", (unsigned)n);
        return 0;
    }
    uint32_t more = (fails ? fails : errors) - 1;
    printf("%s %s %s: %s", gv_verdict_name(c->verdict), c->id, c->subject, c->message);
    if (more)
        printf(" (and %u more)", (unsigned)more);
    printf("\n");
    return fails ? 1 : 2;
}

enum output { TABLE, JSON, PROMETHEUS, NPD };

/* The progress line on a terminal: where the run is, how much of the budget it has spent, and
 * the failures so far. Redrawn in place on stderr; cleared before the report is printed. */
typedef struct progress {
    unsigned failed;
    char now[112];
} progress;

static void draw_progress(const gv_run_event *e, void *user)
{
    progress *p = user;
    if (e->kind == GV_RUN_EVENT_STARTED)
        snprintf(p->now, sizeof p->now, "%s %s", e->check, e->subject);
    else if (e->result && (e->result->verdict == GV_FAIL || e->result->verdict == GV_ERROR))
        p->failed++;
    char failed[32] = "";
    if (p->failed)
        snprintf(failed, sizeof failed, ", %u failed", p->failed);
    fprintf(stderr, "\r\033[K[%u/%u] %.1f s of %.0f s (%.0f%%)%s  %s", e->checks_started,
            e->checks_selected, e->elapsed_s, e->budget_s,
            e->budget_s > 0 ? 100.0 * e->elapsed_s / e->budget_s : 0.0, failed, p->now);
    fflush(stderr);
}

int main(int argc, char **argv)
{
    gv_ctx_opts opts = GV_CTX_OPTS_INIT;
    gv_run_opts run = GV_RUN_OPTS_INIT;
    enum output out = TABLE;
    const char *policy_path = NULL;
    gv_policy policy = GV_POLICY_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "--json") == 0)
            out = JSON;
        else if (strcmp(a, "--prometheus") == 0)
            out = PROMETHEUS;
        else if (strcmp(a, "--npd") == 0)
            out = NPD;
        else if (strcmp(a, "--sysroot") == 0 && has_value)
            opts.sysroot = argv[++i];
        else if (strcmp(a, "--library-dir") == 0 && has_value)
            opts.library_dir = argv[++i];
        else if (strcmp(a, "--checks") == 0 && has_value)
            run.checks = argv[++i];
        else if (strcmp(a, "--gemm-size") == 0 && has_value)
            run.gemm_size = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(a, "--copy-mib") == 0 && has_value)
            run.copy_bytes = strtoull(argv[++i], NULL, 10) << 20;
        else if (strcmp(a, "--nccl-kib") == 0 && has_value)
            run.nccl_bytes = strtoull(argv[++i], NULL, 10) << 10;
        else if (strcmp(a, "--topology-xml") == 0 && has_value)
            run.topology_xml = argv[++i];
        else if (strcmp(a, "--level") == 0 && has_value) {
            const char *name = argv[++i];
            run.level = -1;
            for (int32_t l = GV_LEVEL_STANDARD; l <= GV_LEVEL_EXTENDED; l++)
                if (strcmp(name, gv_level_name(l)) == 0)
                    run.level = l;
        } else if (strcmp(a, "--budget") == 0 && has_value)
            run.budget_s = strtod(argv[++i], NULL);
        else if (strcmp(a, "--duration") == 0 && has_value)
            run.duration_s = strtod(argv[++i], NULL);
        else if (strcmp(a, "--gpus") == 0 && has_value)
            run.gpus = argv[++i];
        else if (strcmp(a, "--policy") == 0 && has_value)
            policy_path = argv[++i];
        else if (strcmp(a, "--deadline") == 0 && has_value)
            opts.deadline_s = strtod(argv[++i], NULL);
        else if (strcmp(a, "--isolation") == 0 && has_value) {
            const char *name = argv[++i];
            run.isolation = !strcmp(name, "auto")      ? GV_ISOLATION_AUTO
                            : !strcmp(name, "process") ? GV_ISOLATION_PROCESS
                            : !strcmp(name, "none")    ? GV_ISOLATION_NONE
                                                       : -1;
        } else if (strcmp(a, "--list") == 0) {
            for (uint32_t k = 0; k < gv_catalog_count(); k++)
                printf("%s\n", gv_catalog_id(k));
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    gv_ctx *ctx = NULL;
    gv_status s = gv_ctx_create(&opts, &ctx);
    gv_report *report = NULL;
    if (s == GV_OK && policy_path) {
        s = gv_policy_load(ctx, policy_path, &policy);
        run.policy = &policy;
    }
    progress line = {0, ""};
    if (isatty(STDERR_FILENO)) {
        run.on_event = draw_progress;
        run.on_event_user = &line;
    }
    if (s == GV_OK)
        s = gv_run(ctx, &run, &report);
    if (run.on_event)
        fprintf(stderr, "\r\033[K");
    if (s != GV_OK) {
        /* Under --npd the answer is "unknown", on stdout, in one line. */
        FILE *to = out == NPD ? stdout : stderr;
        fprintf(to, "gv-check: %s: %s\n", gv_strerror(s), gv_ctx_last_error(ctx));
        gv_ctx_destroy(ctx);
        return 2;
    }
    int code = 0;
    char *text = NULL;
    if (out == NPD) {
        code = print_npd(report);
    } else if (out == JSON || out == PROMETHEUS) {
        s = out == JSON ? gv_report_json(report, 0, &text) : gv_report_prometheus(report, 0, &text);
        if (s == GV_OK)
            fputs(text, stdout);
        if (s == GV_OK && out == JSON)
            putchar('\n');
        gv_free(text);
        if (s != GV_OK) {
            fprintf(stderr, "gv-check: %s\n", gv_strerror(s));
            code = 2;
        }
    } else {
        print_table(report);
    }
    int verdict = gv_report_verdict(report);
    if (out != NPD && code == 0)
        code = verdict == GV_FAIL || verdict == GV_ERROR ? 1 : 0;
    gv_report_free(report);
    gv_ctx_destroy(ctx);
    return code;
}
