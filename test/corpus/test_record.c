/*
 * Reads every row of every corpus file through the record reader
 * (uparquet/record.h) and checks that the events (serialised with their
 * values) are the same
 *   - in every I/O pattern of tu_flaky_cfgs and in batch sizes 1, 7, 1024,
 *   - when k rows are skipped at the start of each row group (equal to the
 *     full read from row k), and when rows are skipped after a row was left
 *     half read,
 *   - when one top-level field is selected (equal to that field's part of
 *     the full read),
 * that data cut short gives an error or exactly the full result, and that
 * a read fails the same way whatever the I/O pattern. Files whose fields
 * are all top-level columns give the values the column API reads. The values themselves
 * are checked against DuckDB by test/interop (upq cat).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"
#include "util/files.h"
#include "util/sbuf.h"
#include "util/flaky_io.h"

#define ARENA (256u << 20)
#define SPIN_LIMIT 100000000u

static uint8_t *arena;


/* One top-level item of one row: where its serialisation lies. */
typedef struct item {
    uint32_t rg;
    uint64_t row;   /* in its row group */
    uint32_t field; /* ordinal among the row's items */
    size_t start, end;
} item;

typedef struct result {
    upq_status status;
    sbuf data;
    item *items;
    size_t n, cap;
} result;

static void result_free(result *r)
{
    free(r->data.p);
    free(r->items);
    memset(r, 0, sizeof *r);
}

typedef struct run_cfg {
    const tu_flaky_cfg *io;
    size_t batch;
    uint64_t skip;        /* rows skipped at the start of each row group */
    int skip_after_half;  /* read half a row, then skip this many rows */
    int field;            /* -1: every field; else only this top-level field */
    uint64_t cut;         /* reads at or past this offset (before the footer) see end of file */
} run_cfg;

static void serialise(result *res, const upq_schema *s, const upq_event *ev)
{
    uint8_t head[2] = {ev->type, ev->role};
    sbuf_put(&res->data, head, 2);
    sbuf_put(&res->data, &ev->node, 4);
    sbuf_put(&res->data, &ev->column, 4);
    if (ev->type == UPQ_EV_VALUE) {
        int32_t t = s->columns[ev->column].physical_type;
        if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            const upq_bytes *b = (const upq_bytes *)ev->value;
            sbuf_put(&res->data, &b->len, 4);
            sbuf_put(&res->data, b->ptr, b->len);
        } else {
            sbuf_put(&res->data, ev->value, upq_value_size(t));
        }
    }
}

/* The events of the current row into res; stops after `limit` events
 * (0: none). Returns UPQ_OK at the end of the row or at the limit. */
static upq_status read_row(upq_rows *rows, const upq_schema *s, result *res, uint32_t rg,
                           uint64_t row, size_t limit)
{
    upq_event ev;
    upq_status st;
    unsigned depth = 0, spins = 0;
    uint32_t field = 0;
    size_t count = 0;
    for (;;) {
        if (limit && count == limit)
            return UPQ_OK;
        st = upq_rows_event(rows, &ev);
        if (st == UPQ_AGAIN) {
            if (++spins > SPIN_LIMIT)
                return UPQ_ERR_STATE;
            continue;
        }
        if (st == UPQ_DONE)
            return UPQ_OK;
        if (st != UPQ_OK)
            return st;
        count++;
        if (depth == 0) {
            if (res->n == res->cap) {
                res->cap = res->cap * 2 + 64;
                res->items = (item *)realloc(res->items, res->cap * sizeof *res->items);
            }
            res->items[res->n].rg = rg;
            res->items[res->n].row = row;
            res->items[res->n].field = field++;
            res->items[res->n].start = res->data.n;
            res->n++;
        }
        serialise(res, s, &ev);
        if (ev.type == UPQ_EV_BEGIN_STRUCT || ev.type == UPQ_EV_BEGIN_LIST ||
            ev.type == UPQ_EV_BEGIN_MAP)
            depth++;
        else if (ev.type == UPQ_EV_END_STRUCT || ev.type == UPQ_EV_END_LIST ||
                 ev.type == UPQ_EV_END_MAP)
            depth--;
        if (depth == 0)
            res->items[res->n - 1].end = res->data.n;
    }
}

static upq_status skip_rows(upq_rows *rows, uint64_t n, uint64_t *got)
{
    upq_status st;
    unsigned spins = 0;
    do
        st = upq_rows_skip(rows, n, got);
    while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    return st;
}

