/*
 * Scalar inner loops of the page decoders. See kernels.h for the contracts;
 * a SIMD build swaps these for its own and tests both on the same inputs.
 */
#include "upq_kernels.h"
#include "upq_port.h"

/* A switch's cases, one per bit width, each from the macro M: a loop the
 * compiler specialises to its constant width. */
#define WIDTHS_1_TO_16(M) \
    M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16)
#define WIDTHS_17_TO_32(M) \
    M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31) M(32)

#if defined(__OPTIMIZE_SIZE__)
#define UNPACK_UNROLLED 0
#else
#define UNPACK_UNROLLED 1
#endif
/* unrolled where the groups of 32 are (the generic loop keeps its loop) */
#if UNPACK_UNROLLED && (defined(__GNUC__) || defined(__clang__))
#define UNROLL_32 _Pragma("GCC unroll 32")
#else
#define UNROLL_32
#endif

/* 32 values of bw bits from `acc` (holding *have unread bits) and the words
 * at in, a word loaded only when the next value needs it. Returns where the
 * words go on. With bw a constant, the compiler resolves every refill and
 * shift. */
UPQ_INLINE const uint8_t *take32(const uint8_t *in, uint32_t *out, unsigned bw, uint32_t mask,
                                 uint64_t *acc, unsigned *have)
{
    unsigned i;
    UNROLL_32
    for (i = 0; i < 32; i++) {
        if (*have < bw) {
            *acc |= (uint64_t)upq_load_le32(in) << *have;
            in += 4;
            *have += 32;
        }
        out[i] = (uint32_t)*acc & mask;
        *acc >>= bw;
        *have -= bw;
    }
    return in;
}

static void unpack32_loop(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n)
{
    uint64_t acc;
    uint32_t mask;
    unsigned have;
    size_t i;

    mask = bw == 32 ? 0xFFFFFFFFu : ((uint32_t)1 << bw) - 1u;
    /* `acc` holds `have` unread bits. A word is loaded only when the next
     * value needs it, so loads run at most 31 bits ahead of the values
     * taken: groups of 32 values refill a 32-bit word at a time while the
     * values after the group still cover 32 bits; the rest refills
     * bytewise, touching nothing past the last value's byte. */
    acc = (uint64_t)(*in++ >> shift);
    have = 8u - shift;
    for (; n >= 32 && (n - 32) * bw >= 32; n -= 32, out += 32)
        in = take32(in, out, bw, mask, &acc, &have);
    for (i = 0; i < n; i++) {
        while (have < bw) {
            acc |= (uint64_t)*in++ << have;
            have += 8;
        }
        out[i] = (uint32_t)acc & mask;
        acc >>= bw;
        have -= bw;
    }
}

/*
 * Unrolled per-width unpacking of whole groups of 32 values (exactly bw
 * words) is about four times faster than the loop above but costs some
 * 20 KB of code, so builds optimised for size keep only the loop, except on
 * cores that load a word at any address (Cortex-M3/M4/M7): there groups of
 * 8 values (exactly bw bytes) of the widths up to UNPACK_GROUP8 take a load
 * and a bit-field extract each (3.5 instructions a value on Cortex-M4, where
 * the loop takes 23), for about 1.7 KB. Levels, dictionary indices of up to
 * 65,536 entries and most delta miniblocks have such widths.
 */
#define UNPACK_GROUP8 UPQ_UNPACK_GROUP8

#if UNPACK_UNROLLED

UPQ_INLINE void unpack32_group(const uint8_t *in, uint32_t *out, unsigned bw)
{
    uint64_t acc = 0;
    unsigned have = 0;
    (void)take32(in, out, bw, bw == 32 ? 0xFFFFFFFFu : ((uint32_t)1 << bw) - 1u, &acc, &have);
}

#define UNPACK_CASE(b)                                         \
    case b:                                                    \
        for (g = 0; g < groups; g++)                           \
            unpack32_group(in + g * 4u * (b), out + g * 32, b); \
        break;

static void unpack32_groups(const uint8_t *in, uint32_t *out, unsigned bw, size_t groups)
{
    size_t g;
    switch (bw) {
        WIDTHS_1_TO_16(UNPACK_CASE) WIDTHS_17_TO_32(UNPACK_CASE)
    default: break;
    }
}
#define GROUP_VALUES 32u
#define GROUP_MAX_BW 32u
/* bytes a group reads beyond its own bw * 4 */
#define GROUP_OVERREAD 0u
#endif

