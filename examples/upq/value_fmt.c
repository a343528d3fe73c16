/*
 * Statistics values (PLAIN encoding without length prefix) rendered by their
 * column's type: integers, dates, timestamps, decimals, floats, strings,
 * UUIDs, hex. Files are untrusted: every width is checked before reading.
 */
#include "upq.h"
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decimals wider than this are shown as hex: the conversion is quadratic. */
#define MAX_DECIMAL_BYTES 4096u
/* Scales beyond this are shown in exponent form rather than as zeros. */
#define MAX_PLAIN_SCALE 1000

void value_kind_for(value_kind *k, const upq_schema *s, uint32_t col, int32_t chunk_type)
{
    memset(k, 0, sizeof *k);
    k->physical = chunk_type;
    k->type_length = -1;
    if (s && col < s->num_columns && s->columns[col].physical_type == chunk_type) {
        const upq_column_desc *c = &s->columns[col];
        k->type_length = c->type_length;
        k->logical = c->logical.isset ? &c->logical : NULL;
        k->scale = c->scale;
    }
}

static int logical_kind(const value_kind *k)
{
    return k->logical ? upq_logical_type_kind(k->logical) : 0;
}

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

static void fmt_hex(strbuf *sb, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;
    sb_adds(sb, "0x");
    for (i = 0; i < n; i++) {
        sb_addc(sb, digits[p[i] >> 4]);
        sb_addc(sb, digits[p[i] & 15]);
    }
}

static int fmt_invalid(strbuf *sb, const uint8_t *p, size_t n)
{
    fmt_hex(sb, p, n);
    sb_adds(sb, " (invalid)");
    return VAL_TEXT;
}

/* ---- strings ----------------------------------------------------------- */

/* `quote` (or 0) is the delimiter that needs a backslash. */
static void escape(strbuf *sb, const uint8_t *p, size_t n, unsigned quote)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t k;
        if (c == quote && quote) {
            sb_addc(sb, '\\');
            sb_addc(sb, (char)c);
            i++;
            continue;
        }
        switch (c) {
        case '\\': sb_adds(sb, "\\\\"); i++; continue;
        case '\n': sb_adds(sb, "\\n"); i++; continue;
        case '\r': sb_adds(sb, "\\r"); i++; continue;
        case '\t': sb_adds(sb, "\\t"); i++; continue;
        default: break;
        }
        if (c >= 0x20 && c < 0x7F) {
            sb_addc(sb, (char)c);
            i++;
        } else if (c >= 0x80 && (k = utf8_seq_len(p + i, n - i)) != 0) {
            sb_add(sb, p + i, k);
            i += k;
        } else {
            sb_printf(sb, "\\x%02x", c);
            i++;
        }
    }
}

void fmt_escaped(strbuf *sb, const uint8_t *p, size_t n)
{
    escape(sb, p, n, 0);
}

void fmt_quoted(strbuf *sb, const uint8_t *p, size_t n)
{
    sb_addc(sb, '"');
    escape(sb, p, n, '"');
    sb_addc(sb, '"');
}

/* ---- floating point ----------------------------------------------------- */

/* `text` is the shortest %.{p}g rendering of d that reads back exactly. %g
 * picks exponent form as soon as the exponent reaches p ("1e+02" for 100);
 * like Python's repr, write whole numbers below 1e16 out in full instead.
 * More digits than p still read back as the same value. */
static void put_shortest(strbuf *sb, const char *text, double d, int p)
{
    const char *e = strchr(text, 'e');
    char buf[64];
    int x;
    if (!e || (x = atoi(e + 1)) < p || x >= 16) {
        sb_adds(sb, text);
        return;
    }
    snprintf(buf, sizeof buf, "%.*g", x + 1, d);
    sb_adds(sb, buf);
}

/* Tries precisions from 1 up so the text is the shortest that reads back
 * as exactly the same value; %g keeps it stable across libcs. */
