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

#include "report/report.h"

/* Which rows become which metric: one place. A row feeds the first metric whose check list
 * names its ID ("gemm." a prefix) and whose unit is the row's, with a finite value and a
 * subject of the metric's kind ("gpuN" or "node"); the value is multiplied by `scale` into
 * the base unit. Rows that match none (versions, enabled/disabled states, RDMA ports, counts
 * of ready devices) have no metric of their own: their verdict is in gpuverify_check_status. */
enum scope { GPU, NODE };

typedef struct metric_def {
    const char *name;
    const char *type; /* "gauge" or "counter" (name ends in _total) */
    enum scope scope;
    const char *checks[6];
    const char *unit; /* the rows' unit */
    double scale;     /* into the base unit */
    const char *help;
} metric_def;

#define GIGA 1e9
#define TERA 1e12
#define MIB 1048576.0

// clang-format off
static const metric_def metrics[] = {
    /* Health counters (NVML, sysfs, the kernel log): every level. */
    {.name = "gpuverify_gpu_ecc_uncorrectable_errors_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.ecc_errors"}, .unit = "errors", .scale = 1,
     .help = "Uncorrectable ECC errors since the GPU's last reset (gpu.ecc_errors)."},
    {.name = "gpuverify_gpu_remapped_rows_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.row_remap"}, .unit = "rows", .scale = 1,
     .help = "Memory rows remapped, correctable and uncorrectable causes (gpu.row_remap)."},
    {.name = "gpuverify_gpu_retired_pages_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.retired_pages"}, .unit = "pages", .scale = 1,
     .help = "Memory pages retired (gpu.retired_pages; GPUs before row remapping)."},
    {.name = "gpuverify_gpu_pcie_replays_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.pcie_errors"}, .unit = "replays", .scale = 1,
     .help = "PCIe replays since the driver loaded (gpu.pcie_errors)."},
    {.name = "gpuverify_gpu_nvlink_recoveries_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.nvlink_errors"}, .unit = "recoveries", .scale = 1,
     .help = "NVLink recoveries, all links, since the last reset (gpu.nvlink_errors)."},
    {.name = "gpuverify_gpu_xid_faults_total", .type = "counter", .scope = GPU,
     .checks = {"gpu.xid"}, .unit = "Xids", .scale = 1,
     .help = "Xid faults in the kernel log since boot, the policy's fault codes only (gpu.xid)."},
    {.name = "gpuverify_gpu_clock_event_seconds", .type = "gauge", .scope = GPU,
     .checks = {"gpu.clock_events"}, .unit = "s", .scale = 1,
     .help = "The longer of HW thermal slowdown and HW power brake time since the driver "
             "loaded when over the policy's threshold, else 0 (gpu.clock_events)."},
    {.name = "gpuverify_gpu_tlimit_margin_celsius", .type = "gauge", .scope = GPU,
     .checks = {"gpu.temperature"}, .unit = "C", .scale = 1,
     .help = "How far the GPU is below its T.Limit slowdown temperature (gpu.temperature)."},
    {.name = "gpuverify_gpu_memory_unowned_bytes", .type = "gauge", .scope = GPU,
     .checks = {"gpu.memory_unowned"}, .unit = "MiB", .scale = MIB,
     .help = "GPU memory in use that no listed process holds (gpu.memory_unowned)."},
    {.name = "gpuverify_gpu_pcie_link_lanes", .type = "gauge", .scope = GPU,
     .checks = {"gpu.pcie_link"}, .unit = "lanes", .scale = 1,
     .help = "The PCIe link's current width (gpu.pcie_link)."},
    {.name = "gpuverify_gpu_nvlink_active_links", .type = "gauge", .scope = GPU,
     .checks = {"gpu.nvlink"}, .unit = "links", .scale = 1,
     .help = "NVLinks active (gpu.nvlink)."},
    /* Active tests, at the levels that run them. */
    {.name = "gpuverify_gpu_cuda_init_seconds", .type = "gauge", .scope = GPU,
     .checks = {"cuda.init"}, .unit = "s", .scale = 1,
     .help = "Time to create a CUDA context on the GPU (cuda.init)."},
    {.name = "gpuverify_gpu_memory_bad_words", .type = "gauge", .scope = GPU,
     .checks = {"cuda.alloc", "mem.test"}, .unit = "words", .scale = 1,
     .help = "Memory words that read back wrong in this run's test (check: cuda.alloc, mem.test)."},
    {.name = "gpuverify_gpu_copy_bytes_per_second", .type = "gauge", .scope = GPU,
     .checks = {"cuda.copy", "cuda.p2p"}, .unit = "GB/s", .scale = GIGA,
     .help = "Copy bandwidth: host-device, the slower direction (cuda.copy); to the slowest peer "
             "(cuda.p2p)."},
    {.name = "gpuverify_gpu_matmul_flops_per_second", .type = "gauge", .scope = GPU,
     .checks = {"gemm.", "cuda.matmul", "stress.gemm"}, .unit = "TFLOPS", .scale = TERA,
     .help = "Matrix multiply throughput, floating-point operations per second (2mnk per GEMM; "
             "check: gemm.<dtype> median, cuda.matmul FP16, stress.gemm median under load)."},
    {.name = "gpuverify_gpu_cudnn_error_tolerance_ratio", .type = "gauge", .scope = GPU,
     .checks = {"cudnn.conv"}, .unit = "x tolerance", .scale = 1,
     .help = "cuDNN convolution's worst error over its tolerance; 1 or more fails (cudnn.conv)."},
    {.name = "gpuverify_gpu_power_draw_watts", .type = "gauge", .scope = GPU,
     .checks = {"stress.power"}, .unit = "W", .scale = 1,
     .help = "Median power drawn under the stress GEMM (stress.power)."},
    /* The node. */
    {.name = "gpuverify_node_gpus", .type = "gauge", .scope = NODE,
     .checks = {"driver.gpu_count"}, .unit = "GPUs", .scale = 1,
     .help = "The GPUs driver.gpu_count counted usable (PCI, NVML and CUDA agreeing)."},
    {.name = "gpuverify_node_copy_bytes_per_second", .type = "gauge", .scope = NODE,
     .checks = {"cuda.copy_all"}, .unit = "GB/s", .scale = GIGA,
     .help = "Host-to-device bandwidth with every GPU copying at once (cuda.copy_all)."},
    {.name = "gpuverify_node_nccl_bus_bandwidth_bytes_per_second", .type = "gauge", .scope = NODE,
     .checks = {"nccl.allreduce"}, .unit = "GB/s", .scale = GIGA,
     .help = "NCCL all-reduce peak bus bandwidth over the local GPUs (nccl.allreduce)."},
    {.name = "gpuverify_node_nccl_p2p_connections", .type = "gauge", .scope = NODE,
     .checks = {"nccl.transport"}, .unit = "P2P connections", .scale = 1,
     .help = "NCCL connections between local GPUs that went peer-to-peer (nccl.transport)."},
};
// clang-format on

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

