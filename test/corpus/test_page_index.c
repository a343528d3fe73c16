/*
 * Page index reading and OffsetIndex seeks.
 *
 *  - I/O: a 2,000,000-row INT64 column written by upq (8 KiB PLAIN pages,
 *    1,954 data pages in one chunk). Fetching row 1,000,000 by position
 *    takes at most 3 read_at calls for the column once the footer and its
 *    page index are read; the figures with and without the index are
 *    printed (`# io: ...` lines).
 *  - Seeks against full reads: on upq files (flat and nested, v1 and v2,
 *    dictionary and PLAIN) and on alltypes_tiny_pages.parquet, every seek
 *    target's values equal the full read's from that row on, with whole,
 *    1-byte and "again" reads.
 *  - Malformed page indexes, patched into a copy of a good file: page
 *    locations outside the chunk, unsorted, a page missing (the lists'
 *    counts disagree), first_row_index beyond num_rows, a location off by a
 *    byte, a first_row_index shifted. upq_page_index_load gives
 *    UPQ_ERR_CORRUPT naming row group and column where the index itself is
 *    inconsistent; seeking falls back to the header scan there (right
 *    rows); where it is consistent but false (the page at an offset is not
 *    the indexed one), the seek notices at that page and goes back to the
 *    header scan: right rows again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/page_index.h"
#include "format/meta_desc.h"
#include "unit/writer_util.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

/* ---- counted reads over memory -------------------------------------------- */

typedef struct counted {
    const uint8_t *data;
    size_t len;
    unsigned long reads;
    uint64_t bytes;
    size_t chunk;   /* 0: whole reads; else at most this many bytes a call */
    int again;      /* say "again" every other call */
    unsigned long calls;
} counted;

static upq_status counted_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    counted *c = (counted *)ctx;
    c->calls++;
    if (c->again && (c->calls & 1u))
        return UPQ_AGAIN;
    c->reads++;
    if (off >= c->len) {
        *got = 0;
        return UPQ_OK;
    }
    if (len > c->len - off)
        len = (size_t)(c->len - off);
    if (c->chunk && len > c->chunk)
        len = c->chunk;
    memcpy(buf, c->data + off, len);
    *got = len;
    c->bytes += len;
    return UPQ_OK;
}

typedef struct rd {
    counted src;
    upq_io io;
    upq_reader r;
    uint8_t *arena;
} rd;

static upq_status rd_open(rd *f, const uint8_t *data, size_t len, int no_index, size_t chunk, int again)
{
    upq_reader_opts o;
    upq_status st;
    memset(f, 0, sizeof *f);
    f->src.data = data;
    f->src.len = len;
    f->src.chunk = chunk;
    f->src.again = again;
    f->io.ctx = &f->src;
    f->io.read_at = counted_read_at;
    f->io.size = len;
    f->arena = (uint8_t *)malloc(32u << 20);
    memset(&o, 0, sizeof o);
    o.no_page_index = (uint8_t)no_index;
    upq_reader_init(&f->r, &f->io, f->arena, 32u << 20, &o);
    WU_RETRY(st, upq_reader_open(&f->r));
    return st;
}

static void rd_close(rd *f)
{
    free(f->arena);
}

/* ---- writing test files ------------------------------------------------------ */

/* One or two required INT64 columns (value: row * 3 + 7 + column) or a
 * list<int64> column; `rows` rows. */
typedef struct wspec {
    size_t rows;
    uint32_t page_size, page_levels;
    uint64_t rg_rows;
    int ncols;      /* flat INT64 columns */
    int nested;     /* instead: one optional list of optional int64 */
    int v2, dict;
    uint32_t max_pages;
} wspec;

static int64_t flat_value(size_t row, int col)
{
    return (int64_t)row * 3 + 7 + col;
}

/* The nested column's row r: null when r % 5 == 0, else r % 4 elements,
 * the second one null. */
