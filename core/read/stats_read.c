/*
 * Statistics as a reader takes them: which order min/max follow, whether
 * they can be trusted, and their values by type.
 *
 * The rules, from parquet.thrift and the readers that met old files
 * (parquet-java's CorruptStatistics and metadata converter, Arrow C++'s
 * ApplicationVersion::HasCorrectStatistics):
 *   - min_value/max_value follow the column's ColumnOrder. A file without
 *     column_orders is taken to use the type's order (as parquet-java does);
 *     an order this reader does not know makes them unusable, unless min
 *     and max are the same bytes (then any order agrees).
 *   - The deprecated min/max were written in signed order: usable only when
 *     the type's order is signed, or min and max are the same bytes.
 *   - parquet-mr before 1.10.0 and parquet-cpp before 1.3.0 wrote signed
 *     bounds whatever the type (PARQUET-686); parquet-mr before 1.8.0 (or a
 *     file without created_by) wrote corrupt binary bounds (PARQUET-251).
 *   - Floats under TYPE_ORDER: a NaN bound is ignored, a +0 min may hide
 *     -0 values and a -0 max +0 values, so zeros are widened.
 *   - INT96 has no order under TYPE_ORDER; INT96_TIMESTAMP_ORDER orders it
 *     by day, then nanoseconds.
 */
#include "uparquet/stats.h"
#include "uparquet/reader.h"
#include "format/stats.h"
#include "upq_port.h"
#include "common/upq_internal.h"

int upq_stats_type_order(const upq_schema *s, uint32_t column)
{
    const upq_column_desc *c;
    if (!s || column >= s->num_columns)
        return UPQ_STAT_ORDER_NONE;
    c = &s->columns[column];
    return upq_stats_order(c->physical_type, &c->logical, c->converted_type);
}

static int is_float_order(int order)
{
    return order == UPQ_STAT_ORDER_F32 || order == UPQ_STAT_ORDER_F64 ||
           order == UPQ_STAT_ORDER_F16;
}

int upq_stats_column_order(const upq_file_metadata *m, const upq_schema *s, uint32_t column,
                           unsigned *flags, uint8_t *why)
{
    int order = upq_stats_type_order(s, column);
    uint8_t w = UPQ_STAT_OK;
    if (flags)
        *flags = 0;
    if (!s || column >= s->num_columns) {
        if (why)
            *why = UPQ_STAT_WHY_NO_ORDER;
        return UPQ_STAT_ORDER_NONE;
    }
    if (m && UPQ_ISSET(*m, UPQ_FILE_METADATA_COLUMN_ORDERS)) {
        const upq_column_order *co = column < m->column_orders.n ? &m->column_orders.v[column] : 0;
        uint32_t set = co ? co->isset : 0;
        int int96 = s->columns[column].physical_type == UPQ_TYPE_INT96;
        if (set == (1u << UPQ_COLUMN_ORDER_TYPE_ORDER)) {
            /* the type's own order */
        } else if (set == (1u << UPQ_COLUMN_ORDER_IEEE_754_TOTAL_ORDER) && is_float_order(order)) {
            if (flags)
                *flags = UPQ_STAT_TOTAL_ORDER;
        } else if (set == (1u << UPQ_COLUMN_ORDER_INT96_TIMESTAMP_ORDER) && int96) {
            order = UPQ_STAT_ORDER_INT96;
        } else {
            order = UPQ_STAT_ORDER_NONE;
            w = UPQ_STAT_WHY_COLUMN_ORDER;
        }
    }
    if (order == UPQ_STAT_ORDER_NONE && w == UPQ_STAT_OK)
        w = UPQ_STAT_WHY_NO_ORDER;
    if (why)
        *why = w;
    return order;
}

/* The bits of a binary float of mb mantissa and eb exponent bits (FLOAT:
 * 23 and 8, FLOAT16: 10 and 5) as the same value's double bits (exact,
 * integer only: no soft-float calls on targets without a double FPU). */
