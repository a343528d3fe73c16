/*
 * brotli's libc seam, for the decoder build (c/common and c/dec).
 *
 * The brotli build force-includes this header (-include) first. brotli has
 * no seam header of its own: its sources include <string.h> and <stdlib.h>
 * directly, for memcpy/memset and for malloc/free. The names are renamed
 * here before those headers are read, so their declarations and every call
 * name the replacements (the trick zstd's seam plays for xxhash):
 *
 *   memcpy, memmove, memset, memcmp   the port's functions (the objcopy pass
 *                                      of codecs.mk renames what the compiler
 *                                      itself emits)
 *   malloc, free                       no heap: the default allocator, used
 *                                      only when no alloc_func is given,
 *                                      fails. The adapter always gives one
 *                                      (the arena, codecs/upq_brotli.c).
 *
 * Debug logging (BROTLI_DEBUG, BROTLI_ENABLE_LOG), the only users of stdio
 * and assert, stays off.
 */
#ifndef UPQ_BROTLI_DEPS_H
#define UPQ_BROTLI_DEPS_H

#include <stddef.h>
#include "upq_port.h"

#define memcpy upq_memcpy
#define memmove upq_memmove
#define memset upq_memset
#define memcmp upq_memcmp

#define malloc upq_brotli_no_malloc
#define free upq_brotli_no_free

static void *upq_brotli_no_malloc(size_t size)
{
    (void)size;
    return (void *)0;
}

static void upq_brotli_no_free(void *p)
{
    (void)p;
}

#undef BROTLI_DEBUG
#undef BROTLI_ENABLE_LOG

#endif
