/*
 * PLAIN values of every physical type, and the encoding/type pairs the
 * values decoder accepts.
 */
#include "enc_util.h"

static void run(const char *name, int32_t type, int32_t tl, uint32_t num_values, const tbuf *enc,
                const tbuf *want, size_t n)
{
    vspec s;
    eu_case(name);
    s.enc = UPQ_ENC_PLAIN;
    s.type = type;
    s.type_length = tl;
    s.num_values = num_values;
    s.dict = NULL;
    check_vector(&s, enc->b, enc->len, want, n);
}

/* Decodes n values of p[0..len) in one call. */
static upq_status plain_get(int32_t type, int32_t tl, const uint8_t *p, size_t len, uint32_t nv,
                            void *out, size_t n)
{
    upq_values_dec d;
    size_t got = 0;
    upq_status st = upq_values_init(&d, UPQ_ENC_PLAIN, type, tl, p, len, nv, NULL, NULL, 0);
    if (st != UPQ_OK)
        return st;
    return upq_values_get(&d, out, n, &got, NULL);
}

static void test_examples(void)
{
    static const uint8_t bools[] = {0x8D, 0x01}; /* 1,0,1,1,0,0,0,1 | 1 */
    static const uint8_t ints[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x04, 0x03, 0x02, 0x01};
    static const uint8_t longs[] = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t floats[] = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x80, 0xBF};
    static const uint8_t doubles[] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
    static const uint8_t int96[] = {1, 2, 3, 4, 5, 6, 7, 8, 0x8C, 0x3D, 0x25, 0x00};
    static const uint8_t strs[] = {5, 0, 0, 0, 'H', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 1, 0, 0, 0, 'x'};
    static const uint8_t flba[] = {'a', 'b', 'c', 'd', 'e', 'f'};
    uint8_t b[9];
    int32_t i32[2];
    int64_t i64[1];
    float f[2];
    double dd[1];
    upq_int96 t96[1];
    upq_bytes ba[3];

    eu_case("PLAIN examples of every type");
    CHECK_ST(plain_get(UPQ_TYPE_BOOLEAN, 0, bools, sizeof bools, 9, b, 9), UPQ_OK);
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 1 && b[3] == 1 && b[4] == 0 && b[5] == 0 && b[6] == 0 &&
          b[7] == 1 && b[8] == 1);
    CHECK_ST(plain_get(UPQ_TYPE_INT32, 0, ints, sizeof ints, 2, i32, 2), UPQ_OK);
    CHECK(i32[0] == -1 && i32[1] == 0x01020304);
    CHECK_ST(plain_get(UPQ_TYPE_INT64, 0, longs, sizeof longs, 1, i64, 1), UPQ_OK);
    CHECK(i64[0] == -2);
    CHECK_ST(plain_get(UPQ_TYPE_FLOAT, 0, floats, sizeof floats, 2, f, 2), UPQ_OK);
    CHECK(f[0] == 1.5f && f[1] == -1.0f);
    CHECK_ST(plain_get(UPQ_TYPE_DOUBLE, 0, doubles, sizeof doubles, 1, dd, 1), UPQ_OK);
    CHECK(dd[0] == 1.0);
    CHECK_ST(plain_get(UPQ_TYPE_INT96, 0, int96, sizeof int96, 1, t96, 1), UPQ_OK);
    CHECK(memcmp(t96[0].b, int96, 12) == 0);
    CHECK_ST(plain_get(UPQ_TYPE_BYTE_ARRAY, 0, strs, sizeof strs, 3, ba, 3), UPQ_OK);
    CHECK(ba[0].len == 5 && memcmp(ba[0].ptr, "Hello", 5) == 0 && ba[0].ptr == strs + 4);
    CHECK(ba[1].len == 0);
    CHECK(ba[2].len == 1 && ba[2].ptr[0] == 'x');
    CHECK_ST(plain_get(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 3, flba, sizeof flba, 2, ba, 2), UPQ_OK);
    CHECK(ba[0].len == 3 && ba[0].ptr == flba && ba[1].len == 3 && ba[1].ptr == flba + 3);

    eu_case("PLAIN: v1 upper bound on the count");
    CHECK_ST(plain_get(UPQ_TYPE_INT32, 0, ints, sizeof ints, 10, i32, 2), UPQ_OK);
    CHECK_ST(plain_get(UPQ_TYPE_INT32, 0, ints, sizeof ints, 10, i32, 3), UPQ_ERR_CORRUPT);
    CHECK_ST(plain_get(UPQ_TYPE_INT32, 0, ints, sizeof ints, 1, i32, 2), UPQ_ERR_CORRUPT);
    CHECK_ST(plain_get(UPQ_TYPE_BOOLEAN, 0, bools, sizeof bools, 100, b, 9), UPQ_OK);
    {
        uint8_t many[17];
        CHECK_ST(plain_get(UPQ_TYPE_BOOLEAN, 0, bools, sizeof bools, 100, many, 17), UPQ_ERR_CORRUPT);
    }

    eu_case("PLAIN: malformed byte arrays");
    {
        static const uint8_t too_long[] = {6, 0, 0, 0, 'H', 'e', 'l', 'l', 'o'};
        static const uint8_t negative[] = {0, 0, 0, 0x80, 'H'};
        static const uint8_t cut_len[] = {5, 0, 0};
        static const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 'H'};
        CHECK_ST(plain_get(UPQ_TYPE_BYTE_ARRAY, 0, too_long, sizeof too_long, 1, ba, 1),
                 UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_BYTE_ARRAY, 0, negative, sizeof negative, 1, ba, 1),
                 UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_BYTE_ARRAY, 0, cut_len, sizeof cut_len, 1, ba, 1),
                 UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_BYTE_ARRAY, 0, huge, sizeof huge, 1, ba, 1), UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, flba, sizeof flba, 1, ba, 1),
                 UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, -3, flba, sizeof flba, 1, ba, 1),
                 UPQ_ERR_CORRUPT);
        CHECK_ST(plain_get(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, flba, sizeof flba, 2, ba, 2),
                 UPQ_ERR_CORRUPT);
    }
}

