/*
 * A Variant value as JSON, each primitive rendered as `upq cat --json`
 * renders a typed column of the same type: decimals as strings with their
 * scale's digits, dates, times and timestamps as text (Z for the UTC
 * timestamps), UUIDs in the usual form, binary as base64. Object keys come
 * in the value's (sorted) order.
 *
 * `upq variant META VALUE` prints the value of the two files (metadata and
 * value bytes, as the parquet-testing variant/ directory holds them).
 */
#include "upq.h"
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/variant.h"

/* Renders through value_render as a typed column would, as a JSON string
 * (or as a bare number when it is one). */
static void put_typed(strbuf *sb, int32_t physical, int32_t type_length,
                      const upq_logical_type *lt, int32_t scale, const uint8_t *p, size_t n)
{
    value_kind k;
    strbuf t;
    int kind;
    memset(&k, 0, sizeof k);
    k.physical = physical;
    k.type_length = type_length;
    k.logical = lt;
    k.scale = scale;
    sb_init(&t);
    kind = value_render(&t, &k, p, n, 1);
    if (kind == VAL_INT)
        sb_add(sb, t.p, t.len);
    else
        json_append_string(sb, sb_str(&t), t.len);
    sb_free(&t);
}

static void put_float_text(strbuf *sb, double d, int is_float)
{
    strbuf t;
    const char *s;
    sb_init(&t);
    if (is_float)
        fmt_float(&t, (float)d);
    else
        fmt_double(&t, d);
    s = sb_str(&t);
    if ((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9'))
        sb_add(sb, t.p, t.len);
    else
        json_append_string(sb, t.p, t.len);
    sb_free(&t);
}

static void put_primitive(strbuf *sb, const upq_variant_item *it)
{
    upq_logical_type lt;
    uint8_t b[16];
    int i;
    memset(&lt, 0, sizeof lt);
    for (i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)it->i >> (8 * i));
    switch (it->type) {
    case UPQ_VARIANT_NULL: sb_adds(sb, "null"); break;
    case UPQ_VARIANT_TRUE: sb_adds(sb, "true"); break;
    case UPQ_VARIANT_FALSE: sb_adds(sb, "false"); break;
    case UPQ_VARIANT_INT8:
    case UPQ_VARIANT_INT16:
    case UPQ_VARIANT_INT32:
    case UPQ_VARIANT_INT64: sb_printf(sb, "%" PRId64, it->i); break;
    case UPQ_VARIANT_DOUBLE: put_float_text(sb, it->d, 0); break;
    case UPQ_VARIANT_FLOAT: put_float_text(sb, (double)it->f, 1); break;
    case UPQ_VARIANT_DECIMAL4:
        upq_lt_decimal(&lt, 9, it->scale);
        put_typed(sb, UPQ_TYPE_INT32, -1, &lt, it->scale, b, 4);
        break;
    case UPQ_VARIANT_DECIMAL8:
        upq_lt_decimal(&lt, 18, it->scale);
        put_typed(sb, UPQ_TYPE_INT64, -1, &lt, it->scale, b, 8);
        break;
    case UPQ_VARIANT_DECIMAL16:
        for (i = 0; i < 16; i++)
            b[i] = it->bytes[15 - i]; /* typed decimals are big-endian */
        upq_lt_decimal(&lt, 38, it->scale);
        put_typed(sb, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt, it->scale, b, 16);
        break;
    case UPQ_VARIANT_DATE:
        upq_lt_date(&lt);
        put_typed(sb, UPQ_TYPE_INT32, -1, &lt, 0, b, 4);
        break;
    case UPQ_VARIANT_TIME_NTZ:
        upq_lt_time(&lt, UPQ_TIME_UNIT_MICROS, 0);
        put_typed(sb, UPQ_TYPE_INT64, -1, &lt, 0, b, 8);
        break;
    case UPQ_VARIANT_TIMESTAMP:
    case UPQ_VARIANT_TIMESTAMP_NTZ:
    case UPQ_VARIANT_TIMESTAMP_NANOS:
    case UPQ_VARIANT_TIMESTAMP_NTZ_NANOS:
        upq_lt_timestamp(&lt,
                         it->type == UPQ_VARIANT_TIMESTAMP || it->type == UPQ_VARIANT_TIMESTAMP_NTZ
                             ? UPQ_TIME_UNIT_MICROS
                             : UPQ_TIME_UNIT_NANOS,
                         it->type == UPQ_VARIANT_TIMESTAMP || it->type == UPQ_VARIANT_TIMESTAMP_NANOS);
        put_typed(sb, UPQ_TYPE_INT64, -1, &lt, 0, b, 8);
        break;
    case UPQ_VARIANT_BINARY: json_append_base64(sb, it->bytes, it->len); break;
    case UPQ_VARIANT_STRING: json_append_string(sb, it->bytes, it->len); break;
    case UPQ_VARIANT_UUID:
        upq_lt_uuid(&lt);
        put_typed(sb, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt, 0, it->bytes, 16);
        break;
    default: sb_adds(sb, "null"); break;
    }
}

int variant_json(strbuf *sb, const uint8_t *meta, size_t mlen, const uint8_t *val, size_t vlen)
{
    upq_variant_meta m;
    upq_variant_walk w;
    upq_variant_step s;
    upq_status st;
    unsigned char count[UPQ_VARIANT_MAX_DEPTH + 1];
    unsigned depth = 0;
    size_t start = sb->len;

    st = upq_variant_meta_parse(&m, meta, mlen);
    if (st != UPQ_OK)
        return st;
    upq_variant_walk_init(&w, &m, val, vlen);
    while ((st = upq_variant_walk_next(&w, &s)) == UPQ_OK) {
        if (s.event == UPQ_VEV_END_OBJECT || s.event == UPQ_VEV_END_ARRAY) {
            sb_addc(sb, s.event == UPQ_VEV_END_OBJECT ? '}' : ']');
            depth--;
            continue;
        }
        if (depth > 0) {
            if (count[depth])
                sb_addc(sb, ',');
            count[depth] = 1;
        }
        if (s.key) {
            json_append_string(sb, s.key, s.key_len);
            sb_addc(sb, ':');
        }
        if (s.event == UPQ_VEV_VALUE) {
            put_primitive(sb, &s.item);
        } else {
            sb_addc(sb, s.event == UPQ_VEV_BEGIN_OBJECT ? '{' : '[');
            count[++depth] = 0;
        }
    }
    if (st != UPQ_DONE) {
        sb->len = start;
        return st;
    }
    return 0;
}

static int read_all(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, n = 0, got;
    uint8_t *p;
    if (!f)
        return -1;
    p = malloc(cap);
    while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (!p)
        return -1;
    *out = p;
    *len = n;
    return 0;
}

int cmd_variant(const tool_args *a)
{
    uint8_t *m = NULL, *v = NULL;
    size_t ml = 0, vl = 0;
    strbuf sb;
    int st;
    if (a->nfiles != 2) {
        fprintf(stderr, "upq: variant needs METADATA and VALUE files\n");
        return 2;
    }
    if (read_all(a->files[0], &m, &ml) || read_all(a->files[1], &v, &vl)) {
        fprintf(stderr, "upq: cannot read %s\n", m ? a->files[1] : a->files[0]);
        free(m);
        return 1;
    }
    sb_init(&sb);
    st = variant_json(&sb, m, ml, v, vl);
    if (st == 0) {
        sb_addc(&sb, '\n');
        fwrite(sb.p, 1, sb.len, stdout);
    } else {
        fprintf(stderr, "upq: %s: invalid Variant: %s (%d)\n", a->files[1],
                upq_strerror((upq_status)st), st);
    }
    sb_free(&sb);
    free(m);
    free(v);
    return st == 0 ? 0 : 1;
}
