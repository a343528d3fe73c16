/*
 * Writing encrypted files and reading them back:
 *  - every mode: AES_GCM_V1 / AES_GCM_CTR_V1 x encrypted ("PARE") / signed
 *    plaintext footer x uniform / per-column keys x AAD prefix stored / not
 *    stored (and none), with dictionaries, page index, CRCs, three row
 *    groups, bloom filters on id, name and val (two GCM modules each for
 *    an encrypted column); values read back equal the input, and every
 *    value present answers "maybe" from its row group's filter;
 *  - tampering: single bit flips at sampled positions inside every kind of
 *    GCM-protected module (page headers, pages, dictionary page headers and
 *    pages, column and offset indexes, bloom filter headers and bitsets,
 *    column metadata, footer / footer signature) give UPQ_ERR_AUTH and
 *    never data (nor a bloom filter answer); flips in CTR pages never
 *    crash (run under ASan+UBSan by make check-asan);
 *  - wrong keys, missing keys and a missing AAD prefix fail with
 *    UPQ_ERR_AUTH; unencrypted columns of a plaintext-footer file read
 *    without keys;
 *  - the nonce source: 10^6 nonces without a repeat; the 2^32 budget per
 *    key; page ordinals past 32767 refused, not wrapped; checkpoint mode
 *    refused; upq_crypto_decrypt_module (the call bloom filters use) on
 *    modules of every type.
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
#include "writer_int.h"
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
} mode;

static void mode_name(const mode *m, char *buf, size_t n)
{
    snprintf(buf, n, "%s, %s footer, %s keys, %s", m->ctr ? "GCM_CTR" : "GCM",
             m->plain_footer ? "plaintext" : "encrypted", m->per_column ? "per-column" : "uniform",
             m->prefix == 0 ? "no AAD prefix" : m->prefix == 1 ? "AAD prefix stored" : "AAD prefix supplied");
}

static upq_column_key ckeys[2];
static upq_column_opts copts[NCOLS];

static upq_status write_file(const mode *m, sink_buf *s, int sink_mode, const upq_writer_opts *extra)
{
    static upq_writer w;
    upq_writer_opts o;
    upq_encrypt_opts e;
    upq_sink sk;
    uint32_t n = build_schema(), i;
    upq_status st;
    memset(&o, 0, sizeof o);
    if (extra)
        o = *extra;
    else {
        o.page_size = 512;
        o.row_group_rows = nrows / 3u + 1u; /* three row groups */
        o.codec = UPQ_CODEC_SNAPPY;
        /* bloom filters on every column that can have one */
        memset(copts, 0, sizeof copts);
        for (i = 0; i < 3; i++) {
            copts[i].bloom = 1;
            copts[i].bloom_ndv = nrows / 3u + 1u;
        }
        o.columns = copts;
        o.ncolumns = NCOLS;
    }
    memset(&e, 0, sizeof e);
    e.algorithm = m->ctr ? UPQ_CRYPTO_AES_GCM_CTR_V1 : UPQ_CRYPTO_AES_GCM_V1;
    e.plaintext_footer = m->plain_footer;
    e.footer_key = FKEY;
    e.footer_key_len = 16;
    e.footer_key_metadata = (const uint8_t *)"kf";
    e.footer_key_metadata_len = 2;
    if (m->per_column) {
        ckeys[0].column = 0;
        ckeys[0].key = CKEY_ID;
        ckeys[0].key_len = 24;
        ckeys[0].key_metadata = (const uint8_t *)"kid";
        ckeys[0].key_metadata_len = 3;
        ckeys[1].column = 2;
        ckeys[1].key = CKEY_VAL;
        ckeys[1].key_len = 32;
        e.columns = ckeys;
        e.ncolumns = 2;
    }
    if (m->prefix) {
        e.aad_prefix = (const uint8_t *)"table.part7";
        e.aad_prefix_len = 11;
        e.no_store_aad_prefix = m->prefix == 2;
    }
    e.random = rnd;
    o.encrypt = &e;
    sink_init(s, sink_mode, 7);
    sk = sink_of(s, 0);
    st = upq_writer_init(&w, &sk, elems, n, warena, sizeof warena, &o);
    if (st != UPQ_OK)
        return st;
    for (i = 0; i < nrows && st == UPQ_OK; i++) {
        int64_t id = v_id(i);
        double val = v_val(i);
        uint8_t flag = v_flag(i);
        char nm[24];
        upq_bytes b;
        v_name(i, nm);
        b.ptr = (const uint8_t *)nm;
        b.len = (uint32_t)strlen(nm);
        do
            st = upq_writer_set(&w, 0, &id);
        while (st == UPQ_AGAIN);
        if (st == UPQ_OK) {
            do
                st = name_null(i) ? upq_writer_set_null(&w, 1) : upq_writer_set(&w, 1, &b);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = val_null(i) ? upq_writer_set_null(&w, 2) : upq_writer_set(&w, 2, &val);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = upq_writer_set(&w, 3, &flag);
            while (st == UPQ_AGAIN);
        }
        if (st == UPQ_OK) {
            do
                st = upq_writer_end_row(&w);
            while (st == UPQ_AGAIN);
        }
    }
    if (st == UPQ_OK)
        do
            st = upq_writer_close(&w);
        while (st == UPQ_AGAIN);
    return st;
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

