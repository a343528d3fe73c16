/*
 * Journal records as the writer writes them (layout in journal.h): a record
 * as output pieces at a file offset (its header, the payload's Thrift, its
 * CRC; a GCM module in an encrypted file), and the figures every record of
 * a row group states the same way whoever writes it (the region layout,
 * the finisher, replay): a column's counts, a region's running CRC, the
 * room of a dictionary page. Nothing here decides when a record is due.
 */
#include "checkpoint.h"

#if UPQ_WITH_WRITER

/* ---- records ------------------------------------------------------------------ */

void upq_wj_src(upq_writer *w, const uint8_t *p, size_t n, uint64_t off)
{
    w->src = p;
    w->src_len = n;
    w->src_pos = 0;
    w->dst = off;
    w->file_pos = off;
}

upq_status upq_wj_rec_size(upq_writer *w, const upq_tstruct *desc, const void *obj, uint32_t *len)
{
    size_t n = 0;
    if (upq_thrift_encode(desc, obj, (uint8_t *)0, 0, &n) != UPQ_OK || n > UPQ_J_MAX_RECORD)
        return upq_w_fail(w, UPQ_ERR_STATE, -1, "journal record cannot be encoded");
    /* an encrypted file's records are GCM modules under the footer key */
    *len = (uint32_t)n + UPQ_J_MIN + (UPQ_W_ENCRYPTING(w) ? (uint32_t)UPQ_W_CRYPTO_OVER : 0u);
    return UPQ_OK;
}

void upq_wj_rec_begin(upq_writer *w, uint8_t type, const upq_tstruct *desc, const void *obj,
                      uint64_t pos)
{
    upq_wrec *r = &w->jr->rec;
    r->desc = desc;
    r->obj = obj;
    r->pos = pos;
    r->type = type;
    r->stage = 1;
}

upq_status upq_wj_rec_piece(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_wrec *r = &jr->rec;
    upq_wmodels *m = UPQ_W_MODELS(w);
    int sealed = UPQ_W_ENCRYPTING(w);
    upq_jhdr h;
    size_t got = 0;
    upq_status st;
    switch (r->stage) {
    case 1:
        st = upq_wj_rec_size(w, r->desc, r->obj, &r->len);
        if (st != UPQ_OK)
            return st;
        h.len = r->len;
        h.type = r->type;
        h.flags = (uint8_t)(sealed ? UPQ_J_SEALED : 0u);
        h.session = w->session;
        h.seq = jr->seq++;
        h.file_id = jr->file_id;
        upq_j_hdr_put(r->hdr, &h);
        r->crc = upq_crc32_update(jr->nseed, r->hdr, UPQ_J_HDR);
        upq_wj_src(w, r->hdr, UPQ_J_HDR, r->pos);
        r->pos += UPQ_J_HDR;
        upq_tenc_init(&m->tenc, r->desc, r->obj);
        r->stage = sealed ? 5 : 2;
        return UPQ_OK;
#if UPQ_WITH_CRYPTO
    case 5:
        /* the module's length and nonce */
        st = upq_wc_stream_begin(w, &w->wc->footer, UPQ_MODULE_JOURNAL, -1,
                                 r->len - UPQ_J_MIN - (uint32_t)UPQ_W_CRYPTO_OVER, UPQ_WS_ENCRYPT);
        if (st != UPQ_OK)
            return st;
        r->crc = upq_crc32_update(r->crc, w->wc->head, 16);
        upq_wj_src(w, w->wc->head, 16, r->pos);
        r->pos += 16;
        r->stage = 2;
        return UPQ_OK;
    case 6:
        upq_wc_stream_tag(w, r->hdr);
        r->crc = upq_crc32_update(r->crc, r->hdr, 16);
        upq_wj_src(w, r->hdr, 16, r->pos);
        r->pos += 16;
        r->stage = 3;
        return UPQ_OK;
#endif
    case 2:
        st = upq_tenc_run(&m->tenc, w->win, sizeof w->win, &got);
        if (st != UPQ_OK && st != UPQ_AGAIN)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "journal record cannot be encoded");
        if (st == UPQ_OK)
            r->stage = sealed ? 6 : 3;
        if (sealed)
            upq_wc_stream_piece(w, w->win, got);
        r->crc = upq_crc32_update(r->crc, w->win, got);
        upq_wj_src(w, w->win, got, r->pos);
        r->pos += got;
        return UPQ_OK;
    case 3:
        upq_store_le32(r->hdr, r->crc);
        upq_wj_src(w, r->hdr, UPQ_J_CRC, r->pos);
        r->pos += UPQ_J_CRC;
        r->stage = 4;
        return UPQ_OK;
    default:
        r->stage = 0;
        return UPQ_DONE;
    }
}

