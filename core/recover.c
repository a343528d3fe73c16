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
#include "writer_int.h"

#if UPQ_WITH_WRITER

/* Replay stages (upq_wfinish.rstage). */
enum {
    RP_WALK = 0,
    RP_BLOBS,        /* a CKPT's dictionary blobs against their CRCs */
    RP_END_WALK,
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
enum { D_START = 0, D_COUNT, D_FRAME, D_BLOB_REC, D_BLOB, D_HEADER, D_NEXT };

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
    const upq_page_header *ph = &f->ph;
    upq_status st;
    for (;;) {
        switch (f->vstage) {
        case V_START:
            j->ok = 0;
            f->vpos = data;
            f->vend = data + j->fill;
            f->vstage = complete && c->dict_hdr ? V_DICT : V_HDR;
            continue;
        case V_DICT:
            st = upq_wf_page_header(w, data - (uint32_t)c->dict_hdr, data);
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
            j->ok = f->vpos - data;
            f->vstage = V_HDR;
            continue;
        case V_HDR:
            if (f->vpos >= f->vend) {
                f->vstage = complete && c->bf_hdr ? V_BLOOM : V_NEXT;
                continue;
            }
            st = upq_wf_page_header(w, f->vpos, f->vend);
            if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
                return st;
            if (st != UPQ_OK || (ph->type != UPQ_PAGE_DATA && ph->type != UPQ_PAGE_DATA_V2) ||
                ph->compressed_page_size < 0 ||
                f->vpos + f->pg.hl + (uint64_t)ph->compressed_page_size > f->vend) {
                f->bad = 1;
                forgive(w);
                return UPQ_DONE;
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
                f->bleft = (uint64_t)c->bf_hdr + c->bloom_bytes;
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

/*
 * Writes column f->vcol's dictionary page for the chosen checkpoint:
 * every entry its records listed, in the codec's stored form, right-aligned
 * in the slot; the header after the body, once the CRC is known.
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
            f->vstage = D_COUNT;
            continue;
        case D_COUNT:
            st = next_dict_blob(w);
            if (st == UPQ_OK) {
                f->dict_total += f->bleft;
                continue;
            }
            if (st != UPQ_DONE)
                return st;
            body = upq_stored_size(w->o.codec, (size_t)f->dict_total);
            if (!body || f->dict_total > INT32_MAX || body + w->hbuf_cap > j->slot)
                return upq_wf_corrupt(w, j->off, "dictionary larger than its slot");
            if (upq_stored_begin(&f->sc, w->o.codec, (size_t)f->dict_total) != UPQ_OK)
                return upq_w_fail(w, UPQ_ERR_UNSUPPORTED, (int32_t)f->vcol, "codec without a stored form");
            f->dict_body = slot_end - body;
            f->vpos = f->dict_body;
            f->bcrc = 0;     /* CRC of the stored bytes */
            f->want_crc = 0; /* CRC of the plain bytes (gzip's trailer) */
            f->dict_rec = f->rg_j;
            f->bleft = 0;
            f->srun = 0;
            f->vstage = D_FRAME;
            continue;
        case D_FRAME:
            if (f->srun) {
                f->vstage = D_BLOB;
                continue;
            }
            k = upq_stored_next(&f->sc, f->want_crc, f->lit, &f->srun);
            if (k == 0 && f->srun == 0) {
                f->vstage = D_HEADER;
                continue;
            }
            f->bcrc = upq_crc32_update(f->bcrc, f->lit, k);
            upq_wj_src(w, f->lit, k, f->vpos);
            f->vpos += k;
            if (k)
                return UPQ_OK;
            continue;
        case D_BLOB:
            if (!f->srun) {
                f->vstage = D_FRAME;
                continue;
            }
            if (!f->bleft) {
                st = next_dict_blob(w);
                if (st == UPQ_DONE)
                    return upq_wf_corrupt(w, j->off, "dictionary entries missing");
                if (st != UPQ_OK)
                    return st;
                continue;
            }
            {
                uint64_t n64 = f->bleft < f->srun ? f->bleft : f->srun;
                uint32_t n = n64 < f->cap ? (uint32_t)n64 : f->cap;
                const uint8_t *p;
                st = upq_wf_rd(w, f->bpos, n);
                if (st != UPQ_OK)
                    return st;
                p = upq_wf_at(w, f->bpos);
                f->bcrc = upq_crc32_update(f->bcrc, p, n);
                f->want_crc = upq_crc32_update(f->want_crc, p, n);
                upq_wj_src(w, p, n, f->vpos);
                f->vpos += n;
                f->bpos += n;
                f->bleft -= n;
                f->srun -= n;
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
        if (f->vstage == 0) {
            f->dict_rec = f->rg_j;
            f->bleft = 0;
            f->vstage = 1;
            c->dict_bytes = c->dict_n = 0;
        }
        if (!f->bleft) {
            uint32_t from = c->dict_bytes;
            st = next_dict_blob(w);
            if (st == UPQ_DONE) {
                if (c->dict_n != f->dict_n)
                    f->cut = 1;
                return UPQ_DONE;
            }
            if (st != UPQ_OK)
                return st;
            if (f->bleft > c->dict_cap - c->dict_bytes) {
                f->cut = 1; /* larger than this writer's dictionary: end the row group */
                return UPQ_DONE;
            }
            (void)from;
            f->dict_body = c->dict_bytes; /* where this blob's entries start */
        }
        {
            uint32_t n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
            st = upq_wf_rd(w, f->bpos, n);
            if (st != UPQ_OK)
                return st;
            upq_memcpy(c->dict + c->dict_bytes, upq_wf_at(w, f->bpos), n);
            c->dict_bytes += n;
            f->bpos += n;
            f->bleft -= n;
            if (!f->bleft && !index_entries(c, (uint32_t)f->dict_body)) {
                f->cut = 1;
                return UPQ_DONE;
            }
        }
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

static upq_status replay_sync(upq_writer *w)
{
    upq_status st;
    if (!w->sink.sync)
        return UPQ_OK;
    st = w->sink.sync(w->sink.ctx);
    if (st == UPQ_OK || st == UPQ_AGAIN)
        return st;
    return upq_w_fail(w, UPQ_ERR_IO, -1, "sync failed");
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
                f->seq++;
                f->walk = (uint64_t)f->cl.tail;
                continue;
            case UPQ_J_RESUME:
                f->session = h.session;
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
        case RP_END_WALK:
            if (!f->in_rg) {
                f->cand = 0;
                f->rstage = f->resume ? RP_RESUME : RP_DONE;
                continue;
            }
            if (!f->last) {
                /* a row group without a checkpoint: nothing of it is kept */
                f->in_rg = 0;
                jr->next = f->rg_j;
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
                    j->bloom_hdr > 0 && j->bloom.len > j->bloom_hdr) {
                    c->bf_off = j->bloom.off;
                    c->bf_hdr = j->bloom_hdr;
                    c->bloom_bytes = (uint32_t)(j->bloom.len - j->bloom_hdr);
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
                    j->isset = (1u << UPQ_JCOL_FILL) | (1u << UPQ_JCOL_PAGES);
                    j->fill = (int64_t)jr->cols[i].fill;
                    j->pages = (int32_t)c->npages;
                    if (c->type == UPQ_TYPE_BYTE_ARRAY) {
                        j->ba = c->ba_bytes;
                        UPQ_SET(*j, UPQ_JCOL_BA);
                    }
                    if (c->def_hist) {
                        j->def_hist.v = c->def_hist;
                        j->def_hist.n = (uint32_t)c->max_def + 1u;
                        UPQ_SET(*j, UPQ_JCOL_DEF_HIST);
                    }
                    if (c->rep_hist) {
                        j->rep_hist.v = c->rep_hist;
                        j->rep_hist.n = (uint32_t)c->max_rep + 1u;
                        UPQ_SET(*j, UPQ_JCOL_REP_HIST);
                    }
                    if (c->dict_n) {
                        j->dict_n = (int32_t)c->dict_n;
                        j->dict_len = c->dict_hdr;
                        j->isset |= (1u << UPQ_JCOL_DICT_N) | (1u << UPQ_JCOL_DICT_LEN);
                    }
                }
                jr->seq = f->seq;
                jr->session = f->session;
                upq_wj_rec_begin(w, UPQ_J_RG_END, 0, &upq_journal_descs[UPQ_JDESC_CKPT], ck,
                                 f->cand_next);
                f->seq++;
                f->rstage = RP_RGEND_SYNC;
                w->src_len = w->src_pos = 0;
                return UPQ_OK;
            }
        case RP_RGEND_SYNC:
            st = replay_sync(w);
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
                if (region_data(&jr->cols[i]) - jr->cols[i].fill < w->cols[i].worst)
                    w->rg_due = 1;
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
            st = replay_sync(w);
            if (st != UPQ_OK)
                return st;
            f->rstage = RP_DONE;
            continue;
        default:
            /* records written from here on continue the chain */
            if (jr->rec.stage == 0 && !f->resume) {
                jr->seq = f->seq;
                jr->session = f->session;
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
enum { RS_START = 0, RS_HDR, RS_BODY, RS_CRC, RS_REPLAY, RS_READY };

upq_status upq_writer_resume(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f;
    upq_jhdr h;
    upq_status st;
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
            /* the FILE record must be the one this writer would write (but
             * for the file id): same schema, codec and options */
            st = upq_wj_file_crc(w, &jr->own_crc);
            if (st != UPQ_OK)
                return st;
            jr->resuming = RS_HDR;
            continue;
        case RS_HDR:
            if (size < jr->first_j + 8u)
                return upq_w_fail(w, UPQ_ERR_CORRUPT, -1, "not a checkpoint-mode file of this schema");
            st = upq_wf_rd(w, 0, 4u + UPQ_J_HDR);
            if (st == UPQ_AGAIN)
                return st;
            if (st != UPQ_OK || upq_memcmp(upq_wf_at(w, 0), "PAR1", 4) != 0 ||
                upq_j_hdr_get(upq_wf_at(w, 4), &h, jr->first_j - 4u) != UPQ_OK || h.type != UPQ_J_FILE ||
                h.flags != 0 || h.seq != 0 || h.len != jr->first_j - 4u)
                return upq_w_fail(w, st == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, -1,
                                  "not a checkpoint-mode file of this schema");
            jr->file_id = h.file_id;
            f->session = h.session;
            f->rcrc = upq_crc32(upq_wf_at(w, 4), UPQ_J_HDR);
            f->bcrc = 0;
            f->rdone = UPQ_J_HDR;
            jr->resuming = RS_BODY;
            continue;
        case RS_BODY: {
            uint32_t body = (uint32_t)(jr->first_j - 4u) - UPQ_J_CRC;
            while (f->rdone < body) {
                uint32_t n = body - f->rdone < f->cap ? body - f->rdone : f->cap;
                const uint8_t *p;
                st = upq_wf_rd(w, 4u + f->rdone, n);
                if (st == UPQ_AGAIN)
                    return st;
                if (st != UPQ_OK)
                    return upq_w_fail(w, st == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, -1,
                                      "not a checkpoint-mode file of this schema");
                p = upq_wf_at(w, 4u + f->rdone);
                f->rcrc = upq_crc32_update(f->rcrc, p, n);
                f->bcrc = upq_crc32_update(f->bcrc, p, n);
                f->rdone += n;
            }
            jr->resuming = RS_CRC;
            continue;
        }
        case RS_CRC:
            st = upq_wf_rd(w, jr->first_j - UPQ_J_CRC, UPQ_J_CRC);
            if (st == UPQ_AGAIN)
                return st;
            if (st != UPQ_OK || upq_load_le32(upq_wf_at(w, jr->first_j - UPQ_J_CRC)) != f->rcrc)
                return upq_w_fail(w, st == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, -1,
                                  "not a checkpoint-mode file of this schema");
            if (f->bcrc != jr->own_crc)
                return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                                  "the file was written with another schema or other options");
            replay_start(w, jr->first_j, jr->file_id, f->session, 1, size);
            jr->resuming = RS_REPLAY;
            continue;
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
    RC_WRITER,
    RC_REPLAY,
    RC_FINISH,
    RC_CLOSE,
    RC_DONE
};

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
    st->w.err.status = s;
    st->w.err.what = UPQ_MSG(what);
    st->w.err.offset = off;
    st->w.failed = s;
    st->stage = RC_DONE;
    return s;
}

/* The writer that finishes the file: the file's schema and options, the
 * smallest pages (it stages nothing). */
static upq_status rc_writer(upq_recover_state *st, const upq_sink *sink, uint8_t *mem, size_t len)
{
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
    if (UPQ_ISSET(*jf, UPQ_JFILE_STATS_MAX_BINARY) && jf->stats_max_binary > 0 && !o.no_statistics)
        o.stats_max_binary = (uint32_t)jf->stats_max_binary;
    o.kv = st->fmd.key_value_metadata.v;
    o.nkv = st->fmd.key_value_metadata.n;
    if (st->fmd.row_groups.n == 1) {
        o.sorting = st->fmd.row_groups.v[0].sorting_columns.v;
        o.nsorting = st->fmd.row_groups.v[0].sorting_columns.n;
    }
    s = upq_writer_init(&st->w, sink, st->fmd.schema.v, st->fmd.schema.n, mem, len, &o);
    if (s != UPQ_OK)
        return s;
    if ((int32_t)st->w.ncols != jf->ncols)
        return upq_w_fail(&st->w, UPQ_ERR_CORRUPT, -1, "FILE record damaged");
    /* pages are never compressed here: a dictionary page is written in the
     * codec's stored form */
    st->w.o.codec = jf->codec;
    return UPQ_OK;
}

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
            if (s != UPQ_OK || upq_memcmp(st->buf, "PAR1", 4) != 0 ||
                upq_j_hdr_get(st->buf + 4, &h, size - 4u) != UPQ_OK || h.type != UPQ_J_FILE ||
                h.seq != 0 || h.flags != 0)
                return rc_fail(st, s == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, 4,
                               "not a checkpoint-mode file (no journal)");
            st->len = h.len;
            st->file_id = h.file_id;
            st->session = h.session;
            st->crc = upq_crc32(st->buf + 4, UPQ_J_HDR);
            st->done = UPQ_J_HDR;
            st->part = 0;
            upq_tdec_init(&st->tdec, &upq_journal_descs[UPQ_JDESC_FILE], st->settings, &st->a,
                          st->len - UPQ_J_MIN, (const upq_thrift_limits *)0);
            st->have = 0;
            st->stage = RC_BODY;
            continue;
        case RC_BODY: {
            uint32_t body = st->len - UPQ_J_CRC, n;
            if (st->done == body) {
                if (st->part != 2)
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
            while (used < n) {
                size_t u = 0;
                if (st->part == 2)
                    return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
                s = upq_tdec_feed(&st->tdec, st->buf + used, n - used, &u);
                used += u;
                if (s == UPQ_AGAIN)
                    break;
                if (s == UPQ_ERR_NOMEM) {
                    st->w.arena.needed = upq_arena_needed(&st->a);
                    return rc_fail(st, s, 4, "arena too small for the schema");
                }
                if (s != UPQ_OK)
                    return rc_fail(st, UPQ_ERR_CORRUPT, 4u + st->done + used, "FILE record damaged");
                if (st->part == 0) {
                    /* the settings, then the FileMetaData */
                    st->part = 1;
                    upq_tdec_init(&st->tdec, &upq_file_metadata_desc, &st->fmd, &st->a,
                                  body - st->done - used, (const upq_thrift_limits *)0);
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
            st->stage = RC_WRITER;
            continue;
        case RC_WRITER: {
            size_t at = upq_w_align8(st->a.used);
            uint8_t *mem = (uint8_t *)arena + at;
            if (at > arena_len)
                return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small for the schema");
            s = rc_writer(st, sink, mem, arena_len - at);
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
            if (f->closed && f->cl.size == (int64_t)size) {
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
