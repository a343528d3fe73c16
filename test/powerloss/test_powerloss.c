/*
 * Power loss while logging, at sector level: the writer in checkpoint mode
 * on an SD card that loses power (test/util/sdcard.h: nothing durable before
 * sync, sectors written since the last sync kept or lost in any order, the
 * sector being programmed torn, the file length as of the last sync), and
 * upq_recover on what survives.
 *
 * For every scenario an uncut run gives the reference: the file must read
 * back with every row as generated. Then the power is cut:
 *   at write calls (every call of the small scenarios, a sample of the
 *   large ones), at bytes of the data stream, and at syncs;
 * and after each cut the card is powered up again and recovered in place in
 * a fixed arena (RECOVER_ARENA, what a board would give it). The recovered
 * file must read back with exactly the rows of one checkpoint: at least the
 * rows the writer had reported durable when the power failed, at most the
 * rows it had taken, ending at a checkpoint or row group boundary, every
 * value as generated. Recovering it again changes nothing. Every few cuts
 * the cut file is also resumed instead (upq_writer_resume) and the rest of
 * the rows written: the closed file must hold every row, and a second cut
 * during the resumed run must recover too.
 *
 * Scenarios: flat sensor rows (int64 TIMESTAMP(MICROS,UTC), a string, eight
 * optional floats with nulls, a boolean) written row by row, and rows with
 * a LIST column written column by column; uncompressed and LZ4_RAW; data
 * pages v1 and v2; row groups ended by rows and by bytes; checkpoints every
 * N rows or only at row group ends; a card that takes short writes and says
 * "again"; cards that keep none, half or all of what was not synced.
 *
 *   test_powerloss [--only NAME] [--full] [--quick]
 *
 * --full adds the long scenarios (the 864,000-row day at 10 Hz of the
 * sensor logger, with sampled cuts). --quick samples cuts in every scenario.
 * $UPQ_TEST_QUICK=1 (the asan stage) is --quick.
 * Under emulation ($UPQ_TEST_REPEAT=N, see util/check.h) the cuts are --quick's
 * thinned N times more: the cross stages check byte order and kernels there,
 * while the host's stages cut at every call and byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "util/check.h"
#include "util/flaky_io.h"
#include "util/sdcard.h"

#define READ_ARENA ((size_t)4 << 20)
/* Recovery gets what the sensor logger's board would give it. */
#define RECOVER_ARENA ((size_t)32 << 10)
#define SPIN_LIMIT 1000000u

#define START_US INT64_C(1717200000000000) /* 2024-06-01T00:00:00Z */
#define PERIOD_US 100000
#define CHANNELS 8

/* ---- scenarios ---------------------------------------------------------------- */

typedef struct scenario {
    const char *name;
    int nested;          /* 0: flat sensor rows; 1: id, LIST<int32>, name */
    uint32_t rows;
    uint64_t rg_rows;    /* row_group_rows */
    uint64_t rg_bytes;   /* row_group_bytes */
    uint64_t ckpt_rows;  /* checkpoint_rows */
    int32_t codec;
    uint32_t page_size;
    uint8_t v2;
    unsigned persist;    /* % of unsynced sectors that survive a cut */
    size_t max_chunk;    /* the card takes at most this much per call (0: all) */
    unsigned again_every;/* every k-th write call says "again" (0: never) */
    uint64_t seed;
    int big;             /* only with --full */
    uint32_t samples;    /* call cuts tried (0: every call) */
    int enc;             /* 0: plain; 1: AES_GCM_V1, every column under the footer key;
                            2: AES_GCM_CTR_V1, two columns with their own keys, a
                            signed plaintext footer, a stored AAD prefix */
} scenario;

