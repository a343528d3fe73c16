/*
 * Reads every column of every row group of every corpus file through the
 * column reader, and checks that the result (levels and values, serialised)
 * is the same
 *   - in every I/O pattern of tu_flaky_cfgs (1 byte, primes, random, again),
 *   - with pages lent by the io (upq_io.lend, whole and short, with again),
 *   - in batch sizes 1, 7 and 1024,
 *   - after skipping k rows (equal to the full read from row k on),
 *   - and that data cut short (reads past a point fail as end of file)
 *     gives an error or exactly the full result, never something else.
 * Files that must fail, and how, are listed below. Values themselves are
 * checked against DuckDB by test/interop (upq cat vs DuckDB).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "util/check.h"
#include "util/files.h"
#include "util/sbuf.h"
#include "util/flaky_io.h"
#include "upq_port.h"

static const struct {
    const char *name;
    upq_status status;
    const char *why;
} expected[] = {
    {"datapage_v1-corrupt-checksum.parquet", UPQ_ERR_CRC, "a data page's CRC does not match"},
    {"rle-dict-uncompressed-corrupt-checksum.parquet", UPQ_ERR_CRC, "a page's CRC does not match"},
    {"ARROW-GH-41317.parquet", UPQ_ERR_CORRUPT, "chunk paths differ from the schema (open)"},
    {"ARROW-RS-GH-6229-DICTHEADER.parquet", UPQ_ERR_CORRUPT, "negative dictionary size (open: chunk range)"},
    {"PARQUET-1481.parquet", UPQ_ERR_CORRUPT, "corrupt schema type (open)"},
    {"ARROW-RS-GH-6229-LEVELS.parquet", UPQ_ERR_CORRUPT, "a page has too few repetition levels"},
    {"ARROW-GH-41321.parquet", UPQ_ERR_CORRUPT, "fewer levels than the page's num_values"},
    {"ARROW-GH-45185.parquet", UPQ_ERR_CORRUPT, "repetition levels start with 1"},
    {"ARROW-GH-47662.parquet", UPQ_ERR_CORRUPT, "a required column has fewer values than slots"},
    /* its 1 GiB dictionary page is over the default max_page_size (the
     * conformance stage reads it with the limit raised) */
    {"large_string_map.brotli.parquet", UPQ_WITH_BROTLI ? UPQ_ERR_LIMIT : UPQ_ERR_UNSUPPORTED,
     UPQ_WITH_BROTLI ? "a page over max_page_size" : "BROTLI is not in this build"},
    {"lz4_raw_compressed.parquet", UPQ_WITH_LZ4 ? UPQ_OK : UPQ_ERR_UNSUPPORTED, "LZ4_RAW"},
    {"lz4_raw_compressed_larger.parquet", UPQ_WITH_LZ4 ? UPQ_OK : UPQ_ERR_UNSUPPORTED, "LZ4_RAW"},
    {"hadoop_lz4_compressed.parquet", UPQ_WITH_LZ4 ? UPQ_OK : UPQ_ERR_UNSUPPORTED, "LZ4"},
    {"hadoop_lz4_compressed_larger.parquet", UPQ_WITH_LZ4 ? UPQ_OK : UPQ_ERR_UNSUPPORTED, "LZ4"},
    {"non_hadoop_lz4_compressed.parquet", UPQ_WITH_LZ4 ? UPQ_OK : UPQ_ERR_UNSUPPORTED, "LZ4"},
};

/* One column read: the serialisation and where each row starts in it. */
typedef struct col_result {
    sbuf data;
    size_t *row_start;
    size_t rows, rows_cap;
} col_result;

static void col_result_free(col_result *r)
{
    free(r->data.p);
    free(r->row_start);
    memset(r, 0, sizeof *r);
}

/* batches whose definition levels do not count their values */
static unsigned long inconsistent_batches;

