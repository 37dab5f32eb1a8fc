/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: GPU/NIC/NUMA topology through hwloc. Which NIC is closest to which GPU, on which
 * NUMA node and CPUs, and the path class of every pair with nvidia-smi's `topo -m` semantics.
 *
 * A topology is built once (live from this machine, or from an `lstopo --of xml` file of any
 * node) and read through accessors; it holds no hwloc state and is freed with gv_topo_free.
 * Devices are the NVIDIA GPUs (PCI bus order) followed by the RDMA NICs (name order). */
#ifndef GPUVERIFY_GV_TOPOLOGY_H
#define GPUVERIFY_GV_TOPOLOGY_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Path classes, nearest first (nvidia-smi's legend). Append-only. */
enum gv_path {
    GV_PATH_UNKNOWN = 0, /* a device hwloc does not know (filtered, 32-bit PCI domain) */
    GV_PATH_SELF = 1,    /* "X" */
    GV_PATH_NVLINK = 2,  /* "NV#": a bonded set of NVLinks (gv_topo_link.nvlinks) */
    GV_PATH_PIX = 3,     /* at most one PCIe switch (or root port) between them */
    GV_PATH_PXB = 4,     /* several PCIe bridges, no host bridge */
    GV_PATH_PHB = 5,     /* through a PCIe host bridge (the CPU) */
    GV_PATH_NODE = 6,    /* between host bridges of one NUMA node */
    GV_PATH_SYS = 7      /* across the interconnect between NUMA nodes (UPI, xGMI) */
};

/* "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"; "UNKNOWN" otherwise. Static, never NULL. */
GV_API const char *gv_path_name(int32_t path);

enum gv_topo_kind { GV_TOPO_GPU = 0, GV_TOPO_NIC = 1 };

typedef struct gv_topo_opts {
    uint32_t struct_size;
    uint32_t flags;       /* reserved, must be 0 */
    const char *xml_path; /* NULL: this machine (live hwloc); else an hwloc 2.x XML file */
    /* The farthest class at which NCCL uses GPUDirect RDMA: "PIX", "PXB", "PHB", "SYS" or
     * NCCL's legacy 0-4. NULL: $NCCL_NET_GDR_LEVEL, else "PXB" (NCCL's default). */
    const char *gdr_level;
} gv_topo_opts;

#define GV_TOPO_OPTS_INIT GV_STRUCT_INIT(gv_topo_opts)

typedef struct gv_topo gv_topo;

typedef struct gv_topo_info {
    uint32_t struct_size;
    uint32_t gpu_count;
    uint32_t nic_count;
    uint32_t numa_nodes; /* NUMA nodes of the machine */
    uint32_t packages;
    uint32_t pus;      /* logical CPUs */
    int32_t live;      /* 1: this machine; 0: an XML file */
    int32_t gdr_level; /* enum gv_path: the level in force (PHB covers NODE: NCCL has no NODE) */
    char source[512];  /* "live" or the XML path */
} gv_topo_info;

#define GV_TOPO_INFO_INIT GV_STRUCT_INIT(gv_topo_info)

typedef struct gv_topo_device {
    uint32_t struct_size;
    int32_t kind;        /* enum gv_topo_kind */
    char label[16];      /* "GPU0", "NIC1": the matrix's row and column names */
    char name[96];       /* GPU: NVML's name, else hwloc's PCI name; NIC: "mlx5_0" */
    char netdev[64];     /* NIC: its network interfaces, "ib0" or "eth2,ib0"; GPU: "" */
    char pci_bus_id[32]; /* "0000:18:00.0" */
    int32_t pci_vendor_id;
    int32_t pci_device_id;
    int32_t pci_class;  /* 0x0302 (3D), 0x0207 (InfiniBand), ... (hwloc's 16-bit class) */
    int32_t nvml_index; /* -1 unknown */
    int32_t cuda_index; /* -1 unknown (CUDA is not initialised for a topology) */
    int32_t in_hwloc;   /* 0: hwloc does not know this bus id; its path classes are unknown */
    int32_t numa_node;  /* -1 unknown (sysfs -1, or locality spanning several nodes) */
    char cpus[256];     /* local CPUs as a list, "0-15,32-47"; "" unknown */
    /* The NUMA nodes of those CPUs, "0" or "0-1" (nvidia-smi's "NUMA Affinity"): a VM whose
     * sysfs says -1 has numa_node -1 here but affinity "0" when all its CPUs are node 0's. */
    char numa_affinity[64];
    /* PCIe link (live: sysfs; XML: unknown = -1). Achievable = min(device max, port above). */
    double link_speed_current_gts;
    double link_speed_max_gts;
    double link_speed_achievable_gts;
    int32_t link_width_current;
    int32_t link_width_max;
    int32_t link_width_achievable;
    /* GPU: the nearest NIC (device index), how many NICs share that class, the class, and
     * whether it is within the GPUDirect RDMA level; -1 each when the node has no NIC. */
    int32_t nearest_nic;
    int32_t nearest_nic_count;
    int32_t nearest_path;
    int32_t gdr_capable;
} gv_topo_device;

#define GV_TOPO_DEVICE_INIT GV_STRUCT_INIT(gv_topo_device)

typedef struct gv_topo_link {
    uint32_t struct_size;
    int32_t path;      /* enum gv_path: NVLINK when NVLinks join two GPUs, else pcie_path */
    int32_t pcie_path; /* the PCIe/CPU class */
    int32_t nvlinks;   /* active NVLinks between the two GPUs (through NVSwitch: per GPU) */
    char label[8];     /* the matrix cell: "X", "NV18", "PIX", ... */
} gv_topo_link;

#define GV_TOPO_LINK_INIT GV_STRUCT_INIT(gv_topo_link)

/* Builds the topology. opts may be NULL (live, $NCCL_NET_GDR_LEVEL). Live reads this machine
 * whatever the context's sysroot (hwloc has no per-topology root); the sysroot supplies the
 * files hwloc does not cover (link speeds, sysfs NUMA). NVML indices and names are matched by
 * PCI bus id when NVML loads. Runs in gpuverify-worker when one is found (docs/ABI.md,
 * "Isolation"). Errors: a missing XML file (GV_ERR_IO), a malformed one or one hwloc crashes on
 * (GV_ERR_PARSE), a bad gdr_level (GV_ERR_INVALID_ARG), the deadline passed (GV_ERR_TIMEOUT);
 * *out is NULL on any error. */
GV_API gv_status gv_topology(gv_ctx *ctx, const gv_topo_opts *opts, gv_topo **out);
GV_API void gv_topo_free(gv_topo *topo); /* NULL-safe */

GV_API gv_status gv_topo_summary(const gv_topo *topo, gv_topo_info *out);
GV_API uint32_t gv_topo_device_count(const gv_topo *topo); /* 0 for NULL */
GV_API gv_status gv_topo_device_at(const gv_topo *topo, uint32_t index, gv_topo_device *out);
/* The pair (a, b) of device indices; symmetric; a == b is GV_PATH_SELF. */
GV_API gv_status gv_topo_link_at(const gv_topo *topo, uint32_t a, uint32_t b, gv_topo_link *out);

#ifdef __cplusplus
}
#endif
#endif
