/* SPDX-License-Identifier: Apache-2.0 */
/* gv-check: runs the checks gpuverify has and prints a health summary (or JSON, Prometheus
 * text, or one line). Exit status (docs/outputs.md): 0 healthy (PASS/WARN/SKIP only), 1 a check
 * FAILed, 2 usage error or the run could not start, 3 could not judge (no FAIL, a check
 * ERRORed), 4 not judged (no FAIL; every ERROR a check another gpuverify's hold on a GPU left
 * unrun); with --npd node-problem-detector's 0 OK, 1 problem, 2 unknown. Thin by design: all
 * logic lives in libgpuverify. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gpuverify/gpuverify.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define TOOL "gv-check"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: gv-check [--json | --prometheus | --npd | --quiet | --failures]\n"
            "                [--textfile FILE] [--sysroot DIR | --host-root DIR]\n"
            "                [--library-dir DIR]\n"
            "                [--checks LIST] [--level L] [--budget S] [--deadline S]\n"
            "                [--gpus LIST] [--duration S] [--watch S] [--policy FILE]\n"
            "                [--isolation I]\n"
            "                [--gemm-size N] [--copy-mib N] [--nccl-kib N] [--topology-xml FILE]\n"
            "                [--state FILE|default] [--node-name NAME]\n"
            "       gv-check --list | --version | --help\n"
            "Output (one of):\n"
            "  (default)          an inventory and a row per check and subject, then the counts\n"
            "  --failures         only the WARN, FAIL and ERROR rows, then the counts\n"
            "  --quiet            the verdict in one line of at most 200 bytes\n"
            "  --json             the report as JSON (docs/report.schema.json)\n"
            "  --prometheus       Prometheus' text format (node_exporter textfile)\n"
            "  --npd              node-problem-detector plugin: the one line; exit 0 OK,\n"
            "                     1 problem, 2 unknown\n"
            "  --textfile FILE    also write the Prometheus text to FILE, replaced atomically\n"
            "                     whatever the verdict (node_exporter's textfile collector)\n"
            "What to check:\n"
            "  --sysroot DIR      judge a captured node tree (/proc, /sys, /etc) offline\n"
            "  --host-root DIR    the live node whose / is mounted at DIR (a container's\n"
            "                     hostPath /): files read there, NVIDIA libraries queried\n"
            "  --library-dir DIR  load the NVIDIA libraries from DIR only\n"
            "  --list             print every check ID and exit\n"
            "  --checks LIST      comma-separated check IDs or prefixes (driver,gpu.ecc);\n"
            "                     ^ID leaves one out\n"
            "  --level L          quick (a prolog), standard (default), extended (benchmarks)\n"
            "  --budget S         hard bound on the run: it returns within S + 1 s (+ the\n"
            "                     --watch), every check it did not finish an ERROR (default:\n"
            "                     the level's budget); with --isolation none no check is\n"
            "                     begun past it, but one that hangs is not stopped\n"
            "  --deadline S       each check's deadline (30, at least 0.5), times the\n"
            "                     catalog's factor for some (driver.nvml 2x, driver.cuda 4x)\n"
            "  --gpus LIST        CUDA devices the GPU tests use, 0,2 (default all)\n"
            "  --duration S       how long stress.* loads the GPUs (extended level; default\n"
            "                     120; hours for a burn-in)\n"
            "  --watch S          before judging gpu.xid, wait up to S s for an Xid NVML\n"
            "                     reports (half a second more after the first): a loop of\n"
            "                     passes that watches in place of a sleep sees each Xid at once,\n"
            "                     also where the kernel log cannot be read\n"
            "  --policy FILE      the site's expectations, key = value lines (the keys:\n"
            "                     docs/checks.md#policy)\n"
            "  --isolation I      auto (default: gpuverify-worker when installed), process\n"
            "                     (required), none (in this process, no hard deadlines)\n"
            "  --gemm-size N      m = n = k of the gemm.* checks (default 8192, FP32/TF32 4096)\n"
            "  --copy-mib N       buffer of the cuda.copy check (default 64)\n"
            "  --nccl-kib N       largest all-reduce of nccl.allreduce (default 262144)\n"
            "  --topology-xml F   topo.* checks on this `lstopo --of xml` file, not this machine\n"
            "  --state FILE       record every run in this SQLite file and judge each GPU\n"
            "                     against its own history (history.*; none without --state);\n"
            "                     FILE 'default': " GV_CLI_STATE_ROOT "\n"
            "                     for root, else $XDG_STATE_HOME/gpuverify/history.db\n"
            "  --node-name NAME   the node's name in the report, metrics and history (default\n"
            "                     $GPUVERIFY_NODE_NAME, else the host name: through --host-root\n"
            "                     the host's /etc/hostname; a pod: give its spec.nodeName)\n"
            "Exit status: 0 healthy (PASS, WARN, SKIP), 1 a check FAILed, 2 usage error or the\n"
            "run could not start, 3 could not judge (no FAIL, a check ERRORed), 4 not judged:\n"
            "another gpuverify held the GPUs (no FAIL; every ERROR such a hold).\n"
            "Environment: NO_COLOR turns colour and the progress line off; COLUMNS is the\n"
            "width the table wraps at (default: the terminal's; none in a pipe or file, or\n"
            "under 40).\n");
}

/* Indent of an inventory line's continuation: under the name. */
#define INVENTORY_INDENT 4

