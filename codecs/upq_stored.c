/*
 * Stored forms (see upq_codec.h): each codec's framing around literal plain
 * bytes, made one small piece at a time so that a caller streaming the
 * plain bytes from storage needs no buffer for them and no codec state.
 *
 * The form is a run of frames, each some framing then some plain bytes,
 * and a trailer. The framing before plain byte `pos` depends only on the
 * codec, n, pos (and, for GZIP's trailer, the CRC), so the cursor keeps
 * no more than where it is: `pos`, and how much of that framing it has
 * written. Each call rebuilds the framing at `pos` as
 *
 *     head[0..h)  then  `ff` bytes 0xFF  then  `t` (0 or 1) bytes `tail`
 *
 * (the 0xFF bytes and the tail are LZ4's length extension, n / 255 bytes,
 * too many for a buffer) and writes the next slice of it.
 *
 * Sizes: a page header gives page sizes as i32, so no form is made larger
 * than INT32_MAX bytes; below that every sum here fits a 32-bit size_t.
 */
#include "upq_codec.h"
#include "uparquet/meta.h"
#include "upq_port.h"

#define STORED_MAX ((size_t)0x7FFFFFFF) /* INT32_MAX: page sizes are i32 */
#define SNAPPY_LITERAL_MAX ((size_t)1 << 16) /* the reference's block size */
#define HADOOP_FRAME_MAX ((size_t)1 << 16)   /* as upq_lz4.c writes frames */
#define DEFLATE_STORED_MAX ((size_t)0xFFFF)  /* LEN is 16 bits */

/* The framing before one plain byte, and the plain bytes that follow it. */
typedef struct framing {
    uint8_t head[24]; /* GZIP's empty page, the longest: 10 + 5 + 8 bytes */
    uint8_t tail;
    size_t h, ff, t;
    size_t run;
} framing;

#if UPQ_WITH_SNAPPY || UPQ_WITH_LZ4 || UPQ_WITH_GZIP
static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}
#endif

/* 1 when this build has a stored form for `codec`. */
static int stored_has(int32_t codec)
{
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: return 1;
    case UPQ_CODEC_SNAPPY: return UPQ_WITH_SNAPPY;
    case UPQ_CODEC_LZ4:
    case UPQ_CODEC_LZ4_RAW: return UPQ_WITH_LZ4;
    case UPQ_CODEC_GZIP: return UPQ_WITH_GZIP;
    default: return 0; /* ZSTD (decompress-only), LZO, BROTLI, unknown */
    }
}

/* ---- snappy: varint length, literal elements ------------------------------ */

#if UPQ_WITH_SNAPPY
static size_t snappy_varint_size(size_t v)
{
    size_t k = 1;
    while (v >= 0x80u) {
        v >>= 7;
        k++;
    }
    return k;
}

/* Tag bytes of a literal element of len (1..64 KiB) bytes. */
static size_t snappy_tag_size(size_t len)
{
    return len <= 60u ? 1u : len <= 256u ? 2u : 3u;
}

static size_t snappy_size(size_t n)
{
    size_t full = n / SNAPPY_LITERAL_MAX, rest = n % SNAPPY_LITERAL_MAX;
    return snappy_varint_size(n) + n + full * snappy_tag_size(SNAPPY_LITERAL_MAX) +
           (rest ? snappy_tag_size(rest) : 0u);
}

static void snappy_framing(framing *f, size_t n, size_t pos)
{
    size_t left = n - pos, len, v;
    if (pos == 0) /* the uncompressed length, 7 bits a byte, low first */
        for (v = n;; v >>= 7) {
            f->head[f->h++] = (uint8_t)(v >= 0x80u ? (v & 0x7Fu) | 0x80u : v);
            if (v < 0x80u)
                break;
        }
    if (!left)
        return;
    len = min_size(left, SNAPPY_LITERAL_MAX);
    if (len <= 60u) { /* tag 00, len - 1 in the upper six bits */
        f->head[f->h++] = (uint8_t)((len - 1u) << 2);
    } else { /* 60 + k: len - 1 in the next k bytes, little-endian */
        size_t k = snappy_tag_size(len) - 1u, i;
        f->head[f->h++] = (uint8_t)((59u + k) << 2);
        for (i = 0; i < k; i++)
            f->head[f->h++] = (uint8_t)((len - 1u) >> (8u * i));
    }
    f->run = len;
}
#endif /* UPQ_WITH_SNAPPY */

/* ---- lz4: blocks of one literals-only sequence ------------------------------ */

#if UPQ_WITH_LZ4
/* Bytes of the block holding len literals, the literals included: the token,
 * whose high nibble is the length up to 15, then for 15 and more the rest of
 * it as bytes of 255 and a last byte below 255. The sequence is the block's
 * last, so it ends after its literals with no match; that satisfies the
 * end-of-block rules (last 5 bytes literals, last match 12 bytes before the
 * end), which only constrain matches. */
static size_t lz4_block_size(size_t len)
{
    return 1u + (len >= 15u ? (len - 15u) / 255u + 1u : 0u) + len;
}

static void lz4_literal_length(framing *f, size_t len)
{
    if (len < 15u) {
        f->head[f->h++] = (uint8_t)(len << 4);
        return;
    }
    f->head[f->h++] = 0xF0u;
    f->ff = (len - 15u) / 255u;
    f->tail = (uint8_t)((len - 15u) % 255u);
    f->t = 1;
}

