/*
 * `upq cat [--json|--raw] [--columns a,b.c] [--head N] [--skip N] [--rows A:B]
 * [--io-stats] FILE`: the
 * rows of a file, one JSON object per line (--json; --raw: leaf values by
 * physical type, bit-exact) or as a tab-separated table.
 *
 * Rows come from the library's record reader (uparquet/record.h) one event
 * at a time, or, when every selected field is a top-level column, many rows
 * at a time through its row-wise binding (upq_rows_fetch); each row is
 * built in memory and written only when complete, so an error never leaves
 * half a row behind. When the arena turns out too
 * small for a row group's pages, the file is opened again with the size the
 * library asked for and reading resumes at the same row.
 */
#include "upq.h"
#include "json.h"
#include "rows_json.h"
#include "uparquet/variant.h"
#include "where.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct cat_cfg {
    int json;
    int raw;        /* --raw: JSON lines, leaf values by physical type only */
    uint64_t head;  /* rows to print; UINT64_MAX: all */
    uint64_t skip;
    const char *columns;
    size_t batch;
    const char *where;  /* --where EXPR */
    uint64_t rows_from, rows_to; /* --rows A:B with --where: file rows [A, B) */
    unsigned scan_flags;
} cat_cfg;

/* ---- one row ---------------------------------------------------------------- */

/* VARIANT columns: one assembler per VARIANT group, each with its own
 * memory (the row reader's arena is not to be shared). */
#define MAX_VARIANTS 64
#define VARIANT_VALUE_CAP ((size_t)16 << 20)
#define VARIANT_MAX_KEYS 65536u
#define VARIANT_KEY_BYTES ((size_t)1 << 20)
#define VARIANT_MAX_ENTRIES 65536u

typedef struct variant_col {
    uint32_t node;
    upq_variant_asm va;
    void *mem;
    upq_status init_st;
} variant_col;

typedef struct variant_set {
    variant_col cols[MAX_VARIANTS];
    unsigned n;
} variant_set;

static void variant_set_free(variant_set *vs)
{
    unsigned i;
    for (i = 0; i < vs->n; i++)
        free(vs->cols[i].mem);
    vs->n = 0;
}

/* The assembler of VARIANT group `node`, prepared on first use. */
static variant_col *variant_for(variant_set *vs, const upq_schema *s, uint32_t node)
{
    unsigned i;
    variant_col *c;
    size_t len;
    upq_arena a;
    for (i = 0; i < vs->n; i++)
        if (vs->cols[i].node == node)
            return &vs->cols[i];
    if (vs->n >= MAX_VARIANTS)
        return NULL;
    c = &vs->cols[vs->n++];
    memset(c, 0, sizeof *c);
    c->node = node;
    len = 2 * VARIANT_VALUE_CAP + VARIANT_KEY_BYTES + (VARIANT_MAX_KEYS + 1) * 4 +
          VARIANT_MAX_ENTRIES * sizeof(upq_variant_entry) + (size_t)s->num_nodes * 64 + 4096 +
          VARIANT_MAX_KEYS * 4 + VARIANT_KEY_BYTES;
    c->mem = malloc(len);
    if (!c->mem) {
        c->init_st = UPQ_ERR_NOMEM;
        return c;
    }
    upq_arena_init(&a, c->mem, len);
    c->init_st = upq_variant_asm_init(&c->va, s, node, &a, VARIANT_VALUE_CAP, VARIANT_MAX_KEYS,
                                      VARIANT_KEY_BYTES, VARIANT_MAX_ENTRIES);
    return c;
}

typedef struct row_writer {
    rows_json j;                   /* the row's text (rows_json.c, shared with the firmware) */
    variant_set *vs;
    variant_col *in_variant;       /* events go to this assembler until it is done */
    upq_status variant_st;         /* what failed in a Variant */
    uint32_t variant_node;
} row_writer;

/* The strbuf a row is written to, as rows_json's output. */
static void sb_put(void *ctx, const void *p, size_t n)
{
    sb_add((strbuf *)ctx, p, n);
}

