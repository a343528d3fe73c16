/*
 * Dictionary pages, dictionary-encoded values (PLAIN_DICTIONARY and
 * RLE_DICTIONARY) for every physical type, and RLE-encoded booleans.
 */
#include "enc_util.h"

static uint8_t arena_mem[1 << 20];

/* PLAIN bytes of n random values of `type` (byte arrays point into the
 * result once it is complete, so they are described by offsets here). */
static void put_plain_values(tbuf *t, int32_t type, int32_t tl, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        switch (type) {
        case UPQ_TYPE_BOOLEAN: put_u8(t, (uint8_t)(i & 1)); break; /* fixed below */
        case UPQ_TYPE_INT32:
        case UPQ_TYPE_FLOAT: put_le32(t, (uint32_t)eu_rand()); break;
        case UPQ_TYPE_INT64:
        case UPQ_TYPE_DOUBLE: put_le64(t, eu_rand()); break;
        case UPQ_TYPE_INT96: {
            int k;
            for (k = 0; k < 12; k++)
                put_u8(t, (uint8_t)eu_rand());
            break;
        }
        case UPQ_TYPE_BYTE_ARRAY: {
            uint32_t l = (uint32_t)eu_below(20), k;
            put_le32(t, l);
            for (k = 0; k < l; k++)
                put_u8(t, (uint8_t)eu_rand());
            break;
        }
        default: {
            int32_t k;
            for (k = 0; k < tl; k++)
                put_u8(t, (uint8_t)eu_rand());
            break;
        }
        }
    }
    if (type == UPQ_TYPE_BOOLEAN) {
        /* bit-packed: false then true */
        t->len -= n;
        put_u8(t, 0x02);
    }
}

static void test_dict_decode(void)
{
    static const uint8_t ints[] = {1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 7, 0, 0, 0};
    static const uint8_t strs[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0};
    upq_arena a;
    upq_dict dict;
    const int32_t *iv;
    const upq_bytes *bv;

    eu_case("dictionary pages");
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, sizeof ints, 3, &a), UPQ_OK);
    iv = (const int32_t *)dict.values;
    CHECK(dict.n == 3 && dict.physical_type == UPQ_TYPE_INT32);
    CHECK(iv[0] == 1 && iv[1] == -2 && iv[2] == 7);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, sizeof ints, 4, &a), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, sizeof ints, 0xFFFFFFFFu, &a),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, 0, 0, &a), UPQ_OK);
    CHECK(dict.n == 0);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_BYTE_ARRAY, 0, strs, sizeof strs, 2, &a), UPQ_OK);
    bv = (const upq_bytes *)dict.values;
    CHECK(bv[0].len == 3 && bv[0].ptr == strs + 4 && bv[1].len == 0);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_BYTE_ARRAY, 0, strs, sizeof strs, 3, &a),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_BYTE_ARRAY, 0, strs, 6, 1, &a), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, strs, sizeof strs, 1, &a),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, strs, sizeof strs, 3, &a),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_dict_decode(&dict, 9, 0, strs, sizeof strs, 1, &a), UPQ_ERR_UNSUPPORTED);
    CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_BOOLEAN, 0, strs, 1, 9, &a), UPQ_ERR_CORRUPT);
    {
        uint64_t small[2]; /* aligned like the arena's blocks: all 16 bytes usable */
        upq_arena t;
        upq_arena_init(&t, small, sizeof small);
        CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, sizeof ints, 3, &t), UPQ_OK);
        upq_arena_init(&t, small, 8);
        CHECK_ST(upq_dict_decode(&dict, UPQ_TYPE_INT32, 0, ints, sizeof ints, 3, &t), UPQ_ERR_NOMEM);
    }
}

static upq_status dinit(upq_values_dec *d, int32_t enc, const uint8_t *p, size_t len,
                        uint32_t nv, const upq_dict *dict)
{
    return upq_values_init(d, enc, dict ? dict->physical_type : UPQ_TYPE_INT32, 0, p, len, nv,
                           dict, NULL, 0);
}

