/*
 * The scan: the rows of a file (or of one row group) for which a predicate
 * is TRUE, pruned first, as a resumable stage machine with a function per
 * stage:
 *
 *   LOAD -> RG -> PAGES -> OPEN -> SCAN -> NEXT -> LOAD ... -> DONE
 *
 * LOAD brings the next row group's metadata (on-demand row groups load
 * there, after the previous row group's readers are closed); RG prunes it
 * by statistics, bloom filters and dictionaries; PAGES narrows it to row
 * ranges by the page index; OPEN opens two row readers, one over the
 * predicate's columns and one over the output's; SCAN tests rows on the
 * first and hands matching ones out through the second; NEXT closes them.
 * Every stage keeps its place in upq_scan, so UPQ_AGAIN can come anywhere.
 */
#include "uparquet/predicate.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "pred_int.h"
#include "read/reader_int.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

#define MAY_T UPQ_MAY_T
#define MAY_F UPQ_MAY_F

enum { SC_LOAD = 0, SC_RG, SC_PAGES, SC_OPEN, SC_SCAN, SC_NEXT, SC_DONE, SC_FAILED };

/* SC_SCAN sub-stages: find the next range (reopening the readers to jump a
 * gap), skip the predicate reader to it, start a row, read its events; skip
 * the output reader to the match, hand it out */
enum { SS_PSKIP = 0, SS_PSKIP2, SS_PNEXT, SS_PEV, SS_OSKIP, SS_READY };

/* to_row(): the output reader would have to refill to reach the match */
#define HOLD 100

/* rows of a row group pruned by a bloom filter / a dictionary */
#define HIT_BLOOM 1u
#define HIT_DICT 2u

static upq_status sc_fail(upq_scan *sc, upq_status st, const char *what)
{
    upq_reader_set_error(sc->r, st, UINT64_MAX, what, (int32_t)sc->rg, -1, -1);
    sc->r->err.schema_element = -1; /* opened over a reader whose open failed */
    sc->stage = SC_FAILED;
    sc->failed = st;
    return st;
}

/* An error of a row reader or the reader: its info is already there. */
static upq_status sc_stop(upq_scan *sc, upq_status st)
{
    sc->stage = SC_FAILED;
    sc->failed = st;
    return st;
}

static int filtering(const upq_scan *sc)
{
    return sc->p && !(sc->flags & UPQ_SCAN_NO_FILTER);
}

/* Passes row reader `w` from row *pos on to row `to` (nothing when it is
 * there): UPQ_OK at `to`, UPQ_AGAIN (call again: the skip resumes), or the
 * scan's failure; `short_what` when the column ends first. */
UPQ_INLINE upq_status skip_to(upq_scan *sc, upq_rows *w, uint64_t *pos, uint64_t to,
                              const char *short_what)
{
    uint64_t got = 0;
    upq_status st;
    if (*pos >= to)
        return UPQ_OK;
    st = upq_rows_skip(w, to - *pos, &got);
    if (st == UPQ_AGAIN)
        return st;
    if (st != UPQ_OK)
        return sc_stop(sc, st);
    if (got != to - *pos)
        return sc_fail(sc, UPQ_ERR_CORRUPT, short_what);
    *pos = to;
    return UPQ_OK;
}

/* ---- opening ---------------------------------------------------------------- */

/* What every scan takes from the arena at open: the predicate's columns,
 * its leaf results and stack, the selection. */
static upq_status begin(upq_scan *sc, upq_reader *r, const upq_pred *p, size_t batch,
                        uint32_t max_ranges, unsigned flags)
{
    const upq_schema *s = &r->schema;
    uint32_t i, j, n = p ? p->n : 0u;
    upq_memset(sc, 0, sizeof *sc);
    sc->r = r;
    sc->p = p;
    sc->batch = batch;
    sc->flags = flags;
    sc->mark = upq_arena_save(&r->arena);
    if (p) {
        upq_pred copy;
        const char *what = "";
        uint32_t bad;
        upq_memcpy(&copy, p, sizeof copy); /* not an assignment: a memcpy call on Cortex-M0+ */
        if (upq_pred_check(s, &copy, &what, &bad) != UPQ_OK)
            return sc_fail(sc, UPQ_ERR_INVAL, what);
        sc->depth = copy.depth;
    }
    for (i = 0; i < n; i++)
        if (upq_pred_has_column(UPQ_PRED_OP(p->nodes[i].op)) && r->chunk_slot[p->nodes[i].column] == UPQ_NONE)
            return sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("a predicate column is not projected"));
    if (max_ranges == 0)
        max_ranges = UPQ_SCAN_DEFAULT_RANGES;
    sc->pcols = (uint32_t *)upq_arena_alloc_array(&r->arena, n + 1u, sizeof(uint32_t));
    sc->res = (uint8_t *)upq_arena_alloc(&r->arena, n + 1u);
    sc->evstack = (uint8_t *)upq_arena_alloc(&r->arena, sc->depth + 1u);
    sc->sel.v = (upq_row_range *)upq_arena_alloc_array(&r->arena, max_ranges,
                                                        sizeof(upq_row_range));
    if (!sc->pcols || !sc->res || !sc->evstack || !sc->sel.v) {
        upq_arena_rewind(&r->arena, sc->mark);
        return sc_fail(sc, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the scan"));
    }
    sc->sel.cap = max_ranges;
    /* the predicate reader selects each predicate column's leaf node once */
    for (i = 0; i < n; i++) {
        uint32_t leaf;
        if (!upq_pred_has_column(UPQ_PRED_OP(p->nodes[i].op)))
            continue;
        leaf = s->columns[p->nodes[i].column].node;
        for (j = 0; j < sc->npcols && sc->pcols[j] != leaf; j++)
            ;
        if (j == sc->npcols)
            sc->pcols[sc->npcols++] = leaf;
    }
    return UPQ_OK;
}

