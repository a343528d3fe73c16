/*
 * The expression builder: postfix nodes in caller arrays, literals given as
 * C values turned into the column's representation as DuckDB coerces them.
 *
 * A literal is placed among the column's values: F, the largest value not
 * above it, and C, the smallest not below (either may not exist: the
 * literal is below or above every value the column can hold). When F and C
 * are the literal itself it is a value and the comparison stays as written;
 * otherwise `x < L` is `x <= F`, `x > L` is `x >= C`, `x = L` can never be
 * TRUE, `x != L` is TRUE for every non-null x, and IS [NOT] DISTINCT FROM
 * is a constant. Which values count as "the literal" follows DuckDB: a
 * DOUBLE literal by its exact value (against FLOAT, integer and decimal
 * columns), an integer or decimal literal cast to FLOAT / DOUBLE for float
 * columns, exactly for integer and decimal columns.
 */
#include "uparquet/predicate.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "pred_int.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

/* ---- 128-bit magnitudes ---------------------------------------------------- */

typedef struct u128 {
    uint64_t hi, lo;
} u128;

static u128 u128_of(uint64_t x)
{
    u128 r;
    r.hi = 0;
    r.lo = x;
    return r;
}

static int u128_cmp(u128 a, u128 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    return a.lo < b.lo ? -1 : a.lo > b.lo;
}

/* a * m + add; 0 on overflow. */
static int u128_muladd(u128 *a, uint32_t m, uint32_t add)
{
    uint64_t l0 = (a->lo & 0xFFFFFFFFu) * m + add;
    uint64_t l1 = (a->lo >> 32) * m + (l0 >> 32);
    uint64_t h0 = (a->hi & 0xFFFFFFFFu) * m + (l1 >> 32);
    uint64_t h1 = (a->hi >> 32) * m + (h0 >> 32);
    if (h1 >> 32)
        return 0;
    a->lo = (l0 & 0xFFFFFFFFu) | (l1 << 32);
    a->hi = (h0 & 0xFFFFFFFFu) | (h1 << 32);
    return 1;
}

/* a / 10, *rem the remainder. */
static u128 u128_div10(u128 a, uint32_t *rem)
{
    uint64_t parts[4] = {a.hi >> 32, a.hi & 0xFFFFFFFFu, a.lo >> 32, a.lo & 0xFFFFFFFFu}, r = 0;
    int i;
    for (i = 0; i < 4; i++) {
        uint64_t cur = (r << 32) | parts[i];
        parts[i] = cur / 10u;
        r = cur % 10u;
    }
    *rem = (uint32_t)r;
    a.hi = (parts[0] << 32) | parts[1];
    a.lo = (parts[2] << 32) | parts[3];
    return a;
}

static int u128_inc(u128 *a)
{
    if (++a->lo == 0 && ++a->hi == 0)
        return 0;
    return 1;
}

/* A signed integer as sign and magnitude. */
typedef struct sint {
    u128 m;
    uint8_t neg; /* never a negative zero */
} sint;

static int sint_cmp(const sint *a, const sint *b)
{
    int c;
    if (a->neg != b->neg)
        return a->neg ? -1 : 1;
    c = u128_cmp(a->m, b->m);
    return a->neg ? -c : c;
}

/* x + 1 */
static void sint_inc(sint *x)
{
    if (!x->neg) {
        u128_inc(&x->m);
    } else if (x->m.lo-- == 0) {
        x->m.hi--;
    }
    if (x->neg && x->m.hi == 0 && x->m.lo == 0)
        x->neg = 0;
}

/* ---- the builder's output --------------------------------------------------- */

static void fail(upq_pred_builder *b, upq_status st, const char *what)
{
    if (b->st != UPQ_OK)
        return;
    b->st = st;
    b->what = what;
    b->node = b->nn;
}

static int ready(upq_pred_builder *b, uint32_t column, int want_in)
{
    if (b->st != UPQ_OK)
        return 0;
    if ((b->in_node != UPQ_NONE) != (want_in != 0)) {
        fail(b, UPQ_ERR_INVAL, want_in ? UPQ_MSG("an IN member outside an IN list")
                                       : UPQ_MSG("an unfinished IN list"));
        return 0;
    }
    if (column != UPQ_NONE && (column >= b->s->num_columns || (want_in && column != b->in_node))) {
        fail(b, UPQ_ERR_INVAL, want_in ? UPQ_MSG("an IN member of another column")
                                       : UPQ_MSG("no such column"));
        return 0;
    }
    return 1;
}

static void node(upq_pred_builder *b, uint8_t op, uint32_t column, uint32_t n,
                 const upq_value *v)
{
    upq_pred_node *nd;
    if (b->st != UPQ_OK)
        return;
    if (b->nn >= b->ncap) {
        fail(b, UPQ_ERR_NOMEM, UPQ_MSG("more nodes than the builder's array holds"));
        return;
    }
    if (upq_pred_is_leaf(op)) {
        b->sp++;
    } else if (op == UPQ_PRED_NOT ? b->sp < 1 : b->sp < 2) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("an operator without its operands"));
        return;
    } else if (op != UPQ_PRED_NOT) {
        b->sp--;
    }
    nd = &b->nodes[b->nn++];
    nd->op = op;
    nd->column = column;
    nd->n = n;
    nd->values = v;
}

