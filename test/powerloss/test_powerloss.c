/*
 * Power loss while logging: the writer in checkpoint mode, a storage device
 * that loses power at every possible moment, and upq_recover on what is left.
 *
 * The device is a RAM file. Its write callback cuts the power
 *   (a) after N write calls: call N+1 persists nothing and fails, and
 *   (b) after N bytes: the call that reaches byte N persists only the part
 *       before it (a torn write) and fails,
 * and every later call fails too. After a cut the persisted bytes must
 * recover: upq_recover succeeds exactly when at least one checkpoint footer
 * was persisted whole (UPQ_ERR_CORRUPT otherwise), gives the end of the last
 * such checkpoint as the valid length and its row count, and the file cut to
 * that length reads back (upq_reader + upq_rows) with exactly the rows of the
 * checkpointed row groups, every value as generated.
 *
 * Where the checkpoints end is learnt from an uncut reference run: the
 * device's length at each sync call (the writer syncs after each checkpoint
 * footer), with the row counts of the final footer's row groups. Every
 * writer call's view of the durable rows (upq_writer_rows_durable) is
 * checked against the same table, and a cut must never lose a row the
 * writer had reported durable.
 *
 * Every N: the writer is run to each call cut (a). For byte cuts (b) the
 * writer's output is deterministic and the device persists bytes in order,
 * so the persisted image of the cut at byte N is the reference's first N
 * bytes: the writer is run to a byte cut one byte either side of each call's
 * end (and every 997th byte), which checks that claim on each, and recovery
 * runs on the prefixes. Reading a recovered file back depends only on its
 * length, so it is done once per checkpoint.
 *
 * Recovery decodes a whole footer per cut, so cuts at every byte cost about
 * 0.1 ms each: by default byte cuts are every byte within 48 of each
 * checkpoint footer's start and end and of each write call's end, and every
 * 11th byte elsewhere (about 6 s in all at -O2); --full recovers at every
 * byte (about 30 s) and adds two runs of thousands of rows with twenty and
 * thirty checkpoints (every call cut; byte cuts as by default).
 *
 * Scenarios: flat sensor rows (int64 TIMESTAMP(MICROS,UTC), a string, eight
 * optional floats with nulls, a boolean) written row by row, and rows with
 * a LIST column written column by column; uncompressed and LZ4_RAW; small
 * and larger row groups, ended by row count or by bytes; data page v1 and
 * v2; a sink with and without read_at (with it the writer streams finished
 * row groups' metadata back from the file); one sink that writes short and
 * says "again" every third write call and every other sync. Every 97th
 * recovery reads through a flaky reader (short reads, "again").
 *
 *   test_powerloss [--only NAME] [--full] [--samples DIR]
 *
 * --samples DIR writes three recovered files per scenario (DIR/NAME.parquet)
 * with their expected rows (DIR/NAME.jsonl, in the form `upq cat --json`
 * prints) for test/interop/powerloss_duckdb.mjs, instead of the cut sweep.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

#define READ_ARENA ((size_t)32 << 20)
#define SPIN_LIMIT 1000000u
#define MAX_PRINTED 5u

#define START_US INT64_C(1717200000000000) /* 2024-06-01T00:00:00Z */
#define PERIOD_US 100000
#define CHANNELS 8

/* ---- scenarios ---------------------------------------------------------------- */

typedef struct scenario {
    const char *name;
    int nested;          /* 0: flat sensor rows; 1: id, LIST<int32>, name */
    uint32_t rows;
    uint64_t rg_rows;    /* row_group_rows (0: none) */
    uint64_t rg_bytes;   /* row_group_bytes (0: none) */
    int32_t codec;
    int read_at;         /* the sink can read back */
    uint32_t page_size;
    uint8_t v2;
    size_t max_write;    /* the device takes at most this much per call (0: all) */
    unsigned again_every;/* every k-th write call says "again" first (0: never) */
    uint64_t seed;
    int big;             /* only with --full: thousands of rows, sampled byte cuts */
    uint8_t direct;      /* writer direct mode: a row group per full page */
} scenario;

static const scenario scenarios[] = {
    {"flat-small-rg", 0, 250, 50, 0, UPQ_CODEC_UNCOMPRESSED, 0, 1024, 0, 0, 0, 1, 0, 0},
    {"flat-small-rg-lz4-readat", 0, 250, 50, 0, UPQ_CODEC_LZ4_RAW, 1, 1024, 0, 0, 0, 2, 0, 0},
    {"flat-large-rg-lz4", 0, 900, 300, 0, UPQ_CODEC_LZ4_RAW, 0, 2048, 0, 0, 0, 3, 0, 0},
    {"flat-large-rg-readat-v2", 0, 900, 300, 0, UPQ_CODEC_UNCOMPRESSED, 1, 4096, 1, 0, 0, 4, 0, 0},
    {"flat-bytes-rg-short-writes", 0, 600, 0, 3000, UPQ_CODEC_UNCOMPRESSED, 1, 1024, 0, 61, 3, 5, 0, 0},
    {"nested-small-rg-readat", 1, 600, 50, 0, UPQ_CODEC_UNCOMPRESSED, 1, 1024, 0, 0, 0, 6, 0, 0},
    {"nested-large-rg-lz4", 1, 2000, 500, 0, UPQ_CODEC_LZ4_RAW, 0, 2048, 1, 0, 0, 7, 0, 0},
    {"flat-2000-rows-rg100-lz4-readat", 0, 2000, 100, 0, UPQ_CODEC_LZ4_RAW, 1, 1024, 0, 0, 0, 8, 1, 0},
    {"nested-3000-rows-rg100", 1, 3000, 100, 0, UPQ_CODEC_UNCOMPRESSED, 0, 1024, 0, 0, 0, 9, 1, 0},
    {"flat-direct-readat", 0, 300, 0, 0, UPQ_CODEC_UNCOMPRESSED, 1, 1024, 0, 0, 0, 10, 0, 1},
    {"flat-direct-lz4-short-writes", 0, 300, 100, 0, UPQ_CODEC_LZ4_RAW, 0, 1024, 1, 37, 4, 11, 0, 1},
    {"nested-direct-readat", 1, 500, 0, 0, UPQ_CODEC_UNCOMPRESSED, 1, 512, 0, 0, 0, 12, 0, 1},
};
#define NSCEN (sizeof scenarios / sizeof scenarios[0])

/* ---- rows -------------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

typedef struct flat_row {
    int64_t ts;
    char device[24];
    uint32_t device_len;
    uint8_t valid; /* bit k: ch[k] is not null */
    float ch[CHANNELS];
    uint8_t ok;
} flat_row;

/* Row i of a flat scenario: a function of (seed, i) alone, so any row can
 * be checked without replaying the others. */
