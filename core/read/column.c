/*
 * Column chunk reading: a stage machine over the chunk's bytes.
 *
 *   HEADER -> BODY -> PAGE -> (DATA ... ) -> HEADER ... -> DONE
 *
 * Bytes arrive through a read-ahead window; a page header is decoded as the
 * window fills (any chunking), the bytes after it are the start of the page
 * body, and the rest of the body is read straight into the page buffer. All
 * progress is kept in upq_column_reader, so UPQ_AGAIN from the read callback
 * can happen anywhere and the next call continues there.
 *
 * Memory: a window, the page buffers (compressed and decompressed, grown to
 * the largest page seen), the dictionary, and for a few encodings a value
 * buffer: O(largest page + dictionary) per column, never O(chunk).
 */
#include "uparquet/column.h"
#include "common/crc32.h"
#include "decode/encoding.h"
#include "upq_codec.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "upq_simd.h"
#include "crypto/crypto_int.h"
#include "reader_int.h"
#include "upq_aes.h"
#if UPQ_WITH_PAGE_INDEX
#include "uparquet/page_index.h"
#endif

enum {
    CS_HEADER = 0, /* decoding a page header */
    CS_BODY,       /* reading (or skipping) a page body */
    CS_PAGE,       /* body complete: checksum, decompress, set up decoders */
    CS_DATA,       /* a data page is being consumed */
    CS_DONE,
    CS_FAILED
};

#define WINDOW 512u
#define DEFAULT_MAX_PAGE (256u << 20)

static upq_status col_fail(upq_column_reader *c, upq_status st, uint64_t off, const char *what)
{
    c->stage = CS_FAILED;
    return upq_reader_set_error(c->r, st, off, what, (int32_t)c->rg, (int32_t)c->col, c->page_no);
}

#define MAX_DICT_HEADER 100u
/* A chunk read with a key; never in a build without decryption, so the
 * compiler drops the encrypted paths there. */
#define ENCRYPTED(c) (UPQ_WITH_CRYPTO && (c)->key)

/* parquet-mr up to 1.2.8 left the dictionary page header out of
 * total_compressed_size (PARQUET-816). */
static int old_parquet_mr(const upq_file_metadata *m)
{
    return upq_created_by_older(m, "parquet-mr", sizeof "parquet-mr" - 1, 1, 2, 9);
}

/* parquet-cpp (the name Arrow C++ wrote until its 3.0 renamed it
 * "parquet-cpp-arrow"; its last version was 1.5.1) compressed DATA_PAGE_V2
 * values while writing is_compressed = false (ARROW-10353, ARROW-17100).
 * Arrow C++ and arrow-rs take every v2 page of such a file as compressed;
 * so does this reader. */
static int v2_always_compressed(const upq_file_metadata *m)
{
    return upq_created_by_older(m, "parquet-cpp", sizeof "parquet-cpp" - 1, 2, 0, 0);
}

/* Starts decoding the page header at page_off. */
static void header_start(upq_column_reader *c)
{
    upq_tdec_init(&c->tdec, c->tframes, UPQ_PAGE_HEADER_DEPTH, &upq_page_header_lean_desc, &c->ph,
                  &c->r->arena, c->chunk_end - c->page_off, &c->r->opts.limits);
}

upq_status upq_column_open(upq_column_reader *c, upq_reader *r, uint32_t rg, uint32_t column)
{
    const upq_column_chunk *ch = upq_reader_chunk(r, rg, column);
    const upq_column_metadata *m;
    int64_t start;

    upq_memset(c, 0, sizeof *c);
    c->r = r;
    c->rg = rg;
    c->col = column;
    c->page_no = -1;
    if (!ch)
        return col_fail(c, UPQ_ERR_INVAL, UINT64_MAX, UPQ_MSG("no such column chunk (or not projected)"));
    c->mark = upq_arena_save(&r->arena);
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) ||
        (UPQ_WITH_CRYPTO && upq_reader_implicit_crypto(r))) {
        const char *what;
        upq_status st = upq_reader_chunk_key(r, rg, column, c->mark, &c->key, &what);
        if (st != UPQ_OK)
            return col_fail(c, st, UINT64_MAX, what);
        /* the page header decryption state: only encrypted chunks pay for it */
        c->hs = (upq_cstream *)upq_arena_alloc(&r->arena, sizeof *c->hs);
        if (!c->hs)
            return col_fail(c, UPQ_ERR_NOMEM, UINT64_MAX,
                            UPQ_MSG("arena too small for the column's decryption"));
        c->rg_ord = upq_reader_rg_ordinal(r, rg);
    }
    if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA))
        return col_fail(c, UPQ_ERR_CORRUPT, UINT64_MAX, UPQ_MSG("column chunk without metadata"));
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_FILE_PATH))
        return col_fail(c, UPQ_ERR_UNSUPPORTED, UINT64_MAX, UPQ_MSG("column data stored in another file"));
    m = &ch->meta_data;
    c->m = m;
    c->cd = &r->schema.columns[column];
    if (!upq_codec_can_decompress(m->codec))
        return col_fail(c, UPQ_ERR_UNSUPPORTED, UINT64_MAX,
                        m->codec == UPQ_CODEC_BROTLI ? UPQ_MSG("BROTLI codec not in this build")
                        : m->codec == UPQ_CODEC_LZO  ? UPQ_MSG("LZO codec not supported")
                        : m->codec == UPQ_CODEC_ZSTD ? UPQ_MSG("ZSTD codec not in this build")
                        : m->codec == UPQ_CODEC_GZIP ? UPQ_MSG("GZIP codec not in this build")
                        : m->codec == UPQ_CODEC_LZ4 || m->codec == UPQ_CODEC_LZ4_RAW
                            ? UPQ_MSG("LZ4 codec not in this build")
                            : UPQ_MSG("unknown codec"));
    /* The chunk starts at its dictionary page when there is one. Writers
     * disagree on how they mark "no dictionary" (absent, 0, or equal to the
     * data page offset), so only an earlier, positive offset counts. */
    start = m->data_page_offset;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) &&
        m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    c->pos = (uint64_t)start;
    c->chunk_end = (uint64_t)start + (uint64_t)m->total_compressed_size;
    if (c->chunk_end > r->footer_start)
        c->chunk_end = r->footer_start;
    c->values_left = (uint64_t)m->num_values;
    c->row_start_due = 1;
    c->v2_compressed = (uint8_t)v2_always_compressed(&r->meta);
    /* allow for parquet-mr's missing dictionary page header size, as other
     * readers do */
    if (old_parquet_mr(&r->meta)) {
        uint64_t room = r->footer_start - c->chunk_end;
        c->chunk_end += room < MAX_DICT_HEADER ? room : MAX_DICT_HEADER;
    }
    /* read-ahead no larger than the chunk: a file of many small row groups
     * (a log) reads each chunk in one piece anyway, and its readers, one per
     * column side by side, then fit a small arena */
    c->win_len = c->chunk_end - c->pos < WINDOW ? (uint32_t)(c->chunk_end - c->pos) : WINDOW;
    if (c->win_len == 0)
        c->win_len = 1;
    c->win = (uint8_t *)upq_arena_alloc(&r->arena, c->win_len);
    if (!c->win)
        return col_fail(c, UPQ_ERR_NOMEM, UINT64_MAX, UPQ_MSG("arena too small for the read window"));
    c->stage = c->values_left ? CS_HEADER : CS_DONE;
    c->page_off = c->pos;
    if (c->stage == CS_HEADER)
        header_start(c);
    return UPQ_OK;
}

void upq_column_close(upq_column_reader *c)
{
    if (c->r && ENCRYPTED(c) && c->key != c->r->footer_key)
        upq_aes_wipe((upq_aes_key *)(uintptr_t)c->key);
    if (c->r)
        upq_arena_rewind(&c->r->arena, c->mark);
    c->r = (upq_reader *)0;
}

