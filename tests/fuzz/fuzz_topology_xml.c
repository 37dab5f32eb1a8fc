/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: an `lstopo --of xml` file through gv_topology (hwloc's XML reader, then our
 * GPU/NIC locality over whatever it built), with the accessors walked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gv_ctx *ctx;
    static char path[64];
    if (!ctx) {
        gv_ctx_opts o = GV_CTX_OPTS_INIT;
        o.live_libraries = 0;
        snprintf(path, sizeof path, "/tmp/gv-fuzz-topo-%d.xml", (int)getpid());
        if (gv_ctx_create(&o, &ctx) != GV_OK)
            abort();
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    o.xml_path = path;
    gv_topo *t = NULL;
    if (gv_topology(ctx, &o, &t) == GV_OK) {
        gv_topo_info info = GV_TOPO_INFO_INIT;
        gv_topo_summary(t, &info);
        for (uint32_t i = 0; i < gv_topo_device_count(t); i++) {
            gv_topo_device d = GV_TOPO_DEVICE_INIT;
            gv_topo_device_at(t, i, &d);
            for (uint32_t j = 0; j < gv_topo_device_count(t); j++) {
                gv_topo_link l = GV_TOPO_LINK_INIT;
                gv_topo_link_at(t, i, j, &l);
            }
        }
        gv_topo_free(t);
    }
    return 0;
}
