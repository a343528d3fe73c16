/*
 * The encoders' public entry points: checks the encoding/type pair and the
 * values, picks the encoder, and computes the size bounds.
 */
#include "encode.h"
#include "common/upq_internal.h"

/* ---- encoding/type pairs ------------------------------------------------- */

static int supported(int32_t enc, int32_t t)
{
    switch (enc) {
    case UPQ_ENC_PLAIN: return t >= UPQ_TYPE_BOOLEAN && t <= UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
    case UPQ_ENC_RLE: return t == UPQ_TYPE_BOOLEAN;
#if UPQ_WITH_DELTA
    case UPQ_ENC_DELTA_BINARY_PACKED: return t == UPQ_TYPE_INT32 || t == UPQ_TYPE_INT64;
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return t == UPQ_TYPE_BYTE_ARRAY;
    case UPQ_ENC_DELTA_BYTE_ARRAY:
        return t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
#endif
#if UPQ_WITH_BSS
    case UPQ_ENC_BYTE_STREAM_SPLIT:
        return t == UPQ_TYPE_FLOAT || t == UPQ_TYPE_DOUBLE || t == UPQ_TYPE_INT32 ||
               t == UPQ_TYPE_INT64 || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
#endif
    default: return 0; /* dictionary indices and levels: upq_encode_rle32/16 */
    }
}

/* Bytes per value of the fixed-width types (0 for the others). */
static size_t fixed_width(int32_t t, int32_t type_length)
{
    switch (t) {
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: return 4;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: return 8;
    case UPQ_TYPE_INT96: return 12;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
    default: return 0;
    }
}

/* ---- bounds ---------------------------------------------------------------- */

size_t upq_rle_bound(size_t n, unsigned bit_width)
{
    /* Every run costs at most (bit_width + 1) bytes per 8 values it covers
     * (a bit-packed group: bit_width bytes plus its share of the header; an
     * RLE run of m >= 8 values: a header of 1 byte per 64 values and at most
     * 4 value bytes), and the last, partial group at most bit_width + 1. */
    if (bit_width > 32)
        return 0;
    return upq_size_mul(upq_size_add(n / 8u, 2), bit_width + 1u);
}

/* DELTA_BINARY_PACKED in blocks of 128 values and miniblocks of 32: header,
 * then per block a min delta and 4 widths, then per used miniblock 32 values
 * of at most 32 (INT32) or 64 bits. */
static size_t dbp_bound(size_t n, int is64)
{
    size_t deltas = n ? n - 1u : 0u;
    size_t blocks = deltas / UPQ_DELTA_BLOCK + (deltas % UPQ_DELTA_BLOCK != 0);
    size_t minis = deltas / 32u + (deltas % 32u != 0);
    size_t zz = is64 ? 10u : 5u;
    size_t b = 2u + 1u + upq_tc_varint_len(n) + zz;
    b = upq_size_add(b, upq_size_mul(blocks, zz + UPQ_DELTA_MINIS));
    return upq_size_add(b, upq_size_mul(minis, is64 ? 256u : 128u));
}

size_t upq_encode_bound(int32_t encoding, int32_t physical_type, int32_t type_length, size_t n,
                        size_t payload)
{
    int32_t t = physical_type;
    size_t width = fixed_width(t, type_length);

    if (!supported(encoding, t) || (t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && type_length < 1))
        return 0;
    switch (encoding) {
    case UPQ_ENC_PLAIN:
        if (t == UPQ_TYPE_BOOLEAN)
            return n / 8u + (n % 8u != 0);
        if (t == UPQ_TYPE_BYTE_ARRAY)
            return upq_size_add(upq_size_mul(n, 4), payload);
        return upq_size_mul(n, width);
    case UPQ_ENC_RLE: return upq_size_add(4, upq_rle_bound(n, 1));
    case UPQ_ENC_DELTA_BINARY_PACKED: return dbp_bound(n, t == UPQ_TYPE_INT64);
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return upq_size_add(dbp_bound(n, 0), payload);
    case UPQ_ENC_DELTA_BYTE_ARRAY:
        return upq_size_add(upq_size_mul(dbp_bound(n, 0), 2),
                            t == UPQ_TYPE_BYTE_ARRAY ? payload : upq_size_mul(n, width));
    default: return upq_size_mul(n, width); /* BYTE_STREAM_SPLIT */
    }
}

/* ---- encoding -------------------------------------------------------------- */

/* Byte arrays: every FIXED_LEN_BYTE_ARRAY value must have type_length bytes,
 * every BYTE_ARRAY length must be an INT32. *payload gets the bytes total. */
