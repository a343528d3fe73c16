/*
 * Recovery and resume of checkpoint-mode files (layout in journal.h).
 *
 * Both start the same way: follow the journal's chain of records from the
 * first row group on, as far as the records are intact (magic, length, CRC,
 * file id, sequence number, session). Row groups that ended (RG_END) are
 * complete. Where the chain breaks inside a row group, that row group was
 * cut: its last checkpoint is the candidate. The candidate's pages are read
 * and checked against their CRCs up to the fills it records (and every
 * checkpoint's dictionary blobs against theirs); when a page fails, the
 * latest earlier checkpoint whose fills lie within what verified is taken.
 *
 * Then recovery gives the cut row group an end: its dictionary pages, made
 * from the entries the checkpoints recorded (in the codec's stored form, so
 * no compressor is needed), and an RG_END record; then the finisher writes
 * page indexes and footer as close would. Resume instead takes the cut row
 * group up again (dictionary entries read back, counts from the record) and
 * writes a RESUME record, synced before any new page, so that records an
 * older session left behind are never taken for the new session's.
 *
 * Memory is the writer's: for recovery, one built from the FILE record with
 * the smallest pages, so it depends on the schema only. Every page and
 * record is read a bounded number of times: time is linear in the file.
 */
#include "uparquet/recover.h"
#include "write/writer_int.h"
#include "crypto/crypto_int.h"
#include "upq_aes.h"

#if UPQ_WITH_WRITER

/* Replay stages (upq_wfinish.rstage). */
enum {
    RP_WALK = 0,
    RP_BLOBS,        /* a CKPT's dictionary blobs against their CRCs */
    RP_END_WALK,
    RP_CLOSE_CRC,    /* a closed file's page indexes and footer against the CLOSE record */
    RP_VERIFY_LOAD,  /* the candidate's fills */
    RP_VERIFY,       /* pages (and, for RG_END, dictionary page and bloom filters) */
    RP_CHOOSE,       /* an earlier checkpoint when a page failed */
    RP_TAIL,         /* the chosen checkpoint of the cut row group */
    RP_DICT,         /* recovery: the cut row group's dictionary pages */
    RP_RGEND,        /* ... and its RG_END */
    RP_RGEND_SYNC,
    RP_RESTORE,      /* resume: the cut row group taken up again */
    RP_RESUME,       /* resume: the RESUME record */
    RP_RESUME_SYNC,
    RP_DONE
};

/* Page verification stages (upq_wfinish.vstage). */
enum { V_START = 0, V_HDR, V_BODY, V_DICT, V_DICT_BODY, V_BLOOM, V_NEXT };

/* Dictionary rebuild stages (upq_wfinish.vstage during RP_DICT). */
enum { D_START = 0, D_COUNT, D_FRAME, D_BLOB, D_HEADER, D_NEXT };

/* ---- small helpers ------------------------------------------------------------ */

/* What a damaged record or page made the reading functions report is, in
 * a replay, an expected finding (the end of the chain, a page lost to the
 * cut), not the writer's failure. */
static void forgive(upq_writer *w)
{
    w->failed = UPQ_OK;
    w->err.status = UPQ_OK;
}

/* The chain ends here: the record at f->walk is not this file's next one. */
static void chain_end(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->rstage = RP_END_WALK;
    f->lstage = 0;
    forgive(w);
}

static int is_ckpt(uint8_t type)
{
    return type == UPQ_J_CKPT || type == UPQ_J_RG_END;
}

/* Data bytes the region of column i can hold. */
static uint64_t region_data(const upq_wjcol *j)
{
    return j->cap - j->slot;
}

/* Takes the fills and counts of the decoded checkpoint f->ck into the
 * columns (the target verification checks, the state resume continues). */
static upq_status take_ckpt(upq_writer *w, uint64_t at)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    const upq_jckpt *ck = &f->ck;
    uint32_t i;
    if (ck->cols.n != w->ncols || ck->rows <= 0)
        return upq_wf_corrupt(w, at, "checkpoint record damaged");
    for (i = 0; i < w->ncols; i++) {
        const upq_jcol *j = &ck->cols.v[i];
        upq_wcol *c = &w->cols[i];
        upq_wjcol *wj = &jr->cols[i];
        if (!UPQ_ISSET(*j, UPQ_JCOL_FILL) || !UPQ_ISSET(*j, UPQ_JCOL_PAGES) || j->fill < 0 ||
            (uint64_t)j->fill > region_data(wj) || j->pages < 0)
            return upq_wf_corrupt(w, at, "checkpoint record damaged");
        wj->fill = (uint64_t)j->fill;
        c->npages = (uint32_t)j->pages;
        c->ba_bytes = UPQ_ISSET(*j, UPQ_JCOL_BA) ? j->ba : 0;
        if (c->def_hist) {
            if (j->def_hist.n != (uint32_t)c->max_def + 1u)
                return upq_wf_corrupt(w, at, "checkpoint record damaged");
            upq_memcpy(c->def_hist, j->def_hist.v, (size_t)j->def_hist.n * sizeof(int64_t));
        }
        if (c->rep_hist) {
            if (j->rep_hist.n != (uint32_t)c->max_rep + 1u)
                return upq_wf_corrupt(w, at, "checkpoint record damaged");
            upq_memcpy(c->rep_hist, j->rep_hist.v, (size_t)j->rep_hist.n * sizeof(int64_t));
        }
        c->dict_n = UPQ_ISSET(*j, UPQ_JCOL_DICT_N) && j->dict_n > 0 ? (uint32_t)j->dict_n : 0u;
        c->dict_hdr = UPQ_ISSET(*j, UPQ_JCOL_DICT_LEN) ? j->dict_len : 0;
        if (c->dict_hdr < 0 || (uint32_t)c->dict_hdr > wj->slot)
            return upq_wf_corrupt(w, at, "checkpoint record damaged");
    }
    f->rg_rows = (uint64_t)ck->rows;
    jr->blob = UPQ_ISSET(*ck, UPQ_JCKPT_BLOBS) ? (uint64_t)ck->blobs : jr->regions_end;
    if (jr->blob < jr->regions_end)
        return upq_wf_corrupt(w, at, "checkpoint record damaged");
    return UPQ_OK;
}

/* ---- verifying pages ---------------------------------------------------------- */

/*
 * A data page header of column c that the finisher can take (its CRC
 * covers the body only): its counts in range, its bounds no longer than
 * the finisher keeps. *rows gets its rows (-1 when only the journal says:
 * a repeated column's DATA_PAGE v1).
 */
static int page_sane(const upq_wcol *c, const upq_page_header *ph, uint32_t cap_b, int64_t *rows)
{
    const upq_statistics *s = (const upq_statistics *)0;
    int64_t values, nulls = -1;
    int32_t enc;
    if (ph->type == UPQ_PAGE_DATA && UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER)) {
        const upq_data_page_header *h = &ph->data_page_header;
        values = h->num_values;
        enc = h->encoding;
        *rows = c->max_rep ? -1 : values; /* flat: a level, so a row, per value */
        if (UPQ_ISSET(*h, UPQ_DATA_PAGE_HEADER_STATISTICS))
            s = &h->statistics;
    } else if (ph->type == UPQ_PAGE_DATA_V2 && UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2)) {
        const upq_data_page_header_v2 *h = &ph->data_page_header_v2;
        values = h->num_values;
        enc = h->encoding;
        nulls = h->num_nulls;
        *rows = h->num_rows;
        if (*rows < 0 || *rows > values)
            return 0;
        if (UPQ_ISSET(*h, UPQ_DATA_PAGE_HEADER_V2_STATISTICS))
            s = &h->statistics;
    } else {
        return 0;
    }
    if (values < 0 || enc < 0 || enc > 31 || ph->uncompressed_page_size < 0 || nulls > values)
        return 0;
    if (s && ((UPQ_ISSET(*s, UPQ_STATISTICS_NULL_COUNT) && (s->null_count < 0 || s->null_count > values)) ||
              (UPQ_ISSET(*s, UPQ_STATISTICS_MIN_VALUE) && s->min_value.len > cap_b) ||
              (UPQ_ISSET(*s, UPQ_STATISTICS_MAX_VALUE) && s->max_value.len > cap_b)))
        return 0;
    return 1;
}

/*
 * Reads column f->vcol's pages from its region's data start up to its fill
 * (jr->cols[].fill), checking each body against the header's CRC; sets the
 * column's `ok` to the bytes that verified. For a complete row group also
 * the dictionary page and the bloom filter. UPQ_DONE when the column is
 * done (whatever verified), UPQ_AGAIN, or an error of the sink.
 */
