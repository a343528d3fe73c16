/*
 * The Parquet metadata model: hand-built compact bytes for each top-level
 * struct, decoded, checked field by field and re-encoded to the same bytes;
 * the name functions; and every footer of the parquet-testing corpus decoded,
 * re-encoded, decoded again and re-encoded to identical bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uparquet/meta.h"
#include "format/meta_desc.h"
#include "write/meta.h"

static int passed, failed;
#define CHECK(cond)                                                \
    do {                                                           \
        if (cond) {                                                \
            passed++;                                              \
        } else {                                                   \
            failed++;                                              \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
        }                                                          \
    } while (0)

static int bytes_is(upq_bytes b, const char *s)
{
    size_t n = strlen(s);
    return b.len == n && (n == 0 || memcmp(b.ptr, s, n) == 0);
}

static uint8_t arena_mem[1 << 16];

/* Decodes `in` completely into `obj`; checks every byte was used. */
static upq_status decode(const upq_tstruct *desc, void *obj, upq_arena *a, const uint8_t *in,
                         size_t n)
{
    size_t used = 0;
    upq_status st;
    upq_arena_init(a, arena_mem, sizeof arena_mem);
    st = upq_thrift_decode(desc, obj, a, in, n, &used, NULL);
    if (st == UPQ_OK && used != n) {
        printf("  decode used %zu of %zu bytes\n", used, n);
        return UPQ_ERR_STATE;
    }
    return st;
}

/* Encodes `obj` and checks the bytes equal want[0..n). */
static int encodes_to(const upq_tstruct *desc, const void *obj, const uint8_t *want, size_t n)
{
    uint8_t out[1024];
    size_t len = 0;
    upq_status st = upq_thrift_encode(desc, obj, out, sizeof out, &len);
    if (st != UPQ_OK) {
        printf("  encode %s: %s\n", desc->name, upq_strerror(st));
        return 0;
    }
    if (len != n || memcmp(out, want, n) != 0) {
        size_t i = 0;
        while (i < len && i < n && out[i] == want[i])
            i++;
        printf("  encode %s: %zu bytes (want %zu), first difference at %zu\n", desc->name, len,
               n, i);
        return 0;
    }
    return 1;
}

/* Every proper prefix must fail (never OK, never a crash). */
static int prefixes_fail(const upq_tstruct *desc, void *obj, const uint8_t *in, size_t n)
{
    size_t k;
    upq_arena a;
    for (k = 0; k < n; k++) {
        upq_status st = decode(desc, obj, &a, in, k);
        if (st >= 0) {
            printf("  %s: prefix of %zu bytes gave %d\n", desc->name, k, (int)st);
            return 0;
        }
    }
    return 1;
}

/* Decoding fed one byte at a time gives what the one-shot decode gives:
 * checked by re-encoding to the same bytes. */
static int bytewise_roundtrip(const upq_tstruct *desc, void *obj, const uint8_t *in, size_t n)
{
    upq_arena a;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    size_t i, used;
    upq_status st = UPQ_AGAIN;
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, desc, obj, &a, n, NULL);
    for (i = 0; i < n && st == UPQ_AGAIN; i++)
        st = upq_tdec_feed(&d, in + i, 1, &used);
    return st == UPQ_OK && i == n && encodes_to(desc, obj, in, n);
}

/* ---- FileMetaData ----------------------------------------------------- */

static const uint8_t file_metadata_bytes[] = {
    0x15, 0x02,                                /* 1 version: 1 */
    0x19, 0x2C,                                /* 2 schema: list of 2 structs */
    0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a',  /*   4 name */
    0x15, 0x02,                                /*   5 num_children: 1 */
    0x00,
    0x15, 0x02,                                /*   1 type: INT32 */
    0x25, 0x02,                                /*   3 repetition_type: OPTIONAL */
    0x18, 0x01, 'a',                           /*   4 name */
    0x25, 0x22,                                /*   6 converted_type: INT_32 */
    0x35, 0x01,                                /*   9 field_id: -1 */
    0x1C,                                      /*   10 logicalType */
    0xAC,                                      /*     10 INTEGER */
    0x13, 0x20,                                /*       1 bitWidth: 32 */
    0x11,                                      /*       2 isSigned: true */
    0x00, 0x00, 0x00,
    0x16, 0x06,                                /* 3 num_rows: 3 */
    0x19, 0x1C,                                /* 4 row_groups: list of 1 */
    0x19, 0x1C,                                /*   1 columns: list of 1 */
    0x26, 0x08,                                /*     2 file_offset: 4 */
    0x1C,                                      /*     3 meta_data */
    0x15, 0x02,                                /*       1 type: INT32 */
    0x19, 0x25, 0x00, 0x06,                    /*       2 encodings: PLAIN, RLE */
    0x19, 0x18, 0x01, 'a',                     /*       3 path_in_schema: ["a"] */
    0x15, 0x02,                                /*       4 codec: SNAPPY */
    0x16, 0x06,                                /*       5 num_values: 3 */
    0x16, 0x50,                                /*       6 total_uncompressed_size: 40 */
    0x16, 0x54,                                /*       7 total_compressed_size: 42 */
    0x26, 0x08,                                /*       9 data_page_offset: 4 */
    0x3C,                                      /*       12 statistics */
    0x36, 0x02,                                /*         3 null_count: 1 */
    0x28, 0x04, 0x03, 0x00, 0x00, 0x00,        /*         5 max_value: 3 */
    0x18, 0x04, 0x01, 0x00, 0x00, 0x00,        /*         6 min_value: 1 */
    0x00,
    0x4C,                                      /*       16 size_statistics */
    0x39, 0x26, 0x02, 0x04,                    /*         3 definition_level_histogram */
    0x00,
    0x00, 0x00,
    0x16, 0x50,                                /*   2 total_byte_size: 40 */
    0x16, 0x06,                                /*   3 num_rows: 3 */
    0x44, 0x00,                                /*   7 ordinal: 0 */
    0x00,
    0x19, 0x1C,                                /* 5 key_value_metadata: list of 1 */
    0x18, 0x01, 'k', 0x18, 0x01, 'v', 0x00,
    0x18, 0x08, 'u', 'p', 'a', 'r', 'q', 'u', 'e', 't', /* 6 created_by */
    0x19, 0x1C, 0x1C, 0x00, 0x00,              /* 7 column_orders: [TYPE_ORDER] */
    0x00,
};

