/*
 * Writing encrypted files and reading them back:
 *  - every mode: AES_GCM_V1 / AES_GCM_CTR_V1 x encrypted ("PARE") / signed
 *    plaintext footer x uniform / per-column keys x AAD prefix stored / not
 *    stored (and none), with dictionaries (kept and fallen back to PLAIN),
 *    page index, CRCs, several row groups, bloom filters on id, name and val
 *    (two GCM modules each for an encrypted column); values read back equal
 *    the input through several I/O chunkings, and every value present
 *    answers "maybe" from its row group's filter; every module is where the
 *    footer and page headers say (bloom_filter_length covering exactly the
 *    filter's two modules), every ColumnIndex / OffsetIndex module decrypts
 *    and decodes, and no two modules of a file share a nonce;
 *  - the same matrix in checkpoint mode (a positional sink; a checkpoint
 *    every nrows / 8 rows), files beginning with "PARE" when the footer is
 *    encrypted; the nonce check then also covers the journal (every record
 *    in the file, the FILE record's FileMetaData and key checks, dictionary
 *    blobs); through sinks that say "again" (read_at included) the same
 *    bytes as through whole calls;
 *  - tampering: single bit flips at sampled positions inside every kind of
 *    GCM-protected module (page headers, pages, dictionary page headers and
 *    pages, column and offset indexes, bloom filter headers and bitsets,
 *    column metadata, footer / footer signature) give UPQ_ERR_AUTH and
 *    never data (nor a bloom filter answer), in closed, recovered and
 *    checkpoint-mode files; flips in CTR pages never crash (run under
 *    ASan+UBSan by make check-asan);
 *  - wrong keys, missing keys and a missing AAD prefix fail with
 *    UPQ_ERR_AUTH; unencrypted columns of a plaintext-footer file read
 *    without keys;
 *  - power loss in checkpoint mode, every mode, under a random source that
 *    restarts its sequence at every power-up: a file cut at a sync halfway
 *    is recovered (upq_recover with the keys: the rows durable at that sync,
 *    read back, authenticated, no nonce twice; without decrypt options, with
 *    a wrong footer or column key or a missing AAD prefix it fails and
 *    writes nothing), resumed (upq_writer_resume: directly, after recovery,
 *    twice with a cut in between, and a closed file reopened) and finished:
 *    all rows read back and no nonce in the file twice; resuming with a
 *    wrong key fails with UPQ_ERR_AUTH and writes nothing;
 *  - the nonce source: 10^6 nonces without a repeat; the 2^32 budget per
 *    key; page ordinals past 32767 refused, not wrapped;
 *    upq_crypto_decrypt_module (the call bloom filters use) on modules of
 *    every type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "util/check.h"
#include "util/flaky_io.h"
#include "writer_util.h"
#include "write/writer_int.h"
#include "checkpoint/journal.h"
#include "common/crc32.h"
#include "format/meta_desc.h"
#include "upq_aes.h"

#define NCOLS 4u

/* Rows per written file: fewer for the tampering runs, which read a file
 * back once per bit flip. */
static uint32_t nrows = 4000u;

static uint8_t warena[8u << 20] __attribute__((aligned(16)));
static uint8_t rarena[4u << 20] __attribute__((aligned(16)));

static const uint8_t FKEY[16] = "footer-key-0123";
static const uint8_t CKEY_ID[24] = "column-key-id-0123456789";
static const uint8_t CKEY_VAL[32] = "column-key-val-0123456789abcdefg";

static upq_status rnd(void *ctx, uint8_t *buf, size_t len)
{
    (void)ctx;
    while (len) {
        ssize_t n = getrandom(buf, len, 0);
        if (n <= 0)
            return UPQ_ERR_IO;
        buf += n;
        len -= (size_t)n;
    }
    return UPQ_OK;
}

/* A random source that starts the same sequence over at every power-up
 * (reboot() before each writer init and each recovery), as a weak one on a
 * board might: the nonces of a file must still never repeat (the writer
 * XORs in each key's invocation count and the journal session). */
static uint64_t boot_state;

static void reboot(void)
{
    boot_state = UINT64_C(0x243F6A8885A308D3);
}

static upq_status boot_rnd(void *ctx, uint8_t *buf, size_t len)
{
    size_t i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        boot_state ^= boot_state << 13;
        boot_state ^= boot_state >> 7;
        boot_state ^= boot_state << 17;
        buf[i] = (uint8_t)(boot_state >> 24);
    }
    return UPQ_OK;
}

/* The random source files are written with. */
static upq_random_fn wrandom = rnd;

/* ---- the data ---------------------------------------------------------------- */

static int64_t v_id(uint32_t i) { return (int64_t)i * 1000003 - 77; }
static int name_null(uint32_t i) { return i % 11 == 3; }
static int val_null(uint32_t i) { return i % 7 == 0; }
static double v_val(uint32_t i) { return (double)i * 0.25 - 100.0; }
static uint8_t v_flag(uint32_t i) { return (uint8_t)((i * 2654435761u) >> 31); }

static void v_name(uint32_t i, char *buf)
{
    snprintf(buf, 24, "name-%u", i % 37);
}

static upq_schema_element elems[8];

static uint32_t build_schema(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t n = 0;
    upq_sb_init(&b, elems, 8, "m");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "name", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "val", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_sb_column(&b, "flag", UPQ_REP_REQUIRED, UPQ_TYPE_BOOLEAN, 0, NULL);
    upq_sb_finish(&b, &n);
    return n;
}

typedef struct mode {
    uint8_t ctr, plain_footer, per_column, prefix; /* prefix: 0 none, 1 stored, 2 not stored */
    uint8_t ckpt;                                  /* checkpoint mode */
} mode;

static void mode_name(const mode *m, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s, %s footer, %s keys, %s", m->ckpt ? "checkpoint mode, " : "",
             m->ctr ? "GCM_CTR" : "GCM", m->plain_footer ? "plaintext" : "encrypted",
             m->per_column ? "per-column" : "uniform",
             m->prefix == 0 ? "no AAD prefix" : m->prefix == 1 ? "AAD prefix stored" : "AAD prefix supplied");
}

/* The AAD prefix readers of a file of mode m must be given (not stored). */
static const char *mode_prefix(const mode *m)
{
    return m->prefix == 2 ? "table.part7" : NULL;
}

/* Leaf columns encrypted in mode m. */
static int col_encrypted(const mode *m, uint32_t col)
{
    return !m->per_column || col == 0 || col == 2;
}

#define FILE_ID UINT64_C(0x5EC0DE0F11E0C0DE)

/* Copies of the file at each sync: what a power cut right then leaves, and
 * the rows durable once that sync's checkpoint was done (UINT64_MAX when a
 * later sync in the same call hides it). */
typedef struct snaps {
    uint8_t *p[128];
    size_t n[128];
    uint64_t durable[128];
    unsigned count, seen, missed;
} snaps;

static snaps *cur_snaps; /* set: files written take copies here */

static void snap_on_sync(sink_buf *s, void *ctx)
{
    snaps *sn = (snaps *)ctx;
    if (sn->count == 128) {
        sn->missed++;
        return;
    }
    sn->p[sn->count] = (uint8_t *)malloc(s->n ? s->n : 1);
    memcpy(sn->p[sn->count], s->p, s->n);
    sn->n[sn->count] = s->n;
    sn->durable[sn->count++] = UINT64_MAX;
}

static void snaps_free(snaps *sn)
{
    unsigned k;
    for (k = 0; k < sn->count; k++)
        free(sn->p[k]);
    memset(sn, 0, sizeof *sn);
}

static upq_column_key ckeys[2];
static upq_column_opts copts[NCOLS];

/* The options of a file of mode m (these tests' defaults unless `extra`)
 * into *o, its encryption into *e (which must outlive the writer). */
static void set_opts(const mode *m, upq_writer_opts *o, upq_encrypt_opts *e, const upq_writer_opts *extra)
{
    uint32_t i;
    memset(o, 0, sizeof *o);
    if (extra)
        *o = *extra;
    else {
        o->page_size = 512;
        /* row groups of at most a third of the rows (more of them when the
         * chunk buffers, or in checkpoint mode a column's region, fill up
         * first) */
        o->row_group_rows = nrows / 3u + 1u;
        o->codec = UPQ_CODEC_SNAPPY;
        /* dictionaries (name keeps one, id and val fall back to PLAIN),
         * bloom filters on every column that can have one */
        memset(copts, 0, sizeof copts);
        for (i = 0; i < NCOLS; i++) {
            copts[i].encoding = -1;
            copts[i].dictionary = -1;
        }
        for (i = 0; i < 3; i++) {
            copts[i].bloom = 1;
            copts[i].bloom_ndv = nrows / 3u + 1u;
        }
        o->columns = copts;
        o->ncolumns = NCOLS;
    }
    if (m->ckpt) {
        o->checkpoint = 1;
        o->checkpoint_rows = nrows / 8u;
        o->file_id = FILE_ID;
    }
    memset(e, 0, sizeof *e);
    e->algorithm = m->ctr ? UPQ_CRYPTO_AES_GCM_CTR_V1 : UPQ_CRYPTO_AES_GCM_V1;
    e->plaintext_footer = m->plain_footer;
    e->footer_key = FKEY;
    e->footer_key_len = 16;
    e->footer_key_metadata = (const uint8_t *)"kf";
    e->footer_key_metadata_len = 2;
    if (m->per_column) {
        ckeys[0].column = 0;
        ckeys[0].key = CKEY_ID;
        ckeys[0].key_len = 24;
        ckeys[0].key_metadata = (const uint8_t *)"kid";
        ckeys[0].key_metadata_len = 3;
        ckeys[1].column = 2;
        ckeys[1].key = CKEY_VAL;
        ckeys[1].key_len = 32;
        e->columns = ckeys;
        e->ncolumns = 2;
    }
    if (m->prefix) {
        e->aad_prefix = (const uint8_t *)"table.part7";
        e->aad_prefix_len = 11;
        e->no_store_aad_prefix = m->prefix == 2;
    }
    e->random = wrandom;
    o->encrypt = e;
}

/* Rows [from, to) into w, then the close when `close`; stops at the first
 * error. In checkpoint mode each row's output is finished before the next
 * (so the rows durable at each sync of cur_snaps are known). */
