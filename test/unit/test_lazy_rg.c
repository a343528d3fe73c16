/*
 * On-demand row groups (upq_reader_opts.row_groups LAZY / AUTO): files with
 * one row per row group, written by the library's writer, read back eagerly
 * and lazily. The values must be the same, in order and in random order; the
 * arena's high water must not grow with the number of row groups; bad
 * row-group indexes, AGAIN from the read callback and a truncated footer
 * must behave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"
#include "util/flaky_io.h"
#include "writer_util.h"

#define NCOL 3

static upq_schema_element elems[NCOL + 1];
static uint32_t nelems;

/* Row i: id = i * 7 + 1 (required int64), x = i * 3 unless i % 3 == 0
 * (optional int32), s = "v<i % 101>" unless i % 5 == 0 (optional string). */
static void build_schema(void)
{
    upq_schema_builder b;
    upq_sb_init(&b, elems, NCOL + 1, "lazy");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_column(&b, "x", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &nelems), UPQ_OK);
}

/* A file of `rows` rows, one per row group. */
static int write_file(sink_buf *sink, uint32_t rows)
{
    upq_writer_opts o;
    upq_writer w;
    upq_sink sk;
    size_t need = 0;
    uint8_t *arena;
    uint32_t i;
    upq_status st;
    sink_init(sink, SINK_WHOLE, 1);
    sk = sink_of(sink, 1);
    memset(&o, 0, sizeof o);
    o.row_group_rows = 1;
    if (!TU_CHECK_STATUS(upq_writer_workspace_size(elems, nelems, &o, rows, &need), UPQ_OK))
        return 1;
    arena = (uint8_t *)malloc(need);
    st = upq_writer_init(&w, &sk, elems, nelems, arena, need, &o);
    if (!TU_CHECK_STATUS(st, UPQ_OK)) {
        free(arena);
        return 1;
    }
    for (i = 0; i < rows; i++) {
        int64_t id = (int64_t)i * 7 + 1;
        int32_t x = (int32_t)i * 3;
        char buf[16];
        upq_bytes s;
        snprintf(buf, sizeof buf, "v%u", (unsigned)(i % 101));
        s.ptr = (const uint8_t *)buf;
        s.len = (uint32_t)strlen(buf);
        WU_RETRY(st, upq_writer_set(&w, 0, &id));
        if (st == UPQ_OK)
            WU_RETRY(st, i % 3 ? upq_writer_set(&w, 1, &x) : upq_writer_set_null(&w, 1));
        if (st == UPQ_OK)
            WU_RETRY(st, i % 5 ? upq_writer_set(&w, 2, &s) : upq_writer_set_null(&w, 2));
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_end_row(&w));
        if (!TU_CHECK_STATUS(st, UPQ_OK))
            break;
    }
    if (st == UPQ_OK)
        WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    free(arena);
    return st != UPQ_OK;
}

/* Reads row group g (one row) and checks its three values against row g.
 * Returns 0 when all match. */
static int check_row(upq_reader *r, uint32_t g)
{
    uint32_t c;
    int bad = 0;
    for (c = 0; c < NCOL; c++) {
        upq_column_reader cr;
        upq_batch b;
        uint16_t def[4];
        uint8_t vals[4 * 16];
        upq_status st = upq_column_open(&cr, r, g, c);
        if (st != UPQ_OK)
            return 1;
        memset(&b, 0, sizeof b);
        b.def = def;
        b.values = vals;
        b.cap = 4;
        do
            st = upq_column_read(&cr, &b);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK || b.levels != 1) {
            upq_column_close(&cr);
            return 1;
        }
        if (c == 0) {
            int64_t v;
            memcpy(&v, vals, sizeof v);
            bad |= v != (int64_t)g * 7 + 1;
        } else if (c == 1) {
            int32_t v;
            memcpy(&v, vals, sizeof v);
            bad |= g % 3 ? (def[0] != 1 || v != (int32_t)g * 3) : def[0] != 0;
        } else {
            upq_bytes v;
            char buf[16];
            snprintf(buf, sizeof buf, "v%u", (unsigned)(g % 101));
            memcpy(&v, vals, sizeof v);
            bad |= g % 5 ? (def[0] != 1 || v.len != strlen(buf) || memcmp(v.ptr, buf, v.len) != 0)
                         : def[0] != 0;
        }
        upq_column_close(&cr);
    }
    return bad;
}

