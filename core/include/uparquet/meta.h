/*
 * The Parquet metadata model: every struct and union of parquet.thrift as a
 * C struct, with a upq_tstruct description the Thrift layer decodes into and
 * encodes from.
 *
 * Conventions (see thrift.h for the storage rules):
 *   - Thrift `Foo` is `upq_foo` (snake case); its description is `upq_foo_desc`.
 *   - Every struct starts with `uint32_t isset`; bit N is set when field id N
 *     was present. Test with UPQ_ISSET(s, UPQ_FOO_FIELD), where the
 *     UPQ_<STRUCT>_<FIELD> constants are the Thrift field ids.
 *   - Fields are the snake-case Thrift field names; union alternatives are
 *     the lower-case member names and live in a C union `u`.
 *   - Enums are stored as int32_t; the upq_type / upq_encoding / ... values
 *     below are the ones the format defines. Files may carry others: always
 *     range-check before indexing with them.
 *   - Binaries and lists point into the arena the struct was decoded with
 *     (or into caller memory for structs built to be encoded).
 *
 * A field that Thrift declares with a default (DataPageHeaderV2.is_compressed
 * = true, ColumnChunk.file_offset = 0) holds 0 when absent: check its isset
 * bit before trusting the stored value.
 */
#ifndef UPARQUET_META_H
#define UPARQUET_META_H

#include <stdint.h>
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- enums ------------------------------------------------------------ */

typedef enum upq_type {
    UPQ_TYPE_BOOLEAN = 0,
    UPQ_TYPE_INT32 = 1,
    UPQ_TYPE_INT64 = 2,
    UPQ_TYPE_INT96 = 3,
    UPQ_TYPE_FLOAT = 4,
    UPQ_TYPE_DOUBLE = 5,
    UPQ_TYPE_BYTE_ARRAY = 6,
    UPQ_TYPE_FIXED_LEN_BYTE_ARRAY = 7
} upq_type;

typedef enum upq_converted_type {
    UPQ_CONVERTED_UTF8 = 0,
    UPQ_CONVERTED_MAP = 1,
    UPQ_CONVERTED_MAP_KEY_VALUE = 2,
    UPQ_CONVERTED_LIST = 3,
    UPQ_CONVERTED_ENUM = 4,
    UPQ_CONVERTED_DECIMAL = 5,
    UPQ_CONVERTED_DATE = 6,
    UPQ_CONVERTED_TIME_MILLIS = 7,
    UPQ_CONVERTED_TIME_MICROS = 8,
    UPQ_CONVERTED_TIMESTAMP_MILLIS = 9,
    UPQ_CONVERTED_TIMESTAMP_MICROS = 10,
    UPQ_CONVERTED_UINT_8 = 11,
    UPQ_CONVERTED_UINT_16 = 12,
    UPQ_CONVERTED_UINT_32 = 13,
    UPQ_CONVERTED_UINT_64 = 14,
    UPQ_CONVERTED_INT_8 = 15,
    UPQ_CONVERTED_INT_16 = 16,
    UPQ_CONVERTED_INT_32 = 17,
    UPQ_CONVERTED_INT_64 = 18,
    UPQ_CONVERTED_JSON = 19,
    UPQ_CONVERTED_BSON = 20,
    UPQ_CONVERTED_INTERVAL = 21
} upq_converted_type;

typedef enum upq_repetition {
    UPQ_REP_REQUIRED = 0,
    UPQ_REP_OPTIONAL = 1,
    UPQ_REP_REPEATED = 2,
    UPQ_REP_VECTOR = 3
} upq_repetition;

/* 1 (GROUP_VAR_INT) was never used and is not a valid encoding. */
typedef enum upq_encoding {
    UPQ_ENC_PLAIN = 0,
    UPQ_ENC_PLAIN_DICTIONARY = 2,
    UPQ_ENC_RLE = 3,
    UPQ_ENC_BIT_PACKED = 4,
    UPQ_ENC_DELTA_BINARY_PACKED = 5,
    UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    UPQ_ENC_DELTA_BYTE_ARRAY = 7,
    UPQ_ENC_RLE_DICTIONARY = 8,
    UPQ_ENC_BYTE_STREAM_SPLIT = 9
} upq_encoding;

typedef enum upq_codec {
    UPQ_CODEC_UNCOMPRESSED = 0,
    UPQ_CODEC_SNAPPY = 1,
    UPQ_CODEC_GZIP = 2,
    UPQ_CODEC_LZO = 3,
    UPQ_CODEC_BROTLI = 4,
    UPQ_CODEC_LZ4 = 5, /* the deprecated framing (Hadoop or LZ4 frame) */
    UPQ_CODEC_ZSTD = 6,
    UPQ_CODEC_LZ4_RAW = 7
} upq_codec;

