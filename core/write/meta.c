/*
 * The metadata the writer writes: each column chunk's ColumnChunk (and an
 * encrypted column's ColumnMetaData module), its ColumnIndex, OffsetIndex
 * and bloom filter header models, the RowGroup generator and the footer
 * generator, with the bounds that size their buffers.
 *
 * The footer is assembled by hand, field by field, exactly as the Thrift
 * encoder would write the same FileMetaData (field ids in order, short-form
 * headers), so that its bytes do not depend on how it was produced: from
 * the RAM log of RowGroups (buffered and direct modes), or with the
 * finisher describing each row group again from the file (checkpoint
 * mode), or as the FILE record's template without row groups.
 */
#include "meta.h"
#include "writer_int.h"
#include "upq_aes.h"
#include "geo.h"

#if UPQ_WITH_WRITER

/* Footer generator stages; those of encrypted footers last, so that a
 * build without encryption has no switch table entries for them. */
enum {
    G_HEAD = UPQ_W_FOOTER_FIRST,
    G_SCHEMA,
    G_ROWS,
    G_RGS,
    G_JRGS,     /* checkpoint mode: row groups described again from the file */
    G_TMPL,     /* the FILE record's template row group */
    G_KV0,
    G_KV,
    G_CREATED,
    G_ORDERS,
    G_ORDER_ITEMS,
    G_STOP,
    G_TAIL,
    G_DONE,
    G_ALG,      /* signed plaintext footer: encryption_algorithm */
    G_SIGNKEY,  /* ... and footer_signing_key_metadata */
    G_CEND,     /* encrypted footer: its tag; plaintext footer: its signature */
    G_FCM,      /* encrypted footer: FileCryptoMetaData, */
    G_FHEAD     /* then the module's length and nonce */
};
/* what buffered.c starts a footer with */
typedef char upq_w_footer_sealed_check[G_FCM == UPQ_W_FOOTER_SEALED ? 1 : -1];

/* RowGroup generator stages. */
enum { R_HEAD = UPQ_W_RG_FIRST, R_COL, R_TAIL, R_SORT, R_TAIL2, R_DONE };

#define CREATED_BY UPQ_W_CREATED_BY

/* The FILE record's template footer: checkpoint mode's alone, so that a
 * build without the mode has no template paths. */
#define G_TEMPLATE(w) (UPQ_WITH_CHECKPOINT && (w)->gtmpl)
#define CT_STRUCT 12u

/* ---- small encodings ------------------------------------------------------- */

static size_t list_hdr_len(uint32_t n)
{
    uint8_t tmp[6];
    return upq_tc_list_hdr(tmp, n, CT_STRUCT);
}

/* A field header with delta `d` (1..15) and wire type ct, then a zigzag varint. */
static size_t put_int_field(uint8_t *p, unsigned d, unsigned ct, int64_t v)
{
    p[0] = (uint8_t)((d << 4) | ct);
    return 1 + upq_tc_varint(p + 1, upq_tc_zz(v));
}

/* ---- metadata models ---------------------------------------------------------- */

static upq_status crypt_cc(upq_writer *w, uint32_t ci);

/* Appends a PageEncodingStats entry to es[0..n): the new count. */
static UPQ_NOINLINE uint32_t add_es(upq_page_encoding_stats *es, uint32_t n, int32_t type, int32_t enc, uint32_t count)
{
    es[n].isset = 0xEu;
    es[n].page_type = type;
    es[n].encoding = enc;
    es[n].count = (int32_t)count;
    return n + 1u;
}

