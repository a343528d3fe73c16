/*
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
 */
#include <limits.h>

#include "enc_util.h"

static void check_ints(const char *name, int32_t type, const uint8_t *p, size_t len,
                       uint32_t num_values, const int64_t *want, size_t n)
{
    upq_values_dec d;
    int32_t o32[64];
    int64_t o64[64];
    size_t got = 0, i;
    int ok = 1;
    eu_case(name);
    if (!CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_BINARY_PACKED, type, 0, p, len, num_values,
                                  NULL, NULL, 0),
                  UPQ_OK))
        return;
    CHECK(upq_values_left(&d) == n);
    if (type == UPQ_TYPE_INT32) {
        CHECK_ST(upq_values_get(&d, o32, n, &got, NULL), UPQ_OK);
        for (i = 0; i < n; i++)
            ok &= o32[i] == want[i];
    } else {
        CHECK_ST(upq_values_get(&d, o64, n, &got, NULL), UPQ_OK);
        for (i = 0; i < n; i++)
            ok &= o64[i] == want[i];
    }
    CHECK(got == n && ok);
}

static upq_status init_only(int32_t enc, int32_t type, const uint8_t *p, size_t len, uint32_t nv)
{
    upq_values_dec d;
    uint8_t prev[256];
    return upq_values_init(&d, enc, type, 4, p, len, nv, NULL, prev, sizeof prev);
}

/* A DELTA_BINARY_PACKED page's nv (<= 16) values read: the status of the
 * init, else of the read. A page's blocks are checked as the read enters
 * them (the init walks them only where byte data follows the section). */
static upq_status init_read(int32_t type, const uint8_t *p, size_t len, uint32_t nv)
{
    upq_values_dec d;
    uint64_t out[16];
    size_t got = 0;
    upq_status st = upq_values_init(&d, UPQ_ENC_DELTA_BINARY_PACKED, type, 4, p, len, nv, NULL,
                                    NULL, 0);
    if (st == UPQ_OK && nv <= 16)
        st = upq_values_get(&d, out, nv, &got, NULL);
    return st;
}

static void test_spec_examples(void)
{
    /* the spec's own bytes use a block of 8 values, which it notes is
     * invalid in real files: they must be rejected */
    static const uint8_t spec1[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
    static const uint8_t spec2[] = {0x08, 0x01, 0x08, 0x0E, 0x03, 0x02, 0xC0, 0x3F};
    /* the same examples with a valid block: 128 values, 4 miniblocks of 32 */
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, /* header: 1st value 1 */
                                  0x02, 0x00, 0x00, 0x00, 0x00}; /* min delta 1, widths 0 */
    static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, /* header: 1st value 7 */
                                  0x03, 0x02, 0x00, 0x00, 0x00, /* min delta -2, width 2 */
                                  0xC0, 0x3F, 0, 0, 0, 0, 0, 0}; /* 0,0,0,3,3,3,3 + padding */
    static const int64_t v1[] = {1, 2, 3, 4, 5};
    static const int64_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    uint64_t u[8];
    tbuf t = {0};
    size_t i;

    eu_case("DELTA_BINARY_PACKED: spec examples with an 8-value block are invalid");
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, spec1, sizeof spec1, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, spec2, sizeof spec2, 8),
             UPQ_ERR_CORRUPT);

    check_ints("DELTA_BINARY_PACKED: spec example 1 (1..5)", UPQ_TYPE_INT32, ex1, sizeof ex1, 5, v1,
               5);
    check_ints("DELTA_BINARY_PACKED: spec example 1 as INT64", UPQ_TYPE_INT64, ex1, sizeof ex1, 5,
               v1, 5);
    check_ints("DELTA_BINARY_PACKED: spec example 2 (7,5,3,1,2,3,4,5)", UPQ_TYPE_INT32, ex2,
               sizeof ex2, 8, v2, 8);
    check_ints("DELTA_BINARY_PACKED: spec example 2 as INT64", UPQ_TYPE_INT64, ex2, sizeof ex2, 8,
               v2, 8);

    eu_case("DELTA_BINARY_PACKED: reference encoder gives the example bytes");
    for (i = 0; i < 5; i++)
        u[i] = (uint64_t)v1[i];
    put_delta(&t, u, 5, 0, 128, 4, 0);
    CHECK(t.len == sizeof ex1 && memcmp(t.b, ex1, t.len) == 0);
    t.len = 0;
    for (i = 0; i < 8; i++)
        u[i] = (uint64_t)v2[i];
    put_delta(&t, u, 8, 0, 128, 4, 0);
    CHECK(t.len == sizeof ex2 && memcmp(t.b, ex2, t.len) == 0);
    tb_free(&t);
}