static size_t align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Gives the page its buffers, carved from one block sized from the page
 * header: the body as stored, the decompressed values, and for the encodings
 * that rebuild values, room for them. The block is reused by later pages; a
 * block at the top of the arena is re-taken in place, another one is
 * replaced by one at least twice as large, so growth wastes at most as much
 * as the block finally holds. */
static int page_block(upq_column_reader *c, size_t raw, size_t page, size_t extra)
{
    upq_arena *a = &c->r->arena;
    size_t need = align8(raw) + align8(page) + 2u * align8(extra);
    if (need > c->block_cap) {
        size_t want = need;
        if (c->block && c->block + c->block_cap == a->base + a->used) {
            upq_arena_rewind(a, (upq_arena_mark)(c->block - a->base));
        } else if (c->block && want < 2u * c->block_cap) {
            want = 2u * c->block_cap;
        }
        c->block = (uint8_t *)upq_arena_alloc(a, want ? want : 1u);
        if (!c->block) {
            c->block_cap = 0;
            return 0;
        }
        c->block_cap = want;
    }
    c->raw = c->block;
    c->page = c->block + align8(raw);
    c->vb.buf = c->page + align8(page);
    c->vb.cap = extra;
    c->prev_buf = c->vb.buf + align8(extra);
    c->prev_cap = extra;
    return 1;
}

/* Values section bytes a page's encoding may need rebuilt outside the page. */
static size_t rebuilt_bytes(const upq_column_reader *c, int32_t enc, size_t page_len)
{
    if (enc == UPQ_ENC_DELTA_BYTE_ARRAY ||
        (enc == UPQ_ENC_BYTE_STREAM_SPLIT && c->cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY))
        return page_len;
    return 0;
}

#if UPQ_WITH_PAGE_INDEX
/* Gives the column its own window back after a whole page was read. */
static void own_window(upq_column_reader *c)
{
    if (c->whole_page) {
        c->win = c->win_own;
        c->win_len = c->win_own_len;
        c->whole_page = 0;
    }
}
#endif

/* Refills the window from the chunk. UPQ_OK with at least one new byte. */
static upq_status fill_window(upq_column_reader *c)
{
    uint64_t want = c->chunk_end - c->pos;
    const char *what = "";
    upq_status st;
#if UPQ_WITH_PAGE_INDEX
    if (c->whole_page == 2) /* that page's bytes are all consumed */
        own_window(c);
    else if (c->whole_page == 1)
        want = c->win_len; /* the page, header and body (within the chunk: checked) */
#endif
    if (want == 0)
        return col_fail(c, UPQ_ERR_CORRUPT, c->pos, UPQ_MSG("column chunk ends before all its values"));
    st = upq_io_fill(&c->r->io, &c->pos, c->win, c->win_len, want, &c->win_fill, &what);
    if (st != UPQ_OK)
        return st == UPQ_AGAIN ? st : col_fail(c, st, c->pos, what);
    c->win_used = 0;
#if UPQ_WITH_PAGE_INDEX
    if (c->whole_page == 1)
        c->whole_page = 2;
#endif
    return UPQ_OK;
}

/* File offset of the next unconsumed chunk byte. */
static uint64_t cursor(const upq_column_reader *c)
{
    return c->pos - (c->win_fill - c->win_used);
}

/* The page just read is done with: the next one's header is to come, its
 * decoding started when `start`. */
static void next_header(upq_column_reader *c, int start)
{
    c->stage = CS_HEADER;
    c->page_off = cursor(c);
    if (start)
        header_start(c);
}

/* An encrypted page: its module's framing, its ordinal for the AAD. */
static upq_status body_crypto(upq_column_reader *c, uint64_t body_start)
{
    const upq_page_header *ph = &c->ph;
    int module = ph->type == UPQ_PAGE_DICTIONARY ? UPQ_MODULE_DICT_PAGE : UPQ_MODULE_DATA_PAGE;
    if (c->r->fc.no_aad) {
        /* DuckDB states the plaintext size; the module adds its framing */
        uint64_t n = (uint64_t)c->body_len + upq_crypto_overhead(&c->r->fc, module);
        if (n > c->chunk_end - body_start)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("page extends past its column chunk"));
        c->body_len = (uint32_t)n;
    }
    if (c->body_len < upq_crypto_overhead(&c->r->fc, module))
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("encrypted page shorter than its framing"));
    if (ph->type == UPQ_PAGE_DICTIONARY) {
        if (c->hs->module != UPQ_MODULE_DICT_PAGE_HEADER)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("dictionary page not first in its chunk"));
        c->page_ord = -1;
    } else {
        c->page_ord = c->data_pages++;
    }
    return UPQ_OK;
}

#if UPQ_WITH_PAGE_INDEX
/* The page the index sent us to must be the one it describes (a failure
 * here sends next_page back to the header scan). */
static upq_status check_jump(upq_column_reader *c, uint64_t body_start)
{
    const upq_page_header *ph = &c->ph;
    uint64_t rows = (uint64_t)-1; /* v1 pages of repeated columns do not say */
    if (ph->type == UPQ_PAGE_DATA_V2)
        rows = (uint64_t)ph->data_page_header_v2.num_rows;
    else if (ph->type == UPQ_PAGE_DATA && !c->cd->max_rep)
        rows = (uint64_t)ph->data_page_header.num_values;
    if ((ph->type != UPQ_PAGE_DATA && ph->type != UPQ_PAGE_DATA_V2) ||
        body_start - c->page_off + c->body_len != c->jump_size)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off,
                        UPQ_MSG("page index disagrees with the page at its offset"));
    if (rows != (uint64_t)-1 && rows != c->jump_rows)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off,
                        UPQ_MSG("page index disagrees with the page's row count"));
    c->jump_check = 0;
    return UPQ_OK;
}
#endif

/* A dictionary page's header: its value array sized, both allocated (or
 * their sizes gathered when planning); its body is read next. */
static upq_status begin_dict(upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    upq_arena *a = &c->r->arena;
    if (!UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DICTIONARY_PAGE_HEADER))
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("dictionary page without its header"));
    if (c->has_dict)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("second dictionary page in a chunk"));
    if (c->scan) {
        size_t n = ph->dictionary_page_header.num_values > 0
                       ? (size_t)ph->dictionary_page_header.num_values : 0;
        c->scan->dict = align8((size_t)ph->uncompressed_page_size + 1u) +
                        align8(n * upq_value_size(c->cd->physical_type));
        c->has_dict = 1;
        c->stage = CS_BODY;
        return UPQ_OK;
    }
    /* The dictionary lives as long as the chunk: its bytes and its value
     * array are allocated now, below the page block, so the block stays
     * at the top of the arena and later pages can re-take it in place. */
    if (ph->dictionary_page_header.num_values < 0 ||
        (uint64_t)ph->dictionary_page_header.num_values > 8u * (uint64_t)ph->uncompressed_page_size)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("dictionary size does not fit its page"));
    c->dict_buf = (uint8_t *)upq_arena_alloc(a, (size_t)ph->uncompressed_page_size + 1u);
    c->dict_vals_cap = align8((size_t)ph->dictionary_page_header.num_values *
                              upq_value_size(c->cd->physical_type));
    c->dict_vals = (uint8_t *)upq_arena_alloc(a, c->dict_vals_cap);
    if (!c->dict_buf || !c->dict_vals)
        return col_fail(c, UPQ_ERR_NOMEM, c->page_off, UPQ_MSG("arena too small for the dictionary"));
    c->stage = CS_BODY;
    return UPQ_OK;
}

