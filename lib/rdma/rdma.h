/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA report behind gv_rdma_status: what the sysfs reader, libibverbs and the NCCL
 * settings fill in, and what the rdma.* and gpudirect.* checks judge. */
#ifndef GV_RDMA_RDMA_H
#define GV_RDMA_RDMA_H

#include <stddef.h>

#include "core/errbuf.h"
#include "gpuverify/gv_rdma.h"

struct gv_rdma_report {
    gv_rdma_info info;
    gv_rdma_module *modules;
    gv_rdma_device *devices;
    gv_rdma_port *ports;
    gv_rdma_gid *gids;
    gv_rdma_setting *settings;
    char (*netdevs)[64]; /* every network interface of the node (/sys/class/net) */
    size_t module_count, device_count, port_count, gid_count, setting_count, netdev_count;
    size_t module_cap, device_cap, port_cap, gid_cap, setting_cap;
    int out_of_memory;
    gv_status modules_status; /* /proc/modules: GV_OK or why it could not be read */
    gv_errbuf modules_err;
    double port_wait_s;     /* how long the ports on their way to ACTIVE were waited for, 0 none */
    char nccl_problem[512]; /* NCCL configuration files that exist but could not be taken, "" */
};

/* The stages of libibverbs' start and queries begin so (core/progress.h): the run tells a
 * worker stopped there from one stopped elsewhere in the RDMA checks, and does without it. */
#define GV_RDMA_VERBS_STAGE "libibverbs: "

/* gv_rdma_status's deadline in gpuverify-worker, in units of the context's deadline
 * (worker/call.h); rdma.* get the same. */
#define GV_DEADLINE_RDMA_STATUS 1.0

/* The largest port rate taken from sysfs (docs/inputs.md). */
#define GV_RDMA_RATE_MAX_GBPS 3200.0
/* The most of an NCCL configuration file read (a real one is a few lines). */
#define GV_NCCL_CONF_MAX (1u << 20)

/* Builds the report (gv_rdma_status after its argument checks; the checks call it directly).
 * flags: GV_RDMA_*. */
struct gv_ctx;
gv_status gv_rdma_build(struct gv_ctx *ctx, uint32_t flags, gv_rdma_report **out);

/* Whether the node has RDMA hardware: an RDMA device, or a Mellanox/ConnectX NIC function
 * (which has no RDMA device while mlx5_ib is not bound). */
int gv_rdma_has_hardware(const gv_rdma_report *r);

/* rdma_sysfs.c: modules, devices, ports, GIDs, RoCE MTU and ToS, peer memory, netdevs and the
 * Mellanox PCI functions, all under root. */
void gv_rdma_read_sysfs(const char *root, gv_rdma_report *r);
/* rdma_counters.c: the error counters of the port whose directory is pdir (and of its RoCE
 * netdev, once p->netdev and p->link_layer are known). */
void gv_rdma_read_port_counters(const char *root, const char *pdir, gv_rdma_port *p);

/* rdma_verbs.c: InfiniBand MTUs, visibility and the DMA-BUF registration probe per device. */
struct gv_ibverbs_api;
void gv_rdma_query_verbs(struct gv_ctx *ctx, const struct gv_ibverbs_api *ibv, gv_rdma_report *r);

/* Grows one of the report's arrays by a zeroed element; NULL (and out_of_memory) when it
 * cannot. */
void *gv_rdma_grow(gv_rdma_report *r, void **items, size_t *count, size_t *cap, size_t size);

/* nccl_env.c: the NCCL settings (environment, $NCCL_CONF_FILE or ~/.nccl.conf, /etc/nccl.conf,
 * /etc/profile.d) and the network NCCL would choose. */
void gv_rdma_read_nccl(const char *root, int use_environment, gv_rdma_report *r);
void gv_rdma_nccl_choice(gv_rdma_report *r);
/* The value of a setting, NULL when unset. */
const gv_rdma_setting *gv_rdma_setting_find(const gv_rdma_report *r, const char *name);
/* NCCL's list syntax (NCCL_IB_HCA, NCCL_SOCKET_IFNAME): "^" excludes, "=" matches exactly,
 * else by prefix; entries "name[:port]". port 0 matches any port. 1 when name/port is used. */
int gv_nccl_list_matches(const char *list, const char *name, unsigned port);

/* The largest IB MTU a RoCE port gets from its netdev MTU (the kernel's iboe_get_mtu). */
int gv_roce_active_mtu(int netdev_mtu);

#endif