static upq_status write_rows(upq_writer *w, uint32_t from, uint32_t to, int close)
{
    upq_status st = UPQ_OK;
    uint32_t i;
    for (i = from; i < to && st == UPQ_OK; i++) {
        int64_t id = v_id(i);
        double val = v_val(i);
        uint8_t flag = v_flag(i);
        char nm[24];
        upq_bytes b;
        v_name(i, nm);
        b.ptr = (const uint8_t *)nm;
        b.len = (uint32_t)strlen(nm);
        do
            st = upq_writer_set(w, 0, &id);
        while (st == UPQ_AGAIN);
        if (st == UPQ_OK) {
            do
                st = name_null(i) ? upq_writer_set_null(w, 1) : upq_writer_set(w, 1, &b);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = val_null(i) ? upq_writer_set_null(w, 2) : upq_writer_set(w, 2, &val);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = upq_writer_set(w, 3, &flag);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = upq_writer_end_row(w);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK && w->o.checkpoint) {
            do
                st = upq_writer_poll(w);
            while (st == UPQ_AGAIN);
        }
        if (cur_snaps && cur_snaps->count > cur_snaps->seen) {
            cur_snaps->durable[cur_snaps->count - 1] = upq_writer_rows_durable(w);
            cur_snaps->seen = cur_snaps->count;
        }
    }
    if (st == UPQ_OK && close) {
        do
            st = upq_writer_close(w);
        while (st == UPQ_AGAIN);
        if (cur_snaps && cur_snaps->count > cur_snaps->seen) {
            cur_snaps->durable[cur_snaps->count - 1] = upq_writer_rows_durable(w);
            cur_snaps->seen = cur_snaps->count;
        }
    }
    return st;
}

static upq_status write_file(const mode *m, sink_buf *s, int sink_mode, const upq_writer_opts *extra)
{
    static upq_writer w;
    upq_writer_opts o;
    upq_encrypt_opts e;
    upq_sink sk;
    uint32_t n = build_schema();
    upq_status st;
    set_opts(m, &o, &e, extra);
    sink_init(s, sink_mode, 7);
    if (cur_snaps) {
        s->on_sync = snap_on_sync;
        s->on_sync_ctx = cur_snaps;
    }
    /* checkpoint mode: positional writes, read-back, truncate */
    sk = sink_of(s, m->ckpt);
    st = upq_writer_init(&w, &sk, elems, n, warena, sizeof warena, &o);
    if (st != UPQ_OK)
        return st;
    return write_rows(&w, 0, nrows, 1);
}

/* ---- reading back ------------------------------------------------------------ */

typedef struct keys {
    int no_footer, no_columns, wrong_footer, wrong_column;
    const char *prefix;
} keys;

static upq_status get_key(void *ctx, const upq_bytes *md, const upq_bytes_list *path, uint8_t *key,
                          size_t *len)
{
    const keys *k = ctx;
    (void)md;
    if (!path) {
        if (k->no_footer)
            return UPQ_ERR_AUTH;
        memcpy(key, FKEY, 16);
        *len = 16;
        if (k->wrong_footer)
            key[5] ^= 0x10;
        return UPQ_OK;
    }
    if (k->no_columns || path->n != 1)
        return UPQ_ERR_AUTH;
    if (path->v[0].len == 2 && !memcmp(path->v[0].ptr, "id", 2)) {
        memcpy(key, CKEY_ID, 24);
        *len = 24;
    } else if (path->v[0].len == 3 && !memcmp(path->v[0].ptr, "val", 3)) {
        memcpy(key, CKEY_VAL, 32);
        *len = 32;
    } else {
        return UPQ_ERR_AUTH;
    }
    if (k->wrong_column)
        key[0] ^= 1;
    return UPQ_OK;
}

/* What a file read back must hold: want_rows rows (0: nrows); bloom
 * filters in every row group unless bloom_optional (a row group recovery
 * ended has none). cur_prefix: the AAD prefix the helpers that open a file
 * by themselves give (a file that does not store it). */
static uint32_t want_rows;
static int bloom_optional;
static const char *cur_prefix;

typedef struct rd {
    upq_reader r;
    tu_mem_src mem;
    tu_flaky fl;
    upq_decrypt_opts d;
} rd;

static upq_status rd_open(rd *x, const uint8_t *data, size_t len, keys *k, const tu_flaky_cfg *cfg)
{
    upq_io io = {0};
    upq_reader_opts o;
    upq_status st;
    tu_mem_src_init(&x->mem, data, len);
    tu_flaky_init(&x->fl, cfg ? cfg : &tu_flaky_cfgs[0], tu_mem_read_at, &x->mem, 3);
    io.ctx = &x->fl;
    io.read_at = tu_flaky_read_at;
    io.size = len;
    memset(&x->d, 0, sizeof x->d);
    x->d.get_key = get_key;
    x->d.key_ctx = k;
    if (k->prefix) {
        x->d.aad_prefix = (const uint8_t *)k->prefix;
        x->d.aad_prefix_len = (uint32_t)strlen(k->prefix);
        x->d.aad_prefix_given = 1;
    }
    memset(&o, 0, sizeof o);
    o.decrypt = &x->d;
    upq_reader_init(&x->r, &io, rarena, sizeof rarena, &o);
    do
        st = upq_reader_open(&x->r);
    while (st == UPQ_AGAIN);
    return st;
}

/* Reads leaf `col` of every row group; UPQ_DONE when all values are there
 * and equal the input (*bad counts those that differ). */
static upq_status rd_column(rd *x, uint32_t col, unsigned long *bad)
{
    const upq_file_metadata *m = upq_reader_metadata(&x->r);
    uint32_t g, row = 0;
    for (g = 0; g < m->row_groups.n; g++) {
        upq_column_reader c;
        uint16_t def[100];
        uint8_t vals[100 * 16];
        upq_batch b;
        upq_status st = upq_column_open(&c, &x->r, g, col);
        if (st != UPQ_OK)
            return st;
        for (;;) {
            size_t k, v = 0;
            memset(&b, 0, sizeof b);
            b.def = def;
            b.values = vals;
            b.cap = 100;
            st = upq_column_read(&c, &b);
            if (st == UPQ_AGAIN)
                continue;
            if (st != UPQ_OK)
                break;
            for (k = 0; k < b.levels; k++, row++) {
                int null = (col == 1 || col == 2) && def[k] == 0;
                const uint8_t *p = vals + v * upq_value_size(col == 0 ? UPQ_TYPE_INT64 : col == 1 ? UPQ_TYPE_BYTE_ARRAY : col == 2 ? UPQ_TYPE_DOUBLE : UPQ_TYPE_BOOLEAN);
                int ok;
                if (col == 0)
                    ok = *(const int64_t *)(const void *)p == v_id(row);
                else if (col == 1) {
                    char nm[24];
                    const upq_bytes *bb = (const upq_bytes *)(const void *)p;
                    v_name(row, nm);
                    ok = null ? name_null(row)
                              : !name_null(row) && bb->len == strlen(nm) && !memcmp(bb->ptr, nm, bb->len);
                } else if (col == 2)
                    ok = null ? val_null(row) : !val_null(row) && *(const double *)(const void *)p == v_val(row);
                else
                    ok = *p == v_flag(row);
                if (!ok)
                    (*bad)++;
                if (!null)
                    v++;
            }
        }
        upq_column_close(&c);
        if (st != UPQ_DONE)
            return st;
    }
    if (row != (want_rows ? want_rows : nrows))
        (*bad)++;
    return UPQ_DONE;
}

/* Asks the bloom filter of leaf `col` (0 id, 1 name, 2 val) in every row
 * group about every value that row group holds: UPQ_DONE when all filters
 * load (*bad counts false negatives), else the first failing status. */
static upq_status rd_bloom(rd *x, uint32_t col, unsigned long *bad)
{
    const upq_file_metadata *m = upq_reader_metadata(&x->r);
    uint32_t g, row = 0;
    for (g = 0; g < m->row_groups.n; g++) {
        upq_bloom_reader br;
        uint32_t end = row + (uint32_t)m->row_groups.v[g].num_rows;
        upq_status st = upq_bloom_open(&br, &x->r, g, col);
        if (st == UPQ_DONE && bloom_optional) {
            row = end; /* a row group recovery ended: no filters */
            continue;
        }
        if (st == UPQ_DONE) /* every chunk was written with one */
            st = UPQ_ERR_STATE;
        while (st == UPQ_OK || st == UPQ_AGAIN) {
            st = upq_bloom_load(&br);
            if (st == UPQ_OK)
                break;
        }
        if (st != UPQ_OK) {
            upq_bloom_close(&br);
            return st;
        }
        for (; row < end; row++) {
            int maybe = 0;
            int64_t id = v_id(row);
            double val = v_val(row);
            char nm[24];
            upq_bytes b;
            if (col == 0)
                st = upq_bloom_might_contain(&br, &id, &maybe);
            else if (col == 1) {
                if (name_null(row))
                    continue;
                v_name(row, nm);
                b.ptr = (const uint8_t *)nm;
                b.len = (uint32_t)strlen(nm);
                st = upq_bloom_might_contain(&br, &b, &maybe);
            } else {
                if (val_null(row))
                    continue;
                st = upq_bloom_might_contain(&br, &val, &maybe);
            }
            if (st != UPQ_OK || !maybe)
                (*bad)++;
        }
        upq_bloom_close(&br);
    }
    return UPQ_DONE;
}

/* Opens and reads everything (values, then bloom filters): UPQ_DONE with
 * *bad 0 when all is there and right, else the first failing status. */
static upq_status rd_all(const uint8_t *data, size_t len, keys *k, unsigned long *bad,
                         const tu_flaky_cfg *cfg)
{
    static rd x;
    uint32_t c;
    upq_status st = rd_open(&x, data, len, k, cfg);
    *bad = 0;
    if (st != UPQ_OK)
        return st;
    for (c = 0; c < NCOLS; c++) {
        st = rd_column(&x, c, bad);
        if (st != UPQ_DONE)
            return st;
    }
    for (c = 0; c < 3; c++) {
        st = rd_bloom(&x, c, bad);
        if (st != UPQ_DONE)
            return st;
    }
    return UPQ_DONE;
}

static void check_modules(const uint8_t *data, size_t len, const mode *m, const char *what);
static void check_nonces(const uint8_t *data, size_t len, const mode *m, const char *what);
static void check_row_groups(const uint8_t *data, size_t len, const mode *m, uint32_t rows,
                             const char *what);

/* Every mode written (ckpt: in checkpoint mode) and read back: values and
 * bloom filters through several I/O chunkings, wrong keys and prefixes,
 * every module in its place (page indexes decrypted and decoded), no nonce
 * twice. */
