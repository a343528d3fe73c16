/*
 * Opening a file: find the footer through read_at, stream it through a small
 * window into the Thrift decoder, build the schema, and check that the
 * metadata describes something that fits in the file.
 *
 * Every stage keeps its progress in upq_reader, so a read callback that says
 * "again" or delivers a few bytes at a time costs nothing but calls.
 */
#include "uparquet/reader.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "reader_int.h"
#include "crypto/crypto_int.h"
#include "upq_aes.h"

#define MAGIC_LEN 4u
#define TAIL_LEN 8u

static upq_status fail_chunk(upq_reader *r, uint32_t rg, uint32_t col, upq_status st,
                             const char *what)
{
    r->err.row_group = (int32_t)rg;
    r->err.column = (int32_t)col;
    return upq_reader_fail(r, st, UINT64_MAX, what);
}

/* Fills dst[r->fill..len) from file offset off (+ r->fill). UPQ_OK when all
 * `len` bytes are there. */
static upq_status read_exact(upq_reader *r, uint64_t off, uint8_t *dst, uint32_t len)
{
    while (r->fill < len) {
        size_t got;
        const char *what = "";
        upq_status st = upq_io_read(&r->io, off + r->fill, dst + r->fill, len - r->fill, &got, &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return upq_reader_fail(r, st, off + r->fill, what);
        r->fill += (uint32_t)got;
    }
    r->fill = 0;
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
static upq_status after_crypto_metadata(upq_reader *r);
#endif
static upq_status after_plain_footer(upq_reader *r);
static upq_status footer_decode_error(upq_reader *r, upq_status st, uint64_t base);
static void start_metadata(upq_reader *r, uint64_t limit);
#if UPQ_WITH_LAZY_ROW_GROUPS
static int auto_wants_lazy(const upq_reader *r);
#endif

static upq_status stage_tail(upq_reader *r)
{
    upq_status st;
    uint64_t size = r->io.size;
    if (size < MAGIC_LEN + TAIL_LEN)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, 0, UPQ_MSG("file too small to be Parquet"));
    st = read_exact(r, size - TAIL_LEN, r->tail, TAIL_LEN);
    if (st != UPQ_OK)
        return st;
    if (upq_memcmp(r->tail + 4, "PARE", 4) == 0) {
        if (!UPQ_WITH_CRYPTO || upq_crypto_key_size() == 0)
            return upq_reader_fail(r, UPQ_ERR_UNSUPPORTED, size - 4,
                        UPQ_MSG("encrypted footer (PARE): this build has no decryption"));
        r->enc = UPQ_CRYPT_FOOTER;
#if UPQ_WITH_LAZY_ROW_GROUPS
        r->lazy = 0; /* authenticated as a whole: decoded at once (see restart_footer) */
#endif
    } else if (upq_memcmp(r->tail + 4, "PAR1", 4) != 0) {
#if UPQ_WITH_CHECKPOINT
        r->stage = RS_CUT;
        return UPQ_OK;
#else
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, size - 4, UPQ_MSG("no PAR1 magic at the end of the file"));
#endif
    }
    r->footer_len = upq_load_le32(r->tail);
    if ((uint64_t)r->footer_len > size - MAGIC_LEN - TAIL_LEN)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, size - TAIL_LEN, UPQ_MSG("footer length exceeds the file"));
    if (r->footer_len == 0)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, size - TAIL_LEN, UPQ_MSG("footer length is zero"));
    r->footer_start = size - TAIL_LEN - r->footer_len;
    r->stage = RS_HEAD;
    return UPQ_OK;
}

#if UPQ_WITH_CHECKPOINT
/* The end has no magic. A checkpoint-mode file begins with its magic and
 * its journal's first record, whose magic is "UPQJ" (core/checkpoint/
 * journal.h): such a file was cut before its close, and the reader says
 * what finishes it (a build with checkpoint mode: upq_recover is there). */
