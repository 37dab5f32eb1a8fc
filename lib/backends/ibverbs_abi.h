/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the libibverbs ABI (rdma-core), so no libibverbs-dev is needed
 * to build: opaque handles, and the legacy prefix of struct ibv_port_attr that the exported
 * ibv_query_port (IBVERBS_1.1) fills. Callers pass a zeroed buffer larger than any version of
 * the struct (GV_IBV_PORT_ATTR_BYTES) and read the first fields only. */
#ifndef GV_BACKENDS_IBVERBS_ABI_H
#define GV_BACKENDS_IBVERBS_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct gv_ibv_device gv_ibv_device;   /* struct ibv_device */
typedef struct gv_ibv_context gv_ibv_context; /* struct ibv_context */
typedef struct gv_ibv_pd gv_ibv_pd;           /* struct ibv_pd */
typedef struct gv_ibv_mr gv_ibv_mr;           /* struct ibv_mr */

/* The start of struct ibv_port_attr (verbs.h): enums are ints. */
typedef struct gv_ibv_port_attr {
    int state;      /* enum ibv_port_state: 4 = IBV_PORT_ACTIVE */
    int max_mtu;    /* enum ibv_mtu: 1 = 256 .. 5 = 4096 */
    int active_mtu; /* enum ibv_mtu */
    int gid_tbl_len;
} gv_ibv_port_attr;

#define GV_IBV_PORT_ATTR_BYTES 256 /* > sizeof(struct ibv_port_attr) in every rdma-core */

/* enum ibv_mtu -> bytes; -1 outside 1..5. */
static inline int gv_ibv_mtu_bytes(int mtu)
{
    return mtu >= 1 && mtu <= 5 ? 128 << mtu : -1;
}

#endif
