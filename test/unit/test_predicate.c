/*
 * Predicates (uparquet/predicate.h): checking, three-valued evaluation, and
 * scans with pruning over files the writer makes here, whose matching rows
 * the test computes on its own from the data it generated (plain C
 * comparisons with SQL's NULL rules and DuckDB's NaN rule), so the library
 * is never its own oracle.
 *
 * Each file is scanned with every predicate, over whole reads and through
 * flaky I/O (short reads, "again"); the rows must be exactly the expected
 * ones in order, and pruning must have happened where the data allows it
 * (a narrow id range reads one page, a value outside every bound opens no
 * page, a bloom filter or else the dictionary rules out a value inside the
 * bounds).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"
#include "util/flaky_io.h"
#include "writer_util.h"
#include "format/meta_desc.h"

#define ROWS 3000
#define RG_ROWS 1000
#define PAGE_LEVELS 100

enum { C_ID = 0, C_X, C_S, C_U, NCOLS };

/* ---- the data ------------------------------------------------------------------ */

static int x_null(int i) { return i % 37 == 0; }
static int x_nan(int i) { return !x_null(i) && i % 41 == 0; }
static double x_val(int i)
{
    if (i % 43 == 0)
        return -0.0;
    return (double)(i % 200) - 100.0 + 0.25;
}
static int s_null(int i) { return i % 5 == 0; }
static void s_val(int i, char out[8]) { snprintf(out, 8, "k%03d", (i * 7) % 120); }
static int u_null(int i) { return i % 9 == 0; }
static uint32_t u_val(int i) { return (uint32_t)i * 2654435761u; }

static upq_schema_element elems[NCOLS + 1];
static uint32_t nelems;