static upq_status stage_cut(upq_reader *r)
{
    upq_status st = read_exact(r, 0, r->tail, TAIL_LEN);
    if (st != UPQ_OK)
        return st;
    if ((upq_memcmp(r->tail, "PAR1", 4) == 0 || upq_memcmp(r->tail, "PARE", 4) == 0) &&
        upq_memcmp(r->tail + 4, "UPQJ", 4) == 0)
        return upq_reader_fail(r, UPQ_ERR_TRUNCATED, r->io.size - 4,
                    UPQ_MSG("no PAR1 magic at the end of the file: a checkpoint-mode file cut "
                            "before its close; upq_recover() or `upq recover FILE` finishes it "
                            "with every checkpointed row"));
    return upq_reader_fail(r, UPQ_ERR_CORRUPT, r->io.size - 4, UPQ_MSG("no PAR1 magic at the end of the file"));
}
#endif

static void start_metadata(upq_reader *r, uint64_t limit)
{
#if UPQ_WITH_LAZY_ROW_GROUPS
    r->meta_mark = upq_arena_save(&r->arena);
#endif
    upq_tdec_init(&r->tdec, r->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_file_metadata_desc, &r->meta,
                  &r->arena, limit, &r->opts.limits);
    if (r->opts.projection)
        upq_tdec_set_projection(&r->tdec, r->opts.projection, r->opts.projection_bits);
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (r->lazy)
        upq_tdec_set_lazy(&r->tdec, 4); /* FileMetaData.row_groups */
#endif
#if UPQ_WITH_OPEN_TOTAL
    /* the last attempt counts what does not fit, so that running out says
     * what the whole open needs (AUTO's eager attempt gives up instead) */
#if UPQ_WITH_LAZY_ROW_GROUPS
    r->tdec.count_over = (uint8_t)!auto_wants_lazy(r);
#else
    r->tdec.count_over = 1;
#endif
    r->arena.needed = 0; /* the counted decode sums what does not fit here */
#endif
}

#if UPQ_WITH_OPEN_TOTAL
/* After the footer's counted decode: what the open takes after it (the
 * schema and the column map), added to the arena's need. */
static size_t schema_need(const upq_reader *r)
{
    uint32_t leaves = 0;
    size_t extra = upq_schema_size(r->meta.schema.v, r->meta.schema.n, &leaves);
    return extra + (((size_t)leaves * sizeof(uint32_t) + 7u) & ~(size_t)7u);
}

static void open_need(upq_reader *r)
{
    size_t n, depth;
    if (r->win == r->tail) /* the window itself, which did not fit */
        r->arena.needed += ((r->opts.io_window < r->footer_len ? r->opts.io_window : r->footer_len) + 7u) &
                           ~(size_t)7u;
    if (r->meta.schema.v && r->meta.schema.n) {
        r->arena.needed += schema_need(r);
        return;
    }
    /* the schema list itself did not fit (the list keeps its count, no
     * items): a bound from its length (every element a leaf at the deepest
     * level the build allows) */
    n = r->meta.schema.n;
    depth = n < UPQ_SCHEMA_MAX_DEPTH + 1u ? n : UPQ_SCHEMA_MAX_DEPTH + 1u;
    r->arena.needed += n * (sizeof(upq_schema_node) + 3u * sizeof(uint32_t) +
                            sizeof(upq_column_desc) + depth * sizeof(uint32_t)) + 40u;
}
#endif

#if UPQ_WITH_LAZY_ROW_GROUPS
/* Decodes the plaintext FileMetaData again from its start, the other way
 * (lazy or eager): AUTO found the eager footer too large, or a signed
 * plaintext footer turned up in lazy mode. */
static upq_status restart_footer(upq_reader *r, uint8_t lazy)
{
    upq_arena_rewind(&r->arena, r->meta_mark);
    r->lazy = lazy;
    r->lazy_tried = 1;
    r->pos = r->footer_start;
    r->win_used = r->win_fill = 0;
    start_metadata(r, r->footer_len);
    r->stage = RS_FOOTER;
    return UPQ_OK;
}

/* AUTO: eager row groups are kept when they fit in half the arena that was
 * free before the footer, leaving the rest for reading. */
static int auto_wants_lazy(const upq_reader *r)
{
    return r->opts.row_groups == UPQ_ROW_GROUPS_AUTO && !r->lazy && !r->lazy_tried &&
           r->enc == UPQ_CRYPT_NONE;
}
#endif