/* The ColumnChunk of column `ci` of the row group being written. */
static upq_status fill_cc(upq_writer *w, uint32_t ci)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    const upq_wcol *c = &w->cols[ci];
    upq_column_chunk *cc = &m->cc;
    upq_column_metadata *md = &cc->meta_data;
    uint32_t e, ne = 0, nes = 0, mset;
    int v2 = UPQ_W_V2(w);

    upq_memset(cc, 0, sizeof *cc);
    cc->file_offset = c->chunk_off;
    cc->isset = (1u << UPQ_COLUMN_CHUNK_FILE_OFFSET) | (1u << UPQ_COLUMN_CHUNK_META_DATA);
    /* md->isset, stored once at the end */
    mset = (1u << UPQ_COLUMN_METADATA_TYPE) | (1u << UPQ_COLUMN_METADATA_ENCODINGS) |
                (1u << UPQ_COLUMN_METADATA_PATH_IN_SCHEMA) | (1u << UPQ_COLUMN_METADATA_CODEC) |
                (1u << UPQ_COLUMN_METADATA_NUM_VALUES) |
                (1u << UPQ_COLUMN_METADATA_TOTAL_UNCOMPRESSED_SIZE) |
                (1u << UPQ_COLUMN_METADATA_TOTAL_COMPRESSED_SIZE) |
                (1u << UPQ_COLUMN_METADATA_DATA_PAGE_OFFSET) |
                (1u << UPQ_COLUMN_METADATA_ENCODING_STATS);
    md->type = c->type;
    for (e = 0; e < 32 && ne < UPQ_COUNTOF_ENCS; e++)
        if (c->enc_mask & (1u << e))
            m->encs[ne++] = (int32_t)e;
    md->encodings.v = m->encs;
    md->encodings.n = ne;
    md->path_in_schema.v = c->path;
    md->path_in_schema.n = c->path_len;
    md->codec = w->o.codec;
    md->num_values = c->num_values;
    md->total_uncompressed_size = c->unc_bytes;
    md->total_compressed_size = c->comp_bytes;
    md->data_page_offset = c->data_off;
    if (c->dict_pages || (UPQ_W_AT(w) && c->dict_hdr)) {
        md->dictionary_page_offset = c->chunk_off;
        mset |= 1u << UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET;
        nes = add_es(m->es, nes, UPQ_PAGE_DICTIONARY, v2 ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY, 1);
    }
    if (c->pages_dict)
        nes = add_es(m->es, nes, v2 ? UPQ_PAGE_DATA_V2 : UPQ_PAGE_DATA,
                     v2 ? UPQ_ENC_RLE_DICTIONARY : UPQ_ENC_PLAIN_DICTIONARY, c->pages_dict);
    if (c->pages_plain)
        nes = add_es(m->es, nes, v2 ? UPQ_PAGE_DATA_V2 : UPQ_PAGE_DATA, c->enc, c->pages_plain);
    md->encoding_stats.v = m->es;
    md->encoding_stats.n = nes;
    if (UPQ_W_STATS(w)) {
        mset |= 1u << UPQ_COLUMN_METADATA_STATISTICS;
        upq_w_put_stats(c, &md->statistics, &c->st, c->nulls, c->nans);
    }
    if (c->type == UPQ_TYPE_BYTE_ARRAY || c->def_hist || c->rep_hist) {
        upq_size_statistics *z = &md->size_statistics;
        uint32_t zset = 0; /* z->isset, stored once */
        mset |= 1u << UPQ_COLUMN_METADATA_SIZE_STATISTICS;
        if (c->type == UPQ_TYPE_BYTE_ARRAY) {
            z->unencoded_byte_array_data_bytes = c->ba_bytes;
            zset |= 1u << UPQ_SIZE_STATISTICS_UNENCODED_BYTE_ARRAY_DATA_BYTES;
        }
        if (c->rep_hist) {
            z->repetition_level_histogram.v = c->rep_hist;
            z->repetition_level_histogram.n = (uint32_t)c->max_rep + 1u;
            zset |= 1u << UPQ_SIZE_STATISTICS_REPETITION_LEVEL_HISTOGRAM;
        }
        if (c->def_hist) {
            z->definition_level_histogram.v = c->def_hist;
            z->definition_level_histogram.n = (uint32_t)c->max_def + 1u;
            zset |= 1u << UPQ_SIZE_STATISTICS_DEFINITION_LEVEL_HISTOGRAM;
        }
        z->isset = zset;
    }
    if (UPQ_W_BLOOM(c)) {
        md->bloom_filter_offset = c->bf_off;
        md->bloom_filter_length = c->bf_hdr + (int32_t)c->bloom_bytes +
                                  (UPQ_W_KEY(c) ? (int32_t)UPQ_W_CRYPTO_OVER : 0);
        mset |= 1u << UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET;
        mset |= 1u << UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH;
    }
    if (UPQ_W_PI_PAGES(c) || (UPQ_W_AT(w) && c->oi_len)) {
        cc->offset_index_offset = c->oi_off;
        cc->offset_index_length = c->oi_len;
        UPQ_SET(*cc, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET);
        UPQ_SET(*cc, UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH);
        if (c->ci_len) {
            cc->column_index_offset = c->ci_off;
            cc->column_index_length = c->ci_len;
            UPQ_SET(*cc, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET);
            UPQ_SET(*cc, UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH);
        }
    }
#if UPQ_WITH_CHUNK_META
    if (w->o.columns && ci < w->o.ncolumns && w->o.columns[ci].nkv) {
        const upq_column_opts *co = &w->o.columns[ci];
        md->key_value_metadata.v = (upq_key_value *)(uintptr_t)co->kv;
        md->key_value_metadata.n = co->nkv;
        mset |= 1u << UPQ_COLUMN_METADATA_KEY_VALUE_METADATA;
    }
    /* checkpoint mode finishes chunks from their page headers, which do not
     * carry these: its chunks get none rather than a partial box */
    if (w->geo && !UPQ_W_AT(w)) {
        upq_geo_acc *g = upq_geo_find(w->geo, ci);
        if (g && upq_geo_stats(g, &md->geospatial_statistics))
            mset |= 1u << UPQ_COLUMN_METADATA_GEOSPATIAL_STATISTICS;
    }
