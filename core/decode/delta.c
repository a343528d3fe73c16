/*
 * The delta encodings: DELTA_BINARY_PACKED (INT32, INT64),
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY), whose lengths are DELTA_BINARY_PACKED sections.
 *
 * All arithmetic on values is unsigned, so deltas wrap around in 32 or 64
 * bits exactly as the format asks, without signed overflow.
 */
#include "encoding.h"
#include "upq_simd.h"
#include "common/upq_internal.h"
#include "upq_port.h"

#if UPQ_WITH_DELTA

/* Values unpacked per kernel call: bounds the local buffers and keeps
 * n * bit_width far from overflowing. Half the RLE step: 32 on
 * microcontrollers, where a DELTA_BYTE_ARRAY read that skips through its
 * lengths holds two of these buffers and the skip's own on the row reader's
 * deepest call chain (1,948 bytes of stack at 64, 1,436 at 32 on Cortex-M4). */
#define CHUNK (UPQ_UNPACK_STEP / 2u)
#define MAX_RUN 4096u

/* ULEB128 of at most 10 bytes that fits 64 bits. */
static upq_status uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;
    /* a block's min_delta is mostly one or two bytes: those in 32 bits */
    if (p != end && p[0] < 0x80u) {
        *out = p[0];
        *pp = p + 1;
        return UPQ_OK;
    }
    if (end - p >= 2 && p[1] < 0x80u) {
        *out = (uint32_t)(p[0] & 0x7Fu) | (uint32_t)p[1] << 7;
        *pp = p + 2;
        return UPQ_OK;
    }
    for (;;) {
        uint8_t b;
        if (p == end)
            return UPQ_ERR_CORRUPT;
        b = *p++;
        if (shift == 63 && b > 1)
            return UPQ_ERR_CORRUPT;
        v |= (uint64_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            break;
        shift += 7;
    }
    *pp = p;
    *out = v;
    return UPQ_OK;
}

static uint64_t unzigzag(uint64_t v)
{
    return (v >> 1) ^ (0u - (v & 1u));
}

/* Enters the next miniblock that holds values (reading a block header when
 * the block is used up): checks its bit width and that its whole body is
 * there, as every writer pads the last miniblock to full size. */
static upq_status next_miniblock(upq_delta_dec *d)
{
    unsigned bw;
    uint64_t size;

    if (++d->mini_index >= d->miniblocks) {
        uint64_t md;
        upq_status st = uleb(&d->p, d->end, &md);
        if (st != UPQ_OK)
            return st;
        d->min_delta = unzigzag(md);
        /* all widths are there, even those of unused miniblocks */
        if ((size_t)(d->end - d->p) < d->miniblocks)
            return UPQ_ERR_CORRUPT;
        d->widths = d->p;
        d->p += d->miniblocks;
        d->mini_index = 0;
    }
    bw = d->widths[d->mini_index];
    if (bw > (d->is64 ? 64u : 32u))
        return UPQ_ERR_CORRUPT;
    size = (uint64_t)d->per_mini * bw / 8u; /* exact: per_mini is a multiple of 32 */
    if (size > (uint64_t)(d->end - d->p))
        return UPQ_ERR_CORRUPT;
    d->mini = d->p;
    d->p += (size_t)size;
    d->bit_width = (uint8_t)bw;
    d->group_pos = 0;
    d->mini_left = d->per_mini;
    return UPQ_OK;
}

/* What every read of values starts with: the count checked against the
 * values left (-1 when it is more), and the first value (the header's) given
 * to o32 or o64 (none: skipped) when it is still to come. Returns the values
 * given, 0 or 1. */
static int start_take(upq_delta_dec *d, size_t *n, uint32_t *o32, uint64_t *o64)
{
    if (*n > d->left)
        return -1;
    if (!*n || !d->first_pending)
        return 0;
    if (o32)
        *o32 = (uint32_t)d->last;
    else if (o64)
        *o64 = d->last;
    (*n)--;
    d->left--;
    d->first_pending = 0;
    return 1;
}

