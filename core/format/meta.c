/*
 * Descriptions of the parquet.thrift structs for the table-driven Thrift
 * layer. One field table per struct, fields in id order, names as in the
 * .thrift file so that error messages can quote them (a UPQ_NO_ERRSTR build
 * keeps no names), and one table of the structs, upq_meta_descs, through
 * which fields name their struct types.
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
#include "meta_desc.h"
#include "common/upq_internal.h"

/* A field of the struct type S (defined before each table). */
#define FIELD(id, kind, flags, member, name) \
    UPQ_TFIELD((id) | (flags), kind, offsetof(S, member), name)

#define REQ UPQ_TF_REQUIRED
#define OPT 0u

#define F_BOOL(id, fl, m, nm) FIELD(id, UPQ_TK_BOOL, fl, m, nm)
#define F_I8(id, fl, m, nm) FIELD(id, UPQ_TK_I8, fl, m, nm)
#define F_I16(id, fl, m, nm) FIELD(id, UPQ_TK_I16, fl, m, nm)
#define F_I32(id, fl, m, nm) FIELD(id, UPQ_TK_I32, fl, m, nm)
#define F_I64(id, fl, m, nm) FIELD(id, UPQ_TK_I64, fl, m, nm)
#define F_DBL(id, fl, m, nm) FIELD(id, UPQ_TK_DOUBLE, fl, m, nm)
#define F_BIN(id, fl, m, nm) FIELD(id, UPQ_TK_BINARY, fl, m, nm)
/* a struct of the type whose entry in upq_meta_descs is UPQ_DESC_<SUB> */
#define F_STRUCT(id, fl, m, SUB, nm) FIELD(id, UPQ_TK_STRUCT + UPQ_DESC_##SUB, fl, m, nm)
/* list of a scalar kind (UPQ_TK_BOOL, _I32, _I64, _BINARY) */
#define F_LIST(id, fl, m, elem, nm) FIELD(id, elem, (fl) | UPQ_TF_LIST, m, nm)
#define F_LIST_STRUCT(id, fl, m, SUB, nm) \
    FIELD(id, UPQ_TK_STRUCT + UPQ_DESC_##SUB, (fl) | UPQ_TF_LIST, m, nm)

/* Entries of upq_meta_descs. Empty structs have no fields: unknown ones
 * inside are skipped, and they encode as an empty struct. */
#define ENTRY(E, T, tname, fields, nfields, flags)                                     \
    [UPQ_DESC_##E] = UPQ_TSTRUCT(tname, fields, nfields, sizeof(T), \
                                 (unsigned)UPQ_DESC_##E | (flags))
#define STRUCT(E, T, tname, fields) ENTRY(E, T, tname, fields, UPQ_COUNTOF(fields), 0u)
#define UNION(E, T, tname, fields) ENTRY(E, T, tname, fields, UPQ_COUNTOF(fields), UPQ_TS_UNION)
#define EMPTY(E, T, tname) ENTRY(E, T, tname, NULL, 0, 0u)

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
#undef S

#define S upq_geospatial_statistics
static const upq_tfield geospatial_statistics_fields[] = {
    F_STRUCT(1, OPT, bbox, BOUNDING_BOX, "bbox"),
    F_LIST(2, OPT, geospatial_types, UPQ_TK_I32, "geospatial_types"),
};
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
#undef S

/* ---- logical types ---------------------------------------------------- */


#define S upq_decimal_type
static const upq_tfield decimal_type_fields[] = {
    F_I32(1, REQ, scale, "scale"),
    F_I32(2, REQ, precision, "precision"),
};
#undef S

#define S upq_time_unit
static const upq_tfield time_unit_fields[] = {
    F_STRUCT(1, OPT, u.millis, MILLI_SECONDS, "MILLIS"),
    F_STRUCT(2, OPT, u.micros, MICRO_SECONDS, "MICROS"),
    F_STRUCT(3, OPT, u.nanos, NANO_SECONDS, "NANOS"),
};
#undef S

/* TimestampType and TimeType have the same fields, and their structs the
 * same layout: one table serves both. */
#define S upq_timestamp_type
static const upq_tfield timestamp_type_fields[] = {
    F_BOOL(1, REQ, is_adjusted_to_utc, "isAdjustedToUTC"),
    F_STRUCT(2, REQ, unit, TIME_UNIT, "unit"),
};
#undef S
UPQ_STATIC_ASSERT(sizeof(upq_time_type) == sizeof(upq_timestamp_type), time_type_size);
UPQ_STATIC_ASSERT(offsetof(upq_time_type, is_adjusted_to_utc) ==
                      offsetof(upq_timestamp_type, is_adjusted_to_utc), time_type_utc);
UPQ_STATIC_ASSERT(offsetof(upq_time_type, unit) == offsetof(upq_timestamp_type, unit), time_type_unit);

#define S upq_int_type
static const upq_tfield int_type_fields[] = {
    F_I8(1, REQ, bit_width, "bitWidth"),
    F_BOOL(2, REQ, is_signed, "isSigned"),
};
#undef S

#define S upq_variant_type
static const upq_tfield variant_type_fields[] = {
    F_I8(1, OPT, specification_version, "specification_version"),
};
#undef S

#define S upq_geometry_type
static const upq_tfield geometry_type_fields[] = {
    F_BIN(1, OPT, crs, "crs"),
};
#undef S

#define S upq_geography_type
static const upq_tfield geography_type_fields[] = {
    F_BIN(1, OPT, crs, "crs"),
    F_I32(2, OPT, algorithm, "algorithm"),
};
#undef S

#define S upq_logical_type
static const upq_tfield logical_type_fields[] = {
    F_STRUCT(1, OPT, u.string, STRING_TYPE, "STRING"),
    F_STRUCT(2, OPT, u.map, MAP_TYPE, "MAP"),
    F_STRUCT(3, OPT, u.list, LIST_TYPE, "LIST"),
    F_STRUCT(4, OPT, u.enum_, ENUM_TYPE, "ENUM"),
    F_STRUCT(5, OPT, u.decimal, DECIMAL_TYPE, "DECIMAL"),
    F_STRUCT(6, OPT, u.date, DATE_TYPE, "DATE"),
    F_STRUCT(7, OPT, u.time, TIME_TYPE, "TIME"),
    F_STRUCT(8, OPT, u.timestamp, TIMESTAMP_TYPE, "TIMESTAMP"),
    /* 9 is reserved for INTERVAL */
    F_STRUCT(10, OPT, u.integer, INT_TYPE, "INTEGER"),
    F_STRUCT(11, OPT, u.unknown, NULL_TYPE, "UNKNOWN"),
    F_STRUCT(12, OPT, u.json, JSON_TYPE, "JSON"),
    F_STRUCT(13, OPT, u.bson, BSON_TYPE, "BSON"),
    F_STRUCT(14, OPT, u.uuid, UUID_TYPE, "UUID"),
    F_STRUCT(15, OPT, u.float16, FLOAT16_TYPE, "FLOAT16"),
    F_STRUCT(16, OPT, u.variant, VARIANT_TYPE, "VARIANT"),
    F_STRUCT(17, OPT, u.geometry, GEOMETRY_TYPE, "GEOMETRY"),
    F_STRUCT(18, OPT, u.geography, GEOGRAPHY_TYPE, "GEOGRAPHY"),
    F_STRUCT(19, OPT, u.vector, VECTOR_TYPE, "VECTOR"),
};
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
    F_STRUCT(10, OPT, logical_type, LOGICAL_TYPE, "logicalType"),
    F_I32(11, OPT, vector_length, "vector_length"),
};
#undef S

/* ---- pages ------------------------------------------------------------ */

#define S upq_data_page_header
static const upq_tfield data_page_header_fields[] = {
    F_I32(1, REQ, num_values, "num_values"),
    F_I32(2, REQ, encoding, "encoding"),
    F_I32(3, REQ, definition_level_encoding, "definition_level_encoding"),
    F_I32(4, REQ, repetition_level_encoding, "repetition_level_encoding"),
    F_STRUCT(5, OPT, statistics, STATISTICS, "statistics"),
};
#undef S


#define S upq_dictionary_page_header
static const upq_tfield dictionary_page_header_fields[] = {
    F_I32(1, REQ, num_values, "num_values"),
    F_I32(2, REQ, encoding, "encoding"),
    F_BOOL(3, OPT, is_sorted, "is_sorted"),
};
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
    F_STRUCT(8, OPT, statistics, STATISTICS, "statistics"),
};
#undef S