typedef struct rd {
    upq_reader r;
    tu_mem_src mem;
    tu_flaky fl;
    upq_decrypt_opts d;
} rd;

static upq_status rd_open(rd *x, const uint8_t *data, size_t len, keys *k, const tu_flaky_cfg *cfg)
{
    upq_io io;
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
    if (row != nrows)
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

static void roundtrip_modes(void)
{
    mode m;
    unsigned ctr, pf, pc, px;
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
                    if (!TU_CHECK_STATUS(write_file(&m, &s, (ctr + pf + px) % 2 ? SINK_AGAIN : SINK_WHOLE, NULL), UPQ_OK)) {
                        sink_free(&s);
                        continue;
                    }
                    TU_CHECK(memcmp(s.p + s.n - 4, pf ? "PAR1" : "PARE", 4) == 0);
                    TU_CHECK(memcmp(s.p, pf ? "PAR1" : "PARE", 4) == 0);
                    memset(&k, 0, sizeof k);
                    k.prefix = px == 2 ? "table.part7" : NULL;
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

/* Every module's protected bytes (nonce, ciphertext, tag) of a file. */
static void map_modules(const uint8_t *data, size_t len, int plain_footer)
{
    static rd x;
    keys k;
    const upq_file_metadata *m;
    uint32_t g, c;
    size_t flen = upq_load_le32(data + len - 8), fstart = len - 8 - flen;
    memset(&k, 0, sizeof k);
    nregs = 0;
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
                /* header module, then bitset module: each past its length */
                size_t bo = (size_t)md->bloom_filter_offset, hl = upq_load_le32(data + bo);
                size_t bend = bo + (size_t)md->bloom_filter_length;
                TU_CHECK_UINT(bend - (bo + 4 + hl + 4), upq_load_le32(data + bo + 4 + hl));
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

/* Flips `flips` sampled bits per region kind; GCM modules must say AUTH. */
static void tamper(const mode *m, unsigned per_kind, unsigned long *total)
{
    sink_buf s;
    uint8_t *copy;
    uint64_t rng = tu_seed() ^ 0x5eed;
    char name[160];
    int kind;
    mode_name(m, name, sizeof name);
    if (!TU_CHECK_STATUS(write_file(m, &s, SINK_WHOLE, NULL), UPQ_OK))
        return;
    map_modules(s.p, s.n, m->plain_footer);
    copy = malloc(s.n);
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
            memcpy(copy, s.p, s.n);
            copy[pos] ^= (uint8_t)(1u << tu_rand_below(&rng, 8));
            memset(&k, 0, sizeof k);
            if (kind == K_CI || kind == K_OI)
                st = read_index(copy, s.n, g, kind);
            else if (kind == K_BF_HDR || kind == K_BF_BITS)
                st = read_bloom(copy, s.n, g);
            else
                st = rd_all(copy, s.n, &k, &bad, NULL);
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
            TU_CHECK_MSG(data_out == 0 && auth > 0, "%u of %u flips gave data", data_out, per_kind);
            tu_note("plaintext footer flips: %u AUTH, %u unparsable (corrupt)", auth, other);
        } else {
            TU_CHECK_MSG(auth == per_kind, "%u of %u flips gave AUTH (%u data, %u other errors)", auth,
                         per_kind, data_out, other);
        }
    }
    free(copy);
    sink_free(&s);
}

/* ColumnMetaData modules: a plaintext-footer per-column file read with the
 * column keys but no footer key (so the signature is not checked and the
 * encrypted column metadata is what catches the flip). */
static void tamper_colmeta(unsigned flips, unsigned long *total)
{
    mode m = {0, 1, 1, 0};
    sink_buf s;
    static rd x;
    keys k;
    uint64_t rng = tu_seed() ^ 0xc01;
    uint8_t *copy;
    uint32_t g, c;
    unsigned t, auth = 0;
    tu_case("tamper: %u bit flips in encrypted column metadata", flips);
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

    tu_case("checkpoint mode with encryption: refused");
    o.checkpoint = 1;
    sink_init(&s, SINK_WHOLE, 1);
    sk = sink_of(&s, 1);
    TU_CHECK_STATUS(upq_writer_init(&w, &sk, elems, build_schema(), warena, sizeof warena, &o),
                    UPQ_ERR_UNSUPPORTED);
    sink_free(&s);
    o.checkpoint = 0;
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
    mode gcm_enc = {0, 0, 1, 1}, gcm_plain = {0, 1, 0, 0}, ctr_enc = {1, 0, 1, 0};
#if !UPQ_WITH_CRYPTO
    tu_note("skipped: this build has no crypto (UPQ_WITH_CRYPTO=0; run make deps)");
    return tu_summary();
#endif
    roundtrip_modes();
    module_api();
    nrows = 1200u; /* still three row groups of several pages */
    tamper(&gcm_enc, 200, &flips);
    tamper(&gcm_plain, 60, &flips);
    tamper(&ctr_enc, 40, &flips);
    tamper_colmeta(150, &flips);
    tu_note("%lu bit flips in all", flips);
    TU_CHECK(flips >= 2000);
    nonces_and_limits();
    page_ordinal_limit();
    return tu_summary();
}
