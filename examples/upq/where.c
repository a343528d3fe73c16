/*
 * `upq cat --where EXPR`: a WHERE condition as DuckDB reads it, into a
 * predicate built with the library's builder (uparquet/predicate.h), which
 * does what SQL does with each literal and column type.
 *
 *   expr    := or;  or := and ("or" and)*;  and := unary ("and" unary)*
 *   unary   := "not" unary | "(" expr ")" | pred
 *   pred    := operand [op operand | "is" ["not"] ("null" | "true" | "false"
 *                       | "distinct" "from" operand)
 *                      | ["not"] "in" "(" operand ("," operand)* ")"
 *                      | ["not"] "like" string ["escape" string]
 *                      | ["not"] "between" operand "and" operand]
 *   operand := column | number | 'string' | "string" | true | false | null
 *            | nan | inf | -inf | (date | time | timestamp | timestamptz) 'text'
 *   column  := name ("." name)*;  name := word | `quoted` | "quoted"
 *
 * One side of a comparison is a column, the other a literal (either way
 * round); a boolean column alone is a condition. Names match exactly, or
 * else case-insensitively when only one does. A double-quoted token is a
 * column when it names one and is not the literal a column is compared
 * with; otherwise it is a string in JSON's escapes (the syntax of the first
 * versions, where binary columns take base64). Single quotes are SQL's ('' is
 * a quote; a binary column reads \xHH as a byte).
 *
 * No recursion: a shunting-yard pass turns the infix text into the builder's
 * postfix calls, with a state that says whether an operand or an operator
 * comes next (so every malformed text is an error, with its offset).
 */
#include "upq.h"
#include "jsonl.h"
#include "shred.h"
#include "where.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OP_LPAREN = 100 };

/* An operand: a column or a literal. */
enum { K_COL = 1, K_NUM, K_SQLSTR, K_JSONSTR, K_WORD, K_BOOL, K_NULL };
/* Typed literal prefixes. */
enum { T_NONE = 0, T_DATE, T_TIME, T_TIMESTAMP, T_TIMESTAMPTZ };

typedef struct operand {
    int kind;
    size_t at, end;     /* its text */
    uint32_t col;       /* K_COL */
    const uint8_t *p;   /* K_NUM / K_WORD: the text; strings: their bytes */
    size_t len;
    int bval;           /* K_BOOL */
    int typed;          /* T_* */
} operand;

typedef struct wparser {
    const upq_schema *s;
    const char *t;
    size_t n, i;
    char *err;
    size_t errcap;
    where_expr *w;
    upq_pred_builder b;
    size_t ncap;
    uint8_t *lit;       /* literal bytes (w->bytes) */
    size_t lcap, lused;
    /* operator stack: NOTs and '(' (at most WHERE_MAX_DEPTH), and at most an OR
     * and an AND above each '(' and the bottom */
    uint8_t ops[WHERE_MAX_DEPTH * 3 + 8];
    size_t ops_at[WHERE_MAX_DEPTH * 3 + 8];
    unsigned nops;
    unsigned depth;     /* open parentheses and NOTs */
    int in_double;      /* an IN list whose members compare as DOUBLE */
    jv_doc doc;
    strbuf tok;
} wparser;

