/*
 * Snappy, written for µparquet: a bounds-checked decoder for every tag type
 * and a small greedy compressor whose hash table lives in the arena.
 *
 * Format (google/snappy format_description.txt): a varint of the
 * uncompressed length, then elements. Tag low bits: 00 literal, 01 copy with
 * an 11-bit offset, 10 copy with a 16-bit offset, 11 copy with a 32-bit offset.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_SNAPPY

#if UPQ_UNALIGNED_WORDS
/*
 * The fast loop's copy tags, one table entry each: bits 0-6 the length,
 * 8-10 the offset's high bits (1-byte-offset copies), 11-13 the bytes the
 * element takes; the offset's low bytes are the next 1, 2 or 4 bytes, as
 * many as copy_mask keeps. Decoding a copy is then a load, a mask and no
 * branch on its kind (literals take the other branch, entry 0).
 */
#define COPY_E(t)                                                                                  \
    ((t) % 4u == 1u   ? (4u + (t) / 4u % 8u) | ((t) / 32u) << 8 | 2u << 11                          \
     : (t) % 4u == 2u ? ((t) / 4u + 1u) | 3u << 11                                                  \
     : (t) % 4u == 3u ? ((t) / 4u + 1u) | 5u << 11                                                  \
                      : 0u)
#define COPY_E4(t) COPY_E(t), COPY_E((t) + 1u), COPY_E((t) + 2u), COPY_E((t) + 3u)
#define COPY_E16(t) COPY_E4(t), COPY_E4((t) + 4u), COPY_E4((t) + 8u), COPY_E4((t) + 12u)
#define COPY_E64(t) COPY_E16(t), COPY_E16((t) + 16u), COPY_E16((t) + 32u), COPY_E16((t) + 48u)
static const uint16_t copy_tab[256] = {COPY_E64(0u), COPY_E64(64u), COPY_E64(128u), COPY_E64(192u)};
static const uint32_t copy_mask[4] = {0u, 0xFFu, 0xFFFFu, 0xFFFFFFFFu};
/* for an offset below 8: the smallest multiple of it that is at least 8 */
static const uint8_t pattern_step[8] = {0, 8, 8, 9, 8, 10, 12, 14};
#endif

/* The preamble, the uncompressed length (at most 5 bytes for 32-bit
 * sizes): its bytes, or 0 when src[0..len) holds none. By index: an empty
 * page may come as NULL, which takes no offset. */
static size_t preamble(const uint8_t *src, size_t len, uint64_t *ulen)
{
    size_t i = 0;
    unsigned shift = 0;
    *ulen = 0;
    for (;;) {
        if (i == len || shift > 28)
            return 0;
        *ulen |= (uint64_t)(src[i] & 0x7Fu) << shift;
        shift += 7;
        if (!(src[i++] & 0x80u))
            return i;
    }
}

upq_status upq_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    const uint8_t *p, *end;
    uint64_t ulen = 0;
    size_t out = 0, head = preamble(src, src_len, &ulen);

    if (head == 0 || ulen != dst_len)
        return UPQ_ERR_CORRUPT;
    p = src + head;
    end = src + src_len;

