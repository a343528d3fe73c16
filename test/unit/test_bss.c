/*
 * BYTE_STREAM_SPLIT for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY
 * (FLOAT16 is a 2-byte FIXED_LEN_BYTE_ARRAY).
 */
#include "enc_util.h"

/* Splits n values of `width` bytes (their PLAIN bytes in `plain`) into streams. */
static void put_bss(tbuf *t, const uint8_t *plain, size_t n, size_t width)
{
    size_t i, k;
    for (k = 0; k < width; k++)
        for (i = 0; i < n; i++)
            put_u8(t, plain[i * width + k]);
}

static void test_spec_example(void)
{
    static const uint8_t enc[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
                                  0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    static const uint8_t plain[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11,
                                    0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
    static const uint32_t bits[] = {0xDDCCBBAAu, 0x33221100u, 0xD6C5B4A3u};
    upq_values_dec d;
    float f[3];
    int32_t i32[3];
    upq_bytes b[3];
    uint8_t vbm[12];
    upq_vbuf vb;
    size_t got, i;
    tbuf t = {0};

    eu_case("BYTE_STREAM_SPLIT: spec example (three 32-bit floats)");
    put_bss(&t, plain, 3, 4);
    CHECK(t.len == sizeof enc && memcmp(t.b, enc, sizeof enc) == 0);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FLOAT, 0, enc, sizeof enc, 3,
                             NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, f, 3, &got, NULL), UPQ_OK);
    for (i = 0; i < 3; i++) {
        uint32_t u;
        memcpy(&u, &f[i], 4);
        CHECK(u == bits[i]);
    }
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_INT32, 0, enc, sizeof enc, 3,
                             NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, i32, 3, &got, NULL), UPQ_OK);
    for (i = 0; i < 3; i++)
        CHECK((uint32_t)i32[i] == bits[i]);
    vb.buf = vbm;
    vb.cap = sizeof vbm;
    vb.used = 0;
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, enc,
                             sizeof enc, 3, NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, b, 3, &got, &vb), UPQ_OK);
    CHECK(got == 3);
    for (i = 0; i < 3; i++)
        CHECK(b[i].len == 4 && memcmp(b[i].ptr, plain + 4 * i, 4) == 0);

    eu_case("BYTE_STREAM_SPLIT: the section length decides the count");
    /* 12 bytes: 3 floats; a v1 page may promise more (nulls), never fewer */
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FLOAT, 0, enc, sizeof enc, 5,
                             NULL, NULL, 0),
             UPQ_OK);
    CHECK(upq_values_left(&d) == 3);
    CHECK_ST(upq_values_get(&d, f, 4, &got, NULL), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FLOAT, 0, enc, sizeof enc, 2,
                             NULL, NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FLOAT, 0, enc, 11, 3, NULL,
                             NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_DOUBLE, 0, enc, sizeof enc, 3,
                             NULL, NULL, 0),
             UPQ_ERR_CORRUPT); /* 12 is not a multiple of 8 */
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 5, enc,
                             sizeof enc, 3, NULL, NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, enc,
                             sizeof enc, 3, NULL, NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FLOAT, 0, enc, 0, 0, NULL,
                             NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, f, 0, &got, NULL), UPQ_OK);
    CHECK_ST(upq_values_get(&d, f, 1, &got, NULL), UPQ_ERR_CORRUPT);

    eu_case("BYTE_STREAM_SPLIT: FIXED_LEN_BYTE_ARRAY needs room in the value buffer");
    CHECK_ST(upq_values_init(&d, UPQ_ENC_BYTE_STREAM_SPLIT, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, enc,
                             sizeof enc, 6, NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, b, 1, &got, NULL), UPQ_ERR_INVAL);
    vb.cap = 5;
    vb.used = 0;
    CHECK_ST(upq_values_get(&d, b, 3, &got, &vb), UPQ_OK);
    CHECK(got == 2 && vb.used == 4); /* (AA CC) and (00 22); a third does not fit */
    CHECK(b[0].len == 2 && b[0].ptr[0] == 0xAA && b[0].ptr[1] == 0xCC);
    CHECK(b[1].len == 2 && b[1].ptr[0] == 0x00 && b[1].ptr[1] == 0x22);
    CHECK_ST(upq_values_get(&d, b, 1, &got, &vb), UPQ_OK);
    CHECK(got == 0);
    vb.used = 0;
    vb.cap = 1;
    CHECK_ST(upq_values_get(&d, b, 1, &got, &vb), UPQ_ERR_BUFFER);
    tb_free(&t);
}

static void test_round_trips(void)
{
    static const int32_t types[] = {UPQ_TYPE_FLOAT, UPQ_TYPE_DOUBLE, UPQ_TYPE_INT32,
                                    UPQ_TYPE_INT64, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY,
                                    UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY,
                                    UPQ_TYPE_FIXED_LEN_BYTE_ARRAY};
    static const size_t widths[] = {4, 8, 4, 8, 2, 1, 3, 16};
    static const size_t sizes[] = {0, 1, 7, 64, 65, 500};
    size_t ti, si;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si], w = widths[ti], i;
            uint8_t *plain = (uint8_t *)malloc(n * w + 1);
            upq_bytes *ba = (upq_bytes *)malloc(sizeof(upq_bytes) * (n + 1));
            tbuf enc = {0}, want = {0};
            vspec s;
            for (i = 0; i < n * w; i++)
                plain[i] = (uint8_t)eu_rand();
            put_bss(&enc, plain, n, w);
            switch (types[ti]) {
            case UPQ_TYPE_FLOAT:
                for (i = 0; i < n; i++) {
                    uint32_t u = (uint32_t)plain[4 * i] | (uint32_t)plain[4 * i + 1] << 8 |
                                 (uint32_t)plain[4 * i + 2] << 16 | (uint32_t)plain[4 * i + 3] << 24;
                    float f;
                    memcpy(&f, &u, 4);
                    put_bytes(&want, &f, 4);
                }
                break;
            case UPQ_TYPE_INT32:
                for (i = 0; i < n; i++) {
                    uint32_t u = (uint32_t)plain[4 * i] | (uint32_t)plain[4 * i + 1] << 8 |
                                 (uint32_t)plain[4 * i + 2] << 16 | (uint32_t)plain[4 * i + 3] << 24;
                    put_bytes(&want, &u, 4);
                }
                break;
            case UPQ_TYPE_DOUBLE:
            case UPQ_TYPE_INT64:
                for (i = 0; i < n; i++) {
                    uint64_t u = 0;
                    int k;
                    for (k = 7; k >= 0; k--)
                        u = (u << 8) | plain[8 * i + (size_t)k];
                    put_bytes(&want, &u, 8); /* same bytes for a double */
                }
                break;
            default:
                for (i = 0; i < n; i++) {
                    ba[i].ptr = plain + i * w;
                    ba[i].len = (uint32_t)w;
                }
                canon(&want, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, ba, n);
                break;
            }
            eu_case("BYTE_STREAM_SPLIT round trip");
            s.enc = UPQ_ENC_BYTE_STREAM_SPLIT;
            s.type = types[ti];
            s.type_length = (int32_t)w;
            s.num_values = (uint32_t)n;
            s.dict = NULL;
            check_vector(&s, enc.b, enc.len, &want, n);
            free(plain);
            free(ba);
            tb_free(&enc);
            tb_free(&want);
        }
    }
}

int main(void)
{
    test_spec_example();
    test_round_trips();
    return eu_summary();
}
