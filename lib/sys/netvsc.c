/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/netvsc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

/* The last component of a root-relative path. */
static const char *base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The driver of the device behind netdev directory `dir`: its device link, then that
 * device's driver link; 0 when both resolve. */
static int netdev_driver(const char *root, const char *dir, char *out, size_t cap)
{
    char rel[PATH_MAX], device[PATH_MAX], driver[PATH_MAX];
    gv_errbuf ignored;
    snprintf(rel, sizeof rel, "%s/device", dir);
    if (!gv_sys_exists(root, rel) ||
        gv_sys_resolve(root, rel, device, sizeof device, &ignored) != GV_OK)
        return -1;
    snprintf(rel, sizeof rel, "%s/driver", device);
    if (!gv_sys_exists(root, rel) ||
        gv_sys_resolve(root, rel, driver, sizeof driver, &ignored) != GV_OK)
        return -1;
    snprintf(out, cap, "%s", base(driver));
    return 0;
}

int gv_netvsc_vf(const char *root, const char *bdf, char *why, size_t cap)
{
    char rel[PATH_MAX], pci_dir[PATH_MAX];
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf ignored;
    snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s", bdf);
    if (!gv_sys_exists(root, rel) ||
        gv_sys_resolve(root, rel, pci_dir, sizeof pci_dir, &ignored) != GV_OK)
        return 0;
    snprintf(rel, sizeof rel, "%s/net", pci_dir);
    if (gv_sys_list(root, rel, &names, &n, &ignored) != GV_OK)
        return 0;
    int vf = 0;
    for (size_t i = 0; i < n && !vf; i++) {
        char master[PATH_MAX], driver[64];
        snprintf(rel, sizeof rel, "%s/net/%s/master", pci_dir, names[i]);
        if (!gv_sys_exists(root, rel) ||
            gv_sys_resolve(root, rel, master, sizeof master, &ignored) != GV_OK ||
            netdev_driver(root, master, driver, sizeof driver) != 0 ||
            strcmp(driver, "hv_netvsc") != 0)
            continue;
        vf = 1;
        snprintf(why, cap, "VF of %s, hv_netvsc", base(master));
    }
    free(names);
    return vf;
}