static upq_status stage_head(upq_reader *r)
{
    upq_status st = read_exact(r, 0, r->head, MAGIC_LEN);
    if (st != UPQ_OK)
        return st;
    if (upq_memcmp(r->head, r->enc == UPQ_CRYPT_FOOTER ? "PARE" : "PAR1", 4) != 0)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, 0,
                    r->enc == UPQ_CRYPT_FOOTER ? UPQ_MSG("no PARE magic at the start of the file")
                                             : UPQ_MSG("no PAR1 magic at the start of the file"));
    r->win_len = r->opts.io_window;
    if (r->win_len > r->footer_len)
        r->win_len = r->footer_len;
    r->win = (uint8_t *)upq_arena_alloc(&r->arena, r->win_len);
    if (!r->win && (r->enc != UPQ_CRYPT_NONE || !UPQ_WITH_OPEN_TOTAL))
        return upq_reader_fail(r, UPQ_ERR_NOMEM, UINT64_MAX, UPQ_MSG("arena too small for the read window"));
    if (!r->win) {
        /* not even the window fits: the footer goes through the tail's 8
         * bytes instead, only to count what the open needs (it fails) */
        r->win = r->tail;
        r->win_len = sizeof r->tail;
    }
    r->pos = r->footer_start;
#if UPQ_WITH_CRYPTO
    if (r->enc == UPQ_CRYPT_FOOTER) {
        upq_tdec_init(&r->tdec, r->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_file_crypto_metadata_desc,
                      &r->fcm, &r->arena, r->footer_len, &r->opts.limits);
        r->stage = RS_FCM;
        return UPQ_OK;
    }
#endif
    start_metadata(r, r->footer_len);
    r->stage = RS_FOOTER;
    return UPQ_OK;
}

/* Refills the footer window with the bytes from r->pos up to END (at most
 * the window): UPQ_AGAIN while the medium says so, the reader failed with
 * SHORT when nothing is left before END. */
static upq_status win_refill(upq_reader *r, uint64_t end, const char *short_msg)
{
    const char *what = "";
    upq_status st;
    if (end == r->pos)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, end, short_msg);
    st = upq_io_fill(&r->io, &r->pos, r->win, r->win_len, end - r->pos, &r->win_fill, &what);
    if (st != UPQ_OK)
        return st == UPQ_AGAIN ? st : upq_reader_fail(r, st, r->pos, what);
    r->win_used = 0;
    return UPQ_OK;
}

static upq_status stage_footer(upq_reader *r)
{
    uint64_t end = r->footer_start + r->footer_len;
    for (;;) {
        size_t used = 0;
        upq_status st;
        if (r->win_used == r->win_fill) {
            st = win_refill(r, end, UPQ_MSG("footer ends inside its metadata"));
            if (st != UPQ_OK)
                return st;
        }
        st = upq_tdec_feed(&r->tdec, r->win + r->win_used, r->win_fill - r->win_used, &used);
        r->win_used += (uint32_t)used;
        if (st == UPQ_OK) {
#if UPQ_WITH_CRYPTO
            if (r->stage == RS_FCM)
                return after_crypto_metadata(r);
#endif
#if UPQ_WITH_LAZY_ROW_GROUPS
            if (auto_wants_lazy(r) &&
                upq_arena_save(&r->arena) - r->meta_mark > upq_arena_remaining(&r->arena))
                return restart_footer(r, 1);
#endif
            return after_plain_footer(r);
        }
#if UPQ_WITH_LAZY_ROW_GROUPS
        if (st == UPQ_ERR_NOMEM && r->stage == RS_FOOTER && auto_wants_lazy(r))
            return restart_footer(r, 1);
#endif
#if UPQ_WITH_OPEN_TOTAL
        if (st == UPQ_ERR_NOMEM && r->tdec.count_over)
            open_need(r);
#endif
        if (st != UPQ_AGAIN)
            return footer_decode_error(r, st, r->footer_start);
    }
}