static void roundtrip_modes(int ckpt)
{
    mode m;
    unsigned ctr, pf, pc, px;
    memset(&m, 0, sizeof m);
    m.ckpt = (uint8_t)ckpt;
    for (ctr = 0; ctr < 2; ctr++)
        for (pf = 0; pf < 2; pf++)
            for (pc = 0; pc < 2; pc++)
                for (px = 0; px < 3; px++) {
                    sink_buf s;
                    keys k;
                    char name[160];
                    unsigned long bad = 0;
                    size_t ci;
                    m.ctr = (uint8_t)ctr;
                    m.plain_footer = (uint8_t)pf;
                    m.per_column = (uint8_t)pc;
                    m.prefix = (uint8_t)px;
                    mode_name(&m, name, sizeof name);
                    tu_case("write and read back: %s", name);
                    /* half of them through a sink that takes and gives short
                     * counts and (not in checkpoint mode: again_sinks()) says
                     * "again" */
                    int sm = (ctr + pf + px) % 2 ? (ckpt ? SINK_SHORT : SINK_AGAIN) : SINK_WHOLE;
                    if (!TU_CHECK_STATUS(write_file(&m, &s, sm, NULL), UPQ_OK)) {
                        sink_free(&s);
                        continue;
                    }
                    /* an encrypted footer's file begins with "PARE" too, in
                     * checkpoint mode as well */
                    TU_CHECK(memcmp(s.p + s.n - 4, pf ? "PAR1" : "PARE", 4) == 0);
                    TU_CHECK(memcmp(s.p, pf ? "PAR1" : "PARE", 4) == 0);
                    memset(&k, 0, sizeof k);
                    k.prefix = mode_prefix(&m);
                    for (ci = 0; ci < tu_flaky_ncfgs; ci += 4) {
                        TU_CHECK_STATUS(rd_all(s.p, s.n, &k, &bad, &tu_flaky_cfgs[ci]), UPQ_DONE);
                        TU_CHECK_UINT(bad, 0);
                    }
                    /* wrong footer key */
                    k.wrong_footer = 1;
                    TU_CHECK_STATUS(rd_all(s.p, s.n, &k, &bad, NULL), UPQ_ERR_AUTH);
                    k.wrong_footer = 0;
                    /* wrong column keys */
                    if (pc) {
                        k.wrong_column = 1;
                        TU_CHECK_STATUS(rd_all(s.p, s.n, &k, &bad, NULL), UPQ_ERR_AUTH);
                        k.wrong_column = 0;
                    }
                    /* the prefix: wrong one, or missing where it is not stored */
                    if (px) {
                        k.prefix = "table.part8";
                        TU_CHECK_STATUS(rd_all(s.p, s.n, &k, &bad, NULL), UPQ_ERR_AUTH);
                        k.prefix = NULL;
                        TU_CHECK_STATUS(rd_all(s.p, s.n, &k, &bad, NULL), px == 2 ? UPQ_ERR_AUTH : UPQ_DONE);
                    }
                    /* plaintext footer, per-column keys, no keys at all:
                     * the plain columns read, the others say AUTH */
                    if (pf && pc && px != 2) {
                        static rd x;
                        keys none;
                        memset(&none, 0, sizeof none);
                        none.no_footer = none.no_columns = 1;
                        TU_CHECK_STATUS(rd_open(&x, s.p, s.n, &none, NULL), UPQ_OK);
                        bad = 0;
                        TU_CHECK_STATUS(rd_column(&x, 1, &bad), UPQ_DONE);
                        TU_CHECK_STATUS(rd_column(&x, 3, &bad), UPQ_DONE);
                        TU_CHECK_UINT(bad, 0);
                        TU_CHECK_STATUS(rd_column(&x, 0, &bad), UPQ_ERR_AUTH);
                        TU_CHECK_STATUS(rd_column(&x, 2, &bad), UPQ_ERR_AUTH);
                        TU_CHECK_STATUS(rd_bloom(&x, 1, &bad), UPQ_DONE);
                        TU_CHECK_UINT(bad, 0);
                        TU_CHECK_STATUS(rd_bloom(&x, 0, &bad), UPQ_ERR_AUTH);
                        TU_CHECK_INT(upq_reader_error(&x.r)->column, 0);
                        TU_CHECK_STATUS(rd_bloom(&x, 2, &bad), UPQ_ERR_AUTH);
                        TU_CHECK_INT(upq_reader_error(&x.r)->column, 2);
                    }
                    cur_prefix = mode_prefix(&m);
                    check_row_groups(s.p, s.n, &m, nrows, name);
                    check_modules(s.p, s.n, &m, name);
                    check_nonces(s.p, s.n, &m, name);
                    cur_prefix = NULL;
                    sink_free(&s);
                }
}

/* ---- tampering ---------------------------------------------------------------- */

enum { K_DICT_HDR, K_DICT_PAGE, K_DATA_HDR, K_DATA_PAGE, K_CI, K_OI, K_FOOTER, K_COLMETA, K_BF_HDR,
       K_BF_BITS, K_KINDS };
static const char *kind_name[K_KINDS] = {"dictionary page header", "dictionary page", "data page header",
                                         "data page", "column index", "offset index", "footer",
                                         "column metadata", "bloom filter header", "bloom filter bitset"};

typedef struct region {
    size_t start, end;
    int kind;
    uint32_t rg, col;     /* page index modules: whose */
    size_t mstart;        /* ... and where the module (its length) starts */
} region;

static region regs[4096];
static size_t nregs;

static void add_region(size_t s, size_t e, int kind)
{
    if (nregs < 4096 && e > s) {
        regs[nregs].start = s;
        regs[nregs].end = e;
        regs[nregs].kind = kind;
        nregs++;
    }
}

static size_t find_bytes(const uint8_t *hay, size_t n, const uint8_t *needle, size_t m)
{
    size_t i;
    for (i = 0; i + m <= n; i++)
        if (!memcmp(hay + i, needle, m))
            return i;
    return SIZE_MAX;
}

/* Bloom filters whose bloom_filter_length is not their two modules' bytes
 * (the first one's: said, is), found by the last map_modules. */
static unsigned long bf_len_bad;
static int64_t bf_len_said, bf_len_is;

/* Every module's protected bytes (nonce, ciphertext, tag) of a file. */
static void map_modules(const uint8_t *data, size_t len, int plain_footer)
{
    static rd x;
    keys k;
    const upq_file_metadata *m;
    uint32_t g, c;
    size_t flen = upq_load_le32(data + len - 8), fstart = len - 8 - flen;
    memset(&k, 0, sizeof k);
    k.prefix = cur_prefix;
    nregs = 0;
    bf_len_bad = 0;
    if (!TU_CHECK_STATUS(rd_open(&x, data, len, &k, NULL), UPQ_OK))
        return;
    m = upq_reader_metadata(&x.r);
    for (g = 0; g < m->row_groups.n; g++)
        for (c = 0; c < NCOLS; c++) {
            const upq_column_chunk *ch = upq_reader_chunk(&x.r, g, c);
            const upq_column_metadata *md = &ch->meta_data;
            size_t pos = (size_t)md->data_page_offset, end;
            int first = 1, hdr = 1;
            if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA))
                continue; /* a plain column */
            if (UPQ_ISSET(*md, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) && md->dictionary_page_offset > 0)
                pos = (size_t)md->dictionary_page_offset;
            end = pos + (size_t)md->total_compressed_size;
            while (pos + 4 <= end) {
                size_t l = upq_load_le32(data + pos);
                if (!TU_CHECK(l <= end - pos - 4))
                    break;
                int dict = first && (size_t)md->data_page_offset != pos &&
                           UPQ_ISSET(*md, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET);
                if (hdr)
                    add_region(pos + 4, pos + 4 + l, dict ? K_DICT_HDR : K_DATA_HDR);
                else {
                    add_region(pos + 4, pos + 4 + l, first && regs[nregs - 1].kind == K_DICT_HDR ? K_DICT_PAGE : K_DATA_PAGE);
                    first = 0;
                }
                hdr = !hdr;
                pos += 4 + l;
            }
            if (UPQ_ISSET(*md, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET)) {
                /* header module, then bitset module: each past its length;
                 * bloom_filter_length must cover exactly both */
                size_t bo = (size_t)md->bloom_filter_offset, hl = upq_load_le32(data + bo);
                size_t bend = bo + 4 + hl + 4 + upq_load_le32(data + bo + 4 + hl);
                if (!UPQ_ISSET(*md, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH) ||
                    bend - bo != (size_t)md->bloom_filter_length) {
                    if (bf_len_bad++ == 0) {
                        bf_len_said = md->bloom_filter_length;
                        bf_len_is = (int64_t)(bend - bo);
                    }
                }
                add_region(bo + 4, bo + 4 + hl, K_BF_HDR);
                regs[nregs - 1].rg = g;
                regs[nregs - 1].col = c;
                add_region(bo + 4 + hl + 4, bend, K_BF_BITS);
                regs[nregs - 1].rg = g;
                regs[nregs - 1].col = c;
            }
            if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET)) {
                add_region((size_t)ch->column_index_offset + 4,
                           (size_t)(ch->column_index_offset + ch->column_index_length), K_CI);
                regs[nregs - 1].rg = g;
                regs[nregs - 1].col = c;
                regs[nregs - 1].mstart = (size_t)ch->column_index_offset;
            }
            if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET)) {
                add_region((size_t)ch->offset_index_offset + 4,
                           (size_t)(ch->offset_index_offset + ch->offset_index_length), K_OI);
                regs[nregs - 1].rg = g;
                regs[nregs - 1].col = c;
                regs[nregs - 1].mstart = (size_t)ch->offset_index_offset;
            }
        }
    if (plain_footer) {
        /* FileMetaData and its signature: all signed */
        add_region(fstart, len - 8, K_FOOTER);
    } else {
        size_t at;
        for (at = fstart; at + 4 <= len - 8; at++)
            if (upq_load_le32(data + at) + 4u + at == len - 8)
                break;
        add_region(at + 4, len - 8, K_FOOTER);
    }
}

/* A page index module read as a page index reader would: the column's
 * key from the reader, then upq_crypto_decrypt_module. UPQ_DONE when it
 * decrypts and decodes. */
