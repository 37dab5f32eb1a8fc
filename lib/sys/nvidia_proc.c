/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/nvidia_proc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "gpuverify/gv_driver.h"
#include "sys/sysroot.h"

/* "580.95.05", "550.120": two to four dot-separated numbers, each 0..99999 in base 10 (a
 * leading zero is no octal): a version too large to be any driver's is no version. */
int gv_nvidia_version_ok(const char *t)
{
    const char *p = t;
    int parts = 0;
    for (;;) {
        uint64_t v;
        if (!isdigit((unsigned char)*p) || gv_parse_u64_at(&p, 10, 0, 99999, &v) != GV_PARSE_OK)
            return 0;
        parts++;
        if (*p != '.')
            break;
        p++;
    }
    return !*p && parts >= 2 && parts <= 4;
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
    if (!tok || !gv_nvidia_version_ok(tok) || strlen(tok) >= sizeof out->version)
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
    if (gv_parse_nvidia_version(line, out) != GV_OK) {
        char shown[101];
        gv_text_clean(shown, sizeof shown, line);
        return gv_err(err, GV_ERR_PARSE,
                      "reading %s%s: no driver version (numbers of 0..99999 joined by dots) after "
                      "'Kernel Module' in '%s'",
                      gv_sys_shown(root), file, shown);
    }
    return GV_OK;
}

/* "3" -> 3; anything else (or beyond the 255 minors the driver hands out to GPUs) -> -1. */
static int parse_minor(const char *text)
{
    uint64_t v;
    return gv_parse_u64(text, 10, 0, 254, &v) == GV_PARSE_OK ? (int)v : -1;
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
        if (!colon) {
            char shown[81];
            gv_text_clean(shown, sizeof shown, line);
            return gv_err(err, GV_ERR_PARSE, "reading %s%s: line %d has no 'Key:': '%s'",
                          gv_sys_shown(root), rel, lineno, shown);
        }
        *colon = '\0';
        char *key = gv_trim(line), *value = gv_trim(colon + 1);
        /* Names reach messages: control bytes replaced, so none adds a line. */
        if (strcmp(key, "Model") == 0)
            gv_text_clean(g->model, sizeof g->model, value);
        else if (strcmp(key, "GPU UUID") == 0)
            gv_text_clean(g->uuid, sizeof g->uuid, value);
        else if (strcmp(key, "Video BIOS") == 0)
            gv_text_clean(g->vbios, sizeof g->vbios, value);
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
    /* One GPU's bad file costs that GPU's record (its problem says why), not its siblings'. */
    for (size_t i = 0; i < n; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s/information", dir, names[i]);
        snprintf(gpus[i].bus_id, sizeof gpus[i].bus_id, "%s", names[i]);
        gpus[i].minor = -1;
        gv_errbuf why;
        if (parse_information(root, rel, &gpus[i], &why) != GV_OK) {
            gv_nvidia_gpu_info blank = {.minor = -1};
            memcpy(blank.bus_id, gpus[i].bus_id, sizeof blank.bus_id);
            gv_text_clean(blank.problem, sizeof blank.problem, why.text);
            gpus[i] = blank;
        }
    }
    free(names);
    *out = gpus;
    *count = n;
    return GV_OK;
}

gv_status gv_read_nvidia_sysfs_module(const char *root, char *version, size_t vcap, char *taint,
                                      size_t tcap, gv_errbuf *err)
{
    version[0] = taint[0] = '\0';
    gv_status bad = GV_OK;
    if (gv_sys_exists(root, "/sys/module/nvidia/version")) {
        gv_status s = gv_sys_read_line(root, "/sys/module/nvidia/version", version, vcap, err);
        if (s != GV_OK)
            return s;
        if (!gv_nvidia_version_ok(version)) {
            char shown[64];
            gv_text_clean(shown, sizeof shown, version);
            version[0] = '\0';
            bad = gv_err(err, GV_ERR_PARSE,
                         "reading %s/sys/module/nvidia/version: '%s' is no driver version "
                         "(numbers of 0..99999 joined by dots)",
                         gv_sys_shown(root), shown);
        }
    }
    if (gv_sys_exists(root, "/sys/module/nvidia/taint")) {
        /* An untainted module has an empty taint file: that is not an error. */
        char buf[64];
        gv_errbuf why;
        gv_status s = gv_sys_read(root, "/sys/module/nvidia/taint", buf, sizeof buf, &why);
        if (s == GV_ERR_PARSE && !buf[0])
            s = GV_OK;
        if (s != GV_OK)
            return gv_err(err, s, "%s", why.text);
        gv_text_clean(taint, tcap, gv_trim(buf));
    }
    return bad;
}
