/*
 * Checkpoint mode, the writer's side: row groups whose chunks are written to
 * their place in the file as their pages are made, and the journal that
 * makes every checkpoint cost only what changed since the last one
 * (layout and records in journal.h).
 *
 * Regions. When a row group's first page is ready, every column gets a
 * region sized for the rows the row group is planned for: the bytes per row
 * the column took in the last row group (or, in the first, what its staged
 * rows encode to), a margin, room for one more page of a full staging, and
 * a slot for the dictionary page. A page goes to the region only if the
 * region keeps room for one more page after it; otherwise the row group
 * ends at the rows every column has, whose last pages then always fit. So
 * RAM holds a page of staging per column whatever the row group's size,
 * and the file holds, between chunks, only what the estimate left over.
 *
 * Checkpoints. Every column's staged rows become a page, dictionary entries
 * added since the last record go to a blob, and one record states each
 * region's fill; then the sink syncs. Nothing written before is written
 * again and nothing is read back. The footer is written once, at close
 * (writer_finish.c), or by recovery (recover.c).
 */
#include "checkpoint.h"

#if UPQ_WITH_WRITER

#define K_ROWS UPQ_WF_K_ROWS
/* A region is its column's estimate and a margin of 1 / 2^k more: k is 7
 * (1/128) for the first row group, whose estimate is a page's (which errs
 * high rather than low: dry_rate); then one more (half the margin) after
 * each row group whose regions all kept room, one less (twice the margin)
 * after one that a region ended early, within 3 to 7 (1/8 to 1/128):
 * steady data gets thin margins, varying data room. A margin too thin
 * costs a row group ended early, never a row; one too wide, gaps in the
 * file (1/32 left 2.2% of a 64K-row first row group unused). */
#define MARGIN_FIRST 7u
#define MARGIN_MIN 3u
#define MARGIN_MAX 7u
/* Rows planned when only a byte limit is set and nothing is measured yet. */
#define DEFAULT_RG_PLAN 65536u

static upq_status file_size(upq_writer *w, uint64_t *end);

static size_t a8(size_t n)
{
    return upq_w_align8(n);
}

static uint64_t umax(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t umin(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

size_t upq_wj_need(const upq_writer_opts *o, uint32_t ncols, uint32_t nrep)
{
    size_t keys = o->encrypt ? a8((size_t)o->encrypt->ncolumns * (sizeof(upq_jkey) + UPQ_JKEY_CHECK_LEN))
                               : 0u;
    return keys + a8(sizeof(upq_wjournal)) + a8((size_t)ncols * sizeof(upq_wjcol)) +
           a8((size_t)ncols * sizeof(upq_jcol)) + a8((size_t)ncols * sizeof(upq_jregion)) +
           (size_t)nrep * a8((K_ROWS + 1u) * sizeof(int32_t));
}

/* The rows limit of the next row group: the user's, or what is left of
 * the rows the file is meant to hold. */
uint64_t upq_wj_next_limit(const upq_writer *w)
{
    uint64_t lim = w->o.row_group_rows ? w->o.row_group_rows : UINT64_MAX;
    uint64_t done = w->rows_done;
    if (w->o.file_rows > done)
        lim = umin(lim, w->o.file_rows - done);
    return lim;
}

/* The file row at which the next checkpoint is due after `rows`. */
uint64_t upq_wj_next_ckpt(const upq_writer *w, uint64_t rows)
{
    uint64_t n = w->o.checkpoint_rows;
    if (!n)
        return UINT64_MAX;
    return (upq_div64(rows, n) + 1u) * n;
}

upq_status upq_wj_init(upq_writer *w, void *mem)
{
    upq_wjournal *jr = (upq_wjournal *)mem;
    uint8_t *p = (uint8_t *)mem;
    uint32_t i, n = w->ncols, nlev = 0;
    if (!jr)
        return upq_w_fail(w, UPQ_ERR_STATE, -1, "journal memory missing");
    upq_memset(jr, 0, sizeof *jr);
    p += a8(sizeof *jr);
    jr->cols = (upq_wjcol *)(void *)p;
    upq_memset(jr->cols, 0, (size_t)n * sizeof(upq_wjcol));
    p += a8((size_t)n * sizeof(upq_wjcol));
    jr->jc = (upq_jcol *)(void *)p;
    p += a8((size_t)n * sizeof(upq_jcol));
    jr->reg = (upq_jregion *)(void *)p;
    p += a8((size_t)n * sizeof(upq_jregion));
    if (w->o.encrypt) {
        jr->keys = (upq_jkey *)(void *)p;
        jr->kcheck = p + (size_t)w->o.encrypt->ncolumns * sizeof(upq_jkey);
        p += a8((size_t)w->o.encrypt->ncolumns * (sizeof(upq_jkey) + UPQ_JKEY_CHECK_LEN));
    }
    for (i = 0; i < n; i++) {
        nlev += (uint32_t)w->cols[i].max_def + w->cols[i].max_rep + 2u;
        if (w->cols[i].max_rep) {
            jr->cols[i].prow = (int32_t *)(void *)p;
            p += a8((K_ROWS + 1u) * sizeof(int32_t));
        }
    }
    /* the finisher's memory is the staging's (writer.c): set up afresh
     * whenever it starts work */
    jr->fin = (struct upq_wfinish *)(void *)w->stage;
    jr->nlev = nlev;
    for (i = 0; i < n; i++)
        jr->nrep += w->cols[i].max_rep ? 1u : 0u;
    if (w->o.max_file_bytes) {
        /* a RowGroup's footer bytes (the chunks' metadata twice when
         * encrypted: plaintext and module), and each chunk's two indexes'
         * framing (and modules) */
        size_t b = upq_w_rg_bound(n, &w->o);
        for (i = 0; i < n; i++) {
            const upq_wcol *c = &w->cols[i];
            size_t pb = 0, cb;
            uint32_t k;
            for (k = 0; k < c->path_len; k++)
                pb += upq_w_path_bytes(c->path[k].len);
            cb = upq_w_cc_bound(c, c->path_len, pb) + 64u + upq_w_kv_bound(&w->o, i);
            if (UPQ_W_ENCRYPTING(w))
                cb = 2u * cb + 2u * UPQ_W_CRYPTO_OVER + 64u + pb;
            b = b > SIZE_MAX - cb ? SIZE_MAX : b + cb;
        }
        jr->rg_meta = b;
    }
    jr->k_rows = K_ROWS;
    jr->mshift = MARGIN_FIRST;
    jr->file_id = w->o.file_id;
    /* a new file's: the nonce is drawn when FILE is written (its size is
     * fixed, so the first journal area's place is known now) */
    jr->version = UPQ_J_VERSION;
    jr->has_nonce = 1;
    jr->rg_limit = upq_wj_next_limit(w);
    jr->ckpt_at = upq_wj_next_ckpt(w, 0);
    w->jr = jr;
    /* the first row group's journal area follows "PAR1" and FILE */
    return file_size(w, &jr->first_j);
}

/* ---- the FILE record ------------------------------------------------------------ */

/* FILE stages (upq_wjournal.jst while file_done is 0). */
enum { FS_PROBE = 0, FS_MAGIC, FS_HDR, FS_SETTINGS, FS_SEAL, FS_FMD, FS_TAG, FS_CRC, FS_DONE };

/* Bytes at the file's start hashed into its nonce: an old checkpoint-mode
 * file there has its own nonce among them (first in FILE's settings). */
#define PROBE_MAX 512u

static void file_settings(upq_writer *w, upq_jfile *f)
{
    upq_memset(f, 0, sizeof *f);
    f->isset = (1u << UPQ_JFILE_VERSION) | (1u << UPQ_JFILE_CODEC) | (1u << UPQ_JFILE_FLAGS) |
               (1u << UPQ_JFILE_NCOLS);
    f->version = w->jr->version;
    f->codec = w->o.codec;
    if (w->jr->has_nonce) {
        f->nonce.ptr = w->jr->nonce;
        f->nonce.len = UPQ_J_NONCE;
        UPQ_SET(*f, UPQ_JFILE_NONCE);
    }
    f->ncols = (int32_t)w->ncols;
    f->flags = (UPQ_W_V2(w) ? UPQ_JF_V2 : 0) | (UPQ_WITH_CRC && !w->o.no_crc ? UPQ_JF_CRC : 0) |
               (UPQ_W_STATS(w) ? UPQ_JF_STATS : 0) | (!UPQ_W_NO_PI(w) ? UPQ_JF_PAGE_INDEX : 0) |
               (w->o.column_order == UPQ_ORDER_IEEE754 ? UPQ_JF_IEEE_ORDER : 0);
    if (UPQ_WITH_STATISTICS || UPQ_WITH_CRYPTO) {
        f->stats_max_binary = (int32_t)w->o.stats_max_binary;
        UPQ_SET(*f, UPQ_JFILE_STATS_MAX_BINARY);
    }
#if UPQ_WITH_CRYPTO
    if (UPQ_W_ENCRYPTING(w)) {
        /* what recovery needs to ask for the keys, in the clear; the
         * FileMetaData after it is sealed */
        const upq_encrypt_opts *e = w->o.encrypt;
        const upq_wcrypto *wc = w->wc;
        uint32_t i;
        f->algorithm = wc->fc.algorithm;
        f->aad_file_unique = wc->fc.aad_file_unique;
        f->isset |= (1u << UPQ_JFILE_ALGORITHM) | (1u << UPQ_JFILE_AAD_FILE_UNIQUE);
        if (e->plaintext_footer)
            f->flags |= UPQ_JF_PLAIN_FOOTER;
        if (wc->fc.aad_prefix.len) {
            if (e->no_store_aad_prefix) {
                f->flags |= UPQ_JF_SUPPLY_AAD;
            } else {
                f->aad_prefix = wc->fc.aad_prefix;
                UPQ_SET(*f, UPQ_JFILE_AAD_PREFIX);
            }
        }
        if (e->footer_key_metadata_len) {
            f->footer_key_metadata.ptr = e->footer_key_metadata;
            f->footer_key_metadata.len = e->footer_key_metadata_len;
            UPQ_SET(*f, UPQ_JFILE_FOOTER_KEY_METADATA);
        }
        for (i = 0; i < e->ncolumns; i++) {
            upq_jkey *k = &w->jr->keys[i];
            size_t ml = 0;
            k->isset = (1u << UPQ_JKEY_COLUMN) | (1u << UPQ_JKEY_CHECK);
            k->column = (int32_t)e->columns[i].column;
            k->check.ptr = w->jr->kcheck + (size_t)i * UPQ_JKEY_CHECK_LEN;
            k->check.len = UPQ_JKEY_CHECK_LEN;
            if (!w->jr->kcheck_done)
                (void)upq_wc_seal(w, &w->wc->cols[i], UPQ_MODULE_JOURNAL, -1, -1,
                                  w->jr->kcheck + (size_t)i * UPQ_JKEY_CHECK_LEN, 0, (const uint8_t *)0, &ml);
            if (e->columns[i].key_metadata_len) {
                k->key_metadata.ptr = e->columns[i].key_metadata;
                k->key_metadata.len = e->columns[i].key_metadata_len;
                UPQ_SET(*k, UPQ_JKEY_KEY_METADATA);
            }
        }
        w->jr->kcheck_done = 1;
        if (e->ncolumns) {
            f->keys.v = w->jr->keys;
            f->keys.n = e->ncolumns;
            UPQ_SET(*f, UPQ_JFILE_KEYS);
        }
    }
#endif
}

/* Counts the template FileMetaData the FILE record carries. */
static upq_status fmd_count(upq_writer *w, uint64_t *len)
{
    uint64_t n = 0;
    upq_status st;
    upq_w_footer_begin(w, 1);
    for (;;) {
        st = upq_w_footer_piece(w);
        if (st != UPQ_OK)
            break;
        n += w->src_len;
    }
    w->src_len = w->src_pos = 0;
    if (st != UPQ_DONE)
        return st < 0 ? st : upq_w_fail(w, UPQ_ERR_STATE, -1, "schema cannot be encoded");
    *len = n;
    return UPQ_OK;
}

/* Where FILE ends (it starts after "PAR1"): the first journal area. */
static upq_status file_size(upq_writer *w, uint64_t *end)
{
    upq_wjournal *jr = w->jr;
    uint32_t len = 0;
    uint64_t flen = 0;
    upq_status st;
    file_settings(w, &jr->jf);
    st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_FILE], &jr->jf, &len);
    jr->jf_len = len - UPQ_J_MIN - (UPQ_W_ENCRYPTING(w) ? (uint32_t)UPQ_W_CRYPTO_OVER : 0u);
    if (st == UPQ_OK)
        st = fmd_count(w, &flen);
    if (st != UPQ_OK)
        return st;
    if (flen > UPQ_J_MAX_RECORD - len - UPQ_W_CRYPTO_OVER)
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "schema too large for the journal");
    /* rec_size counted the module's overhead once: the FileMetaData is in it */
    *end = 4u + len + flen;
    jr->next = *end;
    return UPQ_OK;
}

