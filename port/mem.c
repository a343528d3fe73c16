/*
 * Freestanding memory primitives. Simple byte loops:
 * the library moves little data through these (metadata, page copies are
 * rare), so size beats speed here.
 *
 * GCC may recognise these loops and emit calls to memcpy/memset; the build
 * compiles this file with -fno-builtin / -fno-tree-loop-distribute-patterns so
 * the library never depends on libc.
 */
#include "upq_port.h"

void *upq_memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
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
