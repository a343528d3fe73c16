/*
 * What the append layout (docs/writer.md, "Append layout") would cost on
 * littlefs, before it is built: the layout's file operations without the
 * writer, on the counting RAM device of the storage tests (4 KiB blocks,
 * 16-byte programs, 256-byte caches). It sizes the design; it proves
 * nothing about the writer, whose own figures are bench_storage's.
 *
 * Per checkpoint: the open row group's new pages (one per column) appended
 * to the journal file, a checkpoint record, a sync of the journal. At a row
 * group's end: the journal read back and appended to the data file, an RG
 * record, a sync of the data file, the journal truncated to nothing. At the
 * end: page indexes and footer, a sync. Prints the device's bytes
 * programmed, erased and read per byte of the final data file, and the
 * file's size per byte of live data.
 *
 * --layout columns models the alternative of a journal file per column (the
 * record in the first), --layout one that of no journal file: the open row
 * group appended to the data file itself and copied after it at its end.
 *
 *   append_model [--rows N] [--checkpoint-rows N] [--row-group-rows N]
 *                [--row-bytes B] [--columns N] [--no-seek]
 *                [--layout two|columns|one]
 *
 * Defaults: the sensor logger's (10,000 rows, a checkpoint every 600 rows,
 * 64K-row row groups, 48.8 bytes a row as its file has them, 6 columns).
 * --no-seek leaves the journal's position where lfs_file_truncate leaves
 * it (the old end), which is what a layout that forgets to seek gets.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "volume.h"

static storage_volume V;
static uint8_t buf[4096];

static void put_err(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    fwrite(s, 1, n, stderr);
}
static const sensor_out err_out = {put_err, NULL};

static void fail(const char *what, int err)
{
    fprintf(stderr, "append_model: %s: littlefs error %d\n", what, err);
    exit(2);
}

/* `n` bytes at the file's position */
static void put(lfs_file_t *f, uint64_t n)
{
    memset(buf, 0x5a, sizeof buf);
    while (n) {
        lfs_size_t k = n > sizeof buf ? (lfs_size_t)sizeof buf : (lfs_size_t)n;
        lfs_ssize_t w = lfs_file_write(&V.lfs, f, buf, k);
        if (w != (lfs_ssize_t)k)
            fail("write", (int)w);
        n -= k;
    }
}

static void sync_file(lfs_file_t *f)
{
    int err = lfs_file_sync(&V.lfs, f);
    if (err)
        fail("sync", err);
}

/* the journal's `n` bytes appended to the data file */
static void copy(lfs_file_t *j, lfs_file_t *d, uint64_t n)
{
    lfs_soff_t s = lfs_file_seek(&V.lfs, j, 0, LFS_SEEK_SET);
    if (s < 0)
        fail("seek", (int)s);
    while (n) {
        lfs_size_t k = n > sizeof buf ? (lfs_size_t)sizeof buf : (lfs_size_t)n;
        lfs_ssize_t r = lfs_file_read(&V.lfs, j, buf, k);
        if (r != (lfs_ssize_t)k)
            fail("read", (int)r);
        if (lfs_file_write(&V.lfs, d, buf, k) != (lfs_ssize_t)k)
            fail("write", -1);
        n -= k;
    }
}

enum { TWO, COLUMNS, ONE };
#define MAX_COLUMNS 16

typedef struct model {
    uint64_t rows, ckpt_rows, rg_rows, columns;
    double row_bytes;
    int seek, layout;
} model;

/* the row group's journal emptied: truncated, synced, and (unless --no-seek)
 * its position back at 0, since lfs_file_truncate keeps the old one */
static void journal_reset(const model *m, lfs_file_t *j)
{
    int err = lfs_file_truncate(&V.lfs, j, 0);
    if (err)
        fail("truncate", err);
    if (m->seek && lfs_file_seek(&V.lfs, j, 0, LFS_SEEK_SET) < 0)
        fail("seek", -1);
    sync_file(j);
}

static lfs_file_t files[MAX_COLUMNS + 1];
static uint8_t caches[MAX_COLUMNS + 1][LFS_DISK_CACHE];

static void open_file(lfs_file_t *f, uint8_t *cache, const char *name)
{
    static struct lfs_file_config cfg[MAX_COLUMNS + 1];
    static int n;
    cfg[n].buffer = cache;
    if (lfs_file_opencfg(&V.lfs, f, name, LFS_O_RDWR | LFS_O_CREAT | LFS_O_TRUNC, &cfg[n]))
        fail("open", -1);
    n++;
}

/* the journals (one, or one per column) emptied into the data file */
static void rg_end(const model *m, lfs_file_t *d, uint64_t *journal, uint64_t nj)
{
    for (uint64_t i = 0; i < nj; i++) {
        copy(&files[1 + i], d, journal[i]);
        if (m->layout != ONE)
            journal_reset(m, &files[1 + i]);
        journal[i] = 0;
    }
}

