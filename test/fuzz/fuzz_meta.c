/*
 * libFuzzer target: the Thrift decoder on untrusted metadata.
 *
 * The input is decoded as a FileMetaData footer, a PageHeader, a ColumnIndex
 * and an OffsetIndex, each into a fixed 1 MiB arena. For every decode:
 *   - the same bytes fed in small, varying chunks must give the same status
 *     and the same model as the one-shot decode (the decoder is resumable);
 *   - a model that decoded must encode, decode again, and encode to the
 *     identical bytes (a round trip that changes anything is a bug).
 * A footer that decodes and whose schema builds has every chunk's statistics
 * read as typed values (uparquet/stats.h), and a ColumnIndex's bounds are
 * decoded in every order: a usable bound is never NaN and compares equal to
 * itself.
 * Any violation aborts, which libFuzzer reports as a finding. The sanitizers
 * catch out-of-bounds accesses and undefined behaviour on the way.
 *
 * Build and run: make fuzz (or make check, which runs it briefly).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/arena.h"
#include "uparquet/meta.h"
#include "uparquet/schema.h"
#include "uparquet/stats.h"
#include "format/meta_desc.h"

#define ARENA_BYTES (1u << 20)

/* uint64_t storage keeps the arenas 8-byte aligned */
static uint64_t arena_one[ARENA_BYTES / 8];
static uint64_t arena_chunked[ARENA_BYTES / 8];
static uint64_t arena_again[ARENA_BYTES / 8];

static void fail(const char *what, const upq_tstruct *desc, int a, int b)
{
    fprintf(stderr, "fuzz_meta: %s (%s): %d vs %d\n", what, desc->name, a, b);
    abort();
}

/* Encodes obj into a malloc'd buffer; aborts when a decoded model does not
 * encode. */
static uint8_t *encode(const upq_tstruct *desc, const void *obj, size_t *len)
{
    size_t need = 0, got = 0;
    uint8_t *buf;
    upq_status st = upq_thrift_encode(desc, obj, NULL, 0, &need);
    if (st != UPQ_ERR_BUFFER && st != UPQ_OK)
        fail("encode (sizing) failed", desc, st, UPQ_OK);
    buf = (uint8_t *)malloc(need ? need : 1);
    if (!buf)
        abort();
    st = upq_thrift_encode(desc, obj, buf, need, &got);
    if (st != UPQ_OK)
        fail("encode failed", desc, st, UPQ_OK);
    if (got != need)
        fail("encoded size differs from the size asked for", desc, (int)got, (int)need);
    *len = got;
    return buf;
}

/* Decodes with chunk sizes 1..16 drawn from a generator seeded by the input. */
static upq_status decode_chunked(const upq_tstruct *desc, void *obj, upq_arena *a,
                                 const uint8_t *data, size_t size, size_t *used)
{
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    size_t pos = 0;
    uint32_t x = 2166136261u;
    upq_status st = UPQ_AGAIN;
    size_t i;

    for (i = 0; i < size && i < 64; i++)
        x = (x ^ data[i]) * 16777619u;
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, desc, obj, a, size, NULL);
    while (pos < size) {
        size_t n, u = 0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        n = 1 + (x & 15u);
        if (n > size - pos)
            n = size - pos;
        st = upq_tdec_feed(&d, data + pos, n, &u);
        if (u > n)
            fail("feed used more than it was given", desc, (int)u, (int)n);
        pos += u;
        if (st != UPQ_AGAIN)
            break;
        if (u != n)
            fail("feed said AGAIN without using all input", desc, (int)u, (int)n);
    }
    if (st == UPQ_AGAIN && size == 0) {
        size_t u = 0;
        st = upq_tdec_feed(&d, data, 0, &u);
    }
    if (st == UPQ_AGAIN)
        st = UPQ_ERR_TRUNCATED;
    *used = pos;
    return st;
}

/* The decode checks of one struct; returns the one-shot model (in
 * arena_one, allocated from *a1) when it decoded, else NULL. */
