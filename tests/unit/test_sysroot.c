/* SPDX-License-Identifier: Apache-2.0 */
/* The sysroot readers on good, malformed and hostile files. */
#define _GNU_SOURCE /* O_NOATIME, setresuid */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "gpuverify/gv_driver.h"
#include "sys/modules.h"
#include "sys/mounts.h"
#include "sys/process.h"
#include "sys/nvidia_proc.h"
#include "sys/os.h"
#include "sys/pci.h"
#include "sys/pci_acs.h"
#include "sys/pci_share.h"
#include "sys/sysroot.h"

/* The ports above each GPU from the resolved sysfs path, and the share of a switch's uplink
 * two GPUs under it leave each other (h100-switch-pair: GPUs 2 and 3 under one switch). */
static void pci_parents_and_link_share(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", fixture("sysroots/h100-switch-pair"));
    gv_errbuf err;
    gv_pci_function *fns = NULL;
    size_t n = 0;
    assert_int_equal(gv_pci_nvidia_gpus(dir, &fns, &n, &err), GV_OK);
    assert_int_equal(n, 8);
    assert_int_equal(fns[3].parent_count, 3); /* downstream port, upstream port, root port */
    char bdf[32];
    gv_pci_format_addr(&fns[3].parents[0], bdf, sizeof bdf);
    assert_string_equal(bdf, "0000:39:01.0");
    gv_pci_format_addr(&fns[3].parents[2], bdf, sizeof bdf);
    assert_string_equal(bdf, "0000:37:01.0");
    const gv_pci_function *all[8];
    const char *names[8] = {"gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"};
    for (size_t i = 0; i < 8; i++)
        all[i] = &fns[i];
    char why[160];
    assert_true(gv_pci_link_share(dir, all, names, 8, 0, why, sizeof why) == 1.0);
    assert_string_equal(why, "");
    double share = gv_pci_link_share(dir, all, names, 8, 2, why, sizeof why);
    assert_true(share > 0.499 && share < 0.501);
    assert_string_equal(why, "gpu2, gpu3 under 0000:38:00.0");
    /* Only GPU 2 tested: nothing shared with a GPU that is not copying. */
    assert_true(gv_pci_link_share(dir, all + 2, names + 2, 1, 0, why, sizeof why) == 1.0);
    /* A GPU whose place is unknown shares nothing; GPU 3 then has its switch to itself. */
    all[2] = NULL;
    assert_true(gv_pci_link_share(dir, all, names, 8, 3, why, sizeof why) == 1.0);
    all[2] = &fns[2];
    /* GPU 3 idle at 2.5 GT/s, or trained at x8 (gpu.pcie_link's finding): the share is the
     * links' design, half each, not what they trained at. */
    fns[3].link_speed_current = 2.5;
    fns[3].link_width_current = 8;
    share = gv_pci_link_share(dir, all, names, 8, 2, why, sizeof why);
    assert_true(share > 0.499 && share < 0.501);
    /* GPU 3 built for x8 (its maximum): the x16 uplink carries 16 + 8 lanes' worth, two thirds
     * of it each. */
    fns[3].link_width_max = 8;
    share = gv_pci_link_share(dir, all, names, 8, 2, why, sizeof why);
    assert_true(share > 0.666 && share < 0.667);
    /* A GPU's link rate unknown: the uplink counts as one GPU's, split two ways. */
    fns[3].link_width_max = fns[3].link_width_current = fns[3].upstream_width_max = -1;
    share = gv_pci_link_share(dir, all, names, 8, 2, why, sizeof why);
    assert_true(share > 0.499 && share < 0.501);
    free(fns);
}

