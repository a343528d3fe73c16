/*
 * The sensor logger firmware: the core of examples/sensor_logger (the same
 * file the host program links) writing through a semihosting sink.
 *
 *   sensor_logger.elf [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]
 *                     [--page-size N] [--device NAME] [--again] [--resume]
 *                     [--max-file-rows N] [--max-file-bytes N] [--count] OUT.parquet
 *                                                 (the semihosting command line)
 *
 * The options are the host program's (host_main.c), and so are the files:
 * OUT, then OUT's next files when rotating (log.parquet, log.1.parquet,
 * ...); --resume continues OUT. --again makes every other write say "would
 * block", as a busy card does: the files must come out the same.
 *
 * Prints what the host program prints ("arena: ...", "file: ...",
 * "rows: ..."), then the stack high-water mark.
 *
 * --count (under qemu with -icount shift=0: test/bench/fw_ipv.sh) counts the
 * instructions of the logging loop and prints "per row N" (everything the
 * board runs per row: the synthetic sample, the writer, pages, checkpoints,
 * the sink's calls; a semihosting write itself traps out of the count) and
 * "sample per row M" (sensor_read alone, the part a real board replaces
 * with reading its sensors). Exit status 0, 1 (the
 * writer failed) or 2 (usage, or a file cannot be opened).
 */
#include "fw_util.h"
#include "upq_port.h"

#include "../sensor_logger/sensor_logger.h"

static sensor_logger lg; /* the writer's state is large: not on the stack */
static upq_sh_file out_file;
static int again_knob;   /* --again */
static unsigned long writes;

/* The log's file names: OUT split around its number ("log.3.parquet"). */
static char stem[200];
static const char *ext = "";
static char cur[224];

static upq_status busy_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    *written = 0;
    if (again_knob && (++writes & 1u))
        return UPQ_AGAIN;
    return upq_sh_write_at(ctx, off, buf, len, written);
}

static size_t slen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int split_name(const char *out, uint32_t *first)
{
    size_t n = slen(out), e = n, d, k;
    uint64_t v;
    if (n >= sizeof stem)
        return 0;
    if (n > 8 && fw_streq(out + n - 8, ".parquet")) {
        ext = ".parquet";
        e = n - 8;
    }
    for (k = 0; k < e; k++)
        stem[k] = out[k];
    stem[e] = '\0';
    *first = 0;
    d = e;
    while (d > 0 && out[d - 1] >= '0' && out[d - 1] <= '9')
        d--;
    if (d < e && d > 0 && out[d - 1] == '.' && e - d <= 9) {
        char num[10];
        for (k = d; k < e; k++)
            num[k - d] = out[k];
        num[e - d] = '\0';
        if (fw_parse_u64(num, &v)) {
            *first = (uint32_t)v;
            stem[d - 1] = '\0';
        }
    }
    return 1;
}

/* cur = stem [".n"] ext */
static void file_name(uint32_t n)
{
    size_t k = 0, i;
    char dig[12];
    int nd = 0;
    for (i = 0; stem[i] && k < sizeof cur - 1; i++)
        cur[k++] = stem[i];
    if (n) {
        cur[k++] = '.';
        do
            dig[nd++] = (char)('0' + n % 10u);
        while ((n /= 10u) != 0 && nd < 11);
        while (nd > 0 && k < sizeof cur - 1)
            cur[k++] = dig[--nd];
    }
    for (i = 0; ext[i] && k < sizeof cur - 1; i++)
        cur[k++] = ext[i];
    cur[k] = '\0';
}

static upq_status files_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    upq_sh_file *f = &out_file;
    (void)ctx;
    file_name(n);
    if (!resume && upq_sh_open(f, cur, UPQ_SH_READ) == UPQ_OK) {
        (void)upq_sh_close(f);
        fw_puts(fw_console(), "sensor_logger: ");
        fw_puts(fw_console(), cur);
        fw_puts(fw_console(), " exists: resume the log's last file instead\n");
        return UPQ_ERR_IO;
    }
    if (upq_sh_open(f, cur, resume ? UPQ_SH_UPDATE : UPQ_SH_READ_WRITE) != UPQ_OK) {
        fw_puts(fw_console(), "sensor_logger: cannot open ");
        fw_puts(fw_console(), cur);
        fw_putc(fw_console(), '\n');
        return UPQ_ERR_IO;
    }
    upq_sh_sink(f, sink);
    sink->write_at = busy_write_at;
    *size = f->size;
    return UPQ_OK;
}

static upq_status files_close(void *ctx, uint32_t n)
{
    fw_out *c = fw_console();
    (void)ctx;
    (void)n;
    fw_puts(c, "file: ");
    fw_puts(c, cur);
    fw_puts(c, ": ");
    fw_put_u64(c, lg.file_rows);
    fw_puts(c, " rows, ");
    fw_put_u64(c, upq_writer_file_size(&lg.w));
    fw_puts(c, " bytes\n");
    return upq_sh_close(&out_file);
}