/* The current miniblock, or the next one when it is used up. */
UPQ_INLINE upq_status mini_ready(upq_delta_dec *d)
{
    return d->mini_left ? UPQ_OK : next_miniblock(d);
}

/* Moves past k values of the current miniblock. */
static void advance(upq_delta_dec *d, size_t k)
{
    size_t pos = d->group_pos + k;
    d->mini += (pos / 8u) * d->bit_width;
    d->group_pos = (uint8_t)(pos % 8u);
    d->mini_left -= (uint32_t)k;
    d->left -= (uint32_t)k;
}

/* The walk at init over the blocks that `left` values after the first
 * take: each block's min_delta (read as decoding reads it) and widths, and
 * the bodies of the miniblocks that hold values, with next_miniblock's
 * checks, without keeping its state. *section_end gets the end. */
static upq_status walk(const uint8_t *p, const uint8_t *end, uint32_t minis, uint32_t per_mini,
                       unsigned max_bw, uint32_t left, const uint8_t **section_end)
{
    /* a miniblock's bytes, per_mini / 8 * bw, in 32 bits where they fit */
    uint32_t eighth = per_mini / 8u, wide = eighth > (UINT32_MAX >> 7);
    while (left) {
        const uint8_t *w;
        uint64_t md;
        uint32_t m;
        upq_status st = uleb(&p, end, &md);
        if (st != UPQ_OK)
            return st;
        if ((size_t)(end - p) < minis)
            return UPQ_ERR_CORRUPT;
        w = p;
        p += minis;
        for (m = 0; m < minis && left; m++) {
            uint64_t size = wide ? (uint64_t)eighth * w[m] : (uint64_t)(eighth * w[m]);
            if (w[m] > max_bw || size > (uint64_t)(end - p))
                return UPQ_ERR_CORRUPT;
            p += (size_t)size;
            left -= left < per_mini ? left : per_mini;
        }
    }
    *section_end = p;
    return UPQ_OK;
}

upq_status upq_delta_init(upq_delta_dec *d, const uint8_t *p, const uint8_t *end, int is64,
                          uint32_t max_values, const uint8_t **section_end)
{
    uint64_t block, minis, count, first;
    upq_status st;

    upq_memset(d, 0, sizeof *d);
    if ((st = uleb(&p, end, &block)) != UPQ_OK || (st = uleb(&p, end, &minis)) != UPQ_OK ||
        (st = uleb(&p, end, &count)) != UPQ_OK || (st = uleb(&p, end, &first)) != UPQ_OK)
        return st;
    if (block == 0 || block % 128u != 0 || block > UINT32_MAX || minis == 0 ||
        block % minis != 0 || (block / minis) % 32u != 0)
        return UPQ_ERR_CORRUPT;
    /* the header's count is what the section holds; the page may promise
     * more (nulls) but never fewer */
    if (count > max_values)
        return UPQ_ERR_CORRUPT;
    d->p = p;
    d->end = end;
    d->last = unzigzag(first);
    d->count = d->left = (uint32_t)count;
    d->miniblocks = (uint32_t)minis;
    d->per_mini = (uint32_t)(block / minis);
    d->mini_index = d->miniblocks; /* the first value needs no block */
    d->first_pending = count > 0;
    d->is64 = (uint8_t)(is64 != 0);

    /* walk the headers once where the end of the section is asked for
     * (the byte data follows it); next_miniblock checks each block and
     * miniblock as it enters it, so a page's values need no walk (on
     * Cortex-M4 the walk took one instruction a value of 17) */
    if (!section_end)
        return UPQ_OK;
    return walk(p, end, d->miniblocks, d->per_mini, d->is64 ? 64u : 32u,
                count ? (uint32_t)count - 1u : 0u, section_end);
}

