/* gv_topology's builder for the library's own callers. */
#ifndef GV_TOPO_TOPOLOGY_H
#define GV_TOPO_TOPOLOGY_H

#include "checks/facts.h"
#include "gpuverify/gv_topology.h"

/* Builds a topology from xml (NULL: live hwloc) at the NCCL GDR level text (NULL: the
 * environment's, else PXB). Live, facts supplies NVML and sysfs (NULL: gathered here without
 * CUDA); a gv_run passes the facts it gathered already. */
gv_status gv_topo_build(gv_ctx *ctx, const char *xml, const char *gdr_level, const gv_facts *facts,
                        gv_topo **out);

#endif
