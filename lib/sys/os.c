/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* O_PATH */
#include "sys/os.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sysroot.h"

/* One os-release value: unquotes "..." or '...' and unescapes \" \\ \$ \`; -1 if a quote is
 * left open. */
static int unquote(char *v)
{
    char q = v[0];
    if (q != '"' && q != '\'')
        return 0;
    char *w = v;
    for (char *r = v + 1; *r; r++) {
        if (*r == q) {
            *w = '\0';
            return r[1] ? -1 : 0;
        }
        if (q == '"' && *r == '\\' && r[1] && strchr("\"\\$`", r[1]))
            r++;
        *w++ = *r;
    }
    return -1;
}

gv_status gv_read_os_release(const char *root, gv_os_release *out, gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    char buf[8192];
    const char *file = "/etc/os-release";
    gv_status s = gv_sys_read(root, file, buf, sizeof buf, err);
    if (s == GV_ERR_IO) {
        file = "/usr/lib/os-release";
        s = gv_sys_read(root, file, buf, sizeof buf, err);
    }
    if (s != GV_OK)
        return s;
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        gv_trim(line);
        if (!line[0] || line[0] == '#')
            continue;
        char *eq = strchr(line, '=');
        if (!eq || eq == line || unquote(eq + 1) < 0)
            return gv_err(err, GV_ERR_PARSE, "reading %s%s: line %d is not KEY=VALUE: '%.80s'",
                          gv_sys_shown(root), file, lineno, line);
        *eq = '\0';
        const char *v = eq + 1;
        if (strcmp(line, "PRETTY_NAME") == 0)
            snprintf(out->pretty_name, sizeof out->pretty_name, "%s", v);
        else if (strcmp(line, "ID") == 0)
            snprintf(out->id, sizeof out->id, "%s", v);
        else if (strcmp(line, "VERSION_ID") == 0)
            snprintf(out->version_id, sizeof out->version_id, "%s", v);
    }
    if (!out->pretty_name[0]) /* os-release(5): PRETTY_NAME defaults to "Linux" */
        snprintf(out->pretty_name, sizeof out->pretty_name, "%s", out->id[0] ? out->id : "Linux");
    return GV_OK;
}

gv_status gv_read_kernel_release(const char *root, char *out, size_t cap, gv_errbuf *err)
{
    const char *file = "/proc/sys/kernel/osrelease";
    gv_status s = gv_sys_read_line(root, file, out, cap, err);
    if (s != GV_OK)
        return s;
    int major, minor;
    if (strpbrk(out, " \t") || gv_kernel_version(out, &major, &minor) < 0)
        return gv_err(err, GV_ERR_PARSE, "reading %s%s: '%.64s' is not a kernel release",
                      gv_sys_shown(root), file, out);
    return GV_OK;
}

int gv_kernel_version(const char *release, int *major, int *minor)
{
    if (sscanf(release, "%d.%d", major, minor) != 2 || *major < 0 || *minor < 0)
        return -1;
    return 0;
}

/* The target of <root>/proc/<pid>/ns/<name> into out; 0, or -1 when it cannot be read. */
static int namespace_of(const char *root, const char *pid, const char *name, char *out, size_t cap)
{
    char rel[64];
    snprintf(rel, sizeof rel, "/proc/%s/ns", pid);
    int dir = gv_sys_open(root, rel, O_PATH | O_DIRECTORY);
    if (dir < 0)
        return -1;
    ssize_t n = readlinkat(dir, name, out, cap - 1);
    close(dir);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/* PROC_PID_INIT_INO: the host's own PID namespace. */
#define HOST_PID_NS "pid:[4026531836]"

int gv_host_pid_namespace(const char *root)
{
    char ns[64];
    if (namespace_of(root, "self", "pid", ns, sizeof ns))
        return -1;
    return strcmp(ns, HOST_PID_NS) == 0;
}

int gv_root_proc_is_hosts(const char *root)
{
    char ns[64];
    if (namespace_of(root, "1", "pid", ns, sizeof ns))
        return -1;
    return strcmp(ns, HOST_PID_NS) == 0;
}

void gv_read_hostname(const char *root, char *out, size_t cap)
{
    char own[64], init[64];
    int host_uts = namespace_of(root, "self", "uts", own, sizeof own) == 0 &&
                   namespace_of(root, "1", "uts", init, sizeof init) == 0 && !strcmp(own, init);
    if (strcmp(root, "/") != 0 && !host_uts &&
        gv_sys_read_line(root, "/etc/hostname", out, cap, NULL) == GV_OK) {
        out[strcspn(out, " \t#")] = '\0';
        /* A cloud image's placeholder, its name set at boot in the kernel only: not the node's. */
        if (out[0] && strncmp(out, "localhost", 9) != 0)
            return;
    }
    if (gv_sys_read_line(root, "/proc/sys/kernel/hostname", out, cap, NULL) != GV_OK)
        out[0] = '\0';
}

double gv_read_uptime_s(const char *root)
{
    char text[64], *end = text;
    if (gv_sys_read_line(root, "/proc/uptime", text, sizeof text, NULL) != GV_OK)
        return -1;
    double up = strtod(text, &end);
    return end != text && up >= 0 && up < 1e10 ? up : -1;
}