static void test_indices(void)
{
    static const int32_t vals[] = {10, 20, 30};
    /* width 2: RLE run of 3 x index 2, then a bit-packed group 0,1,2,1,0,0,0,0 */
    static const uint8_t page[] = {0x02, 0x06, 0x02, 0x03, 0x64, 0x00};
    static const uint8_t bad_run[] = {0x02, 0x06, 0x03};
    static const uint8_t bad_lit[] = {0x02, 0x03, 0xE4, 0x00}; /* 0,1,2,3,0.. */
    static const uint8_t w0[] = {0x00, 0x08};
    static const uint8_t w0_bare[] = {0x00};
    static const uint8_t w33[] = {0x21, 0x02, 0, 0, 0, 0};
    upq_dict dict, empty, wrong;
    upq_values_dec d;
    int32_t out[16];
    size_t got;

    dict.physical_type = UPQ_TYPE_INT32;
    dict.n = 3;
    dict.values = vals;
    empty = dict;
    empty.n = 0;
    wrong = dict;
    wrong.physical_type = UPQ_TYPE_INT64;

    eu_case("dictionary indices");
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, page, sizeof page, 11, &dict), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 11, &got, NULL), UPQ_OK);
    CHECK(out[0] == 30 && out[1] == 30 && out[2] == 30 && out[3] == 10 && out[4] == 20 &&
          out[5] == 30 && out[6] == 20 && out[7] == 10 && out[10] == 10);
    CHECK_ST(dinit(&d, UPQ_ENC_PLAIN_DICTIONARY, page, sizeof page, 11, &dict), UPQ_OK);
    CHECK_ST(upq_values_skip(&d, 4), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 2, &got, NULL), UPQ_OK);
    CHECK(out[0] == 20 && out[1] == 30);

    eu_case("dictionary indices: out of range");
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, bad_run, sizeof bad_run, 3, &dict), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT);
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, bad_run, sizeof bad_run, 3, &dict), UPQ_OK);
    CHECK_ST(upq_values_skip(&d, 1), UPQ_ERR_CORRUPT);
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, bad_lit, sizeof bad_lit, 8, &dict), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 3, &got, NULL), UPQ_OK); /* 0,1,2 */
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT); /* index 3 */
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, bad_lit, sizeof bad_lit, 8, &dict), UPQ_OK);
    CHECK_ST(upq_values_skip(&d, 4), UPQ_ERR_CORRUPT);
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, page, sizeof page, 11, &empty), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT);

    eu_case("dictionary indices: bit width 0 means index 0");
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, w0, sizeof w0, 4, &dict), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 4, &got, NULL), UPQ_OK);
    CHECK(out[0] == 10 && out[3] == 10);
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, w0_bare, sizeof w0_bare, 4, &dict), UPQ_OK);
    CHECK_ST(upq_values_skip(&d, 1), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 3, &got, NULL), UPQ_OK);
    CHECK(out[0] == 10 && out[2] == 10);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT); /* 4 promised */
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, w0, sizeof w0, 4, &empty), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT);

    eu_case("dictionary indices: malformed setup");
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, w33, sizeof w33, 1, &dict), UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE_DICTIONARY, UPQ_TYPE_INT32, 0, page, sizeof page, 1,
                             NULL, NULL, 0),
             UPQ_ERR_INVAL);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE_DICTIONARY, UPQ_TYPE_INT32, 0, page, sizeof page, 1,
                             &wrong, NULL, 0),
             UPQ_ERR_INVAL);
    /* an empty section holds no values (a v1 page of nulls) */
    CHECK_ST(dinit(&d, UPQ_ENC_RLE_DICTIONARY, page, 0, 5, &dict), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 0, &got, NULL), UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT);
}

