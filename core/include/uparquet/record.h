/*
 * Records: the rows of a row group, assembled from the definition and
 * repetition levels of their leaf columns (Dremel) and delivered as a stream
 * of events, one call per event.
 *
 * A row is the sequence of its selected top-level fields in schema order.
 * Each field is one item:
 *
 *   VALUE                          a leaf value
 *   NULL                           a null value of any kind
 *   BEGIN_STRUCT items END_STRUCT  a group (members in schema order)
 *   BEGIN_LIST items END_LIST      a LIST-annotated group, or a repeated
 *                                  field outside LIST/MAP (a list of
 *                                  required elements)
 *   BEGIN_MAP (key value)* END_MAP a MAP (or a MAP_KEY_VALUE group that is
 *                                  not inside a MAP)
 *
 * LIST and MAP follow the backward-compatibility rules of the format's
 * logical types: 2-level lists, repeated groups named "array" or
 * "<list>_tuple", repeated groups with several fields, and maps whose keys
 * are optional (a null key is a NULL item) or whose value field is absent
 * (every value is a NULL item with node UPQ_NONE). A LIST or MAP annotation
 * on a layout that does not have the annotated shape (not exactly one
 * repeated child; a key_value group with other than 1 or 2 fields) is
 * ignored: the group reads as a plain group.
 *
 * Memory: a plan of the selected part of the schema, and per selected leaf
 * column a column reader and one batch of `batch` levels and values, all
 * from the reader's arena: O(selected leaves x batch + pages), never
 * O(row group). No recursion: the nesting is walked with explicit stacks
 * sized from the schema.
 */
#ifndef UPARQUET_RECORD_H
#define UPARQUET_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include "column.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum upq_event_type {
    UPQ_EV_VALUE = 1,
    UPQ_EV_NULL = 2,
    UPQ_EV_BEGIN_STRUCT = 3,
    UPQ_EV_END_STRUCT = 4,
    UPQ_EV_BEGIN_LIST = 5,
    UPQ_EV_END_LIST = 6,
    UPQ_EV_BEGIN_MAP = 7,
    UPQ_EV_END_MAP = 8
} upq_event_type;

/* Where an item sits in its container. */
typedef enum upq_event_role {
    UPQ_ROLE_FIELD = 0,   /* a top-level field or a struct member (named by its node) */
    UPQ_ROLE_ELEMENT = 1, /* a list element */
    UPQ_ROLE_KEY = 2,     /* a map entry's key */
    UPQ_ROLE_VALUE = 3    /* a map entry's value */
} upq_event_role;

typedef struct upq_event {
    uint8_t type;      /* upq_event_type */
    uint8_t role;      /* upq_event_role of the item (END_* repeat their BEGIN's) */
    uint32_t node;     /* schema node of the item: its name for UPQ_ROLE_FIELD;
                          UPQ_NONE for the missing value of a map without values */
    uint32_t column;   /* VALUE: leaf column index (its type: schema.columns[column]);
                          else UPQ_NONE */
    const void *value; /* VALUE: one value in the representation of column.h;
                          valid until the next call on the same upq_rows */
} upq_event;

/* One node of the reading plan: the selected schema as it is rendered. */
typedef struct upq_rows_node {
    uint32_t schema;     /* schema node */
    uint32_t column;     /* leaf column (leaf nodes), else UPQ_NONE */
    uint32_t size;       /* plan nodes in this subtree, itself included */
    uint32_t leaf_first; /* its leaves: leaves[leaf_first .. leaf_first + leaf_count) */
    uint32_t leaf_count;
    uint16_t def;        /* not null when the definition level is at least this */
    uint16_t def_elems;  /* list/map: at least one entry at this level */
    uint16_t rep;        /* list/map: repetition level of entries after the first */
    uint8_t kind;        /* internal */
    uint8_t has_value;   /* map: the entries have a value field */
} upq_rows_node;

/* A selected leaf column: its reader, its batch and the position in it. */
typedef struct upq_rows_leaf {
    upq_column_reader col;
    upq_batch b;
    const void *vals;    /* b's values: b.values, or lent from the page (upq_column_read_lent) */
    size_t pos;          /* next level entry in b */
    size_t vpos;         /* next value in b */
    size_t vsize;        /* bytes per value */
    uint64_t skip_left;  /* rows a pending skip still passes on this column */
    uint16_t max_def, max_rep;
    uint8_t done;        /* the column chunk has no more entries */
    uint8_t full;        /* b has no null: every level is max_def (b.def may be unwritten) */
    uint8_t skip_state;  /* 0 idle, 1 skipping through the column reader, 2 done */
#if UPQ_WITH_FLAT_ROWS
    size_t taking;       /* upq_rows_fetch: values among the entries being taken */
#endif
} upq_rows_leaf;

