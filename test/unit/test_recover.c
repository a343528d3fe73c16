/*
 * Recovery of checkpoint-mode files (upq_recover), in place through a sink.
 *
 * Files of a flat schema (id INT64, msg STRING whose values look like
 * journal records of this very file and like "PAR1" footers, to lure any
 * scan; v DOUBLE, optional) are written in checkpoint mode and cut:
 *   - at many prefix lengths of the data written (every byte the sink took,
 *     in order, up to the cut; the file length as the driver saw it, or the
 *     synced length, or what persisted), and exactly at each checkpoint's
 *     last byte and next to it;
 *   - with the SD card model (test/util/sdcard.h) at write calls: unsynced
 *     sectors kept or lost in any order, the sector in flight torn, any
 *     file length policy, and half of the time a medium that held another
 *     checkpoint-mode file of the same schema (another file id) where this
 *     one is written (before anything was synced, a cut may leave only
 *     that file: it is then what recovery must give back).
 * Each cut file is recovered in place in a fixed 32 KiB arena and must read
 * back (reader and column API) with exactly the rows of one checkpoint of
 * the uncut run, at least upq_writer_rows_durable() at the cut; a dry run
 * first reports the same rows and writes nothing; recovering again reports
 * was_closed and changes nothing. Some cut files are also recovered through
 * sinks that say "again" and take and give short counts (with and without
 * truncate): the same bytes as whole calls.
 *
 * Then: an arena too small (UPQ_ERR_NOMEM with the size, nothing written,
 * then success in exactly that size); a closed file (was_closed, nothing
 * written); garbage, a damaged FILE record, a Parquet file written without
 * checkpoint mode and a corpus file (UPQ_ERR_CORRUPT, nothing written); a
 * page whose CRC fails in the middle of the data (cut back to the checkpoint
 * before that page, bad_pages set). The cuts are made again of files whose
 * columns were written as runs (upq_writer_put_run).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer_util.h"
#include "common/crc32.h"
#include "format/meta_desc.h"
#include "util/files.h"
#include "util/sdcard.h"
#include "uparquet/posix.h"
#include "upq_port.h"

#define ROWS 600u
#define NCOL 3
#define RECOVER_ARENA ((size_t)32 << 10)
#define FILE_ID UINT64_C(0x1F2E3D4C5B6A7988)
#define OTHER_ID UINT64_C(0x0123456789ABCDEF) /* another file on the same medium */
#define SPIN_LIMIT 10000000ul
#define J_HDR 24u /* a journal record's header (core/checkpoint/journal.h) */

typedef struct rcfg {
    const char *name;
    uint8_t v2;
    int32_t codec;
    uint32_t page_size;
    int plain_strings;   /* msg without a dictionary: the lures stand in the pages */
    uint64_t ckpt_rows;  /* checkpoint_rows */
    uint64_t rg_rows;
    size_t max_chunk;    /* the card takes at most this much per write (0: all) */
    unsigned again;      /* every k-th write says "again" (0: never) */
} rcfg;

static const rcfg cfgs[] = {
    {"v1", 0, UPQ_CODEC_UNCOMPRESSED, 256, 0, 40, 200, 0, 0},
    {"v2-snappy-plain-strings-short-again", 1, UPQ_CODEC_SNAPPY, 256, 1, 40, 200, 97, 3},
    {"v1-lz4raw-row-group-ends-only", 0, UPQ_CODEC_LZ4_RAW, 512, 0, 0, 150, 0, 0},
};
#define NCFG (sizeof cfgs / sizeof cfgs[0])

static const int32_t types[NCOL] = {UPQ_TYPE_INT64, UPQ_TYPE_BYTE_ARRAY, UPQ_TYPE_DOUBLE};
static const uint16_t maxdef[NCOL] = {0, 1, 1};
static upq_schema_element elems[NCOL + 1];
static uint32_t nelems;
static col_data data[NCOL];
static uint8_t pool[ROWS * 48];

/* ---- the data ------------------------------------------------------------------ */

/* A journal record of this file as the writer frames them, with a valid
 * CRC: magic, length, type, flags, session, sequence, file id, a one-byte
 * payload (Thrift STOP), CRC. */
static size_t fake_record(uint8_t *p, uint8_t type, uint32_t seq)
{
    uint32_t len = J_HDR + 1u + 4u;
    memcpy(p, "UPQJ", 4);
    upq_store_le32(p + 4, len);
    p[8] = type;
    p[9] = 0;
    upq_store_le16(p + 10, 0);
    upq_store_le32(p + 12, seq);
    upq_store_le64(p + 16, FILE_ID);
    p[24] = 0;
    upq_store_le32(p + 25, upq_crc32(p, 25));
    return len;
}

/* The rows: `salt` 0 for the file under test, another for other readings
 * (an old file on the same medium). */
static void fill(uint32_t salt)
{
    uint32_t i;
    size_t used = 0;
    for (i = 0; i < NCOL; i++)
        data[i].nv = 0;
    for (i = 0; i < ROWS; i++) {
        int64_t id = (int64_t)i * 7 - 1000 + (int64_t)salt * 100003;
        double v = i * 1.25 + salt;
        upq_bytes s;
        memcpy((uint8_t *)data[0].vals + 8 * data[0].nv++, &id, 8);
        data[1].def[i] = i % 5 != 0;
        if (data[1].def[i]) {
            uint8_t *p = pool + used;
            switch (i % 4) {
            case 0: /* a checkpoint record of this file */
                s.len = (uint32_t)fake_record(p, i % 8 ? 3 : 4, 1 + i % 50);
                break;
            case 1: /* a footer's end: a length that fits the file, the magic */
                upq_store_le32(p, 40u + i % 7u);
                memcpy(p + 4, "PAR1", 4);
                p[8] = (uint8_t)('a' + i % 26);
                s.len = 9;
                break;
            case 2: /* the file's start: "PAR1" and a FILE record */
                memcpy(p, "PAR1", 4);
                s.len = 4 + (uint32_t)fake_record(p + 4, 1, 0);
                break;
            default:
                s.len = (uint32_t)snprintf((char *)p, 24, "row-%u", i + salt);
                break;
            }
            s.ptr = p;
            used += s.len;
            memcpy((uint8_t *)data[1].vals + sizeof s * data[1].nv++, &s, sizeof s);
        }
        data[2].def[i] = i % 3 != 0;
        if (data[2].def[i])
            memcpy((uint8_t *)data[2].vals + 8 * data[2].nv++, &v, 8);
    }
}

