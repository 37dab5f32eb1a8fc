/* SPDX-License-Identifier: Apache-2.0 */
/* A port's error counters (the kernel's sysfs: one decimal number and a newline per file):
 * ports/<n>/counters/ (the InfiniBand PMA's, which mlx5 also fills for RoCE from the link's
 * own counters), ports/<n>/hw_counters/ (driver-specific) and the RoCE netdev's
 * carrier_changes. A file that is absent is a counter this device does not give: -1 and no
 * note. One that exists but cannot be read or is not a number is -1 too, named in the port's
 * counters_problem, so that it costs the counter and touches nothing rdma.ports judges. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/parse.h"
#include "core/util.h"
#include "rdma/rdma.h"
#include "sys/sysroot.h"

/* The counter of file rel (shown as `what` in a note); -1 when absent, unreadable or malformed. */
static int64_t read_counter(const char *root, const char *rel, const char *what, gv_rdma_port *p)
{
    if (!gv_sys_exists(root, rel))
        return -1;
    char text[64], line[PATH_MAX + 160];
    gv_errbuf err;
    if (gv_sys_read_line(root, rel, text, sizeof text, &err) != GV_OK) {
        snprintf(line, sizeof line, "%s: %s", what, err.text);
        gv_append(p->counters_problem, sizeof p->counters_problem, "; ", line);
        return -1;
    }
    int64_t v;
    enum gv_parse_result pr = gv_parse_i64(text, 10, 0, INT64_MAX, &v);
    if (pr == GV_PARSE_OK)
        return v;
    char shown[32];
    gv_text_clean(shown, sizeof shown, text);
    snprintf(line, sizeof line, "%s: '%s': %s", what, shown, gv_parse_why(pr));
    gv_append(p->counters_problem, sizeof p->counters_problem, "; ", line);
    return -1;
}

void gv_rdma_read_port_counters(const char *root, const char *pdir, gv_rdma_port *p)
{
    static const struct {
        const char *file;
        size_t offset;
    } files[] = {
        {"counters/link_downed", offsetof(gv_rdma_port, link_downed)},
        {"counters/link_error_recovery", offsetof(gv_rdma_port, link_error_recovery)},
        {"counters/symbol_error", offsetof(gv_rdma_port, symbol_error)},
        {"counters/port_rcv_errors", offsetof(gv_rdma_port, port_rcv_errors)},
        {"counters/excessive_buffer_overrun_errors",
         offsetof(gv_rdma_port, excessive_buffer_overrun_errors)},
        {"counters/local_link_integrity_errors",
         offsetof(gv_rdma_port, local_link_integrity_errors)},
        {"counters/port_xmit_discards", offsetof(gv_rdma_port, port_xmit_discards)},
        {"hw_counters/rnr_nak_retry_err", offsetof(gv_rdma_port, rnr_nak_retry_err)},
    };
    char rel[PATH_MAX];
    p->counters_problem[0] = '\0';
    snprintf(rel, sizeof rel, "%s/counters", pdir);
    p->has_counters = gv_sys_exists(root, rel) ? 1 : 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(rel, sizeof rel, "%s/%s", pdir, files[i].file);
        *(int64_t *)((char *)p + files[i].offset) = read_counter(root, rel, files[i].file, p);
    }
    /* The netdev's carrier going down and up is a RoCE link's flap as the host sees it; an
     * InfiniBand port's netdev (IPoIB) follows the subnet manager too, so only RoCE's counts. */
    p->carrier_changes = -1;
    if (p->link_layer == GV_LINK_LAYER_ETHERNET && p->netdev[0]) {
        snprintf(rel, sizeof rel, "/sys/class/net/%s/carrier_changes", p->netdev);
        p->carrier_changes = read_counter(root, rel, rel, p);
    }
}