/* ---- bloom filters ---------------------------------------------------- */

#if UPQ_WITH_BLOOM


#define S upq_bloom_filter_algorithm
static const upq_tfield bloom_filter_algorithm_fields[] = {
    F_STRUCT(1, OPT, u.block, SPLIT_BLOCK_ALGORITHM, "BLOCK"),
};
#undef S

#define S upq_bloom_filter_hash
static const upq_tfield bloom_filter_hash_fields[] = {
    F_STRUCT(1, OPT, u.xxhash, XX_HASH, "XXHASH"),
};
#undef S

#define S upq_bloom_filter_compression
static const upq_tfield bloom_filter_compression_fields[] = {
    F_STRUCT(1, OPT, u.uncompressed, UNCOMPRESSED, "UNCOMPRESSED"),
};
#undef S

#define S upq_bloom_filter_header
static const upq_tfield bloom_filter_header_fields[] = {
    F_I32(1, REQ, num_bytes, "numBytes"),
    F_STRUCT(2, REQ, algorithm, BLOOM_FILTER_ALGORITHM, "algorithm"),
    F_STRUCT(3, REQ, hash, BLOOM_FILTER_HASH, "hash"),
    F_STRUCT(4, REQ, compression, BLOOM_FILTER_COMPRESSION, "compression"),
};
#undef S
#endif /* UPQ_WITH_BLOOM */