static void run(const model *m)
{
    lfs_file_t *d = &files[0];
    uint64_t nj = m->layout == COLUMNS ? m->columns : 1, journal[MAX_COLUMNS] = {0};
    char name[32];
    open_file(d, caches[0], "log.parquet");
    for (uint64_t i = 0; i < nj; i++) {
        snprintf(name, sizeof name, "log.journal%u", (unsigned)i);
        open_file(&files[1 + i], caches[1 + i], name);
    }
    ramdisk_count_reset(&V.disk);
    put(d, 4 + 600); /* "PAR1" and FILE */
    sync_file(d);
    uint64_t in_rg = 0, live = 4 + 600;
    for (uint64_t r = 0; r < m->rows; r += m->ckpt_rows) {
        uint64_t n = m->rows - r < m->ckpt_rows ? m->rows - r : m->ckpt_rows;
        uint64_t bytes = (uint64_t)((double)n * m->row_bytes);
        for (uint64_t c = 0; c < m->columns; c++) {
            uint64_t k = nj == 1 ? 0 : c;
            lfs_file_t *j = m->layout == ONE ? d : &files[1 + k];
            put(j, bytes / m->columns + 20); /* a page: header and body */
            journal[k] += bytes / m->columns + 20;
        }
        put(m->layout == ONE ? d : &files[1], 200); /* CKPT */
        for (uint64_t i = 0; i < nj; i++)
            sync_file(m->layout == ONE ? d : &files[1 + i]);
        in_rg += n;
        if (in_rg >= m->rg_rows || r + n >= m->rows) {
            /* one file: the row group's pages were the journal; the copy
             * comes after them and they stay, dead */
            uint64_t pages = 0;
            for (uint64_t i = 0; i < nj; i++)
                pages += journal[i];
            live += pages + 150;
            if (m->layout == ONE) {
                put(d, pages); /* the copy (the bytes read back are the file's own) */
                journal[0] = 0;
            } else {
                rg_end(m, d, journal, nj);
            }
            put(d, 150); /* RG */
            sync_file(d);
            in_rg = 0;
        }
    }
    put(d, 2000); /* page indexes and footer */
    live += 2000;
    sync_file(d);
    double size = (double)lfs_file_size(&V.lfs, d);
    static const char *const names[] = {"data file + journal", "data file + a journal per column",
                                        "one file"};
    printf("%s: %llu rows, a checkpoint every %llu, %llu-row row groups: file %.0f bytes (%.3fx live "
           "data); per byte of it: programmed %.3fx, erased %.3fx, read %.3fx\n",
           names[m->layout], (unsigned long long)m->rows, (unsigned long long)m->ckpt_rows,
           (unsigned long long)m->rg_rows, size, size / (double)live,
           (double)V.disk.bytes_written / size, (double)V.disk.bytes_erased / size,
           (double)V.disk.bytes_read / size);
    for (uint64_t i = 0; i <= nj; i++)
        lfs_file_close(&V.lfs, &files[i]);
}

static int num(int argc, char **argv, int *i, const char *name, double *v)
{
    if (strcmp(argv[*i], name) != 0 || *i + 1 >= argc)
        return 0;
    char *end;
    *v = strtod(argv[++*i], &end);
    if (*end || *v < 1) {
        fprintf(stderr, "append_model: %s wants a number from 1\n", name);
        exit(1);
    }
    return 1;
}

int main(int argc, char **argv)
{
    model m = {10000, 600, 65536, 6, 48.8, 1, TWO};
    for (int i = 1; i < argc; i++) {
        double v;
        if (num(argc, argv, &i, "--rows", &v))
            m.rows = (uint64_t)v;
        else if (num(argc, argv, &i, "--checkpoint-rows", &v))
            m.ckpt_rows = (uint64_t)v;
        else if (num(argc, argv, &i, "--row-group-rows", &v))
            m.rg_rows = (uint64_t)v;
        else if (num(argc, argv, &i, "--row-bytes", &v))
            m.row_bytes = v;
        else if (num(argc, argv, &i, "--columns", &v))
            m.columns = (uint64_t)v;
        else if (strcmp(argv[i], "--no-seek") == 0)
            m.seek = 0;
        else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc && strcmp(argv[i + 1], "two") == 0)
            m.layout = TWO, i++;
        else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc && strcmp(argv[i + 1], "columns") == 0)
            m.layout = COLUMNS, i++;
        else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc && strcmp(argv[i + 1], "one") == 0)
            m.layout = ONE, i++;
        else {
            fprintf(stderr, "usage: append_model [--rows N] [--checkpoint-rows N] [--row-group-rows N] "
                            "[--row-bytes B] [--columns N] [--no-seek] [--layout two|columns|one]\n");
            return 1;
        }
    }
    if (m.columns > MAX_COLUMNS) {
        fprintf(stderr, "append_model: at most %d columns\n", MAX_COLUMNS);
        return 1;
    }
    if (storage_volume_new(&V, 0, (uint64_t)256 << 20, &err_out) != 0)
        return 2;
    run(&m);
    storage_volume_free(&V);
    return 0;
}