upq_status upq_delta_get32(upq_delta_dec *d, uint32_t *out, size_t n)
{
    uint32_t last = (uint32_t)d->last;
    upq_status st;
    int first = start_take(d, &n, out, (uint64_t *)0);
    if (first < 0)
        return UPQ_ERR_CORRUPT;
    out += first;
    while (n) {
        size_t k;
        unsigned bit;
        if ((st = mini_ready(d)) != UPQ_OK)
            return st;
        k = n < d->mini_left ? n : d->mini_left;
        if (k > MAX_RUN)
            k = MAX_RUN;
        bit = d->group_pos * (unsigned)d->bit_width;
        UPQ_UNPACK32(d->mini + bit / 8u, bit % 8u, out, d->bit_width, k,
                     (size_t)(d->end - (d->mini + bit / 8u)));
        last = UPQ_K(delta_sum32)(out, out, k, (uint32_t)d->min_delta, last);
        advance(d, k);
        out += k;
        n -= k;
    }
    d->last = last;
    return UPQ_OK;
}

#if UPQ_UNPACK_GROUP8
/* 1 when upq_delta8_sum64 takes min_delta: UPQ_DELTA8_MIN..UPQ_DELTA8_MAX */
UPQ_INLINE int delta8_takes(uint64_t min_delta)
{
    return min_delta + 0x80000000u <= (uint64_t)(UPQ_DELTA8_MAX - UPQ_DELTA8_MIN);
}

/* Size-optimised builds: whole INT64 miniblocks of widths up to
 * UPQ_UNPACK_GROUP8 from the current one's start (d->mini_left ==
 * d->per_mini), each unpacked and summed in one pass, the next one entered
 * in place while it is in the same block; stops before a miniblock that is
 * not whole in n, of another width, or whose word loads would pass the
 * section's end. Returns the values given. */
static size_t whole_minis(upq_delta_dec *d, uint64_t *out, size_t n, uint64_t *last)
{
    size_t done = 0;
    uint32_t per = d->per_mini;
    for (;;) {
        unsigned bw = d->bit_width, run = 1;
        size_t bytes = per / 8u * bw;
        if (n - done < per || bw - 1u >= UPQ_UNPACK_GROUP8 ||
            (size_t)(d->end - d->mini) < bytes + 3u)
            return done;
        /* the block's next miniblocks of the same width continue the same
         * bit stream (their bodies follow each other): one call for them */
        while (d->mini_index + run < d->miniblocks && d->widths[d->mini_index + run] == bw &&
               n - done >= (size_t)per * (run + 1u) &&
               (size_t)(d->end - d->mini) >= bytes * (run + 1u) + 3u)
            run++;
        *last = upq_delta8_sum64(d->mini, bw, per / 8u * run, out + done, (int32_t)d->min_delta,
                                 *last);
        done += (size_t)per * run;
        d->left -= per * run;
        d->mini_index += run - 1u;
        d->p += bytes * (run - 1u);
        d->mini = d->p - bytes;
        if (d->mini_index + 1u >= d->miniblocks || d->left == 0) {
            d->mini += bytes;
            d->mini_left = 0; /* next_miniblock reads the next block's header */
            return done;
        }
        /* the next miniblock of this block (as next_miniblock enters it) */
        bw = d->widths[++d->mini_index];
        if (bw > 64u || (uint64_t)per * bw / 8u > (uint64_t)(d->end - d->p)) {
            d->mini_index--; /* next_miniblock reports it */
            d->mini += bytes;
            d->mini_left = 0;
            return done;
        }
        d->mini = d->p;
        d->p += per / 8u * bw;
        d->bit_width = (uint8_t)bw;
    }
}
#endif