/* Checks a decoded page header and prepares reading its body. */
static upq_status begin_body(upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    uint64_t body_start = cursor(c);
    uint32_t max_page = c->r->opts.max_page_size ? c->r->opts.max_page_size : DEFAULT_MAX_PAGE;

    c->page_no++;
    if (ph->compressed_page_size < 0 || ph->uncompressed_page_size < 0)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("negative page size"));
    if ((uint64_t)ph->compressed_page_size > c->chunk_end - body_start)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("page extends past its column chunk"));
    if ((uint32_t)ph->uncompressed_page_size > max_page) {
        col_fail(c, UPQ_ERR_LIMIT, c->page_off, UPQ_MSG("page larger than upq_reader_opts.max_page_size (default 256 MiB): raise it to read this file"));
        c->r->err.needed = (uint32_t)ph->uncompressed_page_size;
        return UPQ_ERR_LIMIT;
    }
    c->body_len = (uint32_t)ph->compressed_page_size;
    c->body_fill = 0;
#if UPQ_WITH_PAGE_INDEX
    if (c->jump_pending && (ph->type == UPQ_PAGE_DATA || ph->type == UPQ_PAGE_DATA_V2)) {
        /* a data page before the index's first one: the index misses
         * pages, so it is not followed (the header scan goes on) */
        c->jump_pending = 0;
        c->index_used = 0;
        c->pidx_status = UPQ_ERR_CORRUPT;
        c->pidx_what = UPQ_MSG("a data page lies before the page index's first page");
    }
#endif
    if (ENCRYPTED(c)) {
        upq_status st = body_crypto(c, body_start);
        if (st != UPQ_OK)
            return st;
    }
#if UPQ_WITH_PAGE_INDEX
    if (c->jump_check) {
        upq_status st = check_jump(c, body_start);
        if (st != UPQ_OK)
            return st;
    }
#endif
    switch (ph->type) {
    case UPQ_PAGE_DICTIONARY:
        return begin_dict(c);
    case UPQ_PAGE_DATA:
        if (!UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER))
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("data page without its header"));
        if (ph->data_page_header.num_values < 0 ||
            (uint64_t)ph->data_page_header.num_values > c->values_left)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off,
                            UPQ_MSG("page holds more values than its column chunk"));
        break;
    case UPQ_PAGE_DATA_V2: {
        const upq_data_page_header_v2 *h = &ph->data_page_header_v2;
        if (!UPQ_ISSET(*ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2))
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("data page v2 without its header"));
        if (h->num_values < 0 || (uint64_t)h->num_values > c->values_left)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off,
                            UPQ_MSG("page holds more values than its column chunk"));
        if (h->num_nulls < 0 || h->num_nulls > h->num_values || h->num_rows < 0 ||
            h->definition_levels_byte_length < 0 || h->repetition_levels_byte_length < 0 ||
            (int64_t)h->definition_levels_byte_length + h->repetition_levels_byte_length >
                ph->compressed_page_size ||
            (int64_t)h->definition_levels_byte_length + h->repetition_levels_byte_length >
                ph->uncompressed_page_size)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("inconsistent data page v2 header"));
        break;
    }
    default:
        break; /* index pages and page types from the future: skipped */
    }
    c->stage = CS_BODY;
    return UPQ_OK;
}

static int is_data_page(int32_t type)
{
    return type == UPQ_PAGE_DATA || type == UPQ_PAGE_DATA_V2;
}

static uint32_t page_num_values(const upq_page_header *ph)
{
    return (uint32_t)(ph->type == UPQ_PAGE_DATA ? ph->data_page_header.num_values
                                                : ph->data_page_header_v2.num_values);
}

/* Can a pending skip pass over this whole page without decoding it? */
static int page_skippable(const upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    if (!c->skip_left || !is_data_page(ph->type))
        return 0;
    if (c->cd->max_rep == 0) /* flat: one value slot per row */
        return page_num_values(ph) <= c->skip_left;
    /* v2 pages start and end on row boundaries and say how many rows they hold */
    return ph->type == UPQ_PAGE_DATA_V2 && ph->data_page_header_v2.num_rows >= 0 &&
           (uint64_t)ph->data_page_header_v2.num_rows <= c->skip_left;
}

/* The page buffers the current page needs (see page_block). */
static void page_needs(const upq_column_reader *c, size_t *raw, size_t *page, size_t *extra)
{
    const upq_page_header *ph = &c->ph;
    size_t ulen = (size_t)ph->uncompressed_page_size;
    int compressed = c->m->codec != UPQ_CODEC_UNCOMPRESSED;
    *raw = c->body_len;
    *page = *extra = 0;
    if (ph->type == UPQ_PAGE_DATA) {
        *page = compressed ? ulen : 0;
        *extra = rebuilt_bytes(c, ph->data_page_header.encoding, ulen);
    } else if (ph->type == UPQ_PAGE_DATA_V2) {
        *page = compressed ? ulen : 0;
        *extra = rebuilt_bytes(c, ph->data_page_header_v2.encoding, ulen);
    } else if (ph->type == UPQ_PAGE_DICTIONARY && !compressed && !ENCRYPTED(c)) {
        *raw = 0; /* read straight into the dictionary's own buffer */
    }
}

#if UPQ_WITH_LEND
/* A page body the io can lend whole is taken where it lies: decoded there
 * when stored uncompressed, decompressed from there otherwise, never copied.
 * UPQ_OK with *p set when lent (the window's copy of its first bytes is
 * passed over), UPQ_DONE when the body is to be read (no lend, a short lend,
 * an encrypted chunk, whose pages are decrypted in place, or an uncompressed
 * dictionary, which is read into its own buffer). */
static upq_status lend_body(upq_column_reader *c, const uint8_t **p)
{
    const upq_io *io = &c->r->io;
    uint64_t at = cursor(c);
    uint32_t inwin = c->win_fill - c->win_used;
    const void *lent = (const void *)0;
    size_t got = 0;
    upq_status st;
    if (!io->lend || ENCRYPTED(c) || !c->body_len ||
        (c->ph.type == UPQ_PAGE_DICTIONARY && c->m->codec == UPQ_CODEC_UNCOMPRESSED))
        return UPQ_DONE;
    st = io->lend(io->ctx, at, c->body_len, &lent, &got);
    if (st == UPQ_AGAIN)
        return UPQ_AGAIN;
    if (st != UPQ_OK)
        return col_fail(c, UPQ_ERR_IO, at, UPQ_MSG("lend failed"));
    if (got < c->body_len || !lent)
        return UPQ_DONE;
    if (inwin >= c->body_len) {
        c->win_used += c->body_len;
    } else {
        c->win_used = c->win_fill;
        c->pos = at + c->body_len;
    }
    c->body_fill = c->body_len;
    *p = (const uint8_t *)lent;
    return UPQ_OK;
}
#endif

