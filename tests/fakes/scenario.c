/* SPDX-License-Identifier: Apache-2.0 */
#include "scenario.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static void copy(char *dst, size_t cap, const char *v)
{
    snprintf(dst, cap, "%s", v);
}

const char *const fake_health_names[FH_COUNT] = {"sram_cor_vol",
                                                 "sram_parity_vol",
                                                 "sram_secded_vol",
                                                 "sram_cor_agg",
                                                 "sram_parity_agg",
                                                 "sram_secded_agg",
                                                 "sram_l2",
                                                 "sram_sm",
                                                 "sram_pcie",
                                                 "sram_mcu",
                                                 "sram_other",
                                                 "sram_threshold",
                                                 "dram_cor_vol",
                                                 "dram_unc_vol",
                                                 "dram_cor_agg",
                                                 "dram_unc_agg",
                                                 "remap_cor",
                                                 "remap_cor_inactive",
                                                 "remap_unc",
                                                 "remap_unc_inactive",
                                                 "remap_pending",
                                                 "remap_failure",
                                                 "banks_max",
                                                 "banks_high",
                                                 "banks_partial",
                                                 "banks_low",
                                                 "banks_none",
                                                 "retired_sbe",
                                                 "retired_dbe",
                                                 "retired_pending",
                                                 "channel_repair",
                                                 "tpc_repair",
                                                 "unrepairable",
                                                 "pcie_replay",
                                                 "nvlink_replay",
                                                 "nvlink_recovery",
                                                 "nvlink_crc_flit",
                                                 "nvlink_crc_data",
                                                 "nvlink_ecc",
                                                 "nvlink_err_link",
                                                 "margin",
                                                 "mem_temp",
                                                 "tlimit_shutdown",
                                                 "tlimit_slowdown",
                                                 "tlimit_gpu_max",
                                                 "tlimit_mem_max",
                                                 "ce_sw_power_ms",
                                                 "ce_sync_boost_ms",
                                                 "ce_sw_thermal_ms",
                                                 "ce_hw_thermal_ms",
                                                 "ce_hw_power_brake_ms",
                                                 "fabric_state",
                                                 "fabric_status",
                                                 "fabric_health",
                                                 "recovery_action",
                                                 "fabric_done_ms",
                                                 "nvlink_recovery_ok",
                                                 "nvlink_recovery_failed",
                                                 "nvlink_effective",
                                                 "nvlink_symbol",
                                                 "nvlink_integrity"};

/* "dram_unc_vol:2,remap_pending:1" over the GPU's defaults. */
static int health_list(fake_gpu *g, const char *v)
{
    while (*v) {
        char name[32];
        long long value;
        int used = 0;
        if (sscanf(v, "%31[a-z_]:%lld%n", name, &value, &used) != 2)
            return -1;
        int k = 0;
        while (k < FH_COUNT && strcmp(fake_health_names[k], name) != 0)
            k++;
        if (k == FH_COUNT)
            return -1;
        g->health[k] = value;
        v += used;
        v += *v == ',';
    }
    return 0;
}

