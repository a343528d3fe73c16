/*
 * Descriptions of the parquet.thrift structs for the table-driven Thrift
 * layer. One table per struct, fields in id order, names as in the .thrift
 * file so that error messages can quote them.
 *
 * Required-ness follows parquet.thrift; the decoder rejects a struct that
 * lacks a UPQ_TF_REQUIRED field, as parquet-java and Arrow do. Every footer
 * of the parquet-testing corpus (data/, bad_data/, shredded_variant/) has
 * all of them, so no field is relaxed; a relaxation would get a comment here
 * naming the writer that needs it.
 *
 * Thrift defaults are not applied (ColumnChunk.file_offset = 0,
 * DataPageHeaderV2.is_compressed = true): callers test the isset bit.
 */
#include "uparquet/meta.h"
#include "upq_internal.h"

/* A field of the struct type S (defined before each table). */
#define FIELD(id, kind, elem, flags, member, sub, name) \
    { (id), (kind), (elem), (flags), (uint16_t)offsetof(S, member), (sub), (name) }

#define REQ UPQ_TF_REQUIRED
#define OPT 0u

#define F_BOOL(id, fl, m, nm) FIELD(id, UPQ_TK_BOOL, 0, fl, m, NULL, nm)
#define F_I8(id, fl, m, nm) FIELD(id, UPQ_TK_I8, 0, fl, m, NULL, nm)
#define F_I16(id, fl, m, nm) FIELD(id, UPQ_TK_I16, 0, fl, m, NULL, nm)
#define F_I32(id, fl, m, nm) FIELD(id, UPQ_TK_I32, 0, fl, m, NULL, nm)
#define F_I64(id, fl, m, nm) FIELD(id, UPQ_TK_I64, 0, fl, m, NULL, nm)
#define F_DBL(id, fl, m, nm) FIELD(id, UPQ_TK_DOUBLE, 0, fl, m, NULL, nm)
#define F_BIN(id, fl, m, nm) FIELD(id, UPQ_TK_BINARY, 0, fl, m, NULL, nm)
#define F_STRUCT(id, fl, m, sub, nm) FIELD(id, UPQ_TK_STRUCT, 0, fl, m, &sub##_desc, nm)
/* list of a scalar kind (UPQ_TK_BOOL, _I32, _I64, _BINARY) */
#define F_LIST(id, fl, m, elem, nm) FIELD(id, UPQ_TK_LIST, elem, fl, m, NULL, nm)
#define F_LIST_STRUCT(id, fl, m, sub, nm) \
    FIELD(id, UPQ_TK_LIST, UPQ_TK_STRUCT, fl, m, &sub##_desc, nm)

#define DESC(T, tname, fields, is_union)                                           \
    const upq_tstruct T##_desc = { tname, fields, (uint16_t)UPQ_COUNTOF(fields), \
                                   (uint16_t)sizeof(T), is_union }
#define STRUCT_DESC(T, tname, fields) DESC(T, tname, fields, 0)
#define UNION_DESC(T, tname, fields) DESC(T, tname, fields, 1)
/* Empty structs have no fields: unknown ones inside are skipped, and they
 * encode as an empty struct. */
#define EMPTY_DESC(T, tname) const upq_tstruct T##_desc = { tname, NULL, 0, (uint16_t)sizeof(T), 0 }

/* The decoder relies on isset being first; descriptions store offsets and
 * sizes in 16 bits. */
