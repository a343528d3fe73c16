/*
 * BYTE_STREAM_SPLIT: byte k of value i goes to stream k, position i; the
 * streams follow each other, each n bytes long. Numbers are split from their
 * little-endian bytes, so the output does not depend on the host's byte
 * order.
 */
#include "encode.h"
#include "common/upq_internal.h"
#include "upq_simd.h"
#include "upq_kernels.h"

#if UPQ_WITH_BSS

/* Values whose bits are copied per call: the copy keeps floats out of float
 * registers (which may quiet a signalling NaN) without aliasing them. */
#define CHUNK 16u

UPQ_STATIC_ASSERT(sizeof(float) == 4 && sizeof(int32_t) == 4, four_byte_values);
UPQ_STATIC_ASSERT(sizeof(double) == 8 && sizeof(int64_t) == 8, eight_byte_values);

/* Four values a step, unless the build is for size without the
 * flash-for-speed kernels (the -min and logger sets). */
#if UPQ_FAST_KERNELS || !defined(__OPTIMIZE_SIZE__)
#define SPLIT_WORDS 1
#else
#define SPLIT_WORDS 0
#endif

#if SPLIT_WORDS
/* A stream word stored whole where the core takes unaligned words (the
 * byte stores of upq_store_le32 are not merged at -Os). */
#if (defined(__GNUC__) || defined(__clang__)) && UPQ_UNALIGNED_LOAD32 && UPQ_NATIVE_LE
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) bss_u32_una;
#define STORE32(p, v) (*(bss_u32_una *)(void *)(p) = (v))
#else
#define STORE32(p, v) upq_store_le32((p), (v))
#endif

#if defined(__GNUC__) && defined(__ARM_FEATURE_SIMD32) && !defined(__ARM_BIG_ENDIAN)
/* Cortex-M4/M7 and ARMv6+ A-profile: the transpose's halves through the
 * SIMD32 byte extracts (UXTB16, UXTAB16) and halfword packs (PKHBT, PKHTB),
 * 14 instructions where the masks and shifts below take 24 (the split was
 * about 10 instructions a FLOAT value of a logged run). */
#define BSS_ASM1(insn, x)                                                                          \
    __extension__({                                                                                \
        uint32_t r_;                                                                               \
        __asm__(insn : "=r"(r_) : "r"(x));                                                         \
        r_;                                                                                        \
    })
#define BSS_ASM2(insn, x, y)                                                                       \
    __extension__({                                                                                \
        uint32_t r_;                                                                               \
        __asm__(insn : "=r"(r_) : "r"(x), "r"(y));                                                 \
        r_;                                                                                        \
    })
UPQ_INLINE void split4w(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint8_t *o, size_t n)
{
    uint32_t t0 = BSS_ASM1("uxtb16 %0, %1", a) | (BSS_ASM1("uxtb16 %0, %1", b) << 8);
    /* (UXTAB16 adds the bytes extracted to the halfwords of b's odd
     * bytes, bits the extract leaves clear: the OR in one instruction) */
    uint32_t t1 = BSS_ASM2("uxtab16 %0, %1, %2, ror #8", b & 0xFF00FF00u, a);
    uint32_t v0 = BSS_ASM1("uxtb16 %0, %1", c) | (BSS_ASM1("uxtb16 %0, %1", d) << 8);
    uint32_t v1 = BSS_ASM2("uxtab16 %0, %1, %2, ror #8", d & 0xFF00FF00u, c);
    STORE32(o, BSS_ASM2("pkhbt %0, %1, %2, lsl #16", t0, v0));
    STORE32(o + n, BSS_ASM2("pkhbt %0, %1, %2, lsl #16", t1, v1));
    STORE32(o + 2 * n, BSS_ASM2("pkhtb %0, %1, %2, asr #16", v0, t0));
    STORE32(o + 3 * n, BSS_ASM2("pkhtb %0, %1, %2, asr #16", v1, t1));
}
#else
/* Four values' bytes as four stream words: a 4 x 4 byte transpose in
 * masks and shifts (on 32-bit cores about 16 instructions, where byte
 * stores take 4 a value and their addressing more). */
UPQ_INLINE void split4w(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint8_t *o, size_t n)
{
    const uint32_t m = 0x00FF00FFu;
    uint32_t t0 = (a & m) | ((b & m) << 8);        /* a0 b0 a2 b2 */
    uint32_t t1 = ((a >> 8) & m) | (b & ~m);       /* a1 b1 a3 b3 */
    uint32_t v0 = (c & m) | ((d & m) << 8);        /* c0 d0 c2 d2 */
    uint32_t v1 = ((c >> 8) & m) | (d & ~m);       /* c1 d1 c3 d3 */
    STORE32(o, (t0 & 0xFFFFu) | (v0 << 16));
    STORE32(o + n, (t1 & 0xFFFFu) | (v1 << 16));
    STORE32(o + 2 * n, (t0 >> 16) | (v0 & 0xFFFF0000u));
    STORE32(o + 3 * n, (t1 >> 16) | (v1 & 0xFFFF0000u));
}
#endif

static void split4x4(const uint32_t *u, uint8_t *o, size_t n)
{
    split4w(u[0], u[1], u[2], u[3], o, n);
}
#endif