#if UNPACK_GROUP8
#if defined(__GNUC__) || defined(__clang__)
#define UNROLL_8 _Pragma("GCC unroll 8")
#else
#define UNROLL_8
#endif

/* Value k of the group lies in the word at byte k * bw / 8 (bw <= 25). */
UPQ_INLINE void unpack8_group(const uint8_t *in, uint32_t *out, unsigned bw)
{
    uint32_t mask = ((uint32_t)1 << bw) - 1u;
    unsigned k;
    UNROLL_8
    for (k = 0; k < 8; k++)
        out[k] = (upq_load_le32(in + k * bw / 8u) >> (k * bw % 8u)) & mask;
}

#define UNPACK8_CASE(b)                                 \
    case b:                                             \
        for (; in != end; in += (b), out += 8)          \
            unpack8_group(in, out, b);                  \
        break;

static void unpack32_groups(const uint8_t *in, uint32_t *out, unsigned bw, size_t groups)
{
    const uint8_t *end = in + groups * bw;
    switch (bw) {
        WIDTHS_1_TO_16(UNPACK8_CASE)
    default: break;
    }
}
/* DELTA_BINARY_PACKED INT64: a group's deltas unpacked and summed in
 * registers. min_delta + delta is a 32-bit signed sum (the caller keeps
 * min_delta in UPQ_DELTA8_MIN..UPQ_DELTA8_MAX), so each value is one 64-bit
 * addition of a sign-extended word: 5 instructions a value on Cortex-M4 at
 * the widths up to 4, whose group is one word loaded once, 6 above (12
 * unpacking and then summing). */
UPQ_INLINE uint64_t delta8_group(const uint8_t *in, uint64_t *out, unsigned bw, uint32_t min_delta,
                                 uint64_t last)
{
    uint32_t mask = ((uint32_t)1 << bw) - 1u, w0 = upq_load_le32(in), x;
    unsigned k;
    UNROLL_8
    for (k = 0; k < 8; k++) {
        if (bw <= 4u)
            x = (w0 >> (k * bw)) & mask;
        else
            x = (upq_load_le32(in + k * bw / 8u) >> (k * bw % 8u)) & mask;
        last += (uint64_t)(int64_t)(int32_t)(min_delta + x);
        out[k] = last;
    }
    return last;
}

#define DELTA8_CASE(b)                                                  \
    case b:                                                             \
        for (; in != end; in += (b), out += 8)                          \
            last = delta8_group(in, out, b, (uint32_t)min_delta, last); \
        break;

uint64_t upq_delta8_sum64(const uint8_t *in, unsigned bw, size_t groups, uint64_t *out,
                          int32_t min_delta, uint64_t last)
{
    const uint8_t *end = in + groups * bw;
    switch (bw) {
        WIDTHS_1_TO_16(DELTA8_CASE)
    default: break;
    }
    return last;
}

#define GROUP_VALUES 8u
#define GROUP_MAX_BW UNPACK_GROUP8
/* the last value's word reaches up to 3 bytes past the group's bw bytes */
#define GROUP_OVERREAD 3u
#endif

void upq_unpack32(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n)
{
    upq_unpack32_in(in, shift, out, bw, n, (shift + n * bw + 7u) / 8u);
}

void upq_unpack32_in(const uint8_t *in, unsigned shift, uint32_t *out, unsigned bw, size_t n,
                     size_t avail)
{
    (void)avail;
    if (n == 0)
        return;
    if (bw == 0) {
        upq_fill_u32(out, 0, n);
        return;
    }
#if UNPACK_UNROLLED || UNPACK_GROUP8
    if (bw <= GROUP_MAX_BW) {
        size_t groups;
        if (shift != 0) {
            /* loop up to the next value that starts on a byte: within 8
             * values when there is one (decoders only start where there is) */
            size_t head = 1;
            while (head < 8 && (shift + head * bw) % 8u != 0)
                head++;
            if (head >= n || (shift + head * bw) % 8u != 0) {
                unpack32_loop(in, shift, out, bw, n);
                return;
            }
            unpack32_loop(in, shift, out, bw, head);
            avail -= (shift + head * bw) / 8u;
            in += (shift + head * bw) / 8u;
            out += head;
            n -= head;
        }
        /* whole groups whose reads stay inside the bytes that may be read */
        groups = n / GROUP_VALUES;
#if GROUP_OVERREAD
        if (avail < groups * bw + GROUP_OVERREAD)
            groups = avail < GROUP_OVERREAD ? 0 : (avail - GROUP_OVERREAD) / bw;
#endif
        if (groups) {
            unpack32_groups(in, out, bw, groups);
            in += groups * (GROUP_VALUES / 8u) * bw;
            out += groups * GROUP_VALUES;
            n -= groups * GROUP_VALUES;
        }
        if (n)
            unpack32_loop(in, 0, out, bw, n);
        return;
    }
#endif
    unpack32_loop(in, shift, out, bw, n);
}

