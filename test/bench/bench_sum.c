/*
 * Decode + sum of one column through the column API, the library's side of
 * the comparison with DuckDB's `SELECT sum(col)` (test/bench/vs_duckdb.mjs).
 *
 *   bench_sum [--rows|--fetch] [--lend] [--no-crc] FILE COLUMN [REPS]
 *   bench_sum --vs-memcpy FILE COLUMN [REPS]
 *
 * --rows sums through the row API (upq_rows, one event per value) instead,
 * for the row API's cost against the column API on the same file; --fetch
 * through its row-wise binding (upq_rows_fetch into an array of 256 small
 * structs: the value and its null flag). Both read the column in batches of
 * BATCH levels, as the column API does here (upq_rows_open's batch; its
 * default, 256, is sized for a microcontroller's RAM). --lend
 * gives the reader the in-memory file through upq_io.lend as well (pages
 * decoded where they lie, not copied); --no-crc skips page CRC checks.
 *
 * --vs-memcpy times decoding alone (upq_column_read into the batch, no sum)
 * through read_at, through lend, and through lend without CRC checks, each
 * against two memcpys of the column chunks' bytes (the same bytes, from the
 * file in memory): into a buffer of their size, and batch by batch into the
 * batch's 32 KiB (what decoding writes to). CPU time, best of REPS each; one
 * line per way: `way decode_ms memcpy_ms ratio memcpy_batch_ms ratio`.
 *
 * The file is read into memory once (DuckDB reads it from the page cache);
 * each repetition opens the footer with only COLUMN projected and sums every
 * value of every row group: integers as int64 (wrapping, like DuckDB's
 * hugeint sum within int64), FLOAT and DOUBLE as double in file order,
 * BOOLEAN as the count of trues, BYTE_ARRAY as the sum of lengths. Prints
 * one line: `best_ms SUM` (the sum as %.17g for floats), so the caller can
 * check the value against DuckDB's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "uparquet/record.h"
#include "util/files.h"
#include "util/flaky_io.h"

#define ARENA (64u << 20)
#define BATCH 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int find_column(const upq_schema *s, const char *name)
{
    for (uint32_t c = 0; c < s->num_columns; c++) {
        const upq_bytes *leaf = &s->nodes[s->columns[c].node].elem->name;
        if (strlen(name) == leaf->len && memcmp(name, leaf->ptr, leaf->len) == 0)
            return (int)c;
    }
    return -1;
}

static union {
    int32_t i32[BATCH];
    int64_t i64[BATCH];
    float f32[BATCH];
    double f64[BATCH];
    uint8_t b[BATCH];
    upq_bytes ba[BATCH];
} vals;
static uint16_t def[BATCH], rep[BATCH];
static int use_rows, use_fetch, use_lend, no_crc, decode_only;

static void add(int32_t pt, const void *v, int64_t *isum, double *fsum)
{
    switch (pt) {
    case UPQ_TYPE_BOOLEAN: *isum += *(const uint8_t *)v; break;
    case UPQ_TYPE_INT32:
        *isum = (int64_t)((uint64_t)*isum + (uint64_t)(int64_t) * (const int32_t *)v);
        break;
    case UPQ_TYPE_INT64: *isum = (int64_t)((uint64_t)*isum + *(const uint64_t *)v); break;
    case UPQ_TYPE_FLOAT: *fsum += (double)*(const float *)v; break;
    case UPQ_TYPE_DOUBLE: *fsum += *(const double *)v; break;
    default: *isum += (int64_t)((const upq_bytes *)v)->len; break;
    }
}

/* The same sum through the row API. */
static int sum_rows(upq_reader *r, int col, int64_t *isum, double *fsum)
{
    int32_t pt = r->schema.columns[col].physical_type;
    uint32_t node = r->schema.columns[col].node;
    for (uint32_t g = 0; g < r->meta.row_groups.n; g++) {
        upq_rows w;
        upq_status st = upq_rows_open(&w, r, g, &node, 1, BATCH);
        if (st != UPQ_OK)
            return -1;
        while ((st = upq_rows_next(&w)) == UPQ_OK) {
            upq_event ev;
            while ((st = upq_rows_event(&w, &ev)) == UPQ_OK)
                if (ev.type == UPQ_EV_VALUE)
                    add(pt, ev.value, isum, fsum);
            if (st != UPQ_DONE)
                break;
        }
        upq_rows_close(&w);
        if (st != UPQ_DONE)
            return -1;
    }
    return 0;
}

