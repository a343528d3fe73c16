/*
 * Thrift compact codec: hand-built byte vectors for every wire type and edge
 * case, decoded in every chunking and truncation, and encoded through every
 * output window size.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_desc.h"

static int passed, failed;
#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                    \
    } while (0)

/* ---- a test struct using every storage kind --------------------------- */

typedef struct inner {
    uint32_t isset;
    int32_t a;
} inner;
UPQ_LIST_TYPE(inner_list, inner);

typedef struct all {
    uint32_t isset;
    uint8_t b;         /* 1 */
    int8_t i8;         /* 2 */
    int16_t i16;       /* 3 */
    int32_t i32;       /* 4 */
    int64_t i64;       /* 5 */
    double d;          /* 6 */
    upq_bytes s;       /* 7 */
    uint8_t uuid[16];  /* 8 */
    inner st;          /* 9 */
    upq_i32_list li;   /* 10 */
    upq_bool_list lb;  /* 11 */
    upq_bytes_list ls; /* 12 */
    inner_list lst;    /* 13 */
    int32_t far;       /* 30 */
} all;

/* The test's description table: All refers to Inner by position. */
enum { D_INNER, D_ALL, D_UN };
#define K_INNER (UPQ_TK_STRUCT + D_INNER)

static const upq_tfield inner_fields[] = {
    UPQ_TFIELD(1 | UPQ_TF_REQUIRED, UPQ_TK_I32, offsetof(inner, a), "a"),
};

static const upq_tfield all_fields[] = {
    UPQ_TFIELD(1, UPQ_TK_BOOL, offsetof(all, b), "b"),
    UPQ_TFIELD(2, UPQ_TK_I8, offsetof(all, i8), "i8"),
    UPQ_TFIELD(3, UPQ_TK_I16, offsetof(all, i16), "i16"),
    UPQ_TFIELD(4, UPQ_TK_I32, offsetof(all, i32), "i32"),
    UPQ_TFIELD(5, UPQ_TK_I64, offsetof(all, i64), "i64"),
    UPQ_TFIELD(6, UPQ_TK_DOUBLE, offsetof(all, d), "d"),
    UPQ_TFIELD(7, UPQ_TK_BINARY, offsetof(all, s), "s"),
    UPQ_TFIELD(8, UPQ_TK_UUID, offsetof(all, uuid), "uuid"),
    UPQ_TFIELD(9, K_INNER, offsetof(all, st), "st"),
    UPQ_TFIELD(10 | UPQ_TF_LIST, UPQ_TK_I32, offsetof(all, li), "li"),
    UPQ_TFIELD(11 | UPQ_TF_LIST, UPQ_TK_BOOL, offsetof(all, lb), "lb"),
    UPQ_TFIELD(12 | UPQ_TF_LIST, UPQ_TK_BINARY, offsetof(all, ls), "ls"),
    UPQ_TFIELD(13 | UPQ_TF_LIST | UPQ_TF_PROJECT, K_INNER, offsetof(all, lst), "lst"),
    UPQ_TFIELD(30, UPQ_TK_I32, offsetof(all, far), "far"),
};

/* a union of two i32s */
typedef struct un {
    uint32_t isset;
    union {
        int32_t x;
        int32_t y;
    } u;
} un;
static const upq_tfield un_fields[] = {
    UPQ_TFIELD(1, UPQ_TK_I32, offsetof(un, u.x), "x"),
    UPQ_TFIELD(2, UPQ_TK_I32, offsetof(un, u.y), "y"),
};

static const upq_tstruct descs[] = {
    UPQ_TSTRUCT("Inner", inner_fields, 1, sizeof(inner), D_INNER),
    UPQ_TSTRUCT("All", all_fields, 14, sizeof(all), D_ALL),
    UPQ_TSTRUCT("Un", un_fields, 2, sizeof(un), D_UN | UPQ_TS_UNION),
};
#define inner_desc (descs[D_INNER])
#define all_desc (descs[D_ALL])
#define un_desc (descs[D_UN])