static size_t lz4_hadoop_size(size_t n)
{
    size_t full = n / HADOOP_FRAME_MAX, rest = n % HADOOP_FRAME_MAX;
    size_t s = full * (8u + lz4_block_size(HADOOP_FRAME_MAX));
    if (rest || !n) /* an empty page is one empty frame */
        s += 8u + lz4_block_size(rest);
    return s;
}

static void lz4_raw_framing(framing *f, size_t n, size_t pos)
{
    if (pos)
        return; /* one block: nothing after its literals */
    lz4_literal_length(f, n);
    f->run = n;
}

/* Frame: plain length, block length (both 4 bytes big-endian), block. */
static void lz4_hadoop_framing(framing *f, size_t n, size_t pos)
{
    size_t len = min_size(n - pos, HADOOP_FRAME_MAX);
    if (pos == n && n)
        return;
    upq_store_be32(f->head, (uint32_t)len);
    upq_store_be32(f->head + 4, (uint32_t)lz4_block_size(len));
    f->h = 8;
    lz4_literal_length(f, len);
    f->run = len;
}
#endif /* UPQ_WITH_LZ4 */

/* ---- gzip: one member of deflate stored blocks ------------------------------ */

#if UPQ_WITH_GZIP
#define GZ_HEADER 10u
#define GZ_BLOCK_HEADER 5u
#define GZ_TRAILER 8u

static size_t gzip_size(size_t n)
{
    size_t blocks = n ? (n - 1u) / DEFLATE_STORED_MAX + 1u : 1u;
    return GZ_HEADER + blocks * GZ_BLOCK_HEADER + n + GZ_TRAILER;
}

static void gzip_framing(framing *f, size_t n, size_t pos, uint32_t crc)
{
    size_t left = n - pos;
    if (pos == 0) {
        /* ID1 ID2, CM deflate, no flags, MTIME 0 (none), XFL 0, OS unknown */
        static const uint8_t member[GZ_HEADER] = {0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF};
        upq_memcpy(f->head, member, GZ_HEADER);
        f->h = GZ_HEADER;
    }
    if (left || !n) {
        /* BFINAL on the last block, BTYPE 00 (stored), the other five bits
         * padding to the byte boundary; LEN and its complement NLEN,
         * little-endian. An empty page is one empty final block. */
        size_t len = min_size(left, DEFLATE_STORED_MAX);
        f->head[f->h] = len == left ? 1u : 0u;
        upq_store_le16(f->head + f->h + 1, (uint16_t)len);
        upq_store_le16(f->head + f->h + 3, (uint16_t)~len);
        f->h += GZ_BLOCK_HEADER;
        f->run = len;
    }
    if (!left) { /* CRC-32 and ISIZE (n mod 2^32), little-endian */
        upq_store_le32(f->head + f->h, crc);
        upq_store_le32(f->head + f->h + 4, (uint32_t)n);
        f->h += GZ_TRAILER;
    }
}
#endif /* UPQ_WITH_GZIP */

/* ---- dispatch ----------------------------------------------------------------- */

size_t upq_stored_size(int32_t codec, size_t n)
{
    size_t s;
    if (n > STORED_MAX)
        return 0;
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: s = n; break;
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: s = snappy_size(n); break;
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW: s = lz4_block_size(n); break;
    case UPQ_CODEC_LZ4: s = lz4_hadoop_size(n); break;
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: s = gzip_size(n); break;
#endif
    default: return 0;
    }
    return s > STORED_MAX ? 0 : s;
}

upq_status upq_stored_begin(upq_stored *s, int32_t codec, size_t n)
{
    if (!s)
        return UPQ_ERR_INVAL;
    s->n = s->pos = s->done = 0;
    s->codec = -1;
    if (!stored_has(codec))
        return UPQ_ERR_UNSUPPORTED;
    if (n > STORED_MAX || (n && !upq_stored_size(codec, n)))
        return UPQ_ERR_LIMIT;
    s->n = n;
    s->codec = codec;
    return UPQ_OK;
}

/* The framing before plain byte s->pos and the run after it. */
static void framing_at(const upq_stored *s, uint32_t crc, framing *f)
{
    f->h = f->ff = f->t = f->run = 0;
    f->tail = 0;
    (void)crc; /* read by GZIP only */
    switch (s->codec) {
    case UPQ_CODEC_UNCOMPRESSED: f->run = s->n - s->pos; break;
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: snappy_framing(f, s->n, s->pos); break;
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW: lz4_raw_framing(f, s->n, s->pos); break;
    case UPQ_CODEC_LZ4: lz4_hadoop_framing(f, s->n, s->pos); break;
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: gzip_framing(f, s->n, s->pos, crc); break;
#endif
    default: break; /* no codec (upq_stored_begin failed): nothing */
    }
}

size_t upq_stored_next(upq_stored *s, uint32_t crc, uint8_t out[UPQ_STORED_PIECE], size_t *run)
{
    framing f;
    size_t len, k = 0;
    if (run)
        *run = 0;
    if (!s || !out || !run || s->pos > s->n)
        return 0;
    framing_at(s, crc, &f);
    len = f.h + f.ff + f.t;
    while (s->done < len && k < UPQ_STORED_PIECE) {
        size_t i = s->done++;
        out[k++] = i < f.h ? f.head[i] : i < f.h + f.ff ? 0xFFu : f.tail;
    }
    /* framing done: the plain bytes after it (none after the trailer, where
     * `done` stays at the end so every later call yields nothing) */
    if (s->done >= len && s->pos < s->n) {
        *run = f.run;
        s->pos += f.run;
        s->done = 0;
    }
    return k;
}
