/*
 * Writer internals shared by its source files (not a public header):
 *   writer.c       setup, the public calls, staging, dictionaries, rows
 *   writer_page.c  encoding a data page into the chunk buffer, page headers,
 *                  statistics and page-index entries, dictionary pages
 *   writer_out.c   ending a row group: layout, metadata (RowGroup, footer,
 *                  page indexes) and the resumable output state machine
 */
#ifndef UPQ_WRITER_INT_H
#define UPQ_WRITER_INT_H

#include "uparquet/writer.h"
#include "uparquet/encode.h"
#include "uparquet/crc32.h"
#include "uparquet/bloom.h"
#include "upq_codec.h"
#include "upq_port.h"
#include "stats.h"
#include "upq_internal.h"

/* Distinct encodings one column chunk can use: levels (RLE), dictionary
 * data and dictionary page, and the column's other encoding. */
#define UPQ_COUNTOF_ENCS 4u

/* Thrift models the writer fills and encodes, kept in the arena so the
 * writer struct itself stays small enough for a task stack. */
typedef struct upq_wmodels {
    upq_page_header ph;
    upq_column_chunk cc;
    upq_column_index ci;
    upq_offset_index oi;
    upq_bloom_filter_header bf;
    upq_tenc tenc;
    int32_t encs[UPQ_COUNTOF_ENCS];
    upq_page_encoding_stats es[3];
    upq_minmax pst;          /* one page's bounds when there is no page index */
} upq_wmodels;

#define UPQ_W_MODELS(w) ((upq_wmodels *)(void *)(w)->models)

/* Output stages (upq_writer.ostage). */
enum {
    UPQ_OS_IDLE = 0,
    UPQ_OS_MAGIC,
    UPQ_OS_DICT_HDR,
    UPQ_OS_DICT_BODY,
    UPQ_OS_CHUNK,
    UPQ_OS_BF_HDR,
    UPQ_OS_BF_BITS,
    UPQ_OS_PAGE_BODY,
    UPQ_OS_CI,
    UPQ_OS_OI,
    UPQ_OS_FOOTER,
    UPQ_OS_SYNC,
    UPQ_OS_END
};

/* What an output run is for (upq_writer.out_kind). */
enum { UPQ_OUT_RG = 1, UPQ_OUT_FOOTER = 2 };

/* Writer API modes. */
enum { UPQ_WM_NONE = 0, UPQ_WM_ROWS = 1, UPQ_WM_COLUMNS = 2 };

UPQ_INLINE size_t upq_w_align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Records an error; final ones (every status but input errors) stick. The
 * text goes through UPQ_MSG: "" in a UPQ_NO_ERRSTR build. */
#if UPQ_NO_ERRSTR
/* No text to pass: one argument less at each of the many call sites. */
#define UPQ_W_WHAT_PARAM
#define UPQ_W_WHAT(text)
#define UPQ_W_WHAT_VALUE ""
#else
#define UPQ_W_WHAT_PARAM , const char *what
#define UPQ_W_WHAT(text) , (text)
#define UPQ_W_WHAT_VALUE what
#endif
/* Failure paths stay calls (UPQ_NOINLINE): inlined, each site would carry the stores. */
UPQ_NOINLINE upq_status upq_w_fail_(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM);
#define upq_w_fail(w, st, column, what) upq_w_fail_(w, st, column UPQ_W_WHAT(what))

/* ---- writer_page.c ---------------------------------------------------------- */

/* Bytes an encoded page header can take at most, without the statistics'
 * min/max bounds (upq_w_stats_bounds adds them): SIZE_MAX if it cannot be
 * encoded. Apart from the bounds so that it is counted once, before the
 * schema walk, not with an encoder's frame on top of the walk's. */
size_t upq_w_header_bound(void);

/* Bytes a Statistics' max_value, min_value and is_*_exact fields add with
 * `scap`-byte bounds (0 for none): every field id delta in these structs
 * stays below 16, so each field header is one byte. */
size_t upq_w_stats_bounds(uint32_t scap);
/* The same, a constant 0 without statistics (every scap is 0 then). */
#define UPQ_W_STATS_BOUNDS(scap) (UPQ_WITH_STATISTICS ? upq_w_stats_bounds(scap) : 0u)

/* Bound of a page body (levels and values, before compression) of a column
 * staging `lcap` levels and `vcap` value bytes, and of the page as stored. */
