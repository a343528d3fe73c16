/*
 * NEON twins of the small loops: run fills, delta prefix sums and sums,
 * dictionary index bound and gathers, min/max statistics. Each does whole
 * vectors and leaves the last few values to its scalar twin (core/common/kernels.c),
 * so both always agree on the tails.
 */
#include "uparquet/config.h"

#if UPQ_WITH_NEON
#include <arm_neon.h>
#include "upq_neon.h"
#include "neon_a32.h"

/* ---- run expansion ------------------------------------------------------ */

#define NEON_FILL(name, scalar, T, VT, dup, st, lanes)   \
    void name(T *out, T v, size_t n)                     \
    {                                                    \
        VT x = dup(v);                                   \
        size_t i = 0;                                    \
        for (; i + 2 * (lanes) <= n; i += 2 * (lanes)) { \
            st(out + i, x);                              \
            st(out + i + (lanes), x);                    \
        }                                                \
        scalar(out + i, v, n - i);                       \
    }
NEON_FILL(upq_neon_fill_u8, upq_fill_u8, uint8_t, uint8x16_t, vdupq_n_u8, vst1q_u8, 16)
NEON_FILL(upq_neon_fill_u16, upq_fill_u16, uint16_t, uint16x8_t, vdupq_n_u16, vst1q_u16, 8)
NEON_FILL(upq_neon_fill_u32, upq_fill_u32, uint32_t, uint32x4_t, vdupq_n_u32, vst1q_u32, 4)
NEON_FILL(upq_neon_fill_u64, upq_fill_u64, uint64_t, uint64x2_t, vdupq_n_u64, vst1q_u64, 2)
/* lane moves, no arithmetic: a signalling NaN's bits stay as they are */
NEON_FILL(upq_neon_fill_f32, upq_fill_f32, float, float32x4_t, vdupq_n_f32, vst1q_f32, 4)
#if UPQ_NEON_A64
NEON_FILL(upq_neon_fill_f64, upq_fill_f64, double, float64x2_t, vdupq_n_f64, vst1q_f64, 2)
#else
/* ARMv7 NEON has no double lanes: the value's bytes, stored as bytes */
void upq_neon_fill_f64(double *out, double v, size_t n)
{
    uint8x8_t b = vld1_u8((const uint8_t *)&v);
    uint8x16_t x = vcombine_u8(b, b);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vst1q_u8((uint8_t *)(out + i), x);
        vst1q_u8((uint8_t *)(out + i + 2), x);
    }
    upq_fill_f64(out + i, v, n - i);
}
#endif

/* ---- DELTA_BINARY_PACKED ------------------------------------------------ */

/* Prefix sums within a vector in log2(lanes) shifted adds, then the running
 * `last` added to every lane and carried on from the top lane. */
uint32_t upq_neon_delta_sum32(uint32_t *out, const uint32_t *d, size_t n, uint32_t min_delta,
                              uint32_t last)
{
    uint32x4_t md = vdupq_n_u32(min_delta), z = vdupq_n_u32(0), c = vdupq_n_u32(last);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = vaddq_u32(vld1q_u32(d + i), md);
        x = vaddq_u32(x, vextq_u32(z, x, 3));
        x = vaddq_u32(x, vextq_u32(z, x, 2));
        x = vaddq_u32(x, c);
        vst1q_u32(out + i, x);
        c = upq_v_dup_top_u32(x);
    }
    return upq_delta_sum32(out + i, d + i, n - i, min_delta, vgetq_lane_u32(c, 0));
}

UPQ_NEON_INLINE uint64x2_t prefix64(uint64x2_t x, uint64x2_t c)
{
    x = vaddq_u64(x, vextq_u64(vdupq_n_u64(0), x, 1));
    return vaddq_u64(x, c);
}

