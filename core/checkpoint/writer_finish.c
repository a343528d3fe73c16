/*
 * The finisher of checkpoint mode: page indexes and the footer, made from
 * what the file holds. Close runs it after the last row group; recovery runs
 * it on a file cut short, after bringing its last row group to an end. So a
 * closed file and a recovered one come out of the same code.
 *
 * Nothing per row group stays in RAM. The journal says where each row
 * group's regions are and how far each chunk was filled (RG_START, RG_END);
 * each chunk's pages say the rest in their headers: sizes, value and null
 * counts, statistics, encodings. A chunk is read as a run of page headers
 * (the bodies are skipped): once to scan it (totals, the indexes' sizes,
 * boundary order), writing its OffsetIndex as it goes, and once more to write
 * its ColumnIndex, whose four lists (null pages, minima, maxima, null
 * counts: Thrift stores them column-wise) each go to their own place, known
 * from the scan, gathered in a buffer of their own (on an append-only sink,
 * which frames only writes that continue one another, one list after the
 * other, a pass each); then once more, with
 * every row group's chunks, to make the footer, whose ColumnChunks need the
 * totals and where each index went. An encrypted file's index modules state
 * their length before their text, so there each list takes a pass of its
 * own and each OffsetIndex one more. Memory is a read window, a page header
 * and the column states the writer has anyway (the lists gather in buffers
 * the finisher has: its literal bytes, the bound buffers of the scan); time
 * is linear in the number of pages.
 *
 * Layout of what it writes, after the last row group's blobs:
 *   [room for the CLOSE record]
 *   [per row group: per column its OffsetIndex, then its ColumnIndex
 *    (encrypted: all ColumnIndexes, then all OffsetIndexes)]
 *   [footer]
 */
#include "checkpoint.h"
#include "crypto/crypto_int.h"

#if UPQ_WITH_WRITER

#define WIN_MIN 256u
/* The window at most: reads of page bodies (replay's checks) and of runs of
 * small pages' headers come in pieces this large. A read call's time stays
 * bounded where the arena is large (a host's `upq recover`): 16 KiB, what
 * the append sink's seal copies a call. */
#define WIN_MAX 16384u
/* Chunks whose pages average at most this (and half the window) are read
 * ahead, a window at a time, their headers found in it: a header read alone
 * costs a sector or two of the device anyway, and a call each. Larger
 * pages' headers are read alone. */
#define RA_PAGE 1024u
#define HDR_READ 64u /* the first read of a page header */
/* An OffsetIndex entry's bytes at most (three fields and STOP). */
#define OI_MAX 29u
/* A file not encrypted gets each chunk's indexes in one pass over its page
 * headers each (chunk_index1); an encrypted index module's length is
 * stated before its text, so those are written list by list (chunk_index). */
#define ONE_PASS(w) (!UPQ_W_ENCRYPTING(w))
/* Bytes each of the ColumnIndex's four lists gathers while the scan that
 * writes the OffsetIndex writes them too (in the scratch a record needs
 * beyond a page header; without that room, the lists get a pass of their
 * own). */
#define GROOM 64u

/* Stages of the finisher. */
enum {
    F_INIT = 0,
    F_RG_FIRST,   /* phase 0: page indexes, a row group at a time */
    F_RG_LOAD,
    F_CHUNK,
    F_FOOTER,
    F_SYNC,
    F_TAIL,
    F_DONE
};

/* Reading a record (read_record). */
enum { L_HDR = 0, L_BODY, L_OPEN };

/* A chunk's index emission (F_CHUNK). */
enum {
    X_SCAN = 0,   /* count pages, ColumnIndex possible?, boundary order */
    X_OPEN,       /* an encrypted column's index: the module's length and nonce */
    X_CI_HEAD,
    X_NULL_PAGES,
    X_MIN_HEAD,
    X_MINS,
    X_MAX_HEAD,
    X_MAXS,
    X_ORDER,
    X_NULL_COUNTS,
    X_CI_END,
    X_OI_HEAD,
    X_OI_PAGES,
    X_OI_ROW,
    X_OI_END,
    X_TAG,        /* ... and its tag */
    X_DONE
};


static size_t a8(size_t n)
{
    return upq_w_align8(n);
}

/* The bytes of one stored bound: the widest column's. */
static uint32_t bound_cap(const upq_writer_opts *o)
{
    uint32_t m = 16;
    if (o->stats_max_binary > m)
        m = o->stats_max_binary;
    return m;
}

/* Scratch for decoding one page header: its two bounds, each as long as
 * stats_max_binary. */
static size_t header_need(const upq_writer_opts *o)
{
    return a8(2u * a8(bound_cap(o)) + 64u);
}

/* Where in the scratch the wide window begins: after a page header's room
 * and the lists gathered during a scan (upq_wf_win). */
static size_t wide_at(const upq_writer *w)
{
    return header_need(&w->o) + (UPQ_WF(w)->gather ? 4u * GROOM : 0u);
}

/* Scratch for decoding: one page header, or one journal record of ncols
 * columns whose level histograms have nlev entries in all. */
static size_t scratch_need(const upq_writer_opts *o, uint32_t ncols, uint32_t nrep, uint32_t nlev)
{
    size_t ph = header_need(o);
    /* a record's lists, one record at a time: RG_START's regions, or a
     * checkpoint's columns with their histograms and repeated columns' page
     * rows */
    size_t rs = a8((size_t)ncols * sizeof(upq_jregion)) + 64u;
    size_t rec = a8((size_t)ncols * sizeof(upq_jcol)) + (size_t)ncols * 2u * 8u +
                 (size_t)nrep * a8((UPQ_WF_K_ROWS + 1u) * sizeof(int32_t)) + (size_t)nlev * 8u + 64u;
    /* resume: the FILE record's settings */
    size_t fs = a8(sizeof(upq_jfile)) + a8(UPQ_J_NONCE) + 64u;
    /* an RG_SUM: a column's totals and bounds */
    size_t sum = a8(sizeof(upq_jtot)) + 2u * a8(bound_cap(o)) + 64u;
    if (rs > rec)
        rec = rs;
    if (sum > rec)
        rec = sum;
    const upq_encrypt_opts *e = o->encrypt;
    uint32_t i;
    if (e) {
        fs += a8(e->aad_prefix_len) + a8(e->footer_key_metadata_len) + 32u +
              a8((size_t)e->ncolumns * sizeof(upq_jkey));
        for (i = 0; i < e->ncolumns; i++)
            fs += a8(e->columns[i].key_metadata_len) + UPQ_JKEY_CHECK_LEN;
    }
    if (fs > rec)
        rec = fs;
    return ph > rec ? ph : rec;
}

size_t upq_wf_need(const upq_writer_opts *o, size_t hbuf_cap, uint32_t ncols, uint32_t nrep, uint32_t nlev)
{
    size_t b = bound_cap(o), win = hbuf_cap > WIN_MIN ? hbuf_cap : WIN_MIN;
    /* the state, the window, decoding scratch, two bound buffers (the
     * ColumnIndex's lists gathered there when written in one pass) */
    return a8(sizeof(upq_wfinish)) + a8(win) + a8(scratch_need(o, ncols, nrep, nlev)) + 2u * a8(b);
}

void upq_wf_init(upq_writer *w, void *mem, uint32_t ncols, uint32_t nrep, uint32_t nlev)
{
    upq_wfinish *f = (upq_wfinish *)mem;
    uint8_t *p = (uint8_t *)mem;
    size_t b = bound_cap(&w->o);
    size_t sc = a8(scratch_need(&w->o, ncols, nrep, nlev));
    size_t win;
    upq_memset(f, 0, sizeof *f);
    f->ph = &UPQ_W_MODELS(w)->ph;
    p += a8(sizeof *f);
    f->prev_min = p;
    p += a8(b);
    f->prev_max = p;
    p += a8(b);
    f->smem = p;
    f->scap = (uint32_t)sc;
    /* where a record's lists need more scratch than a page header, the
     * rest gathers the ColumnIndex's lists while the scan that writes the
     * OffsetIndex runs (it reads page headers only: not for a repeated
     * column, whose v1 pages take their rows from records) */
    f->gather = (uint8_t)(sc >= header_need(&w->o) + 4u * GROOM);
    p += sc;
    /* the window last: it takes what the staging leaves (the staging is
     * empty whenever the finisher runs; the block is at least the
     * finisher's need, upq_wf_need) and what the arena holds after it, up
     * to WIN_MAX. Setup takes nothing after the staging but a page's
     * scratch (dictionary indices, values, bounds), which no page uses
     * while the finisher runs; the rest is free (a compressor's workspace
     * is taken there only while a page is made). */
    win = (size_t)(w->arena.base + w->arena.cap - p);
    f->buf = p;
    f->cap = (uint32_t)(win < WIN_MAX ? win : WIN_MAX);
    /* page headers and bodies, which decode into a page header's room of
     * the scratch at most, are read through a wider window that begins
     * after that room (and the lists'): the records' room and the window
     * after it (not in an encrypted file: its modules are opened in the
     * window, their headers decoded from there) */
    win += sc - wide_at(w);
    if (!UPQ_W_ENCRYPTING(w) && win > f->cap)
        f->ncap = (uint32_t)(win < WIN_MAX ? win : WIN_MAX);
}

void upq_wf_win(upq_writer *w, int wide)
{
    upq_wfinish *f = UPQ_WF(w);
    uint32_t n = f->cap;
    if (!f->ncap || f->wide == (uint8_t)(wide != 0))
        return;
    f->wide = (uint8_t)(wide != 0);
    f->buf = f->smem + (f->wide ? wide_at(w) : f->scap);
    f->cap = f->ncap;
    f->ncap = n;
    f->have = 0; /* its bytes are read afresh */
}

