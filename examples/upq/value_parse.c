/*
 * One JSON value back into a leaf column's value: the inverse of
 * value_json.c, so every value `upq cat --json` prints reads back as the
 * value it came from (docs/cli.md, "upq cat --json format"). The decisions
 * mirror value_json(): the column's LogicalType (or its ConvertedType's
 * equivalent) first, then the physical type.
 *
 * Dates, times and timestamps also take the stored integer as a JSON
 * number; decimals also take a plain number literal (its digits are read
 * exactly, never through a double).
 */
#include "upq.h"
#include "jsonl.h"
#include "shred.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define JULIAN_UNIX_EPOCH 2440588
/* Decimal digits accepted for a BYTE_ARRAY decimal: about the 4096 bytes
 * beyond which `upq cat` shows a decimal as hex. */
#define MAX_DECIMAL_DIGITS 9800

typedef struct vctx {
    const jv_doc *d;
    const jv *v;
    char *err;
    size_t errcap;
} vctx;

static int verr(vctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errcap, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *text(vctx *c)
{
    return (const char *)jv_bytes(c->d, c->v);
}

static int is_string(vctx *c, const char *s)
{
    size_t n = strlen(s);
    return c->v->type == JV_STRING && c->v->len == n && memcmp(text(c), s, n) == 0;
}

/* ---- integers ------------------------------------------------------------- */

/* An integer literal s[0..n): sign and magnitude, or 0 when it is not one
 * or the magnitude exceeds 64 bits. */
static int int_text(const char *s, size_t n, int *neg, uint64_t *mag)
{
    size_t i = 0;
    uint64_t m = 0;
    *neg = 0;
    if (n && s[0] == '-') {
        *neg = 1;
        i = 1;
    }
    if (i >= n)
        return 0;
    for (; i < n; i++) {
        unsigned dgt;
        if (s[i] < '0' || s[i] > '9')
            return 0;
        dgt = (unsigned)(s[i] - '0');
        if (m > (UINT64_MAX - dgt) / 10)
            return 0;
        m = m * 10 + dgt;
    }
    *mag = m;
    return 1;
}

/* The JSON number as an integer in [lo, hi] (signed) into *out. */
static int get_signed(vctx *c, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
    int neg;
    uint64_t mag;
    if (c->v->type != JV_NUMBER || !int_text(text(c), c->v->len, &neg, &mag))
        return verr(c, "expected an integer (%s)", what);
    if (neg) {
        if (mag > (uint64_t)INT64_MAX + 1 || -(int64_t)(mag - 1) - 1 < lo)
            return verr(c, "%.*s is out of range for %s", (int)c->v->len, text(c), what);
        *out = -(int64_t)(mag - 1) - 1;
    } else {
        if (mag > (uint64_t)INT64_MAX || (int64_t)mag > hi)
            return verr(c, "%.*s is out of range for %s", (int)c->v->len, text(c), what);
        *out = (int64_t)mag;
    }
    return 0;
}

static int get_unsigned(vctx *c, uint64_t hi, uint64_t *out, const char *what)
{
    int neg;
    uint64_t mag;
    if (c->v->type != JV_NUMBER || !int_text(text(c), c->v->len, &neg, &mag))
        return verr(c, "expected an integer (%s)", what);
    if ((neg && mag != 0) || mag > hi)
        return verr(c, "%.*s is out of range for %s", (int)c->v->len, text(c), what);
    *out = mag;
    return 0;
}

/* ---- dates and times -------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (int64_t)(m > 2 ? m - 3 : m + 9) + 2) / 5 + (int64_t)d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* `n` digits at s[*i] as a number. */
static int digits(const char *s, size_t len, size_t *i, size_t n, unsigned *out)
{
    unsigned v = 0;
    size_t k;
    if (len - *i < n)
        return 0;
    for (k = 0; k < n; k++) {
        char ch = s[*i + k];
        if (ch < '0' || ch > '9')
            return 0;
        v = v * 10 + (unsigned)(ch - '0');
    }
    *i += n;
    *out = v;
    return 1;
}

/* [+-]YYYY-MM-DD at s[*i] (fmt_date's form: years outside 0..9999 have a
 * sign and may have more digits). */
int value_date_text(const char *s, size_t n, size_t *i, int64_t *days)
{
    int neg = 0;
    int64_t y = 0;
    size_t start;
    unsigned m, d;
    if (*i < n && (s[*i] == '+' || s[*i] == '-'))
        neg = s[(*i)++] == '-';
    start = *i;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
        if (*i - start >= 12)
            return 0;
        y = y * 10 + (s[*i] - '0');
        (*i)++;
    }
    if (*i - start < 4)
        return 0;
    if (neg)
        y = -y;
    if (*i >= n || s[(*i)++] != '-' || !digits(s, n, i, 2, &m) || *i >= n || s[(*i)++] != '-' ||
        !digits(s, n, i, 2, &d))
        return 0;
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
        return 0;
    *days = days_from_civil(y, m, d);
    return 1;
}

