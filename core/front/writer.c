/*
 * The writer's front: setup and sizing, the row-wise and column-wise calls,
 * the page staging and dictionaries, and the bookkeeping of rows.
 *
 * Rows. Each column counts the complete rows it has taken in the current row
 * group (`rows`). The rows every column has (w->rs, the minimum, capped at
 * row_group_rows) are "committed": only they may go into pages, so a row
 * group can always end at w->rs, and rows a column has beyond it (it was
 * written ahead, or a row-wise row is being set) stay in its staging and
 * move to the next row group. A page is the committed prefix of the staging.
 *
 * Room. Every column keeps enough free chunk buffer for one more page of a
 * full staging (c->worst). A page that would leave less ends the row group
 * at w->rs right away, so the last pages of all columns always fit.
 *
 * Dictionaries take values as they are staged; when one is full, the
 * committed pages before it are finished with the dictionary and the rest of
 * the chunk uses the column's other encoding. Indices are looked up again
 * when a page is encoded, so the staging holds only values.
 */
#include "front.h"
#include "write/geo.h"

#if UPQ_WITH_WRITER

#define DEFAULT_PAGE 8192u
#define MIN_PAGE 64u
#define DEFAULT_STATS_BINARY 64u
#define MAX_DICT_ENTRIES 65534u
#define DEFAULT_BLOOM_MAX (1u << 20)
#define DEFAULT_BLOOM_NDV 65536u
#define DEFAULT_BLOOM_FPP 0.01
#define DEFAULT_RG_ROWS 65536u

/* ---- errors --------------------------------------------------------------- */

/* A setup error: the writer's (init), or only returned (a plan). */
static UPQ_NOINLINE upq_status sfail_(const upq_wset *s, upq_status st, int32_t column UPQ_W_WHAT_PARAM)
{
    return s->owner ? upq_w_fail_(s->owner, st, column UPQ_W_WHAT(UPQ_W_WHAT_VALUE)) : st;
}
#define sfail(s, st, column, what) sfail_(s, st, column UPQ_W_WHAT(what))

/* An input error: reported, but the writer stays usable (nothing was taken). */
#define bad_input(w, st, column, what) upq_w_refuse(w, st, column, what)

/* ---- the schema's leaves ---------------------------------------------------- */

/* The open groups: each one's element and children still to come; the
 * levels are the innermost one's, undone as it closes (a group's own levels
 * follow from its repetition type), so that the walk's stack stays small. */
typedef struct leaf_iter {
    const upq_schema_element *e;
    uint32_t n, i, depth;
    uint16_t def, rep;
    uint32_t idx[UPQ_SCHEMA_MAX_DEPTH + 1], left[UPQ_SCHEMA_MAX_DEPTH + 1];
} leaf_iter;

static upq_status leaf_begin(leaf_iter *it, const upq_schema_element *e, uint32_t n)
{
    /* what the walk reads before it writes: the open groups' entries are
     * set as each one opens */
    it->e = e;
    it->n = n;
    it->def = it->rep = 0;
    it->idx[0] = 0;
    if (n < 2 || UPQ_ISSET(e[0], UPQ_SCHEMA_ELEMENT_TYPE) || !UPQ_ISSET(e[0], UPQ_SCHEMA_ELEMENT_NAME) ||
        !UPQ_ISSET(e[0], UPQ_SCHEMA_ELEMENT_NUM_CHILDREN) || e[0].num_children < 1)
        return UPQ_ERR_INVAL;
    it->left[0] = (uint32_t)e[0].num_children;
    it->depth = 1;
    it->i = 1;
    return UPQ_OK;
}

/* The next leaf: UPQ_OK with *leaf and its levels, UPQ_DONE after the last,
 * UPQ_ERR_INVAL for a malformed list (UPQ_ERR_LIMIT: nested too deeply). */
static UPQ_NOINLINE upq_status leaf_next(leaf_iter *it, uint32_t *leaf, uint16_t *def, uint16_t *rep)
{
    for (;;) {
        const upq_schema_element *x;
        uint16_t d, r;
        int32_t rt;
        while (it->depth > 0 && it->left[it->depth - 1] == 0) {
            /* closing the root (idx 0) ends the walk: its levels are not used */
            int32_t gt = it->e[it->idx[--it->depth]].repetition_type;
            it->def = (uint16_t)(it->def - (gt != UPQ_REP_REQUIRED));
            it->rep = (uint16_t)(it->rep - (gt == UPQ_REP_REPEATED));
        }
        if (it->i >= it->n)
            return it->depth == 0 ? UPQ_DONE : UPQ_ERR_INVAL;
        if (it->depth == 0)
            return UPQ_ERR_INVAL; /* elements after the root's children */
        x = &it->e[it->i];
        if (!UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_NAME))
            return UPQ_ERR_INVAL; /* a required field of the footer */
        it->left[it->depth - 1]--;
        rt = x->repetition_type;
        if (!UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_REPETITION_TYPE) || rt < UPQ_REP_REQUIRED ||
            rt > UPQ_REP_REPEATED)
            return UPQ_ERR_INVAL;
        d = (uint16_t)(it->def + (rt != UPQ_REP_REQUIRED));
        r = (uint16_t)(it->rep + (rt == UPQ_REP_REPEATED));
        if (d > 255 || r > 255)
            return UPQ_ERR_LIMIT;
        if (!UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_TYPE)) {
            if (!UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN) || x->num_children < 1 ||
                (uint32_t)x->num_children > it->n - it->i - 1)
                return UPQ_ERR_INVAL; /* empty groups are not readable everywhere */
            if (it->depth > UPQ_SCHEMA_MAX_DEPTH)
                return UPQ_ERR_LIMIT;
            it->idx[it->depth] = it->i;
            it->left[it->depth] = (uint32_t)x->num_children;
            it->def = d;
            it->rep = r;
            it->depth++;
            it->i++;
            continue;
        }
        if (UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN) && x->num_children > 0)
            return UPQ_ERR_INVAL; /* a typed group */
        if (x->type < UPQ_TYPE_BOOLEAN || x->type > UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ||
            (x->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY &&
             (!UPQ_ISSET(*x, UPQ_SCHEMA_ELEMENT_TYPE_LENGTH) || x->type_length < 1)))
            return UPQ_ERR_INVAL;
        *leaf = it->i++;
        *def = d;
        *rep = r;
        return UPQ_OK;
    }
}

/* Path names and the definition level of each repeated ancestor of the leaf
 * just returned (path: depth entries, rep_def: max_rep + 1 entries). */
static void leaf_path(const leaf_iter *it, uint32_t leaf, uint16_t def, uint16_t rep,
                      upq_bytes *path, uint16_t *rep_def)
{
    uint32_t k, p = 0;
    uint16_t d = 0, r = 0;
    rep_def[0] = 0;
    for (k = 1; k < it->depth; k++) {
        const upq_schema_element *g = &it->e[it->idx[k]];
        path[p++] = g->name;
        d = (uint16_t)(d + (g->repetition_type != UPQ_REP_REQUIRED));
        if (g->repetition_type == UPQ_REP_REPEATED)
            rep_def[++r] = d;
    }
    path[p] = it->e[leaf].name;
    if (it->e[leaf].repetition_type == UPQ_REP_REPEATED)
        rep_def[rep] = def;
}

/* Encoded bytes of the path names of the leaf just returned. */
static size_t leaf_path_bytes(const leaf_iter *it, uint32_t leaf)
{
    size_t b = upq_w_path_bytes(it->e[leaf].name.len);
    uint32_t k;
    for (k = 1; k < it->depth; k++)
        b += upq_w_path_bytes(it->e[it->idx[k]].name.len);
    return b;
}

/* ---- sizing ------------------------------------------------------------------- */

/* Bytes one staged value takes (0: BYTE_ARRAY, variable). */
static UPQ_NOINLINE uint32_t staged_width(int32_t type, int32_t type_length)
{
    switch (type) {
    case UPQ_TYPE_BOOLEAN: return 1;
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: return 4;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: return 8;
    case UPQ_TYPE_INT96: return 12;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return (uint32_t)type_length;
    default: return 0;
    }
}

static int is_dict_enc(int32_t e)
{
    return e == UPQ_ENC_PLAIN_DICTIONARY || e == UPQ_ENC_RLE_DICTIONARY;
}

/* Copies a value's bytes into the staging: inline on 64-bit hosts (most
 * values are short, and a call per value cost more than the copy there);
 * elsewhere upq_memcpy, which copies short values a word at a time where
 * the core loads any address. */
UPQ_INLINE void copy_value(uint8_t *d, const uint8_t *s, uint32_t n)
{
#if UPQ_UNALIGNED_WORDS
    for (; n >= 8; n -= 8, d += 8, s += 8)
        upq_copy8(d, s);
    for (; n; n--)
        *d++ = *s++;
#else
    if (n)
        upq_memcpy(d, s, n);
#endif
}

/* Defaults of the sizes a valid page_size leaves open. */
static void size_defaults(upq_writer_opts *o)
{
    if (o->page_levels == 0)
        o->page_levels = o->page_size / 4u;
    if (o->page_levels < 8)
        o->page_levels = 8;
    if (o->page_levels > 65535u)
        o->page_levels = 65535u;
    if (o->dict_size == 0)
        o->dict_size = o->page_size;
    /* defaults only the options' own modules read */
    if ((UPQ_WITH_STATISTICS || UPQ_WITH_CRYPTO) && o->stats_max_binary == 0)
        o->stats_max_binary = DEFAULT_STATS_BINARY;
    if ((UPQ_WITH_STATISTICS || UPQ_WITH_CRYPTO) && o->stats_max_binary > (1u << 20))
        o->stats_max_binary = 1u << 20;
    if (UPQ_WITH_BLOOM && o->bloom_max_bytes == 0)
        o->bloom_max_bytes = DEFAULT_BLOOM_MAX;
}

/* Fills in defaults and checks the options. */
static upq_status configure(upq_wset *w, const upq_writer_opts *in)
{
    upq_writer_opts *o = w->o;
    if (in)
        upq_memcpy(o, in, sizeof *o);
    if (o->codec != UPQ_CODEC_UNCOMPRESSED &&
        (!UPQ_W_CAN_COMPRESS || upq_compress_bound(o->codec, 1) == 0))
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     o->codec == UPQ_CODEC_ZSTD
                         ? "ZSTD compression is not available (this build only decompresses it)"
                         : "codec not available for writing in this build");
    if (!UPQ_WITH_DIRECT && o->direct)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "direct mode is not in this build (UPQ_WITH_DIRECT 0)");
    if (!UPQ_WITH_RG_BYTES && o->row_group_bytes)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "row_group_bytes is not in this build (UPQ_WITH_RG_BYTES 0)");
    if (!UPQ_WITH_DATA_PAGE_V2 && o->data_page_v2)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "DATA_PAGE_V2 is not in this build (UPQ_WITH_DATA_PAGE_V2 0)");
    if (!UPQ_WITH_STATISTICS) {
        /* written without, like no_statistics; a bound length asked for is
         * refused */
        if (!o->no_statistics && o->stats_max_binary)
            return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                         "statistics are not in this build (UPQ_WITH_STATISTICS 0)");
        o->no_statistics = 1;
    }
    if (!UPQ_WITH_PAGE_INDEX) {
        /* written without one, like no_page_index; room for one asked
         * for is refused */
        if (!o->no_page_index && o->max_pages)
            return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                         "page index is not in this build (UPQ_WITH_PAGE_INDEX 0)");
        o->no_page_index = 1;
    }
    if (o->page_size == 0)
        o->page_size = DEFAULT_PAGE;
    if (o->page_size < MIN_PAGE || o->page_size > (1u << 30))
        return sfail(w, UPQ_ERR_INVAL, -1, "page_size out of range (64 bytes .. 1 GiB)");
    size_defaults(o);
    if (o->columns && o->ncolumns == 0)
        o->columns = (const upq_column_opts *)0;
    if (!UPQ_WITH_CHECKPOINT && o->checkpoint)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "checkpoint mode is not in this build (UPQ_WITH_CHECKPOINT 0)");
    if (!UPQ_WITH_BUFFERED && !o->checkpoint)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "only checkpoint mode is in this build (UPQ_WITH_BUFFERED 0)");
    if (o->checkpoint) {
        /* row groups sized by the user, never by RAM: chunks are written
         * to their place in the file as their pages are made */
        if (!o->row_group_rows && !o->row_group_bytes)
            o->row_group_rows = DEFAULT_RG_ROWS;
        o->direct = 0;
        o->chunk_size = 0;
        o->footer_size = 0;
    }
    if (o->column_order > UPQ_ORDER_IEEE754)
        return sfail(w, UPQ_ERR_INVAL, -1, "column_order neither type nor IEEE 754");
    if (!UPQ_WITH_SORTING && o->nsorting)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "sorting columns are not in this build (UPQ_WITH_SORTING 0)");
    if ((o->nkv && !o->kv) || (o->nsorting && !o->sorting))
        return sfail(w, UPQ_ERR_INVAL, -1, "key-value or sorting list missing");
    return UPQ_OK;
}