void upq_wf_start(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->stage = F_INIT;
}

/* ---- reading --------------------------------------------------------------- */

/* Makes bytes [off, off + want) available in the window (want <= cap),
 * reading what is missing, and on to off + ahead where the file has them
 * (ahead >= want: what the caller reads next; the file's end stops it, a
 * short file is corrupt only short of want). UPQ_OK, UPQ_AGAIN (call again
 * with the same arguments), or an error. */
static upq_status rd_ahead(upq_writer *w, uint64_t off, uint32_t want, uint32_t ahead)
{
    upq_wfinish *f = UPQ_WF(w);
    if (want > f->cap)
        return upq_w_fail(w, UPQ_ERR_STATE, -1, "read larger than the window");
    if (off >= f->boff && off - f->boff <= f->have && want <= f->have - (off - f->boff))
        return UPQ_OK; /* there already */
    if (f->boff != off) {
        f->boff = off;
        f->have = 0;
    }
    while (f->have < want) {
        size_t got = 0;
        upq_status st = w->sink.read_at(w->sink.ctx, off + f->have, f->buf + f->have, ahead - f->have, &got);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK || got == 0 || got > ahead - f->have) {
            st = st != UPQ_OK ? UPQ_ERR_IO : UPQ_ERR_CORRUPT;
            upq_w_fail(w, st, -1, st == UPQ_ERR_IO ? "reading the file back failed"
                                                   : "the file ends inside what its journal describes");
            w->err.offset = off + f->have;
            return st;
        }
        f->have += (uint32_t)got;
    }
    return UPQ_OK;
}

upq_status upq_wf_rd(upq_writer *w, uint64_t off, uint32_t want)
{
    return rd_ahead(w, off, want, want);
}

/* Bytes the window holds from file offset off on (0 when off is outside). */
static uint32_t win_left(const upq_wfinish *f, uint64_t off)
{
    return off >= f->boff && off - f->boff < f->have ? f->have - (uint32_t)(off - f->boff) : 0u;
}

/* The window's bytes at file offset off (rd made them available). */
const uint8_t *upq_wf_at(upq_writer *w, uint64_t off)
{
    upq_wfinish *f = UPQ_WF(w);
    return f->buf + (size_t)(off - f->boff);
}

upq_status upq_wf_corrupt(upq_writer *w, uint64_t off, const char *what)
{
    (void)what; /* UPQ_NO_ERRSTR builds keep no texts */
    upq_w_fail(w, UPQ_ERR_CORRUPT, -1, what);
    w->err.offset = off;
    return UPQ_ERR_CORRUPT;
}

/*
 * Reads and decodes the record at `off` into `obj` (its type's description,
 * allocated from the scratch arena), checking magic, length, file id, CRC.
 * UPQ_OK, UPQ_AGAIN, or UPQ_ERR_CORRUPT.
 */
static upq_status read_record(upq_writer *w, uint64_t off, uint32_t ahead)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st;
    for (;;) {
        switch (f->lstage) {
        case L_HDR: {
            const upq_tstruct *d;
            void *obj;
            st = rd_ahead(w, off, UPQ_J_HDR, ahead);
            if (st != UPQ_OK)
                return st;
            if (upq_j_hdr_get(upq_wf_at(w, off), &f->jh, UINT32_MAX) != UPQ_OK ||
                f->jh.file_id != w->jr->file_id)
                return upq_wf_corrupt(w, off, "journal record missing");
            d = upq_j_desc(f->jh.type);
            if (!d || (f->jh.flags & UPQ_J_SEALED) != (UPQ_W_ENCRYPTING(w) ? UPQ_J_SEALED : 0u) ||
                ((f->jh.flags & UPQ_J_SEALED) && f->jh.len < UPQ_J_MIN + UPQ_W_CRYPTO_OVER))
                return upq_wf_corrupt(w, off, "journal record of an unknown kind");
            switch (f->jh.type) {
            case UPQ_J_RG_START: obj = &f->rs; break;
            case UPQ_J_CLOSE: obj = &f->cl; break;
            case UPQ_J_RESUME: obj = &f->rsm; break;
            case UPQ_J_FILE: return upq_wf_corrupt(w, off, "journal record out of place");
            default: obj = &f->ck; break;
            }
            f->rcrc = upq_crc32_update(w->jr->nseed, upq_wf_at(w, off), UPQ_J_HDR);
            f->rdone = UPQ_J_HDR;
            f->tdone = 0;
            upq_arena_init(&f->scratch, f->smem, f->scap);
            if (f->jh.type == UPQ_J_RG_SUM) { /* at the scratch's start (sum_take) */
                obj = upq_arena_alloc(&f->scratch, sizeof(upq_jtot));
                if (!obj)
                    return upq_wf_corrupt(w, off, "journal record damaged");
            }
            upq_tdec_init(&f->tdec, f->tframes, UPQ_THRIFT_MAX_DEPTH, d, obj, &f->scratch,
                          f->jh.len - UPQ_J_MIN, (const upq_thrift_limits *)0);
            f->lstage = L_BODY;
            continue;
        }
#if UPQ_WITH_CRYPTO
        case L_OPEN: {
            /* a sealed record whose bytes passed their CRC: its payload is
             * a module under the footer key */
            const uint8_t *p;
            size_t n, used = 0;
            st = upq_wf_module(w, off + UPQ_J_HDR, off + f->jh.len - UPQ_J_CRC, UPQ_MODULE_JOURNAL, -1, -1,
                               -1, &w->wc->footer, &p, &n);
            if (st == UPQ_AGAIN)
                return st;
            if (st == UPQ_DONE) {
                f->lstage = L_HDR;
                if (!f->tdone)
                    return upq_wf_corrupt(w, off, "journal record damaged");
                return UPQ_OK;
            }
            if (st != UPQ_OK) {
                f->lstage = L_HDR;
                return st;
            }
            if (f->tdone) {
                f->cs_on = 0;
                f->lstage = L_HDR;
                return upq_wf_corrupt(w, off, "journal record damaged");
            }
            st = upq_tdec_feed(&f->tdec, p, n, &used);
            if (st == UPQ_OK && used == n) {
                f->tdone = 1;
            } else if (st != UPQ_AGAIN) {
                f->cs_on = 0;
                f->lstage = L_HDR;
                return upq_wf_corrupt(w, off, "journal record damaged");
            }
            continue;
        }
#endif
        case L_BODY: {
            uint32_t left = f->jh.len - UPQ_J_CRC - f->rdone, n = left < f->cap ? left : f->cap;
            size_t used = 0;
            if (left == 0) {
                st = upq_wf_rd(w, off + f->rdone, UPQ_J_CRC);
                if (st != UPQ_OK) {
                    if (st != UPQ_AGAIN)
                        f->lstage = L_HDR;
                    return st;
                }
                f->lstage = L_HDR;
                if (upq_load_le32(upq_wf_at(w, off + f->rdone)) != f->rcrc ||
                    (!f->tdone && !(f->jh.flags & UPQ_J_SEALED)))
                    return upq_wf_corrupt(w, off, "journal record damaged");
#if UPQ_WITH_CRYPTO
                if (f->jh.flags & UPQ_J_SEALED) {
                    f->lstage = L_OPEN;
                    continue;
                }
#endif
                return UPQ_OK;
            }
            st = upq_wf_rd(w, off + f->rdone, n);
            if (st != UPQ_OK) {
                if (st != UPQ_AGAIN)
                    f->lstage = L_HDR; /* the next call reads a record afresh */
                return st;
            }
            f->rcrc = upq_crc32_update(f->rcrc, upq_wf_at(w, off + f->rdone), n);
            if (f->jh.flags & UPQ_J_SEALED) {
                f->rdone += n; /* the CRC first; the module is opened after it */
                continue;
            }
            if (f->tdone) {
                f->lstage = L_HDR;
                return upq_wf_corrupt(w, off, "journal record damaged");
            }
            st = upq_tdec_feed(&f->tdec, upq_wf_at(w, off + f->rdone), n, &used);
            if (st == UPQ_OK) {
                f->tdone = 1;
                if (used != n) {
                    f->lstage = L_HDR;
                    return upq_wf_corrupt(w, off, "journal record damaged");
                }
            } else if (st != UPQ_AGAIN) {
                f->lstage = L_HDR;
                return upq_wf_corrupt(w, off, "journal record damaged");
            }
            f->rdone += n;
            continue;
        }
        default:
            f->lstage = L_HDR;
            continue;
        }
    }
}

/* The header goes out whenever the record is whole, also when it took
 * several calls (the caller's copy of an earlier call is not kept). */
upq_status upq_wf_record(upq_writer *w, uint64_t off, upq_jhdr *h, uint32_t ahead)
{
    upq_wfinish *f = UPQ_WF(w);
    /* the header with the record's body and CRC after it, in one read
     * where the file has them: up to its end in replay (which reads
     * nothing it writes), up to where the finisher writes (CLOSE, the
     * indexes, the footer, whose copy reads them back) */
    uint64_t end = f->stage == F_INIT ? w->jr->hwm : w->jr->next;
    upq_status st;
    upq_wf_win(w, 0); /* a record decodes into all of the scratch */
    if (ahead > f->cap)
        ahead = f->cap;
    if (off + ahead > end)
        ahead = off + UPQ_J_HDR < end ? (uint32_t)(end - off) : UPQ_J_HDR;
    st = read_record(w, off, ahead);
    upq_memcpy(h, &UPQ_WF(w)->jh, sizeof *h); /* a struct copy is a memcpy call on Cortex-M0+ */
    return st;
}

/* ---- a row group's description --------------------------------------------------- */

/*
 * A record of the row group before RG_END, just read: an RG_SUM (in the
 * scratch arena) holds column
 * f->col's totals as its ColumnChunk states them. They are taken when the
 * row group's RG_SUMs come one a column in order; f->col stops counting
 * at the first that does not fit (its chunks are then scanned).
 */
