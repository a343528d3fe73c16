/*
 * `upq cat --where EXPR` text into a predicate (uparquet/predicate.h).
 *
 *   expr  := or;  or := and ("or" and)*;  and := unary ("and" unary)*
 *   unary := "not" unary | "(" expr ")" | pred
 *   pred  := col op lit | col ["not"] "in" "(" lit ("," lit)* ")"
 *          | col "is" ["not"] "null"
 *
 * No recursion: a shunting-yard pass turns the infix text into the postfix
 * node array the library takes, with a state that says whether an operand
 * or an operator comes next (so every malformed text is an error, with its
 * offset). Literals are JSON values read exactly as `upq write` reads that
 * column's values (value_parse.c); nan, inf and -inf are also words.
 */
#include "upq.h"
#include "jsonl.h"
#include "shred.h"
#include "where.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OP_LPAREN = 100 };

typedef struct wparser {
    const upq_schema *s;
    const char *t;
    size_t n, i;
    char *err;
    size_t errcap;
    where_expr *w;
    uint32_t ncap, vcap;
    /* operator stack: NOTs and '(' (at most WHERE_MAX_DEPTH), and at most an OR
     * and an AND above each '(' and the bottom */
    uint8_t ops[WHERE_MAX_DEPTH * 3 + 8];
    unsigned nops;
    unsigned depth;                      /* open parentheses and NOTs */
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

/* The keyword `kw` (case-insensitive, a whole word) at the cursor? Consumes it. */
static int w_keyword(wparser *p, const char *kw)
{
    size_t k = strlen(kw), j;
    w_skip_ws(p);
    if (p->n - p->i < k)
        return 0;
    for (j = 0; j < k; j++) {
        char c = p->t[p->i + j];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != kw[j])
            return 0;
    }
    if (p->i + k < p->n && w_is_word_char(p->t[p->i + k]))
        return 0;
    p->i += k;
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

static int w_push_node(wparser *p, uint8_t op, uint32_t col, uint32_t nv, uint32_t first)
{
    where_expr *w = p->w;
    upq_pred_node *nd;
    if (w->pred.n == p->ncap) {
        p->ncap = p->ncap ? p->ncap * 2 : 16;
        w->nodes = realloc(w->nodes, p->ncap * sizeof *w->nodes);
        if (!w->nodes) {
            fputs("upq: out of memory\n", stderr);
            exit(1);
        }
    }
    nd = &w->nodes[w->pred.n++];
    memset(nd, 0, sizeof *nd);
    nd->op = op;
    nd->column = col;
    nd->n = nv;
    /* values are pointed to once they stop moving (where_parse's end) */
    nd->values = (const upq_value *)(uintptr_t)first;
    return 0;
}

/* ---- a column path ------------------------------------------------------------ */

/* Reads a dotted path (segments bare or in backquotes) into p->tok as
 * segments separated by NUL bytes; *nseg gets their count. */
static int w_read_path(wparser *p, unsigned *nseg)
{
    size_t start;
    sb_reset(&p->tok);
    *nseg = 0;
    w_skip_ws(p);
    start = p->i;
    for (;;) {
        if (p->i < p->n && p->t[p->i] == '`') {
            p->i++;
            for (;;) {
                if (p->i >= p->n)
                    return w_werr(p, start, "unterminated `name`");
                if (p->t[p->i] == '`') {
                    if (p->i + 1 < p->n && p->t[p->i + 1] == '`') {
                        sb_addc(&p->tok, '`');
                        p->i += 2;
                        continue;
                    }
                    p->i++;
                    break;
                }
                if (p->t[p->i] == '\0')
                    return w_werr(p, p->i, "NUL byte in a name");
                sb_addc(&p->tok, p->t[p->i++]);
            }
        } else {
            size_t b = p->i;
            while (p->i < p->n && w_is_word_char(p->t[p->i]))
                p->i++;
            if (p->i == b)
                return w_werr(p, b, *nseg ? "expected a name after '.'" : "expected a column name");
            sb_add(&p->tok, p->t + b, p->i - b);
        }
        sb_addc(&p->tok, '\0');
        (*nseg)++;
        if (p->i < p->n && p->t[p->i] == '.') {
            p->i++;
            continue;
        }
        return 0;
    }
}

/* The leaf column the segments in p->tok name, or -1 (reported). */
static int64_t w_resolve(wparser *p, unsigned nseg, size_t at)
{
    const upq_schema *s = p->s;
    uint32_t node = 0, k;
    const char *seg = p->tok.p;
    unsigned i;
    for (i = 0; i < nseg; i++) {
        size_t len = strlen(seg);
        uint32_t found = UPQ_NONE;
        for (k = 0; k < s->nodes[node].num_children; k++) {
            uint32_t c = s->children[s->nodes[node].first_child + k];
            const upq_bytes *nm = &s->nodes[c].elem->name;
            if (nm->len == len && memcmp(nm->ptr, seg, len) == 0) {
                found = c;
                break;
            }
        }
        if (found == UPQ_NONE)
            return w_werr(p, at, "no column named '%s'", p->tok.len ? seg : "");
        node = found;
        seg += len + 1;
    }
    for (k = 0; k < s->num_columns; k++) {
        if (s->columns[k].node == node) {
            if (s->columns[k].max_rep > 0)
                return w_werr(p, at, "column is repeated (a list element, map key or value); "
                                   "only non-repeated columns can be compared");
            return (int64_t)k;
        }
    }
    return w_werr(p, at, "a group, not a leaf column");
}

/* ---- literals ------------------------------------------------------------------- */

static int w_add_value(wparser *p, uint32_t col)
{
    where_expr *w = p->w;
    size_t at, b, off = (size_t)-1;
    const char *lit;
    size_t litlen;
    char err[512];
    upq_value v;
    w_skip_ws(p);
    at = b = p->i;
    if (p->i >= p->n)
        return w_werr(p, at, "expected a literal");
    if (p->t[p->i] == '"') {
        p->i++;
        while (p->i < p->n && p->t[p->i] != '"') {
            if (p->t[p->i] == '\\' && p->i + 1 < p->n)
                p->i++;
            p->i++;
        }
        if (p->i >= p->n)
            return w_werr(p, at, "unterminated string");
        p->i++;
        lit = p->t + b;
        litlen = p->i - b;
    } else if (p->t[p->i] == '-' || p->t[p->i] == '+' || (p->t[p->i] >= '0' && p->t[p->i] <= '9') ||
               p->t[p->i] == '.' || w_is_word_char(p->t[p->i])) {
        p->i++;
        while (p->i < p->n && (w_is_word_char(p->t[p->i]) || p->t[p->i] == '.' ||
                               ((p->t[p->i] == '-' || p->t[p->i] == '+') &&
                                (p->t[p->i - 1] == 'e' || p->t[p->i - 1] == 'E'))))
            p->i++;
        lit = p->t + b;
        litlen = p->i - b;
        /* bare words for the special floats */
        if (litlen == 3 && strncasecmp(lit, "nan", 3) == 0)
            lit = "\"NaN\"", litlen = 5;
        else if ((litlen == 3 && strncasecmp(lit, "inf", 3) == 0) ||
                 (litlen == 4 && strncasecmp(lit, "+inf", 4) == 0))
            lit = "\"Infinity\"", litlen = 10;
        else if (litlen == 4 && strncasecmp(lit, "-inf", 4) == 0)
            lit = "\"-Infinity\"", litlen = 11;
        else if (litlen == 4 && strncasecmp(lit, "null", 4) == 0)
            return w_werr(p, at, "null is not a value: use IS NULL / IS NOT NULL");
    } else {
        return w_werr(p, at, "expected a literal");
    }
    if (jv_parse(&p->doc, lit, litlen, 1) != 0)
        return w_werr(p, at, "bad literal: %s", p->doc.err ? p->doc.err : "not JSON");
    if (p->doc.v[0].type == JV_NULL)
        return w_werr(p, at, "null is not a value: use IS NULL / IS NOT NULL");
    if (p->doc.v[0].type == JV_ARRAY || p->doc.v[0].type == JV_OBJECT) {
        /* INTERVAL literals are objects, but INTERVAL has no order anyway */
        return w_werr(p, at, "expected a number, a string, true or false");
    }
    memset(&v, 0, sizeof v);
    err[0] = 0;
    if (value_parse(p->s, col, &p->doc, &p->doc.v[0], &v, &w->bytes, &off, err, sizeof err))
        return w_werr(p, at, "%s", err);
    if (w->nvalues >= WHERE_MAX_VALUES)
        return w_werr(p, at, "more than %u values", WHERE_MAX_VALUES);
    if (w->nvalues == p->vcap) {
        p->vcap = p->vcap ? p->vcap * 2 : 16;
        w->values = realloc(w->values, p->vcap * sizeof *w->values);
        w->boff = realloc(w->boff, p->vcap * sizeof *w->boff);
        if (!w->values || !w->boff) {
            fputs("upq: out of memory\n", stderr);
            exit(1);
        }
    }
    {
        int t = p->s->columns[col].physical_type;
        w->boff[w->nvalues] = (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
                                  ? off
                                  : (size_t)-1;
    }
    w->values[w->nvalues++] = v;
    return 0;
}

/* ---- one predicate ---------------------------------------------------------------- */

static int w_read_pred(wparser *p)
{
    size_t at;
    unsigned nseg;
    int64_t col;
    uint32_t first;
    uint8_t op;
    w_skip_ws(p);
    at = p->i;
    if (w_read_path(p, &nseg))
        return -1;
    if ((col = w_resolve(p, nseg, at)) < 0)
        return -1;
    first = p->w->nvalues;
    w_skip_ws(p);
    if (w_keyword(p, "is")) {
        int neg = w_keyword(p, "not");
        if (!w_keyword(p, "null"))
            return w_werr(p, p->i, "expected NULL after IS%s", neg ? " NOT" : "");
        return w_push_node(p, neg ? UPQ_PRED_IS_NOT_NULL : UPQ_PRED_IS_NULL, (uint32_t)col, 0, 0);
    }
    {
        int neg = 0;
        size_t save = p->i;
        if (w_keyword(p, "not")) {
            neg = 1;
            if (!w_keyword(p, "in")) {
                p->i = save;
                return w_werr(p, save, "expected IN after NOT");
            }
        }
        if (neg || w_keyword(p, "in")) {
            if (!w_punct(p, '('))
                return w_werr(p, p->i, "expected '(' after IN");
            for (;;) {
                if (w_add_value(p, (uint32_t)col))
                    return -1;
                if (w_punct(p, ','))
                    continue;
                if (w_punct(p, ')'))
                    break;
                return w_werr(p, p->i, "expected ',' or ')' in the IN list");
            }
            return w_push_node(p, neg ? UPQ_PRED_NOT_IN : UPQ_PRED_IN, (uint32_t)col,
                             p->w->nvalues - first, first);
        }
    }
    w_skip_ws(p);
    at = p->i;
    if (p->i + 1 < p->n && p->t[p->i] == '=' && p->t[p->i + 1] == '=')
        op = UPQ_PRED_EQ, p->i += 2;
    else if (p->i + 1 < p->n && p->t[p->i] == '!' && p->t[p->i + 1] == '=')
        op = UPQ_PRED_NE, p->i += 2;
    else if (p->i + 1 < p->n && p->t[p->i] == '<' && p->t[p->i + 1] == '>')
        op = UPQ_PRED_NE, p->i += 2;
    else if (p->i + 1 < p->n && p->t[p->i] == '<' && p->t[p->i + 1] == '=')
        op = UPQ_PRED_LE, p->i += 2;
    else if (p->i + 1 < p->n && p->t[p->i] == '>' && p->t[p->i + 1] == '=')
        op = UPQ_PRED_GE, p->i += 2;
    else if (p->i < p->n && p->t[p->i] == '=')
        op = UPQ_PRED_EQ, p->i++;
    else if (p->i < p->n && p->t[p->i] == '<')
        op = UPQ_PRED_LT, p->i++;
    else if (p->i < p->n && p->t[p->i] == '>')
        op = UPQ_PRED_GT, p->i++;
    else
        return w_werr(p, at, "expected an operator (= != <> < <= > >= IN IS)");
    if (w_add_value(p, (uint32_t)col))
        return -1;
    return w_push_node(p, op, (uint32_t)col, 1, first);
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
        if (op == UPQ_PRED_NOT)
            p->depth--;
        if (w_push_node(p, op, 0, 0, 0))
            return -1;
    }
    return 0;
}

int where_parse(const upq_schema *s, const char *text, where_expr *w, char *err, size_t errcap)
{
    wparser p;
    int want_operand = 1, rc = -1;
    uint32_t preds = 0, i;
    memset(w, 0, sizeof *w);
    sb_init(&w->bytes);
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
    for (;;) {
        w_skip_ws(&p);
        if (want_operand) {
            size_t at = p.i;
            if (w_keyword(&p, "not")) {
                if (++p.depth > WHERE_MAX_DEPTH) {
                    w_werr(&p, at, "nested more than %u deep", WHERE_MAX_DEPTH);
                    goto out;
                }
                p.ops[p.nops++] = UPQ_PRED_NOT;
                continue;
            }
            if (w_punct(&p, '(')) {
                if (++p.depth > WHERE_MAX_DEPTH) {
                    w_werr(&p, at, "nested more than %u deep", WHERE_MAX_DEPTH);
                    goto out;
                }
                p.ops[p.nops++] = OP_LPAREN;
                continue;
            }
            if (p.i >= p.n) {
                w_werr(&p, at, p.n ? "expected a column, NOT or '('" : "empty expression");
                goto out;
            }
            if (++preds > WHERE_MAX_PREDS) {
                w_werr(&p, at, "more than %u predicates", WHERE_MAX_PREDS);
                goto out;
            }
            if (w_read_pred(&p))
                goto out;
            want_operand = 0;
            continue;
        }
        /* an operator, ')' or the end */
        {
            size_t at = p.i;
            if (w_keyword(&p, "and")) {
                if (w_pop_ops(&p, 2))
                    goto out;
                p.ops[p.nops++] = UPQ_PRED_AND;
                want_operand = 1;
                continue;
            }
            if (w_keyword(&p, "or")) {
                if (w_pop_ops(&p, 1))
                    goto out;
                p.ops[p.nops++] = UPQ_PRED_OR;
                want_operand = 1;
                continue;
            }
            if (w_punct(&p, ')')) {
                if (w_pop_ops(&p, 0))
                    goto out;
                if (!p.nops || p.ops[p.nops - 1] != OP_LPAREN) {
                    w_werr(&p, at, "')' without '('");
                    goto out;
                }
                p.nops--;
                p.depth--;
                continue;
            }
            if (p.i < p.n) {
                w_werr(&p, at, "expected AND, OR, ')' or the end");
                goto out;
            }
            if (w_pop_ops(&p, 0))
                goto out;
            if (p.nops) {
                w_werr(&p, at, "missing ')'");
                goto out;
            }
            break;
        }
    }
    /* literals stopped moving: point the nodes at them */
    for (i = 0; i < w->nvalues; i++)
        if (w->boff[i] != (size_t)-1)
            w->values[i].bytes.ptr =
                w->bytes.p ? (const uint8_t *)w->bytes.p + w->boff[i] : (const uint8_t *)"";
    for (i = 0; i < w->pred.n; i++) {
        upq_pred_node *nd = &w->nodes[i];
        uint32_t first = (uint32_t)(uintptr_t)nd->values;
        nd->values = nd->n ? &w->values[first] : NULL;
    }
    w->pred.nodes = w->nodes;
    {
        const char *what = "";
        uint32_t bad = 0;
        if (upq_pred_check(s, &w->pred, &what, &bad) != UPQ_OK) {
            w_werr(&p, 0, "%s", what);
            goto out;
        }
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
    free(w->boff);
    sb_free(&w->bytes);
    memset(w, 0, sizeof *w);
}
