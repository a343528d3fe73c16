/*
 * Reading a column chunk's page index: the OffsetIndex or ColumnIndex
 * module is read whole into the reader's arena (one read_at call when the
 * callback gives it all), decrypted in place when the column is encrypted
 * (upq_crypto_decrypt_module authenticates before it writes plaintext),
 * decoded with the meta.h descriptors, then checked against the chunk so
 * a caller never follows an offset outside it. Resumable: the only stage
 * that waits is the read, and it keeps its place in upq_page_index.
 */
#include "uparquet/page_index.h"
#include "uparquet/column.h"
#include "uparquet/crypto.h"
#include "uparquet/stats.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "crypto/crypto_int.h"
#include "reader_int.h"
#include "upq_aes.h"

#if UPQ_WITH_PAGE_INDEX

enum { PI_NONE = 0, PI_READ, PI_READY, PI_FAILED };

static upq_status pfail(upq_page_index *p, upq_status st, uint64_t off, const char *what,
                        int32_t page)
{
    upq_reader_set_error(p->r, st, off, what, (int32_t)p->rg, (int32_t)p->col, page);
    p->r->err.in_struct =
        p->kind == UPQ_PAGE_INDEX_OFFSET ? UPQ_MSG("OffsetIndex") : UPQ_MSG("ColumnIndex");
    p->stage = PI_FAILED;
    return st;
}

upq_status upq_page_index_open(upq_page_index *p, upq_reader *r, uint32_t rg, uint32_t column,
                               upq_page_index_kind kind)
{
    const upq_column_chunk *ch = upq_reader_chunk(r, rg, column);
    const upq_column_metadata *m;
    int64_t off, start;
    int32_t len;
    int has;

    upq_memset(p, 0, sizeof *p);
    p->r = r;
    p->rg = rg;
    p->col = column;
    p->kind = (uint8_t)kind;
    p->mark = upq_arena_save(&r->arena);
    if (!ch)
        return pfail(p, UPQ_ERR_INVAL, UINT64_MAX, UPQ_MSG("no such column chunk (or not projected)"), -1);
    if (kind == UPQ_PAGE_INDEX_OFFSET) {
        has = UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET) &&
              UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH);
        off = ch->offset_index_offset;
        len = ch->offset_index_length;
    } else {
        has = UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET) &&
              UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH);
        off = ch->column_index_offset;
        len = ch->column_index_length;
    }
    if (!has) {
        p->stage = PI_NONE;
        return UPQ_DONE;
    }
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) ||
        (UPQ_WITH_CRYPTO && upq_reader_implicit_crypto(r))) {
        /* the key first, as the column reader takes it: the column's
         * metadata (and so its byte range) may be encrypted with it */
        const char *what;
        upq_status st = upq_reader_chunk_key(r, rg, column, p->mark, &p->key, &what);
        if (st != UPQ_OK)
            return pfail(p, st, UINT64_MAX, what, -1);
        p->rg_ord = upq_reader_rg_ordinal(r, rg);
    }
    if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA))
        return pfail(p, UPQ_ERR_CORRUPT, UINT64_MAX, UPQ_MSG("column chunk without metadata"), -1);
    m = &ch->meta_data;
    start = m->data_page_offset;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    if (start < 4 || m->total_compressed_size < 0 || (uint64_t)start > r->footer_start ||
        (uint64_t)m->total_compressed_size > r->footer_start - (uint64_t)start)
        return pfail(p, UPQ_ERR_CORRUPT, UINT64_MAX, UPQ_MSG("column chunk outside the file's data"), -1);
    p->chunk_start = (uint64_t)start;
    p->chunk_end = (uint64_t)start + (uint64_t)m->total_compressed_size;
    p->num_rows = upq_reader_row_group(r, rg)->num_rows; /* there: ch is */
    if (off < 4 || len <= 0 || (uint64_t)off >= r->footer_start ||
        (uint64_t)len > r->footer_start - (uint64_t)off)
        return pfail(p, UPQ_ERR_CORRUPT, off < 0 ? UINT64_MAX : (uint64_t)off,
                     UPQ_MSG("page index offset or length outside the file's data"), -1);
    if ((uint32_t)len > UPQ_PAGE_INDEX_MAX_MODULE)
        return pfail(p, UPQ_ERR_LIMIT, (uint64_t)off, UPQ_MSG("page index larger than UPQ_PAGE_INDEX_MAX_MODULE (a build option, 64 MiB)"), -1);
    p->off = (uint64_t)off;
    p->len = (uint32_t)len;
    p->stage = PI_READ;
    return UPQ_OK;
}

