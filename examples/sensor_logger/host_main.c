/*
 * The sensor logger on a host: the core (sensor_logger.c) and the main loop
 * the firmware runs too (logger_cli.c), writing through one of three
 * stores (--fs):
 *
 *   posix     files of this machine (pwrite, pread, fsync, ftruncate): the default;
 *   fatfs     a FAT32 volume (32 KiB clusters, 2 GiB) through FatFs and
 *             port/adapters/fatfs, on a RAM disk, as a board with an SD card;
 *   littlefs  littlefs (4 KiB blocks, 128 MiB) through port/adapters/littlefs,
 *             on a RAM flash chip, as a board with NOR flash.
 *
 * With fatfs and littlefs the log's files are copied out of the volume to
 * OUT (and its next files) at the end, so that any reader can open them;
 * --image PATH keeps the volume in a file (read at start when it exists,
 * formatted otherwise; written back at the end), which --resume needs.
 *
 * Options: logger_cli.h. Prints the arena it uses, then a line per file and
 * a total.
 */
#define _POSIX_C_SOURCE 200809L

#include "sensor_logger.h"
#include "logger_cli.h"
#include "uparquet/posix.h"
#include "fs_stores.h" /* SENSOR_WITH_FATFS, SENSOR_WITH_LITTLEFS */
#if SENSOR_WITH_FATFS || SENSOR_WITH_LITTLEFS
#include "ramdisk.h"
#endif
#if SENSOR_WITH_FATFS
#include "fatfs_disk.h"
#endif
#if SENSOR_WITH_LITTLEFS
#include "lfs_disk.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void put_file(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, (FILE *)ctx);
}

/* ---- posix: this machine's files ------------------------------------------------- */

typedef struct posix_store {
    upq_posix_sink sink;
} posix_store;

static upq_status px_open(void *ctx, const char *name, int create, upq_sink *sink, uint64_t *size)
{
    posix_store *p = (posix_store *)ctx;
    struct stat sb;
    if (create && stat(name, &sb) == 0) {
        fprintf(stderr, "sensor_logger: %s exists: resume the log's last file instead\n", name);
        return UPQ_ERR_IO;
    }
    if (upq_posix_sink_open(&p->sink, name, create) != UPQ_OK) {
        fprintf(stderr, "sensor_logger: %s: %s\n", name, strerror(errno));
        return UPQ_ERR_IO;
    }
    upq_posix_sink_init(&p->sink, sink);
    *size = p->sink.size;
    return UPQ_OK;
}

static upq_status px_close(void *ctx)
{
    upq_posix_sink_close(&((posix_store *)ctx)->sink);
    return UPQ_OK;
}

#if SENSOR_WITH_FATFS || SENSOR_WITH_LITTLEFS
/* ---- a volume in memory, kept in an image file ------------------------------------ */

static uint8_t *chunk_alloc(void *ctx)
{
    (void)ctx;
    return (uint8_t *)malloc(RAMDISK_CHUNK);
}

static void disk_make(ramdisk *d, uint64_t size, uint8_t fill)
{
    memset(d, 0, sizeof *d);
    d->size = size;
    d->fill = fill;
    d->chunks = (uint8_t **)calloc((size_t)(size / RAMDISK_CHUNK), sizeof *d->chunks);
    d->alloc = chunk_alloc;
    if (!d->chunks) {
        fputs("sensor_logger: out of memory\n", stderr);
        exit(1);
    }
}

/* 1 loaded, 0 no such file, -1 error. Chunks all of d->fill stay unmade. */
static int image_load(ramdisk *d, const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    uint64_t c;
    if (!f)
        return errno == ENOENT ? 0 : -1;
    buf = (uint8_t *)malloc(RAMDISK_CHUNK);
    for (c = 0; buf && c < d->size / RAMDISK_CHUNK; c++) {
        size_t n = fread(buf, 1, RAMDISK_CHUNK, f), i;
        if (n == 0)
            break;
        for (i = 0; i < n && buf[i] == d->fill; i++)
            ;
        if (i < n && ramdisk_poke(d, c * RAMDISK_CHUNK, buf, (uint32_t)n) != 0)
            break;
    }
    free(buf);
    fclose(f);
    return 1;
}

