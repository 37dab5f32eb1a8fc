/* SPDX-License-Identifier: Apache-2.0 */
/* Per-context library slots and the public gv_library_status. */
#ifndef GV_BACKENDS_LIBRARIES_H
#define GV_BACKENDS_LIBRARIES_H

#include "backends/loader.h"
#include "gpuverify/gv_context.h"

/* The context's slot for a library, loading it on first use (or marking it NOT_QUERIED when
 * live libraries are off). library must be a valid enum gv_library value. */
gv_lib_slot *gv_library_slot(gv_ctx *ctx, int32_t library);

/* The library's vtable from a symbol table, resolved once per process (loader.h); NULL when the
 * library is not loaded or lacks a required entry, which then marks the slot BROKEN. */
const void *gv_library_vtable(gv_ctx *ctx, int32_t library, const gv_symbol *symbols, size_t count,
                              size_t vtable_size, gv_resolver resolve);

#endif
