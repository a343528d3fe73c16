/*
 * Recovery (upq_recover): a checkpoint-mode file cut at any byte, or damaged,
 * becomes a valid Parquet file holding every row up to its last checkpoint
 * whose records and pages are intact (the replay of replay.c decides which),
 * finished in place as close would finish it.
 *
 * It starts from the FILE record: the schema and options, from which a
 * writer of the smallest pages is built in the caller's arena to finish the
 * file; its memory depends on the schema only. Nothing is written until the
 * replay has read and checked everything the finished file will hold (the
 * cut row group's dictionaries included), so a recovery that fails for
 * anything but an I/O error leaves the file as it was.
 */
#include "uparquet/recover.h"
#include "checkpoint/replay.h"
#include "front.h"
#include "crypto/crypto_int.h"
#include "upq_aes.h"

#if UPQ_WITH_WRITER

/* Recovery stages (upq_recover_state.stage). */
enum {
    RC_INIT = 0,
    RC_HDR,
    RC_BODY,
    RC_CRC,
    RC_KEYS,
    RC_FMD,
    RC_WRITER,
    RC_REPLAY,
    RC_FINISH,
    RC_CLOSE,
    RC_DONE
};

/* What a recovery writer takes beyond the Thrift of its schema, per column
 * and in all, at most (the planner below gives the exact figure from the
 * schema): its column state, the journal's per-column records and the
 * finisher's, staging of a 64-byte page and the bounds it keeps. */
#define RC_PER_COL (sizeof(upq_wcol) + sizeof(upq_wjcol) + sizeof(upq_jcol) + sizeof(upq_jregion) + 1024u)
#define RC_FIXED 16384u

/*
 * The arena recovery asks for when the FILE record does not fit: an upper
 * bound from the record's length, as the schema is not known yet. A
 * FileMetaData template takes at most one schema element per 3 bytes of it
 * (a name's field header and length, a STOP) and its bytes again; the
 * finishing writer, RC_PER_COL per column the settings declare and
 * RC_FIXED. Once the record fits, a recovery still short of memory says
 * the exact need (the writer's).
 */
static size_t rc_need_estimate(const upq_recover_state *st)
{
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    size_t n = upq_arena_needed(&st->a), est;
    uint32_t cols = jf && jf->ncols > 0 && (uint32_t)jf->ncols <= st->len ? (uint32_t)jf->ncols : st->len;
    est = upq_w_align8(sizeof(upq_jfile)) + (size_t)st->len / 3u * (sizeof(upq_schema_element) + 8u) +
          2u * (size_t)st->len + (size_t)cols * RC_PER_COL + RC_FIXED;
    if (st->sealed)
        est += 8192u; /* keys, and the ColumnMetaData a column's module holds */
    return est > n ? est : n;
}

