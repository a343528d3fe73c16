/*
 * The reader firmware: reads any Parquet file through semihosting with one
 * static arena and writes its rows in the form `upq cat --raw` prints on the
 * host, so the two outputs can be compared byte for byte.
 *
 *   fw_reader.elf [--chunk N] [--again] [--column K] IN.parquet OUT.jsonl
 *                                           (the semihosting command line)
 *
 * --chunk N makes every read return at most N bytes and --again makes every
 * other read say "would block", as a slow or busy medium does: the output
 * must not change. --column K reads leaf column K alone (of the first 256):
 * the others are left out of the footer's decoding and skipped, as a board
 * reading one column at a time does.
 *
 * --raw is `upq cat --json` with every leaf value shown by its physical type
 * alone, bit-exact: BOOLEAN true/false, INT32/INT64 decimal, FLOAT
 * "f:<8 hex digits of the bits>", DOUBLE "d:<16 hex digits>", INT96, BYTE_ARRAY
 * and FIXED_LEN_BYTE_ARRAY "0x<hex bytes>". Objects, lists, maps, keys and
 * nulls are as in --json. As in upq, a row is written only when complete.
 *
 * Console: "rows: N", "arena: SIZE bytes, high water N", then on failure the
 * error as upq prints it after "upq: FILE: " (prefixed "error: "), and for
 * UPQ_ERR_NOMEM "arena needed: N bytes"; last "stack: ...". Exit status 0,
 * 1 (the file could not be read), 2 (usage or I/O on the host side).
 */
#include "fw_util.h"

#include "uparquet/uparquet.h"
#include "upq_port.h"

#ifndef FW_READER_ARENA_BYTES
#define FW_READER_ARENA_BYTES (256u * 1024u)
#endif
#ifndef FW_READER_OUT_BYTES
#define FW_READER_OUT_BYTES (32u * 1024u)
#endif
/* Containers open at once in a row, as upq cat allows. */
#define MAX_NEST 256

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

/* ---- one row, as upq's cat.c writes it ------------------------------------------ */

typedef struct row_writer {
    const upq_schema *s;
    fw_out *o;
    unsigned depth;
    unsigned char count[MAX_NEST];
} row_writer;

static size_t utf8_seq_len(const uint8_t *p, size_t n)
{
    unsigned c = p[0];
    size_t len, i;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xC0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu))
        return 0;
    return len;
}

/* A JSON string: '"' and '\' escaped, control bytes and bytes outside
 * well-formed UTF-8 as \u00XX. */
static void put_string(fw_out *o, const uint8_t *p, size_t n)
{
    size_t i = 0, k = 0;
    fw_putc(o, '"');
    while (i < n) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fw_putc(o, '\\');
            fw_putc(o, (char)c);
            i++;
        } else if (c < 0x20 || (c >= 0x80 && (k = utf8_seq_len(p + i, n - i)) == 0)) {
            uint8_t b = (uint8_t)c;
            fw_puts(o, "\\u00");
            fw_put_hex(o, &b, 1);
            i++;
        } else if (c < 0x80) {
            fw_putc(o, (char)c);
            i++;
        } else {
            fw_put(o, p + i, k);
            i += k;
        }
    }
    fw_putc(o, '"');
}

static void put_value(fw_out *o, const upq_schema *s, uint32_t col, const void *v)
{
    const uint8_t *p;
    size_t n;
    switch (s->columns[col].physical_type) {
    case UPQ_TYPE_BOOLEAN:
        fw_puts(o, *(const uint8_t *)v ? "true" : "false");
        return;
    case UPQ_TYPE_INT32:
        fw_put_i64(o, *(const int32_t *)v);
        return;
    case UPQ_TYPE_INT64:
        fw_put_i64(o, *(const int64_t *)v);
        return;
    case UPQ_TYPE_FLOAT: {
        union { float f; uint32_t u; } b;
        uint8_t be[4];
        b.f = *(const float *)v;
        upq_store_be32(be, b.u);
        fw_puts(o, "\"f:");
        fw_put_hex(o, be, 4);
        fw_putc(o, '"');
        return;
    }
    case UPQ_TYPE_DOUBLE: {
        union { double d; uint64_t u; } b;
        uint8_t be[8];
        b.d = *(const double *)v;
        upq_store_be32(be, (uint32_t)(b.u >> 32));
        upq_store_be32(be + 4, (uint32_t)b.u);
        fw_puts(o, "\"d:");
        fw_put_hex(o, be, 8);
        fw_putc(o, '"');
        return;
    }
    case UPQ_TYPE_INT96:
        p = ((const upq_int96 *)v)->b;
        n = 12;
        break;
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        p = ((const upq_bytes *)v)->ptr;
        n = ((const upq_bytes *)v)->len;
        break;
    default:
        fw_puts(o, "null");
        return;
    }
    fw_puts(o, "\"0x");
    fw_put_hex(o, p, n);
    fw_putc(o, '"');
}

