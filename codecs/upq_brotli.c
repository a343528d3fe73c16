/*
 * BROTLI pages through brotli's decoder (built without its encoder).
 *
 * brotli takes its memory through allocator hooks, and how much depends on
 * the stream: besides its state, a ring buffer that grows with the output
 * (a power of two up to the page size, at most the stream's window), and
 * per meta-block the Huffman tables of as many trees as the meta-block
 * declares (under 10 KB for one tree of each kind, 2.7 MB for 256 of
 * each). Tables are freed at the end of each meta-block and a growing
 * ring buffer is copied and freed, so the hooks need a heap that reuses
 * what was freed: for the duration of one call the free part of the arena
 * becomes that heap, handed out first fit, with freed blocks merged.
 * Everything is released (rewound) before returning.
 *
 * When brotli asks for more than the arena has, the call fails with
 * UPQ_ERR_NOMEM and upq_arena_needed() tells the arena size that request
 * needed; a stream may need more past that point, so a caller that retries
 * with what it was told may be told again (upq cat does so, doubling). A
 * request no valid stream for a page of this size can make (more than
 * upq_brotli_max_workspace()) is corruption, not a lack of memory.
 *
 * The whole page is given at once, as for every codec: the decoder runs to
 * the end of the stream in one call and must produce exactly the page's
 * bytes and consume exactly the stored ones.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_BROTLI

#include <brotli/decode.h>
/* brotli's state and table layouts, for the workspace figures */
#include "dec/state.h"

/* The arena's free part as a heap. Each block starts with a header; blocks
 * tile [base, base + top) in address order. */
typedef struct br_hdr {
    size_t size; /* bytes after the header */
    size_t used; /* 0: free */
} br_hdr;

typedef struct br_heap {
    uint8_t *base;
    size_t cap;  /* bytes of the heap */
    size_t top;  /* end of the last block */
    size_t peak; /* highest top */
    size_t need; /* after a failed request: the heap bytes it needed */
} br_heap;

#define BR_HDR ((sizeof(br_hdr) + 7u) & ~(size_t)7u)

static size_t round_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Merges neighbouring free blocks and gives a free last block back to the top. */
static void br_merge(br_heap *h)
{
    size_t off = 0, last = 0;
    int have_last = 0;
    while (off < h->top) {
        br_hdr *b = (br_hdr *)(void *)(h->base + off);
        size_t next = off + BR_HDR + b->size;
        while (!b->used && next < h->top) {
            br_hdr *n = (br_hdr *)(void *)(h->base + next);
            if (n->used)
                break;
            b->size += BR_HDR + n->size;
            next = off + BR_HDR + b->size;
        }
        last = off;
        have_last = 1;
        off = next;
    }
    if (have_last && !((br_hdr *)(void *)(h->base + last))->used)
        h->top = last;
}

static void *br_alloc(void *opaque, size_t size)
{
    br_heap *h = (br_heap *)opaque;
    size_t n = round_up8(size), off = 0;
    br_hdr *b;
    if (n < size || n > (size_t)-1 - BR_HDR)
        return (void *)0;
    while (off < h->top) { /* first fit among freed blocks */
        b = (br_hdr *)(void *)(h->base + off);
        if (!b->used && b->size >= n) {
            if (b->size - n >= BR_HDR + 8u) { /* split off the rest */
                br_hdr *rest = (br_hdr *)(void *)(h->base + off + BR_HDR + n);
                rest->size = b->size - n - BR_HDR;
                rest->used = 0;
                b->size = n;
            }
            b->used = 1;
            return h->base + off + BR_HDR;
        }
        off += BR_HDR + b->size;
    }
    if (h->cap - h->top < BR_HDR || h->cap - h->top - BR_HDR < n) {
        size_t want = h->top + BR_HDR + n;
        if (want < h->top)
            want = (size_t)-1;
        if (want > h->need)
            h->need = want;
        return (void *)0;
    }
    b = (br_hdr *)(void *)(h->base + h->top);
    b->size = n;
    b->used = 1;
    h->top += BR_HDR + n;
    if (h->top > h->peak)
        h->peak = h->top;
    return (uint8_t *)b + BR_HDR;
}

static void br_free(void *opaque, void *p)
{
    br_heap *h = (br_heap *)opaque;
    if (!p)
        return;
    ((br_hdr *)(void *)((uint8_t *)p - BR_HDR))->used = 0;
    br_merge(h);
}

/* The ring buffer brotli keeps for `out` bytes of output: the next power of
 * two, at least 1 KiB and at most the largest window (16 MiB without the
 * large-window extension, which Parquet does not use), plus its write-ahead
 * slack (42 bytes in 1.0.9). */