/* The same sum through row-wise binding: 256 rows of {value, null flag} a
 * call, summed from the structs. */
static int sum_fetch(upq_reader *r, int col, int64_t *isum, double *fsum)
{
    struct row {
        union {
            uint8_t b;
            int32_t i32;
            int64_t i64;
            float f32;
            double f64;
            upq_bytes ba;
        } v;
        uint8_t null;
    };
    static struct row rows[256];
    int32_t pt = r->schema.columns[col].physical_type;
    uint32_t node = r->schema.columns[col].node;
    upq_row_binding b = {(uint32_t)col, offsetof(struct row, v), offsetof(struct row, null)};
    for (uint32_t g = 0; g < r->meta.row_groups.n; g++) {
        upq_rows w;
        size_t n, i;
        upq_status st = upq_rows_open(&w, r, g, &node, 1, BATCH);
        if (st == UPQ_OK)
            st = upq_rows_bind(&w, &b, 1);
        if (st != UPQ_OK)
            return -1;
        while ((st = upq_rows_fetch(&w, rows, sizeof rows[0], 256, &n)) == UPQ_OK) {
            /* in locals: stores through the pointers could alias rows[] */
            int64_t is = *isum;
            double fs = *fsum;
            switch (pt) {
            case UPQ_TYPE_BOOLEAN:
                for (i = 0; i < n; i++)
                    is += rows[i].v.b;
                break;
            case UPQ_TYPE_INT32:
                for (i = 0; i < n; i++)
                    is = (int64_t)((uint64_t)is + (uint64_t)(int64_t)rows[i].v.i32);
                break;
            case UPQ_TYPE_INT64: /* a null reads as 0 */
                for (i = 0; i < n; i++)
                    is = (int64_t)((uint64_t)is + (uint64_t)rows[i].v.i64);
                break;
            case UPQ_TYPE_FLOAT: /* in file order; a null's 0.0 leaves the sum as it is */
                for (i = 0; i < n; i++)
                    fs += (double)rows[i].v.f32;
                break;
            case UPQ_TYPE_DOUBLE:
                for (i = 0; i < n; i++)
                    fs += rows[i].v.f64;
                break;
            default:
                for (i = 0; i < n; i++)
                    is += (int64_t)rows[i].v.ba.len;
                break;
            }
            *isum = is;
            *fsum = fs;
        }
        upq_rows_close(&w);
        if (st != UPQ_DONE)
            return -1;
    }
    return 0;
}