static UPQ_NOINLINE void sum_take(upq_writer *w, uint8_t type)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_jtot *t = (const upq_jtot *)(void *)f->smem;
    upq_wcol *c;
    if (type != UPQ_J_RG_SUM)
        return;
    if (f->col >= w->ncols || t->rg != (int32_t)f->rg || t->col != (int32_t)f->col || UPQ_W_ENCRYPTING(w) ||
        t->unc < 0 || t->comp < 0 || t->values < 0 || t->nulls < 0 || t->nans < 0 || t->pages_dict < 0 ||
        t->ci_len < 0 || t->oi_len < 0 || t->min.len > w->cols[f->col].st.cap ||
        t->max.len > w->cols[f->col].st.cap) {
        f->col = UINT32_MAX;
        return;
    }
    c = &w->cols[f->col++];
    c->unc_bytes = t->unc;
    c->comp_bytes = t->comp;
    c->num_values = t->values;
    c->nulls = t->nulls;
    c->nans = t->nans;
    c->enc_mask = (uint32_t)t->enc_mask;
    c->pages_dict = c->dict_pages = (uint32_t)t->pages_dict;
    c->ci_len = t->ci_len;
    c->oi_len = t->oi_len;
    /* the ColumnIndex's min and max lists' bytes (phase 1 sets the index
     * offsets they wait in after it loads the row group again) */
    UPQ_WC_MINS(c) = UPQ_ISSET(*t, UPQ_JTOT_MINS) ? t->mins : -1;
    UPQ_WC_MAXS(c) = UPQ_ISSET(*t, UPQ_JTOT_MAXS) ? t->maxs : -1;
    upq_minmax_reset(&c->st);
    c->st.has = (uint8_t)((uint32_t)t->mm & 1u);
    c->st.min_ok = (uint8_t)(UPQ_ISSET(*t, UPQ_JTOT_MIN) && ((uint32_t)t->mm & 2u));
    c->st.max_ok = (uint8_t)(UPQ_ISSET(*t, UPQ_JTOT_MAX) && ((uint32_t)t->mm & 4u));
    c->st.min_exact = (uint8_t)((uint32_t)t->mm >> 3 & 1u);
    c->st.max_exact = (uint8_t)((uint32_t)t->mm >> 4 & 1u);
    if (c->st.min_ok && t->min.len)
        upq_memcpy(c->st.min, t->min.ptr, t->min.len);
    if (c->st.max_ok && t->max.len)
        upq_memcpy(c->st.max, t->max.ptr, t->max.len);
    c->st.min_len = c->st.min_ok ? t->min.len : 0u;
    c->st.max_len = c->st.max_ok ? t->max.len : 0u;
}

/* A CRC of every column's totals as the footer takes them: phase 0 compares
 * RG_SUM's with what its scan of the pages finds, and on a difference no
 * RG_SUM of the file is taken. */
static UPQ_NOINLINE uint32_t tot_crc(const upq_writer *w)
{
    uint32_t i, crc = 0;
    for (i = 0; i < w->ncols; i++) {
        const upq_wcol *c = &w->cols[i];
        uint8_t b[64];
        upq_store_le64(b, (uint64_t)c->unc_bytes);
        upq_store_le64(b + 8, (uint64_t)c->comp_bytes);
        upq_store_le64(b + 16, (uint64_t)c->num_values);
        upq_store_le64(b + 24, (uint64_t)c->nulls);
        upq_store_le64(b + 32, (uint64_t)c->nans);
        upq_store_le32(b + 40, c->enc_mask);
        upq_store_le32(b + 44, c->pages_dict);
        upq_store_le32(b + 48, (uint32_t)c->ci_len);
        upq_store_le32(b + 52, (uint32_t)c->oi_len);
        b[56] = c->st.has;
        b[57] = c->st.min_ok;
        b[58] = c->st.max_ok;
        b[59] = c->st.min_exact;
        b[60] = c->st.max_exact;
        crc = upq_crc32_update(crc, b, 61);
        if (c->st.has && c->st.min_ok)
            crc = upq_crc32_update(crc, c->st.min, c->st.min_len);
        if (c->st.has && c->st.max_ok)
            crc = upq_crc32_update(crc, c->st.max, c->st.max_len);
    }
    return crc;
}

/*
 * Loads row group fin->rg's regions (RG_START) and final state (RG_END)
 * from its journal area at f->rg_j into jr->cols and w->cols. UPQ_OK,
 * UPQ_AGAIN, or an error.
 */
static upq_status rg_load(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_jhdr h;
    upq_status st;
    uint32_t i;
    for (;;) {
        if (f->rec == 0)
            f->rec = f->rg_j;
        if (f->rec == f->rg_j) {
            upq_jrgstart *rs = &f->rs;
            st = upq_wf_record(w, f->rec, &h, UINT32_MAX);
            if (st != UPQ_OK)
                return st;
            if (h.type == UPQ_J_RESUME || h.type == UPQ_J_CLOSE) {
                /* between row groups: a session resumed here (after a
                 * close, whose page indexes the chain steps over) */
                f->rg_j = h.type == UPQ_J_CLOSE ? (uint64_t)f->cl.tail : f->rg_j + h.len;
                f->rec = 0;
                if (f->rg_j == jr->next)
                    return UPQ_DONE; /* no row group after it */
                continue;
            }
            if (h.type != UPQ_J_RG_START || rs->rg != (int32_t)f->rg || rs->regions.n != w->ncols)
                return upq_wf_corrupt(w, f->rec, "row group start missing");
            f->col = 0; /* RG_SUMs taken */
            for (i = 0; i < w->ncols; i++) {
                const upq_jregion *r = &rs->regions.v[i];
                jr->cols[i].off = (uint64_t)r->off;
                jr->cols[i].cap = (uint64_t)r->cap;
                jr->cols[i].slot = UPQ_ISSET(*r, UPQ_JREGION_SLOT) ? (uint32_t)r->slot : 0u;
                UPQ_WC_MINS(&w->cols[i]) = UPQ_WC_MAXS(&w->cols[i]) = -1; /* no RG_SUM yet (sum_take) */
                if (r->off < 0 || r->cap < 0 || (uint64_t)r->cap < jr->cols[i].slot)
                    return upq_wf_corrupt(w, f->rec, "row group start damaged");
            }
            f->rec += h.len;
            continue;
        }
        {
            upq_jckpt *ck = &f->ck;
            st = upq_wf_record(w, f->rec, &h, UINT32_MAX);
            if (st != UPQ_OK)
                return st;
            f->rec += h.len;
            if (h.type != UPQ_J_RG_END) {
                sum_take(w, h.type); /* CKPT, ROWS: the row group's end says it all */
                continue;
            }
            if (ck->rg != (int32_t)f->rg || ck->cols.n != w->ncols || ck->rows <= 0 ||
                !UPQ_ISSET(*ck, UPQ_JCKPT_NEXT))
                return upq_wf_corrupt(w, f->rec, "row group end damaged");
            f->rg_rows = (uint64_t)ck->rows;
            f->next_j = (uint64_t)ck->next;
            f->has_sum = (uint8_t)(f->col == w->ncols && w->ncols);
            for (i = 0; i < w->ncols; i++) {
                const upq_jcol *j = &ck->cols.v[i];
                upq_wcol *c = &w->cols[i];
                upq_wjcol *wj = &jr->cols[i];
                wj->fill = (uint64_t)j->fill;
                if (j->fill < 0 || wj->fill > wj->cap - wj->slot)
                    return upq_wf_corrupt(w, f->rec, "row group end damaged");
                c->npages = (uint32_t)j->pages;
                c->dict_hdr = UPQ_ISSET(*j, UPQ_JCOL_DICT_LEN) ? j->dict_len : 0;
                if (c->dict_hdr < 0 || (uint32_t)c->dict_hdr > wj->slot)
                    return upq_wf_corrupt(w, f->rec, "row group end damaged");
                c->ba_bytes = j->ba;
                if (c->def_hist) {
                    if (j->def_hist.n != (uint32_t)c->max_def + 1u)
                        return upq_wf_corrupt(w, f->rec, "row group end damaged");
                    upq_memcpy(c->def_hist, j->def_hist.v, (size_t)j->def_hist.n * sizeof(int64_t));
                }
                if (c->rep_hist) {
                    if (j->rep_hist.n != (uint32_t)c->max_rep + 1u)
                        return upq_wf_corrupt(w, f->rec, "row group end damaged");
                    upq_memcpy(c->rep_hist, j->rep_hist.v, (size_t)j->rep_hist.n * sizeof(int64_t));
                }
                c->bf_off = 0;
                c->bf_hdr = 0;
                c->bloom_bytes = 0;
                if (UPQ_ISSET(*j, UPQ_JCOL_BLOOM) && UPQ_ISSET(*j, UPQ_JCOL_BLOOM_HDR) &&
                    j->bloom_hdr > 0 &&
                    j->bloom.len > j->bloom_hdr + (UPQ_W_KEY(c) ? (int32_t)UPQ_W_CRYPTO_OVER : 0)) {
                    c->bf_off = j->bloom.off;
                    c->bf_hdr = j->bloom_hdr;
                    /* the bitset alone (an encrypted one's blob is its module) */
                    c->bloom_bytes = (uint32_t)(j->bloom.len - j->bloom_hdr) -
                                     (UPQ_W_KEY(c) ? (uint32_t)UPQ_W_CRYPTO_OVER : 0u);
                }
            }
            f->rec = 0;
            return UPQ_OK;
        }
    }
}

/* ---- pages ------------------------------------------------------------------------ */

