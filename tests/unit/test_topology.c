/* SPDX-License-Identifier: Apache-2.0 */
/* gv_topology over hwloc's own test topologies (tests/fixtures/hwloc, README there says why
 * each expected class is right) and its captured sysfs trees replayed with HWLOC_FSROOT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static gv_topo *load_xml(gv_ctx *ctx, const char *name, const char *gdr_level)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hwloc/xml/%s.xml", name);
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    o.xml_path = fixture(rel);
    o.gdr_level = gdr_level;
    gv_topo *t = NULL;
    gv_status s = gv_topology(ctx, &o, &t);
    if (s != GV_OK)
        fail_msg("gv_topology(%s): %s", name, gv_ctx_last_error(ctx));
    return t;
}

static gv_topo_device device(const gv_topo *t, uint32_t i)
{
    gv_topo_device d = GV_TOPO_DEVICE_INIT;
    assert_int_equal(gv_topo_device_at(t, i, &d), GV_OK);
    return d;
}

static const char *cell(const gv_topo *t, uint32_t a, uint32_t b)
{
    static gv_topo_link l;
    l = (gv_topo_link)GV_TOPO_LINK_INIT;
    assert_int_equal(gv_topo_link_at(t, a, b, &l), GV_OK);
    gv_topo_link back = GV_TOPO_LINK_INIT;
    assert_int_equal(gv_topo_link_at(t, b, a, &back), GV_OK);
    assert_int_equal(back.path, l.path); /* symmetric */
    return l.label;
}

static void assert_gpu(const gv_topo *t, uint32_t i, const char *bus, int numa, const char *cpus)
{
    gv_topo_device d = device(t, i);
    assert_int_equal(d.kind, GV_TOPO_GPU);
    assert_string_equal(d.pci_bus_id, bus);
    assert_int_equal(d.numa_node, numa);
    assert_string_equal(d.cpus, cpus);
    assert_true(d.in_hwloc);
}

/* Two sockets; GPUs on each; mlx5_0 beside GPU2 under one root port. */
static void normalio_classes(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    const char *names[] = {"32em64t-2n8c2t-pci-normalio", "32em64t-2n8c2t-pci-wholeio"};
    for (int k = 0; k < 2; k++) {
        gv_topo *t = load_xml(ctx, names[k], NULL);
        gv_topo_info info = GV_TOPO_INFO_INIT;
        assert_int_equal(gv_topo_summary(t, &info), GV_OK);
        assert_int_equal(info.gpu_count, 3);
        assert_int_equal(info.nic_count, 1);
        assert_int_equal(info.numa_nodes, 2);
        assert_int_equal(info.packages, 2);
        assert_int_equal(info.pus, 32);
        assert_int_equal(info.live, 0);
        assert_int_equal(info.gdr_level, GV_PATH_PXB);
        assert_gpu(t, 0, "0000:03:00.0", 0, "0-7,16-23");
        assert_gpu(t, 1, "0000:83:00.0", 1, "8-15,24-31");
        assert_gpu(t, 2, "0000:84:00.0", 1, "8-15,24-31");
        gv_topo_device nic = device(t, 3);
        assert_int_equal(nic.kind, GV_TOPO_NIC);
        assert_string_equal(nic.label, "NIC0");
        assert_string_equal(nic.name, "mlx5_0");
        assert_string_equal(nic.netdev, "ib0");
        assert_string_equal(nic.pci_bus_id, "0000:04:00.0");
        assert_int_equal(nic.numa_node, 1);
        assert_string_equal(cell(t, 0, 0), "X");
        assert_string_equal(cell(t, 0, 1), "SYS");
        assert_string_equal(cell(t, 0, 2), "SYS");
        assert_string_equal(cell(t, 1, 2), "PHB");
        assert_string_equal(cell(t, 0, 3), "SYS");
        assert_string_equal(cell(t, 1, 3), "PHB");
        assert_string_equal(cell(t, 2, 3), "PIX");
        gv_topo_device g2 = device(t, 2), g1 = device(t, 1), g0 = device(t, 0);
        assert_int_equal(g2.nearest_nic, 3);
        assert_int_equal(g2.nearest_path, GV_PATH_PIX);
        assert_int_equal(g2.nearest_nic_count, 1);
        assert_int_equal(g2.gdr_capable, 1);
        assert_int_equal(g1.nearest_path, GV_PATH_PHB);
        assert_int_equal(g1.gdr_capable, 0); /* PHB is beyond NCCL's default PXB */
        assert_int_equal(g0.nearest_path, GV_PATH_SYS);
        assert_int_equal(nic.nearest_nic, -1);           /* only GPUs have a nearest NIC */
        assert_int_equal(g0.link_speed_current_gts, -1); /* XML: link state unknown */
        gv_topo_free(t);
    }
    /* NCCL_NET_GDR_LEVEL=PHB lets GPU1 use its NIC; SYS even GPU0. */
    gv_topo *t = load_xml(ctx, names[0], "PHB");
    assert_int_equal(device(t, 1).gdr_capable, 1);
    assert_int_equal(device(t, 0).gdr_capable, 0);
    gv_topo_free(t);
    setenv("NCCL_NET_GDR_LEVEL", "4", 1);
    t = load_xml(ctx, names[0], NULL);
    assert_int_equal(device(t, 0).gdr_capable, 1);
    gv_topo_free(t);
    setenv("NCCL_NET_GDR_LEVEL", "nonsense", 1); /* NCCL keeps its default: so do we */
    t = load_xml(ctx, names[0], NULL);
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    assert_int_equal(info.gdr_level, GV_PATH_PXB);
    unsetenv("NCCL_NET_GDR_LEVEL");
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
}

