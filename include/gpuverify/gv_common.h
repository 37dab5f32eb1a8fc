/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: export macro, versions, status codes, memory release.
 *
 * Every public symbol starts with gv_ / GV_. Status codes are append-only and keep their
 * numbers forever; see docs/ABI.md. */
#ifndef GPUVERIFY_GV_COMMON_H
#define GPUVERIFY_GV_COMMON_H

#include <stdint.h>

#if defined(GV_BUILDING_LIBRARY) && defined(__GNUC__)
#define GV_API __attribute__((visibility("default")))
#else
#define GV_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Compile-time version: what the caller was built against. gv_version_number() gives the
 * version of the library loaded at run time; the two differ after a library upgrade. */
#define GV_VERSION_MAJOR 1
#define GV_VERSION_MINOR 0
#define GV_VERSION_PATCH 0
#define GV_VERSION_NUMBER (GV_VERSION_MAJOR * 10000 + GV_VERSION_MINOR * 100 + GV_VERSION_PATCH)

/* Initializer for a versioned struct: struct_size set, everything else zero. In C++ a value
 * (every member zeroed, then the size), as braces naming the first member alone would be
 * "missing initializer" warnings under -Wextra. */
#ifdef __cplusplus
extern "C++" {
template <typename T> inline T gv_struct_init_(void)
{
    T value = T();
    value.struct_size = sizeof(T);
    return value;
}
}
#define GV_STRUCT_INIT(type) gv_struct_init_<type>()
#else
#define GV_STRUCT_INIT(type)                                                                       \
    {                                                                                              \
        .struct_size = sizeof(type)                                                                \
    }
#endif

/* Status of an API call. GV_OK means the call did its job, even when a verdict is FAIL.
 * Errors are negative; gv_ctx_last_error() holds the detail. */
typedef int32_t gv_status;

enum gv_status_code {
    GV_OK = 0,
    GV_ERR_INVALID_ARG = -1, /* NULL pointer, unknown enum value, absurd size */
    GV_ERR_VERSION = -2,     /* struct_size smaller than the first released layout */
    GV_ERR_NO_MEMORY = -3,
    GV_ERR_NOT_FOUND = -4, /* index out of range, no such object */
    GV_ERR_IO = -5,        /* a file could not be read */
    GV_ERR_PARSE = -6,     /* a file could be read but not understood */
    GV_ERR_LIBRARY = -7,   /* an NVIDIA library is absent or unusable */
    GV_ERR_DRIVER = -8,    /* an NVIDIA library call failed */
    GV_ERR_TIMEOUT = -9,   /* a deadline passed */
    GV_ERR_UNSUPPORTED = -10,
    GV_ERR_INTERNAL = -11,
    GV_ERR_BUSY = -12 /* another gpuverify held the GPU for the whole wait */
};

/* Static text for a status, never NULL (unknown values give "unknown status"). */
GV_API const char *gv_strerror(gv_status status);

/* Run-time version of the loaded library, same encoding as GV_VERSION_NUMBER. */
GV_API uint32_t gv_version_number(void);
/* Run-time version as text, "1.0.0". Static, never NULL. */
GV_API const char *gv_version_string(void);

/* Releases memory the library handed out (strings from gv_report_json). NULL-safe. */
GV_API void gv_free(void *ptr);

/* This library's sizeof of a public struct by its name ("gv_check_result"), for bindings that
 * mirror the structs; 0 for an unknown name. */
GV_API uint32_t gv_struct_size(const char *type_name);

#ifdef __cplusplus
}
#endif
#endif
