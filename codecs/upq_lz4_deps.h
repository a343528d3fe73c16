/*
 * lz4's libc seam. lz4 is built with LZ4_FREESTANDING=1, which removes every
 * heap-using function and asks for these three macros instead of <string.h>.
 * The lz4 build force-includes this header (-include); an adapter includes it
 * before "lz4.h" so both agree on LZ4_MEMORY_USAGE, which sizes LZ4_stream_t.
 *
 * lz4's hot paths copy 2..16 bytes of constant size through LZ4_memcpy to do
 * unaligned loads and stores; those stay compiler builtins, which always
 * expand inline for such sizes. Any other copy goes to the port functions, so
 * nothing ever reaches libc's memcpy (the freestanding check verifies it).
 */
#ifndef UPQ_LZ4_DEPS_H
#define UPQ_LZ4_DEPS_H

#include "upq_port.h"

#ifndef LZ4_FREESTANDING
#define LZ4_FREESTANDING 1
#endif
/* 2^12 bytes of hash table: a 4 KB compression state instead of 16 KB. */
#ifndef LZ4_MEMORY_USAGE
#define LZ4_MEMORY_USAGE 12
#endif

#if defined(__GNUC__) || defined(__clang__)
#define UPQ_LZ4_INLINE_COPY(n) (__builtin_constant_p(n) && (n) <= 16)
#define LZ4_memcpy(d, s, n) \
    (UPQ_LZ4_INLINE_COPY(n) ? __builtin_memcpy((d), (s), (n)) : upq_memcpy((d), (s), (n)))
#else
#define LZ4_memcpy(d, s, n) upq_memcpy((d), (s), (n))
#endif
#define LZ4_memmove(d, s, n) upq_memmove((d), (s), (n))
#define LZ4_memset(p, v, n) upq_memset((p), (v), (n))

#endif