static void test_file_metadata(void)
{
    upq_file_metadata fm;
    upq_arena a;
    const upq_schema_element *se;
    const upq_column_metadata *cmd;

    printf("FileMetaData\n");
    CHECK(decode(&upq_file_metadata_desc, &fm, &a, file_metadata_bytes,
                 sizeof file_metadata_bytes) == UPQ_OK);
    CHECK(fm.isset == ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) |
                       (1u << 7)));
    CHECK(fm.version == 1 && fm.num_rows == 3);
    CHECK(fm.schema.n == 2);
    if (fm.schema.n == 2) {
        se = &fm.schema.v[0];
        CHECK(bytes_is(se->name, "schema") && se->num_children == 1);
        CHECK(!UPQ_ISSET(*se, UPQ_SCHEMA_ELEMENT_TYPE));
        CHECK(!UPQ_ISSET(*se, UPQ_SCHEMA_ELEMENT_REPETITION_TYPE));
        se = &fm.schema.v[1];
        CHECK(bytes_is(se->name, "a"));
        CHECK(se->type == UPQ_TYPE_INT32 && se->repetition_type == UPQ_REP_OPTIONAL);
        CHECK(se->converted_type == UPQ_CONVERTED_INT_32 && se->field_id == -1);
        CHECK(UPQ_ISSET(*se, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE));
        CHECK(upq_logical_type_kind(&se->logical_type) == UPQ_LOGICAL_TYPE_INTEGER);
        CHECK(strcmp(upq_logical_type_name(&se->logical_type), "INTEGER") == 0);
        CHECK(se->logical_type.u.integer.bit_width == 32);
        CHECK(se->logical_type.u.integer.is_signed == 1);
        CHECK(!UPQ_ISSET(*se, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN));
    }
    CHECK(fm.row_groups.n == 1);
    if (fm.row_groups.n == 1) {
        const upq_row_group *rg = &fm.row_groups.v[0];
        CHECK(rg->total_byte_size == 40 && rg->num_rows == 3 && rg->ordinal == 0);
        CHECK(UPQ_ISSET(*rg, UPQ_ROW_GROUP_ORDINAL));
        CHECK(!UPQ_ISSET(*rg, UPQ_ROW_GROUP_FILE_OFFSET));
        CHECK(rg->columns.n == 1);
        if (rg->columns.n == 1) {
            CHECK(rg->columns.v[0].file_offset == 4);
            CHECK(UPQ_ISSET(rg->columns.v[0], UPQ_COLUMN_CHUNK_META_DATA));
            cmd = &rg->columns.v[0].meta_data;
            CHECK(cmd->type == UPQ_TYPE_INT32 && cmd->codec == UPQ_CODEC_SNAPPY);
            CHECK(cmd->encodings.n == 2 && cmd->encodings.v[0] == UPQ_ENC_PLAIN &&
                  cmd->encodings.v[1] == UPQ_ENC_RLE);
            CHECK(cmd->path_in_schema.n == 1 && bytes_is(cmd->path_in_schema.v[0], "a"));
            CHECK(cmd->num_values == 3 && cmd->total_uncompressed_size == 40 &&
                  cmd->total_compressed_size == 42 && cmd->data_page_offset == 4);
            CHECK(!UPQ_ISSET(*cmd, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET));
            CHECK(UPQ_ISSET(*cmd, UPQ_COLUMN_METADATA_STATISTICS));
            CHECK(cmd->statistics.null_count == 1);
            CHECK(cmd->statistics.isset ==
                  ((1u << UPQ_STATISTICS_NULL_COUNT) | (1u << UPQ_STATISTICS_MAX_VALUE) |
                   (1u << UPQ_STATISTICS_MIN_VALUE)));
            CHECK(cmd->statistics.max_value.len == 4 && cmd->statistics.max_value.ptr[0] == 3);
            CHECK(cmd->statistics.min_value.len == 4 && cmd->statistics.min_value.ptr[0] == 1);
            CHECK(cmd->size_statistics.isset ==
                  (1u << UPQ_SIZE_STATISTICS_DEFINITION_LEVEL_HISTOGRAM));
            CHECK(cmd->size_statistics.definition_level_histogram.n == 2 &&
                  cmd->size_statistics.definition_level_histogram.v[0] == 1 &&
                  cmd->size_statistics.definition_level_histogram.v[1] == 2);
        }
    }
    CHECK(fm.key_value_metadata.n == 1 && bytes_is(fm.key_value_metadata.v[0].key, "k") &&
          bytes_is(fm.key_value_metadata.v[0].value, "v"));
    CHECK(bytes_is(fm.created_by, "uparquet"));
    CHECK(fm.column_orders.n == 1 &&
          UPQ_ISSET(fm.column_orders.v[0], UPQ_COLUMN_ORDER_TYPE_ORDER) &&
          fm.column_orders.v[0].isset == (1u << UPQ_COLUMN_ORDER_TYPE_ORDER));
    CHECK(encodes_to(&upq_file_metadata_desc, &fm, file_metadata_bytes,
                     sizeof file_metadata_bytes));
    CHECK(bytewise_roundtrip(&upq_file_metadata_desc, &fm, file_metadata_bytes,
                             sizeof file_metadata_bytes));
    CHECK(prefixes_fail(&upq_file_metadata_desc, &fm, file_metadata_bytes,
                        sizeof file_metadata_bytes));
}

/* ---- page headers ----------------------------------------------------- */

static const uint8_t page_v1_bytes[] = {
    0x15, 0x00,                          /* 1 type: DATA_PAGE */
    0x15, 0xC8, 0x01,                    /* 2 uncompressed_page_size: 100 */
    0x15, 0x78,                          /* 3 compressed_page_size: 60 */
    0x15, 0xFF, 0x88, 0x0F,              /* 4 crc: -123456 */
    0x1C,                                /* 5 data_page_header */
    0x15, 0x14,                          /*   1 num_values: 10 */
    0x15, 0x00,                          /*   2 encoding: PLAIN */
    0x15, 0x06,                          /*   3 definition_level_encoding: RLE */
    0x15, 0x08,                          /*   4 repetition_level_encoding: BIT_PACKED */
    0x1C,                                /*   5 statistics */
    0x18, 0x04, 0x09, 0x00, 0x00, 0x00,  /*     1 max: 9 */
    0x18, 0x04, 0xFE, 0xFF, 0xFF, 0xFF,  /*     2 min: -2 */
    0x16, 0x04,                          /*     3 null_count: 2 */
    0x16, 0x0E,                          /*     4 distinct_count: 7 */
    0x18, 0x04, 0x09, 0x00, 0x00, 0x00,  /*     5 max_value: 9 */
    0x18, 0x04, 0xFE, 0xFF, 0xFF, 0xFF,  /*     6 min_value: -2 */
    0x11,                                /*     7 is_max_value_exact: true */
    0x12,                                /*     8 is_min_value_exact: false */
    0x16, 0x00,                          /*     9 nan_count: 0 */
    0x00, 0x00, 0x00,
};

static const uint8_t page_v2_bytes[] = {
    0x15, 0x06,                          /* 1 type: DATA_PAGE_V2 */
    0x15, 0xA0, 0x01,                    /* 2 uncompressed_page_size: 80 */
    0x15, 0x50,                          /* 3 compressed_page_size: 40 */
    0x5C,                                /* 8 data_page_header_v2 */
    0x15, 0x10,                          /*   1 num_values: 8 */
    0x15, 0x04,                          /*   2 num_nulls: 2 */
    0x15, 0x0C,                          /*   3 num_rows: 6 */
    0x15, 0x10,                          /*   4 encoding: RLE_DICTIONARY */
    0x15, 0x04,                          /*   5 definition_levels_byte_length: 2 */
    0x15, 0x06,                          /*   6 repetition_levels_byte_length: 3 */
    0x12,                                /*   7 is_compressed: false */
    0x1C,                                /*   8 statistics */
    0x36, 0x04,                          /*     3 null_count: 2 */
    0x28, 0x02, 'z', 'z',                /*     5 max_value */
    0x18, 0x01, 'a',                     /*     6 min_value */
    0x00, 0x00, 0x00,
};

static const uint8_t page_dict_bytes[] = {
    0x15, 0x04,       /* 1 type: DICTIONARY_PAGE */
    0x15, 0x28,       /* 2 uncompressed_page_size: 20 */
    0x15, 0x28,       /* 3 compressed_page_size: 20 */
    0x4C,             /* 7 dictionary_page_header */
    0x15, 0x0A,       /*   1 num_values: 5 */
    0x15, 0x04,       /*   2 encoding: PLAIN_DICTIONARY */
    0x11,             /*   3 is_sorted: true */
    0x00, 0x00,
};

