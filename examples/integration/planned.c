/*
 * A program written from docs/ alone, as a new user would: every job sizes
 * its arena the way docs/memory.md says, and says whether that first size
 * was enough (check-integration holds the answers to DuckDB's).
 *
 *   planned DIR
 *
 * DIR holds duckdb.parquet and arrow.parquet (test/integration/
 * quickstart_files.mjs: id, distance, fare, tip). The jobs:
 *   logger    a checkpoint-mode log, DIR/log.parquet, 2550 rows, cut after
 *             the last one (no close): arena from upq_writer_workspace_size
 *   recovery  upq_recover on the cut log: arena from upq_recover_workspace_size
 *   open      each file's footer (the log's once recovered)
 *   rows      every row of each file, row-wise (upq_rows): arena from
 *             upq_reader_workspace_size's `concurrent`
 *   scan      sum(A) WHERE B > X with a predicate, one scan over each file
 *             (upq_scan_begin): arena from upq_scan_plan
 *
 * Prints "plan JOB first-try=yes|no bytes=N tries=K [note]" per arena, and
 * "value JOB key=value ..." for the answers; a job without a planner says
 * which size it started from. Exit status 0 when every job finished.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/posix.h"

#define LOG_ROWS 2550
#define FIRST_OPEN_ARENA (64u * 1024u) /* docs/reading.md's example */
#define PLAN_ARENA (64u * 1024u * 1024u) /* a generous arena for the scan's planner */

static void plan(const char *job, int tries, size_t bytes, const char *note)
{
    printf("plan %s first-try=%s bytes=%zu tries=%d%s%s\n", job, tries == 1 ? "yes" : "no", bytes,
           tries, note ? " " : "", note ? note : "");
}

static int fail(const char *job, upq_status st, const upq_error_info *e)
{
    printf("FAIL %s: %s%s%s\n", job, upq_strerror(st), e && e->what ? ": " : "", e && e->what ? e->what : "");
    return 1;
}

/* ---- the logger and its recovery ------------------------------------------------ */

typedef struct log_schema {
    upq_schema_element elems[4];
    uint32_t n;
    upq_writer_opts o;
} log_schema;