static int w_werr(wparser *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(p->err, p->errcap, "offset %zu: ", at);
    if (k < 0 || (size_t)k >= p->errcap)
        return -1;
    va_start(ap, fmt);
    vsnprintf(p->err + k, p->errcap - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static void w_skip_ws(wparser *p)
{
    while (p->i < p->n && (p->t[p->i] == ' ' || p->t[p->i] == '\t' || p->t[p->i] == '\n' ||
                           p->t[p->i] == '\r'))
        p->i++;
}

static int w_is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

/* Is the keyword `kw` (case-insensitive, a whole word) at position i? */
static int w_is_keyword_at(const wparser *p, size_t i, const char *kw)
{
    size_t k = strlen(kw);
    return p->n - i >= k && strncasecmp(p->t + i, kw, k) == 0 &&
           !(i + k < p->n && w_is_word_char(p->t[i + k]));
}

/* The keyword `kw` at the cursor? Consumes it. */
static int w_keyword(wparser *p, const char *kw)
{
    w_skip_ws(p);
    if (!w_is_keyword_at(p, p->i, kw))
        return 0;
    p->i += strlen(kw);
    return 1;
}

static int w_punct(wparser *p, char c)
{
    w_skip_ws(p);
    if (p->i < p->n && p->t[p->i] == c) {
        p->i++;
        return 1;
    }
    return 0;
}

/* ---- the builder's output, with offsets ------------------------------------- */

/* Records where the nodes written since `from` came from, and reports a
 * builder error at `at`. */
static int w_built(wparser *p, uint32_t from, size_t at)
{
    uint32_t k;
    for (k = from; k < p->b.nn && k < p->ncap; k++)
        p->w->node_at[k] = at;
    if (p->b.st != UPQ_OK)
        return w_werr(p, at, "%s", p->b.what ? p->b.what : "cannot build the expression");
    return 0;
}

/* Bytes that stay put for the predicate's lifetime. */
static uint8_t *w_keep(wparser *p, const void *src, size_t len)
{
    uint8_t *d;
    if (len > p->lcap - p->lused)
        return NULL;
    d = p->lit + p->lused;
    if (len)
        memcpy(d, src, len);
    p->lused += len;
    return d;
}

/* ---- a column path ------------------------------------------------------------ */

/* The child of `node` named seg[0..len): exactly, or else the only one that
 * matches case-insensitively. UPQ_NONE when none; *ambiguous when several. */
static uint32_t w_child(const upq_schema *s, uint32_t node, const char *seg, size_t len,
                        int *ambiguous)
{
    uint32_t k, found = UPQ_NONE, nocase = 0;
    *ambiguous = 0;
    for (k = 0; k < s->nodes[node].num_children; k++) {
        uint32_t c = s->children[s->nodes[node].first_child + k];
        const upq_bytes *nm = &s->nodes[c].elem->name;
        if (nm->len != len)
            continue;
        if (memcmp(nm->ptr, seg, len) == 0)
            return c;
        if (strncasecmp((const char *)nm->ptr, seg, len) == 0) {
            nocase++;
            found = c;
        }
    }
    *ambiguous = nocase > 1;
    return nocase == 1 ? found : UPQ_NONE;
}

/* Reads one name segment into p->tok (bare, `back quoted` or "double quoted");
 * *quoted: it was in double quotes. */
static int w_read_segment(wparser *p, int first, int *quoted)
{
    char q = p->i < p->n ? p->t[p->i] : 0;
    size_t start = p->i;
    *quoted = 0;
    sb_reset(&p->tok);
    if (q == '`' || q == '"') {
        *quoted = q == '"';
        p->i++;
        for (;;) {
            if (p->i >= p->n)
                return w_werr(p, start, q == '`' ? "unterminated `name`" : "unterminated \"name\"");
            if (p->t[p->i] == q) {
                if (p->i + 1 < p->n && p->t[p->i + 1] == q) {
                    sb_addc(&p->tok, q);
                    p->i += 2;
                    continue;
                }
                p->i++;
                return 0;
            }
            if (p->t[p->i] == '\0')
                return w_werr(p, p->i, "NUL byte in a name");
            sb_addc(&p->tok, p->t[p->i++]);
        }
    }
    while (p->i < p->n && w_is_word_char(p->t[p->i]))
        p->i++;
    if (p->i == start)
        return w_werr(p, start, first ? "expected a column name" : "expected a name after '.'");
    sb_add(&p->tok, p->t + start, p->i - start);
    return 0;
}

/* A dotted path at the cursor to its leaf column. Returns 0 with *col set;
 * 1 when the first segment names nothing and `try_only` (cursor left where
 * it was); -1 after reporting. */
static int w_read_column(wparser *p, int try_only, uint32_t *col)
{
    const upq_schema *s = p->s;
    size_t at = p->i;
    uint32_t node = 0, k;
    int first = 1;
    for (;;) {
        int quoted, amb;
        uint32_t c;
        size_t seg_at = p->i;
        if (w_read_segment(p, first, &quoted))
            return -1;
        c = w_child(s, node, p->tok.len ? p->tok.p : "", p->tok.len, &amb);
        if (c == UPQ_NONE) {
            if (first && try_only) {
                p->i = at;
                return 1;
            }
            if (amb)
                return w_werr(p, seg_at, "'%s' matches several columns in different case: quote "
                              "it exactly", sb_str(&p->tok));
            return w_werr(p, seg_at, "no column named '%s'", p->tok.len ? sb_str(&p->tok) : "");
        }
        node = c;
        first = 0;
        if (p->i < p->n && p->t[p->i] == '.') {
            p->i++;
            continue;
        }
        break;
    }
    for (k = 0; k < s->num_columns; k++) {
        if (s->columns[k].node == node) {
            if (s->columns[k].max_rep > 0)
                return w_werr(p, at, "column is repeated (a list element, map key or value); "
                              "only non-repeated columns can be compared");
            *col = k;
            return 0;
        }
    }
    return w_werr(p, at, "a group, not a leaf column");
}

/* ---- literals ------------------------------------------------------------------- */

/* '...' (SQL: '' is a quote) at the cursor into kept bytes. */
static int w_sql_string(wparser *p, operand *o)
{
    size_t at = p->i;
    strbuf *sb = &p->tok;
    sb_reset(sb);
    p->i++;
    for (;;) {
        if (p->i >= p->n)
            return w_werr(p, at, "unterminated string");
        if (p->t[p->i] == '\'') {
            if (p->i + 1 < p->n && p->t[p->i + 1] == '\'') {
                sb_addc(sb, '\'');
                p->i += 2;
                continue;
            }
            p->i++;
            break;
        }
        sb_addc(sb, p->t[p->i++]);
    }
    o->kind = K_SQLSTR;
    o->p = w_keep(p, sb->p, sb->len);
    o->len = sb->len;
    if (!o->p)
        return w_werr(p, at, "out of room for literals");
    return 0;
}

/* "..." (JSON's escapes) at the cursor into kept bytes. */
static int w_json_string(wparser *p, operand *o)
{
    size_t at = p->i;
    p->i++;
    while (p->i < p->n && p->t[p->i] != '"') {
        if (p->t[p->i] == '\\' && p->i + 1 < p->n)
            p->i++;
        p->i++;
    }
    if (p->i >= p->n)
        return w_werr(p, at, "unterminated string");
    p->i++;
    if (jv_parse(&p->doc, p->t + at, p->i - at, 1) != 0 || p->doc.v[0].type != JV_STRING)
        return w_werr(p, at, "bad literal: %s", p->doc.err ? p->doc.err : "not a JSON string");
    o->kind = K_JSONSTR;
    o->len = p->doc.v[0].len;
    o->p = w_keep(p, jv_bytes(&p->doc, &p->doc.v[0]), o->len);
    if (!o->p)
        return w_werr(p, at, "out of room for literals");
    return 0;
}

/* A number as SQL writes it at the cursor: [+-]digits[.digits][e[+-]digits],
 * or [+-].digits... */
static int w_number(wparser *p, operand *o)
{
    size_t at = p->i, d0;
    if (p->i < p->n && (p->t[p->i] == '-' || p->t[p->i] == '+'))
        p->i++;
    d0 = p->i;
    while (p->i < p->n && ((p->t[p->i] >= '0' && p->t[p->i] <= '9') || p->t[p->i] == '.'))
        p->i++;
    if (p->i < p->n && (p->t[p->i] == 'e' || p->t[p->i] == 'E') && p->i > d0) {
        p->i++;
        if (p->i < p->n && (p->t[p->i] == '-' || p->t[p->i] == '+'))
            p->i++;
        while (p->i < p->n && p->t[p->i] >= '0' && p->t[p->i] <= '9')
            p->i++;
    }
    if (p->i < p->n && w_is_word_char(p->t[p->i]))
        return w_werr(p, at, "bad number");
    o->kind = K_NUM;
    o->p = (const uint8_t *)p->t + at;
    o->len = p->i - at;
    return 0;
}

static int w_is_float_word(const char *s, size_t n)
{
    if (n && (s[0] == '-' || s[0] == '+'))
        s++, n--;
    return (n == 3 && (strncasecmp(s, "nan", 3) == 0 || strncasecmp(s, "inf", 3) == 0)) ||
           (n == 8 && strncasecmp(s, "infinity", 8) == 0);
}

/* The operand at the cursor. `want_lit`: the other side is a column, so a
 * double-quoted token or a float word is a literal. */
static int w_operand(wparser *p, int want_lit, operand *o)
{
    size_t at;
    char c;
    memset(o, 0, sizeof *o);
    w_skip_ws(p);
    o->at = at = p->i;
    if (p->i >= p->n)
        return w_werr(p, at, "expected a literal or a column");
    c = p->t[p->i];
    if (c == '\'') {
        if (w_sql_string(p, o))
            return -1;
    } else if (c == '"' && want_lit) {
        if (w_json_string(p, o))
            return -1;
    } else if (c == '"' || c == '`') {
        int r = w_read_column(p, c == '"', &o->col);
        if (r < 0)
            return -1;
        if (r == 0) {
            o->kind = K_COL;
        } else if (w_json_string(p, o)) {
            return -1;
        }
    } else if ((c >= '0' && c <= '9') || c == '.' ||
               ((c == '-' || c == '+') && p->i + 1 < p->n &&
                ((p->t[p->i + 1] >= '0' && p->t[p->i + 1] <= '9') || p->t[p->i + 1] == '.'))) {
        if (w_number(p, o))
            return -1;
    } else if ((c == '-' || c == '+') && p->i + 1 < p->n && w_is_word_char(p->t[p->i + 1])) {
        size_t e = p->i + 1;
        while (e < p->n && w_is_word_char(p->t[e]))
            e++;
        if (!w_is_float_word(p->t + p->i, e - p->i))
            return w_werr(p, at, "expected a literal or a column");
        o->kind = K_WORD;
        o->p = (const uint8_t *)p->t + p->i;
        o->len = e - p->i;
        p->i = e;
    } else if (w_is_word_char(c)) {
        static const char *const typed[] = {"timestamptz", "timestamp", "date", "time"};
        static const int tcode[] = {T_TIMESTAMPTZ, T_TIMESTAMP, T_DATE, T_TIME};
        size_t e = p->i, k;
        while (e < p->n && w_is_word_char(p->t[e]))
            e++;
        if (w_keyword(p, "true") || w_keyword(p, "false")) {
            o->kind = K_BOOL;
            o->bval = (p->t[at] | 0x20) == 't';
        } else if (w_keyword(p, "null")) {
            o->kind = K_NULL;
        } else {
            for (k = 0; k < 4; k++) {
                size_t save = p->i;
                if (w_keyword(p, typed[k])) {
                    w_skip_ws(p);
                    if (p->i < p->n && (p->t[p->i] == '\'' || p->t[p->i] == '"')) {
                        if (p->t[p->i] == '\'' ? w_sql_string(p, o) : w_json_string(p, o))
                            return -1;
                        o->typed = tcode[k];
                        o->end = p->i;
                        return 0;
                    }
                    p->i = save;
                }
            }
            if (w_is_float_word(p->t + p->i, e - p->i)) {
                uint32_t col;
                int r = want_lit ? 1 : w_read_column(p, 1, &col);
                if (r < 0)
                    return -1;
                if (r == 0) {
                    o->kind = K_COL;
                    o->col = col;
                } else {
                    o->kind = K_WORD;
                    o->p = (const uint8_t *)p->t + p->i;
                    o->len = e - p->i;
                    p->i = e;
                }
            } else {
                if (w_read_column(p, 0, &o->col))
                    return -1;
                o->kind = K_COL;
            }
        }
    } else {
        return w_werr(p, at, "expected a literal or a column");
    }
    o->end = p->i;
    return 0;
}

/* ---- literal text by column type ----------------------------------------------- */

typedef struct numtext {
    int neg, dot, exp;
    size_t digits;      /* significant digits before the exponent */
    char buf[512];      /* NUL-terminated copy for strtod */
} numtext;

/* Reads s[0..n) as a number; 0 when it is not one. */
static int w_numtext(const uint8_t *s, size_t n, numtext *x)
{
    size_t i = 0, d = 0;
    memset(x, 0, sizeof *x);
    if (n == 0 || n >= sizeof x->buf)
        return 0;
    memcpy(x->buf, s, n);
    x->buf[n] = 0;
    if (s[i] == '-' || s[i] == '+')
        x->neg = s[i++] == '-';
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            if (x->exp == 0)
                d++;
            continue;
        }
        if (s[i] == '.' && !x->dot && !x->exp) {
            x->dot = 1;
            continue;
        }
        if ((s[i] == 'e' || s[i] == 'E') && !x->exp && d) {
            x->exp = 1;
            if (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+'))
                i++;
            if (i + 1 >= n)
                return 0;
            continue;
        }
        return 0;
    }
    x->digits = d;
    return d > 0;
}

static int w_order(const wparser *p, uint32_t col)
{
    int o = upq_stats_type_order(p->s, col);
    if (o == UPQ_STAT_ORDER_NONE && p->s->columns[col].physical_type == UPQ_TYPE_INT96)
        o = UPQ_STAT_ORDER_INT96;
    return o;
}

static int w_float_kind(int order)
{
    return order == UPQ_STAT_ORDER_F32 ? 4 : order == UPQ_STAT_ORDER_F64 ? 8
           : order == UPQ_STAT_ORDER_F16 ? 2 : 0;
}

static int w_logical(const upq_column_desc *cd)
{
    return cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
}

static const char *w_type_name(const wparser *p, uint32_t col)
{
    const upq_column_desc *cd = &p->s->columns[col];
    switch (w_logical(cd)) {
    case UPQ_LOGICAL_TYPE_DATE: return "date";
    case UPQ_LOGICAL_TYPE_TIME: return "time";
    case UPQ_LOGICAL_TYPE_TIMESTAMP: return "timestamp";
    case UPQ_LOGICAL_TYPE_DECIMAL: return "decimal";
    case UPQ_LOGICAL_TYPE_UUID: return "UUID";
    default: break;
    }
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN: return "boolean";
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_INT64: return "integer";
    case UPQ_TYPE_INT96: return "timestamp (INT96)";
    case UPQ_TYPE_FLOAT: return "FLOAT";
    case UPQ_TYPE_DOUBLE: return "DOUBLE";
    default: return "binary";
    }
}

