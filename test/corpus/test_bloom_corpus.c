/*
 * Bloom filters written by other implementations (parquet-testing):
 *   bloom_filter.xxhash.bin   parquet-mr's filter holding "hello", "parquet",
 *                             "bloom", "filter" (header + 1024-byte bitset)
 *   data_index_bloom_encoding_stats.parquet, ..._with_length.parquet
 *                             a STRING column with a filter (the second also
 *                             sets bloom_filter_length)
 * Every value the column holds (read with our column reader) must answer
 * "maybe"; values it does not hold should mostly answer "absent" (how many
 * do is printed). The filters are read through every I/O chunking.
 *   encrypt_columns_and_footer_bloom_filter.parquet.encrypted
 *                             parquet-mr's encrypted file (keys in KEYS.md):
 *                             the filters of double_field and float_field
 *                             (column keys) are two GCM modules each; the
 *                             same checks, plus a missing key, a wrong key
 *                             and bit flips in both modules give UPQ_ERR_AUTH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "format/meta_desc.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

static const char *const absent_words[] = {
    "hello", "HELLO", "Hello ", "dog ", "Dog", "the", "quick", "brown", "fox", "lazy", "doing",
    "are", "you", "This", "is", "", "parquet", "bloom", "filter", "today ", "jumps over",
};

static void test_xxhash_bin(void)
{
    char path[1024];
    uint8_t *data = NULL;
    size_t len = 0, used = 0, i;
    upq_bloom_filter_header h;
    upq_bloom f;
    unsigned absent = 0, tried = 0;
    static const char *const inserted[] = {"hello", "parquet", "bloom", "filter"};

    tu_case("bloom_filter.xxhash.bin (parquet-mr)");
    snprintf(path, sizeof path, "%s/data/bloom_filter.xxhash.bin", tu_corpus_dir());
    if (!TU_CHECK_MSG(tu_read_file(path, &data, &len) == 0, "cannot read %s", path))
        return;
    TU_CHECK_STATUS(upq_thrift_decode(&upq_bloom_filter_header_desc, &h, NULL, data, len, &used,
                                      NULL),
                    UPQ_OK);
    TU_CHECK_UINT(used, 16);
    TU_CHECK_INT(h.num_bytes, 1024);
    TU_CHECK(UPQ_ISSET(h.algorithm, UPQ_BLOOM_FILTER_ALGORITHM_BLOCK));
    TU_CHECK(UPQ_ISSET(h.hash, UPQ_BLOOM_FILTER_HASH_XXHASH));
    TU_CHECK(UPQ_ISSET(h.compression, UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED));
    if (!TU_CHECK_UINT(len, used + 1024)) {
        free(data);
        return;
    }
    f.bits = data + used;
    f.num_bytes = 1024;
    for (i = 0; i < 4; i++)
        TU_CHECK_MSG(upq_bloom_check(&f, upq_xxh64(inserted[i], strlen(inserted[i]), 0)),
                     "\"%s\" was inserted", inserted[i]);
    for (i = 0; i < sizeof absent_words / sizeof absent_words[0]; i++) {
        const char *w = absent_words[i];
        if (strcmp(w, "hello") == 0 || strcmp(w, "parquet") == 0 || strcmp(w, "bloom") == 0 ||
            strcmp(w, "filter") == 0)
            continue;
        tried++;
        absent += !upq_bloom_check(&f, upq_xxh64(w, strlen(w), 0));
    }
    for (i = 0; i < 1000; i++) {
        char w[32];
        int n = snprintf(w, sizeof w, "absent-%u", (unsigned)i);
        tried++;
        absent += !upq_bloom_check(&f, upq_xxh64(w, (size_t)n, 0));
    }
    tu_note("bloom_filter.xxhash.bin: %u of %u values not inserted answer absent", absent, tried);
    /* 4 values in 32 blocks: a false positive is a rare event */
    TU_CHECK_MSG(absent * 100u >= tried * 99u, "only %u of %u absent", absent, tried);
    free(data);
}

static uint64_t footer_len(const uint8_t *d, size_t len)
{
    const uint8_t *t = d + len - 8;
    return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
}

typedef struct src {
    tu_mem_src mem;
    tu_flaky flaky;
    upq_io io;
    upq_reader r;
    uint8_t *arena;
} src;