static void test_round_trips(void)
{
    static const size_t sizes[] = {0, 1, 7, 8, 9, 100, 1000};
    size_t si;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si], i;
        tbuf enc = {0}, want = {0};
        uint8_t *bools = (uint8_t *)malloc(n + 1);
        int32_t *i32 = (int32_t *)malloc(4 * n + 4);
        int64_t *i64 = (int64_t *)malloc(8 * n + 8);
        float *f32 = (float *)malloc(4 * n + 4);
        double *f64 = (double *)malloc(8 * n + 8);
        upq_int96 *t96 = (upq_int96 *)malloc(12 * n + 12);
        upq_bytes *ba = (upq_bytes *)malloc(sizeof(upq_bytes) * (n + 1));
        uint8_t *pool = (uint8_t *)malloc(40 * n + 1);

        /* BOOLEAN */
        {
            uint64_t *bits = (uint64_t *)malloc(8 * n + 8);
            for (i = 0; i < n; i++)
                bools[i] = (uint8_t)(eu_rand() & 1), bits[i] = bools[i];
            put_bits_lsb(&enc, bits, n, 1);
            canon(&want, UPQ_TYPE_BOOLEAN, bools, n);
            run("PLAIN BOOLEAN round trip", UPQ_TYPE_BOOLEAN, 0, (uint32_t)n, &enc, &want, n);
            free(bits);
        }
        enc.len = want.len = 0;
        for (i = 0; i < n; i++) {
            i32[i] = (int32_t)(uint32_t)eu_rand();
            put_le32(&enc, (uint32_t)i32[i]);
        }
        canon(&want, UPQ_TYPE_INT32, i32, n);
        run("PLAIN INT32 round trip", UPQ_TYPE_INT32, 0, (uint32_t)n, &enc, &want, n);
        enc.len = want.len = 0;
        for (i = 0; i < n; i++) {
            i64[i] = (int64_t)eu_rand();
            put_le64(&enc, (uint64_t)i64[i]);
        }
        canon(&want, UPQ_TYPE_INT64, i64, n);
        run("PLAIN INT64 round trip", UPQ_TYPE_INT64, 0, (uint32_t)n, &enc, &want, n);
        enc.len = want.len = 0;
        for (i = 0; i < n; i++) {
            uint32_t u;
            f32[i] = (float)(int32_t)(eu_rand() % 2000000) / 7.0f;
            memcpy(&u, &f32[i], 4);
            put_le32(&enc, u);
        }
        canon(&want, UPQ_TYPE_FLOAT, f32, n);
        run("PLAIN FLOAT round trip", UPQ_TYPE_FLOAT, 0, (uint32_t)n, &enc, &want, n);
        enc.len = want.len = 0;
        for (i = 0; i < n; i++) {
            uint64_t u;
            f64[i] = (double)(int64_t)(eu_rand() % 2000000000) / 3.0;
            memcpy(&u, &f64[i], 8);
            put_le64(&enc, u);
        }
        canon(&want, UPQ_TYPE_DOUBLE, f64, n);
        run("PLAIN DOUBLE round trip", UPQ_TYPE_DOUBLE, 0, (uint32_t)n, &enc, &want, n);
        enc.len = want.len = 0;
        for (i = 0; i < n; i++) {
            int k;
            for (k = 0; k < 12; k++)
                t96[i].b[k] = (uint8_t)eu_rand();
            put_bytes(&enc, t96[i].b, 12);
        }
        canon(&want, UPQ_TYPE_INT96, t96, n);
        run("PLAIN INT96 round trip", UPQ_TYPE_INT96, 0, (uint32_t)n, &enc, &want, n);
        /* BYTE_ARRAY, lengths 0..39 */
        enc.len = want.len = 0;
        {
            uint8_t *q = pool;
            for (i = 0; i < n; i++) {
                uint32_t l = (uint32_t)eu_below(40), k;
                for (k = 0; k < l; k++)
                    q[k] = (uint8_t)eu_rand();
                ba[i].ptr = q;
                ba[i].len = l;
                put_le32(&enc, l);
                put_bytes(&enc, q, l);
                q += l;
            }
        }
        canon(&want, UPQ_TYPE_BYTE_ARRAY, ba, n);
        run("PLAIN BYTE_ARRAY round trip", UPQ_TYPE_BYTE_ARRAY, 0, (uint32_t)n, &enc, &want, n);
        /* FIXED_LEN_BYTE_ARRAY of 1, 3 and 16 bytes */
        {
            static const int32_t tls[] = {1, 3, 16};
            size_t t;
            for (t = 0; t < 3; t++) {
                enc.len = want.len = 0;
                for (i = 0; i < n * (size_t)tls[t]; i++)
                    pool[i] = (uint8_t)eu_rand();
                for (i = 0; i < n; i++) {
                    ba[i].ptr = pool + i * (size_t)tls[t];
                    ba[i].len = (uint32_t)tls[t];
                }
                put_bytes(&enc, pool, n * (size_t)tls[t]);
                canon(&want, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, ba, n);
                run("PLAIN FIXED_LEN_BYTE_ARRAY round trip", UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, tls[t],
                    (uint32_t)n, &enc, &want, n);
            }
        }
        free(bools);
        free(i32);
        free(i64);
        free(f32);
        free(f64);
        free(t96);
        free(ba);
        free(pool);
        tb_free(&enc);
        tb_free(&want);
    }
}

