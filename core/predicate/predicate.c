/*
 * Predicates: checking, evaluation on rows (three-valued), pruning of row
 * groups and pages, and the scan that gives only matching rows.
 *
 * Pruning keeps, per subexpression, two facts about a set of rows (a chunk,
 * or a set of row ranges): "some row may make it TRUE" and "some row may
 * make it FALSE". AND: may-true of both, may-false of either; OR the other
 * way round; NOT swaps them. Rows whose value is NULL make a comparison
 * neither, so they need no third fact. Only the may-true of the whole
 * expression decides what is read, and it is never smaller than the truth:
 * every unknown (missing or untrusted bounds, a NaN that may hide in a float
 * chunk, a page index that does not load) answers "may".
 */
#include "uparquet/predicate.h"
#include "upq_port.h"
#include "common/upq_internal.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

#define MAY_T 1u
#define MAY_F 2u
#define UNK 2 /* a comparison that could not be made */

static int is_leaf(uint8_t op)
{
    return op >= UPQ_PRED_EQ && op <= UPQ_PRED_IS_NOT_NULL;
}

static int is_float_order(int order)
{
    return order == UPQ_STAT_ORDER_F32 || order == UPQ_STAT_ORDER_F64 ||
           order == UPQ_STAT_ORDER_F16;
}

/* The order values of leaf `col` compare in: its type's, and INT96
 * chronologically (which needs no column order to compare rows). */
static int eval_order(const upq_schema *s, uint32_t col)
{
    int o = upq_stats_type_order(s, col);
    if (o == UPQ_STAT_ORDER_NONE && s->columns[col].physical_type == UPQ_TYPE_INT96)
        o = UPQ_STAT_ORDER_INT96;
    return o;
}

static void store_le(uint8_t *b, uint64_t x, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(x >> (8 * i));
}

/* A value in the column reader's representation as a typed value; buf
 * holds the PLAIN bytes of fixed-width values. Returns 1, or 0 when it does
 * not decode. */
static int to_stat(const upq_column_desc *cd, int order, const void *val, uint8_t buf[12],
                   upq_stat_value *out)
{
    const uint8_t *p = buf;
    size_t len;
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN:
        buf[0] = *(const uint8_t *)val ? 1 : 0;
        len = 1;
        break;
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: {
        uint32_t x;
        upq_memcpy(&x, val, 4);
        store_le(buf, x, 4);
        len = 4;
        break;
    }
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: {
        uint64_t x;
        upq_memcpy(&x, val, 8);
        store_le(buf, x, 8);
        len = 8;
        break;
    }
    case UPQ_TYPE_INT96:
        p = ((const upq_int96 *)val)->b;
        len = 12;
        break;
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        p = ((const upq_bytes *)val)->ptr;
        len = ((const upq_bytes *)val)->len;
        if (!p && len)
            return 0;
        break;
    default:
        return 0;
    }
    return upq_stats_decode_value(order, cd->type_length, p, len, 0, out) == UPQ_OK;
}

/* a <=> b with DuckDB's NaN rule (NaN = NaN, NaN above everything):
 * -1, 0, 1, or UNK when they do not compare. */
static int vcmp(const upq_stat_value *a, const upq_stat_value *b)
{
    int na = upq_stat_is_nan(a), nb = upq_stat_is_nan(b), c;
    if (na || nb)
        return na && nb ? 0 : na ? 1 : -1;
    if (!upq_stat_cmp(a, b, &c))
        return UNK;
    return c < 0 ? -1 : c > 0;
}

/* ---- checking ------------------------------------------------------------ */

upq_status upq_pred_check(const upq_schema *s, upq_pred *p, const char **what, uint32_t *node)
{
    uint32_t i, sp = 0, depth = 0;
    *node = p ? p->n : 0;
    if (!s || !p || !p->nodes || p->n == 0) {
        *what = UPQ_MSG("empty expression");
        return UPQ_ERR_INVAL;
    }
    if (p->n > UPQ_PRED_MAX_NODES) {
        *what = UPQ_MSG("too many nodes");
        return UPQ_ERR_INVAL;
    }
    for (i = 0; i < p->n; i++) {
        const upq_pred_node *nd = &p->nodes[i];
        *node = i;
        if (is_leaf(nd->op)) {
            const upq_column_desc *cd;
            uint32_t k;
            if (nd->column >= s->num_columns) {
                *what = UPQ_MSG("no such column");
                return UPQ_ERR_INVAL;
            }
            cd = &s->columns[nd->column];
            if (cd->max_rep > 0) {
                *what = UPQ_MSG("a repeated column");
                return UPQ_ERR_INVAL;
            }
            if (eval_order(s, nd->column) == UPQ_STAT_ORDER_NONE) {
                *what = UPQ_MSG("a column whose values have no order");
                return UPQ_ERR_INVAL;
            }
            if (nd->op < UPQ_PRED_IS_NULL) {
                if (nd->n == 0 || !nd->values ||
                    (nd->n != 1 && nd->op != UPQ_PRED_IN && nd->op != UPQ_PRED_NOT_IN)) {
                    *what = UPQ_MSG("wrong number of values");
                    return UPQ_ERR_INVAL;
                }
                for (k = 0; k < nd->n; k++) {
                    upq_stat_value v;
                    uint8_t buf[12];
                    if (!to_stat(cd, eval_order(s, nd->column), &nd->values[k], buf, &v)) {
                        *what = UPQ_MSG("a value that does not fit the column");
                        return UPQ_ERR_INVAL;
                    }
                }
            }
            if (++sp > depth)
                depth = sp;
        } else if (nd->op == UPQ_PRED_AND || nd->op == UPQ_PRED_OR) {
            if (sp < 2) {
                *what = UPQ_MSG("AND/OR needs two operands");
                return UPQ_ERR_INVAL;
            }
            sp--;
        } else if (nd->op == UPQ_PRED_NOT) {
            if (sp < 1) {
                *what = UPQ_MSG("NOT needs an operand");
                return UPQ_ERR_INVAL;
            }
        } else {
            *what = UPQ_MSG("unknown operator");
            return UPQ_ERR_INVAL;
        }
        if (depth > UPQ_PRED_MAX_DEPTH) {
            *what = UPQ_MSG("expression nested too deeply");
            return UPQ_ERR_INVAL;
        }
    }
    if (sp != 1) {
        *node = p->n;
        *what = UPQ_MSG("operands left over");
        return UPQ_ERR_INVAL;
    }
    p->depth = depth;
    return UPQ_OK;
}

