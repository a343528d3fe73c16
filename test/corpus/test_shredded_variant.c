/*
 * parquet-testing shredded_variant/cases.json: every case with a Parquet
 * file is read through the record reader and the Variant assembler
 * (upq_variant_asm). Each row's Variant must equal the expected
 * .variant.bin (metadata followed by value) as a Variant value; a row
 * listed as null must be a null group. Cases with an error_message and the
 * -INVALID files must fail with an error, except those whose notes leave
 * it to the reader to fail or to read the value (shredded fields in
 * optional groups, which upq reads as other readers do): those must fail
 * or give the expected Variant. Prints the number of cases passed and
 * fails unless every case with a file was covered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/variant.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"
#include "util/variant_cmp.h"

#define ARENA (8u << 20)
#define MAX_ROWS 64

typedef struct tcase {
    int number;
    char parquet[128];
    char files[MAX_ROWS][128]; /* "" for a null row */
    int nfiles;
    int error;                 /* an error is expected */
    int either;                /* an error, or the expected Variant */
} tcase;

static uint8_t *arena;
static char dir[4096];

/* Where s occurs in p[0..n), or NULL. */
static const char *find(const char *p, size_t n, const char *s)
{
    size_t sl = strlen(s), i;
    for (i = 0; i + sl <= n; i++)
        if (memcmp(p + i, s, sl) == 0)
            return p + i;
    return NULL;
}

/* The string value after `"key" : ` inside obj[0..n), into out. */
static int json_str(const char *obj, size_t n, const char *key, char *out, size_t cap)
{
    char pat[64];
    const char *p, *e, *end = obj + n;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    for (p = obj; p < end; p++) {
        size_t pl = strlen(pat);
        if ((size_t)(end - p) < pl || memcmp(p, pat, pl) != 0)
            continue;
        p += pl;
        while (p < end && (*p == ' ' || *p == ':'))
            p++;
        if (p >= end || *p != '"')
            return 0;
        e = memchr(p + 1, '"', (size_t)(end - p - 1));
        if (!e || (size_t)(e - p - 1) >= cap)
            return 0;
        memcpy(out, p + 1, (size_t)(e - p - 1));
        out[e - p - 1] = 0;
        return 1;
    }
    return 0;
}

/* Splits cases.json into cases (its objects are flat but for one array). */
static int parse_cases(const char *text, tcase **out)
{
    int n = 0, cap = 256;
    tcase *cs = calloc((size_t)cap, sizeof *cs);
    const char *p = text;
    while ((p = strstr(p, "\"case_number\"")) != NULL) {
        const char *next = strstr(p + 1, "\"case_number\"");
        size_t len = next ? (size_t)(next - p) : strlen(p);
        tcase *c = &cs[n];
        const char *arr;
        memset(c, 0, sizeof *c);
        c->number = atoi(strchr(p, ':') + 1);
        if (json_str(p, len, "parquet_file", c->parquet, sizeof c->parquet)) {
            c->error = strstr(c->parquet, "INVALID") != NULL ||
                       find(p, len, "\"error_message\"") != NULL;
            c->either = c->error && find(p, len, "can choose to error, or read") != NULL;
            c->error &= !c->either;
            if (json_str(p, len, "variant_file", c->files[0], sizeof c->files[0])) {
                c->nfiles = 1;
            } else if ((arr = find(p, len, "\"variant_files\"")) != NULL) {
                const char *q = strchr(arr, '[') + 1, *qe = strchr(q, ']');
                while (q < qe && c->nfiles < MAX_ROWS) {
                    while (q < qe && (*q == ' ' || *q == ',' || *q == '\n'))
                        q++;
                    if (q >= qe)
                        break;
                    if (*q == '"') {
                        const char *e = memchr(q + 1, '"', (size_t)(qe - q));
                        snprintf(c->files[c->nfiles], sizeof c->files[0], "%.*s", (int)(e - q - 1), q + 1);
                        q = e + 1;
                    } else { /* null */
                        c->files[c->nfiles][0] = 0;
                        q += 4;
                    }
                    c->nfiles++;
                }
            }
            n++;
            if (n == cap) {
                cap *= 2;
                cs = realloc(cs, (size_t)cap * sizeof *cs);
            }
        }
        p += 13;
    }
    *out = cs;
    return n;
}

