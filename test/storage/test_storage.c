/*
 * The sensor logger through the real filesystems firmware links, with the
 * power cut at the block device (issue 27's tests):
 *
 *   FatFs (FAT32, 32 KiB clusters, 512-byte sectors) through
 *   port/adapters/fatfs: every sector write after the K-th is dropped, the
 *   K-th torn (a random prefix of it lands) half of the time;
 *   littlefs (4 KiB blocks, 16-byte programs, 256-byte cache) through
 *   port/adapters/littlefs: every program and erase after the K-th is
 *   dropped, the K-th torn half of the time (part of a program lands; an
 *   erase leaves part of the block as it was).
 *
 * One uncut run counts the device's writes (T, close included) and checks
 * the closed file; K is then sampled over 1..T (seeded: a share in the
 * first row group, a share in the close, on littlefs a share inside the
 * first row group's copy from the journal into place, which the sink's
 * seal makes over several calls, the rest spread), and one run
 * cuts at each K in turn: at the K-th write the process forks, and the
 * child powers up on the device as the cut left it. It remounts, opens the
 * log and recovers it through the adapter (upq_recover in a 32 KiB arena),
 * then checks, reading through the adapter: the rows are an exact prefix of
 * the uncut run's (every value as generated) and at least every row of the
 * last checkpoint the writer had made durable before the cut (a file that
 * cannot be recovered, or is not there, only when none was). Then it
 * resumes the log (sensor_logger_step with resume, as after a reboot),
 * logs --resume-rows more and closes: the file must hold the recovered rows
 * followed by exactly the next readings. The parent goes on with the run.
 *
 *   test_storage --fs fatfs|littlefs [--rows N] [--cuts N] [--seed S] [--jobs J]
 *                [--resume-rows N] [--row-group-rows N] [--samples DIR] [--reused]
 *   test_storage --fs fatfs|littlefs --adapter N [--seed S]
 *
 * --samples DIR keeps the closed file and a sample of recovered and resumed
 * ones (NAME.parquet) for other readers (test/storage/run.sh).
 * --reused (FatFs): the volume first holds a closed log of the same file id,
 * with the same readings and with other ones, deleted; the new log is cut
 * at many points in its first row group (issue 27 item 4). The adapter
 * leaves the gaps it skips as the card held them (its zero_gaps off, the
 * default), so the old log's bytes lie in the new file's gaps until the
 * writer zeroes them: its records must still not be taken for this file's.
 * On FatFs every closed, recovered and resumed file must hold exactly the
 * bytes the writer (and recovery, and resume) last handed the sink at each
 * offset, and no byte it never handed it: no gap keeps what the card held.
 * --adapter N (FatFs): the adapter alone, N random calls (write_at at the
 * end, just after the last write, inside and past the end, in pieces of 1
 * byte to whole sectors; write; read_at; sync; truncate) on a file made
 * over a deleted one's clusters, each read and the size checked against a
 * model of the file in memory (gaps zero), and the whole file after f_close;
 * then again on a file in more fragments than the fast seek map holds.
 * (littlefs): the same calls through upq_littlefs without buffers, with
 * 64-byte and with 1 KiB ones (read-ahead, held-back writes), each read and
 * the size checked against the model, and the whole file after
 * upq_littlefs_flush and lfs_file_close.
 * Ends with `N passed, N failed`.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "../../examples/sensor_logger/sensor_logger.h"
#include "../../examples/sensor_logger/logger_cli.h"
#include "volume.h"

#define RECOVER_ARENA ((size_t)32 << 10)
#define READ_ARENA ((size_t)4 << 20)
#define LOG_NAME "log.parquet"

enum { FS_FATFS = 1, FS_LITTLEFS = 2 };

typedef struct opts {
    int fs;
    uint64_t rows, resume_rows;
    uint32_t cuts, jobs, rg_rows;
    uint64_t seed;
    const char *samples;
    int reused;
    uint64_t adapter;
} opts;

static opts O;

/* ---- the device and the filesystem on it -------------------------------------------- */

static storage_volume V;

static void quiet_put(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    fwrite(s, 1, n, stderr);
}
static const sensor_out err_out = {quiet_put, NULL};

/* A new, formatted volume, mounted. 0 or -1. */
static int volume_new(void)
{
    if (storage_volume_new(&V, O.fs == FS_FATFS, O.fs == FS_FATFS ? (uint64_t)2 << 30 : (uint64_t)64 << 20,
                           &err_out) != 0)
        return -1;
    return 0;
}

/* After a power cut: the filesystem mounted afresh from what the device holds. */
static int volume_remount(void)
{
    if (O.fs == FS_FATFS) {
        static FATFS again;
        if (f_mount(&again, "0:", 1) != FR_OK)
            return -1;
        fatfs_store_init(&V.fstore, "0:", &err_out, &V.store);
        return 0;
    }
    {
        static lfs_t again;
        if (lfs_mount(&again, &V.lcfg) != 0)
            return -1;
        littlefs_store_init(&V.lstore, &again, &err_out, &V.store);
    }
    return 0;
}

/* Deletes file `name`. On FatFs as a logger that re-creates its file does
 * (FA_CREATE_ALWAYS): FatFs then gives the next file the clusters the old
 * one had ("reuse the cluster hole"), where a plain f_unlink would move on. */
static int volume_delete(const char *name)
{
    if (O.fs == FS_FATFS) {
        FIL f;
        const char *path = fatfs_store_path(&V.fstore, name);
        if (f_open(&f, path, FA_WRITE | FA_CREATE_ALWAYS) != FR_OK || f_close(&f) != FR_OK)
            return -1;
        return f_unlink(path) == FR_OK ? 0 : -1;
    }
    {
        int err = lfs_remove(V.lstore.lfs, littlefs_store_journal(&V.lstore, name));
        if (err != 0 && err != LFS_ERR_NOENT)
            return -1;
    }
    return lfs_remove(V.lstore.lfs, name) == 0 ? 0 : -1;
}

/* ---- what a FatFs file must hold ---------------------------------------------------- */

/* Each byte as the writer, recovery or resume last handed it to the sink
 * (shadow), and whether one did (handed): a file must hold exactly these,
 * and no byte none of them handed (the card's old bytes). Copied into each
 * cut's child with the rest of the process: writes the cut dropped stay
 * here, so a file that kept one of them fails too. */
