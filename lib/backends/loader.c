/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "backends/loader.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "gpuverify/gv_driver.h"

static const gv_lib_spec specs[] = {
    {GV_LIB_CUDA, "libcuda", {"libcuda.so.1", "libcuda.so", NULL, NULL}},
    {GV_LIB_NVML, "libnvidia-ml", {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL, NULL}},
    {GV_LIB_CUBLASLT, "libcublasLt", {"libcublasLt.so.%d", NULL, NULL, NULL}},
    {GV_LIB_CUDNN, "libcudnn", {"libcudnn.so.9", "libcudnn.so.8", NULL, NULL}},
    {GV_LIB_NCCL, "libnccl", {"libnccl.so.2", NULL, NULL, NULL}},
    {GV_LIB_IBVERBS, "libibverbs", {"libibverbs.so.1", NULL, NULL, NULL}},
};

const gv_lib_spec *gv_lib_spec_of(int32_t library)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].library == library)
            return &specs[i];
    return NULL;
}

/* "libcuda.so.580.95.05" -> "580.95.05"; "" when the name carries only a major. */
static void version_from_file(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *so = strstr(base, ".so.");
    if (so && strchr(so + 4, '.'))
        snprintf(out, cap, "%s", so + 4);
}

static void record_loaded(gv_lib_slot *slot, void *dl, const char *name)
{
    slot->dl = dl;
    slot->state = GV_LIBSTATE_LOADED;
    struct link_map *lm = NULL;
    const char *file = name;
    if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name)
        file = lm->l_name;
    char *real = realpath(file, NULL);
    snprintf(slot->path, sizeof slot->path, "%s", real ? real : file);
    free(real);
    version_from_file(slot->path, slot->version, sizeof slot->version);
}

static int try_open(gv_lib_slot *slot, const char *file, int flags)
{
    void *dl = dlopen(file, RTLD_NOW | RTLD_LOCAL | flags);
    if (dl) {
        record_loaded(slot, dl, file);
        return 1;
    }
    if (!(flags & RTLD_NOLOAD)) {
        const char *e = dlerror();
        snprintf(slot->detail, sizeof slot->detail, "%s", e ? e : "dlopen failed");
    }
    return 0;
}

/* Expands the soname list: "%d" once per candidate CUDA major. */
static size_t candidates(const gv_lib_spec *spec, int cuda_major, char out[][64], size_t cap)
{
    int majors[2] = {cuda_major > 0 ? cuda_major : 13, cuda_major > 0 ? cuda_major - 1 : 12};
    size_t n = 0;
    for (size_t i = 0; i < 4 && spec->sonames[i]; i++) {
        if (strstr(spec->sonames[i], "%d")) {
            for (size_t m = 0; m < 2 && n < cap; m++) {
                /* The format is one of ours, from the table above. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
                snprintf(out[n++], 64, spec->sonames[i], majors[m]);
#pragma GCC diagnostic pop
            }
        } else if (n < cap) {
            snprintf(out[n++], 64, "%s", spec->sonames[i]);
        }
    }
    return n;
}

void gv_loader_open(const gv_lib_spec *spec, const char *explicit_path, const char *dir,
                    int cuda_major, gv_lib_slot *slot)
{
    memset(slot, 0, sizeof *slot);
    slot->attempted = 1;
    slot->state = GV_LIBSTATE_ABSENT;
    if (explicit_path && *explicit_path) {
        gv_append(slot->tried, sizeof slot->tried, "; ", explicit_path);
        if (try_open(slot, explicit_path, 0))
            return;
        struct stat st;
        if (stat(explicit_path, &st) == 0)
            slot->state = GV_LIBSTATE_BROKEN; /* there, but not a loadable library */
        return;
    }
    char names[8][64];
    size_t n = candidates(spec, cuda_major, names, 8);
    char file[4096];
    for (size_t i = 0; i < n; i++) {
        if (dir && *dir) {
            snprintf(file, sizeof file, "%s/%s", dir, names[i]);
            gv_append(slot->tried, sizeof slot->tried, "; ", file);
            if (try_open(slot, file, 0))
                return;
            continue;
        }
        if (try_open(slot, names[i], RTLD_NOLOAD))
            return;
        gv_append(slot->tried, sizeof slot->tried, "; ", names[i]);
        if (try_open(slot, names[i], 0))
            return;
    }
}

void *gv_resolve_dlsym(void *dl, const gv_symbol *symbol)
{
    void *p = dlsym(dl, symbol->name);
    if (!p && symbol->fallback && strcmp(symbol->fallback, symbol->name) != 0)
        p = dlsym(dl, symbol->fallback);
    return p;
}

/* Resolved vtables, one per (library handle, symbol table), kept for the life of the process
 * like the libraries themselves. */
struct vtable_entry {
    void *dl;
    const gv_symbol *symbols;
    void *vtable; /* NULL when a required entry was missing */
    char missing[128];
};

#define GV_VTABLE_CACHE 32
static struct vtable_entry cache[GV_VTABLE_CACHE];
static size_t cache_used;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void resolve_into(struct vtable_entry *e, const gv_symbol *symbols, size_t count,
                         size_t vtable_size, gv_resolver resolve)
{
    char *vt = calloc(1, vtable_size);
    if (!vt) {
        snprintf(e->missing, sizeof e->missing, "(out of memory)");
        return;
    }
    for (size_t i = 0; i < count; i++) {
        void *fn = resolve(e->dl, &symbols[i]);
        if (!fn && symbols[i].required) {
            snprintf(e->missing, sizeof e->missing, "%s", symbols[i].name);
            free(vt);
            return;
        }
        memcpy(vt + symbols[i].offset, &fn, sizeof fn);
    }
    e->vtable = vt;
}

const void *gv_loader_vtable(void *dl, const gv_symbol *symbols, size_t count, size_t vtable_size,
                             gv_resolver resolve, char *missing, size_t missing_cap)
{
    pthread_mutex_lock(&cache_lock);
    struct vtable_entry *e = NULL;
    for (size_t i = 0; i < cache_used; i++)
        if (cache[i].dl == dl && cache[i].symbols == symbols)
            e = &cache[i];
    if (!e && cache_used < GV_VTABLE_CACHE) {
        e = &cache[cache_used++];
        e->dl = dl;
        e->symbols = symbols;
        resolve_into(e, symbols, count, vtable_size, resolve);
    }
    const void *vt = e ? e->vtable : NULL;
    snprintf(missing, missing_cap, "%s", e ? e->missing : "(too many libraries loaded)");
    pthread_mutex_unlock(&cache_lock);
    return vt;
}