/* Widths above 32 are rare (random 64-bit deltas), so this favours
 * simplicity: each value is gathered from the at most nine bytes it spans. */
void upq_unpack64(const uint8_t *in, unsigned shift, uint64_t *out, unsigned bw, size_t n)
{
    uint64_t mask = bw == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bw) - 1u;
    size_t i, bit = shift;

    if (bw == 0) {
        for (i = 0; i < n; i++)
            out[i] = 0;
        return;
    }
    for (i = 0; i < n; i++, bit += bw) {
        const uint8_t *p = in + bit / 8u;
        unsigned s = (unsigned)(bit % 8u);
        unsigned nbytes = (s + bw + 7u) / 8u, k;
        uint64_t v = (uint64_t)(p[0] >> s);
        for (k = 1; k < nbytes; k++) {
            unsigned at = 8u * k - s;
            if (at < 64)
                v |= (uint64_t)p[k] << at;
        }
        out[i] = v & mask;
    }
}

#define UPQ_FILL(name, T)                          \
    void name(T *out, T v, size_t n)               \
    {                                              \
        size_t i;                                  \
        for (i = 0; i < n; i++)                    \
            out[i] = v;                            \
    }
UPQ_FILL(upq_fill_u8, uint8_t)
UPQ_FILL(upq_fill_u16, uint16_t)
UPQ_FILL(upq_fill_u32, uint32_t)
UPQ_FILL(upq_fill_u64, uint64_t)
UPQ_FILL(upq_fill_f32, float)
UPQ_FILL(upq_fill_f64, double)

void upq_fill_i96(upq_int96 *out, const upq_int96 *v, size_t n)
{
    size_t i;
    unsigned k;
    for (i = 0; i < n; i++)
        for (k = 0; k < 12; k++)
            out[i].b[k] = v->b[k];
}

void upq_fill_bytes(upq_bytes *out, upq_bytes v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        out[i].ptr = v.ptr;
        out[i].len = v.len;
    }
}

/* The prefix sums of DELTA_BINARY_PACKED, one per width: each value is the
 * last plus min_delta plus its unpacked delta, wrapping as the format says. */
#define UPQ_DELTA_SUM(name, T)                                                  \
    T name(T *out, const T *d, size_t n, T min_delta, T last)                   \
    {                                                                           \
        size_t i;                                                               \
        for (i = 0; i < n; i++) {                                               \
            last += min_delta + d[i];                                           \
            out[i] = last;                                                      \
        }                                                                       \
        return last;                                                            \
    }
UPQ_DELTA_SUM(upq_delta_sum32, uint32_t)
UPQ_DELTA_SUM(upq_delta_sum64, uint64_t)

uint64_t upq_delta_sum64_32(uint64_t *out, const uint32_t *d, size_t n, uint64_t min_delta,
                            uint64_t last)
{
    /* two a step through pointers: on 32-bit targets each value is four
     * 32-bit adds, and the loop's own cost was as much again */
    const uint32_t *e2 = d + (n & ~(size_t)1), *e = d + n;
    for (; d != e2; d += 2, out += 2) {
        uint64_t a = last + min_delta + d[0];
        last = a + min_delta + d[1];
        out[0] = a;
        out[1] = last;
    }
    if (d != e) {
        last += min_delta + *d;
        *out = last;
    }
    return last;
}

/* The sum of n deltas (a skip over DELTA_BINARY_PACKED values). */
#define UPQ_SUM(name, T)                                                        \
    uint64_t name(const T *d, size_t n)                                         \
    {                                                                           \
        uint64_t s = 0;                                                         \
        size_t i;                                                               \
        for (i = 0; i < n; i++)                                                 \
            s += d[i];                                                          \
        return s;                                                               \
    }
UPQ_SUM(upq_sum32, uint32_t)
UPQ_SUM(upq_sum64, uint64_t)

#if UPQ_UNALIGNED_LOAD32 && UPQ_NATIVE_LE && UINTPTR_MAX == 0xFFFFFFFFu && UPQ_FAST_KERNELS && \
    defined(__GNUC__)
/* Four values from a word of each stream: a 4 x 4 byte transpose in
 * registers (9 instructions a value on Cortex-M4, 12 byte by byte). */
