/*
 * `upq cat [--json] [--columns a,b.c] [--head N] [--skip N] FILE`: the rows
 * of a file, one JSON object per line (--json) or as a tab-separated table.
 *
 * Rows come from the library's record reader (uparquet/record.h) one event
 * at a time; each row is built in memory and written only when complete,
 * so an error never leaves half a row behind. When the arena turns out too
 * small for a row group's pages, the file is opened again with the size the
 * library asked for and reading resumes at the same row.
 */
#include "upq.h"
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Arenas beyond this are not attempted. */
/* 16 GB, or half the address space where that is smaller (32-bit hosts) */
#define MAX_ARENA ((uint64_t)1 << 34 > (uint64_t)((size_t)-1 / 2) ? (size_t)-1 / 2 : (size_t)((uint64_t)1 << 34))
/* Containers open at once while writing a row: far above what a schema can
 * nest (the plan is at most twice the schema depth). */
#define MAX_NEST 256

typedef struct cat_cfg {
    int json;
    uint64_t head;  /* rows to print; UINT64_MAX: all */
    uint64_t skip;
    const char *columns;
    size_t batch;
} cat_cfg;

/* ---- one row ---------------------------------------------------------------- */

typedef struct row_writer {
    const upq_schema *s;
    strbuf *sb;
    unsigned depth;
    unsigned char count[MAX_NEST]; /* items written at each open level */
} row_writer;

/* Separator and key before an item. */
static void item_start(row_writer *rw, const upq_event *ev)
{
    unsigned char *n = &rw->count[rw->depth - 1];
    if (ev->role == UPQ_ROLE_VALUE) {
        sb_adds(rw->sb, ",\"value\":");
        return;
    }
    if (*n)
        sb_addc(rw->sb, ',');
    *n = 1;
    if (ev->role == UPQ_ROLE_KEY) {
        sb_adds(rw->sb, "{\"key\":");
    } else if (ev->role == UPQ_ROLE_FIELD) {
        const upq_bytes *name = &rw->s->nodes[ev->node].elem->name;
        json_append_string(rw->sb, name->ptr, name->len);
        sb_addc(rw->sb, ':');
    }
}

/* A map entry closes after its value. */
static void item_end(row_writer *rw, const upq_event *ev)
{
    if (ev->role == UPQ_ROLE_VALUE)
        sb_addc(rw->sb, '}');
}

/* Writes one event; returns 0, or -1 when nesting exceeds MAX_NEST. */
static int row_event(row_writer *rw, const upq_event *ev)
{
    switch (ev->type) {
    case UPQ_EV_VALUE:
        item_start(rw, ev);
        value_json(rw->sb, rw->s, ev->column, ev->value);
        item_end(rw, ev);
        return 0;
    case UPQ_EV_NULL:
        item_start(rw, ev);
        sb_adds(rw->sb, "null");
        item_end(rw, ev);
        return 0;
    case UPQ_EV_BEGIN_STRUCT:
    case UPQ_EV_BEGIN_LIST:
    case UPQ_EV_BEGIN_MAP:
        if (rw->depth >= MAX_NEST)
            return -1;
        item_start(rw, ev);
        sb_addc(rw->sb, ev->type == UPQ_EV_BEGIN_STRUCT ? '{' : '[');
        rw->count[rw->depth++] = 0;
        return 0;
    default: /* the ends */
        rw->depth--;
        sb_addc(rw->sb, ev->type == UPQ_EV_END_STRUCT ? '}' : ']');
        item_end(rw, ev);
        return 0;
    }
}

/* ---- columns ------------------------------------------------------------------ */

/* Turns "a,b.c" into schema node indices (dotted paths from the top-level
 * field). Returns 0, or 1 after reporting a name that is not in the schema. */