/* ConnectX-2 (class 0c06) with an Ethernet and an IB port on socket 0; three GPUs. */
static void two_socket_mlx4(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_topo *t = load_xml(ctx, "24em64t-2n6c2t-pci", NULL);
    assert_int_equal(gv_topo_device_count(t), 4);
    assert_gpu(t, 0, "0000:06:00.0", 0, "0,2,4,6,8,10,12,14,16,18,20,22");
    assert_gpu(t, 1, "0000:11:00.0", 1, "1,3,5,7,9,11,13,15,17,19,21,23");
    assert_gpu(t, 2, "0000:14:00.0", 1, "1,3,5,7,9,11,13,15,17,19,21,23");
    gv_topo_device nic = device(t, 3);
    assert_string_equal(nic.name, "mlx4_0");
    assert_string_equal(nic.netdev, "eth2,ib0");
    assert_int_equal(nic.pci_class, 0x0c06);
    assert_int_equal(nic.numa_node, 0);
    assert_string_equal(cell(t, 0, 1), "SYS");
    assert_string_equal(cell(t, 1, 2), "PHB");
    assert_string_equal(cell(t, 0, 3), "PHB");
    assert_string_equal(cell(t, 1, 3), "SYS");
    assert_string_equal(cell(t, 2, 3), "SYS");
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
}

/* Irregular groups: 8 NUMA nodes, GPUs in packages P#4 and P#8 (nodes 4 and 7), no RDMA NIC. */
static void irregular_groups(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_topo *t = load_xml(ctx, "64intel64-3g2n+2n-irregulargroups+pci", NULL);
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    assert_int_equal(info.gpu_count, 2);
    assert_int_equal(info.nic_count, 0); /* Intel Ethernet has no OpenFabrics device */
    assert_int_equal(info.numa_nodes, 8);
    assert_gpu(t, 0, "0002:01:00.0", 4, "32-39");
    assert_gpu(t, 1, "0004:01:00.0", 7, "56-63");
    assert_string_equal(device(t, 0).numa_affinity, "4");
    assert_string_equal(cell(t, 0, 1), "SYS");
    assert_int_equal(device(t, 0).nearest_nic, -1);
    assert_int_equal(device(t, 0).gdr_capable, -1);
    gv_topo_free(t);
    /* No I/O at all, and the largest fixture (4 NUMA nodes, 16 packages, no NVIDIA GPU). */
    t = load_xml(ctx, "32em64t-2n8c2t-pci-noio", NULL);
    assert_int_equal(gv_topo_device_count(t), 0);
    gv_topo_summary(t, &info);
    assert_int_equal(info.numa_nodes, 2);
    assert_int_equal(info.pus, 32);
    gv_topo_free(t);
    t = load_xml(ctx, "96em64t-4n4d3ca2co-pci", NULL);
    gv_topo_summary(t, &info);
    assert_int_equal(info.gpu_count, 0);
    assert_int_equal(info.numa_nodes, 4);
    assert_int_equal(info.packages, 16);
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
}

