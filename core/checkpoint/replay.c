/*
 * The replay of a checkpoint-mode file (layout in journal.h), for resume and
 * recovery: what of the file can be kept, then the cut row group ended
 * (recovery) or taken up again (resume).
 *
 * The walk follows the journal's chain of records from the first row group
 * on. A record is taken only when its framing holds (magic, length, CRC from
 * the file's nonce, file id, sequence number, session) and it agrees with
 * the records before it and with the file:
 *   - RG_START lays its regions out after its journal area, one after
 *     another, as the writer plans them;
 *   - a checkpoint (CKPT, RG_END) lies in its row group's journal area, and
 *     no count of it goes back: rows, each region's fill and pages, each
 *     dictionary's entries;
 *   - its dictionary blobs lie where the blobs before them end, pass their
 *     CRCs and hold exactly the entries it adds;
 *   - the pages it adds to each region decode as the finisher takes them,
 *     their headers and bodies give the CRC it states (a page's own CRC
 *     covers its body only), and they make its page count and rows;
 *   - RG_END's dictionary pages and bloom filters pass their CRCs, and the
 *     next row group's area begins where its blobs end.
 * So every page is read once, in the order the records were written, and a
 * record that fails any check ends the chain: what follows it is not this
 * file's to keep (the rest of a cut, bytes of another file, damage). The
 * cut row group's last record taken is its candidate; the finisher then
 * reads nothing that was not checked (the dictionaries of the cut row group
 * are counted once more, before anything is written).
 *
 * Then recovery gives the cut row group an end: its dictionary pages, made
 * from the entries the checkpoints recorded (in the codec's stored form, so
 * no compressor is needed), and an RG_END record; the finisher writes page
 * indexes and footer as close would. Resume instead takes the cut row group
 * up again (dictionary entries read back, counts from the record) and writes
 * a RESUME record, synced before any new page, so that records an older
 * session left behind are never taken for the new session's. Nothing is
 * written before the walk and the dictionary checks are done.
 *
 * Memory is the writer's: the finisher's block, and while the walk lasts,
 * fields of the column states that a writer only uses once it writes hold
 * what the taken records and verified pages of the row group say so far:
 *   jr->cols[i].fill   region data bytes verified
 *   jr->cols[i].crc    the region's running CRC over them (upq_wj_region_crc)
 *   jr->cols[i].nprow  repeated columns' v1 pages: pages the page-rows lists gave
 *   c->npages          pages verified
 *   c->rows            rows of the pages verified (repeated v1: of the lists)
 *   c->dict_n          dictionary entries the records taken hold
 * (the chosen checkpoint then sets them as the writer needs them). Every
 * record and page is read a bounded number of times and the walk only goes
 * forward: time is linear in the file.
 */
#include "replay.h"
#include "crypto/crypto_int.h"

#if UPQ_WITH_WRITER

/* Replay stages (upq_wfinish.rstage). */
enum {
    RP_WALK = 0,     /* the next record of the chain */
    RP_BLOBS,        /* a checkpoint's dictionary blobs */
    RP_PAGES,        /* ... the pages it adds */
    RP_DICTPG,       /* RG_END: the dictionary pages */
    RP_BLOOM,        /* ... and bloom filters */
    RP_END_WALK,
    RP_CLOSE_CRC,    /* a closed file's page indexes and footer against the CLOSE record */
    RP_TAIL,         /* the chosen checkpoint of the cut row group */
    RP_DICT_CHECK,   /* ... its dictionaries, before anything is written */
    RP_DICT,         /* recovery: the cut row group's dictionary pages */
    RP_GAPS,         /* ... zeros in its gaps, synced */
    RP_GAPS_SYNC,
    RP_RGEND,        /* ... and its RG_END */
    RP_RGEND_SYNC,
    RP_RESTORE,      /* resume: the cut row group taken up again */
    RP_RESUME,       /* resume: the RESUME record */
    RP_RESUME_SYNC,
    RP_DONE
};

/* ---- small helpers ------------------------------------------------------------ */

/* What a damaged record or page made the reading functions report is, in
 * a replay, an expected finding (the end of the chain, a page lost to the
 * cut), not the writer's failure. */
static void forgive(upq_writer *w)
{
    w->failed = UPQ_OK;
    w->err.status = UPQ_OK;
}

/* The chain ends here: the record at f->walk is not this file's next one.
 * UPQ_OK: the replay goes on (with what was taken before it). */
static upq_status chain_end(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->rstage = RP_END_WALK;
    f->lstage = 0;
    f->vstage = 0;
    forgive(w);
    return UPQ_OK;
}

/* ... because a page the record covers did not verify. */
static upq_status pages_bad(upq_writer *w)
{
    UPQ_WF(w)->bad_pages = 1;
    return chain_end(w);
}

/* Data bytes the region of column i can hold. */
static uint64_t region_data(const upq_wjcol *j)
{
    return j->cap - j->slot;
}

/* Reads the next piece of [f->bpos, f->bpos + f->bleft) into the window:
 * UPQ_OK with *n bytes at upq_wf_at(w, f->bpos), UPQ_AGAIN, or an error. */
static upq_status piece(upq_writer *w, uint32_t *n)
{
    upq_wfinish *f = UPQ_WF(w);
    *n = f->bleft < f->cap ? (uint32_t)f->bleft : f->cap;
    return upq_wf_rd(w, f->bpos, *n);
}

/* The rest of a blob, [f->bpos, f->bpos + f->bleft), read through the
 * window into its CRC (f->bcrc), and the dictionary entries of c counted
 * in it (c NULL: none counted). UPQ_OK once read, UPQ_AGAIN or UPQ_ERR_IO
 * (called again the same way), or another error: a piece that cannot be
 * read, or entries that do not parse. */
