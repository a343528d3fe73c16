/*
 * NEON bit-unpacking (twins of upq_unpack32/upq_unpack64, core/common/kernels.c).
 *
 * Eight values of bw bits are exactly bw bytes, so every group of eight has
 * the same layout: one byte shuffle per vector (vqtbl; two vtbl on ARMv7)
 * puts each value's bytes in its own lane, a per-lane shift drops the bits
 * below it and a mask the bits above. The shuffle tables are worked out once per call. A group
 * is done with vectors only while its 16- or 32-byte loads stay inside the
 * packed bytes; the rest, and a start in the middle of a byte, go to the
 * scalar twin.
 */
#include "uparquet/config.h"

#if UPQ_WITH_NEON
#include <arm_neon.h>
#include "upq_neon.h"
#include "neon_a32.h"

/* Groups of eight values whose loads, the last starting `last_load` bytes
 * into a group and `load` bytes long, stay within `avail` bytes. */
static size_t whole_groups(size_t n, unsigned bw, size_t avail, size_t last_load, size_t load)
{
    size_t g;
    if (avail < last_load + load)
        return 0;
    g = (avail - last_load - load) / bw + 1u;
    return g < n / 8u ? g : n / 8u;
}

/* bw 1..25: a value and its shift fit a 32-bit lane, four lanes a vector. */
static void groups32_narrow(const uint8_t *in, uint32_t *out, unsigned bw, size_t groups)
{
    uint8_t tb[2][16];
    int32_t sh[2][4];
    size_t base1 = (4u * bw) / 8u, g;
    unsigned h, j, b;
    uint8x16_t t0, t1;
    int32x4_t s0, s1;
    uint32x4_t mask = vdupq_n_u32(((uint32_t)1 << bw) - 1u);

    for (h = 0; h < 2; h++) {
        for (j = 0; j < 4; j++) {
            unsigned bit = (4u * h + j) * bw - 8u * (h ? (unsigned)base1 : 0u);
            for (b = 0; b < 4; b++)
                tb[h][4 * j + b] = (uint8_t)(bit / 8u + b);
            sh[h][j] = -(int32_t)(bit % 8u);
        }
    }
    t0 = vld1q_u8(tb[0]);
    t1 = vld1q_u8(tb[1]);
    s0 = vld1q_s32(sh[0]);
    s1 = vld1q_s32(sh[1]);
    for (g = 0; g < groups; g++, in += bw, out += 8) {
        uint32x4_t a = vreinterpretq_u32_u8(upq_v_tbl16(vld1q_u8(in), t0));
        uint32x4_t c = vreinterpretq_u32_u8(upq_v_tbl16(vld1q_u8(in + base1), t1));
        vst1q_u32(out, vandq_u32(vshlq_u32(a, s0), mask));
        vst1q_u32(out + 4, vandq_u32(vshlq_u32(c, s1), mask));
    }
}

/* bw 26..31: a value with its shift needs up to 39 bits, so two 64-bit
 * lanes a vector, narrowed back to 32 bits. */
static void groups32_wide(const uint8_t *in, uint32_t *out, unsigned bw, size_t groups)
{
    uint8_t tb[4][16];
    int64_t sh[4][2];
    size_t base[4], g;
    unsigned p, j, b;
    uint8x16_t t[4];
    int64x2_t s[4];
    uint32x4_t mask = vdupq_n_u32(((uint32_t)1 << bw) - 1u);

    for (p = 0; p < 4; p++) {
        base[p] = (2u * p * bw) / 8u;
        for (j = 0; j < 2; j++) {
            unsigned bit = (2u * p + j) * bw - 8u * (unsigned)base[p];
            for (b = 0; b < 8; b++)
                tb[p][8 * j + b] = (uint8_t)(bit / 8u + b);
            sh[p][j] = -(int64_t)(bit % 8u);
        }
        t[p] = vld1q_u8(tb[p]);
        s[p] = vld1q_s64(sh[p]);
    }
    for (g = 0; g < groups; g++, in += bw, out += 8) {
        uint32x2_t w[4];
        for (p = 0; p < 4; p++) {
            uint64x2_t v = vreinterpretq_u64_u8(upq_v_tbl16(vld1q_u8(in + base[p]), t[p]));
            w[p] = vmovn_u64(vshlq_u64(v, s[p]));
        }
        vst1q_u32(out, vandq_u32(vcombine_u32(w[0], w[1]), mask));
        vst1q_u32(out + 4, vandq_u32(vcombine_u32(w[2], w[3]), mask));
    }
}