static void flat_gen(uint64_t seed, uint64_t i, flat_row *r)
{
    uint64_t h = mix(seed * 1000003u ^ mix(i)), h2 = mix(h);
    unsigned k, dev = (unsigned)((h >> 10) % 7);
    r->ts = START_US + (int64_t)i * PERIOD_US + (int64_t)(h & 0x3FF);
    if (dev == 6)
        r->device_len = 0; /* empty strings too */
    else
        r->device_len = (uint32_t)snprintf(r->device, sizeof r->device, "sensor-%c%u",
                                           'A' + dev, (unsigned)(i / 100));
    r->valid = 0;
    for (k = 0; k < CHANNELS; k++) {
        int32_t n = (int32_t)((h2 >> (4 * k + 16)) & 0xFFFF) - 32768;
        /* n / 64 is exact in a float */
        r->ch[k] = (float)n / 64.0f + 2.5f * (float)k;
        if (((h2 >> (4 * k)) & 0xF) != 0 && !(k == 7 && i % 400 >= 100 && i % 400 < 140))
            r->valid = (uint8_t)(r->valid | (1u << k));
    }
    r->ok = (uint8_t)(((i / 37) % 3 != 0) ^ (((h >> 20) & 15) == 0));
}

#define MAX_TAGS 6

typedef struct nested_row {
    int64_t id;
    int tags_null;
    uint32_t ntags;
    uint8_t tag_valid[MAX_TAGS];
    int32_t tag[MAX_TAGS];
    int name_null;
    char name[16];
    uint32_t name_len;
} nested_row;

static void nested_gen(uint64_t seed, uint64_t i, nested_row *r)
{
    uint64_t h = mix(seed * 1000003u ^ mix(i)), h2 = mix(h);
    uint32_t j;
    r->id = (int64_t)i * 3 - 1000;
    r->tags_null = h % 7 == 0;
    r->ntags = r->tags_null ? 0 : (uint32_t)((h >> 3) % MAX_TAGS); /* 0: an empty list */
    for (j = 0; j < r->ntags; j++) {
        r->tag_valid[j] = ((h >> (8 + 3 * j)) & 7) != 0;
        r->tag[j] = (int32_t)(uint32_t)(h2 >> (5 * j));
    }
    r->name_null = ((h >> 40) & 3) == 0;
    r->name_len = r->name_null ? 0 : (uint32_t)snprintf(r->name, sizeof r->name, "n%u", (unsigned)(h2 % 1000));
}

/* ---- the schemas ----------------------------------------------------------------- */

#define NCOLS_FLAT (3 + CHANNELS)
#define NCOLS_NESTED 3
#define MAX_ELEMS 16

static const char *const ch_names[CHANNELS] = {"ch0", "ch1", "ch2", "ch3", "ch4", "ch5", "ch6", "ch7"};

static void build_schema(int nested, upq_schema_element *elems, uint32_t *n)
{
    upq_schema_builder b;
    upq_logical_type lt;
    upq_sb_init(&b, elems, MAX_ELEMS, "log");
    if (!nested) {
        unsigned k;
        upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 1);
        upq_sb_column(&b, "ts", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, &lt);
        upq_lt_string(&lt);
        upq_sb_column(&b, "device", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
        for (k = 0; k < CHANNELS; k++)
            upq_sb_column(&b, ch_names[k], UPQ_REP_OPTIONAL, UPQ_TYPE_FLOAT, 0, NULL);
        upq_sb_column(&b, "ok", UPQ_REP_REQUIRED, UPQ_TYPE_BOOLEAN, 0, NULL);
    } else {
        upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
        upq_sb_list(&b, "tags", UPQ_REP_OPTIONAL);
        upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
        upq_sb_end_list(&b);
        upq_lt_string(&lt);
        upq_sb_column(&b, "name", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    }
    if (upq_sb_finish(&b, n) != UPQ_OK) {
        fprintf(stderr, "test_powerloss: the schema builder failed\n");
        exit(2);
    }
}

/* ---- the device ------------------------------------------------------------------- */

enum { CUT_NONE = 0, CUT_CALLS = 1, CUT_BYTES = 2 };

typedef struct device {
    uint8_t *buf;
    size_t len, cap;
    int mode;
    uint64_t limit;      /* CUT_CALLS: write calls that succeed; CUT_BYTES: bytes persisted */
    uint64_t calls;      /* write calls that persisted something (or all of what was offered) */
    unsigned long raw_calls;
    int dead;
    size_t max_write;
    unsigned again_every;
    unsigned long sync_calls;
    /* reference run: where each sync happened */
    uint64_t *syncs;
    size_t nsync, sync_cap;
    /* call boundaries (device length after each successful write call) */
    uint64_t *bounds;
    size_t nbound, bound_cap;
    int record;
} device;

static void grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    *cap = need * 2 + 64;
    *p = realloc(*p, *cap * elem);
    if (!*p) {
        fprintf(stderr, "test_powerloss: out of memory\n");
        exit(2);
    }
}

static upq_status dev_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    device *d = (device *)ctx;
    size_t n = len;
    d->raw_calls++;
    if (d->dead)
        return UPQ_ERR_IO;
    if (d->again_every && d->raw_calls % d->again_every == 0)
        return UPQ_AGAIN;
    if (len == 0) {
        *written = 0;
        return UPQ_OK;
    }
    if (d->max_write && n > d->max_write)
        n = d->max_write;
    if (d->mode == CUT_CALLS && d->calls >= d->limit) {
        d->dead = 1;
        return UPQ_ERR_IO;
    }
    if (d->mode == CUT_BYTES && d->len + n > d->limit) {
        size_t part = (size_t)(d->limit - d->len);
        grow((void **)&d->buf, &d->cap, d->len + part, 1);
        memcpy(d->buf + d->len, buf, part); /* the torn write */
        d->len += part;
        d->dead = 1;
        return UPQ_ERR_IO;
    }
    grow((void **)&d->buf, &d->cap, d->len + n, 1);
    memcpy(d->buf + d->len, buf, n);
    d->len += n;
    d->calls++;
    if (d->record) {
        grow((void **)&d->bounds, &d->bound_cap, d->nbound + 1, sizeof *d->bounds);
        d->bounds[d->nbound++] = d->len;
    }
    *written = n;
    return UPQ_OK;
}

static upq_status dev_sync(void *ctx)
{
    device *d = (device *)ctx;
    if (d->dead)
        return UPQ_ERR_IO;
    /* a sink that blocks on writes blocks on every other sync too */
    if (d->again_every && (d->sync_calls++ & 1u) == 0)
        return UPQ_AGAIN;
    if (d->record) {
        grow((void **)&d->syncs, &d->sync_cap, d->nsync + 1, sizeof *d->syncs);
        d->syncs[d->nsync++] = d->len;
    }
    return UPQ_OK;
}

static upq_status dev_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    device *d = (device *)ctx;
    if (d->dead)
        return UPQ_ERR_IO;
    if (off >= d->len) {
        *got = 0;
        return UPQ_OK;
    }
    if (len > d->len - off)
        len = (size_t)(d->len - off);
    memcpy(buf, d->buf + off, len);
    *got = len;
    return UPQ_OK;
}