static void item_start(row_writer *rw, const upq_event *ev)
{
    unsigned char *n = &rw->count[rw->depth - 1];
    if (ev->role == UPQ_ROLE_VALUE) {
        fw_puts(rw->o, ",\"value\":");
        return;
    }
    if (*n)
        fw_putc(rw->o, ',');
    *n = 1;
    if (ev->role == UPQ_ROLE_KEY) {
        fw_puts(rw->o, "{\"key\":");
    } else if (ev->role == UPQ_ROLE_FIELD) {
        const upq_bytes *name = &rw->s->nodes[ev->node].elem->name;
        put_string(rw->o, name->ptr, name->len);
        fw_putc(rw->o, ':');
    }
}

static void item_end(row_writer *rw, const upq_event *ev)
{
    if (ev->role == UPQ_ROLE_VALUE)
        fw_putc(rw->o, '}');
}

static int row_event(row_writer *rw, const upq_event *ev)
{
    switch (ev->type) {
    case UPQ_EV_VALUE:
        item_start(rw, ev);
        put_value(rw->o, rw->s, ev->column, ev->value);
        item_end(rw, ev);
        return 0;
    case UPQ_EV_NULL:
        item_start(rw, ev);
        fw_puts(rw->o, "null");
        item_end(rw, ev);
        return 0;
    case UPQ_EV_BEGIN_STRUCT:
    case UPQ_EV_BEGIN_LIST:
    case UPQ_EV_BEGIN_MAP:
        if (rw->depth >= MAX_NEST)
            return -1;
        item_start(rw, ev);
        fw_putc(rw->o, ev->type == UPQ_EV_BEGIN_STRUCT ? '{' : '[');
        rw->count[rw->depth++] = 0;
        return 0;
    default:
        rw->depth--;
        fw_putc(rw->o, ev->type == UPQ_EV_END_STRUCT ? '}' : ']');
        item_end(rw, ev);
        return 0;
    }
}

/* ---- the file ------------------------------------------------------------------- */

static upq_status read_row(const upq_schema *s, fw_out *o)
{
    row_writer rw;
    upq_event ev;
    upq_status st;
    rw.s = s;
    rw.o = o;
    rw.depth = 1;
    rw.count[0] = 0;
    fw_putc(o, '{');
    for (;;) {
        do
            st = upq_rows_event(&rows, &ev);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        if (row_event(&rw, &ev) < 0)
            return UPQ_ERR_LIMIT;
    }
    fw_putc(o, '}');
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* --column: the one leaf column read (-1: all). */
static int32_t sel_col = -1;

static upq_status dump(fw_out *o, uint64_t *nrows)
{
    const upq_file_metadata *m;
    const upq_schema *s;
    upq_status st;
    uint32_t rg;

    do
        st = upq_reader_open(&reader);
    while (st == UPQ_AGAIN);
    if (st != UPQ_OK)
        return st;
    m = upq_reader_metadata(&reader);
    s = upq_reader_schema(&reader);
    if (sel_col >= 0 && (uint32_t)sel_col >= s->num_columns)
        return UPQ_ERR_INVAL;
    for (rg = 0; rg < m->row_groups.n; rg++) {
        uint32_t node = sel_col >= 0 ? s->columns[sel_col].node : 0u;
        st = upq_rows_open(&rows, &reader, rg, sel_col >= 0 ? &node : 0, sel_col >= 0 ? 1u : 0u, 0);
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
        } else if (argv[i][0] == '-' || nfiles == 2) {
            nfiles = 3;
            break;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles != 2) {
        fw_puts(c, "usage: fw_reader.elf [--chunk N] [--again] [--column K] IN.parquet OUT.jsonl\n");
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
    upq_reader_init(&reader, &io, arena, sizeof arena, ropts.projection ? &ropts : 0);

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
            fw_put_u64(c, MAX_NEST);
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
