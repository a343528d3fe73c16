/*
 * Pruning: what a chunk's statistics or a page's ColumnIndex entry say a
 * leaf can give, combined through the expression, and the row sets that
 * page pruning works in.
 *
 * Pruning keeps, per subexpression, two facts about a set of rows (a chunk,
 * or a set of row ranges): "some row may make it TRUE" and "some row may
 * make it FALSE". AND: may-true of both, may-false of either; OR the other
 * way round; NOT swaps them. Rows whose value is NULL make a comparison
 * neither, so they need no third fact (IS [NOT] DISTINCT FROM, which a NULL
 * does decide, says so itself). Only the may-true of the whole expression
 * decides what is read, and it is never smaller than the truth: every
 * unknown (missing or untrusted bounds, a NaN that may hide in a float
 * chunk, a page index that does not load or fails its checks) answers
 * "may".
 */
#include "uparquet/predicate.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "pred_int.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

#define MAY_T UPQ_MAY_T
#define MAY_F UPQ_MAY_F
#define UNK 2 /* a comparison that could not be made */

/* Longest LIKE prefix pruning looks at: a longer one prunes little better. */
#define LIKE_PREFIX_MAX 64u

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

static unsigned in_may(const upq_schema *s, const upq_pred_node *nd, const upq_bounds *b)
{
    unsigned r = MAY_F;
    uint32_t k;
    for (k = 0; k < nd->n; k++) {
        upq_stat_value l;
        uint8_t lb[12];
        unsigned e;
        if (!upq_pred_literal(s, nd, k, lb, &l) || upq_stat_is_nan(&l))
            return MAY_T | MAY_F;
        e = eq_may(bcmp3(b->has_min, &b->min, &l), bcmp3(b->has_max, &b->max, &l));
        r |= e & MAY_T;
        if (!(e & MAY_F))
            r &= ~MAY_F;
    }
    if (b->nan)
        r |= MAY_F; /* a NaN matches no literal here */
    return UPQ_PRED_OP(nd->op) == UPQ_PRED_IN ? r : swap_may(r);
}

/* A comparison with one literal over the non-NULL values. */
static unsigned cmp_may(const upq_schema *s, uint8_t op, const upq_pred_node *nd,
                        const upq_bounds *b)
{
    upq_stat_value l;
    uint8_t lb[12];
    unsigned r;
    int lo, hi;
    if (!upq_pred_literal(s, nd, 0, lb, &l) || upq_stat_is_nan(&l))
        return MAY_T | MAY_F;
    lo = bcmp3(b->has_min, &b->min, &l);
    hi = bcmp3(b->has_max, &b->max, &l);
    switch (op) {
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
        if (op == UPQ_PRED_NE || op == UPQ_PRED_GT || op == UPQ_PRED_GE)
            r |= MAY_T;
        else
            r |= MAY_F;
    }
    return r;
}

/* Byte-wise a <=> b (shorter first on a common prefix); *pre: b starts with a. */
static int bytes_cmp(const uint8_t *a, size_t an, const upq_stat_value *b, int *pre)
{
    size_t i, n = an < b->len ? an : b->len;
    *pre = 0;
    for (i = 0; i < n; i++)
        if (a[i] != b->ptr[i])
            return a[i] < b->ptr[i] ? -1 : 1;
    *pre = an <= b->len;
    return an < b->len ? -1 : an > b->len;
}

/* LIKE over byte bounds: a matching value starts with the pattern's
 * prefix P, so it lies in [P, succ(P)), succ(P) being the first string
 * above every string that starts with P. */
static unsigned like_may(const upq_pred_node *nd, const upq_bounds *b)
{
    uint8_t pre[LIKE_PREFIX_MAX];
    int exact, tail_any, p_min = 0, p_max = 0, c_min = 0, c_max = 0;
    size_t n = upq_pred_like_prefix(nd, pre, sizeof pre, &exact, &tail_any);
    int kmin = b->has_min && b->min.kind == UPQ_STAT_BYTES;
    int kmax = b->has_max && b->max.kind == UPQ_STAT_BYTES;
    unsigned r = MAY_T | MAY_F;
    if (kmin)
        c_min = bytes_cmp(pre, n, &b->min, &p_min); /* P <=> min */
    if (kmax)
        c_max = bytes_cmp(pre, n, &b->max, &p_max); /* P <=> max */
    if (exact) /* no wildcard: equality */
        return eq_may(kmin ? -c_min : UNK, kmax ? -c_max : UNK);
    /* max < P, or min >= succ(P) (above P and not starting with it) */
    if ((kmax && c_max > 0) || (kmin && c_min < 0 && !p_min))
        r &= ~MAY_T;
    /* "P%": every value in [P, succ(P)) matches */
    if (tail_any && (n == 0 || (kmin && kmax && c_min <= 0 && (c_max > 0 || p_max))))
        r &= ~MAY_F;
    return r;
}

