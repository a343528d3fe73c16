#include "variant_cmp.h"

#include <stdio.h>
#include <string.h>

#include "uparquet/variant.h"

static int fail(char *why, size_t n, const char *msg)
{
    if (why && n)
        snprintf(why, n, "%s", msg);
    return 0;
}

/* Test code: recursion is fine here (depth is bounded by the walker's limit
 * having accepted both values first). */
static int eq(const upq_variant_meta *a, upq_variant va, const upq_variant_meta *b, upq_variant vb,
              char *why, size_t wn)
{
    upq_variant_item x, y;
    uint32_t i;
    if (upq_variant_item_read(va.p, va.len, &x) != UPQ_OK ||
        upq_variant_item_read(vb.p, vb.len, &y) != UPQ_OK)
        return -1;
    if (x.type != y.type) {
        char m[96];
        snprintf(m, sizeof m, "type %u vs %u", x.type, y.type);
        return fail(why, wn, m);
    }
    switch (x.type) {
    case UPQ_VARIANT_OBJECT:
    case UPQ_VARIANT_ARRAY:
        if (x.count != y.count)
            return fail(why, wn, "element counts differ");
        for (i = 0; i < x.count; i++) {
            upq_variant ca, cb;
            uint32_t ia, ib;
            int r;
            if (upq_variant_child(va, i, &ca, &ia) != UPQ_OK ||
                upq_variant_child(vb, i, &cb, &ib) != UPQ_OK)
                return -1;
            if (x.type == UPQ_VARIANT_OBJECT) {
                const uint8_t *ka, *kb;
                size_t kan, kbn;
                if (upq_variant_meta_key(a, ia, &ka, &kan) != UPQ_OK ||
                    upq_variant_meta_key(b, ib, &kb, &kbn) != UPQ_OK)
                    return -1;
                if (kan != kbn || memcmp(ka, kb, kan) != 0) {
                    char m[160];
                    snprintf(m, sizeof m, "key '%.*s' vs '%.*s'", (int)kan, (const char *)ka,
                             (int)kbn, (const char *)kb);
                    return fail(why, wn, m);
                }
            }
            r = eq(a, ca, b, cb, why, wn);
            if (r != 1)
                return r;
        }
        return 1;
    case UPQ_VARIANT_DOUBLE:
        return memcmp(&x.d, &y.d, sizeof x.d) == 0 ? 1 : fail(why, wn, "doubles differ");
    case UPQ_VARIANT_FLOAT:
        return memcmp(&x.f, &y.f, sizeof x.f) == 0 ? 1 : fail(why, wn, "floats differ");
    default:
        if (x.i != y.i || x.scale != y.scale || x.len != y.len ||
            (x.len && memcmp(x.bytes, y.bytes, x.len) != 0)) {
            char m[96];
            snprintf(m, sizeof m, "values of type %u differ", x.type);
            return fail(why, wn, m);
        }
        return 1;
    }
}

int tu_variant_equal(const uint8_t *m1, size_t m1n, const uint8_t *v1, size_t v1n,
                     const uint8_t *m2, size_t m2n, const uint8_t *v2, size_t v2n, char *why,
                     size_t whylen)
{
    upq_variant_meta a, b;
    upq_variant va, vb;
    if (upq_variant_meta_parse(&a, m1, m1n) != UPQ_OK || upq_variant_meta_parse(&b, m2, m2n) != UPQ_OK)
        return -1;
    if (upq_variant_validate(&a, v1, v1n) != UPQ_OK || upq_variant_validate(&b, v2, v2n) != UPQ_OK)
        return -1;
    va.p = v1;
    va.len = v1n;
    vb.p = v2;
    vb.len = v2n;
    return eq(&a, va, &b, vb, why, whylen);
}

void tu_variant_describe(const uint8_t *m, size_t mn, const uint8_t *v, size_t vn, char *buf,
                         size_t len)
{
    upq_variant_meta meta;
    upq_variant_walk w;
    upq_variant_step s;
    size_t pos = 0;
    int st;
    buf[0] = 0;
    if (upq_variant_meta_parse(&meta, m, mn) != UPQ_OK) {
        snprintf(buf, len, "(bad metadata)");
        return;
    }
    upq_variant_walk_init(&w, &meta, v, vn);
    while ((st = upq_variant_walk_next(&w, &s)) == UPQ_OK && pos + 40 < len) {
        int k = 0;
        if (s.key)
            k = snprintf(buf + pos, len - pos, "%.*s:", (int)(s.key_len > 20 ? 20 : s.key_len),
                         (const char *)s.key);
        pos += (size_t)k;
        switch (s.event) {
        case UPQ_VEV_BEGIN_OBJECT: k = snprintf(buf + pos, len - pos, "{"); break;
        case UPQ_VEV_END_OBJECT: k = snprintf(buf + pos, len - pos, "} "); break;
        case UPQ_VEV_BEGIN_ARRAY: k = snprintf(buf + pos, len - pos, "["); break;
        case UPQ_VEV_END_ARRAY: k = snprintf(buf + pos, len - pos, "] "); break;
        default:
            k = snprintf(buf + pos, len - pos, "t%u:%lld ", s.item.type, (long long)s.item.i);
        }
        pos += (size_t)k;
    }
    if (st < 0 && pos + 20 < len)
        snprintf(buf + pos, len - pos, "(invalid %d)", st);
}