/* splitmix64's finaliser: every bit of x reaches every bit of the result. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 27;
    x *= UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* The file's nonce: what its start overwrites (probe), the caller's entropy,
 * the file id and, encrypted, the file's random aad_file_unique. */
static void draw_nonce(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint64_t n = mix64(upq_load_le64(jr->nonce) ^ mix64(w->o.nonce ^ mix64(jr->file_id)));
#if UPQ_WITH_CRYPTO
    if (UPQ_W_ENCRYPTING(w)) {
        const upq_bytes *u = &w->wc->fc.aad_file_unique;
        uint32_t i;
        for (i = 0; i < u->len; i++)
            n = mix64(n ^ u->ptr[i]);
    }
#endif
    for (;;) {
        upq_store_le64(jr->nonce, n);
        /* a CRC that starts from 0 is one without a nonce */
        jr->nseed = upq_crc32(jr->nonce, UPQ_J_NONCE);
        if (jr->nseed)
            return;
        n++;
    }
}

/*
 * Reads what the medium holds where the file begins, before FILE goes over
 * it, into the nonce's hash: a file made over an old checkpoint-mode file
 * (rewritten without truncation, or on a card whose freed clusters it
 * reuses) finds the old file's nonce there, so its own differs. A file that
 * is empty is first extended (one byte at the end of FILE's place, which
 * FILE then overwrites): a FAT driver shows the clusters' old bytes under
 * the gap, a POSIX file zeros. UPQ_OK (a piece: that byte), UPQ_DONE,
 * UPQ_AGAIN, or an error.
 */
static UPQ_NOINLINE upq_status probe(upq_writer *w)
{
    static const uint8_t zero = 0;
    upq_wjournal *jr = w->jr;
    uint64_t want = jr->first_j - 1u < PROBE_MAX ? jr->first_j - 1u : PROBE_MAX;
    while (jr->probe < want) {
        size_t got = 0, i, n = (size_t)(want - jr->probe);
        upq_status st;
        if (n > sizeof w->win)
            n = sizeof w->win;
        st = w->sink.read_at(w->sink.ctx, jr->probe, w->win, n, &got);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK || got > n)
            return upq_w_fail(w, UPQ_ERR_IO, -1, "reading the file back failed");
        if (got == 0) {
            if (jr->probe_ext)
                break; /* nothing more to see */
            jr->probe_ext = 1;
            upq_wj_src(w, &zero, 1, jr->first_j - 1u);
            return UPQ_OK;
        }
        {
            uint64_t h = upq_load_le64(jr->nonce); /* FNV-1a, kept where the nonce goes */
            for (i = 0; i < got; i++)
                h = (h ^ w->win[i]) * UINT64_C(0x100000001B3);
            upq_store_le64(jr->nonce, h);
        }
        jr->probe = (uint16_t)(jr->probe + got);
    }
    draw_nonce(w);
    return UPQ_DONE;
}

