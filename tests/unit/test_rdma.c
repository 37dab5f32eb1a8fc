/* SPDX-License-Identifier: Apache-2.0 */
/* gv_rdma_status and the rdma.* / gpudirect.* checks over the RDMA fixture sysroots
 * (make_fixtures.py), the fake libibverbs, hwloc replaying each fixture (HWLOC_FSROOT) and
 * hwloc's captured 32em64t-2n8c+1mic tree with its real ConnectX-3 port. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "helpers.h"
#include "rdma/rdma.h"

static const char *const nccl_env[] = {
    "NCCL_NET",       "NCCL_IB_DISABLE",   "NCCL_IB_HCA",        "NCCL_SOCKET_IFNAME",
    "NCCL_IB_TC",     "NCCL_IB_GID_INDEX", "NCCL_NET_GDR_LEVEL", "NCCL_DMABUF_ENABLE",
    "NCCL_CONF_FILE", "NCCL_TOPO_FILE"};

static int clean_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof nccl_env / sizeof *nccl_env; i++)
        unsetenv(nccl_env[i]);
    unsetenv("HWLOC_FSROOT");
    return 0;
}

/* gv_run of rdma and gpudirect over a fixture, hwloc replaying the same tree; with
 * require_rdma GPUDirect is judged on a node without RDMA NIC too. */
static gv_report *run_rdma_policy(const char *sysroot, const char *scenario, int require_rdma)
{
    char root[4096];
    snprintf(root, sizeof root, "%s", fixture("sysroots"));
    snprintf(root + strlen(root), sizeof root - strlen(root), "/%s", sysroot);
    setenv("HWLOC_FSROOT", root, 1);
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma,gpudirect,topo.gpu_nic";
    gv_policy p = GV_POLICY_INIT;
    p.require_rdma = require_rdma;
    o.policy = &p;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    unsetenv("HWLOC_FSROOT");
    return r;
}

static gv_report *run_rdma(const char *sysroot, const char *scenario)
{
    return run_rdma_policy(sysroot, scenario, 0);
}

/* The row's verdict is want and its message contains text. */
static void expect(const gv_report *r, const char *id, const char *subject, int want,
                   const char *text)
{
    gv_check_result c = result_of(r, id, subject);
    if (c.verdict != want || !strstr(c.message, text)) {
        print_error("%s %s: %s '%s', wanted %s containing '%s'\n", id, subject,
                    gv_verdict_name(c.verdict), c.message, gv_verdict_name(want), text);
        fail();
    }
}

static void expect_ports(const gv_report *r, const char *id, int want, const char *text)
{
    for (int i = 0; i < 8; i++) {
        char subject[16];
        snprintf(subject, sizeof subject, "mlx5_%d/1", i);
        expect(r, id, subject, want, text);
    }
}

/* A healthy RoCE node: what a verify-rdma readiness script reports as 10 OK lines and
 * verify-gpudirect as 8, in meaning. */
static void test_healthy_roce(void **state)
{
    (void)state;
    /* The config space as root reads it: gpudirect.acs judges the ports too. */
    gv_report *r = run_rdma("h100-roce-acs-off", "h100x8-rdma");
    static const char *const modules[] = {"ib_core", "rdma_cm", "ib_uverbs", "mlx5_core",
                                          "mlx5_ib"};
    for (size_t i = 0; i < 5; i++) {
        char text[64];
        snprintf(text, sizeof text, "%s loaded", modules[i]);
        expect(r, "rdma.modules", modules[i], GV_PASS, text);
    }
    expect(r, "rdma.devices", "mlx5_0", GV_PASS,
           "mlx5_0: MT4129, firmware 28.42.1000, PCI 0000:19:00.0, NUMA 0, 1 port(s)");
    expect(r, "rdma.devices", "mlx5_7", GV_PASS, "PCI 0000:dc:00.0, NUMA 1");
    expect(r, "rdma.ports", "mlx5_0/1", GV_PASS,
           "mlx5_0 port 1: PORT_ACTIVE, LinkUp, 400 Gb/sec (4X NDR), Ethernet (RoCE v2 GID 1 on "
           "ens1f0np0)");
    expect_ports(r, "rdma.ports", GV_PASS, "PORT_ACTIVE");
    expect(r, "rdma.mtu", "mlx5_0/1", GV_PASS,
           "active_mtu=4096 (max supported) (netdev ens1f0np0 MTU 9000)");
    expect_ports(r, "rdma.mtu", GV_PASS, "active_mtu=4096 (max supported)");
    expect_ports(r, "rdma.roce_tos", GV_PASS, "RDMA-CM ToS=104 (DSCP 26), mode RoCE v2");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "NCCL would use IB over mlx5_0:1,mlx5_1:1");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "NCCL_IB_TC=104 (");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "/etc/profile.d/nccl-rdma.sh (login shells only)");

    expect(r, "gpudirect.p2pdma", "node", GV_PASS, "Kernel has CONFIG_PCI_P2PDMA=y");
    expect(r, "gpudirect.open_module", "node", GV_PASS, "Using nvidia-open driver 580.95.05");
    expect(r, "gpudirect.kernel", "node", GV_PASS, "Kernel 6.8 supports DMA-BUF (6.2+ required)");
    expect(r, "gpudirect.peermem", "node", GV_PASS, "nvidia-peermem NOT loaded");
    expect(r, "gpudirect.dmabuf", "node", GV_PASS, "8/8 GPUs support DMA-BUF");
    expect(r, "gpudirect.nic_dmabuf", "node", GV_PASS, "8/8 RDMA devices register DMA-BUF");
    expect(r, "gpudirect.nic_locality", "node", GV_PASS,
           "8/8 GPUs have an RDMA NIC within NCCL_NET_GDR_LEVEL=PXB (farthest nearest NIC: PIX)");
    expect(r, "gpudirect.acs", "node", GV_PASS,
           "no ACS redirect or source validation on the 16 switch port(s) between 8 GPU(s)");
    expect(r, "gpudirect.ready", "node", GV_PASS, "GPUDirect RDMA over DMA-BUF is ready");
    assert_int_equal(count_verdict(r, GV_PASS), (int)gv_report_count(r));
    assert_int_equal(gv_report_count(r), 5 + 8 * 5 + 1 + 9 + 8); /* ... + topo.gpu_nic */
    gv_report_free(r);
}

