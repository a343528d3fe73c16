/*
 * The buffered and direct layouts: where pages wait until their row group
 * ends, and how that row group is then written out.
 *
 * Buffered: each finished page goes into its column's chunk buffer, behind
 * room for the largest header, with its page-index entry in RAM; a page
 * that would leave less room than one more page ends the row group at the
 * rows every column has, so the last pages always fit. Direct: no chunk
 * buffers; a row group ends as soon as a column's staging is full, and its
 * one page per column is encoded again as it is written out.
 *
 * When a row group ends, every column's last page is made, the dictionary
 * pages are sized and the layout is fixed: where each chunk, bloom filter,
 * ColumnIndex and OffsetIndex will land. Its RowGroup is encoded once into
 * the RAM log the footer copies (checked for room before a byte is
 * written). Then a state machine over pieces writes it out: RAM regions
 * (chunk buffers, dictionaries, the log) in place, Thrift structures and
 * literals through the window.
 */
#include "buffered.h"
#include "geo.h"

#if UPQ_WITH_WRITER

upq_status upq_w_flush_page(upq_writer *w, upq_wcol *c, int final)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    uint32_t n = c->clev, nv = c->cval, vb = c->cbytes;
    int v2 = UPQ_W_V2(w);
    int dict = c->dict_on;
    int32_t col = (int32_t)(c - w->cols);
    size_t room, hl, stored;
    uint8_t *dst = (uint8_t *)0;
    int64_t nans;
    upq_minmax mm;
    upq_wpage pg;
    upq_status st;

    if (n == 0)
        return UPQ_OK;
    if (UPQ_W_PI_PAGES(c) && c->npages >= c->max_pages)
        return upq_w_fail(w, UPQ_ERR_STATE, col, "page index full");
    if (UPQ_W_PI_PAGES(c)) {
        mm.min = c->pbytes + (size_t)c->npages * 2u * c->scap;
        mm.max = mm.min + c->scap;
    } else {
        mm.min = m->pst.min;
        mm.max = m->pst.max;
    }
    mm.cap = c->scap;
    /* buffered: the stored form goes behind room for the largest header;
     * direct: into the shared buffer (compressed) or nowhere (w->pbuf) */
    room = c->chunk_cap - c->chunk_used;
    if (UPQ_W_DIRECT(w)) {
        dst = c->chunk;
    } else {
        if (room < w->hbuf_cap)
            return upq_w_fail(w, UPQ_ERR_STATE, col, "chunk buffer overrun");
        dst = c->chunk + c->chunk_used + w->hbuf_cap;
        room -= w->hbuf_cap;
    }
    st = upq_w_encode_page(w, c, (int64_t)(c->crows - c->frows), dst, room, &mm, &pg, 0);
    if (st != UPQ_OK)
        return st;
    hl = pg.hl;
    stored = pg.stored;
    nans = pg.nans;
    if (!UPQ_W_DIRECT(w)) {
        /* pg.out: dst, or 16 bytes before it for a sealed module */
        upq_memmove(c->chunk + c->chunk_used + hl, pg.out, stored);
        upq_memcpy(c->chunk + c->chunk_used, w->hbuf, hl);
    }
    /* page index entry */
    if (UPQ_W_PI_PAGES(c)) {
        uint32_t p = c->npages;
        upq_page_location *loc = &c->locs[p];
        loc->isset = (1u << UPQ_PAGE_LOCATION_OFFSET) | (1u << UPQ_PAGE_LOCATION_COMPRESSED_PAGE_SIZE) |
                     (1u << UPQ_PAGE_LOCATION_FIRST_ROW_INDEX);
        loc->offset = (int64_t)c->chunk_used; /* made absolute when the row group ends */
        loc->compressed_page_size = (int32_t)(hl + stored);
        loc->first_row_index = (int64_t)c->frows;
        c->null_pages[p] = (uint8_t)(nv == 0);
        c->pnulls[p] = (int64_t)(n - nv);
        c->pmin[p].ptr = mm.min;
        c->pmax[p].ptr = mm.max;
        c->pmin[p].len = c->pmax[p].len = 0;
        if (nv > 0) {
            /* a page of only NaN (or with an unknown bound) has no index entry */
            if (!mm.has || !mm.min_ok || !mm.max_ok)
                c->ci_ok = 0;
            c->pmin[p].len = mm.min_len;
            c->pmax[p].len = mm.max_len;
        }
        if (c->order == UPQ_SO_NONE)
            c->ci_ok = 0;
    }

    /* chunk totals */
    if (UPQ_WITH_STATISTICS) {
        upq_minmax_merge(&c->st, &mm, c->order);
        c->nans += nans;
    }
    c->nulls += (int64_t)(n - nv);
    c->num_values += (int64_t)n;
    c->unc_bytes += (int64_t)(hl + pg.body);
    c->comp_bytes += (int64_t)(hl + stored);
    /* once per page: direct mode encodes the page again at output */
    upq_w_page_tally(c, n, nv, vb);
    c->enc_mask |= 1u << (dict ? (v2 ? UPQ_ENC_RLE_DICTIONARY : UPQ_ENC_PLAIN_DICTIONARY) : c->enc);
    if (c->max_def || c->max_rep)
        c->enc_mask |= 1u << UPQ_ENC_RLE;
    if (dict) {
        c->pages_dict++;
        c->dict_pages++;
    } else {
        c->pages_plain++;
    }
    c->chunk_used += hl + stored;
    c->npages++;
    c->frows = c->crows;
    /* direct: the staging stays until the page is encoded again for output */
    if (!UPQ_W_DIRECT(w))
        upq_w_drop_prefix(c, UPQ_W_DX(w, c), n, nv, vb);

    if (!final) {
        /* keep room for the last page of the row group */
        size_t total = 0;
        uint32_t k;
        if (c->chunk_cap - c->chunk_used < c->worst ||
            (UPQ_W_PI_PAGES(c) && c->npages + 1u >= c->max_pages))
            w->rg_due = 1;
        if (UPQ_W_RG_BYTES(w)) {
            for (k = 0; k < w->ncols; k++)
                total += w->cols[k].chunk_used;
            if (total >= UPQ_W_RG_BYTES(w))
                w->rg_due = 1;
        }
    }
    return UPQ_OK;
}