/* One line of the inventory, its cells at the header's widths (the last one unpadded). With a
 * terminal's width, a cell that would pass it starts a continuation line: the breaks depend on
 * the widths alone, so the header's and every GPU's cells break at the same places and stay in
 * columns. */
static void print_cells(const char *const *cells, const int *widths, int n, unsigned width)
{
    char line[512];
    size_t len = 0, col = 0;
    for (int k = 0; k < n; k++) {
        size_t w = (size_t)widths[k];
        if (k > 0 && width && col + 1 + w > width) {
            while (len > 0 && line[len - 1] == ' ')
                len--;
            line[len] = '\0';
            gv_cli_wrap(stdout, 0, line, INVENTORY_INDENT, width);
            len = (size_t)snprintf(line, sizeof line, "%*s", INVENTORY_INDENT, "");
            col = INVENTORY_INDENT;
        } else if (k > 0) {
            line[len++] = ' ';
            col++;
        }
        int last = k == n - 1;
        int wrote = snprintf(line + len, sizeof line - len, "%-*.*s", last ? 0 : widths[k],
                             widths[k], cells[k]);
        len += wrote > 0 ? (size_t)wrote : 0;
        if (len >= sizeof line)
            len = sizeof line - 1;
        col += w;
    }
    line[len] = '\0';
    gv_cli_wrap(stdout, 0, line, INVENTORY_INDENT, width);
}

