/*
 * The platform seam. Library code includes this and nothing from libc: the
 * memory primitives, byte-order loads/stores, bit helpers and the assert/log
 * hooks below are all it needs from a platform.
 *
 * Loads and stores go through bytes, so they are correct on any endianness
 * and any alignment; compilers turn them into single instructions where the
 * target allows.
 */
#ifndef UPQ_PORT_H
#define UPQ_PORT_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define UPQ_INLINE static inline __attribute__((always_inline))
#define UPQ_LIKELY(x) __builtin_expect(!!(x), 1)
#define UPQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UPQ_MUST_CHECK __attribute__((warn_unused_result))
/* kept a call: for failure paths and helpers that -Os would copy into every caller */
#define UPQ_NOINLINE __attribute__((noinline))
#else
#define UPQ_INLINE static inline
#define UPQ_LIKELY(x) (x)
#define UPQ_UNLIKELY(x) (x)
#define UPQ_MUST_CHECK
#define UPQ_NOINLINE
#endif

/* Memory primitives (port/mem.c). Same contracts as the libc functions; the
 * names differ so that nothing links against libc by accident. */
void *upq_memcpy(void *dst, const void *src, size_t n);
void *upq_memmove(void *dst, const void *src, size_t n);
void *upq_memset(void *dst, int c, size_t n);
int upq_memcmp(const void *a, const void *b, size_t n);
size_t upq_strlen(const char *s);

/*
 * 64-bit targets whose loads and stores take any address at full speed
 * (x86-64, AArch64) copy through unaligned words: upq_memcpy when source
 * and destination are not aligned alike (a SNAPPY literal into a page
 * buffer), and the codecs' short copies through upq_copy8 without a call.
 * Elsewhere those copies stay byte loops: Cortex-M's flash is worth more.
 */
#if (defined(__GNUC__) || defined(__clang__)) && UPQ_MEM_WORDS && \
    (defined(__x86_64__) || defined(__aarch64__))
#define UPQ_UNALIGNED_WORDS 1
typedef uint64_t __attribute__((__may_alias__, __aligned__(1))) upq_u64_una;
/* Copies 8 bytes; source and destination must not overlap within them. */
UPQ_INLINE void upq_copy8(void *d, const void *s)
{
    *(upq_u64_una *)d = *(const upq_u64_una *)s;
}
#else
#define UPQ_UNALIGNED_WORDS 0
#endif

/*
 * The library's one word compare: how many leading bytes of a and b (n at
 * most) lie in equal whole words, 8-byte words at any address on 64-bit
 * hosts, 4-byte ones on Cortex-M3/M4/M7, aligned words elsewhere when both
 * sides are aligned; 0 in the smallest sets (UPQ_MEM_WORDS 0). upq_memcmp
 * starts from it; an equality test (a dictionary key) inlines it.
 */
#if (defined(__GNUC__) || defined(__clang__)) && UPQ_MEM_WORDS
typedef size_t __attribute__((__may_alias__)) upq_word_t;
#if !UPQ_UNALIGNED_WORDS && defined(__ARM_FEATURE_UNALIGNED) && __SIZEOF_POINTER__ == 4
#define UPQ_UNA32 1
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) upq_u32_una;
#else
#define UPQ_UNA32 0
#endif
#else
#define UPQ_UNA32 0
#endif
UPQ_INLINE size_t upq_same_words(const void *a, const void *b, size_t n)
{
    size_t k = 0;
#if (defined(__GNUC__) || defined(__clang__)) && UPQ_MEM_WORDS
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
#if UPQ_UNALIGNED_WORDS
    while (k + 8 <= n &&
           *(const upq_u64_una *)(const void *)(x + k) == *(const upq_u64_una *)(const void *)(y + k))
        k += 8;
#elif UPQ_UNA32
    while (k + 4 <= n &&
           *(const upq_u32_una *)(const void *)(x + k) == *(const upq_u32_una *)(const void *)(y + k))
        k += 4;
#else
    if ((((uintptr_t)x | (uintptr_t)y) & (sizeof(upq_word_t) - 1u)) == 0)
        while (k + sizeof(upq_word_t) <= n &&
               *(const upq_word_t *)(const void *)(x + k) == *(const upq_word_t *)(const void *)(y + k))
            k += sizeof(upq_word_t);
#endif
#else
    (void)a;
    (void)b;
    (void)n;
#endif
    return k;
}

