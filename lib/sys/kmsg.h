/* NVIDIA Xid events from the kernel log (<root>/dev/kmsg), the driver's own record of GPU
 * faults: "NVRM: Xid (PCI:0000:18:00): 79, pid=..., GPU has fallen off the bus." */
#ifndef GV_SYS_KMSG_H
#define GV_SYS_KMSG_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_xid_event {
    char bus[24]; /* as the driver prints it: "0000:18:00" (domain:bus:device) */
    int xid;
    char text[160]; /* the rest of the line */
} gv_xid_event;

/* How far back the log reaches: the sequence number of its oldest record (the kernel numbers
 * records from 0 at boot, so more than 0 is how many were overwritten since) and that
 * record's time since boot; -1 each when the first line is not a kmsg record. */
typedef struct gv_kmsg_span {
    long long first_seq;
    double first_s;
} gv_kmsg_span;

/* Every Xid line the kernel still holds (since boot, as far as the ring buffer reaches: span
 * says), read without blocking. GV_ERR_IO when the log cannot be read (the text says why:
 * /dev/kmsg needs root or kernel.dmesg_restrict=0). *events is malloc'ed (free it), NULL when
 * none. */
gv_status gv_kmsg_xids(const char *root, gv_xid_event **events, size_t *count, gv_kmsg_span *span,
                       gv_errbuf *err);

#endif
