/*
 * CRC-32 (IEEE, reflected 0xEDB88320: Parquet's page CRC) with the x86
 * carry-less multiply, PCLMULQDQ. Twin of upq_crc32_update_scalar.
 *
 * Four 128-bit lanes take 64 bytes a step: each lane is multiplied by
 * x^(512+64) and x^512 mod P (one constant for its high and low halves) and
 * the next 64 bytes added, so the dependency chain is one multiply per 64
 * bytes. Then the lanes fold into one (x^(128+64), x^128), 16 bytes a step
 * for the rest, 128 bits fold to 64 (x^64, x^96) and a Barrett reduction
 * (mu = x^64 / P, and P) gives the 32-bit remainder. All constants are
 * bit-reflected, with the extra shift reflected arithmetic needs, as in
 * Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ".
 *
 * With VPCLMULQDQ and AVX2 the first stage runs on four 256-bit lanes, 128
 * bytes a step, each 128-bit half multiplied by x^(1024+32) and
 * x^(1024-32); the lanes fold into one (x^(256+-32)), its halves into one
 * 128-bit lane (K3, K4), and the 128-bit code finishes. It doubles the
 * bytes per multiply on CPUs that issue a 256-bit carry-less multiply as
 * fast as a 128-bit one.
 *
 * Every x86-64 build has both: the functions carry their instruction sets
 * as target attributes, the rest of the library stays at the baseline ISA,
 * and upq_x86_crc32_choose asks the CPU (CPUID, and XGETBV for the 256-bit
 * registers) which one it runs. The caller keeps the answer in its context
 * (the reader and the writer, when they first checksum a page or, the
 * reader, a GZIP member's bytes), as zstd
 * keeps its BMI2 flag in each decompression context: asking per call would
 * cost a CPUID each time, a trap to the hypervisor in a virtual machine,
 * and keeping it here would be state. These kernels fold whole 16-byte
 * blocks; the dispatcher (core/common/crc32.c) checksums the bytes after
 * them with the table.
 */
#include "upq_simd.h"

#if UPQ_CRC32_X86
#include <cpuid.h>
#include <immintrin.h>

#define TARGET_CLMUL __attribute__((target("pclmul,sse2")))
#define TARGET_VCLMUL __attribute__((target("vpclmulqdq,avx2,pclmul,sse2")))

/* Folding constants (x^k mod P for the distances in the header comment,
 * reflected and shifted left by one): K1, K2 for 64-byte steps, K3, K4 for
 * 16-byte steps and the 128-to-64 fold, K5 to 32 bits; POLY is P (33 bits,
 * reflected) and MU floor(x^64 / P), reflected, for the Barrett step. */
#define K1 0x154442bd4ull
#define K2 0x1c6e41596ull
#define K3 0x1751997d0ull
#define K4 0x0ccaa009eull
#define K5 0x163cd6124ull
#define POLY 0x1db710641ull
#define MU 0x1f7011641ull
/* 128-byte steps of the 256-bit lanes, and their fold into one */
#define K1_256 0x1e88ef372ull
#define K2_256 0x14a7fe880ull
#define K3_256 0x0f1da05aaull
#define K4_256 0x15a546366ull