/* ---- rows ---------------------------------------------------------------- */

int upq_pred_eval_leaf(const upq_schema *s, const upq_pred *p, uint32_t node, const void *value)
{
    const upq_pred_node *nd = &p->nodes[node];
    const upq_column_desc *cd = &s->columns[nd->column];
    int order = eval_order(s, nd->column), c;
    upq_stat_value v, l;
    uint8_t vb[12], lb[12];
    uint32_t k;
    if (nd->op == UPQ_PRED_IS_NULL)
        return value ? UPQ_PRED_FALSE : UPQ_PRED_TRUE;
    if (nd->op == UPQ_PRED_IS_NOT_NULL)
        return value ? UPQ_PRED_TRUE : UPQ_PRED_FALSE;
    if (!value || !to_stat(cd, order, value, vb, &v))
        return UPQ_PRED_NULL;
    if (nd->op == UPQ_PRED_IN || nd->op == UPQ_PRED_NOT_IN) {
        int found = 0;
        for (k = 0; k < nd->n && !found; k++)
            found = to_stat(cd, order, &nd->values[k], lb, &l) && vcmp(&v, &l) == 0;
        return (found != 0) == (nd->op == UPQ_PRED_IN) ? UPQ_PRED_TRUE : UPQ_PRED_FALSE;
    }
    if (!to_stat(cd, order, &nd->values[0], lb, &l) || (c = vcmp(&v, &l)) == UNK)
        return UPQ_PRED_NULL;
    switch (nd->op) {
    case UPQ_PRED_EQ: return c == 0;
    case UPQ_PRED_NE: return c != 0;
    case UPQ_PRED_LT: return c < 0;
    case UPQ_PRED_LE: return c <= 0;
    case UPQ_PRED_GT: return c > 0;
    default: return c >= 0;
    }
}

int upq_pred_combine(const upq_pred *p, const uint8_t *res, uint8_t *stack)
{
    uint32_t i, sp = 0;
    for (i = 0; i < p->n; i++) {
        uint8_t op = p->nodes[i].op;
        if (is_leaf(op)) {
            stack[sp++] = res[i];
        } else if (op == UPQ_PRED_NOT) {
            uint8_t a = stack[sp - 1];
            stack[sp - 1] = a == UPQ_PRED_NULL ? a : (uint8_t)!a;
        } else {
            uint8_t a = stack[sp - 2], b = stack[sp - 1], r;
            uint8_t dom = op == UPQ_PRED_AND ? UPQ_PRED_FALSE : UPQ_PRED_TRUE;
            if (a == dom || b == dom)
                r = dom;
            else if (a == UPQ_PRED_NULL || b == UPQ_PRED_NULL)
                r = UPQ_PRED_NULL;
            else
                r = (uint8_t)!dom;
            stack[sp - 2] = r;
            sp--;
        }
    }
    return stack[0];
}

/* ---- pruning: one leaf against bounds ------------------------------------ */

typedef struct bounds {
    uint8_t all_null; /* every value is NULL */
    uint8_t no_null;  /* no value is NULL */
    uint8_t nan;      /* a NaN may be among the values */
    uint8_t has_min, has_max;
    upq_stat_value min, max; /* of the non-NULL, non-NaN values */
} bounds;

/* `bound` <=> `lit`, UNK when unknown. */
static int bcmp3(int has, const upq_stat_value *bound, const upq_stat_value *lit)
{
    int c;
    if (!has || upq_stat_is_nan(bound) || !upq_stat_cmp(bound, lit, &c))
        return UNK;
    return c < 0 ? -1 : c > 0;
}

/* may-true / may-false of `x = lit` over values in [lo, hi] */
static unsigned eq_may(int lo, int hi)
{
    unsigned r = 0;
    if (!((lo != UNK && lo > 0) || (hi != UNK && hi < 0)))
        r |= MAY_T;
    if (!(lo == 0 && hi == 0))
        r |= MAY_F;
    return r;
}

static unsigned swap_may(unsigned r)
{
    return ((r & MAY_T) ? MAY_F : 0u) | ((r & MAY_F) ? MAY_T : 0u);
}

