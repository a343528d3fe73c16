/*
 * Split-block bloom filters: the block operations against bits worked out
 * by hand from the format's definition, the false-positive model against
 * the format's own examples and table, sizing, value hashing, and filters
 * the writer makes: read back through every I/O chunking, no false
 * negatives, the measured false-positive rate within 1.5x the target,
 * filters in checkpoint mode (every row group's, also in the file as each
 * sync left it, recovered), and headers the reader must refuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/bloom.h"
#include "util/check.h"
#include "util/flaky_io.h"
#include "writer_util.h"

static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

static uint32_t word(const uint8_t *bits, size_t block, unsigned k)
{
    const uint8_t *p = bits + block * 32u + 4u * k;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_block_by_hand(void)
{
    uint8_t bits[64];
    upq_bloom f = {bits, 32};
    /* x = 1: word k gets bit salt[k] >> 27, the top five bits of each salt
     * read off its hex digits: 0x47.. = 01000 (8), 0x44.. = 01000 (8),
     * 0x88.. = 10001 (17), 0xa2.. = 10100 (20), 0x70.. = 01110 (14),
     * 0x2d.. = 00101 (5), 0x9e.. = 10011 (19), 0x5c.. = 01011 (11) */
    static const unsigned one[8] = {8, 8, 17, 20, 14, 5, 19, 11};
    unsigned k;

    tu_case("block_insert of x = 0 sets bit 0 of every word");
    memset(bits, 0, sizeof bits);
    upq_bloom_insert(&f, 0);
    for (k = 0; k < 8; k++)
        TU_CHECK_UINT(word(bits, 0, k), 1u);
    TU_CHECK(upq_bloom_check(&f, 0));

    tu_case("block_insert of x = 1: the salts' top bits, stored little-endian");
    memset(bits, 0, sizeof bits);
    upq_bloom_insert(&f, 1);
    for (k = 0; k < 8; k++) {
        TU_CHECK_UINT(word(bits, 0, k), 1u << one[k]);
        TU_CHECK_UINT(salt[k] >> 27, one[k]);
    }
    TU_CHECK_UINT(bits[0], 0x00u); /* word 0 = 0x00000100: byte 1 holds bit 8 */
    TU_CHECK_UINT(bits[1], 0x01u);
    TU_CHECK(upq_bloom_check(&f, 1));
    /* x = 2 takes the next five bits of each salt: 0x47b6.. << 1 = 0x8f6c..
     * -> 10001 (17), not 8, so word 0 lacks its bit */
    TU_CHECK(!upq_bloom_check(&f, 2));
    TU_CHECK(!upq_bloom_check(&f, 0));

    tu_case("filter_insert picks block (top32 * z) >> 32");
    memset(bits, 0, sizeof bits);
    f.num_bytes = 64; /* z = 2 */
    upq_bloom_insert(&f, UINT64_C(0x7FFFFFFF00000000)); /* (0x7FFFFFFF * 2) >> 32 = 0 */
    for (k = 0; k < 8; k++) {
        TU_CHECK_UINT(word(bits, 0, k), 1u);
        TU_CHECK_UINT(word(bits, 1, k), 0u);
    }
    memset(bits, 0, sizeof bits);
    upq_bloom_insert(&f, UINT64_C(0x8000000000000001)); /* (0x80000000 * 2) >> 32 = 1 */
    for (k = 0; k < 8; k++) {
        TU_CHECK_UINT(word(bits, 0, k), 0u);
        TU_CHECK_UINT(word(bits, 1, k), 1u << one[k]);
    }
    TU_CHECK(upq_bloom_check(&f, UINT64_C(0x8000000000000001)));
    TU_CHECK(!upq_bloom_check(&f, UINT64_C(0x0000000000000001))); /* same x, block 0 */
}