/* Makes the last node compare its column as DOUBLE. */
static void cast_last(upq_pred_builder *b)
{
    if (b->st == UPQ_OK && b->nn)
        b->nodes[b->nn - 1].op |= UPQ_PRED_AS_DOUBLE;
}

/* A value stored for column `column` as the DOUBLE DuckDB casts it to. */
static int to_double(upq_pred_builder *b, uint32_t column, const upq_value *in, double *out)
{
    upq_pred_node nd;
    upq_stat_value v;
    uint8_t buf[12];
    upq_memset(&nd, 0, sizeof nd);
    nd.column = column;
    nd.op = UPQ_PRED_EQ | UPQ_PRED_AS_DOUBLE;
    if (!upq_pred_to_stat(&b->s->columns[column], upq_pred_order(b->s, column), in, buf, &v) ||
        !upq_pred_cast(b->s, &nd, &v) || v.kind != UPQ_STAT_FLOAT)
        return 0;
    *out = v.v.d;
    return 1;
}

/* A value slot (one value, or the next IN member). */
static upq_value *slot(upq_pred_builder *b)
{
    upq_value *v;
    if (b->st != UPQ_OK)
        return (upq_value *)0;
    if (b->nv >= b->vcap) {
        fail(b, UPQ_ERR_NOMEM, UPQ_MSG("more literals than the builder's array holds"));
        return (upq_value *)0;
    }
    v = &b->values[b->nv++];
    upq_memset(v, 0, sizeof *v);
    return v;
}

static uint8_t *room(upq_pred_builder *b, size_t n)
{
    uint8_t *p;
    if (b->st != UPQ_OK)
        return (uint8_t *)0;
    if (!b->bytes || n > b->bcap - b->bused) {
        fail(b, UPQ_ERR_NOMEM, UPQ_MSG("no room left in the builder's bytes"));
        return (uint8_t *)0;
    }
    p = b->bytes + b->bused;
    b->bused += n;
    return p;
}

/* FALSE for a non-null value, NULL for a null one: x IS NULL AND NULL. */
static void never(upq_pred_builder *b, uint32_t column)
{
    node(b, UPQ_PRED_IS_NULL, column, 0, (const upq_value *)0);
    node(b, UPQ_PRED_CONST, UPQ_NONE, UPQ_PRED_NULL, (const upq_value *)0);
    node(b, UPQ_PRED_AND, UPQ_NONE, 0, (const upq_value *)0);
}

/* TRUE for a non-null value, NULL for a null one: x IS NOT NULL OR NULL. */
static void always(upq_pred_builder *b, uint32_t column)
{
    node(b, UPQ_PRED_IS_NOT_NULL, column, 0, (const upq_value *)0);
    node(b, UPQ_PRED_CONST, UPQ_NONE, UPQ_PRED_NULL, (const upq_value *)0);
    node(b, UPQ_PRED_OR, UPQ_NONE, 0, (const upq_value *)0);
}

/* A literal placed among the column's values (see the top): F and C in the
 * column's representation. */
typedef struct place {
    uint8_t has_f, has_c, exact;
    upq_value f, c;
} place;

static int cmp_op(int op)
{
    return op >= UPQ_PRED_EQ && op <= UPQ_PRED_GE;
}

static int literal_op(int op)
{
    return cmp_op(op) || op == UPQ_PRED_IN || op == UPQ_PRED_DISTINCT ||
           op == UPQ_PRED_NOT_DISTINCT;
}

/* Writes `column op literal` for a placed literal. */
static void emit(upq_pred_builder *b, uint32_t column, int op, const place *pl)
{
    upq_value *v;
    const upq_value *use = pl->exact ? &pl->f : (const upq_value *)0;
    uint8_t o = (uint8_t)op;
    if (b->st != UPQ_OK)
        return;
    if (op == UPQ_PRED_IN) {
        if (pl->exact && (v = slot(b)) != (upq_value *)0) {
            upq_memcpy(v, &pl->f, sizeof *v);
            if (b->in_cast && !to_double(b, column, &pl->f, &v->d))
                fail(b, UPQ_ERR_INVAL, UPQ_MSG("an IN member that has no DOUBLE value"));
        }
        return;
    }
    if (!use) {
        switch (op) {
        case UPQ_PRED_EQ: never(b, column); return;
        case UPQ_PRED_NE: always(b, column); return;
        case UPQ_PRED_NOT_DISTINCT:
        case UPQ_PRED_DISTINCT:
            node(b, UPQ_PRED_CONST, UPQ_NONE,
                 op == UPQ_PRED_DISTINCT ? UPQ_PRED_TRUE : UPQ_PRED_FALSE, (const upq_value *)0);
            return;
        default: { /* LT, LE: at most the floor; GT, GE: at least the ceiling */
            int below = op == UPQ_PRED_LT || op == UPQ_PRED_LE;
            if (!(below ? pl->has_f : pl->has_c)) {
                never(b, column);
                return;
            }
            use = below ? &pl->f : &pl->c;
            o = (uint8_t)(below ? UPQ_PRED_LE : UPQ_PRED_GE);
            break;
        }
        }
    }
    v = slot(b);
    if (!v)
        return;
    upq_memcpy(v, use, sizeof *v);
    node(b, o, column, 1, v);
}

