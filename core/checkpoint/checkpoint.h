/*
 * Checkpoint mode's internals (not a public header), above the write
 * stages (write/writer_int.h) and below the front, bottom first:
 *   journal.h     the journal's format (journal.c)
 *   record.c      a record written as pieces; the figures records state
 *   writer_finish.c  the finisher: page indexes and the footer, from the
 *                 file's journal; its read window, which replay reads with
 *   replay.h      replay: reading the journal back (replay_dict.c, replay.c)
 *   writer_journal.c  the region layout, the FILE record and the journal's
 *                 job machine, which runs the finisher and replay as jobs
 */
#ifndef UPQ_CHECKPOINT_H
#define UPQ_CHECKPOINT_H

#include "write/writer_int.h"
#include "journal.h"

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

/* The sector the gaps' zeros are aligned to (an SD card's, a FAT volume's). */
#define UPQ_WJ_SECTOR 512u
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
    uint8_t stage, type;
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
    uint8_t rg_ended;        /* the job that ended has ended a row group */
    uint8_t sum_ok;          /* the open row group's totals are all in the columns (RG_SUM) */
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

#define UPQ_W_JOURNAL(w) (UPQ_WITH_CHECKPOINT && (!UPQ_WITH_BUFFERED || (w)->jr != (struct upq_wjournal *)0))

/* Arena bytes checkpoint mode adds for ncols columns, nrep of them
 * repeated (counted by setup). */
size_t upq_wj_need(const upq_writer_opts *o, uint32_t ncols, uint32_t nrep);
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
/* After a row group: measured rates, the next row group's margins
 * (rg_ended set: the driver then moves the staging on and sets the next
 * row group's rows limit). */
void upq_wj_rg_done(upq_writer *w);

/* Bytes a dictionary page of c can take in checkpoint mode (its budget's
 * page); a row group planned for fewer rows may have a smaller slot. */
uint32_t upq_wj_dict_slot(const upq_writer *w, const upq_wcol *c);
/* ... and when its entries take `plain` bytes (at most its budget). */
uint32_t upq_wj_dict_slot_n(const upq_writer *w, const upq_wcol *c, size_t plain);

/* Syncs the sink when it can: UPQ_OK (also without a sync callback),
 * UPQ_AGAIN, or the writer's failure (writer_out.c). */
upq_status upq_w_sync(upq_writer *w);

/* Records (record.c): written by the region layout, the finisher and replay. */
/* A record of this type and payload begins at file offset pos (then
 * upq_wj_rec_piece until UPQ_DONE). */
void upq_wj_rec_begin(upq_writer *w, uint8_t type, const upq_tstruct *desc, const void *obj,
                      uint64_t pos);
/* The record's next piece (UPQ_OK) or UPQ_DONE. */
upq_status upq_wj_rec_piece(upq_writer *w);
/* Bytes of a record with this payload. */
upq_status upq_wj_rec_size(upq_writer *w, const upq_tstruct *desc, const void *obj,
                           uint32_t *len);
/* Sets the next output piece: n bytes at p to file offset off. */
void upq_wj_src(upq_writer *w, const uint8_t *p, size_t n, uint64_t off);
/* The open row group's gaps as zeros, so that no byte of a closed or
 * recovered file keeps what the medium held before: the journal area after
 * jr->jpos, each slot before its dictionary page (c->dict_hdr) and each
 * region after its fill. Start, then take pieces (output set, from w->pbuf,
 * ending on UPQ_WJ_SECTOR boundaries) until UPQ_DONE. Uses jr->jcol and
 * jr->ppos. Not for a sink with seal: it writes its gaps as zeros itself. */
