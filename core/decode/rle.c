/*
 * Levels and small integers: the RLE/bit-packing hybrid (levels, dictionary
 * indices, RLE booleans) and the deprecated MSB-first BIT_PACKED levels.
 */
#include "encoding.h"
#include "upq_simd.h"
#include "common/upq_internal.h"
#include "upq_port.h"

/* A bit width that cannot occur: an init call rejected the real one, and
 * every later call reports that again instead of decoding garbage. */
#define BAD_WIDTH 0xFFu

/* An init call's bit width, at most max, into *at: UPQ_OK, or BAD_WIDTH
 * there and UPQ_ERR_CORRUPT. */
static upq_status set_width(uint8_t *at, unsigned bit_width, unsigned max)
{
    *at = (uint8_t)(bit_width > max ? BAD_WIDTH : bit_width);
    return bit_width > max ? UPQ_ERR_CORRUPT : UPQ_OK;
}

/* Values unpacked per kernel call (see kernels.h). */
#define MAX_UNPACK 4096u

size_t upq_value_size(int32_t physical_type)
{
    switch (physical_type) {
    case UPQ_TYPE_BOOLEAN: return sizeof(uint8_t);
    case UPQ_TYPE_INT32: return sizeof(int32_t);
    case UPQ_TYPE_INT64: return sizeof(int64_t);
    case UPQ_TYPE_INT96: return sizeof(upq_int96);
    case UPQ_TYPE_FLOAT: return sizeof(float);
    case UPQ_TYPE_DOUBLE: return sizeof(double);
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return sizeof(upq_bytes);
    default: return 0;
    }
}

/* ---- RLE / bit-packing hybrid ------------------------------------------- */

upq_status upq_rle_init(upq_rle_dec *d, const uint8_t *p, size_t len, unsigned bit_width)
{
    d->p = p;
    d->end = len ? p + len : p;
    d->left = 0;
    d->value = 0;
    d->literal = 0;
    d->group_pos = 0;
    return set_width(&d->bit_width, bit_width, 32);
}

