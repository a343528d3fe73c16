/*
 * Variant binary encoding: metadata and value decoding (checked against the
 * bytes present), the walker that validates a whole value with an explicit
 * stack, and the builder that encodes into caller memory.
 */
#include "uparquet/variant.h"

#if UPQ_WITH_VARIANT

#include "upq_port.h"

#define BASIC_PRIMITIVE 0u
#define BASIC_SHORT_STRING 1u
#define BASIC_OBJECT 2u
#define BASIC_ARRAY 3u
#define MAX_SCALE 38u

/* Unsigned little-endian of 1..4 bytes. */
static uint32_t load_uint(const uint8_t *p, unsigned size)
{
    uint32_t v = 0;
    unsigned i;
    for (i = size; i > 0; i--)
        v = v << 8 | p[i - 1];
    return v;
}

static void store_uint(uint8_t *p, uint32_t v, unsigned size)
{
    unsigned i;
    for (i = 0; i < size; i++) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* Bytes needed for v (1..4). */
static unsigned uint_size(uint32_t v)
{
    return v < 0x100u ? 1u : v < 0x10000u ? 2u : v < 0x1000000u ? 3u : 4u;
}

/* Is p[0..n) well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF)? */
static int utf8_ok(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        size_t k, need;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
            cp = c & 0x1Fu;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            cp = c & 0x0Fu;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            cp = c & 0x07u;
        } else {
            return 0;
        }
        if (n - i <= need)
            return 0;
        for (k = 1; k <= need; k++) {
            if ((p[i + k] & 0xC0u) != 0x80u)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3Fu);
        }
        if ((need == 2 && (cp < 0x800u || (cp >= 0xD800u && cp <= 0xDFFFu))) ||
            (need == 3 && (cp < 0x10000u || cp > 0x10FFFFu)))
            return 0;
        i += need + 1;
    }
    return 1;
}

/* Byte-wise comparison of two keys (shorter prefix first). */
static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? upq_memcmp(a, b, n) : 0;
    if (c)
        return c;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

/* ---- metadata ------------------------------------------------------------ */

upq_status upq_variant_meta_parse(upq_variant_meta *m, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    unsigned os;
    uint32_t n, i, prev = 0;
    size_t head;
    upq_memset(m, 0, sizeof *m);
    if (len < 1)
        return UPQ_ERR_TRUNCATED;
    if ((p[0] & 0x0Fu) != 1u)
        return UPQ_ERR_UNSUPPORTED;
    if (p[0] & 0x20u) /* bit 5 is reserved */
        return UPQ_ERR_CORRUPT;
    os = (unsigned)(p[0] >> 6) + 1u;
    if (len < 1u + os)
        return UPQ_ERR_TRUNCATED;
    n = load_uint(p + 1, os);
    /* n + 1 offsets must be there before anything is computed from n */
    if ((size_t)n >= (len - 1u - os) / os + 1u || (len - 1u - os) / os < (size_t)n + 1u)
        return UPQ_ERR_TRUNCATED;
    head = 1u + os + ((size_t)n + 1u) * os;
    m->offs = p + 1 + os;
    m->strs = p + head;
    m->count = n;
    m->off_size = (uint8_t)os;
    m->sorted = (uint8_t)((p[0] >> 4) & 1u);
    m->len = len;
    if (load_uint(m->offs, os) != 0)
        return UPQ_ERR_CORRUPT;
    for (i = 1; i <= n; i++) {
        uint32_t o = load_uint(m->offs + (size_t)i * os, os);
        if (o < prev || o > len - head)
            return o < prev ? UPQ_ERR_CORRUPT : UPQ_ERR_TRUNCATED;
        if (!utf8_ok(m->strs + prev, o - prev))
            return UPQ_ERR_CORRUPT;
        if (m->sorted && i >= 2) {
            uint32_t pp = load_uint(m->offs + (size_t)(i - 2) * os, os);
            if (key_cmp(m->strs + pp, prev - pp, m->strs + prev, o - prev) >= 0)
                return UPQ_ERR_CORRUPT;
        }
        prev = o;
    }
    if ((size_t)prev != len - head)
        return UPQ_ERR_CORRUPT; /* bytes after the last key */
    m->strs_len = prev;
    return UPQ_OK;
}