typedef uint32_t __attribute__((__may_alias__)) bss_word;
static size_t bss_gather4_words(const uint8_t *s0, size_t stride, size_t n, uint8_t *out)
{
    const uint8_t *s1 = s0 + stride, *s2 = s1 + stride, *s3 = s2 + stride;
    const uint32_t m = 0x00FF00FFu;
    size_t i;
    if ((uintptr_t)out & 3u)
        return 0;
    for (i = 0; i + 4 <= n; i += 4, out += 16) {
        uint32_t a = upq_load_le32(s0 + i), b = upq_load_le32(s1 + i);
        uint32_t c = upq_load_le32(s2 + i), e = upq_load_le32(s3 + i);
        /* bytes 0 and 2 of each value's two low streams side by side, then 1 and 3 */
        uint32_t ab02 = (a & m) | (b & m) << 8, ab13 = (a >> 8 & m) | (b & ~m);
        uint32_t ce02 = (c & m) | (e & m) << 8, ce13 = (c >> 8 & m) | (e & ~m);
        bss_word *o = (bss_word *)(void *)out;
        o[0] = (ab02 & 0xFFFFu) | ce02 << 16;
        o[1] = (ab13 & 0xFFFFu) | ce13 << 16;
        o[2] = ab02 >> 16 | (ce02 & 0xFFFF0000u);
        o[3] = ab13 >> 16 | (ce13 & 0xFFFF0000u);
    }
    return i;
}
#define BSS_WORDS 1
#else
#define BSS_WORDS 0
#endif

void upq_bss_gather(const uint8_t *in, size_t stride, size_t width, size_t n, uint8_t *out)
{
    size_t i, k;
    if (width == 4) {
        const uint8_t *s0 = in, *s1 = in + stride, *s2 = s1 + stride, *s3 = s2 + stride;
        i = 0;
#if BSS_WORDS
        i = bss_gather4_words(in, stride, n, out);
        out += 4 * i;
#endif
        for (; i < n; i++, out += 4) {
            out[0] = s0[i];
            out[1] = s1[i];
            out[2] = s2[i];
            out[3] = s3[i];
        }
        return;
    }
    /* stream by stream: sequential reads, strided writes into a small buffer */
    for (k = 0; k < width; k++) {
        const uint8_t *s = in + k * stride;
        uint8_t *o = out + k;
        for (i = 0; i < n; i++, o += width)
            *o = s[i];
    }
}

void upq_bss_scatter(const uint8_t *in, size_t width, size_t n, uint8_t *out, size_t stride)
{
    size_t i, k;
    for (k = 0; k < width; k++) {
        const uint8_t *s = in + k;
        uint8_t *o = out + k * stride;
        for (i = 0; i < n; i++, s += width)
            o[i] = *s;
    }
}

void upq_bss_keys32(const void *in, size_t n, uint8_t *out, int32_t *kmn, int32_t *kmx)
{
    size_t i;
    int32_t mn = INT32_MAX, mx = INT32_MIN;
    for (i = 0; i < n; i++) {
        uint32_t u;
        int32_t k;
        upq_memcpy(&u, (const uint8_t *)in + 4 * i, 4);
        out[i] = (uint8_t)u;
        out[n + i] = (uint8_t)(u >> 8);
        out[2 * n + i] = (uint8_t)(u >> 16);
        out[3 * n + i] = (uint8_t)(u >> 24);
        k = UPQ_F32_KEY(u);
        mn = k < mn ? k : mn;
        mx = k > mx ? k : mx;
    }
    *kmn = mn;
    *kmx = mx;
}

uint32_t upq_max_index(const uint32_t *idx, size_t n)
{
    /* four independent maxima: no chain of dependent compares */
    uint32_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    size_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        m0 = idx[i] > m0 ? idx[i] : m0;
        m1 = idx[i + 1] > m1 ? idx[i + 1] : m1;
        m2 = idx[i + 2] > m2 ? idx[i + 2] : m2;
        m3 = idx[i + 3] > m3 ? idx[i + 3] : m3;
    }
    for (; i < n; i++)
        m0 = idx[i] > m0 ? idx[i] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

#define UPQ_GATHER(name, T)                                             \
    void name(T *out, const T *dict, const uint32_t *idx, size_t n)     \
    {                                                                   \
        size_t i;                                                       \
        for (i = 0; i < n; i++)                                         \
            out[i] = dict[idx[i]];                                      \
    }