static void test_infiniband(void **state)
{
    (void)state;
    gv_report *r = run_rdma("h100-ib", "h100x8-rdma");
    expect(r, "rdma.ports", "mlx5_3/1", GV_PASS,
           "PORT_ACTIVE, LinkUp, 400 Gb/sec (4X NDR), "
           "InfiniBand, LID 0x3a3");
    expect_ports(r, "rdma.mtu", GV_PASS, "active_mtu=4096 (max supported)"); /* ibv_query_port */
    expect_ports(r, "rdma.roce_tos", GV_SKIP, "not RoCE");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "8 ACTIVE port(s) selected by NCCL_IB_HCA=mlx5");
    expect(r, "gpudirect.p2pdma", "node", GV_PASS, "/proc/config.gz");
    expect(r, "gpudirect.ready", "node", GV_PASS, "ready");
    gv_report_free(r);

    /* Without libibverbs: InfiniBand's MTU cannot be read, and NCCL cannot use IB. */
    r = run_rdma("h100-ib", NULL);
    expect_ports(r, "rdma.mtu", GV_SKIP, "ibv_query_port is needed and libibverbs");
    expect(r, "rdma.nccl_env", "node", GV_FAIL, "sockets: libibverbs.so.1 is not usable");
    expect(r, "gpudirect.nic_dmabuf", "node", GV_SKIP, "libibverbs is needed");
    gv_report_free(r);
}

static void test_one_thing_broken(void **state)
{
    (void)state;
    gv_report *r = run_rdma("h100-roce-mtu1500", "h100x8-rdma-mtu1500");
    expect(r, "rdma.mtu", "mlx5_3/1", GV_WARN,
           "mlx5_3 port 1: active_mtu=1024 < max 4096 (netdev ens4f0np0 MTU 1500)");
    expect(r, "rdma.mtu", "mlx5_2/1", GV_PASS, "active_mtu=4096");
    assert_int_equal(count_verdict(r, GV_WARN), 1);
    gv_report_free(r);

    r = run_rdma("h100-roce-port-down", "h100x8-rdma");
    expect(r, "rdma.ports", "mlx5_5/1", GV_FAIL,
           "mlx5_5 port 1: DOWN, physical state Polling: no link; the nearest RDMA NIC of "
           "GPU5 (PIX), whose traffic leaves through a farther NIC or none");
    expect(r, "rdma.mtu", "mlx5_5/1", GV_SKIP, "not ACTIVE");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "7 ACTIVE port(s)");
    gv_report_free(r);

    r = run_rdma("h100-roce-no-configfs", "h100x8-rdma");
    expect_ports(r, "rdma.roce_tos", GV_WARN,
                 "RDMA-CM ToS not configured (no "
                 "/sys/kernel/config/rdma_cm/mlx5_");
    assert_int_equal(count_verdict(r, GV_FAIL), 0);
    gv_report_free(r);

    r = run_rdma("h100-roce-bad-hca", "h100x8-rdma");
    expect(r, "rdma.nccl_env", "node", GV_FAIL,
           "NCCL would fall back to sockets: NCCL_IB_HCA=mlx5_9 (");
    expect(r, "rdma.nccl_env", "node", GV_FAIL, "matches none of the ACTIVE ports (mlx5_0:1,");
    gv_report_free(r);

    r = run_rdma("h100-roce-ib-disabled", "h100x8-rdma");
    expect(r, "rdma.nccl_env", "node", GV_FAIL, "sockets: NCCL_IB_DISABLE=1 (");
    gv_report_free(r);

    r = run_rdma("h100-roce-peermem", "h100x8-rdma");
    expect(r, "gpudirect.peermem", "node", GV_WARN,
           "/sys/module/nvidia_peermem/version) beside "
           "the DMA-BUF path");
    expect(r, "gpudirect.ready", "node", GV_WARN, "works with warnings: peermem");
    gv_report_free(r);

    r = run_rdma("h100-roce", "h100x8-rdma-no-dmabuf");
    expect(r, "gpudirect.dmabuf", "node", GV_FAIL, "8 of 8 GPUs cannot export memory as DMA-BUF");
    expect(r, "gpudirect.nic_dmabuf", "node", GV_FAIL,
           "8 of 8 RDMA devices cannot register DMA-BUF memory: mlx5_0 (ibv_reg_dmabuf_mr(fd "
           "-1): Operation not supported)");
    expect(r, "gpudirect.ready", "node", GV_FAIL, "is NOT ready: dmabuf, nic_dmabuf");
    gv_report_free(r);
}

/* A port no GPU's traffic would leave through is no fault of the GPUs' fabric: NCCL uses only
 * ACTIVE ports. A port down that leaves a GPU without an ACTIVE nearest NIC FAILs; where the
 * topology cannot tell, every port down FAILs as before. */
