/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libibverbs.so.1 from lib/backends/ibverbs_api.def: the scenario's ib_device lines are
 * the devices it lists, with their port MTUs and whether ibv_reg_dmabuf_mr is supported, and
 * its fault line can stop ibv_open_device (hang, crash, error=errno). Test
 * code only: never shipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ibverbs_abi.h"
#include "scenario.h"

#define FAKE_API __attribute__((visibility("default")))

struct gv_ibv_device {
    fake_ib_device dev;
};
struct gv_ibv_context {
    fake_ib_device dev;
};
struct gv_ibv_pd {
    fake_ib_device dev;
};

static fake_scenario s; /* the scenario ibv_get_device_list read */

FAKE_API gv_ibv_device **ibv_get_device_list(int *num_devices)
{
    if (fake_scenario_load(&s) != 0) {
        errno = ENOSYS;
        return NULL;
    }
    gv_ibv_device **list = calloc((size_t)s.ib_count + 1, sizeof *list);
    for (int i = 0; list && i < s.ib_count; i++) {
        list[i] = malloc(sizeof *list[i]);
        if (list[i])
            list[i]->dev = s.ib[i];
    }
    if (num_devices)
        *num_devices = list ? s.ib_count : 0;
    return list;
}

FAKE_API void ibv_free_device_list(gv_ibv_device **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

FAKE_API const char *ibv_get_device_name(gv_ibv_device *device)
{
    return device ? device->dev.name : NULL;
}

FAKE_API gv_ibv_context *ibv_open_device(gv_ibv_device *device)
{
    int code = fake_fault_at(&s, "ibv_open_device", -1); /* a firmware that stopped answering */
    if (code) {
        errno = code;
        return NULL;
    }
    gv_ibv_context *c = malloc(sizeof *c);
    if (c)
        c->dev = device->dev;
    return c;
}

FAKE_API int ibv_close_device(gv_ibv_context *context)
{
    free(context);
    return 0;
}

FAKE_API int ibv_query_port(gv_ibv_context *context, uint8_t port, void *attr)
{
    if (port < 1 || port > context->dev.ports)
        return EINVAL;
    gv_ibv_port_attr a = {4, context->dev.max_mtu, context->dev.active_mtu, 256};
    memcpy(attr, &a, sizeof a);
    return 0;
}

FAKE_API gv_ibv_pd *ibv_alloc_pd(gv_ibv_context *context)
{
    gv_ibv_pd *pd = malloc(sizeof *pd);
    if (pd)
        pd->dev = context->dev;
    return pd;
}

FAKE_API int ibv_dealloc_pd(gv_ibv_pd *pd)
{
    free(pd);
    return 0;
}

FAKE_API gv_ibv_mr *ibv_reg_dmabuf_mr(gv_ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                      int fd, int access)
{
    (void)offset, (void)length, (void)iova, (void)access;
    errno = pd->dev.dmabuf ? (fd < 0 ? EBADF : EINVAL) : EOPNOTSUPP;
    return NULL;
}

FAKE_API int ibv_dereg_mr(gv_ibv_mr *mr)
{
    (void)mr;
    return 0;
}
