/*
 * One row value as JSON text, by its column's type (the format docs/cli.md
 * documents under "upq cat --json format"). Integers, dates, timestamps,
 * decimals, UUIDs and FLOAT16 read the same as in statistics and go through
 * value_render(); times, INT96, INTERVAL and plain bytes are done here.
 */
#include "upq.h"
#include "json.h"

#include <inttypes.h>
#include <string.h>

#define JULIAN_UNIX_EPOCH 2440588 /* Julian day number of 1970-01-01 */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b) != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* HH:MM:SS.fraction with the unit's digits; a value that is not a time of
 * day (negative, or a unit this version does not know) stays a number. */
static void put_time(strbuf *sb, int64_t v, const upq_time_type *t)
{
    int64_t per;
    int digits;
    switch (upq_time_unit_kind(&t->unit)) {
    case UPQ_TIME_UNIT_MILLIS: per = 1000; digits = 3; break;
    case UPQ_TIME_UNIT_MICROS: per = 1000000; digits = 6; break;
    case UPQ_TIME_UNIT_NANOS: per = 1000000000; digits = 9; break;
    default: sb_printf(sb, "%" PRId64, v); return;
    }
    if (v < 0) {
        sb_printf(sb, "%" PRId64, v);
        return;
    }
    sb_printf(sb, "\"%02" PRId64 ":%02d:%02d.%0*" PRId64 "\"", v / per / 3600,
              (int)(v / per / 60 % 60), (int)(v / per % 60), digits, v % per);
}

/*
 * INT96: 8 bytes of nanoseconds in the day, then the Julian day (4 bytes);
 * a nanosecond timestamp without a time zone. Spark, which writes most of
 * these, folds day and time into 64-bit microseconds with wrap-around, so
 * the sum is taken the same way: it gives back every timestamp Spark could
 * store (years up to about 294000), including those whose encoding
 * overflowed into a negative day and time.
 */
static void put_int96(strbuf *sb, const upq_int96 *v)
{
    int64_t nanos = (int64_t)((uint64_t)le32(v->b) | (uint64_t)le32(v->b + 4) << 32);
    int64_t jd = (int32_t)le32(v->b + 8);
    int64_t micros, sub, secs, frac, days, sod;
    micros = (int64_t)((uint64_t)(jd - JULIAN_UNIX_EPOCH) * UINT64_C(86400000000) +
                       (uint64_t)(nanos / 1000));
    sub = nanos % 1000; /* nanoseconds below the microsecond (sign of nanos) */
    secs = floor_div(micros, 1000000);
    frac = micros % 1000000; /* remainders, not products: no overflow near INT64_MIN */
    if (frac < 0)
        frac += 1000000;
    frac = frac * 1000 + sub;
    if (frac < 0) {
        frac += 1000000000;
        secs--;
    }
    days = floor_div(secs, 86400);
    sod = secs % 86400;
    if (sod < 0)
        sod += 86400;
    sb_addc(sb, '"');
    fmt_date(sb, days);
    sb_printf(sb, "T%02d:%02d:%02d.%09" PRId64 "\"", (int)(sod / 3600), (int)(sod / 60 % 60),
              (int)(sod % 60), frac);
}

/* Is value_render's text for a floating-point value a JSON number? */
static int is_number_text(const char *t, size_t n)
{
    if (n && t[0] == '-') {
        t++;
        n--;
    }
    return n > 0 && t[0] >= '0' && t[0] <= '9' && !(n > 1 && t[1] == 'x');
}

void value_json(strbuf *sb, const upq_schema *s, uint32_t col, const void *v)
{
    const upq_column_desc *cd = &s->columns[col];
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    uint8_t buf[8];
    const uint8_t *p = buf;
    size_t n = 0;
    value_kind k;
    strbuf t;
    int kind;

    if (lk == UPQ_LOGICAL_TYPE_UNKNOWN) {
        sb_adds(sb, "null"); /* the type of "always null" */
        return;
    }
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN:
        sb_adds(sb, *(const uint8_t *)v ? "true" : "false");
        return;
    case UPQ_TYPE_INT32: {
        int32_t x;
        memcpy(&x, v, sizeof x);
        if (lk == UPQ_LOGICAL_TYPE_TIME) {
            put_time(sb, x, &cd->logical.u.time);
            return;
        }
        store_le32(buf, (uint32_t)x);
        n = 4;
        break;
    }
    case UPQ_TYPE_INT64: {
        int64_t x;
        memcpy(&x, v, sizeof x);
        if (lk == UPQ_LOGICAL_TYPE_TIME) {
            put_time(sb, x, &cd->logical.u.time);
            return;
        }
        store_le32(buf, (uint32_t)x);
        store_le32(buf + 4, (uint32_t)((uint64_t)x >> 32));
        n = 8;
        break;
    }
    case UPQ_TYPE_INT96:
        put_int96(sb, (const upq_int96 *)v);
        return;
    case UPQ_TYPE_FLOAT:
    case UPQ_TYPE_DOUBLE: {
        sb_init(&t);
        if (cd->physical_type == UPQ_TYPE_FLOAT) {
            float f;
            memcpy(&f, v, sizeof f);
            fmt_float(&t, f);
        } else {
            double d;
            memcpy(&d, v, sizeof d);
            fmt_double(&t, d);
        }
        if (is_number_text(sb_str(&t), t.len))
            sb_add(sb, t.p, t.len);
        else
            json_append_string(sb, t.p, t.len); /* "NaN", "Infinity", "-Infinity" */
        sb_free(&t);
        return;
    }
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: {
        const upq_bytes *b = (const upq_bytes *)v;
        if (lk == UPQ_LOGICAL_TYPE_STRING || lk == UPQ_LOGICAL_TYPE_ENUM ||
            lk == UPQ_LOGICAL_TYPE_JSON) {
            json_append_string(sb, b->ptr, b->len);
            return;
        }
        if (lk == 0 && cd->converted_type == UPQ_CONVERTED_INTERVAL && b->len == 12) {
            sb_printf(sb, "{\"months\":%" PRIu32 ",\"days\":%" PRIu32 ",\"millis\":%" PRIu32 "}",
                      le32(b->ptr), le32(b->ptr + 4), le32(b->ptr + 8));
            return;
        }
        if (lk != UPQ_LOGICAL_TYPE_DECIMAL && lk != UPQ_LOGICAL_TYPE_UUID &&
            lk != UPQ_LOGICAL_TYPE_FLOAT16) {
            json_append_base64(sb, b->ptr, b->len);
            return;
        }
        p = b->ptr;
        n = b->len;
        break;
    }
    default:
        sb_adds(sb, "null");
        return;
    }
    value_kind_for(&k, s, col, cd->physical_type);
    sb_init(&t);
    kind = value_render(&t, &k, p, n, 1);
    if (kind == VAL_INT || (lk == UPQ_LOGICAL_TYPE_FLOAT16 && is_number_text(sb_str(&t), t.len)))
        sb_add(sb, t.p, t.len);
    else
        json_append_string(sb, sb_str(&t), t.len);
    sb_free(&t);
}
