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
 *
 * Also the per-encoding entry points upq_values_* dispatches to.
 *
 * Every get/skip below is called by values.c only after it checked that n
 * does not exceed the values the section holds (d->num_values - d->produced).
 */
#ifndef UPQ_ENCODING_INTERNAL_H
#define UPQ_ENCODING_INTERNAL_H

#include "uparquet/status.h"
#include "uparquet/types.h"
#include "uparquet/meta.h"
#include "uparquet/private.h" /* the decoders' state */
#include "upq_port.h"

/* Bytes one value occupies in the output arrays above (0 for unknown
 * types); public too, in uparquet/column.h. */
size_t upq_value_size(int32_t physical_type);

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ---- */


/* `len` bytes of hybrid data without a length prefix (callers strip the
 * 4-byte prefix of v1 levels / RLE booleans). The decoder reads p[0..len)
 * while it is used; it owns no memory. Returns UPQ_ERR_CORRUPT when
 * bit_width is above 32 (the decoder then fails every call), else UPQ_OK. */
upq_status upq_rle_init(upq_rle_dec *d, const uint8_t *p, size_t len, unsigned bit_width);
/* Decode exactly n values. UPQ_ERR_CORRUPT when the data ends before n
 * values, a run header is malformed (run length 0, varint longer than 5
 * bytes), an RLE run's value does not fit the bit width, or a bit-packed
 * run's needed bits are missing (a last run may be cut short after its last
 * needed value). get16 needs bit_width <= 16 (else UPQ_ERR_INVAL); get8
 * (RLE booleans) values of at most 8 bits, and with out NULL it skips them,
 * with the same checks. */
upq_status upq_rle_get32(upq_rle_dec *d, uint32_t *out, size_t n);
upq_status upq_rle_get16(upq_rle_dec *d, uint16_t *out, size_t n);
upq_status upq_rle_get8(upq_rle_dec *d, uint8_t *out, size_t n);
/* Same checks as get, without storing the values. */
upq_status upq_rle_skip(upq_rle_dec *d, size_t n);
/* Values left in the current run when it is an RLE run (0 when it is
 * bit-packed), reading the next run's header first if the current one is
 * used up, and its value. Decoding nothing, it lets a caller take a long
 * run at once (upq_rle_skip then moves past what it took). */
upq_status upq_rle_run_ahead(upq_rle_dec *d, uint32_t *left, uint32_t *value);

/* Deprecated BIT_PACKED levels: MSB-first packing, no runs. */
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

/* Values unpacked a step into a buffer on the stack (dictionary indices,
 * levels of widths above 1): each step has a fixed cost, so a larger one
 * spreads it over more values (a 50-entry string dictionary reads about 10%
 * faster at 256 than at 64 on x86-64); small targets keep their stack. */
#if UPQ_UNALIGNED_WORDS
#define UPQ_UNPACK_STEP 256u
#else
#define UPQ_UNPACK_STEP 64u
#endif

/* ---- rle.c ------------------------------------------------------------- */

/* The next stretch of at most `max` values: either one value repeated
 * (*is_run = 1, *run_value; buf untouched) or at most buf_cap values
 * unpacked into buf (*is_run = 0). *got >= 1 on UPQ_OK when max > 0.
 * Errors as upq_rle_get32. */
upq_status upq_rle_next(upq_rle_dec *d, uint32_t *buf, size_t buf_cap, size_t max, size_t *got,
                        int *is_run, uint32_t *run_value);

/* ---- plain.c ----------------------------------------------------------- */

upq_status upq_plain_init(upq_values_dec *d);
upq_status upq_plain_get(upq_values_dec *d, void *out, size_t n);
upq_status upq_plain_skip(upq_values_dec *d, size_t n);
/* n INT32, INT64, FLOAT or DOUBLE values where they lie, consumed, when they
 * are aligned for their type on a little-endian target; else NULL. */
const void *upq_plain_lend(upq_values_dec *d, size_t n);
/* n fixed-size values (INT32, INT64, INT96, FLOAT, DOUBLE) from their PLAIN
 * bytes in[0..n*size) into the output representation. */
void upq_plain_fixed(int32_t physical_type, const uint8_t *in, void *out, size_t n);

/* ---- delta.c ----------------------------------------------------------- */

/*
 * Reads a DELTA_BINARY_PACKED header at p. With section_end, walks the
 * block and miniblock headers to the section's end, checking every width
 * and that every used miniblock is complete, and *section_end gets the
 * first byte after the section (where the byte data of
 * DELTA_LENGTH_BYTE_ARRAY starts). Without (a page's values, which end with
 * the page), the decoding calls make those checks as they enter each block
 * and miniblock. The header's count must not exceed max_values.
 */
upq_status upq_delta_init(upq_delta_dec *d, const uint8_t *p, const uint8_t *end, int is64,
                          uint32_t max_values, const uint8_t **section_end);
/* n <= d->left values; INT32 values wrap in 32 bits, INT64 in 64. */
upq_status upq_delta_get32(upq_delta_dec *d, uint32_t *out, size_t n);
upq_status upq_delta_get64(upq_delta_dec *d, uint64_t *out, size_t n);
upq_status upq_delta_skip(upq_delta_dec *d, size_t n);

upq_status upq_dbp_init(upq_values_dec *d);
upq_status upq_dbp_get(upq_values_dec *d, void *out, size_t n);
upq_status upq_dbp_skip(upq_values_dec *d, size_t n);
upq_status upq_dlba_init(upq_values_dec *d);
upq_status upq_dlba_get(upq_values_dec *d, upq_bytes *out, size_t n);
upq_status upq_dlba_skip(upq_values_dec *d, size_t n);
upq_status upq_dba_init(upq_values_dec *d);
upq_status upq_dba_get(upq_values_dec *d, upq_bytes *out, size_t n, size_t *got, upq_vbuf *vb);
upq_status upq_dba_skip(upq_values_dec *d, size_t n);

/* ---- bss.c ------------------------------------------------------------- */

upq_status upq_bss_init(upq_values_dec *d);
upq_status upq_bss_get(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb);
upq_status upq_bss_skip(upq_values_dec *d, size_t n);

#endif