static upq_status verify_column(upq_writer *w, int complete)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjcol *j = &w->jr->cols[f->vcol];
    upq_wcol *c = &w->cols[f->vcol];
    uint64_t data = j->off + j->slot;
    const upq_page_header *ph = f->ph;
    upq_status st;
    for (;;) {
        switch (f->vstage) {
        case V_START:
            j->ok = 0;
            f->vpage = 0;
            f->vrows = 0;
            f->vrows_na = 0;
            f->vpos = data;
            f->vend = data + j->fill;
            f->vstage = complete && c->dict_hdr ? V_DICT : V_HDR;
            continue;
        case V_DICT:
            st = upq_wf_page_header(w, data - (uint32_t)c->dict_hdr, data, f->vcol, -1);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || ph->type != UPQ_PAGE_DICTIONARY || ph->compressed_page_size < 0 ||
                (uint64_t)f->pg.hl + (uint64_t)ph->compressed_page_size != (uint64_t)c->dict_hdr) {
                /* the row group's end did not survive whole; its data pages
                 * may still hold an earlier checkpoint (whose dictionary
                 * the records have) */
                f->bad = 1;
                forgive(w);
                f->vstage = V_HDR;
                continue;
            }
            f->bpos = data - (uint32_t)c->dict_hdr + f->pg.hl;
            f->bleft = (uint64_t)ph->compressed_page_size;
            f->bcrc = 0;
            f->want_crc = UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC) ? (uint32_t)ph->crc : 0u;
            f->has_crc = (uint8_t)UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC);
            f->vstage = V_DICT_BODY;
            continue;
        case V_DICT_BODY:
        case V_BODY:
            while (f->bleft) {
                uint32_t n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
                st = upq_wf_rd(w, f->bpos, n);
                if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                    return st;
                if (st != UPQ_OK) {
                    f->bad = 1;
                    forgive(w);
                    if (f->vstage == V_DICT_BODY) {
                        f->bleft = 0;
                        f->vstage = V_HDR;
                        break;
                    }
                    return UPQ_DONE;
                }
                f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
                f->bpos += n;
                f->bleft -= n;
            }
            if (f->vstage == V_HDR)
                continue;
            if (f->vstage == V_DICT_BODY) {
                if (f->has_crc && f->bcrc != f->want_crc)
                    f->bad = 1; /* as above: the data pages are checked still */
                f->vstage = V_HDR;
                continue;
            }
            if (f->has_crc && f->bcrc != f->want_crc) {
                f->bad = 1;
                return UPQ_DONE; /* the page (and what follows) did not verify */
            }
            f->vpos += f->pg.total;
            f->vpage++;
            j->ok = f->vpos - data;
            f->vstage = V_HDR;
            continue;
        case V_HDR:
            if (f->vpos >= f->vend) {
                /* the pages' rows must be the checkpoint's (a page header
                 * is not under the CRC: a wrong count shows only here) */
                if (!f->vrows_na && f->vrows != f->rg_rows) {
                    j->ok = 0;
                    f->bad = 1;
                    return UPQ_DONE;
                }
                f->vstage = complete && c->bf_hdr ? V_BLOOM : V_NEXT;
                continue;
            }
            st = upq_wf_page_header(w, f->vpos, f->vend, f->vcol, (int32_t)f->vpage);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || (ph->type != UPQ_PAGE_DATA && ph->type != UPQ_PAGE_DATA_V2) ||
                ph->compressed_page_size < 0 ||
                f->vpos + f->pg.hl + (uint64_t)ph->compressed_page_size > f->vend) {
                f->bad = 1;
                forgive(w);
                return UPQ_DONE;
            }
            {
                int64_t r = 0;
                if (!page_sane(c, ph, f->cap_b, &r)) {
                    f->bad = 1;
                    return UPQ_DONE;
                }
                if (r < 0)
                    f->vrows_na = 1;
                else
                    f->vrows += (uint64_t)r;
            }
            f->pg.total = f->pg.hl + (uint32_t)ph->compressed_page_size;
            f->bpos = f->vpos + f->pg.hl;
            f->bleft = (uint64_t)ph->compressed_page_size;
            f->bcrc = 0;
            f->want_crc = UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC) ? (uint32_t)ph->crc : 0u;
            f->has_crc = (uint8_t)UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC);
            f->vstage = V_BODY;
            continue;
        case V_BLOOM:
            /* header and bitset, one blob with its CRC in RG_END */
            if (!f->bloom_on) {
                f->bpos = (uint64_t)c->bf_off;
                f->bleft = (uint64_t)c->bf_hdr + c->bloom_bytes + (UPQ_W_KEY(c) ? UPQ_W_CRYPTO_OVER : 0u);
                f->bcrc = 0;
                f->bloom_on = 1;
            }
            while (f->bleft) {
                uint32_t n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
                st = upq_wf_rd(w, f->bpos, n);
                if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                    return st;
                if (st != UPQ_OK) {
                    f->bad = 1;
                    f->bloom_on = 0;
                    forgive(w);
                    return UPQ_DONE;
                }
                f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
                f->bpos += n;
                f->bleft -= n;
            }
            f->bloom_on = 0;
            if (f->bcrc != (uint32_t)j->bloom_crc)
                f->bad = 1;
            f->vstage = V_NEXT;
            continue;
        default:
            return UPQ_DONE;
        }
    }
}

/* ---- the cut row group's dictionary pages -------------------------------------- */

/* The next dictionary blob of column f->vcol in the row group's records
 * from f->dict_rec (up to the chosen checkpoint): UPQ_OK with it in
 * f->bpos / f->bleft, UPQ_DONE when there is none left, UPQ_AGAIN. */
static upq_status next_dict_blob(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_jhdr h;
    upq_status st;
    while (f->dict_rec <= f->cand) {
        const upq_jcol *j;
        uint64_t at = f->dict_rec;
        st = upq_wf_record(w, at, &h);
        if (st != UPQ_OK)
            return st;
        f->dict_rec += h.len;
        if (!is_ckpt(h.type) || f->ck.cols.n != w->ncols)
            continue;
        j = &f->ck.cols.v[f->vcol];
        if (!UPQ_ISSET(*j, UPQ_JCOL_DICT) || j->dict.len <= 0)
            continue;
        f->bpos = (uint64_t)j->dict.off;
        f->bleft = (uint64_t)j->dict.len;
        return UPQ_OK;
    }
    return UPQ_DONE;
}

/* A dictionary blob's PLAIN bytes (an encrypted column's blob is a module). */
static uint64_t blob_plain(const upq_wcol *c, uint64_t len)
{
    if (!UPQ_W_KEY(c))
        return len;
    return len > UPQ_W_CRYPTO_OVER ? len - UPQ_W_CRYPTO_OVER : 0u;
}

/*
 * The next piece of plain dictionary entries of column f->vcol, at most
 * `max` bytes, from the blobs of the row group's records up to the chosen
 * checkpoint: UPQ_OK with *p / *n (in the window; valid until the next
 * read), UPQ_DONE when there are no more, UPQ_AGAIN, or an error. An
 * encrypted column's blobs are authenticated before any byte is handed out.
 */
static upq_status dict_piece(upq_writer *w, uint64_t max, const uint8_t **p, uint32_t *n)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st;
    for (;;) {
#if UPQ_WITH_CRYPTO
        if (f->plen) {
            *p = f->buf + f->pp;
            *n = f->plen < max ? f->plen : (uint32_t)max;
            f->pp += *n;
            f->plen -= *n;
            return UPQ_OK;
        }
#endif
        if (!f->bleft) {
            st = next_dict_blob(w);
            if (st != UPQ_OK)
                return st;
            continue;
        }
#if UPQ_WITH_CRYPTO
        if (UPQ_W_KEY(&w->cols[f->vcol])) {
            const uint8_t *q;
            size_t k;
            st = upq_wf_module(w, f->bpos, f->bpos + f->bleft, UPQ_MODULE_JOURNAL_BLOB, (int32_t)w->num_rg,
                               (int32_t)f->vcol, -1, w->cols[f->vcol].key, &q, &k);
            if (st == UPQ_DONE) {
                f->bleft = 0;
                continue;
            }
            if (st != UPQ_OK)
                return st;
            f->pp = (uint32_t)(q - f->buf);
            f->plen = (uint32_t)k;
            continue;
        }
#endif
        {
            uint32_t k = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
            if (k > max)
                k = (uint32_t)max;
            st = upq_wf_rd(w, f->bpos, k);
            if (st != UPQ_OK)
                return st;
            *p = upq_wf_at(w, f->bpos);
            *n = k;
            f->bpos += k;
            f->bleft -= k;
            return UPQ_OK;
        }
    }
}

/* Bytes of the dictionary page's body as stored: the codec's stored form,
 * in its module when the column is encrypted. */
static size_t dict_stored(const upq_writer *w, const upq_wcol *c, size_t body)
{
#if UPQ_WITH_CRYPTO
    if (UPQ_W_KEY(c) && body)
        return body + upq_crypto_overhead(&w->wc->fc, UPQ_MODULE_DICT_PAGE);
#else
    (void)w;
    (void)c;
#endif
    return body;
}

/* A piece of the rebuilt dictionary page's body at f->vpos: encrypted (in
 * place) when the column is, then into its CRC. */
static void dict_out(upq_writer *w, uint8_t *p, size_t n)
{
    upq_wfinish *f = UPQ_WF(w);
#if UPQ_WITH_CRYPTO
    if (UPQ_W_KEY(&w->cols[f->vcol]))
        upq_wc_stream_piece(w, p, n);
#endif
    f->bcrc = upq_crc32_update(f->bcrc, p, n);
    upq_wj_src(w, p, n, f->vpos);
    f->vpos += n;
}

/*
 * Writes column f->vcol's dictionary page for the chosen checkpoint:
 * every entry its records listed, in the codec's stored form (in a module
 * under the column's key when it is encrypted), right-aligned in the slot;
 * the header after the body, once the CRC is known.
 */
