/*
 * Freestanding memory primitives.
 *
 * Page bodies, dictionary values and arena clears go through these, so
 * blocks that share their alignment are moved a machine word at a time
 * (about 4-8x fewer iterations than a byte loop; it is what made
 * DELTA_BYTE_ARRAY decoding and per-page state resets slow). The word
 * accesses use a may_alias type so they are valid on any object; compilers
 * without the attribute, and builds with UPQ_MEM_WORDS 0 (the smallest
 * configurations, where the word paths are a measurable part of the code),
 * get the byte loops.
 *
 * GCC may recognise these loops and emit calls to memcpy/memset; the build
 * compiles this file with -fno-builtin / -fno-tree-loop-distribute-patterns so
 * the library never depends on libc.
 *
 * Thumb-2 cores (Cortex-M3/M4/M7, ARMv7-A) copy 32 bytes a step with two
 * store-multiples: a page read from a medium in RAM and PLAIN values copied
 * into a batch are this copy, so it is most of a column read's instructions
 * there. Loaded with two load-multiples when source and destination are
 * aligned alike (6 instructions per 32 bytes), else with eight word loads,
 * which these cores allow at any address (12). C compilers make neither
 * (gcc -Os: 10 and 24 for the same loops). upq_memset stores 32 bytes in
 * two store-multiples (the page header and decoder state cleared per page).
 */
#include "upq_port.h"

#if defined(__GNUC__) && UPQ_MEM_WORDS
typedef size_t __attribute__((__may_alias__)) upq_word;
#define UPQ_WORD_COPY 1
#define UPQ_WSZ sizeof(upq_word)
#define UPQ_WMASK ((uintptr_t)(UPQ_WSZ - 1u))
#else
#define UPQ_WORD_COPY 0
#endif

#if UPQ_WORD_COPY && defined(__GNUC__) && defined(__thumb2__) && defined(__ARM_FEATURE_UNALIGNED) && \
    !defined(__ARM_BIG_ENDIAN)
#define UPQ_ARM_BLOCKS 1
/* Copies blocks x 32 bytes to a word-aligned d; s word-aligned too when
 * `aligned`. Four registers, two load/store-multiples a block: r3 and three
 * saved ones keep the frame small (this copy ends many deep call chains). */
static void arm_blocks(uint8_t *d, const uint8_t *s, size_t blocks, int aligned)
{
    if (aligned)
        __asm__ volatile("1:\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                         "ldmia %[s]!, {r3, r4, r5, r6}\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                         "subs %[n], %[n], #1\n\t"
                         "bne 1b"
                         : [d] "+r"(d), [s] "+r"(s), [n] "+r"(blocks)
                         :
                         : "r3", "r4", "r5", "r6", "cc", "memory");
    else
        __asm__ volatile("1:\n\t"
                         "ldr r3, [%[s]], #4\n\t"
                         "ldr r4, [%[s]], #4\n\t"
                         "ldr r5, [%[s]], #4\n\t"
                         "ldr r6, [%[s]], #4\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                         "ldr r3, [%[s]], #4\n\t"
                         "ldr r4, [%[s]], #4\n\t"
                         "ldr r5, [%[s]], #4\n\t"
                         "ldr r6, [%[s]], #4\n\t"
                         "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                         "subs %[n], %[n], #1\n\t"
                         "bne 1b"
                         : [d] "+r"(d), [s] "+r"(s), [n] "+r"(blocks)
                         :
                         : "r3", "r4", "r5", "r6", "cc", "memory");
}
#else
#define UPQ_ARM_BLOCKS 0
#endif

void *upq_memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
#if UPQ_ARM_BLOCKS
    if (n >= 64) {
        size_t blocks;
        while ((uintptr_t)d & 3u) {
            *d++ = *s++;
            n--;
        }
        blocks = n / 32u;
        arm_blocks(d, s, blocks, ((uintptr_t)s & 3u) == 0);
        d += blocks * 32u;
        s += blocks * 32u;
        n %= 32u;
    }
#endif
#if UPQ_WORD_COPY
    if (n >= 4 * UPQ_WSZ && (((uintptr_t)d ^ (uintptr_t)s) & UPQ_WMASK) == 0) {
        while ((uintptr_t)d & UPQ_WMASK) {
            *d++ = *s++;
            n--;
        }
        for (; n >= UPQ_WSZ; n -= UPQ_WSZ, d += UPQ_WSZ, s += UPQ_WSZ)
            *(upq_word *)(void *)d = *(const upq_word *)(const void *)s;
    }
#endif
#if UPQ_UNALIGNED_WORDS
    /* not aligned alike: the target loads and stores any address */
    for (; n >= 8; n -= 8, d += 8, s += 8)
        upq_copy8(d, s);
#elif UPQ_UNA32
    for (; n >= 4; n -= 4, d += 4, s += 4)
        *(upq_u32_una *)(void *)d = *(const upq_u32_una *)(const void *)s;
#endif
    while (n--)
        *d++ = *s++;
    return dst;
}

void *upq_memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if (d == s || n == 0)
        return dst;
    if ((uintptr_t)d < (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n)
        return upq_memcpy(dst, src, n);
    d += n;
    s += n;
    while (n--)
        *--d = *--s;
    return dst;
}

#if UPQ_ARM_BLOCKS
/* Fills blocks x 32 bytes at a word-aligned d with the word w. */
static void arm_fill(uint8_t *d, uint32_t w, size_t blocks)
{
    __asm__ volatile("mov r3, %[w]\n\t"
                     "mov r4, %[w]\n\t"
                     "mov r5, %[w]\n\t"
                     "mov r6, %[w]\n\t"
                     "1:\n\t"
                     "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                     "stmia %[d]!, {r3, r4, r5, r6}\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b"
                     : [d] "+r"(d), [n] "+r"(blocks)
                     : [w] "r"(w)
                     : "r3", "r4", "r5", "r6", "cc", "memory");
}
#endif

void *upq_memset(void *dst, int c, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
#if UPQ_ARM_BLOCKS
    if (n >= 64) {
        uint32_t w = (uint8_t)c * 0x01010101u;
        size_t blocks;
        while ((uintptr_t)d & 3u) {
            *d++ = (uint8_t)c;
            n--;
        }
        blocks = n / 32u;
        arm_fill(d, w, blocks);
        d += blocks * 32u;
        n %= 32u;
    }
#endif
#if UPQ_WORD_COPY
    if (n >= 4 * UPQ_WSZ) {
        upq_word w = (upq_word)(uint8_t)c;
        w |= w << 8;
        w |= w << 16;
        if (UPQ_WSZ > 4)
            w |= (w << 16) << 16;
        while ((uintptr_t)d & UPQ_WMASK) {
            *d++ = (uint8_t)c;
            n--;
        }
        for (; n >= UPQ_WSZ; n -= UPQ_WSZ, d += UPQ_WSZ)
            *(upq_word *)(void *)d = w;
    }
#endif
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

/* Equal prefixes are skipped a word at a time (upq_same_words: statistics
 * bounds of strings compare equal prefixes), then the bytes say which is
 * less. */
int upq_memcmp(const void *a, const void *b, size_t n)
{
    size_t k = upq_same_words(a, b, n);
    const uint8_t *x = (const uint8_t *)a + k;
    const uint8_t *y = (const uint8_t *)b + k;
    for (n -= k; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}

size_t upq_strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}