/* A float word (nan, inf, -infinity) as a double. */
static double w_float_word(const uint8_t *s, size_t n)
{
    int neg = n && s[0] == '-';
    if (n && (s[0] == '-' || s[0] == '+'))
        s++, n--;
    if (n == 3 && strncasecmp((const char *)s, "nan", 3) == 0)
        return NAN;
    return neg ? -INFINITY : INFINITY;
}

/* A number (text) compared with column `col`: DuckDB's INTEGER / DECIMAL
 * literals exactly, DOUBLE ones (with an exponent) by their value; FLOAT
 * columns take the literal cast to FLOAT. */
static int w_number_lit(wparser *p, uint32_t col, int op, const uint8_t *s, size_t n, size_t at)
{
    const upq_column_desc *cd = &p->s->columns[col];
    int fk = w_float_kind(w_order(p, col)), lk = w_logical(cd);
    numtext x;
    if (!w_numtext(s, n, &x))
        return w_werr(p, at, "expected a number (%s column), not '%.*s'", w_type_name(p, col),
                      (int)(n > 60 ? 60 : n), (const char *)s);
    if (fk) {
        upq_value v;
        memset(&v, 0, sizeof v);
        if (x.exp || fk == 2) {
            upq_pred_double(&p->b, col, op, fk == 2 && !x.exp ? (double)strtof(x.buf, NULL)
                                                              : strtod(x.buf, NULL));
            return 0;
        }
        if (fk == 4)
            v.f = strtof(x.buf, NULL);
        else
            v.d = strtod(x.buf, NULL);
        upq_pred_value(&p->b, col, op, &v);
        return 0;
    }
    if (lk == UPQ_LOGICAL_TYPE_DATE || lk == UPQ_LOGICAL_TYPE_TIME ||
        lk == UPQ_LOGICAL_TYPE_TIMESTAMP || cd->physical_type == UPQ_TYPE_INT96) {
        /* the stored integer */
        if (x.dot || x.exp || cd->physical_type == UPQ_TYPE_INT96)
            return w_werr(p, at, "expected a %s as text ('...'), or its stored integer",
                          w_type_name(p, col));
        if (x.neg)
            upq_pred_int(&p->b, col, op, strtoll(x.buf, NULL, 10));
        else
            upq_pred_uint(&p->b, col, op, strtoull(x.buf, NULL, 10));
        return 0;
    }
    if (x.exp || x.digits > 38 || (op == UPQ_PRED_IN && p->in_double))
        upq_pred_double(&p->b, col, op, strtod(x.buf, NULL)); /* correctly rounded */
    else
        upq_pred_decimal(&p->b, col, op, x.buf, n);
    return 0;
}

