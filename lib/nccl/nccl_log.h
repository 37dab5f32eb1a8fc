/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's INFO log as gpuverify-worker captures it, and what it says NCCL chose: the transport of
 * every connection between ranks ("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"), the
 * network, NVLS. The formats are NCCL's (src/transport/{p2p,shm,net}.cc, src/init.cc, 2.18 to
 * 2.28); lines it does not know are passed over. */
#ifndef GV_NCCL_NCCL_LOG_H
#define GV_NCCL_NCCL_LOG_H

#include <stddef.h>

#include "gpuverify/gv_nccl.h"

/* In gpuverify-worker, before anything loads NCCL: a file in memory (memfd) for this process's
 * life, and the environment that makes NCCL write its INIT log there. 0, its path in path[cap]
 * (/proc/self/fd/N, which only this process opens); -1 when none could be made (NCCL's log then
 * stays off). */
int gv_nccl_log_capture(char *path, size_t cap);

/* The size of the log now: where the lines of a sweep about to start begin. */
long gv_nccl_log_mark(const char *path);

/* Fills r's transport fields from the log's lines after `from`; transport_known = 1 when the
 * file could be read. */
void gv_nccl_log_read(const char *path, long from, gv_nccl_result *r);

/* The same over text already read (tests). */
void gv_nccl_log_parse(const char *text, gv_nccl_result *r);

#endif