/* The output's schema nodes from leaf columns (NULL: every column the
 * reader keeps; NULL again when it keeps all). */
static upq_status out_columns(upq_scan *sc, const uint32_t *cols, uint32_t n)
{
    upq_reader *r = sc->r;
    const upq_schema *s = &r->schema;
    uint32_t i, k = 0, *nodes;
    if (!cols && !r->opts.projection)
        return UPQ_OK;
    nodes = (uint32_t *)upq_arena_alloc_array(&r->arena, cols ? n : s->num_columns,
                                              sizeof(uint32_t));
    if (!nodes)
        return sc_fail(sc, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the scan"));
    if (cols) {
        for (i = 0; i < n; i++) {
            if (cols[i] >= s->num_columns || r->chunk_slot[cols[i]] == UPQ_NONE)
                return sc_fail(sc, UPQ_ERR_INVAL,
                               UPQ_MSG("a column out of range or not projected"));
            nodes[k++] = s->columns[cols[i]].node;
        }
    } else {
        for (i = 0; i < s->num_columns; i++)
            if (r->chunk_slot[i] != UPQ_NONE)
                nodes[k++] = s->columns[i].node;
    }
    sc->out_nodes = nodes;
    sc->out_n = k;
    return UPQ_OK;
}

/* A scan begun without what it needs: failed, and said so on the reader. */
static upq_status bad_call(upq_scan *sc, upq_reader *r, const char *what)
{
    upq_memset(sc, 0, sizeof *sc);
    sc->stage = SC_FAILED;
    sc->failed = UPQ_ERR_INVAL;
    if (r) {
        sc->r = r;
        sc_fail(sc, UPQ_ERR_INVAL, what);
    }
    return UPQ_ERR_INVAL;
}

upq_status upq_scan_begin(upq_scan *sc, upq_reader *r, const upq_scan_opts *o)
{
    upq_status st;
    if (!r || !o || !upq_reader_schema(r))
        return bad_call(sc, r, UPQ_MSG("no open reader or no options"));
    st = begin(sc, r, o->where, o->batch, o->max_ranges, o->flags);
    if (st == UPQ_OK)
        st = out_columns(sc, o->columns, o->num_columns);
    if (st != UPQ_OK) {
        upq_arena_rewind(&r->arena, sc->mark);
        return st;
    }
    sc->file_from = o->first_row;
    sc->file_to = o->end_row ? o->end_row : UINT64_MAX;
    sc->rg_end = upq_reader_num_row_groups(r);
    sc->work_mark = upq_arena_save(&r->arena);
    sc->stage = SC_LOAD;
    return UPQ_OK;
}

upq_status upq_scan_open(upq_scan *sc, upq_reader *r, const upq_pred *p, uint32_t rg,
                         const uint32_t *nodes, uint32_t n, size_t batch, uint64_t from,
                         uint64_t to, uint32_t max_ranges, unsigned flags)
{
    const upq_row_group *g;
    upq_status st;
    if (!r || !p || !p->nodes)
        return bad_call(sc, r, UPQ_MSG("no reader or an unchecked predicate"));
    g = upq_reader_row_group(r, rg);
    st = begin(sc, r, p, batch, max_ranges, flags);
    sc->rg = rg;
    if (st != UPQ_OK)
        return st;
    if (!g) {
        upq_arena_rewind(&r->arena, sc->mark);
        return sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("no such row group (or not loaded)"));
    }
    if (g->num_rows < 0) {
        upq_arena_rewind(&r->arena, sc->mark);
        return sc_fail(sc, UPQ_ERR_CORRUPT, UPQ_MSG("negative row count"));
    }
    sc->one_rg = 1;
    sc->out_nodes = nodes;
    sc->out_n = n;
    sc->rg_end = rg + 1u;
    sc->num_rows = (uint64_t)g->num_rows;
    sc->file_from = from < sc->num_rows ? from : sc->num_rows;
    sc->file_to = to < sc->num_rows ? to : sc->num_rows;
    if (sc->file_to < sc->file_from)
        sc->file_to = sc->file_from;
    sc->work_mark = upq_arena_save(&r->arena);
    sc->stage = SC_LOAD;
    return UPQ_OK;
}

/* ---- LOAD: the next row group within the rows asked for ------------------- */

