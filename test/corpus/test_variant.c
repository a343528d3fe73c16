/*
 * Variant binary encoding against the parquet-testing variant/ files and the
 * format's rules:
 *  - every *.metadata + *.value pair parses and validates, and re-encoding it
 *    through the builder (keys in dictionary order, object members in the
 *    order their values are laid out) gives the same bytes;
 *  - a few values are checked against data_dictionary.json's contents by
 *    type (the JSON rendering itself is compared by variant_json.mjs);
 *  - every truncation of every corpus value fails; byte flips never crash;
 *  - builder rules: keys sorted, duplicates rejected, sizes grow to 2-4
 *    bytes and is_large past 255 elements, nesting beyond the limit fails;
 *  - random values built, validated, walked and rebuilt are equal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/variant.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"
#include "util/variant_cmp.h"

#define OUT_CAP (1u << 20)

typedef struct enc {
    upq_variant_keys keys;
    uint8_t kbytes[1 << 16];
    uint32_t koffs[4097];
    upq_variant_builder b;
    uint8_t out[OUT_CAP];
    upq_variant_entry ents[8192];
    upq_variant_build_frame frames[64];
} enc;

static enc E;

static void enc_init(enc *e)
{
    upq_variant_keys_init(&e->keys, e->kbytes, sizeof e->kbytes, e->koffs, 4096);
    upq_variant_builder_init(&e->b, &e->keys, e->out, sizeof e->out, e->ents, 8192, e->frames, 64);
}

/* Re-encodes v (test code: recursive). Object members go in the order of
 * their value offsets, as the original writer laid them out. */
