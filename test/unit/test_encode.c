/*
 * The value and level encoders (core/encode/encode.h).
 *
 *  1. Byte vectors derived by hand from the specification (its worked
 *     examples and a few small cases; each derivation is in a comment).
 *  2. Byte-for-byte agreement with reference encoders written here and in
 *     enc_util.h, independently of the library and in the slow obvious way:
 *     a transcription of parquet-cpp/Arrow's RleEncoder state machine for the
 *     hybrid, put_delta() for DELTA_BINARY_PACKED (blocks of 128 in 4
 *     miniblocks, zero padding), and direct byte layouts for the rest.
 *  3. Round trips through the library's decoders, for every type and
 *     encoding, many sizes, extreme values, every hybrid bit width.
 *  4. Sizing: the bounds are never exceeded, a too small buffer gives
 *     UPQ_ERR_BUFFER with the exact size, and nothing is written past cap
 *     (buffers are allocated to exactly cap bytes, for AddressSanitizer).
 */
#include <limits.h>

#include "enc_util.h"
#include "encode/encode.h"
#include "util/check.h"

static const size_t sizes[] = {0, 1, 7, 8, 9, 127, 128, 129, 1000, 10000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* ---- helpers ---------------------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("out of memory\n");
        exit(2);
    }
    return p;
}