/* HH:MM:SS[.fraction] at s[*i]: seconds and the fraction in units of
 * 10^-digits (fewer digits are padded; more are an error). max_hours bounds HH. */
static int time_text(const char *s, size_t n, size_t *i, unsigned max_hours, int digits_want,
                     int64_t *secs, int64_t *frac)
{
    unsigned h = 0, m, sec;
    size_t hstart = *i;
    int k = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9' && *i - hstart < 9)
        h = h * 10 + (unsigned)(s[(*i)++] - '0');
    if (*i - hstart < 2 || h > max_hours)
        return 0;
    if (*i >= n || s[(*i)++] != ':' || !digits(s, n, i, 2, &m) || *i >= n ||
        s[(*i)++] != ':' || !digits(s, n, i, 2, &sec) || m > 59 || sec > 59)
        return 0;
    *frac = 0;
    if (*i < n && s[*i] == '.') {
        (*i)++;
        while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
            if (k >= digits_want)
                return 0;
            *frac = *frac * 10 + (s[(*i)++] - '0');
            k++;
        }
        if (k == 0)
            return 0;
    }
    for (; k < digits_want; k++)
        *frac *= 10;
    *secs = (int64_t)h * 3600 + (int64_t)m * 60 + sec;
    return 1;
}

static int unit_scale(int unit, int64_t *per)
{
    switch (unit) {
    case UPQ_TIME_UNIT_MILLIS: *per = 1000; return 3;
    case UPQ_TIME_UNIT_MICROS: *per = 1000000; return 6;
    case UPQ_TIME_UNIT_NANOS: *per = 1000000000; return 9;
    default: return -1;
    }
}

/* secs * per + frac without overflowing on the way (frac in [0, per)). */
static int ticks(int64_t secs, int64_t per, int64_t frac, int64_t *out)
{
    int64_t t;
    if (secs < 0 && frac > 0) {
        /* (secs + 1) * per - (per - frac): stays in range when the result does */
        if (__builtin_mul_overflow(secs + 1, per, &t) || __builtin_sub_overflow(t, per - frac, out))
            return 0;
        return 1;
    }
    if (__builtin_mul_overflow(secs, per, &t) || __builtin_add_overflow(t, frac, out))
        return 0;
    return 1;
}

static int get_timestamp(vctx *c, const upq_timestamp_type *t, int64_t *out)
{
    const char *s = text(c);
    size_t n = c->v->len, i = 0;
    int64_t per, days, secs, frac, total;
    int dg = unit_scale(upq_time_unit_kind(&t->unit), &per);
    if (c->v->type == JV_NUMBER || dg < 0)
        return get_signed(c, INT64_MIN, INT64_MAX, out, "TIMESTAMP");
    if (c->v->type != JV_STRING || !value_date_text(s, n, &i, &days) || i >= n ||
        (s[i] != 'T' && s[i] != ' ') || (i++, !time_text(s, n, &i, 23, dg, &secs, &frac)))
        return verr(c, "expected a timestamp \"YYYY-MM-DDTHH:MM:SS.%.*s%s\"", dg, "fffffffff",
                    t->is_adjusted_to_utc ? "Z" : "");
    if (i < n && s[i] == 'Z')
        i++;
    if (i != n)
        return verr(c, "expected a timestamp, not \"%.*s\"", (int)n, s);
    if (__builtin_mul_overflow(days, (int64_t)86400, &total) ||
        __builtin_add_overflow(total, secs, &total) || !ticks(total, per, frac, out))
        return verr(c, "timestamp \"%.*s\" is out of range", (int)n, s);
    return 0;
}