static void dev_reset(device *d, int mode, uint64_t limit, const scenario *sc)
{
    d->len = 0;
    d->mode = mode;
    d->limit = limit;
    d->calls = 0;
    d->raw_calls = 0;
    d->sync_calls = 0;
    d->dead = 0;
    d->max_write = sc->max_write;
    d->again_every = sc->again_every;
    d->nsync = 0;
    d->nbound = 0;
}

/* ---- one logging run ------------------------------------------------------------------ */

typedef struct run_result {
    upq_status status;       /* UPQ_OK: closed; else the first error */
    const char *where;       /* the call that failed */
    uint64_t rows_taken;     /* rows handed over before the failure */
    uint64_t durable_seen;   /* the last upq_writer_rows_durable() seen before it */
    uint64_t durable_len;    /* the device length when it was seen */
    int close_after_error;   /* upq_writer_close after the error: its status */
    /* reference runs: every (device length, durable rows) seen, to check against the table */
    uint64_t *obs_len, *obs_rows;
    size_t nobs, obs_cap;
    int record_obs;
} run_result;

typedef struct harness {
    upq_schema_element elems[MAX_ELEMS];
    uint32_t nelems;
    upq_writer_opts opts;
    upq_column_opts cols[NCOLS_FLAT];
    upq_writer w;
    void *warena;
    size_t warena_len;
    uint8_t *rarena;   /* reader and recovery */
} harness;

static void observe(run_result *rr, const upq_writer *w, const device *d)
{
    uint64_t dur = upq_writer_rows_durable(w);
    rr->durable_seen = dur;
    rr->durable_len = d->len;
    if (rr->record_obs) {
        grow((void **)&rr->obs_len, &rr->obs_cap, rr->nobs + 1, sizeof *rr->obs_len);
        rr->obs_rows = (uint64_t *)realloc(rr->obs_rows, rr->obs_cap * sizeof *rr->obs_rows);
        rr->obs_len[rr->nobs] = d->len;
        rr->obs_rows[rr->nobs] = dur;
        rr->nobs++;
    }
}

static void set_options(harness *h, const scenario *sc)
{
    upq_writer_opts *o = &h->opts;
    unsigned k;
    memset(o, 0, sizeof *o);
    memset(h->cols, 0, sizeof h->cols);
    o->codec = sc->codec;
    o->page_size = sc->page_size;
    o->row_group_rows = sc->rg_rows;
    o->row_group_bytes = sc->rg_bytes;
    o->data_page_v2 = sc->v2;
    o->direct = sc->direct;
    o->checkpoint = 1;
    for (k = 0; k < NCOLS_FLAT; k++) {
        h->cols[k].encoding = -1;
        h->cols[k].dictionary = -1;
    }
    if (!sc->nested) {
        h->cols[0].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
        for (k = 0; k < CHANNELS; k++)
            h->cols[2 + k].encoding = (k & 1) ? UPQ_ENC_BYTE_STREAM_SPLIT : -1;
        h->cols[2 + CHANNELS].encoding = UPQ_ENC_RLE;
        o->ncolumns = NCOLS_FLAT;
    } else {
        h->cols[1].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
        o->ncolumns = NCOLS_NESTED;
    }
    o->columns = h->cols;
}

/* Retries a call while the device says "again". */
#define RETRY(st, call)                                 \
    do {                                                \
        unsigned spins_ = 0;                            \
        do                                              \
            (st) = (call);                              \
        while ((st) == UPQ_AGAIN && ++spins_ < SPIN_LIMIT); \
    } while (0)

static upq_status write_flat_row(harness *h, const scenario *sc, uint64_t i, const char **where)
{
    flat_row r;
    upq_bytes dev;
    upq_status st;
    unsigned k;
    flat_gen(sc->seed, i, &r);
    dev.ptr = (const uint8_t *)r.device;
    dev.len = r.device_len;
    RETRY(st, upq_writer_set(&h->w, 0, &r.ts));
    if (st != UPQ_OK) { *where = "set(ts)"; return st; }
    RETRY(st, upq_writer_set(&h->w, 1, &dev));
    if (st != UPQ_OK) { *where = "set(device)"; return st; }
    for (k = 0; k < CHANNELS; k++) {
        if ((r.valid >> k) & 1u)
            RETRY(st, upq_writer_set(&h->w, 2 + k, &r.ch[k]));
        else
            RETRY(st, upq_writer_set_null(&h->w, 2 + k));
        if (st != UPQ_OK) { *where = "set(ch)"; return st; }
    }
    RETRY(st, upq_writer_set(&h->w, 2 + CHANNELS, &r.ok));
    if (st != UPQ_OK) { *where = "set(ok)"; return st; }
    RETRY(st, upq_writer_end_row(&h->w));
    if (st != UPQ_OK) { *where = "end_row"; return st; }
    return UPQ_OK;
}

/* A batch of nested rows as level entries per column. */
#define NEST_BATCH 5
typedef struct nested_batch {
    int64_t id[NEST_BATCH];
    uint16_t tdef[NEST_BATCH * MAX_TAGS], trep[NEST_BATCH * MAX_TAGS];
    int32_t tval[NEST_BATCH * MAX_TAGS];
    uint16_t ndef[NEST_BATCH];
    upq_bytes nval[NEST_BATCH];
    char names[NEST_BATCH][16];
    size_t nt, ntv, nn;
} nested_batch;

static void nested_fill(nested_batch *b, const scenario *sc, uint64_t first, uint32_t n)
{
    uint32_t k, j;
    b->nt = b->ntv = b->nn = 0;
    for (k = 0; k < n; k++) {
        nested_row r;
        nested_gen(sc->seed, first + k, &r);
        b->id[k] = r.id;
        if (r.tags_null || r.ntags == 0) {
            b->tdef[b->nt] = r.tags_null ? 0 : 1;
            b->trep[b->nt++] = 0;
        }
        for (j = 0; j < r.ntags; j++) {
            b->tdef[b->nt] = r.tag_valid[j] ? 3 : 2;
            b->trep[b->nt++] = j ? 1 : 0;
            if (r.tag_valid[j])
                b->tval[b->ntv++] = r.tag[j];
        }
        b->ndef[k] = r.name_null ? 0 : 1;
        if (!r.name_null) {
            memcpy(b->names[b->nn], r.name, r.name_len);
            b->nval[b->nn].ptr = (const uint8_t *)b->names[b->nn];
            b->nval[b->nn].len = r.name_len;
            b->nn++;
        }
    }
}

/* Hands one batch to the writer column by column; a column the writer
 * finds too far ahead (UPQ_DONE) is offered again after the others. */
