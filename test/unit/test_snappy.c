/*
 * Snappy: hand-built streams for every tag type (from the format
 * description), malformed streams, and compressor output decoded back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upq_codec.h"

static int passed, failed;
#define CHECK(c)                                                         \
    do {                                                                 \
        if (c)                                                           \
            passed++;                                                    \
        else {                                                           \
            failed++;                                                    \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);          \
        }                                                                \
    } while (0)

static int dec(const unsigned char *s, size_t n, unsigned char *out, size_t outlen)
{
    return upq_snappy_decompress(s, n, out, outlen);
}

static void test_tags(void)
{
    unsigned char out[300];
    /* literal "abc" */
    const unsigned char lit[] = {0x03, 0x08, 'a', 'b', 'c'};
    CHECK(dec(lit, sizeof lit, out, 3) == UPQ_OK && memcmp(out, "abc", 3) == 0);
    /* literal + copy-1 (offset 3, length 4+2=6, overlapping) -> "abcabcabc" */
    const unsigned char c1[] = {0x09, 0x08, 'a', 'b', 'c', 0x01 | (2 << 2), 0x03};
    CHECK(dec(c1, sizeof c1, out, 9) == UPQ_OK && memcmp(out, "abcabcabc", 9) == 0);
    /* copy-2: offset 2 (LE16), length 1+4=5 after "xy" -> "xyxyxyx" */
    const unsigned char c2[] = {0x07, 0x04, 'x', 'y', 0x02 | (4 << 2), 0x02, 0x00};
    CHECK(dec(c2, sizeof c2, out, 7) == UPQ_OK && memcmp(out, "xyxyxyx", 7) == 0);
    /* copy-4: offset 1 (LE32), length 1+2=3 after "z" -> "zzzz" */
    const unsigned char c4[] = {0x04, 0x00, 'z', 0x03 | (2 << 2), 0x01, 0, 0, 0};
    CHECK(dec(c4, sizeof c4, out, 4) == UPQ_OK && memcmp(out, "zzzz", 4) == 0);
    /* long literal: tag 60 (one length byte): 200 bytes */
    {
        unsigned char v[203]; /* varint 200, tag 60, length byte 199 (= len - 1) */
        v[0] = 0xC8;
        v[1] = 0x01;
        v[2] = 60 << 2;
        v[3] = 199;
        for (int i = 0; i < 199; i++)
            v[4 + i] = (unsigned char)i;
        /* 199 bytes would be one short: the length byte says len-1 */
        CHECK(dec(v, 4 + 199, out, 200) == UPQ_ERR_CORRUPT);
        unsigned char w[4 + 200];
        memcpy(w, v, 4);
        for (int i = 0; i < 200; i++)
            w[4 + i] = (unsigned char)i;
        CHECK(dec(w, sizeof w, out, 200) == UPQ_OK && out[199] == 199);
    }
    /* two-byte literal length (tag 61) */
    {
        unsigned char w[5 + 260];
        w[0] = 0x84;
        w[1] = 0x02; /* 260 */
        w[2] = 61 << 2;
        w[3] = 3; /* 259 = 0x103 */
        w[4] = 1;
        for (int i = 0; i < 260; i++)
            w[5 + i] = (unsigned char)(i * 7);
        CHECK(dec(w, sizeof w, out, 260) == UPQ_OK && out[259] == (unsigned char)(259 * 7));
    }
}

static void test_malformed(void)
{
    unsigned char out[64];
    const unsigned char zero_off[] = {0x04, 0x00, 'z', 0x03 | (2 << 2), 0, 0, 0, 0};
    CHECK(dec(zero_off, sizeof zero_off, out, 4) == UPQ_ERR_CORRUPT);
    const unsigned char far_off[] = {0x05, 0x00, 'z', 0x02 | (3 << 2), 0x02, 0x00};
    CHECK(dec(far_off, sizeof far_off, out, 5) == UPQ_ERR_CORRUPT);
    const unsigned char too_long[] = {0x03, 0x00, 'z', 0x02 | (9 << 2), 0x01, 0x00};
    CHECK(dec(too_long, sizeof too_long, out, 3) == UPQ_ERR_CORRUPT);
    const unsigned char short_out[] = {0x05, 0x08, 'a', 'b', 'c'};
    CHECK(dec(short_out, sizeof short_out, out, 5) == UPQ_ERR_CORRUPT);
    const unsigned char wrong_len[] = {0x03, 0x08, 'a', 'b', 'c'};
    CHECK(dec(wrong_len, sizeof wrong_len, out, 4) == UPQ_ERR_CORRUPT);
    const unsigned char lit_past[] = {0x03, 0x08, 'a', 'b'};
    CHECK(dec(lit_past, sizeof lit_past, out, 3) == UPQ_ERR_CORRUPT);
    const unsigned char bad_varint[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
    CHECK(dec(bad_varint, sizeof bad_varint, out, 3) == UPQ_ERR_CORRUPT);
    CHECK(dec(bad_varint, 0, out, 0) == UPQ_ERR_CORRUPT);
    const unsigned char empty[] = {0x00};
    CHECK(dec(empty, 1, out, 0) == UPQ_OK);
}

static void roundtrip(const unsigned char *in, size_t n, const char *what)
{
    static unsigned char arena_mem[1 << 16];
    upq_arena a;
    size_t cap = upq_snappy_bound(n), len = 0;
    unsigned char *c = malloc(cap), *d = malloc(n + 1);
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    int ok = upq_snappy_compress(in, n, c, cap, &len, &a) == UPQ_OK && len <= cap &&
             dec(c, len, d, n) == UPQ_OK && memcmp(d, in, n) == 0;
    if (!ok)
        printf("  roundtrip %s (%zu bytes) failed\n", what, n);
    CHECK(ok);
    /* every truncation of the compressed stream is an error */
    if (n && n < 3000) {
        int bad = 0;
        for (size_t k = 0; k < len; k++)
            if (dec(c, k, d, n) == UPQ_OK)
                bad++;
        CHECK(bad == 0);
    }
    free(c);
    free(d);
}

static void test_roundtrip(void)
{
    unsigned seed = 1;
    size_t sizes[] = {0, 1, 4, 15, 16, 17, 100, 1000, 65535, 65536, 65537, 200000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        unsigned char *buf = malloc(n + 1);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (unsigned char)((seed >> 16) & 0xFF);
        }
        roundtrip(buf, n, "random");
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)("sensor-7;temp=21.5;"[i % 19]);
        roundtrip(buf, n, "repetitive");
        memset(buf, 'x', n);
        roundtrip(buf, n, "one byte");
        free(buf);
    }
    /* compressible input really shrinks */
    {
        static unsigned char arena_mem[1 << 16];
        upq_arena a;
        unsigned char in[10000], out[12000];
        size_t len;
        for (int i = 0; i < 10000; i++)
            in[i] = (unsigned char)("abcdefgh"[i % 8]);
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        CHECK(upq_snappy_compress(in, sizeof in, out, sizeof out, &len, &a) == UPQ_OK);
        CHECK(len < 600);
    }
}

int main(void)
{
    test_tags();
    test_malformed();
    test_roundtrip();
    printf("test_snappy: %d passed, %d failed\n", passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
