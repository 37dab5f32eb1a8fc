/* SPDX-License-Identifier: Apache-2.0 */
#include "core/hold_owner.h"

#include <stdint.h>
#include <stdio.h>

void gv_hold_owner_text(const void *owner, char *out, size_t cap)
{
    if (owner)
        snprintf(out, cap, "%jx", (uintmax_t)(uintptr_t)owner);
    else if (cap)
        out[0] = '\0';
}