static upq_status blob_read(upq_writer *w, const upq_wcol *c)
{
    upq_wfinish *f = UPQ_WF(w);
    uint32_t n;
    while (f->bleft) {
        upq_status st = piece(w, &n);
        if (st != UPQ_OK)
            return st;
        f->bcrc = upq_crc32_update(f->bcrc, upq_wf_at(w, f->bpos), n);
        if (c && !upq_wr_count_entries(w, c, upq_wf_at(w, f->bpos), n))
            return UPQ_ERR_CORRUPT;
        f->bpos += n;
        f->bleft -= n;
    }
    return UPQ_OK;
}

/* The record at f->walk (its header in f->jh) is taken. */
static void take_record(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->seq++;
    f->walk += f->jh.len;
    if (!f->in_rg)
        w->jr->next = f->walk;
}

/* The row group ended with f->rg_rows rows: on to the next. */
static void rg_complete(upq_writer *w, uint64_t next)
{
    upq_wfinish *f = UPQ_WF(w);
    w->rows_done += f->rg_rows;
    w->num_rg++;
    f->in_rg = 0;
    f->walk = next;
    w->jr->next = next;
}

/* A repeated column's rows come from the records' page-rows lists (its v1
 * page headers do not say). */
static int rows_listed(const upq_writer *w, const upq_wcol *c)
{
    return c->max_rep && !UPQ_W_V2(w);
}

/* ---- the walk: records ------------------------------------------------------ */

/* RG_START at f->walk (decoded): its regions follow its journal area one
 * after another. 0 when it does not fit this file. */
static int rg_layout(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    const upq_jrgstart *rs = &f->rs;
    uint64_t pos;
    uint32_t i;
    if (f->in_rg || rs->rg != (int32_t)w->num_rg || rs->regions.n != w->ncols || rs->rows <= 0 ||
        rs->jcap < (int64_t)f->jh.len || (uint64_t)rs->jcap > INT64_MAX - f->walk)
        return 0;
    pos = f->walk + (uint64_t)rs->jcap;
    for (i = 0; i < w->ncols; i++) {
        const upq_jregion *r = &rs->regions.v[i];
        upq_wjcol *j = &jr->cols[i];
        uint32_t slot = UPQ_ISSET(*r, UPQ_JREGION_SLOT) ? (uint32_t)r->slot : 0u;
        if (r->off != (int64_t)pos || r->cap < (int64_t)slot || (UPQ_ISSET(*r, UPQ_JREGION_SLOT) && r->slot < 0) ||
            (uint64_t)r->cap > INT64_MAX - pos)
            return 0;
        j->off = pos;
        j->cap = (uint64_t)r->cap;
        j->slot = slot;
        j->fill = 0;
        j->crc = 0;
        j->nprow = 0;
        w->cols[i].npages = 0;
        w->cols[i].rows = 0;
        w->cols[i].dict_n = 0;
        pos += j->cap;
    }
    f->rg_jcap = (uint64_t)rs->jcap;
    jr->jstart = f->walk;
    jr->jcap = (uint64_t)rs->jcap;
    jr->regions_end = pos;
    jr->rg_limit = (uint64_t)rs->rows;
    return 1;
}

static upq_status on_rg_start(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    if (!rg_layout(w))
        return chain_end(w);
    f->rg_j = f->walk;
    f->rg_seq = f->seq; /* its RG_START's: where the chain goes on if it is dropped */
    w->jr->blob = w->jr->regions_end;
    f->rg_rows = 0;
    f->last = 0;
    f->in_rg = 1;
    f->closed = 0;
    take_record(w);
    return UPQ_OK;
}

/* The page-rows lists of the decoded record f->ck into the columns' tallies
 * (repeated columns with v1 pages: the rows are theirs). 0 when a list is
 * longer than the writer keeps or lists fewer than 0 rows. */
static int lists_add(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    uint32_t i, k;
    for (i = 0; i < w->ncols; i++) {
        const upq_jcol *j = &f->ck.cols.v[i];
        upq_wcol *c = &w->cols[i];
        if (!rows_listed(w, c) || !UPQ_ISSET(*j, UPQ_JCOL_PAGE_ROWS))
            continue;
        if (j->page_rows.n > UPQ_WF_K_ROWS + 1u)
            return 0;
        for (k = 0; k < j->page_rows.n; k++) {
            if (j->page_rows.v[k] < 0)
                return 0;
            c->rows += (uint64_t)j->page_rows.v[k];
        }
        w->jr->cols[i].nprow += j->page_rows.n;
    }
    return 1;
}

static upq_status on_rows(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    if (!f->in_rg || f->ck.rg != (int32_t)w->num_rg || f->ck.cols.n != w->ncols || !lists_add(w))
        return chain_end(w);
    take_record(w);
    return UPQ_OK;
}

/* A column of the checkpoint f->ck against the state before it: what it
 * says is copied to jr->jc[i], the targets its pages must meet. */