void upq_wj_gaps_start(upq_writer *w);
upq_status upq_wj_gaps_next(upq_writer *w);
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
    uint8_t lk;             /* the next ColumnIndex list a page's entry goes to (1..4; 0: none) */
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
    uint8_t ra;             /* the chunk's pages are small: headers read a window ahead */
    uint8_t seq_ci;         /* one pass, on an append-only sink: the ColumnIndex list by list */
    uint8_t both;           /* the chunk's scan writes its ColumnIndex too, at the places
                               its RG_SUM gives (checked against the scan at its end) */
    uint8_t gather;         /* the scratch beyond a page header's has room for the
                               ColumnIndex's four lists while the scan runs (out_b) */
    uint8_t wide;           /* the window in use is the wide one (upq_wf_win) */
    uint8_t null_free;      /* no page of the chunk has a null or is all nulls */
    int32_t boundary;
    uint32_t ci_len, oi_len; /* index sizes of the chunk scanned */
    upq_fpage pg;
    uint8_t *prev_min, *prev_max; /* the previous page's bounds (boundary order) */
    uint32_t prev_min_len, prev_max_len;
    uint8_t prev_has, asc, desc;
    uint8_t has_sum;        /* the loaded row group's totals came from its RG_SUMs */
    uint32_t ncap;          /* bytes of the window not in use (0: the one window; upq_wf_win) */
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
    uint8_t sum_bad;        /* the finisher: an RG_SUM disagreed with its pages, none is taken */
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
    uint64_t bpos, bleft;   /* a page, body or blob being read */
    uint32_t bcrc;
    uint32_t want_crc;      /* replay: a page's or stored form's CRC; the finisher's phase 0:
                               the loaded RG_SUMs' (checked against its scan) */
    uint32_t ents;          /* dictionary entries parsed in a blob... */
    uint32_t eskip;         /* ... the length prefix being read, then its bytes to skip */
    uint8_t ehave;          /* ... the prefix's bytes read (4: skipping) */
    uint32_t dict_n;        /* dictionary rebuild: entries */
    /* what replay's dictionary rebuild and the finisher's index passes
     * keep apart: never at work at once (upq_wf_init clears both) */
    union {
        struct {
            uint64_t vpos, vend; /* page verification: next page, target end */
            uint64_t dict_total; /* dictionary rebuild: PLAIN bytes */
            uint64_t dict_body;  /* where its stored body starts */
            uint64_t dict_rec;   /* record whose blob is being copied */
            upq_stored sc;       /* the stored form's cursor */
            size_t srun;         /* plain bytes before the next framing */
            uint32_t pp, plen;   /* plaintext of a module still in the window: where, how much */
        } rd;
        struct {
            /* the lists written in one pass, the OffsetIndex (0) and the
             * ColumnIndex's four (1..4): each one's next place in the file
             * and the bytes gathered for it (writer_finish.c, out_b) */
            uint64_t at[5];
            uint16_t n[5];
            uint32_t mins_len, maxs_len; /* the chunk's ColumnIndex's min and max entries */
        } op;
    } u;
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

/* A chunk's totals (record.c), as the finisher reads them from the page
 * headers and the region layout keeps them as it writes (RG_SUM). */
/* The facts of data page header ph into p (all but off, hl, total):
 * UPQ_OK, or UPQ_ERR_CORRUPT when it is no data page. */
upq_status upq_wj_page_facts(const upq_page_header *ph, upq_fpage *p);
/* 1 when page p has no value: its ColumnIndex entry has empty bounds; the
 * bytes of its entry's minimum (max 0) or maximum (max 1). */
int upq_wj_page_null(const upq_fpage *p);
uint32_t upq_wj_entry_len(const upq_fpage *p, int max);
/* 1 when page p leaves its chunk without a ColumnIndex. */
int upq_wj_ci_breaks(const upq_fpage *p);
/* Page p (its first row frow of the row group) joins c's totals, and its
 * index entries' bytes the sums *ci and *oi. */
