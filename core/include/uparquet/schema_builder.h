/*
 * The schema builder: a writer's schema as the flat SchemaElement list the
 * footer stores, built in caller memory with the format's rules checked, and
 * the logical type constructors its columns take.
 */
#ifndef UPARQUET_SCHEMA_BUILDER_H
#define UPARQUET_SCHEMA_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "status.h"
#include "meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the flat SchemaElement list (depth-first, as the footer stores it)
 * in caller memory. Names are not copied: they must outlive the writer.
 * Every call after the first error does nothing and returns that error. */
typedef struct upq_schema_builder {
    upq_schema_element *elems;
    uint32_t n, cap;
    uint32_t open[UPQ_SCHEMA_MAX_DEPTH + 1]; /* indices of open groups; open[0] is the root */
    uint8_t kind[UPQ_SCHEMA_MAX_DEPTH + 1];  /* what each open group is (plain, list, map) */
    uint32_t depth;                          /* groups open below the root */
    uint32_t last;                           /* element added last */
    upq_status status;                       /* first error, sticky */
    const char *error; /* what the first error refused (static text), or NULL */
    uint32_t *index;   /* optional name index (upq_sb_index), or NULL */
    uint32_t index_slots, index_used;
    /* its probe, set by upq_sb_index: a build that never calls it links none of it */
    int (*index_probe)(struct upq_schema_builder *b, uint32_t group, const char *name);
} upq_schema_builder;

/* Every call refuses (UPQ_ERR_INVAL, with b->error saying why) what the
 * format forbids, so a schema that passes upq_sb_finish is one readers
 * accept: two siblings of one name; LIST on a group without exactly one
 * repeated child; VARIANT on a primitive, of a specification version other
 * than 1, or on a group without a required binary `metadata` and a binary
 * `value` (which only a shredded `typed_value` may replace); GEOMETRY/GEOGRAPHY off BYTE_ARRAY or with an unknown edge
 * algorithm; INTERVAL off FIXED_LEN_BYTE_ARRAY(12). */

/* Starts the list with the root group `root_name` ("schema" if NULL).
 * Errors (UPQ_ERR_BUFFER when `cap` is too small) surface in later calls. */
void upq_sb_init(upq_schema_builder *b, upq_schema_element *elems, uint32_t cap,
                 const char *root_name);
/* Optional: a hash index of the names in caller memory (`words` uint32_t,
 * two a slot), so that the check for two siblings of one name takes constant
 * time instead of a walk over the group's children (a schema of n columns
 * otherwise costs O(n^2) name comparisons). Call right after upq_sb_init;
 * give at least 4 words an element for it to stay fast (16 * cap bytes).
 * When it fills up the builder goes back to the walk: the result and the
 * errors are the same with or without it. The memory must outlive the
 * builder's last call; it is not part of the schema. */
void upq_sb_index(upq_schema_builder *b, uint32_t *words, uint32_t nwords);
/* A group; `lt` may be NULL (or LIST, MAP, VARIANT). LIST/MAP also set the matching
 * ConvertedType, as the format asks for compatibility. Close it with
 * upq_sb_end. Returns UPQ_OK, UPQ_ERR_BUFFER (elems full), UPQ_ERR_LIMIT
 * (nesting deeper than UPQ_SCHEMA_MAX_DEPTH), UPQ_ERR_INVAL or
 * UPQ_ERR_UNSUPPORTED (VARIANT in a build without UPQ_WITH_VARIANT). */
upq_status upq_sb_group(upq_schema_builder *b, const char *name, int32_t repetition,
                        const upq_logical_type *lt);
upq_status upq_sb_end(upq_schema_builder *b);
/* A leaf column. `type_length` is for FIXED_LEN_BYTE_ARRAY (else 0). The
 * ConvertedType equivalent of `lt` (UTF8, DECIMAL + scale/precision,
 * TIMESTAMP_MICROS, INT_8, ...) is set too. `lt` may be NULL. UPQ_ERR_INVAL
 * for a bad type, a FIXED_LEN_BYTE_ARRAY without a positive length, or a
 * logical type the physical type cannot carry. */
upq_status upq_sb_column(upq_schema_builder *b, const char *name, int32_t repetition,
                         int32_t physical_type, int32_t type_length, const upq_logical_type *lt);
/* The three-level LIST: `name` (LIST) { repeated group list { <element> } };
 * add the element column or group (named "element"), then upq_sb_end_list. */
upq_status upq_sb_list(upq_schema_builder *b, const char *name, int32_t repetition);
upq_status upq_sb_end_list(upq_schema_builder *b);
/* MAP: `name` (MAP) { repeated group key_value { key; value } }; add a
 * required "key" and a "value", then upq_sb_end_map. */
upq_status upq_sb_map(upq_schema_builder *b, const char *name, int32_t repetition);
upq_status upq_sb_end_map(upq_schema_builder *b);
/* Sets the field id of the element added last. */
upq_status upq_sb_field_id(upq_schema_builder *b, int32_t id);
/* Sets a legacy ConvertedType alone (no LogicalType) on the element added
 * last, as files written before LogicalType existed carry them: LIST, MAP
 * and MAP_KEY_VALUE on groups only, INTERVAL on FIXED_LEN_BYTE_ARRAY(12)
 * only, DECIMAL never (it needs precision and scale: use upq_lt_decimal). */
upq_status upq_sb_converted(upq_schema_builder *b, int32_t converted_type);
/* Checks that every group is closed; *n gets the element count. */
upq_status upq_sb_finish(upq_schema_builder *b, uint32_t *n);

/* Logical type constructors (they clear *lt first). */
void upq_lt_string(upq_logical_type *lt);
void upq_lt_enum(upq_logical_type *lt);
void upq_lt_json(upq_logical_type *lt);
void upq_lt_bson(upq_logical_type *lt);
void upq_lt_uuid(upq_logical_type *lt);
void upq_lt_float16(upq_logical_type *lt);
void upq_lt_date(upq_logical_type *lt);
void upq_lt_unknown(upq_logical_type *lt);
void upq_lt_decimal(upq_logical_type *lt, int32_t precision, int32_t scale);
void upq_lt_int(upq_logical_type *lt, int bit_width, int is_signed);
/* unit: UPQ_TIME_UNIT_MILLIS / _MICROS / _NANOS */
void upq_lt_time(upq_logical_type *lt, int unit, int adjusted_to_utc);
void upq_lt_timestamp(upq_logical_type *lt, int unit, int adjusted_to_utc);

#ifdef __cplusplus
}
#endif

#endif
