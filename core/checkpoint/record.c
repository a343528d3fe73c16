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

/* ---- a chunk's totals (RG_SUM) ------------------------------------------------- */

/*
 * What the finisher takes from a data page's header, and what the region
 * layout takes from the same header as it writes it: one code, so that the
 * totals RG_SUM states are those the finisher would read. Close and
 * recovery read the headers of a row group without RG_SUM instead.
 */
upq_status upq_wj_page_facts(const upq_page_header *ph, upq_fpage *p)
{
    const upq_statistics *s = (const upq_statistics *)0;
    p->type = ph->type;
    p->unc = ph->uncompressed_page_size;
    p->nulls = -1;
    p->nans = -1;
    if (ph->type == UPQ_PAGE_DATA && UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER)) {
        const upq_data_page_header *h = &ph->data_page_header;
        p->values = h->num_values;
        p->encoding = h->encoding;
        p->rows = p->values;
        if (UPQ_ISSET(*h, UPQ_DATA_PAGE_HEADER_STATISTICS))
            s = &h->statistics;
    } else if (ph->type == UPQ_PAGE_DATA_V2 && UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2)) {
        const upq_data_page_header_v2 *h = &ph->data_page_header_v2;
        p->values = h->num_values;
        p->encoding = h->encoding;
        p->rows = h->num_rows;
        p->nulls = h->num_nulls;
        if (UPQ_ISSET(*h, UPQ_DATA_PAGE_HEADER_V2_STATISTICS))
            s = &h->statistics;
    } else {
        return UPQ_ERR_CORRUPT;
    }
    upq_minmax_reset(&p->mm);
    if (!s)
        return UPQ_OK;
    if (UPQ_ISSET(*s, UPQ_STATISTICS_NULL_COUNT))
        p->nulls = s->null_count;
    if (UPQ_ISSET(*s, UPQ_STATISTICS_NAN_COUNT))
        p->nans = s->nan_count;
    if (UPQ_ISSET(*s, UPQ_STATISTICS_MIN_VALUE)) {
        p->mm.min = (uint8_t *)(uintptr_t)s->min_value.ptr;
        p->mm.min_len = s->min_value.len;
        p->mm.min_ok = 1;
        p->mm.min_exact = UPQ_ISSET(*s, UPQ_STATISTICS_IS_MIN_VALUE_EXACT) ? s->is_min_value_exact : 0;
        p->mm.has = 1;
    }
    if (UPQ_ISSET(*s, UPQ_STATISTICS_MAX_VALUE)) {
        p->mm.max = (uint8_t *)(uintptr_t)s->max_value.ptr;
        p->mm.max_len = s->max_value.len;
        p->mm.max_ok = 1;
        p->mm.max_exact = UPQ_ISSET(*s, UPQ_STATISTICS_IS_MAX_VALUE_EXACT) ? s->is_max_value_exact : 0;
        p->mm.has = 1;
    }
    return UPQ_OK;
}

int upq_wj_page_null(const upq_fpage *p)
{
    return p->nulls == p->values;
}

uint32_t upq_wj_entry_len(const upq_fpage *p, int max)
{
    return upq_wj_page_null(p) ? 0u : max ? p->mm.max_len : p->mm.min_len;
}

int upq_wj_ci_breaks(const upq_fpage *p)
{
    return p->nulls < 0 || (!upq_wj_page_null(p) && (!p->mm.has || !p->mm.min_ok || !p->mm.max_ok));
}

void upq_wj_tally(upq_wcol *c, const upq_fpage *p, uint64_t frow, uint32_t *ci, uint32_t *oi)
{
    *ci += (uint32_t)(1u + upq_tc_varint_len(upq_wj_entry_len(p, 0)) + upq_wj_entry_len(p, 0) +
                      upq_tc_varint_len(upq_wj_entry_len(p, 1)) + upq_wj_entry_len(p, 1) +
                      upq_tc_varint_len(upq_tc_zz(p->nulls < 0 ? 0 : p->nulls)));
    *oi += (uint32_t)(1u + upq_tc_varint_len(upq_tc_zz((int64_t)p->off)) + 1u +
                      upq_tc_varint_len(upq_tc_zz((int64_t)p->total)) + 1u +
                      upq_tc_varint_len(upq_tc_zz((int64_t)frow)) + 1u);
    c->num_values += p->values;
    if (p->nulls > 0)
        c->nulls += p->nulls;
    if (p->nans > 0)
        c->nans += p->nans;
    c->unc_bytes += (int64_t)p->hl + p->unc;
    c->comp_bytes += (int64_t)p->total;
    c->enc_mask |= 1u << (uint32_t)p->encoding;
    if (c->max_def || c->max_rep)
        c->enc_mask |= 1u << UPQ_ENC_RLE;
    if (p->encoding == UPQ_ENC_PLAIN_DICTIONARY || p->encoding == UPQ_ENC_RLE_DICTIONARY)
        c->pages_dict++;
    else
        c->pages_plain++;
    if (UPQ_WITH_STATISTICS && c->st.cap)
        upq_minmax_merge(&c->st, &p->mm, c->order);
}