static void serialise(col_result *out, const upq_column_desc *cd, const upq_batch *b)
{
    size_t vsize = upq_value_size(cd->physical_type), v = 0, i;
    for (i = 0; i < b->levels; i++)
        v += !cd->max_def || b->def[i] == cd->max_def;
    if (v != b->values_n) {
        inconsistent_batches++;
        return;
    }
    v = 0;
    for (i = 0; i < b->levels; i++) {
        uint16_t d = cd->max_def ? b->def[i] : 0, r = cd->max_rep ? b->rep[i] : 0;
        if (r == 0) {
            if (out->rows == out->rows_cap) {
                out->rows_cap = out->rows_cap * 2 + 16;
                out->row_start = (size_t *)realloc(out->row_start, out->rows_cap * sizeof(size_t));
            }
            out->row_start[out->rows++] = out->data.n;
        }
        sbuf_put(&out->data, &d, 2);
        sbuf_put(&out->data, &r, 2);
        if (d == cd->max_def) {
            const uint8_t *val = (const uint8_t *)b->values + v * vsize;
            if (cd->physical_type == UPQ_TYPE_BYTE_ARRAY ||
                cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                const upq_bytes *bv = (const upq_bytes *)(const void *)val;
                sbuf_put(&out->data, &bv->len, 4);
                sbuf_put(&out->data, bv->ptr, bv->len);
            } else {
                sbuf_put(&out->data, val, vsize);
            }
            v++;
        }
    }
}

static uint8_t *arena;
#define ARENA (256u << 20)

typedef struct run_cfg {
    const tu_flaky_cfg *io;
    size_t batch;
    uint64_t skip;   /* rows to skip first */
    uint64_t cut;    /* reads at or past this offset (before the footer) see end of file */
    size_t arena;    /* arena bytes (0: the large default) */
    int lend;        /* the io lends too (tu_flaky_lend: whole, short and again) */
    int lent;        /* upq_column_read_lent: values lent from the page where it can */
    int lazy_def;    /* upq_column_def_if_nulls: def read only for batches with nulls */
} run_cfg;

/* lends over all files: whole (pages decoded in place) and short (read);
 * batches whose values upq_column_read_lent lent, and those of them not
 * aligned for their type (must be none) */
static unsigned long lends_whole, lends_short, lent_batches, lent_misaligned;
/* batches without nulls read with lazy_def whose def the reader left as it
 * was, and those with nulls in which it did not write every level */
static unsigned long lazy_untouched, lazy_unwritten;
#define DEF_POISON 0xA5A5u