static void build_schema(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    upq_sb_init(&b, elems, NCOLS + 1, "m");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_column(&b, "x", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_lt_int(&lt, 32, 0);
    upq_sb_column(&b, "u", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    TU_CHECK_STATUS(upq_sb_finish(&b, &nelems), UPQ_OK);
}

/* Writes the file into s; bloom: a filter on s. */
static int write_file(sink_buf *s, int bloom)
{
    upq_writer_opts o;
    upq_column_opts co[NCOLS];
    upq_sink sink = sink_of(s, 1);
    upq_writer w;
    size_t need = 0;
    uint8_t *arena;
    upq_status st;
    int i, c;
    memset(&o, 0, sizeof o);
    for (c = 0; c < NCOLS; c++) {
        memset(&co[c], 0, sizeof co[c]);
        co[c].encoding = -1;
        co[c].dictionary = -1;
    }
    co[C_S].bloom = (int8_t)bloom;
    o.columns = co;
    o.ncolumns = NCOLS;
    o.page_levels = PAGE_LEVELS;
    o.row_group_rows = RG_ROWS;
    if (!TU_CHECK_STATUS(upq_writer_workspace_size(elems, nelems, &o, 100, &need), UPQ_OK))
        return -1;
    arena = (uint8_t *)malloc(need);
    st = upq_writer_init(&w, &sink, elems, nelems, arena, need, &o);
    if (!TU_CHECK_STATUS(st, UPQ_OK)) {
        free(arena);
        return -1;
    }
    for (i = 0; i < ROWS && st == UPQ_OK; i++) {
        int64_t id = i;
        char sv[8];
        upq_bytes b;
        int32_t u = (int32_t)u_val(i);
        WU_RETRY(st, upq_writer_set(&w, C_ID, &id));
        if (x_null(i)) {
            WU_RETRY(st, upq_writer_set_null(&w, C_X));
        } else {
            double x = x_nan(i) ? NAN : x_val(i);
            WU_RETRY(st, upq_writer_set(&w, C_X, &x));
        }
        if (s_null(i)) {
            WU_RETRY(st, upq_writer_set_null(&w, C_S));
        } else {
            s_val(i, sv);
            b.ptr = (const uint8_t *)sv;
            b.len = 4;
            WU_RETRY(st, upq_writer_set(&w, C_S, &b));
        }
        if (u_null(i))
            WU_RETRY(st, upq_writer_set_null(&w, C_U));
        else
            WU_RETRY(st, upq_writer_set(&w, C_U, &u));
        WU_RETRY(st, upq_writer_end_row(&w));
    }
    if (st == UPQ_OK)
        WU_RETRY(st, upq_writer_close(&w));
    free(arena);
    return TU_CHECK_STATUS(st, UPQ_OK) ? 0 : -1;
}

/* ---- the truth, computed here ------------------------------------------------------ */

enum { F = 0, T = 1, N = 2 };
static int tand(int a, int b) { return a == F || b == F ? F : a == N || b == N ? N : T; }
static int tor(int a, int b) { return a == T || b == T ? T : a == N || b == N ? N : F; }
static int tnot(int a) { return a == N ? N : !a; }

/* x <op> c under DuckDB's rules: NaN = NaN, NaN above all; -0 = +0 */
static int xcmp(int i, double c, int c_nan)
{
    double x;
    if (x_nan(i))
        return c_nan ? 0 : 1;
    if (c_nan)
        return -1;
    x = x_val(i);
    return x < c ? -1 : x > c;
}
#define XC(i, op, c) (x_null(i) ? N : (xcmp((i), (c), 0) op 0))
#define XNAN(i, op) (x_null(i) ? N : (xcmp((i), 0, 1) op 0))
static int s_is(int i, const char *v)
{
    char sv[8];
    if (s_null(i))
        return N;
    s_val(i, sv);
    return strcmp(sv, v) == 0;
}

/* ---- predicates ------------------------------------------------------------------------ */

static upq_value V[16];
static upq_pred_node nodes[16];

typedef struct query {
    const char *name;
    int (*truth)(int i);
    uint32_t n;
    uint64_t max_selected; /* per file: rows the pruning may keep (UINT64_MAX: any) */
    int bloom_prunes;      /* with the filter on s, it must prune every row group */
} query;

static upq_pred_node leaf(uint8_t op, uint32_t col, uint32_t n, const upq_value *v)
{
    upq_pred_node nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    nd.column = col;
    nd.n = n;
    nd.values = v;
    return nd;
}
static upq_pred_node opnode(uint8_t op)
{
    return leaf(op, 0, 0, NULL);
}
static upq_value vi64(int64_t x) { upq_value v; memset(&v, 0, sizeof v); v.i64 = x; return v; }
static upq_value vdbl(double x) { upq_value v; memset(&v, 0, sizeof v); v.d = x; return v; }
static upq_value vu32(uint32_t x) { upq_value v; memset(&v, 0, sizeof v); v.i32 = (int32_t)x; return v; }
static upq_value vstr(const char *s)
{
    upq_value v;
    memset(&v, 0, sizeof v);
    v.bytes.ptr = (const uint8_t *)s;
    v.bytes.len = (uint32_t)strlen(s);
    return v;
}

static int t_q0(int i) { return i >= 1234 && i < 1240; }
static int t_q1(int i) { return XC(i, >, 50.0); }
static int t_q2(int i) { return tnot(XC(i, <=, 0.0)); }
static int t_q3(int i) { return XC(i, ==, 0.0); }
static int t_q4(int i)
{
    return tor(tor(s_is(i, "k001"), s_is(i, "k050")), u_null(i) ? N : u_val(i) > 3000000000u);
}
static int t_q5(int i) { return tand(s_null(i) ? T : F, tnot(i < 2900)); }
static int t_q6(int i) { return tand(u_null(i) ? N : u_val(i) != 5, XNAN(i, ==)); }
static int t_q7(int i) { return tnot(tnot(s_is(i, "k007"))); }
static int t_q8(int i) { return i == 2500; }
static int t_q9(int i) { return s_is(i, "k0015"); }
static int t_q10(int i) { return tnot(tor(XC(i, <, 90.0), x_null(i) ? T : F)); }
static int t_q11(int i) { return (i >= 1010 && i < 1015) || (i >= 1700 && i < 1703); }

/* Fills nodes for query q; returns the node count. */
static uint32_t make_query(int q)
{
    uint32_t n = 0;
    switch (q) {
    case 0: /* id >= 1234 and id < 1240 */
        V[0] = vi64(1234);
        V[1] = vi64(1240);
        nodes[n++] = leaf(UPQ_PRED_GE, C_ID, 1, &V[0]);
        nodes[n++] = leaf(UPQ_PRED_LT, C_ID, 1, &V[1]);
        nodes[n++] = opnode(UPQ_PRED_AND);
        break;
    case 1: /* x > 50 */
        V[0] = vdbl(50.0);
        nodes[n++] = leaf(UPQ_PRED_GT, C_X, 1, &V[0]);
        break;
    case 2: /* not (x <= 0) */
        V[0] = vdbl(0.0);
        nodes[n++] = leaf(UPQ_PRED_LE, C_X, 1, &V[0]);
        nodes[n++] = opnode(UPQ_PRED_NOT);
        break;
    case 3: /* x = 0.0 (the -0.0 rows) */
        V[0] = vdbl(0.0);
        nodes[n++] = leaf(UPQ_PRED_EQ, C_X, 1, &V[0]);
        break;
    case 4: /* s in ("k001", "k050") or u > 3000000000 */
        V[0] = vstr("k001");
        V[1] = vstr("k050");
        V[2] = vu32(3000000000u);
        nodes[n++] = leaf(UPQ_PRED_IN, C_S, 2, &V[0]);
        nodes[n++] = leaf(UPQ_PRED_GT, C_U, 1, &V[2]);
        nodes[n++] = opnode(UPQ_PRED_OR);
        break;
    case 5: /* s is null and not (id < 2900) */
        V[0] = vi64(2900);
        nodes[n++] = leaf(UPQ_PRED_IS_NULL, C_S, 0, NULL);
        nodes[n++] = leaf(UPQ_PRED_LT, C_ID, 1, &V[0]);
        nodes[n++] = opnode(UPQ_PRED_NOT);
        nodes[n++] = opnode(UPQ_PRED_AND);
        break;
    case 6: /* u != 5 and x = nan */
        V[0] = vu32(5);
        V[1] = vdbl(NAN);
        nodes[n++] = leaf(UPQ_PRED_NE, C_U, 1, &V[0]);
        nodes[n++] = leaf(UPQ_PRED_EQ, C_X, 1, &V[1]);
        nodes[n++] = opnode(UPQ_PRED_AND);
        break;
    case 7: /* not (s not in ("k007")) */
        V[0] = vstr("k007");
        nodes[n++] = leaf(UPQ_PRED_NOT_IN, C_S, 1, &V[0]);
        nodes[n++] = opnode(UPQ_PRED_NOT);
        break;
    case 8: /* id = 2500 */
        V[0] = vi64(2500);
        nodes[n++] = leaf(UPQ_PRED_EQ, C_ID, 1, &V[0]);
        break;
    case 9: /* s = "k0015": inside every chunk's bounds, in no chunk */
        V[0] = vstr("k0015");
        nodes[n++] = leaf(UPQ_PRED_EQ, C_S, 1, &V[0]);
        break;
    case 11: /* (id >= 1010 and id < 1015) or (id >= 1700 and id < 1703): two ranges of
              * one row group, far enough apart to reopen the row readers */
        V[0] = vi64(1010);
        V[1] = vi64(1015);
        V[2] = vi64(1700);
        V[3] = vi64(1703);
        nodes[n++] = leaf(UPQ_PRED_GE, C_ID, 1, &V[0]);
        nodes[n++] = leaf(UPQ_PRED_LT, C_ID, 1, &V[1]);
        nodes[n++] = opnode(UPQ_PRED_AND);
        nodes[n++] = leaf(UPQ_PRED_GE, C_ID, 1, &V[2]);
        nodes[n++] = leaf(UPQ_PRED_LT, C_ID, 1, &V[3]);
        nodes[n++] = opnode(UPQ_PRED_AND);
        nodes[n++] = opnode(UPQ_PRED_OR);
        break;
    default: /* not (x < 90 or x is null): NaN rows and x >= 90 */
        V[0] = vdbl(90.0);
        nodes[n++] = leaf(UPQ_PRED_LT, C_X, 1, &V[0]);
        nodes[n++] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
        nodes[n++] = opnode(UPQ_PRED_OR);
        nodes[n++] = opnode(UPQ_PRED_NOT);
        break;
    }
    return n;
}

static const query queries[] = {
    {"id >= 1234 and id < 1240", t_q0, 0, PAGE_LEVELS, 0},
    {"x > 50", t_q1, 0, UINT64_MAX, 0},
    {"not (x <= 0)", t_q2, 0, UINT64_MAX, 0},
    {"x = 0.0", t_q3, 0, UINT64_MAX, 0},
    {"s in (k001, k050) or u > 3e9", t_q4, 0, UINT64_MAX, 0},
    {"s is null and not (id < 2900)", t_q5, 0, PAGE_LEVELS, 0},
    {"u != 5 and x = nan", t_q6, 0, UINT64_MAX, 0},
    {"not (s not in (k007))", t_q7, 0, UINT64_MAX, 0},
    {"id = 2500", t_q8, 0, PAGE_LEVELS, 0},
    {"s = k0015", t_q9, 0, UINT64_MAX, 1},
    {"not (x < 90 or x is null)", t_q10, 0, UINT64_MAX, 0},
    {"two ranges of one row group", t_q11, 0, 2 * PAGE_LEVELS, 0},
};
#define NQ (sizeof queries / sizeof queries[0])

static int g_damaged; /* the page index does not load: no page pruning to expect */
static int g_no_pages; /* scans without page indexes (UPQ_SCAN_NO_PAGES) */

/* ---- scanning ------------------------------------------------------------------------------ */

typedef struct scan_result {
    uint64_t *ids;
    size_t n;
    uint64_t selected;
    unsigned bloom_pruned;
    unsigned dict_pruned;
    unsigned paged;        /* leaves pruned through a page index */
    unsigned reopens;
    unsigned rgs;
    unsigned rejected;     /* page indexes not used */
    const char *rejected_what;
    upq_status st;
} scan_result;

/* The whole file in one scan (upq_scan_begin), row groups on demand when
 * `lazy`, the ids fetched into structs when `fetch` (else by events). */
static void run_file_scan(upq_reader *r, const upq_pred *p, int lazy, int fetch, scan_result *out)
{
    upq_scan_opts o;
    upq_scan sc;
    uint32_t id = C_ID;
    upq_status st;
    memset(&o, 0, sizeof o);
    o.where = p;
    o.columns = &id;
    o.num_columns = 1;
    o.batch = lazy ? 7 : 0;
    o.flags = g_no_pages ? UPQ_SCAN_NO_PAGES : 0;
    st = upq_scan_begin(&sc, r, &o);
    if (st != UPQ_OK) {
        out->st = st;
        return;
    }
#if UPQ_WITH_FLAT_ROWS
    if (fetch) {
        struct { int64_t id; uint8_t null; } rows[5];
        upq_row_binding b = {C_ID, 0, (uint32_t)offsetof(struct { int64_t id; uint8_t null; }, null)};
        TU_CHECK_STATUS(upq_scan_bind(&sc, &b, 1), UPQ_OK);
        for (;;) {
            size_t got = 0, k;
            WU_RETRY(st, upq_scan_fetch(&sc, rows, sizeof rows[0], 1 + (out->n % 5), &got));
            if (st != UPQ_OK)
                break;
            for (k = 0; k < got && out->n < ROWS; k++)
                out->ids[out->n++] = (uint64_t)rows[k].id;
            /* the last row given is the last one filled */
            if ((uint64_t)rows[got - 1].id != upq_scan_file_row(&sc))
                out->st = UPQ_ERR_STATE;
        }
    } else
#endif
    {
        (void)fetch;
        for (;;) {
            upq_event ev;
            int64_t id = -1;
            WU_RETRY(st, upq_scan_next(&sc));
            if (st != UPQ_OK)
                break;
            WU_RETRY(st, upq_rows_event(upq_scan_rows(&sc), &ev));
            if (st == UPQ_OK && ev.type == UPQ_EV_VALUE)
                memcpy(&id, ev.value, sizeof id);
            if (out->n < ROWS)
                out->ids[out->n++] = (uint64_t)id;
            if ((uint64_t)id != upq_scan_file_row(&sc))
                out->st = UPQ_ERR_STATE; /* the file row says another row */
        }
    }
    out->rgs = sc.stats.row_groups;
    out->selected = sc.stats.rows_selected;
    out->bloom_pruned = sc.stats.pruned_bloom;
    out->dict_pruned = sc.stats.pruned_dict;
    out->paged = sc.stats.leaves_paged;
    out->reopens = sc.stats.reopens;
    out->rejected = sc.stats.index_rejected;
    out->rejected_what = sc.stats.index_what;
    if (st != UPQ_DONE && out->st == UPQ_OK)
        out->st = st;
    upq_scan_close(&sc);
}

/* Runs p over the file, giving only `id` (or every column: all), through
 * read_at `io`: one scan per row group (upq_scan_open), or (mode 1) one scan
 * of the whole file, (mode 2) the same with row groups on demand and the
 * ids fetched into structs. */
static void run_scan(const sink_buf *file, const upq_pred *p, const tu_flaky_cfg *cfg, int all,
                     int mode, scan_result *out)
{
    tu_mem_src src;
    tu_flaky fl;
    upq_io io;
    upq_reader r;
    upq_reader_opts ro;
    size_t alen = 1u << 20;
    uint8_t *arena = (uint8_t *)malloc(alen);
    uint32_t rg, idnode;
    uint64_t base = 0;
    upq_status st;
    memset(out, 0, sizeof *out);
    out->ids = (uint64_t *)malloc(ROWS * sizeof(uint64_t));
    tu_mem_src_init(&src, file->p, file->n);
    tu_flaky_init(&fl, cfg, tu_mem_read_at, &src, 7);
    io.ctx = &fl;
    io.read_at = tu_flaky_read_at;
    io.lend = NULL;
    io.size = file->n;
    memset(&ro, 0, sizeof ro);
    ro.row_groups = mode == 2 ? UPQ_ROW_GROUPS_LAZY : UPQ_ROW_GROUPS_EAGER;
    upq_reader_init(&r, &io, arena, alen, &ro);
    WU_RETRY(st, upq_reader_open(&r));
    out->st = st;
    if (st != UPQ_OK) {
        free(arena);
        return;
    }
    if (mode) {
        run_file_scan(&r, p, mode == 2, mode == 2, out);
        TU_CHECK_UINT(upq_arena_remaining(&r.arena) > 0, 1);
        free(arena);
        return;
    }
    idnode = r.schema.columns[C_ID].node;
    for (rg = 0; rg < r.meta.row_groups.n; rg++) {
        upq_scan sc;
        st = upq_scan_open(&sc, &r, p, rg, all ? NULL : &idnode, all ? 0 : 1, 0, 0, UINT64_MAX,
                           0, 0);
        if (st != UPQ_OK) {
            out->st = st;
            break;
        }
        for (;;) {
            upq_event ev;
            int64_t id = -1;
            WU_RETRY(st, upq_scan_next(&sc));
            if (st != UPQ_OK)
                break;
            /* the row's events: the id is the first field */
            for (;;) {
                WU_RETRY(st, upq_rows_event(upq_scan_rows(&sc), &ev));
                if (st != UPQ_OK)
                    break;
                if (ev.type == UPQ_EV_VALUE && ev.column == C_ID)
                    memcpy(&id, ev.value, sizeof id);
            }
            if (st != UPQ_DONE)
                break;
            if (out->n < ROWS)
                out->ids[out->n++] = (uint64_t)id;
            if ((uint64_t)id != base + upq_scan_row(&sc))
                out->st = UPQ_ERR_STATE; /* the row number says another row */
        }
        base += (uint64_t)r.meta.row_groups.v[rg].num_rows;
        out->rgs++;
        out->selected += sc.stats.rows_selected;
        out->bloom_pruned += sc.stats.pruned_bloom;
        out->dict_pruned += sc.stats.pruned_dict;
        out->paged += sc.stats.leaves_paged;
        out->reopens += sc.stats.reopens;
        upq_scan_close(&sc);
        if (st != UPQ_DONE) {
            out->st = st;
            break;
        }
    }
    TU_CHECK_UINT(upq_arena_remaining(&r.arena) > 0, 1);
    free(arena);
}


static void check_file(const sink_buf *file, int bloom)
{
    size_t q, c;
    for (q = 0; q < NQ; q++) {
        upq_pred p;
        const char *what = "";
        uint32_t bad = 0;
        size_t i, nexp = 0;
        uint64_t *exp = (uint64_t *)malloc(ROWS * sizeof(uint64_t));
        for (i = 0; i < ROWS; i++)
            if (queries[q].truth((int)i) == T)
                exp[nexp++] = i;
        p.nodes = nodes;
        p.n = make_query((int)q);
        p.depth = 0;
        tu_case("%s%s", bloom ? "bloom: " : "", queries[q].name);
        {
            /* build a schema to check against: the file's, through a reader */
            rfile f;
            if (!TU_CHECK_STATUS(rfile_open(&f, file->p, file->n), UPQ_OK)) {
                free(exp);
                continue;
            }
            TU_CHECK_STATUS(upq_pred_check(&f.r.schema, &p, &what, &bad), UPQ_OK);
            rfile_close(&f);
        }
        for (c = 0; c < tu_flaky_ncfgs; c++) {
            scan_result res;
            if (c > 0 && !tu_repeat_keep())
                continue;
            run_scan(file, &p, &tu_flaky_cfgs[c], c % 2, (int)(c % 3), &res);
            TU_CHECK_MSG(res.st == UPQ_OK, "%s: %s", tu_flaky_cfgs[c].name, upq_strerror(res.st));
            TU_CHECK_MSG(res.n == nexp, "%s: %zu rows, expected %zu", tu_flaky_cfgs[c].name, res.n,
                         nexp);
            for (i = 0; i < res.n && i < nexp; i++)
                if (!TU_CHECK_MSG(res.ids[i] == exp[i], "%s: row %zu is id %llu, expected %llu",
                                  tu_flaky_cfgs[c].name, i, (unsigned long long)res.ids[i],
                                  (unsigned long long)exp[i]))
                    break;
            if (queries[q].truth == t_q11 && !g_damaged)
                TU_CHECK_UINT(res.reopens, 1); /* the second range by its OffsetIndex */
            /* a damaged index is never used for pruning (a lie is told of one
             * column: the others' indexes still are) */
            if (g_damaged == 1)
                TU_CHECK_UINT(res.paged, 0);
            if (queries[q].max_selected != UINT64_MAX && !g_damaged)
                TU_CHECK_MSG(res.selected <= queries[q].max_selected,
                             "pruning kept %llu rows, at most %llu expected",
                             (unsigned long long)res.selected,
                             (unsigned long long)queries[q].max_selected);
            if (bloom && queries[q].bloom_prunes)
                TU_CHECK_UINT(res.bloom_pruned, res.rgs); /* every row group */
            /* without a filter, the dictionary of s (every page uses it) rules it out */
            if (!bloom && queries[q].bloom_prunes)
                TU_CHECK_UINT(res.dict_pruned, res.rgs);
            free(res.ids);
        }
        free(exp);
    }
}

/* ---- evaluation without a file ---------------------------------------------------------------- */

static void test_eval(const upq_schema *s)
{
    upq_pred p;
    const char *what = "";
    uint32_t bad = 0;
    uint8_t res[4], stack[4];
    upq_value lit = vdbl(NAN), zero = vdbl(0.0), big = vu32(4000000000u);
    double x;
    int32_t u;

    tu_case("eval: NaN, zeros, unsigned, NULL");
    nodes[0] = leaf(UPQ_PRED_EQ, C_X, 1, &lit);
    p.nodes = nodes;
    p.n = 1;
    TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_OK);
    x = NAN;
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &x), UPQ_PRED_TRUE);
    x = 1e308;
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &x), UPQ_PRED_FALSE);
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, NULL), UPQ_PRED_NULL);
    nodes[0] = leaf(UPQ_PRED_LT, C_X, 1, &lit); /* everything but NaN is below NaN */
    x = INFINITY;
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &x), UPQ_PRED_TRUE);
    nodes[0] = leaf(UPQ_PRED_EQ, C_X, 1, &zero);
    x = -0.0;
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &x), UPQ_PRED_TRUE);
    nodes[0] = leaf(UPQ_PRED_GT, C_U, 1, &big);
    u = (int32_t)4000000001u; /* negative as int32_t, above 4e9 as unsigned */
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &u), UPQ_PRED_TRUE);
    u = 5;
    TU_CHECK_INT(upq_pred_eval_leaf(s, &p, 0, &u), UPQ_PRED_FALSE);

    tu_case("eval: three-valued AND / OR / NOT");
    nodes[0] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
    nodes[1] = leaf(UPQ_PRED_IS_NULL, C_S, 0, NULL);
    {
        static const uint8_t ops[3] = {UPQ_PRED_AND, UPQ_PRED_OR, 0};
        int a, b, o;
        for (o = 0; o < 2; o++) {
            nodes[2] = opnode(ops[o]);
            nodes[3] = opnode(UPQ_PRED_NOT);
            p.n = 4;
            TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_OK);
            for (a = 0; a < 3; a++)
                for (b = 0; b < 3; b++) {
                    int want = tnot(o == 0 ? tand(a, b) : tor(a, b));
                    res[0] = (uint8_t)a;
                    res[1] = (uint8_t)b;
                    TU_CHECK_MSG(upq_pred_combine(&p, res, stack) == want, "op %d: %d, %d", o, a, b);
                }
        }
    }

    tu_case("check: refusals");
    p.n = 2;
    nodes[0] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
    nodes[1] = opnode(UPQ_PRED_AND);
    TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_ERR_INVAL);
    TU_CHECK_UINT(bad, 1);
    p.n = 2;
    nodes[1] = leaf(UPQ_PRED_IS_NULL, C_S, 0, NULL);
    TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_ERR_INVAL); /* two results */
    p.n = 1;
    nodes[0] = leaf(UPQ_PRED_EQ, 99, 1, &zero);
    TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_ERR_INVAL);
    nodes[0] = leaf(UPQ_PRED_LT, C_X, 2, &zero);
    TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_ERR_INVAL);
    {
        /* a chain deeper than the stack allows */
        static upq_pred_node deep[2 * UPQ_PRED_MAX_DEPTH + 2];
        uint32_t k;
        for (k = 0; k <= UPQ_PRED_MAX_DEPTH; k++)
            deep[k] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
        for (; k < 2 * UPQ_PRED_MAX_DEPTH + 1; k++)
            deep[k] = opnode(UPQ_PRED_OR);
        p.nodes = deep;
        p.n = 2 * UPQ_PRED_MAX_DEPTH + 1;
        TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_ERR_INVAL);
        p.n = 2 * UPQ_PRED_MAX_DEPTH - 1; /* one fewer leaf and OR: fits exactly */
        for (k = 0; k < UPQ_PRED_MAX_DEPTH; k++)
            deep[k] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
        for (; k < 2 * UPQ_PRED_MAX_DEPTH - 1; k++)
            deep[k] = opnode(UPQ_PRED_OR);
        TU_CHECK_STATUS(upq_pred_check(s, &p, &what, &bad), UPQ_OK);
        TU_CHECK_UINT(p.depth, UPQ_PRED_MAX_DEPTH);
    }
}

