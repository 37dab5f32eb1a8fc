/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: the RDMA/RoCE stack as the node's files describe it, and what NCCL would do with it.
 *
 * gv_rdma_status reads, under the context's sysroot: the kernel modules (ib_core, rdma_cm,
 * ib_uverbs, mlx5_core, mlx5_ib), every RDMA device (/sys/class/infiniband) with its PCI
 * function, firmware and ports (state, physical state, rate, link layer, LID, GIDs and their
 * netdevs), RoCE MTU from the netdev MTU, RoCE ToS from configfs, legacy peer memory, and the
 * NCCL settings from the environment and the NCCL configuration files. libibverbs.so.1 is
 * optional and loaded at run time when live libraries are on: it gives the InfiniBand MTUs and
 * tells whether NCCL could use the verbs transport at all.
 *
 * The verdicts on these facts are the gv_run checks rdma.* and gpudirect.* (docs/checks.md). */
#ifndef GPUVERIFY_GV_RDMA_H
#define GPUVERIFY_GV_RDMA_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Port states as the kernel numbers them (ports/<n>/state "4: ACTIVE"). Append-only. */
enum gv_port_state {
    GV_PORT_STATE_UNKNOWN = 0, /* the file is absent or malformed (gv_rdma_port.problem) */
    GV_PORT_DOWN = 1,
    GV_PORT_INIT = 2, /* InfiniBand: link up, waiting for the subnet manager */
    GV_PORT_ARMED = 3,
    GV_PORT_ACTIVE = 4,
    GV_PORT_ACTIVE_DEFER = 5
};

enum gv_link_layer {
    GV_LINK_LAYER_UNKNOWN = 0,
    GV_LINK_LAYER_INFINIBAND = 1,
    GV_LINK_LAYER_ETHERNET = 2 /* RoCE */
};

enum gv_module_state {
    GV_MODULE_STATE_UNKNOWN = -1, /* /proc/modules unreadable and no /sys/module entry */
    GV_MODULE_ABSENT = 0,
    GV_MODULE_LOADED = 1,
    GV_MODULE_BUILTIN = 2
};

/* The network NCCL would pick for inter-node traffic. */
enum gv_nccl_net { GV_NCCL_NET_UNKNOWN = 0, GV_NCCL_NET_IB = 1, GV_NCCL_NET_SOCKET = 2 };

/* Where a port's active and maximum MTU came from. */
enum gv_mtu_source {
    GV_MTU_UNKNOWN = 0,
    GV_MTU_NETDEV = 1, /* RoCE: the largest IB MTU <= netdev MTU - 96 (the kernel's rule) */
    GV_MTU_VERBS = 2   /* ibv_query_port */
};

/* gv_rdma_opts.flags */
#define GV_RDMA_IGNORE_ENVIRONMENT 0x1u /* NCCL settings from the node's files only */
#define GV_RDMA_NO_VERBS 0x2u           /* never load libibverbs */

typedef struct gv_rdma_opts {
    uint32_t struct_size;
    uint32_t flags; /* GV_RDMA_* */
} gv_rdma_opts;

#define GV_RDMA_OPTS_INIT GV_STRUCT_INIT(gv_rdma_opts)

typedef struct gv_rdma_report gv_rdma_report;

