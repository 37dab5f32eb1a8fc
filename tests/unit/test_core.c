/* SPDX-License-Identifier: Apache-2.0 */
/* Status texts, versions and contexts: every bad input refused cleanly. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "helpers.h"

static void every_status_has_text(void **state)
{
    (void)state;
    for (int s = GV_ERR_BUSY; s <= GV_OK; s++) {
        assert_non_null(gv_strerror(s));
        assert_string_not_equal(gv_strerror(s), "unknown status");
    }
    assert_string_equal(gv_strerror(-999), "unknown status");
    assert_string_equal(gv_strerror(7), "unknown status");
    assert_string_equal(gv_verdict_name(GV_FAIL), "FAIL");
    assert_string_equal(gv_verdict_name(GV_SKIP), "SKIP");
    assert_string_equal(gv_verdict_name(42), "UNKNOWN");
}

static void versions_agree(void **state)
{
    (void)state;
    assert_int_equal(gv_version_number(), GV_VERSION_NUMBER);
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", GV_VERSION_MAJOR, GV_VERSION_MINOR, GV_VERSION_PATCH);
    assert_string_equal(gv_version_string(), text);
}

static void default_context(void **state)
{
    (void)state;
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(NULL, &ctx), GV_OK);
    assert_non_null(ctx);
    assert_string_equal(gv_ctx_last_error(ctx), "");
    gv_ctx_destroy(ctx);
    gv_ctx_destroy(NULL); /* NULL-safe */
    assert_string_equal(gv_ctx_last_error(NULL), "no context (NULL)");
    assert_int_equal(gv_ctx_create(NULL, NULL), GV_ERR_INVALID_ARG);
    assert_string_equal(gv_ctx_last_error(NULL), "gv_ctx_create: out is NULL");
    /* A success forgets the failure before it. */
    assert_int_equal(gv_ctx_create(NULL, &ctx), GV_OK);
    assert_string_equal(gv_ctx_last_error(NULL), "no context (NULL)");
    gv_ctx_destroy(ctx);
}

static int logged;
static char last_log[1024];
static void capture(void *user, int32_t level, const char *message)
{
    (void)user;
    (void)level;
    logged++;
    snprintf(last_log, sizeof last_log, "%s", message);
}

/* Creating with o must fail with want, leave *out NULL, and say why through the log. */
static void refused(gv_ctx_opts o, gv_status want, const char *why)
{
    gv_ctx *ctx = (gv_ctx *)&o; /* poisoned: must come back NULL */
    o.log_fn = capture;
    logged = 0;
    assert_int_equal(gv_ctx_create(&o, &ctx), want);
    assert_null(ctx);
    if (why) {
        assert_int_equal(logged, 1);
        assert_non_null(strstr(last_log, why));
    }
    /* Without a context the reason is still there for the caller. */
    assert_non_null(strstr(gv_ctx_last_error(NULL), why ? why : "struct_size"));
}

static void bad_options_are_refused(void **state)
{
    (void)state;
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    o.struct_size = 8;
    refused(o, GV_ERR_VERSION, NULL);
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.struct_size = 0xffffffffu;
    refused(o, GV_ERR_INVALID_ARG, NULL);
    /* Ending inside state_path: that pointer copied in halves would be followed (SIGSEGV). */
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.struct_size = (uint32_t)(offsetof(gv_ctx_opts, state_path) + 4);
    o.state_path = "/tmp/gpuverify-test-never-made.db";
    refused(o, GV_ERR_INVALID_ARG, NULL);
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.flags = 4;
    refused(o, GV_ERR_INVALID_ARG, "flags");
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.log_level = 9;
    refused(o, GV_ERR_INVALID_ARG, "log_level 9");
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.live_libraries = 5;
    refused(o, GV_ERR_INVALID_ARG, "live_libraries");
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.deadline_s = -1;
    refused(o, GV_ERR_INVALID_ARG, "deadline_s");
    o.deadline_s = NAN;
    refused(o, GV_ERR_INVALID_ARG, "deadline_s");
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.sysroot = "relative/dir";
    refused(o, GV_ERR_INVALID_ARG, "not an absolute path");
    o.sysroot = "/nonexistent/gpuverify-sysroot";
    refused(o, GV_ERR_IO, "/nonexistent/gpuverify-sysroot");
    o.sysroot = "/etc/hostname";
    refused(o, GV_ERR_INVALID_ARG, "not a directory");
    char longpath[5000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = '\0';
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.library_dir = longpath;
    refused(o, GV_ERR_INVALID_ARG, "longer than");
    /* A node's name is a metric label and a history key: printable, no spaces, 63 bytes. */
    o = (gv_ctx_opts)GV_CTX_OPTS_INIT;
    o.node_name = "node a7";
    refused(o, GV_ERR_INVALID_ARG, "node_name: byte 0x20 at 4");
    o.node_name = "node\x1b[2Ja7";
    refused(o, GV_ERR_INVALID_ARG, "node_name: byte 0x1b");
    char long_name[65];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[64] = '\0';
    o.node_name = long_name;
    refused(o, GV_ERR_INVALID_ARG, "node_name is longer than 63 bytes");
}

static void api_calls_refuse_null(void **state)
{
    (void)state;
    gv_report *r = (gv_report *)1;
    assert_int_equal(gv_run(NULL, NULL, &r), GV_ERR_INVALID_ARG);
    gv_ctx *ctx = NULL;
    assert_int_equal(gv_ctx_create(NULL, &ctx), GV_OK);
    assert_int_equal(gv_run(ctx, NULL, NULL), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "out is NULL"));
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.struct_size = 4;
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_VERSION);
    ro = (gv_run_opts)GV_RUN_OPTS_INIT;
    ro.flags = 1;
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_INVALID_ARG);
    /* A selection that names nothing is refused; "" (like NULL) is every check. */
    ro = (gv_run_opts)GV_RUN_OPTS_INIT;
    ro.checks = ",";
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "name no check"));
    ro.checks = "^,driver";
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "leaves out nothing"));
    ro.checks = NULL;
    ro.gpus = "0,0";
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "lists GPU 0 twice"));
    ro.gpus = NULL;
    ro.checks = "rdma.modules"; /* no check that reads it: refused all the same */
    ro.topology_xml = "/nonexistent/topology.xml";
    assert_int_equal(gv_run(ctx, &ro, &r), GV_ERR_IO);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "/nonexistent/topology.xml"));
    gv_library_info li = GV_LIBRARY_INFO_INIT;
    assert_int_equal(gv_library_status(ctx, 99, &li), GV_ERR_INVALID_ARG);
    assert_non_null(strstr(gv_ctx_last_error(ctx), "99"));
    assert_int_equal(gv_library_status(ctx, -1, &li), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_library_status(ctx, GV_LIB_NVML, NULL), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_library_status(NULL, GV_LIB_NVML, &li), GV_ERR_INVALID_ARG);
    gv_ctx_destroy(ctx);
    assert_int_equal(gv_report_count(NULL), 0);
    assert_int_equal(gv_report_gpu_count(NULL), 0);
    assert_int_equal(gv_report_verdict(NULL), GV_PASS);
    gv_check_result c = GV_CHECK_RESULT_INIT;
    assert_int_equal(gv_report_result(NULL, 0, &c), GV_ERR_INVALID_ARG);
    gv_report_free(NULL);
    gv_free(NULL);
    char *json = (char *)1;
    assert_int_equal(gv_report_json(NULL, 0, &json), GV_ERR_INVALID_ARG);
    assert_null(json);
}

