/*
 * The writer: streams rows into Parquet through a sink, with bounded
 * memory, resumable output and, in checkpoint mode, power-loss safety.
 *
 * Parquet stores each column chunk contiguously, so a row group's pages must
 * either wait in RAM until the row group ends or go straight to their place
 * in the file. Three modes:
 *
 * Buffered (default). Each leaf column has a page staging area (levels, and
 * `page_size` bytes of values), a chunk buffer of finished pages
 * (`chunk_size`), a dictionary (`dict_size`) and its page-index entries; one
 * page-encoding scratch area is shared. A row group ends when a chunk buffer
 * could not take another page, at the row or byte limit, or on request, and
 * is then written out with its bloom filters and page indexes. RAM is
 * O(columns x chunk_size); the finished row groups' metadata waits for the
 * footer in a RAM log (max_row_groups / footer_size).
 *
 * Direct (opts.direct). No chunk buffers: a row group ends as soon as any
 * column's page staging is full, so each column chunk is one data page,
 * encoded a second time from the staging as it is written out. RAM is about
 * one page of staging per column; row groups are small.
 *
 * Checkpoint mode (opts.checkpoint; the sink needs write_at and read_at).
 * Row groups as large as asked (row_group_rows, row_group_bytes; 64K rows by
 * default) whatever the RAM: when a row group's first page is ready, each
 * column gets a region of the file sized from the column's measured rate
 * (or, first, from an encoding of its staged rows) and its pages go there as
 * they fill; a row group ends early when a region could not take another
 * page. A journal of small records in the file (core/checkpoint/journal.h) says where
 * the regions are and how far they are filled. A checkpoint
 * (checkpoint_rows, upq_writer_checkpoint) turns every column's staged rows
 * into a page, writes a record of what changed (fills, counts, dictionary
 * entries added) and syncs: its cost does not grow with the file, and
 * nothing is read back. Close reads the page headers back to write the page
 * indexes and, once, the footer. upq_recover() turns a file cut at any byte
 * into a valid one holding every checkpointed row; upq_writer_resume()
 * continues a cut or closed file. RAM is the staging (one block, which the
 * close and resume work reuse) and a record model per column; it does not
 * depend on row group size, rows or checkpoints. Readers address chunks by
 * offset, so the file may have gaps between them (the regions' unused ends;
 * file_rows and max_file_bytes keep the last row group's small).
 *
 * upq_writer_workspace_size() gives the exact arena for each.
 *
 * Values are given in the reader's representation (see column.h): BOOLEAN
 * uint8_t, INT32 int32_t, INT64 int64_t, INT96 upq_int96, FLOAT float,
 * DOUBLE double, BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY upq_bytes (copied by the
 * writer; the caller's bytes need not outlive the call).
 *
 * Output is a resumable state machine: the sink may take part of what is
 * offered or say UPQ_AGAIN. Any call may then return UPQ_AGAIN; it has kept
 * its place, and calling it again (or upq_writer_poll) continues exactly
 * there. No byte is written twice or skipped.
 *
 * The file, buffered and direct: "PAR1", then per row group each column's
 * dictionary page and data pages, that row group's bloom filters, ColumnIndex
 * and OffsetIndex structures, then the footer. Checkpoint mode: "PAR1" (or
 * "PARE"), the journal's FILE record, per row group its journal area, its
 * regions (a dictionary slot, then the data pages) and blobs (dictionary
 * entries, bloom filters), then the page indexes and the footer.
 */
#ifndef UPARQUET_WRITER_H
#define UPARQUET_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "arena.h"
#include "types.h"
#include "meta.h"
#include "schema.h"
#include "reader.h"
#include "private.h"
#include "schema_builder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output ------------------------------------------------------------ */

/* Appends buf[0..len). Returns UPQ_OK with *written (1..len: a short write
 * is fine), UPQ_AGAIN when it would block (nothing written), or UPQ_ERR_IO. */
typedef upq_status (*upq_write_fn)(void *ctx, const void *buf, size_t len, size_t *written);
/* Writes buf[0..len) at file offset `off` (pwrite, FatFs f_lseek + f_write):
 * the file grows as needed, and what a gap before `off` holds does not
 * matter. Returns UPQ_OK with *written (1..len), UPQ_AGAIN (nothing
 * written) or UPQ_ERR_IO. */
