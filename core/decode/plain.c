/*
 * PLAIN values (data pages and dictionary pages): fixed-width little-endian
 * numbers, LSB-first bit-packed booleans, length-prefixed byte arrays and
 * fixed-length byte arrays.
 */
#include "encoding.h"
#include "upq_kernels.h"
#include "upq_port.h"

/* Each value type with the unsigned word of its PLAIN bytes: type punning
 * through a union is defined in C99 (TC3) and C11, and unlike a call to
 * upq_memcpy costs nothing per value. */
#define PLAIN_WORD(name, T, W) \
    typedef union {            \
        W u;                   \
        T v;                   \
    } name
PLAIN_WORD(i32_bits, int32_t, uint32_t);
PLAIN_WORD(i64_bits, int64_t, uint64_t);
PLAIN_WORD(f32_bits, float, uint32_t);
PLAIN_WORD(f64_bits, double, uint64_t);

/* n values of type T, `width` bytes each, from `in` (the loop of each type
 * of upq_plain_fixed; its locals i, in, out, n). */
#define PLAIN_VALUES(T, punned, load, width)         \
    do {                                             \
        T *o = (T *)out;                             \
        punned c;                                    \
        for (i = 0; i < n; i++) {                    \
            c.u = load(in + (width) * i);            \
            o[i] = c.v;                              \
        }                                            \
    } while (0)

/* On little-endian 32-bit targets the numbers' PLAIN bytes are copied as
 * they are, by upq_memcpy's block moves (on Cortex-M4 1 to 3 instructions
 * per 8 bytes, where gcc -Os makes the loops below 8 to 9 a value); 64-bit
 * hosts vectorise the loops. */
#if UPQ_NATIVE_LE && UINTPTR_MAX == 0xFFFFFFFFu
#define PLAIN_BY_COPY 1
#else
#define PLAIN_BY_COPY 0
#endif

void upq_plain_fixed(int32_t physical_type, const uint8_t *in, void *out, size_t n)
{
    size_t i;
    if (PLAIN_BY_COPY && physical_type != UPQ_TYPE_INT96) {
        upq_memcpy(out, in, n * upq_value_size(physical_type));
        return;
    }
    switch (physical_type) {
    case UPQ_TYPE_INT32: PLAIN_VALUES(int32_t, i32_bits, upq_load_le32, 4); break;
    case UPQ_TYPE_INT64: PLAIN_VALUES(int64_t, i64_bits, upq_load_le64, 8); break;
    case UPQ_TYPE_FLOAT: PLAIN_VALUES(float, f32_bits, upq_load_le32, 4); break;
    case UPQ_TYPE_DOUBLE: PLAIN_VALUES(double, f64_bits, upq_load_le64, 8); break;
    case UPQ_TYPE_INT96: {
        upq_int96 *o = (upq_int96 *)out;
        unsigned k;
        for (i = 0; i < n; i++, in += 12)
            for (k = 0; k < 12; k++)
                o[i].b[k] = in[k];
        break;
    }
    default: break;
    }
}

/* Bytes per value of the fixed-width types (FIXED_LEN_BYTE_ARRAY: its
 * length), 0 for BOOLEAN and BYTE_ARRAY. */
static size_t plain_width(const upq_values_dec *d)
{
    switch (d->physical_type) {
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: return 4;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: return 8;
    case UPQ_TYPE_INT96: return 12;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return (size_t)d->type_length;
    default: return 0;
    }
}

upq_status upq_plain_init(upq_values_dec *d)
{
    switch (d->physical_type) {
    case UPQ_TYPE_BOOLEAN:
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_INT96:
    case UPQ_TYPE_FLOAT:
    case UPQ_TYPE_DOUBLE:
    case UPQ_TYPE_BYTE_ARRAY: break;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (d->type_length <= 0)
            return UPQ_ERR_CORRUPT;
        break;
    default: return UPQ_ERR_UNSUPPORTED;
    }
    d->u.plain.bit = 0;
    return UPQ_OK;
}

static upq_status plain_bool(upq_values_dec *d, uint8_t *out, size_t n)
{
    const uint8_t *p = d->p;
    unsigned bit = d->u.plain.bit;
    size_t i = 0;

    if (n > ((size_t)(d->end - p)) * 8u - bit)
        return UPQ_ERR_CORRUPT;
    /* finish the current byte, then whole bytes, then the tail */
    for (; bit && i < n; i++) {
        out[i] = (uint8_t)((*p >> bit) & 1u);
        if (++bit == 8) {
            bit = 0;
            p++;
        }
    }
#if UPQ_UNALIGNED_WORDS
    /* a byte's 8 bits to 8 bytes in a word: the byte copied to every lane,
     * lane k keeps bit k, and adding 0x7F carries a set bit to the lane's
     * top, which moves down to 1 */
    for (; i + 8 <= n; i += 8, p++) {
        uint64_t t = ((uint64_t)*p * 0x0101010101010101u) & 0x8040201008040201u;
        upq_store_le64(out + i, ((t + 0x7F7F7F7F7F7F7F7Fu) & 0x8080808080808080u) >> 7);
    }
#endif
    for (; i + 8 <= n; i += 8, p++) {
        unsigned b = *p, k;
        for (k = 0; k < 8; k++)
            out[i + k] = (uint8_t)((b >> k) & 1u);
    }
    for (; i < n; i++)
        out[i] = (uint8_t)((*p >> bit++) & 1u);
    d->p = p;
    d->u.plain.bit = bit;
    return UPQ_OK;
}

