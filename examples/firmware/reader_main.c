/*
 * The reader firmware: reads any Parquet file through semihosting with one
 * static arena and writes its rows in the form `upq cat --raw` prints on the
 * host, so the two outputs can be compared byte for byte.
 *
 *   fw_reader.elf [--chunk N] [--again] [--column K] [--lazy] [--batch N]
 *                 IN.parquet OUT.jsonl       (the semihosting command line)
 *
 * --chunk N makes every read return at most N bytes and --again makes every
 * other read say "would block", as a slow or busy medium does: the output
 * must not change. --column K reads leaf column K alone (of the first 256):
 * the others are left out of the footer's decoding and skipped, as a board
 * reading one column at a time does. --lazy decodes row-group metadata one
 * row group at a time (UPQ_ROW_GROUPS_LAZY), so the arena need not grow
 * with the number of row groups; --batch N reads N levels per column at a
 * time (default UPQ_ROWS_DEFAULT_BATCH), the other part of a small arena.
 *
 * --raw is `upq cat --json` with every leaf value shown by its physical type
 * alone, bit-exact (examples/upq/rows_json.h): the rows are printed by the
 * same code as upq's. As in upq, a row is written only when complete.
 *
 * Console: "rows: N", "arena: SIZE bytes, high water N", then on failure the
 * error as upq prints it after "upq: FILE: " (prefixed "error: "), and for
 * UPQ_ERR_NOMEM "arena needed: N bytes"; last "stack: ...". Exit status 0,
 * 1 (the file could not be read), 2 (usage or I/O on the host side).
 */
#include "fw_util.h"

#include "uparquet/uparquet.h"
#include "upq_port.h"
#include "../upq/rows_json.h"

#ifndef FW_READER_ARENA_BYTES
#define FW_READER_ARENA_BYTES (256u * 1024u)
#endif
#ifndef FW_READER_OUT_BYTES
#define FW_READER_OUT_BYTES (32u * 1024u)
#endif
static uint64_t arena[FW_READER_ARENA_BYTES / 8];
static char out_buf[FW_READER_OUT_BYTES];
static upq_reader reader;
static upq_rows rows;

/* The file as a slow medium shows it (--chunk, --again). */
typedef struct slow_file {
    upq_sh_file *f;
    size_t chunk;         /* at most this many bytes per read; 0: no limit */
    int again;            /* every other read says "again" */
    unsigned long calls;
} slow_file;

static upq_status slow_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    slow_file *s = (slow_file *)ctx;
    *got = 0;
    if (s->again && (++s->calls & 1u))
        return UPQ_AGAIN;
    if (s->chunk && len > s->chunk)
        len = s->chunk;
    return upq_sh_read_at(s->f, off, buf, len, got);
}

/* ---- one row, as upq cat --raw writes it: the printer is the same file ------------- */

static void out_put(void *ctx, const void *p, size_t n)
{
    fw_put((fw_out *)ctx, p, n);
}

/* ---- the file ------------------------------------------------------------------- */