static uint8_t *shadow, *handed;
static uint64_t shadow_cap, shadow_end;
static int shadow_over;
static upq_sink shadow_real; /* the adapter's callbacks under the shim */

static void shadow_reset(void)
{
    if (handed)
        memset(handed, 0, (size_t)(shadow_end < shadow_cap ? shadow_end : shadow_cap));
    shadow_end = 0;
    shadow_over = 0;
}

static void shadow_put(uint64_t off, const void *buf, size_t n)
{
    if (!shadow || off + n > shadow_cap) {
        shadow_over = 1;
        return;
    }
    memcpy(shadow + off, buf, n);
    memset(handed + off, 1, n);
    if (off + n > shadow_end)
        shadow_end = off + n;
}

static upq_status shim_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_status st = shadow_real.write_at(ctx, off, buf, len, written);
    if (st == UPQ_OK)
        shadow_put(off, buf, *written);
    return st;
}

static upq_status shim_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    return shim_write_at(ctx, upq_fatfs_size((const upq_fatfs *)ctx), buf, len, written);
}

static upq_status shim_truncate(void *ctx, uint64_t size)
{
    upq_status st = shadow_real.truncate(ctx, size);
    if (st == UPQ_OK && size < shadow_end) {
        memset(handed + size, 0, (size_t)(shadow_end - size));
        shadow_end = size;
    }
    return st;
}

/* The FatFs sink *s with what it is handed recorded. */
static void shadow_shim(upq_sink *s)
{
    if (O.fs != FS_FATFS || !shadow)
        return;
    shadow_real = *s;
    s->write = shim_write;
    s->write_at = shim_write_at;
    if (s->truncate)
        s->truncate = shim_truncate;
}

/* 1 when FatFs file `name` holds exactly the bytes handed for it; else 0
 * and why. */
static int shadow_check(const char *name, char *why, size_t cap)
{
    static uint8_t buf[65536];
    FIL f;
    uint64_t off = 0, size;
    if (O.fs != FS_FATFS || !shadow)
        return 1;
    if (shadow_over) {
        snprintf(why, cap, "written past the %llu bytes the test keeps", (unsigned long long)shadow_cap);
        return 0;
    }
    if (f_open(&f, fatfs_store_path(&V.fstore, name), FA_READ) != FR_OK) {
        snprintf(why, cap, "cannot open it");
        return 0;
    }
    size = (uint64_t)f_size(&f);
    while (off < size) {
        UINT br = 0, i;
        if (f_read(&f, buf, sizeof buf, &br) != FR_OK || br == 0 || off + br > shadow_cap)
            break;
        if (!memchr(handed + off, 0, br) && memcmp(shadow + off, buf, br) == 0) {
            off += br;
            continue;
        }
        for (i = 0; i < br; i++) {
            if (!handed[off + i] || shadow[off + i] != buf[i]) {
                snprintf(why, cap, "byte %llu of %llu: %s", (unsigned long long)(off + i),
                         (unsigned long long)size,
                         handed[off + i] ? "not what was written there" : "never written: the card's old byte");
                f_close(&f);
                return 0;
            }
        }
        off += br;
    }
    f_close(&f);
    if (off != size) {
        snprintf(why, cap, "cannot read it all");
        return 0;
    }
    return 1;
}

/* ---- logging ------------------------------------------------------------------------- */

static sensor_logger lg;
static sensor_cli cli; /* names the files, as the logger program does */

static upq_status files_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    upq_status st;
    (void)ctx;
    st = V.store.open(V.store.ctx, sensor_cli_file_name(&cli, n), !resume, sink, size);
    if (st == UPQ_OK)
        shadow_shim(sink);
    return st;
}

static upq_status files_close(void *ctx, uint32_t n)
{
    (void)ctx;
    (void)n;
    return V.store.close(V.store.ctx);
}

/* Every log of a run has the id of the run's seed (as a board's serial
 * number), whatever its readings. */
static uint64_t file_id;

static void config(sensor_config *cfg, uint64_t seed, uint64_t rows, int resume)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->file_id = file_id;
    cfg->device = "sensor-07";
    cfg->seed = seed;
    cfg->rows = rows;
    cfg->row_group_rows = O.rg_rows;
    cfg->checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    cfg->resume = (uint8_t)resume;
}

/* Logs (or resumes) with the logger's defaults; UPQ_DONE when complete. */
static upq_status log_run(uint64_t seed, uint64_t rows, int resume)
{
    sensor_config cfg;
    sensor_files files = {files_open, files_close, NULL};
    upq_status st;
    config(&cfg, seed, rows, resume);
    cli.ext = ".parquet";
    strcpy(cli.stem, "log");
    st = sensor_logger_open(&lg, &files, &cfg);
    if (st != UPQ_OK)
        return st;
    do
        st = sensor_logger_step(&lg);
    while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE)
        (void)V.store.close(V.store.ctx);
    return st;
}

/* ---- reading a file back through the adapter ----------------------------------------- */

/* An open file of the volume, as a upq_io and a sink. */
typedef struct vfile {
    FIL fil;
    upq_fatfs fa;
    lfs_file_t lf, jf;
    struct lfs_file_config lfc, jfc;
    uint8_t lbuf[LFS_DISK_CACHE], jbuf[LFS_DISK_CACHE];
    uint8_t ab[4][SENSOR_LFS_BUF]; /* the adapters' buffers, as the logger's store gives them */
    upq_littlefs la, ja;
    upq_append ap;           /* littlefs: the data file and its journal... */
    upq_sink asink;          /* ... as one sink */
    uint64_t asize;
    uint8_t copy[512];
    int open;
} vfile;

