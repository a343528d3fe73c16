/*
 * The values section of a data page: picks the decoder for the page's
 * encoding and keeps count. Dictionary indices and RLE booleans (both
 * RLE/bit-packing hybrid streams) are decoded here.
 */
#include "encoding.h"
#include "upq_simd.h"
#include "common/upq_internal.h"
#include "upq_port.h"

/* ---- dictionary indices ------------------------------------------------- */

static upq_status dict_init(upq_values_dec *d)
{
    const uint8_t *p = d->p;
    unsigned bw;
    if (!d->dict || d->dict->physical_type != d->physical_type)
        return UPQ_ERR_INVAL;
    if (p == d->end) {
        /* an empty section can only stand for no values (a v1 page of
         * nulls): a width of 1 over no data fails any value asked for */
        return upq_rle_init(&d->u.rle, p, 0, 1);
    }
    bw = *p++;
    if (bw > 32)
        return UPQ_ERR_CORRUPT;
    /* bit width 0: every index is 0 (a one-entry dictionary), whatever runs follow */
    return upq_rle_init(&d->u.rle, p, (size_t)(d->end - p), bw);
}

static void dict_fill(const upq_values_dec *d, void *out, uint32_t i, size_t n)
{
    const void *v = d->dict->values;
    switch (d->physical_type) {
    case UPQ_TYPE_BOOLEAN: UPQ_K(fill_u8)((uint8_t *)out, ((const uint8_t *)v)[i], n); break;
    case UPQ_TYPE_INT32: UPQ_K(fill_u32)((uint32_t *)out, ((const uint32_t *)v)[i], n); break;
    case UPQ_TYPE_INT64: UPQ_K(fill_u64)((uint64_t *)out, ((const uint64_t *)v)[i], n); break;
    case UPQ_TYPE_INT96: upq_fill_i96((upq_int96 *)out, (const upq_int96 *)v + i, n); break;
    case UPQ_TYPE_FLOAT: UPQ_K(fill_f32)((float *)out, ((const float *)v)[i], n); break;
    case UPQ_TYPE_DOUBLE: UPQ_K(fill_f64)((double *)out, ((const double *)v)[i], n); break;
    default: upq_fill_bytes((upq_bytes *)out, ((const upq_bytes *)v)[i], n); break;
    }
}

static void dict_gather(const upq_values_dec *d, void *out, const uint32_t *idx, size_t n)
{
    const void *v = d->dict->values;
    switch (d->physical_type) {
    case UPQ_TYPE_BOOLEAN: upq_gather_u8((uint8_t *)out, (const uint8_t *)v, idx, n); break;
    case UPQ_TYPE_INT32: UPQ_K(gather_u32)((uint32_t *)out, (const uint32_t *)v, idx, n); break;
    case UPQ_TYPE_INT64: UPQ_K(gather_u64)((uint64_t *)out, (const uint64_t *)v, idx, n); break;
    case UPQ_TYPE_INT96: upq_gather_i96((upq_int96 *)out, (const upq_int96 *)v, idx, n); break;
    case UPQ_TYPE_FLOAT: UPQ_K(gather_f32)((float *)out, (const float *)v, idx, n); break;
    case UPQ_TYPE_DOUBLE: UPQ_K(gather_f64)((double *)out, (const double *)v, idx, n); break;
    default: upq_gather_bytes((upq_bytes *)out, (const upq_bytes *)v, idx, n); break;
    }
}

/* Gathers n values, checking each index on the way; 0 when one is out of
 * the dictionary. */
static int dict_gather_in(const upq_values_dec *d, void *out, const uint32_t *idx, size_t n)
{
    const void *v = d->dict->values;
    uint32_t m = d->dict->n;
    size_t k;
    switch (d->physical_type) {
    case UPQ_TYPE_BOOLEAN: k = upq_gather_u8_in((uint8_t *)out, (const uint8_t *)v, m, idx, n); break;
    case UPQ_TYPE_INT32:
        k = upq_gather_u32_in((uint32_t *)out, (const uint32_t *)v, m, idx, n);
        break;
    case UPQ_TYPE_INT64:
        k = upq_gather_u64_in((uint64_t *)out, (const uint64_t *)v, m, idx, n);
        break;
    case UPQ_TYPE_INT96:
        k = upq_gather_i96_in((upq_int96 *)out, (const upq_int96 *)v, m, idx, n);
        break;
    case UPQ_TYPE_FLOAT: k = upq_gather_f32_in((float *)out, (const float *)v, m, idx, n); break;
    case UPQ_TYPE_DOUBLE: k = upq_gather_f64_in((double *)out, (const double *)v, m, idx, n); break;
    default:
        k = upq_gather_bytes_in((upq_bytes *)out, (const upq_bytes *)v, m, idx, n);
        break;
    }
    return k == n;
}