static void test_header_checks(void)
{
    static const uint8_t block0[] = {0x00, 0x04, 0x05, 0x02, 0x02, 0x00};
    static const uint8_t block100[] = {0x64, 0x01, 0x05, 0x02, 0x02, 0x00};
    static const uint8_t minis0[] = {0x80, 0x01, 0x00, 0x05, 0x02, 0x02, 0x00};
    static const uint8_t per16[] = {0x80, 0x01, 0x08, 0x05, 0x02, 0x02, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t minis3[] = {0x80, 0x01, 0x03, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00};
    static const uint8_t long_varint[] = {0x80, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                          0x80, 0x80, 0x80, 0x00, 0x04, 0x05, 0x02};
    static const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    /* unused miniblocks may carry any width; their data is absent */
    static const uint8_t junk_widths[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0xFF, 0x41, 0x21};
    static const uint8_t count0[] = {0x80, 0x01, 0x04, 0x00, 0x00};
    static const uint8_t count1[] = {0x80, 0x01, 0x04, 0x01, 0x7F}; /* one value: -64 */
    static const int64_t v1[] = {1, 2, 3, 4, 5};
    static const int64_t m64[] = {-64};
    uint8_t w33[5 + 1 + 4 + 33 * 4], w65[5 + 1 + 4 + 65 * 4], w64[5 + 1 + 4 + 64 * 4];
    int64_t want64[2];
    int32_t o[8];
    size_t got;
    upq_values_dec d;

    eu_case("DELTA_BINARY_PACKED: header checks");
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, block0, sizeof block0, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, block100, sizeof block100, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, minis0, sizeof minis0, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, per16, sizeof per16, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, minis3, sizeof minis3, 5),
             UPQ_ERR_CORRUPT);
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, long_varint,
                       sizeof long_varint, 5),
             UPQ_ERR_CORRUPT);
    /* more values than the page promises */
    CHECK_ST(init_only(UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, ex1, sizeof ex1, 4),
             UPQ_ERR_CORRUPT);
    /* fewer is fine (nulls); the header's count is what there is */
    check_ints("DELTA_BINARY_PACKED: page promises more than the section holds", UPQ_TYPE_INT32, ex1,
               sizeof ex1, 10, v1, 5);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_BINARY_PACKED, UPQ_TYPE_INT32, 0, ex1, sizeof ex1, 10,
                             NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, o, 6, &got, NULL), UPQ_ERR_CORRUPT);
    check_ints("DELTA_BINARY_PACKED: widths of unused miniblocks are ignored", UPQ_TYPE_INT32,
               junk_widths, sizeof junk_widths, 5, v1, 5);
    check_ints("DELTA_BINARY_PACKED: count 0", UPQ_TYPE_INT32, count0, sizeof count0, 0, v1, 0);
    check_ints("DELTA_BINARY_PACKED: count 1 has no block", UPQ_TYPE_INT64, count1, sizeof count1,
               1, m64, 1);

    eu_case("DELTA_BINARY_PACKED: miniblock bit widths");
    /* 2 values: first 0, then a delta in a miniblock of width 33 / 64 / 65 */
    {
        static const uint8_t head[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00};
        memcpy(w33, head, 6);
        w33[6] = 33;
        w33[7] = w33[8] = w33[9] = 0;
        memset(w33 + 10, 0, 33 * 4);
        w33[10] = 0x05; /* delta 5 */
        CHECK_ST(init_read(UPQ_TYPE_INT32, w33, sizeof w33, 2), UPQ_ERR_CORRUPT);
        want64[0] = 0;
        want64[1] = 5;
        check_ints("DELTA_BINARY_PACKED: width 33 is fine for INT64", UPQ_TYPE_INT64, w33,
                   sizeof w33, 2, want64, 2);
        memcpy(w64, head, 6);
        w64[6] = 64;
        w64[7] = w64[8] = w64[9] = 0;
        memset(w64 + 10, 0, 64 * 4);
        memset(w64 + 10, 0xFF, 8); /* delta 2^64 - 1: wraps to -1 */
        want64[1] = -1;
        check_ints("DELTA_BINARY_PACKED: width 64 wraps", UPQ_TYPE_INT64, w64, sizeof w64, 2, want64,
                   2);
        memcpy(w65, head, 6);
        w65[6] = 65;
        w65[7] = w65[8] = w65[9] = 0;
        memset(w65 + 10, 0, 65 * 4);
        eu_case("DELTA_BINARY_PACKED: width 65 is corrupt for INT64");
        CHECK_ST(init_read(UPQ_TYPE_INT64, w65, sizeof w65, 2), UPQ_ERR_CORRUPT);
    }

    eu_case("DELTA_BINARY_PACKED: the last miniblock's padding must be there");
    {
        static const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
                                      0xC0, 0x3F, 0, 0, 0, 0, 0, 0};
        CHECK_ST(init_read(UPQ_TYPE_INT32, ex2, sizeof ex2 - 1, 8), UPQ_ERR_CORRUPT);
    }
}