static unsigned leaf_may(const upq_schema *s, const upq_pred_node *nd, const bounds *b)
{
    const upq_column_desc *cd = &s->columns[nd->column];
    int order = eval_order(s, nd->column);
    unsigned r = 0;
    uint32_t k;
    if (nd->op == UPQ_PRED_IS_NULL || nd->op == UPQ_PRED_IS_NOT_NULL) {
        if (!b->no_null)
            r |= MAY_T;
        if (!b->all_null)
            r |= MAY_F;
        return nd->op == UPQ_PRED_IS_NULL ? r : swap_may(r);
    }
    if (b->all_null)
        return 0; /* every row gives NULL */
    if (nd->op == UPQ_PRED_IN || nd->op == UPQ_PRED_NOT_IN) {
        r = MAY_F;
        for (k = 0; k < nd->n; k++) {
            upq_stat_value l;
            uint8_t lb[12];
            unsigned e;
            if (!to_stat(cd, order, &nd->values[k], lb, &l) || upq_stat_is_nan(&l))
                return MAY_T | MAY_F;
            e = eq_may(bcmp3(b->has_min, &b->min, &l), bcmp3(b->has_max, &b->max, &l));
            r |= e & MAY_T;
            if (!(e & MAY_F))
                r &= ~MAY_F;
        }
        if (b->nan)
            r |= MAY_F; /* a NaN matches no literal here */
        return nd->op == UPQ_PRED_IN ? r : swap_may(r);
    } else {
        upq_stat_value l;
        uint8_t lb[12];
        int lo, hi;
        if (!to_stat(cd, order, &nd->values[0], lb, &l) || upq_stat_is_nan(&l))
            return MAY_T | MAY_F;
        lo = bcmp3(b->has_min, &b->min, &l);
        hi = bcmp3(b->has_max, &b->max, &l);
        switch (nd->op) {
        case UPQ_PRED_EQ: r = eq_may(lo, hi); break;
        case UPQ_PRED_NE: r = swap_may(eq_may(lo, hi)); break;
        case UPQ_PRED_LT:
            r = (lo != UNK && lo >= 0 ? 0u : MAY_T) | (hi != UNK && hi < 0 ? 0u : MAY_F);
            break;
        case UPQ_PRED_LE:
            r = (lo != UNK && lo > 0 ? 0u : MAY_T) | (hi != UNK && hi <= 0 ? 0u : MAY_F);
            break;
        case UPQ_PRED_GT:
            r = (hi != UNK && hi <= 0 ? 0u : MAY_T) | (lo != UNK && lo > 0 ? 0u : MAY_F);
            break;
        default: /* GE */
            r = (hi != UNK && hi < 0 ? 0u : MAY_T) | (lo != UNK && lo >= 0 ? 0u : MAY_F);
            break;
        }
        if (b->nan) {
            /* NaN is above every literal: TRUE for != > >=, FALSE for = < <= */
            if (nd->op == UPQ_PRED_NE || nd->op == UPQ_PRED_GT || nd->op == UPQ_PRED_GE)
                r |= MAY_T;
            else
                r |= MAY_F;
        }
        return r;
    }
}

/* Bounds of a chunk from its statistics (nothing known when they are
 * absent or untrusted). */
static void chunk_bounds(upq_reader *r, uint32_t rg, uint32_t col, bounds *b)
{
    const upq_schema *s = &r->schema;
    int order = eval_order(s, col);
    int64_t rows = r->meta.row_groups.v[rg].num_rows;
    upq_column_stats cs;
    upq_memset(b, 0, sizeof *b);
    b->nan = (uint8_t)is_float_order(order);
    if (upq_reader_column_stats(r, rg, col, &cs) != UPQ_OK)
        return;
    if (cs.has_null_count && cs.null_count >= 0 && cs.null_count <= rows) {
        b->all_null = (uint8_t)(cs.null_count == rows);
        b->no_null = (uint8_t)(cs.null_count == 0);
    }
    if (b->nan && cs.has_nan_count && cs.nan_count == 0)
        b->nan = 0;
    if (cs.order != order || cs.total_order)
        return;
    b->has_min = cs.has_min;
    b->has_max = cs.has_max;
    /* explicit copies: a struct assignment may become a libc memcpy call */
    upq_memcpy(&b->min, &cs.min, sizeof b->min);
    upq_memcpy(&b->max, &cs.max, sizeof b->max);
}

static unsigned chunk_may(upq_reader *r, const upq_pred *p, uint32_t rg, uint32_t i)
{
    bounds b;
    if (!upq_reader_chunk(r, rg, p->nodes[i].column))
        return MAY_T | MAY_F;
    chunk_bounds(r, rg, p->nodes[i].column, &b);
    return leaf_may(&r->schema, &p->nodes[i], &b);
}

static void combine_bits(uint8_t op, uint8_t *stack, uint32_t *sp)
{
    if (op == UPQ_PRED_NOT) {
        stack[*sp - 1] = (uint8_t)swap_may(stack[*sp - 1]);
    } else {
        unsigned a = stack[*sp - 2], b = stack[*sp - 1], t, f;
        if (op == UPQ_PRED_AND) {
            t = a & b & MAY_T;
            f = (a | b) & MAY_F;
        } else {
            t = (a | b) & MAY_T;
            f = a & b & MAY_F;
        }
        stack[*sp - 2] = (uint8_t)(t | f);
        (*sp)--;
    }
}

int upq_pred_row_group_may_match(upq_reader *r, const upq_pred *p, uint32_t rg)
{
    uint8_t stack[UPQ_PRED_MAX_DEPTH];
    uint32_t i, sp = 0;
    if (!r || !p || rg >= r->meta.row_groups.n || p->depth == 0 || p->depth > UPQ_PRED_MAX_DEPTH)
        return 1;
    for (i = 0; i < p->n; i++) {
        if (is_leaf(p->nodes[i].op))
            stack[sp++] = (uint8_t)chunk_may(r, p, rg, i);
        else
            combine_bits(p->nodes[i].op, stack, &sp);
    }
    return (stack[0] & MAY_T) != 0;
}

/* ---- row sets ------------------------------------------------------------- */

/* Appends [a, b) (a at or after every begin in the set). When the set is
 * full, the two neighbours with the smallest gap merge: a superset. */