/* A copy of `src` whose page index modules are damaged: mode 0 fills every
 * ColumnIndex with 0xFF (it no longer decodes), mode 1 every OffsetIndex,
 * mode 2 zeroes every ColumnIndex (a stop byte: an empty struct that fails
 * the checks). Pruning falls back to the chunks; the rows stay exact. */
static int damage(const sink_buf *src, sink_buf *dst, int mode)
{
    rfile f;
    uint32_t rg, c;
    sink_copy(dst, src, SINK_WHOLE, 1);
    if (rfile_open(&f, src->p, src->n) != UPQ_OK)
        return -1;
    for (rg = 0; rg < f.r.meta.row_groups.n; rg++) {
        const upq_row_group *g = &f.r.meta.row_groups.v[rg];
        for (c = 0; c < g->columns.n; c++) {
            const upq_column_chunk *ch = &g->columns.v[c];
            int64_t off = mode == 1 ? ch->offset_index_offset : ch->column_index_offset;
            int32_t len = mode == 1 ? ch->offset_index_length : ch->column_index_length;
            if (off <= 0 || len <= 0 || (uint64_t)off + (uint64_t)len > dst->n)
                continue;
            memset(dst->p + off, mode == 2 ? 0 : 0xFF, (size_t)len);
        }
    }
    rfile_close(&f);
    return 0;
}