static upq_status footer_decode_error(upq_reader *r, upq_status st, uint64_t base)
{
    r->err.in_struct = r->tdec.err_struct;
    r->err.field = r->tdec.err_field;
    return upq_reader_fail(r, st, base + r->tdec.err_pos,
                st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the footer")
                : st == UPQ_ERR_LIMIT ? UPQ_MSG("footer exceeds a decoding limit: raise upq_reader_opts.limits (max_depth, max_list, max_binary)")
                                      : UPQ_MSG("malformed footer metadata"));
}

#if UPQ_WITH_CRYPTO
/* FileCryptoMetaData read: the encrypted FileMetaData module follows. */
static upq_status after_crypto_metadata(upq_reader *r)
{
    uint64_t at = r->pos - (r->win_fill - r->win_used), end = r->footer_start + r->footer_len;
    upq_status st;
    if (!UPQ_ISSET(r->fcm, UPQ_FILE_CRYPTO_METADATA_ENCRYPTION_ALGORITHM))
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, r->footer_start, UPQ_MSG("file crypto metadata without algorithm"));
    st = upq_reader_crypto_begin(r, &r->fcm.encryption_algorithm, &r->fcm.key_metadata, 1);
    if (st != UPQ_OK)
        return st;
    upq_cstream_init(&r->cs, at, end, UPQ_MODULE_FOOTER, -1, -1, -1);
    start_metadata(r, end - at);
    r->win_used = r->win_fill = 0;
    r->stage = RS_EFOOTER;
    return UPQ_OK;
}

static upq_status stage_efooter(upq_reader *r)
{
    for (;;) {
        const uint8_t *p;
        size_t n, used = 0;
        uint64_t at = UINT64_MAX;
        const char *what = "";
        upq_status st = upq_cstream_next(&r->cs, &r->io, &r->fc, r->footer_key, r->win, r->win_len,
                                         &p, &n, &at, &what);
        if (st == UPQ_AGAIN)
            return st;
        if (st == UPQ_DONE) {
            if (!r->fmd_done)
                return upq_reader_fail(r, UPQ_ERR_CORRUPT, r->cs.off, UPQ_MSG("footer ends inside its metadata"));
            if (upq_cstream_end(&r->cs) != r->footer_start + r->footer_len)
                return upq_reader_fail(r, UPQ_ERR_CORRUPT, upq_cstream_end(&r->cs),
                            UPQ_MSG("bytes after the encrypted footer"));
            r->win_used = r->win_fill = 0;
            r->stage = RS_COLMETA;
            return UPQ_OK;
        }
        if (st != UPQ_OK)
            return upq_reader_fail(r, st, at, what);
        /* Bytes after the FileMetaData inside the module are authenticated
         * but unused: some writers pad the plaintext (parquet-testing's
         * encrypt_columns_and_footer_bloom_filter), and other readers
         * accept that */
        if (r->fmd_done)
            continue;
        st = upq_tdec_feed(&r->tdec, p, n, &used);
        if (st == UPQ_OK) {
            r->fmd_done = 1;
        } else if (st != UPQ_AGAIN) {
            return footer_decode_error(r, st, r->cs.off);
        }
    }
}

#endif /* UPQ_WITH_CRYPTO */

/* A plain FileMetaData is decoded; a plaintext-footer encrypted file has
 * its 28-byte signature after it. */