/* 0, 1 (no such file) or -1. */
static int vfile_open(vfile *v, const char *name)
{
    memset(v, 0, sizeof *v);
    if (O.fs == FS_FATFS) {
        FRESULT fr = f_open(&v->fil, fatfs_store_path(&V.fstore, name), FA_READ | FA_WRITE | FA_OPEN_EXISTING);
        if (fr == FR_NO_FILE)
            return 1;
        if (fr != FR_OK)
            return -1;
        upq_fatfs_init(&v->fa, &v->fil);
    } else {
        int err;
        v->lfc.buffer = v->lbuf;
        err = lfs_file_opencfg(V.lstore.lfs, &v->lf, name, LFS_O_RDWR, &v->lfc);
        if (err == LFS_ERR_NOENT)
            return 1;
        if (err != 0)
            return -1;
        upq_littlefs_init(&v->la, V.lstore.lfs, &v->lf);
        upq_littlefs_buffers(&v->la, v->ab[0], sizeof v->ab[0], v->ab[1], sizeof v->ab[1]);
        /* what the journal holds goes into the data file, as the logger's
         * store does when it opens a log */
        v->jfc.buffer = v->jbuf;
        err = lfs_file_opencfg(V.lstore.lfs, &v->jf, littlefs_store_journal(&V.lstore, name),
                               LFS_O_RDWR | LFS_O_CREAT, &v->jfc);
        if (err != 0) {
            lfs_file_close(V.lstore.lfs, &v->lf);
            return -1;
        }
        upq_littlefs_init(&v->ja, V.lstore.lfs, &v->jf);
        upq_littlefs_buffers(&v->ja, v->ab[2], sizeof v->ab[2], v->ab[3], sizeof v->ab[3]);
        if (upq_littlefs_append(&v->ap, &v->la, &v->ja, 0, v->copy, sizeof v->copy, &v->asink, &v->asize) !=
            UPQ_OK) {
            lfs_file_close(V.lstore.lfs, &v->jf);
            lfs_file_close(V.lstore.lfs, &v->lf);
            return -1;
        }
    }
    v->open = 1;
    return 0;
}

static void vfile_close(vfile *v)
{
    if (!v->open)
        return;
    if (O.fs == FS_FATFS)
        f_close(&v->fil);
    else {
        (void)upq_littlefs_flush(&v->ja);
        (void)upq_littlefs_flush(&v->la);
        lfs_file_close(V.lstore.lfs, &v->jf);
        lfs_file_close(V.lstore.lfs, &v->lf);
    }
    v->open = 0;
}

static void vfile_io(vfile *v, upq_io *io)
{
    if (O.fs == FS_FATFS)
        upq_fatfs_io(&v->fa, io);
    else
        upq_littlefs_io(&v->la, io);
}

static void vfile_sink(vfile *v, upq_sink *s, uint64_t *size)
{
    memset(s, 0, sizeof *s);
    if (O.fs == FS_FATFS) {
        upq_fatfs_sink(&v->fa, s);
        *size = upq_fatfs_size(&v->fa);
    } else {
        *s = v->asink;
        *size = v->asize;
    }
}

static void *read_arena;

static int value_is(const upq_event *ev, int phys, const void *want)
{
    if (ev->type != UPQ_EV_VALUE)
        return 0;
    switch (phys) {
    case UPQ_TYPE_INT64: return memcmp(ev->value, want, 8) == 0;
    case UPQ_TYPE_FLOAT: return memcmp(ev->value, want, 4) == 0;
    case UPQ_TYPE_BOOLEAN: return *(const uint8_t *)ev->value == *(const uint8_t *)want;
    default: {
        const upq_bytes *b = (const upq_bytes *)ev->value, *w = (const upq_bytes *)want;
        return b->len == w->len && memcmp(b->ptr, w->ptr, w->len) == 0;
    }
    }
}

/* Row `row`'s events against the generator's reading. */
static int row_matches(upq_rows *rows, const sensor_sample *s, char *why, size_t cap)
{
    static const upq_bytes dev = {(const uint8_t *)"sensor-07", 9};
    upq_event ev;
    unsigned c;
    for (c = 0; c < SENSOR_COLUMNS; c++) {
        int ok;
        if (upq_rows_event(rows, &ev) != UPQ_OK) {
            snprintf(why, cap, "column %u: no event", c);
            return 0;
        }
        if (c == 0)
            ok = value_is(&ev, UPQ_TYPE_INT64, &s->ts_us);
        else if (c == 1)
            ok = value_is(&ev, UPQ_TYPE_BYTE_ARRAY, &dev);
        else if (c < 2 + SENSOR_CHANNELS)
            ok = (s->valid >> (c - 2)) & 1u ? value_is(&ev, UPQ_TYPE_FLOAT, &s->ch[c - 2])
                                             : ev.type == UPQ_EV_NULL;
        else
            ok = value_is(&ev, UPQ_TYPE_BOOLEAN, &s->status_ok);
        if (!ok) {
            snprintf(why, cap, "column %u differs", c);
            return 0;
        }
    }
    if (upq_rows_event(rows, &ev) != UPQ_DONE) {
        snprintf(why, cap, "more events than columns");
        return 0;
    }
    return 1;
}

/* The file must hold exactly `want` rows, each the generator's reading of
 * its number (seed `seed`). 1, or 0 with `why`. */
static int check_rows(vfile *v, uint64_t seed, uint64_t want, char *why, size_t cap)
{
    static upq_reader r;
    static upq_rows rows;
    upq_io io;
    const upq_file_metadata *m;
    uint64_t rng = seed ^ UINT64_C(0x9E3779B97F4A7C15), row = 0;
    uint32_t rg;
    upq_status st;
    if (rng == 0)
        rng = 1;
    vfile_io(v, &io);
    upq_reader_init(&r, &io, read_arena, READ_ARENA, NULL);
    st = upq_reader_open(&r);
    if (st != UPQ_OK) {
        snprintf(why, cap, "upq_reader_open: %s (%s)", upq_strerror(st),
                 upq_reader_error(&r)->what ? upq_reader_error(&r)->what : "");
        return 0;
    }
    m = upq_reader_metadata(&r);
    if ((uint64_t)m->num_rows != want) {
        snprintf(why, cap, "the footer says %lld rows, want %llu", (long long)m->num_rows,
                 (unsigned long long)want);
        return 0;
    }
    for (rg = 0; rg < m->row_groups.n; rg++) {
        if (upq_rows_open(&rows, &r, rg, NULL, 0, 0) != UPQ_OK) {
            snprintf(why, cap, "upq_rows_open(%u) failed", rg);
            return 0;
        }
        while ((st = upq_rows_next(&rows)) == UPQ_OK) {
            sensor_sample s;
            char w[96];
            if (row >= want) {
                snprintf(why, cap, "more rows than %llu", (unsigned long long)want);
                upq_rows_close(&rows);
                return 0;
            }
            sensor_read(&rng, row, &s);
            if (!row_matches(&rows, &s, w, sizeof w)) {
                snprintf(why, cap, "row %llu: %s", (unsigned long long)row, w);
                upq_rows_close(&rows);
                return 0;
            }
            row++;
        }
        upq_rows_close(&rows);
        if (st != UPQ_DONE) {
            snprintf(why, cap, "row %llu: %s", (unsigned long long)row, upq_strerror(st));
            return 0;
        }
    }
    if (row != want) {
        snprintf(why, cap, "%llu rows read, want %llu", (unsigned long long)row, (unsigned long long)want);
        return 0;
    }
    return 1;
}