static uint64_t float_to_f64_bits(uint32_t u, unsigned mb, unsigned eb)
{
    uint32_t emax = (1u << eb) - 1u, e = (u >> mb) & emax, man = u & ((1u << mb) - 1u);
    uint64_t sign = (uint64_t)((u >> (mb + eb)) & 1u) << 63;
    int32_t ex = (int32_t)e - (int32_t)(emax >> 1) + 1023; /* rebiased */
    if (e == emax)
        return sign | (0x7FFull << 52) | ((uint64_t)man << (52u - mb));
    if (e == 0) {
        if (man == 0)
            return sign;
        ex++; /* a subnormal's exponent is the smallest normal one's */
        while (!(man & (1u << mb))) { /* normalise */
            man <<= 1;
            ex--;
        }
        man &= (1u << mb) - 1u;
    }
    return sign | ((uint64_t)ex << 52) | ((uint64_t)man << (52u - mb));
}

#define F64_SIGN ((uint64_t)1 << 63)
#define F64_EXP (0x7FFull << 52)

static int bits_nan(uint64_t b)
{
    return (b & F64_EXP) == F64_EXP && (b & ((1ull << 52) - 1u)) != 0;
}

upq_status upq_stats_decode_value(int order, int32_t type_length, const uint8_t *p, size_t len,
                                  unsigned flags, upq_stat_value *v)
{
    size_t want = 0;
    uint64_t bits = 0;
    upq_memset(v, 0, sizeof *v);
    v->exact = -1;
    switch (order) {
    case UPQ_STAT_ORDER_BOOL: want = 1; break;
    case UPQ_STAT_ORDER_I32:
    case UPQ_STAT_ORDER_U32:
    case UPQ_STAT_ORDER_F32: want = 4; break;
    case UPQ_STAT_ORDER_I64:
    case UPQ_STAT_ORDER_U64:
    case UPQ_STAT_ORDER_F64: want = 8; break;
    case UPQ_STAT_ORDER_F16: want = 2; break;
    case UPQ_STAT_ORDER_INT96: want = 12; break;
    case UPQ_STAT_ORDER_BYTES:
    case UPQ_STAT_ORDER_DECIMAL:
        /* a FIXED_LEN_BYTE_ARRAY bound is a whole value; a DECIMAL needs a byte */
        if ((type_length > 0 && len != (size_t)type_length) ||
            (order == UPQ_STAT_ORDER_DECIMAL && len == 0) || len > UINT32_MAX)
            return UPQ_ERR_CORRUPT;
        v->kind = order == UPQ_STAT_ORDER_BYTES ? UPQ_STAT_BYTES : UPQ_STAT_DECIMAL;
        v->ptr = p;
        v->len = (uint32_t)len;
        return UPQ_OK;
    default: return UPQ_ERR_UNSUPPORTED;
    }
    if (len != want || !p)
        return UPQ_ERR_CORRUPT;
    switch (order) {
    case UPQ_STAT_ORDER_BOOL:
        if (p[0] > 1)
            return UPQ_ERR_CORRUPT;
        v->kind = UPQ_STAT_BOOL;
        v->v.i = p[0];
        return UPQ_OK;
    case UPQ_STAT_ORDER_I32:
    case UPQ_STAT_ORDER_I64:
        v->kind = UPQ_STAT_INT;
        v->v.i = want == 4 ? (int32_t)upq_load_le32(p) : (int64_t)upq_load_le64(p);
        return UPQ_OK;
    case UPQ_STAT_ORDER_U32:
    case UPQ_STAT_ORDER_U64:
        v->kind = UPQ_STAT_UINT;
        v->v.u = want == 4 ? upq_load_le32(p) : upq_load_le64(p);
        return UPQ_OK;
    case UPQ_STAT_ORDER_INT96:
        v->kind = UPQ_STAT_INT96;
        v->ptr = p;
        v->len = 12;
        return UPQ_OK;
    case UPQ_STAT_ORDER_F32: bits = float_to_f64_bits(upq_load_le32(p), 23, 8); break;
    case UPQ_STAT_ORDER_F16: bits = float_to_f64_bits(upq_load_le16(p), 10, 5); break;
    default: bits = upq_load_le64(p); break;
    }
    /* a zero bound under TYPE_ORDER may stand for either zero */
    if (!(flags & UPQ_STAT_TOTAL_ORDER) && (bits & ~F64_SIGN) == 0) {
        if (flags & UPQ_STAT_AS_MIN)
            bits = F64_SIGN;
        else if (flags & UPQ_STAT_AS_MAX)
            bits = 0;
    }
    v->kind = UPQ_STAT_FLOAT;
    v->v.d = upq_f64_from_bits(bits);
    return UPQ_OK;
}