/* ---- page header ------------------------------------------------------ */

/* The same fields twice: as written and read in full, and as the column
 * reader decodes them. There page statistics are skipped, so a header takes
 * no arena memory however many pages a chunk has (the page index and chunk
 * statistics are the places to read them). Statistics is the last field of
 * both data page headers: the lean descriptions are the full field tables
 * without it (entries at the end). */
#define S upq_page_header
#define PAGE_HEADER_FIELDS(DPH, DPH2)                                                        \
    {                                                                                        \
        F_I32(1, REQ, type, "type"),                                                         \
        F_I32(2, REQ, uncompressed_page_size, "uncompressed_page_size"),                     \
        F_I32(3, REQ, compressed_page_size, "compressed_page_size"),                         \
        F_I32(4, OPT, crc, "crc"),                                                           \
        F_STRUCT(5, OPT, data_page_header, DPH, "data_page_header"),                         \
        F_STRUCT(6, OPT, index_page_header, INDEX_PAGE_HEADER, "index_page_header"),         \
        F_STRUCT(7, OPT, dictionary_page_header, DICTIONARY_PAGE_HEADER,                     \
                 "dictionary_page_header"),                                                  \
        F_STRUCT(8, OPT, data_page_header_v2, DPH2, "data_page_header_v2"),                  \
    }
static const upq_tfield page_header_fields[] =
    PAGE_HEADER_FIELDS(DATA_PAGE_HEADER, DATA_PAGE_HEADER_V2);
static const upq_tfield page_header_lean_fields[] =
    PAGE_HEADER_FIELDS(DATA_PAGE_HEADER_LEAN, DATA_PAGE_HEADER_V2_LEAN);
#undef PAGE_HEADER_FIELDS
#undef S

/* ---- column chunk metadata -------------------------------------------- */

#define S upq_key_value
static const upq_tfield key_value_fields[] = {
    F_BIN(1, REQ, key, "key"),
    F_BIN(2, OPT, value, "value"),
};
#undef S

#define S upq_sorting_column
static const upq_tfield sorting_column_fields[] = {
    F_I32(1, REQ, column_idx, "column_idx"),
    F_BOOL(2, REQ, descending, "descending"),
    F_BOOL(3, REQ, nulls_first, "nulls_first"),
};
#undef S