upq_status upq_w_direct_page(upq_writer *w, upq_wcol *c, const uint8_t **body, size_t *hl,
                             size_t *stored)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    upq_minmax mm;
    upq_wpage pg;
    upq_status st;

    mm.min = m->pst.min;
    mm.max = m->pst.max;
    mm.cap = c->scap;
    /* the row group's only page of this chunk: all its rows */
    st = upq_w_encode_page(w, c, (int64_t)c->crows, c->chunk, c->chunk_cap, &mm, &pg, 0);
    if (st != UPQ_OK)
        return st;
    if (pg.hl + pg.stored != c->chunk_used)
        return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)(c - w->cols), "data page changed size");
    upq_w_drop_prefix(c, UPQ_W_DX(w, c), c->clev, c->cval, c->cbytes);
    *body = pg.out;
    *hl = pg.hl;
    *stored = pg.stored;
    return UPQ_OK;
}

/* ---- ending a row group -------------------------------------------------------- */

/* The bytes of column c's structure d (model obj) in the file: sealed when
 * the column is encrypted. */
static upq_status count_struct(upq_writer *w, const upq_wcol *c, const upq_tstruct *d, const void *obj,
                               int32_t *len)
{
    size_t n = 0;
    upq_status st = upq_thrift_encode(d, obj, (uint8_t *)0, 0, &n);
    if (UPQ_W_KEY(c))
        n += UPQ_W_CRYPTO_OVER;
    if (st != UPQ_OK || n > INT32_MAX)
        return upq_w_fail(w, UPQ_ERR_STATE, -1, "page index cannot be encoded");
    *len = (int32_t)n;
    return UPQ_OK;
}

/* Column c's page index structure d (model obj) placed at *pos: its
 * length and offset. */
static upq_status place_struct(upq_writer *w, const upq_wcol *c, const upq_tstruct *d,
                               const void *obj, int32_t *len, int64_t *off, uint64_t *pos)
{
    upq_status st = count_struct(w, c, d, obj, len);
    if (st != UPQ_OK)
        return st;
    *off = (int64_t)*pos;
    *pos += (uint64_t)*len;
    return UPQ_OK;
}