static upq_status rebuild_dict(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_wjcol *j = &jr->cols[f->vcol];
    upq_wcol *c = &w->cols[f->vcol];
    upq_page_header *ph = &UPQ_W_MODELS(w)->ph;
    uint64_t slot_end = j->off + j->slot;
    upq_status st;
    size_t k, hl = 0, body;
    for (;;) {
        switch (f->vstage) {
        case D_START:
            f->dict_total = 0;
            f->dict_rec = f->rg_j;
            f->bleft = 0;
            f->plen = 0;
            f->vstage = D_COUNT;
            continue;
        case D_COUNT:
            st = next_dict_blob(w);
            if (st == UPQ_OK) {
                f->dict_total += blob_plain(c, f->bleft);
                f->bleft = 0;
                continue;
            }
            if (st != UPQ_DONE)
                return st;
            body = upq_stored_size(w->o.codec, (size_t)f->dict_total);
            if (!body || f->dict_total > INT32_MAX || dict_stored(w, c, body) + w->hbuf_cap > j->slot)
                return upq_wf_corrupt(w, j->off, "dictionary larger than its slot");
            if (upq_stored_begin(&f->sc, w->o.codec, (size_t)f->dict_total) != UPQ_OK)
                return upq_w_fail(w, UPQ_ERR_UNSUPPORTED, (int32_t)f->vcol, "codec without a stored form");
            f->dict_body = slot_end - dict_stored(w, c, body);
            f->vpos = f->dict_body;
            f->bcrc = 0;     /* CRC of the stored bytes */
            f->want_crc = 0; /* CRC of the plain bytes (gzip's trailer) */
            f->dict_rec = f->rg_j;
            f->bleft = 0;
            f->plen = 0;
            f->srun = 0;
            f->vstage = D_FRAME;
#if UPQ_WITH_CRYPTO
            if (UPQ_W_KEY(c)) {
                /* the body module's length and nonce */
                st = upq_wc_stream_begin(w, c->key, UPQ_MODULE_DICT_PAGE, (int32_t)f->vcol, (uint32_t)body,
                                         UPQ_WS_ENCRYPT);
                if (st != UPQ_OK)
                    return st;
                upq_memcpy(f->lit, w->wc->head, 16);
                f->bcrc = upq_crc32_update(f->bcrc, f->lit, 16);
                upq_wj_src(w, f->lit, 16, f->vpos);
                f->vpos += 16;
                return UPQ_OK;
            }
#endif
            continue;
        case D_FRAME:
            if (f->srun) {
                f->vstage = D_BLOB;
                continue;
            }
            k = upq_stored_next(&f->sc, f->want_crc, f->lit, &f->srun);
            if (k == 0 && f->srun == 0) {
                /* every entry is in: the last blob's module ends (and is
                 * authenticated a second time) */
                const uint8_t *p;
                uint32_t n;
                st = dict_piece(w, 1, &p, &n);
                if (st == UPQ_OK)
                    return upq_wf_corrupt(w, j->off, "dictionary entries beyond their count");
                if (st != UPQ_DONE)
                    return st;
                f->vstage = D_HEADER;
#if UPQ_WITH_CRYPTO
                if (UPQ_W_KEY(c) && w->wc->mode == UPQ_WS_ENCRYPT) {
                    /* a GCM module's tag (a CTR one has none) */
                    upq_wc_stream_tag(w, f->lit);
                    f->bcrc = upq_crc32_update(f->bcrc, f->lit, 16);
                    upq_wj_src(w, f->lit, 16, f->vpos);
                    f->vpos += 16;
                    return UPQ_OK;
                }
#endif
                continue;
            }
            if (k) {
                dict_out(w, f->lit, k);
                return UPQ_OK;
            }
            continue;
        case D_BLOB: {
            const uint8_t *p;
            uint32_t n;
            if (!f->srun) {
                f->vstage = D_FRAME;
                continue;
            }
            st = dict_piece(w, f->srun, &p, &n);
            if (st == UPQ_DONE)
                return upq_wf_corrupt(w, j->off, "dictionary entries missing");
            if (st != UPQ_OK)
                return st;
            f->want_crc = upq_crc32_update(f->want_crc, p, n);
            f->srun -= n;
            dict_out(w, (uint8_t *)(uintptr_t)p, n);
            return UPQ_OK;
        }
        case D_HEADER:
            body = (size_t)(slot_end - f->dict_body);
            upq_memset(ph, 0, sizeof *ph);
            ph->isset = (1u << UPQ_PAGE_HEADER_TYPE) | (1u << UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE) |
                        (1u << UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE) |
                        (1u << UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
            ph->type = UPQ_PAGE_DICTIONARY;
            ph->uncompressed_page_size = (int32_t)f->dict_total;
            ph->compressed_page_size = (int32_t)body;
            if (UPQ_WITH_CRC && !w->o.no_crc) {
                ph->crc = (int32_t)f->bcrc;
                UPQ_SET(*ph, UPQ_PAGE_HEADER_CRC);
            }
            ph->dictionary_page_header.isset = (1u << UPQ_DICTIONARY_PAGE_HEADER_NUM_VALUES) |
                                               (1u << UPQ_DICTIONARY_PAGE_HEADER_ENCODING);
            ph->dictionary_page_header.num_values = (int32_t)c->dict_n;
            ph->dictionary_page_header.encoding = UPQ_W_V2(w) ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY;
#if UPQ_WITH_CRYPTO
            if (UPQ_W_KEY(c)) {
                size_t pl = 0;
                st = upq_thrift_encode(&upq_page_header_desc, ph, w->hbuf + 16,
                                       w->hbuf_cap - 16u - UPQ_W_CRYPTO_OVER, &pl);
                if (st == UPQ_OK)
                    st = upq_wc_seal(w, c->key, UPQ_MODULE_DICT_PAGE_HEADER, (int32_t)f->vcol, -1, w->hbuf, pl,
                                     (const uint8_t *)0, &hl);
            } else
#endif
                st = upq_thrift_encode(&upq_page_header_desc, ph, w->hbuf, w->hbuf_cap, &hl);
            if (st != UPQ_OK || hl + body > j->slot)
                return upq_wf_corrupt(w, j->off, "dictionary larger than its slot");
            c->dict_hdr = (int32_t)(hl + body);
            upq_wj_src(w, w->hbuf, hl, f->dict_body - hl);
            f->vstage = D_NEXT;
            return UPQ_OK;
        default:
            return UPQ_DONE;
        }
    }
}

/* ---- resume: the cut row group's dictionary back in RAM -------------------------- */

/* Puts the PLAIN entries dict[from, dict_bytes) of c into its index. 0 when
 * they do not fit this writer's dictionary. */
static int index_entries(upq_wcol *c, uint32_t from)
{
    uint32_t off = from;
    while (off < c->dict_bytes) {
        uint32_t len, slot;
        const uint8_t *key;
        if (c->type == UPQ_TYPE_BYTE_ARRAY) {
            if (c->dict_bytes - off < 4u)
                return 0;
            len = upq_load_le32(c->dict + off);
            if (len > c->dict_bytes - off - 4u)
                return 0;
            key = c->dict + off + 4;
        } else {
            len = c->vsize;
            if (c->dict_bytes - off < len || !len)
                return 0;
            key = c->dict + off;
        }
        if (c->dict_n >= c->dict_max || upq_w_dict_find(c, key, len, &slot) >= 0)
            return 0; /* full, or a repeated entry: not a dictionary this writer made */
        if (c->type == UPQ_TYPE_BYTE_ARRAY)
            c->dict_off[c->dict_n] = off;
        c->slots[slot] = (uint16_t)(++c->dict_n);
        off += (c->type == UPQ_TYPE_BYTE_ARRAY ? 4u : 0u) + len;
    }
    return 1;
}

/* Reads column f->vcol's dictionary entries back into its dictionary.
 * UPQ_DONE (f->cut set when they do not fit), UPQ_AGAIN, or an error. */
static upq_status restore_dict(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[f->vcol];
    upq_status st;
    for (;;) {
        const uint8_t *p;
        uint32_t n;
        if (f->vstage == 0) {
            f->dict_rec = f->rg_j;
            f->bleft = 0;
            f->plen = 0;
            f->vstage = 1;
            c->dict_bytes = c->dict_n = 0;
            f->dict_body = 0;
        }
        st = dict_piece(w, UINT64_MAX, &p, &n);
        if (st == UPQ_DONE) {
            if (!index_entries(c, (uint32_t)f->dict_body) || c->dict_n != f->dict_n)
                f->cut = 1; /* not a dictionary this writer can take up: end the row group */
            return UPQ_DONE;
        }
        if (st != UPQ_OK)
            return st;
        if (n > c->dict_cap - c->dict_bytes) {
            f->cut = 1; /* larger than this writer's dictionary */
            return UPQ_DONE;
        }
        upq_memcpy(c->dict + c->dict_bytes, p, n);
        c->dict_bytes += n;
    }
}

/* ---- the replay ---------------------------------------------------------------- */

/* Starts the records of a new row group at f->walk (its RG_START decoded). */
static upq_status rg_begin(upq_writer *w, uint64_t at, const upq_jhdr *h)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    const upq_jrgstart *rs = &f->rs;
    uint64_t end = 0;
    uint32_t i;
    if (rs->rg != (int32_t)w->num_rg || rs->regions.n != w->ncols || rs->jcap < (int64_t)h->len ||
        rs->rows <= 0)
        return UPQ_DONE;
    for (i = 0; i < w->ncols; i++) {
        const upq_jregion *r = &rs->regions.v[i];
        upq_wjcol *j = &jr->cols[i];
        uint32_t slot = UPQ_ISSET(*r, UPQ_JREGION_SLOT) ? (uint32_t)r->slot : 0u;
        if (r->off < (int64_t)(at + (uint64_t)rs->jcap) || r->cap < (int64_t)slot)
            return UPQ_DONE;
        j->off = (uint64_t)r->off;
        j->cap = (uint64_t)r->cap;
        j->slot = slot;
        j->fill = 0;
        if (j->off + j->cap > end)
            end = j->off + j->cap;
    }
    f->rg_j = at;
    f->rg_seq = f->seq; /* its RG_START's: where the chain goes on if it is dropped */
    f->rg_jcap = (uint64_t)rs->jcap;
    jr->jstart = at;
    jr->jcap = (uint64_t)rs->jcap;
    jr->regions_end = end;
    jr->rg_limit = (uint64_t)rs->rows;
    f->in_rg = 1;
    f->last = 0;
    return UPQ_OK;
}

/* Can resume take the cut row group up again? Not with bloom filters (their
 * bits for the rows before the cut are gone) or a dictionary this writer
 * cannot hold. */
static int can_continue(const upq_writer *w)
{
    uint32_t i;
    for (i = 0; i < w->ncols; i++) {
        const upq_wcol *c = &w->cols[i];
        if (UPQ_W_BLOOM(c))
            return 0;
        if (c->dict_n && !c->use_dict)
            return 0;
    }
    return 1;
}

/* The row group f->... ended with f->rg_rows rows: on to the next. */
static void rg_complete(upq_writer *w, uint64_t next)
{
    upq_wfinish *f = UPQ_WF(w);
    w->rows_done += f->rg_rows;
    w->num_rg++;
    f->in_rg = 0;
    f->walk = next;
    w->jr->next = next;
}