static size_t nested_levels(size_t r, uint16_t *def, uint16_t *rep, int64_t *vals, size_t *nv)
{
    size_t k, n = r % 4;
    if (r % 5 == 0) {
        def[0] = 0;
        rep[0] = 0;
        return 1;
    }
    if (n == 0) {
        def[0] = 1;
        rep[0] = 0;
        return 1;
    }
    for (k = 0; k < n; k++) {
        rep[k] = k ? 1 : 0;
        def[k] = k == 1 ? 2 : 3;
        if (k != 1)
            vals[(*nv)++] = (int64_t)(r * 10 + k);
    }
    return n;
}

static uint8_t *write_file(const wspec *ws, size_t *len)
{
    upq_schema_element el[8];
    upq_schema_builder b;
    upq_column_opts co[2];
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    upq_sink sink;
    col_data cols[2];
    int32_t types[2] = {UPQ_TYPE_INT64, UPQ_TYPE_INT64};
    uint16_t mdef[2] = {0, 0}, mrep[2] = {0, 0};
    uint32_t n;
    size_t need = 0, i;
    uint8_t *arena, *out;
    upq_status st;
    int c;

    upq_sb_init(&b, el, 8, "m");
    if (ws->nested) {
        upq_sb_list(&b, "l", UPQ_REP_OPTIONAL);
        upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
        upq_sb_end_list(&b);
        mdef[0] = 3;
        mrep[0] = 1;
    } else {
        upq_sb_column(&b, "a", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
        if (ws->ncols > 1)
            upq_sb_column(&b, "b", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    }
    if (!TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK))
        return NULL;
    memset(&o, 0, sizeof o);
    memset(co, 0, sizeof co);
    for (c = 0; c < 2; c++) {
        co[c].encoding = -1;
        co[c].dictionary = ws->dict ? 1 : 0;
    }
    o.columns = co;
    o.ncolumns = ws->nested ? 1 : (uint32_t)ws->ncols;
    o.page_size = ws->page_size;
    o.page_levels = ws->page_levels;
    o.row_group_rows = ws->rg_rows;
    o.data_page_v2 = (uint8_t)ws->v2;
    o.max_pages = ws->max_pages;
    o.chunk_size = ws->max_pages ? ws->max_pages * ws->page_size : 0;
    memset(cols, 0, sizeof cols);
    if (ws->nested) {
        size_t cap = ws->rows * 4 + 1;
        cols[0].def = (uint16_t *)malloc(cap * sizeof(uint16_t));
        cols[0].rep = (uint16_t *)malloc(cap * sizeof(uint16_t));
        cols[0].vals = malloc(cap * sizeof(int64_t));
        for (i = 0; i < ws->rows; i++)
            cols[0].n += nested_levels(i, cols[0].def + cols[0].n, cols[0].rep + cols[0].n,
                                       (int64_t *)cols[0].vals, &cols[0].nv);
    } else {
        for (c = 0; c < ws->ncols; c++) {
            int64_t *v = (int64_t *)malloc(ws->rows * sizeof(int64_t));
            for (i = 0; i < ws->rows; i++)
                v[i] = flat_value(i, c);
            cols[c].vals = v;
            cols[c].n = cols[c].nv = ws->rows;
        }
    }
    st = upq_writer_workspace_size(el, n, &o, 64, &need);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return NULL;
    arena = (uint8_t *)malloc(need);
    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 0);
    st = upq_writer_init(&w, &sink, el, n, arena, need, &o);
    if (TU_CHECK_STATUS(st, UPQ_OK)) {
        st = wu_write_columns(&w, cols, ws->nested ? 1u : (uint32_t)ws->ncols, types, mdef, mrep, 4096);
        TU_CHECK_MSG(st == UPQ_OK, "write: %s (%s)", upq_strerror(st),
                     upq_writer_error(&w)->what ? upq_writer_error(&w)->what : "");
        WU_RETRY(st, upq_writer_close(&w));
        TU_CHECK_STATUS(st, UPQ_OK);
    }
    for (c = 0; c < 2; c++) {
        free(cols[c].def);
        free(cols[c].rep);
        free(cols[c].vals);
    }
    free(arena);
    out = s.p;
    *len = s.n;
    return out;
}

/* ---- reading a column from a row on ----------------------------------------------- */