/* ---- gaps ---------------------------------------------------------------------- */

/* Gap g of the open row group: 0 the journal area after jr->jpos, then per
 * column the slot before its dictionary page (c->dict_hdr bytes at the
 * slot's end, 0 before it is written) and the region after its fill. */
static void gap(const upq_writer *w, uint32_t g, uint64_t *lo, uint64_t *hi)
{
    const upq_wjournal *jr = w->jr;
    const upq_wjcol *j;
    if (g == 0) {
        *lo = jr->jpos;
        *hi = jr->cols[0].off;
        return;
    }
    j = &jr->cols[(g - 1u) / 2u]; /* formed only for a column's gap */
    if (g % 2u) {
        int32_t d = w->cols[(g - 1u) / 2u].dict_hdr;
        *lo = j->off;
        *hi = j->off + j->slot - (d > 0 && (uint32_t)d <= j->slot ? (uint32_t)d : 0u);
    } else {
        *lo = j->off + j->slot + j->fill;
        *hi = j->off + j->cap;
    }
}

void upq_wj_gaps_start(upq_writer *w)
{
    w->jr->jcol = 0;
    w->jr->ppos = 0;
}

upq_status upq_wj_gaps_next(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    /* the piece ends on a sector boundary, so a FAT driver takes whole sectors */
    size_t cap = w->pbuf_cap >= UPQ_WJ_SECTOR ? w->pbuf_cap / UPQ_WJ_SECTOR * UPQ_WJ_SECTOR : w->pbuf_cap;
    while (jr->jcol <= 2u * w->ncols) {
        uint64_t lo, hi;
        size_t n;
        gap(w, jr->jcol, &lo, &hi);
        if (jr->ppos < lo)
            jr->ppos = lo;
        if (jr->ppos >= hi) {
            jr->jcol++;
            continue;
        }
        n = cap >= UPQ_WJ_SECTOR ? cap - (size_t)(jr->ppos % UPQ_WJ_SECTOR) : cap;
        if (n > hi - jr->ppos)
            n = (size_t)(hi - jr->ppos);
        upq_memset(w->pbuf, 0, n);
        upq_wj_src(w, w->pbuf, n, jr->ppos);
        jr->ppos += n;
        return UPQ_OK;
    }
    return UPQ_DONE;
}

/* ---- figures the records state ------------------------------------------------- */

void upq_wj_col_counts(upq_jcol *j, const upq_wcol *c, int64_t fill, int32_t pages, int64_t ba)
{
    j->fill = fill;
    j->pages = pages;
    j->isset |= (1u << UPQ_JCOL_FILL) | (1u << UPQ_JCOL_PAGES);
    if (c->type == UPQ_TYPE_BYTE_ARRAY) {
        j->ba = ba;
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
}

uint32_t upq_wj_region_crc(uint32_t crc, const uint8_t *hdr, size_t hl, uint32_t body_crc)
{
    uint8_t b[4];
    upq_store_le32(b, body_crc);
    return upq_crc32_update(upq_crc32_update(crc, hdr, hl), b, 4);
}

/* Bytes the dictionary page of c takes when its entries take `plain`
 * bytes (at most its budget). */
uint32_t upq_wj_dict_slot_n(const upq_writer *w, const upq_wcol *c, size_t plain)
{
    size_t b, s;
    if (!c->use_dict)
        return 0;
    if (plain > c->dict_cap)
        plain = c->dict_cap;
    b = UPQ_W_COMPRESSING(w) ? upq_compress_bound(w->o.codec, plain) : plain;
    s = upq_stored_size(w->o.codec, plain); /* what recovery writes instead */
    if (s > b)
        b = s;
    b += w->hbuf_cap + (UPQ_W_KEY(c) ? 2u * UPQ_W_CRYPTO_OVER : 0u);
    return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

uint32_t upq_wj_dict_slot(const upq_writer *w, const upq_wcol *c)
{
    return upq_wj_dict_slot_n(w, c, c->dict_cap);
}

#endif /* UPQ_WITH_WRITER */
