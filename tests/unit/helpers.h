/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the unit tests: where the fixtures and fakes are, contexts over them, and finding
 * results in a report. */
#ifndef GV_TESTS_HELPERS_H
#define GV_TESTS_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "gpuverify/gpuverify.h"

/* $GV_TEST_FIXTURES/<rel>, $GV_TEST_FAKELIB, $GV_TEST_EMPTYLIB (set by ctest). */
const char *fixture(const char *rel);
const char *fakelib(void);
const char *emptylib(void);

/* Points the fake libraries at scenarios/<scenario>.conf (NULL: none) for this process and the
 * workers it starts. */
void use_scenario(const char *scenario);
/* A GEMM small and quick enough for the fakes, which compute every GEMM on the host. */
gv_gemm_opts small_gemm(int dtype);

/* A context over sysroots/<sysroot> with the fake libraries (library_dir) answering from
 * scenarios/<scenario>.conf; scenario NULL = libraries from the empty directory. */
gv_ctx *scenario_ctx(const char *sysroot, const char *scenario);
/* A context on the fixture sysroot with the fake libraries (fakes = 1; their scenario is
 * whatever GV_FAKE_SCENARIO names) or with none (an empty library directory). */
gv_ctx *sysroot_ctx(const char *sysroot, int fakes);
/* A context over sysroots/h100-open, the fakes answering from scenarios/<scenario>.conf, the
 * build's worker at hand (calls and runs in it unless told otherwise); deadline_s 0: the
 * default. */
gv_ctx *worker_ctx(const char *scenario, double deadline_s);
/* Every check that judges facts only: the active ones (test_compute.c) need small sizes, the
 * topology ones a topology XML matching the sysroot (test_topology.c). */
#define GV_TEST_PASSIVE_CHECKS "^cuda,^mem,^gemm,^cudnn,^driver.compat,^topo,^rdma,^gpudirect,^nccl"
/* gv_run of the passive checks over that context; asserts GV_OK. */
gv_report *run_scenario(const char *sysroot, const char *scenario);
gv_report *run_scenario_policy(const char *sysroot, const char *scenario, const gv_policy *policy);

/* The result with this id and subject; fails the test when absent. */
gv_check_result result_of(const gv_report *r, const char *id, const char *subject);
int verdict_of(const gv_report *r, const char *id, const char *subject);
/* Number of results with the verdict. */
int count_verdict(const gv_report *r, int verdict);
gv_gpu gpu_of(const gv_report *r, uint32_t index);

/* Runs the tests whose index is I modulo N when GV_TEST_SHARD is "I/N" (I from 1), else all:
 * ctest runs a long suite as several tests side by side (gv_unit_test_sharded). */
int run_shard(const char *name, const struct CMUnitTest *tests, size_t count);

/* A temporary directory for malformed sysroots, and a file written under it. */
char *temp_root(void);
/* A copy of the healthy 8-GPU fixture (sysroots/h100-open) in a temp_root, to spoil. */
char *copy_of_h100(void);
void put_file(const char *root, const char *rel, const char *text);
void remove_tree(const char *root);

#endif
