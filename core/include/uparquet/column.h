/*
 * Column reading: one column chunk, page by page, into caller batches.
 *
 * Values come out packed (nulls have a definition level but no value), in
 * the column's physical representation:
 *   BOOLEAN uint8_t (0/1), INT32 int32_t, INT64 int64_t, INT96 upq_int96,
 *   FLOAT float, DOUBLE double, BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY upq_bytes.
 * Byte arrays point into the reader's page buffers and stay valid until the
 * next read or skip on the same column reader.
 */
#ifndef UPARQUET_COLUMN_H
#define UPARQUET_COLUMN_H

#include <stddef.h>
#include <stdint.h>
#include "reader.h"
#include "private.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One read's worth of levels and values; the caller owns every array. */
typedef struct upq_batch {
    uint16_t *def;   /* room for `cap` levels; may be NULL when the column's max_def is 0 */
    uint16_t *rep;   /* room for `cap` levels; may be NULL when the column's max_rep is 0 */
    void *values;    /* room for `cap` values (see the representation above) */
    size_t cap;      /* most level entries to produce */
    size_t levels;   /* out: level entries produced (one per value slot, null or not) */
    size_t values_n; /* out: values produced (the non-null slots) */
} upq_batch;

/* Bytes one value occupies in a batch's values array (0 for unknown types). */
size_t upq_value_size(int32_t physical_type);

/* The column reader's internals are public so it can live on the stack or
 * in static memory; treat them as private. */

/* What the workspace planner gathers while it scans a chunk's page headers. */
typedef struct upq_scan_sizes {
    size_t block, dict;  /* the largest page block, and the dictionary */
    size_t cap, sum;     /* the page block as reading would grow it, and every block it
                            would take when it cannot grow in place */
    size_t codec;        /* codec working memory of the largest page (BROTLI's grows with it) */
} upq_scan_sizes;

/* Nesting a page header may have: PageHeader > DataPageHeader > Statistics
 * is 3; the rest leaves room for structs a later format version may add
 * (they are skipped, but skipping needs a frame per level). Each frame is
 * part of every column reader, so the stack is not UPQ_THRIFT_MAX_DEPTH. */
#ifndef UPQ_PAGE_HEADER_DEPTH
#define UPQ_PAGE_HEADER_DEPTH 6
#endif

typedef struct upq_column_reader {
    upq_reader *r;
    const upq_column_desc *cd;
    const upq_column_metadata *m;
    uint32_t rg, col;
    int32_t page_no;          /* ordinal of the current page in the chunk */
    uint8_t stage;
    uint8_t v2;               /* current page is DATA_PAGE_V2 */
    uint8_t rep_bp, def_bp;   /* levels use deprecated BIT_PACKED */
    uint8_t row_start_due;    /* the next repetition level must be 0 (chunk or v2 page start) */
    uint8_t v2_compressed;    /* the writer compressed v2 pages whatever is_compressed says */
    uint64_t chunk_end;       /* file offset just past the chunk */
    uint64_t pos;             /* next file offset to read */
    uint64_t values_left;     /* level entries of the chunk not yet seen in a page header */
    uint64_t skip_left;       /* rows a pending skip still has to pass */
    uint64_t skip_rows;       /* rows the pending skip was asked for */
    uint8_t skipping;         /* a skip is in progress (resumes after UPQ_AGAIN) */
    uint8_t def_if_nulls;     /* upq_column_def_if_nulls */
    uint8_t def_skip;         /* this read may leave def unwritten (and did, after it) */
    /* read-ahead window over the chunk */
    uint8_t *win;
    uint32_t win_len, win_fill, win_used;
    /* page header */
    upq_tdec tdec;
    upq_tframe tframes[UPQ_PAGE_HEADER_DEPTH];
    upq_page_header ph;
    uint64_t page_off;        /* file offset of the current page header */
    /* page body */
    uint8_t *block;           /* one allocation holding the page buffers below */
    size_t block_cap;
    uint8_t *raw;             /* body as stored (compressed) */
    uint32_t body_len, body_fill;
    uint8_t *page;            /* decompressed body (or == raw) */
    /* dictionary */
    uint8_t *dict_buf;
    uint8_t *dict_vals;       /* room for the decoded dictionary values */
    size_t dict_vals_cap;
    upq_dict dict;
    uint8_t has_dict;
    /* current data page */
    uint32_t levels_left;     /* level entries left in the page */
    upq_rle_dec rep_rle, def_rle;
    upq_bitpacked_dec rep_bpd, def_bpd;
    upq_values_dec vals;
    uint8_t *prev_buf;        /* DELTA_BYTE_ARRAY previous value */
    size_t prev_cap;
    upq_vbuf vb;              /* values built while decoding (valid until the next read) */
    upq_arena_mark mark;      /* arena position at open, restored by close */
    /* encryption (key NULL: the chunk is not encrypted) */
    const struct upq_aes_key *key;
    upq_cstream *hs;          /* the current encrypted page header (arena) */
    int32_t rg_ord;           /* row group ordinal for AADs */
    int32_t data_pages;       /* data pages seen: the next data page's ordinal */
    int32_t page_ord;         /* the current page's ordinal (-1 for a dictionary page) */
    uint8_t hs_started, hs_done;
    /* workspace planning: page headers only */
    /* workspace planning reads page headers only and gathers sizes here
     * (NULL: reading); a pointer keeps each reader small */
    struct upq_scan_sizes *scan;
#if UPQ_WITH_PAGE_INDEX
    /* seeking through the OffsetIndex (upq_column_seek) */
    uint8_t seek_stage;       /* 0 idle, 1 loading the index, 2 skipping to the row */
    uint8_t jump_pending;     /* go to jump_off once the dictionary page (if any) is read */
    uint8_t jumped;           /* pages before jump_off were never read: the chunk ends at data_end */
    uint8_t jump_check;       /* the next page header must span jump_size bytes */
    uint8_t index_used;       /* the last seek chose its page from the OffsetIndex */
    uint8_t whole_page;       /* 1: read the jumped-to page whole into the page block,
                                 which serves as the window; 2: done, its own window
                                 (win_own) comes back with the next fill */
    uint8_t *win_own;
    uint32_t win_own_len;
    int32_t jump_page;        /* ordinal of the target page among the chunk's data pages */
    uint32_t jump_size;       /* its compressed_page_size in the index (header included) */
    uint64_t jump_off;        /* its file offset */
    uint64_t jump_row;        /* its first_row_index */
    uint64_t jump_rows;       /* rows it holds per the index (up to the next page's first row) */
    uint64_t jump_skipped;    /* rows the jump passed (given back if the page is not as indexed) */
    uint64_t resume_off;      /* where the jump left from, and its page ordinal */
    int32_t resume_page;
    uint64_t first_data;      /* offset of the first data page per the index */
    uint64_t data_end;        /* file offset just past the last data page per the index */
    void *pidx;               /* the index being loaded (arena; released once it is read) */
    upq_status pidx_status;   /* UPQ_OK, or why the index was not used (header scan instead) */
    const char *pidx_what;
#endif
} upq_column_reader;

