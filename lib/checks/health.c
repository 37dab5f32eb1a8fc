/* SPDX-License-Identifier: Apache-2.0 */
/* The health checks of each GPU: error counters and flags NVML and sysfs keep, judged with
 * NVIDIA's documented guidance (docs/checks.md, "Health counters") and the policy's
 * thresholds. Every counter read is in the row's message; an unknown one is "–". */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "core/settle.h"
#include "core/util.h"
#include "gpuverify/gv_policy.h"

/* The defaults of the policy's health thresholds (gv_policy.h). */
#define PCIE_REPLAY_PER_MIN 8.0 /* DCGM's PCIe health watch */
#define CLOCK_EVENT_WARN_S 1.0
#define TEMP_MARGIN_WARN_C 5.0
#define RETIRED_PAGES_FAIL 60 /* NVIDIA's page-retirement replacement criterion */

/* A threshold of the policy when it sets one (> 0), else the default; and where it came from. */
#define POLICY_SET(f, field) ((f)->policy && (f)->policy->field > 0)
#define POLICY(f, field, fallback) (POLICY_SET(f, field) ? (f)->policy->field : (fallback))
#define SOURCE(f, field, fallback) (POLICY_SET(f, field) ? "policy" : (fallback))

/* "12", or "–" when unknown. */
static const char *n(long long v, char *buf, size_t cap)
{
    if (v == GV_UNKNOWN)
        snprintf(buf, cap, "–");
    else
        snprintf(buf, cap, "%lld", v);
    return buf;
}

static long long sum(long long a, long long b)
{
    return a == GV_UNKNOWN ? b : b == GV_UNKNOWN ? a : a + b;
}

/* The GPU's subject; 1 when NVML answered for it, else one SKIP row saying why and 0. */
static int judged(const gv_gpu_record *g, gv_report *r, const char *id, char *subject)
{
    gv_gpu_subject(g, subject, 48);
    if (gv_gpu_nvml_ok(g))
        return 1;
    gv_report_add(r, id, subject, GV_SKIP, "NVML has no answer for this GPU (gpu.nvml)");
    gv_report_delegate(r, gv_id_gpu_nvml);
    return 0;
}

void gv_check_gpu_ecc_errors(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_ecc_errors, subject))
            continue;
        const gv_health *h = &g->health;
        char b[10][24];
        int any = 0;
        for (int k = 0; k < 2; k++)
            any |= h->sram_cor[k] != GV_UNKNOWN || h->dram_cor[k] != GV_UNKNOWN ||
                   h->dram_unc[k] != GV_UNKNOWN;
        if (g->gpu.ecc_current == 0) {
            gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_SKIP,
                          "ECC is disabled (gpu.ecc): memory errors are not counted");
            gv_report_delegate(r, gv_id_gpu_ecc);
            continue;
        }
        if (!any) {
            gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_SKIP,
                          "NVML gives no ECC error counters for this GPU");
            continue;
        }
        long long unc_volatile =
            sum(sum(h->sram_unc_parity[0], h->sram_unc_secded[0]), h->dram_unc[0]);
        long long unc_aggregate =
            sum(sum(h->sram_unc_parity[1], h->sram_unc_secded[1]), h->dram_unc[1]);
        long long cor_volatile = sum(h->sram_cor[0], h->dram_cor[0]);
        char counts[460], sources[160];
        snprintf(counts, sizeof counts,
                 "volatile: SRAM correctable %s, uncorrectable parity %s, SEC-DED %s, DRAM "
                 "correctable %s, uncorrectable %s; aggregate: SRAM correctable %s, "
                 "uncorrectable parity %s, SEC-DED %s, DRAM correctable %s, uncorrectable %s",
                 n(h->sram_cor[0], b[0], 24), n(h->sram_unc_parity[0], b[1], 24),
                 n(h->sram_unc_secded[0], b[2], 24), n(h->dram_cor[0], b[3], 24),
                 n(h->dram_unc[0], b[4], 24), n(h->sram_cor[1], b[5], 24),
                 n(h->sram_unc_parity[1], b[6], 24), n(h->sram_unc_secded[1], b[7], 24),
                 n(h->dram_cor[1], b[8], 24), n(h->dram_unc[1], b[9], 24));
        snprintf(sources, sizeof sources,
                 "; SRAM uncorrectable by source: L2 %s, SM %s, microcontroller %s, PCIe %s, "
                 "other %s; SRAM threshold exceeded: %s",
                 n(h->sram_unc_l2, b[0], 24), n(h->sram_unc_sm, b[1], 24),
                 n(h->sram_unc_mcu, b[2], 24), n(h->sram_unc_pcie, b[3], 24),
                 n(h->sram_unc_other, b[4], 24),
                 h->sram_threshold_exceeded < 0 ? "–"
                 : h->sram_threshold_exceeded   ? "yes"
                                                : "no");
        gv_append(counts, sizeof counts, "", sources);
        double cor_warn = POLICY(f, ecc_correctable_warn, 0);
        gv_check_result *c;
        if (h->sram_threshold_exceeded == 1) {
            c = gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_FAIL,
                              "SRAM uncorrectable errors exceeded NVIDIA's threshold; %s", counts);
            gv_result_remedy(c, "drain the node and replace the GPU (SRAM threshold exceeded)");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (unc_volatile > 0) {
            c = gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_FAIL,
                              "%lld uncorrectable ECC error(s) since the last reset; %s",
                              unc_volatile, counts);
            gv_result_remedy(c, "drain the node and reset the GPU (rows are remapped at the "
                                "reset); if errors return, run `dcgmi diag -r 3` and replace it");
            /* NVIDIA's memory error management: the reset applies the remap; replacement is
             * for remapping failure and the SRAM threshold, judged on their own. */
            gv_result_action(c, GV_ACTION_RESET_GPU);
        } else if (cor_warn > 0 && cor_volatile >= cor_warn) {
            c = gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_WARN,
                              "%lld correctable ECC errors since the last reset (policy: %g); %s",
                              cor_volatile, cor_warn, counts);
            gv_result_expected(c, "policy", "< %g correctable", cor_warn);
            gv_result_remedy(c, "watch the counters; look at row remapping (gpu.row_remap)");
            gv_result_action(c, GV_ACTION_RERUN); /* a trend: the next run sees where it goes */
        } else {
            c = gv_report_add(r, gv_id_gpu_ecc_errors, subject, GV_PASS, "%s%s", counts,
                              unc_aggregate > 0 ? "; uncorrectable errors in the GPU's life, "
                                                  "none since the last reset"
                                                : "");
        }
        gv_result_measured(c, (double)(unc_volatile < 0 ? 0 : unc_volatile), "errors",
                           "%lld uncorrectable since reset", unc_volatile < 0 ? 0 : unc_volatile);
        /* The history's rates (history.memory_errors) come from the aggregate counts, which a
         * reset does not clear. */
        gv_counter k[GV_ROW_COUNTERS_MAX];
        uint32_t nk = 0;
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "correctable_volatile", (double)cor_volatile);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "correctable_aggregate",
                       (double)sum(h->sram_cor[1], h->dram_cor[1]));
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "uncorrectable_volatile", (double)unc_volatile);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "uncorrectable_aggregate",
                       (double)unc_aggregate);
        gv_report_attach_counters(r, c, k, nk);
    }
}

