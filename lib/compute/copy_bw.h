/* SPDX-License-Identifier: Apache-2.0 */
/* Pinned host<->device and device<->device copy bandwidth, measured the nvbandwidth way:
 * host buffers pinned from a thread bound to the GPU's NUMA node, warm-up copies, copies
 * queued behind a gate kernel and timed with CUDA events, the median of the samples, and the
 * copied data verified. */
#ifndef GV_COMPUTE_COPY_BW_H
#define GV_COMPUTE_COPY_BW_H

#include <stdint.h>

#include "compute/session.h"

typedef struct gv_copy_figures {
    double h2d_gbps, d2h_gbps, d2d_gbps; /* medians; d2d counts read + write */
    uint64_t bad_words;                  /* 8-byte words that arrived wrong */
    int numa_node;                       /* of the host buffers, -1 unknown */
} gv_copy_figures;

/* GV_OK when measured; otherwise err names the CUDA call that failed. local_cpus is the GPU's
 * sysfs CPU list ("0-55,112-167"), "" when unknown (the thread is then left unbound). */
gv_status gv_copy_bandwidth(gv_session *s, const char *local_cpus, int numa_node, uint64_t bytes,
                            unsigned samples, unsigned copies, gv_copy_figures *out,
                            gv_errbuf *err);

/* One GPU of the GPUs measured at once: its session (opened by the caller), the sysfs CPU list
 * and NUMA node of its host buffers, and what came out. */
typedef struct gv_copy_gpu {
    gv_session *s;
    const char *local_cpus;
    int numa_node;
    gv_copy_figures out; /* h2d_gbps and d2h_gbps with every GPU copying at once */
    gv_status status;
    gv_errbuf err; /* why status is not GV_OK */
} gv_copy_gpu;

/* Pinned host<->device copies on n GPUs at once, as gv_copy_bandwidth measures one, each GPU's
 * thread bound to its NUMA node and each sample's gates opened when every GPU has queued its
 * batch: a link the GPUs share (a PCIe switch, a root port, host memory) shows only this way.
 * GV_OK unless out of memory; each GPU's status says whether it was measured. */
gv_status gv_copy_together(gv_copy_gpu *gpus, size_t n, uint64_t bytes, unsigned samples,
                           unsigned copies);

#endif
