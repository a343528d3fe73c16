/*
 * What the predicate files share: node kinds, value conversion and
 * comparison (predicate.c), the may-true / may-false facts of pruning and
 * the row sets (prune.c), for the scan (scan.c).
 */
#ifndef UPQ_PRED_INT_H
#define UPQ_PRED_INT_H

#include "uparquet/predicate.h"

#if UPQ_WITH_PREDICATE && UPQ_WITH_READER

/* Pruning keeps two facts per subexpression over a set of rows. */
#define UPQ_MAY_T 1u
#define UPQ_MAY_F 2u

/* A leaf pushes a value (comparisons, IN, IS NULL, LIKE, DISTINCT, CONST). */
int upq_pred_is_leaf(uint8_t op);
/* A leaf that reads a column (every leaf but CONST). */
int upq_pred_has_column(uint8_t op);

/* The order values of leaf `col` compare in: its type's, and INT96
 * chronologically (which needs no column order to compare rows). */
int upq_pred_order(const upq_schema *s, uint32_t col);
int upq_pred_float_order(int order);

/* Leaf `nd`'s value v (from upq_pred_to_stat) as the leaf compares it: a
 * DOUBLE for an UPQ_PRED_AS_DOUBLE node (integers and decimals cast as
 * DuckDB casts them). 0 when it does not convert. */
int upq_pred_cast(const upq_schema *s, const upq_pred_node *nd, upq_stat_value *v);
/* Literal k of leaf `nd` as a typed value (buf: its PLAIN bytes). */
int upq_pred_literal(const upq_schema *s, const upq_pred_node *nd, uint32_t k, uint8_t buf[12],
                     upq_stat_value *out);

/* Bytes of LIKE node nd's pattern before its first wildcard, unescaped into
 * out (up to cap); *exact: the pattern is that prefix alone (no wildcard),
 * *tail_any: the prefix then only '%'. Returns the prefix length. */
size_t upq_pred_like_prefix(const upq_pred_node *nd, uint8_t *out, size_t cap, int *exact,
                            int *tail_any);

/* A value in the column reader's representation as a typed value; buf holds
 * the PLAIN bytes of fixed-width values. 1, or 0 when it does not decode. */
int upq_pred_to_stat(const upq_column_desc *cd, int order, const void *val, uint8_t buf[12],
                     upq_stat_value *out);

/* What is known of a set of rows' values in one column. */
typedef struct upq_bounds {
    uint8_t all_null; /* every value is NULL */
    uint8_t no_null;  /* no value is NULL */
    uint8_t nan;      /* a NaN may be among the values */
    uint8_t has_min, has_max;
    upq_stat_value min, max; /* of the non-NULL, non-NaN values */
} upq_bounds;

/* may-true | may-false of leaf `nd` over rows with bounds `b`. */
unsigned upq_pred_leaf_may(const upq_schema *s, const upq_pred_node *nd, const upq_bounds *b);
/* ... over the chunk of row group rg, from its statistics. */
unsigned upq_pred_chunk_may(upq_reader *r, const upq_pred_node *nd, uint32_t rg);
/* Combines the facts of the two (AND, OR) or one (NOT) slots on top. */
void upq_pred_combine_may(uint8_t op, uint8_t *stack, uint32_t *sp);

/* Row sets: appending in order (a full set merges the closest neighbours,
 * staying a superset), intersection, union, copy. */
void upq_set_add(upq_row_set *s, uint64_t a, uint64_t b);
void upq_set_and(upq_row_set *d, const upq_row_set *a, const upq_row_set *b);
void upq_set_or(upq_row_set *d, const upq_row_set *a, const upq_row_set *b);
void upq_set_copy(upq_row_set *d, const upq_row_set *s);

/* Every data page of the chunk is dictionary-encoded. */
int upq_pred_all_dictionary(const upq_column_chunk *ch);

#if UPQ_WITH_PAGE_INDEX
/* The may-true / may-false row sets of leaf `nd` from its column's loaded
 * OffsetIndex and ColumnIndex (checked by upq_column_index_verify). */
void upq_pred_leaf_pages(const upq_reader *r, const upq_pred_node *nd, uint64_t num_rows,
                         const upq_offset_index *oi, const upq_column_index *ci, upq_row_set *t,
                         upq_row_set *f);
#endif

#endif
#endif
