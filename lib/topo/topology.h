/* SPDX-License-Identifier: Apache-2.0 */
/* gv_topology's builder for the library's own callers, and the object it builds. */
#ifndef GV_TOPO_TOPOLOGY_H
#define GV_TOPO_TOPOLOGY_H

#include "facts/facts.h"
#include "gpuverify/gv_topology.h"

/* gv_topology's deadline in gpuverify-worker, in units of the context's deadline
 * (worker/call.h), after starting NVML for a live topology; topo.* get the same. */
#define GV_DEADLINE_TOPOLOGY 1.0

struct gv_topo {
    gv_topo_info info;
    gv_topo_device *devices;
    size_t count;
    gv_topo_link *links; /* count x count */
};

/* The NCCL GDR level `given` as text ("PXB", NCCL's 0-5), NULL: $NCCL_NET_GDR_LEVEL, else PXB;
 * GV_ERR_INVALID_ARG naming a text NCCL would not read. */
gv_status gv_topo_gdr_level(gv_ctx *ctx, const char *given, int32_t *level);

/* Builds a topology from xml (NULL: live hwloc) at an NCCL GDR level (enum gv_path) in this
 * process. Live, facts supplies NVML and sysfs (NULL: gathered here without CUDA); a gv_run
 * passes the facts it gathered already. */
gv_status gv_topo_build(gv_ctx *ctx, const char *xml, int32_t gdr_level, const gv_facts *facts,
                        gv_topo **out);

#endif