static upq_status read_rg(upq_reader *r, uint32_t rg, const run_cfg *cfg, result *res)
{
    const upq_schema *s = upq_reader_schema(r);
    upq_rows rows;
    upq_status st;
    uint32_t sel = 0;
    uint64_t row = 0, got = 0;
    unsigned spins = 0;
    upq_arena_mark mark = upq_arena_save(&r->arena);

    if (cfg->field >= 0)
        sel = s->children[s->nodes[0].first_child + (uint32_t)cfg->field];
    st = upq_rows_open(&rows, r, rg, cfg->field >= 0 ? &sel : NULL, cfg->field >= 0 ? 1u : 0u,
                       cfg->batch);
    if (st != UPQ_OK)
        return st;
    if (cfg->skip) {
        st = skip_rows(&rows, cfg->skip, &got);
        row = got;
    }
    while (st == UPQ_OK) {
        st = upq_rows_next(&rows);
        if (st == UPQ_AGAIN) {
            st = ++spins > SPIN_LIMIT ? UPQ_ERR_STATE : UPQ_OK;
            continue;
        }
        if (st != UPQ_OK)
            break;
        if (cfg->skip_after_half && row == 0) {
            /* a few events of row 0 (thrown away), then a skip */
            result scratch;
            memset(&scratch, 0, sizeof scratch);
            st = read_row(&rows, s, &scratch, rg, row, 3);
            result_free(&scratch);
            if (st == UPQ_OK)
                st = skip_rows(&rows, (uint64_t)cfg->skip_after_half, &got);
            row = 1 + got;
            continue;
        }
        st = read_row(&rows, s, res, rg, row, 0);
        row++;
    }
    upq_rows_close(&rows);
    /* closing gives every byte back */
    TU_CHECK_UINT(upq_arena_save(&r->arena), mark);
    return st == UPQ_DONE ? UPQ_OK : st;
}

static upq_status read_file(const uint8_t *data, size_t len, const run_cfg *cfg, result *res,
                            uint64_t *footer_start)
{
    tu_cut_src src;
    tu_flaky fl;
    upq_reader r;
    upq_status st;
    unsigned spins = 0;
    tu_mem_src_init(&src.mem, data, len);
    src.cut = cfg->cut ? cfg->cut : UINT64_MAX;
    src.footer_start = footer_start && *footer_start ? *footer_start : len;
    tu_flaky_init(&fl, cfg->io, tu_cut_read_at, &src, tu_seed());
    upq_io io = {&fl, tu_flaky_read_at, len, NULL};
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    memset(res, 0, sizeof *res);
    do
        st = upq_reader_open(&r);
    while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    if (st == UPQ_OK) {
        const upq_file_metadata *m = upq_reader_metadata(&r);
        if (footer_start)
            *footer_start = r.footer_start;
        for (uint32_t g = 0; g < m->row_groups.n && st == UPQ_OK; g++)
            st = read_rg(&r, g, cfg, res);
        if (st != UPQ_OK && cfg->batch == 1024 && cfg->io == &tu_flaky_cfgs[0] && cfg->field < 0 &&
            !cfg->cut) {
            const upq_error_info *e = upq_reader_error(&r);
            tu_note("%s (%s) at rg %d col %d page %d offset %lld", e->what ? e->what : "?",
                    upq_strerror(st), e->row_group, e->column, e->page, (long long)e->offset);
        }
    }
    res->status = st;
    return st;
}

static int same_item(const result *a, const item *x, const result *b, const item *y)
{
    return x->end - x->start == y->end - y->start &&
           memcmp(a->data.p + x->start, b->data.p + y->start, x->end - x->start) == 0;
}

/* Do b's items equal those of a that `keep` selects, in order? */
static int same_items(const result *a, const result *b, int (*keep)(const item *, const void *),
                      const void *arg)
{
    size_t i, j = 0;
    for (i = 0; i < a->n; i++) {
        if (!keep(&a->items[i], arg))
            continue;
        if (j >= b->n || a->items[i].rg != b->items[j].rg || a->items[i].row != b->items[j].row ||
            !same_item(a, &a->items[i], b, &b->items[j])) {
            tu_note("item %zu (row group %u row %llu field %u) differs", j, a->items[i].rg,
                    (unsigned long long)a->items[i].row, a->items[i].field);
            return 0;
        }
        j++;
    }
    if (j != b->n)
        tu_note("%zu items more than expected", b->n - j);
    return j == b->n;
}

static int keep_all(const item *it, const void *arg)
{
    (void)it;
    (void)arg;
    return 1;
}

static int keep_from_row(const item *it, const void *arg)
{
    return it->row >= *(const uint64_t *)arg;
}

