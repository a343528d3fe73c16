/*
 * Row-wise binding (upq_rows_bind / upq_rows_fetch, uparquet/record.h) on
 * every corpus file whose fields are all top-level columns: the rows it
 * fills must hold exactly the values and nulls the event API gives
 * (upq_rows_next / upq_rows_event), whatever
 *   - the I/O pattern (tu_flaky_cfgs: short reads, "again"),
 *   - the batch size of upq_rows_open (1, 7, 1024) and the rows asked per
 *     fetch (1, 3, 256, 1000),
 *   - the layout of the row struct (packed, unaligned, some columns
 *     unbound, some without a null flag: nulls then read as zero bytes),
 * and when fetching follows upq_rows_skip, a half-read row, or rows read
 * as events, or events follow a fetch. Known values of the corpus (alltypes_plain, int96_from_spark)
 * are checked directly, and bad bindings must be refused.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"
#include "util/files.h"
#include "util/sbuf.h"
#include "util/flaky_io.h"

#define ARENA (64u << 20)
#define SPIN_LIMIT 100000000u

static uint8_t *arena;


/* One field of a row, as both APIs are compared: a null byte, then the
 * value (byte arrays: length and bytes); a null's value is zero bytes. */
static void put_field(sbuf *b, const upq_schema *s, uint32_t col, int null, const void *v)
{
    int32_t t = s->columns[col].physical_type;
    uint8_t nb = (uint8_t)null;
    sbuf_put(b, &nb, 1);
    if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        upq_bytes z = {NULL, 0};
        const upq_bytes *x = null ? &z : (const upq_bytes *)v;
        uint32_t len = (uint32_t)x->len;
        sbuf_put(b, &len, 4);
        sbuf_put(b, x->ptr, x->len);
    } else {
        static const uint8_t zero[16];
        sbuf_put(b, null ? zero : v, upq_value_size(t));
    }
}

/* ---- the file ---------------------------------------------------------------- */

typedef struct src {
    tu_mem_src mem;
    tu_flaky fl;
    upq_reader r;
} src;

static upq_status open_src(src *x, const uint8_t *data, size_t len, const tu_flaky_cfg *io)
{
    upq_status st;
    unsigned spins = 0;
    tu_mem_src_init(&x->mem, data, len);
    tu_flaky_init(&x->fl, io, tu_mem_read_at, &x->mem, tu_seed());
    upq_io uio = {&x->fl, tu_flaky_read_at, len, NULL};
    upq_reader_init(&x->r, &uio, arena, ARENA, NULL);
    do
        st = upq_reader_open(&x->r);
    while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    return st;
}

/* Are all fields top-level columns (none repeated)? */
static int flat_schema(const upq_schema *s)
{
    if (s->num_columns == 0 || s->num_nodes != s->num_columns + 1)
        return 0;
    for (uint32_t c = 0; c < s->num_columns; c++)
        if (s->columns[c].max_rep)
            return 0;
    return 1;
}

/* The rows of the whole file through events, from row `from` of each row
 * group on. Returns the final status. */
static upq_status events_truth(src *x, uint64_t from, sbuf *out)
{
    const upq_schema *s = upq_reader_schema(&x->r);
    const upq_file_metadata *m = upq_reader_metadata(&x->r);
    upq_status st = UPQ_OK;
    for (uint32_t g = 0; g < m->row_groups.n && st == UPQ_OK; g++) {
        upq_rows w;
        uint64_t got;
        unsigned spins = 0;
        st = upq_rows_open(&w, &x->r, g, NULL, 0, 0);
        if (st != UPQ_OK)
            return st;
        do
            st = upq_rows_skip(&w, from, &got);
        while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
        while (st == UPQ_OK) {
            upq_event ev;
            st = upq_rows_next(&w);
            if (st == UPQ_AGAIN && ++spins < SPIN_LIMIT) {
                st = UPQ_OK;
                continue;
            }
            if (st != UPQ_OK)
                break;
            for (;;) {
                st = upq_rows_event(&w, &ev);
                if (st == UPQ_AGAIN && ++spins < SPIN_LIMIT)
                    continue;
                if (st != UPQ_OK)
                    break;
                put_field(out, s, ev.column, ev.type == UPQ_EV_NULL, ev.value);
            }
            st = st == UPQ_DONE ? UPQ_OK : st;
        }
        upq_rows_close(&w);
        st = st == UPQ_DONE ? UPQ_OK : st;
    }
    return st;
}