static int open_src(src *s, const uint8_t *data, size_t len, const tu_flaky_cfg *cfg, uint64_t seed)
{
    upq_status st;
    memset(s, 0, sizeof *s);
    tu_mem_src_init(&s->mem, data, len);
    tu_flaky_init(&s->flaky, cfg, tu_mem_read_at, &s->mem, seed);
    s->io.ctx = &s->flaky;
    s->io.read_at = tu_flaky_read_at;
    s->io.size = len;
    s->arena = (uint8_t *)malloc(1u << 20);
    upq_reader_init(&s->r, &s->io, s->arena, 1u << 20, NULL);
    do
        st = upq_reader_open(&s->r);
    while (st == UPQ_AGAIN);
    return TU_CHECK_STATUS(st, UPQ_OK);
}

static upq_status load(upq_reader *r, upq_bloom_reader *br, uint32_t col)
{
    upq_status st = upq_bloom_open(br, r, 0, col);
    if (st == UPQ_OK)
        do
            st = upq_bloom_load(br);
        while (st == UPQ_AGAIN);
    return st;
}

static void test_file(const char *name, int with_length)
{
    char path[1024];
    uint8_t *data = NULL;
    size_t len = 0, c;
    src s;
    upq_bloom_reader br;
    upq_column_reader cr;
    const upq_column_metadata *m;
    uint16_t def[64];
    upq_bytes vals[64];
    upq_batch b = {def, NULL, vals, 64, 0, 0};
    upq_status st;
    unsigned present = 0, maybe_present = 0, absent = 0, tried = 0;
    uint8_t *ref = NULL;
    uint32_t ref_len = 0;
    uint64_t start;

    tu_case("%s", name);
    snprintf(path, sizeof path, "%s/data/%s", tu_corpus_dir(), name);
    if (!TU_CHECK_MSG(tu_read_file(path, &data, &len) == 0, "cannot read %s", path))
        return;
    if (!open_src(&s, data, len, &tu_flaky_cfgs[0], 1))
        goto out;
    m = &upq_reader_chunk(&s.r, 0, 0)->meta_data;
    start = (uint64_t)m->bloom_filter_offset;
    TU_CHECK_UINT(UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH), (unsigned)with_length);
    if (!TU_CHECK_STATUS(load(&s.r, &br, 0), UPQ_OK))
        goto out;
    if (with_length) /* the length covers exactly the header and the bitset */
        TU_CHECK_UINT(br.pos + upq_bloom_filter(&br)->num_bytes,
                      (uint64_t)m->bloom_filter_offset + (uint64_t)m->bloom_filter_length);
    ref_len = upq_bloom_filter(&br)->num_bytes;
    ref = (uint8_t *)malloc(ref_len);
    memcpy(ref, upq_bloom_filter(&br)->bits, ref_len);
    /* every value of the column: maybe (the column reader goes above the filter
     * in the arena; the filter stays until closed) */
    if (TU_CHECK_STATUS(upq_column_open(&cr, &s.r, 0, 0), UPQ_OK)) {
        while ((st = upq_column_read(&cr, &b)) == UPQ_OK || st == UPQ_AGAIN) {
            size_t i;
            for (i = 0; i < b.values_n; i++) {
                int maybe = 0;
                TU_CHECK_STATUS(upq_bloom_might_contain(&br, &vals[i], &maybe), UPQ_OK);
                present++;
                maybe_present += (unsigned)maybe;
            }
        }
        TU_CHECK_STATUS(st, UPQ_DONE);
        upq_column_close(&cr);
    }
    TU_CHECK_UINT(present, 14);
    TU_CHECK_UINT(maybe_present, present);
    for (c = 0; c < sizeof absent_words / sizeof absent_words[0] + 1000; c++) {
        char w[32];
        upq_bytes v;
        int maybe = 1;
        if (c < sizeof absent_words / sizeof absent_words[0]) {
            v.ptr = (const uint8_t *)absent_words[c];
            v.len = (uint32_t)strlen(absent_words[c]);
        } else {
            v.len = (uint32_t)snprintf(w, sizeof w, "absent-%u", (unsigned)c);
            v.ptr = (const uint8_t *)w;
        }
        TU_CHECK_STATUS(upq_bloom_might_contain(&br, &v, &maybe), UPQ_OK);
        tried++;
        absent += !maybe;
    }
    tu_note("%s: %u of %u values the column lacks answer absent", name, absent, tried);
    TU_CHECK_MSG(absent * 100u >= tried * 99u, "only %u of %u absent", absent, tried);
    upq_bloom_close(&br);
    free(s.arena);
    /* every chunking reads the same bitset */
    for (c = 1; c < tu_flaky_ncfgs; c++) {
        src s2;
        upq_bloom_reader b2;
        if (open_src(&s2, data, len, &tu_flaky_cfgs[c], tu_seed() + c) &&
            TU_CHECK_STATUS(load(&s2.r, &b2, 0), UPQ_OK))
            TU_CHECK_MSG(upq_bloom_filter(&b2)->num_bytes == ref_len &&
                             memcmp(upq_bloom_filter(&b2)->bits, ref, ref_len) == 0,
                         "chunking %s: another bitset", tu_flaky_cfgs[c].name);
        free(s2.arena);
    }
    /* every truncation of the filter's bytes is an error, never a filter */
    {
        uint64_t cut;
        for (cut = start; cut < start + 16 + ref_len; cut += cut < start + 32 ? 1 : 97) {
            tu_cut_src cs;
            upq_reader r3;
            upq_io io = {0};
            uint8_t *arena = (uint8_t *)malloc(1u << 20);
            upq_bloom_reader b3;
            memset(&cs, 0, sizeof cs);
            tu_mem_src_init(&cs.mem, data, len);
            cs.cut = cut;
            cs.footer_start = len - 8 - footer_len(data, len);
            io.ctx = &cs;
            io.read_at = tu_cut_read_at;
            io.size = len;
            upq_reader_init(&r3, &io, arena, 1u << 20, NULL);
            if (TU_CHECK_STATUS(upq_reader_open(&r3), UPQ_OK)) {
                st = load(&r3, &b3, 0);
                TU_CHECK_MSG(st == UPQ_ERR_TRUNCATED, "cut at %llu: %s", (unsigned long long)cut,
                             upq_strerror(st));
            }
            free(arena);
        }
    }
