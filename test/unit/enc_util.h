/*
 * Shared pieces of the encoding tests: result counting, reference encoders
 * written independently of the library (bit by bit, the slow obvious way),
 * and the checks every encoded vector goes through:
 *   - decoding in batches of many sizes (and with small value buffers),
 *   - skip k then get the rest == get all and drop k, for every k,
 *   - every truncation of the vector gives an error or the right values,
 *     never different ones (the truncated copy sits in a buffer of exactly
 *     its size, so AddressSanitizer sees any read past it).
 */
#ifndef UPQ_TEST_ENC_UTIL_H
#define UPQ_TEST_ENC_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/encoding.h"
#include "upq_kernels.h"
#include "util/check.h"
#include "uparquet/status.h"

#if defined(__GNUC__) || defined(__clang__)
#define EU_FN static __attribute__((unused))
#else
#define EU_FN static
#endif

/* ---- result counting ---------------------------------------------------- */

static long eu_passed, eu_failed;
static const char *eu_case_name = "";

EU_FN int eu_check(int ok, const char *file, int line, const char *what)
{
    if (ok) {
        eu_passed++;
    } else {
        eu_failed++;
        if (eu_failed <= 60)
            printf("FAIL %s:%d: [%s] %s\n", file, line, eu_case_name, what);
    }
    return ok;
}
#define CHECK(c) eu_check(!!(c), __FILE__, __LINE__, #c)

EU_FN int eu_check_st(int got, int want, const char *file, int line, const char *expr)
{
    if (got == want) {
        eu_passed++;
        return 1;
    }
    eu_failed++;
    if (eu_failed <= 60)
        printf("FAIL %s:%d: [%s] %s = %d (%s), want %d (%s)\n", file, line, eu_case_name, expr,
               got, upq_strerror(got), want, upq_strerror(want));
    return 0;
}
#define CHECK_ST(got, want) eu_check_st((int)(got), (int)(want), __FILE__, __LINE__, #got)

EU_FN void eu_case(const char *name)
{
    eu_case_name = name;
}

EU_FN int eu_summary(void)
{
    printf("%ld passed, %ld failed\n", eu_passed, eu_failed);
    return (eu_failed || !eu_passed) ? 1 : 0;
}

/* ---- random numbers (reproducible) -------------------------------------- */

static uint64_t eu_rng_state = 0x9E3779B97F4A7C15ull;
EU_FN uint64_t eu_rand(void)
{
    return tu_xorshift(&eu_rng_state);
}
/* 0..n-1 (n > 0) */
EU_FN size_t eu_below(size_t n)
{
    return (size_t)(eu_rand() % n);
}
/* A random value of exactly up to bw bits, often with long equal stretches. */
EU_FN uint64_t eu_bits(unsigned bw)
{
    uint64_t v = eu_rand();
    return bw >= 64 ? v : bw == 0 ? 0 : v & ((1ull << bw) - 1);
}

/* ---- growable byte buffer ----------------------------------------------- */

typedef struct tbuf {
    uint8_t *b;
    size_t len, cap;
} tbuf;

EU_FN void tb_reserve(tbuf *t, size_t more)
{
    if (!t->b || t->len + more > t->cap) {
        size_t c = t->cap ? t->cap : 64;
        while (c < t->len + more)
            c *= 2;
        t->b = (uint8_t *)realloc(t->b, c);
        if (!t->b) {
            printf("out of memory\n");
            exit(2);
        }
        t->cap = c;
    }
}
EU_FN void tb_free(tbuf *t)
{
    free(t->b);
    t->b = NULL;
    t->len = t->cap = 0;
}
EU_FN void put_u8(tbuf *t, uint8_t v)
{
    tb_reserve(t, 1);
    t->b[t->len++] = v;
}
EU_FN void put_bytes(tbuf *t, const void *p, size_t n)
{
    tb_reserve(t, n);
    if (n)
        memcpy(t->b + t->len, p, n);
    t->len += n;
}
EU_FN void put_le32(tbuf *t, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++)
        put_u8(t, (uint8_t)(v >> (8 * i)));
}
EU_FN void put_le64(tbuf *t, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        put_u8(t, (uint8_t)(v >> (8 * i)));
}
EU_FN void put_uleb(tbuf *t, uint64_t v)
{
    do {
        uint8_t b = (uint8_t)(v & 0x7F);
        v >>= 7;
        put_u8(t, (uint8_t)(b | (v ? 0x80 : 0)));
    } while (v);
}
EU_FN void put_zigzag(tbuf *t, int64_t v)
{
    put_uleb(t, ((uint64_t)v << 1) ^ (v < 0 ? ~0ull : 0ull));
}