typedef struct got {
    size_t levels, values;
    uint16_t def[4096], rep[4096];
    int64_t vals[4096];
} got;

/* Seeks column `col` of row group `rg` to `row` and reads up to `want`
 * level entries (nested: up to the end of the page's batch). Returns the
 * status of the first failing call; *used says whether the index served. */
static upq_status seek_read(rd *f, uint32_t rg, uint32_t col, uint64_t row, size_t want, got *g,
                            int *used)
{
    upq_column_reader c;
    upq_batch b;
    uint64_t skipped = 0;
    upq_status st = upq_column_open(&c, &f->r, rg, col);
    g->levels = g->values = 0;
    if (st != UPQ_OK)
        return st;
    WU_RETRY(st, upq_column_seek(&c, row, &skipped));
    {
        upq_status why;
        const char *what = NULL;
        *used = upq_column_seek_info(&c, &why, &what);
        if (why < 0)
            tu_note("seek to %llu: index not used: %s", (unsigned long long)row, what ? what : "");
    }
    if (st == UPQ_OK && skipped != row)
        st = UPQ_ERR_STATE;
    while (st == UPQ_OK && g->levels < want) {
        memset(&b, 0, sizeof b);
        b.def = g->def + g->levels;
        b.rep = g->rep + g->levels;
        b.values = g->vals + g->values;
        b.cap = want - g->levels;
        WU_RETRY(st, upq_column_read(&c, &b));
        g->levels += b.levels;
        g->values += b.values_n;
    }
    if (st == UPQ_DONE)
        st = UPQ_OK;
    upq_column_close(&c);
    return st;
}

/* ---- the I/O figure ---------------------------------------------------------------- */

static void test_io(void)
{
    wspec ws;
    uint8_t *file;
    size_t len = 0;
    rd f;
    got *g = (got *)calloc(1, sizeof *g);
    upq_page_index pi;
    unsigned long r0, ridx, rcol, rscan;
    uint64_t b0, bidx, bcol, bscan;
    int used = 0;
    upq_status st;

    tu_case("io: row 1,000,000 of a 2M-row INT64 column");
    memset(&ws, 0, sizeof ws);
    ws.rows = 2000000;
    ws.page_size = 8192;
    ws.ncols = 1;
    ws.max_pages = 2048;
    file = write_file(&ws, &len);
    if (!TU_CHECK(file != NULL))
        return;
    if (!TU_CHECK_STATUS(rd_open(&f, file, len, 0, 0, 0), UPQ_OK))
        return;
    TU_CHECK_UINT(upq_reader_metadata(&f.r)->row_groups.n, 1);
    r0 = f.src.reads;
    b0 = f.src.bytes;
    /* the page index on its own */
    st = upq_page_index_open(&pi, &f.r, 0, 0, UPQ_PAGE_INDEX_OFFSET);
    TU_CHECK_STATUS(st, UPQ_OK);
    WU_RETRY(st, upq_page_index_load(&pi));
    TU_CHECK_STATUS(st, UPQ_OK);
    if (st == UPQ_OK)
        tu_note("io: %u data pages in the chunk", (unsigned)upq_page_index_offsets(&pi)->page_locations.n);
    TU_CHECK(st == UPQ_OK && upq_page_index_offsets(&pi)->page_locations.n >= 1900);
    upq_page_index_close(&pi);
    ridx = f.src.reads - r0;
    bidx = f.src.bytes - b0;
    /* the seek reads the index again (counted once above), then the page */
    r0 = f.src.reads;
    b0 = f.src.bytes;
    st = seek_read(&f, 0, 0, 1000000, 1, g, &used);
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK(used);
    TU_CHECK_UINT(g->levels, 1);
    TU_CHECK_INT(g->vals[0], flat_value(1000000, 0));
    rcol = f.src.reads - r0 - ridx;
    bcol = f.src.bytes - b0 - bidx;
    tu_note("io: footer %lu reads; page index %lu reads, %llu bytes; column %lu reads, %llu bytes",
            (unsigned long)(f.src.reads - (ridx * 2 + rcol)), ridx, (unsigned long long)bidx, rcol,
            (unsigned long long)bcol);
    TU_CHECK_MSG(rcol <= 3, "one row by position took %lu read_at calls after the page index", rcol);
    rd_close(&f);
    /* the same without the index */
    if (TU_CHECK_STATUS(rd_open(&f, file, len, 1, 0, 0), UPQ_OK)) {
        r0 = f.src.reads;
        b0 = f.src.bytes;
        st = seek_read(&f, 0, 0, 1000000, 1, g, &used);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK(!used);
        TU_CHECK_INT(g->vals[0], flat_value(1000000, 0));
        rscan = f.src.reads - r0;
        bscan = f.src.bytes - b0;
        tu_note("io: without the page index: column %lu reads, %llu bytes", rscan, (unsigned long long)bscan);
        TU_CHECK(rscan > 100);
        rd_close(&f);
    }
    free(file);
    free(g);
}