typedef upq_status (*upq_write_at_fn)(void *ctx, uint64_t off, const void *buf, size_t len,
                                      size_t *written);
/* Makes everything written so far durable (fsync, SD card flush). UPQ_OK,
 * UPQ_AGAIN (asked again later) or UPQ_ERR_IO. */
typedef upq_status (*upq_sync_fn)(void *ctx);
/* Cuts the file to `size` bytes (ftruncate, f_truncate). UPQ_OK, UPQ_AGAIN
 * or UPQ_ERR_IO. */
typedef upq_status (*upq_truncate_fn)(void *ctx, uint64_t size);
/* Checkpoint mode, after a sync: no byte before `off` will be written again
 * (a row group, or the file, is complete). A sink over storage that can only
 * append cheaply (port/adapters/append: littlefs, raw flash) moves what it
 * journaled into place then. UPQ_OK, UPQ_AGAIN (asked again) or
 * UPQ_ERR_IO. */
typedef upq_status (*upq_seal_fn)(void *ctx, uint64_t off);

typedef struct upq_sink {
    void *ctx;
    upq_write_fn write;       /* appends: the streaming modes (not needed in checkpoint mode) */
    upq_sync_fn sync;         /* optional; called after each checkpoint and at close */
    upq_read_at_fn read_at;   /* reads back what was written (offsets from the file start):
                                 checkpoint mode needs it at close, recovery and resume */
    upq_write_at_fn write_at; /* positional writes: checkpoint mode needs them */
    upq_truncate_fn truncate; /* optional: lets close and recovery give back the space a
                                 cut-short last row group had reserved */
    upq_seal_fn seal;         /* optional: an append-only sink's (see upq_seal_fn); NULL
                                 otherwise (zero the struct, or set every member) */
} upq_sink;

/* Sets every member of *sink, in the order data flows (a NULL callback is an
 * optional one left out): adapters fill their sinks through this call, so
 * none leaves a member unset. */
static inline void upq_sink_init(upq_sink *sink, void *ctx, upq_write_fn write,
                                 upq_write_at_fn write_at, upq_read_at_fn read_at,
                                 upq_sync_fn sync, upq_truncate_fn truncate, upq_seal_fn seal)
{
    sink->ctx = ctx;
    sink->write = write;
    sink->write_at = write_at;
    sink->read_at = read_at;
    sink->sync = sync;
    sink->truncate = truncate;
    sink->seal = seal;
}

/* ---- options ------------------------------------------------------------ */

/* upq_writer_opts.column_order */
enum { UPQ_ORDER_TYPE = 0, UPQ_ORDER_IEEE754 = 1 };

typedef struct upq_column_opts {
    int32_t encoding;   /* UPQ_ENC_*, or -1 for the type's default. PLAIN_DICTIONARY /
                           RLE_DICTIONARY turn the dictionary on; any other value turns
                           it off (unless `dictionary` is 1) and is used for every page */
    int8_t dictionary;  /* -1 default (on unless BOOLEAN), 0 off, 1 on */
    int8_t bloom;       /* 1: a split-block bloom filter of the column's values in every
                           row group (not for BOOLEAN); 0 (default): none */
    uint32_t bloom_ndv; /* distinct values expected per row group, which sizes the filter
                           (default row_group_rows when set, else 65536) */
    double bloom_fpp;   /* false-positive probability wanted, 0 < fpp < 1 (default 0.01);
                           the bitset is the smallest power of two from 32 bytes that
                           reaches it for bloom_ndv values (uparquet/bloom.h), at most
                           the writer's bloom_max_bytes */
    const upq_key_value *kv; /* key-value metadata of each of the column's chunks
                                (ColumnMetaData.key_value_metadata; not copied: it must
                                outlive the writer); every entry needs its key set */
    uint32_t nkv;
} upq_column_opts;

/* ---- encryption ---------------------------------------------------------- */

/* Fills buf[0..len) with random bytes (a TRNG on firmware): nonces and the
 * file's aad_file_unique. UPQ_OK or UPQ_ERR_IO. */
typedef upq_status (*upq_random_fn)(void *ctx, uint8_t *buf, size_t len);

/* A column encrypted with its own key. Bytes are not copied. */
typedef struct upq_column_key {
    uint32_t column;               /* leaf column index */
    const uint8_t *key;            /* 16, 24 or 32 bytes */
    uint32_t key_len;
    const uint8_t *key_metadata;   /* stored for readers (may be NULL) */
    uint32_t key_metadata_len;
} upq_column_key;

