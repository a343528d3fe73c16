/*
 * Instructions per value on Cortex-M4: decodes leaf column 0 of a Parquet
 * file held in RAM through the column API and counts the instructions with
 * SysTick, under qemu with -icount (test/bench/fw_ipv.sh, `make bench`).
 *
 *   fw_ipv.elf IN.parquet [REPS [--no-crc]]  (the semihosting command line)
 *   fw_ipv.elf --runs ROWS OUT.parquet
 *
 * --runs logs instead: 8 FLOAT channels (BYTE_STREAM_SPLIT, page CRC on, no
 * dictionary) in checkpoint mode, a checkpoint every 4,096 rows, each
 * channel's samples appended as runs of 256 (upq_writer_put_run, as from a
 * DMA buffer of ADC samples), into a file in RAM; counted from init through
 * close (checkpoints, the close's page index and footer included), then the
 * file is copied out over semihosting. Channel k's sample of row i is
 * (i % 256) * 0.25 + k (the buffers are reused: what is counted is the
 * writer, not making samples). Prints "values N", "per value X.Y".
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
#include "uparquet/writer.h"
#include "uparquet/schema_builder.h"
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

/* ---- --runs: logging runs of samples ------------------------------------------- */

#define RUN_CHANNELS 8u
#define RUN_LEN 256u
static float run_buf[RUN_CHANNELS][RUN_LEN];
static upq_writer run_w;
static upq_schema_element run_elems[RUN_CHANNELS + 1];

static upq_status ram_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    ram_file *f = (ram_file *)ctx;
    *written = 0;
    if (off > FILE_MAX || len > FILE_MAX - (size_t)off)
        return UPQ_ERR_IO;
    upq_memcpy(file_buf + off, buf, len);
    if ((size_t)off + len > f->n)
        f->n = (size_t)off + len;
    *written = len;
    return UPQ_OK;
}

static void run_fail(const char *what)
{
    fw_puts(fw_console(), "error: ");
    fw_puts(fw_console(), what);
    fw_putc(fw_console(), '\n');
    fw_exit(1);
}

static void run_log(uint64_t rows, const char *out, uint32_t cal)
{
    static const char *const names[RUN_CHANNELS] = {"ch0", "ch1", "ch2", "ch3",
                                                    "ch4", "ch5", "ch6", "ch7"};
    upq_schema_builder b;
    upq_column_opts co[RUN_CHANNELS];
    upq_writer_opts o;
    upq_sink sink;
    upq_sh_file f;
    ram_file rf;
    uint32_t nel = 0, k, i;
    uint64_t done = 0;
    upq_status st;
    size_t off;
    for (k = 0; k < RUN_CHANNELS; k++)
        for (i = 0; i < RUN_LEN; i++)
            run_buf[k][i] = (float)i * 0.25f + (float)k;
    upq_sb_init(&b, run_elems, RUN_CHANNELS + 1, "adc");
    for (k = 0; k < RUN_CHANNELS; k++)
        upq_sb_column(&b, names[k], UPQ_REP_REQUIRED, UPQ_TYPE_FLOAT, 0, 0);
    if (upq_sb_finish(&b, &nel) != UPQ_OK)
        run_fail("schema");
    upq_memset(&o, 0, sizeof o);
    upq_memset(co, 0, sizeof co);
    for (k = 0; k < RUN_CHANNELS; k++) {
        co[k].encoding = UPQ_ENC_BYTE_STREAM_SPLIT;
        co[k].dictionary = 0;
    }
    o.columns = co;
    o.ncolumns = RUN_CHANNELS;
    o.page_size = 4096;
    o.checkpoint = 1;
    o.checkpoint_rows = 4096;
    o.file_rows = rows;
    rf.p = file_buf;
    rf.n = 0;
    upq_memset(&sink, 0, sizeof sink);
    sink.ctx = &rf;
    sink.read_at = ram_read_at;
    sink.write_at = ram_write_at;
    fw_count_start();
    if (upq_writer_init(&run_w, &sink, run_elems, nel, arena, sizeof arena, &o) != UPQ_OK)
        run_fail("writer init");
    while (done < rows) {
        uint32_t n = rows - done < RUN_LEN ? (uint32_t)(rows - done) : RUN_LEN;
        for (k = 0; k < RUN_CHANNELS; k++) {
            size_t at = 0, took;
            /* the sink never blocks: UPQ_DONE (staging full of rows another
             * channel lacks) cannot happen with runs this short */
            while (at < n) {
                st = upq_writer_put_run(&run_w, k, run_buf[k] + at, NULL, n - at, &took);
                if (st != UPQ_OK)
                    run_fail("put_run");
                at += took;
            }
            fw_count_take();
        }
        done += n;
    }
    while ((st = upq_writer_close(&run_w)) == UPQ_AGAIN)
        ;
    fw_count_take();
    if (st != UPQ_OK)
        run_fail("close");
    if (upq_sh_open(&f, out, UPQ_SH_WRITE) != UPQ_OK)
        run_fail("cannot create the output file");
    for (off = 0; off < rf.n;) {
        size_t w = 0;
        if (upq_sh_write_at(&f, off, file_buf + off, rf.n - off, &w) != UPQ_OK || w == 0)
            run_fail("write failed");
        off += w;
    }
    upq_sh_close(&f);
    fw_puts(fw_console(), "values ");
    fw_put_u64(fw_console(), rows * RUN_CHANNELS);
    fw_puts(fw_console(), "\nper value ");
    fw_put_per(fw_console(), fw_count_ticks(), cal, rows * RUN_CHANNELS);
    fw_putc(fw_console(), '\n');
    fw_exit(0);
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
    if (argc == 4 && fw_streq(argv[1], "--runs")) {
        if (!fw_parse_u64(argv[2], &reps) || reps == 0 || reps > 32768u) {
            fw_puts(fw_console(), "usage: fw_ipv.elf --runs ROWS (1..32768) OUT.parquet\n");
            fw_exit(2);
        }
        run_log(reps, argv[3], fw_count_calibrate());
    }
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
