/*
 * Parquet message syntax, as `upq schema` (and parquet-java) prints it, into
 * the footer's SchemaElements through the writer's schema builder:
 *
 *   message NAME {
 *     REPETITION TYPE NAME [(ANNOTATION)] [= FIELD_ID];
 *     REPETITION group NAME [(ANNOTATION)] [= FIELD_ID] {
 *       ...
 *     }
 *   }
 *
 * One field per line, as printed: names are printed as stored, spaces
 * included, so a line is read from both ends (the repetition and type
 * words from the left; the field id, then the annotation from the right)
 * and the name is what lies between. TYPE is boolean, int32, int64,
 * int96, float, double, binary or fixed_len_byte_array(N).
 *
 * An annotation is a LogicalType (STRING, DECIMAL(p,s), TIMESTAMP(MICROS,true),
 * INTEGER(8,false), GEOMETRY(crs), ...) or, where the name is only a legacy
 * ConvertedType (UTF8, INT_8, TIMESTAMP_MILLIS, MAP_KEY_VALUE, INTERVAL,
 * ...), that ConvertedType alone, so files that carry only ConvertedTypes
 * are rebuilt as they were. Names that are both (DATE, DECIMAL, LIST, MAP,
 * ENUM, JSON, BSON) become the LogicalType, which brings its ConvertedType.
 */
#include "upq.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    char *buf;          /* mutable copy of the text: names end with a NUL written in place */
    unsigned line;
    char *err;
    size_t errcap;
    upq_schema_builder b;
    unsigned depth;     /* open groups below the root */
} parser;

static int perr(parser *p, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(p->err, p->errcap, "line %u: ", p->line);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errcap)
        vsnprintf(p->err + n, p->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int word_is(const char *s, size_t n, const char *w)
{
    size_t i;
    if (strlen(w) != n)
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return 0;
    }
    return 1;
}