/* Value patterns, as unsigned bits (INT32 in the low half). */
static void make_ints(uint64_t *v, size_t n, int is64, int pattern)
{
    uint64_t mask = is64 ? ~0ull : 0xFFFFFFFFull, x = eu_rand();
    size_t i;
    for (i = 0; i < n; i++) {
        switch (pattern) {
        case 0: x += eu_below(100); break;                 /* slowly rising */
        case 1: x = eu_rand(); break;                      /* full range: widest deltas */
        case 2: break;                                     /* constant: width 0 */
        case 3: x = (i & 1) ? (is64 ? (uint64_t)INT64_MIN : 0x80000000ull)
                            : (is64 ? (uint64_t)INT64_MAX : 0x7FFFFFFFull); break; /* wraps */
        case 4: x -= eu_below(1000); break;                /* falling */
        default: x = (eu_rand() % 5 == 0) ? eu_rand() : x + 1; break; /* spikes */
        }
        v[i] = x & mask;
    }
}

static void test_dbp_round_trips(void)
{
    static const uint32_t cfg[][2] = {{128, 1}, {128, 4}, {256, 8}, {256, 2}, {512, 16}, {1024, 32},
                                      {128, 2}};
    static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 300, 2000};
    size_t c, si;
    int is64, pattern;
    for (is64 = 0; is64 < 2; is64++) {
        for (c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                for (pattern = 0; pattern < 6; pattern++) {
                    size_t n = sizes[si], i;
                    uint64_t *v = (uint64_t *)malloc(8 * n + 8);
                    tbuf enc = {0}, want = {0};
                    vspec s;
                    int garbage = (int)(eu_rand() & 1);
                    /* keep the run time sane: the biggest sizes for a few configs */
                    if (n >= 2000 && (c % 3 != 0 || pattern % 2)) {
                        free(v);
                        continue;
                    }
                    make_ints(v, n, is64, pattern);
                    put_delta(&enc, v, n, is64, cfg[c][0], cfg[c][1], garbage);
                    for (i = 0; i < n; i++) {
                        if (is64) {
                            int64_t x = (int64_t)v[i];
                            put_bytes(&want, &x, 8);
                        } else {
                            int32_t x = (int32_t)(uint32_t)v[i];
                            put_bytes(&want, &x, 4);
                        }
                    }
                    eu_case(is64 ? "DELTA_BINARY_PACKED INT64 round trip"
                                 : "DELTA_BINARY_PACKED INT32 round trip");
                    s.enc = UPQ_ENC_DELTA_BINARY_PACKED;
                    s.type = is64 ? UPQ_TYPE_INT64 : UPQ_TYPE_INT32;
                    s.type_length = 0;
                    s.num_values = (uint32_t)n + (uint32_t)(eu_rand() & 1); /* sometimes v1 */
                    s.dict = NULL;
                    check_vector(&s, enc.b, enc.len, &want, n);
                    free(v);
                    tb_free(&enc);
                    tb_free(&want);
                }
            }
        }
    }
}