/* ---- seeks against full reads -------------------------------------------------------- */

/* Compares a seek to `row` with entries [at..) of a full read of the same
 * chunk (`full`, whose row starts are known). */
static void compare_seek(rd *f, uint32_t rg, uint32_t col, uint64_t row, const got *full,
                         const size_t *row_level, const size_t *row_value, size_t nrows,
                         const char *what)
{
    got *g = (got *)calloc(1, sizeof *g);
    size_t at, vat, want;
    int used = 0;
    upq_status st;
    if (row >= nrows) {
        free(g);
        return;
    }
    at = row_level[row];
    vat = row_value[row];
    want = full->levels - at < 300 ? full->levels - at : 300;
    st = seek_read(f, rg, col, row, want, g, &used);
    TU_CHECK_MSG(st == UPQ_OK, "%s: seek to %llu: %s (%s)", what, (unsigned long long)row, upq_strerror(st),
                 upq_reader_error(&f->r)->what ? upq_reader_error(&f->r)->what : "");
    if (st == UPQ_OK) {
        TU_CHECK_MSG(g->levels == want, "%s: row %llu: %zu levels, want %zu", what, (unsigned long long)row,
                     g->levels, want);
        TU_CHECK_MSG(memcmp(g->def, full->def + at, want * sizeof(uint16_t)) == 0 &&
                         memcmp(g->rep, full->rep + at, want * sizeof(uint16_t)) == 0 &&
                         memcmp(g->vals, full->vals + vat, g->values * sizeof(int64_t)) == 0,
                     "%s: row %llu: levels or values differ from the full read", what, (unsigned long long)row);
    }
    free(g);
}

/* Reads the whole chunk (at most 4096 entries) and where each row starts. */
static size_t full_read(rd *f, uint32_t rg, uint32_t col, got *full, size_t *row_level, size_t *row_value,
                        int nested)
{
    int used;
    size_t i, rows = 0, v = 0;
    upq_status st = seek_read(f, rg, col, 0, 4096, full, &used);
    TU_CHECK_STATUS(st, UPQ_OK);
    for (i = 0; i < full->levels; i++) {
        if (!nested || full->rep[i] == 0) {
            row_level[rows] = i;
            row_value[rows] = v;
            rows++;
        }
        if (!nested || full->def[i] == 3)
            v++;
    }
    return rows;
}

static void seeks_on(const uint8_t *file, size_t len, int nested, const char *name)
{
    static const size_t chunks[] = {0, 1, 13};
    got *full = (got *)calloc(1, sizeof *full);
    size_t *rl = (size_t *)malloc(4096 * sizeof(size_t)), *rv = (size_t *)malloc(4096 * sizeof(size_t));
    size_t k, nrows;
    rd f;
    if (!TU_CHECK_STATUS(rd_open(&f, file, len, 0, 0, 0), UPQ_OK))
        return;
    nrows = full_read(&f, 0, 0, full, rl, rv, nested);
    rd_close(&f);
    for (k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        uint64_t row;
        if (!TU_CHECK_STATUS(rd_open(&f, file, len, 0, chunks[k], chunks[k] != 0), UPQ_OK))
            continue;
        for (row = 1; row < nrows; row += (row < 200 ? 37 : 97))
            compare_seek(&f, 0, 0, row, full, rl, rv, nrows, name);
        compare_seek(&f, 0, 0, nrows - 1, full, rl, rv, nrows, name);
        rd_close(&f);
    }
    free(full);
    free(rl);
    free(rv);
}