static void set_add(upq_row_set *s, uint64_t a, uint64_t b)
{
    upq_row_range *v = s->v;
    if (a >= b)
        return;
    if (s->n && v[s->n - 1].end >= a) {
        if (b > v[s->n - 1].end)
            v[s->n - 1].end = b;
        return;
    }
    if (s->n == s->cap) {
        uint32_t i, best = s->n - 1;
        uint64_t gap = a - v[s->n - 1].end;
        for (i = 0; i + 1 < s->n; i++) {
            if (v[i + 1].begin - v[i].end < gap) {
                gap = v[i + 1].begin - v[i].end;
                best = i;
            }
        }
        if (best == s->n - 1) {
            v[best].end = b;
            return;
        }
        v[best].end = v[best + 1].end;
        for (i = best + 1; i + 1 < s->n; i++) {
            v[i].begin = v[i + 1].begin;
            v[i].end = v[i + 1].end;
        }
        s->n--;
    }
    v[s->n].begin = a;
    v[s->n].end = b;
    s->n++;
}

static void set_copy(upq_row_set *d, const upq_row_set *s)
{
    uint32_t i;
    d->n = 0;
    for (i = 0; i < s->n; i++)
        set_add(d, s->v[i].begin, s->v[i].end);
}

static void set_and(upq_row_set *d, const upq_row_set *a, const upq_row_set *b)
{
    uint32_t i = 0, j = 0;
    d->n = 0;
    while (i < a->n && j < b->n) {
        uint64_t lo = a->v[i].begin > b->v[j].begin ? a->v[i].begin : b->v[j].begin;
        uint64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo < hi)
            set_add(d, lo, hi);
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
}

static void set_or(upq_row_set *d, const upq_row_set *a, const upq_row_set *b)
{
    uint32_t i = 0, j = 0;
    d->n = 0;
    while (i < a->n || j < b->n) {
        const upq_row_range *x;
        if (j >= b->n || (i < a->n && a->v[i].begin <= b->v[j].begin))
            x = &a->v[i++];
        else
            x = &b->v[j++];
        set_add(d, x->begin, x->end);
    }
}

/* ---- the scan -------------------------------------------------------------- */

enum {
    SC_RG = 0,   /* row-group pruning: statistics and bloom filters */
    SC_PAGES,    /* page pruning */
    SC_OPEN,     /* open the row readers */
    SC_SCAN,     /* rows */
    SC_DONE,
    SC_FAILED
};

/* SC_SCAN sub-stages */
enum { SS_PSKIP = 0, SS_PNEXT, SS_PEV, SS_OSKIP, SS_ONEXT };

static upq_status sc_fail(upq_scan *sc, upq_status st, const char *what)
{
    upq_error_info *e = &sc->r->err;
    e->status = st;
    e->offset = UINT64_MAX;
    e->what = what;
    e->in_struct = e->field = (const char *)0;
    e->row_group = (int32_t)sc->rg;
    e->column = -1;
    e->page = -1;
    e->schema_element = -1;
    sc->stage = SC_FAILED;
    sc->failed = st;
    return st;
}

/* An error of a row reader: its info is already in the reader. */
static upq_status sc_stop(upq_scan *sc, upq_status st)
{
    sc->stage = SC_FAILED;
    sc->failed = st;
    return st;
}

/* Passes row reader `w` from row *pos on to row `to` (nothing when it is
 * there): UPQ_OK at `to`, UPQ_AGAIN (call again: the skip resumes), or the
 * scan's failure; `short_what` when the column ends first. */
static upq_status skip_to(upq_scan *sc, upq_rows *w, uint64_t *pos, uint64_t to,
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

upq_status upq_scan_open(upq_scan *sc, upq_reader *r, const upq_pred *p, uint32_t rg,
                         const uint32_t *nodes, uint32_t n, size_t batch, uint64_t from,
                         uint64_t to, uint32_t max_ranges, unsigned flags)
{
    const upq_schema *s;
    uint32_t i, j;
    int64_t rows;
    upq_memset(sc, 0, sizeof *sc);
    sc->r = r;
    sc->rg = rg;
    if (!r || !p || !p->nodes || p->depth == 0 || p->depth > UPQ_PRED_MAX_DEPTH) {
        sc->stage = SC_FAILED;
        sc->failed = UPQ_ERR_INVAL;
        if (r)
            sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("no reader or an unchecked predicate"));
        return UPQ_ERR_INVAL;
    }
    s = &r->schema;
    if (rg >= r->meta.row_groups.n)
        return sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("no such row group"));
    rows = r->meta.row_groups.v[rg].num_rows;
    if (rows < 0)
        return sc_fail(sc, UPQ_ERR_CORRUPT, UPQ_MSG("negative row count"));
    sc->p = p;
    sc->out_nodes = nodes;
    sc->out_n = n;
    sc->batch = batch;
    sc->flags = flags;
    sc->num_rows = (uint64_t)rows;
    sc->from = from < sc->num_rows ? from : sc->num_rows;
    sc->to = to < sc->num_rows ? to : sc->num_rows;
    if (sc->to < sc->from)
        sc->to = sc->from;
    sc->mark = upq_arena_save(&r->arena);
    for (i = 0; i < p->n; i++) {
        if (!is_leaf(p->nodes[i].op))
            continue;
        if (p->nodes[i].column >= s->num_columns || !upq_reader_chunk(r, rg, p->nodes[i].column))
            return sc_fail(sc, UPQ_ERR_INVAL, UPQ_MSG("a predicate column is not projected"));
    }
    if (max_ranges == 0)
        max_ranges = UPQ_SCAN_DEFAULT_RANGES;
    sc->pcols = (uint32_t *)upq_arena_alloc_array(&r->arena, p->n, sizeof(uint32_t));
    sc->res = (uint8_t *)upq_arena_alloc(&r->arena, p->n);
    sc->evstack = (uint8_t *)upq_arena_alloc(&r->arena, p->depth);
    sc->sel.v = (upq_row_range *)upq_arena_alloc_array(&r->arena, max_ranges,
                                                        sizeof(upq_row_range));
    if (!sc->pcols || !sc->res || !sc->evstack || !sc->sel.v) {
        upq_arena_rewind(&r->arena, sc->mark);
        return sc_fail(sc, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the scan"));
    }
    sc->sel.cap = max_ranges;
    /* the predicate reader selects each predicate column's leaf node once */
    for (i = 0; i < p->n; i++) {
        uint32_t leaf;
        if (!is_leaf(p->nodes[i].op))
            continue;
        leaf = s->columns[p->nodes[i].column].node;
        for (j = 0; j < sc->npcols && sc->pcols[j] != leaf; j++)
            ;
        if (j == sc->npcols)
            sc->pcols[sc->npcols++] = leaf;
    }
    sc->work_mark = upq_arena_save(&r->arena);
    sc->stage = SC_RG;
    return UPQ_OK;
}