/* splitmix64: hashes that look random, for measuring. */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void test_model(void)
{
    /* the format's example: 1024 blocks, 26,214 values: "around 1.26 %";
     * twice as many: 18 %; half: 0.04 % */
    static const struct {
        uint32_t n;
        double lo, hi;
    } ex[] = {{26214, 0.0120, 0.0132}, {52428, 0.170, 0.190}, {13107, 0.00035, 0.00045}};
    static uint8_t bits[1024 * 32];
    size_t i;

    tu_case("model: the format's SBBF examples");
    for (i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        double p = upq_bloom_fpp(ex[i].n, sizeof bits);
        TU_CHECK_MSG(p >= ex[i].lo && p <= ex[i].hi, "%u values: model %.5f outside [%.5f, %.5f]",
                     ex[i].n, p, ex[i].lo, ex[i].hi);
    }
    tu_case("measured: 26,214 random hashes in 1024 blocks");
    {
        upq_bloom f = {bits, sizeof bits};
        uint64_t s = 1, fp = 0;
        uint32_t n;
        memset(bits, 0, sizeof bits);
        for (n = 0; n < 26214; n++)
            upq_bloom_insert(&f, mix(&s));
        for (n = 0; n < 400000; n++)
            fp += (uint64_t)upq_bloom_check(&f, mix(&s));
        tu_note("measured FPP %.4f %% (format: about 1.26 %%)", 100.0 * (double)fp / 400000.0);
        TU_CHECK_MSG(fp >= 4600 && fp <= 5500, "%llu false positives of 400000",
                     (unsigned long long)fp);
    }
    tu_case("model: the format's bits-per-value table");
    {
        /* bits per value the table gives; the model's value is within 0.3 % */
        static const struct {
            double fpp, bits;
        } t[] = {{0.1, 6.0}, {0.01, 10.5}, {0.001, 16.9}, {0.0001, 26.4}, {0.00001, 41.0}};
        for (i = 0; i < sizeof t / sizeof t[0]; i++) {
            /* 32768 bits: the table's load meets fpp, 1 % more values miss it */
            uint64_t fit = (uint64_t)(32768.0 / t[i].bits * 0.99);
            uint64_t over = (uint64_t)(32768.0 / t[i].bits * 1.01);
            TU_CHECK_MSG(upq_bloom_fpp(fit, 4096) <= t[i].fpp, "%g: %llu values", t[i].fpp,
                         (unsigned long long)fit);
            TU_CHECK_MSG(upq_bloom_fpp(over, 4096) > t[i].fpp, "%g: %llu values", t[i].fpp,
                         (unsigned long long)over);
            TU_CHECK_UINT(upq_bloom_size(fit, t[i].fpp, 0), 4096);
            TU_CHECK_UINT(upq_bloom_size(over, t[i].fpp, 0), 8192);
        }
    }
}

static void test_sizing(void)
{
    tu_case("sizing: limits");
    TU_CHECK_UINT(upq_bloom_size(0, 0.01, 0), 32);
    TU_CHECK_UINT(upq_bloom_size(1, 0.01, 0), 32);
    TU_CHECK_UINT(upq_bloom_size(1000, 0.01, 0), 2048); /* 10.5 bits x 1000 > 1024 bytes */
    TU_CHECK_UINT(upq_bloom_size(1000000, 0.01, 65536), 65536);
    TU_CHECK_UINT(upq_bloom_size(1000000, 0.01, 100000), 65536); /* down to a power of two */
    TU_CHECK_UINT(upq_bloom_size(1000000, 0.01, 1), 32);
    TU_CHECK_UINT(upq_bloom_size(UINT64_C(1) << 40, 0.01, 0), UPQ_BLOOM_MAX_BYTES);
    TU_CHECK_UINT(upq_bloom_size(UINT64_C(1) << 40, 0.01, 0xFFFFFFFFu), UPQ_BLOOM_MAX_BYTES);
    TU_CHECK_UINT(upq_bloom_size(100, 0.0, 0), 0);
    TU_CHECK_UINT(upq_bloom_size(100, 1.0, 0), 0);
    TU_CHECK_UINT(upq_bloom_size(100, -0.5, 0), 0);
    TU_CHECK_UINT(upq_bloom_size(100, 0.0 / 0.0, 0), 0);
    TU_CHECK(upq_bloom_fpp(1, 0) == 1.0);
    TU_CHECK(upq_bloom_fpp(0, 32) == 0.0);
    tu_case("sizing: bytes per NDV and FPP");
    {
        static const uint32_t ndv[] = {100, 1000, 10000, 100000, 1000000};
        static const double fpp[] = {0.1, 0.01, 0.001};
        size_t i, j;
        for (i = 0; i < 5; i++)
            for (j = 0; j < 3; j++) {
                uint32_t b = upq_bloom_size(ndv[i], fpp[j], 0);
                tu_note("ndv %7u fpp %-5g: %8u bytes (%.1f bits/value, model fpp %.4f %%)", ndv[i],
                        fpp[j], b, 8.0 * b / ndv[i], 100.0 * upq_bloom_fpp(ndv[i], b));
                TU_CHECK(upq_bloom_fpp(ndv[i], b) <= fpp[j]);
                TU_CHECK(b == 32 || upq_bloom_fpp(ndv[i], b / 2) > fpp[j]);
            }
    }
}