/*
 * The replay job: the next piece of output (UPQ_OK), UPQ_DONE when the
 * file's state is known (and, for recovery, the cut row group ended; for
 * resume, the RESUME record synced), UPQ_AGAIN, or an error.
 */
upq_status upq_wr_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_jhdr h;
    upq_status st;
    uint32_t i;
    for (;;) {
        switch (f->rstage) {
        case RP_WALK:
            st = upq_wf_record(w, f->walk, &h);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || h.seq != f->seq || h.session < f->session) {
                chain_end(w);
                continue;
            }
            /* a resume or a recovery writes with a session of its own */
            f->session = h.session;
            if (f->end_pending) {
                f->end_pending = 0;
                rg_complete(w, f->walk);
            }
            switch (h.type) {
            case UPQ_J_RG_START:
                if (f->in_rg || rg_begin(w, f->walk, &h) != UPQ_OK) {
                    chain_end(w);
                    continue;
                }
                f->closed = 0;
                break;
            case UPQ_J_ROWS:
            case UPQ_J_CKPT:
                if (!f->in_rg || f->ck.rg != (int32_t)w->num_rg) {
                    chain_end(w);
                    continue;
                }
                if (h.type == UPQ_J_CKPT) {
                    /* its dictionary blobs must be whole for it to count */
                    f->vcol = 0;
                    f->bleft = 0;
                    f->rstage = RP_BLOBS;
                    f->cand_next = f->walk + h.len;
                    continue;
                }
                break;
            case UPQ_J_RG_END:
                if (!f->in_rg || f->ck.rg != (int32_t)w->num_rg || !UPQ_ISSET(f->ck, UPQ_JCKPT_NEXT) ||
                    f->ck.next < (int64_t)(f->walk + h.len)) {
                    chain_end(w);
                    continue;
                }
                f->last = f->walk;
                f->cand_next = f->walk + h.len;
                f->seq++;
                f->walk += h.len;
                if (f->verify_all) {
                    f->rstage = RP_VERIFY_LOAD;
                    continue;
                }
                /* Its pages need no check when a record written after its
                 * sync follows (the sync had returned, so they are
                 * durable); if none does, they are checked at the end. */
                f->rg_rows = (uint64_t)f->ck.rows;
                f->next_j = (uint64_t)f->ck.next;
                f->walk = f->next_j;
                f->end_pending = 1;
                continue;
            case UPQ_J_CLOSE:
                if (f->in_rg || f->cl.tail < (int64_t)(f->walk + h.len) || f->cl.size < f->cl.tail ||
                    f->cl.rows != (int64_t)w->rows_done || f->cl.row_groups != (int32_t)w->num_rg) {
                    chain_end(w);
                    continue;
                }
                f->closed = 1;
                f->close_at = f->walk;
                f->close_size = (uint64_t)f->cl.size; /* f->cl is overwritten by the next record read */
                f->close_seq = h.seq;
                f->close_tail = (uint64_t)f->cl.tail;
                f->close_crc = (uint32_t)f->cl.crc;
                f->seq++;
                f->walk = (uint64_t)f->cl.tail;
                continue;
            case UPQ_J_RESUME:
                f->closed = 0;
                if (!f->in_rg)
                    jr->next = f->walk + h.len;
                break;
            default:
                chain_end(w);
                continue;
            }
            f->seq++;
            f->walk += h.len;
            if (!f->in_rg)
                jr->next = f->walk;
            continue;
        case RP_BLOBS: {
            /* every dictionary blob of the CKPT in f->ck, against its CRC */
            const upq_jcol *j;
            while (f->vcol < w->ncols) {
                j = &f->ck.cols.v[f->vcol];
                if (f->ck.cols.n != w->ncols) {
                    chain_end(w);
                    break;
                }
                if (!f->bleft) {
                    if (!UPQ_ISSET(*j, UPQ_JCOL_DICT) || j->dict.len <= 0) {
                        f->vcol++;
                        continue;
                    }
                    f->bpos = (uint64_t)j->dict.off;
                    f->bleft = (uint64_t)j->dict.len;
                    f->bcrc = 0;
                }
                {
                    uint32_t n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
                    st = upq_wf_rd(w, f->bpos, n);
                    if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                        return st;
                    if (st != UPQ_OK) {
                        chain_end(w);
                        break;
                    }
                    f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
                    f->bpos += n;
                    f->bleft -= n;
                    if (!f->bleft) {
                        if (f->bcrc != (uint32_t)j->dict.crc) {
                            chain_end(w); /* this checkpoint's dictionary did not survive */
                            break;
                        }
                        f->vcol++;
                    }
                }
            }
            if (f->rstage != RP_BLOBS)
                continue;
            f->last = f->walk;
            f->seq++;
            f->walk = f->cand_next;
            f->rstage = RP_WALK;
            continue;
        }
        case RP_CLOSE_CRC:
            /* a closed file is taken as it is only when the page indexes
             * and footer close wrote are intact */
            while (f->bpos < f->close_size) {
                uint32_t n = f->close_size - f->bpos < f->cap ? (uint32_t)(f->close_size - f->bpos) : f->cap;
                st = upq_wf_rd(w, f->bpos, n);
                if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                    return st;
                if (st != UPQ_OK) {
                    forgive(w);
                    break;
                }
                f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
                f->bpos += n;
            }
            if (f->bpos != f->close_size || f->bcrc != f->close_crc)
                f->close_size = UINT64_MAX; /* finished again */
            f->crc_on = 1;
            f->rstage = RP_END_WALK;
            continue;
        case RP_END_WALK:
            if (f->closed && !f->in_rg && !f->resume && !f->crc_on && f->close_size == jr->hwm) {
                f->bpos = f->close_tail;
                f->bcrc = 0;
                f->rstage = RP_CLOSE_CRC;
                continue;
            }
            f->crc_on = 0;
            /* what is written next (dictionary pages, records, page
             * indexes, footer) has a session of its own, whose nonces
             * differ from every earlier session's */
            jr->session = (uint16_t)(f->session + 1u);
            if (f->session == UINT16_MAX && !f->dry && (f->resume || f->in_rg || !f->closed))
                return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "the file was resumed 65535 times: start a new one");
            if (!f->in_rg) {
                if (f->closed) {
                    /* what is written next (RESUME, or CLOSE again) goes in
                     * the CLOSE record's place, and in the chain in its turn */
                    f->seq = f->close_seq;
                    jr->next = f->close_at;
                }
                f->cand = 0;
                f->rstage = f->resume ? RP_RESUME : RP_DONE;
                continue;
            }
            if (!f->last) {
                /* a row group without a checkpoint: nothing of it is kept */
                f->in_rg = 0;
                jr->next = f->rg_j;
                f->seq = f->rg_seq;
                f->cand = 0;
                f->rstage = f->resume ? RP_RESUME : RP_DONE;
                continue;
            }
            f->rstage = RP_VERIFY_LOAD;
            continue;
        case RP_VERIFY_LOAD:
            /* the candidate's fills are what its pages must verify up to */
            f->end_pending = 0;
            st = upq_wf_record(w, f->last, &h);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || take_ckpt(w, f->last) != UPQ_OK)
                return upq_wf_corrupt(w, f->last, "checkpoint record changed");
            f->cand_next = f->last + h.len;
            f->last_end = h.type == UPQ_J_RG_END;
            for (i = 0; i < w->ncols; i++) {
                upq_wcol *c = &w->cols[i];
                const upq_jcol *j = &f->ck.cols.v[i];
                c->bf_hdr = 0;
                c->bloom_bytes = 0;
                if (f->last_end && UPQ_ISSET(*j, UPQ_JCOL_BLOOM) && UPQ_ISSET(*j, UPQ_JCOL_BLOOM_HDR) &&
                    j->bloom_hdr > 0 &&
                    j->bloom.len > j->bloom_hdr + (UPQ_W_KEY(c) ? (int32_t)UPQ_W_CRYPTO_OVER : 0)) {
                    c->bf_off = j->bloom.off;
                    c->bf_hdr = j->bloom_hdr;
                    c->bloom_bytes = (uint32_t)(j->bloom.len - j->bloom_hdr) -
                                     (UPQ_W_KEY(c) ? (uint32_t)UPQ_W_CRYPTO_OVER : 0u);
                    w->jr->cols[i].bloom_crc = j->bloom.crc;
                }
            }
            f->next_j = f->last_end ? (uint64_t)f->ck.next : 0u;
            f->vcol = 0;
            f->vstage = V_START;
            f->bad = 0;
            f->any_bad = 0;
            f->rstage = RP_VERIFY;
            continue;
        case RP_VERIFY:
            while (f->vcol < w->ncols) {
                st = verify_column(w, f->last_end);
                if (st != UPQ_DONE)
                    return st;
                if (f->bad || jr->cols[f->vcol].ok != jr->cols[f->vcol].fill)
                    f->any_bad = 1;
                f->bad = 0;
                f->vcol++;
                f->vstage = V_START;
            }
            if (!f->any_bad) {
                if (f->last_end) {
                    /* a complete row group: on with the walk */
                    rg_complete(w, f->next_j);
                    f->rstage = RP_WALK;
                    continue;
                }
                f->cand = f->last;
                f->rstage = RP_TAIL;
                continue;
            }
            /* a page failed: the latest checkpoint within what verified */
            f->bad_pages = 1;
            f->cand = 0;
            f->dict_rec = f->rg_j;
            f->rstage = RP_CHOOSE;
            continue;
        case RP_CHOOSE:
            while (f->dict_rec <= f->last) {
                uint64_t at = f->dict_rec;
                int fits = 1;
                st = upq_wf_record(w, at, &h);
                if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                    return st;
                if (st != UPQ_OK)
                    return upq_wf_corrupt(w, at, "journal record changed");
                f->dict_rec += h.len;
                if (h.type != UPQ_J_CKPT || f->ck.cols.n != w->ncols)
                    continue;
                for (i = 0; i < w->ncols && fits; i++)
                    fits = f->ck.cols.v[i].fill >= 0 && (uint64_t)f->ck.cols.v[i].fill <= jr->cols[i].ok;
                if (fits)
                    f->cand = at;
            }
            if (!f->cand) {
                /* not one intact checkpoint: the row group is dropped */
                f->in_rg = 0;
                jr->next = f->rg_j;
                f->seq = f->rg_seq;
                f->rstage = f->resume ? RP_RESUME : RP_DONE;
                continue;
            }
            f->rstage = RP_TAIL;
            continue;
        case RP_TAIL:
            /* the chosen checkpoint: its state, and where the next record goes */
            st = upq_wf_record(w, f->cand, &h);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || h.type != UPQ_J_CKPT || take_ckpt(w, f->cand) != UPQ_OK)
                return upq_wf_corrupt(w, f->cand, "checkpoint record changed");
            f->cand_next = f->cand + h.len;
            f->seq = h.seq + 1u;
            f->dict_n = 0;
            if (f->dry) {
                /* a dry run stops here: the rows it would keep are known */
                w->rows_done += f->rg_rows;
                w->num_rg++;
                f->rstage = RP_DONE;
                continue;
            }
            if (f->resume && can_continue(w)) {
                f->vcol = 0;
                f->vstage = 0;
                f->cut = 0;
                f->rstage = RP_RESTORE;
                continue;
            }
            f->vcol = 0;
            f->vstage = D_START;
            f->rstage = RP_DICT;
            continue;
        case RP_DICT:
            while (f->vcol < w->ncols) {
                upq_wcol *c = &w->cols[f->vcol];
                if (!c->dict_n) {
                    c->dict_hdr = 0;
                    f->vcol++;
                    continue;
                }
                st = rebuild_dict(w);
                if (st != UPQ_DONE)
                    return st;
                f->vcol++;
                f->vstage = D_START;
            }
            /* RG_END after the chosen checkpoint (over whatever the cut left there) */
            {
                upq_jckpt *ck = &jr->ck;
                upq_memset(ck, 0, sizeof *ck);
                ck->isset = (1u << UPQ_JCKPT_RG) | (1u << UPQ_JCKPT_ROWS) | (1u << UPQ_JCKPT_COLS) |
                            (1u << UPQ_JCKPT_NEXT);
                ck->rg = (int32_t)w->num_rg;
                ck->rows = (int64_t)f->rg_rows;
                ck->cols.v = jr->jc;
                ck->cols.n = w->ncols;
                ck->next = (int64_t)jr->blob;
                if (jr->blob != jr->regions_end) {
                    ck->blobs = (int64_t)jr->blob;
                    UPQ_SET(*ck, UPQ_JCKPT_BLOBS);
                }
                for (i = 0; i < w->ncols; i++) {
                    const upq_wcol *c = &w->cols[i];
                    upq_jcol *j = &jr->jc[i];
                    upq_memset(j, 0, sizeof *j);
                    upq_wj_col_counts(j, c, (int64_t)jr->cols[i].fill, (int32_t)c->npages,
                                      c->ba_bytes);
                    if (c->dict_n) {
                        j->dict_n = (int32_t)c->dict_n;
                        j->dict_len = c->dict_hdr;
                        j->isset |= (1u << UPQ_JCOL_DICT_N) | (1u << UPQ_JCOL_DICT_LEN);
                    }
                }
                jr->seq = f->seq;
                jr->session = (uint16_t)(f->session + 1u);
                upq_wj_rec_begin(w, UPQ_J_RG_END, 0, &upq_journal_descs[UPQ_JDESC_CKPT], ck,
                                 f->cand_next);
                f->seq++;
                f->rstage = RP_RGEND_SYNC;
                w->src_len = w->src_pos = 0;
                return UPQ_OK;
            }
        case RP_RGEND_SYNC:
            st = upq_w_sync(w);
            if (st != UPQ_OK)
                return st;
            rg_complete(w, jr->blob);
            f->rstage = f->resume ? RP_RESUME : RP_DONE;
            continue;
        case RP_RESTORE:
            while (f->vcol < w->ncols && !f->cut) {
                upq_wcol *c = &w->cols[f->vcol];
                if (!c->use_dict || !c->dict_n) {
                    f->vcol++;
                    continue;
                }
                f->dict_n = c->dict_n;
                st = restore_dict(w);
                if (st != UPQ_DONE)
                    return st;
                f->vcol++;
                f->vstage = 0;
            }
            if (f->cut) {
                /* a dictionary this writer cannot hold: end the row group */
                for (i = 0; i < w->ncols; i++)
                    w->cols[i].dict_n = (uint32_t)f->ck.cols.v[i].dict_n > 0 ? (uint32_t)f->ck.cols.v[i].dict_n : 0u;
                f->rstage = RP_TAIL; /* re-read, then the recovery path */
                f->resume = 2;
                continue;
            }
            /* the row group goes on from the checkpoint */
            for (i = 0; i < w->ncols; i++) {
                upq_wcol *c = &w->cols[i];
                jr->cols[i].dict_dur = c->dict_n;
                c->dict_on = c->use_dict && c->dict_n < c->dict_max;
                c->dict_pages = c->dict_n ? 1u : 0u;
                c->rows = c->crows = c->frows = f->rg_rows;
            }
            w->rs = f->rg_rows;
            jr->open = 1;
            jr->jpos = f->cand_next;
            /* a region without room for one more of this writer's pages
             * ends the row group first */
            for (i = 0; i < w->ncols; i++)
                if (region_data(&jr->cols[i]) - jr->cols[i].fill < w->cols[i].worst ||
                    jr->cols[i].slot < upq_wj_dict_slot(w, &w->cols[i]))
                    w->rg_due = 1; /* ... or a dictionary slot sized for its rows */
            f->in_rg = 1;
            f->rstage = RP_RESUME;
            continue;
        case RP_RESUME: {
            /* RESUME where the next record goes, synced before any page */
            uint64_t at = f->in_rg ? f->cand_next : jr->next;
            if (!f->in_rg) {
                /* a new row group comes next: nothing of the records read
                 * stays in the columns */
                upq_w_chunks_clear(w);
                for (i = 0; i < w->ncols; i++) {
                    jr->cols[i].fill = 0;
                    jr->cols[i].dict_dur = 0;
                    jr->cols[i].nprow = 0;
                }
                jr->open = 0;
            }
            jr->seq = f->seq;
            jr->session = (uint16_t)(f->session + 1u);
            upq_memset(&jr->rsm, 0, sizeof jr->rsm);
            jr->rsm.isset = 1u << UPQ_JRESUME_ROWS;
            jr->rsm.rows = (int64_t)(w->rows_done + w->rs);
            upq_wj_rec_begin(w, UPQ_J_RESUME, 0, &upq_journal_descs[UPQ_JDESC_RESUME], &jr->rsm, at);
            st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_RESUME], &jr->rsm, &jr->rec.len);
            if (st != UPQ_OK)
                return st;
            if (f->in_rg)
                jr->jpos = at + jr->rec.len;
            else
                jr->next = at + jr->rec.len;
            f->rstage = RP_RESUME_SYNC;
            w->src_len = w->src_pos = 0;
            return UPQ_OK;
        }
        case RP_RESUME_SYNC:
            st = upq_w_sync(w);
            if (st != UPQ_OK)
                return st;
            f->rstage = RP_DONE;
            continue;
        default:
            /* records written from here on continue the chain */
            if (jr->rec.stage == 0 && !f->resume) {
                jr->seq = f->seq;
                jr->session = (uint16_t)(f->session + 1u);
            }
            return UPQ_DONE;
        }
    }
}

