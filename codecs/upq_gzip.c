/*
 * GZIP pages through zlib (built with Z_SOLO: no libc, no default
 * allocator).
 *
 * zlib's memory comes from one arena block reserved up front, sized from
 * zlib's own state structures, and carved by the zalloc callback below;
 * zfree does nothing and the block is rewound when the call returns. Sizing
 * the block exactly is what makes upq_arena_needed() tell the whole need
 * after UPQ_ERR_NOMEM, rather than whichever of zlib's allocations failed.
 *
 * Decoding gives inflate the whole page and Z_FINISH, so a stream that ends
 * inside the call never needs inflate's 32 KiB sliding window. inflate asks
 * for the window only when it stops early (input cut short, or output
 * larger than the page), and the block has no room for it: that request
 * fails and the page is reported corrupt, which it is.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_GZIP

#include <limits.h>
#define ZLIB_CONST /* const-correct next_in; declarations only, same ABI */
#include "zlib.h"
/* zlib's internal state layouts, for exact workspace sizes (zutil.h first:
 * the others rely on its definitions) */
#include "zutil.h"
#include "deflate.h"
#include "inftrees.h"
#include "inflate.h"

/* Writing: a 4 KiB window and 4096 hash chains keep deflate's arena need
 * near 38 KB (a 32 KiB window and memLevel 8 take 256 KiB) for a few
 * percent of ratio on page-sized data. Level 6 is gzip's default. */
#define GZ_WINDOW_BITS 12
#define GZ_MEM_LEVEL 5
#define GZ_LEVEL 6
/* Reading: gzip (16) or zlib (0) wrapper detected per member (32), any window. */
#define GZ_INFLATE_BITS (15 + 32)

/* An arena block handed out front to back. */
typedef struct gz_block {
    uint8_t *next;
    size_t left;
} gz_block;

static size_t round_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
    gz_block *b = (gz_block *)opaque;
    size_t n = (size_t)items * size, r;
    void *p;
    if (size && n / size != items)
        return Z_NULL;
    r = round_up8(n);
    if (r < n || r > b->left)
        return Z_NULL;
    p = b->next;
    b->next += r;
    b->left -= r;
    return p;
}

static void gz_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    (void)p;
}

/* Reserves `size` bytes and points the stream's allocator at them. */
static upq_status gz_begin(z_stream *zs, gz_block *b, size_t size, upq_arena *a)
{
    b->next = (uint8_t *)upq_arena_alloc(a, size);
    if (!b->next)
        return UPQ_ERR_NOMEM;
    b->left = size;
    upq_memset(zs, 0, sizeof *zs);
    zs->zalloc = gz_alloc;
    zs->zfree = gz_free;
    zs->opaque = b;
    return UPQ_OK;
}

size_t upq_gzip_decompress_workspace(void)
{
    return round_up8(sizeof(struct inflate_state));
}

size_t upq_gzip_compress_workspace(void)
{
    /* deflateInit2's five allocations: the state, the window (2 bytes per
     * window position), prev (one Pos each), the hash heads (one Pos per
     * chain) and the pending/symbol buffer (4 bytes per symbol) */
    size_t w_size = (size_t)1 << GZ_WINDOW_BITS;
    size_t hash_size = (size_t)1 << (GZ_MEM_LEVEL + 7);
    size_t lit_bufsize = (size_t)1 << (GZ_MEM_LEVEL + 6);
    return round_up8(sizeof(deflate_state)) + round_up8(w_size * 2u) +
           round_up8(w_size * sizeof(Pos)) + round_up8(hash_size * sizeof(Pos)) +
           round_up8(lit_bufsize * 4u);
}

upq_status upq_gzip_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               upq_arena *a)
{
    upq_arena_mark mark;
    upq_status st;
    gz_block b;
    z_stream zs;
    uint8_t none = 0;
    int r;

    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    if (src_len > UINT_MAX || dst_len > UINT_MAX)
        return UPQ_ERR_LIMIT;
    if (src_len == 0)
        return UPQ_ERR_CORRUPT;
    mark = upq_arena_save(a);
    st = gz_begin(&zs, &b, upq_gzip_decompress_workspace(), a);
    if (st != UPQ_OK)
        return st;
    r = inflateInit2(&zs, GZ_INFLATE_BITS);
    if (r != Z_OK) {
        upq_arena_rewind(a, mark);
        return r == Z_MEM_ERROR ? UPQ_ERR_NOMEM : UPQ_ERR_UNSUPPORTED;
    }
    zs.next_in = src;
    zs.avail_in = (uInt)src_len;
    zs.next_out = dst ? dst : &none; /* zlib refuses a NULL output even when empty */
    zs.avail_out = (uInt)dst_len;
    for (;;) {
        r = inflate(&zs, Z_FINISH);
        if (r != Z_STREAM_END) {
            st = UPQ_ERR_CORRUPT;
            break;
        }
        if (zs.avail_in == 0) {
            st = zs.avail_out == 0 ? UPQ_OK : UPQ_ERR_CORRUPT;
            break;
        }
        /* more input: the next member of a concatenated stream */
        if (inflateReset(&zs) != Z_OK) {
            st = UPQ_ERR_CORRUPT;
            break;
        }
    }
    upq_arena_rewind(a, mark);
    return st;
}

/* ---- compressor --------------------------------------------------------- */

size_t upq_gzip_bound(size_t src_len)
{
    /* deflateBound's two conservative bounds (fixed-code and stored
     * blocks), whichever is larger, plus the 18-byte gzip wrapper; kept in
     * size_t, since uLong is 32 bits on the targets */
    size_t fixed = src_len + (src_len >> 3) + (src_len >> 8) + (src_len >> 9) + 4u;
    size_t stored = src_len + (src_len >> 5) + (src_len >> 7) + (src_len >> 11) + 7u;
    if (src_len > UINT_MAX / 2u)
        return 0;
    return (fixed > stored ? fixed : stored) + 18u;
}

upq_status upq_gzip_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                             size_t *dst_len, upq_arena *a)
{
    upq_arena_mark mark;
    upq_status st;
    gz_block b;
    z_stream zs;
    uint8_t none = 0;
    int r;

    if ((!src && src_len) || !dst || !dst_len)
        return UPQ_ERR_INVAL;
    if (src_len > UINT_MAX / 2u)
        return UPQ_ERR_LIMIT;
    if (dst_cap < upq_gzip_bound(src_len))
        return UPQ_ERR_BUFFER;
    mark = upq_arena_save(a);
    st = gz_begin(&zs, &b, upq_gzip_compress_workspace(), a);
    if (st != UPQ_OK)
        return st;
    r = deflateInit2(&zs, GZ_LEVEL, Z_DEFLATED, 16 + GZ_WINDOW_BITS, GZ_MEM_LEVEL,
                     Z_DEFAULT_STRATEGY);
    if (r != Z_OK) {
        upq_arena_rewind(a, mark);
        return r == Z_MEM_ERROR ? UPQ_ERR_NOMEM : UPQ_ERR_UNSUPPORTED;
    }
    zs.next_in = src ? src : &none;
    zs.avail_in = (uInt)src_len;
    zs.next_out = dst;
    zs.avail_out = dst_cap > UINT_MAX ? UINT_MAX : (uInt)dst_cap;
    /* one call finishes: the output has room for deflateBound's worst case */
    r = deflate(&zs, Z_FINISH);
    upq_arena_rewind(a, mark);
    if (r != Z_STREAM_END)
        return UPQ_ERR_BUFFER;
    *dst_len = (size_t)(zs.next_out - dst);
    return UPQ_OK;
}

#endif /* UPQ_WITH_GZIP */
