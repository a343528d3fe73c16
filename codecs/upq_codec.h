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

/* Arena bytes upq_decompress() needs as working memory for `codec`: 0 for
 * UNCOMPRESSED, SNAPPY and both LZ4s, and for codecs this build lacks. */
size_t upq_decompress_workspace(int32_t codec);

/* 1 when this build can decompress `codec`. */
int upq_codec_can_decompress(int32_t codec);

/*
 * Compresses src[0..src_len) with `codec` into dst[0..dst_cap). *dst_len
 * gets the compressed size. dst_cap must be at least
 * upq_compress_bound(codec, src_len) (else UPQ_ERR_BUFFER). Working memory
 * comes from the arena and is released before returning; UPQ_ERR_NOMEM when
 * it does not fit (upq_arena_needed() tells how much). UPQ_ERR_UNSUPPORTED
 * for codecs this build cannot write (ZSTD is decompress-only); UPQ_ERR_LIMIT
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
                               upq_arena *a);
upq_status upq_gzip_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                             size_t *dst_len, upq_arena *a);
size_t upq_gzip_bound(size_t src_len);
size_t upq_gzip_decompress_workspace(void);
size_t upq_gzip_compress_workspace(void);

#endif