/* Reads column `col` of row group `rg`; returns the status (first error). */
static upq_status read_column(upq_reader *r, uint32_t rg, uint32_t col, const run_cfg *cfg,
                              col_result *out)
{
    const upq_column_desc *cd = &upq_reader_schema(r)->columns[col];
    upq_column_reader c;
    upq_batch b;
    upq_status st;
    unsigned spins = 0;
    size_t vsize = upq_value_size(cd->physical_type);
    uint16_t *def = (uint16_t *)malloc(cfg->batch * 2), *rep = (uint16_t *)malloc(cfg->batch * 2);
    void *vals = malloc(cfg->batch * (vsize ? vsize : 1));

    memset(out, 0, sizeof *out);
    st = upq_column_open(&c, r, rg, col);
    if (st == UPQ_OK && cfg->lazy_def)
        upq_column_def_if_nulls(&c, 1);
    if (st == UPQ_OK && cfg->skip) {
        uint64_t skipped = 0;
        do
            st = upq_column_skip(&c, cfg->skip, &skipped);
        while (st == UPQ_AGAIN && ++spins < 100000000u);
    }
    while (st == UPQ_OK) {
        b.def = def;
        b.rep = rep;
        b.values = vals;
        b.cap = cfg->batch;
        if (cfg->lazy_def)
            for (size_t k = 0; k < cfg->batch; k++)
                def[k] = DEF_POISON;
        if (cfg->lent) {
            const void *lv = NULL;
            st = upq_column_read_lent(&c, &b, &lv);
            if (st == UPQ_OK && lv != vals) {
                lent_batches++;
                lent_misaligned += vsize == 0 || (uintptr_t)lv % vsize != 0;
                b.values = (void *)(uintptr_t)lv; /* serialised from where they were lent */
            }
        } else {
            st = upq_column_read(&c, &b);
        }
        if (st == UPQ_AGAIN) {
            if (++spins > 100000000u)
                break;
            st = UPQ_OK;
            continue;
        }
        if (st == UPQ_OK && cfg->lazy_def && cd->max_def) {
            size_t k, poisoned = 0;
            for (k = 0; k < b.levels; k++)
                poisoned += def[k] == DEF_POISON;
            if (b.values_n == b.levels) {
                /* no nulls: every level is max_def, as the caller knows */
                lazy_untouched += poisoned == b.levels;
                for (k = 0; k < b.levels; k++)
                    def[k] = cd->max_def;
            } else if (poisoned) {
                lazy_unwritten++;
                for (k = 0; k < b.levels; k++) /* a level serialise can take */
                    def[k] = def[k] == DEF_POISON ? 0 : def[k];
            }
        }
        if (st == UPQ_OK)
            serialise(out, cd, &b);
    }
    if (st == UPQ_DONE)
        st = UPQ_OK;
    upq_column_close(&c);
    free(def);
    free(rep);
    free(vals);
    return st;
}

typedef struct file_result {
    upq_status status;
    col_result *cols; /* rg-major */
    size_t ncols;
} file_result;

static void file_result_free(file_result *f)
{
    for (size_t i = 0; i < f->ncols; i++)
        col_result_free(&f->cols[i]);
    free(f->cols);
    memset(f, 0, sizeof *f);
}

static upq_status read_file(const uint8_t *data, size_t len, const run_cfg *cfg, file_result *res,
                            uint64_t *footer_start)
{
    tu_cut_src src;
    tu_flaky fl;
    upq_reader r;
    upq_status st;
    unsigned spins = 0;
    tu_mem_src_init(&src.mem, data, len);
    src.cut = cfg->cut;
    src.footer_start = footer_start ? *footer_start : len;
    tu_flaky_init(&fl, cfg->io, tu_cut_read_at, &src, tu_seed());
    upq_io io = {&fl, tu_flaky_read_at, len, cfg->lend ? tu_flaky_lend : NULL};
    upq_reader_init(&r, &io, cfg->arena ? arena + ARENA - cfg->arena : arena,
                    cfg->arena ? cfg->arena : ARENA, NULL);
    memset(res, 0, sizeof *res);
    do
        st = upq_reader_open(&r);
    while (st == UPQ_AGAIN && ++spins < 100000000u);
    if (st == UPQ_OK) {
        const upq_file_metadata *m = upq_reader_metadata(&r);
        const upq_schema *s = upq_reader_schema(&r);
        if (footer_start)
            *footer_start = r.footer_start;
        res->ncols = (size_t)m->row_groups.n * s->num_columns;
        res->cols = (col_result *)calloc(res->ncols ? res->ncols : 1, sizeof *res->cols);
        for (uint32_t g = 0; g < m->row_groups.n && st == UPQ_OK; g++)
            for (uint32_t c = 0; c < s->num_columns && st == UPQ_OK; c++)
                st = read_column(&r, g, c, cfg, &res->cols[(size_t)g * s->num_columns + c]);
        if (st != UPQ_OK) {
            const upq_error_info *e = upq_reader_error(&r);
            tu_note("%s at rg %d col %d page %d offset %lld", e->what ? e->what : "?", e->row_group,
                    e->column, e->page, (long long)e->offset);
        }
    }
    res->status = st;
    lends_whole += fl.lends_whole;
    lends_short += fl.lends_short;
    return st;
}