/* ---- page indexes that contradict themselves -------------------------------------------- */

/* What a lie does to the ColumnIndex of one column in every row group. */
enum {
    LIE_NULL_PAGE_BOUNDS = 0, /* a page with values marked null, its min/max kept */
    LIE_NULL_PAGE_FEW,        /* ... min/max emptied, but its null count below its rows */
    LIE_WIDTH,                /* INT64 min/max of 4 bytes */
    LIE_NULLS_OVER,           /* a null count above the page's rows */
    LIE_NULLS_SUM,            /* null counts that do not add up to the chunk's */
    LIE_ORDER,                /* ascending bounds said to be descending */
    LIE_MIN_MAX,              /* a page's min above its max */
    LIE_COUNT
};
static const char *const lie_names[LIE_COUNT] = {
    "a null page with min/max", "a null page with fewer nulls than rows",
    "INT64 min/max of 4 bytes", "a null count above the page's rows",
    "null counts that do not add up to the chunk's", "ascending bounds said to be descending",
    "a page's min above its max"};
/* the column each lie is told about, and the check that must catch it */
static const uint32_t lie_col[LIE_COUNT] = {C_X, C_X, C_ID, C_X, C_X, C_ID, C_X};
static const char *const lie_what[LIE_COUNT] = {
    "a null page with min/max", "a null page with fewer nulls than rows",
    "min/max of the wrong width", "null count outside its rows",
    "null counts disagree with the chunk", "boundary order", "min above its max"};