typedef struct gv_rdma_info {
    uint32_t struct_size;
    uint32_t module_count;
    uint32_t device_count;
    uint32_t port_count;
    uint32_t gid_count; /* GIDs that are set, over all ports */
    uint32_t setting_count;
    uint32_t active_ports;
    /* Mellanox NIC functions on the PCI bus, and those without an RDMA device ("" none). */
    uint32_t mellanox_functions;
    char functions_without_rdma[256];
    int32_t verbs_state; /* enum gv_library_state of libibverbs.so.1 */
    char verbs_detail[256];
    /* Legacy peer memory (nvidia-peermem / nv_peer_mem): 1 present, 0 absent. */
    int32_t peer_memory;
    char peer_memory_source[128]; /* the file that shows it */
    /* What NCCL would do: IB (verbs) or sockets, why, and the ports it would use. */
    int32_t nccl_net; /* enum gv_nccl_net */
    char nccl_reason[256];
    char nccl_ports[256]; /* "mlx5_0:1,mlx5_1:1" */
    /* RDMA devices left out of devices[] and mellanox_functions: SR-IOV VFs that carry a
     * Hyper-V VM's frontend Ethernet (Azure Accelerated Networking), no RDMA fabric
     * ("mlx5_0 (VF of eth0, hv_netvsc)"); "" none. */
    char vm_frontend[192];
} gv_rdma_info;

#define GV_RDMA_INFO_INIT GV_STRUCT_INIT(gv_rdma_info)

typedef struct gv_rdma_module {
    uint32_t struct_size;
    int32_t state; /* enum gv_module_state */
    char name[32]; /* "mlx5_ib" */
    char source[96];
} gv_rdma_module;

#define GV_RDMA_MODULE_INIT GV_STRUCT_INIT(gv_rdma_module)

typedef struct gv_rdma_device {
    uint32_t struct_size;
    uint32_t port_count;
    uint32_t first_port;   /* index of its first port in gv_rdma_port_at */
    int32_t numa_node;     /* -1 unknown */
    int32_t pci_vendor_id; /* -1 unknown (not a PCI device) */
    int32_t pci_device_id;
    /* libibverbs (when it loads): whether it lists the device, and whether the provider
     * registers DMA-BUF memory (ibv_reg_dmabuf_mr): 1 yes, 0 no, -1 unknown. */
    int32_t verbs_visible;
    int32_t dmabuf_mr;
    char name[64];       /* "mlx5_0" */
    char pci_bus_id[32]; /* "" when the device is not a PCI function */
    char fw_ver[64];
    char node_guid[40];
    char hca_type[32];
    char board_id[64];
    char problem[256];      /* a file that could not be read or parsed, "" */
    char verbs_detail[160]; /* what libibverbs said about the device */
} gv_rdma_device;

#define GV_RDMA_DEVICE_INIT GV_STRUCT_INIT(gv_rdma_device)

typedef struct gv_rdma_port {
    uint32_t struct_size;
    uint32_t device_index;
    uint32_t port;      /* the port number, 1-based */
    int32_t state;      /* enum gv_port_state */
    int32_t phys_state; /* 5 LinkUp, 3 Disabled, 2 Polling, ...; 0 unknown */
    int32_t link_layer; /* enum gv_link_layer */
    int32_t lid;        /* -1 unknown; 0 on RoCE */
    int32_t netdev_mtu; /* -1 unknown */
    int32_t active_mtu; /* bytes, -1 unknown */
    int32_t max_mtu;
    int32_t mtu_source;  /* enum gv_mtu_source */
    int32_t roce_v2_gid; /* the first RoCE v2 GID index, -1 none */
    uint32_t gid_count;  /* GIDs that are set */
    uint32_t first_gid;  /* index of its first GID in gv_rdma_gid_at */
    int32_t roce_tos;    /* configfs default_roce_tos, -1 not configured */
    double rate_gbps;    /* -1 unknown */
    char device[64];
    char state_text[32];      /* "ACTIVE" */
    char phys_state_text[32]; /* "LinkUp" */
    char rate_text[64];       /* "400 Gb/sec (4X NDR)" */
    char netdev[64];          /* "ens1f0np0", "" unknown */
    char roce_mode[32];       /* configfs default_roce_mode, "" not configured */
    char problem[256];        /* files that could not be read or parsed, "" */
    /* Since ABI 1.1. The port's counters/link_downed and counters/link_error_recovery: times
     * the link went down, or recovered from errors, since the driver loaded (-1 unknown). Two
     * runs' difference is a flap no snapshot shows (history.links). */
    int64_t link_downed;
    int64_t link_error_recovery;
    /* Since ABI 1.1. The port's other error counters since the driver loaded (-1 unknown: the
     * file is absent, which is "not supported by this device", or unreadable or malformed,
     * which counters_problem names). counters/: symbol_error (bit errors on the wire),
     * port_rcv_errors, excessive_buffer_overrun_errors, local_link_integrity_errors,
     * port_xmit_discards; hw_counters/ (driver-specific): rnr_nak_retry_err; the port's netdev
     * (RoCE): /sys/class/net/<if>/carrier_changes. Judged by rdma.port_errors, their growth
     * between runs by history.port_errors. */
    int64_t symbol_error;
    int64_t port_rcv_errors;
    int64_t excessive_buffer_overrun_errors;
    int64_t local_link_integrity_errors;
    int64_t port_xmit_discards;
    int64_t rnr_nak_retry_err;
    int64_t carrier_changes;
    int32_t has_counters;       /* 1: ports/<n>/counters exists; 0: the driver gives none */
    int32_t reserved2;          /* 0 */
    char counters_problem[256]; /* counter files that exist but could not be read, "" */
} gv_rdma_port;