static void print_inventory(const gv_report *r, unsigned width)
{
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    gv_report_driver(r, &d);
    int cv = d.nvml_cuda_version > 0 ? d.nvml_cuda_version : d.cuda_driver_version;
    char cuda[16] = "-", line[512];
    if (cv > 0)
        snprintf(cuda, sizeof cuda, "%d.%d", cv / 1000, (cv % 1000) / 10);
    snprintf(line, sizeof line, "Driver %s   CUDA %s   %s   kernel %s",
             d.driver_version[0] ? d.driver_version
                                 : (d.module_version[0] ? d.module_version : "-"),
             cuda, d.os_name, d.kernel_release);
    gv_cli_wrap(stdout, 0, line, INVENTORY_INDENT, width);
    static const int widths[] = {3, 28, 16, 40, 9, 4, 4, 6, 7, 8, 10};
    const char *header[] = {"GPU", "Name",   "Bus-Id", "UUID",    "  Mem MiB", "CC",
                            "SMs", "Pers-M", "ECC",    "Power W", "PCIe"};
    print_cells(header, widths, 11, width);
    for (uint32_t i = 0; i < gv_report_gpu_count(r); i++) {
        gv_gpu g = GV_GPU_INIT;
        if (gv_report_gpu(r, i, &g) != GV_OK)
            continue;
        char index[16], cc[16] = "-", pcie[24] = "-", power[16] = "-", mem[24] = "        -",
                        sms[16] = "-";
        snprintf(index, sizeof index, "%u", g.index);
        const char *name = g.name[0] ? g.name : "(unknown)";
        if (g.inaccessible) { /* its container or job was not given it: driver.gpu_count */
            const char *cells[] = {index, name, g.pci_bus_id, "not this process's GPU: not tested"};
            print_cells(cells, widths, 4, width);
            continue;
        }
        if (g.cc_major >= 0)
            snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
        if (g.pcie_gen_current >= 0)
            snprintf(pcie, sizeof pcie, "%dx%d/%dx%d", g.pcie_gen_current, g.pcie_width_current,
                     g.pcie_gen_max, g.pcie_width_max);
        if (g.power_limit_mw >= 0)
            snprintf(power, sizeof power, "%.0f", g.power_limit_mw / 1000.0);
        if (g.memory_total >= 0)
            snprintf(mem, sizeof mem, "%9lld", (long long)(g.memory_total >> 20));
        if (g.sm_count >= 0)
            snprintf(sms, sizeof sms, "%d", g.sm_count);
        const char *cells[] = {index,
                               name,
                               g.pci_bus_id,
                               g.uuid[0] ? g.uuid : "-",
                               mem,
                               cc,
                               sms,
                               g.persistence_mode < 0 ? "-" : (g.persistence_mode ? "On" : "Off"),
                               g.ecc_current < 0 ? "N/A" : (g.ecc_current ? "On" : "Off"),
                               power,
                               pcie};
        print_cells(cells, widths, 11, width);
    }
}

/* Every row, or with failures_only the WARN, FAIL and ERROR rows without the inventory. The
 * check and subject columns are as wide as the longest shown; with a terminal's width
 * (gv_cli_width) each message wraps under the message column, else a row is one line. */
static void print_table(const gv_report *r, int failures_only)
{
    int tty = gv_cli_colour(stdout);
    unsigned width = gv_cli_width(stdout);
    uint32_t rows = gv_report_count(r), checks = 0;
    size_t id_width = strlen("Check"), subject_width = strlen("Subject");
    int count[5] = {0};
    /* A check has a row per subject it judged (each GPU, library, port): the counts are of
     * rows, and the checks are counted apart. */
    char(*ids)[sizeof((gv_check_result *)0)->id] = calloc(rows ? rows : 1, sizeof *ids);
    for (uint32_t i = 0; i < rows; i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) != GV_OK)
            continue;
        if (c.verdict >= GV_PASS && c.verdict <= GV_ERROR)
            count[c.verdict]++;
        if (ids) {
            uint32_t k = 0;
            while (k < checks && strcmp(ids[k], c.id) != 0)
                k++;
            if (k == checks)
                memcpy(ids[checks++], c.id, sizeof *ids);
        }
        if (failures_only && c.verdict != GV_WARN && c.verdict != GV_FAIL && c.verdict != GV_ERROR)
            continue;
        id_width = gv_cli_columns(c.id) > id_width ? gv_cli_columns(c.id) : id_width;
        subject_width =
            gv_cli_columns(c.subject) > subject_width ? gv_cli_columns(c.subject) : subject_width;
    }
    free(ids);
    if (!failures_only) {
        gv_cli_wrap(stdout, 0, "GPU Health Check Summary", 0, width);
        print_inventory(r, width);
        printf("\n");
    }
    size_t message_col = 8 + id_width + 1 + subject_width + 1;
    char line[sizeof((gv_check_result *)0)->message + 512];
    snprintf(line, sizeof line, "%-7s %-*s %-*s %s", "Verdict", (int)id_width, "Check",
             (int)subject_width, "Subject", "Message");
    gv_cli_wrap(stdout, 0, line, message_col, width);
    for (uint32_t i = 0; i < rows; i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) != GV_OK)
            continue;
        if (failures_only && c.verdict != GV_WARN && c.verdict != GV_FAIL && c.verdict != GV_ERROR)
            continue;
        printf("%s%-7s%s ", tty ? gv_cli_verdict_colour(c.verdict) : "", gv_verdict_name(c.verdict),
               tty ? "\033[0m" : "");
        snprintf(line, sizeof line, "%-*s %-*s %s", (int)id_width, c.id, (int)subject_width,
                 c.subject, c.message);
        gv_cli_wrap(stdout, 8, line, message_col, width);
        if (c.remediation[0] && c.verdict != GV_PASS && c.verdict != GV_SKIP) {
            snprintf(line, sizeof line, "%*s-> %s", (int)message_col, "", c.remediation);
            gv_cli_wrap(stdout, 0, line, message_col + 3, width);
        }
    }
    /* The node's action after the verdict, as the one line ends: "=> FAIL [reset_gpu]". */
    int32_t action = gv_report_action(r);
    snprintf(line, sizeof line, "%u checks in %u rows (a row per check and subject):", checks,
             rows);
    printf("\n");
    gv_cli_wrap(stdout, 0, line, 0, width);
    snprintf(line, sizeof line, "PASS: %d  WARN: %d  FAIL: %d  SKIP: %d  ERROR: %d  => %s%s%s%s",
             count[GV_PASS], count[GV_WARN], count[GV_FAIL], count[GV_SKIP], count[GV_ERROR],
             gv_verdict_name(gv_report_verdict(r)), action ? " [" : "",
             action ? gv_action_name(action) : "", action ? "]" : "");
    gv_cli_wrap(stdout, 0, line, 0, width);
}