/*
 * Modular encryption of the file written. With no column keys every column
 * is encrypted with the footer key ("uniform"); with column keys, exactly
 * the listed columns are encrypted, each with its key, and the others are
 * plain. Bytes are not copied: they must outlive the writer.
 */
typedef struct upq_encrypt_opts {
    uint8_t algorithm;             /* UPQ_CRYPTO_AES_GCM_V1 (0 also) or UPQ_CRYPTO_AES_GCM_CTR_V1 */
    uint8_t plaintext_footer;      /* signed plaintext footer ("PAR1") instead of "PARE" */
    const uint8_t *footer_key;     /* 16, 24 or 32 bytes */
    uint32_t footer_key_len;
    const uint8_t *footer_key_metadata;
    uint32_t footer_key_metadata_len;
    const upq_column_key *columns;
    uint32_t ncolumns;
    const uint8_t *aad_prefix;     /* optional file identity in every AAD */
    uint32_t aad_prefix_len;
    uint8_t no_store_aad_prefix;   /* readers must supply the prefix */
    upq_random_fn random;          /* required */
    void *random_ctx;
} upq_encrypt_opts;

/* Zeroed options give the defaults below. */
typedef struct upq_writer_opts {
    int32_t codec;            /* UPQ_CODEC_UNCOMPRESSED (default), SNAPPY, GZIP, LZ4_RAW, LZ4 */
    uint32_t page_size;       /* bytes of values (PLAIN size) per data page (default 8 KiB,
                                 at least 64); also the longest BYTE_ARRAY value + 4 */
    uint32_t page_levels;     /* level entries per data page (default page_size / 4,
                                 at most 65535); a row must fit in one page */
    uint32_t chunk_size;      /* per-column buffer of finished pages (default the larger of
                                 4 x page_size and two worst-case pages; at least one) */
    uint32_t dict_size;       /* per-column dictionary budget in PLAIN bytes (default
                                 page_size); past it the chunk falls back to the column's
                                 other encoding (PLAIN unless set) */
    uint32_t max_pages;       /* data pages per column chunk the page index can hold
                                 (default 2 x chunk_size / page_size + 2) */
    uint32_t footer_size;     /* RAM for finished row groups' metadata (default: the arena
                                 left over); unused when it is streamed from the file */
    uint64_t row_group_rows;  /* end a row group after this many rows (0: no limit) */
    uint64_t row_group_bytes; /* ... or once its pages take this many bytes (0: no limit) */
    uint8_t data_page_v2;     /* write DATA_PAGE_V2 (default v1, read by everything) */
    uint8_t no_crc;           /* omit page CRCs (default: every page has one) */
    uint8_t no_statistics;    /* omit page and chunk statistics */
    uint8_t no_page_index;    /* omit ColumnIndex / OffsetIndex */
    uint8_t checkpoint;       /* checkpoint mode (power-loss safe; see above): the sink
                                 needs write_at and read_at */
    uint8_t direct;           /* no chunk buffers: a row group holds one data page per
                                 column, encoded from the staging as it is written out
                                 (chunk_size, max_pages and row_group_bytes unused; implied
                                 in checkpoint mode, which never buffers chunks) */
    uint8_t column_order;     /* UPQ_ORDER_TYPE (0, default) or UPQ_ORDER_IEEE754: FLOAT,
                                 DOUBLE and FLOAT16 columns declare IEEE_754_TOTAL_ORDER and
                                 their statistics follow it (-0 < +0; bounds of the values
                                 other than NaN, of the NaNs in a page or chunk of NaNs only;
                                 nan_count always) */
    uint32_t stats_max_binary;/* longest binary min/max kept (default 64; longer are truncated) */
    uint32_t bloom_max_bytes; /* largest bloom filter bitset of one column chunk (default
                                 1 MiB, at most 128 MiB; rounded down to a power of two) */
    const upq_column_opts *columns; /* per leaf column, or NULL for defaults */
    uint32_t ncolumns;
    const upq_key_value *kv;  /* key-value metadata for the footer (not copied) */
    uint32_t nkv;
    const upq_sorting_column *sorting; /* sorting columns declared for every row group */
    uint32_t nsorting;
    /* Modular encryption (NULL: a plain file). */
    const upq_encrypt_opts *encrypt;
    /* Checkpoint mode only: */
    uint64_t checkpoint_rows; /* a checkpoint every this many rows (0: only at the end of
                                 each row group); rows since the last one are what a power
                                 cut can lose */
    uint64_t file_rows;       /* rows the file will hold when closed, when known (a
                                 rotation limit): the last row group is planned to end
                                 there, so no reserved space is left behind (0: unknown) */
    uint64_t max_file_bytes;  /* the closed file stays within this many bytes: each row
                                 group is planned to fit what is left, with the page
                                 indexes and footer still to come (estimated from the
                                 pages so far), and upq_writer_file_full() says when no
                                 further row group fits (0: no limit) */
    uint64_t file_id;         /* tells this file's journal from another file's on a
                                 reused medium (a serial number, a time, random bits);
                                 0 when the medium is never reused */
    uint64_t nonce;           /* entropy for the file's nonce (a TRNG's bits, a boot or
                                 file counter; 0 is fine): every journal record is bound
                                 to the nonce, drawn at creation from this, the file id
                                 and what the medium held where the file begins, so
                                 records an old file left on the medium are never taken
                                 for this one's */
} upq_writer_opts;