static const scenario scenarios[] = {
    {"flat-ckpt50", 0, 700, 300, 0, 50, UPQ_CODEC_UNCOMPRESSED, 512, 0, 50, 0, 0, 1, 0, 0, 0},
    {"flat-ckpt50-lz4-v2", 0, 700, 250, 0, 50, UPQ_CODEC_LZ4_RAW, 512, 1, 50, 0, 0, 2, 0, 0, 0},
    {"flat-rg-only-persist0", 0, 600, 200, 0, 0, UPQ_CODEC_UNCOMPRESSED, 1024, 0, 0, 0, 0, 3, 0, 0, 0},
    {"flat-persist100", 0, 600, 400, 0, 60, UPQ_CODEC_UNCOMPRESSED, 512, 0, 100, 0, 0, 4, 0, 0, 0},
    {"flat-bytes-rg-short-again", 0, 800, 0, 9000, 40, UPQ_CODEC_UNCOMPRESSED, 512, 0, 50, 61, 3, 5, 0, 0, 0},
    {"nested-ckpt40-v2", 1, 600, 250, 0, 40, UPQ_CODEC_UNCOMPRESSED, 512, 1, 50, 0, 0, 6, 0, 0, 0},
    {"nested-ckpt30-v1-tiny-pages", 1, 700, 300, 0, 30, UPQ_CODEC_UNCOMPRESSED, 128, 0, 50, 0, 0, 10, 0, 0, 0},
    {"nested-v1-lz4-short-again", 1, 500, 0, 6000, 45, UPQ_CODEC_LZ4_RAW, 256, 0, 50, 37, 4, 11, 0, 0, 0},
    {"nested-lz4-v2", 1, 900, 400, 0, 70, UPQ_CODEC_LZ4_RAW, 1024, 1, 50, 0, 0, 7, 0, 0, 0},
    {"flat-gcm-ckpt50", 0, 600, 250, 0, 50, UPQ_CODEC_UNCOMPRESSED, 512, 0, 50, 0, 0, 12, 0, 0, 1},
    {"nested-ctr-colkeys-lz4-short-again", 1, 600, 300, 0, 40, UPQ_CODEC_LZ4_RAW, 512, 1, 50, 37, 4, 13, 0, 0,
     2},
    {"flat-20k-rows", 0, 20000, 8192, 0, 600, UPQ_CODEC_UNCOMPRESSED, 1024, 0, 50, 0, 0, 8, 1, 300, 0},
    {"flat-day-864k", 0, 864000, 65536, 0, 600, UPQ_CODEC_UNCOMPRESSED, 1024, 0, 50, 0, 0, 9, 1, 12, 0},
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


/* ---- the harness ---------------------------------------------------------------- */

/* ---- keys ----------------------------------------------------------------------- */

static const uint8_t footer_key[16] = "footer-key-0001";
static const uint8_t col_key0[16] = "column-key-0000";
static const uint8_t col_key3[24] = "column-key-3333-24bytes";

static upq_status get_key(void *ctx, const upq_bytes *md, const upq_bytes_list *path,
                          uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len)
{
    (void)ctx;
    (void)path;
    if (md->len == 2 && memcmp(md->ptr, "kf", 2) == 0) {
        memcpy(key, footer_key, 16);
        *key_len = 16;
    } else if (md->len == 2 && memcmp(md->ptr, "k0", 2) == 0) {
        memcpy(key, col_key0, 16);
        *key_len = 16;
    } else if (md->len == 2 && memcmp(md->ptr, "k3", 2) == 0) {
        memcpy(key, col_key3, 24);
        *key_len = 24;
    } else {
        return UPQ_ERR_AUTH;
    }
    return UPQ_OK;
}

static const upq_decrypt_opts decrypt = {get_key, NULL, NULL, 0, 0};

/* A random source that starts over at every power-up, as a weak one on a
 * board might: the nonces must still never repeat within a file. */
static uint64_t rng_state;

static void rng_reboot(void)
{
    rng_state = UINT64_C(0x243F6A8885A308D3);
}

static upq_status rng(void *ctx, uint8_t *buf, size_t len)
{
    size_t i;
    (void)ctx;
    for (i = 0; i < len; i++) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        buf[i] = (uint8_t)(rng_state >> 24);
    }
    return UPQ_OK;
}

