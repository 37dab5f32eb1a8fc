/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA Xid events from the kernel log (<root>/dev/kmsg), the driver's own record of GPU
 * faults: "NVRM: Xid (PCI:0000:18:00): 79, pid=..., GPU has fallen off the bus.", and the
 * NVSwitch driver's SXids: "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 24007, Fatal, Link 30
 * sourcetrack timeout error". */
#ifndef GV_SYS_KMSG_H
#define GV_SYS_KMSG_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_xid_event {
    char bus[24]; /* as the driver prints it: "0000:18:00" (domain:bus:device), an NVSwitch's
                     with its function, "0000:05:00.0" */
    int xid;      /* 0 when unreadable */
    /* An NVSwitch's SXid: device is the driver's name, "nvidia-nvswitch0"; fatal as the line
     * says ("Fatal", "Non-fatal"); link its NVLink number, -1 when the line names none. */
    int sxid;
    char device[32];
    int fatal;
    int link;
    /* The code is not a number within 1..65535: an Xid of this GPU whose code is unknown,
     * never a value; text then says why. */
    int unreadable;
    char text[160]; /* the rest of the line, control bytes replaced */
    /* Reported by NVML while a run watched for Xids (this long into the watch), not read from
     * the log. */
    int from_nvml;
    double watched_at_s;
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

/* Every Xid and SXid line the kernel still holds (since boot, as far as the ring buffer reaches:
 * span says), read without blocking and at most 16 MiB (a device that never ends is cut there).
 * Records that cannot be read are counted in span, not turned into events; an Xid line whose
 * GPU is known but whose code is not a number in range is an event marked unreadable.
 * GV_ERR_IO when the log cannot be read (the text says why: /dev/kmsg needs root or
 * kernel.dmesg_restrict=0). *events is malloc'ed (free it), NULL when none. */
gv_status gv_kmsg_xids(const char *root, gv_xid_event **events, size_t *count, gv_kmsg_span *span,
                       gv_errbuf *err);

/* How far back the log was read: "since boot", or from when it starts once the kernel's ring
 * buffer has overwritten its beginning (an event before then is no longer there to see). */
void gv_kmsg_scope(const gv_kmsg_span *span, char *out, size_t cap);

#endif