/* A captured sysfs tree: hwloc reads it through HWLOC_FSROOT (process-wide: fine in a test
 * process), our facts through the sysroot. */
static gv_topo *load_fsroot(const char *name, gv_ctx **ctx)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hwloc/fsroot/%s", name);
    const char *root = fixture(rel);
    setenv("HWLOC_FSROOT", root, 1);
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = emptylib();
    assert_int_equal(gv_ctx_create(&co, ctx), GV_OK);
    gv_topo *t = NULL;
    gv_status s = gv_topology(*ctx, NULL, &t);
    unsetenv("HWLOC_FSROOT");
    if (s != GV_OK)
        fail_msg("gv_topology(%s): %s", name, gv_ctx_last_error(*ctx));
    return t;
}

static void fsroot_replays(void **state)
{
    (void)state;
    gv_ctx *ctx;
    /* ConnectX-3 mlx4_0 on socket 1 of two. */
    gv_topo *t = load_fsroot("32em64t-2n8c+1mic", &ctx);
    gv_topo_info info = GV_TOPO_INFO_INIT;
    gv_topo_summary(t, &info);
    assert_int_equal(info.live, 1);
    assert_int_equal(info.numa_nodes, 2);
    assert_int_equal(gv_topo_device_count(t), 1);
    gv_topo_device nic = device(t, 0);
    assert_string_equal(nic.name, "mlx4_0");
    assert_string_equal(nic.netdev, "ib0");
    assert_string_equal(nic.pci_bus_id, "0000:82:00.0");
    assert_int_equal(nic.numa_node, 1);
    assert_string_equal(nic.cpus, "8-15"); /* its sysfs local_cpulist */
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
    /* QLogic qib0 on a host bridge hwloc attaches to the whole machine: sysfs says node 2,
     * the CPU locality spans all four nodes. Its link files are read from the sysroot. */
    t = load_fsroot("40intel64-2g2n4c+pci", &ctx);
    assert_int_equal(gv_topo_device_count(t), 2);
    gv_topo_device added = device(t, 0); /* the GPU hwloc_fsroots.py adds beside it */
    assert_int_equal(added.numa_node, -1);
    assert_string_equal(cell(t, 0, 1), "PHB");
    nic = device(t, 1);
    assert_string_equal(nic.name, "qib0");
    assert_int_equal(nic.numa_node, 2);
    assert_string_equal(nic.numa_affinity, "0-3");
    assert_string_equal(nic.cpus, "0-39");
    assert_true(nic.link_speed_current_gts == 8.0);
    assert_int_equal(nic.link_width_current, 4);
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
    /* A VM with a 32-bit PCI domain: hwloc drops 10000:00:05.0, our sysfs reader keeps it. */
    t = load_fsroot("2pa-pcidomain32bits", &ctx);
    assert_int_equal(gv_topo_device_count(t), 2);
    gv_topo_device known = device(t, 0), wide = device(t, 1);
    assert_string_equal(known.pci_bus_id, "0000:00:05.0");
    assert_true(known.in_hwloc);
    assert_int_equal(known.numa_node, -1); /* sysfs -1 stays unknown, never 0 */
    assert_int_equal(known.link_width_current, 8);
    assert_int_equal(known.link_width_achievable, 16);
    assert_string_equal(wide.pci_bus_id, "00010000:00:05.0");
    assert_false(wide.in_hwloc);
    assert_string_equal(cell(t, 0, 1), "UNKNOWN");
    assert_string_equal(cell(t, 1, 1), "X");
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
}

/* An offline context (a sysroot, no live libraries) on a captured tree, HWLOC_FSROOT unset:
 * gpuverify-worker has hwloc replay the capture; in the caller's own process hwloc reads this
 * machine, where the capture's devices are not. */
