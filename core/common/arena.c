/* Bump allocation over the caller's buffer. */
#include "uparquet/arena.h"
#include "upq_port.h"

#if UPQ_WITH_LAZY_ROW_GROUPS
/* `top` holds the high end's bytes (a multiple of 8) and, in bit 0, whether
 * allocations go there: one word, as the struct sits in every reader and
 * writer */
#define TOP(a) ((a)->top & ~(size_t)1)
#define DOWN(a) ((a)->top & 1u)
#else
#define TOP(a) ((size_t)0)
#endif

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
#if UPQ_WITH_LAZY_ROW_GROUPS
    a->top = 0;
#endif
    a->high = 0;
    a->needed = 0;
}

void *upq_arena_alloc(upq_arena *a, size_t size)
{
    /* `used` is always aligned, so rounding the size keeps the next one aligned */
    size_t rounded = size + align_pad((uintptr_t)size);
    void *p;
    if (rounded < size || rounded > a->cap - a->used - TOP(a)) {
        size_t want = a->used + TOP(a) + rounded;
        /* the arena size that would have satisfied this request (an 8-aligned
         * buffer of exactly this many bytes suffices) */
        a->needed = (rounded < size || want < a->used + TOP(a)) ? (size_t)-1 : want;
        return (void *)0;
    }
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (DOWN(a)) {
        a->top += rounded;
        p = a->base + a->cap - TOP(a);
    } else
#endif
    {
        p = a->base + a->used;
        a->used += rounded;
    }
    if (a->used + TOP(a) > a->high)
        a->high = a->used + TOP(a);
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
#if UPQ_WITH_LAZY_ROW_GROUPS
    a->top = TOP(a) | (on != 0 ? 1u : 0u);
#else
    (void)a;
    (void)on;
#endif
}

void upq_arena_free_top(upq_arena *a)
{
#if UPQ_WITH_LAZY_ROW_GROUPS
    a->top &= 1u; /* keeps the direction */
#else
    (void)a;
#endif
}

size_t upq_arena_remaining(const upq_arena *a)
{
    return a->cap - a->used - TOP(a);
}

size_t upq_arena_high_water(const upq_arena *a)
{
    return a->high;
}

size_t upq_arena_needed(const upq_arena *a)
{
    return a->needed;
}
