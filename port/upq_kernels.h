/*
 * Inner loops of the page decoders: the port seam's kernel contracts.
 *
 * These are the scalar versions of the loops a SIMD build replaces: each has
 * a plain contract (no state, no error paths, inputs already validated by the
 * caller) so that a vector twin can be dropped in and tested against it on
 * the same inputs. Callers guarantee every byte a kernel reads is there; the
 * kernels never read a byte past what their arguments describe.
 */
#ifndef UPQ_KERNELS_H
#define UPQ_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/reader.h" /* upq_int96 */
#include "uparquet/types.h" /* upq_bytes */
#include "upq_port.h"     /* UPQ_UNALIGNED_LOAD32 */

/*
 * Unpacks n values of bw bits, packed LSB first (the RLE/bit-packing hybrid
 * and DELTA_BINARY_PACKED order), starting `shift` (0..7) bits into in[0].
 * Reads exactly (shift + n * bw + 7) / 8 bytes. bw 0..32 for upq_unpack32,
 * 0..64 for upq_unpack64. Callers pass at most a few thousand values, so
 * n * bw cannot overflow even a 32-bit size_t.
 */
void upq_unpack32(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n);
/* The same where the caller knows that avail >= (shift + n * bw + 7) / 8
 * bytes from `in` may be read (the rest of a bit-packed run or a miniblock):
 * a kernel that loads words may then take them up to there. */
void upq_unpack32_in(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n,
                     size_t avail);
/*
 * UPQ_UNPACK_GROUP8: size-optimised builds on cores that load a word at any
 * address (Cortex-M3/M4/M7), with UPQ_FAST_KERNELS, unpack the widths up to
 * it 8 values at a time,
 * each value one word load and one bit-field extract; such a group reads up
 * to 3 bytes past its bw bytes (upq_unpack32_in keeps to avail).
 * upq_delta8_sum64 (those builds only): `groups` groups of 8 deltas of width
 * bw (1..UPQ_UNPACK_GROUP8) from in, each value last += min_delta + delta,
 * into out; returns the last. Reads groups * bw + 3 bytes. min_delta (a
 * 64-bit one, taken as signed) must lie in UPQ_DELTA8_MIN..UPQ_DELTA8_MAX,
 * where min_delta + delta is a 32-bit signed sum: ascending timestamps and
 * counters, and series that go up and down by less than 2^31.
 */
#if defined(__OPTIMIZE_SIZE__) && UPQ_UNALIGNED_LOAD32 && UPQ_FAST_KERNELS
#define UPQ_UNPACK_GROUP8 16
#define UPQ_DELTA8_MIN (-(int64_t)0x7FFFFFFF - 1)
#define UPQ_DELTA8_MAX ((int64_t)0x7FFFFFFF - 0xFFFF)
uint64_t upq_delta8_sum64(const uint8_t *in, unsigned bw, size_t groups, uint64_t *out,
                          int32_t min_delta, uint64_t last);
#else
#define UPQ_UNPACK_GROUP8 0
#endif
void upq_unpack64(const uint8_t *in, unsigned shift, uint64_t *out, unsigned bw, size_t n);

/* Run expansion: n copies of v (levels, indices, and a dictionary value
 * repeated by an RLE run of one index). */
void upq_fill_u8(uint8_t *out, uint8_t v, size_t n);
void upq_fill_u16(uint16_t *out, uint16_t v, size_t n);
void upq_fill_u32(uint32_t *out, uint32_t v, size_t n);
void upq_fill_u64(uint64_t *out, uint64_t v, size_t n);
void upq_fill_f32(float *out, float v, size_t n);
void upq_fill_f64(double *out, double v, size_t n);
void upq_fill_i96(upq_int96 *out, const upq_int96 *v, size_t n);
void upq_fill_bytes(upq_bytes *out, upq_bytes v, size_t n);

/*
 * Delta prefix sums (wrap-around): out[i] = last = last + min_delta + d[i].
 * Return the new `last`. The 32-bit one may work in place (out == d).
 */
uint32_t upq_delta_sum32(uint32_t *out, const uint32_t *d, size_t n, uint32_t min_delta,
                         uint32_t last);
uint64_t upq_delta_sum64(uint64_t *out, const uint64_t *d, size_t n, uint64_t min_delta,
                         uint64_t last);
/* INT64 column whose miniblock has bit width <= 32. */
uint64_t upq_delta_sum64_32(uint64_t *out, const uint32_t *d, size_t n, uint64_t min_delta,
                            uint64_t last);
/* The sum of d[0..n) (wrap-around): how a skip moves `last`. */
uint64_t upq_sum32(const uint32_t *d, size_t n);
uint64_t upq_sum64(const uint64_t *d, size_t n);

/*
 * BYTE_STREAM_SPLIT: rebuilds n values of `width` bytes, value i from
 * in[k * stride + i] for k in 0..width-1, into out (n * width bytes, the
 * values' PLAIN bytes back to back).
 */
void upq_bss_gather(const uint8_t *in, size_t stride, size_t width, size_t n, uint8_t *out);
/* The encoder's inverse: byte k of value i (in[i * width + k]) goes to
 * out[k * stride + i]. */
void upq_bss_scatter(const uint8_t *in, size_t width, size_t n, uint8_t *out, size_t stride);

