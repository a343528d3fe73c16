/*
 * Predicates: checking an expression against the schema, evaluating it on a
 * row (three-valued, as DuckDB does), LIKE patterns.
 *
 * Pruning (prune.c) and the scan (scan.c) build on these; the builder
 * (pred_build.c) writes expressions the way SQL reads.
 */
#include "uparquet/predicate.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "format/stats.h"
#include "pred_int.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

#define UNK 2 /* a comparison that could not be made */

int upq_pred_is_leaf(uint8_t op)
{
    return (op >= UPQ_PRED_EQ && op <= UPQ_PRED_IS_NOT_NULL) ||
           (op >= UPQ_PRED_LIKE && op <= UPQ_PRED_CONST);
}

int upq_pred_has_column(uint8_t op)
{
    return upq_pred_is_leaf(op) && op != UPQ_PRED_CONST;
}

int upq_pred_float_order(int order)
{
    return order == UPQ_STAT_ORDER_F32 || order == UPQ_STAT_ORDER_F64 ||
           order == UPQ_STAT_ORDER_F16;
}

int upq_pred_order(const upq_schema *s, uint32_t col)
{
    int o = upq_stats_type_order(s, col);
    if (o == UPQ_STAT_ORDER_NONE && s->columns[col].physical_type == UPQ_TYPE_INT96)
        o = UPQ_STAT_ORDER_INT96;
    return o;
}

/* A value in the column reader's representation as a typed value; buf
 * holds the PLAIN bytes of fixed-width values. Returns 1, or 0 when it does
 * not decode. */
int upq_pred_to_stat(const upq_column_desc *cd, int order, const void *val, uint8_t buf[12],
                     upq_stat_value *out)
{
    const uint8_t *p;
    size_t len = upq_plain_value(cd->physical_type, val, buf, &p);
    if (!len) {
        if (cd->physical_type != UPQ_TYPE_BYTE_ARRAY &&
            cd->physical_type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
            return 0;
        p = ((const upq_bytes *)val)->ptr;
        len = ((const upq_bytes *)val)->len;
        if (!p && len)
            return 0;
    }
    return upq_stats_decode_value(order, cd->type_length, p, len, 0, out) == UPQ_OK;
}

static const double pow10_d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A decimal's unscaled big-endian two's complement bytes as a double. */
static double be_double(const uint8_t *p, uint32_t len)
{
    double x = 0;
    uint32_t i;
    int neg = len && (p[0] & 0x80u);
    for (i = 0; i < len; i++)
        x = x * 256.0 + (double)(neg ? (uint8_t)~p[i] : p[i]);
    return neg ? -(x + 1.0) : x;
}

int upq_pred_cast(const upq_schema *s, const upq_pred_node *nd, upq_stat_value *v)
{
    const upq_column_desc *cd = &s->columns[nd->column];
    int32_t scale = UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_DECIMAL) ? cd->scale : 0;
    double x;
    if (!(nd->op & UPQ_PRED_AS_DOUBLE))
        return 1;
    switch (v->kind) {
    case UPQ_STAT_INT: x = (double)v->v.i; break;
    case UPQ_STAT_UINT: x = (double)v->v.u; break;
    case UPQ_STAT_DECIMAL: x = be_double(v->ptr, v->len); break;
    default: return 0;
    }
    /* DuckDB: the unscaled value over a power of ten, both doubles */
    while (scale > 22) {
        x /= 1e22;
        scale -= 22;
    }
    if (scale > 0)
        x /= pow10_d[scale];
    upq_memset(v, 0, sizeof *v);
    v->kind = UPQ_STAT_FLOAT;
    v->exact = -1;
    v->v.d = x;
    return 1;
}