/* A decimal integer text s[0..n) in [lo, hi]. */
static int parse_int(const char *s, size_t n, long lo, long hi, long *out)
{
    char tmp[24], *end;
    long v;
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (!(tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9')))
        return 0;
    errno = 0;
    v = strtol(tmp, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* ---- annotations -------------------------------------------------------- */

typedef struct annotation {
    upq_logical_type lt;
    int has_lt;
    int32_t converted; /* ConvertedType alone, or -1 */
} annotation;

static int parse_bool(const char *s, size_t n, int *out)
{
    if (word_is(s, n, "true"))
        *out = 1;
    else if (word_is(s, n, "false"))
        *out = 0;
    else
        return 0;
    return 1;
}

static int parse_unit(const char *s, size_t n, int *unit)
{
    if (word_is(s, n, "millis"))
        *unit = UPQ_TIME_UNIT_MILLIS;
    else if (word_is(s, n, "micros"))
        *unit = UPQ_TIME_UNIT_MICROS;
    else if (word_is(s, n, "nanos"))
        *unit = UPQ_TIME_UNIT_NANOS;
    else
        return 0;
    return 1;
}

/* Splits "a,b" into its two parts (around the first comma). */
static int split2(const char *s, size_t n, size_t *a_len, const char **b, size_t *b_len)
{
    const char *comma = memchr(s, ',', n);
    if (!comma)
        return 0;
    *a_len = (size_t)(comma - s);
    *b = comma + 1;
    *b_len = n - *a_len - 1;
    return 1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undoes fmt_escaped (\\, \n, \r, \t, \xNN) in place; returns the new length. */
static size_t unescape(char *s, size_t n)
{
    size_t i = 0, o = 0;
    while (i < n) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[i + 1];
            if (c == 'n' || c == 'r' || c == 't' || c == '\\') {
                s[o++] = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : '\\';
                i += 2;
                continue;
            }
            if (c == 'x' && i + 3 < n && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0) {
                s[o++] = (char)(unsigned char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
                i += 4;
                continue;
            }
        }
        s[o++] = s[i++];
    }
    return o;
}

static int edge_algorithm(const char *s, size_t n, int32_t *alg)
{
    int32_t a;
    long v;
    for (a = 0; a < 16; a++) {
        const char *name = upq_edge_algorithm_name(a);
        if (strcmp(name, "?") != 0 && strlen(name) == n && memcmp(name, s, n) == 0) {
            *alg = a;
            return 1;
        }
    }
    if (n > 9 && memcmp(s, "UNKNOWN(", 8) == 0 && s[n - 1] == ')' &&
        parse_int(s + 8, n - 9, INT32_MIN, INT32_MAX, &v)) {
        *alg = (int32_t)v;
        return 1;
    }
    return 0;
}

/* GEOMETRY(crs) / GEOGRAPHY(crs[,algorithm]): the CRS is printed escaped
 * and may itself hold commas, so the algorithm is the part after the last
 * comma when that part names one. */
static int is_word(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return n > 0;
}

static int geo_type(parser *p, annotation *an, int geography, char *params, size_t n)
{
    size_t crs_len = n;
    int32_t alg;
    if (geography) {
        char *comma = NULL, *q;
        size_t tail;
        for (q = params; q < params + n; q++)
            if (*q == ',')
                comma = q;
        tail = comma ? (size_t)(params + n - comma - 1) : 0;
        if (comma && edge_algorithm(comma + 1, tail, &alg)) {
            crs_len = (size_t)(comma - params);
            an->lt.u.geography.algorithm = alg;
            UPQ_SET(an->lt.u.geography, UPQ_GEOGRAPHY_TYPE_ALGORITHM);
        } else if (comma && is_word(comma + 1, tail)) {
            /* a CRS ("srid:4326", "projjson:key", PROJJSON text) does not
             * end in a bare word after a comma: this is a misspelt
             * algorithm, not part of the CRS */
            return perr(p, "unknown GEOGRAPHY edge algorithm '%.*s' (SPHERICAL, VINCENTY, "
                           "THOMAS, ANDOYER or KARNEY)", (int)tail, comma + 1);
        }
    }
    crs_len = unescape(params, crs_len);
    if (geography) {
        an->lt.u.geography.crs.ptr = (const uint8_t *)params;
        an->lt.u.geography.crs.len = (uint32_t)crs_len;
        UPQ_SET(an->lt.u.geography, UPQ_GEOGRAPHY_TYPE_CRS);
    } else {
        an->lt.u.geometry.crs.ptr = (const uint8_t *)params;
        an->lt.u.geometry.crs.len = (uint32_t)crs_len;
        UPQ_SET(an->lt.u.geometry, UPQ_GEOMETRY_TYPE_CRS);
    }
    return 0;
}

/* LogicalType names without parameters, with their constructors. */
static const struct {
    const char *name;
    void (*make)(upq_logical_type *lt);
} simple_lt[] = {
    {"STRING", upq_lt_string}, {"ENUM", upq_lt_enum},     {"JSON", upq_lt_json},
    {"BSON", upq_lt_bson},     {"UUID", upq_lt_uuid},     {"FLOAT16", upq_lt_float16},
    {"DATE", upq_lt_date},     {"UNKNOWN", upq_lt_unknown},
};

/* The annotation text a[0..n) (between the parentheses). */
static int parse_annotation(parser *p, char *a, size_t n, annotation *an)
{
    size_t kw = 0, pn = 0, i, x_len, y_len;
    char *params = NULL;
    const char *y;
    long v1, v2;
    int unit, flag;
    int32_t ct;

    memset(an, 0, sizeof *an);
    an->converted = -1;
    while (kw < n && ((a[kw] >= 'A' && a[kw] <= 'Z') || (a[kw] >= '0' && a[kw] <= '9') ||
                      a[kw] == '_'))
        kw++;
    if (kw < n) {
        if (a[kw] != '(' || a[n - 1] != ')')
            return perr(p, "bad annotation '%.*s'", (int)n, a);
        params = a + kw + 1;
        pn = n - kw - 2;
    }
    an->has_lt = 1;
    for (i = 0; i < sizeof simple_lt / sizeof simple_lt[0]; i++) {
        if (strlen(simple_lt[i].name) == kw && memcmp(a, simple_lt[i].name, kw) == 0 && !params) {
            simple_lt[i].make(&an->lt);
            return 0;
        }
    }
    if (kw == 4 && memcmp(a, "LIST", 4) == 0 && !params) {
        UPQ_SET(an->lt, UPQ_LOGICAL_TYPE_LIST);
        return 0;
    }
    if (kw == 3 && memcmp(a, "MAP", 3) == 0 && !params) {
        UPQ_SET(an->lt, UPQ_LOGICAL_TYPE_MAP);
        return 0;
    }
    if (kw == 6 && memcmp(a, "VECTOR", 6) == 0 && !params) {
        UPQ_SET(an->lt, UPQ_LOGICAL_TYPE_VECTOR);
        return 0;
    }
    if (kw == 7 && memcmp(a, "VARIANT", 7) == 0) {
        UPQ_SET(an->lt, UPQ_LOGICAL_TYPE_VARIANT);
        if (params) {
            if (!parse_int(params, pn, -128, 127, &v1))
                return perr(p, "bad VARIANT version '%.*s'", (int)pn, params);
            an->lt.u.variant.specification_version = (int8_t)v1;
            UPQ_SET(an->lt.u.variant, UPQ_VARIANT_TYPE_SPECIFICATION_VERSION);
        }
        return 0;
    }
    if ((kw == 8 && memcmp(a, "GEOMETRY", 8) == 0) || (kw == 9 && memcmp(a, "GEOGRAPHY", 9) == 0)) {
        int geography = kw == 9;
        UPQ_SET(an->lt, geography ? UPQ_LOGICAL_TYPE_GEOGRAPHY : UPQ_LOGICAL_TYPE_GEOMETRY);
        return params ? geo_type(p, an, geography, params, pn) : 0;
    }
    if (params && split2(params, pn, &x_len, &y, &y_len)) {
        if (kw == 7 && memcmp(a, "DECIMAL", 7) == 0) {
            if (!parse_int(params, x_len, 0, INT32_MAX, &v1) ||
                !parse_int(y, y_len, INT32_MIN, INT32_MAX, &v2))
                return perr(p, "bad DECIMAL parameters '%.*s'", (int)pn, params);
            upq_lt_decimal(&an->lt, (int32_t)v1, (int32_t)v2);
            return 0;
        }
        if ((kw == 4 && memcmp(a, "TIME", 4) == 0) || (kw == 9 && memcmp(a, "TIMESTAMP", 9) == 0)) {
            if (!parse_unit(params, x_len, &unit) || !parse_bool(y, y_len, &flag))
                return perr(p, "bad %.*s parameters '%.*s' (want UNIT,true|false)", (int)kw, a,
                            (int)pn, params);
            if (kw == 4)
                upq_lt_time(&an->lt, unit, flag);
            else
                upq_lt_timestamp(&an->lt, unit, flag);
            return 0;
        }
        if (kw == 7 && memcmp(a, "INTEGER", 7) == 0) {
            if (!parse_int(params, x_len, 1, 127, &v1) || !parse_bool(y, y_len, &flag))
                return perr(p, "bad INTEGER parameters '%.*s' (want BITS,true|false)", (int)pn,
                            params);
            upq_lt_int(&an->lt, (int)v1, flag);
            return 0;
        }
    }
    /* legacy ConvertedTypes */
    an->has_lt = 0;
    if (kw == 7 && memcmp(a, "UNKNOWN", 7) == 0 && params &&
        parse_int(params, pn, INT32_MIN, INT32_MAX, &v1)) {
        an->converted = (int32_t)v1;
        return 0;
    }
    for (ct = 0; ct <= UPQ_CONVERTED_INTERVAL && !params; ct++) {
        const char *name = upq_converted_type_name(ct);
        if (strlen(name) == kw && memcmp(name, a, kw) == 0 && ct != UPQ_CONVERTED_DECIMAL) {
            an->converted = ct;
            return 0;
        }
    }
    return perr(p, "unknown annotation '%.*s'", (int)n, a);
}

/* ---- fields ---------------------------------------------------------------- */

static int physical_type(const char *s, size_t n, int32_t *type, int32_t *len)
{
    static const struct {
        const char *name;
        int32_t type;
    } names[] = {
        {"boolean", UPQ_TYPE_BOOLEAN}, {"int32", UPQ_TYPE_INT32},   {"int64", UPQ_TYPE_INT64},
        {"int96", UPQ_TYPE_INT96},     {"float", UPQ_TYPE_FLOAT},   {"double", UPQ_TYPE_DOUBLE},
        {"binary", UPQ_TYPE_BYTE_ARRAY}, {"byte_array", UPQ_TYPE_BYTE_ARRAY},
    };
    size_t i;
    long v;
    *len = 0;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (word_is(s, n, names[i].name)) {
            *type = names[i].type;
            return 1;
        }
    }
    if (n > 22 && word_is(s, 20, "fixed_len_byte_array") &&
        s[20] == '(' && s[n - 1] == ')' && parse_int(s + 21, n - 22, 0, INT32_MAX, &v)) {
        *type = UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
        *len = (int32_t)v;
        return 1;
    }
    return 0;
}

static int repetition(const char *s, size_t n, int32_t *rep)
{
    if (word_is(s, n, "required"))
        *rep = UPQ_REP_REQUIRED;
    else if (word_is(s, n, "optional"))
        *rep = UPQ_REP_OPTIONAL;
    else if (word_is(s, n, "repeated"))
        *rep = UPQ_REP_REPEATED;
    else
        return 0;
    return 1;
}

static int builder_status(parser *p, upq_status st, const char *name)
{
    if (st == UPQ_OK)
        return 0;
    if (st == UPQ_ERR_LIMIT)
        return perr(p, "'%s': nested deeper than %d groups", name, UPQ_SCHEMA_MAX_DEPTH);
    if (p->b.error)
        return perr(p, "'%s': %s", name, p->b.error);
    return perr(p, "'%s': not a valid field (%s)", name, upq_strerror(st));
}

/* Text the right-to-left split left in the name that is an annotation or a
 * field id gone wrong: " (KEYWORD" of an annotation not closed before ';',
 * or a '=' that starts the name or follows a space, whose id did not read
 * as a number. Names with such text cannot be meant: `upq schema` would
 * print them back as something else. */
static int name_fault(parser *p, const char *name)
{
    const char *q;
    for (q = name; *q; q++) {
        if (*q == '(' && q > name && is_space(q[-1]) && q[1] >= 'A' && q[1] <= 'Z')
            return perr(p, "'%s': an annotation not closed with ')' ('%s')", name, q);
        if (*q == '=' && (q == name || is_space(q[-1])))
            return perr(p, "%s'%s': want '= FIELD_ID' (a number) after the name",
                        q == name ? "missing field name, or " : "", name);
    }
    return 0;
}

/* The kinds that annotate groups only (a refusal on a column says so). */
static int group_only(const upq_logical_type *lt)
{
    int k = upq_logical_type_kind(lt);
    return k == UPQ_LOGICAL_TYPE_VARIANT || k == UPQ_LOGICAL_TYPE_LIST ||
           k == UPQ_LOGICAL_TYPE_MAP;
}

/* One field line s[0..n) without its ';' or '{'. */
static int parse_field(parser *p, char *s, size_t n, int group)
{
    size_t i = 0, w, type_at, type_len, end = n, name_end;
    int32_t rep, type = -1, type_len_v = 0, field_id = 0;
    int has_id = 0;
    annotation an;
    char *name;
    upq_status st;

    memset(&an, 0, sizeof an);
    an.converted = -1;
    while (i < n && !is_space(s[i]))
        i++;
    if (!repetition(s, i, &rep))
        return perr(p, "expected required, optional or repeated, not '%.*s'", (int)i, s);
    while (i < n && is_space(s[i]))
        i++;
    type_at = i;
    while (i < n && !is_space(s[i]))
        i++;
    type_len = i - type_at;
    if (group != word_is(s + type_at, type_len, "group"))
        return perr(p, group ? "a line ending in '{' must be a group" : "a group needs '{'");
    if (!group && !physical_type(s + type_at, type_len, &type, &type_len_v))
        return perr(p, "unknown type '%.*s'", (int)type_len, s + type_at);
    while (i < n && is_space(s[i]))
        i++;

    /* " = ID" at the end */
    w = end;
    while (w > i && s[w - 1] >= '0' && s[w - 1] <= '9')
        w--;
    if (w < end) {
        size_t num = w > i && s[w - 1] == '-' ? w - 1 : w, k = num;
        long id;
        while (k > i && is_space(s[k - 1]))
            k--;
        if (k > i + 1 && s[k - 1] == '=' && (is_space(s[k - 2]) || s[k - 2] == ')')) {
            if (!parse_int(s + num, end - num, INT32_MIN, INT32_MAX, &id))
                return perr(p, "bad field id '%.*s'", (int)(end - num), s + num);
            field_id = (int32_t)id;
            has_id = 1;
            end = k - 1;
            while (end > i && is_space(s[end - 1]))
                end--;
        }
    }
    /* " (ANNOTATION)" */
    name_end = end;
    if (end > i && s[end - 1] == ')') {
        size_t k;
        for (k = i + 1; k + 1 < end; k++) {
            if (s[k] == '(' && is_space(s[k - 1])) {
                name_end = k - 1;
                while (name_end > i && is_space(s[name_end - 1]))
                    name_end--;
                if (parse_annotation(p, s + k + 1, end - k - 2, &an))
                    return -1;
                break;
            }
        }
    }
    if (name_end <= i)
        return perr(p, "missing field name");
    name = s + i;
    s[name_end] = '\0';
    if (name_fault(p, name))
        return -1;

    if (group)
        st = upq_sb_group(&p->b, name, rep, an.has_lt ? &an.lt : NULL);
    else
        st = upq_sb_column(&p->b, name, rep, type, type_len_v, an.has_lt ? &an.lt : NULL);
    if (st == UPQ_ERR_INVAL && an.has_lt && p->b.error && !group &&
        p->b.elems[p->b.last].name.ptr == (const uint8_t *)name)
        return perr(p, "'%s': %s %s %.*s", name, upq_logical_type_name(&an.lt),
                    group_only(&an.lt) ? "annotates a group, not" : "does not fit", (int)type_len,
                    s + type_at);
    if (builder_status(p, st, name))
        return -1;
    /* a legacy annotation alone, as files that predate LogicalType have */
    if (an.converted >= 0 && builder_status(p, upq_sb_converted(&p->b, an.converted), name))
        return -1;
    if (has_id && builder_status(p, upq_sb_field_id(&p->b, field_id), name))
        return -1;
    if (group)
        p->depth++;
    return 0;
}

/* ---- the message ------------------------------------------------------------ */

void schema_text_free(schema_text *st)
{
    free(st->elems);
    free(st->index);
    free(st->buf);
    memset(st, 0, sizeof *st);
}

int schema_parse(const char *text, size_t len, schema_text *st, char *err, size_t errcap)
{
    parser p;
    size_t i, lines = 1, pos = 0;
    int state = 0; /* 0 before "message", 1 inside, 2 after its '}' */
    uint32_t cap;

    memset(st, 0, sizeof *st);
    memset(&p, 0, sizeof p);
    p.err = err;
    p.errcap = errcap;
    if (errcap)
        err[0] = '\0';
    for (i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (lines >= UINT32_MAX / 2) {
        snprintf(err, errcap, "schema too large");
        return -1;
    }
    cap = (uint32_t)lines + 1;
    st->buf = malloc(len + 1);
    st->elems = calloc(cap, sizeof *st->elems);
    st->index = calloc(cap, 4 * sizeof *st->index);
    if (!st->buf || !st->elems || !st->index) {
        snprintf(err, errcap, "out of memory");
        schema_text_free(st);
        return -1;
    }
    memcpy(st->buf, text, len);
    st->buf[len] = '\0';
    p.buf = st->buf;

    while (pos < len) {
        char *s = st->buf + pos, *eol = memchr(s, '\n', len - pos);
        size_t n = eol ? (size_t)(eol - s) : len - pos;
        pos += n + 1;
        p.line++;
        while (n > 0 && is_space(s[n - 1]))
            n--;
        while (n > 0 && is_space(s[0])) {
            s++;
            n--;
        }
        if (n == 0)
            continue;
        if (memchr(s, '\0', n)) {
            perr(&p, "NUL byte");
            goto fail;
        }
        if (state == 2) {
            perr(&p, "text after the end of the message");
            goto fail;
        }
        if (state == 0) {
            size_t k = 7;
            if (n < 8 || memcmp(s, "message", 7) != 0 || !(is_space(s[7]) || s[7] == '{') ||
                s[n - 1] != '{') {
                perr(&p, "expected 'message NAME {'");
                goto fail;
            }
            while (k < n - 1 && is_space(s[k]))
                k++;
            n--;
            while (n > k && is_space(s[n - 1]))
                n--;
            s[n] = '\0'; /* an empty name is valid (and found in files) */
            upq_sb_init(&p.b, st->elems, cap, s + k);
            upq_sb_index(&p.b, st->index, cap <= UINT32_MAX / 4 ? 4 * cap : UINT32_MAX);
            state = 1;
            continue;
        }
        if (n == 1 && s[0] == '}') {
            if (p.depth == 0) {
                if (upq_sb_finish(&p.b, &st->n) != UPQ_OK) {
                    perr(&p, "the schema is not valid%s%s", p.b.error ? ": " : "",
                         p.b.error ? p.b.error : "");
                    goto fail;
                }
                state = 2;
            } else {
                const upq_schema_element *g = &p.b.elems[p.b.open[p.b.depth]];
                if (upq_sb_end(&p.b) != UPQ_OK) {
                    /* the group's children are checked as it closes */
                    if (p.b.error)
                        perr(&p, "group '%.*s': %s", (int)g->name.len, (const char *)g->name.ptr,
                             p.b.error);
                    else
                        perr(&p, "unbalanced '}'");
                    goto fail;
                }
                p.depth--;
            }
            continue;
        }
        if (s[n - 1] != ';' && s[n - 1] != '{') {
            perr(&p, "a field ends with ';' (or '{' for a group)");
            goto fail;
        }
        {
            int group = s[n - 1] == '{';
            n--;
            while (n > 0 && is_space(s[n - 1]))
                n--;
            if (parse_field(&p, s, n, group))
                goto fail;
        }
    }
    if (state != 2) {
        p.line++;
        perr(&p, state == 0 ? "no 'message NAME {'" : "the message is not closed with '}'");
        goto fail;
    }
    return 0;
fail:
    schema_text_free(st);
    return -1;
}