static void test_seeks(void)
{
    static const struct {
        const char *name;
        int nested, v2, dict;
    } v[] = {{"flat v1 PLAIN", 0, 0, 0}, {"flat v2 dictionary", 0, 1, 1},
             {"nested v1 dictionary", 1, 0, 1}, {"nested v2 PLAIN", 1, 1, 0}};
    size_t i;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        wspec ws;
        uint8_t *file;
        size_t len = 0;
        tu_case("seeks: %s", v[i].name);
        memset(&ws, 0, sizeof ws);
        ws.rows = 1000;
        ws.page_size = 512;
        ws.page_levels = 61;
        ws.ncols = 1;
        ws.nested = v[i].nested;
        ws.v2 = v[i].v2;
        ws.dict = v[i].dict;
        ws.max_pages = 256;
        file = write_file(&ws, &len);
        if (!TU_CHECK(file != NULL))
            continue;
        seeks_on(file, len, ws.nested, v[i].name);
        free(file);
    }
}

/* ---- malformed page indexes ------------------------------------------------------ */

enum { M_OUTSIDE, M_UNSORTED, M_MISSING, M_BEYOND, M_OFF_BY_ONE, M_ROW_SHIFT, M_COUNT };
static const char *const mnames[M_COUNT] = {
    "offset outside the chunk", "unsorted page locations", "a page missing (counts disagree)",
    "first_row_index beyond num_rows", "a location off by one byte", "a first_row_index shifted"};

