/* SPDX-License-Identifier: Apache-2.0 */
/* Driver and inventory verdicts over every fixture sysroot and fake scenario. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static void healthy_h100_node_passes_with_full_inventory(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8");
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    /* Every check passes but page retirement, which Hopper replaced by row remapping. */
    assert_int_equal(
        count_verdict(r, GV_WARN) + count_verdict(r, GV_FAIL) + count_verdict(r, GV_ERROR), 0);
    assert_int_equal(count_verdict(r, GV_SKIP), 8);
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        if (c.verdict == GV_SKIP)
            assert_string_equal(c.id, "gpu.retired_pages");
    }
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    assert_int_equal(gv_report_driver(r, &d), GV_OK);
    assert_string_equal(d.module_version, "580.95.05");
    assert_int_equal(d.module_kind, GV_MODULE_OPEN);
    assert_string_equal(d.driver_version, "580.95.05");
    assert_string_equal(d.nvml_version, "13.580.95.05");
    assert_int_equal(d.cuda_driver_version, 13000);
    assert_int_equal(d.nvml_cuda_version, 13000);
    assert_int_equal(d.gpu_count_pci, 8);
    assert_int_equal(d.gpu_count_nvml, 8);
    assert_int_equal(d.gpu_count_cuda, 8);
    assert_string_equal(d.kernel_release, "6.8.0-45-generic");
    assert_string_equal(d.os_name, "Ubuntu 22.04.5 LTS");
    assert_int_equal(gv_report_gpu_count(r), 8); /* the NVSwitch is not a GPU */
    static const char *const buses[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0",
                                        "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
                                        "0000:ba:00.0", "0000:db:00.0"};
    for (uint32_t i = 0; i < 8; i++) {
        gv_gpu g = gpu_of(r, i);
        assert_string_equal(g.pci_bus_id, buses[i]);
        assert_string_equal(g.name, "NVIDIA H100 80GB HBM3");
        assert_int_equal(g.nvml_index, (int)i);
        assert_int_equal(g.cuda_index, (int)i);
        assert_int_equal(g.pci_device_id, 0x2330);
        assert_int_equal(g.pci_class, 0x030200);
        assert_int_equal(g.memory_total, 81559LL << 20);
        assert_int_equal(g.cc_major, 9);
        assert_int_equal(g.cc_minor, 0);
        assert_int_equal(g.sm_count, 132);
        assert_int_equal(g.max_sm_clock_mhz, 1980);
        assert_int_equal(g.power_limit_mw, 700000);
        assert_int_equal(g.pcie_gen_current, 5);
        assert_int_equal(g.pcie_width_max, 16);
        assert_int_equal(g.persistence_mode, 1);
        assert_int_equal(g.ecc_current, 1);
        assert_int_equal(g.mig_current, 0);
        assert_string_equal(g.vbios, "96.00.99.00.01");
        assert_int_equal(g.numa_node, i < 4 ? 0 : 1);
        assert_string_equal(g.local_cpus, i < 4 ? "0-55,112-167" : "56-111,168-223");
        assert_true(g.link_speed_max_gts > 31.9 && g.link_speed_max_gts < 32.1);
        assert_int_equal(g.link_width_current_sysfs, 16);
        assert_int_equal(strncmp(g.uuid, "GPU-", 4), 0);
        assert_true(strlen(g.serial) > 0);
    }
    gv_report_free(r);
}

