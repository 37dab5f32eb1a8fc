/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA stack from files under the sysroot (formats as the kernel writes them):
 * /sys/class/infiniband/<dev>/{fw_ver,node_guid,hca_type,board_id,device,ports/<n>/...},
 * /sys/class/net/<if>/mtu, configfs rdma_cm, /proc/modules, peer memory; the ports' error
 * counters in rdma_counters.c. A file that is absent or malformed is noted on its device or
 * port; nothing here fails the whole report. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "rdma/rdma.h"
#include "sys/modules.h"
#include "sys/os.h"
#include "sys/netvsc.h"
#include "sys/pci.h"
#include "sys/sysroot.h"

#define MELLANOX_VENDOR 0x15b3

void *gv_rdma_grow(gv_rdma_report *r, void **items, size_t *count, size_t *cap, size_t size)
{
    if (*count == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        void *more = realloc(*items, n * size);
        if (!more) {
            r->out_of_memory = 1;
            return NULL;
        }
        *items = more;
        *cap = n;
    }
    char *item = (char *)*items + (*count)++ * size;
    memset(item, 0, size);
    return item;
}

/* Appends "what: why" to a problem text. */
static void note(char *problem, size_t cap, const char *what, const char *why)
{
    char line[320];
    snprintf(line, sizeof line, "%s: %s", what, why);
    gv_append(problem, cap, "; ", line);
}

/* "4: ACTIVE" -> 4 and "ACTIVE"; 0 when malformed. */
static int parse_numbered(const char *text, char *name, size_t cap)
{
    int n = 0, used = 0;
    if (sscanf(text, "%d:%n", &n, &used) != 1 || n < 0)
        return 0;
    const char *p = text + used;
    while (*p == ' ')
        p++;
    if (!*p)
        return 0;
    snprintf(name, cap, "%s", p);
    return n;
}

int gv_roce_active_mtu(int netdev_mtu)
{
    /* iboe_get_mtu: the headers RoCE v2 adds (GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH 28,
     * ICRC 4) come off the netdev MTU, then the largest IB MTU that fits. */
    int room = netdev_mtu - 96;
    for (int mtu = 4096; mtu >= 256; mtu /= 2)
        if (room >= mtu)
            return mtu;
    return -1;
}

static void read_netdevs(const char *root, gv_rdma_report *r)
{
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf ignored;
    if (gv_sys_list(root, "/sys/class/net", &names, &n, &ignored) != GV_OK)
        return;
    r->netdevs = calloc(n ? n : 1, sizeof *r->netdevs);
    if (!r->netdevs) {
        r->out_of_memory = 1;
        free(names);
        return;
    }
    for (size_t i = 0; i < n; i++)
        snprintf(r->netdevs[i], sizeof r->netdevs[0], "%s", names[i]);
    r->netdev_count = n;
    free(names);
}

static const char *const rdma_modules[] = {"ib_core", "rdma_cm", "ib_uverbs", "mlx5_core",
                                           "mlx5_ib"};

/* Loaded (/proc/modules), built in (/sys/module without a /proc/modules line, or listed in
 * modules.builtin), absent, or unknown when /proc/modules cannot be read. */
static void module_state(const char *root, const gv_modules *mods, int mods_ok, const char *builtin,
                         const char *builtin_file, const char *name, gv_rdma_module *m)
{
    m->struct_size = sizeof *m;
    snprintf(m->name, sizeof m->name, "%s", name);
    for (size_t i = 0; mods_ok && i < mods->count; i++)
        if (strcmp(mods->names[i], name) == 0) {
            m->state = GV_MODULE_LOADED;
            snprintf(m->source, sizeof m->source, "%s/proc/modules", gv_sys_shown(root));
            return;
        }
    char rel[PATH_MAX], needle[64];
    snprintf(rel, sizeof rel, "/sys/module/%s", name);
    snprintf(needle, sizeof needle, "/%s.ko", name);
    if (gv_sys_exists(root, rel)) {
        m->state = mods_ok ? GV_MODULE_BUILTIN : GV_MODULE_LOADED;
        snprintf(m->source, sizeof m->source, "%s%s", gv_sys_shown(root), rel);
    } else if (builtin && strstr(builtin, needle)) {
        m->state = GV_MODULE_BUILTIN;
        snprintf(m->source, sizeof m->source, "%s%s", gv_sys_shown(root), builtin_file);
    } else {
        m->state = mods_ok ? GV_MODULE_ABSENT : GV_MODULE_STATE_UNKNOWN;
    }
}