upq_status upq_variant_meta_key(const upq_variant_meta *m, uint32_t id, const uint8_t **key,
                                size_t *len)
{
    uint32_t a, b;
    if (id >= m->count)
        return UPQ_ERR_CORRUPT;
    a = load_uint(m->offs + (size_t)id * m->off_size, m->off_size);
    b = load_uint(m->offs + ((size_t)id + 1u) * m->off_size, m->off_size);
    *key = m->strs + a;
    *len = b - a;
    return UPQ_OK;
}

uint32_t upq_variant_meta_find(const upq_variant_meta *m, const void *key, size_t len)
{
    const uint8_t *k;
    size_t kl;
    uint32_t i;
    if (m->sorted) {
        uint32_t lo = 0, hi = m->count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2u;
            int c;
            (void)upq_variant_meta_key(m, mid, &k, &kl);
            c = key_cmp(k, kl, (const uint8_t *)key, len);
            if (c == 0)
                return mid;
            if (c < 0)
                lo = mid + 1u;
            else
                hi = mid;
        }
        return UPQ_NONE;
    }
    for (i = 0; i < m->count; i++) {
        (void)upq_variant_meta_key(m, i, &k, &kl);
        if (key_cmp(k, kl, (const uint8_t *)key, len) == 0)
            return i;
    }
    return UPQ_NONE;
}

/* ---- values ---------------------------------------------------------------- */

/* Layout of a container header. */
typedef struct container {
    uint32_t n;
    unsigned id_size, off_size;
    const uint8_t *ids, *offs, *data;
    uint32_t data_len;
} container;

static upq_status container_parse(const uint8_t *p, size_t avail, container *c)
{
    unsigned basic = p[0] & 3u, hdr = p[0] >> 2;
    unsigned large, nsize;
    size_t pos, per, need;
    if (basic == BASIC_OBJECT) {
        c->off_size = (hdr & 3u) + 1u;
        c->id_size = ((hdr >> 2) & 3u) + 1u;
        large = (hdr >> 4) & 1u;
        if (hdr >> 5)
            return UPQ_ERR_CORRUPT;
    } else {
        c->off_size = (hdr & 3u) + 1u;
        c->id_size = 0;
        large = (hdr >> 2) & 1u;
        if (hdr >> 3)
            return UPQ_ERR_CORRUPT;
    }
    nsize = large ? 4u : 1u;
    if (avail < 1u + nsize)
        return UPQ_ERR_TRUNCATED;
    c->n = load_uint(p + 1, nsize);
    pos = 1u + nsize;
    per = c->id_size + c->off_size;
    /* n ids and n + 1 offsets, checked without overflow */
    if ((avail - pos) < c->off_size || ((avail - pos) - c->off_size) / per < (size_t)c->n)
        return UPQ_ERR_TRUNCATED;
    c->ids = p + pos;
    c->offs = c->ids + (size_t)c->n * c->id_size;
    c->data = c->offs + ((size_t)c->n + 1u) * c->off_size;
    need = (size_t)(c->data - p);
    c->data_len = load_uint(c->offs + (size_t)c->n * c->off_size, c->off_size);
    if (c->data_len > avail - need)
        return UPQ_ERR_TRUNCATED;
    return UPQ_OK;
}

static const uint8_t prim_fixed[21] = {
    0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 0, 0, 8, 8, 8, 16,
};