/* ---- integer and decimal columns ------------------------------------------- */

/* A column whose values are integers (scaled for decimals). */
typedef struct intdom {
    sint min, max;
    int32_t scale;
    int32_t pt;       /* physical type */
    uint32_t width;   /* bytes of a binary decimal's value (16 for BYTE_ARRAY) */
} intdom;

static void sint_pow2(sint *x, unsigned bits, int neg)
{
    x->neg = (uint8_t)neg;
    x->m.hi = bits >= 64 ? (uint64_t)1 << (bits - 64) : 0;
    x->m.lo = bits >= 64 ? 0 : (uint64_t)1 << bits;
}

/* 2^bits - 1 */
static void sint_max_bits(sint *x, unsigned bits)
{
    sint_pow2(x, bits, 0);
    if (x->m.lo-- == 0)
        x->m.hi--;
}

/* The domain of an integer or decimal column; 0 when the column is not one. */
static int int_domain(const upq_column_desc *cd, int order, intdom *d)
{
    unsigned bits;
    int uns = order == UPQ_STAT_ORDER_U32 || order == UPQ_STAT_ORDER_U64;
    upq_memset(d, 0, sizeof *d);
    d->pt = cd->physical_type;
    d->scale = UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_DECIMAL) ? cd->scale : 0;
    if (d->scale < 0 || d->scale > 38)
        return 0;
    switch (order) {
    case UPQ_STAT_ORDER_I32:
    case UPQ_STAT_ORDER_U32:
    case UPQ_STAT_ORDER_I64:
    case UPQ_STAT_ORDER_U64:
        bits = d->pt == UPQ_TYPE_INT32 ? 32u : 64u;
        if (UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_INTEGER) && cd->logical.u.integer.bit_width > 0 &&
            cd->logical.u.integer.bit_width < (int8_t)bits)
            bits = (unsigned)cd->logical.u.integer.bit_width;
        break;
    case UPQ_STAT_ORDER_DECIMAL:
        d->width = d->pt == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? (uint32_t)cd->type_length : 16u;
        if (d->width == 0 || d->width > 16)
            d->width = 16; /* wider values than 128 bits are not compared to */
        bits = 8u * d->width;
        break;
    default: return 0;
    }
    if (uns) {
        sint_max_bits(&d->max, bits);
    } else {
        sint_pow2(&d->min, bits - 1u, 1);
        sint_max_bits(&d->max, bits - 1u);
    }
    return 1;
}

/* v (in the domain) in the column's representation. */
static int int_store(upq_pred_builder *b, const intdom *d, const sint *v, upq_value *out)
{
    uint64_t lo = v->neg ? ~v->m.lo + 1u : v->m.lo;
    uint64_t hi = v->neg ? ~v->m.hi + (v->m.lo == 0) : v->m.hi;
    upq_memset(out, 0, sizeof *out);
    if (d->pt == UPQ_TYPE_INT32) {
        out->i32 = (int32_t)(uint32_t)lo;
    } else if (d->pt == UPQ_TYPE_INT64) {
        out->i64 = (int64_t)lo;
    } else {
        uint8_t *p = room(b, d->width);
        uint32_t k;
        if (!p)
            return 0;
        for (k = 0; k < d->width; k++) {
            uint32_t byte = d->width - 1u - k; /* big-endian */
            p[k] = (uint8_t)(byte >= 8 ? hi >> (8 * (byte - 8)) : lo >> (8 * byte));
        }
        out->bytes.ptr = p;
        out->bytes.len = d->width;
    }
    return 1;
}

/* Places the integer `fl` (the literal's floor in column units; `exact`
 * when the literal is that integer) in domain d. */
/* (sint by pointer and copied with upq_memcpy throughout: gcc makes struct
 * copies memcpy calls on Cortex-M0+, which the library must not need) */
static void int_place(upq_pred_builder *b, const intdom *d, const sint *flp, int exact, place *pl)
{
    sint fl, c;
    upq_memcpy(&fl, flp, sizeof fl);
    upq_memcpy(&c, flp, sizeof c);
    upq_memset(pl, 0, sizeof *pl);
    if (!exact)
        sint_inc(&c);
    pl->has_f = sint_cmp(&fl, &d->min) >= 0;
    pl->has_c = sint_cmp(&c, &d->max) <= 0;
    pl->exact = exact && pl->has_f && pl->has_c;
    if (sint_cmp(&fl, &d->max) > 0)
        upq_memcpy(&fl, &d->max, sizeof fl);
    if (sint_cmp(&c, &d->min) < 0)
        upq_memcpy(&c, &d->min, sizeof c);
    if ((pl->has_f && !int_store(b, d, &fl, &pl->f)) || (pl->has_c && !int_store(b, d, &c, &pl->c)))
        pl->has_f = pl->has_c = pl->exact = 0;
}

/* An exact decimal m / 10^scale (sign apart) in units of 10^-to: its floor
 * and whether it is exact; 0 when it does not fit 128 bits (then it lies
 * beyond every column value: *above says on which side). */