#if UPQ_UNALIGNED_WORDS
    /*
     * While 17 input bytes and 64 output bytes are left, an element (at
     * most 5 bytes of tag, or a tag and 16 bytes of literal) and what it
     * writes (a copy is at most 64 bytes) are inside the buffers without a
     * check, and copies move whole words, writing up to a word past their
     * end: short literals as 16 bytes, matches 8 bytes at a time. The
     * exact loop below finishes the last bytes.
     */
    if (src_len > 16 && dst_len > 64) {
        const uint8_t *ip_lim = end - 16;
        uint8_t *d = dst, *op_lim = dst + dst_len - 64;
        while (p < ip_lim && d < op_lim) {
            size_t tag = *p, len, off, e;
            if ((tag & 3u) == 0) {
                len = (tag >> 2) + 1u;
                if (UPQ_LIKELY(len <= 16)) {
                    upq_copy8(d, p + 1);
                    upq_copy8(d + 8, p + 9);
                    p += 1u + len;
                    d += len;
                    continue;
                }
                p++;
                if (len > 60) {
                    size_t nb = len - 60, k;
                    len = 0;
                    for (k = 0; k < nb; k++) /* inside: 16 bytes were left */
                        len |= (size_t)p[k] << (8 * k);
                    len += 1;
                    p += nb;
                }
                if (len > (size_t)(end - p) || len > (size_t)(dst + dst_len - d))
                    return UPQ_ERR_CORRUPT;
                upq_memcpy(d, p, len);
                p += len;
                d += len;
                continue;
            }
            e = copy_tab[tag];
            len = e & 0x7Fu;
            off = (upq_load_le32(p + 1) & copy_mask[tag & 3u]) | (e & 0x700u);
            p += e >> 11;
            /* off 0, or before the start of the output */
            if (off - 1u >= (size_t)(d - dst))
                return UPQ_ERR_CORRUPT;
            if (UPQ_LIKELY(off >= 8)) {
                /* a word at a time: each load reads bytes already written */
                const uint8_t *s = d - off;
                upq_copy8(d, s);
                /* below 16 back, the second word reads part of the first:
                 * a load the store buffer cannot serve, worth a branch to
                 * skip when the match fits in one word */
                if (off >= 16 || len > 8)
                    upq_copy8(d + 8, s + 8);
                if (len > 16) {
                    size_t k;
                    for (k = 16; k < len; k += 8)
                        upq_copy8(d + k, s + k);
                }
            } else {
                /* the pattern of the last off bytes: its first 8 bytes one by
                 * one, then words from a whole number of periods back */
                const uint8_t *s = d - off;
                size_t step = pattern_step[off], k;
                for (k = 0; k < 8; k++)
                    d[k] = s[k];
                for (k = 8; k < len; k += 8)
                    upq_copy8(d + k, d + k - step);
            }
            d += len;
        }
        out = (size_t)(d - dst);
    }
#endif

    while (p < end) {
        uint8_t tag = *p++;
        size_t len, off;
        if ((tag & 3u) == 0) {
            len = (size_t)(tag >> 2) + 1u;
            if (len > 60) {
                size_t nb = len - 60, k;
                if ((size_t)(end - p) < nb)
                    return UPQ_ERR_CORRUPT;
                len = 0;
                for (k = 0; k < nb; k++)
                    len |= (size_t)p[k] << (8 * k);
                len += 1;
                p += nb;
            }
            if (len > (size_t)(end - p) || len > dst_len - out)
                return UPQ_ERR_CORRUPT;
            upq_memcpy(dst + out, p, len);
            p += len;
            out += len;
            continue;
        }
        if ((tag & 3u) == 1) {
            if (p == end)
                return UPQ_ERR_CORRUPT;
            len = 4u + ((tag >> 2) & 7u);
            off = ((size_t)(tag >> 5) << 8) | *p++;
        } else if ((tag & 3u) == 2) {
            if (end - p < 2)
                return UPQ_ERR_CORRUPT;
            len = 1u + (tag >> 2);
            off = upq_load_le16(p);
            p += 2;
        } else {
            if (end - p < 4)
                return UPQ_ERR_CORRUPT;
            len = 1u + (tag >> 2);
            off = upq_load_le32(p);
            p += 4;
        }
        if (off == 0 || off > out || len > dst_len - out)
            return UPQ_ERR_CORRUPT;
        if (off >= len) {
            upq_memcpy(dst + out, dst + out - off, len);
            out += len;
        } else { /* overlapping copy repeats the last `off` bytes */
            const uint8_t *s = dst + out - off;
            size_t k;
            for (k = 0; k < len; k++)
                dst[out + k] = s[k];
            out += len;
        }
    }
    return out == dst_len ? UPQ_OK : UPQ_ERR_CORRUPT;
}

/* ---- compressor --------------------------------------------------------- */

#define HASH_BITS 12u
#define BLOCK (1u << 16) /* copies never reach across 64 KiB, like the reference */

size_t upq_snappy_bound(size_t src_len)
{
    return 32u + src_len + src_len / 6u;
}

size_t upq_snappy_compress_workspace(void)
{
    return sizeof(uint16_t) << HASH_BITS;
}