static void t4_on_debian_proprietary_module(void **state)
{
    (void)state;
    gv_report *r = run_scenario("debian12-proprietary", "t4");
    gv_check_result m = result_of(r, "driver.module", "node");
    assert_int_equal(m.verdict, GV_PASS);
    assert_non_null(strstr(m.message, "proprietary"));
    assert_non_null(strstr(m.message, "535.104.05"));
    assert_int_equal(verdict_of(r, "driver.version", "node"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.persistence", "gpu0"), GV_WARN);
    assert_int_equal(verdict_of(r, "gpu.mig", "gpu0"), GV_SKIP); /* T4 has no MIG */
    assert_int_equal(verdict_of(r, "gpu.ecc", "gpu0"), GV_PASS);
    gv_check_result c = result_of(r, "driver.cuda", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_string_equal(c.measured, "12.2");
    gv_gpu g = gpu_of(r, 0);
    assert_string_equal(g.name, "Tesla T4");
    assert_int_equal(g.cc_major, 7);
    assert_int_equal(g.cc_minor, 5);
    assert_int_equal(g.sm_count, 40);
    assert_int_equal(gv_report_verdict(r), GV_WARN);
    gv_report_free(r);
}

static void nvml_version_mismatch_fails_with_both_versions(void **state)
{
    (void)state;
    gv_report *r = run_scenario("debian12-proprietary", "nvml-mismatch");
    gv_check_result n = result_of(r, "driver.nvml", "node");
    assert_int_equal(n.verdict, GV_FAIL);
    assert_non_null(strstr(n.message, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"));
    assert_non_null(strstr(n.message, "535.104.05"));
    assert_true(strlen(n.remediation) > 0);
    gv_check_result v = result_of(r, "driver.version", "node");
    assert_int_equal(v.verdict, GV_FAIL);
    assert_string_equal(v.measured, "580.95.05"); /* libnvidia-ml.so.580.95.05 */
    assert_string_equal(v.expected, "535.104.05");
    assert_string_equal(v.expected_source, "kernel module");
    assert_int_equal(gv_report_verdict(r), GV_FAIL);
    gv_report_free(r);
}

static void cuinit_no_device_fails_driver_cuda(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-cuinit-nodevice");
    gv_check_result c = result_of(r, "driver.cuda", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "CUDA_ERROR_NO_DEVICE"));
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    gv_report_driver(r, &d);
    assert_int_equal(d.cuda_init_result, 100);
    assert_int_equal(d.gpu_count_cuda, -1);
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_PASS); /* NVML == PCI */
    gv_report_free(r);
}

static void lost_gpu_is_named_and_fails(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-gpu-lost");
    assert_int_equal(gv_report_gpu_count(r), 8); /* merged with its PCI function */
    gv_gpu g = gpu_of(r, 3);
    assert_string_equal(g.pci_bus_id, "0000:5d:00.0");
    assert_int_equal(g.nvml_index, 3);
    assert_int_equal(g.nvml_result, 15); /* NVML_ERROR_GPU_IS_LOST */
    assert_int_equal(g.cuda_index, -1);
    gv_check_result n = result_of(r, "gpu.nvml", "gpu3");
    assert_int_equal(n.verdict, GV_FAIL);
    assert_non_null(strstr(n.message, "NVML_ERROR_GPU_IS_LOST"));
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "0000:5d:00.0"));
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu2"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.persistence", "gpu3"), GV_SKIP);
    gv_report_free(r);
}

/* GPU 3's device node opens, yet NVML leaves it out: the GPU's fault, not a GPU this process
 * was not given (only a device node absent or refused sets a GPU apart). */
static void pci_sees_eight_nvml_seven(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x7");
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "PCI sees 8"));
    assert_non_null(strstr(c.message, "NVML 7"));
    assert_non_null(strstr(c.message, "gpu3 0000:5d:00.0"));
    assert_string_equal(c.expected, "8");
    assert_string_equal(c.expected_source, "PCI");
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu3"), GV_FAIL);
    gv_report_free(r);
}

/* Rows about one subject: a GPU this process was not given has none. */
static int rows_about(const gv_report *r, const char *subject)
{
    int n = 0;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        n += strcmp(c.subject, subject) == 0;
    }
    return n;
}

/* A container given GPUs 0 and 1 of eight: the others' device nodes are not in its /dev and
 * NVML leaves them out. They are the node's, not GPUs that fell off the bus. */
static void gpus_not_given_to_this_process_are_not_failed(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-container", "h100x8-given-2");
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "8 GPU(s): pci=8 nvml=2 cuda=2"));
    assert_non_null(strstr(c.message, "6 GPU(s) not this process's, not tested: gpu2, gpu3, gpu4, "
                                      "gpu5, gpu6, gpu7 (gpu2: /dev/nvidia2: absent"));
    assert_int_equal(count_verdict(r, GV_FAIL) + count_verdict(r, GV_ERROR), 0);
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu1"), GV_PASS);
    assert_int_equal(rows_about(r, "gpu2"), 0);
    assert_int_equal(rows_about(r, "gpu7"), 0);
    /* The inventory is still the node's, each GPU in its place. */
    assert_int_equal(gv_report_gpu_count(r), 8);
    assert_int_equal(gpu_of(r, 1).inaccessible, 0);
    assert_int_equal(gpu_of(r, 2).inaccessible, 1);
    assert_string_equal(gpu_of(r, 2).pci_bus_id, "0000:3a:00.0");
    assert_int_equal(gpu_of(r, 7).index, 7);
    gv_report_free(r);

    /* The legacy container runtime: their /proc/driver/nvidia/gpus entries are hidden too. */
    r = run_scenario("h100-container-masked", "h100x8-given-2");
    c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "not in this process's /proc/driver/nvidia/gpus"));
    assert_int_equal(count_verdict(r, GV_FAIL) + count_verdict(r, GV_ERROR), 0);
    gv_report_free(r);

    /* A job's cgroup: NVML counts them but may not open them. */
    r = run_scenario("h100-open", "h100x8-nvml-denied");
    c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "gpu2, gpu3 (gpu2: NVML may not open it"));
    assert_int_equal(count_verdict(r, GV_FAIL) + count_verdict(r, GV_ERROR), 0);
    assert_int_equal(gpu_of(r, 3).inaccessible, 1);
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu4"), GV_PASS);
    gv_report_free(r);
}

