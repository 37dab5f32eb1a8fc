/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile node inputs: a kernel log that is binary or never ends, numbers too large to hold,
 * one GPU's empty driver file, a driver that names a GPU by another PCI domain. Each costs the
 * record it spoils, never its siblings, and never reads as a PASS. */
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers.h"

static void drop(char *root)
{
    remove_tree(root);
    free(root);
}

/* n bytes at the end of <root><rel> (mode "ab") or in its place ("wb"). */
static void write_bytes(const char *root, const char *rel, const char *mode, const void *data,
                        size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    FILE *f = fopen(path, mode);
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void append_text(const char *root, const char *rel, const char *text)
{
    write_bytes(root, rel, "ab", text, strlen(text));
}

/* Bytes a seeded generator makes: the same "random" file on every run. */
static void random_bytes(unsigned char *out, size_t n)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        out[i] = (unsigned char)(x >> 24);
    }
}

/* A character device node in place of <root><rel>; 0 when this user may not make one. */
static int replace_with_device(const char *root, const char *rel, unsigned minor)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    unlink(path);
    return mknod(path, S_IFCHR | 0644, makedev(1, minor)) == 0;
}

static gv_report *run_on(const char *root, const char *checks)
{
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = emptylib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = checks;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

/* "-1" standing alone (not "6.5.0-1025" nor "-12"): an unknown printed as a value. */
static int has_minus_one(const char *s)
{
    for (const char *p = strstr(s, "-1"); p; p = strstr(p + 1, "-1"))
        if ((p == s || !isalnum((unsigned char)p[-1])) && !isdigit((unsigned char)p[2]))
            return 1;
    return 0;
}

static void no_minus_one(const gv_report *r)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        if (has_minus_one(c.message) || has_minus_one(c.measured))
            fail_msg("%s %s shows a made-up -1: %s", c.id, c.subject, c.message);
    }
}

/* Every GPU's gpu.xid is an ERROR naming the log and the reason. */
static void every_xid_row_errs(const gv_report *r, const char *why)
{
    for (unsigned i = 0; i < 8; i++) {
        char subject[16];
        snprintf(subject, sizeof subject, "gpu%u", i);
        gv_check_result c = result_of(r, "gpu.xid", subject);
        assert_int_equal(c.verdict, GV_ERROR);
        assert_non_null(strstr(c.message, "/dev/kmsg"));
        assert_non_null(strstr(c.message, why));
    }
}

static void kmsg_of_random_bytes_is_an_error(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    static unsigned char noise[100000];
    random_bytes(noise, sizeof noise);
    write_bytes(root, "/dev/kmsg", "wb", noise, sizeof noise);
    gv_report *r = run_on(root, "gpu.xid");
    every_xid_row_errs(r, "not text");
    gv_report_free(r);
    drop(root);
}

/* A kernel log that cannot be read as one (a directory in its place; root reads any file, so a
 * mode would not stop CI): every GPU's row says so, never a quiet pass. */
static void unreadable_kmsg_is_loud(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    char path[4096];
    snprintf(path, sizeof path, "%s/dev/kmsg", root);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    gv_report *r = run_on(root, "gpu.xid");
    every_xid_row_errs(r, "not a kernel log");
    assert_int_equal(result_of(r, "gpu.xid", "gpu0").action, GV_ACTION_FIX_CONFIG);
    gv_report_free(r);
    drop(root);
}

/* Another device in the log's place (/dev/null or /dev/console bound over it, as a kind node
 * links it; /dev/zero, /dev/urandom) is no log: the node's row says it was not read, and no GPU
 * passes on its silence. */
