/* SPDX-License-Identifier: Apache-2.0 */
/* Copying versioned structs across the ABI: the caller's struct_size says how much of the
 * layout it knows; we read and write only that much (docs/ABI.md, "Versioned structs"). */
#include <stdint.h>
#include <string.h>

#include "core/context.h"

/* A struct_size above this is garbage (an uninitialized struct), not a newer layout. */
#define GV_STRUCT_SIZE_LIMIT 65536u

/* Whether a caller's struct_size, short of ours, ends inside one of our fields: copied, the
 * field would be half the caller's bytes and half a default (a pointer made of two halves is
 * one the library would follow). Every field of 8 bytes is 8-aligned, so a layout that ends on
 * an 8-byte boundary, or where the first released one ends, splits none. */
static int splits_a_field(size_t size, size_t ours, size_t min_size)
{
    return size < ours && size != min_size && size % 8 != 0;
}

gv_status gv_copy_in(void *dst, size_t dst_size, const void *src, size_t min_size,
                     const void *defaults)
{
    uint32_t size;
    memcpy(&size, src, sizeof size);
    if (size < min_size)
        return GV_ERR_VERSION;
    if (size > GV_STRUCT_SIZE_LIMIT || splits_a_field(size, dst_size, min_size))
        return GV_ERR_INVALID_ARG;
    memcpy(dst, defaults, dst_size);
    memcpy(dst, src, size < dst_size ? size : dst_size);
    return GV_OK;
}

gv_status gv_opts_fill(void *opts, size_t size, const void *defaults, size_t ours, size_t min_size)
{
    if (!opts || size > GV_STRUCT_SIZE_LIMIT)
        return GV_ERR_INVALID_ARG;
    if (size < min_size)
        return GV_ERR_VERSION;
    if (splits_a_field(size, ours, min_size))
        return GV_ERR_INVALID_ARG;
    memset(opts, 0, size);
    memcpy(opts, defaults, size < ours ? size : ours);
    uint32_t struct_size = (uint32_t)size;
    memcpy(opts, &struct_size, sizeof struct_size);
    return GV_OK;
}

gv_status gv_opts_in(gv_ctx *ctx, const char *type, void *dst, size_t dst_size, const void *src,
                     size_t min_size, const void *defaults)
{
    if (!src) {
        memcpy(dst, defaults, dst_size);
        return GV_OK;
    }
    gv_status st = gv_copy_in(dst, dst_size, src, min_size, defaults);
    if (st != GV_OK) {
        uint32_t size;
        memcpy(&size, src, sizeof size);
        return gv_fail(ctx, st, "%s.struct_size %u is not a valid layout", type, (unsigned)size);
    }
    return GV_OK;
}

gv_status gv_out_known(gv_ctx *ctx, const char *type, const void *out, size_t min_size)
{
    uint32_t size;
    memcpy(&size, out, sizeof size);
    if (size < min_size)
        return gv_fail(ctx, GV_ERR_VERSION, "%s.struct_size %u < %zu", type, (unsigned)size,
                       min_size);
    return GV_OK;
}

gv_status gv_copy_out(void *dst, const void *src, size_t src_size, size_t min_size)
{
    uint32_t size;
    memcpy(&size, dst, sizeof size);
    if (size < min_size)
        return GV_ERR_VERSION;
    if (size > GV_STRUCT_SIZE_LIMIT)
        return GV_ERR_INVALID_ARG;
    memcpy(dst, src, size < src_size ? size : src_size);
    memcpy(dst, &size, sizeof size); /* the caller's struct keeps its own size */
    return GV_OK;
}