/* ---- byte arrays -------------------------------------------------------- */

static void put_lengths(tbuf *t, const int64_t *len, size_t n)
{
    uint64_t *u = (uint64_t *)malloc(8 * n + 8);
    size_t i;
    for (i = 0; i < n; i++)
        u[i] = (uint64_t)len[i] & 0xFFFFFFFFull;
    put_delta(t, u, n, 0, 128, 4, (int)(eu_rand() & 1));
    free(u);
}

static void test_dlba(void)
{
    static const uint8_t ex[] = {0x80, 0x01, 0x04, 0x04, 0x0A, /* lengths: 4 values, 1st 5 */
                                 0x00, 0x01, 0x00, 0x00, 0x00, /* min delta 0, width 1 */
                                 0x02, 0x00, 0x00, 0x00,       /* 0,1,0 */
                                 'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F',
                                 'o', 'o', 'b', 'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F'};
    static const char *words[] = {"Hello", "World", "Foobar", "ABCDEF"};
    upq_values_dec d;
    upq_bytes out[4];
    size_t got, i, si;
    tbuf t = {0};

    eu_case("DELTA_LENGTH_BYTE_ARRAY: spec example");
    CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, ex,
                             sizeof ex, 4, NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 4, &got, NULL), UPQ_OK);
    for (i = 0; i < 4; i++)
        CHECK(out[i].len == strlen(words[i]) && memcmp(out[i].ptr, words[i], out[i].len) == 0);
    CHECK(out[0].ptr == ex + 14); /* values point into the page */
    {
        uint64_t u[4] = {5, 5, 6, 6};
        put_delta(&t, u, 4, 0, 128, 4, 0);
        CHECK(t.len == 14 && memcmp(t.b, ex, 14) == 0);
        t.len = 0;
    }

    eu_case("DELTA_LENGTH_BYTE_ARRAY: malformed lengths");
    {
        tbuf m = {0};
        int64_t neg[2] = {3, -1};
        int64_t past[2] = {3, 5};
        put_lengths(&m, neg, 2);
        put_bytes(&m, "abcdefgh", 8);
        CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, m.b,
                                 m.len, 2, NULL, NULL, 0),
                 UPQ_OK);
        CHECK_ST(upq_values_get(&d, out, 2, &got, NULL), UPQ_ERR_CORRUPT); /* negative */
        m.len = 0;
        put_lengths(&m, past, 2);
        put_bytes(&m, "abcdefg", 7);
        CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, m.b,
                                 m.len, 2, NULL, NULL, 0),
                 UPQ_OK);
        CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_OK);
        CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT); /* past the page */
        CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, m.b,
                                 m.len, 2, NULL, NULL, 0),
                 UPQ_OK);
        CHECK_ST(upq_values_skip(&d, 2), UPQ_ERR_CORRUPT);
        CHECK_ST(upq_values_init(&d, UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY, 0, m.b,
                                 m.len, 1, NULL, NULL, 0),
                 UPQ_ERR_CORRUPT); /* 2 lengths, 1 promised */
        tb_free(&m);
    }

    for (si = 0; si < 6; si++) {
        static const size_t sizes[] = {0, 1, 4, 33, 200, 700};
        size_t n = sizes[si];
        int64_t *l = (int64_t *)malloc(8 * n + 8);
        upq_bytes *ba = (upq_bytes *)malloc(sizeof(upq_bytes) * (n + 1));
        uint8_t *pool = (uint8_t *)malloc(300 * n + 1), *q = pool;
        tbuf want = {0};
        vspec s;
        for (i = 0; i < n; i++) {
            size_t k;
            l[i] = (int64_t)(si % 2 ? eu_below(300) : eu_below(12));
            for (k = 0; k < (size_t)l[i]; k++)
                q[k] = (uint8_t)eu_rand();
            ba[i].ptr = q;
            ba[i].len = (uint32_t)l[i];
            q += l[i];
        }
        t.len = 0;
        put_lengths(&t, l, n);
        put_bytes(&t, pool, (size_t)(q - pool));
        canon(&want, UPQ_TYPE_BYTE_ARRAY, ba, n);
        eu_case("DELTA_LENGTH_BYTE_ARRAY round trip");
        s.enc = UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY;
        s.type = UPQ_TYPE_BYTE_ARRAY;
        s.type_length = 0;
        s.num_values = (uint32_t)n;
        s.dict = NULL;
        check_vector(&s, t.b, t.len, &want, n);
        free(l);
        free(ba);
        free(pool);
        tb_free(&want);
    }
    tb_free(&t);
}