#endif
    md->isset = mset;
    return UPQ_W_KEY(c) ? crypt_cc(w, ci) : UPQ_OK;
}

/* An encrypted column's crypto metadata, and its ColumnMetaData encrypted
 * (in pbuf) where the footer does not protect it with the same key: columns
 * with their own key, and every encrypted column under a plaintext footer,
 * whose plain copy then loses its statistics. */
static upq_status crypt_cc(upq_writer *w, uint32_t ci)
{
    upq_column_chunk *cc = &UPQ_W_MODELS(w)->cc;
    upq_column_metadata *md = &cc->meta_data;
    upq_column_crypto_metadata *cm = &cc->crypto_metadata;
    const upq_wcol *c = &w->cols[ci];
    int plain_footer = w->o.encrypt->plaintext_footer != 0;
    size_t n = 0, ml = 0;
    upq_status st;
    upq_memset(cm, 0, sizeof *cm);
    UPQ_SET(*cc, UPQ_COLUMN_CHUNK_CRYPTO_METADATA);
    if (c->key->own) {
        upq_encryption_with_column_key *ck = &cm->u.encryption_with_column_key;
        UPQ_SET(*cm, UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY);
        ck->path_in_schema = md->path_in_schema;
        UPQ_SET(*ck, UPQ_ENCRYPTION_WITH_COLUMN_KEY_PATH_IN_SCHEMA);
        if (c->key->md_len) {
            ck->key_metadata.ptr = c->key->md;
            ck->key_metadata.len = c->key->md_len;
            UPQ_SET(*ck, UPQ_ENCRYPTION_WITH_COLUMN_KEY_KEY_METADATA);
        }
    } else {
        UPQ_SET(*cm, UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_FOOTER_KEY);
    }
    if (!c->key->own && !plain_footer)
        return UPQ_OK;
    st = upq_thrift_encode(&upq_column_metadata_desc, md, w->pbuf + 16,
                           w->pbuf_cap - 16u - UPQ_W_CRYPTO_OVER, &n);
    if (st != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_LIMIT, (int32_t)ci, "column metadata too large to encrypt");
    st = upq_wc_seal(w, c->key, UPQ_MODULE_COLUMN_META, (int32_t)ci, -1, w->pbuf, n,
                     (const uint8_t *)0, &ml);
    if (st != UPQ_OK)
        return st;
    cc->encrypted_column_metadata.ptr = w->pbuf;
    cc->encrypted_column_metadata.len = (uint32_t)ml;
    UPQ_SET(*cc, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA);
    if (plain_footer) {
        md->isset &= ~((1u << UPQ_COLUMN_METADATA_STATISTICS) |
                       (1u << UPQ_COLUMN_METADATA_SIZE_STATISTICS));
    } else {
        cc->isset &= ~(1u << UPQ_COLUMN_CHUNK_META_DATA);
    }
    return UPQ_OK;
}

static int32_t boundary_order(const upq_wcol *c)
{
    int asc = 1, desc = 1;
    uint32_t p, prev = UINT32_MAX;
    for (p = 0; p < c->npages; p++) {
        int a, b;
        if (c->null_pages[p])
            continue;
        if (prev != UINT32_MAX) {
            a = upq_stats_cmp(c->order, c->pmin[p].ptr, c->pmin[p].len, c->pmin[prev].ptr,
                              c->pmin[prev].len);
            b = upq_stats_cmp(c->order, c->pmax[p].ptr, c->pmax[p].len, c->pmax[prev].ptr,
                              c->pmax[prev].len);
            if (a < 0 || b < 0)
                asc = 0;
            if (a > 0 || b > 0)
                desc = 0;
        }
        prev = p;
    }
    return asc ? UPQ_BOUNDARY_ASCENDING : desc ? UPQ_BOUNDARY_DESCENDING : UPQ_BOUNDARY_UNORDERED;
}

void upq_w_build_ci(upq_writer *w, const upq_wcol *c)
{
    upq_column_index *ci = &UPQ_W_MODELS(w)->ci;
    upq_memset(ci, 0, sizeof *ci);
    ci->isset = (1u << UPQ_COLUMN_INDEX_NULL_PAGES) | (1u << UPQ_COLUMN_INDEX_MIN_VALUES) |
                (1u << UPQ_COLUMN_INDEX_MAX_VALUES) | (1u << UPQ_COLUMN_INDEX_BOUNDARY_ORDER) |
                (1u << UPQ_COLUMN_INDEX_NULL_COUNTS);
    ci->null_pages.v = c->null_pages;
    ci->null_pages.n = c->npages;
    ci->min_values.v = c->pmin;
    ci->min_values.n = c->npages;
    ci->max_values.v = c->pmax;
    ci->max_values.n = c->npages;
    ci->boundary_order = boundary_order(c);
    ci->null_counts.v = c->pnulls;
    ci->null_counts.n = c->npages;
}