typedef struct harness {
    upq_schema_element elems[MAX_ELEMS];
    uint32_t nelems;
    upq_writer_opts opts;
    upq_column_opts cols[NCOLS_FLAT];
    upq_writer w;
    void *warena;
    size_t warena_len;
    uint8_t *rarena;   /* reader */
    uint8_t *carena;   /* recovery: RECOVER_ARENA */
    upq_encrypt_opts enc;
    upq_column_key ckeys[2];
    int encrypted;
} harness;

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
    o->checkpoint = 1;
    o->checkpoint_rows = sc->ckpt_rows;
    o->file_id = sc->seed * 7919u + 1u;
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
    h->encrypted = sc->enc;
    if (sc->enc) {
        upq_encrypt_opts *e = &h->enc;
        memset(e, 0, sizeof *e);
        memset(h->ckeys, 0, sizeof h->ckeys);
        e->footer_key = footer_key;
        e->footer_key_len = 16;
        e->footer_key_metadata = (const uint8_t *)"kf";
        e->footer_key_metadata_len = 2;
        e->random = rng;
        if (sc->enc == 2) {
            e->algorithm = UPQ_CRYPTO_AES_GCM_CTR_V1;
            e->plaintext_footer = 1;
            e->aad_prefix = (const uint8_t *)"logger-7";
            e->aad_prefix_len = 8;
            h->ckeys[0].column = 0;
            h->ckeys[0].key = col_key0;
            h->ckeys[0].key_len = 16;
            h->ckeys[0].key_metadata = (const uint8_t *)"k0";
            h->ckeys[0].key_metadata_len = 2;
            h->ckeys[1].column = sc->nested ? 2 : 3;
            h->ckeys[1].key = col_key3;
            h->ckeys[1].key_len = 24;
            h->ckeys[1].key_metadata = (const uint8_t *)"k3";
            h->ckeys[1].key_metadata_len = 2;
            e->columns = h->ckeys;
            e->ncolumns = 2;
        }
        o->encrypt = e;
    }
}

