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

#endif
