/* SPDX-License-Identifier: Apache-2.0 */
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
#include "sys/pci.h"

#define MARKER "PRETTY_NAME=\"OUTSIDE THE SYSROOT\"\n"

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

/* The row's verdict is want and its message contains every text given. */
static void expect_row(const gv_report *r, const char *id, const char *subject, int want,
                       const char *text, const char *more)
{
    gv_check_result c = result_of(r, id, subject);
    if (c.verdict != want || !strstr(c.message, text) || (more && !strstr(c.message, more)))
        fail_msg("%s %s: %s '%s', wanted %s containing '%s'", id, subject,
                 gv_verdict_name(c.verdict), c.message, gv_verdict_name(want), text);
}

/* Numbers no PCIe link reports are an unknown link, named, never a link of "x-1". */
static void pcie_link_out_of_range_is_an_error(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    put_file(root, "/sys/bus/pci/devices/0000:db:00.0/current_link_speed",
             "99999999999999999999 GT/s\n");
    put_file(root, "/sys/bus/pci/devices/0000:ba:00.0/current_link_width", "4294967312\n");
    put_file(root, "/sys/bus/pci/devices/0000:ab:00.0/max_link_width", "64\n");
    put_file(root, "/sys/bus/pci/devices/0000:9a:00.0/current_link_speed", "1.0 GT/s PCIe\n");
    gv_report *r = run_on(root, "gpu.pcie_link,gpu.pci", 0);
    expect_row(r, "gpu.pcie_link", "gpu7", GV_ERROR, "0000:db:00.0/current_link_speed",
               "out of range");
    expect_row(r, "gpu.pci", "gpu7", GV_ERROR, "0000:db:00.0/current_link_speed", "out of range");
    expect_row(r, "gpu.pcie_link", "gpu6", GV_ERROR, "0000:ba:00.0/current_link_width",
               "'4294967312' is out of range (0 to 32)");
    expect_row(r, "gpu.pci", "gpu6", GV_ERROR, "current_link_width", NULL);
    expect_row(r, "gpu.pcie_link", "gpu5", GV_ERROR, "max_link_width", "'64' is out of range");
    expect_row(r, "gpu.pcie_link", "gpu4", GV_ERROR, "current_link_speed", "out of range");
    expect_row(r, "gpu.pcie_link", "gpu0", GV_PASS, "x16 at 32.0 GT/s", NULL);
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        assert_null(strstr(c.message, "x-1"));
    }
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

/* A GPU's local_cpulist that is no list of CPUs: gpu.pci names the file. */
static void garbage_cpulist_is_an_error(void **state)
{
    (void)state;
    char *root = copy_of_h100();
    put_file(root, "/sys/bus/pci/devices/0000:db:00.0/local_cpulist", "garbage-cpus\n");
    put_file(root, "/sys/bus/pci/devices/0000:ba:00.0/local_cpulist", "0-55,112-99999\n");
    put_file(root, "/sys/bus/pci/devices/0000:ab:00.0/local_cpulist", "56-12\n");
    put_file(root, "/sys/bus/pci/devices/0000:9a:00.0/local_cpulist", "56-111,,168-223\n");
    gv_report *r = run_on(root, "gpu.pci", 0);
    expect_row(r, "gpu.pci", "gpu7", GV_ERROR, "0000:db:00.0/local_cpulist: 'garbage-cpus'",
               "not a CPU list (not a number");
    expect_row(r, "gpu.pci", "gpu6", GV_ERROR, "local_cpulist", "out of range");
    expect_row(r, "gpu.pci", "gpu5", GV_ERROR, "local_cpulist", "out of range");
    expect_row(r, "gpu.pci", "gpu4", GV_ERROR, "local_cpulist", "not a number");
    expect_row(r, "gpu.pci", "gpu3", GV_PASS, "CPUs 0-55,112-167", NULL);
    assert_int_equal(gv_pci_parse_cpulist("0-55,112-167"), GV_PARSE_OK);
    assert_int_equal(gv_pci_parse_cpulist("7"), GV_PARSE_OK);
    assert_int_equal(gv_pci_parse_cpulist("0-3,"), GV_PARSE_EMPTY);
    assert_int_equal(gv_pci_parse_cpulist("0-3 x"), GV_PARSE_TRAILING);
    assert_int_equal(gv_pci_parse_cpulist("65536"), GV_PARSE_RANGE);
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

/* A device named with a PCI domain over 32 bits is not truncated into another address. */
static void wide_domain_is_no_address(void **state)
{
    (void)state;
    gv_pci_addr a;
    assert_int_equal(gv_pci_parse_addr("1ffffffff:00:00.0", &a), -1);
    assert_non_null(strstr(gv_pci_addr_why("1ffffffff:00:00.0", NULL), "wider than 32 bits"));
    assert_int_equal(gv_pci_parse_addr("ffffffff:00:00.0", &a), 0);
    assert_int_equal(a.domain, 0xffffffffu);
    char *root = copy_of_h100();
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/sys/bus/pci/devices/0000:db:00.0", root);
    snprintf(to, sizeof to, "%s/sys/bus/pci/devices/1ffffffff:db:00.0", root);
    assert_int_equal(rename(from, to), 0);
    gv_report *r = run_on(root, "gpu.pci,gpu.pcie_link", 0);
    int named = 0;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        assert_null(strstr(c.message, "ffffffff:db:00.0 x"));
        if (strstr(c.message, "1ffffffff:db:00.0: its PCI domain is wider than 32 bits")) {
            assert_int_equal(c.verdict, GV_ERROR);
            named++;
        }
    }
    assert_int_equal(named, 2); /* gpu.pci and gpu.pcie_link of that GPU */
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(links_out_of_the_root_are_not_followed),
                                       cmocka_unit_test(fifos_and_loops_return_errors),
                                       cmocka_unit_test(endless_files_are_cut_short),
                                       cmocka_unit_test(garbage_values_never_pass),
                                       cmocka_unit_test(pcie_link_out_of_range_is_an_error),
                                       cmocka_unit_test(garbage_cpulist_is_an_error),
                                       cmocka_unit_test(wide_domain_is_no_address)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
