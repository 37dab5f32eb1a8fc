/* Hostile sysroots: files that block (a FIFO), never end (/dev/zero), loop (symlinks), lead
 * out of the root (absolute and ../ links), or hold garbage. Every read must stay inside the
 * root, return, and never turn garbage into a PASS. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers.h"

#define MARKER "PRETTY_NAME=\"OUTSIDE THE SYSROOT\"\n"

/* A copy of the healthy 8-GPU fixture to spoil. */
static char *copy_of_h100(void)
{
    char *root = temp_root();
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp -a '%s/.' '%s/'", fixture("sysroots/h100-open"), root);
    assert_int_equal(system(cmd), 0);
    return root;
}

static void replace_with_link(const char *root, const char *rel, const char *target)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
}

static void replace_with_fifo(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    unlink(path);
    assert_int_equal(mkfifo(path, 0644), 0);
}

/* /dev/zero's device node inside the root; 0 when this user may not make one. */
static int replace_with_zero(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    unlink(path);
    return mknod(path, S_IFCHR | 0644, makedev(1, 5)) == 0;
}

static gv_report *run_on(const char *root, const char *checks, int require_rdma)
{
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = emptylib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_policy p = GV_POLICY_INIT;
    p.require_rdma = require_rdma;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = checks;
    o.policy = &p;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

static void no_row_contains(const gv_report *r, const char *text)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        if (strstr(c.message, text) || strstr(c.measured, text))
            fail_msg("%s %s shows what lies outside the sysroot: %s", c.id, c.subject, c.message);
    }
}

static void links_out_of_the_root_are_not_followed(void **state)
{
    (void)state;
    char *root = copy_of_h100(), *outside = temp_root();
    put_file(outside, "/os-release", MARKER);
    char target[4096];
    snprintf(target, sizeof target, "%s/os-release", outside);
    replace_with_link(root, "/etc/os-release", target); /* absolute: lands inside the root */
    replace_with_link(root, "/proc/sys/kernel/osrelease", "../../../../../../../../etc/os-release");
    gv_report *r = run_on(root, "system", 0);
    no_row_contains(r, "OUTSIDE THE SYSROOT");
    assert_int_not_equal(verdict_of(r, "system.os", "node"), GV_PASS);
    assert_int_not_equal(verdict_of(r, "system.kernel", "node"), GV_PASS);
    gv_report_free(r);
    remove_tree(root);
    remove_tree(outside);
    free(root);
    free(outside);
}

static void fifos_and_loops_return_errors(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    replace_with_fifo(root, "/proc/modules");
    replace_with_link(root, "/proc/sys/kernel/osrelease", "/proc/sys/kernel/loop");
    replace_with_link(root, "/proc/sys/kernel/loop", "osrelease");
    replace_with_fifo(root, "/dev/kmsg");
    put_file(root, "/boot/config-6.8.0-45-generic", "");
    replace_with_fifo(root, "/boot/config-6.8.0-45-generic");
    gv_report *r = run_on(root, "system,driver.module,gpu.xid,gpudirect.p2pdma", 1);
    /* /proc/modules read as empty without blocking; /sys/module still says nvidia is there. */
    assert_non_null(strstr(result_of(r, "driver.module", "node").message, "nvidia"));
    gv_check_result kernel = result_of(r, "system.kernel", "node");
    assert_int_not_equal(kernel.verdict, GV_PASS);
    assert_non_null(strstr(kernel.message, "Too many levels of symbolic links"));
    assert_int_not_equal(verdict_of(r, "gpudirect.p2pdma", "node"), GV_PASS);
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

static void endless_files_are_cut_short(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    if (!replace_with_zero(root, "/dev/kmsg") ||
        !replace_with_zero(root, "/proc/sys/kernel/osrelease")) {
        remove_tree(root);
        free(root);
        skip(); /* mknod needs root */
    }
    put_file(root, "/boot/config-x", "");
    replace_with_zero(root, "/boot/config-x");
    gv_report *r = run_on(root, "system.kernel,gpu.xid", 0);
    assert_int_not_equal(verdict_of(r, "system.kernel", "node"), GV_PASS);
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

static void garbage_values_never_pass(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    put_file(root, "/sys/bus/pci/devices/0000:db:00.0/current_link_speed", "fast\n");
    put_file(root, "/sys/bus/pci/devices/0000:db:00.0/current_link_width", "-3\n");
    put_file(root, "/proc/driver/nvidia/version", "\x01\x02 garbage \xff\n");
    gv_report *r = run_on(root, "gpu.pcie_link,gpu.pci,driver.module,driver.version", 0);
    assert_int_not_equal(verdict_of(r, "gpu.pcie_link", "gpu7"), GV_PASS);
    assert_int_not_equal(verdict_of(r, "driver.module", "node"), GV_PASS);
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(links_out_of_the_root_are_not_followed),
                                       cmocka_unit_test(fifos_and_loops_return_errors),
                                       cmocka_unit_test(endless_files_are_cut_short),
                                       cmocka_unit_test(garbage_values_never_pass)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