/* A node absent from a host's /dev (devtmpfs) is no container's choice: no job could open the
 * GPU either, so NVML leaving it out FAILs as before. */
static void gpu_node_missing_on_a_host_fails(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-node-missing", "h100x7");
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "not in NVML: gpu3 0000:5d:00.0"));
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu3"), GV_FAIL);
    assert_int_equal(gpu_of(r, 3).inaccessible, 0);
    gv_report_free(r);
}

/* The policy counts the node's GPUs: those not given to this process are still there. */
static void policy_counts_gpus_not_given(void **state)
{
    (void)state;
    gv_policy p = GV_POLICY_INIT;
    p.gpu_count = 8;
    gv_report *r = run_scenario_policy("h100-container", "h100x8-given-2", &p);
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_PASS);
    gv_report_free(r);
    p.gpu_count = 2;
    r = run_scenario_policy("h100-container", "h100x8-given-2", &p);
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_FAIL);
    gv_report_free(r);
}

/* Given no GPU: nothing was tested, which is neither a PASS nor a broken GPU. */
static void no_gpu_given_is_an_error(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-container-none", "h100x8-given-none");
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "none of the node's 8 GPU(s) is this process's to test"));
    assert_non_null(strstr(c.remediation, "as root on the host"));
    assert_int_equal(count_verdict(r, GV_FAIL), 0);
    assert_int_equal(verdict_of(r, "gpu.nvml", "node"), GV_SKIP);
    c = result_of(r, "driver.cuda", "node");
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "CUDA_ERROR_NO_DEVICE"));
    assert_int_equal(gpu_of(r, 0).inaccessible, 1);
    gv_report_free(r);
}

static void cuda_visible_devices_hiding_gpus_is_explained(void **state)
{
    (void)state;
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    gv_report *r = run_scenario("h100-open", "h100x8");
    unsetenv("CUDA_VISIBLE_DEVICES");
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "CUDA_VISIBLE_DEVICES=0,1"));
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    gv_report_driver(r, &d);
    assert_int_equal(d.gpu_count_cuda, 2);
    assert_int_equal(gpu_of(r, 1).cuda_index, 1);
    assert_int_equal(gpu_of(r, 2).cuda_index, -1);
    gv_report_free(r);

    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* hides everything: cuInit says no device */
    r = run_scenario("h100-open", "h100x8");
    unsetenv("CUDA_VISIBLE_DEVICES");
    assert_int_equal(verdict_of(r, "driver.cuda", "node"), GV_ERROR);
    gv_report_free(r);
}

static void mig_gpu_is_not_refused(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-mig");
    gv_check_result m = result_of(r, "gpu.mig", "gpu0");
    assert_int_equal(m.verdict, GV_PASS);
    assert_non_null(strstr(m.message, "MIG enabled"));
    gv_check_result pending = result_of(r, "gpu.mig", "gpu1");
    assert_int_equal(pending.verdict, GV_WARN);
    assert_non_null(strstr(pending.message, "MIG disabled now, enabled after the next GPU reset"));
    assert_int_equal(verdict_of(r, "gpu.mig", "gpu2"), GV_PASS);
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "MIG"));
    assert_int_equal(gpu_of(r, 0).cuda_index, -1);
    assert_int_equal(gpu_of(r, 0).mig_current, 1);
    gv_report_free(r);
}

static void no_nvidia_libraries_fail_with_names_tried(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", NULL);
    gv_check_result n = result_of(r, "driver.nvml", "node");
    assert_int_equal(n.verdict, GV_FAIL);
    assert_non_null(strstr(n.message, "libnvidia-ml.so.1"));
    assert_non_null(strstr(n.message, emptylib()));
    gv_check_result c = result_of(r, "driver.cuda", "node");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "libcuda.so.1"));
    assert_int_equal(verdict_of(r, "driver.module", "node"), GV_PASS);
    assert_int_equal(verdict_of(r, "driver.version", "node"), GV_PASS); /* module alone */
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_SKIP);
    assert_int_equal(verdict_of(r, "gpu.nvml", "gpu0"), GV_SKIP);
    assert_int_equal(gv_report_gpu_count(r), 8); /* from PCI and /proc */
    gv_report_free(r);
}