/* The bitset size of a column that asked for a bloom filter. */
static upq_status bloom_setup(upq_wset *w, upq_wcol *c, uint32_t index,
                              const upq_column_opts *co)
{
#if UPQ_WITH_BLOOM
    const upq_writer_opts *o = w->o;
    uint64_t ndv = co->bloom_ndv;
    double fpp = co->bloom_fpp == 0.0 ? DEFAULT_BLOOM_FPP : co->bloom_fpp;
    if (co->bloom != 1)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "bloom must be 0 or 1");
    if (c->type == UPQ_TYPE_BOOLEAN)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "BOOLEAN columns take no bloom filter");
    if (ndv == 0)
        ndv = o->row_group_rows ? o->row_group_rows : DEFAULT_BLOOM_NDV;
    c->bloom_bytes = upq_bloom_size(ndv, fpp, o->bloom_max_bytes);
    if (c->bloom_bytes == 0)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "bloom_fpp outside (0, 1)");
    return UPQ_OK;
#else
    (void)c;
    (void)co;
    return sfail(w, UPQ_ERR_UNSUPPORTED, (int32_t)index,
                 "bloom filters are not in this build (UPQ_WITH_BLOOM 0)");
#endif
}

#if UPQ_WITH_CHUNK_META
/* A column's chunk key-value metadata: checked now, so that its encoding
 * cannot fail late; its bytes are counted without an encoder on the stack
 * (upq_w_kv_bound), as the rest of the footer's bounds are. */
static upq_status kv_setup(upq_wset *w, uint32_t index, const upq_column_opts *co)
{
    uint32_t i;
    if (!co->kv)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "key-value list missing");
    for (i = 0; i < co->nkv; i++)
        if (!UPQ_ISSET(co->kv[i], UPQ_KEY_VALUE_KEY))
            return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "key-value entry without a key");
    if (upq_w_kv_bound(w->o, index) > (1u << 30))
        return sfail(w, UPQ_ERR_LIMIT, (int32_t)index, "column key-value metadata over 1 GiB");
    return UPQ_OK;
}

#endif

/* Staged levels up to `max` take 1, 2, 4 or 8 bits: 1 << lev_lg(max). */
static uint8_t lev_lg(uint32_t max)
{
    return (uint8_t)((max > 1u) + (max > 3u) + (max > 15u));
}

/* c's staging: one page of levels and of values, and the bits a staged
 * level takes. */
static void col_staging(upq_wcol *c, const upq_writer_opts *o)
{
    c->dlg = lev_lg(c->max_def);
    c->rlg = lev_lg(c->max_rep);
    c->vsize = staged_width(c->type, c->type_length);
    c->lcap = o->page_levels;
    if (c->vsize) {
        uint64_t v = (uint64_t)c->lcap * c->vsize;
        c->vcap = v < o->page_size ? (uint32_t)v : o->page_size;
        if (c->vcap < c->vsize)
            c->vcap = c->vsize; /* a wide FIXED_LEN_BYTE_ARRAY: one value per page */
    } else {
        c->vcap = o->page_size;
    }
}

/* c's dictionary and encoding from its options. */
static upq_status col_encoding(upq_wset *w, upq_wcol *c, uint32_t index)
{
    const upq_writer_opts *o = w->o;
    int32_t enc = -1, dflt;
    int dict = -1, dict_enc;
    uint32_t width;
    if (o->columns && index < o->ncolumns) {
        enc = o->columns[index].encoding;
        dict = o->columns[index].dictionary;
    }
    dict_enc = is_dict_enc(enc);
    if ((dict == 0 && dict_enc) || dict < -1 || dict > 1 || enc < -1)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "contradictory dictionary options");
    c->use_dict = (uint8_t)(dict == 1 || (dict == -1 && (dict_enc || (enc == -1 && c->type != UPQ_TYPE_BOOLEAN))));
    if (c->use_dict && c->type == UPQ_TYPE_BOOLEAN)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index, "BOOLEAN columns take no dictionary");
    dflt = (c->type == UPQ_TYPE_BOOLEAN && UPQ_WITH_DATA_PAGE_V2 && o->data_page_v2) ? UPQ_ENC_RLE
                                                                                     : UPQ_ENC_PLAIN;
    c->enc = (enc == -1 || dict_enc) ? dflt : enc;
    if (upq_encode_bound(c->enc, c->type, c->type_length, 1, 1) == 0)
        return sfail(w, UPQ_ERR_INVAL, (int32_t)index,
                     "encoding not allowed for the column's type");
    if (c->use_dict) {
        width = c->vsize ? c->vsize : 8u; /* strings: assume 4 bytes on average */
        c->dict_cap = o->dict_size;
        c->dict_max = c->dict_cap / width;
        if (c->dict_max > MAX_DICT_ENTRIES)
            c->dict_max = MAX_DICT_ENTRIES;
        if (c->dict_max == 0)
            c->use_dict = 0, c->dict_cap = 0;
        else
            c->nslots = c->dict_max + c->dict_max / 2u + 1u;
    }
    return UPQ_OK;
}

/* c's statistics order and the bytes a bound keeps (none: no order). */
static void col_order(const upq_wset *w, upq_wcol *c, const upq_schema_element *e)
{
    const upq_writer_opts *o = w->o;
    c->order = UPQ_SO_NONE;
    if (UPQ_WITH_STATISTICS && !(o->no_statistics && o->no_page_index)) {
        c->order = (uint8_t)upq_stats_order(
            c->type,
            UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) ? &e->logical_type
                                                           : (const upq_logical_type *)0,
            UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE) ? e->converted_type : -1);
        if (o->column_order == UPQ_ORDER_IEEE754)
            c->order = (uint8_t)UPQ_SO_TOTAL(c->order);
        c->scap = upq_stats_cap(c->order, c->type, c->type_length, o->stats_max_binary);
        if (c->scap == 0)
            c->order = UPQ_SO_NONE;
    }
}

/* c's chunk key-value metadata and bloom filter, when asked for. */
static upq_status col_extras(upq_wset *w, upq_wcol *c, uint32_t index)
{
    const upq_writer_opts *o = w->o;
    if (o->columns && index < o->ncolumns && o->columns[index].nkv) {
#if UPQ_WITH_CHUNK_META
        upq_status st = kv_setup(w, index, &o->columns[index]);
        if (st != UPQ_OK)
            return st;
#else
        return sfail(w, UPQ_ERR_UNSUPPORTED, (int32_t)index,
                     "column key-value metadata is not in this build (UPQ_WITH_CHUNK_META 0)");
#endif
    }
    if (o->columns && index < o->ncolumns && o->columns[index].bloom)
        return bloom_setup(w, c, index, &o->columns[index]);
    return UPQ_OK;
}

/* Schema facts and per-column settings (everything but memory) of leaf
 * `index`; rejects column options the type cannot take. */
static upq_status col_setup(upq_wset *w, upq_wcol *c, uint32_t index,
                            const upq_schema_element *e, uint16_t def, uint16_t rep)
{
    upq_status st;
    upq_memset(c, 0, sizeof *c);
    c->elem = e;
    c->type = e->type;
    c->type_length = e->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? e->type_length : 0;
    c->max_def = def;
    c->max_rep = rep; /* at most 255 each: leaf_next refuses more */
    col_staging(c, w->o);
    st = col_encoding(w, c, index);
    if (st != UPQ_OK)
        return st;
    col_order(w, c, e);
    c->max_pages = UPQ_O_NO_PI(w->o) ? 0 : w->o->max_pages;
    c->ci_ok = 1;
    return col_extras(w, c, index);
}

/* a + b, or SIZE_MAX when that overflows: sizes that cannot be met stay
 * SIZE_MAX */
static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Memory: counts in dry runs, takes from the arena otherwise. */
typedef struct wtake {
    upq_arena *a; /* NULL: only count */
    size_t need;
    int fail;
} wtake;

static void *take(wtake *t, size_t size)
{
    void *p;
    size_t r = upq_w_align8(size);
    t->need = sat_add(t->need, r);
    if (!t->a || t->fail)
        return (void *)0;
    p = upq_arena_alloc(t->a, size);
    if (!p)
        t->fail = 1;
    return p;
}

/* Bytes of one level array of c's staging (none where the level is 0). */
static UPQ_NOINLINE size_t lev_part(const upq_wcol *c, uint16_t max, uint8_t lg)
{
    return max ? upq_w_align8(upq_lev_bytes(c->lcap, lg)) : 0u;
}

/* Bytes of c's staging: its levels and values (one page's worth). */
static size_t stage_size(const upq_wcol *c)
{
    return lev_part(c, c->max_def, c->dlg) + lev_part(c, c->max_rep, c->rlg) + upq_w_align8(c->vcap);
}

/* Points c's staging into p (stage_size(c) bytes). */
static void stage_carve(upq_wcol *c, uint8_t *p)
{
    c->def = c->max_def ? p : (uint8_t *)0;
    p += lev_part(c, c->max_def, c->dlg);
    c->rep = c->max_rep ? p : (uint8_t *)0;
    c->vals = p + lev_part(c, c->max_rep, c->rlg);
}

static void col_take(wtake *t, upq_wcol *c, uint32_t path_len, upq_wdx *x)
{
    size_t mp = UPQ_W_PI_PAGES(c);
    c->path_len = path_len;
    c->path = (upq_bytes *)take(t, (size_t)path_len * sizeof(upq_bytes));
    c->rep_def = (uint16_t *)take(t, ((size_t)c->max_rep + 1u) * sizeof(uint16_t));
    if (c->use_dict) {
        c->dict = (uint8_t *)take(t, c->dict_cap);
        if (c->type == UPQ_TYPE_BYTE_ARRAY)
            c->dict_off = (uint32_t *)take(t, (size_t)c->dict_max * sizeof(uint32_t));
        c->slots = (uint16_t *)take(t, (size_t)c->nslots * sizeof(uint16_t));
        if (x) /* a staged value has a level: at most lcap of them */
            x->idx = (uint16_t *)take(t, (size_t)c->lcap * sizeof(uint16_t));
    }
    if (c->chunk_cap)
        c->chunk = (uint8_t *)take(t, c->chunk_cap);

    if (UPQ_W_BLOOM(c))
        c->bloom = (uint8_t *)take(t, c->bloom_bytes);
    if (mp) {
        c->locs = (upq_page_location *)take(t, mp * sizeof(upq_page_location));
        c->null_pages = (uint8_t *)take(t, mp);
        c->pmin = (upq_bytes *)take(t, mp * sizeof(upq_bytes));
        c->pmax = (upq_bytes *)take(t, mp * sizeof(upq_bytes));
        c->pnulls = (int64_t *)take(t, mp * sizeof(int64_t));
        c->pbytes = (uint8_t *)take(t, mp * 2u * c->scap);
    }
    if (UPQ_WITH_STATISTICS) {
        c->st.min = (uint8_t *)take(t, (size_t)c->scap);
        c->st.max = (uint8_t *)take(t, (size_t)c->scap);
    }
    c->st.cap = c->scap;
    if (c->max_def)
        c->def_hist = (int64_t *)take(t, ((size_t)c->max_def + 1u) * sizeof(int64_t));
    if (c->max_rep)
        c->rep_hist = (int64_t *)take(t, ((size_t)c->max_rep + 1u) * sizeof(int64_t));
}