static void nvidia_version_lines(void **state)
{
    (void)state;
    gv_nvidia_module m;
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for "
                                             "x86_64  580.159.04  Release Build  (nixbld@)",
                                             &m),
                     GV_OK);
    assert_int_equal(m.kind, GV_MODULE_OPEN);
    assert_string_equal(m.version, "580.159.04");
    assert_string_equal(m.arch, "x86_64");
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                             "535.104.05  Sat Aug 19 01:15:15 UTC 2023",
                                             &m),
                     GV_OK);
    assert_int_equal(m.kind, GV_MODULE_PROPRIETARY);
    assert_string_equal(m.version, "535.104.05");
    assert_string_equal(m.arch, "x86_64");
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for "
                                             "aarch64  570.86.15  Release Build",
                                             &m),
                     GV_OK);
    assert_string_equal(m.arch, "aarch64");
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Mod", &m),
                     GV_ERR_PARSE);
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module", &m),
                     GV_ERR_PARSE);
    assert_int_equal(gv_parse_nvidia_version("garbage", &m), GV_ERR_PARSE);
    assert_int_equal(gv_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                             "abc  Sat",
                                             &m),
                     GV_ERR_PARSE);
}

static void fixture_readers(void **state)
{
    (void)state;
    const char *root = fixture("sysroots/h100-open");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", root);
    gv_errbuf err;
    gv_os_release os;
    assert_int_equal(gv_read_os_release(dir, &os, &err), GV_OK);
    assert_string_equal(os.id, "ubuntu");
    assert_string_equal(os.version_id, "22.04");
    char kernel[64];
    assert_int_equal(gv_read_kernel_release(dir, kernel, sizeof kernel, &err), GV_OK);
    assert_string_equal(kernel, "6.8.0-45-generic");
    int major, minor;
    assert_int_equal(gv_kernel_version(kernel, &major, &minor), 0);
    assert_int_equal(major * 100 + minor, 608);
    gv_modules mods;
    assert_int_equal(gv_modules_read(dir, &mods, &err), GV_OK);
    assert_int_equal(mods.count, 6);
    assert_true(gv_module_present(dir, &mods, "nvidia_uvm"));
    assert_false(gv_module_present(dir, &mods, "nouveau"));
    gv_modules_free(&mods);
    gv_nvidia_gpu_info *gpus = NULL;
    size_t n = 0;
    assert_int_equal(gv_read_nvidia_gpus(dir, &gpus, &n, &err), GV_OK);
    assert_int_equal(n, 8);
    assert_string_equal(gpus[0].model, "NVIDIA H100 80GB HBM3");
    assert_string_equal(gpus[0].vbios, "96.00.99.00.01");
    assert_false(gpus[0].excluded);
    free(gpus);
    gv_pci_function *fns = NULL;
    assert_int_equal(gv_pci_nvidia_gpus(dir, &fns, &n, &err), GV_OK);
    assert_int_equal(n, 8);
    assert_string_equal(fns[7].bdf, "0000:db:00.0");
    assert_int_equal(fns[7].numa_node, 1);
    assert_true(fns[7].upstream_speed_max > 31.9); /* the switch port above */
    assert_int_equal(fns[7].upstream_width_max, 16);
    assert_string_equal(fns[7].problem, "");
    free(fns);
    char v[32], t[16];
    assert_int_equal(gv_read_nvidia_sysfs_module(dir, v, sizeof v, t, sizeof t, &err), GV_OK);
    assert_string_equal(v, "580.95.05");
    assert_string_equal(t, "O");
}