#if UPQ_WITH_FLAT_ROWS
/* One bound column of upq_rows_bind(): where its value goes in the caller's row. */
typedef struct upq_row_binding {
    uint32_t column;      /* leaf column index: a top-level field selected in upq_rows_open */
    uint32_t offset;      /* byte offset of the value in the row struct */
    uint32_t null_offset; /* byte offset of a uint8_t: 1 for null, 0 otherwise;
                             UPQ_NONE: none (a null then reads as zero bytes) */
} upq_row_binding;
#endif

typedef struct upq_rows_frame {
    uint32_t node;  /* plan node of an open container */
    uint32_t next;  /* struct: next member's plan node */
    uint16_t er;    /* repetition level the current item's entries start with */
    uint8_t state;
    uint8_t role;
} upq_rows_frame;

/* Internals are public so the struct can live anywhere; treat as private. */
typedef struct upq_rows {
    upq_reader *r;
    uint32_t rg;
    uint64_t num_rows;       /* rows of the row group */
    uint64_t row;            /* rows started or skipped so far */
    upq_rows_node *nodes;    /* nodes[0] is the row itself */
    uint32_t num_nodes;
    upq_rows_leaf *leaves;
    uint32_t num_leaves;
    uint32_t num_open;       /* column readers opened (closed in reverse) */
    upq_rows_frame *stack;
    uint32_t depth, stack_cap;
    uint64_t skip_rows;      /* rows the pending skip passes */
    uint8_t skipping;        /* a skip is in progress (resumes after UPQ_AGAIN) */
    uint8_t stage;
#if UPQ_WITH_FLAT_ROWS
    uint8_t flat;            /* every field is a top-level leaf column (fast path) */
    uint32_t field;          /* flat: the next field's leaf */
    size_t ready;            /* flat: rows after the current one that every leaf
                                has buffered (within the row count) */
    const upq_row_binding *bind; /* upq_rows_bind: the caller's array */
    uint32_t num_bind;
    uint8_t bound;           /* upq_rows_bind succeeded */
#endif
    upq_status failed;
    upq_arena_mark mark;
} upq_rows;

/* Batch size (level entries per leaf column and read) when 0 is given. */
#define UPQ_ROWS_DEFAULT_BATCH 256u

/*
 * Prepares reading the rows of row group `rg` of an open reader.
 *
 * `nodes[0..n)` selects schema nodes (NULL: every top-level field). A
 * selected node brings its whole subtree; its ancestors come with only their
 * selected descendants (a map always keeps its keys). Fields come out in
 * schema order whatever the order of `nodes`. `batch` is the number of
 * levels read per leaf column at a time (0: UPQ_ROWS_DEFAULT_BATCH).
 *
 * All memory comes from the reader's arena above what is allocated so far;
 * upq_rows_close() gives it back. No I/O happens here. Returns UPQ_OK,
 * UPQ_ERR_INVAL (reader not open, rg or a node out of range, a column left
 * out by the reader's projection), UPQ_ERR_UNSUPPORTED (see
 * upq_column_open), UPQ_ERR_CORRUPT (negative row count) or UPQ_ERR_NOMEM;
 * upq_reader_error() has the details.
 */
upq_status upq_rows_open(upq_rows *w, upq_reader *r, uint32_t rg, const uint32_t *nodes,
                         uint32_t n, size_t batch);

/*
 * Starts the next row (the rest of an unfinished row is passed over first).
 * Returns UPQ_OK when a row is ready for upq_rows_event(), UPQ_DONE after
 * the last row, UPQ_AGAIN when the read callback would block (call again;
 * nothing is lost), or an error: those of upq_column_read(), and
 * UPQ_ERR_CORRUPT when the columns disagree (a column ends before the row
 * group's row count, holds more rows, or its levels contradict the schema
 * or the other columns), described by upq_reader_error().
 */
upq_status upq_rows_next(upq_rows *w);

/*
 * Gives the next event of the current row in *ev. Returns UPQ_OK with an
 * event, UPQ_DONE when the row is complete (no event), UPQ_AGAIN (call
 * again: the same event comes), or an error as upq_rows_next(). Values and
 * byte arrays in *ev point into the column readers' buffers and stay valid
 * until the next call on `w`.
 */