static uint64_t xxh_le(uint64_t v, size_t n)
{
    uint8_t b[8];
    size_t i;
    for (i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return upq_xxh64(b, n, 0);
}

static void test_hash_value(void)
{
    int32_t i32 = -2;
    int64_t i64 = INT64_C(0x0102030405060708);
    float f = 1.5f;     /* 0x3FC00000 */
    double d = -0.25;   /* 0xBFD0000000000000 */
    upq_int96 t;
    upq_bytes s = {(const uint8_t *)"hello", 5}, e = {NULL, 0}, fl = {(const uint8_t *)"abcd", 4};
    uint64_t h = 0;
    uint8_t bo = 1;
    size_t k;

    tu_case("value hash: XXH64 of the PLAIN bytes");
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_INT32, 0, &i32, &h), UPQ_OK);
    TU_CHECK_UINT(h, xxh_le(0xFFFFFFFEu, 4));
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_INT64, 0, &i64, &h), UPQ_OK);
    TU_CHECK_UINT(h, xxh_le(UINT64_C(0x0102030405060708), 8));
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_FLOAT, 0, &f, &h), UPQ_OK);
    TU_CHECK_UINT(h, xxh_le(0x3FC00000u, 4));
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_DOUBLE, 0, &d, &h), UPQ_OK);
    TU_CHECK_UINT(h, xxh_le(UINT64_C(0xBFD0000000000000), 8));
    for (k = 0; k < 12; k++)
        t.b[k] = (uint8_t)(k + 1);
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_INT96, 0, &t, &h), UPQ_OK);
    TU_CHECK_UINT(h, upq_xxh64(t.b, 12, 0));
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_BYTE_ARRAY, 0, &s, &h), UPQ_OK);
    TU_CHECK_UINT(h, upq_xxh64("hello", 5, 0)); /* no length prefix */
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_BYTE_ARRAY, 0, &e, &h), UPQ_OK);
    TU_CHECK_UINT(h, UINT64_C(0xEF46DB3751D8E999));
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, &fl, &h), UPQ_OK);
    TU_CHECK_UINT(h, upq_xxh64("abcd", 4, 0));
    tu_case("value hash: refused");
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_BOOLEAN, 0, &bo, &h), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 5, &fl, &h), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_bloom_hash_value(99, 0, &i32, &h), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_INT32, 0, NULL, &h), UPQ_ERR_INVAL);
    s.ptr = NULL;
    TU_CHECK_STATUS(upq_bloom_hash_value(UPQ_TYPE_BYTE_ARRAY, 0, &s, &h), UPQ_ERR_INVAL);
}

/* ---- written filters ------------------------------------------------------------ */

/* Column k: INT64 keys; column s: strings "key-<k>"; column b: BOOLEAN
 * (never filtered). Row i has key i * 7919 + 13, so keys never repeat. */
static uint64_t key_of(uint64_t i)
{
    return i * 7919u + 13u;
}

static upq_schema_element elems[8];
static uint32_t nelems;

static void build_schema(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    upq_sb_init(&b, elems, 8, NULL);
    upq_sb_column(&b, "k", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "b", UPQ_REP_OPTIONAL, UPQ_TYPE_BOOLEAN, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &nelems), UPQ_OK);
}