/* ---- byte vectors ------------------------------------------------------ */

typedef struct buf {
    uint8_t b[512];
    size_t n;
} buf;
static void put(buf *o, const uint8_t *p, size_t n)
{
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
#define PUT(o, ...)                                   \
    do {                                              \
        const uint8_t tmp_[] = {__VA_ARGS__};         \
        put((o), tmp_, sizeof tmp_);                  \
    } while (0)

static const uint8_t UUID[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

/* The canonical encoding of the test value: what our encoder must emit. */
static void known_fields(buf *o)
{
    PUT(o, 0x11);                         /* 1: bool true (value in header) */
    PUT(o, 0x13, 0xFB);                   /* 2: byte -5 */
    PUT(o, 0x14, 0x01);                   /* 3: i16 -1 (zigzag 1) */
    PUT(o, 0x15, 0xD8, 0x04);             /* 4: i32 300 (zigzag 600) */
    PUT(o, 0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01); /* 5: INT64_MIN */
    PUT(o, 0x17, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F); /* 6: double 1.5 */
    PUT(o, 0x18, 0x02, 'h', 'i');         /* 7: "hi" */
    PUT(o, 0x1D);                         /* 8: uuid */
    put(o, UUID, 16);
    PUT(o, 0x1C, 0x15, 0x0E, 0x00);       /* 9: struct {a = 7} */
    PUT(o, 0x19, 0x35, 0x02, 0x01, 0x04); /* 10: list<i32> [1, -1, 2] */
    PUT(o, 0x19, 0x21, 0x01, 0x02);       /* 11: list<bool> [true, false] */
    PUT(o, 0x19, 0xF8, 0x10);             /* 12: list<binary> of 16 (long form) */
    for (int i = 0; i < 16; i++)
        PUT(o, 0x01, (uint8_t)('a' + i));
    PUT(o, 0x19, 0x3C);                   /* 13: list<struct> of 3 */
    PUT(o, 0x15, 0x02, 0x00, 0x15, 0x04, 0x00, 0x15, 0x06, 0x00); /* a=1,2,3 */
    PUT(o, 0x05, 0x3C, 0x54);             /* 30: long-form id (delta 17), i32 42 */
}

/* Fields the descriptor does not know: every wire type, nested, to be skipped. */
static void unknown_fields(buf *o)
{
    PUT(o, 0x05, 0x28, 0x02);                   /* id 20 i32 1 (long form) */
    PUT(o, 0x1B, 0x02, 0x58, 0x02, 0x01, 'k', 0x04, 0x01, 'v'); /* 21 map<i32,bin> 2 */
    PUT(o, 0x1B, 0x00);                         /* 22 empty map: no type byte */
    PUT(o, 0x1C);                               /* 23 struct { */
    PUT(o, 0x11, 0x12, 0x13, 0x7F, 0x14, 0x02, 0x17, 1, 2, 3, 4, 5, 6, 7, 8);
    PUT(o, 0x1D);
    put(o, UUID, 16);
    PUT(o, 0x1A, 0x2C, 0x00, 0x11, 0x00);       /*   set<struct> of 2 */
    PUT(o, 0x19, 0x29, 0x35, 0x02, 0x04, 0x06, 0x05); /*   list<list<i32>> [[1,2,3],[]] */
    PUT(o, 0x00);                               /* } */
    PUT(o, 0x19, 0x21, 0x00, 0x01);             /* 24 list<bool> [false(0), true] */
    PUT(o, 0x19, 0x08);                         /* 25 empty list<binary> */
}

static void full_vector(buf *o)
{
    o->n = 0;
    known_fields(o);
    unknown_fields(o);
    /* field 10 again with a wrong wire type (i64): skipped, keeps the list.
     * The id is below the previous one, so long form. */
    PUT(o, 0x06, 0x14, 0x02);
    PUT(o, 0x00);
}

static void check_all(const all *v)
{
    CHECK(v->isset == (((1u << 14) - 2) | (1u << 30)));
    CHECK(v->b == 1);
    CHECK(v->i8 == -5);
    CHECK(v->i16 == -1);
    CHECK(v->i32 == 300);
    CHECK(v->i64 == INT64_MIN);
    CHECK(v->d == 1.5);
    CHECK(v->s.len == 2 && memcmp(v->s.ptr, "hi", 2) == 0);
    CHECK(memcmp(v->uuid, UUID, 16) == 0);
    CHECK(v->st.isset == 2 && v->st.a == 7);
    CHECK(v->li.n == 3 && v->li.v[0] == 1 && v->li.v[1] == -1 && v->li.v[2] == 2);
    CHECK(v->lb.n == 2 && v->lb.v[0] == 1 && v->lb.v[1] == 0);
    CHECK(v->ls.n == 16 && v->ls.v[15].len == 1 && v->ls.v[15].ptr[0] == 'p');
    CHECK(v->lst.n == 3 && v->lst.v[0].a == 1 && v->lst.v[2].a == 3);
    CHECK(v->far == 42);
}

static uint8_t arena_mem[1 << 16];

/* Decodes `in` feeding it in pieces of the sizes `chunk(i)` returns. */
static upq_status decode_chunked(const uint8_t *in, size_t n, all *out, size_t (*chunk)(size_t),
                                 size_t *consumed)
{
    upq_arena a;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    size_t pos = 0, k = 0;
    upq_status st = UPQ_AGAIN;
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &all_desc, out, &a, n, NULL);
    while (st == UPQ_AGAIN && pos < n) {
        size_t len = chunk(k++), used;
        if (len > n - pos)
            len = n - pos;
        st = upq_tdec_feed(&d, in + pos, len, &used);
        if (st == UPQ_AGAIN && used != len)
            return UPQ_ERR_STATE;
        pos += used;
        /* an empty feed must change nothing */
        if (st == UPQ_AGAIN) {
            st = upq_tdec_feed(&d, in + pos, 0, &used);
            if (used)
                return UPQ_ERR_STATE;
        }
    }
    *consumed = pos;
    return st;
}

static size_t one(size_t i) { (void)i; return 1; }
static size_t primes(size_t i)
{
    static const size_t p[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    return p[i % 12];
}
static unsigned rng_state = 12345;
static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) & 0x7fff;
}
static size_t randsz(size_t i) { (void)i; return 1 + rnd() % 40; }
static size_t whole(size_t i) { (void)i; return (size_t)-1; }