static void pci_text_parsers(void **state)
{
    (void)state;
    double gts;
    assert_int_equal(gv_pci_parse_speed("32.0 GT/s PCIe", &gts), GV_OK);
    assert_true(gts > 31.9 && gts < 32.1);
    char old[] = "8 GT/s";
    assert_int_equal(gv_pci_parse_speed(old, &gts), GV_OK);
    assert_true(gts > 7.9 && gts < 8.1);
    assert_int_equal(gv_pci_parse_speed("Unknown", &gts), GV_OK);
    assert_true(gts < 0);
    char bad[] = "fast";
    assert_int_equal(gv_pci_parse_speed(bad, &gts), GV_ERR_PARSE);
    gv_pci_addr a;
    assert_int_equal(gv_pci_parse_addr("03f8cfdd:00:00.0", &a), 0);
    assert_int_equal(a.domain, 0x03f8cfdd);
    char text[32];
    gv_pci_format_addr(&a, text, sizeof text);
    assert_string_equal(text, "03f8cfdd:00:00.0");
    assert_int_equal(gv_pci_parse_addr("00000000:18:00.0", &a), 0);
    gv_pci_format_addr(&a, text, sizeof text);
    assert_string_equal(text, "0000:18:00.0");
    assert_int_equal(gv_pci_parse_addr("0000:18:00.9", &a), -1);
    assert_int_equal(gv_pci_parse_addr("0000:18:00.0x", &a), -1);
    assert_int_equal(gv_pci_parse_addr("pci0000:17", &a), -1);
}

static void malformed_files(void **state)
{
    (void)state;
    char *root = temp_root();
    gv_errbuf err;
    gv_os_release os;
    put_file(root, "/etc/os-release", "ID=debian\nthis line has no equals\n");
    assert_int_equal(gv_read_os_release(root, &os, &err), GV_ERR_PARSE);
    assert_non_null(strstr(err.text, "line 2"));
    put_file(root, "/etc/os-release", "ID=debian\nPRETTY_NAME='open\n");
    assert_int_equal(gv_read_os_release(root, &os, &err), GV_ERR_PARSE);
    put_file(root, "/etc/os-release", "ID=\"debian\"\n");
    assert_int_equal(gv_read_os_release(root, &os, &err), GV_OK);
    assert_string_equal(os.pretty_name, "debian"); /* defaults from ID */
    char k[64];
    put_file(root, "/proc/sys/kernel/osrelease", "not a kernel\n");
    assert_int_equal(gv_read_kernel_release(root, k, sizeof k, &err), GV_ERR_PARSE);
    put_file(root, "/proc/sys/kernel/osrelease", "");
    assert_int_equal(gv_read_kernel_release(root, k, sizeof k, &err), GV_ERR_PARSE);
    assert_non_null(strstr(err.text, "empty"));
    gv_modules mods;
    put_file(root, "/proc/modules", "nvidia 123 0 - Live 0x0\nnvidia_uvm 1\n");
    assert_int_equal(gv_modules_read(root, &mods, &err), GV_ERR_PARSE);
    assert_non_null(strstr(err.text, "line 2"));
    assert_null(mods.names);
    put_file(root, "/proc/driver/nvidia/gpus/0000:18:00.0/information", "Model NVIDIA\n");
    gv_nvidia_gpu_info *gpus = NULL;
    size_t n = 7;
    /* A bad file is that GPU's problem: listed, its fields unknown, the reading not failed. */
    assert_int_equal(gv_read_nvidia_gpus(root, &gpus, &n, &err), GV_OK);
    assert_int_equal(n, 1);
    assert_string_equal(gpus[0].bus_id, "0000:18:00.0");
    assert_string_equal(gpus[0].model, "");
    assert_non_null(strstr(gpus[0].problem, "information"));
    free(gpus);
    put_file(root, "/proc/driver/nvidia/gpus/0000:18:00.0/information", "IRQ: 5\n");
    assert_int_equal(gv_read_nvidia_gpus(root, &gpus, &n, &err), GV_OK);
    assert_non_null(strstr(gpus[0].problem, "truncated"));
    free(gpus);
    char fstype[32];
    assert_int_equal(gv_mount_fstype(root, "/dev", fstype, sizeof fstype, &err), GV_ERR_IO);
    put_file(root, "/proc/self/mountinfo",
             "22 1 259:2 / / rw - ext4 /dev/nvme0n1p2 rw\n"
             "23 22 0:5 / /dev rw shared:2 - devtmpfs udev rw\n"
             "no dash on this line\n"
             "560 23 0:64 / /dev rw,nosuid - tmpfs tmpfs rw\n"
             "561 560 0:65 / /dev/shm rw - tmpfs shm rw\n");
    assert_int_equal(gv_mount_fstype(root, "/dev", fstype, sizeof fstype, &err), GV_OK);
    assert_string_equal(fstype, "tmpfs"); /* the last mount on /dev */
    assert_int_equal(gv_mount_fstype(root, "/", fstype, sizeof fstype, &err), GV_OK);
    assert_string_equal(fstype, "ext4");
    assert_int_equal(gv_mount_fstype(root, "/sys", fstype, sizeof fstype, &err), GV_ERR_NOT_FOUND);
    assert_non_null(strstr(err.text, "nothing is mounted at /sys"));
    char buf[16];
    put_file(root, "/big", "0123456789abcdefghijklmnop\n");
    assert_int_equal(gv_sys_read(root, "/big", buf, sizeof buf, &err), GV_ERR_PARSE);
    assert_non_null(strstr(err.text, "larger than"));
    assert_int_equal(gv_sys_read(root, "/missing", buf, sizeof buf, &err), GV_ERR_IO);
    assert_non_null(strstr(err.text, "No such file"));
    char path[4096];
    snprintf(path, sizeof path, "%s/bin", root);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "a\0b", 3), 3);
    close(fd);
    assert_int_equal(gv_sys_read(root, "/bin", buf, sizeof buf, &err), GV_ERR_PARSE);
    assert_non_null(strstr(err.text, "NUL"));
    snprintf(path, sizeof path, "%s/fifo", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    /* A FIFO with no writer must not hang the reader. */
    assert_int_not_equal(gv_sys_read(root, "/fifo", buf, sizeof buf, &err), GV_OK);
    remove_tree(root);
    free(root);
}

