/* SPDX-License-Identifier: Apache-2.0 */
/* What a scheduler is to do about a row (docs/checks.md, "Actions"): the action each rule sets
 * for what it found, on the fixtures; NVML's recovery actions mapped; and the default a WARN,
 * FAIL or ERROR row gets when its rule named none, a WARN's or a FAIL's from its check's catalog
 * line (a line without them does not compile: catalog.c). Every scenario is swept for rows
 * without an action by tests/schema/validate_outputs.py and the fault cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nvml_backend.h"
#include "checks/actions.h"
#include "helpers.h"

/* The action of the row; fails the test when absent. */
static int32_t action_of(const gv_report *r, const char *id, const char *subject)
{
    return result_of(r, id, subject).action;
}

/* Every row names an action exactly when it is WARN, FAIL or ERROR; the node's is the
 * strongest of its rows'. */
static void every_row_says(const gv_report *r)
{
    int32_t strongest = GV_ACTION_NONE;
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        assert_int_equal(gv_report_result(r, i, &c), GV_OK);
        int judged = c.verdict == GV_WARN || c.verdict == GV_FAIL || c.verdict == GV_ERROR;
        if (judged == (c.action == GV_ACTION_NONE))
            fail_msg("%s %s: %s with the action %s", c.id, c.subject, gv_verdict_name(c.verdict),
                     gv_action_name(c.action));
        if (c.action > strongest)
            strongest = c.action;
    }
    assert_int_equal(gv_report_action(r), strongest);
}

static void memory_findings(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "health-memory");
    every_row_says(r);
    /* NVIDIA's memory error management: a remap or repair pending is applied by a reset, and
     * so are uncorrectable errors since the last one; a remap that failed, unrepairable
     * memory and the SRAM threshold are its replacement criteria. */
    assert_int_equal(action_of(r, "gpu.row_remap", "gpu3"), GV_ACTION_RESET_GPU);
    assert_int_equal(action_of(r, "gpu.row_remap", "gpu4"), GV_ACTION_HW_INSPECT);
    assert_int_equal(action_of(r, "gpu.ecc_errors", "gpu0"), GV_ACTION_RESET_GPU);
    assert_int_equal(action_of(r, "gpu.ecc_errors", "gpu1"), GV_ACTION_HW_INSPECT);
    assert_int_equal(action_of(r, "gpu.memory_repair", "gpu6"), GV_ACTION_RESET_GPU);
    assert_int_equal(action_of(r, "gpu.memory_repair", "gpu7"), GV_ACTION_HW_INSPECT);
    assert_int_equal(action_of(r, "gpu.row_remap", "gpu0"), GV_ACTION_NONE); /* PASS */
    assert_int_equal(gv_report_action(r), GV_ACTION_HW_INSPECT);
    gv_report_free(r);
}

static void gpus_lost_and_recovery_actions(void **state)
{
    (void)state;
    gv_report *r = run_scenario("h100-open", "h100x8-gpu-lost");
    every_row_says(r);
    assert_int_equal(action_of(r, "driver.gpu_count", "node"), GV_ACTION_HW_INSPECT);
    assert_int_equal(action_of(r, "gpu.nvml", "gpu3"), GV_ACTION_HW_INSPECT);
    gv_report_free(r);
    /* The driver's recovery action, as gpu.recovery and gpu.xid read it. */
    r = run_scenario("h100-xid", "h100x8-xid");
    every_row_says(r);
    assert_int_equal(action_of(r, "gpu.recovery", "gpu3"), GV_ACTION_REBOOT_NODE);
    assert_int_equal(action_of(r, "gpu.recovery", "gpu4"), GV_ACTION_RESET_GPU);
    assert_int_equal(action_of(r, "gpu.xid", "gpu3"), GV_ACTION_REBOOT_NODE);
    assert_int_equal(action_of(r, "gpu.xid", "gpu4"), GV_ACTION_RESET_GPU);
    /* A fault the driver says needs nothing now: history, checked again by the next run. */
    assert_int_equal(verdict_of(r, "gpu.xid", "gpu6"), GV_WARN);
    assert_int_equal(action_of(r, "gpu.xid", "gpu6"), GV_ACTION_RERUN);
    assert_int_equal(gv_report_action(r), GV_ACTION_REBOOT_NODE);
    gv_report_free(r);
    r = run_scenario("h100-aer", "h100x8-aer-reboot");
    assert_int_equal(action_of(r, "gpu.recovery", "gpu0"), GV_ACTION_REBOOT_NODE);
    gv_report_free(r);
}