static size_t payload_of(int32_t type, const void *vals, size_t n)
{
    size_t s = 0, i;
    if (type != UPQ_TYPE_BYTE_ARRAY && type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return 0;
    for (i = 0; i < n; i++)
        s += ((const upq_bytes *)vals)[i].len;
    return s;
}

static int same(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* Encodes into a buffer of exactly `cap` bytes (NULL when 0). */
static upq_status enc_cap(int32_t enc, int32_t type, int32_t tl, const void *vals, size_t n,
                          size_t cap, uint8_t **buf, size_t *len)
{
    *buf = cap ? (uint8_t *)xmalloc(cap) : NULL;
    return upq_encode_values(enc, type, tl, vals, n, *buf, cap, len);
}

/*
 * The sizing checks shared by every vector: the bound holds, the exact size
 * works and gives the same bytes, anything smaller reports the exact size.
 * `want` is the output at cap = bound.
 */
static void check_sizing(int32_t enc, int32_t type, int32_t tl, const void *vals, size_t n,
                         const uint8_t *want, size_t len)
{
    uint8_t *b;
    size_t got = 12345, cap;
    upq_status st;

    st = enc_cap(enc, type, tl, vals, n, len, &b, &got);
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_UINT(got, len);
    TU_CHECK(same(b, got, want, len));
    free(b);
    if (len == 0)
        return;
    st = upq_encode_values(enc, type, tl, vals, n, NULL, 0, &got);
    TU_CHECK_STATUS(st, UPQ_ERR_BUFFER);
    TU_CHECK_UINT(got, len);
    cap = len - 1;
    st = enc_cap(enc, type, tl, vals, n, cap, &b, &got);
    TU_CHECK_STATUS(st, UPQ_ERR_BUFFER);
    TU_CHECK_UINT(got, len);
    free(b);
    cap = eu_below(len);
    st = enc_cap(enc, type, tl, vals, n, cap, &b, &got);
    TU_CHECK_STATUS(st, UPQ_ERR_BUFFER);
    TU_CHECK_UINT(got, len);
    free(b);
}

/* Decodes p[0..len) with the library's decoder and compares with vals. */
static void check_decode(int32_t enc, int32_t type, int32_t tl, const uint8_t *p, size_t len,
                         const void *vals, size_t n)
{
    upq_values_dec d;
    tbuf want = {0}, got = {0};
    size_t payload = payload_of(type, vals, n);
    uint8_t *copy = (uint8_t *)xmalloc(len), *prev = (uint8_t *)xmalloc(payload + 1);
    upq_status st;

    if (len)
        memcpy(copy, p, len);
    st = upq_values_init(&d, enc, type, tl, copy, len, (uint32_t)n, NULL, prev, payload + 1);
    if (TU_CHECK_STATUS(st, UPQ_OK)) {
        /* the DELTA and BYTE_STREAM_SPLIT sections say how many values they hold */
        if (enc != UPQ_ENC_PLAIN && enc != UPQ_ENC_RLE)
            TU_CHECK_UINT(upq_values_left(&d), n);
        canon(&want, type, vals, n);
        st = decode_all(&d, type, n, eu_rand() & 1 ? 0 : 100, payload + 64, &got);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_MSG(same(got.b, got.len, want.b, want.len), "decoded values differ (%zu values)",
                     n);
    }
    free(copy);
    free(prev);
    tb_free(&want);
    tb_free(&got);
}

/* ---- reference encoders ------------------------------------------------------- */

/* parquet-cpp/Arrow's RleEncoder (Put, FlushBufferedValues, FlushLiteralRun,
 * FlushRepeatedRun, Flush), state for state. */
typedef struct arrow_rle {
    tbuf *t;
    unsigned bw;
    uint64_t cur;
    int repeat, nbuf, lit_count;
    uint64_t buf[8];
    long hdr; /* position of the reserved literal indicator byte, or -1 */
} arrow_rle;

static void ar_flush_literal(arrow_rle *a, int update)
{
    if (a->hdr < 0) {
        a->hdr = (long)a->t->len;
        put_u8(a->t, 0);
    }
    put_bits_lsb(a->t, a->buf, (size_t)a->nbuf, a->bw); /* nbuf is 0 or 8: whole bytes */
    a->nbuf = 0;
    if (update) {
        a->t->b[a->hdr] = (uint8_t)(((a->lit_count / 8) << 1) | 1);
        a->hdr = -1;
        a->lit_count = 0;
    }
}

static void ar_flush_repeated(arrow_rle *a)
{
    unsigned k;
    put_uleb(a->t, (uint64_t)a->repeat << 1);
    for (k = 0; k < (a->bw + 7) / 8; k++)
        put_u8(a->t, (uint8_t)(a->cur >> (8 * k)));
    a->nbuf = 0;
    a->repeat = 0;
}

static void ar_flush_buffered(arrow_rle *a, int done)
{
    if (a->repeat >= 8) {
        a->nbuf = 0;
        if (a->lit_count != 0)
            ar_flush_literal(a, 1);
        return;
    }
    a->lit_count += a->nbuf;
    if (a->lit_count / 8 + 1 >= (1 << 6))
        ar_flush_literal(a, 1);
    else
        ar_flush_literal(a, done);
    a->repeat = 0;
}

static void ar_put(arrow_rle *a, uint64_t v)
{
    if (a->cur == v) {
        ++a->repeat;
        if (a->repeat > 8)
            return;
    } else {
        if (a->repeat >= 8)
            ar_flush_repeated(a);
        a->repeat = 1;
        a->cur = v;
    }
    a->buf[a->nbuf] = v;
    if (++a->nbuf == 8)
        ar_flush_buffered(a, 0);
}

static void ar_flush(arrow_rle *a)
{
    if (a->lit_count > 0 || a->repeat > 0 || a->nbuf > 0) {
        int all_repeat = a->lit_count == 0 && (a->repeat == a->nbuf || a->nbuf == 0);
        if (a->repeat > 0 && all_repeat) {
            ar_flush_repeated(a);
        } else {
            for (; a->nbuf != 0 && a->nbuf < 8; ++a->nbuf)
                a->buf[a->nbuf] = 0;
            a->lit_count += a->nbuf;
            ar_flush_literal(a, 1);
            a->repeat = 0;
        }
    }
}

static void ref_hybrid(tbuf *t, const uint32_t *v, size_t n, unsigned bw)
{
    arrow_rle a;
    size_t i;
    memset(&a, 0, sizeof a);
    a.t = t;
    a.bw = bw;
    a.hdr = -1;
    for (i = 0; i < n; i++)
        ar_put(&a, v[i]);
    ar_flush(&a);
}

/* PLAIN, byte by byte. */
static void ref_plain(tbuf *t, int32_t type, int32_t tl, const void *vals, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        switch (type) {
        case UPQ_TYPE_BOOLEAN:
            if (i % 8 == 0)
                put_u8(t, 0);
            if (((const uint8_t *)vals)[i])
                t->b[t->len - 1] |= (uint8_t)(1u << (i % 8));
            break;
        case UPQ_TYPE_INT32: put_le32(t, (uint32_t)((const int32_t *)vals)[i]); break;
        case UPQ_TYPE_INT64: put_le64(t, (uint64_t)((const int64_t *)vals)[i]); break;
        case UPQ_TYPE_INT96: put_bytes(t, ((const upq_int96 *)vals)[i].b, 12); break;
        case UPQ_TYPE_FLOAT: {
            uint32_t u;
            memcpy(&u, (const float *)vals + i, 4);
            put_le32(t, u);
            break;
        }
        case UPQ_TYPE_DOUBLE: {
            uint64_t u;
            memcpy(&u, (const double *)vals + i, 8);
            put_le64(t, u);
            break;
        }
        case UPQ_TYPE_BYTE_ARRAY:
            put_le32(t, ((const upq_bytes *)vals)[i].len);
            put_bytes(t, ((const upq_bytes *)vals)[i].ptr, ((const upq_bytes *)vals)[i].len);
            break;
        default: put_bytes(t, ((const upq_bytes *)vals)[i].ptr, (size_t)tl); break;
        }
    }
}

static void ref_bss(tbuf *t, int32_t type, int32_t tl, const void *vals, size_t n)
{
    tbuf plain = {0};
    size_t w = type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? (size_t)tl : upq_value_size(type), i, k;
    ref_plain(&plain, type, tl, vals, n);
    for (k = 0; k < w; k++)
        for (i = 0; i < n; i++)
            put_u8(t, plain.b[i * w + k]);
    tb_free(&plain);
}

static uint32_t ref_prefix(const upq_bytes *a, const upq_bytes *b)
{
    uint32_t i = 0;
    while (i < a->len && i < b->len && a->ptr[i] == b->ptr[i])
        i++;
    return i;
}

static void ref_delta_bytes(tbuf *t, int32_t enc, const upq_bytes *v, size_t n)
{
    uint64_t *pre = (uint64_t *)xmalloc(n * sizeof *pre), *suf = (uint64_t *)xmalloc(n * sizeof *suf);
    size_t i;
    for (i = 0; i < n; i++) {
        pre[i] = enc == UPQ_ENC_DELTA_BYTE_ARRAY && i ? ref_prefix(&v[i - 1], &v[i]) : 0;
        suf[i] = v[i].len - pre[i];
    }
    if (enc == UPQ_ENC_DELTA_BYTE_ARRAY)
        put_delta(t, pre, n, 0, 128, 4, 0);
    put_delta(t, suf, n, 0, 128, 4, 0);
    for (i = 0; i < n; i++)
        if (suf[i])
            put_bytes(t, v[i].ptr + pre[i], (size_t)suf[i]);
    free(pre);
    free(suf);
}

static void ref_values(tbuf *t, int32_t enc, int32_t type, int32_t tl, const void *vals, size_t n)
{
    size_t i;
    switch (enc) {
    case UPQ_ENC_PLAIN: ref_plain(t, type, tl, vals, n); break;
    case UPQ_ENC_RLE: {
        uint32_t *u = (uint32_t *)xmalloc(n * sizeof *u);
        tbuf h = {0};
        for (i = 0; i < n; i++)
            u[i] = ((const uint8_t *)vals)[i] != 0;
        ref_hybrid(&h, u, n, 1);
        put_le32(t, (uint32_t)h.len);
        put_bytes(t, h.b, h.len);
        tb_free(&h);
        free(u);
        break;
    }
    case UPQ_ENC_DELTA_BINARY_PACKED: {
        uint64_t *u = (uint64_t *)xmalloc(n * sizeof *u);
        for (i = 0; i < n; i++)
            u[i] = type == UPQ_TYPE_INT32 ? (uint64_t)(uint32_t)((const int32_t *)vals)[i]
                                          : (uint64_t)((const int64_t *)vals)[i];
        put_delta(t, u, n, type == UPQ_TYPE_INT64, 128, 4, 0);
        free(u);
        break;
    }
    case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case UPQ_ENC_DELTA_BYTE_ARRAY: ref_delta_bytes(t, enc, (const upq_bytes *)vals, n); break;
    default: ref_bss(t, type, tl, vals, n); break;
    }
}

/* ---- one vector through every check ------------------------------------------- */

static void check_values(int32_t enc, int32_t type, int32_t tl, const void *vals, size_t n)
{
    size_t bound = upq_encode_bound(enc, type, tl, n, payload_of(type, vals, n)), len = 0;
    uint8_t *out = (uint8_t *)xmalloc(bound);
    tbuf ref = {0};
    upq_status st = upq_encode_values(enc, type, tl, vals, n, out, bound, &len);

    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_MSG(len <= bound, "len %zu > bound %zu", len, bound);
    if (st == UPQ_OK) {
        ref_values(&ref, enc, type, tl, vals, n);
        TU_CHECK_MSG(same(out, len, ref.b, ref.len),
                     "differs from the reference encoder (%zu vs %zu bytes)", len, ref.len);
        check_sizing(enc, type, tl, vals, n, out, len);
        check_decode(enc, type, tl, out, len, vals, n);
    }
    tb_free(&ref);
    free(out);
}

/* ---- 1. hand-derived vectors ----------------------------------------------------- */

static void expect_values(const char *name, int32_t enc, int32_t type, int32_t tl,
                          const void *vals, size_t n, const uint8_t *want, size_t wlen)
{
    uint8_t out[512];
    size_t len = 0;
    tu_case("%s", name);
    TU_CHECK_STATUS(upq_encode_values(enc, type, tl, vals, n, out, sizeof out, &len), UPQ_OK);
    TU_CHECK_UINT(len, wlen);
    if (len == wlen)
        TU_CHECK_MEM(out, want, wlen);
    TU_CHECK(len <= upq_encode_bound(enc, type, tl, n, payload_of(type, vals, n)));
    check_decode(enc, type, tl, out, len, vals, n);
}

static void expect_rle32(const char *name, const uint32_t *v, size_t n, unsigned bw,
                         const uint8_t *want, size_t wlen)
{
    uint8_t out[512];
    size_t len = 0;
    tu_case("%s", name);
    TU_CHECK_STATUS(upq_encode_rle32(v, n, bw, out, sizeof out, &len), UPQ_OK);
    TU_CHECK_UINT(len, wlen);
    if (len == wlen)
        TU_CHECK_MEM(out, want, wlen);
    TU_CHECK(len <= upq_rle_bound(n, bw));
}

static void test_spec_hybrid(void)
{
    /* Spec: 0..7 in 3 bits pack to 10001000 11000110 11111010. Eight values
     * that are not all equal make one bit-packed group: header
     * (1 group << 1) | 1 = 0x03. */
    static const uint32_t v0_7[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const uint8_t e0_7[] = {0x03, 0x88, 0xC6, 0xFA};
    /* 8 x 5 first: an RLE run, header 8 << 1 = 0x10 and the value in one
     * byte; the grouping restarts after it. */
    uint32_t v[600];
    static const uint8_t e_run_lit[] = {0x10, 0x05, 0x03, 0x88, 0xC6, 0xFA};
    /* 0,1 alternating in 1 bit: every group is 0b10101010 = 0xAA; 64 groups
     * make a run of 63 (header 63 << 1 | 1 = 0x7F) and a run of 1 (0x03). */
    uint8_t e_64[1 + 63 + 2];
    /* 9 values: one group, then a last value 1 padded with zeros to a
     * second group (0x01) in the same run: header 2 << 1 | 1 = 0x05. */
    static const uint8_t e_tail[] = {0x05, 0xAA, 0x01};
    /* 10 x 2 then 3 x 3 in 2 bits: RLE 10 (0x14, 0x02), then the last 3
     * values are equal with no bit-packed run open: RLE 3 (0x06, 0x03). */
    static const uint8_t e_tail_rle[] = {0x14, 0x02, 0x06, 0x03};
    /* width 0: 20 zeros are one RLE run, 20 << 1 = 0x28, no value bytes */
    static const uint8_t e_w0[] = {0x28};
    /* width 9: 300 = 0x012C in two little-endian bytes */
    static const uint8_t e_w9[] = {0x10, 0x2C, 0x01};
    static const uint8_t e_w32[] = {0x10, 0xEF, 0xBE, 0xAD, 0xDE};
    /* 1000 x 7: header 2000 = 0x7D0, ULEB128 0xD0 0x0F */
    static const uint8_t e_long[] = {0xD0, 0x0F, 0x07};
    /* 9 x 1 (RLE 9: 0x12 0x01), then 0,1,... regrouped from there (0x03 0xAA) */
    static const uint8_t e_regroup[] = {0x12, 0x01, 0x03, 0xAA};
    /* groups: 0,1,0,1,0,1,0,1 | 0,1,1,1,1,1,1,1 | 1 x 8. The second group is
     * not all equal although its 1s go on: bit-packed (0xFE); the third is
     * an RLE run of 8 (0x10 0x01): header 0x05 for two groups. */
    static const uint8_t e_aligned[] = {0x05, 0xAA, 0xFE, 0x10, 0x01};
    /* fewer than 8 values, not all equal: one padded group (1,0,1 -> 0x05) */
    static const uint8_t e_short[] = {0x03, 0x05};
    /* one value: an RLE run of 1 */
    static const uint8_t e_one[] = {0x02, 0x01};
    size_t i;

    expect_rle32("hybrid: spec example 0..7 in 3 bits", v0_7, 8, 3, e0_7, sizeof e0_7);
    for (i = 0; i < 8; i++) {
        v[i] = 5;
        v[8 + i] = (uint32_t)i;
    }
    expect_rle32("hybrid: RLE run then a bit-packed group", v, 16, 3, e_run_lit, sizeof e_run_lit);
    for (i = 0; i < 512; i++)
        v[i] = (uint32_t)(i & 1);
    e_64[0] = 0x7F;
    memset(e_64 + 1, 0xAA, 63);
    e_64[64] = 0x03;
    e_64[65] = 0xAA;
    expect_rle32("hybrid: 64 bit-packed groups make runs of 63 and 1", v, 512, 1, e_64,
                 sizeof e_64);
    v[8] = 1;
    expect_rle32("hybrid: last partial group joins the open run", v, 9, 1, e_tail, sizeof e_tail);
    for (i = 0; i < 10; i++)
        v[i] = 2;
    v[10] = v[11] = v[12] = 3;
    expect_rle32("hybrid: equal last values after an RLE run", v, 13, 2, e_tail_rle,
                 sizeof e_tail_rle);
    memset(v, 0, sizeof v);
    expect_rle32("hybrid: bit width 0", v, 20, 0, e_w0, sizeof e_w0);
    for (i = 0; i < 8; i++)
        v[i] = 300;
    expect_rle32("hybrid: bit width 9 value bytes", v, 8, 9, e_w9, sizeof e_w9);
    for (i = 0; i < 8; i++)
        v[i] = 0xDEADBEEFu;
    expect_rle32("hybrid: bit width 32 value bytes", v, 8, 32, e_w32, sizeof e_w32);
    {
        uint32_t *big = (uint32_t *)xmalloc(1000 * sizeof *big);
        for (i = 0; i < 1000; i++)
            big[i] = 7;
        expect_rle32("hybrid: long run header", big, 1000, 3, e_long, sizeof e_long);
        free(big);
    }
    for (i = 0; i < 9; i++)
        v[i] = 1;
    for (i = 0; i < 8; i++)
        v[9 + i] = (uint32_t)(i & 1);
    expect_rle32("hybrid: grouping restarts after an RLE run", v, 17, 1, e_regroup,
                 sizeof e_regroup);
    for (i = 0; i < 8; i++)
        v[i] = (uint32_t)(i & 1);
    v[8] = 0;
    for (i = 9; i < 24; i++)
        v[i] = 1;
    expect_rle32("hybrid: RLE runs start on group boundaries", v, 24, 1, e_aligned,
                 sizeof e_aligned);
    v[0] = 1;
    v[1] = 0;
    v[2] = 1;
    expect_rle32("hybrid: short input, not all equal", v, 3, 1, e_short, sizeof e_short);
    expect_rle32("hybrid: one value", v, 1, 1, e_one, sizeof e_one);
    expect_rle32("hybrid: no values", v, 0, 5, e_one, 0);
}

static void test_spec_delta(void)
{
    /* The spec's examples use blocks of 8 values in 1 miniblock (invalid in
     * files, so only the shape-taking entry point makes them).
     * Example 1: 1..5, deltas 1 -> min delta 1 (zigzag 2), width 0, no data.
     * Header 8, 1, 5, zigzag(1) = 2. */
    static const int32_t x1[] = {1, 2, 3, 4, 5};
    static const uint8_t s1[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
    /* Example 2: 7,5,3,1,2,3,4,5: deltas -2,-2,-2,1,1,1,1, min -2 (zigzag
     * 3), relative 0,0,0,3,3,3,3 (+1 padding 0) in 2 bits, LSB first:
     * 0b11000000 = 0xC0, 0b00111111 = 0x3F. Header 8, 1, 8, zigzag(7) = 14. */
    static const int32_t x2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    static const uint8_t s2[] = {0x08, 0x01, 0x08, 0x0E, 0x03, 0x02, 0xC0, 0x3F};
    /* The same in the real shape: block 128 (ULEB 0x80 0x01), 4 miniblocks;
     * unused miniblocks have width 0 and no bytes, a used one is padded to
     * 32 values (2 bits: 8 bytes). */
    static const uint8_t r1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t r2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
                                 0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
    /* INT32_MAX then INT32_MIN: zigzag(INT32_MAX) = 0xFFFFFFFE (ULEB FE FF FF
     * FF 0F); the delta wraps to +1: min delta 1 (zigzag 2), width 0. */
    static const int32_t x3[] = {INT32_MAX, INT32_MIN};
    static const uint8_t r3[] = {0x80, 0x01, 0x04, 0x02, 0xFE, 0xFF, 0xFF,
                                 0xFF, 0x0F, 0x02, 0x00, 0x00, 0x00, 0x00};
    /* INT64_MIN then INT64_MAX: zigzag(INT64_MIN) = 2^64 - 1 (ULEB nine 0xFF
     * and 0x01); the delta wraps to -1 (zigzag 1), width 0. */
    static const int64_t x4[] = {INT64_MIN, INT64_MAX};
    static const uint8_t r4[] = {0x80, 0x01, 0x04, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0xFF, 0xFF, 0xFF, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00};
    /* no values: header only, first value 0; one value -64: zigzag 127 */
    static const uint8_t r5[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    static const int32_t x6[] = {-64};
    static const uint8_t r6[] = {0x80, 0x01, 0x04, 0x01, 0x7F};
    /* 0..32 then 100: 33 deltas, 32 of 1 and one of 68. Min delta 1; the
     * first miniblock is all 0 (width 0, no bytes), the second holds 67 =
     * 0x43 in 7 bits (width 7: 32 * 7 / 8 = 28 bytes), two unused (0). */
    int32_t x7[34];
    uint8_t r7[11 + 27];
    uint8_t out[64];
    size_t len, i;

    tu_case("DELTA_BINARY_PACKED: spec example 1 (block of 8)");
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 8, 1, out, sizeof out, &len),
                    UPQ_OK);
    TU_CHECK_UINT(len, sizeof s1);
    TU_CHECK_MEM(out, s1, sizeof s1);
    tu_case("DELTA_BINARY_PACKED: spec example 2 (block of 8)");
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x2, 8, 8, 1, out, sizeof out, &len),
                    UPQ_OK);
    TU_CHECK_UINT(len, sizeof s2);
    TU_CHECK_MEM(out, s2, sizeof s2);
    {
        /* the same bytes from INT64 input */
        int64_t y2[8];
        for (i = 0; i < 8; i++)
            y2[i] = x2[i];
        TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT64, y2, 8, 8, 1, out, sizeof out, &len),
                        UPQ_OK);
        TU_CHECK_UINT(len, sizeof s2);
        TU_CHECK_MEM(out, s2, sizeof s2);
    }
    tu_case("DELTA_BINARY_PACKED: shapes outside the supported range");
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 8, 3, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 64, 1, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 160, 5, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 12, 1, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_INT32, x1, 5, 0, 1, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_dbp_shape(UPQ_TYPE_FLOAT, x1, 5, 8, 1, out, sizeof out, &len),
                    UPQ_ERR_UNSUPPORTED);

    expect_values("DELTA_BINARY_PACKED: example 1 in blocks of 128", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT32, 0, x1, 5, r1, sizeof r1);
    expect_values("DELTA_BINARY_PACKED: example 2 in blocks of 128", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT32, 0, x2, 8, r2, sizeof r2);
    expect_values("DELTA_BINARY_PACKED: INT32 wrap-around delta", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT32, 0, x3, 2, r3, sizeof r3);
    expect_values("DELTA_BINARY_PACKED: INT64 wrap-around delta", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT64, 0, x4, 2, r4, sizeof r4);
    expect_values("DELTA_BINARY_PACKED: no values", UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, 0,
                  x1, 0, r5, sizeof r5);
    expect_values("DELTA_BINARY_PACKED: one value has no block", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT32, 0, x6, 1, r6, sizeof r6);
    for (i = 0; i <= 32; i++)
        x7[i] = (int32_t)i;
    x7[33] = 100;
    {
        static const uint8_t head[] = {0x80, 0x01, 0x04, 0x22, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x43};
        memcpy(r7, head, sizeof head);
        memset(r7 + sizeof head, 0, sizeof r7 - sizeof head);
    }
    expect_values("DELTA_BINARY_PACKED: minimal width per miniblock", UPQ_ENC_DELTA_BINARY_PACKED,
                  UPQ_TYPE_INT32, 0, x7, 34, r7, sizeof r7);
}