/* Row struct layouts. */
enum { LAYOUT_PACKED, LAYOUT_ODD, LAYOUT_SOME, NUM_LAYOUTS };

typedef struct layout {
    upq_row_binding *b;
    uint32_t n;
    size_t stride;
} layout;

/* Bindings for every column c of s in layout `kind`: PACKED, values one
 * after the other, flags after them; ODD, the flag then the value in
 * 19-byte slots from offset 3 (nothing aligned); SOME, every other column
 * bound, flags only on every other bound one. */
static void make_layout(const upq_schema *s, int kind, layout *l)
{
    uint32_t c, nc = s->num_columns;
    size_t at = 0;
    l->b = (upq_row_binding *)calloc(nc ? nc : 1, sizeof *l->b);
    l->n = 0;
    for (c = 0; c < nc; c++) {
        size_t vs = upq_value_size(s->columns[c].physical_type);
        upq_row_binding *b = &l->b[l->n];
        if (kind == LAYOUT_SOME && c % 2 == 1)
            continue;
        b->column = c;
        if (kind == LAYOUT_PACKED) {
            b->offset = (uint32_t)at;
            at += vs;
        } else {
            b->null_offset = (uint32_t)(3 + 19 * l->n);
            b->offset = b->null_offset + 1;
            if (kind == LAYOUT_SOME && l->n % 2 == 1)
                b->null_offset = UPQ_NONE;
        }
        l->n++;
    }
    if (kind == LAYOUT_PACKED) {
        for (c = 0; c < l->n; c++)
            l->b[c].null_offset = (uint32_t)(at + c);
        l->stride = at + l->n + 5;
    } else {
        l->stride = 3 + 19 * (size_t)l->n + 2;
    }
}

/* What the events give for a layout: only the bound columns, in binding
 * order, and a null without its flag as a zero value with no null byte. */
static void project(const upq_schema *s, const sbuf *all, const layout *l, sbuf *out)
{
    size_t at = 0;
    while (at < all->n) {
        size_t start[1024], end[1024];
        uint32_t c;
        for (c = 0; c < s->num_columns; c++) {
            int32_t t = s->columns[c].physical_type;
            start[c] = at;
            at += 1;
            if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                uint32_t len;
                memcpy(&len, all->p + at, 4);
                at += 4 + len;
            } else {
                at += upq_value_size(t);
            }
            end[c] = at;
        }
        for (uint32_t i = 0; i < l->n; i++) {
            c = l->b[i].column;
            if (l->b[i].null_offset == UPQ_NONE) {
                uint8_t no = 0;
                sbuf_put(out, &no, 1); /* nothing tells a null from a zero */
                sbuf_put(out, all->p + start[c] + 1, end[c] - start[c] - 1);
            } else {
                sbuf_put(out, all->p + start[c], end[c] - start[c]);
            }
        }
    }
}