/* ci with lie `kind` told on its page k (lists copied into `scratch`). */
static int tell_lie(upq_column_index *ci, int kind, uint32_t k, uint8_t *scratch)
{
    uint32_t n = ci->null_pages.n;
    if (k >= n || !UPQ_ISSET(*ci, UPQ_COLUMN_INDEX_NULL_COUNTS))
        return -1;
    memcpy(scratch, ci->null_pages.v, n);
    ci->null_pages.v = scratch;
    scratch += (n + 7) & ~7u;
    memcpy(scratch, ci->null_counts.v, n * sizeof(int64_t));
    ci->null_counts.v = (int64_t *)(void *)scratch;
    scratch += n * sizeof(int64_t);
    memcpy(scratch, ci->min_values.v, n * sizeof(upq_bytes));
    ci->min_values.v = (upq_bytes *)(void *)scratch;
    scratch += n * sizeof(upq_bytes);
    memcpy(scratch, ci->max_values.v, n * sizeof(upq_bytes));
    ci->max_values.v = (upq_bytes *)(void *)scratch;
    switch (kind) {
    case LIE_NULL_PAGE_BOUNDS: ((uint8_t *)ci->null_pages.v)[k] = 1; break;
    case LIE_NULL_PAGE_FEW:
        ((uint8_t *)ci->null_pages.v)[k] = 1;
        ci->min_values.v[k].len = ci->max_values.v[k].len = 0;
        break;
    case LIE_WIDTH:
        ci->min_values.v[k].len = 4;
        ci->max_values.v[k].len = 4;
        break;
    case LIE_NULLS_OVER: ci->null_counts.v[k] = 1000000; break;
    case LIE_NULLS_SUM: ci->null_counts.v[k] += ci->null_counts.v[k] ? -1 : 1; break;
    case LIE_ORDER:
        if (ci->boundary_order != UPQ_BOUNDARY_ASCENDING)
            return -1;
        ci->boundary_order = UPQ_BOUNDARY_DESCENDING;
        break;
    default: {
        upq_bytes t = ci->min_values.v[k];
        ci->min_values.v[k] = ci->max_values.v[k];
        ci->max_values.v[k] = t;
        break;
    }
    }
    return 0;
}