/* DELTA_BYTE_ARRAY of values vals[0..n) with the given prefix lengths. */
static void put_dba(tbuf *t, const upq_bytes *vals, const int64_t *pre, size_t n)
{
    int64_t *suf = (int64_t *)calloc(n + 1, 8);
    size_t i;
    for (i = 0; i < n; i++)
        suf[i] = (int64_t)vals[i].len - pre[i];
    put_lengths(t, pre, n);
    put_lengths(t, suf, n);
    for (i = 0; i < n; i++)
        put_bytes(t, vals[i].ptr + pre[i], (size_t)suf[i]);
    free(suf);
}

static upq_status dba_init(upq_values_dec *d, int32_t type, int32_t tl, const tbuf *t,
                           uint32_t nv, uint8_t *prev, size_t prev_cap)
{
    return upq_values_init(d, UPQ_ENC_DELTA_BYTE_ARRAY, type, tl, t->b, t->len, nv, NULL, prev,
                           prev_cap);
}

static void test_dba(void)
{
    static const uint8_t ex[] = {
        0x80, 0x01, 0x04, 0x04, 0x00, /* prefix lengths: 4 values, 1st 0 */
        0x03, 0x03, 0x00, 0x00, 0x00, /* min delta -2, width 3 */
        0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 4,0,5 */
        0x80, 0x01, 0x04, 0x04, 0x08, /* suffix lengths: 4 values, 1st 4 */
        0x03, 0x03, 0x00, 0x00, 0x00, /* min delta -2, width 3 */
        0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0,6,1 */
        'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h', 'o', 'o', 'd'};
    static const char *words[] = {"axis", "axle", "babble", "babyhood"};
    upq_values_dec d;
    upq_bytes out[4], vals[4];
    uint8_t prev[64], vbm[64];
    upq_vbuf vb;
    size_t got, i, si;
    tbuf t = {0};
    int64_t pre[4] = {0, 2, 0, 3};

    eu_case("DELTA_BYTE_ARRAY: spec example");
    t.b = NULL;
    put_bytes(&t, ex, sizeof ex);
    vb.buf = vbm;
    vb.cap = sizeof vbm;
    vb.used = 0;
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, sizeof prev), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 4, &got, &vb), UPQ_OK);
    CHECK(got == 4);
    for (i = 0; i < 4; i++)
        CHECK(out[i].len == strlen(words[i]) && memcmp(out[i].ptr, words[i], out[i].len) == 0);
    for (i = 0; i < 4; i++) {
        vals[i].ptr = (const uint8_t *)words[i];
        vals[i].len = (uint32_t)strlen(words[i]);
    }
    {
        tbuf r = {0};
        uint64_t u[4];
        for (i = 0; i < 4; i++)
            u[i] = (uint64_t)pre[i];
        put_delta(&r, u, 4, 0, 128, 4, 0);
        u[0] = 4, u[1] = 2, u[2] = 6, u[3] = 5;
        put_delta(&r, u, 4, 0, 128, 4, 0);
        put_bytes(&r, "axislebabbleyhood", 17);
        CHECK(r.len == sizeof ex && memcmp(r.b, ex, r.len) == 0);
        tb_free(&r);
    }

    eu_case("DELTA_BYTE_ARRAY: a full value buffer stops the call early");
    vb.cap = 10;
    vb.used = 0;
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, sizeof prev), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 4, &got, &vb), UPQ_OK);
    CHECK(got == 2 && vb.used == 8); /* axis, axle; babble does not fit */
    CHECK(out[1].len == 4 && memcmp(out[1].ptr, "axle", 4) == 0);
    memset(vbm, 0xEE, sizeof vbm); /* the caller reuses its buffer */
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, out, 2, &got, &vb), UPQ_OK);
    CHECK(got == 1 && out[0].len == 6 && memcmp(out[0].ptr, "babble", 6) == 0);
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_OK);
    CHECK(got == 1 && out[0].len == 8 && memcmp(out[0].ptr, "babyhood", 8) == 0);
    vb.used = 5; /* partly used: no room is not an error */
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, sizeof prev), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_OK);
    CHECK(got == 1);
    vb.used = 7;
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_OK);
    CHECK(got == 0);
    vb.used = 0;
    vb.cap = 5; /* empty and still too small for babble */
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_OK);
    CHECK(got == 1); /* axle fits */
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_OK);
    CHECK(got == 0);
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_ERR_BUFFER);
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, sizeof prev), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_INVAL);

    eu_case("DELTA_BYTE_ARRAY: previous-value buffer");
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, NULL, 0), UPQ_ERR_INVAL);
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, 6), UPQ_OK);
    vb.cap = sizeof vbm;
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, out, 4, &got, &vb), UPQ_ERR_BUFFER); /* babyhood > 6 */
    CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &t, 4, prev, 6), UPQ_OK);
    CHECK_ST(upq_values_skip(&d, 4), UPQ_ERR_BUFFER);

    eu_case("DELTA_BYTE_ARRAY: FIXED_LEN_BYTE_ARRAY values must have the type's length");
    CHECK_ST(dba_init(&d, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, &t, 4, prev, sizeof prev), UPQ_OK);
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, out, 2, &got, &vb), UPQ_OK); /* axis, axle */
    CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_ERR_CORRUPT); /* babble */
    CHECK_ST(dba_init(&d, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, &t, 4, prev, sizeof prev),
             UPQ_ERR_CORRUPT);

    eu_case("DELTA_BYTE_ARRAY: malformed prefixes and suffixes");
    {
        tbuf m = {0};
        int64_t bad_pre[4] = {1, 2, 0, 3}; /* first value has no previous one */
        int64_t neg_pre[2] = {0, -1};
        int64_t long_pre[2] = {0, 5};
        int64_t p1[1] = {0};
        int64_t s2[2] = {1, 1};
        upq_status st;
        put_dba(&m, vals, bad_pre, 4);
        vb.used = 0;
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 4, prev, sizeof prev), UPQ_OK);
        CHECK_ST(upq_values_get(&d, out, 1, &got, &vb), UPQ_ERR_CORRUPT);
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 4, prev, sizeof prev), UPQ_OK);
        CHECK_ST(upq_values_skip(&d, 1), UPQ_ERR_CORRUPT);
        m.len = 0;
        put_lengths(&m, neg_pre, 2);
        put_lengths(&m, s2, 2);
        put_bytes(&m, "ab", 2);
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 2, prev, sizeof prev), UPQ_OK);
        vb.used = 0;
        CHECK_ST(upq_values_get(&d, out, 2, &got, &vb), UPQ_ERR_CORRUPT); /* negative prefix */
        m.len = 0;
        put_lengths(&m, long_pre, 2); /* prefix 5 > previous length 2 */
        put_lengths(&m, s2, 2);
        put_bytes(&m, "ab", 2);
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 2, prev, sizeof prev), UPQ_OK);
        vb.used = 0;
        CHECK_ST(upq_values_get(&d, out, 2, &got, &vb), UPQ_ERR_CORRUPT);
        m.len = 0;
        {
            int64_t z[2] = {0, 0}, negs[2] = {1, -2};
            put_lengths(&m, z, 2);
            put_lengths(&m, negs, 2);
            put_bytes(&m, "ab", 2);
        }
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 2, prev, sizeof prev), UPQ_OK);
        vb.used = 0;
        CHECK_ST(upq_values_get(&d, out, 2, &got, &vb), UPQ_ERR_CORRUPT); /* negative suffix */
        m.len = 0;
        {
            int64_t z[2] = {0, 0}, big[2] = {1, 2};
            put_lengths(&m, z, 2);
            put_lengths(&m, big, 2);
            put_bytes(&m, "ab", 2);
        }
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 2, prev, sizeof prev), UPQ_OK);
        vb.used = 0;
        st = upq_values_get(&d, out, 2, &got, &vb);
        CHECK_ST(st, UPQ_ERR_CORRUPT); /* suffix past the page */
        m.len = 0;
        put_lengths(&m, p1, 1); /* 1 prefix, 2 suffixes */
        put_lengths(&m, s2, 2);
        put_bytes(&m, "ab", 2);
        CHECK_ST(dba_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, &m, 2, prev, sizeof prev), UPQ_ERR_CORRUPT);
        tb_free(&m);
    }

    /* round trips: runs of values sharing prefixes, any prefix up to the
     * common one (writers need not use the longest) */
    for (si = 0; si < 8; si++) {
        static const size_t sizes[] = {0, 1, 2, 5, 40, 150, 600, 1500};
        size_t n = sizes[si];
        int flba = si % 3 == 2;
        int32_t tl = flba ? (int32_t)(1 + eu_below(20)) : 0;
        upq_bytes *v = (upq_bytes *)malloc(sizeof(upq_bytes) * (n + 1));
        int64_t *pl = (int64_t *)malloc(8 * n + 8);
        uint8_t *pool = (uint8_t *)malloc(70 * n + 1), *q = pool;
        tbuf want = {0};
        vspec s;
        for (i = 0; i < n; i++) {
            size_t len = flba ? (size_t)tl : eu_below(60), common = 0, k;
            if (i > 0) {
                size_t keep = eu_below((size_t)v[i - 1].len + 1);
                if (keep > len)
                    keep = len;
                memcpy(q, v[i - 1].ptr, keep);
                for (k = keep; k < len; k++)
                    q[k] = (uint8_t)('a' + eu_below(3));
                while (common < len && common < v[i - 1].len && q[common] == v[i - 1].ptr[common])
                    common++;
            } else {
                for (k = 0; k < len; k++)
                    q[k] = (uint8_t)('a' + eu_below(3));
            }
            v[i].ptr = q;
            v[i].len = (uint32_t)len;
            pl[i] = (int64_t)((eu_rand() & 3) ? common : eu_below(common + 1));
            q += len;
        }
        t.len = 0;
        put_dba(&t, v, pl, n);
        canon(&want, flba ? UPQ_TYPE_FIXED_LEN_BYTE_ARRAY : UPQ_TYPE_BYTE_ARRAY, v, n);
        eu_case(flba ? "DELTA_BYTE_ARRAY FIXED_LEN_BYTE_ARRAY round trip"
                     : "DELTA_BYTE_ARRAY BYTE_ARRAY round trip");
        s.enc = UPQ_ENC_DELTA_BYTE_ARRAY;
        s.type = flba ? UPQ_TYPE_FIXED_LEN_BYTE_ARRAY : UPQ_TYPE_BYTE_ARRAY;
        s.type_length = tl;
        s.num_values = (uint32_t)n;
        s.dict = NULL;
        check_vector(&s, t.b, t.len, &want, n);
        free(v);
        free(pl);
        free(pool);
        tb_free(&want);
    }
    tb_free(&t);
}

int main(void)
{
    test_spec_examples();
    test_header_checks();
    test_dbp_round_trips();
    test_dlba();
    test_dba();
    return eu_summary();
}