static int gpu_field(fake_gpu *g, const char *k, const char *v)
{
    if (!strcmp(k, "name"))
        copy(g->name, sizeof g->name, v);
    else if (!strcmp(k, "bus"))
        copy(g->bus, sizeof g->bus, v);
    else if (!strcmp(k, "uuid"))
        copy(g->uuid, sizeof g->uuid, v);
    else if (!strcmp(k, "serial"))
        copy(g->serial, sizeof g->serial, v);
    else if (!strcmp(k, "vbios"))
        copy(g->vbios, sizeof g->vbios, v);
    else if (!strcmp(k, "board_part"))
        copy(g->board_part, sizeof g->board_part, v);
    else if (!strcmp(k, "inforom"))
        copy(g->inforom, sizeof g->inforom, v);
    else if (!strcmp(k, "gsp"))
        copy(g->gsp, sizeof g->gsp, v);
    else if (!strcmp(k, "device_id"))
        g->device_id = (unsigned)strtoul(v, NULL, 0);
    else if (!strcmp(k, "memory_mib"))
        g->memory_mib = strtoull(v, NULL, 0);
    else if (!strcmp(k, "cc"))
        return sscanf(v, "%d.%d", &g->cc_major, &g->cc_minor) == 2 ? 0 : -1;
    else if (!strcmp(k, "sms"))
        g->sms = atoi(v);
    else if (!strcmp(k, "max_sm_clock"))
        g->max_sm_clock = atoi(v);
    else if (!strcmp(k, "persistence"))
        g->persistence = atoi(v);
    else if (!strcmp(k, "ecc"))
        g->ecc = g->ecc_pending = atoi(v);
    else if (!strcmp(k, "ecc_pending"))
        g->ecc_pending = atoi(v);
    else if (!strcmp(k, "mig"))
        g->mig = g->mig_pending = atoi(v);
    else if (!strcmp(k, "mig_pending"))
        g->mig_pending = atoi(v);
    else if (!strcmp(k, "compute_mode"))
        g->compute_mode = atoi(v);
    else if (!strcmp(k, "power_limit_w"))
        g->power_limit_w = atoi(v);
    else if (!strcmp(k, "default_power_limit_w"))
        g->default_power_limit_w = atoi(v);
    else if (!strcmp(k, "temp"))
        g->temp = atoi(v);
    else if (!strcmp(k, "pcie"))
        return sscanf(v, "%d,%d,%d,%d", &g->pcie_gen, &g->pcie_width, &g->pcie_gen_max,
                      &g->pcie_width_max) == 4
                   ? 0
                   : -1;
    else if (!strcmp(k, "lost"))
        g->lost = atoi(v);
    else if (!strcmp(k, "free_mib"))
        g->free_mib = strtoull(v, NULL, 0);
    else if (!strcmp(k, "taken_mib"))
        g->taken_mib = strtoull(v, NULL, 0);
    else if (!strcmp(k, "copy_gbps"))
        g->copy_gbps = atof(v);
    else if (!strcmp(k, "gemm_tflops"))
        g->gemm_tflops = atof(v);
    else if (!strcmp(k, "gemm_corrupt"))
        g->gemm_corrupt = atoi(v);
    else if (!strcmp(k, "p2p_gbps"))
        g->p2p_gbps = atof(v);
    else if (!strcmp(k, "peer"))
        g->peer = atoi(v);
    else if (!strcmp(k, "peer_group"))
        g->peer_group = atoi(v);
    else if (!strcmp(k, "copy_shared"))
        g->copy_shared = atoi(v);
    else if (!strcmp(k, "power_draw_pct"))
        g->power_draw_pct = atoi(v);
    else if (!strcmp(k, "power_ramp_ms"))
        g->power_ramp_ms = atoi(v);
    else if (!strcmp(k, "sm_clock"))
        g->sm_clock = atoi(v);
    else if (!strcmp(k, "clock_events"))
        g->clock_events = strtoull(v, NULL, 0);
    else if (!strcmp(k, "slow_timings"))
        g->slow_timings = atoi(v);
    else if (!strcmp(k, "slow_streams"))
        g->slow_streams = atoi(v);
    else if (!strcmp(k, "kernel_wall_ms"))
        g->kernel_wall_ms = atoi(v);
    else if (!strcmp(k, "xid_event"))
        g->xid_event = atoi(v);
    else if (!strcmp(k, "xid_event_ms"))
        g->xid_event_ms = atoi(v);
    else if (!strcmp(k, "events_unsupported"))
        g->events_unsupported = atoi(v);
    else if (!strcmp(k, "gemm_lsb_flip"))
        g->gemm_lsb_flip = atoi(v);
    else if (!strcmp(k, "gemm_drift_after"))
        g->gemm_drift_after = strtoll(v, NULL, 0);
    else if (!strcmp(k, "mem_stuck"))
        return sscanf(v, "%lli:%d", &g->mem_stuck, &g->mem_stuck_bit) == 2 ? 0 : -1;
    else if (!strcmp(k, "mem_ecc"))
        return sscanf(v, "%lld:%lld", &g->mem_ecc_cor, &g->mem_ecc_unc) == 2 ? 0 : -1;
    else if (!strcmp(k, "nvlinks"))
        g->nvlinks = atoi(v);
    else if (!strcmp(k, "nvlinks_down"))
        g->nvlinks_down = atoi(v);
    else if (!strcmp(k, "nvlink_peer"))
        copy(g->nvlink_peer, sizeof g->nvlink_peer, v);
    else if (!strcmp(k, "util"))
        g->utilization = atoi(v);
    else if (!strcmp(k, "dmabuf"))
        g->dmabuf = atoi(v);
    else if (!strcmp(k, "cuda_missing"))
        g->cuda_missing = atoi(v);
    else if (!strcmp(k, "nvml_denied"))
        g->nvml_denied = atoi(v);
    else if (!strcmp(k, "health"))
        return health_list(g, v);
    else if (!strcmp(k, "hidden_mib"))
        g->hidden_mib = strtoull(v, NULL, 0);
    else if (!strcmp(k, "procs")) {
        for (char *one = (char *)v; *one && g->proc_count < 4; one += strcspn(one, "/")) {
            one += *one == '/';
            if (sscanf(one, "%u:%llu", &g->proc_pid[g->proc_count], &g->proc_mib[g->proc_count]) !=
                2)
                return -1;
            g->proc_count++;
        }
    } else
        return -1;
    return 0;
}

