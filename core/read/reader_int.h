/*
 * The reader's stages and defaults, shared by the open state machine
 * (reader_open.c) and the reader's base (reader.c: init, failure and the
 * accessors that the rest of the reader, decryption included, builds on).
 */
#ifndef UPQ_READER_INT_H
#define UPQ_READER_INT_H

#include "uparquet/reader.h"
#include "common/upq_internal.h"
#include "format/meta_desc.h"

/* upq_reader.enc: how the file is encrypted */
enum { UPQ_CRYPT_NONE = 0, UPQ_CRYPT_FOOTER = 1, UPQ_CRYPT_PLAIN_FOOTER = 2 };

enum {
    RS_INIT = 0,
    RS_TAIL,    /* last 8 bytes: footer length + magic */
    RS_HEAD,    /* first 4 bytes: magic */
    RS_FOOTER,  /* footer bytes into the Thrift decoder */
    RS_FCM,     /* encrypted footer: FileCryptoMetaData into the Thrift decoder */
    RS_EFOOTER, /* encrypted footer: the decrypted FileMetaData into the decoder */
    RS_SIGN,    /* plaintext footer: its signature */
    RS_COLMETA, /* encrypted column metadata */
    RS_CHECK,   /* schema tree and consistency checks */
    RS_OPEN,
    RS_FAILED,
    RS_CUT      /* no magic at the end: the first 8 bytes say whether it is a cut log */
};

#define DEFAULT_WINDOW 256u

/* Fails the reader with a located error (reader.c). */
upq_status upq_reader_fail(upq_reader *r, upq_status st, uint64_t off, const char *what);

/* What a loader over the reader (page index, bloom filter) answers once it
 * has settled: UPQ_OK loaded, UPQ_DONE nothing to load, the reader's error
 * after a failure; UPQ_AGAIN while it is still at work. */
static inline upq_status upq_loader_settled(const upq_reader *r, int stage, int ready, int none,
                                            int failed)
{
    if (stage == ready)
        return UPQ_OK;
    if (stage == none)
        return UPQ_DONE;
    if (stage == failed)
        return r->err.status != UPQ_OK ? r->err.status : UPQ_ERR_STATE;
    return UPQ_AGAIN;
}

/* Describes the failure of a part over the reader (a column reader, a row
 * reader, a scan, a page index, a bloom filter) in the reader's error info:
 * the part fails, the reader goes on. Returns `st`. schema_element is left
 * as it is: only a failed open sets it. Inline: each part's own failure
 * function is the one copy in its image (reader-min holds the column
 * reader's alone, at the size it had). */
static inline upq_status upq_reader_set_error(upq_reader *r, upq_status st, uint64_t off,
                                              const char *what, int32_t row_group,
                                              int32_t column, int32_t page)
{
    upq_error_info *e = &r->err;
    e->status = st;
    e->offset = off;
    e->what = what;
    e->in_struct = e->field = (const char *)0;
    e->row_group = row_group;
    e->column = column;
    e->page = page;
    e->needed = UPQ_ERR_NEEDED(st, &r->arena);
    return st;
}

/* ---- decryption (reader_crypto.c) ---- */
struct upq_encryption_algorithm;

/* Takes the algorithm and AAD parts and fetches the footer key (required
 * when `need_key`; otherwise a missing key leaves r->footer_key NULL). */
upq_status upq_reader_crypto_begin(struct upq_reader *r, const struct upq_encryption_algorithm *alg,
                                   const upq_bytes *key_metadata, int need_key);

/* Decrypts the encrypted ColumnMetaData of every kept column whose key is
 * available, in place of its plaintext stand-in. */
upq_status upq_reader_crypto_column_meta(struct upq_reader *r);

/* Are unmarked columns encrypted with the footer key (DuckDB's files)? */
int upq_reader_implicit_crypto(const struct upq_reader *r);

/* The key of an encrypted chunk that a column reader, a page index or a
 * bloom filter opens: expanded into the arena, or the footer key (the arena
 * then back at `mark`). On failure `*what` says why, for the part's error.
 * A build without decryption refuses every encrypted chunk here, inline, so
 * that its callers' key paths fold away. */
#define UPQ_MSG_NO_DECRYPTION UPQ_MSG("encrypted column chunk: this build has no decryption")
#if UPQ_WITH_CRYPTO
upq_status upq_reader_chunk_key(struct upq_reader *r, uint32_t rg, uint32_t column,
                                upq_arena_mark mark, const struct upq_aes_key **key,
                                const char **what);
#else
static inline upq_status upq_reader_chunk_key(struct upq_reader *r, uint32_t rg, uint32_t column,
                                              upq_arena_mark mark,
                                              const struct upq_aes_key **key, const char **what)
{
    (void)r, (void)rg, (void)column, (void)mark, (void)key;
    *what = UPQ_MSG_NO_DECRYPTION;
    return UPQ_ERR_UNSUPPORTED;
}
#endif

/* Row group ordinal for AADs. */
int32_t upq_reader_rg_ordinal(const struct upq_reader *r, uint32_t rg);

/* ---- workspace planning (column.c, for workspace.c) ---- */
struct upq_column_reader;

/* A column reader whose `scan` is set passes over every page, reading only
 * headers and gathering their sizes: UPQ_DONE at the chunk's end. */
upq_status upq_column_scan_pages(struct upq_column_reader *c);


#endif