/* n values of bw bits, LSB first (hybrid and delta order), bit by bit. */
EU_FN void put_bits_lsb(tbuf *t, const uint64_t *v, size_t n, unsigned bw)
{
    size_t nbytes = (n * bw + 7) / 8, i;
    unsigned j;
    tb_reserve(t, nbytes);
    memset(t->b + t->len, 0, nbytes);
    for (i = 0; i < n; i++)
        for (j = 0; j < bw; j++)
            if ((v[i] >> j) & 1u) {
                size_t bit = i * bw + j;
                t->b[t->len + bit / 8] |= (uint8_t)(1u << (bit % 8));
            }
    t->len += nbytes;
}

/* n values of bw bits, MSB first (deprecated BIT_PACKED), bit by bit. */
EU_FN void put_bits_msb(tbuf *t, const uint64_t *v, size_t n, unsigned bw)
{
    size_t nbytes = (n * bw + 7) / 8, i;
    unsigned j;
    tb_reserve(t, nbytes);
    memset(t->b + t->len, 0, nbytes);
    for (i = 0; i < n; i++)
        for (j = 0; j < bw; j++)
            if ((v[i] >> (bw - 1 - j)) & 1u) {
                size_t bit = i * bw + j;
                t->b[t->len + bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
            }
    t->len += nbytes;
}

/*
 * RLE/bit-packing hybrid without a length prefix.
 * mode 0: stretches of >= 8 equal values become RLE runs, the rest
 *         bit-packed groups of 8; mode 1: all bit-packed; mode 2: all RLE.
 * truncate: the last bit-packed run stops after its last real value's byte
 * (as writers may do).
 */
EU_FN void put_hybrid(tbuf *t, const uint32_t *v, size_t n, unsigned bw, int mode, int truncate)
{
    size_t i = 0;
    while (i < n) {
        size_t r = 1;
        while (i + r < n && v[i + r] == v[i])
            r++;
        if (mode == 2 || (mode == 0 && r >= 8)) {
            unsigned k;
            put_uleb(t, (uint64_t)r << 1);
            for (k = 0; k < (bw + 7) / 8; k++)
                put_u8(t, (uint8_t)(v[i] >> (8 * k)));
            i += r;
        } else {
            /* whole groups of 8 until a long run starts at a group start */
            size_t m = 0, g, k;
            uint64_t *tmp;
            size_t start;
            for (;;) {
                size_t take = n - (i + m) < 8 ? n - (i + m) : 8;
                m += take;
                if (i + m >= n)
                    break;
                if (mode == 1)
                    continue;
                r = 1;
                while (i + m + r < n && v[i + m + r] == v[i + m])
                    r++;
                if (r >= 8)
                    break;
            }
            g = (m + 7) / 8;
            put_uleb(t, ((uint64_t)g << 1) | 1u);
            tmp = (uint64_t *)calloc(g * 8, sizeof *tmp);
            for (k = 0; k < m; k++)
                tmp[k] = v[i + k];
            start = t->len;
            put_bits_lsb(t, tmp, g * 8, bw);
            free(tmp);
            if (truncate && i + m >= n)
                t->len = start + (m * bw + 7) / 8;
            i += m;
        }
    }
}

/*
 * DELTA_BINARY_PACKED of n values given as their unsigned bits (INT32 values
 * in the low 32). garbage: unused miniblocks get random widths and padding
 * values random bits (both must be ignored by readers).
 */
EU_FN void put_delta(tbuf *t, const uint64_t *v, size_t n, int is64, uint32_t block,
                     uint32_t minis, int garbage)
{
    uint32_t per = block / minis;
    uint64_t mask = is64 ? ~0ull : 0xFFFFFFFFull;
    size_t i = 1;
    int64_t *d = (int64_t *)malloc(sizeof(int64_t) * block);
    uint64_t *rel = (uint64_t *)malloc(sizeof(uint64_t) * block);

    put_uleb(t, block);
    put_uleb(t, minis);
    put_uleb(t, n);
    if (n == 0)
        put_zigzag(t, 0);
    else
        put_zigzag(t, is64 ? (int64_t)v[0] : (int64_t)(int32_t)(uint32_t)v[0]);
    while (i < n) {
        size_t m = n - i < block ? n - i : block, j;
        uint32_t mb;
        int64_t mn = 0;
        uint8_t widths[1024];
        for (j = 0; j < m; j++) {
            uint64_t u = (v[i + j] - v[i + j - 1]) & mask;
            d[j] = is64 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
            if (j == 0 || d[j] < mn)
                mn = d[j];
        }
        for (j = 0; j < m; j++)
            rel[j] = ((uint64_t)d[j] - (uint64_t)mn) & mask;
        put_zigzag(t, mn);
        for (mb = 0; mb < minis; mb++) {
            if ((size_t)mb * per < m) {
                uint64_t mx = 0;
                unsigned bw = 0;
                for (j = (size_t)mb * per; j < m && j < (size_t)(mb + 1) * per; j++)
                    mx |= rel[j];
                while (bw < 64 && (mx >> bw))
                    bw++;
                widths[mb] = (uint8_t)bw;
            } else {
                widths[mb] = garbage ? (uint8_t)eu_rand() : 0;
            }
            put_u8(t, widths[mb]);
        }
        for (mb = 0; mb < minis && (size_t)mb * per < m; mb++) {
            uint64_t *tmp = (uint64_t *)calloc(per, sizeof *tmp);
            for (j = 0; j < per; j++) {
                size_t at = (size_t)mb * per + j;
                tmp[j] = at < m ? rel[at] : garbage ? eu_bits(widths[mb]) : 0;
            }
            put_bits_lsb(t, tmp, per, widths[mb]);
            free(tmp);
        }
        i += m;
    }
    free(d);
    free(rel);
}

/* ---- values: canonical form, decoding, the standard checks --------------- */

/* A value's canonical bytes: fixed types as stored in memory, byte arrays
 * as a 4-byte length and the bytes. Comparing canonical strings compares
 * decoded values regardless of where byte arrays point. */
EU_FN void canon(tbuf *c, int32_t type, const void *vals, size_t n)
{
    if (type == UPQ_TYPE_BYTE_ARRAY || type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        const upq_bytes *b = (const upq_bytes *)vals;
        size_t i;
        for (i = 0; i < n; i++) {
            put_le32(c, b[i].len);
            put_bytes(c, b[i].ptr, b[i].len);
        }
    } else {
        put_bytes(c, vals, n * upq_value_size(type));
    }
}

/* The canonical bytes of values [from, from+n) of a canonical string. */
EU_FN size_t canon_offset(const tbuf *c, int32_t type, size_t from)
{
    size_t off = 0, i;
    if (type != UPQ_TYPE_BYTE_ARRAY && type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return from * upq_value_size(type);
    for (i = 0; i < from; i++) {
        uint32_t l = (uint32_t)c->b[off] | (uint32_t)c->b[off + 1] << 8 |
                     (uint32_t)c->b[off + 2] << 16 | (uint32_t)c->b[off + 3] << 24;
        off += 4 + l;
    }
    return off;
}

/* Everything a values decoder needs besides the bytes. */
typedef struct vspec {
    int32_t enc, type, type_length;
    uint32_t num_values;   /* what the page promises */
    const upq_dict *dict;
} vspec;

/* Initializes d over a private copy of p[0..len) of exactly len bytes
 * (*copy, *prev to be freed by the caller). */
EU_FN upq_status vinit(upq_values_dec *d, const vspec *s, const uint8_t *p, size_t len,
                       uint8_t **copy, uint8_t **prev)
{
    *copy = (uint8_t *)malloc(len ? len : 1);
    *prev = (uint8_t *)malloc(len ? len : 1);
    if (len)
        memcpy(*copy, p, len);
    return upq_values_init(d, s->enc, s->type, s->type_length, *copy, len, s->num_values, s->dict,
                           *prev, len);
}

/* Decodes `total` values in batches of `step` (0: random sizes) through a
 * value buffer of vb_cap bytes, appending their canonical form to c. */
EU_FN upq_status decode_all(upq_values_dec *d, int32_t type, size_t total, size_t step,
                            size_t vb_cap, tbuf *c)
{
    size_t vs = upq_value_size(type), done = 0;
    size_t maxk = step ? step : total;
    uint8_t *out = (uint8_t *)malloc((maxk ? maxk : 1) * vs);
    upq_vbuf vb;
    upq_status st = UPQ_OK;
    vb.buf = vb_cap ? (uint8_t *)malloc(vb_cap) : NULL;
    vb.cap = vb_cap;
    while (done < total) {
        size_t k = step ? step : 1 + eu_below(total - done), got = 0;
        if (k > total - done)
            k = total - done;
        vb.used = 0;
        st = upq_values_get(d, out, k, &got, &vb);
        if (st != UPQ_OK)
            break;
        if (got == 0 || got > k) {
            st = UPQ_ERR_STATE; /* no progress from an empty value buffer */
            break;
        }
        canon(c, type, out, got);
        done += got;
    }
    free(out);
    free(vb.buf);
    return st;
}

/* Values in the section (what to decode in the checks). */
EU_FN size_t vcount(const upq_values_dec *d)
{
    return upq_values_left(d);
}

/*
 * The standard checks for an encoded section p[0..len) that holds the values
 * whose canonical form is `want` (n of them).
 */
EU_FN void check_vector(const vspec *s, const uint8_t *p, size_t len, const tbuf *want, size_t n)
{
    static const size_t steps[] = {1, 3, 7, 8, 31, 64, 100, 0, 0};
    upq_values_dec d;
    uint8_t *copy, *prev;
    size_t vs = upq_value_size(s->type), i, k, cut;
    size_t vb_big = len * 2 + 64; /* room for any page's worth of values */

    /* whole decode in many batch sizes; byte arrays also with small buffers */
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        tbuf got = {0};
        size_t vb_caps[3], nv, j;
        vb_caps[0] = vb_big;
        vb_caps[1] = s->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? (size_t)s->type_length * 3 : 40;
        vb_caps[2] = len; /* what a reader allocates */
        nv = (s->enc == UPQ_ENC_DELTA_BYTE_ARRAY || s->enc == UPQ_ENC_BYTE_STREAM_SPLIT) ? 3 : 1;
        for (j = 0; j < nv; j++) {
            size_t vcap = vb_caps[j];
            if (s->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && vcap < (size_t)s->type_length)
                vcap = (size_t)s->type_length;
            got.len = 0;
            if (!CHECK_ST(vinit(&d, s, p, len, &copy, &prev), UPQ_OK)) {
                free(copy);
                free(prev);
                break;
            }
            CHECK(vcount(&d) == n);
            if (vcap == 40 && s->enc == UPQ_ENC_DELTA_BYTE_ARRAY) {
                /* the longest value must fit an empty buffer */
                size_t off = 0, mx = 0, q;
                for (q = 0; q < n; q++) {
                    uint32_t l = (uint32_t)want->b[off] | (uint32_t)want->b[off + 1] << 8 |
                                 (uint32_t)want->b[off + 2] << 16 | (uint32_t)want->b[off + 3] << 24;
                    mx = l > mx ? l : mx;
                    off += 4 + l;
                }
                vcap = mx > 40 ? mx : 40;
            }
            CHECK_ST(decode_all(&d, s->type, n, steps[i], vcap, &got), UPQ_OK);
            CHECK(got.len == want->len && (got.len == 0 || memcmp(got.b, want->b, got.len) == 0));
            {
                /* nothing beyond the section's values */
                uint8_t one[16];
                size_t g = 99;
                upq_vbuf vb = {NULL, 0, 0};
                uint8_t vbm[64];
                vb.buf = vbm;
                vb.cap = sizeof vbm;
                CHECK_ST(upq_values_get(&d, one, 1, &g, &vb), UPQ_ERR_CORRUPT);
                CHECK(g == 0);
                CHECK_ST(upq_values_skip(&d, 1), UPQ_ERR_CORRUPT);
            }
            free(copy);
            free(prev);
        }
        tb_free(&got);
    }

    /* skip k, then get the rest */
    for (k = 0; k <= n; k += (n > 300 ? 1 + eu_below(n / 40 + 1) : 1)) {
        tbuf got = {0};
        size_t off = canon_offset(want, s->type, k);
        if (!CHECK_ST(vinit(&d, s, p, len, &copy, &prev), UPQ_OK)) {
            free(copy);
            free(prev);
            break;
        }
        CHECK_ST(upq_values_skip(&d, k), UPQ_OK);
        CHECK(vcount(&d) == n - k);
        CHECK_ST(decode_all(&d, s->type, n - k, k % 2 ? 0 : 13, vb_big, &got), UPQ_OK);
        CHECK(got.len == want->len - off &&
              (got.len == 0 || memcmp(got.b, want->b + off, got.len) == 0));
        free(copy);
        free(prev);
        tb_free(&got);
    }

    /* random interleaving of skips and gets */
    for (i = 0; i < 4; i++) {
        tbuf got = {0}, exp = {0};
        size_t at = 0;
        uint8_t *out = (uint8_t *)malloc((n ? n : 1) * vs);
        if (!CHECK_ST(vinit(&d, s, p, len, &copy, &prev), UPQ_OK)) {
            free(copy);
            free(prev);
            free(out);
            break;
        }
        while (at < n) {
            size_t m = 1 + eu_below(n - at < 50 ? n - at : 50);
            if (eu_rand() & 1) {
                CHECK_ST(upq_values_skip(&d, m), UPQ_OK);
            } else {
                size_t o1 = canon_offset(want, s->type, at), o2 = canon_offset(want, s->type, at + m);
                CHECK_ST(decode_all(&d, s->type, m, 0, vb_big, &got), UPQ_OK);
                put_bytes(&exp, want->b + o1, o2 - o1);
            }
            at += m;
        }
        CHECK(got.len == exp.len && (got.len == 0 || memcmp(got.b, exp.b, got.len) == 0));
        free(out);
        free(copy);
        free(prev);
        tb_free(&got);
        tb_free(&exp);
    }

    /* every truncation: an error, or (only padding was cut) the same values;
     * long vectors: the last 64 cuts and a sample of the others */
    for (cut = 0; cut < len; cut += (len > 3000 && cut + 64 < len) ? 1 + eu_below(len / 150) : 1) {
        upq_status st = vinit(&d, s, p, cut, &copy, &prev);
        if (st == UPQ_OK) {
            tbuf got = {0};
            size_t have = vcount(&d);
            if (have >= n) {
                st = decode_all(&d, s->type, n, cut % 2 ? 0 : 50, vb_big, &got);
                if (st == UPQ_OK)
                    CHECK(got.len == want->len && (got.len == 0 || memcmp(got.b, want->b, got.len) == 0));
                else
                    CHECK(st < 0);
            } else {
                /* fewer values than the untruncated section: asking for all fails */
                uint8_t *out = (uint8_t *)malloc((n ? n : 1) * vs);
                size_t g;
                upq_vbuf vb = {NULL, 0, 0};
                uint8_t *vbm = (uint8_t *)malloc(vb_big);
                vb.buf = vbm;
                vb.cap = vb_big;
                CHECK_ST(upq_values_get(&d, out, n, &g, &vb), UPQ_ERR_CORRUPT);
                free(out);
                free(vbm);
            }
            tb_free(&got);
        } else {
            CHECK(st < 0);
        }
        free(copy);
        free(prev);
    }
}

#endif