UPQ_GATHER(upq_gather_u8, uint8_t)
UPQ_GATHER(upq_gather_u32, uint32_t)
UPQ_GATHER(upq_gather_u64, uint64_t)
UPQ_GATHER(upq_gather_f32, float)
UPQ_GATHER(upq_gather_f64, double)

/* The gathers with their bound: a compare and a branch a value, where the
 * bound first (upq_max_index) reads every index twice. */
#define UPQ_GATHER_IN(name, T)                                                         \
    size_t name(T *out, const T *dict, uint32_t dict_n, const uint32_t *idx, size_t n)     \
    {                                                                                  \
        const uint32_t *p = idx, *end4 = idx + (n & ~(size_t)3), *end = idx + n;       \
        /* four at a time: the loop's own cost spread (6 instructions a value on     \
         * Cortex-M4, 9 one at a time) */                                            \
        for (; p != end4; p += 4, out += 4) {                                          \
            uint32_t a = p[0], b = p[1], c = p[2], e = p[3];                           \
            if (a >= dict_n || b >= dict_n || c >= dict_n || e >= dict_n)              \
                break;                                                                 \
            out[0] = dict[a];                                                          \
            out[1] = dict[b];                                                          \
            out[2] = dict[c];                                                          \
            out[3] = dict[e];                                                          \
        }                                                                              \
        for (; p != end && *p < dict_n; p++)                                           \
            *out++ = dict[*p];                                                         \
        return (size_t)(p - idx);                                                      \
    }
UPQ_GATHER_IN(upq_gather_u8_in, uint8_t)
UPQ_GATHER_IN(upq_gather_u32_in, uint32_t)
UPQ_GATHER_IN(upq_gather_u64_in, uint64_t)
UPQ_GATHER_IN(upq_gather_f32_in, float)
UPQ_GATHER_IN(upq_gather_f64_in, double)
UPQ_GATHER_IN(upq_gather_bytes_in, upq_bytes)

size_t upq_gather_i96_in(upq_int96 *out, const upq_int96 *dict, uint32_t dict_n,
                         const uint32_t *idx, size_t n)
{
    size_t i;
    for (i = 0; i < n && idx[i] < dict_n; i++)
        upq_gather_i96(out + i, dict, idx + i, 1);
    return i;
}

void upq_gather_i96(upq_int96 *out, const upq_int96 *dict, const uint32_t *idx, size_t n)
{
    size_t i;
    unsigned k;
    for (i = 0; i < n; i++) {
        const upq_int96 *s = &dict[idx[i]];
        for (k = 0; k < 12; k++)
            out[i].b[k] = s->b[k];
    }
}

void upq_gather_bytes(upq_bytes *out, const upq_bytes *dict, const uint32_t *idx, size_t n)
{
    size_t i;
    /* whole structs: one 16-byte load and store each on 64-bit targets,
     * where member by member takes two stores (the limit here) */
    for (i = 0; i < n; i++)
        out[i] = dict[idx[i]];
}

#define UPQ_MINMAX_INT(name, T, U, R)                    \
    void name(const T *v, size_t n, R *r)                \
    {                                                    \
        size_t i;                                        \
        r->smin = r->smax = v[0];                        \
        r->umin = r->umax = (U)v[0];                     \
        for (i = 1; i < n; i++) {                        \
            T x = v[i];                                  \
            if (x < r->smin) r->smin = x;                \
            if (x > r->smax) r->smax = x;                \
            if ((U)x < r->umin) r->umin = (U)x;          \
            if ((U)x > r->umax) r->umax = (U)x;          \
        }                                                \
    }
UPQ_MINMAX_INT(upq_minmax_i32, int32_t, uint32_t, upq_minmax32)
UPQ_MINMAX_INT(upq_minmax_i64, int64_t, uint64_t, upq_minmax64)

#define UPQ_MINMAX_FLOAT(name, T)                               \
    size_t name(const T *v, size_t n, T *mn, T *mx)             \
    {                                                           \
        size_t i, nans = 0;                                     \
        int seen = 0;                                           \
        for (i = 0; i < n; i++) {                               \
            T x = v[i];                                         \
            if (x != x) {                                       \
                nans++;                                         \
                continue;                                       \
            }                                                   \
            if (!seen || x < *mn) *mn = x;                      \
            if (!seen || x > *mx) *mx = x;                      \
            seen = 1;                                           \
        }                                                       \
        return nans;                                            \
    }
UPQ_MINMAX_FLOAT(upq_minmax_f32, float)
UPQ_MINMAX_FLOAT(upq_minmax_f64, double)