static void test_spec_bytes(void)
{
    /* DELTA_LENGTH_BYTE_ARRAY: "Hello", "World", "Foobar", "ABCDEF" ->
     * DeltaEncoding(5, 5, 6, 6) "HelloWorldFoobarABCDEF". The lengths: header
     * 128, 4, count 4, zigzag(5) = 0x0A; deltas 0, 1, 0: min 0, relative
     * 0, 1, 0 in 1 bit (0b010 = 0x02, padded to 4 bytes), widths 1, 0, 0, 0. */
    static const char *w1[] = {"Hello", "World", "Foobar", "ABCDEF"};
    static const uint8_t lens1[] = {0x80, 0x01, 0x04, 0x04, 0x0A, 0x00, 0x01, 0x00,
                                    0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
    /* DELTA_BYTE_ARRAY: "axis", "axle", "babble", "babyhood" -> prefix
     * lengths DeltaEncoding(0, 2, 0, 3), suffix lengths DeltaEncoding(4, 2,
     * 6, 5), "axislebabbleyhood".
     * Prefixes: first 0; deltas 2, -2, 3: min -2 (zigzag 3), relative 4, 0,
     * 5 in 3 bits: 100 000 101 -> bits 2, 6, 8 -> 0x44 0x01, 12 bytes.
     * Suffixes: first 4 (zigzag 8); deltas -2, 4, -1: min -2, relative 0, 6,
     * 1 in 3 bits: bits 4, 5, 6 -> 0x70, 12 bytes. */
    static const char *w2[] = {"axis", "axle", "babble", "babyhood"};
    static const uint8_t pre2[] = {0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00,
                                   0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t suf2[] = {0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00,
                                   0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    upq_bytes b[4];
    uint8_t want[128];
    size_t i, wl;

    for (i = 0; i < 4; i++) {
        b[i].ptr = (const uint8_t *)w1[i];
        b[i].len = (uint32_t)strlen(w1[i]);
    }
    memcpy(want, lens1, sizeof lens1);
    memcpy(want + sizeof lens1, "HelloWorldFoobarABCDEF", 22);
    expect_values("DELTA_LENGTH_BYTE_ARRAY: spec example", UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY,
                  UPQ_TYPE_BYTE_ARRAY, 0, b, 4, want, sizeof lens1 + 22);

    for (i = 0; i < 4; i++) {
        b[i].ptr = (const uint8_t *)w2[i];
        b[i].len = (uint32_t)strlen(w2[i]);
    }
    memcpy(want, pre2, sizeof pre2);
    memcpy(want + sizeof pre2, suf2, sizeof suf2);
    memcpy(want + sizeof pre2 + sizeof suf2, "axislebabbleyhood", 17);
    wl = sizeof pre2 + sizeof suf2 + 17;
    expect_values("DELTA_BYTE_ARRAY: spec example", UPQ_ENC_DELTA_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0,
                  b, 4, want, wl);
    /* as FIXED_LEN_BYTE_ARRAY(4): "axis", "axle", "babb", "baby" -> prefixes
     * 0, 2, 0, 3 (as above), suffixes 4, 2, 4, 1 ("axis" "le" "babb" "y"):
     * first 4, deltas -2, 2, -3: min -3 (zigzag 5), relative 1, 5, 0 in 3
     * bits: 001 101 000 -> bits 0, 3, 5 = 0x29. */
    {
        static const uint8_t suf3[] = {0x80, 0x01, 0x04, 0x04, 0x08, 0x05, 0x03, 0x00, 0x00, 0x00,
                                       0x29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        for (i = 0; i < 4; i++)
            b[i].len = 4;
        memcpy(want, pre2, sizeof pre2);
        memcpy(want + sizeof pre2, suf3, sizeof suf3);
        memcpy(want + sizeof pre2 + sizeof suf3, "axislebabby", 11);
        expect_values("DELTA_BYTE_ARRAY: FIXED_LEN_BYTE_ARRAY(4)", UPQ_ENC_DELTA_BYTE_ARRAY,
                      UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, b, 4, want,
                      sizeof pre2 + sizeof suf3 + 11);
    }
}

static void test_spec_bss_plain(void)
{
    /* BYTE_STREAM_SPLIT spec example: floats with bytes AA BB CC DD,
     * 00 11 22 33, A3 B4 C5 D6 (little-endian) -> stream 0 AA 00 A3,
     * stream 1 BB 11 B4, stream 2 CC 22 C5, stream 3 DD 33 D6. */
    static const uint32_t bits[] = {0xDDCCBBAAu, 0x33221100u, 0xD6C5B4A3u};
    static const uint8_t bss[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
                                  0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    /* PLAIN: INT32 1, -2 little-endian; booleans 1,0,1,1,0,0,0,0 | 1 LSB
     * first -> 0x0D, 0x01; byte arrays "ab", "" -> length 2, 'a' 'b',
     * length 0; double 1.0 = 0x3FF0000000000000; float -0.0 = 0x80000000;
     * INT96 bytes as they are. */
    static const int32_t i32[] = {1, -2};
    static const uint8_t e_i32[] = {0x01, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF};
    static const uint8_t bools[] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    static const uint8_t odd_bools[] = {2, 0, 255, 1, 0, 0, 0, 0, 0x80};
    static const uint8_t e_bools[] = {0x0D, 0x01};
    /* RLE booleans: 1,0,1,1,0,0,0,0 | 1 is one bit-packed group and a padded
     * one: 0x05 0x0D 0x01, after the 4-byte length 3. */
    static const uint8_t e_rle_bools[] = {0x03, 0, 0, 0, 0x05, 0x0D, 0x01};
    /* two trues: an RLE run of 2 (header 2 << 1 = 0x04) of value 1 */
    static const uint8_t e_rle2[] = {0x02, 0, 0, 0, 0x04, 0x01};
    static const uint8_t e_rle0[] = {0x00, 0, 0, 0};
    static const uint8_t e_ba[] = {0x02, 0, 0, 0, 'a', 'b', 0, 0, 0, 0};
    static const uint8_t e_dbl[] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
    static const uint8_t e_flt[] = {0, 0, 0, 0x80};
    float f[3];
    int32_t i3[3];
    double one = 1.0;
    float nz = -0.0f;
    upq_bytes ba[2];
    upq_int96 i96[2];
    uint8_t e_i96[24];
    size_t i;

    for (i = 0; i < 3; i++) {
        memcpy(&f[i], &bits[i], 4);
        i3[i] = (int32_t)bits[i];
    }
    expect_values("BYTE_STREAM_SPLIT: spec example (FLOAT)", UPQ_ENC_BYTE_STREAM_SPLIT,
                  UPQ_TYPE_FLOAT, 0, f, 3, bss, sizeof bss);
    expect_values("BYTE_STREAM_SPLIT: spec example bytes as INT32", UPQ_ENC_BYTE_STREAM_SPLIT,
                  UPQ_TYPE_INT32, 0, i3, 3, bss, sizeof bss);
    {
        upq_bytes fb[3];
        static const uint8_t raw[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
                                      0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
        for (i = 0; i < 3; i++) {
            fb[i].ptr = raw + 4 * i;
            fb[i].len = 4;
        }
        expect_values("BYTE_STREAM_SPLIT: spec example bytes as FIXED_LEN_BYTE_ARRAY(4)",
                      UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, fb, 3, bss,
                      sizeof bss);
    }
    expect_values("PLAIN: INT32", UPQ_ENC_PLAIN, UPQ_TYPE_INT32, 0, i32, 2, e_i32, sizeof e_i32);
    expect_values("PLAIN: BOOLEAN", UPQ_ENC_PLAIN, UPQ_TYPE_BOOLEAN, 0, bools, 9, e_bools,
                  sizeof e_bools);
    expect_values("RLE: BOOLEAN", UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, bools, 9, e_rle_bools,
                  sizeof e_rle_bools);
    expect_values("RLE: two trues", UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, bools + 2, 2, e_rle2,
                  sizeof e_rle2);
    expect_values("RLE: no booleans (length 0)", UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, bools, 0,
                  e_rle0, sizeof e_rle0);
    {
        /* any nonzero byte is true */
        uint8_t out[16];
        size_t len;
        tu_case("BOOLEAN: nonzero bytes are true");
        TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_BOOLEAN, 0, odd_bools, 9, out,
                                          sizeof out, &len),
                        UPQ_OK);
        TU_CHECK_UINT(len, 2);
        TU_CHECK_MEM(out, e_bools, 2);
        TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, odd_bools, 9, out,
                                          sizeof out, &len),
                        UPQ_OK);
        TU_CHECK_UINT(len, sizeof e_rle_bools);
        TU_CHECK_MEM(out, e_rle_bools, sizeof e_rle_bools);
    }
    ba[0].ptr = (const uint8_t *)"ab";
    ba[0].len = 2;
    ba[1].ptr = NULL;
    ba[1].len = 0;
    expect_values("PLAIN: BYTE_ARRAY (empty value with a NULL pointer)", UPQ_ENC_PLAIN,
                  UPQ_TYPE_BYTE_ARRAY, 0, ba, 2, e_ba, sizeof e_ba);
    expect_values("PLAIN: DOUBLE 1.0", UPQ_ENC_PLAIN, UPQ_TYPE_DOUBLE, 0, &one, 1, e_dbl,
                  sizeof e_dbl);
    expect_values("PLAIN: FLOAT -0.0", UPQ_ENC_PLAIN, UPQ_TYPE_FLOAT, 0, &nz, 1, e_flt,
                  sizeof e_flt);
    for (i = 0; i < 24; i++) {
        e_i96[i] = (uint8_t)(i * 7 + 1);
        i96[i / 12].b[i % 12] = e_i96[i];
    }
    expect_values("PLAIN: INT96", UPQ_ENC_PLAIN, UPQ_TYPE_INT96, 0, i96, 2, e_i96, sizeof e_i96);
}

/* ---- argument checks ----------------------------------------------------------- */

static void test_errors(void)
{
    static const int32_t pairs[][2] = {
        {UPQ_ENC_RLE, UPQ_TYPE_INT32},
        {UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_FLOAT},
        {UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_BOOLEAN},
        {UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY},
        {UPQ_ENC_DELTA_BYTE_ARRAY, UPQ_TYPE_INT32},
        {UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_BOOLEAN},
        {UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_BYTE_ARRAY},
        {UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_INT96},
        {UPQ_ENC_PLAIN_DICTIONARY, UPQ_TYPE_INT32},
        {UPQ_ENC_RLE_DICTIONARY, UPQ_TYPE_INT32},
        {UPQ_ENC_BIT_PACKED, UPQ_TYPE_BOOLEAN},
        {UPQ_ENC_PLAIN, 8},
        {UPQ_ENC_PLAIN, -1},
        {1, UPQ_TYPE_INT32},
        {10, UPQ_TYPE_INT32},
        {-1, UPQ_TYPE_INT32},
    };
    static const int32_t vals[4] = {1, 2, 3, 4};
    uint8_t out[64];
    upq_bytes b[3];
    uint32_t u[16];
    uint16_t h[16];
    size_t len, i;

    tu_case("unsupported encoding/type pairs");
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        len = 99;
        TU_CHECK_STATUS(upq_encode_values(pairs[i][0], pairs[i][1], 4, vals, 4, out, sizeof out,
                                          &len),
                        UPQ_ERR_UNSUPPORTED);
        TU_CHECK_UINT(len, 0);
        TU_CHECK_UINT(upq_encode_bound(pairs[i][0], pairs[i][1], 4, 4, 0), 0);
    }

    tu_case("FIXED_LEN_BYTE_ARRAY lengths must match type_length");
    b[0].ptr = b[1].ptr = b[2].ptr = (const uint8_t *)"abcdef";
    b[0].len = 4;
    b[1].len = 4;
    b[2].len = 5;
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, b, 3, out,
                                      sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_DELTA_BYTE_ARRAY, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, b,
                                      3, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4,
                                      b, 3, out, sizeof out, &len),
                    UPQ_ERR_INVAL);
    /* even when the output would not fit */
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, b, 3, NULL,
                                      0, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, b, 0, out,
                                      sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, -3, b, 0, out,
                                      sizeof out, &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_UINT(upq_encode_bound(UPQ_ENC_PLAIN, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, 3, 0), 0);

    tu_case("BYTE_ARRAY lengths must be INT32");
    b[2].len = 0x80000000u; /* never read: checked first */
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_BYTE_ARRAY, 0, b, 3, out, sizeof out,
                                      &len),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, b, 3,
                                      out, sizeof out, &len),
                    UPQ_ERR_INVAL);

    tu_case("more values than a page can count");
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_PLAIN, UPQ_TYPE_INT32, 0, vals,
                                      (size_t)INT32_MAX + 1u, out, sizeof out, &len),
                    UPQ_ERR_LIMIT);
    TU_CHECK_STATUS(upq_encode_values(UPQ_ENC_DELTA_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, b,
                                      (size_t)INT32_MAX + 1u, out, sizeof out, &len),
                    UPQ_ERR_LIMIT);
    TU_CHECK_UINT(upq_encode_bound(UPQ_ENC_PLAIN, UPQ_TYPE_INT64, 0, SIZE_MAX, 0), SIZE_MAX);
    TU_CHECK_UINT(upq_encode_bound(UPQ_ENC_PLAIN, UPQ_TYPE_BYTE_ARRAY, 0, 4, SIZE_MAX), SIZE_MAX);
    TU_CHECK_UINT(upq_encode_bound(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT64, 0, SIZE_MAX, 0),
                  SIZE_MAX);
    TU_CHECK_UINT(upq_rle_bound(SIZE_MAX, 32), SIZE_MAX);
    TU_CHECK_UINT(upq_rle_bound(8, 33), 0);

    tu_case("hybrid: bit width and value range");
    for (i = 0; i < 16; i++) {
        u[i] = (uint32_t)(i & 1);
        h[i] = (uint16_t)(i & 1);
    }
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 33, out, sizeof out, &len), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_rle16(h, 16, 17, out, sizeof out, &len), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 0, out, sizeof out, &len), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_rle16(h, 16, 0, out, sizeof out, &len), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 1, out, sizeof out, &len), UPQ_OK);
    u[11] = 2; /* in a bit-packed group */
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 1, out, sizeof out, &len), UPQ_ERR_INVAL);
    for (i = 0; i < 16; i++)
        u[i] = 4;
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 2, out, sizeof out, &len), UPQ_ERR_INVAL); /* RLE run */
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 3, out, sizeof out, &len), UPQ_OK);
    u[14] = 1;
    u[15] = 9; /* in the padded last group */
    TU_CHECK_STATUS(upq_encode_rle32(u, 16, 3, out, sizeof out, &len), UPQ_ERR_INVAL);
    h[3] = 0x8000;
    TU_CHECK_STATUS(upq_encode_rle16(h, 16, 15, out, sizeof out, &len), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_encode_rle16(h, 16, 16, out, sizeof out, &len), UPQ_OK);
}