/* Decodes (out != NULL) or skips n values; both check every index. */
static upq_status dict_take(upq_values_dec *d, void *out, size_t n)
{
    uint32_t idx[UPQ_UNPACK_STEP];
    size_t size = upq_value_size(d->physical_type);
    uint32_t dict_n = d->dict->n;

    if (d->u.rle.bit_width == 0) {
        if (dict_n == 0)
            return UPQ_ERR_CORRUPT;
        if (out)
            dict_fill(d, out, 0, n);
        return UPQ_OK;
    }
    while (n) {
        size_t k;
        int run;
        uint32_t v;
        upq_status st = upq_rle_next(&d->u.rle, idx, UPQ_UNPACK_STEP, n, &k, &run, &v);
        if (st != UPQ_OK)
            return st;
        if (run) {
            if (v >= dict_n)
                return UPQ_ERR_CORRUPT;
            if (out)
                dict_fill(d, out, v, k);
        } else if (UPQ_GATHER_BOUND && out) {
            if (!dict_gather_in(d, out, idx, k))
                return UPQ_ERR_CORRUPT;
        } else {
            if (UPQ_MAX_INDEX(idx, k) >= dict_n)
                return UPQ_ERR_CORRUPT;
            if (out)
                dict_gather(d, out, idx, k);
        }
        if (out)
            out = (uint8_t *)out + k * size;
        n -= k;
    }
    return UPQ_OK;
}

/* ---- RLE booleans ------------------------------------------------------- */

static upq_status rle_bool_init(upq_values_dec *d)
{
    const uint8_t *p = d->p;
    uint32_t len;
    if (p == d->end) /* as for dictionary indices: no data, no values */
        return upq_rle_init(&d->u.rle, p, 0, 1);
    if (d->end - p < 4)
        return UPQ_ERR_CORRUPT;
    len = upq_load_le32(p);
    p += 4;
    if (len > (size_t)(d->end - p))
        return UPQ_ERR_CORRUPT;
    return upq_rle_init(&d->u.rle, p, len, 1);
}

static upq_status rle_bool_take(upq_values_dec *d, uint8_t *out, size_t n)
{
    return upq_rle_get8(&d->u.rle, out, n);
}

/* ---- dispatch ----------------------------------------------------------- */

