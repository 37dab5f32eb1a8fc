/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: every reader of a node's files at once. The input is up to N records separated
 * by 0x1e, written to the files below in a scratch sysroot (a missing record removes the
 * file); then the checks that judge files, and gv_rdma_status, run over it offline. Covers
 * /proc/modules, /proc/driver/nvidia (version, gpus/<bdf>/information), PCI and RDMA sysfs
 * attributes, os-release, the kernel release, /dev/kmsg Xid lines, the kernel configuration
 * (plain and gzip), nccl.conf, the AER statistics of the GPU and its port, and /proc/uptime.
 *
 * Then the same bytes damage each clean seed of tests/fuzz/corpus/fuzz_sysroot (fuzz_text.h:
 * byte 0 picks the seed, each 4 bytes after it insert a byte no file holds into one of its
 * files): a row the clean seed did not PASS must not PASS (a damaged file read as healthy). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_text.h"
#include "gpuverify/gpuverify.h"

#define GPU "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define IB "/sys/class/infiniband/mlx5_0"

static const char *const files[] = {
    "/proc/modules",
    "/proc/driver/nvidia/version",
    "/proc/driver/nvidia/gpus/0000:01:00.0/information",
    "/etc/os-release",
    "/proc/sys/kernel/osrelease",
    GPU "/vendor",
    GPU "/device",
    GPU "/class",
    GPU "/current_link_speed",
    GPU "/current_link_width",
    GPU "/max_link_speed",
    GPU "/max_link_width",
    GPU "/numa_node",
    GPU "/local_cpulist",
    "/sys/devices/pci0000:00/0000:00:01.0/max_link_speed",
    IB "/ports/1/state",
    IB "/ports/1/phys_state",
    IB "/ports/1/rate",
    IB "/ports/1/link_layer",
    IB "/ports/1/gid_attrs/types/0",
    IB "/ports/1/gids/0",
    "/dev/kmsg",
    "/proc/config.gz",
    "/etc/nccl.conf",
    "/sys/module/nvidia/version",
    GPU "/aer_dev_correctable",
    "/sys/devices/pci0000:00/0000:00:01.0/aer_dev_fatal",
    "/proc/uptime",
};
#define NFILES (sizeof files / sizeof *files)

/* A scratch sysroot, its context, and what its files hold now (rewritten only when they
 * change: creating and truncating files is most of a run's time). */
typedef struct scratch {
    char root[64];
    gv_ctx *ctx;
    int known[NFILES];
    char *held[NFILES]; /* NULL: no file */
    size_t len[NFILES];
} scratch;

static scratch fuzzed, damaged; /* the input as it is; a clean seed damaged */

