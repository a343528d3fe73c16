/*
 * The workspace planner (upq_reader_workspace_size) against what reading
 * really takes, on every corpus file that reads:
 *   - reading every column chunk on its own fits an arena of exactly
 *     `sequential` bytes, and row-wise reading (upq_rows, every field, the
 *     default batch) fits exactly `concurrent` bytes;
 *   - each plan is at most 1.25 times the arena's measured high-water mark
 *     for that way of reading (a plan that over-reserves costs a device the
 *     difference).
 * The measured peaks come from fresh readers with a large arena. Each file
 * is tried with the default batch, with 1024, and with a projection of
 * every other leaf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "uparquet/record.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

#define ARENA (256u << 20)
#define BATCH 1024u
/* the plan may exceed the measured peak by this much (the 1.25x) */
#define SLACK_NUM 5u
#define SLACK_DEN 4u
/* below this, fixed costs dominate and a ratio says little */
#define SMALL 4096u

static uint8_t *arena;
static double worst_seq, worst_conc;

/* every other leaf, from the second: a projection that leaves columns out */
static uint8_t odd_leaves[64];
static upq_reader_opts proj_opts = {.projection = odd_leaves, .projection_bits = 8u * sizeof odd_leaves};
#if UPQ_WITH_LAZY_ROW_GROUPS
static upq_reader_opts lazy_opts = {.row_groups = UPQ_ROW_GROUPS_LAZY};
#endif
static const upq_reader_opts *opts;
static int eager_reads; /* the file reads with the default options */

static upq_status open_reader(upq_reader *r, upq_io *io, size_t arena_len)
{
    upq_reader_init(r, io, arena + ARENA - arena_len, arena_len, opts);
    return upq_reader_open(r);
}

/* Loads row group g (on-demand row groups; a no-op otherwise). */
static upq_status load(upq_reader *r, uint32_t g)
{
#if UPQ_WITH_LAZY_ROW_GROUPS
    return upq_reader_row_group_load(r, g);
#else
    (void)r;
    (void)g;
    return UPQ_OK;
#endif
}

static upq_status read_columns(upq_reader *r)
{
    const upq_schema *s = upq_reader_schema(r);
    static uint16_t def[BATCH], rep[BATCH];
    static uint8_t vals[BATCH * 16];
    upq_status st = UPQ_OK;
    for (uint32_t g = 0; g < upq_reader_num_row_groups(r) && st == UPQ_OK; g++)
        for (uint32_t c = 0; c < s->num_columns && st == UPQ_OK && (st = load(r, g)) == UPQ_OK; c++) {
            upq_column_reader cr;
            upq_batch b;
            if (!upq_reader_chunk(r, g, c))
                continue; /* left out by the projection */
            st = upq_column_open(&cr, r, g, c);
            while (st == UPQ_OK) {
                b.def = def;
                b.rep = rep;
                b.values = vals;
                b.cap = BATCH;
                st = upq_column_read(&cr, &b);
            }
            upq_column_close(&cr);
            if (st == UPQ_DONE)
                st = UPQ_OK;
        }
    return st;
}

/* Row-wise reading of every projected leaf, `batch` levels at a time. */
static upq_status read_rows(upq_reader *r, size_t batch)
{
    const upq_schema *s = upq_reader_schema(r);
    uint32_t *sel = NULL, n = 0;
    upq_status st = UPQ_OK;
    if (r->opts.projection) {
        sel = (uint32_t *)malloc((s->num_columns + 1u) * sizeof *sel);
        for (uint32_t i = 0; i < s->num_columns; i++)
            if ((r->opts.projection[i >> 3] >> (i & 7)) & 1u)
                sel[n++] = s->columns[i].node;
    }
    for (uint32_t g = 0; g < upq_reader_num_row_groups(r) && st == UPQ_OK; g++) {
        upq_rows rows;
        upq_event ev;
        st = load(r, g);
        if (st != UPQ_OK)
            break;
        st = upq_rows_open(&rows, r, g, sel, n, batch);
        while (st == UPQ_OK && (st = upq_rows_next(&rows)) == UPQ_OK) {
            while ((st = upq_rows_event(&rows, &ev)) == UPQ_OK)
                ;
            if (st == UPQ_DONE)
                st = UPQ_OK;
        }
        upq_rows_close(&rows);
        if (st == UPQ_DONE)
            st = UPQ_OK;
    }
    free(sel);
    return st;
}

static void check_plan(const char *name, const char *what, size_t plan, size_t peak, double *worst)
{
    double ratio = peak ? (double)plan / (double)peak : 0.0;
    TU_CHECK_MSG(plan >= peak, "%s: %s plan %zu below the measured peak %zu", name, what, plan,
                 peak);
    /* BROTLI's working memory is planned for its ring buffer growing page
     * by page (twice the last ring), which a stream may or may not do: that
     * bound is held to 1.5x */
    unsigned num = strstr(name, "brotli") ? 6u : SLACK_NUM;
    if (peak >= SMALL) {
        TU_CHECK_MSG((unsigned long long)plan * SLACK_DEN <= (unsigned long long)peak * num,
                     "%s: %s plan %zu is %.2fx the measured peak %zu", name, what, plan, ratio,
                     peak);
        if (ratio > *worst)
            *worst = ratio;
    }
    tu_note("%s: %s plan %zu peak %zu (%.3fx)", name, what, plan, peak, ratio);
}