static void *check_struct(const upq_tstruct *desc, const uint8_t *data, size_t size, upq_arena *a1)
{
    upq_arena a2, a3;
    void *obj1, *obj2, *obj3;
    size_t used1 = 0, used2 = 0, used3 = 0, len1 = 0, len2 = 0, len3 = 0;
    uint8_t *enc1, *enc2, *enc3;
    upq_status st1, st2, st3;

    upq_arena_init(a1, arena_one, sizeof arena_one);
    upq_arena_init(&a2, arena_chunked, sizeof arena_chunked);
    obj1 = upq_arena_alloc(a1, desc->size);
    obj2 = upq_arena_alloc(&a2, desc->size);
    if (!obj1 || !obj2)
        abort();

    st1 = upq_thrift_decode(desc, obj1, a1, data, size, &used1, NULL);
    st2 = decode_chunked(desc, obj2, &a2, data, size, &used2);
    if (st1 != st2)
        fail("chunked decode status differs from one-shot", desc, st2, st1);
    if (st1 != UPQ_OK)
        return NULL;
    if (used1 > size || used1 != used2)
        fail("decoded lengths differ", desc, (int)used2, (int)used1);

    enc1 = encode(desc, obj1, &len1);
    enc2 = encode(desc, obj2, &len2);
    if (len1 != len2 || memcmp(enc1, enc2, len1) != 0)
        fail("chunked decode gave a different model", desc, (int)len2, (int)len1);

    upq_arena_init(&a3, arena_again, sizeof arena_again);
    obj3 = upq_arena_alloc(&a3, desc->size);
    if (!obj3)
        abort();
    st3 = upq_thrift_decode(desc, obj3, &a3, enc1, len1, &used3, NULL);
    if (st3 != UPQ_OK)
        fail("re-decoding our own encoding failed", desc, st3, UPQ_OK);
    if (used3 != len1)
        fail("re-decode used a different length", desc, (int)used3, (int)len1);
    enc3 = encode(desc, obj3, &len3);
    if (len3 != len1 || memcmp(enc1, enc3, len1) != 0)
        fail("round trip changed the encoding", desc, (int)len3, (int)len1);
    free(enc1);
    free(enc2);
    free(enc3);
    return obj1;
}

/* A projected footer decode (columns picked by the first input byte) must
 * not crash whatever it returns. */
static void check_projection(const uint8_t *data, size_t size)
{
    upq_arena a;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    void *obj;
    uint8_t bitmap[1];
    size_t used = 0;

    if (size < 1)
        return;
    bitmap[0] = data[0];
    upq_arena_init(&a, arena_one, sizeof arena_one);
    obj = upq_arena_alloc(&a, upq_file_metadata_desc.size);
    if (!obj)
        abort();
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &upq_file_metadata_desc, obj, &a, size - 1, NULL);
    upq_tdec_set_projection(&d, bitmap, 8);
    (void)upq_tdec_feed(&d, data + 1, size - 1, &used);
    if (used > size - 1)
        abort();
}

static void check_bound(const upq_column_stats *cs, int has, const upq_stat_value *v)
{
    int c = 1;
    if (!has)
        return;
    if (v->kind == UPQ_STAT_NONE || upq_stat_is_nan(v) || !upq_stat_cmp(v, v, &c) || c != 0)
        abort();
    if (cs->why != UPQ_STAT_OK)
        abort();
}

/* Typed statistics of every chunk of the footer m (decoded in *a). */
static void check_stats(const upq_file_metadata *m, upq_arena *a)
{
    upq_schema s;
    uint32_t g, j;
    int c;

    if (m->schema.n == 0 || upq_schema_build(&s, m->schema.v, m->schema.n, a, NULL) != UPQ_OK)
        return;
    for (g = 0; g < m->row_groups.n; g++) {
        const upq_row_group *rg = &m->row_groups.v[g];
        for (j = 0; j < rg->columns.n; j++) {
            const upq_column_chunk *ch = &rg->columns.v[j];
            upq_column_stats cs;
            if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA))
                continue;
            upq_stats_decode(m, &s, j, &ch->meta_data.statistics, &cs);
            check_bound(&cs, cs.has_min, &cs.min);
            check_bound(&cs, cs.has_max, &cs.max);
            if ((cs.has_min || cs.has_max) != (cs.why == UPQ_STAT_OK))
                abort();
            if (cs.has_min && cs.has_max)
                (void)upq_stat_cmp(&cs.min, &cs.max, &c);
        }
    }
}

/* A ColumnIndex's bounds decoded in every order and type width. */
static void check_index_values(const upq_column_index *ci)
{
    uint32_t i;
    int order;

    for (i = 0; i < ci->min_values.n && i < 64; i++) {
        const upq_bytes *b = &ci->min_values.v[i];
        for (order = UPQ_STAT_ORDER_NONE; order <= UPQ_STAT_ORDER_INT96; order++) {
            upq_stat_value v, w;
            int c;
            if (upq_stats_decode_value(order, order == UPQ_STAT_ORDER_F16 ? 2 : 0, b->ptr, b->len,
                                       UPQ_STAT_AS_MIN, &v) != UPQ_OK)
                continue;
            w = v;
            if (!upq_stat_is_nan(&v) && (!upq_stat_cmp(&v, &w, &c) || c != 0))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* each model is used before the next decode takes arena_one back */
    upq_arena a;
    const void *obj;
    if ((obj = check_struct(&upq_file_metadata_desc, data, size, &a)))
        check_stats((const upq_file_metadata *)obj, &a);
    (void)check_struct(&upq_page_header_desc, data, size, &a);
    if ((obj = check_struct(&upq_column_index_desc, data, size, &a)))
        check_index_values((const upq_column_index *)obj);
    (void)check_struct(&upq_offset_index_desc, data, size, &a);
    check_projection(data, size);
    return 0;
}