/* HH:MM[:SS[.fraction]] at s[*i]: seconds of the day and nanoseconds (the
 * fraction cut to `digits` digits, as DuckDB cuts a literal to its type's
 * precision). */
static int w_time_text(const char *s, size_t n, size_t *i, int digits, int64_t *secs,
                       uint32_t *nanos)
{
    unsigned v[3] = {0, 0, 0}, k;
    int dg = 0;
    for (k = 0; k < 3; k++) {
        size_t st = *i;
        if (k > 0) {
            if (*i >= n || s[*i] != ':')
                break;
            (*i)++;
            st = *i;
        }
        while (*i < n && s[*i] >= '0' && s[*i] <= '9' && *i - st < 2)
            v[k] = v[k] * 10 + (unsigned)(s[(*i)++] - '0');
        if (*i == st)
            return 0;
    }
    if (k < 2 || v[0] > 24 || v[1] > 59 || v[2] > 59 || (v[0] == 24 && (v[1] || v[2])))
        return 0;
    *nanos = 0;
    if (*i < n && s[*i] == '.') {
        (*i)++;
        if (*i >= n || s[*i] < '0' || s[*i] > '9')
            return 0;
        while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
            if (dg < 9)
                *nanos = *nanos * 10 + (unsigned)(s[*i] - '0');
            dg++;
            (*i)++;
        }
        for (; dg < 9; dg++)
            *nanos *= 10;
    }
    {
        uint32_t cut = 1;
        for (dg = digits; dg < 9; dg++)
            cut *= 10;
        *nanos -= *nanos % cut;
    }
    *secs = (int64_t)v[0] * 3600 + (int64_t)v[1] * 60 + v[2];
    return 1;
}

/* [ ]Z, [ ]+HH[:MM], [ ]-HHMM at s[*i]: the offset east of UTC in seconds. */
static int w_offset_text(const char *s, size_t n, size_t *i, int64_t *off, int *has)
{
    size_t j = *i;
    *has = 0;
    *off = 0;
    if (j < n && s[j] == ' ')
        j++;
    if (j < n && s[j] == 'Z') {
        *i = j + 1;
        *has = 1;
        return 1;
    }
    if (j < n && (s[j] == '+' || s[j] == '-')) {
        int neg = s[j++] == '-';
        unsigned h = 0, m = 0, k;
        for (k = 0; k < 2; k++, j++) {
            if (j >= n || s[j] < '0' || s[j] > '9')
                return 0;
            h = h * 10 + (unsigned)(s[j] - '0');
        }
        if (j < n && s[j] == ':')
            j++;
        if (j + 1 < n && s[j] >= '0' && s[j] <= '9' && s[j + 1] >= '0' && s[j + 1] <= '9') {
            m = (unsigned)(s[j] - '0') * 10 + (unsigned)(s[j + 1] - '0');
            j += 2;
        }
        if (h > 23 || m > 59)
            return 0;
        *off = (neg ? -1 : 1) * ((int64_t)h * 3600 + (int64_t)m * 60);
        *i = j;
        *has = 1;
    }
    return 1;
}

