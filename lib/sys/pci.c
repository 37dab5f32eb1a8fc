/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* cpu_set_t, sched_setaffinity */
#include "sys/pci.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

/* Each field in its own range: a domain wider than 32 bits is no domain (the kernel's is an
 * int), and truncating it would name another device. */
const char *gv_pci_addr_why(const char *text, gv_pci_addr *out)
{
    static const struct {
        uint64_t hi;
        char after;
    } fields[4] = {{0xffffffffu, ':'}, {0xff, ':'}, {0x1f, '.'}, {7, '\0'}};
    uint64_t v[4];
    const char *p = text;
    if (!text || text[strspn(text, "0123456789abcdefABCDEF:.")] != '\0')
        return "not a PCI address";
    for (int i = 0; i < 4; i++) {
        enum gv_parse_result r = gv_parse_u64_at(&p, 16, 0, fields[i].hi, &v[i]);
        if (r == GV_PARSE_RANGE && i == 0)
            return "its PCI domain is wider than 32 bits";
        if (r != GV_PARSE_OK || *p != fields[i].after)
            return "not a PCI address";
        p += fields[i].after != '\0';
    }
    gv_pci_addr a = {(unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3]};
    if (out)
        *out = a;
    return NULL;
}

int gv_pci_parse_addr(const char *text, gv_pci_addr *out)
{
    return gv_pci_addr_why(text, out) ? -1 : 0;
}

/* CPU numbers as the kernel's cpulist ("0-55,112-167"): ascending ranges of 0..65535. */
enum gv_parse_result gv_pci_parse_cpulist(const char *text)
{
    const char *p = text;
    if (!p || !*p)
        return GV_PARSE_EMPTY;
    for (;;) {
        uint64_t a, b;
        enum gv_parse_result r = gv_parse_u64_at(&p, 10, 0, 65535, &a);
        if (r != GV_PARSE_OK)
            return r;
        if (*p == '-') {
            p++;
            if ((r = gv_parse_u64_at(&p, 10, 0, 65535, &b)) != GV_PARSE_OK)
                return r;
            if (b < a)
                return GV_PARSE_RANGE;
        }
        if (*p == '\0')
            return GV_PARSE_OK;
        if (*p++ != ',')
            return GV_PARSE_TRAILING;
    }
}