static int resolve_columns(const char *path, const upq_schema *s, const char *list,
                           uint32_t **out, uint32_t *n)
{
    const char *p = list;
    strbuf sb;
    sb_init(&sb);
    *n = 0;
    *out = malloc((strlen(list) / 2 + 2) * sizeof **out);
    if (!*out) {
        fprintf(stderr, "upq: out of memory\n");
        return 1;
    }
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        uint32_t i, found = UPQ_NONE;
        for (i = 1; i < s->num_nodes && len; i++) {
            sb_reset(&sb);
            fmt_node_path(&sb, s, i);
            if (sb.len == len && memcmp(sb_str(&sb), p, len) == 0) {
                found = i;
                break;
            }
        }
        if (found == UPQ_NONE) {
            fprintf(stderr, "upq: %s: no field named '%.*s'\n", path, (int)len, p);
            sb_free(&sb);
            free(*out);
            *out = NULL;
            return 1;
        }
        (*out)[(*n)++] = found;
        if (!end)
            break;
        p = end + 1;
    }
    sb_free(&sb);
    return 0;
}

/* ---- the file -------------------------------------------------------------------- */

typedef struct cat_state {
    const char *path;
    tool_args args;   /* a copy: the arena size grows on retries */
    tool_file tf;
    int open;
    uint32_t *sel;
    uint32_t nsel;
    uint64_t skip_left, head_left;
    int header_done;
} cat_state;

static int open_file(cat_state *cs, const cat_cfg *cfg)
{
    if (tool_open(&cs->tf, cs->path, &cs->args))
        return 1;
    cs->open = 1;
    if (cfg->columns && !cs->sel &&
        resolve_columns(cs->path, upq_reader_schema(cs->tf.reader), cfg->columns, &cs->sel,
                        &cs->nsel))
        return 1;
    return 0;
}

/* Table mode: the names of the selected top-level fields, once. */
static void print_header(cat_state *cs)
{
    const upq_schema *s = upq_reader_schema(cs->tf.reader);
    uint32_t k, printed = 0;
    for (k = 0; k < s->nodes[0].num_children; k++) {
        uint32_t c = s->children[s->nodes[0].first_child + k], j, take = !cs->sel;
        for (j = 0; j < cs->nsel && !take; j++) {
            uint32_t up = cs->sel[j];
            while (up != UPQ_NONE && up != c)
                up = s->nodes[up].parent;
            take = up == c;
        }
        if (!take)
            continue;
        if (printed++)
            putchar('\t');
        fwrite(s->nodes[c].elem->name.ptr, 1, s->nodes[c].elem->name.len, stdout);
    }
    putchar('\n');
}

/* Reads one row's events into sb (JSON object, or table cells). */
static upq_status read_row(upq_rows *rows, const upq_schema *s, strbuf *sb, int json)
{
    row_writer rw;
    upq_event ev;
    strbuf cell;
    upq_status st;
    int cells = 0;
    memset(&rw, 0, sizeof rw);
    rw.s = s;
    rw.sb = json ? sb : &cell;
    rw.depth = 1;
    sb_init(&cell);
    if (json)
        sb_addc(sb, '{');
    for (;;) {
        do
            st = upq_rows_event(rows, &ev);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        if (!json && rw.depth == 1) {
            /* a new top-level field: its own cell, without the key */
            sb_reset(&cell);
            rw.count[0] = 0;
            ev.role = UPQ_ROLE_ELEMENT;
        }
        if (row_event(&rw, &ev) < 0) {
            st = UPQ_ERR_LIMIT;
            break;
        }
        if (!json && rw.depth == 1) {
            if (cells++)
                sb_addc(sb, '\t');
            sb_add(sb, cell.p, cell.len);
        }
    }
    if (json)
        sb_addc(sb, '}');
    sb_free(&cell);
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* Prints rows of row group rg from row `from` on. Returns UPQ_OK, or the
 * error (rows before it are printed); *done counts rows passed. */
static upq_status cat_row_group(cat_state *cs, const cat_cfg *cfg, uint32_t rg, uint64_t from,
                                uint64_t *done)
{
    upq_reader *r = cs->tf.reader;
    const upq_schema *s = upq_reader_schema(r);
    upq_rows rows;
    strbuf sb;
    upq_status st;

    st = upq_rows_open(&rows, r, rg, cs->sel, cs->nsel, cfg->batch);
    if (st != UPQ_OK)
        return st;
    if (from) {
        uint64_t got = 0;
        do
            st = upq_rows_skip(&rows, from, &got);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK) {
            upq_rows_close(&rows);
            return st;
        }
    }
    sb_init(&sb);
    while (cs->head_left > 0) {
        do
            st = upq_rows_next(&rows);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        sb_reset(&sb);
        st = read_row(&rows, s, &sb, cfg->json);
        if (st != UPQ_OK)
            break;
        sb_addc(&sb, '\n');
        fwrite(sb.p, 1, sb.len, stdout);
        (*done)++;
        cs->head_left--;
    }
    sb_free(&sb);
    upq_rows_close(&rows);
    return st == UPQ_DONE ? UPQ_OK : st;
}