/*
 * Dictionary gather: out[i] = dict[idx[i]]. Every index must be < the
 * dictionary size; upq_max_index() finds the largest for that check.
 * One function per output type, so every store has the output's own type.
 */
uint32_t upq_max_index(const uint32_t *idx, size_t n);
void upq_gather_u8(uint8_t *out, const uint8_t *dict, const uint32_t *idx, size_t n);
void upq_gather_u32(uint32_t *out, const uint32_t *dict, const uint32_t *idx, size_t n);
void upq_gather_u64(uint64_t *out, const uint64_t *dict, const uint32_t *idx, size_t n);
void upq_gather_f32(float *out, const float *dict, const uint32_t *idx, size_t n);
void upq_gather_f64(double *out, const double *dict, const uint32_t *idx, size_t n);
void upq_gather_i96(upq_int96 *out, const upq_int96 *dict, const uint32_t *idx, size_t n);
void upq_gather_bytes(upq_bytes *out, const upq_bytes *dict, const uint32_t *idx, size_t n);
/* The same with the bound: gathers the indices before the first one >=
 * dict_n and returns how many (n when every index is in range). Scalar
 * builds take these; SIMD ones find the bound first. */
size_t upq_gather_u8_in(uint8_t *out, const uint8_t *dict, uint32_t dict_n, const uint32_t *idx,
                        size_t n);
size_t upq_gather_u32_in(uint32_t *out, const uint32_t *dict, uint32_t dict_n,
                         const uint32_t *idx, size_t n);
size_t upq_gather_u64_in(uint64_t *out, const uint64_t *dict, uint32_t dict_n,
                         const uint32_t *idx, size_t n);
size_t upq_gather_f32_in(float *out, const float *dict, uint32_t dict_n, const uint32_t *idx,
                         size_t n);
size_t upq_gather_f64_in(double *out, const double *dict, uint32_t dict_n, const uint32_t *idx,
                         size_t n);
size_t upq_gather_i96_in(upq_int96 *out, const upq_int96 *dict, uint32_t dict_n,
                         const uint32_t *idx, size_t n);
size_t upq_gather_bytes_in(upq_bytes *out, const upq_bytes *dict, uint32_t dict_n,
                           const uint32_t *idx, size_t n);


/*
 * Statistics of n >= 1 values: the signed and the unsigned bounds in one
 * pass (the column's order picks one).
 */
typedef struct upq_minmax32 {
    int32_t smin, smax;
    uint32_t umin, umax;
} upq_minmax32;
typedef struct upq_minmax64 {
    int64_t smin, smax;
    uint64_t umin, umax;
} upq_minmax64;
void upq_minmax_i32(const int32_t *v, size_t n, upq_minmax32 *r);
void upq_minmax_i64(const int64_t *v, size_t n, upq_minmax64 *r);
/*
 * Floating-point bounds, NaN left out: returns the number of NaNs; when it is
 * below n, *mn and *mx are the smallest and largest other value (a zero
 * bound may be either zero: the caller writes its own). When every value is
 * NaN, *mn and *mx are unspecified.
 */
size_t upq_minmax_f32(const float *v, size_t n, float *mn, float *mx);
size_t upq_minmax_f64(const double *v, size_t n, double *mn, double *mx);

/*
 * A FLOAT page of the writer in one pass: the n >= 1 values at in (native
 * floats, 4-aligned) split into the four BYTE_STREAM_SPLIT streams at out
 * (stream k at out + k * n, as upq_enc_bss writes them) and *kmn, *kmx set
 * to the least and the greatest order key among them: a value's bits as a
 * signed integer, a negative one's magnitude bits flipped, so that keys
 * order as the values do (NaNs sort beyond the infinities; -0 just below
 * +0). The statistics take their bounds from the keys (stats.c:
 * upq_minmax_f32_keys). upq_bss_keys32 is the portable twin;
 * upq_bss_keys32_fast, in builds with UPQ_FAST_KERNELS, splits four values
 * a step and compares a key with the bounds once (a range check), where
 * the twin takes a byte and two compares at a time.
 */
#define UPQ_F32_KEY(u) ((int32_t)((u) ^ ((uint32_t)((int32_t)(u) >> 31) >> 1)))
void upq_bss_keys32(const void *in, size_t n, uint8_t *out, int32_t *kmn, int32_t *kmx);
void upq_bss_keys32_fast(const void *in, size_t n, uint8_t *out, int32_t *kmn, int32_t *kmx);

/* The table-driven (or bitwise) CRC-32 that upq_crc32_update() runs where
 * there are no CRC32 instructions (core/common/crc32.c). */
uint32_t upq_crc32_update_scalar(uint32_t crc, const void *data, size_t len);

/*
 * upq_crc32_update through the kernel a context keeps in *kernel (start it
 * at 0): where the best kernel depends on the CPU (x86-64: PCLMULQDQ,
 * VPCLMULQDQ), the first call long enough to use one asks the CPU and
 * stores the answer there, so a reader or writer asks once and the library
 * keeps no state of its own. Elsewhere it is upq_crc32_update.
 */
uint32_t upq_crc32_update_with(uint8_t *kernel, uint32_t crc, const void *data, size_t len);

#endif
