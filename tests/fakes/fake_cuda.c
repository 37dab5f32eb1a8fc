/* A fake libcuda.so.1 for CI, built from lib/backends/cuda_api.def. Like the real driver it
 * exports cuGetProcAddress_v2, which hands out the entries of the symbol list by base name
 * and ABI version. Devices come from the scenario file, minus lost GPUs and GPUs in MIG mode,
 * filtered by CUDA_VISIBLE_DEVICES. Test code only: never shipped. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nvabi/cuda_abi.h"
#include "scenario.h"

#define GV_CUDA_FN(name, abi_version, required, params) static gvcu_result fake_##name params;
#include "backends/cuda_api.def"
#undef GV_CUDA_FN

static const struct entry {
    const char *name;
    void *fn;
    int version;
} entries[] = {
#define GV_CUDA_FN(name, abi_version, required, params) {#name, (void *)fake_##name, abi_version},
#include "backends/cuda_api.def"
#undef GV_CUDA_FN
};

static fake_scenario sc;
static int initialised;
static int visible[FAKE_MAX_GPUS]; /* CUDA ordinal -> scenario GPU */
static int visible_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((visibility("default"))) gvcu_result cuGetProcAddress_v2(const char *symbol,
                                                                       void **pfn, int cuda_version,
                                                                       uint64_t flags,
                                                                       gvcu_proc_query *status);

gvcu_result cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, uint64_t flags,
                                gvcu_proc_query *status)
{
    (void)flags;
    if (!symbol || !pfn)
        return GVCU_ERROR_INVALID_VALUE;
    *pfn = NULL;
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
        if (strcmp(entries[i].name, symbol) != 0)
            continue;
        if (cuda_version < entries[i].version) {
            if (status)
                *status = GVCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
            return GVCU_ERROR_NOT_FOUND;
        }
        *pfn = entries[i].fn;
        if (status)
            *status = GVCU_GET_PROC_ADDRESS_SUCCESS;
        return GVCU_SUCCESS;
    }
    if (status)
        *status = GVCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return GVCU_ERROR_NOT_FOUND;
}

/* CUDA_VISIBLE_DEVICES: ordinals or UUID prefixes; the list stops at the first bad entry. */
static void apply_visible(const int *usable, int n)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    visible_count = 0;
    if (!env) {
        for (int i = 0; i < n; i++)
            visible[visible_count++] = usable[i];
        return;
    }
    char list[256];
    snprintf(list, sizeof list, "%s", env);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = -1;
        if (strncmp(tok, "GPU-", 4) == 0) {
            for (int i = 0; i < n && found < 0; i++)
                if (strncmp(sc.gpus[usable[i]].uuid, tok, strlen(tok)) == 0)
                    found = usable[i];
        } else {
            char *end;
            long k = strtol(tok, &end, 10);
            if (*end == '\0' && k >= 0 && k < n)
                found = usable[k];
        }
        if (found < 0)
            break;
        visible[visible_count++] = found;
    }
}

/* Unlike the real driver, every cuInit reads the scenario and CUDA_VISIBLE_DEVICES again, so
 * one test process can walk through several nodes. */
static gvcu_result init_locked(void)
{
    if (fake_scenario_load(&sc) != 0)
        return GVCU_ERROR_UNKNOWN;
    if (sc.cu_init != GVCU_SUCCESS)
        return sc.cu_init;
    int usable[FAKE_MAX_GPUS], n = 0;
    for (int i = 0; i < sc.gpu_count; i++)
        if (!sc.gpus[i].lost && sc.gpus[i].mig != 1)
            usable[n++] = i;
    apply_visible(usable, n);
    if (visible_count == 0)
        return GVCU_ERROR_NO_DEVICE;
    initialised = 1;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuInit(unsigned int flags)
{
    if (flags != 0)
        return GVCU_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    gvcu_result rc = init_locked();
    pthread_mutex_unlock(&lock);
    return rc;
}

static gvcu_result fake_cuDriverGetVersion(int *version)
{
    if (!version)
        return GVCU_ERROR_INVALID_VALUE;
    /* Works before cuInit, as the real one does: read the scenario for the version. */
    fake_scenario tmp;
    *version = fake_scenario_load(&tmp) == 0 ? tmp.cuda_version : 0;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDeviceGetCount(int *count)
{
    if (!initialised)
        return GVCU_ERROR_NOT_INITIALIZED;
    *count = visible_count;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDeviceGet(gvcu_device *device, int ordinal)
{
    if (!initialised)
        return GVCU_ERROR_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= visible_count)
        return GVCU_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return GVCU_SUCCESS;
}

static const fake_gpu *gpu_of(gvcu_device d)
{
    return initialised && d >= 0 && d < visible_count ? &sc.gpus[visible[d]] : NULL;
}

static gvcu_result fake_cuDeviceGetName(char *name, int len, gvcu_device device)
{
    const fake_gpu *g = gpu_of(device);
    if (!g)
        return GVCU_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "%s", g->name);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDeviceTotalMem(size_t *bytes, gvcu_device device)
{
    const fake_gpu *g = gpu_of(device);
    if (!g)
        return GVCU_ERROR_INVALID_DEVICE;
    *bytes = (size_t)(g->memory_mib << 20);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDeviceGetAttribute(int *value, gvcu_device_attribute attribute,
                                             gvcu_device device)
{
    const fake_gpu *g = gpu_of(device);
    if (!g)
        return GVCU_ERROR_INVALID_DEVICE;
    unsigned d, b, dev, fn;
    sscanf(g->bus, "%x:%x:%x.%x", &d, &b, &dev, &fn);
    switch (attribute) {
    case GVCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *value = g->sms;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *value = g->cc_major;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *value = g->cc_minor;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        *value = g->max_sm_clock * 1000;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        *value = (int)b;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
        *value = (int)dev;
        return GVCU_SUCCESS;
    case GVCU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
        *value = (int)d;
        return GVCU_SUCCESS;
    default:
        return GVCU_ERROR_INVALID_VALUE;
    }
}

static gvcu_result fake_cuDeviceGetPCIBusId(char *bus_id, int len, gvcu_device device)
{
    const fake_gpu *g = gpu_of(device);
    if (!g)
        return GVCU_ERROR_INVALID_DEVICE;
    snprintf(bus_id, (size_t)len, "%s", g->bus);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDeviceGetUuid(gvcu_uuid *uuid, gvcu_device device)
{
    const fake_gpu *g = gpu_of(device);
    if (!g)
        return GVCU_ERROR_INVALID_DEVICE;
    /* "GPU-xxxxxxxx-xxxx-..." back to 16 bytes. */
    const char *p = g->uuid + 4;
    for (int i = 0; i < 16 && *p; i++) {
        if (*p == '-')
            p++;
        unsigned byte = 0;
        sscanf(p, "%2x", &byte);
        uuid->bytes[i] = (char)byte;
        p += 2;
    }
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuGetErrorName(gvcu_result error, const char **name)
{
    *name = error == GVCU_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
    return GVCU_SUCCESS;
}