upq_status upq_delta_get64(upq_delta_dec *d, uint64_t *out, size_t n)
{
    uint32_t tmp[CHUNK];
    uint64_t last = d->last;
    upq_status st;
    int first = start_take(d, &n, (uint32_t *)0, out);
    if (first < 0)
        return UPQ_ERR_CORRUPT;
    out += first;
    while (n) {
        size_t k;
        unsigned bit, bw;
        if ((st = mini_ready(d)) != UPQ_OK)
            return st;
        bw = d->bit_width;
        bit = d->group_pos * bw;
        k = n < d->mini_left ? n : d->mini_left;
#if UPQ_UNPACK_GROUP8
        if (d->group_pos == 0 && k == d->per_mini && d->mini_left == k &&
            delta8_takes(d->min_delta)) {
            /* whole miniblocks from their start, as long as they come */
            size_t done = whole_minis(d, out, n, &last);
            if (done) {
                out += done;
                n -= done;
                continue;
            }
        }
        /* whole groups from a group's start, unpacked and summed in one
         * pass, while their word loads stay inside the section */
        if (d->group_pos == 0 && bw - 1u < UPQ_UNPACK_GROUP8 && k >= 8 &&
            delta8_takes(d->min_delta)) {
            size_t groups = k / 8u, avail = (size_t)(d->end - d->mini);
            if (avail < groups * bw + 3u)
                groups = avail < 3u ? 0 : (avail - 3u) / bw;
            if (groups) {
                k = groups * 8u;
                last = upq_delta8_sum64(d->mini, bw, groups, out, (int32_t)d->min_delta, last);
                d->mini += groups * bw; /* advance(), from a group's start */
                d->mini_left -= (uint32_t)k;
                d->left -= (uint32_t)k;
                out += k;
                n -= k;
                continue;
            }
        }
#endif
        if (bw <= 32) {
            if (k > CHUNK)
                k = CHUNK;
            UPQ_UNPACK32(d->mini + bit / 8u, bit % 8u, tmp, bw, k,
                         (size_t)(d->end - (d->mini + bit / 8u)));
            last = UPQ_K(delta_sum64_32)(out, tmp, k, d->min_delta, last);
        } else {
            if (k > MAX_RUN)
                k = MAX_RUN;
            UPQ_K(unpack64)(d->mini + bit / 8u, bit % 8u, out, bw, k);
            last = UPQ_K(delta_sum64)(out, out, k, d->min_delta, last);
        }
        advance(d, k);
        out += k;
        n -= k;
    }
    d->last = last;
    return UPQ_OK;
}

upq_status upq_delta_skip(upq_delta_dec *d, size_t n)
{
    /* one scratch for either width: this frame sits under the row reader's
     * deepest call chain (DELTA_BYTE_ARRAY skips through it) */
    union {
        uint32_t w32[CHUNK];
        uint64_t w64[CHUNK];
    } tmp;
    upq_status st;
    if (start_take(d, &n, (uint32_t *)0, (uint64_t *)0) < 0)
        return UPQ_ERR_CORRUPT;
    while (n) {
        size_t k;
        unsigned bit, bw;
        uint64_t sum;
        if ((st = mini_ready(d)) != UPQ_OK)
            return st;
        bw = d->bit_width;
        bit = d->group_pos * bw;
        k = n < d->mini_left ? n : d->mini_left;
        if (bw == 0) {
            sum = 0; /* any count at once */
        } else {
            if (k > CHUNK)
                k = CHUNK;
            if (bw <= 32) {
                UPQ_UNPACK32(d->mini + bit / 8u, bit % 8u, tmp.w32, bw, k,
                             (size_t)(d->end - (d->mini + bit / 8u)));
                sum = UPQ_K(sum32)(tmp.w32, k);
            } else {
                UPQ_K(unpack64)(d->mini + bit / 8u, bit % 8u, tmp.w64, bw, k);
                sum = UPQ_K(sum64)(tmp.w64, k);
            }
        }
        /* a 32-bit column keeps the low half, which wraps the same way */
        d->last += (uint64_t)k * d->min_delta + sum;
        advance(d, k);
        n -= k;
    }
    return UPQ_OK;
}

/* ---- DELTA_BINARY_PACKED values ----------------------------------------- */

upq_status upq_dbp_init(upq_values_dec *d)
{
    upq_status st = upq_delta_init(&d->u.delta, d->p, d->end, d->physical_type == UPQ_TYPE_INT64,
                                   d->num_values, (const uint8_t **)0);
    if (st != UPQ_OK)
        return st;
    d->num_values = d->u.delta.count;
    return UPQ_OK;
}

