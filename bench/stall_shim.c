/* SPDX-License-Identifier: Apache-2.0 */
/* A libcuda.so.1 in front of the real driver that makes one GPU's queued work look as if it
 * never completes, on a real GPU node: cuEventQuery answers CUDA_ERROR_NOT_READY for ever on
 * GPU $GV_STALL_GPU once $GV_STALL_AFTER seconds have passed since this process first queried
 * it (0: from the first query). With $GV_SLOW_MS set, the GPU is slow instead of stopped: each
 * wait that completes is answered that many ms late, as on a GPU throttled to a crawl. Every
 * other call, and every other GPU, is the real driver's. With $GV_CUINIT_FAULT set to "crash"
 * or "hang", cuInit segfaults or never returns instead, in every process that calls it (a
 * broken driver's start).
 * gpuverify loads it through GPUVERIFY_CUDA_LIBRARY; the real driver is $GV_STALL_REAL
 * (default libcuda.so.1 from the loader's path). NCCL and cuBLASLt load the real driver
 * themselves: only gpuverify's own waits see the stall, as they would a GPU that stopped.
 * A bench tool (bench/run_hang_named.sh), never shipped. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*get_proc_v2_fn)(const char *, void **, int, uint64_t, int *);
typedef int (*get_proc_fn)(const char *, void **, int, uint64_t);
typedef int (*event_query_fn)(void *);
typedef int (*event_create_fn)(void **, unsigned);
typedef int (*ctx_get_device_fn)(int *);

#define NOT_READY 600 /* CUDA_ERROR_NOT_READY */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *real;
static get_proc_v2_fn real_v2;
static get_proc_fn real_v1;
static event_query_fn real_query;
static event_create_fn real_create;
static ctx_get_device_fn real_get_device;
static int stall_gpu = -1;
static double stall_after;
static long slow_ms;
static long long first_query_us; /* atomic */
/* Each event's GPU, the current one where it was made: NCCL's waits query every GPU's event
 * from one thread, whatever context is current. */
#define MAX_EVENTS 4096
static struct {
    void *event;
    int device;
} events[MAX_EVENTS];
static int event_count; /* atomic */

static int created_event(void **event, unsigned flags)
{
    int rc = real_create(event, flags);
    int device = -1;
    if (rc == 0 && real_get_device && real_get_device(&device) == 0) {
        int i = __atomic_fetch_add(&event_count, 1, __ATOMIC_RELAXED);
        if (i < MAX_EVENTS) {
            events[i].device = device;
            __atomic_store_n(&events[i].event, *event, __ATOMIC_RELEASE);
        }
    }
    return rc;
}

static int device_of(void *event)
{
    int n = __atomic_load_n(&event_count, __ATOMIC_RELAXED);
    for (int i = (n < MAX_EVENTS ? n : MAX_EVENTS) - 1; i >= 0; i--)
        if (__atomic_load_n(&events[i].event, __ATOMIC_ACQUIRE) == event)
            return events[i].device;
    int device = -1;
    return real_get_device && real_get_device(&device) == 0 ? device : -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void load(void)
{
    const char *path = getenv("GV_STALL_REAL");
    real = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!real)
        return;
    real_v2 = (get_proc_v2_fn)dlsym(real, "cuGetProcAddress_v2");
    real_v1 = (get_proc_fn)dlsym(real, "cuGetProcAddress");
    const char *gpu = getenv("GV_STALL_GPU"), *after = getenv("GV_STALL_AFTER");
    stall_gpu = gpu ? atoi(gpu) : -1;
    stall_after = after ? atof(after) : 0;
    const char *slow = getenv("GV_SLOW_MS");
    slow_ms = slow ? atol(slow) : 0;
    if (real_v2) {
        real_v2("cuEventQuery", (void **)&real_query, 12000, 0, NULL);
        real_v2("cuEventCreate", (void **)&real_create, 12000, 0, NULL);
        real_v2("cuCtxGetDevice", (void **)&real_get_device, 12000, 0, NULL);
    }
}

static int stalled_query(void *event)
{
    if (device_of(event) == stall_gpu) {
        long long now = (long long)(now_s() * 1e6), first = 0;
        __atomic_compare_exchange_n(&first_query_us, &first, now, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
        if (now - __atomic_load_n(&first_query_us, __ATOMIC_RELAXED) >= stall_after * 1e6) {
            if (slow_ms <= 0)
                return NOT_READY;
            int rc = real_query(event);
            struct timespec late = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
            if (rc == 0)
                nanosleep(&late, NULL);
            return rc;
        }
    }
    return real_query(event);
}

static int faulty_init(unsigned flags)
{
    (void)flags;
    if (!strcmp(getenv("GV_CUINIT_FAULT"), "crash"))
        raise(SIGSEGV);
    for (;;)
        pause();
}

static void swap_in(const char *symbol, void **pfn)
{
    const char *fault = getenv("GV_CUINIT_FAULT");
    if (*pfn && fault && *fault && !strcmp(symbol, "cuInit"))
        *pfn = (void *)faulty_init;
    if (*pfn && real_query && !strcmp(symbol, "cuEventQuery"))
        *pfn = (void *)stalled_query;
    if (*pfn && real_create && !strcmp(symbol, "cuEventCreate"))
        *pfn = (void *)created_event;
}

__attribute__((visibility("default"))) int
cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status)
{
    pthread_once(&once, load);
    if (!real_v2)
        return 34; /* CUDA_ERROR_STUB_LIBRARY */
    int rc = real_v2(symbol, pfn, version, flags, status);
    if (rc == 0)
        swap_in(symbol, pfn);
    return rc;
}

__attribute__((visibility("default"))) int cuGetProcAddress(const char *symbol, void **pfn,
                                                            int version, uint64_t flags)
{
    pthread_once(&once, load);
    if (!real_v1)
        return 34;
    int rc = real_v1(symbol, pfn, version, flags);
    if (rc == 0)
        swap_in(symbol, pfn);
    return rc;
}
