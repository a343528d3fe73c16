/*
 * Page index reading: a column chunk's OffsetIndex (where each data page
 * is and which row it starts with) and ColumnIndex (per-page null flags,
 * min/max bytes, boundary order, null counts, level histograms), one chunk
 * at a time.
 *
 * Each structure is one module in the file, outside the footer: it is read
 * whole (usually one read_at call) into the reader's arena, decrypted and
 * authenticated first when the column is encrypted (modules OffsetIndex and
 * ColumnIndex, AADs with the row group and column ordinals), then decoded
 * with the Thrift descriptors of meta.h and checked against the chunk.
 * Memory: the module's bytes plus the decoded lists, O(pages of the chunk);
 * upq_page_index_close() gives it back.
 *
 * Min/max values stay raw bytes here; interpreting them by logical type is
 * the statistics code's business.
 */
#ifndef UPARQUET_PAGE_INDEX_H
#define UPARQUET_PAGE_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which structure a upq_page_index reads. */
typedef enum upq_page_index_kind {
    UPQ_PAGE_INDEX_OFFSET = 0, /* OffsetIndex */
    UPQ_PAGE_INDEX_COLUMN = 1  /* ColumnIndex */
} upq_page_index_kind;

/* Largest page index module read (bytes): a longer one is UPQ_ERR_LIMIT. */
#ifndef UPQ_PAGE_INDEX_MAX_MODULE
#define UPQ_PAGE_INDEX_MAX_MODULE (64u << 20)
#endif

/* Internals are public so the struct can live on the stack; treat them as
 * private. */
typedef struct upq_page_index {
    upq_reader *r;
    uint32_t rg, col;
    uint8_t kind;             /* upq_page_index_kind */
    uint8_t stage;
    uint64_t off;             /* file offset of the module */
    uint32_t len, fill;       /* module bytes, and how many are read */
    uint8_t *buf;             /* the module (arena) */
    uint64_t chunk_start, chunk_end; /* the chunk's bytes, as its metadata states */
    int64_t num_rows;         /* rows of the row group */
    const struct upq_aes_key *key; /* NULL: a plaintext module */
    int32_t rg_ord;
    upq_offset_index oi;
    upq_column_index ci;
    upq_arena_mark mark;      /* arena position at open, restored by close */
} upq_page_index;

/*
 * Prepares reading the OffsetIndex or ColumnIndex of leaf column `column`
 * in row group `rg` of an open reader. No I/O happens here. Returns UPQ_OK;
 * UPQ_DONE when the chunk has no such structure; UPQ_ERR_INVAL (bad index,
 * a column not kept by the projection); UPQ_ERR_AUTH / UPQ_ERR_UNSUPPORTED
 * (an encrypted column without its key / without decryption in this build);
 * UPQ_ERR_NOMEM (room for the column key); UPQ_ERR_CORRUPT (an offset or
 * length outside the file's data); UPQ_ERR_LIMIT (a module above
 * UPQ_PAGE_INDEX_MAX_MODULE). Errors are described by upq_reader_error().
 */
upq_status upq_page_index_open(upq_page_index *p, upq_reader *r, uint32_t rg, uint32_t column,
                               upq_page_index_kind kind);

/*
 * Reads, authenticates (encrypted columns), decodes and checks the
 * structure. Returns UPQ_OK; UPQ_AGAIN when the read callback would block
 * (call again); UPQ_ERR_CORRUPT for a malformed structure or one that
 * disagrees with its chunk (see upq_offset_index_check and
 * upq_column_index_check; the error info names the row group, the column
 * and what is wrong); UPQ_ERR_AUTH (the module fails authentication);
 * UPQ_ERR_NOMEM (upq_arena_needed() tells the size); UPQ_ERR_LIMIT;
 * UPQ_ERR_IO / UPQ_ERR_TRUNCATED.
 */
upq_status upq_page_index_load(upq_page_index *p);

/* After a successful load: the decoded structure (in the arena), or NULL
 * when the other kind was loaded. */
const upq_offset_index *upq_page_index_offsets(const upq_page_index *p);
const upq_column_index *upq_page_index_columns(const upq_page_index *p);

/* Gives the arena memory back (rewinds to where open found it). */
void upq_page_index_close(upq_page_index *p);

/*
 * Checks an OffsetIndex against its chunk: at least one page; every page
 * inside [chunk_start, chunk_end) with a positive size; pages sorted by
 * offset and not overlapping; first_row_index 0 for the first page, then
 * strictly increasing and below num_rows; the last page ending where the
 * chunk ends (an index that stops short misses pages); unencoded_byte_array_data_bytes,
 * when present, one per page. Returns UPQ_OK, or UPQ_ERR_CORRUPT with
 * *what naming the first problem and *page its page (-1: none).
 */
upq_status upq_offset_index_check(const upq_offset_index *oi, uint64_t chunk_start,
                                  uint64_t chunk_end, int64_t num_rows, const char **what,
                                  int32_t *page);

/*
 * Checks a ColumnIndex against the page count of its OffsetIndex and the
 * column's maximum levels: null_pages, min_values, max_values, null_counts
 * and nan_counts (when present) one per page, a known boundary_order,
 * level histograms (when present) pages x (max level + 1) long. Returns
 * UPQ_OK or UPQ_ERR_CORRUPT with *what naming the problem.
 */
upq_status upq_column_index_check(const upq_column_index *ci, uint32_t pages, uint16_t max_rep,
                                  uint16_t max_def, const char **what);

/*
 * Checks a ColumnIndex against the chunk it describes before anything in it
 * is trusted, with the OffsetIndex `oi` (checked) giving each page's rows:
 * upq_column_index_check with oi's page count; per page, a null page without
 * min/max and with no fewer nulls than rows, null and NaN counts within the
 * page's rows (flat columns), min/max of the width of the column's physical
 * type (FIXED_LEN_BYTE_ARRAY: at most type_length) and min not above max,
 * level histograms that agree with the rows and null counts; the bounds in
 * the declared boundary order; the null counts adding up to the chunk
 * statistics' null_count. What no check can see is an index that is well
 * formed and consistent but lies (bounds that exclude values the page
 * holds, another column's index): such a file gives wrong answers to every
 * reader that uses page indexes. Returns UPQ_OK, or UPQ_ERR_CORRUPT with
 * *what naming the first problem and *page its page (-1: the chunk).
 */
upq_status upq_column_index_verify(const upq_reader *r, uint32_t rg, uint32_t column,
                                   const upq_offset_index *oi, const upq_column_index *ci,
                                   const char **what, int32_t *page);

/*
 * Of an OffsetIndex that passed upq_offset_index_check: the page holding
 * row `row` (the last one whose first_row_index is at most `row`).
 */
uint32_t upq_offset_index_find(const upq_offset_index *oi, uint64_t row);

#ifdef __cplusplus
}
#endif

#endif