static UPQ_NOINLINE upq_status st_load(upq_scan *sc)
{
    upq_reader *r = sc->r;
    const upq_row_group *g;
    uint32_t i;
    upq_status st;
    if (sc->rg >= sc->rg_end || sc->base >= sc->file_to) {
        sc->stage = SC_DONE;
        return UPQ_OK;
    }
    if (!sc->one_rg) {
        st = upq_reader_row_group_load(r, sc->rg);
        if (st == UPQ_AGAIN)
            return st;
        if (st != UPQ_OK)
            return sc_stop(sc, st);
    }
    g = upq_reader_row_group(r, sc->rg);
    if (!g)
        return sc_fail(sc, UPQ_ERR_STATE, UPQ_MSG("row group not loaded"));
    if (g->num_rows < 0)
        return sc_fail(sc, UPQ_ERR_CORRUPT, UPQ_MSG("negative row count"));
    sc->num_rows = (uint64_t)g->num_rows;
    sc->from = sc->file_from > sc->base ? sc->file_from - sc->base : 0u;
    sc->to = sc->file_to - sc->base;
    if (sc->to > sc->num_rows)
        sc->to = sc->num_rows;
    if (sc->from >= sc->to) {
        sc->stage = SC_NEXT;
        return UPQ_OK;
    }
    for (i = 0; sc->p && i < sc->p->n; i++)
        if (upq_pred_has_column(UPQ_PRED_OP(sc->p->nodes[i].op)) &&
            !upq_reader_chunk(r, sc->rg, sc->p->nodes[i].column))
            return sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("a predicate column is not projected"));
    sc->stats.row_groups++;
    sc->pc = 0;
    sc->sp = 0;
    sc->sub = 0;
    sc->hits = 0;
    sc->stage = sc->p ? SC_RG : SC_PAGES;
    return UPQ_OK;
}

/* ---- RG: statistics, bloom filters, dictionaries -------------------------- */

#if UPQ_WITH_BLOOM
/* Can a bloom filter rule leaf `nd` out? It hashes the stored bytes:
 * floats have two zeros and many NaNs, binary decimals several widths,
 * INT96 more than one way to say an instant, so only unique
 * representations are probed. */
static int bloom_usable(const upq_scan *sc, const upq_pred_node *nd)
{
    const upq_column_desc *cd = &sc->r->schema.columns[nd->column];
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    return (UPQ_PRED_OP(nd->op) == UPQ_PRED_EQ || UPQ_PRED_OP(nd->op) == UPQ_PRED_IN || UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_DISTINCT) &&
           !(nd->op & UPQ_PRED_AS_DOUBLE) &&
           (sc->bits[sc->sp] & MAY_T) && !(sc->flags & UPQ_SCAN_NO_BLOOM) &&
           cd->physical_type != UPQ_TYPE_BOOLEAN && cd->physical_type != UPQ_TYPE_INT96 &&
           cd->physical_type != UPQ_TYPE_FLOAT && cd->physical_type != UPQ_TYPE_DOUBLE &&
           lk != UPQ_LOGICAL_TYPE_FLOAT16 &&
           !(lk == UPQ_LOGICAL_TYPE_DECIMAL && cd->physical_type == UPQ_TYPE_BYTE_ARRAY);
}

/* sub 1: open the filter; 2: read it and probe every literal. */
static upq_status rg_bloom(upq_scan *sc, const upq_pred_node *nd)
{
    upq_status st;
    uint32_t k;
    int any = 0;
    if (sc->sub == 1) {
        sc->sub = 3;
        if (bloom_usable(sc, nd) && upq_bloom_open(&sc->bloom, sc->r, sc->rg, nd->column) == UPQ_OK)
            sc->sub = 2;
        return UPQ_OK;
    }
    st = upq_bloom_load(&sc->bloom);
    if (st == UPQ_AGAIN)
        return st;
    if (st == UPQ_OK) {
        for (k = 0; k < nd->n && !any; k++) {
            int maybe = 1;
            if (upq_bloom_might_contain(&sc->bloom, &nd->values[k], &maybe) != UPQ_OK)
                maybe = 1;
            any = maybe;
        }
        if (!any) {
            sc->bits[sc->sp] &= (uint8_t)~MAY_T;
            sc->hits |= HIT_BLOOM;
        }
    }
    /* a filter that does not read prunes nothing */
    upq_bloom_close(&sc->bloom);
    sc->sub = 3;
    return UPQ_OK;
}
#endif

/* sub 3: open the chunk's first page when every data page uses the dictionary. */
static void rg_dict_open(upq_scan *sc, const upq_pred_node *nd)
{
    upq_reader *r = sc->r;
    sc->sub = 5;
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_IS_NULL || UPQ_PRED_OP(nd->op) == UPQ_PRED_IS_NOT_NULL ||
        UPQ_PRED_OP(nd->op) == UPQ_PRED_CONST || !(sc->bits[sc->sp] & MAY_T) ||
        (sc->flags & UPQ_SCAN_NO_DICT) ||
        !upq_pred_all_dictionary(upq_reader_chunk(r, sc->rg, nd->column)))
        return;
    /* the column reader lives in the arena only while it is needed: a scan
     * stays small enough for a microcontroller's stack */
    sc->dmark = upq_arena_save(&r->arena);
    sc->dcol = (upq_column_reader *)upq_arena_alloc(&r->arena, sizeof(upq_column_reader));
    if (sc->dcol && upq_column_open(sc->dcol, r, sc->rg, nd->column) == UPQ_OK)
        sc->sub = 4;
    else
        upq_arena_rewind(&r->arena, sc->dmark);
}

/* sub 4: the leaf on every dictionary value. Exact for the non-null values;
 * a NULL row makes a comparison neither, but decides IS [NOT] DISTINCT FROM. */
