/*
 * libFuzzer target: recovery and resume on arbitrary bytes.
 *
 * The input is a file's bytes (seeds: sensor-logger files in checkpoint
 * mode, closed and cut at various lengths). The first byte picks how the
 * medium behaves (short reads and writes, "again", no truncate: bits 0-2)
 * and which of three checks the input gets (the rest, modulo 3: each input
 * costs one, and each is taken on a third of them); the rest is the file.
 *   - a dry run on a read-only sink, in a fixed 64 KiB arena, must not crash
 *     or write;
 *   - a recovery in place (a copy, in memory) must not crash; when it says
 *     UPQ_OK, the file must open with the reader, hold the rows it reported,
 *     and a second recovery must find it closed and change nothing;
 *   - resuming the copy with the sensor logger's schema and options, then
 *     writing a few rows and closing, must not crash; when it succeeds the
 *     file must open with the reader.
 * Writes beyond 4 MiB fail (memory stays bounded whatever the input says).
 * The medium is a fixed buffer per file whose written pages are cleared
 * before the next input: a resume reserves a region some 4 MB out, which
 * growing and clearing a buffer each time made most of an input's cost.
 * Any violation aborts, which libFuzzer reports as a finding; the sanitizers
 * catch out-of-bounds accesses and undefined behaviour on the way.
 *
 * Build and run: make fuzz (or make check, which runs it briefly).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
/* the logger's schema, options and readings (its core is one file) */
#include "../../examples/sensor_logger/sensor_logger.c"

#define ARENA_BYTES (64u << 10)
#define FILE_CAP (4u << 20)

static uint64_t rec_arena[ARENA_BYTES / 8];
static uint64_t read_arena[(1u << 20) / 8];
static uint64_t writer_arena[(256u << 10) / 8];
static upq_recover_state rst;
static upq_writer w;
static upq_reader rd;

#define MPAGE 4096u
#define MPAGES (FILE_CAP / MPAGE)

/* The media: the input's file, and the copy that is recovered or resumed. */
static uint8_t store[2][FILE_CAP];
static uint8_t dirty[2][MPAGES]; /* pages written since they were last cleared */

typedef struct mfile {
    uint8_t *p;         /* store[slot] */
    int slot;
    size_t len;
    unsigned mode;      /* bit 0: short calls, bit 1: "again" every other call, bit 2: no truncate */
    unsigned long calls, writes;
} mfile;

static void die(const char *what)
{
    fprintf(stderr, "fuzz_recover: %s\n", what);
    abort();
}

/* Marks store pages [off, off + len) of f's slot as written. */
static void mark(mfile *f, size_t off, size_t len)
{
    size_t k;
    for (k = off / MPAGE; len && k <= (off + len - 1) / MPAGE; k++)
        dirty[f->slot][k] = 1;
}

/* f on store[slot], cleared, holding p[0..len) (len <= FILE_CAP). */
static void mload(mfile *f, int slot, const uint8_t *p, size_t len, unsigned mode)
{
    size_t k;
    memset(f, 0, sizeof *f);
    for (k = 0; k < MPAGES; k++)
        if (dirty[slot][k]) {
            memset(store[slot] + k * MPAGE, 0, MPAGE);
            dirty[slot][k] = 0;
        }
    f->slot = slot;
    f->p = store[slot];
    f->mode = mode;
    f->len = len;
    memcpy(f->p, p, len);
    mark(f, 0, len);
}

static int busy(mfile *f)
{
    return (f->mode & 2u) && (++f->calls & 1u);
}

static upq_status m_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    mfile *f = (mfile *)ctx;
    *got = 0;
    if (busy(f))
        return UPQ_AGAIN;
    if (off >= f->len)
        return UPQ_OK;
    if (len > f->len - off)
        len = (size_t)(f->len - off);
    if ((f->mode & 1u) && len > 7)
        len = 7;
    memcpy(buf, f->p + off, len);
    *got = len;
    return UPQ_OK;
}

static upq_status m_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *w)
{
    mfile *f = (mfile *)ctx;
    *w = 0;
    if (busy(f))
        return UPQ_AGAIN;
    if (off > FILE_CAP || len > FILE_CAP - off)
        return UPQ_ERR_IO;
    if ((f->mode & 1u) && len > 5)
        len = 5;
    memcpy(f->p + off, buf, len);
    mark(f, (size_t)off, len);
    if (off + len > f->len)
        f->len = (size_t)(off + len);
    f->writes++;
    *w = len;
    return UPQ_OK;
}

static upq_status m_sync(void *ctx)
{
    return busy((mfile *)ctx) ? UPQ_AGAIN : UPQ_OK;
}

static upq_status m_truncate(void *ctx, uint64_t size)
{
    mfile *f = (mfile *)ctx;
    if (busy(f))
        return UPQ_AGAIN;
    if (size < f->len)
        f->len = (size_t)size;
    return UPQ_OK;
}

static void sink_of(mfile *f, upq_sink *s, int writable)
{
    memset(s, 0, sizeof *s);
    s->ctx = f;
    s->read_at = m_read_at;
    s->sync = m_sync;
    if (writable) {
        s->write_at = m_write_at;
        if (!(f->mode & 4u))
            s->truncate = m_truncate;
    }
}