/*
 * Prepares reading leaf column `column` of row group `rg` of an open reader.
 * Page buffers come from the reader's arena, above everything allocated so
 * far; upq_column_close() gives them back (close column readers in the
 * reverse order of opening). Returns UPQ_OK, UPQ_ERR_INVAL (bad index, or a
 * column not kept by the projection), UPQ_ERR_UNSUPPORTED (codec not in
 * this build, column data in another file, encrypted column in a build
 * without crypto), UPQ_ERR_AUTH (encrypted column whose key the
 * upq_decrypt_opts callback does not give), or UPQ_ERR_NOMEM. Encrypted
 * page headers and pages are authenticated (GCM) before they are used;
 * a mismatch is UPQ_ERR_AUTH from upq_column_read.
 */
upq_status upq_column_open(upq_column_reader *c, upq_reader *r, uint32_t rg, uint32_t column);

/*
 * Reads up to b->cap level entries and their values. Returns UPQ_OK with
 * b->levels > 0; UPQ_DONE when the chunk has no more values (b->levels 0);
 * UPQ_AGAIN when the read callback would block before anything was produced
 * (call again); or an error, described by upq_reader_error() (row group,
 * column, page and file offset): UPQ_ERR_CORRUPT, UPQ_ERR_CRC,
 * UPQ_ERR_UNSUPPORTED, UPQ_ERR_NOMEM (upq_arena_needed() tells the size),
 * UPQ_ERR_LIMIT, UPQ_ERR_IO.
 */
upq_status upq_column_read(upq_column_reader *c, upq_batch *b);

/*
 * upq_column_read, except that INT32, INT64, FLOAT and DOUBLE values of a
 * PLAIN page may be lent rather than copied: *values gets where the batch's
 * b->values_n values are, either inside the reader's page buffer (or the
 * bytes upq_io.lend lent), when the page holds them in the batch's
 * representation (a little-endian target, aligned for the type: a
 * required column's values, or those after a page's levels when their
 * length keeps the alignment), or b->values, filled as upq_column_read
 * fills it. Lent values stay valid until the next read, skip, seek or
 * close of this column reader, like byte arrays; b->values must still have
 * room for b->cap values. A lent batch ends with its page, so it may hold
 * fewer levels than one upq_column_read would. Builds without
 * UPQ_WITH_LEND always copy. Returns as upq_column_read (UPQ_ERR_INVAL
 * without `values`).
 */