uint64_t upq_neon_delta_sum64(uint64_t *out, const uint64_t *d, size_t n, uint64_t min_delta,
                              uint64_t last)
{
    uint64x2_t md = vdupq_n_u64(min_delta), c = vdupq_n_u64(last);
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64x2_t x = prefix64(vaddq_u64(vld1q_u64(d + i), md), c);
        vst1q_u64(out + i, x);
        c = upq_v_dup_top_u64(x);
    }
    return upq_delta_sum64(out + i, d + i, n - i, min_delta, vgetq_lane_u64(c, 0));
}

uint64_t upq_neon_delta_sum64_32(uint64_t *out, const uint32_t *d, size_t n, uint64_t min_delta,
                                 uint64_t last)
{
    uint64x2_t md = vdupq_n_u64(min_delta), c = vdupq_n_u64(last);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32x4_t x = vld1q_u32(d + i);
        uint64x2_t lo = prefix64(vaddq_u64(vmovl_u32(vget_low_u32(x)), md), c);
        uint64x2_t hi = prefix64(vaddq_u64(upq_v_movl_high_u32(x), md), upq_v_dup_top_u64(lo));
        vst1q_u64(out + i, lo);
        vst1q_u64(out + i + 2, hi);
        c = upq_v_dup_top_u64(hi);
    }
    return upq_delta_sum64_32(out + i, d + i, n - i, min_delta, vgetq_lane_u64(c, 0));
}

uint64_t upq_neon_sum32(const uint32_t *d, size_t n)
{
    uint64x2_t s = vdupq_n_u64(0);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        s = vpadalq_u32(s, vld1q_u32(d + i));
    return upq_v_addv_u64(s) + upq_sum32(d + i, n - i);
}

uint64_t upq_neon_sum64(const uint64_t *d, size_t n)
{
    uint64x2_t s = vdupq_n_u64(0);
    size_t i = 0;
    for (; i + 2 <= n; i += 2)
        s = vaddq_u64(s, vld1q_u64(d + i));
    return upq_v_addv_u64(s) + upq_sum64(d + i, n - i);
}

/* ---- dictionaries ------------------------------------------------------- */

uint32_t upq_neon_max_index(const uint32_t *idx, size_t n)
{
    uint32x4_t m0 = vdupq_n_u32(0), m1 = m0;
    uint32_t m, t;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        m0 = vmaxq_u32(m0, vld1q_u32(idx + i));
        m1 = vmaxq_u32(m1, vld1q_u32(idx + i + 4));
    }
    m = upq_v_maxv_u32(vmaxq_u32(m0, m1));
    t = upq_max_index(idx + i, n - i);
    return t > m ? t : m;
}

/* There is no gather instruction: lanes are loaded one by one from the
 * dictionary and stored as whole vectors. */
#define NEON_GATHER(name, scalar, T, VT, dup, setl, st, lanes)          \
    void name(T *out, const T *dict, const uint32_t *idx, size_t n)     \
    {                                                                   \
        size_t i = 0;                                                   \
        for (; i + (lanes) <= n; i += (lanes)) {                        \
            VT x = dup(dict[idx[i]]);                                   \
            x = setl(dict[idx[i + 1]], x, 1);                           \
            if ((lanes) == 4) {                                         \
                x = setl(dict[idx[i + 2]], x, (lanes) == 4 ? 2 : 0);    \
                x = setl(dict[idx[i + 3]], x, (lanes) == 4 ? 3 : 0);    \
            }                                                           \
            st(out + i, x);                                             \
        }                                                               \
        scalar(out + i, dict, idx + i, n - i);                          \
    }
NEON_GATHER(upq_neon_gather_u32, upq_gather_u32, uint32_t, uint32x4_t, vdupq_n_u32, vsetq_lane_u32,
            vst1q_u32, 4)
NEON_GATHER(upq_neon_gather_f32, upq_gather_f32, float, float32x4_t, vdupq_n_f32, vsetq_lane_f32,
            vst1q_f32, 4)
NEON_GATHER(upq_neon_gather_u64, upq_gather_u64, uint64_t, uint64x2_t, vdupq_n_u64, vsetq_lane_u64,
            vst1q_u64, 2)
