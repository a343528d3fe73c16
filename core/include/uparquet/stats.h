/*
 * Column statistics as typed values: min/max decoded in the order of the
 * column's logical type, with the rules that say when they can be trusted
 * (the file's column_orders, the deprecated min/max fields, NaN and signed
 * zeros, writers known to have written wrong bounds), and a typed compare
 * for predicates.
 *
 * Nothing here allocates: byte values point into the decoded metadata (or
 * the bytes given to upq_stats_decode_value) and live as long as those.
 * A program that never calls these functions links none of them.
 */
#ifndef UPARQUET_STATS_H
#define UPARQUET_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "meta.h"
#include "schema.h"
#include "reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a column's values compare: the ColumnOrder TYPE_ORDER of its type
 * (parquet.thrift), or INT96 under INT96_TIMESTAMP_ORDER. */
typedef enum upq_stat_order {
    UPQ_STAT_ORDER_NONE = 0, /* undefined (INT96, INTERVAL, nested, geospatial) */
    UPQ_STAT_ORDER_BOOL,     /* false < true */
    UPQ_STAT_ORDER_I32,      /* signed: INT32, INT(8|16|32), DATE, TIME(MILLIS), DECIMAL */
    UPQ_STAT_ORDER_U32,      /* unsigned: INT(8|16|32, unsigned), UINT_8/16/32 */
    UPQ_STAT_ORDER_I64,      /* signed: INT64, TIME, TIMESTAMP, DECIMAL */
    UPQ_STAT_ORDER_U64,      /* unsigned: INT(64, unsigned), UINT_64 */
    UPQ_STAT_ORDER_F32,      /* FLOAT by value */
    UPQ_STAT_ORDER_F64,      /* DOUBLE by value */
    UPQ_STAT_ORDER_F16,      /* FLOAT16 on FIXED_LEN_BYTE_ARRAY(2) by value */
    UPQ_STAT_ORDER_BYTES,    /* unsigned byte-wise: strings, ENUM, JSON, BSON, binary, UUID */
    UPQ_STAT_ORDER_DECIMAL,  /* DECIMAL on binary: big-endian two's complement */
    UPQ_STAT_ORDER_INT96     /* INT96 chronologically (INT96_TIMESTAMP_ORDER only) */
} upq_stat_order;

/* What a upq_stat_value holds. */
typedef enum upq_stat_kind {
    UPQ_STAT_NONE = 0,
    UPQ_STAT_BOOL,    /* v.i: 0 or 1 */
    UPQ_STAT_INT,     /* v.i: signed integers, dates, times, timestamps, DECIMAL
                         on INT32/INT64 (unscaled) */
    UPQ_STAT_UINT,    /* v.u: unsigned integers */
    UPQ_STAT_FLOAT,   /* v.d: FLOAT, DOUBLE and FLOAT16, widened exactly to double */
    UPQ_STAT_BYTES,   /* ptr/len: compared unsigned byte-wise */
    UPQ_STAT_DECIMAL, /* ptr/len: unscaled big-endian two's complement */
    UPQ_STAT_INT96    /* ptr/len (12): nanoseconds of the day, then the Julian day */
} upq_stat_kind;

typedef struct upq_stat_value {
    uint8_t kind;   /* upq_stat_kind */
    int8_t exact;   /* 1: the column's actual min/max; 0: a bound only (e.g. a
                       truncated string); -1: the file does not say */
    uint32_t len;
    const uint8_t *ptr;
    union {
        int64_t i;
        uint64_t u;
        double d;   /* made from the bits: no floating-point arithmetic */
    } v;
} upq_stat_value;

/* Why min/max are not usable (upq_column_stats.why). */
typedef enum upq_stat_why {
    UPQ_STAT_OK = 0,
    UPQ_STAT_WHY_ABSENT,        /* no min/max in the statistics */
    UPQ_STAT_WHY_NO_ORDER,      /* the type has no defined order (INT96, INTERVAL, ...) */
    UPQ_STAT_WHY_COLUMN_ORDER,  /* column_orders names an order this reader does not
                                   know, or one that does not fit the type */
    UPQ_STAT_WHY_DEPRECATED,    /* only the deprecated min/max, which were written in
                                   signed order, and this type's order is not signed */
    UPQ_STAT_WHY_WRITER,        /* created_by names a writer known to have written
                                   wrong bounds for this type (PARQUET-251, PARQUET-686) */
    UPQ_STAT_WHY_CORRUPT        /* a bound of the wrong size for the type */
} upq_stat_why;