upq_status upq_offset_index_check(const upq_offset_index *oi, uint64_t chunk_start,
                                  uint64_t chunk_end, int64_t num_rows, const char **what,
                                  int32_t *page)
{
    const upq_page_location *l = oi->page_locations.v;
    uint32_t i, n = oi->page_locations.n;
    *page = -1;
    if (n == 0) {
        *what = UPQ_MSG("page index lists no pages");
        return UPQ_ERR_CORRUPT;
    }
    if (UPQ_ISSET(*oi, UPQ_OFFSET_INDEX_UNENCODED_BYTE_ARRAY_DATA_BYTES) &&
        oi->unencoded_byte_array_data_bytes.n != n) {
        *what = UPQ_MSG("unencoded_byte_array_data_bytes count differs from the page count");
        return UPQ_ERR_CORRUPT;
    }
    for (i = 0; i < n; i++) {
        *page = (int32_t)i;
        if (l[i].offset < 0 || (uint64_t)l[i].offset < chunk_start || l[i].compressed_page_size <= 0 ||
            (uint64_t)l[i].offset >= chunk_end ||
            (uint64_t)l[i].compressed_page_size > chunk_end - (uint64_t)l[i].offset) {
            *what = UPQ_MSG("page location outside its column chunk");
            return UPQ_ERR_CORRUPT;
        }
        if (i == 0 && l[i].first_row_index != 0) {
            *what = UPQ_MSG("first page's first_row_index is not 0");
            return UPQ_ERR_CORRUPT;
        }
        if (i > 0 && (uint64_t)l[i].offset <
                         (uint64_t)l[i - 1].offset + (uint64_t)l[i - 1].compressed_page_size) {
            *what = UPQ_MSG("page locations unsorted or overlapping");
            return UPQ_ERR_CORRUPT;
        }
        if (i > 0 && l[i].first_row_index <= l[i - 1].first_row_index) {
            *what = UPQ_MSG("first_row_index not strictly increasing");
            return UPQ_ERR_CORRUPT;
        }
        if (l[i].first_row_index >= num_rows) {
            *what = UPQ_MSG("first_row_index beyond the row group's rows");
            return UPQ_ERR_CORRUPT;
        }
    }
    /* the data pages end the chunk: an index that stops short misses pages */
    *page = (int32_t)(n - 1);
    if ((uint64_t)l[n - 1].offset + (uint64_t)l[n - 1].compressed_page_size != chunk_end) {
        *what = UPQ_MSG("page locations do not reach the column chunk's end");
        return UPQ_ERR_CORRUPT;
    }
    *page = -1;
    return UPQ_OK;
}

upq_status upq_column_index_check(const upq_column_index *ci, uint32_t pages, uint16_t max_rep,
                                  uint16_t max_def, const char **what)
{
    uint64_t nrep = (uint64_t)pages * ((uint64_t)max_rep + 1u);
    uint64_t ndef = (uint64_t)pages * ((uint64_t)max_def + 1u);
    if (ci->null_pages.n != pages || ci->min_values.n != pages || ci->max_values.n != pages) {
        *what = UPQ_MSG("column index lists differ from the page count");
        return UPQ_ERR_CORRUPT;
    }
    if ((UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) && ci->null_counts.n != pages) ||
        (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NAN_COUNTS) && ci->nan_counts.n != pages)) {
        *what = UPQ_MSG("column index counts differ from the page count");
        return UPQ_ERR_CORRUPT;
    }
    if (ci->boundary_order < UPQ_BOUNDARY_UNORDERED || ci->boundary_order > UPQ_BOUNDARY_DESCENDING) {
        *what = UPQ_MSG("unknown boundary_order");
        return UPQ_ERR_CORRUPT;
    }
    if ((UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_REPETITION_LEVEL_HISTOGRAMS) &&
         ci->repetition_level_histograms.n != nrep) ||
        (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_DEFINITION_LEVEL_HISTOGRAMS) &&
         ci->definition_level_histograms.n != ndef)) {
        *what = UPQ_MSG("level histogram length is not pages x (max level + 1)");
        return UPQ_ERR_CORRUPT;
    }
    return UPQ_OK;
}

