/*
 * The RLE/bit-packing hybrid (levels, indices), the deprecated BIT_PACKED
 * levels, and the bit-unpacking kernels under them.
 */
#include "enc_util.h"

/* A copy of p[0..n) in a buffer of exactly n bytes, so a read past it is an
 * AddressSanitizer report. */
static uint8_t *exact(const uint8_t *p, size_t n)
{
    uint8_t *c = (uint8_t *)malloc(n ? n : 1);
    if (n)
        memcpy(c, p, n);
    return c;
}

static uint64_t ref_lsb(const uint8_t *p, size_t bit, unsigned bw)
{
    uint64_t v = 0;
    unsigned j;
    for (j = 0; j < bw; j++)
        v |= (uint64_t)((p[(bit + j) / 8] >> ((bit + j) % 8)) & 1u) << j;
    return v;
}

static void test_kernels(void)
{
    unsigned bw, shift;
    size_t n, i;
    eu_case("unpack kernels against a bit-by-bit reference");
    for (bw = 0; bw <= 64; bw++) {
        for (shift = 0; shift < 8; shift++) {
            for (n = 0; n <= 300; n += (n < 20 ? 1 : n < 70 ? 7 : 23)) {
                size_t nbytes = (shift + n * bw + 7) / 8;
                uint8_t *src = (uint8_t *)malloc(nbytes ? nbytes : 1), *in;
                uint32_t out32[300];
                uint64_t out64[300];
                int ok = 1;
                for (i = 0; i < nbytes; i++)
                    src[i] = (uint8_t)eu_rand();
                in = exact(src, nbytes);
                if (bw <= 32 && n) {
                    upq_unpack32(in, shift, out32, bw, n);
                    for (i = 0; i < n; i++)
                        ok &= out32[i] == ref_lsb(in, shift + i * bw, bw);
                }
                if (n) {
                    upq_unpack64(in, shift, out64, bw, n);
                    for (i = 0; i < n; i++)
                        ok &= out64[i] == ref_lsb(in, shift + i * bw, bw);
                }
                CHECK(ok);
                free(src);
                free(in);
            }
        }
    }
    /* long inputs take the word path */
    for (bw = 1; bw <= 32; bw++) {
        size_t cnt = 1000, nbytes = (cnt * bw + 7) / 8;
        uint8_t *in = (uint8_t *)malloc(nbytes);
        uint32_t *out = (uint32_t *)malloc(cnt * 4);
        int ok = 1;
        for (i = 0; i < nbytes; i++)
            in[i] = (uint8_t)eu_rand();
        upq_unpack32(in, 0, out, bw, cnt);
        for (i = 0; i < cnt; i++)
            ok &= out[i] == ref_lsb(in, i * bw, bw);
        CHECK(ok);
        free(in);
        free(out);
    }
}

static void test_spec_examples(void)
{
    /* encodings.md: 0..7 with bit width 3, LSB first: 10001000 11000110 11111010 */
    static const uint8_t packed[] = {0x88, 0xC6, 0xFA};
    static const uint8_t hybrid[] = {0x03, 0x88, 0xC6, 0xFA}; /* one group of 8 */
    /* the deprecated order: 00000101 00111001 01110111 */
    static const uint8_t msb[] = {0x05, 0x39, 0x77};
    uint32_t v32[8], i;
    uint16_t v16[8];
    upq_rle_dec d;
    upq_bitpacked_dec b;
    tbuf t = {0};
    uint64_t vals[8];

    eu_case("spec example: hybrid bit packing of 0..7, width 3");
    upq_unpack32(packed, 0, v32, 3, 8);
    for (i = 0; i < 8; i++)
        CHECK(v32[i] == i);
    for (i = 0; i < 8; i++)
        vals[i] = i;
    put_bits_lsb(&t, vals, 8, 3);
    CHECK(t.len == 3 && memcmp(t.b, packed, 3) == 0);
    CHECK_ST(upq_rle_init(&d, hybrid, sizeof hybrid, 3), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v32, 8), UPQ_OK);
    for (i = 0; i < 8; i++)
        CHECK(v32[i] == i);
    CHECK_ST(upq_rle_get32(&d, v32, 1), UPQ_ERR_CORRUPT); /* nothing more */
    CHECK_ST(upq_rle_init(&d, hybrid, sizeof hybrid, 3), UPQ_OK);
    CHECK_ST(upq_rle_get16(&d, v16, 8), UPQ_OK);
    for (i = 0; i < 8; i++)
        CHECK(v16[i] == i);

    eu_case("spec example: deprecated BIT_PACKED of 0..7, width 3");
    t.len = 0;
    put_bits_msb(&t, vals, 8, 3);
    CHECK(t.len == 3 && memcmp(t.b, msb, 3) == 0);
    CHECK_ST(upq_bitpacked_init(&b, msb, sizeof msb, 3), UPQ_OK);
    CHECK_ST(upq_bitpacked_get16(&b, v16, 8), UPQ_OK);
    for (i = 0; i < 8; i++)
        CHECK(v16[i] == i);
    CHECK_ST(upq_bitpacked_get16(&b, v16, 1), UPQ_ERR_CORRUPT);
    /* 30 values of 2 bits take 8 bytes */
    CHECK(upq_bitpacked_len(30, 2) == 8);
    CHECK(upq_bitpacked_len(8, 3) == 3);
    CHECK(upq_bitpacked_len(0, 5) == 0);
    CHECK(upq_bitpacked_len(100, 0) == 0);
    CHECK(upq_bitpacked_len(SIZE_MAX, 16) == SIZE_MAX);
    tb_free(&t);
}

