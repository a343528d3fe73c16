/*
 * The RLE/bit-packing hybrid (levels, dictionary indices, RLE booleans),
 * choosing runs exactly as parquet-cpp/Arrow's RleEncoder does, so the bytes
 * match theirs:
 *
 *   - values are looked at in groups of 8, counted from the start and again
 *     from the end of each RLE run;
 *   - a group of 8 equal values starts an RLE run, which lasts as long as
 *     the value repeats (and ends the bit-packed run before it, if any);
 *   - other groups are bit-packed; a bit-packed run has a one-byte header,
 *     so it ends after 63 groups;
 *   - a last group of fewer than 8 values is an RLE run when its values are
 *     all equal and no bit-packed run is open, else it is zero-padded to 8
 *     and bit-packed.
 *
 * A bit-packed run is a stretch of the input, so it is packed straight from
 * the caller's array (booleans, whose input bytes may hold any nonzero value
 * for true, through their own packer).
 */
#include "encode.h"
#include "common/upq_internal.h"

#define MAX_GROUPS 63u           /* bit-packed groups per one-byte header */
#define MAX_RUN 0x7FFFFFFFu      /* the format's longest run */

/* Input kinds: bytes (normalised to 0 / 1), uint16, uint32, and levels
 * packed 1, 2, 4 or 8 bits each (the writer's staging, upq_lev_get). */
enum { IN_BOOL, IN_U16, IN_U32, IN_P0, IN_P1, IN_P2, IN_P3 };

/* The loads out of line in a size-optimised build (-Os: 0.26 KB less on
 * Cortex-M4, a call per value), inline otherwise. */
#ifdef __OPTIMIZE_SIZE__
#define RLE_FN static
#else
#define RLE_FN UPQ_INLINE
#endif

RLE_FN uint32_t load(const void *v, size_t i, int kind)
{
    if (kind == IN_BOOL)
        return ((const uint8_t *)v)[i] != 0;
    if (kind == IN_U16)
        return ((const uint16_t *)v)[i];
    if (kind >= IN_P0)
        return upq_lev_get((const uint8_t *)v, (uint32_t)i, (unsigned)(kind - IN_P0));
    return ((const uint32_t *)v)[i];
}

RLE_FN int all_equal(const void *v, size_t i, size_t k, int kind)
{
    uint32_t first = load(v, i, kind);
    size_t j;
    for (j = 1; j < k; j++)
        if (load(v, i + j, kind) != first)
            return 0;
    return 1;
}

/* Largest value in v[i..i+k) as an OR: above the width iff any value is. */
UPQ_INLINE uint32_t or_all(const void *v, size_t i, size_t k, int kind)
{
    uint32_t acc = 0;
    size_t j;
    if (kind == IN_BOOL)
        return k ? 1u : 0u; /* normalised: never above width 1 */
    for (j = 0; j < k; j++)
        acc |= load(v, i + j, kind);
    return acc;
}

static void put_rle_run(upq_wbuf *w, uint32_t value, size_t count, unsigned bw)
{
    uint8_t tmp[10 + 4];
    unsigned k = (unsigned)upq_tc_varint(tmp, (uint64_t)count << 1), b, i;
    uint8_t *at;
    for (b = 0; b < (bw + 7u) / 8u; b++)
        tmp[k++] = (uint8_t)(value >> (8u * b));
    at = upq_wb_take(w, k);
    if (at)
        for (i = 0; i < k; i++)
            at[i] = tmp[i];
}

/* Ends the open bit-packed run of `groups` groups: its header (NULL when
 * the output had no room, which the caller's finish reports). */
static void run_close(uint8_t *header, unsigned groups)
{
    if (header)
        *header = (uint8_t)(groups << 1 | 1u);
}

/* Opens a bit-packed run: its header byte, taken now and written when the
 * run closes. */
UPQ_INLINE uint8_t *run_open(upq_wbuf *w, unsigned *groups, int *open)
{
    *groups = 0;
    *open = 1;
    return upq_wb_take(w, 1);
}

/* g more groups in the open bit-packed run: 1 while it stays open, 0 when
 * it is full (its header written). */
static int run_more(uint8_t *header, unsigned *groups, size_t g)
{
    *groups += (unsigned)g;
    if (*groups < MAX_GROUPS)
        return 1;
    run_close(header, *groups);
    return 0;
}

/* Packs n (a multiple of 8) values from v[i..]; the tail group arrives in
 * tmp, already zero-padded. */
