/*
 * Dictionaries in a replay (see replay.h): the entries a cut row group's
 * checkpoints recorded, in blobs beside its regions, read back to be counted,
 * to rebuild the row group's dictionary page for recovery, or to be taken up
 * into the writer's dictionary for resume.
 */
#include "replay.h"
#include "crypto/crypto_int.h"

#if UPQ_WITH_WRITER

/* Dictionary rebuild stages (upq_wfinish.vstage during RP_DICT). */
enum { D_START = 0, D_COUNT, D_FRAME, D_BLOB, D_HEADER, D_NEXT };

static int is_ckpt(uint8_t type)
{
    return type == UPQ_J_CKPT || type == UPQ_J_RG_END;
}

/* ---- counting entries ------------------------------------------------------------ */

int upq_wr_count_entries(upq_writer *w, const upq_wcol *c, const uint8_t *p, size_t n)
{
    upq_wfinish *f = UPQ_WF(w);
    if (c->type != UPQ_TYPE_BYTE_ARRAY) {
        /* fixed width: vsize bytes an entry (eskip: bytes of an entry begun) */
        if (!c->vsize || n > UINT32_MAX - c->vsize)
            return 0;
        f->eskip += (uint32_t)n;
        f->ents += f->eskip / c->vsize;
        f->eskip %= c->vsize;
        return 1;
    }
    while (n) {
        if (f->ehave == 4) {
            size_t k = f->eskip < n ? (size_t)f->eskip : n;
            f->eskip -= (uint32_t)k;
            p += k;
            n -= k;
            if (!f->eskip)
                f->ehave = 0;
            continue;
        }
        /* a 4-byte little-endian length, then that many bytes */
        f->eskip |= (uint32_t)*p++ << (8u * f->ehave);
        n--;
        if (++f->ehave == 4) {
            if (++f->ents == 0)
                return 0;
            if (!f->eskip)
                f->ehave = 0;
        }
    }
    return 1;
}

int upq_wr_entries_whole(const upq_writer *w)
{
    const upq_wfinish *f = UPQ_WF(w);
    return f->ehave == 0; /* between entries */
}

/* ---- the cut row group's dictionary pages -------------------------------------- */

/* The next dictionary blob of column f->vcol in the row group's records
 * from f->u.rd.dict_rec (up to the chosen checkpoint): UPQ_OK with it in
 * f->bpos / f->bleft, UPQ_DONE when there is none left, UPQ_AGAIN. */