static upq_status read_row(const upq_schema *s, fw_out *o)
{
    static rows_json rj; /* its nesting counts: off the stack */
    rows_json_out out;
    upq_event ev;
    upq_status st;
    out.put = out_put;
    out.ctx = o;
    rows_json_begin(&rj, s, &out, rows_json_raw, 0, 1);
    for (;;) {
        do
            st = upq_rows_event(&rows, &ev);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        if (rows_json_event(&rj, &ev) < 0)
            return UPQ_ERR_LIMIT;
    }
    rows_json_end(&rj, 1);
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* --column: the one leaf column read (-1: all). */
static int32_t sel_col = -1;
/* --batch: levels per column read at a time (0: the default). */
static size_t batch;

static upq_status dump(fw_out *o, uint64_t *nrows)
{
    const upq_schema *s;
    upq_status st;
    uint32_t rg;

    do
        st = upq_reader_open(&reader);
    while (st == UPQ_AGAIN);
    if (st != UPQ_OK)
        return st;
    s = upq_reader_schema(&reader);
    if (sel_col >= 0 && (uint32_t)sel_col >= s->num_columns)
        return UPQ_ERR_INVAL;
    for (rg = 0; rg < upq_reader_num_row_groups(&reader); rg++) {
        uint32_t node = sel_col >= 0 ? s->columns[sel_col].node : 0u;
        do /* --lazy: this row group's metadata, decoded now */
            st = upq_reader_row_group_load(&reader, rg);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            return st;
        st = upq_rows_open(&rows, &reader, rg, sel_col >= 0 ? &node : 0, sel_col >= 0 ? 1u : 0u,
                           batch);
        if (st != UPQ_OK)
            return st;
        for (;;) {
            do
                st = upq_rows_next(&rows);
            while (st == UPQ_AGAIN);
            if (st != UPQ_OK)
                break;
            st = read_row(s, o);
            if (st != UPQ_OK)
                break;
            fw_putc(o, '\n');
            fw_commit(o);
            (*nrows)++;
        }
        upq_rows_close(&rows);
        if (st != UPQ_DONE)
            return st;
    }
    return UPQ_OK;
}

/* The error as upq's tool_report() prints it after "upq: FILE: ". */
static void report(fw_out *c, const upq_error_info *e)
{
    fw_puts(c, "error: ");
    fw_puts(c, e->what ? e->what : "error");
    fw_puts(c, " (");
    fw_puts(c, upq_strerror(e->status));
    fw_putc(c, ')');
    if (e->offset != UINT64_MAX) {
        fw_puts(c, " at offset ");
        fw_put_u64(c, e->offset);
    }
    if (e->in_struct) {
        fw_puts(c, " in ");
        fw_puts(c, e->in_struct);
        if (e->field) {
            fw_putc(c, '.');
            fw_puts(c, e->field);
        }
        if (e->schema_element >= 0) {
            fw_puts(c, " #");
            fw_put_i64(c, e->schema_element);
        }
    }
    if (e->row_group >= 0) {
        fw_puts(c, ", row group ");
        fw_put_i64(c, e->row_group);
    }
    if (e->column >= 0) {
        fw_puts(c, ", column ");
        fw_put_i64(c, e->column);
    }
    if (e->page >= 0) {
        fw_puts(c, ", page ");
        fw_put_i64(c, e->page);
    }
    /* the figure that gets past the error, as upq prints it */
    if (e->needed && (e->status == UPQ_ERR_NOMEM || e->status == UPQ_ERR_LIMIT)) {
        fw_puts(c, ": ");
        fw_put_u64(c, e->needed);
        fw_puts(c, e->status == UPQ_ERR_NOMEM ? " bytes of arena needed" : " bytes");
    }
    fw_putc(c, '\n');
}

int main(void)
{
    char *argv[8];
    const char *files[2];
    int argc, i, nfiles = 0;
    upq_sh_file in, out;
    slow_file slow;
    upq_io io;
    fw_out o, *c;
    uint64_t nrows = 0;
    upq_status st;
    static uint8_t proj[32];  /* --column: the leaf columns kept */
    static upq_reader_opts ropts;

    fw_console_open();
    c = fw_console();
    argc = fw_args(argv, 8);
    slow.chunk = 0;
    slow.again = 0;
    slow.calls = 0;
    for (i = 1; i < argc; i++) {
        uint64_t v;
        if (fw_streq(argv[i], "--chunk") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
            v > 0 && v <= 0x40000000u) {
            slow.chunk = (size_t)v;
            i++;
        } else if (fw_streq(argv[i], "--again")) {
            slow.again = 1;
        } else if (fw_streq(argv[i], "--column") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
                   v < 8u * sizeof proj && sel_col < 0) {
            proj[v / 8u] = (uint8_t)(1u << (v % 8u));
            sel_col = (int32_t)v;
            ropts.projection = proj;
            ropts.projection_bits = 8u * sizeof proj;
            i++;
        } else if (fw_streq(argv[i], "--lazy")) {
            ropts.row_groups = UPQ_ROW_GROUPS_LAZY;
        } else if (fw_streq(argv[i], "--batch") && i + 1 < argc && fw_parse_u64(argv[i + 1], &v) &&
                   v > 0 && v <= 65536u) {
            batch = (size_t)v;
            i++;
        } else if (argv[i][0] == '-' || nfiles == 2) {
            nfiles = 3;
            break;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles != 2) {
        fw_puts(c, "usage: fw_reader.elf [--chunk N] [--again] [--column K] [--lazy] [--batch N] "
                   "IN.parquet OUT.jsonl\n");
        fw_exit(2);
    }
    if (upq_sh_open(&in, files[0], UPQ_SH_READ) != UPQ_OK) {
        fw_puts(c, "fw_reader: cannot open ");
        fw_puts(c, files[0]);
        fw_putc(c, '\n');
        fw_exit(2);
    }
    if (upq_sh_open(&out, files[1], UPQ_SH_WRITE) != UPQ_OK) {
        fw_puts(c, "fw_reader: cannot create ");
        fw_puts(c, files[1]);
        fw_putc(c, '\n');
        fw_exit(2);
    }
    fw_out_init(&o, &out, out_buf, sizeof out_buf);
    upq_sh_io(&in, &io);
    slow.f = &in;
    io.ctx = &slow;
    io.read_at = slow_read_at;
    upq_reader_init(&reader, &io, arena, sizeof arena, &ropts);

    st = dump(&o, &nrows);
    if (st != UPQ_OK)
        fw_drop(&o); /* the row the error cut, unless it outgrew the buffer */
    if (fw_flush(&o) != 0 || upq_sh_close(&out) != UPQ_OK) {
        fw_puts(c, "fw_reader: cannot write ");
        fw_puts(c, files[1]);
        fw_putc(c, '\n');
        fw_exit(2);
    }
    (void)upq_sh_close(&in);
    fw_puts(c, "rows: ");
    fw_put_u64(c, nrows);
    fw_puts(c, "\narena: ");
    fw_put_u64(c, sizeof arena);
    fw_puts(c, " bytes, high water ");
    fw_put_u64(c, upq_arena_high_water(&reader.arena));
    fw_putc(c, '\n');
    if (st != UPQ_OK) {
        const upq_error_info *e = upq_reader_error(&reader);
        if (st == UPQ_ERR_LIMIT && e->status == UPQ_OK) {
            fw_puts(c, "error: rows nest deeper than ");
            fw_put_u64(c, ROWS_JSON_MAX_NEST);
            fw_putc(c, '\n');
        } else {
            report(c, e);
        }
        if (st == UPQ_ERR_NOMEM) {
            fw_puts(c, "arena needed: ");
            fw_put_u64(c, upq_arena_needed(&reader.arena));
            fw_puts(c, " bytes\n");
        }
        fw_exit(1);
    }
    fw_exit(0);
}
