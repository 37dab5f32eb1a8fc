/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/pci_share.h"

#include <stdio.h>

#include "core/util.h"

/* The narrower of a link's two ends: this function's maximum and the port's above it. */
static double narrower(double mine, double above)
{
    return above > 0 && (mine <= 0 || above < mine) ? above : mine;
}

/* The rate a function's link was built for (GT/s x lanes): its maximum, capped by the port
 * above it, not what it trained at. An idle GPU's link drops its speed to save power, which
 * would make a switch's uplink look wide enough for all, and a link that trained narrower is a
 * fault (gpu.pcie_link, cuda.copy), not a smaller share to expect. The current rate where
 * sysfs gives no maximum. */
static double link_rate(const gv_pci_function *f)
{
    double speed = narrower(f->link_speed_max > 0 ? f->link_speed_max : f->link_speed_current,
                            f->upstream_speed_max);
    double width = narrower(f->link_width_max > 0 ? f->link_width_max : f->link_width_current,
                            f->upstream_width_max);
    return speed > 0 && width > 0 ? speed * width : 0;
}

static int under(const gv_pci_function *f, const gv_pci_addr *port)
{
    for (size_t h = 0; f && h < f->parent_count; h++)
        if (gv_pci_addr_compare(&f->parents[h], port) == 0)
            return 1;
    return 0;
}

int gv_pci_share_a_port(const gv_pci_function *a, const gv_pci_function *b)
{
    for (size_t h = 0; h < a->parent_count; h++)
        if (under(b, &a->parents[h]))
            return 1;
    return 0;
}

double gv_pci_link_share(const char *root, const gv_pci_function *const *gpus,
                         const char *const *names, size_t n, size_t i, char *why, size_t cap)
{
    double share = 1;
    if (cap)
        why[0] = '\0';
    if (!gpus[i])
        return share;
    for (size_t h = 0; h < gpus[i]->parent_count; h++) {
        const gv_pci_addr *port = &gpus[i]->parents[h];
        size_t k = 0, unknown = 0;
        double sum = 0;
        for (size_t j = 0; j < n; j++)
            if (under(gpus[j], port)) {
                k++;
                sum += link_rate(gpus[j]);
                unknown += link_rate(gpus[j]) <= 0;
            }
        if (k < 2)
            continue;
        gv_pci_function f;
        gv_errbuf err;
        double rate = gv_pci_read_function(root, port, &f, &err) == GV_OK ? link_rate(&f) : 0;
        /* A rate unknown on either side: as wide as one GPU's link, split k ways. */
        double here = rate > 0 && !unknown ? rate / sum : 1.0 / (double)k;
        if (here >= share)
            continue;
        share = here;
        if (!cap)
            continue;
        why[0] = '\0';
        for (size_t j = 0; j < n; j++)
            if (under(gpus[j], port))
                gv_append(why, cap, ", ", names[j]);
        char bdf[32], tail[64];
        gv_pci_format_addr(port, bdf, sizeof bdf);
        snprintf(tail, sizeof tail, " under %s", bdf);
        gv_append(why, cap, "", tail);
    }
    return share;
}
