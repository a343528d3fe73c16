/*
 * Read throughput: footer decoding and column decoding of corpus files held
 * in memory (no file system in the measurement), per file and in total.
 *
 *   bench_read [SECONDS_PER_FILE] [FILE...]
 *
 * Without files, a fixed set of corpus files covering the encodings and
 * codecs is used. Prints MB/s of decoded column-chunk bytes (as stored) and
 * values/s, and the arena each file needs (upq_reader_workspace_size).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "util/files.h"
#include "util/flaky_io.h"

static const char *default_files[] = {
    "data/alltypes_plain.parquet",          "data/alltypes_tiny_pages_plain.parquet",
    "data/delta_binary_packed.parquet",     "data/delta_byte_array.parquet",
    "data/delta_length_byte_array.parquet", "data/byte_stream_split_extended.gzip.parquet",
    "data/lz4_raw_compressed_larger.parquet", "data/plain-dict-uncompressed-checksum.parquet",
    "data/rle-dict-snappy-checksum.parquet", "data/nested_lists.snappy.parquet",
    "data/float16_nonzeros_and_nans.parquet",
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other load on the machine does not count */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define ARENA (64u << 20)
#define BATCH 4096

/* Reads every column once; returns values read (or -1 on error). */
static long long read_all(const uint8_t *data, size_t len, uint8_t *arena, uint64_t *chunk_bytes)
{
    static uint16_t def[BATCH], rep[BATCH];
    static upq_bytes vals[BATCH];
    tu_mem_src src;
    upq_reader r;
    long long n = 0;
    tu_mem_src_init(&src, data, len);
    upq_io io = {&src, tu_mem_read_at, len, NULL};
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    if (upq_reader_open(&r) != UPQ_OK)
        return -1;
    *chunk_bytes = 0;
    for (uint32_t g = 0; g < r.meta.row_groups.n; g++)
        for (uint32_t c = 0; c < r.schema.num_columns; c++) {
            upq_column_reader cr;
            upq_status st = upq_column_open(&cr, &r, g, c);
            *chunk_bytes += (uint64_t)upq_reader_chunk(&r, g, c)->meta_data.total_compressed_size;
            while (st == UPQ_OK) {
                upq_batch b = {def, rep, vals, BATCH, 0, 0};
                st = upq_column_read(&cr, &b);
                n += (long long)b.values_n;
            }
            upq_column_close(&cr);
            if (st != UPQ_DONE)
                return -1;
        }
    return n;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    const char *root = tu_corpus_dir();
    uint8_t *arena = (uint8_t *)malloc(ARENA);
    double tot_bytes = 0, tot_time = 0, tot_vals = 0;
    int nfiles = argc > 2 ? argc - 2 : (int)(sizeof default_files / sizeof *default_files);
    printf("%-44s %9s %9s %10s %10s\n", "file", "MB/s", "Mvalues/s", "footer/s", "arena");
    for (int i = 0; i < nfiles; i++) {
        char path[4096];
        uint8_t *data;
        size_t len;
        uint64_t chunk = 0;
        long long vals;
        int reps = 0;
        double t0, t1, footer_rate;
        if (argc > 2)
            snprintf(path, sizeof path, "%s", argv[2 + i]);
        else
            snprintf(path, sizeof path, "%s/%s", root, default_files[i]);
        if (tu_read_file(path, &data, &len) != 0) {
            printf("%-44s cannot read\n", tu_basename(path));
            continue;
        }
        vals = read_all(data, len, arena, &chunk);
        if (vals < 0) {
            printf("%-44s read error\n", tu_basename(path));
            free(data);
            continue;
        }
        t0 = now();
        do {
            read_all(data, len, arena, &chunk);
            reps++;
        } while ((t1 = now()) - t0 < secs);
        {
            /* footer decoding alone */
            int fr = 0;
            double f0 = now(), f1;
            do {
                tu_mem_src src;
                upq_reader r;
                tu_mem_src_init(&src, data, len);
                upq_io io = {&src, tu_mem_read_at, len, NULL};
                upq_reader_init(&r, &io, arena, ARENA, NULL);
                (void)upq_reader_open(&r);
                fr++;
            } while ((f1 = now()) - f0 < secs / 4);
            footer_rate = fr / (f1 - f0);
        }
        {
            tu_mem_src src;
            upq_reader r;
            static upq_workspace ws;
            tu_mem_src_init(&src, data, len);
            upq_io io = {&src, tu_mem_read_at, len, NULL};
            upq_reader_init(&r, &io, arena, ARENA, NULL);
            upq_workspace_init(&ws);
            if (upq_reader_open(&r) != UPQ_OK || upq_reader_workspace_size(&r, &ws) != UPQ_OK)
                ws.sequential = 0;
            printf("%-44s %9.1f %9.2f %10.0f %10zu\n", tu_basename(path),
                   (double)chunk * reps / (t1 - t0) / 1e6, (double)vals * reps / (t1 - t0) / 1e6,
                   footer_rate, ws.sequential);
        }
        tot_bytes += (double)chunk * reps;
        tot_vals += (double)vals * reps;
        tot_time += t1 - t0;
        free(data);
    }
    printf("%-44s %9.1f %9.2f\n", "total", tot_bytes / tot_time / 1e6, tot_vals / tot_time / 1e6);
    free(arena);
    return 0;
}