static void build(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t i;
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
    fill(0);
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

/* ---- writing --------------------------------------------------------------------- */

static upq_writer_opts wopts;
static upq_column_opts copts[NCOL];
static uint8_t *warena;
static size_t warena_len;

static void set_options(const rcfg *k, uint64_t file_id, int checkpoint)
{
    size_t need = 0;
    int c;
    memset(&wopts, 0, sizeof wopts);
    for (c = 0; c < NCOL; c++) {
        copts[c].encoding = -1;
        copts[c].dictionary = -1;
    }
    if (k->plain_strings)
        copts[1].dictionary = 0;
    wopts.columns = copts;
    wopts.ncolumns = NCOL;
    wopts.page_size = k->page_size;
    wopts.data_page_v2 = k->v2;
    wopts.codec = k->codec;
    wopts.checkpoint = (uint8_t)checkpoint;
    wopts.checkpoint_rows = checkpoint ? k->ckpt_rows : 0;
    wopts.row_group_rows = k->rg_rows;
    wopts.file_id = checkpoint ? file_id : 0;
    TU_CHECK_STATUS(upq_writer_workspace_size(elems, nelems, &wopts, checkpoint ? 0 : 20, &need), UPQ_OK);
    free(warena);
    warena_len = need;
    warena = (uint8_t *)malloc(need);
}

/* The checkpoints of the uncut run: rows durable, and the bytes the sink
 * had taken when they became durable. */
static uint64_t ck_rows[ROWS + 2], ck_bytes[ROWS + 2];
static size_t nck;

static int is_checkpoint(uint64_t rows)
{
    size_t i;
    if (rows == 0)
        return 1; /* the journal's start: an empty file */
    for (i = 0; i < nck; i++)
        if (ck_rows[i] == rows)
            return 1;
    return 0;
}

typedef struct run_result {
    upq_status st;       /* UPQ_OK: closed */
    uint64_t taken;      /* rows the writer took */
    uint64_t durable;    /* upq_writer_rows_durable() at the end (the cut) */
} run_result;

/* 0: run_writer writes row by row; else each column's rows as runs of this
 * many entries (upq_writer_put_run), the columns in turn. */
static size_t run_len;

/* The rows as runs of run_len: a column that says UPQ_DONE waits for the
 * next round; *taken follows the rows every column has. */
static upq_status put_runs(upq_writer *w, run_result *rr, const tu_sd *sd, int record)
{
    size_t pos[NCOL] = {0}, vpos[NCOL] = {0};
    upq_status st = UPQ_OK;
    uint32_t c;
    unsigned long idle = 0;
    while (pos[0] < ROWS || pos[1] < ROWS || pos[2] < ROWS) {
        int progress = 0;
        for (c = 0; c < NCOL; c++) {
            size_t end = pos[c] + run_len < ROWS ? pos[c] + run_len : ROWS, took, i;
            if (pos[c] == ROWS)
                continue;
            /* UPQ_AGAIN: called again at once with the rest */
            do {
                took = 0;
                st = upq_writer_put_run(w, c,
                                        (const uint8_t *)data[c].vals + vpos[c] * wu_value_size(types[c]),
                                        maxdef[c] ? data[c].def + pos[c] : NULL, end - pos[c], &took);
                for (i = pos[c]; i < pos[c] + took; i++)
                    vpos[c] += maxdef[c] == 0 || data[c].def[i];
                pos[c] += took;
                progress |= took > 0;
                /* a failing call may have taken rows, and checkpointed them */
                rr->taken = upq_writer_rows(w);
                if (record && upq_writer_rows_durable(w) != (nck ? ck_rows[nck - 1] : 0)) {
                    ck_rows[nck] = upq_writer_rows_durable(w);
                    ck_bytes[nck++] = sd ? sd->st.bytes_written : 0;
                }
            } while (st == UPQ_AGAIN && ++idle < SPIN_LIMIT);
            if (st < 0 || st == UPQ_AGAIN)
                return st < 0 ? st : UPQ_ERR_STATE;
        }
        WU_RETRY(st, upq_writer_poll(w));
        if (st != UPQ_OK)
            return st;
        if (record && upq_writer_rows_durable(w) != (nck ? ck_rows[nck - 1] : 0)) {
            ck_rows[nck] = upq_writer_rows_durable(w);
            ck_bytes[nck++] = sd ? sd->st.bytes_written : 0;
        }
        if (!progress && ++idle > SPIN_LIMIT)
            return UPQ_ERR_STATE;
    }
    return UPQ_OK;
}

/* Writes the rows through `sink` and closes, stopping at the first error.
 * sd (may be NULL): the card, whose byte count is noted at each new
 * checkpoint when `record`. */
static void run_writer(const upq_sink *sink, const tu_sd *sd, int record, run_result *rr)
{
    static upq_writer w;
    upq_status st;
    uint32_t i, c;
    size_t vpos[NCOL] = {0};
    memset(rr, 0, sizeof *rr);
    if (record)
        nck = 0;
    st = upq_writer_init(&w, sink, elems, nelems, warena, warena_len, &wopts);
    if (st == UPQ_OK && run_len)
        st = put_runs(&w, rr, sd, record);
    for (i = 0; i < ROWS && st == UPQ_OK && !run_len; i++) {
        for (c = 0; c < NCOL && st == UPQ_OK; c++) {
            if (maxdef[c] && !data[c].def[i]) {
                WU_RETRY(st, upq_writer_set_null(&w, c));
            } else {
                const uint8_t *v = (const uint8_t *)data[c].vals + vpos[c]++ * wu_value_size(types[c]);
                WU_RETRY(st, upq_writer_set(&w, c, v));
            }
        }
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_end_row(&w));
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_poll(&w));
        if (st == UPQ_OK)
            rr->taken++;
        if (record && upq_writer_rows_durable(&w) != (nck ? ck_rows[nck - 1] : 0)) {
            ck_rows[nck] = upq_writer_rows_durable(&w);
            ck_bytes[nck++] = sd ? sd->st.bytes_written : 0;
        }
    }
    if (st == UPQ_OK)
        WU_RETRY(st, upq_writer_close(&w));
    rr->st = st;
    rr->durable = upq_writer_rows_durable(&w);
    if (record && st == UPQ_OK && rr->durable != (nck ? ck_rows[nck - 1] : 0)) {
        ck_rows[nck] = rr->durable;
        ck_bytes[nck++] = sd ? sd->st.bytes_written : 0;
    }
}

/* ---- recovery and reading back ---------------------------------------------------- */

static upq_recover_state rstate; /* about as large as a writer: off the stack */
static uint8_t rarena[RECOVER_ARENA];