static void test_ports_by_role(void **state)
{
    (void)state;
    gv_report *r = run_rdma("h100-roce-storage", "h100x8-rdma-storage");
    expect(r, "rdma.ports", "mlx5_9/1", GV_WARN,
           "mlx5_9 port 1: DOWN, physical state Polling: no link; every GPU keeps an ACTIVE RDMA "
           "NIC as near as this one");
    expect(r, "rdma.ports", "mlx5_8/1", GV_PASS, "PORT_ACTIVE");
    expect(r, "rdma.ports", "mlx5_5/1", GV_PASS, "PORT_ACTIVE");
    gv_report_free(r);

    /* The node's one dual-port NIC, beside no GPU: a port cabled serves every GPU as near. */
    r = run_rdma("h100-pcie-nic", "h100x8-pcie-nic");
    expect(r, "rdma.ports", "mlx5_9/1", GV_WARN, "every GPU keeps an ACTIVE RDMA NIC as near");
    gv_report_free(r);
    r = run_rdma("h100-pcie-nic-down", "h100x8-pcie-nic");
    expect(r, "rdma.ports", "mlx5_8/1", GV_FAIL, "no link; the nearest RDMA NIC of GPU0 (");
    expect(r, "rdma.ports", "mlx5_9/1", GV_FAIL, "GPU7 (");
    gv_report_free(r);

    /* Every GPU alike far from the NICs is how the node was built: no GPUDirect RDMA, a WARN,
     * a FAIL where the policy requires RDMA; one GPU far where the others are near is a NIC
     * missing. */
    r = run_rdma("h100-pcie-nic", "h100x8-pcie-nic");
    expect(r, "gpudirect.nic_locality", "node", GV_WARN,
           "none of the 8 GPUs has an RDMA NIC within NCCL_NET_GDR_LEVEL=PXB: GPU0 (0000:18:00.0: "
           "nearest mlx5_8 at NODE)");
    expect(r, "gpudirect.nic_locality", "node", GV_WARN, "built without GPUDirect RDMA locality");
    expect(r, "topo.gpu_nic", "gpu7", GV_PASS,
           "nearest NIC mlx5_8 (0000:04:00.0) at SYS, as built");
    gv_report_free(r);
    r = run_rdma_policy("h100-pcie-nic", "h100x8-pcie-nic", 1);
    expect(r, "gpudirect.nic_locality", "node", GV_FAIL,
           "8 of 8 GPUs have no RDMA NIC within NCCL_NET_GDR_LEVEL=PXB");
    expect(r, "topo.gpu_nic", "gpu7", GV_WARN, "crosses the socket interconnect");
    gv_report_free(r);
    r = run_rdma("h100-roce-rail-missing", "h100x8-rdma-rail-missing");
    expect(r, "topo.gpu_nic", "gpu6", GV_WARN, "0000:ba:00.0: nearest NIC mlx5_");
    gv_report_free(r);
    r = run_rdma("h100-roce-rail-missing", "h100x8-rdma-rail-missing");
    expect(r, "gpudirect.nic_locality", "node", GV_FAIL,
           "1 of 8 GPUs have no RDMA NIC within NCCL_NET_GDR_LEVEL=PXB: GPU6 (0000:ba:00.0: "
           "nearest mlx5_");
    gv_report_free(r);

    /* No topology of this node (an offline sysroot, hwloc reading another machine). */
    gv_ctx *ctx = scenario_ctx("h100-roce-storage", "h100x8-rdma-storage");
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma.ports";
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    expect(r, "rdma.ports", "mlx5_9/1", GV_FAIL, "DOWN, physical state Polling: no link");
    gv_report_free(r);
}

static void test_environment_wins(void **state)
{
    (void)state;
    setenv("NCCL_IB_TC", "96", 1);
    setenv("NCCL_SOCKET_IFNAME", "=bond0", 1);
    setenv("NCCL_DMABUF_ENABLE", "0", 1);
    gv_report *r = run_rdma("h100-roce", "h100x8-rdma");
    expect(r, "rdma.roce_tos", "mlx5_0/1", GV_WARN,
           "ToS=104 (DSCP 26) but NCCL_IB_TC=96 "
           "(environment)");
    expect(r, "rdma.nccl_env", "node", GV_FAIL,
           "NCCL_SOCKET_IFNAME==bond0 (environment) matches "
           "no network interface");
    expect(r, "gpudirect.dmabuf", "node", GV_WARN, "NCCL_DMABUF_ENABLE=0 (environment)");
    gv_report_free(r);

    /* The node's files alone, as a scheduler judging the node rather than its own job. */
    gv_ctx *ctx = scenario_ctx("h100-roce", "h100x8-rdma");
    gv_rdma_opts o = GV_RDMA_OPTS_INIT;
    o.flags = GV_RDMA_IGNORE_ENVIRONMENT;
    gv_rdma_report *rr = NULL;
    assert_int_equal(gv_rdma_status(ctx, &o, &rr), GV_OK);
    const gv_rdma_setting *tc = gv_rdma_setting_find(rr, "NCCL_IB_TC");
    assert_non_null(tc);
    assert_string_equal(tc->value, "104");
    assert_non_null(strstr(tc->source, "/etc/nccl.conf"));
    gv_rdma_free(rr);
    gv_ctx_destroy(ctx);
    clean_env(NULL);
}