/* Copies file `name` of the volume to DIR/what.parquet. */
static void keep_sample(const char *name, const char *what)
{
    char path[1024];
    vfile v;
    upq_io io;
    FILE *f;
    uint64_t off = 0;
    static uint8_t buf[65536];
    if (!O.samples || vfile_open(&v, name) != 0)
        return;
    vfile_io(&v, &io);
    snprintf(path, sizeof path, "%s/%s.parquet", O.samples, what);
    f = fopen(path, "wb");
    while (f && off < io.size) {
        size_t got = 0;
        if (io.read_at(io.ctx, off, buf, sizeof buf, &got) != UPQ_OK || got == 0)
            break;
        fwrite(buf, 1, got, f);
        off += got;
    }
    if (f)
        fclose(f);
    vfile_close(&v);
}

/* ---- results ------------------------------------------------------------------------- */

static unsigned passed, failed;

static void result(int ok, const char *fmt, ...)
{
    va_list ap;
    printf("%s ", ok ? "ok" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    if (ok)
        passed++;
    else
        failed++;
}

static const char *fs_name(void)
{
    return O.fs == FS_FATFS ? "fatfs" : "littlefs";
}

/* ---- power cuts ---------------------------------------------------------------------- */

typedef struct cutter {
    uint64_t ops;            /* writes and erases so far */
    uint64_t ops_rg1;        /* ... when the first row group was complete */
    uint64_t ops_close;      /* ... when every row was taken */
    uint64_t seal_lo, seal_hi; /* littlefs: the writes of the first row group's seal
                              * that said UPQ_AGAIN (the copy over several calls) */
    unsigned long seal_again; /* ... calls of the seal that said UPQ_AGAIN */
    uint64_t *ks;            /* where to cut, ascending */
    size_t nk, next;
    unsigned running;
    uint64_t rng;
    uint64_t seed;           /* the log's readings */
    size_t sample_every;
} cutter;

static cutter C;

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

static void count_hook(void *ctx, ramdisk *d, int kind, uint64_t off, const void *buf, uint32_t len)
{
    (void)ctx, (void)d, (void)kind, (void)off, (void)buf, (void)len;
    C.ops++;
    if (!C.ops_rg1 && lg.row >= O.rg_rows)
        C.ops_rg1 = C.ops;
    if (!C.ops_close && lg.row >= lg.end && lg.end)
        C.ops_close = C.ops;
    if (O.fs == FS_LITTLEFS && V.lstore.open && V.lstore.ap.sealing && !C.ops_close &&
        (!C.seal_lo || C.seal_hi + 1 == C.ops)) {
        if (!C.seal_lo)
            C.seal_lo = C.ops;
        C.seal_hi = C.ops;
    }
}

/* The part of write K that lands before the power goes. */
static void tear(int kind, uint64_t off, const void *buf, uint32_t len, uint64_t *rng)
{
    uint32_t n;
    if (rnd(rng) & 1u)
        return; /* none of it */
    n = (uint32_t)(rnd(rng) % len);
    if (kind == RAMDISK_WRITE) {
        ramdisk_poke(&V.disk, off, buf, n);
    } else {
        static uint8_t ones[LFS_DISK_BLOCK];
        memset(ones, V.disk.fill, n);
        ramdisk_poke(&V.disk, off, ones, n);
    }
}

/* In the child, at power-up after cut K: recover, check, resume, check.
 * Returns 1 when every check held; prints one line. */
static int after_cut(uint64_t k, size_t idx, uint64_t durable, uint64_t taken)
{
    static upq_recover_state rs;
    static uint64_t rarena[RECOVER_ARENA / 8];
    upq_recover_info info;
    upq_sink sink;
    upq_status st;
    uint64_t size, want;
    char why[256] = "", name[64];
    vfile v;
    int r, sample = O.samples && C.sample_every && idx % C.sample_every == 0;

    if (volume_remount() != 0) {
        result(0, "%s cut %llu: the volume does not mount", fs_name(), (unsigned long long)k);
        return 0;
    }
    r = vfile_open(&v, LOG_NAME);
    if (r != 0) {
        int ok = durable == 0 && r == 1;
        result(ok, "%s cut %llu: no file (%llu rows were durable)", fs_name(), (unsigned long long)k,
               (unsigned long long)durable);
        return ok;
    }
    vfile_sink(&v, &sink, &size);
    shadow_shim(&sink);
    memset(&rs, 0, sizeof rs);
    memset(&info, 0, sizeof info);
    do
        st = upq_recover(&rs, &sink, size, rarena, sizeof rarena, NULL, &info);
    while (st == UPQ_AGAIN);
    if (st != UPQ_OK) {
        int ok = durable == 0 && st == UPQ_ERR_CORRUPT;
        result(ok, "%s cut %llu: recovery: %s (%s) at offset %llu; %llu rows were durable", fs_name(),
               (unsigned long long)k, upq_strerror(st),
               upq_recover_error(&rs)->what ? upq_recover_error(&rs)->what : "",
               (unsigned long long)upq_recover_error(&rs)->offset, (unsigned long long)durable);
        vfile_close(&v);
        return ok;
    }
    if (info.rows < durable || info.rows > taken) {
        result(0, "%s cut %llu: recovered %llu rows; durable %llu, taken %llu", fs_name(), (unsigned long long)k,
               (unsigned long long)info.rows, (unsigned long long)durable, (unsigned long long)taken);
        vfile_close(&v);
        return 0;
    }
    if (!check_rows(&v, C.seed, info.rows, why, sizeof why)) {
        result(0, "%s cut %llu: recovered file: %s", fs_name(), (unsigned long long)k, why);
        vfile_close(&v);
        return 0;
    }
    vfile_close(&v);
    if (!shadow_check(LOG_NAME, why, sizeof why)) {
        result(0, "%s cut %llu: recovered file: %s", fs_name(), (unsigned long long)k, why);
        return 0;
    }
    if (sample) {
        snprintf(name, sizeof name, "%s-cut%llu-recovered", fs_name(), (unsigned long long)k);
        keep_sample(LOG_NAME, name);
    }
    /* a reboot: the logger resumes the log and goes on */
    st = log_run(C.seed, O.resume_rows, 1);
    if (st != UPQ_DONE) {
        result(0, "%s cut %llu: resume after %llu rows: %s (%s)", fs_name(), (unsigned long long)k,
               (unsigned long long)info.rows, upq_strerror(st),
               upq_writer_error(&lg.w)->what ? upq_writer_error(&lg.w)->what : "");
        return 0;
    }
    want = info.rows + O.resume_rows;
    if (vfile_open(&v, LOG_NAME) != 0 || !check_rows(&v, C.seed, want, why, sizeof why)) {
        result(0, "%s cut %llu: resumed file: %s", fs_name(), (unsigned long long)k, why[0] ? why : "cannot open");
        vfile_close(&v);
        return 0;
    }
    vfile_close(&v);
    if (!shadow_check(LOG_NAME, why, sizeof why)) {
        result(0, "%s cut %llu: resumed file: %s", fs_name(), (unsigned long long)k, why);
        return 0;
    }
    if (sample) {
        snprintf(name, sizeof name, "%s-cut%llu-resumed", fs_name(), (unsigned long long)k);
        keep_sample(LOG_NAME, name);
    }
    result(1, "%s cut %llu: %llu rows recovered (durable %llu, taken %llu), %llu after resume", fs_name(),
           (unsigned long long)k, (unsigned long long)info.rows, (unsigned long long)durable,
           (unsigned long long)taken, (unsigned long long)want);
    return 1;
}

static void reap(int block)
{
    int status;
    pid_t p;
    while (C.running > 0 && (p = waitpid(-1, &status, block ? 0 : WNOHANG)) > 0) {
        C.running--;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            passed++;
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
            failed++; /* the child said why */
        } else {
            result(0, "%s: a cut's child died (status %d)", fs_name(), status);
        }
        block = 0;
    }
}