typedef enum upq_page_type {
    UPQ_PAGE_DATA = 0,
    UPQ_PAGE_INDEX = 1,
    UPQ_PAGE_DICTIONARY = 2,
    UPQ_PAGE_DATA_V2 = 3
} upq_page_type;

typedef enum upq_boundary_order {
    UPQ_BOUNDARY_UNORDERED = 0,
    UPQ_BOUNDARY_ASCENDING = 1,
    UPQ_BOUNDARY_DESCENDING = 2
} upq_boundary_order;

typedef enum upq_edge_algorithm {
    UPQ_EDGE_SPHERICAL = 0,
    UPQ_EDGE_VINCENTY = 1,
    UPQ_EDGE_THOMAS = 2,
    UPQ_EDGE_ANDOYER = 3,
    UPQ_EDGE_KARNEY = 4
} upq_edge_algorithm;

/* ---- statistics ------------------------------------------------------- */

typedef struct upq_size_statistics {
    uint32_t isset;
    int64_t unencoded_byte_array_data_bytes;
    upq_i64_list repetition_level_histogram;
    upq_i64_list definition_level_histogram;
} upq_size_statistics;
enum {
    UPQ_SIZE_STATISTICS_UNENCODED_BYTE_ARRAY_DATA_BYTES = 1,
    UPQ_SIZE_STATISTICS_REPETITION_LEVEL_HISTOGRAM = 2,
    UPQ_SIZE_STATISTICS_DEFINITION_LEVEL_HISTOGRAM = 3
};

typedef struct upq_bounding_box {
    uint32_t isset;
    double xmin, xmax, ymin, ymax; /* required */
    double zmin, zmax, mmin, mmax;
} upq_bounding_box;
enum {
    UPQ_BOUNDING_BOX_XMIN = 1,
    UPQ_BOUNDING_BOX_XMAX = 2,
    UPQ_BOUNDING_BOX_YMIN = 3,
    UPQ_BOUNDING_BOX_YMAX = 4,
    UPQ_BOUNDING_BOX_ZMIN = 5,
    UPQ_BOUNDING_BOX_ZMAX = 6,
    UPQ_BOUNDING_BOX_MMIN = 7,
    UPQ_BOUNDING_BOX_MMAX = 8
};

typedef struct upq_geospatial_statistics {
    uint32_t isset;
    upq_bounding_box bbox;
    upq_i32_list geospatial_types;
} upq_geospatial_statistics;
enum {
    UPQ_GEOSPATIAL_STATISTICS_BBOX = 1,
    UPQ_GEOSPATIAL_STATISTICS_GEOSPATIAL_TYPES = 2
};

/* min/max are the deprecated signed-order bounds; min_value/max_value follow
 * the column's ColumnOrder. All PLAIN-encoded without a length prefix. */
typedef struct upq_statistics {
    uint32_t isset;
    upq_bytes max;
    upq_bytes min;
    int64_t null_count;
    int64_t distinct_count;
    upq_bytes max_value;
    upq_bytes min_value;
    uint8_t is_max_value_exact;
    uint8_t is_min_value_exact;
    int64_t nan_count;
} upq_statistics;
enum {
    UPQ_STATISTICS_MAX = 1,
    UPQ_STATISTICS_MIN = 2,
    UPQ_STATISTICS_NULL_COUNT = 3,
    UPQ_STATISTICS_DISTINCT_COUNT = 4,
    UPQ_STATISTICS_MAX_VALUE = 5,
    UPQ_STATISTICS_MIN_VALUE = 6,
    UPQ_STATISTICS_IS_MAX_VALUE_EXACT = 7,
    UPQ_STATISTICS_IS_MIN_VALUE_EXACT = 8,
    UPQ_STATISTICS_NAN_COUNT = 9
};

/* ---- logical types ---------------------------------------------------- */