static int col_target(upq_writer *w, uint32_t i, int end)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_jcol *j = &f->ck.cols.v[i];
    const upq_wcol *c = &w->cols[i];
    const upq_wjcol *wj = &w->jr->cols[i];
    upq_jcol *t = &w->jr->jc[i];
    int64_t dict_n = UPQ_ISSET(*j, UPQ_JCOL_DICT_N) ? j->dict_n : 0;
    int64_t dict_len = UPQ_ISSET(*j, UPQ_JCOL_DICT_LEN) ? j->dict_len : 0;
    if (!UPQ_ISSET(*j, UPQ_JCOL_FILL) || !UPQ_ISSET(*j, UPQ_JCOL_PAGES) || j->fill < (int64_t)wj->fill ||
        (uint64_t)j->fill > region_data(wj) || j->pages < 0 || (uint32_t)j->pages < c->npages ||
        dict_n < (int64_t)c->dict_n || (f->regcrc && !UPQ_ISSET(*j, UPQ_JCOL_CRC)))
        return 0;
    if ((c->def_hist && (!UPQ_ISSET(*j, UPQ_JCOL_DEF_HIST) || j->def_hist.n != (uint32_t)c->max_def + 1u)) ||
        (c->rep_hist && (!UPQ_ISSET(*j, UPQ_JCOL_REP_HIST) || j->rep_hist.n != (uint32_t)c->max_rep + 1u)))
        return 0;
    if (UPQ_ISSET(*j, UPQ_JCOL_DICT) && (j->dict.off < 0 || j->dict.len <= 0))
        return 0;
    if (end) {
        /* the dictionary page is whole at the row group's end: in its
         * slot, with a page when there are entries (and an empty one for
         * a dictionary column whose row group holds no value: only nulls
         * or empty lists) */
        if (dict_len < 0 || dict_len > (int64_t)wj->slot || (dict_n > 0 && dict_len == 0))
            return 0;
    } else if (dict_len || UPQ_ISSET(*j, UPQ_JCOL_BLOOM)) {
        return 0;
    }
    upq_memcpy(t, j, sizeof *t);
    /* its lists stay in the scratch the pages are read with: not needed */
    upq_memset(&t->def_hist, 0, sizeof t->def_hist);
    upq_memset(&t->rep_hist, 0, sizeof t->rep_hist);
    upq_memset(&t->page_rows, 0, sizeof t->page_rows);
    t->dict_n = (int32_t)dict_n;
    t->dict_len = (int32_t)dict_len;
    return 1;
}

static upq_status on_ckpt(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_jckpt *ck = &f->ck;
    uint64_t after = f->walk + f->jh.len;
    int end = f->jh.type == UPQ_J_RG_END;
    uint32_t i;
    if (!f->in_rg || ck->rg != (int32_t)w->num_rg || ck->cols.n != w->ncols || ck->rows <= 0 ||
        (uint64_t)ck->rows < f->rg_rows || after > f->rg_j + f->rg_jcap ||
        (end && (!UPQ_ISSET(*ck, UPQ_JCKPT_NEXT) || ck->next < (int64_t)after)) ||
        (UPQ_ISSET(*ck, UPQ_JCKPT_BLOBS) && ck->blobs < 0) || !lists_add(w))
        return chain_end(w);
    /* f->ck's counts (not its lists) stay while the pages are read: the
     * targets of each column are copied out */
    for (i = 0; i < w->ncols; i++)
        if (!col_target(w, i, end))
            return chain_end(w);
    f->vcol = 0;
    f->vstage = 0;
    f->bleft = 0;
    f->rstage = RP_BLOBS;
    return UPQ_OK;
}

/* The blobs of a record end where its `blobs` says (none: at the regions' end). */
static int blobs_end_right(const upq_writer *w)
{
    const upq_wfinish *f = UPQ_WF(w);
    if (!UPQ_ISSET(f->ck, UPQ_JCKPT_BLOBS))
        return w->jr->blob == w->jr->regions_end;
    return (uint64_t)f->ck.blobs == w->jr->blob;
}

static upq_status on_close(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_jclose *cl = &f->cl;
    if (f->in_rg || cl->tail < (int64_t)(f->walk + f->jh.len) || cl->size < cl->tail ||
        cl->rows != (int64_t)w->rows_done || cl->row_groups != (int32_t)w->num_rg)
        return chain_end(w);
    f->closed = 1;
    f->close_at = f->walk;
    f->close_size = (uint64_t)cl->size; /* f->cl is overwritten by the next record read */
    f->close_seq = f->seq;
    f->close_tail = (uint64_t)cl->tail;
    f->close_crc = (uint32_t)cl->crc;
    f->seq++;
    f->walk = (uint64_t)cl->tail;
    return UPQ_OK;
}

static upq_status on_resume(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    /* a session took the file up here, with the rows the chain had */
    if (f->rsm.rows != (int64_t)(w->rows_done + (f->in_rg ? f->rg_rows : 0u)))
        return chain_end(w);
    f->closed = 0;
    take_record(w);
    return UPQ_OK;
}

/* RG_SUM: the row group's totals, before its RG_END (the finisher takes
 * them when it describes the row group; a cut row group's is left). */
static upq_status on_sum(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    if (!f->in_rg || w->jr->version < 3)
        return chain_end(w);
    take_record(w);
    return UPQ_OK;
}

/* The record at off, into *h: UPQ_OK when it is whole, UPQ_AGAIN or
 * UPQ_ERR_IO to pass on, UPQ_DONE when it is not whole (what that means is
 * the caller's: the walk's end, or damage). */
static upq_status record_at(upq_writer *w, uint64_t off, upq_jhdr *h)
{
    upq_status st = upq_wf_record(w, off, h, UPQ_WF_REC_AHEAD);
    return st == UPQ_OK || st == UPQ_AGAIN || st == UPQ_ERR_IO ? st : UPQ_DONE;
}

/* RP_WALK: the record at f->walk. */
static upq_status st_walk(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_jhdr h;
    upq_status st = record_at(w, f->walk, &h);
    if (st == UPQ_DONE || (st == UPQ_OK && (h.seq != f->seq || h.session < f->session)))
        return chain_end(w);
    if (st != UPQ_OK)
        return st;
    /* a resume or a recovery writes with a session of its own */
    f->session = h.session;
    switch (h.type) {
    case UPQ_J_RG_START: return on_rg_start(w);
    case UPQ_J_ROWS: return on_rows(w);
    case UPQ_J_CKPT:
    case UPQ_J_RG_END: return on_ckpt(w);
    case UPQ_J_CLOSE: return on_close(w);
    case UPQ_J_RESUME: return on_resume(w);
    case UPQ_J_RG_SUM: return on_sum(w);
    default: return chain_end(w);
    }
}

