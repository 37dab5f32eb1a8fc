/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's settings as NCCL itself would see them, and the network it would choose.
 *
 * Precedence follows NCCL's initEnv: the environment, then $NCCL_CONF_FILE (else
 * ~/.nccl.conf), then /etc/nccl.conf, each filling only what is still unset. Lines exported by
 * /etc/profile.d scripts come last: NCCL sees them only in login shells, which Slurm batch
 * steps and services are not, and the source says so. Sources name files as the node sees them
 * (without the sysroot). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/parse.h"
#include "core/util.h"
#include "gpuverify/gv_driver.h"
#include "rdma/rdma.h"
#include "sys/sysroot.h"

static const char *const nccl_names[] = {"NCCL_NET",
                                         "NCCL_IB_DISABLE",
                                         "NCCL_IB_HCA",
                                         "NCCL_SOCKET_IFNAME",
                                         "NCCL_IB_TC",
                                         "NCCL_IB_GID_INDEX",
                                         "NCCL_IB_ROCE_VERSION_NUM",
                                         "NCCL_NET_GDR_LEVEL",
                                         "NCCL_P2P_LEVEL",
                                         "NCCL_DMABUF_ENABLE",
                                         "NCCL_NET_PLUGIN",
                                         "NCCL_ALGO",
                                         "NCCL_PROTO",
                                         "NCCL_P2P_DISABLE",
                                         "NCCL_SHM_DISABLE",
                                         "NCCL_NVLS_ENABLE",
                                         "NCCL_TOPO_FILE",
                                         "NCCL_COLLNET_ENABLE"};

const gv_rdma_setting *gv_rdma_setting_find(const gv_rdma_report *r, const char *name)
{
    for (size_t i = 0; i < r->setting_count; i++)
        if (strcmp(r->settings[i].name, name) == 0)
            return r->settings[i].set ? &r->settings[i] : NULL;
    return NULL;
}

static void fill(gv_rdma_report *r, const char *name, const char *value, const char *source)
{
    for (size_t i = 0; i < r->setting_count; i++) {
        gv_rdma_setting *s = &r->settings[i];
        if (strcmp(s->name, name) != 0 || s->set)
            continue;
        s->set = 1;
        snprintf(s->value, sizeof s->value, "%s", value);
        snprintf(s->source, sizeof s->source, "%s", source);
    }
}

/* Why a configuration file could not be taken, named as the node sees it, like the sources. */
static void unreadable(gv_rdma_report *r, const char *rel, const char *why)
{
    char line[PATH_MAX + 128];
    snprintf(line, sizeof line, "%s: %s", rel, why);
    gv_append(r->nccl_problem, sizeof r->nccl_problem, "; ", line);
}

/* The whole of a regular file up to GV_NCCL_CONF_MAX, NUL-terminated (free it); NULL when
 * absent (nothing noted) or not taken (noted). Opened without blocking and judged by fstat
 * before any read: a FIFO or a device in its place must neither hang nor feed us. */
