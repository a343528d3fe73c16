/* One JSON value per line into a tree (see jsonl.h). */
#include "jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jv_init(jv_doc *d)
{
    memset(d, 0, sizeof *d);
}

void jv_free(jv_doc *d)
{
    free(d->v);
    free(d->buf);
    free(d->stack);
    jv_init(d);
}

void jv_trim(jv_doc *d, size_t keep)
{
    uint32_t mm = d->max_members, mv = d->max_values;
    if ((size_t)d->cap * sizeof *d->v > keep || d->bcap > keep) {
        jv_free(d);
        d->max_members = mm;
        d->max_values = mv;
    }
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 64;
    if (need <= *cap)
        return p;
    while (c < need) {
        if (c > ((size_t)-1 / 2) / elem) {
            fputs("upq: out of memory\n", stderr);
            exit(1);
        }
        c *= 2;
    }
    p = realloc(p, c * elem);
    if (!p) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    *cap = c;
    return p;
}

static void put_bytes(jv_doc *d, const void *p, size_t n)
{
    if (d->inplace) {
        /* at or before p, in the text itself (see jv_parse_inplace) */
        if (d->bytes + d->blen != (const uint8_t *)p)
            memmove(d->bytes + d->blen, p, n);
        d->blen += n;
        return;
    }
    d->bytes = d->buf = grow(d->buf, &d->bcap, d->blen + n, 1);
    memcpy(d->bytes + d->blen, p, n);
    d->blen += n;
}

static void put_byte(jv_doc *d, unsigned c)
{
    uint8_t b = (uint8_t)c;
    put_bytes(d, &b, 1);
}

static uint32_t new_value(jv_doc *d, int type, size_t col)
{
    size_t cap = d->cap;
    jv *v;
    if (d->n == 0xFFFFFFFEu) {
        fputs("upq: JSON value too large\n", stderr);
        exit(1);
    }
    d->v = grow(d->v, &cap, (size_t)d->n + 1, sizeof *d->v);
    d->cap = (uint32_t)(cap > 0xFFFFFFFFu ? 0xFFFFFFFFu : cap);
    v = &d->v[d->n];
    memset(v, 0, sizeof *v);
    v->type = (uint8_t)type;
    v->first = v->next = JV_NONE;
    v->col = col;
    return d->n++;
}

typedef struct cursor {
    const char *s;
    size_t i, n;
    jv_doc *d;
} cursor;

static int json_fail(cursor *c, const char *what)
{
    c->d->err = what;
    c->d->err_col = c->i + 1;
    return -1;
}

static void skip_ws(cursor *c)
{
    while (c->i < c->n) {
        char ch = c->s[c->i];
        if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
            break;
        c->i++;
    }
}

static int hex4(cursor *c, unsigned *out)
{
    unsigned v = 0;
    int k;
    if (c->n - c->i < 4)
        return json_fail(c, "truncated \\u escape");
    for (k = 0; k < 4; k++) {
        char ch = c->s[c->i + (size_t)k];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            v |= (unsigned)(ch - 'A' + 10);
        else
            return json_fail(c, "bad \\u escape");
    }
    c->i += 4;
    *out = v;
    return 0;
}

static void put_utf8(jv_doc *d, unsigned cp)
{
    if (cp < 0x800) {
        put_byte(d, 0xC0 | (cp >> 6));
    } else if (cp < 0x10000) {
        put_byte(d, 0xE0 | (cp >> 12));
        put_byte(d, 0x80 | ((cp >> 6) & 0x3F));
    } else {
        put_byte(d, 0xF0 | (cp >> 18));
        put_byte(d, 0x80 | ((cp >> 12) & 0x3F));
        put_byte(d, 0x80 | ((cp >> 6) & 0x3F));
    }
    put_byte(d, 0x80 | (cp & 0x3F));
}