static int same_cols(const col_result *a, const col_result *b)
{
    return a->data.n == b->data.n && (a->data.n == 0 || memcmp(a->data.p, b->data.p, a->data.n) == 0);
}

static int same_files(const file_result *a, const file_result *b)
{
    if (a->status != b->status || a->ncols != b->ncols)
        return 0;
    /* a failing read stops at a point that depends on the batch size: only
     * its status must agree */
    if (a->status != UPQ_OK)
        return 1;
    for (size_t i = 0; i < a->ncols; i++)
        if (!same_cols(&a->cols[i], &b->cols[i])) {
            size_t k = 0, n = a->cols[i].data.n < b->cols[i].data.n ? a->cols[i].data.n : b->cols[i].data.n;
            while (k < n && a->cols[i].data.p[k] == b->cols[i].data.p[k])
                k++;
            tu_note("column %zu differs at byte %zu (sizes %zu, %zu)", i, k, a->cols[i].data.n,
                    b->cols[i].data.n);
            return 0;
        }
    return 1;
}

static void test_file(const char *path)
{
    const char *name = tu_basename(path);
    uint8_t *data;
    size_t len;
    upq_status expect = UPQ_OK;
    file_result full, other;
    run_cfg cfg = {&tu_flaky_cfgs[0], 1024, 0, UINT64_MAX, 0, 0, 0, 0};
    uint64_t footer_start = 0;

    if (tu_read_file(path, &data, &len) != 0) {
        TU_CHECK_MSG(0, "%s: cannot read", path);
        return;
    }
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
        if (strcmp(name, expected[k].name) == 0)
            expect = expected[k].status;
    tu_case("%s", name);
    read_file(data, len, &cfg, &full, &footer_start);
    TU_CHECK_MSG(full.status == expect, "%s: read gave %s, expected %s", name,
                 upq_strerror(full.status), upq_strerror(expect));

    /* every I/O pattern and batch size gives the same */
    for (size_t i = 1; i < tu_flaky_ncfgs; i++) {
        run_cfg c2 = {&tu_flaky_cfgs[i], i % 2 ? 7 : 1, 0, UINT64_MAX, 0, 0, (int)(i % 2), i % 3 == 1};
        if (!tu_repeat_keep())
            continue;
        if (len > (1u << 20) && c2.batch == 1)
            c2.batch = 7; /* keep large files quick */
        read_file(data, len, &c2, &other, NULL);
        TU_CHECK_MSG(same_files(&full, &other), "%s: I/O pattern %s batch %zu differs (%s vs %s)",
                     name, tu_flaky_cfgs[i].name, c2.batch, upq_strerror(other.status),
                     upq_strerror(full.status));
        file_result_free(&other);
    }

    /* the same through lend: in place when lent whole, read when lent short,
     * in every I/O pattern (short lends, again) */
    for (size_t i = 0; i < tu_flaky_ncfgs; i++) {
        run_cfg c6 = {&tu_flaky_cfgs[i], i % 2 ? 1024 : 7, 0, UINT64_MAX, 0, 1, i % 3 == 0, i % 2 == 0};
        if (!tu_repeat_keep())
            continue;
        read_file(data, len, &c6, &other, NULL);
        TU_CHECK_MSG(same_files(&full, &other), "%s: lend, I/O pattern %s batch %zu differs (%s vs %s)",
                     name, tu_flaky_cfgs[i].name, c6.batch, upq_strerror(other.status),
                     upq_strerror(full.status));
        file_result_free(&other);
    }

    if (full.status == UPQ_OK) {
        /* the planned workspace is enough to read every column one at a time */
        upq_reader r;
        tu_mem_src src;
        static upq_workspace ws;
        upq_status st;
        tu_mem_src_init(&src, data, len);
        upq_io io = {&src, tu_mem_read_at, len, NULL};
        upq_reader_init(&r, &io, arena, ARENA, NULL);
        st = upq_reader_open(&r);
        upq_workspace_init(&ws);
        if (st == UPQ_OK)
            st = upq_reader_workspace_size(&r, &ws);
        TU_CHECK_MSG(st == UPQ_OK && ws.sequential >= ws.footer && ws.concurrent >= ws.sequential,
                     "%s: workspace planning gave %s", name, upq_strerror(st));
        if (st == UPQ_OK) {
            run_cfg c5 = {&tu_flaky_cfgs[0], 1024, 0, UINT64_MAX, ws.sequential, 0, 0, 0};
            read_file(data, len, &c5, &other, NULL);
            TU_CHECK_MSG(same_files(&full, &other), "%s: reading in the planned %zu bytes gave %s",
                         name, ws.sequential, upq_strerror(other.status));
            file_result_free(&other);
            tu_note("%s: arena %zu bytes (footer %zu)", name, ws.sequential, ws.footer);
        }
    }

    if (full.status == UPQ_OK && full.ncols) {
        /* skipping k rows equals the full read from row k */
        uint64_t rows0 = full.cols[0].rows;
        uint64_t ks[] = {1, rows0 / 2, rows0 ? rows0 - 1 : 0, rows0, rows0 + 5};
        for (size_t t = 0; t < 5; t++) {
            run_cfg c3 = {&tu_flaky_cfgs[t % tu_flaky_ncfgs], 97, ks[t], UINT64_MAX, 0, (int)(t & 1), 0, 0};
            int ok = 1;
            if (ks[t] == 0 || !tu_repeat_keep())
                continue;
            read_file(data, len, &c3, &other, NULL);
            ok = other.status == UPQ_OK && other.ncols == full.ncols;
            for (size_t i = 0; ok && i < full.ncols; i++) {
                const col_result *f = &full.cols[i];
                /* only columns of row group 0 have rows0 rows; others compare their own */
                size_t k = ks[t] < f->rows ? f->row_start[ks[t]] : f->data.n;
                ok = other.cols[i].data.n == f->data.n - k &&
                     memcmp(other.cols[i].data.p ? other.cols[i].data.p : (uint8_t *)"", f->data.p ? f->data.p + k : (uint8_t *)"",
                            f->data.n - k) == 0;
                if (!ok)
                    tu_note("skip %llu: column %zu differs", (unsigned long long)ks[t], i);
            }
            TU_CHECK_MSG(ok, "%s: skip %llu rows differs from the full read", name,
                         (unsigned long long)ks[t]);
            file_result_free(&other);
        }

        /* data cut short: an error, or (cut after every chunk) the same result */
        {
            uint64_t rng = tu_seed() ^ len;
            int bad = 0;
            for (int t = 0; t < 24; t++) {
                if (!tu_repeat_keep())
                    continue;
                run_cfg c4 = {&tu_flaky_cfgs[0], 1024, 0, 4 + tu_rand_below(&rng, footer_start - 3), 0, t & 1, (t & 2) != 0, (t & 4) != 0};
                read_file(data, len, &c4, &other, &footer_start);
                if (other.status == UPQ_OK ? !same_files(&full, &other) : other.status > 0)
                    bad++;
                file_result_free(&other);
            }
            TU_CHECK_MSG(bad == 0, "%s: %d cut reads gave data that differs", name, bad);
        }
    }
    file_result_free(&full);
    free(data);
}

