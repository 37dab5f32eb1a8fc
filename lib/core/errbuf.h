/* SPDX-License-Identifier: Apache-2.0 */
/* An error text carried up from a reader to the check that reports it ("reading
 * /proc/driver/nvidia/version: no version after 'Kernel Module'"). */
#ifndef GV_CORE_ERRBUF_H
#define GV_CORE_ERRBUF_H

#include "gpuverify/gv_common.h"

typedef struct gv_errbuf {
    char text[512];
} gv_errbuf;

/* Formats the text into e (when e is not NULL) and returns status. */
gv_status gv_err(gv_errbuf *e, gv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
