/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: is this GPU node fit for work, and if not, what exactly is wrong?
 * Umbrella header: include this one. */
#ifndef GPUVERIFY_GPUVERIFY_H
#define GPUVERIFY_GPUVERIFY_H

#include "gv_common.h"
#include "gv_compute.h"
#include "gv_context.h"
#include "gv_driver.h"
#include "gv_history.h"
#include "gv_nccl.h"
#include "gv_policy.h"
#include "gv_rdma.h"
#include "gv_report.h"
#include "gv_topology.h"

#endif