/* A string at c->i (the opening quote) into the document's bytes. */
static int parse_string(cursor *c, size_t *off, uint32_t *len)
{
    jv_doc *d = c->d;
    size_t start;
    c->i++;
    if (d->inplace)
        d->blen = c->i; /* the decoded bytes start where the text's do */
    start = d->blen;
    for (;;) {
        size_t run = c->i;
        unsigned char ch;
        /* copy plain runs at once */
        while (run < c->n) {
            unsigned char b = (unsigned char)c->s[run];
            if (b == '"' || b == '\\' || b < 0x20)
                break;
            run++;
        }
        if (run > c->i)
            put_bytes(d, c->s + c->i, run - c->i);
        c->i = run;
        if (c->i >= c->n)
            return json_fail(c, "unterminated string");
        ch = (unsigned char)c->s[c->i];
        if (ch == '"') {
            c->i++;
            break;
        }
        if (ch < 0x20)
            return json_fail(c, "control character in string");
        /* a backslash */
        if (++c->i >= c->n)
            return json_fail(c, "unterminated string");
        ch = (unsigned char)c->s[c->i++];
        switch (ch) {
        case '"': case '\\': case '/': put_byte(d, ch); break;
        case 'b': put_byte(d, '\b'); break;
        case 'f': put_byte(d, '\f'); break;
        case 'n': put_byte(d, '\n'); break;
        case 'r': put_byte(d, '\r'); break;
        case 't': put_byte(d, '\t'); break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(c, &cp))
                return -1;
            if (cp <= 0xFF) {
                put_byte(d, cp); /* a byte, as json.h writes bytes outside UTF-8 */
            } else if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (c->n - c->i < 6 || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u')
                    return json_fail(c, "unpaired surrogate in \\u escape");
                c->i += 2;
                if (hex4(c, &lo))
                    return -1;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return json_fail(c, "unpaired surrogate in \\u escape");
                put_utf8(d, 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u));
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return json_fail(c, "unpaired surrogate in \\u escape");
            } else {
                put_utf8(d, cp);
            }
            break;
        }
        default:
            c->i -= 2;
            return json_fail(c, "bad escape in string");
        }
    }
    if (d->blen - start > 0xFFFFFFFFu)
        return json_fail(c, "string longer than 4 GiB");
    *off = start;
    *len = (uint32_t)(d->blen - start);
    return 0;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* A number per the JSON grammar; its text is copied as is. */
static int parse_number(cursor *c, size_t *off, uint32_t *len)
{
    size_t start = c->i;
    if (c->i < c->n && c->s[c->i] == '-')
        c->i++;
    if (c->i >= c->n || !is_digit(c->s[c->i]))
        return json_fail(c, "bad number");
    if (c->s[c->i] == '0')
        c->i++;
    else
        while (c->i < c->n && is_digit(c->s[c->i]))
            c->i++;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (c->i >= c->n || !is_digit(c->s[c->i]))
            return json_fail(c, "bad number");
        while (c->i < c->n && is_digit(c->s[c->i]))
            c->i++;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
            c->i++;
        if (c->i >= c->n || !is_digit(c->s[c->i]))
            return json_fail(c, "bad number");
        while (c->i < c->n && is_digit(c->s[c->i]))
            c->i++;
    }
    if (c->i - start > 0xFFFFFFFFu)
        return json_fail(c, "number too long");
    *len = (uint32_t)(c->i - start);
    if (c->d->inplace) {
        *off = start; /* already where it is read from */
        return 0;
    }
    *off = c->d->blen;
    put_bytes(c->d, c->s + start, c->i - start);
    return 0;
}

static int literal(cursor *c, const char *word)
{
    size_t k = strlen(word);
    if (c->n - c->i < k || memcmp(c->s + c->i, word, k) != 0)
        return json_fail(c, "unexpected character");
    c->i += k;
    return 0;
}

/* Links value vi as the next member of the open container on top. */
static void attach(jv_doc *d, uint32_t depth, uint32_t *last, uint32_t vi)
{
    jv *parent = &d->v[d->stack[depth - 1]];
    if (last[depth - 1] == JV_NONE)
        parent->first = vi;
    else
        d->v[last[depth - 1]].next = vi;
    last[depth - 1] = vi;
    parent->len++;
}