static upq_status plain_byte_array(upq_values_dec *d, upq_bytes *out, size_t n)
{
    const uint8_t *p = d->p, *end = d->end;
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t len;
        if (end - p < 4)
            return UPQ_ERR_CORRUPT;
        len = upq_load_le32(p);
        p += 4;
        if (len > (size_t)(end - p))
            return UPQ_ERR_CORRUPT;
        if (out) {
            out[i].ptr = p;
            out[i].len = len;
        }
        p += len;
    }
    d->p = p;
    return UPQ_OK;
}

upq_status upq_plain_get(upq_values_dec *d, void *out, size_t n)
{
    size_t w, i;
    if (d->physical_type == UPQ_TYPE_BOOLEAN)
        return plain_bool(d, (uint8_t *)out, n);
    if (d->physical_type == UPQ_TYPE_BYTE_ARRAY)
        return plain_byte_array(d, (upq_bytes *)out, n);
    w = plain_width(d);
    if (w == 0 || n > (size_t)(d->end - d->p) / w)
        return UPQ_ERR_CORRUPT;
    if (d->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        upq_bytes *o = (upq_bytes *)out;
        for (i = 0; i < n; i++) {
            o[i].ptr = d->p + i * w;
            o[i].len = (uint32_t)w;
        }
    } else {
        upq_plain_fixed(d->physical_type, d->p, out, n);
    }
    d->p += n * w;
    return UPQ_OK;
}

const void *upq_plain_lend(upq_values_dec *d, size_t n)
{
#if UPQ_WITH_LEND && UPQ_NATIVE_LE
    /* the values' PLAIN bytes are then the batch's representation */
    size_t w = plain_width(d);
    /* the numbers only: a FIXED_LEN_BYTE_ARRAY batch holds upq_bytes, and
     * INT96's width (12) is no alignment */
    if (d->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY || (w != 4 && w != 8) ||
        ((uintptr_t)d->p & (w - 1u)) != 0 || n > (size_t)(d->end - d->p) / w)
        return (const void *)0;
    d->p += n * w;
    return d->p - n * w;
#else
    (void)d;
    (void)n;
    return (const void *)0;
#endif
}

upq_status upq_plain_skip(upq_values_dec *d, size_t n)
{
    size_t w;
    if (d->physical_type == UPQ_TYPE_BOOLEAN) {
        size_t bits = d->u.plain.bit + n;
        if (n > ((size_t)(d->end - d->p)) * 8u - d->u.plain.bit)
            return UPQ_ERR_CORRUPT;
        d->p += bits / 8u;
        d->u.plain.bit = (uint32_t)(bits % 8u);
        return UPQ_OK;
    }
    if (d->physical_type == UPQ_TYPE_BYTE_ARRAY)
        return plain_byte_array(d, (upq_bytes *)0, n);
    w = plain_width(d);
    if (w == 0 || n > (size_t)(d->end - d->p) / w)
        return UPQ_ERR_CORRUPT;
    d->p += n * w;
    return UPQ_OK;
}

upq_status upq_dict_decode(upq_dict *dict, int32_t physical_type, int32_t type_length,
                           const uint8_t *p, size_t len, uint32_t n, upq_arena *a)
{
    upq_values_dec d;
    size_t size = upq_value_size(physical_type), min_bytes;
    void *values;
    upq_status st;

    dict->physical_type = physical_type;
    dict->n = 0;
    dict->values = (const void *)0;
    upq_memset(&d, 0, sizeof d);
    d.encoding = UPQ_ENC_PLAIN;
    d.physical_type = physical_type;
    d.type_length = type_length;
    d.p = p;
    d.end = len ? p + len : p;
    d.num_values = n;
    st = upq_plain_init(&d);
    if (st != UPQ_OK)
        return st;
    /* a count the page cannot hold must not size an allocation */
    if (physical_type == UPQ_TYPE_BOOLEAN) {
        min_bytes = n / 8u + (n % 8u != 0);
        if (min_bytes > len)
            return UPQ_ERR_CORRUPT;
    } else {
        size_t per = physical_type == UPQ_TYPE_BYTE_ARRAY ? 4u
                     : physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? (size_t)type_length
                                                                        : size;
        if (n > len / per)
            return UPQ_ERR_CORRUPT;
    }
    values = upq_arena_alloc_array(a, n, size);
    if (!values)
        return UPQ_ERR_NOMEM;
    st = upq_plain_get(&d, values, n);
    if (st != UPQ_OK)
        return st;
    dict->n = n;
    dict->values = values;
    return UPQ_OK;
}