static void devices_other_than_the_log_are_not_read(void **state)
{
    (void)state;
    unsigned minors[] = {3 /* /dev/null */, 5 /* /dev/zero */, 9 /* /dev/urandom */};
    for (size_t i = 0; i < sizeof minors / sizeof *minors; i++) {
        char *root = copy_of_h100();
        if (!replace_with_device(root, "/dev/kmsg", minors[i])) {
            drop(root);
            skip(); /* mknod needs root */
        }
        gv_report *r = run_on(root, "gpu.xid");
        gv_check_result node = result_of(r, "gpu.xid", "node");
        assert_int_equal(node.verdict, GV_WARN);
        assert_non_null(strstr(node.message, "kernel log not read"));
        char device[64];
        snprintf(device, sizeof device, "character device 1:%u, not the kernel's log (1:11)",
                 minors[i]);
        assert_non_null(strstr(node.message, device));
        assert_int_equal(gv_report_count(r), 1);
        gv_report_free(r);
        drop(root);
    }
}

/* Binary records amid the log: the lines that are text still count. */
static void readable_lines_beside_binary_ones_count(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    unsigned char noise[4096];
    random_bytes(noise, sizeof noise);
    write_bytes(root, "/dev/kmsg", "ab", noise, sizeof noise);
    append_text(root, "/dev/kmsg",
                "\n4,950,7000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid='<unknown>', "
                "name=<unknown>, GPU has fallen off the bus.\n");
    gv_report *r = run_on(root, "gpu.xid");
    gv_check_result g0 = result_of(r, "gpu.xid", "gpu0");
    assert_int_equal(g0.verdict, GV_ERROR);
    assert_non_null(strstr(g0.message, "codes 13")); /* the fixture's Xid 13, still read */
    gv_check_result g1 = result_of(r, "gpu.xid", "gpu1");
    assert_int_equal(g1.verdict, GV_FAIL); /* a fault read beside the binary stands */
    assert_non_null(strstr(g1.message, "79"));
    assert_non_null(strstr(g1.message, "not text"));
    gv_report_free(r);
    drop(root);
}

static void xid_code_too_large_is_unreadable(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    append_text(root, "/dev/kmsg",
                "4,950,7000000,-;NVRM: Xid (PCI:0000:2a:00): 99999999999999999999999, pid=1, "
                "name=x\n"
                "4,951,7000001,-;NVRM: Xid (PCI:0000:3a:00): 99999999999999999999999, pid=1\n"
                "4,952,7000002,-;NVRM: Xid (PCI:0000:3a:00): 79, pid=1, GPU has fallen off the "
                "bus.\n");
    gv_report *r = run_on(root, "gpu.xid");
    no_minus_one(r);
    gv_check_result g0 = result_of(r, "gpu.xid", "gpu0");
    assert_int_equal(g0.verdict, GV_PASS); /* its sibling's Xid 13 still counts */
    assert_non_null(strstr(g0.message, "codes 13"));
    gv_check_result g1 = result_of(r, "gpu.xid", "gpu1");
    assert_int_equal(g1.verdict, GV_ERROR);
    assert_non_null(strstr(g1.message, "out of range"));
    assert_non_null(strstr(g1.message, "/dev/kmsg"));
    gv_check_result g2 = result_of(r, "gpu.xid", "gpu2");
    assert_int_equal(g2.verdict, GV_FAIL); /* a real fault beside it stands */
    assert_non_null(strstr(g2.message, "codes 79"));
    assert_non_null(strstr(g2.message, "out of range"));
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu3"), GV_PASS);
    gv_report_free(r);
    drop(root);
}

/* One GPU's empty information file costs that GPU's name, not its siblings', and its row
 * names the file. */
