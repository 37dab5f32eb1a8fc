/* SPDX-License-Identifier: Apache-2.0 */
/* nvswitch.sxid: the SXid events the NVSwitch driver logged since boot (or since the oldest
 * record the kernel's log still holds), one row per NVSwitch that logged any. A fatal SXid
 * means the switch stopped forwarding on that NVLink: NVIDIA's fabric manager guide has the
 * GPUs and NVSwitches reset (the node rebooted) before the fabric carries traffic again, so
 * it FAILs until the next boot clears the log. Non-fatal ones the switch corrected; they are
 * named, not counted (NVSentinel and gpud act on none of them). A node without NVSwitch that
 * logged none SKIPs as not applicable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "core/util.h"
#include "sys/kmsg.h"
#include "sys/pci.h"

#define SXID_REMEDY                                                                                \
    "drain the node: a fatal SXid leaves the NVSwitch fabric down until the GPUs and NVSwitches "  \
    "are reset (reboot the node; the fabric manager starts with it); if it comes back on the "     \
    "same link, have the baseboard inspected (nvidia-bug-report.sh for NVIDIA support)"

/* "nvswitch0" of the driver's "nvidia-nvswitch0"; the bus when the line named no device. */
static void switch_subject(const gv_xid_event *e, char *out, size_t cap)
{
    const char *name = strncmp(e->device, "nvidia-", 7) == 0 ? e->device + 7 : e->device;
    snprintf(out, cap, "%s", name[0] ? name : e->bus);
}

/* The GPU whose NVLink ends at this NVSwitch's link (NVML's far end of each link: the switch's
 * bus and port), as " (gpu6's NVLink 0)"; "" where the topology does not say. */
static void gpu_behind(const gv_facts *f, const gv_xid_event *e, char *out, size_t cap)
{
    gv_pci_addr sw;
    out[0] = '\0';
    if (e->link < 0 || gv_pci_parse_addr(e->bus, &sw) != 0)
        return;
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        for (int l = 0; l < g->nvlink_count; l++) {
            const gv_nvlink *n = &g->nvlinks[l];
            if (n->to_switch && n->remote_known && n->remote_link == e->link &&
                gv_pci_addr_compare(&n->remote, &sw) == 0) {
                char subject[48];
                gv_gpu_subject(g, subject, sizeof subject);
                snprintf(out, cap, " (%s's NVLink %d)", subject, l);
                return;
            }
        }
    }
}

/* "24007 Fatal on link 30 (gpu6's NVLink 0): sourcetrack timeout error" appended to out, "; "
 * between. */
static void describe(const gv_facts *f, const gv_xid_event *e, char *out, size_t cap)
{
    char one[260], link[80] = "", gpu[64];
    const char *text = e->text;
    if (e->link >= 0) {
        gpu_behind(f, e, gpu, sizeof gpu);
        snprintf(link, sizeof link, " on link %d%s", e->link, gpu);
        if (!strncmp(text, "Link ", 5)) /* the line's "Link 30 ": said already */
            text += 5 + strspn(text + 5, "0123456789 ");
    }
    snprintf(one, sizeof one, "%d %s%s: %s", e->xid, e->fatal ? "Fatal" : "Non-fatal", link, text);
    gv_append(out, cap, "; ", one);
}

void gv_check_nvswitch_sxid(const gv_facts *f, gv_report *r)
{
    const gv_xid_event *events = f->kmsg_events;
    size_t count = f->kmsg_count;
    if (f->kmsg_status != GV_OK) {
        if (f->nvswitch_count > 0)
            gv_report_add(r, gv_id_nvswitch_sxid, "node", GV_SKIP,
                          "kernel log not read, no SXid judged: %s (gpu.xid says what to fix)",
                          f->kmsg_err.text);
        else
            gv_report_add(r, gv_id_nvswitch_sxid, "node", GV_SKIP,
                          "not applicable: no NVSwitch on the PCI bus");
        return;
    }
    char scope[160];
    gv_kmsg_scope(&f->kmsg_span, scope, sizeof scope);
    /* The switches that logged SXids, in the order of their first line. */
    char seen[16][48];
    size_t switches = 0, sxids = 0;
    for (size_t k = 0; k < count; k++) {
        if (!events[k].sxid)
            continue;
        sxids++;
        char subject[48];
        switch_subject(&events[k], subject, sizeof subject);
        size_t i = 0;
        while (i < switches && strcmp(seen[i], subject) != 0)
            i++;
        if (i == switches && switches < sizeof seen / sizeof *seen)
            snprintf(seen[switches++], sizeof seen[0], "%s", subject);
    }
    if (sxids == 0) {
        if (f->nvswitch_count > 0)
            gv_report_add(r, gv_id_nvswitch_sxid, "node", GV_PASS,
                          "no SXid logged %s by the node's %d NVSwitch(es)", scope,
                          f->nvswitch_count);
        else
            gv_report_add(r, gv_id_nvswitch_sxid, "node", GV_SKIP,
                          "not applicable: no NVSwitch on the PCI bus and no SXid in the kernel "
                          "log");
        return;
    }
    for (size_t i = 0; i < switches; i++) {
        char fatal[768] = "", other[768] = "", bus[24] = "";
        size_t fatal_n = 0, other_n = 0, unknown = 0;
        for (size_t k = 0; k < count; k++) {
            char subject[48];
            if (!events[k].sxid)
                continue;
            switch_subject(&events[k], subject, sizeof subject);
            if (strcmp(subject, seen[i]) != 0)
                continue;
            snprintf(bus, sizeof bus, "%s", events[k].bus);
            if (events[k].unreadable) {
                unknown++;
            } else if (events[k].fatal) {
                fatal_n++;
                describe(f, &events[k], fatal, sizeof fatal);
            } else {
                other_n++;
                describe(f, &events[k], other, sizeof other);
            }
        }
        gv_check_result *c;
        if (fatal_n || unknown) {
            /* An SXid whose code could not be read may be a fatal one: not a pass. */
            c = gv_report_add(r, gv_id_nvswitch_sxid, seen[i], GV_FAIL,
                              "%s (%s): %zu fatal SXid(s) logged %s: %s%s%s%s", seen[i], bus,
                              fatal_n + unknown, scope, fatal[0] ? fatal : "",
                              unknown ? (fatal[0] ? "; " : "") : "",
                              unknown ? "an SXid whose code could not be read" : "",
                              other_n ? "; non-fatal ones too" : "");
            gv_result_remedy(c, SXID_REMEDY);
            gv_result_action(c, GV_ACTION_REBOOT_NODE);
        } else {
            c = gv_report_add(r, gv_id_nvswitch_sxid, seen[i], GV_PASS,
                              "%s (%s): %zu non-fatal SXid(s) logged %s, corrected by the switch: "
                              "%s",
                              seen[i], bus, other_n, scope, other);
        }
        gv_result_measured(c, (double)(fatal_n + unknown), "fatal SXids", "%zu fatal, %zu other",
                           fatal_n + unknown, other_n);
    }
}
