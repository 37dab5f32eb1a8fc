/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a GPU's health counters from NVML: one call per counter family, and one
 * nvmlDeviceGetFieldValues for the values NVML only gives as fields (retired pages,
 * clock-event time, T.Limit thresholds, memory temperature, the GPU's recovery action). An entry
 * the driver lacks, or NOT_SUPPORTED on this GPU, leaves the counter unknown: the check then says
 * so. Also what holds a GPU's memory, and whether more is held than contexts keep out of their
 * processes' figures: the facts wait for such memory to be freed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "facts/health.h"

void gv_health_init(gv_health *h)
{
    memset(h, 0, sizeof *h);
    long long *counters[] = {&h->sram_cor[0],        &h->sram_cor[1],        &h->sram_unc_parity[0],
                             &h->sram_unc_parity[1], &h->sram_unc_secded[0], &h->sram_unc_secded[1],
                             &h->sram_unc_l2,        &h->sram_unc_sm,        &h->sram_unc_pcie,
                             &h->sram_unc_mcu,       &h->sram_unc_other,     &h->dram_cor[0],
                             &h->dram_cor[1],        &h->dram_unc[0],        &h->dram_unc[1],
                             &h->remap_cor,          &h->remap_cor_inactive, &h->remap_unc,
                             &h->remap_unc_inactive, &h->banks_max,          &h->banks_high,
                             &h->banks_partial,      &h->banks_low,          &h->banks_none,
                             &h->retired_sbe,        &h->retired_dbe,        &h->pcie_replays,
                             &h->unowned_bytes};
    for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
        *counters[i] = GV_UNKNOWN;
    int *flags[] = {&h->sram_threshold_exceeded, &h->remap_pending,          &h->remap_failure,
                    &h->retired_pending,         &h->channel_repair_pending, &h->tpc_repair_pending,
                    &h->unrepairable_memory,     &h->fabric_state,           &h->recovery_action};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        *flags[i] = -1;
    for (int l = 0; l < GVNV_NVLINK_MAX_LINKS; l++)
        h->nvlink[l] =
            (gv_nvlink_errors){GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN,
                               GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN, GV_UNKNOWN};
    h->ce_sw_power_cap_s = h->ce_sync_boost_s = h->ce_sw_thermal_s = h->ce_hw_thermal_s =
        h->ce_hw_power_brake_s = -1;
    h->tlimit_shutdown = h->tlimit_slowdown = h->tlimit_gpu_max = h->tlimit_mem_max = INT_MIN;
    h->memory_temp_c = INT_MIN;
}

#define CALL(nv, fn, ...) ((nv)->fn && (nv)->fn(__VA_ARGS__) == GVNV_SUCCESS)

static void ecc(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h)
{
    gvnv_sram_ecc_status s;
    memset(&s, 0, sizeof s);
    s.version = GVNV_STRUCT_VERSION(gvnv_sram_ecc_status, 1);
    if (CALL(nv, device_get_sram_ecc_error_status, dev, &s)) {
        h->sram_cor[0] = (long long)s.volatile_cor;
        h->sram_cor[1] = (long long)s.aggregate_cor;
        h->sram_unc_parity[0] = (long long)s.volatile_unc_parity;
        h->sram_unc_parity[1] = (long long)s.aggregate_unc_parity;
        h->sram_unc_secded[0] = (long long)s.volatile_unc_secded;
        h->sram_unc_secded[1] = (long long)s.aggregate_unc_secded;
        h->sram_unc_l2 = (long long)s.aggregate_unc_l2;
        h->sram_unc_sm = (long long)s.aggregate_unc_sm;
        h->sram_unc_pcie = (long long)s.aggregate_unc_pcie;
        h->sram_unc_mcu = (long long)s.aggregate_unc_mcu;
        h->sram_unc_other = (long long)s.aggregate_unc_other;
        h->sram_threshold_exceeded = s.threshold_exceeded != 0;
    }
    for (int kind = GVNV_VOLATILE_ECC; kind <= GVNV_AGGREGATE_ECC; kind++) {
        unsigned long long n;
        if (CALL(nv, device_get_memory_error_counter, dev, GVNV_MEMORY_ERROR_CORRECTED, kind,
                 GVNV_MEMORY_LOCATION_DRAM, &n))
            h->dram_cor[kind] = (long long)n;
        if (CALL(nv, device_get_memory_error_counter, dev, GVNV_MEMORY_ERROR_UNCORRECTED, kind,
                 GVNV_MEMORY_LOCATION_DRAM, &n))
            h->dram_unc[kind] = (long long)n;
    }
}

static void rows(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h)
{
    gvnv_remapped_rows_v2 v2;
    unsigned cor, unc, pending, failure;
    memset(&v2, 0, sizeof v2);
    if (CALL(nv, device_get_remapped_rows_v2, dev, &v2)) {
        h->remap_cor = v2.corr_active;
        h->remap_cor_inactive = v2.corr_inactive;
        h->remap_unc = v2.unc_active;
        h->remap_unc_inactive = v2.unc_inactive;
        h->remap_pending = v2.pending != 0;
        h->remap_failure = v2.failure_occurred != 0;
    } else if (CALL(nv, device_get_remapped_rows, dev, &cor, &unc, &pending, &failure)) {
        h->remap_cor = cor;
        h->remap_unc = unc;
        h->remap_pending = pending != 0;
        h->remap_failure = failure != 0;
    }
    gvnv_remap_histogram banks;
    if (CALL(nv, device_get_row_remapper_histogram, dev, &banks)) {
        h->banks_max = banks.max;
        h->banks_high = banks.high;
        h->banks_partial = banks.partial;
        h->banks_low = banks.low;
        h->banks_none = banks.none;
    }
    gvnv_repair_status repair = {GVNV_STRUCT_VERSION(gvnv_repair_status, 1), 0, 0};
    if (CALL(nv, device_get_repair_status, dev, &repair)) {
        h->channel_repair_pending = repair.channel_repair_pending != 0;
        h->tpc_repair_pending = repair.tpc_repair_pending != 0;
    }
    gvnv_unrepairable_memory unrepairable = {0};
    if (CALL(nv, device_get_unrepairable_memory_flag, dev, &unrepairable))
        h->unrepairable_memory = unrepairable.unrepairable != 0;
}

static long long field_integer(const gvnv_field_value *v)
{
    switch (v->value_type) {
    case GVNV_VALUE_TYPE_DOUBLE:
        return (long long)v->value.d;
    case GVNV_VALUE_TYPE_UNSIGNED_INT:
        return v->value.ui;
    case GVNV_VALUE_TYPE_UNSIGNED_LONG:
        return (long long)v->value.ul;
    case GVNV_VALUE_TYPE_UNSIGNED_LONG_LONG:
        return (long long)v->value.ull;
    case GVNV_VALUE_TYPE_SIGNED_LONG_LONG:
        return v->value.sll;
    case GVNV_VALUE_TYPE_SIGNED_INT:
        return v->value.si;
    case GVNV_VALUE_TYPE_UNSIGNED_SHORT:
        return v->value.us;
    default:
        return LLONG_MIN;
    }
}

static void fields(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h)
{
    static const unsigned ids[] = {GVNV_FI_DEV_RETIRED_SBE,
                                   GVNV_FI_DEV_RETIRED_DBE,
                                   GVNV_FI_DEV_RETIRED_PENDING,
                                   GVNV_FI_DEV_PERF_POLICY_POWER,
                                   GVNV_FI_DEV_PERF_POLICY_SYNC_BOOST,
                                   GVNV_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
                                   GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
                                   GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
                                   GVNV_FI_DEV_MEMORY_TEMP,
                                   GVNV_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT,
                                   GVNV_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT,
                                   GVNV_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT,
                                   GVNV_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT,
                                   GVNV_FI_DEV_GET_GPU_RECOVERY_ACTION};
    enum { N = sizeof ids / sizeof *ids };
    gvnv_field_value v[N];
    memset(v, 0, sizeof v);
    for (int i = 0; i < N; i++)
        v[i].field_id = ids[i];
    if (!CALL(nv, device_get_field_values, dev, N, v))
        return;
    for (int i = 0; i < N; i++) {
        long long x = field_integer(&v[i]);
        if (v[i].nvml_return != GVNV_SUCCESS || x == LLONG_MIN)
            continue;
        double seconds = (double)x / 1e9; /* the clock-event fields count nanoseconds */
        switch (v[i].field_id) {
        case GVNV_FI_DEV_RETIRED_SBE:
            h->retired_sbe = x;
            break;
        case GVNV_FI_DEV_RETIRED_DBE:
            h->retired_dbe = x;
            break;
        case GVNV_FI_DEV_RETIRED_PENDING:
            h->retired_pending = x != 0;
            break;
        case GVNV_FI_DEV_PERF_POLICY_POWER:
            h->ce_sw_power_cap_s = seconds;
            break;
        case GVNV_FI_DEV_PERF_POLICY_SYNC_BOOST:
            h->ce_sync_boost_s = seconds;
            break;
        case GVNV_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
            h->ce_sw_thermal_s = seconds;
            break;
        case GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
            h->ce_hw_thermal_s = seconds;
            break;
        case GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN:
            h->ce_hw_power_brake_s = seconds;
            break;
        case GVNV_FI_DEV_MEMORY_TEMP:
            h->memory_temp_c = (int)x;
            break;
        case GVNV_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT:
            h->tlimit_shutdown = (int)x;
            break;
        case GVNV_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT:
            h->tlimit_slowdown = (int)x;
            break;
        case GVNV_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT:
            h->tlimit_gpu_max = (int)x;
            break;
        case GVNV_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT:
            h->tlimit_mem_max = (int)x;
            break;
        case GVNV_FI_DEV_GET_GPU_RECOVERY_ACTION:
            h->recovery_action = x >= 0 && x <= INT_MAX ? (int)x : -1;
            break;
        default:
            break;
        }
    }
    h->has_thresholds = h->tlimit_slowdown != INT_MIN && h->tlimit_shutdown != INT_MIN;
}

/* NVLink 5's per-link field values: one call for every link (scope = the link). */
static void nvlink_fields(const struct gv_nvml_api *nv, gvnv_device dev, int nvlink_count,
                          gv_health *h)
{
    static const unsigned ids[] = {GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS,
                                   GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS,
                                   GVNV_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS,
                                   GVNV_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS,
                                   GVNV_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS};
    enum { K = sizeof ids / sizeof *ids };
    gvnv_field_value v[GVNV_NVLINK_MAX_LINKS * K];
    int links = nvlink_count < GVNV_NVLINK_MAX_LINKS ? nvlink_count : GVNV_NVLINK_MAX_LINKS;
    if (links <= 0)
        return;
    memset(v, 0, sizeof v);
    for (int l = 0; l < links; l++)
        for (int k = 0; k < K; k++)
            v[l * K + k].field_id = ids[k], v[l * K + k].scope_id = (unsigned)l;
    if (!CALL(nv, device_get_field_values, dev, links * K, v))
        return;
    for (int l = 0; l < links; l++) {
        gv_nvlink_errors *e = &h->nvlink[l];
        long long *out[K] = {&e->recovery_ok, &e->recovery_failed, &e->effective, &e->symbol,
                             &e->integrity};
        for (int k = 0; k < K; k++) {
            long long x = field_integer(&v[l * K + k]);
            if (v[l * K + k].nvml_return == GVNV_SUCCESS && x != LLONG_MIN && x >= 0)
                *out[k] = x;
        }
    }
}

void gv_health_from_nvml(const struct gv_nvml_api *nv, gvnv_device dev, int nvlink_count,
                         gv_health *h)
{
    ecc(nv, dev, h);
    rows(nv, dev, h);
    gv_health_read_unowned(nv, dev, h);
    unsigned replays;
    if (CALL(nv, device_get_pcie_replay_counter, dev, &replays))
        h->pcie_replays = replays;
    static const int kinds[] = {GVNV_NVLINK_ERROR_DL_REPLAY, GVNV_NVLINK_ERROR_DL_RECOVERY,
                                GVNV_NVLINK_ERROR_DL_CRC_FLIT, GVNV_NVLINK_ERROR_DL_CRC_DATA,
                                GVNV_NVLINK_ERROR_DL_ECC_DATA};
    for (int l = 0; l < nvlink_count && l < GVNV_NVLINK_MAX_LINKS; l++) {
        long long *out[] = {&h->nvlink[l].replay, &h->nvlink[l].recovery, &h->nvlink[l].crc_flit,
                            &h->nvlink[l].crc_data, &h->nvlink[l].ecc_data};
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            unsigned long long n;
            if (CALL(nv, device_get_nvlink_error_counter, dev, (unsigned)l, kinds[k], &n))
                *out[k] = (long long)n;
        }
    }
    nvlink_fields(nv, dev, nvlink_count, h);
    gvnv_margin_temperature margin = {GVNV_STRUCT_VERSION(gvnv_margin_temperature, 1), 0};
    if (CALL(nv, device_get_margin_temperature, dev, &margin)) {
        h->margin_c = margin.margin_c;
        h->has_margin = 1;
    }
    gv_health_read_fabric(nv, dev, h);
    fields(nv, dev, h);
}