/* --json: a leaf value as its logical type reads (value_json.c). */
static void json_leaf(void *ctx, const rows_json_out *o, const upq_schema *s, uint32_t col,
                      const void *v)
{
    (void)ctx;
    value_json((strbuf *)o->ctx, s, col, v);
}

/* Routes an event of a Variant to its assembler; writes the Variant as
 * JSON when complete. Returns 0, or -1 with rw->variant_st set. */
static int variant_event(row_writer *rw, const upq_event *ev)
{
    variant_col *c = rw->in_variant;
    upq_status st = upq_variant_asm_feed(&c->va, ev);
    if (st == UPQ_OK)
        return 0;
    if (st == UPQ_DONE) {
        const uint8_t *m, *v;
        size_t ml, vl;
        int r;
        upq_variant_asm_result(&c->va, &m, &ml, &v, &vl);
        r = variant_json((strbuf *)rw->j.out.ctx, m, ml, v, vl);
        rw->in_variant = NULL;
        if (r == 0) {
            rows_json_item_end(&rw->j, ev);
            return 0;
        }
        st = (upq_status)r;
    }
    rw->variant_st = st;
    rw->variant_node = c->node;
    return -1;
}

/* Writes one event; returns 0, or -1 when nesting exceeds
 * ROWS_JSON_MAX_NEST or a Variant is invalid (rw->variant_st). */
static int row_event(row_writer *rw, const upq_event *ev)
{
    if (rw->in_variant)
        return variant_event(rw, ev);
    if (ev->type == UPQ_EV_BEGIN_STRUCT && rw->vs && upq_variant_is_column(rw->j.s, ev->node)) {
        variant_col *c = variant_for(rw->vs, rw->j.s, ev->node);
        if (!c || c->init_st != UPQ_OK) {
            rw->variant_st = c ? c->init_st : UPQ_ERR_LIMIT;
            rw->variant_node = ev->node;
            return -1;
        }
        rows_json_item_start(&rw->j, ev);
        rw->in_variant = c;
        return variant_event(rw, ev);
    }
    return rows_json_event(&rw->j, ev);
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
    uint64_t seek_index, seek_scan; /* column chunks positioned by OffsetIndex / by header scan */
    int header_done;
    variant_set vs;
    upq_status variant_st;   /* a Variant failed: reported by cat, not the reader */
    uint32_t variant_node;
    uint64_t variant_row;
    where_expr we;
    int where_ready;
    uint32_t *leaves;        /* --columns as leaf columns (the scan's kind of index) */
    uint32_t nleaves;
    int io_stats;            /* --io-stats: also say where a page index was not used */
    /* --where: what the scans did (--io-stats); rows given is the tool's count */
    uint64_t rg_seen, rg_stats, rg_bloom, rg_dict, rg_pages, rows_selected, rows_tested, rows_given;
    uint64_t leaves_paged, leaves_no_index, index_rejected;
} cat_state;

/* The leaf columns under the selected schema nodes, in schema order. */
static int select_leaves(cat_state *cs)
{
    const upq_schema *s = upq_reader_schema(cs->tf.reader);
    uint32_t c, j;
    cs->leaves = malloc((s->num_columns + 1) * sizeof *cs->leaves);
    if (!cs->leaves) {
        fprintf(stderr, "upq: out of memory\n");
        return 1;
    }
    cs->nleaves = 0;
    for (c = 0; c < s->num_columns; c++) {
        for (j = 0; j < cs->nsel; j++) {
            uint32_t up = s->columns[c].node;
            while (up != UPQ_NONE && up != cs->sel[j])
                up = s->nodes[up].parent;
            if (up != UPQ_NONE)
                break;
        }
        if (j < cs->nsel)
            cs->leaves[cs->nleaves++] = c;
    }
    return 0;
}

static int arena_too_small(cat_state *cs, const cat_cfg *cfg);