void gv_check_gpu_row_remap(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_row_remap, subject))
            continue;
        const gv_health *h = &g->health;
        if (h->remap_pending < 0 && h->banks_max == GV_UNKNOWN) {
            gv_report_add(r, gv_id_gpu_row_remap, subject, GV_SKIP,
                          "not applicable: %s does not remap rows (NVML: not supported)",
                          g->gpu.name[0] ? g->gpu.name : "this GPU");
            continue;
        }
        char b[9][24], counts[320];
        snprintf(counts, sizeof counts,
                 "rows remapped for correctable errors %s (inactive %s), uncorrectable %s "
                 "(inactive %s); banks by spare rows: max %s, high %s, partial %s, low %s, none %s",
                 n(h->remap_cor, b[0], 24), n(h->remap_cor_inactive, b[1], 24),
                 n(h->remap_unc, b[2], 24), n(h->remap_unc_inactive, b[3], 24),
                 n(h->banks_max, b[4], 24), n(h->banks_high, b[5], 24),
                 n(h->banks_partial, b[6], 24), n(h->banks_low, b[7], 24),
                 n(h->banks_none, b[8], 24));
        gv_check_result *c;
        if (h->remap_failure == 1) {
            c = gv_report_add(r, gv_id_gpu_row_remap, subject, GV_FAIL,
                              "a row remapping failed: memory errors can no longer be "
                              "repaired; %s",
                              counts);
            gv_result_remedy(c, "drain the node and replace the GPU (row remapping failure)");
            gv_result_action(c, GV_ACTION_HW_INSPECT); /* NVIDIA's RMA criterion */
        } else if (h->remap_pending == 1) {
            c = gv_report_add(r, gv_id_gpu_row_remap, subject, GV_WARN,
                              "a row remapping is pending: reset needed; %s", counts);
            gv_result_remedy(c, "drain the node and reset the GPU (nvidia-smi -r) or reboot to "
                                "apply the remapping");
            gv_result_action(c, GV_ACTION_RESET_GPU);
        } else if (h->banks_none > 0 || h->banks_low > 0) {
            c = gv_report_add(r, gv_id_gpu_row_remap, subject, GV_WARN,
                              "%lld bank(s) with no spare row and %lld with few left: the next "
                              "errors there cannot be remapped; %s",
                              h->banks_none > 0 ? h->banks_none : 0,
                              h->banks_low > 0 ? h->banks_low : 0, counts);
            gv_result_remedy(c, "plan the GPU's replacement; watch gpu.ecc_errors");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else {
            c = gv_report_add(r, gv_id_gpu_row_remap, subject, GV_PASS,
                              "no remapping pending or "
                              "failed; %s",
                              counts);
        }
        gv_result_measured(c, (double)sum(h->remap_cor, h->remap_unc), "rows", "%s remapped",
                           n(sum(h->remap_cor, h->remap_unc), b[0], 24));
        gv_counter k[GV_ROW_COUNTERS_MAX];
        uint32_t nk = 0;
        const struct {
            const char *name;
            long long v;
        } all[] = {{"remapped_correctable", h->remap_cor},
                   {"remapped_uncorrectable", h->remap_unc},
                   {"pending", h->remap_pending},
                   {"failure", h->remap_failure},
                   {"banks_max", h->banks_max},
                   {"banks_high", h->banks_high},
                   {"banks_partial", h->banks_partial},
                   {"banks_low", h->banks_low},
                   {"banks_none", h->banks_none}};
        for (size_t a = 0; a < sizeof all / sizeof *all; a++)
            gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, all[a].name, (double)all[a].v);
        gv_report_attach_counters(r, c, k, nk);
    }
}