size_t upq_w_body_bound(const upq_wcol *c);
size_t upq_w_stored_bound(const upq_wcol *c, int32_t codec, int v2);

/*
 * Encodes the committed staging prefix of column c as one data page at the
 * end of its chunk buffer, updating statistics, counters and the page index,
 * and removes it from the staging. `final`: the row group is ending (the
 * chunk need not keep room for another page). UPQ_OK, or a final error.
 */
upq_status upq_w_flush_page(upq_writer *w, upq_wcol *c, int final);

/* Puts the first nv staged values of c (the page being made) into its
 * bloom filter. */
void upq_w_bloom_take(upq_wcol *c, uint32_t nv);
/* Direct mode, at output: encodes column c's page again (the same bytes as
 * upq_w_flush_page made when the layout was fixed), header in w->hbuf and
 * body at *body, and drops it from the staging. UPQ_OK, or a final error. */
upq_status upq_w_direct_page(upq_writer *w, upq_wcol *c, const uint8_t **body, size_t *hl,
                             size_t *stored);

/* Compresses (if needed) the dictionary page of c into w->pbuf, computes
 * its CRC and encodes its header into w->hbuf; sets c->dict_* sizes.
 * Returns UPQ_OK, or a final error. */
upq_status upq_w_dict_page(upq_writer *w, upq_wcol *c, size_t *hdr_len);

/* ---- writer.c ---------------------------------------------------------------- */

/* Looks up a PLAIN key (BYTE_ARRAY: the payload only) in c's dictionary:
 * its index, or -1 (then *slot is where it would go). */
int32_t upq_w_dict_find(const upq_wcol *c, const uint8_t *key, uint32_t klen, uint32_t *slot);

/* The PLAIN key of the staged value at byte `off` of the staging: key and
 * klen (fixed types are converted into tmp[16]); returns the value's staged
 * size. */
uint32_t upq_w_staged_key(const upq_wcol *c, uint32_t off, uint8_t *tmp, const uint8_t **key,
                          uint32_t *klen);

/* After a row group's output: clears every column's chunk state and
 * re-indexes the rows carried over into the next row group. */
void upq_w_rg_reset(upq_writer *w);

/* Recomputes the rows every column has and commits them. */
void upq_w_advance(upq_writer *w);

/* ---- writer_out.c ------------------------------------------------------------ */

/* Ends the row group at w->rs: last pages, layout, metadata; starts its
 * output (call upq_w_pump). UPQ_OK, or a final error (UPQ_ERR_NOMEM when the
 * metadata log is full). */
upq_status upq_w_rg_finish(upq_writer *w);

/* Starts writing the final footer (close without checkpoints). */
void upq_w_footer_start(upq_writer *w);

/* Moves pending output to the sink: UPQ_OK when none is left, UPQ_AGAIN,
 * or a final error. */
upq_status upq_w_pump(upq_writer *w);

/* Upper bound of an encoded RowGroup of ncols chunks, for sizing the
 * metadata log, without what upq_w_cc_bound counts per column: SIZE_MAX on
 * overflow. */
size_t upq_w_rg_bound(uint32_t ncols, const upq_writer_opts *o);

/* Column c's own part of its ColumnChunk's bound: path_len path elements of
 * path_bytes encoded bytes (the sum of upq_w_path_bytes of their lengths). */
size_t upq_w_cc_bound(const upq_wcol *c, uint32_t path_len, size_t path_bytes);

/* Encoded bytes of one path element of len bytes. */
size_t upq_w_path_bytes(size_t len);

/* ---- encryption (writer_crypto.c) ---------------------------------------- */

#include "uparquet/crypto.h"

/* Room one encrypted module adds around its plaintext (GCM; CTR needs less). */
#define UPQ_W_CRYPTO_OVER ((size_t)UPQ_CRYPTO_GCM_OVERHEAD)

/* The writer's encryption state, a column's key, a column's bloom filter
 * bytes: constant null or 0 in a build without the option, so that the
 * compiler leaves those paths out of it. */
#define UPQ_W_WC(w) (UPQ_WITH_CRYPTO ? (w)->wc : (struct upq_wcrypto *)0)
#define UPQ_W_ENCRYPTING(w) (UPQ_WITH_CRYPTO && (w)->o.encrypt)
#define UPQ_W_KEY(c) (UPQ_WITH_CRYPTO ? (c)->key : (upq_wkey *)0)
#define UPQ_W_BLOOM(c) (UPQ_WITH_BLOOM ? (c)->bloom_bytes : 0u)
/* Data pages the column's page index holds (0: no page index), and whether
 * the writer writes one: constants without UPQ_WITH_PAGE_INDEX, so that the
 * index code goes. */