/* Starts reading column col's pages of the loaded row group. */
static void pages_begin(upq_writer *w, uint32_t col)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_wjcol *j = &w->jr->cols[col];
    upq_wf_win(w, 1);
    f->col = col;
    f->ppos = j->off + j->slot;
    f->pend = f->ppos + j->fill;
    if (w->cols[col].npages) {
        uint64_t avg = upq_div64(j->fill, w->cols[col].npages);
        f->ra = avg <= RA_PAGE && 2u * avg <= f->cap;
    } else {
        f->ra = 0;
    }
    f->frow = 0;
    f->page = 0;
    f->in_scan = 0;
    /* repeated columns' v1 pages: rows from the records' page-rows lists */
    f->prow_rec = f->rg_j;
    f->prow_n = f->prow_i = 0;
}

/* The rows of the next page of repeated column f->col, from the page-rows
 * lists of the row group's records in order (a v1 page header does not
 * say). Read before the page header: reading a record reuses the scratch
 * the header's statistics are decoded into. */
static upq_status page_rows_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_jhdr h;
    upq_status st;
    while (f->prow_i == f->prow_n) {
        const upq_jcol *j;
        uint32_t k;
        if (f->prow_rec == 0)
            return upq_wf_corrupt(w, f->ppos, "rows of a page missing from the journal");
        st = upq_wf_record(w, f->prow_rec, &h, UPQ_WF_REC_AHEAD);
        if (st != UPQ_OK)
            return st;
        f->prow_rec = h.type == UPQ_J_RG_END ? 0u : f->prow_rec + h.len;
        if ((h.type != UPQ_J_CKPT && h.type != UPQ_J_ROWS && h.type != UPQ_J_RG_END) ||
            f->ck.cols.n != w->ncols)
            continue;
        j = &f->ck.cols.v[f->col];
        if (!UPQ_ISSET(*j, UPQ_JCOL_PAGE_ROWS) || j->page_rows.n > UPQ_WF_K_ROWS + 1u)
            continue;
        for (k = 0; k < j->page_rows.n; k++)
            f->prow[k] = j->page_rows.v[k];
        f->prow_n = j->page_rows.n;
        f->prow_i = 0;
    }
    f->pg_rows = f->prow[f->prow_i++];
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
upq_status upq_wf_module(upq_writer *w, uint64_t off, uint64_t end, int module, int32_t rg, int32_t col,
                         int32_t page, const upq_wkey *k, const uint8_t **p, size_t *n)
{
    upq_wfinish *f = UPQ_WF(w);
    uint64_t at = off;
    const char *what = "";
    upq_status st;
    if (!f->cs_on) {
        upq_cstream_init(&f->cs, off, end, module, rg, col, page);
        f->cio.ctx = w->sink.ctx;
        f->cio.read_at = w->sink.read_at;
#if UPQ_WITH_LEND
        f->cio.lend = (upq_lend_fn)0;
#endif
        f->cio.size = UINT64_MAX;
        f->cs_on = 1;
    }
    st = upq_cstream_next(&f->cs, &f->cio, &w->wc->fc, k->k, f->buf, f->cap, p, n, &at, &what);
    f->have = 0; /* the window holds other bytes now */
    if (st == UPQ_OK || st == UPQ_AGAIN)
        return st;
    f->cs_on = 0;
    if (st == UPQ_DONE)
        return st;
    if (st != UPQ_ERR_IO && st != UPQ_ERR_AUTH)
        st = UPQ_ERR_CORRUPT; /* a short file, a length beyond its place */
    upq_w_fail(w, st, col, what);
    w->err.offset = at;
    return st;
}

/* The encrypted page header at off: a module fed to the decoder as it is
 * decrypted. */
static upq_status sealed_header(upq_writer *w, uint64_t off, uint64_t end, uint32_t col, int32_t page)
{
    upq_wfinish *f = UPQ_WF(w);
    for (;;) {
        const uint8_t *p;
        size_t n, used = 0;
        upq_status st = upq_wf_module(w, off, end, page < 0 ? UPQ_MODULE_DICT_PAGE_HEADER
                                                             : UPQ_MODULE_DATA_PAGE_HEADER,
                                      (int32_t)w->num_rg, (int32_t)col, page, w->cols[col].key, &p, &n);
        if (st == UPQ_AGAIN)
            return st;
        if (st == UPQ_DONE) {
            f->in_scan = 0;
            if (!f->hs_done)
                return upq_wf_corrupt(w, off, "page header damaged");
            f->pg.off = off;
            f->pg.hl = (uint32_t)(upq_cstream_end(&f->cs) - off);
            return UPQ_OK;
        }
        if (st != UPQ_OK) {
            f->in_scan = 0;
            return st;
        }
        if (f->hs_done)
            continue;
        st = upq_tdec_feed(&f->tdec, p, n, &used);
        if (st == UPQ_OK) {
            f->hs_done = 1;
        } else if (st != UPQ_AGAIN) {
            f->in_scan = 0;
            f->cs_on = 0;
            return upq_wf_corrupt(w, off, "page header damaged");
        }
    }
}
#endif

/* Decodes the page header at off into f->ph (and f->pg's size fields): of
 * column col, the data page of ordinal `page` or (-1) its dictionary page
 * (an encrypted column's header is a module whose AAD says which, with the
 * row group's ordinal w->num_rg). UPQ_OK, UPQ_AGAIN, or an error. */
upq_status upq_wf_page_header(upq_writer *w, uint64_t off, uint64_t end, uint32_t col, int32_t page)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st;
    upq_wf_win(w, 1);
    for (;;) {
        uint32_t n;
        size_t used = 0;
        if (!f->in_scan) {
            upq_thrift_limits lim;
            upq_memset(&lim, 0, sizeof lim);
            lim.max_binary = bound_cap(&w->o);
            /* not the lists' bytes gathered after a header's room (out_b),
             * nor the wide window's */
            upq_arena_init(&f->scratch, f->smem, f->gather || f->ncap ? header_need(&w->o) : f->scap);
            upq_tdec_init(&f->tdec, f->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_page_header_desc, f->ph,
                          &f->scratch, end - off, &lim);
            f->in_scan = 1;
            f->rdone = 0;
#if UPQ_WITH_CRYPTO
            f->hs_done = 0;
            f->cs_on = 0;
#endif
        }
#if UPQ_WITH_CRYPTO
        if (UPQ_W_KEY(&w->cols[col]))
            return sealed_header(w, off, end, col, page);
#else
        (void)col;
        (void)page;
#endif
        /* a header is a few dozen bytes: a small read first (the body
         * after it is not wanted), the whole window only for a long one;
         * small pages' headers from the window read ahead, a fresh window
         * when too little of it is left */
        n = f->rdone ? f->cap : HDR_READ;
        if (f->ra) {
            uint32_t av = win_left(f, off + f->rdone);
            n = av >= HDR_READ || av >= end - off - f->rdone ? av : f->cap;
        }
        if (end - off - f->rdone < n)
            n = (uint32_t)(end - off - f->rdone);
        if (n == 0) {
            f->in_scan = 0;
            return upq_wf_corrupt(w, off, "page header runs past its chunk");
        }
        st = upq_wf_rd(w, off + f->rdone, n);
        if (st != UPQ_OK) {
            if (st != UPQ_AGAIN)
                f->in_scan = 0; /* the next call starts a header afresh */
            return st;
        }
        st = upq_tdec_feed(&f->tdec, upq_wf_at(w, off + f->rdone), n, &used);
        if (st == UPQ_AGAIN) {
            f->rdone += n;
            continue;
        }
        f->in_scan = 0;
        if (st != UPQ_OK)
            return upq_wf_corrupt(w, off, "page header damaged");
        f->pg.off = off;
        f->pg.hl = f->rdone + (uint32_t)used;
        return UPQ_OK;
    }
}

upq_status upq_wf_page_facts(upq_writer *w, uint32_t col, uint64_t pend, int rows_known)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_wcol *c = &w->cols[col];
    const upq_page_header *ph = f->ph;
    upq_fpage *p = &f->pg;
    if (ph->compressed_page_size < 0 || ph->uncompressed_page_size < 0 ||
        (uint64_t)ph->compressed_page_size > pend - p->off - p->hl)
        return upq_wf_corrupt(w, p->off, "page size outside its chunk");
    p->total = p->hl + (uint32_t)ph->compressed_page_size;
    if (upq_wj_page_facts(ph, p) != UPQ_OK)
        return upq_wf_corrupt(w, p->off, "not a data page");
    if (p->values < 0 || p->rows < 0 || p->rows > p->values || p->encoding < 0 || p->encoding > 31)
        return upq_wf_corrupt(w, p->off, "page header damaged");
    if (c->max_rep && ph->type == UPQ_PAGE_DATA) {
        if (!rows_known)
            p->rows = -1;
        else if (!f->pg_rows_ok)
            return upq_wf_corrupt(w, p->off, "rows of a page missing from the journal");
        else
            p->rows = f->pg_rows;
    }
    p->mm.cap = bound_cap(&w->o);
    if (p->mm.min_len > p->mm.cap || p->mm.max_len > p->mm.cap)
        return upq_wf_corrupt(w, p->off, "page statistics too long");
    if (p->nulls > p->values)
        return upq_wf_corrupt(w, p->off, "page header damaged");
    return UPQ_OK;
}

/* The next data page of the chunk into f->pg: UPQ_OK, UPQ_DONE after the
 * last, UPQ_AGAIN, or an error. */
