/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libnvidia-ml.so.1 for CI, built from lib/backends/nvml_api.def: every entry the
 * library resolves exists here under its newest exported name with the same signature,
 * answering from the scenario file. Test code only: never shipped. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "backends/nvabi/nvml_abi.h"
#include "scenario.h"

/* The declarations come from the symbol list: a signature that drifts fails to compile. */
#define GV_NVML_FN(field, newest, fallback, required, params)                                      \
    __attribute__((visibility("default"))) gvnv_return newest params;
#include "backends/nvml_api.def"
#undef GV_NVML_FN

static fake_scenario sc;
static int initialised; /* NVML counts inits; the scenario is read at the first */

/* The count, read without the lock: atomics, so that gv_run on 8 threads under
 * ThreadSanitizer tests the library, not this fake (the scenario is written before the count
 * rises above 0 and never while it is). */
static int ready(void)
{
    return __atomic_load_n(&initialised, __ATOMIC_ACQUIRE);
}
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static fake_gpu *gpu_of(gvnv_device d)
{
    uintptr_t i = (uintptr_t)d;
    return ready() && i >= 1 && i <= (uintptr_t)sc.gpu_count ? &sc.gpus[i - 1] : NULL;
}

/* Every device query: a handle we gave out, and a GPU still on the bus. */
#define DEVICE_OR_RETURN(g, d)                                                                     \
    fake_gpu *g = gpu_of(d);                                                                       \
    if (!g)                                                                                        \
        return ready() ? GVNV_ERROR_INVALID_ARGUMENT : GVNV_ERROR_UNINITIALIZED;                   \
    if (g->lost)                                                                                   \
        return GVNV_ERROR_GPU_IS_LOST;

static gvnv_return text(char *out, unsigned len, const char *value)
{
    if (!out)
        return GVNV_ERROR_INVALID_ARGUMENT;
    if (strlen(value) + 1 > len)
        return GVNV_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, value, strlen(value) + 1);
    return GVNV_SUCCESS;
}

gvnv_return nvmlInit_v2(void)
{
    gvnv_return rc = GVNV_SUCCESS;
    pthread_mutex_lock(&lock);
    if (!ready())
        rc = fake_scenario_load(&sc) != 0 ? GVNV_ERROR_UNKNOWN : sc.nvml_init;
    if (!ready() && rc == GVNV_SUCCESS)
        rc = fake_fault_at(&sc, "nvmlInit", -1);
    if (rc == GVNV_SUCCESS)
        __atomic_store_n(&initialised, ready() + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    return rc;
}

gvnv_return nvmlShutdown(void)
{
    gvnv_return rc = GVNV_SUCCESS;
    pthread_mutex_lock(&lock);
    if (ready())
        __atomic_store_n(&initialised, ready() - 1, __ATOMIC_RELEASE);
    else
        rc = GVNV_ERROR_UNINITIALIZED;
    pthread_mutex_unlock(&lock);
    return rc;
}

gvnv_return nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    return ready() ? text(version, length, sc.driver_version) : GVNV_ERROR_UNINITIALIZED;
}

gvnv_return nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return ready() ? text(version, length, sc.nvml_version) : GVNV_ERROR_UNINITIALIZED;
}

gvnv_return nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    *version = sc.cuda_version;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    *count = (unsigned)sc.gpu_count;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetHandleByIndex_v2(unsigned int index, gvnv_device *device)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    if (index >= (unsigned)sc.gpu_count || !device)
        return GVNV_ERROR_INVALID_ARGUMENT;
    int fault = fake_fault_at(&sc, "nvmlDeviceGetHandleByIndex", (int)index);
    if (fault)
        return fault;
    if (sc.gpus[index].lost)
        return GVNV_ERROR_GPU_IS_LOST;
    if (sc.gpus[index].nvml_denied)
        return GVNV_ERROR_NO_PERMISSION;
    *device = (gvnv_device)(uintptr_t)(index + 1);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetPciInfo_v3(gvnv_device device, gvnv_pci_info *pci)
{
    DEVICE_OR_RETURN(g, device);
    memset(pci, 0, sizeof *pci);
    unsigned d, b, dev, fn;
    if (sscanf(g->bus, "%x:%x:%x.%x", &d, &b, &dev, &fn) != 4)
        return GVNV_ERROR_UNKNOWN;
    pci->domain = d;
    pci->bus = b;
    pci->device = dev;
    pci->pci_device_id = (g->device_id << 16) | 0x10deu;
    snprintf(pci->bus_id, sizeof pci->bus_id, "%08x:%02x:%02x.%x", d, b, dev, fn);
    snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "%04x:%02x:%02x.%x", d & 0xffff, b, dev,
             fn);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetName(gvnv_device device, char *name, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return text(name, length, g->name);
}