upq_status upq_dbp_get(upq_values_dec *d, void *out, size_t n)
{
    /* int32_t/int64_t storage written through the same-width unsigned type */
    if (d->u.delta.is64)
        return upq_delta_get64(&d->u.delta, (uint64_t *)out, n);
    return upq_delta_get32(&d->u.delta, (uint32_t *)out, n);
}

upq_status upq_dbp_skip(upq_values_dec *d, size_t n)
{
    return upq_delta_skip(&d->u.delta, n);
}

/* ---- DELTA_LENGTH_BYTE_ARRAY -------------------------------------------- */

upq_status upq_dlba_init(upq_values_dec *d)
{
    const uint8_t *data;
    upq_status st = upq_delta_init(&d->u.ba.lengths, d->p, d->end, 0, d->num_values, &data);
    if (st != UPQ_OK)
        return st;
    /* lengths are decoded in step with the data that follows them */
    d->p = data;
    d->num_values = d->u.ba.lengths.count;
    return UPQ_OK;
}

/* Lengths are stored as INT32: above INT32_MAX they were negative. */
static upq_status dlba_take(upq_values_dec *d, upq_bytes *out, size_t n)
{
    uint32_t lens[CHUNK];
    while (n) {
        size_t k = n < CHUNK ? n : CHUNK, i;
        upq_status st = upq_delta_get32(&d->u.ba.lengths, lens, k);
        if (st != UPQ_OK)
            return st;
        for (i = 0; i < k; i++) {
            uint32_t len = lens[i];
            if (len > INT32_MAX || len > (size_t)(d->end - d->p))
                return UPQ_ERR_CORRUPT;
            if (out) {
                out[i].ptr = d->p;
                out[i].len = len;
            }
            d->p += len;
        }
        if (out)
            out += k;
        n -= k;
    }
    return UPQ_OK;
}

upq_status upq_dlba_get(upq_values_dec *d, upq_bytes *out, size_t n)
{
    return dlba_take(d, out, n);
}

upq_status upq_dlba_skip(upq_values_dec *d, size_t n)
{
    return dlba_take(d, (upq_bytes *)0, n);
}

/* ---- DELTA_BYTE_ARRAY --------------------------------------------------- */

upq_status upq_dba_init(upq_values_dec *d)
{
    const uint8_t *suffixes, *data;
    upq_status st;
    if (d->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && d->type_length <= 0)
        return UPQ_ERR_CORRUPT;
    st = upq_delta_init(&d->u.ba.prefixes, d->p, d->end, 0, d->num_values, &suffixes);
    if (st != UPQ_OK)
        return st;
    st = upq_delta_init(&d->u.ba.lengths, suffixes, d->end, 0, d->num_values, &data);
    if (st != UPQ_OK)
        return st;
    if (d->u.ba.prefixes.count != d->u.ba.lengths.count)
        return UPQ_ERR_CORRUPT;
    if (!d->u.ba.prev_buf && d->u.ba.lengths.count)
        return UPQ_ERR_INVAL;
    d->p = data;
    d->num_values = d->u.ba.lengths.count;
    d->u.ba.prev = d->u.ba.prev_buf;
    d->u.ba.prev_len = 0;
    return UPQ_OK;
}

/* Checks one (prefix, suffix) pair against the previous value and the data
 * left; *vlen gets the value's length. */
static upq_status dba_check(const upq_values_dec *d, uint32_t pre, uint32_t suf, size_t *vlen)
{
    if (pre > INT32_MAX || suf > INT32_MAX || pre > d->u.ba.prev_len ||
        suf > (size_t)(d->end - d->p))
        return UPQ_ERR_CORRUPT;
    *vlen = (size_t)pre + suf;
    if (d->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && *vlen != (size_t)d->type_length)
        return UPQ_ERR_CORRUPT;
    /* the value must be kept as the next one's prefix source */
    if (*vlen > d->u.ba.prev_cap)
        return UPQ_ERR_BUFFER;
    return UPQ_OK;
}