/* 'YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][offset]': seconds since 1970 (the offset
 * applied when `apply_off`), nanoseconds; *date_only: no time given. */
static int w_timestamp_text(const uint8_t *u, size_t n, int digits, int apply_off, int64_t *sec,
                            uint32_t *nanos, int *date_only)
{
    const char *s = (const char *)u;
    size_t i = 0;
    int64_t days, tod = 0, off = 0;
    int has = 0;
    *nanos = 0;
    if (!value_date_text(s, n, &i, &days))
        return 0;
    *date_only = 1;
    if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ') && i + 1 < n && s[i + 1] >= '0' &&
        s[i + 1] <= '9') {
        i++;
        if (!w_time_text(s, n, &i, digits, &tod, nanos))
            return 0;
        *date_only = 0;
    }
    if (!w_offset_text(s, n, &i, &off, &has) || i != n)
        return 0;
    if (days > INT64_MAX / 86400 - 1 || days < INT64_MIN / 86400 + 1)
        return 0;
    *sec = days * 86400 + tod - (apply_off ? off : 0);
    return 1;
}

/* A date, time or timestamp given as text, for column `col`. */
static int w_time_lit(wparser *p, uint32_t col, int op, const operand *o)
{
    const upq_column_desc *cd = &p->s->columns[col];
    int lk = w_logical(cd), nanos_col = 0, date_only = 0;
    int64_t sec = 0;
    uint32_t ns = 0;
    if (lk == UPQ_LOGICAL_TYPE_TIMESTAMP)
        nanos_col = UPQ_ISSET(cd->logical.u.timestamp.unit, UPQ_TIME_UNIT_NANOS);
    if (lk == UPQ_LOGICAL_TYPE_TIME) {
        size_t i = 0;
        int64_t off;
        int has;
        if (!w_time_text((const char *)o->p, o->len, &i, UPQ_ISSET(cd->logical.u.time.unit,
                         UPQ_TIME_UNIT_NANOS) ? 9 : 6, &sec, &ns) ||
            !w_offset_text((const char *)o->p, o->len, &i, &off, &has) || i != o->len)
            return w_werr(p, o->at, "expected a time 'HH:MM:SS[.fraction]', not '%.*s'",
                          (int)(o->len > 60 ? 60 : o->len), (const char *)o->p);
        upq_pred_time(&p->b, col, op, sec * 1000000000 + ns);
        return 0;
    }
    /* an offset counts for instants (UTC columns, TIMESTAMPTZ literals);
     * DuckDB drops it when it casts text to a local TIMESTAMP */
    if (!w_timestamp_text(o->p, o->len, nanos_col ? 9 : 6,
                          o->typed == T_TIMESTAMPTZ ||
                              (lk == UPQ_LOGICAL_TYPE_TIMESTAMP &&
                               cd->logical.u.timestamp.is_adjusted_to_utc),
                          &sec, &ns, &date_only))
        return w_werr(p, o->at, "expected a date 'YYYY-MM-DD' or timestamp 'YYYY-MM-DD HH:MM:SS"
                      "[.fraction][Z|+HH:MM]', not '%.*s'", (int)(o->len > 60 ? 60 : o->len),
                      (const char *)o->p);
    if (lk == UPQ_LOGICAL_TYPE_DATE && o->typed < T_TIMESTAMP) {
        /* text cast to DATE keeps the date (DuckDB) */
        sec -= ((sec % 86400) + 86400) % 86400;
        ns = 0;
    }
    upq_pred_timestamp(&p->b, col, op, sec, ns);
    return 0;
}

static int w_hex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A UUID in any of DuckDB's spellings: hyphens or none, braces, any case. */
static int w_uuid_lit(wparser *p, uint32_t col, int op, const operand *o)
{
    uint8_t b[16], *kept;
    size_t i = 0, n = o->len, k = 0;
    const uint8_t *s = o->p;
    if (n >= 2 && s[0] == '{' && s[n - 1] == '}')
        s++, n -= 2;
    for (; i < n && k < 32; i++) {
        int h;
        if (s[i] == '-' && k && k % 4 == 0)
            continue;
        if ((h = w_hex(s[i])) < 0)
            break;
        b[k / 2] = (uint8_t)(k % 2 ? (b[k / 2] << 4) | h : h);
        k++;
    }
    if (k != 32 || i != n)
        return w_werr(p, o->at, "expected a UUID (32 hex digits, hyphens optional), not '%.*s'",
                      (int)(o->len > 60 ? 60 : o->len), (const char *)o->p);
    kept = w_keep(p, b, 16);
    if (!kept)
        return w_werr(p, o->at, "out of room for literals");
    upq_pred_bytes(&p->b, col, op, kept, 16);
    return 0;
}

/* A binary column's literal: base64 in double quotes (JSON, as `upq cat`
 * prints it), DuckDB's blob text in single quotes (\xHH is a byte). */
static int w_binary_lit(wparser *p, uint32_t col, int op, const operand *o)
{
    strbuf sb;
    uint8_t *kept;
    size_t i;
    sb_init(&sb);
    if (o->kind == K_JSONSTR) {
        upq_value v;
        size_t off = 0;
        char err[300];
        if (jv_parse(&p->doc, p->t + o->at, o->end - o->at, 1) != 0 ||
            value_parse(p->s, col, &p->doc, &p->doc.v[0], &v, &sb, &off, err, sizeof err)) {
            sb_free(&sb);
            return w_werr(p, o->at, "%s", p->doc.err ? p->doc.err : err);
        }
    } else {
        for (i = 0; i < o->len; i++) {
            if (o->p[i] == '\\' && i + 3 < o->len &&
                (o->p[i + 1] == 'x' || o->p[i + 1] == 'X') && w_hex(o->p[i + 2]) >= 0 &&
                w_hex(o->p[i + 3]) >= 0) {
                sb_addc(&sb, (char)(w_hex(o->p[i + 2]) << 4 | w_hex(o->p[i + 3])));
                i += 3;
            } else if (o->p[i] == '\\') {
                sb_free(&sb);
                return w_werr(p, o->at + 1 + i, "a backslash in a binary literal must be \\xHH");
            } else {
                sb_addc(&sb, (char)o->p[i]);
            }
        }
    }
    i = sb.len;
    kept = w_keep(p, sb.p, i);
    sb_free(&sb);
    if (!kept)
        return w_werr(p, o->at, "out of room for literals");
    upq_pred_bytes(&p->b, col, op, kept, i);
    return 0;
}