/* The _init functions give a binding the macros' defaults: the whole struct at our size, an
 * older layout's prefix with nothing written past it, and a status for what no layout is. */
static void opts_init_fills_the_defaults(void **state)
{
    (void)state;
    const gv_ctx_opts ctx_macro = GV_CTX_OPTS_INIT;
    gv_ctx_opts c;
    memset(&c, 0xab, sizeof c);
    assert_int_equal(gv_ctx_opts_init(&c, sizeof c), GV_OK);
    assert_memory_equal(&c, &ctx_macro, sizeof c);

    const gv_run_opts run_macro = GV_RUN_OPTS_INIT;
    gv_run_opts r;
    memset(&r, 0xab, sizeof r);
    assert_int_equal(gv_run_opts_init(&r, sizeof r), GV_OK);
    assert_int_equal(r.struct_size, sizeof r);
    assert_int_equal(r.level, run_macro.level);
    assert_int_equal(r.isolation, run_macro.isolation);
    assert_null(r.checks);
    assert_true(r.duration_s == 0.0);

    /* An older layout, without worker_path: that much is written, the rest left alone. */
    size_t older = offsetof(gv_ctx_opts, worker_path);
    memset(&c, 0xab, sizeof c);
    assert_int_equal(gv_ctx_opts_init(&c, older), GV_OK);
    assert_int_equal(c.struct_size, older);
    assert_int_equal(c.log_level, GV_LOG_WARN);
    const unsigned char *tail = (const unsigned char *)&c + older;
    for (size_t i = older; i < sizeof c; i++, tail++)
        assert_int_equal(*tail, 0xab);

    assert_int_equal(gv_ctx_opts_init(NULL, sizeof c), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_run_opts_init(NULL, sizeof r), GV_ERR_INVALID_ARG);
    assert_int_equal(gv_ctx_opts_init(&c, 4), GV_ERR_VERSION);
    assert_int_equal(gv_run_opts_init(&r, 8), GV_ERR_VERSION);
    assert_int_equal(gv_run_opts_init(&r, (size_t)1 << 20), GV_ERR_INVALID_ARG);
    /* A size that ends inside a pointer is no layout: filled, the pointer would be half
     * defaults, half the caller's. */
    assert_int_equal(gv_ctx_opts_init(&c, offsetof(gv_ctx_opts, state_path) + 4),
                     GV_ERR_INVALID_ARG);
    assert_int_equal(gv_run_opts_init(&r, offsetof(gv_run_opts, policy) + 4), GV_ERR_INVALID_ARG);
}

/* A comma-separated list's entries, empty ones not counted (CUDA_VISIBLE_DEVICES="" lists
 * none). */
static void list_entries_are_counted(void **state)
{
    (void)state;
    assert_int_equal(gv_list_count(""), 0);
    assert_int_equal(gv_list_count("3"), 1);
    assert_int_equal(gv_list_count("0,2,3"), 3);
    assert_int_equal(gv_list_count("0,,3,"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_has_text),    cmocka_unit_test(versions_agree),
        cmocka_unit_test(default_context),          cmocka_unit_test(bad_options_are_refused),
        cmocka_unit_test(api_calls_refuse_null),    cmocka_unit_test(opts_init_fills_the_defaults),
        cmocka_unit_test(list_entries_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