/* Writes rows [0, rows) row-wise; every 10th string is null. */
static upq_status write_file(sink_buf *s, const upq_writer_opts *o, uint64_t rows, int read_at,
                             size_t *ws)
{
    upq_writer w;
    upq_sink k = sink_of(s, read_at);
    size_t need = 0;
    uint8_t *arena;
    upq_status st;
    uint64_t i;
    st = upq_writer_workspace_size(elems, nelems, o, read_at && o->checkpoint ? 0 : 64, &need);
    if (st != UPQ_OK)
        return st;
    if (ws)
        *ws = need;
    arena = (uint8_t *)malloc(need);
    st = upq_writer_init(&w, &k, elems, nelems, arena, need, o);
    for (i = 0; i < rows && st == UPQ_OK; i++) {
        int64_t key = (int64_t)key_of(i);
        char txt[32];
        upq_bytes b;
        uint8_t flag = (uint8_t)(i & 1u);
        b.len = (uint32_t)snprintf(txt, sizeof txt, "key-%lld", (long long)key);
        b.ptr = (const uint8_t *)txt;
        WU_RETRY(st, upq_writer_set(&w, 0, &key));
        if (st == UPQ_OK) {
            if (i % 10 == 9)
                WU_RETRY(st, upq_writer_set_null(&w, 1));
            else
                WU_RETRY(st, upq_writer_set(&w, 1, &b));
        }
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_set(&w, 2, &flag));
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_end_row(&w));
    }
    if (st == UPQ_OK)
        WU_RETRY(st, upq_writer_close(&w));
    free(arena);
    return st;
}

/* Loads the filter of (rg, col) through `io`; UPQ_OK or the failure. */
static upq_status load(upq_reader *r, upq_bloom_reader *br, uint32_t rg, uint32_t col)
{
    upq_status st = upq_bloom_open(br, r, rg, col);
    unsigned long n = 0;
    if (st != UPQ_OK)
        return st;
    do
        st = upq_bloom_load(br);
    while (st == UPQ_AGAIN && ++n < 100000000ul);
    return st;
}

/* Is key (or its string) maybe in the loaded filter? */
static int maybe_key(const upq_bloom_reader *br, int string, uint64_t key)
{
    int maybe = -1;
    int64_t k = (int64_t)key;
    char txt[32];
    upq_bytes b;
    upq_status st;
    if (string) {
        b.len = (uint32_t)snprintf(txt, sizeof txt, "key-%lld", (long long)k);
        b.ptr = (const uint8_t *)txt;
        st = upq_bloom_might_contain(br, &b, &maybe);
    } else {
        st = upq_bloom_might_contain(br, &k, &maybe);
    }
    return st == UPQ_OK ? maybe : -1;
}

static void test_written(uint32_t ndv, double fpp)
{
    upq_writer_opts o;
    upq_column_opts co[3];
    sink_buf s;
    rfile f;
    size_t ws_bloom = 0, ws_plain = 0;
    uint32_t want = upq_bloom_size(ndv, fpp, 0);
    int col;

    tu_case("written filter: ndv %u fpp %g (%u bytes)", ndv, fpp, want);
    memset(&o, 0, sizeof o);
    memset(co, 0, sizeof co);
    o.columns = co;
    o.ncolumns = 3;
    o.bloom_max_bytes = UPQ_BLOOM_MAX_BYTES;
    o.chunk_size = 4u << 20; /* one row group */
    o.footer_size = 1u << 16; /* a fixed metadata log: the workspace differs by the bitsets */
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(write_file(&s, &o, 10, 0, &ws_plain), UPQ_OK);
    sink_free(&s);
    co[0].bloom = co[1].bloom = 1;
    co[0].bloom_ndv = co[1].bloom_ndv = ndv;
    co[0].bloom_fpp = co[1].bloom_fpp = fpp;
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(write_file(&s, &o, ndv, 0, &ws_bloom), UPQ_OK);
    /* the workspace grows by exactly the two bitsets */
    TU_CHECK_UINT(ws_bloom - ws_plain, 2u * want);
    if (!TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
        sink_free(&s);
        return;
    }
    for (col = 0; col < 2; col++) {
        upq_bloom_reader br;
        const upq_column_chunk *ch = upq_reader_chunk(&f.r, 0, (uint32_t)col);
        uint64_t i, fn = 0, fp = 0, absent = 100000;
        if (!TU_CHECK_STATUS(load(&f.r, &br, 0, (uint32_t)col), UPQ_OK))
            continue;
        TU_CHECK_UINT(upq_bloom_filter(&br)->num_bytes, want);
        TU_CHECK_UINT(upq_reader_metadata(&f.r)->row_groups.n, 1);
        /* header: 14 bytes and numBytes as a zigzag varint */
        TU_CHECK_UINT(ch->meta_data.bloom_filter_length, want + 14u + (want < 8192u ? 2u : 3u));
        for (i = 0; i < ndv; i++)
            if (!(col == 1 && i % 10 == 9)) /* null strings are not in the filter */
                fn += maybe_key(&br, col, key_of(i)) != 1;
        for (i = 0; i < absent; i++)
            fp += maybe_key(&br, col, key_of(ndv + i)) != 0;
        TU_CHECK_MSG(fn == 0, "%llu false negatives", (unsigned long long)fn);
        tu_note("%s ndv %u fpp %g: %u bytes, measured FPP %.4f %% over %llu absent values",
                col ? "BYTE_ARRAY" : "INT64", ndv, fpp, want, 100.0 * (double)fp / (double)absent,
                (unsigned long long)absent);
        TU_CHECK_MSG((double)fp <= 1.5 * fpp * (double)absent, "measured %llu false positives",
                     (unsigned long long)fp);
        upq_bloom_close(&br);
    }
    {
        upq_bloom_reader br;
        TU_CHECK_STATUS(upq_bloom_open(&br, &f.r, 0, 2), UPQ_ERR_INVAL); /* BOOLEAN */
    }
    rfile_close(&f);
    sink_free(&s);
}

