/* The caller's memory: one buffer, bump-allocated, rewound by marks. */
#ifndef UPARQUET_ARENA_H
#define UPARQUET_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every allocation is aligned to this (enough for int64_t, double and pointers). */
#define UPQ_ARENA_ALIGN 8u

typedef struct upq_arena {
    uint8_t *base;     /* caller's buffer (not owned) */
    size_t cap;        /* usable bytes from the first aligned address */
    size_t used;       /* bytes handed out, including alignment padding */
    size_t high;       /* high-water mark of `used` + `top` */
    size_t needed;     /* after UPQ_ERR_NOMEM: total bytes the failed request needed */
#if UPQ_WITH_LAZY_ROW_GROUPS
    /* only on-demand row groups use the high end: without them the struct
     * (one in every reader and writer) stays as small as it was */
    size_t top;        /* bytes handed out from the high end (upq_arena_use_top), a
                          multiple of 8; bit 0 set while allocating from there */
#endif
} upq_arena;

typedef size_t upq_arena_mark;

/* Uses buf[0..len) (the start is aligned up internally, so give an 8-aligned
 * buffer to get exactly what upq_arena_needed() reports). The buffer stays
 * the caller's; nothing is freed. */
void upq_arena_init(upq_arena *a, void *buf, size_t len);

/* Returns `size` bytes aligned to UPQ_ARENA_ALIGN, or NULL when the arena is
 * exhausted; then upq_arena_needed() tells the total arena size the request
 * would have needed. A request of 0 bytes returns a valid, unique-enough
 * pointer that must not be dereferenced. */
void *upq_arena_alloc(upq_arena *a, size_t size);

/* Like upq_arena_alloc for n elements of `size` bytes, with overflow checks. */
void *upq_arena_alloc_array(upq_arena *a, size_t n, size_t size);

/* Marks the current position; upq_arena_rewind() frees everything allocated
 * since (the high-water mark is kept). */
upq_arena_mark upq_arena_save(const upq_arena *a);
void upq_arena_rewind(upq_arena *a, upq_arena_mark m);

/* While `on`, allocations come from the buffer's high end, downwards: a
 * region that lives beside the marks and rewinds of the low end and is freed
 * as a whole by upq_arena_free_top (the reader keeps one row group's
 * metadata there). */
void upq_arena_use_top(upq_arena *a, int on);
void upq_arena_free_top(upq_arena *a);

/* Bytes still free, peak use, and the size the last failed request needed. */
size_t upq_arena_remaining(const upq_arena *a);
size_t upq_arena_high_water(const upq_arena *a);
size_t upq_arena_needed(const upq_arena *a);

#ifdef __cplusplus
}
#endif

#endif