static upq_status page_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st;
    if (f->ppos == f->pend)
        return UPQ_DONE;
    if (!f->in_scan) {
        f->pg_rows_ok = 0;
        if (w->cols[f->col].max_rep && !UPQ_W_V2(w)) {
            st = page_rows_next(w);
            if (st != UPQ_OK)
                return st;
            f->pg_rows_ok = 1;
        }
    }
    st = upq_wf_page_header(w, f->ppos, f->pend, f->col, (int32_t)f->page);
    if (st != UPQ_OK)
        return st;
    st = upq_wf_page_facts(w, f->col, f->pend, 1);
    if (st != UPQ_OK)
        return st;
    f->pg.off = f->ppos;
    f->ppos += f->pg.total;
    f->page++;
    return UPQ_OK;
}

/* ---- one chunk's page indexes ------------------------------------------------------- */

static void scan_reset(upq_writer *w, uint32_t col)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[col];
    f->npages = 0;
    f->ci_ok = !UPQ_W_NO_PI(w) && c->order != UPQ_SO_NONE;
    f->prev_has = 0;
    f->null_free = 1;
    f->asc = f->desc = 1;
    f->ci_len = f->oi_len = 0;
    f->u.op.mins_len = f->u.op.maxs_len = 0;
    c->num_values = c->nulls = c->nans = c->unc_bytes = c->comp_bytes = 0;
    c->enc_mask = 0;
    c->pages_dict = c->pages_plain = c->dict_pages = 0;
    c->ci_len = c->oi_len = 0;
    if (UPQ_WITH_STATISTICS && c->st.cap)
        upq_minmax_reset(&c->st);
}

/* Page f->pg joins the scan: ColumnIndex possible, boundary order, sizes
 * of both indexes, and the chunk's totals for its ColumnChunk. */
static void scan_page(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_fpage *p = &f->pg;
    upq_wcol *c = &w->cols[f->col];
    int order = c->order;
    f->npages++;
    if (upq_wj_ci_breaks(p))
        f->ci_ok = 0;
    if (p->nulls != 0 || upq_wj_page_null(p))
        f->null_free = 0;
    if (!upq_wj_page_null(p) && f->ci_ok) {
        if (f->prev_has) {
            int a = upq_stats_cmp(order, p->mm.min, p->mm.min_len, f->prev_min, f->prev_min_len);
            int b = upq_stats_cmp(order, p->mm.max, p->mm.max_len, f->prev_max, f->prev_max_len);
            if (a < 0 || b < 0)
                f->asc = 0;
            if (a > 0 || b > 0)
                f->desc = 0;
        }
        upq_memcpy(f->prev_min, p->mm.min, p->mm.min_len);
        upq_memcpy(f->prev_max, p->mm.max, p->mm.max_len);
        f->prev_min_len = p->mm.min_len;
        f->prev_max_len = p->mm.max_len;
        f->prev_has = 1;
    }
    /* the ColumnIndex's minima and maxima lists */
    upq_wj_list_lens(p, &f->u.op.mins_len, &f->u.op.maxs_len);
    upq_wj_tally(c, p, f->frow, &f->ci_len, &f->oi_len);
    f->frow += (uint64_t)p->rows;
    if (p->encoding == UPQ_ENC_PLAIN_DICTIONARY || p->encoding == UPQ_ENC_RLE_DICTIONARY)
        c->dict_pages++;
    else
        c->enc = p->encoding;
}

/* Ends the scan of column f->col: its index sizes and boundary order. */
static void scan_end(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->boundary = f->asc ? UPQ_BOUNDARY_ASCENDING : f->desc ? UPQ_BOUNDARY_DESCENDING
                                                        : UPQ_BOUNDARY_UNORDERED;
    if (!f->npages)
        f->ci_ok = 0;
    upq_wj_index_lens(w, &w->cols[f->col], f->npages, f->ci_ok, f->ci_len, f->oi_len, f->boundary);
}

/* A piece of literal bytes at the next place of the page index area. */
static upq_status lit_piece(upq_writer *w, size_t n)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wj_src(w, f->lit, n, f->pos);
    f->pos += n;
    return UPQ_OK;
}

/* The dictionary page of column f->col (header at the slot's end - len):
 * its sizes join the totals. UPQ_OK, UPQ_AGAIN, or an error. */
static upq_status dict_page(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[f->col];
    const upq_wjcol *j = &w->jr->cols[f->col];
    uint64_t off = j->off + j->slot - (uint32_t)c->dict_hdr;
    const upq_page_header *ph = f->ph;
    upq_status st;
    c->chunk_off = (int64_t)off;
    c->data_off = (int64_t)(j->off + j->slot);
    if (!c->dict_hdr)
        return UPQ_OK;
    st = upq_wf_page_header(w, off, j->off + j->slot, f->col, -1);
    if (st != UPQ_OK)
        return st;
    if (ph->type != UPQ_PAGE_DICTIONARY || ph->compressed_page_size < 0 ||
        ph->uncompressed_page_size < 0 ||
        (uint64_t)f->pg.hl + (uint64_t)ph->compressed_page_size != (uint64_t)c->dict_hdr)
        return upq_wf_corrupt(w, off, "dictionary page damaged");
    c->unc_bytes += (int64_t)f->pg.hl + ph->uncompressed_page_size;
    c->comp_bytes += c->dict_hdr;
    c->enc_mask |= 1u << (UPQ_W_V2(w) ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY);
    return UPQ_OK;
}

/* ---- a list written in one pass ----------------------------------------------------- */

/* In a pass of their own, the bytes each of the ColumnIndex's three lists after the
 * first gathers at most: a third of the bound buffers (at least 10: an
 * entry of the first or last list; a bound that does not fit goes out as a
 * piece of its own). */
static uint32_t out_room(const upq_writer *w)
{
    uint32_t n = 2u * (uint32_t)a8(bound_cap(&w->o)) / 3u;
    return n < 0xFFFFu ? n : 0xFFFFu; /* counted in 16 bits */
}

/* Where list i gathers its bytes, and how many at most: the OffsetIndex's
 * (0) in f->lit; the ColumnIndex's four (1..4) in the scratch while the scan
 * writes them, or in a pass of their own: the first in f->lit, the other
 * three in turn in the bound buffers, which only the scan uses. */
static uint8_t *out_b(const upq_writer *w, unsigned i)
{
    upq_wfinish *f = UPQ_WF(w);
    if (f->both && i)
        return f->smem + header_need(&w->o) + (size_t)(i - 1u) * GROOM;
    return i <= 1u ? f->lit : f->prev_min + (size_t)(i - 2u) * out_room(w);
}

static uint32_t out_cap(const upq_writer *w, unsigned i)
{
    const upq_wfinish *f = UPQ_WF(w);
    if (f->both && i)
        return GROOM;
    return i <= 1u ? (uint32_t)sizeof f->lit : out_room(w);
}

/* List i's gathered bytes go out as a piece at their place (the driver
 * drains it before the next call gathers more). */
static upq_status out_flush(upq_writer *w, unsigned i)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wj_src(w, out_b(w, i), f->u.op.n[i], f->u.op.at[i]);
    f->u.op.at[i] += f->u.op.n[i];
    f->u.op.n[i] = 0;
    return UPQ_OK;
}

/* 1 when list i has no room left for n more bytes. */
static int out_full(const upq_writer *w, unsigned i, uint32_t n)
{
    const upq_wfinish *f = UPQ_WF(w);
    return f->u.op.n[i] + n > out_cap(w, i);
}

static void out_byte(upq_writer *w, unsigned i, uint8_t v)
{
    upq_wfinish *f = UPQ_WF(w);
    out_b(w, i)[f->u.op.n[i]++] = v;
}

static void out_varint(upq_writer *w, unsigned i, uint64_t v)
{
    upq_wfinish *f = UPQ_WF(w);
    f->u.op.n[i] = (uint16_t)(f->u.op.n[i] + upq_tc_varint(out_b(w, i) + f->u.op.n[i], v));
}

/* The STOP that ends the index list i closes, then stage `next`: UPQ_DONE,
 * or UPQ_OK with the list's bytes out first to make room. */
static upq_status out_stop(upq_writer *w, unsigned i, uint8_t next)
{
    upq_wfinish *f = UPQ_WF(w);
    if (out_full(w, i, 1))
        return out_flush(w, i);
    out_byte(w, i, 0);
    f->xstage = next;
    return UPQ_DONE;
}

/* Page f->pg's OffsetIndex entry joins list 0. */
static void oi_entry(upq_writer *w)
{
    const upq_wfinish *f = UPQ_WF(w);
    out_byte(w, 0, 0x16); /* offset: i64 */
    out_varint(w, 0, upq_tc_zz((int64_t)f->pg.off));
    out_byte(w, 0, 0x15); /* compressed_page_size: i32 */
    out_varint(w, 0, upq_tc_zz((int64_t)f->pg.total));
    out_byte(w, 0, 0x16); /* first_row_index: i64 */
    out_varint(w, 0, upq_tc_zz((int64_t)f->frow));
    out_byte(w, 0, 0); /* STOP */
}

static upq_status ci_entries(upq_writer *w);

/*
 * Scans column f->col's chunk: the dictionary page, then every data page;
 * with oi, its OffsetIndex entries go to list 0 as the pages are read.
 * UPQ_DONE when done (totals and index sizes set), UPQ_OK with a piece of
 * the OffsetIndex, UPQ_AGAIN, or an error.
 */
static upq_status scan_chunk(upq_writer *w, int oi)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st;
    if (!f->scanning) {
        scan_reset(w, f->col);
        f->scanning = 1;
        f->dict_done = 0;
    }
    if (!f->dict_done) {
        st = dict_page(w);
        if (st != UPQ_OK)
            return st;
        f->dict_done = 1;
        pages_begin(w, f->col);
    }
    for (;;) {
        if (f->lk) {
            /* the page's ColumnIndex entries, before the next page is read */
            st = ci_entries(w);
            if (st != UPQ_DONE)
                return st;
        }
        if (oi && out_full(w, 0, OI_MAX))
            return out_flush(w, 0);
        st = page_next(w);
        if (st == UPQ_DONE)
            break;
        if (st != UPQ_OK)
            return st;
        if (oi)
            oi_entry(w);
        scan_page(w);
        f->lk = f->both;
    }
    f->scanning = 0;
    if (f->npages != w->cols[f->col].npages)
        return upq_wf_corrupt(w, f->ppos, "the chunk's pages do not match its journal");
    if (f->frow != f->rg_rows)
        return upq_wf_corrupt(w, f->ppos, "the chunk's rows do not match its journal");
    scan_end(w);
    return UPQ_DONE;
}