static int open_file(cat_state *cs, const cat_cfg *cfg)
{
    if (tool_open(&cs->tf, cs->path, &cs->args))
        return cs->tf.nomem_needed ? arena_too_small(cs, cfg) : 1;
    cs->open = 1;
    if (cfg->columns && !cs->sel &&
        (resolve_columns(cs->path, upq_reader_schema(cs->tf.reader), cfg->columns, &cs->sel,
                         &cs->nsel) ||
         select_leaves(cs)))
        return 1;
    if (cfg->where && !cs->where_ready) {
        char err[600];
        if (where_parse(upq_reader_schema(cs->tf.reader), cfg->where, &cs->we, err, sizeof err)) {
            fprintf(stderr, "upq: --where: %s\n", err);
            return 1;
        }
        cs->where_ready = 1;
    }
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

/* One row being written: JSON object, or table cells. */
typedef struct row_out {
    row_writer rw;
    strbuf *sb;
    strbuf cell;
    int json, cells;
} row_out;

static void row_begin(row_out *o, const upq_schema *s, strbuf *sb, int json, int raw,
                      variant_set *vs)
{
    rows_json_out out;
    memset(o, 0, sizeof *o);
    /* --raw prints every leaf by its physical type, Variant groups included */
    o->rw.vs = raw ? NULL : vs;
    o->sb = sb;
    o->json = json;
    sb_init(&o->cell);
    out.put = sb_put;
    out.ctx = json ? sb : &o->cell;
    rows_json_begin(&o->rw.j, s, &out, raw ? rows_json_raw : json_leaf, NULL, json);
}

/* Writes one event of the row; -1 when row_event fails. */
static int row_item(row_out *o, upq_event *ev)
{
    if (!o->json && o->rw.j.depth == 1) {
        /* a new top-level field: its own cell, without the key */
        sb_reset(&o->cell);
        o->rw.j.count[0] = 0;
        ev->role = UPQ_ROLE_ELEMENT;
    }
    if (row_event(&o->rw, ev) < 0)
        return -1;
    if (!o->json && o->rw.j.depth == 1) {
        if (o->cells++)
            sb_addc(o->sb, '\t');
        sb_add(o->sb, o->cell.p, o->cell.len);
    }
    return 0;
}

static void row_end(row_out *o)
{
    rows_json_end(&o->rw.j, o->json);
    sb_free(&o->cell);
}

/* Reads one row's events into sb (JSON object, or table cells). */
static upq_status read_row(upq_rows *rows, const upq_schema *s, strbuf *sb, int json, int raw,
                           variant_set *vs, row_writer *out)
{
    row_out o;
    upq_event ev;
    upq_status st;
    row_begin(&o, s, sb, json, raw, vs);
    for (;;) {
        do
            st = upq_rows_event(rows, &ev);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        if (row_item(&o, &ev) < 0) {
            st = o.rw.variant_st ? o.rw.variant_st : UPQ_ERR_LIMIT;
            break;
        }
    }
    row_end(&o);
    out->variant_st = o.rw.variant_st;
    out->variant_node = o.rw.variant_node;
    return st == UPQ_DONE ? UPQ_OK : st;
}

#if UPQ_WITH_FLAT_ROWS
/* Rows of top-level columns only: fetched FETCH_ROWS at a time through
 * row-wise binding (upq_rows_fetch), one slot per column in each row. */
#define FETCH_ROWS 64

/* Prints a finished row and counts it against --head. */
static void emit_row(cat_state *cs, strbuf *sb)
{
    sb_addc(sb, '\n');
    fwrite(sb->p, 1, sb->len, stdout);
    cs->head_left--;
}

typedef struct fetch_slot {
    union {
        upq_bytes b;
        upq_int96 i96;
        int64_t i64;
        double d;
    } v;
    uint8_t null;
} fetch_slot;

/* Prints the rows of `rows` (a flat selection) until head_left runs out;
 * *done counts them. Returns UPQ_OK at the end, or the error. */
static upq_status cat_fetch(cat_state *cs, const cat_cfg *cfg, upq_rows *rows, uint64_t *done)
{
    const upq_schema *s = upq_reader_schema(cs->tf.reader);
    uint32_t n = rows->num_leaves, i;
    size_t stride = n * sizeof(fetch_slot);
    upq_row_binding *b = malloc(n * sizeof *b);
    fetch_slot *slots = malloc(FETCH_ROWS * stride);
    strbuf sb;
    upq_status st;
    if (!b || !slots) {
        free(b);
        free(slots);
        return UPQ_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        b[i].column = rows->leaves[i].col.col;
        b[i].offset = (uint32_t)(i * sizeof(fetch_slot) + offsetof(fetch_slot, v));
        b[i].null_offset = (uint32_t)(i * sizeof(fetch_slot) + offsetof(fetch_slot, null));
    }
    st = upq_rows_bind(rows, b, n);
    sb_init(&sb);
    while (st == UPQ_OK && cs->head_left > 0) {
        size_t max = cs->head_left < FETCH_ROWS ? (size_t)cs->head_left : FETCH_ROWS, got, k;
        do
            st = upq_rows_fetch(rows, slots, stride, max, &got);
        while (st == UPQ_AGAIN);
        for (k = 0; st == UPQ_OK && k < got; k++) {
            row_out o;
            sb_reset(&sb);
            row_begin(&o, s, &sb, cfg->json, cfg->raw, NULL);
            for (i = 0; i < n; i++) {
                const fetch_slot *f = &slots[k * n + i];
                upq_event ev;
                ev.type = f->null ? UPQ_EV_NULL : UPQ_EV_VALUE;
                ev.role = UPQ_ROLE_FIELD;
                ev.node = rows->nodes[i + 1u].schema; /* the leaf's plan node */
                ev.column = b[i].column;
                ev.value = f->null ? NULL : &f->v;
                if (row_item(&o, &ev) < 0)
                    st = UPQ_ERR_LIMIT;
            }
            row_end(&o);
            if (st != UPQ_OK)
                break;
            emit_row(cs, &sb);
            (*done)++;
        }
    }
    sb_free(&sb);
    free(slots);
    free(b);
    return st == UPQ_DONE ? UPQ_OK : st;
}
#endif

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
        uint32_t i;
        do
            st = upq_rows_skip(&rows, from, &got);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK) {
            upq_rows_close(&rows);
            return st;
        }
        /* how each column got there: its OffsetIndex, or the page headers */
        for (i = 0; i < rows.num_leaves; i++) {
            upq_status why;
            const char *what;
            if (upq_column_seek_info(&rows.leaves[i].col, &why, &what)) {
                cs->seek_index++;
                continue;
            }
            cs->seek_scan++;
            if (why < 0 && cs->io_stats)
                fprintf(stderr, "upq: %s: row group %u, column %u: page index not used (%s: %s); "
                        "page headers scanned instead\n", cs->path, (unsigned)rg,
                        (unsigned)rows.leaves[i].col.col, upq_strerror(why), what ? what : "");
        }
    }