/* Written sparse: only the chunks ever made. */
static int image_save(ramdisk *d, const char *path)
{
    FILE *f = fopen(path, "wb");
    uint64_t c, n = d->size / RAMDISK_CHUNK;
    int ok = f != NULL;
    for (c = 0; ok && c < n; c++) {
        if (!d->chunks[c])
            continue;
        ok = fseeko(f, (off_t)(c * RAMDISK_CHUNK), SEEK_SET) == 0 &&
             fwrite(d->chunks[c], 1, RAMDISK_CHUNK, f) == RAMDISK_CHUNK;
    }
    if (ok && n > 0 && !d->chunks[n - 1]) {
        /* the image's size, even when its end was never written */
        static const uint8_t ff[1] = {0xFF};
        ok = fseeko(f, (off_t)(d->size - 1), SEEK_SET) == 0 &&
             fwrite(d->fill ? ff : (const uint8_t *)"", 1, 1, f) == 1;
    }
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "sensor_logger: cannot write the image %s: %s\n", path, strerror(errno));
    return ok;
}

/* The volume: --image's when there is one (1), else a new one (0); -1
 * after saying why not. */
static int volume_open(const sensor_cli *c, ramdisk *d, uint64_t size, uint8_t fill)
{
    int loaded;
    disk_make(d, size, fill);
    loaded = c->image ? image_load(d, c->image) : 0;
    if (loaded < 0 || (c->cfg.resume && loaded == 0)) {
        fprintf(stderr, "sensor_logger: %s: %s\n", c->image ? c->image : "--resume needs --image",
                loaded < 0 ? strerror(errno) : "no such image");
        return -1;
    }
    return loaded;
}

/* Copies file `name` of the volume out to the host path `name`. */
typedef int (*read_fn)(void *ctx, const char *name, FILE *to);

static int copy_out(sensor_cli *c, read_fn rd, void *ctx, uint32_t last)
{
    uint32_t n;
    for (n = c->cfg.first_file; n <= last; n++) {
        const char *name = sensor_cli_file_name(c, n);
        FILE *to = fopen(name, "wb");
        int ok = to && rd(ctx, name, to) == 0;
        if (to && fclose(to) != 0)
            ok = 0;
        if (!ok) {
            fprintf(stderr, "sensor_logger: cannot copy %s out of the volume\n", name);
            return 0;
        }
    }
    return 1;
}
#endif

#if SENSOR_WITH_FATFS
static int fat_read_out(void *ctx, const char *name, FILE *to)
{
    fatfs_store *s = (fatfs_store *)ctx;
    static uint8_t buf[32768];
    FIL fil;
    UINT br;
    if (f_open(&fil, fatfs_store_path(s, name), FA_READ) != FR_OK)
        return -1;
    do {
        if (f_read(&fil, buf, sizeof buf, &br) != FR_OK) {
            f_close(&fil);
            return -1;
        }
        fwrite(buf, 1, br, to);
    } while (br == sizeof buf);
    f_close(&fil);
    return 0;
}

static int run_fatfs(sensor_cli *c, sensor_logger *lg, const sensor_out *out, const sensor_out *err)
{
    static ramdisk d;
    static FATFS fs;
    static fatfs_store st;
    static uint8_t work[4096];
    sensor_store store;
    int loaded, rc;
    loaded = volume_open(c, &d, (uint64_t)2 << 30, 0);
    if (loaded < 0)
        return 1;
    fatfs_disk_attach(0, &d);
    if (!loaded && fatfs_disk_format("0:", 1, 32768, work, sizeof work) != FR_OK) {
        fputs("sensor_logger: cannot format the FAT volume\n", stderr);
        return 1;
    }
    if (f_mount(&fs, "0:", 1) != FR_OK) {
        fputs("sensor_logger: the image holds no FAT volume\n", stderr);
        return 1;
    }
    fatfs_store_init(&st, "0:", err, &store);
    rc = sensor_cli_run(c, lg, &store, out, NULL, NULL);
    if (!copy_out(c, fat_read_out, &st, lg->file))
        rc = 1;
    f_mount(NULL, "0:", 0);
    if (c->image && !image_save(&d, c->image))
        rc = 1;
    return rc;
}
#endif

