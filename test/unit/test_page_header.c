/*
 * The writer's page header encoder (upq_w_page_header_put) against the
 * descriptor-driven Thrift encoder (upq_thrift_encode with
 * upq_page_header_desc) and a header encoded by hand from the Thrift compact
 * protocol's rules: the same bytes, sizes and statuses for random models
 * (every field of PageHeader and the structs in it, missing required fields,
 * the largest and smallest integers, long binaries) in every kind of output
 * window (count only, too small by one, exact, roomy).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_desc.h"
#include "util/check.h"
#include "write/writer_page.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    return tu_xorshift(&rng);
}

static int32_t rnd_i32(void)
{
    switch (rnd() % 6) {
    case 0: return INT32_MIN;
    case 1: return INT32_MAX;
    case 2: return (int32_t)(rnd() % 64) - 32;
    case 3: return 0;
    default: return (int32_t)(uint32_t)rnd();
    }
}

static int64_t rnd_i64(void)
{
    switch (rnd() % 5) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return (int64_t)(rnd() % 300);
    default: return (int64_t)rnd();
    }
}

static uint8_t pool[4096];

static upq_bytes rnd_bin(void)
{
    upq_bytes b;
    uint32_t lens[] = {0, 1, 4, 8, 16, 127, 128, 300, 2000};
    b.len = lens[rnd() % (sizeof lens / sizeof lens[0])];
    b.ptr = pool + rnd() % (sizeof pool - 2000);
    return b;
}

/* isset bits: mostly the writer's shapes (all required fields), sometimes
 * any bits at all, including ones past the last field */
static uint32_t rnd_isset(uint32_t all, uint32_t req)
{
    switch (rnd() % 4) {
    case 0: return (uint32_t)rnd();
    case 1: return (uint32_t)rnd() & all;
    default: return ((uint32_t)rnd() & all) | req;
    }
}

static void rnd_stats(upq_statistics *s)
{
    s->isset = rnd_isset(0x3FEu, 0);
    s->max = rnd_bin();
    s->min = rnd_bin();
    s->null_count = rnd_i64();
    s->distinct_count = rnd_i64();
    s->max_value = rnd_bin();
    s->min_value = rnd_bin();
    s->is_max_value_exact = (uint8_t)(rnd() % 3);
    s->is_min_value_exact = (uint8_t)(rnd() % 3);
    s->nan_count = rnd_i64();
}

static void rnd_header(upq_page_header *ph)
{
    memset(ph, 0, sizeof *ph);
    ph->isset = rnd_isset(0x1FEu, 0x0Eu);
    /* usually one page kind, as the writer makes them */
    if (rnd() % 4) {
        ph->isset &= ~0x1E0u;
        ph->isset |= 1u << (5 + (unsigned)(rnd() % 4));
    }
    ph->type = rnd_i32();
    ph->uncompressed_page_size = rnd_i32();
    ph->compressed_page_size = rnd_i32();
    ph->crc = rnd_i32();
    ph->data_page_header.isset = rnd_isset(0x3Eu, 0x1Eu);
    ph->data_page_header.num_values = rnd_i32();
    ph->data_page_header.encoding = rnd_i32();
    ph->data_page_header.definition_level_encoding = rnd_i32();
    ph->data_page_header.repetition_level_encoding = rnd_i32();
    rnd_stats(&ph->data_page_header.statistics);
    ph->index_page_header.isset = (uint32_t)rnd();
    ph->dictionary_page_header.isset = rnd_isset(0x0Eu, 0x06u);
    ph->dictionary_page_header.num_values = rnd_i32();
    ph->dictionary_page_header.encoding = rnd_i32();
    ph->dictionary_page_header.is_sorted = (uint8_t)(rnd() % 3);
    ph->data_page_header_v2.isset = rnd_isset(0x1FEu, 0x7Eu);
    ph->data_page_header_v2.num_values = rnd_i32();
    ph->data_page_header_v2.num_nulls = rnd_i32();
    ph->data_page_header_v2.num_rows = rnd_i32();
    ph->data_page_header_v2.encoding = rnd_i32();
    ph->data_page_header_v2.definition_levels_byte_length = rnd_i32();
    ph->data_page_header_v2.repetition_levels_byte_length = rnd_i32();
    ph->data_page_header_v2.is_compressed = (uint8_t)(rnd() % 3);
    rnd_stats(&ph->data_page_header_v2.statistics);
}

static uint8_t want[16384], got[16384];

/* One model through both encoders in a window of `cap` bytes (buffers
 * NULL when counting only). */
static int same(const upq_page_header *ph, int count_only, size_t cap)
{
    size_t wl = 0, gl = 0;
    upq_status ws, gs;
    memset(want, 0xA5, sizeof want);
    memset(got, 0xA5, sizeof got);
    ws = upq_thrift_encode(&upq_page_header_desc, ph, count_only ? (uint8_t *)0 : want, cap, &wl);
    gs = upq_w_page_header_put(ph, count_only ? (uint8_t *)0 : got, cap, &gl);
    if (ws != gs)
        return 0;
    if (ws == UPQ_ERR_INVAL)
        return 1; /* the model is refused; its size is not defined */
    if (wl != gl)
        return 0;
    if (ws == UPQ_OK && !count_only && memcmp(want, got, wl) != 0)
        return 0;
    /* nothing written past the window */
    if (!count_only && cap < sizeof got && got[cap] != 0xA5)
        return 0;
    return 1;
}