/* One way of reading one file: measured peaks, the plan, and the plan's
 * sizes tried as the whole arena. */
static void test_plan(const char *name, upq_io *io, size_t batch)
{
    upq_reader r;
    static upq_workspace ws;
    upq_status st;
    size_t seq_peak, conc_peak;

    /* files that do not read whole (codecs not built, pages over the
     * limit) are test_read's business; a projection the row reader
     * refuses (a map's values without keys) is checked below */
    st = open_reader(&r, io, ARENA);
    if (st == UPQ_OK)
        st = read_columns(&r);
    if (!opts)
        eager_reads = st == UPQ_OK;
    if (st != UPQ_OK) {
        /* a file that does not read whole (codecs not built, pages over the
         * limit) is test_read's business; one that reads with the whole
         * footer decoded must read with row groups on demand too */
        TU_CHECK_MSG(!eager_reads, "%s: reading with these options gave %s", name,
                     upq_strerror(st));
        return;
    }
    seq_peak = upq_arena_high_water(&r.arena);
    st = open_reader(&r, io, ARENA);
    if (st == UPQ_OK)
        st = read_rows(&r, batch);
    conc_peak = st == UPQ_OK ? upq_arena_high_water(&r.arena) : 0;

    st = open_reader(&r, io, ARENA);
    upq_workspace_init(&ws);
    ws.batch = batch;
    if (st == UPQ_OK)
        st = upq_reader_workspace_size(&r, &ws);
    TU_CHECK_MSG(st == UPQ_OK, "%s: planning gave %s", name, upq_strerror(st));
    if (st != UPQ_OK)
        return;
    check_plan(name, "sequential", ws.sequential, seq_peak, &worst_seq);
    st = open_reader(&r, io, ws.sequential);
    if (st == UPQ_OK)
        st = read_columns(&r);
    TU_CHECK_MSG(st == UPQ_OK, "%s: column-wise reading in the planned %zu bytes gave %s", name,
                 ws.sequential, upq_strerror(st));
    TU_CHECK_MSG((ws.concurrent == 0) == (conc_peak == 0),
                 "%s: concurrent plan %zu where row-wise reading %s", name, ws.concurrent,
                 conc_peak ? "works" : "is refused");
    if (!conc_peak || !ws.concurrent)
        return;
    check_plan(name, "concurrent", ws.concurrent, conc_peak, &worst_conc);
    st = open_reader(&r, io, ws.concurrent);
    if (st == UPQ_OK)
        st = read_rows(&r, batch);
    TU_CHECK_MSG(st == UPQ_OK, "%s: row-wise reading in the planned %zu bytes gave %s", name,
                 ws.concurrent, upq_strerror(st));
}

static void test_file(const char *path)
{
    const char *name = tu_basename(path);
    uint8_t *data;
    size_t len;
    tu_mem_src src;

    if (tu_read_file(path, &data, &len) != 0) {
        TU_CHECK_MSG(0, "%s: cannot read", path);
        return;
    }
    tu_mem_src_init(&src, data, len);
    upq_io io = { .ctx = &src, .read_at = tu_mem_read_at, .size = len };
    tu_case("%s", name);
    opts = NULL;
    test_plan(name, &io, 0);
    test_plan(name, &io, 1024);
    opts = &proj_opts;
    test_plan(name, &io, 0);
#if UPQ_WITH_LAZY_ROW_GROUPS
    opts = &lazy_opts;
    test_plan(name, &io, 0);
#endif
    free(data);
}

int main(void)
{
    static const char *const subdirs[] = {"data", "shredded_variant"};
    const char *at = getenv("ARROW_TESTING_DIR");
    char dir[4096];
    tu_file_list l;
    memset(odd_leaves, 0xaa, sizeof odd_leaves);
    arena = (uint8_t *)malloc(ARENA);
    tu_for_each_corpus_file(subdirs, 2, TU_CORPUS_SKIP_PARE, test_file);
    /* what other writers produced (apache/arrow-testing) */
    snprintf(dir, sizeof dir, "%s/data/parquet", at && *at ? at : "../shared/arrow-testing");
    TU_CHECK_MSG(tu_list_files(dir, ".parquet", &l) == 0 && l.n > 0, "cannot list %s", dir);
    for (size_t i = 0; i < l.n; i++)
        test_file(l.paths[i]);
    tu_file_list_free(&l);
    printf("worst plan/peak: sequential %.3f, concurrent %.3f\n", worst_seq, worst_conc);
    free(arena);
    return tu_summary();
}
