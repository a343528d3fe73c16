/*
 * Statistics: min/max in the order the column's logical type defines (the
 * TYPE_ORDER rules of parquet.thrift's ColumnOrder), NaN counting for
 * floating point, and truncation of long binary bounds.
 */
#include "stats.h"
#include "upq_port.h"
#include "upq_simd.h"
#include "upq_kernels.h"

/* The order and the compare serve the reader's statistics too
 * (stats_read.c); the rest is the writer's. */

int upq_stats_order(int32_t physical_type, const upq_logical_type *lt, int32_t converted)
{
    int t = physical_type;
    int k = lt ? upq_logical_type_kind(lt) : 0;
    int binary = t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
    switch (k) {
    case UPQ_LOGICAL_TYPE_INTEGER:
        if (!lt->u.integer.is_signed)
            return t == UPQ_TYPE_INT32 ? UPQ_SO_U32 : t == UPQ_TYPE_INT64 ? UPQ_SO_U64 : UPQ_SO_NONE;
        break;
    case UPQ_LOGICAL_TYPE_DECIMAL:
        if (binary)
            return UPQ_SO_DECIMAL;
        break;
    case UPQ_LOGICAL_TYPE_FLOAT16:
        return t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? UPQ_SO_F16 : UPQ_SO_NONE;
    case UPQ_LOGICAL_TYPE_VARIANT:
    case UPQ_LOGICAL_TYPE_GEOMETRY:
    case UPQ_LOGICAL_TYPE_GEOGRAPHY: return UPQ_SO_NONE;
    case 0:
        /* legacy annotations only */
        if (converted >= UPQ_CONVERTED_UINT_8 && converted <= UPQ_CONVERTED_UINT_64)
            return t == UPQ_TYPE_INT32 ? UPQ_SO_U32 : t == UPQ_TYPE_INT64 ? UPQ_SO_U64 : UPQ_SO_NONE;
        if (converted == UPQ_CONVERTED_DECIMAL && binary)
            return UPQ_SO_DECIMAL;
        if (converted == UPQ_CONVERTED_INTERVAL)
            return UPQ_SO_NONE; /* its order is undefined */
        break;
    default: break;
    }
    switch (t) {
    case UPQ_TYPE_BOOLEAN: return UPQ_SO_BOOL;
    case UPQ_TYPE_INT32: return UPQ_SO_I32;
    case UPQ_TYPE_INT64: return UPQ_SO_I64;
    case UPQ_TYPE_FLOAT: return UPQ_SO_F32;
    case UPQ_TYPE_DOUBLE: return UPQ_SO_F64;
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return UPQ_SO_BYTES;
    default: return UPQ_SO_NONE; /* INT96 */
    }
}

uint32_t upq_stats_cap(int order, int32_t physical_type, int32_t type_length,
                       uint32_t max_binary)
{
    switch (order) {
    case UPQ_SO_BOOL: return 1;
    case UPQ_SO_I32:
    case UPQ_SO_U32:
    case UPQ_SO_F32:
    case UPQ_SO_F32T: return 4;
    case UPQ_SO_I64:
    case UPQ_SO_U64:
    case UPQ_SO_F64:
    case UPQ_SO_F64T: return 8;
    case UPQ_SO_F16:
    case UPQ_SO_F16T: return type_length == 2 ? 2 : 0;
    case UPQ_SO_BYTES:
    case UPQ_SO_DECIMAL:
        if (physical_type == UPQ_TYPE_BYTE_ARRAY)
            return max_binary;
        /* a shortened FIXED_LEN_BYTE_ARRAY bound would not be of the type */
        return type_length > 0 && (uint32_t)type_length <= max_binary ? (uint32_t)type_length : 0;
    default: return 0;
    }
}

size_t upq_plain_value(int32_t physical_type, const void *val, uint8_t buf[12], const uint8_t **p)
{
    uint64_t x = 0;
    size_t n, i;
    *p = buf;
    switch (physical_type) {
    case UPQ_TYPE_BOOLEAN: buf[0] = *(const uint8_t *)val ? 1 : 0; return 1;
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: {
        uint32_t y;
        upq_memcpy(&y, val, 4);
        x = y;
        n = 4;
        break;
    }
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: upq_memcpy(&x, val, 8); n = 8; break;
    case UPQ_TYPE_INT96: *p = ((const upq_int96 *)val)->b; return 12;
    default: return 0;
    }
    for (i = 0; i < n; i++) /* little-endian whatever the target's order */
        buf[i] = (uint8_t)(x >> (8u * i));
    return n;
}