static int parse(jv_doc *d, const char *text, size_t len, unsigned max_depth)
{
    cursor c;
    uint32_t depth = 0;
    uint32_t *last = NULL; /* per open container: its last member */
    size_t scap, key_off = 0;
    uint32_t key_len = 0;
    int have_key = 0, rc = -1;

    c.s = text;
    c.i = 0;
    c.n = len;
    c.d = d;
    d->n = 0;
    d->blen = 0;
    d->err = NULL;
    d->err_col = 0;
    d->over_limit = 0;
    if (max_depth > 1u << 20)
        max_depth = 1u << 20;
    /* the open containers, then each one's last member */
    scap = d->scap;
    d->stack = grow(d->stack, &scap, 2 * ((size_t)max_depth + 1), sizeof *d->stack);
    d->scap = (uint32_t)scap;
    last = d->stack + max_depth + 1;
    /* never NULL: empty strings and keys point somewhere */
    if (!d->inplace)
        d->bytes = d->buf = grow(d->buf, &d->bcap, 1, 1);

    for (;;) {
        uint32_t vi;
        char ch;
        skip_ws(&c);
        if (depth > 0 && d->v[d->stack[depth - 1]].type == JV_OBJECT) {
            /* a member: its key first */
            if (c.i >= c.n || c.s[c.i] != '"') {
                json_fail(&c, "expected a key");
                goto out;
            }
            if (parse_string(&c, &key_off, &key_len))
                goto out;
            skip_ws(&c);
            if (c.i >= c.n || c.s[c.i] != ':') {
                json_fail(&c, "expected ':'");
                goto out;
            }
            c.i++;
            skip_ws(&c);
            have_key = 1;
        }
        if (c.i >= c.n) {
            json_fail(&c, depth || d->n ? "unexpected end of line" : "empty line");
            goto out;
        }
        if (depth > 0 && d->max_members && d->v[d->stack[depth - 1]].len >= d->max_members) {
            json_fail(&c, "more members in one array or object than a row may hold");
            d->over_limit = 1;
            goto out;
        }
        if (d->max_values && d->n >= d->max_values) {
            json_fail(&c, "more values than a row may hold");
            d->over_limit = 2;
            goto out;
        }
        ch = c.s[c.i];
        if (ch == '{' || ch == '[') {
            if (depth >= max_depth) {
                json_fail(&c, "nested too deeply");
                goto out;
            }
            vi = new_value(d, ch == '{' ? JV_OBJECT : JV_ARRAY, c.i + 1);
            c.i++;
        } else if (ch == '"') {
            vi = new_value(d, JV_STRING, c.i + 1);
            if (parse_string(&c, &d->v[vi].off, &d->v[vi].len))
                goto out;
        } else if (ch == '-' || is_digit(ch)) {
            vi = new_value(d, JV_NUMBER, c.i + 1);
            if (parse_number(&c, &d->v[vi].off, &d->v[vi].len))
                goto out;
        } else {
            int type = ch == 't' ? JV_TRUE : ch == 'f' ? JV_FALSE : JV_NULL;
            size_t col = c.i + 1;
            if (literal(&c, type == JV_TRUE ? "true" : type == JV_FALSE ? "false" : "null"))
                goto out;
            vi = new_value(d, type, col);
        }
        if (have_key) {
            d->v[vi].key_off = key_off;
            d->v[vi].key_len = key_len;
            have_key = 0;
        }
        if (depth > 0)
            attach(d, depth, last, vi);
        if (d->v[vi].type == JV_OBJECT || d->v[vi].type == JV_ARRAY) {
            d->stack[depth] = vi;
            last[depth] = JV_NONE;
            depth++;
            skip_ws(&c);
            if (c.i < c.n && c.s[c.i] == (d->v[vi].type == JV_OBJECT ? '}' : ']')) {
                c.i++;
                depth--; /* empty */
            } else {
                continue;
            }
        }
        /* a value ended: close containers that end here */
        for (;;) {
            jv *top;
            if (depth == 0) {
                skip_ws(&c);
                if (c.i != c.n) {
                    json_fail(&c, "text after the value");
                    goto out;
                }
                rc = 0;
                goto out;
            }
            top = &d->v[d->stack[depth - 1]];
            skip_ws(&c);
            if (c.i < c.n && c.s[c.i] == ',') {
                c.i++;
                break;
            }
            if (c.i < c.n && c.s[c.i] == (top->type == JV_OBJECT ? '}' : ']')) {
                c.i++;
                depth--;
                continue;
            }
            json_fail(&c, top->type == JV_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
            goto out;
        }
    }
out:
    return rc;
}

int jv_parse(jv_doc *d, const char *text, size_t len, unsigned max_depth)
{
    d->inplace = 0;
    return parse(d, text, len, max_depth);
}

int jv_parse_inplace(jv_doc *d, char *text, size_t len, unsigned max_depth)
{
    static char empty[1];
    int rc;
    d->inplace = 1;
    d->bytes = (uint8_t *)(len ? text : empty); /* never NULL */
    rc = parse(d, text, len, max_depth);
    d->inplace = 0;
    return rc;
}