/* The next piece of "PAR1" and the FILE record (UPQ_OK), UPQ_DONE after. */
static upq_status file_piece(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_wrec *r = &jr->rec;
    upq_wmodels *m = UPQ_W_MODELS(w);
    upq_jhdr h;
    size_t got = 0;
    upq_status st;
    switch (jr->fst) {
    case FS_PROBE:
        st = probe(w);
        if (st != UPQ_DONE)
            return st;
        jr->fst = FS_MAGIC;
        /* fall through */
    case FS_MAGIC:
        w->magic_done = 1;
        /* an encrypted footer's file starts with "PARE" as it ends */
        upq_wj_src(w, (const uint8_t *)(UPQ_W_ENCRYPTING(w) && !w->o.encrypt->plaintext_footer ? "PARE" : "PAR1"),
                   4, 0);
        jr->fst = FS_HDR;
        return UPQ_OK;
    case FS_HDR:
        file_settings(w, &jr->jf);
        r->len = (uint32_t)(jr->first_j - 4u);
        h.len = r->len;
        h.type = UPQ_J_FILE;
        h.flags = UPQ_W_ENCRYPTING(w) ? UPQ_J_SEALED : 0u;
        h.session = w->session;
        h.seq = jr->seq++;
        h.file_id = jr->file_id;
        upq_j_hdr_put(r->hdr, &h);
        r->crc = upq_crc32(r->hdr, UPQ_J_HDR);
        upq_wj_src(w, r->hdr, UPQ_J_HDR, 4);
        upq_tenc_init(&m->tenc, &upq_journal_descs[UPQ_JDESC_FILE], &jr->jf);
        jr->fst = FS_SETTINGS;
        return UPQ_OK;
    case FS_SETTINGS:
        st = upq_tenc_run(&m->tenc, w->win, sizeof w->win, &got);
        if (st != UPQ_OK && st != UPQ_AGAIN)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "journal record cannot be encoded");
        r->crc = upq_crc32_update(r->crc, w->win, got);
        upq_wj_src(w, w->win, got, w->file_pos);
        if (st == UPQ_OK) {
            jr->fst = UPQ_W_ENCRYPTING(w) ? FS_SEAL : FS_FMD;
            upq_w_footer_begin(w, 1);
        }
        return UPQ_OK;
#if UPQ_WITH_CRYPTO
    case FS_SEAL:
        /* the FileMetaData as a module under the footer key */
        st = upq_wc_stream_begin(w, &w->wc->footer, UPQ_MODULE_JOURNAL, -1,
                                 (uint32_t)(jr->first_j - 4u - UPQ_J_MIN - UPQ_W_CRYPTO_OVER -
                                            jr->jf_len),
                                 UPQ_WS_ENCRYPT);
        if (st != UPQ_OK)
            return st;
        r->crc = upq_crc32_update(r->crc, w->wc->head, 16);
        upq_wj_src(w, w->wc->head, 16, w->file_pos);
        jr->fst = FS_FMD;
        return UPQ_OK;
    case FS_TAG:
        upq_wc_stream_tag(w, r->hdr);
        r->crc = upq_crc32_update(r->crc, r->hdr, 16);
        upq_wj_src(w, r->hdr, 16, w->file_pos);
        jr->fst = FS_CRC;
        return UPQ_OK;
#endif
    case FS_FMD: {
        uint64_t at = w->file_pos;
        st = upq_w_footer_piece(w);
        if (st == UPQ_OK) {
            if (UPQ_W_ENCRYPTING(w))
                upq_wc_stream_piece(w, (uint8_t *)(uintptr_t)w->src, w->src_len);
            r->crc = upq_crc32_update(r->crc, w->src, w->src_len);
            w->dst = at;
            return UPQ_OK;
        }
        if (st != UPQ_DONE)
            return st;
        jr->fst = UPQ_W_ENCRYPTING(w) ? FS_TAG : FS_CRC;
        w->src_len = w->src_pos = 0;
        return UPQ_OK;
    }
    case FS_CRC:
        upq_store_le32(r->hdr, r->crc);
        upq_wj_src(w, r->hdr, UPQ_J_CRC, w->file_pos);
        jr->fst = FS_DONE;
        return UPQ_OK;
    default:
        /* synced before anything else: on a medium that held another
         * checkpoint-mode file, a cut now finds this file's FILE record,
         * not the old file's */
        st = upq_w_sync(w);
        if (st != UPQ_OK)
            return st;
        jr->file_done = 1;
        jr->fst = 0;
        w->gtmpl = 0;
        return UPQ_DONE;
    }
}

upq_status upq_wj_file_crc(upq_writer *w, uint32_t *settings, uint32_t *fmd)
{
    upq_wjournal *jr = w->jr;
    upq_wmodels *m = UPQ_W_MODELS(w);
    uint32_t c = 0;
    size_t got = 0;
    upq_status st;
    file_settings(w, &jr->jf);
    upq_tenc_init(&m->tenc, &upq_journal_descs[UPQ_JDESC_FILE], &jr->jf);
    do {
        st = upq_tenc_run(&m->tenc, w->win, sizeof w->win, &got);
        if (st != UPQ_OK && st != UPQ_AGAIN)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "journal record cannot be encoded");
        c = upq_crc32_update(c, w->win, got);
    } while (st == UPQ_AGAIN);
    *settings = c;
    c = 0;
    upq_w_footer_begin(w, 1);
    for (;;) {
        st = upq_w_footer_piece(w);
        if (st != UPQ_OK)
            break;
        c = upq_crc32_update(c, w->src, w->src_len);
    }
    w->src_len = w->src_pos = 0;
    w->gtmpl = 0;
    if (st != UPQ_DONE)
        return st < 0 ? st : upq_w_fail(w, UPQ_ERR_STATE, -1, "schema cannot be encoded");
    *fmd = c;
    return UPQ_OK;
}

/* ---- planning a row group ---------------------------------------------------------- */

/* The largest page of c staged from at most lcap levels and vcap value
 * bytes, header and encryption included (c->worst: a full staging). */
static uint64_t page_worst(const upq_writer *w, const upq_wcol *c, uint32_t lcap, uint32_t vcap)
{
    size_t s = upq_w_stored_bound_n(c, w->o.codec, UPQ_W_V2(w), lcap, vcap);
    uint64_t b;
    if (s == SIZE_MAX)
        return c->worst;
    b = (uint64_t)s + w->hbuf_cap + (UPQ_W_ENCRYPTING(w) ? UPQ_W_CRYPTO_OVER : 0u);
    return b < c->worst ? b : c->worst;
}

/* The largest page c can write in a row group of `rows` rows: a flat
 * column's page has no more levels than rows and, of fixed width, no
 * more value bytes than rows values. Small row groups reserve that, not
 * a full staging's page. */
static uint64_t rg_worst(const upq_writer *w, const upq_wcol *c, uint64_t rows)
{
    uint32_t vcap = c->vcap;
    if (c->max_rep || rows >= c->lcap)
        return c->worst;
    if (c->vsize && rows * c->vsize < vcap)
        vcap = (uint32_t)rows * c->vsize;
    return page_worst(w, c, (uint32_t)rows, vcap);
}

/* Bytes per 1024 rows c's committed staging encodes to, headers included:
 * the first row group's estimate. A page holds as many rows as the staging
 * can, which the staged rows' levels and bytes tell; a checkpoint cuts one
 * page short per interval, which costs a header more. The staged rows are
 * often fewer than a page's (another column's staging filled first), so
 * what a page costs whatever its rows is counted once a page, and the rest
 * of the estimate errs high if at all. */
static upq_status dry_rate(upq_writer *w, upq_wcol *c, uint64_t *rate, uint32_t *ppk)
{
    upq_wmodels *m = UPQ_W_MODELS(w);
    upq_minmax mm;
    upq_wpage pg;
    uint64_t rows = c->crows - c->frows, rpp;
    uint64_t div;
    uint32_t fixed;
    upq_status st;
    *rate = 0;
    if (c->clev == 0 || rows == 0)
        return UPQ_OK;
    mm.min = m->pst.min;
    mm.max = m->pst.max;
    mm.cap = c->scap;
    st = upq_w_encode_page(w, c, (int64_t)rows, UPQ_W_COMPRESSING(w) ? c->chunk : (uint8_t *)0,
                           c->chunk_cap, &mm, &pg, 1);
    if (st != UPQ_OK)
        return st;
    rpp = upq_div64(rows * c->lcap, c->clev);
    if (c->cbytes && upq_div64(rows * c->vcap, c->cbytes) < rpp)
        rpp = upq_div64(rows * c->vcap, c->cbytes);
    if (rpp < rows)
        rpp = rows;
    /* Shared out over the rpp rows of a page, not over the few staged now:
     * a v1 page's level streams each start with their length (4 bytes),
     * and DELTA_BINARY_PACKED pads its last miniblock to 32 deltas (the
     * bytes the staged rows' page holds, a page of up to that many rows
     * holds too: 37 rows' page is a 60-row page's, not 37/60 of it). */
    fixed = UPQ_W_V2(w) || UPQ_W_COMPRESSING(w) ? 0u : 4u * (uint32_t)((c->max_def != 0) + (c->max_rep != 0));
    div = rows;
    if (c->enc == UPQ_ENC_DELTA_BINARY_PACKED && !c->dict_on && c->cval == rows)
        div = umin(((c->cval + 30u) & ~31u) + 1u, rpp);
    *rate = upq_div64((uint64_t)(pg.stored - fixed) * 1024u, div) + upq_div64((uint64_t)(pg.hl + fixed) * 1024u, rpp) + 1u;
    *ppk = (uint32_t)upq_div64(1024u + rpp - 1u, rpp);
    if (w->o.checkpoint_rows) {
        *rate += upq_div64((uint64_t)pg.hl * 1024u, w->o.checkpoint_rows);
        *ppk += (uint32_t)upq_div64(1024u + w->o.checkpoint_rows - 1u, w->o.checkpoint_rows);
    }
    return UPQ_OK;
}

