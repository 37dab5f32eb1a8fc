/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA Xid events from the kernel log (<root>/dev/kmsg), the driver's own record of GPU
 * faults: "NVRM: Xid (PCI:0000:18:00): 79, pid=..., GPU has fallen off the bus." */
#ifndef GV_SYS_KMSG_H
#define GV_SYS_KMSG_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_xid_event {
    char bus[24]; /* as the driver prints it: "0000:18:00" (domain:bus:device) */
    int xid;      /* 0 when unreadable */
    /* The code is not a number within 1..65535: an Xid of this GPU whose code is unknown,
     * never a value; text then says why. */
    int unreadable;
    char text[160]; /* the rest of the line, control bytes replaced */
} gv_xid_event;

/* How far back the log reaches: the sequence number of its oldest record (the kernel numbers
 * records from 0 at boot, so more than 0 is how many were overwritten since) and that
 * record's time since boot; -1 each when the first line is not a kmsg record. And what of it
 * could not be read: records that are not text (binary data: a device or file that is no
 * kernel log), Xid lines naming no GPU, and whether the read stopped before the log's end. */
typedef struct gv_kmsg_span {
    long long first_seq;
    double first_s;
    size_t unreadable;  /* records not read: binary, or an Xid line whose GPU is unknown */
    char why[160];      /* the first such record's reason, "" */
    char cut_short[64]; /* why the read stopped before the log's end (a bound), "" */
    char path[256];     /* the log read, as shown in messages */
} gv_kmsg_span;

/* Every Xid line the kernel still holds (since boot, as far as the ring buffer reaches: span
 * says), read without blocking and at most 16 MiB (a device that never ends is cut there).
 * Records that cannot be read are counted in span, not turned into events; an Xid line whose
 * GPU is known but whose code is not a number in range is an event marked unreadable.
 * GV_ERR_IO when the log cannot be read (the text says why: /dev/kmsg needs root or
 * kernel.dmesg_restrict=0). *events is malloc'ed (free it), NULL when none. */
gv_status gv_kmsg_xids(const char *root, gv_xid_event **events, size_t *count, gv_kmsg_span *span,
                       gv_errbuf *err);

#endif