void upq_w_build_bf(upq_writer *w, const upq_wcol *c)
{
    upq_bloom_filter_header *h = &UPQ_W_MODELS(w)->bf;
    upq_memset(h, 0, sizeof *h);
    h->isset = (1u << UPQ_BLOOM_FILTER_HEADER_NUM_BYTES) | (1u << UPQ_BLOOM_FILTER_HEADER_ALGORITHM) |
               (1u << UPQ_BLOOM_FILTER_HEADER_HASH) | (1u << UPQ_BLOOM_FILTER_HEADER_COMPRESSION);
    h->num_bytes = (int32_t)c->bloom_bytes;
    h->algorithm.isset = 1u << UPQ_BLOOM_FILTER_ALGORITHM_BLOCK;
    h->hash.isset = 1u << UPQ_BLOOM_FILTER_HASH_XXHASH;
    h->compression.isset = 1u << UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED;
}

/* ---- the RowGroup generator -------------------------------------------------- */

static void lit_start(upq_writer *w)
{
    w->lit_len = w->lit_pos = 0;
}

/* Copies pending literal bytes into out (NULL: only counts). */
static size_t lit_drain(upq_writer *w, uint8_t *out, size_t cap)
{
    size_t k = (size_t)(w->lit_len - w->lit_pos);
    if (out) {
        if (k > cap)
            k = cap;
        upq_memcpy(out, w->lit + w->lit_pos, k);
    }
    w->lit_pos = (uint8_t)(w->lit_pos + k);
    return k;
}

/*
 * Produces the next bytes of the encoded RowGroup into out[0..cap) (out
 * NULL: counts them all at once). UPQ_OK when it is complete, UPQ_AGAIN when
 * out is full. *produced gets the bytes of this call.
 */
upq_status upq_w_rg_gen(upq_writer *w, uint8_t *out, size_t cap, size_t *produced)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    size_t pos = 0;
    *produced = 0;
    for (;;) {
        if (w->lit_pos < w->lit_len) {
            pos += lit_drain(w, out ? out + pos : out, cap - pos);
            if (w->lit_pos < w->lit_len) {
                *produced = pos;
                return UPQ_AGAIN;
            }
        }
        if (w->tenc_on) {
            size_t got = 0;
            upq_status st;
            if (out && pos == cap) {
                *produced = pos;
                return UPQ_AGAIN;
            }
            st = upq_tenc_run(&m->tenc, out ? out + pos : out, out ? cap - pos : 0, &got);
            pos += got;
            if (st == UPQ_AGAIN) {
                *produced = pos;
                return UPQ_AGAIN;
            }
            if (st != UPQ_OK)
                return upq_w_fail(w, UPQ_ERR_STATE, -1, "metadata cannot be encoded");
            w->tenc_on = 0;
        }
        lit_start(w);
        switch (w->rstage) {
        case R_HEAD:
            w->lit[0] = 0x19; /* field 1, list */
            w->lit_len = (uint8_t)(1 + upq_tc_list_hdr(w->lit + 1, w->ncols, CT_STRUCT));
            w->rc = 0;
            w->rstage = R_COL;
            break;
        case R_COL:
            if (w->rc == w->ncols) {
                w->rstage = R_TAIL;
                break;
            }
            if (fill_cc(w, w->rc++) != UPQ_OK)
                return w->failed;
            upq_tenc_init(&m->tenc, &upq_column_chunk_desc, &m->cc);
            w->tenc_on = 1;
            break;
        case R_TAIL: {
            size_t k = put_int_field(w->lit, 1, 6, w->rg_unc);
            k += put_int_field(w->lit + k, 1, 6, (int64_t)w->rg_rows);
            if (UPQ_O_NSORT(&w->o)) {
                w->lit[k++] = 0x19;
                k += upq_tc_list_hdr(w->lit + k, UPQ_O_NSORT(&w->o), CT_STRUCT);
            }
            w->lit_len = (uint8_t)k;
            w->rc = 0;
            w->rstage = UPQ_O_NSORT(&w->o) ? R_SORT : R_TAIL2;
            break;
        }
        case R_SORT:
            if (w->rc == UPQ_O_NSORT(&w->o)) {
                w->rstage = R_TAIL2;
                break;
            }
            upq_tenc_init(&m->tenc, &upq_sorting_column_desc, &w->o.sorting[w->rc++]);
            w->tenc_on = 1;
            break;
        case R_TAIL2: {
            size_t k = put_int_field(w->lit, UPQ_O_NSORT(&w->o) ? 1u : 2u, 6, w->rg_off);
            k += put_int_field(w->lit + k, 1, 6, w->rg_comp);
            if (w->num_rg <= 32767u)
                k += put_int_field(w->lit + k, 1, 4, (int64_t)w->num_rg);
            w->lit[k++] = 0; /* STOP */
            w->lit_len = (uint8_t)k;
            w->rstage = R_DONE;
            break;
        }
        default: *produced = pos; return UPQ_OK;
        }
    }
}