static int usage(fw_out *c)
{
    fw_puts(c, "usage: sensor_logger.elf [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]\n"
               "       [--page-size N] [--device NAME] [--again] [--resume] [--max-file-rows N]\n"
               "       [--max-file-bytes N] [--count] OUT.parquet\n");
    return 2;
}

int main(void)
{
    char *argv[24];
    const char *path = 0;
    sensor_config cfg;
    sensor_files files;
    fw_out *c;
    uint64_t v;
    upq_status st;
    int argc, i, count = 0;
    uint32_t cal = 0;

    fw_console_open();
    c = fw_console();
    argc = fw_args(argv, 24);
    upq_memset(&cfg, 0, sizeof cfg); /* fields added later default to 0 */
    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = 10000;
    cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (fw_streq(a, "--rows") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v)) {
            cfg.rows = v;
            i++;
        } else if (fw_streq(a, "--seed") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v)) {
            cfg.seed = v;
            i++;
        } else if (fw_streq(a, "--row-group-rows") && i + 1 < argc &&
                   fw_parse_u64(argv[i + 1], &v) && v > 0 && v <= UINT32_MAX) {
            cfg.row_group_rows = (uint32_t)v;
            i++;
        } else if (fw_streq(a, "--checkpoint-rows") && i + 1 < argc &&
                   fw_parse_u64(argv[i + 1], &v) && v <= UINT32_MAX) {
            cfg.checkpoint_rows = (uint32_t)v;
            i++;
        } else if (fw_streq(a, "--page-size") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
                   v >= 64 && v <= (1u << 20)) {
            cfg.page_size = (uint32_t)v;
            i++;
        } else if (fw_streq(a, "--max-file-rows") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
                   v > 0) {
            cfg.max_file_rows = v;
            i++;
        } else if (fw_streq(a, "--max-file-bytes") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
                   v > 0) {
            cfg.max_file_bytes = v;
            i++;
        } else if (fw_streq(a, "--resume")) {
            cfg.resume = 1;
        } else if (fw_streq(a, "--again")) {
            again_knob = 1;
        } else if (fw_streq(a, "--count")) {
            count = 1;
        } else if (fw_streq(a, "--device") && i + 1 < argc) {
            cfg.device = argv[++i];
        } else if (a[0] == '-' || path) {
            fw_exit(usage(c));
        } else {
            path = a;
        }
    }
    if (!path || !split_name(path, &cfg.first_file))
        fw_exit(usage(c));
    files.open = files_open;
    files.close = files_close;
    files.ctx = 0;

    st = sensor_logger_open(&lg, &files, &cfg);
    fw_puts(c, "arena: ");
    fw_put_u64(c, sensor_logger_arena_size());
    fw_puts(c, " bytes static, the writer needs ");
    fw_put_u64(c, sensor_logger_arena_need(&lg));
    fw_putc(c, '\n');
    if (st != UPQ_OK) {
        fw_puts(c, "sensor_logger: cannot start the writer: ");
        fw_puts(c, upq_strerror(st));
        fw_putc(c, '\n');
        fw_exit(1);
    }
    if (count) {
        cal = fw_count_calibrate();
        fw_count_start();
    }
    do {
        st = sensor_logger_step(&lg);
        if (count)
            fw_count_take();
    } while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE) {
        const upq_error_info *e = upq_writer_error(&lg.w);
        fw_puts(c, "sensor_logger: ");
        fw_puts(c, cur);
        fw_puts(c, ": after ");
        fw_put_u64(c, lg.file_rows);
        fw_puts(c, " rows: ");
        fw_puts(c, e->what ? e->what : "error");
        fw_puts(c, " (");
        fw_puts(c, upq_strerror(st));
        fw_puts(c, ")\n");
        (void)upq_sh_close(&out_file);
        fw_exit(1);
    }
    /* the host program's last line */
    fw_puts(c, "rows: ");
    fw_put_u64(c, cfg.rows);
    fw_puts(c, " written (readings ");
    fw_put_u64(c, lg.end - cfg.rows);
    fw_puts(c, " to ");
    fw_put_u64(c, lg.end ? lg.end - 1u : 0u);
    fw_puts(c, ") in ");
    fw_put_u64(c, lg.file - cfg.first_file + 1u);
    fw_puts(c, lg.file == cfg.first_file ? " file\n" : " files\n");
    if (count) {
        uint64_t t = fw_count_ticks(), rng = cfg.seed ^ UINT64_C(0x9E3779B97F4A7C15), r;
        sensor_sample smp;
        fw_puts(c, "per row ");
        fw_put_per(c, t, cal, cfg.rows);
        if (rng == 0)
            rng = 1; /* as sensor_logger_setup seeds it */
        fw_count_start();
        for (r = 0; r < cfg.rows; r++) {
            sensor_read(&rng, r, &smp);
            if ((r & 1023u) == 0)
                fw_count_take();
        }
        fw_count_take();
        fw_puts(c, "\nsample per row ");
        fw_put_per(c, fw_count_ticks(), cal, cfg.rows);
        fw_putc(c, '\n');
    }
    fw_exit(0);
}
