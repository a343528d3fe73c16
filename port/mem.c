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

void *upq_memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
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

void *upq_memset(void *dst, int c, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
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

int upq_memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = (const uint8_t *)a;
    const uint8_t *y = (const uint8_t *)b;
    for (; n; n--, x++, y++)
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