#if UPQ_WITH_WRITER
/* An IEEE value of `w` bytes (2: FLOAT16 as stored, 4 and 8: the staged
 * float and double) as bits. */
static uint64_t ieee_bits(const uint8_t *vals, size_t i, size_t w)
{
    if (w == 2)
        return upq_load_le16(vals + 2 * i);
    if (w == 4)
        return upq_f32_bits(((const float *)(const void *)vals)[i]);
    return upq_f64_bits(((const double *)(const void *)vals)[i]);
}
#endif

/* Its order as an integer, -0 and +0 equal like a float compare: exact, and
 * no software float compare on targets without a double (or any) FPU. */
static int64_t ieee_key(uint64_t u, size_t w)
{
    uint64_t sign = (uint64_t)1 << (8u * w - 1u);
    int64_t mag = (int64_t)(u & (sign - 1u));
    return (u & sign) ? -mag : mag;
}

/* The IEEE 754 totalOrder as an integer: -0 below +0, NaNs beyond the
 * infinities on their sign's side (ordered by payload). */
static int64_t ieee_tkey(uint64_t u, size_t w)
{
    uint64_t sign = (uint64_t)1 << (8u * w - 1u);
    int64_t mag = (int64_t)(u & (sign - 1u));
    return (u & sign) ? -mag - 1 : mag;
}

#if UPQ_WITH_WRITER /* the writer's total-order bounds alone */
static int ieee_is_nan(uint64_t u, size_t w)
{
    uint64_t inf = w == 2 ? 0x7C00u : w == 4 ? 0x7F800000u : 0x7FF0000000000000u;
    return (u & ((((uint64_t)1 << (8u * w - 1u))) - 1u)) > inf;
}
#endif

static uint64_t ieee_load(const uint8_t *p, size_t w)
{
    return w == 2 ? upq_load_le16(p) : w == 4 ? upq_load_le32(p) : upq_load_le64(p);
}

static size_t total_width(int order)
{
    return order == UPQ_SO_F16T ? 2u : order == UPQ_SO_F32T ? 4u : order == UPQ_SO_F64T ? 8u : 0u;
}

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? upq_memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}

int upq_stats_be_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int na = alen && (a[0] & 0x80u), nb = blen && (b[0] & 0x80u);
    size_t n = alen > blen ? alen : blen, i;
    if (na != nb)
        return na ? -1 : 1;
    for (i = 0; i < n; i++) {
        unsigned x = i + alen >= n ? a[i + alen - n] : (na ? 0xFFu : 0u);
        unsigned y = i + blen >= n ? b[i + blen - n] : (nb ? 0xFFu : 0u);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y))

int upq_stats_cmp(int order, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    switch (order) {
    case UPQ_SO_BOOL: return CMP3(a[0] != 0, b[0] != 0);
    case UPQ_SO_I32: return CMP3((int32_t)upq_load_le32(a), (int32_t)upq_load_le32(b));
    case UPQ_SO_U32: return CMP3(upq_load_le32(a), upq_load_le32(b));
    case UPQ_SO_I64: return CMP3((int64_t)upq_load_le64(a), (int64_t)upq_load_le64(b));
    case UPQ_SO_U64: return CMP3(upq_load_le64(a), upq_load_le64(b));
    case UPQ_SO_F32: {
        float x = upq_f32_from_bits(upq_load_le32(a)), y = upq_f32_from_bits(upq_load_le32(b));
        return CMP3(x, y);
    }
    case UPQ_SO_F64: return CMP3(ieee_key(upq_load_le64(a), 8), ieee_key(upq_load_le64(b), 8));
    case UPQ_SO_F16: return CMP3(ieee_key(upq_load_le16(a), 2), ieee_key(upq_load_le16(b), 2));
    case UPQ_SO_DECIMAL: return upq_stats_be_cmp(a, alen, b, blen);
    case UPQ_SO_F32T:
    case UPQ_SO_F64T:
    case UPQ_SO_F16T: {
        size_t w = total_width(order);
        return CMP3(ieee_tkey(ieee_load(a, w), w), ieee_tkey(ieee_load(b, w), w));
    }
    default: return bytes_cmp(a, alen, b, blen);
    }
}