/* ---- starting a replay ------------------------------------------------------------ */

/* Sets the replay job up on w (its journal state for the file's first row
 * group at first_j, the file's id and session). */
static void replay_start(upq_writer *w, uint64_t first_j, uint64_t file_id, uint16_t session,
                         int resume, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    upq_wf_init(w, jr->fin, w->ncols, jr->nrep, jr->nlev);
    jr->file_done = 1;
    jr->first_j = jr->next = first_j;
    jr->file_id = file_id;
    jr->hwm = size;
    f->walk = first_j;
    f->seq = 1;
    f->session = session;
    f->rstage = RP_WALK;
    f->lstage = 0;
    f->resume = (uint8_t)resume;
    f->verify_all = (uint8_t)!resume;
    f->in_rg = f->closed = f->bad_pages = 0;
    w->rows_done = 0;
    w->num_rg = 0;
    upq_wj_start(w, UPQ_WJ_REPLAY);
}

/* ---- resume ---------------------------------------------------------------------- */

/* Resume stages (upq_wjournal.resuming). */
enum { RS_START = 0, RS_HDR, RS_BODY, RS_CRC, RS_KEYS, RS_FMD, RS_CMP, RS_REPLAY, RS_READY };

/* Resume cannot take this file: not one of this writer's schema and options. */
static upq_status not_ours(upq_writer *w, upq_status st)
{
    return upq_w_fail(w, st == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, -1,
                      "not a checkpoint-mode file of this schema");
}

#if UPQ_WITH_CRYPTO
/* Takes the file's AAD file_unique and key checks into this writer (after
 * checking each key against its check module), so what it writes next
 * belongs to the same file. */
