/*
 * The delta encodings: DELTA_BINARY_PACKED (INT32, INT64), and
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, whose lengths are
 * DELTA_BINARY_PACKED sections of INT32.
 *
 * Blocks are laid out as Arrow and parquet-java write them: the min delta of
 * the block's own deltas, the minimal bit width per miniblock, the last
 * miniblock zero-padded to full size, and in the last block the unused
 * miniblocks with width 0 and no data. All arithmetic is unsigned, so deltas
 * wrap around in 32 or 64 bits as the format asks; signed order (for the min
 * and max deltas) comes from flipping the sign bit.
 *
 * A block is encoded in two passes over its values: the first finds the min
 * delta and each miniblock's largest delta (so the block's size is known and
 * it is skipped whole when it does not fit), the second packs. No buffer
 * larger than one miniblock is needed for that.
 */
#include "encode.h"
#include "common/upq_internal.h"

#if UPQ_WITH_DELTA

#define MAX_PER 32u /* values per miniblock this encoder supports */
#define SIGN32 0x80000000u
#define SIGN64 0x8000000000000000u

/* Writes a block's min delta and widths (0 for unused miniblocks); returns
 * where the miniblocks go. */
static uint8_t *block_head(upq_wbuf *w, uint64_t zz_min, const unsigned *bw, unsigned minis,
                           unsigned per)
{
    size_t size = upq_tc_varint_len(zz_min) + minis;
    unsigned m;
    uint8_t *at;
    for (m = 0; m < minis; m++)
        size += (size_t)per / 8u * bw[m];
    at = upq_wb_take(w, size);
    if (!at)
        return at;
    at += upq_tc_varint(at, zz_min);
    for (m = 0; m < minis; m++)
        *at++ = (uint8_t)bw[m];
    return at;
}

/* Where block32 takes its values: an array, or the length sequence `kind`
 * (byte arrays below) made a miniblock at a time, so that no block of them
 * is kept on the stack. */
typedef struct src32 {
    const uint32_t *v;  /* NULL: lengths of b */
    const upq_bytes *b;
    int kind;
} src32;

static void seq_fill(int kind, const upq_bytes *v, size_t from, size_t k, uint32_t *out);

/* Values [from, from + k) of s into out. */
static void src_get(const src32 *s, size_t from, size_t k, uint32_t *out)
{
    size_t j;
    if (!s->v) {
        seq_fill(s->kind, s->b, from, k, out);
        return;
    }
    for (j = 0; j < k; j++)
        out[j] = s->v[from + j];
}

/* One block: the k (1..block) values of s from `from` on, which follow
 * *prev; *prev becomes the last of them. Returns their sum. */
static uint64_t block32(upq_wbuf *w, const src32 *s, size_t from, size_t k, uint32_t *prev,
                        unsigned per, unsigned minis)
{
    uint32_t hi[UPQ_DELTA_MINIS], tmp[MAX_PER], lo = 0xFFFFFFFFu, p = *prev, min, last;
    unsigned bw[UPQ_DELTA_MINIS], used = (unsigned)((k + per - 1u) / per), m;
    uint64_t sum = 0;
    size_t j;
    uint8_t *at;

    /* every entry, the unused ones (no values) left 0: the compiler then
     * sees hi[] set wherever it is read (gcc for 32-bit ARM did not) */
    for (m = 0; m < UPQ_DELTA_MINIS; m++) {
        size_t base = (size_t)m * per, cnt = m < used ? (k - base < per ? k - base : per) : 0u;
        uint32_t mhi = 0;
        src_get(s, from + base, cnt, tmp);
        for (j = 0; j < cnt; j++) {
            uint32_t f = (tmp[j] - p) ^ SIGN32;
            p = tmp[j];
            sum += p;
            lo = f < lo ? f : lo;
            mhi = f > mhi ? f : mhi;
        }
        hi[m] = mhi;
    }
    last = p;
    for (m = 0; m < UPQ_DELTA_MINIS; m++)
        bw[m] = m < used ? upq_bit_width32(hi[m] - lo) : 0u;
    min = lo ^ SIGN32;
    at = block_head(w, (uint64_t)((min << 1) ^ (0u - (min >> 31))), bw, minis, per);
    p = *prev;
    for (m = 0; at && m < used; m++) {
        size_t base = (size_t)m * per, cnt = k - base < per ? k - base : per;
        src_get(s, from + base, cnt, tmp);
        for (j = 0; j < cnt; j++) {
            uint32_t x = tmp[j];
            tmp[j] = x - p - min;
            p = x;
        }
        for (; j < per; j++)
            tmp[j] = 0;
        upq_pack32(tmp, per, bw[m], at);
        at += (size_t)per / 8u * bw[m];
    }
    *prev = last;
    return sum;
}