void upq_wj_list_lens(const upq_fpage *p, uint32_t *mins, uint32_t *maxs)
{
    *mins += (uint32_t)(upq_tc_varint_len(upq_wj_entry_len(p, 0)) + upq_wj_entry_len(p, 0));
    *maxs += (uint32_t)(upq_tc_varint_len(upq_wj_entry_len(p, 1)) + upq_wj_entry_len(p, 1));
}

size_t upq_wj_list_field(uint8_t *p, unsigned delta, uint32_t n, unsigned ct)
{
    p[0] = (uint8_t)((delta << 4) | UPQ_CT_LIST);
    return 1 + upq_tc_list_hdr(p + 1, n, ct);
}

void upq_wj_index_lens(const upq_writer *w, upq_wcol *c, uint32_t npages, int ci_ok, uint32_t ci,
                       uint32_t oi, int32_t boundary)
{
    uint8_t tmp[16];
    uint32_t over = UPQ_W_KEY(c) ? UPQ_W_CRYPTO_OVER : 0u;
    c->ci_len = c->oi_len = 0;
    if (ci_ok && npages)
        /* three list headers, boundary_order, a fourth list header, STOP */
        c->ci_len = (int32_t)(ci + (uint32_t)(upq_wj_list_field(tmp, 1, npages, UPQ_CT_TRUE) +
                                              2u * upq_wj_list_field(tmp, 1, npages, UPQ_CT_BINARY)) +
                              1u + (uint32_t)upq_tc_varint_len(upq_tc_zz(boundary)) +
                              (uint32_t)upq_wj_list_field(tmp, 1, npages, UPQ_CT_I64) + 1u + over);
    if (!UPQ_W_NO_PI(w))
        c->oi_len = (int32_t)(oi + upq_wj_list_field(tmp, 1, npages, UPQ_CT_STRUCT) + 1u + over);
}

/* The one column's totals RG_SUM is encoded from at a time: the footer's
 * ColumnChunk model, idle while the region layout writes a row group. */
UPQ_STATIC_ASSERT(sizeof(upq_jtot) <= sizeof(upq_column_chunk), jtot_fits_cc);

static upq_jtot *tot_model(upq_writer *w)
{
    return (upq_jtot *)(void *)&UPQ_W_MODELS(w)->cc;
}

const upq_jtot *upq_wj_tot_fill(upq_writer *w, uint32_t i)
{
    const upq_wcol *c = &w->cols[i];
    upq_jtot *t = tot_model(w);
    upq_memset(t, 0, sizeof *t);
    t->isset = 0x67FEu; /* fields 1..10, 13, 14 */
    /* the ColumnIndex's min and max lists' bytes (writer_journal.c, tally) */
    t->mins = (int32_t)UPQ_WC_MINS(c);
    t->maxs = (int32_t)UPQ_WC_MAXS(c);
    t->isset |= 1u << UPQ_JTOT_MINS | 1u << UPQ_JTOT_MAXS;
    t->rg = (int32_t)w->num_rg;
    t->col = (int32_t)i;
    t->unc = c->unc_bytes;
    t->comp = c->comp_bytes;
    t->values = c->num_values;
    t->nulls = c->nulls;
    t->nans = c->nans;
    t->enc_mask = (int32_t)c->enc_mask;
    t->pages_dict = (int32_t)c->pages_dict;
    t->ci_len = c->ci_len;
    t->oi_len = c->oi_len;
    t->mm = c->st.has | c->st.min_ok << 1 | c->st.max_ok << 2 | c->st.min_exact << 3 | c->st.max_exact << 4;
    if (c->st.has && c->st.min_ok) {
        t->min.ptr = c->st.min;
        t->min.len = c->st.min_len;
        UPQ_SET(*t, UPQ_JTOT_MIN);
    }
    if (c->st.has && c->st.max_ok) {
        t->max.ptr = c->st.max;
        t->max.len = c->st.max_len;
        UPQ_SET(*t, UPQ_JTOT_MAX);
    }
    return t;
}

uint32_t upq_wj_sum_bound(const upq_writer *w, uint32_t i)
{
    /* five i64 and nine i32 fields at their widest, two bounds, STOP */
    return UPQ_J_MIN + 5u * 11u + 9u * 6u + 2u * (6u + w->cols[i].scap) + 1u;
}

#endif /* UPQ_WITH_WRITER */