static upq_status adopt_keys(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_wcrypto *wc = w->wc;
    const upq_jfile *fj = f->fj;
    uint32_t i, k;
    if (!UPQ_ISSET(*fj, UPQ_JFILE_AAD_FILE_UNIQUE) || fj->aad_file_unique.len != sizeof wc->unique)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "the file was written with other encryption options");
    upq_memcpy(wc->unique, fj->aad_file_unique.ptr, sizeof wc->unique);
    if (fj->keys.n != w->o.encrypt->ncolumns)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "the file was written with other encryption options");
    for (i = 0; i < fj->keys.n; i++) {
        const upq_jkey *jk = &fj->keys.v[i];
        uint8_t buf[UPQ_JKEY_CHECK_LEN];
        uint8_t *pt;
        size_t pl;
        for (k = 0; k < w->o.encrypt->ncolumns; k++)
            if ((int32_t)w->o.encrypt->columns[k].column == jk->column)
                break;
        if (k == w->o.encrypt->ncolumns || !UPQ_ISSET(*jk, UPQ_JKEY_CHECK) ||
            jk->check.len != UPQ_JKEY_CHECK_LEN)
            return upq_w_fail(w, UPQ_ERR_INVAL, -1, "the file was written with other encryption options");
        upq_memcpy(buf, jk->check.ptr, UPQ_JKEY_CHECK_LEN);
        if (upq_crypto_decrypt_module(&wc->fc, wc->cols[k].k, UPQ_MODULE_JOURNAL, -1, -1, -1, buf,
                                      UPQ_JKEY_CHECK_LEN, &pt, &pl) != UPQ_OK)
            return upq_w_fail(w, UPQ_ERR_AUTH, jk->column, "column key does not match the file's");
        upq_memcpy(jr->kcheck + (size_t)k * UPQ_JKEY_CHECK_LEN, jk->check.ptr, UPQ_JKEY_CHECK_LEN);
    }
    jr->kcheck_done = 1;
    return UPQ_OK;
}
#endif

upq_status upq_writer_resume(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f;
    upq_jhdr h;
    upq_status st;
    int sealed = UPQ_W_ENCRYPTING(w);
    if (w->failed)
        return w->failed;
    if (!UPQ_W_JOURNAL(w))
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "resume needs checkpoint mode");
    f = UPQ_WF(w);
    for (;;) {
        switch (jr->resuming) {
        case RS_START:
            if (w->closed || w->closing || w->mode != UPQ_WM_NONE || jr->file_done || jr->job)
                return upq_w_fail(w, UPQ_ERR_STATE, -1, "resume comes right after init");
            upq_wf_init(w, jr->fin, w->ncols, jr->nrep, jr->nlev);
            jr->resuming = RS_HDR;
            continue;
        case RS_HDR: {
            const char *magic = sealed && !w->o.encrypt->plaintext_footer ? "PARE" : "PAR1";
            if (size < jr->first_j + 8u)
                return not_ours(w, UPQ_ERR_CORRUPT);
            st = upq_wf_rd(w, 0, 4u + UPQ_J_HDR);
            if (st == UPQ_AGAIN)
                return st;
            /* the FILE record must be the one this writer would write (but
             * for the file id and, encrypted, the file's nonces): same
             * schema, codec and options */
            if (st != UPQ_OK || upq_memcmp(upq_wf_at(w, 0), magic, 4) != 0 ||
                upq_j_hdr_get(upq_wf_at(w, 4), &h, jr->first_j - 4u) != UPQ_OK || h.type != UPQ_J_FILE ||
                h.flags != (sealed ? UPQ_J_SEALED : 0u) || h.seq != 0 || h.len != jr->first_j - 4u)
                return not_ours(w, st);
            jr->file_id = h.file_id;
            f->session = h.session;
            f->rcrc = upq_crc32(upq_wf_at(w, 4), UPQ_J_HDR);
            f->scrc = f->fcrc = 0;
            f->rdone = UPQ_J_HDR;
            f->tdone = 0;
            upq_arena_init(&f->scratch, f->smem, f->scap);
            f->fj = (upq_jfile *)upq_arena_alloc(&f->scratch, sizeof(upq_jfile));
            if (!f->fj)
                return upq_w_fail(w, UPQ_ERR_STATE, -1, "resume scratch too small");
            upq_tdec_init(&f->tdec, f->tframes, UPQ_THRIFT_MAX_DEPTH,
                          &upq_journal_descs[UPQ_JDESC_FILE], f->fj, &f->scratch, h.len - UPQ_J_MIN,
                          (const upq_thrift_limits *)0);
            jr->resuming = RS_BODY;
            continue;
        }
        case RS_BODY: {
            /* the record's CRC over all of it; its settings decoded (and
             * their CRC); the FileMetaData's CRC when it is plain */
            uint32_t body = (uint32_t)(jr->first_j - 4u) - UPQ_J_CRC;
            while (f->rdone < body) {
                uint32_t n = body - f->rdone < f->cap ? body - f->rdone : f->cap;
                size_t used = 0;
                const uint8_t *p;
                st = upq_wf_rd(w, 4u + f->rdone, n);
                if (st == UPQ_AGAIN)
                    return st;
                if (st != UPQ_OK)
                    return not_ours(w, st);
                p = upq_wf_at(w, 4u + f->rdone);
                f->rcrc = upq_crc32_update(f->rcrc, p, n);
                if (!f->tdone) {
                    st = upq_tdec_feed(&f->tdec, p, n, &used);
                    if (st == UPQ_OK) {
                        f->tdone = 1;
                        f->send = f->rdone + (uint32_t)used;
                    } else if (st == UPQ_AGAIN) {
                        used = n;
                    } else {
                        return not_ours(w, UPQ_ERR_CORRUPT);
                    }
                    f->scrc = upq_crc32_update(f->scrc, p, used);
                }
                if (f->tdone && !sealed)
                    f->fcrc = upq_crc32_update(f->fcrc, p + used, n - used);
                f->rdone += n;
            }
            if (!f->tdone)
                return not_ours(w, UPQ_ERR_CORRUPT);
            jr->resuming = RS_CRC;
            continue;
        }
        case RS_CRC:
            st = upq_wf_rd(w, jr->first_j - UPQ_J_CRC, UPQ_J_CRC);
            if (st == UPQ_AGAIN)
                return st;
            if (st != UPQ_OK || upq_load_le32(upq_wf_at(w, jr->first_j - UPQ_J_CRC)) != f->rcrc)
                return not_ours(w, st == UPQ_OK ? UPQ_ERR_CORRUPT : st);
            jr->resuming = sealed ? RS_KEYS : RS_CMP;
            continue;
#if UPQ_WITH_CRYPTO
        case RS_KEYS:
            st = adopt_keys(w);
            if (st != UPQ_OK)
                return st;
            f->cs_on = 0;
            jr->resuming = RS_FMD;
            continue;
        case RS_FMD:
            /* the FileMetaData, decrypted (which checks the footer key) */
            for (;;) {
                const uint8_t *p;
                size_t n;
                st = upq_wf_module(w, 4u + f->send, jr->first_j - UPQ_J_CRC, UPQ_MODULE_JOURNAL, -1, -1, -1,
                                   &w->wc->footer, &p, &n);
                if (st == UPQ_DONE)
                    break;
                if (st != UPQ_OK)
                    return st;
                f->fcrc = upq_crc32_update(f->fcrc, p, n);
            }
            jr->resuming = RS_CMP;
            continue;
#endif
        case RS_CMP: {
            uint32_t sc = 0, fc = 0;
            st = upq_wj_file_crc(w, &sc, &fc);
            if (st != UPQ_OK)
                return st;
            if (sc != f->scrc || fc != f->fcrc)
                return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                                  "the file was written with another schema or other options");
            replay_start(w, jr->first_j, jr->file_id, f->session, 1, size);
            jr->resuming = RS_REPLAY;
            continue;
        }
        case RS_REPLAY:
            st = upq_w_pump(w);
            if (st != UPQ_OK)
                return st;
            /* rows before the cut are durable; more follow */
            w->rows_durable = w->rows_done + w->rs;
            jr->ckpt_at = upq_wj_next_ckpt(w, w->rows_done + w->rs);
            if (!f->in_rg)
                jr->rg_limit = upq_wj_next_limit(w);
            jr->resuming = RS_READY;
            return UPQ_OK;
        default:
            return UPQ_OK;
        }
    }
}

/* ---- recovery --------------------------------------------------------------------- */

/* Recovery stages (upq_recover_state.stage). */
enum {
    RC_INIT = 0,
    RC_HDR,
    RC_BODY,
    RC_CRC,
    RC_KEYS,
    RC_FMD,
    RC_WRITER,
    RC_REPLAY,
    RC_FINISH,
    RC_CLOSE,
    RC_DONE
};

/* The arena recovery asks for when the FILE record does not fit: what its
 * decoding has taken, 32 bytes of RAM for every byte of the record (the
 * widest decoded form of a Thrift byte, a struct field or list entry, is
 * less), and the finishing writer's (per column: its state and 64-byte
 * staging; its shared scratch). Generous: the exact need shows only once
 * the schema is decoded. */
static size_t rc_need_estimate(const upq_recover_state *st)
{
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    size_t n = upq_arena_needed(&st->a), est;
    uint32_t cols = jf && jf->ncols > 0 ? (uint32_t)jf->ncols : 64u;
    est = st->a.used + 32u * (size_t)st->len + (size_t)cols * (sizeof(upq_wcol) + 1024u) + 16384u;
    if (st->sealed)
        est += 8192u; /* keys, and the ColumnMetaData a column's module holds */
    return est > n ? est : n;
}