/* What setup finds walking the schema, pass by pass. */
typedef struct wplan {
    upq_wmodels *m;
    size_t stage;        /* every column's staging */
    size_t worst;        /* the largest page, header and sealing included */
    size_t body;         /* the largest page body */
    uint32_t n, max_scap, lmax, rows_cap, nrep, nlev;
    int any_dict, any_bvals;
} wplan;

/* Checkpoint mode: a constant where the build has not the
 * mode, so that its paths go. */
#define W_JM(w) (UPQ_WITH_CHECKPOINT && (!UPQ_WITH_BUFFERED || (w)->o->checkpoint != 0))

/* Pass 0, a leaf: the largest statistics bound; in direct mode the fewest
 * rows a flat column's staging holds (a level per row, and a required
 * fixed-width column a value per row: the first of them to fill ends the
 * row group). */
static void leaf_limits(const upq_wset *w, const upq_wcol *c, wplan *p)
{
    if (UPQ_WITH_STATISTICS && c->scap > p->max_scap)
        p->max_scap = c->scap;
    if (UPQ_O_DIRECT(w->o) && c->max_rep == 0) {
        uint32_t r = c->lcap;
        if (c->max_def == 0 && c->vsize && c->vcap / c->vsize < r)
            r = c->vcap / c->vsize;
        if (r < p->rows_cap)
            p->rows_cap = r;
    }
}

/* Passes 1 and 2, a leaf: its staging (direct mode: no flat column stages
 * more rows than a row group takes) and its largest page as stored, header
 * and sealing included. */
static size_t leaf_worst(const upq_wset *w, upq_wcol *c, wplan *p)
{
    if (UPQ_O_DIRECT(w->o) && c->max_rep == 0) {
        if (c->lcap > p->rows_cap)
            c->lcap = p->rows_cap;
        if (c->vsize && c->vcap / c->vsize > p->rows_cap)
            c->vcap = p->rows_cap * c->vsize;
    }
    if (c->lcap > p->lmax)
        p->lmax = c->lcap;
    return w->hbuf_cap + upq_w_stored_bound(c, w->o->codec, UPQ_O_V2(w->o)) +
           (UPQ_O_ENCRYPTING(w->o) ? UPQ_W_CRYPTO_OVER : 0u);
}

/* Pass 1, a leaf: the largest page (wc) and body (b), and which scratch
 * arrays the pages need. */
static void leaf_sizes(const upq_wcol *c, size_t b, size_t wc, wplan *p)
{
    if (wc > p->worst)
        p->worst = wc;
    if (b > p->body)
        p->body = b;
    p->any_dict |= c->use_dict;
    p->any_bvals |= (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) &&
                    c->enc != UPQ_ENC_PLAIN;
}

/* Pass 2, a leaf: its memory (`real`: c is the writer's column, not a
 * stand-in that only counts), then its path and clear chunk state, or in a
 * dry run its part of a RowGroup's bound. */
static void leaf_take(upq_wset *w, wtake *t, upq_wcol *c, uint32_t i, const leaf_iter *it,
                      uint32_t leaf, int real, size_t wc, wplan *p, size_t *rg_bound)
{
    c->worst = wc;
    c->max_pages = UPQ_O_NO_PI(w->o) || W_JM(w) ? 0 : w->o->max_pages;
    {
        /* a dictionary column's indices: counted in dry runs too */
        upq_wdx none, *x = (upq_wdx *)0;
        if (UPQ_WITH_DICT_INDEX && p->any_dict && !W_JM(w) && c->use_dict)
            x = real && !t->fail && UPQ_W_DX_ARRAY(w) ? &UPQ_W_DX_ARRAY(w)[i] : &none;
        col_take(t, c, it->depth, x);
    }
#if UPQ_WITH_CHUNK_META
    if (UPQ_W_IS_GEO(c->elem)) {
        upq_geo_acc *g = (upq_geo_acc *)take(t, sizeof(upq_geo_acc));
        if (g && real && !t->fail) {
            upq_memset(g, 0, sizeof *g);
            g->col = i;
            g->next = w->geo;
            w->geo = g;
        }
    }
#endif
    p->stage = sat_add(p->stage, stage_size(c));
    if ((UPQ_O_DIRECT(w->o) || W_JM(w)) && (UPQ_O_COMPRESSING(w->o) || (W_JM(w) && UPQ_O_ENCRYPTING(w->o))))
        c->chunk_cap = p->worst; /* the shared buffer, taken by take_buffers */
    if (c->max_rep)
        p->nrep++;
    p->nlev += (uint32_t)c->max_def + c->max_rep + 2u;
    if (real && !t->fail) {
        leaf_path(it, leaf, c->max_def, c->max_rep, c->path, c->rep_def);
        upq_w_chunk_clear(c);
    } else if (rg_bound) {
        size_t cb = upq_w_cc_bound(c, it->depth, leaf_path_bytes(it, leaf));
        size_t kb = upq_w_kv_bound(w->o, i);
        *rg_bound = sat_add(*rg_bound, sat_add(cb, kb));
    }
}

/* Before pass 2: the column array, the staged values' dictionary indices
 * and the models. */
static void take_arrays(upq_wset *w, wtake *t, wplan *p, size_t *rg_bound)
{
#if UPQ_WITH_CHUNK_META
    w->geo = (struct upq_geo_acc *)0;
#endif
    w->ncols = p->n;
    w->cols = (upq_wcol *)take(t, (size_t)p->n * sizeof(upq_wcol));
#if UPQ_WITH_DICT_INDEX
    /* not in checkpoint mode, whose RAM goes to logging (small pages in a
     * 16 KiB arena): its pages look their values up again */
    w->dx = (upq_wdx *)0;
    if (p->any_dict && !W_JM(w)) {
        w->dx = (upq_wdx *)take(t, (size_t)p->n * sizeof(upq_wdx));
        if (w->dx)
            upq_memset(w->dx, 0, (size_t)p->n * sizeof(upq_wdx));
    }
#endif
    p->m = (upq_wmodels *)take(t, sizeof(upq_wmodels));
    w->models = p->m;
    if (rg_bound)
        *rg_bound = 0;
}

/* Models encoded later must be complete now: a footer cannot fail late. */
static upq_status check_models(upq_wset *w, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < UPQ_O_NSORT(w->o); i++) {
        const upq_sorting_column *sc = &w->o->sorting[i];
        if ((sc->isset & 0xEu) != 0xEu)
            return sfail(w, UPQ_ERR_INVAL, -1,
                         "sorting column without column_idx, descending and nulls_first set");
        if (sc->column_idx < 0 || (uint32_t)sc->column_idx >= n)
            return sfail(w, UPQ_ERR_INVAL, -1, "sorting column out of range");
    }
    for (i = 0; i < w->o->nkv; i++)
        if (!UPQ_ISSET(w->o->kv[i], UPQ_KEY_VALUE_KEY))
            return sfail(w, UPQ_ERR_INVAL, -1, "key-value metadata without a key");
    if (w->o->columns && w->o->ncolumns != n)
        return sfail(w, UPQ_ERR_INVAL, -1, "column options do not match the leaf count");
    if (w->o->encrypt && !UPQ_WITH_CRYPTO)
        return sfail(w, UPQ_ERR_UNSUPPORTED, -1,
                     "encryption is not in this build (UPQ_WITH_CRYPTO 0)");
    return UPQ_OK;
}

/* Bytes of the shared page buffer: a page body, a compressed dictionary,
 * the window footers are copied through, sealed modules. */
static upq_status pbuf_size(upq_wset *w, const wplan *p, size_t *size)
{
    size_t pbuf = p->body;
    if (UPQ_O_COMPRESSING(w->o) && p->any_dict) {
        size_t d = upq_compress_bound(w->o->codec, w->o->dict_size);
        if (d == 0)
            return sfail(w, UPQ_ERR_INVAL, -1, "dictionary too large for the codec");
        if (d > pbuf)
            pbuf = d;
    }
    if (pbuf < 256)
        pbuf = 256; /* also the window footers are copied through */
    if (UPQ_O_ENCRYPTING(w->o)) {
        /* a dictionary page (or column metadata) sealed in place */
        size_t d = upq_w_align8(w->o->dict_size) + 2u * UPQ_W_CRYPTO_OVER;
        if (UPQ_O_COMPRESSING(w->o) && p->any_dict)
            d = upq_compress_bound(w->o->codec, w->o->dict_size) + 2u * UPQ_W_CRYPTO_OVER;
        pbuf = sat_add(pbuf, 2u * UPQ_W_CRYPTO_OVER);
        if (d > pbuf)
            pbuf = d;
        /* room for one column's encrypted ColumnMetaData: path, statistics
         * (two bounds) and level histograms */
        if (pbuf < 4096u + 2u * (size_t)w->o->stats_max_binary)
            pbuf = 4096u + 2u * (size_t)w->o->stats_max_binary;
    }
    *size = pbuf;
    return UPQ_OK;
}

/* Every column's staging, in one block: checkpoint mode's finisher works
 * there, as it runs only when the staging is empty (at close, and reading
 * the file back before any row). */
static void take_stagings(upq_wset *w, wtake *t, const wplan *p)
{
    size_t fin = W_JM(w) ? upq_wf_need(w->o, w->hbuf_cap, p->n, p->nrep, p->nlev) : 0u;
    size_t blk = p->stage > fin ? p->stage : fin;
    uint8_t *q = (uint8_t *)take(t, blk);
    uint32_t i;
    w->stage = q;
    /* packed levels are set bit by bit, so they start zeroed; values are
     * written before they are read, and a page's worth of them left
     * untouched costs a host no memory until used */
    if (q && t->a && !t->fail && W_JM(w))
        upq_memset(q, 0, blk);
    for (i = 0; q && t->a && !t->fail && w->cols && i < p->n; i++) {
        stage_carve(&w->cols[i], q);
        if (!W_JM(w))
            upq_memset(q, 0, (size_t)(w->cols[i].vals - q));
        q += stage_size(&w->cols[i]);
    }
}

/* After pass 2: the shared scratch, the journal, the stagings. */
static void take_buffers(upq_wset *w, wtake *t, wplan *p, size_t pbuf)
{
    uint32_t i, n = p->n;
    if (UPQ_O_ENCRYPTING(w->o))
        /* the key state, then each column's dictionary page nonces */
        w->wc = (struct upq_wcrypto *)take(t, upq_w_align8(upq_wc_need(w->o)) + (size_t)n * 24u);
    w->pbuf_cap = pbuf;
    w->pbuf = (uint8_t *)take(t, pbuf);
    if ((UPQ_O_DIRECT(w->o) || W_JM(w)) && (UPQ_O_COMPRESSING(w->o) || (W_JM(w) && UPQ_O_ENCRYPTING(w->o)))) {
        /* compressed (or, in checkpoint mode, encrypted) pages go through
         * one buffer, a column at a time */
        uint8_t *shared = (uint8_t *)take(t, p->worst);
        for (i = 0; t->a && !t->fail && w->cols && i < n; i++)
            w->cols[i].chunk = shared;
    }
    w->hbuf = (uint8_t *)take(t, w->hbuf_cap);
    if (W_JM(w)) {
        void *jmem = take(t, upq_wj_need(w->o, n, p->nrep));
        if (t->a && !t->fail)
            w->jr = (struct upq_wjournal *)jmem;
    }
    take_stagings(w, t, p);
    w->lmax = p->lmax;
    if (p->any_dict)
        w->idx = (uint16_t *)take(t, (size_t)w->lmax * sizeof(uint16_t));
    if (p->any_bvals)
        w->bvals = (upq_bytes *)take(t, (size_t)w->lmax * sizeof(upq_bytes));
    {
        /* one page's bounds, for statistics without a page index */
        uint8_t *pmin = (uint8_t *)0, *pmax = (uint8_t *)0;
        if (UPQ_WITH_STATISTICS) {
            pmin = (uint8_t *)take(t, p->max_scap);
            pmax = (uint8_t *)take(t, p->max_scap);
        }
        if (p->m && t->a && !t->fail) {
            upq_memset(p->m, 0, sizeof *p->m);
            p->m->pst.min = pmin;
            p->m->pst.max = pmax;
            p->m->pst.cap = p->max_scap;
        }
    }
}