static void test_decode_all(void)
{
    buf v;
    all x;
    size_t used = 0;
    size_t (*chunkers[])(size_t) = {whole, one, primes, randsz};
    full_vector(&v);
    for (int c = 0; c < 4; c++) {
        for (int rep = 0; rep < (c == 3 ? 50 : 1); rep++) {
            upq_status st = decode_chunked(v.b, v.n, &x, chunkers[c], &used);
            CHECK(st == UPQ_OK);
            CHECK(used == v.n);
            if (st == UPQ_OK)
                check_all(&x);
        }
    }
}

static void test_encode_exact(void)
{
    buf v, canon = {{0}, 0};
    all x;
    upq_arena a;
    uint8_t out[512];
    size_t len = 0;
    full_vector(&v);
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    CHECK(upq_thrift_decode(&all_desc, &x, &a, v.b, v.n, NULL, NULL) == UPQ_OK);
    known_fields(&canon);
    PUT(&canon, 0x00);
    CHECK(upq_thrift_encode(&all_desc, &x, out, sizeof out, &len) == UPQ_OK);
    CHECK(len == canon.n && memcmp(out, canon.b, len) == 0);

    /* every output window size produces the same bytes */
    for (size_t w = 1; w <= canon.n + 1; w++) {
        upq_tenc e;
        uint8_t got[512];
        size_t total = 0, p;
        upq_status st;
        upq_tenc_init(&e, &all_desc, &x);
        do {
            size_t cap = w < sizeof got - total ? w : sizeof got - total;
            st = upq_tenc_run(&e, got + total, cap, &p);
            total += p;
        } while (st == UPQ_AGAIN);
        if (!(st == UPQ_OK && total == canon.n && memcmp(got, canon.b, total) == 0)) {
            printf("  window %zu\n", w);
            CHECK(0);
        }
    }
    passed++;

    /* too small: the exact size is reported */
    for (size_t cap = 0; cap < canon.n; cap += 7) {
        CHECK(upq_thrift_encode(&all_desc, &x, out, cap, &len) == UPQ_ERR_BUFFER);
        CHECK(len == canon.n);
    }
}

