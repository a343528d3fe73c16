/*
 * The inner-loop kernels: every scalar twin (core/common/kernels.c) against a plain
 * reference written here, and in NEON builds every NEON kernel against its
 * scalar twin on the same inputs: all bit widths and shifts, lengths around
 * the vector and group sizes (odd tails), unaligned input, and buffers that
 * end at a guard page, so a read or write past the described bytes crashes
 * instead of passing.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/check.h"
#include "upq_simd.h"
#include "common/crc32.h"
#include "common/upq_internal.h" /* upq_div64 */
#include "format/stats.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    return tu_xorshift(&rng);
}
static void fill_random(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)rnd();
}

/* ---- guard-page buffers -------------------------------------------------- */

static uint8_t *g_base[2];
static size_t g_page, g_span;

/* n bytes whose last byte is followed by an inaccessible page, in one of two
 * areas (`slot`); `align` (a power of two, or 1) makes the start aligned by
 * moving the end down. */
static uint8_t *guarded_in(int slot, size_t n, size_t align)
{
    size_t room = g_span - g_page;
    uint8_t *end = g_base[slot] + room;
    uint8_t *p;
    if (n > room) {
        fprintf(stderr, "guarded(%zu): too big\n", n);
        abort();
    }
    p = end - n;
    p = (uint8_t *)((uintptr_t)p & ~(uintptr_t)(align - 1));
    return p;
}
#define guarded(n, align) guarded_in(0, (n), (align))

static void guard_init(void)
{
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    g_span = 64 * g_page + (1u << 20);
    g_span = (g_span + g_page - 1) / g_page * g_page;
    for (int k = 0; k < 2; k++) {
        void *m = mmap(NULL, g_span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect((uint8_t *)m + g_span - g_page, g_page, PROT_NONE) != 0) {
            perror("mmap");
            exit(1);
        }
        g_base[k] = (uint8_t *)m;
    }
}

static const size_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 39, 47,
                              63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000, 1031};
#define NLENS (sizeof lens / sizeof lens[0])

/* ---- bit unpacking ----------------------------------------------------------- */

static uint64_t ref_bits(const uint8_t *p, size_t bit, unsigned bw)
{
    uint64_t v = 0;
    unsigned j;
    for (j = 0; j < bw; j++)
        v |= (uint64_t)((p[(bit + j) / 8] >> ((bit + j) % 8)) & 1u) << j;
    return v;
}

static void test_unpack(void)
{
    static uint32_t o32[1100], r32[1100], s32[1100];
    static uint64_t o64[1100], r64[1100], s64[1100];
    unsigned bw, shift;
    size_t li, i;
    int ok32 = 1, okn32 = 1, ok64 = 1, okn64 = 1, okin = 1;
    tu_case("unpack32 (widths 0..32) and unpack64 (0..64), every shift and tail");
    for (bw = 0; bw <= 64; bw++) {
        for (shift = 0; shift < 8; shift++) {
            for (li = 0; li < NLENS; li++) {
                size_t n = lens[li], bytes = (shift + n * bw + 7) / 8;
                uint8_t *in = guarded(bytes, 1);
                fill_random(in, bytes);
                for (i = 0; i < n; i++) {
                    r64[i] = ref_bits(in, shift + i * bw, bw);
                    r32[i] = (uint32_t)r64[i];
                }
                if (bw <= 32) {
                    memset(o32, 0xAB, sizeof o32);
                    upq_unpack32(in, shift, o32, bw, n);
                    if (memcmp(o32, r32, n * 4) || o32[n] != 0xABABABABu) {
                        if (ok32)
                            TU_CHECK_MSG(0, "unpack32 bw %u shift %u n %zu", bw, shift, n);
                        ok32 = 0;
                    }
                    /* the same values where more bytes may be read: 0 to 5 past them */
                    for (size_t more = 0; more <= 5; more += 1 + (more >= 1) * 3) {
                        uint8_t *in2 = guarded_in(1, bytes + more, 1);
                        memcpy(in2, in, bytes);
                        fill_random(in2 + bytes, more);
                        memset(o32, 0xAB, sizeof o32);
                        upq_unpack32_in(in2, shift, o32, bw, n, bytes + more);
                        if (memcmp(o32, r32, n * 4) || o32[n] != 0xABABABABu) {
                            if (okin)
                                TU_CHECK_MSG(0, "unpack32_in bw %u shift %u n %zu +%zu", bw, shift, n, more);
                            okin = 0;
                        }
                    }
#if UPQ_WITH_NEON
                    memset(s32, 0xAB, sizeof s32);
                    upq_neon_unpack32(in, shift, s32, bw, n);
                    if (memcmp(s32, o32, (n + 1) * 4)) {
                        if (okn32)
                            TU_CHECK_MSG(0, "neon unpack32 bw %u shift %u n %zu", bw, shift, n);
                        okn32 = 0;
                    }
#endif
                }
                memset(o64, 0xAB, sizeof o64);
                upq_unpack64(in, shift, o64, bw, n);
                if (memcmp(o64, r64, n * 8)) {
                    if (ok64)
                        TU_CHECK_MSG(0, "unpack64 bw %u shift %u n %zu", bw, shift, n);
                    ok64 = 0;
                }
#if UPQ_WITH_NEON
                memset(s64, 0xAB, sizeof s64);
                upq_neon_unpack64(in, shift, s64, bw, n);
                if (memcmp(s64, o64, (n + 1) * 8)) {
                    if (okn64)
                        TU_CHECK_MSG(0, "neon unpack64 bw %u shift %u n %zu", bw, shift, n);
                    okn64 = 0;
                }
#endif
            }
        }
    }
    (void)s32;
    (void)s64;
    (void)okn32;
    (void)okn64;
    TU_CHECK(ok32);
    TU_CHECK(okin);
    TU_CHECK(ok64);
#if UPQ_WITH_NEON
    TU_CHECK(okn32);
    TU_CHECK(okn64);
#endif
}

