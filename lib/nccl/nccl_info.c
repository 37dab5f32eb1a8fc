/* SPDX-License-Identifier: Apache-2.0 */
/* Text about the NCCL in use: its version and the settings that steer it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "nccl/nccl.h"
#include "rdma/rdma.h"

void gv_nccl_settings_text(gv_ctx *ctx, char *out, size_t cap)
{
    /* NCCL's settings reader (lib/rdma/nccl_env.c) knows the files and their precedence. */
    gv_rdma_report r;
    memset(&r, 0, sizeof r);
    gv_rdma_read_nccl(ctx->sysroot, 1, &r);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r.setting_count; i++) {
        const gv_rdma_setting *s = &r.settings[i];
        if (!s->set)
            continue;
        int w = snprintf(out + used, cap - used, "%s%s=%s (%s)", used ? "; " : "", s->name,
                         s->value, s->source);
        if (w < 0 || used + (size_t)w >= cap)
            break;
        used += (size_t)w;
    }
    free(r.settings);
    if (!used)
        snprintf(out, cap, "none set: NCCL chooses its algorithms, protocols and transports");
}
