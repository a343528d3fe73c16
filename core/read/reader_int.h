/*
 * The reader's stages and defaults, shared by the open state machine
 * (reader_open.c) and the reader's base (reader.c: init, failure and the
 * accessors that the rest of the reader, decryption included, builds on).
 */
#ifndef UPQ_READER_INT_H
#define UPQ_READER_INT_H

#include "uparquet/reader.h"
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

/* Row group ordinal for AADs. */
int32_t upq_reader_rg_ordinal(const struct upq_reader *r, uint32_t rg);

/* ---- workspace planning (column.c, for workspace.c) ---- */
struct upq_column_reader;

/* A column reader whose `scan` is set passes over every page, reading only
 * headers and gathering their sizes: UPQ_DONE at the chunk's end. */
upq_status upq_column_scan_pages(struct upq_column_reader *c);


#endif
