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
 * programmed, erased and read per byte of the final data file.
 *
 *   append_model [--rows N] [--checkpoint-rows N] [--row-group-rows N]
 *                [--row-bytes B] [--columns N] [--no-seek]
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

typedef struct model {
    uint64_t rows, ckpt_rows, rg_rows, columns;
    double row_bytes;
    int seek;
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

static void run(const model *m)
{
    static uint8_t dcache[LFS_DISK_CACHE], jcache[LFS_DISK_CACHE];
    struct lfs_file_config dc = {.buffer = dcache}, jc = {.buffer = jcache};
    lfs_file_t d, j;
    int flags = LFS_O_RDWR | LFS_O_CREAT | LFS_O_TRUNC;
    if (lfs_file_opencfg(&V.lfs, &d, "log.parquet", flags, &dc) ||
        lfs_file_opencfg(&V.lfs, &j, "log.journal", flags, &jc))
        fail("open", -1);
    ramdisk_count_reset(&V.disk);
    put(&d, 4 + 600); /* "PAR1" and FILE */
    sync_file(&d);
    uint64_t in_rg = 0, journal = 0;
    for (uint64_t r = 0; r < m->rows; r += m->ckpt_rows) {
        uint64_t n = m->rows - r < m->ckpt_rows ? m->rows - r : m->ckpt_rows;
        uint64_t bytes = (uint64_t)((double)n * m->row_bytes);
        for (uint64_t c = 0; c < m->columns; c++)
            put(&j, bytes / m->columns + 20); /* a page: header and body */
        put(&j, 200);                         /* CKPT */
        sync_file(&j);
        journal += bytes + 20 * m->columns;   /* the pages; records stay behind */
        in_rg += n;
        if (in_rg >= m->rg_rows || r + n >= m->rows) {
            copy(&j, &d, journal);
            put(&d, 150); /* RG */
            sync_file(&d);
            journal_reset(m, &j);
            journal = in_rg = 0;
        }
    }
    put(&d, 2000); /* page indexes and footer */
    sync_file(&d);
    double size = (double)lfs_file_size(&V.lfs, &d);
    printf("%llu rows, a checkpoint every %llu, %llu-row row groups: file %.0f bytes; per byte of it: "
           "programmed %.3fx, erased %.3fx, read %.3fx\n",
           (unsigned long long)m->rows, (unsigned long long)m->ckpt_rows, (unsigned long long)m->rg_rows,
           size, (double)V.disk.bytes_written / size, (double)V.disk.bytes_erased / size,
           (double)V.disk.bytes_read / size);
    lfs_file_close(&V.lfs, &j);
    lfs_file_close(&V.lfs, &d);
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
    model m = {10000, 600, 65536, 6, 48.8, 1};
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
        else {
            fprintf(stderr, "usage: append_model [--rows N] [--checkpoint-rows N] [--row-group-rows N] "
                            "[--row-bytes B] [--columns N] [--no-seek]\n");
            return 1;
        }
    }
    if (storage_volume_new(&V, 0, (uint64_t)256 << 20, &err_out) != 0)
        return 2;
    run(&m);
    storage_volume_free(&V);
    return 0;
}