/* ---- the writer's state --------------------------------------------------- */

/* The writer's state: public so it can be static or on the stack (it is
 * about half a kilobyte; the bulk lives in the arena); treat its fields as
 * private. */
typedef struct upq_writer {
#if UPQ_WITH_CHUNK_META
    struct upq_geo_acc *geo;  /* GEOMETRY / GEOGRAPHY columns' chunk statistics, a list */
#endif
    upq_sink sink;
    upq_writer_opts o;        /* with defaults filled in */
    const upq_schema_element *elems;
    uint32_t nelems;
    upq_wcol *cols;
    uint32_t ncols;
    upq_arena arena;
    upq_error_info err;
    upq_status failed;        /* sticky error */
    uint8_t mode;             /* 0 none yet, 1 row-wise, 2 column-wise */
    uint8_t closed, closing, close_stage, log_full, flush_wait;
    uint8_t crc_kernel;       /* the page CRC kernel this CPU runs, 0 until a page asks */
    uint8_t row_ok;           /* row-wise: the last row ended with nothing due, waiting
                                 or failed, and no other call came since: the next row's
                                 values skip the writer's checks */
    /* shared scratch */
    void *models;             /* Thrift models being encoded (arena) */
    uint8_t *pbuf;            /* page body, compressed dictionary, read-back window */
    size_t pbuf_cap;
    uint8_t *hbuf;            /* one encoded page header */
    size_t hbuf_cap;
    uint16_t *idx;            /* dictionary indices of one page (entries are at most 65535) */
#if UPQ_WITH_DICT_INDEX
    struct upq_wdx *dx;       /* per column: the staged values' dictionary indices (NULL:
                                 none kept, as in checkpoint mode) */
#endif
    upq_bytes *bvals;         /* byte-array values of one page for the encoders */
    uint32_t lmax;            /* level entries of one page */
    uint8_t *stage;           /* every column's staging (and the checkpoint-mode finisher) */
    /* rows */
    uint64_t rs;              /* rows every column has in the current row group */
    uint64_t rows_done;       /* rows of finished row groups */
    uint64_t rows_durable;    /* rows behind the last synced footer */
    uint64_t rg_rows;         /* rows of the row group being written out */
    uint32_t num_rg;          /* finished row groups */
    uint8_t rg_due;           /* end the row group before taking more */
    uint16_t row_n;           /* with row_ok: entries set in the row so far */
    /* finished row groups' metadata */
    uint8_t *log;
    size_t log_cap, log_used;
    /* output */
    uint8_t ostage, gstage, rstage, out_kind, gtmpl;
    uint8_t magic_done, tenc_on;
    uint8_t lit_len, lit_pos;
    uint8_t lit[40];          /* RowGroup generator literals */
    uint32_t oc, gi, rc;      /* column / item indices of the stages */
    const uint8_t *src;       /* the piece being written */
    size_t src_len, src_pos;
    uint64_t file_pos;
    uint64_t footer_start;
    uint8_t win[96];          /* Thrift and literal output window */
    /* the row group being written out */
    int64_t rg_unc, rg_comp, rg_off;
    struct upq_wcrypto *wc;   /* encryption state (arena), NULL for a plain file */
    uint8_t mstage;           /* an encrypted page-index module: head, body, tag */
    uint16_t session;         /* checkpoint mode: the writing session, in each record's
                                 header and salting the nonces (0 otherwise) */
    /* checkpoint mode */
    struct upq_wjournal *jr;  /* journal state (arena), NULL in the other modes */
    uint64_t dst;             /* file offset of src[0] (pieces are written at offsets) */
    uint64_t seal_to, sealed; /* the sink's seal: where the next sync seals to, and did */
} upq_writer;

