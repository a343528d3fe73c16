/*
 * Shared pieces of the writer tests: an in-memory sink (appending and
 * positional writes, read-back, truncate) that can misbehave (1-byte
 * writes, short writes, "again", a failing write), drivers that retry
 * the writer's calls, and reading a written file back column by column with
 * the library's own reader.
 */
#ifndef UPQ_TEST_WRITER_UTIL_H
#define UPQ_TEST_WRITER_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"
#include "util/flaky_io.h"

#if defined(__GNUC__) || defined(__clang__)
#define WU_FN static __attribute__((unused))
#else
#define WU_FN static
#endif

/* ---- the sink --------------------------------------------------------------- */

/*
 * An in-memory file. write appends; write_at writes at an offset, growing
 * the file, and a gap it leaves before the offset shows stale bytes
 * (wu_stale_byte: DE AD BE EF repeated, never zeros), as a real medium holds
 * whatever was there before; truncate cuts the file (or grows it with stale
 * bytes). Every mode applies to write and write_at alike: SINK_ONE takes one
 * byte per call, SINK_SHORT 1..len, SINK_AGAIN says "again" about a third of
 * the time (every callback) and takes 1..len. A write whose end would pass
 * fail_at fails with UPQ_ERR_IO. read_at gives short counts in every mode but
 * SINK_WHOLE.
 */
enum { SINK_WHOLE = 0, SINK_ONE, SINK_SHORT, SINK_AGAIN };

typedef struct sink_buf {
    uint8_t *p;
    size_t n, cap;
    int mode;
    uint64_t rng;
    unsigned again_run;
    unsigned long writes, writes_at, agains, syncs, truncates;
    size_t syncs_at[4096];  /* file size at each sync */
    size_t fail_at;         /* a write reaching past this size fails (SIZE_MAX: never) */
    /* called after each sync that succeeded (NULL: none), e.g. to keep a
     * copy of what a power cut right then would leave */
    void (*on_sync)(struct sink_buf *s, void *ctx);
    void *on_sync_ctx;
} sink_buf;

WU_FN void sink_init(sink_buf *s, int mode, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->rng = seed ? seed : 1;
    s->fail_at = SIZE_MAX;
}

WU_FN void sink_free(sink_buf *s)
{
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}

/* What the medium holds where nothing was written: never zeros. */
WU_FN uint8_t wu_stale_byte(uint64_t off)
{
    static const uint8_t pat[4] = {0xDE, 0xAD, 0xBE, 0xEF};
    return pat[off & 3u];
}

/* Makes room for `end` bytes; the bytes between the file's end and `end`
 * become stale bytes (the caller overwrites what it writes). */
WU_FN void sink_grow(sink_buf *s, size_t end)
{
    size_t i;
    if (end > s->cap) {
        s->cap = end * 2 + 1024;
        s->p = (uint8_t *)realloc(s->p, s->cap);
        if (!s->p) {
            fprintf(stderr, "writer_util: out of memory\n");
            exit(2);
        }
    }
    for (i = s->n; i < end; i++)
        s->p[i] = wu_stale_byte(i);
    if (end > s->n)
        s->n = end;
}

/* Says "again" about a third of the time, at most three times in a row. */
WU_FN int sink_says_again(sink_buf *s)
{
    if (s->mode != SINK_AGAIN || s->again_run >= 3 || tu_rand_below(&s->rng, 3) != 0) {
        s->again_run = 0;
        return 0;
    }
    s->again_run++;
    s->agains++;
    return 1;
}

/* Bytes the sink takes of `len` in its mode. */
WU_FN size_t sink_take(sink_buf *s, size_t len)
{
    if (s->mode == SINK_ONE)
        return 1;
    if (s->mode == SINK_SHORT || s->mode == SINK_AGAIN)
        return 1 + (size_t)tu_rand_below(&s->rng, len);
    return len;
}