static int keep_half_skip(const item *it, const void *arg)
{
    return it->row == 0 ? 0 : it->row > (uint64_t)*(const int *)arg;
}

static int keep_field(const item *it, const void *arg)
{
    return it->field == (uint32_t)*(const int *)arg;
}

/* One column chunk through the column API: an item per level entry, as the
 * row reader gives the field of a top-level column. 1 done, -1 failed. */
static int column_items(upq_reader *r, uint32_t g, uint32_t c, result *out)
{
    const upq_schema *s = upq_reader_schema(r);
    static uint16_t def[64];
    static uint64_t vals[64 * 4]; /* 64 values of up to 32 bytes */
    size_t vsize = upq_value_size(s->columns[c].physical_type);
    upq_column_reader cr;
    upq_status st = upq_column_open(&cr, r, g, c);
    while (st == UPQ_OK) {
        upq_batch b = {def, NULL, vals, 64, 0, 0};
        size_t vi = 0;
        st = upq_column_read(&cr, &b);
        for (size_t i = 0; st == UPQ_OK && i < b.levels; i++) {
            upq_event ev = {UPQ_EV_NULL, UPQ_ROLE_FIELD, s->columns[c].node, c, NULL};
            if (!s->columns[c].max_def || def[i] == s->columns[c].max_def) {
                ev.type = UPQ_EV_VALUE;
                ev.value = (const uint8_t *)vals + vi++ * vsize;
            }
            if (out->n == out->cap) {
                out->cap = out->cap * 2 + 64;
                out->items = (item *)realloc(out->items, out->cap * sizeof *out->items);
            }
            out->items[out->n].rg = g;
            out->items[out->n].row = out->n;
            out->items[out->n].field = c;
            out->items[out->n].start = out->data.n;
            serialise(out, s, &ev);
            out->items[out->n++].end = out->data.n;
        }
    }
    upq_column_close(&cr);
    return st == UPQ_DONE ? 1 : -1;
}

/*
 * The rows of a file whose fields are all top-level columns, none repeated
 * (the row reader's fast path with UPQ_WITH_FLAT_ROWS), as the column API
 * reads them: what the row reader must give. 0 for other files, -1 when the
 * column API fails.
 */
static int column_truth(const uint8_t *data, size_t len, result *out)
{
    tu_mem_src src;
    upq_reader r;
    const upq_schema *s;
    const upq_file_metadata *m;
    result *cols;
    int ok = 1;
    tu_mem_src_init(&src, data, len);
    upq_io io = {&src, tu_mem_read_at, len, NULL};
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    memset(out, 0, sizeof *out);
    if (upq_reader_open(&r) != UPQ_OK)
        return 0;
    s = upq_reader_schema(&r);
    m = upq_reader_metadata(&r);
    if (s->num_columns == 0 || s->num_nodes != s->num_columns + 1)
        return 0; /* a group somewhere */
    for (uint32_t c = 0; c < s->num_columns; c++)
        if (s->columns[c].max_rep)
            return 0;
    cols = (result *)calloc(s->num_columns, sizeof *cols);
    for (uint32_t g = 0; g < m->row_groups.n && ok > 0; g++) {
        for (uint32_t c = 0; c < s->num_columns && ok > 0; c++) {
            ok = column_items(&r, g, c, &cols[c]);
            if (ok > 0 && cols[c].n != (size_t)upq_reader_row_group(&r, g)->num_rows)
                ok = -1;
        }
        for (size_t i = 0; ok > 0 && i < cols[0].n; i++)
            for (uint32_t c = 0; c < s->num_columns; c++) {
                const item *x = &cols[c].items[i];
                if (out->n == out->cap) {
                    out->cap = out->cap * 2 + 64;
                    out->items = (item *)realloc(out->items, out->cap * sizeof *out->items);
                }
                out->items[out->n] = *x;
                out->items[out->n].start = out->data.n;
                sbuf_put(&out->data, cols[c].data.p + x->start, x->end - x->start);
                out->items[out->n++].end = out->data.n;
            }
        for (uint32_t c = 0; c < s->num_columns; c++)
            result_free(&cols[c]);
    }
    free(cols);
    return ok;
}