static void offline_capture_replayed_by_the_worker(void **state)
{
    (void)state;
    assert_null(getenv("HWLOC_FSROOT"));
    char *before = getenv("GPUVERIFY_WORKER") ? strdup(getenv("GPUVERIFY_WORKER")) : NULL;
    setenv("GPUVERIFY_WORKER", getenv("GV_TEST_WORKER"), 1);
    for (int in_process = 0; in_process < 2; in_process++) {
        gv_ctx_opts co = GV_CTX_OPTS_INIT;
        co.sysroot = fixture("hwloc/fsroot/40intel64-2g2n4c+pci");
        co.live_libraries = 0;
        co.flags = in_process ? GV_CTX_IN_PROCESS : 0;
        gv_ctx *ctx = NULL;
        assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
        gv_topo *t = NULL;
        if (gv_topology(ctx, NULL, &t) != GV_OK)
            fail_msg("gv_topology (in_process %d): %s", in_process, gv_ctx_last_error(ctx));
        /* The GPU from the capture's files either way; its NIC is one hwloc finds, so in the
         * caller's process this machine's devices, if it has any, come with it instead. */
        uint32_t gpu = 0;
        while (gpu < gv_topo_device_count(t) &&
               strcmp(device(t, gpu).pci_bus_id, "0000:44:00.0") != 0)
            gpu++;
        assert_true(gpu < gv_topo_device_count(t));
        assert_int_equal(device(t, gpu).in_hwloc, !in_process);
        if (!in_process) {
            assert_int_equal(gv_topo_device_count(t), 2);
            assert_string_equal(device(t, 1).name, "qib0");
            assert_string_equal(cell(t, 0, 1), "PHB");
        }
        gv_topo_free(t);
        gv_ctx_destroy(ctx);
    }
    assert_null(getenv("HWLOC_FSROOT")); /* set in the worker only */
    if (before)
        setenv("GPUVERIFY_WORKER", before, 1);
    else
        unsetenv("GPUVERIFY_WORKER");
    free(before);
}

static gv_report *run_checks(gv_ctx *ctx, const char *checks, const char *xml)
{
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = checks;
    o.topology_xml = xml;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    return r;
}

static void topo_checks(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", "h100x8");
    /* A sysroot is not this machine: without the node's XML the checks say so. */
    gv_report *r = run_checks(ctx, "topo", NULL);
    assert_int_equal(verdict_of(r, "topo.numa", "node"), GV_SKIP);
    assert_int_equal(verdict_of(r, "topo.gpu_nic", "node"), GV_SKIP);
    gv_report_free(r);
    r = run_checks(ctx, "topo", fixture("hwloc/xml/32em64t-2n8c2t-pci-normalio.xml"));
    for (int i = 0; i < 3; i++) {
        char subject[8];
        snprintf(subject, sizeof subject, "gpu%d", i);
        assert_int_equal(verdict_of(r, "topo.numa", subject), GV_PASS);
    }
    gv_check_result c = result_of(r, "topo.gpu_nic", "gpu0");
    assert_int_equal(c.verdict, GV_WARN); /* SYS: across the socket, naming both */
    assert_non_null(strstr(c.message, "0000:03:00.0"));
    assert_non_null(strstr(c.message, "mlx5_0"));
    assert_non_null(strstr(c.message, "SYS"));
    assert_int_equal(verdict_of(r, "topo.gpu_nic", "gpu1"), GV_WARN); /* PHB */
    assert_int_equal(verdict_of(r, "topo.gpu_nic", "gpu2"), GV_PASS); /* PIX */
    gv_report_free(r);
    /* NCCL told the topology by a file: the tree seen here is reported, not judged. */
    setenv("NCCL_TOPO_FILE", "/opt/microsoft/ndv5-topo.xml", 1);
    r = run_checks(ctx, "topo", fixture("hwloc/xml/32em64t-2n8c2t-pci-normalio.xml"));
    unsetenv("NCCL_TOPO_FILE");
    c = result_of(r, "topo.gpu_nic", "gpu0");
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "at SYS in the PCI tree this process sees; not judged: "
                                      "NCCL takes the node's topology from "
                                      "NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml"));
    assert_int_equal(verdict_of(r, "topo.gpu_nic", "gpu2"), GV_PASS); /* PIX */
    gv_report_free(r);
    r = run_checks(ctx, "topo", fixture("hwloc/xml/64intel64-3g2n+2n-irregulargroups+pci.xml"));
    assert_int_equal(verdict_of(r, "topo.gpu_nic", "gpu0"), GV_SKIP); /* no RDMA NIC */
    gv_report_free(r);
    gv_ctx_destroy(ctx);
    /* This machine (no NVIDIA library) seen through a 4-socket capture: its GPU hangs on the
     * whole machine, no NUMA node on a 4-node host. */
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.library_dir = emptylib();
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    setenv("HWLOC_FSROOT", fixture("hwloc/fsroot/40intel64-2g2n4c+pci"), 1);
    r = run_checks(ctx, "topo", NULL);
    unsetenv("HWLOC_FSROOT");
    c = result_of(r, "topo.numa", "gpu0");
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "0000:44:00.0"));
    /* Its one GPU far from the node's NIC is how that machine is built: reported, the node's
     * GPUDirect RDMA locality judged once by gpudirect.nic_locality. */
    c = result_of(r, "topo.gpu_nic", "gpu0");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "as built: no GPU of this node has a NIC beside it"));
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

