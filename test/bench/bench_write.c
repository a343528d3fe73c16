/*
 * Writing throughput, the library's side of the comparison with DuckDB's
 * `COPY t TO ... (FORMAT parquet)` from an in-memory table
 * (test/interop/bench_vs_duckdb.mjs).
 *
 *   bench_write ROWS CODEC OUT [REPS]
 *
 * Five optional columns, as DuckDB's table has them: INT64 sequential,
 * DOUBLE, INT32 of 100 values, strings of 50 values, BOOLEAN; no nulls.
 * The values are generated in memory first; each repetition writes them
 * column-wise in batches of 4096 rows into a memory sink (page CRCs on,
 * statistics and page index on, the library's defaults but 64 KiB pages
 * and 1 MiB chunk buffers). CODEC: uncompressed, snappy, gzip, lz4_raw.
 * The last repetition's file is written to OUT, so a reader can check it.
 * Prints `best_ms bytes`.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"

#define BATCH 4096u
#define NCOL 5

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other load does not count */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct mem_sink {
    uint8_t *p;
    size_t n, cap;
} mem_sink;

static upq_status sink_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    mem_sink *s = (mem_sink *)ctx;
    if (s->n + len > s->cap) {
        size_t cap = s->cap ? s->cap : 1u << 20;
        while (cap < s->n + len)
            cap *= 2;
        uint8_t *p = (uint8_t *)realloc(s->p, cap);
        if (!p)
            return UPQ_ERR_IO;
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->n, buf, len);
    s->n += len;
    *written = len;
    return UPQ_OK;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_write ROWS CODEC OUT [REPS]\n");
        return 2;
    }
    size_t rows = (size_t)strtoull(argv[1], NULL, 10);
    const char *codec = argv[2];
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    upq_writer_opts o;
    memset(&o, 0, sizeof o);
    if (strcmp(codec, "uncompressed") == 0)
        o.codec = UPQ_CODEC_UNCOMPRESSED;
    else if (strcmp(codec, "snappy") == 0)
        o.codec = UPQ_CODEC_SNAPPY;
    else if (strcmp(codec, "gzip") == 0)
        o.codec = UPQ_CODEC_GZIP;
    else if (strcmp(codec, "lz4_raw") == 0)
        o.codec = UPQ_CODEC_LZ4_RAW;
    else {
        fprintf(stderr, "bench_write: codec %s?\n", codec);
        return 2;
    }
    o.page_size = 64u << 10;
    o.chunk_size = 1u << 20;

    /* the table, in memory */
    int64_t *c_i64 = malloc(rows * sizeof *c_i64);
    double *c_f64 = malloc(rows * sizeof *c_f64);
    int32_t *c_i32 = malloc(rows * sizeof *c_i32);
    upq_bytes *c_str = malloc(rows * sizeof *c_str);
    uint8_t *c_bool = malloc(rows);
    static char names[50][16];
    static uint16_t def[BATCH];
    for (unsigned k = 0; k < 50; k++)
        snprintf(names[k], sizeof names[k], "device-%u", k);
    for (size_t i = 0; i < rows; i++) {
        uint64_t h = mix(i + 1);
        c_i64[i] = (int64_t)i;
        c_f64[i] = (double)(h % 1000000u) / 7.0;
        c_i32[i] = (int32_t)(h % 100u);
        c_str[i].ptr = (const uint8_t *)names[h % 50u];
        c_str[i].len = (uint32_t)strlen(names[h % 50u]);
        c_bool[i] = (uint8_t)(h % 3u == 0);
    }
    for (unsigned i = 0; i < BATCH; i++)
        def[i] = 1;

    upq_schema_element elems[NCOL + 1];
    upq_schema_builder b;
    upq_logical_type str;
    uint32_t n;
    upq_lt_string(&str);
    upq_sb_init(&b, elems, NCOL + 1, NULL);
    upq_sb_column(&b, "i64", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_column(&b, "f64", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_sb_column(&b, "i32", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_column(&b, "str", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &str);
    upq_sb_column(&b, "flag", UPQ_REP_OPTIONAL, UPQ_TYPE_BOOLEAN, 0, NULL);
    if (upq_sb_finish(&b, &n) != UPQ_OK) {
        fprintf(stderr, "bench_write: schema: %s\n", b.error ? b.error : "?");
        return 1;
    }
    size_t need;
    if (upq_writer_workspace_size(elems, n, &o, 4096, &need) != UPQ_OK) {
        fprintf(stderr, "bench_write: options refused\n");
        return 1;
    }
    void *arena = malloc(need);
    const void *cols[NCOL] = {c_i64, c_f64, c_i32, c_str, c_bool};
    const size_t width[NCOL] = {8, 8, 4, sizeof(upq_bytes), 1};
    double best = 1e30;
    mem_sink s = {0};
    for (int r = 0; r < reps; r++) {
        upq_writer w;
        upq_sink sink = {0};
        double t0 = now(), t;
        s.n = 0;
        sink.ctx = &s;
        sink.write = sink_write;
        if (upq_writer_init(&w, &sink, elems, n, arena, need, &o) != UPQ_OK) {
            fprintf(stderr, "bench_write: init failed\n");
            return 1;
        }
        for (size_t at = 0; at < rows; at += BATCH) {
            size_t k = rows - at < BATCH ? rows - at : BATCH;
            /* every column of a batch before the next batch, so a row group
             * can end at any batch boundary */
            for (uint32_t c = 0; c < NCOL; c++) {
                size_t done = 0;
                while (done < k) {
                    size_t used;
                    upq_status st = upq_writer_write_column(
                        &w, c, def, NULL, (const uint8_t *)cols[c] + (at + done) * width[c],
                        k - done, &used);
                    done += used;
                    if (st == UPQ_DONE)
                        continue;
                    if (st != UPQ_OK) {
                        fprintf(stderr, "bench_write: write failed (%s)\n", upq_strerror(st));
                        return 1;
                    }
                }
            }
        }
        if (upq_writer_close(&w) != UPQ_OK) {
            fprintf(stderr, "bench_write: close failed\n");
            return 1;
        }
        t = now() - t0;
        best = t < best ? t : best;
    }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(s.p, 1, s.n, f) != s.n || fclose(f) != 0) {
        fprintf(stderr, "bench_write: cannot write %s\n", argv[3]);
        return 1;
    }
    printf("%.3f %zu\n", best * 1e3, s.n);
    free(arena);
    free(s.p);
    free(c_i64);
    free(c_f64);
    free(c_i32);
    free(c_str);
    free(c_bool);
    return 0;
}