/* Every data page of the chunk is dictionary-encoded: its encoding_stats
 * say so, or (without them) its encodings list no PLAIN, which a fallback
 * page would need (a PLAIN dictionary page cannot be told from one). */
static int all_dictionary(const upq_column_chunk *ch)
{
    const upq_column_metadata *m;
    uint32_t i;
    int dict = 0;
    if (!ch || !UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA))
        return 0;
    m = &ch->meta_data;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_ENCODING_STATS) && m->encoding_stats.n) {
        for (i = 0; i < m->encoding_stats.n; i++) {
            const upq_page_encoding_stats *e = &m->encoding_stats.v[i];
            if (e->page_type != UPQ_PAGE_DATA && e->page_type != UPQ_PAGE_DATA_V2)
                continue;
            if (e->count > 0 && e->encoding != UPQ_ENC_PLAIN_DICTIONARY &&
                e->encoding != UPQ_ENC_RLE_DICTIONARY)
                return 0;
            dict |= e->count > 0;
        }
        return dict;
    }
    for (i = 0; i < m->encodings.n; i++) {
        int32_t e = m->encodings.v[i];
        if (e == UPQ_ENC_PLAIN_DICTIONARY || e == UPQ_ENC_RLE_DICTIONARY)
            dict = 1;
        else if (e != UPQ_ENC_RLE && e != UPQ_ENC_BIT_PACKED)
            return 0;
    }
    return dict;
}

/* The pruning stages are kept out of upq_scan_next (UPQ_NOINLINE): their
 * locals would otherwise sit under every row read's stack.
 *
 * Row-group pruning, resumable at the bloom filter and dictionary reads. Returns UPQ_OK
 * (sc->bits[0] holds the answer), UPQ_AGAIN, or an error. */
static UPQ_NOINLINE upq_status prune_row_group(upq_scan *sc)
{
    const upq_pred *p = sc->p;
    while (sc->pc < p->n) {
        const upq_pred_node *nd = &p->nodes[sc->pc];
        if (!is_leaf(nd->op)) {
            combine_bits(nd->op, sc->bits, &sc->sp);
            sc->pc++;
            continue;
        }
        if (sc->sub == 0) {
            sc->bits[sc->sp] = (uint8_t)chunk_may(sc->r, p, sc->rg, sc->pc);
            sc->sub = 1;
        }
#if UPQ_WITH_BLOOM
        if (sc->sub == 1) {
            const upq_column_desc *cd = &sc->r->schema.columns[nd->column];
            int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
            /* a filter hashes the stored bytes: floats have two zeros and many
             * NaNs, binary decimals several widths, INT96 more than one way to
             * say an instant, so only unique representations are probed */
            int usable = (nd->op == UPQ_PRED_EQ || nd->op == UPQ_PRED_IN) &&
                         (sc->bits[sc->sp] & MAY_T) && !(sc->flags & UPQ_SCAN_NO_BLOOM) &&
                         cd->physical_type != UPQ_TYPE_BOOLEAN &&
                         cd->physical_type != UPQ_TYPE_INT96 &&
                         cd->physical_type != UPQ_TYPE_FLOAT &&
                         cd->physical_type != UPQ_TYPE_DOUBLE &&
                         lk != UPQ_LOGICAL_TYPE_FLOAT16 &&
                         !(lk == UPQ_LOGICAL_TYPE_DECIMAL &&
                           cd->physical_type == UPQ_TYPE_BYTE_ARRAY);
            sc->sub = 3;
            if (usable && upq_bloom_open(&sc->bloom, sc->r, sc->rg, nd->column) == UPQ_OK)
                sc->sub = 2;
        }
        if (sc->sub == 2) {
            upq_status st = upq_bloom_load(&sc->bloom);
            uint32_t k;
            if (st == UPQ_AGAIN)
                return st;
            if (st == UPQ_OK) {
                int any = 0;
                for (k = 0; k < nd->n && !any; k++) {
                    int maybe = 1;
                    if (upq_bloom_might_contain(&sc->bloom, &nd->values[k], &maybe) != UPQ_OK)
                        maybe = 1;
                    any = maybe;
                }
                if (!any) {
                    sc->bits[sc->sp] &= (uint8_t)~MAY_T;
                    sc->stats.pruned_bloom = 1;
                }
            }
            /* a filter that does not read prunes nothing */
            upq_bloom_close(&sc->bloom);
            sc->sub = 3;
        }
#endif
        if (sc->sub == 1)
            sc->sub = 3; /* no bloom filters in this build */
        if (sc->sub == 3) {
            sc->sub = 5;
            if (nd->op != UPQ_PRED_IS_NULL && nd->op != UPQ_PRED_IS_NOT_NULL &&
                (sc->bits[sc->sp] & MAY_T) && !(sc->flags & UPQ_SCAN_NO_DICT) &&
                all_dictionary(upq_reader_chunk(sc->r, sc->rg, nd->column))) {
                /* the column reader lives in the arena only while it is needed:
                 * a scan stays small enough for a microcontroller's stack */
                sc->dmark = upq_arena_save(&sc->r->arena);
                sc->dcol = (upq_column_reader *)upq_arena_alloc(&sc->r->arena,
                                                                sizeof(upq_column_reader));
                if (sc->dcol && upq_column_open(sc->dcol, sc->r, sc->rg, nd->column) == UPQ_OK)
                    sc->sub = 4;
                else
                    upq_arena_rewind(&sc->r->arena, sc->dmark);
            }
        }
        if (sc->sub == 4) {
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
                /* exact for the non-null values: NULL rows make neither */
                const upq_dict *d = &sc->dcol->dict;
                size_t vs = upq_value_size(d->physical_type);
                unsigned may = 0;
                uint32_t k;
                for (k = 0; k < d->n && may != (MAY_T | MAY_F); k++) {
                    int t = upq_pred_eval_leaf(&sc->r->schema, p, sc->pc,
                                               (const uint8_t *)d->values + k * vs);
                    may |= t == UPQ_PRED_TRUE ? MAY_T : t == UPQ_PRED_FALSE ? MAY_F : 0u;
                }
                if (!(may & MAY_T) && (sc->bits[sc->sp] & MAY_T))
                    sc->stats.pruned_dict = 1;
                sc->bits[sc->sp] &= (uint8_t)may;
            }
            /* a dictionary that does not read prunes nothing */
            upq_column_close(sc->dcol);
            upq_arena_rewind(&sc->r->arena, sc->dmark);
            sc->dcol = (upq_column_reader *)0;
            sc->sub = 5;
        }
        sc->sp++;
        sc->sub = 0;
        sc->pc++;
    }
    return UPQ_OK;
}