upq_status upq_w_rg_finish(upq_writer *w)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    uint64_t pos;
    uint32_t i, p;
    upq_status st;

    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        st = upq_w_flush_page(w, c, 1);
        if (st != UPQ_OK)
            return st;
        if (c->frows != w->rs)
            return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)i, "columns out of step at a row group end");
        if (c->dict_pages) {
            size_t hl = 0;
            st = upq_w_dict_page(w, c, &hl);
            if (st != UPQ_OK)
                return st;
            c->dict_hdr = (int32_t)hl;
            c->enc_mask |= 1u << (UPQ_W_V2(w) ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY);
        }
    }
    /* layout */
    pos = w->file_pos + (w->magic_done ? 0u : 4u);
    w->rg_off = (int64_t)pos;
    w->rg_unc = w->rg_comp = 0;
    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        c->chunk_off = (int64_t)pos;
        c->data_off = c->chunk_off + c->dict_hdr + c->dict_stored;
        for (p = 0; p < c->npages && UPQ_W_PI_PAGES(c); p++)
            c->locs[p].offset += c->data_off;
        pos = (uint64_t)c->data_off + c->chunk_used;
        c->unc_bytes += c->dict_hdr + c->dict_unc;
        c->comp_bytes += c->dict_hdr + c->dict_stored;
        w->rg_unc += c->unc_bytes;
        w->rg_comp += c->comp_bytes;
    }
    /* bloom filters after the chunks: the checkpoint footer that follows
     * them references only bytes written before it (without bloom
     * filters, bf_hdr stays 0 from chunk_clear) */
    for (i = 0; UPQ_WITH_BLOOM && i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        c->bf_hdr = 0;
        if (!UPQ_W_BLOOM(c))
            continue;
        upq_w_build_bf(w, c);
        st = count_struct(w, c, &upq_bloom_filter_header_desc, &m->bf, &c->bf_hdr);
        if (st != UPQ_OK)
            return st;
        c->bf_off = (int64_t)pos;
        /* the bitset after the header: a GCM module of its own */
        pos += (uint64_t)c->bf_hdr + c->bloom_bytes + (UPQ_W_KEY(c) ? UPQ_W_CRYPTO_OVER : 0u);
    }
    if (!UPQ_W_NO_PI(w)) {
        for (i = 0; i < w->ncols; i++) {
            upq_wcol *c = &w->cols[i];
            c->ci_len = 0;
            if (c->ci_ok && c->npages) {
                upq_w_build_ci(w, c);
                st = place_struct(w, c, &upq_column_index_desc, &m->ci, &c->ci_len, &c->ci_off,
                                  &pos);
                if (st != UPQ_OK)
                    return st;
            }
        }
        for (i = 0; i < w->ncols; i++) {
            upq_wcol *c = &w->cols[i];
            upq_w_build_oi(w, c);
            st = place_struct(w, c, &upq_offset_index_desc, &m->oi, &c->oi_len, &c->oi_off, &pos);
            if (st != UPQ_OK)
                return st;
        }
    }
    w->rg_rows = w->rs;
    {
        size_t need = 0, got = 0;
        upq_w_rg_gen_reset(w);
        st = upq_w_rg_gen(w, (uint8_t *)0, 0, &need);
        if (st != UPQ_OK)
            return st;
        if (need > w->log_cap - w->log_used) {
            w->log_full = 1;
            w->arena.needed = w->arena.cap + (need - (w->log_cap - w->log_used));
            return upq_w_fail(w, UPQ_ERR_NOMEM, -1,
                              "footer log full: more row groups than the arena's metadata room");
        }
        upq_w_rg_gen_reset(w);
        st = upq_w_rg_gen(w, w->log + w->log_used, w->log_cap - w->log_used, &got);
        if (st != UPQ_OK || got != need)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "row group metadata changed size");
        w->log_used += got;
    }
    w->out_kind = UPQ_OUT_RG;
    w->oc = 0;
    w->gstage = UPQ_W_FOOTER_FIRST;
    w->ostage = w->magic_done ? UPQ_OS_DICT_HDR : UPQ_OS_MAGIC;
    return UPQ_OK;
}

void upq_w_footer_start(upq_writer *w)
{
    w->out_kind = UPQ_OUT_FOOTER;
    w->gstage = upq_w_enc_footer(w) ? UPQ_W_FOOTER_SEALED : UPQ_W_FOOTER_FIRST;
    w->ostage = w->magic_done ? UPQ_OS_FOOTER : UPQ_OS_MAGIC;
}

/* ---- the output state machine ----------------------------------------------------- */

/* A structure d (model obj) of an encrypted column, or with no d its bloom
 * filter's bitset, as a GCM module streamed through the window: length
 * and nonce, the body of `body` bytes encrypted piece by piece (the bitset
 * in place: it is cleared for the next row group anyway), the tag. */