static int run(cat_state *cs, const cat_cfg *cfg)
{
    uint32_t rg = 0;
    uint64_t from = 0; /* rows of row group rg already passed */

    if (open_file(cs, cfg))
        return 1;
    if (!cfg->json)
        print_header(cs);
    while (cs->head_left > 0) {
        const upq_file_metadata *m = upq_reader_metadata(cs->tf.reader);
        upq_status st;
        uint64_t n;
        if (rg >= m->row_groups.n)
            break;
        n = m->row_groups.v[rg].num_rows > 0 ? (uint64_t)m->row_groups.v[rg].num_rows : 0;
        if (from == 0 && cs->skip_left > 0 && cs->skip_left >= n) {
            /* a whole row group skipped: not even opened */
            cs->skip_left -= n;
            rg++;
            continue;
        }
        if (from == 0) {
            from = cs->skip_left;
            cs->skip_left = 0;
        }
        st = cat_row_group(cs, cfg, rg, from, &from);
        if (st == UPQ_OK) {
            rg++;
            from = 0;
            continue;
        }
        if (st == UPQ_ERR_NOMEM) {
            /* a page bigger than the arena: reopen with what was asked for */
            size_t need = upq_arena_needed(&cs->tf.reader->arena);
            size_t len = cs->tf.arena_len;
            if (need > len && need <= MAX_ARENA) {
                cs->args.arena = need > len * 2 ? need : len * 2;
                tool_close(&cs->tf);
                cs->open = 0;
                if (open_file(cs, cfg))
                    return 1;
                continue;
            }
        }
        fflush(stdout);
        tool_report(cs->path, upq_reader_error(cs->tf.reader));
        return 1;
    }
    return 0;
}

/* A count for --head / --skip (0 allowed). */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-' || *s == '+')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int cmd_cat(const tool_args *a)
{
    cat_cfg cfg;
    cat_state cs;
    const char *v;
    int rc;

    memset(&cfg, 0, sizeof cfg);
    cfg.json = args_flag(a, "json");
    cfg.head = UINT64_MAX;
    cfg.columns = args_value(a, "columns");
    if ((v = args_value(a, "head")) && !parse_count(v, &cfg.head)) {
        fprintf(stderr, "upq: bad number for --head: %s\n", v);
        return 2;
    }
    if ((v = args_value(a, "skip")) && !parse_count(v, &cfg.skip)) {
        fprintf(stderr, "upq: bad number for --skip: %s\n", v);
        return 2;
    }
    if ((v = args_value(a, "batch"))) {
        uint64_t b;
        if (!parse_count(v, &b) || b == 0 || b > (1u << 24)) {
            fprintf(stderr, "upq: bad number for --batch: %s\n", v);
            return 2;
        }
        cfg.batch = (size_t)b;
    }
    if (cfg.columns && !*cfg.columns) {
        fprintf(stderr, "upq: --columns needs at least one name\n");
        return 2;
    }

    memset(&cs, 0, sizeof cs);
    cs.path = a->files[0];
    cs.args = *a;
    cs.skip_left = cfg.skip;
    cs.head_left = cfg.head;
    rc = run(&cs, &cfg);
    if (cs.open)
        tool_close(&cs.tf);
    free(cs.sel);
    return rc;
}