static upq_status recover(const upq_sink *sink, uint64_t size, void *arena, size_t arena_len,
                          int dry, upq_recover_info *info)
{
    upq_recover_opts o;
    upq_status s;
    unsigned long spins = 0;
    memset(&rstate, 0, sizeof rstate);
    memset(&o, 0, sizeof o);
    o.dry_run = (uint8_t)dry;
    do
        s = upq_recover(&rstate, sink, size, arena, arena_len, &o, info);
    while (s == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    return s;
}

static const char *recover_what(void)
{
    return upq_recover_error(&rstate)->what ? upq_recover_error(&rstate)->what : "";
}

/* Reads p[0..n) as a Parquet file: exactly `rows` rows, every value as
 * written, column by column; every row group holds at least one row and at
 * most row_group_rows (fewer when the writer ended it early because a
 * column's region was full, or when a cut ended it at a checkpoint), and
 * they add up to the rows. Returns the mismatches (0: all good). */
static long read_back(const uint8_t *p, size_t n, uint64_t rows, const char *what)
{
    rfile f;
    long bad = 0;
    int c;
    uint32_t g;
    uint64_t sum = 0, rg = wopts.row_group_rows ? wopts.row_group_rows : 65536u;
    const upq_file_metadata *m;
    upq_status st = rfile_open(&f, p, n);
    if (st != UPQ_OK) {
        printf("  %s: reading back: %s (%s)\n", what, upq_strerror(st),
               upq_reader_error(&f.r)->what ? upq_reader_error(&f.r)->what : "");
        rfile_close(&f);
        return 1;
    }
    m = upq_reader_metadata(&f.r);
    if ((uint64_t)m->num_rows != rows) {
        printf("  %s: the footer says %lld rows, want %llu\n", what, (long long)m->num_rows,
               (unsigned long long)rows);
        bad++;
    }
    for (g = 0; g < m->row_groups.n; g++) {
        int64_t k = m->row_groups.v[g].num_rows;
        if (k < 1 || (uint64_t)k > rg) {
            printf("  %s: row group %u holds %lld rows, want 1..%llu\n", what, g, (long long)k,
                   (unsigned long long)rg);
            bad++;
        } else {
            sum += (uint64_t)k;
        }
    }
    if (sum != rows) {
        printf("  %s: the row groups hold %llu rows, want %llu\n", what, (unsigned long long)sum,
               (unsigned long long)rows);
        bad++;
    }
    for (c = 0; c < NCOL; c++) {
        col_data d = prefix(c, (size_t)rows);
        bad += wu_compare_column(&f, (uint32_t)c, types[c], maxdef[c], 0, &d, what);
    }
    rfile_close(&f);
    return bad;
}

/* A sink_buf holding a copy of p[0..n) in `mode`; with_truncate 0: its
 * sink has no truncate. */
static upq_sink buf_of(sink_buf *b, const uint8_t *p, size_t n, int mode, uint64_t seed,
                       int with_truncate)
{
    upq_sink k;
    sink_init(b, mode, seed);
    sink_grow(b, n);
    if (n)
        memcpy(b->p, p, n);
    k = sink_of(b, 1);
    if (!with_truncate)
        k.truncate = NULL;
    return k;
}

static int same_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* ---- after a cut ------------------------------------------------------------------ */

typedef struct counts {
    unsigned long cuts, recovered, empty, flaky, bad, stale;
} counts;

/* One expectation of a cut: a failure is counted and the first few are
 * printed (every cut of a case ends in one counted check). Returns ok. */
static int expect(counts *cn, int ok, const char *fmt, ...)
{
    va_list ap;
    if (ok)
        return 1;
    if (cn->bad++ < 6) {
        printf("  ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    }
    return 0;
}

/* The card's medium held another file before (cfg.stale). */
static int on_stale;

/* Recovers the cut file on the card (powered up again) and checks it. */
static void after_cut(const rcfg *k, tu_sd *sd, const run_result *rr, const char *what,
                      unsigned long n, int flaky, counts *cn)
{
    upq_sink sink;
    upq_recover_info info, dry, again;
    upq_status st, dst;
    uint8_t *before, *after;
    size_t blen = 0, alen = 0;
    uint64_t len = 0;
    const uint8_t *img;
    char name[96];
    unsigned long writes;
    snprintf(name, sizeof name, "%s: %s %lu", k->name, what, n);
    tu_sd_remount(sd, NULL);
    tu_sd_sink(sd, &sink);
    cn->cuts++;
    img = tu_sd_file(sd, &len);
    before = (uint8_t *)malloc(len ? (size_t)len : 1);
    memcpy(before, img, (size_t)len);
    blen = (size_t)len;

    /* a dry run: the rows recovery will keep, nothing written */
    dst = recover(&sink, blen, rarena, sizeof rarena, 1, &dry);
    img = tu_sd_file(sd, &len);
    expect(cn, sd->st.write_calls == 0 && sd->st.truncate_calls == 0 && same_bytes(img, (size_t)len, before, blen),
           "%s: the dry run wrote", name);

    st = recover(&sink, blen, rarena, sizeof rarena, 0, &info);
    if (st == UPQ_OK && rr->durable == 0 && info.rows > rr->taken + 1 && on_stale) {
        /* nothing was ever synced, so every sector may show what the medium
         * held before: another checkpoint-mode file (of the same rows), whose
         * journal is then all there is */
        img = tu_sd_file(sd, &len);
        expect(cn, read_back(img, (size_t)len, info.rows, name) == 0, "%s: the file that was there", name);
        cn->stale++;
        free(before);
        return;
    }
    if (st == UPQ_ERR_CORRUPT && rr->durable == 0) {
        /* nothing durable yet, not even the journal's start */
        img = tu_sd_file(sd, &len);
        expect(cn, dst == UPQ_ERR_CORRUPT && same_bytes(img, (size_t)len, before, blen),
               "%s: refused, but changed the file", name);
        cn->empty++;
        free(before);
        return;
    }
    if (!expect(cn, st == UPQ_OK, "%s: recovery: %s (%s), %llu rows durable", name, upq_strerror(st),
                recover_what(), (unsigned long long)rr->durable)) {
        free(before);
        return;
    }
    expect(cn, dst == UPQ_OK && dry.rows == info.rows && dry.row_groups == info.row_groups,
           "%s: the dry run said %s, %llu rows; recovery %llu", name, upq_strerror(dst),
           (unsigned long long)dry.rows, (unsigned long long)info.rows);
    expect(cn, info.rows >= rr->durable && info.rows <= rr->taken + 1 && is_checkpoint(info.rows),
           "%s: %llu rows recovered, %llu durable, %llu taken", name, (unsigned long long)info.rows,
           (unsigned long long)rr->durable, (unsigned long long)rr->taken);
    expect(cn, info.file_size == tu_sd_len(sd) && !info.was_closed, "%s: recovered size %llu, file %llu%s",
           name, (unsigned long long)info.file_size, (unsigned long long)tu_sd_len(sd),
           info.was_closed ? ", was_closed" : "");
    img = tu_sd_file(sd, &len);
    expect(cn, read_back(img, (size_t)len, info.rows, name) == 0, "%s: the recovered file", name);
    after = (uint8_t *)malloc(len ? (size_t)len : 1);
    memcpy(after, img, (size_t)len);
    alen = (size_t)len;

    /* recovering it again: closed already, nothing written */
    writes = sd->st.write_calls;
    st = recover(&sink, alen, rarena, sizeof rarena, 0, &again);
    img = tu_sd_file(sd, &len);
    expect(cn, st == UPQ_OK && again.was_closed && again.rows == info.rows,
           "%s: recovered twice: %s, was_closed %u, %llu rows", name, upq_strerror(st), again.was_closed,
           (unsigned long long)again.rows);
    expect(cn, sd->st.write_calls == writes && same_bytes(img, (size_t)len, after, alen),
           "%s: recovered twice: %lu writes, %s", name, sd->st.write_calls - writes,
           same_bytes(img, (size_t)len, after, alen) ? "the same bytes" : "other bytes");

    /* the same cut file through sinks that say "again" and take and give
     * short counts, with and without truncate: the same bytes (without
     * truncate, the footer is put at the end of what is there) */
    if (flaky) {
        sink_buf ref, alt;
        upq_recover_info ri, ai;
        int trunc = (int)(cn->cuts & 1u);
        upq_sink rk = buf_of(&ref, before, blen, SINK_WHOLE, 1, trunc);
        upq_sink ak = buf_of(&alt, before, blen, SINK_AGAIN, tu_seed() + n, trunc);
        upq_status rs = recover(&rk, blen, rarena, sizeof rarena, 0, &ri);
        upq_status as = recover(&ak, blen, rarena, sizeof rarena, 0, &ai);
        expect(cn, rs == UPQ_OK && as == UPQ_OK && ri.rows == info.rows && ai.rows == info.rows &&
                       ai.file_size == ri.file_size && same_bytes(alt.p, alt.n, ref.p, ref.n),
               "%s (truncate %s): whole calls %s %llu rows, flaky calls %s %llu rows, %zu vs %zu bytes", name,
               trunc ? "on" : "off", upq_strerror(rs), (unsigned long long)ri.rows, upq_strerror(as),
               (unsigned long long)ai.rows, ref.n, alt.n);
        expect(cn, alt.agains > 0, "%s: the flaky sink never said again", name);
        expect(cn, rs == UPQ_OK && ri.file_size == ref.n && read_back(ref.p, ref.n, info.rows, name) == 0,
               "%s (truncate %s): a file of %zu bytes, %llu recovered", name, trunc ? "on" : "off", ref.n,
               (unsigned long long)ri.file_size);
        sink_free(&ref);
        sink_free(&alt);
        cn->flaky++;
    }
    cn->recovered++;
    free(before);
    free(after);
}

/* ---- the cuts ---------------------------------------------------------------------- */

static uint8_t *other_file; /* a closed checkpoint-mode file with another file id */
static size_t other_len;

static void card_cfg(tu_sd_cfg *cfg, const rcfg *k, uint64_t seed)
{
    tu_sd_cfg_default(cfg);
    cfg->seed = seed;
    cfg->max_chunk = k->max_chunk;
    cfg->short_random = k->max_chunk != 0;
    cfg->write_again.every = k->again;
    cfg->sync_again.every = k->again ? 2u : 0u;
}

static void test_cuts(const rcfg *k, uint64_t seed)
{
    tu_sd sd;
    tu_sd_cfg cfg;
    upq_sink sink;
    run_result rr;
    counts cn;
    unsigned long calls, cut, step;
    uint64_t bytes;
    size_t i;
    int d;

    memset(&cn, 0, sizeof cn);
    tu_case("%s: the uncut file", k->name);
    set_options(k, FILE_ID, 1);
    card_cfg(&cfg, k, seed);
    tu_sd_init(&sd, &cfg);
    tu_sd_sink(&sd, &sink);
    run_writer(&sink, &sd, 1, &rr);
    if (!TU_CHECK_MSG(rr.st == UPQ_OK, "%s: the uncut run: %s", k->name, upq_strerror(rr.st))) {
        tu_sd_free(&sd);
        return;
    }
    TU_CHECK_UINT(rr.durable, ROWS);
    /* (runs: a checkpoint falls due at the end of a round of runs at most) */
    TU_CHECK(nck >= (k->ckpt_rows ? ROWS / (k->ckpt_rows > run_len ? k->ckpt_rows : run_len)
                                  : ROWS / k->rg_rows));
    calls = sd.st.write_taken;
    bytes = sd.st.bytes_written;
    {
        uint64_t len = 0;
        const uint8_t *img = tu_sd_file(&sd, &len);
        TU_CHECK_INT(read_back(img, (size_t)len, ROWS, k->name), 0);
        tu_note("%s: %u rows, %llu bytes, %lu write calls (%llu bytes), %zu checkpoints", k->name, ROWS,
                (unsigned long long)len, calls, (unsigned long long)bytes, nck);
    }
    tu_sd_free(&sd);

    /* prefixes of the data written: every write taken up to the byte, none
     * after (a clean cut); the file length as the driver saw it, as of the
     * last sync, or covering what persisted */
    tu_case("%s: cut at prefix lengths of the data written", k->name);
    step = (unsigned long)(bytes / 700u + 1u);
    /* a sample of every byte, then each checkpoint's last byte and the
     * bytes next to it */
    for (d = 0; d < 2; d++) {
        size_t m = d ? 3 * nck : (size_t)((bytes - 1) / step + 1);
        for (i = 0; i < m; i++) {
            uint64_t at = d ? ck_bytes[i / 3] + (i % 3) - 1 : 1 + i * step;
            if (at == 0 || at >= bytes || (!d && !tu_repeat_keep()))
                continue;
            card_cfg(&cfg, k, seed);
            cfg.cut_byte = at;
            cfg.persist_pct = 100;
            cfg.torn = TU_SD_TORN_CUT;
            cfg.len_policy = (tu_sd_len_policy)(at % 3); /* durable, persisted, volatile */
            cfg.cut_seed = seed * 31u + at;
            tu_sd_init(&sd, &cfg);
            tu_sd_sink(&sd, &sink);
            run_writer(&sink, NULL, 0, &rr);
            if (rr.st != UPQ_OK)
                after_cut(k, &sd, &rr, d ? "checkpoint byte" : "byte", (unsigned long)at, cn.cuts % 5 == 0,
                          &cn);
            tu_sd_free(&sd);
        }
    }
    tu_note("%s: %lu prefix cuts: %lu recovered (%lu also through flaky sinks), %lu before any checkpoint",
            k->name, cn.cuts, cn.recovered, cn.flaky, cn.empty);
    TU_CHECK_MSG(cn.bad == 0, "%s: %lu failed expectations in the prefix cuts", k->name, cn.bad);

    /* the SD card losing power at each write call: what was not synced kept
     * or lost in any order, the sector in flight torn, the medium beyond
     * the file holding another file's journal half of the time */
    tu_case("%s: cut at write calls on the SD card model", k->name);
    memset(&cn, 0, sizeof cn);
    step = calls / 1500u + 1u;
    for (cut = 0; cut < calls; cut += step) {
        if (!tu_repeat_keep())
            continue;
        card_cfg(&cfg, k, seed);
        cfg.cut_call = cut;
        cfg.persist_pct = (unsigned)(cut % 3u) * 50u;
        cfg.torn = (tu_sd_torn)(cut % 2u);
        cfg.len_policy = TU_SD_LEN_RANDOM;
        cfg.cut_seed = seed * 37u + cut;
        on_stale = (int)(cut % 2u);
        if (on_stale) {
            cfg.stale = other_file;
            cfg.stale_len = other_len;
        }
        tu_sd_init(&sd, &cfg);
        tu_sd_sink(&sd, &sink);
        run_writer(&sink, NULL, 0, &rr);
        if (rr.st != UPQ_OK)
            after_cut(k, &sd, &rr, "call", cut, cn.cuts % 7 == 3, &cn);
        tu_sd_free(&sd);
    }
    tu_note("%s: %lu card cuts: %lu recovered (%lu also through flaky sinks), %lu before any checkpoint, "
            "%lu before any sync showing the medium's old file",
            k->name, cn.cuts, cn.recovered, cn.flaky, cn.empty, cn.stale);
    TU_CHECK_MSG(cn.bad == 0, "%s: %lu failed expectations in the card cuts", k->name, cn.bad);
    TU_CHECK(cn.recovered > 0);
}

/* ---- a new file over an old one of the same file id -------------------------------------- */

/* The cuts below are thinned to one in this many in the asan stage
 * ($UPQ_TEST_QUICK=1), whose sanitizers make each a lot dearer. */
static unsigned quick_thin(void)
{
    const char *q = getenv("UPQ_TEST_QUICK");
    return q && strcmp(q, "1") == 0 ? 3u : 1u;
}

/* Sets and ends rows [from, ROWS) through w (resumed), then closes. */
static upq_status write_rest(upq_writer *w, uint64_t from)
{
    size_t vpos[NCOL] = {0};
    upq_status st = UPQ_OK;
    uint64_t i;
    uint32_t c;
    for (c = 0; c < NCOL; c++)
        for (i = 0; i < from; i++)
            vpos[c] += maxdef[c] == 0 || data[c].def[i];
    for (i = from; i < ROWS && st == UPQ_OK; i++) {
        for (c = 0; c < NCOL && st == UPQ_OK; c++) {
            if (maxdef[c] && !data[c].def[i]) {
                WU_RETRY(st, upq_writer_set_null(w, c));
            } else {
                const uint8_t *v = (const uint8_t *)data[c].vals + vpos[c]++ * wu_value_size(types[c]);
                WU_RETRY(st, upq_writer_set(w, c, v));
            }
        }
        if (st == UPQ_OK)
            WU_RETRY(st, upq_writer_end_row(w));
    }
    if (st == UPQ_OK)
        WU_RETRY(st, upq_writer_close(w));
    return st;
}

/* Resumes the file `sink` holds (`size` bytes) and writes the rest of the
 * rows: UPQ_OK with *r0 the rows the file kept, or the failure. */
static upq_status resume_rest(const upq_sink *sink, uint64_t size, uint64_t *r0)
{
    static upq_writer w;
    upq_status st = upq_writer_init(&w, sink, elems, nelems, warena, warena_len, &wopts);
    unsigned long spins = 0;
    *r0 = 0;
    if (st != UPQ_OK)
        return st;
    do
        st = upq_writer_resume(&w, size);
    while (st == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    if (st != UPQ_OK)
        return st;
    *r0 = upq_writer_rows(&w);
    return write_rest(&w, *r0);
}

/* The rows of salt `old_salt` were there before: recovery of the file, or
 * the old file itself when nothing of the new one became durable (its FILE
 * record not even synced: then the medium shows the old one whole). */
static int old_file_rows(const uint8_t *p, size_t n, uint64_t rows, uint32_t old_salt, const char *what)
{
    long bad;
    if (rows != ROWS)
        return 0;
    fill(old_salt);
    bad = read_back(p, n, rows, what);
    fill(0);
    return bad == 0;
}

/* A cut file of this run (rr) on a medium that held a closed file of the
 * same file id (rows of salt old_salt): recovery keeps exactly this file's
 * checkpointed rows, and resume keeps them and adds the rest. */
static void reused_after_cut(tu_sd *sd, const run_result *rr, uint32_t old_salt, const char *name, counts *cn)
{
    upq_recover_info info;
    upq_status st;
    sink_buf b;
    upq_sink k, sink;
    uint64_t len = 0, r0 = 0;
    const uint8_t *img;
    uint8_t *before;
    size_t n;
    tu_sd_remount(sd, NULL);
    img = tu_sd_file(sd, &len);
    n = (size_t)len;
    before = (uint8_t *)malloc(n ? n : 1);
    memcpy(before, img, n);
    cn->cuts++;
    /* recovery, on a copy */
    k = buf_of(&b, before, n, SINK_WHOLE, 1, 1);
    st = recover(&k, n, rarena, sizeof rarena, 0, &info);
    if (st == UPQ_OK && rr->durable == 0 && old_file_rows(b.p, (size_t)info.file_size, info.rows, old_salt, name)) {
        cn->stale++;
    } else if (st == UPQ_ERR_CORRUPT && rr->durable == 0) {
        expect(cn, same_bytes(b.p, b.n, before, n), "%s: refused, but changed the file", name);
        cn->empty++;
    } else if (expect(cn, st == UPQ_OK, "%s: recovery: %s (%s), %llu rows durable", name, upq_strerror(st),
                      recover_what(), (unsigned long long)rr->durable)) {
        expect(cn,
               info.rows >= rr->durable && info.rows <= rr->taken + 1 && is_checkpoint(info.rows) &&
                   read_back(b.p, (size_t)info.file_size, info.rows, name) == 0,
               "%s: %llu rows recovered (the old file's?), %llu durable, %llu taken", name,
               (unsigned long long)info.rows, (unsigned long long)rr->durable, (unsigned long long)rr->taken);
        cn->recovered++;
    }
    sink_free(&b);
    /* resume, on the card as the cut left it: the rows recovery keeps, then
     * the rest; never the old file's records */
    tu_sd_sink(sd, &sink);
    st = resume_rest(&sink, len, &r0);
    img = tu_sd_file(sd, &len);
    if (st == UPQ_ERR_CORRUPT && rr->durable == 0)
        expect(cn, same_bytes(img, (size_t)len, before, n), "%s: resume refused, but changed the file", name);
    else if (st == UPQ_OK && rr->durable == 0 && r0 == ROWS)
        expect(cn, old_file_rows(img, (size_t)len, ROWS, old_salt, name), "%s: resumed the old file?", name);
    else
        expect(cn,
               st == UPQ_OK && r0 >= rr->durable && r0 <= rr->taken + 1 && is_checkpoint(r0) &&
                   read_back(img, (size_t)len, ROWS, name) == 0,
               "%s: resume: %s, kept %llu rows (%llu durable, %llu taken)", name, upq_strerror(st),
               (unsigned long long)r0, (unsigned long long)rr->durable, (unsigned long long)rr->taken);
    free(before);
}

/* A closed file of this schema, options and file id with the rows of `salt`
 * (malloc'd, *n). */
static uint8_t *closed_file(uint32_t salt, size_t *n)
{
    sink_buf s;
    upq_sink sink;
    run_result rr;
    fill(salt);
    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 1);
    run_writer(&sink, NULL, 0, &rr);
    fill(0);
    TU_CHECK_STATUS(rr.st, UPQ_OK);
    *n = s.n;
    return s.p;
}

/*
 * A log made again over an old closed log of the same file id, as a FAT
 * driver does when it re-creates the file in the clusters the old one held
 * (the new file empty, every gap it leaves showing the old bytes), with the
 * same readings and with other ones, cut at many points of its first row
 * group: recovery keeps exactly this file's checkpointed rows, resume keeps
 * them. (The old file's records lie where the new one's go, with the same
 * sequence numbers: only the nonce tells them apart.)
 */
static void test_reused(const rcfg *k, uint64_t seed)
{
    uint32_t old_salt;
    for (old_salt = 0; old_salt < 2; old_salt++) {
        tu_sd sd;
        tu_sd_cfg cfg;
        upq_sink sink;
        run_result rr;
        counts cn;
        size_t old_n = 0, i;
        uint8_t *old;
        uint64_t first_end = 0, step, at;
        tu_case("%s: a new file over an old one of the same file id, %s readings", k->name,
                old_salt ? "other" : "the same");
        set_options(k, FILE_ID, 1);
        old = closed_file(old_salt, &old_n);
        /* the uncut run over it: its checkpoints, and where its first row
         * group ends */
        card_cfg(&cfg, k, seed);
        cfg.stale = old;
        cfg.stale_len = old_n;
        tu_sd_init(&sd, &cfg);
        tu_sd_sink(&sd, &sink);
        run_writer(&sink, &sd, 1, &rr);
        tu_sd_free(&sd);
        for (i = 0; i < nck; i++)
            if (ck_rows[i] <= k->rg_rows)
                first_end = ck_bytes[i];
        if (!TU_CHECK_MSG(rr.st == UPQ_OK && first_end > 0, "%s: the uncut run over the old file: %s", k->name,
                          upq_strerror(rr.st))) {
            free(old);
            continue;
        }
        memset(&cn, 0, sizeof cn);
        step = (first_end / 90u + 1u) * quick_thin();
        for (at = 1; at <= first_end + 1u; at += step) {
            char name[128];
            card_cfg(&cfg, k, seed);
            cfg.stale = old;
            cfg.stale_len = old_n;
            cfg.cut_byte = at;
            cfg.persist_pct = (unsigned)(at % 3u) * 50u;
            cfg.torn = (tu_sd_torn)(at % 3u);
            cfg.len_policy = TU_SD_LEN_RANDOM;
            cfg.cut_seed = seed * 41u + at;
            tu_sd_init(&sd, &cfg);
            tu_sd_sink(&sd, &sink);
            run_writer(&sink, NULL, 0, &rr);
            snprintf(name, sizeof name, "%s, %s readings, cut at byte %llu", k->name, old_salt ? "other" : "same",
                     (unsigned long long)at);
            if (rr.st != UPQ_OK)
                reused_after_cut(&sd, &rr, old_salt, name, &cn);
            tu_sd_free(&sd);
        }
        tu_note("%s, %s readings: %lu cuts in the first row group: %lu recovered, %lu before any checkpoint, "
                "%lu showing the old file (nothing of the new one synced)",
                k->name, old_salt ? "other" : "the same", cn.cuts, cn.recovered, cn.empty, cn.stale);
        TU_CHECK_MSG(cn.bad == 0, "%s: %lu failed expectations", k->name, cn.bad);
        TU_CHECK(cn.recovered > 0);
        free(old);
    }
}

/* A write_at that stops taking data after `left` more calls (a process
 * killed while writing a file in place). */
typedef struct stop_sink {
    upq_sink inner;
    unsigned long left;
} stop_sink;

static upq_status stop_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    stop_sink *s = (stop_sink *)ctx;
    if (!s->left)
        return UPQ_ERR_IO;
    s->left--;
    return s->inner.write_at(s->inner.ctx, off, buf, len, written);
}

static upq_status stop_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    stop_sink *s = (stop_sink *)ctx;
    return s->inner.read_at(s->inner.ctx, off, buf, len, got);
}

static upq_status stop_sync(void *ctx)
{
    stop_sink *s = (stop_sink *)ctx;
    return s->left ? s->inner.sync(s->inner.ctx) : UPQ_ERR_IO;
}

/*
 * A POSIX file rewritten in place without truncation (opened for writing
 * over an old closed log of the same file id, which it is longer than
 * until the new one passes it), the writing stopped at many points of its
 * first row group: recovery keeps exactly the new file's checkpointed rows;
 * resume keeps them and adds the rest.
 */
static void test_rewritten(const rcfg *k)
{
    char path[256];
    uint8_t *old;
    size_t old_n = 0;
    uint32_t old_salt;
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/upq_test_recover_%ld.parquet", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    for (old_salt = 0; old_salt < 2; old_salt++) {
        counts cn;
        unsigned long calls, cut;
        tu_case("%s: a POSIX file rewritten in place without truncation, %s readings", k->name,
                old_salt ? "other" : "the same");
        set_options(k, FILE_ID, 1);
        old = closed_file(old_salt, &old_n);
        memset(&cn, 0, sizeof cn);
        /* the write calls of the first row group, from a run that is not stopped */
        calls = 0;
        {
            sink_buf s;
            upq_sink sink;
            run_result rr;
            sink_init(&s, SINK_WHOLE, 1);
            sink = sink_of(&s, 1);
            run_writer(&sink, NULL, 1, &rr);
            calls = s.writes_at;
            sink_free(&s);
        }
        for (cut = 0; cut < calls; cut += (calls / 40u + 1u) * quick_thin()) {
            upq_posix_sink ps;
            stop_sink ss;
            upq_sink sink;
            run_result rr;
            upq_recover_info info;
            upq_status st;
            uint64_t r0 = 0;
            char name[128];
            uint8_t *img = NULL;
            size_t n = 0;
            FILE *fp = fopen(path, "wb");
            if (!TU_CHECK(fp != NULL && fwrite(old, 1, old_n, fp) == old_n))
                break;
            fclose(fp);
            snprintf(name, sizeof name, "%s, %s readings, stopped after %lu writes", k->name,
                     old_salt ? "other" : "same", cut);
            if (!TU_CHECK_STATUS(upq_posix_sink_open(&ps, path, 0), UPQ_OK))
                break;
            upq_posix_sink_init(&ps, &ss.inner);
            ss.left = cut;
            sink = ss.inner;
            sink.ctx = &ss;
            sink.write_at = stop_write_at;
            sink.read_at = stop_read_at;
            sink.sync = stop_sync;
            sink.truncate = NULL; /* killed before it could cut anything */
            run_writer(&sink, NULL, 0, &rr);
            upq_posix_sink_close(&ps);
            if (rr.st == UPQ_OK)
                continue;
            cn.cuts++;
            if (!TU_CHECK(tu_read_file(path, &img, &n) == 0))
                break;
            /* recovery in place, through the POSIX sink */
            if (TU_CHECK_STATUS(upq_posix_sink_open(&ps, path, 0), UPQ_OK)) {
                upq_sink rs;
                upq_posix_sink_init(&ps, &rs);
                st = recover(&rs, ps.size, rarena, sizeof rarena, 0, &info);
                upq_posix_sink_close(&ps);
                if (st == UPQ_OK && rr.durable == 0 && old_file_rows(img, n, info.rows, old_salt, name)) {
                    cn.stale++;
                } else if (expect(&cn, st == UPQ_OK || (st == UPQ_ERR_CORRUPT && rr.durable == 0),
                                  "%s: recovery: %s (%s)", name, upq_strerror(st), recover_what()) &&
                           st == UPQ_OK) {
                    uint8_t *r = NULL;
                    size_t rn = 0;
                    TU_CHECK(tu_read_file(path, &r, &rn) == 0);
                    expect(&cn,
                           info.rows >= rr.durable && info.rows <= rr.taken + 1 && is_checkpoint(info.rows) &&
                               read_back(r, rn, info.rows, name) == 0,
                           "%s: %llu rows recovered (the old file's?), %llu durable, %llu taken", name,
                           (unsigned long long)info.rows, (unsigned long long)rr.durable,
                           (unsigned long long)rr.taken);
                    free(r);
                    cn.recovered++;
                }
            }
            /* resume of the stopped file (put back), through the POSIX sink */
            fp = fopen(path, "wb");
            if (!TU_CHECK(fp != NULL && fwrite(img, 1, n, fp) == n))
                break;
            fclose(fp);
            if (TU_CHECK_STATUS(upq_posix_sink_open(&ps, path, 0), UPQ_OK)) {
                upq_sink rs;
                uint8_t *r = NULL;
                size_t rn = 0;
                upq_posix_sink_init(&ps, &rs);
                st = resume_rest(&rs, ps.size, &r0);
                upq_posix_sink_close(&ps);
                TU_CHECK(tu_read_file(path, &r, &rn) == 0);
                if (!(rr.durable == 0 && (st == UPQ_ERR_CORRUPT || (st == UPQ_OK && r0 == ROWS &&
                                                                      old_file_rows(r, rn, ROWS, old_salt, name)))))
                    expect(&cn,
                           st == UPQ_OK && r0 >= rr.durable && r0 <= rr.taken + 1 && is_checkpoint(r0) &&
                               read_back(r, rn, ROWS, name) == 0,
                           "%s: resume: %s, kept %llu rows (%llu durable)", name, upq_strerror(st),
                           (unsigned long long)r0, (unsigned long long)rr.durable);
                free(r);
            }
            free(img);
        }
        tu_note("%s, %s readings: %lu stopped rewrites: %lu recovered, %lu showing the old file", k->name,
                old_salt ? "other" : "the same", cn.cuts, cn.recovered, cn.stale);
        TU_CHECK_MSG(cn.bad == 0, "%s: %lu failed expectations", k->name, cn.bad);
        TU_CHECK(cn.recovered > 0);
        free(old);
    }
    remove(path);
}