static int rescale(const sint *vin, int32_t scale, int32_t to, sint *fl, int *exact, int *above)
{
    int frac = 0;
    sint v;
    upq_memcpy(&v, vin, sizeof v);
    *above = !v.neg;
    while (scale < to) {
        if (!u128_muladd(&v.m, 10u, 0))
            return 0;
        scale++;
    }
    while (scale > to) {
        uint32_t r;
        v.m = u128_div10(v.m, &r);
        frac |= r != 0;
        scale--;
    }
    *exact = !frac;
    if (frac && v.neg && !u128_inc(&v.m)) /* floor of a negative: one further down */
        return 0;
    if (v.m.hi == 0 && v.m.lo == 0)
        v.neg = 0;
    upq_memcpy(fl, &v, sizeof v);
    return 1;
}

static void int_literal(upq_pred_builder *b, uint32_t column, int op, const intdom *d, const sint *v,
                        int32_t scale)
{
    place pl;
    sint fl;
    int exact, above;
    if (!rescale(v, scale, d->scale, &fl, &exact, &above)) {
        /* beyond 128 bits: beyond the domain */
        upq_memset(&pl, 0, sizeof pl);
        if (above) {
            pl.has_f = (uint8_t)int_store(b, d, &d->max, &pl.f);
        } else {
            pl.has_c = (uint8_t)int_store(b, d, &d->min, &pl.c);
        }
    } else {
        int_place(b, d, &fl, exact, &pl);
    }
    emit(b, column, op, &pl);
}

/* ---- float columns ------------------------------------------------------------ */

static uint32_t fbits(float x)
{
    uint32_t u;
    upq_memcpy(&u, &x, sizeof u);
    return u;
}

static float bitsf(uint32_t u)
{
    float x;
    upq_memcpy(&x, &u, sizeof x);
    return x;
}

static int is_nan(double x)
{
    return x != x;
}

/* The next float up (dir 1) or down (-1) of x (not NaN); zeros of either sign
 * step to the smallest subnormal. */
static float fstep(float x, int dir)
{
    uint32_t u = fbits(x);
    if ((u & 0x7FFFFFFFu) == 0)
        return bitsf(dir > 0 ? 1u : 0x80000001u);
    if ((x > 0) == (dir > 0))
        return (u & 0x7FFFFFFFu) == 0x7F800000u ? x : bitsf(u + 1u);
    return bitsf(u - 1u);
}

/* FLOAT16 bits of the half nearest to f (ties to even), and back. */
static uint16_t half_of(float f)
{
    uint32_t u = fbits(f), sign = (u >> 16) & 0x8000u, mant = u & 0x7FFFFFu;
    int32_t e = (int32_t)((u >> 23) & 0xFFu) - 127 + 15;
    if (((u >> 23) & 0xFFu) == 0xFFu)
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0u));
    if (e >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) {
        uint32_t m, shift, half_bit, r;
        if (e < -10)
            return (uint16_t)sign;
        m = mant | 0x800000u;
        shift = (uint32_t)(14 - e);
        half_bit = 1u << (shift - 1u);
        r = m >> shift;
        if ((m & half_bit) && ((m & (half_bit - 1u)) || (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    {
        uint32_t r = ((uint32_t)e << 10) | (mant >> 13);
        if ((mant & 0x1000u) && ((mant & 0xFFFu) || (r & 1u)))
            r++; /* may carry into the exponent, up to infinity: still right */
        return (uint16_t)(sign | r);
    }
}

static float float_of_half(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1F)
        return bitsf(sign | 0x7F800000u | (m << 13));
    if (e == 0) {
        float x = (float)m / 16777216.0f; /* m x 2^-24, exact */
        return sign ? -x : x;
    }
    return bitsf(sign | ((e - 15u + 127u) << 23) | (m << 13));
}

static uint16_t hstep(uint16_t h, int dir)
{
    if ((h & 0x7FFFu) == 0)
        return (uint16_t)(dir > 0 ? 1u : 0x8001u);
    if (((h & 0x8000u) == 0) == (dir > 0))
        return (h & 0x7FFFu) == 0x7C00u ? h : (uint16_t)(h + 1u);
    return (uint16_t)(h - 1u);
}

/* Stores a FLOAT16 value (little-endian bits) for the column. */
static int store_half(upq_pred_builder *b, uint16_t h, upq_value *v)
{
    uint8_t *p = room(b, 2);
    if (!p)
        return 0;
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
    upq_memset(v, 0, sizeof *v);
    v->bytes.ptr = p;
    v->bytes.len = 2;
    return 1;
}

/* Places the double x (compared exactly) among FLOAT (half 0) or FLOAT16
 * values. NaN is a value of its own, above infinity. */
static int float_place(upq_pred_builder *b, double x, int half, place *pl)
{
    double near_d;
    float near_f = (float)x, lo, hi;
    uint16_t h = 0, hl = 0, hh = 0;
    upq_memset(pl, 0, sizeof *pl);
    if (half) {
        h = half_of(near_f);
        near_d = (double)float_of_half(h);
    } else {
        near_d = (double)near_f;
    }
    pl->has_f = pl->has_c = 1;
    if (is_nan(x) || near_d == x) {
        pl->exact = 1;
        return half ? store_half(b, h, &pl->f) : (pl->f.f = near_f, 1);
    }
    if (near_d < x) {
        lo = near_f;
        hl = h;
        hh = half ? hstep(h, 1) : 0;
        hi = half ? 0.0f : fstep(near_f, 1);
    } else {
        hi = near_f;
        hh = h;
        hl = half ? hstep(h, -1) : 0;
        lo = half ? 0.0f : fstep(near_f, -1);
    }
    if (half)
        return store_half(b, hl, &pl->f) && store_half(b, hh, &pl->c);
    pl->f.f = lo;
    pl->c.f = hi;
    return 1;
}

/* A float column's value kind: 0 none, 4 FLOAT, 8 DOUBLE, 2 FLOAT16. */
static int float_kind(int order)
{
    return order == UPQ_STAT_ORDER_F32 ? 4 : order == UPQ_STAT_ORDER_F64 ? 8
           : order == UPQ_STAT_ORDER_F16 ? 2 : 0;
}

/* A value the literal is cast to (FLOAT for FLOAT and FLOAT16 columns,
 * DOUBLE for DOUBLE ones), compared as that value. */
static void float_cast(upq_pred_builder *b, uint32_t column, int op, int kind, double d, float f)
{
    place pl;
    upq_memset(&pl, 0, sizeof pl);
    if (kind == 8) {
        pl.exact = pl.has_f = pl.has_c = 1;
        pl.f.d = d;
    } else if (kind == 4) {
        pl.exact = pl.has_f = pl.has_c = 1;
        pl.f.f = f;
    } else if (!float_place(b, (double)f, 1, &pl)) {
        return;
    }
    emit(b, column, op, &pl);
}

/* ---- literal calls -------------------------------------------------------------- */

static int column_order(upq_pred_builder *b, uint32_t column)
{
    return upq_pred_order(b->s, column);
}

static int is_time(const upq_column_desc *cd)
{
    return UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_DATE) ||
           UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIME) ||
           UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIMESTAMP);
}

