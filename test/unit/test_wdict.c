/*
 * The writer's dictionary lookup (core/write/dict.c) on a column built by
 * hand: the index of every key, and the dictionary page body, against a
 * naive first-seen list of the distinct keys kept here. The keys share
 * prefixes and differ in length, so that a lookup which tries the newest
 * entry first (a logger's repeated device name) must still tell them
 * apart; a dictionary emptied (a new row group) has no newest entry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/check.h"
#include "write/dict.h"

#define MAXE 64

typedef struct wd {
    upq_wcol c;
    uint8_t dict[4096];
    uint32_t off[MAXE];
    uint16_t slots[MAXE + MAXE / 2 + 1];
    uint16_t idx[8];
    upq_wdx x;
    /* the truth: distinct keys in first-seen order */
    const uint8_t *key[MAXE];
    uint32_t klen[MAXE];
    uint32_t n;
} wd;

static void wd_init(wd *d, int32_t type, uint32_t vsize, uint32_t max)
{
    memset(d, 0, sizeof *d);
    d->c.type = type;
    d->c.vsize = vsize;
    d->c.dict = d->dict;
    d->c.dict_cap = sizeof d->dict;
    d->c.dict_max = max;
    d->c.dict_off = d->off;
    d->c.slots = d->slots;
    d->c.nslots = max + max / 2u + 1u;
    d->c.use_dict = 1;
    upq_w_dict_clear(&d->c);
    d->x.idx = d->idx;
}

static void wd_forget(wd *d)
{
    upq_w_dict_clear(&d->c);
    d->n = 0;
}

static int32_t naive_index(wd *d, const uint8_t *k, uint32_t kl, int add)
{
    uint32_t i;
    for (i = 0; i < d->n; i++)
        if (d->klen[i] == kl && (kl == 0 || memcmp(d->key[i], k, kl) == 0))
            return (int32_t)i;
    if (!add)
        return -1;
    d->key[d->n] = k;
    d->klen[d->n] = kl;
    return (int32_t)d->n++;
}

/* The dictionary page body the naive list makes. */
static void check_body(wd *d, int ba)
{
    uint8_t want[4096];
    size_t n = 0;
    uint32_t i;
    for (i = 0; i < d->n; i++) {
        if (ba) {
            want[n++] = (uint8_t)d->klen[i];
            want[n++] = (uint8_t)(d->klen[i] >> 8);
            want[n++] = (uint8_t)(d->klen[i] >> 16);
            want[n++] = (uint8_t)(d->klen[i] >> 24);
        }
        memcpy(want + n, d->key[i], d->klen[i]);
        n += d->klen[i];
    }
    TU_CHECK_UINT(d->c.dict_n, d->n);
    TU_CHECK_UINT(d->c.dict_bytes, n);
    TU_CHECK_MEM(d->c.dict, want, n);
}

/* Puts one BYTE_ARRAY value (as the row API does) and checks its index,
 * then looks it and every distinct key up again. */
static void put_ba(wd *d, const char *s, uint32_t kl)
{
    upq_bytes b;
    uint32_t slot, i;
    int32_t want;
    b.ptr = (const uint8_t *)s;
    b.len = kl;
    want = naive_index(d, b.ptr, kl, 1);
    d->x.n = d->c.nval; /* the indices of the values put in come out */
    TU_CHECK_UINT(upq_w_dict_run(&d->c, &d->x, (const uint8_t *)&b, 1), 1);
    if (UPQ_WITH_DICT_INDEX)
        TU_CHECK_INT(d->idx[0], want);
    TU_CHECK_INT(upq_w_dict_find(&d->c, b.ptr, kl, &slot), want);
    for (i = 0; i < d->n; i++)
        TU_CHECK_INT(upq_w_dict_find(&d->c, d->key[i], d->klen[i], &slot), (int32_t)i);
}

static const char *const names[] = {
    "sensor-07", "sensor-07x", "sensor-0", "", "sensor-08", "sensor-07\0", "s",
    "sensor-07-long-name-of-a-device", "sensor-07-long-name-of-a-devicE", "sensor-7",
};
static const uint32_t name_len[] = {9, 10, 8, 0, 9, 10, 1, 31, 31, 8};
#define NNAMES (sizeof names / sizeof names[0])