enum output { TABLE, FAILURES, QUIET, JSON, PROMETHEUS, NPD };

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

/* The temporary files an earlier writer of path left in its folder ("<name>.tmp.XXXXXX", this
 * program's), older than an hour: killed between mkstemp and rename (a pod's liveness probe, an
 * OOM kill), it leaves one a pass. Younger ones may be another writer's at work. */
#define STALE_TMP_S 3600
static void remove_stale_temporaries(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    const char *name = slash ? slash + 1 : path;
    DIR *d = dir ? opendir(dir) : NULL;
    size_t n = strlen(name);
    struct dirent *e;
    time_t now = time(NULL);
    while (d && (e = readdir(d))) {
        struct stat st;
        if (strncmp(e->d_name, name, n) || strncmp(e->d_name + n, ".tmp.", 5) ||
            strlen(e->d_name + n + 5) != 6 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid() || now - st.st_mtime < STALE_TMP_S)
            continue;
        unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
    free(dir);
}

/* text into path through a temporary file in its folder, synced, then renamed over it, so a
 * collector reads the old file or the new one, never half of one. 0 or -1 (errno). */
static int write_atomically(const char *path, const char *text)
{
    remove_stale_temporaries(path);
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return -1;
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    size_t len = strlen(text), done = 0;
    int ok = 1;
    while (ok && done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        done += ok ? (size_t)w : 0;
    }
    /* mkstemp makes 0600; the collector may run as another user. */
    ok = ok && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    int saved = errno;
    if (!ok)
        unlink(tmp);
    free(tmp);
    errno = saved;
    return ok ? 0 : -1;
}

/* --textfile: the report's metrics, or when the run could not start the two lines that say the
 * node was not found healthy, so that no earlier healthy file stays behind. */
static int publish(const char *path, const gv_report *report)
{
    char *text = NULL;
    char fallback[768];
    if (report) {
        if (gv_report_prometheus(report, 0, &text) != GV_OK)
            return fprintf(stderr, "gv-check: --textfile: the metrics could not be rendered\n"), -1;
    } else {
        snprintf(fallback, sizeof fallback,
                 "# HELP gpuverify_node_healthy 1 when no check FAILed or ERRORed, else 0\n"
                 "# TYPE gpuverify_node_healthy gauge\n"
                 "gpuverify_node_healthy 0\n");
    }
    int rc = write_atomically(path, text ? text : fallback);
    if (rc != 0)
        fprintf(stderr, "gv-check: --textfile %s: %s\n", path, strerror(errno));
    gv_free(text);
    return rc;
}

/* The CUDA devices gv_run_opts.gpus may name: 0 .. GV_RUN_MAX_GPUS - 1 of the library. */
#define CHECK_MAX_GPU 63

/* --gpus "0,2": CUDA devices 0..CHECK_MAX_GPU, comma-separated, each whole; 0, or -1 after
 * saying what is allowed (an empty entry, a trailing comma or "5abc" is no device). */
static int gpus_arg(const char *text)
{
    const char *p = text;
    for (;;) {
        uint64_t v;
        if (gv_cli_uint64_at(&p, CHECK_MAX_GPU, &v) != 0 || (*p != ',' && *p != '\0'))
            break;
        if (*p++ == '\0')
            return 0;
    }
    fprintf(stderr, "gv-check: --gpus wants CUDA devices from 0 to %d, comma-separated, not '%s'\n",
            CHECK_MAX_GPU, text);
    return -1;
}

/* Options that take a value; 0, or GV_CLI_USAGE after saying what is wrong. */
static int parse(int argc, char **argv, int *i, gv_ctx_opts *opts, gv_run_opts *run,
                 const char **policy_path, const char **textfile)
{
    const char *a = argv[*i], *v = gv_cli_value(TOOL, argc, argv, i);
    if (!v)
        return GV_CLI_USAGE;
    double d = 0;
    uint64_t u = 0;
    if (strcmp(a, "--sysroot") == 0 || strcmp(a, "--host-root") == 0) {
        if (opts->sysroot) {
            fprintf(stderr, "gv-check: one --sysroot or --host-root, not two\n");
            return GV_CLI_USAGE;
        }
        opts->sysroot = v;
        /* A host's root seen from a container is a live node: its NVIDIA libraries answer
         * for the GPUs the files describe. A sysroot alone is an offline capture. */
        opts->live_libraries = a[2] == 'h' ? 1 : GV_AUTO;
    } else if (strcmp(a, "--library-dir") == 0)
        opts->library_dir = v;
    else if (strcmp(a, "--checks") == 0) {
        /* The library reads "" as every check; on the command line it is an empty variable. */
        if (!*v) {
            fprintf(stderr, "gv-check: --checks wants check IDs or prefixes (--list), not ''\n");
            return GV_CLI_USAGE;
        }
        run->checks = v;
    } else if (strcmp(a, "--topology-xml") == 0)
        run->topology_xml = v;
    else if (strcmp(a, "--gpus") == 0) {
        if (gpus_arg(v))
            return GV_CLI_USAGE;
        run->gpus = v;
    } else if (strcmp(a, "--policy") == 0)
        *policy_path = v;
    else if (strcmp(a, "--state") == 0) {
        if (!*v) {
            fprintf(stderr, "gv-check: --state wants a file or 'default', not ''\n");
            return GV_CLI_USAGE;
        }
        if (strcmp(v, "default") == 0 && !(v = gv_cli_default_state(TOOL, 1)))
            return GV_CLI_USAGE;
        opts->state_path = v;
    } else if (strcmp(a, "--node-name") == 0) {
        opts->node_name = v;
    } else if (strcmp(a, "--textfile") == 0)
        *textfile = v;
    else if (strcmp(a, "--gemm-size") == 0) {
        if (gv_cli_uint64(TOOL, a, v, 1, 65536, &u))
            return GV_CLI_USAGE;
        run->gemm_size = (uint32_t)u;
    } else if (strcmp(a, "--copy-mib") == 0) {
        if (gv_cli_uint64(TOOL, a, v, 1, 1u << 20, &u))
            return GV_CLI_USAGE;
        run->copy_bytes = u << 20;
    } else if (strcmp(a, "--nccl-kib") == 0) {
        if (gv_cli_uint64(TOOL, a, v, 1, 1u << 24, &u))
            return GV_CLI_USAGE;
        run->nccl_bytes = u << 10;
    } else if (strcmp(a, "--watch") == 0) {
        if (gv_cli_double(TOOL, a, v, 0, 86400.0, &d))
            return GV_CLI_USAGE;
        run->watch_s = d;
    } else if (strcmp(a, "--budget") == 0 || strcmp(a, "--duration") == 0 ||
               strcmp(a, "--deadline") == 0) {
        /* A stress up to a week (a burn-in of days, not a typo of a million seconds); the
         * run's budget and a check's deadline up to the library's day (gv_run_opts.budget_s,
         * gv_ctx_opts.deadline_s). */
        int stress = strcmp(a, "--duration") == 0;
        /* A deadline under half a second FAILs a healthy node: starting gpuverify-worker and
         * loading NVML take that. */
        double least = strcmp(a, "--deadline") == 0 ? 0.5 : 0.001;
        if (gv_cli_double(TOOL, a, v, least, stress ? 7 * 86400.0 : 86400.0, &d))
            return GV_CLI_USAGE;
        *(a[2] == 'b' ? &run->budget_s : a[3] == 'u' ? &run->duration_s : &opts->deadline_s) = d;
    } else if (strcmp(a, "--level") == 0) {
        const char *names[] = {gv_level_name(GV_LEVEL_QUICK), gv_level_name(GV_LEVEL_STANDARD),
                               gv_level_name(GV_LEVEL_EXTENDED)};
        const int32_t levels[] = {GV_LEVEL_QUICK, GV_LEVEL_STANDARD, GV_LEVEL_EXTENDED};
        int k = gv_cli_choice(TOOL, a, v, names, 3);
        if (k < 0)
            return GV_CLI_USAGE;
        run->level = levels[k];
    } else if (strcmp(a, "--isolation") == 0) {
        const char *names[] = {"auto", "process", "none"};
        const int32_t modes[] = {GV_ISOLATION_AUTO, GV_ISOLATION_PROCESS, GV_ISOLATION_NONE};
        int k = gv_cli_choice(TOOL, a, v, names, 3);
        if (k < 0)
            return GV_CLI_USAGE;
        run->isolation = modes[k];
    } else {
        fprintf(stderr, "gv-check: unknown option '%s' (--help lists the options)\n", a);
        return GV_CLI_USAGE;
    }
    return 0;
}

static int takes_value(const char *a)
{
    static const char *const with_value[] = {
        "--sysroot",   "--host-root", "--library-dir", "--checks",    "--topology-xml",
        "--gpus",      "--policy",    "--textfile",    "--gemm-size", "--copy-mib",
        "--nccl-kib",  "--budget",    "--duration",    "--deadline",  "--level",
        "--isolation", "--state",     "--node-name",   "--watch"};
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
        if (strcmp(a, with_value[k]) == 0)
            return 1;
    return 0;
}

/* Whether a history.* check made a row: --state with --checks that leave them all out records
 * the run and judges nothing against the record, which the user should hear. */
static int judged_by_history(const gv_report *r)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) == GV_OK && !strncmp(c.id, "history.", 8))
            return 1;
    }
    return 0;
}