/* ---- a ColumnIndex against its chunk, before it is trusted ---------------- */

typedef struct ci_ctx {
    const upq_column_index *ci;
    const upq_column_desc *cd;
    int order;          /* the bounds' order, UPQ_STAT_ORDER_NONE: not compared */
    const char **what;
} ci_ctx;

static upq_status ci_bad(ci_ctx *x, const char *what)
{
    *x->what = what;
    return UPQ_ERR_CORRUPT;
}

/* The bytes a bound of this physical type takes (0: any length; a
 * FIXED_LEN_BYTE_ARRAY bound may be cut short, never longer). */
static uint32_t bound_width(const upq_column_desc *cd)
{
    /* a fixed-width value's plain bytes are its decoded size */
    if (cd->physical_type == UPQ_TYPE_BYTE_ARRAY || cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return 0;
    return (uint32_t)upq_value_size(cd->physical_type);
}

static int bound_fits(const upq_column_desc *cd, const upq_bytes *v)
{
    uint32_t w = bound_width(cd);
    if (cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return v->len <= (uint32_t)cd->type_length;
    return w == 0 || v->len == w;
}

/* Decodes page i's bound (min: as_max 0) in the column's order; 0 when it
 * does not decode or is a NaN (it then bounds nothing to compare). */
static int ci_bound(const ci_ctx *x, uint32_t i, int as_max, upq_stat_value *v)
{
    const upq_bytes *b = as_max ? &x->ci->max_values.v[i] : &x->ci->min_values.v[i];
    if (x->order == UPQ_STAT_ORDER_NONE)
        return 0;
    return upq_stats_decode_value(x->order, x->cd->type_length, b->ptr, b->len,
                                  as_max ? UPQ_STAT_AS_MAX : UPQ_STAT_AS_MIN, v) == UPQ_OK &&
           !upq_stat_is_nan(v);
}

/* Page i's own entries: null page, widths, min <= max, counts within its rows. */
static upq_status ci_page(ci_ctx *x, uint32_t i, uint64_t rows)
{
    const upq_column_index *ci = x->ci;
    int flat = x->cd->max_rep == 0, c;
    if (ci->null_pages.v[i] && (ci->min_values.v[i].len || ci->max_values.v[i].len))
        return ci_bad(x, UPQ_MSG("a null page with min/max"));
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS)) {
        int64_t nc = ci->null_counts.v[i];
        if (nc < 0 || (flat && (uint64_t)nc > rows))
            return ci_bad(x, UPQ_MSG("a page's null count outside its rows"));
        if (ci->null_pages.v[i] && (uint64_t)nc < rows)
            return ci_bad(x, UPQ_MSG("a null page with fewer nulls than rows"));
    }
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NAN_COUNTS) &&
        (ci->nan_counts.v[i] < 0 || (flat && (uint64_t)ci->nan_counts.v[i] > rows)))
        return ci_bad(x, UPQ_MSG("a page's NaN count outside its rows"));
    if (ci->null_pages.v[i])
        return UPQ_OK;
    if (!bound_fits(x->cd, &ci->min_values.v[i]) || !bound_fits(x->cd, &ci->max_values.v[i]))
        return ci_bad(x, UPQ_MSG("min/max of the wrong width for the column's type"));
    {
        upq_stat_value mn, mx;
        if (ci_bound(x, i, 0, &mn) && ci_bound(x, i, 1, &mx) && upq_stat_cmp(&mn, &mx, &c) &&
            c > 0)
            return ci_bad(x, UPQ_MSG("a page's min above its max"));
    }
    return UPQ_OK;
}

/* Level histograms against the page's rows and null count: every row starts
 * with repetition level 0; a flat column has one definition level per row
 * and a null for each below the maximum. */