void gv_health_read_unowned(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h)
{
    gv_gpu_holders holders;
    gv_gpu_holders_read(nv, dev, &holders);
    h->unowned_bytes = holders.unlisted < 0 ? GV_UNKNOWN : holders.unlisted;
    h->listed_processes = holders.n;
}

void gv_health_read_fabric(const struct gv_nvml_api *nv, gvnv_device dev, gv_health *h)
{
    gvnv_fabric_info fabric;
    memset(&fabric, 0, sizeof fabric);
    fabric.version = GVNV_STRUCT_VERSION(gvnv_fabric_info, 3);
    if (CALL(nv, device_get_gpu_fabric_info_v, dev, &fabric)) {
        h->fabric_state = fabric.state;
        h->fabric_status = fabric.status;
        h->fabric_health_mask = fabric.health_mask;
    }
}

/* NVIDIA's memory error management guide, "Error Recovery and Response Flags", and the NVML
 * reference of nvmlDeviceGpuRecoveryAction_t. */
static const struct {
    const char *name, *remedy;
} recovery_actions[] = {
    [GVNV_RECOVERY_ACTION_NONE] = {"none", ""},
    [GVNV_RECOVERY_ACTION_GPU_RESET] = {"a GPU reset",
                                        "stop every process on the GPU and reset it "
                                        "(nvidia-smi -r -i <index>), then check it again"},
    [GVNV_RECOVERY_ACTION_NODE_REBOOT] = {"a node reboot",
                                          "drain the node and reboot it: the fault may have left "
                                          "the operating system inconsistent"},
    [GVNV_RECOVERY_ACTION_DRAIN_P2P] = {"its peer-to-peer traffic drained",
                                        "stop the jobs that move data between this GPU and its "
                                        "peers (NVLink, P2P), then check it again"},
    [GVNV_RECOVERY_ACTION_DRAIN_AND_RESET] = {"its peer-to-peer traffic drained and a GPU reset",
                                              "stop the GPU's peer-to-peer jobs and every process "
                                              "on it, then reset it (nvidia-smi -r -i <index>)"},
    [GVNV_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN] = {"its IMEX domain recovered",
                                                  "recover the node's IMEX domain "
                                                  "(nvidia-imex), then check the GPU again"},
    [GVNV_RECOVERY_ACTION_BUS_RESET] = {"its PCIe bus reset",
                                        "drain the GPU and reset its PCIe bus, or reboot"},
    [GVNV_RECOVERY_ACTION_SYSTEM_REBOOT] = {"a system reboot", "drain the node and reboot it"},
};
#define RECOVERY_KNOWN(a)                                                                          \
    ((a) >= 0 && (size_t)(a) < sizeof recovery_actions / sizeof *recovery_actions)