static upq_status next_dict_blob(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_jhdr h;
    upq_status st;
    while (f->u.rd.dict_rec <= f->cand) {
        const upq_jcol *j;
        uint64_t at = f->u.rd.dict_rec;
        st = upq_wf_record(w, at, &h, UPQ_WF_REC_AHEAD);
        if (st != UPQ_OK)
            return st;
        f->u.rd.dict_rec += h.len;
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
        if (f->u.rd.plen) {
            *p = f->buf + f->u.rd.pp;
            *n = f->u.rd.plen < max ? f->u.rd.plen : (uint32_t)max;
            f->u.rd.pp += *n;
            f->u.rd.plen -= *n;
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
            f->u.rd.pp = (uint32_t)(q - f->buf);
            f->u.rd.plen = (uint32_t)k;
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

/* Stored bytes of the rebuilt dictionary page's body at f->u.rd.vpos, into its
 * CRC. */
static void dict_stored_out(upq_writer *w, const uint8_t *p, size_t n)
{
    upq_wfinish *f = UPQ_WF(w);
    f->bcrc = upq_crc32_update(f->bcrc, p, n);
    upq_wj_src(w, p, n, f->u.rd.vpos);
    f->u.rd.vpos += n;
}

/* A piece of the rebuilt dictionary page's body: encrypted (in place) when
 * the column is, then out. */
static void dict_out(upq_writer *w, uint8_t *p, size_t n)
{
#if UPQ_WITH_CRYPTO
    if (UPQ_W_KEY(&w->cols[UPQ_WF(w)->vcol]))
        upq_wc_stream_piece(w, p, n);
#endif
    dict_stored_out(w, p, n);
}

/* Starts reading column f->vcol's blobs from the row group's first record. */
static void blobs_begin(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    f->u.rd.dict_rec = f->rg_j;
    f->bleft = 0;
    f->u.rd.plen = 0;
    f->ents = f->eskip = 0;
    f->ehave = 0;
}

upq_status upq_wr_dict_check(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    const upq_wjcol *j = &w->jr->cols[f->vcol];
    const upq_wcol *c = &w->cols[f->vcol];
    size_t body;
    upq_status st;
    if (f->vstage == 0) {
        blobs_begin(w);
        f->u.rd.dict_total = 0;
        f->vstage = 1;
    }
    for (;;) {
        const uint8_t *p;
        uint32_t n;
        st = dict_piece(w, UINT64_MAX, &p, &n);
        if (st == UPQ_DONE)
            break;
        if (st != UPQ_OK)
            return st;
        f->u.rd.dict_total += n;
        if (!upq_wr_count_entries(w, c, p, n))
            return upq_wf_corrupt(w, j->off, "dictionary entries damaged");
    }
    if (!upq_wr_entries_whole(w) || f->ents != c->dict_n)
        return upq_wf_corrupt(w, j->off, "dictionary entries do not match their count");
    body = upq_stored_size(w->o.codec, (size_t)f->u.rd.dict_total);
    if (!body || f->u.rd.dict_total > INT32_MAX || dict_stored(w, c, body) + w->hbuf_cap > j->slot)
        return upq_wf_corrupt(w, j->off, "dictionary larger than its slot");
    return UPQ_DONE;
}

/*
 * Writes column f->vcol's dictionary page for the chosen checkpoint:
 * every entry its records listed, in the codec's stored form (in a module
 * under the column's key when it is encrypted), right-aligned in the slot;
 * the header after the body, once the CRC is known.
 */
upq_status upq_wr_dict_rebuild(upq_writer *w)
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
            f->u.rd.dict_total = 0;
            blobs_begin(w);
            f->vstage = D_COUNT;
            continue;
        case D_COUNT:
            st = next_dict_blob(w);
            if (st == UPQ_OK) {
                f->u.rd.dict_total += blob_plain(c, f->bleft);
                f->bleft = 0;
                continue;
            }
            if (st != UPQ_DONE)
                return st;
            body = upq_stored_size(w->o.codec, (size_t)f->u.rd.dict_total);
            if (!body || f->u.rd.dict_total > INT32_MAX || dict_stored(w, c, body) + w->hbuf_cap > j->slot)
                return upq_wf_corrupt(w, j->off, "dictionary larger than its slot");
            if (upq_stored_begin(&f->u.rd.sc, w->o.codec, (size_t)f->u.rd.dict_total) != UPQ_OK)
                return upq_w_fail(w, UPQ_ERR_UNSUPPORTED, (int32_t)f->vcol, "codec without a stored form");
            f->u.rd.dict_body = slot_end - dict_stored(w, c, body);
            f->u.rd.vpos = f->u.rd.dict_body;
            f->bcrc = 0;     /* CRC of the stored bytes */
            f->want_crc = 0; /* CRC of the plain bytes (gzip's trailer) */
            blobs_begin(w);
            f->u.rd.srun = 0;
            f->vstage = D_FRAME;
#if UPQ_WITH_CRYPTO
            if (UPQ_W_KEY(c)) {
                /* the body module's length and nonce */
                st = upq_wc_stream_begin(w, c->key, UPQ_MODULE_DICT_PAGE, (int32_t)f->vcol, (uint32_t)body,
                                         UPQ_WS_ENCRYPT);
                if (st != UPQ_OK)
                    return st;
                upq_memcpy(f->lit, w->wc->head, 16);
                dict_stored_out(w, f->lit, 16);
                return UPQ_OK;
            }
#endif
            continue;
        case D_FRAME:
            if (f->u.rd.srun) {
                f->vstage = D_BLOB;
                continue;
            }
            k = upq_stored_next(&f->u.rd.sc, f->want_crc, f->lit, &f->u.rd.srun);
            if (k == 0 && f->u.rd.srun == 0) {
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
                    dict_stored_out(w, f->lit, 16);
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
            if (!f->u.rd.srun) {
                f->vstage = D_FRAME;
                continue;
            }
            st = dict_piece(w, f->u.rd.srun, &p, &n);
            if (st == UPQ_DONE)
                return upq_wf_corrupt(w, j->off, "dictionary entries missing");
            if (st != UPQ_OK)
                return st;
            f->want_crc = upq_crc32_update(f->want_crc, p, n);
            f->u.rd.srun -= n;
            dict_out(w, (uint8_t *)(uintptr_t)p, n);
            return UPQ_OK;
        }
        case D_HEADER:
            body = (size_t)(slot_end - f->u.rd.dict_body);
            upq_memset(ph, 0, sizeof *ph);
            ph->isset = (1u << UPQ_PAGE_HEADER_TYPE) | (1u << UPQ_PAGE_HEADER_UNCOMPRESSED_PAGE_SIZE) |
                        (1u << UPQ_PAGE_HEADER_COMPRESSED_PAGE_SIZE) |
                        (1u << UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER);
            ph->type = UPQ_PAGE_DICTIONARY;
            ph->uncompressed_page_size = (int32_t)f->u.rd.dict_total;
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
            /* RG_END's CRC of the region goes on over the page */
            j->crc = upq_wj_region_crc(j->crc, w->hbuf, hl, f->bcrc);
            upq_wj_src(w, w->hbuf, hl, f->u.rd.dict_body - hl);
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

upq_status upq_wr_dict_restore(upq_writer *w)
{
    upq_wfinish *f = UPQ_WF(w);
    upq_wcol *c = &w->cols[f->vcol];
    upq_status st;
    for (;;) {
        const uint8_t *p;
        uint32_t n;
        if (f->vstage == 0) {
            blobs_begin(w);
            f->vstage = 1;
            c->dict_bytes = c->dict_n = 0;
            f->u.rd.dict_body = 0;
        }
        st = dict_piece(w, UINT64_MAX, &p, &n);
        if (st == UPQ_DONE) {
            if (!index_entries(c, (uint32_t)f->u.rd.dict_body) || c->dict_n != f->dict_n)
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

#endif /* UPQ_WITH_WRITER */