static void test_truncation(void)
{
    buf v;
    all x;
    upq_arena a;
    full_vector(&v);
    int bad = 0;
    for (size_t n = 0; n < v.n; n++) {
        upq_tdec d;
        upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
        size_t used;
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        /* every prefix: the one-shot decoder says truncated ... */
        upq_status st = upq_thrift_decode(&all_desc, &x, &a, v.b, n, NULL, NULL);
        if (st != UPQ_ERR_TRUNCATED && st != UPQ_ERR_CORRUPT) {
            printf("  prefix %zu: %d\n", n, st);
            bad++;
        }
        /* ... and a streaming decoder that expects more says "again" */
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &all_desc, &x, &a, v.n, NULL);
        if (upq_tdec_feed(&d, v.b, n, &used) != UPQ_AGAIN || used != n)
            bad++;
    }
    CHECK(bad == 0);
}

static upq_status dec(const buf *v, all *x, const upq_thrift_limits *lim, upq_tdec *dout)
{
    static uint8_t mem[4096];
    upq_arena a;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    size_t used;
    upq_status st;
    upq_arena_init(&a, mem, sizeof mem);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &all_desc, x, &a, v->n, lim);
    st = upq_tdec_feed(&d, v->b, v->n, &used);
    if (dout)
        *dout = d;
    return st;
}