/* ---- the whole file, and files that are not ours ------------------------------------- */

/* The file as the writer leaves it after the checkpoint that made `rows`
 * durable: the data written up to that checkpoint, cut there. Returns a
 * malloc'd copy (*len set), NULL when the run did not stop there. */
static uint8_t *file_at_checkpoint(const rcfg *k, uint64_t rows, uint64_t seed, size_t *len)
{
    tu_sd sd;
    tu_sd_cfg cfg;
    upq_sink sink;
    run_result rr;
    uint8_t *p = NULL;
    size_t i;
    for (i = 0; i < nck && ck_rows[i] != rows; i++)
        ;
    if (i == nck)
        return NULL;
    card_cfg(&cfg, k, seed);
    cfg.cut_byte = ck_bytes[i];
    cfg.persist_pct = 100;
    cfg.torn = TU_SD_TORN_CUT;
    cfg.len_policy = TU_SD_LEN_VOLATILE;
    tu_sd_init(&sd, &cfg);
    tu_sd_sink(&sd, &sink);
    run_writer(&sink, NULL, 0, &rr);
    if (rr.st != UPQ_OK && rr.durable == rows)
        p = tu_sd_post_dup(&sd, len);
    tu_sd_free(&sd);
    return p;
}

/* Recovering `p` must refuse with UPQ_ERR_CORRUPT and write nothing. */
static void check_refused(const uint8_t *p, size_t n, const char *what)
{
    sink_buf b;
    upq_recover_info info;
    upq_sink k = buf_of(&b, p, n, SINK_SHORT, 3, 1);
    upq_status st = recover(&k, n, rarena, sizeof rarena, 0, &info);
    TU_CHECK_MSG(st == UPQ_ERR_CORRUPT, "%s: %s (%s), want corrupt", what, upq_strerror(st), recover_what());
    TU_CHECK_MSG(b.writes == 0 && b.writes_at == 0 && b.truncates == 0 && same_bytes(b.p, b.n, p, n),
                 "%s: refused but wrote (%lu writes, %lu truncates)", what, b.writes + b.writes_at,
                 b.truncates);
    sink_free(&b);
    /* the dry run refuses too */
    k = buf_of(&b, p, n, SINK_WHOLE, 3, 1);
    st = recover(&k, n, rarena, sizeof rarena, 1, &info);
    TU_CHECK_MSG(st == UPQ_ERR_CORRUPT && same_bytes(b.p, b.n, p, n), "%s: dry run: %s", what,
                 upq_strerror(st));
    sink_free(&b);
}