/* One decode + sum; returns 0 and the sums, or -1. */
static int run(const uint8_t *data, size_t len, uint8_t *arena, const char *name, int64_t *isum,
               double *fsum, int *is_float)
{
    tu_mem_src src;
    upq_reader r;
    upq_reader_opts o;
    static uint8_t proj[4096];
    int col;
    tu_mem_src_init(&src, data, len);
    upq_io io = {&src, tu_mem_read_at, len, use_lend ? tu_mem_lend : NULL};
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    if (upq_reader_open(&r) != UPQ_OK)
        return -1;
    col = find_column(&r.schema, name);
    if (col < 0 || (unsigned)col >= sizeof proj * 8)
        return -1;
    /* again, decoding only the column's chunks */
    memset(proj, 0, sizeof proj);
    proj[col >> 3] = (uint8_t)(1u << (col & 7));
    memset(&o, 0, sizeof o);
    o.projection = proj;
    o.projection_bits = (uint32_t)col + 1;
    o.no_crc_check = (uint8_t)no_crc;
    tu_mem_src_init(&src, data, len);
    upq_reader_init(&r, &io, arena, ARENA, &o);
    if (upq_reader_open(&r) != UPQ_OK)
        return -1;
    *isum = 0;
    *fsum = 0;
    int32_t pt = r.schema.columns[col].physical_type;
    *is_float = pt == UPQ_TYPE_FLOAT || pt == UPQ_TYPE_DOUBLE;
    if (use_rows)
        return sum_rows(&r, col, isum, fsum);
    if (use_fetch)
        return sum_fetch(&r, col, isum, fsum);
    for (uint32_t g = 0; g < r.meta.row_groups.n; g++) {
        upq_column_reader cr;
        upq_status st = upq_column_open(&cr, &r, g, (uint32_t)col);
        /* the sum reads values only: levels are wanted for no batch */
        upq_column_def_if_nulls(&cr, 1);
        while (st == UPQ_OK) {
            upq_batch b = {def, rep, &vals, BATCH, 0, 0};
            size_t i, n;
            /* in locals: a store through isum could alias vals (both int64),
             * which would keep the sum in memory, a store and a load per value */
            int64_t is = *isum;
            double fs = *fsum;
            /* fixed-width PLAIN values summed where they lie in the page when
             * the reader can lend them, else from the batch; decoding alone
             * (--vs-memcpy) always into the batch */
            const void *v = &vals;
            st = decode_only ? upq_column_read(&cr, &b) : upq_column_read_lent(&cr, &b, &v);
            n = decode_only ? 0 : b.values_n;
            switch (pt) {
            case UPQ_TYPE_BOOLEAN:
                for (i = 0; i < n; i++)
                    is += vals.b[i];
                break;
            case UPQ_TYPE_INT32:
                for (i = 0; i < n; i++)
                    is = (int64_t)((uint64_t)is + (uint64_t)(int64_t)((const int32_t *)v)[i]);
                break;
            case UPQ_TYPE_INT64:
                for (i = 0; i < n; i++)
                    is = (int64_t)((uint64_t)is + (uint64_t)((const int64_t *)v)[i]);
                break;
            case UPQ_TYPE_FLOAT: /* in file order, as DuckDB sums */
                for (i = 0; i < n; i++)
                    fs += (double)((const float *)v)[i];
                break;
            case UPQ_TYPE_DOUBLE:
                for (i = 0; i < n; i++)
                    fs += ((const double *)v)[i];
                break;
            case UPQ_TYPE_BYTE_ARRAY:
                for (i = 0; i < n; i++)
                    is += (int64_t)vals.ba[i].len;
                break;
            default: return -1;
            }
            *isum = is;
            *fsum = fs;
        }
        upq_column_close(&cr);
        if (st != UPQ_DONE)
            return -1;
    }
    return 0;
}

/* Bytes of COLUMN's chunks in the file (what decoding reads), or 0. */
static size_t chunk_bytes(const uint8_t *data, size_t len, uint8_t *arena, const char *name,
                          size_t *first)
{
    tu_mem_src src;
    upq_reader r;
    upq_io io = {&src, tu_mem_read_at, len, NULL};
    size_t total = 0;
    int col;
    tu_mem_src_init(&src, data, len);
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    if (upq_reader_open(&r) != UPQ_OK || (col = find_column(&r.schema, name)) < 0)
        return 0;
    *first = SIZE_MAX;
    for (uint32_t g = 0; g < r.meta.row_groups.n; g++) {
        const upq_column_chunk *ch = upq_reader_chunk(&r, g, (uint32_t)col);
        size_t at = (size_t)ch->meta_data.data_page_offset;
        if (ch->meta_data.dictionary_page_offset > 0 &&
            (size_t)ch->meta_data.dictionary_page_offset < at)
            at = (size_t)ch->meta_data.dictionary_page_offset;
        *first = at < *first ? at : *first;
        total += (size_t)ch->meta_data.total_compressed_size;
    }
    return total;
}