void fmt_double(strbuf *sb, double d)
{
    char buf[64];
    int p;
    if (isnan(d)) {
        sb_adds(sb, "NaN");
        return;
    }
    if (isinf(d)) {
        sb_adds(sb, d < 0 ? "-Infinity" : "Infinity");
        return;
    }
    for (p = 1; p <= 17; p++) {
        double back;
        snprintf(buf, sizeof buf, "%.*g", p, d);
        back = strtod(buf, NULL);
        if (memcmp(&back, &d, sizeof d) == 0)
            break;
    }
    put_shortest(sb, buf, d, p);
}

void fmt_float(strbuf *sb, float f)
{
    char buf[64];
    int p;
    if (isnan(f)) {
        sb_adds(sb, "NaN");
        return;
    }
    if (isinf(f)) {
        sb_adds(sb, f < 0 ? "-Infinity" : "Infinity");
        return;
    }
    for (p = 1; p <= 9; p++) {
        float back;
        snprintf(buf, sizeof buf, "%.*g", p, (double)f);
        back = strtof(buf, NULL);
        if (memcmp(&back, &f, sizeof f) == 0)
            break;
    }
    put_shortest(sb, buf, (double)f, p);
}

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1F;
    int man = h & 0x3FF;
    double v;
    if (exp == 0x1F)
        v = man ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp((double)man, -24);
    else
        v = ldexp((double)(man | 0x400), exp - 25);
    return (h & 0x8000) ? -v : v;
}

/* Round-to-nearest-even conversion, used only to test candidate texts. */
static uint16_t half_from_double(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d), m;
    int e;
    if (isnan(d))
        return (uint16_t)(sign | 0x7E00);
    if (a >= 65520.0)
        return (uint16_t)(sign | 0x7C00);
    if (a < ldexp(1.0, -14))
        return (uint16_t)(sign | (uint16_t)nearbyint(ldexp(a, 24)));
    (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    m = nearbyint(ldexp(a, 11 - e)); /* 1024..2048 */
    return (uint16_t)(sign | (uint16_t)(((e + 14) << 10) + (int)m - 1024));
}

static void fmt_half(strbuf *sb, uint16_t h)
{
    double d = half_to_double(h);
    char buf[64];
    int p;
    if (isnan(d) || isinf(d)) {
        fmt_double(sb, d);
        return;
    }
    for (p = 1; p <= 9; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, d);
        if (half_from_double(strtod(buf, NULL)) == h)
            break;
    }
    put_shortest(sb, buf, d, p);
}

/* ---- dates and times ----------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b) != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
 * algorithm); valid for every |days| below 2^61. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t era, yoe, doy, mp;
    z += 719468;
    era = floor_div(z, 146097);
    {
        int64_t doe = z - era * 146097;
        yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    }
    mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

void fmt_date(strbuf *sb, int64_t days)
{
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (y >= 0 && y <= 9999)
        sb_printf(sb, "%04" PRId64 "-%02u-%02u", y, m, d);
    else
        sb_printf(sb, "%+05" PRId64 "-%02u-%02u", y, m, d);
}

/* Units per second and fraction digits of a TimeUnit member id. */
static int unit_scale(int unit, int64_t *per_sec)
{
    switch (unit) {
    case UPQ_TIME_UNIT_MILLIS: *per_sec = 1000; return 3;
    case UPQ_TIME_UNIT_MICROS: *per_sec = 1000000; return 6;
    case UPQ_TIME_UNIT_NANOS: *per_sec = 1000000000; return 9;
    default: return -1;
    }
}