static upq_status read_body(upq_column_reader *c)
{
    int keep = (c->ph.type == UPQ_PAGE_DICTIONARY || is_data_page(c->ph.type)) &&
               !page_skippable(c);
    uint8_t *dst = (uint8_t *)0;
    size_t raw, page, extra;

    if (keep && !c->body_fill) {
        const uint8_t *lent = (const uint8_t *)0;
        page_needs(c, &raw, &page, &extra);
        if (c->scan) {
            upq_scan_sizes *z = c->scan;
            size_t need = align8(raw) + align8(page) + 2u * align8(extra);
            size_t cw = upq_decompress_page_workspace(c->m->codec, (size_t)c->ph.uncompressed_page_size);
            if (need > z->block)
                z->block = need;
            if (need > z->cap) { /* page_block's growth, never in place */
                size_t want = z->cap && need < 2u * z->cap ? 2u * z->cap : need;
                z->sum += want;
                z->cap = want;
            }
            if (cw > z->codec)
                z->codec = cw;
            keep = 0;
        } else {
#if UPQ_WITH_LEND
            upq_status st = lend_body(c, &lent);
            if (st != UPQ_DONE && st != UPQ_OK)
                return st;
            if (lent)
                raw = 0;
#endif
            if ((raw || page || extra) && !page_block(c, raw, page, extra))
                return col_fail(c, UPQ_ERR_NOMEM, c->page_off, UPQ_MSG("arena too small for a page"));
            if (lent) {
                /* never written: encrypted chunks, decrypted in place, are not lent */
                c->raw = (uint8_t *)(uintptr_t)lent;
                c->stage = CS_PAGE;
                return UPQ_OK;
            }
        }
    }
    if (keep)
        dst = c->ph.type == UPQ_PAGE_DICTIONARY && c->m->codec == UPQ_CODEC_UNCOMPRESSED && !ENCRYPTED(c)
                  ? c->dict_buf
                  : c->raw;
    /* bytes already in the window first */
    if (c->win_used < c->win_fill && c->body_fill < c->body_len) {
        uint32_t take = c->win_fill - c->win_used;
        if (take > c->body_len - c->body_fill)
            take = c->body_len - c->body_fill;
        if (dst) /* a whole page read into the block may overlap where its body goes */
            upq_memmove(dst + c->body_fill, c->win + c->win_used, take);
        c->win_used += take;
        c->body_fill += take;
    }
    while (c->body_fill < c->body_len) {
        size_t got = 0;
        size_t want = c->body_len - c->body_fill;
        const char *what = "";
        upq_status st;
        if (!dst) { /* skipped body: no read at all */
            c->pos += want;
            c->body_fill = c->body_len;
            break;
        }
        st = upq_io_read(&c->r->io, c->pos, dst + c->body_fill, want, &got, &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return col_fail(c, st, c->pos, what);
        c->pos += got;
        c->body_fill += (uint32_t)got;
    }
    if (!keep) {
        if (is_data_page(c->ph.type)) {
            uint64_t n = page_num_values(&c->ph);
            uint64_t rows = c->cd->max_rep ? (uint64_t)c->ph.data_page_header_v2.num_rows : n;
            c->values_left -= n;
            c->skip_left -= rows < c->skip_left ? rows : c->skip_left;
        }
        return UPQ_DONE; /* page consumed */
    }
    c->stage = CS_PAGE;
    return UPQ_OK;
}

/* Sets up one level stream of a v1 page at *p (advancing it). */
static upq_status v1_levels(upq_column_reader *c, int32_t enc, uint16_t max_level,
                            const uint8_t **p, const uint8_t *end, upq_rle_dec *rle,
                            upq_bitpacked_dec *bpd, uint8_t *is_bp)
{
    unsigned bw = upq_bit_width32(max_level);
    uint32_t n = (uint32_t)c->ph.data_page_header.num_values;
    size_t len;
    if (enc == UPQ_ENC_RLE) {
        if (end - *p < 4)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("levels length missing"));
        len = upq_load_le32(*p);
        *p += 4;
        if (len > (size_t)(end - *p))
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("levels longer than their page"));
        upq_rle_init(rle, *p, len, bw);
        *is_bp = 0;
    } else if (enc == UPQ_ENC_BIT_PACKED) {
        len = upq_bitpacked_len(n, bw);
        if (len > (size_t)(end - *p))
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("levels longer than their page"));
        upq_bitpacked_init(bpd, *p, len, bw);
        *is_bp = 1;
    } else {
        return col_fail(c, UPQ_ERR_UNSUPPORTED, c->page_off, UPQ_MSG("level encoding not RLE or BIT_PACKED"));
    }
    *p += len;
    return UPQ_OK;
}

static upq_status setup_values(upq_column_reader *c, int32_t enc, const uint8_t *p,
                               size_t len, uint32_t n)
{
    upq_status st;
    if ((enc == UPQ_ENC_PLAIN_DICTIONARY || enc == UPQ_ENC_RLE_DICTIONARY) && !c->has_dict)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("dictionary-encoded page without a dictionary"));
    /* values that must be rebuilt go to the value buffer (page_block sized
     * it from the page, so a page's worth always fits and every read makes
     * progress); DELTA_BYTE_ARRAY also keeps the previous value */
    st = upq_values_init(&c->vals, enc, c->cd->physical_type, c->cd->type_length, p, len, n,
                         c->has_dict ? &c->dict : (const upq_dict *)0,
                         enc == UPQ_ENC_DELTA_BYTE_ARRAY ? c->prev_buf : (uint8_t *)0,
                         enc == UPQ_ENC_DELTA_BYTE_ARRAY ? c->prev_cap : 0);
    if (st != UPQ_OK)
        return col_fail(c, st, c->page_off,
                        st == UPQ_ERR_UNSUPPORTED ? UPQ_MSG("encoding not valid for this column type")
                                                  : UPQ_MSG("malformed values section"));
    return UPQ_OK;
}

/* An encrypted page body is complete in raw: authenticate and decrypt it in
 * place; raw/body_len then describe the plaintext as for a plain page. */
static upq_status decrypt_page(upq_column_reader *c)
{
    int dict = c->ph.type == UPQ_PAGE_DICTIONARY;
    uint8_t *plain;
    size_t n;
    upq_status st = upq_crypto_decrypt_module(&c->r->fc, c->key,
                                              dict ? UPQ_MODULE_DICT_PAGE : UPQ_MODULE_DATA_PAGE,
                                              c->rg_ord, (int32_t)c->col, c->page_ord, c->raw,
                                              c->body_len, &plain, &n);
    if (st != UPQ_OK)
        return col_fail(c, st, c->page_off,
                        st == UPQ_ERR_AUTH    ? UPQ_MSG("encrypted page fails authentication (wrong key or AAD, or altered)")
                        : st == UPQ_ERR_LIMIT ? UPQ_MSG("page ordinal beyond 32767")
                                              : UPQ_MSG("encrypted page framing disagrees with its header"));
    c->raw = plain;
    c->body_len = (uint32_t)n;
    if (dict && c->m->codec == UPQ_CODEC_UNCOMPRESSED) {
        if (n != (size_t)c->ph.uncompressed_page_size)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("uncompressed page sizes differ"));
        upq_memcpy(c->dict_buf, plain, n);
    }
    return UPQ_OK;
}

/* The next page header is an encrypted module: authenticate it, then feed
 * its plaintext to the header decoder. The read-ahead window is given up
 * for the module's own two passes; the body is read after it. */
static upq_status encrypted_header(upq_column_reader *c)
{
    const upq_column_metadata *m = c->m;
    if (!c->hs_started) {
        int dict = c->data_pages == 0 && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) &&
                   m->dictionary_page_offset > 0 && m->dictionary_page_offset < m->data_page_offset &&
                   c->page_off == (uint64_t)m->dictionary_page_offset && !c->has_dict;
        upq_cstream_init(c->hs, c->page_off, c->chunk_end,
                         dict ? UPQ_MODULE_DICT_PAGE_HEADER : UPQ_MODULE_DATA_PAGE_HEADER, c->rg_ord,
                         (int32_t)c->col, dict ? -1 : c->data_pages);
        c->pos = c->page_off;
        c->win_fill = c->win_used = 0;
        c->hs_started = 1;
        c->hs_done = 0;
    }
    for (;;) {
        const uint8_t *p;
        size_t n, used = 0;
        uint64_t at = UINT64_MAX;
        const char *what = "";
        upq_status st = upq_cstream_next(c->hs, &c->r->io, &c->r->fc, c->key, c->win, c->win_len,
                                         &p, &n, &at, &what);
        if (st == UPQ_AGAIN)
            return st;
        if (st == UPQ_DONE) {
            if (!c->hs_done)
                return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("page header ends inside its module"));
            c->pos = upq_cstream_end(c->hs);
            c->win_fill = c->win_used = 0;
            c->hs_started = 0;
            return UPQ_OK;
        }
        if (st != UPQ_OK)
            return col_fail(c, st, at, what);
        if (c->hs_done)
            continue; /* authenticated padding after the header, as in the footer */
        st = upq_tdec_feed(&c->tdec, p, n, &used);
        if (st == UPQ_OK) {
            c->hs_done = 1;
        } else if (st != UPQ_AGAIN) {
            col_fail(c, st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st, c->page_off,
                     st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for a page header") : UPQ_MSG("malformed page header"));
            c->r->err.in_struct = c->tdec.err_struct;
            c->r->err.field = c->tdec.err_field;
            return c->r->err.status;
        }
    }
}