/* Empty annotation structs: only their presence carries meaning. */
typedef struct upq_string_type { uint32_t isset; } upq_string_type;
typedef struct upq_uuid_type { uint32_t isset; } upq_uuid_type;
typedef struct upq_map_type { uint32_t isset; } upq_map_type;
typedef struct upq_list_type { uint32_t isset; } upq_list_type;
typedef struct upq_vector_type { uint32_t isset; } upq_vector_type;
typedef struct upq_enum_type { uint32_t isset; } upq_enum_type;
typedef struct upq_date_type { uint32_t isset; } upq_date_type;
typedef struct upq_float16_type { uint32_t isset; } upq_float16_type;
typedef struct upq_null_type { uint32_t isset; } upq_null_type;
typedef struct upq_json_type { uint32_t isset; } upq_json_type;
typedef struct upq_bson_type { uint32_t isset; } upq_bson_type;
typedef struct upq_milli_seconds { uint32_t isset; } upq_milli_seconds;
typedef struct upq_micro_seconds { uint32_t isset; } upq_micro_seconds;
typedef struct upq_nano_seconds { uint32_t isset; } upq_nano_seconds;

typedef struct upq_decimal_type {
    uint32_t isset;
    int32_t scale;
    int32_t precision;
} upq_decimal_type;
enum {
    UPQ_DECIMAL_TYPE_SCALE = 1,
    UPQ_DECIMAL_TYPE_PRECISION = 2
};

/* union TimeUnit */
typedef struct upq_time_unit {
    uint32_t isset;
    union {
        upq_milli_seconds millis;
        upq_micro_seconds micros;
        upq_nano_seconds nanos;
    } u;
} upq_time_unit;
enum {
    UPQ_TIME_UNIT_MILLIS = 1,
    UPQ_TIME_UNIT_MICROS = 2,
    UPQ_TIME_UNIT_NANOS = 3
};

typedef struct upq_timestamp_type {
    uint32_t isset;
    uint8_t is_adjusted_to_utc;
    upq_time_unit unit;
} upq_timestamp_type;
enum {
    UPQ_TIMESTAMP_TYPE_IS_ADJUSTED_TO_UTC = 1,
    UPQ_TIMESTAMP_TYPE_UNIT = 2
};

typedef struct upq_time_type {
    uint32_t isset;
    uint8_t is_adjusted_to_utc;
    upq_time_unit unit;
} upq_time_type;
enum {
    UPQ_TIME_TYPE_IS_ADJUSTED_TO_UTC = 1,
    UPQ_TIME_TYPE_UNIT = 2
};

typedef struct upq_int_type {
    uint32_t isset;
    int8_t bit_width; /* 8, 16, 32 or 64 in valid files */
    uint8_t is_signed;
} upq_int_type;
enum {
    UPQ_INT_TYPE_BIT_WIDTH = 1,
    UPQ_INT_TYPE_IS_SIGNED = 2
};

typedef struct upq_variant_type {
    uint32_t isset;
    int8_t specification_version;
} upq_variant_type;
enum { UPQ_VARIANT_TYPE_SPECIFICATION_VERSION = 1 };

/* crs absent means "OGC:CRS84". */
typedef struct upq_geometry_type {
    uint32_t isset;
    upq_bytes crs;
} upq_geometry_type;
enum { UPQ_GEOMETRY_TYPE_CRS = 1 };

/* crs absent means "OGC:CRS84"; algorithm absent means SPHERICAL. */
typedef struct upq_geography_type {
    uint32_t isset;
    upq_bytes crs;
    int32_t algorithm; /* upq_edge_algorithm */
} upq_geography_type;
enum {
    UPQ_GEOGRAPHY_TYPE_CRS = 1,
    UPQ_GEOGRAPHY_TYPE_ALGORITHM = 2
};

/* union LogicalType. `enum` is a C keyword, so ENUM's member is `enum_`.
 * Id 9 is reserved (INTERVAL) and has no member. */
typedef struct upq_logical_type {
    uint32_t isset;
    union {
        upq_string_type string;
        upq_map_type map;
        upq_list_type list;
        upq_enum_type enum_;
        upq_decimal_type decimal;
        upq_date_type date;
        upq_time_type time;
        upq_timestamp_type timestamp;
        upq_int_type integer;
        upq_null_type unknown;
        upq_json_type json;
        upq_bson_type bson;
        upq_uuid_type uuid;
        upq_float16_type float16;
        upq_variant_type variant;
        upq_geometry_type geometry;
        upq_geography_type geography;
        upq_vector_type vector;
    } u;
} upq_logical_type;
enum {
    UPQ_LOGICAL_TYPE_STRING = 1,
    UPQ_LOGICAL_TYPE_MAP = 2,
    UPQ_LOGICAL_TYPE_LIST = 3,
    UPQ_LOGICAL_TYPE_ENUM = 4,
    UPQ_LOGICAL_TYPE_DECIMAL = 5,
    UPQ_LOGICAL_TYPE_DATE = 6,
    UPQ_LOGICAL_TYPE_TIME = 7,
    UPQ_LOGICAL_TYPE_TIMESTAMP = 8,
    UPQ_LOGICAL_TYPE_INTEGER = 10,
    UPQ_LOGICAL_TYPE_UNKNOWN = 11,
    UPQ_LOGICAL_TYPE_JSON = 12,
    UPQ_LOGICAL_TYPE_BSON = 13,
    UPQ_LOGICAL_TYPE_UUID = 14,
    UPQ_LOGICAL_TYPE_FLOAT16 = 15,
    UPQ_LOGICAL_TYPE_VARIANT = 16,
    UPQ_LOGICAL_TYPE_GEOMETRY = 17,
    UPQ_LOGICAL_TYPE_GEOGRAPHY = 18,
    UPQ_LOGICAL_TYPE_VECTOR = 19
};