static upq_status read_index(const uint8_t *data, size_t len, const region *g, int kind)
{
    static rd x;
    static uint8_t keymem[1024] __attribute__((aligned(16)));
    static uint8_t buf[1 << 16];
    const struct upq_aes_key *key;
    keys k;
    uint8_t *pt;
    size_t pl, ml = g->end - g->mstart;
    upq_status st;
    memset(&k, 0, sizeof k);
    k.prefix = cur_prefix;
    st = rd_open(&x, data, len, &k, NULL);
    if (st != UPQ_OK)
        return st;
    st = upq_reader_column_key(&x.r, g->rg, g->col, keymem, &key);
    if (st != UPQ_OK)
        return st;
    if (ml > sizeof buf)
        return UPQ_ERR_LIMIT;
    memcpy(buf, data + g->mstart, ml);
    st = upq_crypto_decrypt_module(upq_reader_file_crypto(&x.r), key,
                                   kind == K_CI ? UPQ_MODULE_COLUMN_INDEX : UPQ_MODULE_OFFSET_INDEX,
                                   (int32_t)g->rg, (int32_t)g->col, -1, buf, ml, &pt, &pl);
    if (st == UPQ_OK) {
        upq_arena a;
        upq_column_index ci;
        upq_offset_index oi;
        upq_arena_init(&a, rarena, sizeof rarena);
        st = kind == K_CI ? upq_thrift_decode(&upq_column_index_desc, &ci, &a, pt, pl, NULL, NULL)
                          : upq_thrift_decode(&upq_offset_index_desc, &oi, &a, pt, pl, NULL, NULL);
        if (st == UPQ_OK)
            st = UPQ_DONE;
    }
    return st;
}

/* The bloom filter of the region's chunk as upq_bloom_load gives it:
 * UPQ_DONE when it loads (an answer would follow). */
static upq_status read_bloom(const uint8_t *data, size_t len, const region *g)
{
    static rd x;
    upq_bloom_reader br;
    keys k;
    upq_status st;
    memset(&k, 0, sizeof k);
    k.prefix = cur_prefix;
    st = rd_open(&x, data, len, &k, NULL);
    if (st != UPQ_OK)
        return st;
    st = upq_bloom_open(&br, &x.r, g->rg, g->col);
    while (st == UPQ_OK || st == UPQ_AGAIN) {
        st = upq_bloom_load(&br);
        if (st == UPQ_OK) {
            st = upq_bloom_filter(&br) ? UPQ_DONE : UPQ_ERR_STATE;
            break;
        }
    }
    if (st == UPQ_ERR_AUTH && upq_bloom_filter(&br))
        st = UPQ_ERR_STATE; /* never a filter next to an error */
    upq_bloom_close(&br);
    return st;
}

/* Flips `per_kind` sampled bits per region kind of the file data[0..len)
 * (of mode m; `name` says which); GCM modules must say AUTH. */
static void tamper_file(const uint8_t *data, size_t len, const mode *m, unsigned per_kind,
                        unsigned long *total, const char *name)
{
    uint8_t *copy;
    uint64_t rng = tu_seed() ^ 0x5eed;
    int kind;
    cur_prefix = mode_prefix(m);
    map_modules(data, len, m->plain_footer);
    copy = malloc(len);
    for (kind = 0; kind < K_KINDS; kind++) {
        size_t idx[4096], ni = 0, r;
        unsigned t, auth = 0, other = 0, data_out = 0;
        int ctr_page = m->ctr && (kind == K_DICT_PAGE || kind == K_DATA_PAGE);
        for (r = 0; r < nregs; r++)
            if (regs[r].kind == kind)
                idx[ni++] = r;
        if (kind == K_COLMETA || ni == 0)
            continue;
        tu_case("tamper (%s): %u bit flips in %s modules%s", name, per_kind, kind_name[kind],
                ctr_page ? " (CTR: no crash, no authentication)" : "");
        for (t = 0; t < per_kind; t++) {
            const region *g = &regs[idx[tu_rand_below(&rng, ni)]];
            size_t pos = g->start + (size_t)tu_rand_below(&rng, g->end - g->start);
            unsigned long bad = 0;
            keys k;
            upq_status st;
            memcpy(copy, data, len);
            copy[pos] ^= (uint8_t)(1u << tu_rand_below(&rng, 8));
            memset(&k, 0, sizeof k);
            k.prefix = cur_prefix;
            if (kind == K_CI || kind == K_OI)
                st = read_index(copy, len, g, kind);
            else if (kind == K_BF_HDR || kind == K_BF_BITS)
                st = read_bloom(copy, len, g);
            else
                st = rd_all(copy, len, &k, &bad, NULL);
            if (st == UPQ_ERR_AUTH)
                auth++;
            else if (st == UPQ_DONE)
                data_out += bad != 0 || 1;
            else
                other++;
        }
        (*total) += per_kind;
        if (ctr_page) {
            TU_CHECK(auth + other + data_out == per_kind); /* it ran: nothing crashed */
        } else if (kind == K_FOOTER && m->plain_footer) {
            /* a plaintext footer that no longer parses is reported as
             * corrupt: its key and AAD are only known once it parses */
            TU_CHECK_MSG(data_out == 0 && (auth > 0 || per_kind < 10), "%u of %u flips gave data",
                         data_out, per_kind);
            tu_note("plaintext footer flips: %u AUTH, %u unparsable (corrupt)", auth, other);
        } else {
            TU_CHECK_MSG(auth == per_kind, "%u of %u flips gave AUTH (%u data, %u other errors)", auth,
                         per_kind, data_out, other);
        }
    }
    free(copy);
    cur_prefix = NULL;
}

/* The same on a file of mode m written for it. */
static void tamper(const mode *m, unsigned per_kind, unsigned long *total)
{
    sink_buf s;
    char name[160];
    mode_name(m, name, sizeof name);
    if (TU_CHECK_STATUS(write_file(m, &s, SINK_WHOLE, NULL), UPQ_OK))
        tamper_file(s.p, s.n, m, per_kind, total, name);
    sink_free(&s);
}

/* ColumnMetaData modules: a plaintext-footer per-column file read with the
 * column keys but no footer key (so the signature is not checked and the
 * encrypted column metadata is what catches the flip). */
static void tamper_colmeta(int ckpt, unsigned flips, unsigned long *total)
{
    mode m = {0, 1, 1, 0, 0};
    sink_buf s;
    static rd x;
    keys k;
    uint64_t rng = tu_seed() ^ 0xc01;
    uint8_t *copy;
    uint32_t g, c;
    unsigned t, auth = 0;
    m.ckpt = (uint8_t)ckpt;
    tu_case("tamper%s: %u bit flips in encrypted column metadata", ckpt ? " (checkpoint mode)" : "",
            flips);
    if (!TU_CHECK_STATUS(write_file(&m, &s, SINK_WHOLE, NULL), UPQ_OK))
        return;
    memset(&k, 0, sizeof k);
    k.no_footer = 1;
    nregs = 0;
    copy = malloc(s.n);
    /* the modules as stored: found by their bytes in the footer, read
     * before the reader decrypts them in its arena */
    {
        size_t flen = upq_load_le32(s.p + s.n - 8), fstart = s.n - 8 - flen;
        upq_arena a;
        upq_file_metadata fm;
        upq_arena_init(&a, rarena, sizeof rarena);
        if (TU_CHECK_STATUS(upq_thrift_decode(&upq_file_metadata_desc, &fm, &a, s.p + fstart, flen - 28, NULL, NULL), UPQ_OK))
            for (g = 0; g < fm.row_groups.n; g++)
                for (c = 0; c < fm.row_groups.v[g].columns.n; c++) {
                    const upq_column_chunk *ch = &fm.row_groups.v[g].columns.v[c];
                    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA)) {
                        size_t at = find_bytes(s.p + fstart, flen, ch->encrypted_column_metadata.ptr,
                                               ch->encrypted_column_metadata.len);
                        if (at != SIZE_MAX)
                            add_region(fstart + at + 4, fstart + at + ch->encrypted_column_metadata.len,
                                       K_COLMETA);
                    }
                }
    }
    TU_CHECK(nregs >= 6);
    for (t = 0; t < flips && nregs; t++) {
        const region *r = &regs[tu_rand_below(&rng, nregs)];
        size_t pos = r->start + (size_t)tu_rand_below(&rng, r->end - r->start);
        memcpy(copy, s.p, s.n);
        copy[pos] ^= (uint8_t)(1u << tu_rand_below(&rng, 8));
        auth += rd_open(&x, copy, s.n, &k, NULL) == UPQ_ERR_AUTH;
    }
    TU_CHECK_MSG(auth == flips, "%u of %u flips gave AUTH", auth, flips);
    *total += flips;
    free(copy);
    sink_free(&s);
}

/* ---- checkpoint mode: every module in place, no nonce twice ------------------------ */

/* The footer's row groups: at least one row and at most row_group_rows each
 * (checkpoint mode may end one early, when a column's region is full),
 * adding up to `rows`, the file's rows. */
static void check_row_groups(const uint8_t *data, size_t len, const mode *m, uint32_t rows,
                             const char *what)
{
    static rd x;
    keys k;
    const upq_file_metadata *fm;
    uint64_t sum = 0, lim = nrows / 3u + 1u;
    uint32_t g, bad = 0;
    memset(&k, 0, sizeof k);
    k.prefix = mode_prefix(m);
    if (!TU_CHECK_STATUS(rd_open(&x, data, len, &k, NULL), UPQ_OK))
        return;
    fm = upq_reader_metadata(&x.r);
    for (g = 0; g < fm->row_groups.n; g++) {
        int64_t n = fm->row_groups.v[g].num_rows;
        bad += n < 1 || (uint64_t)n > lim;
        sum += n > 0 ? (uint64_t)n : 0u;
    }
    TU_CHECK_MSG(bad == 0 && sum == rows && (uint64_t)fm->num_rows == rows,
                 "%s: %u row groups of %llu rows, %u of them not 1..%llu rows; the file says %lld, want %u",
                 what, fm->row_groups.n, (unsigned long long)sum, bad, (unsigned long long)lim,
                 (long long)fm->num_rows, rows);
}

/* Every kind of module the mode writes is in the file data[0..len), every
 * page index module decrypts and decodes, every bloom filter loads. */