/*
 * Arena bytes the writer needs for this schema and these options (codec
 * working memory included): init with this many bytes succeeds and writing
 * never runs out of memory for up to `max_row_groups` row groups (their
 * footer metadata is kept in RAM; each takes at most a bound computed from
 * the schema, usually far less, so more often fit). Pass
 * max_row_groups 0 when that metadata is streamed from the file (a sink with
 * read_at, and checkpoint on), or when opts->footer_size sets it explicitly.
 * Returns UPQ_OK, or the errors of upq_writer_init for bad input.
 */
upq_status upq_writer_workspace_size(const upq_schema_element *elems, uint32_t n,
                                     const upq_writer_opts *o, uint32_t max_row_groups,
                                     size_t *need);

/*
 * Prepares writing `elems` (from upq_sb_finish or a footer; must outlive the
 * writer, as must opts->kv, opts->sorting and the sink) to `sink`, all memory
 * from arena[0..len) (the caller's; give it 8-aligned). Writes nothing yet.
 * Returns UPQ_ERR_INVAL (bad schema/options; upq_writer_error() says which),
 * UPQ_ERR_UNSUPPORTED (a codec or encoding this build cannot write, e.g.
 * ZSTD), or UPQ_ERR_NOMEM (upq_arena_needed(&w->arena) tells the size).
 */
upq_status upq_writer_init(upq_writer *w, const upq_sink *sink, const upq_schema_element *elems,
                           uint32_t n, void *arena, size_t len, const upq_writer_opts *o);

/*
 * Column-wise: appends `levels` level entries of leaf `column` with their
 * packed non-null values (def/rep may be NULL when the column's max level is
 * 0). A call holds whole rows: it starts a row (rep[0] == 0) and its last row
 * ends with it. *consumed gets the level entries taken (always whole rows).
 *
 * Returns UPQ_OK when all were taken (a row group's output may still be
 * pending: see upq_writer_poll). UPQ_DONE when this column's page staging
 * holds only rows some other column has not reached yet: write the other
 * columns, then call again with the rest. UPQ_AGAIN when output is blocked
 * (*consumed may be > 0; call again with the rest). Input errors leave the
 * writer as it was and take nothing:
 * UPQ_ERR_INVAL (levels out of range, a call not starting a row, a
 * FIXED_LEN_BYTE_ARRAY value of the wrong length, row-wise calls in
 * progress), UPQ_ERR_LIMIT (a row larger than one page). Other errors are
 * final: UPQ_ERR_IO, UPQ_ERR_NOMEM (finished row groups' metadata does not
 * fit: upq_writer_close still writes a footer for those before it).
 *
 * A row group ends only at a row every column has reached, so write all
 * columns of a batch of rows before much more of any one of them.
 */
upq_status upq_writer_write_column(upq_writer *w, uint32_t column, const uint16_t *def,
                                   const uint16_t *rep, const void *values, size_t levels,
                                   size_t *consumed);

/*
 * Column-wise, a run: appends `n` entries of leaf `column`, which has no
 * repeated field on its path, so each entry is a row (the shape of a DMA
 * buffer of samples). `values` holds the entries' values packed (nulls take
 * no place); `def` their definition levels, or NULL when every entry is a
 * value (a required column always passes NULL). *taken gets the entries
 * taken. Levels, statistics and the page CRC are worked out per page, not
 * per entry. The writer may be in any mode (checkpoint mode too: a
 * checkpoint falls due on the rows every column has). Built with
 * UPQ_WITH_RUNS (on but in the writer-min option set).
 *
 * Returns what upq_writer_write_column does, and continues as it does:
 * UPQ_OK when all were taken; UPQ_DONE when this column's page staging
 * holds only rows some other column has not reached (put the other
 * columns' runs, then the rest of this one); UPQ_AGAIN when output is
 * blocked (*taken may be > 0: call again with the rest, or upq_writer_poll).
 * UPQ_ERR_INVAL (a repeated column, a level above the maximum, values
 * missing, row-wise calls in progress) takes nothing.
 */