/* "cuInit hang", "cublasLtMatmul error=13 gpu=0" */
static int fault_line(fake_scenario *s, char *v)
{
    if (s->fault_count >= FAKE_MAX_FAULTS)
        return -1;
    fake_fault *f = &s->faults[s->fault_count++];
    memset(f, 0, sizeof *f);
    f->gpu = -1;
    char action[32] = "", extra[2][32] = {"", ""};
    if (sscanf(v, "%63s %31s %31s %31s", f->point, action, extra[0], extra[1]) < 2)
        return -1;
    if (!strncmp(action, "error=", 6)) {
        f->code = atoi(action + 6);
        snprintf(f->action, sizeof f->action, "error");
    } else if (!strcmp(action, "hang") || !strcmp(action, "crash") ||
               !strcmp(action, "crash_once")) {
        snprintf(f->action, sizeof f->action, "%s", action);
    } else if (!strcmp(action, "stall")) {
        snprintf(f->action, sizeof f->action, "error");
        f->code = 600; /* CUDA_ERROR_NOT_READY */
    } else if (sscanf(action, "slow=%lf", &f->slow_s) == 1 && f->slow_s > 0) {
        snprintf(f->action, sizeof f->action, "slow");
    } else {
        return -1;
    }
    for (int i = 0; i < 2; i++)
        if (extra[i][0] && sscanf(extra[i], "gpu=%d", &f->gpu) != 1 &&
            sscanf(extra[i], "after=%lf", &f->after_s) != 1 &&
            sscanf(extra[i], "calls=%d", &f->after_calls) != 1)
            return -1;
    return 0;
}

/* crash_once: whether this run's first crash at the point happened already (the mark is the
 * caller's PID: the workers of one gv_run share their parent). */
static int crashed_before(const fake_fault *f)
{
    const char *dir = getenv("GV_FAKE_ONCE_DIR");
    if (!dir)
        return 0;
    char mark[4096];
    snprintf(mark, sizeof mark, "%s/crashed-%s-%ld", dir, f->point, (long)getppid());
    if (access(mark, F_OK) == 0)
        return 1;
    FILE *out = fopen(mark, "w");
    if (out)
        fclose(out);
    return 0;
}

/* after=S: seconds since the process first reached a faulty point. */
static int not_yet(const fake_fault *f)
{
    static double first;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double t = (double)now.tv_sec + now.tv_nsec * 1e-9;
    if (first == 0)
        first = t;
    return t - first < f->after_s;
}