static upq_status record_bound(upq_writer *w, uint64_t rows, uint32_t *bound);

/* A data page's entries in its chunk's ColumnIndex (two bounds at their
 * longest) and OffsetIndex (every integer at its widest). */
static uint64_t index_entry(const upq_wcol *c)
{
    return 2u * (uint64_t)c->scap + 42u;
}

/* Bytes the row group's RG_SUMs take at most (0: it writes none). */
static uint32_t sum_bound(const upq_writer *w)
{
    uint32_t i, n = 0;
    if (w->jr->version < 3 || UPQ_W_ENCRYPTING(w))
        return 0;
    for (i = 0; i < w->ncols; i++)
        n += upq_wj_sum_bound(w, i);
    return n;
}

/* Bytes closing the file takes after its last row group's blobs, when it
 * has nrg row groups whose pages take `entries` bytes of index entries:
 * the CLOSE record's room, the entries, every row group's RowGroup and
 * index framing, the footer's own part (no more than the FILE record that
 * holds its template) and tail. */
static uint64_t close_bound(const upq_writer *w, uint64_t nrg, uint64_t entries)
{
    const upq_wjournal *jr = w->jr;
    return UPQ_WJ_CLOSE_ROOM(w) + entries + nrg * jr->rg_meta + jr->first_j + 64u +
           (UPQ_W_ENCRYPTING(w) ? 256u : 0u);
}

/*
 * Rows a new row group can take within max_file_bytes: what is left after
 * the journal so far and closing (close_bound, with this row group's
 * pages), less the row group's fixed costs (its journal area's records,
 * dictionary slots and a worst page per column), at each column's rate
 * (bytes per 1024 rows, with the planning margin, and its pages' index
 * entries) and the checkpoints' records.
 */
static upq_status rows_fitting(upq_writer *w, uint64_t *rows)
{
    upq_wjournal *jr = w->jr;
    uint64_t fixed, per = 0, left, used;
    uint32_t i, rec_len = 0;
    upq_status st = record_bound(w, UINT32_MAX, &rec_len);
    if (st != UPQ_OK)
        return st;
    fixed = 6u * (uint64_t)rec_len + UPQ_WJ_CLOSE_ROOM(w) + sum_bound(w);
    for (i = 0; i < w->ncols; i++) {
        const upq_wjcol *j = &jr->cols[i];
        const upq_wcol *c = &w->cols[i];
        per += j->rate + (j->rate >> jr->mshift) + (uint64_t)j->ppk * index_entry(c);
        /* the slot, room for a worst page, a last page cut short */
        fixed += (uint64_t)upq_wj_dict_slot(w, c) + c->worst + index_entry(c);
    }
    if (w->o.checkpoint_rows)
        per += upq_div64((uint64_t)rec_len * 1024u + w->o.checkpoint_rows - 1u, w->o.checkpoint_rows);
    used = jr->next + close_bound(w, (uint64_t)w->num_rg + 1u, jr->entries) + fixed;
    left = w->o.max_file_bytes > used ? w->o.max_file_bytes - used : 0u;
    if (per) {
        uint64_t q = upq_div64(left, per);
        *rows = q * 1024u + upq_div64((left - q * per) * 1024u, per);
    } else {
        *rows = UINT64_MAX;
    }
    return UPQ_OK;
}

/* The largest CKPT or RG_END this row group can write, by encoding one
 * with every field at its widest. */
static upq_status record_bound(upq_writer *w, uint64_t rows, uint32_t *bound)
{
    upq_wjournal *jr = w->jr;
    uint32_t i, len = 0;
    upq_status st;
    upq_memset(&jr->ck, 0, sizeof jr->ck);
    jr->ck.isset = (1u << UPQ_JCKPT_RG) | (1u << UPQ_JCKPT_ROWS) | (1u << UPQ_JCKPT_COLS) |
                   (1u << UPQ_JCKPT_BLOBS) | (1u << UPQ_JCKPT_NEXT);
    jr->ck.rg = INT32_MAX;
    jr->ck.rows = (int64_t)rows;
    jr->ck.blobs = jr->ck.next = INT64_MAX;
    jr->ck.cols.v = jr->jc;
    jr->ck.cols.n = w->ncols;
    for (i = 0; i < w->ncols; i++) {
        const upq_wcol *c = &w->cols[i];
        upq_jcol *j = &jr->jc[i];
        upq_memset(j, 0, sizeof *j);
        upq_wj_col_counts(j, c, (int64_t)jr->cols[i].cap, INT32_MAX, (int64_t)jr->cols[i].cap);
        j->crc = INT32_MIN;
        UPQ_SET(*j, UPQ_JCOL_CRC);
        if (c->use_dict) {
            j->dict.isset = 0xEu;
            j->dict.off = INT64_MAX;
            j->dict.len = j->dict.crc = INT32_MIN;
            j->dict_n = j->dict_len = INT32_MAX;
            j->isset |= (1u << UPQ_JCOL_DICT) | (1u << UPQ_JCOL_DICT_N) | (1u << UPQ_JCOL_DICT_LEN);
        }
        if (c->max_rep) {
            /* the widest rows a page can have */
            j->page_rows.v = jr->cols[i].prow;
            j->page_rows.n = K_ROWS + 1u;
            UPQ_SET(*j, UPQ_JCOL_PAGE_ROWS);
        }
        if (UPQ_W_BLOOM(c)) {
            j->bloom.isset = 0xEu;
            j->bloom.off = INT64_MAX;
            j->bloom.len = j->bloom.crc = INT32_MIN;
            j->bloom_hdr = INT32_MAX;
            j->isset |= (1u << UPQ_JCOL_BLOOM) | (1u << UPQ_JCOL_BLOOM_HDR);
        }
    }
    /* histograms and page rows at their widest: fill them for the count */
    for (i = 0; i < w->ncols; i++) {
        upq_jcol *j = &jr->jc[i];
        uint32_t k;
        for (k = 0; k < j->def_hist.n; k++)
            j->def_hist.v[k] = (int64_t)rows;
        for (k = 0; k < j->rep_hist.n; k++)
            j->rep_hist.v[k] = (int64_t)rows;
        for (k = 0; k < j->page_rows.n; k++)
            j->page_rows.v[k] = INT32_MAX;
    }
    st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_CKPT], &jr->ck, &len);
    /* back to the row group's real counts (all zero: it has not started) */
    for (i = 0; i < w->ncols; i++) {
        upq_jcol *j = &jr->jc[i];
        uint32_t k;
        for (k = 0; k < j->def_hist.n; k++)
            j->def_hist.v[k] = 0;
        for (k = 0; k < j->rep_hist.n; k++)
            j->rep_hist.v[k] = 0;
        upq_memset(j, 0, sizeof *j);
    }
    *bound = len;
    return st;
}

/*
 * Plans the row group whose first page is ready: the rows it takes, each
 * column's region, the journal area; queues RG_START. The estimates come
 * from the last row group, or from what the staged rows encode to.
 */