out:
    free(ref);
    free(data);
}

/* ---- the encrypted file ---------------------------------------------------- */

typedef struct ekeys {
    int no_column, wrong_column;
} ekeys;

/* Keys as KEYS.md lists them: footer "kf", columns "kc1" and "kc2". */
static upq_status ekey(void *ctx, const upq_bytes *md, const upq_bytes_list *path, uint8_t *key,
                       size_t *len)
{
    const ekeys *k = ctx;
    if (!path || (md->len == 2 && memcmp(md->ptr, "kf", 2) == 0)) {
        memcpy(key, "0123456789012345", 16);
    } else if (md->len == 3 && memcmp(md->ptr, "kc", 2) == 0 &&
               (md->ptr[2] == '1' || md->ptr[2] == '2')) {
        if (k->no_column)
            return UPQ_ERR_AUTH;
        memcpy(key, "123456789012345", 15);
        key[15] = (uint8_t)(md->ptr[2] == '1' ? '0' : '1');
        if (k->wrong_column)
            key[5] ^= 0x20;
    } else {
        return UPQ_ERR_AUTH;
    }
    *len = 16;
    return UPQ_OK;
}

static upq_decrypt_opts edec;

static upq_status open_enc(src *s, const uint8_t *data, size_t len, const tu_flaky_cfg *cfg,
                           uint64_t seed, ekeys *k)
{
    upq_reader_opts o;
    upq_status st;
    memset(s, 0, sizeof *s);
    memset(&o, 0, sizeof o);
    memset(&edec, 0, sizeof edec);
    edec.get_key = ekey;
    edec.key_ctx = k;
    o.decrypt = &edec;
    tu_mem_src_init(&s->mem, data, len);
    tu_flaky_init(&s->flaky, cfg, tu_mem_read_at, &s->mem, seed);
    s->io.ctx = &s->flaky;
    s->io.read_at = tu_flaky_read_at;
    s->io.size = len;
    s->arena = (uint8_t *)malloc(1u << 20);
    upq_reader_init(&s->r, &s->io, s->arena, 1u << 20, &o);
    do
        st = upq_reader_open(&s->r);
    while (st == UPQ_AGAIN);
    return st;
}

