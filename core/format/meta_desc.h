/*
 * The descriptions of the parquet.thrift structs (core/format/meta.c) that
 * the Thrift decoder and encoder walk (internal).
 */
#ifndef UPQ_META_DESC_H
#define UPQ_META_DESC_H

#include "uparquet/meta.h"
#include "thrift.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- descriptions (core/format/meta.c) --------------------------------------- */

/* Every description lives in one table, upq_meta_descs (fields refer to
 * their struct types by position in it); upq_foo_desc names its entry.
 * Builds without bloom filters leave those descriptions out; builds without
 * encryption leave out all but ColumnCryptoMetaData and EncryptionAlgorithm,
 * which are fieldless there: the decoder skips their contents and only sets
 * their isset bits in ColumnChunk and FileMetaData. The *_LEAN entries are
 * PageHeader without page statistics (skipped while decoding): what the
 * column reader uses, so page headers never take arena memory. The names of
 * descriptions a build leaves out are declared but never defined, for code
 * such a build compiles out. */
enum {
    UPQ_DESC_SIZE_STATISTICS,
    UPQ_DESC_BOUNDING_BOX,
    UPQ_DESC_GEOSPATIAL_STATISTICS,
    UPQ_DESC_STATISTICS,
    UPQ_DESC_STRING_TYPE,
    UPQ_DESC_UUID_TYPE,
    UPQ_DESC_MAP_TYPE,
    UPQ_DESC_LIST_TYPE,
    UPQ_DESC_VECTOR_TYPE,
    UPQ_DESC_ENUM_TYPE,
    UPQ_DESC_DATE_TYPE,
    UPQ_DESC_FLOAT16_TYPE,
    UPQ_DESC_NULL_TYPE,
    UPQ_DESC_DECIMAL_TYPE,
    UPQ_DESC_MILLI_SECONDS,
    UPQ_DESC_MICRO_SECONDS,
    UPQ_DESC_NANO_SECONDS,
    UPQ_DESC_TIME_UNIT,
    UPQ_DESC_TIMESTAMP_TYPE,
    UPQ_DESC_TIME_TYPE,
    UPQ_DESC_INT_TYPE,
    UPQ_DESC_JSON_TYPE,
    UPQ_DESC_BSON_TYPE,
    UPQ_DESC_VARIANT_TYPE,
    UPQ_DESC_GEOMETRY_TYPE,
    UPQ_DESC_GEOGRAPHY_TYPE,
    UPQ_DESC_LOGICAL_TYPE,
    UPQ_DESC_SCHEMA_ELEMENT,
    UPQ_DESC_DATA_PAGE_HEADER,
    UPQ_DESC_INDEX_PAGE_HEADER,
    UPQ_DESC_DICTIONARY_PAGE_HEADER,
    UPQ_DESC_DATA_PAGE_HEADER_V2,
#if UPQ_WITH_BLOOM
    UPQ_DESC_SPLIT_BLOCK_ALGORITHM,
    UPQ_DESC_BLOOM_FILTER_ALGORITHM,
    UPQ_DESC_XX_HASH,
    UPQ_DESC_BLOOM_FILTER_HASH,
    UPQ_DESC_UNCOMPRESSED,
    UPQ_DESC_BLOOM_FILTER_COMPRESSION,
    UPQ_DESC_BLOOM_FILTER_HEADER,
#endif
    UPQ_DESC_PAGE_HEADER,
    UPQ_DESC_PAGE_HEADER_LEAN,
    UPQ_DESC_DATA_PAGE_HEADER_LEAN,
    UPQ_DESC_DATA_PAGE_HEADER_V2_LEAN,
    UPQ_DESC_KEY_VALUE,
    UPQ_DESC_SORTING_COLUMN,
    UPQ_DESC_PAGE_ENCODING_STATS,
    UPQ_DESC_COLUMN_METADATA,
#if UPQ_WITH_CRYPTO
    UPQ_DESC_ENCRYPTION_WITH_FOOTER_KEY,
    UPQ_DESC_ENCRYPTION_WITH_COLUMN_KEY,
#endif
    UPQ_DESC_COLUMN_CRYPTO_METADATA,
    UPQ_DESC_COLUMN_CHUNK,
    UPQ_DESC_ROW_GROUP,
    UPQ_DESC_TYPE_DEFINED_ORDER,
    UPQ_DESC_IEEE754_TOTAL_ORDER,
    UPQ_DESC_INT96_TIMESTAMP_ORDER,
    UPQ_DESC_COLUMN_ORDER,
    UPQ_DESC_PAGE_LOCATION,
    UPQ_DESC_OFFSET_INDEX,
    UPQ_DESC_COLUMN_INDEX,
#if UPQ_WITH_CRYPTO
    UPQ_DESC_AES_GCM_V1,
    UPQ_DESC_AES_GCM_CTR_V1,
#endif
    UPQ_DESC_ENCRYPTION_ALGORITHM,
    UPQ_DESC_FILE_METADATA,
#if UPQ_WITH_CRYPTO
    UPQ_DESC_FILE_CRYPTO_METADATA,
#endif
    UPQ_DESC_COUNT
};