/* Bytes of a varint of v. */
static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80u; v >>= 7)
        n++;
    return n;
}

/*
 * A column's part of its ColumnChunk bound beyond what upq_w_rg_bound counts
 * for every chunk: the path, the statistics' bounds, the bloom filter fields
 * and the level histograms. Counted here, not encoded, so that the dry run
 * does not hold a ColumnChunk and an encoder on the stack while it walks the
 * schema: every field id delta of ColumnMetaData stays below 16, so each
 * field header is one byte.
 */
size_t upq_w_cc_bound(const upq_wcol *c, uint32_t path_len, size_t path_bytes)
{
    /* the common model's path list is empty: a one-byte header */
    size_t b = list_hdr_len(path_len) - 1u + path_bytes;
    b += UPQ_W_STATS_BOUNDS(c->scap);
    if (UPQ_W_IS_GEO(c->elem))
        b += UPQ_W_GEO_BOUND;
    if (UPQ_W_BLOOM(c))
        b += (1u + 10u) + (1u + 5u); /* an i64 and an i32 at their widest */
    if (c->max_rep)
        b += 1 + list_hdr_len((uint32_t)c->max_rep + 1u) + ((size_t)c->max_rep + 1u) * 10u;
    if (c->max_def)
        b += 1 + list_hdr_len((uint32_t)c->max_def + 1u) + ((size_t)c->max_def + 1u) * 10u;
    return b;
}

size_t upq_w_path_bytes(size_t len)
{
    return varint_len(len) + len;
}

size_t upq_w_rg_bound(uint32_t ncols, const upq_writer_opts *o)
{
    size_t b, len = 0;
    uint32_t i;

    /* RowGroup fields around the chunks */
    b = 1 + list_hdr_len(ncols) + 4u * 11u + 4u + 1u;
    if (UPQ_O_NSORT(o)) {
        b += 1 + list_hdr_len(UPQ_O_NSORT(o));
        for (i = 0; i < UPQ_O_NSORT(o); i++) {
            if (upq_thrift_encode(&upq_sorting_column_desc, &o->sorting[i], (uint8_t *)0, 0,
                                  &len) != UPQ_OK)
                return SIZE_MAX;
            b += len;
        }
    }
    /* a chunk: UPQ_W_CC_WORST, counted (not encoded) so that no ColumnChunk
     * and encoder are on the planner's stack */
    if (UPQ_W_CC_WORST > SIZE_MAX / 2u / ((size_t)ncols + 1u))
        return SIZE_MAX;
    return b + (size_t)ncols * UPQ_W_CC_WORST;
}

#if UPQ_WITH_CHUNK_META
size_t upq_w_kv_bound(const upq_writer_opts *o, uint32_t col)
{
    const upq_column_opts *co;
    size_t b = 6u; /* field header and list header at their widest */
    uint32_t i;
    if (!o->columns || col >= o->ncolumns || !o->columns[col].nkv || !o->columns[col].kv)
        return 0;
    co = &o->columns[col];
    for (i = 0; i < co->nkv && b <= SIZE_MAX / 2u; i++) {
        /* two binary fields: header, length varint (at most 5 bytes), bytes; STOP */
        size_t k = (size_t)co->kv[i].key.len + co->kv[i].value.len;
        b += 13u + (k < SIZE_MAX / 4u ? k : SIZE_MAX / 4u);
    }
    return b;
}
#endif

/* ---- the footer ---------------------------------------------------------------- */

upq_status upq_w_tenc_piece(upq_writer *w, const upq_tstruct *d, const void *obj, int *done)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    size_t got = 0;
    upq_status st;
    if (!w->tenc_on) {
        upq_tenc_init(&m->tenc, d, obj);
        w->tenc_on = 1;
    }
    st = upq_tenc_run(&m->tenc, w->win, sizeof w->win, &got);
    if (st < 0)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "metadata cannot be encoded");
    *done = st == UPQ_OK;
    if (*done)
        w->tenc_on = 0;
    upq_w_src(w, w->win, got);
    return UPQ_OK;
}

static upq_status footer_step(upq_writer *w, upq_w_rgs_fn rgs);