static upq_status module_piece(upq_writer *w, const upq_wcol *c, int module, const upq_tstruct *d,
                               const void *obj, uint32_t body, int *done)
{
    upq_status st;
    *done = 0;
    switch (w->mstage) {
    case 0:
        st = upq_wc_stream_begin(w, c->key, module, (int32_t)(c - w->cols), body, UPQ_WS_ENCRYPT);
        if (st != UPQ_OK)
            return st;
        upq_w_src(w, w->wc->head, 16);
        w->mstage = 1;
        return UPQ_OK;
    case 1: {
        int fin = 1;
        if (!d) {
            upq_wc_stream_piece(w, c->bloom, c->bloom_bytes);
            upq_w_src(w, c->bloom, c->bloom_bytes);
        } else {
            fin = 0;
            st = upq_w_tenc_piece(w, d, obj, &fin);
            if (st != UPQ_OK)
                return st;
            upq_wc_stream_piece(w, w->win, w->src_len);
        }
        if (fin)
            w->mstage = 2;
        return UPQ_OK;
    }
    default:
        upq_wc_stream_tag(w, w->win);
        upq_w_src(w, w->win, 16);
        w->mstage = 0;
        *done = 1;
        return UPQ_OK;
    }
}

/* The next piece of column c's bloom filter header, ColumnIndex or
 * OffsetIndex (module says which; len: its bytes, sealed): its model built
 * as its encoding starts, a module when the column is encrypted, else
 * Thrift through the window. Once it is whole, the bitset follows a bloom
 * filter header, and an index the next column's. */
static upq_status index_piece(upq_writer *w, upq_wcol *c, int module, int32_t len)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    const upq_tstruct *d = &upq_offset_index_desc;
    const void *obj = &m->oi;
    int done = 0;
    upq_status st;
    if (module == UPQ_MODULE_BLOOM_HEADER) {
        d = &upq_bloom_filter_header_desc;
        obj = &m->bf;
        if (!w->tenc_on)
            upq_w_build_bf(w, c);
    } else if (module == UPQ_MODULE_COLUMN_INDEX) {
        d = &upq_column_index_desc;
        obj = &m->ci;
        if (!w->tenc_on)
            upq_w_build_ci(w, c);
    } else if (!w->tenc_on) {
        upq_w_build_oi(w, c);
    }
    st = UPQ_W_KEY(c) ? module_piece(w, c, module, d, obj, (uint32_t)len - (uint32_t)UPQ_W_CRYPTO_OVER, &done)
                       : upq_w_tenc_piece(w, d, obj, &done);
    if (done && module == UPQ_MODULE_BLOOM_HEADER)
        w->ostage = UPQ_OS_BF_BITS;
    else if (done)
        w->oc++;
    return st;
}

/*
 * The stages of a row group's or the footer's output. Each sets the next
 * piece (UPQ_OK), or moves on to the next stage without one (UPQ_OK with
 * nothing left to write: the pump asks again), or ends the run (UPQ_DONE),
 * or fails.
 */

/* Moves on to stage `next` (column `oc`) without a piece. */
static UPQ_NOINLINE upq_status go(upq_writer *w, uint8_t next, uint32_t oc)
{
    w->ostage = next;
    w->oc = oc;
    w->src_len = w->src_pos = 0;
    return UPQ_OK;
}

/* A column's dictionary page header, compressed (and sealed) again: the
 * same bytes as when the layout was made. */
static upq_status out_dict_hdr(upq_writer *w, upq_wcol *c)
{
    size_t hl = 0;
    upq_status st;
    if (!c)
        return go(w, UPQ_OS_BF_HDR, 0);
    if (!c->dict_pages)
        return go(w, UPQ_OS_CHUNK, w->oc);
    st = upq_w_dict_page(w, c, &hl);
    if (st != UPQ_OK)
        return st;
    if ((int32_t)hl != c->dict_hdr)
        return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)w->oc, "dictionary page changed size");
    upq_w_src(w, w->hbuf, hl);
    w->ostage = UPQ_OS_DICT_BODY;
    return UPQ_OK;
}

/* A column's data pages: its chunk buffer, or in direct mode its one page
 * encoded again (header first, then UPQ_OS_PAGE_BODY). */
static upq_status out_chunk(upq_writer *w, upq_wcol *c)
{
    if (UPQ_W_DIRECT(w) && c->chunk_used) {
        size_t hl = 0, stored = 0;
        const uint8_t *body = (const uint8_t *)0;
        upq_status st = upq_w_direct_page(w, c, &body, &hl, &stored);
        if (st != UPQ_OK)
            return st;
        upq_w_src(w, w->hbuf, hl);
        w->ostage = UPQ_OS_PAGE_BODY;
        return UPQ_OK;
    }
    upq_w_src(w, c->chunk, c->chunk_used);
    w->oc++;
    w->ostage = UPQ_OS_DICT_HDR;
    return UPQ_OK;
}