/* A copy of `src` whose ColumnIndex of the lie's column, in every row group,
 * is re-encoded with the lie (told on page 1) after the data: the footer
 * points at it. Every other byte stays. */
static int lie_file(const sink_buf *src, sink_buf *dst, int kind)
{
    rfile f;
    uint32_t rg, col = lie_col[kind];
    uint8_t *mod = (uint8_t *)malloc(1u << 20), *scratch = (uint8_t *)malloc(1u << 16);
    size_t mlen = 0, flen = 0, cap = 1u << 20;
    uint8_t *foot = (uint8_t *)malloc(cap);
    int rc = -1;
    if (rfile_open(&f, src->p, src->n) != UPQ_OK)
        goto out;
    for (rg = 0; rg < f.r.meta.row_groups.n; rg++) {
        upq_column_chunk *ch = (upq_column_chunk *)&f.r.meta.row_groups.v[rg].columns.v[col];
        upq_page_index pi;
        upq_column_index ci;
        size_t len = 0;
        upq_status st;
        if (upq_page_index_open(&pi, &f.r, rg, col, UPQ_PAGE_INDEX_COLUMN) != UPQ_OK)
            goto out;
        WU_RETRY(st, upq_page_index_load(&pi));
        if (st != UPQ_OK)
            goto out;
        memcpy(&ci, upq_page_index_columns(&pi), sizeof ci);
        if (tell_lie(&ci, kind, 1, scratch) != 0 ||
            upq_thrift_encode(&upq_column_index_desc, &ci, mod + mlen, (1u << 20) - mlen, &len) != UPQ_OK)
            goto out;
        ch->column_index_offset = (int64_t)(f.r.footer_start + mlen);
        ch->column_index_length = (int32_t)len;
        mlen += len;
        upq_page_index_close(&pi);
    }
    if (upq_thrift_encode(&upq_file_metadata_desc, &f.r.meta, foot, cap, &flen) != UPQ_OK)
        goto out;
    sink_init(dst, SINK_WHOLE, 1);
    sink_grow(dst, f.r.footer_start + mlen + flen + 8);
    memcpy(dst->p, src->p, f.r.footer_start);
    memcpy(dst->p + f.r.footer_start, mod, mlen);
    memcpy(dst->p + f.r.footer_start + mlen, foot, flen);
    dst->n = f.r.footer_start + mlen + flen + 8;
    dst->p[dst->n - 8] = (uint8_t)flen;
    dst->p[dst->n - 7] = (uint8_t)(flen >> 8);
    dst->p[dst->n - 6] = (uint8_t)(flen >> 16);
    dst->p[dst->n - 5] = (uint8_t)(flen >> 24);
    memcpy(dst->p + dst->n - 4, "PAR1", 4);
    rc = 0;
out:
    if (f.arena)
        rfile_close(&f);
    free(mod);
    free(scratch);
    free(foot);
    return rc;
}