/* Bounds as a DOUBLE node compares them (the cast is monotonic). */
static const upq_bounds *cast_bounds(const upq_schema *s, const upq_pred_node *nd,
                                     const upq_bounds *b, upq_bounds *tmp)
{
    if (!(nd->op & UPQ_PRED_AS_DOUBLE))
        return b;
    upq_memcpy(tmp, b, sizeof *tmp);
    tmp->has_min = (uint8_t)(b->has_min && upq_pred_cast(s, nd, &tmp->min));
    tmp->has_max = (uint8_t)(b->has_max && upq_pred_cast(s, nd, &tmp->max));
    return tmp;
}

unsigned upq_pred_leaf_may(const upq_schema *s, const upq_pred_node *nd, const upq_bounds *b)
{
    upq_bounds tmp;
    unsigned r = 0;
    b = cast_bounds(s, nd, b, &tmp);
    switch (UPQ_PRED_OP(nd->op)) {
    case UPQ_PRED_CONST:
        return nd->n == UPQ_PRED_TRUE ? MAY_T : nd->n == UPQ_PRED_FALSE ? MAY_F : 0u;
    case UPQ_PRED_IS_NULL:
    case UPQ_PRED_IS_NOT_NULL:
        if (!b->no_null)
            r |= MAY_T;
        if (!b->all_null)
            r |= MAY_F;
        return UPQ_PRED_OP(nd->op) == UPQ_PRED_IS_NULL ? r : swap_may(r);
    case UPQ_PRED_DISTINCT:
    case UPQ_PRED_NOT_DISTINCT:
        /* NOT DISTINCT: = on the values, FALSE on a NULL */
        r = b->all_null ? 0u : cmp_may(s, UPQ_PRED_EQ, nd, b);
        if (!b->no_null)
            r |= MAY_F;
        return UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_DISTINCT ? r : swap_may(r);
    default: break;
    }
    if (b->all_null)
        return 0; /* every row gives NULL */
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_IN || UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_IN)
        return in_may(s, nd, b);
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_LIKE)
        return like_may(nd, b);
    return cmp_may(s, UPQ_PRED_OP(nd->op), nd, b);
}

/* Bounds of a chunk from its statistics (nothing known when they are
 * absent or untrusted). */
static void chunk_bounds(upq_reader *r, uint32_t rg, uint32_t col, upq_bounds *b)
{
    const upq_schema *s = &r->schema;
    int order = upq_pred_order(s, col);
    const upq_row_group *g = upq_reader_row_group(r, rg);
    int64_t rows = g ? g->num_rows : -1;
    upq_column_stats cs;
    upq_memset(b, 0, sizeof *b);
    b->nan = (uint8_t)upq_pred_float_order(order);
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

unsigned upq_pred_chunk_may(upq_reader *r, const upq_pred_node *nd, uint32_t rg)
{
    upq_bounds b;
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_CONST) {
        upq_memset(&b, 0, sizeof b);
        return upq_pred_leaf_may(&r->schema, nd, &b);
    }
    if (!upq_reader_chunk(r, rg, nd->column))
        return MAY_T | MAY_F;
    chunk_bounds(r, rg, nd->column, &b);
    return upq_pred_leaf_may(&r->schema, nd, &b);
}

void upq_pred_combine_may(uint8_t op, uint8_t *stack, uint32_t *sp)
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
    if (!r || !p || !upq_reader_row_group(r, rg) || p->depth == 0 ||
        p->depth > UPQ_PRED_MAX_DEPTH)
        return 1;
    for (i = 0; i < p->n; i++) {
        if (upq_pred_is_leaf(UPQ_PRED_OP(p->nodes[i].op)))
            stack[sp++] = (uint8_t)upq_pred_chunk_may(r, &p->nodes[i], rg);
        else
            upq_pred_combine_may(UPQ_PRED_OP(p->nodes[i].op), stack, &sp);
    }
    return (stack[0] & MAY_T) != 0;
}

/* ---- row sets ------------------------------------------------------------- */