/* ---- 2-4. generated values of every type ---------------------------------------- */

/* A few bit patterns worth having in every float column. */
static const uint32_t f32_special[] = {
    0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, /* +-0, +-Inf */
    0x7FC00000u, 0xFFC00000u, 0x7FC00001u, 0x7F800001u, /* quiet and signalling NaNs */
    0xFFBFFFFFu, 0x00000001u, 0x807FFFFFu, 0x3F800000u, /* NaN, denormals, 1.0 */
    0x7F7FFFFFu, 0xFF7FFFFFu,
};
static const uint64_t f64_special[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF8000000000001ull, 0x7FF0000000000001ull,
    0xFFF7FFFFFFFFFFFFull, 0x0000000000000001ull, 0x800FFFFFFFFFFFFFull, 0x3FF0000000000000ull,
    0x7FEFFFFFFFFFFFFFull,
};

#define NPAT 7

static uint64_t gen_u64(int pat, size_t i, uint64_t *state)
{
    static const uint64_t ext[] = {0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0, ~0ull, 1};
    switch (pat) {
    case 0: return eu_rand();                                             /* random */
    case 1: return (uint64_t)((int64_t)(eu_rand() % 101) - 50);          /* small */
    case 2: return *state += eu_rand() % 4;                              /* timestamps */
    case 3: return ext[eu_rand() % 5];                                   /* extremes */
    case 4: return 0x123456789ABCDEFull;                                 /* constant */
    case 5:                                                              /* runs */
        if (eu_rand() % 8 == 0)
            *state = eu_rand() >> (eu_rand() % 64);
        return *state;
    default: return i & 1 ? 0x7FFFFFFFFFFFFFFFull : 0x8000000000000000ull; /* wrap */
    }
}