static void test_stock_debian_and_no_rdma(void **state)
{
    (void)state;
    /* No RDMA NIC: GPUDirect RDMA is not applicable, whatever the module and kernel. */
    gv_report *r = run_rdma("debian12-proprietary", "t4");
    expect(r, "gpudirect.open_module", "node", GV_SKIP, "not applicable: no RDMA NIC");
    expect(r, "gpudirect.ready", "node", GV_SKIP, "not applicable: no RDMA NIC");
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    gv_report_free(r);
    /* A site that requires RDMA gets every prerequisite judged. */
    r = run_rdma_policy("debian12-proprietary", "t4", 1);
    expect(r, "gpudirect.open_module", "node", GV_FAIL, "proprietary NVIDIA module 535.104.05");
    expect(r, "gpudirect.p2pdma", "node", GV_FAIL,
           "Kernel 6.1.0-13-amd64: CONFIG_PCI_P2PDMA is not set");
    expect(r, "gpudirect.kernel", "node", GV_FAIL, "Kernel 6.1 is older than 6.2");
    expect(r, "gpudirect.nic_locality", "node", GV_SKIP, "no RDMA NIC on this node");
    expect(r, "gpudirect.ready", "node", GV_FAIL, "is NOT ready: open_module, p2pdma, kernel");
    expect(r, "rdma.modules", "mlx5_ib", GV_SKIP, "no RDMA hardware on this node");
    gv_report_free(r);

    r = run_rdma_policy("laptop-geforce", NULL, 1);
    expect(r, "rdma.devices", "node", GV_FAIL, "no RDMA device"); /* required */
    expect(r, "rdma.ports", "node", GV_SKIP, "no RDMA port on this node");
    expect(r, "rdma.nccl_env", "node", GV_SKIP, "NCCL would fall back to sockets");
    expect(r, "gpudirect.p2pdma", "node", GV_SKIP,
           "no configuration found (tried "); /* names every path tried */
    expect(r, "gpudirect.p2pdma", "node", GV_SKIP, "/proc/config.gz");
    expect(r, "gpudirect.dmabuf", "node", GV_SKIP, "CUDA cannot be asked");
    gv_report_free(r);

    r = run_rdma("no-nvidia", NULL);
    expect(r, "gpudirect.ready", "node", GV_SKIP, "not applicable: no NVIDIA GPU on this node");
    gv_report_free(r);
}

/* Azure's Accelerated Networking VF (mlx5_0, its netdev enslaved to hv_netvsc's eth0) is the
 * VM's frontend Ethernet, no fabric: an NC VM with only that is a node without RDMA (before:
 * rdma.modules FAIL for rdma_cm, rdma.mtu WARN at 1500, rdma.nccl_env WARN), and an ND VM's
 * InfiniBand VF is judged alone. A GPU hwloc does not place is no GPUDirect finding. */
static void test_azure_frontend_vf(void **state)
{
    (void)state;
    gv_report *r = run_rdma("azure-nc-h100", "azure-nc-h100");
    expect(r, "rdma.devices", "node", GV_SKIP,
           "left out: mlx5_0 (VF of eth0, hv_netvsc), the VM's frontend Ethernet");
    expect(r, "rdma.modules", "rdma_cm", GV_SKIP, "no RDMA hardware on this node");
    expect(r, "rdma.mtu", "node", GV_SKIP, "no RDMA port on this node");
    expect(r, "rdma.nccl_env", "node", GV_SKIP,
           "no RDMA fabric device: only mlx5_0 (VF of eth0, hv_netvsc), the VM's frontend");
    expect(r, "gpudirect.ready", "node", GV_SKIP, "not applicable: no RDMA NIC");
    assert_int_equal(gv_report_verdict(r), GV_PASS);
    gv_report_free(r);

    r = run_rdma("azure-nd-h100", "azure-nc-h100");
    expect(r, "rdma.devices", "mlx5_1", GV_PASS, "PCI 0101:00:00.0");
    expect(r, "rdma.ports", "mlx5_1/1", GV_PASS, "InfiniBand");
    expect(r, "rdma.nccl_env", "node", GV_PASS, "NCCL would use IB over mlx5_1:1 (1 ACTIVE");
    gv_check_result c = GV_CHECK_RESULT_INIT;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        assert_null(strstr(c.subject, "mlx5_0"));
    }
    /* hwloc does not place the GPU (a 32-bit PCI domain): its distance is not judged. */
    expect(r, "gpudirect.nic_locality", "node", GV_SKIP,
           "the distance from every GPU to the RDMA NICs is unknown: hwloc does not place GPU0");
    gv_report_free(r);

    /* NCCL told the VM's topology by a file (Azure ND images do): not judged from the PCI tree. */
    setenv("NCCL_TOPO_FILE", "/opt/microsoft/ndv5-topo.xml", 1);
    r = run_rdma_policy("azure-nd-h100", "azure-nc-h100", 1);
    unsetenv("NCCL_TOPO_FILE");
    expect(r, "gpudirect.nic_locality", "node", GV_SKIP,
           "NCCL takes the node's topology from NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml "
           "(environment)");
    gv_report_free(r);
}

static void test_malformed(void **state)
{
    (void)state;
    gv_report *r = run_rdma("h100-roce-malformed", "h100x8-rdma");
    expect(r, "rdma.devices", "mlx5_8", GV_ERROR, "too many levels of links");
    expect(r, "rdma.ports", "mlx5_1/1", GV_ERROR, "state unreadable: state: reading");
    expect(r, "rdma.ports", "mlx5_1/1", GV_ERROR, "empty file");
    expect(r, "rdma.ports", "mlx5_2/1", GV_ERROR, "PORT_ACTIVE, rate unknown: rate: reading ");
    expect(r, "rdma.ports", "mlx5_2/1", GV_ERROR, "/ports/1/rate: 'fast': not a number");
    expect(r, "rdma.ports", "mlx5_4/1", GV_WARN, "gid_attrs/types/3: reading");
    expect(r, "rdma.nccl_env", "node", GV_WARN, "mlx5_4 port 1 has a GID of type unknown");
    expect(r, "gpudirect.p2pdma", "node", GV_ERROR,
           "proc/config.gz: unexpected end of file (the file is damaged)");
    expect(r, "rdma.mtu", "mlx5_0/1", GV_PASS, "active_mtu=4096");
    gv_report_free(r);
}

/* hwloc's captured machine: a real ConnectX-3 InfiniBand port, a SCIF device whose directory
 * was not captured, no /proc/modules. */