static void test_byte_array(void)
{
    static wd d;
    uint32_t i, r;
    tu_case("BYTE_ARRAY: repeats, prefixes, lengths");
    wd_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, MAXE);
    for (r = 0; r < 5; r++)
        put_ba(&d, names[0], name_len[0]);
    for (i = 0; i < NNAMES; i++)
        for (r = 0; r < 3; r++)
            put_ba(&d, names[i], name_len[i]);
    srand(29);
    for (r = 0; r < 400; r++) {
        i = (uint32_t)rand() % NNAMES;
        put_ba(&d, names[i], name_len[i]);
    }
    check_body(&d, 1);

    tu_case("BYTE_ARRAY: keys at every alignment");
    {
        static const char text[] = "xxsensor-07sensor-07xxsensor-07-long-name-of-a-device";
        wd_forget(&d);
        for (r = 0; r < 3; r++)
            for (i = 0; i + 12 <= sizeof text - 1; i++)
                put_ba(&d, text + i, i % 3 ? 9 : 12);
        check_body(&d, 1);
    }
}

static void test_float(void)
{
    static wd d;
    /* -0.0 and 0.0, and two NaNs, differ in their bytes: four entries */
    static const uint32_t bits[] = {0x00000000u, 0x80000000u, 0x7fc00000u, 0x7fc00001u, 0x3f800000u};
    /* the keys the dictionary holds: PLAIN's little-endian bytes, whatever
     * the host's order (the values go in as the host's floats) */
    static uint8_t le[5][4];
    float v[8];
    uint32_t i, r, slot;
    tu_case("FLOAT: entries are bytes");
    for (i = 0; i < 5; i++)
        for (r = 0; r < 4; r++)
            le[i][r] = (uint8_t)(bits[i] >> (8u * r));
    wd_init(&d, UPQ_TYPE_FLOAT, 4, MAXE);
    srand(7);
    for (r = 0; r < 300; r++) {
        uint32_t n = 1u + (uint32_t)rand() % 8u;
        int32_t want[8];
        for (i = 0; i < n; i++) {
            uint32_t k = (r % 5u == 0) ? 0u : (uint32_t)rand() % 5u;
            memcpy(&v[i], &bits[k], 4);
            want[i] = naive_index(&d, le[k], 4, 1);
        }
        d.x.n = d.c.nval;
        TU_CHECK_UINT(upq_w_dict_run(&d.c, &d.x, (const uint8_t *)v, n), n);
        for (i = 0; i < n && UPQ_WITH_DICT_INDEX; i++)
            TU_CHECK_INT(d.idx[i], want[i]);
    }
    for (i = 0; i < 5; i++)
        TU_CHECK_INT(upq_w_dict_find(&d.c, le[i], 4, &slot), naive_index(&d, le[i], 4, 0));
    check_body(&d, 0);
}

static void test_emptied_and_full(void)
{
    static wd d;
    uint32_t i, slot;
    upq_bytes b[4];
    tu_case("a dictionary emptied since the last lookup");
    wd_init(&d, UPQ_TYPE_BYTE_ARRAY, 0, 4);
    for (i = 0; i < 4; i++)
        put_ba(&d, names[i], name_len[i]);
    /* the entry put in last was index 3; after the clear there is one */
    wd_forget(&d);
    put_ba(&d, names[4], name_len[4]);
    TU_CHECK_INT(upq_w_dict_find(&d.c, (const uint8_t *)names[3], name_len[3], &slot), -1);
    TU_CHECK_INT(upq_w_dict_find(&d.c, (const uint8_t *)names[0], name_len[0], &slot), -1);
    check_body(&d, 1);

    tu_case("a full dictionary takes what fits");
    for (i = 0; i < 4; i++) {
        b[i].ptr = (const uint8_t *)names[5 + i];
        b[i].len = name_len[5 + i];
    }
    /* one entry in, room for three more: the fourth new key does not fit */
    d.x.n = d.c.nval;
    TU_CHECK_UINT(upq_w_dict_run(&d.c, &d.x, (const uint8_t *)b, 4), 3);
    TU_CHECK_UINT(d.c.dict_n, 4);
    TU_CHECK_INT(upq_w_dict_find(&d.c, b[3].ptr, b[3].len, &slot), -1);
    TU_CHECK_INT(upq_w_dict_find(&d.c, b[2].ptr, b[2].len, &slot), 3);
    TU_CHECK_INT(upq_w_dict_find(&d.c, (const uint8_t *)names[4], name_len[4], &slot), 0);
}

int main(void)
{
    test_byte_array();
    test_float();
    test_emptied_and_full();
    return tu_summary();
}
