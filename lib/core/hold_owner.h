/* SPDX-License-Identifier: Apache-2.0 */
/* Whose holds on GPUs a spawned process works under. A context's run or call that holds a
 * GPU starts processes (gpuverify-worker, NCCL's sweep) that test that GPU under its hold; a
 * process started for another context of the same caller must wait for it like any other
 * gpuverify. The spawner names its context in the child's environment; the lock file's note
 * names the context that holds it; the child works under its parent's hold only when they
 * match (compute/gpu_lock.c). */
#ifndef GV_CORE_HOLD_OWNER_H
#define GV_CORE_HOLD_OWNER_H

#include <stddef.h>

#define GV_HOLD_OWNER_ENV "GPUVERIFY_HOLD_OWNER"

/* The owner (a context's address in its process) as text; "" for none. */
void gv_hold_owner_text(const void *owner, char *out, size_t cap);

#endif