static void test_malformed(void)
{
    wspec ws;
    uint8_t *file, *bad;
    size_t len = 0;
    rd f;
    upq_page_index pi;
    upq_offset_index oi;
    upq_page_location *locs;
    const upq_column_chunk *ch;
    uint64_t at;
    uint32_t n, orig_len;
    int m;
    got *g = (got *)calloc(1, sizeof *g);

    memset(&ws, 0, sizeof ws);
    ws.rows = 5000;
    ws.page_size = 512;
    ws.ncols = 2;
    ws.max_pages = 256;
    file = write_file(&ws, &len);
    if (!TU_CHECK(file != NULL) || !TU_CHECK_STATUS(rd_open(&f, file, len, 0, 0, 0), UPQ_OK))
        return;
    /* column 1's OffsetIndex, decoded, as the base of every patch */
    ch = upq_reader_chunk(&f.r, 0, 1);
    at = (uint64_t)ch->offset_index_offset;
    orig_len = (uint32_t)ch->offset_index_length;
    TU_CHECK_STATUS(upq_page_index_open(&pi, &f.r, 0, 1, UPQ_PAGE_INDEX_OFFSET), UPQ_OK);
    {
        upq_status st;
        WU_RETRY(st, upq_page_index_load(&pi));
        TU_CHECK_STATUS(st, UPQ_OK);
    }
    n = pi.oi.page_locations.n;
    TU_CHECK(n > 20);
    locs = (upq_page_location *)malloc(n * sizeof *locs);
    memcpy(locs, pi.oi.page_locations.v, n * sizeof *locs);
    oi = pi.oi;
    upq_page_index_close(&pi);
    rd_close(&f);
    bad = (uint8_t *)malloc(len);

    for (m = 0; m < M_COUNT; m++) {
        upq_page_location *l = (upq_page_location *)malloc(n * sizeof *l);
        uint8_t enc[65536];
        size_t elen = 0;
        uint64_t target;
        int used = 0, want_load_error = m <= M_BEYOND;
        upq_status st;
        tu_case("malformed page index: %s", mnames[m]);
        memcpy(l, locs, n * sizeof *l);
        oi.page_locations.v = l;
        oi.page_locations.n = n;
        target = (uint64_t)l[n / 2].first_row_index + 3;
        switch (m) {
        case M_OUTSIDE: l[n / 2].offset = 4; break; /* column 0's chunk */
        case M_UNSORTED: {
            upq_page_location t = l[n / 2];
            l[n / 2] = l[n / 2 - 1];
            l[n / 2 - 1] = t;
            break;
        }
        case M_MISSING: oi.page_locations.n = n - 1; target = (uint64_t)l[n - 1].first_row_index + 1; break;
        case M_BEYOND: l[n - 1].first_row_index = (int64_t)ws.rows + 1; break;
        case M_OFF_BY_ONE: l[n / 2].offset += 1; l[n / 2].compressed_page_size -= 1; break;
        case M_ROW_SHIFT: l[n / 2].first_row_index += 1; break;
        }
        st = upq_thrift_encode(&upq_offset_index_desc, &oi, enc, sizeof enc, &elen);
        TU_CHECK_STATUS(st, UPQ_OK);
        if (!TU_CHECK_MSG(elen <= orig_len, "patched index is %zu bytes, room for %u", elen, orig_len)) {
            free(l);
            continue;
        }
        memcpy(bad, file, len);
        memcpy(bad + at, enc, elen); /* bytes after the struct are ignored */
        if (!TU_CHECK_STATUS(rd_open(&f, bad, len, 0, 0, 0), UPQ_OK)) {
            free(l);
            continue;
        }
        /* the index on its own */
        st = upq_page_index_open(&pi, &f.r, 0, 1, UPQ_PAGE_INDEX_OFFSET);
        TU_CHECK_STATUS(st, UPQ_OK);
        WU_RETRY(st, upq_page_index_load(&pi));
        if (want_load_error) {
            const upq_error_info *e = upq_reader_error(&f.r);
            TU_CHECK_STATUS(st, UPQ_ERR_CORRUPT);
            TU_CHECK_INT(e->row_group, 0);
            TU_CHECK_INT(e->column, 1);
            TU_CHECK(e->what && *e->what);
            tu_note("%s: %s (page %d)", mnames[m], e->what ? e->what : "", (int)e->page);
        } else {
            TU_CHECK_STATUS(st, UPQ_OK);
        }
        if (m == M_MISSING) {
            /* the ColumnIndex still lists every page: counts disagree */
            upq_page_index ci;
            const char *what = "";
            TU_CHECK_STATUS(upq_page_index_open(&ci, &f.r, 0, 1, UPQ_PAGE_INDEX_COLUMN), UPQ_OK);
            WU_RETRY(st, upq_page_index_load(&ci));
            TU_CHECK_STATUS(st, UPQ_OK);
            if (st == UPQ_OK) {
                const upq_column_desc *cd = &upq_reader_schema(&f.r)->columns[1];
                TU_CHECK_STATUS(upq_column_index_check(upq_page_index_columns(&ci), n - 1, cd->max_rep,
                                                       cd->max_def, &what), UPQ_ERR_CORRUPT);
                TU_CHECK_STATUS(upq_column_index_check(upq_page_index_columns(&ci), n, cd->max_rep,
                                                       cd->max_def, &what), UPQ_OK);
            }
            upq_page_index_close(&ci);
        }
        upq_page_index_close(&pi);
        /* seeking: right rows (through the header scan) or an error, never wrong rows */
        st = seek_read(&f, 0, 1, target, 5, g, &used);
        if (want_load_error) {
            TU_CHECK_STATUS(st, UPQ_OK);
            TU_CHECK(!used);
        } else {
            /* the target page is not as indexed: back to the header scan */
            TU_CHECK_STATUS(st, UPQ_OK);
            TU_CHECK(!used);
            TU_CHECK_STATUS(upq_reader_error(&f.r)->status, UPQ_OK);
        }
        if (st == UPQ_OK) {
            size_t k;
            TU_CHECK_UINT(g->levels, 5);
            for (k = 0; k < g->levels; k++)
                TU_CHECK_INT(g->vals[k], flat_value((size_t)target + k, 1));
        }
        /* the other column is unaffected and still seeks through its index */
        st = seek_read(&f, 0, 0, target, 1, g, &used);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK(used);
        TU_CHECK_INT(g->vals[0], flat_value((size_t)target, 0));
        rd_close(&f);
        free(l);
    }
    free(bad);
    free(locs);
    free(file);
    free(g);
}