static upq_status write_nested_batch(harness *h, nested_batch *b, uint32_t n, const char **where)
{
    size_t levels[NCOLS_NESTED], done[NCOLS_NESTED] = {0, 0, 0}, vdone[NCOLS_NESTED] = {0, 0, 0};
    unsigned c, left = NCOLS_NESTED, rounds = 0;
    levels[0] = n;
    levels[1] = b->nt;
    levels[2] = n;
    while (left > 0) {
        int progress = 0;
        if (++rounds > SPIN_LIMIT) {
            *where = "write_column (no progress)";
            return UPQ_ERR_STATE;
        }
        for (c = 0; c < NCOLS_NESTED; c++) {
            upq_status st;
            size_t consumed, k;
            const uint16_t *def = NULL, *rep = NULL;
            const void *vals;
            if (done[c] >= levels[c])
                continue;
            for (;;) {
                consumed = 0;
                if (c == 0) {
                    vals = b->id + done[0];
                } else if (c == 1) {
                    def = b->tdef + done[1];
                    rep = b->trep + done[1];
                    vals = b->tval + vdone[1];
                } else {
                    def = b->ndef + done[2];
                    vals = b->nval + vdone[2];
                }
                st = upq_writer_write_column(&h->w, c, def, rep, vals, levels[c] - done[c], &consumed);
                if (st != UPQ_OK && st != UPQ_AGAIN && st != UPQ_DONE) {
                    *where = "write_column";
                    return st;
                }
                if (consumed > levels[c] - done[c]) {
                    *where = "write_column (consumed too much)";
                    return UPQ_ERR_STATE;
                }
                for (k = done[c]; k < done[c] + consumed; k++) {
                    if (c == 0)
                        vdone[0]++;
                    else if (c == 1)
                        vdone[1] += b->tdef[k] == 3;
                    else
                        vdone[2] += b->ndef[k] == 1;
                }
                done[c] += consumed;
                progress |= consumed > 0;
                if (st == UPQ_OK && done[c] < levels[c]) {
                    *where = "write_column (OK but not all taken)";
                    return UPQ_ERR_STATE;
                }
                if (st != UPQ_AGAIN)
                    break;
                if (++rounds > SPIN_LIMIT) {
                    *where = "write_column (again forever)";
                    return UPQ_ERR_STATE;
                }
            }
            if (done[c] >= levels[c])
                left--;
        }
        (void)progress;
    }
    return UPQ_OK;
}

/* One whole logging run into `d`; stops at the first error. */
static void run_writer(harness *h, const scenario *sc, device *d, run_result *rr)
{
    upq_sink sink;
    upq_status st;
    uint64_t i;
    memset(&sink, 0, sizeof sink);
    sink.ctx = d;
    sink.write = dev_write;
    sink.sync = dev_sync;
    sink.read_at = sc->read_at ? dev_read_at : NULL;
    rr->status = UPQ_OK;
    rr->where = "";
    rr->rows_taken = 0;
    rr->durable_seen = 0;
    rr->durable_len = 0;
    rr->close_after_error = 0;
    rr->nobs = 0;
    st = upq_writer_init(&h->w, &sink, h->elems, h->nelems, h->warena, h->warena_len, &h->opts);
    if (st != UPQ_OK) {
        rr->status = st;
        rr->where = "init";
        return;
    }
    observe(rr, &h->w, d);
    if (!sc->nested) {
        for (i = 0; i < sc->rows; i++) {
            st = write_flat_row(h, sc, i, &rr->where);
            if (st != UPQ_OK)
                goto failed;
            rr->rows_taken++;
            observe(rr, &h->w, d);
        }
    } else {
        static nested_batch b;
        for (i = 0; i < sc->rows; i += NEST_BATCH) {
            uint32_t n = (uint32_t)(sc->rows - i < NEST_BATCH ? sc->rows - i : NEST_BATCH);
            nested_fill(&b, sc, i, n);
            st = write_nested_batch(h, &b, n, &rr->where);
            if (st != UPQ_OK)
                goto failed;
            rr->rows_taken += n;
            observe(rr, &h->w, d);
        }
    }
    RETRY(st, upq_writer_close(&h->w));
    if (st != UPQ_OK) {
        rr->where = "close";
        goto failed;
    }
    observe(rr, &h->w, d);
    return;
failed:
    rr->status = st;
    /* a writer that failed keeps failing, and says so */
    {
        upq_status c;
        RETRY(c, upq_writer_close(&h->w));
        rr->close_after_error = c;
    }
}

/* ---- recovery and read-back ------------------------------------------------------------------ */