static upq_status plan(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint64_t rows = umax(jr->rg_limit, w->rs), pos, total = 0, rs_len, nrec, pages = 0;
    uint32_t i, rec_len = 0, start_len = 0;
    int final;
    upq_status st;

    if (rows == UINT64_MAX)
        rows = DEFAULT_RG_PLAN;
    for (i = 0; i < w->ncols; i++) {
        upq_wjcol *j = &jr->cols[i];
        if (!j->rate) {
            st = dry_rate(w, &w->cols[i], &j->rate, &j->ppk);
            if (st != UPQ_OK)
                return st;
        }
        total += j->rate;
    }
    if (w->o.row_group_bytes && total) {
        uint64_t r = upq_div64(w->o.row_group_bytes, total) * 1024u;
        if (r < rows)
            rows = umax(r, umax(w->rs, 1u));
    }
    if (w->o.max_file_bytes) {
        uint64_t r = 0;
        st = rows_fitting(w, &r);
        if (st != UPQ_OK)
            return st;
        if (r < rows)
            rows = umax(r, umax(w->rs, 1u)); /* upq_writer_file_full() said it fits */
    }
    /* the row group ends with the rows staged: every column writes one
     * page of what it staged, and its dictionary has no more entries than
     * now and the staged rows beyond the row group's (at close, and a row
     * dropped there, one value more): regions of just that size */
    final = w->rg_due || w->closing;
    if (final)
        rows = w->rs;
    jr->rg_limit = rows;
    /* the chunks' totals are kept as the pages are written, for RG_SUM (not
     * in an encrypted file: its RowGroups are made from the page headers) */
    jr->sum_ok = (uint8_t)(jr->version >= 3 && !UPQ_W_ENCRYPTING(w));
    for (i = 0; i < w->ncols; i++) {
        w->cols[i].ci_ok = (uint8_t)(!UPQ_W_NO_PI(w) && w->cols[i].order != UPQ_SO_NONE);
        /* the ColumnIndex's min and max lists' bytes (RG_SUM) */
        UPQ_WC_MINS(&w->cols[i]) = UPQ_WC_MAXS(&w->cols[i]) = 0;
    }
    /* regions */
    for (i = 0; i < w->ncols; i++) {
        upq_wcol *c = &w->cols[i];
        upq_wjcol *j = &jr->cols[i];
        uint64_t est = rows > upq_div64(UINT64_MAX / 2048u, j->rate + 1u) ? UINT64_MAX / 4u
                                                                   : (j->rate * rows + 1023u) / 1024u;
        est += est >> jr->mshift;
        if (final) {
            size_t more = (size_t)(c->vbytes - c->cbytes) +
                          (c->vsize ? c->vsize : w->closing ? c->vcap : 0u);
            j->slot = upq_wj_dict_slot_n(w, c, (size_t)c->dict_bytes + more);
            j->cap = (uint64_t)j->slot + page_worst(w, c, c->clev, c->cbytes);
        } else {
            j->slot = upq_wj_dict_slot(w, c);
            /* row by row, a fixed-width column's dictionary grows by no more
             * than a value per row still to come (and the row being set) */
            if (w->mode == UPQ_WM_ROWS && c->vsize && rows - w->rs < upq_div64(c->dict_cap, c->vsize))
                j->slot = upq_wj_dict_slot_n(w, c, (size_t)c->dict_bytes + (c->vbytes - c->cbytes) +
                                                (size_t)(rows - w->rs + 1u) * c->vsize);
            j->cap = (uint64_t)j->slot + rg_worst(w, c, rows) + est;
        }
        j->fill = 0;
        j->crc = 0;
        j->nprow = 0;
        j->dict_dur = 0;
        if (c->max_rep && c->worst)
            pages += upq_div64(j->cap, w->o.page_size / 4u + 1u) + 1u;
    }
    /* the journal area: RG_START, a checkpoint per interval (and the ROWS
     * records of repeated columns), and room for the records that end the
     * row group and the file */
    st = record_bound(w, rows, &rec_len);
    if (st != UPQ_OK)
        return st;
    nrec = final ? 0u : (w->o.checkpoint_rows ? upq_div64(rows, w->o.checkpoint_rows) : 0u) + pages / K_ROWS + 2u;
    jr->rec_bound = rec_len;
    jr->reserve = 2u * rec_len + UPQ_WJ_CLOSE_ROOM(w) + sum_bound(w);
    /* RG_START itself */
    upq_memset(&jr->rs, 0, sizeof jr->rs);
    jr->rs.isset = (1u << UPQ_JRGSTART_RG) | (1u << UPQ_JRGSTART_JCAP) | (1u << UPQ_JRGSTART_ROWS) |
                   (1u << UPQ_JRGSTART_REGIONS);
    jr->rs.rg = (int32_t)w->num_rg;
    jr->rs.rows = (int64_t)rows;
    jr->rs.regions.v = jr->reg;
    jr->rs.regions.n = w->ncols;
    jr->jstart = jr->next;
    /* widest offsets first, for the count */
    jr->rs.jcap = INT64_MAX;
    for (i = 0; i < w->ncols; i++) {
        jr->reg[i].isset = (1u << UPQ_JREGION_OFF) | (1u << UPQ_JREGION_CAP);
        jr->reg[i].off = INT64_MAX;
        jr->reg[i].cap = (int64_t)jr->cols[i].cap;
        if (jr->cols[i].slot) {
            jr->reg[i].slot = (int32_t)jr->cols[i].slot;
            UPQ_SET(jr->reg[i], UPQ_JREGION_SLOT);
        }
    }
    st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_RG_START], &jr->rs, &start_len);
    if (st != UPQ_OK)
        return st;
    rs_len = start_len;
    jr->jcap = rs_len + nrec * rec_len + jr->reserve;
    jr->rs.jcap = (int64_t)jr->jcap;
    pos = jr->jstart + jr->jcap;
    for (i = 0; i < w->ncols; i++) {
        jr->cols[i].off = pos;
        jr->reg[i].off = (int64_t)pos;
        pos += jr->cols[i].cap;
    }
    jr->regions_end = jr->blob = pos;
    jr->jpos = jr->jstart;
    jr->open = 1;
    jr->rgstart_due = 1;
    return UPQ_OK;
}

/* ---- pages ------------------------------------------------------------------------ */

/* The page just encoded (its header in the models) joins c's totals, as
 * the finisher would take it from its header at `off` (RG_SUM). */
static UPQ_NOINLINE void tally(upq_writer *w, upq_wcol *c, const upq_wpage *pg, uint64_t off, int64_t rows)
{
    upq_fpage p;
    uint32_t ci = (uint32_t)c->ci_len, oi = (uint32_t)c->oi_len;
    uint32_t mins = (uint32_t)UPQ_WC_MINS(c), maxs = (uint32_t)UPQ_WC_MAXS(c);
    if (upq_wj_page_facts(&UPQ_W_MODELS(w)->ph, &p) != UPQ_OK) {
        w->jr->sum_ok = 0;
        return;
    }
    p.off = off;
    p.hl = (uint32_t)pg->hl;
    p.total = (uint32_t)(pg->hl + pg->stored);
    p.mm.cap = c->scap;
    if (c->max_rep && p.type == UPQ_PAGE_DATA)
        p.rows = rows; /* the records' page-rows lists say it */
    if (upq_wj_ci_breaks(&p))
        c->ci_ok = 0;
    upq_wj_tally(c, &p, c->frows, &ci, &oi);
    upq_wj_list_lens(&p, &mins, &maxs);
    c->ci_len = (int32_t)ci;
    c->oi_len = (int32_t)oi;
    UPQ_WC_MINS(c) = (int64_t)mins;
    UPQ_WC_MAXS(c) = (int64_t)maxs;
}

/* The dictionary page just encoded (hl header bytes, len in all) joins c's
 * totals as the finisher would take it. */
static void dict_tally(upq_writer *w, upq_wcol *c, size_t hl, size_t len)
{
    c->unc_bytes += (int64_t)hl + UPQ_W_MODELS(w)->ph.uncompressed_page_size;
    c->comp_bytes += (int64_t)len;
    c->enc_mask |= 1u << (UPQ_W_V2(w) ? UPQ_ENC_PLAIN : UPQ_ENC_PLAIN_DICTIONARY);
}

/* The RG_SUMs of the row group's columns, one a call, before RG_END, when
 * its totals are whole and each fits with RG_END after it: UPQ_OK (a
 * record started), UPQ_DONE (no more), or an error. Counts in jr->jcol. */
static UPQ_NOINLINE upq_status sum_record(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint32_t i, len = 0;
    const upq_jtot *t;
    upq_status st;
    if (!jr->sum_ok || jr->jcol >= w->ncols) {
        jr->sum_ok = 0;
        jr->jcol = 0;
        return UPQ_DONE;
    }
    if (jr->jcol == 0)
        for (i = 0; i < w->ncols; i++) {
            upq_wcol *c = &w->cols[i];
            upq_wj_index_lens(w, c, c->npages, c->ci_ok, (uint32_t)c->ci_len, (uint32_t)c->oi_len, 0);
        }
    t = upq_wj_tot_fill(w, jr->jcol);
    st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_TOT], t, &len);
    if (st != UPQ_OK)
        return st;
    if (jr->jpos + len + jr->rec_bound > jr->jstart + jr->jcap) {
        jr->sum_ok = 0; /* the footer reads this row group's page headers */
        jr->jcol = 0;
        return UPQ_DONE;
    }
    upq_wj_rec_begin(w, UPQ_J_RG_SUM, &upq_journal_descs[UPQ_JDESC_TOT], t, jr->jpos);
    jr->jpos += len;
    jr->jcol++;
    return UPQ_OK;
}

/* Encodes c's committed staging as a page for its region (planning the row
 * group first when this is its first page) and books it. The page's pieces
 * are left in jr->pbody / phl / pstored / ppos. */