static void block64(upq_wbuf *w, const uint64_t *v, size_t k, uint64_t prev, unsigned per,
                    unsigned minis)
{
    uint64_t hi[UPQ_DELTA_MINIS], tmp[MAX_PER], lo = ~(uint64_t)0, p = prev, min;
    unsigned bw[UPQ_DELTA_MINIS], used = (unsigned)((k + per - 1u) / per), m;
    size_t j;
    uint8_t *at;

    /* every entry, the unused ones (no values) left 0: the compiler then
     * sees hi[] set wherever it is read (gcc for 32-bit ARM did not) */
    for (m = 0; m < UPQ_DELTA_MINIS; m++) {
        size_t end = k < (size_t)(m + 1u) * per ? k : (size_t)(m + 1u) * per;
        uint64_t mhi = 0;
        for (j = (size_t)m * per; j < end; j++) {
            uint64_t f = (v[j] - p) ^ SIGN64;
            p = v[j];
            lo = f < lo ? f : lo;
            mhi = f > mhi ? f : mhi;
        }
        hi[m] = mhi;
    }
    for (m = 0; m < UPQ_DELTA_MINIS; m++)
        bw[m] = m < used ? upq_bit_width64(hi[m] - lo) : 0u;
    min = lo ^ SIGN64;
    at = block_head(w, (min << 1) ^ (0u - (min >> 63)), bw, minis, per);
    if (!at)
        return;
    p = prev;
    for (m = 0; m < used; m++) {
        size_t base = (size_t)m * per, cnt = k - base < per ? k - base : per;
        for (j = 0; j < cnt; j++) {
            tmp[j] = v[base + j] - p - min;
            p = v[base + j];
        }
        for (; j < per; j++)
            tmp[j] = 0;
        upq_pack64(tmp, per, bw[m], at);
        at += (size_t)per / 8u * bw[m];
    }
}

static void dbp_header(upq_wbuf *w, unsigned block, unsigned minis, size_t n, uint64_t zz_first)
{
    upq_wb_uleb(w, block);
    upq_wb_uleb(w, minis);
    upq_wb_uleb(w, n);
    upq_wb_uleb(w, zz_first);
}

void upq_enc_dbp(upq_wbuf *w, int is64, const void *values, size_t n, unsigned block,
                 unsigned minis)
{
    unsigned per = block / minis;
    size_t i, k;
    if (is64) {
        const uint64_t *v = (const uint64_t *)values; /* int64_t storage */
        uint64_t first = n ? v[0] : 0u;
        dbp_header(w, block, minis, n, (first << 1) ^ (0u - (first >> 63)));
        for (i = 1; i < n; i += k) {
            k = n - i < block ? n - i : block;
            block64(w, v + i, k, v[i - 1], per, minis);
        }
    } else {
        src32 s;
        uint32_t prev = n ? ((const uint32_t *)values)[0] : 0u; /* int32_t storage */
        s.v = (const uint32_t *)values;
        s.b = (const upq_bytes *)0;
        s.kind = 0;
        dbp_header(w, block, minis, n, (uint64_t)((prev << 1) ^ (0u - (prev >> 31))));
        for (i = 1; i < n; i += k) {
            k = n - i < block ? n - i : block;
            (void)block32(w, &s, i, k, &prev, per, minis);
        }
    }
}