static upq_status rg_dict(upq_scan *sc, const upq_pred_node *nd)
{
    upq_batch b;
    upq_status st;
    upq_memset(&b, 0, sizeof b);
    b.def = &sc->ddef;
    b.values = &sc->dval;
    b.cap = 1;
    st = upq_column_read(sc->dcol, &b);
    if (st == UPQ_AGAIN)
        return st;
    if (st == UPQ_OK && sc->dcol->has_dict) {
        const upq_dict *d = &sc->dcol->dict;
        size_t vs = upq_value_size(d->physical_type);
        unsigned may = 0;
        uint32_t k;
        for (k = 0; k < d->n && may != (MAY_T | MAY_F); k++) {
            int t = upq_pred_eval_leaf(&sc->r->schema, sc->p, sc->pc,
                                       (const uint8_t *)d->values + k * vs);
            may |= t == UPQ_PRED_TRUE ? MAY_T : t == UPQ_PRED_FALSE ? MAY_F : 0u;
        }
        if (UPQ_PRED_OP(nd->op) == UPQ_PRED_DISTINCT || UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_DISTINCT) {
            int t = upq_pred_eval_leaf(&sc->r->schema, sc->p, sc->pc, (const void *)0);
            may |= t == UPQ_PRED_TRUE ? MAY_T : MAY_F; /* if the chunk holds a NULL */
        }
        if (!(may & MAY_T) && (sc->bits[sc->sp] & MAY_T))
            sc->hits |= HIT_DICT;
        sc->bits[sc->sp] &= (uint8_t)may;
    }
    /* a dictionary that does not read prunes nothing */
    upq_column_close(sc->dcol);
    upq_arena_rewind(&sc->r->arena, sc->dmark);
    sc->dcol = (upq_column_reader *)0;
    sc->sub = 5;
    return UPQ_OK;
}

/* Row-group pruning, resumable at the bloom filter and dictionary reads.
 * Kept out of the row loop's frame (UPQ_NOINLINE). UPQ_OK: sc->bits[0]
 * holds the answer. */
static UPQ_NOINLINE upq_status prune_row_group(upq_scan *sc)
{
    const upq_pred *p = sc->p;
    upq_status st = UPQ_OK;
    while (sc->pc < p->n) {
        const upq_pred_node *nd = &p->nodes[sc->pc];
        if (!upq_pred_is_leaf(UPQ_PRED_OP(nd->op))) {
            upq_pred_combine_may(UPQ_PRED_OP(nd->op), sc->bits, &sc->sp);
            sc->pc++;
            continue;
        }
        switch (sc->sub) {
        case 0:
            sc->bits[sc->sp] = (uint8_t)upq_pred_chunk_may(sc->r, nd, sc->rg);
            sc->sub = UPQ_PRED_OP(nd->op) == UPQ_PRED_CONST ? 5 : 1;
            continue;
#if UPQ_WITH_BLOOM
        case 1:
        case 2: st = rg_bloom(sc, nd); break;
#else
        case 1: sc->sub = 3; continue;
#endif
        case 3: rg_dict_open(sc, nd); continue;
        case 4: st = rg_dict(sc, nd); break;
        default:
            sc->sp++;
            sc->sub = 0;
            sc->pc++;
            continue;
        }
        if (st != UPQ_OK)
            return st;
    }
    return UPQ_OK;
}

static void st_rg_done(upq_scan *sc)
{
    sc->sub = 0;
    sc->pc = 0;
    if (sc->bits[0] & MAY_T) {
        sc->stage = SC_PAGES;
        return;
    }
    /* one reason each: the filter before the dictionary before the bounds */
    if (sc->hits & HIT_BLOOM)
        sc->stats.pruned_bloom++;
    else if (sc->hits & HIT_DICT)
        sc->stats.pruned_dict++;
    else
        sc->stats.pruned_stats++;
    sc->stage = SC_NEXT;
}

/* ---- PAGES: the page index ---------------------------------------------------- */

#if UPQ_WITH_PAGE_INDEX
/* Notes an index that failed its checks (or to load) for the caller. */
static void index_rejected(upq_scan *sc, const upq_pred_node *nd, upq_status st,
                           const char *what, int32_t page)
{
    sc->stats.index_rejected++;
    sc->stats.index_status = st;
    sc->stats.index_what = what;
    sc->stats.index_rg = (int32_t)sc->rg;
    sc->stats.index_column = (int32_t)nd->column;
    sc->stats.index_page = page;
}

/* The may-true / may-false rows of leaf `nd` from its column's page index
 * (sub 1: open the OffsetIndex, 2: load it, 3: load the ColumnIndex, check
 * and use it). Returns UPQ_OK with *used, or UPQ_AGAIN. An index that does
 * not load or fails its checks is noted and not used at all. */