/* After pass 0: a page header's bound, with its statistics' bounds and,
 * encrypted, the header's module framing and the page module's length and
 * nonce ahead of its body. */
static void header_cap(upq_wset *w, size_t hdr, uint32_t max_scap)
{
    w->hbuf_cap = hdr == SIZE_MAX ? SIZE_MAX : hdr + UPQ_W_STATS_BOUNDS(max_scap);
    if (UPQ_O_ENCRYPTING(w->o) && w->hbuf_cap != SIZE_MAX)
        w->hbuf_cap += UPQ_W_CRYPTO_OVER + 16u;
}

/*
 * Plans (t->a NULL) or performs the whole setup, in three passes over the
 * schema's leaves: 0, settings and the largest statistics bound; 1, room
 * per page, hence the chunk size; 2, memory. Dry runs count the arena
 * bytes and, when rg_bound is given, add up the columns' own parts of a
 * RowGroup's bound (upq_w_cc_bound). hdr: upq_w_header_bound().
 */
static upq_status setup(upq_wset *w, wtake *t, size_t hdr, size_t *rg_bound)
{
    wplan p;
    leaf_iter it;
    upq_wcol tmp;
    uint32_t leaf = 0, i;
    uint16_t def = 0, rep = 0;
    size_t pbuf = 0;
    upq_status st;
    int pass;

    /* each field set here, not by a memset: the plan stays in registers */
    p.m = (upq_wmodels *)0;
    p.stage = p.worst = p.body = 0;
    p.n = p.max_scap = p.lmax = p.nrep = p.nlev = 0;
    p.rows_cap = UINT32_MAX;
    p.any_dict = p.any_bvals = 0;
    /* pass 0 finds only what statistics and direct mode size: without
     * both, the header's bound is known now */
    pass = UPQ_WITH_STATISTICS || UPQ_WITH_DIRECT ? 0 : 1;
    if (pass)
        header_cap(w, hdr, 0);
    for (; pass < 3; pass++) {
        if (pass == 2 && W_JM(w)) {
            /* checkpoint mode: no chunk buffers, and the page index is
             * made at close from the pages' headers */
            w->o->chunk_size = 0;
            w->o->max_pages = 0;
        } else if (pass == 2 && UPQ_O_DIRECT(w->o)) {
            w->o->chunk_size = 0;
            w->o->max_pages = UPQ_O_NO_PI(w->o) ? 0u : 1u;
        } else if (pass == 2) {
            /* chunk buffers of two of the largest pages at least */
            if (!w->o->chunk_size) {
                size_t cs = 4u * (size_t)w->o->page_size;
                if (cs < 2u * p.worst)
                    cs = 2u * p.worst;
                if (cs > UINT32_MAX)
                    return sfail(w, UPQ_ERR_INVAL, -1, "pages too large for a chunk buffer");
                w->o->chunk_size = (uint32_t)cs;
            } else if (w->o->chunk_size < p.worst) {
                return sfail(w, UPQ_ERR_INVAL, -1, "chunk_size smaller than one page");
            }
            if (!UPQ_O_NO_PI(w->o) && !w->o->max_pages)
                w->o->max_pages = 2u * (w->o->chunk_size / w->o->page_size) + 2u;
            if (w->o->max_pages == 1)
                w->o->max_pages = 2; /* a page, and room for the last one */
        }
        if (pass == 2)
            take_arrays(w, t, &p, rg_bound);
        st = leaf_begin(&it, w->elems, w->nelems);
        if (st != UPQ_OK)
            return sfail(w, st, -1, "malformed schema");
        for (i = 0;; i++) {
            upq_wcol *c = (pass == 2 && t->a && w->cols) ? &w->cols[i] : &tmp;
            size_t wc, b;
            st = leaf_next(&it, &leaf, &def, &rep);
            if (st == UPQ_DONE)
                break;
            if (st != UPQ_OK)
                return sfail(w, st, -1, "malformed schema");
            if (pass == 2 && t->fail)
                c = &tmp; /* keep counting what init would need */
            st = col_setup(w, c, i, &w->elems[leaf], def, rep);
            if (st != UPQ_OK)
                return st;
            c->chunk_cap = w->o->chunk_size;
            if (pass == 0) {
                leaf_limits(w, c, &p);
                continue;
            }
            wc = leaf_worst(w, c, &p);
            if (pass == 1) {
                b = upq_w_body_bound(c);
                if (b == SIZE_MAX || wc < w->hbuf_cap)
                    return sfail(w, UPQ_ERR_INVAL, (int32_t)i, "page bounds overflow");
                leaf_sizes(c, b, wc, &p);
                continue;
            }
            leaf_take(w, t, c, i, &it, leaf, c != &tmp, wc, &p, rg_bound);
        }
        p.n = i;
        if (i == 0)
            return sfail(w, UPQ_ERR_INVAL, -1, "schema without columns");
        if (pass == 0)
            header_cap(w, hdr, p.max_scap);
    }
    st = check_models(w, p.n);
    if (st == UPQ_OK)
        st = pbuf_size(w, &p, &pbuf);
    if (st != UPQ_OK)
        return st;
    take_buffers(w, t, &p, pbuf);
    return UPQ_OK;
}

UPQ_INLINE upq_status plan_configure(upq_wplan *p, const upq_schema_element *elems, uint32_t n,
                                     const upq_writer_opts *o)
{
    upq_memset(p, 0, sizeof *p);
    if (!elems)
        return UPQ_ERR_INVAL;
    p->s.o = &p->o;
    p->s.elems = elems;
    p->s.nelems = n;
    return configure(&p->s, o);
}

UPQ_INLINE upq_status plan(upq_wset *w, uint32_t max_row_groups, size_t *need)
{
    wtake t;
    size_t rg = 0, total, log;
    upq_status st;

    t.a = (upq_arena *)0;
    t.need = 0;
    t.fail = 0;
    st = setup(w, &t, upq_w_header_bound(), max_row_groups ? &rg : (size_t *)0);
    if (st != UPQ_OK)
        return st;
    if (max_row_groups) {
        /* after setup, not in it: the encoder's frame is not on top of the
         * schema walk's */
        size_t rest = upq_w_rg_bound(w->ncols, w->o);
        rg = sat_add(rg, rest);
    }
    total = t.need;
    if (W_JM(w))
        log = 0; /* finished row groups are described in the file */
    else if (w->o->footer_size)
        log = upq_w_align8(w->o->footer_size);
    else if (max_row_groups && rg > SIZE_MAX / max_row_groups)
        return UPQ_ERR_LIMIT;
    else
        log = (size_t)max_row_groups * rg;
    total = sat_add(total, log);
    log = UPQ_O_COMPRESSING(w->o) ? upq_w_align8(upq_compress_workspace(w->o->codec)) : 0u;
    total = sat_add(total, log);
    *need = total;
    return total == SIZE_MAX ? UPQ_ERR_LIMIT : UPQ_OK;
}

upq_status upq_writer_workspace_size(const upq_schema_element *elems, uint32_t n,
                                     const upq_writer_opts *o, uint32_t max_row_groups,
                                     size_t *need)
{
    upq_wplan p;
    upq_status st;

    *need = 0;
    st = plan_configure(&p, elems, n, o);
    if (st != UPQ_OK)
        return st;
    return plan(&p.s, max_row_groups, need);
}

/* the two steps for recovery's planner (not in builds without it: the
 * linker drops them) */
upq_status upq_w_plan_configure(upq_wplan *p, const upq_schema_element *elems, uint32_t n,
                                const upq_writer_opts *o)
{
    return plan_configure(p, elems, n, o);
}

upq_status upq_w_plan(upq_wplan *p, uint32_t max_row_groups, size_t *need)
{
    return plan(&p->s, max_row_groups, need);
}

/* The blocks of upq_writer setup places, elems to ncols and models to
 * stage, and upq_wset's copies of them: the same fields at the same
 * distances. */
#define WSET_AT(f, b) (offsetof(upq_wset, f) - offsetof(upq_wset, b))
#define WRITER_AT(f, b) (offsetof(upq_writer, f) - offsetof(upq_writer, b))
#define WSET_SAME(f, b) (WSET_AT(f, b) == WRITER_AT(f, b))
#define WSET_HEAD (offsetof(upq_wset, ncols) + sizeof(uint32_t) - offsetof(upq_wset, elems))
#define WSET_BLOCK (offsetof(upq_wset, stage) + sizeof(uint8_t *) - offsetof(upq_wset, models))
UPQ_STATIC_ASSERT(WSET_SAME(nelems, elems) && WSET_SAME(cols, elems) && WSET_SAME(ncols, elems), wset_head);
UPQ_STATIC_ASSERT(WSET_SAME(pbuf, models) && WSET_SAME(pbuf_cap, models) && WSET_SAME(hbuf, models) &&
                      WSET_SAME(hbuf_cap, models) && WSET_SAME(idx, models) && WSET_SAME(bvals, models) &&
                      WSET_SAME(lmax, models) && WSET_SAME(stage, models),
                  wset_block);
#if UPQ_WITH_DICT_INDEX
UPQ_STATIC_ASSERT(WSET_SAME(dx, models), wset_block_dx);
#endif

/* Hands the writer what setup placed. */
static void set_out(upq_writer *w, const upq_wset *s)
{
    upq_memcpy(&w->elems, &s->elems, WSET_HEAD);
    upq_memcpy(&w->models, &s->models, WSET_BLOCK);
    if (UPQ_WITH_CRYPTO)
        w->wc = s->wc;
    if (UPQ_WITH_CHECKPOINT)
        w->jr = s->jr;
#if UPQ_WITH_CHUNK_META
    w->geo = s->geo;
#endif
}

