/*
 * NEON twins of the scalar kernels (internal). Each has exactly the contract
 * of the scalar function of the same name without `neon_` (port/upq_kernels.h):
 * same results for every input, never a byte read or written past what the
 * arguments describe. Built on little-endian AArch64 and ARMv7-A with NEON
 * (uparquet/config.h); port/upq_simd.h decides which set the library calls.
 */
#ifndef UPQ_NEON_H
#define UPQ_NEON_H

#include <stddef.h>
#include <stdint.h>
#include "upq_kernels.h"

#if defined(__GNUC__) || defined(__clang__)
#define UPQ_NEON_INLINE static inline __attribute__((always_inline))
#else
#define UPQ_NEON_INLINE static inline
#endif

void upq_neon_unpack32(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n);
void upq_neon_unpack64(const uint8_t *in, unsigned shift, uint64_t *out, unsigned bw, size_t n);

void upq_neon_fill_u8(uint8_t *out, uint8_t v, size_t n);
void upq_neon_fill_u16(uint16_t *out, uint16_t v, size_t n);
void upq_neon_fill_u32(uint32_t *out, uint32_t v, size_t n);
void upq_neon_fill_u64(uint64_t *out, uint64_t v, size_t n);
void upq_neon_fill_f32(float *out, float v, size_t n);
void upq_neon_fill_f64(double *out, double v, size_t n);

uint32_t upq_neon_delta_sum32(uint32_t *out, const uint32_t *d, size_t n, uint32_t min_delta,
                              uint32_t last);
uint64_t upq_neon_delta_sum64(uint64_t *out, const uint64_t *d, size_t n, uint64_t min_delta,
                              uint64_t last);
uint64_t upq_neon_delta_sum64_32(uint64_t *out, const uint32_t *d, size_t n, uint64_t min_delta,
                                 uint64_t last);
uint64_t upq_neon_sum32(const uint32_t *d, size_t n);
uint64_t upq_neon_sum64(const uint64_t *d, size_t n);

void upq_neon_bss_gather(const uint8_t *in, size_t stride, size_t width, size_t n, uint8_t *out);
void upq_neon_bss_scatter(const uint8_t *in, size_t width, size_t n, uint8_t *out, size_t stride);

uint32_t upq_neon_max_index(const uint32_t *idx, size_t n);
void upq_neon_gather_u32(uint32_t *out, const uint32_t *dict, const uint32_t *idx, size_t n);
void upq_neon_gather_u64(uint64_t *out, const uint64_t *dict, const uint32_t *idx, size_t n);
void upq_neon_gather_f32(float *out, const float *dict, const uint32_t *idx, size_t n);
void upq_neon_gather_f64(double *out, const double *dict, const uint32_t *idx, size_t n);

void upq_neon_minmax_i32(const int32_t *v, size_t n, upq_minmax32 *r);
void upq_neon_minmax_i64(const int64_t *v, size_t n, upq_minmax64 *r);
size_t upq_neon_minmax_f32(const float *v, size_t n, float *mn, float *mx);
size_t upq_neon_minmax_f64(const double *v, size_t n, double *mn, double *mx);

uint32_t upq_neon_crc32_update(uint32_t crc, const void *data, size_t len);

#endif