static void gen_fixed(int32_t type, int pat, void *vals, size_t n)
{
    uint64_t state = eu_rand();
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t u = gen_u64(pat, i, &state);
        switch (type) {
        case UPQ_TYPE_BOOLEAN:
            ((uint8_t *)vals)[i] = (uint8_t)(pat == 4 ? 1 : pat == 1 ? (u >> 3) % 2 == 0 : u & 1);
            break;
        case UPQ_TYPE_INT32: {
            /* the 32-bit versions of the patterns: extremes INT32_MIN/MAX */
            uint32_t x = pat == 3 || pat == 6 ? (uint32_t)(u >> 32) : (uint32_t)u;
            ((int32_t *)vals)[i] = (int32_t)x;
            break;
        }
        case UPQ_TYPE_INT64: ((int64_t *)vals)[i] = (int64_t)u; break;
        case UPQ_TYPE_INT96: {
            unsigned k;
            for (k = 0; k < 12; k++)
                ((upq_int96 *)vals)[i].b[k] = (uint8_t)(pat == 0 ? eu_rand() : u >> (k % 8 * 8));
            break;
        }
        case UPQ_TYPE_FLOAT: {
            uint32_t x = (uint32_t)u;
            if (pat == 3 || pat == 6)
                x = f32_special[eu_rand() % (sizeof f32_special / sizeof f32_special[0])];
            else if (pat == 2)
                x = 0x40000000u + (uint32_t)(u & 0xFFFF); /* smooth */
            memcpy((float *)vals + i, &x, 4);
            break;
        }
        default: {
            uint64_t x = u;
            if (pat == 3 || pat == 6)
                x = f64_special[eu_rand() % (sizeof f64_special / sizeof f64_special[0])];
            else if (pat == 2)
                x = 0x4000000000000000ull + (u & 0xFFFFFFull);
            memcpy((double *)vals + i, &x, 8);
            break;
        }
        }
    }
}