static upq_status recover(harness *h, const uint8_t *data, size_t len, const tu_flaky_cfg *io_cfg,
                          uint64_t seed, uint64_t *valid, uint64_t *rows)
{
    static upq_recover_state st; /* large: off the stack */
    tu_mem_src src;
    tu_flaky fl;
    upq_io io;
    upq_status s;
    unsigned spins = 0;
    memset(&st, 0, sizeof st);
    tu_mem_src_init(&src, data, len);
    io.size = len;
    if (io_cfg) {
        tu_flaky_init(&fl, io_cfg, tu_mem_read_at, &src, seed);
        io.ctx = &fl;
        io.read_at = tu_flaky_read_at;
    } else {
        io.ctx = &src;
        io.read_at = tu_mem_read_at;
    }
    *valid = UINT64_MAX;
    *rows = UINT64_MAX;
    do
        s = upq_recover(&st, &io, h->rarena, READ_ARENA, valid, rows);
    while (s == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    return s;
}

typedef struct xev {
    uint8_t type;
    int32_t phys;
    int64_t i;   /* INT32 / INT64 / BOOLEAN */
    float f;
    const uint8_t *p;
    uint32_t n;
} xev;

#define MAX_XEV 32

static size_t expect_flat(const scenario *sc, uint64_t i, xev *x, flat_row *r)
{
    size_t n = 0;
    unsigned k;
    flat_gen(sc->seed, i, r);
    memset(x, 0, sizeof *x * MAX_XEV);
    x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_INT64; x[n++].i = r->ts;
    x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_BYTE_ARRAY;
    x[n].p = (const uint8_t *)r->device; x[n++].n = r->device_len;
    for (k = 0; k < CHANNELS; k++) {
        if ((r->valid >> k) & 1u) {
            x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_FLOAT; x[n++].f = r->ch[k];
        } else {
            x[n++].type = UPQ_EV_NULL;
        }
    }
    x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_BOOLEAN; x[n++].i = r->ok;
    return n;
}

static size_t expect_nested(const scenario *sc, uint64_t i, xev *x, nested_row *r)
{
    size_t n = 0;
    uint32_t j;
    nested_gen(sc->seed, i, r);
    memset(x, 0, sizeof *x * MAX_XEV);
    x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_INT64; x[n++].i = r->id;
    if (r->tags_null) {
        x[n++].type = UPQ_EV_NULL;
    } else {
        x[n++].type = UPQ_EV_BEGIN_LIST;
        for (j = 0; j < r->ntags; j++) {
            if (r->tag_valid[j]) {
                x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_INT32; x[n++].i = r->tag[j];
            } else {
                x[n++].type = UPQ_EV_NULL;
            }
        }
        x[n++].type = UPQ_EV_END_LIST;
    }
    if (r->name_null) {
        x[n++].type = UPQ_EV_NULL;
    } else {
        x[n].type = UPQ_EV_VALUE; x[n].phys = UPQ_TYPE_BYTE_ARRAY;
        x[n].p = (const uint8_t *)r->name; x[n++].n = r->name_len;
    }
    return n;
}

static int event_matches(const upq_event *ev, const xev *x)
{
    if (ev->type != x->type)
        return 0;
    if (ev->type != UPQ_EV_VALUE)
        return 1;
    switch (x->phys) {
    case UPQ_TYPE_BOOLEAN: return *(const uint8_t *)ev->value == (uint8_t)x->i;
    case UPQ_TYPE_INT32: return *(const int32_t *)ev->value == (int32_t)x->i;
    case UPQ_TYPE_INT64: return *(const int64_t *)ev->value == x->i;
    case UPQ_TYPE_FLOAT: return memcmp(ev->value, &x->f, sizeof x->f) == 0;
    case UPQ_TYPE_BYTE_ARRAY: {
        const upq_bytes *b = (const upq_bytes *)ev->value;
        return b->len == x->n && (x->n == 0 || memcmp(b->ptr, x->p, x->n) == 0);
    }
    default: return 0;
    }
}

/* Reads data[0..len) as a whole file: every row must be the generator's
 * row of the same number, and there must be exactly `want_rows`. Returns 1
 * when so, else 0 with a reason in `why`. */
static int read_back(harness *h, const scenario *sc, const uint8_t *data, size_t len,
                     uint64_t want_rows, char *why, size_t whycap)
{
    static upq_reader r;
    static upq_rows rows;
    tu_mem_src src;
    upq_io io;
    upq_status st;
    const upq_file_metadata *m;
    uint32_t rg;
    uint64_t row = 0;
    tu_mem_src_init(&src, data, len);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = len;
    upq_reader_init(&r, &io, h->rarena, READ_ARENA, NULL);
    st = upq_reader_open(&r);
    if (st != UPQ_OK) {
        snprintf(why, whycap, "upq_reader_open: %s (%s)", upq_strerror(st),
                 upq_reader_error(&r)->what ? upq_reader_error(&r)->what : "");
        return 0;
    }
    m = upq_reader_metadata(&r);
    if ((uint64_t)m->num_rows != want_rows) {
        snprintf(why, whycap, "the footer says %lld rows, want %llu", (long long)m->num_rows,
                 (unsigned long long)want_rows);
        return 0;
    }
    for (rg = 0; rg < m->row_groups.n; rg++) {
        st = upq_rows_open(&rows, &r, rg, NULL, 0, 0);
        if (st != UPQ_OK) {
            snprintf(why, whycap, "upq_rows_open(%u): %s", rg, upq_strerror(st));
            return 0;
        }
        for (;;) {
            xev x[MAX_XEV];
            size_t nx, k = 0;
            union { flat_row f; nested_row n; } gen;
            st = upq_rows_next(&rows);
            if (st == UPQ_DONE)
                break;
            if (st != UPQ_OK) {
                snprintf(why, whycap, "row %llu: upq_rows_next: %s", (unsigned long long)row,
                         upq_strerror(st));
                upq_rows_close(&rows);
                return 0;
            }
            if (row >= want_rows) {
                snprintf(why, whycap, "more rows than the %llu checkpointed", (unsigned long long)want_rows);
                upq_rows_close(&rows);
                return 0;
            }
            nx = sc->nested ? expect_nested(sc, row, x, &gen.n) : expect_flat(sc, row, x, &gen.f);
            for (;;) {
                upq_event ev;
                st = upq_rows_event(&rows, &ev);
                if (st == UPQ_DONE)
                    break;
                if (st != UPQ_OK) {
                    snprintf(why, whycap, "row %llu: upq_rows_event: %s", (unsigned long long)row,
                             upq_strerror(st));
                    upq_rows_close(&rows);
                    return 0;
                }
                if (k >= nx || !event_matches(&ev, &x[k])) {
                    snprintf(why, whycap, "row %llu (row group %u): event %zu differs (type %u, want %u)",
                             (unsigned long long)row, rg, k, ev.type, k < nx ? x[k].type : 0);
                    upq_rows_close(&rows);
                    return 0;
                }
                k++;
            }
            if (k != nx) {
                snprintf(why, whycap, "row %llu: %zu events, want %zu", (unsigned long long)row, k, nx);
                upq_rows_close(&rows);
                return 0;
            }
            row++;
        }
        upq_rows_close(&rows);
    }
    if (row != want_rows) {
        snprintf(why, whycap, "%llu rows read, want %llu", (unsigned long long)row,
                 (unsigned long long)want_rows);
        return 0;
    }
    return 1;
}

/* ---- the reference run and its checkpoint table --------------------------------------------------- */

typedef struct reference {
    uint8_t *data;
    size_t len;
    uint64_t *ck_end;   /* end of checkpoint k (strictly increasing) */
    uint64_t *ck_rows;  /* rows it holds */
    size_t nck;
    uint64_t *bounds;   /* device length after each write call */
    size_t nbound;
    int *verified;      /* read_back done for checkpoint k: 1 ok, -1 failed */
    double seconds;
} reference;

static void reference_free(reference *ref)
{
    free(ref->data);
    free(ref->ck_end);
    free(ref->ck_rows);
    free(ref->bounds);
    free(ref->verified);
    memset(ref, 0, sizeof *ref);
}

/* The checkpoint that a prefix of `len` bytes holds whole: its index, or -1. */
static long checkpoint_at(const reference *ref, uint64_t len)
{
    size_t lo = 0, hi = ref->nck;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ref->ck_end[mid] <= len)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int setup(harness *h, const scenario *sc)
{
    size_t need = 0;
    upq_status st;
    uint32_t max_rg;
    build_schema(sc->nested, h->elems, &h->nelems);
    set_options(h, sc);
    max_rg = sc->read_at ? 0u : sc->rows / 20u + 16u;
    st = upq_writer_workspace_size(h->elems, h->nelems, &h->opts, max_rg, &need);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: upq_writer_workspace_size: %s", sc->name, upq_strerror(st)))
        return 0;
    free(h->warena);
    h->warena_len = need;
    h->warena = malloc(need ? need : 1);
    return 1;
}

/* The uncut run: the file, where its checkpoints end, and their rows. */
static int make_reference(harness *h, const scenario *sc, reference *ref)
{
    device d;
    run_result rr;
    char why[256];
    size_t k, j;
    double t0 = now();
    static upq_reader r;
    tu_mem_src src;
    upq_io io;
    upq_status st;
    const upq_file_metadata *m;

    memset(&d, 0, sizeof d);
    memset(&rr, 0, sizeof rr);
    memset(ref, 0, sizeof *ref);
    dev_reset(&d, CUT_NONE, 0, sc);
    d.record = 1;
    rr.record_obs = 1;
    run_writer(h, sc, &d, &rr);
    ref->seconds = now() - t0;
    if (!TU_CHECK_MSG(rr.status == UPQ_OK, "%s: the uncut run failed in %s: %s (%s)", sc->name, rr.where,
                      upq_strerror(rr.status),
                      upq_writer_error(&h->w)->what ? upq_writer_error(&h->w)->what : "")) {
        free(d.buf); free(d.syncs); free(d.bounds); free(rr.obs_len); free(rr.obs_rows);
        return 0;
    }
    TU_CHECK_MSG(upq_writer_rows_durable(&h->w) == sc->rows, "%s: rows durable after close: %llu of %u",
                 sc->name, (unsigned long long)upq_writer_rows_durable(&h->w), sc->rows);
    TU_CHECK_MSG(upq_writer_file_size(&h->w) == d.len, "%s: upq_writer_file_size %llu, device %zu", sc->name,
                 (unsigned long long)upq_writer_file_size(&h->w), d.len);
    ref->data = d.buf;
    ref->len = d.len;
    ref->bounds = d.bounds;
    ref->nbound = d.nbound;

    /* the final footer's row groups give each checkpoint's rows */
    tu_mem_src_init(&src, ref->data, ref->len);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = ref->len;
    upq_reader_init(&r, &io, h->rarena, READ_ARENA, NULL);
    st = upq_reader_open(&r);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: the uncut file does not open: %s", sc->name, upq_strerror(st))) {
        free(d.syncs); free(rr.obs_len); free(rr.obs_rows);
        return 0;
    }
    m = upq_reader_metadata(&r);
    /* distinct sync lengths: one per checkpoint (close may sync again) */
    ref->ck_end = (uint64_t *)malloc((d.nsync + 1) * sizeof *ref->ck_end);
    ref->ck_rows = (uint64_t *)malloc((d.nsync + 1) * sizeof *ref->ck_rows);
    for (k = 0; k < d.nsync; k++)
        if (ref->nck == 0 || d.syncs[k] != ref->ck_end[ref->nck - 1])
            ref->ck_end[ref->nck++] = d.syncs[k];
    free(d.syncs);
    if (!TU_CHECK_MSG(ref->nck == m->row_groups.n, "%s: %zu checkpoints (syncs at distinct lengths), "
                      "%u row groups", sc->name, ref->nck, m->row_groups.n) ||
        !TU_CHECK_MSG(ref->nck > 0 && ref->ck_end[ref->nck - 1] == ref->len,
                      "%s: the last sync is not at the end of the file", sc->name)) {
        free(rr.obs_len); free(rr.obs_rows);
        return 0;
    }
    {
        uint64_t sum = 0;
        for (k = 0; k < ref->nck; k++) {
            sum += (uint64_t)m->row_groups.v[k].num_rows;
            ref->ck_rows[k] = sum;
        }
        TU_CHECK_MSG(sum == sc->rows, "%s: the row groups hold %llu rows, %u written", sc->name,
                     (unsigned long long)sum, sc->rows);
    }
    for (k = 1; k < ref->nck; k++)
        TU_CHECK_MSG(ref->ck_end[k] > ref->ck_end[k - 1], "%s: checkpoint ends not increasing", sc->name);
    /* what the writer said was durable, at every call, agrees with the table */
    {
        size_t bad = 0;
        for (j = 0; j < rr.nobs; j++) {
            long c = checkpoint_at(ref, rr.obs_len[j]);
            uint64_t want = c < 0 ? 0 : ref->ck_rows[c];
            if (rr.obs_rows[j] != want && bad++ < MAX_PRINTED)
                TU_CHECK_MSG(0, "%s: after a call at length %llu the writer said %llu rows durable; "
                             "the checkpoints there hold %llu", sc->name,
                             (unsigned long long)rr.obs_len[j], (unsigned long long)rr.obs_rows[j],
                             (unsigned long long)want);
        }
        TU_CHECK_MSG(bad == 0, "%s: %zu of %zu durable-row observations disagree", sc->name, bad, rr.nobs);
    }
    free(rr.obs_len);
    free(rr.obs_rows);
    ref->verified = (int *)calloc(ref->nck, sizeof *ref->verified);
    /* the whole file reads back */
    TU_CHECK_MSG(read_back(h, sc, ref->data, ref->len, sc->rows, why, sizeof why), "%s: the uncut file: %s",
                 sc->name, why);
    tu_note("%s: %u rows, %zu bytes, %zu write calls, %zu checkpoints, workspace %zu bytes, run %.1f ms",
            sc->name, sc->rows, ref->len, ref->nbound, ref->nck, h->warena_len, ref->seconds * 1e3);
    return 1;
}