static upq_status encode(upq_writer *w, upq_wcol *c)
{
    upq_wjournal *jr = w->jr;
    upq_wmodels *m = UPQ_W_MODELS(w);
    uint32_t i = (uint32_t)(c - w->cols), n = c->clev, nv = c->cval, vb = c->cbytes;
    upq_wjcol *j = &jr->cols[i];
    int64_t rows = (int64_t)(c->crows - c->frows);
    upq_minmax mm;
    upq_wpage pg;
    size_t size;
    upq_status st;

    if (!jr->open) {
        st = plan(w);
        if (st != UPQ_OK)
            return st;
    }
    mm.min = m->pst.min;
    mm.max = m->pst.max;
    mm.cap = c->scap;
    /* an encrypted page is sealed in place, its length and nonce in the 16
     * bytes before it */
    if (UPQ_W_KEY(c))
        st = upq_w_encode_page(w, c, rows, c->chunk + 16, c->chunk_cap - 16u, &mm, &pg, 0);
    else
        st = upq_w_encode_page(w, c, rows, UPQ_W_COMPRESSING(w) ? c->chunk : (uint8_t *)0,
                               c->chunk_cap, &mm, &pg, 0);
    if (st != UPQ_OK)
        return st;
    size = pg.hl + pg.stored;
    if (size > j->cap - j->slot - j->fill)
        return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)i, "region overrun");
    if (jr->sum_ok)
        tally(w, c, &pg, j->off + j->slot + j->fill, rows);
    jr->pc = c;
    jr->pbody = pg.out;
    jr->phl = pg.hl;
    jr->pstored = pg.stored;
    jr->ppos = j->off + j->slot + j->fill;
    j->fill += size;
    /* the records bind what they cover: the header as it goes to the region,
     * and the body by its CRC (the page's own, when it has one) */
    j->crc = upq_wj_region_crc(j->crc, w->hbuf, pg.hl, UPQ_ISSET(m->ph, UPQ_PAGE_HEADER_CRC) ? (uint32_t)m->ph.crc
                                                                                            : upq_crc32(pg.out, pg.stored));
    if (c->use_dict && !c->dict_on) {
        /* fallen back from its dictionary: the rest of the row group (and
         * likely the next) costs what these pages do */
        j->pfill += size;
        j->prows += (uint64_t)rows;
    }
    upq_w_page_tally(c, n, nv, vb);
    if (c->dict_on)
        c->dict_pages++;
    if (c->max_rep) {
        j->prow[j->nprow++] = (int32_t)rows;
        if (j->nprow >= K_ROWS)
            jr->soft_due = 1;
    }
    c->npages++;
    jr->entries += index_entry(c);
    c->frows = c->crows;
    upq_w_drop_prefix(c, UPQ_W_DX(w, c), n, nv, vb);
    /* the region keeps room for the row group's last page of c */
    if (j->cap - j->slot - j->fill < rg_worst(w, c, jr->rg_limit)) {
        w->rg_due = 1;
        if (w->rs < jr->rg_limit)
            jr->region_full = 1; /* before its rows: the next margins are wider */
    }
    return UPQ_OK;
}

upq_status upq_wj_page(upq_writer *w, upq_wcol *c)
{
    upq_status st = encode(w, c);
    if (st != UPQ_OK)
        return st;
    upq_wj_start(w, UPQ_WJ_PAGE);
    w->jr->jst = 1; /* encoded already */
    return UPQ_OK;
}

void upq_wj_start(upq_writer *w, uint8_t job)
{
    upq_wjournal *jr = w->jr;
    uint32_t i;
    if (job == UPQ_WJ_CKPT || job == UPQ_WJ_RGEND)
        for (i = 0; i < w->ncols; i++)
            jr->jc[i].isset = 0; /* what the job's record says is set as it goes */
    jr->job = job;
    jr->jst = 0;
    jr->jcol = 0;
    w->ostage = UPQ_OS_JOURNAL;
    if (job == UPQ_WJ_FINISH) {
        upq_wf_init(w, jr->fin, w->ncols, jr->nrep, jr->nlev);
        upq_wf_start(w);
    }
}

void upq_wj_advanced(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    if (w->rs && w->rows_done + w->rs >= jr->ckpt_at)
        jr->ckpt_due = 1;
}

/* ---- records of the row group ----------------------------------------------------- */

/* The CKPT / RG_END / ROWS model from the columns' state. */
static void ckpt_model(upq_writer *w, uint8_t type)
{
    upq_wjournal *jr = w->jr;
    uint32_t i;
    upq_memset(&jr->ck, 0, sizeof jr->ck);
    jr->ck.isset = (1u << UPQ_JCKPT_RG) | (1u << UPQ_JCKPT_ROWS) | (1u << UPQ_JCKPT_COLS);
    jr->ck.rg = (int32_t)w->num_rg;
    jr->ck.rows = (int64_t)w->rs;
    jr->ck.cols.v = jr->jc;
    jr->ck.cols.n = w->ncols;
    if (jr->blob != jr->regions_end) {
        jr->ck.blobs = (int64_t)jr->blob;
        UPQ_SET(jr->ck, UPQ_JCKPT_BLOBS);
    }
    if (type == UPQ_J_RG_END) {
        jr->ck.next = (int64_t)jr->blob;
        UPQ_SET(jr->ck, UPQ_JCKPT_NEXT);
    }
    for (i = 0; i < w->ncols; i++) {
        const upq_wcol *c = &w->cols[i];
        upq_wjcol *wj = &jr->cols[i];
        upq_jcol *j = &jr->jc[i];
        uint32_t keep = j->isset & ((1u << UPQ_JCOL_DICT) | (1u << UPQ_JCOL_BLOOM) |
                                    (1u << UPQ_JCOL_BLOOM_HDR) | (1u << UPQ_JCOL_DICT_LEN));
        j->isset = keep;
        if (c->max_rep && wj->nprow) {
            j->page_rows.v = wj->prow;
            j->page_rows.n = wj->nprow;
            UPQ_SET(*j, UPQ_JCOL_PAGE_ROWS);
        }
        if (type == UPQ_J_ROWS)
            continue;
        upq_wj_col_counts(j, c, (int64_t)wj->fill, (int32_t)c->npages, c->ba_bytes);
        j->crc = (int32_t)wj->crc;
        UPQ_SET(*j, UPQ_JCOL_CRC);
        if (c->use_dict) {
            j->dict_n = (int32_t)c->dict_n;
            UPQ_SET(*j, UPQ_JCOL_DICT_N);
        }
    }
}

/* After a record was written: what it recorded is not pending any more. */
static void ckpt_booked(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint32_t i;
    for (i = 0; i < w->ncols; i++) {
        jr->cols[i].nprow = 0;
        jr->jc[i].isset = 0;
    }
    jr->soft_due = 0;
}

/* Starts a record at the journal area's next place, if it fits with the
 * room kept for the records that end the row group (RG_END also uses that
 * room). UPQ_OK, or UPQ_DONE when it does not fit. */
static upq_status journal_record(upq_writer *w, uint8_t type, const upq_tstruct *desc,
                                 const void *obj)
{
    upq_wjournal *jr = w->jr;
    uint32_t len = 0;
    uint64_t end = jr->jstart + jr->jcap;
    upq_status st = upq_wj_rec_size(w, desc, obj, &len);
    if (st != UPQ_OK)
        return st;
    if (jr->jpos + len > end || (type != UPQ_J_RG_END && end - jr->jpos - len < jr->reserve))
        return type == UPQ_J_RG_END ? upq_w_fail(w, UPQ_ERR_STATE, -1, "journal area overrun")
                                    : UPQ_DONE;
    upq_wj_rec_begin(w, type, desc, obj, jr->jpos);
    jr->jpos += len;
    return UPQ_OK;
}

/* The dictionary entries c added since the last record, as a blob. */
static void dict_blob(upq_writer *w, upq_wcol *c, const uint8_t **p, size_t *n)
{
    upq_wjcol *j = &w->jr->cols[c - w->cols];
    uint32_t from = c->type == UPQ_TYPE_BYTE_ARRAY
                        ? (j->dict_dur < c->dict_n ? c->dict_off[j->dict_dur] : c->dict_bytes)
                        : j->dict_dur * c->vsize;
    *p = c->dict + from;
    *n = c->dict_bytes - from;
}

void upq_wj_rg_done(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint32_t i;
    uint64_t rows = w->rs;
    for (i = 0; i < w->ncols; i++) {
        upq_wjcol *j = &jr->cols[i];
        /* bytes per 1024 rows, never 0 (0 means "not measured") */
        j->rate = rows ? upq_div64(j->fill * 1024u + rows - 1u, rows) : j->rate;
        if (j->prows && upq_div64(j->pfill * 1024u + j->prows - 1u, j->prows) > j->rate)
            j->rate = upq_div64(j->pfill * 1024u + j->prows - 1u, j->prows);
        if (!j->rate)
            j->rate = 1;
        j->pfill = j->prows = 0;
        if (rows)
            j->ppk = (uint32_t)umin(upq_div64((uint64_t)w->cols[i].npages * 1024u + rows - 1u, rows), UINT32_MAX);
        j->fill = 0;
        j->crc = 0;
        j->nprow = 0;
        j->dict_dur = 0;
    }
    jr->open = 0;
    jr->next = jr->blob;
    w->rg_rows = rows;
    if (jr->region_full)
        jr->mshift = (uint8_t)(jr->mshift > MARGIN_MIN ? jr->mshift - 1u : MARGIN_MIN);
    else
        jr->mshift = (uint8_t)(jr->mshift < MARGIN_MAX ? jr->mshift + 1u : MARGIN_MAX);
    jr->region_full = 0;
    jr->rg_ended = 1; /* the driver moves the staging on (upq_w_rg_reset) */
}

