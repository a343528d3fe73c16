/*
 * Instructions per value on Cortex-M4: decodes leaf column 0 of a Parquet
 * file held in RAM through the column API and counts the instructions with
 * SysTick, under qemu with -icount (test/bench/fw_ipv.sh, `make bench`).
 *
 *   fw_ipv.elf IN.parquet [REPS [--no-crc]]  (the semihosting command line)
 *
 * --no-crc leaves page CRCs unchecked (upq_reader_opts.no_crc_check), to
 * show what the check costs.
 *
 * With `-icount shift=0` qemu's virtual clock advances one nanosecond per
 * instruction, and SysTick (processor clock) counts that clock at the
 * board's CPU frequency; the image calibrates ticks to instructions with a
 * loop of known length, so neither the board's clock nor qemu's scale is
 * assumed. The file is read into RAM first: what is counted is decoding
 * (page headers, levels, values, batches), not semihosting I/O.
 *
 * Console: "values N", "instructions M", "per value X.Y"; exit 1 on error.
 */
#include "fw_util.h"

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "upq_port.h"

#define FILE_MAX (1536u * 1024u)
#define ARENA (512u * 1024u)
#define BATCH 1024u

static uint8_t file_buf[FILE_MAX];
static uint64_t arena[ARENA / 8];
static uint16_t def[BATCH], rep[BATCH];
static uint64_t vals[BATCH * 2]; /* room for any value representation */
static upq_reader reader;
static upq_column_reader col;

typedef struct ram_file {
    const uint8_t *p;
    size_t n;
} ram_file;

static upq_status ram_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    ram_file *f = (ram_file *)ctx;
    *got = 0;
    if (off >= f->n)
        return UPQ_OK;
    if (len > f->n - (size_t)off)
        len = f->n - (size_t)off;
    upq_memcpy(buf, f->p + off, len);
    *got = len;
    return UPQ_OK;
}

int main(void)
{
    char *argv[4];
    int argc;
    uint64_t reps = 3, values = 0;
    uint32_t cal_ticks, r;
    upq_sh_file f;
    ram_file rf;
    size_t n = 0;
    fw_console_open();
    argc = fw_args(argv, 4);
    if (argc < 2 || (argc > 2 && !fw_parse_u64(argv[2], &reps)) || reps == 0) {
        fw_puts(fw_console(), "usage: fw_ipv.elf IN.parquet [REPS [--no-crc]]\n");
        fw_exit(2);
    }
    if (upq_sh_open(&f, argv[1], UPQ_SH_READ) != UPQ_OK || f.size > FILE_MAX) {
        fw_puts(fw_console(), "error: cannot open the file, or it is larger than 1.5 MB\n");
        fw_exit(2);
    }
    while (n < f.size) {
        size_t got;
        if (upq_sh_read_at(&f, n, file_buf + n, (size_t)f.size - n, &got) != UPQ_OK || got == 0) {
            fw_puts(fw_console(), "error: read failed\n");
            fw_exit(2);
        }
        n += got;
    }
    upq_sh_close(&f);

    cal_ticks = fw_count_calibrate(); /* ticks per 2,000,000 instructions */

    rf.p = file_buf;
    rf.n = n;
    upq_io io = {&rf, ram_read_at, n, NULL};
    upq_reader_opts o;
    upq_memset(&o, 0, sizeof o);
    o.no_crc_check = (uint8_t)(argc > 3 && fw_streq(argv[3], "--no-crc"));
    upq_reader_init(&reader, &io, arena, sizeof arena, &o);
    if (upq_reader_open(&reader) != UPQ_OK) {
        fw_puts(fw_console(), "error: cannot open the footer\n");
        fw_exit(1);
    }
    fw_count_start();
    for (r = 0; r < reps; r++) {
        for (uint32_t g = 0; g < upq_reader_num_row_groups(&reader); g++) {
            upq_status st = upq_column_open(&col, &reader, g, 0);
            while (st == UPQ_OK) {
                upq_batch b;
                /* members one by one: an initialiser is a memcpy call on RV32 */
                b.def = def;
                b.rep = rep;
                b.values = vals;
                b.cap = BATCH;
                b.levels = b.values_n = 0;
                st = upq_column_read(&col, &b);
                values += b.values_n;
                fw_count_take();
            }
            upq_column_close(&col);
            if (st != UPQ_DONE) {
                fw_puts(fw_console(), "error: column read failed\n");
                fw_exit(1);
            }
        }
    }
    fw_count_take();
    if (values == 0 || cal_ticks == 0) {
        fw_puts(fw_console(), "error: no values\n");
        fw_exit(1);
    }
    fw_puts(fw_console(), "values ");
    fw_put_u64(fw_console(), values / reps);
    fw_puts(fw_console(), "\ninstructions ");
    fw_put_u64(fw_console(), fw_count_ticks() * 2000000ull / cal_ticks / reps);
    fw_puts(fw_console(), "\nper value ");
    fw_put_per(fw_console(), fw_count_ticks(), cal_ticks, values);
    fw_putc(fw_console(), '\n');
    fw_exit(0);
}
