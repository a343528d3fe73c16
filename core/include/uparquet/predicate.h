/*
 * Predicates and selective reading: an expression over leaf columns in
 * caller memory, pruning of row groups (chunk statistics, bloom filters) and
 * pages (ColumnIndex with the OffsetIndex's row numbers), and a scan that
 * gives exactly the rows of a row group for which the expression is TRUE.
 *
 * The expression is an array of nodes in postfix order: leaves (a
 * comparison, IN, IS [NOT] NULL on one leaf column) push a value, AND / OR
 * pop two and push one, NOT pops one and pushes one. It is evaluated with
 * explicit stacks no deeper than UPQ_PRED_MAX_DEPTH, never by recursion.
 *
 * Semantics are SQL's (three-valued logic, as DuckDB implements them): a
 * comparison with a NULL value is NULL, a row is kept only when the whole
 * expression is TRUE, `x != c` and `x NOT IN (...)` drop NULLs. Floats:
 * NaN equals NaN and is greater than every other value, -0.0 equals +0.0.
 * Strings and binary compare byte-wise unsigned, unsigned integers as
 * unsigned, decimals by value, INT96 chronologically.
 *
 * A chunk whose data pages are all dictionary-encoded (its encoding_stats
 * say so, or its encodings list holds no PLAIN) is also pruned by its
 * dictionary: the leaf is evaluated on every dictionary value (the chunk's
 * first page is read for it).
 *
 * Pruning only drops what cannot be TRUE: every leaf gives, for a chunk or
 * a page, whether some row may make it TRUE and whether some row may make it
 * FALSE, which AND, OR and NOT combine exactly (NOT swaps the two), so NOT
 * needs no rewriting. Statistics that cannot be trusted (stats.h), a page
 * index that does not load or disagrees with itself, and a bloom filter that
 * does not read are not used: the rows are read and filtered instead.
 *
 * Memory: the scan takes everything from the reader's arena: a row selection
 * of at most `max_ranges` ranges (ranges merge when there would be more, so
 * it stays a superset), the stacks of the page pruning (2 x depth selections),
 * the page index of one column at a time, and two row readers (upq_rows):
 * one over the predicate's columns, one over the projected columns. Nothing
 * depends on the row group's row count. Built with UPQ_WITH_PREDICATE.
 */
#ifndef UPARQUET_PREDICATE_H
#define UPARQUET_PREDICATE_H

#include <stddef.h>
#include <stdint.h>
#include "record.h"
#include "page_index.h"
#include "bloom.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest evaluation stack an expression may need (checked). */
#ifndef UPQ_PRED_MAX_DEPTH
#define UPQ_PRED_MAX_DEPTH 64u
#endif
/* Most nodes in one expression (checked). */
#ifndef UPQ_PRED_MAX_NODES
#define UPQ_PRED_MAX_NODES 4096u
#endif
/* A gap of at least this many rows between two selected ranges reopens
 * the row readers, so each column jumps to the next range through its
 * OffsetIndex instead of reading the page headers in between. */
#ifndef UPQ_SCAN_REOPEN_ROWS
#define UPQ_SCAN_REOPEN_ROWS 512u
#endif
/* Ranges a row selection holds when the caller gives 0. */
#define UPQ_SCAN_DEFAULT_RANGES 64u

typedef enum upq_pred_op {
    UPQ_PRED_EQ = 1,
    UPQ_PRED_NE,
    UPQ_PRED_LT,
    UPQ_PRED_LE,
    UPQ_PRED_GT,
    UPQ_PRED_GE,
    UPQ_PRED_IN,          /* the column equals one of values[0..n) */
    UPQ_PRED_NOT_IN,      /* NOT (IN): FALSE on a match, NULL for a NULL value */
    UPQ_PRED_IS_NULL,
    UPQ_PRED_IS_NOT_NULL,
    UPQ_PRED_AND,         /* pops two */
    UPQ_PRED_OR,          /* pops two */
    UPQ_PRED_NOT          /* pops one */
} upq_pred_op;

/* One value in the column reader's representation (column.h). */
typedef union upq_value {
    uint8_t b;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
    upq_int96 i96;
    upq_bytes bytes;
} upq_value;

typedef struct upq_pred_node {
    uint8_t op;              /* upq_pred_op */
    uint32_t column;         /* leaves: the leaf column (not repeated) */
    uint32_t n;              /* leaves: values (comparisons 1, IN at least 1) */
    const upq_value *values; /* leaves: the literals, in the column's representation */
} upq_pred_node;

typedef struct upq_pred {
    const upq_pred_node *nodes; /* postfix order */
    uint32_t n;
    uint32_t depth;             /* set by upq_pred_check: evaluation stack needed */
} upq_pred;

/*
 * Checks `p` against the schema: a well-formed postfix expression with one
 * result, at most UPQ_PRED_MAX_NODES nodes and UPQ_PRED_MAX_DEPTH stack,
 * leaf columns that exist, are not repeated and have an order values can be
 * compared in (not INTERVAL or a group), literals of the column's width
 * (FIXED_LEN_BYTE_ARRAY). Sets p->depth. Returns UPQ_OK or UPQ_ERR_INVAL
 * with *what (static text) and *node (the offending node, or p->n).
 */
upq_status upq_pred_check(const upq_schema *s, upq_pred *p, const char **what, uint32_t *node);

/* Tri-state results of evaluating on one row. */
enum { UPQ_PRED_FALSE = 0, UPQ_PRED_TRUE = 1, UPQ_PRED_NULL = 2 };

/*
 * Evaluates leaf node `node` of a checked `p` on one value of its column
 * (NULL: the value is NULL). Returns UPQ_PRED_TRUE, _FALSE or _NULL.
 */