void upq_writer_set_file_rows(upq_writer *w, uint64_t rows)
{
    if (!UPQ_W_JOURNAL(w))
        return;
    w->o.file_rows = rows;
    if (!w->jr->open && !w->rs)
        w->jr->rg_limit = upq_wj_next_limit(w);
}

int upq_writer_file_full(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    uint64_t rows = 0, need;
    uint32_t i;
    if (!UPQ_W_JOURNAL(w) || !w->o.max_file_bytes || w->failed || jr->open || w->rs || !w->num_rg)
        return 0; /* a row group is open, or the file has none yet: it takes rows */
    for (i = 0; i < w->ncols; i++)
        if (!jr->cols[i].rate)
            return 0;
    if (rows_fitting(w, &rows) != UPQ_OK)
        return 1;
    /* a row group worth starting: a checkpoint interval, and the rows a
     * column stages before its first page (planned then) */
    need = w->o.checkpoint_rows ? w->o.checkpoint_rows : 1u;
    for (i = 0; i < w->ncols; i++)
        if (!w->cols[i].max_rep && w->cols[i].lcap > need)
            need = w->cols[i].lcap;
    return rows < need;
}

/* ---- the job machine -------------------------------------------------------------- */

/* Job stages. PAGE: 1 header, 2 body, 3 ROWS record when due. CKPT and
 * RGEND: pages of every column, then the rest. */
enum {
    JS_PAGES = 0,
    JS_PAGE_HDR,
    JS_PAGE_BODY,
    JS_DICT_BLOBS,
    JS_GAPS,
    JS_DICT_PAGES,
    JS_DICT_BODY,
    JS_BLOOM,
    JS_BLOOM_HEAD,
    JS_BLOOM_BITS,
    JS_BLOOM_TAG,
    JS_RECORD,
    JS_SYNC,
    JS_DONE
};

/* A stage that set no output: the job machine is asked again (for a
 * record it started, or the FILE and RG_START records due first). */
static upq_status no_piece(upq_writer *w)
{
    w->src_len = w->src_pos = 0;
    return UPQ_OK;
}

/* The page in jr->p* as pieces: header, then body. */
static upq_status page_piece(upq_writer *w, int body)
{
    upq_wjournal *jr = w->jr;
    if (!body)
        upq_wj_src(w, w->hbuf, jr->phl, jr->ppos);
    else
        upq_wj_src(w, jr->pbody, jr->pstored, jr->ppos + jr->phl);
    return UPQ_OK;
}

static upq_status job_page(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_status st;
    for (;;) {
        switch (jr->jst) {
        case 1:
            jr->jst = 2;
            return page_piece(w, 0);
        case 2:
            jr->jst = 3;
            return page_piece(w, 1);
        case 3:
            jr->jst = 4;
            if (!jr->soft_due)
                continue;
            ckpt_model(w, UPQ_J_ROWS);
            st = journal_record(w, UPQ_J_ROWS, &upq_journal_descs[UPQ_JDESC_CKPT], &jr->ck);
            if (st == UPQ_DONE) {
                /* no room for it: the row group ends, and RG_END lists them */
                w->rg_due = 1;
                continue;
            }
            if (st != UPQ_OK)
                return st;
            jr->jst = 5;
            return no_piece(w);
        case 5:
            ckpt_booked(w);
            jr->jst = 4;
            continue;
        default:
            return UPQ_DONE;
        }
    }
}

/* Zeros in what the row group leaves unused, synced before RG_END says the
 * row group is complete (an append-only sink writes its gaps as zeros
 * itself). UPQ_DONE when done. */
static upq_status rg_gaps(upq_writer *w)
{
    upq_status st;
    if (w->sink.seal)
        return UPQ_DONE;
    st = upq_wj_gaps_next(w);
    if (st != UPQ_DONE)
        return st; /* a piece, or an error */
    st = upq_w_sync(w); /* the gaps stay done: a sync that said "again" comes here again */
    return st == UPQ_OK ? UPQ_DONE : st;
}

/* JS_RECORD: an RGEND's RG_SUMs, then the CKPT or RG_END, its sync next.
 * UPQ_OK (a record started), UPQ_DONE when the journal area is full (this
 * checkpoint then ends the row group: *end set, the gaps next), or an error. */
static upq_status rg_record(upq_writer *w, int *end)
{
    upq_wjournal *jr = w->jr;
    uint8_t type = *end ? UPQ_J_RG_END : UPQ_J_CKPT;
    upq_status st = *end ? sum_record(w) : UPQ_DONE;
    if (st != UPQ_DONE)
        return st == UPQ_OK ? no_piece(w) : st; /* then the next, and RG_END, here again */
    ckpt_model(w, type);
    st = journal_record(w, type, &upq_journal_descs[UPQ_JDESC_CKPT], &jr->ck);
    if (st == UPQ_DONE) {
        *end = 1;
        jr->job = UPQ_WJ_RGEND;
        jr->jst = JS_GAPS;
        upq_wj_gaps_start(w);
        return UPQ_DONE;
    }
    if (st != UPQ_OK)
        return st;
    jr->jst = JS_SYNC;
    return no_piece(w);
}