#if UPQ_NEON_A64
NEON_GATHER(upq_neon_gather_f64, upq_gather_f64, double, float64x2_t, vdupq_n_f64, vsetq_lane_f64,
            vst1q_f64, 2)
#else
/* ARMv7: two values' bytes loaded as bytes, stored as one vector */
void upq_neon_gather_f64(double *out, const double *dict, const uint32_t *idx, size_t n)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint8x8_t a = vld1_u8((const uint8_t *)(dict + idx[i]));
        uint8x8_t b = vld1_u8((const uint8_t *)(dict + idx[i + 1]));
        vst1q_u8((uint8_t *)(out + i), vcombine_u8(a, b));
    }
    upq_gather_f64(out + i, dict, idx + i, n - i);
}
#endif

/* ---- statistics --------------------------------------------------------- */

void upq_neon_minmax_i32(const int32_t *v, size_t n, upq_minmax32 *r)
{
    int32x4_t smin = vdupq_n_s32(v[0]), smax = smin;
    uint32x4_t umin = vreinterpretq_u32_s32(smin), umax = umin;
    upq_minmax32 t;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int32x4_t x = vld1q_s32(v + i);
        uint32x4_t u = vreinterpretq_u32_s32(x);
        smin = vminq_s32(smin, x);
        smax = vmaxq_s32(smax, x);
        umin = vminq_u32(umin, u);
        umax = vmaxq_u32(umax, u);
    }
    r->smin = upq_v_minv_s32(smin);
    r->smax = upq_v_maxv_s32(smax);
    r->umin = upq_v_minv_u32(umin);
    r->umax = upq_v_maxv_u32(umax);
    if (i < n) {
        upq_minmax_i32(v + i, n - i, &t);
        if (t.smin < r->smin) r->smin = t.smin;
        if (t.smax > r->smax) r->smax = t.smax;
        if (t.umin < r->umin) r->umin = t.umin;
        if (t.umax > r->umax) r->umax = t.umax;
    }
}

/* No 64-bit min/max instructions: compare and select. */
void upq_neon_minmax_i64(const int64_t *v, size_t n, upq_minmax64 *r)
{
    int64x2_t smin = vdupq_n_s64(v[0]), smax = smin;
    uint64x2_t umin = vreinterpretq_u64_s64(smin), umax = umin;
    upq_minmax64 t;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        int64x2_t x = vld1q_s64(v + i);
        uint64x2_t u = vreinterpretq_u64_s64(x);
        smin = vbslq_s64(upq_v_clt_s64(x, smin), x, smin);
        smax = vbslq_s64(upq_v_clt_s64(smax, x), x, smax);
        umin = vbslq_u64(upq_v_clt_u64(u, umin), u, umin);
        umax = vbslq_u64(upq_v_clt_u64(umax, u), u, umax);
    }
    t.smin = vgetq_lane_s64(smin, 0);
    r->smin = vgetq_lane_s64(smin, 1) < t.smin ? vgetq_lane_s64(smin, 1) : t.smin;
    t.smax = vgetq_lane_s64(smax, 0);
    r->smax = vgetq_lane_s64(smax, 1) > t.smax ? vgetq_lane_s64(smax, 1) : t.smax;
    t.umin = vgetq_lane_u64(umin, 0);
    r->umin = vgetq_lane_u64(umin, 1) < t.umin ? vgetq_lane_u64(umin, 1) : t.umin;
    t.umax = vgetq_lane_u64(umax, 0);
    r->umax = vgetq_lane_u64(umax, 1) > t.umax ? vgetq_lane_u64(umax, 1) : t.umax;
    if (i < n) {
        upq_minmax_i64(v + i, n - i, &t);
        if (t.smin < r->smin) r->smin = t.smin;
        if (t.smax > r->smax) r->smax = t.smax;
        if (t.umin < r->umin) r->umin = t.umin;
        if (t.umax > r->umax) r->umax = t.umax;
    }
}