/* A filled row struct in the form of project(). */
static void put_row(sbuf *out, const upq_schema *s, const layout *l, const uint8_t *row)
{
    for (uint32_t i = 0; i < l->n; i++) {
        const upq_row_binding *b = &l->b[i];
        int null = b->null_offset == UPQ_NONE ? 0 : row[b->null_offset];
        int32_t t = s->columns[b->column].physical_type;
        if (b->null_offset != UPQ_NONE && row[b->null_offset] > 1)
            null = 2; /* not a flag: shows as a difference */
        if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            upq_bytes v;
            memcpy(&v, row + b->offset, sizeof v);
            if (null == 1 && (v.len || v.ptr))
                null = 3; /* a null's upq_bytes must be zero */
            put_field(out, s, b->column, null, &v);
        } else {
            uint8_t v[16];
            size_t vs = upq_value_size(t);
            memcpy(v, row + b->offset, vs);
            if (null == 1 && memcmp(v, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", vs) != 0)
                null = 3;
            put_field(out, s, b->column, null, v);
        }
    }
}

typedef struct fetch_cfg {
    size_t batch, max;
    uint64_t skip;  /* upq_rows_skip first */
    int half;       /* read one event of the first row, then fetch */
    int events;     /* rows 0..events-1 of each row group as events, then fetch */
    int then_events; /* one fetch, then the rest of the row group as events */
} fetch_cfg;

/* The current row's events in the layout's form (see project()). */
static upq_status events_in_layout(upq_rows *w, const upq_schema *s, const layout *l, sbuf *out)
{
    upq_event ev;
    upq_status st;
    unsigned spins = 0;
    for (;;) {
        st = upq_rows_event(w, &ev);
        if (st == UPQ_AGAIN && ++spins < SPIN_LIMIT)
            continue;
        if (st != UPQ_OK)
            return st == UPQ_DONE ? UPQ_OK : st;
        for (uint32_t i = 0; i < l->n; i++)
            if (l->b[i].column == ev.column) {
                int null = ev.type == UPQ_EV_NULL;
                if (l->b[i].null_offset == UPQ_NONE && null) {
                    uint8_t no = 0;
                    size_t at = out->n;
                    put_field(out, s, ev.column, 1, NULL);
                    memcpy(out->p + at, &no, 1);
                } else {
                    put_field(out, s, ev.column, null, ev.value);
                }
            }
    }
}

/* The file through fetch. */
static upq_status fetch_file(src *x, const layout *l, const fetch_cfg *fc, sbuf *out)
{
    const upq_schema *s = upq_reader_schema(&x->r);
    const upq_file_metadata *m = upq_reader_metadata(&x->r);
    uint8_t *rows = (uint8_t *)malloc(fc->max * l->stride);
    upq_status st = UPQ_OK;
    for (uint32_t g = 0; g < m->row_groups.n && st == UPQ_OK; g++) {
        upq_rows w;
        unsigned spins = 0;
        uint64_t got;
        st = upq_rows_open(&w, &x->r, g, NULL, 0, fc->batch);
        if (st == UPQ_OK)
            st = upq_rows_bind(&w, l->b, l->n);
        if (st == UPQ_OK && fc->skip) {
            do
                st = upq_rows_skip(&w, fc->skip, &got);
            while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
            TU_CHECK_UINT(upq_rows_position(&w), got);
        }
        if (st == UPQ_OK && fc->half) {
            upq_event ev;
            do
                st = upq_rows_next(&w);
            while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
            if (st == UPQ_OK)
                do
                    st = upq_rows_event(&w, &ev);
                while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
            st = st == UPQ_DONE ? UPQ_OK : st;
        }
        for (int e = 0; st == UPQ_OK && e < fc->events; e++) {
            do
                st = upq_rows_next(&w);
            while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
            if (st == UPQ_OK)
                st = events_in_layout(&w, s, l, out);
        }
        st = st == UPQ_DONE ? UPQ_OK : st;
        if (st == UPQ_OK && fc->then_events) {
            size_t n = 0;
            do
                st = upq_rows_fetch(&w, rows, l->stride, fc->max, &n);
            while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
            for (size_t k = 0; st == UPQ_OK && k < n; k++)
                put_row(out, s, l, rows + k * l->stride);
            while (st == UPQ_OK) {
                do
                    st = upq_rows_next(&w);
                while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
                if (st == UPQ_OK)
                    st = events_in_layout(&w, s, l, out);
            }
        }
        while (st == UPQ_OK) {
            size_t n = 0;
            uint64_t before = upq_rows_position(&w);
            memset(rows, 0xA5, fc->max * l->stride);
            st = upq_rows_fetch(&w, rows, l->stride, fc->max, &n);
            if (st == UPQ_AGAIN) {
                TU_CHECK_UINT(n, 0);
                if (++spins < SPIN_LIMIT)
                    st = UPQ_OK;
                continue;
            }
            if (st != UPQ_OK)
                break;
            if (!TU_CHECK(n > 0 && n <= fc->max) ||
                !TU_CHECK_UINT(upq_rows_position(&w), before + n)) {
                st = UPQ_ERR_STATE;
                break;
            }
            /* right away: byte arrays point into the reader's buffers */
            for (size_t k = 0; k < n; k++)
                put_row(out, s, l, rows + k * l->stride);
        }
        if (st == UPQ_DONE) {
            size_t n = 7;
            TU_CHECK_UINT(upq_rows_position(&w), upq_rows_count(&w));
            /* and stays done */
            TU_CHECK_STATUS(upq_rows_fetch(&w, rows, l->stride, fc->max, &n), UPQ_DONE);
            TU_CHECK_UINT(n, 0);
            st = UPQ_OK;
        }
        upq_rows_close(&w);
    }
    free(rows);
    return st;
}

/* Rows of `from` on in each row group, from the events of whole row groups
 * (row boundaries known from the per-row-group truth). */
static void test_file(const char *path)
{
    const char *name = tu_basename(path);
    uint8_t *data;
    size_t len;
    src x;
    const upq_schema *s;
    sbuf truth = {0}, truth_from[3] = {{0}};
    static const uint64_t froms[3] = {0, 1, 5};
    upq_status st;

    if (tu_read_file(path, &data, &len) != 0)
        return;
    if (open_src(&x, data, len, &tu_flaky_cfgs[0]) != UPQ_OK ||
        !flat_schema(upq_reader_schema(&x.r)) || upq_reader_schema(&x.r)->num_columns > 1024) {
        free(data);
        return;
    }
    s = upq_reader_schema(&x.r);
    if (events_truth(&x, 0, &truth) != UPQ_OK) {
        free(truth.p);
        free(data);
        return; /* files the event API refuses are test_record's */
    }
    tu_case("%s", name);
    for (int k = 0; k < 3; k++) {
        st = open_src(&x, data, len, &tu_flaky_cfgs[0]);
        if (st == UPQ_OK)
            st = events_truth(&x, froms[k], &truth_from[k]);
        TU_CHECK_STATUS(st, UPQ_OK);
    }

    for (int kind = 0; kind < NUM_LAYOUTS; kind++) {
        static const size_t batches[] = {1, 7, 1024}, maxes[] = {1, 3, 256, 1000};
        layout l;
        sbuf want[3] = {{0}};
        open_src(&x, data, len, &tu_flaky_cfgs[0]);
        s = upq_reader_schema(&x.r);
        make_layout(s, kind, &l);
        for (int k = 0; k < 3; k++)
            project(s, &truth_from[k], &l, &want[k]);
        for (size_t i = 0; i < tu_flaky_ncfgs; i++) {
            fetch_cfg fc;
            sbuf got = {0};
            memset(&fc, 0, sizeof fc);
            if (i && !tu_repeat_keep())
                continue;
            fc.batch = batches[(i + (size_t)kind) % 3];
            fc.max = maxes[(i + 2u * (size_t)kind) % 4];
            if (len > (1u << 20) && fc.batch == 1)
                fc.batch = 7;
            /* the variants, one per I/O pattern in turn */
            int k = 0;
            switch (i % 5) {
            case 1: fc.skip = 5; k = 2; break;
            case 2: fc.half = 1; k = 1; break;
            case 3: fc.events = 5; break; /* as events, then fetched: all rows */
            case 4: fc.events = 2; fc.then_events = 1; break; /* events, fetch, events */
            default: break;
            }
            st = open_src(&x, data, len, &tu_flaky_cfgs[i]);
            if (st == UPQ_OK)
                st = fetch_file(&x, &l, &fc, &got);
            TU_CHECK_MSG(st == UPQ_OK && got.n == want[k].n &&
                             (got.n == 0 || memcmp(got.p, want[k].p, got.n) == 0),
                         "%s: layout %d, I/O %s, batch %zu, max %zu, skip %llu half %d events %d "
                         "then events %d: %s, %zu bytes of rows against %zu", name, kind,
                         tu_flaky_cfgs[i].name, fc.batch, fc.max, (unsigned long long)fc.skip,
                         fc.half, fc.events, fc.then_events,
                         upq_strerror(st), got.n, want[k].n);
            free(got.p);
        }
        for (int k = 0; k < 3; k++)
            free(want[k].p);
        free(l.b);
    }
    free(truth.p);
    for (int k = 0; k < 3; k++)
        free(truth_from[k].p);
    free(data);
}

/* ---- known values ------------------------------------------------------------ */

static int column_named(const upq_schema *s, const char *name)
{
    for (uint32_t c = 0; c < s->num_columns; c++) {
        const upq_bytes *n = &s->nodes[s->columns[c].node].elem->name;
        if (n->len == strlen(name) && memcmp(n->ptr, name, n->len) == 0)
            return (int)c;
    }
    return -1;
}

static int load(const char *file, uint8_t **data, size_t *len, src *x)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", tu_corpus_dir(), file);
    if (!TU_CHECK_MSG(tu_read_file(path, data, len) == 0, "cannot read %s", path))
        return 0;
    return TU_CHECK_STATUS(open_src(x, *data, *len, &tu_flaky_cfgs[0]), UPQ_OK);
}