static char *whole_file(const char *root, const char *rel, gv_rdma_report *r)
{
    int fd = gv_sys_open(root, rel, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            unreadable(r, rel, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        unreadable(r, rel,
                   S_ISFIFO(st.st_mode)                         ? "a FIFO, not a file"
                   : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device, not a file"
                                                                : "not a regular file");
        close(fd);
        return NULL;
    }
    char *text = NULL, why[96] = "";
    size_t used = 0;
    if (st.st_size > (off_t)GV_NCCL_CONF_MAX) {
        snprintf(why, sizeof why, "%lld bytes, more than the %u read", (long long)st.st_size,
                 GV_NCCL_CONF_MAX);
    } else if (!(text = malloc(GV_NCCL_CONF_MAX + 2))) {
        snprintf(why, sizeof why, "out of memory");
    } else {
        for (;;) { /* one byte past the bound tells a file that grew while read */
            ssize_t n = read(fd, text + used, GV_NCCL_CONF_MAX + 1 - used);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                snprintf(why, sizeof why, "%s", strerror(errno));
            if (n <= 0 || (used += (size_t)n) > GV_NCCL_CONF_MAX)
                break;
        }
        if (!why[0] && used > GV_NCCL_CONF_MAX)
            snprintf(why, sizeof why, "more than the %u bytes read", GV_NCCL_CONF_MAX);
        else if (!why[0] && !gv_text_is_printable(text, used))
            snprintf(why, sizeof why, "binary data, not a configuration");
    }
    close(fd);
    if (why[0]) {
        unreadable(r, rel, why);
        free(text);
        return NULL;
    }
    text[used] = '\0';
    return text;
}

/* One KEY=VALUE file (NCCL's format; '#' comments). With profile = 1, shell lines
 * "export KEY=VALUE" with optional quotes. Absent files are simply skipped. */
static void read_file(const char *root, const char *rel, int profile, const char *source,
                      gv_rdma_report *r)
{
    char *text = whole_file(root, rel, r);
    if (!text)
        return;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line = gv_trim(line);
        if (profile && strncmp(line, "export ", 7) == 0)
            line = gv_trim(line + 7);
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq)
            continue;
        *eq = '\0';
        char *key = gv_trim(line), *value = gv_trim(eq + 1);
        size_t n = strlen(value);
        if (profile && n >= 2 && (value[0] == '"' || value[0] == '\'') &&
            value[n - 1] == value[0]) {
            value[n - 1] = '\0';
            value++;
        }
        fill(r, key, value, source);
    }
    free(text);
}

void gv_rdma_read_nccl(const char *root, int use_environment, gv_rdma_report *r)
{
    size_t n = sizeof nccl_names / sizeof *nccl_names;
    r->settings = calloc(n, sizeof *r->settings);
    if (!r->settings) {
        r->out_of_memory = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        r->settings[i].struct_size = sizeof r->settings[i];
        snprintf(r->settings[i].name, sizeof r->settings[i].name, "%s", nccl_names[i]);
    }
    r->setting_count = n;
    char source[PATH_MAX + 64];
    if (use_environment) {
        for (size_t i = 0; i < n; i++) {
            const char *v = getenv(nccl_names[i]);
            if (v)
                fill(r, nccl_names[i], v, "environment");
        }
        const char *conf = getenv("NCCL_CONF_FILE"), *home = getenv("HOME");
        char rel[PATH_MAX] = "";
        if (conf && conf[0] == '/')
            snprintf(rel, sizeof rel, "%s", conf);
        else if (home && home[0] == '/')
            snprintf(rel, sizeof rel, "%s/.nccl.conf", home);
        if (rel[0])
            read_file(root, rel, 0, rel, r);
    }
    read_file(root, "/etc/nccl.conf", 0, "/etc/nccl.conf", r);
    char(*names)[256] = NULL;
    size_t count = 0;
    gv_errbuf ignored;
    if (gv_sys_list(root, "/etc/profile.d", &names, &count, &ignored) == GV_OK) {
        for (size_t i = 0; i < count; i++) {
            size_t len = strlen(names[i]);
            if (len < 4 || strcmp(names[i] + len - 3, ".sh") != 0)
                continue;
            char rel[PATH_MAX];
            snprintf(rel, sizeof rel, "/etc/profile.d/%s", names[i]);
            snprintf(source, sizeof source, "%s (login shells only)", rel);
            read_file(root, rel, 1, source, r);
        }
        free(names);
    }
}