/* A dictionary page's body: decompressed into its buffer, decoded. UPQ_DONE. */
static upq_status dict_page(upq_column_reader *c, const uint8_t *body)
{
    const upq_page_header *ph = &c->ph;
    upq_arena *a = &c->r->arena;
    size_t ulen = (size_t)ph->uncompressed_page_size;
    upq_status st;
    const upq_dictionary_page_header *dh = &ph->dictionary_page_header;
    if (body != c->dict_buf) {
        st = upq_decompress_with(&c->r->crc_kernel, c->m->codec, body, c->body_len, c->dict_buf, ulen, a);
        if (st != UPQ_OK)
            return col_fail(c, st, c->page_off, st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for the codec")
                                                                    : UPQ_MSG("dictionary page does not decompress"));
    } else if (c->body_len != ulen) {
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("uncompressed page sizes differ"));
    }
    if (dh->num_values < 0)
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("negative dictionary size"));
    if (dh->encoding != UPQ_ENC_PLAIN && dh->encoding != UPQ_ENC_PLAIN_DICTIONARY)
        return col_fail(c, UPQ_ERR_UNSUPPORTED, c->page_off, UPQ_MSG("dictionary page not PLAIN"));
    {
        upq_arena vals; /* exactly the array reserved with the page header */
        upq_arena_init(&vals, c->dict_vals, c->dict_vals_cap);
        st = upq_dict_decode(&c->dict, c->cd->physical_type, c->cd->type_length, c->dict_buf,
                             ulen, (uint32_t)dh->num_values, &vals);
    }
    if (st != UPQ_OK)
        return col_fail(c, st, c->page_off, st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for the dictionary")
                                                                : UPQ_MSG("malformed dictionary page"));
    c->has_dict = 1;
    return UPQ_DONE;
}

/* A data page's values set up (nvals of them, from p): its levels (one a
 * row slot) are to be read. */
static upq_status data_ready(upq_column_reader *c, int32_t enc, const uint8_t *p, size_t len,
                             uint32_t nvals, uint32_t levels)
{
    upq_status st = setup_values(c, enc, p, len, nvals);
    if (st != UPQ_OK)
        return st;
    c->levels_left = levels;
    c->values_left -= levels;
    c->stage = CS_DATA;
    return UPQ_OK;
}

/* len stored bytes from src decompressed into c->page (ulen of them). */
static upq_status decompress_body(upq_column_reader *c, const uint8_t *src, size_t len, size_t ulen)
{
    upq_status st = upq_decompress_with(&c->r->crc_kernel, c->m->codec, src, len, c->page, ulen,
                                        &c->r->arena);
    if (st != UPQ_OK)
        return col_fail(c, st, c->page_off, st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for the codec")
                                                                : UPQ_MSG("page does not decompress"));
    return UPQ_OK;
}

/* A v1 data page's body: decompressed, its levels and values set up. */
static upq_status data_page_v1(upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    size_t ulen = (size_t)ph->uncompressed_page_size;
    upq_status st;
    const upq_data_page_header *h = &ph->data_page_header;
    const uint8_t *p, *end;
    if (c->m->codec == UPQ_CODEC_UNCOMPRESSED) {
        if (c->body_len != ulen)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("uncompressed page sizes differ"));
        c->page = c->raw;
    } else if ((st = decompress_body(c, c->raw, c->body_len, ulen)) != UPQ_OK) {
        return st;
    }
    p = c->page;
    end = p + ulen;
    c->v2 = 0;
    if (c->cd->max_rep) {
        st = v1_levels(c, h->repetition_level_encoding, c->cd->max_rep, &p, end, &c->rep_rle,
                       &c->rep_bpd, &c->rep_bp);
        if (st != UPQ_OK)
            return st;
    }
    if (c->cd->max_def) {
        st = v1_levels(c, h->definition_level_encoding, c->cd->max_def, &p, end, &c->def_rle,
                       &c->def_bpd, &c->def_bp);
        if (st != UPQ_OK)
            return st;
    }
    return data_ready(c, h->encoding, p, (size_t)(end - p), (uint32_t)h->num_values,
                      (uint32_t)h->num_values);
}

/* A v2 data page's body: levels as stored, values decompressed and set up. */
static upq_status data_page_v2(upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    size_t ulen = (size_t)ph->uncompressed_page_size;
    upq_status st;
    const upq_data_page_header_v2 *h = &ph->data_page_header_v2;
    uint32_t rl = (uint32_t)h->repetition_levels_byte_length;
    uint32_t dl = (uint32_t)h->definition_levels_byte_length;
    size_t vlen_stored = c->body_len - rl - dl, vlen = ulen - rl - dl;
    const uint8_t *vals = c->raw + rl + dl;
    /* is_compressed defaults to true when absent; old parquet-cpp wrote
     * false over compressed values */
    int compressed = !UPQ_ISSET(*h, UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED) || h->is_compressed ||
                     c->v2_compressed;
    c->v2 = 1;
    c->row_start_due = 1;
    c->rep_bp = c->def_bp = 0;
    upq_rle_init(&c->rep_rle, c->raw, rl, upq_bit_width32(c->cd->max_rep));
    upq_rle_init(&c->def_rle, c->raw + rl, dl, upq_bit_width32(c->cd->max_def));
    /* An empty values section (an all-null page) may be stored empty or
     * as the codec's encoding of nothing (hyparquet-writer stores one
     * byte of SNAPPY): only a stored empty section skips the codec, and
     * a stored non-empty one must inflate to nothing. */
    if (compressed && c->m->codec != UPQ_CODEC_UNCOMPRESSED && (vlen > 0 || vlen_stored > 0)) {
        st = decompress_body(c, vals, vlen_stored, vlen);
        if (st != UPQ_OK)
            return st;
        vals = c->page;
    } else if (vlen_stored != vlen) {
        /* uncompressed, or stored empty: stored and stated sizes agree */
        return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("uncompressed page sizes differ"));
    }
    return data_ready(c, h->encoding, vals, vlen, (uint32_t)(h->num_values - h->num_nulls),
                      (uint32_t)h->num_values);
}

/* The page body is complete: verify, decompress and prepare decoding. */
static upq_status process_page(upq_column_reader *c)
{
    const upq_page_header *ph = &c->ph;
    const uint8_t *body;
    upq_status st;
    uint32_t crc_stored = 0;

    if (ENCRYPTED(c)) {
        /* parquet-mr checksums the page as stored (encrypted) */
        crc_stored = upq_crc32_update_with(&c->r->crc_kernel, 0, c->raw, c->body_len);
        st = decrypt_page(c);
        if (st != UPQ_OK)
            return st;
    }
    body = ph->type == UPQ_PAGE_DICTIONARY && c->m->codec == UPQ_CODEC_UNCOMPRESSED ? c->dict_buf
                                                                                    : c->raw;

    if (UPQ_WITH_CRC && UPQ_ISSET(*ph, UPQ_PAGE_HEADER_CRC) && !c->r->opts.no_crc_check &&
        !(ENCRYPTED(c) && crc_stored == (uint32_t)ph->crc) &&
        upq_crc32_update_with(&c->r->crc_kernel, 0, body, c->body_len) != (uint32_t)ph->crc)
        return col_fail(c, UPQ_ERR_CRC, c->page_off, UPQ_MSG("page checksum mismatch"));

    if (ph->type == UPQ_PAGE_DICTIONARY)
        return dict_page(c, body);
    return ph->type == UPQ_PAGE_DATA ? data_page_v1(c) : data_page_v2(c);
}