static upq_status leaf_index(upq_scan *sc, const upq_pred_node *nd, upq_row_set *t,
                             upq_row_set *f, int *used)
{
    upq_reader *r = sc->r;
    upq_status st;
    *used = 0;
    if (sc->sub == 1) {
        sc->sub = 5;
        st = upq_page_index_open(&sc->oi, r, sc->rg, nd->column, UPQ_PAGE_INDEX_OFFSET);
        if (st != UPQ_OK) {
            if (st != UPQ_DONE)
                index_rejected(sc, nd, st, r->err.what, r->err.page);
            return UPQ_OK;
        }
        sc->sub = 2;
    }
    if (sc->sub == 2) {
        st = upq_page_index_load(&sc->oi);
        if (st == UPQ_AGAIN)
            return st;
        sc->sub = 6;
        if (st == UPQ_OK) {
            st = upq_page_index_open(&sc->ci, r, sc->rg, nd->column, UPQ_PAGE_INDEX_COLUMN);
            if (st == UPQ_OK)
                sc->sub = 3;
        }
        if (st != UPQ_OK && st != UPQ_DONE)
            index_rejected(sc, nd, st, r->err.what, r->err.page);
    }
    if (sc->sub == 3) {
        const char *what = "";
        int32_t page = -1;
        st = upq_page_index_load(&sc->ci);
        if (st == UPQ_AGAIN)
            return st;
        if (st == UPQ_OK)
            st = upq_column_index_verify(r, sc->rg, nd->column, upq_page_index_offsets(&sc->oi),
                                         upq_page_index_columns(&sc->ci), &what, &page);
        else
            what = r->err.what, page = r->err.page;
        if (st == UPQ_OK) {
            upq_pred_leaf_pages(r, nd, sc->num_rows, upq_page_index_offsets(&sc->oi),
                                upq_page_index_columns(&sc->ci), t, f);
            *used = 1;
        } else {
            index_rejected(sc, nd, st, what, page);
        }
        upq_page_index_close(&sc->ci);
        sc->sub = 6;
    }
    if (sc->sub == 6)
        upq_page_index_close(&sc->oi);
    sc->sub = 5;
    return UPQ_OK;
}
#endif

/* The page pruning stacks: 2 x depth sets and two for AND / OR. */
static upq_status pages_alloc(upq_scan *sc)
{
    upq_reader *r = sc->r;
    uint32_t i, n = 2u * sc->depth + 2u;
    sc->stack = (upq_row_set *)upq_arena_alloc_array(&r->arena, n, sizeof(upq_row_set));
    if (!sc->stack)
        return UPQ_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        sc->stack[i].v = (upq_row_range *)upq_arena_alloc_array(&r->arena, sc->sel.cap,
                                                                 sizeof(upq_row_range));
        if (!sc->stack[i].v)
            return UPQ_ERR_NOMEM;
        sc->stack[i].n = 0;
        sc->stack[i].cap = sc->sel.cap;
    }
    sc->pc = 0;
    sc->sp = 0;
    sc->sub = 1;
    return UPQ_OK;
}

/* AND / OR / NOT on the two row sets of the slots on top. */
static void pages_combine(upq_scan *sc, uint8_t op)
{
    upq_row_set *tmp = &sc->stack[2u * sc->depth];
    upq_row_set *a = &sc->stack[2u * (sc->sp - 1)];
    if (op == UPQ_PRED_NOT) {
        upq_row_set x;
        /* not assignments: gcc makes them memcpy calls on RV32 */
        upq_memcpy(&x, &a[0], sizeof x);
        upq_memcpy(&a[0], &a[1], sizeof x);
        upq_memcpy(&a[1], &x, sizeof x);
        return;
    }
    {
        upq_row_set *b = a;
        a -= 2;
        if (op == UPQ_PRED_AND) {
            upq_set_and(&tmp[0], &a[0], &b[0]);
            upq_set_or(&tmp[1], &a[1], &b[1]);
        } else {
            upq_set_or(&tmp[0], &a[0], &b[0]);
            upq_set_and(&tmp[1], &a[1], &b[1]);
        }
        upq_set_copy(&a[0], &tmp[0]);
        upq_set_copy(&a[1], &tmp[1]);
        sc->sp--;
    }
}

/* Page pruning into sc->sel, resumable at the page index reads. */
static UPQ_NOINLINE upq_status prune_pages(upq_scan *sc)
{
    const upq_pred *p = sc->p;
    if (sc->sub == 0 && pages_alloc(sc) != UPQ_OK)
        return UPQ_ERR_NOMEM;
    while (sc->pc < p->n) {
        const upq_pred_node *nd = &p->nodes[sc->pc];
        upq_row_set *t = &sc->stack[2u * sc->sp], *f = t + 1;
        int used = 0;
        if (!upq_pred_is_leaf(UPQ_PRED_OP(nd->op))) {
            pages_combine(sc, UPQ_PRED_OP(nd->op));
            sc->pc++;
            continue;
        }
#if UPQ_WITH_PAGE_INDEX
        if (UPQ_PRED_OP(nd->op) != UPQ_PRED_CONST) {
            upq_status st = leaf_index(sc, nd, t, f, &used);
            if (st != UPQ_OK)
                return st;
        }
#endif
        if (used) {
            sc->stats.leaves_paged++;
        } else {
            /* no usable page index: what the chunk says, for all its rows */
            unsigned may = upq_pred_chunk_may(sc->r, nd, sc->rg);
            if (UPQ_PRED_OP(nd->op) != UPQ_PRED_CONST)
                sc->stats.leaves_no_index++;
            t->n = f->n = 0;
            if (may & MAY_T)
                upq_set_add(t, 0, sc->num_rows);
            if (may & MAY_F)
                upq_set_add(f, 0, sc->num_rows);
        }
        sc->sp++;
        sc->sub = 1;
        sc->pc++;
    }
    return UPQ_OK;
}

static uint64_t sel_rows(const upq_row_set *s)
{
    uint64_t n = 0;
    uint32_t i;
    for (i = 0; i < s->n; i++)
        n += s->v[i].end - s->v[i].begin;
    return n;
}