/* Each lie: every query's rows stay exact (check_file), the scan says it
 * left that index out and why, and gives the rows the scan without page
 * indexes gives. */
static void test_lies(const sink_buf *plain)
{
    int kind;
    for (kind = 0; kind < LIE_COUNT; kind++) {
        sink_buf bad;
        tu_case("page index: %s", lie_names[kind]);
        if (!TU_CHECK_MSG(lie_file(plain, &bad, kind) == 0, "could not write the lie"))
            continue;
        {
            /* a condition on the lying column, with and without page indexes */
            upq_pred p;
            scan_result with, without;
            uint32_t n = 0;
            const char *what = "";
            uint32_t badn = 0;
            rfile f;
            V[0] = lie_col[kind] == C_ID ? vi64(1234) : vdbl(10.0);
            nodes[n++] = leaf(lie_col[kind] == C_ID ? UPQ_PRED_GE : UPQ_PRED_LT, lie_col[kind], 1, &V[0]);
            nodes[n++] = leaf(UPQ_PRED_IS_NULL, C_X, 0, NULL);
            nodes[n++] = opnode(UPQ_PRED_OR);
            p.nodes = nodes;
            p.n = n;
            p.depth = 0;
            if (TU_CHECK_STATUS(rfile_open(&f, bad.p, bad.n), UPQ_OK))
                TU_CHECK_STATUS(upq_pred_check(&f.r.schema, &p, &what, &badn), UPQ_OK);
            rfile_close(&f);
            run_scan(&bad, &p, &tu_flaky_cfgs[0], 0, 1, &with);
            g_no_pages = 1;
            run_scan(&bad, &p, &tu_flaky_cfgs[0], 0, 1, &without);
            g_no_pages = 0;
            TU_CHECK_STATUS(with.st, UPQ_OK);
            TU_CHECK_STATUS(without.st, UPQ_OK);
            TU_CHECK_MSG(with.n == without.n && memcmp(with.ids, without.ids, with.n * sizeof *with.ids) == 0,
                         "%zu rows with the page index, %zu without", with.n, without.n);
            TU_CHECK_MSG(with.rejected > 0 && with.rejected_what &&
                             strstr(with.rejected_what, lie_what[kind]),
                         "the scan did not say it left the index out for '%s' (%u: %s)",
                         lie_what[kind], with.rejected, with.rejected_what ? with.rejected_what : "");
            free(with.ids);
            free(without.ids);
        }
        g_damaged = 2;
        check_file(&bad, 0);
        g_damaged = 0;
        sink_free(&bad);
    }
}

