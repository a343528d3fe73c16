/*
 * SSE2 forms of scalar kernels (core/common/kernels.c) that x86-64's baseline ISA
 * gives the compiler no instruction to vectorise. Each is a twin of its
 * scalar kernel, tested against it (test_kernels).
 *
 * upq_x86_max_index: the largest dictionary index, the bound checked before
 * a dictionary gather (18% of reading a 50-string dictionary column in
 * scalar code). Indices below 2^15 take SSE2's signed 16-bit max. Others:
 * SSE2 has no unsigned 32-bit max (pmaxud is SSE4.1), so each lane is
 * biased by 2^31, which makes the signed compare order them as unsigned,
 * and the greater lane is kept through the compare's mask.
 */
#include "upq_simd.h"

#if UPQ_X86_SSE2
#include <emmintrin.h>

/* the greater of a and b per lane, both biased */
static inline __m128i max_biased(__m128i a, __m128i b)
{
    __m128i gt = _mm_cmpgt_epi32(a, b);
    return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
}

/* Any n, indices of any size: lanes biased, compared as signed 32-bit. */
static uint32_t max_index32(const uint32_t *idx, size_t n)
{
    const __m128i bias = _mm_set1_epi32((int)0x80000000u);
    /* two accumulators: the compare-and-select chain of one would bound the loop */
    __m128i m0 = bias, m1 = bias; /* 0, biased */
    uint32_t lane[4], m, t;
    size_t i = 0, k;
    for (; i + 8 <= n; i += 8) {
        m0 = max_biased(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(idx + i)), bias), m0);
        m1 = max_biased(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(idx + i + 4)), bias),
                        m1);
    }
    _mm_storeu_si128((__m128i *)(void *)lane, _mm_xor_si128(max_biased(m0, m1), bias));
    m = lane[0];
    for (k = 1; k < 4; k++)
        m = lane[k] > m ? lane[k] : m;
    t = upq_max_index(idx + i, n - i);
    return t > m ? t : m;
}
/*
 * Indices below 2^15, those of every dictionary of fewer than 32,768
 * entries: a 32-bit lane is then two 16-bit lanes, the upper one 0, which
 * SSE2's signed 16-bit max (one instruction) orders exactly. An OR of every
 * index tells whether one reached 2^15; only then is the 32-bit compare
 * above (four instructions a lane group) run over them again.
 */
uint32_t upq_x86_max_index(const uint32_t *idx, size_t n)
{
    __m128i m0 = _mm_setzero_si128(), m1 = m0, any = m0;
    uint16_t lane[8];
    uint32_t m = 0, t;
    size_t i = 0, k;
    for (; i + 8 <= n; i += 8) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(idx + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(idx + i + 4));
        m0 = _mm_max_epi16(m0, a);
        m1 = _mm_max_epi16(m1, b);
        any = _mm_or_si128(any, _mm_or_si128(a, b));
    }
    /* a bit at 2^15 or above in any lane */
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_srli_epi32(any, 15), _mm_setzero_si128())) != 0xFFFF)
        return max_index32(idx, n);
    _mm_storeu_si128((__m128i *)(void *)lane, _mm_max_epi16(m0, m1));
    for (k = 0; k < 8; k++)
        m = lane[k] > m ? lane[k] : m;
    t = upq_max_index(idx + i, n - i);
    return t > m ? t : m;
}
#endif