void upq_neon_unpack32(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n)
{
    size_t groups, avail;
    if (bw == 0 || bw > 32 || n < 16) {
        upq_unpack32(in, shift, out, bw, n);
        return;
    }
    if (shift != 0) {
        /* scalar up to the next value that starts on a byte, as the twin */
        size_t head = 1;
        while (head < 8 && (shift + head * bw) % 8u != 0)
            head++;
        if (head >= n || (shift + head * bw) % 8u != 0) {
            upq_unpack32(in, shift, out, bw, n);
            return;
        }
        upq_unpack32(in, shift, out, bw, head);
        in += (shift + head * bw) / 8u;
        out += head;
        n -= head;
    }
    avail = (n * bw + 7u) / 8u;
    if (bw == 32) {
        size_t i;
        for (i = 0; i + 4 <= n; i += 4)
            vst1q_u32(out + i, vreinterpretq_u32_u8(vld1q_u8(in + 4 * i)));
        upq_unpack32(in + 4 * i, 0, out + i, bw, n - i);
        return;
    } else if (bw <= 25) {
        groups = whole_groups(n, bw, avail, (4u * bw) / 8u, 16);
        groups32_narrow(in, out, bw, groups);
    } else {
        groups = whole_groups(n, bw, avail, (6u * bw) / 8u, 16);
        groups32_wide(in, out, bw, groups);
    }
    if (groups * 8u < n)
        upq_unpack32(in + groups * bw, 0, out + groups * 8u, bw, n - groups * 8u);
}

/* bw 33..64: a value with its shift spans up to nine bytes: the low eight
 * shifted down, the ninth shifted up into the top (a shift by 64 gives 0). */
static void groups64(const uint8_t *in, uint64_t *out, unsigned bw, size_t groups)
{
    uint8_t tlo[4][16], thi[4][16];
    int64_t slo[4][2], shi[4][2];
    size_t base[4], g;
    unsigned p, j, b;
    uint8x16_t tl[4], th[4];
    int64x2_t sl[4], sh[4];
    uint64x2_t mask = vdupq_n_u64(bw == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bw) - 1u);

    for (p = 0; p < 4; p++) {
        base[p] = (2u * p * bw) / 8u;
        for (j = 0; j < 2; j++) {
            unsigned bit = (2u * p + j) * bw - 8u * (unsigned)base[p];
            for (b = 0; b < 8; b++) {
                tlo[p][8 * j + b] = (uint8_t)(bit / 8u + b);
                thi[p][8 * j + b] = b == 0 ? (uint8_t)(bit / 8u + 8u) : 0xFFu; /* 0xFF: 0 */
            }
            slo[p][j] = -(int64_t)(bit % 8u);
            shi[p][j] = 64 - (int64_t)(bit % 8u);
        }
        tl[p] = vld1q_u8(tlo[p]);
        th[p] = vld1q_u8(thi[p]);
        sl[p] = vld1q_s64(slo[p]);
        sh[p] = vld1q_s64(shi[p]);
    }
    for (g = 0; g < groups; g++, in += bw, out += 8) {
        for (p = 0; p < 4; p++) {
            uint8x16x2_t q;
            uint64x2_t lo, hi;
            q.val[0] = vld1q_u8(in + base[p]);
            q.val[1] = vld1q_u8(in + base[p] + 16);
            lo = vshlq_u64(vreinterpretq_u64_u8(upq_v_tbl32(q, tl[p])), sl[p]);
            hi = vshlq_u64(vreinterpretq_u64_u8(upq_v_tbl32(q, th[p])), sh[p]);
            vst1q_u64(out + 2 * p, vandq_u64(vorrq_u64(lo, hi), mask));
        }
    }
}

void upq_neon_unpack64(const uint8_t *in, unsigned shift, uint64_t *out, unsigned bw, size_t n)
{
    size_t groups, head;
    if (bw <= 32 || bw > 64 || n < 16) {
        upq_unpack64(in, shift, out, bw, n);
        return;
    }
    head = 0;
    if (shift != 0) {
        head = 1;
        while (head < 8 && (shift + head * bw) % 8u != 0)
            head++;
        if (head >= n || (shift + head * bw) % 8u != 0) {
            upq_unpack64(in, shift, out, bw, n);
            return;
        }
        upq_unpack64(in, shift, out, bw, head);
        in += (shift + head * bw) / 8u;
        out += head;
        n -= head;
    }
    groups = whole_groups(n, bw, (n * bw + 7u) / 8u, (6u * bw) / 8u, 32);
    groups64(in, out, bw, groups);
    if (groups * 8u < n)
        upq_unpack64(in + groups * bw, 0, out + groups * 8u, bw, n - groups * 8u);
}

#else
typedef int upq_neon_unpack_unused; /* an empty file is not C */
#endif