static void mkdirs(char *path)
{
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

static void scaffold(scratch *s, const char *name)
{
    snprintf(s->root, sizeof s->root, "/tmp/gv-fuzz-%s-%d", name, (int)getpid());
    char path[512];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/x", s->root);
    mkdirs(path);
    snprintf(path, sizeof path, "%s" GPU "/x", s->root);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0", s->root);
    symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", path);
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.sysroot = s->root;
    o.live_libraries = 0;
    if (gv_ctx_create(&o, &s->ctx) != GV_OK)
        abort();
}

/* The input's records (0x1e-separated, at most NFILES): record i in rec[i], len[i] bytes, or
 * rec[i] NULL when the input ends before it. Each record is a copy (free them). */
static void split(const uint8_t *data, size_t size, char **rec, size_t *len)
{
    size_t at = 0;
    for (size_t i = 0; i < NFILES; i++) {
        rec[i] = NULL;
        len[i] = 0;
        if (at > size)
            continue;
        const uint8_t *end = memchr(data + at, 0x1e, size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        rec[i] = fuzz_text(data + at, n);
        len[i] = n;
        at += n + 1;
    }
}

/* The files of a scratch sysroot: record i's bytes, or no file for a NULL one. */
static void write_files(scratch *s, char **rec, const size_t *len)
{
    for (size_t i = 0; i < NFILES; i++) {
        if (s->known[i] && !rec[i] == !s->held[i] &&
            (!rec[i] || (len[i] == s->len[i] && memcmp(rec[i], s->held[i], len[i]) == 0)))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s%s", s->root, files[i]);
        free(s->held[i]);
        s->held[i] = NULL;
        s->known[i] = 1;
        if (!rec[i]) {
            unlink(path);
            continue;
        }
        mkdirs(path);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(rec[i], 1, len[i], f);
            fclose(f);
        }
        s->held[i] = fuzz_text((const uint8_t *)rec[i], len[i]);
        s->len[i] = len[i];
    }
}

static void free_records(char **rec)
{
    for (size_t i = 0; i < NFILES; i++)
        free(rec[i]);
}

/* The checks that judge files, over the scratch sysroot as it is; NULL when gv_run refused. */
static gv_report *judge(gv_ctx *ctx)
{
    gv_policy p = GV_POLICY_INIT;
    p.require_rdma = 1;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "system,driver,gpu,rdma,gpudirect";
    ro.isolation = GV_ISOLATION_NONE;
    ro.policy = &p;
    gv_report *r = NULL;
    if (gv_run(ctx, &ro, &r) != GV_OK)
        return NULL;
    char *json = NULL;
    if (gv_report_json(r, 0, &json) != GV_OK)
        abort();
    gv_free(json);
    return r;
}

/* The clean seeds and the rows each did not PASS. */
#define MAX_CLEAN 8
static struct {
    char *data;
    size_t size;
    fuzz_rows not_pass;
} clean[MAX_CLEAN];
static size_t nclean;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_clean(void)
{
    DIR *d = opendir(GV_FUZZ_CORPUS "/fuzz_sysroot");
    char *names[MAX_CLEAN];
    size_t n = 0;
    for (struct dirent *e; d && n < MAX_CLEAN && (e = readdir(d));)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; k++) {
        char path[512], *rec[NFILES];
        size_t len[NFILES];
        snprintf(path, sizeof path, "%s/fuzz_sysroot/%s", GV_FUZZ_CORPUS, names[k]);
        free(names[k]);
        char *data = fuzz_read_file(path, &clean[nclean].size);
        if (!data)
            continue;
        split((const uint8_t *)data, clean[nclean].size, rec, len);
        write_files(&damaged, rec, len);
        free_records(rec);
        gv_report *r = judge(damaged.ctx);
        if (!r)
            abort(); /* a seed the checks cannot run over */
        fuzz_rows_not_pass(r, &clean[nclean].not_pass);
        gv_report_free(r);
        for (size_t i = 0; getenv("GV_FUZZ_SHOW") && i < clean[nclean].not_pass.n; i++)
            fprintf(stderr, "fuzz_sysroot: %s: not PASS: %s\n", path,
                    clean[nclean].not_pass.key[i]);
        clean[nclean++].data = data;
    }
    if (!nclean) {
        fprintf(stderr, "fuzz_sysroot: no seed in %s/fuzz_sysroot\n", GV_FUZZ_CORPUS);
        abort();
    }
}

/* A clean seed damaged as the input says: no row it did not PASS may PASS. */
static void damage(const uint8_t *data, size_t size)
{
    if (size < 1)
        return;
    size_t which = data[0] % nclean;
    char *rec[NFILES];
    size_t len[NFILES];
    split((const uint8_t *)clean[which].data, clean[which].size, rec, len);
    fuzz_damage d[FUZZ_MAX_DAMAGE];
    size_t n = fuzz_damages(data + 1, size - 1, d);
    for (size_t k = 0; k < n; k++) {
        size_t i = d[k].what % NFILES;
        if (rec[i]) /* a file the seed has: one it lacks stays missing */
            rec[i] = fuzz_insert(rec[i], &len[i], d[k].at, d[k].byte);
    }
    write_files(&damaged, rec, len);
    free_records(rec);
    gv_report *r = judge(damaged.ctx);
    if (r)
        fuzz_assert_no_new_pass(&clean[which].not_pass, r, "fuzz_sysroot");
    gv_report_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzzed.ctx) {
        scaffold(&fuzzed, "root");
        scaffold(&damaged, "damaged");
        load_clean();
    }
    gv_ctx *ctx = fuzzed.ctx;
    char *rec[NFILES];
    size_t len[NFILES];
    split(data, size, rec, len);
    write_files(&fuzzed, rec, len);
    free_records(rec);
    gv_report_free(judge(ctx));
    gv_rdma_opts rdma = GV_RDMA_OPTS_INIT;
    rdma.flags = GV_RDMA_IGNORE_ENVIRONMENT;
    gv_rdma_report *rr = NULL;
    if (gv_rdma_status(ctx, &rdma, &rr) == GV_OK)
        gv_rdma_free(rr);
    damage(data, size);
    return 0;
}