static void reencode(const upq_variant_meta *m, upq_variant v)
{
    upq_variant_item it;
    uint32_t i, j;
    if (upq_variant_item_read(v.p, v.len, &it) != UPQ_OK) {
        TU_CHECK_MSG(0, "unreadable value");
        return;
    }
    switch (it.type) {
    case UPQ_VARIANT_OBJECT:
    case UPQ_VARIANT_ARRAY: {
        uint32_t *order = malloc((it.count + 1) * sizeof *order);
        upq_variant *kids = malloc((it.count + 1) * sizeof *kids);
        uint32_t *ids = malloc((it.count + 1) * sizeof *ids);
        for (i = 0; i < it.count; i++) {
            upq_variant_child(v, i, &kids[i], &ids[i]);
            order[i] = i;
        }
        for (i = 1; i < it.count; i++) /* by position in the value */
            for (j = i; j > 0 && kids[order[j - 1]].p > kids[order[j]].p; j--) {
                uint32_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        if (it.type == UPQ_VARIANT_OBJECT)
            upq_variant_build_begin_object(&E.b);
        else
            upq_variant_build_begin_array(&E.b);
        for (i = 0; i < it.count; i++) {
            if (it.type == UPQ_VARIANT_OBJECT) {
                const uint8_t *kp;
                size_t kl;
                uint32_t id = UPQ_NONE;
                upq_variant_meta_key(m, ids[order[i]], &kp, &kl);
                upq_variant_keys_add(&E.keys, kp, kl, &id);
                upq_variant_build_key(&E.b, id);
            }
            reencode(m, kids[order[i]]);
        }
        upq_variant_build_end(&E.b);
        free(order);
        free(kids);
        free(ids);
        return;
    }
    case UPQ_VARIANT_NULL: upq_variant_build_null(&E.b); return;
    case UPQ_VARIANT_TRUE:
    case UPQ_VARIANT_FALSE: upq_variant_build_bool(&E.b, it.type == UPQ_VARIANT_TRUE); return;
    case UPQ_VARIANT_DOUBLE: upq_variant_build_double(&E.b, it.d); return;
    case UPQ_VARIANT_FLOAT: upq_variant_build_float(&E.b, it.f); return;
    case UPQ_VARIANT_DECIMAL4:
    case UPQ_VARIANT_DECIMAL8:
        upq_variant_build_decimal(&E.b, (upq_variant_kind)it.type, it.scale, it.i);
        return;
    case UPQ_VARIANT_DECIMAL16: upq_variant_build_decimal16(&E.b, it.scale, it.bytes); return;
    case UPQ_VARIANT_STRING: upq_variant_build_string(&E.b, it.bytes, it.len); return;
    case UPQ_VARIANT_BINARY: upq_variant_build_binary(&E.b, it.bytes, it.len); return;
    case UPQ_VARIANT_UUID: upq_variant_build_uuid(&E.b, it.bytes); return;
    default: upq_variant_build_int(&E.b, (upq_variant_kind)it.type, it.i); return;
    }
}

static uint8_t *corpus_file(const char *dir, const char *name, const char *ext, size_t *len)
{
    char path[4096];
    uint8_t *p = NULL;
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    if (tu_read_file(path, &p, len) != 0)
        return NULL;
    return p;
}

/* Expected contents of some corpus values, from data_dictionary.json. */
static void check_known(const char *name, const upq_variant_meta *m, const uint8_t *v, size_t n)
{
    upq_variant_item it;
    upq_variant root = {v, n}, child;
    TU_CHECK_STATUS(upq_variant_item_read(v, n, &it), UPQ_OK);
    if (!strcmp(name, "primitive_int64")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_INT64);
        TU_CHECK(it.i == 1234567890123456789LL);
    } else if (!strcmp(name, "primitive_decimal4")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_DECIMAL4);
        TU_CHECK_INT(it.i, 1234);
        TU_CHECK_INT(it.scale, 2);
    } else if (!strcmp(name, "primitive_date")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_DATE);
        TU_CHECK_INT(it.i, 20194); /* 2025-04-16 */
    } else if (!strcmp(name, "primitive_timestamp_nanos")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_TIMESTAMP_NANOS);
        TU_CHECK(it.i == 1730982834123456789LL); /* 2024-11-07T12:33:54.123456789Z */
    } else if (!strcmp(name, "object_primitive")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_OBJECT);
        TU_CHECK_INT(it.count, 7);
        TU_CHECK_STATUS(upq_variant_find(m, root, "string_field", 12, &child), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_item_read(child.p, child.len, &it), UPQ_OK);
        TU_CHECK(it.len == 14 && memcmp(it.bytes, "Apache Parquet", 14) == 0);
        TU_CHECK_STATUS(upq_variant_find(m, root, "nope", 4, &child), UPQ_DONE);
    } else if (!strcmp(name, "array_primitive")) {
        TU_CHECK_INT(it.type, UPQ_VARIANT_ARRAY);
        TU_CHECK_INT(it.count, 4);
        TU_CHECK_STATUS(upq_variant_child(root, 3, &child, NULL), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_item_read(child.p, child.len, &it), UPQ_OK);
        TU_CHECK_INT(it.i, 9);
    }
}