upq_status upq_writer_init(upq_writer *w, const upq_sink *sink, const upq_schema_element *elems,
                           uint32_t n, void *arena, size_t len, const upq_writer_opts *o)
{
    upq_wset s;
    wtake t;
    upq_status st;
    size_t codec_ws, rest, hdr;

    upq_memset(w, 0, sizeof *w);
    w->err.offset = UINT64_MAX;
    w->err.row_group = w->err.column = w->err.page = w->err.schema_element = -1;
    upq_arena_init(&w->arena, arena, len);
    if (!sink || !(sink->write || sink->write_at) || !elems)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                          !sink    ? "no sink"
                          : !elems ? "no schema"
                                   : "the sink has neither write (appending) nor write_at (checkpoint mode)");
    upq_memcpy(&w->sink, sink, sizeof w->sink);
    upq_memset(&s, 0, sizeof s);
    s.owner = w;
    s.o = &w->o;
    s.elems = elems;
    s.nelems = n;
    st = configure(&s, o);
    if (st != UPQ_OK)
        return st;
    if (UPQ_WITH_CHECKPOINT && w->o.checkpoint && !(sink->write_at && sink->read_at))
        return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                          !sink->write_at ? "checkpoint mode needs the sink's write_at (writes at offsets)"
                                          : "checkpoint mode needs the sink's read_at (close, recovery "
                                            "and resume read the file back)");
    if (!(UPQ_WITH_CHECKPOINT && w->o.checkpoint) && !sink->write)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                          "the sink has no write callback (appending), which writing without "
                          "checkpoint mode needs");
    /* 0 for pages stored as they are */
    codec_ws = UPQ_W_COMPRESSING(w) ? upq_w_align8(upq_compress_workspace(w->o.codec)) : 0u;
    /* a dry run first: on NOMEM it tells the whole size, not the first
     * miss; then in the arena */
    hdr = upq_w_header_bound();
    for (t.a = (upq_arena *)0;; t.a = &w->arena) {
        t.need = 0;
        t.fail = 0;
        st = setup(&s, &t, hdr, (size_t *)0);
        if (st != UPQ_OK)
            return st;
        if (t.fail || t.need > w->arena.cap || w->arena.cap - t.need < codec_ws) {
            w->arena.needed = t.need + codec_ws;
            return upq_w_fail(w, UPQ_ERR_NOMEM, -1, "arena too small for the writer");
        }
        if (t.a)
            break;
    }
    set_out(w, &s);
    if (UPQ_W_ENCRYPTING(w)) {
        st = upq_wc_init(w, w->wc);
        if (st != UPQ_OK)
            return st;
        w->wc->dict_nonce = (uint8_t *)w->wc + upq_w_align8(upq_wc_need(&w->o));
    }
    if (UPQ_WITH_CHECKPOINT && w->o.checkpoint) {
        st = upq_wj_init(w, w->jr);
        if (st != UPQ_OK)
            return st;
    } else {
        rest = upq_arena_remaining(&w->arena) - codec_ws;
        if (w->o.footer_size) {
            if (upq_w_align8(w->o.footer_size) > rest) {
                w->arena.needed = w->arena.used + upq_w_align8(w->o.footer_size) + codec_ws;
                return upq_w_fail(w, UPQ_ERR_NOMEM, -1, "arena too small for footer_size");
            }
            rest = w->o.footer_size;
        }
        rest &= ~(size_t)7u;
        w->log_cap = rest;
        w->log = rest ? (uint8_t *)upq_arena_alloc(&w->arena, rest) : (uint8_t *)0;
        if (rest && !w->log)
            return upq_w_fail(w, UPQ_ERR_NOMEM, -1, "arena too small for the footer log");
    }
    return UPQ_OK;
}

/* ---- rows ------------------------------------------------------------------- */

/* Staged bytes of the value at byte `off` of c's staging. */
static uint32_t staged_size(const upq_wcol *c, uint32_t off)
{
    return c->vsize ? c->vsize : 4u + upq_load_le32(c->vals + off);
}

/* Moves c's commit point to row `rows` of the row group. */
static void commit_to(upq_wcol *c, uint64_t rows)
{
    if (rows == c->rows && !c->pending) {
        /* every staged entry is of a whole row up to `rows` (the rows as
         * every column has them, row-wise after each row): nothing to count */
        c->crows = rows;
        c->clev = c->nlev;
        c->cval = c->nval;
        c->cbytes = c->vbytes;
        return;
    }
    if (UPQ_W_FAST && !c->max_rep && c->crows < rows) {
        /* a level is a row: count the values of the rows at once */
        uint32_t k = (uint32_t)(rows - c->crows), nv, i;
        nv = c->max_def ? upq_w_lev_count(c->def, c->clev, k, c->dlg, c->max_def) : k;
        if (c->vsize)
            c->cbytes += nv * c->vsize;
        else
            for (i = 0; i < nv; i++)
                c->cbytes += 4u + upq_load_le32(c->vals + c->cbytes);
        c->cval += nv;
        c->clev += k;
        c->crows = rows;
        return;
    }
    while (c->crows < rows) {
        /* one row: its first entry, then entries repeating inside it */
        do {
            if (c->max_def == 0 || upq_lev_get(c->def, c->clev, c->dlg) == c->max_def) {
                c->cbytes += staged_size(c, c->cbytes);
                c->cval++;
            }
            c->clev++;
        } while (c->clev < c->nlev && c->max_rep && upq_lev_get(c->rep, c->clev, c->rlg) != 0);
        c->crows++;
    }
}

void upq_w_advance(upq_writer *w)
{
    uint64_t lo = UINT64_MAX, r, lim;
    size_t bytes = 0;
    uint32_t i;
    for (i = 0; i < w->ncols; i++) {
        if (w->cols[i].rows < lo)
            lo = w->cols[i].rows;
        bytes += w->cols[i].chunk_used;
    }
    r = lo;
    lim = UPQ_W_JOURNAL(w) ? w->jr->rg_limit : w->o.row_group_rows;
    if (lim && r >= lim) {
        r = lim;
        w->rg_due = 1;
    }
    if (UPQ_W_RG_BYTES(w) && bytes >= UPQ_W_RG_BYTES(w) && r > 0)
        w->rg_due = 1;
    if (r > w->rs) {
        w->rs = r;
        for (i = 0; i < w->ncols; i++)
            commit_to(&w->cols[i], r);
    }
    if (UPQ_W_JOURNAL(w))
        upq_wj_advanced(w);
}

/*
 * upq_w_advance after column `col` took rows, without its walk over every
 * column while some column still has no more than the committed rows (then
 * nothing new can be committed): that column is looked for beside col
 * first, so a caller writing the columns in turn, either way, finds one at
 * once and a row costs O(columns), not O(columns^2).
 */
static void advance_after(upq_writer *w, uint32_t col)
{
    uint32_t d;
    uint64_t lim;
    int behind = 0;
    if (UPQ_W_RG_BYTES(w)) {
        upq_w_advance(w); /* the bytes of every chunk are summed anyway */
        return;
    }
    for (d = 0; !behind && (d <= col || col + d < w->ncols); d++)
        behind = (col + d < w->ncols && w->cols[col + d].rows <= w->rs) ||
                 (d && d <= col && w->cols[col - d].rows <= w->rs);
    if (!behind) {
        upq_w_advance(w);
        return;
    }
    /* what upq_w_advance does when the least rows of a column are rs */
    lim = UPQ_W_JOURNAL(w) ? w->jr->rg_limit : w->o.row_group_rows;
    if (lim && w->rs >= lim)
        w->rg_due = 1;
    if (UPQ_W_JOURNAL(w))
        upq_wj_advanced(w);
}

void upq_w_rg_reset(upq_writer *w)
{
    uint32_t i;
    uint64_t b = w->rg_rows;
    w->rows_done += b;
    w->num_rg++;
    upq_w_geo_clear(w);
    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        upq_w_chunk_clear(c);
        if (UPQ_W_DX(w, c))
            UPQ_W_DX(w, c)->n = 0; /* dict_reinsert indexes the carried rows */
        c->rows -= b;
        c->crows -= b;
        c->frows = 0;
        if (c->dict_on)
            upq_w_dict_reinsert(c, UPQ_W_DX(w, c));
    }
    w->rs -= b;
    w->rg_rows = 0;
    w->rg_due = 0;
    upq_w_advance(w);
}

/* ---- output around the calls --------------------------------------------------- */

/* A buffered run of output is complete: a row group (the staging moves on
 * to the next), or the footer (the file is whole). */
static void out_done(upq_writer *w)
{
    if (w->out_kind == UPQ_OUT_RG) {
        upq_w_rg_reset(w);
    } else {
        w->rows_durable = w->rows_done;
        w->close_stage = 2;
    }
}

/* A journal job ended a row group (RG_END is durable): the staging moves to
 * the next one, which gets its rows limit. Apart from the driver's loop,
 * whose frame is on the deepest path of every call. */
static UPQ_NOINLINE void journal_rg_done(upq_writer *w)
{
    w->jr->rg_ended = 0;
    upq_w_rg_reset(w); /* may commit rows of the next row group */
    w->jr->rg_limit = upq_wj_next_limit(w);
}

/* The driver: the current piece to the sink, then the running job's next
 * (a buffered row group or footer, or the journal's job), until none is
 * left. Each job only sets pieces; what its end means is decided here. */
upq_status upq_w_pump(upq_writer *w)
{
    for (;;) {
        /* checkpoint mode: the file is as large as the farthest byte written */
        upq_status st = upq_w_drain(w, UPQ_W_JOURNAL(w) ? &w->jr->hwm : (uint64_t *)0);
        if (st != UPQ_OK)
            return st;
        if (w->ostage == UPQ_OS_IDLE)
            return UPQ_OK;
        if (UPQ_W_JOURNAL(w) && w->ostage == UPQ_OS_JOURNAL) {
            st = upq_wj_next(w);
            if (st == UPQ_DONE) {
                w->ostage = UPQ_OS_IDLE;
                if (w->jr->rg_ended)
                    journal_rg_done(w);
                return UPQ_OK;
            }
        } else {
            st = upq_w_buf_next(w);
            if (st == UPQ_DONE) {
                out_done(w);
                return UPQ_OK;
            }
        }
        if (st != UPQ_OK)
            return st;
    }
}

/* Column c's staging is full: its committed rows become a page where the
 * layout puts it (its chunk buffer; in checkpoint mode its region, the
 * page queued for output). */
static upq_status page_out(upq_writer *w, upq_wcol *c)
{
    if (UPQ_W_JOURNAL(w))
        return c->clev ? upq_wj_page(w, c) : UPQ_OK;
    return upq_w_flush_page(w, c, 0);
}

/* Ends the row group at w->rs and starts writing it out. */
static upq_status end_rg(upq_writer *w)
{
    upq_status st;
    if (w->rs == 0) {
        w->rg_due = 0;
        return UPQ_OK;
    }
    if (UPQ_W_JOURNAL(w)) {
        upq_wj_start(w, UPQ_WJ_RGEND);
        return upq_w_pump(w);
    }
    st = upq_w_rg_finish(w);
    if (st != UPQ_OK)
        return st;
    return upq_w_pump(w);
}

/* A checkpoint is due (checkpoint mode). */
static int ckpt_due(const upq_writer *w)
{
    return UPQ_W_JOURNAL(w) && w->jr->ckpt_due;
}

/* Ends a due row group, or makes a due checkpoint. */
static upq_status due_work(upq_writer *w)
{
    if (w->rg_due || !UPQ_WITH_CHECKPOINT)
        return end_rg(w);
    upq_wj_start(w, UPQ_WJ_CKPT);
    return upq_w_pump(w);
}

/* What every call does first: finish pending output, due row groups and
 * checkpoints. UPQ_OK when the writer can take data. */
static upq_status enter(upq_writer *w)
{
    upq_status st;
    if (w->failed)
        return w->failed;
    if (w->closed || w->closing)
        return UPQ_ERR_STATE;
    w->flush_wait = 0; /* new data: a later flush is a new request */
    if (UPQ_W_JOURNAL(w))
        w->jr->ckpt_wait = 0; /* ... and a later checkpoint too */
    for (;;) {
        if (w->ostage != UPQ_OS_IDLE) {
            st = upq_w_pump(w);
            if (st != UPQ_OK)
                return st;
        }
        if (!w->rg_due && !ckpt_due(w))
            return UPQ_OK;
        st = due_work(w);
        if (st != UPQ_OK)
            return st;
    }
}

/* After a call took its data: write out a row group or checkpoint that
 * became due. Output left blocked continues on the next call. */
static upq_status after(upq_writer *w)
{
    upq_status st = UPQ_OK;
    while ((w->rg_due || ckpt_due(w)) && w->ostage == UPQ_OS_IDLE && st == UPQ_OK)
        st = due_work(w);
    return st == UPQ_AGAIN ? UPQ_OK : st;
}

/* ---- staging ------------------------------------------------------------------ */