/* The file cut right after the checkpoint of `rows` rows, one page of
 * column 0 and one of column 2 of its last row group damaged in turn (the
 * last byte of their body), each a page that starts between checkpoints:
 * recovery must keep exactly the rows of the checkpoint before the page,
 * and say bad_pages. Returns 0 when the row group has no such page
 * (nothing checked), else 1. */
static int crc_flip(const rcfg *k, uint64_t rows, uint64_t seed)
{
    static uint8_t amem[1 << 16];
    size_t n = 0;
    uint8_t *p = file_at_checkpoint(k, rows, seed, &n);
    sink_buf ref;
    upq_sink rk;
    upq_recover_info info;
    upq_status st;
    rfile f;
    uint32_t col, g, gg;
    int64_t first = 0;
    int found = 0;
    if (!TU_CHECK_MSG(p != NULL, "%s: no file cut at %llu rows", k->name, (unsigned long long)rows))
        return 1;
    rk = buf_of(&ref, p, n, SINK_WHOLE, 1, 1);
    st = recover(&rk, n, rarena, sizeof rarena, 0, &info);
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_UINT(info.rows, rows);
    TU_CHECK(info.bad_pages == 0);
    /* the pages stay where they were: the recovered file's offset index
     * tells where they are in the cut one */
    if (st != UPQ_OK || !TU_CHECK_STATUS(rfile_open(&f, ref.p, ref.n), UPQ_OK)) {
        sink_free(&ref);
        free(p);
        return 1;
    }
    g = upq_reader_metadata(&f.r)->row_groups.n - 1;
    for (gg = 0; gg < g; gg++)
        first += upq_reader_metadata(&f.r)->row_groups.v[gg].num_rows;
    for (col = 0; col < NCOL; col += 2) {
        const upq_column_chunk *ch = upq_reader_chunk(&f.r, g, col);
        const upq_page_location *pl = NULL;
        upq_offset_index oi;
        upq_arena a;
        uint32_t j;
        upq_arena_init(&a, amem, sizeof amem);
        if (!TU_CHECK(UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET)) ||
            !TU_CHECK_STATUS(upq_thrift_decode(&upq_offset_index_desc, &oi, &a, ref.p + ch->offset_index_offset,
                                               (size_t)ch->offset_index_length, NULL, NULL),
                             UPQ_OK))
            continue;
        /* the last page that does not start at a checkpoint (nor the row
         * group): the rows kept end at the checkpoint before it */
        for (j = oi.page_locations.n; j-- > 1;) {
            uint64_t r0 = (uint64_t)(first + oi.page_locations.v[j].first_row_index);
            if (!is_checkpoint(r0) && r0 > (uint64_t)first) {
                pl = &oi.page_locations.v[j];
                break;
            }
        }
        if (!pl)
            continue;
        found = 1;
        {
            sink_buf c;
            upq_sink ck;
            uint64_t want = 0, r0 = (uint64_t)(first + pl->first_row_index);
            size_t at = (size_t)pl->offset + (size_t)pl->compressed_page_size - 1, q;
            char what[128];
            for (q = 0; q < nck; q++)
                if (ck_rows[q] <= r0 && ck_rows[q] > want)
                    want = ck_rows[q];
            snprintf(what, sizeof what, "%s: cut at %llu rows, column %u page at row %llu damaged", k->name,
                     (unsigned long long)rows, col, (unsigned long long)r0);
            ck = buf_of(&c, p, n, SINK_WHOLE, 1, 1);
            c.p[at] ^= 0x5A;
            st = recover(&ck, n, rarena, sizeof rarena, 0, &info);
            TU_CHECK_MSG(st == UPQ_OK && info.bad_pages && info.rows == want,
                         "%s: %s (%s), bad_pages %u, %llu rows, want %llu", what, upq_strerror(st),
                         recover_what(), info.bad_pages, (unsigned long long)info.rows,
                         (unsigned long long)want);
            if (st == UPQ_OK)
                TU_CHECK_MSG(read_back(c.p, (size_t)info.file_size, info.rows, what) == 0, "%s: reading back",
                             what);
            sink_free(&c);
        }
    }
    rfile_close(&f);
    sink_free(&ref);
    free(p);
    return found;
}