int upq_pred_literal(const upq_schema *s, const upq_pred_node *nd, uint32_t k, uint8_t buf[12],
                     upq_stat_value *out)
{
    if ((nd->op & UPQ_PRED_AS_DOUBLE)) {
        upq_memset(out, 0, sizeof *out);
        out->kind = UPQ_STAT_FLOAT;
        out->exact = -1;
        out->v.d = nd->values[k].d;
        return 1;
    }
    return upq_pred_to_stat(&s->columns[nd->column], upq_pred_order(s, nd->column), &nd->values[k],
                            buf, out);
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


/* ---- LIKE ----------------------------------------------------------------- */

/* Bytes of the UTF-8 character starting with lead byte c (a stray
 * continuation byte counts as one). */
static size_t char_len(const uint8_t *s, size_t i, size_t n)
{
    size_t k = i + 1;
    while (k < n && (s[k] & 0xC0u) == 0x80u)
        k++;
    return k - i;
}

/* Does s match pattern p ('%' any run of characters, '_' one character,
 * `esc` (-1: none) makes the next pattern byte literal)? The classic
 * backtracking to the last '%' (no recursion): a later '%' makes earlier
 * ones irrelevant, so remembering one position suffices; each retry starts
 * at a character boundary. O(len(s) x len(p)). */
static int like_match(const uint8_t *s, size_t sn, const uint8_t *p, size_t pn, int esc)
{
    size_t si = 0, pi = 0, star_p = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            size_t lit = pi;
            int wild = 1;
            if ((int)p[pi] == esc && pi + 1 < pn) {
                lit = pi + 1;
                wild = 0;
            }
            if (wild && p[pi] == '%') {
                star_p = ++pi;
                star_s = si;
                continue;
            }
            if (wild && p[pi] == '_') {
                si += char_len(s, si, sn);
                pi++;
                continue;
            }
            if (p[lit] == s[si]) {
                si++;
                pi = lit + 1;
                continue;
            }
        }
        if (star_p == (size_t)-1)
            return 0;
        star_s += char_len(s, star_s, sn);
        si = star_s;
        pi = star_p;
    }
    while (pi < pn && p[pi] == '%')
        pi++;
    return pi == pn;
}

/* The pattern of LIKE node `nd` and its escape byte (-1: none). */
static void like_args(const upq_pred_node *nd, const upq_bytes **pat, int *esc)
{
    *pat = &nd->values[0].bytes;
    *esc = nd->n > 1 && nd->values[1].bytes.len == 1 ? nd->values[1].bytes.ptr[0] : -1;
}

/* ---- checking ------------------------------------------------------------ */

static upq_status check_values(const upq_schema *s, const upq_pred_node *nd, const char **what)
{
    const upq_column_desc *cd = &s->columns[nd->column];
    int order = upq_pred_order(s, nd->column);
    uint32_t k;
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_IS_NULL || UPQ_PRED_OP(nd->op) == UPQ_PRED_IS_NOT_NULL)
        return UPQ_OK;
    if (nd->n == 0 || !nd->values ||
        (nd->n != 1 && UPQ_PRED_OP(nd->op) != UPQ_PRED_IN && UPQ_PRED_OP(nd->op) != UPQ_PRED_NOT_IN &&
         !(UPQ_PRED_OP(nd->op) == UPQ_PRED_LIKE && nd->n == 2))) {
        *what = UPQ_MSG("wrong number of values");
        return UPQ_ERR_INVAL;
    }
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_LIKE) {
        const upq_bytes *pat;
        int esc;
        if (order != UPQ_STAT_ORDER_BYTES) {
            *what = UPQ_MSG("LIKE on a column that is not a string or binary");
            return UPQ_ERR_INVAL;
        }
        if (nd->n == 2 && (nd->values[1].bytes.len != 1 || !nd->values[1].bytes.ptr)) {
            *what = UPQ_MSG("a LIKE escape of other than one byte");
            return UPQ_ERR_INVAL;
        }
        like_args(nd, &pat, &esc);
        if (!pat->ptr && pat->len) {
            *what = UPQ_MSG("a pattern without bytes");
            return UPQ_ERR_INVAL;
        }
        for (k = 0; k < pat->len; k++) {
            if ((int)pat->ptr[k] != esc)
                continue;
            if (k + 1 == pat->len) {
                *what = UPQ_MSG("a LIKE pattern that ends with its escape");
                return UPQ_ERR_INVAL;
            }
            k++;
        }
        return UPQ_OK;
    }
    if ((nd->op & UPQ_PRED_AS_DOUBLE) &&
        (UPQ_PRED_OP(nd->op) == UPQ_PRED_LIKE || UPQ_PRED_OP(nd->op) == UPQ_PRED_CONST ||
         (order != UPQ_STAT_ORDER_I32 && order != UPQ_STAT_ORDER_U32 && order != UPQ_STAT_ORDER_I64 &&
          order != UPQ_STAT_ORDER_U64 && order != UPQ_STAT_ORDER_DECIMAL))) {
        *what = UPQ_MSG("a comparison as DOUBLE on a column that is not an integer or decimal");
        return UPQ_ERR_INVAL;
    }
    for (k = 0; k < nd->n; k++) {
        upq_stat_value v;
        uint8_t buf[12];
        if (!upq_pred_literal(s, nd, k, buf, &v)) {
            *what = UPQ_MSG("a value that does not fit the column");
            return UPQ_ERR_INVAL;
        }
    }
    (void)cd;
    return UPQ_OK;
}

