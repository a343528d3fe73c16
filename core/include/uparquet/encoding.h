/*
 * Level and value decoders over in-memory page sections (internal).
 *
 * Pages are decoded from a buffer that holds the whole (decompressed) page,
 * so these decoders never wait for I/O; they keep their position between
 * calls so a page can be consumed in batches of any size. Every count and
 * length read from the page is checked against the bytes that are there.
 *
 * Output representation of values (one element per value, nulls excluded):
 *   BOOLEAN uint8_t (0/1), INT32 int32_t, INT64 int64_t, INT96 upq_int96,
 *   FLOAT float, DOUBLE double, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY upq_bytes
 *   (pointing into the page, the dictionary, or the caller's value buffer).
 */
#ifndef UPARQUET_ENCODING_H
#define UPARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "thrift.h"
#include "meta.h"
#include "reader.h" /* upq_int96 */


#ifdef __cplusplus
extern "C" {
#endif

/* Bytes one value occupies in the output arrays above (0 for unknown types). */
size_t upq_value_size(int32_t physical_type);

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ---- */

typedef struct upq_rle_dec {
    const uint8_t *p;    /* next run header, or (bit-packed run) its current group of 8 */
    const uint8_t *end;
    uint32_t left;       /* values left in the current run */
    uint32_t value;      /* value of the current RLE run */
    uint8_t bit_width;   /* 0..32 */
    uint8_t literal;     /* the current run is bit-packed */
    uint8_t group_pos;   /* bit-packed run: index of the next value in its group of 8 */
} upq_rle_dec;

/* `len` bytes of hybrid data without a length prefix (callers strip the
 * 4-byte prefix of v1 levels / RLE booleans). The decoder reads p[0..len)
 * while it is used; it owns no memory. Returns UPQ_ERR_CORRUPT when
 * bit_width is above 32 (the decoder then fails every call), else UPQ_OK. */
upq_status upq_rle_init(upq_rle_dec *d, const uint8_t *p, size_t len, unsigned bit_width);
/* Decode exactly n values. UPQ_ERR_CORRUPT when the data ends before n
 * values, a run header is malformed (run length 0, varint longer than 5
 * bytes), an RLE run's value does not fit the bit width, or a bit-packed
 * run's needed bits are missing (a last run may be cut short after its last
 * needed value). get16 needs bit_width <= 16 (else UPQ_ERR_INVAL). */
upq_status upq_rle_get32(upq_rle_dec *d, uint32_t *out, size_t n);
upq_status upq_rle_get16(upq_rle_dec *d, uint16_t *out, size_t n);
/* Same checks as get, without storing the values. */
upq_status upq_rle_skip(upq_rle_dec *d, size_t n);
/* Values left in the current run when it is an RLE run (0 when it is
 * bit-packed), reading the next run's header first if the current one is
 * used up, and its value. Decoding nothing, it lets a caller take a long
 * run at once (upq_rle_skip then moves past what it took). */
upq_status upq_rle_run_ahead(upq_rle_dec *d, uint32_t *left, uint32_t *value);

/* Deprecated BIT_PACKED levels: MSB-first packing, no runs. */
typedef struct upq_bitpacked_dec {
    const uint8_t *p;
    size_t len;
    uint64_t bit_pos;
    uint8_t bit_width;
} upq_bitpacked_dec;
/* Reads p[0..len) while used. UPQ_ERR_CORRUPT when bit_width is above 16
 * (levels are 16-bit; the decoder then fails every call). */
upq_status upq_bitpacked_init(upq_bitpacked_dec *d, const uint8_t *p, size_t len,
                              unsigned bit_width);
/* Exactly n values, or UPQ_ERR_CORRUPT when their bits are not all there. */
upq_status upq_bitpacked_get16(upq_bitpacked_dec *d, uint16_t *out, size_t n);
upq_status upq_bitpacked_skip(upq_bitpacked_dec *d, size_t n);
/* Bytes `n` values of `bit_width` bits occupy: the length of a v1 BIT_PACKED
 * section (SIZE_MAX if that does not fit in a size_t). */
size_t upq_bitpacked_len(size_t n, unsigned bit_width);

/* ---- values ------------------------------------------------------------ */

/* Where decoders that must build values (DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT
 * of FIXED_LEN_BYTE_ARRAY) put their bytes. A decode call stops early, with
 * fewer values, when the next value does not fit; the caller then consumes
 * the values, resets `used` to 0 and calls again. */
typedef struct upq_vbuf {
    uint8_t *buf;
    size_t cap;
    size_t used;
} upq_vbuf;

/* A decoded dictionary page: n values in the output representation above. */
typedef struct upq_dict {
    int32_t physical_type;
    uint32_t n;
    const void *values;
} upq_dict;

/* DELTA_BINARY_PACKED state (also the lengths inside the byte-array encodings). */
typedef struct upq_delta_dec {
    const uint8_t *p, *end;  /* next block header (or miniblock body); end of section */
    const uint8_t *widths;   /* bit widths of the current block's miniblocks */
    const uint8_t *mini;     /* current group of 8 values in the current miniblock */
    uint64_t last;           /* previous value (wrap-around arithmetic) */
    uint64_t min_delta;      /* of the current block */
    uint32_t count;          /* values the section holds (its header's count) */
    uint32_t left;           /* values still to produce */
    uint32_t miniblocks;     /* per block */
    uint32_t per_mini;       /* values per miniblock (a multiple of 32) */
    uint32_t mini_index;     /* current miniblock in the block */
    uint32_t mini_left;      /* values left in the current miniblock */
    uint8_t bit_width;       /* of the current miniblock */
    uint8_t group_pos;       /* index of the next value in its group of 8 */
    uint8_t first_pending;   /* the header's first value not yet produced */
    uint8_t is64;
} upq_delta_dec;

typedef struct upq_values_dec {
    int32_t encoding;        /* upq_encoding */
    int32_t physical_type;   /* upq_type */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY width */
    const uint8_t *p, *end;  /* unread part of the values section (for the byte-array
                                delta encodings: of their concatenated bytes) */
    uint32_t num_values;     /* values the section holds (an upper bound for PLAIN,
                                dictionary and RLE sections of v1 pages) */
    uint32_t produced;       /* values returned or skipped so far */
    const upq_dict *dict;
    union {
        upq_rle_dec rle;     /* RLE booleans, dictionary indices */
        struct {
            uint32_t bit;    /* PLAIN booleans: bit offset in *p (0..7) */
        } plain;
        upq_delta_dec delta; /* DELTA_BINARY_PACKED */
        struct {
            upq_delta_dec lengths;     /* value lengths (DLBA) or suffix lengths (DBA) */
            upq_delta_dec prefixes;    /* DELTA_BYTE_ARRAY: prefix lengths */
            const uint8_t *prev;       /* previous value (DELTA_BYTE_ARRAY) */
            uint32_t prev_len;
            uint8_t *prev_buf;         /* holds the previous value between calls */
            size_t prev_cap;
        } ba;                /* data: p..end */
        struct {
            size_t stride;   /* values in the section (the length of each stream) */
            size_t width;    /* bytes per value (the number of streams) */
            const uint8_t *base; /* start of the first stream; the next value is `produced` */
        } bss;
    } u;
} upq_values_dec;

/*
 * Prepares decoding the values section p[0..len) in `encoding`. num_values
 * is what the page promises: the exact non-null count, or for a v1 page its
 * num_values (an upper bound, as nulls have no value). Sections that state
 * their own count (the DELTA encodings) or imply it (BYTE_STREAM_SPLIT:
 * len / width) may hold fewer but never more (UPQ_ERR_CORRUPT).
 *
 * `dict` (PLAIN_DICTIONARY / RLE_DICTIONARY; must be of this physical type)
 * and p must outlive the decoder. `prev_buf` (prev_cap bytes; prev_cap >= len
 * always suffices) holds the previous value of DELTA_BYTE_ARRAY between calls
 * and must not overlap the value buffer; other encodings ignore it.
 *
 * Returns UPQ_OK; UPQ_ERR_UNSUPPORTED for an encoding/type pair the format
 * does not allow; UPQ_ERR_CORRUPT for a malformed section header;
 * UPQ_ERR_INVAL for a missing or mismatched dictionary or prev_buf.
 */
upq_status upq_values_init(upq_values_dec *d, int32_t encoding, int32_t physical_type,
                           int32_t type_length, const uint8_t *p, size_t len,
                           uint32_t num_values, const upq_dict *dict, uint8_t *prev_buf,
                           size_t prev_cap);

/*
 * Decodes up to n values into out (see the representation above) and sets
 * *got. *got < n only when `vb` filled up (DELTA_BYTE_ARRAY, BSS of
 * FIXED_LEN_BYTE_ARRAY): the caller consumes the values, resets vb->used and
 * calls again. Byte arrays point into the page, the dictionary or vb.
 *
 * UPQ_ERR_CORRUPT when n exceeds the values the section holds or the data is
 * malformed; UPQ_ERR_BUFFER when vb is empty and still too small for one
 * value, or a DELTA_BYTE_ARRAY value exceeds prev_cap; UPQ_ERR_INVAL when vb
 * is needed but NULL.
 */
upq_status upq_values_get(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb);

/* Skips n values: the same checks and end state as getting them. */
upq_status upq_values_skip(upq_values_dec *d, size_t n);

/* PLAIN INT32, INT64, FLOAT and DOUBLE values on a little-endian target
 * (built with UPQ_WITH_LEND): the next n values where they lie in the
 * section, consumed, when there are n of them aligned for their type; else
 * NULL, nothing consumed (upq_values_get then copies them, or reports what
 * is wrong). */
const void *upq_values_lend(upq_values_dec *d, size_t n);

/* Values the section still holds (for the DELTA encodings and
 * BYTE_STREAM_SPLIT exact, otherwise the page's upper bound). */
uint32_t upq_values_left(const upq_values_dec *d);

/* Decodes a dictionary page of n PLAIN values into an array from `a`
 * (dict->values). Byte arrays point into p, which must outlive the
 * dictionary. UPQ_ERR_CORRUPT when p[0..len) holds fewer than n values,
 * UPQ_ERR_NOMEM when the arena is too small. */
upq_status upq_dict_decode(upq_dict *dict, int32_t physical_type, int32_t type_length,
                           const uint8_t *p, size_t len, uint32_t n, upq_arena *a);

#ifdef __cplusplus
}
#endif

#endif