/*
 * Levels above their maximum are refused, never handed out: every byte of
 * nullable.impala (uncompressed, nested: maximum definition levels of 1 to
 * 7, some not a power of two less one, so the RLE width alone does not
 * bound them) changed in turn, each column read whole, and every level a
 * read gives must be within its column's maximum.
 */
static void test_levels_within_max(void)
{
    static const uint8_t flips[] = {0x01, 0x02, 0x04, 0xFF};
    char path[4096];
    uint8_t *data;
    size_t len, at, f, i, k, reads = 0, bad = 0;
    tu_case("levels above their maximum are refused");
    snprintf(path, sizeof path, "%s/data/nullable.impala.parquet", tu_corpus_dir());
    if (tu_read_file(path, &data, &len) != 0) {
        TU_CHECK_MSG(0, "cannot read %s", path);
        return;
    }
    for (at = 4; at + 8 < len; at++) {
        for (f = 0; f < sizeof flips; f++) {
            tu_mem_src src;
            upq_reader r;
            upq_status st;
            data[at] ^= flips[f];
            tu_mem_src_init(&src, data, len);
            upq_io io = {&src, tu_mem_read_at, len, NULL};
            upq_reader_init(&r, &io, arena, ARENA, NULL);
            st = upq_reader_open(&r);
            for (i = 0; st == UPQ_OK && i < r.schema.num_columns; i++) {
                const upq_column_desc *cd = &r.schema.columns[i];
                upq_column_reader cr;
                uint16_t def[64], rep[64];
                upq_bytes vals[64]; /* room for 64 values of any type */
                if (upq_column_open(&cr, &r, 0, (uint32_t)i) != UPQ_OK)
                    continue;
                for (;;) {
                    upq_batch b = {def, rep, vals, 64, 0, 0};
                    if (upq_column_read(&cr, &b) != UPQ_OK)
                        break;
                    reads++;
                    for (k = 0; k < b.levels; k++)
                        bad += (cd->max_def && def[k] > cd->max_def) || (cd->max_rep && rep[k] > cd->max_rep);
                }
                upq_column_close(&cr);
            }
            data[at] ^= flips[f];
        }
    }
    TU_CHECK_MSG(reads > 1000 && bad == 0, "%zu levels above their maximum in %zu reads", bad, reads);
    free(data);
}