static UPQ_NOINLINE upq_status st_pages(upq_scan *sc)
{
    upq_row_set lim;
    upq_row_range one;
    one.begin = sc->from;
    one.end = sc->to;
    lim.v = &one;
    lim.n = 1;
    lim.cap = 1;
    if (!sc->p || (sc->flags & UPQ_SCAN_NO_PAGES)) {
        upq_set_copy(&sc->sel, &lim);
    } else {
        upq_status st = prune_pages(sc);
        if (st == UPQ_AGAIN)
            return st;
        if (st == UPQ_OK)
            upq_set_and(&sc->sel, &sc->stack[0], &lim); /* may-true rows within [from, to) */
        upq_arena_rewind(&sc->r->arena, sc->work_mark);
        sc->stack = (upq_row_set *)0;
        if (st != UPQ_OK)
            return sc_fail(sc, st, UPQ_MSG("arena too small for page pruning"));
    }
    sc->stats.rows_selected += sel_rows(&sc->sel);
    if (sc->sel.n == 0) {
        sc->stats.pruned_pages++;
        sc->stage = SC_NEXT;
        return UPQ_OK;
    }
    sc->stage = SC_OPEN;
    return UPQ_OK;
}

/* ---- OPEN / NEXT: the row readers ------------------------------------------- */

static upq_status open_readers(upq_scan *sc)
{
    upq_reader *r = sc->r;
    upq_status st;
    if (filtering(sc)) {
        st = upq_rows_open(&sc->pred_rows, r, sc->rg, sc->pcols, sc->npcols, sc->batch);
        if (st != UPQ_OK)
            return sc_stop(sc, st);
        sc->pred_open = 1;
    }
    st = upq_rows_open(&sc->out_rows, r, sc->rg, sc->out_nodes, sc->out_n, sc->batch);
    if (st != UPQ_OK)
        return sc_stop(sc, st);
    sc->out_open = 1;
#if UPQ_WITH_FLAT_ROWS
    if (sc->bind) {
        st = upq_rows_bind(&sc->out_rows, sc->bind, sc->num_bind);
        if (st != UPQ_OK)
            return sc_stop(sc, st);
    }
#endif
    sc->row = 0;
    sc->out_pos = 0;
    return UPQ_OK;
}

static void close_readers(upq_scan *sc)
{
    if (sc->out_open)
        upq_rows_close(&sc->out_rows);
    if (sc->pred_open)
        upq_rows_close(&sc->pred_rows);
    sc->out_open = sc->pred_open = 0;
}

static UPQ_NOINLINE upq_status st_open(upq_scan *sc)
{
    upq_status st = open_readers(sc);
    if (st != UPQ_OK)
        return st;
    sc->range = 0;
    sc->sub = SS_PSKIP;
    sc->stage = SC_SCAN;
    return UPQ_OK;
}

static UPQ_NOINLINE void st_next(upq_scan *sc)
{
    close_readers(sc);
    upq_arena_rewind(&sc->r->arena, sc->work_mark);
    sc->base += sc->num_rows;
    sc->rg++;
    sc->stage = SC_LOAD;
}

/* ---- SCAN: rows ------------------------------------------------------------------ */

/* SS_PSKIP: the predicate reader to the next selected range (reopening the
 * readers to jump a long gap through the OffsetIndex). */
static UPQ_NOINLINE upq_status sc_pskip(upq_scan *sc)
{
    const upq_row_range *rr;
    upq_status st;
    while (sc->range < sc->sel.n && sc->row >= sc->sel.v[sc->range].end)
        sc->range++;
    if (sc->range >= sc->sel.n) {
        sc->stage = SC_NEXT;
        return UPQ_OK;
    }
    rr = &sc->sel.v[sc->range];
    if (!filtering(sc)) {
        if (sc->row < rr->begin)
            sc->row = rr->begin;
        sc->cur = sc->row++;
        sc->sub = SS_OSKIP;
        return UPQ_OK;
    }
    if (sc->row > 0 && rr->begin - sc->row >= UPQ_SCAN_REOPEN_ROWS &&
        !(sc->flags & UPQ_SCAN_NO_PAGES)) {
        /* a skip right after opening goes through the OffsetIndex */
        close_readers(sc);
        st = open_readers(sc);
        if (st != UPQ_OK)
            return st;
        sc->stats.reopens++;
    }
    sc->sub = SS_PSKIP2;
    return UPQ_OK;
}

/* SS_PSKIP2: the predicate reader to the range's first row. */
static UPQ_NOINLINE upq_status sc_pskip2(upq_scan *sc)
{
    upq_status st = skip_to(sc, &sc->pred_rows, &sc->row, sc->sel.v[sc->range].begin,
                            UPQ_MSG("a predicate column ends before the row count"));
    if (st == UPQ_OK)
        sc->sub = SS_PNEXT;
    return st;
}

/* The next row of `rows` (the predicate's or the output's), which the row
 * count says is there: `ended` when a column ends first. Inline: no frame of
 * its own on the scan's deepest chain. */
UPQ_INLINE upq_status sc_next_row(upq_scan *sc, upq_rows *rows, const char *ended)
{
    upq_status st = upq_rows_next(rows);
    if (st == UPQ_DONE)
        return sc_fail(sc, UPQ_ERR_CORRUPT, ended);
    if (st != UPQ_OK && st != UPQ_AGAIN)
        return sc_stop(sc, st);
    return st;
}

