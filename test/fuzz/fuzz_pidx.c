/*
 * libFuzzer target: page indexes and OffsetIndex seeks.
 *
 * The input is a Parquet file. It is opened, and for every column chunk
 * (at most 24) its OffsetIndex and ColumnIndex are loaded, checked
 * (upq_offset_index_check, and the ColumnIndex against the OffsetIndex's
 * page count) and, when one loaded, searched; then the chunk is read from
 * a row inside it with upq_column_seek (through the index when it is usable,
 * else the header scan). Each seek runs twice, with whole reads and with
 * reads of a few bytes that say "again" every other call: both must fail,
 * or both succeed with the same levels and values (the seek is resumable and its
 * result does not depend on the I/O); then once more by the header scan
 * (no_page_index). Any violation
 * aborts; the sanitizers catch out-of-bounds accesses and undefined
 * behaviour on the way.
 *
 * The file is opened twice per input (with reads of up to 61 bytes that
 * say "again" every other call, then with whole reads), and each run on a
 * chunk starts from a copy of the opened reader (its struct and the arena
 * bytes it uses; the header scan sets the reader's no_page_index, which
 * only seeks consult) rather than from another parse of the footer, which
 * took most of an input's time.
 *
 * Seeds: the corpus files (make_seeds.sh pidx). Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "fuzz_src.h"
#include "uparquet/page_index.h"

#define ARENA_BYTES (8u << 20)
#define MAX_SPINS 1000000u
#define MAX_LEVELS 512u

static uint64_t arena[ARENA_BYTES / 8];

/* An opened reader kept for restoring: the struct and the arena's bytes in
 * use (from the bottom, and the top used for on-demand row groups). */
typedef struct snap {
    upq_reader r;
    size_t low, high; /* arena bytes [0, low) and [cap - high, cap) */
    uint8_t *bytes;   /* ARENA_BYTES */
} snap;

static uint8_t snap_bytes[ARENA_BYTES];
static snap opened = {.bytes = snap_bytes};

static void snap_take(snap *sn, const upq_reader *r)
{
    const upq_arena *a = &r->arena;
    sn->r = *r;
    sn->low = a->used;
#if UPQ_WITH_LAZY_ROW_GROUPS
    sn->high = a->top & ~(size_t)1;
#else
    sn->high = 0;
#endif
    memcpy(sn->bytes, a->base, sn->low);
    memcpy(sn->bytes + a->cap - sn->high, a->base + a->cap - sn->high, sn->high);
}

static void snap_restore(const snap *sn, upq_reader *r)
{
    *r = sn->r;
    memcpy(r->arena.base, sn->bytes, sn->low);
    memcpy(r->arena.base + r->arena.cap - sn->high, sn->bytes + r->arena.cap - sn->high, sn->high);
}

typedef struct result {
    upq_status st;
    size_t levels, values;
    uint16_t def[MAX_LEVELS], rep[MAX_LEVELS];
    uint8_t vals[MAX_LEVELS * 16];
} result;

static result res[3];

/* Seeks chunk (rg, col) to `row` and reads up to MAX_LEVELS entries. */
static void seek_run(upq_reader *r, uint32_t rg, uint32_t col, uint64_t row, result *o)
{
    upq_column_reader c;
    upq_batch b;
    uint64_t skipped = 0;
    unsigned spins = 0;
    const upq_column_desc *cd = &r->schema.columns[col];
    size_t vs = upq_value_size(cd->physical_type);
    upq_status st;
    memset(o, 0, sizeof *o);
    st = upq_column_open(&c, r, rg, col);
    if (st != UPQ_OK) {
        o->st = st;
        return;
    }
    do
        st = upq_column_seek(&c, row, &skipped);
    while (st == UPQ_AGAIN && ++spins < MAX_SPINS);
    while (st == UPQ_OK && o->levels < MAX_LEVELS) {
        memset(&b, 0, sizeof b);
        b.def = o->def + o->levels;
        b.rep = o->rep + o->levels;
        b.values = o->vals + o->values * vs;
        b.cap = MAX_LEVELS - o->levels;
        if (vs * (o->values + b.cap) > sizeof o->vals)
            break;
        do
            st = upq_column_read(&c, &b);
        while (st == UPQ_AGAIN && ++spins < MAX_SPINS);
        if (st == UPQ_OK) {
            /* byte arrays point into page buffers: keep their lengths only */
            if (cd->physical_type == UPQ_TYPE_BYTE_ARRAY ||
                cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                size_t k;
                for (k = 0; k < b.values_n; k++) {
                    upq_bytes *v = (upq_bytes *)(void *)(o->vals + (o->values + k) * vs);
                    uint32_t h = 2166136261u, i;
                    for (i = 0; i < v->len; i++)
                        h = (h ^ v->ptr[i]) * 16777619u;
                    memset(v, 0, sizeof *v);
                    v->len = h;
                }
            }
            o->levels += b.levels;
            o->values += b.values_n;
        }
    }
    o->st = st == UPQ_DONE ? UPQ_OK : st;
    upq_column_close(&c);
}