static void one_empty_information_file_costs_one_gpu(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    put_file(root, "/proc/driver/nvidia/gpus/0000:2a:00.0/information", "");
    gv_report *r = run_on(root, "gpu.model");
    assert_int_equal(gv_report_gpu_count(r), 8);
    for (uint32_t i = 0; i < 8; i++)
        if (i != 1)
            assert_string_equal(gpu_of(r, i).name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(gpu_of(r, 1).name, "");
    gv_check_result m = result_of(r, "gpu.model", "gpu1");
    assert_int_equal(m.verdict, GV_ERROR);
    assert_non_null(strstr(m.message, "/proc/driver/nvidia/gpus/0000:2a:00.0/information"));
    assert_non_null(strstr(m.message, "empty"));
    assert_int_equal(verdict_of(r, "gpu.model", "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(r, "gpu.model", "gpu7"), GV_PASS);
    gv_report_free(r);
    drop(root);
}

/* A driver version too large to be any driver's is no version. */
static void driver_version_out_of_range_is_an_error(void **state)
{
    (void)state;
    const char *versions[] = {"99999999999999999999", "99999999999999999999.95.05",
                              "580.99999999999999999999.05"};
    for (size_t i = 0; i < 3; i++) {
        char *root = copy_of_h100();
        char line[256];
        snprintf(line, sizeof line,
                 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build\n",
                 versions[i]);
        put_file(root, "/proc/driver/nvidia/version", line);
        gv_report *r = run_on(root, "driver.version,driver.module");
        gv_check_result v = result_of(r, "driver.version", "node");
        assert_int_equal(v.verdict, GV_ERROR);
        assert_non_null(strstr(v.message, "/proc/driver/nvidia/version"));
        assert_int_equal(verdict_of(r, "driver.module", "node"), GV_ERROR);
        gv_report_free(r);
        drop(root);
    }
    char *root = copy_of_h100();
    put_file(root, "/sys/module/nvidia/version", "99999999999999999999\n");
    gv_report *r = run_on(root, "driver.module");
    gv_check_result m = result_of(r, "driver.module", "node");
    assert_int_equal(m.verdict, GV_ERROR);
    assert_non_null(strstr(m.message, "/sys/module/nvidia/version"));
    gv_report_free(r);
    drop(root);
}

/* A root that is no node's (neither /proc nor /sys: a --host-root mount at another path) is an
 * ERROR saying so, not "the nvidia module not loaded" with a made-up GPU count. */
static void a_root_without_proc_or_sys_is_no_node(void **state)
{
    (void)state;
    char *root = temp_root();
    put_file(root, "/etc/os-release", "ID=debian\n");
    gv_report *r = run_on(root, "driver.module");
    gv_check_result m = result_of(r, "driver.module", "node");
    assert_int_equal(m.verdict, GV_ERROR);
    assert_int_equal(m.action, GV_ACTION_FIX_CONFIG);
    assert_non_null(strstr(m.message, "neither /proc/modules nor /sys/module"));
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

/* A Hyper-V VM whose driver writes the GPU's 32-bit domain truncated: one GPU, named, whatever
 * the domain in /proc/driver/nvidia/gpus says. */
static void truncated_domain_is_one_gpu(void **state)
{
    (void)state;
    gv_report *r = run_on(fixture("sysroots/vm-truncated-domain"), GV_TEST_PASSIVE_CHECKS);
    assert_int_equal(gv_report_gpu_count(r), 1);
    gv_gpu g = gpu_of(r, 0);
    assert_string_equal(g.pci_bus_id, "47d9:00:00.0");
    assert_string_equal(g.name, "NVIDIA H100 PCIe");
    assert_string_equal(g.uuid, "GPU-2b7c4e1a-9d3f-4a6b-8c0e-1f2a3b4c5d6e");
    assert_int_equal(verdict_of(r, "gpu.model", "gpu0"), GV_PASS);
    no_minus_one(r);
    gv_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kmsg_of_random_bytes_is_an_error),
        cmocka_unit_test(devices_other_than_the_log_are_not_read),
        cmocka_unit_test(unreadable_kmsg_is_loud),
        cmocka_unit_test(readable_lines_beside_binary_ones_count),
        cmocka_unit_test(xid_code_too_large_is_unreadable),
        cmocka_unit_test(one_empty_information_file_costs_one_gpu),
        cmocka_unit_test(driver_version_out_of_range_is_an_error),
        cmocka_unit_test(truncated_domain_is_one_gpu),
        cmocka_unit_test(a_root_without_proc_or_sys_is_no_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
