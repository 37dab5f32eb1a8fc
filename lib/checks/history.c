/* SPDX-License-Identifier: Apache-2.0 */
/* The history.* checks (docs/history.md): each GPU's figures against its own median, its memory
 * errors' growth, its links' changes between runs and its record of bad runs, by UUID so that a
 * GPU moved to another slot keeps its record; the node's the same by host name. Each row says
 * what it compared with; before enough history it SKIPs saying how many runs there are. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "core/util.h"

#define GV_HISTORY_MAX_POINTS 512

void gv_history_policy_of(const gv_policy *p, gv_history_policy *out)
{
    static const gv_policy none = GV_POLICY_INIT;
    if (!p)
        p = &none;
#define OR(v, d) ((v) > 0 ? (v) : (d))
    out->min_runs = (long)OR(p->history_min_runs, 5);
    out->runs = (long)OR(p->history_runs, 20);
    out->perf_warn_fraction = OR(p->history_perf_warn_fraction, 0.95);
    out->window_days = OR(p->history_window_days, 30);
    out->ecc_per_day_warn = OR(p->history_ecc_per_day_warn, 100);
    out->remap_warn = OR(p->history_remap_warn, 1);
    out->exhaustion_days_warn = OR(p->history_exhaustion_days_warn, 180);
    out->record_warn = OR(p->history_record_warn, 3);
    out->symbol_error_warn_per_h = OR(p->history_symbol_error_warn_per_h, 0);
    out->symbol_error_fail_per_h = OR(p->history_symbol_error_fail_per_h, 120);
    out->limits.keep_days = OR(p->history_keep_days, 365);
    out->limits.keep_runs = OR(p->history_keep_runs, 10000);
    out->limits.keep_mb = OR(p->history_keep_mb, 256);
    out->limits.wait_s = OR(p->history_wait_s, 10);
#undef OR
}

static void utc_time(long long unix_s, const char *format, char *out, size_t cap)
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, cap, format, &tm))
        snprintf(out, cap, "?");
}

void gv_history_day(long long unix_s, char *out, size_t cap)
{
    utc_time(unix_s, "%Y-%m-%d", out, cap);
}

void gv_history_minute(long long unix_s, char *out, size_t cap)
{
    utc_time(unix_s, "%Y-%m-%d %H:%M UTC", out, cap);
}

void gv_history_query_failed(gv_history_judge *j, const char *id, const char *subject,
                             const char *why)
{
    gv_check_result *c =
        gv_report_add(j->report, id, subject, GV_ERROR, "%s; judged without history", why);
    gv_result_action(c, GV_ACTION_RERUN);
}

/* The start of the policy's window (history_window_days) before this run. */
static long long window_start(const gv_history_judge *j, const gv_history_policy *pol)
{
    return j->run->started_unix - (long long)(pol->window_days * 86400);
}

size_t gv_history_subjects(const gv_report *r, char (*out)[48], size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->gpu_count && n + 1 < cap; i++)
        if (r->gpus[i].uuid[0] && !r->gpus[i].inaccessible)
            snprintf(out[n++], 48, "gpu%u", (unsigned)r->gpus[i].index);
    snprintf(out[n++], 48, "node");
    return n;
}

const gv_check_result *gv_history_row_now(const gv_history_judge *j, const char *check,
                                          const char *subject, size_t *index)
{
    for (size_t i = 0; i < j->judged; i++)
        if (!strcmp(j->report->results[i].id, check) &&
            !strcmp(j->report->results[i].subject, subject)) {
            if (index)
                *index = i;
            return &j->report->results[i];
        }
    return NULL;
}

