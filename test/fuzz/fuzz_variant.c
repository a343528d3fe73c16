/*
 * libFuzzer target: Variant metadata and values from untrusted bytes.
 *
 * Input: a 2-byte little-endian metadata length m, then m bytes of metadata
 * (fewer when the input is shorter), then the value. Both are parsed and
 * validated; an item is also read at each of the input's first 64 offsets
 * (the header reader must stay in bounds on its own). A value that validates is
 * rebuilt through the builder from its walk (keys seeded from the
 * metadata), and the rebuilt value must validate and walk to the same
 * steps. Any violation aborts; the sanitizers catch the rest.
 *
 * Build and run: make fuzz (or make check, which runs it briefly).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/variant.h"

#define OUT_CAP (1u << 20)

static uint8_t kbytes[1u << 16];
static uint32_t koffs[(1u << 16) + 1];
static uint8_t out[OUT_CAP];
static upq_variant_entry ents[1u << 16];
static upq_variant_build_frame frames[UPQ_VARIANT_MAX_DEPTH + 1];

static void fail(const char *what, int a, int b)
{
    fprintf(stderr, "fuzz_variant: %s: %d vs %d\n", what, a, b);
    abort();
}

static void rebuild_step(upq_variant_builder *b, const upq_variant_step *s)
{
    const upq_variant_item *it = &s->item;
    if (s->field_id != UPQ_NONE)
        upq_variant_build_key(b, s->field_id);
    switch (s->event) {
    case UPQ_VEV_BEGIN_OBJECT: upq_variant_build_begin_object(b); return;
    case UPQ_VEV_BEGIN_ARRAY: upq_variant_build_begin_array(b); return;
    default: break;
    }
    switch (it->type) {
    case UPQ_VARIANT_NULL: upq_variant_build_null(b); break;
    case UPQ_VARIANT_TRUE:
    case UPQ_VARIANT_FALSE: upq_variant_build_bool(b, it->type == UPQ_VARIANT_TRUE); break;
    case UPQ_VARIANT_DOUBLE: upq_variant_build_double(b, it->d); break;
    case UPQ_VARIANT_FLOAT: upq_variant_build_float(b, it->f); break;
    case UPQ_VARIANT_DECIMAL4:
    case UPQ_VARIANT_DECIMAL8:
        upq_variant_build_decimal(b, (upq_variant_kind)it->type, it->scale, it->i);
        break;
    case UPQ_VARIANT_DECIMAL16: upq_variant_build_decimal16(b, it->scale, it->bytes); break;
    case UPQ_VARIANT_STRING: upq_variant_build_string(b, it->bytes, it->len); break;
    case UPQ_VARIANT_BINARY: upq_variant_build_binary(b, it->bytes, it->len); break;
    case UPQ_VARIANT_UUID: upq_variant_build_uuid(b, it->bytes); break;
    default: upq_variant_build_int(b, (upq_variant_kind)it->type, it->i); break;
    }
}

static int same_step(const upq_variant_step *a, const upq_variant_step *b)
{
    if (a->event != b->event || a->field_id != b->field_id || a->item.type != b->item.type)
        return 0;
    if (a->event != UPQ_VEV_VALUE)
        return a->item.count == b->item.count;
    if (a->item.type == UPQ_VARIANT_DOUBLE)
        return memcmp(&a->item.d, &b->item.d, sizeof a->item.d) == 0;
    if (a->item.type == UPQ_VARIANT_FLOAT)
        return memcmp(&a->item.f, &b->item.f, sizeof a->item.f) == 0;
    return a->item.i == b->item.i && a->item.scale == b->item.scale && a->item.len == b->item.len &&
           (a->item.len == 0 || memcmp(a->item.bytes, b->item.bytes, a->item.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    upq_variant_meta m;
    upq_variant_walk w1, w2;
    upq_variant_step s1, s2;
    upq_variant_keys keys;
    upq_variant_builder b;
    upq_variant_item it;
    const uint8_t *meta, *val;
    size_t ml, vl, i, len;
    upq_status st;

    /* not at every offset: an item's check reads what it spans, so that
     * made an input cost the square of its size */
    for (i = 0; i < size && i < 64; i++)
        (void)upq_variant_item_read(data + i, size - i, &it);
    if (size < 2)
        return 0;
    ml = (size_t)data[0] | (size_t)data[1] << 8;
    if (ml > size - 2)
        ml = size - 2;
    meta = data + 2;
    val = meta + ml;
    vl = size - 2 - ml;
    if (upq_variant_meta_parse(&m, meta, ml) != UPQ_OK)
        return 0;
    for (i = 0; i < m.count && i < 64; i++) {
        const uint8_t *k;
        size_t kl;
        if (upq_variant_meta_key(&m, (uint32_t)i, &k, &kl) != UPQ_OK)
            fail("key of a parsed dictionary", (int)i, (int)m.count);
        if (m.sorted && upq_variant_meta_find(&m, k, kl) != i)
            fail("sorted lookup", (int)upq_variant_meta_find(&m, k, kl), (int)i);
    }
    st = upq_variant_validate(&m, val, vl);
    if (st != UPQ_OK) {
        if (st >= 0)
            fail("validate status", st, 0);
        return 0;
    }
    {
        upq_variant root = {val, vl}, c;
        if (vl && (val[0] & 3u) == 2u)
            (void)upq_variant_find(&m, root, "a", 1, &c);
    }
    /* rebuild from the walk */
    upq_variant_keys_init(&keys, kbytes, sizeof kbytes, koffs, 1u << 16);
    if (upq_variant_keys_seed(&keys, &m) != UPQ_OK)
        return 0;
    upq_variant_builder_init(&b, &keys, out, sizeof out, ents, 1u << 16, frames,
                             UPQ_VARIANT_MAX_DEPTH + 1);
    upq_variant_walk_init(&w1, &m, val, vl);
    while ((st = upq_variant_walk_next(&w1, &s1)) == UPQ_OK) {
        if (s1.event == UPQ_VEV_END_OBJECT || s1.event == UPQ_VEV_END_ARRAY)
            upq_variant_build_end(&b);
        else
            rebuild_step(&b, &s1);
    }
    if (st != UPQ_DONE)
        fail("walk after validate", st, UPQ_DONE);
    st = upq_variant_build_finish(&b, &len);
    if (st == UPQ_ERR_BUFFER || st == UPQ_ERR_LIMIT)
        return 0;
    if (st != UPQ_OK)
        fail("rebuild", st, 0); /* a valid value has unique keys */
    if (upq_variant_validate(&m, out, len) != UPQ_OK)
        fail("rebuilt value validates", upq_variant_validate(&m, out, len), 0);
    upq_variant_walk_init(&w1, &m, val, vl);
    upq_variant_walk_init(&w2, &m, out, len);
    for (;;) {
        upq_status a = upq_variant_walk_next(&w1, &s1), c = upq_variant_walk_next(&w2, &s2);
        if (a != c)
            fail("walk status", a, c);
        if (a != UPQ_OK)
            break;
        if (!same_step(&s1, &s2))
            fail("rebuilt step differs", s1.event, s2.event);
    }
    return 0;
}
