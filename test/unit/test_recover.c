/*
 * Power loss: files written in checkpoint mode (footer metadata kept in RAM,
 * and streamed back from the file) are cut at every byte. upq_recover must
 * return the end of the last checkpoint that lies entirely before the cut
 * (the size the sink had at its last sync), and the file cut there must read
 * back with exactly the rows checkpointed so far. The data holds strings
 * that look like footers ("PAR1" after plausible lengths) to lure the scan.
 * Recovery is also run through a read callback that says "again" and
 * returns short counts, and with an arena too small for a footer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_util.h"
#include "upq_port.h"

#define ROWS 240u
#define RG_ROWS 24u
#define NCOL 3

static const int32_t types[NCOL] = {UPQ_TYPE_INT64, UPQ_TYPE_BYTE_ARRAY, UPQ_TYPE_DOUBLE};
static const uint16_t maxdef[NCOL] = {0, 1, 1};
static upq_schema_element elems[NCOL + 1];
static uint32_t nelems;
static col_data data[NCOL];
static uint8_t pool[ROWS * 16];

/* Checkpoints as the writer reported them: file size and rows covered. */
static size_t cp_end[ROWS + 1], cp_rows[ROWS + 1], ncp;

static void build(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t i;
    size_t used = 0;
    upq_sb_init(&b, elems, NCOL + 1, "log");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "msg", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "v", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &nelems), UPQ_OK);
    for (i = 0; i < NCOL; i++) {
        data[i].def = (uint16_t *)calloc(ROWS, sizeof(uint16_t));
        data[i].vals = calloc(ROWS, 16);
        data[i].n = ROWS;
    }
    for (i = 0; i < ROWS; i++) {
        int64_t id = (int64_t)i;
        double v = i * 1.25;
        upq_bytes s;
        memcpy((uint8_t *)data[0].vals + 8 * data[0].nv++, &id, 8);
        data[1].def[i] = i % 5 != 0;
        if (data[1].def[i]) {
            /* a length that fits the file, then the magic: a fake footer end */
            uint8_t *p = pool + used;
            upq_store_le32(p, 40u + i % 7u);
            memcpy(p + 4, "PAR1", 4);
            p[8] = (uint8_t)('a' + i % 26);
            s.ptr = p;
            s.len = 9;
            used += 9;
            memcpy((uint8_t *)data[1].vals + sizeof s * data[1].nv++, &s, sizeof s);
        }
        data[2].def[i] = i % 3 != 0;
        if (data[2].def[i])
            memcpy((uint8_t *)data[2].vals + 8 * data[2].nv++, &v, 8);
    }
}

/* The first `rows` rows of column c. */
static col_data prefix(int c, size_t rows)
{
    col_data d = data[c];
    size_t i;
    d.n = rows;
    d.nv = 0;
    for (i = 0; i < rows; i++)
        d.nv += maxdef[c] == 0 || d.def[i];
    return d;
}

static int write_file(sink_buf *s, int v2, int stream, int checkpoint, int mode)
{
    upq_writer_opts o;
    upq_writer w;
    upq_sink sink = sink_of(s, stream);
    size_t need = 0, vpos[NCOL] = {0};
    uint8_t *arena;
    upq_status st;
    uint32_t i, c;
    memset(&o, 0, sizeof o);
    o.page_size = 64;
    o.data_page_v2 = (uint8_t)v2;
    o.codec = v2 ? UPQ_CODEC_SNAPPY : UPQ_CODEC_UNCOMPRESSED;
    o.checkpoint = (uint8_t)checkpoint;
    o.row_group_rows = RG_ROWS;
    sink_init(s, mode, 7);
    ncp = 0;
    if (!TU_CHECK_STATUS(upq_writer_workspace_size(elems, nelems, &o, stream ? 0 : 20, &need), UPQ_OK))
        return 0;
    arena = (uint8_t *)malloc(need);
    if (!TU_CHECK_STATUS(upq_writer_init(&w, &sink, elems, nelems, arena, need, &o), UPQ_OK)) {
        free(arena);
        return 0;
    }
    for (i = 0; i < ROWS; i++) {
        for (c = 0; c < NCOL; c++) {
            if (maxdef[c] && !data[c].def[i]) {
                WU_RETRY(st, upq_writer_set_null(&w, c));
            } else {
                const uint8_t *v = (const uint8_t *)data[c].vals + vpos[c]++ * wu_value_size(types[c]);
                WU_RETRY(st, upq_writer_set(&w, c, v));
            }
            if (!TU_CHECK_STATUS(st, UPQ_OK))
                goto out;
        }
        WU_RETRY(st, upq_writer_end_row(&w));
        if (!TU_CHECK_STATUS(st, UPQ_OK))
            goto out;
        /* a row group's output may still be under way: finish it */
        WU_RETRY(st, upq_writer_poll(&w));
        if (!TU_CHECK_STATUS(st, UPQ_OK))
            goto out;
        if (upq_writer_rows_durable(&w) != (ncp ? cp_rows[ncp - 1] : 0)) {
            cp_rows[ncp] = (size_t)upq_writer_rows_durable(&w);
            cp_end[ncp++] = s->syncs_at[s->syncs - 1];
            TU_CHECK_UINT(upq_writer_file_size(&w), s->n);
        }
    }
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    if (checkpoint && upq_writer_rows_durable(&w) != (ncp ? cp_rows[ncp - 1] : 0)) {
        cp_rows[ncp] = (size_t)upq_writer_rows_durable(&w);
        cp_end[ncp++] = s->syncs_at[s->syncs - 1];
    }
    if (checkpoint)
        TU_CHECK_UINT(ncp, s->syncs);
out:
    free(arena);
    return st == UPQ_OK;
}