#if UPQ_WITH_PAGE_INDEX
/* The page the OffsetIndex sent the reader to has a known size, header
 * included: read it in one piece into the page block, which serves as the
 * window until its bytes are consumed, so a seek costs one read there
 * instead of two (header, then the body past the window). The body is moved
 * down in place where the block holds it. Only when the block can take it
 * at the arena's top, where it later grows in place: otherwise the column's
 * own window does, as without an index. Lent and encrypted pages go their
 * own ways. */
static void whole_page(upq_column_reader *c)
{
    upq_arena *a = &c->r->arena;
    size_t need = align8(c->jump_size);
    int top = c->block && c->block + c->block_cap == a->base + a->used;
    if (c->jump_size <= c->win_len || c->scan || ENCRYPTED(c) ||
        c->jump_size > c->chunk_end - c->pos)
        return;
#if UPQ_WITH_LEND
    if (c->r->io.lend)
        return;
#endif
    if (need > c->block_cap) {
        if (c->block && !top)
            return;
        if (need - (top ? c->block_cap : 0u) > upq_arena_remaining(a))
            return;
        if (!page_block(c, c->jump_size, 0, 0))
            return;
    }
    c->win_own = c->win;
    c->win_own_len = c->win_len;
    c->win = c->block;
    c->win_len = c->jump_size;
    c->whole_page = 1;
}

/* Goes to the page upq_column_seek chose. The pages before it are never
 * read, so values_left stays an upper bound and the chunk ends where the
 * index's last page does; the page must start a row. */
static void jump(upq_column_reader *c)
{
    c->jump_pending = 0;
    c->jumped = 1;
    c->jump_check = 1;
    c->resume_off = c->page_off;
    c->resume_page = c->page_no;
    c->pos = c->page_off = c->jump_off;
    c->win_fill = c->win_used = 0;
    c->page_no = c->jump_page + (c->has_dict ? 1 : 0) - 1;
    c->data_pages = c->jump_page;
    c->row_start_due = 1;
    c->jump_skipped = c->jump_row < c->skip_left ? c->jump_row : c->skip_left;
    c->skip_left -= c->jump_skipped;
    header_start(c);
    whole_page(c);
}

/* The page the index pointed at is not the one it describes (a header that
 * does not decode there, another size or row count): back to where the jump
 * left from, and on by the header scan, so a false index costs reads, not
 * rows. Returns 0 when `st` is not such a failure. */
static int unjump(upq_column_reader *c, upq_status st)
{
    if (!c->jump_check || st == UPQ_ERR_IO || st == UPQ_ERR_NOMEM)
        return 0;
    c->jump_check = 0;
    c->jumped = 0;
    c->index_used = 0;
    c->pidx_status = st;
    c->pidx_what = c->r->err.what;
    c->r->err.status = UPQ_OK;
    own_window(c);
    c->pos = c->page_off = c->resume_off;
    c->win_fill = c->win_used = 0;
    c->page_no = c->resume_page;
    c->data_pages = 0;
    c->hs_started = 0;
    c->row_start_due = 1;
    c->skip_left += c->jump_skipped;
    c->stage = CS_HEADER;
    header_start(c);
    return 1;
}
#else
#define unjump(c, st) 0
#endif

/* A page's header read, with outcome st: its body begun. A page that cannot
 * be begun is jumped over where the reader may (unjump): UPQ_OK then too,
 * and the caller's loop goes on. */
static upq_status after_header(upq_column_reader *c, upq_status st)
{
    if (st == UPQ_OK)
        st = begin_body(c);
    return st < 0 && unjump(c, st) ? UPQ_OK : st;
}

/* Moves to the next data page (reading headers, bodies, dictionaries).
 * UPQ_OK: a data page is ready (CS_DATA); UPQ_DONE: the chunk is finished. */
static upq_status next_page(upq_column_reader *c)
{
    for (;;) {
        upq_status st;
        switch (c->stage) {
        case CS_HEADER: {
            size_t used = 0;
#if UPQ_WITH_PAGE_INDEX
            if (c->tdec.pos == 0 && !c->hs_started) { /* at a page's start */
                if (c->jump_pending && (c->has_dict || c->page_off >= c->first_data))
                    jump(c);
                if (c->jumped && c->page_off >= c->data_end) {
                    c->stage = CS_DONE;
                    return UPQ_DONE;
                }
            }
#endif
            if (c->values_left == 0) {
                c->stage = CS_DONE;
                return UPQ_DONE;
            }
            if (ENCRYPTED(c)) {
                st = after_header(c, encrypted_header(c));
                if (st != UPQ_OK)
                    return st;
                break;
            }
            if (c->win_used == c->win_fill) {
                st = fill_window(c);
                if (st != UPQ_OK)
                    return st;
            }
            st = upq_tdec_feed(&c->tdec, c->win + c->win_used, c->win_fill - c->win_used, &used);
            c->win_used += (uint32_t)used;
            if (st == UPQ_AGAIN)
                continue;
            if (st != UPQ_OK) {
                uint64_t at = c->page_off + c->tdec.err_pos;
                col_fail(c, st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st, at,
                         st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for a page header")
                                             : UPQ_MSG("malformed page header"));
                c->r->err.in_struct = c->tdec.err_struct;
                c->r->err.field = c->tdec.err_field;
                if (unjump(c, c->r->err.status))
                    break;
                return c->r->err.status;
            }
            st = after_header(c, UPQ_OK);
            if (st != UPQ_OK)
                return st;
            break;
        }
        case CS_BODY:
            st = read_body(c);
            if (st == UPQ_DONE) /* skipped page: next header */
                next_header(c, c->values_left != 0);
            else if (st != UPQ_OK)
                return st;
            break;
        case CS_PAGE:
            st = process_page(c);
            if (st == UPQ_DONE) { /* dictionary page */
                next_header(c, 1);
                break;
            }
            return st;
        case CS_DATA: return UPQ_OK;
        case CS_DONE: return UPQ_DONE;
        default: return c->r->err.status < 0 ? c->r->err.status : UPQ_ERR_STATE;
        }
    }
}

/* The current data page is consumed: the next one starts with a header. */
static void end_page(upq_column_reader *c)
{
    c->page_off = cursor(c);
    c->stage = c->values_left ? CS_HEADER : CS_DONE;
    if (c->stage == CS_HEADER)
        header_start(c);
}

static upq_status get_levels(upq_column_reader *c, int rep, uint16_t *out, size_t n)
{
    if (rep)
        return c->rep_bp ? upq_bitpacked_get16(&c->rep_bpd, out, n) : upq_rle_get16(&c->rep_rle, out, n);
    return c->def_bp ? upq_bitpacked_get16(&c->def_bpd, out, n) : upq_rle_get16(&c->def_rle, out, n);
}

/* One stream's level decoder in use (bit-packed or RLE) into save, and
 * back. */
static void save_levels(int bp, void *save, const upq_rle_dec *rle, const upq_bitpacked_dec *bpd)
{
    if (bp)
        upq_memcpy(save, bpd, sizeof *bpd);
    else
        upq_memcpy(save, rle, sizeof *rle);
}

static void restore_levels(int bp, const void *save, upq_rle_dec *rle, upq_bitpacked_dec *bpd)
{
    if (bp)
        upq_memcpy(bpd, save, sizeof *bpd);
    else
        upq_memcpy(rle, save, sizeof *rle);
}

/*
 * Decodes up to n level entries of the current page into rep/def (either may
 * be NULL when the column has no such levels) and their values into `vals`.
 * Stops early if the value buffer fills. *nl / *nv get the counts.
 */