#if UPQ_WITH_WRITER

void upq_minmax_reset(upq_minmax *m)
{
    m->min_len = m->max_len = 0;
    m->has = 0;
    m->min_ok = m->max_ok = 0;
    m->min_exact = m->max_exact = 0;
}

/* A bound of len bytes at p kept whole in buf (m->cap bytes) when it
 * fits: 1 then, and its length in *buf_len. */
static uint8_t keep_whole(const upq_minmax *m, uint8_t *buf, uint32_t *buf_len, const uint8_t *p,
                          size_t len)
{
    if (len > m->cap)
        return 0;
    if (len)
        upq_memcpy(buf, p, len);
    *buf_len = (uint32_t)len;
    return 1;
}

static void set_min(upq_minmax *m, int order, const uint8_t *p, size_t len)
{
    m->min_ok = m->min_exact = keep_whole(m, m->min, &m->min_len, p, len);
    if (!m->min_ok && order == UPQ_SO_BYTES && m->cap > 0) {
        upq_memcpy(m->min, p, m->cap); /* a prefix sorts first */
        m->min_len = m->cap;
        m->min_ok = 1;
    }
}

static void set_max(upq_minmax *m, int order, const uint8_t *p, size_t len)
{
    m->max_ok = m->max_exact = keep_whole(m, m->max, &m->max_len, p, len);
    if (!m->max_ok && order == UPQ_SO_BYTES && m->cap > 0) {
        /* the shortest prefix that sorts after every value starting with
         * the kept bytes: drop trailing 0xFF bytes, increment the last */
        uint32_t k = m->cap;
        while (k > 0 && p[k - 1] == 0xFFu)
            k--;
        if (k == 0)
            return; /* only 0xFF bytes: no shorter upper bound exists */
        upq_memcpy(m->max, p, k);
        m->max[k - 1]++;
        m->max_len = k;
        m->max_ok = 1;
    }
}

/* Fixed-width bounds found as native values: store them PLAIN. */
static void set_fixed(upq_minmax *m, const uint8_t *lo, const uint8_t *hi, size_t w)
{
    if (m->cap < w)
        return;
    upq_memcpy(m->min, lo, w);
    upq_memcpy(m->max, hi, w);
    m->min_len = m->max_len = (uint32_t)w;
    m->min_ok = m->max_ok = m->min_exact = m->max_exact = 1;
}

static void page_ints(upq_minmax *m, int order, const uint8_t *vals, size_t n)
{
    uint8_t lo[8], hi[8];
    if (order == UPQ_SO_I32 || order == UPQ_SO_U32) {
        upq_minmax32 r;
        UPQ_K(minmax_i32)((const int32_t *)(const void *)vals, n, &r);
        upq_store_le32(lo, order == UPQ_SO_I32 ? (uint32_t)r.smin : r.umin);
        upq_store_le32(hi, order == UPQ_SO_I32 ? (uint32_t)r.smax : r.umax);
        set_fixed(m, lo, hi, 4);
    } else {
        upq_minmax64 r;
        UPQ_K(minmax_i64)((const int64_t *)(const void *)vals, n, &r);
        upq_store_le64(lo, order == UPQ_SO_I64 ? (uint64_t)r.smin : r.umin);
        upq_store_le64(hi, order == UPQ_SO_I64 ? (uint64_t)r.smax : r.umax);
        set_fixed(m, lo, hi, 8);
    }
}

/* NaN takes no part in min/max; a zero bound is written as -0.0 (min) or
 * +0.0 (max), so readers comparing bits cannot miss either zero. */
/* Total order: the bounds of the values that are not NaN; of the NaNs when
 * there is nothing else. */