/* An exact integer or decimal literal (v / 10^scale). */
static void exact_literal(upq_pred_builder *b, uint32_t column, int op, const sint *v, int32_t scale,
                          double approx)
{
    const upq_column_desc *cd = &b->s->columns[column];
    int order = column_order(b, column), fk = float_kind(order);
    intdom d;
    if (order == UPQ_STAT_ORDER_BOOL && scale == 0) {
        place pl;
        upq_memset(&pl, 0, sizeof pl);
        pl.exact = pl.has_f = pl.has_c = 1;
        pl.f.b = (uint8_t)(v->m.lo || v->m.hi);
        emit(b, column, op, &pl);
        return;
    }
    if (fk) {
        float_cast(b, column, op, fk, approx, (float)approx);
        return;
    }
    if ((is_time(cd) && scale != 0) || !int_domain(cd, order, &d)) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a number for a column that does not hold numbers"));
        return;
    }
    if (op == UPQ_PRED_IN && b->in_cast) { /* a list compared as DOUBLE */
        upq_value *x = slot(b);
        if (x)
            x->d = approx;
        return;
    }
    int_literal(b, column, op, &d, v, scale);
}

static int begin_literal(upq_pred_builder *b, uint32_t column, int op)
{
    if (!ready(b, column, op == UPQ_PRED_IN))
        return 0;
    if (!literal_op(op)) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("not an operator a literal goes with"));
        return 0;
    }
    return 1;
}