static void test_file(const char *path)
{
    const char *name = tu_basename(path);
    uint8_t *data;
    size_t len;
    result full, other;
    run_cfg cfg = {&tu_flaky_cfgs[0], 1024, 0, 0, -1, 0};
    int nfields = 0;
    uint64_t footer_start = 0;

    if (tu_read_file(path, &data, &len) != 0) {
        TU_CHECK_MSG(0, "%s: cannot read", path);
        return;
    }
    tu_case("%s", name);
    read_file(data, len, &cfg, &full, &footer_start);
    TU_CHECK(full.status <= 0);

    /* every I/O pattern and batch size gives the same */
    for (size_t i = 1; i < tu_flaky_ncfgs; i++) {
        run_cfg c2 = cfg;
        if (!tu_repeat_keep())
            continue;
        c2.io = &tu_flaky_cfgs[i];
        c2.batch = i % 3 == 0 ? 1024 : i % 3 == 1 ? 7 : 1;
        if (len > (1u << 20) && c2.batch == 1)
            c2.batch = 7; /* keep large files quick */
        read_file(data, len, &c2, &other, NULL);
        TU_CHECK_MSG(other.status == full.status &&
                         (full.status != UPQ_OK || same_items(&full, &other, keep_all, NULL)),
                     "%s: I/O pattern %s batch %zu differs (%s vs %s)", name,
                     tu_flaky_cfgs[i].name, c2.batch, upq_strerror(other.status),
                     upq_strerror(full.status));
        result_free(&other);
    }

    if (full.status == UPQ_OK) {
        /* rows of top-level columns: the values the column API reads */
        int t = column_truth(data, len, &other);
        TU_CHECK_MSG(t >= 0 && (t == 0 || same_items(&other, &full, keep_all, NULL)),
                     "%s: rows differ from the column API's values (%d)", name, t);
        result_free(&other);
    }
    if (full.status == UPQ_OK) {
        static const uint64_t ks[] = {1, 2, 5, 50, 1000};
        static const int halfs[] = {1, 3};
        for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
            run_cfg c3 = cfg;
            if (!tu_repeat_keep())
                continue;
            c3.io = &tu_flaky_cfgs[t % tu_flaky_ncfgs];
            c3.batch = t % 2 ? 3 : 64;
            c3.skip = ks[t];
            read_file(data, len, &c3, &other, NULL);
            TU_CHECK_MSG(other.status == UPQ_OK && same_items(&full, &other, keep_from_row, &ks[t]),
                         "%s: skipping %llu rows differs (%s)", name, (unsigned long long)ks[t],
                         upq_strerror(other.status));
            result_free(&other);
        }
        for (size_t t = 0; t < sizeof halfs / sizeof halfs[0]; t++) {
            run_cfg c3 = cfg;
            if (!tu_repeat_keep())
                continue;
            c3.io = &tu_flaky_cfgs[(t + 3) % tu_flaky_ncfgs];
            c3.batch = 5;
            c3.skip_after_half = halfs[t];
            read_file(data, len, &c3, &other, NULL);
            TU_CHECK_MSG(other.status == UPQ_OK &&
                             same_items(&full, &other, keep_half_skip, &halfs[t]),
                         "%s: skipping %d rows after half a row differs (%s)", name, halfs[t],
                         upq_strerror(other.status));
            result_free(&other);
        }
        for (size_t i = 0; i < full.n; i++)
            if ((int)full.items[i].field + 1 > nfields)
                nfields = (int)full.items[i].field + 1;
        for (int f = 0; f < nfields && f < 64; f++) {
            run_cfg c4 = cfg;
            c4.field = f;
            c4.batch = 2 + (size_t)f;
            read_file(data, len, &c4, &other, NULL);
            TU_CHECK_MSG(other.status == UPQ_OK && same_items(&full, &other, keep_field, &f),
                         "%s: field %d alone differs (%s)", name, f, upq_strerror(other.status));
            result_free(&other);
        }
        /* data cut short: an error, or (cut after every chunk) the same rows */
        if (footer_start > 4) {
            uint64_t rng = tu_seed() ^ len;
            int bad = 0;
            for (int t = 0; t < 16; t++) {
                run_cfg c5 = cfg;
                c5.batch = t % 2 ? 1024 : 5;
                c5.cut = 4 + tu_rand_below(&rng, footer_start - 3);
                read_file(data, len, &c5, &other, &footer_start);
                if (other.status == UPQ_OK ? !same_items(&full, &other, keep_all, NULL)
                                           : other.status > 0)
                    bad++;
                result_free(&other);
            }
            TU_CHECK_MSG(bad == 0, "%s: %d cut reads gave rows that differ", name, bad);
        }
    }
    result_free(&full);
    free(data);
}

int main(void)
{
    static const char *const subdirs[] = {"data", "bad_data", "shredded_variant"};
    arena = (uint8_t *)malloc(ARENA);
    tu_for_each_corpus_file(subdirs, 3, TU_CORPUS_SKIP_PARE, test_file);
    free(arena);
    return tu_summary();
}
