/* SPDX-License-Identifier: Apache-2.0 */
/* Path classes on the hwloc tree. hwloc_get_common_ancestor_obj() crashes on I/O objects in
 * hwloc 2.9, so the common ancestor is found by walking parent pointers here. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuverify/gv_topology.h"
#include "topo/paths.h"

const char *gv_path_name(int32_t path)
{
    static const char *const names[] = {"UNKNOWN", "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
    return path >= 0 && path < (int32_t)(sizeof names / sizeof names[0]) ? names[path] : "UNKNOWN";
}

static int depth_of(hwloc_obj_t o)
{
    int d = 0;
    for (; o; o = o->parent)
        d++;
    return d;
}

static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
    int da = depth_of(a), db = depth_of(b);
    for (; da > db; da--)
        a = a->parent;
    for (; db > da; db--)
        b = b->parent;
    while (a != b) {
        a = a->parent;
        b = b->parent;
    }
    return a;
}

/* PCI bridges strictly between a device and its ancestor. */
static int bridges_between(hwloc_obj_t dev, hwloc_obj_t ancestor)
{
    int n = 0;
    for (hwloc_obj_t o = dev->parent; o && o != ancestor; o = o->parent)
        n += o->type == HWLOC_OBJ_BRIDGE;
    return n;
}

hwloc_obj_t gv_path_locality(hwloc_obj_t io)
{
    hwloc_obj_t o = io;
    while (o && (o->type == HWLOC_OBJ_BRIDGE || o->type == HWLOC_OBJ_PCI_DEVICE ||
                 o->type == HWLOC_OBJ_OS_DEVICE || o->type == HWLOC_OBJ_MISC))
        o = o->parent;
    return o;
}

int gv_path_numa_node(hwloc_obj_t io)
{
    hwloc_obj_t o = gv_path_locality(io);
    if (!o || !o->nodeset || hwloc_bitmap_weight(o->nodeset) != 1)
        return -1;
    return hwloc_bitmap_first(o->nodeset);
}

int32_t gv_path_between(hwloc_obj_t a, hwloc_obj_t b)
{
    if (a == b)
        return GV_PATH_SELF;
    hwloc_obj_t lca = common_ancestor(a, b);
    if (!lca)
        return GV_PATH_UNKNOWN;
    if (lca->type == HWLOC_OBJ_BRIDGE) {
        if (lca->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
            return GV_PATH_PHB;
        /* A switch (or root port): PIX when each device hangs directly off one of its ports. */
        return bridges_between(a, lca) <= 1 && bridges_between(b, lca) <= 1 ? GV_PATH_PIX
                                                                            : GV_PATH_PXB;
    }
    if (lca->type == HWLOC_OBJ_PCI_DEVICE || lca->type == HWLOC_OBJ_OS_DEVICE)
        return GV_PATH_PIX; /* one below the other: functions of one device */
    /* Joined only above the PCIe hierarchy: the CPU side. */
    int na = gv_path_numa_node(a), nb = gv_path_numa_node(b);
    return na >= 0 && na == nb ? GV_PATH_NODE : GV_PATH_SYS;
}

int gv_path_parse_gdr_level(const char *text, int32_t *level)
{
    static const struct {
        const char *name;
        int32_t path;
    } levels[] = {{"LOC", GV_PATH_SELF},
                  {"PIX", GV_PATH_PIX},
                  {"PXB", GV_PATH_PXB},
                  {"PHB", GV_PATH_PHB},
                  {"SYS", GV_PATH_SYS}};
    if (!text)
        return -1;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcasecmp(text, levels[i].name) == 0) {
            *level = levels[i].path;
            return 0;
        }
    /* NCCL's legacy numbers: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and 5 SYS. */
    char *end;
    long n = strtol(text, &end, 10);
    if (end == text || *end || n < 0 || n > 5)
        return -1;
    *level = n == 0 ? levels[0].path : n >= 4 ? GV_PATH_SYS : levels[n].path;
    return 0;
}

int gv_path_within(int32_t path, int32_t level)
{
    if (path == GV_PATH_UNKNOWN || level == GV_PATH_UNKNOWN)
        return 0;
    return path <= (level == GV_PATH_PHB ? GV_PATH_NODE : level);
}
