/* SPDX-License-Identifier: Apache-2.0 */
/* What the text-parsing fuzz targets share: the input as a NUL-terminated string, and one
 * context for the whole run. */
#ifndef GV_FUZZ_TEXT_H
#define GV_FUZZ_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (free it); a NUL inside ends the text there, as a reader would. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

static inline gv_ctx *fuzz_ctx(void)
{
    static gv_ctx *ctx;
    if (!ctx && gv_ctx_create(NULL, &ctx) != GV_OK)
        abort();
    return ctx;
}

/* ---- Damage never heals: a clean input's non-PASS rows stay non-PASS ---------------------
 *
 * A target that judges text runs a clean input (a seed of tests/fuzz/corpus) once and keeps
 * which rows were not PASS; then, for each fuzzed input, the clean input damaged as the
 * fuzzed bytes say. Damage is what no writer of the file produces and no edit that repairs a
 * node could: bytes that are never part of a number, a name or a JSON token (control bytes
 * but blanks, DEL, bytes that are never UTF-8), inserted anywhere, and (where the target says)
 * the input cut short. Such an input is unknown where it is damaged: a row the clean input
 * did not PASS must not PASS now (an unknown read as healthy, a lost row taken for a good
 * one). */

#define FUZZ_MAX_ROWS 512
#define FUZZ_MAX_DAMAGE 8

/* Rows of a report that were not PASS: (check, subject) pairs. */
typedef struct fuzz_rows {
    size_t n;
    char key[FUZZ_MAX_ROWS][100];
} fuzz_rows;

static inline void fuzz_row_key(const gv_check_result *c, char *key, size_t cap)
{
    snprintf(key, cap, "%s %s", c->id, c->subject);
}

static inline void fuzz_rows_not_pass(const gv_report *r, fuzz_rows *out)
{
    out->n = 0;
    for (uint32_t i = 0; i < gv_report_count(r) && out->n < FUZZ_MAX_ROWS; i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) == GV_OK && c.verdict != GV_PASS)
            fuzz_row_key(&c, out->key[out->n++], sizeof out->key[0]);
    }
}

/* Aborts, naming the row, when r has PASS on a row the clean input had not. */
static inline void fuzz_assert_no_new_pass(const fuzz_rows *clean, const gv_report *r,
                                           const char *what)
{
    for (uint32_t i = 0; i < gv_report_count(r); i++) {
        gv_check_result c = GV_CHECK_RESULT_INIT;
        if (gv_report_result(r, i, &c) != GV_OK || c.verdict != GV_PASS)
            continue;
        char key[100];
        fuzz_row_key(&c, key, sizeof key);
        for (size_t k = 0; k < clean->n; k++)
            if (strcmp(key, clean->key[k]) == 0) {
                fprintf(stderr, "%s: damage made %s PASS (%s); the clean input did not\n", what,
                        key, c.message);
                abort();
            }
    }
}

/* A byte no clean text holds: C0 controls but tab, newline and carriage return (a blank or a
 * line break can end a number early and leave a shorter, valid one), NUL, DEL, and bytes that
 * never occur in UTF-8. */
static inline char fuzz_poison(uint8_t pick)
{
    static const uint8_t poison[] = {0x00, 0x01, 0x02, 0x07, 0x08, 0x0b, 0x0c, 0x1b,
                                     0x1e, 0x1f, 0x7f, 0xc0, 0xc1, 0xf5, 0xfe, 0xff};
    return (char)poison[pick % sizeof poison];
}

/* One damage: 4 bytes (what: which piece, at: 2 bytes where, pick: which poison byte). */
typedef struct fuzz_damage {
    uint8_t what;
    size_t at;
    char byte;
} fuzz_damage;

/* The damages the fuzzed bytes ask for, at most FUZZ_MAX_DAMAGE; how many. */
static inline size_t fuzz_damages(const uint8_t *data, size_t size, fuzz_damage *out)
{
    size_t n = 0;
    for (size_t i = 0; i + 4 <= size && n < FUZZ_MAX_DAMAGE; i += 4, n++) {
        out[n].what = data[i];
        out[n].at = (size_t)data[i + 1] | (size_t)data[i + 2] << 8;
        out[n].byte = fuzz_poison(data[i + 3]);
    }
    return n;
}

/* text (len bytes, malloc'ed, room for one more) with byte inserted at at % (len + 1). */
static inline char *fuzz_insert(char *text, size_t *len, size_t at, char byte)
{
    char *grown = realloc(text, *len + 2);
    if (!grown)
        abort();
    at %= *len + 1;
    memmove(grown + at + 1, grown + at, *len - at);
    grown[at] = byte;
    grown[++*len] = '\0';
    return grown;
}

/* A whole file (a seed of the corpus), NULL when it cannot be read. */
static inline char *fuzz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *more = realloc(buf, 2 * cap + 1);
            if (!more)
                free(buf);
            buf = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

#endif