/* Copies of the file at each sync: what a power cut right then leaves. */
typedef struct snaps {
    uint8_t *p[64];
    size_t n[64];
    unsigned count, missed;
} snaps;

static void snap_on_sync(sink_buf *s, void *ctx)
{
    snaps *sn = (snaps *)ctx;
    if (sn->count == 64) {
        sn->missed++;
        return;
    }
    sn->p[sn->count] = (uint8_t *)malloc(s->n ? s->n : 1);
    memcpy(sn->p[sn->count], s->p, s->n);
    sn->n[sn->count++] = s->n;
}

/* Row group g's filters of file f (rows first .. first + n of the data):
 * both load, and the key filter answers "maybe" for every key of the row
 * group and "absent" for most others. may_lack: the row group may have no
 * filters at all (*lacked set then). Returns the failures. */
static unsigned long check_rg_filters(rfile *f, uint32_t g, uint64_t first, uint64_t n,
                                      uint64_t rows, const char *what, int may_lack, int *lacked)
{
    upq_bloom_reader br;
    uint64_t i, fn = 0, other = 0, other_maybe = 0;
    unsigned long bad = 0;
    upq_status st = load(&f->r, &br, g, 0);
    if (may_lack && st == UPQ_DONE) {
        *lacked = 1;
        return !TU_CHECK_MSG(upq_bloom_open(&br, &f->r, g, 1) == UPQ_DONE,
                             "%s: row group %u: a string filter without the key filter", what, g);
    }
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: row group %u: key filter: %s", what, g, upq_strerror(st)))
        return 1;
    for (i = 0; i < rows; i++) {
        int m = maybe_key(&br, 0, key_of(i));
        if (i >= first && i < first + n) {
            fn += m != 1;
        } else {
            other++;
            other_maybe += m != 0;
        }
    }
    bad += !TU_CHECK_MSG(fn == 0, "%s: row group %u: %llu false negatives", what, g,
                         (unsigned long long)fn);
    bad += !TU_CHECK_MSG(other_maybe * 100 <= other * 3 / 2, "%s: row group %u: %llu of %llu others maybe",
                         what, g, (unsigned long long)other_maybe, (unsigned long long)other);
    upq_bloom_close(&br);
    if (!TU_CHECK_MSG(load(&f->r, &br, g, 1) == UPQ_OK, "%s: row group %u: no string filter", what, g))
        return bad + 1;
    for (i = first, fn = 0; i < first + n; i++)
        if (i % 10 != 9) /* null strings are not in the filter */
            fn += maybe_key(&br, 1, key_of(i)) != 1;
    bad += !TU_CHECK_MSG(fn == 0, "%s: row group %u: %llu string false negatives", what, g,
                         (unsigned long long)fn);
    upq_bloom_close(&br);
    return bad;
}

/* Several row groups in checkpoint mode (a checkpoint every 1000 rows)
 * through a sink that says "again" and takes short writes: each row group's
 * filter holds its own rows, every I/O chunking reads the same bitset, and
 * the file as it stood at every sync, recovered, has the filters of every
 * row group it keeps. Row groups hold at most row_group_rows rows; one may
 * end early when a column's region cannot take another page (a dictionary
 * falling back to PLAIN), so where they end comes from the footer. */