TARGET_CLMUL static inline __m128i fold(__m128i acc, __m128i k, __m128i next)
{
    __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(acc, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

TARGET_CLMUL static inline __m128i load(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

TARGET_VCLMUL static inline __m256i fold256(__m256i acc, __m256i k, __m256i next)
{
    __m256i lo = _mm256_clmulepi64_epi128(acc, k, 0x00);
    __m256i hi = _mm256_clmulepi64_epi128(acc, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
}

TARGET_VCLMUL static inline __m256i load256(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* The 256-bit stage over p[0..len), len >= 128 and a multiple of 128: the
 * 128-bit lane left, which the rest of the message folds onto. */
TARGET_VCLMUL static __m128i clmul_run256(uint32_t state, const uint8_t *p, size_t len)
{
    const __m256i k12 = _mm256_set_epi64x((long long)K2_256, (long long)K1_256,
                                          (long long)K2_256, (long long)K1_256);
    const __m256i k34 = _mm256_set_epi64x((long long)K4_256, (long long)K3_256,
                                          (long long)K4_256, (long long)K3_256);
    const __m128i k34_128 = _mm_set_epi64x((long long)K4, (long long)K3);
    __m256i y1 = _mm256_xor_si256(load256(p), _mm256_zextsi128_si256(
                                                  _mm_cvtsi32_si128((int)state)));
    __m256i y2 = load256(p + 32), y3 = load256(p + 64), y4 = load256(p + 96);
    for (p += 128, len -= 128; len; p += 128, len -= 128) {
        y1 = fold256(y1, k12, load256(p));
        y2 = fold256(y2, k12, load256(p + 32));
        y3 = fold256(y3, k12, load256(p + 64));
        y4 = fold256(y4, k12, load256(p + 96));
    }
    y1 = fold256(y1, k34, y2);
    y1 = fold256(y1, k34, y3);
    y1 = fold256(y1, k34, y4);
    return fold(_mm256_castsi256_si128(y1), k34_128, _mm256_extracti128_si256(y1, 1));
}

/* The CRC state (not inverted) over p[0..len), len >= 64 and a multiple of
 * 16; `wide`: the 256-bit stage first where the message is long enough. */
TARGET_CLMUL static uint32_t clmul_run(uint32_t state, const uint8_t *p, size_t len, int wide)
{
    const __m128i k12 = _mm_set_epi64x((long long)K2, (long long)K1);
    const __m128i k34 = _mm_set_epi64x((long long)K4, (long long)K3);
    const __m128i mask32 = _mm_setr_epi32(-1, 0, -1, 0);
    __m128i x1, x2, x3, x4, t;
    if (wide && len >= 256) {
        size_t n = len & ~(size_t)127;
        x1 = clmul_run256(state, p, n);
        p += n;
        len -= n;
    } else {
        x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)state));
        x2 = load(p + 16);
        x3 = load(p + 32);
        x4 = load(p + 48);
        p += 64;
        len -= 64;
        while (len >= 64) {
            x1 = fold(x1, k12, load(p));
            x2 = fold(x2, k12, load(p + 16));
            x3 = fold(x3, k12, load(p + 32));
            x4 = fold(x4, k12, load(p + 48));
            p += 64;
            len -= 64;
        }
        x1 = fold(x1, k34, x2);
        x1 = fold(x1, k34, x3);
        x1 = fold(x1, k34, x4);
    }
    for (; len >= 16; len -= 16, p += 16)
        x1 = fold(x1, k34, load(p));
    /* 128 bits to 64: the low half times x^96 (K4) onto the high half, then
     * the low 32 bits of that times x^64 onto the rest */
    t = _mm_clmulepi64_si128(x1, k34, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
    t = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, mask32);
    x1 = _mm_clmulepi64_si128(x1, _mm_set_epi64x(0, (long long)K5), 0x00);
    x1 = _mm_xor_si128(x1, t);
    /* Barrett: q = (low 32 bits * mu) low 32 bits, remainder = x ^ q * P */
    {
        const __m128i pm = _mm_set_epi64x((long long)MU, (long long)POLY);
        t = _mm_and_si128(x1, mask32);
        t = _mm_clmulepi64_si128(t, pm, 0x10);
        t = _mm_and_si128(t, mask32);
        t = _mm_clmulepi64_si128(t, pm, 0x00);
        x1 = _mm_xor_si128(x1, t);
    }
    return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x1, 4));
}

unsigned upq_x86_crc32_choose(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_PCLMUL))
        return UPQ_CRC32_K_TABLE;
    /* the 256-bit registers: the CPU has them (AVX, AVX2, VPCLMULQDQ) and
     * the system saves them (OSXSAVE, then XCR0's SSE and AVX state bits) */
    if ((c & bit_OSXSAVE) && (c & bit_AVX) && __get_cpuid_max(0, (unsigned *)0) >= 7) {
        unsigned lo, hi;
        __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        (void)hi;
        __cpuid_count(7, 0, a, b, c, d);
        if ((lo & 6u) == 6u && (b & bit_AVX2) && (c & (1u << 10))) /* VPCLMULQDQ */
            return UPQ_CRC32_K_VCLMUL;
    }
    return UPQ_CRC32_K_CLMUL;
}

uint32_t upq_x86_crc32_blocks(unsigned kernel, uint32_t crc, const void *data, size_t len)
{
    return ~clmul_run(~crc, (const uint8_t *)data, len, kernel == UPQ_CRC32_K_VCLMUL);
}

#else
typedef int upq_x86_crc32_unused; /* an empty file is not C */
#endif
