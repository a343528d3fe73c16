/*
 * Logging at scale: the sensor logger's reference run (11 columns, 10 Hz for
 * 24 h: 864,000 rows, its defaults: 512-byte pages, 64K-row row groups, a
 * checkpoint every 600 rows) in checkpoint mode, against the same rows
 * written in one pass without checkpoints (buffered: every column chunk of
 * a row group in RAM, then written out), with the same encodings, page size
 * and row-group size. Both write to memory through sinks that count.
 *
 * Prints, for the checkpoint run: the closed file's size against the one
 * pass's, the bytes handed to the sink against the final file, the bytes
 * read back while logging and at close, the syncs, the row groups, the
 * writer's arena; and the targets (file <= 1.05x, sink bytes <= 1.10x the
 * file, nothing read back while logging, at most 512 bytes read at the
 * file's start, where a reused medium may hold an old log). With --check, exits 1 when a
 * target is missed. Timings are printed for information only.
 *
 *   bench_logging [--rows N] [--check]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "../../examples/sensor_logger/sensor_logger.h"

/* ---- a file in memory that counts what goes through ------------------------ */

typedef struct mem_file {
    uint8_t *p;
    size_t cap;
    uint64_t len;        /* the file's size */
    uint64_t written;    /* bytes handed to write / write_at */
    uint64_t read_open;  /* bytes read before the first sync: what the medium held where the file begins */
    uint64_t read_log;   /* bytes read back while rows are taken */
    uint64_t read_close; /* ... and while closing */
    unsigned long syncs, calls;
    int closing;
} mem_file;

static mem_file ck, one;

static int grow(mem_file *f, uint64_t end)
{
    if (end <= f->cap)
        return 1;
    size_t cap = f->cap ? f->cap : (size_t)1 << 20;
    while (cap < end)
        cap *= 2;
    uint8_t *p = (uint8_t *)realloc(f->p, cap);
    if (!p)
        return 0;
    memset(p + f->cap, 0, cap - f->cap);
    f->p = p;
    f->cap = cap;
    return 1;
}

static upq_status m_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *w)
{
    mem_file *f = (mem_file *)ctx;
    *w = 0;
    if (!grow(f, off + len))
        return UPQ_ERR_IO;
    memcpy(f->p + off, buf, len);
    if (off + len > f->len)
        f->len = off + len;
    f->written += len;
    f->calls++;
    *w = len;
    return UPQ_OK;
}

static upq_status m_write(void *ctx, const void *buf, size_t len, size_t *w)
{
    mem_file *f = (mem_file *)ctx;
    return m_write_at(ctx, f->len, buf, len, w);
}

static upq_status m_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    mem_file *f = (mem_file *)ctx;
    *got = 0;
    if (off >= f->len)
        return UPQ_OK;
    if (len > f->len - off)
        len = (size_t)(f->len - off);
    memcpy(buf, f->p + off, len);
    *got = len;
    if (f->closing)
        f->read_close += len;
    else if (f->syncs == 0)
        f->read_open += len;
    else
        f->read_log += len;
    return UPQ_OK;
}

static upq_status m_sync(void *ctx)
{
    ((mem_file *)ctx)->syncs++;
    return UPQ_OK;
}

static upq_status m_truncate(void *ctx, uint64_t size)
{
    mem_file *f = (mem_file *)ctx;
    if (size < f->len)
        f->len = size;
    return UPQ_OK;
}

static void mem_sink(mem_file *f, upq_sink *s, int positional)
{
    memset(s, 0, sizeof *s);
    s->ctx = f;
    s->write = m_write;
    s->sync = m_sync;
    if (positional) {
        s->write_at = m_write_at;
        s->read_at = m_read_at;
        s->truncate = m_truncate;
    }
}

static upq_status ck_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    (void)ctx;
    (void)n;
    (void)resume;
    mem_sink(&ck, sink, 1);
    *size = 0;
    return UPQ_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Row groups of a file in memory (its footer), or 0 when it does not read. */
static uint32_t row_groups(const mem_file *f, uint64_t *rows)
{
    static uint8_t arena[1u << 20];
    upq_reader r;
    upq_io io = {0};
    mem_file copy = *f;
    uint32_t n = 0;
    copy.closing = 1;
    io.ctx = &copy;
    io.read_at = m_read_at;
    io.size = f->len;
    upq_reader_init(&r, &io, arena, sizeof arena, NULL);
    if (upq_reader_open(&r) == UPQ_OK) {
        n = upq_reader_metadata(&r)->row_groups.n;
        *rows = (uint64_t)upq_reader_metadata(&r)->num_rows;
    }
    return n;
}

