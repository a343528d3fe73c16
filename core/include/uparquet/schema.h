/*
 * The schema as a tree: the footer's flat, depth-first SchemaElement list
 * turned into nodes with parents, children and levels, and one descriptor per
 * leaf column. Built without recursion; malformed lists are errors.
 */
#ifndef UPARQUET_SCHEMA_H
#define UPARQUET_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "arena.h"
#include "meta.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UPQ_NONE 0xFFFFFFFFu

typedef struct upq_schema_node {
    const upq_schema_element *elem; /* the footer's element (in the same arena) */
    uint32_t parent;       /* node index, UPQ_NONE for the root */
    uint32_t first_child;  /* index into upq_schema.children of the first child */
    uint32_t num_children;
    uint32_t column;       /* leaf column index, UPQ_NONE for groups */
    uint16_t depth;        /* 0 for the root, 1 for top-level fields */
    uint16_t max_def;      /* definition level of a value present at this node */
    uint16_t max_rep;      /* repetition level of this node */
    uint8_t is_group;
    uint8_t repetition;    /* upq_repetition (REQUIRED for the root) */
} upq_schema_node;

typedef struct upq_column_desc {
    uint32_t node;          /* index of the leaf node */
    const uint32_t *path;   /* node indices from the top-level field to the leaf */
    uint16_t path_len;
    uint16_t max_def;
    uint16_t max_rep;
    int32_t physical_type;  /* upq_type */
    int32_t type_length;    /* FIXED_LEN_BYTE_ARRAY width, else 0 */
    int32_t converted_type; /* upq_converted_type, or -1 */
    int32_t scale, precision; /* DECIMAL (from LogicalType or the element) */
    /* LogicalType, or the equivalent of a legacy ConvertedType when the file
     * has none (UTF8 -> STRING, TIMESTAMP_MILLIS -> TIMESTAMP(MILLIS, UTC), ...) */
    upq_logical_type logical;
} upq_column_desc;

typedef struct upq_schema {
    upq_schema_node *nodes; /* nodes[0] is the root; same order as the footer */
    uint32_t num_nodes;
    uint32_t *children;     /* child node indices, each parent's children contiguous */
    upq_column_desc *columns;
    uint32_t num_columns;
} upq_schema;

/*
 * Builds the tree for elems[0..n) (which must outlive the schema). Memory
 * comes from `a`. Returns UPQ_OK, UPQ_ERR_CORRUPT (num_children past the end
 * or negative, elements left over, a leaf without a type, a non-root element
 * without repetition), UPQ_ERR_LIMIT (nesting deeper than
 * UPQ_SCHEMA_MAX_DEPTH or levels over 255), or UPQ_ERR_NOMEM. On error,
 * *bad_elem (may be NULL) gets the index of the offending element.
 */
upq_status upq_schema_build(upq_schema *s, const upq_schema_element *elems, uint32_t n,
                            upq_arena *a, uint32_t *bad_elem);

/*
 * The arena bytes upq_schema_build takes for elems[0..n), and in *leaves
 * (may be NULL) its leaf columns; 0 when the list is malformed (the build
 * then fails). Nothing is allocated: this sizes an arena before it exists.
 */
size_t upq_schema_size(const upq_schema_element *elems, uint32_t n, uint32_t *leaves);

/* The k-th child (node index) of group `node`. */
uint32_t upq_schema_child(const upq_schema *s, uint32_t node, uint32_t k);

/* How nested data reads, by LogicalTypes.md's rules including their
 * backward-compatibility cases (shared by the row reader and writers):
 * a group annotated LIST with one repeated child, or annotated MAP /
 * MAP_KEY_VALUE with one repeated group of one or two fields. Annotations on
 * other shapes are ignored (the group reads as a plain group). */
int upq_schema_is_list(const upq_schema *s, uint32_t node);
int upq_schema_is_map(const upq_schema *s, uint32_t node);

/* The element of LIST group `list` whose repeated child is `rep`: the
 * repeated node itself (*consumed = 1: a repeated primitive, a group of
 * several fields, one whose only field is repeated, or one named "array" or
 * "<list>_tuple"), or else its only field (*consumed = 0). */
uint32_t upq_schema_list_element(const upq_schema *s, uint32_t list, uint32_t rep,
                                 uint8_t *consumed);

/* Leaf column whose dotted path (top-level field to leaf, e.g. "a.list.element")
 * equals path[0..len), or UPQ_NONE. */
uint32_t upq_schema_find_column(const upq_schema *s, const char *path, size_t len);

/* Writes the dotted path of node `node` (not NUL-terminated beyond cap) into
 * buf[0..cap); returns the full length, so a short buffer tells the size needed. */
size_t upq_schema_node_path(const upq_schema *s, uint32_t node, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