WU_FN upq_status sink_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    sink_buf *s = (sink_buf *)ctx;
    size_t k, at = s->n;
    *written = 0;
    if (len == 0)
        return UPQ_ERR_INVAL; /* the contract: len >= 1 */
    if (sink_says_again(s))
        return UPQ_AGAIN;
    k = sink_take(s, len);
    if (at + k > s->fail_at)
        return UPQ_ERR_IO;
    sink_grow(s, at + k);
    memcpy(s->p + at, buf, k);
    s->writes++;
    *written = k;
    return UPQ_OK;
}

WU_FN upq_status sink_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    sink_buf *s = (sink_buf *)ctx;
    size_t k;
    *written = 0;
    if (len == 0 || off > (uint64_t)(SIZE_MAX / 4))
        return UPQ_ERR_INVAL;
    if (sink_says_again(s))
        return UPQ_AGAIN;
    k = sink_take(s, len);
    if ((size_t)off + k > s->fail_at)
        return UPQ_ERR_IO;
    sink_grow(s, (size_t)off + k);
    memcpy(s->p + off, buf, k);
    s->writes_at++;
    *written = k;
    return UPQ_OK;
}

WU_FN upq_status sink_sync(void *ctx)
{
    sink_buf *s = (sink_buf *)ctx;
    if (sink_says_again(s))
        return UPQ_AGAIN;
    if (s->syncs < sizeof s->syncs_at / sizeof s->syncs_at[0])
        s->syncs_at[s->syncs] = s->n;
    s->syncs++;
    if (s->on_sync)
        s->on_sync(s, s->on_sync_ctx);
    return UPQ_OK;
}

WU_FN upq_status sink_truncate(void *ctx, uint64_t size)
{
    sink_buf *s = (sink_buf *)ctx;
    if (size > (uint64_t)(SIZE_MAX / 4))
        return UPQ_ERR_INVAL;
    if (sink_says_again(s))
        return UPQ_AGAIN;
    if ((size_t)size > s->fail_at)
        return UPQ_ERR_IO;
    if ((size_t)size < s->n)
        s->n = (size_t)size;
    else
        sink_grow(s, (size_t)size);
    s->truncates++;
    return UPQ_OK;
}

WU_FN upq_status sink_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    sink_buf *s = (sink_buf *)ctx;
    *got = 0;
    if (sink_says_again(s))
        return UPQ_AGAIN;
    if (off >= s->n)
        return UPQ_OK;
    if (len > s->n - off)
        len = s->n - (size_t)off;
    if (s->mode != SINK_WHOLE && len > 1)
        len = 1 + (size_t)tu_rand_below(&s->rng, len);
    memcpy(buf, s->p + off, len);
    *got = len;
    return UPQ_OK;
}

/* A sink over s. with_read_at: it also reads back, writes at offsets and
 * truncates (what checkpoint mode and recovery need); else it only
 * appends. */
WU_FN upq_sink sink_of(sink_buf *s, int with_read_at)
{
    upq_sink k;
    memset(&k, 0, sizeof k);
    k.ctx = s;
    k.write = sink_write;
    k.sync = sink_sync;
    k.read_at = with_read_at ? sink_read_at : NULL;
    k.write_at = with_read_at ? sink_write_at : NULL;
    k.truncate = with_read_at ? sink_truncate : NULL;
    return k;
}

/* A copy of the file into a fresh sink of mode `mode` (seed `seed`). */
WU_FN void sink_copy(sink_buf *dst, const sink_buf *src, int mode, uint64_t seed)
{
    sink_init(dst, mode, seed);
    sink_grow(dst, src->n);
    if (src->n)
        memcpy(dst->p, src->p, src->n);
}

/* ---- retrying the writer's calls ---------------------------------------------- */

/* Calls that say "again" are repeated as they are; a runaway loop fails. */
#define WU_RETRY(st, call)                            \
    do {                                              \
        unsigned long wu_n_ = 0;                      \
        do {                                          \
            st = (call);                              \
        } while (st == UPQ_AGAIN && ++wu_n_ < 100000000ul); \
    } while (0)

/* Values of a column as given to the writer: `n` level entries, the packed
 * non-null values (column.h's representation). */
typedef struct col_data {
    uint16_t *def, *rep;
    void *vals;
    size_t n, nv;
} col_data;

