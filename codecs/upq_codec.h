/*
 * The one interface between µparquet and compression packages.
 *
 * Every adapter works on whole buffers (Parquet compresses each page as one
 * unit) and takes any working memory it needs from the arena, releasing it
 * (rewinding) before it returns, so codec state never outlives a call.
 */
#ifndef UPQ_CODEC_H
#define UPQ_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/status.h"
#include "uparquet/arena.h"

/*
 * Decompresses src[0..src_len) (compressed with `codec`, a upq_codec value)
 * into exactly dst_len bytes at dst. Returns UPQ_OK; UPQ_ERR_CORRUPT when the
 * input is malformed or does not decompress to exactly dst_len bytes;
 * UPQ_ERR_UNSUPPORTED when the codec is not in this build (or unknown);
 * UPQ_ERR_NOMEM when the arena cannot hold the codec's working memory
 * (upq_arena_needed() tells how much); UPQ_ERR_LIMIT when a length is more
 * than the codec's package takes in one call (over 2 GB). Never reads or
 * writes outside the given buffers; dst may be NULL when dst_len is 0. The
 * working memory is released before returning.
 */
upq_status upq_decompress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, upq_arena *a);
/* upq_decompress() for a reader, which keeps its CRC-32 kernel choice in
 * *crc_kernel (upq_crc32_update_with): GZIP's member trailers are checked
 * with it. upq_decompress() is this with no such byte (GZIP then asks the
 * CPU again, once a page of 128 KiB or more). */
upq_status upq_decompress_with(uint8_t *crc_kernel, int32_t codec, const uint8_t *src,
                               size_t src_len, uint8_t *dst, size_t dst_len, upq_arena *a);

/* Arena bytes upq_decompress() needs as working memory for `codec`: 0 for
 * UNCOMPRESSED, SNAPPY and both LZ4s, and for codecs this build lacks.
 * BROTLI's need grows with the page and with its stream: this is
 * upq_decompress_page_workspace() of a 64 KiB page. */
size_t upq_decompress_workspace(int32_t codec);

/* Arena bytes upq_decompress() needs as working memory for a page of
 * dst_len bytes: upq_decompress_workspace(codec) for every codec but BROTLI,
 * whose ring buffer grows with the page; for BROTLI, the need of a stream
 * whose meta-blocks declare one Huffman tree of each kind (more trees take
 * more: then UPQ_ERR_NOMEM and upq_arena_needed(), see upq_brotli.c). */
size_t upq_decompress_page_workspace(int32_t codec, size_t dst_len);

/* 1 when this build can decompress `codec`. */
int upq_codec_can_decompress(int32_t codec);

/*
 * Compresses src[0..src_len) with `codec` into dst[0..dst_cap). *dst_len
 * gets the compressed size. dst_cap must be at least
 * upq_compress_bound(codec, src_len) (else UPQ_ERR_BUFFER). Working memory
 * comes from the arena and is released before returning; UPQ_ERR_NOMEM when
 * it does not fit (upq_arena_needed() tells how much). UPQ_ERR_UNSUPPORTED
 * for codecs this build cannot write (ZSTD and BROTLI are decompress-only); UPQ_ERR_LIMIT
 * when src_len is more than the codec takes in one piece (over 2 GB).
 * UPQ_CODEC_LZ4 writes Hadoop frames (what every reader of that codec
 * accepts); new files should prefer UPQ_CODEC_LZ4_RAW.
 */
upq_status upq_compress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_cap, size_t *dst_len, upq_arena *a);

/* Largest output upq_compress() can produce for src_len bytes; 0 when this
 * build cannot compress that much with `codec` (or cannot write `codec`). */
size_t upq_compress_bound(int32_t codec, size_t src_len);

/* Arena bytes upq_compress() may need as working memory for `codec`. */
size_t upq_compress_workspace(int32_t codec);

/*
 * Per-codec entry points (each file compiles to nothing when disabled), with
 * the contracts of upq_decompress() and upq_compress(). The *_workspace()
 * functions give the exact arena bytes the matching call takes; *_bound()
 * the output room the compressors require.
 */
upq_status upq_snappy_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);
upq_status upq_snappy_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                               size_t *dst_len, upq_arena *a);
size_t upq_snappy_bound(size_t src_len);
size_t upq_snappy_compress_workspace(void);

upq_status upq_lz4_raw_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);
upq_status upq_lz4_hadoop_decompress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                     size_t dst_len);
upq_status upq_lz4_raw_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                                size_t *dst_len, upq_arena *a);
upq_status upq_lz4_hadoop_compress(const uint8_t *src, size_t src_len, uint8_t *dst,
                                   size_t dst_cap, size_t *dst_len, upq_arena *a);
size_t upq_lz4_raw_bound(size_t src_len);
size_t upq_lz4_hadoop_bound(size_t src_len);
size_t upq_lz4_compress_workspace(void);

upq_status upq_zstd_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               upq_arena *a);
size_t upq_zstd_workspace(void);

upq_status upq_gzip_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               upq_arena *a, uint8_t *crc_kernel);
upq_status upq_gzip_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                             size_t *dst_len, upq_arena *a);
size_t upq_gzip_bound(size_t src_len);
size_t upq_gzip_decompress_workspace(void);
size_t upq_gzip_compress_workspace(void);