void upq_set_add(upq_row_set *s, uint64_t a, uint64_t b)
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

void upq_set_copy(upq_row_set *d, const upq_row_set *s)
{
    uint32_t i;
    d->n = 0;
    for (i = 0; i < s->n; i++)
        upq_set_add(d, s->v[i].begin, s->v[i].end);
}

void upq_set_and(upq_row_set *d, const upq_row_set *a, const upq_row_set *b)
{
    uint32_t i = 0, j = 0;
    d->n = 0;
    while (i < a->n && j < b->n) {
        uint64_t lo = a->v[i].begin > b->v[j].begin ? a->v[i].begin : b->v[j].begin;
        uint64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo < hi)
            upq_set_add(d, lo, hi);
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
}

void upq_set_or(upq_row_set *d, const upq_row_set *a, const upq_row_set *b)
{
    uint32_t i = 0, j = 0;
    d->n = 0;
    while (i < a->n || j < b->n) {
        const upq_row_range *x;
        if (j >= b->n || (i < a->n && a->v[i].begin <= b->v[j].begin))
            x = &a->v[i++];
        else
            x = &b->v[j++];
        upq_set_add(d, x->begin, x->end);
    }
}

/* Every data page of the chunk is dictionary-encoded: its encoding_stats
 * say so, or (without them) its encodings list no PLAIN, which a fallback
 * page would need (a PLAIN dictionary page cannot be told from one). */
int upq_pred_all_dictionary(const upq_column_chunk *ch)
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

#if UPQ_WITH_PAGE_INDEX
/* Bounds of page i from a verified ColumnIndex. */
static void page_bounds(const upq_reader *r, const upq_pred_node *nd, const upq_column_index *ci,
                        uint32_t i, uint64_t rows, upq_bounds *bd)
{
    const upq_schema *s = &r->schema;
    const upq_column_desc *cd = &s->columns[nd->column];
    int order = upq_pred_order(s, nd->column), porder;
    unsigned flags = 0;
    upq_memset(bd, 0, sizeof *bd);
    bd->nan = (uint8_t)upq_pred_float_order(order);
    if (ci->null_pages.v[i]) {
        bd->all_null = 1;
        return;
    }
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) && ci->null_counts.v[i] >= 0 &&
        (uint64_t)ci->null_counts.v[i] <= rows) {
        bd->no_null = ci->null_counts.v[i] == 0;
        bd->all_null = (uint64_t)ci->null_counts.v[i] == rows && cd->max_rep == 0;
    }
    if (bd->nan && UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NAN_COUNTS) && ci->nan_counts.v[i] == 0)
        bd->nan = 0;
    porder = upq_stats_column_order(&r->meta, s, nd->column, &flags, (uint8_t *)0);
    if (porder == order && !(flags & UPQ_STAT_TOTAL_ORDER)) {
        const upq_bytes *mn = &ci->min_values.v[i], *mx = &ci->max_values.v[i];
        bd->has_min = upq_stats_decode_value(order, cd->type_length, mn->ptr, mn->len,
                                             UPQ_STAT_AS_MIN, &bd->min) == UPQ_OK &&
                      !upq_stat_is_nan(&bd->min);
        bd->has_max = upq_stats_decode_value(order, cd->type_length, mx->ptr, mx->len,
                                             UPQ_STAT_AS_MAX, &bd->max) == UPQ_OK &&
                      !upq_stat_is_nan(&bd->max);
    }
}

void upq_pred_leaf_pages(const upq_reader *r, const upq_pred_node *nd, uint64_t num_rows,
                         const upq_offset_index *oi, const upq_column_index *ci, upq_row_set *t,
                         upq_row_set *f)
{
    uint32_t i, pages = oi->page_locations.n;
    t->n = f->n = 0;
    for (i = 0; i < pages; i++) {
        uint64_t a = (uint64_t)oi->page_locations.v[i].first_row_index;
        uint64_t b = i + 1 < pages ? (uint64_t)oi->page_locations.v[i + 1].first_row_index
                                   : num_rows;
        upq_bounds bd;
        unsigned may;
        page_bounds(r, nd, ci, i, b - a, &bd);
        may = upq_pred_leaf_may(&r->schema, nd, &bd);
        if (may & MAY_T)
            upq_set_add(t, a, b);
        if (may & MAY_F)
            upq_set_add(f, a, b);
    }
}
#endif

#endif /* UPQ_WITH_PREDICATE */