static void test_random(unsigned rounds)
{
    unsigned i, bad = 0, ok_models = 0, refused = 0;
    upq_page_header ph;
    for (i = 0; i < rounds; i++) {
        size_t need = 0;
        upq_status st;
        rnd_header(&ph);
        st = upq_thrift_encode(&upq_page_header_desc, &ph, (uint8_t *)0, 0, &need);
        if (st == UPQ_OK)
            ok_models++;
        else
            refused++;
        if (!same(&ph, 1, 0) || !same(&ph, 0, sizeof got) ||
            (st == UPQ_OK && (!same(&ph, 0, need) || (need && !same(&ph, 0, need - 1)) ||
                              !same(&ph, 0, need / 2)))) {
            if (bad++ < 5)
                tu_note("model %u differs (isset %#x)", i, (unsigned)ph.isset);
        }
    }
    TU_CHECK(bad == 0);
    /* both kinds of model were drawn */
    TU_CHECK(ok_models > rounds / 4);
    TU_CHECK(refused > rounds / 20);
}

/* A data page header written out from the compact protocol's rules. */
static void test_known(void)
{
    static const uint8_t expect[] = {
        0x15, 0x00,             /* type 1: DATA_PAGE (0) */
        0x15, 0xC8, 0x01,       /* uncompressed_page_size 2: 100 */
        0x15, 0x90, 0x03,       /* compressed_page_size 3: 200 */
        0x15, 0x01,             /* crc 4: -1 */
        0x1C,                   /* data_page_header 5 */
        0x15, 0x14,             /* num_values: 10 */
        0x15, 0x10,             /* encoding: RLE_DICTIONARY (8) */
        0x15, 0x06,             /* definition_level_encoding: RLE (3) */
        0x15, 0x06,             /* repetition_level_encoding: RLE (3) */
        0x1C,                   /* statistics 5 */
        0x36, 0x04,             /* null_count 3: 2 */
        0x28, 0x01, 0x07,       /* max_value 5: "\x07" */
        0x18, 0x01, 0x03,       /* min_value 6: "\x03" */
        0x11,                   /* is_max_value_exact 7: true */
        0x12,                   /* is_min_value_exact 8: false */
        0x00,                   /* end of statistics */
        0x00,                   /* end of data_page_header */
        0x00,                   /* end of PageHeader */
    };
    static const uint8_t mx = 7, mn = 3;
    upq_page_header ph;
    upq_statistics *s = &ph.data_page_header.statistics;
    uint8_t out[64];
    size_t len = 0;
    memset(&ph, 0, sizeof ph);
    ph.isset = 0x3Eu;
    ph.type = UPQ_PAGE_DATA;
    ph.uncompressed_page_size = 100;
    ph.compressed_page_size = 200;
    ph.crc = -1;
    ph.data_page_header.isset = 0x3Eu;
    ph.data_page_header.num_values = 10;
    ph.data_page_header.encoding = UPQ_ENC_RLE_DICTIONARY;
    ph.data_page_header.definition_level_encoding = UPQ_ENC_RLE;
    ph.data_page_header.repetition_level_encoding = UPQ_ENC_RLE;
    s->isset = (1u << UPQ_STATISTICS_NULL_COUNT) | (1u << UPQ_STATISTICS_MAX_VALUE) |
               (1u << UPQ_STATISTICS_MIN_VALUE) | (1u << UPQ_STATISTICS_IS_MAX_VALUE_EXACT) |
               (1u << UPQ_STATISTICS_IS_MIN_VALUE_EXACT);
    s->null_count = 2;
    s->max_value.ptr = &mx;
    s->max_value.len = 1;
    s->min_value.ptr = &mn;
    s->min_value.len = 1;
    s->is_max_value_exact = 1;
    s->is_min_value_exact = 0;
    TU_CHECK(upq_w_page_header_put(&ph, out, sizeof out, &len) == UPQ_OK);
    TU_CHECK(len == sizeof expect);
    TU_CHECK(len == sizeof expect && memcmp(out, expect, len) == 0);
    /* too small by one: the size needed, no byte past the window */
    memset(out, 0xA5, sizeof out);
    TU_CHECK(upq_w_page_header_put(&ph, out, sizeof expect - 1, &len) == UPQ_ERR_BUFFER);
    TU_CHECK(len == sizeof expect);
    TU_CHECK(out[sizeof expect - 1] == 0xA5);
    /* a required field missing */
    ph.data_page_header.isset &= ~(1u << UPQ_DATA_PAGE_HEADER_ENCODING);
    TU_CHECK(upq_w_page_header_put(&ph, out, sizeof out, &len) == UPQ_ERR_INVAL);
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], (char **)0, 10) : 20000u;
    size_t i;
    for (i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)rnd();
    tu_case("a header encoded by hand");
    test_known();
#if !UPQ_FAST_KERNELS
    tu_note("UPQ_FAST_KERNELS 0: the writer's headers go through upq_thrift_encode itself; "
            "only the header encoded by hand checks it");
#endif
    tu_case("%u random models against upq_thrift_encode", rounds);
    test_random(rounds);
    return tu_summary();
}