static int get_time(vctx *c, const upq_time_type *t, int64_t hi, int64_t *out)
{
    const char *s = text(c);
    size_t n = c->v->len, i = 0;
    int64_t per, secs, frac;
    int dg = unit_scale(upq_time_unit_kind(&t->unit), &per);
    if (c->v->type == JV_NUMBER || dg < 0)
        return get_signed(c, hi == INT32_MAX ? INT32_MIN : INT64_MIN, hi, out, "TIME");
    if (c->v->type != JV_STRING || !time_text(s, n, &i, 999999999, dg, &secs, &frac))
        return verr(c, "expected a time \"HH:MM:SS.%.*s\"", dg, "fffffffff");
    if (i < n && s[i] == 'Z')
        i++;
    if (i != n)
        return verr(c, "expected a time, not \"%.*s\"", (int)n, s);
    if (!ticks(secs, per, frac, out) || *out > hi)
        return verr(c, "time \"%.*s\" is out of range", (int)n, s);
    return 0;
}

static int get_date(vctx *c, int32_t *out)
{
    const char *s = text(c);
    size_t i = 0;
    int64_t days;
    if (c->v->type == JV_NUMBER) {
        int64_t v;
        if (get_signed(c, INT32_MIN, INT32_MAX, &v, "DATE"))
            return -1;
        *out = (int32_t)v;
        return 0;
    }
    if (c->v->type != JV_STRING || !value_date_text(s, c->v->len, &i, &days) || i != c->v->len)
        return verr(c, "expected a date \"YYYY-MM-DD\"");
    if (days < INT32_MIN || days > INT32_MAX)
        return verr(c, "date \"%.*s\" is out of range", (int)c->v->len, s);
    *out = (int32_t)days;
    return 0;
}

/* INT96: the inverse of value_json's put_int96. The text is a nanosecond
 * timestamp; stored as Julian day and nanoseconds of the day, which the
 * reader sums back into the same 64-bit microseconds (so the value must
 * have a 64-bit microsecond count, as every value it prints has). */
static int get_int96(vctx *c, upq_int96 *out)
{
    const char *s = text(c);
    size_t n = c->v->len, i = 0;
    int64_t days, secs, frac, micros, jd, nanos;
    if (c->v->type != JV_STRING || !value_date_text(s, n, &i, &days) || i >= n ||
        (s[i] != 'T' && s[i] != ' ') || (i++, !time_text(s, n, &i, 23, 9, &secs, &frac)))
        return verr(c, "expected a timestamp \"YYYY-MM-DDTHH:MM:SS.nnnnnnnnn\" (INT96)");
    if (i < n && s[i] == 'Z')
        i++;
    if (i != n)
        return verr(c, "expected a timestamp, not \"%.*s\"", (int)n, s);
    if (__builtin_mul_overflow(days, (int64_t)86400, &micros) ||
        __builtin_add_overflow(micros, secs, &micros) || !ticks(micros, 1000000, frac / 1000, &micros))
        return verr(c, "timestamp \"%.*s\" is out of range for INT96", (int)n, s);
    jd = days + JULIAN_UNIX_EPOCH;
    if (jd < INT32_MIN || jd > INT32_MAX)
        return verr(c, "timestamp \"%.*s\" is out of range for INT96", (int)n, s);
    nanos = secs * 1000000000 + frac;
    for (i = 0; i < 8; i++)
        out->b[i] = (uint8_t)((uint64_t)nanos >> (8 * i));
    for (i = 0; i < 4; i++)
        out->b[8 + i] = (uint8_t)((uint32_t)jd >> (8 * i));
    return 0;
}

/* ---- floating point ----------------------------------------------------------- */

static int special_float(vctx *c, double *out)
{
    if (is_string(c, "NaN"))
        *out = NAN;
    else if (is_string(c, "Infinity"))
        *out = INFINITY;
    else if (is_string(c, "-Infinity"))
        *out = -INFINITY;
    else
        return 0;
    return 1;
}

/* Copies the number text into a C string for strtod. */
static int number_cstr(vctx *c, char *buf, size_t cap)
{
    if (c->v->type != JV_NUMBER || c->v->len >= cap)
        return 0;
    memcpy(buf, text(c), c->v->len);
    buf[c->v->len] = '\0';
    return 1;
}

static int get_double(vctx *c, double *out)
{
    char buf[512];
    if (special_float(c, out))
        return 0;
    if (!number_cstr(c, buf, sizeof buf))
        return verr(c, "expected a number (DOUBLE)");
    errno = 0;
    *out = strtod(buf, NULL);
    if (isinf(*out))
        return verr(c, "%s is out of range for DOUBLE", buf);
    return 0;
}