static void read_modules(const char *root, gv_rdma_report *r)
{
    gv_modules mods = {0};
    r->modules_status = gv_modules_read(root, &mods, &r->modules_err);
    int ok = r->modules_status == GV_OK;
    char release[64] = "";
    gv_errbuf ignored;
    gv_read_kernel_release(root, release, sizeof release, &ignored);
    /* modules.builtin, read once: the built-in modules that have no /sys/module entry. */
    char file[PATH_MAX];
    snprintf(file, sizeof file, "/lib/modules/%s/modules.builtin", release);
    char *builtin = release[0] ? malloc(1 << 20) : NULL;
    if (builtin && gv_sys_read(root, file, builtin, 1 << 20, &ignored) != GV_OK) {
        free(builtin);
        builtin = NULL;
    }
    size_t n = sizeof rdma_modules / sizeof *rdma_modules;
    r->modules = calloc(n, sizeof *r->modules);
    if (!r->modules) {
        r->out_of_memory = 1;
    } else {
        for (size_t i = 0; i < n; i++)
            module_state(root, &mods, ok, builtin, file, rdma_modules[i], &r->modules[i]);
        r->module_count = n;
    }
    free(builtin);
    /* Legacy peer memory: the peer-memory client's files, else the modules themselves. */
    static const char *const peer_files[] = {"/sys/kernel/mm/memory_peers/nv_mem/version",
                                             "/sys/kernel/mm/memory_peers/nv_mem_nc/version",
                                             "/sys/module/nvidia_peermem/version",
                                             "/sys/module/nv_peer_mem/version"};
    for (size_t i = 0; i < sizeof peer_files / sizeof *peer_files && !r->info.peer_memory; i++)
        if (gv_sys_exists(root, peer_files[i])) {
            r->info.peer_memory = 1;
            snprintf(r->info.peer_memory_source, sizeof r->info.peer_memory_source, "%s%s",
                     gv_sys_shown(root), peer_files[i]);
        }
    for (size_t i = 0; ok && i < mods.count && !r->info.peer_memory; i++)
        if (strcmp(mods.names[i], "nvidia_peermem") == 0 ||
            strcmp(mods.names[i], "nv_peer_mem") == 0) {
            r->info.peer_memory = 1;
            snprintf(r->info.peer_memory_source, sizeof r->info.peer_memory_source,
                     "%s in %s/proc/modules", mods.names[i], gv_sys_shown(root));
        }
    gv_modules_free(&mods);
}

/* Mellanox NIC functions (class 0x02: network, InfiniBand) and those lacking an RDMA device,
 * which is what an unloaded mlx5_ib looks like. */
static void read_mellanox_functions(const char *root, gv_rdma_report *r)
{
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf ignored;
    if (gv_sys_list(root, "/sys/bus/pci/devices", &names, &n, &ignored) != GV_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        char rel[PATH_MAX];
        long vendor = 0, klass = 0;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/vendor", names[i]);
        if (gv_sys_read_long(root, rel, &vendor, &ignored) != GV_OK || vendor != MELLANOX_VENDOR)
            continue;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/class", names[i]);
        if (gv_sys_read_long(root, rel, &klass, &ignored) != GV_OK || (klass >> 16) != 0x02)
            continue;
        char why[64];
        if (gv_netvsc_vf(root, names[i], why, sizeof why))
            continue; /* the VM's frontend Ethernet: read_device names it */
        r->info.mellanox_functions++;
        snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/infiniband", names[i]);
        if (!gv_sys_exists(root, rel))
            gv_append(r->info.functions_without_rdma, sizeof r->info.functions_without_rdma, ",",
                      names[i]);
    }
    free(names);
}

static void read_optional(const char *root, const char *dir, const char *name, char *out,
                          size_t cap)
{
    char rel[PATH_MAX];
    gv_errbuf ignored;
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    if (gv_sys_read_line(root, rel, out, cap, &ignored) != GV_OK)
        out[0] = '\0';
}

static int is_zero_gid(const char *gid)
{
    for (const char *p = gid; *p; p++)
        if (*p != '0' && *p != ':')
            return 0;
    return 1;
}

static int numeric_order(const void *a, const void *b)
{
    long x = strtol((const char *)a, NULL, 10), y = strtol((const char *)b, NULL, 10);
    return (x > y) - (x < y);
}

/* The set GIDs of a port with their type and netdev; unset entries (zeros) are skipped, as
 * their attributes fail with EINVAL. */