static upq_status check_bytes(int32_t t, int32_t type_length, const upq_bytes *v, size_t n,
                              size_t *payload)
{
    size_t i, sum = 0;
    int over = 0;
    for (i = 0; i < n; i++) {
        uint32_t l = v[i].len;
        if (t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? l != (uint32_t)type_length : l > INT32_MAX)
            return UPQ_ERR_INVAL;
        if (l > SIZE_MAX - sum)
            over = 1;
        else
            sum += l;
    }
    *payload = sum;
    return over ? UPQ_ERR_LIMIT : UPQ_OK;
}

upq_status upq_encode_values(int32_t encoding, int32_t physical_type, int32_t type_length,
                             const void *values, size_t n, uint8_t *out, size_t cap, size_t *len)
{
    int32_t t = physical_type;
    size_t payload = 0;
    upq_wbuf w;
    upq_status st = UPQ_OK;

    *len = 0;
    if (!supported(encoding, t))
        return UPQ_ERR_UNSUPPORTED;
    if (t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && type_length < 1)
        return UPQ_ERR_INVAL;
    if (n > INT32_MAX)
        return UPQ_ERR_LIMIT;
    if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        st = check_bytes(t, type_length, (const upq_bytes *)values, n, &payload);
        if (st != UPQ_OK)
            return st;
    }
    upq_wb_init(&w, out, cap);
    switch (encoding) {
    case UPQ_ENC_PLAIN: upq_enc_plain(&w, t, type_length, values, n); break;
    case UPQ_ENC_RLE: {
        /* the prefix counts the hybrid data after it */
        uint8_t *prefix = upq_wb_take(&w, 4);
        size_t start = w.pos;
        st = upq_enc_hybrid_bool(&w, (const uint8_t *)values, n);
        if (prefix && w.pos <= w.cap)
            upq_store_le32(prefix, (uint32_t)(w.pos - start));
        break;
    }
#if UPQ_WITH_DELTA
    case UPQ_ENC_DELTA_BINARY_PACKED:
        upq_enc_dbp(&w, t == UPQ_TYPE_INT64, values, n, UPQ_DELTA_BLOCK, UPQ_DELTA_MINIS);
        break;
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        upq_enc_dlba(&w, (const upq_bytes *)values, n, payload);
        break;
    case UPQ_ENC_DELTA_BYTE_ARRAY: upq_enc_dba(&w, (const upq_bytes *)values, n); break;
#endif
#if UPQ_WITH_BSS
    case UPQ_ENC_BYTE_STREAM_SPLIT:
        upq_enc_bss(&w, t, fixed_width(t, type_length), values, n);
        break;
#endif
    default: break; /* not reached: supported() said no */
    }
    if (st != UPQ_OK)
        return st;
    return upq_wb_finish(&w, len);
}

#if UPQ_WITH_DELTA
upq_status upq_encode_dbp_shape(int32_t physical_type, const void *values, size_t n,
                                unsigned block, unsigned minis, uint8_t *out, size_t cap,
                                size_t *len)
{
    upq_wbuf w;
    unsigned per;

    *len = 0;
    if (physical_type != UPQ_TYPE_INT32 && physical_type != UPQ_TYPE_INT64)
        return UPQ_ERR_UNSUPPORTED;
    if (minis == 0 || minis > UPQ_DELTA_MINIS || block % minis != 0)
        return UPQ_ERR_INVAL;
    per = block / minis;
    if (per == 0 || per % 8u != 0 || per > 32u)
        return UPQ_ERR_INVAL;
    if (n > INT32_MAX)
        return UPQ_ERR_LIMIT;
    upq_wb_init(&w, out, cap);
    upq_enc_dbp(&w, physical_type == UPQ_TYPE_INT64, values, n, block, minis);
    return upq_wb_finish(&w, len);
}
#endif

/* The RLE/bit-packing hybrid of 16-bit (wide 0) or 32-bit levels or indices. */
static upq_status encode_rle(const void *v, int wide, size_t n, unsigned bit_width, uint8_t *out, size_t cap,
                             size_t *len)
{
    upq_wbuf w;
    upq_status st;
    *len = 0;
    if (bit_width > (wide ? 32u : 16u))
        return UPQ_ERR_INVAL;
    upq_wb_init(&w, out, cap);
    st = wide ? upq_enc_hybrid32(&w, (const uint32_t *)v, n, bit_width)
              : upq_enc_hybrid16(&w, (const uint16_t *)v, n, bit_width);
    return st != UPQ_OK ? st : upq_wb_finish(&w, len);
}

upq_status upq_encode_rle16(const uint16_t *v, size_t n, unsigned bit_width, uint8_t *out,
                            size_t cap, size_t *len)
{
    return encode_rle(v, 0, n, bit_width, out, cap, len);
}

upq_status upq_encode_rle32(const uint32_t *v, size_t n, unsigned bit_width, uint8_t *out,
                            size_t cap, size_t *len)
{
    return encode_rle(v, 1, n, bit_width, out, cap, len);
}