static upq_status decode_some(upq_column_reader *c, uint16_t *rep, uint16_t *def, void *vals,
                              size_t n, size_t *nl, size_t *nv, const void **lent)
{
    int fill = 0;
    const upq_column_desc *cd = c->cd;
    /* the level decoders in use (RLE or BIT_PACKED), to replay from: one
     * slot each keeps this frame, on the row reader's deepest call chain,
     * small */
    union {
        upq_rle_dec rle;
        upq_bitpacked_dec bp;
    } rep_save, def_save;
    size_t i, nonnull, got = 0;
    upq_status st;

    /* upq_memcpy, not assignments: gcc makes those memcpy calls on Cortex-M0+ */
    save_levels(c->rep_bp, &rep_save, &c->rep_rle, &c->rep_bpd);
    save_levels(c->def_bp, &def_save, &c->def_rle, &c->def_bpd);

    if (n > c->levels_left)
        n = c->levels_left;
    nonnull = n; /* a required column: every slot has a value */
    if (cd->max_rep) {
        st = get_levels(c, 1, rep, n);
        if (st != UPQ_OK)
            return col_fail(c, st, c->page_off, UPQ_MSG("malformed repetition levels"));
        /* a chunk, and every v2 page, starts a new row */
        if (n && c->row_start_due && rep[0] != 0)
            return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("repetition levels do not start a row"));
        c->row_start_due = 0;
        for (i = 0; i < n; i++)
            if (rep[i] > cd->max_rep)
                return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("repetition level above its maximum"));
    }
    if (cd->max_def) {
        uint32_t run = 0, rv = 0;
        /* no nulls here (one RLE run of the maximum covers the batch, as in
         * any page without nulls): the levels are a fill, all values */
        if (!c->def_bp && upq_rle_run_ahead(&c->def_rle, &run, &rv) == UPQ_OK && run >= n &&
            rv == cd->max_def) {
#if UPQ_WITH_LEND
            if (!c->def_skip)
#endif
                UPQ_K(fill_u16)(def, (uint16_t)rv, n);
            fill = 1;
            c->def_rle.left -= (uint32_t)n;
            goto levels_done;
        }
        st = get_levels(c, 0, def, n);
        if (st != UPQ_OK)
            return col_fail(c, st, c->page_off, UPQ_MSG("malformed definition levels"));
        /* one pass without an early exit, so it vectorises: the count of
         * values, and whether any level is above the maximum */
        {
            const uint16_t md = cd->max_def;
            unsigned over = 0;
            uint32_t cnt = 0;
            for (i = 0; i < n; i++) {
                over |= def[i] > md;
                cnt += def[i] == md;
            }
            if (over)
                return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("definition level above its maximum"));
            nonnull = cnt;
        }
    }
levels_done:
#if UPQ_WITH_LEND
    if (lent && (*lent = upq_values_lend(&c->vals, nonnull)) != (const void *)0) {
        got = nonnull;
    } else
#else
    (void)lent;
#endif
    {
        st = upq_values_get(&c->vals, vals, nonnull, &got, &c->vb);
        if (st != UPQ_OK)
            return col_fail(c, st, c->page_off, UPQ_MSG("malformed values"));
    }
    if (got < nonnull) {
        /* the value buffer filled: keep only the levels up to the first
         * value that did not fit, by decoding them again from the saved state */
        size_t k = 0, seen = 0;
        if (cd->max_def && !fill) {
            while (k < n && !(def[k] == cd->max_def && seen == got)) {
                seen += def[k] == cd->max_def;
                k++;
            }
        } else {
            k = got; /* every level has a value (def may be unwritten) */
        }
        restore_levels(c->rep_bp, &rep_save, &c->rep_rle, &c->rep_bpd);
        restore_levels(c->def_bp, &def_save, &c->def_rle, &c->def_bpd);
        if (cd->max_rep && get_levels(c, 1, rep, k) != UPQ_OK)
            return col_fail(c, UPQ_ERR_STATE, c->page_off, UPQ_MSG("level replay"));
        if (cd->max_def && get_levels(c, 0, def, k) != UPQ_OK)
            return col_fail(c, UPQ_ERR_STATE, c->page_off, UPQ_MSG("level replay"));
        n = k;
        fill = 0; /* the replay wrote them */
    }
#if UPQ_WITH_LEND
    c->def_skip = (uint8_t)(c->def_skip && fill); /* whether def was left unwritten */
#endif
    c->levels_left -= (uint32_t)n;
    *nl = n;
    *nv = got;
    return UPQ_OK;
}

/* upq_column_read, and with `lent` upq_column_read_lent */
static upq_status column_read(upq_column_reader *c, upq_batch *b, const void **lent)
{
    size_t vsize = upq_value_size(c->cd ? c->cd->physical_type : -1), skipped = 0;
    b->levels = b->values_n = 0;
    if (lent)
        *lent = b->values;
    if (c->stage == CS_FAILED)
        return c->r->err.status;
    if ((c->cd->max_def && !b->def) || (c->cd->max_rep && !b->rep) || !b->values)
        return UPQ_ERR_INVAL;
    c->vb.used = 0;
    /* levels left unwritten, all max_def: the batch's first `skipped`;
     * once a read writes some, the batch's def is written whole */
    while (b->levels < b->cap) {
        size_t nl = 0, nv = 0, want;
        const void *view;
        upq_status st;
#if UPQ_WITH_LEND
        c->def_skip = (uint8_t)(c->def_if_nulls && c->cd->max_def && skipped == b->levels);
#endif
        if (c->stage != CS_DATA) {
            st = next_page(c);
            if (st == UPQ_DONE || (st == UPQ_AGAIN && b->levels))
                break;
            if (st != UPQ_OK)
                return st;
        }
        want = b->cap - b->levels;
        /* values are lent only from one page and before any are copied */
        view = (const void *)0;
        st = decode_some(c, c->cd->max_rep ? b->rep + b->levels : (uint16_t *)0,
                         c->cd->max_def ? b->def + b->levels : (uint16_t *)0,
                         (uint8_t *)b->values + b->values_n * vsize, want, &nl, &nv,
                         lent && b->levels == 0 ? &view : (const void **)0);
        if (st != UPQ_OK)
            return st;
#if UPQ_WITH_LEND
        if (c->def_skip) {
            skipped += nl;
        } else if (skipped) {
            /* these levels were written: the batch's def is wanted after all */
            UPQ_K(fill_u16)(b->def, c->cd->max_def, skipped);
            skipped = 0;
        }
#else
        (void)skipped;
#endif
        b->levels += nl;
        b->values_n += nv;
#if UPQ_WITH_LEND
        if (view) {
            *lent = view;
            if (c->levels_left == 0)
                end_page(c);
            break;
        }
#endif
        if (c->levels_left == 0) {
            end_page(c);
            /* byte arrays point into this page's buffers, which the next
             * page reuses: hand them over first */
            if (nv && (c->cd->physical_type == UPQ_TYPE_BYTE_ARRAY ||
                       c->cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY))
                break;
        } else if (nl < want && nl < c->levels_left + nl)
            break; /* the value buffer is full: hand over what there is */
    }
    return b->levels ? UPQ_OK : UPQ_DONE;
}

upq_status upq_column_read(upq_column_reader *c, upq_batch *b)
{
    return column_read(c, b, (const void **)0);
}

upq_status upq_column_read_lent(upq_column_reader *c, upq_batch *b, const void **values)
{
    if (!values)
        return UPQ_ERR_INVAL;
    return column_read(c, b, values);
}

void upq_column_def_if_nulls(upq_column_reader *c, int on)
{
    c->def_if_nulls = (uint8_t)(on != 0);
}