#if UPQ_WITH_PAGE_INDEX
/* The may-true / may-false row sets of leaf node pc from its column's page
 * index into t / f. Returns 1 when the page index was used, 0 when the
 * caller must fall back to the chunk. */
static int leaf_pages(upq_scan *sc, const upq_pred_node *nd, upq_row_set *t, upq_row_set *f)
{
    const upq_offset_index *oi = upq_page_index_offsets(&sc->oi);
    const upq_column_index *ci = upq_page_index_columns(&sc->ci);
    const upq_schema *s = &sc->r->schema;
    const upq_column_desc *cd = &s->columns[nd->column];
    int order = eval_order(s, nd->column), porder;
    unsigned flags = 0;
    uint32_t i, pages;
    if (!oi || !ci)
        return 0;
    pages = oi->page_locations.n;
    if (ci->null_pages.n != pages || ci->min_values.n != pages || ci->max_values.n != pages ||
        (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) && ci->null_counts.n != pages) ||
        (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NAN_COUNTS) && ci->nan_counts.n != pages))
        return 0;
    porder = upq_stats_column_order(&sc->r->meta, s, nd->column, &flags, (uint8_t *)0);
    t->n = f->n = 0;
    for (i = 0; i < pages; i++) {
        uint64_t a = (uint64_t)oi->page_locations.v[i].first_row_index;
        uint64_t b = i + 1 < pages ? (uint64_t)oi->page_locations.v[i + 1].first_row_index
                                   : sc->num_rows;
        bounds bd;
        unsigned may;
        upq_memset(&bd, 0, sizeof bd);
        bd.nan = (uint8_t)is_float_order(order);
        if (ci->null_pages.v[i]) {
            bd.all_null = 1;
        } else {
            if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) && ci->null_counts.v[i] >= 0 &&
                (uint64_t)ci->null_counts.v[i] <= b - a) {
                bd.no_null = ci->null_counts.v[i] == 0;
                bd.all_null = (uint64_t)ci->null_counts.v[i] == b - a;
            }
            if (bd.nan && UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NAN_COUNTS) && ci->nan_counts.v[i] == 0)
                bd.nan = 0;
            if (porder == order && !(flags & UPQ_STAT_TOTAL_ORDER)) {
                const upq_bytes *mn = &ci->min_values.v[i], *mx = &ci->max_values.v[i];
                bd.has_min = upq_stats_decode_value(order, cd->type_length, mn->ptr, mn->len,
                                                    UPQ_STAT_AS_MIN, &bd.min) == UPQ_OK &&
                             !upq_stat_is_nan(&bd.min);
                bd.has_max = upq_stats_decode_value(order, cd->type_length, mx->ptr, mx->len,
                                                    UPQ_STAT_AS_MAX, &bd.max) == UPQ_OK &&
                             !upq_stat_is_nan(&bd.max);
            }
        }
        may = leaf_may(s, nd, &bd);
        if (may & MAY_T)
            set_add(t, a, b);
        if (may & MAY_F)
            set_add(f, a, b);
    }
    return 1;
}
#endif