double gv_history_counter_now(const gv_history_judge *j, const char *check, const char *subject,
                              const char *name)
{
    size_t index;
    if (!gv_history_row_now(j, check, subject, &index))
        return NAN;
    const gv_row_counters *c = gv_report_counters_of(j->report, index);
    for (uint32_t k = 0; c && k < c->count; k++)
        if (!strcmp(c->items[k].name, name))
            return c->items[k].value;
    return NAN;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of the points and their spread: 1.4826 times the median absolute deviation, the
 * standard deviation of normal noise, robust to the odd slow run among them. */
static double median(const gv_history_point *p, long n, double *spread)
{
    double v[GV_HISTORY_MAX_POINTS];
    for (long i = 0; i < n; i++)
        v[i] = p[i].value;
    double m = median_of(v, n);
    for (long i = 0; i < n; i++)
        v[i] = fabs(v[i] - m);
    *spread = 1.4826 * median_of(v, n);
    return m;
}

/* Whether check `id` is a history check (its rows judge the record, they are not part of it). */
static int is_history(const char *id)
{
    int i = gv_catalog_index(id);
    return i >= 0 && gv_checks[i].history != NULL;
}

/* A performance figure of this run: more is better, in one of these units. A FAIL's figure too
 * (slower than the datasheet allows is slower than its record too); the record's own figures
 * are its PASS and WARN runs' only (gv_history_figures). */
static int is_performance(const gv_check_result *c)
{
    return (c->verdict == GV_PASS || c->verdict == GV_WARN || c->verdict == GV_FAIL) &&
           isfinite(c->value) && c->value > 0 && !is_history(c->id) &&
           (!strcmp(c->unit, "TFLOPS") || !strcmp(c->unit, "GB/s"));
}

void gv_check_history_performance(gv_history_judge *j)
{
    const char *id = gv_id_history_performance;
    gv_history_policy pol;
    gv_history_policy_of(j->policy, &pol);
    char subs[GV_RUN_MAX_GPUS + 1][48];
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    for (size_t s = 0; s < ns; s++) {
        char hs[160], worst_text[400] = "", all[512] = "", short_of[256] = "", why[512];
        gv_history_subject(j->report, subs[s], hs, sizeof hs);
        double worst = INFINITY, worst_floor = 0; /* the figure nearest its floor */
        int figures = 0, compared = 0, failed = 0;
        long fewest = -1;
        for (size_t i = 0; i < j->judged && !failed; i++) {
            const gv_check_result *c = &j->report->results[i];
            if (strcmp(c->subject, subs[s]) || !is_performance(c))
                continue;
            figures++;
            gv_history_point p[GV_HISTORY_MAX_POINTS];
            long n = gv_history_figures(
                j->db, hs, c->id, c->unit, j->run->comparable, p,
                (size_t)(pol.runs < GV_HISTORY_MAX_POINTS ? pol.runs : GV_HISTORY_MAX_POINTS), why,
                sizeof why);
            if (n < 0) {
                gv_history_query_failed(j, id, subs[s], why);
                failed = 1;
                break;
            }
            if (n < pol.min_runs) {
                if (fewest < 0 || n < fewest)
                    fewest = n;
                char one[64];
                snprintf(one, sizeof one, "%s %ld", c->id, n);
                gv_append(short_of, sizeof short_of, ", ", one);
                continue;
            }
            compared++;
            /* The floor: the policy's fraction of the median, lower where this GPU's own runs
             * spread wider (a short GEMM varies by several percent from run to run on an idle
             * H100): three spreads below the median. */
            double spread, m = median(p, n, &spread), ratio = c->value / m;
            double floor = fmin(pol.perf_warn_fraction, 1 - 3 * spread / m);
            char since[16], text[200];
            gv_history_day(p[n - 1].started_unix, since, sizeof since);
            snprintf(text, sizeof text,
                     "%s %.4g %s vs this GPU's median %.4g over %ld runs since %s", c->id, c->value,
                     c->unit, m, n, since);
            if (!strcmp(subs[s], "node"))
                memcpy(strstr(text, "this GPU's"), "the node's", 10);
            gv_append(all, sizeof all, "; ", text);
            if (ratio - floor < worst - worst_floor) {
                worst = ratio;
                worst_floor = floor;
                snprintf(worst_text, sizeof worst_text, "%s (%.3fx; spread %.1f%%)", text, ratio,
                         100 * spread / m);
            }
        }
        if (failed || (!figures && strcmp(subs[s], "node")))
            continue; /* a GPU with no figure in this run (quick without its GPU tests) */
        if (!figures)
            continue;
        gv_check_result *c;
        if (!compared) {
            c = gv_report_add(j->report, id, subs[s], GV_SKIP,
                              "not enough history: %ld comparable earlier run(s) of %ld needed "
                              "(same driver, level and sizes; %s)",
                              fewest < 0 ? 0 : fewest, pol.min_runs, short_of);
            continue;
        }
        if (worst < worst_floor) {
            c = gv_report_add(j->report, id, subs[s], GV_WARN, "%s: below %.3fx of its own median",
                              worst_text, worst_floor);
            gv_result_remedy(c, "run it again on an idle GPU; a GPU that stays slower than its "
                                "own record has a cooling, power or hardware fault");
            gv_result_action(c, GV_ACTION_RERUN);
        } else if (compared == 1) {
            c = gv_report_add(j->report, id, subs[s], GV_PASS, "%s", all);
        } else {
            /* Every comparison would not fit a row: the one nearest its floor, and how many. */
            c = gv_report_add(j->report, id, subs[s], GV_PASS,
                              "%d figures at or above their floors; the nearest: %s", compared,
                              worst_text);
        }
        gv_result_measured(c, worst, "x median", "%.3fx", worst);
        gv_result_expected(c, "policy", ">= %.3fx of its median", worst_floor);
    }
}

/* A counter's oldest value in the window and this run's: 1 when both are known, 0 when not, -1
 * on a query's failure (an ERROR row made). */
static int span(gv_history_judge *j, const char *subject, const char *hs, const char *check,
                const char *name, long long since, gv_history_point *first, double *now)
{
    *now = gv_history_counter_now(j, check, subject, name);
    if (!isfinite(*now))
        return 0;
    char why[512];
    int n = gv_history_counter_end(j->db, hs, check, name, since, j->run->started_unix, 1, first,
                                   why, sizeof why);
    if (n < 0)
        gv_history_query_failed(j, gv_id_history_memory_errors, subject, why);
    return n;
}

/* The spare rows a GPU's banks have left, as one number: NVML's histogram weighted by the
 * availability each bin stands for (max 4, high 3, partial 2, low 1, none 0). */
static const char *const bank_bins[] = {"banks_max", "banks_high", "banks_partial", "banks_low",
                                        "banks_none"};

/* One GPU's memory errors over the window into text; 1 when they are a finding, -1 on a
 * query's failure. The days until the spare rows run out into *days (INFINITY: not falling). */
static int memory_trend(gv_history_judge *j, const gv_history_policy *pol, const char *subject,
                        const char *hs, long long since, char *text, size_t cap, double *days)
{
    char part[200], since_day[16];
    int warn = 0, rc;
    gv_history_point first;
    double now;
    *days = INFINITY;
    if ((rc = span(j, subject, hs, gv_id_gpu_ecc_errors, "correctable_aggregate", since, &first,
                   &now)) < 0)
        return -1;
    if (rc) {
        double elapsed = (j->run->started_unix - first.started_unix) / 86400.0;
        double growth = now - first.value;
        double rate = growth / (elapsed > 1.0 / 24 ? elapsed : 1.0 / 24);
        gv_history_day(first.started_unix, since_day, sizeof since_day);
        snprintf(part, sizeof part, "correctable ECC %+.0f since %s (%.1f/day, policy %g)", growth,
                 since_day, growth > 0 ? rate : 0, pol->ecc_per_day_warn);
        gv_append(text, cap, "; ", part);
        warn |= growth > 0 && rate > pol->ecc_per_day_warn;
    }
    double grown = 0;
    int remaps = 0;
    static const char *const remapped[] = {"remapped_correctable", "remapped_uncorrectable"};
    for (int k = 0; k < 2; k++) {
        if ((rc = span(j, subject, hs, gv_id_gpu_row_remap, remapped[k], since, &first, &now)) < 0)
            return -1;
        if (rc) {
            grown += now - first.value;
            remaps = 1;
        }
    }
    if (remaps) {
        snprintf(part, sizeof part, "%+.0f row(s) remapped in the window (policy %g)", grown,
                 pol->remap_warn);
        gv_append(text, cap, "; ", part);
        warn |= grown >= pol->remap_warn;
    }
    double first_avail = 0, now_avail = 0;
    long long from = 0;
    int bins = 0;
    for (int b = 0; b < 5; b++) {
        if ((rc = span(j, subject, hs, gv_id_gpu_row_remap, bank_bins[b], since, &first, &now)) < 0)
            return -1;
        bins += rc;
        first_avail += (4 - b) * first.value;
        now_avail += (4 - b) * now;
        from = first.started_unix;
    }
    if (bins == 5) {
        double elapsed = (j->run->started_unix - from) / 86400.0;
        double lost = first_avail - now_avail;
        if (lost > 0 && elapsed > 0) {
            *days = now_avail / (lost / elapsed);
            snprintf(part, sizeof part,
                     "spare rows falling: banks out of spares in about %.0f days at this rate "
                     "(policy %g)",
                     *days, pol->exhaustion_days_warn);
            warn |= *days < pol->exhaustion_days_warn;
        } else {
            snprintf(part, sizeof part, "spare-row banks unchanged");
        }
        gv_append(text, cap, "; ", part);
    }
    return warn;
}

void gv_check_history_memory_errors(gv_history_judge *j)
{
    const char *id = gv_id_history_memory_errors;
    gv_history_policy pol;
    gv_history_policy_of(j->policy, &pol);
    long long since = window_start(j, &pol);
    char subs[GV_RUN_MAX_GPUS + 1][48];
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    for (size_t s = 0; s + 1 < ns; s++) { /* GPUs only */
        char hs[160], why[512], text[480] = "";
        gv_history_subject(j->report, subs[s], hs, sizeof hs);
        if (!isfinite(gv_history_counter_now(j, gv_id_gpu_ecc_errors, subs[s],
                                             "correctable_aggregate")) &&
            !isfinite(gv_history_counter_now(j, gv_id_gpu_row_remap, subs[s], "banks_max"))) {
            gv_report_add(j->report, id, subs[s], GV_SKIP,
                          "no ECC or row-remapping counters in this run (gpu.ecc_errors, "
                          "gpu.row_remap)");
            continue;
        }
        long runs = gv_history_runs_of(j->db, hs, since, pol.min_runs, why, sizeof why);
        if (runs < 0) {
            gv_history_query_failed(j, id, subs[s], why);
            continue;
        }
        if (runs < pol.min_runs) {
            gv_report_add(j->report, id, subs[s], GV_SKIP,
                          "not enough history: %ld earlier run(s) in the last %g days, %ld needed",
                          runs, pol.window_days, pol.min_runs);
            continue;
        }
        double days;
        int warn = memory_trend(j, &pol, subs[s], hs, since, text, sizeof text, &days);
        if (warn < 0)
            continue;
        gv_check_result *c =
            gv_report_add(j->report, id, subs[s], warn ? GV_WARN : GV_PASS, "%s", text);
        if (warn) {
            gv_result_remedy(c, "memory errors growing on this GPU: plan its replacement before "
                                "the spare rows run out; `dcgmi diag -r 3` meanwhile");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        }
        if (isfinite(days))
            gv_result_measured(c, days, "days", "%.0f days of spare rows", days);
    }
}

/* The last earlier value of a counter and this run's; 1 when both are known. */
static int last_and_now(gv_history_judge *j, const char *subject, const char *hs, const char *check,
                        const char *name, double *last, double *now, long long *when, int *failed)
{
    gv_history_point p[1];
    char why[512];
    *now = gv_history_counter_now(j, check, subject, name);
    if (!isfinite(*now))
        return 0;
    int n = gv_history_counter_end(j->db, hs, check, name, 0, j->run->started_unix, 0, p, why,
                                   sizeof why);
    if (n < 0) {
        gv_history_query_failed(j, gv_id_history_links, subject, why);
        *failed = 1;
        return 0;
    }
    if (n == 1) {
        *last = p[0].value;
        *when = p[0].started_unix;
    }
    return n == 1;
}

/* What history.links compares: a counter of a row, and whether it only grows (a count of
 * events) or is a state (links active, the port's state). */
typedef struct link_counter {
    const char *check, *name, *words;
    int grows;
} link_counter;

/* One subject's links between the last run and this one. */
static void links_of(gv_history_judge *j, const char *subject, const link_counter *list,
                     size_t count)
{
    char hs[160], text[480] = "", part[160], when_day[16] = "";
    gv_history_subject(j->report, subject, hs, sizeof hs);
    int known = 0, in_run = 0, changed = 0, failed = 0;
    for (size_t k = 0; k < count && !failed; k++) {
        double last, now;
        long long when = 0;
        size_t index;
        in_run |= gv_history_row_now(j, list[k].check, subject, &index) &&
                  gv_report_counters_of(j->report, index);
        if (!last_and_now(j, subject, hs, list[k].check, list[k].name, &last, &now, &when, &failed))
            continue;
        known = 1;
        gv_history_day(when, when_day, sizeof when_day);
        /* A count lower than before was reset (driver reload, GPU reset): no growth known. */
        if (now == last || (list[k].grows && now < last))
            continue;
        changed = 1;
        if (list[k].grows)
            snprintf(part, sizeof part, "%s %+.0f (%.0f -> %.0f)", list[k].words, now - last, last,
                     now);
        else
            snprintf(part, sizeof part, "%s %.0f -> %.0f", list[k].words, last, now);
        gv_append(text, sizeof text, "; ", part);
    }
    if (failed || !in_run)
        return;
    gv_check_result *c;
    if (!known) {
        gv_report_add(j->report, gv_id_history_links, subject, GV_SKIP,
                      "not enough history: no earlier run with this subject's link counters");
    } else if (changed) {
        c = gv_report_add(j->report, gv_id_history_links, subject, GV_WARN,
                          "changed since the last run (%s): %s", when_day, text);
        gv_result_remedy(c, "a link that went down or retrained between runs: check its cable, "
                            "transceiver or NVLink board before it fails a job");
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    } else {
        gv_report_add(j->report, gv_id_history_links, subject, GV_PASS,
                      "no change since the last run (%s)", when_day);
    }
}

void gv_check_history_links(gv_history_judge *j)
{
    static const link_counter gpu[] = {
        {gv_id_gpu_nvlink, "active", "NVLinks active", 0},
        {gv_id_gpu_nvlink_errors, "recovery", "NVLink recoveries", 1},
        {gv_id_gpu_nvlink_errors, "replay", "NVLink replays", 1},
        {gv_id_gpu_nvlink_errors, "crc", "NVLink CRC errors", 1},
    };
    static const link_counter port[] = {
        {gv_id_rdma_ports, "state", "port state", 0},
        {gv_id_rdma_ports, "phys_state", "physical state", 0},
        {gv_id_rdma_ports, "link_downed", "link went down", 1},
        {gv_id_rdma_ports, "link_error_recovery", "link error recoveries", 1},
    };
    size_t before = j->report->count;
    char subs[GV_RUN_MAX_GPUS + 1][48];
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    for (size_t s = 0; s + 1 < ns; s++)
        links_of(j, subs[s], gpu, sizeof gpu / sizeof *gpu);
    for (size_t i = 0; i < j->judged; i++)
        if (!strcmp(j->report->results[i].id, gv_id_rdma_ports)) {
            /* A copy: the rows it adds may move the report's results. */
            char subject[sizeof j->report->results[i].subject];
            memcpy(subject, j->report->results[i].subject, sizeof subject);
            links_of(j, subject, port, sizeof port / sizeof *port);
        }
    if (j->report->count == before)
        gv_report_add(j->report, gv_id_history_links, "node", GV_SKIP,
                      "no NVLink or RDMA port counters in this run (gpu.nvlink, rdma.ports)");
}

/* This run's mark on the subject's record (gv_history_bad_row; "node": on any subject). */
static int bad_now(const gv_history_judge *j, const char *subject)
{
    for (size_t i = 0; i < j->judged; i++) {
        const gv_check_result *c = &j->report->results[i];
        if (strcmp(subject, "node") && strcmp(c->subject, subject))
            continue;
        if (gv_history_bad_row(c))
            return 1;
    }
    return 0;
}

/* A clock may be set back (NTP's first sync after a wrong RTC, an operator): the newest run
 * recorded then carries a later stamp than this one. The history keeps the order the runs were
 * made in and judges nothing by the stamps' order (the counters' "last run" is the newest
 * stamped no later than this run), but the node says so: its times read wrong. */
#define CLOCK_SLACK_S 300 /* runs of one node started at once, each stamped at its start */
static void clock_behind(gv_history_judge *j, gv_check_result *c)
{
    long long last = 0;
    char why[512], when[16];
    const char *host = j->report->hostname[0] ? j->report->hostname : "unknown";
    if (!c || gv_history_last_run(j->db, host, &last, why, sizeof why) != 1 ||
        last <= j->run->started_unix + CLOCK_SLACK_S)
        return;
    gv_history_day(last, when, sizeof when);
    char note[160];
    snprintf(note, sizeof note,
             "the clock is behind the last run's: it was stamped %s, %.1f days after this one",
             when, (double)(last - j->run->started_unix) / 86400.0);
    gv_append(c->message, sizeof c->message, "; ", note);
    if (c->verdict == GV_PASS || c->verdict == GV_SKIP) {
        c->verdict = GV_WARN;
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        gv_result_remedy(c, "set the node's clock (chrony, systemd-timesyncd): the history keeps "
                            "its runs in the order they were made, but every time it shows is "
                            "this clock's");
    }
}

void gv_check_history_record(gv_history_judge *j)
{
    const char *id = gv_id_history_record;
    gv_history_policy pol;
    gv_history_policy_of(j->policy, &pol);
    long long since = window_start(j, &pol);
    char subs[GV_RUN_MAX_GPUS + 1][48];
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    for (size_t s = 0; s < ns; s++) {
        char hs[160], why[512], first[16];
        gv_history_subject(j->report, subs[s], hs, sizeof hs);
        gv_history_record rec = {0, 0, 0};
        if (gv_history_record_of(j->db, hs, since, &rec, why, sizeof why)) {
            gv_history_query_failed(j, id, subs[s], why);
            continue;
        }
        int now = bad_now(j, subs[s]);
        long runs = rec.runs + 1, bad = rec.bad + now;
        long long first_unix = rec.bad ? rec.first_unix : j->run->started_unix;
        gv_history_day(first_unix, first, sizeof first);
        const char *whose = strcmp(subs[s], "node") ? "this GPU" : "the node";
        gv_check_result *c;
        if (bad >= pol.record_warn) {
            c = gv_report_add(j->report, id, subs[s], GV_WARN,
                              "%ld of %ld runs in the last %g days had a FAIL or ERROR on %s, "
                              "the first on %s (policy: %g)",
                              bad, runs, pol.window_days, whose, first, pol.record_warn);
            gv_result_remedy(c, "a part that keeps failing: drain it for inspection rather than "
                                "returning it to service after each reset");
            gv_result_action(c, GV_ACTION_HW_INSPECT);
        } else if (rec.runs < pol.min_runs) {
            c = gv_report_add(j->report, id, subs[s], GV_SKIP,
                              "not enough history: %ld earlier run(s) of %s in the last %g days, "
                              "%ld needed (%ld with a FAIL or ERROR)",
                              rec.runs, whose, pol.window_days, pol.min_runs, bad);
        } else {
            c = gv_report_add(j->report, id, subs[s], GV_PASS,
                              "%ld of %ld runs in the last %g days had a FAIL or ERROR on %s", bad,
                              runs, pol.window_days, whose);
        }
        gv_result_measured(c, (double)bad, "runs", "%ld of %ld runs", bad, runs);
        gv_result_expected(c, "policy", "< %g", pol.record_warn);
        if (!strcmp(subs[s], "node"))
            clock_behind(j, c);
    }
}
