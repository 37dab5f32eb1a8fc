/* SPDX-License-Identifier: Apache-2.0 */
/* nvswitch.fabric_manager: the daemon that sets up the NVSwitch fabric (nv-fabricmanager, the
 * nvidia-fabricmanager service) running, and since boot. Without it no GPU registers with the
 * fabric after the next GPU reset or reboot; a daemon started long after boot was restarted:
 * it stopped while jobs ran (NVIDIA's fabric manager guide: a fatal NVSwitch error or a crash
 * ends it, and jobs using the fabric then fail). Read from the node's /proc, so that a pod
 * with the host's PID namespace sees it as systemd does. Judged where the NVSwitches are on the
 * PCI bus; a node without any SKIPs. */
#include <stdio.h>

#include "checks/checks.h"
#include "core/settle.h"

#define FM_REMEDY_START                                                                            \
    "start it (systemctl enable --now nvidia-fabricmanager; its version must match the "           \
    "driver's) and read /var/log/fabricmanager.log for why it is not running"

/* The GPUs NVML places in an NVSwitch fabric, and how many of them are registered. */
static void fabric_gpus(const gv_facts *f, int *registered, int *gpus)
{
    *registered = *gpus = 0;
    for (size_t i = 0; i < f->gpu_count; i++) {
        int state = f->gpus[i].health.fabric_state;
        if (state < GVNV_FABRIC_STATE_NOT_STARTED || state > GVNV_FABRIC_STATE_COMPLETED)
            continue;
        (*gpus)++;
        *registered += state == GVNV_FABRIC_STATE_COMPLETED;
    }
}

void gv_check_nvswitch_fabric_manager(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_nvswitch_fabric_manager;
    int registered, gpus;
    fabric_gpus(f, &registered, &gpus);
    /* The daemon runs where the NVSwitches are: a VM given an HGX board's GPUs (shared NVSwitch
     * virtualization) sees their fabric but not the switches, whose fabric manager runs in the
     * host or a service VM. */
    if (f->nvswitch_count <= 0) {
        if (gpus)
            gv_report_add(r, id, "node", GV_SKIP,
                          "not judged here: %d GPU(s) in an NVSwitch fabric, but no NVSwitch on "
                          "this node's PCI bus: its fabric manager runs elsewhere (the host or a "
                          "service VM of a virtual machine)",
                          gpus);
        else
            gv_report_add(r, id, "node", GV_SKIP,
                          "not applicable: no NVSwitch on the PCI bus and no GPU in an NVSwitch "
                          "fabric (NVML)");
        return;
    }
    gv_check_result *c;
    if (f->fm_found < 0) {
        c = gv_report_add(r, id, "node", GV_SKIP,
                          "not judged: the node's processes cannot be listed (%s)", f->fm_err.text);
        return;
    }
    if (!f->fm_found && f->host_pid_ns == 0 && f->root_proc_hosts != 1) {
        gv_report_add(r, id, "node", GV_SKIP,
                      "not judged: this process is outside the host's PID namespace (a "
                      "container without the host's PIDs: hostPID) and the /proc it reads is "
                      "not the host's, so the node's daemons are not listed; gpu.fabric judges "
                      "the GPUs' registration");
        return;
    }
    if (!f->fm_found) {
        int down = gpus > registered;
        c = gv_report_add(r, id, "node", down ? GV_FAIL : GV_WARN,
                          "nv-fabricmanager is not running on a node with an NVSwitch fabric: %s",
                          down ? "GPUs are not registered with the fabric (gpu.fabric) and none "
                                 "will be until it runs"
                               : "the fabric it set up carries on, but no GPU re-registers "
                                 "after a GPU reset or a reboot");
        gv_result_remedy(c, FM_REMEDY_START);
        gv_result_action(c, GV_ACTION_FIX_CONFIG); /* a service of the node */
        return;
    }
    /* Started after what booting takes (gv_settle_booting): it stopped and was started again. */
    if (f->fm.started_s >= 0 && !gv_settle_booting(f->fm.started_s)) {
        char up[48] = "";
        if (f->uptime_s >= 0)
            snprintf(up, sizeof up, " (the node is up %.1f h)", f->uptime_s / 3600.0);
        c = gv_report_add(r, id, "node", GV_WARN,
                          "nv-fabricmanager (pid %d) started %.1f h after boot%s: it was "
                          "restarted, and jobs using the fabric when it stopped may have failed",
                          f->fm.pid, f->fm.started_s / 3600.0, up);
        gv_result_remedy(c, "read /var/log/fabricmanager.log and the kernel log (SXid, "
                            "nvswitch.sxid) for why it stopped");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (f->fm.started_s >= 0) {
        c = gv_report_add(r, id, "node", GV_PASS,
                          "nv-fabricmanager running (pid %d) since %.0f s after boot", f->fm.pid,
                          f->fm.started_s);
    } else {
        c = gv_report_add(r, id, "node", GV_PASS,
                          "nv-fabricmanager running (pid %d); its start time unreadable",
                          f->fm.pid);
    }
    gv_result_measured(c, f->fm.started_s, "s", "started %.0f s after boot", f->fm.started_s);
}