/* ---- the walk: what a checkpoint covers -------------------------------------------- */

/* RP_BLOBS: the dictionary blobs of the checkpoint in jr->jc, in column
 * order where the blobs before them end: their CRCs, and the entries each
 * adds (an encrypted column's blob is a module, authenticated when it is
 * read for the dictionary). A CKPT stores every entry it adds; an RG_END
 * only those of a checkpoint it stands in for (the journal area was full),
 * the rest being in the dictionary page. */
static upq_status st_blobs(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        const upq_jcol *t = &w->jr->jc[f->vcol];
        const upq_wcol *c = &w->cols[f->vcol];
        uint32_t grow = (uint32_t)t->dict_n - c->dict_n;
        upq_status st;
        if (f->vstage == 0) {
            if (!UPQ_ISSET(*t, UPQ_JCOL_DICT)) {
                if (grow && f->jh.type == UPQ_J_CKPT)
                    return chain_end(w); /* entries added, none stored */
                f->vcol++;
                continue;
            }
            if ((uint64_t)t->dict.off != w->jr->blob || !grow)
                return chain_end(w);
            f->bpos = (uint64_t)t->dict.off;
            f->bleft = (uint64_t)t->dict.len;
            f->bcrc = 0;
            f->ents = f->eskip = 0;
            f->ehave = 0;
            f->vstage = 1;
        }
        st = blob_read(w, UPQ_W_KEY(c) ? (const upq_wcol *)0 : c);
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_OK)
            return chain_end(w);
        if (f->bcrc != (uint32_t)t->dict.crc ||
            (!UPQ_W_KEY(c) && (!upq_wr_entries_whole(w) || f->ents != grow)))
            return chain_end(w); /* this checkpoint's dictionary did not survive */
        w->jr->blob += (uint64_t)t->dict.len;
        f->vstage = 0;
        f->vcol++;
    }
    if (f->jh.type == UPQ_J_CKPT && !blobs_end_right(w))
        return chain_end(w); /* an RG_END's blobs end after its bloom filters */
    f->vcol = 0;
    f->rstage = RP_PAGES;
    return UPQ_OK;
}

/* Column f->vcol's pages reached the record's fill: do they make what the
 * record says? (At RG_END the CRC goes on over the dictionary page.) */
static int col_met(const upq_writer *w)
{
    const upq_wfinish *f = UPQ_WF(w);
    const upq_wcol *c = &w->cols[f->vcol];
    const upq_jcol *t = &w->jr->jc[f->vcol];
    int crc_now = f->regcrc && !(f->jh.type == UPQ_J_RG_END && t->dict_len);
    if ((crc_now && w->jr->cols[f->vcol].crc != (uint32_t)t->crc) || c->npages != (uint32_t)t->pages ||
        c->rows != (uint64_t)f->ck.rows)
        return 0;
    return !rows_listed(w, c) || w->jr->cols[f->vcol].nprow == c->npages;
}

/* Starts column f->vcol's next page at `pos` (its header decoded and taken
 * as the finisher takes it): UPQ_OK, UPQ_AGAIN, an I/O error, or
 * UPQ_ERR_CORRUPT when it is not a page the record can cover. */
static upq_status page_begin(upq_writer *w, uint64_t pos, uint64_t end)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_page_header *ph = f->ph;
    upq_status st = upq_wf_page_header(w, pos, end, f->vcol, (int32_t)w->cols[f->vcol].npages);
    if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
        return st;
    if (st != UPQ_OK || upq_wf_page_facts(w, f->vcol, end, 0) != UPQ_OK)
        return UPQ_ERR_CORRUPT;
    f->bpos = pos;
    f->bleft = f->pg.total;
    f->bcrc = 0;
    f->has_crc = (uint8_t)UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC);
    f->want_crc = f->has_crc ? (uint32_t)ph->crc : 0u;
    return UPQ_OK;
}

/* The rest of the page at f->pg ([f->bpos, f->bpos + f->bleft)): its
 * header's bytes into column f->vcol's running CRC, its body's into the
 * body's CRC (f->bcrc), which then goes into the running CRC too. UPQ_OK
 * when the page is read, with f->bcrc the body's CRC. */
static upq_status page_bytes(upq_writer *w, uint64_t lim)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjcol *j = &w->jr->cols[f->vcol];
    uint64_t body = f->pg.off + f->pg.hl;
    while (f->bleft) {
        /* what the window holds of the page first (its header was just
         * decoded there), then a window from there on up to lim, where
         * the next pages' headers are found */
        uint64_t in = f->bpos - f->boff; /* past the window when bpos is before it */
        uint32_t n = in < f->have ? f->have - (uint32_t)in : 0u, hn;
        const uint8_t *p;
        if (!n) {
            upq_status st;
            n = lim - f->bpos < f->cap ? (uint32_t)(lim - f->bpos) : f->cap;
            st = upq_wf_rd(w, f->bpos, n);
            if (st != UPQ_OK)
                return st;
        }
        if (n > f->bleft)
            n = (uint32_t)f->bleft;
        p = upq_wf_at(w, f->bpos);
        hn = f->bpos < body ? (body - f->bpos < n ? (uint32_t)(body - f->bpos) : n) : 0u;
        if (f->regcrc && hn)
            j->crc = upq_crc32_update(j->crc, p, hn);
        f->bcrc = upq_crc32_update(f->bcrc, p + hn, n - hn);
        f->bpos += n;
        f->bleft -= n;
    }
    if (f->regcrc) {
        uint8_t b[4];
        upq_store_le32(b, f->bcrc);
        j->crc = upq_crc32_update(j->crc, b, 4);
    }
    return UPQ_OK;
}