int upq_stat_is_nan(const upq_stat_value *v)
{
    return v->kind == UPQ_STAT_FLOAT && bits_nan(upq_f64_bits(v->v.d));
}

static int same_bytes(const upq_bytes *a, const upq_bytes *b)
{
    return a->len == b->len && (a->len == 0 || upq_memcmp(a->ptr, b->ptr, a->len) == 0);
}

/* Orders the deprecated min/max (signed comparison, as old writers made
 * them) agree with. */
static int signed_order(int order)
{
    return order == UPQ_STAT_ORDER_BOOL || order == UPQ_STAT_ORDER_I32 ||
           order == UPQ_STAT_ORDER_I64 || order == UPQ_STAT_ORDER_F32 ||
           order == UPQ_STAT_ORDER_F64;
}

/* Decodes one bound into *v; 0 when it bounds nothing (NaN) or is corrupt. */
static int take_bound(upq_column_stats *out, int order, int32_t type_length, const upq_bytes *b,
                      unsigned flags, upq_stat_value *v)
{
    if (upq_stats_decode_value(order, type_length, b->ptr, b->len, flags, v) != UPQ_OK) {
        out->why = UPQ_STAT_WHY_CORRUPT;
        v->kind = UPQ_STAT_NONE;
        return 0;
    }
    if (upq_stat_is_nan(v)) {
        v->kind = UPQ_STAT_NONE;
        return 0;
    }
    return 1;
}

/* The counts that are present. */
static void take_counts(const upq_statistics *st, upq_column_stats *out)
{
    if (UPQ_ISSET(*st, UPQ_STATISTICS_NULL_COUNT) && st->null_count >= 0) {
        out->has_null_count = 1;
        out->null_count = st->null_count;
    }
    if (UPQ_ISSET(*st, UPQ_STATISTICS_DISTINCT_COUNT) && st->distinct_count >= 0) {
        out->has_distinct_count = 1;
        out->distinct_count = st->distinct_count;
    }
    if (UPQ_ISSET(*st, UPQ_STATISTICS_NAN_COUNT) && st->nan_count >= 0) {
        out->has_nan_count = 1;
        out->nan_count = st->nan_count;
    }
}

/* The raw bounds: min_value/max_value, else the deprecated min/max. */
static void raw_bounds(const upq_statistics *st, upq_column_stats *out, const upq_bytes **lo,
                       const upq_bytes **hi)
{
    *lo = *hi = (const upq_bytes *)0;
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MIN_VALUE) || UPQ_ISSET(*st, UPQ_STATISTICS_MAX_VALUE)) {
        if (UPQ_ISSET(*st, UPQ_STATISTICS_MIN_VALUE))
            *lo = &st->min_value;
        if (UPQ_ISSET(*st, UPQ_STATISTICS_MAX_VALUE))
            *hi = &st->max_value;
        return;
    }
    out->deprecated = 1;
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MIN))
        *lo = &st->min;
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MAX))
        *hi = &st->max;
}

/* Why bounds in `order` from this file cannot be trusted (UPQ_STAT_OK:
 * they can): writers known to have written wrong ones. */