/* ---- byte arrays: sections of lengths ------------------------------------ */

enum { SEQ_LEN, SEQ_PREFIX, SEQ_SUFFIX };

/* Bytes a and b have in common at their start. */
static uint32_t common_prefix(const upq_bytes *a, const upq_bytes *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len, i = 0;
    /* eight bytes at a time: the lowest differing byte of the XOR */
    while (n - i >= 8) {
        uint64_t x = upq_load_le64(a->ptr + i) ^ upq_load_le64(b->ptr + i);
        if (x) {
            uint32_t lo = (uint32_t)x;
            return i + (lo ? upq_ctz32(lo) : 32u + upq_ctz32((uint32_t)(x >> 32))) / 8u;
        }
        i += 8;
    }
    while (i < n && a->ptr[i] == b->ptr[i])
        i++;
    return i;
}

/* The lengths of values [from, from + k): whole, shared with the previous
 * value (0 for the first), or the rest. */
static void seq_fill(int kind, const upq_bytes *v, size_t from, size_t k, uint32_t *out)
{
    size_t j;
    for (j = 0; j < k; j++) {
        size_t i = from + j;
        uint32_t pre = (kind == SEQ_LEN || i == 0) ? 0u : common_prefix(&v[i - 1], &v[i]);
        out[j] = kind == SEQ_PREFIX ? pre : v[i].len - pre;
    }
}

/* A DELTA_BINARY_PACKED section of one of the length sequences; returns
 * their sum. */
static uint64_t dbp_lengths(upq_wbuf *w, int kind, const upq_bytes *v, size_t n)
{
    src32 s;
    uint32_t prev = 0;
    uint64_t sum;
    size_t i, k;

    s.v = (const uint32_t *)0;
    s.b = v;
    s.kind = kind;
    seq_fill(kind, v, 0, n ? 1u : 0u, &prev);
    sum = prev;
    dbp_header(w, UPQ_DELTA_BLOCK, UPQ_DELTA_MINIS, n,
               (uint64_t)((prev << 1) ^ (0u - (prev >> 31))));
    for (i = 1; i < n; i += k) {
        k = n - i < UPQ_DELTA_BLOCK ? n - i : UPQ_DELTA_BLOCK;
        sum += block32(w, &s, i, k, &prev, UPQ_DELTA_BLOCK / UPQ_DELTA_MINIS, UPQ_DELTA_MINIS);
    }
    return sum;
}

void upq_enc_dlba(upq_wbuf *w, const upq_bytes *v, size_t n, size_t payload)
{
    size_t i;
    uint8_t *at;
    dbp_lengths(w, SEQ_LEN, v, n);
    at = upq_wb_take(w, payload);
    if (!at)
        return;
    for (i = 0; i < n; i++) {
        if (v[i].len)
            upq_memcpy(at, v[i].ptr, v[i].len);
        at += v[i].len;
    }
}

void upq_enc_dba(upq_wbuf *w, const upq_bytes *v, size_t n)
{
    uint64_t suffixes;
    size_t i;
    uint8_t *at;

    /* the sections' order forces the prefixes to be found once per section
     * and once more to copy the suffixes */
    dbp_lengths(w, SEQ_PREFIX, v, n);
    suffixes = dbp_lengths(w, SEQ_SUFFIX, v, n);
    /* at most the payload, which the caller checked fits in a size_t */
    at = upq_wb_take(w, (size_t)suffixes);
    if (!at)
        return;
    for (i = 0; i < n; i++) {
        uint32_t pre = i ? common_prefix(&v[i - 1], &v[i]) : 0u;
        if (v[i].len > pre)
            upq_memcpy(at, v[i].ptr + pre, v[i].len - pre);
        at += v[i].len - pre;
    }
}

#endif /* UPQ_WITH_DELTA */