/* Column f->vcol's pages from what was verified to the record's fill.
 * UPQ_DONE when they meet the record, UPQ_ERR_CORRUPT when not, UPQ_AGAIN,
 * or an I/O error. */
static upq_status col_pages(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjcol *j = &w->jr->cols[f->vcol];
    upq_wcol *c = &w->cols[f->vcol];
    uint64_t data = j->off + j->slot, end = data + (uint64_t)w->jr->jc[f->vcol].fill;
    upq_status st;
    for (;;) {
        if (f->vstage == 0) {
            if (data + j->fill == end)
                return col_met(w) ? UPQ_DONE : UPQ_ERR_CORRUPT;
            /* the record's pages of the column lie together up to its
             * fill: read a window of them at a time, each header found in
             * it and its body read from it (not a read for each) */
            f->ra = 1;
            st = page_begin(w, data + j->fill, end);
            if (st != UPQ_OK)
                return st;
            f->vstage = 1;
        }
        st = page_bytes(w, end); /* the record's next pages of the column follow */
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_OK || (f->has_crc && f->bcrc != f->want_crc))
            return UPQ_ERR_CORRUPT;
        j->fill += f->pg.total;
        c->npages++;
        if (f->pg.rows > 0)
            c->rows += (uint64_t)f->pg.rows;
        f->vstage = 0;
    }
}

/* The record at f->walk, whose blobs and pages verified, is taken. */
static upq_status accept(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    uint32_t i;
    for (i = 0; i < w->ncols; i++)
        w->cols[i].dict_n = (uint32_t)w->jr->jc[i].dict_n;
    f->last = f->walk;
    f->rg_rows = (uint64_t)f->ck.rows;
    take_record(w);
    if (f->jh.type == UPQ_J_RG_END)
        rg_complete(w, (uint64_t)f->ck.next);
    f->rstage = RP_WALK;
    return UPQ_OK;
}

/* RP_PAGES: every column's pages up to the record's fills. */
static upq_status st_pages(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        upq_status st = col_pages(w);
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_DONE)
            return pages_bad(w);
        f->vcol++;
        f->vstage = 0;
    }
    if (f->jh.type != UPQ_J_RG_END)
        return accept(w);
    f->vcol = 0;
    f->rstage = RP_DICTPG;
    return UPQ_OK;
}

/* The dictionary page of column f->vcol at the row group's end: a
 * DICTIONARY page of the record's length and entries, whose header and body
 * carry the region's CRC on to the record's (a file without it: whose body
 * gives the page's CRC). vstage 0: the header, 1: its bytes and the body's. */
static upq_status dict_page(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_jcol *t = &w->jr->jc[f->vcol];
    const upq_wjcol *j = &w->jr->cols[f->vcol];
    const upq_page_header *ph = f->ph;
    uint64_t data = j->off + j->slot, at = data - (uint32_t)t->dict_len;
    upq_status st;
    if (f->vstage == 0) {
        st = upq_wf_page_header(w, at, data, f->vcol, -1);
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_OK || ph->type != UPQ_PAGE_DICTIONARY ||
            !UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER) || ph->compressed_page_size < 0 ||
            ph->uncompressed_page_size < 0 || ph->dictionary_page_header.num_values != t->dict_n ||
            (uint64_t)f->pg.hl + (uint64_t)ph->compressed_page_size != (uint64_t)t->dict_len)
            return UPQ_ERR_CORRUPT;
        f->has_crc = (uint8_t)UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC);
        f->want_crc = f->has_crc ? (uint32_t)ph->crc : 0u;
        f->bpos = at;
        f->bleft = (uint64_t)t->dict_len;
        f->bcrc = 0;
        f->vstage = 1;
    }
    st = page_bytes(w, data);
    if (st != UPQ_OK)
        return st;
    if ((f->has_crc && f->bcrc != f->want_crc) || (f->regcrc && j->crc != (uint32_t)t->crc))
        return UPQ_ERR_CORRUPT;
    return UPQ_DONE;
}

/* RP_DICTPG: every column's dictionary page at the row group's end. */
static upq_status st_dictpg(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        upq_status st = w->jr->jc[f->vcol].dict_len ? dict_page(w) : UPQ_DONE;
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_DONE)
            return pages_bad(w); /* the row group's end did not survive whole */
        f->vcol++;
        f->vstage = 0;
    }
    f->vcol = 0;
    f->rstage = RP_BLOOM;
    return UPQ_OK;
}

/* RP_BLOOM: RG_END's bloom filters (header and bitset, one blob each with
 * its CRC), where the blobs before them end; the next row group's area
 * begins where they end. */
static upq_status st_bloom(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        const upq_jcol *t = &w->jr->jc[f->vcol];
        const upq_wcol *c = &w->cols[f->vcol];
        upq_status st;
        if (f->vstage == 0) {
            if (!UPQ_ISSET(*t, UPQ_JCOL_BLOOM)) {
                f->vcol++;
                continue;
            }
            if (!UPQ_ISSET(*t, UPQ_JCOL_BLOOM_HDR) || t->bloom_hdr <= 0 ||
                t->bloom.len <= t->bloom_hdr + (UPQ_W_KEY(c) ? (int32_t)UPQ_W_CRYPTO_OVER : 0) ||
                (uint64_t)t->bloom.off != w->jr->blob)
                return pages_bad(w);
            f->bpos = (uint64_t)t->bloom.off;
            f->bleft = (uint64_t)t->bloom.len;
            f->bcrc = 0;
            f->vstage = 1;
        }
        st = blob_read(w, (const upq_wcol *)0);
        if (st == UPQ_AGAIN || st == UPQ_ERR_IO)
            return st;
        if (st != UPQ_OK)
            return pages_bad(w);
        if (f->bcrc != (uint32_t)t->bloom.crc)
            return pages_bad(w);
        w->jr->blob += (uint64_t)t->bloom.len;
        f->vstage = 0;
        f->vcol++;
    }
    if (!blobs_end_right(w) || (uint64_t)f->ck.next != w->jr->blob)
        return chain_end(w);
    return accept(w);
}