int gv_pci_bind_to_cpus(const char *cpulist)
{
    if (gv_pci_parse_cpulist(cpulist) != GV_PARSE_OK)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const char *p = cpulist;;) {
        uint64_t a, b;
        gv_parse_u64_at(&p, 10, 0, 65535, &a);
        b = a;
        if (*p == '-') {
            p++;
            gv_parse_u64_at(&p, 10, 0, 65535, &b);
        }
        for (uint64_t c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
        if (*p++ != ',')
            break;
    }
    /* CPUs this process may not use (a job's cpuset) are the kernel's to refuse: then the
     * thread keeps the affinity it had. */
    return CPU_COUNT(&set) && sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

void gv_pci_format_addr(const gv_pci_addr *a, char *out, size_t cap)
{
    /* Hyper-V's 32-bit domains keep all eight digits, as sysfs names them. */
    snprintf(out, cap, a->domain > 0xffff ? "%08x:%02x:%02x.%x" : "%04x:%02x:%02x.%x", a->domain,
             a->bus, a->device, a->function);
}

int gv_pci_addr_compare(const gv_pci_addr *a, const gv_pci_addr *b)
{
    const unsigned x[4] = {a->domain, a->bus, a->device, a->function};
    const unsigned y[4] = {b->domain, b->bus, b->device, b->function};
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The rates a PCIe link reports, 2.5 (gen 1) to 128 GT/s (gen 7), then the unit; the kernel
 * may add a label ("32.0 GT/s PCIe"). */
static enum gv_parse_result speed_of(const char *text, double *gts)
{
    const char *p = text;
    double v;
    enum gv_parse_result r = gv_parse_double_at(&p, GV_PCI_SPEED_MIN, GV_PCI_SPEED_MAX, &v);
    if (r != GV_PARSE_OK)
        return r;
    while (*p == ' ')
        p++;
    if (strncmp(p, "GT/s", 4) != 0 || (p[4] != '\0' && p[4] != ' '))
        return GV_PARSE_TRAILING;
    *gts = v;
    return GV_PARSE_OK;
}

gv_status gv_pci_parse_speed(const char *text, double *gts)
{
    if (strcmp(text, "Unknown") == 0) {
        *gts = -1;
        return GV_OK;
    }
    return speed_of(text, gts) == GV_PARSE_OK ? GV_OK : GV_ERR_PARSE;
}

/* Optional attribute files: absent leaves the default; present but malformed is a problem. */
static void read_speed(const char *root, const char *dir, const char *name, double *out,
                       char *problem, size_t cap)
{
    char rel[PATH_MAX], text[64];
    *out = -1;
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    if (!gv_sys_exists(root, rel))
        return;
    gv_errbuf err;
    if (gv_sys_read_line(root, rel, text, sizeof text, &err) != GV_OK) {
        snprintf(problem, cap, "%s", err.text);
        return;
    }
    if (strcmp(text, "Unknown") == 0)
        return;
    enum gv_parse_result r = speed_of(text, out);
    if (r != GV_PARSE_OK) {
        *out = -1;
        snprintf(problem, cap, "reading %s%s: '%.24s' is not a link speed (%s; %g to %g GT/s)",
                 gv_sys_shown(root), rel, text, gv_parse_why(r), GV_PCI_SPEED_MIN,
                 GV_PCI_SPEED_MAX);
    }
}

/* A decimal number in [lo, hi]; -1 (unknown) when absent or not. */
static void read_number(const char *root, const char *dir, const char *name, int lo, int hi,
                        int *out, char *problem, size_t cap)
{
    char rel[PATH_MAX], text[64];
    int64_t v;
    gv_errbuf err;
    *out = -1;
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    if (!gv_sys_exists(root, rel))
        return;
    if (gv_sys_read_line(root, rel, text, sizeof text, &err) != GV_OK) {
        snprintf(problem, cap, "%s", err.text);
        return;
    }
    enum gv_parse_result r = gv_parse_i64(text, 10, lo, hi, &v);
    if (r != GV_PARSE_OK) {
        snprintf(problem, cap, "reading %s%s: '%.24s' is %s (%d to %d)", gv_sys_shown(root), rel,
                 text, gv_parse_why(r), lo, hi);
        return;
    }
    *out = (int)v;
}

/* The function's attributes; dir is its resolved root-relative sysfs directory. */
static void read_function(const char *root, const char *dir, gv_pci_function *f)
{
    char *p = f->problem;
    size_t cap = sizeof f->problem;
    char *lp = f->link_problem;
    size_t lcap = sizeof f->link_problem;
    read_number(root, dir, "numa_node", -1, GV_PCI_NUMA_MAX, &f->numa_node, p, cap);
    read_speed(root, dir, "current_link_speed", &f->link_speed_current, lp, lcap);
    read_speed(root, dir, "max_link_speed", &f->link_speed_max, lp, lcap);
    /* x0: a link that lost every lane (a FAIL of gpu.pcie_link), not an unknown. */
    read_number(root, dir, "current_link_width", 0, GV_PCI_WIDTH_MAX, &f->link_width_current, lp,
                lcap);
    read_number(root, dir, "max_link_width", 1, GV_PCI_WIDTH_MAX, &f->link_width_max, lp, lcap);
    if (lp[0]) { /* one bad file of the link makes the whole link unknown */
        f->link_speed_current = f->link_speed_max = -1;
        f->link_width_current = f->link_width_max = -1;
        if (!p[0])
            snprintf(p, cap, "%s", lp);
    }
    char rel[PATH_MAX], bound[PATH_MAX];
    gv_errbuf err;
    /* The driver link (../../../bus/pci/drivers/nvidia): absent when no driver claimed it. */
    snprintf(rel, sizeof rel, "%s/driver", dir);
    if (gv_sys_exists(root, rel) && gv_sys_resolve(root, rel, bound, sizeof bound, &err) == GV_OK) {
        const char *name = strrchr(bound, '/');
        snprintf(f->driver, sizeof f->driver, "%s", name ? name + 1 : bound);
    }
    snprintf(rel, sizeof rel, "%s/local_cpulist", dir);
    if (gv_sys_exists(root, rel)) {
        enum gv_parse_result r;
        if (gv_sys_read_line(root, rel, f->local_cpus, sizeof f->local_cpus, &err) != GV_OK) {
            snprintf(p, cap, "%s", err.text);
            f->local_cpus[0] = '\0';
        } else if ((r = gv_pci_parse_cpulist(f->local_cpus)) != GV_PARSE_OK) {
            snprintf(p, cap, "reading %s%s: '%.32s' is not a CPU list (%s; 'a-b,c' of 0 to 65535)",
                     gv_sys_shown(root), rel, f->local_cpus, gv_parse_why(r));
            f->local_cpus[0] = '\0'; /* garbage is no affinity to bind a thread to */
        }
    }
    /* The functions above: the directories of the resolved path that are PCI functions; the
     * nearest is the port above, whose link's rate is read too. */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    f->parent_count = 0;
    f->upstream_speed_max = -1;
    f->upstream_width_max = -1;
    for (char *end = strrchr(parent, '/'); end && f->parent_count < GV_PCI_MAX_PARENTS;) {
        *end = '\0';
        char *name = strrchr(parent, '/');
        if (!name || gv_pci_parse_addr(name + 1, &f->parents[f->parent_count]) != 0)
            break;
        if (f->parent_count++ == 0) {
            char ignored[256] = ""; /* the port's own faults are not this function's */
            read_speed(root, parent, "max_link_speed", &f->upstream_speed_max, ignored,
                       sizeof ignored);
            read_number(root, parent, "max_link_width", 1, GV_PCI_WIDTH_MAX, &f->upstream_width_max,
                        ignored, sizeof ignored);
        }
        end = name;
    }
}

static int by_addr(const void *a, const void *b)
{
    const gv_pci_function *x = a, *y = b;
    if (x->addr_unknown != y->addr_unknown)
        return x->addr_unknown - y->addr_unknown; /* those without an address last */
    return gv_pci_addr_compare(&x->addr, &y->addr);
}

gv_status gv_pci_nvidia_gpus(const char *root, gv_pci_function **out, size_t *count, gv_errbuf *err)
{
    return gv_pci_nvidia_functions(root, 0x030000, 0xff0000, out, count, err);
}

gv_status gv_pci_nvidia_functions(const char *root, int class_value, int class_mask,
                                  gv_pci_function **out, size_t *count, gv_errbuf *err)
{
    *out = NULL;
    *count = 0;
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_status s = gv_sys_list(root, "/sys/bus/pci/devices", &names, &n, err);
    if (s != GV_OK)
        return s;
    gv_pci_function *list = calloc(n ? n : 1, sizeof *list);
    if (!list) {
        free(names);
        return gv_err(err, GV_ERR_NO_MEMORY, "listing PCI devices: out of memory");
    }
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        gv_pci_function *f = &list[found];
        memset(f, 0, sizeof *f);
        const char *bad_addr = gv_pci_addr_why(names[i], &f->addr);
        if (bad_addr && strncmp(bad_addr, "its PCI domain", 14) != 0)
            continue;
        char link[PATH_MAX], dir[PATH_MAX];
        snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", names[i]);
        gv_errbuf e;
        long vendor, klass, device;
        if (gv_sys_resolve(root, link, dir, sizeof dir, &e) != GV_OK)
            snprintf(dir, sizeof dir, "%s", link);
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/vendor", dir);
        if (gv_sys_read_long(root, rel, &vendor, &e) != GV_OK || vendor != GV_PCI_VENDOR_NVIDIA)
            continue;
        snprintf(rel, sizeof rel, "%s/class", dir);
        if (gv_sys_read_long(root, rel, &klass, &e) != GV_OK) {
            snprintf(f->problem, sizeof f->problem, "%s", e.text);
            klass = 0x030000; /* unknown class of an NVIDIA function: count it, say why */
        }
        if ((klass & class_mask) != class_value)
            continue;
        snprintf(rel, sizeof rel, "%s/device", dir);
        if (gv_sys_read_long(root, rel, &device, &e) != GV_OK) {
            snprintf(f->problem, sizeof f->problem, "%s", e.text);
            device = -1;
        }
        snprintf(f->bdf, sizeof f->bdf, "%.31s", names[i]);
        f->vendor = (int)vendor;
        f->device = (int)device;
        f->class_code = (int)klass;
        if (bad_addr) {
            /* Kept, so that it is counted and named, but with nothing read by its address. */
            f->addr_unknown = 1;
            f->numa_node = -1;
            f->link_speed_current = f->link_speed_max = f->upstream_speed_max = -1;
            f->link_width_current = f->link_width_max = f->upstream_width_max = -1;
            snprintf(f->problem, sizeof f->problem, "%s%s: %s: the device's address is unknown",
                     gv_sys_shown(root), link, bad_addr);
            snprintf(f->link_problem, sizeof f->link_problem, "%s", f->problem);
        } else {
            read_function(root, dir, f);
        }
        found++;
    }
    free(names);
    if (found)
        qsort(list, found, sizeof *list, by_addr);
    *out = list;
    *count = found;
    return GV_OK;
}

gv_status gv_pci_read_function(const char *root, const gv_pci_addr *addr, gv_pci_function *out,
                               gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    out->addr = *addr;
    gv_pci_format_addr(addr, out->bdf, sizeof out->bdf);
    char link[PATH_MAX], dir[PATH_MAX];
    snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", out->bdf);
    if (!gv_sys_exists(root, link)) /* wide domains: sysfs may print them unpadded */
        snprintf(link, sizeof link, "/sys/bus/pci/devices/%x:%02x:%02x.%x", addr->domain, addr->bus,
                 addr->device, addr->function);
    if (!gv_sys_exists(root, link))
        return gv_err(err, GV_ERR_NOT_FOUND, "%s%s does not exist", gv_sys_shown(root), link);
    if (gv_sys_resolve(root, link, dir, sizeof dir, err) != GV_OK)
        snprintf(dir, sizeof dir, "%s", link);
    long v;
    char rel[PATH_MAX];
    gv_errbuf ignored;
    snprintf(rel, sizeof rel, "%s/vendor", dir);
    out->vendor = gv_sys_read_long(root, rel, &v, &ignored) == GV_OK ? (int)v : -1;
    snprintf(rel, sizeof rel, "%s/device", dir);
    out->device = gv_sys_read_long(root, rel, &v, &ignored) == GV_OK ? (int)v : -1;
    snprintf(rel, sizeof rel, "%s/class", dir);
    out->class_code = gv_sys_read_long(root, rel, &v, &ignored) == GV_OK ? (int)v : -1;
    read_function(root, dir, out);
    return GV_OK;
}