static void test_dict_round_trips(void)
{
    int32_t type;
    for (type = UPQ_TYPE_BOOLEAN; type <= UPQ_TYPE_FIXED_LEN_BYTE_ARRAY; type++) {
        static const size_t sizes[] = {0, 1, 9, 100, 1000};
        static const uint32_t dict_sizes[] = {1, 2, 3, 200, 5000};
        size_t si, di;
        for (di = 0; di < sizeof dict_sizes / sizeof dict_sizes[0]; di++) {
            uint32_t dn = dict_sizes[di];
            int32_t tl = 5;
            tbuf dpage = {0};
            upq_arena a;
            upq_dict dict;
            if (type == UPQ_TYPE_BOOLEAN)
                dn = dn > 2 ? 2 : dn;
            put_plain_values(&dpage, type, tl, dn);
            upq_arena_init(&a, arena_mem, sizeof arena_mem);
            eu_case("dictionary round trip");
            if (!CHECK_ST(upq_dict_decode(&dict, type, tl, dpage.b, dpage.len, dn, &a), UPQ_OK)) {
                tb_free(&dpage);
                continue;
            }
            for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                size_t n = sizes[si], i;
                unsigned bw = 0;
                uint32_t *idx = (uint32_t *)malloc(4 * n + 4);
                uint8_t *vals = (uint8_t *)malloc((n + 1) * upq_value_size(type));
                size_t vs = upq_value_size(type);
                tbuf enc = {0}, want = {0};
                vspec s;
                int mode = (int)eu_below(3);
                while (bw < 32 && ((dn - 1) >> bw))
                    bw++;
                if (eu_rand() % 4 == 0 && bw < 32)
                    bw++; /* wider than needed is allowed */
                for (i = 0; i < n;) {
                    size_t r = 1 + eu_below(20), k;
                    uint32_t x = (uint32_t)eu_below(dn);
                    for (k = 0; k < r && i < n; k++, i++)
                        idx[i] = (eu_rand() & 1) ? x : (uint32_t)eu_below(dn);
                }
                for (i = 0; i < n; i++)
                    memcpy(vals + i * vs, (const uint8_t *)dict.values + (size_t)idx[i] * vs, vs);
                canon(&want, type, vals, n);
                put_u8(&enc, (uint8_t)bw);
                put_hybrid(&enc, idx, n, bw, mode, (int)(eu_rand() & 1));
                s.enc = (eu_rand() & 1) ? UPQ_ENC_RLE_DICTIONARY : UPQ_ENC_PLAIN_DICTIONARY;
                s.type = type;
                s.type_length = tl;
                s.num_values = (uint32_t)n;
                s.dict = &dict;
                check_vector(&s, enc.b, enc.len, &want, n);
                free(idx);
                free(vals);
                tb_free(&enc);
                tb_free(&want);
            }
            tb_free(&dpage);
        }
    }
}

static void test_rle_booleans(void)
{
    static const uint8_t page[] = {0x04, 0, 0, 0, 0x10, 0x01, 0x03, 0x05}; /* 8 x true; 1,0,1,0.. */
    static const uint8_t too_long[] = {0x05, 0, 0, 0, 0x10, 0x01, 0x03, 0x05};
    static const uint8_t wide[] = {0x02, 0, 0, 0, 0x10, 0x02};
    uint8_t out[16];
    size_t got, si;
    upq_values_dec d;

    eu_case("RLE booleans");
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, page, sizeof page, 16, NULL, NULL,
                             0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 16, &got, NULL), UPQ_OK);
    CHECK(out[0] == 1 && out[7] == 1 && out[8] == 1 && out[9] == 0 && out[10] == 1 && out[11] == 0 &&
          out[12] == 0 && out[15] == 0);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, too_long, sizeof too_long, 16,
                             NULL, NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, page, 3, 16, NULL, NULL, 0),
             UPQ_ERR_CORRUPT);
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, wide, sizeof wide, 8, NULL, NULL,
                             0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT); /* 2 is not a boolean */
    CHECK_ST(upq_values_init(&d, UPQ_ENC_RLE, UPQ_TYPE_BOOLEAN, 0, page, 0, 16, NULL, NULL, 0),
             UPQ_OK);
    CHECK_ST(upq_values_get(&d, out, 1, &got, NULL), UPQ_ERR_CORRUPT);

    for (si = 0; si < 5; si++) {
        static const size_t sizes[] = {0, 1, 8, 77, 1500};
        size_t n = sizes[si], i;
        uint32_t *v = (uint32_t *)malloc(4 * n + 4);
        uint8_t *b = (uint8_t *)malloc(n + 1);
        tbuf body = {0}, enc = {0}, want = {0};
        vspec s;
        for (i = 0; i < n; i++) {
            v[i] = (i / 13) % 3 ? (uint32_t)(eu_rand() & 1) : 1u;
            b[i] = (uint8_t)v[i];
        }
        put_hybrid(&body, v, n, 1, (int)(si % 3), (int)(si & 1));
        put_le32(&enc, (uint32_t)body.len);
        put_bytes(&enc, body.b, body.len);
        canon(&want, UPQ_TYPE_BOOLEAN, b, n);
        eu_case("RLE booleans round trip");
        s.enc = UPQ_ENC_RLE;
        s.type = UPQ_TYPE_BOOLEAN;
        s.type_length = 0;
        s.num_values = (uint32_t)n;
        s.dict = NULL;
        check_vector(&s, enc.b, enc.len, &want, n);
        free(v);
        free(b);
        tb_free(&body);
        tb_free(&enc);
        tb_free(&want);
    }
}

int main(void)
{
    test_dict_decode();
    test_indices();
    test_dict_round_trips();
    test_rle_booleans();
    return eu_summary();
}
