/*
 * The reader: opens a file through a positional read callback and decodes its
 * footer into the arena, resumably.
 */
#ifndef UPARQUET_READER_H
#define UPARQUET_READER_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "arena.h"
#include "types.h"
#include "private.h"
#include "meta.h"
#include "schema.h"
#include "crypto.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Positional read: read up to `len` bytes at `off` into `buf`. Returns UPQ_OK
 * with *got set (fewer than asked is fine; 0 means end of file), UPQ_AGAIN
 * when it would block (the reader returns UPQ_AGAIN and asks again later), or
 * UPQ_ERR_IO.
 */
typedef upq_status (*upq_read_at_fn)(void *ctx, uint64_t off, void *buf, size_t len,
                                     size_t *got);

/*
 * Optional lending read, for files already in memory (in RAM, memory-mapped):
 * sets *p to the file's bytes at `off` instead of copying them. Returns
 * UPQ_OK with *p and *got set (fewer than `len` bytes is fine; 0 means end of
 * file), UPQ_AGAIN when it would block, or UPQ_ERR_IO. The lent bytes must
 * stay valid and unchanged while the reader and its column readers are in
 * use: the reader keeps pointers into them (values decoded from a lent page,
 * byte arrays among them, point there). The reader uses it for data page
 * bodies: an uncompressed page is decoded where it lies and a compressed one
 * is decompressed from it, with no copy into the arena (UPQ_WITH_LEND; a
 * short count falls back to read_at for that page). read_at stays required.
 */
typedef upq_status (*upq_lend_fn)(void *ctx, uint64_t off, size_t len, const void **p,
                                  size_t *got);

typedef struct upq_io {
    void *ctx;
    upq_read_at_fn read_at;
    uint64_t size; /* file size in bytes */
#if UPQ_WITH_LEND
    upq_lend_fn lend; /* optional (NULL: every byte goes through read_at) */
#endif
} upq_io;

/* Sets every member of *io: an adapter that fills its upq_io through this
 * call keeps working when a build option adds a member (lend stays NULL). */
static inline void upq_io_init(upq_io *io, void *ctx, upq_read_at_fn read_at, uint64_t size)
{
    io->ctx = ctx;
    io->read_at = read_at;
    io->size = size;
#if UPQ_WITH_LEND
    io->lend = 0;
#endif
}

typedef struct upq_reader_opts {
    /* Leaf columns to keep (bit i = leaf column i); NULL keeps all. Column
     * chunks of other columns are skipped while decoding and cost no memory. */
    const uint8_t *projection;
    uint32_t projection_bits;
    /* Bytes of the window the footer streams through (default 256). */
    uint32_t io_window;
    /* Limits for Thrift decoding; zeros mean the defaults. */
    upq_thrift_limits limits;
    /* Skip page CRC verification (it is on by default). */
    uint8_t no_crc_check;
    /* Largest uncompressed page accepted (default 256 MiB): a page header
     * claiming more is UPQ_ERR_LIMIT before any memory is reserved. */
    uint32_t max_page_size;
    /* Keys and AAD prefix for encrypted files (uparquet/crypto.h); NULL
     * reads only unencrypted files and the unencrypted columns of files with
     * a plaintext footer (whose signature is then not checked). */
    const upq_decrypt_opts *decrypt;
    /* Do not use page indexes to seek (upq_column_seek scans page headers). */
    uint8_t no_page_index;
    /* How row-group metadata is decoded: UPQ_ROW_GROUPS_EAGER (0) all at
     * open, UPQ_ROW_GROUPS_LAZY one row group at a time by
     * upq_reader_row_group_load, UPQ_ROW_GROUPS_AUTO eager unless the row
     * groups do not fit in half the arena left after the window. */
    uint8_t row_groups;
} upq_reader_opts;

/* upq_reader_opts.row_groups */
enum { UPQ_ROW_GROUPS_EAGER = 0, UPQ_ROW_GROUPS_LAZY = 1, UPQ_ROW_GROUPS_AUTO = 2 };

/* Random access into on-demand row groups starts from the nearest of this
 * many positions in the footer, spread evenly and learnt as loads pass them. */
#define UPQ_RG_CHECKPOINTS 16u

