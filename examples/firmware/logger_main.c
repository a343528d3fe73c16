/*
 * The sensor logger firmware: the core of examples/sensor_logger and its
 * main loop (logger_cli.c, the same files the host program links), writing
 * through semihosting files or, built with FW_WITH_FATFS, through FatFs and
 * port/adapters/fatfs on a RAM disk in the board's memory (as a board with
 * an SD card; FW_RAMDISK_BYTES, formatted FAT at reset), the log's files
 * copied out over semihosting at the end.
 *
 *   sensor_logger.elf [host options] [--count] OUT.parquet    (the semihosting command line)
 *   sensor_logger_fatfs.elf [host options] --fs fatfs OUT.parquet
 *
 * The options are the host program's (logger_cli.h) and so are the files:
 * OUT, then OUT's next files when rotating; --resume continues OUT (over
 * semihosting only: a RAM disk does not outlive a reset). Prints what the
 * host program prints ("arena: ...", "file: ...", "rows: ..."), then the
 * stack high-water mark.
 *
 * --count (under qemu with -icount shift=0: test/bench/fw_ipv.sh) counts the
 * instructions of the logging loop and prints "per row N" (everything the
 * board runs per row: the synthetic sample, the writer, pages, checkpoints,
 * the sink's calls; a semihosting write itself traps out of the count) and
 * "sample per row M" (sensor_read alone, the part a real board replaces
 * with reading its sensors). Exit status 0, 1 (the writer failed) or 2
 * (usage, or a file cannot be opened).
 */
#include "fw_util.h"
#include "upq_port.h"

#ifndef FW_WITH_FATFS
#define FW_WITH_FATFS 0
#endif

#include "../sensor_logger/sensor_logger.h"
#include "../sensor_logger/logger_cli.h"
#if FW_WITH_FATFS
#include "../sensor_logger/fatfs_disk.h"
#include "../sensor_logger/fs_stores.h"
#endif

static sensor_logger lg; /* the writer's state is large: not on the stack */
static sensor_cli cli;
static upq_sh_file out_file;

static void console_put(void *ctx, const char *s, size_t n)
{
    fw_put((fw_out *)ctx, s, n);
}

/* ---- files over semihosting ------------------------------------------------------- */

static upq_status sh_open(void *ctx, const char *name, int create, upq_sink *sink, uint64_t *size)
{
    upq_sh_file *f = &out_file;
    fw_out *c = fw_console();
    (void)ctx;
    if (create && upq_sh_open(f, name, UPQ_SH_READ) == UPQ_OK) {
        (void)upq_sh_close(f);
        fw_puts(c, "sensor_logger: ");
        fw_puts(c, name);
        fw_puts(c, " exists: resume the log's last file instead\n");
        return UPQ_ERR_IO;
    }
    if (upq_sh_open(f, name, create ? UPQ_SH_READ_WRITE : UPQ_SH_UPDATE) != UPQ_OK) {
        fw_puts(c, "sensor_logger: cannot open ");
        fw_puts(c, name);
        fw_putc(c, '\n');
        return UPQ_ERR_IO;
    }
    upq_sh_sink(f, sink);
    *size = f->size;
    return UPQ_OK;
}

static upq_status sh_close(void *ctx)
{
    (void)ctx;
    if (out_file.handle < 0)
        return UPQ_OK;
    return upq_sh_close(&out_file);
}

#if FW_WITH_FATFS
/* ---- files on FatFs, on a RAM disk -------------------------------------------------- */

#ifndef FW_RAMDISK_BYTES
#define FW_RAMDISK_BYTES (2u << 20)
#endif
static uint8_t ramdisk_bytes[FW_RAMDISK_BYTES];
static ramdisk disk;
static FATFS fatfs;
static fatfs_store fstore;

static int fat_mount(void)
{
    static uint8_t work[FATFS_DISK_SECTOR];
    disk.size = FW_RAMDISK_BYTES;
    disk.flat = ramdisk_bytes;
    fatfs_disk_attach(0, &disk);
    return fatfs_disk_format("0:", 0, 0, work, sizeof work) == FR_OK && f_mount(&fatfs, "0:", 1) == FR_OK;
}