static void page_ieee_total(upq_minmax *m, const uint8_t *vals, size_t n, size_t w, int64_t *nans)
{
    uint64_t mn = 0, mx = 0, nmn = 0, nmx = 0;
    uint8_t lo[8], hi[8];
    size_t i;
    int seen = 0, nseen = 0;
    for (i = 0; i < n; i++) {
        uint64_t u = ieee_bits(vals, i, w);
        int64_t k = ieee_tkey(u, w);
        if (ieee_is_nan(u, w)) {
            (*nans)++;
            if (!nseen || k < ieee_tkey(nmn, w)) nmn = u;
            if (!nseen || k > ieee_tkey(nmx, w)) nmx = u;
            nseen = 1;
            continue;
        }
        if (!seen || k < ieee_tkey(mn, w)) mn = u;
        if (!seen || k > ieee_tkey(mx, w)) mx = u;
        seen = 1;
    }
    if (!seen && !nseen)
        return;
    if (!seen) {
        mn = nmn;
        mx = nmx;
    }
    for (i = 0; i < w; i++) {
        lo[i] = (uint8_t)(mn >> (8u * i));
        hi[i] = (uint8_t)(mx >> (8u * i));
    }
    m->has = 1;
    set_fixed(m, lo, hi, w);
}

/* FLOAT bounds from the least and the greatest order key of a page
 * (UPQ_F32_KEY, which is its own inverse): 1 when no key is a NaN's, and
 * *mn, *mx get the bounds' bits; 0 when the page has NaNs (they sort
 * beyond the infinities). */
UPQ_INLINE int f32_keys_bounds(int32_t kmn, int32_t kmx, uint64_t *mn, uint64_t *mx)
{
    if (kmx > 0x7F800000 || kmn < -0x7F800001)
        return 0;
    *mn = (uint32_t)UPQ_F32_KEY((uint32_t)kmn);
    *mx = (uint32_t)UPQ_F32_KEY((uint32_t)kmx);
    return 1;
}

static void page_ieee(upq_minmax *m, const uint8_t *vals, size_t n, size_t w, int64_t *nans)
{
    /* exponent all ones: the largest magnitude that is not NaN (infinity) */
    uint64_t inf = w == 2 ? 0x7C00u : w == 4 ? 0x7F800000u : 0x7FF0000000000000u;
    uint64_t sign = (uint64_t)1 << (8u * w - 1u), mn = 0, mx = 0;
    uint8_t lo[8], hi[8];
    size_t i;
    int seen = 0;
#if UPQ_WITH_NEON
    if (w == 4) {
        float fmn = 0, fmx = 0;
        size_t k = UPQ_K(minmax_f32)((const float *)(const void *)vals, n, &fmn, &fmx);
        *nans += (int64_t)k;
        seen = k < n;
        mn = upq_f32_bits(fmn);
        mx = upq_f32_bits(fmx);
        n = 0;
    }
#endif
    if (w == 4 && n) {
        /* FLOAT in 32-bit words (the 64-bit keys below are calls or
         * register pairs on 32-bit cores, and loggers' pages are mostly
         * FLOAT), without looking for NaNs: a value's bits as a signed key
         * that orders as the values do (negative ones with their magnitude
         * bits flipped), a compare and a select each for the bounds. NaNs
         * sort beyond the infinities, so a page that has one shows it in
         * its bounds and is walked again below. Zeros' two keys differ
         * here, which the zeros rule after the walk makes the same. */
        int32_t kmn = INT32_MAX, kmx = INT32_MIN;
        for (i = 0; i < n; i++) {
            int32_t s = (int32_t)upq_f32_bits(((const float *)(const void *)vals)[i]);
            int32_t k = s ^ (int32_t)((uint32_t)(s >> 31) >> 1);
            kmn = k < kmn ? k : kmn;
            kmx = k > kmx ? k : kmx;
        }
        if (f32_keys_bounds(kmn, kmx, &mn, &mx)) {
            seen = 1;
            n = 0;
        }
    }
    for (i = 0; i < n; i++) {
        uint64_t u = ieee_bits(vals, i, w);
        if ((u & (sign - 1u)) > inf) {
            (*nans)++;
            continue;
        }
        if (!seen || ieee_key(u, w) < ieee_key(mn, w)) mn = u;
        if (!seen || ieee_key(u, w) > ieee_key(mx, w)) mx = u;
        seen = 1;
    }
    if (!seen)
        return;
    if (ieee_key(mn, w) == 0)
        mn = sign;
    if (ieee_key(mx, w) == 0)
        mx = 0;
    for (i = 0; i < w; i++) {
        lo[i] = (uint8_t)(mn >> (8u * i));
        hi[i] = (uint8_t)(mx >> (8u * i));
    }
    m->has = 1;
    set_fixed(m, lo, hi, w);
}