static void check_modules(const uint8_t *data, size_t len, const mode *m, const char *what)
{
    static const int want[] = {K_DICT_HDR, K_DICT_PAGE, K_DATA_HDR, K_DATA_PAGE, K_CI, K_OI,
                               K_FOOTER, K_BF_HDR, K_BF_BITS};
    size_t count[K_KINDS] = {0}, r, i;
    unsigned long bad = 0;
    const char *saved = cur_prefix;
    cur_prefix = mode_prefix(m);
    map_modules(data, len, m->plain_footer);
    TU_CHECK_MSG(nregs < 4096, "%s: more modules than the map holds", what);
    TU_CHECK_MSG(bf_len_bad == 0,
                 "%s: %lu bloom filters whose bloom_filter_length is not their bytes (%lld, the header "
                 "and bitset modules take %lld)",
                 what, bf_len_bad, (long long)bf_len_said, (long long)bf_len_is);
    for (r = 0; r < nregs; r++)
        count[regs[r].kind]++;
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        TU_CHECK_MSG(count[want[i]] > 0, "%s: no %s module found", what, kind_name[want[i]]);
    for (r = 0; r < nregs; r++) {
        upq_status st = UPQ_DONE;
        if (regs[r].kind == K_CI || regs[r].kind == K_OI)
            st = read_index(data, len, &regs[r], regs[r].kind);
        else if (regs[r].kind == K_BF_HDR)
            st = read_bloom(data, len, &regs[r]);
        if (st != UPQ_DONE && bad++ < 3)
            printf("  %s: %s of row group %u column %u: %s\n", what, kind_name[regs[r].kind], regs[r].rg,
                   regs[r].col, upq_strerror(st));
    }
    TU_CHECK_MSG(bad == 0, "%s: %lu page index or bloom filter modules do not read", what, bad);
    cur_prefix = saved;
}

/* Nonces found in a file: each module once (by where it starts), with its
 * length and CRC so that two copies of one module are told apart from two
 * modules under one nonce. */
enum { N_JOURNAL = K_KINDS, N_FILE_FMD, N_KEY_CHECK, N_JBLOB, N_KINDS };
static const char *nonce_kind[N_KINDS] = {
    "dictionary page header", "dictionary page", "data page header", "data page", "column index",
    "offset index", "footer", "column metadata", "bloom filter header", "bloom filter bitset",
    "journal record", "FILE record's FileMetaData", "column key check", "dictionary blob"};

typedef struct nrec {
    uint8_t n[12];
    uint64_t off;      /* file offset of the module (synthetic for column metadata) */
    uint32_t mlen, mcrc;
    uint8_t kind;
} nrec;

static nrec nfound[1u << 15];
static size_t nnf;
static unsigned long nbad; /* modules whose framing did not fit */

/* The module at mod[0..avail) (its length field first), at `off`. */
static void note_module(const uint8_t *mod, size_t avail, uint64_t off, int kind)
{
    uint64_t ml;
    if (avail < 16 || (ml = (uint64_t)upq_load_le32(mod) + 4u) > avail || ml < 16) {
        nbad++;
        return;
    }
    if (nnf == sizeof nfound / sizeof nfound[0]) {
        nbad++;
        return;
    }
    memcpy(nfound[nnf].n, mod + 4, 12);
    nfound[nnf].off = off;
    nfound[nnf].mlen = (uint32_t)ml;
    nfound[nnf].mcrc = upq_crc32(mod, (size_t)ml);
    nfound[nnf].kind = (uint8_t)kind;
    nnf++;
}

static int cmp_off(const void *a, const void *b)
{
    const nrec *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_nonce(const void *a, const void *b)
{
    const nrec *x = a, *y = b;
    int c = memcmp(x->n, y->n, 12);
    return c ? c : x->off < y->off ? -1 : x->off > y->off;
}

/* The journal's modules: every record of this file in the bytes (the chain
 * and whatever older sessions left beside it: records are told by magic,
 * length, file id and CRC), the FILE record's FileMetaData and key checks,
 * and the dictionary blobs and bloom filters its checkpoints point at (read
 * from the records, decrypted with the footer key). */
static void journal_nonces(const uint8_t *data, size_t len, const mode *m, const upq_file_crypto *fc,
                           unsigned *records)
{
    static uint8_t keymem[1024] __attribute__((aligned(16)));
    static uint8_t buf[1u << 16];
    static uint8_t amem[1u << 20] __attribute__((aligned(16)));
    upq_aes_key *fk = (upq_aes_key *)keymem;
    size_t off;
    uint32_t seed = 0; /* every record but FILE: its CRC starts from the file's nonce */
    *records = 0;
    if (!TU_CHECK_STATUS(upq_aes_setkey(fk, FKEY, 16), UPQ_OK))
        return;
    for (off = 4; off + UPQ_J_MIN <= len; off++) {
        upq_jhdr h;
        const uint8_t *pay;
        size_t pl;
        upq_arena a;
        if (data[off] != 'U' || upq_j_hdr_get(data + off, &h, len - off) != UPQ_OK || h.file_id != FILE_ID ||
            upq_crc32_update(h.type == UPQ_J_FILE ? 0u : seed, data + off, h.len - UPQ_J_CRC) !=
                upq_load_le32(data + off + h.len - UPQ_J_CRC))
            continue;
        (*records)++;
        if (!TU_CHECK_MSG(h.flags & UPQ_J_SEALED, "journal record at %zu not sealed", off))
            continue;
        pay = data + off + UPQ_J_HDR;
        pl = h.len - UPQ_J_MIN;
        upq_arena_init(&a, amem, sizeof amem);
        if (h.type == UPQ_J_FILE) {
            /* the settings in the clear (with the key checks), then the
             * FileMetaData as a module */
            upq_jfile jf;
            size_t used = 0;
            uint32_t i;
            if (!TU_CHECK_STATUS(upq_thrift_decode(&upq_journal_descs[UPQ_JDESC_FILE], &jf, &a, pay, pl, &used,
                                                   NULL),
                                 UPQ_OK))
                continue;
            if (TU_CHECK(UPQ_ISSET(jf, UPQ_JFILE_NONCE) && jf.nonce.len == UPQ_J_NONCE))
                seed = upq_crc32(jf.nonce.ptr, UPQ_J_NONCE);
            note_module(pay + used, pl - used, off + UPQ_J_HDR + used, N_FILE_FMD);
            for (i = 0; i < jf.keys.n; i++) {
                size_t at = find_bytes(pay, used, jf.keys.v[i].check.ptr, jf.keys.v[i].check.len);
                if (TU_CHECK(at != SIZE_MAX))
                    note_module(pay + at, used - at, off + UPQ_J_HDR + at, N_KEY_CHECK);
            }
            continue;
        }
        note_module(pay, pl, off + UPQ_J_HDR, N_JOURNAL);
        if ((h.type == UPQ_J_CKPT || h.type == UPQ_J_RG_END) && pl <= sizeof buf) {
            upq_jckpt ck;
            uint8_t *pt;
            size_t ptl;
            uint32_t i;
            memcpy(buf, pay, pl);
            if (!TU_CHECK_STATUS(upq_crypto_decrypt_module(fc, fk, UPQ_MODULE_JOURNAL, -1, -1, -1, buf, pl,
                                                           &pt, &ptl),
                                 UPQ_OK) ||
                !TU_CHECK_STATUS(upq_thrift_decode(&upq_journal_descs[UPQ_JDESC_CKPT], &ck, &a, pt, ptl, NULL,
                                                   NULL),
                                 UPQ_OK))
                continue;
            for (i = 0; i < ck.cols.n && i < NCOLS; i++) {
                const upq_jcol *j = &ck.cols.v[i];
                if (!col_encrypted(m, i))
                    continue;
                /* blobs still as the record says (CRC): a module each, the
                 * bloom filter two */
                if (UPQ_ISSET(*j, UPQ_JCOL_DICT) && j->dict.off > 0 && j->dict.len > 0 &&
                    (uint64_t)j->dict.off + (uint64_t)j->dict.len <= len &&
                    upq_crc32(data + j->dict.off, (size_t)j->dict.len) == (uint32_t)j->dict.crc)
                    note_module(data + j->dict.off, (size_t)j->dict.len, (uint64_t)j->dict.off, N_JBLOB);
                if (UPQ_ISSET(*j, UPQ_JCOL_BLOOM) && j->bloom.off > 0 && j->bloom_hdr > 0 &&
                    j->bloom.len > j->bloom_hdr && (uint64_t)j->bloom.off + (uint64_t)j->bloom.len <= len &&
                    upq_crc32(data + j->bloom.off, (size_t)j->bloom.len) == (uint32_t)j->bloom.crc) {
                    note_module(data + j->bloom.off, (size_t)j->bloom_hdr, (uint64_t)j->bloom.off, K_BF_HDR);
                    note_module(data + j->bloom.off + j->bloom_hdr, (size_t)(j->bloom.len - j->bloom_hdr),
                                (uint64_t)(j->bloom.off + j->bloom_hdr), K_BF_BITS);
                }
            }
        }
    }
}

/*
 * The 12-byte nonce of every encrypted module of the file data[0..len):
 * page headers, pages, dictionary page headers and pages, column and offset
 * indexes, bloom filter headers and bitsets, column metadata, the footer
 * (or the plaintext footer's signature) and, in checkpoint mode, the
 * journal's. No two different modules may share one.
 */
static void check_nonces(const uint8_t *data, size_t len, const mode *m, const char *what)
{
    static rd x;
    keys k;
    size_t r, i, dup = 0, copies = 0, kinds[N_KINDS] = {0};
    unsigned records = 0;
    const char *saved = cur_prefix;
    nnf = 0;
    nbad = 0;
    cur_prefix = mode_prefix(m);
    map_modules(data, len, m->plain_footer);
    for (r = 0; r < nregs; r++) {
        const region *g = &regs[r];
        if (g->kind == K_FOOTER && m->plain_footer) {
            /* the signature: nonce and tag before the footer's length */
            const uint8_t *sig = data + len - 8 - 28;
            if (nnf < sizeof nfound / sizeof nfound[0]) {
                memcpy(nfound[nnf].n, sig, 12);
                nfound[nnf].off = (uint64_t)(len - 8 - 28);
                nfound[nnf].mlen = 28;
                nfound[nnf].mcrc = upq_crc32(sig, 28);
                nfound[nnf++].kind = K_FOOTER;
            }
            continue;
        }
        note_module(data + g->start - 4, len - (g->start - 4), (uint64_t)(g->start - 4), g->kind);
    }
    /* column metadata: modules inside the footer (decrypted, when it is) */
    memset(&k, 0, sizeof k);
    k.prefix = cur_prefix;
    if (TU_CHECK_STATUS(rd_open(&x, data, len, &k, NULL), UPQ_OK)) {
        const upq_file_metadata *fm = upq_reader_metadata(&x.r);
        uint32_t g, c;
        for (g = 0; g < fm->row_groups.n; g++)
            for (c = 0; c < fm->row_groups.v[g].columns.n; c++) {
                const upq_column_chunk *ch = &fm->row_groups.v[g].columns.v[c];
                if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA))
                    note_module(ch->encrypted_column_metadata.ptr, ch->encrypted_column_metadata.len,
                                (UINT64_C(1) << 62) + (uint64_t)g * 65536u + c, K_COLMETA);
            }
        if (m->ckpt)
            journal_nonces(data, len, m, upq_reader_file_crypto(&x.r), &records);
    }
    TU_CHECK_MSG(nbad == 0, "%s: %lu modules whose framing does not fit", what, nbad);
    /* each module once: where two ways found the same one */
    qsort(nfound, nnf, sizeof nfound[0], cmp_off);
    for (r = 0, i = 0; r < nnf; r++)
        if (i == 0 || nfound[r].off != nfound[i - 1].off)
            nfound[i++] = nfound[r];
    nnf = i;
    for (r = 0; r < nnf; r++)
        kinds[nfound[r].kind]++;
    qsort(nfound, nnf, sizeof nfound[0], cmp_nonce);
    for (r = 1; r < nnf; r++) {
        const nrec *a = &nfound[r - 1], *b = &nfound[r];
        if (memcmp(a->n, b->n, 12) != 0)
            continue;
        if (a->mlen == b->mlen && a->mcrc == b->mcrc) {
            copies++; /* the same module twice: no nonce reused */
            continue;
        }
        if (dup++ < 3)
            printf("  %s: one nonce for the %s at %llu and the %s at %llu\n", what, nonce_kind[a->kind],
                   (unsigned long long)a->off, nonce_kind[b->kind], (unsigned long long)b->off);
    }
    TU_CHECK_MSG(dup == 0, "%s: %zu nonces used twice among %zu modules", what, dup, nnf);
    TU_CHECK_MSG(nnf >= 20 && (!m->ckpt || (records >= 4 && kinds[N_JOURNAL] > 0 && kinds[N_FILE_FMD] == 1)),
                 "%s: only %zu modules (%u journal records) found", what, nnf, records);
    if (copies)
        tu_note("%s: %zu modules stored twice", what, copies);
    cur_prefix = saved;
}