int fake_fault_at(const fake_scenario *s, const char *point, int gpu)
{
    for (int i = 0; i < s->fault_count; i++) {
        const fake_fault *f = &s->faults[i];
        if (strcmp(f->point, point) != 0 || (f->gpu >= 0 && f->gpu != gpu))
            continue;
        if (f->after_s > 0 && not_yet(f))
            return 0;
        static int calls[FAKE_MAX_FAULTS];
        if (f->after_calls > 0 &&
            __atomic_add_fetch(&calls[i], 1, __ATOMIC_RELAXED) < f->after_calls)
            return 0;
        if (!strcmp(f->action, "hang"))
            for (;;)
                pause(); /* as a driver call that never returns: only a kill ends it */
        if (!strcmp(f->action, "crash") || (!strcmp(f->action, "crash_once") && !crashed_before(f)))
            raise(SIGSEGV);
        if (!strcmp(f->action, "slow")) {
            struct timespec nap = {(time_t)f->slow_s,
                                   (long)((f->slow_s - (double)(time_t)f->slow_s) * 1e9)};
            while (nanosleep(&nap, &nap) != 0 && errno == EINTR) {
            }
        }
        return f->code;
    }
    return 0;
}

static int ib_field(fake_ib_device *d, const char *k, const char *v)
{
    if (!strcmp(k, "name"))
        copy(d->name, sizeof d->name, v);
    else if (!strcmp(k, "ports"))
        d->ports = atoi(v);
    else if (!strcmp(k, "active_mtu"))
        d->active_mtu = atoi(v);
    else if (!strcmp(k, "max_mtu"))
        d->max_mtu = atoi(v);
    else if (!strcmp(k, "dmabuf"))
        d->dmabuf = atoi(v);
    else
        return -1;
    return 0;
}