static int names_check(const metric_def *m, const char *id)
{
    for (size_t k = 0; k < sizeof m->checks / sizeof *m->checks && m->checks[k]; k++) {
        size_t len = strlen(m->checks[k]);
        if (m->checks[k][len - 1] == '.' ? strncmp(id, m->checks[k], len) == 0
                                         : strcmp(id, m->checks[k]) == 0)
            return 1;
    }
    return 0;
}

/* The metric a row feeds, NULL for none. */
static const metric_def *metric_of(const gv_check_result *c)
{
    if (!isfinite(c->value))
        return NULL;
    for (size_t i = 0; i < sizeof metrics / sizeof *metrics; i++) {
        const metric_def *m = &metrics[i];
        if (!names_check(m, c->id) || strcmp(c->unit, m->unit) != 0)
            continue;
        if (m->scope == GPU ? subject_index(c->subject) >= 0 : strcmp(c->subject, "node") == 0)
            return m;
    }
    return NULL;
}

static void render(const gv_report *r, FILE *f)
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
    family(f, "gpuverify_checks", "gauge", "Checks in this run per verdict.");
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
    for (size_t k = 0; k < sizeof metrics / sizeof *metrics; k++) {
        const metric_def *m = &metrics[k];
        int header = 0;
        for (size_t i = 0; i < r->count; i++) {
            const gv_check_result *c = &r->results[i];
            if (metric_of(c) != m)
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