static void test_pairs(void)
{
    static const uint8_t junk[16] = {0};
    int32_t enc, type;
    eu_case("encoding and type pairs");
    for (enc = -1; enc <= 10; enc++) {
        for (type = -1; type <= 8; type++) {
            upq_values_dec d;
            upq_dict dict;
            int want_ok;
            upq_status st;
            dict.physical_type = type;
            dict.n = 1;
            dict.values = junk;
            switch (enc) {
            case UPQ_ENC_PLAIN:
            case UPQ_ENC_PLAIN_DICTIONARY:
            case UPQ_ENC_RLE_DICTIONARY: want_ok = type >= 0 && type <= 7; break;
            case UPQ_ENC_RLE: want_ok = type == UPQ_TYPE_BOOLEAN; break;
            case UPQ_ENC_DELTA_BINARY_PACKED:
                want_ok = type == UPQ_TYPE_INT32 || type == UPQ_TYPE_INT64;
                break;
            case UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY: want_ok = type == UPQ_TYPE_BYTE_ARRAY; break;
            case UPQ_ENC_DELTA_BYTE_ARRAY:
                want_ok = type == UPQ_TYPE_BYTE_ARRAY || type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
                break;
            case UPQ_ENC_BYTE_STREAM_SPLIT:
                want_ok = type == UPQ_TYPE_INT32 || type == UPQ_TYPE_INT64 ||
                          type == UPQ_TYPE_FLOAT || type == UPQ_TYPE_DOUBLE ||
                          type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
                break;
            default: want_ok = 0; break; /* GROUP_VAR_INT, BIT_PACKED, unknown */
            }
            /* an empty section: valid pairs may still find it malformed */
            st = upq_values_init(&d, enc, type, 4, junk, 0, 0, &dict, NULL, 0);
            if (want_ok)
                CHECK(st != UPQ_ERR_UNSUPPORTED);
            else
                CHECK_ST(st, UPQ_ERR_UNSUPPORTED);
            if (st != UPQ_OK) {
                size_t got = 7;
                int32_t out[1];
                CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_STATE);
                CHECK(got == 0);
                CHECK_ST(upq_values_skip(&d, 1), UPQ_ERR_STATE);
            }
        }
    }
}

int main(void)
{
    test_examples();
    test_round_trips();
    test_pairs();
    return eu_summary();
}