/* The i-th caller value; a call with no values may pass NULL, and no
 * arithmetic may touch a null pointer. */
static const uint8_t *value_at(const void *values, size_t i, size_t stride)
{
    return values ? (const uint8_t *)values + i * stride : (const uint8_t *)0;
}

static uint32_t input_size(const upq_wcol *c, const void *v)
{
    upq_bytes b;
    if (c->vsize)
        return c->vsize;
    upq_w_in_bytes(v, &b);
    return 4u + b.len;
}

#if (defined(__GNUC__) || defined(__clang__)) && UPQ_MEM_WORDS
#define W_WORDS 1
typedef uint32_t __attribute__((__may_alias__)) w_word;
#else
#define W_WORDS 0
#endif

static void stage_value(upq_wcol *c, const void *v)
{
    uint8_t *dst = c->vals + c->vbytes;
    uint32_t n = c->vsize;
    upq_bytes b;
    if (c->type == UPQ_TYPE_BOOLEAN) {
        *dst = *(const uint8_t *)v != 0;
    } else if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        /* (a FIXED_LEN_BYTE_ARRAY value's length was checked: vsize) */
        upq_w_in_bytes(v, &b);
        if (!n) {
            upq_store_le32(dst, b.len);
            dst += 4;
            n = 4u + b.len;
        }
        copy_value(dst, b.ptr, b.len);
#if W_WORDS
    } else if (n == 4) {
        /* 4 and 8 bytes in words (the staging is 8-aligned, a value
         * aligned as its type): a call of upq_memcpy cost more than the copy */
        *(w_word *)(void *)dst = *(const w_word *)v;
    } else if (n == 8) {
        ((w_word *)(void *)dst)[0] = ((const w_word *)v)[0];
        ((w_word *)(void *)dst)[1] = ((const w_word *)v)[1];
#endif
    } else {
        upq_memcpy(dst, v, n);
    }
    c->vbytes += n;
    c->nval++;
}

/*
 * Makes room in c's staging for k levels and b value bytes. UPQ_OK when
 * there is room; UPQ_DONE when only rows beyond the committed ones fill it;
 * UPQ_AGAIN / errors from ending a row group on the way.
 */
static upq_status make_room(upq_writer *w, upq_wcol *c, uint32_t k, uint32_t b)
{
    for (;;) {
        upq_status st = enter(w);
        if (st != UPQ_OK)
            return st;
        if (c->nlev + k <= c->lcap && b <= c->vcap - c->vbytes)
            return UPQ_OK;
        if (c->clev == 0) {
            upq_w_advance(w);
            if (w->rg_due || c->clev > 0)
                continue;
            return UPQ_DONE;
        }
        if (UPQ_W_DIRECT(w)) {
            w->rg_due = 1; /* the page is the chunk: the row group ends */
            continue;
        }
        st = page_out(w, c);
        if (st != UPQ_OK)
            return st;
    }
}

/* The values staged since the staging held `nval` (put in the dictionary
 * by dict_run) have their indices when all before them had. */
static void mark_indexed(const upq_wcol *c, upq_wdx *x, uint32_t nval)
{
    if (x && c->dict_on && x->n == nval)
        x->n = c->nval;
}

/*
 * Puts values into c's dictionary before they are staged. When it fills,
 * the committed staging becomes the chunk's last dictionary page and the
 * column changes encoding. UPQ_OK, or UPQ_AGAIN / errors (a row group ended
 * on the way: the caller starts over, as staging and dictionary changed).
 */
static upq_status dict_take(upq_writer *w, upq_wcol *c, const uint8_t *vals, size_t n,
                            int *restart)
{
    *restart = 0;
    if (upq_w_dict_run(c, UPQ_W_DX(w, c), vals, n) < n) {
        if (c->clev > 0 && UPQ_W_DIRECT(w)) {
            /* a new row group starts a new dictionary */
            w->rg_due = 1;
            *restart = 1;
            return UPQ_OK;
        }
        if (c->clev > 0) {
            upq_status st = page_out(w, c);
            if (st != UPQ_OK)
                return st;
            if (w->rg_due) {
                *restart = 1;
                return UPQ_OK;
            }
        }
        c->dict_on = 0;
    }
    return UPQ_OK;
}

/* ---- column-wise ------------------------------------------------------------- */

/* The column-wise paths that take a run of rows at once (checked in one
 * pass, sized by division, levels a byte at a time): in builds for speed,
 * and wherever runs are built (UPQ_WITH_RUNS), for which they are the point;
 * not in writer-min, where flash counts most. */
#define W_RUNS_FAST (UPQ_W_FAST || UPQ_WITH_RUNS)

/* The definition level of entry i: the caller's, or, where it gave none (a
 * required column, or a run of an optional one whose entries are all
 * values), the column's maximum. */
static uint16_t def_at(const upq_wcol *c, const uint16_t *def, size_t i)
{
    if (!UPQ_WITH_RUNS)
        return c->max_def ? def[i] : 0u; /* def is only NULL where max_def is 0 */
    return def && c->max_def ? def[i] : c->max_def;
}

/* Stages levels src[0..m) at level `at` of lv (packed 1 << lg bits); src
 * NULL: m levels of value v. */
static void lev_put(uint8_t *lv, uint32_t at, unsigned lg, const uint16_t *src, size_t m, uint16_t v)
{
    size_t i = 0;
    if (UPQ_WITH_RUNS && !src) {
        /* a run of values: whole bytes of them at once */
        unsigned per = 3u - lg;
        uint8_t fill = (uint8_t)(v ? 0xFFu : 0u);
        for (; i < m && ((at + i) & ((1u << per) - 1u)); i++)
            upq_lev_set(lv, at + (uint32_t)i, lg, v);
        if (lg == 0 || v == 0)
            for (; m - i >= (1u << per); i += 1u << per)
                lv[(at + i) >> per] = fill;
        for (; i < m; i++)
            upq_lev_set(lv, at + (uint32_t)i, lg, v);
        return;
    }
    if (W_RUNS_FAST && lg == 0) {
        /* a bit a level (the checked levels are 0 or 1): whole bytes at once */
        for (; i < m && ((at + i) & 7u); i++)
            upq_lev_set(lv, at + (uint32_t)i, 0, src[i]);
        for (; m - i >= 8; i += 8)
            lv[(at + i) >> 3] = (uint8_t)(src[i] | src[i + 1] << 1 | src[i + 2] << 2 |
                                          src[i + 3] << 3 | src[i + 4] << 4 | src[i + 5] << 5 |
                                          src[i + 6] << 6 | src[i + 7] << 7);
    }
    for (; i < m; i++)
        upq_lev_set(lv, at + (uint32_t)i, lg, src[i]);
}

/*
 * The column-wise fast path of a column without repetition (a level is a
 * row): stages at once the rows from `pos` that fit without a page flush or
 * a dictionary fallback, instead of one row after the other. Returns the
 * rows taken and their values in *nvals; 0 leaves the next row to the
 * row-by-row path, which flushes and falls back. The caller entered the
 * writer (enter()), and nothing here changes what enter() looks at.
 */
static size_t take_flat(upq_wcol *c, upq_wdx *x, const uint16_t *def, const uint8_t *values, size_t pos,
                        size_t vpos, size_t levels, size_t *nvals)
{
    size_t m = levels - pos, i, nv = 0, vs = upq_w_input_stride(c);
    uint32_t room = c->vcap - c->vbytes, b = 0, nv0;
    const uint8_t *vp = values ? values + vpos * vs : (const uint8_t *)0;
    uint8_t *dst;
    if (m > c->lcap - c->nlev)
        m = c->lcap - c->nlev;
    /* the rows whose values fit */
    if (W_RUNS_FAST && c->vsize) {
        size_t fit = room / c->vsize;
        if (!c->max_def || (UPQ_WITH_RUNS && !def)) {
            m = m < fit ? m : fit;
            nv = m;
        } else {
            for (i = 0; i < m; i++)
                if (def_at(c, def, pos + i) == c->max_def && nv++ == fit) {
                    nv--;
                    break;
                }
            m = i;
        }
    } else {
        for (i = 0; i < m; i++) {
            if (def_at(c, def, pos + i) == c->max_def) {
                uint32_t sz = input_size(c, vp + nv * vs);
                if (sz > room - b)
                    break;
                b += sz;
                nv++;
            }
        }
        m = i;
    }
    if (c->dict_on && nv) {
        size_t t = upq_w_dict_run(c, x, vp, nv);
        if (t < nv) {
            /* only the rows before the value that did not fit */
            for (i = 0, nv = 0; nv < t || def_at(c, def, pos + i) != c->max_def; i++)
                if (def_at(c, def, pos + i) == c->max_def)
                    nv++;
            m = i;
        }
    }
    if (c->def)
        lev_put(c->def, c->nlev, c->dlg, def ? def + pos : def, m, c->max_def);
    nv0 = c->nval;
    dst = c->vals + c->vbytes;
    if (W_RUNS_FAST && c->type == UPQ_TYPE_BOOLEAN) {
        /* a loop here, not a call per value */
        for (i = 0; i < nv; i++)
            dst[i] = vp[i] != 0;
        c->vbytes += (uint32_t)nv;
        c->nval += (uint32_t)nv;
    } else if (W_RUNS_FAST && c->type == UPQ_TYPE_BYTE_ARRAY) {
        uint32_t o = 0;
        for (i = 0; i < nv; i++) {
            upq_bytes bv;
            upq_w_in_bytes(vp + i * vs, &bv);
            upq_store_le32(dst + o, bv.len);
            copy_value(dst + o + 4, bv.ptr, bv.len);
            o += 4u + bv.len;
        }
        c->vbytes += o;
        c->nval += (uint32_t)nv;
    } else if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ||
               c->type == UPQ_TYPE_BOOLEAN) {
        for (i = 0; i < nv; i++)
            stage_value(c, vp + i * vs);
    } else if (nv) {
        /* fixed-width values are staged as the caller holds them */
        upq_memcpy(dst, vp, nv * c->vsize);
        c->vbytes += (uint32_t)(nv * c->vsize);
        c->nval += (uint32_t)nv;
    }
    mark_indexed(c, x, nv0);
    c->nlev += (uint32_t)m;
    c->rows += m;
    *nvals = nv;
    return m;
}

/* check_levels' fast pass over a column without repetition, where a level
 * is a row of one value at most (which a page holds: the byte arrays'
 * lengths are checked): one pass over the levels and one over the values.
 * 1 when all is well; 0 sends the call through the full check, which finds
 * what is wrong in order, for its message. */
static int levels_fine(const upq_wcol *c, const uint16_t *def, const uint8_t *vp, size_t levels)
{
    size_t i, nv = 0, vs = upq_w_input_stride(c);
    uint32_t bad = 0;
    int ba = c->type == UPQ_TYPE_BYTE_ARRAY, fl = c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
    if (c->max_def && (!UPQ_WITH_RUNS || def)) {
        for (i = 0; i < levels; i++) {
            bad |= def[i] > c->max_def;
            nv += def[i] == c->max_def;
        }
    } else {
        nv = levels;
    }
    if (nv && !vp)
        bad = 1;
    for (i = 0; !bad && (ba || fl) && i < nv; i++) {
        upq_bytes b;
        upq_w_in_bytes(vp + i * vs, &b);
        bad = (b.len && !b.ptr) || (fl && b.len != (uint32_t)c->type_length) ||
              (ba && b.len > c->vcap - 4u);
    }
    return !bad;
}