static void test_hwloc_capture(void **state)
{
    (void)state;
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = fixture("hwloc/fsroot/32em64t-2n8c+1mic");
    co.library_dir = emptylib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_rdma_report *r = NULL;
    assert_int_equal(gv_rdma_status(ctx, NULL, &r), GV_OK);
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    assert_int_equal(gv_rdma_summary(r, &info), GV_OK);
    assert_int_equal(info.device_count, 2);
    assert_int_equal(info.port_count, 1);
    assert_int_equal(info.active_ports, 1);
    assert_int_equal(info.verbs_state, GV_LIBSTATE_ABSENT);
    gv_rdma_device d = GV_RDMA_DEVICE_INIT;
    assert_int_equal(gv_rdma_device_at(r, 0, &d), GV_OK);
    assert_string_equal(d.name, "mlx4_0");
    assert_string_equal(d.fw_ver, "2.11.500");
    assert_string_equal(d.hca_type, "MT4099");
    assert_string_equal(d.node_guid, "0002:c903:00f9:bfa0");
    assert_string_equal(d.pci_bus_id, "0000:82:00.0");
    assert_int_equal(d.pci_vendor_id, 0x15b3);
    assert_int_equal(gv_rdma_device_at(r, 1, &d), GV_OK);
    assert_string_equal(d.name, "scif0");
    assert_non_null(strstr(d.problem, "No such file or directory"));
    gv_rdma_port p = GV_RDMA_PORT_INIT;
    assert_int_equal(gv_rdma_port_at(r, 0, &p), GV_OK);
    assert_int_equal(p.state, GV_PORT_ACTIVE);
    assert_int_equal(p.phys_state, 5);
    assert_string_equal(p.phys_state_text, "LinkUp");
    assert_int_equal(p.link_layer, GV_LINK_LAYER_INFINIBAND);
    assert_int_equal(p.lid, 0x3a4);
    assert_true(p.rate_gbps == 56.0);
    assert_string_equal(p.netdev, "ib0");
    assert_int_equal(p.netdev_mtu, 2044);
    assert_int_equal(p.mtu_source, GV_MTU_UNKNOWN); /* InfiniBand without libibverbs */
    assert_true(p.gid_count >= 1);
    gv_rdma_gid g = GV_RDMA_GID_INIT;
    assert_int_equal(gv_rdma_gid_at(r, p.first_gid, &g), GV_OK);
    assert_int_equal(g.index, 0);
    assert_string_equal(g.gid, "fe80:0000:0000:0000:0002:c903:00f9:bfa1");
    gv_rdma_free(r);

    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma";
    gv_report *rep = NULL;
    assert_int_equal(gv_run(ctx, &o, &rep), GV_OK);
    expect(rep, "rdma.modules", "ib_core", GV_ERROR, "cannot tell whether ib_core is loaded");
    expect(rep, "rdma.modules", "mlx5_ib", GV_SKIP, "not needed: no mlx5 device");
    expect(rep, "rdma.devices", "mlx4_0", GV_PASS,
           "mlx4_0: MT4099, firmware 2.11.500, PCI 0000:82:00.0");
    expect(rep, "rdma.devices", "scif0", GV_ERROR, "No such file or directory");
    expect(rep, "rdma.ports", "mlx4_0/1", GV_PASS,
           "PORT_ACTIVE, LinkUp, 56 Gb/sec (4X FDR), InfiniBand, LID 0x3a4");
    expect(rep, "rdma.mtu", "mlx4_0/1", GV_SKIP, "libibverbs is not usable");
    expect(rep, "rdma.nccl_env", "node", GV_FAIL, "libibverbs.so.1 is not usable");
    gv_report_free(rep);
    gv_ctx_destroy(ctx);
}

/* A port on its way to ACTIVE (INIT: the link is up, the subnet manager not yet through) is
 * waited for: read again until it is ACTIVE, or for two thirds of the deadline. */
typedef struct {
    const char *root;
    int delay_ms;
} port_flip;

/* Replaces a port file at once (a new file renamed over it), as the kernel's attribute changes:
 * a reader never sees it truncated. */
static void replace_port_file(const char *root, const char *name, const char *text)
{
    char rel[128], from[4096], to[4096];
    snprintf(rel, sizeof rel, "/sys/class/infiniband/mlx5_0/ports/1/%s.new", name);
    put_file(root, rel, text);
    snprintf(from, sizeof from, "%s%s", root, rel);
    snprintf(to, sizeof to, "%s/sys/class/infiniband/mlx5_0/ports/1/%s", root, name);
    assert_int_equal(rename(from, to), 0);
}