extern const upq_tstruct upq_meta_descs[UPQ_DESC_COUNT];

#define upq_size_statistics_desc (upq_meta_descs[UPQ_DESC_SIZE_STATISTICS])
#define upq_bounding_box_desc (upq_meta_descs[UPQ_DESC_BOUNDING_BOX])
#define upq_geospatial_statistics_desc (upq_meta_descs[UPQ_DESC_GEOSPATIAL_STATISTICS])
#define upq_statistics_desc (upq_meta_descs[UPQ_DESC_STATISTICS])
#define upq_string_type_desc (upq_meta_descs[UPQ_DESC_STRING_TYPE])
#define upq_uuid_type_desc (upq_meta_descs[UPQ_DESC_UUID_TYPE])
#define upq_map_type_desc (upq_meta_descs[UPQ_DESC_MAP_TYPE])
#define upq_list_type_desc (upq_meta_descs[UPQ_DESC_LIST_TYPE])
#define upq_vector_type_desc (upq_meta_descs[UPQ_DESC_VECTOR_TYPE])
#define upq_enum_type_desc (upq_meta_descs[UPQ_DESC_ENUM_TYPE])
#define upq_date_type_desc (upq_meta_descs[UPQ_DESC_DATE_TYPE])
#define upq_float16_type_desc (upq_meta_descs[UPQ_DESC_FLOAT16_TYPE])
#define upq_null_type_desc (upq_meta_descs[UPQ_DESC_NULL_TYPE])
#define upq_decimal_type_desc (upq_meta_descs[UPQ_DESC_DECIMAL_TYPE])
#define upq_milli_seconds_desc (upq_meta_descs[UPQ_DESC_MILLI_SECONDS])
#define upq_micro_seconds_desc (upq_meta_descs[UPQ_DESC_MICRO_SECONDS])
#define upq_nano_seconds_desc (upq_meta_descs[UPQ_DESC_NANO_SECONDS])
#define upq_time_unit_desc (upq_meta_descs[UPQ_DESC_TIME_UNIT])
#define upq_timestamp_type_desc (upq_meta_descs[UPQ_DESC_TIMESTAMP_TYPE])
#define upq_time_type_desc (upq_meta_descs[UPQ_DESC_TIME_TYPE])
#define upq_int_type_desc (upq_meta_descs[UPQ_DESC_INT_TYPE])
#define upq_json_type_desc (upq_meta_descs[UPQ_DESC_JSON_TYPE])
#define upq_bson_type_desc (upq_meta_descs[UPQ_DESC_BSON_TYPE])
#define upq_variant_type_desc (upq_meta_descs[UPQ_DESC_VARIANT_TYPE])
#define upq_geometry_type_desc (upq_meta_descs[UPQ_DESC_GEOMETRY_TYPE])
#define upq_geography_type_desc (upq_meta_descs[UPQ_DESC_GEOGRAPHY_TYPE])
#define upq_logical_type_desc (upq_meta_descs[UPQ_DESC_LOGICAL_TYPE])
#define upq_schema_element_desc (upq_meta_descs[UPQ_DESC_SCHEMA_ELEMENT])
#define upq_data_page_header_desc (upq_meta_descs[UPQ_DESC_DATA_PAGE_HEADER])
#define upq_index_page_header_desc (upq_meta_descs[UPQ_DESC_INDEX_PAGE_HEADER])
#define upq_dictionary_page_header_desc (upq_meta_descs[UPQ_DESC_DICTIONARY_PAGE_HEADER])
#define upq_data_page_header_v2_desc (upq_meta_descs[UPQ_DESC_DATA_PAGE_HEADER_V2])
#if UPQ_WITH_BLOOM
#define upq_split_block_algorithm_desc (upq_meta_descs[UPQ_DESC_SPLIT_BLOCK_ALGORITHM])
#define upq_bloom_filter_algorithm_desc (upq_meta_descs[UPQ_DESC_BLOOM_FILTER_ALGORITHM])
#define upq_xx_hash_desc (upq_meta_descs[UPQ_DESC_XX_HASH])
#define upq_bloom_filter_hash_desc (upq_meta_descs[UPQ_DESC_BLOOM_FILTER_HASH])
#define upq_uncompressed_desc (upq_meta_descs[UPQ_DESC_UNCOMPRESSED])
#define upq_bloom_filter_compression_desc (upq_meta_descs[UPQ_DESC_BLOOM_FILTER_COMPRESSION])
#define upq_bloom_filter_header_desc (upq_meta_descs[UPQ_DESC_BLOOM_FILTER_HEADER])
#else
extern const upq_tstruct upq_split_block_algorithm_desc;
extern const upq_tstruct upq_bloom_filter_algorithm_desc;
extern const upq_tstruct upq_xx_hash_desc;
extern const upq_tstruct upq_bloom_filter_hash_desc;
extern const upq_tstruct upq_uncompressed_desc;
extern const upq_tstruct upq_bloom_filter_compression_desc;
extern const upq_tstruct upq_bloom_filter_header_desc;
#endif
#define upq_page_header_desc (upq_meta_descs[UPQ_DESC_PAGE_HEADER])
#define upq_page_header_lean_desc (upq_meta_descs[UPQ_DESC_PAGE_HEADER_LEAN])
#define upq_key_value_desc (upq_meta_descs[UPQ_DESC_KEY_VALUE])
#define upq_sorting_column_desc (upq_meta_descs[UPQ_DESC_SORTING_COLUMN])
#define upq_page_encoding_stats_desc (upq_meta_descs[UPQ_DESC_PAGE_ENCODING_STATS])
#define upq_column_metadata_desc (upq_meta_descs[UPQ_DESC_COLUMN_METADATA])
#if UPQ_WITH_CRYPTO
#define upq_encryption_with_footer_key_desc (upq_meta_descs[UPQ_DESC_ENCRYPTION_WITH_FOOTER_KEY])
#define upq_encryption_with_column_key_desc (upq_meta_descs[UPQ_DESC_ENCRYPTION_WITH_COLUMN_KEY])
#else
extern const upq_tstruct upq_encryption_with_footer_key_desc;
extern const upq_tstruct upq_encryption_with_column_key_desc;
#endif
#define upq_column_crypto_metadata_desc (upq_meta_descs[UPQ_DESC_COLUMN_CRYPTO_METADATA])
#define upq_column_chunk_desc (upq_meta_descs[UPQ_DESC_COLUMN_CHUNK])
#define upq_row_group_desc (upq_meta_descs[UPQ_DESC_ROW_GROUP])
#define upq_type_defined_order_desc (upq_meta_descs[UPQ_DESC_TYPE_DEFINED_ORDER])
#define upq_ieee754_total_order_desc (upq_meta_descs[UPQ_DESC_IEEE754_TOTAL_ORDER])
#define upq_int96_timestamp_order_desc (upq_meta_descs[UPQ_DESC_INT96_TIMESTAMP_ORDER])
#define upq_column_order_desc (upq_meta_descs[UPQ_DESC_COLUMN_ORDER])
#define upq_page_location_desc (upq_meta_descs[UPQ_DESC_PAGE_LOCATION])
#define upq_offset_index_desc (upq_meta_descs[UPQ_DESC_OFFSET_INDEX])
#define upq_column_index_desc (upq_meta_descs[UPQ_DESC_COLUMN_INDEX])
#if UPQ_WITH_CRYPTO
#define upq_aes_gcm_v1_desc (upq_meta_descs[UPQ_DESC_AES_GCM_V1])
#define upq_aes_gcm_ctr_v1_desc (upq_meta_descs[UPQ_DESC_AES_GCM_CTR_V1])
#else
extern const upq_tstruct upq_aes_gcm_v1_desc;
extern const upq_tstruct upq_aes_gcm_ctr_v1_desc;
#endif
#define upq_encryption_algorithm_desc (upq_meta_descs[UPQ_DESC_ENCRYPTION_ALGORITHM])
#define upq_file_metadata_desc (upq_meta_descs[UPQ_DESC_FILE_METADATA])
#if UPQ_WITH_CRYPTO
#define upq_file_crypto_metadata_desc (upq_meta_descs[UPQ_DESC_FILE_CRYPTO_METADATA])
#else
extern const upq_tstruct upq_file_crypto_metadata_desc;
#endif

#ifdef __cplusplus
}
#endif

#endif
