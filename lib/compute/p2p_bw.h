/* SPDX-License-Identifier: Apache-2.0 */
/* Copies between every ordered pair of a node's GPUs, nvbandwidth's way: peer access turned on
 * where cuDeviceCanAccessPeer allows it, gated batches of copies queued on the source GPU's
 * stream and timed by its events, the median of the samples; and the time of one small copy. */
#ifndef GV_COMPUTE_P2P_BW_H
#define GV_COMPUTE_P2P_BW_H

#include <stddef.h>
#include <stdint.h>

#include "compute/session.h"

typedef struct gv_p2p_pair {
    int can_access;    /* cuDeviceCanAccessPeer from the source to the destination */
    int direct;        /* peer access is on: the copy goes GPU to GPU, not through the host */
    double gbps;       /* median of the samples; 0 when not measured */
    double latency_us; /* one 64-byte copy, mean of 32 */
} gv_p2p_pair;

/* The n x n matrix (row: source, column: destination; the diagonal is left zero) over the
 * sessions s[0..n) opened by the caller on this thread. With `rounds`, when every pair has
 * peer access, the n - 1 rounds of n copies at once (GPU i to GPU i + r), not the n (n - 1)
 * pairs one after another: for GPUs whose every pair has its own links (NVSwitch), where a
 * copy at once with others takes what it takes alone. GV_OK, or the first CUDA call that
 * failed in err; peer access stays on for the contexts' lifetime, as NCCL leaves it. */
gv_status gv_p2p_matrix(gv_session *const *s, size_t n, uint64_t bytes, unsigned samples,
                        unsigned copies, int rounds, gv_p2p_pair *m, gv_errbuf *err);

#endif
