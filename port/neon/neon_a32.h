/*
 * The AArch64-only intrinsics the NEON kernels use, with an ARMv7-A
 * formulation of each (internal; included after <arm_neon.h>). On AArch64
 * every helper is the one instruction it names, so that build is unchanged.
 *
 * 32-bit NEON has no across-vector reductions (pairwise steps on the halves
 * instead), no 16-byte table lookup (two 8-byte lookups of a two- or
 * four-register table: out-of-range indices give 0 in both), and no 64-bit
 * lane compares (the sign of a saturating subtraction instead).
 */
#ifndef UPQ_NEON_A32_H
#define UPQ_NEON_A32_H

#include <arm_neon.h>
#include "upq_neon.h"

#if defined(__aarch64__)
#define UPQ_NEON_A64 1
#else
#define UPQ_NEON_A64 0
#endif

/* A helper of one argument x that is an expression each way: the
 * AArch64 one is never expanded on ARMv7. */
#if UPQ_NEON_A64
#define UPQ_V_SHIM(name, T, VT, a64, a32) \
    UPQ_NEON_INLINE T name(VT x) { return a64; }
#else
#define UPQ_V_SHIM(name, T, VT, a64, a32) \
    UPQ_NEON_INLINE T name(VT x) { return a32; }
#endif

/* every lane set to lane 3 / lane 1 (the top one) of x */
UPQ_V_SHIM(upq_v_dup_top_u32, uint32x4_t, uint32x4_t, vdupq_laneq_u32(x, 3),
           vdupq_lane_u32(vget_high_u32(x), 1))
UPQ_V_SHIM(upq_v_dup_top_u64, uint64x2_t, uint64x2_t, vdupq_laneq_u64(x, 1),
           vdupq_lane_u64(vget_high_u64(x), 0))
UPQ_V_SHIM(upq_v_movl_high_u32, uint64x2_t, uint32x4_t, vmovl_high_u32(x), vmovl_u32(vget_high_u32(x)))

/* ---- across the lanes ---------------------------------------------------- */

UPQ_V_SHIM(upq_v_addv_u64, uint64_t, uint64x2_t, vaddvq_u64(x), vgetq_lane_u64(x, 0) + vgetq_lane_u64(x, 1))

UPQ_NEON_INLINE uint32_t upq_v_addv_u32(uint32x4_t x)
{
#if UPQ_NEON_A64
    return vaddvq_u32(x);
#else
    uint32x2_t s = vadd_u32(vget_low_u32(x), vget_high_u32(x));
    return vget_lane_u32(vpadd_u32(s, s), 0);
#endif
}

#if UPQ_NEON_A64
#define UPQ_V_ACROSS(name, T, VT, a64, pair, half, lo, hi, get) \
    UPQ_NEON_INLINE T name(VT x) { return a64(x); }
#else
#define UPQ_V_ACROSS(name, T, VT, a64, pair, half, lo, hi, get) \
    UPQ_NEON_INLINE T name(VT x)                                \
    {                                                           \
        half s = pair(lo(x), hi(x));                            \
        return get(pair(s, s), 0);                              \
    }
#endif
UPQ_V_ACROSS(upq_v_maxv_u32, uint32_t, uint32x4_t, vmaxvq_u32, vpmax_u32, uint32x2_t, vget_low_u32,
             vget_high_u32, vget_lane_u32)
UPQ_V_ACROSS(upq_v_minv_u32, uint32_t, uint32x4_t, vminvq_u32, vpmin_u32, uint32x2_t, vget_low_u32,
             vget_high_u32, vget_lane_u32)
UPQ_V_ACROSS(upq_v_maxv_s32, int32_t, int32x4_t, vmaxvq_s32, vpmax_s32, int32x2_t, vget_low_s32,
             vget_high_s32, vget_lane_s32)
UPQ_V_ACROSS(upq_v_minv_s32, int32_t, int32x4_t, vminvq_s32, vpmin_s32, int32x2_t, vget_low_s32,
             vget_high_s32, vget_lane_s32)

/* ---- byte shuffles --------------------------------------------------------- */

/* out[i] = t[idx[i]] for a 16-byte table, 0 where idx[i] >= 16 */
UPQ_NEON_INLINE uint8x16_t upq_v_tbl16(uint8x16_t t, uint8x16_t idx)
{
#if UPQ_NEON_A64
    return vqtbl1q_u8(t, idx);
#else
    uint8x8x2_t q;
    q.val[0] = vget_low_u8(t);
    q.val[1] = vget_high_u8(t);
    return vcombine_u8(vtbl2_u8(q, vget_low_u8(idx)), vtbl2_u8(q, vget_high_u8(idx)));
#endif
}

/* the same for a 32-byte table, 0 where idx[i] >= 32 */
UPQ_NEON_INLINE uint8x16_t upq_v_tbl32(uint8x16x2_t t, uint8x16_t idx)
{
#if UPQ_NEON_A64
    return vqtbl2q_u8(t, idx);
#else
    uint8x8x4_t q;
    q.val[0] = vget_low_u8(t.val[0]);
    q.val[1] = vget_high_u8(t.val[0]);
    q.val[2] = vget_low_u8(t.val[1]);
    q.val[3] = vget_high_u8(t.val[1]);
    return vcombine_u8(vtbl4_u8(q, vget_low_u8(idx)), vtbl4_u8(q, vget_high_u8(idx)));
#endif
}

/* ---- 64-bit lane compares ---------------------------------------------------- */

/* all ones where a < b. On ARMv7 the saturating difference a - b has the
 * sign of the true one, so its sign bit spread over the lane is the mask. */
UPQ_NEON_INLINE uint64x2_t upq_v_clt_s64(int64x2_t a, int64x2_t b)
{
#if UPQ_NEON_A64
    return vcltq_s64(a, b);
#else
    return vreinterpretq_u64_s64(vshrq_n_s64(vqsubq_s64(a, b), 63));
#endif
}

/* unsigned: flipping the sign bits maps the unsigned order onto the signed one */
UPQ_NEON_INLINE uint64x2_t upq_v_clt_u64(uint64x2_t a, uint64x2_t b)
{
#if UPQ_NEON_A64
    return vcltq_u64(a, b);
#else
    uint64x2_t s = vdupq_n_u64((uint64_t)1 << 63);
    return upq_v_clt_s64(vreinterpretq_s64_u64(veorq_u64(a, s)),
                         vreinterpretq_s64_u64(veorq_u64(b, s)));
#endif
}

#endif