int gv_nccl_list_matches(const char *list, const char *name, unsigned port)
{
    int exclude = 0, exact = 0;
    if (*list == '^') {
        exclude = 1;
        list++;
    }
    if (*list == '=') {
        exact = 1;
        list++;
    }
    int matched = 0;
    while (*list && !matched) {
        size_t len = strcspn(list, ",");
        char entry[128];
        snprintf(entry, sizeof entry, "%.*s", (int)(len < sizeof entry ? len : sizeof entry - 1),
                 list);
        char *colon = strchr(entry, ':');
        long want_port = -1;
        if (colon) {
            *colon = '\0';
            want_port = strtol(colon + 1, NULL, 10);
        }
        int name_ok = exact ? strcmp(name, entry) == 0 : strncmp(name, entry, strlen(entry)) == 0;
        if (name_ok && (want_port < 0 || port == 0 || want_port == (long)port))
            matched = 1;
        list += len;
        if (*list == ',')
            list++;
    }
    return matched != exclude;
}

static void choose(gv_rdma_report *r, int net, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void choose(gv_rdma_report *r, int net, const char *fmt, ...)
{
    r->info.nccl_net = net;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->info.nccl_reason, sizeof r->info.nccl_reason, fmt, ap);
    va_end(ap);
}

void gv_rdma_nccl_choice(gv_rdma_report *r)
{
    const gv_rdma_setting *net = gv_rdma_setting_find(r, "NCCL_NET");
    const gv_rdma_setting *disable = gv_rdma_setting_find(r, "NCCL_IB_DISABLE");
    const gv_rdma_setting *hca = gv_rdma_setting_find(r, "NCCL_IB_HCA");
    r->info.nccl_ports[0] = '\0';
    if (net && strcasecmp(net->value, "Socket") == 0)
        return choose(r, GV_NCCL_NET_SOCKET, "NCCL_NET=Socket (%s)", net->source);
    if (disable && strtol(disable->value, NULL, 10) != 0)
        return choose(r, GV_NCCL_NET_SOCKET, "NCCL_IB_DISABLE=%s (%s) turns the IB transport off",
                      disable->value, disable->source);
    if (r->info.verbs_state == GV_LIBSTATE_ABSENT || r->info.verbs_state == GV_LIBSTATE_BROKEN)
        return choose(r, GV_NCCL_NET_SOCKET, "libibverbs.so.1 is not usable: %s",
                      r->info.verbs_detail);
    if (r->device_count == 0 && r->info.vm_frontend[0])
        return choose(r, GV_NCCL_NET_SOCKET,
                      "no RDMA fabric device: only %s, the VM's frontend Ethernet, which NCCL "
                      "would try for a job across VMs unless NCCL_IB_HCA leaves it out",
                      r->info.vm_frontend);
    if (r->device_count == 0)
        return choose(r, GV_NCCL_NET_SOCKET,
                      "no RDMA device (/sys/class/infiniband is empty or absent)");
    char active[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < r->port_count; i++) {
        const gv_rdma_port *p = &r->ports[i];
        if (p->state != GV_PORT_ACTIVE || p->link_layer == GV_LINK_LAYER_UNKNOWN)
            continue;
        char id[96];
        snprintf(id, sizeof id, "%s:%u", p->device, p->port);
        gv_append(active, sizeof active, ",", id);
        if (hca && hca->value[0] && !gv_nccl_list_matches(hca->value, p->device, p->port))
            continue;
        gv_append(r->info.nccl_ports, sizeof r->info.nccl_ports, ",", id);
        used++;
    }
    if (!active[0])
        return choose(r, GV_NCCL_NET_SOCKET, "no RDMA port is ACTIVE");
    if (!used)
        return choose(r, GV_NCCL_NET_SOCKET,
                      "NCCL_IB_HCA=%s (%s) matches none of the ACTIVE ports (%s)", hca->value,
                      hca->source, active);
    r->info.nccl_net = GV_NCCL_NET_IB;
    snprintf(r->info.nccl_reason, sizeof r->info.nccl_reason, "%zu ACTIVE port(s)%s%s%s", used,
             hca ? " selected by NCCL_IB_HCA=" : "", hca ? hca->value : "",
             r->info.verbs_state == GV_LIBSTATE_NOT_QUERIED
                 ? " (libibverbs not checked: the libraries of an offline sysroot are not loaded)"
                 : "");
}