static upq_status after_plain_footer(upq_reader *r)
{
#if UPQ_WITH_CRYPTO
    uint64_t at = r->pos - (r->win_fill - r->win_used), end = r->footer_start + r->footer_len;
    upq_status st;
#endif
    if (!UPQ_ISSET(r->meta, UPQ_FILE_METADATA_ENCRYPTION_ALGORITHM)) {
        r->stage = RS_CHECK;
        return UPQ_OK;
    }
#if !UPQ_WITH_CRYPTO
    /* legacy reading: unencrypted columns only */
    r->stage = RS_CHECK;
    return UPQ_OK;
#else
    if (upq_crypto_key_size() == 0) {
        /* legacy reading: unencrypted columns only */
        r->stage = RS_CHECK;
        return UPQ_OK;
    }
#if UPQ_WITH_LAZY_ROW_GROUPS
    /* The signature covers the footer as read now; row groups re-read from
     * the file later would not be authenticated, so such files are eager. */
    if (r->lazy)
        return restart_footer(r, 0);
#endif
    r->enc = UPQ_CRYPT_PLAIN_FOOTER;
    r->fmd_end = at;
    if (end - at != UPQ_CRYPTO_NONCE_LEN + UPQ_CRYPTO_TAG_LEN)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, at, UPQ_MSG("plaintext footer not followed by its 28-byte signature"));
    st = upq_reader_crypto_begin(r, &r->meta.encryption_algorithm,
                                 &r->meta.footer_signing_key_metadata, 0);
    if (st != UPQ_OK)
        return st;
    if (!r->footer_key) { /* no keys given: the signature cannot be checked */
        r->stage = RS_COLMETA;
        return UPQ_OK;
    }
    upq_memset(&r->cs, 0, sizeof r->cs);
    r->stage = RS_SIGN;
    return UPQ_OK;
#endif
}

#if UPQ_WITH_CRYPTO

/* The signature is the tag of the footer encrypted with the footer key. */
static upq_status stage_sign(upq_reader *r)
{
    upq_cstream *s = &r->cs;
    upq_status st;
    if (s->stage == 0) {
        st = read_exact(r, r->fmd_end, s->head, UPQ_CRYPTO_NONCE_LEN + UPQ_CRYPTO_TAG_LEN);
        if (st != UPQ_OK)
            return st;
        upq_memcpy(s->tag, s->head + UPQ_CRYPTO_NONCE_LEN, UPQ_CRYPTO_TAG_LEN);
        st = upq_crypto_gcm_begin(&s->g, &r->fc, r->footer_key, s->head, UPQ_MODULE_FOOTER, -1,
                                  -1, -1);
        if (st != UPQ_OK)
            return upq_reader_fail(r, st, r->fmd_end, UPQ_MSG("footer signature"));
        s->off = r->footer_start;
        s->stage = 1;
    }
    while (s->off < r->fmd_end) {
        uint64_t left = r->fmd_end - s->off;
        size_t got = 0, want = r->win_len;
        const char *what = "";
        uint8_t ctr0[16];
        if (left < (uint64_t)want)
            want = (size_t)left;
        st = upq_io_read(&r->io, s->off, r->win, want, &got, &what);
        if (st == UPQ_AGAIN)
            return st;
        if (st != UPQ_OK)
            return upq_reader_fail(r, st, s->off, what);
        upq_gcm_ctr0(&s->g, ctr0);
        upq_aes_ctr_xor(r->footer_key, ctr0, s->off - r->footer_start, r->win, r->win, got);
        upq_gcm_text(&s->g, r->footer_key, r->win, got);
        s->off += got;
    }
    {
        uint8_t mine[16];
        upq_gcm_finish(&s->g, r->footer_key, mine);
        if (!upq_ct_equal(mine, s->tag, UPQ_CRYPTO_TAG_LEN))
            return upq_reader_fail(r, UPQ_ERR_AUTH, r->fmd_end,
                        UPQ_MSG("plaintext footer signature does not verify (wrong key or AAD, or altered)"));
    }
    r->stage = RS_COLMETA;
    return UPQ_OK;
}
#endif /* UPQ_WITH_CRYPTO */

/* Do the path_in_schema names equal the leaf's path? */
static int path_matches(const upq_schema *s, const upq_column_desc *cd, const upq_bytes_list *p)
{
    uint32_t k;
    if (p->n != cd->path_len)
        return 0;
    for (k = 0; k < p->n; k++) {
        const upq_bytes *nm = &s->nodes[cd->path[k]].elem->name;
        if (nm->len != p->v[k].len || upq_memcmp(nm->ptr, p->v[k].ptr, nm->len) != 0)
            return 0;
    }
    return 1;
}

/* The byte range a chunk claims must lie between the magic and the footer.
 * Chunks without values are exempt: writers leave data_page_offset 0 there
 * (parquet-testing's column_chunk_key_value_metadata). */
