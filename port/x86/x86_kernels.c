/*
 * SSE2 forms of scalar kernels (core/kernels.c) that x86-64's baseline ISA
 * gives the compiler no instruction to vectorise. Each is a twin of its
 * scalar kernel, tested against it (test_kernels).
 *
 * upq_x86_max_index: the largest dictionary index, the bound checked before
 * a dictionary gather (18% of reading a 50-string dictionary column in
 * scalar code). SSE2 has no unsigned 32-bit max (pmaxud is SSE4.1), so
 * each lane is biased by 2^31, which makes the signed compare order them as
 * unsigned, and the greater lane is kept through the compare's mask.
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

uint32_t upq_x86_max_index(const uint32_t *idx, size_t n)
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
#endif