WU_FN size_t wu_value_size(int32_t type)
{
    switch (type) {
    case UPQ_TYPE_BOOLEAN: return 1;
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: return 4;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: return 8;
    case UPQ_TYPE_INT96: return 12;
    default: return sizeof(upq_bytes);
    }
}

/*
 * Writes every column's data column-wise, round-robin, each call holding up
 * to `batch` rows. A column that says UPQ_AGAIN is called again at once with
 * the rest (so a flaky sink does not change the order of the data); one that
 * says UPQ_DONE waits for the next round. Returns the first error.
 */
WU_FN upq_status wu_write_columns_as(upq_writer *w, const col_data *cols, uint32_t ncols,
                                     const int32_t *types, const uint16_t *max_def,
                                     const uint16_t *max_rep, size_t batch, int runs);
WU_FN upq_status wu_write_columns(upq_writer *w, const col_data *cols, uint32_t ncols,
                                  const int32_t *types, const uint16_t *max_def,
                                  const uint16_t *max_rep, size_t batch)
{
    return wu_write_columns_as(w, cols, ncols, types, max_def, max_rep, batch, 0);
}

#if UPQ_WITH_RUNS
/* The same as runs (upq_writer_put_run; columns without repetition) of up
 * to `batch` entries: a run without nulls passes no levels. */
WU_FN upq_status wu_put_runs(upq_writer *w, const col_data *cols, uint32_t ncols,
                             const int32_t *types, const uint16_t *max_def, size_t batch)
{
    static const uint16_t no_rep[64];
    return wu_write_columns_as(w, cols, ncols, types, max_def, no_rep, batch, 1);
}
#endif

WU_FN upq_status wu_write_columns_as(upq_writer *w, const col_data *cols, uint32_t ncols,
                                     const int32_t *types, const uint16_t *max_def,
                                     const uint16_t *max_rep, size_t batch, int runs)
{
    size_t pos[64] = {0}, vpos[64] = {0};
    unsigned long idle = 0;
    uint32_t c;
    for (;;) {
        int left = 0, progress = 0;
        for (c = 0; c < ncols; c++) {
            const col_data *d = &cols[c];
            size_t end = pos[c], rows = 0, took = 0, k, vs = wu_value_size(types[c]);
            upq_status st;
            if (pos[c] == d->n)
                continue;
            left = 1;
            /* up to `batch` whole rows */
            while (end < d->n && rows < batch) {
                end++;
                while (end < d->n && max_rep[c] && d->rep[end] != 0)
                    end++;
                rows++;
            }
            do {
                const uint16_t *def = max_def[c] ? d->def + pos[c] : NULL;
                if (UPQ_WITH_RUNS && runs) {
#if UPQ_WITH_RUNS
                    for (k = pos[c]; def && k < end && d->def[k] == max_def[c]; k++)
                        ;
                    st = upq_writer_put_run(w, c, (const uint8_t *)d->vals + vpos[c] * vs,
                                            def && k < end ? def : NULL, end - pos[c], &took);
#endif
                } else {
                    st = upq_writer_write_column(w, c, def, max_rep[c] ? d->rep + pos[c] : NULL,
                                                 (const uint8_t *)d->vals + vpos[c] * vs,
                                                 end - pos[c], &took);
                }
                if (st < 0)
                    return st;
                for (k = pos[c]; k < pos[c] + took; k++)
                    if (!max_def[c] || d->def[k] == max_def[c])
                        vpos[c]++;
                pos[c] += took;
                progress |= took > 0;
            } while (st == UPQ_AGAIN);
        }
        if (!left)
            return UPQ_OK;
        if (!progress) {
            upq_status st = upq_writer_poll(w);
            if (st < 0)
                return st;
            if (++idle > 1000000ul)
                return UPQ_ERR_STATE;
        } else {
            idle = 0;
        }
    }
}

/* ---- reading back ------------------------------------------------------------------ */

typedef struct rfile {
    tu_mem_src src;
    upq_io io;
    upq_reader r;
    uint8_t *arena;
    size_t arena_len;
} rfile;