const char *gv_recovery_action_name(int action, char *buf, size_t cap)
{
    if (RECOVERY_KNOWN(action))
        return recovery_actions[action].name;
    snprintf(buf, cap, "recovery action %d", action);
    return buf;
}

const char *gv_recovery_action_remedy(int action)
{
    return RECOVERY_KNOWN(action) ? recovery_actions[action].remedy
                                  : "drain the node; look the action up in NVIDIA's NVML reference "
                                    "(nvmlDeviceGpuRecoveryAction_t) and do what it asks";
}

void gv_gpu_holders_read(const struct gv_nvml_api *nv, gvnv_device dev, gv_gpu_holders *h)
{
    h->n = 0;
    h->unlisted = -1;
    gvnv_return (*const queries[])(gvnv_device, unsigned int *, gvnv_process_info *) = {
        nv->device_get_compute_running_processes, nv->device_get_graphics_running_processes};
    unsigned long long listed = 0; /* what the processes listed hold, the caller's too */
    int all_listed = 1;            /* the compute processes' answered, every size known */
    for (size_t q = 0; q < 2; q++) {
        gvnv_process_info infos[GV_HOLDERS_PER_LIST];
        unsigned count = GV_HOLDERS_PER_LIST;
        if (!queries[q] || queries[q](dev, &count, infos) != GVNV_SUCCESS) {
            all_listed &= q != 0;
            continue;
        }
        for (unsigned i = 0; i < count && i < GV_HOLDERS_PER_LIST; i++) {
            if (infos[i].used_gpu_memory == ~0ull)
                all_listed = 0;
            else
                listed += infos[i].used_gpu_memory;
            h->listed[h->n++] = infos[i];
        }
    }
    /* NVML lists only the processes of this PID namespace: a job in another container used an
     * H100 at 100% while gv-check in its own saw an empty list, and every GEMM FAILed at a third
     * of its peak. The memory all processes hold (nvmlMemory_v2_t.used, the driver's reserve
     * apart) less what the listed ones hold is what the unlisted hold; each context keeps some
     * 8 MiB out of its process's figure, any other context hundreds. */
    gvnv_memory_v2 mem = {.version = GVNV_STRUCT_VERSION(gvnv_memory_v2, 2)};
    if (all_listed && nv->device_get_memory_info_v2 &&
        nv->device_get_memory_info_v2(dev, &mem) == GVNV_SUCCESS)
        h->unlisted = mem.used > listed ? (long long)(mem.used - listed) : 0;
}

long long gv_unowned_allowance(const gv_health *h)
{
    /* Each context keeps some 8 MiB out of its process's figure (620 MiB used against 612
     * listed for one context on an H100), twice that allowed, on 256 MiB. */
    return (256LL << 20) + (16LL << 20) * (long long)h->listed_processes;
}

int gv_unowned_beyond_allowance(const gv_health *h)
{
    return h->unowned_bytes > gv_unowned_allowance(h);
}