int main(int argc, char **argv)
{
    static sensor_logger lg, lg1;
    sensor_config cfg;
    sensor_files files = {ck_open, NULL, NULL};
    uint64_t rows = 864000, i, rows_a = 0, rows_b = 0;
    int check = 0, a, bad = 0;
    double t0, t_ck, t_one;
    upq_status st;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--rows") == 0 && a + 1 < argc)
            rows = strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--check") == 0)
            check = 1;
        else {
            fprintf(stderr, "usage: bench_logging [--rows N] [--check]\n");
            return 2;
        }
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = rows;
    cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;

    /* the logger in checkpoint mode, as it runs */
    t0 = now();
    st = sensor_logger_open(&lg, &files, &cfg);
    while (st == UPQ_OK) {
        ck.closing = lg.row >= lg.end;
        st = sensor_logger_step(&lg);
    }
    t_ck = now() - t0;
    if (st != UPQ_DONE) {
        fprintf(stderr, "bench_logging: the checkpoint run failed: %s (%s)\n", upq_strerror(st),
                upq_writer_error(&lg.w)->what ? upq_writer_error(&lg.w)->what : "");
        return 1;
    }

    /* the same rows in one pass: the logger's schema and options without
     * checkpoints, a row group's chunks buffered in RAM */
    {
        upq_writer w;
        upq_writer_opts o;
        upq_sink s;
        size_t need = 0;
        void *arena;
        uint64_t rng;
        st = sensor_logger_setup(&lg1, &cfg);
        o = lg1.opts;
        o.checkpoint = 0;
        o.checkpoint_rows = 0;
        o.file_rows = 0;
        o.chunk_size = 2u << 20;  /* a 64K-row chunk, whole */
        o.max_pages = 4096;
        if (st == UPQ_OK)
            st = upq_writer_workspace_size(lg1.elems, lg1.nelems, &o, 32, &need);
        arena = malloc(need ? need : 1);
        mem_sink(&one, &s, 0);
        t0 = now();
        if (st == UPQ_OK)
            st = upq_writer_init(&w, &s, lg1.elems, lg1.nelems, arena, need, &o);
        rng = lg1.rng;
        for (i = 0; i < rows && st == UPQ_OK; i++) {
            sensor_sample x;
            upq_bytes dev = lg1.device;
            unsigned k;
            uint8_t ok;
            sensor_read(&rng, i, &x);
            ok = x.status_ok;
            st = upq_writer_set(&w, 0, &x.ts_us);
            if (st == UPQ_OK)
                st = upq_writer_set(&w, 1, &dev);
            for (k = 0; k < SENSOR_CHANNELS && st == UPQ_OK; k++)
                st = (x.valid >> k) & 1u ? upq_writer_set(&w, 2 + k, &x.ch[k]) : upq_writer_set_null(&w, 2 + k);
            if (st == UPQ_OK)
                st = upq_writer_set(&w, 2 + SENSOR_CHANNELS, &ok);
            if (st == UPQ_OK)
                st = upq_writer_end_row(&w);
        }
        if (st == UPQ_OK)
            st = upq_writer_close(&w);
        t_one = now() - t0;
        if (st != UPQ_OK) {
            fprintf(stderr, "bench_logging: the one-pass run failed: %s (%s)\n", upq_strerror(st),
                    upq_writer_error(&w)->what ? upq_writer_error(&w)->what : "");
            return 1;
        }
        free(arena);
    }

    {
        uint32_t rg_a = row_groups(&ck, &rows_a), rg_b = row_groups(&one, &rows_b);
        double file_ratio = (double)ck.len / (double)one.len;
        double sink_ratio = (double)ck.written / (double)ck.len;
        printf("reference run: %llu rows, 11 columns, %u-byte pages, %u-row row groups, a checkpoint every %u rows\n",
               (unsigned long long)rows, (unsigned)SENSOR_PAGE_SIZE, (unsigned)SENSOR_ROW_GROUP_ROWS,
               (unsigned)SENSOR_CHECKPOINT_ROWS);
        printf("  checkpoint mode: %llu bytes, %u row groups, %lu syncs, %lu write calls, %.2f s\n",
               (unsigned long long)ck.len, rg_a, ck.syncs, ck.calls, t_ck);
        printf("  one pass:        %llu bytes, %u row groups, %.2f s\n", (unsigned long long)one.len, rg_b,
               t_one);
        printf("closed file / one pass:        %.4f   (target <= 1.05)\n", file_ratio);
        printf("bytes to the sink / the file:  %.4f   (target <= 1.10; %llu bytes)\n", sink_ratio,
               (unsigned long long)ck.written);
        /* Once per file, before its first checkpoint, the writer reads what the
         * medium holds where the file begins (at most 512 bytes), so a file made
         * over an old log on a reused card cannot take the old one's records. */
        printf("bytes read back while logging: %llu   (target 0; at the start: %llu, target <= 512; at close: %llu)\n",
               (unsigned long long)ck.read_log, (unsigned long long)ck.read_open,
               (unsigned long long)ck.read_close);
        printf("writer arena: %zu bytes on this host (make size: logger-arena on Cortex-M4)\n",
               sensor_logger_arena_need(&lg));
        if (rows_a != rows || rows_b != rows) {
            printf("FAIL: the files hold %llu and %llu rows\n", (unsigned long long)rows_a,
                   (unsigned long long)rows_b);
            bad = 1;
        }
        if (file_ratio > 1.05 || sink_ratio > 1.10 || ck.read_log != 0 || ck.read_open > 512)
            bad |= 2;
    }
    free(ck.p);
    free(one.p);
    if (check)
        printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return check && bad ? 1 : 0;
}