static int get_float(vctx *c, float *out)
{
    char buf[512];
    double d;
    if (special_float(c, &d)) {
        *out = (float)d;
        return 0;
    }
    if (!number_cstr(c, buf, sizeof buf))
        return verr(c, "expected a number (FLOAT)");
    /* straight from the text: a double in between could round twice */
    *out = strtof(buf, NULL);
    if (isinf(*out))
        return verr(c, "%s is out of range for FLOAT", buf);
    return 0;
}

/* Round-to-nearest-even double to IEEE half (as value_fmt.c tests its
 * texts with, so every text it prints gives back the same half). */
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
    (void)frexp(a, &e);
    m = nearbyint(ldexp(a, 11 - e));
    return (uint16_t)(sign | (uint16_t)(((e + 14) << 10) + (int)m - 1024));
}

static int get_half(vctx *c, uint8_t out[2])
{
    char buf[512];
    double d;
    uint16_t h;
    if (!special_float(c, &d)) {
        if (!number_cstr(c, buf, sizeof buf))
            return verr(c, "expected a number (FLOAT16)");
        d = strtod(buf, NULL);
        if (isinf(d) || fabs(d) >= 65520.0)
            return verr(c, "%s is out of range for FLOAT16", buf);
    }
    h = half_from_double(d);
    out[0] = (uint8_t)h;
    out[1] = (uint8_t)(h >> 8);
    return 0;
}

/* ---- decimals ------------------------------------------------------------------- */

/* "-12.30" (exact digits, at most `scale` after the point) into its sign
 * and unscaled digit string (leading zeros dropped) in dg[0..*nd). */