/* Byte arrays (tl 0) or FIXED_LEN_BYTE_ARRAY(tl) values in `pool`. */
static void gen_bytes(int pat, int32_t tl, upq_bytes *v, size_t n, tbuf *pool)
{
    size_t i, k, *off = (size_t *)xmalloc(n * sizeof *off);
    pool->len = 0;
    for (i = 0; i < n; i++) {
        size_t len;
        off[i] = pool->len;
        switch (pat) {
        case 0: /* random, short, from a small alphabet: many shared prefixes */
            len = tl ? (size_t)tl : eu_below(13);
            for (k = 0; k < len; k++)
                put_u8(pool, (uint8_t)('a' + eu_below(2)));
            break;
        case 1: { /* sorted keys */
            char s[32];
            int m = snprintf(s, sizeof s, "key-%012zu", i * 7 + eu_below(7));
            len = tl ? (size_t)tl : (size_t)m;
            for (k = 0; k < len; k++)
                put_u8(pool, k < (size_t)m ? (uint8_t)s[k] : (uint8_t)k);
            break;
        }
        case 2: /* empty values (for FIXED_LEN_BYTE_ARRAY: zero bytes) */
            len = tl ? (size_t)tl : 0;
            for (k = 0; k < len; k++)
                put_u8(pool, 0);
            break;
        case 3: /* now and then a long one, sharing long prefixes */
            len = tl ? (size_t)tl : eu_below(50) == 0 ? 100 + eu_below(3000) : eu_below(20);
            for (k = 0; k < len; k++)
                put_u8(pool, (uint8_t)(k < len - len / 8 ? 'x' : eu_rand()));
            break;
        case 4: /* the same value over and over */
            len = tl ? (size_t)tl : 9;
            put_bytes(pool, "constant!constant!constant!constant!", len);
            break;
        case 5: /* random bytes, any length */
            len = tl ? (size_t)tl : eu_below(40);
            for (k = 0; k < len; k++)
                put_u8(pool, (uint8_t)eu_rand());
            break;
        default: /* each value a prefix or an extension of the previous one */
            len = tl ? (size_t)tl : eu_below(30);
            for (k = 0; k < len; k++)
                put_u8(pool, (uint8_t)('0' + k % 10));
            break;
        }
        v[i].len = (uint32_t)len;
    }
    for (i = 0; i < n; i++)
        v[i].ptr = v[i].len ? pool->b + off[i] : NULL;
    free(off);
}

