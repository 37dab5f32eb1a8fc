/* SPDX-License-Identifier: Apache-2.0 */
/* The verdicts a scheduler acts on, as invariants over the fixtures rather than case by case:
 * a node healthy as it was built never FAILs, and a node with no GPU to test never passes,
 * whatever checks the caller selects (docs/checks.md, "Verdicts a scheduler can trust"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* Every row of a verdict in the report, for the failure message. */
static int rows_with(const gv_report *r, int verdict, char *out, size_t cap)
{
    int n = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        gv_report_result(r, i, &c);
        if (c.verdict != verdict)
            continue;
        n++;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "\n  %s %s: %s", c.id, c.subject, c.message);
    }
    return n;
}

/* The checks that read the node (files, NVML, the fake CUDA's facts, hwloc replaying the
 * sysroot): where the by-design rules live. The active tests have their own fault cases. */
static gv_report *run_static(const char *sysroot, const char *scenario, const gv_policy *policy)
{
    char root[4096], cpus[4200];
    snprintf(root, sizeof root, "%s/%s", fixture("sysroots"), sysroot);
    snprintf(cpus, sizeof cpus, "%s/sys/devices/system/cpu", root);
    if (access(cpus, F_OK) == 0) /* hwloc can replay it; else the topo rows say they cannot */
        setenv("HWLOC_FSROOT", root, 1);
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "system,driver,gpu,topo,rdma,gpudirect";
    o.policy = policy;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    unsetenv("HWLOC_FSROOT");
    return r;
}

static void healthy_designs_never_fail(void **state)
{
    (void)state;
    static const struct {
        const char *sysroot, *scenario, *design;
    } nodes[] = {
        {"h100-open", "h100x8", "8x H100 SXM on NVSwitches"},
        {"h100-open", "h100x8-pcie-no-bridge", "PCIe cards without NVLink bridges"},
        {"h100-open", "h100x8-nvl-pairs", "NVLink-bridged pairs (H100 NVL)"},
        {"h100-open", "h100x8-mig", "MIG enabled on a GPU, pending on another"},
        {"h100-switch-pair", "h100x8", "two GPUs behind one PCIe switch uplink"},
        {"h100-roce", "h100x8-rdma", "a RoCE rail beside each GPU"},
        {"h100-ib", "h100x8-rdma", "an InfiniBand rail beside each GPU"},
        {"h100-roce-storage", "h100x8-rdma-storage", "a storage NIC's second port uncabled"},
        {"h100-pcie-nic", "h100x8-pcie-nic", "one dual-port NIC off the CPU, one port cabled"},
        {"h100-xid", "h100x8", "faults logged, each GPU reset since (driver: no action)"},
        {"h100-aer", "h100x8", "PCIe errors logged, a fatal one recovered (driver: no action)"},
        {"h100-open", "h100x8-fabric-booting", "checked at boot, the fabric manager finishing"},
        {"h100-container", "h100x8-given-2", "a container given two of the eight GPUs"},
        {"azure-nc-h100", "azure-nc-h100", "an Azure NC VM (Accelerated Networking VF)"},
        {"azure-nd-h100", "azure-nc-h100", "an Azure ND VM (InfiniBand VF, the frontend VF)"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        gv_report *r = run_static(nodes[i].sysroot, nodes[i].scenario, NULL);
        char rows[8192];
        int fails = rows_with(r, GV_FAIL, rows, sizeof rows);
        if (fails) {
            print_error("%s (%s/%s) FAILs:%s\n", nodes[i].design, nodes[i].sysroot,
                        nodes[i].scenario, rows);
            bad++;
        }
        if (rows_with(r, GV_ERROR, rows, sizeof rows)) {
            print_error("%s (%s/%s) has ERRORs:%s\n", nodes[i].design, nodes[i].sysroot,
                        nodes[i].scenario, rows);
            bad++;
        }
        gv_report_free(r);
    }
    assert_int_equal(bad, 0);
}

/* Each catalog check selected alone. */
static int verdict_alone(const char *sysroot, const char *scenario, const char *id,
                         const gv_policy *policy)
{
    gv_ctx *ctx = scenario_ctx(sysroot, scenario);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = id;
    o.policy = policy;
    o.gemm_size = 32; /* the fakes compute every GEMM on the host */
    o.copy_bytes = 1 << 20;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    int v = gv_report_verdict(r);
    gv_report_free(r);
    return v;
}

static void no_gpu_to_test_never_passes(void **state)
{
    (void)state;
    gv_policy cpu_node = GV_POLICY_INIT;
    cpu_node.gpu_count = 0;
    int bad = 0;
    for (uint32_t i = 0; i < gv_catalog_count(); i++) {
        const char *id = gv_catalog_id(i);
        /* No GPU on the node: a FAIL, whatever was selected; a CPU node on purpose passes. */
        int v = verdict_alone("no-nvidia", NULL, id, NULL);
        if (v != GV_FAIL) {
            print_error("--checks %s on a node without GPUs: %s\n", id, gv_verdict_name(v));
            bad++;
        }
        v = verdict_alone("no-nvidia", NULL, id, &cpu_node);
        if (v == GV_FAIL || v == GV_ERROR) {
            print_error("--checks %s on a CPU node (gpu_count = 0): %s\n", id, gv_verdict_name(v));
            bad++;
        }
        /* GPUs on the node, none given to this process: nothing was tested, an ERROR. */
        v = verdict_alone("h100-container-none", "h100x8-given-none", id, NULL);
        if (v != GV_ERROR && v != GV_FAIL) {
            print_error("--checks %s given none of the node's GPUs: %s\n", id, gv_verdict_name(v));
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_designs_never_fail),
        cmocka_unit_test(no_gpu_to_test_never_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