/* ---- one cut ----------------------------------------------------------------------------------------- */

typedef struct tally {
    unsigned long cuts, failed, printed;
    unsigned long no_checkpoint; /* cuts before the first checkpoint (must be refused) */
} tally;

static void cut_fail(tally *t, const char *fmt, ...) TU_PRINTF(2, 3);

static void cut_fail(tally *t, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    t->failed++;
    if (t->printed >= MAX_PRINTED)
        return;
    t->printed++;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tu_check(0, __FILE__, __LINE__, "%s", msg);
}

/* Recovers the prefix data[0..len) and checks the outcome against the
 * checkpoint table; `durable` is what the writer had said before the cut
 * (UINT64_MAX: not known). */
static void check_cut(harness *h, const scenario *sc, reference *ref, const uint8_t *data, size_t len,
                      const char *what, uint64_t n, uint64_t durable, tally *t)
{
    uint64_t valid, rows;
    long c = checkpoint_at(ref, len);
    const tu_flaky_cfg *io_cfg = NULL;
    upq_status st;
    t->cuts++;
    /* now and then through a reader that reads short and says "again" */
    if (n % 97 == 13)
        io_cfg = &tu_flaky_cfgs[(n / 97) % tu_flaky_ncfgs];
    st = recover(h, data, len, io_cfg, n, &valid, &rows);
    if (c < 0) {
        t->no_checkpoint++;
        if (st != UPQ_ERR_CORRUPT)
            cut_fail(t, "%s: cut %s %llu (%zu bytes, before the first checkpoint ends at %llu): "
                     "upq_recover gave %s (valid %llu, rows %llu), want corrupt", sc->name, what,
                     (unsigned long long)n, len, (unsigned long long)ref->ck_end[0], upq_strerror(st),
                     (unsigned long long)valid, (unsigned long long)rows);
        else if (durable != UINT64_MAX && durable != 0)
            cut_fail(t, "%s: cut %s %llu: nothing recoverable, but the writer had said %llu rows durable",
                     sc->name, what, (unsigned long long)n, (unsigned long long)durable);
        return;
    }
    if (st != UPQ_OK) {
        cut_fail(t, "%s: cut %s %llu (%zu bytes; checkpoint %ld ends at %llu): upq_recover: %s%s", sc->name,
                 what, (unsigned long long)n, len, c, (unsigned long long)ref->ck_end[c], upq_strerror(st),
                 io_cfg ? " (through a flaky reader)" : "");
        return;
    }
    if (valid != ref->ck_end[c] || rows != ref->ck_rows[c]) {
        cut_fail(t, "%s: cut %s %llu (%zu bytes): recovered length %llu with %llu rows, want %llu with %llu",
                 sc->name, what, (unsigned long long)n, len, (unsigned long long)valid,
                 (unsigned long long)rows, (unsigned long long)ref->ck_end[c],
                 (unsigned long long)ref->ck_rows[c]);
        return;
    }
    if (durable != UINT64_MAX && durable > rows) {
        cut_fail(t, "%s: cut %s %llu: the writer had said %llu rows durable, %llu recovered", sc->name, what,
                 (unsigned long long)n, (unsigned long long)durable, (unsigned long long)rows);
        return;
    }
    if (data != ref->data && memcmp(data, ref->data, (size_t)valid) != 0) {
        cut_fail(t, "%s: cut %s %llu: the recovered bytes differ from the uncut run's", sc->name, what,
                 (unsigned long long)n);
        return;
    }
    if (ref->verified[c] == 0) {
        char why[256];
        ref->verified[c] = read_back(h, sc, ref->data, (size_t)valid, rows, why, sizeof why) ? 1 : -1;
        if (ref->verified[c] < 0) {
            cut_fail(t, "%s: the file recovered at %llu bytes (checkpoint %ld): %s", sc->name,
                     (unsigned long long)valid, c, why);
            return;
        }
    }
    if (ref->verified[c] < 0) {
        t->failed++;
        return;
    }
    tu_check(1, __FILE__, __LINE__, "cut");
}