static void test_varints(void)
{
    buf v;
    all x;
    /* i64 max: zigzag 0xFFFFFFFFFFFFFFFE */
    v.n = 0;
    PUT(&v, 0x56, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.i64 == INT64_MAX);
    /* i32 min and max */
    v.n = 0;
    PUT(&v, 0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.i32 == INT32_MIN);
    v.n = 0;
    PUT(&v, 0x45, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.i32 == INT32_MAX);
    /* i32 one past the range */
    v.n = 0;
    PUT(&v, 0x45, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* i16 out of range */
    v.n = 0;
    PUT(&v, 0x34, 0x80, 0x80, 0x04, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* 11-byte varint */
    v.n = 0;
    PUT(&v, 0x56, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* 10th byte with bits beyond 64 */
    v.n = 0;
    PUT(&v, 0x56, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* negative zigzag in a long-form field id: id -1 is unknown, skipped */
    v.n = 0;
    PUT(&v, 0x05, 0x01, 0x02, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.isset == 0);
    /* list<i32> whose header declares i16 elements: read as i32, like the
     * reference readers (one corpus file does this) */
    v.n = 0;
    PUT(&v, 0xA9, 0x24, 0x02, 0x03, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.li.n == 2 && x.li.v[0] == 1 && x.li.v[1] == -2);
    /* ... but i64 elements out of i32 range are corrupt */
    v.n = 0;
    PUT(&v, 0xA9, 0x16, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* non-minimal varint (padded with 0x80) is accepted as its value */
    v.n = 0;
    PUT(&v, 0x45, 0x84, 0x80, 0x00, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_OK && x.i32 == 2);
}

static void test_limits(void)
{
    buf v;
    all x;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    upq_thrift_limits lim;
    /* nesting: unknown field 20 holding structs nested `k` deep */
    for (int k = 1; k <= UPQ_THRIFT_MAX_DEPTH; k++) {
        v.n = 0;
        PUT(&v, 0x0C, 0x28); /* id 20, struct */
        for (int i = 1; i < k; i++)
            PUT(&v, 0x1C);   /* field 1, struct */
        for (int i = 0; i < k; i++)
            PUT(&v, 0x00);
        PUT(&v, 0x00);
        /* root + k nested structs: allowed while the total stays within the limit */
        upq_status st = dec(&v, &x, NULL, NULL);
        if (k + 1 <= UPQ_THRIFT_MAX_DEPTH)
            CHECK(st == UPQ_OK);
        else
            CHECK(st == UPQ_ERR_LIMIT);
    }
    /* a lower runtime limit */
    upq_thrift_limits_default(&lim);
    lim.max_depth = 3;
    v.n = 0;
    PUT(&v, 0x0C, 0x28, 0x1C, 0x00, 0x00, 0x00); /* depth 3: ok */
    CHECK(dec(&v, &x, &lim, NULL) == UPQ_OK);
    v.n = 0;
    PUT(&v, 0x0C, 0x28, 0x1C, 0x1C, 0x00, 0x00, 0x00, 0x00); /* depth 4 */
    CHECK(dec(&v, &x, &lim, NULL) == UPQ_ERR_LIMIT);
    /* a decoder given fewer frames than the limit stops at its frames */
    {
        static uint8_t mem[1024];
        upq_arena a;
        size_t used;
        upq_arena_init(&a, mem, sizeof mem);
        v.n = 0;
        PUT(&v, 0x0C, 0x28, 0x1C, 0x00, 0x00, 0x00); /* depth 3 */
        upq_tdec_init(&d, fr, 3, &all_desc, &x, &a, v.n, NULL);
        CHECK(upq_tdec_feed(&d, v.b, v.n, &used) == UPQ_OK);
        v.n = 0;
        PUT(&v, 0x0C, 0x28, 0x1C, 0x1C, 0x00, 0x00, 0x00, 0x00); /* depth 4 */
        upq_tdec_init(&d, fr, 3, &all_desc, &x, &a, v.n, NULL);
        CHECK(upq_tdec_feed(&d, v.b, v.n, &used) == UPQ_ERR_LIMIT);
    }
    /* list of lists counts toward depth too */
    v.n = 0;
    PUT(&v, 0x09, 0x28, 0x19, 0x19, 0x19, 0x00, 0x00);
    CHECK(dec(&v, &x, &lim, NULL) == UPQ_ERR_LIMIT);

    /* list count beyond the bytes left */
    v.n = 0;
    PUT(&v, 0xA9, 0xF5, 0x90, 0x4E, 0x02, 0x00); /* 10000 i32s declared, 2 bytes follow */
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* doubles: 8 bytes each */
    v.n = 0;
    PUT(&v, 0x09, 0x28, 0x37, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* list count over the configured limit */
    upq_thrift_limits_default(&lim);
    lim.max_list = 2;
    v.n = 0;
    PUT(&v, 0xA9, 0x35, 0x02, 0x04, 0x06, 0x00);
    CHECK(dec(&v, &x, &lim, NULL) == UPQ_ERR_LIMIT);
    /* binary longer than the message, and over the limit */
    v.n = 0;
    PUT(&v, 0x78, 0x05, 'a', 'b', 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    lim.max_binary = 1;
    v.n = 0;
    PUT(&v, 0x78, 0x02, 'a', 'b', 0x00);
    CHECK(dec(&v, &x, &lim, NULL) == UPQ_ERR_LIMIT);
    /* bad wire types */
    v.n = 0;
    PUT(&v, 0x1E, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    v.n = 0;
    PUT(&v, 0xA9, 0x1F, 0x00, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* bool list element other than 0/1/2 */
    v.n = 0;
    PUT(&v, 0xB9, 0x11, 0x03, 0x00);
    CHECK(dec(&v, &x, NULL, NULL) == UPQ_ERR_CORRUPT);
    /* missing required field in a nested struct is named */
    v.n = 0;
    PUT(&v, 0x9C, 0x00, 0x00);
    CHECK(dec(&v, &x, NULL, &d) == UPQ_ERR_CORRUPT);
    CHECK(d.err_field && strcmp(d.err_field, "a") == 0);
    CHECK(d.err_struct && strcmp(d.err_struct, "Inner") == 0);
    CHECK(d.err_pos == 1);
    /* bytes after the struct are not consumed */
    {
        static uint8_t mem[256];
        upq_arena a;
        size_t used;
        const uint8_t in[] = {0x45, 0x02, 0x00, 0xEE, 0xEE};
        upq_arena_init(&a, mem, sizeof mem);
        CHECK(upq_thrift_decode(&all_desc, &x, &a, in, sizeof in, &used, NULL) == UPQ_OK);
        CHECK(used == 3 && x.i32 == 1);
    }
}

static void test_union(void)
{
    static uint8_t mem[256];
    upq_arena a;
    un u;
    const uint8_t one_member[] = {0x25, 0x06, 0x00};
    const uint8_t two_members[] = {0x15, 0x02, 0x15, 0x04, 0x00};
    const uint8_t none[] = {0x35, 0x02, 0x00}; /* unknown member 3: skipped */
    upq_arena_init(&a, mem, sizeof mem);
    CHECK(upq_thrift_decode(&un_desc, &u, &a, one_member, 3, NULL, NULL) == UPQ_OK);
    CHECK(u.isset == 4 && u.u.y == 3);
    CHECK(upq_thrift_decode(&un_desc, &u, &a, two_members, 5, NULL, NULL) == UPQ_ERR_CORRUPT);
    CHECK(upq_thrift_decode(&un_desc, &u, &a, none, 3, NULL, NULL) == UPQ_OK && u.isset == 0);
}

static void test_projection_and_nomem(void)
{
    static uint8_t mem[4096];
    upq_arena a;
    upq_tdec d;
    upq_tframe fr[UPQ_THRIFT_MAX_DEPTH];
    all x;
    size_t used;
    buf v;
    const uint8_t bits[1] = {0x0A}; /* elements 1 and 3 */
    v.n = 0;
    PUT(&v, 0xD9, 0x5C); /* 13: list<struct> of 5 */
    for (int i = 0; i < 5; i++)
        PUT(&v, 0x15, (uint8_t)(2 * (10 + i)), 0x00);
    PUT(&v, 0x00);
    upq_arena_init(&a, mem, sizeof mem);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &all_desc, &x, &a, v.n, NULL);
    upq_tdec_set_projection(&d, bits, 8);
    CHECK(upq_tdec_feed(&d, v.b, v.n, &used) == UPQ_OK);
    CHECK(x.lst.n == 2 && x.lst.v[0].a == 11 && x.lst.v[1].a == 13);
    /* the skipped elements took no memory: two slots only */
    CHECK(upq_arena_high_water(&a) == 2 * sizeof(inner));

    /* arena exhaustion names the bytes needed */
    upq_arena_init(&a, mem, 16);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, &all_desc, &x, &a, v.n, NULL);
    CHECK(upq_tdec_feed(&d, v.b, v.n, &used) == UPQ_ERR_NOMEM);
    CHECK(upq_arena_needed(&a) == 5 * sizeof(inner));

    /* skip mode (no descriptor) validates without storing */
    full_vector(&v);
    upq_tdec_init(&d, fr, UPQ_THRIFT_MAX_DEPTH, NULL, NULL, NULL, v.n, NULL);
    CHECK(upq_tdec_feed(&d, v.b, v.n, &used) == UPQ_OK && used == v.n);
}

int main(void)
{
    test_decode_all();
    test_encode_exact();
    test_truncation();
    test_varints();
    test_limits();
    test_union();
    test_projection_and_nomem();
    printf("test_thrift: %d passed, %d failed\n", passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