/* Where and why the last error happened. Strings are static. */
typedef struct upq_error_info {
    upq_status status;
    uint32_t needed;       /* UPQ_ERR_NOMEM: the arena size asked for (upq_arena_needed);
                              UPQ_ERR_LIMIT: the size the limit would have to allow (a
                              page's uncompressed size for max_page_size); else 0.
                              UINT32_MAX: that much or more */
    uint64_t offset;       /* file offset, or UINT64_MAX when not tied to one */
    const char *what;      /* e.g. "footer length exceeds the file" */
    const char *in_struct; /* Thrift struct being decoded, when relevant */
    const char *field;     /* its field, when relevant */
    int32_t row_group;     /* -1 when not relevant */
    int32_t column;        /* leaf column index, -1 when not relevant */
    int32_t page;          /* page ordinal in the chunk, -1 when not relevant */
    int32_t schema_element; /* index of a malformed SchemaElement, -1 when not relevant */
} upq_error_info;

typedef struct upq_reader {
    upq_io io;
    upq_arena arena;
    upq_reader_opts opts;
    upq_error_info err;
    uint8_t stage;
    uint8_t crc_kernel;     /* the page CRC kernel this CPU runs, 0 until a page asks */
    uint8_t tail[8];        /* footer length + magic */
    uint8_t head[4];
    uint32_t fill;          /* bytes of the current read target filled so far */
    uint32_t footer_len;
    uint64_t footer_start;  /* file offset of the footer */
    uint64_t pos;           /* next file offset to read in the current stage */
    uint8_t *win;           /* footer streaming window (arena) */
    uint32_t win_len, win_fill, win_used;
    upq_tdec tdec;
    upq_tframe tframes[UPQ_THRIFT_MAX_DEPTH]; /* its nesting */
    upq_file_metadata meta;
    upq_schema schema;
    uint32_t *chunk_slot;   /* leaf column -> index in RowGroup.columns, UPQ_NONE if not kept */
    uint32_t kept;          /* projected leaf columns (RowGroup.columns entries) */
    /* encryption */
    uint8_t enc;            /* UPQ_CRYPT_* (core/read/reader_int.h) */
    upq_file_crypto fc;     /* algorithm and AAD parts (fc.algorithm 0: not encrypted) */
    struct upq_aes_key *footer_key; /* arena; NULL when not available */
    upq_file_crypto_metadata fcm;
    upq_cstream cs;         /* encrypted footer / plaintext footer signature */
    uint64_t fmd_end;       /* file offset just past the FileMetaData bytes */
    uint8_t fmd_done;       /* the decrypted FileMetaData is complete */
#if UPQ_WITH_LAZY_ROW_GROUPS
    /* on-demand row groups */
    uint8_t lazy;           /* row groups are decoded by upq_reader_row_group_load */
    uint8_t lazy_tried;     /* AUTO: the eager attempt was given up (or lazy refused) */
    uint8_t rg_stage;       /* load in progress: 0 none, 1 skipping, 2 decoding */
    uint32_t rg_count;      /* FileMetaData.row_groups elements */
    uint32_t rg_loaded;     /* row group in rg_cur, UINT32_MAX: none */
    uint32_t rg_target;     /* row group being loaded */
    uint32_t rg_next;       /* row group starting at rg_pos */
    uint64_t rg_pos;        /* file offset of row group rg_next */
    uint64_t rg_end;        /* file offset just past the FileMetaData */
    upq_arena_mark meta_mark; /* arena before the FileMetaData was decoded */
    uint32_t rg_cp_step, rg_cp_n;
    uint64_t rg_cp[UPQ_RG_CHECKPOINTS]; /* file offset of row group k * rg_cp_step */
    upq_row_group rg_cur;   /* the loaded row group (lists at the arena's high end) */
#endif
} upq_reader;

/*
 * Prepares a reader over `io` using arena[0..arena_len) for all memory (the
 * caller keeps ownership; it must outlive the reader). `opts` may be NULL.
 * No I/O happens here.
 */
void upq_reader_init(upq_reader *r, const upq_io *io, void *arena, size_t arena_len,
                     const upq_reader_opts *opts);