static upq_status ci_hist(ci_ctx *x, uint32_t i, uint64_t rows)
{
    const upq_column_index *ci = x->ci;
    const upq_column_desc *cd = x->cd;
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_REPETITION_LEVEL_HISTOGRAMS) && cd->max_rep > 0 &&
        ci->repetition_level_histograms.v[(size_t)i * (cd->max_rep + 1u)] != (int64_t)rows)
        return ci_bad(x, UPQ_MSG("a page's repetition level histogram disagrees with its rows"));
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_DEFINITION_LEVEL_HISTOGRAMS) && cd->max_rep == 0 &&
        cd->max_def > 0) {
        const int64_t *h = &ci->definition_level_histograms.v[(size_t)i * (cd->max_def + 1u)];
        uint64_t sum = 0, below = 0;
        uint32_t k;
        for (k = 0; k <= cd->max_def; k++) {
            if (h[k] < 0)
                return ci_bad(x, UPQ_MSG("a negative level count"));
            sum += (uint64_t)h[k];
            if (k < cd->max_def)
                below += (uint64_t)h[k];
        }
        if (sum != rows)
            return ci_bad(x, UPQ_MSG("a page's definition level histogram disagrees with its rows"));
        if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) && (uint64_t)ci->null_counts.v[i] != below)
            return ci_bad(x, UPQ_MSG("a page's null count disagrees with its level histogram"));
    }
    return UPQ_OK;
}

/* The pages' bounds in the boundary order the index declares (null pages
 * left out): *prev is the last non-null page, UPQ_NONE before the first. */
static upq_status ci_order(ci_ctx *x, uint32_t i, uint32_t *prev)
{
    upq_stat_value a, b;
    int c, sign = x->ci->boundary_order == UPQ_BOUNDARY_ASCENDING ? 1 : -1, k;
    if (x->ci->null_pages.v[i])
        return UPQ_OK;
    if (*prev != UPQ_NONE && x->ci->boundary_order != UPQ_BOUNDARY_UNORDERED) {
        for (k = 0; k < 2; k++)
            if (ci_bound(x, *prev, k, &a) && ci_bound(x, i, k, &b) && upq_stat_cmp(&a, &b, &c) &&
                c * sign > 0)
                return ci_bad(x, UPQ_MSG("bounds out of the declared boundary order"));
    }
    *prev = i;
    return UPQ_OK;
}

upq_status upq_column_index_verify(const upq_reader *r, uint32_t rg, uint32_t column,
                                   const upq_offset_index *oi, const upq_column_index *ci,
                                   const char **what, int32_t *page)
{
    const upq_row_group *g = upq_reader_row_group(r, rg);
    uint32_t i, pages = oi->page_locations.n, prev = UPQ_NONE;
    uint64_t nulls = 0;
    unsigned flags = 0;
    upq_column_stats cs;
    ci_ctx x;
    upq_status st;
    *page = -1;
    if (!g || column >= r->schema.num_columns) {
        *what = UPQ_MSG("no such column chunk");
        return UPQ_ERR_INVAL;
    }
    x.ci = ci;
    x.cd = &r->schema.columns[column];
    x.what = what;
    x.order = upq_stats_column_order(&r->meta, &r->schema, column, &flags, (uint8_t *)0);
    if (flags & UPQ_STAT_TOTAL_ORDER)
        x.order = UPQ_STAT_ORDER_NONE; /* bounds in another order than upq_stat_cmp's */
    st = upq_column_index_check(ci, pages, x.cd->max_rep, x.cd->max_def, what);
    if (st != UPQ_OK)
        return st;
    for (i = 0; i < pages; i++) {
        uint64_t a = (uint64_t)oi->page_locations.v[i].first_row_index;
        uint64_t b = i + 1 < pages ? (uint64_t)oi->page_locations.v[i + 1].first_row_index
                                   : (uint64_t)g->num_rows;
        *page = (int32_t)i;
        st = ci_page(&x, i, b - a);
        if (st == UPQ_OK)
            st = ci_hist(&x, i, b - a);
        if (st == UPQ_OK)
            st = ci_order(&x, i, &prev);
        if (st != UPQ_OK)
            return st;
        if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS))
            nulls += (uint64_t)ci->null_counts.v[i];
    }
    *page = -1;
    if (UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS) &&
        upq_reader_column_stats(r, rg, column, &cs) == UPQ_OK && cs.has_null_count &&
        (cs.null_count < 0 || (uint64_t)cs.null_count != nulls))
        return ci_bad(&x, UPQ_MSG("null counts disagree with the chunk's statistics"));
    return UPQ_OK;
}

uint32_t upq_offset_index_find(const upq_offset_index *oi, uint64_t row)
{
    uint32_t lo = 0, hi = oi->page_locations.n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)oi->page_locations.v[mid].first_row_index <= row)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The module is in p->buf: decrypt, decode, check. */