static void test_files(const rcfg *k, uint64_t seed)
{
    sink_buf s;
    upq_sink sink;
    run_result rr;
    upq_recover_info info;
    upq_status st;
    uint8_t *p;
    size_t n = 0;
    uint64_t mid;

    /* the closed file: nothing to do */
    tu_case("%s: a closed file is left as it is", k->name);
    set_options(k, FILE_ID, 1);
    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 1);
    run_writer(&sink, NULL, 0, &rr);
    if (TU_CHECK_STATUS(rr.st, UPQ_OK)) {
        sink_buf c;
        upq_sink ck = buf_of(&c, s.p, s.n, SINK_AGAIN, seed, 1);
        st = recover(&ck, c.n, rarena, sizeof rarena, 0, &info);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK(info.was_closed);
        TU_CHECK_UINT(info.rows, ROWS);
        TU_CHECK_UINT(info.file_size, s.n);
        TU_CHECK(c.writes == 0 && c.writes_at == 0 && c.truncates == 0 && same_bytes(c.p, c.n, s.p, s.n));
        sink_free(&c);
        ck = buf_of(&c, s.p, s.n, SINK_WHOLE, seed, 1);
        st = recover(&ck, c.n, rarena, sizeof rarena, 1, &info);
        TU_CHECK(st == UPQ_OK && info.rows == ROWS && info.was_closed && same_bytes(c.p, c.n, s.p, s.n));
        sink_free(&c);
        /* its FILE record damaged: not a file recovery may touch */
        c.p = (uint8_t *)malloc(s.n);
        memcpy(c.p, s.p, s.n);
        c.p[4 + 20] ^= 0x40; /* the record's file id */
        check_refused(c.p, s.n, "FILE record damaged");
        memcpy(c.p, s.p, s.n);
        c.p[4 + J_HDR + 2] ^= 0x01; /* its payload: the CRC fails */
        check_refused(c.p, s.n, "FILE record payload damaged");
        free(c.p);
    }

    /* an arena too small: the size it needs, nothing written; then that size */
    tu_case("%s: an arena too small", k->name);
    mid = ck_rows[nck / 2];
    p = file_at_checkpoint(k, mid, seed, &n);
    if (TU_CHECK_MSG(p != NULL, "%s: no file cut at %llu rows", k->name, (unsigned long long)mid)) {
        sink_buf ref, c;
        upq_sink rk = buf_of(&ref, p, n, SINK_WHOLE, 1, 1), ck;
        size_t need, small;
        uint8_t *a;
        st = recover(&rk, n, rarena, sizeof rarena, 0, &info);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_UINT(info.rows, mid);
        TU_CHECK(info.was_closed == 0 && info.bad_pages == 0);
        TU_CHECK_INT(read_back(ref.p, ref.n, mid, "at a checkpoint"), 0);
        /* a sink that only reads: a dry run works, a recovery is refused */
        ck = buf_of(&c, p, n, SINK_SHORT, 2, 1);
        ck.write_at = NULL;
        ck.write = NULL;
        ck.truncate = NULL;
        st = recover(&ck, n, rarena, sizeof rarena, 1, &info);
        TU_CHECK_MSG(st == UPQ_OK && info.rows == mid && !info.was_closed, "dry run, read-only: %s, %llu rows",
                     upq_strerror(st), (unsigned long long)info.rows);
        st = recover(&ck, n, rarena, sizeof rarena, 0, &info);
        TU_CHECK_STATUS(st, UPQ_ERR_INVAL);
        TU_CHECK(same_bytes(c.p, c.n, p, n));
        sink_free(&c);
        for (small = 256; small <= 8192; small *= 4) {
            ck = buf_of(&c, p, n, SINK_WHOLE, 1, 1);
            st = recover(&ck, n, rarena, small, 0, &info);
            need = upq_recover_needed(&rstate);
            TU_CHECK_MSG(st == UPQ_ERR_NOMEM && need > small && need <= RECOVER_ARENA,
                         "arena %zu: %s, needed %zu", small, upq_strerror(st), need);
            TU_CHECK(c.writes_at == 0 && c.truncates == 0 && same_bytes(c.p, c.n, p, n));
            sink_free(&c);
            if (st != UPQ_ERR_NOMEM || need <= small || need > (1u << 20))
                continue;
            /* exactly the size it asked for, at the end of a buffer so that
             * ASan sees a byte too far */
            a = (uint8_t *)malloc(need);
            ck = buf_of(&c, p, n, SINK_SHORT, 5, 1);
            st = recover(&ck, n, a, need, 0, &info);
            TU_CHECK_MSG(st == UPQ_OK && info.rows == mid, "arena of the size needed (%zu): %s (%s)", need,
                         upq_strerror(st), recover_what());
            if (st == UPQ_OK)
                TU_CHECK_MSG(same_bytes(c.p, c.n, ref.p, ref.n), "arena %zu: other bytes than in 32 KiB",
                             need);
            free(a);
            sink_free(&c);
        }
        /* the planner, from the schema and options alone: exactly the least
         * arena recovery succeeds in; 8 bytes less says that size */
        {
            size_t plan = 0;
            TU_CHECK_STATUS(upq_recover_workspace_size(elems, nelems, &wopts, &plan), UPQ_OK);
            a = (uint8_t *)malloc(plan + 8);
            ck = buf_of(&c, p, n, SINK_WHOLE, 1, 1);
            st = recover(&ck, n, a, plan, 0, &info);
            TU_CHECK_MSG(st == UPQ_OK && info.rows == mid && same_bytes(c.p, c.n, ref.p, ref.n),
                         "%s: the planner's %zu bytes: %s (%s)", k->name, plan, upq_strerror(st), recover_what());
            sink_free(&c);
            ck = buf_of(&c, p, n, SINK_WHOLE, 1, 1);
            st = recover(&ck, n, a, plan - 8, 0, &info);
            TU_CHECK_MSG(st == UPQ_ERR_NOMEM && upq_recover_needed(&rstate) == plan && same_bytes(c.p, c.n, p, n),
                         "%s: 8 bytes less than the planner's %zu: %s, needed %zu", k->name, plan, upq_strerror(st),
                         upq_recover_needed(&rstate));
            sink_free(&c);
            free(a);
        }
        sink_free(&ref);
        free(p);
    }
    sink_free(&s);

    /* resume with a dictionary budget too small for the cut row group's
     * dictionary: the row group is ended as recovery ends it, the rows go
     * on in the next (it used to take the row group up again forever) */
    if (!k->plain_strings) {
        tu_case("%s: resume with a dictionary budget too small for the file's", k->name);
        p = file_at_checkpoint(k, ck_rows[nck / 2], seed, &n);
        if (TU_CHECK(p != NULL)) {
            sink_buf c;
            upq_sink ck = buf_of(&c, p, n, SINK_WHOLE, 1, 1);
            uint64_t r0 = 0;
            uint8_t *big = warena;
            size_t big_len = warena_len;
            upq_writer_opts keep = wopts;
            wopts.dict_size = 16;
            TU_CHECK_STATUS(upq_writer_workspace_size(elems, nelems, &wopts, 0, &warena_len), UPQ_OK);
            warena = (uint8_t *)malloc(warena_len);
            st = resume_rest(&ck, n, &r0);
            TU_CHECK_MSG(st == UPQ_OK && r0 == ck_rows[nck / 2] && read_back(c.p, c.n, ROWS, k->name) == 0,
                         "%s: resume: %s, %llu rows kept of %llu", k->name, upq_strerror(st), (unsigned long long)r0,
                         (unsigned long long)ck_rows[nck / 2]);
            free(warena);
            warena = big;
            warena_len = big_len;
            wopts = keep;
            sink_free(&c);
            free(p);
        }
    }

    /* a page that fails its CRC in the middle of the data: cut back to the
     * checkpoint before that page (the latest checkpoint whose row group has
     * such a page is taken) */
    tu_case("%s: a page's CRC fails", k->name);
    {
        size_t i, tried = 0;
        int done = 0;
        for (i = nck; i-- > 0 && !done && tried < 8;) {
            if (ck_rows[i] == ROWS)
                continue;
            tried++;
            done = crc_flip(k, ck_rows[i], seed);
        }
        TU_CHECK_MSG(done, "%s: no checkpoint with a page to damage after it", k->name);
    }
}

