/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU's health counters: ECC, row remapping, retired pages, repair flags, PCIe replays and
 * AER, NVLink errors, clock-event time, temperature margin, fabric state. Read from NVML and
 * sysfs with the inventory (no CUDA context), judged by the gpu.* health checks. */
#ifndef GV_FACTS_HEALTH_H
#define GV_FACTS_HEALTH_H

#include "backends/nvml_backend.h"
#include "sys/aer.h"

#define GV_UNKNOWN (-1LL) /* a counter NVML or sysfs cannot give on this GPU */

typedef struct gv_nvlink_errors {
    long long replay, recovery, crc_flit, crc_data, ecc_data; /* since the last reset */
    /* NVLink 5's field values (Blackwell; GV_UNKNOWN on Hopper, whose NVML answers
     * NOT_SUPPORTED): link-level recoveries that worked and that failed (the link went down),
     * errors FEC could not correct (effective), raw symbol errors FEC corrected, and local link
     * integrity errors. */
    long long recovery_ok, recovery_failed, effective, symbol, integrity;
} gv_nvlink_errors;

typedef struct gv_health {
    /* ECC (volatile: since the last reset or driver load; aggregate: the GPU's life). */
    long long sram_cor[2], sram_unc_parity[2], sram_unc_secded[2]; /* [0] volatile [1] aggregate */
    long long sram_unc_l2, sram_unc_sm, sram_unc_pcie, sram_unc_mcu, sram_unc_other;
    int sram_threshold_exceeded; /* -1 unknown */
    long long dram_cor[2], dram_unc[2];
    /* Row remapping (Ampere and later). */
    long long remap_cor, remap_cor_inactive, remap_unc, remap_unc_inactive;
    int remap_pending, remap_failure; /* -1 unknown */
    long long banks_max, banks_high, banks_partial, banks_low, banks_none;
    /* Page retirement (before Ampere). */
    long long retired_sbe, retired_dbe;
    int retired_pending;
    /* Hopper and later memory repair. */
    int channel_repair_pending, tpc_repair_pending, unrepairable_memory;
    /* PCIe: NVML's replay counter and AER along the path to the root port. */
    long long pcie_replays;
    gv_aer_chain aer;
    char aer_problem[160];
    /* NVLink error counters, per link NVML lists (gv_gpu_record.nvlinks). */
    gv_nvlink_errors nvlink[GVNV_NVLINK_MAX_LINKS];
    /* Clock-event (throttle) time since the driver loaded, in seconds. */
    double ce_sw_power_cap_s, ce_sync_boost_s, ce_sw_thermal_s, ce_hw_thermal_s,
        ce_hw_power_brake_s; /* -1 unknown */
    /* Temperature: margin to T.Limit and the T.Limit thresholds (degrees relative to it). */
    int margin_c, memory_temp_c;
    int tlimit_shutdown, tlimit_slowdown, tlimit_gpu_max, tlimit_mem_max; /* INT_MIN unknown */
    int has_margin, has_thresholds;
    /* NVSwitch fabric (GVNV_FABRIC_STATE_*, -1 unknown). */
    int fabric_state;
    int fabric_status; /* gvnv_return of the probe */
    unsigned fabric_health_mask;
    /* What the driver says the GPU needs to be used again (GVNV_RECOVERY_ACTION_*, -1 unknown:
     * a driver before R550, or not supported on this GPU). */
    int recovery_action;
    /* GPU memory used beyond what the processes NVML lists hold (gv_gpu_holders), and how many
     * it listed; GV_UNKNOWN when NVML cannot say. */
    long long unowned_bytes;
    unsigned listed_processes;
} gv_health;

#define GV_HOLDERS_PER_LIST 64 /* compute, then graphics processes */

/* What NVML says holds a GPU's memory now: the compute and graphics processes it lists (up to
 * 64 of each) and the bytes used beyond what they hold, -1 when it cannot say (the compute list
 * unanswered or longer, a process's size unknown). In the host's PID namespace NVML lists every
 * process, so those bytes were left behind by processes that ended; elsewhere they may be a
 * container's. */
typedef struct gv_gpu_holders {
    gvnv_process_info listed[2 * GV_HOLDERS_PER_LIST];
    unsigned n;
    long long unlisted;
} gv_gpu_holders;
void gv_gpu_holders_read(const struct gv_nvml_api *nv, gvnv_device dev, gv_gpu_holders *h);

/* Every counter NVML gives for dev into h (unknowns left as such). */
void gv_health_from_nvml(const struct gv_nvml_api *nv, gvnv_device dev, int nvlink_count,
                         gv_health *h);
/* The NVSwitch fabric's state alone (gv_health_from_nvml reads it too), for a wait on it. */
void gv_health_read_fabric(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h);
/* The GPU memory no process NVML lists holds (gv_health_from_nvml reads it too), for a wait
 * on it. */
void gv_health_read_unowned(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h);
/* What contexts keep out of their processes' figures, which gpu.memory_unowned does not
 * count (256 MiB, 16 MiB more per listed process), and whether h's unowned memory is beyond. */
long long gv_unowned_allowance(const gv_health *h);
int gv_unowned_beyond_allowance(const gv_health *h);
/* All counters unknown. */
void gv_health_init(gv_health *h);
/* What the recovery action asks for ("a GPU reset"; "recovery action 9" for one newer than
 * this library, in buf), and what an operator does about it. */
const char *gv_recovery_action_name(int action, char *buf, size_t cap);
const char *gv_recovery_action_remedy(int action);

#endif