static void link_checks(void **state)
{
    (void)state;
    /* GPU 1 at x8 of x16 (FAIL); GPU 2 at 2.5 GT/s: idle (PASS with a note), busy (WARN). */
    gv_report *r = run_scenario("h100-degraded-link", "h100x8");
    gv_check_result c = result_of(r, "gpu.pcie_link", "gpu1");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "x8"));
    assert_non_null(strstr(c.remediation, "lspci"));
    c = result_of(r, "gpu.pcie_link", "gpu2");
    assert_int_equal(c.verdict, GV_PASS);
    assert_non_null(strstr(c.message, "idle"));
    assert_int_equal(verdict_of(r, "gpu.pcie_link", "gpu0"), GV_PASS);
    assert_int_equal(verdict_of(r, "gpu.nvlink", "gpu0"), GV_PASS);
    gv_report_free(r);
    r = run_scenario("h100-degraded-link", "h100x8-busy");
    assert_int_equal(verdict_of(r, "gpu.pcie_link", "gpu2"), GV_WARN);
    assert_int_equal(verdict_of(r, "gpu.pcie_link", "gpu1"), GV_FAIL);
    gv_report_free(r);
    r = run_scenario("h100-open", "h100x8-nvlink-down");
    c = result_of(r, "gpu.nvlink", "gpu2");
    assert_int_equal(c.verdict, GV_FAIL);
    assert_non_null(strstr(c.message, "2 of 18"));
    assert_non_null(strstr(c.message, "16, 17"));
    assert_int_equal(verdict_of(r, "gpu.nvlink", "gpu3"), GV_PASS);
    gv_report_free(r);
    /* NVLinks unconnected by design (PCIe cards without bridges, no NVSwitch fabric) are no
     * finding; all down on an NVSwitch system whose fabric is down still is. */
    r = run_scenario("h100-open", "h100x8-pcie-no-bridge");
    c = result_of(r, "gpu.nvlink", "gpu0");
    assert_int_equal(c.verdict, GV_SKIP);
    assert_non_null(strstr(c.message, "none of 12 NVLinks connected and no NVSwitch fabric"));
    gv_report_free(r);
    r = run_scenario("h100-open", "h100x8-fabric-down");
    c = result_of(r, "gpu.nvlink", "gpu0");
    assert_int_equal(c.verdict, GV_WARN);
    assert_non_null(strstr(c.message, "none of 18 NVLinks active on a node with 8 GPUs"));
    gv_report_free(r);
    /* NVLink in the matrix: through NVSwitch, each pair counts the fewer active links. The
     * sysroot's GPUs are not in this machine's hwloc: PCIe classes unknown, NVLink known. */
    const char *scenarios[] = {"h100x8", "h100x8-nvlink-down"};
    for (int k = 0; k < 2; k++) {
        gv_ctx *ctx = scenario_ctx("h100-open", scenarios[k]);
        gv_topo *t = NULL;
        assert_int_equal(gv_topology(ctx, NULL, &t), GV_OK);
        assert_int_equal(gv_topo_device_count(t), 8);
        assert_string_equal(device(t, 0).name, "NVIDIA H100 80GB HBM3");
        assert_int_equal(device(t, 5).nvml_index, 5);
        assert_string_equal(cell(t, 0, 1), "NV18");
        assert_string_equal(cell(t, 2, 3), k ? "NV16" : "NV18");
        gv_topo_link l = GV_TOPO_LINK_INIT;
        gv_topo_link_at(t, 2, 3, &l);
        assert_int_equal(l.pcie_path, GV_PATH_UNKNOWN);
        gv_topo_free(t);
        gv_ctx_destroy(ctx);
    }
    r = run_scenario("debian12-proprietary", "t4"); /* a T4 has no NVLink */
    assert_int_equal(verdict_of(r, "gpu.nvlink", "gpu0"), GV_SKIP);
    gv_report_free(r);
}

