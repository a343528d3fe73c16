/*
 * ZSTD pages through zstd's decoder (built without its compressor).
 *
 * The decoding context lives in the arena for the duration of one call:
 * ZSTD_initStaticDCtx on ZSTD_estimateDCtxSize() bytes, so zstd never asks
 * for a heap. One-shot decoding writes straight into the page buffer, so no
 * window buffer is needed whatever window size a frame declares.
 * ZSTD_decompressDCtx decodes every frame of the input in turn (and skips
 * skippable frames), which covers writers that emit a page as several
 * frames.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_ZSTD

#define ZSTD_STATIC_LINKING_ONLY
#include "zstd.h"

size_t upq_zstd_workspace(void)
{
    return (ZSTD_estimateDCtxSize() + 7u) & ~(size_t)7u;
}

upq_status upq_zstd_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               upq_arena *a)
{
    upq_arena_mark mark;
    size_t size = ZSTD_estimateDCtxSize(), got;
    void *mem;
    ZSTD_DCtx *dctx;

    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    /* zstd takes no input as no frames and no output; a page always has a frame */
    if (src_len == 0)
        return UPQ_ERR_CORRUPT;
    mark = upq_arena_save(a);
    mem = upq_arena_alloc(a, size);
    if (!mem)
        return UPQ_ERR_NOMEM;
    dctx = ZSTD_initStaticDCtx(mem, size); /* arena memory is 8-aligned, as zstd requires */
    if (!dctx) {
        upq_arena_rewind(a, mark);
        return UPQ_ERR_NOMEM;
    }
    /* an empty page's output: any non-null pointer zstd never writes to
     * (not a local, whose slot would add to the deepest call chain) */
    got = ZSTD_decompressDCtx(dctx, dst ? dst : (uint8_t *)(uintptr_t)src, dst_len, src, src_len);
    upq_arena_rewind(a, mark);
    return !ZSTD_isError(got) && got == dst_len ? UPQ_OK : UPQ_ERR_CORRUPT;
}

#endif /* UPQ_WITH_ZSTD */