upq_status upq_column_skip(upq_column_reader *c, uint64_t rows, uint64_t *skipped)
{
    /* levels a step: 16 on microcontrollers, where a seek's skip into a
     * page sits under the scan's deepest call chain (down through the
     * page's codec) */
    uint16_t rep[UPQ_UNPACK_STEP / 4u], def[UPQ_UNPACK_STEP / 4u];
    int nested = c->cd && c->cd->max_rep > 0;
    *skipped = 0;
    if (c->stage == CS_FAILED)
        return c->r->err.status;
    if (!c->skipping) { /* a new skip; a resumed one keeps its progress */
        c->skipping = 1;
        c->skip_left = rows;
        c->skip_rows = rows;
    }
    for (;;) {
        size_t n, k, i, nonnull = 0;
        int stop = 0;
        upq_status st;
        if (!nested && c->skip_left == 0)
            break;
        if (c->stage != CS_DATA) {
            st = next_page(c); /* passes over whole pages inside the range */
            if (st == UPQ_DONE)
                break;
            if (st != UPQ_OK)
                return st;
        }
        n = c->levels_left < UPQ_COUNTOF(rep) ? c->levels_left : UPQ_COUNTOF(rep);
        if (nested) {
            /* skip_left counts rows not yet started; the skip ends just
             * before the repetition level 0 that would start one more */
            upq_rle_dec save;
            upq_bitpacked_dec bsave;
            upq_memcpy(&save, &c->rep_rle, sizeof save); /* not an assignment: see decode_some */
            upq_memcpy(&bsave, &c->rep_bpd, sizeof bsave);
            if (get_levels(c, 1, rep, n) != UPQ_OK)
                return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("malformed repetition levels"));
            for (k = 0; k < n; k++) {
                if (rep[k] != 0)
                    continue;
                if (c->skip_left == 0) {
                    stop = 1;
                    break;
                }
                c->skip_left--;
            }
            upq_memcpy(&c->rep_rle, &save, sizeof save);
            upq_memcpy(&c->rep_bpd, &bsave, sizeof bsave);
            if (get_levels(c, 1, rep, k) != UPQ_OK)
                return col_fail(c, UPQ_ERR_STATE, c->page_off, UPQ_MSG("level replay"));
        } else {
            k = n < c->skip_left ? n : (size_t)c->skip_left;
            c->skip_left -= k;
        }
        if (c->cd->max_def) {
            if (get_levels(c, 0, def, k) != UPQ_OK)
                return col_fail(c, UPQ_ERR_CORRUPT, c->page_off, UPQ_MSG("malformed definition levels"));
            for (i = 0; i < k; i++)
                nonnull += def[i] == c->cd->max_def;
        } else {
            nonnull = k;
        }
        st = upq_values_skip(&c->vals, nonnull);
        if (st != UPQ_OK)
            return col_fail(c, st, c->page_off, UPQ_MSG("malformed values"));
        c->levels_left -= (uint32_t)k;
        if (c->levels_left == 0)
            end_page(c);
        if (stop)
            break;
    }
    c->skipping = 0;
    *skipped = c->skip_rows - c->skip_left;
    c->skip_left = 0;
    return UPQ_OK;
}

#if UPQ_WITH_PAGE_INDEX
/* Reads the chunk's OffsetIndex into memory above the column reader's and
 * chooses the target page; the memory is given back either way. */
static upq_status seek_index(upq_column_reader *c, uint64_t row)
{
    upq_reader *r = c->r;
    upq_page_index *p;
    upq_status st;
    upq_error_info saved;
    if (!c->pidx) {
        p = (upq_page_index *)upq_arena_alloc(&r->arena, sizeof *p);
        if (!p) {
            c->pidx_status = UPQ_ERR_NOMEM;
            c->pidx_what = UPQ_MSG("arena too small for the page index");
            return UPQ_OK;
        }
        upq_memcpy(&saved, &r->err, sizeof saved);
        st = upq_page_index_open(p, r, c->rg, c->col, UPQ_PAGE_INDEX_OFFSET);
        if (st != UPQ_OK) {
            c->pidx_status = st;
            c->pidx_what = st == UPQ_DONE ? (const char *)0 : r->err.what;
            upq_memcpy(&r->err, &saved, sizeof saved);
            upq_page_index_close(p);
            upq_arena_rewind(&r->arena, (upq_arena_mark)((uint8_t *)p - r->arena.base));
            return UPQ_OK;
        }
        c->pidx = p;
    }
    p = (upq_page_index *)c->pidx;
    upq_memcpy(&saved, &r->err, sizeof saved);
    st = upq_page_index_load(p);
    if (st == UPQ_AGAIN)
        return st;
    if (st == UPQ_OK) {
        const upq_page_location *l = p->oi.page_locations.v;
        uint32_t n = p->oi.page_locations.n, k = upq_offset_index_find(&p->oi, row);
        c->index_used = 1;
        c->pidx_status = UPQ_OK;
        c->first_data = (uint64_t)l[0].offset;
        c->data_end = (uint64_t)l[n - 1].offset + (uint64_t)l[n - 1].compressed_page_size;
        if (k > 0) { /* in the first page, the scan reads nothing more */
            c->jump_pending = 1;
            c->jump_page = (int32_t)k;
            c->jump_off = (uint64_t)l[k].offset;
            c->jump_size = (uint32_t)l[k].compressed_page_size;
            c->jump_row = (uint64_t)l[k].first_row_index;
            c->jump_rows = (k + 1 < n ? (uint64_t)l[k + 1].first_row_index : (uint64_t)p->num_rows) -
                           c->jump_row;
        }
    } else {
        c->pidx_status = st;
        c->pidx_what = r->err.what;
    }
    upq_page_index_close(p);
    upq_arena_rewind(&r->arena, (upq_arena_mark)((uint8_t *)p - r->arena.base));
    c->pidx = (void *)0;
    if (st == UPQ_ERR_AUTH || st == UPQ_ERR_IO) {
        /* tampering or a failing medium is not a reason to read on */
        c->stage = CS_FAILED;
        return st;
    }
    if (st != UPQ_OK)
        upq_memcpy(&r->err, &saved, sizeof saved);
    return UPQ_OK;
}
#endif

upq_status upq_column_seek(upq_column_reader *c, uint64_t row, uint64_t *skipped)
{
#if UPQ_WITH_PAGE_INDEX
    upq_status st;
    *skipped = 0;
    if (c->stage == CS_FAILED)
        return c->r->err.status;
    if (c->seek_stage == 0) {
        c->seek_stage = 2;
        c->index_used = 0;
        c->pidx_status = UPQ_DONE;
        c->pidx_what = (const char *)0;
        /* only from the chunk's start, before anything was read */
        if (row > 0 && !c->skipping && !c->scan && c->page_no == -1 && c->stage == CS_HEADER &&
            c->tdec.pos == 0 && !c->hs_started && !c->jumped && !c->r->opts.no_page_index)
            c->seek_stage = 1;
    }
    if (c->seek_stage == 1) {
        st = seek_index(c, row);
        if (st != UPQ_OK)
            return st;
        c->seek_stage = 2;
    }
    st = upq_column_skip(c, row, skipped);
    if (st != UPQ_AGAIN)
        c->seek_stage = 0;
    return st;
#else
    return upq_column_skip(c, row, skipped);
#endif
}

int upq_column_seek_info(const upq_column_reader *c, upq_status *why, const char **what)
{
#if UPQ_WITH_PAGE_INDEX
    if (why)
        *why = c->index_used || c->pidx_status != UPQ_OK ? c->pidx_status : UPQ_DONE;
    if (what)
        *what = c->pidx_what;
    return c->index_used;
#else
    (void)c;
    if (why)
        *why = UPQ_DONE;
    if (what)
        *what = (const char *)0;
    return 0;
#endif
}

/* Workspace planning (workspace.c) passes over every page of a chunk whose
 * reader has `scan` set: only headers are read. */
upq_status upq_column_scan_pages(upq_column_reader *c)
{
    return next_page(c);
}