/* Reads [off, off + n) of the file into st->buf (n <= sizeof buf). */
static upq_status rc_read(upq_recover_state *st, const upq_sink *sink, uint64_t off, uint32_t n)
{
    while (st->have < n) {
        size_t got = 0;
        upq_status s = sink->read_at(sink->ctx, off + st->have, st->buf + st->have, n - st->have, &got);
        if (s == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (s != UPQ_OK)
            return UPQ_ERR_IO;
        if (got == 0 || got > n - st->have)
            return UPQ_ERR_CORRUPT;
        st->have += (uint32_t)got;
    }
    return UPQ_OK;
}

static upq_status rc_fail(upq_recover_state *st, upq_status s, uint64_t off, const char *what)
{
    (void)what; /* UPQ_NO_ERRSTR builds keep no texts */
    st->w.err.column = st->w.err.row_group = st->w.err.page = -1;
    st->w.err.status = s;
    st->w.err.what = UPQ_MSG(what);
    st->w.err.offset = off;
    st->w.failed = s;
    st->stage = RC_DONE;
    return s;
}

/* The writer that finishes the file: the file's schema and options, the
 * smallest pages (it stages nothing). */
#if UPQ_WITH_CRYPTO
/* Bytes of the arena, 8-aligned, taken from the front of [*mem, *mem + *len). */
static void *rc_take(uint8_t **mem, size_t *len, size_t n)
{
    void *p = *mem;
    n = upq_w_align8(n);
    if (n > *len)
        return (void *)0;
    *mem += n;
    *len -= n;
    return p;
}

/* The encryption options of the finishing writer, in the arena: the file's
 * algorithm, AAD and key metadata, the footer key asked for already; each
 * column key's place filled once the writer knows the columns' paths. */
static upq_status rc_encrypt_opts(upq_recover_state *st, const upq_recover_opts *ro, upq_writer_opts *o,
                                  uint8_t **mem, size_t *len)
{
    static const uint8_t zero_key[16] = {0};
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    upq_encrypt_opts *e = (upq_encrypt_opts *)rc_take(mem, len, sizeof *e);
    upq_column_key *ck = (upq_column_key *)rc_take(mem, len, (size_t)jf->keys.n * sizeof *ck);
    uint32_t i;
    if (!e || (jf->keys.n && !ck)) {
        st->w.arena.needed = upq_w_align8(sizeof *e) + upq_w_align8((size_t)jf->keys.n * sizeof *ck);
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small for the schema");
    }
    if (!ro || !ro->random)
        return rc_fail(st, UPQ_ERR_INVAL, UINT64_MAX, "recovering an encrypted file needs a random source");
    upq_memset(e, 0, sizeof *e);
    e->algorithm = st->fc.algorithm;
    e->plaintext_footer = (uint8_t)((jf->flags & UPQ_JF_PLAIN_FOOTER) != 0);
    e->footer_key = st->fkey;
    e->footer_key_len = (uint32_t)st->fkey_len;
    e->footer_key_metadata = jf->footer_key_metadata.ptr;
    e->footer_key_metadata_len = UPQ_ISSET(*jf, UPQ_JFILE_FOOTER_KEY_METADATA) ? jf->footer_key_metadata.len : 0u;
    e->aad_prefix = st->fc.aad_prefix.ptr;
    e->aad_prefix_len = st->fc.aad_prefix.len;
    e->no_store_aad_prefix = (uint8_t)((jf->flags & UPQ_JF_SUPPLY_AAD) != 0);
    e->random = ro->random;
    e->random_ctx = ro->random_ctx;
    for (i = 0; i < jf->keys.n; i++) {
        const upq_jkey *jk = &jf->keys.v[i];
        if (jk->column < 0)
            return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
        ck[i].column = (uint32_t)jk->column;
        ck[i].key = zero_key; /* the real one once the column's path is known */
        ck[i].key_len = 16;
        ck[i].key_metadata = jk->key_metadata.ptr;
        ck[i].key_metadata_len = UPQ_ISSET(*jk, UPQ_JKEY_KEY_METADATA) ? jk->key_metadata.len : 0u;
    }
    e->columns = ck;
    e->ncolumns = jf->keys.n;
    o->encrypt = e;
    return UPQ_OK;
}

/* Each column key from the caller, by its metadata and the column's path,
 * checked against the file; and the file's AAD file_unique taken. */
static upq_status rc_column_keys(upq_recover_state *st, const upq_recover_opts *ro)
{
    upq_writer *w = &st->w;
    const upq_encrypt_opts *e = w->o.encrypt;
    uint32_t i;
    for (i = 0; i < e->ncolumns; i++) {
        const upq_wcol *c = &w->cols[e->columns[i].column];
        upq_bytes md;
        upq_bytes_list path;
        uint8_t key[UPQ_CRYPTO_MAX_KEY];
        size_t kl = 0;
        md.ptr = e->columns[i].key_metadata;
        md.len = e->columns[i].key_metadata_len;
        path.v = c->path;
        path.n = c->path_len;
        if (ro->decrypt->get_key(ro->decrypt->key_ctx, &md, &path, key, &kl) != UPQ_OK ||
            upq_aes_setkey(w->wc->cols[i].k, key, kl) != UPQ_OK) {
            upq_memset(key, 0, sizeof key);
            return upq_w_fail(w, UPQ_ERR_AUTH, (int32_t)e->columns[i].column, "column key not available");
        }
        upq_memset(key, 0, sizeof key);
    }
    UPQ_WF(w)->fj = (struct upq_jfile *)st->settings;
    return upq_wr_adopt_keys(w);
}
#endif

/* A dry run's writer writes nothing, but is built with a sink that could. */
static upq_status no_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    (void)ctx;
    (void)off;
    (void)buf;
    (void)len;
    *written = 0;
    return UPQ_ERR_IO;
}

