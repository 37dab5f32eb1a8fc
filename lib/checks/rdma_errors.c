/* SPDX-License-Identifier: Apache-2.0 */
/* rdma.port_errors, judged inside the rdma group (gv_active_rdma): each ACTIVE port's error
 * counters as they stand. They count from the driver's load, weeks or months back on a node
 * in service, so one snapshot says neither when its errors happened nor how fast they come: a
 * port with symbol_error 40 may have had them all while its cable was reseated a month ago.
 * The row therefore PASSes listing what is non-zero, and carries the counters for
 * history.port_errors, which turns their growth between runs into rates and judges those. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/port_counters.h"
#include "core/util.h"
#include "rdma/rdma.h"

const gv_port_counter gv_port_counters[] = {
    {"link_downed", offsetof(gv_rdma_port, link_downed), GV_PORT_LINK_DOWN, "link went down"},
    {"symbol_error", offsetof(gv_rdma_port, symbol_error), GV_PORT_SYMBOL, "symbol errors"},
    {"link_error_recovery", offsetof(gv_rdma_port, link_error_recovery), GV_PORT_LINK,
     "link error recoveries"},
    {"port_rcv_errors", offsetof(gv_rdma_port, port_rcv_errors), GV_PORT_LINK,
     "packets received with errors"},
    {"local_link_integrity_errors", offsetof(gv_rdma_port, local_link_integrity_errors),
     GV_PORT_LINK, "local link integrity errors"},
    {"excessive_buffer_overrun_errors", offsetof(gv_rdma_port, excessive_buffer_overrun_errors),
     GV_PORT_LINK, "receive buffer overruns"},
    {"carrier_changes", offsetof(gv_rdma_port, carrier_changes), GV_PORT_LINK,
     "netdev carrier changes"},
    {"port_xmit_discards", offsetof(gv_rdma_port, port_xmit_discards), GV_PORT_TRAFFIC,
     "packets discarded on sending"},
    {"rnr_nak_retry_err", offsetof(gv_rdma_port, rnr_nak_retry_err), GV_PORT_TRAFFIC,
     "RNR NAK retries exhausted"},
};
const size_t gv_port_counter_count = sizeof gv_port_counters / sizeof *gv_port_counters;

int64_t gv_port_counter_value(const gv_rdma_port *p, const gv_port_counter *c)
{
    int64_t v;
    memcpy(&v, (const char *)p + c->offset, sizeof v);
    return v;
}

/* The counters of one ACTIVE port: its row, its counters attached. */
static void judge_port(gv_active_run *run, const gv_rdma_port *p, const char *subject)
{
    char nonzero[400] = "", absent[240] = "", one[80];
    double errors = 0;
    gv_counter k[GV_ROW_COUNTERS_MAX];
    uint32_t nk = 0;
    for (size_t i = 0; i < gv_port_counter_count; i++) {
        const gv_port_counter *c = &gv_port_counters[i];
        int64_t v = gv_port_counter_value(p, c);
        if (v < 0) {
            /* Unknown because absent, not because unreadable (counters_problem names those as
             * "<dir>/<name>: why"); carrier_changes is RoCE's alone: InfiniBand does not lack
             * it. */
            char named[64];
            snprintf(named, sizeof named, "/%s:", c->name);
            if (!strstr(p->counters_problem, named) &&
                (strcmp(c->name, "carrier_changes") || p->link_layer == GV_LINK_LAYER_ETHERNET))
                gv_append(absent, sizeof absent, ", ", c->name);
            continue;
        }
        gv_counter_set(k, &nk, GV_ROW_COUNTERS_MAX, c->name, (double)v);
        /* A healthy netdev's carrier changed when it came up: a count, not an error. */
        if (strcmp(c->name, "carrier_changes"))
            errors += (double)v;
        if (v > 0) {
            snprintf(one, sizeof one, "%s %lld", c->name, (long long)v);
            gv_append(nonzero, sizeof nonzero, ", ", one);
        }
    }
    gv_check_result *c;
    if (!p->has_counters) {
        /* Soft RoCE, a driver without the PMA's counters: nothing of the link to judge. What
         * it does give (its netdev's carrier changes) is kept for history.port_errors. */
        c = gv_report_add(run->report, gv_id_rdma_port_errors, subject, GV_SKIP,
                          "%s port %u has no counters directory (ports/%u/counters): its driver "
                          "gives no link error counters%s%s",
                          p->device, p->port, p->port, nonzero[0] ? "; it gives: " : "", nonzero);
        gv_report_attach_counters(run->report, c, k, nk);
        return;
    }
    char unknown[300] = "";
    if (absent[0])
        snprintf(unknown, sizeof unknown, "; not given by this device: %s", absent);
    if (p->counters_problem[0]) {
        /* What was read stands; the counters named are unknown, which no rate can be made of. */
        c = gv_report_add(run->report, gv_id_rdma_port_errors, subject, GV_WARN,
                          "%s port %u: counters unreadable: %s; read: %s%s", p->device, p->port,
                          p->counters_problem, nonzero[0] ? nonzero : "no error counted", unknown);
        gv_result_remedy(c,
                         "read the files named by hand (cat %s/ports/%u/counters/*); a counter "
                         "that is not a number is the NIC driver's or the sysroot's fault",
                         p->device, p->port);
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (nonzero[0]) {
        c = gv_report_add(run->report, gv_id_rdma_port_errors, subject, GV_PASS,
                          "%s port %u: %s since the driver loaded (their rates between runs: "
                          "history.port_errors)%s",
                          p->device, p->port, nonzero, unknown);
    } else {
        c = gv_report_add(run->report, gv_id_rdma_port_errors, subject, GV_PASS,
                          "%s port %u: no error counted since the driver loaded%s", p->device,
                          p->port, unknown);
    }
    gv_result_measured(c, errors, "errors", "%.0f errors since the driver loaded", errors);
    gv_report_attach_counters(run->report, c, k, nk);
}

void gv_rdma_judge_port_errors(gv_active_run *run, const gv_rdma_report *r)
{
    for (size_t i = 0; i < r->port_count; i++) {
        const gv_rdma_port *p = &r->ports[i];
        char subject[96];
        snprintf(subject, sizeof subject, "%s/%u", p->device, p->port);
        if (p->state != GV_PORT_ACTIVE) {
            /* A port without a link counts nothing new; rdma.ports judges its state. */
            gv_report_add(run->report, gv_id_rdma_port_errors, subject, GV_SKIP,
                          "%s port %u: state %s, not ACTIVE: its error counters are judged while "
                          "it carries traffic (rdma.ports judges its state)",
                          p->device, p->port, p->state_text[0] ? p->state_text : "unknown");
            continue;
        }
        judge_port(run, p, subject);
    }
}