static void *activate_later(void *arg)
{
    const port_flip *f = arg;
    struct timespec pause = {f->delay_ms / 1000, (long)(f->delay_ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    replace_port_file(f->root, "lid", "0x12\n");
    replace_port_file(f->root, "state", "4: ACTIVE\n");
    return NULL;
}

static gv_ctx *one_port_node(const char *root, double deadline_s)
{
    put_file(root, "/proc/uptime", "86400.00 100000.00\n");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/lid", "0x0\n");
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = emptylib();
    co.deadline_s = deadline_s;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    return ctx;
}

static int32_t first_port_state(gv_ctx *ctx, double *took_s)
{
    gv_rdma_report *r = NULL;
    double t0 = gv_now_s();
    assert_int_equal(gv_rdma_status(ctx, NULL, &r), GV_OK);
    *took_s = gv_now_s() - t0;
    gv_rdma_port p = GV_RDMA_PORT_INIT;
    assert_int_equal(gv_rdma_port_at(r, 0, &p), GV_OK);
    gv_rdma_free(r);
    return p.state;
}

static void test_ports_on_their_way(void **state)
{
    (void)state;
    char *root = temp_root();
    /* A deadline whose wait (two thirds, 10 s) no slow host's read is mistaken for. */
    gv_ctx *ctx = one_port_node(root, 15.0);
    port_flip flip = {root, 400};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, activate_later, &flip), 0);
    double took;
    assert_int_equal(first_port_state(ctx, &took), GV_PORT_ACTIVE);
    pthread_join(t, NULL);
    assert_true(took >= 0.3 && took < 5.0);
    /* Through gv_run: the row is judged on what the port became, and says it waited. */
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n");
    assert_int_equal(pthread_create(&t, NULL, activate_later, &flip), 0);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma.ports";
    gv_policy policy = GV_POLICY_INIT;
    policy.gpu_count = 0; /* a storage node: no GPU is right */
    o.policy = &policy;
    gv_report *rep = NULL;
    assert_int_equal(gv_run(ctx, &o, &rep), GV_OK);
    pthread_join(t, NULL);
    expect(rep, "rdma.ports", "mlx5_0/1", GV_PASS, "PORT_ACTIVE, LinkUp, 400 Gb/sec (4X NDR)");
    expect(rep, "rdma.ports", "mlx5_0/1", GV_PASS, "(read after waiting ");
    gv_report_free(rep);
    /* Settled at once: no wait (a wait would be 10 s); what reading the port takes here. */
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    double settled;
    assert_int_equal(first_port_state(ctx, &settled), GV_PORT_ACTIVE);
    assert_true(settled < 5.0);
    gv_ctx_destroy(ctx);
    /* A port that stays in INIT (no subnet manager) is judged as it is once the wait is over:
     * two thirds of a 1.5 s deadline, the read itself apart. */
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n");
    ctx = one_port_node(root, 1.5);
    assert_int_equal(first_port_state(ctx, &took), GV_PORT_INIT);
    assert_true(took >= 0.95 && took < 2.5 + settled);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);
}

/* A copy of a fixture to spoil, and gv_run of rdma over it (hwloc replaying it). */
static char *copy_of(const char *sysroot)
{
    char *root = temp_root(), cmd[8192];
    snprintf(cmd, sizeof cmd, "cp -a '%s/%s/.' '%s/'", fixture("sysroots"), sysroot, root);
    assert_int_equal(system(cmd), 0);
    return root;
}

static gv_report *run_rdma_at(const char *root)
{
    setenv("HWLOC_FSROOT", root, 1);
    use_scenario("h100x8-rdma");
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = fakelib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "rdma";
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    unsetenv("HWLOC_FSROOT");
    return r;
}

/* A port rate no port has (0 to 3200 Gb/s) is unknown: the ACTIVE port's row ERRORs, named. */
static void test_rate_out_of_range(void **state)
{
    (void)state;
    char *root = copy_of("h100-roce");
    put_file(root, "/sys/class/infiniband/mlx5_0/ports/1/rate", "99999999999999 Gb/sec (4X NDR)\n");
    put_file(root, "/sys/class/infiniband/mlx5_1/ports/1/rate", "-400 Gb/sec (4X NDR)\n");
    put_file(root, "/sys/class/infiniband/mlx5_2/ports/1/rate", "400 Gb/s\n");
    gv_report *r = run_rdma_at(root);
    expect(r, "rdma.ports", "mlx5_0/1", GV_ERROR, "PORT_ACTIVE, rate unknown: rate: reading ");
    expect(r, "rdma.ports", "mlx5_0/1", GV_ERROR,
           "/ports/1/rate: '99999999999999 Gb/sec (4': out of range (0-3200 Gb/sec)");
    expect(r, "rdma.ports", "mlx5_1/1", GV_ERROR, "'-400 Gb/sec (4X NDR)': out of range");
    expect(r, "rdma.ports", "mlx5_2/1", GV_ERROR, "'400 Gb/s': a number followed by other bytes");
    expect(r, "rdma.ports", "mlx5_3/1", GV_PASS, "400 Gb/sec (4X NDR)");
    gv_report_free(r);
    remove_tree(root);
    free(root);
}