static upq_status decode_module(upq_page_index *p)
{
    upq_reader *r = p->r;
    uint8_t *plain = p->buf;
    size_t plain_len = p->len;
    const char *what = "";
    int32_t page = -1;
    upq_status st;
    if (UPQ_WITH_CRYPTO && p->key) {
        int module = p->kind == UPQ_PAGE_INDEX_OFFSET ? UPQ_MODULE_OFFSET_INDEX : UPQ_MODULE_COLUMN_INDEX;
        st = upq_crypto_decrypt_module(&r->fc, p->key, module, p->rg_ord, (int32_t)p->col, -1, p->buf,
                                       p->len, &plain, &plain_len);
        if (st != UPQ_OK)
            return pfail(p, st, p->off,
                         st == UPQ_ERR_AUTH ? UPQ_MSG("page index module fails authentication")
                         : st == UPQ_ERR_LIMIT ? UPQ_MSG("row group or column ordinal beyond 32767")
                                               : UPQ_MSG("page index module framing disagrees with its length"),
                         -1);
    }
    /* bytes after the struct (encrypted: authenticated padding) are ignored */
    if (p->kind == UPQ_PAGE_INDEX_OFFSET)
        st = upq_thrift_decode(&upq_offset_index_desc, &p->oi, &r->arena, plain, plain_len,
                               (size_t *)0, &r->opts.limits);
    else
        st = upq_thrift_decode(&upq_column_index_desc, &p->ci, &r->arena, plain, plain_len,
                               (size_t *)0, &r->opts.limits);
    if (st != UPQ_OK)
        return pfail(p, st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st, p->off,
                     st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the page index")
                     : st == UPQ_ERR_LIMIT ? UPQ_MSG("page index exceeds a decoding limit")
                                           : UPQ_MSG("malformed page index"),
                     -1);
    if (p->kind == UPQ_PAGE_INDEX_OFFSET) {
        st = upq_offset_index_check(&p->oi, p->chunk_start, p->chunk_end, p->num_rows, &what, &page);
    } else {
        const upq_column_desc *cd = &r->schema.columns[p->col];
        /* the page count is the OffsetIndex's; alone, null_pages gives it */
        st = upq_column_index_check(&p->ci, p->ci.null_pages.n, cd->max_rep, cd->max_def, &what);
    }
    if (st != UPQ_OK)
        return pfail(p, st, p->off, what, page);
    return UPQ_OK;
}

upq_status upq_page_index_load(upq_page_index *p)
{
    upq_status st = upq_loader_settled(p->r, p->stage, PI_READY, PI_NONE, PI_FAILED);
    if (st != UPQ_AGAIN)
        return st;
    if (!p->buf) {
        p->buf = (uint8_t *)upq_arena_alloc(&p->r->arena, p->len);
        if (!p->buf)
            return pfail(p, UPQ_ERR_NOMEM, p->off, UPQ_MSG("arena too small for the page index"), -1);
    }
    while (p->fill < p->len) {
        size_t got = 0;
        const char *what = "";
        uint64_t at = p->off + p->fill;
        st = upq_io_read(&p->r->io, at, p->buf + p->fill, p->len - p->fill, &got, &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return pfail(p, st, at, what, -1);
        p->fill += (uint32_t)got;
    }
    st = decode_module(p);
    if (st == UPQ_OK)
        p->stage = PI_READY;
    return st;
}

const upq_offset_index *upq_page_index_offsets(const upq_page_index *p)
{
    return p->stage == PI_READY && p->kind == UPQ_PAGE_INDEX_OFFSET ? &p->oi : (const upq_offset_index *)0;
}

const upq_column_index *upq_page_index_columns(const upq_page_index *p)
{
    return p->stage == PI_READY && p->kind == UPQ_PAGE_INDEX_COLUMN ? &p->ci : (const upq_column_index *)0;
}

void upq_page_index_close(upq_page_index *p)
{
    if (p->r) {
        if (UPQ_WITH_CRYPTO && p->key && p->key != p->r->footer_key)
            upq_aes_wipe((upq_aes_key *)(uintptr_t)p->key);
        upq_arena_rewind(&p->r->arena, p->mark);
    }
    p->stage = PI_NONE;
}

#endif /* UPQ_WITH_PAGE_INDEX */