static uint8_t untrusted(const upq_file_metadata *m, const upq_column_stats *out, int order,
                         int binary, int same)
{
    if (!signed_order(order) && !same &&
        (out->deprecated || upq_created_by_older(m, "parquet-mr", 10, 1, 10, 0) ||
         upq_created_by_older(m, "parquet-cpp", 11, 1, 3, 0)))
        return out->deprecated ? UPQ_STAT_WHY_DEPRECATED : UPQ_STAT_WHY_WRITER;
    if (binary && out->deprecated &&
        (!UPQ_ISSET(*m, UPQ_FILE_METADATA_CREATED_BY) ||
         upq_created_by_older(m, "parquet-mr", 10, 1, 8, 0)))
        return UPQ_STAT_WHY_WRITER; /* PARQUET-251 */
    return UPQ_STAT_OK;
}

/* Decodes the bounds that are there, with their exactness. */
static void take_bounds(const upq_statistics *st, upq_column_stats *out, int order,
                        int32_t type_length, unsigned flags, const upq_bytes *lo,
                        const upq_bytes *hi)
{
    if (lo && take_bound(out, order, type_length, lo, flags | UPQ_STAT_AS_MIN, &out->min)) {
        out->has_min = 1;
        if (!out->deprecated && UPQ_ISSET(*st, UPQ_STATISTICS_IS_MIN_VALUE_EXACT))
            out->min.exact = (int8_t)(st->is_min_value_exact != 0);
    }
    if (hi && take_bound(out, order, type_length, hi, flags | UPQ_STAT_AS_MAX, &out->max)) {
        out->has_max = 1;
        if (!out->deprecated && UPQ_ISSET(*st, UPQ_STATISTICS_IS_MAX_VALUE_EXACT))
            out->max.exact = (int8_t)(st->is_max_value_exact != 0);
    }
    if (out->why == UPQ_STAT_WHY_CORRUPT) {
        /* one bound of the wrong size: the other is not trusted either */
        out->has_min = out->has_max = 0;
        out->min.kind = out->max.kind = UPQ_STAT_NONE;
    } else if (!out->has_min && !out->has_max) {
        out->why = UPQ_STAT_WHY_ABSENT; /* NaN bounds only */
    }
}

void upq_stats_decode(const upq_file_metadata *m, const upq_schema *s, uint32_t column,
                      const upq_statistics *st, upq_column_stats *out)
{
    const upq_bytes *lo, *hi;
    unsigned flags = 0;
    uint8_t why = UPQ_STAT_OK;
    int order, same;
    int32_t physical;

    upq_memset(out, 0, sizeof *out);
    out->min.exact = out->max.exact = -1;
    take_counts(st, out);
    if (!s || column >= s->num_columns) {
        out->why = UPQ_STAT_WHY_NO_ORDER;
        return;
    }
    physical = s->columns[column].physical_type;
    raw_bounds(st, out, &lo, &hi);
    same = lo && hi && same_bytes(lo, hi);
    order = upq_stats_column_order(m, s, column, &flags, &why);
    if (order == UPQ_STAT_ORDER_NONE && same && why == UPQ_STAT_WHY_COLUMN_ORDER)
        order = upq_stats_type_order(s, column); /* one value: every order agrees */
    out->order = (uint8_t)order;
    out->total_order = (flags & UPQ_STAT_TOTAL_ORDER) != 0;
    if (!lo && !hi) {
        out->why = UPQ_STAT_WHY_ABSENT;
        return;
    }
    if (order == UPQ_STAT_ORDER_NONE) {
        out->why = why ? why : UPQ_STAT_WHY_NO_ORDER;
        return;
    }
    out->why = untrusted(m, out, order,
                         physical == UPQ_TYPE_BYTE_ARRAY ||
                             physical == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY,
                         same);
    if (out->why != UPQ_STAT_OK)
        return;
    take_bounds(st, out, order,
                physical == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? s->columns[column].type_length : 0,
                flags, lo, hi);
}

upq_status upq_reader_column_stats(const upq_reader *r, uint32_t rg, uint32_t column,
                                   upq_column_stats *out)
{
    const upq_column_chunk *ch = upq_reader_chunk(r, rg, column);
    static const upq_statistics none;
    if (!ch) {
        upq_memset(out, 0, sizeof *out);
        out->why = UPQ_STAT_WHY_ABSENT;
        return UPQ_ERR_INVAL;
    }
    upq_stats_decode(&r->meta, &r->schema, column,
                     UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA) &&
                             UPQ_ISSET(ch->meta_data, UPQ_COLUMN_METADATA_STATISTICS)
                         ? &ch->meta_data.statistics
                         : &none,
                     out);
    return UPQ_OK;
}

