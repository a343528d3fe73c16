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
#include "uparquet/reader.h"
#include "encode/encode.h"
#include "common/crc32.h"
#include "format/meta_desc.h"
#include "uparquet/bloom.h"
#include "upq_codec.h"
#include "upq_port.h"
#include "format/stats.h"
#include "common/upq_internal.h"

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
    upq_row_group rgt;       /* checkpoint mode: the FILE record's template row group */
    upq_tenc tenc;
    int32_t encs[UPQ_COUNTOF_ENCS];
    upq_page_encoding_stats es[3];
    upq_minmax pst;          /* one page's bounds when there is no page index */
} upq_wmodels;

#define UPQ_W_MODELS(w) ((upq_wmodels *)(void *)(w)->models)

/* Output stages (upq_writer.ostage). UPQ_OS_JOURNAL: checkpoint mode, whose
 * pieces come from the journal's job machine (writer_journal.c). */
enum {
    UPQ_OS_IDLE = 0,
    UPQ_OS_JOURNAL,
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

/* Loops over a run of levels or values at once where a level is a row
 * (columns without repetition): not in size-optimised builds, where the
 * row-by-row paths, which stay for the general case, are all there is
 * (Cortex-M flash is worth more). */
#ifdef __OPTIMIZE_SIZE__
#define UPQ_W_FAST 0
#else
#define UPQ_W_FAST 1
#endif

/* A dictionary column's staged values' indices (UPQ_WITH_DICT_INDEX, not
 * in checkpoint mode): idx[i] is the index of staged value i for i < n
 * (idx NULL: a column without a dictionary). UPQ_W_DX is a constant null
 * without the option, so that its paths go. */
typedef struct upq_wdx {
    uint16_t *idx;
    uint32_t n;
} upq_wdx;
#if UPQ_WITH_DICT_INDEX
#define UPQ_W_DX_ARRAY(w) ((w)->dx)
#else
#define UPQ_W_DX_ARRAY(w) ((upq_wdx *)0)
#endif
UPQ_INLINE upq_wdx *upq_w_dx(const upq_writer *w, const upq_wcol *c)
{
#if UPQ_WITH_DICT_INDEX
    upq_wdx *x = w->dx ? &w->dx[c - w->cols] : (upq_wdx *)0;
    return x && x->idx ? x : (upq_wdx *)0;
#else
    (void)w;
    (void)c;
    return (upq_wdx *)0;
#endif
}
#define UPQ_W_DX(w, c) upq_w_dx(w, c)

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
/* ... of a page staged from at most lcap levels and vcap value bytes */
size_t upq_w_stored_bound_n(const upq_wcol *c, int32_t codec, int v2, uint32_t lcap, uint32_t vcap);

/*
 * Encodes the committed staging prefix of column c as one data page at the
 * end of its chunk buffer, updating statistics, counters and the page index,
 * and removes it from the staging. `final`: the row group is ending (the
 * chunk need not keep room for another page). UPQ_OK, or a final error.
 */
upq_status upq_w_flush_page(upq_writer *w, upq_wcol *c, int final);

/* One encoded data page: where its parts are and what it holds. */
typedef struct upq_wpage {
    const uint8_t *out;   /* the stored body */
    size_t body, stored, hl;
    int64_t nans;
} upq_wpage;

/*
 * Encodes the committed staging prefix of c (`rows` rows) as one data page:
 * the body into w->pbuf, its stored form at dst[0..room) (NULL: uncompressed
 * pages stay in w->pbuf), the header into w->hbuf; mm gets the page's
 * bounds. Touches nothing else of c. `dry`: only the sizes matter (an
 * encrypted page is not sealed, so no nonce is spent). UPQ_OK, or a final
 * error.
 */
upq_status upq_w_encode_page(upq_writer *w, upq_wcol *c, int64_t rows, uint8_t *dst, size_t room,
                             upq_minmax *mm, upq_wpage *pg, int dry);

/* Removes the first n levels, nv values and vb value bytes from the staging
 * (they are in a page now), and their indices from x (may be NULL); what
 * stays is the start of the next page. */
void upq_w_drop_prefix(upq_wcol *c, upq_wdx *x, uint32_t n, uint32_t nv, uint32_t vb);

/* Levels equal to v among lv[from .. from + n) (packed 1 << lg bits each). */
uint32_t upq_w_lev_count(const uint8_t *lv, uint32_t from, uint32_t n, unsigned lg, uint32_t v);

/* Counts levels lv[0..n) into the level histogram h. */
void upq_w_hist_add(int64_t *h, const uint8_t *lv, unsigned lg, uint32_t n);

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

/* Clears every column's chunk state (pages, counts, dictionary). */
void upq_w_chunks_clear(upq_writer *w);

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
/* Bytes column `col`'s chunk key-value metadata (upq_column_opts.kv) takes in
 * its ColumnMetaData at most, field header included; 0 without any. */
#if UPQ_WITH_CHUNK_META
size_t upq_w_kv_bound(const upq_writer_opts *o, uint32_t col);
#else
#define upq_w_kv_bound(o, col) ((void)(o), (void)(col), (size_t)0)
#endif
/* A GEOMETRY / GEOGRAPHY leaf, whose chunks get geospatial statistics. */
#define UPQ_W_IS_GEO(e)                                                     \
    (UPQ_WITH_CHUNK_META && UPQ_ISSET(*(e), UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && \
     ((e)->logical_type.isset & ((1u << UPQ_LOGICAL_TYPE_GEOMETRY) | (1u << UPQ_LOGICAL_TYPE_GEOGRAPHY))))
/* bytes of a chunk's geospatial_statistics at most: its header, the bounding
 * box's eight doubles, the 28 type codes, the STOPs */
#define UPQ_W_GEO_BOUND 192u

/* Encoded bytes of one path element of len bytes. */
size_t upq_w_path_bytes(size_t len);

/* ---- encryption (writer_crypto.c) ---------------------------------------- */

#include "uparquet/crypto.h"

/* Room one encrypted module adds around its plaintext (GCM; CTR needs less). */
#define UPQ_W_CRYPTO_OVER ((size_t)UPQ_CRYPTO_GCM_OVERHEAD)
/* created_by of the files written (footer, and FILE's template) */
#define UPQ_W_CREATED_BY "uparquet version 0.1.0"

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
    uint64_t counted;           /* ... the bytes so far */
} upq_wcrypto;

enum { UPQ_WS_NONE = 0, UPQ_WS_ENCRYPT = 1, UPQ_WS_SIGN = 2, UPQ_WS_COUNT = 3, UPQ_WS_CTR = 4 };

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


/* ---- checkpoint mode (writer_journal.c, writer_finish.c, recover.c) ---- */

#include "checkpoint/journal.h"

/* Jobs of the journal's machine (upq_wjournal.job). */
enum {
    UPQ_WJ_NONE = 0,
    UPQ_WJ_PAGE,     /* one column's page (after FILE / RG_START when due) */
    UPQ_WJ_CKPT,     /* every column's page, dictionary blobs, CKPT, sync */
    UPQ_WJ_RGEND,    /* last pages, dictionary pages, bloom filters, RG_END, sync */
    UPQ_WJ_FINISH,   /* page indexes and footer (writer_finish.c) */
    UPQ_WJ_CLOSE,    /* CLOSE record and sync */
    UPQ_WJ_REPLAY    /* reading the journal back: resume and recovery (recover.c) */
};

/* Bytes kept for the CLOSE record ahead of the page indexes: its header
 * and CRC, four fields at their widest, and a module's framing when sealed. */
#define UPQ_WJ_CLOSE_ROOM(w) (UPQ_J_MIN + 48u + (UPQ_W_ENCRYPTING(w) ? (uint32_t)UPQ_W_CRYPTO_OVER : 0u))

/* A column in checkpoint mode. */
typedef struct upq_wjcol {
    uint64_t off, cap;       /* the open row group's region */
    uint64_t fill;           /* data page bytes written after the slot */
    uint64_t rate;           /* bytes per 1024 rows in the last row group (0: none yet) */
    uint64_t pfill, prows;   /* bytes and rows of the row group's pages after a dictionary fell back */
    uint32_t ppk;            /* data pages per 1024 rows: the last row group's, or estimated */
    uint32_t slot;           /* dictionary slot at the region's start */
    uint32_t dict_dur;       /* dictionary entries already in a record's blob */
    uint32_t crc;            /* CRC-32 of the region's data bytes so far (the records say it) */
    uint32_t nprow;          /* repeated columns: pages not yet in a record... */
    int32_t *prow;           /* ... and their rows */
} upq_wjcol;

/* A record being written. */
typedef struct upq_wrec {
    const upq_tstruct *desc;
    const void *obj;
    uint64_t pos;            /* file offset of the next byte */
    uint32_t len;            /* whole record */
    uint32_t crc;
    uint8_t stage, type, flags;
    uint8_t hdr[UPQ_J_HDR];
} upq_wrec;

typedef struct upq_wjournal {
    upq_wjcol *cols;
    /* record models */
    upq_jckpt ck;
    upq_jcol *jc;            /* ck.cols.v */
    upq_jrgstart rs;
    upq_jregion *reg;        /* rs.regions.v */
    upq_jkey *keys;          /* jf.keys.v: columns with their own key */
    uint8_t *kcheck;         /* their check modules, UPQ_JKEY_CHECK_LEN bytes each */
    uint8_t kcheck_done;
    upq_jfile jf;
    uint32_t jf_len;         /* bytes of FILE's settings (before its FileMetaData) */
    upq_jclose cl;
    upq_jresume rsm;
    upq_wrec rec;
    uint64_t file_id;
    uint8_t nonce[UPQ_J_NONCE]; /* the file's nonce (FILE), when it has one... */
    uint32_t nseed;          /* ... and the CRC every other record's starts from (0: none) */
    uint8_t has_nonce;       /* the FILE record carries a nonce */
    uint8_t version;         /* the file's journal version (UPQ_J_VERSION when new) */
    uint16_t probe;          /* creation: bytes of what the file's start overwrites read
                                (their hash in nonce until it is drawn)... */
    uint8_t probe_ext;       /* ... and the file extended once to show them */
    uint32_t seq;            /* the next record's sequence number */
    uint16_t session;
    uint8_t file_done;       /* the FILE record is written */
    uint8_t open;            /* a row group's regions are planned */
    uint8_t rgstart_due;     /* its RG_START is still to be written */
    uint8_t ckpt_due;        /* a checkpoint is due */
    uint8_t ckpt_wait;       /* upq_writer_checkpoint is waiting for one */
    uint8_t soft_due;        /* a record (no sync) is due for page-rows lists */
    uint8_t resuming;        /* upq_writer_resume's stage */
    uint32_t k_rows;         /* page-rows entries a repeated column keeps */
    uint64_t first_j;        /* row group 0's journal area (right after FILE) */
    uint64_t jstart, jcap, jpos; /* the open row group's journal area; next record */
    uint64_t regions_end;    /* end of its regions = start of its blobs */
    uint64_t blob;           /* blob frontier */
    uint64_t next;           /* where the next row group's journal area begins */
    uint64_t hwm;            /* file size: highest byte written + 1 */
    uint64_t entries;        /* bound of the page index entries of the pages written */
    uint64_t rg_meta;        /* bound of a RowGroup in the footer, with its index framing */
    uint8_t mshift;          /* regions' margin: 1 / 2^mshift of the estimate */
    uint8_t region_full;     /* a region of the open row group ended it early */
    uint32_t nlev, nrep;     /* level histogram entries of all columns, repeated columns (the
                                finisher's scratch) */
    uint64_t rg_limit;       /* rows the open (or next) row group may take */
    uint64_t ckpt_at;        /* file rows at which the next checkpoint is due */
    uint32_t rec_bound;      /* bytes a CKPT or RG_END can take */
    uint32_t reserve;        /* journal bytes kept for the records that end a row group */
    /* the job */
    uint8_t job, jst, fst;
    uint32_t jcol;
    upq_wcol *pc;            /* column of the page being written */
    const uint8_t *pbody;
    size_t phl, pstored;
    uint64_t ppos;
    uint8_t tag[16];         /* a module's tag, as a piece */
    struct upq_wfinish *fin; /* writer_finish.c state (arena) */
} upq_wjournal;

#define UPQ_W_JOURNAL(w) (UPQ_WITH_CHECKPOINT && (w)->jr != (struct upq_wjournal *)0)

/* Arena bytes checkpoint mode adds for ncols columns, nrep of them
 * repeated (counted by setup). */
size_t upq_wj_need(const upq_writer *w, uint32_t ncols, uint32_t nrep);
/* Sets it up in mem (upq_wj_need bytes). */
upq_status upq_wj_init(upq_writer *w, void *mem);

/* Staging of c is full: its committed prefix becomes a page in its region
 * (output queued). UPQ_OK, or a final error. */
upq_status upq_wj_page(upq_writer *w, upq_wcol *c);
/* Starts a job (output is then pumped like any other). */
void upq_wj_start(upq_writer *w, uint8_t job);
/* The job machine: the next piece of output (UPQ_OK), UPQ_DONE when the
 * job is complete, UPQ_AGAIN (a sync or a read blocked), or an error. */
upq_status upq_wj_next(upq_writer *w);
/* CRCs of the FILE record's settings and of its FileMetaData (the
 * plaintext, in an encrypted file) this writer writes: resume compares them
 * with the file's. */
upq_status upq_wj_file_crc(upq_writer *w, uint32_t *settings, uint32_t *fmd);
/* The file row of the next checkpoint after `rows`; the next row group's
 * rows limit. */
uint64_t upq_wj_next_ckpt(const upq_writer *w, uint64_t rows);
uint64_t upq_wj_next_limit(const upq_writer *w);
/* Row bookkeeping after rows were committed (checkpoint due?). */
void upq_wj_advanced(upq_writer *w);
/* After a row group: measured rates, the next row group's limits. */
void upq_wj_rg_done(upq_writer *w);

/* Bytes a dictionary page of c can take in checkpoint mode (its budget's
 * page); a row group planned for fewer rows may have a smaller slot. */
uint32_t upq_wj_dict_slot(const upq_writer *w, const upq_wcol *c);

/* Syncs the sink when it can: UPQ_OK (also without a sync callback),
 * UPQ_AGAIN, or the writer's failure (writer_out.c). */
upq_status upq_w_sync(upq_writer *w);

/* Records (writer_journal.c), used by the finisher and recovery too. */
void upq_wj_rec_begin(upq_writer *w, uint8_t type, uint8_t flags, const upq_tstruct *desc,
                      const void *obj, uint64_t pos);
/* The record's next piece (UPQ_OK) or UPQ_DONE. */
upq_status upq_wj_rec_piece(upq_writer *w);
/* Bytes of a record with this payload. */
upq_status upq_wj_rec_size(upq_writer *w, const upq_tstruct *desc, const void *obj,
                           uint32_t *len);
/* Sets the next output piece: n bytes at p to file offset off. */
void upq_wj_src(upq_writer *w, const uint8_t *p, size_t n, uint64_t off);
/* A region's running CRC (the records' `crc`) after one more page: its
 * header's bytes, then its stored body's CRC (4 bytes, little-endian). */
uint32_t upq_wj_region_crc(uint32_t crc, const uint8_t *hdr, size_t hl, uint32_t body_crc);
/* A column's counts in a CKPT / RG_END record (and the planner's worst
 * case): region fill, pages, BYTE_ARRAY bytes and the level histograms. */
void upq_wj_col_counts(upq_jcol *j, const upq_wcol *c, int64_t fill, int32_t pages, int64_t ba);

/* writer_finish.c */
/* Page-rows entries a repeated column keeps before a ROWS record. */
#define UPQ_WF_K_ROWS 16u

/* The finisher's state (writer_finish.c; recovery reads with it too). */
/* One page header as the finisher needs it. */
typedef struct upq_fpage {
    uint64_t off;          /* file offset of the header */
    uint32_t hl;           /* header bytes */
    uint32_t total;        /* header + stored body */
    int32_t type;
    int32_t encoding;
    int64_t values;        /* level entries */
    int64_t nulls;         /* -1: unknown */
    int64_t rows;
    int64_t nans;          /* -1: unknown */
    int64_t unc;           /* uncompressed body bytes */
    upq_minmax mm;         /* bounds (pointing into the scratch arena) */
} upq_fpage;

typedef struct upq_wfinish {
    uint8_t stage, lstage, xstage, fstage, cstage;
    uint8_t which;          /* phase 0: ColumnIndexes (0), then OffsetIndexes (1) */
    uint8_t footer_on, scanning, bytes_due, tdone;
    uint32_t col;           /* column of the chunk at work */
    uint32_t rg, nrg;       /* row group at work; row groups in all */
    uint64_t first_j;       /* journal area of row group 0 */
    uint64_t rg_j;          /* of the row group at work */
    uint64_t next_j;        /* of the one after it */
    uint64_t rec;           /* record being read */
    uint64_t rows;          /* rows of the file */
    uint64_t rg_rows;       /* of the row group at work */
    uint64_t area;          /* where the page indexes begin */
    uint64_t pos;           /* where the next index goes (phase 0) */
    uint64_t pi;            /* phase 1: where the current row group's indexes begin */
    uint64_t end;           /* end of the footer */
    /* the read window */
    uint8_t *buf;
    uint32_t cap, have;
    uint64_t boff;
    /* a record being read */
    upq_jhdr jh;
    uint32_t rdone, rcrc;
    /* page headers */
    upq_tdec tdec;
    upq_tframe tframes[UPQ_THRIFT_MAX_DEPTH]; /* its nesting */
    upq_page_header *ph;    /* the writer's model (idle while the finisher reads) */
    upq_arena scratch;
    uint8_t *smem;
    uint32_t scap;
    /* the chunk's pages */
    uint64_t ppos, pend;    /* next page header, end of the data pages */
    uint64_t frow;          /* first row of the next page */
    uint32_t npages, page;
    uint8_t ci_ok, in_scan, dict_done;
    int32_t boundary;
    uint32_t ci_len, oi_len; /* index sizes of the chunk scanned */
    upq_fpage pg;
    uint8_t *prev_min, *prev_max; /* the previous page's bounds (boundary order) */
    uint32_t prev_min_len, prev_max_len;
    uint8_t prev_has, asc, desc;
    uint32_t cap_b;         /* bytes of one bound buffer */
    uint8_t lit[32];
    /* page rows of repeated columns' v1 pages (page_rows_next) */
    uint64_t prow_rec;      /* next record to take a list from (0: none left) */
    uint32_t prow_n, prow_i;
    int32_t pg_rows;
    uint8_t pg_rows_ok;
    int32_t prow[UPQ_WF_K_ROWS + 1u];
    /* records decoded (their lists in the scratch arena) */
    upq_jrgstart rs;
    upq_jckpt ck;
    upq_jclose cl;
    upq_jresume rsm;
    /* replay: resume and recovery (recover.c) */
    uint32_t scrc, fcrc;    /* resume: CRCs of the file's FILE settings and FileMetaData */
    uint32_t send;          /* ... where its settings end (record offset) */
    struct upq_jfile *fj;   /* ... its settings (in the scratch arena) */
    uint8_t rstage, vstage, resume, in_rg, closed, cut, bad_pages;
    uint8_t has_crc, tfix, dry, crc_on, regcrc;
    uint16_t session;
    uint32_t seq;           /* the next record's expected sequence number */
    uint32_t rg_seq;        /* ... that of the current row group's RG_START */
    uint32_t vcol;          /* column being verified / rebuilt */
    uint64_t walk;          /* the next record (the one being verified) */
    uint64_t rg_jcap;       /* the current row group's journal area */
    uint64_t last;          /* its last verified checkpoint record (0: none) */
    uint64_t cand;          /* the checkpoint chosen */
    uint64_t cand_next;     /* where the record after it goes */
    uint64_t close_at;      /* the CLOSE record (closed) */
    uint64_t close_size;    /* ... and the file size it says */
    uint32_t close_seq;     /* ... and its sequence number */
    uint64_t close_tail;    /* ... and where the page indexes begin */
    uint32_t close_crc;     /* ... and the CRC of [tail, size) */
    uint64_t vpos, vend;    /* page verification: next page, target end */
    uint64_t bpos, bleft;   /* a page, body or blob being read */
    uint32_t bcrc, want_crc;
    uint32_t ents;          /* dictionary entries parsed in a blob... */
    uint32_t eskip;         /* ... the length prefix being read, then its bytes to skip */
    uint8_t ehave;          /* ... the prefix's bytes read (4: skipping) */
    uint64_t dict_total;    /* dictionary rebuild: PLAIN bytes, entries */
    uint32_t dict_n;
    uint64_t dict_body;     /* where its stored body starts */
    uint64_t dict_rec;      /* record whose blob is being copied */
    upq_stored sc;          /* the stored form's cursor */
    size_t srun;            /* plain bytes before the next framing */
    uint32_t pp, plen;      /* plaintext of a module still in the window: where, how much */
#if UPQ_WITH_CRYPTO
    /* an encrypted module read back: authenticated, then decrypted into
     * the window (upq_wf_module) */
    upq_cstream cs;
    upq_io cio;             /* the sink's read_at, as the module reader wants it */
    uint8_t cs_on, hs_done;
    uint8_t sealing;        /* phase 0: the pieces are an index module's text */
#endif
} upq_wfinish;

#define UPQ_WF(w) ((upq_wfinish *)(void *)(w)->jr->fin)

/* Reading back (writer_finish.c): bytes [off, off + want) into the window
 * (want <= its cap) and where they are; a corruption error at off; a
 * journal record at off decoded into the finisher's model of its type
 * (rs, ck, cl, rsm; lists in the scratch arena); the page header at off (the page may not pass end). Each
 * returns UPQ_OK, UPQ_AGAIN (call again the same way) or an error. */
upq_status upq_wf_rd(upq_writer *w, uint64_t off, uint32_t want);
const uint8_t *upq_wf_at(upq_writer *w, uint64_t off);
upq_status upq_wf_corrupt(upq_writer *w, uint64_t off, const char *what);
upq_status upq_wf_record(upq_writer *w, uint64_t off, upq_jhdr *h);
upq_status upq_wf_page_header(upq_writer *w, uint64_t off, uint64_t end, uint32_t col, int32_t page);
/* Checks the data page header just decoded (upq_wf_page_header) as the
 * finisher takes it, for column col's chunk ending at pend, and sets f->pg
 * from it: UPQ_OK, or UPQ_ERR_CORRUPT. rows_known 0: a repeated column's v1
 * page may come without its rows (f->pg.rows is then -1). */
upq_status upq_wf_page_facts(upq_writer *w, uint32_t col, uint64_t pend, int rows_known);
#if UPQ_WITH_CRYPTO
/* The next piece of the GCM module at [off, end), under key k with the AAD
 * of (module, rg, col, page): authenticated first, then handed out
 * decrypted in the window (*p, *n: UPQ_OK), UPQ_DONE once all of it was
 * handed out and authenticated again, UPQ_AGAIN, or an error (AUTH,
 * CORRUPT, IO). */
upq_status upq_wf_module(upq_writer *w, uint64_t off, uint64_t end, int module, int32_t rg, int32_t col,
                         int32_t page, const upq_wkey *k, const uint8_t **p, size_t *n);
#endif

/* The replay job of resume and recovery (recover.c). */
upq_status upq_wr_next(upq_writer *w);

size_t upq_wf_need(const upq_writer *w, uint32_t ncols, uint32_t nrep, uint32_t nlev);
void upq_wf_init(upq_writer *w, void *mem, uint32_t ncols, uint32_t nrep, uint32_t nlev);
void upq_wf_start(upq_writer *w);
upq_status upq_wf_next(upq_writer *w);
/* The CLOSE job: its record, then sync. */
upq_status upq_wf_close_next(upq_writer *w);

/* The finisher's part of the footer: the next piece of the row groups
 * (UPQ_OK), UPQ_DONE after the last, UPQ_AGAIN, or an error. */
upq_status upq_wf_footer_rgs(upq_writer *w);
void upq_wf_footer_rgs_start(upq_writer *w);

/* writer_out.c, for checkpoint mode: the footer's RowGroup generator over
 * w->cols (start, then pieces into out: UPQ_OK when complete, UPQ_AGAIN
 * when out is full); the bloom filter header model of c; the footer
 * generator (tmpl: the FILE record's FileMetaData, no row groups), whose
 * pieces go to the file from w->file_pos on (UPQ_OK: a piece; UPQ_DONE). */
upq_status upq_w_rg_gen(upq_writer *w, uint8_t *out, size_t cap, size_t *produced);
void upq_w_rg_gen_start(upq_writer *w);
void upq_w_build_bf(upq_writer *w, const upq_wcol *c);
void upq_w_footer_begin(upq_writer *w, int tmpl);
upq_status upq_w_footer_piece(upq_writer *w);

#endif
