/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA port error counters rdma.port_errors reports as a row's counters and
 * history.port_errors turns into rates: one table, so that the two agree on their names. */
#ifndef GV_CHECKS_PORT_COUNTERS_H
#define GV_CHECKS_PORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuverify/gv_rdma.h"

/* What a counter's growth between runs means, which sets its verdict and action. */
enum gv_port_counter_kind {
    GV_PORT_LINK_DOWN, /* the link went down: FAIL, hw_inspect */
    GV_PORT_SYMBOL,    /* bit errors on the wire: WARN or FAIL by rate, hw_inspect */
    GV_PORT_LINK,      /* errors of the link or a flap of its carrier: WARN, hw_inspect */
    GV_PORT_TRAFFIC    /* discards and retries of the traffic (congestion, a peer's receive
                          queue): WARN, fix_config (the fabric's flow control, the job) */
};

typedef struct gv_port_counter {
    const char *name;  /* the row's counter name: the sysfs file's */
    size_t offset;     /* its int64_t in gv_rdma_port */
    int kind;          /* enum gv_port_counter_kind */
    const char *means; /* for messages: "link went down" */
} gv_port_counter;

extern const gv_port_counter gv_port_counters[];
extern const size_t gv_port_counter_count;

/* The port's value of counter c, -1 unknown. */
int64_t gv_port_counter_value(const gv_rdma_port *p, const gv_port_counter *c);

#endif