void upq_pred_int(upq_pred_builder *b, uint32_t column, int op, int64_t v)
{
    sint x;
    if (!begin_literal(b, column, op))
        return;
    x.neg = (uint8_t)(v < 0);
    x.m = u128_of(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    exact_literal(b, column, op, &x, 0, (double)v);
}

void upq_pred_uint(upq_pred_builder *b, uint32_t column, int op, uint64_t v)
{
    sint x;
    if (!begin_literal(b, column, op))
        return;
    x.neg = 0;
    x.m = u128_of(v);
    exact_literal(b, column, op, &x, 0, (double)v);
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The DOUBLE a decimal casts to: m / 10^scale, correctly rounded when m is
 * below 2^53 and scale at most 22 (one exact division), close otherwise. */
static double decimal_double(const sint *v, int32_t scale)
{
    double m = (double)v->m.hi * 18446744073709551616.0 + (double)v->m.lo, p = 1.0;
    while (scale > 22) {
        m /= 1e22;
        scale -= 22;
    }
    p = pow10_tab[scale];
    return v->neg ? -(m / p) : m / p;
}

void upq_pred_decimal(upq_pred_builder *b, uint32_t column, int op, const char *text, size_t len)
{
    sint x;
    size_t i = 0;
    int32_t scale = 0, digits = 0, dot = 0;
    if (!begin_literal(b, column, op))
        return;
    upq_memset(&x, 0, sizeof x);
    if (i < len && (text[i] == '-' || text[i] == '+'))
        x.neg = text[i++] == '-';
    for (; i < len; i++) {
        char c = text[i];
        if (c == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (c < '0' || c > '9' || !u128_muladd(&x.m, 10u, (uint32_t)(c - '0')) || ++digits > 38) {
            fail(b, UPQ_ERR_INVAL, UPQ_MSG("not a decimal of at most 38 digits"));
            return;
        }
        scale += dot;
    }
    if (digits == 0) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("not a decimal of at most 38 digits"));
        return;
    }
    if (x.m.hi == 0 && x.m.lo == 0)
        x.neg = 0;
    if (float_kind(column_order(b, column)) == 4 && x.m.hi == 0 && x.m.lo < (1u << 24) &&
        scale <= 10) {
        /* to FLOAT: two exact floats, one rounding (as DuckDB casts) */
        float f = (float)x.m.lo / (float)pow10_tab[scale];
        float_cast(b, column, op, 4, (double)(x.neg ? -f : f), x.neg ? -f : f);
        return;
    }
    exact_literal(b, column, op, &x, scale, decimal_double(&x, scale));
}

void upq_pred_double(upq_pred_builder *b, uint32_t column, int op, double x)
{
    const upq_column_desc *cd;
    int order, fk;
    intdom d;
    place pl;
    if (!begin_literal(b, column, op))
        return;
    cd = &b->s->columns[column];
    order = column_order(b, column);
    fk = float_kind(order);
    if (fk) {
        upq_memset(&pl, 0, sizeof pl);
        if (fk == 8) {
            pl.exact = pl.has_f = pl.has_c = 1;
            pl.f.d = x;
        } else if (!float_place(b, x, fk == 2, &pl)) {
            return;
        }
        emit(b, column, op, &pl);
        return;
    }
    if (is_time(cd) || !int_domain(cd, order, &d)) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a number for a column that does not hold numbers"));
        return;
    }
    /* DuckDB compares an integer or decimal column with a DOUBLE as DOUBLEs */
    if (op == UPQ_PRED_IN) {
        upq_value *v;
        uint32_t k, first = b->node;
        if (!b->in_cast) {
            /* the members so far become DOUBLEs too */
            b->in_cast = 1;
            for (k = first; k < b->nv; k++)
                if (!to_double(b, column, &b->values[k], &b->values[k].d))
                    fail(b, UPQ_ERR_INVAL, UPQ_MSG("an IN member that has no DOUBLE value"));
        }
        if ((v = slot(b)) != (upq_value *)0)
            v->d = x;
        return;
    }
    {
        upq_value *v = slot(b);
        if (!v)
            return;
        v->d = x;
        node(b, (uint8_t)op, column, 1, v);
        cast_last(b);
    }
}

void upq_pred_value(upq_pred_builder *b, uint32_t column, int op, const upq_value *v)
{
    place pl;
    if (!begin_literal(b, column, op))
        return;
    upq_memset(&pl, 0, sizeof pl);
    pl.exact = pl.has_f = pl.has_c = 1;
    upq_memcpy(&pl.f, v, sizeof pl.f);
    emit(b, column, op, &pl);
}

void upq_pred_bytes(upq_pred_builder *b, uint32_t column, int op, const void *p, size_t len)
{
    upq_value v;
    if (!begin_literal(b, column, op))
        return;
    if (column_order(b, column) != UPQ_STAT_ORDER_BYTES || len > 0xFFFFFFFFu) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("bytes for a column that is not a string or binary"));
        return;
    }
    upq_memset(&v, 0, sizeof v);
    v.bytes.ptr = len ? (const uint8_t *)p : (const uint8_t *)"";
    v.bytes.len = (uint32_t)len;
    upq_pred_value(b, column, op, &v);
}

void upq_pred_bool(upq_pred_builder *b, uint32_t column, int op, int v)
{
    upq_value x;
    if (!begin_literal(b, column, op))
        return;
    if (column_order(b, column) != UPQ_STAT_ORDER_BOOL) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a boolean for a column that is not BOOLEAN"));
        return;
    }
    upq_memset(&x, 0, sizeof x);
    x.b = (uint8_t)(v != 0);
    upq_pred_value(b, column, op, &x);
}

/* ---- dates, times, timestamps ------------------------------------------------------ */

/* The column's unit per second (TIMESTAMP, TIME), 0 for other columns. */
static int64_t unit_per_second(const upq_column_desc *cd)
{
    const upq_time_unit *u;
    if (UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIMESTAMP))
        u = &cd->logical.u.timestamp.unit;
    else if (UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIME))
        u = &cd->logical.u.time.unit;
    else
        return 0;
    if (UPQ_ISSET(*u, UPQ_TIME_UNIT_MILLIS))
        return 1000;
    if (UPQ_ISSET(*u, UPQ_TIME_UNIT_MICROS))
        return 1000000;
    return UPQ_ISSET(*u, UPQ_TIME_UNIT_NANOS) ? 1000000000 : 0;
}