/* gv_rdma_status's report over a sysroot, through the worker (the ports cross as records). */
static gv_rdma_report *status_at(const char *root)
{
    use_scenario("h100x8-rdma");
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.sysroot = root;
    co.library_dir = fakelib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&co, &ctx), GV_OK);
    gv_rdma_report *r = NULL;
    assert_int_equal(gv_rdma_status(ctx, NULL, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

static gv_rdma_port port_named(const gv_rdma_report *r, const char *device)
{
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    assert_int_equal(gv_rdma_summary(r, &info), GV_OK);
    for (uint32_t i = 0; i < info.port_count; i++) {
        gv_rdma_port p = GV_RDMA_PORT_INIT;
        assert_int_equal(gv_rdma_port_at(r, i, &p), GV_OK);
        if (!strcmp(p.device, device))
            return p;
    }
    fail_msg("no port of %s", device);
    gv_rdma_port none = GV_RDMA_PORT_INIT;
    return none;
}

/* The error counters as the kernel writes them; a file absent is a counter the device does
 * not give (-1, no note); one that is not a decimal number in range is -1 and named in
 * counters_problem, and changes nothing rdma.ports judges. */
static void test_port_counters(void **state)
{
    (void)state;
    char *root = copy_of("h100-ib");
    const char *dir = "/sys/class/infiniband/mlx5_%d/ports/1/%s";
    char rel[160], cmd[8192];
    snprintf(rel, sizeof rel, dir, 0, "hw_counters/rnr_nak_retry_err");
    snprintf(cmd, sizeof cmd, "rm '%s%s'", root, rel);
    assert_int_equal(system(cmd), 0);
    snprintf(rel, sizeof rel, dir, 1, "counters");
    snprintf(cmd, sizeof cmd, "rm -r '%s%s'", root, rel);
    assert_int_equal(system(cmd), 0);
    static const char *const bad[] = {"0x10\n", "-5\n", "", "18446744073709551615\n",
                                      "12 errors\n"};
    static const char *const why[] = {"'0x10': a number followed by other bytes",
                                      "'-5': out of range", "symbol_error: empty file",
                                      "'18446744073709551615': out of range",
                                      "'12 errors': a number followed by other bytes"};
    for (int i = 0; i < 5; i++) { /* mlx5_3 ... mlx5_7 */
        snprintf(rel, sizeof rel, dir, 3 + i, "counters/symbol_error");
        put_file(root, rel, bad[i]);
    }
    gv_rdma_report *r = status_at(root);

    gv_rdma_port p = port_named(r, "mlx5_2"); /* present: as written */
    assert_int_equal(p.has_counters, 1);
    assert_int_equal(p.symbol_error, 2);
    assert_int_equal(p.link_downed, 0);
    assert_int_equal(p.port_xmit_discards, 0);
    assert_int_equal(p.rnr_nak_retry_err, 0);
    assert_int_equal(p.carrier_changes, -1); /* InfiniBand: IPoIB's carrier is not read */
    assert_string_equal(p.counters_problem, "");
    assert_true(p.struct_size == sizeof p);
    p = port_named(r, "mlx5_6");
    assert_int_equal(p.link_downed, 1);
    p = port_named(r, "mlx5_0"); /* a hw_counters file the driver lacks: unknown, no note */
    assert_int_equal(p.rnr_nak_retry_err, -1);
    assert_int_equal(p.symbol_error, 0);
    assert_string_equal(p.counters_problem, "");
    p = port_named(r, "mlx5_1"); /* no counters directory */
    assert_int_equal(p.has_counters, 0);
    assert_int_equal(p.symbol_error, -1);
    assert_int_equal(p.link_downed, -1);
    assert_int_equal(p.rnr_nak_retry_err, 0); /* hw_counters stay */
    assert_string_equal(p.counters_problem, "");
    for (int i = 0; i < 5; i++) {
        char device[16];
        snprintf(device, sizeof device, "mlx5_%d", 3 + i);
        p = port_named(r, device);
        assert_int_equal(p.symbol_error, -1);
        if (!strstr(p.counters_problem, "counters/symbol_error: ") ||
            !strstr(p.counters_problem, why[i]))
            fail_msg("%s: counters_problem '%s', wanted '%s'", p.device, p.counters_problem,
                     why[i]);
        assert_string_equal(p.problem, ""); /* rdma.ports' own problems: untouched */
        assert_int_equal(p.port_xmit_discards, p.device[5] == '3' ? 14 : 0); /* the rest read */
    }
    gv_rdma_free(r);

    /* Through gv_run: the unreadable counters WARN in rdma.port_errors alone. */
    gv_report *rep = run_rdma_at(root);
    expect(rep, "rdma.ports", "mlx5_3/1", GV_PASS, "PORT_ACTIVE");
    expect(rep, "rdma.port_errors", "mlx5_3/1", GV_WARN,
           "counters unreadable: counters/symbol_error: '0x10': a number followed by other bytes; "
           "read: port_xmit_discards 14");
    expect(rep, "rdma.port_errors", "mlx5_1/1", GV_SKIP, "no counters directory");
    expect(rep, "rdma.port_errors", "mlx5_0/1", GV_PASS,
           "no error counted since the driver loaded; not given by this device: rnr_nak_retry_err");
    expect(rep, "rdma.port_errors", "mlx5_2/1", GV_PASS, "symbol_error 2 since the driver loaded");
    gv_report_free(rep);
    remove_tree(root);
    free(root);

    /* RoCE: the netdev's carrier changes, and a flap of them. */
    root = copy_of("h100-roce");
    put_file(root, "/sys/class/net/ens5f0np0/carrier_changes", "7\n");
    r = status_at(root);
    assert_int_equal(port_named(r, "mlx5_0").carrier_changes, 2);
    assert_int_equal(port_named(r, "mlx5_4").carrier_changes, 7);
    gv_rdma_free(r);
    remove_tree(root);
    free(root);
}

/* /etc/nccl.conf is read whole up to 1 MiB: 100 kB of comments still give their setting;
 * bigger, binary, a FIFO or a device is an ERROR naming the file, and nothing blocks. */
static void test_nccl_conf_hostile(void **state)
{
    (void)state;
    char *root = copy_of("h100-roce");
    size_t n = 100 * 1024;
    char *text = malloc(2 * 1024 * 1024 + 64);
    memset(text, 0, 2 * 1024 * 1024 + 64);
    for (size_t i = 0; i + 32 <= n; i += 32)
        memcpy(text + i, "# a comment line of 32 bytes ..\n", 32);
    strcat(text, "NCCL_IB_DISABLE=1\n");
    put_file(root, "/etc/nccl.conf", text);
    gv_report *r = run_rdma_at(root);
    expect(r, "rdma.nccl_env", "node", GV_FAIL, "NCCL would fall back to sockets");
    expect(r, "rdma.nccl_env", "node", GV_FAIL, "NCCL_IB_DISABLE=1 (/etc/nccl.conf)");
    gv_report_free(r);

    for (size_t i = strlen(text); i < 2 * 1024 * 1024; i += 32) /* over the bound */
        memcpy(text + i, "# a comment line of 32 bytes ..\n", 32);
    put_file(root, "/etc/nccl.conf", text);
    r = run_rdma_at(root);
    expect(r, "rdma.nccl_env", "node", GV_ERROR,
           "NCCL's settings unknown: /etc/nccl.conf: 2097170 bytes, more than the 1048576 read");
    gv_report_free(r);

    put_file(root, "/etc/nccl.conf", "NCCL_IB_HCA=mlx5\n\x01\x02\x7f binary\n");
    r = run_rdma_at(root);
    expect(r, "rdma.nccl_env", "node", GV_ERROR,
           "/etc/nccl.conf: binary data, not a configuration");
    gv_report_free(r);

    char path[4096];
    snprintf(path, sizeof path, "%s/etc/nccl.conf", root);
    unlink(path);
    assert_int_equal(mkfifo(path, 0644), 0);
    r = run_rdma_at(root);
    expect(r, "rdma.nccl_env", "node", GV_ERROR, "/etc/nccl.conf: a FIFO, not a file");
    gv_report_free(r);

    unlink(path);
    if (mknod(path, S_IFCHR | 0644, makedev(1, 5)) == 0) { /* /dev/zero; needs root */
        r = run_rdma_at(root);
        expect(r, "rdma.nccl_env", "node", GV_ERROR, "/etc/nccl.conf: a device, not a file");
        gv_report_free(r);
    }
    free(text);
    remove_tree(root);
    free(root);
}

static void test_bad_input(void **state)
{
    (void)state;
    gv_rdma_report *r = (gv_rdma_report *)0x1;
    assert_int_equal(gv_rdma_status(NULL, NULL, &r), GV_ERR_INVALID_ARG);
    gv_ctx *ctx = scenario_ctx("h100-roce", "h100x8-rdma");
    assert_int_equal(gv_rdma_status(ctx, NULL, NULL), GV_ERR_INVALID_ARG);
    gv_rdma_opts o = GV_RDMA_OPTS_INIT;
    o.struct_size = 4;
    assert_int_equal(gv_rdma_status(ctx, &o, &r), GV_ERR_VERSION);
    assert_null(r);
    o = (gv_rdma_opts)GV_RDMA_OPTS_INIT;
    o.flags = 0x80;
    assert_int_equal(gv_rdma_status(ctx, &o, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "flags"));
    o.flags = GV_RDMA_NO_VERBS;
    assert_int_equal(gv_rdma_status(ctx, &o, &r), GV_OK);
    gv_rdma_info info = GV_RDMA_INFO_INIT;
    assert_int_equal(gv_rdma_summary(r, &info), GV_OK);
    assert_int_equal(info.verbs_state, GV_LIBSTATE_NOT_QUERIED);
    assert_int_equal(info.device_count, 8);
    assert_int_equal(info.mellanox_functions, 8);
    assert_string_equal(info.functions_without_rdma, "");
    info.struct_size = 8;
    assert_int_equal(gv_rdma_summary(r, &info), GV_ERR_VERSION);
    assert_int_equal(gv_rdma_summary(NULL, &info), GV_ERR_INVALID_ARG);
    gv_rdma_port p = GV_RDMA_PORT_INIT;
    assert_int_equal(gv_rdma_port_at(r, 8, &p), GV_ERR_NOT_FOUND);
    assert_int_equal(gv_rdma_port_at(r, 0, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_rdma_port_at(NULL, 0, &p), GV_ERR_INVALID_ARG);
    gv_rdma_module m = GV_RDMA_MODULE_INIT;
    assert_int_equal(gv_rdma_module_at(r, 5, &m), GV_ERR_NOT_FOUND);
    assert_int_equal(gv_rdma_module_at(r, 4, &m), GV_OK);
    assert_string_equal(m.name, "mlx5_ib");
    assert_int_equal(m.state, GV_MODULE_LOADED);
    gv_rdma_setting s = GV_RDMA_SETTING_INIT;
    s.struct_size = 3;
    assert_int_equal(gv_rdma_setting_at(r, 0, &s), GV_ERR_VERSION);
    gv_rdma_free(r);
    gv_rdma_free(NULL);
    gv_ctx_destroy(ctx);
}

static void test_nccl_lists_and_mtu_rule(void **state)
{
    (void)state;
    assert_true(gv_nccl_list_matches("mlx5", "mlx5_3", 1));
    assert_false(gv_nccl_list_matches("=mlx5", "mlx5_3", 1));
    assert_true(gv_nccl_list_matches("=mlx5_3", "mlx5_3", 1));
    assert_false(gv_nccl_list_matches("^mlx5_3", "mlx5_3", 1));
    assert_true(gv_nccl_list_matches("^mlx5_3", "mlx5_4", 1));
    assert_true(gv_nccl_list_matches("mlx5_0:1,mlx5_1:1", "mlx5_1", 1));
    assert_false(gv_nccl_list_matches("mlx5_0:2", "mlx5_0", 1));
    assert_true(gv_nccl_list_matches("^=mlx5_0", "mlx5_01", 1));
    assert_int_equal(gv_roce_active_mtu(1500), 1024);
    assert_int_equal(gv_roce_active_mtu(4200), 4096);
    assert_int_equal(gv_roce_active_mtu(9000), 4096);
    assert_int_equal(gv_roce_active_mtu(4191), 2048);
    assert_int_equal(gv_roce_active_mtu(1100), 512);
    assert_int_equal(gv_roce_active_mtu(300), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_healthy_roce, clean_env),
        cmocka_unit_test_setup(test_infiniband, clean_env),
        cmocka_unit_test_setup(test_one_thing_broken, clean_env),
        cmocka_unit_test_setup(test_ports_by_role, clean_env),
        cmocka_unit_test_setup(test_environment_wins, clean_env),
        cmocka_unit_test_setup(test_stock_debian_and_no_rdma, clean_env),
        cmocka_unit_test_setup(test_malformed, clean_env),
        cmocka_unit_test_setup(test_azure_frontend_vf, clean_env),
        cmocka_unit_test_setup(test_hwloc_capture, clean_env),
        cmocka_unit_test_setup(test_ports_on_their_way, clean_env),
        cmocka_unit_test_setup(test_bad_input, clean_env),
        cmocka_unit_test_setup(test_rate_out_of_range, clean_env),
        cmocka_unit_test_setup(test_port_counters, clean_env),
        cmocka_unit_test_setup(test_nccl_conf_hostile, clean_env),
        cmocka_unit_test(test_nccl_lists_and_mtu_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