static int decimal_digits(vctx *c, int32_t scale, int *neg, char *dg, size_t cap, size_t *nd)
{
    const char *s = text(c);
    size_t n = c->v->len, i = 0, k = 0;
    int32_t fr = 0;
    int seen_point = 0;
    if (c->v->type != JV_STRING && c->v->type != JV_NUMBER)
        return verr(c, "expected a decimal string with %" PRId32 " fraction digits", scale);
    if (scale < 0)
        return verr(c, "DECIMAL with a negative scale is not supported");
    *neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        *neg = s[i++] == '-';
    if (i >= n)
        return verr(c, "expected a decimal, not \"%.*s\"", (int)n, s);
    for (; i < n; i++) {
        if (s[i] == '.' && !seen_point && i + 1 < n) {
            seen_point = 1;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return verr(c, "expected a decimal, not \"%.*s\"", (int)(n > 60 ? 60 : n), s);
        if (seen_point && ++fr > scale)
            return verr(c, "\"%.*s\" has more than %" PRId32 " fraction digits", (int)(n > 60 ? 60 : n), s, scale);
        if (k == 0 && s[i] == '0')
            continue; /* leading zero */
        if (k >= cap)
            return verr(c, "decimal with too many digits");
        dg[k++] = s[i];
    }
    for (; fr < scale; fr++) {
        if (k == 0)
            continue; /* zero stays zero */
        if (k >= cap)
            return verr(c, "decimal with too many digits");
        dg[k++] = '0';
    }
    *nd = k;
    if (k == 0)
        *neg = 0;
    return 0;
}

/* The unscaled digits dg[0..nd) as a big-endian two's complement integer
 * in `width` bytes (0: the fewest that hold it), into out (cap bytes). */
static int decimal_bytes(const char *dg, size_t nd, int neg, uint8_t *out, size_t cap,
                         size_t width, size_t *len)
{
    /* magnitude, little-endian base 256 */
    uint8_t *mag = calloc(nd / 2 + 2, 1);
    size_t ml = 0, i, need;
    if (!mag) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    for (i = 0; i < nd; i++) {
        unsigned carry = (unsigned)(dg[i] - '0');
        size_t j;
        for (j = 0; j < ml; j++) {
            unsigned t = mag[j] * 10u + carry;
            mag[j] = (uint8_t)t;
            carry = t >> 8;
        }
        if (carry)
            mag[ml++] = (uint8_t)carry;
    }
    /* bytes needed: magnitude plus room for the sign bit */
    need = ml ? ml : 1;
    if (ml && (mag[ml - 1] & 0x80)) {
        /* -2^(8k-1) fits in k bytes: magnitude 0x80 00 .. 00 */
        int exact_min = neg && mag[ml - 1] == 0x80;
        for (i = 0; exact_min && i + 1 < ml; i++)
            exact_min = mag[i] == 0;
        if (!exact_min)
            need++;
    }
    if (width == 0)
        width = need;
    if (need > width || width > cap) {
        free(mag);
        return -1;
    }
    for (i = 0; i < width; i++) {
        uint8_t b = i < ml ? mag[i] : 0;
        out[width - 1 - i] = b;
    }
    if (neg) { /* two's complement: invert and add one */
        unsigned carry = 1;
        for (i = width; i-- > 0;) {
            unsigned t = (unsigned)(uint8_t)~out[i] + carry;
            out[i] = (uint8_t)t;
            carry = t >> 8;
        }
    }
    *len = width;
    free(mag);
    return 0;
}

/* A decimal into an INT32 / INT64 unscaled value. */
static int get_decimal_int(vctx *c, const upq_column_desc *cd, int64_t lo, int64_t hi,
                           int64_t *out)
{
    char dg[24];
    size_t nd, i;
    int neg;
    uint64_t mag = 0;
    if (decimal_digits(c, cd->scale, &neg, dg, sizeof dg, &nd) == 0) {
        if (cd->precision > 0 && nd > (size_t)cd->precision)
            return verr(c, "\"%.*s\" has more than %" PRId32 " digits (DECIMAL(%" PRId32 ",%" PRId32 "))",
                        (int)c->v->len, text(c), cd->precision, cd->precision, cd->scale);
        for (i = 0; i < nd; i++) {
            unsigned dgt = (unsigned)(dg[i] - '0');
            if (mag > (UINT64_MAX - dgt) / 10)
                break;
            mag = mag * 10 + dgt;
        }
        if (i == nd && (neg ? mag <= (uint64_t)(-(lo + 1)) + 1 : mag <= (uint64_t)hi)) {
            *out = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
            if (mag == 0)
                *out = 0;
            return 0;
        }
        return verr(c, "\"%.*s\" is out of range for the column's DECIMAL", (int)c->v->len, text(c));
    }
    return -1;
}

/* ---- bytes --------------------------------------------------------------------- */

static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

/* Standard base64 (padding optional) into sb. */
static int base64_decode(vctx *c, strbuf *sb)
{
    const unsigned char *s = (const unsigned char *)text(c);
    size_t n = c->v->len, i;
    uint32_t acc = 0;
    int bits = 0;
    if (c->v->type != JV_STRING)
        return verr(c, "expected a base64 string");
    while (n > 0 && s[n - 1] == '=')
        n--;
    if (c->v->len - n > 2 || n % 4 == 1)
        return verr(c, "bad base64");
    for (i = 0; i < n; i++) {
        int v = b64_value(s[i]);
        if (v < 0)
            return verr(c, "bad base64 character '%c'", s[i] >= 0x20 && s[i] < 0x7F ? s[i] : '?');
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sb_addc(sb, (char)(uint8_t)(acc >> bits));
        }
    }
    return 0;
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static int get_uuid(vctx *c, strbuf *sb)
{
    const char *s = text(c);
    size_t i;
    int k = 0;
    uint8_t b[16];
    if (c->v->type != JV_STRING || c->v->len != 36)
        return verr(c, "expected a UUID \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\"");
    for (i = 0; i < 36;) {
        int hi, lo;
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i++] != '-')
                return verr(c, "expected a UUID \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\"");
            continue;
        }
        hi = hex_digit(s[i]);
        lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0)
            return verr(c, "expected a UUID \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\"");
        b[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    sb_add(sb, b, 16);
    return 0;
}

