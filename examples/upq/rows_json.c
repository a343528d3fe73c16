/* One row as JSON (see rows_json.h). Freestanding: the firmware reader
 * compiles this file too. */
#include "rows_json.h"

static void put(const rows_json_out *o, const void *p, size_t n)
{
    o->put(o->ctx, p, n);
}

static void puts_(const rows_json_out *o, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    put(o, s, n);
}

static void putc_(const rows_json_out *o, char c)
{
    put(o, &c, 1);
}

static const char hex_digits[] = "0123456789abcdef";
static void put_hex_bytes(const rows_json_out *o, const uint8_t *p, size_t n)
{
    char buf[64];
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        buf[k++] = hex_digits[p[i] >> 4];
        buf[k++] = hex_digits[p[i] & 15u];
        if (k == sizeof buf) {
            put(o, buf, k);
            k = 0;
        }
    }
    put(o, buf, k);
}

static void put_i64(const rows_json_out *o, int64_t v)
{
    char buf[20];
    size_t k = sizeof buf;
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    do {
        buf[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        putc_(o, '-');
    put(o, buf + k, sizeof buf - k);
}

size_t rows_json_utf8_len(const uint8_t *p, size_t n)
{
    unsigned c = p[0];
    size_t len, i;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xC0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu))
        return 0;
    return len;
}

void rows_json_string(const rows_json_out *o, const void *bytes, size_t n)
{
    const uint8_t *p = (const uint8_t *)bytes;
    size_t i = 0, run = 0, k;
    putc_(o, '"');
    while (i < n) {
        unsigned c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80 && (k = rows_json_utf8_len(p + i, n - i)) != 0) {
            i += k;
            continue;
        }
        /* the bytes before need no escape: one call for all of them */
        put(o, p + run, i - run);
        if (c == '"' || c == '\\') {
            char esc[2];
            esc[0] = '\\';
            esc[1] = (char)c;
            put(o, esc, 2);
        } else {
            uint8_t b = (uint8_t)c;
            puts_(o, "\\u00");
            put_hex_bytes(o, &b, 1);
        }
        run = ++i;
    }
    put(o, p + run, n - run);
    putc_(o, '"');
}

void rows_json_raw(void *ctx, const rows_json_out *o, const upq_schema *s, uint32_t col,
                   const void *v)
{
    const uint8_t *p;
    size_t n;
    (void)ctx;
    switch (s->columns[col].physical_type) {
    case UPQ_TYPE_BOOLEAN:
        puts_(o, *(const uint8_t *)v ? "true" : "false");
        return;
    case UPQ_TYPE_INT32:
        put_i64(o, *(const int32_t *)v);
        return;
    case UPQ_TYPE_INT64:
        put_i64(o, *(const int64_t *)v);
        return;
    case UPQ_TYPE_FLOAT:
    case UPQ_TYPE_DOUBLE: {
        /* the bits, most significant first */
        union { float f; double d; uint32_t u32; uint64_t u64; } b;
        uint8_t be[8];
        int dbl = s->columns[col].physical_type == UPQ_TYPE_DOUBLE;
        unsigned i, w = dbl ? 8u : 4u;
        uint64_t u;
        if (dbl)
            b.d = *(const double *)v;
        else
            b.f = *(const float *)v;
        u = dbl ? b.u64 : b.u32;
        for (i = 0; i < w; i++)
            be[i] = (uint8_t)(u >> (8 * (w - 1 - i)));
        puts_(o, dbl ? "\"d:" : "\"f:");
        put_hex_bytes(o, be, w);
        putc_(o, '"');
        return;
    }
    case UPQ_TYPE_INT96:
        p = ((const upq_int96 *)v)->b;
        n = sizeof ((const upq_int96 *)v)->b;
        break;
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        p = ((const upq_bytes *)v)->ptr;
        n = ((const upq_bytes *)v)->len;
        break;
    default:
        puts_(o, "null");
        return;
    }
    puts_(o, "\"0x");
    put_hex_bytes(o, p, n);
    putc_(o, '"');
}

void rows_json_begin(rows_json *w, const upq_schema *s, const rows_json_out *o,
                     rows_json_value_fn value, void *value_ctx, int object)
{
    w->s = s;
    w->out = *o;
    w->value = value ? value : rows_json_raw;
    w->value_ctx = value_ctx;
    w->depth = 1;
    w->count[0] = 0;
    if (object)
        putc_(o, '{');
}

void rows_json_end(rows_json *w, int object)
{
    if (object)
        putc_(&w->out, '}');
}

void rows_json_item_start(rows_json *w, const upq_event *ev)
{
    unsigned char *n = &w->count[w->depth - 1];
    if (ev->role == UPQ_ROLE_VALUE) {
        puts_(&w->out, ",\"value\":");
        return;
    }
    if (*n)
        putc_(&w->out, ',');
    *n = 1;
    if (ev->role == UPQ_ROLE_KEY) {
        puts_(&w->out, "{\"key\":");
    } else if (ev->role == UPQ_ROLE_FIELD) {
        const upq_bytes *name = &w->s->nodes[ev->node].elem->name;
        rows_json_string(&w->out, name->ptr, name->len);
        putc_(&w->out, ':');
    }
}

void rows_json_item_end(rows_json *w, const upq_event *ev)
{
    if (ev->role == UPQ_ROLE_VALUE)
        putc_(&w->out, '}');
}

int rows_json_event(rows_json *w, const upq_event *ev)
{
    switch (ev->type) {
    case UPQ_EV_VALUE:
        rows_json_item_start(w, ev);
        w->value(w->value_ctx, &w->out, w->s, ev->column, ev->value);
        rows_json_item_end(w, ev);
        return 0;
    case UPQ_EV_NULL:
        rows_json_item_start(w, ev);
        puts_(&w->out, "null");
        rows_json_item_end(w, ev);
        return 0;
    case UPQ_EV_BEGIN_STRUCT:
    case UPQ_EV_BEGIN_LIST:
    case UPQ_EV_BEGIN_MAP:
        if (w->depth >= ROWS_JSON_MAX_NEST)
            return -1;
        rows_json_item_start(w, ev);
        putc_(&w->out, ev->type == UPQ_EV_BEGIN_STRUCT ? '{' : '[');
        w->count[w->depth++] = 0;
        return 0;
    default: /* the ends */
        w->depth--;
        putc_(&w->out, ev->type == UPQ_EV_END_STRUCT ? '}' : ']');
        rows_json_item_end(w, ev);
        return 0;
    }
}