/* alltypes_plain(.snappy): ids 4 5 6 7 2 3 0 1 (6 7), bool_col true for
 * even ids, string_col "0"/"1" as id % 2, in the order of the events. */
static void known_alltypes(const char *file, const int32_t *ids, size_t nids)
{
    struct row {
        uint8_t flag[3];
        int32_t id;
        uint8_t b;
        upq_bytes str;
    } rows[16];
    uint8_t *data;
    size_t len, n, total = 0;
    src x;
    tu_case("known values: %s", file);
    if (!load(file, &data, &len, &x))
        return;
    const upq_schema *s = upq_reader_schema(&x.r);
    int id = column_named(s, "id"), bc = column_named(s, "bool_col"),
        sc = column_named(s, "string_col");
    TU_CHECK(id >= 0 && bc >= 0 && sc >= 0);
    upq_row_binding b[3] = {{(uint32_t)id, offsetof(struct row, id), 0},
                            {(uint32_t)bc, offsetof(struct row, b), 1},
                            {(uint32_t)sc, offsetof(struct row, str), 2}};
    upq_rows w;
    TU_CHECK_STATUS(upq_rows_open(&w, &x.r, 0, NULL, 0, 3), UPQ_OK);
    TU_CHECK_STATUS(upq_rows_bind(&w, b, 3), UPQ_OK);
    while (upq_rows_fetch(&w, rows, sizeof rows[0], 16, &n) == UPQ_OK) {
        for (size_t k = 0; k < n && total + k < nids; k++) {
            int32_t want = ids[total + k];
            char str = (char)('0' + want % 2);
            TU_CHECK_INT(rows[k].id, want);
            TU_CHECK_INT(rows[k].b, want % 2 == 0);
            TU_CHECK(rows[k].str.len == 1 && rows[k].str.ptr[0] == (uint8_t)str);
            TU_CHECK(rows[k].flag[0] == 0 && rows[k].flag[1] == 0 && rows[k].flag[2] == 0);
        }
        total += n;
    }
    TU_CHECK_UINT(total, nids);
    upq_rows_close(&w);
    free(data);
}