/* Bytes of the metadata at the start of p[0..n), or 0. */
static size_t meta_length(const uint8_t *p, size_t n)
{
    size_t os, cnt, last, i;
    if (n < 1)
        return 0;
    os = (size_t)(p[0] >> 6) + 1;
    if (n < 1 + os)
        return 0;
    for (cnt = 0, i = os; i > 0; i--)
        cnt = cnt << 8 | p[i];
    if (n < 1 + os + (cnt + 1) * os)
        return 0;
    for (last = 0, i = os; i > 0; i--)
        last = last << 8 | p[1 + os + cnt * os + i - 1];
    return 1 + os + (cnt + 1) * os + last;
}

typedef struct row_out {
    int null;              /* the group was null */
    uint8_t *meta, *value; /* malloc'd */
    size_t ml, vl;
} row_out;

/* Reads every row's Variant. Returns UPQ_OK, or the first error. */
static upq_status read_rows(const uint8_t *data, size_t len, row_out *rows, int *nrows)
{
    tu_mem_src src;
    upq_io io = {0};
    upq_reader r;
    upq_status st;
    const upq_schema *s;
    uint32_t vnode = UPQ_NONE, i, rg;
    upq_variant_asm va;
    upq_arena a;
    static uint8_t *vmem;
    *nrows = 0;
    if (!vmem)
        vmem = malloc(ARENA);
    tu_mem_src_init(&src, data, len);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = len;
    upq_reader_init(&r, &io, arena, ARENA, NULL);
    while ((st = upq_reader_open(&r)) == UPQ_AGAIN)
        ;
    if (st != UPQ_OK)
        return st;
    s = upq_reader_schema(&r);
    for (i = 1; i < s->num_nodes && vnode == UPQ_NONE; i++)
        if (upq_variant_is_column(s, i))
            vnode = i;
    if (vnode == UPQ_NONE)
        return UPQ_ERR_INVAL;
    upq_arena_init(&a, vmem, ARENA);
    st = upq_variant_asm_init(&va, s, vnode, &a, 1u << 20, 4096, 1u << 16, 4096);
    if (st != UPQ_OK)
        return st;
    for (rg = 0; rg < upq_reader_metadata(&r)->row_groups.n; rg++) {
        upq_rows rs;
        st = upq_rows_open(&rs, &r, rg, &vnode, 1, 0);
        if (st != UPQ_OK)
            return st;
        while ((st = upq_rows_next(&rs)) == UPQ_OK || st == UPQ_AGAIN) {
            upq_event ev;
            row_out *ro;
            int in = 0;
            if (st == UPQ_AGAIN)
                continue;
            if (*nrows >= MAX_ROWS) {
                st = UPQ_ERR_LIMIT;
                break;
            }
            ro = &rows[(*nrows)++];
            memset(ro, 0, sizeof *ro);
            while ((st = upq_rows_event(&rs, &ev)) == UPQ_OK || st == UPQ_AGAIN) {
                if (st == UPQ_AGAIN)
                    continue;
                if (!in && ev.type == UPQ_EV_NULL && ev.node == vnode) {
                    ro->null = 1;
                    continue;
                }
                if (!in && !(ev.type == UPQ_EV_BEGIN_STRUCT && ev.node == vnode))
                    continue;
                in = 1;
                st = upq_variant_asm_feed(&va, &ev);
                if (st == UPQ_DONE) {
                    const uint8_t *m, *v;
                    upq_variant_asm_result(&va, &m, &ro->ml, &v, &ro->vl);
                    ro->meta = malloc(ro->ml + 1);
                    ro->value = malloc(ro->vl + 1);
                    memcpy(ro->meta, m, ro->ml);
                    memcpy(ro->value, v, ro->vl);
                    in = 0;
                } else if (st != UPQ_OK) {
                    break;
                }
            }
            if (st != UPQ_DONE)
                break;
        }
        upq_rows_close(&rs);
        if (st != UPQ_DONE)
            return st;
    }
    return UPQ_OK;
}