#if UPQ_FAST_KERNELS
void upq_minmax_f32_keys(upq_minmax *m, int32_t kmn, int32_t kmx, const uint8_t *vals, size_t n,
                         int64_t *nans)
{
    uint64_t mn = 0, mx = 0;
    uint8_t lo[4], hi[4];
    upq_minmax_reset(m);
    if (n == 0)
        return;
    if (!f32_keys_bounds(kmn, kmx, &mn, &mx)) {
        page_ieee(m, vals, n, 4, nans); /* NaNs: the walk that counts them */
        return;
    }
    /* the zeros rule of page_ieee: a zero bound is -0.0 (min), +0.0 (max) */
    if ((mn & 0x7FFFFFFFu) == 0)
        mn = 0x80000000u;
    if ((mx & 0x7FFFFFFFu) == 0)
        mx = 0;
    upq_store_le32(lo, (uint32_t)mn);
    upq_store_le32(hi, (uint32_t)mx);
    m->has = 1;
    set_fixed(m, lo, hi, 4);
}
#endif

/* The least and the greatest of byte values met so far, where they lie. */
typedef struct extremes {
    const uint8_t *lo, *hi;
    size_t lo_len, hi_len;
} extremes;

static void extremes_init(extremes *x)
{
    /* field by field: gcc makes a struct initializer a memset call */
    x->lo = x->hi = (const uint8_t *)0;
    x->lo_len = x->hi_len = 0;
}

/* One compare where one decides: a value not above the least is not above
 * the greatest, and while both are one value (a page of one value repeated,
 * as a logger's device name) the compare with it says both. */
static void extremes_take(extremes *x, int order, const uint8_t *p, size_t len)
{
    int c;
    if (!x->lo) {
        x->lo = x->hi = p;
        x->lo_len = x->hi_len = len;
        return;
    }
    c = upq_stats_cmp(order, p, len, x->lo, x->lo_len);
    if (c < 0) {
        x->lo = p;
        x->lo_len = len;
    } else if (c > 0 && (x->lo == x->hi || upq_stats_cmp(order, p, len, x->hi, x->hi_len) > 0)) {
        x->hi = p;
        x->hi_len = len;
    }
}

/* Stores them, when there were any. */
static void extremes_set(upq_minmax *m, int order, const extremes *x)
{
    if (!x->lo)
        return;
    m->has = 1;
    set_min(m, order, x->lo, x->lo_len);
    set_max(m, order, x->hi, x->hi_len);
}

void upq_minmax_page(upq_minmax *m, int order, int32_t physical_type, int32_t type_length,
                     const uint8_t *vals, size_t n, size_t bytes, int64_t *nans)
{
    size_t i;
    upq_minmax_reset(m);
    if (n == 0 || order == UPQ_SO_NONE)
        return;
    switch (order) {
    case UPQ_SO_BOOL: {
        uint8_t lo = 1, hi = 0;
        for (i = 0; i < n; i++) {
            uint8_t b = vals[i] != 0;
            if (b < lo) lo = b;
            if (b > hi) hi = b;
        }
        m->has = 1;
        set_fixed(m, &lo, &hi, 1);
        return;
    }
    case UPQ_SO_I32:
    case UPQ_SO_U32:
    case UPQ_SO_I64:
    case UPQ_SO_U64:
        m->has = 1;
        page_ints(m, order, vals, n);
        return;
    case UPQ_SO_F32: page_ieee(m, vals, n, 4, nans); return;
    case UPQ_SO_F64: page_ieee(m, vals, n, 8, nans); return;
    case UPQ_SO_F32T: page_ieee_total(m, vals, n, 4, nans); return;
    case UPQ_SO_F64T: page_ieee_total(m, vals, n, 8, nans); return;
    case UPQ_SO_F16:
    case UPQ_SO_F16T:
        if (physical_type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY || type_length != 2)
            return;
        if (order == UPQ_SO_F16)
            page_ieee(m, vals, n, 2, nans);
        else
            page_ieee_total(m, vals, n, 2, nans);
        return;
    default: break;
    }
    /* binary orders: find the extremes in place, then store them */
    {
        extremes x;
        size_t pos = 0;
        extremes_init(&x);
        for (i = 0; i < n; i++) {
            const uint8_t *p;
            size_t len;
            if (physical_type == UPQ_TYPE_BYTE_ARRAY) {
                if (bytes - pos < 4)
                    break;
                len = upq_load_le32(vals + pos);
                p = vals + pos + 4;
                if (len > bytes - pos - 4)
                    break;
                pos += 4 + len;
            } else {
                len = (size_t)type_length;
                p = vals + i * len;
            }
            extremes_take(&x, order, p, len);
        }
        extremes_set(m, order, &x);
    }
}

