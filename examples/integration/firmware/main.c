/*
 * A firmware project's main, outside the µparquet tree: the sensor logger
 * core (examples/sensor_logger) writing its log through semihosting on the
 * qemu mps2-an386 board, built by a plain Makefile that takes the library
 * from port/uparquet.mk with the `logger` option set.
 *
 *   qemu-system-arm -M mps2-an386 -semihosting-config enable=on,target=native
 *       -kernel logger.elf -append "ROWS OUT.parquet"
 *
 * Prints "rows: N" and exits 0 when the file is complete.
 */
#include <stddef.h>
#include <stdint.h>

#include "io_semihost.h"
#include "sensor_logger.h"

static sensor_logger lg;        /* the writer's state is large: static, not on the stack */
static upq_sh_file out;
static const char *out_path;

static upq_status files_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    (void)ctx;
    if (n != 0 || resume)       /* one file, no rotation, no resume here */
        return UPQ_ERR_IO;
    /* checkpoint mode reads back what it wrote: open for reading and writing */
    if (upq_sh_open(&out, out_path, UPQ_SH_READ_WRITE) != UPQ_OK)
        return UPQ_ERR_IO;
    upq_sh_sink(&out, sink);
    *size = 0;
    return UPQ_OK;
}

static upq_status files_close(void *ctx, uint32_t n)
{
    (void)ctx;
    (void)n;
    return upq_sh_close(&out);
}

static void put_u64(uint64_t v)
{
    char b[24];
    int k = 23;
    b[k] = 0;
    do
        b[--k] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    upq_sh_write0(b + k);
}

int main(void)
{
    static char cmd[256];
    static sensor_config cfg;   /* zeroed by the startup: fields not set here stay 0 */
    char *p = cmd;
    sensor_files files;
    upq_status st;
    uint64_t rows = 0;

    /* the command line: "PROGRAM ROWS OUT" (qemu puts the kernel's name first) */
    if (upq_sh_cmdline(cmd, sizeof cmd) < 0)
        upq_sh_exit(2);
    while (*p && *p != ' ')
        p++;
    while (*p == ' ')
        p++;
    while (*p >= '0' && *p <= '9')
        rows = rows * 10u + (uint64_t)(*p++ - '0');
    while (*p == ' ')
        p++;
    out_path = p;
    if (rows == 0 || *out_path == 0) {
        upq_sh_write0("usage: logger.elf ROWS OUT.parquet\n");
        upq_sh_exit(2);
    }

    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = rows;
    cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    files.open = files_open;
    files.close = files_close;
    files.ctx = NULL;
    st = sensor_logger_open(&lg, &files, &cfg);
    while (st == UPQ_OK || st == UPQ_AGAIN)
        st = sensor_logger_step(&lg);
    if (st != UPQ_DONE) {
        upq_sh_write0("logger: failed\n");
        upq_sh_exit(1);
    }
    upq_sh_write0("rows: ");
    put_u64(rows);
    upq_sh_write0("\n");
    upq_sh_exit(0);
}