/* seconds * per + nanos / (1e9 / per) as a floor in the column's units. */
static void time_units(upq_pred_builder *b, uint32_t column, int op, int64_t sec, uint32_t nanos,
                       int64_t per)
{
    intdom d;
    sint v;
    const upq_column_desc *cd = &b->s->columns[column];
    v.neg = (uint8_t)(sec < 0);
    v.m = u128_of(sec < 0 ? (uint64_t)0 - (uint64_t)sec : (uint64_t)sec);
    if (!int_domain(cd, column_order(b, column), &d)) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a time for a column that does not hold times"));
        return;
    }
    /* sec * per + floor(nanos / div), with the fraction left for exactness:
     * as a decimal of scale 9 (nanoseconds) rescaled to the unit */
    {
        uint32_t k;
        sint ns;
        upq_memcpy(&ns, &v, sizeof ns);
        for (k = 0; k < 9; k++)
            u128_muladd(&ns.m, 10u, 0); /* |sec| < 2^63: fits */
        if (!ns.neg) {
            uint64_t lo = ns.m.lo + nanos;
            ns.m.hi += lo < ns.m.lo;
            ns.m.lo = lo;
        } else if (nanos) {
            /* -(|s| x 1e9) + nanos = -(|s| x 1e9 - nanos) */
            uint64_t lo = ns.m.lo - nanos;
            ns.m.hi -= lo > ns.m.lo;
            ns.m.lo = lo;
            if (ns.m.hi == 0 && ns.m.lo == 0)
                ns.neg = 0;
        }
        d.scale = per == 1000 ? 3 : per == 1000000 ? 6 : 9;
        int_literal(b, column, op, &d, &ns, 9);
    }
}

void upq_pred_timestamp(upq_pred_builder *b, uint32_t column, int op, int64_t sec, uint32_t nanos)
{
    const upq_column_desc *cd;
    if (!begin_literal(b, column, op))
        return;
    cd = &b->s->columns[column];
    if (nanos >= 1000000000u) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("nanoseconds above a second"));
        return;
    }
    if (UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIMESTAMP) && cd->physical_type == UPQ_TYPE_INT64 &&
        unit_per_second(cd)) {
        time_units(b, column, op, sec, nanos, unit_per_second(cd));
    } else if (UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_DATE)) {
        int64_t day = sec / 86400 - (sec % 86400 < 0);
        intdom d;
        sint v;
        place pl;
        v.neg = (uint8_t)(day < 0);
        v.m = u128_of(day < 0 ? (uint64_t)0 - (uint64_t)day : (uint64_t)day);
        if (!int_domain(cd, column_order(b, column), &d)) {
            fail(b, UPQ_ERR_INVAL, UPQ_MSG("a date for a column that does not hold dates"));
            return;
        }
        int_place(b, &d, &v, sec - day * 86400 == 0 && nanos == 0, &pl);
        emit(b, column, op, &pl);
    } else if (cd->physical_type == UPQ_TYPE_INT96) {
        int64_t day = sec / 86400 - (sec % 86400 < 0);
        uint64_t nod = (uint64_t)(sec - day * 86400) * 1000000000u + nanos;
        uint32_t jd = (uint32_t)(day + 2440588);
        upq_value v;
        int k;
        upq_memset(&v, 0, sizeof v);
        for (k = 0; k < 8; k++)
            v.i96.b[k] = (uint8_t)(nod >> (8 * k));
        for (k = 0; k < 4; k++)
            v.i96.b[8 + k] = (uint8_t)(jd >> (8 * k));
        upq_pred_value(b, column, op, &v);
    } else {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a timestamp for a column that is not a date or timestamp"));
    }
}

void upq_pred_time(upq_pred_builder *b, uint32_t column, int op, int64_t nanos)
{
    const upq_column_desc *cd;
    int64_t per;
    if (!begin_literal(b, column, op))
        return;
    cd = &b->s->columns[column];
    per = unit_per_second(cd);
    if (!UPQ_ISSET(cd->logical, UPQ_LOGICAL_TYPE_TIME) || !per) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a time of day for a column that is not a TIME"));
        return;
    }
    {
        int64_t s = nanos / 1000000000 - (nanos % 1000000000 < 0);
        time_units(b, column, op, s, (uint32_t)(nanos - s * 1000000000), per);
    }
}

void upq_pred_null(upq_pred_builder *b, uint32_t column, int op)
{
    if (!begin_literal(b, column, op))
        return;
    if (op == UPQ_PRED_IN)
        b->in_null = 1;
    else if (op == UPQ_PRED_DISTINCT || op == UPQ_PRED_NOT_DISTINCT)
        node(b, op == UPQ_PRED_DISTINCT ? UPQ_PRED_IS_NOT_NULL : UPQ_PRED_IS_NULL, column, 0,
             (const upq_value *)0);
    else
        node(b, UPQ_PRED_CONST, UPQ_NONE, UPQ_PRED_NULL, (const upq_value *)0);
}

/* ---- the rest ------------------------------------------------------------------------- */

void upq_pred_begin(upq_pred_builder *b, const upq_schema *s, upq_pred_node *nodes,
                    uint32_t ncap, upq_value *values, uint32_t vcap, void *bytes, size_t bcap)
{
    upq_memset(b, 0, sizeof *b);
    b->s = s;
    b->nodes = nodes;
    b->ncap = nodes ? ncap : 0;
    b->values = values;
    b->vcap = values ? vcap : 0;
    b->bytes = (uint8_t *)bytes;
    b->bcap = bytes ? bcap : 0;
    b->in_node = UPQ_NONE;
    if (!s)
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("no schema"));
}