/* Page pruning into sc->sel, resumable at the page index reads. */
static UPQ_NOINLINE upq_status prune_pages(upq_scan *sc)
{
    const upq_pred *p = sc->p;
    upq_reader *r = sc->r;
    uint32_t cap = sc->sel.cap, i;
    if (sc->sub == 0) {
        sc->stack = (upq_row_set *)upq_arena_alloc_array(&r->arena, 2u * p->depth + 2u,
                                                         sizeof(upq_row_set));
        if (!sc->stack)
            return UPQ_ERR_NOMEM;
        for (i = 0; i < 2u * p->depth + 2u; i++) {
            sc->stack[i].v = (upq_row_range *)upq_arena_alloc_array(&r->arena, cap,
                                                                     sizeof(upq_row_range));
            if (!sc->stack[i].v)
                return UPQ_ERR_NOMEM;
            sc->stack[i].n = 0;
            sc->stack[i].cap = cap;
        }
        sc->pc = 0;
        sc->sp = 0;
        sc->sub = 1;
    }
    while (sc->pc < p->n) {
        const upq_pred_node *nd = &p->nodes[sc->pc];
        upq_row_set *tmp = &sc->stack[2u * p->depth];
        if (!is_leaf(nd->op)) {
            upq_row_set *a = &sc->stack[2u * (sc->sp - 1)];
            if (nd->op == UPQ_PRED_NOT) {
                upq_row_set x;
                /* not assignments: gcc makes them memcpy calls on RV32 */
                upq_memcpy(&x, &a[0], sizeof x);
                upq_memcpy(&a[0], &a[1], sizeof x);
                upq_memcpy(&a[1], &x, sizeof x);
            } else {
                upq_row_set *b = a;
                a -= 2;
                if (nd->op == UPQ_PRED_AND) {
                    set_and(&tmp[0], &a[0], &b[0]);
                    set_or(&tmp[1], &a[1], &b[1]);
                } else {
                    set_or(&tmp[0], &a[0], &b[0]);
                    set_and(&tmp[1], &a[1], &b[1]);
                }
                set_copy(&a[0], &tmp[0]);
                set_copy(&a[1], &tmp[1]);
                sc->sp--;
            }
            sc->pc++;
            continue;
        }
        {
            upq_row_set *t = &sc->stack[2u * sc->sp], *f = t + 1;
            int used = 0;
#if UPQ_WITH_PAGE_INDEX
            upq_status st;
            if (sc->sub == 1) {
                sc->sub = 5;
                if (upq_page_index_open(&sc->oi, r, sc->rg, nd->column, UPQ_PAGE_INDEX_OFFSET) ==
                    UPQ_OK)
                    sc->sub = 2;
            }
            if (sc->sub == 2) {
                st = upq_page_index_load(&sc->oi);
                if (st == UPQ_AGAIN)
                    return st;
                sc->sub = st == UPQ_OK ? 3 : 6;
                if (st == UPQ_OK &&
                    upq_page_index_open(&sc->ci, r, sc->rg, nd->column, UPQ_PAGE_INDEX_COLUMN) !=
                        UPQ_OK)
                    sc->sub = 6;
            }
            if (sc->sub == 3) {
                st = upq_page_index_load(&sc->ci);
                if (st == UPQ_AGAIN)
                    return st;
                if (st == UPQ_OK)
                    used = leaf_pages(sc, nd, t, f);
                upq_page_index_close(&sc->ci);
                sc->sub = 6;
            }
            if (sc->sub == 6)
                upq_page_index_close(&sc->oi);
#endif
            if (used) {
                sc->stats.leaves_paged++;
            } else {
                /* no usable page index: what the chunk says, for all its rows */
                unsigned may = chunk_may(r, p, sc->rg, sc->pc);
                sc->stats.leaves_no_index++;
                t->n = f->n = 0;
                if (may & MAY_T)
                    set_add(t, 0, sc->num_rows);
                if (may & MAY_F)
                    set_add(f, 0, sc->num_rows);
            }
            sc->sp++;
            sc->sub = 1;
            sc->pc++;
        }
    }
    /* the selection: may-true rows within [from, to) */
    {
        upq_row_set lim;
        upq_row_range one;
        lim.v = &one;
        lim.n = 1;
        lim.cap = 1;
        one.begin = sc->from;
        one.end = sc->to;
        set_and(&sc->sel, &sc->stack[0], &lim);
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

upq_status upq_scan_next(upq_scan *sc)
{
    upq_status st;
    upq_reader *r = sc->r;
    for (;;) {
        switch (sc->stage) {
        case SC_RG:
            st = prune_row_group(sc);
            if (st != UPQ_OK)
                return st;
            sc->sub = 0;
            sc->pc = 0;
            if (!(sc->bits[0] & MAY_T)) {
                if (!sc->stats.pruned_bloom && !sc->stats.pruned_dict)
                    sc->stats.pruned_stats = 1;
                else if (sc->stats.pruned_bloom)
                    sc->stats.pruned_dict = 0; /* one reason each */
                sc->stage = SC_DONE;
                continue;
            }
            sc->stats.pruned_bloom = 0;
            sc->stats.pruned_dict = 0;
            sc->stage = SC_PAGES;
            continue;
        case SC_PAGES:
            if (sc->flags & UPQ_SCAN_NO_PAGES) {
                sc->sel.n = 0;
                set_add(&sc->sel, sc->from, sc->to);
            } else {
                st = prune_pages(sc);
                if (st == UPQ_AGAIN)
                    return st;
                if (st != UPQ_OK) {
                    upq_arena_rewind(&r->arena, sc->work_mark);
                    return sc_fail(sc, st, UPQ_MSG("arena too small for page pruning"));
                }
                upq_arena_rewind(&r->arena, sc->work_mark);
                sc->stack = (upq_row_set *)0;
            }
            sc->stats.rows_selected = sel_rows(&sc->sel);
            if (sc->sel.n == 0) {
                sc->stats.pruned_pages = 1;
                sc->stage = SC_DONE;
                continue;
            }
            sc->stage = SC_OPEN;
            continue;
        case SC_OPEN:
            if (!(sc->flags & UPQ_SCAN_NO_FILTER)) {
                st = upq_rows_open(&sc->pred_rows, r, sc->rg, sc->pcols, sc->npcols, sc->batch);
                if (st != UPQ_OK)
                    return sc_stop(sc, st);
                sc->pred_open = 1;
            }
            st = upq_rows_open(&sc->out_rows, r, sc->rg, sc->out_nodes, sc->out_n, sc->batch);
            if (st != UPQ_OK)
                return sc_stop(sc, st);
            sc->out_open = 1;
            sc->range = 0;
            sc->row = 0;
            sc->out_pos = 0;
            sc->sub = SS_PSKIP;
            sc->stage = SC_SCAN;
            continue;
        case SC_SCAN:
            break;
        case SC_DONE:
            return UPQ_DONE;
        default:
            return sc->failed ? sc->failed : UPQ_ERR_STATE;
        }
        /* SC_SCAN */
        switch (sc->sub) {
        case SS_PSKIP: {
            const upq_row_range *rr;
            while (sc->range < sc->sel.n && sc->row >= sc->sel.v[sc->range].end)
                sc->range++;
            if (sc->range >= sc->sel.n) {
                sc->stage = SC_DONE;
                continue;
            }
            rr = &sc->sel.v[sc->range];
            if (sc->flags & UPQ_SCAN_NO_FILTER) {
                if (sc->row < rr->begin)
                    sc->row = rr->begin;
                sc->cur = sc->row++;
                sc->sub = SS_OSKIP;
                continue;
            }
            if (sc->row > 0 && rr->begin - sc->row >= UPQ_SCAN_REOPEN_ROWS &&
                !(sc->flags & UPQ_SCAN_NO_PAGES)) {
                /* a skip right after opening goes through the OffsetIndex */
                upq_rows_close(&sc->out_rows);
                upq_rows_close(&sc->pred_rows);
                sc->out_open = sc->pred_open = 0;
                st = upq_rows_open(&sc->pred_rows, r, sc->rg, sc->pcols, sc->npcols, sc->batch);
                if (st != UPQ_OK)
                    return sc_stop(sc, st);
                sc->pred_open = 1;
                st = upq_rows_open(&sc->out_rows, r, sc->rg, sc->out_nodes, sc->out_n, sc->batch);
                if (st != UPQ_OK)
                    return sc_stop(sc, st);
                sc->out_open = 1;
                sc->row = 0;
                sc->out_pos = 0;
                sc->stats.reopens++;
            }
            st = skip_to(sc, &sc->pred_rows, &sc->row, rr->begin,
                         UPQ_MSG("a predicate column ends before the row count"));
            if (st != UPQ_OK)
                return st;
            sc->sub = SS_PNEXT;
            continue;
        }
        case SS_PNEXT: {
            uint32_t i;
            st = upq_rows_next(&sc->pred_rows);
            if (st == UPQ_AGAIN)
                return st;
            if (st == UPQ_DONE)
                return sc_fail(sc, UPQ_ERR_CORRUPT,
                               UPQ_MSG("a predicate column ends before the row count"));
            if (st != UPQ_OK)
                return sc_stop(sc, st);
            for (i = 0; i < sc->p->n; i++)
                if (is_leaf(sc->p->nodes[i].op))
                    sc->res[i] = (uint8_t)upq_pred_eval_leaf(&r->schema, sc->p, i, (const void *)0);
            sc->sub = SS_PEV;
            continue;
        }
        case SS_PEV: {
            upq_event ev;
            uint32_t i;
            st = upq_rows_event(&sc->pred_rows, &ev);
            if (st == UPQ_AGAIN)
                return st;
            if (st == UPQ_OK) {
                if (ev.type == UPQ_EV_VALUE)
                    for (i = 0; i < sc->p->n; i++)
                        if (is_leaf(sc->p->nodes[i].op) && sc->p->nodes[i].column == ev.column)
                            sc->res[i] = (uint8_t)upq_pred_eval_leaf(&r->schema, sc->p, i,
                                                                      ev.value);
                continue;
            }
            if (st != UPQ_DONE)
                return sc_stop(sc, st);
            sc->stats.rows_tested++;
            sc->cur = sc->row++;
            if (upq_pred_combine(sc->p, sc->res, sc->evstack) == UPQ_PRED_TRUE) {
                sc->sub = SS_OSKIP;
                continue;
            }
            sc->sub = sc->row < sc->sel.v[sc->range].end ? SS_PNEXT : SS_PSKIP;
            continue;
        }
        case SS_OSKIP:
            st = skip_to(sc, &sc->out_rows, &sc->out_pos, sc->cur,
                         UPQ_MSG("a column ends before the row count"));
            if (st != UPQ_OK)
                return st;
            sc->sub = SS_ONEXT;
            continue;
        default: /* SS_ONEXT */
            st = upq_rows_next(&sc->out_rows);
            if (st == UPQ_AGAIN)
                return st;
            if (st == UPQ_DONE)
                return sc_fail(sc, UPQ_ERR_CORRUPT, UPQ_MSG("a column ends before the row count"));
            if (st != UPQ_OK)
                return sc_stop(sc, st);
            sc->out_pos = sc->cur + 1;
            sc->stats.rows_matched++;
            sc->sub = (sc->flags & UPQ_SCAN_NO_FILTER) || sc->row >= sc->sel.v[sc->range].end
                          ? SS_PSKIP
                          : SS_PNEXT;
            return UPQ_OK;
        }
    }
}

upq_rows *upq_scan_rows(upq_scan *sc)
{
    return &sc->out_rows;
}

uint64_t upq_scan_row(const upq_scan *sc)
{
    return sc->cur;
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
    if (sc->out_open)
        upq_rows_close(&sc->out_rows);
    if (sc->pred_open)
        upq_rows_close(&sc->pred_rows);
    sc->out_open = sc->pred_open = 0;
    if (sc->p)
        upq_arena_rewind(&sc->r->arena, sc->mark);
    sc->stage = SC_DONE;
}

#endif /* UPQ_WITH_PREDICATE */
