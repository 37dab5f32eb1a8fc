/* SPDX-License-Identifier: Apache-2.0 */
/* What the fake libcuda shares with the other fakes (cuBLASLt, cuDNN): its virtual GPU clock
 * and the scenario GPU of the current context. Test code only. */
#ifndef GV_FAKES_FAKE_CUDA_DEVICE_H
#define GV_FAKES_FAKE_CUDA_DEVICE_H

#include "backends/nvabi/cuda_abi.h"
#include "scenario.h"

/* Moves the GPU clock that events read by the time work would take on the scenario GPU. */
__attribute__((visibility("default"))) void fake_cuda_advance(double seconds);
/* The scenario GPU whose context is current; NULL when none. */
__attribute__((visibility("default"))) const fake_gpu *fake_cuda_current_gpu(void);

/* Holds (hold = 1) or releases a stream: events recorded on a held stream stay NOT_READY, as
 * behind a kernel that never ends. */
__attribute__((visibility("default"))) void fake_cuda_hold_stream(gvcu_stream stream, int hold);

/* The scenario's fault at a toolkit entry point (fake_fault_at) for the current GPU: the
 * cuBLASLt and cuDNN fakes ask through libcuda, which holds the scenario. */
__attribute__((visibility("default"))) int fake_cuda_fault(const char *point);

/* How many times GPU `index`'s primary context was made (retained with no reference held), and
 * the references held now: a test's view of which contexts a run kept. */
__attribute__((visibility("default"))) int fake_cuda_contexts_made(int index);
__attribute__((visibility("default"))) int fake_cuda_context_refs(int index);

/* ECC errors the memory test has caused so far on scenario GPU `index` (uncorrected = 1: those),
 * which the fake NVML adds to its volatile DRAM counters. */
__attribute__((visibility("default"))) long long fake_cuda_ecc_added(int index, int uncorrected);

#endif
