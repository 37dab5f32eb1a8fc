/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libcuda.so.1 for CI, built from lib/backends/cuda_api.def. Like the real driver it
 * exports cuGetProcAddress_v2, which hands out the entries of the symbol list by base name
 * and ABI version. Devices come from the scenario file, minus lost GPUs and GPUs in MIG mode,
 * filtered by CUDA_VISIBLE_DEVICES. Test code only: never shipped. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/nvabi/cuda_abi.h"
#include "backends/nvabi/nvml_abi.h"
#include "fake_cuda_device.h"
#include "kernels/gv_float_bits.h"
#include "kernels/gv_random.h"
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

/* A scenario's cu_init = 802 (CUDA_ERROR_SYSTEM_NOT_READY) holds, as on a real node, while the
 * NVSwitch fabric manager has not registered every GPU: the fake asks the fake NVML, when the
 * process has it loaded, what the driver knows itself. Once every GPU's probe completed (a node
 * checked as it boots) cuInit succeeds. */
static int fabric_registered(void)
{
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!nvml)
        return 0;
    int (*count_of)(unsigned *) = (int (*)(unsigned *))dlsym(nvml, "nvmlDeviceGetCount_v2");
    int (*handle_of)(unsigned, gvnv_device *) =
        (int (*)(unsigned, gvnv_device *))dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2");
    int (*fabric_of)(gvnv_device, gvnv_fabric_info *) =
        (int (*)(gvnv_device, gvnv_fabric_info *))dlsym(nvml, "nvmlDeviceGetGpuFabricInfoV");
    unsigned count = 0;
    int registered = count_of && handle_of && fabric_of && count_of(&count) == GVNV_SUCCESS;
    for (unsigned i = 0; i < count && registered; i++) {
        gvnv_device dev = NULL;
        gvnv_fabric_info info = {.version = GVNV_STRUCT_VERSION(gvnv_fabric_info, 3)};
        registered = handle_of(i, &dev) == GVNV_SUCCESS && fabric_of(dev, &info) == GVNV_SUCCESS &&
                     info.state == GVNV_FABRIC_STATE_COMPLETED;
    }
    dlclose(nvml);
    return registered;
}

/* Unlike the real driver, every cuInit reads the scenario and CUDA_VISIBLE_DEVICES again, so
 * one test process can walk through several nodes. */