#define S upq_page_encoding_stats
static const upq_tfield page_encoding_stats_fields[] = {
    F_I32(1, REQ, page_type, "page_type"),
    F_I32(2, REQ, encoding, "encoding"),
    F_I32(3, REQ, count, "count"),
};
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
    F_LIST_STRUCT(8, OPT, key_value_metadata, KEY_VALUE, "key_value_metadata"),
    F_I64(9, REQ, data_page_offset, "data_page_offset"),
    F_I64(10, OPT, index_page_offset, "index_page_offset"),
    F_I64(11, OPT, dictionary_page_offset, "dictionary_page_offset"),
    F_STRUCT(12, OPT, statistics, STATISTICS, "statistics"),
    F_LIST_STRUCT(13, OPT, encoding_stats, PAGE_ENCODING_STATS, "encoding_stats"),
    F_I64(14, OPT, bloom_filter_offset, "bloom_filter_offset"),
    /* a pre-release parquet-mr 1.12.0 build wrote a list<struct> under id 15
     * (data/dict-page-offset-zero.parquet); the decoder skips a field whose
     * wire type does not match, so such footers still decode */
    F_I32(15, OPT, bloom_filter_length, "bloom_filter_length"),
    F_STRUCT(16, OPT, size_statistics, SIZE_STATISTICS, "size_statistics"),
    F_STRUCT(17, OPT, geospatial_statistics, GEOSPATIAL_STATISTICS,
             "geospatial_statistics"),
};
#undef S

/* ---- encryption (column level) ---------------------------------------- */

#if UPQ_WITH_CRYPTO


#define S upq_encryption_with_column_key
static const upq_tfield encryption_with_column_key_fields[] = {
    F_LIST(1, REQ, path_in_schema, UPQ_TK_BINARY, "path_in_schema"),
    F_BIN(2, OPT, key_metadata, "key_metadata"),
};
#undef S

#define S upq_column_crypto_metadata
static const upq_tfield column_crypto_metadata_fields[] = {
    F_STRUCT(1, OPT, u.encryption_with_footer_key, ENCRYPTION_WITH_FOOTER_KEY,
             "ENCRYPTION_WITH_FOOTER_KEY"),
    F_STRUCT(2, OPT, u.encryption_with_column_key, ENCRYPTION_WITH_COLUMN_KEY,
             "ENCRYPTION_WITH_COLUMN_KEY"),
};
#undef S
#endif /* UPQ_WITH_CRYPTO */

/* A build without encryption (and likewise without bloom filters) leaves
 * those descriptions out. The crypto structs inside ColumnChunk and
 * FileMetaData are then fieldless entries, so they are skipped: their isset
 * bits still say that a column or the file is encrypted, which is all such a
 * build acts on (UPQ_ERR_UNSUPPORTED, or legacy reading). */
#define F_CRYPTO(id, m, SUB, nm) F_STRUCT(id, OPT, m, SUB, nm)

/* ---- row groups ------------------------------------------------------- */

#define S upq_column_chunk
static const upq_tfield column_chunk_fields[] = {
    F_BIN(1, OPT, file_path, "file_path"),
    F_I64(2, REQ, file_offset, "file_offset"),
    F_STRUCT(3, OPT, meta_data, COLUMN_METADATA, "meta_data"),
    F_I64(4, OPT, offset_index_offset, "offset_index_offset"),
    F_I32(5, OPT, offset_index_length, "offset_index_length"),
    F_I64(6, OPT, column_index_offset, "column_index_offset"),
    F_I32(7, OPT, column_index_length, "column_index_length"),
    F_CRYPTO(8, crypto_metadata, COLUMN_CRYPTO_METADATA, "crypto_metadata"),
    F_BIN(9, OPT, encrypted_column_metadata, "encrypted_column_metadata"),
};
#undef S

#define S upq_row_group
static const upq_tfield row_group_fields[] = {
    F_LIST_STRUCT(1, REQ | UPQ_TF_PROJECT, columns, COLUMN_CHUNK, "columns"),
    F_I64(2, REQ, total_byte_size, "total_byte_size"),
    F_I64(3, REQ, num_rows, "num_rows"),
    F_LIST_STRUCT(4, OPT, sorting_columns, SORTING_COLUMN, "sorting_columns"),
    F_I64(5, OPT, file_offset, "file_offset"),
    F_I64(6, OPT, total_compressed_size, "total_compressed_size"),
    F_I16(7, OPT, ordinal, "ordinal"),
};
#undef S