static void test_corpus(void)
{
    char dir[1024];
    tu_file_list l;
    size_t k;
    unsigned pairs = 0;
    snprintf(dir, sizeof dir, "%s/variant", tu_corpus_dir());
    if (tu_list_files(dir, ".metadata", &l) != 0 || l.n == 0) {
        TU_CHECK_MSG(0, "no variant/*.metadata under %s", dir);
        return;
    }
    for (k = 0; k < l.n; k++) {
        char name[1024];
        const char *base = tu_basename(l.paths[k]);
        size_t mn = 0, vn = 0, len, i;
        uint8_t *mb, *vb;
        upq_variant_meta m;
        upq_status st;
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 9), base);
        tu_case("variant/%s", name);
        mb = corpus_file(dir, name, ".metadata", &mn);
        vb = corpus_file(dir, name, ".value", &vn);
        if (!TU_CHECK_MSG(mb && vb, "%s: both files readable", name)) {
            free(mb);
            free(vb);
            continue;
        }
        pairs++;
        TU_CHECK_STATUS(upq_variant_meta_parse(&m, mb, mn), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_validate(&m, vb, vn), UPQ_OK);
        check_known(name, &m, vb, vn);

        /* metadata again, keys in dictionary order */
        enc_init(&E);
        for (i = 0; i < m.count; i++) {
            const uint8_t *kp;
            size_t kl;
            uint32_t id = 0;
            upq_variant_meta_key(&m, (uint32_t)i, &kp, &kl);
            TU_CHECK_STATUS(upq_variant_keys_add(&E.keys, kp, kl, &id), UPQ_OK);
            TU_CHECK_INT(id, i);
        }
        {
            uint8_t mo[1 << 12];
            st = upq_variant_keys_finish(&E.keys,
                                         m.sorted ? UPQ_VARIANT_SORTED_ALWAYS
                                                  : UPQ_VARIANT_SORTED_NEVER,
                                         mo, sizeof mo, &len);
            TU_CHECK_STATUS(st, UPQ_OK);
            if (TU_CHECK_INT(len, mn))
                TU_CHECK_MEM(mo, mb, mn);
        }
        /* and the value */
        {
            upq_variant root = {vb, vn};
            reencode(&m, root);
            st = upq_variant_build_finish(&E.b, &len);
            TU_CHECK_STATUS(st, UPQ_OK);
            if (st == UPQ_OK && TU_CHECK_INT(len, vn))
                TU_CHECK_MEM(E.out, vb, vn);
        }
        /* every truncation fails, and so does one byte more */
        {
            int bad = 0;
            uint8_t *cut = malloc(vn + 1);
            for (i = 0; i < vn; i++) {
                memcpy(cut, vb, i);
                if (upq_variant_validate(&m, cut, i) == UPQ_OK)
                    bad++;
            }
            memcpy(cut, vb, vn);
            cut[vn] = 0;
            TU_CHECK_INT(bad, 0);
            TU_CHECK(upq_variant_validate(&m, cut, vn + 1) != UPQ_OK);
            free(cut);
        }
        /* flipped bytes: an answer, never a crash (ASan/UBSan watch) */
        {
            uint64_t rs = 0x1234567u + k;
            uint8_t *x = malloc(vn);
            int r;
            for (r = 0; r < 200; r++) {
                memcpy(x, vb, vn);
                x[tu_rand_below(&rs, vn)] ^= (uint8_t)(1u << tu_rand_below(&rs, 8));
                (void)upq_variant_validate(&m, x, vn);
            }
            free(x);
        }
        free(mb);
        free(vb);
    }
    tu_case("variant/ pairs found");
    TU_CHECK_MSG(pairs >= 29, "%u pairs", pairs);
    tu_file_list_free(&l);
}

/* ---- builder rules ------------------------------------------------------------ */

static uint32_t key(const char *s)
{
    uint32_t id = 0;
    upq_variant_keys_add(&E.keys, s, strlen(s), &id);
    return id;
}

