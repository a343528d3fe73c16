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
    UPQ_PRED_NOT,         /* pops one */
    UPQ_PRED_LIKE,        /* the column's bytes match the pattern values[0]: '%' any run,
                             '_' one UTF-8 character; with n 2, values[1] (one byte)
                             escapes the character after it */
    UPQ_PRED_DISTINCT,    /* IS DISTINCT FROM values[0]: TRUE or FALSE, a NULL value is
                             distinct from every literal */
    UPQ_PRED_NOT_DISTINCT, /* IS NOT DISTINCT FROM values[0] */
    UPQ_PRED_CONST        /* pushes the constant `n` (UPQ_PRED_FALSE, _TRUE or _NULL below);
                             no column, no values */
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

/* Or'ed into a comparison's, IN's or DISTINCT's op: the integer or decimal
 * column's values are compared as DOUBLEs with values[k].d (DuckDB's reading
 * of `i > 1e3`, the unscaled value over a power of ten for decimals). */
#define UPQ_PRED_AS_DOUBLE 0x80u
/* A node's operator without that flag. */
#define UPQ_PRED_OP(op) ((uint8_t)((op) & 0x7Fu))

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
 * (FIXED_LEN_BYTE_ARRAY other than plain binary), LIKE only on byte-ordered
 * columns (strings, binary) with an escape of one byte. Sets p->depth. Returns UPQ_OK or UPQ_ERR_INVAL
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

/* ---- building an expression ------------------------------------------------
 *
 * The builder writes the postfix nodes into caller arrays as SQL reads from
 * left to right, and turns literals given as C values into the column's
 * representation the way DuckDB coerces them, so that a condition means what
 * it means in SQL whatever the column's type:
 *
 *   upq_pred_builder b;
 *   upq_pred p;
 *   upq_pred_begin(&b, schema, nodes, 32, values, 32, bytes, sizeof bytes);
 *   upq_pred_timestamp(&b, ts, UPQ_PRED_GE, 1717200000, 0);   -- ts >= '2024-06-01'
 *   upq_pred_int(&b, temp, UPQ_PRED_GT, 30);                  -- temp > 30
 *   upq_pred_and(&b);
 *   if (upq_pred_end(&b, &p) != UPQ_OK) ... b.what says why, b.node where
 *
 * Literal functions take an operator: EQ, NE, LT, LE, GT, GE, DISTINCT,
 * NOT_DISTINCT, or IN between upq_pred_in_begin and upq_pred_in_end. What
 * DuckDB does with a literal that is not a value of the column is done here
 * with the same outcome and no error: an integer out of the column's range
 * (`i8 < 200` is TRUE for every non-null row), a fraction on an integer or
 * decimal column (`i > 5.5` is `i >= 6`, `i = 5.5` is never TRUE), a
 * timestamp finer than the column's unit; an IN member that no value can
 * equal is dropped, a NULL member makes a miss NULL instead of FALSE.
 * Comparisons whose outcome is fixed by the literal become constants
 * (UPQ_PRED_CONST) combined with IS [NOT] NULL, so NOT keeps SQL's meaning.
 *
 * The first error sticks: later calls do nothing, upq_pred_end returns it
 * with b.what and b.node (the node count when it happened). Byte literals
 * (strings, patterns) are not copied: they must outlive the predicate. The
 * `bytes` area holds values the builder makes itself (DECIMAL and FLOAT16
 * on FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY: at most 16 bytes each); it may be
 * NULL when no such column is compared.
 */
typedef struct upq_pred_builder {
    const upq_schema *s;
    upq_pred_node *nodes;
    uint32_t ncap, nn;
    upq_value *values;
    uint32_t vcap, nv;
    uint8_t *bytes;
    size_t bcap, bused;
    uint32_t sp;           /* operands the nodes so far leave */
    uint32_t in_node;      /* the IN list being built, UPQ_NONE when none */
    uint8_t in_null;       /* it holds a NULL */
    uint8_t in_not;        /* NOT IN */
    uint8_t in_cast;       /* a DOUBLE member: the list compares as DOUBLE */
    uint32_t in_cast_from; /* members before this one are as stored */
    upq_status st;         /* the first error, UPQ_OK */
    const char *what;      /* its description (static text) */
    uint32_t node;         /* nodes written when it happened */
} upq_pred_builder;

void upq_pred_begin(upq_pred_builder *b, const upq_schema *s, upq_pred_node *nodes,
                    uint32_t ncap, upq_value *values, uint32_t vcap, void *bytes, size_t bcap);