/* Opens the file in `mode` within arena[0..len), reading it through `io`. */
static upq_status open_mode(upq_reader *r, const upq_io *io, uint8_t *arena, size_t len, int mode)
{
    upq_reader_opts ro;
    upq_status st;
    memset(&ro, 0, sizeof ro);
    ro.row_groups = (uint8_t)mode;
    upq_reader_init(r, io, arena, len, &ro);
    do
        st = upq_reader_open(r);
    while (st == UPQ_AGAIN);
    return st;
}

static upq_status load(upq_reader *r, uint32_t g)
{
    upq_status st;
    do
        st = upq_reader_row_group_load(r, g);
    while (st == UPQ_AGAIN);
    return st;
}

/* Every row group in order, then in a scrambled order; returns the arena's
 * high water, or 0 on a failure (reported). */
static size_t read_all(const sink_buf *f, uint32_t rows, int mode, size_t arena_len, int flaky)
{
    tu_mem_src src;
    tu_flaky fl;
    static const tu_flaky_cfg flaky_cfg = {"random+again", TU_CHUNK_RANDOM, 0, 25};
    upq_io io = {0};
    upq_reader r;
    uint8_t *arena = (uint8_t *)malloc(arena_len);
    uint32_t g, bad = 0, k;
    upq_status st;
    size_t hw;
    tu_mem_src_init(&src, f->p, f->n);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = f->n;
    if (flaky) { /* short reads and AGAIN */
        tu_flaky_init(&fl, &flaky_cfg, tu_mem_read_at, &src, 77);
        io.ctx = &fl;
        io.read_at = tu_flaky_read_at;
    }
    st = open_mode(&r, &io, arena, arena_len, mode);
    if (!TU_CHECK_MSG(st == UPQ_OK, "open (mode %d, %zu B): %s (%s; needed %zu)", mode, arena_len,
                      upq_strerror(st), upq_reader_error(&r)->what,
                      upq_arena_needed(&r.arena))) {
        free(arena);
        return 0;
    }
    TU_CHECK_UINT(upq_reader_num_row_groups(&r), rows);
    TU_CHECK_INT(upq_reader_lazy(&r), mode == UPQ_ROW_GROUPS_LAZY);
    if (mode == UPQ_ROW_GROUPS_LAZY) {
        TU_CHECK(upq_reader_row_group(&r, 0) == NULL); /* not loaded yet */
        TU_CHECK(upq_reader_chunk(&r, 0, 0) == NULL);
    }
    for (g = 0; g < rows; g++) {
        st = load(&r, g);
        if (st != UPQ_OK || !upq_reader_row_group(&r, g) ||
            upq_reader_row_group(&r, g)->num_rows != 1 || check_row(&r, g)) {
            if (bad++ < 3)
                TU_CHECK_MSG(0, "mode %d: row group %u in order: %s (%s)", mode, (unsigned)g,
                             upq_strerror(st), upq_reader_error(&r)->what);
        }
    }
    /* random access: a stride coprime to rows (up to 1500 of them) */
    for (k = 0, g = rows / 2; k < rows && k < 1500; k++,
        g = (uint32_t)(((uint64_t)g + 7919u) % rows)) {
        st = load(&r, g);
        if (st != UPQ_OK || check_row(&r, g)) {
            if (bad++ < 3)
                TU_CHECK_MSG(0, "mode %d: row group %u at random: %s (%s)", mode, (unsigned)g,
                             upq_strerror(st), upq_reader_error(&r)->what);
        }
        if (mode == UPQ_ROW_GROUPS_LAZY && g > 0 && upq_reader_row_group(&r, g - 1))
            bad++, TU_CHECK_MSG(0, "row group %u still there after loading %u", g - 1, g);
    }
    TU_CHECK_MSG(bad == 0, "mode %d: %u row groups wrong", mode, (unsigned)bad);
    /* no such row group: an error that leaves the reader usable */
    TU_CHECK_STATUS(upq_reader_row_group_load(&r, rows), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(load(&r, 0), UPQ_OK);
    TU_CHECK(check_row(&r, 0) == 0);
    hw = upq_arena_high_water(&r.arena);
    free(arena);
    return bad ? 0 : hw;
}

static void test_lazy_equals_eager(void)
{
    sink_buf f1k, f10k;
    size_t e1, l1, e10, l10;
    tu_case("lazy row groups read what eager ones read; memory does not grow with them");
    if (write_file(&f1k, 1000) || write_file(&f10k, 10000))
        return;
    e1 = read_all(&f1k, 1000, UPQ_ROW_GROUPS_EAGER, 64u << 20, 0);
    l1 = read_all(&f1k, 1000, UPQ_ROW_GROUPS_LAZY, 16384, 0);
    e10 = read_all(&f10k, 10000, UPQ_ROW_GROUPS_EAGER, 64u << 20, 0);
    l10 = read_all(&f10k, 10000, UPQ_ROW_GROUPS_LAZY, 16384, 0);
    tu_note("arena high water: eager %zu B (1k row groups), %zu B (10k); lazy %zu B, %zu B", e1,
            e10, l1, l10);
    TU_CHECK(e1 && l1 && e10 && l10);
    TU_CHECK_UINT(l10, l1);           /* independent of the number of row groups */
    TU_CHECK(e10 > 9 * e1 / 2);       /* ... as eager decoding is not */
    TU_CHECK(l1 < 16384);
    /* the same through a callback giving short reads and AGAIN */
    TU_CHECK_UINT(read_all(&f1k, 1000, UPQ_ROW_GROUPS_LAZY, 16384, 1), l1);
    sink_free(&f1k);
    sink_free(&f10k);
}

/* AUTO: eager when the row groups fit in half the arena, lazy otherwise. */
static void test_auto(void)
{
    sink_buf f;
    tu_mem_src src;
    upq_io io = {0};
    upq_reader r;
    uint8_t *arena = (uint8_t *)malloc(64u << 20);
    tu_case("AUTO picks eager for a roomy arena, lazy for a small one");
    if (write_file(&f, 2000)) {
        free(arena);
        return;
    }
    tu_mem_src_init(&src, f.p, f.n);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = f.n;
    TU_CHECK_STATUS(open_mode(&r, &io, arena, 64u << 20, UPQ_ROW_GROUPS_AUTO), UPQ_OK);
    TU_CHECK_INT(upq_reader_lazy(&r), 0);
    TU_CHECK_STATUS(open_mode(&r, &io, arena, 32768, UPQ_ROW_GROUPS_AUTO), UPQ_OK);
    TU_CHECK_INT(upq_reader_lazy(&r), 1);
    TU_CHECK_STATUS(load(&r, 1999), UPQ_OK);
    TU_CHECK(check_row(&r, 1999) == 0);
    /* too small even for lazy: NOMEM with the size needed */
    TU_CHECK_STATUS(open_mode(&r, &io, arena, 600, UPQ_ROW_GROUPS_AUTO), UPQ_ERR_NOMEM);
    TU_CHECK(upq_arena_needed(&r.arena) > 600);
    sink_free(&f);
    free(arena);
}

/* A footer cut inside the row groups: eager fails at open; lazy opens only
 * if the Thrift walk passes, and never reads out of bounds. */
static void test_corrupt(void)
{
    sink_buf f;
    tu_mem_src src;
    upq_io io = {0};
    upq_reader r;
    uint8_t *arena = (uint8_t *)malloc(1u << 20);
    uint8_t *copy;
    size_t flen, i;
    unsigned opened = 0, failed = 0;
    tu_case("flipped footer bytes: lazy loads give errors, not crashes");
    if (write_file(&f, 300)) {
        free(arena);
        return;
    }
    copy = (uint8_t *)malloc(f.n);
    flen = (size_t)f.p[f.n - 8] | (size_t)f.p[f.n - 7] << 8 | (size_t)f.p[f.n - 6] << 16;
    for (i = 0; i < 400; i++) {
        size_t at = f.n - 8 - flen + (i * 7919u) % flen;
        uint32_t g;
        upq_status st = UPQ_OK;
        memcpy(copy, f.p, f.n);
        copy[at] ^= (uint8_t)(1u << (i % 8));
        tu_mem_src_init(&src, copy, f.n);
        io.ctx = &src;
        io.read_at = tu_mem_read_at;
        io.size = f.n;
        if (open_mode(&r, &io, arena, 1u << 20, UPQ_ROW_GROUPS_LAZY) != UPQ_OK)
            continue;
        opened++;
        for (g = 0; g < upq_reader_num_row_groups(&r) && st == UPQ_OK; g++) {
            st = load(&r, g);
            if (st == UPQ_OK)
                (void)check_row(&r, g);
        }
        failed += st != UPQ_OK;
        if (st != UPQ_OK) /* errors are final and say so again */
            TU_CHECK_STATUS(upq_reader_row_group_load(&r, 0), st);
    }
    tu_note("%u of 400 damaged footers opened lazily, %u of those failed a load", opened, failed);
    TU_CHECK(opened > 0);
    free(copy);
    free(arena);
    sink_free(&f);
}

int main(void)
{
    build_schema();
    test_lazy_equals_eager();
    test_auto();
    test_corrupt();
    return tu_summary();
}
