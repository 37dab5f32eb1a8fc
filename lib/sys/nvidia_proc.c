#include "sys/nvidia_proc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuverify/gv_driver.h"
#include "sys/sysroot.h"

static int is_version(const char *t)
{
    if (!isdigit((unsigned char)t[0]))
        return 0;
    int dots = 0;
    for (; *t; t++) {
        if (*t == '.')
            dots++;
        else if (!isdigit((unsigned char)*t))
            return 0;
    }
    return dots >= 1;
}

gv_status gv_parse_nvidia_version(const char *line, gv_nvidia_module *out)
{
    memset(out, 0, sizeof *out);
    if (strncmp(line, "NVRM version:", 13) != 0)
        return GV_ERR_PARSE;
    out->kind = strstr(line, "Open Kernel Module") ? GV_MODULE_OPEN : GV_MODULE_PROPRIETARY;
    const char *m = strstr(line, "Kernel Module");
    if (!m)
        return GV_ERR_PARSE;
    /* Tokens after "Kernel Module": optional "for <arch>", then the version. */
    char rest[256];
    snprintf(rest, sizeof rest, "%s", m + strlen("Kernel Module"));
    char *save = NULL;
    char *tok = strtok_r(rest, " \t", &save);
    if (tok && strcmp(tok, "for") == 0) {
        tok = strtok_r(NULL, " \t", &save);
        if (tok)
            snprintf(out->arch, sizeof out->arch, "%s", tok);
        tok = strtok_r(NULL, " \t", &save);
    } else {
        /* Proprietary form: "NVIDIA UNIX x86_64 Kernel Module": arch before "Kernel". */
        const char *u = strstr(line, "NVIDIA UNIX ");
        if (u && u < m)
            sscanf(u + strlen("NVIDIA UNIX "), "%15s", out->arch);
    }
    if (!tok || !is_version(tok) || strlen(tok) >= sizeof out->version)
        return GV_ERR_PARSE;
    snprintf(out->version, sizeof out->version, "%s", tok);
    return GV_OK;
}

gv_status gv_read_nvidia_version(const char *root, gv_nvidia_module *out, gv_errbuf *err)
{
    char line[512];
    const char *file = "/proc/driver/nvidia/version";
    gv_status s = gv_sys_read_line(root, file, line, sizeof line, err);
    if (s != GV_OK)
        return s;
    if (gv_parse_nvidia_version(line, out) != GV_OK)
        return gv_err(err, GV_ERR_PARSE,
                      "reading %s%s: no module version after 'Kernel Module' in '%.100s'",
                      gv_sys_shown(root), file, line);
    return GV_OK;
}

/* "3" -> 3; anything else (or beyond the 255 minors the driver hands out to GPUs) -> -1. */
static int parse_minor(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    return end != text && !*end && v >= 0 && v < 255 ? (int)v : -1;
}

static gv_status parse_information(const char *root, const char *rel, gv_nvidia_gpu_info *g,
                                   gv_errbuf *err)
{
    char text[4096];
    gv_status s = gv_sys_read(root, rel, text, sizeof text, err);
    if (s != GV_OK)
        return s;
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        if (!gv_trim(line)[0])
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            return gv_err(err, GV_ERR_PARSE, "reading %s%s: line %d has no 'Key:': '%.80s'",
                          gv_sys_shown(root), rel, lineno, line);
        *colon = '\0';
        char *key = gv_trim(line), *value = gv_trim(colon + 1);
        if (strcmp(key, "Model") == 0)
            snprintf(g->model, sizeof g->model, "%s", value);
        else if (strcmp(key, "GPU UUID") == 0)
            snprintf(g->uuid, sizeof g->uuid, "%s", value);
        else if (strcmp(key, "Video BIOS") == 0)
            snprintf(g->vbios, sizeof g->vbios, "%s", value);
        else if (strcmp(key, "GPU Excluded") == 0 || strcmp(key, "Blacklisted") == 0)
            g->excluded = strcmp(value, "Yes") == 0;
        else if (strcmp(key, "Device Minor") == 0)
            g->minor = parse_minor(value);
    }
    if (!g->model[0])
        return gv_err(err, GV_ERR_PARSE, "reading %s%s: no 'Model:' line (truncated?)",
                      gv_sys_shown(root), rel);
    return GV_OK;
}

gv_status gv_read_nvidia_gpus(const char *root, gv_nvidia_gpu_info **out, size_t *count,
                              gv_errbuf *err)
{
    *out = NULL;
    *count = 0;
    const char *dir = "/proc/driver/nvidia/gpus";
    if (!gv_sys_exists(root, dir))
        return GV_OK;
    char(*names)[256] = NULL;
    size_t n = 0;
    gv_status s = gv_sys_list(root, dir, &names, &n, err);
    if (s != GV_OK)
        return s;
    gv_nvidia_gpu_info *gpus = calloc(n ? n : 1, sizeof *gpus);
    if (!gpus) {
        free(names);
        return gv_err(err, GV_ERR_NO_MEMORY, "reading %s: out of memory", dir);
    }
    for (size_t i = 0; i < n && s == GV_OK; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s/information", dir, names[i]);
        snprintf(gpus[i].bus_id, sizeof gpus[i].bus_id, "%s", names[i]);
        gpus[i].minor = -1;
        s = parse_information(root, rel, &gpus[i], err);
    }
    free(names);
    if (s != GV_OK) {
        free(gpus);
        return s;
    }
    *out = gpus;
    *count = n;
    return GV_OK;
}

gv_status gv_read_nvidia_sysfs_module(const char *root, char *version, size_t vcap, char *taint,
                                      size_t tcap, gv_errbuf *err)
{
    version[0] = taint[0] = '\0';
    if (gv_sys_exists(root, "/sys/module/nvidia/version")) {
        gv_status s = gv_sys_read_line(root, "/sys/module/nvidia/version", version, vcap, err);
        if (s != GV_OK)
            return s;
    }
    if (gv_sys_exists(root, "/sys/module/nvidia/taint")) {
        /* An untainted module has an empty taint file: that is not an error. */
        char buf[64];
        gv_status s = gv_sys_read(root, "/sys/module/nvidia/taint", buf, sizeof buf, err);
        if (s == GV_ERR_PARSE && !buf[0])
            s = GV_OK;
        if (s != GV_OK)
            return s;
        snprintf(taint, tcap, "%s", gv_trim(buf));
    }
    return GV_OK;
}