/* Copies the log's files n0..n1 from the volume to semihosting files of
 * the same names. 1 when all were copied. */
static int fat_copy_out(uint32_t n0, uint32_t n1)
{
    static uint8_t buf[4096];
    uint32_t n;
    for (n = n0; n <= n1; n++) {
        const char *name = sensor_cli_file_name(&cli, n);
        uint64_t off = 0;
        FIL fil;
        UINT br = 0;
        int ok = f_open(&fil, fatfs_store_path(&fstore, name), FA_READ) == FR_OK;
        ok = ok && upq_sh_open(&out_file, name, UPQ_SH_WRITE) == UPQ_OK;
        while (ok && f_read(&fil, buf, sizeof buf, &br) == FR_OK && br > 0) {
            size_t w = 0, done = 0;
            while (ok && done < br) {
                ok = upq_sh_write_at(&out_file, off + done, buf + done, br - done, &w) == UPQ_OK && w > 0;
                done += w;
            }
            off += br;
        }
        f_close(&fil);
        if (out_file.handle >= 0)
            (void)upq_sh_close(&out_file);
        if (!ok) {
            fw_puts(fw_console(), "sensor_logger: cannot copy ");
            fw_puts(fw_console(), name);
            fw_puts(fw_console(), " out of the volume\n");
            return 0;
        }
    }
    return 1;
}
#endif

/* ---- --count ------------------------------------------------------------------------ */

static void count_tick(void *ctx)
{
    (void)ctx;
    fw_count_take();
}

static void count_sample(fw_out *c, uint32_t cal)
{
    uint64_t rng = cli.cfg.seed ^ UINT64_C(0x9E3779B97F4A7C15), r;
    sensor_sample smp;
    fw_puts(c, "per row ");
    fw_put_per(c, fw_count_ticks(), cal, cli.cfg.rows);
    if (rng == 0)
        rng = 1; /* as sensor_logger_setup seeds it */
    fw_count_start();
    for (r = 0; r < cli.cfg.rows; r++) {
        sensor_read(&rng, r, &smp);
        if ((r & 1023u) == 0)
            fw_count_take();
    }
    fw_count_take();
    fw_puts(c, "\nsample per row ");
    fw_put_per(c, fw_count_ticks(), cal, cli.cfg.rows);
    fw_putc(c, '\n');
}

int main(void)
{
    char *argv[24];
    sensor_store store = {sh_open, sh_close, 0};
    sensor_out out;
    fw_out *c;
    int argc, rc;
    uint32_t cal = 0;

    fw_console_open();
    c = fw_console();
    out.put = console_put;
    out.ctx = c;
    out_file.handle = -1;
    argc = fw_args(argv, 24);
    if (sensor_cli_parse(&cli, argc, argv, &out) != 0)
        fw_exit(2);
#if FW_WITH_FATFS
    if (cli.fs == SENSOR_FS_FATFS) {
        if (cli.cfg.resume || cli.count) {
            fw_puts(c, "sensor_logger: --resume and --count go with --fs semihost\n");
            fw_exit(2);
        }
        if (!fat_mount()) {
            fw_puts(c, "sensor_logger: cannot format the RAM disk\n");
            fw_exit(2);
        }
        fatfs_store_init(&fstore, "0:", &out, &store);
    } else
#endif
    if (cli.fs != SENSOR_FS_DEFAULT && cli.fs != SENSOR_FS_SEMIHOST) {
        fw_puts(c, "sensor_logger: this image has no such --fs\n");
        fw_exit(2);
    }
    if (cli.image) {
        fw_puts(c, "sensor_logger: --image is the host program's\n");
        fw_exit(2);
    }
    if (cli.count) {
        cal = fw_count_calibrate();
        fw_count_start();
    }
    rc = sensor_cli_run(&cli, &lg, &store, &out, cli.count ? count_tick : 0, 0);
#if FW_WITH_FATFS
    if (cli.fs == SENSOR_FS_FATFS && !fat_copy_out(cli.cfg.first_file, lg.file))
        rc = 1;
#endif
    if (rc == 0 && cli.count)
        count_sample(c, cal);
    fw_exit(rc);
}