#if SPLIT_WORDS && (defined(__GNUC__) || defined(__clang__)) && UPQ_UNALIGNED_LOAD32 && UPQ_NATIVE_LE
/* Where words load from any address and in the format's byte order, the
 * values' words are read where they lie (as integers, through a type that
 * may alias them), not copied out first a chunk at a time: on Cortex-M4
 * that copy was about a fifth of the split. */
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) bss_u32_in;
static void split4(const void *values, size_t n, uint8_t *o)
{
    const bss_u32_in *u = (const bss_u32_in *)values;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        uint32_t w4[4];
        w4[0] = u[j];
        w4[1] = u[j + 1];
        w4[2] = u[j + 2];
        w4[3] = u[j + 3];
        split4x4(w4, o + j, n);
    }
    for (; j < n; j++) {
        uint32_t x = u[j];
        o[j] = (uint8_t)x;
        o[n + j] = (uint8_t)(x >> 8);
        o[2 * n + j] = (uint8_t)(x >> 16);
        o[3 * n + j] = (uint8_t)(x >> 24);
    }
}
#else
static void split4(const void *values, size_t n, uint8_t *o)
{
    uint32_t u[CHUNK];
    size_t i, j, k;
    for (i = 0; i < n; i += k) {
        k = n - i < CHUNK ? n - i : CHUNK;
        upq_memcpy(u, (const uint8_t *)values + 4 * i, 4 * k);
        j = 0;
#if SPLIT_WORDS
        for (; j + 4 <= k; j += 4)
            split4x4(u + j, o + i + j, n);
#endif
        for (; j < k; j++) {
            o[i + j] = (uint8_t)u[j];
            o[n + i + j] = (uint8_t)(u[j] >> 8);
            o[2 * n + i + j] = (uint8_t)(u[j] >> 16);
            o[3 * n + i + j] = (uint8_t)(u[j] >> 24);
        }
    }
}
#endif

#if UPQ_FAST_KERNELS
#if defined(__GNUC__) || defined(__clang__)
/* the staged floats' words read in place (they are 4-aligned) */
typedef uint32_t __attribute__((__may_alias__)) bss_u32_al;
#define LOAD_WORD(in, i) (((const bss_u32_al *)(in))[i])
#else
static uint32_t load_word(const void *in, size_t i)
{
    uint32_t u;
    upq_memcpy(&u, (const uint8_t *)in + 4 * i, 4);
    return u;
}
#define LOAD_WORD(in, i) load_word((in), (i))
#endif

/* The bounds as the least key and the range above it: a key outside them
 * wraps past the range in one unsigned compare, so the common case is a
 * subtraction, a compare and a branch not taken (and one register less in
 * a loop that needs them all). */
#define KEY_TAKE(u)                                                                                \
    do {                                                                                           \
        int32_t k_ = UPQ_F32_KEY(u);                                                               \
        uint32_t d_ = (uint32_t)k_ - (uint32_t)mn;                                                 \
        if (UPQ_UNLIKELY(d_ > range)) {                                                            \
            if (k_ < mn) {                                                                         \
                range -= d_; /* (the range grows by mn - k_) */                                    \
                mn = k_;                                                                           \
            } else {                                                                               \
                range = d_;                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void upq_bss_keys32_fast(const void *in, size_t n, uint8_t *out, int32_t *kmn, int32_t *kmx)
{
    int32_t mn = UPQ_F32_KEY(LOAD_WORD(in, 0));
    uint32_t range = 0;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        uint32_t a = LOAD_WORD(in, j), b = LOAD_WORD(in, j + 1), c = LOAD_WORD(in, j + 2),
                 d = LOAD_WORD(in, j + 3);
        KEY_TAKE(a);
        KEY_TAKE(b);
        KEY_TAKE(c);
        KEY_TAKE(d);
        split4w(a, b, c, d, out + j, n);
    }
    for (; j < n; j++) {
        uint32_t u = LOAD_WORD(in, j);
        out[j] = (uint8_t)u;
        out[n + j] = (uint8_t)(u >> 8);
        out[2 * n + j] = (uint8_t)(u >> 16);
        out[3 * n + j] = (uint8_t)(u >> 24);
        KEY_TAKE(u);
    }
    *kmn = mn;
    *kmx = (int32_t)((uint32_t)mn + range);
}
#endif

static void split8(const void *values, size_t n, uint8_t *o)
{
    uint64_t u[CHUNK];
    uint8_t *s[8];
    size_t i, j, k;
    unsigned b;
    for (b = 0; b < 8; b++)
        s[b] = o + b * n;
    for (i = 0; i < n; i += k) {
        k = n - i < CHUNK ? n - i : CHUNK;
        upq_memcpy(u, (const uint8_t *)values + 8 * i, 8 * k);
        for (j = 0; j < k; j++) {
            uint64_t x = u[j];
            s[0][i + j] = (uint8_t)x;
            s[1][i + j] = (uint8_t)(x >> 8);
            s[2][i + j] = (uint8_t)(x >> 16);
            s[3][i + j] = (uint8_t)(x >> 24);
            s[4][i + j] = (uint8_t)(x >> 32);
            s[5][i + j] = (uint8_t)(x >> 40);
            s[6][i + j] = (uint8_t)(x >> 48);
            s[7][i + j] = (uint8_t)(x >> 56);
        }
    }
}

void upq_enc_bss(upq_wbuf *w, int32_t physical_type, size_t width, const void *values, size_t n)
{
    uint8_t *o = upq_wb_take(w, upq_size_mul(n, width));
    size_t i, k;
    if (!o || n == 0)
        return;
    if (physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        const upq_bytes *v = (const upq_bytes *)values;
        /* lengths were checked by the caller */
        for (i = 0; i < n; i++) {
            const uint8_t *p = v[i].ptr;
            for (k = 0; k < width; k++)
                o[k * n + i] = p[k];
        }
    } else if (UPQ_BSS_NATIVE_LE) {
        /* the values' own bytes are their PLAIN bytes */
        UPQ_K(bss_scatter)((const uint8_t *)values, width, n, o, n);
    } else if (width == 4) {
        split4(values, n, o);
    } else {
        split8(values, n, o);
    }
}

#endif /* UPQ_WITH_BSS */