/* A quoted literal compared with column `col`, read as that column's type. */
static int w_string_lit(wparser *p, uint32_t col, int op, const operand *o)
{
    const upq_column_desc *cd = &p->s->columns[col];
    int lk = w_logical(cd), order = w_order(p, col);
    if (order == UPQ_STAT_ORDER_BYTES) {
        if (lk == UPQ_LOGICAL_TYPE_UUID)
            return w_uuid_lit(p, col, op, o);
        if (lk == UPQ_LOGICAL_TYPE_STRING || lk == UPQ_LOGICAL_TYPE_ENUM ||
            lk == UPQ_LOGICAL_TYPE_JSON) {
            upq_pred_bytes(&p->b, col, op, o->p, o->len);
            return 0;
        }
        return w_binary_lit(p, col, op, o);
    }
    if (lk == UPQ_LOGICAL_TYPE_DATE || lk == UPQ_LOGICAL_TYPE_TIME ||
        lk == UPQ_LOGICAL_TYPE_TIMESTAMP || cd->physical_type == UPQ_TYPE_INT96)
        return w_time_lit(p, col, op, o);
    if (order == UPQ_STAT_ORDER_BOOL) {
        static const char *const t[] = {"true", "t", "1", "false", "f", "0"};
        size_t k;
        for (k = 0; k < 6; k++)
            if (o->len == strlen(t[k]) && strncasecmp((const char *)o->p, t[k], o->len) == 0) {
                upq_pred_bool(&p->b, col, op, k < 3);
                return 0;
            }
        return w_werr(p, o->at, "expected true or false (boolean column)");
    }
    if (w_float_kind(order) && w_is_float_word((const char *)o->p, o->len)) {
        upq_pred_double(&p->b, col, op, w_float_word(o->p, o->len));
        return 0;
    }
    return w_number_lit(p, col, op, o->p, o->len, o->at);
}

/* Column `col` compared (op) with literal operand `o`. */
static int w_literal(wparser *p, uint32_t col, int op, const operand *o)
{
    uint32_t from = p->b.nn;
    int rc = 0;
    switch (o->kind) {
    case K_NULL: upq_pred_null(&p->b, col, op); break;
    case K_BOOL:
        if (w_order(p, col) != UPQ_STAT_ORDER_BOOL)
            return w_werr(p, o->at, "TRUE or FALSE for a %s column", w_type_name(p, col));
        upq_pred_bool(&p->b, col, op, o->bval);
        break;
    case K_WORD:
        if (!w_float_kind(w_order(p, col)))
            return w_werr(p, o->at, "nan or inf for a %s column", w_type_name(p, col));
        upq_pred_double(&p->b, col, op, w_float_word(o->p, o->len));
        break;
    case K_NUM: rc = w_number_lit(p, col, op, o->p, o->len, o->at); break;
    case K_COL: return w_werr(p, o->at, "comparing two columns is not supported");
    default: rc = w_string_lit(p, col, op, o); break;
    }
    if (rc)
        return rc;
    if (p->b.nv > WHERE_MAX_VALUES)
        return w_werr(p, o->at, "more than %u values", WHERE_MAX_VALUES);
    return w_built(p, from, o->at);
}

/* ---- one predicate ---------------------------------------------------------------- */

/* A comparison operator at the cursor (consumed), or 0. */
static int w_cmp_op(wparser *p)
{
    static const struct {
        const char *s;
        int op;
    } ops[] = {{"==", UPQ_PRED_EQ}, {"!=", UPQ_PRED_NE}, {"<>", UPQ_PRED_NE}, {"<=", UPQ_PRED_LE},
               {">=", UPQ_PRED_GE}, {"=", UPQ_PRED_EQ},  {"<", UPQ_PRED_LT},  {">", UPQ_PRED_GT}};
    size_t k;
    w_skip_ws(p);
    for (k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t len = strlen(ops[k].s);
        if (p->n - p->i >= len && memcmp(p->t + p->i, ops[k].s, len) == 0) {
            p->i += len;
            return ops[k].op;
        }
    }
    return 0;
}

/* `5 > x` is `x < 5`. */
static int w_swap(int op)
{
    switch (op) {
    case UPQ_PRED_LT: return UPQ_PRED_GT;
    case UPQ_PRED_LE: return UPQ_PRED_GE;
    case UPQ_PRED_GT: return UPQ_PRED_LT;
    case UPQ_PRED_GE: return UPQ_PRED_LE;
    default: return op;
    }
}

static int w_node(wparser *p, void (*fn)(upq_pred_builder *), size_t at)
{
    uint32_t from = p->b.nn;
    fn(&p->b);
    return w_built(p, from, at);
}

/* IS [NOT] NULL / TRUE / FALSE / DISTINCT FROM ..., after IS. */
static int w_is(wparser *p, const operand *a, size_t at)
{
    int neg = w_keyword(p, "not");
    uint32_t from = p->b.nn;
    operand o;
    if (w_keyword(p, "null")) {
        upq_pred_is_null(&p->b, a->col, neg);
        return w_built(p, from, at);
    }
    memset(&o, 0, sizeof o);
    o.at = at;
    o.kind = K_BOOL;
    if ((o.bval = w_keyword(p, "true")) != 0 || w_keyword(p, "false"))
        return w_literal(p, a->col, neg ? UPQ_PRED_DISTINCT : UPQ_PRED_NOT_DISTINCT, &o);
    if (w_keyword(p, "distinct")) {
        if (!w_keyword(p, "from"))
            return w_werr(p, p->i, "expected FROM after DISTINCT");
        if (w_operand(p, 1, &o))
            return -1;
        return w_literal(p, a->col, neg ? UPQ_PRED_NOT_DISTINCT : UPQ_PRED_DISTINCT, &o);
    }
    return w_werr(p, p->i, "expected NULL, TRUE, FALSE or DISTINCT FROM after IS%s",
                  neg ? " NOT" : "");
}

