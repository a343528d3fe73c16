/*
 * Value and level encoders: the inverse of the page decoders (encoding.h).
 *
 * Pure in-memory functions: they read the caller's values and write into the
 * caller's buffer, keep no state and allocate nothing. Their output is what
 * the common writers produce for the same input (parquet-cpp/Arrow for the
 * RLE/bit-packing hybrid, Arrow and parquet-java for the delta encodings),
 * so files written with them compress and read like theirs.
 *
 * Input representation of values (one element per value, nulls excluded), as
 * in column.h: BOOLEAN uint8_t (0 false, anything else true), INT32 int32_t,
 * INT64 int64_t, INT96 upq_int96, FLOAT float, DOUBLE double, BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY upq_bytes.
 *
 * Sizing follows one rule everywhere: when `cap` is too small the call
 * returns UPQ_ERR_BUFFER and still sets *len to the exact number of bytes the
 * output needs (the contents of out[0..cap) are then unspecified), so a
 * caller can retry with that size. The *_bound functions give a size that is
 * always enough without looking at the values.
 *
 * Also the output cursor the encoders share, their packing kernels, and the
 * per-encoding entry points upq_encode_values dispatches to.
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
#include "uparquet/status.h"
#include "uparquet/types.h"
#include "uparquet/meta.h"
#include "upq_port.h"


/*
 * Upper bound of the bytes upq_encode_values writes for n values whose
 * byte-array payloads total `payload` bytes (ignored for fixed-width types,
 * FIXED_LEN_BYTE_ARRAY included: it uses n * type_length). Returns 0 for an
 * encoding/type pair upq_encode_values does not support (or a
 * FIXED_LEN_BYTE_ARRAY type_length below 1), SIZE_MAX when the bound does
 * not fit in a size_t.
 */
size_t upq_encode_bound(int32_t encoding, int32_t physical_type, int32_t type_length, size_t n,
                        size_t payload);

/*
 * Encodes n values (representation above) into out[0..cap); `values` and
 * `out` belong to the caller and must not overlap. Encodings:
 *   PLAIN                    every type; booleans bit-packed LSB first
 *   RLE                      BOOLEAN only, with the 4-byte little-endian
 *                            length prefix data pages (v1 and v2) use
 *   DELTA_BINARY_PACKED      INT32 (32-bit wrap-around deltas), INT64; blocks
 *                            of 128 values in 4 miniblocks of 32
 *   DELTA_LENGTH_BYTE_ARRAY  BYTE_ARRAY
 *   DELTA_BYTE_ARRAY         BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY (prefixes
 *                            shared with the previous value)
 *   BYTE_STREAM_SPLIT        FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY
 * Dictionary indices and levels use upq_encode_rle32/16 below.
 *
 * Returns UPQ_OK with *len bytes written; UPQ_ERR_UNSUPPORTED for any other
 * encoding/type pair; UPQ_ERR_BUFFER when cap is too small (*len = bytes
 * needed); UPQ_ERR_INVAL when a FIXED_LEN_BYTE_ARRAY value's length differs
 * from type_length (or type_length < 1) or a BYTE_ARRAY value is longer than
 * INT32_MAX bytes (the format stores lengths as INT32); UPQ_ERR_LIMIT when n
 * exceeds INT32_MAX (a page's value count is an INT32) or the output size
 * does not fit in a size_t.
 */
upq_status upq_encode_values(int32_t encoding, int32_t physical_type, int32_t type_length,
                             const void *values, size_t n, uint8_t *out, size_t cap, size_t *len);

/*
 * RLE/bit-packing hybrid WITHOUT any prefix (definition and repetition
 * levels as uint16_t, dictionary indices as uint32_t; the caller adds the
 * 4-byte length of v1 levels or the bit-width byte of dictionary indices).
 * Runs are chosen as parquet-cpp/Arrow do: a group of 8 equal values starts
 * an RLE run that lasts as long as the value repeats; other values are
 * bit-packed in groups of 8, at most 63 groups per run; a last group of
 * fewer than 8 values is an RLE run when all equal and no bit-packed run is
 * open, else it is zero-padded to 8.
 *
 * upq_rle_bound: bytes that always suffice for n values (0 when bit_width is
 * above 32; SIZE_MAX when the bound does not fit in a size_t).
 * upq_encode_rle16/32: UPQ_OK with *len; UPQ_ERR_BUFFER when cap is too small
 * (*len = bytes needed); UPQ_ERR_INVAL when bit_width exceeds 16 (rle16) or
 * 32 (rle32) or a value does not fit in bit_width bits.
 */
size_t upq_rle_bound(size_t n, unsigned bit_width);
upq_status upq_encode_rle16(const uint16_t *v, size_t n, unsigned bit_width, uint8_t *out,
                            size_t cap, size_t *len);
upq_status upq_encode_rle32(const uint32_t *v, size_t n, unsigned bit_width, uint8_t *out,
                            size_t cap, size_t *len);

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