/* int96_from_spark: six values, the fifth null; the second is
 * 2024-01-01T01:00:00Z: Julian day 2460311, 3600 s into it. */
static void known_int96(void)
{
    struct row {
        upq_int96 v;
        uint8_t null;
    } rows[8];
    uint8_t *data;
    size_t len, n;
    src x;
    upq_rows w;
    tu_case("known values: int96_from_spark.parquet");
    if (!load("int96_from_spark.parquet", &data, &len, &x))
        return;
    upq_row_binding b = {0, offsetof(struct row, v), offsetof(struct row, null)};
    TU_CHECK_STATUS(upq_rows_open(&w, &x.r, 0, NULL, 0, 0), UPQ_OK);
    TU_CHECK_STATUS(upq_rows_bind(&w, &b, 1), UPQ_OK);
    memset(rows, 0x5A, sizeof rows);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, sizeof rows[0], 8, &n), UPQ_OK);
    TU_CHECK_UINT(n, 6);
    for (size_t k = 0; k < 6; k++)
        TU_CHECK_INT(rows[k].null, k == 4);
    {
        uint64_t nanos;
        uint32_t day;
        static const uint8_t zero[12];
        /* INT96 keeps the file's little-endian bytes on every host */
        nanos = 0;
        for (int i = 7; i >= 0; i--)
            nanos = nanos << 8 | rows[1].v.b[i];
        day = (uint32_t)rows[1].v.b[8] | (uint32_t)rows[1].v.b[9] << 8 |
              (uint32_t)rows[1].v.b[10] << 16 | (uint32_t)rows[1].v.b[11] << 24;
        TU_CHECK_UINT(day, 2460311u);
        TU_CHECK_UINT(nanos, 3600ull * 1000000000ull);
        TU_CHECK_MEM(rows[4].v.b, zero, 12);
    }
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, sizeof rows[0], 8, &n), UPQ_DONE);
    upq_rows_close(&w);
    free(data);
}

/* ---- bad bindings ------------------------------------------------------------- */

