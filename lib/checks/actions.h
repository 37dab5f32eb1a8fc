/* SPDX-License-Identifier: Apache-2.0 */
/* What a scheduler is to do about a row (enum gv_action). Each rule names the action for what it
 * found (gv_result_action); here are the mappings rules share, and the safety net every row
 * passes as it becomes final: PASS and SKIP say none, and a WARN, FAIL or ERROR row whose rule
 * named none gets a documented default, so that no such row ever says none (docs/checks.md,
 * "Actions"). */
#ifndef GV_CHECKS_ACTIONS_H
#define GV_CHECKS_ACTIONS_H

#include <stdint.h>

#include "gpuverify/gv_report.h"

/* The action NVML's GPU recovery action (nvmlDeviceGpuRecoveryAction_t, 0 none) asks for:
 * a GPU reset, a reboot, or, for an action this library does not know, hardware inspection. */
int32_t gv_action_of_recovery(int recovery_action);

/* The default action of a WARN, FAIL or ERROR row of check `id` whose rule named none: another
 * gpuverify's hold is a wait, an ERROR ("could not judge") a rerun, a WARN or FAIL its family's
 * (fix_config for settings and software, hw_inspect for the hardware's figures and counters,
 * reset_gpu for memory left behind and recovery); GV_ACTION_NONE for PASS and SKIP. */
int32_t gv_action_default(const char *id, int32_t verdict, int32_t held_by_other);

/* The row as it becomes final (gv_run's finalize hook, in the worker and in the caller): a
 * PASS or SKIP row's action is none whatever was set before (the busy rule may have made a
 * FAIL a SKIP); a WARN, FAIL or ERROR row without an action gets gv_action_default's, unless
 * $GPUVERIFY_STRICT_ACTIONS is set to something other than "0" (tests: a rule that forgot its
 * action then shows as none). */
void gv_action_settle(gv_check_result *row);

#endif