UPQ_INLINE void pack_from(const void *v, size_t i, size_t n, unsigned bw, int kind, uint8_t *out)
{
    if (kind == IN_BOOL) {
        upq_pack_bool((const uint8_t *)v + i, n, out);
    } else if (kind == IN_U16) {
        upq_pack16((const uint16_t *)v + i, n, bw, out);
    } else if (kind == IN_U32) {
        upq_pack32((const uint32_t *)v + i, n, bw, out);
    } else {
        /* packed levels: widened a group of eight at a time */
        size_t g, j;
        for (g = 0; g < n; g += 8) {
            uint32_t t32[8];
            for (j = 0; j < 8; j++)
                t32[j] = load(v, i + g + j, kind);
            upq_pack32(t32, 8, bw, out + (g / 8u) * bw);
        }
    }
}

/* Level runs a byte at a time, unless the build is for size without the
 * flash-for-speed kernels (the -min and logger sets: 94 bytes there). */
#if UPQ_FAST_KERNELS || !defined(__OPTIMIZE_SIZE__)
#define PACKED_RUNS 1
#else
#define PACKED_RUNS 0
#endif

#if PACKED_RUNS
/* Where a run of `value` that reaches level j of packed levels ends (at
 * most at `end`): a byte of equal levels at a time, from a j on a byte's
 * first level (runs start at multiples of 8: after a run's first group, j
 * is one); the caller goes on level by level. Levels of a page are mostly
 * one long run (no nulls: every level 1): level by level, that cost about
 * 40 instructions a level on Cortex-M4. */
static size_t packed_run_end(const uint8_t *p, size_t j, size_t end, uint32_t value, unsigned lg)
{
    size_t per = (size_t)8u >> lg;
    uint8_t pat = (uint8_t)(value * (0xFFu / ((1u << (1u << lg)) - 1u)));
    if (j & (per - 1u))
        return j;
    while (end - j >= per && p[j / per] == pat)
        j += per;
    return j;
}
#endif

/* One body for the three input kinds in a size-optimised build (-Os: 0.8 KB
 * less on Cortex-M4, a branch on the kind per value); a copy per kind
 * otherwise. */
#ifdef __OPTIMIZE_SIZE__
#define HYBRID_FN static
#else
#define HYBRID_FN UPQ_INLINE
#endif
HYBRID_FN upq_status hybrid(upq_wbuf *w, const void *v, size_t n, unsigned bw, int kind)
{
    uint32_t limit = bw >= 32 ? 0xFFFFFFFFu : ((uint32_t)1 << bw) - 1u;
    uint8_t *header = (uint8_t *)0; /* of the open bit-packed run */
    unsigned groups = 0;            /* in the open bit-packed run */
    int open = 0;
    size_t i = 0;

    while (i < n) {
        size_t left = n - i, g;
        uint8_t *at;

        if (left >= 8 ? all_equal(v, i, 8, kind) : (!open && all_equal(v, i, left, kind))) {
            uint32_t value = load(v, i, kind);
            size_t j = i + (left >= 8 ? 8u : left);
            if (value > limit)
                return UPQ_ERR_INVAL;
            if (open) {
                run_close(header, groups);
                open = 0;
            }
#if PACKED_RUNS
            if (kind >= IN_P0)
                j = packed_run_end((const uint8_t *)v, j, n - i > MAX_RUN ? i + MAX_RUN : n,
                                   value, (unsigned)(kind - IN_P0));
#endif
            while (j < n && j - i < MAX_RUN && load(v, j, kind) == value)
                j++;
            put_rle_run(w, value, j - i, bw);
            i = j;
            continue;
        }
        if (!open)
            header = run_open(w, &groups, &open);
        /* the whole groups that follow, up to the next group of equal values */
        for (g = 0; groups + g < MAX_GROUPS && left - 8u * g >= 8; g++)
            if (g > 0 && all_equal(v, i + 8u * g, 8, kind))
                break;
#ifdef __OPTIMIZE_SIZE__
        /* one path for whole groups and the zero-padded last one: each
         * group widened and packed on its own */
        {
            size_t cnt = g > 0 ? 8u * g : left, k;
            if (g == 0)
                g = 1;
            if (or_all(v, i, cnt, kind) > limit)
                return UPQ_ERR_INVAL;
            at = upq_wb_take(w, g * bw);
            for (k = 0; at && k < g; k++) {
                uint32_t t32[8];
                size_t j;
                for (j = 0; j < 8; j++)
                    t32[j] = 8u * k + j < cnt ? load(v, i + 8u * k + j, kind) : 0u;
                upq_pack32(t32, 8, bw, at + k * bw);
            }
            i += cnt;
        }
#else
        if (g > 0) {
            if (or_all(v, i, 8u * g, kind) > limit)
                return UPQ_ERR_INVAL;
            at = upq_wb_take(w, g * bw);
            if (at)
                pack_from(v, i, 8u * g, bw, kind, at);
            i += 8u * g;
        } else {
            /* the last values, padded with zeros */
            uint32_t t32[8];
            size_t j;
            /* a loop, not an initialiser: compilers turn those into memset */
            for (j = 0; j < 8; j++)
                t32[j] = j < left ? load(v, i + j, kind) : 0u;
            if (or_all(t32, 0, 8, IN_U32) > limit)
                return UPQ_ERR_INVAL;
            at = upq_wb_take(w, bw);
            if (at)
                upq_pack32(t32, 8, bw, at);
            g = 1;
            i = n;
        }
#endif
        open = run_more(header, &groups, g);
    }
    if (open)
        run_close(header, groups);
    return UPQ_OK;
}