/* Reads [off, off + n) of the file into st->buf (n <= sizeof buf). */
static upq_status rc_read(upq_recover_state *st, const upq_sink *sink, uint64_t off, uint32_t n)
{
    while (st->have < n) {
        size_t got = 0;
        upq_status s = sink->read_at(sink->ctx, off + st->have, st->buf + st->have, n - st->have, &got);
        if (s == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (s != UPQ_OK)
            return UPQ_ERR_IO;
        if (got == 0 || got > n - st->have)
            return UPQ_ERR_CORRUPT;
        st->have += (uint32_t)got;
    }
    return UPQ_OK;
}

static upq_status rc_fail(upq_recover_state *st, upq_status s, uint64_t off, const char *what)
{
    (void)what; /* UPQ_NO_ERRSTR builds keep no texts */
    st->w.err.column = st->w.err.row_group = st->w.err.page = -1;
    st->w.err.status = s;
    st->w.err.what = UPQ_MSG(what);
    st->w.err.offset = off;
    st->w.failed = s;
    st->stage = RC_DONE;
    return s;
}

/* The writer that finishes the file: the file's schema and options, the
 * smallest pages (it stages nothing). */
#if UPQ_WITH_CRYPTO
/* Bytes of the arena, 8-aligned, taken from the front of [*mem, *mem + *len). */
static void *rc_take(uint8_t **mem, size_t *len, size_t n)
{
    void *p = *mem;
    n = upq_w_align8(n);
    if (n > *len)
        return (void *)0;
    *mem += n;
    *len -= n;
    return p;
}

/* The encryption options of the finishing writer, in the arena: the file's
 * algorithm, AAD and key metadata, the footer key asked for already; each
 * column key's place filled once the writer knows the columns' paths. */
static upq_status rc_encrypt_opts(upq_recover_state *st, const upq_recover_opts *ro, upq_writer_opts *o,
                                  uint8_t **mem, size_t *len)
{
    static const uint8_t zero_key[16] = {0};
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    upq_encrypt_opts *e = (upq_encrypt_opts *)rc_take(mem, len, sizeof *e);
    upq_column_key *ck = (upq_column_key *)rc_take(mem, len, (size_t)jf->keys.n * sizeof *ck);
    uint32_t i;
    if (!e || (jf->keys.n && !ck)) {
        st->w.arena.needed = upq_w_align8(sizeof *e) + upq_w_align8((size_t)jf->keys.n * sizeof *ck);
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small for the schema");
    }
    if (!ro || !ro->random)
        return rc_fail(st, UPQ_ERR_INVAL, UINT64_MAX, "recovering an encrypted file needs a random source");
    upq_memset(e, 0, sizeof *e);
    e->algorithm = st->fc.algorithm;
    e->plaintext_footer = (uint8_t)((jf->flags & UPQ_JF_PLAIN_FOOTER) != 0);
    e->footer_key = st->fkey;
    e->footer_key_len = (uint32_t)st->fkey_len;
    e->footer_key_metadata = jf->footer_key_metadata.ptr;
    e->footer_key_metadata_len = UPQ_ISSET(*jf, UPQ_JFILE_FOOTER_KEY_METADATA) ? jf->footer_key_metadata.len : 0u;
    e->aad_prefix = st->fc.aad_prefix.ptr;
    e->aad_prefix_len = st->fc.aad_prefix.len;
    e->no_store_aad_prefix = (uint8_t)((jf->flags & UPQ_JF_SUPPLY_AAD) != 0);
    e->random = ro->random;
    e->random_ctx = ro->random_ctx;
    for (i = 0; i < jf->keys.n; i++) {
        const upq_jkey *jk = &jf->keys.v[i];
        if (jk->column < 0)
            return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
        ck[i].column = (uint32_t)jk->column;
        ck[i].key = zero_key; /* the real one once the column's path is known */
        ck[i].key_len = 16;
        ck[i].key_metadata = jk->key_metadata.ptr;
        ck[i].key_metadata_len = UPQ_ISSET(*jk, UPQ_JKEY_KEY_METADATA) ? jk->key_metadata.len : 0u;
    }
    e->columns = ck;
    e->ncolumns = jf->keys.n;
    o->encrypt = e;
    return UPQ_OK;
}

/* Each column key from the caller, by its metadata and the column's path,
 * checked against the file; and the file's AAD file_unique taken. */
static upq_status rc_column_keys(upq_recover_state *st, const upq_recover_opts *ro)
{
    upq_writer *w = &st->w;
    const upq_encrypt_opts *e = w->o.encrypt;
    uint32_t i;
    for (i = 0; i < e->ncolumns; i++) {
        const upq_wcol *c = &w->cols[e->columns[i].column];
        upq_bytes md;
        upq_bytes_list path;
        uint8_t key[UPQ_CRYPTO_MAX_KEY];
        size_t kl = 0;
        md.ptr = e->columns[i].key_metadata;
        md.len = e->columns[i].key_metadata_len;
        path.v = c->path;
        path.n = c->path_len;
        if (ro->decrypt->get_key(ro->decrypt->key_ctx, &md, &path, key, &kl) != UPQ_OK ||
            upq_aes_setkey(w->wc->cols[i].k, key, kl) != UPQ_OK) {
            upq_memset(key, 0, sizeof key);
            return upq_w_fail(w, UPQ_ERR_AUTH, (int32_t)e->columns[i].column, "column key not available");
        }
        upq_memset(key, 0, sizeof key);
    }
    UPQ_WF(w)->fj = (struct upq_jfile *)st->settings;
    return adopt_keys(w);
}
#endif

/* A dry run's writer writes nothing, but is built with a sink that could. */
static upq_status no_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    (void)ctx;
    (void)off;
    (void)buf;
    (void)len;
    *written = 0;
    return UPQ_ERR_IO;
}

static upq_status rc_writer(upq_recover_state *st, const upq_sink *sink, uint8_t *mem, size_t len,
                            const upq_recover_opts *ropts)
{
    upq_sink dry;
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    upq_writer_opts o;
    upq_status s;
    upq_memset(&o, 0, sizeof o);
    o.page_size = 64;
    o.page_levels = 8;
    o.dict_size = 64;
    o.checkpoint = 1;
    o.row_group_rows = 1;
    o.file_id = st->file_id;
    o.data_page_v2 = (uint8_t)((jf->flags & UPQ_JF_V2) != 0);
    o.no_crc = (uint8_t)((jf->flags & UPQ_JF_CRC) == 0);
    o.no_statistics = (uint8_t)((jf->flags & UPQ_JF_STATS) == 0);
    o.no_page_index = (uint8_t)((jf->flags & UPQ_JF_PAGE_INDEX) == 0);
    o.column_order = (uint8_t)((jf->flags & UPQ_JF_IEEE_ORDER) ? UPQ_ORDER_IEEE754 : UPQ_ORDER_TYPE);
    if (UPQ_ISSET(*jf, UPQ_JFILE_STATS_MAX_BINARY) && jf->stats_max_binary > 0 && !o.no_statistics)
        o.stats_max_binary = (uint32_t)jf->stats_max_binary;
    o.kv = st->fmd.key_value_metadata.v;
    o.nkv = st->fmd.key_value_metadata.n;
    if (st->fmd.row_groups.n == 1) {
        o.sorting = st->fmd.row_groups.v[0].sorting_columns.v;
        o.nsorting = st->fmd.row_groups.v[0].sorting_columns.n;
    }
#if UPQ_WITH_CRYPTO
    if (st->sealed) {
        s = rc_encrypt_opts(st, ropts, &o, &mem, &len);
        if (s != UPQ_OK)
            return s;
    }
#else
    (void)ropts;
#endif
    if (ropts && ropts->dry_run && !sink->write_at) {
        upq_memcpy(&dry, sink, sizeof dry); /* an assignment is a memcpy call on RV32 */
        dry.write_at = no_write_at;
        sink = &dry;
    }
    s = upq_writer_init(&st->w, sink, st->fmd.schema.v, st->fmd.schema.n, mem, len, &o);
    if (s != UPQ_OK)
        return s;
    if ((int32_t)st->w.ncols != jf->ncols)
        return upq_w_fail(&st->w, UPQ_ERR_CORRUPT, -1, "FILE record damaged");
#if UPQ_WITH_CRYPTO
    if (st->sealed) {
        s = rc_column_keys(st, ropts);
        if (s != UPQ_OK)
            return s;
    }
#endif
    /* pages are never compressed here: a dictionary page is written in the
     * codec's stored form */
    st->w.o.codec = jf->codec;
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
/* The file's encryption parameters, and the footer key from the caller
 * (expanded in the arena); the FileMetaData's module set up for reading. */
static upq_status rc_footer_key(upq_recover_state *st, const upq_sink *sink, const upq_recover_opts *ro)
{
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    const upq_decrypt_opts *d = ro ? ro->decrypt : (const upq_decrypt_opts *)0;
    upq_bytes md;
    if (!UPQ_ISSET(*jf, UPQ_JFILE_ALGORITHM) || jf->algorithm < UPQ_CRYPTO_AES_GCM_V1 ||
        jf->algorithm > UPQ_CRYPTO_AES_GCM_CTR_V1 || !UPQ_ISSET(*jf, UPQ_JFILE_AAD_FILE_UNIQUE))
        return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
    if (!d || !d->get_key)
        return rc_fail(st, UPQ_ERR_AUTH, 4, "encrypted file: no keys given");
    upq_memset(&st->fc, 0, sizeof st->fc);
    st->fc.algorithm = (uint8_t)jf->algorithm;
    st->fc.aad_file_unique = jf->aad_file_unique;
    if (jf->flags & UPQ_JF_SUPPLY_AAD) {
        if (!d->aad_prefix_given)
            return rc_fail(st, UPQ_ERR_AUTH, 4, "encrypted file: its AAD prefix must be supplied");
        st->fc.aad_prefix.ptr = d->aad_prefix;
        st->fc.aad_prefix.len = d->aad_prefix_len;
    } else if (UPQ_ISSET(*jf, UPQ_JFILE_AAD_PREFIX)) {
        if (d->aad_prefix_given && (d->aad_prefix_len != jf->aad_prefix.len ||
                                    upq_memcmp(d->aad_prefix, jf->aad_prefix.ptr, d->aad_prefix_len) != 0))
            return rc_fail(st, UPQ_ERR_AUTH, 4, "AAD prefix given differs from the file's");
        st->fc.aad_prefix = jf->aad_prefix;
    }
    st->fkey = (uint8_t *)upq_arena_alloc(&st->a, UPQ_CRYPTO_MAX_KEY);
    st->fk = (struct upq_aes_key *)upq_arena_alloc(&st->a, upq_aes_key_size());
    if (!st->fkey || !st->fk) {
        st->w.arena.needed = upq_arena_needed(&st->a);
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small");
    }
    md.ptr = jf->footer_key_metadata.ptr;
    md.len = UPQ_ISSET(*jf, UPQ_JFILE_FOOTER_KEY_METADATA) ? jf->footer_key_metadata.len : 0u;
    st->fkey_len = 0;
    if (d->get_key(d->key_ctx, &md, (const upq_bytes_list *)0, st->fkey, &st->fkey_len) != UPQ_OK ||
        upq_aes_setkey(st->fk, st->fkey, st->fkey_len) != UPQ_OK)
        return rc_fail(st, UPQ_ERR_AUTH, 4, "footer key not available");
    upq_cstream_init(&st->cs, st->mod_off, 4u + st->len - UPQ_J_CRC, UPQ_MODULE_JOURNAL, -1, -1, -1);
    st->cio.ctx = sink->ctx;
    st->cio.read_at = sink->read_at;
#if UPQ_WITH_LEND
    st->cio.lend = (upq_lend_fn)0;
#endif
    st->cio.size = st->size;
    st->part = 1;
    upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_file_metadata_desc, &st->fmd,
                  &st->a, st->len, (const upq_thrift_limits *)0);
    return UPQ_OK;
}
#endif

