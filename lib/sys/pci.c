#include "sys/pci.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

int gv_pci_parse_addr(const char *text, gv_pci_addr *out)
{
    char tail;
    if (text[strspn(text, "0123456789abcdefABCDEF:.")] != '\0')
        return -1;
    if (sscanf(text, "%x:%x:%x.%x%c", &out->domain, &out->bus, &out->device, &out->function,
               &tail) != 4)
        return -1;
    if (out->bus > 0xff || out->device > 0x1f || out->function > 7)
        return -1;
    return 0;
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

gv_status gv_pci_parse_speed(const char *text, double *gts)
{
    char *end = NULL;
    double v = strtod(text, &end);
    while (end && *end == ' ')
        end++;
    if (end != text && v > 0 && strncmp(end, "GT/s", 4) == 0) {
        *gts = v;
        return GV_OK;
    }
    if (strncmp(text, "Unknown", 7) == 0) {
        *gts = -1;
        return GV_OK;
    }
    return GV_ERR_PARSE;
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
    if (gv_pci_parse_speed(text, out) != GV_OK)
        snprintf(problem, cap, "reading %s%s: '%s' is not a link speed", gv_sys_shown(root), rel,
                 text);
}

static void read_number(const char *root, const char *dir, const char *name, int *out,
                        char *problem, size_t cap)
{
    char rel[PATH_MAX];
    long v;
    gv_errbuf err;
    *out = -1;
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    if (!gv_sys_exists(root, rel))
        return;
    if (gv_sys_read_long(root, rel, &v, &err) != GV_OK || v < INT_MIN || v > INT_MAX) {
        snprintf(problem, cap, "%s", err.text);
        return;
    }
    *out = (int)v;
}

/* The function's attributes; dir is its resolved root-relative sysfs directory. */
static void read_function(const char *root, const char *dir, gv_pci_function *f)
{
    char *p = f->problem;
    size_t cap = sizeof f->problem;
    read_number(root, dir, "numa_node", &f->numa_node, p, cap);
    read_speed(root, dir, "current_link_speed", &f->link_speed_current, p, cap);
    read_speed(root, dir, "max_link_speed", &f->link_speed_max, p, cap);
    read_number(root, dir, "current_link_width", &f->link_width_current, p, cap);
    read_number(root, dir, "max_link_width", &f->link_width_max, p, cap);
    char rel[PATH_MAX], bound[PATH_MAX];
    gv_errbuf err;
    /* The driver link (../../../bus/pci/drivers/nvidia): absent when no driver claimed it. */
    snprintf(rel, sizeof rel, "%s/driver", dir);
    if (gv_sys_exists(root, rel) && gv_sys_resolve(root, rel, bound, sizeof bound, &err) == GV_OK) {
        const char *name = strrchr(bound, '/');
        snprintf(f->driver, sizeof f->driver, "%s", name ? name + 1 : bound);
    }
    snprintf(rel, sizeof rel, "%s/local_cpulist", dir);
    if (gv_sys_exists(root, rel) &&
        gv_sys_read_line(root, rel, f->local_cpus, sizeof f->local_cpus, &err) != GV_OK)
        snprintf(p, cap, "%s", err.text);
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
            read_number(root, parent, "max_link_width", &f->upstream_width_max, ignored,
                        sizeof ignored);
        }
        end = name;
    }
}

static int by_addr(const void *a, const void *b)
{
    return gv_pci_addr_compare(&((const gv_pci_function *)a)->addr,
                               &((const gv_pci_function *)b)->addr);
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
        if (gv_pci_parse_addr(names[i], &f->addr) != 0)
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
        snprintf(f->bdf, sizeof f->bdf, "%s", names[i]);
        f->vendor = (int)vendor;
        f->device = (int)device;
        f->class_code = (int)klass;
        read_function(root, dir, f);
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