static void bad_bindings(void)
{
    uint8_t *data;
    size_t len, n;
    src x;
    upq_rows w;
    uint8_t rows[64 * 4];
    uint32_t sel[2];
    tu_case("bad bindings");
    if (!load("alltypes_plain.parquet", &data, &len, &x))
        return;
    const upq_schema *s = upq_reader_schema(&x.r);
    uint32_t id = (uint32_t)column_named(s, "id"), dc = (uint32_t)column_named(s, "double_col");

    /* only id selected */
    sel[0] = s->columns[id].node;
    TU_CHECK_STATUS(upq_rows_open(&w, &x.r, 0, sel, 1, 0), UPQ_OK);
    {
        size_t m = 99;
        TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 8, 4, &m), UPQ_ERR_STATE); /* nothing bound */
        TU_CHECK_UINT(m, 0);
    }
    upq_row_binding not_sel = {dc, 0, UPQ_NONE};
    TU_CHECK_STATUS(upq_rows_bind(&w, &not_sel, 1), UPQ_ERR_INVAL);
    TU_CHECK_INT(upq_reader_error(&x.r)->column, (int32_t)dc);
    upq_row_binding out_of_range = {s->num_columns, 0, UPQ_NONE};
    TU_CHECK_STATUS(upq_rows_bind(&w, &out_of_range, 1), UPQ_ERR_INVAL);
    upq_row_binding none = {UPQ_NONE, 0, UPQ_NONE};
    TU_CHECK_STATUS(upq_rows_bind(&w, &none, 1), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_rows_bind(&w, NULL, 1), UPQ_ERR_INVAL);
    upq_row_binding flag_inside = {id, 4, 6};
    TU_CHECK_STATUS(upq_rows_bind(&w, &flag_inside, 1), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 16, 4, &n), UPQ_ERR_STATE); /* refused: unbound */

    /* offsets against the stride, overflow-safe */
    upq_row_binding b = {id, 0, 4};
    TU_CHECK_STATUS(upq_rows_bind(&w, &b, 1), UPQ_OK);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 4, 4, &n), UPQ_ERR_INVAL);  /* flag at 4 */
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 3, 4, &n), UPQ_ERR_INVAL);  /* value to 4 */
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 0, 4, &n), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_rows_fetch(&w, NULL, 5, 4, &n), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 5, 0, &n), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, SIZE_MAX / 2, 3, &n), UPQ_ERR_INVAL);
    upq_row_binding far = {id, UINT32_MAX - 1u, UPQ_NONE}; /* offset + 4 wraps in 32 bits */
    TU_CHECK_STATUS(upq_rows_bind(&w, &far, 1), UPQ_OK);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 64, 4, &n), UPQ_ERR_INVAL);
    upq_row_binding far_flag = {id, 0, UINT32_MAX - 1u};
    TU_CHECK_STATUS(upq_rows_bind(&w, &far_flag, 1), UPQ_OK);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 64, 4, &n), UPQ_ERR_INVAL);
    TU_CHECK_UINT(upq_rows_position(&w), 0);
    /* none of that failed the rows: a good binding reads them all */
    TU_CHECK_STATUS(upq_rows_bind(&w, &b, 1), UPQ_OK);
    memset(rows, 0x77, sizeof rows);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 5, 64, &n), UPQ_OK);
    TU_CHECK_UINT(n, 8);
    {
        int32_t first;
        memcpy(&first, rows, 4);
        TU_CHECK_INT(first, 4);
        TU_CHECK_INT(rows[4], 0);
        TU_CHECK_INT(rows[8 * 5], 0x77); /* nothing past the rows filled */
    }
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 5, 64, &n), UPQ_DONE);
    upq_rows_close(&w);
    TU_CHECK_STATUS(upq_rows_bind(&w, &b, 1), UPQ_ERR_STATE);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 5, 64, &n), UPQ_ERR_STATE);
    free(data);

    /* a nested schema: refused, a top-level leaf of it too when a group is selected */
    if (!load("nested_structs.rust.parquet", &data, &len, &x))
        return;
    s = upq_reader_schema(&x.r);
    TU_CHECK_STATUS(upq_rows_open(&w, &x.r, 0, NULL, 0, 0), UPQ_OK);
    upq_row_binding nb = {0, 0, UPQ_NONE};
    TU_CHECK_STATUS(upq_rows_bind(&w, &nb, 1), UPQ_ERR_UNSUPPORTED);
    TU_CHECK_STATUS(upq_rows_fetch(&w, rows, 64, 4, &n), UPQ_ERR_STATE);
    upq_rows_close(&w);
    free(data);
}

int main(void)
{
    static const char *const subdirs[] = {"data"};
    static const int32_t plain_ids[] = {4, 5, 6, 7, 2, 3, 0, 1}, snappy_ids[] = {6, 7};
    arena = (uint8_t *)malloc(ARENA);
    known_alltypes("alltypes_plain.parquet", plain_ids, 8);
    known_alltypes("alltypes_plain.snappy.parquet", snappy_ids, 2);
    known_int96();
    bad_bindings();
    tu_for_each_corpus_file(subdirs, 1, TU_CORPUS_SKIP_PARE, test_file);
    free(arena);
    return tu_summary();
}