/* Stages of a chunk's indexes (chunk_index1). */
enum {
    Y_OI_OPEN = 0,
    Y_SCAN,
    Y_OI_STOP,
    Y_OI_END,
    Y_CI_OPEN,
    Y_CI_PAGES,
    Y_CI_BOUNDARY,
    Y_CI_END,
    Y_CI_OUT
};

/* Where list i (1..4) of the ColumnIndex at `at` of np pages begins, its
 * min and max entries taking mins and maxs bytes. A list header's length
 * depends on np alone; boundary_order (two bytes) comes before the last. */
static uint64_t ci_place(uint32_t np, uint64_t at, uint32_t mins, uint32_t maxs, unsigned i)
{
    uint8_t tmp[16];
    uint32_t h = (uint32_t)upq_wj_list_field(tmp, 1, np, UPQ_CT_BINARY);
    if (i >= 2u)
        at += h + np;
    if (i >= 3u)
        at += h + mins;
    if (i >= 4u)
        at += h + maxs + 2u;
    return at;
}

/* The four lists of column f->col's ColumnIndex at `at`, its min and max
 * entries taking mins and maxs bytes: each list's place, its header
 * gathered. boundary_order goes out at the maxima's end (Y_CI_BOUNDARY):
 * a scan that writes the lists knows it only at its end. */
static void ci_open(upq_writer *w, uint64_t at, uint32_t mins, uint32_t maxs)
{
    upq_wfinish *f = UPQ_WF(w);
    uint32_t np = w->cols[f->col].npages;
    unsigned i;
    for (i = 1; i <= 4u; i++) {
        f->u.op.at[i] = ci_place(np, at, mins, maxs, i);
        f->u.op.n[i] = (uint16_t)upq_wj_list_field(out_b(w, i), 1, np,
                                           i == 1u ? UPQ_CT_TRUE : i == 4u ? UPQ_CT_I64 : UPQ_CT_BINARY);
    }
}

/* 1 when the scan's ColumnIndex may be written as it reads the pages: its
 * lists' places come from the row group's RG_SUM (within what the pages
 * could take; the scan checks them at its end), the scratch has room to
 * gather them, the scan reads no record, and the sink writes in place (an
 * append-only sink's frames gather only writes that continue one another:
 * five lists at once made close's calls on littlefs nearly three times as
 * many as a pass a list). */
static int ci_with_scan(const upq_writer *w)
{
    const upq_wfinish *f = UPQ_WF(w);
    const upq_wcol *c = &w->cols[f->col];
    uint64_t most = (uint64_t)c->npages * (c->scap + 5u);
    return f->gather && f->has_sum && !w->sink.seal && !c->max_rep && !UPQ_W_NO_PI(w) && c->ci_len > 0 &&
           c->oi_len >= 0 &&
           (uint64_t)c->oi_len <= (uint64_t)c->npages * OI_MAX + 16u && UPQ_WC_MINS(c) >= 0 &&
           UPQ_WC_MAXS(c) >= 0 && (uint64_t)UPQ_WC_MINS(c) <= most && (uint64_t)UPQ_WC_MAXS(c) <= most;
}

/* 1 when the lists written with the scan went where its sums place them
 * (RG_SUM's sizes were the pages'): each ends where the next begins, the
 * last where the ColumnIndex ends. */
static int ci_placed(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_wcol *c = &w->cols[f->col];
    const uint64_t *o = f->u.op.at;
    uint32_t mins = f->u.op.mins_len, maxs = f->u.op.maxs_len;
    return c->ci_len > 0 && o[1] == ci_place(c->npages, f->pos, mins, maxs, 2) &&
           o[2] == ci_place(c->npages, f->pos, mins, maxs, 3) &&
           o[3] == ci_place(c->npages, f->pos, mins, maxs, 4) && o[4] == f->pos + (uint32_t)c->ci_len;
}

/* The bytes of page f->pg's entry in list i (1..4) of its ColumnIndex, and
 * (lists 2 and 3) the bound's length in *n. */
static uint32_t ci_entry_size(const upq_wfinish *f, unsigned i, uint32_t *n)
{
    const upq_fpage *p = &f->pg;
    *n = 0;
    if (i == 1u)
        return 1;
    if (i == 4u)
        return (uint32_t)upq_tc_varint_len(upq_tc_zz(p->nulls));
    *n = upq_wj_entry_len(p, i == 3u);
    return (uint32_t)upq_tc_varint_len(*n) + *n;
}

/*
 * Page f->pg's ColumnIndex entries join the four lists, from list f->lk
 * on: UPQ_DONE when all have, UPQ_OK with a piece (a list that was full, or
 * a bound longer than a list's buffer, which goes out from the decoded
 * header: no page is read before it is drained).
 */
static upq_status ci_entries(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_fpage *p = &f->pg;
    for (; f->lk <= 4u; f->lk++) {
        unsigned i = f->lk;
        uint32_t n, size = ci_entry_size(f, i, &n);
        if (f->bytes_due) {
            f->bytes_due = 0;
            f->lk++;
            upq_wj_src(w, i == 3u ? p->mm.max : p->mm.min, n, f->u.op.at[i]);
            f->u.op.at[i] += n;
            return UPQ_OK;
        }
        if (out_full(w, i, size)) {
            if (f->u.op.n[i])
                return out_flush(w, i);
            out_varint(w, i, n);
            f->bytes_due = 1;
            return out_flush(w, i);
        }
        if (i == 1u)
            out_byte(w, 1, upq_wj_page_null(p) ? 1 : 2);
        else if (i == 4u)
            out_varint(w, 4, upq_tc_zz(p->nulls));
        else {
            out_varint(w, i, n);
            if (n)
                upq_memcpy(out_b(w, i) + f->u.op.n[i], i == 3u ? p->mm.max : p->mm.min, n);
            f->u.op.n[i] = (uint16_t)(f->u.op.n[i] + n);
        }
    }
    f->lk = 0;
    return UPQ_DONE;
}

static upq_status chunk_index(upq_writer *w);

/* After the scan: the ColumnIndex written with it is checked, or its lists
 * are written in a pass of their own. */
static upq_status ci_after_scan(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    if (f->both) {
        f->xstage = Y_CI_BOUNDARY;
        return UPQ_OK;
    }
    if (!f->ci_ok)
        return UPQ_DONE;
    f->xstage = Y_CI_OPEN;
    return UPQ_OK;
}

/*
 * Column f->col's indexes in a file not encrypted: the scan writes the
 * OffsetIndex as it reads the pages (its place is known before: each
 * column's OffsetIndex comes before its ColumnIndex), and the ColumnIndex's
 * four lists too, each at its place, when the row group's RG_SUM gives
 * their sizes; otherwise (or when the pages disagree with it) one more
 * pass writes the four lists. UPQ_OK with a piece, UPQ_DONE when written,
 * UPQ_AGAIN, or an error.
 */
static upq_status chunk_index1(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_wcol *c = &w->cols[f->col];
    int oi = !UPQ_W_NO_PI(w);
    unsigned i;
    upq_status st;
    for (;;) {
        switch (f->xstage) {
        case Y_OI_OPEN:
            f->u.op.at[0] = f->pos;
            f->u.op.n[0] = oi ? (uint16_t)upq_wj_list_field(f->lit, 1, c->npages, UPQ_CT_STRUCT) : 0u;
            f->lk = 0;
            f->bytes_due = 0;
            f->both = (uint8_t)ci_with_scan(w);
            if (f->both) /* RG_SUM's sizes, before the scan sets the pages' */
                ci_open(w, f->pos + (uint32_t)c->oi_len, (uint32_t)UPQ_WC_MINS(c), (uint32_t)UPQ_WC_MAXS(c));
            f->xstage = Y_SCAN;
            continue;
        case Y_SCAN:
            st = scan_chunk(w, oi);
            if (st != UPQ_DONE)
                return st;
            f->xstage = oi ? Y_OI_STOP : Y_OI_END;
            continue;
        case Y_OI_STOP:
            st = out_stop(w, 0, Y_OI_END);
            return st == UPQ_DONE ? out_flush(w, 0) : st;
        case Y_OI_END:
            if (f->u.op.at[0] != f->pos + (uint32_t)c->oi_len)
                return upq_wf_corrupt(w, f->pos, "offset index size changed");
            f->pos = f->u.op.at[0];
            st = ci_after_scan(w);
            if (st != UPQ_OK)
                return st;
            continue;
        case Y_CI_OPEN:
            if (w->sink.seal) {
                /* an append-only sink journals what comes after its sealed
                 * end in frames, gathering only writes that continue one
                 * another: the lists go one after the other, a pass each
                 * (the same bytes) */
                pages_begin(w, f->col);
                f->seq_ci = 1;
                f->xstage = X_CI_HEAD;
                return chunk_index(w);
            }
            ci_open(w, f->pos, f->u.op.mins_len, f->u.op.maxs_len);
            pages_begin(w, f->col);
            f->lk = 0;
            f->bytes_due = 0;
            f->xstage = Y_CI_PAGES;
            continue;
        case Y_CI_PAGES:
            if (f->lk) {
                st = ci_entries(w);
                if (st != UPQ_DONE)
                    return st;
                continue;
            }
            st = page_next(w);
            if (st == UPQ_DONE) {
                f->xstage = Y_CI_BOUNDARY;
                continue;
            }
            if (st != UPQ_OK)
                return st;
            f->lk = 1;
            continue;
        case Y_CI_BOUNDARY:
            /* boundary_order, at the end of the maxima, before the null counts */
            if (out_full(w, 3, 2))
                return out_flush(w, 3);
            out_byte(w, 3, 0x15); /* boundary_order: i32 */
            out_varint(w, 3, upq_tc_zz(f->boundary));
            f->xstage = Y_CI_END;
            continue;
        case Y_CI_END:
            st = out_stop(w, 4, Y_CI_OUT);
            if (st != UPQ_DONE)
                return st;
            continue;
        case Y_CI_OUT:
            for (i = 1; i <= 4u; i++)
                if (f->u.op.n[i])
                    return out_flush(w, i);
            if (f->both) {
                f->both = 0;
                if (!ci_placed(w)) {
                    /* RG_SUM does not describe these pages: the lists
                     * again, at the places the scan found (what went
                     * elsewhere is written over by the indexes after
                     * them and the footer, or cut off after it) */
                    if (!c->ci_len)
                        return UPQ_DONE;
                    f->xstage = Y_CI_OPEN;
                    continue;
                }
            } else if (f->u.op.at[4] != f->pos + (uint32_t)c->ci_len) {
                return upq_wf_corrupt(w, f->pos, "column index size changed");
            }
            f->pos = f->u.op.at[4];
            return UPQ_DONE;
        default:
            return UPQ_DONE;
        }
    }
}