upq_status upq_pred_end(upq_pred_builder *b, upq_pred *p)
{
    const char *what = "";
    uint32_t bad = 0;
    upq_memset(p, 0, sizeof *p);
    ready(b, UPQ_NONE, 0);
    if (b->st != UPQ_OK)
        return b->st;
    p->nodes = b->nodes;
    p->n = b->nn;
    if (upq_pred_check(b->s, p, &what, &bad) != UPQ_OK) {
        b->st = UPQ_ERR_INVAL;
        b->what = what;
        b->node = bad;
        upq_memset(p, 0, sizeof *p);
        return b->st;
    }
    return UPQ_OK;
}

void upq_pred_is_null(upq_pred_builder *b, uint32_t column, int is_not)
{
    if (ready(b, column, 0))
        node(b, is_not ? UPQ_PRED_IS_NOT_NULL : UPQ_PRED_IS_NULL, column, 0, (const upq_value *)0);
}

void upq_pred_like(upq_pred_builder *b, uint32_t column, const void *pattern, size_t len,
                   int escape)
{
    upq_value *v, *e = (upq_value *)0;
    if (!ready(b, column, 0))
        return;
    if (column_order(b, column) != UPQ_STAT_ORDER_BYTES || len > 0xFFFFFFFFu) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("LIKE on a column that is not a string or binary"));
        return;
    }
    v = slot(b);
    if (v && escape >= 0 && escape <= 255 && (e = slot(b)) != (upq_value *)0) {
        uint8_t *p = room(b, 1);
        if (p) {
            *p = (uint8_t)escape;
            e->bytes.ptr = p;
            e->bytes.len = 1;
        }
    }
    if (!v)
        return;
    v->bytes.ptr = len ? (const uint8_t *)pattern : (const uint8_t *)"";
    v->bytes.len = (uint32_t)len;
    node(b, UPQ_PRED_LIKE, column, e ? 2u : 1u, v);
}

void upq_pred_in_begin(upq_pred_builder *b, uint32_t column, int is_not, int as_double)
{
    if (!ready(b, column, 0))
        return;
    b->in_node = column;
    b->in_not = (uint8_t)(is_not != 0);
    b->in_null = 0;
    b->in_cast = 0;
    if (as_double) {
        int order = column_order(b, column);
        b->in_cast = (uint8_t)(order == UPQ_STAT_ORDER_I32 || order == UPQ_STAT_ORDER_U32 ||
                               order == UPQ_STAT_ORDER_I64 || order == UPQ_STAT_ORDER_U64 ||
                               order == UPQ_STAT_ORDER_DECIMAL);
    }
    b->node = b->nv; /* the members' first value, until the list ends */
}

void upq_pred_in_end(upq_pred_builder *b)
{
    uint32_t column = b->in_node, first = b->node, n;
    if (b->st != UPQ_OK)
        return;
    if (column == UPQ_NONE) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("the end of an IN list that did not begin"));
        return;
    }
    b->in_node = UPQ_NONE;
    b->node = 0;
    n = b->nv - first;
    if (n == 0 && b->in_null) {
        node(b, UPQ_PRED_CONST, UPQ_NONE, UPQ_PRED_NULL, (const upq_value *)0);
        return;
    }
    if (n == 0) {
        if (b->in_not)
            always(b, column);
        else
            never(b, column);
        return;
    }
    if (!b->in_null) {
        node(b, b->in_not ? UPQ_PRED_NOT_IN : UPQ_PRED_IN, column, n, &b->values[first]);
        if (b->in_cast)
            cast_last(b);
        return;
    }
    /* x IN (..., NULL): a miss is NULL, not FALSE */
    node(b, UPQ_PRED_IN, column, n, &b->values[first]);
    if (b->in_cast)
        cast_last(b);
    node(b, UPQ_PRED_CONST, UPQ_NONE, UPQ_PRED_NULL, (const upq_value *)0);
    node(b, UPQ_PRED_OR, UPQ_NONE, 0, (const upq_value *)0);
    if (b->in_not)
        node(b, UPQ_PRED_NOT, UPQ_NONE, 0, (const upq_value *)0);
}

void upq_pred_and(upq_pred_builder *b)
{
    if (ready(b, UPQ_NONE, 0))
        node(b, UPQ_PRED_AND, UPQ_NONE, 0, (const upq_value *)0);
}

void upq_pred_or(upq_pred_builder *b)
{
    if (ready(b, UPQ_NONE, 0))
        node(b, UPQ_PRED_OR, UPQ_NONE, 0, (const upq_value *)0);
}

void upq_pred_not(upq_pred_builder *b)
{
    if (ready(b, UPQ_NONE, 0))
        node(b, UPQ_PRED_NOT, UPQ_NONE, 0, (const upq_value *)0);
}

void upq_pred_const(upq_pred_builder *b, int v)
{
    if (!ready(b, UPQ_NONE, 0))
        return;
    if (v != UPQ_PRED_TRUE && v != UPQ_PRED_FALSE && v != UPQ_PRED_NULL) {
        fail(b, UPQ_ERR_INVAL, UPQ_MSG("a constant other than TRUE, FALSE or NULL"));
        return;
    }
    node(b, UPQ_PRED_CONST, UPQ_NONE, (uint32_t)v, (const upq_value *)0);
}

#endif /* UPQ_WITH_PREDICATE */