/* The vector loop's bounds (a, b; nans NaNs) with those of the rest of the
 * values (the scalar kernel's), the NaNs of both counted. */
#define MINMAX_FINISH(name, T, scalar)                                                   \
    static size_t name(const T *v, size_t n, T a, T b, size_t nans, T *mn, T *mx)         \
    {                                                                                    \
        T tmn = 0, tmx = 0;                                                              \
        size_t tn = scalar(v, n, &tmn, &tmx);                                            \
        if (tn < n) {                                                                    \
            a = tmn < a ? tmn : a;                                                       \
            b = tmx > b ? tmx : b;                                                       \
        }                                                                                \
        *mn = a;                                                                         \
        *mx = b;                                                                         \
        return nans + tn;                                                                \
    }
MINMAX_FINISH(finish_f32, float, upq_minmax_f32)
MINMAX_FINISH(finish_f64, double, upq_minmax_f64)

#if UPQ_NEON_A64
/*
 * FMINNM/FMAXNM take the number when one side is NaN, so NaN lanes leave the
 * bounds alone; they are counted from the x == x mask. The bounds start at
 * +/-infinity, which any number replaces or equals.
 */
size_t upq_neon_minmax_f32(const float *v, size_t n, float *mn, float *mx)
{
    float32x4_t lo = vdupq_n_f32(__builtin_inff()), hi = vdupq_n_f32(-__builtin_inff());
    uint32x4_t nan = vdupq_n_u32(0);
    float a, b;
    size_t i = 0, nans;
    for (; i + 4 <= n; i += 4) {
        float32x4_t x = vld1q_f32(v + i);
        nan = vsubq_u32(nan, vmvnq_u32(vceqq_f32(x, x)));
        lo = vminnmq_f32(lo, x);
        hi = vmaxnmq_f32(hi, x);
    }
    nans = vaddvq_u32(nan);
    a = vminnmvq_f32(lo);
    b = vmaxnmvq_f32(hi);
    return finish_f32(v + i, n - i, a, b, nans, mn, mx);
}

size_t upq_neon_minmax_f64(const double *v, size_t n, double *mn, double *mx)
{
    float64x2_t lo = vdupq_n_f64(__builtin_inf()), hi = vdupq_n_f64(-__builtin_inf());
    uint64x2_t nan = vdupq_n_u64(0);
    double a, b;
    size_t i = 0, nans;
    for (; i + 2 <= n; i += 2) {
        float64x2_t x = vld1q_f64(v + i);
        nan = vsubq_u64(nan, vreinterpretq_u64_u32(vmvnq_u32(vreinterpretq_u32_u64(vceqq_f64(x, x)))));
        lo = vminnmq_f64(lo, x);
        hi = vmaxnmq_f64(hi, x);
    }
    nans = (size_t)vaddvq_u64(nan);
    a = vminnmvq_f64(lo);
    b = vmaxnmvq_f64(hi);
    return finish_f64(v + i, n - i, a, b, nans, mn, mx);
}

#else
/*
 * ARMv7 NEON float arithmetic flushes subnormals to zero and has no minNum,
 * so the bounds are found on the bits: a number's bits, with every bit but
 * the sign flipped when it is negative, order as signed integers like the
 * numbers (-0 just below +0), and the same map turns a key back. NaN lanes
 * (magnitude bits above infinity's) are counted and replaced by the largest
 * key for the minimum and the smallest for the maximum. The bounds start at
 * the keys of +/-infinity, as on AArch64.
 */
UPQ_NEON_INLINE int32x4_t key_f32(int32x4_t b)
{
    uint32x4_t neg = vreinterpretq_u32_s32(vshrq_n_s32(b, 31));
    return veorq_s32(b, vreinterpretq_s32_u32(vshrq_n_u32(neg, 1)));
}