static void test_not_ours(void)
{
    uint8_t junk[6000];
    uint64_t rng = tu_seed() ^ 0x1234;
    size_t i;
    sink_buf s;
    upq_sink sink;
    run_result rr;
    uint8_t *p = NULL;
    size_t n = 0;
    char path[512];

    tu_case("garbage is refused and left as it is");
    for (i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)tu_rand(&rng);
    check_refused(junk, 0, "an empty file");
    check_refused((const uint8_t *)"PAR1", 4, "PAR1 alone");
    check_refused(junk, 100, "100 random bytes");
    memcpy(junk, "PAR1", 4);
    check_refused(junk, sizeof junk, "PAR1 and random bytes");
    /* a record header that fits, then garbage: its CRC fails */
    fake_record(junk + 4, 1, 0);
    upq_store_le32(junk + 8, 3000);
    check_refused(junk, sizeof junk, "PAR1 and a FILE record of garbage");
    /* a FILE record with a valid CRC but no settings */
    fake_record(junk + 4, 1, 0);
    check_refused(junk, sizeof junk, "PAR1 and an empty FILE record");
    memcpy(junk, "PAR1", 4);
    memcpy(junk + sizeof junk - 4, "PAR1", 4);
    check_refused(junk, sizeof junk, "PAR1 ... PAR1");

    tu_case("Parquet written without checkpoint mode is refused and left as it is");
    set_options(&cfgs[0], 0, 0);
    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 0);
    run_writer(&sink, NULL, 0, &rr);
    if (TU_CHECK_STATUS(rr.st, UPQ_OK)) {
        TU_CHECK_INT(read_back(s.p, s.n, ROWS, "plain file"), 0);
        check_refused(s.p, s.n, "a file written without checkpoint mode");
    }
    sink_free(&s);

    snprintf(path, sizeof path, "%s/data/alltypes_plain.parquet", tu_corpus_dir());
    if (tu_read_file(path, &p, &n) == 0) {
        check_refused(p, n, "alltypes_plain.parquet");
        free(p);
    } else {
        tu_note("corpus file %s missing: skipped", path);
    }
}

