/*
 * zstd's libc seam, replacing lib/common/zstd_deps.h for the decoder build.
 *
 * zstd funnels every libc need through zstd_deps.h, each part behind an
 * include guard (ZSTD_DEPS_COMMON, ZSTD_DEPS_MALLOC, ...). The zstd build
 * force-includes this header (-include) first; it defines those guards and
 * the macros they protect, so zstd's own zstd_deps.h becomes empty and no
 * libc header or function is used (the same idea as zstd's
 * contrib/freestanding_lib, without rewriting the sources).
 *
 * There is no allocator: ZSTD_malloc/calloc return NULL, so only the static
 * API works (ZSTD_initStaticDCtx on caller memory, ZSTD_estimateDCtxSize to
 * size it), which is the only one the adapter uses.
 */
#ifndef UPQ_ZSTD_DEPS_H
#define UPQ_ZSTD_DEPS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "upq_port.h"

/* ZSTD_DEPS_COMMON: NULL, INT_MAX, UINT_MAX and the memory primitives.
 * Constant small copies (unaligned loads, 8/16-byte wildcopies) stay
 * builtins, which expand inline; the rest goes to the port. */
#define ZSTD_DEPS_COMMON
#if defined(__GNUC__) || defined(__clang__)
#define UPQ_ZSTD_INLINE_COPY(n) (__builtin_constant_p(n) && (n) <= 16)
#define ZSTD_memcpy(d, s, n) \
    (UPQ_ZSTD_INLINE_COPY(n) ? __builtin_memcpy((d), (s), (n)) : upq_memcpy((d), (s), (n)))
#else
#define ZSTD_memcpy(d, s, n) upq_memcpy((d), (s), (n))
#endif
#define ZSTD_memmove(d, s, n) upq_memmove((d), (s), (n))
#define ZSTD_memset(p, v, n) upq_memset((p), (v), (n))

/* ZSTD_DEPS_MALLOC: no heap. */
#define ZSTD_DEPS_MALLOC
#define ZSTD_malloc(s) ((void)(s), (void *)0)
#define ZSTD_calloc(n, s) ((void)(n), (void)(s), (void *)0)
#define ZSTD_free(p) ((void)(p))

/* ZSTD_DEPS_MATH64: only the compressor divides 64-bit values. */
#define ZSTD_DEPS_MATH64
#define ZSTD_div64(dividend, divisor) ((dividend) / (divisor))

/* ZSTD_DEPS_ASSERT / ZSTD_DEPS_IO: no asserts, no debug printing. */
#define ZSTD_DEPS_ASSERT
#ifndef assert
#define assert(condition) ((void)0)
#endif
#define ZSTD_DEPS_IO
#define ZSTD_DEBUG_PRINT(...) ((void)0)

/* ZSTD_DEPS_STDINT: <stdint.h> is a freestanding header. */
#define ZSTD_DEPS_STDINT

/* xxhash.h calls memset itself, bypassing the seam; the XXH3 code it compiles
 * out also calls memcpy and memcmp. */
#define memset upq_memset
#define memcpy upq_memcpy
#define memcmp upq_memcmp

#endif