/* Runs the writer into a device that cuts at (mode, n); checks the run and
 * what was persisted, then recovers it. */
static void cut_run(harness *h, const scenario *sc, reference *ref, int mode, uint64_t n, tally *t)
{
    static device d;
    run_result rr;
    const char *what = mode == CUT_CALLS ? "after call" : "at byte";
    memset(&rr, 0, sizeof rr);
    dev_reset(&d, mode, n, sc);
    d.record = 0;
    run_writer(h, sc, &d, &rr);
    if (rr.status != UPQ_ERR_IO) {
        cut_fail(t, "%s: cut %s %llu: the writer gave %s in %s, want an I/O error", sc->name, what,
                 (unsigned long long)n, upq_strerror(rr.status), rr.where);
        return;
    }
    if (rr.close_after_error == UPQ_OK || rr.close_after_error == UPQ_AGAIN) {
        cut_fail(t, "%s: cut %s %llu: upq_writer_close after the I/O error gave %s", sc->name, what,
                 (unsigned long long)n, upq_strerror(rr.close_after_error));
        return;
    }
    if (d.len > ref->len || (d.len && memcmp(d.buf, ref->data, d.len) != 0)) {
        cut_fail(t, "%s: cut %s %llu: the %zu persisted bytes are not the uncut run's first bytes", sc->name,
                 what, (unsigned long long)n, d.len);
        return;
    }
    if (mode == CUT_BYTES && d.len != n) {
        cut_fail(t, "%s: cut at byte %llu: %zu bytes persisted", sc->name, (unsigned long long)n, d.len);
        return;
    }
    check_cut(h, sc, ref, d.buf, d.len, what, n, rr.durable_seen, t);
}

static void end_case(const scenario *sc, const char *what, tally *t, double t0)
{
    if (t->failed > t->printed)
        tu_check(0, __FILE__, __LINE__, "%s: %lu more failing cuts not shown", sc->name, t->failed - t->printed);
    tu_note("%s: %s: %lu cuts (%lu before the first checkpoint), %lu failed, %.2f s", sc->name, what, t->cuts,
            t->no_checkpoint, t->failed, now() - t0);
}

/* ---- the sweep ---------------------------------------------------------------------------------------- */

/* Bytes close to a structure boundary: around each checkpoint footer's
 * start and end, and each write call's end. */
#define NEAR 48u

static uint8_t *interesting_bytes(const reference *ref, uint64_t stride)
{
    uint8_t *mark = (uint8_t *)calloc(ref->len + 1, 1);
    size_t k;
    uint64_t n;
    for (n = 0; n <= ref->len; n += stride)
        mark[n] = 1;
    for (k = 0; k < ref->nck; k++) {
        uint64_t end = ref->ck_end[k], start = end;
        if (end >= 8) {
            const uint8_t *p = ref->data + end - 8;
            uint64_t flen = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
            start = flen + 8 <= end ? end - 8 - flen : 0;
        }
        for (n = start > NEAR ? start - NEAR : 0; n <= start + NEAR && n <= ref->len; n++)
            mark[n] = 1;
        for (n = end > NEAR ? end - NEAR : 0; n <= end + NEAR && n <= ref->len; n++)
            mark[n] = 1;
    }
    for (k = 0; k < ref->nbound; k++) {
        for (n = ref->bounds[k] > 1 ? ref->bounds[k] - 1 : 0; n <= ref->bounds[k] + 1 && n <= ref->len; n++)
            mark[n] = 1;
    }
    return mark;
}

/* full: every N. Otherwise every call cut, and byte cuts at every byte near
 * a boundary (interesting_bytes) and every 11th byte elsewhere. */
static void sweep(harness *h, const scenario *sc, reference *ref, int full)
{
    tally t;
    double t0;
    uint64_t n, ncalls = ref->nbound;
    size_t b;
    uint8_t *mark = full ? NULL : interesting_bytes(ref, 11);

    /* (a) a cut after every number of write calls, the writer run each time */
    tu_case("%s: power cut after N write calls, every N = 0..%llu", sc->name, (unsigned long long)ncalls - 1);
    memset(&t, 0, sizeof t);
    t0 = now();
    for (n = 0; n < ncalls; n++)
        if (tu_repeat_keep()) /* all of them unless thinned under emulation */
            cut_run(h, sc, ref, CUT_CALLS, n, &t);
    end_case(sc, "call cuts", &t, t0);

    /* (b) torn writes, the writer run to the cut: one byte short of each
     * call's end, one byte into the next call, and every 997th byte */
    tu_case("%s: torn write at byte N, the writer run to the cut (N near each call's end)", sc->name);
    memset(&t, 0, sizeof t);
    t0 = now();
    for (b = 0; b < ref->nbound; b += full ? 1 : 3) {
        uint64_t e = ref->bounds[b];
        if (!tu_repeat_keep())
            continue;
        if (e > 0)
            cut_run(h, sc, ref, CUT_BYTES, e - 1, &t);
        if (e + 1 < ref->len)
            cut_run(h, sc, ref, CUT_BYTES, e + 1, &t);
    }
    for (n = 0; n < ref->len; n += 997)
        cut_run(h, sc, ref, CUT_BYTES, n, &t);
    end_case(sc, "byte cuts, writer run", &t, t0);

    /* (b) the persisted image of a cut at byte N is the uncut run's first N
     * bytes: recover each */
    tu_case("%s: torn write at %s byte N = 0..%zu, recovered", sc->name, full ? "every" : "sampled", ref->len);
    memset(&t, 0, sizeof t);
    t0 = now();
    for (n = 0; n <= ref->len; n++)
        if ((full || mark[n]) && tu_repeat_keep())
            check_cut(h, sc, ref, ref->data, (size_t)n, "at byte", n, UINT64_MAX, &t);
    end_case(sc, full ? "byte cuts (every N)" : "byte cuts (sampled)", &t, t0);
    free(mark);
}