static void test_page_headers(void)
{
    upq_page_header ph;
    upq_arena a;
    const upq_statistics *s;

    printf("PageHeader v1\n");
    CHECK(decode(&upq_page_header_desc, &ph, &a, page_v1_bytes, sizeof page_v1_bytes) == UPQ_OK);
    CHECK(ph.type == UPQ_PAGE_DATA && ph.uncompressed_page_size == 100 &&
          ph.compressed_page_size == 60);
    CHECK(UPQ_ISSET(ph, UPQ_PAGE_HEADER_CRC) && ph.crc == -123456);
    CHECK(UPQ_ISSET(ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER));
    CHECK(!UPQ_ISSET(ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2));
    CHECK(ph.data_page_header.num_values == 10 && ph.data_page_header.encoding == UPQ_ENC_PLAIN);
    CHECK(ph.data_page_header.definition_level_encoding == UPQ_ENC_RLE &&
          ph.data_page_header.repetition_level_encoding == UPQ_ENC_BIT_PACKED);
    s = &ph.data_page_header.statistics;
    CHECK(s->isset == 0x3FEu);
    CHECK(s->max.len == 4 && s->max.ptr[0] == 9 && s->min.len == 4 && s->min.ptr[0] == 0xFE);
    CHECK(s->null_count == 2 && s->distinct_count == 7 && s->nan_count == 0);
    CHECK(s->is_max_value_exact == 1 && s->is_min_value_exact == 0);
    CHECK(UPQ_ISSET(*s, UPQ_STATISTICS_IS_MIN_VALUE_EXACT));
    CHECK(encodes_to(&upq_page_header_desc, &ph, page_v1_bytes, sizeof page_v1_bytes));
    CHECK(bytewise_roundtrip(&upq_page_header_desc, &ph, page_v1_bytes, sizeof page_v1_bytes));
    CHECK(prefixes_fail(&upq_page_header_desc, &ph, page_v1_bytes, sizeof page_v1_bytes));

    printf("PageHeader v2\n");
    CHECK(decode(&upq_page_header_desc, &ph, &a, page_v2_bytes, sizeof page_v2_bytes) == UPQ_OK);
    CHECK(ph.type == UPQ_PAGE_DATA_V2 && ph.uncompressed_page_size == 80 &&
          ph.compressed_page_size == 40);
    CHECK(!UPQ_ISSET(ph, UPQ_PAGE_HEADER_CRC));
    CHECK(ph.isset == ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 8)));
    {
        const upq_data_page_header_v2 *v2 = &ph.data_page_header_v2;
        CHECK(v2->num_values == 8 && v2->num_nulls == 2 && v2->num_rows == 6);
        CHECK(v2->encoding == UPQ_ENC_RLE_DICTIONARY);
        CHECK(v2->definition_levels_byte_length == 2 && v2->repetition_levels_byte_length == 3);
        CHECK(UPQ_ISSET(*v2, UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED) && v2->is_compressed == 0);
        CHECK(v2->statistics.null_count == 2 && bytes_is(v2->statistics.max_value, "zz") &&
              bytes_is(v2->statistics.min_value, "a"));
        CHECK(!UPQ_ISSET(v2->statistics, UPQ_STATISTICS_MAX));
    }
    CHECK(encodes_to(&upq_page_header_desc, &ph, page_v2_bytes, sizeof page_v2_bytes));
    CHECK(prefixes_fail(&upq_page_header_desc, &ph, page_v2_bytes, sizeof page_v2_bytes));

    printf("PageHeader dictionary\n");
    CHECK(decode(&upq_page_header_desc, &ph, &a, page_dict_bytes, sizeof page_dict_bytes) ==
          UPQ_OK);
    CHECK(ph.type == UPQ_PAGE_DICTIONARY && ph.dictionary_page_header.num_values == 5 &&
          ph.dictionary_page_header.encoding == UPQ_ENC_PLAIN_DICTIONARY &&
          ph.dictionary_page_header.is_sorted == 1);
    CHECK(encodes_to(&upq_page_header_desc, &ph, page_dict_bytes, sizeof page_dict_bytes));

    /* built the way a writer builds it: zeroed, fields set, bits set */
    memset(&ph, 0, sizeof ph);
    ph.type = UPQ_PAGE_DICTIONARY;
    ph.uncompressed_page_size = 20;
    ph.compressed_page_size = 20;
    UPQ_SET(ph, UPQ_PAGE_HEADER_TYPE);
    UPQ_SET(ph, UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE);
    UPQ_SET(ph, UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE);
    UPQ_SET(ph, UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
    ph.dictionary_page_header.num_values = 5;
    ph.dictionary_page_header.encoding = UPQ_ENC_PLAIN_DICTIONARY;
    ph.dictionary_page_header.is_sorted = 1;
    UPQ_SET(ph.dictionary_page_header, UPQ_DICTIONARY_PAGE_HEADER_NUM_VALUES);
    UPQ_SET(ph.dictionary_page_header, UPQ_DICTIONARY_PAGE_HEADER_ENCODING);
    UPQ_SET(ph.dictionary_page_header, UPQ_DICTIONARY_PAGE_HEADER_IS_SORTED);
    CHECK(encodes_to(&upq_page_header_desc, &ph, page_dict_bytes, sizeof page_dict_bytes));

    /* a model without a required field must not be written */
    ph.dictionary_page_header.isset &= ~(1u << UPQ_DICTIONARY_PAGE_HEADER_ENCODING);
    {
        uint8_t out[64];
        size_t len;
        CHECK(upq_thrift_encode(&upq_page_header_desc, &ph, out, sizeof out, &len) ==
              UPQ_ERR_INVAL);
    }
}

/* ---- page index ------------------------------------------------------- */

static const uint8_t column_index_bytes[] = {
    0x19, 0x31, 0x02, 0x01, 0x02,             /* 1 null_pages: [false, true, false] */
    0x19, 0x38, 0x01, 'a', 0x00, 0x01, 'm',  /* 2 min_values: ["a", "", "m"] */
    0x19, 0x38, 0x01, 'f', 0x00, 0x01, 'z',  /* 3 max_values: ["f", "", "z"] */
    0x15, 0x02,                               /* 4 boundary_order: ASCENDING */
    0x19, 0x36, 0x00, 0x0A, 0x00,             /* 5 null_counts: [0, 5, 0] */
    0x29, 0x66, 0x06, 0x00, 0x00, 0x0A, 0x04, 0x02, /* 7 definition_level_histograms */
    0x00,
};

static const uint8_t offset_index_bytes[] = {
    0x19, 0x2C,                   /* 1 page_locations: list of 2 */
    0x16, 0x08,                   /*   1 offset: 4 */
    0x15, 0xC8, 0x01,             /*   2 compressed_page_size: 100 */
    0x16, 0x00,                   /*   3 first_row_index: 0 */
    0x00,
    0x16, 0xD0, 0x01,             /*   1 offset: 104 */
    0x15, 0x64,                   /*   2 compressed_page_size: 50 */
    0x16, 0x14,                   /*   3 first_row_index: 10 */
    0x00,
    0x19, 0x26, 0x0A, 0x14,       /* 2 unencoded_byte_array_data_bytes: [5, 10] */
    0x00,
};

