/*
 * PLAIN values: fixed-width little-endian numbers, LSB-first bit-packed
 * booleans, length-prefixed byte arrays and fixed-length byte arrays.
 * Every size is known up front, so the output is claimed in one piece.
 */
#include "encode.h"
#include "upq_port.h"
#include "common/upq_internal.h"

UPQ_STATIC_ASSERT(sizeof(upq_int96) == 12, int96_is_12_bytes);
UPQ_STATIC_ASSERT(sizeof(float) == 4 && sizeof(double) == 8, ieee_sizes);

static void plain_byte_array(upq_wbuf *w, const upq_bytes *v, size_t n)
{
    size_t total = 0, i;
    uint8_t *o;
    /* lengths were checked by the caller; the sum may still overflow */
    for (i = 0; i < n; i++)
        total = upq_size_add(total, upq_size_add(4, v[i].len));
    o = upq_wb_take(w, total);
    if (!o)
        return;
    for (i = 0; i < n; i++) {
        upq_store_le32(o, v[i].len);
        if (v[i].len)
            upq_memcpy(o + 4, v[i].ptr, v[i].len);
        o += 4 + (size_t)v[i].len;
    }
}

void upq_enc_plain(upq_wbuf *w, int32_t physical_type, int32_t type_length, const void *values,
                   size_t n)
{
    size_t i, width;
    uint8_t *o;

    switch (physical_type) {
    case UPQ_TYPE_BOOLEAN:
        o = upq_wb_take(w, n / 8u + (n % 8u != 0));
        if (o)
            upq_pack_bool((const uint8_t *)values, n, o);
        return;
    case UPQ_TYPE_BYTE_ARRAY: plain_byte_array(w, (const upq_bytes *)values, n); return;
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: width = 4; break;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: width = 8; break;
    case UPQ_TYPE_INT96: width = 12; break;
    default: width = (size_t)type_length; break; /* FIXED_LEN_BYTE_ARRAY, checked > 0 */
    }
    o = upq_wb_take(w, upq_size_mul(n, width));
    if (!o)
        return;
    switch (physical_type) {
#if UPQ_NATIVE_LE
    /* a little-endian host holds numbers in PLAIN's byte order already */
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT:
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE:
#else
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT:
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: {
        /* a big-endian host: each value's bytes reversed, integers and
         * floats alike as bytes (a float register may quiet a signalling
         * NaN on some FPUs, x87) */
        const uint8_t *v = (const uint8_t *)values;
        size_t k;
        for (i = 0; i < n; i++)
            for (k = 0; k < width; k++)
                o[i * width + k] = v[i * width + width - 1u - k];
        break;
    }
#endif
    case UPQ_TYPE_INT96:
        /* upq_int96 holds the value's 12 bytes in file order */
        if (n)
            upq_memcpy(o, values, n * width);
        break;
    default: {
        const upq_bytes *v = (const upq_bytes *)values;
        for (i = 0; i < n; i++)
            upq_memcpy(o + i * width, v[i].ptr, width);
        break;
    }
    }
}