/* ---- checkpoint mode: cut, recovered, resumed -------------------------------------- */

/* A cut file of mode m: the file written (and closed) in *full, with a
 * copy of it at every sync in *sn, under the random source that restarts at
 * every power-up. */
static int cut_file(const mode *m, sink_buf *full, snaps *sn)
{
    upq_status st;
    memset(sn, 0, sizeof *sn);
    cur_snaps = sn;
    wrandom = boot_rnd;
    reboot();
    st = write_file(m, full, SINK_WHOLE, NULL);
    cur_snaps = NULL;
    wrandom = rnd;
    return TU_CHECK_STATUS(st, UPQ_OK) && TU_CHECK(sn->missed == 0);
}

/* The sync nearest `frac` (of 8) of the way through whose checkpoint left
 * some but not all rows durable, above `above` rows. -1 when none. */
static int pick_snap(const snaps *sn, unsigned frac, uint64_t above, uint64_t total)
{
    int best = -1;
    unsigned k;
    long target = (long)(sn->count * frac / 8u), bd = 0;
    for (k = 0; k < sn->count; k++) {
        long d;
        if (sn->durable[k] == UINT64_MAX || sn->durable[k] <= above || sn->durable[k] >= total)
            continue;
        d = (long)k - target;
        if (d < 0)
            d = -d;
        if (best < 0 || d < bd) {
            best = (int)k;
            bd = d;
        }
    }
    return best;
}

static void buf_from(sink_buf *c, const uint8_t *p, size_t n)
{
    sink_init(c, SINK_WHOLE, 1);
    sink_grow(c, n);
    if (n)
        memcpy(c->p, p, n);
}

/* Where a[0..an) and b[0..bn) first differ. */
static size_t first_diff(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t i;
    for (i = 0; i < an && i < bn && a[i] == b[i]; i++)
        ;
    return i;
}

/* c still holds p[0..n) and was never written to. */
static int untouched(const sink_buf *c, const uint8_t *p, size_t n)
{
    return c->n == n && memcmp(c->p, p, n) == 0 && c->writes == 0 && c->writes_at == 0 && c->truncates == 0;
}

static char rec_why[200];

/* upq_recover on c in place: with the keys k (no decrypt options when NULL)
 * and the rebooting random source. */
static upq_status recover_buf(sink_buf *c, const keys *k, int dry, upq_recover_info *info)
{
    static upq_recover_state rs;
    static uint8_t carena[1u << 20] __attribute__((aligned(16)));
    upq_recover_opts ro;
    upq_decrypt_opts d;
    upq_sink sk = sink_of(c, 1);
    unsigned long spins = 0;
    upq_status st;
    memset(&rs, 0, sizeof rs);
    memset(&ro, 0, sizeof ro);
    memset(&d, 0, sizeof d);
    memset(info, 0, sizeof *info);
    d.get_key = get_key;
    d.key_ctx = (void *)(uintptr_t)k;
    if (k && k->prefix) {
        d.aad_prefix = (const uint8_t *)k->prefix;
        d.aad_prefix_len = (uint32_t)strlen(k->prefix);
        d.aad_prefix_given = 1;
    }
    ro.decrypt = k ? &d : NULL;
    ro.random = boot_rnd;
    ro.dry_run = (uint8_t)dry;
    reboot();
    do
        st = upq_recover(&rs, &sk, c->n, carena, sizeof carena, &ro, info);
    while (st == UPQ_AGAIN && ++spins < 10000000ul);
    snprintf(rec_why, sizeof rec_why, "%s (%s)", upq_strerror(st),
             upq_recover_error(&rs)->what ? upq_recover_error(&rs)->what : "");
    return st;
}

/* A writer of mode m on c, as after a reboot (the random source restarted),
 * with a wrong footer or column key when asked. */
static upq_status open_writer(upq_writer *w, const mode *m, sink_buf *c, int wrong_footer, int wrong_column)
{
    static upq_writer_opts o;
    static upq_encrypt_opts e;
    static upq_column_key wk[2];
    static uint8_t bad_fkey[16], bad_ckey[32];
    upq_sink sk = sink_of(c, 1);
    wrandom = boot_rnd;
    set_opts(m, &o, &e, NULL);
    wrandom = rnd;
    if (wrong_footer) {
        memcpy(bad_fkey, FKEY, 16);
        bad_fkey[5] ^= 0x10;
        e.footer_key = bad_fkey;
    }
    if (wrong_column && m->per_column) {
        memcpy(wk, ckeys, sizeof wk);
        memcpy(bad_ckey, CKEY_VAL, 32);
        bad_ckey[0] ^= 1;
        wk[1].key = bad_ckey;
        e.columns = wk;
    }
    reboot();
    return upq_writer_init(w, &sk, elems, build_schema(), warena, sizeof warena, &o);
}

static upq_status resume_buf(upq_writer *w, sink_buf *c)
{
    upq_status st;
    unsigned long spins = 0;
    do
        st = upq_writer_resume(w, c->n);
    while (st == UPQ_AGAIN && ++spins < 10000000ul);
    return st;
}

/* Resumes c's file: 1 when that worked (else a failed check). */
static int resumed(upq_writer *w, sink_buf *c)
{
    upq_status st = resume_buf(w, c);
    return TU_CHECK_MSG(st == UPQ_OK, "resume: %s (%s)", upq_strerror(st),
                        upq_writer_error(w)->what ? upq_writer_error(w)->what : "");
}

/* The file in c read back as a whole: `rows` rows, values and bloom
 * filters (a row group recovery ended has none), every module in place, no
 * nonce twice. */
static void check_whole(const sink_buf *c, const mode *m, uint32_t rows, const char *what)
{
    keys k;
    unsigned long bad = 0;
    memset(&k, 0, sizeof k);
    k.prefix = mode_prefix(m);
    want_rows = rows;
    bloom_optional = 1;
    TU_CHECK(memcmp(c->p, m->plain_footer ? "PAR1" : "PARE", 4) == 0 &&
             memcmp(c->p + c->n - 4, m->plain_footer ? "PAR1" : "PARE", 4) == 0);
    TU_CHECK_MSG(rd_all(c->p, c->n, &k, &bad, NULL) == UPQ_DONE && bad == 0,
                 "%s: does not read back as %u rows (%lu wrong)", what, rows, bad);
    check_row_groups(c->p, c->n, m, rows, what);
    check_modules(c->p, c->n, m, what);
    check_nonces(c->p, c->n, m, what);
    want_rows = 0;
    bloom_optional = 0;
}

/*
 * A file of every mode cut at a sync halfway, recovered: without decrypt
 * options, with a wrong footer key, a wrong column key or a missing AAD
 * prefix it fails and writes nothing; with the keys (a dry run first) it
 * keeps the rows durable at that sync, reads back, authenticates (bit flips
 * in its modules give AUTH) and has no nonce twice; again, it is closed.
 */