/* A node without NVIDIA GPU looks like a GPU node whose GPUs all fell off the bus: FAIL,
 * unless the policy says it has none. */
static void node_without_nvidia_fails_unless_the_policy_says_none(void **state)
{
    (void)state;
    gv_report *r = run_scenario("no-nvidia", NULL);
    assert_int_equal(verdict_of(r, "driver.module", "node"), GV_SKIP);
    assert_int_equal(verdict_of(r, "driver.nvml", "node"), GV_SKIP);
    assert_int_equal(verdict_of(r, "driver.cuda", "node"), GV_SKIP);
    gv_check_result count = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(count.verdict, GV_FAIL);
    assert_non_null(strstr(count.message, "no NVIDIA GPU found: PCI 0, NVML \xe2\x80\x93"));
    assert_int_equal(gv_report_gpu_count(r), 0);
    assert_int_equal(gv_report_verdict(r), GV_FAIL);
    int fails = 0;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        assert_true(strlen(c.message) > 10); /* every SKIP says why */
        fails += c.verdict == GV_FAIL;
    }
    assert_int_equal(fails, 1); /* the rest is not applicable */
    gv_report_free(r);
    gv_policy p = GV_POLICY_INIT;
    p.gpu_count = 0;
    r = run_scenario_policy("no-nvidia", NULL, &p);
    assert_int_equal(verdict_of(r, "driver.gpu_count", "node"), GV_PASS);
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    gv_report_free(r);
}

/* An offline sysroot without named libraries is judged from files alone. */
static gv_report *offline(const char *sysroot)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    char root[4096];
    snprintf(root, sizeof root, "%s", fixture("sysroots/"));
    strncat(root, sysroot, sizeof root - strlen(root) - 1);
    o.sysroot = root;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, NULL, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

static void laptop_geforce_offline(void **state)
{
    (void)state;
    gv_report *r = offline("laptop-geforce");
    assert_int_equal(gv_report_gpu_count(r), 1); /* its audio function is not a GPU */
    gv_gpu g = gpu_of(r, 0);
    assert_int_equal(g.pci_class, 0x030000);
    assert_int_equal(g.pci_device_id, 0x28e0);
    assert_true(g.link_speed_current_gts > 2.4 && g.link_speed_current_gts < 2.6);
    assert_true(g.link_speed_max_gts > 15.9 && g.link_speed_max_gts < 16.1);
    assert_int_equal(g.link_width_max_sysfs, 8);
    assert_int_equal(g.numa_node, -1);
    assert_string_equal(g.name, "NVIDIA GeForce RTX 4060 Laptop GPU");
    gv_check_result n = result_of(r, "driver.nvml", "node");
    assert_int_equal(n.verdict, GV_SKIP);
    assert_non_null(strstr(n.message, "offline"));
    gv_check_result p = result_of(r, "gpu.pci", "gpu0");
    assert_int_equal(p.verdict, GV_PASS);
    assert_non_null(strstr(p.message, "NUMA node unknown"));
    gv_report_free(r);
}

static void vm_with_wide_pci_domain(void **state)
{
    (void)state;
    gv_report *r = offline("vm-wide-domain");
    assert_int_equal(gv_report_gpu_count(r), 1);
    gv_gpu g = gpu_of(r, 0);
    assert_string_equal(g.pci_bus_id, "03f8cfdd:00:00.0");
    assert_int_equal(g.numa_node, -1);
    assert_string_equal(g.uuid, "GPU-7e1a9c3b-5d2f-4e6a-8b0c-9d1e2f3a4b5c");
    gv_check_result m = result_of(r, "driver.module", "node");
    assert_int_equal(m.verdict, GV_PASS);
    assert_non_null(strstr(m.message, "open kernel module"));
    assert_non_null(strstr(m.message, "570.86.15"));
    gv_report_free(r);
}

/* A copy of a fixture file set with one file broken. */
static gv_report *broken(const char *rel, const char *text)
{
    char *root = temp_root();
    put_file(root, "/etc/os-release", "PRETTY_NAME=\"Test\"\nID=test\n");
    put_file(root, "/proc/sys/kernel/osrelease", "6.8.0-1-test\n");
    put_file(root, "/proc/modules", "nvidia 100 0 - Live 0x0 (O)\n");
    put_file(root, "/proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release\n");
    put_file(root, "/sys/bus/pci/devices/0000:18:00.0/vendor", "0x10de\n");
    put_file(root, "/sys/bus/pci/devices/0000:18:00.0/class", "0x030200\n");
    put_file(root, "/sys/bus/pci/devices/0000:18:00.0/device", "0x2330\n");
    put_file(root, "/sys/bus/pci/devices/0000:18:00.0/numa_node", "0\n");
    put_file(root, rel, text);
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.sysroot = root;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, NULL, &r), GV_OK);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);
    return r;
}