upq_status upq_variant_item_read(const uint8_t *p, size_t avail, upq_variant_item *it)
{
    unsigned basic, hdr;
    /* field by field: this runs once per value walked */
    it->type = 0;
    it->scale = 0;
    it->short_string = 0;
    it->count = 0;
    it->i = 0;
    it->d = 0.0;
    it->f = 0.0f;
    it->bytes = NULL;
    it->len = 0;
    it->size = 0;
    if (avail < 1)
        return UPQ_ERR_TRUNCATED;
    basic = p[0] & 3u;
    hdr = p[0] >> 2;
    if (basic == BASIC_SHORT_STRING) {
        if (avail - 1u < hdr)
            return UPQ_ERR_TRUNCATED;
        it->type = UPQ_VARIANT_STRING;
        it->short_string = 1;
        it->bytes = p + 1;
        it->len = hdr;
        it->size = 1u + hdr;
        return utf8_ok(it->bytes, it->len) ? UPQ_OK : UPQ_ERR_CORRUPT;
    }
    if (basic == BASIC_OBJECT || basic == BASIC_ARRAY) {
        container c;
        upq_status st = container_parse(p, avail, &c);
        if (st != UPQ_OK)
            return st;
        it->type = basic == BASIC_OBJECT ? UPQ_VARIANT_OBJECT : UPQ_VARIANT_ARRAY;
        it->count = c.n;
        it->size = (size_t)(c.data - p) + c.data_len;
        return UPQ_OK;
    }
    if (hdr > UPQ_VARIANT_UUID)
        return UPQ_ERR_UNSUPPORTED;
    it->type = (uint8_t)hdr;
    if (hdr == UPQ_VARIANT_BINARY || hdr == UPQ_VARIANT_STRING) {
        uint32_t n;
        if (avail < 5u)
            return UPQ_ERR_TRUNCATED;
        n = upq_load_le32(p + 1);
        if (avail - 5u < n)
            return UPQ_ERR_TRUNCATED;
        it->bytes = p + 5;
        it->len = n;
        it->size = 5u + (size_t)n;
        if (hdr == UPQ_VARIANT_STRING && !utf8_ok(it->bytes, n))
            return UPQ_ERR_CORRUPT;
        return UPQ_OK;
    }
    it->size = 1u + prim_fixed[hdr];
    if (avail < it->size)
        return UPQ_ERR_TRUNCATED;
    p++;
    switch (hdr) {
    case UPQ_VARIANT_INT8: it->i = (int8_t)p[0]; break;
    case UPQ_VARIANT_INT16: it->i = (int16_t)upq_load_le16(p); break;
    case UPQ_VARIANT_INT32:
    case UPQ_VARIANT_DATE: it->i = (int32_t)upq_load_le32(p); break;
    case UPQ_VARIANT_INT64:
    case UPQ_VARIANT_TIMESTAMP:
    case UPQ_VARIANT_TIMESTAMP_NTZ:
    case UPQ_VARIANT_TIME_NTZ:
    case UPQ_VARIANT_TIMESTAMP_NANOS:
    case UPQ_VARIANT_TIMESTAMP_NTZ_NANOS: it->i = (int64_t)upq_load_le64(p); break;
    case UPQ_VARIANT_DOUBLE: it->d = upq_f64_from_bits(upq_load_le64(p)); break;
    case UPQ_VARIANT_FLOAT:
        it->f = upq_f32_from_bits(upq_load_le32(p));
        it->d = (double)it->f;
        break;
    case UPQ_VARIANT_DECIMAL4:
    case UPQ_VARIANT_DECIMAL8:
    case UPQ_VARIANT_DECIMAL16:
        if (p[0] > MAX_SCALE)
            return UPQ_ERR_CORRUPT;
        it->scale = p[0];
        if (hdr == UPQ_VARIANT_DECIMAL4)
            it->i = (int32_t)upq_load_le32(p + 1);
        else if (hdr == UPQ_VARIANT_DECIMAL8)
            it->i = (int64_t)upq_load_le64(p + 1);
        else {
            it->bytes = p + 1;
            it->len = 16;
        }
        break;
    case UPQ_VARIANT_UUID:
        it->bytes = p;
        it->len = 16;
        break;
    default: break; /* null, true, false */
    }
    return UPQ_OK;
}

upq_status upq_variant_child(upq_variant v, uint32_t i, upq_variant *child, uint32_t *field_id)
{
    container c;
    upq_variant_item it;
    upq_status st;
    uint32_t off;
    if (v.len < 1 || ((v.p[0] & 3u) != BASIC_OBJECT && (v.p[0] & 3u) != BASIC_ARRAY))
        return UPQ_ERR_INVAL;
    st = container_parse(v.p, v.len, &c);
    if (st != UPQ_OK)
        return st;
    if (i >= c.n)
        return UPQ_ERR_INVAL;
    off = load_uint(c.offs + (size_t)i * c.off_size, c.off_size);
    if (off >= c.data_len)
        return UPQ_ERR_CORRUPT;
    st = upq_variant_item_read(c.data + off, c.data_len - off, &it);
    if (st != UPQ_OK)
        return st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st;
    child->p = c.data + off;
    child->len = it.size;
    if (field_id)
        *field_id = c.id_size ? load_uint(c.ids + (size_t)i * c.id_size, c.id_size) : UPQ_NONE;
    return UPQ_OK;
}