/* ---- samples for DuckDB --------------------------------------------------------------------------------- */

static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static void json_row(FILE *f, const scenario *sc, uint64_t i)
{
    if (!sc->nested) {
        flat_row r;
        int64_t secs, us, y;
        unsigned mo, d, k;
        flat_gen(sc->seed, i, &r);
        secs = r.ts / 1000000;
        us = r.ts % 1000000;
        civil(secs / 86400, &y, &mo, &d);
        fprintf(f, "{\"ts\":\"%04lld-%02u-%02uT%02d:%02d:%02d.%06lldZ\",\"device\":\"%.*s\"", (long long)y, mo, d,
                (int)(secs % 86400 / 3600), (int)(secs % 3600 / 60), (int)(secs % 60), (long long)us,
                (int)r.device_len, r.device);
        for (k = 0; k < CHANNELS; k++) {
            if ((r.valid >> k) & 1u)
                fprintf(f, ",\"%s\":%.9g", ch_names[k], (double)r.ch[k]);
            else
                fprintf(f, ",\"%s\":null", ch_names[k]);
        }
        fprintf(f, ",\"ok\":%s}\n", r.ok ? "true" : "false");
    } else {
        nested_row r;
        uint32_t j;
        nested_gen(sc->seed, i, &r);
        fprintf(f, "{\"id\":%lld,\"tags\":", (long long)r.id);
        if (r.tags_null) {
            fputs("null", f);
        } else {
            fputc('[', f);
            for (j = 0; j < r.ntags; j++) {
                if (j)
                    fputc(',', f);
                if (r.tag_valid[j])
                    fprintf(f, "%d", r.tag[j]);
                else
                    fputs("null", f);
            }
            fputc(']', f);
        }
        if (r.name_null)
            fputs(",\"name\":null}\n", f);
        else
            fprintf(f, ",\"name\":\"%.*s\"}\n", (int)r.name_len, r.name);
    }
}

/* About twenty cuts over all scenarios, spread over each file: the
 * recovered files and their expected rows. */
static void samples(harness *h, const scenario *sc, reference *ref, const char *dir, unsigned per)
{
    unsigned s;
    tally t;
    memset(&t, 0, sizeof t);
    tu_case("%s: %u sampled cuts written for DuckDB", sc->name, per);
    for (s = 0; s < per; s++) {
        /* spread over the part after the first checkpoint */
        uint64_t lo = ref->ck_end[0], span = ref->len - lo;
        uint64_t n = lo + span * (2 * s + 1) / (2 * per) + (mix(ref->len + s) % 17);
        uint64_t valid, rows;
        upq_status st;
        char path[1024];
        FILE *f;
        uint64_t i;
        if (n > ref->len)
            n = ref->len;
        st = recover(h, ref->data, (size_t)n, NULL, 0, &valid, &rows);
        if (!TU_CHECK_MSG(st == UPQ_OK, "%s: sample cut at byte %llu: upq_recover: %s", sc->name,
                          (unsigned long long)n, upq_strerror(st)))
            continue;
        check_cut(h, sc, ref, ref->data, (size_t)n, "at byte", n, UINT64_MAX, &t);
        snprintf(path, sizeof path, "%s/%s-cut%llu.parquet", dir, sc->name, (unsigned long long)n);
        TU_CHECK_MSG(tu_write_file(path, ref->data, (size_t)valid) == 0, "cannot write %s", path);
        snprintf(path, sizeof path, "%s/%s-cut%llu.jsonl", dir, sc->name, (unsigned long long)n);
        f = fopen(path, "w");
        if (!TU_CHECK_MSG(f != NULL, "cannot write %s", path))
            continue;
        for (i = 0; i < rows; i++)
            json_row(f, sc, i);
        fclose(f);
        tu_note("%s: cut at byte %llu of %zu: recovered %llu bytes, %llu rows", sc->name, (unsigned long long)n,
                ref->len, (unsigned long long)valid, (unsigned long long)rows);
    }
}

/* ---- main ------------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    static harness h;
    const char *only = NULL, *sample_dir = NULL;
    int full = 0;
    size_t s;
    int i, ran = 0;
    double t0 = now();

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--full") == 0)
            full = 1;
        else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
            sample_dir = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--only NAME] [--full] [--samples DIR]\n", argv[0]);
            return 2;
        }
    }
    if (sample_dir) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && rm -f '%s'/*.parquet '%s'/*.jsonl", sample_dir, sample_dir,
                 sample_dir);
        if (system(cmd) != 0) {
            fprintf(stderr, "test_powerloss: cannot prepare %s\n", sample_dir);
            return 2;
        }
    }
    h.rarena = (uint8_t *)malloc(READ_ARENA);
    if (!h.rarena)
        return 2;
    for (s = 0; s < NSCEN; s++) {
        const scenario *sc = &scenarios[s];
        reference ref;
        double ts = now();
        if (only ? strcmp(only, sc->name) != 0 : sc->big && !full)
            continue;
#if !UPQ_WITH_LZ4
        if (sc->codec == UPQ_CODEC_LZ4_RAW) {
            tu_note("%s: skipped: this build has no LZ4 (make deps)", sc->name);
            continue;
        }
#endif
        ran++;
        tu_case("%s: reference run", sc->name);
        if (!setup(&h, sc) || !make_reference(&h, sc, &ref)) {
            reference_free(&ref);
            continue;
        }
        if (sample_dir)
            samples(&h, sc, &ref, sample_dir, 3);
        else
            sweep(&h, sc, &ref, full && !sc->big);
        reference_free(&ref);
        tu_note("%s: %.2f s", sc->name, now() - ts);
    }
    TU_CHECK_MSG(ran > 0, "no scenario ran");
    free(h.rarena);
    free(h.warena);
    tu_note("total %.2f s", now() - t0);
    return tu_summary();
}