/* ---- schema ----------------------------------------------------------- */

typedef struct upq_schema_element {
    uint32_t isset;
    int32_t type;            /* upq_type; absent on groups */
    int32_t type_length;
    int32_t repetition_type; /* upq_repetition; absent on the root */
    upq_bytes name;
    int32_t num_children;    /* present on groups */
    int32_t converted_type;  /* upq_converted_type */
    int32_t scale;
    int32_t precision;
    int32_t field_id;
    upq_logical_type logical_type;
    int32_t vector_length;   /* with repetition VECTOR */
} upq_schema_element;
enum {
    UPQ_SCHEMA_ELEMENT_TYPE = 1,
    UPQ_SCHEMA_ELEMENT_TYPE_LENGTH = 2,
    UPQ_SCHEMA_ELEMENT_REPETITION_TYPE = 3,
    UPQ_SCHEMA_ELEMENT_NAME = 4,
    UPQ_SCHEMA_ELEMENT_NUM_CHILDREN = 5,
    UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE = 6,
    UPQ_SCHEMA_ELEMENT_SCALE = 7,
    UPQ_SCHEMA_ELEMENT_PRECISION = 8,
    UPQ_SCHEMA_ELEMENT_FIELD_ID = 9,
    UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE = 10,
    UPQ_SCHEMA_ELEMENT_VECTOR_LENGTH = 11
};

/* ---- pages ------------------------------------------------------------ */

typedef struct upq_data_page_header {
    uint32_t isset;
    int32_t num_values;
    int32_t encoding;                  /* upq_encoding */
    int32_t definition_level_encoding; /* upq_encoding */
    int32_t repetition_level_encoding; /* upq_encoding */
    upq_statistics statistics;
} upq_data_page_header;
enum {
    UPQ_DATA_PAGE_HEADER_NUM_VALUES = 1,
    UPQ_DATA_PAGE_HEADER_ENCODING = 2,
    UPQ_DATA_PAGE_HEADER_DEFINITION_LEVEL_ENCODING = 3,
    UPQ_DATA_PAGE_HEADER_REPETITION_LEVEL_ENCODING = 4,
    UPQ_DATA_PAGE_HEADER_STATISTICS = 5
};

typedef struct upq_index_page_header { uint32_t isset; } upq_index_page_header;

typedef struct upq_dictionary_page_header {
    uint32_t isset;
    int32_t num_values;
    int32_t encoding; /* upq_encoding */
    uint8_t is_sorted;
} upq_dictionary_page_header;
enum {
    UPQ_DICTIONARY_PAGE_HEADER_NUM_VALUES = 1,
    UPQ_DICTIONARY_PAGE_HEADER_ENCODING = 2,
    UPQ_DICTIONARY_PAGE_HEADER_IS_SORTED = 3
};

/* is_compressed defaults to true: absent means compressed. */
typedef struct upq_data_page_header_v2 {
    uint32_t isset;
    int32_t num_values;
    int32_t num_nulls;
    int32_t num_rows;
    int32_t encoding; /* upq_encoding */
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    uint8_t is_compressed;
    upq_statistics statistics;
} upq_data_page_header_v2;
enum {
    UPQ_DATA_PAGE_HEADER_V2_NUM_VALUES = 1,
    UPQ_DATA_PAGE_HEADER_V2_NUM_NULLS = 2,
    UPQ_DATA_PAGE_HEADER_V2_NUM_ROWS = 3,
    UPQ_DATA_PAGE_HEADER_V2_ENCODING = 4,
    UPQ_DATA_PAGE_HEADER_V2_DEFINITION_LEVELS_BYTE_LENGTH = 5,
    UPQ_DATA_PAGE_HEADER_V2_REPETITION_LEVELS_BYTE_LENGTH = 6,
    UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED = 7,
    UPQ_DATA_PAGE_HEADER_V2_STATISTICS = 8
};