/* Checks a whole call before anything is taken. */
static upq_status check_levels(upq_writer *w, const upq_wcol *c, uint32_t col,
                               const uint16_t *def, const uint16_t *rep, const void *values,
                               size_t levels, int run)
{
    size_t i, nv = 0, vs = upq_w_input_stride(c);
    size_t row_lev = 0, row_bytes = 0;
    const uint8_t *vp = (const uint8_t *)values;
    if (UPQ_WITH_RUNS && run && c->max_rep)
        return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "a run is of a column without repetition");
    if ((c->max_def && !def && !(UPQ_WITH_RUNS && run)) || (c->max_rep && !rep))
        return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "levels missing");
    if (c->max_rep && rep[0] != 0)
        return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "a call must start a row (rep[0] == 0)");
    if (W_RUNS_FAST && !c->max_rep && levels_fine(c, def, vp, levels))
        return UPQ_OK;
    for (i = 0; i < levels; i++) {
        uint16_t d = def_at(c, def, i), r = c->max_rep ? rep[i] : 0;
        if (d > c->max_def || r > c->max_rep)
            return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "level above the column's maximum");
        if (r > 0 && d < c->rep_def[r])
            return bad_input(w, UPQ_ERR_INVAL, (int32_t)col,
                             "repetition level without the repeated field defined");
        if (r == 0) {
            row_lev = 0;
            row_bytes = 0;
        }
        row_lev++;
        if (d == c->max_def) {
            uint32_t sz;
            if (!values)
                return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "values missing");
            if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                upq_bytes b;
                upq_w_in_bytes(vp + nv * vs, &b);
                if (b.len && !b.ptr)
                    return bad_input(w, UPQ_ERR_INVAL, (int32_t)col, "byte array without bytes");
                if (c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && b.len != (uint32_t)c->type_length)
                    return bad_input(w, UPQ_ERR_INVAL, (int32_t)col,
                                     "FIXED_LEN_BYTE_ARRAY value of another length");
                if (c->type == UPQ_TYPE_BYTE_ARRAY && b.len > c->vcap - 4u)
                    return bad_input(w, UPQ_ERR_LIMIT, (int32_t)col,
                                     "BYTE_ARRAY value longer than page_size - 4");
                sz = c->vsize ? c->vsize : 4u + b.len;
            } else {
                sz = c->vsize;
            }
            row_bytes += sz;
            nv++;
        }
        if (row_lev > c->lcap || row_bytes > c->vcap)
            return bad_input(w, UPQ_ERR_LIMIT, (int32_t)col, "a row larger than one page");
    }
    return UPQ_OK;
}

/* What every column and row call checks first: the writer is usable, the
 * column exists, and the other way of writing is not under way (`way`:
 * this call's, UPQ_WM_ROWS or UPQ_WM_COLUMNS). The first row call fixes
 * the way; a column call, once it has taken something. Inlined, so that
 * each way's check is only its own. */
UPQ_INLINE upq_status call_check(upq_writer *w, uint32_t column, int way)
{
    uint32_t i;
    if (w->failed)
        return w->failed;
    if (w->closed || w->closing)
        return UPQ_ERR_STATE;
    if (column >= w->ncols)
        return bad_input(w, UPQ_ERR_INVAL, -1, "no such column");
    if (w->mode == (way == UPQ_WM_ROWS ? UPQ_WM_COLUMNS : UPQ_WM_ROWS))
        return bad_input(w, UPQ_ERR_INVAL, (int32_t)column,
                         way == UPQ_WM_ROWS ? "column-wise writing in progress" : "row-wise writing in progress");
    if (way == UPQ_WM_ROWS && w->mode == UPQ_WM_NONE) {
        for (i = 0; i < w->ncols; i++)
            if (w->cols[i].max_rep)
                return bad_input(w, UPQ_ERR_INVAL, (int32_t)i,
                                 "row-wise writing needs a schema without repeated fields");
        w->mode = UPQ_WM_ROWS;
    }
    return UPQ_OK;
}

/* A call that may change what row_ok stands for (its checks, output,
 * flushes): the next row's values take the checks again until a row ends
 * with nothing due or waiting. Only the fast kernels' row path reads it. */
UPQ_INLINE void rows_unready(upq_writer *w)
{
    if (UPQ_FAST_KERNELS)
        w->row_ok = 0;
}

/* The row calls' check: a call of its own, made once per value. */
static upq_status row_call(upq_writer *w, uint32_t column)
{
    return call_check(w, column, UPQ_WM_ROWS);
}

/* upq_writer_write_column, and upq_writer_put_run (`run`: a column without
 * repetition, whose def may be NULL when every entry is a value). */
static upq_status write_col(upq_writer *w, uint32_t column, const uint16_t *def,
                            const uint16_t *rep, const void *values, size_t levels,
                            size_t *consumed, int run)
{
    upq_wcol *c;
    size_t pos = 0, vpos = 0, vs;
    upq_status st;
    *consumed = 0;
    rows_unready(w);
    st = call_check(w, column, UPQ_WM_COLUMNS);
    if (st != UPQ_OK)
        return st;
    c = &w->cols[column];
    if (levels == 0)
        return upq_writer_poll(w);
    st = check_levels(w, c, column, def, rep, values, levels, run);
    if (st != UPQ_OK)
        return st;
    w->mode = UPQ_WM_COLUMNS;
    vs = upq_w_input_stride(c);
    while (pos < levels) {
        size_t k = 1, nv, i, b = 0;
        int restart = 0;
        if (!c->max_rep) {
            st = enter(w);
            if (st != UPQ_OK)
                return st;
            k = take_flat(c, UPQ_W_DX(w, c), def, (const uint8_t *)values, pos, vpos, levels, &nv);
            if (k) {
                pos += k;
                vpos += nv;
                *consumed = pos;
                continue;
            }
            k = 1;
        }
        /* the row's extent */
        while (pos + k < levels && c->max_rep && rep[pos + k] != 0)
            k++;
        nv = 0;
        for (i = pos; i < pos + k; i++)
            if (def_at(c, def, i) == c->max_def) {
                b += input_size(c, value_at(values, vpos + nv, vs));
                nv++;
            }
        st = make_room(w, c, (uint32_t)k, (uint32_t)b);
        if (st != UPQ_OK)
            return st;
        if (c->dict_on) {
            st = dict_take(w, c, value_at(values, vpos, vs), nv, &restart);
            if (st != UPQ_OK)
                return st;
            if (restart)
                continue;
        }
        for (i = 0; i < k; i++) {
            if (c->def)
                upq_lev_set(c->def, c->nlev, c->dlg, def_at(c, def, pos + i));
            if (c->rep)
                upq_lev_set(c->rep, c->nlev, c->rlg, rep[pos + i]);
            c->nlev++;
        }
        for (i = 0; i < nv; i++)
            stage_value(c, value_at(values, vpos + i, vs));
        mark_indexed(c, UPQ_W_DX(w, c), c->nval - (uint32_t)nv);
        c->rows++;
        pos += k;
        vpos += nv;
        *consumed = pos;
    }
    advance_after(w, column);
    return after(w);
}

upq_status upq_writer_write_column(upq_writer *w, uint32_t column, const uint16_t *def,
                                   const uint16_t *rep, const void *values, size_t levels,
                                   size_t *consumed)
{
    return write_col(w, column, def, rep, values, levels, consumed, 0);
}

#if UPQ_WITH_RUNS
upq_status upq_writer_put_run(upq_writer *w, uint32_t column, const void *values,
                              const uint16_t *def, size_t n, size_t *taken)
{
    return write_col(w, column, def, (const uint16_t *)0, values, n, taken, 1);
}
#endif

/* ---- row-wise ------------------------------------------------------------------ */

/* Removes c's entry of the row being set. */
static UPQ_NOINLINE void unstage_pending(upq_wcol *c, upq_wdx *x)
{
    if (!c->pending)
        return;
    c->nlev--;
    if (c->max_def == 0 || upq_lev_get(c->def, c->nlev, c->dlg) == c->max_def) {
        c->nval--;
        c->vbytes = c->pend_off;
        if (x && x->n > c->nval)
            x->n = c->nval;
    }
    c->pending = 0;
}


/* Stages c's entry of the current row, for which there is room: `v` a
 * value, or NULL for null. New data: a later flush or checkpoint is a new
 * request (as in enter()). */
UPQ_INLINE void put_def(upq_wcol *c, const void *v)
{
    if (UPQ_FAST_KERNELS && c->def && c->dlg == 0) {
        /* a bit a level (max_def 1): the bit alone */
        uint8_t *p = c->def + (c->nlev >> 3);
        unsigned b = c->nlev & 7u;
        *p = (uint8_t)((*p & ~(1u << b)) | (v ? 1u << b : 0u));
    } else if (c->def) {
        upq_lev_set(c->def, c->nlev, c->dlg, v ? c->max_def : 0u);
    }
    c->nlev++;
}

UPQ_INLINE void put_level(upq_writer *w, upq_wcol *c, const void *v)
{
    w->flush_wait = 0;
    if (UPQ_W_JOURNAL(w))
        w->jr->ckpt_wait = 0;
    put_def(c, v);
}

static void put_entry(upq_writer *w, upq_wcol *c, const void *v)
{
    put_level(w, c, v);
    if (v) {
        c->pend_off = c->vbytes;
        stage_value(c, v);
        if (c->dict_on)
            mark_indexed(c, UPQ_W_DX(w, c), c->nval - 1u);
    }
    c->pending = 1;
}

/* Stages c's entry of the current row: `v` a value, or NULL for null. */
static upq_status set_entry(upq_writer *w, upq_wcol *c, const void *v)
{
    uint32_t b = v ? input_size(c, v) : 0;
    upq_status st;
    for (;;) {
        int restart = 0;
        /* a column is set once a row, mostly: the call only when it was */
        if (c->pending)
            unstage_pending(c, UPQ_W_DX(w, c));
        st = make_room(w, c, 1, b);
        if (st == UPQ_DONE)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "staging full of uncommitted rows");
        if (st != UPQ_OK)
            return st;
        if (v && c->dict_on) {
            st = dict_take(w, c, (const uint8_t *)v, 1, &restart);
            if (st != UPQ_OK)
                return st;
            if (restart)
                continue;
        }
        break;
    }
    put_entry(w, c, v);
    return UPQ_OK;
}

/*
 * A row call's common case: the writer takes rows with nothing due or
 * waiting (row_ok: what enter() would find, known since the last row
 * ended), the column is not set yet in this row and has room for the
 * entry: value `v` of fixed width in a column
 * keeping no dictionary, a BYTE_ARRAY value (bytes_ready), or NULL (a null,
 * in a column that may hold one). Then put_entry stages it at once; otherwise the
 * call goes set_entry's way (checks, output, flushes, dictionaries), which
 * ends in the same put_entry. Not in builds without UPQ_FAST_KERNELS (the
 * -min and logger sets), where flash counts more.
 */
UPQ_INLINE int set_ready(const upq_writer *w, uint32_t column, const void *v)
{
    const upq_wcol *c;
    if (!w->row_ok || column >= w->ncols)
        return 0;
    c = &w->cols[column];
    if (c->pending || c->nlev >= c->lcap)
        return 0;
    if (!v)
        return c->max_def != 0;
    if (c->vsize)
        return !c->dict_on && c->type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY &&
               c->vsize <= c->vcap - c->vbytes;
    return c->type == UPQ_TYPE_BYTE_ARRAY; /* then bytes_ready */
}

/*
 * set_ready's BYTE_ARRAY value `v` (a logger's device name), when it has
 * bytes, fits the staging and, in a column keeping a dictionary, is found
 * in it or added: then put_entry stages it at once. 0 (nothing changed):
 * set_entry's way, which checks the value, makes room and falls back from
 * a full dictionary.
 */
UPQ_INLINE int bytes_ready(upq_writer *w, upq_wcol *c, const void *v)
{
    upq_bytes b;
    upq_w_in_bytes(v, &b);
    if ((b.len && !b.ptr) || b.len > c->vcap - 4u || 4u + b.len > c->vcap - c->vbytes)
        return 0;
    return !c->dict_on || upq_w_dict_run(c, UPQ_W_DX(w, c), (const uint8_t *)v, 1) == 1;
}