upq_status upq_column_read_lent(upq_column_reader *c, upq_batch *b, const void **values);

/*
 * After upq_column_open: nonzero makes later reads write b->def only for a
 * batch with a null (b->values_n < b->levels). A batch without one
 * (values_n == levels, so every level is the column's max_def) leaves def
 * as it was: a caller that checks values_n == levels before it reads def
 * is spared filling it, which is much of reading a column without nulls
 * (a BOOLEAN's levels are twice its values' bytes). Off after open. Builds
 * without UPQ_WITH_LEND write def all the same.
 */
void upq_column_def_if_nulls(upq_column_reader *c, int on);

/*
 * Skips `rows` rows (records: for repeated columns, a row spans all levels up
 * to the next repetition level 0). *skipped gets the rows actually skipped
 * (fewer only at the end of the chunk). Whole pages are skipped without
 * reading or decompressing them where their headers show they lie inside
 * the skipped range. Returns like upq_column_read (UPQ_OK when done).
 */
upq_status upq_column_skip(upq_column_reader *c, uint64_t rows, uint64_t *skipped);

/*
 * Moves a freshly opened column reader to row `row` of its chunk: like
 * upq_column_skip(c, row, skipped), but when the chunk has an OffsetIndex
 * (and the build UPQ_WITH_PAGE_INDEX) it reads that index, goes straight to
 * the page whose first_row_index is the largest at most `row` (after the
 * dictionary page, when the chunk has one) and skips values only within
 * that page: no other page header is read. For repeated columns rows are
 * records (first_row_index counts them; pages of a chunk with an
 * OffsetIndex start records). The index's memory is given back once the
 * page is chosen. An index that cannot be used (malformed, disagreeing with
 * the chunk, too large for the arena) is not an error: the reader falls
 * back to the header scan of upq_column_skip and upq_column_seek_info()
 * says why; so does one whose target page is not what it says (no page
 * header decodes there, or its size, or the row count a flat or v2 page
 * states, differs): the reader goes back to the first data page and scans.
 * What cannot be checked is the first_row_index of a v1 page of a
 * repeated column, which is taken on the index's word (in encrypted files
 * the index is authenticated). A reader that has read or skipped already
 * just skips. Returns like upq_column_skip; UPQ_ERR_AUTH when an encrypted
 * index fails authentication.
 */
upq_status upq_column_seek(upq_column_reader *c, uint64_t row, uint64_t *skipped);

/*
 * After upq_column_seek: 1 when it went through the OffsetIndex, 0 when it
 * scanned page headers; *why (may be NULL) gets UPQ_OK, UPQ_DONE (the chunk
 * has no OffsetIndex, or seeking was not needed) or the status that made
 * the index unusable, *what (may be NULL) its description.
 */
int upq_column_seek_info(const upq_column_reader *c, upq_status *why, const char **what);

/* Releases the column's arena memory (rewinds to where open found it). */
void upq_column_close(upq_column_reader *c);

/* upq_value_size() (encoding.h) gives the bytes one value takes in `values`. */

/* What reading a file's projected columns needs from the arena. */
typedef struct upq_workspace {
    /* input: the batch row-wise reading will use (0: UPQ_ROWS_DEFAULT_BATCH) */
    size_t batch;
    /* results */
    size_t footer;       /* the open reader: footer, schema, column map */
    size_t sequential;   /* enough to read every column chunk on its own, one at a time
                            (upq_column_*): footer + the largest chunk's reader */
    size_t concurrent;   /* enough for row-wise reading of every projected column
                            (upq_rows_open with the projected leaves, `batch`): footer +
                            the row reader + each chunk's buffers as they grow side by
                            side; 0 when upq_rows_open refuses the projection (e.g. a
                            map's values without its keys) or the build has no row
                            reader (UPQ_WITH_ROWS 0) */
    size_t largest_column, largest_row_group, codec;
    /* scanning state */
    upq_column_reader c;
    upq_scan_sizes sizes;
    uint32_t rg, col;
    size_t rg_sum, rows;
    size_t win0;         /* the read windows of row group 0 (counted in rows) */
    size_t top;          /* largest on-demand row group (reader.h), at the arena's high end */
    upq_arena_mark mark;
    uint8_t started, open;
} upq_workspace;

void upq_workspace_init(upq_workspace *ws);

/*
 * Reads the page headers (not the pages) of every projected column chunk of
 * an open reader and computes the arena size reading needs: `sequential` for
 * one column reader at a time, `concurrent` for all projected columns of a
 * row group at once. Resumable (UPQ_AGAIN); the arena is left as it was.
 * Errors as upq_column_read.
 */
upq_status upq_reader_workspace_size(upq_reader *r, upq_workspace *ws);

#ifdef __cplusplus
}
#endif

#endif
