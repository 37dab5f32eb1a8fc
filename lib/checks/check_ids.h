/* SPDX-License-Identifier: Apache-2.0 */
/* Each check's ID as a constant made from checks.def: gv_id_<name> ("gpu.ecc" is
 * gv_id_gpu_ecc), so that a misspelt ID is a compile error, not a row no one asked for. */
#ifndef GV_CHECKS_CHECK_IDS_H
#define GV_CHECKS_CHECK_IDS_H

#define GV_PASSIVE(nm, i, ...) extern const char gv_id_##nm[];
#define GV_ACTIVE(nm, i, ...) extern const char gv_id_##nm[];
#define GV_HISTORY(nm, i, ...) extern const char gv_id_##nm[];
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY

#endif