/* ---- bloom filters ---------------------------------------------------- */

typedef struct upq_split_block_algorithm { uint32_t isset; } upq_split_block_algorithm;
typedef struct upq_xx_hash { uint32_t isset; } upq_xx_hash;
typedef struct upq_uncompressed { uint32_t isset; } upq_uncompressed;

/* union BloomFilterAlgorithm */
typedef struct upq_bloom_filter_algorithm {
    uint32_t isset;
    union {
        upq_split_block_algorithm block;
    } u;
} upq_bloom_filter_algorithm;
enum { UPQ_BLOOM_FILTER_ALGORITHM_BLOCK = 1 };

/* union BloomFilterHash */
typedef struct upq_bloom_filter_hash {
    uint32_t isset;
    union {
        upq_xx_hash xxhash;
    } u;
} upq_bloom_filter_hash;
enum { UPQ_BLOOM_FILTER_HASH_XXHASH = 1 };

/* union BloomFilterCompression */
typedef struct upq_bloom_filter_compression {
    uint32_t isset;
    union {
        upq_uncompressed uncompressed;
    } u;
} upq_bloom_filter_compression;
enum { UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED = 1 };

/* Precedes the bitset of a column's bloom filter. */
typedef struct upq_bloom_filter_header {
    uint32_t isset;
    int32_t num_bytes;
    upq_bloom_filter_algorithm algorithm;
    upq_bloom_filter_hash hash;
    upq_bloom_filter_compression compression;
} upq_bloom_filter_header;
enum {
    UPQ_BLOOM_FILTER_HEADER_NUM_BYTES = 1,
    UPQ_BLOOM_FILTER_HEADER_ALGORITHM = 2,
    UPQ_BLOOM_FILTER_HEADER_HASH = 3,
    UPQ_BLOOM_FILTER_HEADER_COMPRESSION = 4
};

/* ---- page header ------------------------------------------------------ */

/* `type` says which one of the *_header fields is meant; check its isset
 * bit too, a corrupt file may lack it. */
typedef struct upq_page_header {
    uint32_t isset;
    int32_t type; /* upq_page_type */
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    int32_t crc;  /* CRC32 of the page bytes after the header, as stored */
    upq_data_page_header data_page_header;
    upq_index_page_header index_page_header;
    upq_dictionary_page_header dictionary_page_header;
    upq_data_page_header_v2 data_page_header_v2;
} upq_page_header;
enum {
    UPQ_PAGE_HEADER_TYPE = 1,
    UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE = 2,
    UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE = 3,
    UPQ_PAGE_HEADER_CRC = 4,
    UPQ_PAGE_HEADER_DATA_PAGE_HEADER = 5,
    UPQ_PAGE_HEADER_INDEX_PAGE_HEADER = 6,
    UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER = 7,
    UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2 = 8
};

/* ---- column chunk metadata -------------------------------------------- */

typedef struct upq_key_value {
    uint32_t isset;
    upq_bytes key;
    upq_bytes value;
} upq_key_value;
enum {
    UPQ_KEY_VALUE_KEY = 1,
    UPQ_KEY_VALUE_VALUE = 2
};
UPQ_LIST_TYPE(upq_key_value_list, upq_key_value);

typedef struct upq_sorting_column {
    uint32_t isset;
    int32_t column_idx;
    uint8_t descending;
    uint8_t nulls_first;
} upq_sorting_column;
enum {
    UPQ_SORTING_COLUMN_COLUMN_IDX = 1,
    UPQ_SORTING_COLUMN_DESCENDING = 2,
    UPQ_SORTING_COLUMN_NULLS_FIRST = 3
};
UPQ_LIST_TYPE(upq_sorting_column_list, upq_sorting_column);

typedef struct upq_page_encoding_stats {
    uint32_t isset;
    int32_t page_type; /* upq_page_type */
    int32_t encoding;  /* upq_encoding */
    int32_t count;
} upq_page_encoding_stats;
enum {
    UPQ_PAGE_ENCODING_STATS_PAGE_TYPE = 1,
    UPQ_PAGE_ENCODING_STATS_ENCODING = 2,
    UPQ_PAGE_ENCODING_STATS_COUNT = 3
};
UPQ_LIST_TYPE(upq_page_encoding_stats_list, upq_page_encoding_stats);