static upq_status values_init(upq_values_dec *d, int32_t encoding, int32_t physical_type,
                              int32_t type_length, const uint8_t *p, size_t len,
                              uint32_t num_values, const upq_dict *dict, uint8_t *prev_buf,
                              size_t prev_cap)
{
    int32_t t = physical_type;
    (void)prev_buf; /* DELTA_BYTE_ARRAY's, when built */
    (void)prev_cap;
    d->encoding = encoding;
    d->physical_type = physical_type;
    d->type_length = type_length;
    d->p = p;
    d->end = len ? p + len : p;
    d->num_values = num_values;
    d->dict = dict;
    if (t < UPQ_TYPE_BOOLEAN || t > UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return UPQ_ERR_UNSUPPORTED;
    switch (encoding) {
    case UPQ_ENC_PLAIN: return upq_plain_init(d);
    case UPQ_ENC_PLAIN_DICTIONARY:
    case UPQ_ENC_RLE_DICTIONARY: return dict_init(d);
    case UPQ_ENC_RLE:
        if (t != UPQ_TYPE_BOOLEAN)
            return UPQ_ERR_UNSUPPORTED;
        return rle_bool_init(d);
#if UPQ_WITH_DELTA
    case UPQ_ENC_DELTA_BINARY_PACKED:
        if (t != UPQ_TYPE_INT32 && t != UPQ_TYPE_INT64)
            return UPQ_ERR_UNSUPPORTED;
        return upq_dbp_init(d);
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (t != UPQ_TYPE_BYTE_ARRAY)
            return UPQ_ERR_UNSUPPORTED;
        return upq_dlba_init(d);
    case UPQ_ENC_DELTA_BYTE_ARRAY:
        if (t != UPQ_TYPE_BYTE_ARRAY && t != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
            return UPQ_ERR_UNSUPPORTED;
        d->u.ba.prev_buf = prev_buf;
        d->u.ba.prev_cap = prev_buf ? prev_cap : 0;
        return upq_dba_init(d);
#endif
#if UPQ_WITH_BSS
    case UPQ_ENC_BYTE_STREAM_SPLIT: return upq_bss_init(d);
#endif
    default: return UPQ_ERR_UNSUPPORTED; /* BIT_PACKED is for levels only */
    }
}

upq_status upq_values_init(upq_values_dec *d, int32_t encoding, int32_t physical_type,
                           int32_t type_length, const uint8_t *p, size_t len,
                           uint32_t num_values, const upq_dict *dict, uint8_t *prev_buf,
                           size_t prev_cap)
{
    upq_status st;
    upq_memset(d, 0, sizeof *d);
    st = values_init(d, encoding, physical_type, type_length, p, len, num_values, dict, prev_buf,
                     prev_cap);
    if (st != UPQ_OK) {
        d->encoding = -1; /* get and skip report UPQ_ERR_STATE */
        d->num_values = d->produced = 0;
    }
    return st;
}

/* n values into out, or passed over when out is null; *k says how many
 * (the byte-array decoders may give fewer, to fit vb). */
static upq_status take(upq_values_dec *d, void *out, size_t n, size_t *k, upq_vbuf *vb)
{
    int skip = out == (void *)0;
    (void)k; /* for the encodings that copy values, when built */
    (void)vb;
    switch (d->encoding) {
    case UPQ_ENC_PLAIN: return skip ? upq_plain_skip(d, n) : upq_plain_get(d, out, n);
    case UPQ_ENC_PLAIN_DICTIONARY:
    case UPQ_ENC_RLE_DICTIONARY: return dict_take(d, out, n);
    case UPQ_ENC_RLE: return rle_bool_take(d, (uint8_t *)out, n);
#if UPQ_WITH_DELTA
    case UPQ_ENC_DELTA_BINARY_PACKED: return skip ? upq_dbp_skip(d, n) : upq_dbp_get(d, out, n);
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        return skip ? upq_dlba_skip(d, n) : upq_dlba_get(d, (upq_bytes *)out, n);
    case UPQ_ENC_DELTA_BYTE_ARRAY:
        return skip ? upq_dba_skip(d, n) : upq_dba_get(d, (upq_bytes *)out, n, k, vb);
#endif
#if UPQ_WITH_BSS
    case UPQ_ENC_BYTE_STREAM_SPLIT: return skip ? upq_bss_skip(d, n) : upq_bss_get(d, out, n, k, vb);
#endif
    default: return UPQ_ERR_STATE;
    }
}

/* upq_values_get and upq_values_skip (out null): the count checked against
 * the values left, and what was taken counted. */
static upq_status values_take(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb)
{
    size_t k = n;
    upq_status st;
    *got = 0;
    if (d->encoding < 0)
        return UPQ_ERR_STATE;
    if (n > (size_t)(d->num_values - d->produced))
        return UPQ_ERR_CORRUPT;
    if (n == 0)
        return UPQ_OK;
    st = take(d, out, n, &k, vb);
    if (st != UPQ_OK)
        return st;
    d->produced += (uint32_t)k;
    *got = k;
    return UPQ_OK;
}

upq_status upq_values_get(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb)
{
    return values_take(d, out, n, got, vb);
}

const void *upq_values_lend(upq_values_dec *d, size_t n)
{
    const void *p;
    if (d->encoding != UPQ_ENC_PLAIN || n == 0 || n > (size_t)(d->num_values - d->produced))
        return (const void *)0;
    p = upq_plain_lend(d, n);
    if (p)
        d->produced += (uint32_t)n;
    return p;
}

upq_status upq_values_skip(upq_values_dec *d, size_t n)
{
    size_t got;
    return values_take(d, (void *)0, n, &got, (upq_vbuf *)0);
}

uint32_t upq_values_left(const upq_values_dec *d)
{
    return d->num_values - d->produced;
}