/* The finishing writer's options from the file's settings (flags, longest
 * stored bound): the file's page and statistics options, the smallest
 * pages (it stages nothing). */
static void rc_opts(int32_t flags, int32_t smb, const upq_key_value *kv, uint32_t nkv,
                    const upq_sorting_column *sorting, uint32_t nsorting, upq_writer_opts *o)
{
    upq_memset(o, 0, sizeof *o);
    o->page_size = 64;
    o->page_levels = 8;
    o->dict_size = 64;
    o->checkpoint = 1;
    o->row_group_rows = 1;
    o->data_page_v2 = (uint8_t)((flags & UPQ_JF_V2) != 0);
    o->no_crc = (uint8_t)((flags & UPQ_JF_CRC) == 0);
    o->no_statistics = (uint8_t)((flags & UPQ_JF_STATS) == 0);
    o->no_page_index = (uint8_t)((flags & UPQ_JF_PAGE_INDEX) == 0);
    o->column_order = (uint8_t)((flags & UPQ_JF_IEEE_ORDER) ? UPQ_ORDER_IEEE754 : UPQ_ORDER_TYPE);
    if (smb > 0 && !o->no_statistics)
        o->stats_max_binary = (uint32_t)smb;
    o->kv = kv;
    o->nkv = nkv;
    o->sorting = sorting;
    o->nsorting = nsorting;
}