static int fmt_timestamp(strbuf *sb, int64_t v, const upq_timestamp_type *t)
{
    int64_t per, secs, frac, days, sod;
    int digits = unit_scale(upq_time_unit_kind(&t->unit), &per);
    if (digits < 0) {
        sb_printf(sb, "%" PRId64, v);
        return VAL_INT;
    }
    /* remainders instead of q * d products, which overflow near INT64_MIN */
    secs = floor_div(v, per);
    frac = v % per;
    if (frac < 0)
        frac += per;
    days = floor_div(secs, 86400);
    sod = secs % 86400;
    if (sod < 0)
        sod += 86400;
    fmt_date(sb, days);
    sb_printf(sb, "T%02d:%02d:%02d.%0*" PRId64 "%s", (int)(sod / 3600), (int)(sod / 60 % 60),
              (int)(sod % 60), digits, frac, t->is_adjusted_to_utc ? "Z" : "");
    return VAL_TEXT;
}

static int fmt_time(strbuf *sb, int64_t v, const upq_time_type *t)
{
    int64_t per, secs, frac;
    int digits = unit_scale(upq_time_unit_kind(&t->unit), &per);
    if (digits < 0 || v < 0 || v / per >= 86400) {
        /* not a time of day: show the stored number */
        sb_printf(sb, "%" PRId64, v);
        return digits < 0 ? VAL_INT : VAL_TEXT;
    }
    secs = v / per;
    frac = v % per;
    sb_printf(sb, "%02d:%02d:%02d.%0*" PRId64 "%s", (int)(secs / 3600), (int)(secs / 60 % 60),
              (int)(secs % 60), digits, frac, t->is_adjusted_to_utc ? "Z" : "");
    return VAL_TEXT;
}

/* ---- decimals ----------------------------------------------------------- */

/* Places the decimal point `scale` digits from the right of `digits`. */
static void put_scaled(strbuf *sb, int neg, const char *digits, size_t nd, int32_t scale)
{
    if (neg)
        sb_addc(sb, '-');
    if (scale <= 0) {
        sb_add(sb, digits, nd);
        if (scale < 0 && nd == 1 && digits[0] == '0')
            return;
        if (scale < 0 && scale >= -MAX_PLAIN_SCALE) {
            int32_t i;
            for (i = 0; i < -scale; i++)
                sb_addc(sb, '0');
        } else if (scale < 0) {
            sb_printf(sb, "E+%" PRId64, -(int64_t)scale);
        }
        return;
    }
    if (scale > MAX_PLAIN_SCALE) {
        sb_add(sb, digits, nd);
        sb_printf(sb, "E-%" PRId32, scale);
        return;
    }
    if (nd <= (size_t)scale) {
        size_t i;
        sb_adds(sb, "0.");
        for (i = nd; i < (size_t)scale; i++)
            sb_addc(sb, '0');
        sb_add(sb, digits, nd);
    } else {
        sb_add(sb, digits, nd - (size_t)scale);
        sb_addc(sb, '.');
        sb_add(sb, digits + nd - (size_t)scale, (size_t)scale);
    }
}

/* A big-endian two's complement integer of any width as a scaled decimal. */
static int fmt_decimal_be(strbuf *sb, const uint8_t *p, size_t n, int32_t scale)
{
    uint32_t *limbs; /* base 1e9, least significant first */
    size_t nl = 0, i, cap;
    int neg;
    strbuf digits;

    if (n == 0)
        return fmt_invalid(sb, p, n);
    if (n > MAX_DECIMAL_BYTES) {
        fmt_hex(sb, p, n);
        return VAL_TEXT;
    }
    neg = (p[0] & 0x80) != 0;
    cap = n * 8 / 29 + 2; /* 2^29 < 1e9 */
    limbs = calloc(cap, sizeof *limbs);
    if (!limbs) {
        fmt_hex(sb, p, n);
        return VAL_TEXT;
    }
    /* magnitude: for a negative value, -x = ~x + 1 */
    {
        int carry = neg;
        uint8_t *mag = malloc(n);
        if (!mag) {
            free(limbs);
            fmt_hex(sb, p, n);
            return VAL_TEXT;
        }
        for (i = n; i-- > 0;) {
            unsigned b = neg ? (unsigned)(uint8_t)~p[i] + (unsigned)carry : p[i];
            carry = b > 0xFF;
            mag[i] = (uint8_t)b;
        }
        for (i = 0; i < n; i++) {
            uint64_t c = mag[i];
            size_t j;
            for (j = 0; j < nl; j++) {
                uint64_t t = (uint64_t)limbs[j] * 256u + c;
                limbs[j] = (uint32_t)(t % 1000000000u);
                c = t / 1000000000u;
            }
            if (c && nl < cap)
                limbs[nl++] = (uint32_t)c;
        }
        free(mag);
    }
    sb_init(&digits);
    if (nl == 0) {
        sb_addc(&digits, '0');
        neg = 0;
    } else {
        sb_printf(&digits, "%" PRIu32, limbs[nl - 1]);
        for (i = nl - 1; i-- > 0;)
            sb_printf(&digits, "%09" PRIu32, limbs[i]);
    }
    put_scaled(sb, neg, sb_str(&digits), digits.len, scale);
    sb_free(&digits);
    free(limbs);
    return VAL_TEXT;
}