#define CHECK_STRUCT(T)                                          \
    UPQ_STATIC_ASSERT(offsetof(T, isset) == 0, T##_isset_first); \
    UPQ_STATIC_ASSERT(sizeof(T) <= 0xFFFFu, T##_size_fits)
/* The decoder writes every list through the generic upq_list layout. */
#define CHECK_LIST(L)                                                         \
    UPQ_STATIC_ASSERT(sizeof(L) == sizeof(upq_list), L##_size);               \
    UPQ_STATIC_ASSERT(offsetof(L, v) == offsetof(upq_list, v), L##_v);        \
    UPQ_STATIC_ASSERT(offsetof(L, n) == offsetof(upq_list, n), L##_n)

/* ---- statistics ------------------------------------------------------- */

#define S upq_size_statistics
static const upq_tfield size_statistics_fields[] = {
    F_I64(1, OPT, unencoded_byte_array_data_bytes, "unencoded_byte_array_data_bytes"),
    F_LIST(2, OPT, repetition_level_histogram, UPQ_TK_I64, "repetition_level_histogram"),
    F_LIST(3, OPT, definition_level_histogram, UPQ_TK_I64, "definition_level_histogram"),
};
STRUCT_DESC(upq_size_statistics, "SizeStatistics", size_statistics_fields);
#undef S

#define S upq_bounding_box
static const upq_tfield bounding_box_fields[] = {
    F_DBL(1, REQ, xmin, "xmin"),
    F_DBL(2, REQ, xmax, "xmax"),
    F_DBL(3, REQ, ymin, "ymin"),
    F_DBL(4, REQ, ymax, "ymax"),
    F_DBL(5, OPT, zmin, "zmin"),
    F_DBL(6, OPT, zmax, "zmax"),
    F_DBL(7, OPT, mmin, "mmin"),
    F_DBL(8, OPT, mmax, "mmax"),
};
STRUCT_DESC(upq_bounding_box, "BoundingBox", bounding_box_fields);
#undef S

#define S upq_geospatial_statistics
static const upq_tfield geospatial_statistics_fields[] = {
    F_STRUCT(1, OPT, bbox, upq_bounding_box, "bbox"),
    F_LIST(2, OPT, geospatial_types, UPQ_TK_I32, "geospatial_types"),
};
STRUCT_DESC(upq_geospatial_statistics, "GeospatialStatistics", geospatial_statistics_fields);
#undef S

#define S upq_statistics
static const upq_tfield statistics_fields[] = {
    F_BIN(1, OPT, max, "max"),
    F_BIN(2, OPT, min, "min"),
    F_I64(3, OPT, null_count, "null_count"),
    F_I64(4, OPT, distinct_count, "distinct_count"),
    F_BIN(5, OPT, max_value, "max_value"),
    F_BIN(6, OPT, min_value, "min_value"),
    F_BOOL(7, OPT, is_max_value_exact, "is_max_value_exact"),
    F_BOOL(8, OPT, is_min_value_exact, "is_min_value_exact"),
    F_I64(9, OPT, nan_count, "nan_count"),
};
STRUCT_DESC(upq_statistics, "Statistics", statistics_fields);
#undef S

/* ---- logical types ---------------------------------------------------- */

EMPTY_DESC(upq_string_type, "StringType");
EMPTY_DESC(upq_uuid_type, "UUIDType");
EMPTY_DESC(upq_map_type, "MapType");
EMPTY_DESC(upq_list_type, "ListType");
EMPTY_DESC(upq_vector_type, "VectorType");
EMPTY_DESC(upq_enum_type, "EnumType");
EMPTY_DESC(upq_date_type, "DateType");
EMPTY_DESC(upq_float16_type, "Float16Type");
EMPTY_DESC(upq_null_type, "NullType");
EMPTY_DESC(upq_json_type, "JsonType");
EMPTY_DESC(upq_bson_type, "BsonType");
EMPTY_DESC(upq_milli_seconds, "MilliSeconds");
EMPTY_DESC(upq_micro_seconds, "MicroSeconds");
EMPTY_DESC(upq_nano_seconds, "NanoSeconds");

#define S upq_decimal_type
static const upq_tfield decimal_type_fields[] = {
    F_I32(1, REQ, scale, "scale"),
    F_I32(2, REQ, precision, "precision"),
};
STRUCT_DESC(upq_decimal_type, "DecimalType", decimal_type_fields);
#undef S

#define S upq_time_unit
static const upq_tfield time_unit_fields[] = {
    F_STRUCT(1, OPT, u.millis, upq_milli_seconds, "MILLIS"),
    F_STRUCT(2, OPT, u.micros, upq_micro_seconds, "MICROS"),
    F_STRUCT(3, OPT, u.nanos, upq_nano_seconds, "NANOS"),
};
UNION_DESC(upq_time_unit, "TimeUnit", time_unit_fields);
#undef S

#define S upq_timestamp_type
static const upq_tfield timestamp_type_fields[] = {
    F_BOOL(1, REQ, is_adjusted_to_utc, "isAdjustedToUTC"),
    F_STRUCT(2, REQ, unit, upq_time_unit, "unit"),
};
STRUCT_DESC(upq_timestamp_type, "TimestampType", timestamp_type_fields);
#undef S

#define S upq_time_type
static const upq_tfield time_type_fields[] = {
    F_BOOL(1, REQ, is_adjusted_to_utc, "isAdjustedToUTC"),
    F_STRUCT(2, REQ, unit, upq_time_unit, "unit"),
};
STRUCT_DESC(upq_time_type, "TimeType", time_type_fields);
#undef S

#define S upq_int_type
static const upq_tfield int_type_fields[] = {
    F_I8(1, REQ, bit_width, "bitWidth"),
    F_BOOL(2, REQ, is_signed, "isSigned"),
};
STRUCT_DESC(upq_int_type, "IntType", int_type_fields);
#undef S

#define S upq_variant_type
static const upq_tfield variant_type_fields[] = {
    F_I8(1, OPT, specification_version, "specification_version"),
};
STRUCT_DESC(upq_variant_type, "VariantType", variant_type_fields);
#undef S

#define S upq_geometry_type
static const upq_tfield geometry_type_fields[] = {
    F_BIN(1, OPT, crs, "crs"),
};
STRUCT_DESC(upq_geometry_type, "GeometryType", geometry_type_fields);
#undef S

#define S upq_geography_type
static const upq_tfield geography_type_fields[] = {
    F_BIN(1, OPT, crs, "crs"),
    F_I32(2, OPT, algorithm, "algorithm"),
};
STRUCT_DESC(upq_geography_type, "GeographyType", geography_type_fields);
#undef S

#define S upq_logical_type
static const upq_tfield logical_type_fields[] = {
    F_STRUCT(1, OPT, u.string, upq_string_type, "STRING"),
    F_STRUCT(2, OPT, u.map, upq_map_type, "MAP"),
    F_STRUCT(3, OPT, u.list, upq_list_type, "LIST"),
    F_STRUCT(4, OPT, u.enum_, upq_enum_type, "ENUM"),
    F_STRUCT(5, OPT, u.decimal, upq_decimal_type, "DECIMAL"),
    F_STRUCT(6, OPT, u.date, upq_date_type, "DATE"),
    F_STRUCT(7, OPT, u.time, upq_time_type, "TIME"),
    F_STRUCT(8, OPT, u.timestamp, upq_timestamp_type, "TIMESTAMP"),
    /* 9 is reserved for INTERVAL */
    F_STRUCT(10, OPT, u.integer, upq_int_type, "INTEGER"),
    F_STRUCT(11, OPT, u.unknown, upq_null_type, "UNKNOWN"),
    F_STRUCT(12, OPT, u.json, upq_json_type, "JSON"),
    F_STRUCT(13, OPT, u.bson, upq_bson_type, "BSON"),
    F_STRUCT(14, OPT, u.uuid, upq_uuid_type, "UUID"),
    F_STRUCT(15, OPT, u.float16, upq_float16_type, "FLOAT16"),
    F_STRUCT(16, OPT, u.variant, upq_variant_type, "VARIANT"),
    F_STRUCT(17, OPT, u.geometry, upq_geometry_type, "GEOMETRY"),
    F_STRUCT(18, OPT, u.geography, upq_geography_type, "GEOGRAPHY"),
    F_STRUCT(19, OPT, u.vector, upq_vector_type, "VECTOR"),
};
UNION_DESC(upq_logical_type, "LogicalType", logical_type_fields);
#undef S

/* ---- schema ----------------------------------------------------------- */

#define S upq_schema_element
static const upq_tfield schema_element_fields[] = {
    F_I32(1, OPT, type, "type"),
    F_I32(2, OPT, type_length, "type_length"),
    F_I32(3, OPT, repetition_type, "repetition_type"),
    F_BIN(4, REQ, name, "name"),
    F_I32(5, OPT, num_children, "num_children"),
    F_I32(6, OPT, converted_type, "converted_type"),
    F_I32(7, OPT, scale, "scale"),
    F_I32(8, OPT, precision, "precision"),
    F_I32(9, OPT, field_id, "field_id"),
    F_STRUCT(10, OPT, logical_type, upq_logical_type, "logicalType"),
    F_I32(11, OPT, vector_length, "vector_length"),
};
STRUCT_DESC(upq_schema_element, "SchemaElement", schema_element_fields);
#undef S

/* ---- pages ------------------------------------------------------------ */

#define S upq_data_page_header
static const upq_tfield data_page_header_fields[] = {
    F_I32(1, REQ, num_values, "num_values"),
    F_I32(2, REQ, encoding, "encoding"),
    F_I32(3, REQ, definition_level_encoding, "definition_level_encoding"),
    F_I32(4, REQ, repetition_level_encoding, "repetition_level_encoding"),
    F_STRUCT(5, OPT, statistics, upq_statistics, "statistics"),
};
STRUCT_DESC(upq_data_page_header, "DataPageHeader", data_page_header_fields);
#undef S

EMPTY_DESC(upq_index_page_header, "IndexPageHeader");

#define S upq_dictionary_page_header
static const upq_tfield dictionary_page_header_fields[] = {
    F_I32(1, REQ, num_values, "num_values"),
    F_I32(2, REQ, encoding, "encoding"),
    F_BOOL(3, OPT, is_sorted, "is_sorted"),
};
STRUCT_DESC(upq_dictionary_page_header, "DictionaryPageHeader", dictionary_page_header_fields);
#undef S

#define S upq_data_page_header_v2
static const upq_tfield data_page_header_v2_fields[] = {
    F_I32(1, REQ, num_values, "num_values"),
    F_I32(2, REQ, num_nulls, "num_nulls"),
    F_I32(3, REQ, num_rows, "num_rows"),
    F_I32(4, REQ, encoding, "encoding"),
    F_I32(5, REQ, definition_levels_byte_length, "definition_levels_byte_length"),
    F_I32(6, REQ, repetition_levels_byte_length, "repetition_levels_byte_length"),
    F_BOOL(7, OPT, is_compressed, "is_compressed"),
    F_STRUCT(8, OPT, statistics, upq_statistics, "statistics"),
};
STRUCT_DESC(upq_data_page_header_v2, "DataPageHeaderV2", data_page_header_v2_fields);
#undef S

/* ---- bloom filters ---------------------------------------------------- */

#if UPQ_WITH_BLOOM

EMPTY_DESC(upq_split_block_algorithm, "SplitBlockAlgorithm");
EMPTY_DESC(upq_xx_hash, "XxHash");
EMPTY_DESC(upq_uncompressed, "Uncompressed");

#define S upq_bloom_filter_algorithm
static const upq_tfield bloom_filter_algorithm_fields[] = {
    F_STRUCT(1, OPT, u.block, upq_split_block_algorithm, "BLOCK"),
};
UNION_DESC(upq_bloom_filter_algorithm, "BloomFilterAlgorithm", bloom_filter_algorithm_fields);
#undef S

#define S upq_bloom_filter_hash
static const upq_tfield bloom_filter_hash_fields[] = {
    F_STRUCT(1, OPT, u.xxhash, upq_xx_hash, "XXHASH"),
};
UNION_DESC(upq_bloom_filter_hash, "BloomFilterHash", bloom_filter_hash_fields);
#undef S

#define S upq_bloom_filter_compression
static const upq_tfield bloom_filter_compression_fields[] = {
    F_STRUCT(1, OPT, u.uncompressed, upq_uncompressed, "UNCOMPRESSED"),
};
UNION_DESC(upq_bloom_filter_compression, "BloomFilterCompression",
           bloom_filter_compression_fields);
#undef S

#define S upq_bloom_filter_header
static const upq_tfield bloom_filter_header_fields[] = {
    F_I32(1, REQ, num_bytes, "numBytes"),
    F_STRUCT(2, REQ, algorithm, upq_bloom_filter_algorithm, "algorithm"),
    F_STRUCT(3, REQ, hash, upq_bloom_filter_hash, "hash"),
    F_STRUCT(4, REQ, compression, upq_bloom_filter_compression, "compression"),
};
STRUCT_DESC(upq_bloom_filter_header, "BloomFilterHeader", bloom_filter_header_fields);
#undef S
#endif /* UPQ_WITH_BLOOM */

/* ---- page header ------------------------------------------------------ */

#define S upq_page_header
static const upq_tfield page_header_fields[] = {
    F_I32(1, REQ, type, "type"),
    F_I32(2, REQ, uncompressed_page_size, "uncompressed_page_size"),
    F_I32(3, REQ, compressed_page_size, "compressed_page_size"),
    F_I32(4, OPT, crc, "crc"),
    F_STRUCT(5, OPT, data_page_header, upq_data_page_header, "data_page_header"),
    F_STRUCT(6, OPT, index_page_header, upq_index_page_header, "index_page_header"),
    F_STRUCT(7, OPT, dictionary_page_header, upq_dictionary_page_header,
             "dictionary_page_header"),
    F_STRUCT(8, OPT, data_page_header_v2, upq_data_page_header_v2, "data_page_header_v2"),
};
STRUCT_DESC(upq_page_header, "PageHeader", page_header_fields);
#undef S

/* Page headers as the column reader decodes them: page statistics are
 * skipped, so a header takes no arena memory however many pages a chunk has
 * (the page index and chunk statistics are the places to read them). */
/* Statistics is the last field of both data page headers: the lean
 * descriptions are the full field tables without it. */
static const upq_tstruct data_page_header_lean_desc = {
    "DataPageHeader", data_page_header_fields,
    (uint16_t)(UPQ_COUNTOF(data_page_header_fields) - 1u), (uint16_t)sizeof(upq_data_page_header), 0};
static const upq_tstruct data_page_header_v2_lean_desc = {
    "DataPageHeaderV2", data_page_header_v2_fields,
    (uint16_t)(UPQ_COUNTOF(data_page_header_v2_fields) - 1u),
    (uint16_t)sizeof(upq_data_page_header_v2), 0};

#define S upq_page_header
static const upq_tfield page_header_lean_fields[] = {
    F_I32(1, REQ, type, "type"),
    F_I32(2, REQ, uncompressed_page_size, "uncompressed_page_size"),
    F_I32(3, REQ, compressed_page_size, "compressed_page_size"),
    F_I32(4, OPT, crc, "crc"),
    FIELD(5, UPQ_TK_STRUCT, 0, OPT, data_page_header, &data_page_header_lean_desc,
          "data_page_header"),
    F_STRUCT(6, OPT, index_page_header, upq_index_page_header, "index_page_header"),
    F_STRUCT(7, OPT, dictionary_page_header, upq_dictionary_page_header,
             "dictionary_page_header"),
    FIELD(8, UPQ_TK_STRUCT, 0, OPT, data_page_header_v2, &data_page_header_v2_lean_desc,
          "data_page_header_v2"),
};
const upq_tstruct upq_page_header_lean_desc = {"PageHeader", page_header_lean_fields,
                                               (uint16_t)UPQ_COUNTOF(page_header_lean_fields),
                                               (uint16_t)sizeof(S), 0};
#undef S

/* ---- column chunk metadata -------------------------------------------- */

#define S upq_key_value
static const upq_tfield key_value_fields[] = {
    F_BIN(1, REQ, key, "key"),
    F_BIN(2, OPT, value, "value"),
};
STRUCT_DESC(upq_key_value, "KeyValue", key_value_fields);
#undef S

#define S upq_sorting_column
static const upq_tfield sorting_column_fields[] = {
    F_I32(1, REQ, column_idx, "column_idx"),
    F_BOOL(2, REQ, descending, "descending"),
    F_BOOL(3, REQ, nulls_first, "nulls_first"),
};
STRUCT_DESC(upq_sorting_column, "SortingColumn", sorting_column_fields);
#undef S

#define S upq_page_encoding_stats
static const upq_tfield page_encoding_stats_fields[] = {
    F_I32(1, REQ, page_type, "page_type"),
    F_I32(2, REQ, encoding, "encoding"),
    F_I32(3, REQ, count, "count"),
};
STRUCT_DESC(upq_page_encoding_stats, "PageEncodingStats", page_encoding_stats_fields);
#undef S

#define S upq_column_metadata
static const upq_tfield column_metadata_fields[] = {
    F_I32(1, REQ, type, "type"),
    F_LIST(2, REQ, encodings, UPQ_TK_I32, "encodings"),
    F_LIST(3, REQ, path_in_schema, UPQ_TK_BINARY, "path_in_schema"),
    F_I32(4, REQ, codec, "codec"),
    F_I64(5, REQ, num_values, "num_values"),
    F_I64(6, REQ, total_uncompressed_size, "total_uncompressed_size"),
    F_I64(7, REQ, total_compressed_size, "total_compressed_size"),
    F_LIST_STRUCT(8, OPT, key_value_metadata, upq_key_value, "key_value_metadata"),
    F_I64(9, REQ, data_page_offset, "data_page_offset"),
    F_I64(10, OPT, index_page_offset, "index_page_offset"),
    F_I64(11, OPT, dictionary_page_offset, "dictionary_page_offset"),
    F_STRUCT(12, OPT, statistics, upq_statistics, "statistics"),
    F_LIST_STRUCT(13, OPT, encoding_stats, upq_page_encoding_stats, "encoding_stats"),
    F_I64(14, OPT, bloom_filter_offset, "bloom_filter_offset"),
    /* a pre-release parquet-mr 1.12.0 build wrote a list<struct> under id 15
     * (data/dict-page-offset-zero.parquet); the decoder skips a field whose
     * wire type does not match, so such footers still decode */
    F_I32(15, OPT, bloom_filter_length, "bloom_filter_length"),
    F_STRUCT(16, OPT, size_statistics, upq_size_statistics, "size_statistics"),
    F_STRUCT(17, OPT, geospatial_statistics, upq_geospatial_statistics,
             "geospatial_statistics"),
};
STRUCT_DESC(upq_column_metadata, "ColumnMetaData", column_metadata_fields);
#undef S

/* ---- encryption (column level) ---------------------------------------- */

#if UPQ_WITH_CRYPTO

EMPTY_DESC(upq_encryption_with_footer_key, "EncryptionWithFooterKey");

#define S upq_encryption_with_column_key
static const upq_tfield encryption_with_column_key_fields[] = {
    F_LIST(1, REQ, path_in_schema, UPQ_TK_BINARY, "path_in_schema"),
    F_BIN(2, OPT, key_metadata, "key_metadata"),
};
STRUCT_DESC(upq_encryption_with_column_key, "EncryptionWithColumnKey",
            encryption_with_column_key_fields);
#undef S

#define S upq_column_crypto_metadata
static const upq_tfield column_crypto_metadata_fields[] = {
    F_STRUCT(1, OPT, u.encryption_with_footer_key, upq_encryption_with_footer_key,
             "ENCRYPTION_WITH_FOOTER_KEY"),
    F_STRUCT(2, OPT, u.encryption_with_column_key, upq_encryption_with_column_key,
             "ENCRYPTION_WITH_COLUMN_KEY"),
};
UNION_DESC(upq_column_crypto_metadata, "ColumnCryptoMetaData", column_crypto_metadata_fields);
#undef S
#endif /* UPQ_WITH_CRYPTO */

/* A build without encryption (and likewise without bloom filters) leaves
 * those descriptions out. The crypto structs inside ColumnChunk and
 * FileMetaData are then skipped: their isset bits still say that a column or
 * the file is encrypted, which is all such a build acts on
 * (UPQ_ERR_UNSUPPORTED, or legacy reading). */
#if UPQ_WITH_CRYPTO
#define F_CRYPTO(id, m, sub, nm) F_STRUCT(id, OPT, m, sub, nm)
#else
#define F_CRYPTO(id, m, sub, nm) FIELD(id, UPQ_TK_STRUCT, 0, OPT, m, &skipped_##sub##_desc, nm)
#define SKIPPED_DESC(T, tname) \
    static const upq_tstruct skipped_##T##_desc = { tname, NULL, 0, (uint16_t)sizeof(T), 0 }
SKIPPED_DESC(upq_column_crypto_metadata, "ColumnCryptoMetaData");
SKIPPED_DESC(upq_encryption_algorithm, "EncryptionAlgorithm");
#endif

/* ---- row groups ------------------------------------------------------- */

#define S upq_column_chunk
static const upq_tfield column_chunk_fields[] = {
    F_BIN(1, OPT, file_path, "file_path"),
    F_I64(2, REQ, file_offset, "file_offset"),
    F_STRUCT(3, OPT, meta_data, upq_column_metadata, "meta_data"),
    F_I64(4, OPT, offset_index_offset, "offset_index_offset"),
    F_I32(5, OPT, offset_index_length, "offset_index_length"),
    F_I64(6, OPT, column_index_offset, "column_index_offset"),
    F_I32(7, OPT, column_index_length, "column_index_length"),
    F_CRYPTO(8, crypto_metadata, upq_column_crypto_metadata, "crypto_metadata"),
    F_BIN(9, OPT, encrypted_column_metadata, "encrypted_column_metadata"),
};
STRUCT_DESC(upq_column_chunk, "ColumnChunk", column_chunk_fields);
#undef S

#define S upq_row_group
static const upq_tfield row_group_fields[] = {
    FIELD(1, UPQ_TK_LIST, UPQ_TK_STRUCT, REQ | UPQ_TF_PROJECT, columns, &upq_column_chunk_desc,
          "columns"),
    F_I64(2, REQ, total_byte_size, "total_byte_size"),
    F_I64(3, REQ, num_rows, "num_rows"),
    F_LIST_STRUCT(4, OPT, sorting_columns, upq_sorting_column, "sorting_columns"),
    F_I64(5, OPT, file_offset, "file_offset"),
    F_I64(6, OPT, total_compressed_size, "total_compressed_size"),
    F_I16(7, OPT, ordinal, "ordinal"),
};
STRUCT_DESC(upq_row_group, "RowGroup", row_group_fields);
#undef S

/* ---- column orders ---------------------------------------------------- */

EMPTY_DESC(upq_type_defined_order, "TypeDefinedOrder");
EMPTY_DESC(upq_ieee754_total_order, "IEEE754TotalOrder");
EMPTY_DESC(upq_int96_timestamp_order, "Int96TimestampOrder");

#define S upq_column_order
static const upq_tfield column_order_fields[] = {
    F_STRUCT(1, OPT, u.type_order, upq_type_defined_order, "TYPE_ORDER"),
    F_STRUCT(2, OPT, u.ieee_754_total_order, upq_ieee754_total_order, "IEEE_754_TOTAL_ORDER"),
    F_STRUCT(3, OPT, u.int96_timestamp_order, upq_int96_timestamp_order,
             "INT96_TIMESTAMP_ORDER"),
};
UNION_DESC(upq_column_order, "ColumnOrder", column_order_fields);
#undef S

/* ---- page index ------------------------------------------------------- */

#define S upq_page_location
static const upq_tfield page_location_fields[] = {
    F_I64(1, REQ, offset, "offset"),
    F_I32(2, REQ, compressed_page_size, "compressed_page_size"),
    F_I64(3, REQ, first_row_index, "first_row_index"),
};
STRUCT_DESC(upq_page_location, "PageLocation", page_location_fields);
#undef S

#define S upq_offset_index
static const upq_tfield offset_index_fields[] = {
    F_LIST_STRUCT(1, REQ, page_locations, upq_page_location, "page_locations"),
    F_LIST(2, OPT, unencoded_byte_array_data_bytes, UPQ_TK_I64,
           "unencoded_byte_array_data_bytes"),
};
STRUCT_DESC(upq_offset_index, "OffsetIndex", offset_index_fields);
#undef S

#define S upq_column_index
static const upq_tfield column_index_fields[] = {
    F_LIST(1, REQ, null_pages, UPQ_TK_BOOL, "null_pages"),
    F_LIST(2, REQ, min_values, UPQ_TK_BINARY, "min_values"),
    F_LIST(3, REQ, max_values, UPQ_TK_BINARY, "max_values"),
    F_I32(4, REQ, boundary_order, "boundary_order"),
    F_LIST(5, OPT, null_counts, UPQ_TK_I64, "null_counts"),
    F_LIST(6, OPT, repetition_level_histograms, UPQ_TK_I64, "repetition_level_histograms"),
    F_LIST(7, OPT, definition_level_histograms, UPQ_TK_I64, "definition_level_histograms"),
    F_LIST(8, OPT, nan_counts, UPQ_TK_I64, "nan_counts"),
};
STRUCT_DESC(upq_column_index, "ColumnIndex", column_index_fields);
#undef S

/* ---- encryption (file level) ------------------------------------------ */

#if UPQ_WITH_CRYPTO

#define S upq_aes_gcm_v1
static const upq_tfield aes_gcm_v1_fields[] = {
    F_BIN(1, OPT, aad_prefix, "aad_prefix"),
    F_BIN(2, OPT, aad_file_unique, "aad_file_unique"),
    F_BOOL(3, OPT, supply_aad_prefix, "supply_aad_prefix"),
};
STRUCT_DESC(upq_aes_gcm_v1, "AesGcmV1", aes_gcm_v1_fields);
#undef S

#define S upq_aes_gcm_ctr_v1
static const upq_tfield aes_gcm_ctr_v1_fields[] = {
    F_BIN(1, OPT, aad_prefix, "aad_prefix"),
    F_BIN(2, OPT, aad_file_unique, "aad_file_unique"),
    F_BOOL(3, OPT, supply_aad_prefix, "supply_aad_prefix"),
};
STRUCT_DESC(upq_aes_gcm_ctr_v1, "AesGcmCtrV1", aes_gcm_ctr_v1_fields);
#undef S

#define S upq_encryption_algorithm
static const upq_tfield encryption_algorithm_fields[] = {
    F_STRUCT(1, OPT, u.aes_gcm_v1, upq_aes_gcm_v1, "AES_GCM_V1"),
    F_STRUCT(2, OPT, u.aes_gcm_ctr_v1, upq_aes_gcm_ctr_v1, "AES_GCM_CTR_V1"),
};
UNION_DESC(upq_encryption_algorithm, "EncryptionAlgorithm", encryption_algorithm_fields);
#undef S
#endif /* UPQ_WITH_CRYPTO */

/* ---- file ------------------------------------------------------------- */

#define S upq_file_metadata
static const upq_tfield file_metadata_fields[] = {
    F_I32(1, REQ, version, "version"),
    F_LIST_STRUCT(2, REQ, schema, upq_schema_element, "schema"),
    F_I64(3, REQ, num_rows, "num_rows"),
    F_LIST_STRUCT(4, REQ, row_groups, upq_row_group, "row_groups"),
    F_LIST_STRUCT(5, OPT, key_value_metadata, upq_key_value, "key_value_metadata"),
    F_BIN(6, OPT, created_by, "created_by"),
    F_LIST_STRUCT(7, OPT, column_orders, upq_column_order, "column_orders"),
    F_CRYPTO(8, encryption_algorithm, upq_encryption_algorithm, "encryption_algorithm"),
    F_BIN(9, OPT, footer_signing_key_metadata, "footer_signing_key_metadata"),
};
STRUCT_DESC(upq_file_metadata, "FileMetaData", file_metadata_fields);
#undef S

#if UPQ_WITH_CRYPTO
#define S upq_file_crypto_metadata
static const upq_tfield file_crypto_metadata_fields[] = {
    F_STRUCT(1, REQ, encryption_algorithm, upq_encryption_algorithm, "encryption_algorithm"),
    F_BIN(2, OPT, key_metadata, "key_metadata"),
};
STRUCT_DESC(upq_file_crypto_metadata, "FileCryptoMetaData", file_crypto_metadata_fields);
#undef S
#endif

/* ---- layout checks ---------------------------------------------------- */

CHECK_STRUCT(upq_size_statistics);
CHECK_STRUCT(upq_bounding_box);
CHECK_STRUCT(upq_geospatial_statistics);
CHECK_STRUCT(upq_statistics);
CHECK_STRUCT(upq_string_type);
CHECK_STRUCT(upq_uuid_type);
CHECK_STRUCT(upq_map_type);
CHECK_STRUCT(upq_list_type);
CHECK_STRUCT(upq_vector_type);
CHECK_STRUCT(upq_enum_type);
CHECK_STRUCT(upq_date_type);
CHECK_STRUCT(upq_float16_type);
CHECK_STRUCT(upq_null_type);
CHECK_STRUCT(upq_json_type);
CHECK_STRUCT(upq_bson_type);
CHECK_STRUCT(upq_milli_seconds);
CHECK_STRUCT(upq_micro_seconds);
CHECK_STRUCT(upq_nano_seconds);
CHECK_STRUCT(upq_decimal_type);
CHECK_STRUCT(upq_time_unit);
CHECK_STRUCT(upq_timestamp_type);
CHECK_STRUCT(upq_time_type);
CHECK_STRUCT(upq_int_type);
CHECK_STRUCT(upq_variant_type);
CHECK_STRUCT(upq_geometry_type);
CHECK_STRUCT(upq_geography_type);
CHECK_STRUCT(upq_logical_type);
CHECK_STRUCT(upq_schema_element);
CHECK_STRUCT(upq_data_page_header);
CHECK_STRUCT(upq_index_page_header);
CHECK_STRUCT(upq_dictionary_page_header);
CHECK_STRUCT(upq_data_page_header_v2);
CHECK_STRUCT(upq_split_block_algorithm);
CHECK_STRUCT(upq_xx_hash);
CHECK_STRUCT(upq_uncompressed);
CHECK_STRUCT(upq_bloom_filter_algorithm);
CHECK_STRUCT(upq_bloom_filter_hash);
CHECK_STRUCT(upq_bloom_filter_compression);
CHECK_STRUCT(upq_bloom_filter_header);
CHECK_STRUCT(upq_page_header);
CHECK_STRUCT(upq_key_value);
CHECK_STRUCT(upq_sorting_column);
CHECK_STRUCT(upq_page_encoding_stats);
CHECK_STRUCT(upq_column_metadata);
CHECK_STRUCT(upq_encryption_with_footer_key);
CHECK_STRUCT(upq_encryption_with_column_key);
CHECK_STRUCT(upq_column_crypto_metadata);
CHECK_STRUCT(upq_column_chunk);
CHECK_STRUCT(upq_row_group);
CHECK_STRUCT(upq_type_defined_order);
CHECK_STRUCT(upq_ieee754_total_order);
CHECK_STRUCT(upq_int96_timestamp_order);
CHECK_STRUCT(upq_column_order);
CHECK_STRUCT(upq_page_location);
CHECK_STRUCT(upq_offset_index);
CHECK_STRUCT(upq_column_index);
CHECK_STRUCT(upq_aes_gcm_v1);
CHECK_STRUCT(upq_aes_gcm_ctr_v1);
CHECK_STRUCT(upq_encryption_algorithm);
CHECK_STRUCT(upq_file_metadata);
CHECK_STRUCT(upq_file_crypto_metadata);

CHECK_LIST(upq_bool_list);
CHECK_LIST(upq_i32_list);
CHECK_LIST(upq_i64_list);
CHECK_LIST(upq_bytes_list);
CHECK_LIST(upq_key_value_list);
CHECK_LIST(upq_sorting_column_list);
CHECK_LIST(upq_page_encoding_stats_list);
CHECK_LIST(upq_column_chunk_list);
CHECK_LIST(upq_row_group_list);
CHECK_LIST(upq_column_order_list);
CHECK_LIST(upq_page_location_list);
CHECK_LIST(upq_schema_element_list);