/* ---- the end of the walk ------------------------------------------------------------ */

/* RP_CLOSE_CRC: a closed file is taken as it is only when the page indexes
 * and footer close wrote are intact. */
static upq_status st_close_crc(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->bpos < f->close_size) {
        uint32_t n = f->close_size - f->bpos < f->cap ? (uint32_t)(f->close_size - f->bpos) : f->cap;
        upq_status st = upq_wf_rd(w, f->bpos, n);
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
    return UPQ_OK;
}

/* A row group with no checkpoint taken is dropped: the next record goes
 * where its RG_START was. */
static void rg_drop(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->in_rg = 0;
    w->jr->next = f->rg_j;
    f->seq = f->rg_seq;
}

/* RP_END_WALK: the chain ended; what of the file is kept. */
static upq_status st_end_walk(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    uint32_t i;
    if (f->closed && !f->in_rg && !f->resume && !f->crc_on && f->close_size == jr->hwm) {
        f->bpos = f->close_tail;
        f->bcrc = 0;
        f->rstage = RP_CLOSE_CRC;
        return UPQ_OK;
    }
    f->crc_on = 0;
    /* the fields the walk borrowed, as a writer starts them (the chosen
     * checkpoint sets the others) */
    for (i = 0; i < w->ncols; i++) {
        w->cols[i].rows = 0;
        jr->cols[i].nprow = 0;
    }
    /* what is written next (dictionary pages, records, page indexes,
     * footer) has a session of its own, whose nonces differ from every
     * earlier session's */
    w->session = (uint16_t)(f->session + 1u);
    if (f->session == UINT16_MAX && !f->dry && (f->resume || f->in_rg || !f->closed))
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "the file was resumed 65535 times: start a new one");
    f->cand = 0;
    if (f->in_rg && f->last) {
        f->cand = f->last;
        f->rstage = RP_TAIL;
        return UPQ_OK;
    }
    if (f->in_rg) {
        rg_drop(w);
    } else if (f->closed) {
        /* what is written next (RESUME, or CLOSE again) goes in the CLOSE
         * record's place, and in the chain in its turn */
        f->seq = f->close_seq;
        jr->next = f->close_at;
    }
    f->rstage = f->resume ? RP_RESUME : RP_DONE;
    return UPQ_OK;
}

/* ---- the cut row group -------------------------------------------------------------- */

/* Takes the fills and counts of the decoded checkpoint f->ck (verified in
 * the walk) into the columns: the state recovery ends and resume continues. */
static void take_ckpt(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    const upq_jckpt *ck = &f->ck;
    uint32_t i;
    for (i = 0; i < w->ncols; i++) {
        const upq_jcol *j = &ck->cols.v[i];
        upq_wcol *c = &w->cols[i];
        upq_wjcol *wj = &jr->cols[i];
        wj->fill = (uint64_t)j->fill;
        wj->crc = (uint32_t)j->crc;
        c->npages = (uint32_t)j->pages;
        c->ba_bytes = UPQ_ISSET(*j, UPQ_JCOL_BA) ? j->ba : 0;
        if (c->def_hist)
            upq_memcpy(c->def_hist, j->def_hist.v, (size_t)j->def_hist.n * sizeof(int64_t));
        if (c->rep_hist)
            upq_memcpy(c->rep_hist, j->rep_hist.v, (size_t)j->rep_hist.n * sizeof(int64_t));
        c->dict_n = UPQ_ISSET(*j, UPQ_JCOL_DICT_N) && j->dict_n > 0 ? (uint32_t)j->dict_n : 0u;
        c->dict_hdr = 0;
    }
    f->rg_rows = (uint64_t)ck->rows;
    jr->blob = UPQ_ISSET(*ck, UPQ_JCKPT_BLOBS) ? (uint64_t)ck->blobs : jr->regions_end;
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

/* RP_TAIL: the chosen checkpoint, read again: its state, and where the next
 * record goes. */
static upq_status st_tail(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_jhdr h;
    upq_status st = record_at(w, f->cand, &h);
    if (st == UPQ_DONE || (st == UPQ_OK && (h.type != UPQ_J_CKPT || f->ck.cols.n != w->ncols)))
        return upq_wf_corrupt(w, f->cand, "checkpoint record changed");
    if (st != UPQ_OK)
        return st;
    take_ckpt(w);
    f->cand_next = f->cand + h.len;
    f->seq = h.seq + 1u;
    f->vcol = 0;
    f->vstage = 0;
    f->cut = 0;
    /* resume == 2: taken up already, and it did not fit */
    f->rstage = f->resume == 1 && can_continue(w) ? RP_RESTORE : RP_DICT_CHECK;
    return UPQ_OK;
}

/* RP_DICT_CHECK: every dictionary of the cut row group can be rebuilt. */
static upq_status st_dict_check(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        if (w->cols[f->vcol].dict_n) {
            upq_status st = upq_wr_dict_check(w);
            if (st != UPQ_DONE)
                return st;
        }
        f->vcol++;
        f->vstage = 0;
    }
    f->vcol = 0;
    f->vstage = 0;
    if (f->dry) {
        /* a dry run stops here: the rows it would keep are known */
        w->rows_done += f->rg_rows;
        w->num_rg++;
        f->rstage = RP_DONE;
        return UPQ_OK;
    }
    f->rstage = RP_DICT;
    return UPQ_OK;
}