/* Reads the next run header (and an RLE run's value). */
static upq_status read_run(upq_rle_dec *d)
{
    const uint8_t *p = d->p;
    uint32_t h = 0;
    unsigned shift = 0;

    if (d->bit_width > 32)
        return UPQ_ERR_CORRUPT;
    /* ULEB128 of at most 5 bytes that fits 32 bits */
    for (;;) {
        uint8_t b;
        if (p == d->end)
            return UPQ_ERR_CORRUPT;
        b = *p++;
        if (shift == 28 && b > 0x0F)
            return UPQ_ERR_CORRUPT;
        h |= (uint32_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            break;
        shift += 7;
    }
    if (h & 1u) {
        uint32_t groups = h >> 1;
        /* a zero count would never make progress; the format caps runs at
         * 2^31 - 1 values */
        if (groups == 0 || groups > 0x0FFFFFFFu)
            return UPQ_ERR_CORRUPT;
        d->left = groups * 8u;
        d->literal = 1;
        d->group_pos = 0;
    } else {
        unsigned nbytes = (d->bit_width + 7u) / 8u, k;
        uint32_t v = 0;
        if ((h >> 1) == 0 || (size_t)(d->end - p) < nbytes)
            return UPQ_ERR_CORRUPT;
        for (k = 0; k < nbytes; k++)
            v |= (uint32_t)p[k] << (8u * k);
        p += nbytes;
        if (d->bit_width < 32 && (v >> d->bit_width) != 0)
            return UPQ_ERR_CORRUPT;
        d->left = h >> 1;
        d->value = v;
        d->literal = 0;
    }
    d->p = p;
    return UPQ_OK;
}

/* Checks that the next k values of the current bit-packed run are present
 * and moves past them; *at and *shift locate the first one for unpacking. */
static upq_status take_literal(upq_rle_dec *d, size_t k, const uint8_t **at, unsigned *shift)
{
    /* k * bw < 2^31 (k <= MAX_UNPACK, or bw 1 and k below a run's 2^31 - 8
     * values), group_pos < 8: every figure fits 32 bits, so no 64-bit
     * arithmetic on 32-bit targets */
    unsigned bw = d->bit_width;
    size_t first_bit = (size_t)d->group_pos * bw;
    size_t need = (first_bit + k * bw + 7u) / 8u;
    size_t pos = d->group_pos + k;

    if (need > (size_t)(d->end - d->p))
        return UPQ_ERR_CORRUPT; /* the needed bits of a cut-short run are missing */
    *at = d->p + first_bit / 8u;
    *shift = (unsigned)(first_bit % 8u);
    /* whole groups consumed lie inside the checked bytes */
    d->p += pos / 8u * bw;
    d->group_pos = (uint8_t)(pos % 8u);
    d->left -= (uint32_t)k;
    return UPQ_OK;
}

/* How many of the current run's values to take, at most max: *k, after
 * reading the next run's header when the current one is used up. */
UPQ_INLINE upq_status run_left(upq_rle_dec *d, size_t max, size_t *k)
{
    if (d->left == 0) {
        upq_status st = read_run(d);
        if (st != UPQ_OK)
            return st;
    }
    *k = d->left < max ? d->left : max;
    return UPQ_OK;
}

upq_status upq_rle_next(upq_rle_dec *d, uint32_t *buf, size_t buf_cap, size_t max, size_t *got,
                        int *is_run, uint32_t *run_value)
{
    size_t k;
    upq_status st;

    *got = 0;
    if (max == 0)
        return UPQ_OK;
    st = run_left(d, max, &k);
    if (st != UPQ_OK)
        return st;
    if (!d->literal) {
        d->left -= (uint32_t)k;
        *is_run = 1;
        *run_value = d->value;
    } else {
        const uint8_t *at;
        unsigned shift;
        if (k > buf_cap)
            k = buf_cap;
        if (k > MAX_UNPACK)
            k = MAX_UNPACK;
        st = take_literal(d, k, &at, &shift);
        if (st != UPQ_OK)
            return st;
        UPQ_UNPACK32(at, shift, buf, d->bit_width, k, (size_t)(d->end - at));
        *is_run = 0;
    }
    *got = k;
    return UPQ_OK;
}

/* n values of `size` bytes each (4, 2 or 1: a constant in each caller, so
 * each gets its own loop): runs filled, bit-packed values unpacked, straight
 * into a 32-bit out, else through tmp and narrowed. */
UPQ_INLINE upq_status rle_get(upq_rle_dec *d, void *out, size_t n, size_t size)
{
    uint32_t tmp[UPQ_UNPACK_STEP];
    while (n) {
        size_t k, i;
        int run;
        uint32_t v;
        upq_status st = size == 4 ? upq_rle_next(d, (uint32_t *)out, n, n, &k, &run, &v)
                                  : upq_rle_next(d, tmp, UPQ_COUNTOF(tmp), n, &k, &run, &v);
        if (st != UPQ_OK)
            return st;
        if (size == 4 && run)
            UPQ_K(fill_u32)((uint32_t *)out, v, k);
        else if (size == 2 && run)
            UPQ_K(fill_u16)((uint16_t *)out, (uint16_t)v, k);
        else if (size == 2)
            for (i = 0; i < k; i++)
                ((uint16_t *)out)[i] = (uint16_t)tmp[i];
        else if (size == 1 && out && run)
            UPQ_K(fill_u8)((uint8_t *)out, (uint8_t)v, k);
        else if (size == 1 && out)
            for (i = 0; i < k; i++)
                ((uint8_t *)out)[i] = (uint8_t)tmp[i];
        if (out)
            out = (uint8_t *)out + k * size;
        n -= k;
    }
    return UPQ_OK;
}

upq_status upq_rle_get32(upq_rle_dec *d, uint32_t *out, size_t n)
{
    return rle_get(d, out, n, 4);
}

upq_status upq_rle_get8(upq_rle_dec *d, uint8_t *out, size_t n)
{
    return rle_get(d, out, n, 1);
}

#if UPQ_UNALIGNED_WORDS && UPQ_NATIVE_LE
/* 1-bit levels, the definition levels of every flat optional column,
 * straight into 16-bit levels: four bits at a time through a table of the
 * four 16-bit lanes they make, instead of unpacking to 32 bits and
 * narrowing (about a quarter of reading an INT64 column with nulls). */
#define L4(e) ((uint64_t)((e) & 1u) | (uint64_t)(((e) >> 1) & 1u) << 16 | \
               (uint64_t)(((e) >> 2) & 1u) << 32 | (uint64_t)(((e) >> 3) & 1u) << 48)
static const uint64_t bits4_u16[16] = {L4(0u), L4(1u), L4(2u), L4(3u), L4(4u), L4(5u),
                                       L4(6u), L4(7u), L4(8u), L4(9u), L4(10u), L4(11u),
                                       L4(12u), L4(13u), L4(14u), L4(15u)};

/* n bits from bit `shift` of in[0], LSB first, as 0/1 levels */
static void unpack1_u16(const uint8_t *in, unsigned shift, uint16_t *out, size_t n)
{
    size_t i = 0;
    for (; i < n && shift; i++) {
        out[i] = (uint16_t)((*in >> shift) & 1u);
        if (++shift == 8u) {
            shift = 0;
            in++;
        }
    }
    for (; i + 8 <= n; i += 8, in++) {
        *(upq_u64_una *)(void *)(out + i) = bits4_u16[*in & 15u];
        *(upq_u64_una *)(void *)(out + i + 4) = bits4_u16[*in >> 4];
    }
    for (shift = 0; i < n; i++, shift++)
        out[i] = (uint16_t)((*in >> shift) & 1u);
}

