/*
 * LZ4 through lz4's block API: LZ4_RAW (one bare block) and the deprecated
 * LZ4 codec, whose pages come in two shapes that the file does not tell
 * apart.
 *
 * Legacy LZ4 pages are what Hadoop's Lz4Codec writes: one or more frames of
 * [uncompressed size, 4 bytes big-endian][compressed size, 4 bytes
 * big-endian][lz4 block]. Early parquet-cpp wrote a bare block instead. Like
 * Arrow's reader, the frames are tried first and the bare block only when
 * they do not parse to exactly the page.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_LZ4

#include <limits.h>
#include "upq_lz4_deps.h" /* before lz4.h: both must agree on LZ4_MEMORY_USAGE */
#include "lz4.h"

/* Hadoop readers decode a frame into a buffer of their configured size
 * (256 KiB by default), so frames written here stay well below it. */
#define HADOOP_FRAME_MAX ((size_t)1 << 16)
#define HADOOP_PREFIX 8u

static size_t round_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

upq_status upq_lz4_raw_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    uint8_t none = 0;
    int n;
    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    if (src_len > INT_MAX || dst_len > INT_MAX)
        return UPQ_ERR_LIMIT;
    /* lz4 rejects a NULL source even when it is empty */
    n = LZ4_decompress_safe(src ? (const char *)src : (const char *)&none,
                            dst ? (char *)dst : (char *)&none, (int)src_len, (int)dst_len);
    return n >= 0 && (size_t)n == dst_len ? UPQ_OK : UPQ_ERR_CORRUPT;
}

/* 1 when src is a sequence of one or more Hadoop frames that fills dst
 * exactly. */
static int hadoop_frames(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    if (src_len == 0)
        return 0;
    while (src_len - in >= HADOOP_PREFIX) {
        uint32_t ulen = upq_load_be32(src + in);
        uint32_t clen = upq_load_be32(src + in + 4);
        in += HADOOP_PREFIX;
        if (clen > src_len - in || ulen > dst_len - out)
            return 0;
        if (upq_lz4_raw_decompress(src + in, clen, dst ? dst + out : dst, ulen) != UPQ_OK)
            return 0;
        in += clen;
        out += ulen;
    }
    return in == src_len && out == dst_len;
}

upq_status upq_lz4_hadoop_decompress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                     size_t dst_len)
{
    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    if (src && hadoop_frames(src, src_len, dst, dst_len))
        return UPQ_OK;
    return upq_lz4_raw_decompress(src, src_len, dst, dst_len);
}

/* ---- compressor --------------------------------------------------------- */

size_t upq_lz4_raw_bound(size_t src_len)
{
    if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
        return 0;
    return src_len + src_len / 255u + 16u;
}

size_t upq_lz4_hadoop_bound(size_t src_len)
{
    size_t frames = src_len ? (src_len - 1u) / HADOOP_FRAME_MAX + 1u : 1u;
    if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
        return 0;
    /* each frame: prefix + its block bound; the /255 parts add up to at most n/255 */
    return src_len + src_len / 255u + frames * (HADOOP_PREFIX + 16u);
}

size_t upq_lz4_compress_workspace(void)
{
    return round_up8((size_t)LZ4_sizeofState());
}

/* One block into dst[0..dst_cap), state from the arena (already allocated). */
static size_t compress_block(void *state, const uint8_t *src, size_t src_len, uint8_t *dst,
                             size_t dst_cap)
{
    uint8_t none = 0;
    int cap = dst_cap > INT_MAX ? INT_MAX : (int)dst_cap;
    int n = LZ4_compress_fast_extState(state, src ? (const char *)src : (const char *)&none,
                                       (char *)dst, (int)src_len, cap, 1);
    return n > 0 ? (size_t)n : 0;
}

/* Raw LZ4 (one block), or Hadoop's framing: blocks of at most
 * HADOOP_FRAME_MAX input bytes, each behind its two sizes. */
static upq_status lz4_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                               size_t *dst_len, upq_arena *a, int hadoop)
{
    size_t prefix = hadoop ? HADOOP_PREFIX : 0u, frame = hadoop ? HADOOP_FRAME_MAX : src_len;
    size_t in = 0, out = 0;
    upq_arena_mark mark;
    void *state;
    if ((!src && src_len) || !dst || !dst_len)
        return UPQ_ERR_INVAL;
    if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
        return UPQ_ERR_LIMIT;
    if (dst_cap < (hadoop ? upq_lz4_hadoop_bound(src_len) : upq_lz4_raw_bound(src_len)))
        return UPQ_ERR_BUFFER;
    mark = upq_arena_save(a);
    state = upq_arena_alloc(a, upq_lz4_compress_workspace());
    if (!state)
        return UPQ_ERR_NOMEM;
    do { /* an empty page is still one block, as Hadoop and Arrow write it */
        size_t n = src_len - in < frame ? src_len - in : frame;
        size_t c = compress_block(state, src ? src + in : src, n, dst + out + prefix, dst_cap - out - prefix);
        if (!c) {
            upq_arena_rewind(a, mark);
            return UPQ_ERR_BUFFER; /* not reached: dst_cap covers the bound */
        }
        if (hadoop) {
            upq_store_be32(dst + out, (uint32_t)n);
            upq_store_be32(dst + out + 4, (uint32_t)c);
        }
        out += prefix + c;
        in += n;
    } while (in < src_len);
    upq_arena_rewind(a, mark);
    *dst_len = out;
    return UPQ_OK;
}

upq_status upq_lz4_raw_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                                size_t *dst_len, upq_arena *a)
{
    return lz4_compress(src, src_len, dst, dst_cap, dst_len, a, 0);
}

upq_status upq_lz4_hadoop_compress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                   size_t dst_cap, size_t *dst_len, upq_arena *a)
{
    return lz4_compress(src, src_len, dst, dst_cap, dst_len, a, 1);
}

#endif /* UPQ_WITH_LZ4 */