static void configuration_findings(void **state)
{
    (void)state;
    /* The library and the kernel module of different drivers. */
    gv_report *r = run_scenario("debian12-proprietary", "nvml-mismatch");
    every_row_says(r);
    assert_int_equal(action_of(r, "driver.nvml", "node"), GV_ACTION_FIX_CONFIG);
    gv_report_free(r);
    /* No NVIDIA library on a node with GPUs: an installation to complete, not a rerun. */
    r = run_scenario("h100-open", NULL);
    every_row_says(r);
    assert_int_equal(verdict_of(r, "driver.nvml", "node"), GV_FAIL);
    assert_int_equal(action_of(r, "driver.nvml", "node"), GV_ACTION_FIX_CONFIG);
    assert_int_equal(action_of(r, "driver.cuda", "node"), GV_ACTION_FIX_CONFIG);
    gv_report_free(r);
    /* A mode waiting for the GPU's reset. */
    r = run_scenario("h100-open", "fault-ecc-pending");
    assert_int_equal(action_of(r, "gpu.ecc", "gpu2"), GV_ACTION_RESET_GPU);
    gv_report_free(r);
    /* The fabric manager not running: a service of the node. */
    r = run_scenario("h100-open", "h100x8-fabric-down");
    every_row_says(r);
    assert_int_equal(action_of(r, "gpu.fabric", "gpu0"), GV_ACTION_FIX_CONFIG);
    assert_int_equal(action_of(r, "driver.cuda", "node"), GV_ACTION_FIX_CONFIG);
    gv_report_free(r);
    /* Healthy: nothing to do anywhere. */
    r = run_scenario("h100-open", "h100x8");
    every_row_says(r);
    assert_int_equal(gv_report_action(r), GV_ACTION_NONE);
    gv_report_free(r);
}

static void nvml_recovery_actions(void **state)
{
    (void)state;
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_NONE), GV_ACTION_NONE);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_GPU_RESET), GV_ACTION_RESET_GPU);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_NODE_REBOOT),
                     GV_ACTION_REBOOT_NODE);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_DRAIN_P2P), GV_ACTION_RESET_GPU);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_DRAIN_AND_RESET),
                     GV_ACTION_RESET_GPU);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN),
                     GV_ACTION_FIX_CONFIG);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_BUS_RESET), GV_ACTION_REBOOT_NODE);
    assert_int_equal(gv_action_of_recovery(GVNV_RECOVERY_ACTION_SYSTEM_REBOOT),
                     GV_ACTION_REBOOT_NODE);
    assert_int_equal(gv_action_of_recovery(99), GV_ACTION_HW_INSPECT); /* a newer driver's */
}

/* A row as it becomes final: PASS and SKIP say none; a WARN, FAIL or ERROR row its rule left
 * without an action gets the default (its catalog line's); one it set keeps it. */
static void the_safety_net(void **state)
{
    (void)state;
    gv_check_result row = GV_CHECK_RESULT_INIT;
    snprintf(row.id, sizeof row.id, "gpu.row_remap");
    row.verdict = GV_PASS;
    row.action = GV_ACTION_RESET_GPU; /* a FAIL the busy rule made a SKIP, say */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_NONE);
    row.verdict = GV_SKIP;
    row.action = GV_ACTION_WAIT;
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_NONE);
    row.verdict = GV_ERROR; /* could not judge */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_RERUN);
    row.action = GV_ACTION_NONE;
    row.held_by_other = 1; /* another gpuverify's hold */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_WAIT);
    row.held_by_other = 0;
    row.action = GV_ACTION_NONE;
    row.verdict = GV_FAIL; /* the family's default */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_HW_INSPECT);
    row.action = GV_ACTION_RESET_GPU; /* the rule's own stands */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_RESET_GPU);
    row.action = 77; /* no action: replaced */
    gv_action_settle(&row);
    assert_int_equal(row.action, GV_ACTION_HW_INSPECT);
    static const struct {
        const char *id;
        int32_t action;
    } families[] = {
        {"system.os", GV_ACTION_FIX_CONFIG},         {"driver.nvml", GV_ACTION_FIX_CONFIG},
        {"driver.gpu_count", GV_ACTION_HW_INSPECT},  {"gpu.ecc_errors", GV_ACTION_HW_INSPECT},
        {"gpu.memory_unowned", GV_ACTION_RESET_GPU}, {"gpu.recovery", GV_ACTION_RESET_GPU},
        {"gpu.fabric", GV_ACTION_FIX_CONFIG},        {"rdma.mtu", GV_ACTION_FIX_CONFIG},
        {"gpudirect.kernel", GV_ACTION_FIX_CONFIG},  {"nccl.version", GV_ACTION_FIX_CONFIG},
        {"nccl.allreduce", GV_ACTION_HW_INSPECT},    {"gemm.bf16", GV_ACTION_HW_INSPECT},
        {"mem.test", GV_ACTION_HW_INSPECT},          {"future.check", GV_ACTION_HW_INSPECT}};
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        assert_int_equal(gv_action_default(families[i].id, GV_WARN, 0), families[i].action);
        assert_int_equal(gv_action_default(families[i].id, GV_FAIL, 0), families[i].action);
        assert_int_equal(gv_action_default(families[i].id, GV_ERROR, 0), GV_ACTION_RERUN);
        assert_int_equal(gv_action_default(families[i].id, GV_PASS, 0), GV_ACTION_NONE);
    }
    /* Every line of the catalog names what its WARN and its FAIL rows ask for. */
    for (uint32_t i = 0; i < gv_catalog_count(); i++) {
        if (gv_action_default(gv_catalog_id(i), GV_WARN, 0) == GV_ACTION_NONE ||
            gv_action_default(gv_catalog_id(i), GV_FAIL, 0) == GV_ACTION_NONE)
            fail_msg("%s: a WARN or FAIL without a default action", gv_catalog_id(i));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvml_recovery_actions),  cmocka_unit_test(the_safety_net),
        cmocka_unit_test(memory_findings),        cmocka_unit_test(gpus_lost_and_recovery_actions),
        cmocka_unit_test(configuration_findings),
    };
    return run_shard("test_actions", tests, sizeof tests / sizeof *tests);
}