/*
 * Finishes: *p gets the expression (pointing into the caller's arrays),
 * checked (upq_pred_check). Returns UPQ_OK, UPQ_ERR_INVAL (a literal that
 * cannot be compared with its column, an operator without operands, an
 * unfinished IN list, ...) or UPQ_ERR_NOMEM (the arrays are full); b->what
 * says which.
 */
upq_status upq_pred_end(upq_pred_builder *b, upq_pred *p);

/* A literal already in the column's representation, compared as stored. */
void upq_pred_value(upq_pred_builder *b, uint32_t column, int op, const upq_value *v);
/* An integer literal (SQL's INTEGER / BIGINT / UBIGINT): integer, decimal and
 * float columns; on DATE, TIME and TIMESTAMP columns the stored integer;
 * BOOLEAN: 0 is false, anything else true. */
void upq_pred_int(upq_pred_builder *b, uint32_t column, int op, int64_t v);
void upq_pred_uint(upq_pred_builder *b, uint32_t column, int op, uint64_t v);
/* A DOUBLE literal (SQL's 1e3): compared by its exact value with integer,
 * decimal and float columns (a FLOAT column widened, as DuckDB does); NaN is
 * above every number and equal to itself. */
void upq_pred_double(upq_pred_builder *b, uint32_t column, int op, double v);
/* A DECIMAL literal, as text: [+-]digits[.digits], at most 38 digits.
 * Exact against integer and decimal columns (trailing zeros are fine); cast
 * to the column's type for FLOAT and DOUBLE columns, as DuckDB casts it. */
void upq_pred_decimal(upq_pred_builder *b, uint32_t column, int op, const char *text,
                      size_t len);
/* Strings and binary: BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns that
 * compare bytes (UUID: its 16 bytes), byte-wise unsigned. */
void upq_pred_bytes(upq_pred_builder *b, uint32_t column, int op, const void *p, size_t len);
void upq_pred_bool(upq_pred_builder *b, uint32_t column, int op, int v);
/* An instant or local date-time, seconds and nanoseconds since 1970-01-01
 * 00:00:00: TIMESTAMP (any unit), INT96 and DATE columns, exactly (a date
 * column holds midnights). */
void upq_pred_timestamp(upq_pred_builder *b, uint32_t column, int op, int64_t seconds,
                        uint32_t nanos);
/* A time of day in nanoseconds: TIME columns (any unit). */
void upq_pred_time(upq_pred_builder *b, uint32_t column, int op, int64_t nanos);
/* SQL's NULL literal: a comparison with it is NULL; IS [NOT] DISTINCT FROM
 * NULL is IS [NOT] NULL; in an IN list, see above. */
void upq_pred_null(upq_pred_builder *b, uint32_t column, int op);

void upq_pred_is_null(upq_pred_builder *b, uint32_t column, int is_not);
/* column LIKE pattern; escape: an escape byte, or -1 for none. */
void upq_pred_like(upq_pred_builder *b, uint32_t column, const void *pattern, size_t len,
                   int escape);
/* column [NOT] IN (...): the members are the literal calls that follow with
 * op UPQ_PRED_IN, until upq_pred_in_end. DuckDB gives a list one type: with
 * a DOUBLE member (upq_pred_double) every member of an integer or decimal
 * column compares as DOUBLE; say so with `as_double` (else members placed
 * before the first DOUBLE one keep their exact meaning). */
void upq_pred_in_begin(upq_pred_builder *b, uint32_t column, int is_not, int as_double);
void upq_pred_in_end(upq_pred_builder *b);

void upq_pred_and(upq_pred_builder *b);
void upq_pred_or(upq_pred_builder *b);
void upq_pred_not(upq_pred_builder *b);
/* TRUE, FALSE or NULL: UPQ_PRED_TRUE, UPQ_PRED_FALSE, UPQ_PRED_NULL. */
void upq_pred_const(upq_pred_builder *b, int v);

/* A row range [begin, end) within a row group. */
typedef struct upq_row_range {
    uint64_t begin, end;
} upq_row_range;

typedef struct upq_row_set {
    upq_row_range *v;
    uint32_t n, cap;
} upq_row_set;

/* What a scan did (upq_scan.stats), for the caller's diagnostics. Counts
 * add up over the row groups a scan passes. */