static upq_status rc_writer(upq_recover_state *st, const upq_sink *sink, uint8_t *mem, size_t len,
                            const upq_recover_opts *ropts)
{
    upq_sink dry;
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    const upq_row_group *rg = st->fmd.row_groups.n == 1 ? &st->fmd.row_groups.v[0] : (const upq_row_group *)0;
    upq_writer_opts o;
    upq_status s;
    rc_opts(jf->flags, UPQ_ISSET(*jf, UPQ_JFILE_STATS_MAX_BINARY) ? jf->stats_max_binary : 0,
            st->fmd.key_value_metadata.v, st->fmd.key_value_metadata.n,
            rg ? rg->sorting_columns.v : (const upq_sorting_column *)0, rg ? rg->sorting_columns.n : 0u, &o);
    o.file_id = st->file_id;
#if UPQ_WITH_CRYPTO
    if (st->sealed) {
        s = rc_encrypt_opts(st, ropts, &o, &mem, &len);
        if (s != UPQ_OK)
            return s;
    }
#else
    (void)ropts;
#endif
    if (ropts && ropts->dry_run && !sink->write_at) {
        upq_memcpy(&dry, sink, sizeof dry); /* an assignment is a memcpy call on RV32 */
        dry.write_at = no_write_at;
        sink = &dry;
    }
    s = upq_writer_init(&st->w, sink, st->fmd.schema.v, st->fmd.schema.n, mem, len, &o);
    if (s != UPQ_OK)
        return s;
    if ((int32_t)st->w.ncols != jf->ncols)
        return upq_w_fail(&st->w, UPQ_ERR_CORRUPT, -1, "FILE record damaged");
#if UPQ_WITH_CRYPTO
    if (st->sealed) {
        s = rc_column_keys(st, ropts);
        if (s != UPQ_OK)
            return s;
    }
#endif
    /* pages are never compressed here: a dictionary page is written in the
     * codec's stored form */
    st->w.o.codec = jf->codec;
    /* the records are read, and written, as the file's */
    if (upq_wr_adopt_file(&st->w, jf) != UPQ_OK)
        return upq_w_fail(&st->w, UPQ_ERR_CORRUPT, -1, "FILE record damaged");
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
/* The file's encryption parameters, and the footer key from the caller
 * (expanded in the arena); the FileMetaData's module set up for reading. */
static upq_status rc_footer_key(upq_recover_state *st, const upq_sink *sink, const upq_recover_opts *ro)
{
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    const upq_decrypt_opts *d = ro ? ro->decrypt : (const upq_decrypt_opts *)0;
    upq_bytes md;
    if (!UPQ_ISSET(*jf, UPQ_JFILE_ALGORITHM) || jf->algorithm < UPQ_CRYPTO_AES_GCM_V1 ||
        jf->algorithm > UPQ_CRYPTO_AES_GCM_CTR_V1 || !UPQ_ISSET(*jf, UPQ_JFILE_AAD_FILE_UNIQUE))
        return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
    if (!d || !d->get_key)
        return rc_fail(st, UPQ_ERR_AUTH, 4, "encrypted file: no keys given");
    upq_memset(&st->fc, 0, sizeof st->fc);
    st->fc.algorithm = (uint8_t)jf->algorithm;
    st->fc.aad_file_unique = jf->aad_file_unique;
    if (jf->flags & UPQ_JF_SUPPLY_AAD) {
        if (!d->aad_prefix_given)
            return rc_fail(st, UPQ_ERR_AUTH, 4, "encrypted file: its AAD prefix must be supplied");
        st->fc.aad_prefix.ptr = d->aad_prefix;
        st->fc.aad_prefix.len = d->aad_prefix_len;
    } else if (UPQ_ISSET(*jf, UPQ_JFILE_AAD_PREFIX)) {
        if (d->aad_prefix_given && (d->aad_prefix_len != jf->aad_prefix.len ||
                                    upq_memcmp(d->aad_prefix, jf->aad_prefix.ptr, d->aad_prefix_len) != 0))
            return rc_fail(st, UPQ_ERR_AUTH, 4, "AAD prefix given differs from the file's");
        st->fc.aad_prefix = jf->aad_prefix;
    }
    st->fkey = (uint8_t *)upq_arena_alloc(&st->a, UPQ_CRYPTO_MAX_KEY);
    st->fk = (struct upq_aes_key *)upq_arena_alloc(&st->a, upq_aes_key_size());
    if (!st->fkey || !st->fk) {
        st->w.arena.needed = upq_arena_needed(&st->a);
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small");
    }
    md.ptr = jf->footer_key_metadata.ptr;
    md.len = UPQ_ISSET(*jf, UPQ_JFILE_FOOTER_KEY_METADATA) ? jf->footer_key_metadata.len : 0u;
    st->fkey_len = 0;
    if (d->get_key(d->key_ctx, &md, (const upq_bytes_list *)0, st->fkey, &st->fkey_len) != UPQ_OK ||
        upq_aes_setkey(st->fk, st->fkey, st->fkey_len) != UPQ_OK)
        return rc_fail(st, UPQ_ERR_AUTH, 4, "footer key not available");
    upq_cstream_init(&st->cs, st->mod_off, 4u + st->len - UPQ_J_CRC, UPQ_MODULE_JOURNAL, -1, -1, -1);
    st->cio.ctx = sink->ctx;
    st->cio.read_at = sink->read_at;
#if UPQ_WITH_LEND
    st->cio.lend = (upq_lend_fn)0;
#endif
    st->cio.size = st->size;
    st->part = 1;
    upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_file_metadata_desc, &st->fmd,
                  &st->a, st->len, (const upq_thrift_limits *)0);
    return UPQ_OK;
}
#endif


/* ---- the stages ------------------------------------------------------------------ */

static upq_status rc_init(upq_recover_state *st, const upq_sink *sink, void *arena, size_t arena_len,
                          const upq_recover_opts *opts, upq_recover_info *info)
{
    upq_memset(info, 0, sizeof *info);
    if (!sink || !sink->read_at || (!(opts && opts->dry_run) && !sink->write_at))
        return rc_fail(st, UPQ_ERR_INVAL, UINT64_MAX, "recovery needs read_at and write_at");
    upq_arena_init(&st->a, arena, arena_len);
    st->settings = upq_arena_alloc(&st->a, sizeof(upq_jfile));
    if (!st->settings) {
        st->w.arena.needed = rc_need_estimate(st);
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small");
    }
    st->have = 0;
    return UPQ_OK;
}