void upq_wj_tally(upq_wcol *c, const upq_fpage *p, uint64_t frow, uint32_t *ci, uint32_t *oi);
/* Page p's entries in the ColumnIndex's min_values and max_values lists
 * join the sums *mins and *maxs (RG_SUM states them, so that close knows
 * where each list goes before it reads a page). */
void upq_wj_list_lens(const upq_fpage *p, uint32_t *mins, uint32_t *maxs);
/* Where a column keeps those sums (RG_SUM's fields 15 and 16) while its row
 * group is written or its RowGroup is made: in its ColumnIndex's and
 * OffsetIndex's offsets, which only the finisher's footer pass sets (the
 * column state has no other room to spare). -1: RG_SUM did not say. */
#define UPQ_WC_MINS(c) ((c)->ci_off)
#define UPQ_WC_MAXS(c) ((c)->oi_off)
/* c's index sizes from those sums, for npages pages (ci_ok 0: no ColumnIndex). */
void upq_wj_index_lens(const upq_writer *w, upq_wcol *c, uint32_t npages, int ci_ok, uint32_t ci,
                       uint32_t oi, int32_t boundary);
/* A field header (delta 1..15) and a list header of n elements of wire type ct. */
size_t upq_wj_list_field(uint8_t *p, unsigned delta, uint32_t n, unsigned ct);
/* Column i's totals as RG_SUM's payload (in a model that stays until the
 * next call); the bytes of its RG_SUM at most. */
const upq_jtot *upq_wj_tot_fill(upq_writer *w, uint32_t i);
uint32_t upq_wj_sum_bound(const upq_writer *w, uint32_t i);

/* Reading back (writer_finish.c): bytes [off, off + want) into the window
 * (want <= its cap) and where they are; a corruption error at off; a
 * journal record at off decoded into the finisher's model of its type
 * (rs, ck, cl, rsm; lists in the scratch arena); the page header at off (the page may not pass end). Each
 * returns UPQ_OK, UPQ_AGAIN (call again the same way) or an error. */
upq_status upq_wf_rd(upq_writer *w, uint64_t off, uint32_t want);
/* The window the next reads go through: the wide one (wide 1: page
 * headers and bodies, which decode into a page header's room of the
 * scratch at most) over the rest of the scratch, or the one after the
 * scratch (0: records, which decode into all of it). Reading a record or a
 * page header chooses it; a reader of pages' bytes alone chooses the wide
 * one. A change drops the window's bytes. */
void upq_wf_win(upq_writer *w, int wide);
const uint8_t *upq_wf_at(upq_writer *w, uint64_t off);
upq_status upq_wf_corrupt(upq_writer *w, uint64_t off, const char *what);
/* The record at off, its header into *h; its header is read with `ahead`
 * bytes after it (at most the window, not past what the finisher writes),
 * so that its body and CRC come in the same read: UPQ_WF_REC_AHEAD where
 * pages are read between records (a checkpoint of the sensor logger's 11
 * columns takes about 240 bytes), UINT32_MAX where records are read one
 * after another. */
#define UPQ_WF_REC_AHEAD 512u
upq_status upq_wf_record(upq_writer *w, uint64_t off, upq_jhdr *h, uint32_t ahead);
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

size_t upq_wf_need(const upq_writer_opts *o, size_t hbuf_cap, uint32_t ncols, uint32_t nrep, uint32_t nlev);
void upq_wf_init(upq_writer *w, void *mem, uint32_t ncols, uint32_t nrep, uint32_t nlev);
void upq_wf_start(upq_writer *w);
upq_status upq_wf_next(upq_writer *w);
/* The CLOSE job: its record, then sync. */
upq_status upq_wf_close_next(upq_writer *w);

/* The finisher's part of the footer, the footer generator's row groups
 * (an upq_w_rgs_fn): start, then the next piece (UPQ_OK), UPQ_DONE after
 * the last, UPQ_AGAIN, or an error. */
upq_status upq_wf_footer_rgs(upq_writer *w, int start);

#endif