#define GV_RDMA_PORT_INIT GV_STRUCT_INIT(gv_rdma_port)

typedef struct gv_rdma_gid {
    uint32_t struct_size;
    uint32_t port_index; /* in gv_rdma_port_at */
    uint32_t index;      /* the GID table index */
    char gid[48];        /* "fe80:0000:...:bfa1" */
    char type[16];       /* "RoCE v2", "IB/RoCE v1", "" unknown */
    char netdev[64];
} gv_rdma_gid;

#define GV_RDMA_GID_INIT GV_STRUCT_INIT(gv_rdma_gid)

/* One NCCL setting: every name gpuverify judges is listed, set or not. */
typedef struct gv_rdma_setting {
    uint32_t struct_size;
    int32_t set;   /* 0: unset (NCCL's default applies) */
    char name[32]; /* "NCCL_IB_HCA" */
    char value[256];
    char source[256]; /* "environment", "/etc/nccl.conf", ... */
} gv_rdma_setting;

#define GV_RDMA_SETTING_INIT GV_STRUCT_INIT(gv_rdma_setting)

/* Reads the RDMA stack; opts may be NULL. GV_OK whenever the files could be looked at (a node
 * without RDMA is a report with no devices); a malformed file is noted on its device or port.
 * Runs in gpuverify-worker when one is found: GV_ERR_TIMEOUT (and no report) when libibverbs
 * or a file did not answer within the context's deadline (docs/ABI.md, "Isolation"). */
GV_API gv_status gv_rdma_status(gv_ctx *ctx, const gv_rdma_opts *opts, gv_rdma_report **out);
GV_API void gv_rdma_free(gv_rdma_report *report); /* NULL-safe */

GV_API gv_status gv_rdma_summary(const gv_rdma_report *report, gv_rdma_info *out);
/* Index-based accessors; counts from gv_rdma_summary; GV_ERR_NOT_FOUND past the end. */
GV_API gv_status gv_rdma_module_at(const gv_rdma_report *report, uint32_t index,
                                   gv_rdma_module *out);
GV_API gv_status gv_rdma_device_at(const gv_rdma_report *report, uint32_t index,
                                   gv_rdma_device *out);
GV_API gv_status gv_rdma_port_at(const gv_rdma_report *report, uint32_t index, gv_rdma_port *out);
GV_API gv_status gv_rdma_gid_at(const gv_rdma_report *report, uint32_t index, gv_rdma_gid *out);
GV_API gv_status gv_rdma_setting_at(const gv_rdma_report *report, uint32_t index,
                                    gv_rdma_setting *out);

#ifdef __cplusplus
}
#endif
#endif