static void test_builder(void)
{
    size_t len, i;
    upq_variant_meta m;
    uint8_t meta[1 << 16];
    size_t mlen;
    upq_variant root, c;
    upq_variant_item it;
    uint32_t id;
    static char filler[300];

    tu_case("builder: object keys sorted, values where written");
    enc_init(&E);
    upq_variant_build_begin_object(&E.b);
    upq_variant_build_key(&E.b, key("c"));
    upq_variant_build_int(&E.b, UPQ_VARIANT_INT8, 3);
    upq_variant_build_key(&E.b, key("b"));
    upq_variant_build_int(&E.b, UPQ_VARIANT_INT8, 2);
    upq_variant_build_key(&E.b, key("a"));
    upq_variant_build_int(&E.b, UPQ_VARIANT_INT8, 1);
    upq_variant_build_end(&E.b);
    TU_CHECK_STATUS(upq_variant_build_finish(&E.b, &len), UPQ_OK);
    {
        /* ids [a=2, b=1, c=0], offsets [4, 2, 0, 6] (spec example layout) */
        static const uint8_t want[] = {0x02, 3, 2, 1, 0, 4, 2, 0, 6, 0x0c, 3, 0x0c, 2, 0x0c, 1};
        if (TU_CHECK_INT(len, sizeof want))
            TU_CHECK_MEM(E.out, want, sizeof want);
    }
    TU_CHECK_STATUS(upq_variant_keys_finish(&E.keys, UPQ_VARIANT_SORTED_ALWAYS, meta, sizeof meta,
                                            &mlen),
                    UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_variant_keys_finish(&E.keys, UPQ_VARIANT_SORTED_AUTO, meta, sizeof meta,
                                            &mlen),
                    UPQ_OK);
    TU_CHECK_INT(meta[0], 0x01); /* c, b, a: not sorted */
    TU_CHECK_STATUS(upq_variant_meta_parse(&m, meta, mlen), UPQ_OK);
    TU_CHECK_STATUS(upq_variant_validate(&m, E.out, len), UPQ_OK);
    TU_CHECK_INT(upq_variant_meta_find(&m, "b", 1), 1);
    TU_CHECK_INT(upq_variant_meta_find(&m, "x", 1), UPQ_NONE);

    tu_case("builder: duplicate key rejected");
    enc_init(&E);
    upq_variant_build_begin_object(&E.b);
    upq_variant_build_key(&E.b, key("k"));
    upq_variant_build_null(&E.b);
    upq_variant_build_key(&E.b, key("k"));
    upq_variant_build_null(&E.b);
    TU_CHECK_STATUS(upq_variant_build_end(&E.b), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_variant_build_finish(&E.b, &len), UPQ_ERR_INVAL);

    tu_case("builder: misuse");
    enc_init(&E);
    upq_variant_build_begin_object(&E.b);
    TU_CHECK_STATUS(upq_variant_build_null(&E.b), UPQ_ERR_INVAL); /* no key */
    enc_init(&E);
    upq_variant_build_null(&E.b);
    TU_CHECK_STATUS(upq_variant_build_null(&E.b), UPQ_ERR_INVAL); /* second value */
    enc_init(&E);
    TU_CHECK_STATUS(upq_variant_build_end(&E.b), UPQ_ERR_INVAL);
    enc_init(&E);
    TU_CHECK_STATUS(upq_variant_build_int(&E.b, UPQ_VARIANT_INT8, 128), UPQ_ERR_INVAL);
    enc_init(&E);
    upq_variant_build_begin_array(&E.b);
    TU_CHECK_STATUS(upq_variant_build_finish(&E.b, &len), UPQ_ERR_INVAL); /* still open */

    tu_case("builder: out of room is reported");
    {
        uint8_t small[8];
        upq_variant_builder b;
        upq_variant_entry e[4];
        upq_variant_build_frame f[2];
        upq_variant_builder_init(&b, NULL, small, sizeof small, e, 4, f, 2);
        TU_CHECK_STATUS(upq_variant_build_string(&b, "0123456789", 10), UPQ_ERR_BUFFER);
        upq_variant_builder_init(&b, NULL, small, sizeof small, e, 4, f, 2);
        upq_variant_build_begin_array(&b);
        upq_variant_build_begin_array(&b);
        TU_CHECK_STATUS(upq_variant_build_begin_array(&b), UPQ_ERR_LIMIT);
    }

    tu_case("builder: 300 elements, 300 keys, long data: wide sizes");
    memset(filler, '.', sizeof filler);
    enc_init(&E);
    upq_variant_build_begin_object(&E.b);
    for (i = 0; i < 300; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%03zu", i);
        upq_variant_build_key(&E.b, key(k));
        upq_variant_build_string(&E.b, filler, 250 + i % 7);
    }
    upq_variant_build_end(&E.b);
    TU_CHECK_STATUS(upq_variant_build_finish(&E.b, &len), UPQ_OK);
    TU_CHECK_INT(E.out[0] & 3, 2);
    TU_CHECK_INT((E.out[0] >> 6) & 1, 1);          /* is_large */
    TU_CHECK_INT(((E.out[0] >> 4) & 3) + 1, 2);    /* 2-byte field ids */
    TU_CHECK_INT(((E.out[0] >> 2) & 3) + 1, 3);    /* 3-byte offsets (~76 KB) */
    TU_CHECK_STATUS(upq_variant_keys_finish(&E.keys, UPQ_VARIANT_SORTED_AUTO, meta, sizeof meta,
                                            &mlen),
                    UPQ_OK);
    TU_CHECK_INT(meta[0], 0x51); /* sorted, 2-byte offsets */
    TU_CHECK_STATUS(upq_variant_meta_parse(&m, meta, mlen), UPQ_OK);
    TU_CHECK_STATUS(upq_variant_validate(&m, E.out, len), UPQ_OK);
    root.p = E.out;
    root.len = len;
    TU_CHECK_STATUS(upq_variant_find(&m, root, "k299", 4, &c), UPQ_OK);
    TU_CHECK_STATUS(upq_variant_item_read(c.p, c.len, &it), UPQ_OK);
    TU_CHECK_INT(it.len, 250 + 299 % 7);
    TU_CHECK_STATUS(upq_variant_child(root, 150, &c, &id), UPQ_OK);
    TU_CHECK_INT(id, 150);

    tu_case("walker: nesting limit");
    {
        static uint8_t deep[UPQ_VARIANT_MAX_DEPTH * 4 + 8];
        static const uint8_t empty_meta[] = {1, 0, 0};
        size_t d, n = UPQ_VARIANT_MAX_DEPTH + 1;
        /* arrays of one element nested n deep, around a null: 03 01 00 <size> ... */
        for (d = 0; d < n; d++) {
            size_t inner = (n - d - 1) * 4 + 1;
            deep[d * 4] = 0x03;
            deep[d * 4 + 1] = 1;
            deep[d * 4 + 2] = 0;
            deep[d * 4 + 3] = (uint8_t)inner;
        }
        deep[n * 4] = 0;
        TU_CHECK_STATUS(upq_variant_meta_parse(&m, empty_meta, 3), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_validate(&m, deep, n * 4 + 1), UPQ_ERR_LIMIT);
        TU_CHECK_STATUS(upq_variant_validate(&m, deep + 4, n * 4 - 3), UPQ_OK);
    }

    tu_case("validator: bad ids, order, UTF-8, metadata");
    {
        static const uint8_t meta2[] = {0x01, 2, 0, 1, 2, 'a', 'b'};
        static const uint8_t dup[] = {0x02, 2, 0, 0, 0, 1, 2, 0, 0}; /* key a twice */
        static const uint8_t bad_id[] = {0x02, 1, 5, 0, 1, 0};
        static const uint8_t unsorted[] = {0x02, 2, 1, 0, 0, 1, 2, 0, 0};
        static const uint8_t bad_utf8[] = {0x05, 0xC0};
        static const uint8_t bad_meta[] = {0x11, 2, 0, 1, 2, 'b', 'a'}; /* sorted flag lies */
        static const uint8_t bad_ver[] = {0x02, 0, 0};
        static const uint8_t ok[] = {0x02, 2, 0, 1, 0, 1, 2, 0, 0};
        TU_CHECK_STATUS(upq_variant_meta_parse(&m, meta2, sizeof meta2), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_validate(&m, ok, sizeof ok), UPQ_OK);
        TU_CHECK_STATUS(upq_variant_validate(&m, dup, sizeof dup), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_variant_validate(&m, bad_id, sizeof bad_id), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_variant_validate(&m, unsorted, sizeof unsorted), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_variant_validate(&m, bad_utf8, sizeof bad_utf8), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_variant_meta_parse(&m, bad_meta, sizeof bad_meta), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_variant_meta_parse(&m, bad_ver, sizeof bad_ver), UPQ_ERR_UNSUPPORTED);
    }
}