static int chunk_range_ok(const upq_reader *r, const upq_column_metadata *m)
{
    int64_t start = m->data_page_offset;
    if (m->num_values == 0 && m->total_compressed_size >= 0)
        return 1;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) &&
        m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    if (start < (int64_t)MAGIC_LEN || m->total_compressed_size < 0 || m->num_values < 0)
        return 0;
    return (uint64_t)start <= r->footer_start &&
           (uint64_t)m->total_compressed_size <= r->footer_start - (uint64_t)start;
}

/* Row group g against the schema and the file, as decoded (eagerly at open,
 * or when loaded on demand). */
static upq_status check_row_group(upq_reader *r, uint32_t g, const upq_row_group *rg)
{
    const upq_schema *s = &r->schema;
    uint32_t c;
    if (rg->num_rows < 0)
        return fail_chunk(r, g, UINT32_MAX, UPQ_ERR_CORRUPT, UPQ_MSG("negative row count"));
    if (rg->columns.n != r->kept)
        return fail_chunk(r, g, UINT32_MAX, UPQ_ERR_CORRUPT,
                          UPQ_MSG("row group column count differs from the schema"));
    for (c = 0; c < s->num_columns; c++) {
        const upq_column_chunk *ch;
        const upq_column_metadata *m;
        if (r->chunk_slot[c] == UPQ_NONE)
            continue;
        ch = &rg->columns.v[r->chunk_slot[c]];
        if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA)) {
            /* encrypted column metadata: readable only with its key */
            if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA) ||
                UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA))
                continue;
            return fail_chunk(r, g, c, UPQ_ERR_CORRUPT, UPQ_MSG("column chunk without metadata"));
        }
        m = &ch->meta_data;
        if (m->type != s->columns[c].physical_type)
            return fail_chunk(r, g, c, UPQ_ERR_CORRUPT,
                              UPQ_MSG("column chunk type differs from the schema"));
        if (!path_matches(s, &s->columns[c], &m->path_in_schema))
            return fail_chunk(r, g, c, UPQ_ERR_CORRUPT,
                              UPQ_MSG("column chunk path differs from the schema"));
        if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_FILE_PATH) && !chunk_range_ok(r, m))
            return fail_chunk(r, g, c, UPQ_ERR_CORRUPT,
                              UPQ_MSG("column chunk byte range lies outside the data"));
    }
    return UPQ_OK;
}

static upq_status check_chunks(upq_reader *r)
{
    const upq_schema *s = &r->schema;
    uint32_t kept = 0, c, g;

    r->chunk_slot = (uint32_t *)upq_arena_alloc_array(&r->arena, s->num_columns, sizeof(uint32_t));
    if (s->num_columns && !r->chunk_slot)
        return upq_reader_fail(r, UPQ_ERR_NOMEM, UINT64_MAX, UPQ_MSG("arena too small for the column map"));
    for (c = 0; c < s->num_columns; c++) {
        int keep = !r->opts.projection ||
                   (c < r->opts.projection_bits && (((unsigned)r->opts.projection[c >> 3] >> (c & 7)) & 1u));
        r->chunk_slot[c] = keep ? kept++ : UPQ_NONE;
    }
    r->kept = kept;
    for (g = 0; g < r->meta.row_groups.n; g++) {
        upq_status st = check_row_group(r, g, &r->meta.row_groups.v[g]);
        if (st != UPQ_OK)
            return st;
    }
    return UPQ_OK;
}