void gv_check_gpu_retired_pages(const gv_facts *f, gv_report *r)
{
    int fail_at = POLICY(f, retired_pages_fail, RETIRED_PAGES_FAIL);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_retired_pages, subject))
            continue;
        const gv_health *h = &g->health;
        if (h->retired_sbe == GV_UNKNOWN && h->retired_dbe == GV_UNKNOWN &&
            h->retired_pending < 0) {
            gv_report_add(r, gv_id_gpu_retired_pages, subject, GV_SKIP, "not applicable: %s",
                          h->banks_max != GV_UNKNOWN
                              ? "this GPU remaps rows instead (gpu.row_remap)"
                              : "NVML gives no page-retirement counts");
            continue;
        }
        char b[2][24];
        long long total = sum(h->retired_sbe, h->retired_dbe);
        char counts[160];
        snprintf(counts, sizeof counts,
                 "retired pages: %s for multiple single-bit errors, %s for double-bit errors; "
                 "retirement %s",
                 n(h->retired_sbe, b[0], 24), n(h->retired_dbe, b[1], 24),
                 h->retired_pending == 1 ? "pending" : "not pending");
        gv_check_result *c;
        if (total >= fail_at) {
            c = gv_report_add(r, gv_id_gpu_retired_pages, subject, GV_FAIL,
                              "%lld pages retired, at or past %d; %s", total, fail_at, counts);
            gv_result_remedy(c, "drain the node and replace the GPU");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (h->retired_pending == 1) {
            c = gv_report_add(r, gv_id_gpu_retired_pages, subject, GV_WARN,
                              "a page retirement is pending: reset needed; %s", counts);
            gv_result_remedy(c, "drain the node and reset the GPU or reboot");
            gv_result_action(c, GV_ACTION_RESET_GPU);
        } else {
            c = gv_report_add(r, gv_id_gpu_retired_pages, subject, GV_PASS, "%s", counts);
        }
        gv_result_measured(c, (double)(total < 0 ? 0 : total), "pages", "%lld retired",
                           total < 0 ? 0 : total);
        gv_result_expected(c, SOURCE(f, retired_pages_fail, "NVIDIA"), "< %d pages", fail_at);
    }
}

void gv_check_gpu_memory_repair(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_memory_repair, subject))
            continue;
        const gv_health *h = &g->health;
        if (h->channel_repair_pending < 0 && h->unrepairable_memory < 0) {
            gv_report_add(r, gv_id_gpu_memory_repair, subject, GV_SKIP,
                          "not applicable: NVML gives no memory repair status for this GPU");
            continue;
        }
        static const char *const yn[] = {"–", "no", "yes"};
        char text[160];
        snprintf(text, sizeof text,
                 "channel repair pending: %s, TPC repair pending: %s, unrepairable memory: %s",
                 yn[h->channel_repair_pending + 1], yn[h->tpc_repair_pending + 1],
                 yn[h->unrepairable_memory + 1]);
        gv_check_result *c;
        if (h->unrepairable_memory == 1) {
            c = gv_report_add(r, gv_id_gpu_memory_repair, subject, GV_FAIL,
                              "the GPU reports unrepairable memory; %s", text);
            gv_result_remedy(c, "drain the node and replace the GPU");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (h->channel_repair_pending == 1 || h->tpc_repair_pending == 1) {
            c = gv_report_add(r, gv_id_gpu_memory_repair, subject, GV_WARN,
                              "a repair is pending: reset needed; %s", text);
            gv_result_remedy(c, "drain the node and reset the GPU or reboot to apply the repair");
            gv_result_action(c, GV_ACTION_RESET_GPU);
        } else {
            c = gv_report_add(r, gv_id_gpu_memory_repair, subject, GV_PASS, "%s", text);
        }
        gv_result_measured(c, NAN, "", "%s",
                           h->unrepairable_memory == 1 ? "unrepairable"
                           : h->channel_repair_pending == 1 || h->tpc_repair_pending == 1
                               ? "repair pending"
                               : "none pending");
    }
}

/* The driver's own verdict on whether the GPU can be used again: the state its faults left,
 * cleared by the reset or reboot it asks for. Read by any user, where gpu.xid's log needs
 * root. */