/* A 32-bit load at any address is one instruction (x86, AArch64, and the
 * ARMv7 cores, Cortex-M3/M4/M7 among them, unless built to trap unaligned
 * accesses): upq_load_le32 then compiles to it, and a kernel may read the
 * word at any byte. Elsewhere (Cortex-M0+, RISC-V) it is four byte loads. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
    defined(__ARM_FEATURE_UNALIGNED)
#define UPQ_UNALIGNED_LOAD32 1
#else
#define UPQ_UNALIGNED_LOAD32 0
#endif

/* The target's byte order is the format's (little-endian): numbers in memory
 * are their PLAIN bytes, so pages' values can be used where they lie and
 * values hashed or written as they are held. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UPQ_NATIVE_LE 1
#else
#define UPQ_NATIVE_LE 0
#endif

/* Little-endian loads/stores (the format's byte order). */
UPQ_INLINE uint16_t upq_load_le16(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint16_t)(b[0] | (b[1] << 8));
}
UPQ_INLINE uint32_t upq_load_le32(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}
UPQ_INLINE uint64_t upq_load_le64(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint64_t)upq_load_le32(b) | ((uint64_t)upq_load_le32(b + 4) << 32);
}
UPQ_INLINE void upq_store_le16(void *p, uint16_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
UPQ_INLINE void upq_store_le32(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}
UPQ_INLINE void upq_store_le64(void *p, uint64_t v)
{
    upq_store_le32(p, (uint32_t)v);
    upq_store_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}
UPQ_INLINE uint32_t upq_load_be32(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}
UPQ_INLINE void upq_store_be32(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

/* IEEE-754 bit casts without aliasing UB: through a union (C99 6.5.2.3,
 * which GCC and Clang document), not upq_memcpy, which -fno-builtin keeps a
 * call per value in the statistics' loops. */
#define UPQ_BIT_CAST(name, From, To)      \
    UPQ_INLINE To name(From v)            \
    {                                     \
        union { From from; To to; } x;    \
        x.from = v;                       \
        return x.to;                      \
    }
UPQ_BIT_CAST(upq_f64_from_bits, uint64_t, double)
UPQ_BIT_CAST(upq_f64_bits, double, uint64_t)
UPQ_BIT_CAST(upq_f32_from_bits, uint32_t, float)
UPQ_BIT_CAST(upq_f32_bits, float, uint32_t)

/* Bit helpers. The fallbacks are used when the compiler has no builtin
 * (or UPQ_NO_BUILTIN_BITS is set, which the tests use to check them). */
#if !defined(UPQ_NO_BUILTIN_BITS)
#define UPQ_NO_BUILTIN_BITS 0
#endif
UPQ_INLINE unsigned upq_clz32(uint32_t v) /* v != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && !UPQ_NO_BUILTIN_BITS
    return (unsigned)__builtin_clz(v);
#else
    unsigned n = 0;
    while (!(v & 0x80000000u)) {
        v <<= 1;
        n++;
    }
    return n;
#endif
}
UPQ_INLINE unsigned upq_ctz32(uint32_t v) /* v != 0 */
{
#if (defined(__GNUC__) || defined(__clang__)) && !UPQ_NO_BUILTIN_BITS
    return (unsigned)__builtin_ctz(v);
#else
    return 31u - upq_clz32(v & (0u - v)); /* the lowest set bit alone */
#endif
}
UPQ_INLINE unsigned upq_popcount32(uint32_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && !UPQ_NO_BUILTIN_BITS
    return (unsigned)__builtin_popcount(v);
#else
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}
/* Number of bits needed to represent v (0 for 0): the bit width of a level or index. */
UPQ_INLINE unsigned upq_bit_width32(uint32_t v)
{
    return v ? 32u - upq_clz32(v) : 0u;
}
UPQ_INLINE unsigned upq_bit_width64(uint64_t v)
{
    uint32_t hi = (uint32_t)(v >> 32);
    return hi ? 32u + upq_bit_width32(hi) : upq_bit_width32((uint32_t)v);
}

/*
 * The CRC-32 unit of a board, when the build says so (UPQ_CRC32_PORT 1):
 * every page and journal checksum of the library is then computed here.
 * Parquet's CRC-32 is zlib's crc32(): polynomial 0x04C11DB7 reflected
 * (0xEDB88320), register preset to all ones, result inverted; `crc` is the
 * CRC of the bytes before (0 for none) and the result the CRC of those and
 * data[0..len). STM32's CRC peripheral computes it with its input reversed
 * by byte and its output reversed (CRC_CR REV_IN = 01, REV_OUT = 1, and the
 * result XORed with all ones; the F1/F2/F4 units, which cannot reverse, get
 * each word bit-reversed with RBIT); ARMv8 cores have the CRC32B/W/X
 * instructions. A port may hand any part, an unaligned head or the last
 * bytes a 32-bit unit cannot take, to upq_crc32_update_scalar (the
 * library's table CRC, upq_kernels.h). A peripheral shared with other code
 * must be the port's to lock: the library calls this from its own calls
 * only, never from an interrupt.
 */
#if UPQ_CRC32_PORT
uint32_t upq_port_crc32_update(uint32_t crc, const void *data, size_t len);
#endif

/* Assertions and trace hooks compile to nothing unless enabled. A port that
 * enables them provides upq_port_assert_fail / upq_port_log. */
#if UPQ_ASSERT_ENABLED
void upq_port_assert_fail(const char *file, int line, const char *expr);
#define UPQ_ASSERT(e) ((e) ? (void)0 : upq_port_assert_fail(__FILE__, __LINE__, #e))
#else
#define UPQ_ASSERT(e) ((void)0)
#endif
#if UPQ_LOG_ENABLED
void upq_port_log(const char *msg, long a, long b);
#define UPQ_LOG(msg, a, b) upq_port_log((msg), (long)(a), (long)(b))
#else
#define UPQ_LOG(msg, a, b) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