static upq_status recover(const uint8_t *p, size_t len, int flaky, uint64_t seed, size_t arena_len,
                          uint64_t *valid, uint64_t *rows)
{
    static upq_recover_state st;
    static uint8_t arena[1 << 18];
    tu_mem_src src;
    tu_flaky fl;
    upq_io io;
    upq_status s;
    unsigned long guard = 0;
    memset(&st, 0, sizeof st);
    tu_mem_src_init(&src, p, len);
    io.size = len;
    if (flaky) {
        tu_flaky_init(&fl, &tu_flaky_cfgs[5], tu_mem_read_at, &src, seed); /* random + again */
        io.ctx = &fl;
        io.read_at = tu_flaky_read_at;
    } else {
        io.ctx = &src;
        io.read_at = tu_mem_read_at;
    }
    do {
        s = upq_recover(&st, &io, arena, arena_len, valid, rows);
    } while (s == UPQ_AGAIN && ++guard < 10000000ul);
    return s;
}

static void check_cuts(const sink_buf *s, const char *what)
{
    size_t cut, k;
    long bad = 0, read_checked = 0;
    uint64_t last_checked = UINT64_MAX;
    for (cut = 0; cut <= s->n; cut++) {
        uint64_t valid = 0, rows = 0, want = 0, want_rows = 0;
        int flaky = cut % 7 == 0, at_cp = 0;
        upq_status st;
        for (k = 0; k < ncp; k++) {
            if (cp_end[k] <= cut) {
                want = cp_end[k];
                want_rows = cp_rows[k];
            }
            at_cp |= cp_end[k] == cut;
        }
        /* thinned under emulation, but every checkpoint's own end stays */
        if (!tu_repeat_keep() && !at_cp)
            continue;
        st = recover(s->p, cut, flaky, cut, 1 << 18, &valid, &rows);
        if (want == 0) {
            if (st != UPQ_ERR_CORRUPT && bad++ < 5)
                printf("  %s: cut %zu: %s, want no checkpoint\n", what, cut, upq_strerror(st));
            continue;
        }
        if ((st != UPQ_OK || valid != want || rows != want_rows) && bad++ < 5)
            printf("  %s: cut %zu%s: %s valid %llu rows %llu, want %llu rows %llu\n", what, cut,
                   flaky ? " (flaky)" : "", upq_strerror(st), (unsigned long long)valid,
                   (unsigned long long)rows, (unsigned long long)want,
                   (unsigned long long)want_rows);
        if (st == UPQ_OK && valid == want && valid != last_checked) {
            /* the recovered file holds exactly the checkpointed rows */
            rfile f;
            int c;
            last_checked = valid;
            read_checked++;
            if (rfile_open(&f, s->p, (size_t)valid) != UPQ_OK) {
                bad++;
            } else {
                for (c = 0; c < NCOL; c++) {
                    col_data d = prefix(c, (size_t)want_rows);
                    bad += wu_compare_column(&f, (uint32_t)c, types[c], maxdef[c], 0, &d, what);
                }
            }
            rfile_close(&f);
        }
    }
    TU_CHECK_MSG(bad == 0, "%s: %ld cuts recovered wrongly", what, bad);
    TU_CHECK_INT(read_checked, (long)ncp);
    tu_note("%s: %zu bytes, %zu checkpoints, %s checked", what, s->n, ncp,
            tu_repeat() > 1 ? "every checkpoint end and a share of the other cuts" : "every cut");
}

int main(void)
{
    int v2, stream;
    sink_buf s, ram;
    build();
    memset(&ram, 0, sizeof ram);
    for (v2 = 0; v2 < 2; v2++) {
        for (stream = 0; stream < 2; stream++) {
            char what[96];
            snprintf(what, sizeof what, "%s, footer metadata %s", v2 ? "v2 snappy" : "v1",
                     stream ? "streamed from the file" : "in RAM");
            tu_case("every cut of a checkpointed file (%s)", what);
            if (write_file(&s, v2, stream, 1, stream ? SINK_AGAIN : SINK_WHOLE)) {
                TU_CHECK(ncp >= ROWS / RG_ROWS);
                check_cuts(&s, what);
                /* the footers streamed from the file are the RAM log's bytes */
                if (stream)
                    TU_CHECK(ram.n == s.n && memcmp(ram.p, s.p, s.n) == 0);
            }
            if (!stream) {
                sink_free(&ram);
                ram = s;
                s.p = NULL;
            }
            sink_free(&s);
        }
    }

    sink_free(&ram);
    tu_case("a file closed without checkpoints is its own last footer");
    if (write_file(&s, 0, 0, 0, SINK_WHOLE)) {
        uint64_t valid = 0, rows = 0;
        TU_CHECK_STATUS(recover(s.p, s.n, 0, 1, 1 << 18, &valid, &rows), UPQ_OK);
        TU_CHECK_UINT(valid, s.n);
        TU_CHECK_UINT(rows, ROWS);
        TU_CHECK_STATUS(recover(s.p, s.n - 1, 0, 1, 1 << 18, &valid, &rows), UPQ_ERR_CORRUPT);
    }
    sink_free(&s);

    tu_case("an arena too small for the footer");
    if (write_file(&s, 0, 0, 1, SINK_WHOLE)) {
        uint64_t valid = 0, rows = 0;
        TU_CHECK_STATUS(recover(s.p, s.n, 0, 1, 256, &valid, &rows), UPQ_ERR_NOMEM);
    }
    sink_free(&s);
    return tu_summary();
}