void gv_check_gpu_recovery(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_recovery, subject))
            continue;
        int action = g->health.recovery_action;
        if (action < 0) {
            gv_report_add(r, gv_id_gpu_recovery, subject, GV_SKIP,
                          "NVML gives no recovery action for this GPU (a driver before R550, "
                          "or not supported on it)");
            continue;
        }
        char buf[32];
        const char *name = gv_recovery_action_name(action, buf, sizeof buf);
        gv_check_result *c;
        if (action == GVNV_RECOVERY_ACTION_NONE) {
            c = gv_report_add(r, gv_id_gpu_recovery, subject, GV_PASS,
                              "the driver reports no recovery action needed");
        } else {
            c = gv_report_add(r, gv_id_gpu_recovery, subject, GV_FAIL,
                              "the driver says this GPU needs %s before it is used again "
                              "(NVML recovery action %d; the driver logs each change as Xid 154)",
                              name, action);
            gv_result_remedy(c, "%s", gv_recovery_action_remedy(action));
            gv_result_action(c, gv_action_of_recovery(action));
        }
        gv_result_measured(c, (double)action, "", "%s", name);
        gv_result_expected(c, "NVIDIA driver", "none");
    }
}

/* The AER counters of the functions from a GPU to its root port, summed: the first error of
 * the most severe kind and where, and the first counter file that could not be read. */
typedef struct aer_sum {
    long long cor, nonfatal, fatal;
    const char *first, *first_at, *problem;
} aer_sum;

static void sum_aer(const gv_health *h, aer_sum *s)
{
    const gv_aer_chain *aer = &h->aer;
    *s = (aer_sum){GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, "", "", h->aer_problem};
    int first_severity = 0; /* the most severe kind's counter is the one named */
    for (size_t k = 0; k < aer->n; k++) {
        const gv_aer_counts *a = &aer->hop[k];
        s->cor = sum(s->cor, a->correctable);
        s->nonfatal = sum(s->nonfatal, a->nonfatal);
        s->fatal = sum(s->fatal, a->fatal);
        if (a->first[0] && a->first_severity > first_severity) {
            s->first = a->first;
            s->first_at = a->bdf;
            first_severity = a->first_severity;
        }
        if (!s->problem[0] && a->problem[0])
            s->problem = a->problem;
    }
}

static void pcie_errors_of(const gv_facts *f, const gv_gpu_record *g, const char *subject,
                           gv_report *r)
{
    double per_min = POLICY(f, pcie_replay_warn_per_min, PCIE_REPLAY_PER_MIN);
    double aer_warn = POLICY(f, aer_correctable_warn, 0);
    const gv_health *h = &g->health;
    aer_sum s;
    sum_aer(h, &s);
    long long cor = s.cor, nonfatal = s.nonfatal, fatal = s.fatal;
    const char *first = s.first, *first_at = s.first_at, *problem = s.problem;
    if (h->pcie_replays == GV_UNKNOWN && cor == GV_UNKNOWN && nonfatal == GV_UNKNOWN &&
        fatal == GV_UNKNOWN) {
        gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_SKIP,
                      "no PCIe error counters: NVML has no replay counter and sysfs no AER "
                      "statistics for %s%s%s",
                      g->gpu.pci_bus_id, problem[0] ? "; " : "", problem);
        return;
    }
    char b[4][24], rate[64] = "", text[400];
    double rate_per_min = -1;
    if (h->pcie_replays != GV_UNKNOWN && f->uptime_s > 60) {
        rate_per_min = (double)h->pcie_replays / (f->uptime_s / 60);
        snprintf(rate, sizeof rate, " (%.2f per minute over %.1f h of uptime)", rate_per_min,
                 f->uptime_s / 3600);
    }
    snprintf(text, sizeof text,
             "replays %s%s; AER over %zu function(s) from the GPU to the root port: "
             "correctable %s, non-fatal %s, fatal %s%s%s%s%s",
             n(h->pcie_replays, b[0], 24), rate, h->aer.n, n(cor, b[1], 24), n(nonfatal, b[2], 24),
             n(fatal, b[3], 24), first[0] ? " (" : "", first, first[0] ? " on " : "",
             first[0] ? first_at : "");
    if (first[0])
        gv_append(text, sizeof text, "", ")");
    gv_check_result *c;
    int action = h->recovery_action;
    char buf[32];
    if (fatal > 0 && action == GVNV_RECOVERY_ACTION_NONE) {
        /* The kernel keeps AER counts until the next boot, past the recovery that brought
         * the link back: with the driver asking nothing of a GPU that answers NVML, the
         * error is the path's history (as gpu.xid's Xids), not its present. */
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_WARN,
                          "fatal PCIe errors on the GPU's path since boot; %s; the driver now "
                          "reports no recovery action needed for this GPU (gpu.recovery) and "
                          "it answers: the link recovered",
                          text);
        gv_result_remedy(c, "read the AER reports in `dmesg` (when, which function); reseat "
                            "or replace the GPU, riser or switch named if they return");
        gv_result_action(c, GV_ACTION_RERUN); /* history, as gpu.xid's: if they return */
    } else if (fatal > 0) {
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_FAIL,
                          "fatal PCIe errors on the GPU's path; %s%s%s%s", text,
                          action > 0 ? "; the driver says the GPU needs " : "",
                          action > 0 ? gv_recovery_action_name(action, buf, sizeof buf) : "",
                          action > 0 ? " (gpu.recovery)" : "");
        gv_result_remedy(c, "drain the node; reseat or replace the GPU, riser or switch "
                            "named, and check `dmesg` for AER reports");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else if (nonfatal > 0) {
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_WARN,
                          "non-fatal PCIe errors on the GPU's path; %s", text);
        gv_result_remedy(c, "check `dmesg` for AER reports; reseat the GPU or riser");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else if (rate_per_min > per_min) {
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_WARN,
                          "PCIe replays above %g per minute; %s", per_min, text);
        gv_result_remedy(c,
                         "a marginal link: check the slot, riser and cable; compare gpu.pcie_link");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else if (aer_warn > 0 && cor >= aer_warn) {
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_WARN,
                          "%lld correctable PCIe errors (policy: %g); %s", cor, aer_warn, text);
        gv_result_remedy(c, "a marginal link: check the slot, riser and cable");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else if (problem[0]) {
        /* A counter that cannot be read is not a zero: the totals above lack it. */
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_WARN,
                          "an AER statistics file is unreadable (%s); %s", problem, text);
        gv_result_remedy(c, "read the file by hand; the kernel's AER statistics may be "
                            "broken on this function");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(r, gv_id_gpu_pcie_errors, subject, GV_PASS, "%s", text);
    }
    gv_result_measured(c, (double)(h->pcie_replays < 0 ? 0 : h->pcie_replays), "replays",
                       "%s replays", n(h->pcie_replays, b[0], 24));
    gv_result_expected(c, SOURCE(f, pcie_replay_warn_per_min, "DCGM"), "<= %g replays per minute",
                       per_min);
}