/* ---- a corpus file ---------------------------------------------------------------- */

static void test_corpus(void)
{
    char path[1024];
    uint8_t *data = NULL;
    size_t len = 0;
    rd f;
    uint32_t col;
    tu_case("alltypes_tiny_pages.parquet: every column, seeks against the full read");
    snprintf(path, sizeof path, "%s/data/alltypes_tiny_pages.parquet", tu_corpus_dir());
    if (!TU_CHECK_MSG(tu_read_file(path, &data, &len) == 0, "cannot read %s", path))
        return;
    if (TU_CHECK_STATUS(rd_open(&f, data, len, 0, 0, 0), UPQ_OK)) {
        const upq_schema *s = upq_reader_schema(&f.r);
        for (col = 0; col < s->num_columns; col++) {
            upq_page_index oi, ci;
            upq_status st;
            int32_t t = s->columns[col].physical_type;
            TU_CHECK_STATUS(upq_page_index_open(&oi, &f.r, 0, col, UPQ_PAGE_INDEX_OFFSET), UPQ_OK);
            WU_RETRY(st, upq_page_index_load(&oi));
            TU_CHECK_STATUS(st, UPQ_OK);
            /* parquet-mr writes no ColumnIndex for some columns (INT96) */
            st = upq_page_index_open(&ci, &f.r, 0, col, UPQ_PAGE_INDEX_COLUMN);
            TU_CHECK(st == UPQ_OK || (st == UPQ_DONE && t == UPQ_TYPE_INT96));
            WU_RETRY(st, upq_page_index_load(&ci));
            TU_CHECK(st == UPQ_OK || (st == UPQ_DONE && t == UPQ_TYPE_INT96));
            if (st == UPQ_OK) {
                const char *what = "";
                TU_CHECK_STATUS(upq_column_index_check(upq_page_index_columns(&ci),
                                                       upq_page_index_offsets(&oi)->page_locations.n, 0,
                                                       s->columns[col].max_def, &what), UPQ_OK);
            }
            upq_page_index_close(&ci);
            upq_page_index_close(&oi);
            if (t == UPQ_TYPE_INT64 || t == UPQ_TYPE_DOUBLE) {
                /* values compared as 8-byte words */
                got *full = (got *)calloc(1, sizeof *full);
                size_t rl[4096], rv[4096], nrows, k;
                upq_column_reader c;
                upq_batch b;
                (void)rl;
                (void)rv;
                /* the first 4096 rows: seek targets inside them */
                if (TU_CHECK_STATUS(upq_column_open(&c, &f.r, 0, col), UPQ_OK)) {
                    memset(&b, 0, sizeof b);
                    b.def = full->def;
                    b.values = full->vals;
                    b.cap = 4096;
                    full->levels = full->values = 0;
                    while (full->levels < 4096) {
                        b.def = full->def + full->levels;
                        b.values = full->vals + full->values;
                        b.cap = 4096 - full->levels;
                        WU_RETRY(st, upq_column_read(&c, &b));
                        if (st != UPQ_OK)
                            break;
                        full->levels += b.levels;
                        full->values += b.values_n;
                    }
                    upq_column_close(&c);
                    nrows = full->levels;
                    for (k = 0; k < nrows; k++) {
                        rl[k] = k;
                        rv[k] = k; /* no nulls in this file */
                    }
                    TU_CHECK_UINT(full->values, nrows);
                    for (k = 1; k < nrows; k += 211)
                        compare_seek(&f, 0, col, k, full, rl, rv, nrows, "alltypes_tiny_pages");
                }
                free(full);
            }
        }
        rd_close(&f);
    }
    free(data);
}

int main(void)
{
    test_malformed();
    test_seeks();
    test_corpus();
    test_io();
    return tu_summary();
}