static int setup(harness *h, const scenario *sc)
{
    size_t need = 0;
    upq_status st;
    build_schema(sc->nested, h->elems, &h->nelems);
    set_options(h, sc);
    st = upq_writer_workspace_size(h->elems, h->nelems, &h->opts, 0, &need);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: upq_writer_workspace_size: %s", sc->name, upq_strerror(st)))
        return 0;
    free(h->warena);
    h->warena_len = need;
    h->warena = malloc(need ? need : 1);
    return 1;
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

/* ---- one logging run -------------------------------------------------------------- */

/* The rows each checkpoint of the uncut run made durable, in order: a
 * recovered file must end at one of them. */
static uint64_t *ck_rows;
static size_t nck, ck_cap;
static int record_ck;

static void note_durable(const upq_writer *w)
{
    uint64_t d = upq_writer_rows_durable(w);
    if (!record_ck || (nck && ck_rows[nck - 1] == d))
        return;
    if (nck == ck_cap) {
        ck_cap = ck_cap * 2 + 64;
        ck_rows = realloc(ck_rows, ck_cap * sizeof *ck_rows);
        if (!ck_rows)
            exit(2);
    }
    ck_rows[nck++] = d;
}

typedef struct run_result {
    upq_status status;      /* UPQ_OK: closed; else the first error */
    const char *where;
    uint64_t first;         /* first row of the run (resume: rows already in the file) */
    uint64_t rows_taken;    /* rows handed over without error */
    uint64_t durable;       /* upq_writer_rows_durable() after the run */
} run_result;

/* Rows [first, end) into the writer on `sink`; resumes the file first when
 * `resume` (its size). Stops at the first error. */
static void run_writer(harness *h, const scenario *sc, const upq_sink *sink, int resume,
                       uint64_t size, run_result *rr)
{
    upq_status st;
    uint64_t i;
    rr->status = UPQ_OK;
    rr->where = "";
    rr->first = 0;
    rr->rows_taken = 0;
    rr->durable = 0;
    rng_reboot();
    st = upq_writer_init(&h->w, sink, h->elems, h->nelems, h->warena, h->warena_len, &h->opts);
    if (st != UPQ_OK) {
        rr->status = st;
        rr->where = "init";
        return;
    }
    if (resume) {
        RETRY(st, upq_writer_resume(&h->w, size));
        if (st != UPQ_OK) {
            rr->where = "resume";
            goto failed;
        }
        rr->first = upq_writer_rows(&h->w);
        rr->durable = upq_writer_rows_durable(&h->w);
    }
    if (!sc->nested) {
        for (i = rr->first; i < sc->rows; i++) {
            st = write_flat_row(h, sc, i, &rr->where);
            if (st != UPQ_OK)
                goto failed;
            rr->rows_taken++;
            note_durable(&h->w);
        }
    } else {
        static nested_batch b;
        for (i = rr->first; i < sc->rows; i += NEST_BATCH) {
            uint32_t n = (uint32_t)(sc->rows - i < NEST_BATCH ? sc->rows - i : NEST_BATCH);
            nested_fill(&b, sc, i, n);
            st = write_nested_batch(h, &b, n, &rr->where);
            if (st != UPQ_OK)
                goto failed;
            rr->rows_taken += n;
            note_durable(&h->w);
        }
    }
    RETRY(st, upq_writer_close(&h->w));
    if (st != UPQ_OK) {
        rr->where = "close";
        goto failed;
    }
    rr->durable = upq_writer_rows_durable(&h->w);
    note_durable(&h->w);
    return;
failed:
    rr->status = st;
    rr->durable = upq_writer_rows_durable(&h->w);
}

/* ---- recovery and read-back ---------------------------------------------------------- */

/* What the last recovery said. */
static char rc_why[256];

static upq_status recover(harness *h, upq_sink *sink, uint64_t size, upq_recover_info *info)
{
    static upq_recover_state st; /* large: off the stack */
    upq_status s;
    upq_recover_opts ro;
    unsigned spins = 0;
    memset(&st, 0, sizeof st);
    memset(&ro, 0, sizeof ro);
    ro.decrypt = &decrypt;
    ro.random = rng;
    rng_reboot();
    do
        s = upq_recover(&st, sink, size, h->carena, RECOVER_ARENA, h->encrypted ? &ro : NULL, info);
    while (s == UPQ_AGAIN && ++spins < SPIN_LIMIT);
    snprintf(rc_why, sizeof rc_why, "%s (%s) at offset %llu, needed %zu", upq_strerror(s),
             upq_recover_error(&st)->what ? upq_recover_error(&st)->what : "",
             (unsigned long long)upq_recover_error(&st)->offset, upq_recover_needed(&st));
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
static int read_back(harness *h, const scenario *sc, tu_sd *sd, uint64_t want_rows, char *why,
                     size_t whycap)
{
    static upq_reader r;
    static upq_rows rows;
    upq_io io = {0};
    upq_status st;
    const upq_file_metadata *m;
    uint32_t rg;
    uint64_t row = 0;
    io.ctx = sd;
    io.read_at = tu_sd_read_at;
    io.size = tu_sd_len(sd);
    {
        upq_reader_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.decrypt = &decrypt;
        upq_reader_init(&r, &io, h->rarena, READ_ARENA, h->encrypted ? &ro : NULL);
    }
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


/* ---- the checks ------------------------------------------------------------------------ */

/* Is `rows` where a checkpoint of the uncut run ended? */
static int at_checkpoint(const scenario *sc, uint64_t rows)
{
    size_t lo = 0, hi = nck;
    (void)sc;
    if (rows == 0)
        return 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ck_rows[mid] < rows)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nck && ck_rows[lo] == rows;
}

typedef struct counts {
    unsigned long cuts, recovered, resumed, empty;
} counts;

/* The card after a cut, powered up: recover, check, and maybe resume. */
static void after_cut(harness *h, const scenario *sc, tu_sd *sd, const run_result *rr, const char *what,
                      uint64_t n, int resume, counts *cn)
{
    upq_sink sink;
    upq_recover_info info, again;
    char why[256];
    upq_status s;
    uint64_t size;
    tu_sd_remount(sd, NULL);
    tu_sd_sink(sd, &sink);
    size = tu_sd_len(sd);
    cn->cuts++;
    if (getenv("PL_DUMP")) {
        uint64_t len = 0;
        const uint8_t *img = tu_sd_file(sd, &len);
        FILE *fp = fopen(getenv("PL_DUMP"), "wb");
        if (fp) {
            fwrite(img, 1, (size_t)len, fp);
            fclose(fp);
        }
    }
    if (resume) {
        /* resume the cut file and write the rest of the rows */
        run_result r2;
        run_writer(h, sc, &sink, 1, size, &r2);
        if (getenv("PL_DUMP2")) {
            uint64_t len = 0;
            const uint8_t *img = tu_sd_file(sd, &len);
            FILE *fp = fopen(getenv("PL_DUMP2"), "wb");
            if (fp) {
                fwrite(img, 1, (size_t)len, fp);
                fclose(fp);
            }
        }
        if (r2.status == UPQ_ERR_CORRUPT && rr->durable == 0) {
            cn->empty++;
            return; /* nothing was ever durable: not a file to resume */
        }
        if (!TU_CHECK_MSG(r2.status == UPQ_OK, "%s: %s %llu: resume failed in %s: %s (%s)", sc->name, what,
                          (unsigned long long)n, r2.where, upq_strerror(r2.status),
                          upq_writer_error(&h->w)->what ? upq_writer_error(&h->w)->what : ""))
            return;
        TU_CHECK_MSG(r2.first >= rr->durable && r2.first <= rr->first + rr->rows_taken + NEST_BATCH &&
                         at_checkpoint(sc, r2.first),
                     "%s: %s %llu: resumed after %llu rows, %llu were durable", sc->name, what,
                     (unsigned long long)n, (unsigned long long)r2.first, (unsigned long long)rr->durable);
        if (!TU_CHECK_MSG(read_back(h, sc, sd, sc->rows, why, sizeof why), "%s: %s %llu: resumed file: %s",
                          sc->name, what, (unsigned long long)n, why))
            return;
        cn->resumed++;
        return;
    }
    s = recover(h, &sink, size, &info);
    if (rr->durable == 0 && s == UPQ_ERR_CORRUPT) {
        cn->empty++;
        return; /* no checkpoint was durable, and FILE may be gone too */
    }
    if (!TU_CHECK_MSG(s == UPQ_OK, "%s: %s %llu: recovery: %s", sc->name, what, (unsigned long long)n,
                      rc_why))
        return;
    TU_CHECK_MSG(info.rows >= rr->durable && info.rows <= rr->first + rr->rows_taken + NEST_BATCH &&
                     at_checkpoint(sc, info.rows),
                 "%s: %s %llu: %llu rows recovered, %llu durable, %llu taken", sc->name, what,
                 (unsigned long long)n, (unsigned long long)info.rows, (unsigned long long)rr->durable,
                 (unsigned long long)(rr->first + rr->rows_taken));
    TU_CHECK_MSG(info.file_size == tu_sd_len(sd), "%s: %s %llu: recovered size %llu, file %llu", sc->name,
                 what, (unsigned long long)n, (unsigned long long)info.file_size,
                 (unsigned long long)tu_sd_len(sd));
    if (!TU_CHECK_MSG(read_back(h, sc, sd, info.rows, why, sizeof why), "%s: %s %llu: %s", sc->name, what,
                      (unsigned long long)n, why))
        return;
    /* recovering a recovered file changes nothing */
    s = recover(h, &sink, tu_sd_len(sd), &again);
    TU_CHECK_MSG(s == UPQ_OK && again.was_closed && again.rows == info.rows,
                 "%s: %s %llu: recovered twice: %s, closed %d, %llu rows, %llu before", sc->name, what,
                 (unsigned long long)n, rc_why, again.was_closed, (unsigned long long)again.rows,
                 (unsigned long long)info.rows);
    cn->recovered++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --cut KIND:N runs that one cut only (call, byte or sync). */
static char only_kind[16];
static unsigned long only_n;

static int skip_cut(const char *kind, unsigned long n)
{
    return only_kind[0] && (strcmp(kind, only_kind) != 0 || n != only_n);
}

static void run_scenario(harness *h, const scenario *sc, int quick, unsigned thin)
{
    tu_sd sd;
    tu_sd_cfg cfg;
    upq_sink sink;
    run_result rr;
    counts cn;
    char why[256];
    unsigned long calls, syncs, k, step, n;
    uint64_t bytes;
    double t0 = now();
    memset(&cn, 0, sizeof cn);
    tu_case("%s", sc->name);
    if (!setup(h, sc))
        return;
    /* the uncut run */
    tu_sd_cfg_default(&cfg);
    cfg.seed = sc->seed;
    cfg.max_chunk = sc->max_chunk;
    cfg.short_random = sc->max_chunk != 0;
    cfg.write_again.every = sc->again_every;
    cfg.sync_again.every = sc->again_every ? 2u : 0u;
    tu_sd_init(&sd, &cfg);
    tu_sd_sink(&sd, &sink);
    nck = 0;
    record_ck = 1;
    run_writer(h, sc, &sink, 0, 0, &rr);
    record_ck = 0;
    if (!TU_CHECK_MSG(rr.status == UPQ_OK, "%s: the uncut run failed in %s: %s (%s)", sc->name, rr.where,
                      upq_strerror(rr.status),
                      upq_writer_error(&h->w)->what ? upq_writer_error(&h->w)->what : "")) {
        tu_sd_free(&sd);
        return;
    }
    TU_CHECK_MSG(rr.durable == sc->rows, "%s: rows durable after close: %llu", sc->name,
                 (unsigned long long)rr.durable);
    TU_CHECK_MSG(read_back(h, sc, &sd, sc->rows, why, sizeof why), "%s: the uncut file: %s", sc->name, why);
    calls = sd.st.write_taken;
    syncs = sd.st.syncs_done;
    bytes = sd.st.bytes_written;
    tu_note("%s: %u rows, %llu bytes, %lu write calls, %lu syncs", sc->name, sc->rows,
            (unsigned long long)tu_sd_len(&sd), calls, syncs);
    tu_sd_free(&sd);

    /* cuts at write calls */
    step = sc->samples ? (calls / sc->samples + 1u) : 1u;
    if (quick && step < 7)
        step = 7;
    step *= thin;
    for (k = 0; k < calls; k += step) {
        if (skip_cut("call", k))
            continue;
        cfg.cut_call = k;
        cfg.cut_byte = cfg.cut_sync = TU_SD_NEVER;
        cfg.persist_pct = sc->persist;
        cfg.cut_seed = sc->seed * 31u + k;
        tu_sd_init(&sd, &cfg);
        tu_sd_sink(&sd, &sink);
        run_writer(h, sc, &sink, 0, 0, &rr);
        if (rr.status == UPQ_OK) {
            tu_sd_free(&sd);
            continue; /* the cut came after the last write */
        }
        after_cut(h, sc, &sd, &rr, "call", k, (k / step) % 5 == 4, &cn);
        tu_sd_free(&sd);
    }
    /* cuts at bytes, torn at the byte */
    step = (unsigned long)(bytes / (sc->samples ? sc->samples : 400u) + 1u) * thin;
    for (k = 3; k < bytes; k += step) {
        if (skip_cut("byte", k))
            continue;
        cfg.cut_call = cfg.cut_sync = TU_SD_NEVER;
        cfg.cut_byte = k;
        cfg.persist_pct = sc->persist;
        cfg.cut_seed = sc->seed * 37u + k;
        tu_sd_init(&sd, &cfg);
        tu_sd_sink(&sd, &sink);
        run_writer(h, sc, &sink, 0, 0, &rr);
        if (rr.status != UPQ_OK)
            after_cut(h, sc, &sd, &rr, "byte", k, 0, &cn);
        tu_sd_free(&sd);
    }
    /* cuts at syncs */
    n = sc->samples && sc->samples < 40u ? sc->samples : 40u; /* the day: as many as its other cuts */
    for (k = 0; k < syncs; k += (syncs > n ? syncs / n : 1) * thin) {
        if (skip_cut("sync", k))
            continue;
        cfg.cut_call = cfg.cut_byte = TU_SD_NEVER;
        cfg.cut_sync = k;
        cfg.persist_pct = sc->persist;
        cfg.cut_seed = sc->seed * 41u + k;
        tu_sd_init(&sd, &cfg);
        tu_sd_sink(&sd, &sink);
        run_writer(h, sc, &sink, 0, 0, &rr);
        if (rr.status != UPQ_OK)
            after_cut(h, sc, &sd, &rr, "sync", k, k % 3 == 1, &cn);
        tu_sd_free(&sd);
    }
    tu_note("%s: %lu cuts: %lu recovered, %lu resumed, %lu before anything was durable (%.1f s)", sc->name,
            cn.cuts, cn.recovered, cn.resumed, cn.empty, now() - t0);
}

int main(int argc, char **argv)
{
    static harness h;
    const char *only = NULL;
    int full = 0, quick = 0, i;
    unsigned thin = tu_repeat();
    size_t s;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--full") == 0)
            full = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--cut") == 0 && i + 1 < argc)
            sscanf(argv[++i], "%15[a-z]:%lu", only_kind, &only_n);
        else {
            fprintf(stderr, "usage: test_powerloss [--only NAME] [--full] [--quick]\n");
            return 2;
        }
    }
    if (thin > 1 || (getenv("UPQ_TEST_QUICK") && strcmp(getenv("UPQ_TEST_QUICK"), "1") == 0))
        quick = 1;
    h.rarena = malloc(READ_ARENA);
    h.carena = malloc(RECOVER_ARENA);
    if (!h.rarena || !h.carena)
        return 2;
    for (s = 0; s < NSCEN; s++) {
        const scenario *sc = &scenarios[s];
        if (only ? strcmp(only, sc->name) != 0 : (sc->big && !full))
            continue;
        run_scenario(&h, sc, quick, thin);
    }
    free(h.rarena);
    free(h.carena);
    free(h.warena);
    return tu_summary();
}