UPQ_NEON_INLINE int64x2_t key_f64(int64x2_t b)
{
    uint64x2_t neg = vreinterpretq_u64_s64(vshrq_n_s64(b, 63));
    return veorq_s64(b, vreinterpretq_s64_u64(vshrq_n_u64(neg, 1)));
}

static float f32_of_key(int32_t k)
{
    union {
        uint32_t u;
        float f;
    } x;
    x.u = (uint32_t)k ^ (k < 0 ? 0x7FFFFFFFu : 0u);
    return x.f;
}

static double f64_of_key(int64_t k)
{
    union {
        uint64_t u;
        double d;
    } x;
    x.u = (uint64_t)k ^ (k < 0 ? 0x7FFFFFFFFFFFFFFFu : 0u);
    return x.d;
}

size_t upq_neon_minmax_f32(const float *v, size_t n, float *mn, float *mx)
{
    int32x4_t inf = vdupq_n_s32(0x7F800000), mag = vdupq_n_s32(INT32_MAX);
    int32x4_t big = mag, small = vdupq_n_s32(INT32_MIN);
    int32x4_t lo = inf, hi = vdupq_n_s32(INT32_MIN + 0x007FFFFF); /* key of -inf */
    uint32x4_t nan = vdupq_n_u32(0);
    float a, b;
    size_t i = 0, nans;
    for (; i + 4 <= n; i += 4) {
        int32x4_t x = vreinterpretq_s32_f32(vld1q_f32(v + i)); /* a load: no arithmetic */
        uint32x4_t isnan = vcgtq_s32(vandq_s32(x, mag), inf);
        int32x4_t k = key_f32(x);
        nan = vsubq_u32(nan, isnan);
        lo = vminq_s32(lo, vbslq_s32(isnan, big, k));
        hi = vmaxq_s32(hi, vbslq_s32(isnan, small, k));
    }
    nans = upq_v_addv_u32(nan);
    a = f32_of_key(upq_v_minv_s32(lo));
    b = f32_of_key(upq_v_maxv_s32(hi));
    return finish_f32(v + i, n - i, a, b, nans, mn, mx);
}

size_t upq_neon_minmax_f64(const double *v, size_t n, double *mn, double *mx)
{
    int64x2_t inf = vdupq_n_s64(0x7FF0000000000000), mag = vdupq_n_s64(INT64_MAX);
    int64x2_t big = mag, small = vdupq_n_s64(INT64_MIN);
    int64x2_t lo = inf, hi = vdupq_n_s64(INT64_MIN + 0x000FFFFFFFFFFFFF); /* key of -inf */
    uint64x2_t nan = vdupq_n_u64(0);
    double a, b;
    int64_t l0, l1;
    size_t i = 0, nans;
    for (; i + 2 <= n; i += 2) {
        int64x2_t x = vreinterpretq_s64_u8(vld1q_u8((const uint8_t *)(v + i)));
        uint64x2_t isnan = upq_v_clt_s64(inf, vandq_s64(x, mag));
        int64x2_t k = key_f64(x), kl = vbslq_s64(isnan, big, k), kh = vbslq_s64(isnan, small, k);
        nan = vsubq_u64(nan, isnan);
        lo = vbslq_s64(upq_v_clt_s64(kl, lo), kl, lo);
        hi = vbslq_s64(upq_v_clt_s64(hi, kh), kh, hi);
    }
    nans = (size_t)upq_v_addv_u64(nan);
    l0 = vgetq_lane_s64(lo, 0);
    l1 = vgetq_lane_s64(lo, 1);
    a = f64_of_key(l1 < l0 ? l1 : l0);
    l0 = vgetq_lane_s64(hi, 0);
    l1 = vgetq_lane_s64(hi, 1);
    b = f64_of_key(l1 > l0 ? l1 : l0);
    return finish_f64(v + i, n - i, a, b, nans, mn, mx);
}
#endif

#else
typedef int upq_neon_kernels_unused; /* an empty file is not C */
#endif