typedef struct upq_column_metadata {
    uint32_t isset;
    int32_t type;                  /* upq_type */
    upq_i32_list encodings;        /* upq_encoding values */
    upq_bytes_list path_in_schema;
    int32_t codec;                 /* upq_codec */
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    upq_key_value_list key_value_metadata;
    int64_t data_page_offset;
    int64_t index_page_offset;
    int64_t dictionary_page_offset;
    upq_statistics statistics;
    upq_page_encoding_stats_list encoding_stats;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
    upq_size_statistics size_statistics;
    upq_geospatial_statistics geospatial_statistics;
} upq_column_metadata;
enum {
    UPQ_COLUMN_METADATA_TYPE = 1,
    UPQ_COLUMN_METADATA_ENCODINGS = 2,
    UPQ_COLUMN_METADATA_PATH_IN_SCHEMA = 3,
    UPQ_COLUMN_METADATA_CODEC = 4,
    UPQ_COLUMN_METADATA_NUM_VALUES = 5,
    UPQ_COLUMN_METADATA_TOTAL_UNCOMPRESSED_SIZE = 6,
    UPQ_COLUMN_METADATA_TOTAL_COMPRESSED_SIZE = 7,
    UPQ_COLUMN_METADATA_KEY_VALUE_METADATA = 8,
    UPQ_COLUMN_METADATA_DATA_PAGE_OFFSET = 9,
    UPQ_COLUMN_METADATA_INDEX_PAGE_OFFSET = 10,
    UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET = 11,
    UPQ_COLUMN_METADATA_STATISTICS = 12,
    UPQ_COLUMN_METADATA_ENCODING_STATS = 13,
    UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET = 14,
    UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH = 15,
    UPQ_COLUMN_METADATA_SIZE_STATISTICS = 16,
    UPQ_COLUMN_METADATA_GEOSPATIAL_STATISTICS = 17
};

/* ---- encryption (column level) ---------------------------------------- */

typedef struct upq_encryption_with_footer_key { uint32_t isset; } upq_encryption_with_footer_key;

typedef struct upq_encryption_with_column_key {
    uint32_t isset;
    upq_bytes_list path_in_schema;
    upq_bytes key_metadata;
} upq_encryption_with_column_key;
enum {
    UPQ_ENCRYPTION_WITH_COLUMN_KEY_PATH_IN_SCHEMA = 1,
    UPQ_ENCRYPTION_WITH_COLUMN_KEY_KEY_METADATA = 2
};

/* union ColumnCryptoMetaData */
typedef struct upq_column_crypto_metadata {
    uint32_t isset;
    union {
        upq_encryption_with_footer_key encryption_with_footer_key;
        upq_encryption_with_column_key encryption_with_column_key;
    } u;
} upq_column_crypto_metadata;
enum {
    UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_FOOTER_KEY = 1,
    UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY = 2
};

/* ---- row groups ------------------------------------------------------- */

/* file_offset is deprecated (defaults to 0). meta_data is optional in Thrift
 * but written by every real writer; encrypted columns carry it in
 * encrypted_column_metadata instead. */
typedef struct upq_column_chunk {
    uint32_t isset;
    upq_bytes file_path;
    int64_t file_offset;
    upq_column_metadata meta_data;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    int64_t column_index_offset;
    int32_t column_index_length;
    upq_column_crypto_metadata crypto_metadata;
    upq_bytes encrypted_column_metadata;
} upq_column_chunk;
enum {
    UPQ_COLUMN_CHUNK_FILE_PATH = 1,
    UPQ_COLUMN_CHUNK_FILE_OFFSET = 2,
    UPQ_COLUMN_CHUNK_META_DATA = 3,
    UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET = 4,
    UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH = 5,
    UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET = 6,
    UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH = 7,
    UPQ_COLUMN_CHUNK_CRYPTO_METADATA = 8,
    UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA = 9
};
UPQ_LIST_TYPE(upq_column_chunk_list, upq_column_chunk);

/* `columns` is a projected list (UPQ_TF_PROJECT): with a decoder projection
 * set it holds only the selected chunks, in file order. */