/* A DOUBLE literal as DuckDB types one: an exponent, or more than 38 digits. */
static int w_is_double(const operand *o)
{
    numtext x;
    return o->kind == K_NUM && w_numtext(o->p, o->len, &x) && (x.exp || x.digits > 38);
}

static int w_in(wparser *p, uint32_t col, int neg, size_t at)
{
    uint32_t from = p->b.nn;
    operand *m = NULL;
    size_t n = 0, cap = 0, k;
    int as_double = 0, rc = -1;
    if (!w_punct(p, '('))
        return w_werr(p, p->i, "expected '(' after IN");
    /* the members first: DuckDB types the list by all of them */
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            m = realloc(m, cap * sizeof *m);
            if (!m) {
                fputs("upq: out of memory\n", stderr);
                exit(1);
            }
        }
        if (w_operand(p, 1, &m[n]))
            goto out;
        as_double |= w_is_double(&m[n++]);
        if (w_punct(p, ','))
            continue;
        if (w_punct(p, ')'))
            break;
        w_werr(p, p->i, "expected ',' or ')' in the IN list");
        goto out;
    }
    upq_pred_in_begin(&p->b, col, neg, as_double);
    p->in_double = as_double;
    for (k = 0; k < n; k++)
        if (w_literal(p, col, UPQ_PRED_IN, &m[k]))
            goto out;
    p->in_double = 0;
    upq_pred_in_end(&p->b);
    rc = w_built(p, from, at);
out:
    free(m);
    return rc;
}

static int w_like(wparser *p, uint32_t col, int neg, size_t at)
{
    uint32_t from = p->b.nn;
    operand pat, esc;
    int e = -1;
    if (w_operand(p, 1, &pat))
        return -1;
    if (pat.kind != K_SQLSTR && pat.kind != K_JSONSTR)
        return w_werr(p, pat.at, "expected a pattern string after LIKE");
    if (w_keyword(p, "escape")) {
        if (w_operand(p, 1, &esc))
            return -1;
        if ((esc.kind != K_SQLSTR && esc.kind != K_JSONSTR) || esc.len != 1)
            return w_werr(p, esc.at, "expected one character after ESCAPE");
        e = esc.p[0];
    }
    upq_pred_like(&p->b, col, pat.p, pat.len, e);
    if (neg)
        upq_pred_not(&p->b);
    return w_built(p, from, at);
}

static int w_between(wparser *p, uint32_t col, int neg, size_t at)
{
    operand lo, hi;
    if (w_operand(p, 1, &lo) || w_literal(p, col, UPQ_PRED_GE, &lo))
        return -1;
    if (!w_keyword(p, "and"))
        return w_werr(p, p->i, "expected AND in BETWEEN");
    if (w_operand(p, 1, &hi) || w_literal(p, col, UPQ_PRED_LE, &hi) ||
        w_node(p, upq_pred_and, at))
        return -1;
    return neg ? w_node(p, upq_pred_not, at) : 0;
}

/* What follows a column: an operator and its operands, or nothing for a
 * boolean column standing alone. */
static int w_after_column(wparser *p, const operand *a)
{
    size_t at = a->at, save;
    int op, neg;
    if ((op = w_cmp_op(p)) != 0) {
        operand b;
        if (w_operand(p, 1, &b))
            return -1;
        return w_literal(p, a->col, op, &b);
    }
    if (w_keyword(p, "is"))
        return w_is(p, a, at);
    save = p->i;
    neg = w_keyword(p, "not");
    if (w_keyword(p, "in"))
        return w_in(p, a->col, neg, at);
    if (w_keyword(p, "like"))
        return w_like(p, a->col, neg, at);
    if (w_keyword(p, "between"))
        return w_between(p, a->col, neg, at);
    if (neg)
        return w_werr(p, save, "expected IN, LIKE or BETWEEN after NOT");
    w_skip_ws(p);
    if (w_order(p, a->col) == UPQ_STAT_ORDER_BOOL &&
        (p->i >= p->n || p->t[p->i] == ')' || w_is_keyword_at(p, p->i, "and") ||
         w_is_keyword_at(p, p->i, "or"))) {
        operand t;
        memset(&t, 0, sizeof t);
        t.kind = K_BOOL;
        t.bval = 1;
        t.at = at;
        return w_literal(p, a->col, UPQ_PRED_EQ, &t);
    }
    return w_werr(p, p->i, "expected an operator (= != <> < <= > >= IN IS LIKE BETWEEN)");
}

static int w_read_pred(wparser *p)
{
    operand a, b;
    int op;
    if (w_operand(p, 0, &a))
        return -1;
    if (a.kind == K_COL)
        return w_after_column(p, &a);
    w_skip_ws(p);
    if ((a.kind == K_BOOL || a.kind == K_NULL) &&
        (p->i >= p->n || p->t[p->i] == ')' || w_is_keyword_at(p, p->i, "and") ||
         w_is_keyword_at(p, p->i, "or"))) {
        uint32_t from = p->b.nn;
        upq_pred_const(&p->b, a.kind == K_NULL ? UPQ_PRED_NULL
                              : a.bval ? UPQ_PRED_TRUE : UPQ_PRED_FALSE);
        return w_built(p, from, a.at);
    }
    /* a literal first: its column comes after the operator */
    if ((op = w_cmp_op(p)) == 0) {
        int neg;
        if (!w_keyword(p, "is"))
            return w_werr(p, p->i, "expected an operator and a column after the literal");
        neg = w_keyword(p, "not");
        if (!w_keyword(p, "distinct") || !w_keyword(p, "from"))
            return w_werr(p, p->i, "expected DISTINCT FROM and a column");
        op = neg ? UPQ_PRED_NOT_DISTINCT : UPQ_PRED_DISTINCT;
    }
    if (w_operand(p, 0, &b))
        return -1;
    if (b.kind != K_COL)
        return w_werr(p, b.at, "a comparison needs a column on one side");
    return w_literal(p, b.col, w_swap(op), &a);
}