static void malformed_files_are_errors_naming_the_file(void **state)
{
    (void)state;
    gv_report *r = broken("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Ker");
    gv_check_result c = result_of(r, "driver.module", "node");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "/proc/driver/nvidia/version"));
    gv_report_free(r);

    r = broken("/proc/modules", "nvidia 100\n");
    c = result_of(r, "driver.module", "node");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "/proc/modules: line 1"));
    gv_report_free(r);

    r = broken("/etc/os-release", "PRETTY_NAME=\"unterminated\n");
    c = result_of(r, "system.os", "node");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "/etc/os-release: line 1"));
    gv_report_free(r);

    r = broken("/sys/bus/pci/devices/0000:18:00.0/numa_node", "zero\n");
    c = result_of(r, "gpu.pci", "gpu0");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "numa_node"));
    gv_report_free(r);

    r = broken("/proc/sys/kernel/osrelease", "\n");
    assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_ERROR);
    gv_report_free(r);
}

static void check_selection_by_prefix(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "system, gpu.ecc";
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_int_equal(gv_report_count(r), 2 + 8);
    gv_report_free(r);
    o.checks = GV_TEST_PASSIVE_CHECKS ",^driver.cuda"; /* everything but the CUDA probe */
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        assert_string_not_equal(c.id, "driver.cuda");
    }
    gv_check_result c = result_of(r, "driver.gpu_count", "node");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "cuda=\xe2\x80\x93")); /* not queried: unknown, not -1 */
    gv_report_free(r);
    o.checks = "driver.bogus";
    assert_int_equal(gv_run(ctx, &o, &r), GV_ERR_INVALID_ARG);
    assert_null(r);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "driver.bogus"));
    gv_ctx_destroy(ctx);
}

static void driver_and_gpu_info_calls(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    assert_int_equal(gv_check_driver(ctx, &d), GV_OK);
    assert_int_equal(d.gpu_count, 8);
    assert_int_equal(d.nvml_state, GV_LIBSTATE_LOADED);
    gv_gpu g = GV_GPU_INIT;
    assert_int_equal(gv_gpu_info(ctx, 7, &g), GV_OK);
    assert_string_equal(g.pci_bus_id, "0000:db:00.0");
    assert_int_equal(gv_gpu_info(ctx, 8, &g), GV_ERR_NOT_FOUND);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "8 GPU"));
    g.struct_size = 8;
    assert_int_equal(gv_gpu_info(ctx, 0, &g), GV_ERR_VERSION);
    assert_int_equal(gv_gpu_info(ctx, 0, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_gpu_info(NULL, 0, &g), GV_ERR_INVALID_ARG);
    d.struct_size = 4;
    assert_int_equal(gv_check_driver(ctx, &d), GV_ERR_VERSION);
    assert_int_equal(gv_check_driver(ctx, NULL), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_h100_node_passes_with_full_inventory),
        cmocka_unit_test(t4_on_debian_proprietary_module),
        cmocka_unit_test(nvml_version_mismatch_fails_with_both_versions),
        cmocka_unit_test(cuinit_no_device_fails_driver_cuda),
        cmocka_unit_test(lost_gpu_is_named_and_fails),
        cmocka_unit_test(pci_sees_eight_nvml_seven),
        cmocka_unit_test(gpus_not_given_to_this_process_are_not_failed),
        cmocka_unit_test(policy_counts_gpus_not_given),
        cmocka_unit_test(gpu_node_missing_on_a_host_fails),
        cmocka_unit_test(no_gpu_given_is_an_error),
        cmocka_unit_test(cuda_visible_devices_hiding_gpus_is_explained),
        cmocka_unit_test(mig_gpu_is_not_refused),
        cmocka_unit_test(no_nvidia_libraries_fail_with_names_tried),
        cmocka_unit_test(node_without_nvidia_fails_unless_the_policy_says_none),
        cmocka_unit_test(laptop_geforce_offline),
        cmocka_unit_test(vm_with_wide_pci_domain),
        cmocka_unit_test(malformed_files_are_errors_naming_the_file),
        cmocka_unit_test(check_selection_by_prefix),
        cmocka_unit_test(driver_and_gpu_info_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