static int run_case(const tcase *c)
{
    char path[8192], why[256];
    uint8_t *data;
    size_t len;
    row_out rows[MAX_ROWS];
    int nrows = 0, ok = 1, k;
    upq_status st;
    snprintf(path, sizeof path, "%s/%s", dir, c->parquet);
    if (tu_read_file(path, &data, &len) != 0)
        return TU_CHECK_MSG(0, "case %d: cannot read %s", c->number, path);
    st = read_rows(data, len, rows, &nrows);
    if (c->either && st < 0) {
        tu_note("case %d (%s): refused (%s), as the case allows", c->number, c->parquet,
                upq_strerror(st));
    } else if (c->error) {
        ok = TU_CHECK_MSG(st < 0, "case %d (%s): an error expected, got %d rows", c->number,
                          c->parquet, nrows);
    } else if (!TU_CHECK_MSG(st == UPQ_OK, "case %d (%s): %s (%d)", c->number, c->parquet,
                             upq_strerror(st), st)) {
        ok = 0;
    } else {
        ok = TU_CHECK_MSG(nrows == c->nfiles, "case %d: %d rows, %d expected", c->number, nrows,
                          c->nfiles);
        for (k = 0; ok && k < nrows; k++) {
            uint8_t *exp;
            size_t el, ml;
            int r;
            if (!c->files[k][0]) {
                ok = TU_CHECK_MSG(rows[k].null, "case %d row %d: null expected", c->number, k);
                continue;
            }
            if (!TU_CHECK_MSG(!rows[k].null, "case %d row %d: null, a Variant expected", c->number, k)) {
                ok = 0;
                break;
            }
            snprintf(path, sizeof path, "%s/%s", dir, c->files[k]);
            if (tu_read_file(path, &exp, &el) != 0) {
                ok = TU_CHECK_MSG(0, "cannot read %s", path);
                break;
            }
            ml = meta_length(exp, el);
            r = tu_variant_equal(rows[k].meta, rows[k].ml, rows[k].value, rows[k].vl, exp, ml,
                                 exp + ml, el - ml, why, sizeof why);
            if (r != 1) {
                char a[512], b[512];
                tu_variant_describe(rows[k].meta, rows[k].ml, rows[k].value, rows[k].vl, a, sizeof a);
                tu_variant_describe(exp, ml, exp + ml, el - ml, b, sizeof b);
                ok = TU_CHECK_MSG(0, "case %d row %d: %s\n  got  %s\n  want %s", c->number, k,
                                  r < 0 ? "invalid Variant" : why, a, b);
            }
            free(exp);
        }
    }
    for (k = 0; k < nrows; k++) {
        free(rows[k].meta);
        free(rows[k].value);
    }
    free(data);
    return ok;
}

int main(void)
{
    char path[8192];
    uint8_t *text;
    size_t len;
    tcase *cs;
    int n, i, passed = 0, with_file = 0, errors = 0;
    snprintf(dir, sizeof dir, "%s/shredded_variant", tu_corpus_dir());
    snprintf(path, sizeof path, "%s/cases.json", dir);
    tu_case("shredded_variant/cases.json");
    if (!TU_CHECK_MSG(tu_read_file(path, &text, &len) == 0, "cannot read %s", path))
        return tu_summary();
    text = realloc(text, len + 1);
    text[len] = 0;
    n = parse_cases((const char *)text, &cs);
    arena = malloc(ARENA);
    for (i = 0; i < n; i++) {
        tu_case("case %d %s", cs[i].number, cs[i].parquet);
        with_file++;
        errors += cs[i].error;
        if (run_case(&cs[i]))
            passed++;
    }
    tu_case("coverage");
    tu_note("%d of %d cases with a Parquet file passed (%d expect an error)", passed, with_file, errors);
    TU_CHECK_MSG(with_file >= 137, "only %d cases with a file found", with_file);
    TU_CHECK_INT(passed, with_file);
    free(cs);
    free(text);
    free(arena);
    return tu_summary();
}
