/*
 * The sensor logger firmware: the core of examples/sensor_logger (the same
 * file the host program links) writing through a semihosting sink.
 *
 *   sensor_logger.elf [--rows N] [--seed S] [--row-group-rows N] [--device NAME]
 *                     [--again] OUT.parquet      (the semihosting command line)
 *
 * --again makes every other write say "would block", as a busy card does:
 * the file must come out the same.
 *
 * Prints what the host program prints ("arena: ...", "rows: ..."), then the
 * stack high-water mark. Exit status 0, 1 (the writer failed) or 2 (usage,
 * or the file cannot be created).
 */
#include "fw_util.h"
#include "upq_port.h"

#include "../sensor_logger/sensor_logger.h"

static sensor_logger lg; /* the writer's state is large: not on the stack */
static upq_sh_file out_file;
static int again_knob;   /* --again */
static unsigned long writes;

static upq_status busy_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    *written = 0;
    if (again_knob && (++writes & 1u))
        return UPQ_AGAIN;
    return upq_sh_write(ctx, buf, len, written);
}

static int usage(fw_out *c)
{
    fw_puts(c, "usage: sensor_logger.elf [--rows N] [--seed S] [--row-group-rows N] "
               "[--device NAME] [--again] OUT.parquet\n");
    return 2;
}

int main(void)
{
    char *argv[16];
    const char *path = 0;
    sensor_config cfg;
    upq_sh_file *f = &out_file;
    upq_sink sink;
    fw_out *c;
    uint64_t v;
    upq_status st;
    int argc, i;

    fw_console_open();
    c = fw_console();
    argc = fw_args(argv, 16);
    upq_memset(&cfg, 0, sizeof cfg); /* fields added later default to 0 */
    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = 10000;
    cfg.row_group_rows = 250; /* direct mode: a 4 KiB page of the device column holds ~315 rows */
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
        } else if (fw_streq(a, "--again")) {
            again_knob = 1;
        } else if (fw_streq(a, "--device") && i + 1 < argc) {
            cfg.device = argv[++i];
        } else if (a[0] == '-' || path) {
            fw_exit(usage(c));
        } else {
            path = a;
        }
    }
    if (!path)
        fw_exit(usage(c));
    if (upq_sh_open(f, path, UPQ_SH_READ_WRITE) != UPQ_OK) {
        fw_puts(c, "sensor_logger: cannot create ");
        fw_puts(c, path);
        fw_putc(c, '\n');
        fw_exit(2);
    }
    upq_sh_sink(f, &sink);
    sink.write = busy_write;

    st = sensor_logger_open(&lg, &sink, &cfg);
    fw_puts(c, "arena: ");
    fw_put_u64(c, sensor_logger_arena_size());
    fw_puts(c, " bytes static, the writer needs ");
    fw_put_u64(c, sensor_logger_arena_need(&lg));
    fw_putc(c, '\n');
    if (st != UPQ_OK) {
        fw_puts(c, "sensor_logger: cannot start the writer: ");
        fw_puts(c, upq_strerror(st));
        fw_putc(c, '\n');
        (void)upq_sh_close(f);
        fw_exit(1);
    }
    do
        st = sensor_logger_step(&lg);
    while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE) {
        const upq_error_info *e = upq_writer_error(&lg.w);
        fw_puts(c, "sensor_logger: after ");
        fw_put_u64(c, upq_writer_rows(&lg.w));
        fw_puts(c, " rows: ");
        fw_puts(c, e->what ? e->what : "error");
        fw_puts(c, " (");
        fw_puts(c, upq_strerror(st));
        fw_puts(c, ")\n");
        (void)upq_sh_close(f);
        fw_exit(1);
    }
    if (upq_sh_close(f) != UPQ_OK) {
        fw_puts(c, "sensor_logger: cannot close ");
        fw_puts(c, path);
        fw_putc(c, '\n');
        fw_exit(1);
    }
    fw_puts(c, "rows: ");
    fw_put_u64(c, upq_writer_rows(&lg.w));
    fw_puts(c, " written to ");
    fw_puts(c, path);
    fw_puts(c, " (");
    fw_put_u64(c, upq_writer_file_size(&lg.w));
    fw_puts(c, " bytes, every row durable: ");
    fw_puts(c, upq_writer_rows_durable(&lg.w) == upq_writer_rows(&lg.w) ? "yes" : "no");
    fw_puts(c, ")\n");
    fw_exit(0);
}