/* ---- random values ---------------------------------------------------------------- */

static uint64_t rs;

static void gen(int depth)
{
    unsigned t = (unsigned)tu_rand_below(&rs, depth < 5 ? 24 : 21);
    size_t i, n;
    uint8_t b[64];
    for (i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)('a' + tu_rand_below(&rs, 26));
    switch (t) {
    case 0: upq_variant_build_null(&E.b); break;
    case 1:
    case 2: upq_variant_build_bool(&E.b, t == 1); break;
    case 3: upq_variant_build_int(&E.b, UPQ_VARIANT_INT8, (int64_t)tu_rand_below(&rs, 256) - 128); break;
    case 4: upq_variant_build_int(&E.b, UPQ_VARIANT_INT16, (int16_t)tu_rand(&rs)); break;
    case 5: upq_variant_build_int(&E.b, UPQ_VARIANT_INT32, (int32_t)tu_rand(&rs)); break;
    case 6: upq_variant_build_int(&E.b, UPQ_VARIANT_INT64, (int64_t)tu_rand(&rs)); break;
    case 7: upq_variant_build_double(&E.b, (double)(int64_t)tu_rand(&rs) / 7.0); break;
    case 8: upq_variant_build_decimal(&E.b, UPQ_VARIANT_DECIMAL4, 2, (int32_t)tu_rand(&rs)); break;
    case 9: upq_variant_build_decimal(&E.b, UPQ_VARIANT_DECIMAL8, 18, (int64_t)tu_rand(&rs)); break;
    case 10: upq_variant_build_decimal16(&E.b, 38, b); break;
    case 11: upq_variant_build_int(&E.b, UPQ_VARIANT_DATE, (int32_t)tu_rand(&rs)); break;
    case 12:
    case 13:
    case 17:
    case 18:
    case 19: upq_variant_build_int(&E.b, (upq_variant_kind)t, (int64_t)tu_rand(&rs)); break;
    case 14: upq_variant_build_float(&E.b, (float)(int32_t)tu_rand(&rs) / 3.0f); break;
    case 15: upq_variant_build_binary(&E.b, b, tu_rand_below(&rs, 64)); break;
    case 16: upq_variant_build_string(&E.b, b, tu_rand_below(&rs, 64)); break;
    case 20: upq_variant_build_uuid(&E.b, b); break;
    case 21:
    case 22:
        n = tu_rand_below(&rs, 6);
        upq_variant_build_begin_object(&E.b);
        for (i = 0; i < n; i++) {
            char k[8];
            snprintf(k, sizeof k, "f%u", (unsigned)tu_rand_below(&rs, 40) + (unsigned)i * 40);
            upq_variant_build_key(&E.b, key(k));
            gen(depth + 1);
        }
        upq_variant_build_end(&E.b);
        break;
    default:
        n = tu_rand_below(&rs, 6);
        upq_variant_build_begin_array(&E.b);
        for (i = 0; i < n; i++)
            gen(depth + 1);
        upq_variant_build_end(&E.b);
        break;
    }
}

