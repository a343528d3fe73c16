/*
 * Data and dictionary pages: the committed part of a column's staging is
 * encoded (levels, then values), compressed straight into the column's chunk
 * buffer behind room for the largest possible header, checksummed, and its
 * header is put in front of it. Statistics and the page-index entry are
 * taken on the way.
 */
#include "writer_page.h"
#include "geo.h"
#include "upq_kernels.h"
#include "upq_simd.h"

#if UPQ_WITH_WRITER

/* FLOAT pages of BYTE_STREAM_SPLIT values split and bounded in one pass
 * over the staging (upq_bss_keys32_fast), where each was a walk of its
 * own: the shape of logged sensor samples. Builds with the flash-for-speed
 * kernels on cores without the vector kernels, which do both walks faster
 * apart. */
#define W_F32_KEYS (UPQ_FAST_KERNELS && UPQ_WITH_BSS && UPQ_WITH_STATISTICS && !UPQ_WITH_NEON && \
                    !UPQ_X86_SSE2)

static size_t sadd(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

size_t upq_w_stats_bounds(uint32_t scap)
{
    size_t vlen = 1;
    uint32_t v;
    for (v = scap; v >= 0x80u; v >>= 7)
        vlen++;
    /* two binaries (field header, length, bytes) and two bools */
    return scap ? 2u * (1u + vlen + (size_t)scap) + 2u : 0u;
}

#if UPQ_FAST_KERNELS
/* ---- page headers, encoded by hand --------------------------------------
 * The bytes upq_thrift_encode gives for the same model (test_page_header
 * compares them): every field id delta here is below 16, so each field
 * header is one byte. The descriptor-driven encoder takes some thousands of
 * instructions per header; a page costs this once per column and flush. */

typedef struct hput {
    uint8_t *p;      /* NULL: only counted */
    size_t cap, n;   /* n may pass cap: the size needed */
    unsigned last;   /* the last field id of the struct being written */
} hput;

static void hp_bytes(hput *h, const uint8_t *src, size_t len)
{
    if (h->p && h->n <= h->cap && len <= h->cap - h->n)
        upq_memcpy(h->p + h->n, src, len);
    h->n += len;
}

/* Field `id`'s header with wire type ct, then v as a zigzag varint
 * (`with_v`), written in place when there is room. */
static void hp_field(hput *h, unsigned id, unsigned ct, int with_v, int64_t v)
{
    uint8_t t[11], *q = h->p && h->n + sizeof t <= h->cap ? h->p + h->n : t;
    size_t k = 1;
    q[0] = (uint8_t)(((id - h->last) << 4) | ct);
    h->last = id;
    if (with_v)
        k += upq_tc_varint(q + 1, upq_tc_zz(v));
    if (q == t)
        hp_bytes(h, t, k);
    else
        h->n += k;
}

/* The i32 fields 1..k of a struct, held in order at v[0..k): the models
 * declare them one after another, which these hold the layout to. */
#define I32_RUN(T, first, last, k)                                                         \
    UPQ_STATIC_ASSERT(offsetof(T, last) - offsetof(T, first) == ((k) - 1) * sizeof(int32_t), \
                      T##_i32_run)
I32_RUN(upq_page_header, type, crc, 4);
I32_RUN(upq_data_page_header, num_values, repetition_level_encoding, 4);
I32_RUN(upq_dictionary_page_header, num_values, encoding, 2);
I32_RUN(upq_data_page_header_v2, num_values, repetition_levels_byte_length, 6);
#undef I32_RUN
static void hp_i32s(hput *h, uint32_t isset, const int32_t *v, unsigned k)
{
    unsigned id;
    for (id = 1; id <= k; id++)
        if ((isset >> id) & 1u)
            hp_field(h, id, UPQ_CT_I32, 1, v[id - 1]);
}

/* A struct field's header; the nested struct's ids start again. */
static void hp_open(hput *h, unsigned id)
{
    hp_field(h, id, UPQ_CT_STRUCT, 0, 0);
    h->last = 0;
}

/* The struct's end; back in the enclosing struct after field `id`. */
static void hp_close(hput *h, unsigned id)
{
    static const uint8_t stop = UPQ_CT_STOP;
    hp_bytes(h, &stop, 1);
    h->last = id;
}

/* Field id, a bool, when isset has it. */
UPQ_INLINE void hp_bool(hput *h, uint32_t isset, unsigned id, int v)
{
    if (isset & (1u << id))
        hp_field(h, id, v ? UPQ_CT_TRUE : UPQ_CT_FALSE, 0, 0);
}

#if UPQ_WITH_STATISTICS
static void hp_bin(hput *h, unsigned id, const upq_bytes *b)
{
    hp_field(h, id, UPQ_CT_BINARY, 0, 0);
    /* the length's varint */
    {
        uint8_t t[5];
        hp_bytes(h, t, upq_tc_varint(t, b->len));
    }
    hp_bytes(h, b->ptr, b->len);
}

static void hp_stats(hput *h, unsigned id, const upq_statistics *s)
{
    uint32_t is = s->isset;
    hp_open(h, id);
    if (is & (1u << UPQ_STATISTICS_MAX))
        hp_bin(h, UPQ_STATISTICS_MAX, &s->max);
    if (is & (1u << UPQ_STATISTICS_MIN))
        hp_bin(h, UPQ_STATISTICS_MIN, &s->min);
    if (is & (1u << UPQ_STATISTICS_NULL_COUNT))
        hp_field(h, UPQ_STATISTICS_NULL_COUNT, UPQ_CT_I64, 1, s->null_count);
    if (is & (1u << UPQ_STATISTICS_DISTINCT_COUNT))
        hp_field(h, UPQ_STATISTICS_DISTINCT_COUNT, UPQ_CT_I64, 1, s->distinct_count);
    if (is & (1u << UPQ_STATISTICS_MAX_VALUE))
        hp_bin(h, UPQ_STATISTICS_MAX_VALUE, &s->max_value);
    if (is & (1u << UPQ_STATISTICS_MIN_VALUE))
        hp_bin(h, UPQ_STATISTICS_MIN_VALUE, &s->min_value);
    hp_bool(h, is, UPQ_STATISTICS_IS_MAX_VALUE_EXACT, s->is_max_value_exact);
    hp_bool(h, is, UPQ_STATISTICS_IS_MIN_VALUE_EXACT, s->is_min_value_exact);
    if (is & (1u << UPQ_STATISTICS_NAN_COUNT))
        hp_field(h, UPQ_STATISTICS_NAN_COUNT, UPQ_CT_I64, 1, s->nan_count);
    hp_close(h, id);
}
#endif

/* A data page header's statistics (field id), when isset has them: 1, or 0
 * when a build without statistics is asked for them. */
UPQ_INLINE int hp_page_stats(hput *h, uint32_t isset, unsigned id, const upq_statistics *s)
{
#if UPQ_WITH_STATISTICS
    if (isset & (1u << id))
        hp_stats(h, id, s);
    return 1;
#else
    (void)h;
    (void)s;
    return !(isset & (1u << id));
#endif
}

/* The required fields of PageHeader and of the headers in it (ids 1..3;
 * 1..4; 1..2; 1..6), as the descriptions mark them. */
#define PH_REQ 0x0Eu
#define DPH_REQ 0x1Eu
#define DICT_REQ 0x06u
#define DPH2_REQ 0x7Eu
#define HAS(isset, req) (((isset) & (req)) == (req))

upq_status upq_w_page_header_put(const upq_page_header *ph, uint8_t *buf, size_t cap, size_t *len)
{
    hput h;
    uint32_t is = ph->isset;
    int ok = HAS(is, PH_REQ);
    h.p = buf;
    h.cap = buf ? cap : 0;
    h.n = 0;
    h.last = 0;
    /* type, uncompressed_page_size, compressed_page_size, crc */
    hp_i32s(&h, is, &ph->type, 4);
    if (is & (1u << UPQ_PAGE_HEADER_DATA_PAGE_HEADER)) {
        const upq_data_page_header *d = &ph->data_page_header;
        hp_open(&h, UPQ_PAGE_HEADER_DATA_PAGE_HEADER);
        hp_i32s(&h, d->isset, &d->num_values, 4);
        ok &= HAS(d->isset, DPH_REQ);
        ok &= hp_page_stats(&h, d->isset, UPQ_DATA_PAGE_HEADER_STATISTICS, &d->statistics);
        hp_close(&h, UPQ_PAGE_HEADER_DATA_PAGE_HEADER);
    }
    if (is & (1u << UPQ_PAGE_HEADER_INDEX_PAGE_HEADER)) {
        hp_open(&h, UPQ_PAGE_HEADER_INDEX_PAGE_HEADER);
        hp_close(&h, UPQ_PAGE_HEADER_INDEX_PAGE_HEADER);
    }
    if (is & (1u << UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER)) {
        const upq_dictionary_page_header *d = &ph->dictionary_page_header;
        hp_open(&h, UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
        hp_i32s(&h, d->isset, &d->num_values, 2);
        ok &= HAS(d->isset, DICT_REQ);
        hp_bool(&h, d->isset, UPQ_DICTIONARY_PAGE_HEADER_IS_SORTED, d->is_sorted);
        hp_close(&h, UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
    }
    if (is & (1u << UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2)) {
#if UPQ_WITH_DATA_PAGE_V2
        const upq_data_page_header_v2 *d = &ph->data_page_header_v2;
        hp_open(&h, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2);
        hp_i32s(&h, d->isset, &d->num_values, 6);
        ok &= HAS(d->isset, DPH2_REQ);
        hp_bool(&h, d->isset, UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED, d->is_compressed);
        ok &= hp_page_stats(&h, d->isset, UPQ_DATA_PAGE_HEADER_V2_STATISTICS, &d->statistics);
        hp_close(&h, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2);
#else
        ok = 0;
#endif
    }
    hp_close(&h, 0);
    *len = h.n;
    if (!ok)
        return UPQ_ERR_INVAL;
    return buf && h.n <= cap ? UPQ_OK : buf ? UPQ_ERR_BUFFER : UPQ_OK;
}
#endif /* UPQ_FAST_KERNELS */

size_t upq_w_header_bound(void)
{
    upq_page_header ph;
    upq_statistics *s;
    size_t v1 = 0, v2 = 0;
    int k;
    for (k = 0; k < (UPQ_WITH_DATA_PAGE_V2 ? 2 : 1); k++) {
        upq_memset(&ph, 0, sizeof ph);
        /* the largest varints: every integer at its minimum */
        ph.isset = (1u << UPQ_PAGE_HEADER_TYPE) | (1u << UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE) |
                   (1u << UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE) | (1u << UPQ_PAGE_HEADER_CRC);
        ph.type = k ? UPQ_PAGE_DATA_V2 : UPQ_PAGE_DATA;
        ph.uncompressed_page_size = ph.compressed_page_size = ph.crc = INT32_MIN;
        if (k) {
            upq_data_page_header_v2 *h = &ph.data_page_header_v2;
            UPQ_SET(ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2);
            h->isset = 0xFFu << 1;
            h->num_values = h->num_nulls = h->num_rows = h->encoding = INT32_MIN;
            h->definition_levels_byte_length = h->repetition_levels_byte_length = INT32_MIN;
            s = &h->statistics;
        } else {
            upq_data_page_header *h = &ph.data_page_header;
            UPQ_SET(ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER);
            h->isset = 0x1Fu << 1;
            h->num_values = h->encoding = INT32_MIN;
            h->definition_level_encoding = h->repetition_level_encoding = INT32_MIN;
            s = &h->statistics;
        }
        s->isset = (1u << UPQ_STATISTICS_NULL_COUNT) | (1u << UPQ_STATISTICS_NAN_COUNT);
        s->null_count = s->nan_count = INT64_MIN;
        if (upq_w_page_header_put(&ph, (uint8_t *)0, 0, k ? &v2 : &v1) != UPQ_OK)
            return SIZE_MAX;
    }
    /* a dictionary page header is smaller: no statistics */
    return v1 > v2 ? v1 : v2;
}

/* Level and value parts of the bound of a page body staged from at most
 * `lcap` levels and `vcap` value bytes. */
static void bounds(const upq_wcol *c, uint32_t lcap, uint32_t vcap, size_t *lev, size_t *vals)
{
    size_t nv = c->vsize ? vcap / c->vsize : vcap / 4u, l = 0, v;
    if (nv > lcap)
        nv = lcap;
    if (c->max_rep)
        l = sadd(l, sadd(4, upq_rle_bound(lcap, upq_bit_width32(c->max_rep))));
    if (c->max_def)
        l = sadd(l, sadd(4, upq_rle_bound(lcap, upq_bit_width32(c->max_def))));
    if (c->type == UPQ_TYPE_BYTE_ARRAY && c->enc == UPQ_ENC_PLAIN)
        v = vcap; /* staged as PLAIN already: lengths included */
    else
        v = upq_encode_bound(c->enc, c->type, c->type_length, nv, vcap);
    if (v == 0 && nv > 0)
        v = SIZE_MAX; /* an encoding it cannot bound (no values: none) */
    if (c->use_dict) {
        unsigned bw = c->dict_max > 1 ? upq_bit_width32(c->dict_max - 1u) : 1u;
        size_t d = sadd(1, upq_rle_bound(nv, bw));
        if (d > v)
            v = d;
    }
    *lev = l;
    *vals = v;
}

size_t upq_w_body_bound(const upq_wcol *c)
{
    size_t l, v;
    bounds(c, c->lcap, c->vcap, &l, &v);
    return sadd(l, v);
}

static size_t cbound(int32_t codec, size_t n)
{
    size_t b;
    if (n == SIZE_MAX)
        return SIZE_MAX;
    b = upq_compress_bound(codec, n);
    return b ? b : SIZE_MAX;
}

size_t upq_w_stored_bound(const upq_wcol *c, int32_t codec, int v2)
{
    return upq_w_stored_bound_n(c, codec, v2, c->lcap, c->vcap);
}

size_t upq_w_stored_bound_n(const upq_wcol *c, int32_t codec, int v2, uint32_t lcap, uint32_t vcap)
{
    size_t l, v, cv;
    bounds(c, lcap, vcap, &l, &v);
    if (!UPQ_W_CAN_COMPRESS || codec == UPQ_CODEC_UNCOMPRESSED)
        return sadd(l, v);
    if (!v2)
        return cbound(codec, sadd(l, v));
    cv = cbound(codec, v);
    return sadd(l, cv > v ? cv : v);
}

/* Encodes levels [0, n) (v1: with the 4-byte length) at out. */
static upq_status put_levels(const uint8_t *lv, unsigned lg, uint32_t n, uint16_t max, int v2, uint8_t *out,
                             size_t cap, size_t *len)
{
    size_t k = v2 ? 0u : 4u, got = 0;
    upq_wbuf wb;
    upq_status st;
    if (cap < k)
        return UPQ_ERR_BUFFER;
    upq_wb_init(&wb, out + k, cap - k);
    st = upq_enc_hybrid_levels(&wb, lv, n, lg, upq_bit_width32(max));
    if (st == UPQ_OK)
        st = upq_wb_finish(&wb, &got);
    if (st != UPQ_OK)
        return st;
    if (!v2)
        upq_store_le32(out, (uint32_t)got);
    *len = k + got;
    return UPQ_OK;
}

/* Byte-array values of the staging as upq_bytes for the encoders. */
static UPQ_NOINLINE void staged_bytes(const upq_wcol *c, upq_bytes *out, uint32_t nv)
{
    uint32_t i, off = 0;
    for (i = 0; i < nv; i++) {
        if (c->type == UPQ_TYPE_BYTE_ARRAY) {
            out[i].len = upq_load_le32(c->vals + off);
            out[i].ptr = c->vals + off + 4;
            off += 4u + out[i].len;
        } else {
            out[i].len = c->vsize;
            out[i].ptr = c->vals + off;
            off += c->vsize;
        }
    }
}

/* A FLOAT page's least and greatest order keys, when its values were
 * split by upq_bss_keys32_fast (`on`). */
typedef struct w_keys {
    int32_t mn, mx;
    int on;
} w_keys;

/* The values section: dictionary indices or the column's encoding (the
 * keys of a FLOAT page taken on the way, where W_F32_KEYS). */
static upq_status put_values(upq_writer *w, upq_wcol *c, int dict, uint32_t nv, uint32_t vb,
                             uint8_t *out, size_t cap, size_t *len, w_keys *keys)
{
#if W_F32_KEYS
    if (!dict && c->enc == UPQ_ENC_BYTE_STREAM_SPLIT && c->type == UPQ_TYPE_FLOAT &&
        c->order == UPQ_SO_F32 && nv > 0) {
        if (nv > cap / 4u)
            return UPQ_ERR_BUFFER;
        upq_bss_keys32_fast(c->vals, nv, out, &keys->mn, &keys->mx);
        keys->on = 1;
        *len = (size_t)nv * 4u;
        return UPQ_OK;
    }
#else
    (void)keys;
#endif
    if (dict) {
        uint32_t i, off = 0;
        unsigned bw = c->dict_n > 1 ? upq_bit_width32(c->dict_n - 1u) : 1u;
        size_t got = 0;
        const uint16_t *ix16 = w->idx;
        const upq_wdx *x = UPQ_W_DX(w, c);
        upq_status st;
        if (x && x->n >= nv)
            ix16 = x->idx; /* known since the values were staged */
        for (i = 0; ix16 == w->idx && i < nv; i++) {
            uint8_t tmp[16];
            const uint8_t *key;
            uint32_t klen, slot;
            int32_t ix;
            off += upq_w_staged_key(c, off, tmp, &key, &klen);
            ix = upq_w_dict_find(c, key, klen, &slot);
            if (ix < 0)
                return UPQ_ERR_STATE; /* every staged value was put in the dictionary */
            w->idx[i] = (uint16_t)ix;
        }
        if (cap < 1)
            return UPQ_ERR_BUFFER;
        out[0] = (uint8_t)bw;
        st = upq_encode_rle16(ix16, nv, bw, out + 1, cap - 1, &got);
        *len = 1 + got;
        return st;
    }
    if (c->enc == UPQ_ENC_PLAIN &&
        (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)) {
        /* staged byte arrays are PLAIN already */
        if (cap < vb)
            return UPQ_ERR_BUFFER;
        if (vb)
            upq_memcpy(out, c->vals, vb);
        *len = vb;
        return UPQ_OK;
    }
    if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        staged_bytes(c, w->bvals, nv);
        return upq_encode_values(c->enc, c->type, c->type_length, w->bvals, nv, out, cap, len);
    }
    return upq_encode_values(c->enc, c->type, c->type_length, c->vals, nv, out, cap, len);
}

void upq_w_put_stats(const upq_wcol *c, upq_statistics *s, const upq_minmax *mm, int64_t nulls,
                     int64_t nans)
{
    upq_memset(s, 0, sizeof *s);
    s->null_count = nulls;
    UPQ_SET(*s, UPQ_STATISTICS_NULL_COUNT);
    if (mm->has && mm->min_ok) {
        s->min_value.ptr = mm->min;
        s->min_value.len = mm->min_len;
        s->is_min_value_exact = mm->min_exact;
        UPQ_SET(*s, UPQ_STATISTICS_MIN_VALUE);
        UPQ_SET(*s, UPQ_STATISTICS_IS_MIN_VALUE_EXACT);
    }
    if (mm->has && mm->max_ok) {
        s->max_value.ptr = mm->max;
        s->max_value.len = mm->max_len;
        s->is_max_value_exact = mm->max_exact;
        UPQ_SET(*s, UPQ_STATISTICS_MAX_VALUE);
        UPQ_SET(*s, UPQ_STATISTICS_IS_MAX_VALUE_EXACT);
    }
    if (UPQ_SO_IS_FLOAT(c->order)) {
        s->nan_count = nans;
        UPQ_SET(*s, UPQ_STATISTICS_NAN_COUNT);
    }
}

/* Moves packed levels [n, n + rest) to the start. */
static void lev_shift(uint8_t *lv, unsigned lg, uint32_t n, uint32_t rest)
{
    uint32_t i;
    if (((n << lg) & 7u) == 0) {
        upq_memmove(lv, lv + ((n << lg) >> 3), upq_lev_bytes(rest, lg));
        return;
    }
    for (i = 0; i < rest; i++)
        upq_lev_set(lv, i, lg, upq_lev_get(lv, n + i, lg));
}

void upq_w_drop_prefix(upq_wcol *c, upq_wdx *x, uint32_t n, uint32_t nv, uint32_t vb)
{
    uint32_t rest = c->nlev - n;
    if (c->def && rest)
        lev_shift(c->def, c->dlg, n, rest);
    if (c->rep && rest)
        lev_shift(c->rep, c->rlg, n, rest);
    if (c->vbytes > vb)
        upq_memmove(c->vals, c->vals + vb, c->vbytes - vb);
    if (x && x->n > nv) {
        x->n -= nv;
        upq_memmove(x->idx, x->idx + nv, (size_t)x->n * sizeof(uint16_t));
    } else if (x) {
        x->n = 0;
    }
    c->nlev = rest;
    c->nval -= nv;
    c->vbytes -= vb;
    if (c->pending && c->pend_off >= vb)
        c->pend_off -= vb;
    c->clev = c->cval = c->cbytes = 0;
}

void upq_w_bloom_take(upq_wcol *c, uint32_t nv)
{
#if UPQ_WITH_BLOOM
    upq_bloom f;
    uint32_t i, off = 0;
    f.bits = c->bloom;
    f.num_bytes = c->bloom_bytes;
    for (i = 0; i < nv; i++) {
        uint8_t tmp[16];
        const uint8_t *key;
        uint32_t klen;
        off += upq_w_staged_key(c, off, tmp, &key, &klen);
        upq_bloom_insert(&f, upq_xxh64(key, klen, 0));
    }
#else
    (void)c;
    (void)nv;
#endif
}

/* The page's bounds into mm (and its NaNs), and the geospatial statistics
 * of its values (nv values in vb staged bytes). */
UPQ_INLINE void page_bounds(upq_writer *w, upq_wcol *c, int dict, uint32_t nv, uint32_t vb,
                            upq_minmax *mm, int64_t *nans, const w_keys *keys)
{
    *nans = 0;
#if W_F32_KEYS
    if (keys->on) {
        upq_minmax_f32_keys(mm, keys->mn, keys->mx, c->vals, nv, nans);
        return; /* (a FLOAT column is no geospatial one) */
    }
#else
    (void)keys;
#endif
    if (UPQ_WITH_STATISTICS && dict && UPQ_W_DX(w, c) && UPQ_W_DX(w, c)->n >= nv &&
        c->type == UPQ_TYPE_BYTE_ARRAY && c->order == UPQ_SO_BYTES &&
        c->dict_n <= 16u * w->lmax) {
        /* strings: compared once per entry the page uses, not once per
         * value (w->idx is free: the indices were known) */
        uint16_t *used = w->idx;
        const uint16_t *ix = UPQ_W_DX(w, c)->idx;
        uint32_t i;
        for (i = 0; i < (c->dict_n + 15u) / 16u; i++)
            used[i] = 0;
        for (i = 0; i < nv; i++)
            used[ix[i] >> 4] = (uint16_t)(used[ix[i] >> 4] | 1u << (ix[i] & 15u));
        upq_minmax_entries(mm, c->dict, c->dict_off, used, c->dict_n);
    } else if (UPQ_WITH_STATISTICS) {
        upq_minmax_page(mm, c->order, c->type, c->type_length, c->vals, nv, vb, nans);
    }
    else if (UPQ_WITH_PAGE_INDEX)
        upq_minmax_reset(mm); /* read by the page index entry only */
#if UPQ_WITH_CHUNK_META
    if (w->geo) {
        upq_geo_acc *g = upq_geo_find(w->geo, (uint32_t)(c - w->cols));
        if (g)
            upq_geo_page(g, c->vals, nv, vb);
    }
#endif
}

/* The page header model of c's committed staging as pg holds it (sizes,
 * the stored bytes for their CRC, NaNs): counts, encodings, statistics;
 * a v2 page's level bytes (rl, dl) and whether its values are compressed. */
UPQ_INLINE void page_header(upq_writer *w, const upq_wcol *c, const upq_wpage *pg, int64_t rows,
                            const upq_minmax *mm, size_t rl, size_t dl, int is_comp)
{
    upq_page_header *ph = &UPQ_W_MODELS(w)->ph;
    upq_statistics *s;
    uint32_t n = c->clev, nv = c->cval;
    int dict = c->dict_on;
    upq_memset(ph, 0, sizeof *ph);
    ph->isset = (1u << UPQ_PAGE_HEADER_TYPE) | (1u << UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE) |
                (1u << UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE);
    ph->uncompressed_page_size = (int32_t)pg->body;
    ph->compressed_page_size = (int32_t)pg->stored;
    if (UPQ_WITH_CRC && !w->o.no_crc) {
        ph->crc = (int32_t)upq_crc32_update_with(&w->crc_kernel, 0, pg->out, pg->stored);
        UPQ_SET(*ph, UPQ_PAGE_HEADER_CRC);
    }
    if (UPQ_W_V2(w)) {
        upq_data_page_header_v2 *h = &ph->data_page_header_v2;
        ph->type = UPQ_PAGE_DATA_V2;
        UPQ_SET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2);
        h->isset = (1u << UPQ_DATA_PAGE_HEADER_V2_NUM_VALUES) | (1u << UPQ_DATA_PAGE_HEADER_V2_NUM_NULLS) |
                   (1u << UPQ_DATA_PAGE_HEADER_V2_NUM_ROWS) | (1u << UPQ_DATA_PAGE_HEADER_V2_ENCODING) |
                   (1u << UPQ_DATA_PAGE_HEADER_V2_DEFINITION_LEVELS_BYTE_LENGTH) |
                   (1u << UPQ_DATA_PAGE_HEADER_V2_REPETITION_LEVELS_BYTE_LENGTH) |
                   (1u << UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED);
        h->num_values = (int32_t)n;
        h->num_nulls = (int32_t)(n - nv);
        h->num_rows = (int32_t)rows;
        h->encoding = dict ? UPQ_ENC_RLE_DICTIONARY : c->enc;
        h->definition_levels_byte_length = (int32_t)dl;
        h->repetition_levels_byte_length = (int32_t)rl;
        h->is_compressed = (uint8_t)is_comp;
        if (UPQ_W_STATS(w))
            UPQ_SET(*h, UPQ_DATA_PAGE_HEADER_V2_STATISTICS);
        s = &h->statistics;
    } else {
        upq_data_page_header *h = &ph->data_page_header;
        ph->type = UPQ_PAGE_DATA;
        UPQ_SET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER);
        h->isset = (1u << UPQ_DATA_PAGE_HEADER_NUM_VALUES) | (1u << UPQ_DATA_PAGE_HEADER_ENCODING) |
                   (1u << UPQ_DATA_PAGE_HEADER_DEFINITION_LEVEL_ENCODING) |
                   (1u << UPQ_DATA_PAGE_HEADER_REPETITION_LEVEL_ENCODING);
        h->num_values = (int32_t)n;
        /* parquet-java's v1 names, which old readers expect */
        h->encoding = dict ? UPQ_ENC_PLAIN_DICTIONARY : c->enc;
        h->definition_level_encoding = UPQ_ENC_RLE;
        h->repetition_level_encoding = UPQ_ENC_RLE;
        if (UPQ_W_STATS(w))
            UPQ_SET(*h, UPQ_DATA_PAGE_HEADER_STATISTICS);
        s = &h->statistics;
    }
    if (UPQ_W_STATS(w))
        upq_w_put_stats(c, s, mm, (int64_t)(n - nv), pg->nans);
}

/* The header model encoded into w->hbuf (a module when the column is
 * encrypted; `dry`: only counted). *hl gets its bytes. */
UPQ_INLINE upq_status header_out(upq_writer *w, upq_wcol *c, int dry, size_t *hl)
{
    upq_page_header *ph = &UPQ_W_MODELS(w)->ph;
    int32_t col = (int32_t)(c - w->cols);
    upq_status st;
    if (UPQ_W_KEY(c) && dry) {
        /* a model the encoder refuses fails when the page is made */
        (void)upq_w_page_header_put(ph, (uint8_t *)0, 0, hl);
        *hl += UPQ_W_CRYPTO_OVER;
    } else if (UPQ_W_KEY(c)) {
        /* sealed: the header module goes to w->hbuf (length, nonce, tag
         * counted in UPQ_W_CRYPTO_OVER) */
        size_t hm = 0, pl = 0;
        st = upq_w_page_header_put(ph, w->hbuf + 16,
                               w->hbuf_cap - 16u - UPQ_W_CRYPTO_OVER, &pl);
        if (st != UPQ_OK)
            return upq_w_fail(w, UPQ_ERR_STATE, col, "page header larger than its bound");
        st = upq_wc_seal(w, c->key, UPQ_MODULE_DATA_PAGE_HEADER, col, (int32_t)c->npages, w->hbuf,
                         pl, (const uint8_t *)0, &hm);
        if (st != UPQ_OK)
            return st;
        *hl = hm;
    } else {
        st = upq_w_page_header_put(ph, w->hbuf, w->hbuf_cap, hl);
        if (st != UPQ_OK)
            return upq_w_fail(w, UPQ_ERR_STATE, col, "page header larger than its bound");
    }
    return UPQ_OK;
}

upq_status upq_w_encode_page(upq_writer *w, upq_wcol *c, int64_t rows, uint8_t *dst, size_t room,
                             upq_minmax *mm, upq_wpage *pg, int dry)
{
    uint32_t n = c->clev, nv = c->cval, vb = c->cbytes;
    int v2 = UPQ_W_V2(w);
    int dict = c->dict_on;
    int32_t col = (int32_t)(c - w->cols);
    size_t pos = 0, rl = 0, dl = 0, vl = 0, lev, body, stored;
    int is_comp = 0;
    /* Uncompressed, the body is made where it is stored (the caller's dst)
     * rather than in w->pbuf and copied there; compressed, byte arrays
     * staged PLAIN already are compressed from the staging when nothing
     * must go before them in the same input (levels, in a v1 page). Either
     * way a page of one large value is not held a third time. */
    uint8_t *buf = !UPQ_W_COMPRESSING(w) && dst ? dst : w->pbuf;
    size_t cap = buf == dst ? room : w->pbuf_cap;
    int staged = !dict && c->enc == UPQ_ENC_PLAIN &&
                 (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) &&
                 UPQ_W_COMPRESSING(w) && (v2 || (!c->max_rep && !c->max_def));
    const uint8_t *vsrc;
    upq_status st;
    w_keys keys;

    keys.on = 0; /* (set where the values are split with their keys) */
    /* body: levels, then values */
    if (c->max_rep) {
        st = put_levels(c->rep, c->rlg, n, c->max_rep, v2, buf, cap, &rl);
        if (st != UPQ_OK)
            return upq_w_fail(w, st == UPQ_ERR_INVAL ? UPQ_ERR_STATE : st, col, "repetition levels");
        pos += rl;
    }
    if (c->max_def) {
        st = put_levels(c->def, c->dlg, n, c->max_def, v2, buf + pos, cap - pos, &dl);
        if (st != UPQ_OK)
            return upq_w_fail(w, st == UPQ_ERR_INVAL ? UPQ_ERR_STATE : st, col, "definition levels");
        pos += dl;
    }
    lev = pos;
    if (staged) {
        vl = vb;
        vsrc = c->vals;
    } else {
        st = put_values(w, c, dict, nv, vb, buf + pos, cap - pos, &vl, &keys);
        if (st != UPQ_OK)
            return upq_w_fail(w, st == UPQ_ERR_BUFFER ? UPQ_ERR_STATE : st, col, "encoding values");
        vsrc = buf + pos;
    }
    body = lev + vl;
    if (body > INT32_MAX)
        return upq_w_fail(w, UPQ_ERR_LIMIT, col, "page larger than 2 GiB");

    page_bounds(w, c, dict, nv, vb, mm, &pg->nans, &keys);

    /* stored form */
    if (!UPQ_W_COMPRESSING(w)) {
        stored = body;
        dst = buf; /* made in place */
    } else if (!v2) {
        /* staged: no levels, the values are the body */
        st = upq_compress(w->o.codec, staged ? vsrc : w->pbuf, body, dst, room, &stored, &w->arena);
        if (st != UPQ_OK)
            return upq_w_fail(w, st == UPQ_ERR_BUFFER ? UPQ_ERR_STATE : st, col, "compressing a page");
        is_comp = 1;
    } else {
        size_t cl = 0;
        if (room < body)
            return upq_w_fail(w, UPQ_ERR_STATE, col, "chunk buffer overrun");
        upq_memcpy(dst, w->pbuf, lev);
        stored = body;
        if (vl > 0) {
            st = upq_compress(w->o.codec, vsrc, vl, dst + lev, room - lev, &cl, &w->arena);
            if (st != UPQ_OK)
                return upq_w_fail(w, st == UPQ_ERR_BUFFER ? UPQ_ERR_STATE : st, col,
                                  "compressing a page");
            if (cl < vl) {
                is_comp = 1;
                stored = lev + cl;
            }
        }
        if (!is_comp && vl)
            upq_memcpy(dst + lev, vsrc, vl); /* not worth it: stored as is */
    }
    if (stored > INT32_MAX)
        return upq_w_fail(w, UPQ_ERR_LIMIT, col, "page larger than 2 GiB");
    if (UPQ_W_KEY(c) && dry) {
        stored += UPQ_W_CRYPTO_OVER; /* sized only: no nonce is spent */
    } else if (UPQ_W_KEY(c)) {
        /* sealed in place: its length and nonce go in the 16 bytes reserved
         * ahead of it, the tag after it (both counted in c->worst) */
        size_t ml = 0;
        if (room < stored + UPQ_W_CRYPTO_OVER)
            return upq_w_fail(w, UPQ_ERR_STATE, col, "chunk buffer overrun");
        st = upq_wc_seal(w, c->key, UPQ_MODULE_DATA_PAGE, col, (int32_t)c->npages, dst - 16, stored,
                         (const uint8_t *)0, &ml);
        if (st != UPQ_OK)
            return st;
        dst -= 16;
        stored = ml;
    }

    pg->body = body;
    pg->stored = stored;
    pg->out = dst;
    page_header(w, c, pg, rows, mm, rl, dl, is_comp);
    return header_out(w, c, dry, &pg->hl);
}

/* Levels of one bit (an optional column's) counted 32 at a time: also in
 * size-optimised builds with UPQ_FAST_KERNELS, as a page's definition
 * histogram is counted this way once a page (a level a step took 16
 * instructions on Cortex-M4; about 100 bytes of flash). */
#define W_LEV_POPCOUNT (UPQ_W_FAST || UPQ_FAST_KERNELS)

uint32_t upq_w_lev_count(const uint8_t *lv, uint32_t from, uint32_t n, unsigned lg, uint32_t v)
{
    uint32_t i = from, end = from + n, k = 0;
    if (W_LEV_POPCOUNT && lg == 0 && v <= 1) {
        /* one bit a level: whole bytes by popcount */
        for (; i < end && (i & 7u); i++)
            k += upq_lev_get(lv, i, 0);
        for (; end - i >= 32; i += 32)
            k += upq_popcount32(upq_load_le32(lv + (i >> 3)));
        for (; end - i >= 8; i += 8)
            k += upq_popcount32(lv[i >> 3]);
        for (; i < end; i++)
            k += upq_lev_get(lv, i, 0);
        return v ? k : n - k;
    }
    for (; i < end; i++)
        k += upq_lev_get(lv, i, lg) == v;
    return k;
}

void upq_w_hist_add(int64_t *h, const uint8_t *lv, unsigned lg, uint32_t n)
{
    uint32_t i;
    if (W_LEV_POPCOUNT && lg == 0) {
        /* levels 0 and 1 only: count the ones */
        uint32_t ones = upq_w_lev_count(lv, 0, n, 0, 1);
        h[1] += ones;
        h[0] += n - ones;
        return;
    }
    for (i = 0; i < n; i++)
        h[upq_lev_get(lv, i, lg)]++;
}


upq_status upq_w_dict_page(upq_writer *w, upq_wcol *c, size_t *hdr_len)
{
    upq_page_header *ph = &UPQ_W_MODELS(w)->ph;
    const uint8_t *body = c->dict;
    size_t stored = c->dict_bytes;
    int32_t col = (int32_t)(c - w->cols);
    uint8_t *nonce = UPQ_W_KEY(c) ? w->wc->dict_nonce + (size_t)col * 24u : (uint8_t *)0;
    upq_status st;

    /* encrypted: the body is built at pbuf + 16 and sealed there */
    size_t at = UPQ_W_KEY(c) ? 16u : 0u, tail = UPQ_W_KEY(c) ? UPQ_W_CRYPTO_OVER : 0u;
    if (UPQ_W_COMPRESSING(w)) {
        st = upq_compress(w->o.codec, c->dict, c->dict_bytes, w->pbuf + at, w->pbuf_cap - tail,
                          &stored, &w->arena);
        if (st != UPQ_OK)
            return upq_w_fail(w, st == UPQ_ERR_BUFFER ? UPQ_ERR_STATE : st, col,
                              "compressing a dictionary page");
        body = w->pbuf;
    }
    if (UPQ_W_KEY(c)) {
        size_t ml = 0;
        if (!UPQ_W_COMPRESSING(w)) {
            if (stored > w->pbuf_cap - tail)
                return upq_w_fail(w, UPQ_ERR_STATE, col, "dictionary larger than its buffer");
            upq_memcpy(w->pbuf + 16, c->dict, stored);
        }
        /* the same nonces when the page is made again for output, so it
         * has the same bytes as when the layout was fixed */
        if (!c->dict_nonce_set) {
            st = upq_wc_nonce(w, c->key, nonce);
            if (st == UPQ_OK)
                st = upq_wc_nonce(w, c->key, nonce + 12);
            if (st != UPQ_OK)
                return st;
            c->dict_nonce_set = 1;
        }
        st = upq_wc_seal(w, c->key, UPQ_MODULE_DICT_PAGE, col, -1, w->pbuf, stored,
                         nonce + 12, &ml);
        if (st != UPQ_OK)
            return st;
        stored = ml;
        body = w->pbuf;
    }
    upq_memset(ph, 0, sizeof *ph);
    ph->isset = (1u << UPQ_PAGE_HEADER_TYPE) | (1u << UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE) |
                (1u << UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE) |
                (1u << UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
    ph->type = UPQ_PAGE_DICTIONARY;
    ph->uncompressed_page_size = (int32_t)c->dict_bytes;
    ph->compressed_page_size = (int32_t)stored;
    if (UPQ_WITH_CRC && !w->o.no_crc) {
        ph->crc = (int32_t)upq_crc32_update_with(&w->crc_kernel, 0, body, stored);
        UPQ_SET(*ph, UPQ_PAGE_HEADER_CRC);
    }
    ph->dictionary_page_header.isset = (1u << UPQ_DICTIONARY_PAGE_HEADER_NUM_VALUES) |
                                       (1u << UPQ_DICTIONARY_PAGE_HEADER_ENCODING);
    ph->dictionary_page_header.num_values = (int32_t)c->dict_n;
    ph->dictionary_page_header.encoding =
        UPQ_W_V2(w) ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY;
    st = upq_w_page_header_put(ph, w->hbuf + at, w->hbuf_cap - at - tail, hdr_len);
    if (st != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_STATE, col, "dictionary page header larger than its bound");
    if (UPQ_W_KEY(c)) {
        size_t hm = 0;
        st = upq_wc_seal(w, c->key, UPQ_MODULE_DICT_PAGE_HEADER, col, -1, w->hbuf, *hdr_len,
                         nonce, &hm);
        if (st != UPQ_OK)
            return st;
        *hdr_len = hm;
    }
    c->dict_stored = (int32_t)stored;
    c->dict_unc = (int32_t)c->dict_bytes;
    return UPQ_OK;
}

/* ---- a chunk's state ----------------------------------------------------------- */

void upq_w_chunk_clear(upq_wcol *c)
{
    c->chunk_used = 0;
    c->npages = 0;
    c->ci_ok = 1;
    if (UPQ_WITH_STATISTICS)
        upq_minmax_reset(&c->st); /* the chunk statistics, read by them alone */
    c->nulls = c->nans = c->num_values = c->unc_bytes = c->comp_bytes = c->ba_bytes = 0;
    if (c->def_hist)
        upq_memset(c->def_hist, 0, ((size_t)c->max_def + 1u) * sizeof(int64_t));
    if (c->rep_hist)
        upq_memset(c->rep_hist, 0, ((size_t)c->max_rep + 1u) * sizeof(int64_t));
    c->enc_mask = 0;
    c->pages_dict = c->pages_plain = 0;
    c->dict_hdr = c->dict_stored = c->dict_unc = c->ci_len = c->oi_len = c->bf_hdr = 0;
    if (UPQ_WITH_CRYPTO)
        c->dict_nonce_set = 0;
    if (UPQ_WITH_BLOOM && c->bloom)
        upq_memset(c->bloom, 0, c->bloom_bytes);
    upq_w_dict_clear(c);
}

void upq_w_chunks_clear(upq_writer *w)
{
    uint32_t i;
    for (i = 0; i < w->ncols; i++) {
        upq_wdx *x = UPQ_W_DX(w, &w->cols[i]);
        upq_w_chunk_clear(&w->cols[i]);
        if (x)
            x->n = 0; /* indices into the dictionary cleared */
    }
    upq_w_geo_clear(w);
}

#endif /* UPQ_WITH_WRITER */