void upq_minmax_entries(upq_minmax *m, const uint8_t *dict, const uint32_t *off,
                        const uint16_t *used, uint32_t nent)
{
    extremes x;
    uint32_t k;
    upq_minmax_reset(m);
    extremes_init(&x);
    for (k = 0; k < (nent + 15u) / 16u; k++) {
        uint32_t bits = used[k];
        while (bits) {
            uint32_t e = k * 16u + upq_ctz32(bits);
            const uint8_t *p = dict + off[e] + 4;
            size_t len = upq_load_le32(dict + off[e]);
            bits &= bits - 1u;
            extremes_take(&x, UPQ_SO_BYTES, p, len);
        }
    }
    extremes_set(m, UPQ_SO_BYTES, &x);
}

static void copy_min(upq_minmax *dst, const upq_minmax *src)
{
    if (src->min_len)
        upq_memcpy(dst->min, src->min, src->min_len);
    dst->min_len = src->min_len;
    dst->min_ok = src->min_ok;
    dst->min_exact = src->min_exact;
}

static void copy_max(upq_minmax *dst, const upq_minmax *src)
{
    if (src->max_len)
        upq_memcpy(dst->max, src->max, src->max_len);
    dst->max_len = src->max_len;
    dst->max_ok = src->max_ok;
    dst->max_exact = src->max_exact;
}

void upq_minmax_copy(upq_minmax *dst, const upq_minmax *src)
{
    dst->has = src->has;
    copy_min(dst, src);
    copy_max(dst, src);
}

void upq_minmax_merge(upq_minmax *dst, const upq_minmax *src, int order)
{
    int c;
    if (!src->has)
        return;
    if (!dst->has) {
        upq_minmax_copy(dst, src);
        return;
    }
    if (total_width(order)) {
        /* NaN bounds stand for a scope of NaNs only: numbers replace them */
        size_t w = total_width(order);
        int dn = ieee_is_nan(ieee_load(dst->min, w), w), sn = ieee_is_nan(ieee_load(src->min, w), w);
        if (dn && !sn) {
            upq_minmax_copy(dst, src);
            return;
        }
        if (sn && !dn)
            return;
    }
    /* an unknown bound on either side leaves the chunk's unknown */
    if (!dst->min_ok || !src->min_ok) {
        dst->min_ok = 0;
    } else {
        c = upq_stats_cmp(order, src->min, src->min_len, dst->min, dst->min_len);
        if (c < 0)
            copy_min(dst, src);
        else if (c == 0 && src->min_len == dst->min_len)
            dst->min_exact |= src->min_exact; /* a real value equals the bound */
    }
    if (!dst->max_ok || !src->max_ok) {
        dst->max_ok = 0;
    } else {
        c = upq_stats_cmp(order, src->max, src->max_len, dst->max, dst->max_len);
        if (c > 0)
            copy_max(dst, src);
        else if (c == 0 && src->max_len == dst->max_len)
            dst->max_exact |= src->max_exact;
    }
}

#endif /* UPQ_WITH_WRITER */