int main(void)
{
    sink_buf plain, bloom;
    rfile f;
    build_schema();
    sink_init(&plain, SINK_WHOLE, 1);
    sink_init(&bloom, SINK_WHOLE, 1);
    tu_case("write the files");
    if (write_file(&plain, 0) || write_file(&bloom, 1))
        return tu_summary();
    if (TU_CHECK_STATUS(rfile_open(&f, plain.p, plain.n), UPQ_OK)) {
        uint32_t g;
        for (g = 0; g < f.r.meta.row_groups.n; g++)
            tu_note("row group %u: %lld rows", (unsigned)g,
                    (long long)f.r.meta.row_groups.v[g].num_rows);
        test_eval(&f.r.schema);
        {
            /* a scan begun without options or predicate fails on the reader */
            upq_scan sc;
            upq_pred none = { NULL, 0, 0 };
            tu_case("scans begun without what they need");
            TU_CHECK_STATUS(upq_scan_begin(&sc, &f.r, NULL), UPQ_ERR_INVAL);
            TU_CHECK_STATUS(f.r.err.status, UPQ_ERR_INVAL);
            TU_CHECK_STATUS(upq_scan_next(&sc), UPQ_ERR_INVAL);
            f.r.err.status = UPQ_OK;
            TU_CHECK_STATUS(upq_scan_open(&sc, &f.r, &none, 0, NULL, 0, 0, 0, UINT64_MAX, 0, 0),
                            UPQ_ERR_INVAL);
            TU_CHECK_STATUS(f.r.err.status, UPQ_ERR_INVAL);
            upq_scan_close(&sc);
            f.r.err.status = UPQ_OK;
        }
        rfile_close(&f);
    }
    check_file(&plain, 0);
    check_file(&bloom, 1);
    {
        int mode;
        for (mode = 0; mode < 3; mode++) {
            sink_buf bad;
            tu_case("damaged page index (mode %d)", mode);
            if (TU_CHECK(damage(&plain, &bad, mode) == 0)) {
                g_damaged = 1;
                check_file(&bad, 0);
                g_damaged = 0;
            }
            sink_free(&bad);
        }
    }
    test_lies(&plain);
    sink_free(&plain);
    sink_free(&bloom);
    return tu_summary();
}