static uint8_t *put_varint(uint8_t *o, uint32_t v)
{
    while (v >= 0x80u) {
        *o++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

static uint8_t *emit_literal(uint8_t *o, const uint8_t *s, size_t len)
{
    size_t n = len - 1u;
    if (n < 60) {
        *o++ = (uint8_t)(n << 2);
    } else {
        unsigned bytes = n < (1u << 8) ? 1u : n < (1u << 16) ? 2u : n < (1u << 24) ? 3u : 4u;
        unsigned k;
        *o++ = (uint8_t)((59u + bytes) << 2);
        for (k = 0; k < bytes; k++)
            *o++ = (uint8_t)(n >> (8 * k));
    }
    upq_memcpy(o, s, len);
    return o + len;
}

static uint8_t *emit_copy(uint8_t *o, size_t off, size_t len)
{
    while (len >= 68) {
        *o++ = (uint8_t)(2u | (63u << 2));
        upq_store_le16(o, (uint16_t)off);
        o += 2;
        len -= 64;
    }
    if (len > 64) {
        *o++ = (uint8_t)(2u | (59u << 2));
        upq_store_le16(o, (uint16_t)off);
        o += 2;
        len -= 60;
    }
    if (len >= 4 && len < 12 && off < 2048) {
        *o++ = (uint8_t)(1u | ((len - 4u) << 2) | ((off >> 8) << 5));
        *o++ = (uint8_t)off;
    } else {
        *o++ = (uint8_t)(2u | ((len - 1u) << 2));
        upq_store_le16(o, (uint16_t)off);
        o += 2;
    }
    return o;
}

static uint32_t hash4(const uint8_t *p)
{
    return (upq_load_le32(p) * 0x1E35A7BDu) >> (32u - HASH_BITS);
}

/* Bytes a[k] == b[k] from k = 0, at most max: 64-bit hosts compare a word
 * at a time and locate the first difference by its lowest set bit. */
static size_t match_len(const uint8_t *a, const uint8_t *b, size_t max)
{
    size_t n = 0;
#if UPQ_UNALIGNED_WORDS
    for (; n + 8 <= max; n += 8) {
        uint64_t x = upq_load_le64(a + n) ^ upq_load_le64(b + n);
        if (x) {
            uint32_t lo = (uint32_t)x;
            return n + (lo ? upq_ctz32(lo) : 32u + upq_ctz32((uint32_t)(x >> 32))) / 8u;
        }
    }
#endif
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

upq_status upq_snappy_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                               size_t *dst_len, upq_arena *a)
{
    upq_arena_mark mark;
    uint16_t *table;
    uint8_t *o = dst;
    size_t base;

    if (src_len > 0xFFFFFFFFu)
        return UPQ_ERR_INVAL;
    if (dst_cap < upq_snappy_bound(src_len))
        return UPQ_ERR_BUFFER;
    mark = upq_arena_save(a);
    table = (uint16_t *)upq_arena_alloc(a, upq_snappy_compress_workspace());
    if (!table)
        return UPQ_ERR_NOMEM;
    o = put_varint(o, (uint32_t)src_len);

    for (base = 0; base < src_len; base += BLOCK) {
        const uint8_t *blk = src + base;
        size_t n = src_len - base < BLOCK ? src_len - base : BLOCK;
        size_t i = 0, lit = 0;
        upq_memset(table, 0, sizeof(uint16_t) << HASH_BITS);
        if (n >= 15) {
            /* the last bytes of a block are always literal, so 4-byte loads
             * and match extension never read past it */
            size_t limit = n - 4;
            /* after 32 misses in a row every 2nd position is tried, after
             * 64 more every 3rd...: random bytes (DOUBLE, hashes) are
             * passed over quickly, as the reference compressor does; a
             * match starts over at every position */
            size_t skip = 32;
            i = 1;
            while (i < limit - 8) {
                uint32_t h = hash4(blk + i);
                size_t cand = table[h];
                table[h] = (uint16_t)i;
                if (cand < i && upq_load_le32(blk + cand) == upq_load_le32(blk + i)) {
                    size_t len = 4 + match_len(blk + cand + 4, blk + i + 4, limit - i - 4);
                    if (i > lit)
                        o = emit_literal(o, blk + lit, i - lit);
                    o = emit_copy(o, i - cand, len);
                    i += len;
                    lit = i;
                    skip = 32;
                    if (i < limit - 8)
                        table[hash4(blk + i - 1)] = (uint16_t)(i - 1);
                } else {
                    i += skip++ >> 5;
                }
            }
        }
        if (lit < n)
            o = emit_literal(o, blk + lit, n - lit);
    }
    upq_arena_rewind(a, mark);
    *dst_len = (size_t)(o - dst);
    return UPQ_OK;
}

#endif /* UPQ_WITH_SNAPPY */