int upq_pred_eval_leaf(const upq_schema *s, const upq_pred *p, uint32_t node, const void *value);

/*
 * Combines leaf results res[i] (for every leaf node i; other entries are
 * ignored) with the AND / OR / NOT nodes. `stack` has room for p->depth
 * entries. Returns UPQ_PRED_TRUE, _FALSE or _NULL.
 */
int upq_pred_combine(const upq_pred *p, const uint8_t *res, uint8_t *stack);

/*
 * Row-group pruning by the chunk statistics alone (no I/O): 0 when no row of
 * row group `rg` can make the expression TRUE, else 1. Every leaf column must
 * be kept by the reader's projection (else 1: nothing is known).
 */
int upq_pred_row_group_may_match(upq_reader *r, const upq_pred *p, uint32_t rg);

/* A row range [begin, end) within a row group. */
typedef struct upq_row_range {
    uint64_t begin, end;
} upq_row_range;

typedef struct upq_row_set {
    upq_row_range *v;
    uint32_t n, cap;
} upq_row_set;

/* What a scan did (upq_scan.stats), for the caller's diagnostics. */
typedef struct upq_scan_stats {
    uint8_t pruned_stats;      /* the row group was pruned by statistics */
    uint8_t pruned_bloom;      /* ... by a bloom filter */
    uint8_t pruned_dict;       /* ... because no dictionary value matches */
    uint8_t pruned_pages;      /* ... because no page can match */
    uint32_t leaves_paged;     /* leaf nodes whose column's page index was used */
    uint32_t leaves_no_index;  /* leaf nodes without a usable page index */
    uint64_t rows_selected;    /* rows in the selection after pruning */
    uint64_t rows_tested;      /* rows whose predicate columns were read */
    uint64_t rows_matched;     /* rows given */
    uint32_t reopens;          /* row readers reopened to jump over a gap */
} upq_scan_stats;

/* Flags of upq_scan_open. */
enum {
    UPQ_SCAN_NO_FILTER = 1,    /* give every row of the selection (pruning only) */
    UPQ_SCAN_NO_BLOOM = 2,     /* do not read bloom filters */
    UPQ_SCAN_NO_PAGES = 4,     /* do not read page indexes */
    UPQ_SCAN_NO_DICT = 8       /* do not read dictionary pages to prune */
};

/* Internals are public so the scan can live anywhere; treat as private. */
typedef struct upq_scan {
    upq_reader *r;
    const upq_pred *p;
    uint32_t rg;
    const uint32_t *out_nodes;
    uint32_t out_n;
    size_t batch;
    unsigned flags;
    uint64_t num_rows, from, to;
    uint8_t stage, sub;
    upq_status failed;
    uint32_t pc;                /* node being worked on (pruning) */
    uint32_t lit;               /* literal being probed (bloom) */
    uint8_t bits[UPQ_PRED_MAX_DEPTH]; /* row-group pruning: per slot may-true | may-false */
    uint32_t sp;
    upq_row_set sel;            /* the selection */
    upq_row_set *stack;         /* page pruning: 2 sets per slot (may-true, may-false) */
    upq_row_set tmp[2];
    upq_page_index oi, ci;
    upq_bloom_reader bloom;
    upq_column_reader *dcol;    /* dictionary pruning: the chunk's first page (arena) */
    upq_arena_mark dmark;
    upq_value dval;
    uint16_t ddef;
    uint32_t *pcols;            /* distinct predicate columns' leaf nodes */
    uint32_t npcols;
    uint8_t *res;               /* leaf results of the current row */
    uint8_t *evstack;
    upq_rows pred_rows, out_rows;
    uint8_t pred_open, out_open;
    uint32_t range;             /* current selection range */
    uint64_t row;               /* next row of the row group the predicate reader gives */
    uint64_t out_pos;           /* next row the output reader gives */
    uint64_t cur;               /* the row being given */
    upq_scan_stats stats;
    upq_arena_mark mark, work_mark;
} upq_scan;

/*
 * Prepares a scan of rows [from, to) of row group `rg` (to beyond the row
 * count: to its end) for the checked expression `p`, giving the schema nodes
 * `nodes[0..n)` as upq_rows_open selects them (NULL: every field). `batch`
 * as upq_rows_open; `max_ranges` bounds the selection (0: default). The
 * predicate's columns need not be among `nodes`, but must be kept by the
 * reader's projection. No I/O here. Returns UPQ_OK, UPQ_ERR_INVAL or
 * UPQ_ERR_NOMEM (upq_reader_error() describes it).
 */
upq_status upq_scan_open(upq_scan *sc, upq_reader *r, const upq_pred *p, uint32_t rg,
                         const uint32_t *nodes, uint32_t n, size_t batch, uint64_t from,
                         uint64_t to, uint32_t max_ranges, unsigned flags);

/*
 * Goes to the next row for which the expression is TRUE (the first call
 * prunes first). Returns UPQ_OK when the row is started in
 * upq_scan_rows(sc): read its events with upq_rows_event(); UPQ_DONE after
 * the last; UPQ_AGAIN when the read callback would block (call again); or
 * an error of the row readers (upq_reader_error()).
 */
upq_status upq_scan_next(upq_scan *sc);

/* The row reader of the projected columns (valid after upq_scan_next gave UPQ_OK). */
upq_rows *upq_scan_rows(upq_scan *sc);

/* The row group's row number of the row upq_scan_next gave. */
uint64_t upq_scan_row(const upq_scan *sc);

/* Closes the row readers and gives the arena memory back. */
void upq_scan_close(upq_scan *sc);

#ifdef __cplusplus
}
#endif

#endif