static size_t br_ring(size_t out)
{
    size_t r = 1024;
    while (r < out && r < ((size_t)1 << 24)) /* BROTLI_MAX_WINDOW_BITS (encode.h) */
        r <<= 1;
    return r + 64u;
}

/* One tree group's block: per tree a pointer and alphabet + 376 codes
 * (BrotliDecoderHuffmanTreeGroupInit). */
#define BR_GROUP(alphabet, trees) \
    ((size_t)(trees) * (sizeof(HuffmanCode *) + ((size_t)(alphabet) + 376u) * sizeof(HuffmanCode)))
#define BR_DIST_ALPHABET \
    BROTLI_DISTANCE_ALPHABET_SIZE(BROTLI_MAX_NPOSTFIX, BROTLI_MAX_NDIRECT, BROTLI_MAX_DISTANCE_BITS)

/* A meta-block's tables with `t` trees and block types of each kind: the
 * context modes and maps, and the three tree groups, a header each. */
static size_t br_tables(size_t t)
{
    return round_up8(t) + round_up8(t << 6) + round_up8(t << 2) +
           round_up8(BR_GROUP(BROTLI_NUM_LITERAL_SYMBOLS, t)) +
           round_up8(BR_GROUP(BROTLI_NUM_COMMAND_SYMBOLS, t)) +
           round_up8(BR_GROUP(BR_DIST_ALPHABET, t)) + 6u * BR_HDR;
}

/* The state and the block-type trees, which live for the whole call. */
static size_t br_fixed(void)
{
    return round_up8(sizeof(BrotliDecoderState)) +
           round_up8(sizeof(HuffmanCode) * 3u * (BROTLI_HUFFMAN_MAX_SIZE_258 + BROTLI_HUFFMAN_MAX_SIZE_26)) +
           2u * BR_HDR;
}

/* Every ring buffer up to the one for `out` bytes: a growing ring is
 * allocated beside the one it replaces (the meta-block's tables sit in
 * between), so the rings before it may leave their place unused: at most
 * twice the last, in at most 15 steps from 1 KiB to 16 MiB. */
static size_t br_rings(size_t out)
{
    return 2u * round_up8(br_ring(out)) + 15u * (64u + BR_HDR);
}

size_t upq_brotli_workspace(size_t dst_len)
{
    /* a later meta-block's tables may not fit where the first one's were */
    return br_fixed() + 2u * br_tables(1) + br_rings(dst_len);
}

size_t upq_brotli_max_workspace(size_t dst_len)
{
    /* every kind at its most trees, and rings of every size up to the
     * page's (a growing ring is copied into the next), with room for the
     * holes first fit may leave */
    size_t tables = br_tables(BROTLI_MAX_NUMBER_OF_BLOCK_TYPES);
    return br_fixed() + 2u * tables + 2u * br_rings(dst_len);
}

upq_status upq_brotli_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                                 upq_arena *a)
{
    upq_arena_mark mark;
    size_t room, high, avail_in = src_len, avail_out = dst_len;
    const uint8_t *next_in = src;
    uint8_t none = 0, *next_out = dst ? dst : &none;
    BrotliDecoderState *s;
    BrotliDecoderResult r;
    br_heap h;
    upq_status st;

    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    if (src_len == 0) /* a brotli stream is never empty */
        return UPQ_ERR_CORRUPT;
    mark = upq_arena_save(a);
    high = upq_arena_high_water(a);
    room = upq_arena_remaining(a) & ~(size_t)7u;
    h.base = (uint8_t *)upq_arena_alloc(a, room);
    if (!h.base)
        return UPQ_ERR_NOMEM;
    h.cap = room;
    h.top = h.peak = h.need = 0;

    s = BrotliDecoderCreateInstance(br_alloc, br_free, &h);
    if (!s) {
        r = BROTLI_DECODER_RESULT_ERROR;
    } else {
        r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out,
                                          (size_t *)0);
        BrotliDecoderDestroyInstance(s);
    }
    if (r == BROTLI_DECODER_RESULT_SUCCESS && avail_in == 0 && avail_out == 0)
        st = UPQ_OK;
    else if (h.need && h.need <= upq_brotli_max_workspace(dst_len))
        st = UPQ_ERR_NOMEM;
    else
        st = UPQ_ERR_CORRUPT; /* also output past the page, or input past the stream */

    /* Give the arena back, and keep as its peak what brotli really used
     * rather than the whole free part the heap spanned. */
    upq_arena_rewind(a, mark);
    a->high = high > a->used + h.peak ? high : a->used + h.peak;
    if (st == UPQ_ERR_NOMEM)
        (void)upq_arena_alloc(a, h.need); /* fails: records the size needed */
    return st;
}

#endif /* UPQ_WITH_BROTLI */