/* ---- column orders ---------------------------------------------------- */


#define S upq_column_order
static const upq_tfield column_order_fields[] = {
    F_STRUCT(1, OPT, u.type_order, TYPE_DEFINED_ORDER, "TYPE_ORDER"),
    F_STRUCT(2, OPT, u.ieee_754_total_order, IEEE754_TOTAL_ORDER, "IEEE_754_TOTAL_ORDER"),
    F_STRUCT(3, OPT, u.int96_timestamp_order, INT96_TIMESTAMP_ORDER,
             "INT96_TIMESTAMP_ORDER"),
};
#undef S

/* ---- page index ------------------------------------------------------- */

#define S upq_page_location
static const upq_tfield page_location_fields[] = {
    F_I64(1, REQ, offset, "offset"),
    F_I32(2, REQ, compressed_page_size, "compressed_page_size"),
    F_I64(3, REQ, first_row_index, "first_row_index"),
};
#undef S

#define S upq_offset_index
static const upq_tfield offset_index_fields[] = {
    F_LIST_STRUCT(1, REQ, page_locations, PAGE_LOCATION, "page_locations"),
    F_LIST(2, OPT, unencoded_byte_array_data_bytes, UPQ_TK_I64,
           "unencoded_byte_array_data_bytes"),
};
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
#undef S

/* ---- encryption (file level) ------------------------------------------ */

#if UPQ_WITH_CRYPTO

#define S upq_aes_gcm_v1
static const upq_tfield aes_gcm_v1_fields[] = {
    F_BIN(1, OPT, aad_prefix, "aad_prefix"),
    F_BIN(2, OPT, aad_file_unique, "aad_file_unique"),
    F_BOOL(3, OPT, supply_aad_prefix, "supply_aad_prefix"),
};
#undef S

#define S upq_aes_gcm_ctr_v1
static const upq_tfield aes_gcm_ctr_v1_fields[] = {
    F_BIN(1, OPT, aad_prefix, "aad_prefix"),
    F_BIN(2, OPT, aad_file_unique, "aad_file_unique"),
    F_BOOL(3, OPT, supply_aad_prefix, "supply_aad_prefix"),
};
#undef S

#define S upq_encryption_algorithm
static const upq_tfield encryption_algorithm_fields[] = {
    F_STRUCT(1, OPT, u.aes_gcm_v1, AES_GCM_V1, "AES_GCM_V1"),
    F_STRUCT(2, OPT, u.aes_gcm_ctr_v1, AES_GCM_CTR_V1, "AES_GCM_CTR_V1"),
};
#undef S
#endif /* UPQ_WITH_CRYPTO */

/* ---- file ------------------------------------------------------------- */

#define S upq_file_metadata
static const upq_tfield file_metadata_fields[] = {
    F_I32(1, REQ, version, "version"),
    F_LIST_STRUCT(2, REQ, schema, SCHEMA_ELEMENT, "schema"),
    F_I64(3, REQ, num_rows, "num_rows"),
    F_LIST_STRUCT(4, REQ, row_groups, ROW_GROUP, "row_groups"),
    F_LIST_STRUCT(5, OPT, key_value_metadata, KEY_VALUE, "key_value_metadata"),
    F_BIN(6, OPT, created_by, "created_by"),
    F_LIST_STRUCT(7, OPT, column_orders, COLUMN_ORDER, "column_orders"),
    F_CRYPTO(8, encryption_algorithm, ENCRYPTION_ALGORITHM, "encryption_algorithm"),
    F_BIN(9, OPT, footer_signing_key_metadata, "footer_signing_key_metadata"),
};
#undef S

#if UPQ_WITH_CRYPTO
#define S upq_file_crypto_metadata
static const upq_tfield file_crypto_metadata_fields[] = {
    F_STRUCT(1, REQ, encryption_algorithm, ENCRYPTION_ALGORITHM, "encryption_algorithm"),
    F_BIN(2, OPT, key_metadata, "key_metadata"),
};
#undef S
#endif