/* RC_HDR: "PAR1" (or "PARE") and FILE's header. */
static upq_status rc_hdr(upq_recover_state *st, const upq_sink *sink)
{
    upq_jhdr h;
    upq_status s;
    if (st->size < 4u + UPQ_J_MIN + 8u)
        return rc_fail(st, UPQ_ERR_CORRUPT, 0, "not a checkpoint-mode file");
    s = rc_read(st, sink, 0, 4u + UPQ_J_HDR);
    if (s == UPQ_AGAIN)
        return s;
    if (s != UPQ_OK || (upq_memcmp(st->buf, "PAR1", 4) != 0 && upq_memcmp(st->buf, "PARE", 4) != 0) ||
        upq_j_hdr_get(st->buf + 4, &h, st->size - 4u) != UPQ_OK || h.type != UPQ_J_FILE || h.seq != 0 ||
        (h.flags & ~UPQ_J_SEALED) != 0)
        return rc_fail(st, s == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, 4, "not a checkpoint-mode file (no journal)");
    st->pare = st->buf[3] == 'E';
    st->sealed = (h.flags & UPQ_J_SEALED) != 0;
    if (st->sealed && !UPQ_WITH_CRYPTO)
        return rc_fail(st, UPQ_ERR_UNSUPPORTED, 4, "encrypted file: this build has no crypto");
    st->len = h.len;
    st->file_id = h.file_id;
    st->session = h.session;
    st->crc = upq_crc32(st->buf + 4, UPQ_J_HDR);
    st->done = UPQ_J_HDR;
    st->part = 0;
    upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_journal_descs[UPQ_JDESC_FILE], st->settings,
                  &st->a, st->len - UPQ_J_MIN, (const upq_thrift_limits *)0);
    st->have = 0;
    return UPQ_OK;
}

/* A piece of FILE's body into its decoding: the settings, then (plain) the
 * FileMetaData, or (sealed) the place of its module. */
static upq_status rc_decode(upq_recover_state *st, uint32_t n)
{
    uint32_t body = st->len - UPQ_J_CRC;
    size_t used = 0;
    while (used < n && st->part != 3) {
        size_t u = 0;
        upq_status s;
        if (st->part == 2)
            return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
        s = upq_tdec_feed(&st->tdec, st->buf + used, n - used, &u);
        used += u;
        if (s == UPQ_AGAIN)
            break;
        if (s == UPQ_ERR_NOMEM) {
            st->w.arena.needed = rc_need_estimate(st);
            return rc_fail(st, s, 4, "arena too small for the schema");
        }
        if (s != UPQ_OK)
            return rc_fail(st, UPQ_ERR_CORRUPT, 4u + st->done + used, "FILE record damaged");
        if (st->part == 0 && st->sealed) {
            /* the settings, then the FileMetaData's module (opened once the
             * record's CRC has passed and the key is in) */
            st->part = 3;
            st->mod_off = 4u + st->done + used;
        } else if (st->part == 0) {
            st->part = 1;
            upq_tdec_init(&st->tdec, st->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_file_metadata_desc, &st->fmd, &st->a,
                          body - st->done - used, (const upq_thrift_limits *)0);
        } else {
            st->part = 2;
        }
    }
    return UPQ_OK;
}

/* RC_BODY: FILE's body, read and decoded as it comes. */
static upq_status rc_body(upq_recover_state *st, const upq_sink *sink)
{
    uint32_t body = st->len - UPQ_J_CRC;
    while (st->done < body) {
        uint32_t n = body - st->done < sizeof st->buf ? body - st->done : (uint32_t)sizeof st->buf;
        upq_status s = rc_read(st, sink, 4u + st->done, n);
        if (s == UPQ_AGAIN)
            return s;
        if (s != UPQ_OK)
            return rc_fail(st, s, 4u + st->done, "FILE record cut short");
        st->crc = upq_crc32_update(st->crc, st->buf, n);
        s = rc_decode(st, n);
        if (s != UPQ_OK)
            return s;
        st->done += n;
        st->have = 0;
    }
    if (st->part != (st->sealed ? 3 : 2))
        return rc_fail(st, UPQ_ERR_CORRUPT, 4, "FILE record damaged");
    return UPQ_OK;
}