/* Decoding alone against memcpy of the same bytes (--vs-memcpy). */
static int vs_memcpy(const uint8_t *data, size_t len, uint8_t *arena, const char *name, int reps)
{
    static const struct {
        const char *way;
        int lend, no_crc;
    } ways[] = {{"read_at", 0, 0}, {"lend", 1, 0}, {"lend,no-crc", 1, 1}};
    size_t first = 0, n = chunk_bytes(data, len, arena, name, &first);
    uint8_t *dst;
    int64_t isum;
    double fsum;
    int is_float;
    if (!n || first + n > len)
        return -1;
    /* the chunks lie one after the other (row group by row group) in the
     * files this measures; memcpy copies that span */
    dst = (uint8_t *)malloc(n);
    memset(dst, 1, n);
    decode_only = 1;
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        double best = 1e30, bestc = 1e30, bestb = 1e30;
        use_lend = ways[w].lend;
        no_crc = ways[w].no_crc;
        for (int i = 0; i < reps; i++) {
            double t0 = now(), t;
            if (run(data, len, arena, name, &isum, &fsum, &is_float) != 0)
                return -1;
            t = now() - t0;
            best = t < best ? t : best;
            t0 = now();
            memcpy(dst, data + first, n);
            __asm__ volatile("" : : "r"(dst) : "memory");
            t = now() - t0;
            bestc = t < bestc ? t : bestc;
            t0 = now();
            for (size_t k = 0; k < n; k += sizeof vals)
                memcpy(&vals, data + first + k, n - k < sizeof vals ? n - k : sizeof vals);
            __asm__ volatile("" : : "r"(&vals) : "memory");
            t = now() - t0;
            bestb = t < bestb ? t : bestb;
        }
        printf("%-12s %8.3f %8.3f %6.2f %8.3f %6.2f\n", ways[w].way, best * 1e3, bestc * 1e3,
               best / bestc, bestb * 1e3, best / bestb);
    }
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    uint8_t *data, *arena;
    size_t len;
    int reps, is_float = 0;
    int64_t isum = 0;
    double fsum = 0, best = 1e30;
    int memcpy_mode = 0;
    for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argv++, argc--) {
        if (strcmp(argv[1], "--rows") == 0)
            use_rows = 1;
        else if (strcmp(argv[1], "--fetch") == 0)
            use_fetch = 1;
        else if (strcmp(argv[1], "--lend") == 0)
            use_lend = 1;
        else if (strcmp(argv[1], "--no-crc") == 0)
            no_crc = 1;
        else if (strcmp(argv[1], "--vs-memcpy") == 0)
            memcpy_mode = 1;
        else
            argc = 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: bench_sum [--rows|--fetch] [--lend] [--no-crc] FILE COLUMN [REPS]\n"
                        "       bench_sum --vs-memcpy FILE COLUMN [REPS]\n");
        return 2;
    }
    reps = argc > 3 ? atoi(argv[3]) : 5;
    if (tu_read_file(argv[1], &data, &len) != 0) {
        fprintf(stderr, "bench_sum: cannot read %s\n", argv[1]);
        return 1;
    }
    arena = (uint8_t *)malloc(ARENA);
    if (memcpy_mode) {
        if (vs_memcpy(data, len, arena, argv[2], reps) != 0) {
            fprintf(stderr, "bench_sum: %s: cannot read column %s\n", argv[1], argv[2]);
            return 1;
        }
        free(arena);
        free(data);
        return 0;
    }
    for (int i = 0; i < reps; i++) {
        double t0 = now(), t;
        if (run(data, len, arena, argv[2], &isum, &fsum, &is_float) != 0) {
            fprintf(stderr, "bench_sum: %s: cannot read column %s\n", argv[1], argv[2]);
            return 1;
        }
        t = now() - t0;
        best = t < best ? t : best;
    }
    if (is_float)
        printf("%.3f %.17g\n", best * 1e3, fsum);
    else
        printf("%.3f %lld\n", best * 1e3, (long long)isum);
    free(arena);
    free(data);
    return 0;
}