void gv_check_gpu_pcie_errors(const gv_facts *f, gv_report *r)
{
    for (size_t i = 0; i < f->gpu_count; i++) {
        char subject[48];
        if (judged(&f->gpus[i], r, gv_id_gpu_pcie_errors, subject))
            pcie_errors_of(f, &f->gpus[i], subject, r);
    }
}

/* A GPU's NVLink error counters summed over its links, and the links that stand out: the one
 * that retrained most, the one past the policy's CRC count with most, and for NVLink 5 the one
 * whose recovery failed most and the one with most errors FEC could not correct (or most local
 * link integrity errors). */
typedef struct nvlink_totals {
    gv_nvlink_errors t;
    int recovery_link, crc_link, failed_link, effective_link;
    long long recoveries, crcs, failed, effective;
} nvlink_totals;

static void nvlink_add(const gv_gpu_record *g, double crc_warn, nvlink_totals *s)
{
    gv_nvlink_errors *t = &s->t;
    for (int l = 0; l < g->nvlink_count; l++) {
        const gv_nvlink_errors *e = &g->health.nvlink[l];
        t->replay = sum(t->replay, e->replay);
        t->recovery = sum(t->recovery, e->recovery);
        t->crc_flit = sum(t->crc_flit, e->crc_flit);
        t->crc_data = sum(t->crc_data, e->crc_data);
        t->ecc_data = sum(t->ecc_data, e->ecc_data);
        t->recovery_ok = sum(t->recovery_ok, e->recovery_ok);
        t->recovery_failed = sum(t->recovery_failed, e->recovery_failed);
        t->effective = sum(t->effective, e->effective);
        t->symbol = sum(t->symbol, e->symbol);
        t->integrity = sum(t->integrity, e->integrity);
        long long crc = sum(e->crc_flit, e->crc_data);
        long long uncorrected = sum(e->effective, e->integrity);
        if (e->recovery > s->recoveries)
            s->recovery_link = l, s->recoveries = e->recovery;
        if (crc_warn > 0 && crc >= crc_warn && crc > s->crcs)
            s->crc_link = l, s->crcs = crc;
        if (e->recovery_failed > s->failed)
            s->failed_link = l, s->failed = e->recovery_failed;
        if (uncorrected > s->effective)
            s->effective_link = l, s->effective = uncorrected;
    }
}

/* NVLink 5's counters in words, or which of them NVML does not give (Hopper gives none). */
static void nvlink5_text(const gv_nvlink_errors *t, char *out, size_t cap)
{
    char b[5][24];
    if (t->recovery_ok == GV_UNKNOWN && t->recovery_failed == GV_UNKNOWN &&
        t->effective == GV_UNKNOWN && t->symbol == GV_UNKNOWN && t->integrity == GV_UNKNOWN) {
        snprintf(out, cap,
                 "; NVLink 5 counters not given by NVML for this GPU (fields 211, "
                 "213, 214, 219, 221: NOT_SUPPORTED before Blackwell)");
        return;
    }
    snprintf(out, cap,
             "; NVLink 5: link recoveries %s succeeded, %s failed; uncorrected (effective) "
             "errors %s; symbol errors %s (corrected by FEC); local link integrity errors %s",
             n(t->recovery_ok, b[0], 24), n(t->recovery_failed, b[1], 24),
             n(t->effective, b[2], 24), n(t->symbol, b[3], 24), n(t->integrity, b[4], 24));
}