/* ---- the table ------------------------------------------------------- */

const upq_tstruct upq_meta_descs[UPQ_DESC_COUNT] = {
    STRUCT(SIZE_STATISTICS, upq_size_statistics, "SizeStatistics", size_statistics_fields),
    STRUCT(BOUNDING_BOX, upq_bounding_box, "BoundingBox", bounding_box_fields),
    STRUCT(GEOSPATIAL_STATISTICS, upq_geospatial_statistics, "GeospatialStatistics",
           geospatial_statistics_fields),
    STRUCT(STATISTICS, upq_statistics, "Statistics", statistics_fields),
    EMPTY(STRING_TYPE, upq_string_type, "StringType"),
    EMPTY(UUID_TYPE, upq_uuid_type, "UUIDType"),
    EMPTY(MAP_TYPE, upq_map_type, "MapType"),
    EMPTY(LIST_TYPE, upq_list_type, "ListType"),
    EMPTY(VECTOR_TYPE, upq_vector_type, "VectorType"),
    EMPTY(ENUM_TYPE, upq_enum_type, "EnumType"),
    EMPTY(DATE_TYPE, upq_date_type, "DateType"),
    EMPTY(FLOAT16_TYPE, upq_float16_type, "Float16Type"),
    EMPTY(NULL_TYPE, upq_null_type, "NullType"),
    EMPTY(JSON_TYPE, upq_json_type, "JsonType"),
    EMPTY(BSON_TYPE, upq_bson_type, "BsonType"),
    EMPTY(MILLI_SECONDS, upq_milli_seconds, "MilliSeconds"),
    EMPTY(MICRO_SECONDS, upq_micro_seconds, "MicroSeconds"),
    EMPTY(NANO_SECONDS, upq_nano_seconds, "NanoSeconds"),
    STRUCT(DECIMAL_TYPE, upq_decimal_type, "DecimalType", decimal_type_fields),
    UNION(TIME_UNIT, upq_time_unit, "TimeUnit", time_unit_fields),
    STRUCT(TIMESTAMP_TYPE, upq_timestamp_type, "TimestampType", timestamp_type_fields),
    STRUCT(TIME_TYPE, upq_time_type, "TimeType", timestamp_type_fields),
    STRUCT(INT_TYPE, upq_int_type, "IntType", int_type_fields),
    STRUCT(VARIANT_TYPE, upq_variant_type, "VariantType", variant_type_fields),
    STRUCT(GEOMETRY_TYPE, upq_geometry_type, "GeometryType", geometry_type_fields),
    STRUCT(GEOGRAPHY_TYPE, upq_geography_type, "GeographyType", geography_type_fields),
    UNION(LOGICAL_TYPE, upq_logical_type, "LogicalType", logical_type_fields),
    STRUCT(SCHEMA_ELEMENT, upq_schema_element, "SchemaElement", schema_element_fields),
    STRUCT(DATA_PAGE_HEADER, upq_data_page_header, "DataPageHeader", data_page_header_fields),
    EMPTY(INDEX_PAGE_HEADER, upq_index_page_header, "IndexPageHeader"),
    STRUCT(DICTIONARY_PAGE_HEADER, upq_dictionary_page_header, "DictionaryPageHeader",
           dictionary_page_header_fields),
    STRUCT(DATA_PAGE_HEADER_V2, upq_data_page_header_v2, "DataPageHeaderV2",
           data_page_header_v2_fields),
#if UPQ_WITH_BLOOM
    EMPTY(SPLIT_BLOCK_ALGORITHM, upq_split_block_algorithm, "SplitBlockAlgorithm"),
    EMPTY(XX_HASH, upq_xx_hash, "XxHash"),
    EMPTY(UNCOMPRESSED, upq_uncompressed, "Uncompressed"),
    UNION(BLOOM_FILTER_ALGORITHM, upq_bloom_filter_algorithm, "BloomFilterAlgorithm",
          bloom_filter_algorithm_fields),
    UNION(BLOOM_FILTER_HASH, upq_bloom_filter_hash, "BloomFilterHash", bloom_filter_hash_fields),
    UNION(BLOOM_FILTER_COMPRESSION, upq_bloom_filter_compression, "BloomFilterCompression",
          bloom_filter_compression_fields),
    STRUCT(BLOOM_FILTER_HEADER, upq_bloom_filter_header, "BloomFilterHeader",
           bloom_filter_header_fields),
#endif
    STRUCT(PAGE_HEADER, upq_page_header, "PageHeader", page_header_fields),
    STRUCT(PAGE_HEADER_LEAN, upq_page_header, "PageHeader", page_header_lean_fields),
    ENTRY(DATA_PAGE_HEADER_LEAN, upq_data_page_header, "DataPageHeader", data_page_header_fields,
          UPQ_COUNTOF(data_page_header_fields) - 1u, 0u),
    ENTRY(DATA_PAGE_HEADER_V2_LEAN, upq_data_page_header_v2, "DataPageHeaderV2",
          data_page_header_v2_fields, UPQ_COUNTOF(data_page_header_v2_fields) - 1u, 0u),
    STRUCT(KEY_VALUE, upq_key_value, "KeyValue", key_value_fields),
    STRUCT(SORTING_COLUMN, upq_sorting_column, "SortingColumn", sorting_column_fields),
    STRUCT(PAGE_ENCODING_STATS, upq_page_encoding_stats, "PageEncodingStats",
           page_encoding_stats_fields),
    STRUCT(COLUMN_METADATA, upq_column_metadata, "ColumnMetaData", column_metadata_fields),
#if UPQ_WITH_CRYPTO
    EMPTY(ENCRYPTION_WITH_FOOTER_KEY, upq_encryption_with_footer_key, "EncryptionWithFooterKey"),
    STRUCT(ENCRYPTION_WITH_COLUMN_KEY, upq_encryption_with_column_key, "EncryptionWithColumnKey",
           encryption_with_column_key_fields),
    UNION(COLUMN_CRYPTO_METADATA, upq_column_crypto_metadata, "ColumnCryptoMetaData",
          column_crypto_metadata_fields),
#endif
    STRUCT(COLUMN_CHUNK, upq_column_chunk, "ColumnChunk", column_chunk_fields),
    STRUCT(ROW_GROUP, upq_row_group, "RowGroup", row_group_fields),
    EMPTY(TYPE_DEFINED_ORDER, upq_type_defined_order, "TypeDefinedOrder"),
    EMPTY(IEEE754_TOTAL_ORDER, upq_ieee754_total_order, "IEEE754TotalOrder"),
    EMPTY(INT96_TIMESTAMP_ORDER, upq_int96_timestamp_order, "Int96TimestampOrder"),
    UNION(COLUMN_ORDER, upq_column_order, "ColumnOrder", column_order_fields),
    STRUCT(PAGE_LOCATION, upq_page_location, "PageLocation", page_location_fields),
    STRUCT(OFFSET_INDEX, upq_offset_index, "OffsetIndex", offset_index_fields),
    STRUCT(COLUMN_INDEX, upq_column_index, "ColumnIndex", column_index_fields),
#if UPQ_WITH_CRYPTO
    STRUCT(AES_GCM_V1, upq_aes_gcm_v1, "AesGcmV1", aes_gcm_v1_fields),
    STRUCT(AES_GCM_CTR_V1, upq_aes_gcm_ctr_v1, "AesGcmCtrV1", aes_gcm_ctr_v1_fields),
    UNION(ENCRYPTION_ALGORITHM, upq_encryption_algorithm, "EncryptionAlgorithm",
          encryption_algorithm_fields),
#endif
    STRUCT(FILE_METADATA, upq_file_metadata, "FileMetaData", file_metadata_fields),
#if UPQ_WITH_CRYPTO
    STRUCT(FILE_CRYPTO_METADATA, upq_file_crypto_metadata, "FileCryptoMetaData",
           file_crypto_metadata_fields),
#else
    EMPTY(COLUMN_CRYPTO_METADATA, upq_column_crypto_metadata, "ColumnCryptoMetaData"),
    EMPTY(ENCRYPTION_ALGORITHM, upq_encryption_algorithm, "EncryptionAlgorithm"),
#endif
};

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
