/* SPDX-License-Identifier: Apache-2.0 */
/* Path classes between devices of an hwloc tree, with nvidia-smi's `topo -m` semantics
 * (docs/topology.md, "Path classes"), and NCCL's GPUDirect RDMA level. */
#ifndef GV_TOPO_PATHS_H
#define GV_TOPO_PATHS_H

#include <hwloc.h>
#include <stdint.h>

/* The class between two PCI device objects (GV_PATH_SELF when they are the same). */
int32_t gv_path_between(hwloc_obj_t a, hwloc_obj_t b);
/* An I/O object's locality: its first non-I/O ancestor (a Package, Group, Machine...). */
hwloc_obj_t gv_path_locality(hwloc_obj_t io);
/* The NUMA node of that locality when it has exactly one, else -1. */
int gv_path_numa_node(hwloc_obj_t io);

/* NCCL_NET_GDR_LEVEL text: LOC, PIX, PXB, PHB, SYS or NCCL's legacy numbers 0-5 (case-blind).
 * Returns 0 and the enum gv_path in *level, -1 when the text is none of those. */
int gv_path_parse_gdr_level(const char *text, int32_t *level);
/* Whether NCCL uses GPUDirect RDMA over a path of this class at this level. NCCL has no NODE:
 * its PHB is the CPU's NUMA node, so PHB covers our NODE. */
int gv_path_within(int32_t path, int32_t level);

#endif