int main(void)
{
    static const char *const subdirs[] = {"data", "bad_data", "shredded_variant"};
    arena = (uint8_t *)malloc(ARENA);
    tu_for_each_corpus_file(subdirs, 3, TU_CORPUS_SKIP_PARE, test_file);
    test_levels_within_max();
    free(arena);
    /* both ways of a lent page were taken (UPQ_WITH_LEND 0 reads them all) */
    tu_case("lend");
    TU_CHECK_MSG(!UPQ_WITH_LEND || (lends_whole > 1000 && lends_short > 1000),
                 "lends: %lu whole, %lu short", lends_whole, lends_short);
    tu_note("lends: %lu whole, %lu short", lends_whole, lends_short);
    /* values lent from pages, every batch aligned (UPQ_WITH_LEND 0 and
     * big-endian targets copy them all) */
    tu_case("values lent from pages");
    TU_CHECK_MSG(lent_misaligned == 0, "%lu of %lu lent batches not aligned", lent_misaligned,
                 lent_batches);
    tu_case("batches count their values");
    TU_CHECK_MSG(inconsistent_batches == 0, "%lu batches whose max_def levels are not their values",
                 inconsistent_batches);
    /* def left alone only in batches without nulls, and there often */
    tu_case("definition levels only for batches with nulls");
    TU_CHECK_MSG(lazy_unwritten == 0, "%lu batches with nulls not given every level", lazy_unwritten);
    TU_CHECK_MSG(lazy_untouched > 1000, "only %lu batches without nulls left def alone", lazy_untouched);
    tu_note("def left alone in %lu batches", lazy_untouched);
#if UPQ_NATIVE_LE
    TU_CHECK_MSG(!UPQ_WITH_LEND || lent_batches > 1000, "only %lu lent batches", lent_batches);
#else
    TU_CHECK_MSG(lent_batches == 0, "%lu lent batches on a big-endian target", lent_batches);
#endif
    tu_note("lent batches: %lu", lent_batches);
    return tu_summary();
}