static upq_status log_schema_init(log_schema *ls)
{
    upq_schema_builder sb;
    upq_logical_type millis, str;
    upq_lt_timestamp(&millis, UPQ_TIME_UNIT_MILLIS, 1);
    upq_lt_string(&str);
    upq_sb_init(&sb, ls->elems, 4, "log");
    upq_sb_column(&sb, "ts", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, &millis);
    upq_sb_column(&sb, "device", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &str);
    upq_sb_column(&sb, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    memset(&ls->o, 0, sizeof ls->o);
    ls->o.checkpoint = 1;
    ls->o.checkpoint_rows = 100;
    ls->o.row_group_rows = 1000;
    ls->o.page_size = 1024;
    return upq_sb_finish(&sb, &ls->n);
}

/* Logs LOG_ROWS rows and stops without closing, as a power cut would. */
static int run_logger(const char *path, const log_schema *ls, size_t *planned)
{
    static const char *devices[] = { "north", "south", "east" };
    upq_posix_sink f;
    upq_sink sink;
    upq_writer w;
    upq_status st;
    void *arena;
    int64_t i;

    if ((st = upq_writer_workspace_size(ls->elems, ls->n, &ls->o, 0, planned)) != UPQ_OK)
        return fail("logger", st, NULL);
    if (!(arena = malloc(*planned)) || upq_posix_sink_open(&f, path, 1) != UPQ_OK)
        return fail("logger", UPQ_ERR_IO, NULL);
    upq_posix_sink_init(&f, &sink);
    st = upq_writer_init(&w, &sink, ls->elems, ls->n, arena, *planned, &ls->o);
    plan("logger", st == UPQ_ERR_NOMEM ? 2 : 1, *planned, "(upq_writer_workspace_size)");
    for (i = 0; st == UPQ_OK && i < LOG_ROWS; i++) {
        int64_t ts = 1717200000000 + i * 1000;
        double v = (double)(i % 100) / 4;
        upq_bytes d;
        d.ptr = (const uint8_t *)devices[i % 3];
        d.len = (uint32_t)strlen(devices[i % 3]);
        upq_writer_set(&w, 0, &ts);
        upq_writer_set(&w, 1, &d);
        if (i % 7 == 6)
            upq_writer_set_null(&w, 2);
        else
            upq_writer_set(&w, 2, &v);
        while ((st = upq_writer_end_row(&w)) == UPQ_AGAIN)
            ;
    }
    if (st != UPQ_OK)
        return fail("logger", st, upq_writer_error(&w));
    printf("value logger rows=%llu durable=%llu\n", (unsigned long long)upq_writer_rows(&w),
           (unsigned long long)upq_writer_rows_durable(&w));
    upq_posix_sink_close(&f); /* no upq_writer_close: the power is cut */
    free(arena);
    return 0;
}

/* docs/memory.md: recovery's arena from the schema and options the file was
 * written with (upq_recover_workspace_size); UPQ_ERR_NOMEM would name the
 * total through upq_recover_needed(). */
static int run_recovery(const char *path, const log_schema *ls)
{
    static upq_recover_state rs;
    upq_recover_info info;
    upq_posix_sink f;
    upq_sink sink;
    upq_status st;
    size_t len;
    int tries = 0;
    if ((st = upq_recover_workspace_size(ls->elems, ls->n, &ls->o, &len)) != UPQ_OK)
        return fail("recovery", st, NULL);
    for (;;) {
        void *arena = malloc(len);
        if (!arena || upq_posix_sink_open(&f, path, 0) != UPQ_OK)
            return fail("recovery", UPQ_ERR_IO, NULL);
        upq_posix_sink_init(&f, &sink);
        memset(&rs, 0, sizeof rs);
        tries++;
        while ((st = upq_recover(&rs, &sink, f.size, arena, len, NULL, &info)) == UPQ_AGAIN)
            ;
        upq_posix_sink_close(&f);
        free(arena);
        if (st != UPQ_ERR_NOMEM || tries > 100)
            break;
        len = upq_recover_needed(&rs);
    }
    if (st != UPQ_OK)
        return fail("recovery", st, upq_recover_error(&rs));
    plan("recovery", tries, len, "(upq_recover_workspace_size)");
    printf("value recovery rows=%llu\n", (unsigned long long)info.rows);
    return 0;
}

/* ---- reading -------------------------------------------------------------------- */

typedef struct opened {
    upq_posix_file f;
    upq_io io;
    upq_reader r;
    void *arena;
    size_t len;
} opened;

/* Opens the file in an arena of `len` bytes (0: as docs/reading.md does, a
 * first arena then what UPQ_ERR_NOMEM says). *tries counts the opens. */
static upq_status open_in(opened *o, size_t len, int *tries)
{
    upq_status st;
    int grow = len == 0;
    o->len = grow ? FIRST_OPEN_ARENA : len;
    *tries = 0;
    for (;;) {
        free(o->arena);
        if (!(o->arena = malloc(o->len)))
            return UPQ_ERR_NOMEM;
        upq_reader_init(&o->r, &o->io, o->arena, o->len, NULL);
        (*tries)++;
        while ((st = upq_reader_open(&o->r)) == UPQ_AGAIN)
            ;
        if (st != UPQ_ERR_NOMEM || !grow || *tries > 10000)
            return st;
        o->len = upq_arena_needed(&o->r.arena);
    }
}

static double as_double(const upq_column_desc *c, const void *v)
{
    switch (c->physical_type) {
    case UPQ_TYPE_INT32: return *(const int32_t *)v;
    case UPQ_TYPE_INT64: return (double)*(const int64_t *)v;
    case UPQ_TYPE_FLOAT: return *(const float *)v;
    case UPQ_TYPE_DOUBLE: return *(const double *)v;
    default: return 0;
    }
}

static int numeric(const upq_column_desc *c)
{
    return c->physical_type == UPQ_TYPE_INT32 || c->physical_type == UPQ_TYPE_INT64 ||
           c->physical_type == UPQ_TYPE_FLOAT || c->physical_type == UPQ_TYPE_DOUBLE;
}

/* Every row through upq_rows, in the arena the planner gave (`concurrent`):
 * the sum and count of every numeric leaf. */
static int read_rows(opened *o, const char *name, size_t planned)
{
    double sum[16] = { 0 };
    long count[16] = { 0 };
    const upq_schema *s;
    uint32_t rg, c;
    long rows = 0;
    upq_status st;
    int tries;
    char job[256];
    snprintf(job, sizeof job, "rows:%s", name);
    if ((st = open_in(o, planned, &tries)) != UPQ_OK)
        return fail(job, st, upq_reader_error(&o->r));
    s = upq_reader_schema(&o->r);
    for (rg = 0; rg < upq_reader_num_row_groups(&o->r); rg++) {
        upq_rows w;
        upq_event ev;
        if ((st = upq_rows_open(&w, &o->r, rg, NULL, 0, 0)) != UPQ_OK)
            break;
        while ((st = upq_rows_next(&w)) == UPQ_OK || st == UPQ_AGAIN) {
            if (st == UPQ_AGAIN)
                continue;
            rows++;
            while ((st = upq_rows_event(&w, &ev)) == UPQ_OK || st == UPQ_AGAIN)
                if (st == UPQ_OK && ev.type == UPQ_EV_VALUE && ev.column < 16 &&
                    numeric(&s->columns[ev.column])) {
                    sum[ev.column] += as_double(&s->columns[ev.column], ev.value);
                    count[ev.column]++;
                }
            if (st != UPQ_DONE)
                break;
        }
        upq_rows_close(&w);
        if (st != UPQ_DONE)
            break;
    }
    if (st != UPQ_DONE && st != UPQ_OK) {
        if (st == UPQ_ERR_NOMEM)
            printf("plan %s first-try=no bytes=%zu needed=%zu (upq_reader_workspace_size: concurrent)\n",
                   job, planned, upq_arena_needed(&o->r.arena));
        return fail(job, st, upq_reader_error(&o->r));
    }
    plan(job, 1, planned, "(upq_reader_workspace_size: concurrent)");
    printf("value %s rows=%ld", job, rows);
    for (c = 0; c < s->num_columns && c < 16; c++)
        if (numeric(&s->columns[c])) {
            char path[128];
            size_t n = upq_schema_node_path(s, s->columns[c].node, path, sizeof path - 1);
            path[n < sizeof path - 1 ? n : sizeof path - 1] = '\0';
            printf(" sum:%s=%.17g count:%s=%ld", path, sum[c], path, count[c]);
        }
    printf("\n");
    return 0;
}

/* The scan of sum(a) WHERE b > x over the whole file (upq_scan_begin),
 * handing out rows; *sum and *count are its answer. */
static upq_status run_scan(opened *o, const upq_pred *p, uint32_t a, size_t *need, double *sum,
                           long *count)
{
    const upq_schema *s = upq_reader_schema(&o->r);
    upq_scan_opts so;
    upq_scan sc;
    upq_event ev;
    upq_status st;
    memset(&so, 0, sizeof so);
    so.where = p;
    so.columns = &a;
    so.num_columns = 1;
    if ((st = upq_scan_begin(&sc, &o->r, &so)) != UPQ_OK)
        return st;
    if (need) { /* docs/memory.md: the planner runs the scan */
        while ((st = upq_scan_plan(&sc, need)) == UPQ_AGAIN)
            ;
        upq_scan_close(&sc);
        return st;
    }
    while ((st = upq_scan_next(&sc)) == UPQ_OK || st == UPQ_AGAIN) {
        if (st == UPQ_AGAIN)
            continue;
        while ((st = upq_rows_event(upq_scan_rows(&sc), &ev)) == UPQ_OK || st == UPQ_AGAIN)
            if (st == UPQ_OK && ev.type == UPQ_EV_VALUE) {
                *sum += as_double(&s->columns[a], ev.value);
                (*count)++;
            }
        if (st != UPQ_DONE)
            break;
    }
    upq_scan_close(&sc);
    return st;
}

/* sum(a) WHERE b > x through one scan over the file: planned with
 * upq_scan_plan in a generous arena (docs/memory.md), then run in exactly
 * the bytes it named. */
static int scan_sum(opened *o, const char *name, const char *a_name, const char *b_name, double x)
{
    const upq_schema *s;
    uint32_t a, b, bad;
    upq_value lit;
    const char *what;
    upq_status st;
    size_t need = 0;
    double sum = 0;
    long count = 0;
    int opens;
    char job[256];
    snprintf(job, sizeof job, "scan:%s", name);
    if ((st = open_in(o, PLAN_ARENA, &opens)) != UPQ_OK)
        return fail(job, st, upq_reader_error(&o->r));
    s = upq_reader_schema(&o->r);
    a = upq_schema_find_column(s, a_name, strlen(a_name));
    b = upq_schema_find_column(s, b_name, strlen(b_name));
    if (a == UPQ_NONE || b == UPQ_NONE)
        return fail(job, UPQ_ERR_INVAL, NULL);
    switch (s->columns[b].physical_type) {
    case UPQ_TYPE_INT32: lit.i32 = (int32_t)x; break;
    case UPQ_TYPE_INT64: lit.i64 = (int64_t)x; break;
    case UPQ_TYPE_FLOAT: lit.f = (float)x; break;
    default: lit.d = x; break;
    }
    {
        upq_pred_node where = { UPQ_PRED_GT, b, 1, &lit };
        upq_pred p = { &where, 1, 0 };
        if (upq_pred_check(s, &p, &what, &bad) != UPQ_OK)
            return fail(job, UPQ_ERR_INVAL, NULL);
        if ((st = run_scan(o, &p, a, &need, &sum, &count)) != UPQ_OK)
            return fail(job, st, upq_reader_error(&o->r));
        if ((st = open_in(o, need, &opens)) == UPQ_OK)
            st = run_scan(o, &p, a, NULL, &sum, &count);
    }
    if (st == UPQ_ERR_NOMEM)
        printf("plan %s first-try=no bytes=%zu needed=%zu (upq_scan_plan)\n", job, need,
               upq_arena_needed(&o->r.arena));
    if (st != UPQ_DONE)
        return fail(job, st, upq_reader_error(&o->r));
    plan(job, 1, need, "(upq_scan_plan)");
    printf("value %s a=%s b=%s x=%.17g sum=%.17g count=%ld\n", job, a_name, b_name, x, sum, count);
    return 0;
}

/* open, plan, rows, scan: one file */
static int read_file(const char *dir, const char *name, const char *a, const char *b, double x)
{
    opened o;
    upq_workspace ws;
    upq_status st;
    char path[4096], job[256];
    int tries, bad = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(job, sizeof job, "open:%s", name);
    memset(&o, 0, sizeof o);
    if (upq_posix_open(&o.f, path) != UPQ_OK)
        return fail(job, UPQ_ERR_IO, NULL);
    upq_posix_io(&o.f, &o.io);
    if ((st = open_in(&o, 0, &tries)) != UPQ_OK)
        return fail(job, st, upq_reader_error(&o.r));
    plan(job, tries, o.len, "(a 64 KiB arena, then the total upq_arena_needed names after UPQ_ERR_NOMEM)");
    /* The planner works in the reader's arena too: in the arena the footer
     * just fitted, it may not fit itself. docs/memory.md says to open in a
     * generous arena first; this grows it until the plan is made. */
    snprintf(job, sizeof job, "workspace:%s", name);
    for (tries = 1;; tries++) {
        size_t len;
        upq_workspace_init(&ws);
        while ((st = upq_reader_workspace_size(&o.r, &ws)) == UPQ_AGAIN)
            ;
        if (st != UPQ_ERR_NOMEM || tries > 64)
            break;
        len = upq_arena_needed(&o.r.arena);
        if (len < 2 * o.len)
            len = 2 * o.len;
        if ((st = open_in(&o, len, &bad)) != UPQ_OK)
            break;
        bad = 0;
    }
    if (st != UPQ_OK)
        return fail(job, st, upq_reader_error(&o.r));
    plan(job, tries, o.len, "(upq_reader_workspace_size in the open reader's arena)");
    printf("value %s footer=%zu sequential=%zu concurrent=%zu\n", job, ws.footer, ws.sequential,
           ws.concurrent);
    bad |= read_rows(&o, name, ws.concurrent);
    bad |= scan_sum(&o, name, a, b, x);
    free(o.arena);
    upq_posix_close(&o.f);
    return bad;
}

int main(int argc, char **argv)
{
    log_schema ls;
    char log_path[4096];
    size_t planned;
    int bad = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: planned DIR\n");
        return 2;
    }
    snprintf(log_path, sizeof log_path, "%s/log.parquet", argv[1]);
    if (log_schema_init(&ls) != UPQ_OK || run_logger(log_path, &ls, &planned) ||
        run_recovery(log_path, &ls))
        return 1;
    bad |= read_file(argv[1], "log.parquet", "value", "ts", 1717200000000.0 + 1200000.0);
    bad |= read_file(argv[1], "duckdb.parquet", "fare", "distance", 90);
    bad |= read_file(argv[1], "arrow.parquet", "tip", "distance", 99.5);
    bad |= read_file(argv[1], "many.parquet", "fare", "id", 150000);
    return bad;
}