/* RP_DICT: the cut row group's dictionary pages. */
static upq_status st_dict(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    while (f->vcol < w->ncols) {
        upq_wcol *c = &w->cols[f->vcol];
        if (c->dict_n) {
            upq_status st = upq_wr_dict_rebuild(w);
            if (st != UPQ_DONE)
                return st;
        } else {
            c->dict_hdr = 0;
        }
        f->vcol++;
        f->vstage = 0;
    }
    /* the journal area from where RG_END goes */
    w->jr->jpos = f->cand_next;
    upq_wj_gaps_start(w);
    f->rstage = w->sink.seal ? RP_RGEND : RP_GAPS;
    return UPQ_OK;
}

/* RP_GAPS: what the cut left in the row group's gaps (pages and records
 * after the checkpoint, bytes never written) becomes zeros, durable before
 * RG_END. */
static upq_status st_gaps(upq_writer *w)
{
    upq_status st = upq_wj_gaps_next(w);
    if (st == UPQ_DONE)
        UPQ_WF(w)->rstage = RP_GAPS_SYNC;
    return st == UPQ_DONE ? UPQ_OK : st;
}

static upq_status st_gaps_sync(upq_writer *w)
{
    upq_status st = upq_w_sync(w);
    if (st == UPQ_OK)
        UPQ_WF(w)->rstage = RP_RGEND;
    return st;
}

/* RP_RGEND: RG_END after the chosen checkpoint (over whatever the cut left
 * there). */
static upq_status st_rgend(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    upq_jckpt *ck = &jr->ck;
    uint32_t i;
    upq_memset(ck, 0, sizeof *ck);
    ck->isset = (1u << UPQ_JCKPT_RG) | (1u << UPQ_JCKPT_ROWS) | (1u << UPQ_JCKPT_COLS) | (1u << UPQ_JCKPT_NEXT);
    ck->rg = (int32_t)w->num_rg;
    ck->rows = (int64_t)f->rg_rows;
    ck->cols.v = jr->jc;
    ck->cols.n = w->ncols;
    ck->next = (int64_t)jr->blob;
    /* the row group is complete: an append-only sink copies it into place
     * at RG_END's sync, as when a row group ends while writing, so that the
     * finisher reads it there and not frame by frame from its journal */
    w->seal_to = jr->blob;
    if (jr->blob != jr->regions_end) {
        ck->blobs = (int64_t)jr->blob;
        UPQ_SET(*ck, UPQ_JCKPT_BLOBS);
    }
    for (i = 0; i < w->ncols; i++) {
        const upq_wcol *c = &w->cols[i];
        upq_jcol *j = &jr->jc[i];
        upq_memset(j, 0, sizeof *j);
        upq_wj_col_counts(j, c, (int64_t)jr->cols[i].fill, (int32_t)c->npages, c->ba_bytes);
        j->crc = (int32_t)jr->cols[i].crc; /* the rebuilt dictionary page's bytes included */
        UPQ_SET(*j, UPQ_JCOL_CRC);
        if (c->dict_n) {
            j->dict_n = (int32_t)c->dict_n;
            j->dict_len = c->dict_hdr;
            j->isset |= (1u << UPQ_JCOL_DICT_N) | (1u << UPQ_JCOL_DICT_LEN);
        }
    }
    jr->seq = f->seq;
    w->session = (uint16_t)(f->session + 1u);
    upq_wj_rec_begin(w, UPQ_J_RG_END, &upq_journal_descs[UPQ_JDESC_CKPT], ck, f->cand_next);
    f->seq++;
    f->rstage = RP_RGEND_SYNC;
    w->src_len = w->src_pos = 0;
    return UPQ_OK;
}

static upq_status st_rgend_sync(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_status st = upq_w_sync(w);
    if (st != UPQ_OK)
        return st;
    rg_complete(w, w->jr->blob);
    f->rstage = f->resume ? RP_RESUME : RP_DONE;
    return UPQ_OK;
}

/* RP_RESTORE: resume takes the cut row group up again from the checkpoint:
 * its dictionaries back in RAM, or, when one does not fit this writer, the
 * recovery path (the row group ends, the next begins). */
static upq_status st_restore(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    uint32_t i;
    while (f->vcol < w->ncols && !f->cut) {
        upq_wcol *c = &w->cols[f->vcol];
        if (c->use_dict && c->dict_n) {
            upq_status st;
            f->dict_n = c->dict_n;
            st = upq_wr_dict_restore(w);
            if (st != UPQ_DONE)
                return st;
        }
        f->vcol++;
        f->vstage = 0;
    }
    if (f->cut) {
        f->rstage = RP_TAIL; /* read again (the counts the restore changed), then ended */
        f->resume = 2;
        return UPQ_OK;
    }
    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        jr->cols[i].dict_dur = c->dict_n;
        c->dict_on = c->use_dict && c->dict_n < c->dict_max;
        c->dict_pages = c->dict_n ? 1u : 0u;
        c->rows = c->crows = c->frows = f->rg_rows;
    }
    w->rs = f->rg_rows;
    jr->open = 1;
    jr->sum_ok = 0; /* the totals of the pages before the checkpoint are not kept */
    jr->jpos = f->cand_next;
    /* a region without room for one more of this writer's pages ends the
     * row group first (or a dictionary slot sized for fewer rows) */
    for (i = 0; i < w->ncols; i++)
        if (region_data(&jr->cols[i]) - jr->cols[i].fill < w->cols[i].worst ||
            jr->cols[i].slot < upq_wj_dict_slot(w, &w->cols[i]))
            w->rg_due = 1;
    f->in_rg = 1;
    f->rstage = RP_RESUME;
    return UPQ_OK;
}