/* BROTLI (decompress only). upq_brotli_workspace(dst_len): the need of a
 * page of dst_len bytes whose stream has one Huffman tree of each kind per
 * meta-block; upq_brotli_max_workspace(dst_len): the most any valid stream
 * for such a page can take (256 trees of each kind, 2.7 MB and up). */
upq_status upq_brotli_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                                 upq_arena *a);
size_t upq_brotli_workspace(size_t dst_len);
size_t upq_brotli_max_workspace(size_t dst_len);

/*
 * Stored forms: a page in `codec` that holds its plain bytes as literals,
 * made without the compressor and without any working memory. Power-loss
 * recovery uses them to write a valid compressed page (a dictionary page)
 * from plain bytes it reads back from storage in pieces, in an arena far
 * smaller than LZ4's state or deflate's window and hash tables. They are
 * larger than the plain bytes by their framing (about 0.4% for the LZ4s,
 * under 0.01% plus a few bytes for the others):
 *
 *   UNCOMPRESSED  the bytes themselves
 *   SNAPPY        varint length, then literal elements of at most 64 KiB
 *                 (the longest literal the reference compressor emits)
 *   LZ4_RAW       one block of one literals-only sequence (the last sequence
 *                 of every block is one; a block of only literals is valid
 *                 at any length, 0 included: the single byte 0x00)
 *   LZ4           Hadoop frames of at most 64 KiB of plain bytes, as
 *                 upq_compress() writes them, each holding such a block; an
 *                 empty page is one empty frame
 *   GZIP          one gzip member (no name, time 0, OS unknown) of deflate
 *                 stored blocks of at most 65535 bytes, CRC-32 and ISIZE
 *
 * A codec has a stored form exactly when this build writes it: its
 * UPQ_WITH_* option is on (UNCOMPRESSED always). The forms need no package
 * code, but a page this build could not read back has no use to it, and each
 * section compiles to nothing with its option, like the adapters. ZSTD,
 * decompress-only here, has none: the writer never makes a ZSTD page.
 *
 * Streaming: the caller owns a upq_stored cursor (plain data, a few words
 * and no pointers, so it may be copied or saved and carried on from the
 * copy) and asks it for the next piece: up to UPQ_STORED_PIECE framing
 * bytes, written to the caller's buffer, then how many plain bytes to pass
 * through unchanged. The plain bytes never go through these functions and
 * nothing is kept between calls but the cursor; the caller copies the
 * bytes from wherever it reads them, in pieces of any size (a run may span
 * several reads, a read several runs).
 *
 *     upq_stored st;
 *     uint8_t frame[UPQ_STORED_PIECE];
 *     size_t k, run;
 *     uint32_t crc = 0;                      (CRC-32 of the plain bytes so far)
 *     if (upq_stored_begin(&st, codec, n) != UPQ_OK) ...
 *     while ((k = upq_stored_next(&st, crc, frame, &run)) != 0 || run != 0) {
 *         emit frame[0..k);
 *         emit the next `run` plain bytes, crc = upq_crc32_update(crc, ...);
 *     }
 *
 * What is emitted is exactly upq_stored_size(codec, n) bytes, and
 * upq_decompress(codec, ...) gives back the n plain bytes: the page header
 * states upq_stored_size() as the compressed size and n as the uncompressed
 * one. A page CRC, where one is written, covers the emitted bytes.
 */
#define UPQ_STORED_PIECE 16 /* most framing bytes one upq_stored_next() call writes */

typedef struct upq_stored {
    size_t n;      /* plain bytes in all */
    size_t pos;    /* plain bytes handed out as runs so far */
    size_t done;   /* framing bytes before plain byte `pos` already written */
    int32_t codec; /* -1 when upq_stored_begin() failed: the cursor yields nothing */
} upq_stored;

/* Bytes of the stored form of n plain bytes (framing included), at most
 * INT32_MAX (a page header states page sizes as i32). 0 when `codec` has no
 * stored form in this build or the form would be larger than that; also, as
 * its true size, for UNCOMPRESSED with n == 0 (upq_stored_begin() tells the
 * cases apart). */
size_t upq_stored_size(int32_t codec, size_t n);

/* Starts the stored form of n plain bytes in *s. UPQ_OK; UPQ_ERR_UNSUPPORTED
 * when `codec` has no stored form in this build; UPQ_ERR_LIMIT when
 * upq_stored_size() would be over INT32_MAX; UPQ_ERR_INVAL when s is NULL.
 * After an error the cursor yields nothing. */
upq_status upq_stored_begin(upq_stored *s, int32_t codec, size_t n);

/*
 * The next piece of the stored form: writes up to UPQ_STORED_PIECE framing
 * bytes to out and returns their count, and sets *run to the number of plain
 * bytes that come next, right after those framing bytes (0 while more
 * framing follows: LZ4's length of a long literal run takes n / 255 bytes;
 * a run with no framing before it also occurs: UNCOMPRESSED has none).
 * The cursor counts the run as handed out; the caller must emit exactly those
 * plain bytes before the next call. Returns 0 with *run == 0 once the form
 * is complete, and on every call after that (also when s, out or run is
 * NULL).
 *
 * crc is the CRC-32 (upq_crc32_update() from 0) of the plain bytes handed
 * out so far, [0, s->pos). Only GZIP reads it, for its trailer, once all n
 * plain bytes are out: before that any value does.
 */
size_t upq_stored_next(upq_stored *s, uint32_t crc, uint8_t out[UPQ_STORED_PIECE], size_t *run);

#endif