/*
 * Phase 0 for column f->col: its ColumnIndex (f->which 0), or its
 * OffsetIndex (1), one pass over its page headers per list.
 * UPQ_OK with a piece, UPQ_DONE when written, UPQ_AGAIN, or an error.
 */
static upq_status chunk_index(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[f->col];
    upq_status st;
    size_t k;
    for (;;) {
        switch (f->xstage) {
        case X_SCAN:
            if (f->which == 1) {
                /* the ColumnIndex's scan said it all: pages, index size */
                f->npages = c->npages;
                if (UPQ_W_NO_PI(w))
                    return UPQ_DONE;
                pages_begin(w, f->col);
                f->xstage = UPQ_W_KEY(c) ? X_OPEN : X_OI_HEAD;
                continue;
            }
            st = scan_chunk(w, 0);
            if (st != UPQ_DONE)
                return st;
            if (f->which == 0 && !f->ci_ok)
                return UPQ_DONE;
            if (f->which == 1 && UPQ_W_NO_PI(w))
                return UPQ_DONE;
            pages_begin(w, f->col);
            f->xstage = UPQ_W_KEY(c) ? X_OPEN : f->which == 0 ? X_CI_HEAD : X_OI_HEAD;
            continue;
#if UPQ_WITH_CRYPTO
        case X_OPEN:
            st = upq_wc_stream_begin(w, c->key, f->which == 0 ? UPQ_MODULE_COLUMN_INDEX : UPQ_MODULE_OFFSET_INDEX,
                                     (int32_t)f->col,
                                     (uint32_t)(f->which == 0 ? c->ci_len : c->oi_len) -
                                         (uint32_t)UPQ_W_CRYPTO_OVER,
                                     UPQ_WS_ENCRYPT);
            if (st != UPQ_OK)
                return st;
            upq_memcpy(f->lit, w->wc->head, 16);
            f->xstage = f->which == 0 ? X_CI_HEAD : X_OI_HEAD;
            lit_piece(w, 16);
            f->sealing = 1; /* the pieces from here on are encrypted */
            return UPQ_OK;
        case X_TAG:
            f->sealing = 0;
            upq_wc_stream_tag(w, f->lit);
            f->xstage = X_DONE;
            return lit_piece(w, 16);
#endif
        case X_CI_HEAD:
            f->xstage = X_NULL_PAGES;
            return lit_piece(w, upq_wj_list_field(f->lit, 1, f->npages, UPQ_CT_TRUE));
        case X_NULL_PAGES:
        case X_MINS:
        case X_MAXS:
        case X_NULL_COUNTS:
            if (f->bytes_due) {
                /* a bound's bytes, after its length: still in the decoded header */
                const upq_fpage *p = &f->pg;
                const uint8_t *b = f->xstage == X_MAXS ? p->mm.max : p->mm.min;
                f->bytes_due = 0;
                upq_wj_src(w, b, upq_wj_entry_len(p, f->xstage == X_MAXS), f->pos);
                f->pos += upq_wj_entry_len(p, f->xstage == X_MAXS);
                return UPQ_OK;
            }
            if (f->null_free && (f->xstage == X_NULL_PAGES || f->xstage == X_NULL_COUNTS)) {
                /* the scan saw no null: every entry is false, or 0, and
                 * the pages need not be read again for them */
                if (f->page < f->npages) {
                    uint32_t n = f->npages - f->page;
                    if (n > sizeof f->lit)
                        n = sizeof f->lit;
                    upq_memset(f->lit, f->xstage == X_NULL_PAGES ? 2 : 0, n);
                    f->page += n;
                    return lit_piece(w, n);
                }
                st = UPQ_DONE;
            } else {
                st = page_next(w);
            }
            if (st == UPQ_OK) {
                const upq_fpage *p = &f->pg;
                if (f->xstage == X_NULL_PAGES) {
                    f->lit[0] = upq_wj_page_null(p) ? 1 : 2;
                    return lit_piece(w, 1);
                }
                if (f->xstage == X_NULL_COUNTS)
                    return lit_piece(w, upq_tc_varint(f->lit, upq_tc_zz(p->nulls)));
                f->bytes_due = upq_wj_entry_len(p, f->xstage == X_MAXS) != 0;
                return lit_piece(w, upq_tc_varint(f->lit, upq_wj_entry_len(p, f->xstage == X_MAXS)));
            }
            if (st != UPQ_DONE)
                return st;
            pages_begin(w, f->col);
            if (f->xstage == X_NULL_PAGES) {
                f->xstage = X_MINS;
                return lit_piece(w, upq_wj_list_field(f->lit, 1, f->npages, UPQ_CT_BINARY));
            }
            if (f->xstage == X_MINS) {
                f->xstage = X_MAXS;
                return lit_piece(w, upq_wj_list_field(f->lit, 1, f->npages, UPQ_CT_BINARY));
            }
            if (f->xstage == X_MAXS) {
                f->xstage = X_NULL_COUNTS;
                k = 0;
                f->lit[k++] = 0x15; /* boundary_order: i32 */
                k += upq_tc_varint(f->lit + k, upq_tc_zz(f->boundary));
                k += upq_wj_list_field(f->lit + k, 1, f->npages, UPQ_CT_I64);
                return lit_piece(w, k);
            }
            f->xstage = X_CI_END;
            continue;
        case X_CI_END:
            f->lit[0] = 0; /* STOP */
            f->xstage = UPQ_W_KEY(c) ? X_TAG : X_DONE;
            return lit_piece(w, 1);
        case X_OI_HEAD:
            f->frow = 0;
            f->xstage = X_OI_PAGES;
            return lit_piece(w, upq_wj_list_field(f->lit, 1, f->npages, UPQ_CT_STRUCT));
        case X_OI_PAGES:
            st = page_next(w);
            if (st == UPQ_OK) {
                const upq_fpage *p = &f->pg;
                k = 0;
                f->lit[k++] = 0x16; /* offset: i64 */
                k += upq_tc_varint(f->lit + k, upq_tc_zz((int64_t)p->off));
                f->lit[k++] = 0x15; /* compressed_page_size: i32 */
                k += upq_tc_varint(f->lit + k, upq_tc_zz((int64_t)p->total));
                f->xstage = X_OI_ROW;
                return lit_piece(w, k);
            }
            if (st != UPQ_DONE)
                return st;
            f->xstage = X_OI_END;
            continue;
        case X_OI_ROW:
            k = 0;
            f->lit[k++] = 0x16; /* first_row_index: i64 */
            k += upq_tc_varint(f->lit + k, upq_tc_zz((int64_t)f->frow));
            f->lit[k++] = 0; /* STOP */
            f->frow += (uint64_t)f->pg.rows;
            f->xstage = X_OI_PAGES;
            return lit_piece(w, k);
        case X_OI_END:
            f->lit[0] = 0; /* STOP */
            f->xstage = UPQ_W_KEY(c) ? X_TAG : X_DONE;
            return lit_piece(w, 1);
        default:
            return UPQ_DONE;
        }
    }
}

/* ---- the footer's row groups ------------------------------------------------------ */

/* Column f->col's chunk, its totals taken from RG_SUM: 1, with where it
 * begins; 0 when they do not match what RG_END says (the chunk is then
 * scanned: a record is never taken over the pages it describes). */
static int sum_chunk(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[f->col];
    const upq_wjcol *j = &w->jr->cols[f->col];
    c->chunk_off = (int64_t)(j->off + j->slot - (uint32_t)c->dict_hdr);
    c->data_off = (int64_t)(j->off + j->slot);
    c->pages_plain = c->npages - c->pages_dict;
    return c->pages_dict <= c->npages && c->comp_bytes == (int64_t)j->fill + c->dict_hdr;
}

/* Phase 1 starts (again, after an encrypted footer was counted). */
static void footer_rgs_start(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->pi = f->area;
    f->rg = 0;
    f->rg_j = f->first_j;
    f->fstage = 0;
    f->rec = 0;
    f->scanning = 0;
    f->in_scan = 0;
    f->both = 0;
    f->lk = 0;
    f->lstage = L_HDR;
}

/*
 * Phase 1: for the footer's G_JRGS stage, each row group in turn: load it,
 * scan every chunk (totals and index sizes), place the indexes as phase 0
 * did, then generate the RowGroup through w->win.
 */