/* After an error the runs may have stopped at different points (a batch
 * reads ahead), so then both must fail, not necessarily alike. */
static int same(const result *a, const result *b, size_t vs)
{
    if (a->st < 0 || b->st < 0)
        return (a->st < 0) == (b->st < 0);
    return a->st == b->st && a->levels == b->levels && a->values == b->values &&
           memcmp(a->def, b->def, a->levels * sizeof(uint16_t)) == 0 &&
           memcmp(a->rep, b->rep, a->levels * sizeof(uint16_t)) == 0 &&
           memcmp(a->vals, b->vals, a->values * vs) == 0;
}

static int open_reader(upq_reader *r, upq_io *io, src *s, const uint8_t *data, size_t size, size_t chunk,
                       int no_index)
{
    upq_reader_opts o;
    unsigned spins = 0;
    upq_status st;
    memset(s, 0, sizeof *s);
    s->data = data;
    s->size = size;
    s->chunk = chunk;
    io->ctx = s;
    io->read_at = src_read_at;
    io->size = size;
    memset(&o, 0, sizeof o);
    o.no_page_index = (uint8_t)no_index;
    upq_reader_init(r, io, arena, sizeof arena, &o);
    do
        st = upq_reader_open(r);
    while (st == UPQ_AGAIN && ++spins < MAX_SPINS);
    return st == UPQ_OK;
}

/* Loads and checks one chunk's indexes; returns a row to seek to. */
static uint64_t probe_indexes(upq_reader *r, uint32_t rg, uint32_t col, uint64_t salt)
{
    upq_page_index oi, ci;
    const upq_offset_index *o = NULL;
    int64_t nrows = r->meta.row_groups.v[rg].num_rows;
    uint64_t row = nrows > 0 ? salt % (uint64_t)nrows : 0;
    if (upq_page_index_open(&oi, r, rg, col, UPQ_PAGE_INDEX_OFFSET) == UPQ_OK &&
        upq_page_index_load(&oi) == UPQ_OK) {
        uint32_t k;
        o = upq_page_index_offsets(&oi);
        k = upq_offset_index_find(o, row);
        if (k >= o->page_locations.n || (uint64_t)o->page_locations.v[k].first_row_index > row)
            abort();
        /* a row inside the page found, past its start */
        row = (uint64_t)o->page_locations.v[o->page_locations.n / 2].first_row_index + salt % 7u;
        if (nrows > 0 && row >= (uint64_t)nrows)
            row = (uint64_t)nrows - 1;
    }
    if (upq_page_index_open(&ci, r, rg, col, UPQ_PAGE_INDEX_COLUMN) == UPQ_OK &&
        upq_page_index_load(&ci) == UPQ_OK && o) {
        const char *what = "";
        const upq_column_desc *cd = &r->schema.columns[col];
        (void)upq_column_index_check(upq_page_index_columns(&ci), o->page_locations.n, cd->max_rep,
                                     cd->max_def, &what);
    }
    upq_page_index_close(&ci);
    upq_page_index_close(&oi);
    return row;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static upq_reader r;
    upq_io io = {0};
    src s;
    uint32_t rg, col, chunks = 0;
    uint64_t salt = size ? data[size / 3] : 0;
    /* opening resumes at every point: it must succeed read by read too */
    if (!open_reader(&r, &io, &s, data, size, 1u + size % 61u, 0))
        return 0;
    if (!open_reader(&r, &io, &s, data, size, 0, 0))
        return 0;
    snap_take(&opened, &r);
    for (rg = 0; rg < r.meta.row_groups.n && chunks < 24; rg++) {
        for (col = 0; col < r.schema.num_columns && chunks < 24; col++, chunks++) {
            const upq_column_desc *cd = &r.schema.columns[col];
            size_t vs = upq_value_size(cd->physical_type);
            uint64_t row;
            snap_restore(&opened, &r);
            s.chunk = 0;
            if (!upq_reader_chunk(&r, rg, col))
                continue;
            row = probe_indexes(&r, rg, col, salt + col);
            seek_run(&r, rg, col, row, &res[0]);
            if (res[0].st == UPQ_ERR_NOMEM)
                continue;
            snap_restore(&opened, &r);
            s.chunk = 1u + (size + col) % 5u;
            seek_run(&r, rg, col, row, &res[1]);
            if (res[1].st != UPQ_ERR_NOMEM && !same(&res[0], &res[1], vs)) {
                fprintf(stderr, "fuzz_pidx: rg %u col %u row %llu: chunked seek differs (%d vs %d)\n",
                        (unsigned)rg, (unsigned)col, (unsigned long long)row, res[0].st, res[1].st);
                abort();
            }
            /* the header scan over the same bytes, for the sanitizers (an
             * index can lie consistently about where a page's rows start,
             * which no check of the target page alone can see) */
            snap_restore(&opened, &r);
            r.opts.no_page_index = 1;
            s.chunk = 0;
            seek_run(&r, rg, col, row, &res[2]);
        }
    }
    return 0;
}
