/* SPDX-License-Identifier: Apache-2.0 */
/* history.port_errors (docs/history.md): each RDMA port's error counters (the counters of its
 * rdma.port_errors row) against the last run that had them, their growth turned into rates per
 * hour by the two runs' start times. The counters run from the driver's load, so only their
 * growth says when errors came: the judgment production agents make (NVIDIA NVSentinel: any
 * link_downed increment is fatal, symbol_error above 120 an hour fatal; Meta's GCM: any error
 * growth a warning). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "checks/port_counters.h"
#include "core/util.h"

/* A rate is taken over an hour at least: runs a minute apart (a health check's period) would
 * make a burst of three symbol errors 180 an hour, a FAIL no hour of errors earned. */
#define MIN_HOURS 1.0

/* The verdict of one counter's growth (enum gv_port_counter_kind) at this rate per hour. */
static int verdict_of(const gv_history_policy *pol, int kind, double rate)
{
    switch (kind) {
    case GV_PORT_LINK_DOWN:
        return GV_FAIL;
    case GV_PORT_SYMBOL:
        return rate > pol->symbol_error_fail_per_h   ? GV_FAIL
               : rate > pol->symbol_error_warn_per_h ? GV_WARN
                                                     : GV_PASS;
    default:
        return GV_WARN;
    }
}

static const char *remedy_of(int kind)
{
    switch (kind) {
    case GV_PORT_LINK_DOWN:
        return "the link went down between runs: check the cable, the transceiver and the "
               "switch port (mlxlink -d <dev> -m -c; the switch's port log) and drain the node "
               "before a job loses the link";
    case GV_PORT_SYMBOL:
        return "bit errors on the wire: clean or reseat the fibre ends, then replace the cable "
               "or transceiver (mlxlink -d <dev> --show_ber shows the raw and effective BER)";
    case GV_PORT_LINK:
        return "errors of the link itself: check the cable, the transceiver and the switch "
               "port's own counters (mlxlink -d <dev> -c)";
    default:
        return "discards or exhausted RNR retries: check the fabric's flow control (PFC and ECN "
               "on RoCE, the switch's congestion counters) and the jobs' receive queues";
    }
}

