/*
 * NEON BYTE_STREAM_SPLIT (twins of upq_bss_gather/upq_bss_scatter).
 *
 * For widths 2, 4, 8 and 16, sixteen values at a time: one vector per
 * stream, then log2(width) rounds of byte zips interleave them into the
 * values' bytes (the perfect shuffle); unzips undo it for the encoder.
 * Other widths (FIXED_LEN_BYTE_ARRAY of 3, 5, 12 ... bytes) and the last
 * values of a page take the scalar twin.
 */
#include "uparquet/config.h"

#if UPQ_WITH_NEON
#include <arm_neon.h>
#include "upq_neon.h"

/* Inlined with a constant width, so the arrays live in registers. */
UPQ_NEON_INLINE void gather16(const uint8_t *in, size_t stride, size_t width, uint8_t *out)
{
    uint8x16_t v[16], t[16];
    size_t k, r, h = width / 2u;
    for (k = 0; k < width; k++)
        v[k] = vld1q_u8(in + k * stride);
    for (r = width; r > 1; r /= 2u) {
        for (k = 0; k < h; k++) {
            uint8x16x2_t z = vzipq_u8(v[k], v[k + h]); /* zip1, zip2 on AArch64 */
            t[2 * k] = z.val[0];
            t[2 * k + 1] = z.val[1];
        }
        for (k = 0; k < width; k++)
            v[k] = t[k];
    }
    for (k = 0; k < width; k++)
        vst1q_u8(out + 16 * k, v[k]);
}

UPQ_NEON_INLINE void scatter16(const uint8_t *in, size_t width, uint8_t *out, size_t stride)
{
    uint8x16_t v[16], t[16];
    size_t k, r, h = width / 2u;
    for (k = 0; k < width; k++)
        v[k] = vld1q_u8(in + 16 * k);
    for (r = width; r > 1; r /= 2u) {
        for (k = 0; k < h; k++) {
            uint8x16x2_t z = vuzpq_u8(v[2 * k], v[2 * k + 1]); /* uzp1, uzp2 */
            t[k] = z.val[0];
            t[k + h] = z.val[1];
        }
        for (k = 0; k < width; k++)
            v[k] = t[k];
    }
    for (k = 0; k < width; k++)
        vst1q_u8(out + k * stride, v[k]);
}

#define BSS_CASE(w, call)                   \
    case w:                                 \
        for (; i + 16 <= n; i += 16)        \
            call;                           \
        break;

void upq_neon_bss_gather(const uint8_t *in, size_t stride, size_t width, size_t n, uint8_t *out)
{
    size_t i = 0;
    switch (width) {
        BSS_CASE(2, gather16(in + i, stride, 2, out + 2 * i))
        BSS_CASE(4, gather16(in + i, stride, 4, out + 4 * i))
        BSS_CASE(8, gather16(in + i, stride, 8, out + 8 * i))
        BSS_CASE(16, gather16(in + i, stride, 16, out + 16 * i))
    default: break;
    }
    if (i < n)
        upq_bss_gather(in + i, stride, width, n - i, out + i * width);
}

void upq_neon_bss_scatter(const uint8_t *in, size_t width, size_t n, uint8_t *out, size_t stride)
{
    size_t i = 0;
    switch (width) {
        BSS_CASE(2, scatter16(in + 2 * i, 2, out + i, stride))
        BSS_CASE(4, scatter16(in + 4 * i, 4, out + i, stride))
        BSS_CASE(8, scatter16(in + 8 * i, 8, out + i, stride))
        BSS_CASE(16, scatter16(in + 16 * i, 16, out + i, stride))
    default: break;
    }
    if (i < n)
        upq_bss_scatter(in + i * width, width, n - i, out + i, stride);
}

#else
typedef int upq_neon_bss_unused; /* an empty file is not C */
#endif