typedef struct upq_scan_stats {
    uint32_t row_groups;       /* row groups the scan looked at (within its rows) */
    uint32_t pruned_stats;     /* row groups pruned by statistics */
    uint32_t pruned_bloom;     /* ... by a bloom filter */
    uint32_t pruned_dict;      /* ... because no dictionary value matches */
    uint32_t pruned_pages;     /* ... because no page can match */
    uint32_t leaves_paged;     /* leaf nodes whose column's page index was used */
    uint32_t leaves_no_index;  /* leaf nodes without a usable page index */
    uint32_t index_rejected;   /* ... of them, page indexes that failed their checks */
    uint64_t rows_selected;    /* rows in the selections after pruning */
    uint64_t rows_tested;      /* rows whose predicate columns were read */
    uint64_t rows_matched;     /* rows given */
    uint32_t reopens;          /* row readers reopened to jump over a gap */
    /* the last page index that failed its checks (index_rejected > 0): why,
     * and where (row group, leaf column, page or -1) */
    upq_status index_status;
    const char *index_what;
    int32_t index_rg, index_column, index_page;
} upq_scan_stats;

/* Flags of upq_scan_opts / upq_scan_open. */
enum {
    UPQ_SCAN_NO_FILTER = 1,    /* give every row of the selection (pruning only) */
    UPQ_SCAN_NO_BLOOM = 2,     /* do not read bloom filters */
    UPQ_SCAN_NO_PAGES = 4,     /* do not read page indexes */
    UPQ_SCAN_NO_DICT = 8       /* do not read dictionary pages to prune */
};

/*
 * A scan over a whole file, as upq_scan_begin takes it. Zero it first:
 * every field's default is 0. Columns are leaf column indices everywhere
 * (the predicate's, these, upq_row_binding's; upq_schema_find_column and
 * upq_schema_find_column_nocase find them by name).
 */
typedef struct upq_scan_opts {
    const upq_pred *where;     /* the condition (upq_pred_end or upq_pred_check made it),
                                  NULL: every row */
    const uint32_t *columns;   /* leaf columns whose fields the rows give, in schema order
                                  whatever the order here (a leaf inside a struct brings
                                  the struct with its selected leaves); NULL: every column */
    uint32_t num_columns;
    size_t batch;              /* levels read per column at a time (0: UPQ_ROWS_DEFAULT_BATCH) */
    uint64_t first_row;        /* file rows [first_row, end_row) only; */
    uint64_t end_row;          /* end_row 0: to the end of the file */
    uint32_t max_ranges;       /* row ranges a row group's selection holds (0: the default) */
    unsigned flags;            /* UPQ_SCAN_NO_* */
} upq_scan_opts;

/* Internals are public so the scan can live anywhere; treat as private. */
typedef struct upq_scan {
    upq_reader *r;
    const upq_pred *p;          /* NULL: every row */
    uint32_t rg;                /* the row group being scanned */
    uint32_t rg_end;            /* row groups [.., rg_end) */
    uint8_t one_rg;             /* upq_scan_open: one row group, rows as given */
    const uint32_t *out_nodes;  /* schema nodes the output reader selects */
    uint32_t out_n;
    size_t batch;
    unsigned flags;
    uint64_t file_from, file_to; /* file rows asked for */
    uint64_t base;              /* file row of row group rg's first row */
    uint64_t num_rows, from, to; /* row group rg: its rows, and those to scan */
    uint8_t stage, sub;
    upq_status failed;
    uint32_t depth;             /* the predicate's evaluation stack */
    uint32_t pc;                /* node being worked on (pruning) */
    uint8_t bits[UPQ_PRED_MAX_DEPTH]; /* row-group pruning: per slot may-true | may-false */
    uint32_t sp;
    upq_row_set sel;            /* the selection */
    upq_row_set *stack;         /* page pruning: 2 sets per slot (may-true, may-false) */
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
    uint8_t hits;               /* this row group: a bloom filter (1), a dictionary (2) pruned */
    uint32_t range;             /* current selection range */
    uint64_t row;               /* next row of the row group the predicate reader gives */
    uint64_t out_pos;           /* next row the output reader gives */
    uint64_t cur;               /* the row being given */
    uint32_t last_rg;           /* the last row given: its row group, row, first file row */
    uint64_t last_row, last_base;
#if UPQ_WITH_FLAT_ROWS
    const upq_row_binding *bind; /* upq_scan_bind */
    uint32_t num_bind;
    /* the upq_scan_fetch under way: where its rows go and how many it has
     * filled (here, not on the stack under the reads) */
    uint8_t *f_rows;
    size_t f_stride, f_max, f_got;
#endif
    upq_scan_stats stats;
    upq_arena_mark mark, work_mark;
} upq_scan;