static void read_gids(const char *root, const char *pdir, gv_rdma_report *r, size_t port_index)
{
    char rel[PATH_MAX];
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf err;
    snprintf(rel, sizeof rel, "%s/gids", pdir);
    if (gv_sys_list(root, rel, &names, &n, &err) != GV_OK)
        return;
    if (n) /* an empty directory lists nothing: no array to sort */
        qsort(names, n, sizeof *names, numeric_order);
    gv_rdma_port *p = &r->ports[port_index];
    p->first_gid = (uint32_t)r->gid_count;
    for (size_t i = 0; i < n; i++) {
        char gid[64];
        snprintf(rel, sizeof rel, "%s/gids/%s", pdir, names[i]);
        if (gv_sys_read_line(root, rel, gid, sizeof gid, &err) != GV_OK || is_zero_gid(gid))
            continue;
        gv_rdma_gid *g = gv_rdma_grow(r, (void **)&r->gids, &r->gid_count, &r->gid_cap, sizeof *g);
        if (!g)
            break;
        p = &r->ports[port_index];
        g->struct_size = sizeof *g;
        g->port_index = (uint32_t)port_index;
        g->index = (uint32_t)strtoul(names[i], NULL, 10);
        snprintf(g->gid, sizeof g->gid, "%s", gid);
        snprintf(rel, sizeof rel, "%s/gid_attrs/types/%s", pdir, names[i]);
        if (gv_sys_exists(root, rel) &&
            gv_sys_read_line(root, rel, g->type, sizeof g->type, &err) != GV_OK) {
            char what[64];
            snprintf(what, sizeof what, "gid_attrs/types/%s", names[i]);
            note(p->problem, sizeof p->problem, what, err.text);
        }
        snprintf(rel, sizeof rel, "%s/gid_attrs/ndevs/%s", pdir, names[i]);
        if (gv_sys_exists(root, rel))
            gv_sys_read_line(root, rel, g->netdev, sizeof g->netdev, &err);
        p->gid_count++;
        if (p->roce_v2_gid < 0 && strcmp(g->type, "RoCE v2") == 0)
            p->roce_v2_gid = (int32_t)g->index;
    }
    free(names);
}

/* The port's netdev: its RoCE v2 GID's, any GID's, else the one network interface of the PCI
 * function (or the one whose dev_port is this port). */
static void port_netdev(const char *root, const char *pci_dir, gv_rdma_report *r, gv_rdma_port *p)
{
    for (uint32_t pass = 0; pass < 2 && !p->netdev[0]; pass++)
        for (uint32_t i = p->first_gid; i < p->first_gid + p->gid_count; i++) {
            const gv_rdma_gid *g = &r->gids[i];
            if (g->netdev[0] && (pass == 1 || (int32_t)g->index == p->roce_v2_gid)) {
                snprintf(p->netdev, sizeof p->netdev, "%s", g->netdev);
                break;
            }
        }
    if (p->netdev[0] || !pci_dir[0])
        return;
    char rel[PATH_MAX];
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf ignored;
    snprintf(rel, sizeof rel, "%s/net", pci_dir);
    if (gv_sys_list(root, rel, &names, &n, &ignored) != GV_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        long dev_port = 0;
        snprintf(rel, sizeof rel, "%s/net/%s/dev_port", pci_dir, names[i]);
        if (n == 1 || (gv_sys_read_long(root, rel, &dev_port, &ignored) == GV_OK &&
                       dev_port == (long)p->port - 1)) {
            snprintf(p->netdev, sizeof p->netdev, "%s", names[i]);
            break;
        }
    }
    free(names);
}