/* An append-only sink (it has seal): what follows `at` (a closed file's
 * page indexes and footer) would be written over in place; it goes first.
 * A call of its own, off replay's deepest path. */
static UPQ_NOINLINE upq_status cut_for_append(upq_writer *w, uint64_t at)
{
    upq_status st;
    if (!w->sink.seal || !w->sink.truncate)
        return UPQ_OK;
    st = w->sink.truncate(w->sink.ctx, at);
    if (st == UPQ_OK || st == UPQ_AGAIN)
        return st;
    return upq_w_fail(w, UPQ_ERR_IO, -1, "truncate failed");
}

/* RP_RESUME: RESUME where the next record goes, synced before any page. */
static upq_status st_resume(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    uint64_t at = f->in_rg ? f->cand_next : jr->next;
    uint32_t i;
    upq_status st;
    if (!f->in_rg) {
        st = cut_for_append(w, at);
        if (st != UPQ_OK)
            return st;
    }
    if (!f->in_rg) {
        /* a new row group comes next: nothing of the records read stays in
         * the columns */
        upq_w_chunks_clear(w);
        for (i = 0; i < w->ncols; i++) {
            jr->cols[i].fill = 0;
            jr->cols[i].crc = 0;
            jr->cols[i].dict_dur = 0;
            jr->cols[i].nprow = 0;
        }
        jr->open = 0;
    }
    jr->seq = f->seq;
    w->session = (uint16_t)(f->session + 1u);
    upq_memset(&jr->rsm, 0, sizeof jr->rsm);
    jr->rsm.isset = 1u << UPQ_JRESUME_ROWS;
    jr->rsm.rows = (int64_t)(w->rows_done + w->rs);
    upq_wj_rec_begin(w, UPQ_J_RESUME, &upq_journal_descs[UPQ_JDESC_RESUME], &jr->rsm, at);
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

static upq_status st_resume_sync(upq_writer *w)
{
    upq_status st = upq_w_sync(w);
    if (st != UPQ_OK)
        return st;
    UPQ_WF(w)->rstage = RP_DONE;
    return UPQ_OK;
}

/* RP_DONE: records written from here on continue the chain. */
static upq_status st_done(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wjournal *jr = w->jr;
    if (jr->rec.stage == 0 && !f->resume) {
        jr->seq = f->seq;
        w->session = (uint16_t)(f->session + 1u);
    }
    return UPQ_DONE;
}

/*
 * The replay job: the next piece of output (UPQ_OK with a piece set, or
 * none when a stage only moved on), UPQ_DONE when the file's state is known
 * (and, for recovery, the cut row group ended; for resume, the RESUME record
 * synced), UPQ_AGAIN, or an error.
 */
upq_status upq_wr_next(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    for (;;) {
        upq_status st;
        switch (f->rstage) {
        case RP_WALK: st = st_walk(w); break;
        case RP_BLOBS: st = st_blobs(w); break;
        case RP_PAGES: st = st_pages(w); break;
        case RP_DICTPG: st = st_dictpg(w); break;
        case RP_BLOOM: st = st_bloom(w); break;
        case RP_END_WALK: st = st_end_walk(w); break;
        case RP_CLOSE_CRC: st = st_close_crc(w); break;
        case RP_TAIL: st = st_tail(w); break;
        case RP_DICT_CHECK: st = st_dict_check(w); break;
        case RP_DICT: st = st_dict(w); break;
        case RP_GAPS: st = st_gaps(w); break;
        case RP_GAPS_SYNC: st = st_gaps_sync(w); break;
        case RP_RGEND: st = st_rgend(w); break;
        case RP_RGEND_SYNC: st = st_rgend_sync(w); break;
        case RP_RESTORE: st = st_restore(w); break;
        case RP_RESUME: st = st_resume(w); break;
        case RP_RESUME_SYNC: st = st_resume_sync(w); break;
        default: return st_done(w);
        }
        if (st != UPQ_OK)
            return st;
        /* a piece to write (the dictionary pages, RG_END, RESUME) */
        if (w->src_pos < w->src_len || w->jr->rec.stage)
            return UPQ_OK;
    }
}

/* ---- starting a replay ------------------------------------------------------------ */

void upq_wr_start(upq_writer *w, uint64_t first_j, uint64_t file_id, uint16_t session, int resume,
                  uint64_t size)
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
    f->regcrc = (uint8_t)(jr->version >= 2);
    f->in_rg = f->closed = f->bad_pages = 0;
    w->rows_done = 0;
    w->num_rg = 0;
}

upq_status upq_wr_adopt_file(upq_writer *w, const upq_jfile *fj)
{
    upq_wjournal *jr = w->jr;
    if (fj->version < 1 || fj->version > UPQ_J_VERSION)
        return upq_wf_corrupt(w, 4, "a journal of a version this build does not read");
    jr->version = (uint8_t)fj->version;
    jr->has_nonce = (uint8_t)UPQ_ISSET(*fj, UPQ_JFILE_NONCE);
    jr->nseed = 0;
    if (jr->has_nonce) {
        if (fj->nonce.len != UPQ_J_NONCE || fj->version < 2)
            return upq_wf_corrupt(w, 4, "FILE record damaged");
        upq_memcpy(jr->nonce, fj->nonce.ptr, UPQ_J_NONCE);
        jr->nseed = upq_crc32(jr->nonce, UPQ_J_NONCE);
    } else if (fj->version >= 2) {
        return upq_wf_corrupt(w, 4, "FILE record damaged");
    }
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
upq_status upq_wr_adopt_keys(upq_writer *w)
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

#endif /* UPQ_WITH_WRITER */