/* Bytes of the FileMetaData about to be written, by generating it once
 * without output (the encrypted footer's length comes before it). In
 * checkpoint mode this reads the row groups back, so it may return
 * UPQ_AGAIN and is called again until done (wc->counting stays set). The
 * stages from G_HEAD to G_CEND are footer_step's alone, so this does not
 * come back here. */
static upq_status count_fmd(upq_writer *w, upq_w_rgs_fn rgs, uint32_t *len)
{
    upq_wcrypto *wc = w->wc;
    upq_status st = UPQ_OK;
    if (!wc->counting) {
        w->gstage = G_HEAD;
        w->tenc_on = 0;
        wc->counting = 1;
        wc->counted = 0;
    }
    while (w->gstage != G_CEND) {
        st = footer_step(w, rgs);
        if (st != UPQ_OK)
            break;
        wc->counted += w->src_len;
    }
    if (st == UPQ_AGAIN) {
        w->src_len = w->src_pos = 0; /* counted, never to be written */
        return st;
    }
    wc->counting = 0;
    wc->in_fmd = 0;
    w->src_len = w->src_pos = 0;
    w->tenc_on = 0;
    if (st != UPQ_OK)
        return st < 0 ? st : upq_w_fail(w, UPQ_ERR_STATE, -1, "footer cannot be counted");
    if (wc->counted > UINT32_MAX - 64u)
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "footer larger than 4 GiB");
    *len = (uint32_t)wc->counted;
    return UPQ_OK;
}

/* Sets the next piece of the footer as the source. UPQ_OK, UPQ_DONE when the
 * footer is complete, UPQ_AGAIN (reading back blocked) or an error. */
static upq_status footer_piece(upq_writer *w, upq_w_rgs_fn rgs)
{
    if (UPQ_WITH_CRYPTO && (w->gstage == G_FHEAD || (UPQ_W_WC(w) && w->wc->counting))) {
        /* the encrypted footer's module head: its length counted first */
        uint32_t len = 0;
        upq_status st = count_fmd(w, rgs, &len);
        if (st == UPQ_OK)
            st = upq_wc_stream_begin(w, &w->wc->footer, UPQ_MODULE_FOOTER, -1, len,
                                     UPQ_WS_ENCRYPT);
        if (st != UPQ_OK)
            return st;
        upq_w_src(w, w->wc->head, 16);
        w->gstage = G_HEAD;
        return UPQ_OK;
    }
    return footer_step(w, rgs);
}

void upq_w_rg_gen_start(upq_writer *w)
{
    upq_w_rg_gen_reset(w);
}

void upq_w_footer_begin(upq_writer *w, int tmpl)
{
    w->gtmpl = (uint8_t)tmpl;
    w->tenc_on = 0;
    w->gstage = upq_w_enc_footer(w) && !tmpl ? G_FCM : G_HEAD;
}

static upq_status footer_next(upq_writer *w, upq_w_rgs_fn rgs)
{
    upq_status st = footer_piece(w, rgs);
    if (st == UPQ_OK && UPQ_W_WC(w) && w->wc->in_fmd && w->wc->mode != UPQ_WS_NONE)
        upq_wc_stream_piece(w, (uint8_t *)(uintptr_t)w->src, w->src_len);
    return st;
}

upq_status upq_w_footer_piece(upq_writer *w)
{
    return footer_next(w, (upq_w_rgs_fn)0);
}

#if UPQ_WITH_CHECKPOINT
upq_status upq_w_footer_piece_rgs(upq_writer *w, upq_w_rgs_fn rgs)
{
    return footer_next(w, rgs);
}
#else
/* The checkpoint files are compiled into every writer and left to the
 * linker's --gc-sections where checkpoint mode is off; a link without it
 * must still resolve this call of theirs, which nothing reaches here (the
 * row groups' template is checkpoint mode's). A function of its own, so
 * that footer_next keeps one caller. */
upq_status upq_w_footer_piece_rgs(upq_writer *w, upq_w_rgs_fn rgs)
{
    (void)rgs;
    return upq_w_footer_piece(w);
}
#endif

/* A list<struct> field's header as the next piece: the field's bytes, `k`
 * of them, are in the window; the list header of `n` follows them. */
static upq_status list_piece(upq_writer *w, size_t k, uint32_t n, int next)
{
    k += upq_tc_list_hdr(w->win + k, n, CT_STRUCT);
    upq_w_src(w, w->win, k);
    w->gstage = (uint8_t)next;
    return UPQ_OK;
}

/* The footer's head: version and the schema list's header (and, for a
 * plaintext footer of an encrypted file, the start of its signature). */
