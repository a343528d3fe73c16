/* Bump allocation over the caller's buffer. */
#include "uparquet/arena.h"
#include "upq_port.h"

static size_t align_pad(uintptr_t p)
{
    return (size_t)((UPQ_ARENA_ALIGN - (p & (UPQ_ARENA_ALIGN - 1u))) & (UPQ_ARENA_ALIGN - 1u));
}

void upq_arena_init(upq_arena *a, void *buf, size_t len)
{
    size_t pad = buf ? align_pad((uintptr_t)buf) : 0;
    a->base = buf ? (uint8_t *)buf + (pad < len ? pad : len) : (uint8_t *)0;
    a->cap = pad < len ? len - pad : 0;
    a->used = 0;
    a->top = 0;
    a->down = 0;
    a->high = 0;
    a->needed = 0;
}

void *upq_arena_alloc(upq_arena *a, size_t size)
{
    /* `used` is always aligned, so rounding the size keeps the next one aligned */
    size_t rounded = size + align_pad((uintptr_t)size);
    void *p;
    if (rounded < size || rounded > a->cap - a->used - a->top) {
        size_t want = a->used + a->top + rounded;
        /* the arena size that would have satisfied this request (an 8-aligned
         * buffer of exactly this many bytes suffices) */
        a->needed = (rounded < size || want < a->used + a->top) ? (size_t)-1 : want;
        return (void *)0;
    }
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (a->down) {
        a->top += rounded;
        p = a->base + a->cap - a->top;
    } else
#endif
    {
        p = a->base + a->used;
        a->used += rounded;
    }
    if (a->used + a->top > a->high)
        a->high = a->used + a->top;
    return p;
}

void *upq_arena_alloc_array(upq_arena *a, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) {
        a->needed = (size_t)-1;
        return (void *)0;
    }
    return upq_arena_alloc(a, n * size);
}

upq_arena_mark upq_arena_save(const upq_arena *a)
{
    return a->used;
}

void upq_arena_rewind(upq_arena *a, upq_arena_mark m)
{
    if (m <= a->used)
        a->used = m;
}

void upq_arena_use_top(upq_arena *a, int on)
{
    a->down = (uint8_t)(on != 0);
}

void upq_arena_free_top(upq_arena *a)
{
    a->top = 0;
}

size_t upq_arena_remaining(const upq_arena *a)
{
    return a->cap - a->used - a->top;
}

size_t upq_arena_high_water(const upq_arena *a)
{
    return a->high;
}

size_t upq_arena_needed(const upq_arena *a)
{
    return a->needed;
}
