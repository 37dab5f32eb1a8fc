/* SPDX-License-Identifier: Apache-2.0 */
/* What each run level selects and how long it may take (docs/checks.md, "Levels"). */
#ifndef GV_RUN_LEVELS_H
#define GV_RUN_LEVELS_H

#include <stdint.h>

#define GV_STRESS_DEFAULT_S 120.0 /* stress.* when gv_run_opts.duration_s is 0 */

typedef struct gv_level_def {
    const char *name;
    double budget_s; /* default wall-clock budget */
    int runs_from;   /* the checks it runs when the caller names none: those whose catalog
                      * level (checks.def) is at most this, enum gv_check_level */
    int benchmark;   /* GPU tests at benchmark length (extended) rather than short */
} gv_level_def;

/* NULL for a value outside enum gv_level. */
const gv_level_def *gv_level_def_of(int32_t level);

#endif
