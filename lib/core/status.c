/* SPDX-License-Identifier: Apache-2.0 */
/* Status texts, versions and memory release: the context-free part of the API. */
#include <stdlib.h>

#include "gpuverify/gv_common.h"
#include "gpuverify/gv_report.h"

const char *gv_strerror(gv_status status)
{
    /* No default: -Wswitch-enum flags a code added to the enum but not here. */
    switch ((enum gv_status_code)status) {
    case GV_OK:
        return "success";
    case GV_ERR_INVALID_ARG:
        return "invalid argument";
    case GV_ERR_VERSION:
        return "struct_size older than the first released layout";
    case GV_ERR_NO_MEMORY:
        return "out of memory";
    case GV_ERR_NOT_FOUND:
        return "not found";
    case GV_ERR_IO:
        return "input/output error";
    case GV_ERR_PARSE:
        return "malformed input";
    case GV_ERR_LIBRARY:
        return "library absent or unusable";
    case GV_ERR_DRIVER:
        return "driver call failed";
    case GV_ERR_TIMEOUT:
        return "deadline exceeded";
    case GV_ERR_UNSUPPORTED:
        return "not supported";
    case GV_ERR_INTERNAL:
        return "internal error";
    case GV_ERR_BUSY:
        return "another gpuverify is testing the GPU";
    }
    return "unknown status";
}

const char *gv_verdict_name(int32_t verdict)
{
    switch ((enum gv_verdict)verdict) {
    case GV_PASS:
        return "PASS";
    case GV_WARN:
        return "WARN";
    case GV_FAIL:
        return "FAIL";
    case GV_SKIP:
        return "SKIP";
    case GV_ERROR:
        return "ERROR";
    }
    return "UNKNOWN";
}

const char *gv_action_name(int32_t action)
{
    switch ((enum gv_action)action) {
    case GV_ACTION_NONE:
        return "none";
    case GV_ACTION_RERUN:
        return "rerun";
    case GV_ACTION_WAIT:
        return "wait";
    case GV_ACTION_FIX_CONFIG:
        return "fix_config";
    case GV_ACTION_RESET_GPU:
        return "reset_gpu";
    case GV_ACTION_REBOOT_NODE:
        return "reboot_node";
    case GV_ACTION_HW_INSPECT:
        return "hw_inspect";
    }
    return "unknown";
}

#define GV_STR2(x) #x
#define GV_STR(x) GV_STR2(x)

uint32_t gv_version_number(void)
{
    return GV_VERSION_NUMBER;
}

const char *gv_version_string(void)
{
    return GV_STR(GV_VERSION_MAJOR) "." GV_STR(GV_VERSION_MINOR) "." GV_STR(GV_VERSION_PATCH);
}

void gv_free(void *ptr)
{
    free(ptr);
}
