/*
 * The one place that picks the inner loops a build runs (internal).
 *
 * UPQ_K(name) is the kernel the library calls: upq_neon_<name> (port/neon)
 * when UPQ_WITH_NEON is on, else the scalar upq_<name> (core/common/kernels.c). The
 * scalar twins are compiled in every build, so a test can run both on the
 * same inputs. Kernels without a vector twin are called by their scalar name.
 *
 * UPQ_WITH_NEON is on for little-endian AArch64 and ARMv7-A with NEON; both
 * get every NEON kernel (port/neon/neon_a32.h has the ARMv7 forms of the
 * AArch64-only intrinsics).
 *
 * UPQ_CRC32_HW: the page CRC uses the ARMv8 CRC32 instructions, which compute
 * Parquet's CRC-32 (IEEE, reflected 0xEDB88320; not the crc32c ones). ARMv7
 * has none (no __ARM_FEATURE_CRC32): the table or bitwise CRC there.
 * x86-64 has the carry-less multiply (UPQ_CRC32_X86 below).
 */
#ifndef UPQ_SIMD_H
#define UPQ_SIMD_H

#include "uparquet/config.h"
#include "upq_kernels.h"

#if UPQ_WITH_NEON
#include "neon/upq_neon.h"
#define UPQ_K(name) upq_neon_##name
#else
#define UPQ_K(name) upq_##name
#endif

/* Bit unpacking where avail bytes from `in` may be read (upq_unpack32_in):
 * the scalar kernel uses them, the NEON one keeps to the values' bytes. */
#if UPQ_WITH_NEON
#define UPQ_UNPACK32(in, shift, out, bw, n, avail) upq_neon_unpack32((in), (shift), (out), (bw), (n))
#else
#define UPQ_UNPACK32(in, shift, out, bw, n, avail) \
    upq_unpack32_in((in), (shift), (out), (bw), (n), (avail))
#endif

/* The NEON kernels run on little-endian hosts only: there a number's bytes
 * in memory are its PLAIN bytes, and the BYTE_STREAM_SPLIT encoder splits
 * them as they are. Scalar builds split through shifts (any byte order). */
#if UPQ_WITH_NEON
#define UPQ_BSS_NATIVE_LE 1
#else
#define UPQ_BSS_NATIVE_LE 0
#endif

#if UPQ_WITH_NEON && defined(__ARM_FEATURE_CRC32) && !UPQ_CRC32_PORT
#define UPQ_CRC32_HW 1
#else
#define UPQ_CRC32_HW 0
#endif

/* UPQ_CRC32_X86: x86-64 builds (gcc and clang) carry the PCLMULQDQ and
 * VPCLMULQDQ page CRC kernels (port/x86/x86_crc32.c) whatever ISA they are
 * built for, and choose at run time: upq_x86_crc32_choose() asks the CPU
 * once, a context keeps the answer (core/common/crc32.c:
 * upq_crc32_update_with). The kernels fold len bytes, len >= 64 and a
 * multiple of 16. */
#if !UPQ_CRC32_HW && !UPQ_CRC32_PORT && defined(__x86_64__) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define UPQ_CRC32_X86 1
unsigned upq_x86_crc32_choose(void);
uint32_t upq_x86_crc32_blocks(unsigned kernel, uint32_t crc, const void *data, size_t len);
#else
#define UPQ_CRC32_X86 0
#endif
/* The kernels a context may hold (0: not chosen yet). */
#define UPQ_CRC32_K_TABLE 1u
#define UPQ_CRC32_K_CLMUL 2u
#define UPQ_CRC32_K_VCLMUL 3u

/* UPQ_X86_SSE2: x86-64 builds take the SSE2 twins of the kernels the
 * compiler cannot vectorise on that baseline (port/x86/x86_kernels.c).
 * UPQ_MAX_INDEX is the dictionary index bound a build runs. */
#if !UPQ_WITH_NEON && defined(__x86_64__) && defined(__SSE2__)
#define UPQ_X86_SSE2 1
uint32_t upq_x86_max_index(const uint32_t *idx, size_t n);
#define UPQ_MAX_INDEX upq_x86_max_index
#else
#define UPQ_X86_SSE2 0
#define UPQ_MAX_INDEX UPQ_K(max_index)
#endif

/* UPQ_GATHER_BOUND: scalar builds gather dictionary values with the index
 * bound checked on the way (upq_gather_*_in); SIMD ones bound the indices
 * first, then gather, each in vectors, and so do builds without
 * UPQ_FAST_KERNELS (less code). */
#if UPQ_WITH_NEON || UPQ_X86_SSE2 || !UPQ_FAST_KERNELS
#define UPQ_GATHER_BOUND 0
#else
#define UPQ_GATHER_BOUND 1
#endif

#endif