void gv_check_gpu_nvlink_errors(const gv_facts *f, gv_report *r)
{
    double crc_warn = POLICY(f, nvlink_crc_warn, 0);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_nvlink_errors, subject))
            continue;
        if (g->nvlink_count == 0) {
            gv_report_add(r, gv_id_gpu_nvlink_errors, subject, GV_SKIP,
                          "not applicable: no NVLink (NVML reports none)");
            continue;
        }
        nvlink_totals s = {{GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN,
                            GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN},
                           -1,
                           -1,
                           -1,
                           -1,
                           0,
                           0,
                           0,
                           0};
        nvlink_add(g, crc_warn, &s);
        const gv_nvlink_errors *t = &s.t;
        char b[5][24], text[640], v5[300];
        nvlink5_text(t, v5, sizeof v5);
        snprintf(text, sizeof text,
                 "%d link(s), totals since the last reset: replay %s, recovery %s, CRC flit %s, "
                 "CRC data %s, ECC data %s%s",
                 g->nvlink_count, n(t->replay, b[0], 24), n(t->recovery, b[1], 24),
                 n(t->crc_flit, b[2], 24), n(t->crc_data, b[3], 24), n(t->ecc_data, b[4], 24), v5);
        gv_check_result *c;
        if (t->replay == GV_UNKNOWN && t->recovery == GV_UNKNOWN && t->crc_flit == GV_UNKNOWN &&
            t->recovery_failed == GV_UNKNOWN && t->effective == GV_UNKNOWN) {
            gv_report_add(r, gv_id_gpu_nvlink_errors, subject, GV_SKIP,
                          "NVML gives no NVLink error counters for this GPU");
            continue;
        }
        if (s.failed_link >= 0) {
            /* A recovery that failed took the link down: traffic over it stopped. */
            c = gv_report_add(r, gv_id_gpu_nvlink_errors, subject, GV_FAIL,
                              "NVLink %d: %lld failed link recoveries; %s", s.failed_link, s.failed,
                              text);
            gv_result_remedy(c, "a link that went down and did not come back: reset the GPU, "
                                "then check the NVLink/NVSwitch board if it returns");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (s.effective_link >= 0 || s.recovery_link >= 0 || s.crc_link >= 0) {
            int link = s.effective_link >= 0  ? s.effective_link
                       : s.recovery_link >= 0 ? s.recovery_link
                                              : s.crc_link;
            long long count = s.effective_link >= 0  ? s.effective
                              : s.recovery_link >= 0 ? s.recoveries
                                                     : s.crcs;
            const char *what = s.effective_link >= 0
                                   ? "errors FEC did not correct (effective and link integrity)"
                               : s.recovery_link >= 0 ? "recoveries"
                                                      : "CRC errors";
            c = gv_report_add(r, gv_id_gpu_nvlink_errors, subject, GV_WARN,
                              "NVLink %d: %lld %s; %s", link, count, what, text);
            gv_result_remedy(c, "a link that retrains or corrupts flits: run the NCCL test "
                                "(nccl.allreduce) and check the NVLink/NVSwitch board");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else {
            c = gv_report_add(r, gv_id_gpu_nvlink_errors, subject, GV_PASS, "%s", text);
        }
        gv_result_measured(c, (double)(t->recovery < 0 ? 0 : t->recovery), "recoveries",
                           "%s recoveries", n(t->recovery, b[1], 24));
        gv_counter k[GV_ROW_COUNTERS_MAX];
        uint32_t nk = 0;
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "replay", (double)t->replay);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "recovery", (double)t->recovery);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "crc", (double)sum(t->crc_flit, t->crc_data));
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "ecc", (double)t->ecc_data);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "recovery_failed", (double)t->recovery_failed);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "effective", (double)t->effective);
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, "integrity", (double)t->integrity);
        gv_report_attach_counters(r, c, k, nk);
    }
}

void gv_check_gpu_clock_events(const gv_facts *f, gv_report *r)
{
    double warn_s = POLICY(f, clock_event_warn_s, CLOCK_EVENT_WARN_S);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_clock_events, subject))
            continue;
        const gv_health *h = &g->health;
        const struct {
            const char *name;
            double s;
            int judged;
        } ev[] = {/* The GPU managing itself within its limits: what any GPU that ran jobs
                   * since boot has (gv_compute's GV_CLOCK_EVENTS_PROTECTIVE says why). */
                  {"SW power cap", h->ce_sw_power_cap_s, 0},
                  {"sync boost", h->ce_sync_boost_s, 0},
                  {"SW thermal slowdown", h->ce_sw_thermal_s, 0},
                  /* The hardware stepping in because a limit was crossed. */
                  {"HW thermal slowdown", h->ce_hw_thermal_s, 1},
                  {"HW power brake", h->ce_hw_power_brake_s, 1}};
        char list[288] = "", one[64];
        int known = 0, worst = -1;
        for (size_t k = 0; k < sizeof ev / sizeof *ev; k++) {
            if (ev[k].s < 0)
                snprintf(one, sizeof one, " %s –", ev[k].name);
            else
                snprintf(one, sizeof one, " %s %.1f s", ev[k].name, ev[k].s), known = 1;
            gv_append(list, sizeof list, k ? "," : "", one);
            if (ev[k].judged && ev[k].s > warn_s && (worst < 0 || ev[k].s > ev[worst].s))
                worst = (int)k;
        }
        if (!known) {
            gv_report_add(r, gv_id_gpu_clock_events, subject, GV_SKIP,
                          "NVML gives no clock-event counters for this GPU");
            continue;
        }
        gv_check_result *c;
        if (worst >= 0) {
            c = gv_report_add(r, gv_id_gpu_clock_events, subject, GV_WARN,
                              "%s held the clocks for %.1f s (over %g s);%s", ev[worst].name,
                              ev[worst].s, warn_s, list);
            gv_result_remedy(c, "check cooling (fans, inlet temperature, airflow) and the "
                                "power supply; a board that brakes needs service");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else {
            c = gv_report_add(r, gv_id_gpu_clock_events, subject, GV_PASS,
                              "time with clocks held back since the driver loaded:%s", list);
        }
        gv_result_measured(c, worst >= 0 ? ev[worst].s : 0, "s", "%.1f s",
                           worst >= 0 ? ev[worst].s : 0);
        gv_result_expected(c, SOURCE(f, clock_event_warn_s, "default"),
                           "<= %g s of HW thermal slowdown or HW power brake", warn_s);
    }
}