/* A column's bloom filter header. */
static upq_status out_bf_hdr(upq_writer *w, upq_wcol *c)
{
    if (!UPQ_WITH_BLOOM || !c)
        return go(w, UPQ_OS_CI, 0);
    if (!UPQ_W_BLOOM(c))
        return go(w, UPQ_OS_BF_HDR, w->oc + 1u);
    return index_piece(w, c, UPQ_MODULE_BLOOM_HEADER, c->bf_hdr);
}

#if UPQ_WITH_BLOOM
/* A column's bloom filter bitset (a module when the column is encrypted). */
static upq_status out_bf_bits(upq_writer *w, upq_wcol *c)
{
    int done = 1;
    upq_status st = UPQ_OK;
    if (UPQ_W_KEY(c))
        st = module_piece(w, c, UPQ_MODULE_BLOOM_BITSET, (const upq_tstruct *)0, (const void *)0,
                          c->bloom_bytes, &done);
    else
        upq_w_src(w, c->bloom, c->bloom_bytes);
    if (done) {
        w->oc++;
        w->ostage = UPQ_OS_BF_HDR;
    }
    return st;
}
#endif

/* A column's ColumnIndex (none: a chunk that cannot have one). */
static upq_status out_ci(upq_writer *w, upq_wcol *c)
{
    if (!c || UPQ_W_NO_PI(w))
        return go(w, UPQ_OS_OI, 0);
    if (!c->ci_len)
        return go(w, UPQ_OS_CI, w->oc + 1u);
    return index_piece(w, c, UPQ_MODULE_COLUMN_INDEX, c->ci_len);
}

/* A column's OffsetIndex; after the last, the run ends. */
static upq_status out_oi(upq_writer *w, upq_wcol *c)
{
    if (!c || UPQ_W_NO_PI(w)) {
        w->gstage = UPQ_W_FOOTER_FIRST;
        return go(w, UPQ_OS_END, w->oc);
    }
    return index_piece(w, c, UPQ_MODULE_OFFSET_INDEX, c->oi_len);
}

/* The footer's next piece (encrypted in place: the window, or the RAM log,
 * written once since checkpoints are off; or only signed). */
static upq_status out_footer(upq_writer *w)
{
    upq_status st = upq_w_footer_piece(w);
    if (st != UPQ_DONE)
        return st;
    return go(w, UPQ_OS_SYNC, w->oc);
}

upq_status upq_w_buf_next(upq_writer *w)
{
    upq_wcol *c = w->oc < w->ncols ? &w->cols[w->oc] : (upq_wcol *)0;
    upq_status st;
    switch (w->ostage) {
    case UPQ_OS_MAGIC:
        upq_w_src(w, (const uint8_t *)(upq_w_enc_footer(w) ? "PARE" : "PAR1"), 4);
        w->magic_done = 1;
        w->oc = 0;
        w->ostage = w->out_kind == UPQ_OUT_RG ? UPQ_OS_DICT_HDR : UPQ_OS_FOOTER;
        return UPQ_OK;
    case UPQ_OS_DICT_HDR: return out_dict_hdr(w, c);
    case UPQ_OS_DICT_BODY:
        upq_w_src(w, UPQ_W_COMPRESSING(w) || UPQ_W_KEY(c) ? w->pbuf : c->dict, (size_t)c->dict_stored);
        w->ostage = UPQ_OS_CHUNK;
        return UPQ_OK;
    case UPQ_OS_CHUNK: return out_chunk(w, c);
    case UPQ_OS_BF_HDR: return out_bf_hdr(w, c);
#if UPQ_WITH_BLOOM
    case UPQ_OS_BF_BITS: return out_bf_bits(w, c);
#endif
    case UPQ_OS_PAGE_BODY:
        /* after the header (still src_len): the body, compressed in the
         * shared buffer or as encoded in w->pbuf */
        upq_w_src(w, c->chunk ? c->chunk : w->pbuf, c->chunk_used - w->src_len);
        w->oc++;
        w->ostage = UPQ_OS_DICT_HDR;
        return UPQ_OK;
    case UPQ_OS_CI: return out_ci(w, c);
    case UPQ_OS_OI: return out_oi(w, c);
    case UPQ_OS_FOOTER: return out_footer(w);
    case UPQ_OS_SYNC:
        st = upq_w_sync(w);
        if (st != UPQ_OK)
            return st;
        return go(w, UPQ_OS_END, w->oc);
    case UPQ_OS_END:
        w->ostage = UPQ_OS_IDLE;
        return UPQ_DONE;
    default: return UPQ_DONE;
    }
}

#endif /* UPQ_WITH_WRITER */