static upq_status footer_head(upq_writer *w)
{
    if (!upq_w_enc_footer(w))
        w->footer_start = w->file_pos;
    if (UPQ_W_WC(w) && !G_TEMPLATE(w)) {
        w->wc->in_fmd = 1;
        if (upq_w_signed_footer(w)) {
            upq_status st = upq_wc_stream_begin(w, &w->wc->footer, UPQ_MODULE_FOOTER, -1, 0,
                                                UPQ_WS_SIGN);
            if (st != UPQ_OK)
                return st;
        }
    }
    w->win[0] = 0x15; /* version: i32 1 */
    w->win[1] = 0x02;
    w->win[2] = 0x19; /* schema: list<struct> */
    w->gi = 0;
    return list_piece(w, 3, w->nelems, G_SCHEMA);
}

/* num_rows and the row_groups list's header (the FILE record's template:
 * no rows, and a row group only to carry the sorting columns). */
static upq_status footer_rows(upq_writer *w)
{
    uint64_t rows = G_TEMPLATE(w) ? 0u : w->rows_done;
    uint32_t nrg = G_TEMPLATE(w) ? (UPQ_O_NSORT(&w->o) ? 1u : 0u) : w->num_rg;
    size_t k = put_int_field(w->win, 1, 6, (int64_t)rows);
    w->win[k++] = 0x19; /* row_groups: list<struct> */
    return list_piece(w, k, nrg, G_RGS);
}

#if UPQ_WITH_CHECKPOINT
/* The template row group: no chunks, no rows, only the sorting columns,
 * which are the same in every row group. */
static upq_status footer_template(upq_writer *w)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    int done = 0;
    upq_status st;
    if (!w->tenc_on) {
        upq_memset(&m->rgt, 0, sizeof m->rgt);
        m->rgt.isset = (1u << UPQ_ROW_GROUP_COLUMNS) | (1u << UPQ_ROW_GROUP_TOTAL_BYTE_SIZE) |
                       (1u << UPQ_ROW_GROUP_NUM_ROWS) | (1u << UPQ_ROW_GROUP_SORTING_COLUMNS);
        m->rgt.sorting_columns.v = (upq_sorting_column *)(uintptr_t)w->o.sorting;
        m->rgt.sorting_columns.n = UPQ_O_NSORT(&w->o);
    }
    st = upq_w_tenc_piece(w, &upq_row_group_desc, &m->rgt, &done);
    if (done)
        w->gstage = G_KV0;
    return st;
}
#endif

/* The column orders, as many as the window holds: each ColumnOrder is
 * TYPE_ORDER (field 1 struct), or IEEE_754_TOTAL_ORDER (field 2) for a
 * float column in total order; its STOP, our STOP. */
static upq_status footer_orders(upq_writer *w)
{
    size_t k;
    for (k = 0; w->gi < w->ncols && k + 3 <= sizeof w->win; w->gi++) {
        w->win[k++] = UPQ_WITH_STATISTICS && w->cols[w->gi].order >= UPQ_SO_F32T ? 0x2C : 0x1C;
        w->win[k++] = 0;
        w->win[k++] = 0;
    }
    if (w->gi == w->ncols) {
        w->gstage = upq_w_signed_footer(w) && !G_TEMPLATE(w) ? G_ALG : G_STOP;
        w->gi = 0;
    }
    upq_w_src(w, w->win, k);
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
/* A signed plaintext footer's encryption_algorithm (field 8, struct: the
 * union, encoded whole). */
static upq_status footer_alg(upq_writer *w)
{
    int done = 0;
    upq_status st;
    if (w->gi == 0) {
        w->win[0] = 0x1C;
        upq_w_src(w, w->win, 1);
        w->gi = 1;
        return UPQ_OK;
    }
    st = upq_w_tenc_piece(w, &upq_encryption_algorithm_desc, &w->wc->alg, &done);
    if (done) {
        w->gstage = G_SIGNKEY;
        w->gi = 0;
    }
    return st;
}

/* The encrypted footer's tag, or the plaintext footer's signature (nonce
 * and tag), right after the FileMetaData. */
static upq_status footer_seal_end(upq_writer *w)
{
    w->wc->in_fmd = 0;
    w->gstage = G_TAIL;
    if (upq_w_signed_footer(w)) {
        upq_memcpy(w->win, w->wc->head + 4, 12);
        upq_wc_stream_tag(w, w->win + 12);
        upq_w_src(w, w->win, 28);
    } else {
        upq_wc_stream_tag(w, w->win);
        upq_w_src(w, w->win, 16);
    }
    return UPQ_OK;
}

/* An encrypted footer's FileCryptoMetaData, ahead of the module. */
static upq_status footer_fcm(upq_writer *w)
{
    int done = 0;
    upq_status st;
    if (!w->tenc_on)
        w->footer_start = w->file_pos;
    st = upq_w_tenc_piece(w, &upq_file_crypto_metadata_desc, &w->wc->fcm, &done);
    if (done)
        w->gstage = G_FHEAD;
    return st;
}
#endif

/* The footer's length and magic. */
static upq_status footer_tail(upq_writer *w)
{
    uint64_t len = w->file_pos - w->footer_start;
    if (len > UINT32_MAX)
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "footer larger than 4 GiB");
    upq_store_le32(w->win, (uint32_t)len);
    upq_memcpy(w->win + 4, upq_w_enc_footer(w) ? "PARE" : "PAR1", 4);
    upq_w_src(w, w->win, 8);
    w->gstage = G_DONE;
    return UPQ_OK;
}