/* ---- the expression ------------------------------------------------------------------ */

static int w_prec(uint8_t op)
{
    return op == UPQ_PRED_NOT ? 3 : op == UPQ_PRED_AND ? 2 : op == UPQ_PRED_OR ? 1 : 0;
}

/* Pops operators of precedence >= min (never past a parenthesis) into the output. */
static int w_pop_ops(wparser *p, int min)
{
    while (p->nops && p->ops[p->nops - 1] != OP_LPAREN && w_prec(p->ops[p->nops - 1]) >= min) {
        uint8_t op = p->ops[--p->nops];
        size_t at = p->ops_at[p->nops];
        if (op == UPQ_PRED_NOT)
            p->depth--;
        if (w_node(p, op == UPQ_PRED_NOT ? upq_pred_not : op == UPQ_PRED_AND ? upq_pred_and
                                                                              : upq_pred_or,
                   at))
            return -1;
    }
    return 0;
}

static void w_push_op(wparser *p, uint8_t op, size_t at)
{
    p->ops_at[p->nops] = at;
    p->ops[p->nops++] = op;
}

/* An operand's place: NOT, '(' or a predicate. 1 when a predicate was read. */
static int w_operand_step(wparser *p, uint32_t *preds)
{
    size_t at;
    int is_not;
    w_skip_ws(p);
    at = p->i;
    if ((is_not = w_keyword(p, "not")) != 0 || w_punct(p, '(')) {
        if (++p->depth > WHERE_MAX_DEPTH)
            return w_werr(p, at, "nested more than %u deep", WHERE_MAX_DEPTH);
        w_push_op(p, is_not ? UPQ_PRED_NOT : OP_LPAREN, at);
        return 0;
    }
    if (p->i >= p->n)
        return w_werr(p, at, p->n ? "expected a column, NOT or '('" : "empty expression");
    if (++*preds > WHERE_MAX_PREDS)
        return w_werr(p, at, "more than %u predicates", WHERE_MAX_PREDS);
    return w_read_pred(p) ? -1 : 1;
}

/* An operator's place: AND, OR, ')' or the end. 1 at the end. */
static int w_operator_step(wparser *p, int *want_operand)
{
    size_t at;
    int is_and;
    w_skip_ws(p);
    at = p->i;
    if ((is_and = w_keyword(p, "and")) != 0 || w_keyword(p, "or")) {
        uint8_t op = is_and ? UPQ_PRED_AND : UPQ_PRED_OR;
        if (w_pop_ops(p, op == UPQ_PRED_AND ? 2 : 1))
            return -1;
        w_push_op(p, op, at);
        *want_operand = 1;
        return 0;
    }
    if (w_punct(p, ')')) {
        if (w_pop_ops(p, 0))
            return -1;
        if (!p->nops || p->ops[p->nops - 1] != OP_LPAREN)
            return w_werr(p, at, "')' without '('");
        p->nops--;
        p->depth--;
        return 0;
    }
    if (p->i < p->n)
        return w_werr(p, at, "expected AND, OR, ')' or the end");
    if (w_pop_ops(p, 0))
        return -1;
    if (p->nops)
        return w_werr(p, at, "missing ')'");
    return 1;
}

static int w_alloc(wparser *p, where_expr *w)
{
    size_t n = p->n + 32;
    p->ncap = 2 * n;
    w->nodes = calloc(p->ncap, sizeof *w->nodes);
    w->node_at = calloc(p->ncap, sizeof *w->node_at);
    w->values = calloc(n, sizeof *w->values);
    /* literal bytes never outgrow their text; the builder's own values (binary
     * decimals, FLOAT16) take at most 16 bytes each */
    p->lcap = n + 64;
    w->bytes = malloc(p->lcap + 16 * n);
    if (!w->nodes || !w->node_at || !w->values || !w->bytes) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    p->lit = w->bytes;
    upq_pred_begin(&p->b, p->s, w->nodes, (uint32_t)p->ncap, w->values, (uint32_t)n,
                   w->bytes + p->lcap, 16 * n);
    return 0;
}

int where_parse(const upq_schema *s, const char *text, where_expr *w, char *err, size_t errcap)
{
    wparser p;
    int want_operand = 1, rc = -1, r;
    uint32_t preds = 0;
    memset(w, 0, sizeof *w);
    memset(&p, 0, sizeof p);
    p.s = s;
    p.t = text;
    p.n = strlen(text);
    p.err = err;
    p.errcap = errcap;
    p.w = w;
    jv_init(&p.doc);
    sb_init(&p.tok);
    if (p.n > WHERE_MAX_TEXT) {
        w_werr(&p, WHERE_MAX_TEXT, "expression longer than %u bytes", WHERE_MAX_TEXT);
        goto out;
    }
    w_alloc(&p, w);
    for (;;) {
        w_skip_ws(&p);
        if (want_operand) {
            r = w_operand_step(&p, &preds);
            if (r < 0)
                goto out;
            want_operand = r == 0;
            continue;
        }
        r = w_operator_step(&p, &want_operand);
        if (r < 0)
            goto out;
        if (r == 1)
            break;
    }
    if (upq_pred_end(&p.b, &w->pred) != UPQ_OK) {
        size_t at = p.b.node < p.ncap ? w->node_at[p.b.node] : p.n;
        w_werr(&p, at, "%s", p.b.what ? p.b.what : "malformed expression");
        goto out;
    }
    rc = 0;
out:
    jv_free(&p.doc);
    sb_free(&p.tok);
    return rc;
}

void where_free(where_expr *w)
{
    free(w->nodes);
    free(w->values);
    free(w->bytes);
    free(w->node_at);
    memset(w, 0, sizeof *w);
}