static void test_random(void)
{
    static uint8_t v1[OUT_CAP], m1[1 << 16], m2[1 << 16];
    int r, bad = 0;
    rs = tu_seed();
    tu_case("random values: build, validate, rebuild, compare");
    tu_note("seed %llu", (unsigned long long)rs);
    for (r = 0; r < 2000; r++) {
        size_t vl, ml, vl2, ml2;
        upq_variant_meta m;
        char why[200];
        enc_init(&E);
        gen(0);
        if (upq_variant_build_finish(&E.b, &vl) != UPQ_OK ||
            upq_variant_keys_finish(&E.keys, UPQ_VARIANT_SORTED_AUTO, m1, sizeof m1, &ml) != UPQ_OK) {
            bad++;
            continue;
        }
        memcpy(v1, E.out, vl);
        if (upq_variant_meta_parse(&m, m1, ml) != UPQ_OK || upq_variant_validate(&m, v1, vl) != UPQ_OK) {
            bad++;
            continue;
        }
        enc_init(&E);
        {
            upq_variant root = {v1, vl};
            reencode(&m, root);
        }
        /* keys were added as found: a different dictionary, the same value */
        if (upq_variant_build_finish(&E.b, &vl2) != UPQ_OK ||
            upq_variant_keys_finish(&E.keys, UPQ_VARIANT_SORTED_AUTO, m2, sizeof m2, &ml2) != UPQ_OK ||
            tu_variant_equal(m1, ml, v1, vl, m2, ml2, E.out, vl2, why, sizeof why) != 1) {
            if (bad++ < 3)
                TU_CHECK_MSG(0, "round %d differs", r);
        }
    }
    TU_CHECK_INT(bad, 0);
}

int main(void)
{
    test_corpus();
    test_builder();
    test_random();
    return tu_summary();
}