static void links_stay_inside_the_root(void **state)
{
    (void)state;
    char *root = temp_root();
    char path[4096];
    put_file(root, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x10de\n");
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices", root);
    put_file(root, "/sys/bus/pci/devices/.keep", "");
    put_file(root, "/etc/os-release", "ID=inside\n");
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0", root);
    assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", path), 0);
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/escape", root);
    assert_int_equal(symlink("../../../../../../../../../etc", path), 0);
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/absolute", root);
    assert_int_equal(symlink("/sys/devices/pci0000:00", path), 0);
    snprintf(path, sizeof path, "%s/loop", root);
    assert_int_equal(symlink("loop", path), 0);
    gv_errbuf err;
    char out[4096];
    assert_int_equal(
        gv_sys_resolve(root, "/sys/bus/pci/devices/0000:01:00.0", out, sizeof out, &err), GV_OK);
    assert_string_equal(out, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
    assert_int_equal(gv_sys_resolve(root, "/sys/bus/pci/devices/escape", out, sizeof out, &err),
                     GV_OK);
    assert_string_equal(out, "/etc"); /* clamped at the root, not the host's /etc */
    assert_int_equal(gv_sys_resolve(root, "/sys/bus/pci/devices/absolute", out, sizeof out, &err),
                     GV_OK);
    assert_string_equal(out, "/sys/devices/pci0000:00");
    assert_int_equal(gv_sys_resolve(root, "/loop", out, sizeof out, &err), GV_ERR_PARSE);
    remove_tree(root);
    free(root);
}

/* The node's name through a host root: /proc/sys/kernel/hostname is the reader's own UTS
 * namespace's (a pod's name), so /etc/hostname names the node unless the reader is known to
 * share the host's UTS namespace (hostNetwork: its /proc/self/ns/uts is /proc/1's). */
static void a_host_root_names_the_node_not_the_pod(void **state)
{
    (void)state;
    char *root = temp_root();
    char out[64], path[4096];
    put_file(root, "/proc/sys/kernel/hostname", "gpuverify-job-x7k2p\n");
    gv_read_hostname(root, out, sizeof out);
    assert_string_equal(out, "gpuverify-job-x7k2p");            /* no /etc/hostname */
    put_file(root, "/etc/hostname", "localhost.localdomain\n"); /* a cloud image's placeholder */
    gv_read_hostname(root, out, sizeof out);
    assert_string_equal(out, "gpuverify-job-x7k2p");
    put_file(root, "/etc/hostname", "gpu-node-7\n");
    gv_read_hostname(root, out, sizeof out);
    assert_string_equal(out, "gpu-node-7");
    put_file(root, "/proc/1/ns/.keep", "");
    put_file(root, "/proc/self/ns/.keep", "");
    snprintf(path, sizeof path, "%s/proc/1/ns/uts", root);
    assert_int_equal(symlink("uts:[4026531838]", path), 0);
    snprintf(path, sizeof path, "%s/proc/self/ns/uts", root);
    assert_int_equal(symlink("uts:[4026532400]", path), 0);
    gv_read_hostname(root, out, sizeof out);
    assert_string_equal(out, "gpu-node-7"); /* a pod's own UTS namespace */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("uts:[4026531838]", path), 0);
    put_file(root, "/proc/sys/kernel/hostname", "gpu-node-7.cluster\n");
    gv_read_hostname(root, out, sizeof out);
    assert_string_equal(out, "gpu-node-7.cluster"); /* the host's own namespace: the kernel's */
    remove_tree(root);
    free(root);
}

/* A file the caller may not open (EPERM: /dev/kmsg without CAP_SYSLOG, here O_NOATIME on
 * another user's file) is that file's answer: the files read after it are still resolved inside
 * the root, an absolute link too, not looked up in the caller's own "/". In a child, as nobody
 * where the test runs as root: the choice of openat2 is the process's. */
static void a_file_refused_keeps_links_inside_the_root(void **state)
{
    (void)state;
    char *root = temp_root();
    char path[4096];
    put_file(root, "/boot/real-config", "inside\n");
    snprintf(path, sizeof path, "%s/boot/config-link", root);
    assert_int_equal(symlink("/boot/real-config", path), 0);
    assert_int_equal(chmod(root, 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)))
            _exit(10);
        int fd = gv_sys_open("/etc", "passwd", O_RDONLY | O_NOATIME);
        if (fd >= 0 || errno != EPERM)
            _exit(11);
        char text[16] = "";
        fd = gv_sys_open(root, "/boot/config-link", O_RDONLY);
        if (fd < 0)
            _exit(12);
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        _exit(n == 7 && !strcmp(text, "inside\n") ? 0 : 13);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    remove_tree(root);
    free(root);
}