static void test_generated(void)
{
    static const struct {
        int32_t type;
        int32_t enc[3];
    } types[] = {
        {UPQ_TYPE_BOOLEAN, {UPQ_ENC_PLAIN, UPQ_ENC_RLE, -1}},
        {UPQ_TYPE_INT32, {UPQ_ENC_PLAIN, UPQ_ENC_DELTA_BINARY_PACKED, UPQ_ENC_BYTE_STREAM_SPLIT}},
        {UPQ_TYPE_INT64, {UPQ_ENC_PLAIN, UPQ_ENC_DELTA_BINARY_PACKED, UPQ_ENC_BYTE_STREAM_SPLIT}},
        {UPQ_TYPE_INT96, {UPQ_ENC_PLAIN, -1, -1}},
        {UPQ_TYPE_FLOAT, {UPQ_ENC_PLAIN, UPQ_ENC_BYTE_STREAM_SPLIT, -1}},
        {UPQ_TYPE_DOUBLE, {UPQ_ENC_PLAIN, UPQ_ENC_BYTE_STREAM_SPLIT, -1}},
        {UPQ_TYPE_BYTE_ARRAY,
         {UPQ_ENC_PLAIN, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_ENC_DELTA_BYTE_ARRAY}},
        {UPQ_TYPE_FIXED_LEN_BYTE_ARRAY,
         {UPQ_ENC_PLAIN, UPQ_ENC_DELTA_BYTE_ARRAY, UPQ_ENC_BYTE_STREAM_SPLIT}},
    };
    static const int32_t flba_lengths[] = {1, 2, 3, 4, 12, 16, 33};
    size_t t, e, s, maxn = sizes[NSIZES - 1];
    uint8_t *vals = (uint8_t *)xmalloc(maxn * 16);
    tbuf pool = {0};
    int pat;

    for (t = 0; t < sizeof types / sizeof types[0]; t++) {
        int32_t type = types[t].type;
        for (e = 0; e < 3 && types[t].enc[e] >= 0; e++) {
            int32_t enc = types[t].enc[e];
            tu_case("round trip: %s / %s", upq_type_name(type), upq_encoding_name(enc));
            for (s = 0; s < NSIZES; s++) {
                for (pat = 0; pat < NPAT; pat++) {
                    size_t n = sizes[s];
                    int32_t tl = 0;
                    if (type == UPQ_TYPE_BYTE_ARRAY) {
                        gen_bytes(pat, 0, (upq_bytes *)vals, n, &pool);
                    } else if (type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                        tl = flba_lengths[(s + (size_t)pat) % 7];
                        gen_bytes(pat, tl, (upq_bytes *)vals, n, &pool);
                    } else {
                        gen_fixed(type, pat, vals, n);
                    }
                    check_values(enc, type, tl, vals, n);
                }
            }
        }
    }
    free(vals);
    tb_free(&pool);
}

/* ---- the hybrid on its own --------------------------------------------------------- */