static void recover_modes(unsigned long *total)
{
    mode m;
    unsigned ctr, pf, pc, px;
    memset(&m, 0, sizeof m);
    m.ckpt = 1;
    for (ctr = 0; ctr < 2; ctr++)
        for (pf = 0; pf < 2; pf++)
            for (pc = 0; pc < 2; pc++)
                for (px = 0; px < 3; px++) {
                    sink_buf full, c;
                    snaps sn;
                    keys k;
                    upq_recover_info info;
                    upq_status st;
                    char name[160], what[200];
                    int at;
                    m.ctr = (uint8_t)ctr;
                    m.plain_footer = (uint8_t)pf;
                    m.per_column = (uint8_t)pc;
                    m.prefix = (uint8_t)px;
                    mode_name(&m, name, sizeof name);
                    tu_case("recover a cut file: %s", name);
                    if (!cut_file(&m, &full, &sn)) {
                        sink_free(&full);
                        snaps_free(&sn);
                        continue;
                    }
                    at = pick_snap(&sn, 4, 0, nrows);
                    if (!TU_CHECK_MSG(at >= 0, "no sync with part of the rows durable")) {
                        sink_free(&full);
                        snaps_free(&sn);
                        continue;
                    }
                    memset(&k, 0, sizeof k);
                    k.prefix = mode_prefix(&m);
                    /* no decrypt options: refused, nothing written */
                    buf_from(&c, sn.p[at], sn.n[at]);
                    st = recover_buf(&c, NULL, 0, &info);
                    TU_CHECK_MSG(st < 0 && untouched(&c, sn.p[at], sn.n[at]),
                                 "without keys: %s, the file %s", rec_why,
                                 untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                    sink_free(&c);
                    /* a wrong footer key: AUTH, nothing written */
                    k.wrong_footer = 1;
                    buf_from(&c, sn.p[at], sn.n[at]);
                    st = recover_buf(&c, &k, 0, &info);
                    TU_CHECK_MSG(st == UPQ_ERR_AUTH && untouched(&c, sn.p[at], sn.n[at]),
                                 "wrong footer key: %s, the file %s", rec_why,
                                 untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                    sink_free(&c);
                    k.wrong_footer = 0;
                    /* a wrong column key: AUTH (nothing written either) */
                    if (pc) {
                        k.wrong_column = 1;
                        buf_from(&c, sn.p[at], sn.n[at]);
                        st = recover_buf(&c, &k, 0, &info);
                        TU_CHECK_MSG(st == UPQ_ERR_AUTH && untouched(&c, sn.p[at], sn.n[at]),
                                     "wrong column key: %s, the file %s", rec_why,
                                     untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                        sink_free(&c);
                        k.wrong_column = 0;
                    }
                    /* the AAD prefix the file does not store: missing or wrong */
                    if (px == 2) {
                        const char *pfx[2] = {NULL, "table.part8"};
                        int i;
                        for (i = 0; i < 2; i++) {
                            k.prefix = pfx[i];
                            buf_from(&c, sn.p[at], sn.n[at]);
                            st = recover_buf(&c, &k, 0, &info);
                            TU_CHECK_MSG(st == UPQ_ERR_AUTH && untouched(&c, sn.p[at], sn.n[at]),
                                         "%s AAD prefix: %s, the file %s", i ? "wrong" : "no", rec_why,
                                         untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                            sink_free(&c);
                        }
                        k.prefix = mode_prefix(&m);
                    }
                    /* the keys: a dry run, then the recovery */
                    buf_from(&c, sn.p[at], sn.n[at]);
                    st = recover_buf(&c, &k, 1, &info);
                    TU_CHECK_MSG(st == UPQ_OK && info.rows == sn.durable[at] && untouched(&c, sn.p[at], sn.n[at]),
                                 "dry run: %s, %llu rows, want %llu", rec_why, (unsigned long long)info.rows,
                                 (unsigned long long)sn.durable[at]);
                    st = recover_buf(&c, &k, 0, &info);
                    if (TU_CHECK_MSG(st == UPQ_OK && info.rows == sn.durable[at] && !info.was_closed &&
                                         info.file_size == c.n,
                                     "recovery: %s, %llu rows, want %llu", rec_why,
                                     (unsigned long long)info.rows, (unsigned long long)sn.durable[at])) {
                        size_t n0 = c.n;
                        uint8_t *before = (uint8_t *)malloc(n0);
                        snprintf(what, sizeof what, "recovered (%s)", name);
                        check_whole(&c, &m, (uint32_t)info.rows, what);
                        want_rows = (uint32_t)info.rows;
                        bloom_optional = 1;
                        tamper_file(c.p, c.n, &m, 4, total, what);
                        want_rows = 0;
                        bloom_optional = 0;
                        /* once more: closed, nothing changed */
                        memcpy(before, c.p, n0);
                        c.writes = c.writes_at = c.truncates = 0;
                        st = recover_buf(&c, &k, 0, &info);
                        TU_CHECK_MSG(st == UPQ_OK && info.was_closed && untouched(&c, before, n0),
                                     "recovered again: %s", rec_why);
                        free(before);
                    }
                    sink_free(&c);
                    sink_free(&full);
                    snaps_free(&sn);
                }
}

/*
 * Resume with encryption, under a random source that restarts at every
 * power-up: every mode's file cut halfway and resumed (A); recovered first,
 * then resumed (B); resumed, cut again in the second session and resumed
 * once more (C); closed and reopened (D). Each is finished with the rest of
 * the rows and read back whole, every module in place, and no two modules
 * of the file share a nonce. Resuming with a wrong footer or column key
 * fails with UPQ_ERR_AUTH and writes nothing.
 */
static void resume_modes(void)
{
    static upq_writer w;
    mode m;
    unsigned ctr, pf, pc, px;
    memset(&m, 0, sizeof m);
    m.ckpt = 1;
    for (ctr = 0; ctr < 2; ctr++)
        for (pf = 0; pf < 2; pf++)
            for (pc = 0; pc < 2; pc++)
                for (px = 0; px < 3; px++) {
                    sink_buf full, c;
                    snaps sn, sn2;
                    keys k;
                    upq_recover_info info;
                    upq_status st;
                    uint64_t first;
                    char name[160], what[200];
                    int at;
                    m.ctr = (uint8_t)ctr;
                    m.plain_footer = (uint8_t)pf;
                    m.per_column = (uint8_t)pc;
                    m.prefix = (uint8_t)px;
                    mode_name(&m, name, sizeof name);
                    memset(&k, 0, sizeof k);
                    k.prefix = mode_prefix(&m);
                    tu_case("resume a cut file: %s", name);
                    if (!cut_file(&m, &full, &sn)) {
                        sink_free(&full);
                        snaps_free(&sn);
                        continue;
                    }
                    at = pick_snap(&sn, 4, 0, nrows);
                    if (!TU_CHECK_MSG(at >= 0, "no sync with part of the rows durable")) {
                        sink_free(&full);
                        snaps_free(&sn);
                        continue;
                    }
                    /* wrong keys: AUTH, nothing written */
                    buf_from(&c, sn.p[at], sn.n[at]);
                    if (TU_CHECK_STATUS(open_writer(&w, &m, &c, 1, 0), UPQ_OK)) {
                        st = resume_buf(&w, &c);
                        TU_CHECK_MSG(st == UPQ_ERR_AUTH && untouched(&c, sn.p[at], sn.n[at]),
                                     "wrong footer key: %s, the file %s", upq_strerror(st),
                                     untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                    }
                    if (pc && TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 1), UPQ_OK)) {
                        st = resume_buf(&w, &c);
                        TU_CHECK_MSG(st == UPQ_ERR_AUTH && untouched(&c, sn.p[at], sn.n[at]),
                                     "wrong column key: %s, the file %s", upq_strerror(st),
                                     untouched(&c, sn.p[at], sn.n[at]) ? "untouched" : "written to");
                    }
                    sink_free(&c);

                    /* A: cut, resumed, finished */
                    buf_from(&c, sn.p[at], sn.n[at]);
                    if (TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 0), UPQ_OK) &&
                        resumed(&w, &c)) {
                        first = upq_writer_rows(&w);
                        TU_CHECK_UINT(first, sn.durable[at]);
                        st = write_rows(&w, (uint32_t)first, nrows, 1);
                        if (TU_CHECK_MSG(st == UPQ_OK, "after resume: %s (%s)", upq_strerror(st),
                                         upq_writer_error(&w)->what ? upq_writer_error(&w)->what : "")) {
                            snprintf(what, sizeof what, "resumed (%s)", name);
                            check_whole(&c, &m, nrows, what);
                        }
                    }
                    sink_free(&c);

                    /* B: recovered, then resumed (a closed file reopened) */
                    tu_case("recover, then resume: %s", name);
                    buf_from(&c, sn.p[at], sn.n[at]);
                    st = recover_buf(&c, &k, 0, &info);
                    if (TU_CHECK_MSG(st == UPQ_OK, "recovery: %s", rec_why) &&
                        TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 0), UPQ_OK) &&
                        resumed(&w, &c)) {
                        first = upq_writer_rows(&w);
                        TU_CHECK_UINT(first, info.rows);
                        st = write_rows(&w, (uint32_t)first, nrows, 1);
                        if (TU_CHECK_MSG(st == UPQ_OK, "after resume: %s (%s)", upq_strerror(st),
                                         upq_writer_error(&w)->what ? upq_writer_error(&w)->what : "")) {
                            snprintf(what, sizeof what, "recovered and resumed (%s)", name);
                            check_whole(&c, &m, nrows, what);
                        }
                    }
                    sink_free(&c);

                    /* C: resumed, cut again in the second session, resumed again */
                    tu_case("resume, cut again, resume again: %s", name);
                    buf_from(&c, sn.p[at], sn.n[at]);
                    memset(&sn2, 0, sizeof sn2);
                    c.on_sync = snap_on_sync;
                    c.on_sync_ctx = &sn2;
                    cur_snaps = &sn2;
                    if (TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 0), UPQ_OK) &&
                        TU_CHECK_STATUS(resume_buf(&w, &c), UPQ_OK)) {
                        int at2;
                        first = upq_writer_rows(&w);
                        st = write_rows(&w, (uint32_t)first, nrows, 1);
                        cur_snaps = NULL;
                        at2 = pick_snap(&sn2, 4, first, nrows);
                        if (TU_CHECK_STATUS(st, UPQ_OK) &&
                            TU_CHECK_MSG(at2 >= 0, "no sync of the second session with part of the rows")) {
                            sink_buf c2;
                            buf_from(&c2, sn2.p[at2], sn2.n[at2]);
                            if (TU_CHECK_STATUS(open_writer(&w, &m, &c2, 0, 0), UPQ_OK) &&
                                TU_CHECK_STATUS(resume_buf(&w, &c2), UPQ_OK)) {
                                TU_CHECK_UINT(upq_writer_rows(&w), sn2.durable[at2]);
                                st = write_rows(&w, (uint32_t)upq_writer_rows(&w), nrows, 1);
                                if (TU_CHECK_STATUS(st, UPQ_OK)) {
                                    snprintf(what, sizeof what, "resumed twice (%s)", name);
                                    check_whole(&c2, &m, nrows, what);
                                }
                            }
                            sink_free(&c2);
                        }
                    }
                    cur_snaps = NULL;
                    snaps_free(&sn2);
                    sink_free(&c);

                    /* D: half the rows, closed; reopened and finished */
                    tu_case("close, reopen, finish: %s", name);
                    sink_init(&c, SINK_WHOLE, 1);
                    if (TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 0), UPQ_OK) &&
                        TU_CHECK_STATUS(write_rows(&w, 0, nrows / 2u, 1), UPQ_OK) &&
                        TU_CHECK_STATUS(open_writer(&w, &m, &c, 0, 0), UPQ_OK) &&
                        TU_CHECK_STATUS(resume_buf(&w, &c), UPQ_OK)) {
                        TU_CHECK_UINT(upq_writer_rows(&w), nrows / 2u);
                        st = write_rows(&w, (uint32_t)upq_writer_rows(&w), nrows, 1);
                        if (TU_CHECK_STATUS(st, UPQ_OK)) {
                            snprintf(what, sizeof what, "reopened (%s)", name);
                            check_whole(&c, &m, nrows, what);
                        }
                    }
                    sink_free(&c);
                    sink_free(&full);
                    snaps_free(&sn);
                }
}