int main(void)
{
    size_t k;
    build();
    /* another closed file on the medium: its journal must never be taken */
    {
        sink_buf s;
        upq_sink sink;
        run_result rr;
        set_options(&cfgs[0], OTHER_ID, 1);
        sink_init(&s, SINK_WHOLE, 1);
        sink = sink_of(&s, 1);
        run_writer(&sink, NULL, 0, &rr);
        TU_CHECK_STATUS(rr.st, UPQ_OK);
        other_file = s.p;
        other_len = s.n;
    }
    for (k = 0; k < NCFG; k++) {
        test_cuts(&cfgs[k], tu_seed() + k * 101u);
        test_files(&cfgs[k], tu_seed() + k * 103u);
        test_reused(&cfgs[k], tu_seed() + k * 107u);
        test_rewritten(&cfgs[k]);
    }
    /* the same rows as runs of 7 and of 64 entries (upq_writer_put_run):
     * every cut recovers to a checkpoint of the uncut run of runs */
    for (k = 0; k < 2; k++) {
        rcfg rk = cfgs[k];
        run_len = k ? 64 : 7;
        rk.name = k ? "runs-of-64-v2-snappy-plain-strings-short-again" : "runs-of-7-v1";
        test_cuts(&rk, tu_seed() + k * 109u);
    }
    run_len = 0;
    test_not_ours();
    free(other_file);
    free(warena);
    return tu_summary();
}
