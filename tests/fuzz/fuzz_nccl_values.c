/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: NCCL's setting values as a user writes them: NCCL_IB_HCA / NCCL_SOCKET_IFNAME
 * lists ("^=mlx5_0:1,mlx5_1") matched against device names and ports, and
 * NCCL_NET_GDR_LEVEL ("PHB", "3"). One value per line: "list<TAB>name<TAB>port". */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "rdma/rdma.h"
#include "topo/paths.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *name = strchr(line, '\t');
        unsigned port = 0;
        if (name) {
            *name++ = '\0';
            char *p = strchr(name, '\t');
            if (p) {
                *p++ = '\0';
                port = (unsigned)strtoul(p, NULL, 10);
            }
        }
        (void)gv_nccl_list_matches(line, name ? name : "mlx5_0", port);
        int32_t level;
        (void)gv_path_parse_gdr_level(line, &level);
    }
    free(text);
    return 0;
}