static upq_status check_leaf(const upq_schema *s, const upq_pred_node *nd, const char **what)
{
    const upq_column_desc *cd;
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_CONST) {
        if (nd->n > UPQ_PRED_NULL) {
            *what = UPQ_MSG("a constant other than TRUE, FALSE or NULL");
            return UPQ_ERR_INVAL;
        }
        return UPQ_OK;
    }
    if (nd->column >= s->num_columns) {
        *what = UPQ_MSG("no such column");
        return UPQ_ERR_INVAL;
    }
    cd = &s->columns[nd->column];
    if (cd->max_rep > 0) {
        *what = UPQ_MSG("a repeated column");
        return UPQ_ERR_INVAL;
    }
    if (upq_pred_order(s, nd->column) == UPQ_STAT_ORDER_NONE) {
        *what = UPQ_MSG("a column whose values have no order");
        return UPQ_ERR_INVAL;
    }
    return check_values(s, nd, what);
}

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
        uint8_t op = UPQ_PRED_OP(nd->op);
        *node = i;
        if ((nd->op & UPQ_PRED_AS_DOUBLE) && !(op >= UPQ_PRED_EQ && op <= UPQ_PRED_NOT_IN) &&
            op != UPQ_PRED_DISTINCT && op != UPQ_PRED_NOT_DISTINCT) {
            *what = UPQ_MSG("AS_DOUBLE on an operator without a literal");
            return UPQ_ERR_INVAL;
        }
        if (upq_pred_is_leaf(op)) {
            upq_status st = check_leaf(s, nd, what);
            if (st != UPQ_OK)
                return st;
            if (++sp > depth)
                depth = sp;
        } else if (UPQ_PRED_OP(nd->op) == UPQ_PRED_AND || UPQ_PRED_OP(nd->op) == UPQ_PRED_OR) {
            if (sp < 2) {
                *what = UPQ_MSG("AND/OR needs two operands");
                return UPQ_ERR_INVAL;
            }
            sp--;
        } else if (UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT) {
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

static int eval_cmp(uint8_t op, int c)
{
    switch (op) {
    case UPQ_PRED_EQ: return c == 0;
    case UPQ_PRED_NE: return c != 0;
    case UPQ_PRED_LT: return c < 0;
    case UPQ_PRED_LE: return c <= 0;
    case UPQ_PRED_GT: return c > 0;
    case UPQ_PRED_GE: return c >= 0;
    case UPQ_PRED_NOT_DISTINCT: return c == 0;
    default: return c != 0; /* DISTINCT */
    }
}

int upq_pred_eval_leaf(const upq_schema *s, const upq_pred *p, uint32_t node, const void *value)
{
    const upq_pred_node *nd = &p->nodes[node];
    const upq_column_desc *cd;
    int order, c;
    upq_stat_value v, l;
    uint8_t vb[12], lb[12];
    uint32_t k;
    switch (UPQ_PRED_OP(nd->op)) {
    case UPQ_PRED_CONST: return (int)nd->n;
    case UPQ_PRED_IS_NULL: return value ? UPQ_PRED_FALSE : UPQ_PRED_TRUE;
    case UPQ_PRED_IS_NOT_NULL: return value ? UPQ_PRED_TRUE : UPQ_PRED_FALSE;
    case UPQ_PRED_DISTINCT:
        if (!value)
            return UPQ_PRED_TRUE;
        break;
    case UPQ_PRED_NOT_DISTINCT:
        if (!value)
            return UPQ_PRED_FALSE;
        break;
    case UPQ_PRED_LIKE: {
        const upq_bytes *pat, *b = (const upq_bytes *)value;
        int esc;
        if (!value || (!b->ptr && b->len))
            return UPQ_PRED_NULL;
        like_args(nd, &pat, &esc);
        return like_match(b->ptr, b->len, pat->ptr, pat->len, esc);
    }
    default: break;
    }
    cd = &s->columns[nd->column];
    order = upq_pred_order(s, nd->column);
    if (!value || !upq_pred_to_stat(cd, order, value, vb, &v) || !upq_pred_cast(s, nd, &v))
        return UPQ_PRED_NULL;
    if (UPQ_PRED_OP(nd->op) == UPQ_PRED_IN || UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_IN) {
        int found = 0;
        for (k = 0; k < nd->n && !found; k++)
            found = upq_pred_literal(s, nd, k, lb, &l) && vcmp(&v, &l) == 0;
        return (found != 0) == (UPQ_PRED_OP(nd->op) == UPQ_PRED_IN) ? UPQ_PRED_TRUE : UPQ_PRED_FALSE;
    }
    if (!upq_pred_literal(s, nd, 0, lb, &l) || (c = vcmp(&v, &l)) == UNK)
        return UPQ_PRED_OP(nd->op) == UPQ_PRED_DISTINCT ? UPQ_PRED_TRUE
               : UPQ_PRED_OP(nd->op) == UPQ_PRED_NOT_DISTINCT ? UPQ_PRED_FALSE : UPQ_PRED_NULL;
    return eval_cmp(UPQ_PRED_OP(nd->op), c);
}

int upq_pred_combine(const upq_pred *p, const uint8_t *res, uint8_t *stack)
{
    uint32_t i, sp = 0;
    for (i = 0; i < p->n; i++) {
        uint8_t op = UPQ_PRED_OP(p->nodes[i].op);
        if (upq_pred_is_leaf(op)) {
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

/* ---- LIKE's prefix, for pruning ------------------------------------------- */

size_t upq_pred_like_prefix(const upq_pred_node *nd, uint8_t *out, size_t cap, int *exact,
                            int *tail_any)
{
    const upq_bytes *pat;
    int esc;
    size_t i, n = 0;
    like_args(nd, &pat, &esc);
    *exact = 0;
    *tail_any = 0;
    for (i = 0; i < pat->len; i++) {
        uint8_t c = pat->ptr[i];
        if ((int)c == esc && i + 1 < pat->len)
            c = pat->ptr[++i];
        else if (c == '%' || c == '_')
            break;
        if (n == cap)
            return n; /* a longer prefix prunes no better than this much */
        out[n++] = c;
    }
    if (i == pat->len) {
        *exact = 1;
    } else {
        size_t k = i;
        while (k < pat->len && pat->ptr[k] == '%')
            k++;
        *tail_any = k == pat->len;
    }
    return n;
}

#endif /* UPQ_WITH_PREDICATE */
