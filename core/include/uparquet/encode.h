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
 */
#ifndef UPARQUET_ENCODE_H
#define UPARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "thrift.h" /* upq_bytes */
#include "meta.h"   /* upq_encoding, upq_type */
#include "reader.h" /* upq_int96 */

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif
