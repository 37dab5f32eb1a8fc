/* SPDX-License-Identifier: Apache-2.0 */
/* Run-time loading of NVIDIA (and RDMA) libraries: the search order, the record of what was
 * tried, and symbol tables resolved into vtables once per process and file. */
#ifndef GV_BACKENDS_LOADER_H
#define GV_BACKENDS_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "core/context.h"

/* A library and its sonames, newest first. "%d" in a soname is replaced by each candidate CUDA
 * major: the driver's, then the one before (libcublasLt.so.13 before .12 on an r580 driver). */
typedef struct gv_lib_spec {
    int32_t library; /* enum gv_library */
    const char *name;
    const char *sonames[4];
} gv_lib_spec;

/* NULL for a value outside enum gv_library. */
const gv_lib_spec *gv_lib_spec_of(int32_t library);

/* Loads a library: explicit_path if given (only it), else dir/<soname> if dir is given (only
 * there), else a copy already in the process (RTLD_NOLOAD), else the system's search by soname.
 * cuda_major <= 0 means unknown (13 and 12 are tried). Fills slot; never fails otherwise. */
void gv_loader_open(const gv_lib_spec *spec, const char *explicit_path, const char *dir,
                    int cuda_major, gv_lib_slot *slot);

/* One entry of a symbol table generated from a *.def list. */
typedef struct gv_symbol {
    const char *name;     /* newest exported name */
    const char *fallback; /* older name, or the same */
    int cuda_version;     /* ABI version for cuGetProcAddress, 0 when unused */
    int required;
    size_t offset; /* of the function pointer in the vtable */
} gv_symbol;

/* Finds one symbol; NULL when absent. */
typedef void *(*gv_resolver)(void *dl, const gv_symbol *symbol);

/* Resolves a symbol table into a vtable, once per (dl, table) for the whole process, under a
 * lock. NULL when a required entry is missing; then `missing` names it. */
const void *gv_loader_vtable(void *dl, const gv_symbol *symbols, size_t count, size_t vtable_size,
                             gv_resolver resolve, char *missing, size_t missing_cap);

/* The dlsym resolver: newest name, then the fallback. */
void *gv_resolve_dlsym(void *dl, const gv_symbol *symbol);

#endif