/* ---- comparison ---------------------------------------------------------- */

/* A double's bits as an integer that orders like its value (-0 == +0). */
static int64_t f64_key(double d)
{
    uint64_t u = upq_f64_bits(d);
    int64_t mag = (int64_t)(u & ~F64_SIGN);
    return (u & F64_SIGN) ? -mag : mag;
}

/* An integer value as 9 big-endian two's complement bytes (room for
 * every uint64). */
static void int_be(const upq_stat_value *v, uint8_t out[9])
{
    uint64_t u = v->v.u;
    int i;
    out[0] = v->kind == UPQ_STAT_INT && v->v.i < 0 ? 0xFFu : 0u;
    for (i = 8; i >= 1; i--) {
        out[i] = (uint8_t)u;
        u >>= 8;
    }
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

static int is_numeric(int k)
{
    return k == UPQ_STAT_INT || k == UPQ_STAT_UINT || k == UPQ_STAT_DECIMAL;
}

int upq_stat_cmp(const upq_stat_value *a, const upq_stat_value *b, int *cmp)
{
    int ka = a->kind, kb = b->kind;
    *cmp = 0;
    if (is_numeric(ka) && is_numeric(kb)) {
        uint8_t ba[9], bb[9];
        const uint8_t *pa = a->ptr, *pb = b->ptr;
        size_t la = a->len, lb = b->len;
        if (ka == UPQ_STAT_INT && kb == UPQ_STAT_INT) {
            *cmp = CMP3(a->v.i, b->v.i);
            return 1;
        }
        if (ka == UPQ_STAT_UINT && kb == UPQ_STAT_UINT) {
            *cmp = CMP3(a->v.u, b->v.u);
            return 1;
        }
        if (ka != UPQ_STAT_DECIMAL) {
            int_be(a, ba);
            pa = ba;
            la = 9;
        }
        if (kb != UPQ_STAT_DECIMAL) {
            int_be(b, bb);
            pb = bb;
            lb = 9;
        }
        *cmp = upq_stats_be_cmp(pa, la, pb, lb);
        return 1;
    }
    if (ka != kb)
        return 0;
    switch (ka) {
    case UPQ_STAT_BOOL: *cmp = CMP3(a->v.i, b->v.i); return 1;
    case UPQ_STAT_FLOAT:
        if (upq_stat_is_nan(a) || upq_stat_is_nan(b))
            return 0;
        *cmp = CMP3(f64_key(a->v.d), f64_key(b->v.d));
        return 1;
    case UPQ_STAT_BYTES: {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = n ? upq_memcmp(a->ptr, b->ptr, n) : 0;
        *cmp = c ? (c < 0 ? -1 : 1) : CMP3(a->len, b->len);
        return 1;
    }
    case UPQ_STAT_INT96: {
        int64_t da = (int32_t)upq_load_le32(a->ptr + 8), db = (int32_t)upq_load_le32(b->ptr + 8);
        *cmp = da != db ? CMP3(da, db)
                        : CMP3((int64_t)upq_load_le64(a->ptr), (int64_t)upq_load_le64(b->ptr));
        return 1;
    }
    default: return 0;
    }
}

const char *upq_stat_order_name(int order)
{
    static const char *const names[] = {"NONE", "BOOL", "I32", "U32", "I64", "U64", "F32",
                                        "F64", "F16", "BYTES", "DECIMAL", "INT96"};
    return order >= 0 && (size_t)order < UPQ_COUNTOF(names) ? names[order] : "?";
}

const char *upq_stat_why_name(int why)
{
    static const char *const names[] = {"ok", "absent", "no order", "column order",
                                        "deprecated min/max", "writer", "corrupt"};
    return why >= 0 && (size_t)why < UPQ_COUNTOF(names) ? names[why] : "?";
}
