/* SPDX-License-Identifier: Apache-2.0 */
/* The run-time loader: search order, what was tried, broken files, the vtable cache, and the
 * fakes exporting every entry of the symbol lists. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_backend.h"
#include "backends/nvml_backend.h"
#include "core/context.h"
#include "helpers.h"

static gv_ctx *ctx_with(const char *dir, const char *nvml_path)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.library_dir = dir;
    o.nvml_library = nvml_path;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    return ctx;
}

static void fake_directory_loads_with_file_and_version(void **state)
{
    (void)state;
    use_scenario("h100x8");
    gv_ctx *ctx = ctx_with(fakelib(), NULL);
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, GV_LIB_CUDA, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_LOADED);
    assert_string_equal(li.name, "libcuda");
    assert_non_null(strstr(li.path, "/libcuda.so.580.95.05")); /* the real file behind .so.1 */
    assert_string_equal(li.version, "580.95.05");
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_LOADED);
    assert_string_equal(li.version, "580.95.05");
    /* Two contexts share one resolved vtable: loaded once per process and file. */
    gv_ctx *other = ctx_with(fakelib(), NULL);
    assert_non_null(gv_cuda(ctx));
    assert_ptr_equal(gv_cuda(ctx), gv_cuda(other));
    gv_ctx_destroy(other);
    gv_ctx_destroy(ctx);
}

static void empty_directory_is_absent_with_names_tried(void **state)
{
    (void)state;
    gv_ctx *ctx = ctx_with(emptylib(), NULL);
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_ABSENT);
    char want[4096];
    snprintf(want, sizeof want, "%s/libnvidia-ml.so.1; %s/libnvidia-ml.so", emptylib(), emptylib());
    assert_string_equal(li.tried, want);
    assert_string_equal(li.path, "");
    /* Toolkit sonames follow the driver's CUDA major: unknown here, so 13 then 12. */
    assert_int_equal(gv_library_status(ctx, GV_LIB_CUBLASLT, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_ABSENT);
    assert_non_null(strstr(li.tried, "libcublasLt.so.13; "));
    assert_non_null(strstr(li.tried, "libcublasLt.so.12"));
    assert_int_equal(gv_library_status(ctx, GV_LIB_IBVERBS, &li), GV_OK);
    assert_non_null(strstr(li.tried, "libibverbs.so.1"));
    gv_ctx_destroy(ctx);
}

static void cuda_major_orders_toolkit_sonames(void **state)
{
    (void)state;
    use_scenario("t4"); /* CUDA 12.2 driver */
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.cuda_library = NULL;
    o.library_dir = fakelib();
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, GV_LIB_CUBLASLT, &li), GV_OK);
    assert_non_null(strstr(li.tried, "libcublasLt.so.12; "));
    assert_non_null(strstr(li.tried, "libcublasLt.so.11"));
    gv_ctx_destroy(ctx);
}

static void a_file_that_is_not_a_library_is_broken(void **state)
{
    (void)state;
    char *root = temp_root();
    put_file(root, "/libnvidia-ml.so.1", "this is not an ELF file\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", root);
    gv_ctx *ctx = ctx_with(NULL, path);
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_BROKEN);
    assert_string_equal(li.tried, path);
    assert_true(strlen(li.detail) > 0);
    gv_ctx_destroy(ctx);
    remove_tree(root);
    free(root);

    /* A real library without NVML's entry points: loaded, then found unusable. */
    snprintf(path, sizeof path, "%s/libcuda.so.1", fakelib());
    ctx = ctx_with(NULL, path);
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_BROKEN);
    assert_non_null(strstr(li.detail, "nvmlInit_v2"));
    gv_ctx_destroy(ctx);

    ctx = ctx_with(NULL, "/nonexistent/libnvidia-ml.so.1");
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_ABSENT);
    gv_ctx_destroy(ctx);
}

static void environment_override_and_offline_sysroot(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", fakelib());
    setenv("GPUVERIFY_NVML_LIBRARY", path, 1);
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(NULL, &ctx), GV_OK);
    unsetenv("GPUVERIFY_NVML_LIBRARY");
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_LOADED);
    assert_string_equal(li.tried, path);
    gv_ctx_destroy(ctx);

    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    char root[4096];
    snprintf(root, sizeof root, "%s", fixture("sysroots/no-nvidia"));
    o.sysroot = root;
    assert_int_equal(gv_ctx_create(&o, &ctx), GV_OK);
    assert_int_equal(gv_library_status(ctx, GV_LIB_CUDA, &li), GV_OK);
    assert_int_equal(li.state, GV_LIBSTATE_NOT_QUERIED);
    assert_string_equal(li.tried, "");
    gv_ctx_destroy(ctx);
}

static void fakes_export_every_listed_entry(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", fakelib());
    void *nvml = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(nvml);
#define GV_NVML_FN(field, newest, fallback, required, params) assert_non_null(dlsym(nvml, #newest));
#include "backends/nvml_api.def"
#undef GV_NVML_FN
    snprintf(path, sizeof path, "%s/libcuda.so.1", fakelib());
    void *cuda = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(cuda);
    gvcu_get_proc_address_v2_fn get =
        (gvcu_get_proc_address_v2_fn)dlsym(cuda, "cuGetProcAddress_v2");
    assert_non_null(get);
    void *fn;
    gvcu_proc_query q;
#define GV_CUDA_FN(name, abi_version, required, params)                                            \
    assert_int_equal(get(#name, &fn, abi_version, 0, &q), GVCU_SUCCESS);                           \
    assert_int_equal(q, GVCU_GET_PROC_ADDRESS_SUCCESS);
#include "backends/cuda_api.def"
#undef GV_CUDA_FN
    /* Asking for an ABI older than the entry's is refused, as by the real driver. */
    assert_int_not_equal(get("cuDeviceGetUuid", &fn, 2000, 0, &q), GVCU_SUCCESS);
    assert_int_equal(q, GVCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}

/* Contexts are independent: several threads run the suite at once over the same libraries. */
static void *run_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < 25; i++) {
        gv_ctx *ctx = ctx_with(fakelib(), NULL);
        gv_report *r = NULL;
        gv_run_opts o = GV_RUN_OPTS_INIT;
        o.checks = GV_TEST_PASSIVE_CHECKS;
        if (gv_run(ctx, &o, &r) != GV_OK || gv_report_gpu_count(r) != 8)
            return (void *)1;
        gv_report_free(r);
        gv_ctx_destroy(ctx);
    }
    return NULL;
}

static void contexts_on_several_threads(void **state)
{
    (void)state;
    use_scenario("h100x8");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, run_many, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *rc = (void *)1;
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fake_directory_loads_with_file_and_version),
        cmocka_unit_test(empty_directory_is_absent_with_names_tried),
        cmocka_unit_test(cuda_major_orders_toolkit_sonames),
        cmocka_unit_test(a_file_that_is_not_a_library_is_broken),
        cmocka_unit_test(environment_override_and_offline_sysroot),
        cmocka_unit_test(fakes_export_every_listed_entry),
        cmocka_unit_test(contexts_on_several_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