static void test_page_index(void)
{
    upq_column_index ci;
    upq_offset_index oi;
    upq_arena a;

    printf("ColumnIndex\n");
    CHECK(decode(&upq_column_index_desc, &ci, &a, column_index_bytes,
                 sizeof column_index_bytes) == UPQ_OK);
    CHECK(ci.null_pages.n == 3 && ci.null_pages.v[0] == 0 && ci.null_pages.v[1] == 1 &&
          ci.null_pages.v[2] == 0);
    CHECK(ci.min_values.n == 3 && bytes_is(ci.min_values.v[0], "a") &&
          bytes_is(ci.min_values.v[1], "") && bytes_is(ci.min_values.v[2], "m"));
    CHECK(ci.max_values.n == 3 && bytes_is(ci.max_values.v[2], "z"));
    CHECK(ci.boundary_order == UPQ_BOUNDARY_ASCENDING);
    CHECK(ci.null_counts.n == 3 && ci.null_counts.v[1] == 5);
    CHECK(!UPQ_ISSET(ci, UPQ_COLUMN_INDEX_REPETITION_LEVEL_HISTOGRAMS));
    CHECK(ci.definition_level_histograms.n == 6 && ci.definition_level_histograms.v[0] == 3 &&
          ci.definition_level_histograms.v[3] == 5 && ci.definition_level_histograms.v[5] == 1);
    CHECK(!UPQ_ISSET(ci, UPQ_COLUMN_INDEX_NAN_COUNTS));
    CHECK(encodes_to(&upq_column_index_desc, &ci, column_index_bytes, sizeof column_index_bytes));
    CHECK(prefixes_fail(&upq_column_index_desc, &ci, column_index_bytes,
                        sizeof column_index_bytes));

    printf("OffsetIndex\n");
    CHECK(decode(&upq_offset_index_desc, &oi, &a, offset_index_bytes,
                 sizeof offset_index_bytes) == UPQ_OK);
    CHECK(oi.page_locations.n == 2);
    if (oi.page_locations.n == 2) {
        CHECK(oi.page_locations.v[0].offset == 4 &&
              oi.page_locations.v[0].compressed_page_size == 100 &&
              oi.page_locations.v[0].first_row_index == 0);
        CHECK(oi.page_locations.v[1].offset == 104 &&
              oi.page_locations.v[1].compressed_page_size == 50 &&
              oi.page_locations.v[1].first_row_index == 10);
    }
    CHECK(oi.unencoded_byte_array_data_bytes.n == 2 &&
          oi.unencoded_byte_array_data_bytes.v[1] == 10);
    CHECK(encodes_to(&upq_offset_index_desc, &oi, offset_index_bytes, sizeof offset_index_bytes));
    CHECK(prefixes_fail(&upq_offset_index_desc, &oi, offset_index_bytes,
                        sizeof offset_index_bytes));

    /* 20 pages: the list header takes its long form */
    {
        uint8_t big[400];
        size_t n = 0;
        int i;
        big[n++] = 0x19;
        big[n++] = 0xFC;
        big[n++] = 20;
        for (i = 0; i < 20; i++) {
            big[n++] = 0x16;
            big[n++] = (uint8_t)(2 * (4 + i)); /* offset 4 + i (small enough for one byte) */
            big[n++] = 0x15;
            big[n++] = 0x02;                   /* size 1 */
            big[n++] = 0x16;
            big[n++] = (uint8_t)(2 * i);       /* first row i */
            big[n++] = 0x00;
        }
        big[n++] = 0x00;
        CHECK(decode(&upq_offset_index_desc, &oi, &a, big, n) == UPQ_OK);
        CHECK(oi.page_locations.n == 20 && oi.page_locations.v[19].offset == 23 &&
              oi.page_locations.v[19].first_row_index == 19);
        CHECK(encodes_to(&upq_offset_index_desc, &oi, big, n));
    }
}

/* ---- bloom filter header, crypto -------------------------------------- */

static const uint8_t bloom_bytes[] = {
    0x15, 0x80, 0x10,       /* 1 numBytes: 1024 */
    0x1C, 0x1C, 0x00, 0x00, /* 2 algorithm: BLOCK {} */
    0x1C, 0x1C, 0x00, 0x00, /* 3 hash: XXHASH {} */
    0x1C, 0x1C, 0x00, 0x00, /* 4 compression: UNCOMPRESSED {} */
    0x00,
};

static const uint8_t crypto_bytes[] = {
    0x1C,                               /* 1 encryption_algorithm */
    0x2C,                               /*   2 AES_GCM_CTR_V1 */
    0x18, 0x03, 'p', 'r', 'e',          /*     1 aad_prefix */
    0x18, 0x04, 0x01, 0x02, 0x03, 0x04, /*     2 aad_file_unique */
    0x11,                               /*     3 supply_aad_prefix: true */
    0x00, 0x00,
    0x18, 0x02, 'k', '1',               /* 2 key_metadata */
    0x00,
};

static void test_bloom_and_crypto(void)
{
    upq_bloom_filter_header bh;
    upq_file_crypto_metadata cm;
    upq_arena a;

    printf("BloomFilterHeader\n");
    CHECK(decode(&upq_bloom_filter_header_desc, &bh, &a, bloom_bytes, sizeof bloom_bytes) ==
          UPQ_OK);
    CHECK(bh.num_bytes == 1024);
    CHECK(UPQ_ISSET(bh.algorithm, UPQ_BLOOM_FILTER_ALGORITHM_BLOCK));
    CHECK(UPQ_ISSET(bh.hash, UPQ_BLOOM_FILTER_HASH_XXHASH));
    CHECK(UPQ_ISSET(bh.compression, UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED));
    CHECK(encodes_to(&upq_bloom_filter_header_desc, &bh, bloom_bytes, sizeof bloom_bytes));
    CHECK(prefixes_fail(&upq_bloom_filter_header_desc, &bh, bloom_bytes, sizeof bloom_bytes));
    {
        /* a union left empty (an algorithm this version does not know) still
         * satisfies "required": the reader decides what to do with it */
        static const uint8_t unknown_hash[] = {0x15, 0x40, 0x1C, 0x1C, 0x00, 0x00, 0x1C,
                                               0x2C, 0x00, 0x00, 0x1C, 0x1C, 0x00, 0x00, 0x00};
        CHECK(decode(&upq_bloom_filter_header_desc, &bh, &a, unknown_hash,
                     sizeof unknown_hash) == UPQ_OK);
        CHECK(UPQ_ISSET(bh, UPQ_BLOOM_FILTER_HEADER_HASH) && bh.hash.isset == 0);
    }

    printf("FileCryptoMetaData\n");
    CHECK(decode(&upq_file_crypto_metadata_desc, &cm, &a, crypto_bytes, sizeof crypto_bytes) ==
          UPQ_OK);
    CHECK(cm.encryption_algorithm.isset == (1u << UPQ_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1));
    {
        const upq_aes_gcm_ctr_v1 *ctr = &cm.encryption_algorithm.u.aes_gcm_ctr_v1;
        CHECK(bytes_is(ctr->aad_prefix, "pre"));
        CHECK(ctr->aad_file_unique.len == 4 && ctr->aad_file_unique.ptr[3] == 4);
        CHECK(ctr->supply_aad_prefix == 1);
    }
    CHECK(bytes_is(cm.key_metadata, "k1"));
    CHECK(encodes_to(&upq_file_crypto_metadata_desc, &cm, crypto_bytes, sizeof crypto_bytes));
    CHECK(prefixes_fail(&upq_file_crypto_metadata_desc, &cm, crypto_bytes, sizeof crypto_bytes));
}