/*
 * Finds, checks and decodes the footer, and builds the schema. Returns UPQ_OK
 * when open, UPQ_AGAIN when the read callback would block (call again), or an
 * error described by upq_reader_error(): UPQ_ERR_CORRUPT (bad magic, footer
 * length outside the file, malformed metadata), UPQ_ERR_TRUNCATED (a
 * checkpoint-mode file cut before its close: upq_recover() finishes it; in
 * builds with UPQ_WITH_CHECKPOINT, else UPQ_ERR_CORRUPT), UPQ_ERR_UNSUPPORTED
 * (encrypted footer in a build without crypto), UPQ_ERR_AUTH (footer key
 * missing or wrong, AAD prefix missing or wrong, footer or its signature
 * altered), UPQ_ERR_NOMEM (see
 * upq_arena_needed(&r->arena)), UPQ_ERR_LIMIT, UPQ_ERR_IO. Errors are final:
 * after UPQ_ERR_NOMEM, give a larger arena to upq_reader_init() and open
 * again.
 */
upq_status upq_reader_open(upq_reader *r);

/* After a successful open: the decoded metadata and schema (in the arena).
 * With lazy row groups, row_groups is empty: use upq_reader_num_row_groups
 * and upq_reader_row_group. */
const upq_file_metadata *upq_reader_metadata(const upq_reader *r);
const upq_schema *upq_reader_schema(const upq_reader *r);

/* Number of row groups in the file (after open; 0 before). */
uint32_t upq_reader_num_row_groups(const upq_reader *r);

/*
 * Makes row group `rg`'s metadata available to upq_reader_row_group,
 * upq_reader_chunk and everything that opens a column, its page index,
 * bloom filter or statistics. With eager row groups (the default) there is
 * nothing to do. With UPQ_ROW_GROUPS_LAZY this decodes that row group alone
 * (projected columns only) from the footer, resumably (UPQ_AGAIN), into a
 * region at the arena's high end that the next load reuses: loading another
 * row group invalidates the previous one's metadata, so close its column and
 * row readers first. Loading row groups in increasing order reads the footer
 * once in total; going back starts from the nearest checkpoint. Returns
 * UPQ_OK, UPQ_AGAIN, UPQ_ERR_INVAL (no such row group; the reader stays
 * usable), or a final error like upq_reader_open's (malformed row group,
 * UPQ_ERR_NOMEM with upq_arena_needed, UPQ_ERR_IO).
 */
upq_status upq_reader_row_group_load(upq_reader *r, uint32_t rg);

/* Row group `rg`, or NULL when out of range or (lazy) not loaded. */
const upq_row_group *upq_reader_row_group(const upq_reader *r, uint32_t rg);

/* Are row groups decoded on demand (opts.row_groups LAZY, or AUTO that chose so)? */
int upq_reader_lazy(const upq_reader *r);

/* The chunk of leaf column `column` in row group `rg`, or NULL when the
 * column was not projected, the indexes are out of range, or (lazy) the row
 * group is not loaded. */
const upq_column_chunk *upq_reader_chunk(const upq_reader *r, uint32_t rg, uint32_t column);

/* Details of the last error (status UPQ_OK when none). */
const upq_error_info *upq_reader_error(const upq_reader *r);

/* Bytes of the encoded footer (FileMetaData), as the file's tail states. */
uint32_t upq_reader_footer_length(const upq_reader *r);

/* After open: the file's encryption parameters, or NULL for a plain file. */
const upq_file_crypto *upq_reader_file_crypto(const upq_reader *r);

/*
 * The key of leaf column `column`, for decrypting its modules outside the
 * column reader (bloom filters, page indexes) with
 * upq_crypto_decrypt_module(). *key gets NULL for an unencrypted column
 * (UPQ_OK), the footer key for a column encrypted with it, or a key
 * expanded into `mem` (upq_crypto_key_size() bytes, 8-byte aligned, owned by
 * the caller). Returns UPQ_OK, UPQ_ERR_AUTH (key not available; the error
 * info names the column), UPQ_ERR_INVAL, UPQ_ERR_UNSUPPORTED.
 */
upq_status upq_reader_column_key(upq_reader *r, uint32_t rg, uint32_t column, void *mem,
                                 const struct upq_aes_key **key);

#ifdef __cplusplus
}
#endif

#endif