upq_status upq_rows_event(upq_rows *w, upq_event *ev);

/*
 * Passes over up to `rows` whole rows without assembling them (the rest of
 * an unfinished row is passed over first and does not count); pages that
 * lie entirely inside the skipped range are not read. *skipped gets the rows passed (fewer only at
 * the end of the row group). Returns UPQ_OK, UPQ_AGAIN (call again with the
 * same arguments) or an error as upq_rows_next().
 *
 * Right after upq_rows_open, each selected column whose chunk has an
 * OffsetIndex goes straight to the page holding the first row not skipped
 * (upq_column_seek; not with UPQ_WITH_PAGE_INDEX 0 or the reader option
 * no_page_index): rows [a, b) of a row group are upq_rows_skip(a) and then
 * b - a calls of upq_rows_next, reading no page header before the page
 * that holds row a.
 */
upq_status upq_rows_skip(upq_rows *w, uint64_t rows, uint64_t *skipped);

#if UPQ_WITH_FLAT_ROWS
/*
 * Row-wise binding (with UPQ_WITH_FLAT_ROWS): rows of top-level columns
 * copied into an array of the caller's structs, many rows per call, at
 * about the cost of the column API (upq_rows_next and upq_rows_event take
 * three calls per value).
 *
 * upq_rows_bind() says where each value goes: b[i].column's value at byte
 * b[i].offset of each row struct, in the representation of column.h
 * (BOOLEAN uint8_t 0/1, INT32 int32_t, INT64 int64_t, INT96 upq_int96,
 * FLOAT float, DOUBLE double, BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY upq_bytes;
 * copied bytewise, so no alignment is needed), and its null flag at
 * b[i].null_offset. A null value's bytes are zeroed; without a flag
 * (UPQ_NONE) nothing else tells it from a zero. Selected columns left
 * unbound are passed over; a column may be bound twice.
 *
 * The array `b` is used by every upq_rows_fetch() until the next bind or
 * upq_rows_close(): it must stay valid that long (it is checked again on
 * each fetch, so changing it is allowed). Returns UPQ_OK; UPQ_ERR_UNSUPPORTED
 * when a selected field is not a top-level leaf column (groups, lists,
 * maps, repeated fields: read those with upq_rows_event); UPQ_ERR_INVAL for
 * a column out of range or not selected in upq_rows_open, or a null flag
 * inside its own value; UPQ_ERR_STATE after close. A rejected binding
 * leaves `w` usable (nothing stays bound) with upq_reader_error() saying
 * why.
 */
upq_status upq_rows_bind(upq_rows *w, const upq_row_binding *b, uint32_t n);

/*
 * Fills up to `max` row structs of `stride` bytes each at `rows` with the
 * next rows: *got gets how many (at least one while rows remain), each
 * bound value and flag written (nothing else in the structs is touched).
 * Rows come from the batches the leaf columns have buffered; a batch is
 * read again when used up, except that once rows were filled a BYTE_ARRAY
 * or FIXED_LEN_BYTE_ARRAY binding stops the call before a refill: the
 * upq_bytes point into the reader's buffers and stay valid until the next
 * call on `w`.
 *
 * Fetching goes on at upq_rows_position(): it mixes with upq_rows_skip()
 * and upq_rows_next()/upq_rows_event() on the same `w` (the rest of a
 * started row is passed over first, as by upq_rows_next).
 *
 * Returns UPQ_OK with *got > 0; UPQ_DONE after the last row (*got 0);
 * UPQ_AGAIN with *got 0 when the read callback would block (call again:
 * nothing is lost or repeated); an error as upq_rows_next() (rows filled
 * before it come with UPQ_OK, the error with the next call); UPQ_ERR_STATE
 * without a binding or while a upq_rows_skip() is unfinished; UPQ_ERR_INVAL (`w` stays usable) when `rows` is NULL,
 * `max` is 0, `max` structs do not fit the address space, or a binding's
 * value or flag does not lie inside `stride` bytes.
 */
upq_status upq_rows_fetch(upq_rows *w, void *rows, size_t stride, size_t max, size_t *got);
#endif

/* Rows of the row group, and rows started or skipped so far. */
uint64_t upq_rows_count(const upq_rows *w);
uint64_t upq_rows_position(const upq_rows *w);

/* Closes the column readers and gives the arena memory back (everything
 * allocated since upq_rows_open). Safe on a failed open. */
void upq_rows_close(upq_rows *w);

#ifdef __cplusplus
}
#endif

#endif