#define UPQ_W_PI_PAGES(c) (UPQ_WITH_PAGE_INDEX ? (c)->max_pages : 0u)
#define UPQ_W_NO_PI(w) (!UPQ_WITH_PAGE_INDEX || (w)->o.no_page_index)
/* Pages and dictionaries compressed: a constant 0 in a build without a
 * codec that compresses (configure refuses the others). */
#define UPQ_W_CAN_COMPRESS (UPQ_WITH_SNAPPY || UPQ_WITH_LZ4 || UPQ_WITH_GZIP)
#define UPQ_W_COMPRESSING(w) (UPQ_W_CAN_COMPRESS && (w)->o.codec != UPQ_CODEC_UNCOMPRESSED)
/* Page and chunk statistics: a constant 0 without UPQ_WITH_STATISTICS. */
#define UPQ_W_STATS(w) (UPQ_WITH_STATISTICS && !(w)->o.no_statistics)
/* DATA_PAGE_V2 pages: a constant 0 without UPQ_WITH_DATA_PAGE_V2. */
#define UPQ_W_V2(w) (UPQ_WITH_DATA_PAGE_V2 && (w)->o.data_page_v2)

typedef struct upq_wcrypto {
    upq_file_crypto fc;
    uint8_t unique[8];          /* aad_file_unique */
    upq_wkey footer;
    upq_wkey *cols;             /* one per column key given */
    uint32_t ncols;
    upq_file_crypto_metadata fcm; /* the encrypted footer's FileCryptoMetaData */
    upq_encryption_algorithm alg; /* also FileMetaData.encryption_algorithm (plaintext footer) */
    /* a module streamed through the output window */
    upq_gcm g;
    uint8_t ctr0[16];
    uint64_t off;               /* text bytes done */
    upq_wkey *mk;
    uint8_t mode;               /* UPQ_WS_*: what each piece gets */
    uint8_t head[28];           /* length + nonce, or the footer signature */
    uint32_t fmd_len;           /* encrypted footer: FileMetaData bytes */
    uint8_t *dict_nonce;        /* 24 bytes a column: its dictionary page header + body
                                   nonces, fixed at layout (upq_wcol.dict_nonce_set) */
    uint8_t in_fmd;             /* footer pieces are FileMetaData bytes now */
    uint8_t counting;           /* footer pieces are only counted */
} upq_wcrypto;

enum { UPQ_WS_NONE = 0, UPQ_WS_ENCRYPT = 1, UPQ_WS_SIGN = 2, UPQ_WS_COUNT = 3 };

/* Arena bytes the encryption state needs for these options (0 when none). */
size_t upq_wc_need(const upq_writer_opts *o);
/* Checks the options and sets up keys in mem (upq_wc_need() bytes). */
upq_status upq_wc_init(upq_writer *w, void *mem);
/* A fresh nonce for key k (counts the invocation; UPQ_ERR_LIMIT past 2^32). */
upq_status upq_wc_nonce(upq_writer *w, upq_wkey *k, uint8_t nonce[12]);
/* Turns buf[16 .. 16+len) into a whole module in place (length, nonce,
 * ciphertext, tag for GCM); `nonce` NULL takes a fresh one. *out_len gets
 * the module's size. buf must have len + 32 bytes. */
upq_status upq_wc_seal(upq_writer *w, upq_wkey *k, int module, int32_t col, int32_t page,
                       uint8_t *buf, size_t len, const uint8_t *nonce, size_t *out_len);
/* Streamed GCM module: begin writes length (ct_len + 28) and nonce to
 * w->wc->head; pieces are encrypted in place (ENCRYPT) or only
 * authenticated as if encrypted (SIGN, for the plaintext footer); tag
 * finishes. */
upq_status upq_wc_stream_begin(upq_writer *w, upq_wkey *k, int module, int32_t col,
                               uint32_t ct_len, uint8_t mode);
void upq_wc_stream_piece(upq_writer *w, uint8_t *p, size_t n);
void upq_wc_stream_tag(upq_writer *w, uint8_t tag[16]);

#endif