upq_status upq_enc_hybrid_bool(upq_wbuf *w, const uint8_t *v, size_t n)
{
    return hybrid(w, v, n, 1, IN_BOOL);
}

upq_status upq_enc_hybrid16(upq_wbuf *w, const uint16_t *v, size_t n, unsigned bit_width)
{
    return hybrid(w, v, n, bit_width, IN_U16);
}

upq_status upq_enc_hybrid32(upq_wbuf *w, const uint32_t *v, size_t n, unsigned bit_width)
{
    return hybrid(w, v, n, bit_width, IN_U32);
}

#if PACKED_RUNS
/* k <= 8 levels of one bit from level i of p (the staging's order, the
 * first in the lowest bit), zeros above them: a group as its bit-packed
 * byte. Reads no byte past level i + k - 1. */
static uint32_t bits_at(const uint8_t *p, size_t i, size_t k)
{
    size_t b = i >> 3;
    unsigned s = (unsigned)(i & 7u);
    uint32_t x = (uint32_t)p[b] >> s;
    if (s + k > 8u)
        x |= (uint32_t)p[b + 1] << (8u - s);
    return x & ((1u << k) - 1u);
}

/* hybrid() for levels of one bit at bit width 1 (the levels of an optional
 * column without nesting): the same runs, chosen by the same rules, but a
 * group is read as its byte and a bit-packed group is that byte, where
 * hybrid() takes each level on its own (about 40 instructions a level on
 * Cortex-M4). */
static upq_status hybrid_bits(upq_wbuf *w, const uint8_t *v, size_t n)
{
    uint8_t *header = (uint8_t *)0;
    unsigned groups = 0;
    int open = 0;
    size_t i = 0;
    while (i < n) {
        size_t left = n - i, k = left >= 8 ? 8u : left, g;
        uint32_t x = bits_at(v, i, k), full = (1u << k) - 1u;
        uint8_t *at;
        if ((x == 0 || x == full) && (left >= 8 || !open)) {
            uint32_t value = x & 1u;
            uint8_t pat = (uint8_t)(value ? 0xFFu : 0u);
            size_t j = i + k, end = n - i > MAX_RUN ? i + MAX_RUN : n;
            if (open) {
                run_close(header, groups);
                open = 0;
            }
            while (j < end && bits_at(v, j, 1) == value) {
                j++;
                if (!(j & 7u))
                    while (end - j >= 8 && v[j >> 3] == pat)
                        j += 8;
            }
            put_rle_run(w, value, j - i, 1);
            i = j;
            continue;
        }
        if (!open)
            header = run_open(w, &groups, &open);
        for (g = 0; groups + g < MAX_GROUPS && left - 8u * g >= 8; g++) {
            uint32_t y = bits_at(v, i + 8u * g, 8);
            if (g > 0 && (y == 0 || y == 0xFFu))
                break;
        }
        if (g == 0) {
            /* the last values, padded with zeros */
            at = upq_wb_take(w, 1);
            if (at)
                *at = (uint8_t)x;
            g = 1;
            i = n;
        } else {
            size_t q;
            at = upq_wb_take(w, g);
            for (q = 0; at && q < g; q++)
                at[q] = (uint8_t)bits_at(v, i + 8u * q, 8);
            i += 8u * g;
        }
        open = run_more(header, &groups, g);
    }
    if (open)
        run_close(header, groups);
    return UPQ_OK;
}
#endif

upq_status upq_enc_hybrid_levels(upq_wbuf *w, const uint8_t *v, size_t n, unsigned lg, unsigned bit_width)
{
#if PACKED_RUNS
    if (lg == 0 && bit_width == 1)
        return hybrid_bits(w, v, n);
#endif
    return hybrid(w, v, n, bit_width, IN_P0 + (int)lg);
}
