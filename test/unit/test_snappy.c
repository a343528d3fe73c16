/*
 * Snappy: hand-built streams for every tag type (from the format
 * description), malformed streams, and compressor output decoded back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upq_codec.h"
#include "util/snappy_ref.h"

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
    /* an empty page may come as NULL: refused without arithmetic on it (UBSan) */
    CHECK(dec(NULL, 0, out, 0) == UPQ_ERR_CORRUPT);
    const unsigned char empty[] = {0x00};
    CHECK(dec(empty, 1, out, 0) == UPQ_OK);
}

/*
 * Streams long enough for the word-copy loop (at least 17 input and 65
 * output bytes) against a byte-at-a-time decoder written from the format
 * description (util/snappy_ref.h): every offset 1..70 with lengths up to 64, literals of every
 * tag length (1..60 and the 61..64 tags), then every truncation and random
 * byte changes of them: the same status, and on success the same bytes.
 * Each output buffer is exactly its size, so ASan sees any write past it.
 */
static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* a valid stream of about `target` output bytes; returns its length */
static size_t gen_stream(unsigned char *s, size_t cap, size_t target, size_t *outlen)
{
    unsigned char body[8192];
    size_t b = 0, o = 0;
    while (o < target && b + 80 < sizeof body) {
        unsigned kind = rnd(10);
        if (o == 0 || kind < 3) {
            size_t len = kind == 0 ? 1 + rnd(300) : 1 + rnd(20);
            if (len <= 60) {
                body[b++] = (unsigned char)((len - 1) << 2);
            } else if (len <= 256 && rnd(2)) {
                body[b++] = 60 << 2;
                body[b++] = (unsigned char)(len - 1);
            } else {
                /* tags 62..63 with a high zero byte are valid too */
                unsigned nb = 2 + rnd(3);
                body[b++] = (unsigned char)((59 + nb) << 2);
                for (unsigned k = 0; k < nb; k++)
                    body[b++] = (unsigned char)((len - 1) >> (8 * k));
            }
            if (b + len + 80 >= sizeof body)
                break;
            for (size_t k = 0; k < len; k++)
                body[b++] = (unsigned char)rnd(256);
            o += len;
        } else {
            size_t off = rnd(4) == 0 ? 1 + rnd(8) : 1 + rnd(70), len;
            unsigned form = rnd(3);
            if (off > o)
                off = o;
            if (form == 0 && off < 2048) {
                len = 4 + rnd(8);
                body[b++] = (unsigned char)(1 | ((len - 4) << 2) | ((off >> 8) << 5));
                body[b++] = (unsigned char)off;
            } else {
                len = 1 + rnd(64);
                body[b++] = (unsigned char)((form == 2 ? 3 : 2) | ((len - 1) << 2));
                body[b++] = (unsigned char)off;
                body[b++] = (unsigned char)(off >> 8);
                if (form == 2) {
                    body[b++] = 0;
                    body[b++] = 0;
                }
            }
            o += len;
        }
    }
    {
        size_t n = 0, v = o;
        while (v >= 0x80) {
            s[n++] = (unsigned char)(v | 0x80);
            v >>= 7;
        }
        s[n++] = (unsigned char)v;
        if (n + b > cap)
            return 0;
        memcpy(s + n, body, b);
        *outlen = o;
        return n + b;
    }
}

static int same_as_ref(const unsigned char *s, size_t n, size_t outlen)
{
    unsigned char *a = malloc(outlen + 1), *r = malloc(outlen + 1);
    unsigned char *in = malloc(n + 1);
    int ok;
    memcpy(in, s, n); /* exactly n bytes, so reads past them are seen */
    int st = dec(in, n, a, outlen), rs = snappy_ref_decode(in, n, r, outlen);
    ok = st == rs && (st != UPQ_OK || memcmp(a, r, outlen) == 0);
    free(a);
    free(r);
    free(in);
    return ok;
}

static void test_fast_path(void)
{
    static unsigned char s[9000];
    int bad = 0, n_ok = 0;
    for (int round = 0; round < 400; round++) {
        size_t outlen = 0, n = gen_stream(s, sizeof s, 65 + rnd(3000), &outlen);
        if (!n)
            continue;
        {
            unsigned char *o = malloc(outlen + 1);
            unsigned char *in = malloc(n);
            unsigned char *r = malloc(outlen + 1);
            memcpy(in, s, n);
            if (snappy_ref_decode(in, n, r, outlen) == UPQ_OK && dec(in, n, o, outlen) == UPQ_OK &&
                memcmp(o, r, outlen) == 0)
                n_ok++;
            else
                bad++;
            free(o);
            free(in);
            free(r);
        }
        /* truncations, and the output size stated one off */
        for (size_t k = n > 40 ? n - 40 : 0; k < n; k++)
            bad += !same_as_ref(s, k, outlen);
        bad += !same_as_ref(s, n, outlen + 1);
        /* random changes to one to three bytes */
        for (int m = 0; m < 30; m++) {
            unsigned char save[3];
            size_t at[3];
            int cnt = 1 + (int)rnd(3);
            for (int c = 0; c < cnt; c++) {
                at[c] = rnd((unsigned)n);
                save[c] = s[at[c]];
                s[at[c]] = (unsigned char)rnd(256);
            }
            bad += !same_as_ref(s, n, outlen);
            for (int c = cnt - 1; c >= 0; c--)
                s[at[c]] = save[c];
        }
    }
    CHECK(n_ok > 300);
    CHECK(bad == 0);
    /* every short offset with every length, past the word loop's limits */
    for (size_t off = 1; off <= 9; off++)
        for (size_t len = 1; len <= 64; len++) {
            unsigned char st[48];
            size_t outlen = off + len + 104, b = 0, v = outlen;
            while (v >= 0x80) {
                st[b++] = (unsigned char)(v | 0x80);
                v >>= 7;
            }
            st[b++] = (unsigned char)v;
            st[b++] = (unsigned char)((off - 1) << 2);
            for (size_t k = 0; k < off; k++)
                st[b++] = (unsigned char)('a' + k);
            st[b++] = (unsigned char)(2 | ((len - 1) << 2));
            st[b++] = (unsigned char)off;
            st[b++] = 0;
            /* then 8 copies of 13 bytes at offset 1: enough input left that
             * the copy above is decoded by the word loop */
            for (int k = 0; k < 8; k++) {
                st[b++] = (unsigned char)(2 | (12 << 2));
                st[b++] = 1;
                st[b++] = 0;
            }
            CHECK(same_as_ref(st, b, outlen));
        }
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
    test_fast_path();
    printf("test_snappy: %d passed, %d failed\n", passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
