/*
 * After UPQ_ERR_NOMEM, one retry: on every corpus file with a plaintext
 * footer, with row groups decoded at once, on demand and AUTO,
 *   - opening in a 64-byte arena fails with UPQ_ERR_NOMEM and a total
 *     (upq_arena_needed, upq_error_info.needed) that is what the whole open
 *     takes: opening again in exactly that many bytes succeeds; the same
 *     from arenas of a quarter, half and all but 8 bytes of what it takes;
 *   - the scan planner (upq_scan_plan) of reading every row of every column
 *     gives an arena in which the same open and scan succeed with exactly the
 *     file's rows (files up to 4 MB that read).
 * The first figure is a bound when not even the schema fits (every element
 * counted as a leaf at the deepest level); the largest ratio to the measured
 * high-water mark is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/predicate.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

#define BIG (64u << 20)
#define SCAN_MAX_FILE (4u << 20)

static uint8_t *big;
static double worst_open = 1.0;
static unsigned planned, retried;

static upq_status open_in(upq_reader *r, upq_io *io, void *mem, size_t len, uint8_t mode)
{
    upq_reader_opts o;
    memset(&o, 0, sizeof o);
    o.row_groups = mode;
    upq_reader_init(r, io, mem, len, &o);
    return upq_reader_open(r);
}

/* Every row of every column, through one scan; its row count, or -1. */
static int64_t scan_all(upq_reader *r, size_t *plan)
{
    upq_scan sc;
    upq_scan_opts o;
    upq_status st;
    int64_t rows = 0;
    memset(&o, 0, sizeof o);
    if (upq_scan_begin(&sc, r, &o) != UPQ_OK)
        return -1;
    if (plan) {
        st = upq_scan_plan(&sc, plan);
        rows = st == UPQ_OK ? (int64_t)sc.stats.rows_matched : -1;
    } else {
        while ((st = upq_scan_next(&sc)) == UPQ_OK)
            rows++;
        if (st != UPQ_DONE)
            rows = -1;
    }
    upq_scan_close(&sc);
    return rows;
}

static void one_file(const char *path)
{
    static const uint8_t modes[3] = {UPQ_ROW_GROUPS_EAGER, UPQ_ROW_GROUPS_LAZY, UPQ_ROW_GROUPS_AUTO};
    static const char *const names[3] = {"eager", "on demand", "AUTO"};
    uint8_t *data;
    size_t len, m;
    tu_mem_src src;
    upq_io io;
    if (tu_read_file(path, &data, &len) != 0)
        return;
    tu_mem_src_init(&src, data, len);
    memset(&io, 0, sizeof io);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = len;
    for (m = 0; m < 3; m++) {
        upq_reader r;
        upq_status st;
        size_t need, high;
        uint8_t small[64];
        if (open_in(&r, &io, big, BIG, modes[m]) != UPQ_OK)
            continue; /* does not open at all: not this test's business */
        high = upq_arena_high_water(&r.arena);
        tu_case("%s, %s", tu_basename(path), names[m]);
        st = open_in(&r, &io, small, sizeof small, modes[m]);
        if (!TU_CHECK_STATUS(st, UPQ_ERR_NOMEM))
            continue;
        need = upq_arena_needed(&r.arena);
        TU_CHECK_UINT(r.err.needed, need);
        st = open_in(&r, &io, big + BIG - need, need, modes[m]);
        TU_CHECK_MSG(st == UPQ_OK, "reopening in the %zu bytes it named: %s (%s), %zu needed now",
                     need, upq_strerror(st), r.err.what ? r.err.what : "",
                     upq_arena_needed(&r.arena));
        if (high && (double)need / (double)high > worst_open)
            worst_open = (double)need / (double)high;
        {
            /* arenas that hold part of it: what they name suffices too */
            size_t k, sizes[3] = {high / 4, high / 2, high - 8};
            for (k = 0; k < 3; k++) {
                size_t n2;
                if (sizes[k] < 64 || sizes[k] >= high)
                    continue;
                st = open_in(&r, &io, big + BIG - sizes[k], sizes[k], modes[m]);
                if (st == UPQ_OK)
                    continue; /* AUTO in a smaller arena may need less */
                if (!TU_CHECK_STATUS(st, UPQ_ERR_NOMEM))
                    continue;
                n2 = upq_arena_needed(&r.arena);
                st = open_in(&r, &io, big + BIG - n2, n2, modes[m]);
                TU_CHECK_MSG(st == UPQ_OK, "in %zu bytes it named %zu, and in them: %s", sizes[k], n2,
                             upq_strerror(st));
            }
        }
        if (len > SCAN_MAX_FILE || m == 2)
            continue;
        {
            size_t plan = 0;
            int64_t rows, again;
            if (open_in(&r, &io, big, BIG, modes[m]) != UPQ_OK)
                continue;
            rows = scan_all(&r, &plan);
            if (rows < 0 || !plan)
                continue; /* the file does not read (codec, corrupt): elsewhere's */
            planned++;
            st = open_in(&r, &io, big + BIG - plan, plan, modes[m]);
            if (!TU_CHECK_MSG(st == UPQ_OK, "open in the scan's plan of %zu bytes: %s", plan,
                              upq_strerror(st)))
                continue;
            again = scan_all(&r, NULL);
            TU_CHECK_MSG(again == rows, "the scan in its planned %zu bytes: %lld rows, %lld planned "
                         "(%s)", plan, (long long)again, (long long)rows,
                         r.err.what ? r.err.what : "");
            retried++;
        }
    }
    free(data);
}

int main(void)
{
    static const char *const dirs[] = {"data"};
    big = (uint8_t *)malloc(BIG);
    tu_for_each_corpus_file(dirs, 1, TU_CORPUS_SKIP_PARE, one_file);
    tu_note("open: the named total is at most %.2f times the open's high-water mark", worst_open);
    tu_note("scan: %u plans, %u scans in exactly their planned arena", planned, retried);
    free(big);
    return tu_summary();
}