upq_status upq_recover(upq_recover_state *st, const upq_sink *sink, uint64_t size, void *arena,
                       size_t arena_len, const upq_recover_opts *opts, upq_recover_info *info)
{
    upq_writer *w = &st->w;
    upq_status s;
    upq_jhdr h;
    size_t used = 0;
    for (;;) {
        switch (st->stage) {
        case RC_INIT:
            upq_memset(info, 0, sizeof *info);
            if (!sink || !sink->read_at || (!(opts && opts->dry_run) && !sink->write_at))
                return rc_fail(st, UPQ_ERR_INVAL, UINT64_MAX, "recovery needs read_at and write_at");
            st->size = size;
            upq_arena_init(&st->a, arena, arena_len);
            st->settings = upq_arena_alloc(&st->a, sizeof(upq_jfile));
            if (!st->settings)
                return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small");
            st->have = 0;
            st->stage = RC_HDR;
            continue;
        case RC_HDR:
            if (size < 4u + UPQ_J_MIN + 8u)
                return rc_fail(st, UPQ_ERR_CORRUPT, 0, "not a checkpoint-mode file");
            s = rc_read(st, sink, 0, 4u + UPQ_J_HDR);
            if (s == UPQ_AGAIN)
                return s;
            if (s != UPQ_OK || (upq_memcmp(st->buf, "PAR1", 4) != 0 && upq_memcmp(st->buf, "PARE", 4) != 0) ||
                upq_j_hdr_get(st->buf + 4, &h, size - 4u) != UPQ_OK || h.type != UPQ_J_FILE ||
                h.seq != 0 || (h.flags & ~UPQ_J_SEALED) != 0)
                return rc_fail(st, s == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, 4,
                               "not a checkpoint-mode file (no journal)");
            st->pare = st->buf[3] == 'E';
            st->sealed = (h.flags & UPQ_J_SEALED) != 0;
            if (st->sealed && !UPQ_WITH_CRYPTO)
                return rc_fail(st, UPQ_ERR_UNSUPPORTED, 4, "encrypted file: this build has no crypto");
            st->len = h.len;
            st->file_id = h.file_id;
            st->session = h.session;
            st->crc = upq_crc32(st->buf + 4, UPQ_J_HDR);
            st->done = UPQ_J_HDR;
            st->part = 0;
            upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH,
                          &upq_journal_descs[UPQ_JDESC_FILE], st->settings, &st->a,
                          st->len - UPQ_J_MIN, (const upq_thrift_limits *)0);
            st->have = 0;
            st->stage = RC_BODY;
            continue;
        case RC_BODY: {
            uint32_t body = st->len - UPQ_J_CRC, n;
            if (st->done == body) {
                if (st->part != (st->sealed ? 3 : 2))
                    return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
                st->have = 0;
                st->stage = RC_CRC;
                continue;
            }
            n = body - st->done < sizeof st->buf ? body - st->done : (uint32_t)sizeof st->buf;
            s = rc_read(st, sink, 4u + st->done, n);
            if (s == UPQ_AGAIN)
                return s;
            if (s != UPQ_OK)
                return rc_fail(st, s, 4u + st->done, "FILE record cut short");
            st->crc = upq_crc32_update(st->crc, st->buf, n);
            used = 0;
            while (used < n && st->part != 3) {
                size_t u = 0;
                if (st->part == 2)
                    return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
                s = upq_tdec_feed(&st->tdec, st->buf + used, n - used, &u);
                used += u;
                if (s == UPQ_AGAIN)
                    break;
                if (s == UPQ_ERR_NOMEM) {
                    st->w.arena.needed = rc_need_estimate(st);
                    return rc_fail(st, s, 4, "arena too small for the schema");
                }
                if (s != UPQ_OK)
                    return rc_fail(st, UPQ_ERR_CORRUPT, 4u + st->done + used, "FILE record damaged");
                if (st->part == 0 && st->sealed) {
                    /* the settings, then the FileMetaData's module (opened
                     * once the record's CRC has passed and the key is in) */
                    st->part = 3;
                    st->mod_off = 4u + st->done + used;
                } else if (st->part == 0) {
                    /* the settings, then the FileMetaData */
                    st->part = 1;
                    upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH,
                                  &upq_file_metadata_desc, &st->fmd, &st->a, body - st->done - used,
                                  (const upq_thrift_limits *)0);
                } else {
                    st->part = 2;
                }
            }
            st->done += n;
            st->have = 0;
            continue;
        }
        case RC_CRC:
            s = rc_read(st, sink, 4u + st->len - UPQ_J_CRC, UPQ_J_CRC);
            if (s == UPQ_AGAIN)
                return s;
            if (s != UPQ_OK || upq_load_le32(st->buf) != st->crc)
                return rc_fail(st, s == UPQ_ERR_IO ? s : UPQ_ERR_CORRUPT, 4, "FILE record damaged");
            if (st->pare != (st->sealed && !(((const upq_jfile *)st->settings)->flags & UPQ_JF_PLAIN_FOOTER)))
                return rc_fail(st, UPQ_ERR_CORRUPT, 0, "FILE record damaged");
            st->stage = st->sealed ? RC_KEYS : RC_WRITER;
            continue;
#if UPQ_WITH_CRYPTO
        case RC_KEYS:
            s = rc_footer_key(st, sink, opts);
            if (s != UPQ_OK)
                return s;
            st->stage = RC_FMD;
            continue;
        case RC_FMD:
            /* the FileMetaData, decrypted as it is decoded */
            for (;;) {
                const uint8_t *p;
                size_t n, u = 0;
                uint64_t at = st->mod_off;
                const char *what = "";
                s = upq_cstream_next(&st->cs, &st->cio, &st->fc, st->fk, st->buf, sizeof st->buf, &p, &n, &at,
                                     &what);
                if (s == UPQ_AGAIN)
                    return s;
                if (s == UPQ_DONE)
                    break;
                if (s != UPQ_OK)
                    return rc_fail(st, s == UPQ_ERR_AUTH || s == UPQ_ERR_IO ? s : UPQ_ERR_CORRUPT, at,
                                   s == UPQ_ERR_AUTH ? "footer key does not match the file" : what);
                if (st->part == 2)
                    continue; /* authenticated padding after it */
                s = upq_tdec_feed(&st->tdec, p, n, &u);
                if (s == UPQ_OK)
                    st->part = 2;
                else if (s == UPQ_ERR_NOMEM) {
                    st->w.arena.needed = rc_need_estimate(st);
                    return rc_fail(st, s, 4, "arena too small for the schema");
                } else if (s != UPQ_AGAIN)
                    return rc_fail(st, UPQ_ERR_CORRUPT, st->mod_off, "FILE record damaged");
            }
            if (st->part != 2)
                return rc_fail(st, UPQ_ERR_CORRUPT, st->mod_off, "FILE record damaged");
            st->stage = RC_WRITER;
            continue;
#endif
        case RC_WRITER: {
            size_t at = upq_w_align8(st->a.used);
            uint8_t *mem = (uint8_t *)arena + at;
            if (at > arena_len)
                return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small for the schema");
            s = rc_writer(st, sink, mem, arena_len - at, opts);
            if (s == UPQ_ERR_NOMEM) {
                st->w.arena.needed += at;
                st->stage = RC_DONE;
                return s;
            }
            if (s != UPQ_OK) {
                st->stage = RC_DONE;
                return s;
            }
            replay_start(w, 4u + st->len, st->file_id, st->session, 0, size);
            if (opts && opts->dry_run)
                UPQ_WF(w)->dry = 1;
            st->stage = RC_REPLAY;
            continue;
        }
        case RC_REPLAY: {
            upq_wfinish *f = UPQ_WF(w);
            s = upq_w_pump(w);
            if (s != UPQ_OK)
                return s;
            info->bad_pages = f->bad_pages;
            info->rows = w->rows_done;
            info->row_groups = w->num_rg;
            info->cut_at = w->jr->next;
            if (f->closed && f->close_size == size) {
                info->was_closed = 1;
                info->file_size = size;
                st->stage = RC_DONE;
                return UPQ_OK;
            }
            if (opts && opts->dry_run) {
                st->stage = RC_DONE;
                return UPQ_OK;
            }
            if (f->closed)
                w->jr->next = f->close_at; /* finished again, in the same place */
            upq_wj_start(w, UPQ_WJ_FINISH);
            st->stage = RC_FINISH;
            continue;
        }
        case RC_FINISH:
            s = upq_w_pump(w);
            if (s != UPQ_OK)
                return s;
            upq_wj_start(w, UPQ_WJ_CLOSE);
            st->stage = RC_CLOSE;
            continue;
        case RC_CLOSE:
            s = upq_w_pump(w);
            if (s != UPQ_OK)
                return s;
            info->file_size = UPQ_WF(w)->end;
            st->stage = RC_DONE;
            return UPQ_OK;
        default:
            return w->failed ? w->failed : UPQ_ERR_STATE;
        }
    }
}

size_t upq_recover_needed(const upq_recover_state *st)
{
    return st->w.arena.needed;
}

const upq_error_info *upq_recover_error(const upq_recover_state *st)
{
    return &st->w.err;
}

#endif /* UPQ_WITH_WRITER */