/* A usage error, its reason said on stderr: under --quiet or --npd (wherever on the line) the
 * answer is also one line on stdout, its class first (docs/outputs.md), naming the argument. */
static int usage_error(int argc, char **argv, const char *option, const char *value)
{
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "--quiet") == 0 || strcmp(argv[k], "--npd") == 0) {
            printf("ERROR gv-check: usage error at '%.60s%s%.60s' (the reason on stderr)\n", option,
                   value[0] ? " " : "", value);
            break;
        }
    return GV_CLI_USAGE;
}

int main(int argc, char **argv)
{
    gv_ctx_opts opts = GV_CTX_OPTS_INIT;
    gv_run_opts run = GV_RUN_OPTS_INIT;
    enum output out = TABLE;
    const char *out_flag = NULL, *policy_path = NULL, *textfile = NULL;
    gv_policy policy = GV_POLICY_INIT;
    static const char *const modes[] = {"--failures", "--quiet", "--json", "--prometheus", "--npd"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int mode = -1;
        for (int k = 0; k < 5; k++)
            if (strcmp(a, modes[k]) == 0)
                mode = k;
        if (mode >= 0) {
            if (out_flag && strcmp(out_flag, a) != 0) {
                fprintf(stderr, "gv-check: %s and %s are two outputs: choose one\n", out_flag, a);
                return usage_error(argc, argv, a, "");
            }
            out_flag = a;
            out = (enum output)(FAILURES + mode);
        } else if (strcmp(a, "--list") == 0) {
            for (uint32_t k = 0; k < gv_catalog_count(); k++)
                printf("%s\n", gv_catalog_id(k));
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            gv_cli_version(TOOL);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (takes_value(a)) {
            int at = i;
            if (parse(argc, argv, &i, &opts, &run, &policy_path, &textfile))
                return usage_error(argc, argv, a, i > at ? argv[i] : "");
        } else {
            gv_cli_unknown(TOOL, a);
            return usage_error(argc, argv, a, "");
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
    if (out != QUIET && out != NPD && gv_cli_colour(stderr)) {
        run.on_event = draw_progress;
        run.on_event_user = &line;
    }
    if (s == GV_OK)
        s = gv_run(ctx, &run, &report);
    if (run.on_event)
        fprintf(stderr, "\r\033[K");
    if (s != GV_OK) {
        const char *why = gv_cli_reason(ctx, s);
        /* Under --npd and --quiet the answer is one line on stdout, its class first. */
        if (out == NPD || out == QUIET)
            printf("ERROR gv-check: %.150s\n", why);
        else
            fprintf(stderr, "gv-check: %s\n", why);
        if (textfile)
            publish(textfile, NULL);
        gv_ctx_destroy(ctx);
        return GV_CLI_USAGE;
    }
    if (opts.state_path && out != NPD && out != QUIET && !judged_by_history(report))
        fprintf(stderr,
                "gv-check: this run is recorded in %s, but --checks selects no history.* "
                "check: nothing judged it against its history\n",
                opts.state_path);
    char one[GV_REPORT_LINE_MAX + 1];
    int code = gv_report_line(report, one, sizeof one);
    if (out == NPD || out == QUIET) {
        printf("%s\n", one);
        /* node-problem-detector: 0 OK, 1 a problem, anything else unknown. */
        if (out == NPD)
            code = code == GV_OUTCOME_HEALTHY ? 0 : code == GV_OUTCOME_FAIL ? 1 : 2;
    } else if (out == JSON || out == PROMETHEUS) {
        char *text = NULL;
        /* One line per report where it goes to a pipe or file: the reports of srun's concurrent
         * tasks then interleave by whole lines, each a document (docs/outputs.md). */
        uint32_t compact = isatty(STDOUT_FILENO) ? 0 : GV_JSON_COMPACT;
        s = out == JSON ? gv_report_json(report, compact, &text)
                        : gv_report_prometheus(report, 0, &text);
        if (s == GV_OK)
            fputs(text, stdout);
        if (s == GV_OK && out == JSON)
            putchar('\n');
        gv_free(text);
        if (s != GV_OK) {
            fprintf(stderr, "gv-check: %s\n", gv_strerror(s));
            code = GV_CLI_USAGE;
        }
    } else {
        print_table(report, out == FAILURES);
    }
    /* A file that cannot be written is said on stderr; the exit stays the verdict's, as the
     * line printed says (node-problem-detector reads 2 as unknown). */
    if (textfile)
        publish(textfile, report);
    gv_report_free(report);
    gv_ctx_destroy(ctx);
    return code;
}
