/*
 * 64-bit unsigned division without the compiler's runtime routine.
 *
 * On a 32-bit core `a / b` of two uint64_t calls libgcc's __udivmoddi4
 * (about 700 bytes on a Cortex-M4). The writer's planning (checkpoint mode:
 * region and journal sizes, rates in bytes per 1024 rows) divides 64-bit
 * byte and row counts a few times per row group and page, never per value,
 * so a short shift-subtract loop costs nothing that matters and keeps the
 * routine out of the image. A 64-bit host divides natively; the results are
 * the same either way.
 */
#include "upq_internal.h"

uint64_t upq_div64(uint64_t n, uint64_t d)
{
#if UINTPTR_MAX > 0xFFFFFFFFu
    return d ? n / d : UINT64_MAX;
#else
    uint64_t q = 0, r = 0;
    int i;
    if (d == 0)
        return UINT64_MAX;
    if ((n >> 32) == 0 && (d >> 32) == 0)
        return (uint32_t)n / (uint32_t)d;
    if (d >> 63) /* r << 1 below would overflow; the quotient is 0 or 1 */
        return n >= d ? 1u : 0u;
    for (i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1u);
        if (r >= d) {
            r -= d;
            q |= (uint64_t)1 << i;
        }
    }
    return q;
#endif
}