/* SS_PNEXT: start the next row of the predicate reader. */
static UPQ_NOINLINE upq_status sc_pnext(upq_scan *sc)
{
    uint32_t i;
    upq_status st = sc_next_row(sc, &sc->pred_rows,
                                UPQ_MSG("a predicate column ends before the row count"));
    if (st != UPQ_OK)
        return st;
    for (i = 0; i < sc->p->n; i++)
        if (upq_pred_is_leaf(UPQ_PRED_OP(sc->p->nodes[i].op)))
            sc->res[i] = (uint8_t)upq_pred_eval_leaf(&sc->r->schema, sc->p, i, (const void *)0);
    sc->sub = SS_PEV;
    return UPQ_OK;
}

/* SS_PEV: the row's predicate values; at its end, decide. */
static UPQ_NOINLINE upq_status sc_pev(upq_scan *sc)
{
    const upq_pred *p = sc->p;
    upq_event ev;
    uint32_t i;
    upq_status st = upq_rows_event(&sc->pred_rows, &ev);
    if (st == UPQ_AGAIN)
        return st;
    if (st == UPQ_OK) {
        if (ev.type == UPQ_EV_VALUE)
            for (i = 0; i < p->n; i++)
                if (upq_pred_has_column(UPQ_PRED_OP(p->nodes[i].op)) && p->nodes[i].column == ev.column)
                    sc->res[i] = (uint8_t)upq_pred_eval_leaf(&sc->r->schema, p, i, ev.value);
        return UPQ_OK;
    }
    if (st != UPQ_DONE)
        return sc_stop(sc, st);
    sc->stats.rows_tested++;
    sc->cur = sc->row++;
    if (upq_pred_combine(p, sc->res, sc->evstack) == UPQ_PRED_TRUE)
        sc->sub = SS_OSKIP;
    else
        sc->sub = sc->row < sc->sel.v[sc->range].end ? SS_PNEXT : SS_PSKIP;
    return UPQ_OK;
}

/* Rows every output leaf has buffered from the output reader's position. */
static uint64_t out_buffered(const upq_scan *sc)
{
    const upq_rows *w = &sc->out_rows;
    uint64_t n = UINT64_MAX;
    uint32_t i;
    for (i = 0; i < w->num_leaves; i++)
        if (w->leaves[i].b.levels - w->leaves[i].pos < n)
            n = w->leaves[i].b.levels - w->leaves[i].pos;
    return n;
}

/* SS_OSKIP: the output reader to the matching row. */
static UPQ_NOINLINE upq_status sc_oskip(upq_scan *sc)
{
    upq_status st = skip_to(sc, &sc->out_rows, &sc->out_pos, sc->cur,
                            UPQ_MSG("a column ends before the row count"));
    if (st == UPQ_OK)
        sc->sub = SS_READY;
    return st;
}

/* Runs the scan until the output reader stands at a matching row (sub
 * SS_READY): UPQ_OK there, UPQ_DONE after the last, UPQ_AGAIN, an error;
 * with `hold`, HOLD instead of moving the output reader past what it has
 * buffered. */
static UPQ_NOINLINE upq_status to_row(upq_scan *sc, int hold)
{
    upq_status st = UPQ_OK;
    for (;;) {
        switch (sc->stage) {
        case SC_LOAD: st = st_load(sc); break;
        case SC_RG:
            st = prune_row_group(sc);
            if (st == UPQ_OK)
                st_rg_done(sc);
            else if (st != UPQ_AGAIN)
                st = sc_stop(sc, st);
            break;
        case SC_PAGES: st = st_pages(sc); break;
        case SC_OPEN: st = st_open(sc); break;
        case SC_NEXT:
            if (sc->one_rg)
                close_readers(sc);
            if (sc->one_rg)
                sc->stage = SC_DONE;
            else
                st_next(sc);
            break;
        case SC_DONE: return UPQ_DONE;
        case SC_SCAN:
            switch (sc->sub) {
            case SS_PSKIP: st = sc_pskip(sc); break;
            case SS_PSKIP2: st = sc_pskip2(sc); break;
            case SS_PNEXT: st = sc_pnext(sc); break;
            case SS_PEV: st = sc_pev(sc); break;
            case SS_OSKIP:
                if (hold && sc->cur - sc->out_pos >= out_buffered(sc))
                    return HOLD;
                st = sc_oskip(sc);
                break;
            default: return UPQ_OK; /* SS_READY */
            }
            break;
        default: return sc->failed ? sc->failed : UPQ_ERR_STATE;
        }
        if (st != UPQ_OK)
            return st;
    }
}

/* After rows up to sc->cur were given: where the scan goes on. */
static void given(upq_scan *sc, uint64_t n)
{
    sc->out_pos = sc->cur + n;
    sc->stats.rows_matched += n;
    if (!filtering(sc))
        sc->row = sc->cur + n;
    sc->cur += n - 1u;
    sc->last_rg = sc->rg;
    sc->last_row = sc->cur;
    sc->last_base = sc->base;
    sc->sub = !filtering(sc) || sc->row >= sc->sel.v[sc->range].end ? SS_PSKIP : SS_PNEXT;
}

upq_status upq_scan_next(upq_scan *sc)
{
    upq_status st = to_row(sc, 0);
    if (st != UPQ_OK)
        return st;
    st = sc_next_row(sc, &sc->out_rows, UPQ_MSG("a column ends before the row count"));
    if (st != UPQ_OK)
        return st;
    given(sc, 1);
    return UPQ_OK;
}

