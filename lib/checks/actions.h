/* SPDX-License-Identifier: Apache-2.0 */
/* What a scheduler is to do about a row (enum gv_action). A check's catalog line names the
 * action of its WARN and of its FAIL rows (checks.def); a rule names another where what it found
 * asks for one (gv_result_action). Here are the mappings rules share, and what every row passes
 * as it becomes final: PASS and SKIP say none, and a WARN, FAIL or ERROR row whose rule named
 * none gets its default, so that no such row ever says none (docs/checks.md, "Actions"). */
#ifndef GV_CHECKS_ACTIONS_H
#define GV_CHECKS_ACTIONS_H

#include <stdint.h>

#include "gpuverify/gv_report.h"

/* The action NVML's GPU recovery action (nvmlDeviceGpuRecoveryAction_t, 0 none) asks for:
 * a GPU reset, a reboot, or, for an action this library does not know, hardware inspection. */
int32_t gv_action_of_recovery(int recovery_action);

/* The default action of a WARN, FAIL or ERROR row of check `id` whose rule named none: another
 * gpuverify's hold is a wait, an ERROR ("could not judge") a rerun, a WARN or FAIL the one its
 * catalog line names (checks.def's warn and fail columns); GV_ACTION_NONE for PASS and SKIP. */
int32_t gv_action_default(const char *id, int32_t verdict, int32_t held_by_other);

/* The row as it becomes final (gv_run's finalize hook, in the worker and in the caller): a
 * PASS or SKIP row's action is none whatever was set before (the busy rule may have made a
 * FAIL a SKIP); a WARN, FAIL or ERROR row without an action gets gv_action_default's. */
void gv_action_settle(gv_check_result *row);

#endif