static upq_status stage_check(upq_reader *r)
{
    uint32_t bad = 0;
    upq_status st;
    if (r->meta.num_rows < 0)
        return upq_reader_fail(r, UPQ_ERR_CORRUPT, r->footer_start, UPQ_MSG("negative row count"));
#if UPQ_WITH_OPEN_TOTAL
    if (upq_arena_remaining(&r->arena) < schema_need(r)) {
        /* the footer fitted, not what comes after it: say the whole */
        r->arena.needed = r->arena.cap - upq_arena_remaining(&r->arena) + schema_need(r);
        return upq_reader_fail(r, UPQ_ERR_NOMEM, r->footer_start,
                               UPQ_MSG("arena too small for the schema"));
    }
#endif
    st = upq_schema_build(&r->schema, r->meta.schema.v, r->meta.schema.n, &r->arena, &bad);
    if (st != UPQ_OK) {
        r->err.in_struct = UPQ_MSG("SchemaElement");
        r->err.schema_element = (int32_t)bad;
        return upq_reader_fail(r, st, r->footer_start,
                    st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the schema")
                    : st == UPQ_ERR_LIMIT ? UPQ_MSG("schema nested deeper than UPQ_SCHEMA_MAX_DEPTH (a build option)")
                                          : UPQ_MSG("malformed schema"));
    }
    st = check_chunks(r);
    if (st != UPQ_OK)
        return st;
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (r->lazy) {
        uint32_t n = r->tdec.lazy_n;
        r->rg_count = n;
        r->rg_end = r->footer_start + r->footer_len;
        r->rg_cp[0] = r->rg_pos = r->footer_start + r->tdec.lazy_pos;
        r->rg_cp_n = 1;
        r->rg_cp_step = n / UPQ_RG_CHECKPOINTS + 1;
        r->rg_next = 0;
        r->rg_loaded = UINT32_MAX;
    }
#endif
    r->stage = RS_OPEN;
    return UPQ_OK;
}

upq_status upq_reader_open(upq_reader *r)
{
    upq_status st = UPQ_OK;
    if (!r->io.read_at)
        return upq_reader_fail(r, UPQ_ERR_INVAL, UINT64_MAX, UPQ_MSG("no read_at callback"));
    while (st == UPQ_OK) {
        switch (r->stage) {
        case RS_INIT:
#if UPQ_WITH_LAZY_ROW_GROUPS
            r->lazy = r->opts.row_groups == UPQ_ROW_GROUPS_LAZY;
#else
            if (r->opts.row_groups == UPQ_ROW_GROUPS_LAZY)
                return upq_reader_fail(r, UPQ_ERR_UNSUPPORTED, UINT64_MAX,
                            UPQ_MSG("on-demand row groups: not in this build"));
#endif
            r->stage = RS_TAIL;
            break;
        case RS_TAIL: st = stage_tail(r); break;
#if UPQ_WITH_CHECKPOINT
        case RS_CUT: st = stage_cut(r); break;
#endif
        case RS_HEAD: st = stage_head(r); break;
        case RS_FOOTER:
        case RS_FCM: st = stage_footer(r); break;
#if UPQ_WITH_CRYPTO
        case RS_EFOOTER: st = stage_efooter(r); break;
        case RS_SIGN: st = stage_sign(r); break;
        case RS_COLMETA: st = upq_reader_crypto_column_meta(r); if (st == UPQ_OK) r->stage = RS_CHECK; break;
#endif
        case RS_CHECK: st = stage_check(r); break;
        case RS_OPEN: return UPQ_OK;
        default: return r->err.status != UPQ_OK ? r->err.status : UPQ_ERR_STATE;
        }
    }
    return st;
}

#if UPQ_WITH_LAZY_ROW_GROUPS
/* Points the footer window at file offset `off`, keeping its bytes when they
 * already hold it (sequential loads read each footer byte once). */
static void win_seek(upq_reader *r, uint64_t off)
{
    uint64_t lo = r->pos - r->win_fill;
    if (off >= lo && off <= r->pos) {
        r->win_used = (uint32_t)(off - lo);
    } else {
        r->win_used = r->win_fill = 0;
        r->pos = off;
    }
}

/* Starts the element at rg_pos: row group rg_target is decoded into rg_cur
 * (at the arena's high end), the ones before it are only walked over. */
static void rg_begin(upq_reader *r)
{
    uint64_t limit = r->rg_end - r->rg_pos;
    if (r->rg_next == r->rg_target) {
        upq_arena_free_top(&r->arena);
        upq_tdec_init(&r->tdec, r->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_row_group_desc, &r->rg_cur,
                      &r->arena, limit, &r->opts.limits);
        if (r->opts.projection)
            upq_tdec_set_projection(&r->tdec, r->opts.projection, r->opts.projection_bits);
        r->rg_stage = 2;
    } else {
        upq_tdec_init(&r->tdec, r->tframes, UPQ_THRIFT_MAX_DEPTH, (const upq_tstruct *)0, (void *)0,
                      (upq_arena *)0, limit, &r->opts.limits);
        r->rg_stage = 1;
    }
}