/* Every footer stage but G_FHEAD. */
static upq_status footer_step(upq_writer *w, upq_w_rgs_fn rgs)
{
    int done = 0;
    size_t k;
    upq_status st;
    for (;;) {
        switch (w->gstage) {
        case G_HEAD: return footer_head(w);
        case G_SCHEMA:
            if (w->gi == w->nelems) {
                w->gstage = G_ROWS;
                continue;
            }
            st = upq_w_tenc_piece(w, &upq_schema_element_desc, &w->elems[w->gi], &done);
            if (done)
                w->gi++;
            return st;
        case G_ROWS: return footer_rows(w);
        case G_RGS:
            if (G_TEMPLATE(w)) {
                w->gstage = UPQ_O_NSORT(&w->o) ? G_TMPL : G_KV0;
                continue;
            }
            if (UPQ_W_AT(w)) {
                if (!rgs)
                    return UPQ_ERR_STATE;
                st = rgs(w, 1);
                if (st != UPQ_OK)
                    return st;
                w->gstage = G_JRGS;
                continue;
            }
            upq_w_src(w, w->log, w->log_used);
            w->gstage = G_KV0;
            return UPQ_OK;
#if UPQ_WITH_CHECKPOINT
        case G_JRGS:
            /* the caller's source (the finisher describes each row group
             * again from the file) */
            if (!rgs)
                return UPQ_ERR_STATE;
            st = rgs(w, 0);
            if (st != UPQ_DONE)
                return st;
            w->gstage = G_KV0;
            continue;
        case G_TMPL: return footer_template(w);
#endif
        case G_KV0:
            w->gi = 0;
            if (w->o.nkv) {
                w->win[0] = 0x19; /* key_value_metadata */
                return list_piece(w, 1, w->o.nkv, G_KV);
            }
            w->gstage = G_CREATED;
            continue;
        case G_KV:
            if (w->gi == w->o.nkv) {
                w->gstage = G_CREATED;
                continue;
            }
            st = upq_w_tenc_piece(w, &upq_key_value_desc, &w->o.kv[w->gi], &done);
            if (done)
                w->gi++;
            return st;
        case G_CREATED:
            w->win[0] = w->o.nkv ? 0x18 : 0x28; /* created_by: binary */
            k = 1 + upq_tc_varint(w->win + 1, sizeof CREATED_BY - 1);
            upq_memcpy(w->win + k, CREATED_BY, sizeof CREATED_BY - 1);
            upq_w_src(w, w->win, k + sizeof CREATED_BY - 1);
            w->gstage = G_ORDERS;
            return UPQ_OK;
        case G_ORDERS:
            w->win[0] = 0x19; /* column_orders: list<ColumnOrder> */
            w->gi = 0;
            return list_piece(w, 1, w->ncols, G_ORDER_ITEMS);
        case G_ORDER_ITEMS: return footer_orders(w);
#if UPQ_WITH_CRYPTO
        case G_ALG: return footer_alg(w);
        case G_SIGNKEY: { /* field 9, binary */
            const upq_encrypt_opts *e = w->o.encrypt;
            if (!e->footer_key_metadata_len) {
                w->gstage = G_STOP;
                continue;
            }
            if (w->gi == 0) {
                w->win[0] = 0x18;
                k = 1 + upq_tc_varint(w->win + 1, e->footer_key_metadata_len);
                upq_w_src(w, w->win, k);
                w->gi = 1;
                return UPQ_OK;
            }
            upq_w_src(w, e->footer_key_metadata, e->footer_key_metadata_len);
            w->gstage = G_STOP;
            return UPQ_OK;
        }
#endif
        case G_STOP:
            w->win[0] = 0;
            upq_w_src(w, w->win, 1);
            w->gstage = G_TEMPLATE(w) ? G_DONE : UPQ_W_WC(w) ? G_CEND : G_TAIL;
            return UPQ_OK;
#if UPQ_WITH_CRYPTO
        case G_CEND: return footer_seal_end(w);
#endif
        case G_TAIL: return footer_tail(w);
#if UPQ_WITH_CRYPTO
        case G_FCM: return footer_fcm(w);
#endif
        default: return UPQ_DONE;
        }
    }
}

#endif /* UPQ_WITH_WRITER */