/* {"months":m,"days":d,"millis":ms}, each an unsigned 32-bit number. */
static int get_interval(vctx *c, strbuf *sb)
{
    static const char *const keys[3] = {"months", "days", "millis"};
    uint8_t b[12];
    int seen[3] = {0, 0, 0}, k;
    uint32_t mi;
    if (c->v->type != JV_OBJECT)
        return verr(c, "expected {\"months\":m,\"days\":d,\"millis\":ms} (INTERVAL)");
    for (mi = c->v->first; mi != JV_NONE; mi = c->d->v[mi].next) {
        const jv *m = &c->d->v[mi];
        uint64_t x;
        vctx sub = *c;
        for (k = 0; k < 3; k++)
            if (m->key_len == strlen(keys[k]) && memcmp(jv_key(c->d, m), keys[k], m->key_len) == 0)
                break;
        if (k == 3 || seen[k])
            return verr(c, "expected {\"months\":m,\"days\":d,\"millis\":ms} (INTERVAL)");
        sub.v = m;
        if (get_unsigned(&sub, UINT32_MAX, &x, "INTERVAL"))
            return -1;
        seen[k] = 1;
        b[4 * k] = (uint8_t)x;
        b[4 * k + 1] = (uint8_t)(x >> 8);
        b[4 * k + 2] = (uint8_t)(x >> 16);
        b[4 * k + 3] = (uint8_t)(x >> 24);
    }
    if (!seen[0] || !seen[1] || !seen[2])
        return verr(c, "expected {\"months\":m,\"days\":d,\"millis\":ms} (INTERVAL)");
    sb_add(sb, b, 12);
    return 0;
}

static int get_decimal_bytes(vctx *c, const upq_column_desc *cd, strbuf *sb, size_t width)
{
    char *dg = malloc(MAX_DECIMAL_DIGITS);
    uint8_t *out;
    size_t nd, len, cap = width ? width : MAX_DECIMAL_DIGITS / 2 + 2;
    int neg, rc = -1;
    out = malloc(cap);
    if (!dg || !out) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    if (decimal_digits(c, cd->scale, &neg, dg, MAX_DECIMAL_DIGITS, &nd) == 0) {
        if (cd->precision > 0 && nd > (size_t)cd->precision)
            verr(c, "\"%.*s\" has more than %" PRId32 " digits (DECIMAL(%" PRId32 ",%" PRId32 "))",
                 (int)(c->v->len > 60 ? 60 : c->v->len), text(c), cd->precision, cd->precision,
                 cd->scale);
        else if (decimal_bytes(dg, nd, neg, out, cap, width, &len))
            verr(c, "\"%.*s\" does not fit in %zu bytes", (int)(c->v->len > 60 ? 60 : c->v->len),
                 text(c), width);
        else {
            sb_add(sb, out, len);
            rc = 0;
        }
    }
    free(dg);
    free(out);
    return rc;
}

/* ---- by column -------------------------------------------------------------------- */