upq_status upq_wf_footer_rgs(upq_writer *w, int start)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_status st;
    uint32_t i;
    size_t got = 0;
    if (start) {
        footer_rgs_start(w);
        return UPQ_OK;
    }
    for (;;) {
        switch (f->fstage) {
        case 0: /* the next row group */
            if (f->rg == f->nrg) {
                w->num_rg = f->nrg;
                return UPQ_DONE;
            }
            st = rg_load(w);
            if (st == UPQ_DONE)
                return upq_wf_corrupt(w, f->rg_j, "row group missing");
            if (st != UPQ_OK)
                return st;
            w->num_rg = f->rg;
            f->col = 0;
            f->fstage = 1;
            continue;
        case 1: /* scan its chunks, or take their totals from RG_SUM */
            if (f->col < w->ncols) {
                st = f->has_sum && !f->sum_bad && !f->scanning && sum_chunk(w) ? UPQ_DONE
                                                                                 : scan_chunk(w, 0);
                if (st != UPQ_DONE)
                    return st;
                f->col++;
                continue;
            }
            /* where phase 0 put the indexes: per column its OffsetIndex
             * and ColumnIndex, or (encrypted) ColumnIndexes, then
             * OffsetIndexes */
            w->rg_unc = w->rg_comp = 0;
            for (i = 0; ONE_PASS(w) && i < w->ncols; i++) {
                upq_wcol *c = &w->cols[i];
                c->oi_off = (int64_t)f->pi;
                f->pi += (uint32_t)c->oi_len;
                if (c->ci_len) {
                    c->ci_off = (int64_t)f->pi;
                    f->pi += (uint32_t)c->ci_len;
                }
            }
            for (i = 0; i < w->ncols; i++) {
                upq_wcol *c = &w->cols[i];
                if (c->ci_len && !ONE_PASS(w)) {
                    c->ci_off = (int64_t)f->pi;
                    f->pi += (uint32_t)c->ci_len;
                }
                w->rg_unc += c->unc_bytes;
                w->rg_comp += c->comp_bytes;
            }
            for (i = 0; !ONE_PASS(w) && i < w->ncols; i++) {
                upq_wcol *c = &w->cols[i];
                c->oi_off = (int64_t)f->pi;
                f->pi += (uint32_t)c->oi_len;
            }
            w->rg_off = w->cols[0].chunk_off;
            w->rg_rows = f->rg_rows;
            w->num_rg = f->rg; /* the RowGroup's ordinal */
            upq_w_rg_gen_start(w);
            f->fstage = 2;
            continue;
        case 2:
            st = upq_w_rg_gen(w, w->win, sizeof w->win, &got);
            if (st < 0)
                return st;
            if (st == UPQ_OK) {
                f->fstage = 0;
                f->rg++;
                f->rg_j = f->next_j;
            }
            upq_wj_src(w, w->win, got, w->file_pos);
            return UPQ_OK;
        default:
            return UPQ_DONE;
        }
    }
    (void)jr;
}

/* ---- the finisher's job ----------------------------------------------------------- */

upq_status upq_wf_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_status st;
    for (;;) {
        switch (f->stage) {
        case F_INIT:
            f->first_j = jr->first_j;
            f->area = jr->next + UPQ_WJ_CLOSE_ROOM(w);
            f->pos = f->area;
            f->rg = 0;
            f->rg_j = f->first_j;
            f->rows = 0;
            f->rec = 0;
            f->stage = F_RG_LOAD;
            if (w->sink.seal)
                continue; /* an append-only sink writes its gaps as zeros itself */
            /* CLOSE's room as zeros: the record may not fill it */
            upq_memset(f->buf, 0, UPQ_WJ_CLOSE_ROOM(w));
            f->have = 0;
            upq_wj_src(w, f->buf, UPQ_WJ_CLOSE_ROOM(w), jr->next);
            return UPQ_OK;
        case F_RG_LOAD:
            /* phase 0: the page indexes, a row group at a time */
            if (f->rg_j == jr->next) {
                f->nrg = f->rg;
                f->stage = F_FOOTER;
                continue;
            }
            st = rg_load(w);
            if (st == UPQ_DONE) {
                f->nrg = f->rg;
                f->stage = F_FOOTER;
                continue;
            }
            if (st != UPQ_OK)
                return st;
            if (f->has_sum)
                f->want_crc = tot_crc(w);
            w->num_rg = f->rg; /* the AADs' row group ordinal */
            f->col = 0;
            f->which = 0;
            f->xstage = X_SCAN;
            f->stage = F_CHUNK;
            continue;
        case F_CHUNK:
            if (f->col == w->ncols) {
                if (f->which == 0 && !ONE_PASS(w)) {
                    f->which = 1;
                    f->col = 0;
                    f->xstage = X_SCAN;
                    continue;
                }
                if (f->has_sum && tot_crc(w) != f->want_crc)
                    f->sum_bad = 1;
                f->rows += f->rg_rows;
                f->rg++;
                f->rg_j = f->next_j;
                f->stage = F_RG_LOAD;
                continue;
            }
            st = ONE_PASS(w) && !f->seq_ci ? chunk_index1(w) : chunk_index(w);
#if UPQ_WITH_CRYPTO
            if (st == UPQ_OK && f->sealing && f->xstage != X_CI_HEAD && f->xstage != X_OI_HEAD)
                upq_wc_stream_piece(w, (uint8_t *)(uintptr_t)w->src, w->src_len);
#endif
            if (st != UPQ_DONE)
                return st;
            f->col++;
            f->seq_ci = 0;
            f->xstage = X_SCAN;
            continue;
        case F_FOOTER:
            if (!f->footer_on) {
                w->rows_done = f->rows;
                w->num_rg = f->nrg;
                w->file_pos = f->pos;
                upq_w_footer_begin(w, 0);
                f->footer_on = 1;
            }
            st = upq_w_footer_piece_rgs(w, upq_wf_footer_rgs);
            if (st == UPQ_OK)
                return UPQ_OK;
            if (st != UPQ_DONE)
                return st;
            f->footer_on = 0;
            f->end = w->file_pos;
            f->stage = F_SYNC;
            continue;
        case F_SYNC:
            st = upq_w_sync(w);
            if (st != UPQ_OK)
                return st;
            f->stage = F_TAIL;
            continue;
        case F_TAIL:
            /* the footer must end the file: what lies beyond it (the rest
             * of a cut-short run, a longer file resumed) is cut off, or,
             * without truncate, the footer is copied to the end (its bytes
             * do not depend on where they are) */
            if (jr->hwm <= f->end) {
                f->stage = F_DONE;
                continue;
            }
            if (w->sink.truncate) {
                st = w->sink.truncate(w->sink.ctx, f->end);
                if (st == UPQ_AGAIN)
                    return UPQ_AGAIN;
                if (st != UPQ_OK)
                    return upq_w_fail(w, UPQ_ERR_IO, -1, "truncate failed");
                jr->hwm = f->end;
                f->stage = F_SYNC;
                continue;
            }
            if (!f->tfix) {
                f->bleft = f->end - w->footer_start; /* bytes left to copy, from the end */
                f->tfix = 1;
            }
            if (f->bleft) {
                uint32_t n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
                uint64_t from = w->footer_start + f->bleft - n;
                st = upq_wf_rd(w, from, n);
                if (st != UPQ_OK)
                    return st;
                f->bleft -= n;
                upq_wj_src(w, upq_wf_at(w, from), n, jr->hwm - (f->end - from));
                return UPQ_OK;
            }
            f->tfix = 0;
            f->end = jr->hwm;
            f->stage = F_SYNC;
            continue;
        default:
            return UPQ_DONE;
        }
    }
}

/* The CLOSE record in the room kept for it, then sync: the journal now says
 * the file is complete (resuming reads it to continue after the footer). */
upq_status upq_wf_close_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_status st;
    switch (f->cstage) {
    case 0:
        /* the CRC of what close wrote after the journal: recovery checks
         * it before taking the file as closed */
        if (!f->crc_on) {
            f->bpos = f->area;
            f->bcrc = 0;
            f->crc_on = 1;
            f->have = 0; /* the window may hold bytes the footer's copy wrote over */
        }
        while (f->bpos < f->end) {
            uint32_t n = f->end - f->bpos < f->cap ? (uint32_t)(f->end - f->bpos) : f->cap;
            st = upq_wf_rd(w, f->bpos, n);
            if (st != UPQ_OK)
                return st;
            f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
            f->bpos += n;
        }
        f->crc_on = 0;
        upq_memset(&jr->cl, 0, sizeof jr->cl);
        jr->cl.isset = (1u << UPQ_JCLOSE_TAIL) | (1u << UPQ_JCLOSE_SIZE) | (1u << UPQ_JCLOSE_ROWS) |
                       (1u << UPQ_JCLOSE_ROW_GROUPS) | (1u << UPQ_JCLOSE_CRC);
        jr->cl.crc = (int32_t)f->bcrc;
        jr->cl.tail = (int64_t)f->area;
        jr->cl.size = (int64_t)f->end;
        jr->cl.rows = (int64_t)f->rows;
        jr->cl.row_groups = (int32_t)f->nrg;
        upq_wj_rec_begin(w, UPQ_J_CLOSE, &upq_journal_descs[UPQ_JDESC_CLOSE], &jr->cl, jr->next);
        f->cstage = 1;
        w->src_len = w->src_pos = 0;
        return UPQ_OK;
    case 1:
        w->seal_to = f->end; /* the file is complete */
        st = upq_w_sync(w);
        if (st != UPQ_OK)
            return st;
        f->cstage = 2;
        return UPQ_DONE;
    default:
        return UPQ_DONE;
    }
}

#endif /* UPQ_WITH_WRITER */