#if UPQ_WITH_FLAT_ROWS
    if (rows.flat && rows.num_leaves > 0) {
        st = cat_fetch(cs, cfg, &rows, done);
        upq_rows_close(&rows);
        return st;
    }
#endif
    sb_init(&sb);
    while (cs->head_left > 0) {
        do
            st = upq_rows_next(&rows);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK)
            break;
        sb_reset(&sb);
        {
            row_writer info;
            memset(&info, 0, sizeof info);
            st = read_row(&rows, s, &sb, cfg->json, cfg->raw, &cs->vs, &info);
            if (info.variant_st) {
                cs->variant_st = info.variant_st;
                cs->variant_node = info.variant_node;
                cs->variant_row = upq_rows_position(&rows) - 1;
            }
        }
        if (st != UPQ_OK)
            break;
        emit_row(cs, &sb);
        (*done)++;
    }
    sb_free(&sb);
    upq_rows_close(&rows);
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* What stopped the read, on stderr (a Variant that does not decode, or the
 * reader's error with where it happened); returns 1, the exit status. */
static int report_failure(cat_state *cs, unsigned rg)
{
    fflush(stdout);
    if (cs->variant_st) {
        strbuf p;
        sb_init(&p);
        fmt_node_path(&p, upq_reader_schema(cs->tf.reader), cs->variant_node);
        fprintf(stderr, "upq: %s: row group %u, row %llu: Variant column '%s': %s (%d)\n",
                cs->path, rg, (unsigned long long)cs->variant_row, sb_str(&p),
                upq_strerror(cs->variant_st), (int)cs->variant_st);
        sb_free(&p);
        return 1;
    }
    tool_report(cs->path, upq_reader_error(cs->tf.reader));
    tool_keys_report(&cs->tf.keys, cs->path, upq_reader_error(cs->tf.reader)->status);
    {
        const upq_error_info *e = upq_reader_error(cs->tf.reader);
        if (e->status == UPQ_ERR_LIMIT && e->page >= 0 && e->needed)
            fprintf(stderr, "upq: the page holds %llu bytes uncompressed, over the largest page "
                    "read by default; --max-page %llu reads it (with as much memory)\n",
                    (unsigned long long)e->needed, (unsigned long long)e->needed);
    }
    return 1;
}

/* Reopens the file with the arena the library asked for; 1 when it cannot. */
static int grow_arena(cat_state *cs, const cat_cfg *cfg, int *failed)
{
    size_t need = upq_arena_needed(&cs->tf.reader->arena);
    size_t len = cs->tf.arena_len;
    *failed = 0;
    if (need <= len || need > TOOL_MAX_ARENA)
        return 1;
    cs->args.arena = need > len * 2 ? need : len * 2;
    tool_close(&cs->tf);
    variant_set_free(&cs->vs); /* they point into the old schema */
    cs->open = 0;
    if (open_file(cs, cfg))
        *failed = 1;
    return 0;
}

/* --io-stats: a page index the scan found wrong and did not use, said as
 * --rows says it of an OffsetIndex. */
static void report_index(cat_state *cs, const upq_scan_stats *st, uint64_t *seen)
{
    if (st->index_rejected == *seen)
        return;
    if (cs->io_stats) {
        fprintf(stderr, "upq: %s: row group %d, column %d: page index not used (%s: %s",
                cs->path, (int)st->index_rg, (int)st->index_column, upq_strerror(st->index_status),
                st->index_what ? st->index_what : "");
        if (st->index_page >= 0)
            fprintf(stderr, ", page %d", (int)st->index_page);
        if (st->index_rejected - *seen > 1)
            fprintf(stderr, "; %llu column chunks in all",
                    (unsigned long long)(st->index_rejected - *seen));
        fprintf(stderr, "); rows tested instead\n");
    }
    *seen = st->index_rejected;
}

static void add_stats(cat_state *cs, const upq_scan_stats *st)
{
    cs->rg_seen += st->row_groups;
    cs->rg_stats += st->pruned_stats;
    cs->rg_bloom += st->pruned_bloom;
    cs->rg_dict += st->pruned_dict;
    cs->rg_pages += st->pruned_pages;
    cs->rows_selected += st->rows_selected;
    cs->rows_tested += st->rows_tested;
    cs->leaves_paged += st->leaves_paged;
    cs->leaves_no_index += st->leaves_no_index;
    cs->index_rejected += st->index_rejected;
}

/* --where: prints the matching rows among file rows [from, rows_to) with one
 * scan over the file (row groups loaded as it goes when they are loaded on
 * demand). *resume gets the file row after the last one passed (printed or
 * skipped), so a retry with a larger arena goes on from there. */
static upq_status where_scan(cat_state *cs, const cat_cfg *cfg, uint64_t from, uint64_t *resume)
{
    upq_reader *r = cs->tf.reader;
    const upq_schema *s = upq_reader_schema(r);
    upq_scan_opts o;
    upq_scan sc;
    strbuf sb;
    upq_status st;
    uint64_t seen = 0;

    memset(&o, 0, sizeof o);
    o.where = &cs->we.pred;
    o.columns = cs->sel ? cs->leaves : NULL;
    o.num_columns = cs->nleaves;
    o.batch = cfg->batch;
    o.first_row = from;
    o.end_row = cfg->rows_to == UINT64_MAX ? 0 : cfg->rows_to;
    o.flags = cfg->scan_flags;
    if (from >= cfg->rows_to)
        return UPQ_OK;
    st = upq_scan_begin(&sc, r, &o);
    if (st != UPQ_OK)
        return st;
    sb_init(&sb);
    while (cs->head_left > 0) {
        do
            st = upq_scan_next(&sc);
        while (st == UPQ_AGAIN);
        report_index(cs, &sc.stats, &seen);
        if (st != UPQ_OK)
            break;
        *resume = upq_scan_file_row(&sc) + 1;
        cs->rows_given++;
        if (cs->skip_left > 0) {
            cs->skip_left--;
            continue;
        }
        sb_reset(&sb);
        {
            row_writer info;
            memset(&info, 0, sizeof info);
            st = read_row(upq_scan_rows(&sc), s, &sb, cfg->json, cfg->raw, &cs->vs, &info);
            if (info.variant_st) {
                cs->variant_st = info.variant_st;
                cs->variant_node = info.variant_node;
                cs->variant_row = upq_scan_file_row(&sc);
            }
        }
        if (st != UPQ_OK)
            break;
        emit_row(cs, &sb);
    }
    sb_free(&sb);
    if (st == UPQ_DONE || st == UPQ_OK)
        add_stats(cs, &sc.stats);
    upq_scan_close(&sc);
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* ---- --arena: what running out of it takes ------------------------------------------ */

#define PLAN_ARENA ((size_t)64 << 20)

/* The arena opening the file and reading what the command reads takes with
 * row groups `mode` (EAGER or LAZY): the scan's planner (upq_scan_plan) run in
 * an arena that grows as without --arena. 0 when that does not work. */
static size_t plan_arena(cat_state *cs, const cat_cfg *cfg, uint8_t mode)
{
    tool_args a = cs->args;
    tool_file tf;
    upq_scan_opts o;
    upq_scan sc;
    size_t need = 0;
    int tries;
    a.arena_exact = 0;
    /* generous: what runs in less leaves out what does not fit (a page index,
     * a page read whole), and the plan is of the read with all of it */
    a.arena = PLAN_ARENA;
    a.device_window = 1; /* as the run in --arena reads its footer */
    a.row_groups = mode;
    memset(&o, 0, sizeof o);
    o.where = cfg->where ? &cs->we.pred : NULL; /* column indices and literals fit any opening */
    o.columns = cs->sel ? cs->leaves : NULL;
    o.num_columns = cs->nleaves;
    o.batch = cfg->batch;
    o.first_row = cfg->where ? cfg->rows_from : 0;
    o.end_row = cfg->where && cfg->rows_to != UINT64_MAX ? cfg->rows_to : 0;
    if (!cfg->where && cfg->head != UINT64_MAX && cfg->skip <= UINT64_MAX - cfg->head - 1u)
        o.end_row = cfg->skip + cfg->head + 1u; /* what a plain read reaches (0 rows: the first) */
    o.flags = cfg->scan_flags;
    for (tries = 0; tries < 8; tries++) {
        upq_status st;
        if (tool_open(&tf, cs->path, &a))
            return 0;
        st = upq_scan_begin(&sc, tf.reader, &o);
        if (st == UPQ_OK) {
            do
                st = upq_scan_plan(&sc, &need);
            while (st == UPQ_AGAIN);
            upq_scan_close(&sc);
        }
        if (st == UPQ_ERR_NOMEM) {
            size_t more = upq_arena_needed(&tf.reader->arena);
            a.arena = more > tf.arena_len * 2 ? more : tf.arena_len * 2;
        }
        tool_close(&tf);
        if (st == UPQ_OK)
            return need;
        if (st != UPQ_ERR_NOMEM || a.arena > TOOL_MAX_ARENA)
            return 0;
    }
    return 0;
}

/* Would the reader decode row groups on demand in `len` bytes (AUTO)? */
static int auto_lazy(cat_state *cs, size_t len)
{
    tool_args a = cs->args;
    tool_file tf;
    int lazy;
    a.arena = len;
    a.arena_exact = 2;
    a.row_groups = UPQ_ROW_GROUPS_AUTO;
    if (tool_open(&tf, cs->path, &a))
        return -1;
    lazy = upq_reader_lazy(tf.reader);
    tool_close(&tf);
    return lazy;
}

/* --arena ran out: says how many bytes the command needs in all, so that
 * one more run in that many succeeds (planned on a copy of the read; AUTO
 * picks the row groups' mode by the arena, so the plan is of the mode it
 * picks in the bytes named). Returns 1, the exit status. */
static int arena_too_small(cat_state *cs, const cat_cfg *cfg)
{
    uint64_t reads = tool_io_reads, bytes = tool_io_bytes;
    size_t need = cs->open ? upq_arena_needed(&cs->tf.reader->arena) : cs->tf.nomem_needed;
    uint8_t mode = cs->open && !upq_reader_lazy(cs->tf.reader) ? UPQ_ROW_GROUPS_EAGER
                                                                 : UPQ_ROW_GROUPS_LAZY;
    size_t plan = plan_arena(cs, cfg, mode);
    fflush(stdout);
    if (plan) {
        int lazy = auto_lazy(cs, plan);
        if (lazy >= 0 && lazy != (mode == UPQ_ROW_GROUPS_LAZY)) {
            size_t other = plan_arena(cs, cfg, lazy ? UPQ_ROW_GROUPS_LAZY : UPQ_ROW_GROUPS_EAGER);
            plan = !other ? 0 : other > plan ? other : plan; /* 0: not plannable */
        }
    }
    tool_io_reads = reads; /* planning is not the command's reading */
    tool_io_bytes = bytes;
    if (plan > need)
        need = plan;
    fprintf(stderr, "upq: arena too small: %zu bytes needed%s\n", need,
            plan ? "" : " (at least; the whole read could not be planned)");
    return 1;
}

static int run_where(cat_state *cs, const cat_cfg *cfg)
{
    uint64_t resume = cfg->rows_from; /* the file row the scan goes on from */
    for (;;) {
        upq_status st = where_scan(cs, cfg, resume, &resume);
        int failed;
        if (st == UPQ_OK)
            return 0;
        if (st == UPQ_ERR_NOMEM && cs->args.arena_exact) {
            /* --arena: exactly that memory, as a device has; never more */
            fflush(stdout);
            return arena_too_small(cs, cfg);
        }
        if (st == UPQ_ERR_NOMEM && grow_arena(cs, cfg, &failed) == 0) {
            if (failed)
                return 1;
            continue;
        }
        return report_failure(cs, (unsigned)upq_reader_error(cs->tf.reader)->row_group);
    }
}

static int run(cat_state *cs, const cat_cfg *cfg)
{
    uint32_t rg = 0;
    uint64_t from = 0; /* rows of row group rg already passed */

    if (open_file(cs, cfg))
        return 1;
    if (!cfg->json)
        print_header(cs);
    if (cfg->where)
        return run_where(cs, cfg);
    while (cs->head_left > 0) {
        const upq_row_group *g;
        upq_status st;
        uint64_t n;
        if (rg >= upq_reader_num_row_groups(cs->tf.reader))
            break;
        do /* on-demand row groups: decoded now (nothing to do when eager) */
            st = upq_reader_row_group_load(cs->tf.reader, rg);
        while (st == UPQ_AGAIN);
        if (st != UPQ_OK) {
            if (st == UPQ_ERR_NOMEM && cs->args.arena_exact) {
                fflush(stdout);
                return arena_too_small(cs, cfg);
            }
            tool_report(cs->path, upq_reader_error(cs->tf.reader));
            return 1;
        }
        g = upq_reader_row_group(cs->tf.reader, rg);
        n = g->num_rows > 0 ? (uint64_t)g->num_rows : 0;
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
        if (st == UPQ_ERR_NOMEM && cs->args.arena_exact) {
            fflush(stdout);
            return arena_too_small(cs, cfg);
        }
        if (st == UPQ_ERR_NOMEM) {
            /* a page bigger than the arena: reopen with what was asked for */
            int failed;
            if (grow_arena(cs, cfg, &failed) == 0) {
                if (failed)
                    return 1;
                continue;
            }
        }
        return report_failure(cs, (unsigned)rg);
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
    cfg.raw = args_flag(a, "raw");
    cfg.json = cfg.raw || args_flag(a, "json");
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
    if ((v = args_value(a, "rows"))) {
        /* A:B, A:, :B: rows [A, B) */
        const char *colon = strchr(v, ':');
        uint64_t from = 0, to = UINT64_MAX;
        char buf[32];
        size_t n = colon ? (size_t)(colon - v) : 0;
        if (!colon || n >= sizeof buf) {
            fprintf(stderr, "upq: bad range for --rows (A:B): %s\n", v);
            return 2;
        }
        memcpy(buf, v, n);
        buf[n] = 0;
        if ((n && !parse_count(buf, &from)) || (colon[1] && !parse_count(colon + 1, &to)) ||
            to < from) {
            fprintf(stderr, "upq: bad range for --rows (A:B): %s\n", v);
            return 2;
        }
        if (args_value(a, "head") || args_value(a, "skip")) {
            fprintf(stderr, "upq: --rows does not go with --head or --skip\n");
            return 2;
        }
        if (args_value(a, "where")) {
            /* --where counts matching rows; --rows limits the file rows first */
            cfg.rows_from = from;
            cfg.rows_to = to;
        } else {
            cfg.skip = from;
            cfg.head = to == UINT64_MAX ? UINT64_MAX : to - from;
        }
    } else {
        cfg.rows_to = UINT64_MAX;
    }
    cfg.where = args_value(a, "where");
    if (args_flag(a, "no-page-index"))
        cfg.scan_flags |= UPQ_SCAN_NO_PAGES;
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
    if (a->arena) {
        /* --arena: read within exactly that memory, as a device would; row
         * groups on demand when decoding them all at once would not leave
         * room to read */
        cs.args.arena_exact = 2; /* running out is planned here (arena_too_small) */
        cs.args.row_groups = UPQ_ROW_GROUPS_AUTO;
        if (!cfg.batch) /* a device's batch: each selected column holds this many values */
            cfg.batch = 16;
    }
    cs.skip_left = cfg.skip;
    cs.head_left = cfg.head;
    cs.io_stats = args_flag(a, "io-stats");
    rc = run(&cs, &cfg);
    if (args_flag(a, "io-stats")) {
        fprintf(stderr, "io: %llu reads, %llu bytes\n", (unsigned long long)tool_io_reads,
                (unsigned long long)tool_io_bytes);
        if (cs.seek_index + cs.seek_scan)
            fprintf(stderr, "seek: %llu column chunks through the OffsetIndex, %llu by page headers\n",
                    (unsigned long long)cs.seek_index, (unsigned long long)cs.seek_scan);
        if (cfg.where)
            fprintf(stderr, "where: %llu row groups: %llu pruned by statistics, %llu by bloom "
                    "filters, %llu by dictionaries, %llu by page index; predicates on %llu column chunks with a page "
                    "index, %llu without (%llu whose index was not usable); rows: %llu selected, %llu tested, "
                    "%llu matched\n",
                    (unsigned long long)cs.rg_seen, (unsigned long long)cs.rg_stats,
                    (unsigned long long)cs.rg_bloom, (unsigned long long)cs.rg_dict,
                    (unsigned long long)cs.rg_pages,
                    (unsigned long long)cs.leaves_paged, (unsigned long long)cs.leaves_no_index,
                    (unsigned long long)cs.index_rejected,
                    (unsigned long long)cs.rows_selected, (unsigned long long)cs.rows_tested,
                    (unsigned long long)cs.rows_given);
    }
    if (cs.open)
        tool_close(&cs.tf);
    variant_set_free(&cs.vs);
    where_free(&cs.we);
    free(cs.sel);
    free(cs.leaves);
    return rc;
}