/* ---- logical types and unions ----------------------------------------- */

static void test_logical_types(void)
{
    upq_logical_type lt;
    upq_column_order co;
    upq_timestamp_type ts;
    upq_arena a;
    static const uint8_t vector[] = {0x0C, 0x26, 0x00, 0x00}; /* 19: long-form id */
    static const uint8_t geography[] = {
        0x0C, 0x24,                                       /* 18 GEOGRAPHY */
        0x18, 0x09, 'O', 'G', 'C', ':', 'C', 'R', 'S', '8', '4', /* 1 crs */
        0x15, 0x08,                                       /* 2 algorithm: KARNEY */
        0x00, 0x00};
    static const uint8_t timestamp[] = {
        0x8C,             /* 8 TIMESTAMP */
        0x11,             /*   1 isAdjustedToUTC: true */
        0x1C, 0x3C, 0x00, /*   2 unit: NANOS {} */
        0x00, 0x00,
        0x00};
    static const uint8_t unknown[] = {0x0C, 0xF6, 0x27, 0x00, 0x00}; /* id 2555 {} */
    static const uint8_t empty[] = {0x00};
    static const uint8_t two_orders[] = {0x1C, 0x00, 0x1C, 0x00, 0x00};
    static const uint8_t ts_no_unit[] = {0x11, 0x00};
    static const uint8_t decimal[] = {0x5C, 0x15, 0x04, 0x15, 0x12, 0x00, 0x00};

    printf("LogicalType\n");
    CHECK(decode(&upq_logical_type_desc, &lt, &a, vector, sizeof vector) == UPQ_OK);
    CHECK(upq_logical_type_kind(&lt) == UPQ_LOGICAL_TYPE_VECTOR);
    CHECK(strcmp(upq_logical_type_name(&lt), "VECTOR") == 0);
    CHECK(encodes_to(&upq_logical_type_desc, &lt, vector, sizeof vector));

    CHECK(decode(&upq_logical_type_desc, &lt, &a, geography, sizeof geography) == UPQ_OK);
    CHECK(upq_logical_type_kind(&lt) == UPQ_LOGICAL_TYPE_GEOGRAPHY);
    CHECK(bytes_is(lt.u.geography.crs, "OGC:CRS84"));
    CHECK(lt.u.geography.algorithm == UPQ_EDGE_KARNEY);
    CHECK(strcmp(upq_edge_algorithm_name(lt.u.geography.algorithm), "KARNEY") == 0);
    CHECK(encodes_to(&upq_logical_type_desc, &lt, geography, sizeof geography));

    CHECK(decode(&upq_logical_type_desc, &lt, &a, timestamp, sizeof timestamp) == UPQ_OK);
    CHECK(upq_logical_type_kind(&lt) == UPQ_LOGICAL_TYPE_TIMESTAMP);
    CHECK(lt.u.timestamp.is_adjusted_to_utc == 1);
    CHECK(upq_time_unit_kind(&lt.u.timestamp.unit) == UPQ_TIME_UNIT_NANOS);
    CHECK(strcmp(upq_time_unit_name(&lt.u.timestamp.unit), "NANOS") == 0);
    CHECK(encodes_to(&upq_logical_type_desc, &lt, timestamp, sizeof timestamp));

    CHECK(decode(&upq_logical_type_desc, &lt, &a, decimal, sizeof decimal) == UPQ_OK);
    CHECK(upq_logical_type_kind(&lt) == UPQ_LOGICAL_TYPE_DECIMAL);
    CHECK(lt.u.decimal.scale == 2 && lt.u.decimal.precision == 9);
    CHECK(encodes_to(&upq_logical_type_desc, &lt, decimal, sizeof decimal));

    /* a future logical type: skipped, the union stays empty */
    CHECK(decode(&upq_logical_type_desc, &lt, &a, unknown, sizeof unknown) == UPQ_OK);
    CHECK(lt.isset == 0 && upq_logical_type_kind(&lt) == 0);
    CHECK(strcmp(upq_logical_type_name(&lt), "") == 0);
    CHECK(encodes_to(&upq_logical_type_desc, &lt, empty, sizeof empty));

    printf("unions and required fields\n");
    CHECK(decode(&upq_column_order_desc, &co, &a, two_orders, sizeof two_orders) ==
          UPQ_ERR_CORRUPT);
    CHECK(decode(&upq_timestamp_type_desc, &ts, &a, ts_no_unit, sizeof ts_no_unit) ==
          UPQ_ERR_CORRUPT);
    {
        /* the decoder names the missing field */
        static const uint8_t ph_missing[] = {0x15, 0x00, 0x15, 0x02, 0x00};
        upq_page_header ph;
        upq_tdec d;
        upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
        size_t used;
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &upq_page_header_desc, &ph, &a, sizeof ph_missing, NULL);
        CHECK(upq_tdec_feed(&d, ph_missing, sizeof ph_missing, &used) == UPQ_ERR_CORRUPT);
        CHECK(d.err_field && strcmp(d.err_field, "compressed_page_size") == 0);
        CHECK(d.err_struct && strcmp(d.err_struct, "PageHeader") == 0);
    }
}

/* ---- names ------------------------------------------------------------ */