/* Value i of the column as a double (0: DOUBLE, 1: FLOAT). */
static double val_at(const void *vals, uint32_t col, size_t i)
{
    return col == 0 ? ((const double *)vals)[i] : (double)((const float *)vals)[i];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_encrypted_col(const uint8_t *data, size_t len, uint32_t col, const char *name)
{
    src s;
    ekeys k;
    upq_bloom_reader br;
    upq_column_reader cr;
    const upq_column_metadata *m;
    double dv[64], *seen = (double *)malloc(4096 * sizeof(double));
    float fv[64];
    upq_batch b;
    upq_status st;
    size_t nseen = 0, c;
    unsigned present = 0, maybe_present = 0, absent = 0, tried = 0;
    uint8_t *ref = NULL;
    uint32_t ref_len = 0, hmod;
    uint64_t off, flen;

    tu_case("encrypt_columns_and_footer_bloom_filter: %s (column key, two GCM modules)", name);
    memset(&k, 0, sizeof k);
    if (!TU_CHECK_STATUS(open_enc(&s, data, len, &tu_flaky_cfgs[0], 1, &k), UPQ_OK))
        goto out;
    TU_CHECK(UPQ_ISSET(*upq_reader_chunk(&s.r, 0, col), UPQ_COLUMN_CHUNK_CRYPTO_METADATA));
    m = &upq_reader_chunk(&s.r, 0, col)->meta_data;
    if (!TU_CHECK(UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET) &&
                  UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH)))
        goto out;
    off = (uint64_t)m->bloom_filter_offset;
    flen = (uint64_t)m->bloom_filter_length;
    if (!TU_CHECK_STATUS(load(&s.r, &br, col), UPQ_OK))
        goto out;
    ref_len = upq_bloom_filter(&br)->num_bytes;
    /* the length covers the header module and the bitset module exactly */
    hmod = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8 | (uint32_t)data[off + 2] << 16 |
           (uint32_t)data[off + 3] << 24;
    TU_CHECK_UINT(4u + hmod + 32u + ref_len, flen);
    ref = (uint8_t *)malloc(ref_len);
    memcpy(ref, upq_bloom_filter(&br)->bits, ref_len);
    memset(&b, 0, sizeof b);
    b.values = col == 0 ? (void *)dv : (void *)fv;
    b.cap = 64;
    if (TU_CHECK_STATUS(upq_column_open(&cr, &s.r, 0, col), UPQ_OK)) {
        while ((st = upq_column_read(&cr, &b)) == UPQ_OK || st == UPQ_AGAIN) {
            size_t i;
            for (i = 0; i < b.values_n; i++) {
                int maybe = 0;
                TU_CHECK_STATUS(upq_bloom_might_contain(&br, col == 0 ? (const void *)&dv[i]
                                                                      : (const void *)&fv[i],
                                                        &maybe),
                                UPQ_OK);
                if (nseen < 4096)
                    seen[nseen++] = val_at(b.values, col, i);
                present++;
                maybe_present += (unsigned)maybe;
            }
        }
        TU_CHECK_STATUS(st, UPQ_DONE);
        upq_column_close(&cr);
    }
    TU_CHECK_UINT(present, 2000);
    TU_CHECK_UINT(maybe_present, present);
    /* values the column lacks (checked against what it holds) */
    qsort(seen, nseen, sizeof *seen, cmp_double);
    for (c = 0; c < 3000; c++) {
        double d = (double)c * 0.75 - 1000.125;
        float f = (float)d;
        int maybe = 1;
        double key = col == 0 ? d : (double)f;
        if (bsearch(&key, seen, nseen, sizeof *seen, cmp_double))
            continue;
        TU_CHECK_STATUS(upq_bloom_might_contain(&br, col == 0 ? (const void *)&d : (const void *)&f,
                                                &maybe),
                        UPQ_OK);
        tried++;
        absent += !maybe;
    }
    tu_note("%s: %u of %u values the column lacks answer absent (%u-byte bitset, expected "
            "false-positive rate %.3f)", name, absent, tried, ref_len,
            upq_bloom_fpp(2000, ref_len));
    TU_CHECK_MSG(absent * 100u >= tried * 90u, "only %u of %u absent", absent, tried);
    upq_bloom_close(&br);
    free(s.arena);
    s.arena = NULL;
    /* every chunking reads the same bitset */
    for (c = 1; c < tu_flaky_ncfgs; c++) {
        src s2;
        upq_bloom_reader b2;
        if (TU_CHECK_STATUS(open_enc(&s2, data, len, &tu_flaky_cfgs[c], tu_seed() + c, &k), UPQ_OK) &&
            TU_CHECK_STATUS(load(&s2.r, &b2, col), UPQ_OK))
            TU_CHECK_MSG(upq_bloom_filter(&b2)->num_bytes == ref_len &&
                             memcmp(upq_bloom_filter(&b2)->bits, ref, ref_len) == 0,
                         "chunking %s: another bitset", tu_flaky_cfgs[c].name);
        free(s2.arena);
    }
    /* no column key: the footer opens, the filter says AUTH naming the column */
    k.no_column = 1;
    if (TU_CHECK_STATUS(open_enc(&s, data, len, &tu_flaky_cfgs[0], 1, &k), UPQ_OK)) {
        const upq_error_info *e = upq_reader_error(&s.r);
        TU_CHECK_STATUS(load(&s.r, &br, col), UPQ_ERR_AUTH);
        TU_CHECK_INT(e->column, (int)col);
        TU_CHECK_INT(e->row_group, 0);
        TU_CHECK_MSG(upq_bloom_filter(&br) == NULL, "a filter without its key");
    }
    free(s.arena);
    s.arena = NULL;
    /* a wrong column key: its encrypted column metadata fails first */
    k.no_column = 0;
    k.wrong_column = 1;
    TU_CHECK_STATUS(open_enc(&s, data, len, &tu_flaky_cfgs[0], 1, &k), UPQ_ERR_AUTH);
    free(s.arena);
    s.arena = NULL;
    /* the right keys for the footer and metadata, a wrong one for the filter */
    k.wrong_column = 0;
    if (TU_CHECK_STATUS(open_enc(&s, data, len, &tu_flaky_cfgs[0], 1, &k), UPQ_OK)) {
        k.wrong_column = 1;
        TU_CHECK_STATUS(load(&s.r, &br, col), UPQ_ERR_AUTH);
        TU_CHECK_MSG(upq_bloom_filter(&br) == NULL, "a filter under a wrong key");
        k.wrong_column = 0;
    }
    free(s.arena);
    s.arena = NULL;
    /* bit flips in the header module and in the bitset module (past their
     * length fields): UPQ_ERR_AUTH, never a filter */
    {
        uint8_t *copy = (uint8_t *)malloc(len);
        uint64_t rng = tu_seed() ^ 0xb100f;
        unsigned t, auth = 0, n = 0;
        for (t = 0; t < 64; t++) {
            uint64_t lo = t & 1 ? off + 4u + hmod + 4u : off + 4u;
            uint64_t hi = t & 1 ? off + flen : off + 4u + hmod;
            uint64_t pos = lo + tu_rand_below(&rng, hi - lo);
            memcpy(copy, data, len);
            copy[pos] ^= (uint8_t)(1u << tu_rand_below(&rng, 8));
            if (TU_CHECK_STATUS(open_enc(&s, copy, len, &tu_flaky_cfgs[0], 1, &k), UPQ_OK)) {
                st = load(&s.r, &br, col);
                auth += st == UPQ_ERR_AUTH && upq_bloom_filter(&br) == NULL;
                n++;
            }
            free(s.arena);
            s.arena = NULL;
        }
        TU_CHECK_MSG(auth == n && n == 64, "%u of %u flips gave AUTH", auth, n);
        free(copy);
    }
out:
    free(s.arena);
    free(ref);
    free(seen);
}

static void test_encrypted(void)
{
    char path[1024];
    uint8_t *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
             tu_corpus_dir());
    tu_case("encrypt_columns_and_footer_bloom_filter.parquet.encrypted");
    if (!TU_CHECK_MSG(tu_read_file(path, &data, &len) == 0, "cannot read %s", path))
        return;
    test_encrypted_col(data, len, 0, "double_field");
    test_encrypted_col(data, len, 1, "float_field");
    free(data);
}

int main(void)
{
    test_xxhash_bin();
    test_file("data_index_bloom_encoding_stats.parquet", 0);
    test_file("data_index_bloom_encoding_with_length.parquet", 1);
    test_encrypted();
    return tu_summary();
}