#if SENSOR_WITH_LITTLEFS
static int lfs_read_out(void *ctx, const char *name, FILE *to)
{
    littlefs_store *s = (littlefs_store *)ctx;
    static uint8_t buf[32768];
    lfs_file_t f;
    lfs_ssize_t n;
    if (lfs_file_open(s->lfs, &f, sensor_base_name(name), LFS_O_RDONLY) != 0)
        return -1;
    while ((n = lfs_file_read(s->lfs, &f, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, to);
    lfs_file_close(s->lfs, &f);
    return n < 0 ? -1 : 0;
}

static int run_littlefs(sensor_cli *c, sensor_logger *lg, const sensor_out *out, const sensor_out *err)
{
    static ramdisk d;
    static lfs_t lfs;
    static struct lfs_config cfg;
    static uint8_t rc_buf[LFS_DISK_CACHE], pc_buf[LFS_DISK_CACHE], la_buf[LFS_DISK_LOOKAHEAD];
    static littlefs_store st;
    sensor_store store;
    int loaded, rc;
    loaded = volume_open(c, &d, (uint64_t)128 << 20, 0xFF);
    if (loaded < 0)
        return 1;
    lfs_disk_config(&cfg, &d, rc_buf, pc_buf, la_buf);
    if (!loaded && lfs_format(&lfs, &cfg) != 0) {
        fputs("sensor_logger: cannot format littlefs\n", stderr);
        return 1;
    }
    if (lfs_mount(&lfs, &cfg) != 0) {
        fputs("sensor_logger: the image holds no littlefs\n", stderr);
        return 1;
    }
    littlefs_store_init(&st, &lfs, err, &store);
    rc = sensor_cli_run(c, lg, &store, out, NULL, NULL);
    if (!copy_out(c, lfs_read_out, &st, lg->file))
        rc = 1;
    lfs_unmount(&lfs);
    if (c->image && !image_save(&d, c->image))
        rc = 1;
    return rc;
}
#endif

int main(int argc, char **argv)
{
    static sensor_logger lg; /* the writer's state is large: not on the stack */
    static sensor_cli cli;
    static posix_store px;
    sensor_out out = {put_file, NULL}, err = {put_file, NULL};
    sensor_store store = {px_open, px_close, &px};
    int rc;
    out.ctx = stdout;
    err.ctx = stderr;
    rc = sensor_cli_parse(&cli, argc, argv, &err);
    if (rc != 0)
        return rc;
    if (cli.count) {
        fputs("sensor_logger: --count is the firmware's\n", stderr);
        return 2;
    }
    switch (cli.fs) {
    case SENSOR_FS_DEFAULT:
    case SENSOR_FS_POSIX:
        if (cli.image) {
            fputs("sensor_logger: --image goes with --fs fatfs or littlefs\n", stderr);
            return 2;
        }
        rc = sensor_cli_run(&cli, &lg, &store, &out, NULL, NULL);
        break;
#if SENSOR_WITH_FATFS
    case SENSOR_FS_FATFS:
        rc = run_fatfs(&cli, &lg, &out, &err);
        break;
#endif
#if SENSOR_WITH_LITTLEFS
    case SENSOR_FS_LITTLEFS:
        rc = run_littlefs(&cli, &lg, &out, &err);
        break;
#endif
    default:
        fputs("sensor_logger: this build has no such --fs (FatFs and littlefs come from FATFS_DIR and "
              "LITTLEFS_DIR when it is built)\n", stderr);
        return 2;
    }
    fflush(stdout);
    return rc;
}