static void test_rle_runs(void)
{
    /* 8 x 5 at width 3; 300 x 5 at width 9 (2 value bytes); 3 x 0xDEADBEEF at 32 */
    static const uint8_t a[] = {0x10, 0x05};
    static const uint8_t b[] = {0xD8, 0x04, 0x05, 0x00};
    static const uint8_t c[] = {0x06, 0xEF, 0xBE, 0xAD, 0xDE};
    /* 5-byte header: 2^27 values of 1 at width 1 */
    static const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x01, 0x01};
    uint32_t v[300], i;
    upq_rle_dec d;
    int ok = 1;

    eu_case("RLE runs");
    CHECK_ST(upq_rle_init(&d, a, sizeof a, 3), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 8), UPQ_OK);
    for (i = 0; i < 8; i++)
        ok &= v[i] == 5;
    CHECK_ST(upq_rle_init(&d, b, sizeof b, 9), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 300), UPQ_OK);
    for (i = 0; i < 300; i++)
        ok &= v[i] == 5;
    CHECK_ST(upq_rle_init(&d, c, sizeof c, 32), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 3), UPQ_OK);
    for (i = 0; i < 3; i++)
        ok &= v[i] == 0xDEADBEEFu;
    CHECK(ok);
    CHECK_ST(upq_rle_init(&d, big, sizeof big, 1), UPQ_OK);
    CHECK_ST(upq_rle_skip(&d, 100000000), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 300), UPQ_OK);
    CHECK(v[0] == 1 && v[299] == 1);
    CHECK_ST(upq_rle_skip(&d, (1u << 27) - 100000000 - 300), UPQ_OK);
    CHECK_ST(upq_rle_skip(&d, 1), UPQ_ERR_CORRUPT);
}