/* RC_CRC: FILE's CRC, and settings that make sense. */
static upq_status rc_crc(upq_recover_state *st, const upq_sink *sink)
{
    const upq_jfile *jf = (const upq_jfile *)st->settings;
    upq_status s = rc_read(st, sink, 4u + st->len - UPQ_J_CRC, UPQ_J_CRC);
    if (s == UPQ_AGAIN)
        return s;
    if (s != UPQ_OK || upq_load_le32(st->buf) != st->crc)
        return rc_fail(st, s == UPQ_ERR_IO ? s : UPQ_ERR_CORRUPT, 4, "FILE record damaged");
    if (st->pare != (st->sealed && !(jf->flags & UPQ_JF_PLAIN_FOOTER)))
        return rc_fail(st, UPQ_ERR_CORRUPT, 0, "FILE record damaged");
    if (jf->version < 1 || jf->version > UPQ_J_VERSION)
        return rc_fail(st, UPQ_ERR_UNSUPPORTED, 4, "a journal of a version this build does not read");
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
/* RC_FMD: the FileMetaData, decrypted as it is decoded. */
static upq_status rc_fmd(upq_recover_state *st)
{
    for (;;) {
        const uint8_t *p;
        size_t n, u = 0;
        uint64_t at = st->mod_off;
        const char *what = "";
        upq_status s = upq_cstream_next(&st->cs, &st->cio, &st->fc, st->fk, st->buf, sizeof st->buf, &p, &n, &at,
                                        &what);
        if (s == UPQ_AGAIN)
            return s;
        if (s == UPQ_DONE)
            break;
        if (s != UPQ_OK)
            return rc_fail(st, s == UPQ_ERR_AUTH || s == UPQ_ERR_IO ? s : UPQ_ERR_CORRUPT, at,
                           s == UPQ_ERR_AUTH ? "footer key does not match the file" : what);
        if (st->part == 2)
            continue; /* authenticated padding after it */
        s = upq_tdec_feed(&st->tdec, p, n, &u);
        if (s == UPQ_OK) {
            st->part = 2;
        } else if (s == UPQ_ERR_NOMEM) {
            st->w.arena.needed = rc_need_estimate(st);
            return rc_fail(st, s, 4, "arena too small for the schema");
        } else if (s != UPQ_AGAIN) {
            return rc_fail(st, UPQ_ERR_CORRUPT, st->mod_off, "FILE record damaged");
        }
    }
    if (st->part != 2)
        return rc_fail(st, UPQ_ERR_CORRUPT, st->mod_off, "FILE record damaged");
    return UPQ_OK;
}
#endif

/* RC_WRITER: the finishing writer in the rest of the arena, then the replay. */
static upq_status rc_setup(upq_recover_state *st, const upq_sink *sink, void *arena, size_t arena_len,
                           const upq_recover_opts *opts)
{
    size_t at = upq_w_align8(st->a.used);
    upq_status s;
    if (at > arena_len) {
        st->w.arena.needed = at;
        return rc_fail(st, UPQ_ERR_NOMEM, UINT64_MAX, "arena too small for the schema");
    }
    s = rc_writer(st, sink, (uint8_t *)arena + at, arena_len - at, opts);
    if (s != UPQ_OK) {
        if (s == UPQ_ERR_NOMEM)
            st->w.arena.needed += at;
        st->stage = RC_DONE;
        return s;
    }
    upq_wr_start(&st->w, 4u + st->len, st->file_id, st->session, 0, st->size);
    upq_wj_start(&st->w, UPQ_WJ_REPLAY);
    if (opts && opts->dry_run)
        UPQ_WF(&st->w)->dry = 1;
    return UPQ_OK;
}

/* RC_REPLAY: the replay; then a file closed already (and intact) is left as
 * it is, a dry run stops, and the rest is finished. */
/* An append-only sink may hold a closed file's end in its journal still:
 * it goes into place (a call of its own, off recovery's deepest path). */
static UPQ_NOINLINE upq_status seal_closed(upq_writer *w, uint64_t size)
{
    if (!w->sink.seal)
        return UPQ_OK;
    w->seal_to = size;
    return upq_w_sync(w);
}

static upq_status rc_replay(upq_recover_state *st, const upq_recover_opts *opts, upq_recover_info *info)
{
    upq_writer *w = &st->w;
    upq_wfinish *f = UPQ_WF(w);
    upq_status s = upq_w_pump(w);
    if (s != UPQ_OK)
        return s;
    info->bad_pages = f->bad_pages;
    info->rows = w->rows_done;
    info->row_groups = w->num_rg;
    info->cut_at = w->jr->next;
    if (f->closed && f->close_size == st->size) {
        s = seal_closed(w, st->size);
        if (s != UPQ_OK)
            return s;
        info->was_closed = 1;
        info->file_size = st->size;
        return UPQ_DONE;
    }
    if (opts && opts->dry_run)
        return UPQ_DONE;
    if (f->closed)
        w->jr->next = f->close_at; /* finished again, in the same place */
    upq_wj_start(w, UPQ_WJ_FINISH);
    return UPQ_OK;
}

static upq_status rc_step(upq_recover_state *st, const upq_sink *sink, void *arena, size_t arena_len,
                          const upq_recover_opts *opts, upq_recover_info *info)
{
    upq_writer *w = &st->w;
    upq_status s;
    switch (st->stage) {
    case RC_INIT: return rc_init(st, sink, arena, arena_len, opts, info);
    case RC_HDR: return rc_hdr(st, sink);
    case RC_BODY: return rc_body(st, sink);
    case RC_CRC: return rc_crc(st, sink);
#if UPQ_WITH_CRYPTO
    case RC_KEYS: return rc_footer_key(st, sink, opts);
    case RC_FMD: return rc_fmd(st);
#endif
    case RC_WRITER: return rc_setup(st, sink, arena, arena_len, opts);
    case RC_REPLAY: return rc_replay(st, opts, info);
    case RC_FINISH:
        s = upq_w_pump(w);
        if (s == UPQ_OK)
            upq_wj_start(w, UPQ_WJ_CLOSE);
        return s;
    case RC_CLOSE:
        s = upq_w_pump(w);
        if (s == UPQ_OK)
            info->file_size = UPQ_WF(w)->end;
        return s == UPQ_OK ? UPQ_DONE : s;
    default: return w->failed ? w->failed : UPQ_ERR_STATE;
    }
}

upq_status upq_recover(upq_recover_state *st, const upq_sink *sink, uint64_t size, void *arena,
                       size_t arena_len, const upq_recover_opts *opts, upq_recover_info *info)
{
    if (st->stage == RC_INIT)
        st->size = size;
    for (;;) {
        upq_status s = rc_step(st, sink, arena, arena_len, opts, info);
        if (s == UPQ_DONE) {
            st->stage = RC_DONE;
            return UPQ_OK;
        }
        if (s != UPQ_OK) {
            if (s < 0)
                st->stage = RC_DONE;
            return s;
        }
        /* the encrypted stages only in an encrypted file */
        if (st->stage == RC_CRC && !st->sealed)
            st->stage = RC_WRITER;
        else
            st->stage++;
    }
}


/* ---- planning --------------------------------------------------------------------- */

/* Arena bytes of FILE's settings as a file of these options has them: the
 * settings themselves, their binaries and the column keys' list. */
static size_t plan_settings(const upq_writer_opts *o)
{
    size_t n = upq_w_align8(sizeof(upq_jfile)) + upq_w_align8(UPQ_J_NONCE);
    const upq_encrypt_opts *e = o->encrypt;
    uint32_t i;
    if (!e)
        return n;
    n += upq_w_align8(8u); /* aad_file_unique */
    if (e->aad_prefix_len && !e->no_store_aad_prefix)
        n += upq_w_align8(e->aad_prefix_len);
    n += upq_w_align8(e->footer_key_metadata_len);
    n += upq_w_align8((size_t)e->ncolumns * sizeof(upq_jkey));
    for (i = 0; i < e->ncolumns; i++)
        n += upq_w_align8(e->columns[i].key_metadata_len) + upq_w_align8(UPQ_JKEY_CHECK_LEN);
    return n;
}

/* Arena bytes decoding FILE's FileMetaData template takes: the schema, the
 * sorting columns' template row group, the key-value metadata, created_by
 * and a column order per leaf. SIZE_MAX when a schema element nests too
 * deep to count. */
static size_t plan_fmd(const upq_schema_element *elems, uint32_t n, const upq_writer_opts *o)
{
    size_t t = upq_w_align8((size_t)n * sizeof(upq_schema_element)), d;
    uint32_t i, leaves = 0;
    for (i = 0; i < n; i++) {
        d = upq_thrift_decoded_size(&upq_schema_element_desc, &elems[i]);
        if (d == SIZE_MAX)
            return d;
        t += d;
        leaves += i && elems[i].num_children == 0 ? 1u : 0u;
    }
    if (o->nsorting)
        t += upq_w_align8(sizeof(upq_row_group)) + upq_w_align8((size_t)o->nsorting * sizeof(upq_sorting_column));
    t += upq_w_align8((size_t)o->nkv * sizeof(upq_key_value));
    for (i = 0; i < o->nkv; i++)
        t += upq_thrift_decoded_size(&upq_key_value_desc, &o->kv[i]);
    return t + upq_w_align8(sizeof UPQ_W_CREATED_BY - 1u) + upq_w_align8((size_t)leaves * sizeof(upq_column_order));
}

/* Arena bytes ahead of the finishing writer's: FILE decoded, and an
 * encrypted file's keys. SIZE_MAX when the schema nests too deep to count.
 * Not inlined: the writer's planner needs the stack. */
static UPQ_NOINLINE size_t plan_head(const upq_schema_element *elems, uint32_t n, const upq_writer_opts *o)
{
    size_t t = plan_fmd(elems, n, o);
    if (t == SIZE_MAX)
        return t;
    t += plan_settings(o);
#if UPQ_WITH_CRYPTO
    if (o->encrypt) {
        /* the footer key and its schedule; the encryption options and
         * column keys handed to the writer */
        t += upq_w_align8(UPQ_CRYPTO_MAX_KEY) + upq_w_align8(upq_aes_key_size()) +
             upq_w_align8(sizeof(upq_encrypt_opts)) + upq_w_align8((size_t)o->encrypt->ncolumns * sizeof(upq_column_key));
    }
#endif
    return t;
}

/* The finishing writer, configured with the options FILE gives it: in a
 * frame of its own, which returns before the writer's plan runs. */
static UPQ_NOINLINE upq_status rc_plan_writer(upq_wplan *w, const upq_schema_element *elems, uint32_t n,
                                              const upq_writer_opts *o)
{
    upq_writer_opts ro;
    rc_opts((o->data_page_v2 ? UPQ_JF_V2 : 0) | (UPQ_WITH_CRC && !o->no_crc ? UPQ_JF_CRC : 0) |
                (!o->no_statistics ? UPQ_JF_STATS : 0) | (!o->no_page_index ? UPQ_JF_PAGE_INDEX : 0) |
                (o->column_order == UPQ_ORDER_IEEE754 ? UPQ_JF_IEEE_ORDER : 0),
            (int32_t)o->stats_max_binary, o->kv, o->nkv, o->sorting, o->nsorting, &ro);
    ro.encrypt = o->encrypt;
    return upq_w_plan_configure(w, elems, n, &ro);
}

upq_status upq_recover_workspace_size(const upq_schema_element *elems, uint32_t n, const upq_writer_opts *o,
                                      size_t *need)
{
    upq_wplan w;
    size_t head, wneed = 0;
    upq_status s;
    if (!elems || !n || !o || !need)
        return UPQ_ERR_INVAL;
    head = plan_head(elems, n, o);
    if (head == SIZE_MAX)
        return UPQ_ERR_LIMIT;
    /* the finishing writer after that */
    s = rc_plan_writer(&w, elems, n, o);
    if (s == UPQ_OK)
        s = upq_w_plan(&w, 0, &wneed);
    if (s != UPQ_OK)
        return s;
    *need = head + wneed;
    return UPQ_OK;
}

size_t upq_recover_needed(const upq_recover_state *st)
{
    return st->w.arena.needed;
}

const upq_error_info *upq_recover_error(const upq_recover_state *st)
{
    return &st->w.err;
}

#endif /* UPQ_WITH_WRITER */