upq_status upq_scan_plan(upq_scan *sc, size_t *need)
{
    upq_status st;
    *need = 0;
    if (!sc->r)
        return UPQ_ERR_STATE;
    do
        st = upq_scan_next(sc);
    while (st == UPQ_OK);
    if (st == UPQ_DONE) {
        *need = upq_arena_high_water(&sc->r->arena);
        return UPQ_OK;
    }
    return st;
}

#if UPQ_WITH_FLAT_ROWS
upq_status upq_scan_bind(upq_scan *sc, const upq_row_binding *b, uint32_t n)
{
    if (sc->stage == SC_FAILED)
        return sc->failed;
    if (!sc->r || sc->stage == SC_DONE || sc->out_open)
        return UPQ_ERR_STATE;
    sc->bind = b;
    sc->num_bind = n;
    return UPQ_OK;
}

static UPQ_NOINLINE int binds_bytes(const upq_scan *sc)
{
    uint32_t i;
    for (i = 0; i < sc->num_bind; i++) {
        int32_t t = sc->r->schema.columns[sc->bind[i].column].physical_type;
        if (sc->bind[i].column < sc->r->schema.num_columns &&
            (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY))
            return 1;
    }
    return 0;
}

/* Rows the output reader may give at once from its match: to the end of
 * the range without a filter, else one; no more than it has buffered once
 * rows are filled (`hold`). */
static UPQ_NOINLINE size_t fetch_count(const upq_scan *sc, size_t room, int hold)
{
    uint64_t n = 1, buf;
    if (!filtering(sc)) {
        n = sc->sel.v[sc->range].end - sc->cur;
        if (n > room)
            n = room;
    }
    if (hold && n > (buf = out_buffered(sc)))
        n = buf;
    return (size_t)n;
}

/* After upq_rows_fetch wrote its count over sc->f_got, which held `done`:
 * the rows given, or the scan's end. */
static UPQ_NOINLINE upq_status filled(upq_scan *sc, upq_status st, size_t done)
{
    size_t n = sc->f_got;
    sc->f_got = done;
    if (st == UPQ_OK && n > 0) {
        given(sc, n);
        sc->f_got = done + n;
        return UPQ_OK;
    }
    if (st == UPQ_OK || st == UPQ_DONE)
        return sc_fail(sc, UPQ_ERR_CORRUPT, UPQ_MSG("a column ends before the row count"));
    if (st != UPQ_AGAIN && st != UPQ_ERR_INVAL)
        sc_stop(sc, st);
    return st;
}

/* Fills rows at the match the output reader stands at; sc->f_got grows.
 * Only the scan and `done` are held under the reads (the count lands in
 * f_got): their stack is the deepest of the scan's. */
static UPQ_NOINLINE upq_status fill(upq_scan *sc, int hold)
{
    size_t done = sc->f_got, n = fetch_count(sc, sc->f_max - done, hold);
    upq_status st;
    if (n == 0)
        return HOLD;
    st = upq_rows_fetch(&sc->out_rows, sc->f_rows + done * sc->f_stride, sc->f_stride, n, &sc->f_got);
    return filled(sc, st, done);
}

upq_status upq_scan_fetch(upq_scan *sc, void *rows, size_t stride, size_t max, size_t *got)
{
    upq_status st = UPQ_OK;
    *got = 0;
    if (!sc->bind || !rows || max == 0)
        return sc->stage == SC_FAILED ? sc->failed : UPQ_ERR_STATE;
    sc->f_rows = (uint8_t *)rows;
    sc->f_stride = stride;
    sc->f_max = max;
    sc->f_got = 0;
    while (sc->f_got < sc->f_max) {
        /* once rows are filled, byte arrays must not move: no refill */
        int hold = sc->f_got && binds_bytes(sc);
        st = to_row(sc, hold);
        if (st == UPQ_OK)
            st = fill(sc, hold);
        if (st != UPQ_OK)
            break;
    }
    *got = sc->f_got;
    if (*got)
        return UPQ_OK; /* an error comes again with the next call */
    return st == HOLD ? UPQ_OK : st;
}
#endif

upq_rows *upq_scan_rows(upq_scan *sc)
{
    return &sc->out_rows;
}

uint32_t upq_scan_row_group(const upq_scan *sc)
{
    return sc->last_rg;
}

uint64_t upq_scan_row(const upq_scan *sc)
{
    return sc->last_row;
}

uint64_t upq_scan_file_row(const upq_scan *sc)
{
    return sc->last_base + sc->last_row;
}

void upq_scan_close(upq_scan *sc)
{
    if (!sc->r)
        return;
    /* closed while a pruning read was under way (after UPQ_AGAIN): those
     * readers give back their keys; the arena is rewound below */
    if (sc->dcol)
        upq_column_close(sc->dcol);
    sc->dcol = (upq_column_reader *)0;
#if UPQ_WITH_BLOOM
    if (sc->stage == SC_RG && sc->sub == 2)
        upq_bloom_close(&sc->bloom);
#endif
#if UPQ_WITH_PAGE_INDEX
    if (sc->stage == SC_PAGES && sc->sub == 3)
        upq_page_index_close(&sc->ci);
    if (sc->stage == SC_PAGES && (sc->sub == 2 || sc->sub == 3))
        upq_page_index_close(&sc->oi);
#endif
    close_readers(sc);
    upq_arena_rewind(&sc->r->arena, sc->mark);
    sc->stage = SC_DONE;
}

#endif /* UPQ_WITH_PREDICATE */