static void test_malformed(void)
{
    static const uint8_t zero_rle[] = {0x00, 0x01};
    static const uint8_t zero_lit[] = {0x01, 0xFF};
    static const uint8_t long_varint[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01};
    static const uint8_t wide_varint[] = {0xFE, 0xFF, 0xFF, 0xFF, 0x1F, 0x01};
    static const uint8_t huge_lit[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
    static const uint8_t no_value[] = {0x10};
    static const uint8_t short_value[] = {0x10, 0x01};
    static const uint8_t big_value[] = {0x10, 0x08};
    static const uint8_t past_end[] = {0x10, 0x01};
    static const uint8_t cut_lit[] = {0x03, 0x88};
    uint32_t v[16];
    uint16_t v16[16];
    upq_rle_dec d;
    upq_bitpacked_dec b;

    eu_case("hybrid: malformed runs");
    CHECK_ST(upq_rle_init(&d, zero_rle, sizeof zero_rle, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* run length 0 */
    CHECK_ST(upq_rle_init(&d, zero_rle, sizeof zero_rle, 1), UPQ_OK);
    CHECK_ST(upq_rle_skip(&d, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_init(&d, zero_lit, sizeof zero_lit, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* 0 groups */
    CHECK_ST(upq_rle_init(&d, long_varint, sizeof long_varint, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* 6-byte header */
    CHECK_ST(upq_rle_init(&d, wide_varint, sizeof wide_varint, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* beyond 32 bits */
    CHECK_ST(upq_rle_init(&d, huge_lit, sizeof huge_lit, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* 2^34 values */
    CHECK_ST(upq_rle_init(&d, no_value, sizeof no_value, 8), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* value bytes missing */
    CHECK_ST(upq_rle_init(&d, short_value, sizeof short_value, 9), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* 1 of 2 value bytes */
    CHECK_ST(upq_rle_init(&d, big_value, sizeof big_value, 3), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* 8 does not fit 3 bits */
    CHECK_ST(upq_rle_init(&d, past_end, sizeof past_end, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 9), UPQ_ERR_CORRUPT); /* runs end before n */
    CHECK_ST(upq_rle_init(&d, past_end, sizeof past_end, 1), UPQ_OK);
    CHECK_ST(upq_rle_skip(&d, 9), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_init(&d, past_end, 0, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* no data at all */
    CHECK_ST(upq_rle_init(&d, past_end, 0, 1), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 0), UPQ_OK);

    eu_case("hybrid: a bit-packed run cut after its needed values");
    CHECK_ST(upq_rle_init(&d, cut_lit, sizeof cut_lit, 3), UPQ_OK);
    CHECK_ST(upq_rle_get32(&d, v, 2), UPQ_OK); /* 6 bits are there */
    CHECK(v[0] == 0 && v[1] == 1);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT); /* the third is not */
    CHECK_ST(upq_rle_init(&d, cut_lit, sizeof cut_lit, 3), UPQ_OK);
    CHECK_ST(upq_rle_skip(&d, 3), UPQ_ERR_CORRUPT);

    eu_case("hybrid: bit widths");
    CHECK_ST(upq_rle_init(&d, zero_rle, sizeof zero_rle, 33), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_get32(&d, v, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_get16(&d, v16, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_skip(&d, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_rle_init(&d, short_value, sizeof short_value, 17), UPQ_OK);
    CHECK_ST(upq_rle_get16(&d, v16, 1), UPQ_ERR_INVAL);

    eu_case("BIT_PACKED: malformed");
    CHECK_ST(upq_bitpacked_init(&b, cut_lit, sizeof cut_lit, 17), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_bitpacked_get16(&b, v16, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_bitpacked_init(&b, cut_lit, sizeof cut_lit, 3), UPQ_OK);
    CHECK_ST(upq_bitpacked_get16(&b, v16, 5), UPQ_OK);
    CHECK_ST(upq_bitpacked_get16(&b, v16, 1), UPQ_ERR_CORRUPT); /* bits 15..17 */
    CHECK_ST(upq_bitpacked_init(&b, cut_lit, sizeof cut_lit, 3), UPQ_OK);
    CHECK_ST(upq_bitpacked_skip(&b, 6), UPQ_ERR_CORRUPT);
}

/* Decodes n values from p[0..len) with get32 in random batches. */
static upq_status hybrid_all(const uint8_t *p, size_t len, unsigned bw, uint32_t *out, size_t n)
{
    upq_rle_dec d;
    size_t done = 0;
    upq_status st = upq_rle_init(&d, p, len, bw);
    while (st == UPQ_OK && done < n) {
        size_t k = 1 + eu_below(n - done);
        st = upq_rle_get32(&d, out + done, k);
        done += k;
    }
    return st;
}

static void test_hybrid_round_trips(void)
{
    unsigned bw;
    int mode, trunc;
    eu_case("hybrid: round trips for every width, run mix and batch size");
    for (bw = 0; bw <= 32; bw++) {
        for (mode = 0; mode < 3; mode++) {
            for (trunc = 0; trunc < 2; trunc++) {
                size_t n = 1 + eu_below(700), i, k;
                uint32_t *v = (uint32_t *)malloc(n * 4), *out = (uint32_t *)malloc(n * 4);
                uint16_t *o16 = (uint16_t *)malloc(n * 2);
                tbuf t = {0};
                uint8_t *in;
                upq_rle_dec d;
                int ok = 1;
                /* stretches of repeats and of noise */
                for (i = 0; i < n;) {
                    size_t r = 1 + eu_below(40);
                    uint32_t x = (uint32_t)eu_bits(bw);
                    int noise = eu_rand() & 1;
                    for (k = 0; k < r && i < n; k++, i++)
                        v[i] = noise ? (uint32_t)eu_bits(bw) : x;
                }
                put_hybrid(&t, v, n, bw, mode, trunc);
                in = exact(t.b, t.len);
                CHECK_ST(hybrid_all(in, t.len, bw, out, n), UPQ_OK);
                CHECK(memcmp(out, v, n * 4) == 0);
                if (bw <= 16) {
                    CHECK_ST(upq_rle_init(&d, in, t.len, bw), UPQ_OK);
                    CHECK_ST(upq_rle_get16(&d, o16, n), UPQ_OK);
                    for (i = 0; i < n; i++)
                        ok &= o16[i] == v[i];
                    CHECK(ok);
                    /* again in pieces of 1 to 20 values: reads that start
                     * and end inside a group of eight */
                    memset(o16, 0xA5, n * 2);
                    CHECK_ST(upq_rle_init(&d, in, t.len, bw), UPQ_OK);
                    for (i = 0; i < n; i += k) {
                        k = 1 + eu_below(20);
                        if (k > n - i)
                            k = n - i;
                        CHECK_ST(upq_rle_get16(&d, o16 + i, k), UPQ_OK);
                    }
                    for (i = 0; i < n; i++)
                        ok &= o16[i] == v[i];
                    CHECK(ok);
                }
                /* skip k, then get the rest */
                for (k = 0; k <= n; k += 1 + eu_below(25)) {
                    CHECK_ST(upq_rle_init(&d, in, t.len, bw), UPQ_OK);
                    CHECK_ST(upq_rle_skip(&d, k), UPQ_OK);
                    CHECK_ST(upq_rle_get32(&d, out, n - k), UPQ_OK);
                    CHECK(memcmp(out, v + k, (n - k) * 4) == 0);
                }
                /* every truncation: an error or the right values */
                if (n < 300 || bw % 5 == 0) {
                    size_t cut;
                    for (cut = 0; cut < t.len; cut++) {
                        uint8_t *c = exact(t.b, cut);
                        upq_status st = hybrid_all(c, cut, bw, out, n);
                        CHECK(st < 0 || memcmp(out, v, n * 4) == 0);
                        free(c);
                    }
                }
                free(in);
                free(v);
                free(out);
                free(o16);
                tb_free(&t);
            }
        }
    }
}

static void test_bitpacked_round_trips(void)
{
    unsigned bw;
    eu_case("BIT_PACKED: round trips, skips and truncations");
    for (bw = 0; bw <= 16; bw++) {
        size_t n = 1 + eu_below(300), i, k, cut;
        uint64_t *v = (uint64_t *)malloc(n * 8);
        uint16_t *out = (uint16_t *)malloc(n * 2);
        tbuf t = {0};
        upq_bitpacked_dec b;
        uint8_t *in;
        int ok = 1;
        for (i = 0; i < n; i++)
            v[i] = eu_bits(bw);
        put_bits_msb(&t, v, n, bw);
        CHECK(t.len == upq_bitpacked_len(n, bw));
        in = exact(t.b, t.len);
        CHECK_ST(upq_bitpacked_init(&b, in, t.len, bw), UPQ_OK);
        for (i = 0; i < n;) {
            size_t m = 1 + eu_below(n - i);
            CHECK_ST(upq_bitpacked_get16(&b, out + i, m), UPQ_OK);
            i += m;
        }
        for (i = 0; i < n; i++)
            ok &= out[i] == v[i];
        CHECK(ok);
        for (k = 0; k <= n; k += 1 + eu_below(9)) {
            CHECK_ST(upq_bitpacked_init(&b, in, t.len, bw), UPQ_OK);
            CHECK_ST(upq_bitpacked_skip(&b, k), UPQ_OK);
            CHECK_ST(upq_bitpacked_get16(&b, out, n - k), UPQ_OK);
            ok = 1;
            for (i = k; i < n; i++)
                ok &= out[i - k] == v[i];
            CHECK(ok);
        }
        for (cut = 0; cut < t.len; cut++) {
            uint8_t *c = exact(t.b, cut);
            CHECK_ST(upq_bitpacked_init(&b, c, cut, bw), UPQ_OK);
            CHECK_ST(upq_bitpacked_get16(&b, out, n), UPQ_ERR_CORRUPT);
            free(c);
        }
        free(in);
        free(v);
        free(out);
        tb_free(&t);
    }
}

static void test_value_size(void)
{
    eu_case("value sizes");
    CHECK(upq_value_size(UPQ_TYPE_BOOLEAN) == 1);
    CHECK(upq_value_size(UPQ_TYPE_INT32) == 4);
    CHECK(upq_value_size(UPQ_TYPE_INT64) == 8);
    CHECK(upq_value_size(UPQ_TYPE_INT96) == 12);
    CHECK(upq_value_size(UPQ_TYPE_FLOAT) == 4);
    CHECK(upq_value_size(UPQ_TYPE_DOUBLE) == 8);
    CHECK(upq_value_size(UPQ_TYPE_BYTE_ARRAY) == sizeof(upq_bytes));
    CHECK(upq_value_size(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) == sizeof(upq_bytes));
    CHECK(upq_value_size(8) == 0);
    CHECK(upq_value_size(-1) == 0);
}

int main(void)
{
    test_value_size();
    test_kernels();
    test_spec_examples();
    test_rle_runs();
    test_malformed();
    test_hybrid_round_trips();
    test_bitpacked_round_trips();
    return eu_summary();
}