void gv_check_gpu_temperature(const gv_facts *f, gv_report *r)
{
    double warn_c = POLICY(f, temp_margin_warn_c, TEMP_MARGIN_WARN_C);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_temperature, subject))
            continue;
        const gv_health *h = &g->health;
        int temp = g->gpu.temperature_c;
        char text[256], mem[32] = "";
        if (h->memory_temp_c != INT_MIN)
            snprintf(mem, sizeof mem, "; memory %d C", h->memory_temp_c);
        if (!h->has_margin) {
            gv_report_add(r, gv_id_gpu_temperature, subject, GV_SKIP,
                          "GPU %d C%s; NVML gives no margin to T.Limit to judge it against", temp,
                          mem);
            continue;
        }
        snprintf(text, sizeof text, "GPU %d C, %d C below T.Limit%s", temp, h->margin_c, mem);
        if (h->has_thresholds) {
            char t[128], b[2][24];
            snprintf(t, sizeof t,
                     "; T.Limit thresholds: slowdown %d, shutdown %d, max operating %s, memory "
                     "max %s",
                     h->tlimit_slowdown, h->tlimit_shutdown,
                     n(h->tlimit_gpu_max == INT_MIN ? GV_UNKNOWN : h->tlimit_gpu_max, b[0], 24),
                     n(h->tlimit_mem_max == INT_MIN ? GV_UNKNOWN : h->tlimit_mem_max, b[1], 24));
            gv_append(text, sizeof text, "", t);
        }
        gv_check_result *c;
        if (h->has_thresholds && h->margin_c <= h->tlimit_slowdown) {
            c = gv_report_add(r, gv_id_gpu_temperature, subject, GV_FAIL,
                              "at the hardware slowdown point; %s", text);
            gv_result_remedy(c, "drain the node: check fans, airflow and inlet temperature");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (h->margin_c < warn_c) {
            c = gv_report_add(r, gv_id_gpu_temperature, subject, GV_WARN,
                              "within %g C of T.Limit; %s", warn_c, text);
            gv_result_remedy(c, "check fans, airflow and inlet temperature");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else {
            c = gv_report_add(r, gv_id_gpu_temperature, subject, GV_PASS, "%s", text);
        }
        gv_result_measured(c, h->margin_c, "C", "%d C below T.Limit", h->margin_c);
        gv_result_expected(c, SOURCE(f, temp_margin_warn_c, "default"), ">= %g C below T.Limit",
                           warn_c);
    }
}