static void test_names(void)
{
    upq_logical_type lt;
    upq_time_unit tu;

    printf("names\n");
    CHECK(strcmp(upq_type_name(UPQ_TYPE_BOOLEAN), "BOOLEAN") == 0);
    CHECK(strcmp(upq_type_name(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY") == 0);
    CHECK(strcmp(upq_type_name(8), "?") == 0 && strcmp(upq_type_name(-1), "?") == 0);
    CHECK(strcmp(upq_converted_type_name(UPQ_CONVERTED_UTF8), "UTF8") == 0);
    CHECK(strcmp(upq_converted_type_name(UPQ_CONVERTED_INTERVAL), "INTERVAL") == 0);
    CHECK(strcmp(upq_converted_type_name(22), "?") == 0);
    CHECK(strcmp(upq_repetition_name(UPQ_REP_VECTOR), "VECTOR") == 0);
    CHECK(strcmp(upq_repetition_name(4), "?") == 0);
    CHECK(strcmp(upq_encoding_name(UPQ_ENC_PLAIN), "PLAIN") == 0);
    CHECK(strcmp(upq_encoding_name(1), "?") == 0);
    CHECK(strcmp(upq_encoding_name(UPQ_ENC_BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT") == 0);
    CHECK(strcmp(upq_encoding_name(10), "?") == 0);
    CHECK(strcmp(upq_codec_name(UPQ_CODEC_LZ4_RAW), "LZ4_RAW") == 0);
    CHECK(strcmp(upq_codec_name(INT32_MIN), "?") == 0);
    CHECK(strcmp(upq_page_type_name(UPQ_PAGE_DATA_V2), "DATA_PAGE_V2") == 0);
    CHECK(strcmp(upq_boundary_order_name(UPQ_BOUNDARY_DESCENDING), "DESCENDING") == 0);
    CHECK(strcmp(upq_boundary_order_name(3), "?") == 0);
    CHECK(strcmp(upq_edge_algorithm_name(UPQ_EDGE_SPHERICAL), "SPHERICAL") == 0);

    CHECK(upq_codec_from_name("zstd") == UPQ_CODEC_ZSTD);
    CHECK(upq_codec_from_name("LZ4_RAW") == UPQ_CODEC_LZ4_RAW);
    CHECK(upq_codec_from_name("lz4") == UPQ_CODEC_LZ4);
    CHECK(upq_codec_from_name("none") == UPQ_CODEC_UNCOMPRESSED);
    CHECK(upq_codec_from_name("Uncompressed") == UPQ_CODEC_UNCOMPRESSED);
    CHECK(upq_codec_from_name("zst") == -1 && upq_codec_from_name("zstdx") == -1);
    CHECK(upq_codec_from_name("") == -1 && upq_codec_from_name(NULL) == -1);
    CHECK(upq_encoding_from_name("rle_dictionary") == UPQ_ENC_RLE_DICTIONARY);
    CHECK(upq_encoding_from_name("PLAIN") == UPQ_ENC_PLAIN);
    CHECK(upq_encoding_from_name("DELTA_BYTE_ARRAY") == UPQ_ENC_DELTA_BYTE_ARRAY);
    CHECK(upq_encoding_from_name("GROUP_VAR_INT") == -1);

    /* every logical type member names itself, and only ids that exist */
    {
        static const char *const want[20] = {
            "",        "STRING",    "MAP",      "LIST",    "ENUM",  "DECIMAL", "DATE",
            "TIME",    "TIMESTAMP", "",         "INTEGER", "UNKNOWN", "JSON", "BSON",
            "UUID",    "FLOAT16",   "VARIANT",  "GEOMETRY", "GEOGRAPHY", "VECTOR"};
        int id;
        for (id = 0; id < 20; id++) {
            memset(&lt, 0, sizeof lt);
            lt.isset = id ? 1u << id : 0;
            CHECK(strcmp(upq_logical_type_name(&lt), want[id]) == 0);
            CHECK(upq_logical_type_kind(&lt) == (want[id][0] ? id : 0));
        }
        lt.isset = 1u << 20;
        CHECK(upq_logical_type_kind(&lt) == 0 && strcmp(upq_logical_type_name(&lt), "") == 0);
    }
    memset(&tu, 0, sizeof tu);
    CHECK(upq_time_unit_kind(&tu) == 0 && strcmp(upq_time_unit_name(&tu), "") == 0);
    UPQ_SET(tu, UPQ_TIME_UNIT_MILLIS);
    CHECK(upq_time_unit_kind(&tu) == 1 && strcmp(upq_time_unit_name(&tu), "MILLIS") == 0);
    tu.isset = 1u << UPQ_TIME_UNIT_MICROS;
    CHECK(upq_time_unit_kind(&tu) == 2 && strcmp(upq_time_unit_name(&tu), "MICROS") == 0);
}

/* ---- descriptor sanity ------------------------------------------------ */

static const upq_tstruct *const all_descs[] = {
    &upq_size_statistics_desc, &upq_bounding_box_desc, &upq_geospatial_statistics_desc,
    &upq_statistics_desc, &upq_string_type_desc, &upq_uuid_type_desc, &upq_map_type_desc,
    &upq_list_type_desc, &upq_vector_type_desc, &upq_enum_type_desc, &upq_date_type_desc,
    &upq_float16_type_desc, &upq_null_type_desc, &upq_decimal_type_desc,
    &upq_milli_seconds_desc, &upq_micro_seconds_desc, &upq_nano_seconds_desc,
    &upq_time_unit_desc, &upq_timestamp_type_desc, &upq_time_type_desc, &upq_int_type_desc,
    &upq_json_type_desc, &upq_bson_type_desc, &upq_variant_type_desc, &upq_geometry_type_desc,
    &upq_geography_type_desc, &upq_logical_type_desc, &upq_schema_element_desc,
    &upq_data_page_header_desc, &upq_index_page_header_desc, &upq_dictionary_page_header_desc,
    &upq_data_page_header_v2_desc, &upq_split_block_algorithm_desc,
    &upq_bloom_filter_algorithm_desc, &upq_xx_hash_desc, &upq_bloom_filter_hash_desc,
    &upq_uncompressed_desc, &upq_bloom_filter_compression_desc, &upq_bloom_filter_header_desc,
    &upq_page_header_desc, &upq_key_value_desc, &upq_sorting_column_desc,
    &upq_page_encoding_stats_desc, &upq_column_metadata_desc,
    &upq_encryption_with_footer_key_desc, &upq_encryption_with_column_key_desc,
    &upq_column_crypto_metadata_desc, &upq_column_chunk_desc, &upq_row_group_desc,
    &upq_type_defined_order_desc, &upq_ieee754_total_order_desc,
    &upq_int96_timestamp_order_desc, &upq_column_order_desc, &upq_page_location_desc,
    &upq_offset_index_desc, &upq_column_index_desc, &upq_aes_gcm_v1_desc,
    &upq_aes_gcm_ctr_v1_desc, &upq_encryption_algorithm_desc, &upq_file_metadata_desc,
    &upq_file_crypto_metadata_desc,
};

/* The tables are typed by hand: check what a typo would break. */
static void test_descriptors(void)
{
    size_t i;
    printf("descriptors\n");
    CHECK(sizeof all_descs / sizeof all_descs[0] == 61);
    CHECK(UPQ_DESC_COUNT == 64); /* the 61 and the three lean page headers */
    /* every entry of the table is filled and knows its position */
    for (i = 0; i < UPQ_DESC_COUNT; i++) {
        const upq_tstruct *s = &upq_meta_descs[i];
        CHECK(s->size >= sizeof(uint32_t) && (size_t)(s->index & ~UPQ_TS_UNION) == i);
    }
    for (i = 0; i < sizeof all_descs / sizeof all_descs[0]; i++) {
        const upq_tstruct *s = all_descs[i];
        unsigned k;
        int is_union = (s->index & UPQ_TS_UNION) != 0;
        int ok = s->name != NULL && (s->nfields == 0 || s->fields != NULL);
        for (k = 0; ok && k < s->nfields; k++) {
            const upq_tfield *f = &s->fields[k];
            unsigned id = f->id & UPQ_TF_ID;
            if (id < 1 || (k > 0 && id <= (s->fields[k - 1].id & UPQ_TF_ID)))
                ok = 0;
            if (f->offset < sizeof(uint32_t) || f->offset >= s->size || f->name == NULL)
                ok = 0;
            if (f->kind < UPQ_TK_BOOL || f->kind == UPQ_TK_LIST ||
                f->kind >= UPQ_TK_STRUCT + UPQ_DESC_COUNT)
                ok = 0;
            /* a struct field's storage holds the whole struct it names */
            if (f->kind >= UPQ_TK_STRUCT && !(f->id & UPQ_TF_LIST) &&
                f->offset + UPQ_TSUB(s, f)->size > s->size)
                ok = 0;
            if (is_union && ((f->id & (UPQ_TF_REQUIRED | UPQ_TF_LIST)) || f->kind < UPQ_TK_STRUCT))
                ok = 0;
            if ((f->id & UPQ_TF_PROJECT) && s != &upq_row_group_desc)
                ok = 0;
        }
        if (!ok)
            printf("  bad description %s\n", s->name ? s->name : "(null)");
        CHECK(ok);
    }
    CHECK(upq_row_group_desc.fields[0].id ==
          (UPQ_ROW_GROUP_COLUMNS | UPQ_TF_REQUIRED | UPQ_TF_PROJECT | UPQ_TF_LIST));
    CHECK(UPQ_TSUB(&upq_row_group_desc, &upq_row_group_desc.fields[0]) == &upq_column_chunk_desc);
    CHECK(UPQ_TSUB(&upq_file_metadata_desc, &upq_file_metadata_desc.fields[1]) ==
          &upq_schema_element_desc);
    CHECK(UPQ_TSUB(&upq_page_header_lean_desc, &upq_page_header_lean_desc.fields[4])->nfields ==
          upq_data_page_header_desc.nfields - 1);
}

/* ---- corpus ----------------------------------------------------------- */

typedef struct corpus_stats {
    int files, plain, encrypted, identical, fail;
} corpus_stats;

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    p = (uint8_t *)malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Decodes with a growing arena (the decoded model is larger than the bytes
 * by a factor that depends on the struct mix). The arena memory is returned
 * in *mem for the caller to free. */
static upq_status decode_heap(const upq_tstruct *desc, void *obj, const uint8_t *in, size_t n,
                              size_t *used, void **mem, const uint8_t *proj, uint32_t nproj)
{
    size_t cap = 4096 + n * 16;
    for (;;) {
        upq_arena a;
        upq_tdec d;
        upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
        upq_status st;
        *mem = malloc(cap);
        if (!*mem)
            return UPQ_ERR_NOMEM;
        upq_arena_init(&a, *mem, cap);
        upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, desc, obj, &a, n, NULL);
        if (proj)
            upq_tdec_set_projection(&d, proj, nproj);
        st = upq_tdec_feed(&d, in, n, used);
        if (st == UPQ_AGAIN)
            st = UPQ_ERR_TRUNCATED;
        if (st != UPQ_ERR_NOMEM || cap > ((size_t)1 << 30)) {
            if (st < 0)
                printf("  %s at byte %llu (%s.%s)\n", upq_strerror(st),
                       (unsigned long long)d.err_pos, d.err_struct ? d.err_struct : "?",
                       d.err_field ? d.err_field : "?");
            return st;
        }
        free(*mem);
        cap *= 4;
    }
}

/* Encodes into a malloc'd buffer of the exact size. */
static uint8_t *encode_heap(const upq_tstruct *desc, const void *obj, size_t *len)
{
    uint8_t *out;
    size_t need = 0, got = 0;
    upq_status st = upq_thrift_encode(desc, obj, NULL, 0, &need); /* NULL: count only */
    if (st != UPQ_OK && st != UPQ_ERR_BUFFER)
        return NULL;
    out = (uint8_t *)malloc(need ? need : 1);
    if (out && (upq_thrift_encode(desc, obj, out, need, &got) != UPQ_OK || got != need)) {
        free(out);
        return NULL;
    }
    *len = need;
    return out;
}

/* decode -> encode -> decode -> encode; both encodings must be identical.
 * Returns 1 on success; *diff_at gets the offset of the first byte where the
 * first encoding departs from the input (SIZE_MAX when it reproduces it). */
static int roundtrip(const upq_tstruct *desc, void *obj1, void *obj2, const uint8_t *in,
                     size_t n, size_t *used, size_t *diff_at, const char *name)
{
    void *m1 = NULL, *m2 = NULL;
    uint8_t *e1 = NULL, *e2 = NULL;
    size_t l1 = 0, l2 = 0, u2 = 0;
    int ok = 0;
    upq_status st = decode_heap(desc, obj1, in, n, used, &m1, NULL, 0);
    *diff_at = 0;
    if (st != UPQ_OK) {
        printf("  %s: decode %s failed\n", name, desc->name);
        goto out;
    }
    e1 = encode_heap(desc, obj1, &l1);
    if (!e1) {
        printf("  %s: encode %s failed\n", name, desc->name);
        goto out;
    }
    {
        size_t i = 0;
        while (i < l1 && i < *used && e1[i] == in[i])
            i++;
        *diff_at = (i == l1 && i == *used) ? SIZE_MAX : i;
    }
    if (decode_heap(desc, obj2, e1, l1, &u2, &m2, NULL, 0) != UPQ_OK || u2 != l1) {
        printf("  %s: re-decode %s failed\n", name, desc->name);
        goto out;
    }
    e2 = encode_heap(desc, obj2, &l2);
    if (!e2 || l2 != l1 || memcmp(e1, e2, l1) != 0) {
        printf("  %s: re-encoding %s differs\n", name, desc->name);
        goto out;
    }
    ok = 1;
out:
    free(m1);
    free(m2);
    free(e1);
    free(e2);
    return ok;
}

/* Decoding with a projection keeps only the selected column chunks: pick
 * the last column and compare with the unprojected decode. */
static int projection_matches(const upq_file_metadata *full, const uint8_t *in, size_t n)
{
    upq_file_metadata *fm;
    uint8_t *proj;
    uint32_t ncols, i;
    void *mem = NULL;
    size_t used;
    int ok = 1;
    if (full->row_groups.n == 0 || full->row_groups.v[0].columns.n < 2)
        return 1;
    ncols = full->row_groups.v[0].columns.n;
    proj = (uint8_t *)calloc((ncols + 7) / 8, 1);
    fm = (upq_file_metadata *)malloc(sizeof *fm);
    proj[(ncols - 1) / 8] = (uint8_t)(1u << ((ncols - 1) % 8));
    if (decode_heap(&upq_file_metadata_desc, fm, in, n, &used, &mem, proj, ncols) != UPQ_OK) {
        ok = 0;
    } else {
        for (i = 0; i < fm->row_groups.n && ok; i++) {
            const upq_column_chunk_list *cl = &fm->row_groups.v[i].columns;
            const upq_column_chunk_list *fl = &full->row_groups.v[i].columns;
            if (cl->n != 1 || fl->n != ncols ||
                cl->v[0].meta_data.data_page_offset != fl->v[ncols - 1].meta_data.data_page_offset ||
                cl->v[0].meta_data.path_in_schema.n != fl->v[ncols - 1].meta_data.path_in_schema.n)
                ok = 0;
        }
    }
    free(mem);
    free(fm);
    free(proj);
    return ok;
}

static void corpus_file(const char *path, corpus_stats *cs)
{
    size_t len = 0, flen, used = 0;
    uint8_t *buf = read_file(path, &len);
    const uint8_t *footer;
    size_t diff_at = 0;
    if (!buf || len < 12 || (memcmp(buf, "PAR1", 4) != 0 && memcmp(buf, "PARE", 4) != 0))
        goto out;
    flen = (size_t)buf[len - 8] | ((size_t)buf[len - 7] << 8) | ((size_t)buf[len - 6] << 16) |
           ((size_t)buf[len - 5] << 24);
    if (flen > len - 12) {
        printf("FAIL %s: footer length %zu exceeds the file\n", path, flen);
        failed++;
        cs->fail++;
        goto out;
    }
    footer = buf + len - 8 - flen;
    cs->files++;
    if (memcmp(buf + len - 4, "PARE", 4) == 0) {
        /* encrypted footer: only its plaintext FileCryptoMetaData prefix */
        upq_file_crypto_metadata c1, c2;
        cs->encrypted++;
        if (roundtrip(&upq_file_crypto_metadata_desc, &c1, &c2, footer, flen, &used, &diff_at,
                      path) &&
            used < flen) {
            passed++;
        } else {
            printf("FAIL %s\n", path);
            failed++;
            cs->fail++;
        }
    } else if (memcmp(buf + len - 4, "PAR1", 4) == 0) {
        upq_file_metadata *f1 = (upq_file_metadata *)malloc(sizeof *f1);
        upq_file_metadata *f2 = (upq_file_metadata *)malloc(sizeof *f2);
        cs->plain++;
        if (roundtrip(&upq_file_metadata_desc, f1, f2, footer, flen, &used, &diff_at, path)) {
            void *mem = NULL;
            size_t u;
            passed++;
            if (used != flen)
                printf("# %s: footer struct ends %zu bytes before the length (signature?)\n",
                       path, flen - used);
            /* decode once more to keep the model alive for the projection check */
            if (decode_heap(&upq_file_metadata_desc, f1, footer, flen, &u, &mem, NULL, 0) ==
                    UPQ_OK &&
                projection_matches(f1, footer, flen)) {
                passed++;
            } else {
                printf("FAIL %s: projection\n", path);
                failed++;
                cs->fail++;
            }
            free(mem);
        } else {
            printf("FAIL %s\n", path);
            failed++;
            cs->fail++;
        }
        free(f1);
        free(f2);
    }
    if (diff_at == SIZE_MAX)
        cs->identical++;
    else
        printf("# %s: re-encoding departs from the file's bytes at footer offset %zu\n", path,
               diff_at);
out:
    free(buf);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.parquet / *.parquet.encrypted under dir, recursively, sorted. */
static void corpus_dir(const char *dir, corpus_stats *cs)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    if (!d) {
        printf("# cannot open %s\n", dir);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = (char **)realloc(names, cap * sizeof *names);
        }
        names[n] = (char *)malloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0) {
            if (S_ISDIR(st.st_mode))
                corpus_dir(names[i], cs);
            else if (S_ISREG(st.st_mode) &&
                     (ends_with(names[i], ".parquet") || ends_with(names[i], ".parquet.encrypted")))
                corpus_file(names[i], cs);
        }
        free(names[i]);
    }
    free(names);
}

static void test_corpus(void)
{
    static const char *const subdirs[] = {"data", "bad_data", "shredded_variant"};
    const char *root = getenv("PARQUET_TESTING_DIR");
    corpus_stats cs;
    size_t i;
    char path[4096];

    if (!root || !*root)
        root = "../shared/parquet-testing";
    memset(&cs, 0, sizeof cs);
    printf("corpus footers (%s)\n", root);
    for (i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, subdirs[i]);
        corpus_dir(path, &cs);
    }
    CHECK(cs.files > 0);
    printf("# corpus: %d footers (%d plaintext, %d encrypted), %d failed, "
           "%d re-encode to the file's exact bytes\n",
           cs.files, cs.plain, cs.encrypted, cs.fail, cs.identical);

    /* bloom_filter.xxhash.bin: a Thrift header, then exactly numBytes of bitset.
     * bloom_filter.bin uses the pre-release binary header (starts 00 04 ...):
     * as Thrift it is a struct without its required numBytes. */
    for (i = 0; i < 2; i++) {
        static const char *const bf[] = {"bloom_filter.xxhash.bin", "bloom_filter.bin"};
        size_t len = 0, used = 0;
        uint8_t *buf;
        upq_bloom_filter_header bh;
        upq_arena a;
        upq_status st;
        snprintf(path, sizeof path, "%s/data/%s", root, bf[i]);
        buf = read_file(path, &len);
        if (!buf) {
            printf("# cannot read %s\n", path);
            continue;
        }
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        st = upq_thrift_decode(&upq_bloom_filter_header_desc, &bh, &a, buf, len, &used, NULL);
        if (i == 0) {
            CHECK(st == UPQ_OK);
            CHECK(bh.num_bytes == 1024 && used + (size_t)bh.num_bytes == len);
            CHECK(UPQ_ISSET(bh.algorithm, UPQ_BLOOM_FILTER_ALGORITHM_BLOCK));
            CHECK(UPQ_ISSET(bh.hash, UPQ_BLOOM_FILTER_HASH_XXHASH));
            CHECK(UPQ_ISSET(bh.compression, UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED));
        } else {
            CHECK(st == UPQ_ERR_CORRUPT);
        }
        free(buf);
    }
}

/* The writer's bound of a ColumnChunk (UPQ_W_CC_WORST, counted by hand so
 * that the planner does not encode one) against the encoder: every field the
 * writer sets but a column's own, each integer at its widest. */
static void test_cc_worst(void)
{
    upq_column_chunk cc;
    upq_column_metadata *md = &cc.meta_data;
    int32_t encs[UPQ_COUNTOF_ENCS];
    upq_page_encoding_stats es[3];
    upq_writer_opts o;
    size_t len = 0, i;

    memset(&cc, 0, sizeof cc);
    cc.isset = (1u << UPQ_COLUMN_CHUNK_FILE_OFFSET) | (1u << UPQ_COLUMN_CHUNK_META_DATA) |
               (1u << UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET) |
               (1u << UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH) |
               (1u << UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET) |
               (1u << UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH);
    cc.file_offset = cc.offset_index_offset = cc.column_index_offset = INT64_MIN;
    cc.offset_index_length = cc.column_index_length = INT32_MIN;
    md->isset = 0x1FFFFu << 1;
    md->isset &= ~((1u << UPQ_COLUMN_METADATA_KEY_VALUE_METADATA) |
                   (1u << UPQ_COLUMN_METADATA_INDEX_PAGE_OFFSET) |
                   (1u << UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET) |
                   (1u << UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH) |
                   (1u << UPQ_COLUMN_METADATA_GEOSPATIAL_STATISTICS));
    md->type = UPQ_TYPE_FIXED_LEN_BYTE_ARRAY; /* the widest type code */
    for (i = 0; i < UPQ_COUNTOF_ENCS; i++)
        encs[i] = INT32_MIN;
    md->encodings.v = encs;
    md->encodings.n = UPQ_COUNTOF_ENCS;
    md->codec = INT32_MIN;
    md->num_values = md->total_uncompressed_size = md->total_compressed_size = INT64_MIN;
    md->data_page_offset = md->dictionary_page_offset = INT64_MIN;
    md->statistics.isset = (1u << UPQ_STATISTICS_NULL_COUNT) | (1u << UPQ_STATISTICS_NAN_COUNT);
    md->statistics.null_count = md->statistics.nan_count = INT64_MIN;
    for (i = 0; i < 3; i++) {
        es[i].isset = 0xEu;
        es[i].page_type = es[i].encoding = es[i].count = INT32_MIN;
    }
    md->encoding_stats.v = es;
    md->encoding_stats.n = 3;
    md->size_statistics.isset = 1u << UPQ_SIZE_STATISTICS_UNENCODED_BYTE_ARRAY_DATA_BYTES;
    md->size_statistics.unencoded_byte_array_data_bytes = INT64_MIN;
    CHECK(upq_thrift_encode(&upq_column_chunk_desc, &cc, NULL, 0, &len) == UPQ_OK);
    CHECK(len == UPQ_W_CC_WORST);
    /* the RowGroup's bound is the chunks' and its own fields' */
    memset(&o, 0, sizeof o);
    CHECK(upq_w_rg_bound(3, &o) == 1u + 1u + 4u * 11u + 4u + 1u + 3u * len);
}

int main(void)
{
    test_descriptors();
    test_file_metadata();
    test_page_headers();
    test_page_index();
    test_bloom_and_crypto();
    test_logical_types();
    test_names();
    test_cc_worst();
    test_corpus();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