static upq_status rle_get16_bw1(upq_rle_dec *d, uint16_t *out, size_t n)
{
    while (n) {
        const uint8_t *at;
        unsigned shift;
        size_t k;
        upq_status st;
        if (d->left == 0 && (st = read_run(d)) != UPQ_OK)
            return st;
        k = d->left < n ? d->left : n;
        if (d->literal) {
            st = take_literal(d, k, &at, &shift);
            if (st != UPQ_OK)
                return st;
            unpack1_u16(at, shift, out, k);
        } else {
            UPQ_K(fill_u16)(out, (uint16_t)d->value, k);
            d->left -= (uint32_t)k;
        }
        out += k;
        n -= k;
    }
    return UPQ_OK;
}
#define UPQ_RLE_BW1_U16 1
#else
#define UPQ_RLE_BW1_U16 0
#endif

upq_status upq_rle_get16(upq_rle_dec *d, uint16_t *out, size_t n)
{
    if (d->bit_width > 16 && d->bit_width <= 32)
        return UPQ_ERR_INVAL;
#if UPQ_RLE_BW1_U16
    if (d->bit_width == 1)
        return rle_get16_bw1(d, out, n);
#endif
    return rle_get(d, out, n, 2);
}

upq_status upq_rle_run_ahead(upq_rle_dec *d, uint32_t *left, uint32_t *value)
{
    if (d->left == 0) {
        upq_status st = read_run(d);
        if (st != UPQ_OK)
            return st;
    }
    *left = d->literal ? 0 : d->left;
    *value = d->value;
    return UPQ_OK;
}

upq_status upq_rle_skip(upq_rle_dec *d, size_t n)
{
    while (n) {
        size_t k;
        upq_status st;
        st = run_left(d, n, &k);
        if (st != UPQ_OK)
            return st;
        if (d->literal) {
            const uint8_t *at;
            unsigned shift;
            if (k > MAX_UNPACK)
                k = MAX_UNPACK; /* take_literal's bound */
            st = take_literal(d, k, &at, &shift);
            if (st != UPQ_OK)
                return st;
        } else {
            d->left -= (uint32_t)k;
        }
        n -= k;
    }
    return UPQ_OK;
}

/* ---- deprecated BIT_PACKED ---------------------------------------------- */

upq_status upq_bitpacked_init(upq_bitpacked_dec *d, const uint8_t *p, size_t len,
                              unsigned bit_width)
{
    d->p = p;
    d->len = len;
    d->bit_pos = 0;
    return set_width(&d->bit_width, bit_width, 16);
}

size_t upq_bitpacked_len(size_t n, unsigned bit_width)
{
    size_t whole = n / 8u; /* 8 values fill bit_width bytes exactly */
    if (bit_width && whole > SIZE_MAX / bit_width)
        return SIZE_MAX;
    whole *= bit_width;
    if (whole > SIZE_MAX - bit_width)
        return SIZE_MAX;
    return whole + ((n % 8u) * bit_width + 7u) / 8u;
}

/* Claims the bits of the next n values; *at and *shift locate the first. */
static upq_status bitpacked_take(upq_bitpacked_dec *d, size_t n, const uint8_t **at,
                                 unsigned *shift)
{
    uint64_t bits;
    if (d->bit_width > 16)
        return UPQ_ERR_CORRUPT;
    bits = (uint64_t)n * d->bit_width;
    if (bits > (uint64_t)d->len * 8u - d->bit_pos)
        return UPQ_ERR_CORRUPT;
    *at = d->p + (size_t)(d->bit_pos / 8u);
    *shift = (unsigned)(d->bit_pos % 8u);
    d->bit_pos += bits;
    return UPQ_OK;
}

upq_status upq_bitpacked_get16(upq_bitpacked_dec *d, uint16_t *out, size_t n)
{
    const uint8_t *q;
    unsigned shift, bw, have;
    uint32_t acc;
    size_t i;
    upq_status st = bitpacked_take(d, n, &q, &shift);

    if (st != UPQ_OK)
        return st;
    bw = d->bit_width;
    if (n == 0)
        return UPQ_OK;
    if (bw == 0) {
        UPQ_K(fill_u16)(out, 0, n);
        return UPQ_OK;
    }
    /* big-endian bit order: shift bytes in at the bottom, take values from
     * the top of what has been gathered */
    acc = (uint32_t)(*q++ & (0xFFu >> shift));
    have = 8u - shift;
    for (i = 0; i < n; i++) {
        while (have < bw) {
            acc = (acc << 8) | *q++;
            have += 8;
        }
        have -= bw;
        out[i] = (uint16_t)(acc >> have);
        acc &= ((uint32_t)1 << have) - 1u;
    }
    return UPQ_OK;
}

upq_status upq_bitpacked_skip(upq_bitpacked_dec *d, size_t n)
{
    const uint8_t *q;
    unsigned shift;
    return bitpacked_take(d, n, &q, &shift);
}