/* Feeds footer bytes to the element decoder until it completes. */
static upq_status rg_feed(upq_reader *r)
{
    for (;;) {
        size_t used = 0;
        upq_status st;
        if (r->win_used == r->win_fill) {
            st = win_refill(r, r->rg_end, UPQ_MSG("footer ends inside a row group"));
            if (st != UPQ_OK)
                return st;
        }
        /* only the loaded row group lives at the high end; callers'
         * allocations between calls go to the low end as usual */
        upq_arena_use_top(&r->arena, r->rg_stage == 2);
        st = upq_tdec_feed(&r->tdec, r->win + r->win_used, r->win_fill - r->win_used, &used);
        upq_arena_use_top(&r->arena, 0);
        r->win_used += (uint32_t)used;
        if (st == UPQ_OK)
            return UPQ_OK;
        if (st != UPQ_AGAIN) {
            r->err.row_group = (int32_t)r->rg_next;
            r->err.in_struct = r->tdec.err_struct;
            r->err.field = r->tdec.err_field;
            return upq_reader_fail(r, st, r->rg_pos + r->tdec.err_pos,
                        st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the row group's metadata")
                        : st == UPQ_ERR_LIMIT ? UPQ_MSG("row group exceeds a decoding limit: raise upq_reader_opts.limits (max_depth, max_list, max_binary)")
                                              : UPQ_MSG("malformed row group metadata"));
        }
    }
}

upq_status upq_reader_row_group_load(upq_reader *r, uint32_t rg)
{
    if (r->stage != RS_OPEN)
        return r->err.status != UPQ_OK ? r->err.status : UPQ_ERR_STATE;
    if (rg >= upq_reader_num_row_groups(r)) {
        r->err.status = UPQ_ERR_INVAL;
        r->err.needed = 0;
        r->err.row_group = (int32_t)rg;
        r->err.what = UPQ_MSG("no such row group");
        return UPQ_ERR_INVAL;
    }
    if (!r->lazy || (r->rg_stage == 0 && rg == r->rg_loaded))
        return UPQ_OK;
    if (r->rg_stage == 0 || rg != r->rg_target) {
        /* start (or, asked for another one meanwhile, restart) from the
         * nearest known position at or before rg */
        uint32_t k = rg / r->rg_cp_step;
        if (k >= r->rg_cp_n)
            k = r->rg_cp_n - 1;
        if (rg < r->rg_next || k * r->rg_cp_step > r->rg_next) {
            r->rg_next = k * r->rg_cp_step;
            r->rg_pos = r->rg_cp[k];
        }
        r->rg_loaded = UINT32_MAX;
        r->rg_target = rg;
        win_seek(r, r->rg_pos);
        rg_begin(r);
    }
    for (;;) {
        upq_status st = rg_feed(r);
        if (st != UPQ_OK)
            return st;
        r->rg_pos += r->tdec.pos;
        r->rg_next++;
        if (r->rg_next == r->rg_cp_n * r->rg_cp_step && r->rg_cp_n < UPQ_RG_CHECKPOINTS)
            r->rg_cp[r->rg_cp_n++] = r->rg_pos;
        if (r->rg_stage == 2) {
            r->rg_stage = 0;
            st = check_row_group(r, rg, &r->rg_cur);
            if (st != UPQ_OK)
                return st;
            r->rg_loaded = rg;
            return UPQ_OK;
        }
        rg_begin(r);
    }
}
#else
upq_status upq_reader_row_group_load(upq_reader *r, uint32_t rg)
{
    if (r->stage != RS_OPEN)
        return r->err.status != UPQ_OK ? r->err.status : UPQ_ERR_STATE;
    if (rg >= r->meta.row_groups.n) {
        r->err.status = UPQ_ERR_INVAL;
        r->err.needed = 0;
        r->err.row_group = (int32_t)rg;
        r->err.what = UPQ_MSG("no such row group");
        return UPQ_ERR_INVAL;
    }
    return UPQ_OK;
}
#endif