static void bad_input(void **state)
{
    (void)state;
    gv_ctx *ctx = scenario_ctx("h100-open", NULL);
    gv_topo *t = (gv_topo *)&t;
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    assert_int_equal(gv_topology(NULL, &o, &t), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_topology(ctx, &o, NULL), GV_ERR_INVALID_ARG);
    o.xml_path = "/nonexistent/topology.xml";
    assert_int_equal(gv_topology(ctx, &o, &t), GV_ERR_IO);
    assert_null(t);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "/nonexistent/topology.xml"));
    char *root = temp_root();
    put_file(root, "/bad.xml", "<topology version=\"2.0\"><object type=\"Machine\"");
    put_file(root, "/empty.xml", "");
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo.xml", root);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* Malformed files; then the directory itself and a FIFO, which are no file to read (the
     * FIFO without blocking). */
    const char *bad[] = {"/bad.xml", "/empty.xml", "", "/fifo.xml"};
    for (int i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", root, bad[i]);
        o.xml_path = path;
        assert_int_equal(gv_topology(ctx, &o, &t), i < 2 ? GV_ERR_PARSE : GV_ERR_IO);
        assert_null(t);
    }
    assert_non_null(strstr(gv_ctx_last_error(ctx), "fifo.xml: not a regular file"));
    remove_tree(root);
    free(root);
    o.xml_path = fixture("hwloc/xml/24em64t-2n6c2t-pci.xml");
    o.gdr_level = "NEAR";
    assert_int_equal(gv_topology(ctx, &o, &t), GV_ERR_INVALID_ARG);
    o.gdr_level = NULL;
    o.flags = 1;
    assert_int_equal(gv_topology(ctx, &o, &t), GV_ERR_INVALID_ARG);
    o.flags = 0;
    o.struct_size = 4;
    assert_int_equal(gv_topology(ctx, &o, &t), GV_ERR_VERSION);
    o.struct_size = sizeof o;
    assert_int_equal(gv_topology(ctx, &o, &t), GV_OK);
    gv_topo_device d = GV_TOPO_DEVICE_INIT;
    gv_topo_link l = GV_TOPO_LINK_INIT;
    assert_int_equal(gv_topo_device_at(t, 4, &d), GV_ERR_NOT_FOUND);
    assert_int_equal(gv_topo_device_at(t, 0, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_topo_link_at(t, 0, 4, &l), GV_ERR_NOT_FOUND);
    d.struct_size = 8;
    assert_int_equal(gv_topo_device_at(t, 0, &d), GV_ERR_VERSION);
    assert_int_equal(gv_topo_device_at(NULL, 0, &d), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_topo_summary(NULL, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_topo_device_count(NULL), 0);
    gv_topo_free(t);
    gv_topo_free(NULL);
    assert_string_equal(gv_path_name(GV_PATH_NODE), "NODE");
    assert_string_equal(gv_path_name(GV_PATH_NVLINK), "NV");
    assert_string_equal(gv_path_name(99), "UNKNOWN");
    assert_string_equal(gv_path_name(-1), "UNKNOWN");
    gv_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(normalio_classes),
                                       cmocka_unit_test(two_socket_mlx4),
                                       cmocka_unit_test(irregular_groups),
                                       cmocka_unit_test(fsroot_replays),
                                       cmocka_unit_test(offline_capture_replayed_by_the_worker),
                                       cmocka_unit_test(topo_checks),
                                       cmocka_unit_test(link_checks),
                                       cmocka_unit_test(bad_input)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