WU_FN upq_status rfile_open(rfile *f, const uint8_t *data, size_t len)
{
    memset(f, 0, sizeof *f);
    tu_mem_src_init(&f->src, data, len);
    f->io.ctx = &f->src;
    f->io.read_at = tu_mem_read_at;
    f->io.size = len;
    f->arena_len = 64u << 20;
    f->arena = (uint8_t *)malloc(f->arena_len);
    upq_reader_init(&f->r, &f->io, f->arena, f->arena_len, NULL);
    return upq_reader_open(&f->r);
}

WU_FN void rfile_close(rfile *f)
{
    free(f->arena);
    f->arena = NULL;
}

/*
 * Reads leaf column `col` of every row group and compares levels and values
 * with `want` (max levels given). Returns the number of mismatches (first
 * ones printed with `what`).
 */
WU_FN long wu_compare_column(rfile *f, uint32_t col, int32_t type, uint16_t max_def,
                             uint16_t max_rep, const col_data *want, const char *what)
{
    const upq_file_metadata *m = upq_reader_metadata(&f->r);
    size_t lpos = 0, vpos = 0, vs = wu_value_size(type);
    uint16_t def[97], rep[97];
    uint8_t vals[97 * 16];
    long bad = 0;
    uint32_t g;
    if (!m)
        return 1;
    for (g = 0; g < m->row_groups.n; g++) {
        upq_column_reader cr;
        upq_batch b;
        upq_status st = upq_column_open(&cr, &f->r, g, col);
        if (st != UPQ_OK) {
            printf("  %s: column %u row group %u: open %s (%s)\n", what, col, g, upq_strerror(st),
                   upq_reader_error(&f->r)->what ? upq_reader_error(&f->r)->what : "");
            return bad + 1;
        }
        for (;;) {
            size_t i, k = 0;
            memset(&b, 0, sizeof b);
            b.def = def;
            b.rep = rep;
            b.values = vals;
            b.cap = 97;
            st = upq_column_read(&cr, &b);
            if (st == UPQ_DONE)
                break;
            if (st != UPQ_OK) {
                printf("  %s: column %u: read %s (%s)\n", what, col, upq_strerror(st),
                       upq_reader_error(&f->r)->what ? upq_reader_error(&f->r)->what : "");
                upq_column_close(&cr);
                return bad + 1;
            }
            for (i = 0; i < b.levels; i++, lpos++) {
                int has = max_def == 0 || def[i] == max_def;
                if (lpos >= want->n) {
                    if (bad++ < 3)
                        printf("  %s: column %u: more levels than written\n", what, col);
                    continue;
                }
                if ((max_def && def[i] != want->def[lpos]) || (max_rep && rep[i] != want->rep[lpos])) {
                    if (bad++ < 3)
                        printf("  %s: column %u entry %zu: levels d%u r%u, want d%u r%u\n", what,
                               col, lpos, def[i], max_rep ? rep[i] : 0, want->def[lpos],
                               max_rep ? want->rep[lpos] : 0);
                }
                if (has) {
                    const uint8_t *got = vals + k * vs;
                    const uint8_t *exp = (const uint8_t *)want->vals + vpos * vs;
                    int eq;
                    if (type == UPQ_TYPE_BYTE_ARRAY || type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                        upq_bytes x, y;
                        memcpy(&x, got, sizeof x);
                        memcpy(&y, exp, sizeof y);
                        eq = x.len == y.len && (x.len == 0 || memcmp(x.ptr, y.ptr, x.len) == 0);
                    } else if (type == UPQ_TYPE_BOOLEAN) {
                        eq = (*got != 0) == (*exp != 0);
                    } else {
                        eq = memcmp(got, exp, vs) == 0;
                    }
                    if (!eq && bad++ < 3)
                        printf("  %s: column %u value %zu differs\n", what, col, vpos);
                    k++;
                    vpos++;
                }
            }
        }
        upq_column_close(&cr);
    }
    if (lpos != want->n) {
        printf("  %s: column %u: %zu levels read, %zu written\n", what, col, lpos, want->n);
        bad++;
    }
    return bad;
}

#endif