typedef struct upq_column_stats {
    uint8_t order;          /* upq_stat_order the bounds follow */
    uint8_t why;            /* upq_stat_why: UPQ_STAT_OK when has_min or has_max */
    uint8_t has_min, has_max; /* the bound is usable for pruning */
    uint8_t deprecated;     /* the bounds come from the deprecated min/max fields */
    uint8_t total_order;    /* floats under IEEE_754_TOTAL_ORDER */
    uint8_t has_null_count, has_distinct_count, has_nan_count;
    int64_t null_count, distinct_count, nan_count;
    /* Bounds of the non-null, non-NaN values: every such value v has
     * min <= v <= max in upq_stat_cmp. A NaN bound is left out (has_* 0).
     * Under TYPE_ORDER a zero min is -0.0 and a zero max +0.0 (a file's
     * +0 min or -0 max is widened, as the format asks readers to). */
    upq_stat_value min, max;
} upq_column_stats;

/* Flags of upq_stats_decode_value. */
enum {
    UPQ_STAT_AS_MIN = 1,       /* a lower bound: widen a zero to -0.0 */
    UPQ_STAT_AS_MAX = 2,       /* an upper bound: widen a zero to +0.0 */
    UPQ_STAT_TOTAL_ORDER = 4   /* IEEE_754_TOTAL_ORDER: no widening */
};

/* The order of leaf `column`'s values by its type alone (TYPE_ORDER). */
int upq_stats_type_order(const upq_schema *s, uint32_t column);

/*
 * The order leaf `column`'s min/max follow after the file's column_orders:
 * the type's order under TYPE_ORDER (or when the file has no column_orders),
 * UPQ_STAT_ORDER_INT96 for INT96 under INT96_TIMESTAMP_ORDER, or
 * UPQ_STAT_ORDER_NONE when they cannot be used (*why, may be NULL, says
 * which rule). *flags (may be NULL) gets UPQ_STAT_TOTAL_ORDER for floats
 * under IEEE_754_TOTAL_ORDER. For ColumnIndex min_values/max_values as much
 * as for Statistics.
 */
int upq_stats_column_order(const upq_file_metadata *m, const upq_schema *s, uint32_t column,
                           unsigned *flags, uint8_t *why);

/*
 * Decodes one PLAIN-encoded value (no length prefix) of a column in
 * `order` into *v (v->exact is set to -1). `type_length` is the
 * FIXED_LEN_BYTE_ARRAY width (0 for other types). Returns UPQ_OK,
 * UPQ_ERR_CORRUPT when len does not fit the type (v->kind is then
 * UPQ_STAT_NONE), UPQ_ERR_UNSUPPORTED for UPQ_STAT_ORDER_NONE. A NaN decodes
 * (upq_stat_is_nan tells); it bounds nothing.
 */
upq_status upq_stats_decode_value(int order, int32_t type_length, const uint8_t *p, size_t len,
                                  unsigned flags, upq_stat_value *v);

/*
 * Decodes `st` (a ColumnMetaData's or a page header's statistics) of leaf
 * `column` of the file `m` (for column_orders and created_by; not NULL)
 * into *out.
 * Always fills the counts that are present; min/max only where the rules
 * allow them (out->why says why not).
 */
void upq_stats_decode(const upq_file_metadata *m, const upq_schema *s, uint32_t column,
                      const upq_statistics *st, upq_column_stats *out);

/* The same for the chunk of leaf `column` in row group `rg` of an open
 * reader. Returns UPQ_OK (out->why is UPQ_STAT_WHY_ABSENT for a chunk
 * without statistics) or UPQ_ERR_INVAL (no such chunk, or not projected). */
upq_status upq_reader_column_stats(const upq_reader *r, uint32_t rg, uint32_t column,
                                   upq_column_stats *out);

/* 1 when v is a float NaN. */
int upq_stat_is_nan(const upq_stat_value *v);

/*
 * Compares two values: *cmp gets <0, 0 or >0. Returns 1, or 0 when they do
 * not compare (a NaN, UPQ_STAT_NONE, kinds that do not mix). Integers,
 * unsigned integers and decimals mix by value (decimals of any widths and
 * physical types, unscaled: give both the column's scale); floats compare
 * with floats (-0.0 == +0.0), bytes with bytes, booleans with booleans.
 */
int upq_stat_cmp(const upq_stat_value *a, const upq_stat_value *b, int *cmp);

/* Static names: "I32", "BYTES", ... and "absent", "no order", ... */
const char *upq_stat_order_name(int order);
const char *upq_stat_why_name(int why);

#ifdef __cplusplus
}
#endif

#endif