static void read_port(const char *root, const char *ddir, const char *pci_dir, const char *port,
                      gv_rdma_report *r, size_t device_index)
{
    gv_rdma_port *p = gv_rdma_grow(r, (void **)&r->ports, &r->port_count, &r->port_cap, sizeof *p);
    if (!p)
        return;
    size_t index = r->port_count - 1;
    const gv_rdma_device *d = &r->devices[device_index];
    p->struct_size = sizeof *p;
    p->device_index = (uint32_t)device_index;
    p->port = (uint32_t)strtoul(port, NULL, 10);
    snprintf(p->device, sizeof p->device, "%s", d->name);
    p->lid = p->netdev_mtu = p->active_mtu = p->max_mtu = p->roce_v2_gid = p->roce_tos = -1;
    p->rate_gbps = -1;

    char pdir[PATH_MAX], rel[PATH_MAX], text[128];
    gv_errbuf err;
    snprintf(pdir, sizeof pdir, "%s/ports/%s", ddir, port);
    snprintf(rel, sizeof rel, "%s/state", pdir);
    if (gv_sys_read_line(root, rel, text, sizeof text, &err) != GV_OK)
        note(p->problem, sizeof p->problem, "state", err.text);
    else if (!(p->state = parse_numbered(text, p->state_text, sizeof p->state_text)))
        note(p->problem, sizeof p->problem, "state", "not '<number>: <name>'");
    snprintf(rel, sizeof rel, "%s/phys_state", pdir);
    if (gv_sys_read_line(root, rel, text, sizeof text, &err) != GV_OK)
        note(p->problem, sizeof p->problem, "phys_state", err.text);
    else if (!(p->phys_state = parse_numbered(text, p->phys_state_text, sizeof p->phys_state_text)))
        note(p->problem, sizeof p->problem, "phys_state", "not '<number>: <name>'");
    snprintf(rel, sizeof rel, "%s/rate", pdir);
    if (gv_sys_read_line(root, rel, p->rate_text, sizeof p->rate_text, &err) != GV_OK) {
        note(p->problem, sizeof p->problem, "rate", err.text);
    } else {
        /* 0 (no link) to 3200 Gb/s: past XDR x4 (800) and any port a kernel reports. */
        double gbps;
        const char *q = p->rate_text;
        enum gv_parse_result pr = gv_parse_double_at(&q, 0, GV_RDMA_RATE_MAX_GBPS, &gbps);
        if (pr == GV_PARSE_OK && (strncmp(q, " Gb/sec", 7) != 0 || (q[7] && q[7] != ' ')))
            pr = GV_PARSE_TRAILING;
        if (pr == GV_PARSE_OK) {
            p->rate_gbps = gbps;
        } else {
            char why[PATH_MAX + 160];
            snprintf(why, sizeof why, "reading %s%s: '%.24s': %s (0-%d Gb/sec)", gv_sys_shown(root),
                     rel, p->rate_text, gv_parse_why(pr), (int)GV_RDMA_RATE_MAX_GBPS);
            note(p->problem, sizeof p->problem, "rate", why);
        }
    }
    read_optional(root, pdir, "link_layer", text, sizeof text);
    p->link_layer = strcmp(text, "InfiniBand") == 0 ? GV_LINK_LAYER_INFINIBAND
                    : strcmp(text, "Ethernet") == 0 ? GV_LINK_LAYER_ETHERNET
                                                    : GV_LINK_LAYER_UNKNOWN;
    if (p->link_layer == GV_LINK_LAYER_UNKNOWN)
        note(p->problem, sizeof p->problem, "link_layer",
             text[0] ? "neither InfiniBand nor Ethernet" : "absent or empty");
    long lid;
    snprintf(rel, sizeof rel, "%s/lid", pdir);
    if (gv_sys_read_long(root, rel, &lid, &err) == GV_OK)
        p->lid = (int32_t)lid;

    read_gids(root, pdir, r, index);
    p = &r->ports[index];
    port_netdev(root, pci_dir, r, p);
    /* After the netdev: a RoCE port's carrier changes are its netdev's. */
    gv_rdma_read_port_counters(root, pdir, p);
    if (p->netdev[0]) {
        long mtu;
        snprintf(rel, sizeof rel, "/sys/class/net/%s/mtu", p->netdev);
        if (gv_sys_read_long(root, rel, &mtu, &err) == GV_OK && mtu > 0)
            p->netdev_mtu = (int32_t)mtu;
    }
    if (p->link_layer == GV_LINK_LAYER_ETHERNET && p->netdev_mtu > 0) {
        p->active_mtu = gv_roce_active_mtu(p->netdev_mtu);
        p->max_mtu = 4096;
        p->mtu_source = GV_MTU_NETDEV;
    }
    /* RoCE ToS for RDMA-CM connections: configfs, present only once someone configured it. */
    char cfg[PATH_MAX];
    long tos;
    snprintf(cfg, sizeof cfg, "/sys/kernel/config/rdma_cm/%s/ports/%s", d->name, port);
    snprintf(rel, sizeof rel, "%s/default_roce_tos", cfg);
    if (gv_sys_exists(root, rel)) {
        if (gv_sys_read_long(root, rel, &tos, &err) == GV_OK && tos >= 0 && tos <= 255)
            p->roce_tos = (int32_t)tos;
        else
            note(p->problem, sizeof p->problem, "default_roce_tos", err.text);
    }
    read_optional(root, cfg, "default_roce_mode", p->roce_mode, sizeof p->roce_mode);
}

static void read_device(const char *root, const char *name, gv_rdma_report *r)
{
    gv_rdma_device *d =
        gv_rdma_grow(r, (void **)&r->devices, &r->device_count, &r->device_cap, sizeof *d);
    if (!d)
        return;
    size_t index = r->device_count - 1;
    d->struct_size = sizeof *d;
    d->numa_node = d->pci_vendor_id = d->pci_device_id = -1;
    d->first_port = (uint32_t)r->port_count;
    snprintf(d->name, sizeof d->name, "%s", name);

    char link[PATH_MAX], dir[PATH_MAX], rel[PATH_MAX];
    gv_errbuf err;
    snprintf(link, sizeof link, "/sys/class/infiniband/%s", name);
    if (gv_sys_resolve(root, link, dir, sizeof dir, &err) != GV_OK) {
        note(d->problem, sizeof d->problem, link, err.text);
        return;
    }
    if (!gv_sys_exists(root, dir)) {
        note(d->problem, sizeof d->problem, link, "points to a directory that does not exist");
        return;
    }
    read_optional(root, dir, "fw_ver", d->fw_ver, sizeof d->fw_ver);
    read_optional(root, dir, "node_guid", d->node_guid, sizeof d->node_guid);
    read_optional(root, dir, "hca_type", d->hca_type, sizeof d->hca_type);
    read_optional(root, dir, "board_id", d->board_id, sizeof d->board_id);

    char pci_dir[PATH_MAX] = "";
    snprintf(rel, sizeof rel, "%s/device", dir);
    gv_pci_addr addr;
    if (gv_sys_exists(root, rel) &&
        gv_sys_resolve(root, rel, pci_dir, sizeof pci_dir, &err) == GV_OK) {
        const char *base = strrchr(pci_dir, '/');
        char why[64];
        if (base && gv_netvsc_vf(root, base + 1, why, sizeof why)) {
            /* The VM's frontend Ethernet, not a fabric: left out, and named. */
            char one[160];
            snprintf(one, sizeof one, "%s (%s)", name, why);
            gv_append(r->info.vm_frontend, sizeof r->info.vm_frontend, ", ", one);
            r->device_count--;
            return;
        }
        if (base && gv_pci_parse_addr(base + 1, &addr) == 0) {
            gv_pci_format_addr(&addr, d->pci_bus_id, sizeof d->pci_bus_id);
            gv_pci_function fn;
            if (gv_pci_read_function(root, &addr, &fn, &err) == GV_OK) {
                d->pci_vendor_id = fn.vendor;
                d->pci_device_id = fn.device;
                d->numa_node = fn.numa_node;
            }
        } else {
            const char *bad = base ? gv_pci_addr_why(base + 1, NULL) : NULL;
            if (bad && strncmp(bad, "its PCI domain", 14) == 0) {
                char line[PATH_MAX + 96];
                snprintf(line, sizeof line, "%s%s: %s: the NIC's PCI address is unknown",
                         gv_sys_shown(root), pci_dir, bad);
                note(d->problem, sizeof d->problem, "device", line);
            }
            pci_dir[0] = '\0'; /* not a PCI device (soft RoCE, SCIF) */
        }
    }

    char(*ports)[256] = NULL;
    size_t n = 0;
    snprintf(rel, sizeof rel, "%s/ports", dir);
    if (gv_sys_list(root, rel, &ports, &n, &err) != GV_OK) {
        note(d->problem, sizeof d->problem, "ports", err.text);
        return;
    }
    if (n)
        qsort(ports, n, sizeof *ports, numeric_order);
    for (size_t i = 0; i < n && !r->out_of_memory; i++)
        read_port(root, dir, pci_dir, ports[i], r, index);
    free(ports);
    d = &r->devices[index];
    d->port_count = (uint32_t)(r->port_count - d->first_port);
}

void gv_rdma_read_sysfs(const char *root, gv_rdma_report *r)
{
    read_netdevs(root, r);
    read_modules(root, r);
    read_mellanox_functions(root, r);
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_errbuf ignored;
    if (gv_sys_list(root, "/sys/class/infiniband", &names, &n, &ignored) == GV_OK) {
        for (size_t i = 0; i < n && !r->out_of_memory; i++)
            read_device(root, names[i], r);
        free(names);
    }
    for (size_t i = 0; i < r->port_count; i++)
        r->info.active_ports += r->ports[i].state == GV_PORT_ACTIVE;
}