static void check_hybrid(const uint32_t *v, size_t n, unsigned bw, int use16)
{
    size_t bound = upq_rle_bound(n, bw), len = 0, got, cap;
    uint8_t *out = (uint8_t *)xmalloc(bound), *b;
    uint16_t *h = NULL;
    tbuf ref = {0};
    upq_status st;
    size_t i;

    if (use16) {
        h = (uint16_t *)xmalloc(n * sizeof *h);
        for (i = 0; i < n; i++)
            h[i] = (uint16_t)v[i];
        st = upq_encode_rle16(h, n, bw, out, bound, &len);
    } else {
        st = upq_encode_rle32(v, n, bw, out, bound, &len);
    }
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_MSG(len <= bound, "len %zu > bound %zu (n %zu, width %u)", len, bound, n, bw);
    ref_hybrid(&ref, v, n, bw);
    TU_CHECK_MSG(same(out, len, ref.b, ref.len),
                 "differs from Arrow's RleEncoder (n %zu, width %u, %zu vs %zu bytes)", n, bw, len,
                 ref.len);

    /* the same values as the writer stages levels (packed 1 << lg bits each,
     * in a buffer of exactly their bytes, so that a read past them shows
     * under ASan): upq_enc_hybrid_levels gives Arrow's bytes too */
    if (bw >= 1 && bw <= 8) {
        unsigned lg = bw == 1 ? 0u : bw == 2 ? 1u : bw <= 4 ? 2u : 3u;
        size_t lb = ((n << lg) + 7u) / 8u;
        uint8_t *lv = (uint8_t *)xmalloc(lb), *lo = (uint8_t *)xmalloc(bound);
        upq_wbuf wb;
        memset(lv, 0xA5, lb);
        for (i = 0; i < n; i++)
            upq_lev_set(lv, (uint32_t)i, lg, v[i]);
        upq_wb_init(&wb, lo, bound);
        st = upq_enc_hybrid_levels(&wb, lv, n, lg, bw);
        TU_CHECK_STATUS(st, UPQ_OK);
        got = 0;
        TU_CHECK_STATUS(upq_wb_finish(&wb, &got), UPQ_OK);
        TU_CHECK_MSG(same(lo, got, ref.b, ref.len),
                     "packed levels (lg %u) differ from Arrow's RleEncoder (n %zu, width %u)", lg, n, bw);
        free(lv);
        free(lo);
    }

    /* sizing: exact, one short, random short, none */
    for (i = 0; i < 4; i++) {
        cap = i == 0 ? len : i == 1 ? len - 1 : i == 2 ? eu_below(len ? len : 1) : 0;
        if (i > 0 && len == 0)
            break;
        b = cap ? (uint8_t *)xmalloc(cap) : NULL;
        got = 999;
        st = use16 ? upq_encode_rle16(h, n, bw, b, cap, &got) : upq_encode_rle32(v, n, bw, b, cap, &got);
        TU_CHECK_STATUS(st, i == 0 ? UPQ_OK : UPQ_ERR_BUFFER);
        TU_CHECK_UINT(got, len);
        if (i == 0)
            TU_CHECK(same(b, got, out, len));
        free(b);
    }

    /* decode */
    {
        upq_rle_dec d;
        uint8_t *copy = (uint8_t *)xmalloc(len);
        int ok = 1;
        if (len)
            memcpy(copy, out, len);
        TU_CHECK_STATUS(upq_rle_init(&d, copy, len, bw), UPQ_OK);
        if (use16) {
            uint16_t *o = (uint16_t *)xmalloc(n * sizeof *o);
            TU_CHECK_STATUS(upq_rle_get16(&d, o, n), UPQ_OK);
            for (i = 0; i < n; i++)
                ok &= o[i] == h[i];
            free(o);
        } else {
            uint32_t *o = (uint32_t *)xmalloc(n * sizeof *o);
            TU_CHECK_STATUS(upq_rle_get32(&d, o, n), UPQ_OK);
            for (i = 0; i < n; i++)
                ok &= o[i] == v[i];
            free(o);
        }
        TU_CHECK_MSG(ok, "decoded levels differ (n %zu, width %u)", n, bw);
        free(copy);
    }
    free(h);
    free(out);
    tb_free(&ref);
}

/* Values below 2^bw in one of several run structures. */
static void gen_levels(uint32_t *v, size_t n, unsigned bw, int pat)
{
    uint32_t mask = bw >= 32 ? 0xFFFFFFFFu : (1u << bw) - 1u, cur = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        switch (pat) {
        case 0: v[i] = (uint32_t)eu_rand() & mask; break;                    /* random */
        case 1: /* runs of 1..20 from a small alphabet */
            if (i == 0 || eu_below(10) == 0)
                cur = (uint32_t)eu_below(3) & mask;
            v[i] = cur;
            break;
        case 2: v[i] = mask; break;                                           /* all max */
        case 3: v[i] = i % 16 < 8 ? mask : (uint32_t)(i & 1) & mask; break;   /* worst case */
        case 4: v[i] = (uint32_t)(i / 9) & mask; break;                       /* runs of 9 */
        default: /* runs of 7 and 8 straddling group boundaries */
            v[i] = (uint32_t)((i / (7 + (i / 50) % 3)) & 1) * mask;
            break;
        }
    }
}

static void test_hybrid_widths(void)
{
    size_t s, maxn = sizes[NSIZES - 1];
    uint32_t *v = (uint32_t *)xmalloc(maxn * sizeof *v);
    unsigned bw;
    int pat;

    for (bw = 0; bw <= 32; bw++) {
        tu_case("hybrid rle32: bit width %u", bw);
        for (s = 0; s < NSIZES; s++)
            for (pat = 0; pat < 6; pat++) {
                gen_levels(v, sizes[s], bw, pat);
                check_hybrid(v, sizes[s], bw, 0);
            }
    }
    for (bw = 0; bw <= 16; bw++) {
        tu_case("hybrid rle16: bit width %u", bw);
        for (s = 0; s < NSIZES; s++)
            for (pat = 0; pat < 6; pat++) {
                gen_levels(v, sizes[s], bw, pat);
                check_hybrid(v, sizes[s], bw, 1);
            }
    }
    free(v);
}

/* Every sequence of up to 14 bits and of up to 9 values 0..2: all the ways
 * runs, groups and the last group can meet. */
static void test_hybrid_exhaustive(void)
{
    uint32_t v[16];
    size_t n, i;
    unsigned long code, total;

    tu_case("hybrid: every short sequence of 0/1 and of 0..2");
    for (n = 0; n <= 14; n++)
        for (code = 0; code < (1ul << n); code++) {
            for (i = 0; i < n; i++)
                v[i] = (uint32_t)(code >> i) & 1u;
            check_hybrid(v, n, 1, (int)(code & 1));
        }
    for (n = 0, total = 1; n <= 9; n++, total *= 3)
        for (code = 0; code < total; code++) {
            unsigned long c = code;
            for (i = 0; i < n; i++, c /= 3)
                v[i] = (uint32_t)(c % 3);
            check_hybrid(v, n, 2, (int)(code & 1));
        }
}

/* Bit-packed runs that end exactly at 63 groups, one before and one after,
 * with RLE runs and short tails around them. */
static void test_hybrid_run_limits(void)
{
    static const size_t groups[] = {1, 62, 63, 64, 125, 126, 127, 200};
    uint32_t *v = (uint32_t *)xmalloc(8 * 220 * sizeof *v + 64);
    size_t g, tail, i, n;

    tu_case("hybrid: 63-group limit");
    for (g = 0; g < sizeof groups / sizeof groups[0]; g++)
        for (tail = 0; tail < 20; tail++) {
            n = 0;
            for (i = 0; i < groups[g] * 8; i++)
                v[n++] = (uint32_t)((i * 5 + i / 3) % 7);
            for (i = 0; i < tail; i++)
                v[n++] = tail % 3 ? 6u : (uint32_t)(i % 2);
            check_hybrid(v, n, 3, (int)(tail & 1));
            /* behind an RLE run */
            memmove(v + 11, v, n * sizeof *v);
            for (i = 0; i < 11; i++)
                v[i] = 2;
            check_hybrid(v, n + 11, 3, 0);
        }
    free(v);
}

int main(void)
{
    test_spec_hybrid();
    test_spec_delta();
    test_spec_bytes();
    test_spec_bss_plain();
    test_errors();
    test_hybrid_exhaustive();
    test_hybrid_run_limits();
    test_hybrid_widths();
    test_generated();
    (void)eu_summary; /* enc_util.h's own counters are not used here */
    return tu_summary();
}
