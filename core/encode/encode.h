/*
 * Internal include path for the encoders (see uparquet/encode.h): the output
 * cursor they share, their packing kernels, and the per-encoding entry points
 * upq_encode_values dispatches to.
 *
 * Every encoder writes through an upq_wbuf. A write that does not fit is
 * skipped but still counted, so one pass gives either the output or the exact
 * size it needs; the encoders never branch on whether output fits except to
 * skip work whose bytes would be dropped.
 */
#ifndef UPQ_ENCODE_INTERNAL_H
#define UPQ_ENCODE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/encode.h"
#include "upq_port.h"

typedef struct upq_wbuf {
    uint8_t *p;       /* the caller's buffer (may be NULL when cap is 0) */
    size_t cap;
    size_t pos;       /* bytes produced so far, past cap included */
    uint8_t overflow; /* the size needed does not fit in a size_t */
} upq_wbuf;

UPQ_INLINE void upq_wb_init(upq_wbuf *w, uint8_t *p, size_t cap)
{
    w->p = p;
    w->cap = p ? cap : 0;
    w->pos = 0;
    w->overflow = 0;
}

/* Claims the next k bytes: where to write them, or NULL when they do not fit
 * (they are counted all the same). Out of line in a size-optimised build
 * (defined in encode_values.c): inlined, every claim costs ~30 bytes. */
#ifdef __OPTIMIZE_SIZE__
uint8_t *upq_wb_take(upq_wbuf *w, size_t k);
#define UPQ_WB_TAKE_FN
#else
#define UPQ_WB_TAKE_FN UPQ_INLINE
#endif
#if !defined(__OPTIMIZE_SIZE__) || defined(UPQ_WB_TAKE_HERE)
UPQ_WB_TAKE_FN uint8_t *upq_wb_take(upq_wbuf *w, size_t k)
{
    uint8_t *at = (uint8_t *)0;
    if (k > SIZE_MAX - w->pos) {
        w->overflow = 1;
        w->pos = SIZE_MAX;
        return at;
    }
    if (w->p && w->pos <= w->cap && k <= w->cap - w->pos)
        at = w->p + w->pos;
    w->pos += k;
    return at;
}
#endif

/* ULEB128 of v into p (room for 10 bytes); returns the bytes written. */
/* Levels packed 1 << lg bits each (lg 0..3), low bits first in each byte:
 * the writer stages them so (a flat optional column's take a bit). */
UPQ_INLINE uint32_t upq_lev_get(const uint8_t *p, uint32_t i, unsigned lg)
{
    unsigned per = 3u - lg, sh = (unsigned)(i & ((1u << per) - 1u)) << lg;
    return ((uint32_t)p[i >> per] >> sh) & ((1u << (1u << lg)) - 1u);
}

UPQ_INLINE void upq_lev_set(uint8_t *p, uint32_t i, unsigned lg, uint32_t v)
{
    unsigned per = 3u - lg, sh = (unsigned)(i & ((1u << per) - 1u)) << lg;
    unsigned mask = ((1u << (1u << lg)) - 1u) << sh;
    p[i >> per] = (uint8_t)((p[i >> per] & ~mask) | ((v << sh) & mask));
}

/* Bytes of n levels packed 1 << lg bits each. */
UPQ_INLINE size_t upq_lev_bytes(size_t n, unsigned lg)
{
    return ((n << lg) + 7u) >> 3;
}

UPQ_INLINE unsigned upq_put_uleb(uint8_t *p, uint64_t v)
{
    unsigned n = 0;
    while (v >= 0x80u) {
        p[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

UPQ_INLINE unsigned upq_uleb_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes a ULEB128 through w. */
void upq_wb_uleb(upq_wbuf *w, uint64_t v);

/* UPQ_OK / UPQ_ERR_BUFFER / UPQ_ERR_LIMIT for what w saw; *len as encode.h says. */
upq_status upq_wb_finish(const upq_wbuf *w, size_t *len);

/* Saturating size arithmetic for the bounds. */
size_t upq_size_add(size_t a, size_t b);
size_t upq_size_mul(size_t a, size_t b);

/* ---- encode_kernels.c: the inner loops a SIMD build would replace -------- */

/*
 * Bit packing, LSB first (the hybrid and DELTA_BINARY_PACKED order): n values
 * (n a multiple of 8) of bw bits into exactly n / 8 * bw bytes at out. Every
 * value must be below 2^bw; bw 0 writes nothing. bw 0..32 for pack16 (0..16)
 * and pack32, 0..64 for pack64.
 */
void upq_pack16(const uint16_t *v, size_t n, unsigned bw, uint8_t *out);
void upq_pack32(const uint32_t *v, size_t n, unsigned bw, uint8_t *out);
void upq_pack64(const uint64_t *v, size_t n, unsigned bw, uint8_t *out);
/* n booleans (any nonzero byte is true), one bit each, into (n + 7) / 8
 * bytes; the unused high bits of the last byte are zero. */
void upq_pack_bool(const uint8_t *v, size_t n, uint8_t *out);

/* ---- per-encoding entry points (arguments already checked) --------------- */

/* encode_plain.c: PLAIN of any type. */
void upq_enc_plain(upq_wbuf *w, int32_t physical_type, int32_t type_length, const void *values,
                   size_t n);

/* encode_rle.c: the hybrid over uint8_t booleans (bit width 1), uint16_t or
 * uint32_t values; UPQ_ERR_INVAL for a value above bit_width. */
upq_status upq_enc_hybrid_bool(upq_wbuf *w, const uint8_t *v, size_t n);
upq_status upq_enc_hybrid16(upq_wbuf *w, const uint16_t *v, size_t n, unsigned bit_width);
upq_status upq_enc_hybrid32(upq_wbuf *w, const uint32_t *v, size_t n, unsigned bit_width);
/* Levels packed 1 << lg bits each (upq_lev_get), at bit_width. */
upq_status upq_enc_hybrid_levels(upq_wbuf *w, const uint8_t *v, size_t n, unsigned lg, unsigned bit_width);

/* encode_delta.c. Block shape of the writers: 128 values, 4 miniblocks. */
#define UPQ_DELTA_BLOCK 128u
#define UPQ_DELTA_MINIS 4u
void upq_enc_dbp(upq_wbuf *w, int is64, const void *values, size_t n, unsigned block,
                 unsigned minis);
void upq_enc_dlba(upq_wbuf *w, const upq_bytes *v, size_t n, size_t payload);
void upq_enc_dba(upq_wbuf *w, const upq_bytes *v, size_t n);

/*
 * DELTA_BINARY_PACKED with another block shape: block / minis values per
 * miniblock, a multiple of 8 up to 32, at most 4 miniblocks. The format only
 * allows blocks that are multiples of 128 and miniblocks of multiples of 32
 * values; smaller shapes exist for the specification's worked examples
 * (blocks of 8). Returns like upq_encode_values; UPQ_ERR_INVAL for a shape
 * outside those limits.
 */
upq_status upq_encode_dbp_shape(int32_t physical_type, const void *values, size_t n,
                                unsigned block, unsigned minis, uint8_t *out, size_t cap,
                                size_t *len);

/* encode_bss.c: BYTE_STREAM_SPLIT of width-byte values (width 4 or 8 for the
 * numeric types, type_length for FIXED_LEN_BYTE_ARRAY). */
void upq_enc_bss(upq_wbuf *w, int32_t physical_type, size_t width, const void *values, size_t n);

#endif