static void test_row_groups(int dict)
{
    upq_writer_opts o;
    upq_column_opts co[3];
    sink_buf s;
    rfile f;
    snaps sn;
    const uint64_t rows = 10000, per = 3000;
    unsigned k, recovered = 0, lacking = 0;
    uint32_t g, ngroups = 0;
    uint64_t last_rows = 0, *ends = NULL;

    tu_case("filters per row group, checkpoints, flaky I/O (dictionary %s)", dict ? "on" : "off");
    memset(&o, 0, sizeof o);
    memset(co, 0, sizeof co);
    memset(&sn, 0, sizeof sn);
    co[0].bloom = co[1].bloom = 1;
    co[1].bloom_fpp = 0.05;
    if (dict) {
        co[0].encoding = co[1].encoding = co[2].encoding = -1;
        co[0].dictionary = co[1].dictionary = co[2].dictionary = -1;
    }
    o.columns = co;
    o.ncolumns = 3;
    o.row_group_rows = per; /* also the default ndv */
    o.checkpoint = 1;
    o.checkpoint_rows = 1000;
    o.page_size = 1024;
    sink_init(&s, SINK_AGAIN, 7);
    s.on_sync = snap_on_sync;
    s.on_sync_ctx = &sn;
    if (!TU_CHECK_STATUS(write_file(&s, &o, rows, 1, NULL), UPQ_OK))
        goto out;
    if (!TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK))
        goto out;
    ngroups = upq_reader_metadata(&f.r)->row_groups.n;
    TU_CHECK_INT(upq_reader_metadata(&f.r)->num_rows, rows);
    TU_CHECK_MSG(ngroups >= (rows + per - 1) / per && ngroups <= rows,
                 "%u row groups for %llu rows of at most %llu", ngroups, (unsigned long long)rows,
                 (unsigned long long)per);
    ends = (uint64_t *)calloc((size_t)ngroups + 1u, sizeof *ends);
    {
        uint64_t first = 0;
        for (g = 0; g < ngroups; g++) {
            uint64_t n = (uint64_t)upq_reader_metadata(&f.r)->row_groups.v[g].num_rows;
            upq_bloom_reader br;
            TU_CHECK_MSG(n >= 1 && n <= per, "row group %u holds %llu rows, want 1..%llu", g,
                         (unsigned long long)n, (unsigned long long)per);
            if (TU_CHECK_STATUS(load(&f.r, &br, g, 0), UPQ_OK)) {
                TU_CHECK_UINT(upq_bloom_filter(&br)->num_bytes, upq_bloom_size(per, 0.01, 0));
                upq_bloom_close(&br);
            }
            check_rg_filters(&f, g, first, n, rows, "closed file", 0, NULL);
            ends[g] = first + n;
            first += n;
        }
        TU_CHECK_UINT(first, rows);
    }
    /* every chunking and "again" pattern loads the same bitset */
    {
        upq_bloom_reader ref;
        size_t c;
        if (ngroups && TU_CHECK_STATUS(load(&f.r, &ref, ngroups - 1u, 1), UPQ_OK)) {
            const upq_bloom *rf = upq_bloom_filter(&ref);
            for (c = 0; c < tu_flaky_ncfgs; c++) {
                tu_flaky fl;
                upq_reader r2;
                upq_io io = {0};
                uint8_t *arena = (uint8_t *)malloc(1u << 20);
                upq_bloom_reader br;
                upq_status st;
                tu_flaky_init(&fl, &tu_flaky_cfgs[c], tu_mem_read_at, &f.src, tu_seed() + c);
                io.ctx = &fl;
                io.read_at = tu_flaky_read_at;
                io.size = s.n;
                upq_reader_init(&r2, &io, arena, 1u << 20, NULL);
                do
                    st = upq_reader_open(&r2);
                while (st == UPQ_AGAIN);
                if (TU_CHECK_STATUS(st, UPQ_OK) &&
                    TU_CHECK_STATUS(load(&r2, &br, ngroups - 1u, 1), UPQ_OK))
                    TU_CHECK_MSG(upq_bloom_filter(&br)->num_bytes == rf->num_bytes &&
                                     memcmp(upq_bloom_filter(&br)->bits, rf->bits,
                                            rf->num_bytes) == 0,
                                 "chunking %s: another bitset", tu_flaky_cfgs[c].name);
                free(arena);
            }
            upq_bloom_close(&ref);
        }
    }
    rfile_close(&f);
    /* a sync after every checkpoint (10) and row group end, and at close */
    TU_CHECK_MSG(s.syncs >= 10 && sn.missed == 0, "%lu syncs", s.syncs);
    /* the file as each sync left it, recovered in place: every row group it
     * keeps whole has its filters; the one cut at a checkpoint may have
     * none (recovery does not rebuild them), but never one missing rows */
    for (k = 0; k < sn.count; k++) {
        static upq_recover_state rs;
        static uint8_t rarena[1u << 18];
        upq_recover_info info;
        sink_buf c;
        upq_sink sk;
        upq_status st;
        char what[64];
        unsigned long spins = 0;
        snprintf(what, sizeof what, "sync %u of %u", k + 1, sn.count);
        sink_init(&c, SINK_WHOLE, 1);
        sink_grow(&c, sn.n[k]);
        memcpy(c.p, sn.p[k], sn.n[k]);
        sk = sink_of(&c, 1);
        memset(&rs, 0, sizeof rs);
        do
            st = upq_recover(&rs, &sk, c.n, rarena, sizeof rarena, NULL, &info);
        while (st == UPQ_AGAIN && ++spins < 1000000ul);
        if (st == UPQ_ERR_CORRUPT && last_rows == 0 && k == 0) {
            sink_free(&c);
            continue; /* synced before the first checkpoint */
        }
        if (!TU_CHECK_MSG(st == UPQ_OK, "%s: recovery: %s (%s)", what, upq_strerror(st),
                          upq_recover_error(&rs)->what ? upq_recover_error(&rs)->what : "")) {
            sink_free(&c);
            continue;
        }
        {
            /* a checkpoint (every 1000 rows) or a row group end of the closed file */
            int at = info.rows % 1000 == 0;
            for (g = 0; g < ngroups; g++)
                at |= info.rows == ends[g];
            TU_CHECK_MSG(info.rows >= last_rows && info.rows <= rows && at,
                         "%s: %llu rows recovered after %llu", what, (unsigned long long)info.rows,
                         (unsigned long long)last_rows);
        }
        last_rows = info.rows;
        TU_CHECK_UINT(info.file_size, c.n);
        if (k + 1 == sn.count)
            TU_CHECK_MSG(info.was_closed && info.rows == rows, "%s: the closed file", what);
        if (TU_CHECK_STATUS(rfile_open(&f, c.p, c.n), UPQ_OK)) {
            const upq_file_metadata *m = upq_reader_metadata(&f.r);
            uint64_t first = 0;
            TU_CHECK_UINT(m->num_rows, info.rows);
            for (g = 0; g < m->row_groups.n; g++) {
                uint64_t n = (uint64_t)m->row_groups.v[g].num_rows;
                /* the last row group was cut unless it ended where the closed
                 * file's did (the closed file's last one ended only at close) */
                int lacked = 0, cut = g + 1u == m->row_groups.n && !info.was_closed &&
                                      (g + 1u >= ngroups || first + n != ends[g]);
                check_rg_filters(&f, g, first, n, rows, what, cut, &lacked);
                lacking += (unsigned)lacked;
                first += n;
            }
            recovered++;
        }
        rfile_close(&f);
        sink_free(&c);
    }
    TU_CHECK(recovered + 1 >= sn.count && last_rows == rows);
    tu_note("dictionary %s: %u syncs recovered, %u with a cut row group without filters",
            dict ? "on" : "off", recovered, lacking);