/* Checkpoint mode through sinks that say "again" (write_at, read_at, sync,
 * truncate) and take short counts: under the same random sequence, the
 * same bytes as through a sink that never does, and they read back. */
static void again_sinks(void)
{
    static const mode ms[] = {{0, 0, 0, 0, 1}, {0, 1, 1, 1, 1}, {1, 0, 1, 2, 1}};
    size_t i;
    for (i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        sink_buf ref, alt;
        keys k;
        unsigned long bad = 0;
        char name[160];
        upq_status st;
        mode_name(&ms[i], name, sizeof name);
        tu_case("a sink that says again: %s", name);
        wrandom = boot_rnd;
        reboot();
        st = write_file(&ms[i], &ref, SINK_WHOLE, NULL);
        reboot();
        if (TU_CHECK_STATUS(st, UPQ_OK) && TU_CHECK_STATUS(write_file(&ms[i], &alt, SINK_AGAIN, NULL), UPQ_OK)) {
            TU_CHECK(alt.agains > 0);
            TU_CHECK_MSG(alt.n == ref.n && memcmp(alt.p, ref.p, ref.n) == 0,
                         "%s: other bytes than through whole calls (%zu vs %zu bytes, first difference at %zu)",
                         name, alt.n, ref.n, first_diff(alt.p, alt.n, ref.p, ref.n));
            memset(&k, 0, sizeof k);
            k.prefix = mode_prefix(&ms[i]);
            st = rd_all(alt.p, alt.n, &k, &bad, NULL);
            TU_CHECK_MSG(st == UPQ_DONE && bad == 0, "%s: read back: %s, %lu wrong", name, upq_strerror(st), bad);
        }
        wrandom = rnd;
        sink_free(&alt);
        sink_free(&ref);
    }
}

/* ---- nonces, budgets, ordinals, refusals ---------------------------------------- */

static int cmp12(const void *a, const void *b)
{
    return memcmp(a, b, 12);
}

static void nonces_and_limits(void)
{
    static upq_writer w;
    static uint8_t nonces[1000000][12];
    upq_writer_opts o;
    upq_encrypt_opts e;
    sink_buf s;
    upq_sink sk;
    uint32_t n = build_schema(), i, dup = 0;
    memset(&o, 0, sizeof o);
    memset(&e, 0, sizeof e);
    e.footer_key = FKEY;
    e.footer_key_len = 16;
    e.random = rnd;
    o.encrypt = &e;
    sink_init(&s, SINK_WHOLE, 1);
    sk = sink_of(&s, 0);
    tu_case("10^6 nonces from the writer's nonce path: no repeat");
    if (!TU_CHECK_STATUS(upq_writer_init(&w, &sk, elems, n, warena, sizeof warena, &o), UPQ_OK))
        return;
    for (i = 0; i < 1000000u; i++)
        if (upq_wc_nonce(&w, &w.wc->footer, nonces[i]) != UPQ_OK)
            break;
    TU_CHECK_UINT(i, 1000000u);
    qsort(nonces, i, 12, cmp12);
    for (n = 1; n < i; n++)
        dup += !memcmp(nonces[n - 1], nonces[n], 12);
    TU_CHECK_UINT(dup, 0);
    tu_case("2^32 GCM invocations per key, then UPQ_ERR_LIMIT");
    w.wc->footer.uses = ((uint64_t)1 << 32) - 1;
    TU_CHECK_STATUS(upq_wc_nonce(&w, &w.wc->footer, nonces[0]), UPQ_OK);
    TU_CHECK_STATUS(upq_wc_nonce(&w, &w.wc->footer, nonces[0]), UPQ_ERR_LIMIT);
    sink_free(&s);

    tu_case("bad keys and no random source: UPQ_ERR_INVAL");
    e.footer_key_len = 15;
    sink_init(&s, SINK_WHOLE, 1);
    sk = sink_of(&s, 0);
    TU_CHECK_STATUS(upq_writer_init(&w, &sk, elems, build_schema(), warena, sizeof warena, &o), UPQ_ERR_INVAL);
    e.footer_key_len = 16;
    e.random = NULL;
    TU_CHECK_STATUS(upq_writer_init(&w, &sk, elems, build_schema(), warena, sizeof warena, &o), UPQ_ERR_INVAL);
    sink_free(&s);
}

static void page_ordinal_limit(void)
{
    static upq_writer w;
    upq_schema_element el[2];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_encrypt_opts e;
    sink_buf s;
    upq_sink sk;
    uint32_t n = 0, i;
    upq_status st = UPQ_OK;
    tu_case("page ordinal 32768 in a chunk: UPQ_ERR_LIMIT, not a wrapped AAD");
    upq_sb_init(&b, el, 2, "m");
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_finish(&b, &n);
    memset(&o, 0, sizeof o);
    memset(&e, 0, sizeof e);
    e.footer_key = FKEY;
    e.footer_key_len = 16;
    e.random = rnd;
    o.encrypt = &e;
    o.page_size = 64;
    o.page_levels = 8;
    o.no_page_index = 1;
    o.no_statistics = 1;
    o.no_crc = 1;
    o.chunk_size = 6u << 20;
    sink_init(&s, SINK_WHOLE, 1);
    sk = sink_of(&s, 0);
    if (!TU_CHECK_STATUS(upq_writer_init(&w, &sk, el, n, warena, sizeof warena, &o), UPQ_OK))
        return;
    for (i = 0; i < 8u * 32770u && st == UPQ_OK; i++) {
        int32_t v = (int32_t)i;
        st = upq_writer_set(&w, 0, &v);
        if (st == UPQ_OK)
            st = upq_writer_end_row(&w);
    }
    TU_CHECK_STATUS(st, UPQ_ERR_LIMIT);
    TU_CHECK_MSG(i > 8u * 32767u, "failed early, at row %u", i);
    sink_free(&s);
}

/* upq_crypto_decrypt_module over modules of every type, as bloom filter and
 * page index readers use it. */
static void module_api(void)
{
    static uint8_t keymem[1024] __attribute__((aligned(16)));
    upq_aes_key *k = (upq_aes_key *)keymem;
    upq_file_crypto fc;
    uint8_t plain[300], buf[400], nonce[12];
    uint8_t *pt;
    size_t n, pl;
    int type;
    tu_case("module encrypt/decrypt for every module type; wrong ordinals and types fail");
    memset(&fc, 0, sizeof fc);
    fc.algorithm = UPQ_CRYPTO_AES_GCM_V1;
    fc.aad_file_unique.ptr = (const uint8_t *)"12345678";
    fc.aad_file_unique.len = 8;
    TU_CHECK_STATUS(upq_aes_setkey(k, FKEY, 16), UPQ_OK);
    for (type = UPQ_MODULE_FOOTER; type <= UPQ_MODULE_BLOOM_BITSET; type++) {
        size_t i;
        for (i = 0; i < sizeof plain; i++)
            plain[i] = (uint8_t)(i * 7 + (size_t)type);
        rnd(NULL, nonce, 12);
        TU_CHECK_STATUS(upq_crypto_encrypt_module(&fc, k, type, 3, 5, 9, nonce, plain, sizeof plain, buf, sizeof buf, &n), UPQ_OK);
        TU_CHECK_UINT(n, sizeof plain + 32);
        {
            uint8_t b2[400];
            memcpy(b2, buf, n);
            TU_CHECK_STATUS(upq_crypto_decrypt_module(&fc, k, type, 3, 5, 9, b2, n, &pt, &pl), UPQ_OK);
            TU_CHECK_UINT(pl, sizeof plain);
            TU_CHECK_MEM(pt, plain, sizeof plain);
            /* another ordinal or module type: the AAD differs */
            if (type != UPQ_MODULE_FOOTER) {
                memcpy(b2, buf, n);
                TU_CHECK_STATUS(upq_crypto_decrypt_module(&fc, k, type, 4, 5, 9, b2, n, &pt, &pl), UPQ_ERR_AUTH);
            }
            memcpy(b2, buf, n);
            TU_CHECK_STATUS(upq_crypto_decrypt_module(&fc, k, type == 9 ? 8 : type + 1, 3, 5, 9, b2, n, &pt, &pl), UPQ_ERR_AUTH);
            memcpy(b2, buf, n);
            TU_CHECK_STATUS(upq_crypto_decrypt_module(&fc, k, type, 3, 5, 9, b2, n - 1, &pt, &pl), UPQ_ERR_CORRUPT);
        }
    }
    TU_CHECK_STATUS(upq_crypto_encrypt_module(&fc, k, UPQ_MODULE_DATA_PAGE, 0, 0, 32768, nonce, plain, 10, buf, sizeof buf, &n), UPQ_ERR_LIMIT);
    TU_CHECK_STATUS(upq_crypto_encrypt_module(&fc, k, UPQ_MODULE_BLOOM_HEADER, 40000, 0, -1, nonce, plain, 10, buf, sizeof buf, &n), UPQ_ERR_LIMIT);
}

int main(void)
{
    unsigned long flips = 0;
    mode gcm_enc = {0, 0, 1, 1, 0}, gcm_plain = {0, 1, 0, 0, 0}, ctr_enc = {1, 0, 1, 0, 0};
    mode gcm_enc_ck = {0, 0, 1, 1, 1}, gcm_plain_ck = {0, 1, 0, 0, 1}, ctr_enc_ck = {1, 0, 1, 0, 1};
    mode gcm_supplied_ck = {0, 0, 0, 2, 1};
#if !UPQ_WITH_CRYPTO
    tu_note("skipped: this build has no crypto (UPQ_WITH_CRYPTO=0; run make deps)");
    return tu_summary();
#endif
    roundtrip_modes(0);
    roundtrip_modes(1);
    module_api();
    nrows = 1200u; /* still three row groups of several pages */
    tamper(&gcm_enc, 200, &flips);
    tamper(&gcm_plain, 60, &flips);
    tamper(&ctr_enc, 40, &flips);
    tamper_colmeta(0, 150, &flips);
    /* the same in checkpoint mode (its files closed) */
    tamper(&gcm_enc_ck, 100, &flips);
    tamper(&gcm_plain_ck, 40, &flips);
    tamper(&ctr_enc_ck, 30, &flips);
    tamper(&gcm_supplied_ck, 30, &flips);
    tamper_colmeta(1, 60, &flips);
    /* checkpoint-mode files cut, recovered and resumed */
    recover_modes(&flips);
    resume_modes();
    again_sinks();
    tu_note("%lu bit flips in all", flips);
    TU_CHECK(flips >= 4000);
    nonces_and_limits();
    page_ordinal_limit();
    return tu_summary();
}