void gv_check_gpu_memory_unowned(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_gpu_memory_unowned;
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, id, subject))
            continue;
        const gv_health *h = &g->health;
        long long bytes = h->unowned_bytes;
        gv_check_result *c;
        if (bytes < 0) {
            gv_report_add(r, id, subject, GV_SKIP,
                          "NVML cannot say what holds the GPU's memory (its process list or a "
                          "process's memory unknown)");
            continue;
        }
        if (g->gpu.mig_current == 1) {
            gv_report_add(r, id, subject, GV_SKIP,
                          "not applicable: MIG mode (memory is the instances')");
            continue;
        }
        if (!gv_unowned_beyond_allowance(h)) {
            c = gv_report_add(r, id, subject, GV_PASS,
                              "the GPU's memory in use is held by the %u process(es) NVML lists",
                              h->listed_processes);
            gv_result_measured(c, bytes / GV_MIB, "MiB", "%.0f MiB held by no listed process",
                               bytes / GV_MIB);
            continue;
        }
        if (f->host_pid_ns != 1) {
            c = gv_report_add(
                r, id, subject, GV_SKIP,
                "not judged: %.1f GiB held by processes NVML does not list to this one; %s",
                bytes / GV_GIB,
                f->host_pid_ns == 0
                    ? "outside the host's PID namespace a container's processes are not listed, "
                      "so memory a process left behind cannot be told from a container's"
                    : "this process's PID namespace is unknown");
            gv_result_measured(c, bytes / GV_MIB, "MiB", "%.0f MiB", bytes / GV_MIB);
            continue;
        }
        double total = g->gpu.memory_total > 0 ? (double)g->gpu.memory_total : 0;
        int half = total > 0 && (double)bytes >= total / 2;
        char waited[64] = "";
        if (f->unowned_wait_s > 0)
            snprintf(waited, sizeof waited, ", after waiting %.1f s for it to be freed",
                     f->unowned_wait_s);
        char left[96] = "";
        if (total > 0)
            snprintf(left, sizeof left, ": a job gets at most %.1f of its %.1f GiB",
                     (total - (double)bytes) / GV_GIB, total / GV_GIB);
        c = gv_report_add(r, id, subject, half ? GV_FAIL : GV_WARN,
                          "%.1f GiB of the GPU's memory held by no process%s (NVML lists every "
                          "process in this, the host's, PID namespace: left behind by one that "
                          "ended)%s",
                          bytes / GV_GIB, waited, left);
        gv_result_measured(c, bytes / GV_MIB, "MiB", "%.0f MiB", bytes / GV_MIB);
        gv_result_expected(c, "default", "<= %.0f MiB (contexts' own keep; half the memory: FAIL)",
                           gv_unowned_allowance(h) / GV_MIB);
        gv_result_remedy(c,
                         "reset the GPU while no job runs (nvidia-smi -r -i %u), or reboot "
                         "the node; check dmesg for the Xid of the job that ended",
                         (unsigned)(g->gpu.nvml_index >= 0 ? g->gpu.nvml_index : 0));
        gv_result_action(c, GV_ACTION_RESET_GPU);
    }
}

void gv_check_gpu_fabric(const gv_facts *f, gv_report *r)
{
    static const char *const states[] = {"not supported", "not started", "in progress",
                                         "completed"};
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        if (!judged(g, r, gv_id_gpu_fabric, subject))
            continue;
        const gv_health *h = &g->health;
        if (h->fabric_state < GVNV_FABRIC_STATE_NOT_STARTED ||
            h->fabric_state > GVNV_FABRIC_STATE_COMPLETED) {
            gv_report_add(r, gv_id_gpu_fabric, subject, GV_SKIP,
                          "not applicable: no NVSwitch fabric (NVML: %s)",
                          h->fabric_state == GVNV_FABRIC_STATE_NOT_SUPPORTED ? "not supported"
                                                                             : "no fabric query");
            continue;
        }
        gv_check_result *c;
        const char *state = states[h->fabric_state];
        char waited[64] = ""; /* the facts wait for a fabric on its way (facts_nvml.c) */
        if (f->fabric_wait_s > 0)
            snprintf(waited, sizeof waited, " after waiting %.1f s for it", f->fabric_wait_s);
        if (h->fabric_state != GVNV_FABRIC_STATE_COMPLETED && gv_settle_booting(f->uptime_s)) {
            /* The fabric manager starts with the node and trains the fabric after it: within
             * what booting takes, a fabric on its way is not yet a fault. */
            c = gv_report_add(r, gv_id_gpu_fabric, subject, GV_WARN,
                              "not registered with the NVSwitch fabric yet (probe %s%s), %.0f s "
                              "after boot: the fabric manager may still be setting it up",
                              state, waited, f->uptime_s);
            gv_result_remedy(c, "check again in a few minutes; if it stays, start "
                                "nvidia-fabricmanager and check its log");
            gv_result_action(c, GV_ACTION_RERUN);
        } else if (h->fabric_state != GVNV_FABRIC_STATE_COMPLETED) {
            c = gv_report_add(r, gv_id_gpu_fabric, subject, GV_FAIL,
                              "not registered with the NVSwitch fabric (probe %s%s): CUDA cannot "
                              "use the GPU until it is",
                              state, waited);
            gv_result_remedy(c, "start nvidia-fabricmanager (systemctl status "
                                "nvidia-fabricmanager) and check its log");
            gv_result_action(c, GV_ACTION_FIX_CONFIG); /* a service of the node */
        } else if (h->fabric_status != GVNV_SUCCESS) {
            char name[32];
            c = gv_report_add(r, gv_id_gpu_fabric, subject, GV_FAIL,
                              "the fabric probe completed with an error: %s",
                              gv_nvml_error_name(h->fabric_status, name, sizeof name));
            gv_result_remedy(c, "check nvidia-fabricmanager's log and the NVSwitch trays");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if ((h->fabric_health_mask & 3u) == GVNV_FABRIC_HEALTH_DEGRADED_BW_TRUE) {
            c = gv_report_add(r, gv_id_gpu_fabric, subject, GV_WARN,
                              "registered with the fabric, bandwidth degraded");
            gv_result_remedy(c, "check the NVSwitch trays and NVLink errors (gpu.nvlink_errors)");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else {
            c = gv_report_add(r, gv_id_gpu_fabric, subject, GV_PASS,
                              "registered with the NVSwitch fabric (probe completed%s)", waited);
        }
        gv_result_measured(c, h->fabric_state, "", "%s", state);
    }
}