out:
    for (k = 0; k < sn.count; k++)
        free(sn.p[k]);
    free(ends);
    sink_free(&s);
}

/* Offset of column col's filter header in row group 0 of the file. */
static int64_t bf_offset(const sink_buf *s, uint32_t col)
{
    rfile f;
    int64_t off = -1;
    if (rfile_open(&f, s->p, s->n) == UPQ_OK)
        off = upq_reader_chunk(&f.r, 0, col)->meta_data.bloom_filter_offset;
    rfile_close(&f);
    return off;
}

/* Loads column 0's filter of a copy of the file with byte `at` set to v. */
static upq_status load_patched(const sink_buf *s, size_t at, uint8_t v, uint32_t max_bytes)
{
    uint8_t *copy = (uint8_t *)malloc(s->n);
    rfile f;
    upq_bloom_reader br;
    upq_status st;
    memcpy(copy, s->p, s->n);
    copy[at] = v;
    st = rfile_open(&f, copy, s->n);
    if (st == UPQ_OK) {
        st = upq_bloom_open(&br, &f.r, 0, 0);
        if (st == UPQ_OK && max_bytes)
            upq_bloom_set_max_bytes(&br, max_bytes);
        if (st == UPQ_OK)
            do
                st = upq_bloom_load(&br);
            while (st == UPQ_AGAIN);
    }
    rfile_close(&f);
    free(copy);
    return st;
}