upq_status upq_variant_find(const upq_variant_meta *m, upq_variant v, const void *key,
                            size_t len, upq_variant *child)
{
    container c;
    upq_status st;
    uint32_t lo = 0, hi;
    if (v.len < 1 || (v.p[0] & 3u) != BASIC_OBJECT)
        return UPQ_ERR_INVAL;
    st = container_parse(v.p, v.len, &c);
    if (st != UPQ_OK)
        return st;
    hi = c.n;
    while (lo < hi) { /* fields are in key order */
        uint32_t mid = lo + (hi - lo) / 2u, id;
        const uint8_t *k;
        size_t kl;
        int cmp;
        id = load_uint(c.ids + (size_t)mid * c.id_size, c.id_size);
        st = upq_variant_meta_key(m, id, &k, &kl);
        if (st != UPQ_OK)
            return st;
        cmp = key_cmp(k, kl, (const uint8_t *)key, len);
        if (cmp == 0)
            return upq_variant_child(v, mid, child, NULL);
        if (cmp < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return UPQ_DONE;
}

/* ---- the walk ---------------------------------------------------------------- */

void upq_variant_walk_init(upq_variant_walk *w, const upq_variant_meta *m, const void *p,
                           size_t len)
{
    /* the frame stack is written as containers open: not cleared here */
    w->depth = 0;
    w->started = 0;
    w->done = 0;
    w->m = m;
    w->root = (const uint8_t *)p;
    w->root_len = len;
}

/* Reads a value into the step and opens it when it is a container. */
static upq_status walk_enter(upq_variant_walk *w, upq_variant_step *s, const uint8_t *p,
                             size_t avail)
{
    upq_status st = upq_variant_item_read(p, avail, &s->item);
    if (st != UPQ_OK)
        return st;
    s->value.p = p;
    s->value.len = s->item.size;
    if (s->item.type == UPQ_VARIANT_OBJECT || s->item.type == UPQ_VARIANT_ARRAY) {
        upq_variant_walk_frame *f;
        if (w->depth >= UPQ_VARIANT_MAX_DEPTH)
            return UPQ_ERR_LIMIT;
        f = &w->stack[w->depth++];
        f->p = p;
        f->len = s->item.size;
        f->count = s->item.count;
        f->next = 0;
        f->type = s->item.type;
        s->event = s->item.type == UPQ_VARIANT_OBJECT ? UPQ_VEV_BEGIN_OBJECT : UPQ_VEV_BEGIN_ARRAY;
    } else {
        s->event = UPQ_VEV_VALUE;
    }
    return UPQ_OK;
}

upq_status upq_variant_walk_next(upq_variant_walk *w, upq_variant_step *s)
{
    upq_variant_walk_frame *f;
    container c;
    uint32_t off;
    upq_status st;
    s->event = 0;
    s->field_id = UPQ_NONE;
    s->key = NULL;
    s->key_len = 0;
    s->value.p = NULL;
    s->value.len = 0;
    s->item.type = 0; /* END steps carry no item */
    s->item.count = 0;
    s->item.size = 0;
    if (w->done)
        return UPQ_DONE;
    if (!w->started) {
        w->started = 1;
        st = walk_enter(w, s, w->root, w->root_len);
        if (st == UPQ_OK && s->item.size != w->root_len)
            st = UPQ_ERR_CORRUPT; /* bytes after the value */
        if (st == UPQ_OK && w->depth == 0)
            w->done = 1;
        return st;
    }
    if (w->depth == 0) {
        w->done = 1;
        return UPQ_DONE;
    }
    f = &w->stack[w->depth - 1];
    if (f->next >= f->count) {
        s->event = f->type == UPQ_VARIANT_OBJECT ? UPQ_VEV_END_OBJECT : UPQ_VEV_END_ARRAY;
        w->depth--;
        if (w->depth == 0)
            w->done = 1;
        return UPQ_OK;
    }
    st = container_parse(f->p, f->len, &c);
    if (st != UPQ_OK)
        return st;
    off = load_uint(c.offs + (size_t)f->next * c.off_size, c.off_size);
    if (off >= c.data_len)
        return UPQ_ERR_CORRUPT;
    if (c.id_size) {
        s->field_id = load_uint(c.ids + (size_t)f->next * c.id_size, c.id_size);
        st = upq_variant_meta_key(w->m, s->field_id, &s->key, &s->key_len);
        if (st != UPQ_OK)
            return st;
        if (f->next > 0) { /* strictly ascending keys: sorted and unique */
            const uint8_t *pk;
            size_t pl;
            uint32_t pid = load_uint(c.ids + (size_t)(f->next - 1u) * c.id_size, c.id_size);
            st = upq_variant_meta_key(w->m, pid, &pk, &pl);
            if (st != UPQ_OK)
                return st;
            if (key_cmp(pk, pl, s->key, s->key_len) >= 0)
                return UPQ_ERR_CORRUPT;
        }
    }
    f->next++;
    st = walk_enter(w, s, c.data + off, c.data_len - off);
    return st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st;
}

upq_status upq_variant_validate(const upq_variant_meta *m, const void *p, size_t len)
{
    upq_variant_walk w;
    upq_variant_step s;
    upq_status st;
    upq_variant_walk_init(&w, m, p, len);
    while ((st = upq_variant_walk_next(&w, &s)) == UPQ_OK)
        ;
    return st == UPQ_DONE ? UPQ_OK : st;
}

/* ---- key dictionary ---------------------------------------------------------- */

void upq_variant_keys_init(upq_variant_keys *k, uint8_t *bytes, size_t bytes_cap, uint32_t *offs,
                           uint32_t max_keys)
{
    k->bytes = bytes;
    k->bytes_cap = bytes_cap;
    k->bytes_len = 0;
    k->offs = offs;
    k->cap = max_keys;
    k->count = 0;
    if (offs)
        offs[0] = 0;
}

const uint8_t *upq_variant_keys_get(const upq_variant_keys *k, uint32_t id, size_t *len)
{
    *len = k->offs[id + 1u] - k->offs[id];
    return k->bytes + k->offs[id];
}

static upq_status keys_append(upq_variant_keys *k, const void *key, size_t len)
{
    if (k->count >= k->cap || len > k->bytes_cap - k->bytes_len ||
        k->bytes_len + len > 0xFFFFFFFFu)
        return UPQ_ERR_BUFFER;
    if (len)
        upq_memcpy(k->bytes + k->bytes_len, key, len);
    k->bytes_len += len;
    k->offs[++k->count] = (uint32_t)k->bytes_len;
    return UPQ_OK;
}

upq_status upq_variant_keys_add(upq_variant_keys *k, const void *key, size_t len, uint32_t *id)
{
    uint32_t i;
    upq_status st;
    for (i = 0; i < k->count; i++) {
        size_t kl;
        const uint8_t *kp = upq_variant_keys_get(k, i, &kl);
        if (kl == len && (len == 0 || upq_memcmp(kp, key, len) == 0)) {
            *id = i;
            return UPQ_OK;
        }
    }
    st = keys_append(k, key, len);
    if (st == UPQ_OK)
        *id = k->count - 1u;
    return st;
}

upq_status upq_variant_keys_seed(upq_variant_keys *k, const upq_variant_meta *m)
{
    uint32_t i;
    for (i = 0; i < m->count; i++) {
        const uint8_t *kp;
        size_t kl;
        upq_status st = upq_variant_meta_key(m, i, &kp, &kl);
        if (st == UPQ_OK)
            st = keys_append(k, kp, kl);
        if (st != UPQ_OK)
            return st;
    }
    return UPQ_OK;
}

static unsigned keys_off_size(const upq_variant_keys *k)
{
    size_t big = k->bytes_len > k->count ? k->bytes_len : k->count;
    return uint_size((uint32_t)big);
}

size_t upq_variant_keys_size(const upq_variant_keys *k)
{
    unsigned os = keys_off_size(k);
    return 1u + os + ((size_t)k->count + 1u) * os + k->bytes_len;
}

upq_status upq_variant_keys_finish(const upq_variant_keys *k, int sorted, void *out, size_t cap,
                                   size_t *len)
{
    uint8_t *o = (uint8_t *)out;
    unsigned os = keys_off_size(k);
    size_t need = upq_variant_keys_size(k), pos;
    int asc = 1;
    uint32_t i;
    for (i = 1; i < k->count && asc; i++) {
        size_t al, bl;
        const uint8_t *a = upq_variant_keys_get(k, i - 1u, &al);
        const uint8_t *b = upq_variant_keys_get(k, i, &bl);
        asc = key_cmp(a, al, b, bl) < 0;
    }
    if (sorted == UPQ_VARIANT_SORTED_ALWAYS && !asc)
        return UPQ_ERR_INVAL;
    if (need > cap)
        return UPQ_ERR_BUFFER;
    o[0] = (uint8_t)(1u | ((os - 1u) << 6) |
                     ((sorted == UPQ_VARIANT_SORTED_NEVER || !asc) ? 0u : 0x10u));
    store_uint(o + 1, k->count, os);
    pos = 1u + os;
    for (i = 0; i <= k->count; i++, pos += os)
        store_uint(o + pos, k->offs[i], os);
    if (k->bytes_len)
        upq_memcpy(o + pos, k->bytes, k->bytes_len);
    *len = need;
    return UPQ_OK;
}

/* ---- value builder --------------------------------------------------------- */

void upq_variant_builder_init(upq_variant_builder *b, const upq_variant_keys *keys, uint8_t *out,
                              size_t cap, upq_variant_entry *ents, uint32_t max_entries,
                              upq_variant_build_frame *frames, uint32_t max_depth)
{
    upq_memset(b, 0, sizeof *b);
    b->keys = keys;
    b->out = out;
    b->cap = cap;
    b->ents = ents;
    b->ents_cap = max_entries;
    b->frames = frames;
    b->frames_cap = max_depth;
    b->err = UPQ_OK;
}

upq_status upq_variant_builder_init_arena(upq_variant_builder *b, const upq_variant_keys *keys,
                                          upq_arena *a, size_t cap, uint32_t max_entries,
                                          uint32_t max_depth)
{
    uint8_t *out = (uint8_t *)upq_arena_alloc(a, cap);
    upq_variant_entry *e = (upq_variant_entry *)upq_arena_alloc_array(a, max_entries, sizeof *e);
    upq_variant_build_frame *f =
        (upq_variant_build_frame *)upq_arena_alloc_array(a, max_depth, sizeof *f);
    if (!out || !e || !f)
        return UPQ_ERR_NOMEM;
    upq_variant_builder_init(b, keys, out, cap, e, max_entries, f, max_depth);
    return UPQ_OK;
}

static upq_status fail(upq_variant_builder *b, upq_status st)
{
    if (b->err == UPQ_OK)
        b->err = st;
    return b->err;
}

/* Registers the next item with its container and reserves n bytes for it;
 * returns where they go, or NULL (error set). */
static uint8_t *item(upq_variant_builder *b, size_t n)
{
    uint8_t *p;
    if (b->err != UPQ_OK)
        return NULL;
    if (b->depth == 0) {
        if (b->done) {
            fail(b, UPQ_ERR_INVAL);
            return NULL;
        }
    } else {
        upq_variant_build_frame *f = &b->frames[b->depth - 1];
        upq_variant_entry *e;
        if (f->object && !b->has_key) {
            fail(b, UPQ_ERR_INVAL);
            return NULL;
        }
        if (b->ents_n >= b->ents_cap || b->len - f->start > 0xFFFFFFFFu) {
            fail(b, UPQ_ERR_LIMIT);
            return NULL;
        }
        e = &b->ents[b->ents_n++];
        e->id = f->object ? b->key : 0;
        e->off = (uint32_t)(b->len - f->start);
        b->has_key = 0;
    }
    if (n > b->cap - b->len) {
        fail(b, UPQ_ERR_BUFFER);
        return NULL;
    }
    p = b->out + b->len;
    b->len += n;
    if (b->depth == 0)
        b->done = 1;
    return p;
}

upq_status upq_variant_build_key(upq_variant_builder *b, uint32_t id)
{
    if (b->err != UPQ_OK)
        return b->err;
    if (b->depth == 0 || !b->frames[b->depth - 1].object || !b->keys || id >= b->keys->count)
        return fail(b, UPQ_ERR_INVAL);
    b->key = id;
    b->has_key = 1;
    return UPQ_OK;
}

void upq_variant_build_drop_key(upq_variant_builder *b)
{
    b->has_key = 0;
}

/* An item of one header byte and n bytes of data. */
static upq_status put_item(upq_variant_builder *b, uint8_t header, const void *data, size_t n)
{
    uint8_t *p = item(b, 1u + n);
    if (!p)
        return b->err;
    p[0] = header;
    if (n)
        upq_memcpy(p + 1, data, n);
    return UPQ_OK;
}

static upq_status put_prim(upq_variant_builder *b, unsigned type, const uint8_t *data, size_t n)
{
    return put_item(b, (uint8_t)(type << 2 | BASIC_PRIMITIVE), data, n);
}

upq_status upq_variant_build_null(upq_variant_builder *b)
{
    return put_prim(b, UPQ_VARIANT_NULL, NULL, 0);
}

upq_status upq_variant_build_bool(upq_variant_builder *b, int v)
{
    return put_prim(b, v ? UPQ_VARIANT_TRUE : UPQ_VARIANT_FALSE, NULL, 0);
}

upq_status upq_variant_build_int(upq_variant_builder *b, upq_variant_kind t, int64_t v)
{
    uint8_t d[8];
    size_t n;
    switch (t) {
    case UPQ_VARIANT_INT8: n = 1; break;
    case UPQ_VARIANT_INT16: n = 2; break;
    case UPQ_VARIANT_INT32:
    case UPQ_VARIANT_DATE: n = 4; break;
    case UPQ_VARIANT_INT64:
    case UPQ_VARIANT_TIMESTAMP:
    case UPQ_VARIANT_TIMESTAMP_NTZ:
    case UPQ_VARIANT_TIME_NTZ:
    case UPQ_VARIANT_TIMESTAMP_NANOS:
    case UPQ_VARIANT_TIMESTAMP_NTZ_NANOS: n = 8; break;
    default: return fail(b, UPQ_ERR_INVAL);
    }
    if (n < 8) {
        int64_t lim = (int64_t)1 << (n * 8u - 1u);
        if (v < -lim || v >= lim)
            return fail(b, UPQ_ERR_INVAL);
    }
    upq_store_le64(d, (uint64_t)v);
    return put_prim(b, (unsigned)t, d, n);
}

upq_status upq_variant_build_double(upq_variant_builder *b, double v)
{
    uint8_t d[8];
    upq_store_le64(d, upq_f64_bits(v));
    return put_prim(b, UPQ_VARIANT_DOUBLE, d, 8);
}

upq_status upq_variant_build_float(upq_variant_builder *b, float v)
{
    uint8_t d[4];
    upq_store_le32(d, upq_f32_bits(v));
    return put_prim(b, UPQ_VARIANT_FLOAT, d, 4);
}

upq_status upq_variant_build_decimal(upq_variant_builder *b, upq_variant_kind t, uint8_t scale,
                                     int64_t unscaled)
{
    uint8_t d[9];
    if (scale > MAX_SCALE)
        return fail(b, UPQ_ERR_INVAL);
    d[0] = scale;
    upq_store_le64(d + 1, (uint64_t)unscaled);
    if (t == UPQ_VARIANT_DECIMAL4) {
        if (unscaled < INT32_MIN || unscaled > INT32_MAX)
            return fail(b, UPQ_ERR_INVAL);
        return put_prim(b, UPQ_VARIANT_DECIMAL4, d, 5);
    }
    if (t == UPQ_VARIANT_DECIMAL8)
        return put_prim(b, UPQ_VARIANT_DECIMAL8, d, 9);
    return fail(b, UPQ_ERR_INVAL);
}

upq_status upq_variant_build_decimal16(upq_variant_builder *b, uint8_t scale,
                                       const uint8_t unscaled_le[16])
{
    uint8_t d[17];
    if (scale > MAX_SCALE)
        return fail(b, UPQ_ERR_INVAL);
    d[0] = scale;
    upq_memcpy(d + 1, unscaled_le, 16);
    return put_prim(b, UPQ_VARIANT_DECIMAL16, d, 17);
}

static upq_status put_bytes(upq_variant_builder *b, unsigned type, const void *s, size_t len)
{
    uint8_t *p;
    if (len > 0xFFFFFFFFu)
        return fail(b, UPQ_ERR_LIMIT);
    if (type == UPQ_VARIANT_STRING && len < 64u)
        return put_item(b, (uint8_t)(len << 2 | BASIC_SHORT_STRING), s, len);
    p = item(b, 5u + len);
    if (!p)
        return b->err;
    p[0] = (uint8_t)(type << 2 | BASIC_PRIMITIVE);
    upq_store_le32(p + 1, (uint32_t)len);
    if (len)
        upq_memcpy(p + 5, s, len);
    return UPQ_OK;
}

upq_status upq_variant_build_string(upq_variant_builder *b, const void *p, size_t len)
{
    return put_bytes(b, UPQ_VARIANT_STRING, p, len);
}

upq_status upq_variant_build_binary(upq_variant_builder *b, const void *p, size_t len)
{
    return put_bytes(b, UPQ_VARIANT_BINARY, p, len);
}

upq_status upq_variant_build_uuid(upq_variant_builder *b, const uint8_t be[16])
{
    return put_prim(b, UPQ_VARIANT_UUID, be, 16);
}

upq_status upq_variant_build_raw(upq_variant_builder *b, const void *src, size_t len)
{
    uint8_t *p;
    if (len == 0)
        return fail(b, UPQ_ERR_INVAL);
    p = item(b, len);
    if (!p)
        return b->err;
    upq_memcpy(p, src, len);
    return UPQ_OK;
}

static upq_status begin(upq_variant_builder *b, int object)
{
    upq_variant_build_frame *f;
    if (b->err != UPQ_OK)
        return b->err;
    if (b->depth >= b->frames_cap)
        return fail(b, UPQ_ERR_LIMIT);
    if (!item(b, 0))
        return b->err;
    f = &b->frames[b->depth++];
    f->start = b->len;
    f->first = b->ents_n;
    f->object = (uint8_t)object;
    return UPQ_OK;
}

upq_status upq_variant_build_begin_object(upq_variant_builder *b)
{
    return begin(b, 1);
}

upq_status upq_variant_build_begin_array(upq_variant_builder *b)
{
    return begin(b, 0);
}

static int ent_cmp(const upq_variant_builder *b, const upq_variant_entry *x,
                   const upq_variant_entry *y)
{
    size_t xl, yl;
    const uint8_t *xp = upq_variant_keys_get(b->keys, x->id, &xl);
    const uint8_t *yp = upq_variant_keys_get(b->keys, y->id, &yl);
    return key_cmp(xp, xl, yp, yl);
}

/* Shell sort of an object's entries by key (no recursion, no extra memory). */
static void sort_entries(const upq_variant_builder *b, upq_variant_entry *e, uint32_t n)
{
    uint32_t gap, i, j;
    for (gap = n / 2u; gap > 0; gap /= 2u) {
        for (i = gap; i < n; i++) {
            upq_variant_entry t = e[i];
            for (j = i; j >= gap && ent_cmp(b, &e[j - gap], &t) > 0; j -= gap)
                e[j] = e[j - gap];
            e[j] = t;
        }
    }
}

upq_status upq_variant_build_end(upq_variant_builder *b)
{
    upq_variant_build_frame *f;
    upq_variant_entry *e;
    uint32_t n, i, max_id = 0;
    size_t data_len, hdr;
    unsigned os, is, nsize;
    uint8_t *p;
    if (b->err != UPQ_OK)
        return b->err;
    if (b->depth == 0 || b->has_key)
        return fail(b, UPQ_ERR_INVAL);
    f = &b->frames[b->depth - 1];
    e = b->ents + f->first;
    n = b->ents_n - f->first;
    data_len = b->len - f->start;
    if (data_len > 0xFFFFFFFFu)
        return fail(b, UPQ_ERR_LIMIT);
    if (f->object) {
        sort_entries(b, e, n);
        for (i = 0; i < n; i++) {
            if (i > 0 && ent_cmp(b, &e[i - 1u], &e[i]) == 0)
                return fail(b, UPQ_ERR_INVAL); /* duplicate key */
            if (e[i].id > max_id)
                max_id = e[i].id;
        }
    }
    os = uint_size((uint32_t)data_len);
    is = f->object ? uint_size(max_id) : 0u;
    nsize = n > 255u ? 4u : 1u;
    hdr = 1u + nsize + (size_t)n * is + ((size_t)n + 1u) * os;
    if (hdr > b->cap - b->len)
        return fail(b, UPQ_ERR_BUFFER);
    p = b->out + f->start;
    if (data_len)
        upq_memmove(p + hdr, p, data_len);
    if (f->object)
        p[0] = (uint8_t)(BASIC_OBJECT | ((nsize == 4u ? 1u : 0u) << 6) | ((is - 1u) << 4) |
                         ((os - 1u) << 2));
    else
        p[0] = (uint8_t)(BASIC_ARRAY | ((nsize == 4u ? 1u : 0u) << 4) | ((os - 1u) << 2));
    store_uint(p + 1, n, nsize);
    p += 1u + nsize;
    for (i = 0; i < n; i++, p += is)
        if (is)
            store_uint(p, e[i].id, is);
    for (i = 0; i < n; i++, p += os)
        store_uint(p, e[i].off, os);
    store_uint(p, (uint32_t)data_len, os);
    b->len += hdr;
    b->ents_n = f->first;
    b->depth--;
    return UPQ_OK;
}

upq_status upq_variant_build_finish(upq_variant_builder *b, size_t *len)
{
    if (b->err != UPQ_OK)
        return b->err;
    if (b->depth != 0 || !b->done)
        return fail(b, UPQ_ERR_INVAL);
    *len = b->len;
    return UPQ_OK;
}

#endif /* UPQ_WITH_VARIANT */
