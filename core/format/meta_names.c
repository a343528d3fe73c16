/*
 * Names of the Parquet enum values and union members, for tools, dumps and
 * error messages, and the reverse look-ups tools use to parse options.
 * Tables are indexed by value; a value outside a table, or a hole in it,
 * names as "?".
 */
#include "uparquet/meta.h"
#include "common/upq_internal.h"

static const char *const type_names[] = {
    "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY",
};

static const char *const converted_type_names[] = {
    "UTF8",        "MAP",         "MAP_KEY_VALUE",    "LIST",
    "ENUM",        "DECIMAL",     "DATE",             "TIME_MILLIS",
    "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8",
    "UINT_16",     "UINT_32",     "UINT_64",          "INT_8",
    "INT_16",      "INT_32",      "INT_64",           "JSON",
    "BSON",        "INTERVAL",
};

static const char *const repetition_names[] = {
    "REQUIRED", "OPTIONAL", "REPEATED", "VECTOR",
};

/* NULL: 1 (GROUP_VAR_INT) was never a valid encoding. */
static const char *const encoding_names[] = {
    "PLAIN",
    NULL,
    "PLAIN_DICTIONARY",
    "RLE",
    "BIT_PACKED",
    "DELTA_BINARY_PACKED",
    "DELTA_LENGTH_BYTE_ARRAY",
    "DELTA_BYTE_ARRAY",
    "RLE_DICTIONARY",
    "BYTE_STREAM_SPLIT",
};

static const char *const codec_names[] = {
    "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW",
};

static const char *const page_type_names[] = {
    "DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2",
};

static const char *const boundary_order_names[] = {
    "UNORDERED", "ASCENDING", "DESCENDING",
};

static const char *const edge_algorithm_names[] = {
    "SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY",
};

/* Indexed by LogicalType member id; 9 (INTERVAL) is reserved. */
static const char *const logical_type_names[] = {
    NULL,      "STRING",  "MAP",   "LIST",     "ENUM",    "DECIMAL", "DATE",
    "TIME",    "TIMESTAMP", NULL,  "INTEGER",  "UNKNOWN", "JSON",    "BSON",
    "UUID",    "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY", "VECTOR",
};

static const char *const time_unit_names[] = {
    NULL, "MILLIS", "MICROS", "NANOS",
};

static const char *lookup(const char *const *names, size_t count, int32_t v)
{
    if (v < 0 || (uint32_t)v >= count || names[v] == NULL)
        return "?";
    return names[v];
}

/* The public upq_<enum>_name functions: an enum value's name in its table. */
#define NAME_OF(fn, table)                               \
    const char *fn(int32_t v)                            \
    {                                                    \
        return lookup(table, UPQ_COUNTOF(table), v);     \
    }

NAME_OF(upq_type_name, type_names)
NAME_OF(upq_converted_type_name, converted_type_names)
NAME_OF(upq_repetition_name, repetition_names)
NAME_OF(upq_encoding_name, encoding_names)
NAME_OF(upq_codec_name, codec_names)
NAME_OF(upq_page_type_name, page_type_names)
NAME_OF(upq_boundary_order_name, boundary_order_names)
NAME_OF(upq_edge_algorithm_name, edge_algorithm_names)

/* Member ids a union's kind can be: a bit mask, not the name tables, so that
 * a build asking only for the kind links none of the names. LogicalType: 1..19
 * without 9 (INTERVAL, reserved); TimeUnit: 1..3. */
#define LOGICAL_TYPE_IDS (((1u << 20) - 2u) & ~(1u << 9))
#define TIME_UNIT_IDS (((1u << 4) - 2u))
UPQ_STATIC_ASSERT(UPQ_COUNTOF(logical_type_names) == 20, logical_type_ids);
UPQ_STATIC_ASSERT(UPQ_COUNTOF(time_unit_names) == 4, time_unit_ids);

/* The lowest known member id whose bit is set in a union's isset, or 0.
 * Decoded unions have at most one bit; a hand-built one may have more. */
static int union_kind(uint32_t isset, uint32_t known)
{
    int id;
    isset &= known;
    if (isset == 0)
        return 0;
    for (id = 1; !((isset >> id) & 1u); id++)
        ;
    return id;
}

int upq_logical_type_kind(const upq_logical_type *lt)
{
    return union_kind(lt->isset, LOGICAL_TYPE_IDS);
}

const char *upq_logical_type_name(const upq_logical_type *lt)
{
    int kind = upq_logical_type_kind(lt);
    return kind ? logical_type_names[kind] : "";
}

int upq_time_unit_kind(const upq_time_unit *unit)
{
    return union_kind(unit->isset, TIME_UNIT_IDS);
}

const char *upq_time_unit_name(const upq_time_unit *unit)
{
    int kind = upq_time_unit_kind(unit);
    return kind ? time_unit_names[kind] : "";
}

/* ASCII case-insensitive equality of two NUL-terminated strings. */
static int name_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca - 'a' < 26u)
            ca -= 'a' - 'A';
        if (cb - 'a' < 26u)
            cb -= 'a' - 'A';
        if (ca != cb)
            return 0;
        if (ca == 0)
            return 1;
    }
}

static int find_name(const char *const *names, size_t count, const char *name)
{
    size_t i;
    if (name == NULL)
        return -1;
    for (i = 0; i < count; i++) {
        if (names[i] != NULL && name_equal(names[i], name))
            return (int)i;
    }
    return -1;
}

int upq_codec_from_name(const char *name)
{
    if (name != NULL && name_equal(name, "NONE"))
        return UPQ_CODEC_UNCOMPRESSED;
    return find_name(codec_names, UPQ_COUNTOF(codec_names), name);
}

int upq_encoding_from_name(const char *name)
{
    return find_name(encoding_names, UPQ_COUNTOF(encoding_names), name);
}