upq_status upq_dba_get(upq_values_dec *d, upq_bytes *out, size_t n, size_t *got, upq_vbuf *vb)
{
    uint32_t pre[CHUNK], suf[CHUNK];
    upq_delta_dec save_pre, save_suf;
    size_t done = 0;
    upq_status st = UPQ_OK;

    *got = 0;
    if (!vb)
        return UPQ_ERR_INVAL;
    while (done < n) {
        size_t k = n - done < CHUNK ? n - done : CHUNK, i;
        /* lengths are decoded a chunk ahead; if vb fills inside the chunk,
         * the decoders go back and re-take only what was used */
        upq_memcpy(&save_pre, &d->u.ba.prefixes, sizeof save_pre);
        upq_memcpy(&save_suf, &d->u.ba.lengths, sizeof save_suf);
        if ((st = upq_delta_get32(&d->u.ba.prefixes, pre, k)) != UPQ_OK ||
            (st = upq_delta_get32(&d->u.ba.lengths, suf, k)) != UPQ_OK)
            break;
        for (i = 0; i < k; i++) {
            size_t vlen;
            uint8_t *dst;
            st = dba_check(d, pre[i], suf[i], &vlen);
            if (st != UPQ_OK)
                break;
            if (vlen > vb->cap - vb->used) {
                if (vb->used == 0)
                    st = UPQ_ERR_BUFFER;
                break;
            }
            /* the previous value is in prev_buf or just before dst in vb
             * (a buffer-less vb can still take empty values) */
            dst = vb->buf ? vb->buf + vb->used : d->u.ba.prev_buf;
            upq_memcpy(dst, d->u.ba.prev, pre[i]);
            upq_memcpy(dst + pre[i], d->p, suf[i]);
            d->p += suf[i];
            vb->used += vlen;
            out[done + i].ptr = dst;
            out[done + i].len = (uint32_t)vlen;
            d->u.ba.prev = dst;
            d->u.ba.prev_len = (uint32_t)vlen;
        }
        done += i;
        if (i < k) {
            if (st == UPQ_OK) {
                upq_memcpy(&d->u.ba.prefixes, &save_pre, sizeof save_pre);
                upq_memcpy(&d->u.ba.lengths, &save_suf, sizeof save_suf);
                if ((st = upq_delta_skip(&d->u.ba.prefixes, i)) == UPQ_OK)
                    st = upq_delta_skip(&d->u.ba.lengths, i);
            }
            break;
        }
    }
    /* vb is the caller's to reuse: keep the previous value where it stays */
    if (d->u.ba.prev != d->u.ba.prev_buf) {
        upq_memcpy(d->u.ba.prev_buf, d->u.ba.prev, d->u.ba.prev_len);
        d->u.ba.prev = d->u.ba.prev_buf;
    }
    *got = done;
    return st;
}

upq_status upq_dba_skip(upq_values_dec *d, size_t n)
{
    uint32_t pre[CHUNK], suf[CHUNK];
    while (n) {
        size_t k = n < CHUNK ? n : CHUNK, i;
        upq_status st;
        if ((st = upq_delta_get32(&d->u.ba.prefixes, pre, k)) != UPQ_OK ||
            (st = upq_delta_get32(&d->u.ba.lengths, suf, k)) != UPQ_OK)
            return st;
        for (i = 0; i < k; i++) {
            size_t vlen;
            st = dba_check(d, pre[i], suf[i], &vlen);
            if (st != UPQ_OK)
                return st;
            /* between calls the previous value lives in prev_buf: rebuild in place */
            upq_memcpy(d->u.ba.prev_buf + pre[i], d->p, suf[i]);
            d->p += suf[i];
            d->u.ba.prev_len = (uint32_t)vlen;
        }
        n -= k;
    }
    return UPQ_OK;
}

#endif /* UPQ_WITH_DELTA */
