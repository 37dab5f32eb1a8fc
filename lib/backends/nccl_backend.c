/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "backends/nccl_backend.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/libraries.h"
#include "core/context.h"

static const gv_symbol nccl_symbols[] = {
#define GV_NCCL_FN(ret, name, required, params)                                                    \
    {#name, #name, 0, required, offsetof(struct gv_nccl_api, name)},
#include "backends/nccl_api.def"
#undef GV_NCCL_FN
};

const struct gv_nccl_api *gv_nccl(gv_ctx *ctx)
{
    if (!ctx->nccl)
        ctx->nccl = gv_library_vtable(ctx, GV_LIB_NCCL, nccl_symbols,
                                      sizeof nccl_symbols / sizeof *nccl_symbols,
                                      sizeof(struct gv_nccl_api), gv_resolve_dlsym);
    return ctx->nccl;
}

static int read_at(int fd, void *buf, size_t bytes, uint64_t offset)
{
    return pread(fd, buf, bytes, (off_t)offset) == (ssize_t)bytes ? 0 : -1;
}

/* The .rodata section of a 64-bit ELF file, malloc'ed; NULL when there is none. NCCL's library
 * is hundreds of MiB (device code), its read-only data a few, so only that section is read. */
static char *read_rodata(int fd, size_t *size)
{
    Elf64_Ehdr eh;
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
        return NULL;
    Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
    char *names = NULL, *data = NULL;
    if (!sh || read_at(fd, sh, eh.e_shnum * sizeof *sh, eh.e_shoff) != 0)
        goto out;
    const Elf64_Shdr *strtab = &sh[eh.e_shstrndx];
    if (strtab->sh_size == 0 || strtab->sh_size > (1u << 20) ||
        !(names = malloc(strtab->sh_size + 1)) ||
        read_at(fd, names, strtab->sh_size, strtab->sh_offset) != 0)
        goto out;
    names[strtab->sh_size] = '\0';
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= strtab->sh_size || strcmp(names + sh[i].sh_name, ".rodata") != 0)
            continue;
        if (sh[i].sh_type != SHT_PROGBITS || sh[i].sh_size == 0 || sh[i].sh_size > (256u << 20))
            break;
        if ((data = malloc(sh[i].sh_size)) && read_at(fd, data, sh[i].sh_size, sh[i].sh_offset)) {
            free(data);
            data = NULL;
        }
        *size = data ? sh[i].sh_size : 0;
        break;
    }
out:
    free(names);
    free(sh);
    return data;
}

/* The version string out of the library file (a few MiB of its .rodata). */
static int read_build_cuda(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t size = 0;
    char *data = read_rodata(fd, &size);
    close(fd);
    int cuda = 0;
    static const char tag[] = "NCCL version ";
    for (const char *p = data; p && (size_t)(p - data) + sizeof tag < size;) {
        const char *hit = memmem(p, size - (size_t)(p - data), tag, sizeof tag - 1);
        if (!hit)
            break;
        const char *end = memchr(hit, '\0', size - (size_t)(hit - data));
        const char *plus = end ? memmem(hit, (size_t)(end - hit), "+cuda", 5) : NULL;
        unsigned major, minor;
        if (plus && sscanf(plus, "+cuda%u.%u", &major, &minor) == 2 && major < 100 && minor < 100) {
            cuda = (int)(major * 1000 + minor * 10);
            break;
        }
        p = end ? end + 1 : data + size;
    }
    free(data);
    return cuda;
}

int gv_nccl_build_cuda(gv_ctx *ctx)
{
    if (!gv_nccl(ctx))
        return 0;
    /* Once per context: the compatibility row, nccl.version and every benchmark ask. */
    if (ctx->nccl_build_cuda < 0)
        ctx->nccl_build_cuda = read_build_cuda(gv_library_slot(ctx, GV_LIB_NCCL)->path);
    return ctx->nccl_build_cuda;
}

void gv_nccl_version_text(int code, char *out, size_t cap)
{
    if (code >= 20900)
        snprintf(out, cap, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
    else
        snprintf(out, cap, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
}
