/* Codec dispatch: one switch, so a build without a codec names it clearly. */
#include "upq_codec.h"
#include "uparquet/meta.h"
#include "upq_port.h"

int upq_codec_can_decompress(int32_t codec)
{
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: return 1;
    case UPQ_CODEC_SNAPPY: return UPQ_WITH_SNAPPY;
    case UPQ_CODEC_LZ4:
    case UPQ_CODEC_LZ4_RAW: return UPQ_WITH_LZ4;
    case UPQ_CODEC_ZSTD: return UPQ_WITH_ZSTD;
    case UPQ_CODEC_GZIP: return UPQ_WITH_GZIP;
    case UPQ_CODEC_BROTLI: return UPQ_WITH_BROTLI;
    default: return 0; /* LZO, unknown */
    }
}

upq_status upq_decompress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, upq_arena *a)
{
    return upq_decompress_with((uint8_t *)0, codec, src, src_len, dst, dst_len, a);
}

upq_status upq_decompress_with(uint8_t *crc_kernel, int32_t codec, const uint8_t *src,
                               size_t src_len, uint8_t *dst, size_t dst_len, upq_arena *a)
{
    (void)a;
    (void)crc_kernel;
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED:
        if (src_len != dst_len)
            return UPQ_ERR_CORRUPT;
        upq_memcpy(dst, src, dst_len);
        return UPQ_OK;
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: return upq_snappy_decompress(src, src_len, dst, dst_len);
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW: return upq_lz4_raw_decompress(src, src_len, dst, dst_len);
    case UPQ_CODEC_LZ4: return upq_lz4_hadoop_decompress(src, src_len, dst, dst_len);
#endif
#if UPQ_WITH_ZSTD
    case UPQ_CODEC_ZSTD: return upq_zstd_decompress(src, src_len, dst, dst_len, a);
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: return upq_gzip_decompress(src, src_len, dst, dst_len, a, crc_kernel);
#endif
#if UPQ_WITH_BROTLI
    case UPQ_CODEC_BROTLI: return upq_brotli_decompress(src, src_len, dst, dst_len, a);
#endif
    default: return UPQ_ERR_UNSUPPORTED;
    }
}

size_t upq_decompress_workspace(int32_t codec)
{
    switch (codec) {
#if UPQ_WITH_ZSTD
    case UPQ_CODEC_ZSTD: return upq_zstd_workspace();
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: return upq_gzip_decompress_workspace();
#endif
#if UPQ_WITH_BROTLI
    case UPQ_CODEC_BROTLI: return upq_brotli_workspace((size_t)64 << 10);
#endif
    default: return 0; /* the others decode with no working memory */
    }
}

size_t upq_decompress_page_workspace(int32_t codec, size_t dst_len)
{
#if UPQ_WITH_BROTLI
    if (codec == UPQ_CODEC_BROTLI)
        return upq_brotli_workspace(dst_len);
#endif
    (void)dst_len;
    return upq_decompress_workspace(codec);
}

upq_status upq_compress(int32_t codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_cap, size_t *dst_len, upq_arena *a)
{
    (void)a; /* unused when no codec needs working memory */
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED:
        if ((!src && src_len) || (!dst && dst_cap) || !dst_len)
            return UPQ_ERR_INVAL;
        if (dst_cap < src_len)
            return UPQ_ERR_BUFFER;
        if (src_len)
            upq_memcpy(dst, src, src_len);
        *dst_len = src_len;
        return UPQ_OK;
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: return upq_snappy_compress(src, src_len, dst, dst_cap, dst_len, a);
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW: return upq_lz4_raw_compress(src, src_len, dst, dst_cap, dst_len, a);
    case UPQ_CODEC_LZ4: return upq_lz4_hadoop_compress(src, src_len, dst, dst_cap, dst_len, a);
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: return upq_gzip_compress(src, src_len, dst, dst_cap, dst_len, a);
#endif
    default: return UPQ_ERR_UNSUPPORTED; /* ZSTD and BROTLI are decompress-only */
    }
}

size_t upq_compress_bound(int32_t codec, size_t src_len)
{
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: return src_len;
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: return src_len > 0xFFFFFFFFu ? 0 : upq_snappy_bound(src_len);
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW: return upq_lz4_raw_bound(src_len);
    case UPQ_CODEC_LZ4: return upq_lz4_hadoop_bound(src_len);
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: return upq_gzip_bound(src_len);
#endif
    default: return 0;
    }
}

size_t upq_compress_workspace(int32_t codec)
{
    switch (codec) {
#if UPQ_WITH_SNAPPY
    case UPQ_CODEC_SNAPPY: return upq_snappy_compress_workspace();
#endif
#if UPQ_WITH_LZ4
    case UPQ_CODEC_LZ4_RAW:
    case UPQ_CODEC_LZ4: return upq_lz4_compress_workspace();
#endif
#if UPQ_WITH_GZIP
    case UPQ_CODEC_GZIP: return upq_gzip_compress_workspace();
#endif
    default: return 0;
    }
}
