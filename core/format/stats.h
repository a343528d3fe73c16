/*
 * Column statistics for the writer (internal): the sort order of a leaf
 * column, min/max of a page's values in that order, and merging page bounds
 * into chunk bounds.
 *
 * Bounds are kept PLAIN-encoded (little-endian numbers, raw bytes for binary
 * types) in storage of a fixed capacity, as Statistics.min_value/max_value
 * and ColumnIndex store them. Binary values longer than the capacity are
 * truncated: a min to a prefix, a max to a prefix whose last byte is
 * incremented (carrying), both then inexact; a max of only 0xFF bytes
 * cannot be shortened and is dropped.
 */
#ifndef UPQ_STATS_H
#define UPQ_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/writer.h"
#include "uparquet/stats.h"

/* How a column's values compare: the public upq_stat_order under short
 * names (uparquet/stats.h). */
enum {
    UPQ_SO_NONE = UPQ_STAT_ORDER_NONE, /* no min/max (INT96, INTERVAL, geospatial) */
    UPQ_SO_BOOL = UPQ_STAT_ORDER_BOOL,
    UPQ_SO_I32 = UPQ_STAT_ORDER_I32,
    UPQ_SO_U32 = UPQ_STAT_ORDER_U32,
    UPQ_SO_I64 = UPQ_STAT_ORDER_I64,
    UPQ_SO_U64 = UPQ_STAT_ORDER_U64,
    UPQ_SO_F32 = UPQ_STAT_ORDER_F32,   /* IEEE order without NaN; -0.0 = +0.0 */
    UPQ_SO_F64 = UPQ_STAT_ORDER_F64,
    UPQ_SO_F16 = UPQ_STAT_ORDER_F16,
    UPQ_SO_BYTES = UPQ_STAT_ORDER_BYTES,
    UPQ_SO_DECIMAL = UPQ_STAT_ORDER_DECIMAL,
    /* the ColumnOrder IEEE_754_TOTAL_ORDER of FLOAT, DOUBLE and FLOAT16: -0 < +0,
     * bounds of the values that are not NaN, or of the NaNs when a scope holds
     * nothing else (negative NaNs below -inf, positive ones above +inf); the
     * writer's alone, past the public orders */
    UPQ_SO_F32T = UPQ_STAT_ORDER_INT96 + 1,
    UPQ_SO_F64T,
    UPQ_SO_F16T
};

#define UPQ_SO_IS_FLOAT(o) \
    ((o) == UPQ_SO_F32 || (o) == UPQ_SO_F64 || (o) == UPQ_SO_F16 || (o) >= UPQ_SO_F32T)
/* the total-order twin of a float order (others unchanged) */
#define UPQ_SO_TOTAL(o) \
    ((o) == UPQ_SO_F32 ? UPQ_SO_F32T : (o) == UPQ_SO_F64 ? UPQ_SO_F64T \
                       : (o) == UPQ_SO_F16 ? UPQ_SO_F16T : (o))

/* The order of a leaf: `lt` is its LogicalType (may be unset), `converted`
 * its ConvertedType or -1. */
int upq_stats_order(int32_t physical_type, const upq_logical_type *lt, int32_t converted);

/* The PLAIN bytes of a fixed-width value in the reader's representation
 * (BOOLEAN one byte, INT96 its own 12): *p gets buf or the value's bytes.
 * Returns their length; 0 for a type of no fixed width (the byte arrays). */
size_t upq_plain_value(int32_t physical_type, const void *val, uint8_t buf[12], const uint8_t **p);

/* Bytes one stored bound needs for this column (0: no min/max are kept):
 * the value width for fixed types, `max_binary` for BYTE_ARRAY. */
uint32_t upq_stats_cap(int order, int32_t physical_type, int32_t type_length,
                       uint32_t max_binary);

/* Compares two PLAIN-encoded values in `order`: <0, 0, >0. */
int upq_stats_cmp(int order, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Signed big-endian two's complement integers of any lengths (the shorter
 * sign-extended): DECIMAL bytes, for the writer's bounds and the reader's
 * typed statistics alike. */
int upq_stats_be_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* Forgets every value (keeps the storage). */
void upq_minmax_reset(upq_minmax *m);

/*
 * Sets m (reset first) to the bounds of n staged values: fixed types as the
 * native array of column.h's representation, BYTE_ARRAY as PLAIN (4-byte
 * little-endian length, then the bytes) `bytes` long, FIXED_LEN_BYTE_ARRAY
 * as n x type_length raw bytes. *nans gets the NaN count (float orders).
 */
void upq_minmax_page(upq_minmax *m, int order, int32_t physical_type, int32_t type_length,
                     const uint8_t *vals, size_t n, size_t bytes, int64_t *nans);

/* The same for a FLOAT page (order UPQ_SO_F32) whose least and greatest
 * order keys are known (upq_bss_keys32): the values are walked again only
 * when the keys show a NaN. */
void upq_minmax_f32_keys(upq_minmax *m, int32_t kmn, int32_t kmx, const uint8_t *vals, size_t n,
                         int64_t *nans);

/*
 * The same for a page of dictionary-encoded BYTE_ARRAY values (order
 * UPQ_SO_BYTES) from the dictionary entries it uses: entry e, PLAIN at
 * dict + off[e], for every bit e set in used[] (16 entries a word, nent
 * entries). Distinct entries are distinct values, so the bounds are those
 * upq_minmax_page finds.
 */
void upq_minmax_entries(upq_minmax *m, const uint8_t *dict, const uint32_t *off,
                        const uint16_t *used, uint32_t nent);

/* Widens dst by src (bounds of another page of the same column). */
void upq_minmax_merge(upq_minmax *dst, const upq_minmax *src, int order);

/* Copies src's bounds into dst (same order; dst->cap >= src's lengths). */
void upq_minmax_copy(upq_minmax *dst, const upq_minmax *src);

#endif