gvnv_return nvmlDeviceGetUUID(gvnv_device device, char *uuid, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return text(uuid, length, g->uuid);
}

gvnv_return nvmlDeviceGetSerial(gvnv_device device, char *serial, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return g->serial[0] ? text(serial, length, g->serial) : GVNV_ERROR_NOT_SUPPORTED;
}

gvnv_return nvmlDeviceGetVbiosVersion(gvnv_device device, char *version, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return text(version, length, g->vbios);
}

gvnv_return nvmlDeviceGetInforomImageVersion(gvnv_device device, char *version, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return g->inforom[0] ? text(version, length, g->inforom) : GVNV_ERROR_NOT_SUPPORTED;
}

gvnv_return nvmlDeviceGetBoardPartNumber(gvnv_device device, char *part, unsigned int length)
{
    DEVICE_OR_RETURN(g, device);
    return g->board_part[0] ? text(part, length, g->board_part) : GVNV_ERROR_NOT_SUPPORTED;
}

gvnv_return nvmlDeviceGetGspFirmwareVersion(gvnv_device device, char *version)
{
    DEVICE_OR_RETURN(g, device);
    return g->gsp[0] ? text(version, GVNV_GSP_FIRMWARE_VERSION_BUFFER_SIZE, g->gsp)
                     : GVNV_ERROR_NOT_SUPPORTED;
}

gvnv_return nvmlDeviceGetMemoryInfo(gvnv_device device, gvnv_memory *memory)
{
    DEVICE_OR_RETURN(g, device);
    memory->total = g->memory_mib << 20;
    memory->used = 1ull << 20 << 9; /* 512 MiB reserved by the driver */
    memory->free = memory->total - memory->used;
    return GVNV_SUCCESS;
}

/* What the processes hold: the scenario's (listed) and its hidden_mib (processes NVML does not
 * list to this one: another PID namespace's), and the few MiB each context keeps unlisted. */
gvnv_return nvmlDeviceGetMemoryInfo_v2(gvnv_device device, gvnv_memory_v2 *memory)
{
    DEVICE_OR_RETURN(g, device);
    if (memory->version != GVNV_STRUCT_VERSION(gvnv_memory_v2, 2))
        return GVNV_ERROR_INVALID_ARGUMENT; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH really */
    unsigned long long used = g->hidden_mib << 20;
    for (int i = 0; i < g->proc_count; i++)
        used += (g->proc_mib[i] + 8) << 20;
    memory->total = g->memory_mib << 20;
    memory->reserved = 480ull << 20;
    memory->used = used;
    memory->free =
        memory->total > used + memory->reserved ? memory->total - used - memory->reserved : 0;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetCudaComputeCapability(gvnv_device device, int *major, int *minor)
{
    DEVICE_OR_RETURN(g, device);
    *major = g->cc_major;
    *minor = g->cc_minor;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetMaxClockInfo(gvnv_device device, gvnv_clock_type type, unsigned *mhz)
{
    DEVICE_OR_RETURN(g, device);
    if (type != GVNV_CLOCK_SM)
        return GVNV_ERROR_NOT_SUPPORTED;
    *mhz = (unsigned)g->max_sm_clock;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetPersistenceMode(gvnv_device device, gvnv_enable_state *mode)
{
    DEVICE_OR_RETURN(g, device);
    *mode = g->persistence;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetEccMode(gvnv_device device, gvnv_enable_state *current,
                                 gvnv_enable_state *pending)
{
    DEVICE_OR_RETURN(g, device);
    if (g->ecc < 0)
        return GVNV_ERROR_NOT_SUPPORTED;
    *current = g->ecc;
    *pending = g->ecc_pending;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetMigMode(gvnv_device device, unsigned int *current, unsigned int *pending)
{
    DEVICE_OR_RETURN(g, device);
    if (g->mig < 0)
        return GVNV_ERROR_NOT_SUPPORTED;
    *current = (unsigned)g->mig;
    *pending = (unsigned)g->mig_pending;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetComputeMode(gvnv_device device, gvnv_compute_mode *mode)
{
    DEVICE_OR_RETURN(g, device);
    *mode = g->compute_mode;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetPowerManagementLimit(gvnv_device device, unsigned int *limit_mw)
{
    DEVICE_OR_RETURN(g, device);
    *limit_mw = (unsigned)g->power_limit_w * 1000u;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetPowerManagementDefaultLimit(gvnv_device device, unsigned int *limit_mw)
{
    DEVICE_OR_RETURN(g, device);
    int w = g->default_power_limit_w ? g->default_power_limit_w : g->power_limit_w;
    *limit_mw = (unsigned)w * 1000u;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetTemperature(gvnv_device device, gvnv_temperature_sensor sensor,
                                     unsigned int *temperature_c)
{
    DEVICE_OR_RETURN(g, device);
    if (sensor != GVNV_TEMPERATURE_GPU)
        return GVNV_ERROR_INVALID_ARGUMENT;
    *temperature_c = (unsigned)g->temp;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetCurrPcieLinkGeneration(gvnv_device device, unsigned int *generation)
{
    DEVICE_OR_RETURN(g, device);
    *generation = (unsigned)g->pcie_gen;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetMaxPcieLinkGeneration(gvnv_device device, unsigned int *generation)
{
    DEVICE_OR_RETURN(g, device);
    *generation = (unsigned)g->pcie_gen_max;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetCurrPcieLinkWidth(gvnv_device device, unsigned int *width)
{
    DEVICE_OR_RETURN(g, device);
    *width = (unsigned)g->pcie_width;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetMaxPcieLinkWidth(gvnv_device device, unsigned int *width)
{
    DEVICE_OR_RETURN(g, device);
    *width = (unsigned)g->pcie_width_max;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, gvnv_device *device)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    if (!bus_id || !device)
        return GVNV_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < sc.gpu_count; i++)
        if (strcasecmp(sc.gpus[i].bus, bus_id) == 0) {
            if (sc.gpus[i].lost)
                return GVNV_ERROR_GPU_IS_LOST;
            *device = (gvnv_device)(uintptr_t)(i + 1);
            return GVNV_SUCCESS;
        }
    return GVNV_ERROR_NOT_FOUND;
}

/* A busy GPU: the SM clock at its maximum (or the scenario's), drawing its power_draw_pct. */
gvnv_return nvmlDeviceGetClockInfo(gvnv_device device, gvnv_clock_type type,
                                   unsigned int *clock_mhz)
{
    DEVICE_OR_RETURN(g, device);
    if (type != GVNV_CLOCK_SM)
        return GVNV_ERROR_NOT_SUPPORTED;
    *clock_mhz = (unsigned)(g->sm_clock ? g->sm_clock : g->max_sm_clock);
    return GVNV_SUCCESS;
}

/* Milliseconds since this process first passed here with *first (0 until then). */
static long long ms_since_first(long long *first)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000 + 1, unset = 0;
    /* threads of one process share it: atomics */
    __atomic_compare_exchange_n(first, &unset, ms, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return ms - __atomic_load_n(first, __ATOMIC_SEQ_CST);
}

gvnv_return nvmlDeviceGetPowerUsage(gvnv_device device, unsigned int *power_mw)
{
    static long long first_ms[FAKE_MAX_GPUS];
    DEVICE_OR_RETURN(g, device);
    /* NVML's reading is a one-second average: it catches up with a load that just started. */
    int pct = g->power_draw_pct;
    if (g->power_ramp_ms > 0 && ms_since_first(&first_ms[g - sc.gpus]) < g->power_ramp_ms)
        pct = 30;
    *power_mw = (unsigned)(g->power_limit_w * 10 * pct);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetCurrentClocksEventReasons(gvnv_device device, unsigned long long *reasons)
{
    DEVICE_OR_RETURN(g, device);
    *reasons = g->clock_events;
    return GVNV_SUCCESS;
}

/* NVLinks 0..nvlinks-1 exist; the last nvlinks_down of them are inactive. */
#define LINK_OR_RETURN(g, link)                                                                    \
    if ((int)(link) >= (g)->nvlinks || (link) >= GVNV_NVLINK_MAX_LINKS)                            \
        return (g)->nvlinks ? GVNV_ERROR_INVALID_ARGUMENT : GVNV_ERROR_NOT_SUPPORTED;

static int fabric_training(const fake_gpu *g);

gvnv_return nvmlDeviceGetNvLinkState(gvnv_device device, unsigned int link,
                                     gvnv_enable_state *is_active)
{
    DEVICE_OR_RETURN(g, device);
    LINK_OR_RETURN(g, link);
    /* The links of a GPU whose fabric probe has not completed yet are not up either. */
    *is_active = (int)link < g->nvlinks - g->nvlinks_down && !fabric_training(g)
                     ? GVNV_FEATURE_ENABLED
                     : GVNV_FEATURE_DISABLED;
    return GVNV_SUCCESS;
}

static int peer_is_switch(const fake_gpu *g)
{
    return !g->nvlink_peer[0] || !strcmp(g->nvlink_peer, "switch");
}

/* The NVSwitch a link of an HGX H100 reaches (nvswitch_buses: links 0-4, 5-8, 9-12, 13-17),
 * and the link's place among the GPU's links to that switch. */
static int switch_of(unsigned link, int *k)
{
    static const unsigned first[] = {0, 5, 9, 13, 18};
    int s = 0;
    while (s < 3 && link >= first[s + 1])
        s++;
    *k = (int)(link - first[s]);
    return s;
}

gvnv_return nvmlDeviceGetNvLinkRemotePciInfo_v2(gvnv_device device, unsigned int link,
                                                gvnv_pci_info *pci)
{
    DEVICE_OR_RETURN(g, device);
    LINK_OR_RETURN(g, link);
    memset(pci, 0, sizeof *pci);
    /* An NVSwitch answers with its own bus id; without the scenario's, one on bus 0xff. */
    int k;
    const char *bus = !peer_is_switch(g) ? g->nvlink_peer
                      : sc.nvswitch_count > 0
                          ? sc.nvswitch_buses[switch_of(link, &k) % sc.nvswitch_count]
                          : "00000000:FF:00.0";
    snprintf(pci->bus_id, sizeof pci->bus_id, "%s", bus);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetNvLinkRemoteDeviceType(gvnv_device device, unsigned int link,
                                                gvnv_nvlink_device_type *type)
{
    DEVICE_OR_RETURN(g, device);
    LINK_OR_RETURN(g, link);
    *type = peer_is_switch(g) ? GVNV_NVLINK_DEVICE_TYPE_SWITCH : GVNV_NVLINK_DEVICE_TYPE_GPU;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetUtilizationRates(gvnv_device device, gvnv_utilization *utilization)
{
    DEVICE_OR_RETURN(g, device);
    utilization->gpu = (unsigned)g->utilization;
    utilization->memory = 0;
    return GVNV_SUCCESS;
}

static gvnv_return processes(gvnv_device device, unsigned int *count, gvnv_process_info *infos,
                             int graphics)
{
    DEVICE_OR_RETURN(g, device);
    if (!count)
        return GVNV_ERROR_INVALID_ARGUMENT;
    unsigned n = graphics ? 0 : (unsigned)g->proc_count; /* the scenario's are compute */
    if (*count < n) {
        *count = n;
        return GVNV_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < n; i++) {
        memset(&infos[i], 0, sizeof infos[i]);
        infos[i].pid = g->proc_pid[i];
        infos[i].used_gpu_memory = g->proc_mib[i] << 20;
    }
    *count = n;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetComputeRunningProcesses_v3(gvnv_device device, unsigned int *count,
                                                    gvnv_process_info *infos)
{
    return processes(device, count, infos, 0);
}

gvnv_return nvmlDeviceGetGraphicsRunningProcesses_v3(gvnv_device device, unsigned int *count,
                                                     gvnv_process_info *infos)
{
    return processes(device, count, infos, 1);
}

/* Health counters, from the scenario's health= list (-1: NOT_SUPPORTED). */
#define HEALTH(g, k) ((g)->health[FH_##k])
#define SUPPORTED_OR_RETURN(g, k)                                                                  \
    if (HEALTH(g, k) < 0)                                                                          \
        return GVNV_ERROR_NOT_SUPPORTED;

/* What the fake libcuda's memory test added, when libcuda is loaded in this process (the
 * library loads it privately, so it is found by name, never loaded here). */
static long long ecc_added_by_memtest(int index, int uncorrected)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda)
        return 0;
    long long (*added)(int, int) = (long long (*)(int, int))dlsym(cuda, "fake_cuda_ecc_added");
    long long n = added ? added(index, uncorrected) : 0;
    dlclose(cuda);
    return n;
}

gvnv_return nvmlDeviceGetMemoryErrorCounter(gvnv_device device, int error_type, int counter_type,
                                            int location, unsigned long long *count)
{
    DEVICE_OR_RETURN(g, device);
    if (location != GVNV_MEMORY_LOCATION_DRAM)
        return GVNV_ERROR_NOT_SUPPORTED;
    if (g->ecc != 1)
        return GVNV_ERROR_NOT_SUPPORTED;
    int k = error_type == GVNV_MEMORY_ERROR_CORRECTED
                ? (counter_type == GVNV_VOLATILE_ECC ? FH_DRAM_COR_VOL : FH_DRAM_COR_AGG)
                : (counter_type == GVNV_VOLATILE_ECC ? FH_DRAM_UNC_VOL : FH_DRAM_UNC_AGG);
    *count = (unsigned long long)g->health[k];
    if (counter_type == GVNV_VOLATILE_ECC)
        *count += (unsigned long long)ecc_added_by_memtest(
            (int)(g - sc.gpus), error_type != GVNV_MEMORY_ERROR_CORRECTED);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetSramEccErrorStatus(gvnv_device device, gvnv_sram_ecc_status *s)
{
    DEVICE_OR_RETURN(g, device);
    if (s->version != GVNV_STRUCT_VERSION(gvnv_sram_ecc_status, 1))
        return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
    if (g->ecc != 1)
        return GVNV_ERROR_NOT_SUPPORTED;
    s->volatile_cor = (unsigned long long)HEALTH(g, SRAM_COR_VOL);
    s->volatile_unc_parity = (unsigned long long)HEALTH(g, SRAM_PARITY_VOL);
    s->volatile_unc_secded = (unsigned long long)HEALTH(g, SRAM_SECDED_VOL);
    s->aggregate_cor = (unsigned long long)HEALTH(g, SRAM_COR_AGG);
    s->aggregate_unc_parity = (unsigned long long)HEALTH(g, SRAM_PARITY_AGG);
    s->aggregate_unc_secded = (unsigned long long)HEALTH(g, SRAM_SECDED_AGG);
    s->aggregate_unc_l2 = (unsigned long long)HEALTH(g, SRAM_L2);
    s->aggregate_unc_sm = (unsigned long long)HEALTH(g, SRAM_SM);
    s->aggregate_unc_pcie = (unsigned long long)HEALTH(g, SRAM_PCIE);
    s->aggregate_unc_mcu = (unsigned long long)HEALTH(g, SRAM_MCU);
    s->aggregate_unc_other = (unsigned long long)HEALTH(g, SRAM_OTHER);
    s->threshold_exceeded = (unsigned)HEALTH(g, SRAM_THRESHOLD);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetRemappedRows(gvnv_device device, unsigned int *corr, unsigned int *unc,
                                      unsigned int *pending, unsigned int *failure)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, BANKS_MAX);
    *corr = (unsigned)HEALTH(g, REMAP_COR);
    *unc = (unsigned)HEALTH(g, REMAP_UNC);
    *pending = (unsigned)HEALTH(g, REMAP_PENDING);
    *failure = (unsigned)HEALTH(g, REMAP_FAILURE);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetRemappedRows_v2(gvnv_device device, gvnv_remapped_rows_v2 *info)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, BANKS_MAX);
    info->corr_active = (unsigned)HEALTH(g, REMAP_COR);
    info->corr_inactive = (unsigned)HEALTH(g, REMAP_COR_INACTIVE);
    info->unc_active = (unsigned)HEALTH(g, REMAP_UNC);
    info->unc_inactive = (unsigned)HEALTH(g, REMAP_UNC_INACTIVE);
    info->pending = (unsigned)HEALTH(g, REMAP_PENDING);
    info->failure_occurred = (unsigned)HEALTH(g, REMAP_FAILURE);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetRowRemapperHistogram(gvnv_device device, gvnv_remap_histogram *v)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, BANKS_MAX);
    v->max = (unsigned)HEALTH(g, BANKS_MAX);
    v->high = (unsigned)HEALTH(g, BANKS_HIGH);
    v->partial = (unsigned)HEALTH(g, BANKS_PARTIAL);
    v->low = (unsigned)HEALTH(g, BANKS_LOW);
    v->none = (unsigned)HEALTH(g, BANKS_NONE);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetRepairStatus(gvnv_device device, gvnv_repair_status *s)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, CHANNEL_REPAIR);
    if (s->version != GVNV_STRUCT_VERSION(gvnv_repair_status, 1))
        return 25;
    s->channel_repair_pending = (unsigned)HEALTH(g, CHANNEL_REPAIR);
    s->tpc_repair_pending = (unsigned)HEALTH(g, TPC_REPAIR);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetUnrepairableMemoryFlag_v1(gvnv_device device, gvnv_unrepairable_memory *s)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, UNREPAIRABLE);
    s->unrepairable = (unsigned)HEALTH(g, UNREPAIRABLE);
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetPcieReplayCounter(gvnv_device device, unsigned int *value)
{
    DEVICE_OR_RETURN(g, device);
    SUPPORTED_OR_RETURN(g, PCIE_REPLAY);
    *value = (unsigned)HEALTH(g, PCIE_REPLAY);
    return GVNV_SUCCESS;
}

/* The scenario's NVLink errors are on one link (nvlink_err_link, default 0). */
gvnv_return nvmlDeviceGetNvLinkErrorCounter(gvnv_device device, unsigned int link, int counter,
                                            unsigned long long *value)
{
    DEVICE_OR_RETURN(g, device);
    LINK_OR_RETURN(g, link);
    if (counter < GVNV_NVLINK_ERROR_DL_REPLAY || counter > GVNV_NVLINK_ERROR_DL_ECC_DATA)
        return GVNV_ERROR_INVALID_ARGUMENT;
    *value = (long long)link == HEALTH(g, NVLINK_ERR_LINK)
                 ? (unsigned long long)g->health[FH_NVLINK_REPLAY + counter]
                 : 0;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetMarginTemperature(gvnv_device device, gvnv_margin_temperature *m)
{
    DEVICE_OR_RETURN(g, device);
    if (m->version != GVNV_STRUCT_VERSION(gvnv_margin_temperature, 1))
        return 25;
    m->margin_c = (int)HEALTH(g, MARGIN);
    return GVNV_SUCCESS;
}

/* A GPU whose probe completes fabric_done_ms after the first question, not there yet. */
static int fabric_training(const fake_gpu *g)
{
    static long long first_ms;
    long long done_ms = HEALTH(g, FABRIC_DONE_MS);
    return done_ms > 0 && ms_since_first(&first_ms) < done_ms;
}

gvnv_return nvmlDeviceGetGpuFabricInfoV(gvnv_device device, gvnv_fabric_info *info)
{
    DEVICE_OR_RETURN(g, device);
    if (info->version != GVNV_STRUCT_VERSION(gvnv_fabric_info, 3))
        return 25;
    info->state = (unsigned char)(HEALTH(g, FABRIC_DONE_MS) > 0 && !fabric_training(g)
                                      ? GVNV_FABRIC_STATE_COMPLETED
                                      : HEALTH(g, FABRIC_STATE));
    info->status = (gvnv_return)HEALTH(g, FABRIC_STATUS);
    info->health_mask = (unsigned)HEALTH(g, FABRIC_HEALTH);
    return GVNV_SUCCESS;
}

/* The fields gpuverify asks for; others NOT_SUPPORTED, as NVML answers per field. */
gvnv_return nvmlDeviceGetFieldValues(gvnv_device device, int count, gvnv_field_value *values)
{
    DEVICE_OR_RETURN(g, device);
    static const struct {
        unsigned id;
        int key;
        long long scale; /* clock-event times: the scenario's ms into NVML's ns */
    } map[] = {
        {GVNV_FI_DEV_RETIRED_SBE, FH_RETIRED_SBE, 1},
        {GVNV_FI_DEV_RETIRED_DBE, FH_RETIRED_DBE, 1},
        {GVNV_FI_DEV_RETIRED_PENDING, FH_RETIRED_PENDING, 1},
        {GVNV_FI_DEV_PERF_POLICY_POWER, FH_CE_SW_POWER_MS, 1000000},
        {GVNV_FI_DEV_PERF_POLICY_SYNC_BOOST, FH_CE_SYNC_BOOST_MS, 1000000},
        {GVNV_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, FH_CE_SW_THERMAL_MS, 1000000},
        {GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, FH_CE_HW_THERMAL_MS, 1000000},
        {GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, FH_CE_HW_POWER_BRAKE_MS, 1000000},
        {GVNV_FI_DEV_MEMORY_TEMP, FH_MEM_TEMP, 1},
        {GVNV_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT, FH_TLIMIT_SHUTDOWN, 1},
        {GVNV_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT, FH_TLIMIT_SLOWDOWN, 1},
        {GVNV_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT, FH_TLIMIT_GPU_MAX, 1},
        {GVNV_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT, FH_TLIMIT_MEM_MAX, 1},
        {GVNV_FI_DEV_GET_GPU_RECOVERY_ACTION, FH_RECOVERY_ACTION, 1}};
    static const struct {
        unsigned id;
        int key;
    } per_link[] = {
        {GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS, FH_NVLINK_RECOVERY_OK},
        {GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS, FH_NVLINK_RECOVERY_FAILED},
        {GVNV_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS, FH_NVLINK_EFFECTIVE},
        {GVNV_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, FH_NVLINK_SYMBOL},
        {GVNV_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS, FH_NVLINK_INTEGRITY}};
    if (count < 0 || (count && !values))
        return GVNV_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++) {
        gvnv_field_value *v = &values[i];
        v->nvml_return = GVNV_ERROR_NOT_SUPPORTED;
        if (v->field_id == GVNV_FI_DEV_NVLINK_REMOTE_NVLINK_ID && sc.nvswitch_count > 0 &&
            peer_is_switch(g) && (int)v->scope_id < g->nvlinks) {
            int k;
            (void)switch_of(v->scope_id, &k);
            v->nvml_return = GVNV_SUCCESS;
            v->value_type = GVNV_VALUE_TYPE_UNSIGNED_INT;
            v->value.ui = (unsigned)((g - sc.gpus) * 5 + k);
            continue;
        }
        for (size_t k = 0; k < sizeof per_link / sizeof *per_link; k++) {
            long long x = g->health[per_link[k].key];
            if (per_link[k].id != v->field_id || x < 0)
                continue;
            if ((int)v->scope_id >= g->nvlinks)
                break; /* no such link: NOT_SUPPORTED, as NVML answers per field */
            v->nvml_return = GVNV_SUCCESS;
            v->value_type = GVNV_VALUE_TYPE_UNSIGNED_LONG_LONG;
            v->value.ull =
                (long long)v->scope_id == HEALTH(g, NVLINK_ERR_LINK) ? (unsigned long long)x : 0;
        }
        for (size_t k = 0; k < sizeof map / sizeof *map; k++) {
            if (map[k].id != v->field_id)
                continue;
            long long x = g->health[map[k].key];
            /* Temperatures are signed; the others are counts where -1 means unsupported. */
            int is_temp = map[k].key >= FH_MEM_TEMP && map[k].key <= FH_TLIMIT_MEM_MAX;
            if (x < 0 && !is_temp)
                break;
            v->nvml_return = GVNV_SUCCESS;
            v->value_type =
                is_temp ? GVNV_VALUE_TYPE_SIGNED_INT : GVNV_VALUE_TYPE_UNSIGNED_LONG_LONG;
            if (is_temp) {
                v->value.si = (int)x;
            } else if (map[k].key == FH_RECOVERY_ACTION) { /* an enum: driver 580 says uint */
                v->value_type = GVNV_VALUE_TYPE_UNSIGNED_INT;
                v->value.ui = (unsigned)x;
            } else {
                v->value.ull = (unsigned long long)(x * map[k].scale);
            }
        }
    }
    return GVNV_SUCCESS;
}

/* One event set at a time, as gpuverify opens: the GPUs registered and when, and whether each
 * GPU's planted Xid was delivered. */
static struct gvnv_event_set_st {
    int open;
    double registered_at[FAKE_MAX_GPUS]; /* 0: not registered */
    int delivered[FAKE_MAX_GPUS];
} event_set;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

gvnv_return nvmlEventSetCreate(gvnv_event_set *set)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    if (!set)
        return GVNV_ERROR_INVALID_ARGUMENT;
    memset(&event_set, 0, sizeof event_set);
    event_set.open = 1;
    *set = &event_set;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceGetSupportedEventTypes(gvnv_device device, unsigned long long *types)
{
    DEVICE_OR_RETURN(g, device);
    if (!types)
        return GVNV_ERROR_INVALID_ARGUMENT;
    *types = g->events_unsupported ? 0 : GVNV_EVENT_TYPE_XID_CRITICAL_ERROR;
    return GVNV_SUCCESS;
}

gvnv_return nvmlDeviceRegisterEvents(gvnv_device device, unsigned long long types,
                                     gvnv_event_set set)
{
    DEVICE_OR_RETURN(g, device);
    if (set != &event_set || !event_set.open)
        return GVNV_ERROR_INVALID_ARGUMENT;
    if (g->events_unsupported || types & ~GVNV_EVENT_TYPE_XID_CRITICAL_ERROR)
        return GVNV_ERROR_NOT_SUPPORTED;
    int code = fake_fault_at(&sc, "nvmlDeviceRegisterEvents", (int)(g - sc.gpus));
    if (code)
        return code;
    event_set.registered_at[g - sc.gpus] = now_s();
    return GVNV_SUCCESS;
}

/* The earliest planted Xid due by now, or the time until the next one (< 0: none planted). */
static int due_event(double *wait_s)
{
    double t = now_s();
    *wait_s = -1;
    for (int i = 0; i < sc.gpu_count; i++) {
        if (!event_set.registered_at[i] || !sc.gpus[i].xid_event || event_set.delivered[i])
            continue;
        double left = event_set.registered_at[i] + sc.gpus[i].xid_event_ms / 1000.0 - t;
        if (left <= 0)
            return i;
        if (*wait_s < 0 || left < *wait_s)
            *wait_s = left;
    }
    return -1;
}

gvnv_return nvmlEventSetWait_v2(gvnv_event_set set, gvnv_event_data *data, unsigned int timeout_ms)
{
    if (!ready())
        return GVNV_ERROR_UNINITIALIZED;
    if (set != &event_set || !event_set.open || !data)
        return GVNV_ERROR_INVALID_ARGUMENT;
    int code = fake_fault_at(&sc, "nvmlEventSetWait", -1);
    if (code)
        return code;
    double wait_s;
    int i = due_event(&wait_s);
    if (i < 0) {
        double timeout_s = timeout_ms / 1000.0;
        if (wait_s < 0 || wait_s > timeout_s) {
            struct timespec ts = {(time_t)timeout_s, (long)((timeout_s - (time_t)timeout_s) * 1e9)};
            nanosleep(&ts, NULL);
            return GVNV_ERROR_TIMEOUT;
        }
        struct timespec ts = {(time_t)wait_s, (long)((wait_s - (time_t)wait_s) * 1e9)};
        nanosleep(&ts, NULL);
        i = due_event(&wait_s);
        if (i < 0)
            return GVNV_ERROR_TIMEOUT;
    }
    event_set.delivered[i] = 1;
    memset(data, 0, sizeof *data);
    data->device = (gvnv_device)(uintptr_t)(i + 1);
    data->event_type = GVNV_EVENT_TYPE_XID_CRITICAL_ERROR;
    data->event_data = (unsigned long long)sc.gpus[i].xid_event;
    return GVNV_SUCCESS;
}

gvnv_return nvmlEventSetFree(gvnv_event_set set)
{
    if (set != &event_set || !event_set.open)
        return GVNV_ERROR_INVALID_ARGUMENT;
    event_set.open = 0;
    return GVNV_SUCCESS;
}