/* "k=v; k=v" into one record through its field setter. */
static int fields(char *v, void *record, int (*set)(void *, const char *, const char *))
{
    char *save = NULL;
    for (char *kv = strtok_r(v, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        if (set(record, trim(kv), trim(eq + 1)) != 0)
            return -1;
    }
    return 0;
}

static int set_gpu(void *g, const char *k, const char *v)
{
    return gpu_field(g, k, v);
}

static int set_ib(void *d, const char *k, const char *v)
{
    return ib_field(d, k, v);
}

static int ib_line(fake_scenario *s, char *v)
{
    if (s->ib_count >= FAKE_MAX_IB)
        return -1;
    fake_ib_device *d = &s->ib[s->ib_count++];
    memset(d, 0, sizeof *d);
    d->ports = 1;
    d->active_mtu = d->max_mtu = 5; /* IBV_MTU_4096 */
    d->dmabuf = 1;
    return fields(v, d, set_ib);
}

static int gpu_line(fake_scenario *s, char *v)
{
    if (s->gpu_count >= FAKE_MAX_GPUS)
        return -1;
    fake_gpu *g = &s->gpus[s->gpu_count++];
    memset(g, 0, sizeof *g);
    g->ecc = g->ecc_pending = -1; /* unsupported unless the scenario says */
    g->mig = g->mig_pending = -1;
    g->free_mib = 256;
    g->mem_stuck = -1;
    g->power_draw_pct = 98;
    g->peer = 1;
    g->copy_gbps = 50;
    g->gemm_tflops = 700;
    g->dmabuf = 1;
    g->health[FH_BANKS_MAX] = 3072;
    g->health[FH_RETIRED_SBE] = g->health[FH_RETIRED_DBE] = g->health[FH_RETIRED_PENDING] = -1;
    g->health[FH_MARGIN] = 40;
    g->health[FH_MEM_TEMP] = 35;
    g->health[FH_TLIMIT_SHUTDOWN] = -8;
    g->health[FH_TLIMIT_SLOWDOWN] = -2;
    g->health[FH_CE_SW_POWER_MS] = 1200;
    g->health[FH_FABRIC_STATE] = 0;    /* NVML_GPU_FABRIC_STATE_NOT_SUPPORTED */
    g->health[FH_RECOVERY_ACTION] = 0; /* none pending, as driver 580 reports on an H100 */
    for (int k = FH_NVLINK_RECOVERY_OK; k <= FH_NVLINK_INTEGRITY; k++)
        g->health[k] = -1; /* Hopper: NVLink 5's fields NOT_SUPPORTED */
    return fields(v, g, set_gpu);
}

static int load_into(fake_scenario *s)
{
    memset(s, 0, sizeof *s);
    s->cublas_cuda_version = 13000;
    s->nccl_version = 22809;
    copy(s->nccl_transport, sizeof s->nccl_transport, "P2P/CUMEM/read");
    s->nccl_slow_link[0] = s->nccl_slow_link[1] = -1;
    s->nccl_hang_rank = -1;
    copy(s->nccl_network, sizeof s->nccl_network, "IB");
    const char *path = getenv("GV_FAKE_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    char line[1024];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *l = trim(line);
        if (!*l || *l == '#')
            continue;
        char *eq = strchr(l, '=');
        if (!eq) {
            rc = -1;
            break;
        }
        *eq = '\0';
        char *k = trim(l), *v = trim(eq + 1);
        if (!strcmp(k, "driver_version"))
            copy(s->driver_version, sizeof s->driver_version, v);
        else if (!strcmp(k, "nvml_version"))
            copy(s->nvml_version, sizeof s->nvml_version, v);
        else if (!strcmp(k, "cuda_version"))
            s->cuda_version = atoi(v);
        else if (!strcmp(k, "nvml_init"))
            s->nvml_init = atoi(v);
        else if (!strcmp(k, "cu_init"))
            s->cu_init = atoi(v);
        else if (!strcmp(k, "cublas_cuda_version"))
            s->cublas_cuda_version = atoi(v);
        else if (!strcmp(k, "nccl_version"))
            s->nccl_version = atoi(v);
        else if (!strcmp(k, "nccl_fault"))
            copy(s->nccl_fault, sizeof s->nccl_fault, v);
        else if (!strcmp(k, "nccl_hang_rank"))
            s->nccl_hang_rank = atoi(v);
        else if (!strcmp(k, "nccl_hang_after"))
            s->nccl_hang_after = atoi(v);
        else if (!strcmp(k, "nccl_slow_link"))
            sscanf(v, "%d-%d", &s->nccl_slow_link[0], &s->nccl_slow_link[1]);
        else if (!strcmp(k, "nccl_transport"))
            copy(s->nccl_transport, sizeof s->nccl_transport, v);
        else if (!strcmp(k, "nccl_transport_across_pairs"))
            copy(s->nccl_transport_across_pairs, sizeof s->nccl_transport_across_pairs, v);
        else if (!strcmp(k, "nccl_network"))
            copy(s->nccl_network, sizeof s->nccl_network, v);
        else if (!strcmp(k, "nvswitch_buses")) {
            s->nvswitch_count = 0;
            for (char *t = strtok(v, ","); t && s->nvswitch_count < 4; t = strtok(NULL, ","))
                copy(s->nvswitch_buses[s->nvswitch_count++], sizeof s->nvswitch_buses[0], trim(t));
        } else if (!strcmp(k, "nccl_busbw_gbps"))
            s->nccl_busbw_gbps = atof(v);
        else if (!strcmp(k, "gpu"))
            rc = gpu_line(s, v);
        else if (!strcmp(k, "ib_device"))
            rc = ib_line(s, v);
        else if (!strcmp(k, "fault"))
            rc = fault_line(s, v);
        else
            rc = -1;
    }
    fclose(f);
    return rc;
}

/* Into a copy first, then over *s at once: the fakes keep one scenario that other threads read
 * while one reloads it (every cuInit does), and the file says the same to all of them, so no
 * byte a reader sees changes (cleared and refilled in place, a reader's sscanf saw it change
 * under it, and glibc leaked its push-back buffer). */
int fake_scenario_load(fake_scenario *s)
{
    fake_scenario *loaded = malloc(sizeof *loaded);
    if (!loaded)
        return -1;
    int rc = load_into(loaded);
    memcpy(s, loaded, sizeof *s);
    free(loaded);
    return rc;
}