#if UPQ_WITH_RUNS
upq_status upq_writer_put_run(upq_writer *w, uint32_t column, const void *values,
                              const uint16_t *def, size_t n, size_t *taken);
#endif

/* Row-wise (flat schemas: no repeated fields): set each column's value of
 * the current row (or null), then end the row. A column left unset is null;
 * for a required one upq_writer_end_row returns UPQ_ERR_INVAL and keeps the
 * row so it can be completed. Setting a column twice replaces its value.
 * Values are copied. UPQ_AGAIN from any of them: output is blocked, the call
 * took nothing (the row is kept); call it again. */
upq_status upq_writer_set(upq_writer *w, uint32_t column, const void *value);
upq_status upq_writer_set_null(upq_writer *w, uint32_t column);
upq_status upq_writer_end_row(upq_writer *w);

/* Continues output that an earlier call left blocked (a call that took its
 * data may leave the row group's output unfinished). UPQ_OK when nothing is
 * pending, UPQ_AGAIN while blocked. */
upq_status upq_writer_poll(upq_writer *w);

/* Ends the current row group now, at the last row every column has, and
 * writes it out (and its checkpoint). UPQ_OK when written, UPQ_AGAIN until
 * then (call again). Nothing to do without rows. */
upq_status upq_writer_flush(upq_writer *w);

/*
 * Finishes the file: last row group, page indexes, footer, sync (resumable:
 * UPQ_AGAIN until done). A row-wise row not ended is dropped. UPQ_ERR_INVAL
 * when some columns have rows others lack (nothing is written; complete
 * them first). After UPQ_OK the writer only answers UPQ_ERR_STATE.
 */
upq_status upq_writer_close(upq_writer *w);

/* Rows taken so far (all row groups, written out or not; column-wise: the
 * rows every column has). */
uint64_t upq_writer_rows(const upq_writer *w);

/* Rows a power cut cannot lose: those covered by the last synced footer
 * (checkpoint mode, or after close). */
uint64_t upq_writer_rows_durable(const upq_writer *w);

/* Bytes written to the sink so far. */
uint64_t upq_writer_file_size(const upq_writer *w);

/* Where and why the last error happened (status UPQ_OK when none). */
const upq_error_info *upq_writer_error(const upq_writer *w);

/* ---- checkpoint mode ------------------------------------------------------ */

/*
 * Makes every row taken so far durable now (checkpoint mode): each column's
 * staged rows become a page in its row group's region, the journal gets a
 * record and the sink syncs. UPQ_OK when done, UPQ_AGAIN until then (call
 * again), UPQ_ERR_UNSUPPORTED outside checkpoint mode. Rows every column
 * has are checkpointed; a row-wise row not ended is not.
 */
upq_status upq_writer_checkpoint(upq_writer *w);

/*
 * Continues the file the sink holds (`size` bytes long) instead of starting
 * a new one: call it after upq_writer_init (checkpoint mode, the same schema
 * and options) and before any data. A file cut short is first brought back to its last intact
 * checkpoint, as upq_recover does; a closed file is reopened (its footer
 * is written again at close). New rows then follow in the same row group
 * (a new one when the cut one has bloom filters), and upq_writer_close
 * ends with one valid file holding the old rows and the new. Returns UPQ_OK
 * (upq_writer_rows() tells the rows already in the file), UPQ_AGAIN
 * (call again), UPQ_ERR_CORRUPT (no checkpoint-mode file of this writer's
 * schema; nothing was written), UPQ_ERR_AUTH, UPQ_ERR_IO.
 */
upq_status upq_writer_resume(upq_writer *w, uint64_t size);

/*
 * Checkpoint mode with max_file_bytes: 1 when the file cannot take another
 * row group within the limit (asked between rows, it is 1 only at a row
 * group's end): close it and continue in a new file. 0 otherwise.
 */
int upq_writer_file_full(upq_writer *w);

/* Checkpoint mode: the rows the file will hold when closed (opts.file_rows),
 * when known only later, as after a resume. Row groups not yet begun are
 * planned with it. */
void upq_writer_set_file_rows(upq_writer *w, uint64_t rows);

#ifdef __cplusplus
}
#endif

#endif
