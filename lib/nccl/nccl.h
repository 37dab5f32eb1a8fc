/* What the NCCL benchmark shares with the nccl.* checks and the compatibility row. */
#ifndef GV_NCCL_NCCL_H
#define GV_NCCL_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "gpuverify/gv_context.h"

/* nccl-tests' bus bandwidth factor for a collective over nranks (0 for one rank). */
double gv_nccl_bus_factor(int32_t collective, int nranks);

/* NCCL_VERSION_CODE as text: 22809 -> "2.28.9", 2708 (before 2.9) -> "2.7.8". */
void gv_nccl_version_text(int code, char *out, size_t cap);

/* The NCCL settings that choose algorithms, protocols and transports, as NCCL would see them
 * ("NCCL_ALGO=Ring (environment); NCCL_P2P_LEVEL=NVL (/etc/nccl.conf)"), or a line saying none
 * is set. */
void gv_nccl_settings_text(gv_ctx *ctx, char *out, size_t cap);

#endif