/* CKPT and RGEND. */
static upq_status job_rg(upq_writer *w, int end)
{
    upq_wjournal *jr = w->jr;
    upq_wmodels *m = UPQ_W_MODELS(w);
    upq_status st;
    for (;;) {
        upq_wcol *c = jr->jcol < w->ncols ? &w->cols[jr->jcol] : (upq_wcol *)0;
        switch (jr->jst) {
        case JS_PAGES:
            if (!c) {
                jr->jcol = 0;
                jr->jst = end ? JS_GAPS : JS_DICT_BLOBS;
                upq_wj_gaps_start(w);
                continue;
            }
            if (c->clev == 0) {
                jr->jcol++;
                continue;
            }
            st = encode(w, c);
            if (st != UPQ_OK)
                return st;
            jr->jst = JS_PAGE_HDR;
            return no_piece(w); /* RG_START first when the row group was just planned */
        case JS_PAGE_HDR:
            jr->jst = JS_PAGE_BODY;
            return page_piece(w, 0);
        case JS_PAGE_BODY:
            /* the same column again: c->clev is 0 now */
            jr->jst = JS_PAGES;
            return page_piece(w, 1);
        case JS_DICT_BLOBS: {
            const uint8_t *p;
            size_t n;
            upq_jcol *j;
            if (!c) {
                jr->jcol = 0;
                jr->jst = JS_RECORD;
                continue;
            }
            jr->jcol++;
            if (!c->use_dict || c->dict_n == jr->cols[c - w->cols].dict_dur)
                continue;
            dict_blob(w, c, &p, &n);
            if (UPQ_W_KEY(c)) {
                /* the entries are values: a module under the column's key */
                size_t ml = 0;
                if (n > w->pbuf_cap - 16u - UPQ_W_CRYPTO_OVER)
                    return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)(c - w->cols),
                                      "dictionary larger than its buffer");
                upq_memcpy(w->pbuf + 16, p, n);
                st = upq_wc_seal(w, c->key, UPQ_MODULE_JOURNAL_BLOB, (int32_t)(c - w->cols), -1, w->pbuf,
                                 n, (const uint8_t *)0, &ml);
                if (st != UPQ_OK)
                    return st;
                p = w->pbuf;
                n = ml;
            }
            j = &jr->jc[c - w->cols];
            j->dict.isset = (1u << UPQ_JBLOB_OFF) | (1u << UPQ_JBLOB_LEN) | (1u << UPQ_JBLOB_CRC);
            j->dict.off = (int64_t)jr->blob;
            j->dict.len = (int32_t)n;
            j->dict.crc = (int32_t)upq_crc32(p, n);
            UPQ_SET(*j, UPQ_JCOL_DICT);
            jr->cols[c - w->cols].dict_dur = c->dict_n;
            upq_wj_src(w, p, n, jr->blob);
            jr->blob += n;
            return UPQ_OK;
        }
        case JS_GAPS:
            st = rg_gaps(w);
            if (st != UPQ_DONE)
                return st;
            jr->jcol = 0;
            jr->jst = JS_DICT_PAGES;
            continue;
        case JS_DICT_PAGES: {
            upq_wjcol *wj;
            upq_jcol *j;
            size_t hl = 0, len;
            if (!c) {
                jr->jcol = 0;
                jr->jst = JS_BLOOM;
                continue;
            }
            if (!c->dict_pages) {
                jr->jcol++;
                continue;
            }
            wj = &jr->cols[jr->jcol];
            j = &jr->jc[jr->jcol];
            st = upq_w_dict_page(w, c, &hl);
            if (st != UPQ_OK)
                return st;
            len = hl + (size_t)c->dict_stored;
            if (len > wj->slot)
                return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)jr->jcol, "dictionary page overruns its slot");
            /* RG_END's CRC of the region goes on over the page */
            wj->crc = upq_wj_region_crc(wj->crc, w->hbuf, hl,
                                        UPQ_ISSET(UPQ_W_MODELS(w)->ph, UPQ_PAGE_HEADER_CRC)
                                            ? (uint32_t)UPQ_W_MODELS(w)->ph.crc
                                            : upq_crc32(UPQ_W_COMPRESSING(w) || UPQ_W_KEY(c) ? w->pbuf : c->dict,
                                                        (size_t)c->dict_stored));
            j->dict_len = (int32_t)len;
            UPQ_SET(*j, UPQ_JCOL_DICT_LEN);
            dict_tally(w, c, hl, len);
            /* right-aligned: the chunk begins with it */
            jr->ppos = wj->off + wj->slot - len;
            jr->phl = hl;
            upq_wj_src(w, w->hbuf, hl, jr->ppos);
            jr->jst = JS_DICT_BODY;
            return UPQ_OK;
        }
        case JS_DICT_BODY: {
            const uint8_t *body = UPQ_W_COMPRESSING(w) || UPQ_W_KEY(c) ? w->pbuf : c->dict;
            upq_wj_src(w, body, (size_t)c->dict_stored, jr->ppos + jr->phl);
            jr->jcol++;
            jr->jst = JS_DICT_PAGES;
            return UPQ_OK;
        }
        case JS_BLOOM: {
            upq_jcol *j;
            size_t got = 0;
            if (!UPQ_WITH_BLOOM || !c) {
                jr->jcol = 0;
                jr->jst = JS_RECORD;
                continue;
            }
            if (!UPQ_W_BLOOM(c)) {
                jr->jcol++;
                continue;
            }
            j = &jr->jc[jr->jcol];
            j->bloom.isset = (1u << UPQ_JBLOB_OFF) | (1u << UPQ_JBLOB_LEN) | (1u << UPQ_JBLOB_CRC);
            j->bloom.off = (int64_t)jr->blob;
            j->isset |= (1u << UPQ_JCOL_BLOOM) | (1u << UPQ_JCOL_BLOOM_HDR);
            upq_w_build_bf(w, c);
            /* the header: small, encoded whole (sealed in place when the
             * column is encrypted: header and bitset are a module each) */
            st = upq_thrift_encode(&upq_bloom_filter_header_desc, &m->bf, w->pbuf + 16,
                                   w->pbuf_cap - 16u - UPQ_W_CRYPTO_OVER, &got);
            if (st != UPQ_OK)
                return upq_w_fail(w, UPQ_ERR_STATE, (int32_t)jr->jcol, "bloom filter header");
            if (UPQ_W_KEY(c)) {
                size_t ml = 0;
                st = upq_wc_seal(w, c->key, UPQ_MODULE_BLOOM_HEADER, (int32_t)jr->jcol, -1, w->pbuf, got,
                                 (const uint8_t *)0, &ml);
                if (st != UPQ_OK)
                    return st;
                upq_wj_src(w, w->pbuf, ml, jr->blob);
                got = ml;
            } else {
                upq_wj_src(w, w->pbuf + 16, got, jr->blob);
            }
            j->bloom.crc = (int32_t)upq_crc32(w->src, got);
            j->bloom.len = (int32_t)got;
            j->bloom_hdr = (int32_t)got;
            jr->blob += got;
            jr->jst = UPQ_W_KEY(c) ? JS_BLOOM_HEAD : JS_BLOOM_BITS;
            return UPQ_OK;
        }
#if UPQ_WITH_CRYPTO
        case JS_BLOOM_HEAD: {
            /* the bitset's module: length and nonce, the bits encrypted in
             * place (they are cleared for the next row group anyway), tag */
            upq_jcol *j = &jr->jc[jr->jcol];
            st = upq_wc_stream_begin(w, c->key, UPQ_MODULE_BLOOM_BITSET, (int32_t)jr->jcol, c->bloom_bytes,
                                     UPQ_WS_ENCRYPT);
            if (st != UPQ_OK)
                return st;
            upq_wc_stream_piece(w, c->bloom, c->bloom_bytes);
            j->bloom.crc = (int32_t)upq_crc32_update((uint32_t)j->bloom.crc, w->wc->head, 16);
            j->bloom.len += 16;
            upq_wj_src(w, w->wc->head, 16, jr->blob);
            jr->blob += 16;
            jr->jst = JS_BLOOM_BITS;
            return UPQ_OK;
        }
        case JS_BLOOM_TAG: {
            upq_jcol *j = &jr->jc[jr->jcol];
            upq_wc_stream_tag(w, jr->tag);
            j->bloom.crc = (int32_t)upq_crc32_update((uint32_t)j->bloom.crc, jr->tag, 16);
            j->bloom.len += 16;
            upq_wj_src(w, jr->tag, 16, jr->blob);
            jr->blob += 16;
            jr->jcol++;
            jr->jst = JS_BLOOM;
            return UPQ_OK;
        }
#endif
        case JS_BLOOM_BITS: {
            upq_jcol *j = &jr->jc[jr->jcol];
            j->bloom.crc = (int32_t)upq_crc32_update((uint32_t)j->bloom.crc, c->bloom, c->bloom_bytes);
            j->bloom.len += (int32_t)c->bloom_bytes;
            upq_wj_src(w, c->bloom, c->bloom_bytes, jr->blob);
            jr->blob += c->bloom_bytes;
            if (UPQ_W_KEY(c)) {
                jr->jst = JS_BLOOM_TAG;
                return UPQ_OK;
            }
            jr->jcol++;
            jr->jst = JS_BLOOM;
            return UPQ_OK;
        }
        case JS_RECORD:
            st = rg_record(w, &end);
            if (st != UPQ_DONE)
                return st;
            continue;
        case JS_SYNC:
            if (end)
                w->seal_to = jr->blob; /* the row group is complete */
            st = upq_w_sync(w);
            if (st != UPQ_OK)
                return st;
            ckpt_booked(w);
            w->rows_durable = w->rows_done + w->rs;
            jr->ckpt_due = 0;
            jr->ckpt_at = upq_wj_next_ckpt(w, w->rows_done + w->rs);
            jr->jst = JS_DONE;
            if (end) {
                w->rg_due = 0;
                upq_wj_rg_done(w);
            }
            continue;
        default:
            return UPQ_DONE;
        }
    }
}

upq_status upq_wj_next(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_status st;
    for (;;) {
        if (jr->rec.stage) {
            st = upq_wj_rec_piece(w);
            if (st != UPQ_DONE)
                return st;
            continue;
        }
        if (!jr->file_done && jr->job != UPQ_WJ_REPLAY) {
            st = file_piece(w);
            if (st != UPQ_DONE)
                return st;
            continue;
        }
        if (jr->rgstart_due) {
            jr->rgstart_due = 0;
            upq_wj_rec_begin(w, UPQ_J_RG_START, &upq_journal_descs[UPQ_JDESC_RG_START], &jr->rs, jr->jstart);
            /* the rest of the area is for the records after it */
            st = upq_wj_rec_size(w, &upq_journal_descs[UPQ_JDESC_RG_START], &jr->rs, &jr->rec.len);
            if (st != UPQ_OK)
                return st;
            jr->jpos = jr->jstart + jr->rec.len;
            continue;
        }
        switch (jr->job) {
        case UPQ_WJ_PAGE: st = job_page(w); break;
        case UPQ_WJ_CKPT: st = job_rg(w, 0); break;
        case UPQ_WJ_RGEND: st = job_rg(w, 1); break;
        case UPQ_WJ_FINISH: st = upq_wf_next(w); break;
        case UPQ_WJ_CLOSE: st = upq_wf_close_next(w); break;
        case UPQ_WJ_REPLAY: st = upq_wr_next(w); break;
        default: st = UPQ_DONE; break;
        }
        if (st == UPQ_DONE)
            jr->job = UPQ_WJ_NONE;
        return st;
    }
}

#endif /* UPQ_WITH_WRITER */