static void cut_hook(void *ctx, ramdisk *d, int kind, uint64_t off, const void *buf, uint32_t len)
{
    pid_t p;
    (void)ctx;
    C.ops++;
    if (C.next >= C.nk || C.ops != C.ks[C.next])
        return;
    while (C.running >= O.jobs)
        reap(1);
    fflush(stdout);
    fflush(stderr);
    p = fork();
    if (p == 0) {
        uint64_t durable = upq_writer_rows_durable(&lg.w);
        uint64_t rng = C.rng ^ (C.ops * UINT64_C(0x9E3779B97F4A7C15));
        if (rng == 0)
            rng = 1;
        tear(kind, off, buf, len, &rng);
        d->before = NULL;
        _exit(after_cut(C.ops, C.next, durable, lg.row + 1) ? 0 : 1);
    }
    if (p < 0) {
        result(0, "fork: %s", strerror(errno));
    } else {
        C.running++;
    }
    C.next++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* O.cuts values of K in 1..T: a sixth in the first row group, a sixth in
 * the close, the rest spread over the logging before it; the first and last
 * write always. Ascending, distinct. */
static void choose_cuts(uint64_t total, int first_rg_only)
{
    uint64_t rg1 = C.ops_rg1 ? C.ops_rg1 : total, close = C.ops_close ? C.ops_close : total;
    size_t i, n = 0, want = O.cuts;
    C.ks = (uint64_t *)calloc(want + 2, sizeof *C.ks);
    C.ks[n++] = 1;
    C.ks[n++] = first_rg_only ? rg1 : total;
    for (i = 0; i < want; i++) {
        uint64_t lo = 1, hi = total;
        if (first_rg_only || i % 6 == 0)
            hi = rg1;
        else if (i % 6 == 1)
            lo = close;
        else if (i % 6 == 2 && C.seal_lo) {
            lo = C.seal_lo; /* inside a row group's copy from the journal */
            hi = C.seal_hi;
        } else
            hi = close; /* spread over the rows (the close is most of the writes) */
        C.ks[n++] = lo + rnd(&C.rng) % (hi - lo + 1);
    }
    qsort(C.ks, n, sizeof *C.ks, cmp_u64);
    C.nk = 0;
    for (i = 0; i < n; i++)
        if (C.nk == 0 || C.ks[i] != C.ks[C.nk - 1])
            C.ks[C.nk++] = C.ks[i];
}

/* ---- reused media (FatFs) -------------------------------------------------------------- */

/* The volume holds a closed log of the same file id (readings of `old_seed`),
 * deleted: FatFs gives its clusters to the next file. */
static int old_log(uint64_t old_seed)
{
    upq_status st;
    st = log_run(old_seed, O.rows, 0);
    if (st != UPQ_DONE)
        return -1;
    return volume_delete(LOG_NAME);
}

/* ---- the FatFs adapter alone (--adapter) ------------------------------------------------- */

#define AD_MAX ((uint64_t)1 << 20) /* the model file's largest size */
/* ... on littlefs, where each write inside the file rewrites the rest of it
 * at the next sync */
#define AD_MAX_LFS ((uint64_t)96 << 10)

typedef struct adapter_model {
    uint8_t *m;   /* the file as it must read */
    uint64_t size, max;
    uint64_t rng;
    unsigned long bad;
    uint64_t ends[12]; /* where recent writes ended: streams that go on, as regions do */
} adapter_model;

/* An offset for the next write: at the end, right after the last write or
 * one of the recent ones, inside, past the end, or at a sector's start. */
static uint64_t ad_off(adapter_model *a, uint64_t last)
{
    uint64_t r = rnd(&a->rng) % 100, off;
    if (r < 25)
        off = last;
    else if (r < 40)
        off = a->ends[rnd(&a->rng) % 12];
    else if (r < 55)
        off = a->size;
    else if (r < 75)
        off = a->size ? rnd(&a->rng) % a->size : 0;
    else if (r < 90)
        off = a->size + rnd(&a->rng) % 3000;
    else
        off = (rnd(&a->rng) % (a->size / 512 + 2)) * 512;
    return off < a->max - 8192 ? off : 0;
}

static size_t ad_len(adapter_model *a)
{
    uint64_t r = rnd(&a->rng) % 100;
    if (r < 45)
        return (size_t)(1 + rnd(&a->rng) % 40);
    if (r < 80)
        return (size_t)(1 + rnd(&a->rng) % 700);
    if (r < 90)
        return (size_t)(512 * (1 + rnd(&a->rng) % 8));
    return (size_t)(1 + rnd(&a->rng) % 8192);
}

/* One write (write_at, or write at the end), taken in as many calls as the
 * adapter wants, and the model updated. */
static int ad_write(adapter_model *a, upq_sink *s, uint64_t *last)
{
    static uint8_t buf[8192];
    int append = rnd(&a->rng) % 8 == 0 && a->size < a->max - 8192;
    uint64_t off = append ? a->size : ad_off(a, *last);
    size_t len = ad_len(a), i, done = 0;
    for (i = 0; i < len; i++)
        buf[i] = (uint8_t)rnd(&a->rng);
    while (done < len) {
        size_t n = 0;
        upq_status st = append ? s->write(s->ctx, buf + done, len - done, &n)
                               : s->write_at(s->ctx, off + done, buf + done, len - done, &n);
        if (st != UPQ_OK || n == 0 || n > len - done)
            return 0;
        done += n;
    }
    if (off > a->size)
        memset(a->m + a->size, 0, (size_t)(off - a->size));
    memcpy(a->m + off, buf, len);
    if (off + len > a->size)
        a->size = off + len;
    *last = off + len;
    a->ends[rnd(&a->rng) % 12] = off + len;
    return 1;
}

/* A read anywhere (past the end too), compared with the model. */
static int ad_read(adapter_model *a, upq_sink *s)
{
    static uint8_t got[8192];
    uint64_t off = rnd(&a->rng) % (a->size + 600);
    size_t len = ad_len(a), have = 0, want;
    want = off >= a->size ? 0 : (size_t)(a->size - off < len ? a->size - off : len);
    for (;;) {
        size_t n = 0;
        if (s->read_at(s->ctx, off + have, got + have, len - have, &n) != UPQ_OK)
            return 0;
        if (n == 0 || have + n >= len) {
            have += n;
            break;
        }
        have += n;
    }
    if (!(have == want && memcmp(got, a->m + off, want) == 0)) {
        size_t k = 0;
        while (k < want && k < have && got[k] == a->m[off + k])
            k++;
        printf("# read at %llu, %zu bytes: got %zu, want %zu; first difference at %llu (%02x, want %02x)\n",
                (unsigned long long)off, len, have, want, (unsigned long long)(off + k), got[k], a->m[off + k]);
    }
    return have == want && memcmp(got, a->m + off, want) == 0;
}

/* One random call (kind *r: write, read, sync or truncate), the model
 * updated: 1, or 0 when it failed or read other bytes than the model's. */
static int ad_call(adapter_model *a, upq_sink *s, uint64_t *last, uint64_t *r)
{
    *r = rnd(&a->rng) % 100;
    if (*r < 60)
        return ad_write(a, s, last);
    if (*r < 90)
        return ad_read(a, s);
    if (*r < 96)
        return s->sync(s->ctx) == UPQ_OK;
    if (a->size) {
        uint64_t to = a->size - rnd(&a->rng) % (a->size < 2000 ? a->size : 2000);
        a->size = to;
        return s->truncate(s->ctx, to) == UPQ_OK;
    }
    return 1;
}

/* frag: the file starts as 12 clusters interleaved with another file's,
 * more fragments than the adapter's fast seek map holds; gather: the
 * adapter gathers up to 8 sectors at once (upq_fatfs_gather) */
static void adapter_test(int frag, int gather)
{
    static uint8_t gmem[7 * FF_MAX_SS];
    static FIL fil, old, other;
    static upq_fatfs fa;
    static uint8_t junk[4096];
    adapter_model a;
    upq_sink s;
    uint64_t i, last = 0;
    UINT bw;
    memset(&a, 0, sizeof a);
    a.max = AD_MAX;
    a.m = calloc(1, (size_t)AD_MAX);
    a.rng = O.seed * UINT64_C(0x9E3779B97F4A7C15) + 7u;
    memset(junk, 0xA5, sizeof junk);
    if (!a.m || volume_new() != 0 || f_open(&old, "0:old.bin", FA_WRITE | FA_CREATE_NEW) != FR_OK) {
        result(0, "fatfs adapter: cannot make the volume");
        free(a.m);
        return;
    }
    /* a deleted file's clusters under the new one: gaps must not show them */
    for (i = 0; i < AD_MAX / sizeof junk; i++)
        (void)f_write(&old, junk, sizeof junk, &bw);
    if (f_close(&old) != FR_OK || volume_delete("old.bin") != 0 ||
        f_open(&fil, "0:adapter.bin", FA_READ | FA_WRITE | FA_CREATE_NEW) != FR_OK) {
        result(0, "fatfs adapter: cannot make the files");
        free(a.m);
        return;
    }
    if (frag) {
        static uint8_t cl[32768];
        size_t k;
        if (f_open(&other, "0:other.bin", FA_WRITE | FA_CREATE_NEW) != FR_OK) {
            result(0, "fatfs adapter: cannot make the files");
            free(a.m);
            return;
        }
        for (i = 0; i < 12; i++) {
            for (k = 0; k < sizeof cl; k++)
                cl[k] = (uint8_t)rnd(&a.rng);
            memcpy(a.m + a.size, cl, sizeof cl);
            a.size += sizeof cl;
            if (f_write(&fil, cl, sizeof cl, &bw) != FR_OK || bw != sizeof cl ||
                f_write(&other, junk, sizeof junk, &bw) != FR_OK || f_sync(&other) != FR_OK)
                a.bad = 1;
            for (k = sizeof junk; k < sizeof cl; k += sizeof junk)
                (void)f_write(&other, junk, sizeof junk, &bw);
        }
        (void)f_close(&other);
        last = a.size;
    }
    upq_fatfs_init(&fa, &fil);
    fa.zero_gaps = 1; /* the model's gaps are zeros: the adapter's own zeroing is what is checked */
    if (gather)
        upq_fatfs_gather(&fa, gmem, sizeof gmem);
    upq_fatfs_sink(&fa, &s);
    for (i = 0; i < O.adapter && !a.bad; i++) {
        uint64_t r;
        int ok = ad_call(&a, &s, &last, &r);
        if (!ok || upq_fatfs_size(&fa) != a.size) {
            result(0, "fatfs adapter: call %llu (kind %llu): %s, size %llu, want %llu", (unsigned long long)i,
                   (unsigned long long)r, ok ? "size differs" : "failed or read other bytes",
                   (unsigned long long)upq_fatfs_size(&fa), (unsigned long long)a.size);
            a.bad = 1;
        }
    }
    if (!a.bad) {
        uint64_t writes = fa.writes;
        if (upq_fatfs_flush(&fa) != UPQ_OK || f_close(&fil) != FR_OK ||
            f_open(&fil, "0:adapter.bin", FA_READ) != FR_OK) {
            result(0, "fatfs adapter: cannot close and reopen the file");
        } else {
            uint8_t *back = malloc((size_t)a.size + 1);
            UINT br = 0;
            int same = back && (uint64_t)f_size(&fil) == a.size &&
                       f_read(&fil, back, (UINT)a.size, &br) == FR_OK && br == a.size &&
                       memcmp(back, a.m, (size_t)a.size) == 0;
            unsigned long maps = 0;
            int maps_ok = 1;
#if FF_USE_FASTSEEK
            maps = fa.maps;
            maps_ok = frag ? maps == 0 : maps > 0; /* the map used, or refused for its fragments */
#endif
            result(same && fa.padded > 0 && maps_ok,
                   "fatfs adapter%s%s: %llu random calls, each read and the size as the model says; the file after "
                   "f_close holds the model's %llu bytes (%llu f_write calls, %lu sectors padded with zeros, "
                   "%lu fast seek maps)",
                   frag ? " (a fragmented file)" : "", gather ? " (8 sectors gathered)" : "",
                   (unsigned long long)O.adapter, (unsigned long long)a.size,
                   (unsigned long long)writes, fa.padded, maps);
            free(back);
            (void)f_close(&fil);
        }
    }
    free(a.m);
}

/* The littlefs adapter alone with its buffers (--fs littlefs --adapter N):
 * the same random calls against the model, through a read-ahead and
 * held-back writes of `cap` bytes each; the whole file after
 * upq_littlefs_flush and lfs_file_close. */
static void adapter_test_lfs(size_t cap)
{
    static lfs_file_t lf;
    static struct lfs_file_config cfg;
    static uint8_t cache[LFS_DISK_CACHE], rbuf[4096], wbuf[4096];
    static upq_littlefs la;
    adapter_model a;
    upq_sink s;
    uint64_t i, last = 0;
    memset(&a, 0, sizeof a);
    a.max = AD_MAX_LFS;
    a.m = calloc(1, (size_t)AD_MAX);
    a.rng = O.seed * UINT64_C(0x9E3779B97F4A7C15) + cap;
    memset(&cfg, 0, sizeof cfg);
    cfg.buffer = cache;
    if (!a.m || cap > sizeof rbuf || volume_new() != 0 ||
        lfs_file_opencfg(V.lstore.lfs, &lf, "adapter.bin", LFS_O_RDWR | LFS_O_CREAT, &cfg) != 0) {
        result(0, "littlefs adapter: cannot make the file");
        free(a.m);
        return;
    }
    upq_littlefs_init(&la, V.lstore.lfs, &lf);
    upq_littlefs_buffers(&la, cap ? rbuf : NULL, cap, cap ? wbuf : NULL, cap);
    upq_littlefs_sink(&la, &s);
    for (i = 0; i < O.adapter && !a.bad; i++) {
        uint64_t r;
        int ok = ad_call(&a, &s, &last, &r);
        if (!ok || upq_littlefs_size(&la) != a.size) {
            result(0, "littlefs adapter (buffers %zu): call %llu (kind %llu): %s, size %llu, want %llu", cap,
                   (unsigned long long)i, (unsigned long long)r, ok ? "size differs" : "failed or read other bytes",
                   (unsigned long long)upq_littlefs_size(&la), (unsigned long long)a.size);
            a.bad = 1;
        }
    }
    if (!a.bad) {
        unsigned long reads = la.reads, writes = la.writes;
        uint8_t *back = malloc((size_t)a.size + 1);
        lfs_ssize_t got = -1;
        int same = 0;
        if (upq_littlefs_flush(&la) == UPQ_OK && lfs_file_close(V.lstore.lfs, &lf) == 0 &&
            lfs_file_opencfg(V.lstore.lfs, &lf, "adapter.bin", LFS_O_RDONLY, &cfg) == 0) {
            got = back ? lfs_file_read(V.lstore.lfs, &lf, back, (lfs_size_t)a.size) : -1;
            same = got >= 0 && (uint64_t)got == a.size && lfs_file_size(V.lstore.lfs, &lf) == (lfs_soff_t)a.size &&
                   memcmp(back, a.m, (size_t)a.size) == 0;
            lfs_file_close(V.lstore.lfs, &lf);
        }
        result(same, "littlefs adapter (buffers %zu): %llu random calls, each read and the size as the model says; "
               "the file after lfs_file_close holds the model's %llu bytes (%lu lfs_file_read, %lu lfs_file_write)",
               cap, (unsigned long long)O.adapter, (unsigned long long)a.size, reads, writes);
        free(back);
    }
    free(a.m);
}

/* ---- main ------------------------------------------------------------------------------- */

static int usage(void)
{
    fputs("usage: test_storage --fs fatfs|littlefs [--rows N] [--cuts N] [--seed S] [--jobs J]\n"
          "                    [--resume-rows N] [--row-group-rows N] [--samples DIR] [--reused]\n"
          "       test_storage --fs fatfs|littlefs --adapter N [--seed S]\n",
          stderr);
    return 2;
}

static int parse(int argc, char **argv)
{
    int i;
    O.rows = 100000;
    O.cuts = 300;
    O.jobs = 2;
    O.seed = 1;
    O.resume_rows = 300;
    O.rg_rows = SENSOR_ROW_GROUP_ROWS;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fs") && v) {
            O.fs = !strcmp(v, "fatfs") ? FS_FATFS : !strcmp(v, "littlefs") ? FS_LITTLEFS : 0;
            i++;
        } else if (!strcmp(a, "--rows") && v) {
            O.rows = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--cuts") && v) {
            O.cuts = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--seed") && v) {
            O.seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--jobs") && v) {
            O.jobs = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--resume-rows") && v) {
            O.resume_rows = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--row-group-rows") && v) {
            O.rg_rows = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--samples") && v) {
            O.samples = argv[++i];
        } else if (!strcmp(a, "--adapter") && v) {
            O.adapter = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(a, "--reused")) {
            O.reused = 1;
        } else {
            return 0;
        }
    }
    if (O.jobs == 0)
        O.jobs = 1;
    return O.fs != 0 && O.rows > 0 && O.rg_rows > 0 &&
           (!O.reused || O.fs == FS_FATFS);
}