typedef struct upq_row_group {
    uint32_t isset;
    upq_column_chunk_list columns;
    int64_t total_byte_size;
    int64_t num_rows;
    upq_sorting_column_list sorting_columns;
    int64_t file_offset;
    int64_t total_compressed_size;
    int16_t ordinal;
} upq_row_group;
enum {
    UPQ_ROW_GROUP_COLUMNS = 1,
    UPQ_ROW_GROUP_TOTAL_BYTE_SIZE = 2,
    UPQ_ROW_GROUP_NUM_ROWS = 3,
    UPQ_ROW_GROUP_SORTING_COLUMNS = 4,
    UPQ_ROW_GROUP_FILE_OFFSET = 5,
    UPQ_ROW_GROUP_TOTAL_COMPRESSED_SIZE = 6,
    UPQ_ROW_GROUP_ORDINAL = 7
};
UPQ_LIST_TYPE(upq_row_group_list, upq_row_group);

/* ---- column orders ---------------------------------------------------- */

typedef struct upq_type_defined_order { uint32_t isset; } upq_type_defined_order;
typedef struct upq_ieee754_total_order { uint32_t isset; } upq_ieee754_total_order;
typedef struct upq_int96_timestamp_order { uint32_t isset; } upq_int96_timestamp_order;

/* union ColumnOrder. An unknown order leaves isset 0: ignore min/max then. */
typedef struct upq_column_order {
    uint32_t isset;
    union {
        upq_type_defined_order type_order;
        upq_ieee754_total_order ieee_754_total_order;
        upq_int96_timestamp_order int96_timestamp_order;
    } u;
} upq_column_order;
enum {
    UPQ_COLUMN_ORDER_TYPE_ORDER = 1,
    UPQ_COLUMN_ORDER_IEEE_754_TOTAL_ORDER = 2,
    UPQ_COLUMN_ORDER_INT96_TIMESTAMP_ORDER = 3
};
UPQ_LIST_TYPE(upq_column_order_list, upq_column_order);

/* ---- page index ------------------------------------------------------- */

typedef struct upq_page_location {
    uint32_t isset;
    int64_t offset;
    int32_t compressed_page_size; /* including the page header */
    int64_t first_row_index;
} upq_page_location;
enum {
    UPQ_PAGE_LOCATION_OFFSET = 1,
    UPQ_PAGE_LOCATION_COMPRESSED_PAGE_SIZE = 2,
    UPQ_PAGE_LOCATION_FIRST_ROW_INDEX = 3
};
UPQ_LIST_TYPE(upq_page_location_list, upq_page_location);

typedef struct upq_offset_index {
    uint32_t isset;
    upq_page_location_list page_locations;
    upq_i64_list unencoded_byte_array_data_bytes;
} upq_offset_index;
enum {
    UPQ_OFFSET_INDEX_PAGE_LOCATIONS = 1,
    UPQ_OFFSET_INDEX_UNENCODED_BYTE_ARRAY_DATA_BYTES = 2
};

/* Entry i of each list describes page i of the matching OffsetIndex; the
 * lists' lengths are not checked against each other here. */
typedef struct upq_column_index {
    uint32_t isset;
    upq_bool_list null_pages;
    upq_bytes_list min_values;
    upq_bytes_list max_values;
    int32_t boundary_order; /* upq_boundary_order */
    upq_i64_list null_counts;
    upq_i64_list repetition_level_histograms;
    upq_i64_list definition_level_histograms;
    upq_i64_list nan_counts;
} upq_column_index;
enum {
    UPQ_COLUMN_INDEX_NULL_PAGES = 1,
    UPQ_COLUMN_INDEX_MIN_VALUES = 2,
    UPQ_COLUMN_INDEX_MAX_VALUES = 3,
    UPQ_COLUMN_INDEX_BOUNDARY_ORDER = 4,
    UPQ_COLUMN_INDEX_NULL_COUNTS = 5,
    UPQ_COLUMN_INDEX_REPETITION_LEVEL_HISTOGRAMS = 6,
    UPQ_COLUMN_INDEX_DEFINITION_LEVEL_HISTOGRAMS = 7,
    UPQ_COLUMN_INDEX_NAN_COUNTS = 8
};

/* ---- encryption (file level) ------------------------------------------ */

typedef struct upq_aes_gcm_v1 {
    uint32_t isset;
    upq_bytes aad_prefix;
    upq_bytes aad_file_unique;
    uint8_t supply_aad_prefix;
} upq_aes_gcm_v1;
enum {
    UPQ_AES_GCM_V1_AAD_PREFIX = 1,
    UPQ_AES_GCM_V1_AAD_FILE_UNIQUE = 2,
    UPQ_AES_GCM_V1_SUPPLY_AAD_PREFIX = 3
};