int value_parse(const upq_schema *s, uint32_t col, const jv_doc *d, const jv *v, void *out,
                strbuf *bytes, size_t *byte_off, char *err, size_t errcap)
{
    const upq_column_desc *cd = &s->columns[col];
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    vctx c;
    int64_t x;
    uint64_t u;
    size_t before = bytes->len;

    c.d = d;
    c.v = v;
    c.err = err;
    c.errcap = errcap;
    if (lk == UPQ_LOGICAL_TYPE_UNKNOWN)
        return verr(&c, "expected null (the column's type is UNKNOWN)");
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN:
        if (v->type != JV_TRUE && v->type != JV_FALSE)
            return verr(&c, "expected true or false");
        *(uint8_t *)out = v->type == JV_TRUE;
        return 0;
    case UPQ_TYPE_INT32: {
        int32_t r = 0;
        if (lk == UPQ_LOGICAL_TYPE_TIME) {
            if (get_time(&c, &cd->logical.u.time, INT32_MAX, &x))
                return -1;
        } else if (lk == UPQ_LOGICAL_TYPE_DATE) {
            if (get_date(&c, &r))
                return -1;
            x = r;
        } else if (lk == UPQ_LOGICAL_TYPE_DECIMAL) {
            if (get_decimal_int(&c, cd, INT32_MIN, INT32_MAX, &x))
                return -1;
        } else if (lk == UPQ_LOGICAL_TYPE_INTEGER) {
            int bw = cd->logical.u.integer.bit_width;
            char what[32];
            if (bw < 1 || bw > 32)
                bw = 32;
            snprintf(what, sizeof what, "INTEGER(%d,%s)", bw,
                     cd->logical.u.integer.is_signed ? "true" : "false");
            if (!cd->logical.u.integer.is_signed) {
                if (get_unsigned(&c, bw == 32 ? UINT32_MAX : (UINT64_C(1) << bw) - 1, &u, what))
                    return -1;
                x = (int32_t)(uint32_t)u;
            } else if (get_signed(&c, -(INT64_C(1) << (bw - 1)), (INT64_C(1) << (bw - 1)) - 1, &x,
                                  what)) {
                return -1;
            }
        } else if (get_signed(&c, INT32_MIN, INT32_MAX, &x, "INT32")) {
            return -1;
        }
        r = (int32_t)x;
        memcpy(out, &r, sizeof r);
        return 0;
    }
    case UPQ_TYPE_INT64:
        if (lk == UPQ_LOGICAL_TYPE_TIME) {
            if (get_time(&c, &cd->logical.u.time, INT64_MAX, &x))
                return -1;
        } else if (lk == UPQ_LOGICAL_TYPE_TIMESTAMP) {
            if (get_timestamp(&c, &cd->logical.u.timestamp, &x))
                return -1;
        } else if (lk == UPQ_LOGICAL_TYPE_DECIMAL) {
            if (get_decimal_int(&c, cd, INT64_MIN, INT64_MAX, &x))
                return -1;
        } else if (lk == UPQ_LOGICAL_TYPE_INTEGER && !cd->logical.u.integer.is_signed) {
            int bw = cd->logical.u.integer.bit_width;
            char what[32];
            if (bw < 1 || bw > 64)
                bw = 64;
            snprintf(what, sizeof what, "INTEGER(%d,false)", bw);
            if (get_unsigned(&c, bw == 64 ? UINT64_MAX : (UINT64_C(1) << bw) - 1, &u, what))
                return -1;
            x = (int64_t)u;
        } else if (lk == UPQ_LOGICAL_TYPE_INTEGER) {
            int bw = cd->logical.u.integer.bit_width;
            char what[32];
            if (bw < 1 || bw > 64)
                bw = 64;
            snprintf(what, sizeof what, "INTEGER(%d,true)", bw);
            if (get_signed(&c, bw == 64 ? INT64_MIN : -(INT64_C(1) << (bw - 1)),
                           bw == 64 ? INT64_MAX : (INT64_C(1) << (bw - 1)) - 1, &x, what))
                return -1;
        } else if (get_signed(&c, INT64_MIN, INT64_MAX, &x, "INT64")) {
            return -1;
        }
        memcpy(out, &x, sizeof x);
        return 0;
    case UPQ_TYPE_INT96:
        return get_int96(&c, (upq_int96 *)out);
    case UPQ_TYPE_FLOAT:
        return get_float(&c, (float *)out);
    case UPQ_TYPE_DOUBLE:
        return get_double(&c, (double *)out);
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: {
        int fixed = cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
        size_t width = fixed ? (size_t)cd->type_length : 0;
        upq_bytes *b = (upq_bytes *)out;
        size_t got;
        int rc;
        if (lk == UPQ_LOGICAL_TYPE_STRING || lk == UPQ_LOGICAL_TYPE_ENUM ||
            lk == UPQ_LOGICAL_TYPE_JSON) {
            if (v->type != JV_STRING)
                return verr(&c, "expected a string");
            sb_add(bytes, jv_bytes(d, v), v->len);
            rc = 0;
        } else if (lk == 0 && cd->converted_type == UPQ_CONVERTED_INTERVAL &&
                   v->type == JV_OBJECT) {
            rc = get_interval(&c, bytes);
        } else if (lk == UPQ_LOGICAL_TYPE_DECIMAL) {
            rc = get_decimal_bytes(&c, cd, bytes, width);
        } else if (lk == UPQ_LOGICAL_TYPE_UUID) {
            rc = get_uuid(&c, bytes);
        } else if (lk == UPQ_LOGICAL_TYPE_FLOAT16) {
            uint8_t h[2];
            rc = get_half(&c, h);
            if (rc == 0)
                sb_add(bytes, h, 2);
        } else {
            rc = base64_decode(&c, bytes);
        }
        if (rc)
            return -1;
        got = bytes->len - before;
        if (got > UINT32_MAX)
            return verr(&c, "value longer than 4 GiB");
        if (fixed && got != width) {
            bytes->len = before;
            return verr(&c, "expected %zu bytes (FIXED_LEN_BYTE_ARRAY(%zu)), not %zu", width,
                        width, got);
        }
        /* the caller turns the offset into a pointer once the row is complete */
        b->ptr = NULL;
        b->len = (uint32_t)got;
        *byte_off = before;
        return 0;
    }
    default:
        return verr(&c, "column of an unknown physical type");
    }
}