/* Spins while the medium says "again" (it says so every other call at most). */
#define SPIN(st, call)                                  \
    do {                                                \
        unsigned n_ = 0;                                \
        do                                              \
            (st) = (call);                              \
        while ((st) == UPQ_AGAIN && ++n_ < 100000u);    \
        if ((st) == UPQ_AGAIN)                          \
            die(#call " keeps saying again");           \
    } while (0)

/* The file opens with the reader and holds `rows` rows. */
static void reads(mfile *f, uint64_t rows, int check_rows)
{
    upq_io io = {0};
    upq_status st;
    mfile v = *f;
    v.mode = 0;
    io.ctx = &v;
    io.read_at = m_read_at;
    io.size = f->len;
    upq_reader_init(&rd, &io, read_arena, sizeof read_arena, NULL);
    SPIN(st, upq_reader_open(&rd));
    if (st != UPQ_OK)
        die("a recovered or resumed file does not open");
    if (check_rows && (uint64_t)upq_reader_metadata(&rd)->num_rows != rows)
        die("the recovered file holds other rows than reported");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mfile f, g;
    upq_sink s;
    upq_recover_opts ro;
    upq_recover_info info, again;
    upq_status st;
    if (size < 1 || size > FILE_CAP)
        return 0;
    mload(&f, 0, data + 1, size - 1, data[0] & 7u);
    switch ((data[0] >> 3) % 3u) {
    case 0: break;
    case 1: goto in_place;
    default: goto resume;
    }

    /* a dry run on a sink that cannot write */
    memset(&ro, 0, sizeof ro);
    ro.dry_run = 1;
    sink_of(&f, &s, 0);
    memset(&rst, 0, sizeof rst);
    SPIN(st, upq_recover(&rst, &s, f.len, rec_arena, sizeof rec_arena, &ro, &info));
    if (f.writes || memcmp(f.p, data + 1, f.len) != 0)
        die("a dry run wrote");
    return 0;

in_place:
    /* recovery in place */
    mload(&g, 1, f.p, f.len, f.mode);
    sink_of(&g, &s, 1);
    memset(&rst, 0, sizeof rst);
    SPIN(st, upq_recover(&rst, &s, g.len, rec_arena, sizeof rec_arena, NULL, &info));
    if (st != UPQ_OK && g.writes)
        die("a refused recovery wrote");
    if (st == UPQ_OK) {
        uint8_t *copy = (uint8_t *)malloc(g.len ? g.len : 1);
        size_t len = g.len;
        unsigned long writes = g.writes;
        if (!copy)
            abort();
        memcpy(copy, g.p, len);
        reads(&g, info.rows, 1);
        memset(&rst, 0, sizeof rst);
        SPIN(st, upq_recover(&rst, &s, g.len, rec_arena, sizeof rec_arena, NULL, &again));
        if (st != UPQ_OK || !again.was_closed || again.rows != info.rows || g.writes != writes ||
            g.len != len || memcmp(copy, g.p, len) != 0)
            die("recovering a recovered file changed it");
        free(copy);
    }
    return 0;

resume:
    /* resume with the logger's schema and options, a few rows, close */
    {
        static sensor_logger lg;
        sensor_config cfg;
        uint64_t rng;
        uint32_t i, k;
        memset(&cfg, 0, sizeof cfg);
        cfg.device = "sensor-07";
        cfg.seed = 42;
        cfg.rows = 0;
        cfg.checkpoint_rows = 20;
        cfg.page_size = 128;
        mload(&g, 1, f.p, f.len, f.mode);
        sink_of(&g, &s, 1);
        if (sensor_logger_setup(&lg, &cfg) == UPQ_OK &&
            upq_writer_init(&w, &s, lg.elems, lg.nelems, writer_arena, sizeof writer_arena, &lg.opts) ==
                UPQ_OK) {
            SPIN(st, upq_writer_resume(&w, g.len));
            if (st != UPQ_OK && g.writes)
                die("a refused resume wrote");
            rng = lg.rng;
            for (i = 0; i < 50 && st == UPQ_OK; i++) {
                sensor_sample x;
                upq_bytes dev = lg.device;
                uint8_t ok;
                sensor_read(&rng, i, &x);
                ok = x.status_ok;
                SPIN(st, upq_writer_set(&w, 0, &x.ts_us));
                if (st == UPQ_OK)
                    SPIN(st, upq_writer_set(&w, 1, &dev));
                for (k = 0; k < SENSOR_CHANNELS && st == UPQ_OK; k++)
                    SPIN(st, (x.valid >> k) & 1u ? upq_writer_set(&w, 2 + k, &x.ch[k])
                                                 : upq_writer_set_null(&w, 2 + k));
                if (st == UPQ_OK)
                    SPIN(st, upq_writer_set(&w, 2 + SENSOR_CHANNELS, &ok));
                if (st == UPQ_OK)
                    SPIN(st, upq_writer_end_row(&w));
            }
            if (st == UPQ_OK) {
                SPIN(st, upq_writer_close(&w));
                if (st == UPQ_OK)
                    reads(&g, 0, 0);
            }
        }
    }
    return 0;
}