typedef struct upq_aes_gcm_ctr_v1 {
    uint32_t isset;
    upq_bytes aad_prefix;
    upq_bytes aad_file_unique;
    uint8_t supply_aad_prefix;
} upq_aes_gcm_ctr_v1;
enum {
    UPQ_AES_GCM_CTR_V1_AAD_PREFIX = 1,
    UPQ_AES_GCM_CTR_V1_AAD_FILE_UNIQUE = 2,
    UPQ_AES_GCM_CTR_V1_SUPPLY_AAD_PREFIX = 3
};

/* union EncryptionAlgorithm */
typedef struct upq_encryption_algorithm {
    uint32_t isset;
    union {
        upq_aes_gcm_v1 aes_gcm_v1;
        upq_aes_gcm_ctr_v1 aes_gcm_ctr_v1;
    } u;
} upq_encryption_algorithm;
enum {
    UPQ_ENCRYPTION_ALGORITHM_AES_GCM_V1 = 1,
    UPQ_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1 = 2
};

/* ---- file ------------------------------------------------------------- */

UPQ_LIST_TYPE(upq_schema_element_list, upq_schema_element);

/* The footer. schema.v[0] is the root; the tree is flattened depth first.
 * column_orders, when present, has one entry per leaf column. */
typedef struct upq_file_metadata {
    uint32_t isset;
    int32_t version;
    upq_schema_element_list schema;
    int64_t num_rows;
    upq_row_group_list row_groups;
    upq_key_value_list key_value_metadata;
    upq_bytes created_by;
    upq_column_order_list column_orders;
    upq_encryption_algorithm encryption_algorithm; /* plaintext-footer files */
    upq_bytes footer_signing_key_metadata;
} upq_file_metadata;
enum {
    UPQ_FILE_METADATA_VERSION = 1,
    UPQ_FILE_METADATA_SCHEMA = 2,
    UPQ_FILE_METADATA_NUM_ROWS = 3,
    UPQ_FILE_METADATA_ROW_GROUPS = 4,
    UPQ_FILE_METADATA_KEY_VALUE_METADATA = 5,
    UPQ_FILE_METADATA_CREATED_BY = 6,
    UPQ_FILE_METADATA_COLUMN_ORDERS = 7,
    UPQ_FILE_METADATA_ENCRYPTION_ALGORITHM = 8,
    UPQ_FILE_METADATA_FOOTER_SIGNING_KEY_METADATA = 9
};

/* Precedes the encrypted footer of files ending in "PARE". */
typedef struct upq_file_crypto_metadata {
    uint32_t isset;
    upq_encryption_algorithm encryption_algorithm;
    upq_bytes key_metadata;
} upq_file_crypto_metadata;
enum {
    UPQ_FILE_CRYPTO_METADATA_ENCRYPTION_ALGORITHM = 1,
    UPQ_FILE_CRYPTO_METADATA_KEY_METADATA = 2
};

/* ---- names (core/format/meta_names.c) ---------------------------------------- */

/* Each returns a static string: the Thrift enum name ("INT32", "SNAPPY"),
 * or "?" for a value the format does not define. Never NULL. */
const char *upq_type_name(int32_t type);
const char *upq_converted_type_name(int32_t converted_type);
const char *upq_repetition_name(int32_t repetition);
const char *upq_encoding_name(int32_t encoding);
const char *upq_codec_name(int32_t codec);
const char *upq_page_type_name(int32_t page_type);
const char *upq_boundary_order_name(int32_t boundary_order);
const char *upq_edge_algorithm_name(int32_t algorithm);

/* The id of the member set in a LogicalType union (UPQ_LOGICAL_TYPE_*), or 0
 * when none is (absent, or a kind this version does not know). */
int upq_logical_type_kind(const upq_logical_type *lt);

/* The member's Thrift name ("STRING", "TIMESTAMP", "INTEGER", ...), "" when
 * none is set. Static string, never NULL. */
const char *upq_logical_type_name(const upq_logical_type *lt);

/* UPQ_TIME_UNIT_MILLIS/MICROS/NANOS, or 0 when none is set. */
int upq_time_unit_kind(const upq_time_unit *unit);

/* "MILLIS", "MICROS", "NANOS", or "" when none is set. Static, never NULL. */
const char *upq_time_unit_name(const upq_time_unit *unit);

/* Parses a codec / encoding name, ASCII case-insensitively ("zstd",
 * "RLE_DICTIONARY"; "none" is accepted for UNCOMPRESSED). `name` is a
 * NUL-terminated string. Returns the enum value, or -1 when unknown. */
int upq_codec_from_name(const char *name);
int upq_encoding_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