static void test_bad_headers(void)
{
    upq_writer_opts o;
    upq_column_opts co[3];
    sink_buf s;
    int64_t at;
    size_t h;

    tu_case("headers the reader refuses");
    memset(&o, 0, sizeof o);
    memset(co, 0, sizeof co);
    co[0].bloom = 1;
    co[0].bloom_ndv = 3000; /* 4096 bytes: numBytes zigzag 8192 = varint 80 40 */
    o.columns = co;
    o.ncolumns = 3;
    sink_init(&s, SINK_WHOLE, 1);
    if (!TU_CHECK_STATUS(write_file(&s, &o, 100, 0, NULL), UPQ_OK))
        return;
    at = bf_offset(&s, 0);
    if (!TU_CHECK(at > 4))
        return;
    h = (size_t)at;
    /* 15 80 40 | 1c 1c 00 00 | 1c 1c 00 00 | 1c 1c 00 00 | 00 */
    TU_CHECK_UINT(s.p[h], 0x15);
    TU_CHECK_UINT(s.p[h + 1], 0x80);
    TU_CHECK_UINT(s.p[h + 2], 0x40);
    TU_CHECK_UINT(s.p[h + 4], 0x1c);
    TU_CHECK_UINT(s.p[h + 15], 0x00);
    TU_CHECK_STATUS(load_patched(&s, h, 0x15, 0), UPQ_OK);
    TU_CHECK_STATUS(load_patched(&s, h + 4, 0x2c, 0), UPQ_ERR_UNSUPPORTED);  /* algorithm 2 */
    TU_CHECK_STATUS(load_patched(&s, h + 8, 0x2c, 0), UPQ_ERR_UNSUPPORTED);  /* hash 2 */
    TU_CHECK_STATUS(load_patched(&s, h + 12, 0x2c, 0), UPQ_ERR_UNSUPPORTED); /* compression 2 */
    TU_CHECK_STATUS(load_patched(&s, h + 1, 0x82, 0), UPQ_ERR_CORRUPT); /* 4097 bytes */
    TU_CHECK_STATUS(load_patched(&s, h + 1, 0x81, 0), UPQ_ERR_CORRUPT); /* negative */
    TU_CHECK_STATUS(load_patched(&s, h + 2, 0x00, 0), UPQ_ERR_CORRUPT); /* 0 bytes */
    TU_CHECK_STATUS(load_patched(&s, h + 2, 0x03, 0), UPQ_ERR_CORRUPT); /* 192 */
    TU_CHECK_STATUS(load_patched(&s, h + 2, 0x01, 0), UPQ_OK);          /* 64: a smaller filter */
    TU_CHECK_STATUS(load_patched(&s, h + 2, 0x80, 0), UPQ_ERR_CORRUPT); /* past the length */
    TU_CHECK_STATUS(load_patched(&s, h, 0x16, 0), UPQ_ERR_CORRUPT);     /* i64 for an i32 */
    TU_CHECK_STATUS(load_patched(&s, h + 15, 0x0c, 0), UPQ_ERR_CORRUPT);  /* no STOP */
    TU_CHECK_STATUS(load_patched(&s, h, 0x15, 2048), UPQ_ERR_LIMIT);
    sink_free(&s);
}

int main(void)
{
    test_block_by_hand();
    test_model();
    test_sizing();
    test_hash_value();
    build_schema();
    test_written(1000, 0.01);
    test_written(20000, 0.01);
    test_written(5000, 0.001);
    test_written(30000, 0.1);
    test_row_groups(0);
    test_row_groups(1);
    test_bad_headers();
    return tu_summary();
}