/*
 * Prepares a scan of the rows of a whole file (within opts->first_row and
 * end_row) for which opts->where is TRUE, row group after row group; with
 * on-demand row groups (upq_reader_opts.row_groups) each is loaded as the
 * scan reaches it, so memory does not grow with their number. Each row
 * group is pruned (statistics, bloom filters, dictionaries, then pages by
 * the page index) before any row is read. The predicate's columns need not
 * be among opts->columns but must be kept by the reader's projection.
 * Memory: the reader's arena (see above), given back by upq_scan_close.
 * No I/O here. Returns UPQ_OK, UPQ_ERR_INVAL (a predicate that does not
 * check, a column out of range or not projected) or UPQ_ERR_NOMEM;
 * upq_reader_error() describes it.
 */
upq_status upq_scan_begin(upq_scan *sc, upq_reader *r, const upq_scan_opts *opts);

/*
 * One row group only: rows [from, to) of row group `rg` (to beyond the row
 * count: to its end) for the checked expression `p`, giving the schema
 * nodes `nodes[0..n)` as upq_rows_open selects them (NULL: every field).
 * `batch` as upq_rows_open; `max_ranges` bounds the selection (0:
 * default). With on-demand row groups, load `rg` first. Returns as
 * upq_scan_begin.
 */
upq_status upq_scan_open(upq_scan *sc, upq_reader *r, const upq_pred *p, uint32_t rg,
                         const uint32_t *nodes, uint32_t n, size_t batch, uint64_t from,
                         uint64_t to, uint32_t max_ranges, unsigned flags);

/*
 * Goes to the next row for which the expression is TRUE (the first call in
 * a row group prunes first). Returns UPQ_OK when the row is started in
 * upq_scan_rows(sc): read its events with upq_rows_event(); UPQ_DONE after
 * the last; UPQ_AGAIN when the read callback would block (call again); or
 * an error of the row readers or of loading a row group
 * (upq_reader_error()). Errors are final.
 */
upq_status upq_scan_next(upq_scan *sc);

/*
 * A planner for a scan: after upq_scan_begin, runs the scan to its end
 * without handing rows out and gives in *need the arena size that opening
 * the file and running this scan take: the arena's high-water mark since
 * upq_reader_init, every reader, page, dictionary, page index, bloom filter
 * and on-demand row group included. The reader must have been opened with
 * the options the real run will use (row groups on demand or not), in an
 * arena large enough for the scan (on a host: a generous one). The same open
 * and scan in exactly *need bytes then succeed. Exact for this file, at the
 * cost of the scan's reads (rows are assembled but not looked at).
 * Resumable: UPQ_AGAIN, call again. Returns UPQ_OK, or the scan's error.
 */
upq_status upq_scan_plan(upq_scan *sc, size_t *need);

#if UPQ_WITH_FLAT_ROWS
/*
 * Row-wise binding for scans whose fields are all top-level columns, as
 * upq_rows_bind and upq_rows_fetch do it (see record.h): upq_scan_bind says
 * where each leaf column's value and null flag go in the caller's struct;
 * upq_scan_fetch fills up to `max` structs with the next matching rows
 * (*got of them, at least one while rows remain; UPQ_DONE with *got 0 after
 * the last; UPQ_AGAIN with *got 0 when the read callback would block).
 * Byte arrays point into the reader's buffers until the next call on the
 * scan. Bind before the first fetch; fetching and upq_scan_next do not mix.
 * upq_scan_bind returns UPQ_OK, UPQ_ERR_INVAL (a column not among the
 * scan's) or UPQ_ERR_STATE; fetch's errors are upq_scan_next's and
 * upq_rows_fetch's.
 */
upq_status upq_scan_bind(upq_scan *sc, const upq_row_binding *b, uint32_t n);
upq_status upq_scan_fetch(upq_scan *sc, void *rows, size_t stride, size_t max, size_t *got);
#endif

/* The row reader of the projected columns (valid after upq_scan_next gave UPQ_OK). */
upq_rows *upq_scan_rows(upq_scan *sc);

/* The last row upq_scan_next (or upq_scan_fetch) gave: its row group, its
 * row number in the row group, and in the file. */
uint32_t upq_scan_row_group(const upq_scan *sc);
uint64_t upq_scan_row(const upq_scan *sc);
uint64_t upq_scan_file_row(const upq_scan *sc);

/* Closes the row readers and gives the arena memory back. */
void upq_scan_close(upq_scan *sc);

#ifdef __cplusplus
}
#endif

#endif
