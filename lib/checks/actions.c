/* SPDX-License-Identifier: Apache-2.0 */
#include "checks/actions.h"

#include "backends/nvml_backend.h"
#include "checks/checks.h"

int32_t gv_action_of_recovery(int recovery_action)
{
    switch (recovery_action) {
    case GVNV_RECOVERY_ACTION_NONE:
        return GV_ACTION_NONE;
    /* NVIDIA's memory error management guide: drain P2P quiesces the peer traffic, after which
     * the driver names one of the other actions; every process on the GPU stops either way,
     * and the reset is what the drain leads to. */
    case GVNV_RECOVERY_ACTION_GPU_RESET:
    case GVNV_RECOVERY_ACTION_DRAIN_P2P:
    case GVNV_RECOVERY_ACTION_DRAIN_AND_RESET:
        return GV_ACTION_RESET_GPU;
    /* A reset of the GPU's PCIe bus is more than nvidia-smi -r does on every platform; a
     * reboot resets the bus wherever the node runs. */
    case GVNV_RECOVERY_ACTION_NODE_REBOOT:
    case GVNV_RECOVERY_ACTION_SYSTEM_REBOOT:
    case GVNV_RECOVERY_ACTION_BUS_RESET:
        return GV_ACTION_REBOOT_NODE;
    /* nvidia-imex is a service of the node: restarting it is configuration, not the GPU. */
    case GVNV_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN:
        return GV_ACTION_FIX_CONFIG;
    default: /* a newer driver's action: a person reads it up */
        return GV_ACTION_HW_INSPECT;
    }
}

int32_t gv_action_default(const char *id, int32_t verdict, int32_t held_by_other)
{
    if (verdict != GV_WARN && verdict != GV_FAIL && verdict != GV_ERROR)
        return GV_ACTION_NONE;
    if (held_by_other)
        return GV_ACTION_WAIT;
    if (verdict == GV_ERROR)
        return GV_ACTION_RERUN;
    /* The check's catalog line names both; an ID of no line (a report of a newer library read
     * back) gets hw_inspect: a person looks, never less than needed. */
    int i = gv_catalog_index(id);
    if (i < 0)
        return GV_ACTION_HW_INSPECT;
    return verdict == GV_WARN ? gv_checks[i].warn_action : gv_checks[i].fail_action;
}

void gv_action_settle(gv_check_result *row)
{
    if (row->verdict != GV_WARN && row->verdict != GV_FAIL && row->verdict != GV_ERROR) {
        row->action = GV_ACTION_NONE;
        return;
    }
    if (row->action > GV_ACTION_NONE && row->action <= GV_ACTION_HW_INSPECT)
        return;
    row->action = gv_action_default(row->id, row->verdict, row->held_by_other);
}