static int fmt_decimal_int(strbuf *sb, int64_t v, int32_t scale)
{
    char buf[32];
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(buf, sizeof buf, "%" PRIu64, mag);
    put_scaled(sb, v < 0, buf, (size_t)n, scale);
    return VAL_TEXT;
}

/* ---- by type ------------------------------------------------------------ */

static int render_int32(strbuf *sb, const value_kind *k, int32_t v)
{
    switch (logical_kind(k)) {
    case UPQ_LOGICAL_TYPE_INTEGER:
        if (!k->logical->u.integer.is_signed) {
            sb_printf(sb, "%" PRIu32, (uint32_t)v);
            return VAL_INT;
        }
        break;
    case UPQ_LOGICAL_TYPE_DATE:
        fmt_date(sb, v);
        return VAL_TEXT;
    case UPQ_LOGICAL_TYPE_DECIMAL:
        return fmt_decimal_int(sb, v, k->scale);
    case UPQ_LOGICAL_TYPE_TIME:
        return fmt_time(sb, v, &k->logical->u.time);
    default:
        break;
    }
    sb_printf(sb, "%" PRId32, v);
    return VAL_INT;
}

static int render_int64(strbuf *sb, const value_kind *k, int64_t v)
{
    switch (logical_kind(k)) {
    case UPQ_LOGICAL_TYPE_INTEGER:
        if (!k->logical->u.integer.is_signed) {
            sb_printf(sb, "%" PRIu64, (uint64_t)v);
            return VAL_INT;
        }
        break;
    case UPQ_LOGICAL_TYPE_TIMESTAMP:
        return fmt_timestamp(sb, v, &k->logical->u.timestamp);
    case UPQ_LOGICAL_TYPE_TIME:
        return fmt_time(sb, v, &k->logical->u.time);
    case UPQ_LOGICAL_TYPE_DECIMAL:
        return fmt_decimal_int(sb, v, k->scale);
    default:
        break;
    }
    sb_printf(sb, "%" PRId64, v);
    return VAL_INT;
}

static int render_string(strbuf *sb, const uint8_t *p, size_t n, int json)
{
    if (json) {
        sb_add(sb, p, n);
        return VAL_STRING;
    }
    fmt_quoted(sb, p, n);
    return VAL_TEXT;
}

static int render_bytes(strbuf *sb, const value_kind *k, const uint8_t *p, size_t n, int json)
{
    size_t i;
    switch (logical_kind(k)) {
    case UPQ_LOGICAL_TYPE_STRING:
    case UPQ_LOGICAL_TYPE_ENUM:
    case UPQ_LOGICAL_TYPE_JSON:
        return render_string(sb, p, n, json);
    case UPQ_LOGICAL_TYPE_DECIMAL:
        return fmt_decimal_be(sb, p, n, k->scale);
    case UPQ_LOGICAL_TYPE_UUID:
        if (n != 16)
            return fmt_invalid(sb, p, n);
        for (i = 0; i < 16; i++) {
            sb_printf(sb, "%02x", p[i]);
            if (i == 3 || i == 5 || i == 7 || i == 9)
                sb_addc(sb, '-');
        }
        return VAL_TEXT;
    case UPQ_LOGICAL_TYPE_FLOAT16:
        if (n != 2)
            return fmt_invalid(sb, p, n);
        fmt_half(sb, (uint16_t)(p[0] | p[1] << 8));
        return VAL_TEXT;
    default:
        fmt_hex(sb, p, n);
        return VAL_TEXT;
    }
}

