/* What the text-parsing fuzz targets share: the input as a NUL-terminated string, and one
 * context for the whole run. */
#ifndef GV_FUZZ_TEXT_H
#define GV_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (free it); a NUL inside ends the text there, as a reader would. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

static inline gv_ctx *fuzz_ctx(void)
{
    static gv_ctx *ctx;
    if (!ctx && gv_ctx_create(NULL, &ctx) != GV_OK)
        abort();
    return ctx;
}

#endif
