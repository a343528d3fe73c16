/*
 * What the bare-metal startups (cortex-m/startup.c, riscv/startup.c) share:
 * at reset, the stack below the reset frame painted, .data copied from
 * flash and .bss zeroed; later, the stack's size and high-water mark read
 * from the paint. Inline, so each startup stays one object.
 *
 * Not part of the library (port/sources.txt): images link a startup beside
 * their own main().
 */
#ifndef UPQ_BARE_METAL_H
#define UPQ_BARE_METAL_H

#include <stddef.h>
#include <stdint.h>

int main(void);

/* Paints the stack from its bottom up to paint_end, copies .data, zeroes
 * .bss, then runs main(). Before main() nothing may use the FPU or call
 * memcpy/memset (there are none), so the loops go through volatile
 * pointers, which the compiler keeps as loops. */
static inline void upq_bm_start(uint32_t *stack_bottom, uintptr_t paint_end, uint32_t paint,
                                const uint32_t *data_load, uint32_t *data_start,
                                uint32_t *data_end, uint32_t *bss_start, uint32_t *bss_end)
{
    volatile uint32_t *d;
    const uint32_t *s;
    for (d = stack_bottom; (uintptr_t)d < paint_end; d++)
        *d = paint;
    for (d = data_start, s = data_load; d < data_end;)
        *d++ = *s++;
    for (d = bss_start; d < bss_end;)
        *d++ = 0;
    (void)main();
}

/* Bytes of the stack region. */
static inline size_t upq_bm_stack_size(const uint32_t *bottom, const uint32_t *top)
{
    return (size_t)((uintptr_t)top - (uintptr_t)bottom);
}

/* Bytes of stack used at most since reset: from the top down to the
 * deepest word that no longer holds the paint. */
static inline size_t upq_bm_stack_high_water(const uint32_t *bottom, const uint32_t *top,
                                             uint32_t paint)
{
    const volatile uint32_t *p = bottom;
    while (p < top && *p == paint)
        p++;
    return (size_t)((uintptr_t)top - (uintptr_t)p);
}

#endif