/* The volume as the cut run starts: new, and for --reused holding an old
 * log of the same file id (readings `old`). */
static int prepare(uint64_t old)
{
    int r;
    if (volume_new() != 0)
        return -1;
    r = O.reused ? old_log(old) : 0;
    shadow_reset(); /* the old log's bytes are the card's now */
    return r;
}

static void run(uint64_t old_seed, const char *what)
{
    char why[256] = "";
    upq_status st;
    vfile v;
    memset(&C, 0, sizeof C);
    C.seed = O.seed;
    C.rng = O.seed * UINT64_C(0x2545F4914F6CDD1D) + 12345u;
    /* the uncut run: the device's writes counted, the closed file checked */
    if (prepare(old_seed) != 0) {
        result(0, "%s%s: cannot make the volume", fs_name(), what);
        return;
    }
    V.disk.before = count_hook;
    st = log_run(C.seed, O.rows, 0);
    V.disk.before = NULL;
    if (st != UPQ_DONE || vfile_open(&v, LOG_NAME) != 0 || !check_rows(&v, C.seed, O.rows, why, sizeof why)) {
        result(0, "%s%s: uncut run of %llu rows: %s %s", fs_name(), what, (unsigned long long)O.rows,
               upq_strerror(st), why);
        return;
    }
    vfile_close(&v);
    result(1, "%s%s: uncut run of %llu rows read back; %llu device writes%s", fs_name(), what,
           (unsigned long long)O.rows, (unsigned long long)C.ops, O.fs == FS_LITTLEFS ? " and erases" : "");
    if (O.fs == FS_FATFS)
        result(shadow_check(LOG_NAME, why, sizeof why), "%s%s: the closed file holds exactly the bytes written, "
               "none of the card's old ones %s", fs_name(), what, why);
    if (O.fs == FS_LITTLEFS && O.rows > O.rg_rows) {
        /* the first row group's copy into place went over several calls of
         * the sink's seal (UPQ_AGAIN), each of them a device write or more */
        unsigned long steps = V.lstore.ap.seal_steps, seals = V.lstore.ap.seals;
        result(C.seal_lo && C.seal_hi > C.seal_lo && steps > seals,
               "%s: the first row group's copy from the journal said UPQ_AGAIN (device writes %llu..%llu; "
               "%lu seal calls for %lu seals)", fs_name(), (unsigned long long)C.seal_lo,
               (unsigned long long)C.seal_hi, steps, seals);
    }
    if (!O.reused) {
        char name[64];
        snprintf(name, sizeof name, "%s-closed", fs_name());
        keep_sample(LOG_NAME, name);
    }
    choose_cuts(C.ops, O.reused);
    C.sample_every = C.nk / 4 ? C.nk / 4 : 1;
    printf("# %s%s: %zu cuts between device writes 1 and %llu (first row group: ..%llu, close: %llu..)\n",
           fs_name(), what, C.nk, (unsigned long long)C.ks[C.nk - 1], (unsigned long long)C.ops_rg1,
           (unsigned long long)C.ops_close);
    fflush(stdout);
    /* the run again, cut at each K in turn */
    {
        uint64_t total = C.ops;
        if (prepare(old_seed) != 0) {
            result(0, "%s%s: cannot make the volume", fs_name(), what);
            return;
        }
        C.ops = 0;
        V.disk.before = cut_hook;
        st = log_run(C.seed, O.rows, 0);
        V.disk.before = NULL;
        reap(1);
        while (C.running)
            reap(1);
        if (st != UPQ_DONE || C.ops != total)
            result(0, "%s%s: the cut run differs from the uncut one (%s, %llu writes, want %llu)", fs_name(),
                   what, upq_strerror(st), (unsigned long long)C.ops, (unsigned long long)total);
    }
    free(C.ks);
}

int main(int argc, char **argv)
{
    if (!parse(argc, argv))
        return usage();
    read_arena = malloc(READ_ARENA);
    if (O.fs == FS_FATFS && !O.adapter) {
        /* the logger's file: about 48 bytes a row, its regions' margins */
        shadow_cap = O.rows * 64u + ((uint64_t)4 << 20);
        shadow = malloc((size_t)shadow_cap);
        handed = calloc(1, (size_t)shadow_cap);
    }
    file_id = O.seed ^ UINT64_C(0x5EED5EED5EED5EED);
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (O.adapter && O.fs == FS_LITTLEFS) {
        adapter_test_lfs(0);
        adapter_test_lfs(64);
        adapter_test_lfs(1024);
    } else if (O.adapter) {
        adapter_test(0, 0);
        adapter_test(1, 0);
        adapter_test(0, 1);
        adapter_test(1, 1);
    } else if (!O.reused) {
        run(0, "");
    } else {
        /* the same readings, then other ones, under the same file id */
        run(O.seed, " reused (same readings)");
        run(O.seed + 1, " reused (other readings)");
    }
    storage_volume_free(&V);
    free(read_arena);
    free(shadow);
    free(handed);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