int value_render(strbuf *sb, const value_kind *k, const uint8_t *p, size_t n, int json)
{
    switch (k->physical) {
    case UPQ_TYPE_BOOLEAN:
        if (n != 1 || p[0] > 1)
            return fmt_invalid(sb, p, n);
        sb_adds(sb, p[0] ? "true" : "false");
        return VAL_TEXT;
    case UPQ_TYPE_INT32:
        if (n != 4)
            return fmt_invalid(sb, p, n);
        return render_int32(sb, k, (int32_t)load_le32(p));
    case UPQ_TYPE_INT64:
        if (n != 8)
            return fmt_invalid(sb, p, n);
        return render_int64(sb, k, (int64_t)load_le64(p));
    case UPQ_TYPE_INT96:
        if (n != 12)
            return fmt_invalid(sb, p, n);
        fmt_hex(sb, p, n);
        return VAL_TEXT;
    case UPQ_TYPE_FLOAT: {
        uint32_t bits;
        float f;
        if (n != 4)
            return fmt_invalid(sb, p, n);
        bits = load_le32(p);
        memcpy(&f, &bits, sizeof f);
        fmt_float(sb, f);
        return VAL_TEXT;
    }
    case UPQ_TYPE_DOUBLE: {
        uint64_t bits;
        double d;
        if (n != 8)
            return fmt_invalid(sb, p, n);
        bits = load_le64(p);
        memcpy(&d, &bits, sizeof d);
        fmt_double(sb, d);
        return VAL_TEXT;
    }
    case UPQ_TYPE_BYTE_ARRAY:
        return render_bytes(sb, k, p, n, json);
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (k->type_length >= 0 && n != (size_t)k->type_length)
            return fmt_invalid(sb, p, n);
        return render_bytes(sb, k, p, n, json);
    default:
        fmt_hex(sb, p, n);
        return VAL_TEXT;
    }
}

/* A decoded statistics value goes back to its PLAIN bytes (the widened
 * zeros of a float bound included) and is rendered like any value. */
int stat_value_render(strbuf *sb, const value_kind *k, const upq_stat_value *v, int json)
{
    uint8_t b[8];
    size_t n = k->physical == UPQ_TYPE_INT32 || k->physical == UPQ_TYPE_FLOAT ? 4 : 8;
    uint64_t u = v->v.u;
    size_t i;
    switch (v->kind) {
    case UPQ_STAT_BOOL:
        b[0] = (uint8_t)v->v.i;
        return value_render(sb, k, b, 1, json);
    case UPQ_STAT_INT:
    case UPQ_STAT_UINT:
        break;
    case UPQ_STAT_FLOAT:
        if (k->physical == UPQ_TYPE_FLOAT) {
            float f = (float)v->v.d;
            uint32_t w;
            memcpy(&w, &f, sizeof w);
            u = w;
        } else if (k->physical == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            u = half_from_double(v->v.d);
            n = 2;
        } else {
            memcpy(&u, &v->v.d, sizeof u);
        }
        break;
    case UPQ_STAT_BYTES:
    case UPQ_STAT_DECIMAL:
    case UPQ_STAT_INT96:
        return value_render(sb, k, v->ptr, v->len, json);
    default:
        sb_adds(sb, "?");
        return VAL_TEXT;
    }
    for (i = 0; i < n; i++, u >>= 8)
        b[i] = (uint8_t)u;
    return value_render(sb, k, b, n, json);
}