/* ---- run expansion ------------------------------------------------------- */

#define FILL_TEST(fn, nfn, T)                                                     \
    do {                                                                          \
        T v, *o = (T *)(void *)guarded(n * sizeof(T), sizeof(T));                 \
        size_t j;                                                                 \
        int good = 1;                                                             \
        fill_random(&v, sizeof v);                                                \
        memset(o, 0, n * sizeof(T));                                              \
        fn(o, v, n);                                                              \
        for (j = 0; j < n; j++)                                                   \
            good &= memcmp(&o[j], &v, sizeof v) == 0;                             \
        TU_CHECK_MSG(good, "%s n %zu", #fn, n);                                   \
        NEON_ONLY(memset(o, 0, n * sizeof(T)); nfn(o, v, n); good = 1;            \
                  for (j = 0; j < n; j++) good &= memcmp(&o[j], &v, sizeof v) == 0; \
                  TU_CHECK_MSG(good, "%s n %zu", #nfn, n);)                       \
    } while (0)
#if UPQ_WITH_NEON
#define NEON_ONLY(x) x
#else
#define NEON_ONLY(x)
#define upq_neon_fill_u8 upq_fill_u8
#define upq_neon_fill_u16 upq_fill_u16
#define upq_neon_fill_u32 upq_fill_u32
#define upq_neon_fill_u64 upq_fill_u64
#define upq_neon_fill_f32 upq_fill_f32
#define upq_neon_fill_f64 upq_fill_f64
#endif
#if UPQ_X86_SSE2
#define X86_ONLY(x) x
#else
#define X86_ONLY(x)
#endif

static void test_fill(void)
{
    size_t li;
    tu_case("run fills: every length, output ending at a guard page");
    for (li = 0; li < NLENS; li++) {
        size_t n = lens[li];
        FILL_TEST(upq_fill_u8, upq_neon_fill_u8, uint8_t);
        FILL_TEST(upq_fill_u16, upq_neon_fill_u16, uint16_t);
        FILL_TEST(upq_fill_u32, upq_neon_fill_u32, uint32_t);
        FILL_TEST(upq_fill_u64, upq_neon_fill_u64, uint64_t);
        FILL_TEST(upq_fill_f32, upq_neon_fill_f32, float);
        FILL_TEST(upq_fill_f64, upq_neon_fill_f64, double);
    }
}

/* ---- DELTA_BINARY_PACKED sums ------------------------------------------------ */

static void test_delta(void)
{
    static uint32_t d32[1100], o32[1100], r32[1100], t32[1100];
    static uint64_t d64[1100], o64[1100], r64[1100];
    size_t li, i;
    tu_case("delta prefix sums and sums (wrap-around), in place too");
    for (li = 0; li < NLENS; li++) {
        size_t n = lens[li];
        uint32_t md32 = (uint32_t)rnd(), last32 = (uint32_t)rnd(), l, rl;
        uint64_t md64 = rnd(), last64 = rnd(), L, RL, rs32 = 0, rs64 = 0;
        fill_random(d32, sizeof d32);
        fill_random(d64, sizeof d64);
        for (i = 0, rl = last32; i < n; i++)
            r32[i] = rl = rl + md32 + d32[i];
        l = upq_delta_sum32(o32, d32, n, md32, last32);
        TU_CHECK(l == rl && !memcmp(o32, r32, n * 4));
        memcpy(t32, d32, n * 4);
        l = UPQ_K(delta_sum32)(t32, t32, n, md32, last32);
        TU_CHECK_MSG(l == rl && !memcmp(t32, r32, n * 4), "delta_sum32 in place n %zu", n);
        NEON_ONLY(l = upq_neon_delta_sum32(o32, d32, n, md32, last32);
                  TU_CHECK_MSG(l == rl && !memcmp(o32, r32, n * 4), "neon delta_sum32 n %zu", n);)

        for (i = 0, RL = last64; i < n; i++)
            r64[i] = RL = RL + md64 + d64[i];
        L = upq_delta_sum64(o64, d64, n, md64, last64);
        TU_CHECK(L == RL && !memcmp(o64, r64, n * 8));
        NEON_ONLY(L = upq_neon_delta_sum64(o64, d64, n, md64, last64);
                  TU_CHECK_MSG(L == RL && !memcmp(o64, r64, n * 8), "neon delta_sum64 n %zu", n);)

        for (i = 0, RL = last64; i < n; i++)
            r64[i] = RL = RL + md64 + d32[i];
        L = upq_delta_sum64_32(o64, d32, n, md64, last64);
        TU_CHECK(L == RL && !memcmp(o64, r64, n * 8));
        NEON_ONLY(L = upq_neon_delta_sum64_32(o64, d32, n, md64, last64);
                  TU_CHECK_MSG(L == RL && !memcmp(o64, r64, n * 8), "neon delta_sum64_32 n %zu", n);)

#if UPQ_UNPACK_GROUP8
        /* size-optimised builds: groups of 8 packed deltas unpacked and
         * summed, with a min_delta of the kernel's range: this size's (its
         * low 32 bits as signed, clamped), or either end of the range */
        for (unsigned bw = 1; bw <= UPQ_UNPACK_GROUP8; bw++) {
            size_t groups = n / 8, bytes = groups * bw + 3, j;
            int64_t md8 = bw % 3 == 0 ? UPQ_DELTA8_MIN : bw % 3 == 1 ? UPQ_DELTA8_MAX
                                                                      : (int32_t)(uint32_t)md64;
            if (md8 > UPQ_DELTA8_MAX)
                md8 = UPQ_DELTA8_MAX;
            uint8_t *in = guarded(bytes, 1);
            memset(in, 0, bytes);
            fill_random(in + groups * bw, 3);
            for (i = 0, RL = last64; i < groups * 8; i++) {
                uint32_t v = d32[i] & (((uint32_t)1 << bw) - 1u);
                for (j = 0; j < bw; j++)
                    in[(i * bw + j) / 8] |= (uint8_t)(((v >> j) & 1u) << ((i * bw + j) % 8));
                r64[i] = RL = RL + (uint64_t)md8 + v;
            }
            memset(o64, 0xAB, sizeof o64);
            L = upq_delta8_sum64(in, bw, groups, o64, (int32_t)md8, last64);
            TU_CHECK_MSG(L == RL && !memcmp(o64, r64, groups * 64) &&
                             o64[groups * 8] == 0xABABABABABABABABu,
                         "delta8_sum64 bw %u groups %zu", bw, groups);
        }
#endif
        for (i = 0; i < n; i++) {
            rs32 += d32[i];
            rs64 += d64[i];
        }
        TU_CHECK(upq_sum32(d32, n) == rs32 && upq_sum64(d64, n) == rs64);
        NEON_ONLY(TU_CHECK_MSG(upq_neon_sum32(d32, n) == rs32 && upq_neon_sum64(d64, n) == rs64,
                               "neon sums n %zu", n);)
    }
}

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------------- */

static void test_bss(void)
{
    static uint8_t ref[1100 * 17], out[1100 * 17 + 16] __attribute__((aligned(16))), back[1100 * 18];
    size_t w, li, i, k;
    tu_case("BYTE_STREAM_SPLIT gather and scatter, widths 1..17, any stride");
    for (w = 1; w <= 17; w++) {
        for (li = 0; li < NLENS; li++) {
            size_t n = lens[li], stride = n + (rnd() % 5), total = (w - 1) * stride + n;
            uint8_t *in = guarded(total, 1);
            fill_random(in, total);
            for (i = 0; i < n; i++)
                for (k = 0; k < w; k++)
                    ref[i * w + k] = in[k * stride + i];
            memset(out, 0xCD, sizeof out);
            upq_bss_gather(in, stride, w, n, out);
            TU_CHECK_MSG(!memcmp(out, ref, n * w) && out[n * w] == 0xCD, "bss_gather w %zu n %zu", w, n);
            memset(out, 0xCD, sizeof out);
            upq_bss_gather(in, stride, w, n, out + 1); /* output at an odd address */
            TU_CHECK_MSG(!memcmp(out + 1, ref, n * w) && out[0] == 0xCD && out[n * w + 1] == 0xCD,
                         "bss_gather w %zu n %zu, odd output", w, n);
            NEON_ONLY(memset(out, 0xCD, sizeof out); upq_neon_bss_gather(in, stride, w, n, out);
                      TU_CHECK_MSG(!memcmp(out, ref, n * w) && out[n * w] == 0xCD,
                                   "neon bss_gather w %zu n %zu", w, n);)
            /* the encoder's direction: values (unaligned) to streams */
            {
                uint8_t *vals = guarded_in(1, n * w, 1);
                memcpy(vals, ref, n * w);
                memset(back, 0xEE, sizeof back);
                upq_bss_scatter(vals, w, n, back, stride);
                for (k = 0; k < w; k++)
                    if (memcmp(back + k * stride, in + k * stride, n))
                        break;
                TU_CHECK_MSG(k == w, "bss_scatter w %zu n %zu", w, n);
                NEON_ONLY(memset(back, 0xEE, sizeof back); upq_neon_bss_scatter(vals, w, n, back, stride);
                          for (k = 0; k < w; k++) if (memcmp(back + k * stride, in + k * stride, n)) break;
                          TU_CHECK_MSG(k == w && (w != 1 || n == stride || back[n] == 0xEE),
                                       "neon bss_scatter w %zu n %zu", w, n);)
            }
        }
    }
}

/* The order key of FLOAT bits, written from its definition: a value's
 * magnitude, negated (and one less, so -0 lies below +0) when the sign
 * bit is set. */
static int64_t ref_f32_key(uint32_t u)
{
    int64_t mag = (int64_t)(u & 0x7FFFFFFFu);
    return (u >> 31) ? -1 - mag : mag;
}

/* A FLOAT's bits of the kinds a page may hold: ordinary values of both
 * signs, zeros, infinities, NaNs (quiet, signalling, negative),
 * subnormals, extremes. */
static uint32_t f32_sample(unsigned mix)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                       0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFFFFFFFFu,
                                       0x00000001u, 0x80000001u, 0x7F7FFFFFu, 0xFF7FFFFFu};
    uint32_t r = (uint32_t)rnd();
    switch (mix) {
    case 0: return r;                                                   /* any bits */
    case 1: return r & 0x3FFFFFFFu;                                     /* positive, no NaN */
    case 2: return (r & 0x3FFFFFFFu) | 0x80000000u;                     /* negative, no NaN */
    case 3: return (r & 0x3FFFFFFFu) | (r << 31);                       /* both signs, no NaN */
    default: return r % 4 ? (r & 0x3FFFFFFFu) | (r << 31) : special[r % 12]; /* specials */
    }
}

static void test_bss_keys(void)
{
    static uint32_t vals[1100];
    static uint8_t ref[1100 * 4];
    size_t li, i;
    unsigned mix;
    tu_case("FLOAT pages split and bounded in one pass: the twin and the fast kernel");
    for (mix = 0; mix < 7; mix++) {
        for (li = 0; li < NLENS; li++) {
            size_t n = lens[li];
            int64_t mn = INT64_MAX, mx = INT64_MIN;
            int32_t kmn = 0, kmx = 0;
            uint8_t *in, *out;
            if (n == 0)
                continue; /* the kernels' contract: n >= 1 */
            for (i = 0; i < n; i++) {
                /* mix 5: rising (the bench's ramp); 6: falling */
                vals[i] = mix == 5 ? (uint32_t)(0x3F800000u + i * 4096u)
                        : mix == 6 ? (uint32_t)(0xC0000000u - i * 4096u)
                                   : f32_sample(mix);
                ref[i] = (uint8_t)vals[i];
                ref[n + i] = (uint8_t)(vals[i] >> 8);
                ref[2 * n + i] = (uint8_t)(vals[i] >> 16);
                ref[3 * n + i] = (uint8_t)(vals[i] >> 24);
                mn = ref_f32_key(vals[i]) < mn ? ref_f32_key(vals[i]) : mn;
                mx = ref_f32_key(vals[i]) > mx ? ref_f32_key(vals[i]) : mx;
            }
            in = guarded_in(0, 4 * n, 4);
            memcpy(in, vals, 4 * n);
            out = guarded_in(1, 4 * n, 1);
            memset(out, 0xCD, 4 * n);
            upq_bss_keys32(in, n, out, &kmn, &kmx);
            TU_CHECK_MSG(!memcmp(out, ref, 4 * n) && kmn == mn && kmx == mx,
                         "bss_keys32 mix %u n %zu", mix, n);
#if UPQ_FAST_KERNELS
            memset(out, 0xCD, 4 * n);
            kmn = kmx = 0;
            upq_bss_keys32_fast(in, n, out, &kmn, &kmx);
            TU_CHECK_MSG(!memcmp(out, ref, 4 * n) && kmn == mn && kmx == mx,
                         "bss_keys32_fast mix %u n %zu", mix, n);
            /* the bounds from the keys are the ones the statistics' walk finds */
            {
                uint8_t b1[16], b2[16];
                upq_minmax m1, m2;
                int64_t nan1 = 0, nan2 = 0;
                m1.min = b1;
                m1.max = b1 + 8;
                m2.min = b2;
                m2.max = b2 + 8;
                m1.cap = m2.cap = 4;
                upq_minmax_page(&m1, UPQ_SO_F32, UPQ_TYPE_FLOAT, 0, in, n, 4 * n, &nan1);
                upq_minmax_f32_keys(&m2, kmn, kmx, in, n, &nan2);
                TU_CHECK_MSG(nan1 == nan2 && m1.has == m2.has && m1.min_ok == m2.min_ok &&
                                 m1.max_ok == m2.max_ok && m1.min_exact == m2.min_exact &&
                                 m1.max_exact == m2.max_exact && m1.min_len == m2.min_len &&
                                 m1.max_len == m2.max_len &&
                                 !memcmp(m1.min, m2.min, m1.min_len) &&
                                 !memcmp(m1.max, m2.max, m1.max_len),
                             "minmax_f32_keys mix %u n %zu", mix, n);
            }
#endif
        }
    }
}

/* ---- dictionaries ------------------------------------------------------------ */

static void test_dict(void)
{
    static uint32_t idx[1100], d32[300], o32[1100], s32[1100];
    static uint64_t d64[300], o64[1100], s64[1100];
    static upq_bytes db[300], ob[1100];
    static upq_int96 d96[300], o96[1100];
    static uint8_t d8[300], o8[1100];
    size_t li, i;
    int good;
    tu_case("dictionary gathers and the index bound");
    for (i = 0; i < 300; i++) {
        d32[i] = (uint32_t)rnd();
        d64[i] = rnd();
        d8[i] = (uint8_t)rnd();
        db[i].ptr = d8 + i;
        db[i].len = (uint32_t)i;
        fill_random(d96[i].b, 12);
    }
    for (li = 0; li < NLENS; li++) {
        size_t n = lens[li];
        uint32_t mx = 0, dn = 1 + (uint32_t)(rnd() % 300);
        uint32_t *ix = (uint32_t *)(void *)guarded(n * 4, 4);
        for (i = 0; i < n; i++) {
            ix[i] = idx[i] = (uint32_t)(rnd() % dn);
            mx = idx[i] > mx ? idx[i] : mx;
        }
        TU_CHECK_MSG(upq_max_index(ix, n) == mx, "max_index n %zu", n);
        NEON_ONLY(TU_CHECK_MSG(upq_neon_max_index(ix, n) == mx, "neon max_index n %zu", n);)
        X86_ONLY(TU_CHECK_MSG(upq_x86_max_index(ix, n) == mx, "x86 max_index n %zu", n);)
        if (n) { /* every twin orders indices as unsigned: the largest above 2^31 */
            uint32_t big = 0x80000000u + (uint32_t)(rnd() % 0x7FFFFFFFu), keep = ix[n / 2];
            ix[n / 2] = big;
            TU_CHECK_MSG(upq_max_index(ix, n) == big, "max_index above 2^31 n %zu", n);
            NEON_ONLY(TU_CHECK_MSG(upq_neon_max_index(ix, n) == big, "neon max_index above 2^31 n %zu", n);)
            X86_ONLY(TU_CHECK_MSG(upq_x86_max_index(ix, n) == big, "x86 max_index above 2^31 n %zu", n);)
            ix[n / 2] = keep;
            /* and where the x86 twin's 16-bit compare stops: at and above 2^15 */
            big = 0x8000u + (uint32_t)(rnd() % 0x8000u);
            ix[n - 1] = big;
            X86_ONLY(TU_CHECK_MSG(upq_x86_max_index(ix, n) == big, "x86 max_index at 2^15 n %zu", n);)
            big = 0x10000u + (uint32_t)(rnd() % 0x7FFF0000u);
            ix[0] = big;
            TU_CHECK_MSG(upq_max_index(ix, n) == big, "max_index above 2^16 n %zu", n);
            NEON_ONLY(TU_CHECK_MSG(upq_neon_max_index(ix, n) == big, "neon max_index above 2^16 n %zu", n);)
            X86_ONLY(TU_CHECK_MSG(upq_x86_max_index(ix, n) == big, "x86 max_index above 2^16 n %zu", n);)
            ix[n - 1] = idx[n - 1];
            ix[0] = idx[0];
        }
        upq_gather_u32(o32, d32, ix, n);
        upq_gather_u64(o64, d64, ix, n);
        upq_gather_bytes(ob, db, ix, n);
        upq_gather_i96(o96, d96, ix, n);
        upq_gather_u8(o8, d8, ix, n);
        good = 1;
        for (i = 0; i < n; i++)
            good &= o32[i] == d32[idx[i]] && o64[i] == d64[idx[i]] && ob[i].ptr == db[idx[i]].ptr &&
                    ob[i].len == db[idx[i]].len && !memcmp(o96[i].b, d96[idx[i]].b, 12) &&
                    o8[i] == d8[idx[i]];
        TU_CHECK_MSG(good, "gathers n %zu", n);
        /* with the bound: all in range, then one index out of it at each of a
         * few places (what is before it gathered, nothing after) */
        for (int place = 0; place < 4; place++) {
            size_t at = place == 0 ? n : place == 1 ? n / 2 : place == 2 ? n - n / 4 : 0;
            size_t want = at, got8, got32, got64, gotb, got96, gotf, gotd;
            if (at > n || (place && at == n))
                continue;
            if (at < n)
                ix[at] = dn + (uint32_t)(rnd() % 1000u);
            memset(o32, 0, sizeof o32);
            got8 = upq_gather_u8_in(o8, d8, dn, ix, n);
            got32 = upq_gather_u32_in(o32, d32, dn, ix, n);
            got64 = upq_gather_u64_in(o64, d64, dn, ix, n);
            gotb = upq_gather_bytes_in(ob, db, dn, ix, n);
            got96 = upq_gather_i96_in(o96, d96, dn, ix, n);
            gotf = upq_gather_f32_in((float *)(void *)s32, (const float *)(const void *)d32, dn, ix, n);
            gotd = upq_gather_f64_in((double *)(void *)s64, (const double *)(const void *)d64, dn, ix, n);
            good = got8 == want && got32 == want && got64 == want && gotb == want && got96 == want &&
                   gotf == want && gotd == want && (at == n || o32[at] == 0);
            for (i = 0; i < want; i++)
                good &= o32[i] == d32[idx[i]] && o64[i] == d64[idx[i]] && ob[i].ptr == db[idx[i]].ptr &&
                        !memcmp(o96[i].b, d96[idx[i]].b, 12) && o8[i] == d8[idx[i]] &&
                        s32[i] == d32[idx[i]] && s64[i] == d64[idx[i]];
            TU_CHECK_MSG(good, "bounded gathers n %zu, out of range at %zu", n, at);
            if (at < n)
                ix[at] = idx[at];
        }
#if UPQ_WITH_NEON
        /* against the dictionary itself: o32 and o64 hold the last bounded
         * gather's output by now, not the whole gather */
        upq_neon_gather_u32(s32, d32, ix, n);
        upq_neon_gather_u64(s64, d64, ix, n);
        good = 1;
        for (i = 0; i < n; i++)
            good &= s32[i] == d32[idx[i]] && s64[i] == d64[idx[i]];
        TU_CHECK_MSG(good, "neon gathers n %zu", n);
        /* floats by their bits: lane moves must not touch a NaN's payload */
        upq_neon_gather_f32((float *)(void *)s32, (const float *)(const void *)d32, ix, n);
        upq_neon_gather_f64((double *)(void *)s64, (const double *)(const void *)d64, ix, n);
        good = 1;
        for (i = 0; i < n; i++)
            good &= s32[i] == d32[idx[i]] && s64[i] == d64[idx[i]];
        TU_CHECK_MSG(good, "neon float gathers n %zu", n);
#else
        (void)s32;
        (void)s64;
#endif
    }
}

/* ---- statistics -------------------------------------------------------------- */

static void test_minmax(void)
{
    static int32_t v32[1100];
    static int64_t v64[1100];
    static float f32[1100];
    static double f64[1100];
    size_t li, i, rep;
    tu_case("min/max statistics: signed and unsigned, floats with NaN, zeros, infinities, subnormals");
    for (rep = 0; rep < 4; rep++) {
        for (li = 1; li < NLENS; li++) {
            size_t n = lens[li], nans = 0, sn;
            upq_minmax32 a, b;
            upq_minmax64 c, d;
            int32_t smin = INT32_MAX, smax = INT32_MIN;
            uint32_t umin = UINT32_MAX, umax = 0;
            int64_t lmin = INT64_MAX, lmax = INT64_MIN;
            uint64_t ulmin = UINT64_MAX, ulmax = 0;
            float fmn = 0, fmx = 0, gmn = 0, gmx = 0, rfmn = __builtin_inff(), rfmx = -__builtin_inff();
            double dmn = 0, dmx = 0, emn = 0, emx = 0, rdmn = __builtin_inf(), rdmx = -__builtin_inf();
            for (i = 0; i < n; i++) {
                uint64_t r = rnd();
                v32[i] = (int32_t)(uint32_t)(rep == 1 ? r % 7 : r);
                v64[i] = (int64_t)(rep == 1 ? r % 7 - 3 : r);
                switch (rep == 3 ? 0 : r % 9) {
                case 0: f32[i] = __builtin_nanf(""); f64[i] = __builtin_nan(""); break;
                case 1: f32[i] = -0.0f; f64[i] = -0.0; break;
                case 2: f32[i] = 0.0f; f64[i] = 0.0; break;
                case 3: f32[i] = rep ? __builtin_inff() : 1.5f; f64[i] = rep ? -__builtin_inf() : 2.5; break;
                default:
                    if (rep == 2) {
                        /* subnormals: -8..7 times the smallest; vector units
                         * that flush them to zero get these bounds wrong */
                        f32[i] = (float)((int)(r >> 60) - 8) * 0x1p-149f;
                        f64[i] = (double)((int)(r >> 60) - 8) * 0x1p-1074;
                        break;
                    }
                    f32[i] = (float)((int64_t)(r >> 11) - (1LL << 52)) / 1e9f;
                    f64[i] = (double)((int64_t)(r >> 11) - (1LL << 52)) / 1e7;
                }
                if (v32[i] < smin) smin = v32[i];
                if (v32[i] > smax) smax = v32[i];
                if ((uint32_t)v32[i] < umin) umin = (uint32_t)v32[i];
                if ((uint32_t)v32[i] > umax) umax = (uint32_t)v32[i];
                if (v64[i] < lmin) lmin = v64[i];
                if (v64[i] > lmax) lmax = v64[i];
                if ((uint64_t)v64[i] < ulmin) ulmin = (uint64_t)v64[i];
                if ((uint64_t)v64[i] > ulmax) ulmax = (uint64_t)v64[i];
                if (f32[i] != f32[i]) {
                    nans++;
                } else {
                    rfmn = f32[i] < rfmn ? f32[i] : rfmn;
                    rfmx = f32[i] > rfmx ? f32[i] : rfmx;
                    rdmn = f64[i] < rdmn ? f64[i] : rdmn;
                    rdmx = f64[i] > rdmx ? f64[i] : rdmx;
                }
            }
            upq_minmax_i32(v32, n, &a);
            TU_CHECK_MSG(a.smin == smin && a.smax == smax && a.umin == umin && a.umax == umax,
                         "minmax_i32 n %zu", n);
            upq_minmax_i64(v64, n, &c);
            TU_CHECK_MSG(c.smin == lmin && c.smax == lmax && c.umin == ulmin && c.umax == ulmax,
                         "minmax_i64 n %zu", n);
            sn = upq_minmax_f32(f32, n, &fmn, &fmx);
            TU_CHECK_MSG(sn == nans && (nans == n || (fmn == rfmn && fmx == rfmx)), "minmax_f32 n %zu", n);
            sn = upq_minmax_f64(f64, n, &dmn, &dmx);
            TU_CHECK_MSG(sn == nans && (nans == n || (dmn == rdmn && dmx == rdmx)), "minmax_f64 n %zu", n);
#if UPQ_WITH_NEON
            upq_neon_minmax_i32(v32, n, &b);
            TU_CHECK_MSG(!memcmp(&a, &b, sizeof a), "neon minmax_i32 n %zu", n);
            upq_neon_minmax_i64(v64, n, &d);
            TU_CHECK_MSG(!memcmp(&c, &d, sizeof c), "neon minmax_i64 n %zu", n);
            sn = upq_neon_minmax_f32(f32, n, &gmn, &gmx);
            TU_CHECK_MSG(sn == nans && (nans == n || (gmn == fmn && gmx == fmx)), "neon minmax_f32 n %zu", n);
            sn = upq_neon_minmax_f64(f64, n, &emn, &emx);
            TU_CHECK_MSG(sn == nans && (nans == n || (emn == dmn && emx == dmx)), "neon minmax_f64 n %zu", n);
#else
            (void)b, (void)d, (void)gmn, (void)gmx, (void)emn, (void)emx;
#endif
        }
    }
}

/* ---- CRC-32 ------------------------------------------------------------------- */

static void test_crc(void)
{
    static uint8_t buf[4200];
    size_t len, off;
    int good = 1;
    tu_case("CRC-32: the check value, then every kernel on random data");
    /* the CRC-32/ISO-HDLC check value of "123456789" */
    TU_CHECK_UINT(upq_crc32_update_scalar(0, "123456789", 9), 0xCBF43926u);
    TU_CHECK_UINT(upq_crc32("123456789", 9), 0xCBF43926u);
#if UPQ_CRC32_HW
    TU_CHECK_UINT(upq_neon_crc32_update(0, "123456789", 9), 0xCBF43926u);
    tu_note("CRC32 instructions in use");
#else
    tu_note("no CRC32 instructions in this build: the table/bitwise CRC only");
#endif
    fill_random(buf, sizeof buf);
    for (len = 0; len < 300; len++) {
        for (off = 0; off < 8; off++) {
            uint8_t *p = guarded(len, 1);
            uint32_t s, h;
            memcpy(p, buf + off, len);
            s = upq_crc32_update_scalar(0, p, len);
            /* chained in two parts: the same as one call */
            h = upq_crc32_update(upq_crc32_update(0, p, len / 3), p + len / 3, len - len / 3);
            good &= s == h;
#if UPQ_CRC32_HW
            good &= upq_neon_crc32_update(0, p, len) == s;
            good &= upq_neon_crc32_update(0x12345678u, p, len) ==
                    upq_crc32_update_scalar(0x12345678u, p, len);
#endif
        }
    }
    TU_CHECK(good);
    TU_CHECK(upq_crc32(buf, sizeof buf) == upq_crc32_update_scalar(0, buf, sizeof buf));
}

/* ---- 64-bit division ---------------------------------------------------------- */

/* upq_div64 against the compiler's division: on 32-bit targets (the armv7
 * and PowerPC runs) the helper's own loop against libgcc's routine; edge
 * operands (either word zero, powers of two, the top bit, all ones) and
 * random ones of every bit length. */
static void test_div64(void)
{
    static const uint64_t edge[] = {1u, 2u, 3u, 7u, 10u, 0xFFFFFFFFu, 0x100000000u, 0x100000001u,
                                    0x7FFFFFFFFFFFFFFFu, 0x8000000000000000u, 0x8000000000000001u,
                                    0xFFFFFFFFFFFFFFFEu, 0xFFFFFFFFFFFFFFFFu, 600u, 65536u};
    size_t i, j;
    int good = 1;
    tu_case("upq_div64 equals the compiler's 64-bit division");
    for (i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (j = 0; j < sizeof edge / sizeof edge[0]; j++)
            good &= upq_div64(edge[i], edge[j]) == edge[i] / edge[j];
    for (i = 0; i < 200000; i++) {
        uint64_t n = rnd() >> (rnd() & 63), d = rnd() >> (rnd() & 63);
        if (d == 0)
            d = 1;
        good &= upq_div64(n, d) == n / d;
    }
    TU_CHECK(good);
    TU_CHECK(upq_div64(1234567890123ull, 1000u) == 1234567890u);
}

int main(void)
{
    guard_init();
#if UPQ_WITH_NEON
    tu_note("NEON kernels: each against its scalar twin, the twins against references");
#else
    tu_note("UPQ_WITH_NEON is 0 in this build: the scalar twins against references only");
#endif
    test_unpack();
    test_fill();
    test_delta();
    test_bss();
    test_bss_keys();
    test_dict();
    test_minmax();
    test_crc();
    test_div64();
    return tu_summary();
}