/* A port's config space of `size` bytes with extended capabilities: ids[i] at 0x100 + 0x10 i,
 * each pointing at the next (the last at `last_next`), the ACS one's control register set. */
static void put_config(const char *root, size_t size, const unsigned *ids, size_t n,
                       unsigned last_next, unsigned control)
{
    unsigned char config[4096] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned at = 0x100 + 0x10 * (unsigned)i, next = i + 1 < n ? at + 0x10 : last_next;
        unsigned header = ids[i] | 1u << 16 | next << 20;
        for (int b = 0; b < 4; b++)
            config[at + b] = (unsigned char)(header >> (8 * b));
        if (ids[i] == 0x000d) {
            config[at + 6] = (unsigned char)control;
            config[at + 7] = (unsigned char)(control >> 8);
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0/config", root);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(config, 1, size, f), size);
    fclose(f);
}

/* ACS from a bridge's config space: found behind other capabilities, absent, the standard
 * header only (not root), conventional PCI, and capability lists that loop or run out. */
/* A process's start from its stat line: the comm may hold spaces and ')', the rest may be cut
 * short or garbled. */
static void process_start_from_stat(void **state)
{
    (void)state;
    const char *tail = " S 1 4242 4242 0 -1 4194560 3519 0 2 0 41 88 0 0 20 0 9 0 3820 11 4";
    char line[256];
    snprintf(line, sizeof line, "4242 (nv-fabricmanage)%s", tail);
    assert_true(gv_stat_started_s(line) == 38.2);
    snprintf(line, sizeof line, "77 (a) b) c)%s", tail); /* comm "a) b) c" */
    assert_true(gv_stat_started_s(line) == 38.2);
    assert_true(gv_stat_started_s("4242 (nv-fabricmanage) S 1 4242") == -1);
    assert_true(gv_stat_started_s("4242 nv-fabricmanage S 1") == -1);
    snprintf(line, sizeof line,
             "4242 (x) S 1 4242 4242 0 -1 4194560 3519 0 2 0 41 88 0 0 20 0 9 0 "
             "38x0 11");
    assert_true(gv_stat_started_s(line) == -1);
    assert_true(gv_stat_started_s(NULL) == -1);
    /* In a fixture tree: the daemon found by its comm, its start read. */
    gv_process p = {0, -1};
    gv_errbuf err = {{0}};
    assert_int_equal(
        gv_find_process(fixture("sysroots/h100-open"), GV_FABRIC_MANAGER_COMM, &p, &err), 1);
    assert_int_equal(p.pid, 4242);
    assert_true(p.started_s > 38.1 && p.started_s < 38.3);
    assert_int_equal(
        gv_find_process(fixture("sysroots/h100-fm-down"), GV_FABRIC_MANAGER_COMM, &p, &err), 0);
    assert_int_equal(gv_find_process("/nonexistent-root", GV_FABRIC_MANAGER_COMM, &p, &err), -1);
    assert_true(err.text[0] != '\0');
}

static void acs_from_config_space(void **state)
{
    (void)state;
    char *root = temp_root();
    put_file(root, "/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10b5\n");
    gv_pci_acs a;
    gv_errbuf err;
    const unsigned found[] = {0x0001, 0x000b, 0x000d};
    put_config(root, 4096, found, 3, 0, 0x000d);
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_OK);
    assert_true(a.present);
    assert_int_equal(a.control & GV_ACS_PEER_TRAFFIC, 0x000d);
    char bits[64];
    gv_pci_acs_bits(a.control, bits, sizeof bits);
    assert_string_equal(bits, "SrcValid ReqRedir CmpltRedir");
    const unsigned none[] = {0x0001, 0x000b};
    put_config(root, 4096, none, 2, 0, 0);
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_OK);
    assert_false(a.present);
    put_config(root, 64, found, 0, 0, 0); /* what a process without CAP_SYS_ADMIN reads */
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.text, "needs root"));
    put_config(root, 256, found, 0, 0, 0);
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_OK);
    assert_false(a.present);
    put_config(root, 4096, none, 2, 0x100, 0); /* the last points back at the first */
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_ERR_PARSE);
    put_config(root, 4096, none, 2, 0xffc, 0); /* past the space's end */
    assert_int_equal(gv_pci_acs_read(root, "0000:01:00.0", &a, &err), GV_ERR_PARSE);
    assert_int_equal(gv_pci_acs_read(root, "0000:02:00.0", &a, &err), GV_ERR_IO);
    remove_tree(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvidia_version_lines),
        cmocka_unit_test(fixture_readers),
        cmocka_unit_test(pci_text_parsers),
        cmocka_unit_test(malformed_files),
        cmocka_unit_test(links_stay_inside_the_root),
        cmocka_unit_test(a_file_refused_keeps_links_inside_the_root),
        cmocka_unit_test(a_host_root_names_the_node_not_the_pod),
        cmocka_unit_test(pci_parents_and_link_share),
        cmocka_unit_test(acs_from_config_space),
        cmocka_unit_test(process_start_from_stat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