/* One port's counters between the last run and this one. */
static void port_of(gv_history_judge *j, const gv_history_policy *pol, const char *subject)
{
    const char *id = gv_id_history_port_errors;
    char hs[160], text[600] = "", resets[300] = "", part[200], when_day[16] = "";
    gv_history_subject(j->report, subject, hs, sizeof hs);
    int known = 0, verdict = GV_PASS, worst_kind = -1;
    int32_t action = GV_ACTION_NONE;
    double hours = 0, symbol_rate = NAN;
    for (size_t i = 0; i < gv_port_counter_count; i++) {
        const gv_port_counter *c = &gv_port_counters[i];
        double now = gv_history_counter_now(j, gv_id_rdma_port_errors, subject, c->name);
        if (!isfinite(now))
            continue;
        gv_history_point last;
        char why[512];
        int n = gv_history_counter_end(j->db, hs, gv_id_rdma_port_errors, c->name, 0,
                                       j->run->started_unix, 0, &last, why, sizeof why);
        if (n < 0) {
            gv_history_query_failed(j, id, subject, why);
            return;
        }
        if (n == 0)
            continue; /* no earlier run gave this counter */
        if (!known++) {
            hours = (double)(j->run->started_unix - last.started_unix) / 3600.0;
            gv_history_day(last.started_unix, when_day, sizeof when_day);
        }
        if (now < last.value) {
            /* The driver reloaded, the NIC was reset or the node rebooted: counted afresh. */
            snprintf(part, sizeof part, "%s %.0f -> %.0f", c->name, last.value, now);
            gv_append(resets, sizeof resets, ", ", part);
            continue;
        }
        double growth = now - last.value;
        double h = (double)(j->run->started_unix - last.started_unix) / 3600.0;
        double rate = growth / (h > MIN_HOURS ? h : MIN_HOURS);
        if (c->kind == GV_PORT_SYMBOL)
            symbol_rate = rate;
        if (growth <= 0)
            continue;
        int v = verdict_of(pol, c->kind, rate);
        snprintf(part, sizeof part, "%s +%.0f (%.0f -> %.0f, %.3g/h", c->name, growth, last.value,
                 now, rate);
        if (c->kind == GV_PORT_SYMBOL)
            snprintf(part + strlen(part), sizeof part - strlen(part), "; %s %g/h",
                     v == GV_FAIL   ? "FAIL above"
                     : v == GV_WARN ? "WARN above"
                                    : "at or below the WARN rate",
                     v == GV_FAIL ? pol->symbol_error_fail_per_h : pol->symbol_error_warn_per_h);
        snprintf(part + strlen(part), sizeof part - strlen(part), ": %s)", c->means);
        gv_append(text, sizeof text, "; ", part);
        if (v == GV_PASS)
            continue;
        int32_t a = c->kind == GV_PORT_TRAFFIC ? GV_ACTION_FIX_CONFIG : GV_ACTION_HW_INSPECT;
        action = a > action ? a : action;
        verdict = v > verdict ? v : verdict;
        /* The remedy of the most telling finding: the kinds are listed most telling first. */
        if (worst_kind < 0 || c->kind < worst_kind)
            worst_kind = c->kind;
    }
    if (!known) {
        gv_report_add(j->report, id, subject, GV_SKIP,
                      "not enough history: no earlier run with this port's error counters "
                      "(rdma.port_errors); the rates start with the next run");
        return;
    }
    char reset_text[400] = "";
    if (resets[0])
        snprintf(reset_text, sizeof reset_text,
                 "; reset since then (the driver reloaded, the NIC was reset or the node "
                 "rebooted), counted as no growth: %s",
                 resets);
    gv_check_result *c;
    if (verdict == GV_PASS)
        c = gv_report_add(
            j->report, id, subject, GV_PASS, "%s since the last run (%s, %.1f h before)%s%s",
            text[0] ? "no error counter grew past its threshold" : "no error counter grew",
            when_day, hours, text[0] ? ": " : "", text);
    else
        c = gv_report_add(j->report, id, subject, verdict,
                          "since the last run (%s, %.1f h before; rates over %.0f h at least): %s",
                          when_day, hours, MIN_HOURS, text);
    if (!c)
        return; /* out of memory: the report says so */
    if (resets[0])
        gv_append(c->message, sizeof c->message, "", reset_text);
    if (verdict != GV_PASS) {
        gv_result_remedy(c, "%s", remedy_of(worst_kind));
        gv_result_action(c, action);
    }
    if (isfinite(symbol_rate))
        gv_result_measured(c, symbol_rate, "symbol errors/h", "%.3g symbol errors/h", symbol_rate);
    gv_result_expected(c, "policy", "link_downed +0, symbol_error <= %g/h (WARN above %g/h)",
                       pol->symbol_error_fail_per_h, pol->symbol_error_warn_per_h);
}

void gv_check_history_port_errors(gv_history_judge *j)
{
    gv_history_policy pol;
    gv_history_policy_of(j->policy, &pol);
    size_t before = j->report->count;
    for (size_t i = 0; i < j->judged; i++)
        if (!strcmp(j->report->results[i].id, gv_id_rdma_port_errors) &&
            gv_report_counters_of(j->report, i)) {
            /* A copy: the rows it adds may move the report's results. */
            char subject[sizeof j->report->results[i].subject];
            memcpy(subject, j->report->results[i].subject, sizeof subject);
            port_of(j, &pol, subject);
        }
    if (j->report->count == before)
        gv_report_add(j->report, gv_id_history_port_errors, "node", GV_SKIP,
                      "no RDMA port error counters in this run (rdma.port_errors: no ACTIVE port "
                      "with counters, or not selected)");
}