static gvcu_result init_locked(void)
{
    if (fake_scenario_load(&sc) != 0)
        return GVCU_ERROR_UNKNOWN;
    if (sc.cu_init != GVCU_SUCCESS &&
        !(sc.cu_init == GVCU_ERROR_SYSTEM_NOT_READY && fabric_registered()))
        return sc.cu_init;
    int fault = fake_fault_at(&sc, "cuInit", -1);
    if (fault)
        return fault;
    int usable[FAKE_MAX_GPUS], n = 0;
    for (int i = 0; i < sc.gpu_count; i++)
        if (!sc.gpus[i].lost && sc.gpus[i].mig != 1 && !sc.gpus[i].cuda_missing)
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
    case GVCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
        *value = g->dmabuf;
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

/* ---- Contexts, memory, streams, events, kernels: a GPU simulated on the host. Device
 * pointers are host pointers; work runs at once, and a virtual clock per GPU advanced by the
 * scenario's rates is what events read, so timings are deterministic and GPUs driven at once
 * from several threads do not lengthen one another's. */

static __thread int current = -1; /* CUDA ordinal of the pushed context */
static double gpu_clock_s[FAKE_MAX_GPUS];
static unsigned long long used_bytes[FAKE_MAX_GPUS];
/* Set at the first allocation that succeeds: from then on the scenario's taken_mib is held by
 * another process. */
static int taken_by_others[FAKE_MAX_GPUS];

void fake_cuda_advance(double seconds)
{
    pthread_mutex_lock(&lock);
    gpu_clock_s[current >= 0 && current < FAKE_MAX_GPUS ? current : 0] += seconds;
    pthread_mutex_unlock(&lock);
}

const fake_gpu *fake_cuda_current_gpu(void)
{
    return current >= 0 ? gpu_of(current) : NULL;
}

int fake_cuda_fault(const char *point)
{
    return fake_fault_at(&sc, point, current);
}

/* The primary contexts' references, as the driver counts them: made at the first retain,
 * gone at the last release. */
static int context_refs[FAKE_MAX_GPUS], contexts_made[FAKE_MAX_GPUS];

int fake_cuda_contexts_made(int index)
{
    pthread_mutex_lock(&lock);
    int n = index >= 0 && index < FAKE_MAX_GPUS ? contexts_made[index] : 0;
    pthread_mutex_unlock(&lock);
    return n;
}

int fake_cuda_context_refs(int index)
{
    pthread_mutex_lock(&lock);
    int n = index >= 0 && index < FAKE_MAX_GPUS ? context_refs[index] : 0;
    pthread_mutex_unlock(&lock);
    return n;
}

static gvcu_result fake_cuDevicePrimaryCtxRetain(gvcu_context *context, gvcu_device device)
{
    if (!gpu_of(device))
        return GVCU_ERROR_INVALID_DEVICE;
    int fault = fake_fault_at(&sc, "cuDevicePrimaryCtxRetain", (int)device);
    if (fault)
        return fault;
    *context = (gvcu_context)(uintptr_t)(0x1000 + device);
    pthread_mutex_lock(&lock);
    if (device < FAKE_MAX_GPUS && context_refs[device]++ == 0)
        contexts_made[device]++;
    pthread_mutex_unlock(&lock);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuDevicePrimaryCtxRelease(gvcu_device device)
{
    if (!gpu_of(device))
        return GVCU_ERROR_INVALID_DEVICE;
    int fault = fake_fault_at(&sc, "cuDevicePrimaryCtxRelease", (int)device);
    pthread_mutex_lock(&lock);
    if (!fault && device < FAKE_MAX_GPUS && context_refs[device] > 0)
        context_refs[device]--;
    pthread_mutex_unlock(&lock);
    return fault;
}

static gvcu_result fake_cuCtxPushCurrent(gvcu_context context)
{
    current = (int)((uintptr_t)context - 0x1000);
    return gpu_of(current) ? GVCU_SUCCESS : GVCU_ERROR_INVALID_VALUE;
}

static gvcu_result fake_cuCtxSetCurrent(gvcu_context context)
{
    current = context ? (int)((uintptr_t)context - 0x1000) : -1;
    return !context || gpu_of(current) ? GVCU_SUCCESS : GVCU_ERROR_INVALID_VALUE;
}

static gvcu_result fake_cuCtxPopCurrent(gvcu_context *context)
{
    if (context)
        *context = (gvcu_context)(uintptr_t)(0x1000 + current);
    current = -1;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    const fake_gpu *g = fake_cuda_current_gpu();
    if (!g)
        return GVCU_ERROR_INVALID_VALUE;
    unsigned long long taken =
        __atomic_load_n(&taken_by_others[current], __ATOMIC_RELAXED) ? g->taken_mib << 20 : 0;
    unsigned long long budget = g->free_mib << 20 > taken ? (g->free_mib << 20) - taken : 0;
    *free_bytes = budget > used_bytes[current] ? budget - used_bytes[current] : 0;
    *total_bytes = g->memory_mib << 20;
    return GVCU_SUCCESS;
}

/* Each allocation carries its size in front, for the free-memory account, and the GPU it is
 * on (tagged, so that a pointer into the middle of one is not taken for a start). */
#define OWNER_TAG 0xfa4e000000000000ull

static int owner_of(gvcu_deviceptr ptr)
{
    const size_t *block = (const size_t *)(uintptr_t)ptr - 2;
    return ptr && (block[1] & ~0xffffull) == OWNER_TAG ? (int)(block[1] & 0xffff) : -1;
}

static gvcu_result fake_cuMemAlloc(gvcu_deviceptr *ptr, size_t bytes)
{
    int fault = fake_cuda_fault("cuMemAlloc");
    if (fault)
        return fault;
    size_t free_b, total_b;
    gvcu_result rc = fake_cuMemGetInfo(&free_b, &total_b);
    if (rc != GVCU_SUCCESS)
        return rc;
    if (bytes == 0)
        return GVCU_ERROR_INVALID_VALUE;
    if (bytes > free_b)
        return GVCU_ERROR_OUT_OF_MEMORY;
    size_t *block = malloc(bytes + 16);
    if (!block)
        return GVCU_ERROR_OUT_OF_MEMORY;
    block[0] = bytes;
    block[1] = OWNER_TAG | (size_t)current;
    used_bytes[current] += bytes;
    __atomic_store_n(&taken_by_others[current], 1, __ATOMIC_RELAXED);
    *ptr = (gvcu_deviceptr)(uintptr_t)(block + 2);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuMemFree(gvcu_deviceptr ptr)
{
    if (!ptr)
        return GVCU_SUCCESS;
    int fault = fake_cuda_fault("cuMemFree");
    if (fault)
        return fault;
    size_t *block = (size_t *)(uintptr_t)ptr - 2;
    int owner = owner_of(ptr);
    if (owner >= 0)
        used_bytes[owner] -= block[0];
    block[1] = 0;
    free(block);
    return GVCU_SUCCESS;
}

/* Pinned copy buffers (1 MiB and more) each GPU's context holds: GPUs of one copy_shared group
 * holding them at once are copying at once, and share the group's link. */
#define COPY_BUFFER (1u << 20)
static int pinned[FAKE_MAX_GPUS];

/* Each pinned allocation carries the ordinal that made it (-1: none, or a small buffer). */
static gvcu_result fake_cuMemHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    (void)flags;
    long *block = calloc(1, (bytes ? bytes : 1) + 16);
    if (!block)
        return GVCU_ERROR_OUT_OF_MEMORY;
    block[0] = bytes >= COPY_BUFFER && current >= 0 && current < FAKE_MAX_GPUS ? current : -1;
    if (block[0] >= 0)
        __atomic_add_fetch(&pinned[block[0]], 1, __ATOMIC_RELAXED);
    *ptr = block + 2;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuMemFreeHost(void *ptr)
{
    if (!ptr)
        return GVCU_SUCCESS;
    long *block = (long *)ptr - 2;
    if (block[0] >= 0)
        __atomic_sub_fetch(&pinned[block[0]], 1, __ATOMIC_RELAXED);
    free(block);
    return GVCU_SUCCESS;
}

/* GPUs of g's copy_shared group copying now (at least g itself). */
static int sharing_link(const fake_gpu *g)
{
    int n = 0;
    for (int o = 0; g->copy_shared && o < FAKE_MAX_GPUS; o++) {
        const fake_gpu *other = gpu_of(o);
        n += other && other->copy_shared == g->copy_shared &&
             __atomic_load_n(&pinned[o], __ATOMIC_RELAXED) > 0;
    }
    return n > 1 ? n : 1;
}

static gvcu_result fake_cuMemHostGetDevicePointer(gvcu_deviceptr *device_ptr, void *host_ptr,
                                                  unsigned int flags)
{
    (void)flags;
    *device_ptr = (gvcu_deviceptr)(uintptr_t)host_ptr;
    return GVCU_SUCCESS;
}

static gvcu_result copy(void *dst, const void *src, size_t bytes, int device_local)
{
    const fake_gpu *g = fake_cuda_current_gpu();
    if (!g)
        return GVCU_ERROR_INVALID_VALUE;
    memmove(dst, src, bytes);
    /* Device-local copies at 40x the PCIe rate, about what DRAM is to the link on big GPUs;
     * host copies share the link with the other GPUs of a copy_shared group copying now. */
    double gbps = device_local ? 40 * g->copy_gbps : g->copy_gbps / sharing_link(g);
    fake_cuda_advance((double)bytes / (gbps * 1e9));
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuMemcpyHtoD(gvcu_deviceptr dst, const void *src, size_t bytes)
{
    return copy((void *)(uintptr_t)dst, src, bytes, 0);
}

static gvcu_result fake_cuMemcpyDtoH(void *dst, gvcu_deviceptr src, size_t bytes)
{
    return copy(dst, (const void *)(uintptr_t)src, bytes, 0);
}

static gvcu_result fake_cuMemcpyHtoDAsync(gvcu_deviceptr dst, const void *src, size_t bytes,
                                          gvcu_stream stream)
{
    (void)stream;
    int fault = fake_cuda_fault("cuMemcpyHtoDAsync");
    if (fault)
        return fault;
    return fake_cuMemcpyHtoD(dst, src, bytes);
}

static gvcu_result fake_cuMemcpyDtoHAsync(void *dst, gvcu_deviceptr src, size_t bytes,
                                          gvcu_stream stream)
{
    (void)stream;
    return fake_cuMemcpyDtoH(dst, src, bytes);
}

/* Peer access turned on from one GPU's context towards another: [from][to]. */
static int peer_on[FAKE_MAX_GPUS][FAKE_MAX_GPUS];

/* A GPU's copy rate to or from a peer, GB/s: the scenario's p2p_gbps, else 25 GB/s per active
 * NVLink (NVLink 4 per direction); 0 when it has no peer access at all. */
static double p2p_gbps(const fake_gpu *g)
{
    if (!g->peer)
        return 0;
    return g->p2p_gbps > 0 ? g->p2p_gbps : 25.0 * (g->nvlinks - g->nvlinks_down);
}

static gvcu_result fake_cuDeviceCanAccessPeer(int *can, gvcu_device device, gvcu_device peer)
{
    const fake_gpu *a = gpu_of(device), *b = gpu_of(peer);
    if (!a || !b || !can)
        return GVCU_ERROR_INVALID_DEVICE;
    *can = device != peer && p2p_gbps(a) > 0 && p2p_gbps(b) > 0 &&
           (!a->peer_group || !b->peer_group || a->peer_group == b->peer_group);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuCtxEnablePeerAccess(gvcu_context context, unsigned int flags)
{
    int peer = (int)((uintptr_t)context - 0x1000), can = 0;
    if (flags || current < 0 || current >= FAKE_MAX_GPUS || peer < 0 || peer >= FAKE_MAX_GPUS ||
        fake_cuDeviceCanAccessPeer(&can, current, peer) != GVCU_SUCCESS)
        return GVCU_ERROR_INVALID_VALUE;
    if (!can)
        return GVCU_ERROR_PEER_ACCESS_UNSUPPORTED;
    if (__atomic_exchange_n(&peer_on[current][peer], 1, __ATOMIC_RELAXED))
        return GVCU_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    return GVCU_SUCCESS;
}

/* Within a GPU at DRAM speed (copy()); between two, at the slower one's peer rate where peer
 * access is on from the current context, else staged through the host at half the PCIe rate. */
static gvcu_result fake_cuMemcpyDtoDAsync(gvcu_deviceptr dst, gvcu_deviceptr src, size_t bytes,
                                          gvcu_stream stream)
{
    (void)stream;
    int fault = fake_cuda_fault("cuMemcpyDtoDAsync");
    if (fault)
        return fault;
    int from = owner_of(src), to = owner_of(dst);
    if (from < 0 || to < 0 || from == to || current < 0)
        return copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, 1);
    const fake_gpu *a = gpu_of(from), *b = gpu_of(to);
    if (!a || !b)
        return GVCU_ERROR_INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    int direct = __atomic_load_n(&peer_on[current][current == from ? to : from], __ATOMIC_RELAXED);
    double gbps = direct ? fmin(p2p_gbps(a), p2p_gbps(b)) : fmin(a->copy_gbps, b->copy_gbps) / 2;
    fake_cuda_advance((double)bytes / (gbps * 1e9));
    return GVCU_SUCCESS;
}

/* A stream is the count of streams made on its GPU when it was made (1 for the first). */
static gvcu_result fake_cuStreamCreate(gvcu_stream *stream, unsigned int flags)
{
    (void)flags;
    static int made[FAKE_MAX_GPUS];
    int *serial = malloc(sizeof *serial);
    if (!serial)
        return GVCU_ERROR_OUT_OF_MEMORY;
    *serial = __atomic_add_fetch(&made[current >= 0 && current < FAKE_MAX_GPUS ? current : 0], 1,
                                 __ATOMIC_RELAXED);
    *stream = (gvcu_stream)serial;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuStreamDestroy(gvcu_stream stream)
{
    int fault = fake_cuda_fault("cuStreamDestroy");
    if (fault)
        return fault;
    free(stream);
    return GVCU_SUCCESS;
}

/* Streams another fake holds (a collective that never completes): events recorded on them stay
 * NOT_READY until released. */
#define MAX_HELD 64
static gvcu_stream held[MAX_HELD];

void fake_cuda_hold_stream(gvcu_stream stream, int hold)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_HELD; i++) {
        if (!hold && held[i] == stream)
            held[i] = NULL;
        else if (hold && !held[i]) {
            held[i] = stream;
            hold = 0;
        }
    }
    pthread_mutex_unlock(&lock);
}

static int is_held(gvcu_stream stream)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_HELD && stream; i++)
        found |= held[i] == stream;
    pthread_mutex_unlock(&lock);
    return found;
}

typedef struct fake_event {
    double when; /* the GPU clock at the record */
    gvcu_stream stream;
} fake_event;

static gvcu_result fake_cuEventCreate(gvcu_event *event, unsigned int flags)
{
    (void)flags;
    *event = (gvcu_event)calloc(1, sizeof(fake_event));
    return *event ? GVCU_SUCCESS : GVCU_ERROR_OUT_OF_MEMORY;
}

static gvcu_result fake_cuEventRecord(gvcu_event event, gvcu_stream stream)
{
    pthread_mutex_lock(&lock);
    ((fake_event *)event)->when =
        gpu_clock_s[current >= 0 && current < FAKE_MAX_GPUS ? current : 0];
    ((fake_event *)event)->stream = stream;
    pthread_mutex_unlock(&lock);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuEventQuery(gvcu_event event)
{
    if (!event)
        return GVCU_ERROR_INVALID_VALUE;
    int fault = fake_cuda_fault("cuEventQuery");
    if (fault)
        return fault;
    return is_held(((fake_event *)event)->stream) ? GVCU_ERROR_NOT_READY : GVCU_SUCCESS;
}

static gvcu_result fake_cuEventElapsedTime(float *ms, gvcu_event start, gvcu_event end)
{
    /* slow_timings, slow_streams: a moment when something else had the bus, for the first
     * intervals or the first streams' (the default stream, NULL, is none of those). */
    static int timed[FAKE_MAX_GPUS];
    const fake_gpu *g = fake_cuda_current_gpu();
    int slot = current >= 0 && current < FAKE_MAX_GPUS ? current : 0;
    const int *stream = (const int *)((fake_event *)end)->stream;
    double factor = g && (__atomic_fetch_add(&timed[slot], 1, __ATOMIC_RELAXED) < g->slow_timings ||
                          (stream && *stream <= g->slow_streams))
                        ? 2
                        : 1;
    *ms = (float)((((fake_event *)end)->when - ((fake_event *)start)->when) * 1e3 * factor);
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuEventDestroy(gvcu_event event)
{
    free(event);
    return GVCU_SUCCESS;
}

/* The kernels of lib/kernels/gv_kernels.cu, by name, on the host. */
static const char *const kernel_names[] = {
    "gv_fill_pattern",    "gv_check_pattern",    "gv_fill_random", "gv_gate",
    "gv_fill_collective", "gv_check_collective", "gv_matmul_f16",  "gv_matmul_f32",
    "gv_mem_step",        "gv_hash_words"};

static long long ecc_added[FAKE_MAX_GPUS][2];

long long fake_cuda_ecc_added(int index, int uncorrected)
{
    return index >= 0 && index < FAKE_MAX_GPUS
               ? __atomic_load_n(&ecc_added[index][uncorrected != 0], __ATOMIC_RELAXED)
               : 0;
}

/* gv_mem_step on the host, with the scenario's stuck bit and ECC errors. */
static void mem_step(const fake_gpu *g, void **params)
{
    uint64_t *p = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[0];
    uint64_t words = *(uint64_t *)params[1] * 2, seed = *(uint64_t *)params[4];
    int expect = *(int *)params[2], write = *(int *)params[3], down = *(int *)params[5];
    uint64_t *log = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[6];
    uint64_t stuck = g->mem_stuck >= 0 ? (uint64_t)g->mem_stuck / 8 : UINT64_MAX;
    for (uint64_t i = 0; i < words; i++) {
        uint64_t j = down ? words - 1 - i : i, a = (uint64_t)(uintptr_t)&p[j];
        uint64_t got = p[j] | (j == stuck ? 1ull << (g->mem_stuck_bit & 63) : 0);
        uint64_t want = gv_mem_word(expect, seed, a);
        if (expect && got != want) {
            uint64_t k = log[0]++;
            if (k < GV_MEM_LOG) {
                log[1 + 3 * k] = a;
                log[2 + 3 * k] = want;
                log[3 + 3 * k] = got;
            }
        }
        if (write)
            p[j] = gv_mem_word(write, seed, a);
    }
    int index = (int)(g - sc.gpus);
    __atomic_store_n(&ecc_added[index][0], g->mem_ecc_cor, __ATOMIC_RELAXED);
    __atomic_store_n(&ecc_added[index][1], g->mem_ecc_unc, __ATOMIC_RELAXED);
    fake_cuda_advance((double)words * 8 * (!!expect + !!write) / (g->copy_gbps * 40 * 1e9));
}

static gvcu_result fake_cuModuleLoadData(gvcu_module *module, const void *image)
{
    const char *ptx = image;
    if (!ptx || !strstr(ptx, ".version") || !strstr(ptx, ".target"))
        return GVCU_ERROR_INVALID_PTX;
    *module = (gvcu_module)image;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuModuleUnload(gvcu_module module)
{
    (void)module;
    return GVCU_SUCCESS;
}

static gvcu_result fake_cuModuleGetFunction(gvcu_function *function, gvcu_module module,
                                            const char *name)
{
    char entry[96];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (!strstr((const char *)module, entry))
        return GVCU_ERROR_NOT_FOUND;
    for (size_t i = 0; i < sizeof kernel_names / sizeof *kernel_names; i++)
        if (!strcmp(kernel_names[i], name)) {
            *function = (gvcu_function)(uintptr_t)(i + 1);
            return GVCU_SUCCESS;
        }
    return GVCU_ERROR_NOT_FOUND;
}

static gvcu_result fake_cuLaunchKernel(gvcu_function function, unsigned int grid_x,
                                       unsigned int grid_y, unsigned int grid_z,
                                       unsigned int block_x, unsigned int block_y,
                                       unsigned int block_z, unsigned int shared_bytes,
                                       gvcu_stream stream, void **params, void **extra)
{
    (void)grid_x, (void)grid_y, (void)grid_z, (void)block_x, (void)block_y, (void)block_z;
    int fault = fake_cuda_fault("cuLaunchKernel");
    if (fault)
        return fault;
    (void)shared_bytes, (void)stream, (void)extra;
    const fake_gpu *g = fake_cuda_current_gpu();
    if (!g || !params)
        return GVCU_ERROR_INVALID_VALUE;
    if (g->kernel_wall_ms > 0) {
        struct timespec nap = {g->kernel_wall_ms / 1000, (g->kernel_wall_ms % 1000) * 1000000L};
        nanosleep(&nap, NULL);
    }
    switch ((uintptr_t)function) {
    case 1: { /* gv_fill_pattern(p, n, seed) */
        uint64_t *p = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1], seed = *(uint64_t *)params[2];
        for (uint64_t i = 0; i < n; i++)
            p[i] = gv_pattern_word(seed, i);
        return GVCU_SUCCESS;
    }
    case 2: { /* gv_check_pattern(p, n, seed, errors) */
        const uint64_t *p = (const uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1], seed = *(uint64_t *)params[2];
        uint64_t *errors = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[3];
        for (uint64_t i = 0; i < n; i++)
            *errors += p[i] != gv_pattern_word(seed, i);
        return GVCU_SUCCESS;
    }
    case 3: { /* gv_fill_random(p, n, kind, seed) */
        unsigned char *p = (unsigned char *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1], seed = *(uint64_t *)params[3];
        int kind = *(int *)params[2];
        size_t size = kind == GV_BITS_FP32 ? 4 : kind == GV_BITS_FP8_E4M3 ? 1 : 2;
        /* A loop per element size: the result fingerprint fills 8M elements a product. */
        for (uint64_t i = 0; size == 1 && i < n; i++)
            p[i] = (unsigned char)gv_random_bits(kind, seed, i);
        for (uint64_t i = 0; size == 2 && i < n; i++) {
            uint16_t bits = (uint16_t)gv_random_bits(kind, seed, i);
            memcpy(p + i * 2, &bits, 2);
        }
        for (uint64_t i = 0; size == 4 && i < n; i++) {
            uint32_t bits = gv_random_bits(kind, seed, i);
            memcpy(p + i * 4, &bits, 4);
        }
        return GVCU_SUCCESS;
    }
    case 4: /* gv_gate: the fake runs work as it is queued, so the gate is already open */
        return GVCU_SUCCESS;
    case 5: { /* gv_fill_collective(p, n, rank, seed) */
        float *p = (float *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1], seed = *(uint64_t *)params[3];
        int rank = *(int *)params[2];
        for (uint64_t i = 0; i < n; i++)
            p[i] = rank < 0 ? NAN : gv_collective_value(seed, (uint32_t)rank, i);
        return GVCU_SUCCESS;
    }
    case 6: { /* gv_check_collective(p, n, coll, nranks, rank, count, seed, errors) */
        const float *p = (const float *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1], count = *(uint64_t *)params[5];
        int coll = *(int *)params[2];
        uint32_t nranks = *(uint32_t *)params[3], rank = *(uint32_t *)params[4];
        uint64_t seed = *(uint64_t *)params[6];
        uint64_t *errors = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[7];
        for (uint64_t j = 0; j < n; j++) {
            float want = gv_collective_expected(coll, seed, nranks, rank, count, j);
            *errors += memcmp(&p[j], &want, sizeof want) != 0;
        }
        return GVCU_SUCCESS;
    }
    case 7:   /* gv_matmul_f16(a, b, c, m, n, k) */
    case 8: { /* gv_matmul_f32 */
        int half = (uintptr_t)function == 7;
        const unsigned char *a = (const unsigned char *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        const unsigned char *b = (const unsigned char *)(uintptr_t) * (gvcu_deviceptr *)params[1];
        float *c = (float *)(uintptr_t) * (gvcu_deviceptr *)params[2];
        uint32_t m = *(uint32_t *)params[3], n = *(uint32_t *)params[4], k = *(uint32_t *)params[5];
        int kind = half ? GV_BITS_FP16 : GV_BITS_FP32;
        size_t size = half ? 2 : 4;
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < m; i++) {
                double sum = 0;
                for (uint32_t q = 0; q < k; q++) {
                    uint32_t x = 0, y = 0;
                    memcpy(&x, a + ((size_t)i * k + q) * size, size);
                    memcpy(&y, b + ((size_t)j * k + q) * size, size);
                    sum += gv_bits_to_double(kind, x) * gv_bits_to_double(kind, y);
                }
                c[(size_t)j * m + i] = (float)(sum + g->gemm_corrupt);
            }
        fake_cuda_advance(2.0 * m * n * k / (g->gemm_tflops * 1e12));
        return GVCU_SUCCESS;
    }
    case 9: /* gv_mem_step(p, pairs, expect, write, seed, descending, log) */
        mem_step(g, params);
        return GVCU_SUCCESS;
    case 10: { /* gv_hash_words(p, n, sum) */
        const uint64_t *p = (const uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[0];
        uint64_t n = *(uint64_t *)params[1];
        uint64_t *sum = (uint64_t *)(uintptr_t) * (gvcu_deviceptr *)params[2];
        for (uint64_t i = 0; i < n; i++)
            *sum += gv_hash_word(p[i], i);
        return GVCU_SUCCESS;
    }
    default:
        return GVCU_ERROR_INVALID_VALUE;
    }
}