/* upq_writer_set (`v` the value) and upq_writer_set_null (`v` NULL) the
 * checked way; in builds with UPQ_FAST_KERNELS a function apart from the
 * way set_ready opens, which then keeps fewer registers across its calls. */
#if UPQ_FAST_KERNELS
static UPQ_NOINLINE upq_status row_set_checked(upq_writer *w, uint32_t column, const void *v)
#else
static upq_status row_set(upq_writer *w, uint32_t column, const void *v)
#endif
{
    upq_wcol *c;
    upq_status st;
    rows_unready(w); /* the checks below, and what they may start */
    st = row_call(w, column);
    if (st != UPQ_OK)
        return st;
    c = &w->cols[column];
    if (!v) {
        if (c->max_def == 0)
            return bad_input(w, UPQ_ERR_INVAL, (int32_t)column, "null in a required column");
    } else if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        upq_bytes b;
        upq_memcpy(&b, v, sizeof b);
        if (b.len && !b.ptr)
            return bad_input(w, UPQ_ERR_INVAL, (int32_t)column, "byte array without bytes");
        if (c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && b.len != (uint32_t)c->type_length)
            return bad_input(w, UPQ_ERR_INVAL, (int32_t)column,
                             "FIXED_LEN_BYTE_ARRAY value of another length");
        if (c->type == UPQ_TYPE_BYTE_ARRAY && b.len > c->vcap - 4u)
            return bad_input(w, UPQ_ERR_LIMIT, (int32_t)column,
                             "BYTE_ARRAY value longer than page_size - 4");
    }
    return set_entry(w, c, v);
}

#if UPQ_FAST_KERNELS
/* upq_writer_set and upq_writer_set_null: set_ready's entries at once,
 * the rest the checked way. */
static upq_status row_set(upq_writer *w, uint32_t column, const void *v)
{
    upq_wcol *c;
    if (set_ready(w, column, v)) {
        c = &w->cols[column];
#if W_WORDS
        if (v && (c->vsize == 4 || c->vsize == 8)) {
            /* a number of 4 or 8 bytes (no dictionary: set_ready), its
             * words copied here: stage_value's tests and call were half
             * of the entry's instructions */
            uint32_t vb = c->vbytes, vs = c->vsize;
            w_word *dst = (w_word *)(void *)(c->vals + vb);
            w->row_n++;
            put_def(c, v); /* (row_ok: no flush or checkpoint waits) */
            c->pend_off = vb;
            c->vbytes = vb + vs;
            c->nval++;
            c->pending = 1;
            /* the value last: its stores may alias anything */
            dst[0] = ((const w_word *)v)[0];
            if (vs == 8)
                dst[1] = ((const w_word *)v)[1];
            return UPQ_OK;
        }
#endif
        if (!v || c->vsize || bytes_ready(w, c, v)) {
            w->row_n++;
            put_entry(w, c, v);
            return UPQ_OK;
        }
    }
    return row_set_checked(w, column, v);
}
#endif

upq_status upq_writer_set(upq_writer *w, uint32_t column, const void *value)
{
    return row_set(w, column, value);
}

upq_status upq_writer_set_null(upq_writer *w, uint32_t column)
{
    return row_set(w, column, (const void *)0);
}

/*
 * A row's end in one pass over the columns, when every column has its entry
 * of the row and the same rows before it (`same`, found by the caller's
 * first pass), nothing new ends a row group in bytes and no limit is
 * passed: each column takes the row and commits all it staged, as
 * upq_writer_end_row's general pass and upq_w_advance would (commit_to's
 * first case; with UPQ_FAST_KERNELS; 0: not taken, nothing changed).
 */
static int row_end_fast(upq_writer *w, int same)
{
    uint64_t r = w->cols[0].rows + 1u;
    uint64_t lim = UPQ_W_JOURNAL(w) ? w->jr->rg_limit : w->o.row_group_rows;
    upq_wcol *c = w->cols, *end = w->cols + w->ncols;
    if (!UPQ_FAST_KERNELS || !same || (lim && r > lim) || UPQ_W_RG_BYTES(w) || r <= w->rs)
        return 0;
    if (lim && r == lim)
        w->rg_due = 1;
    w->rs = r;
    for (; c != end; c++) {
        c->pending = 0;
        c->rows = r;
        c->crows = r;
        c->clev = c->nlev;
        c->cval = c->nval;
        c->cbytes = c->vbytes;
    }
    if (UPQ_W_JOURNAL(w))
        upq_wj_advanced(w);
    return 1;
}

/* Ends a row that row_end_fast took: what became due is written, and
 * the next row's values may skip the writer's checks when nothing is
 * left due or waiting. */
static upq_status row_ended(upq_writer *w)
{
    upq_status st = after(w);
    if (!UPQ_FAST_KERNELS)
        return st;
    w->row_n = 0;
    w->row_ok = (uint8_t)(st == UPQ_OK && w->ncols <= 0xFFFFu && w->ostage == UPQ_OS_IDLE &&
                          !w->rg_due && !ckpt_due(w) && !w->failed && !w->flush_wait &&
                          !(UPQ_W_JOURNAL(w) && w->jr->ckpt_wait));
    return st;
}

upq_status upq_writer_end_row(upq_writer *w)
{
    uint32_t i;
    int nulls = 0;
    uint64_t r0, diff = 0;
    upq_status st;
    /* every column set once since the last row, each by the fast way
     * (row_ok): the checks and the first pass below would find nothing */
    if (UPQ_FAST_KERNELS && w->row_ok && w->row_n == w->ncols && row_end_fast(w, 1))
        return row_ended(w);
    rows_unready(w);
    st = row_call(w, 0);
    if (st != UPQ_OK)
        return st;
    r0 = w->cols[0].rows;
    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        /* (a null staged before a required column is found unset is the
         * row's entry, which a later set replaces: the row is kept) */
        if (!c->pending) {
            if (c->max_def == 0)
                return bad_input(w, UPQ_ERR_INVAL, (int32_t)i, "required column not set");
            st = set_entry(w, c, (const void *)0);
            if (st != UPQ_OK)
                return st;
            nulls = 1;
        }
        if (UPQ_FAST_KERNELS)
            diff |= c->rows ^ r0;
    }
    st = enter(w);
    if (st != UPQ_OK)
        return st;
    /* (a row group ended by enter() takes its rows from every column
     * alike, upq_w_rg_reset, so that columns equal before are equal now;
     * a row with nulls staged here goes the general way) */
    if (row_end_fast(w, !diff && !nulls))
        return row_ended(w);
    for (i = 0; i < w->ncols; i++) {
        w->cols[i].pending = 0;
        w->cols[i].rows++;
    }
    upq_w_advance(w);
    return after(w);
}

/* ---- flush, close, queries -------------------------------------------------------- */

upq_status upq_writer_poll(upq_writer *w)
{
    upq_status st;
    rows_unready(w);
    if (w->failed)
        return w->failed;
    if (w->ostage == UPQ_OS_IDLE)
        return UPQ_OK;
    st = upq_w_pump(w);
    if (st == UPQ_OK && w->closing && !w->closed)
        return UPQ_AGAIN; /* close still has work: call upq_writer_close */
    return st;
}

/* What flush and checkpoint share once they may run: a request still being
 * written (*wait) goes on with it; otherwise the rows staged so far are
 * taken in, and *go says the caller's own work is to start. */
static upq_status request(upq_writer *w, uint8_t *wait, int *go)
{
    upq_status st;
    *go = 0;
    rows_unready(w);
    if (w->failed)
        return w->failed;
    if (w->closed || w->closing)
        return UPQ_ERR_STATE;
    if (*wait) {
        st = upq_w_pump(w);
        if (st == UPQ_OK)
            *wait = 0;
        return st;
    }
    st = enter(w);
    if (st == UPQ_OK) {
        upq_w_advance(w);
        *go = 1;
    }
    return st;
}

upq_status upq_writer_flush(upq_writer *w)
{
    int go;
    upq_status st = request(w, &w->flush_wait, &go);
    if (!go || w->rs == 0)
        return st;
    st = end_rg(w);
    if (st == UPQ_AGAIN)
        w->flush_wait = 1;
    return st;
}

upq_status upq_writer_checkpoint(upq_writer *w)
{
    upq_status st;
    int go;
    if (!UPQ_W_JOURNAL(w)) /* (nothing changes: rows stay as ready as they were) */
        return w->failed ? w->failed : UPQ_ERR_UNSUPPORTED;
    st = request(w, &w->jr->ckpt_wait, &go);
    if (!go || w->rows_done + w->rs == w->rows_durable)
        return st; /* (go: nothing new to make durable) */
    if (w->rs)
        w->jr->ckpt_due = 1;
    st = w->rs ? due_work(w) : UPQ_OK;
    if (st == UPQ_AGAIN)
        w->jr->ckpt_wait = 1;
    return st;
}

/* A step of closing in checkpoint mode: the last row group, then the
 * finisher (page indexes and footer from what the file holds), then the
 * CLOSE record (close_stage 2: closed). */
static upq_status close_journal_step(upq_writer *w)
{
    if (w->close_stage == 0 && w->rs > 0)
        return end_rg(w);
    upq_wj_start(w, w->close_stage == 0 ? UPQ_WJ_FINISH : UPQ_WJ_CLOSE);
    w->close_stage++;
    return UPQ_OK;
}

/* A step of closing otherwise: the last row groups (with a row limit,
 * tails may make several), then the footer (close_stage 1 on: closed). */
static upq_status close_step(upq_writer *w)
{
    uint32_t i;
    if (!w->log_full && w->rs > 0)
        return upq_w_rg_finish(w);
    if (!w->log_full) {
        for (i = 0; i < w->ncols; i++)
            if (w->cols[i].rows != 0)
                return upq_w_fail(w, UPQ_ERR_INVAL, (int32_t)i, "columns hold different numbers of rows");
    }
    w->close_stage = 1;
    upq_w_footer_start(w);
    return UPQ_OK;
}

upq_status upq_writer_close(upq_writer *w)
{
    upq_status st;
    uint32_t i;
    rows_unready(w);
    if (w->closed)
        return UPQ_ERR_STATE;
    if (w->failed && !(w->failed == UPQ_ERR_NOMEM && w->log_full))
        return w->failed;
    if (!w->closing) {
        if (!w->log_full) {
            st = upq_w_pump(w);
            if (st != UPQ_OK)
                return st;
            for (i = 0; i < w->ncols; i++) {
                if (w->mode == UPQ_WM_ROWS)
                    unstage_pending(&w->cols[i], UPQ_W_DX(w, &w->cols[i])); /* a row not ended is dropped */
                else if (w->cols[i].rows != w->cols[0].rows)
                    return bad_input(w, UPQ_ERR_INVAL, (int32_t)i,
                                     "columns hold different numbers of rows");
            }
            upq_w_advance(w);
        }
        w->closing = 1;
        w->close_stage = 0;
    }
    for (;;) {
        st = upq_w_pump(w); /* idle: nothing to write */
        if (st != UPQ_OK)
            return st;
        if (w->close_stage >= (UPQ_W_JOURNAL(w) ? 2 : 1)) {
            w->closed = 1;
            w->rows_durable = w->rows_done;
            return UPQ_OK;
        }
        st = UPQ_W_JOURNAL(w) ? close_journal_step(w) : close_step(w);
        if (st != UPQ_OK)
            return st;
    }
}

uint64_t upq_writer_rows(const upq_writer *w)
{
    return w->rows_done + w->rs;
}

uint64_t upq_writer_rows_durable(const upq_writer *w)
{
    return w->rows_durable;
}

uint64_t upq_writer_file_size(const upq_writer *w)
{
    return UPQ_W_JOURNAL(w) ? w->jr->hwm : w->file_pos;
}

const upq_error_info *upq_writer_error(const upq_writer *w)
{
    return &w->err;
}

#endif /* UPQ_WITH_WRITER */
