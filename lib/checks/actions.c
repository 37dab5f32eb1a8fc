/* SPDX-License-Identifier: Apache-2.0 */
#include "checks/actions.h"

#include <stdlib.h>
#include <string.h>

#include "backends/nvml_backend.h"

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

/* The default of a WARN or FAIL row by check, longest prefix first: where a family mixes
 * settings and hardware, the default is the action of most of its rules. A check missing here
 * (one added without its actions) gets hw_inspect: a person looks, never less than needed. */
static const struct {
    const char *prefix;
    int32_t action;
} families[] = {
    {"system.", GV_ACTION_FIX_CONFIG},
    {"driver.gpu_count", GV_ACTION_HW_INSPECT},
    {"driver.", GV_ACTION_FIX_CONFIG},
    {"gpu.ecc", GV_ACTION_HW_INSPECT}, /* gpu.ecc (mode) sets its own; gpu.ecc_errors */
    {"gpu.mig", GV_ACTION_RESET_GPU},  /* a mode waiting for the reset */
    {"gpu.model", GV_ACTION_FIX_CONFIG},
    {"gpu.fabric", GV_ACTION_FIX_CONFIG},
    {"gpu.recovery", GV_ACTION_RESET_GPU},
    {"gpu.memory_unowned", GV_ACTION_RESET_GPU},
    {"gpu.", GV_ACTION_HW_INSPECT},
    {"topo.", GV_ACTION_FIX_CONFIG},
    {"rdma.", GV_ACTION_FIX_CONFIG},
    {"gpudirect.", GV_ACTION_FIX_CONFIG},
    {"cudnn.version", GV_ACTION_FIX_CONFIG},
    {"nccl.version", GV_ACTION_FIX_CONFIG},
    {"nccl.transport", GV_ACTION_FIX_CONFIG},
    {"cuda.", GV_ACTION_HW_INSPECT},
    {"mem.", GV_ACTION_HW_INSPECT},
    {"gemm.", GV_ACTION_HW_INSPECT},
    {"cudnn.", GV_ACTION_HW_INSPECT},
    {"nccl.", GV_ACTION_HW_INSPECT},
    {"stress.", GV_ACTION_HW_INSPECT},
    {"history.performance", GV_ACTION_RERUN}, /* one slow run may be another job's */
    {"history.", GV_ACTION_HW_INSPECT},
};

int32_t gv_action_default(const char *id, int32_t verdict, int32_t held_by_other)
{
    if (verdict != GV_WARN && verdict != GV_FAIL && verdict != GV_ERROR)
        return GV_ACTION_NONE;
    if (held_by_other)
        return GV_ACTION_WAIT;
    if (verdict == GV_ERROR)
        return GV_ACTION_RERUN;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (!strncmp(id, families[i].prefix, strlen(families[i].prefix)))
            return families[i].action;
    return GV_ACTION_HW_INSPECT;
}

static int strict(void)
{
    const char *s = getenv("GPUVERIFY_STRICT_ACTIONS");
    return s && *s && strcmp(s, "0") != 0;
}

void gv_action_settle(gv_check_result *row)
{
    if (row->verdict != GV_WARN && row->verdict != GV_FAIL && row->verdict != GV_ERROR) {
        row->action = GV_ACTION_NONE;
        return;
    }
    if (row->action > GV_ACTION_NONE && row->action <= GV_ACTION_HW_INSPECT)
        return;
    row->action = GV_ACTION_NONE;
    if (!strict())
        row->action = gv_action_default(row->id, row->verdict, row->held_by_other);
}
