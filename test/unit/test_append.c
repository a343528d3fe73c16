/* The append-only sink (port/adapters/append) against a flat model of the
 * file: random writes, reads, syncs, seals and truncates over two files in
 * memory that keep what was synced; power cuts (both files as of their
 * last sync, then upq_append_open takes them up) must give the file as of
 * the last sync. Journals written by hand (the frame format, byte by byte,
 * with the library's own CRC-32) are taken up; and a run read back in
 * order finds its frames from the index, not by reading the headers of
 * the frames between. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32.h"
#include "util/check.h"
#include "util/flaky_io.h" /* tu_seed */

#include "../../port/adapters/append/upq_append.c"

/* ---- a file in memory that keeps what was synced ------------------------- */

#define MF_CAP (1u << 23)

typedef struct mfile {
    uint8_t *b, *durable;
    size_t size, dsize;
    int dirty;
    unsigned long reads;
} mfile;

static void both_synced(void);

static void mf_init(mfile *m)
{
    m->b = calloc(MF_CAP, 1);
    m->durable = calloc(MF_CAP, 1);
    m->size = m->dsize = 0;
    m->dirty = 0;
    m->reads = 0;
}

static void mf_free(mfile *m)
{
    free(m->b);
    free(m->durable);
}

/* the power goes: the file is as of its last sync */
static void mf_cut(mfile *m)
{
    memcpy(m->b, m->durable, m->dsize);
    m->size = m->dsize;
    m->dirty = 0;
}

static upq_status mf_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *w)
{
    mfile *m = (mfile *)ctx;
    if (off + len > MF_CAP)
        return UPQ_ERR_IO;
    if (off > m->size)
        memset(m->b + m->size, 0, (size_t)off - m->size);
    memcpy(m->b + off, buf, len);
    m->dirty = 1;
    if (off + len > m->size)
        m->size = (size_t)off + len;
    *w = len;
    return UPQ_OK;
}

static upq_status mf_write(void *ctx, const void *buf, size_t len, size_t *w)
{
    return mf_write_at(ctx, ((mfile *)ctx)->size, buf, len, w);
}

static upq_status mf_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    mfile *m = (mfile *)ctx;
    m->reads++;
    *got = 0;
    if (off >= m->size)
        return UPQ_OK;
    *got = m->size - off < len ? m->size - (size_t)off : len;
    memcpy(buf, m->b + off, *got);
    return UPQ_OK;
}

static upq_status mf_sync(void *ctx)
{
    mfile *m = (mfile *)ctx;
    memcpy(m->durable, m->b, m->size);
    m->dsize = m->size;
    m->dirty = 0;
    both_synced();
    return UPQ_OK;
}

static upq_status mf_truncate(void *ctx, uint64_t size)
{
    mfile *m = (mfile *)ctx;
    if (size > m->size)
        memset(m->b + m->size, 0, (size_t)size - m->size);
    m->size = (size_t)size;
    m->dirty = 1;
    return UPQ_OK;
}

static void mf_sink(mfile *m, upq_sink *s)
{
    memset(s, 0, sizeof *s);
    s->ctx = m;
    s->write = mf_write;
    s->write_at = mf_write_at;
    s->read_at = mf_read_at;
    s->sync = mf_sync;
    s->truncate = mf_truncate;
}

/* ---- the sink over two of them, and the model ----------------------------- */

static mfile D, J;
static upq_append A;
static upq_sink S;
static uint8_t copybuf[512];
static uint8_t *model, *synced; /* the file as written, and as of the last sync */
static size_t msize, ssize;

static uint32_t rng = 1;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Both files synced, with nothing written since: a cut now gives the file
 * as the model has it (the sink syncs inside a seal and a write that
 * seals first, too, not only at its sync). */
static void both_synced(void)
{
    if (!D.dirty && !J.dirty && model) {
        memcpy(synced, model, msize);
        ssize = msize;
    }
}

static int open_pair(int create)
{
    upq_sink ds, js;
    mf_sink(&D, &ds);
    mf_sink(&J, &js);
    if (upq_append_open(&A, &ds, &js, D.size, J.size, create, copybuf, sizeof copybuf) != UPQ_OK)
        return 0;
    upq_append_sink(&A, &S);
    return 1;
}

static int put(uint64_t off, const uint8_t *p, size_t n)
{
    while (n) {
        size_t w = 0;
        if (S.write_at(S.ctx, off, p, n, &w) != UPQ_OK || w == 0 || w > n)
            return 0;
        if (off + w > msize) {
            if (off > msize)
                memset(model + msize, 0, (size_t)off - msize);
            msize = (size_t)off + w;
        }
        memcpy(model + off, p, w);
        off += w;
        p += w;
        n -= w;
    }
    return 1;
}

/* [off, off + n) through the sink equals the model */
static int same(uint64_t off, size_t n, const uint8_t *want)
{
    static uint8_t got[1u << 16];
    size_t have = 0;
    while (have < n) {
        size_t g = 0;
        if (S.read_at(S.ctx, off + have, got + have, n - have, &g) != UPQ_OK || g == 0)
            return 0;
        have += g;
    }
    return memcmp(got, want + off, n) == 0;
}

static int sync_all(void)
{
    return S.sync(S.ctx) == UPQ_OK && ssize == msize;
}

static int seal_to(uint64_t off)
{
    upq_status st;
    do
        st = S.seal(S.ctx, off);
    while (st == UPQ_AGAIN);
    return st == UPQ_OK;
}

/* Regions as the writer's region layout has them: `nreg` runs written in
 * turn, pieces of 1 to 700 bytes (small ones gathered), a record now and
 * then; syncs at checkpoints, a seal at a row group's end; reads back and
 * cuts on the way. */
static void random_run(uint32_t seed, int rounds)
{
    enum { NREG = 13, REG = 3000 };
    uint64_t at[NREG], rg = 0;
    uint8_t piece[800];
    int r, i, ok = 1, cuts = 0, seals = 0;
    uint32_t last = 0;
    rng = seed;
    msize = ssize = 0;
    D.size = D.dsize = J.size = J.dsize = 0;
    D.dirty = J.dirty = 0;
    if (!open_pair(1)) {
        TU_CHECK(0);
        return;
    }
    for (i = 0; i < NREG; i++)
        at[i] = rg + 64 + (uint64_t)i * REG;
    for (r = 0; r < rounds && ok && rg + 64 + (uint64_t)NREG * REG < MF_CAP / 2; r++) {
        uint32_t what = rnd() % 100;
        last = what;
        if (what < 70) {
            int reg = (int)(rnd() % NREG);
            size_t n = 1 + rnd() % (rnd() % 4 == 0 ? 40u : 700u);
            if (at[reg] + n > rg + 64 + (uint64_t)(reg + 1) * REG)
                continue;
            for (i = 0; i < (int)n; i++)
                piece[i] = (uint8_t)rnd();
            ok = put(at[reg], piece, n);
            at[reg] += n;
        } else if (what < 78) {
            /* a record at the row group's head, over bytes written before */
            size_t n = 1 + rnd() % 60;
            uint64_t off = rg + rnd() % 64;
            for (i = 0; i < (int)n; i++)
                piece[i] = (uint8_t)rnd();
            ok = put(off, piece, n < 64 - (off - rg) ? n : (size_t)(64 - (off - rg)));
        } else if (what < 88 && msize) {
            uint64_t off = rnd() % msize;
            size_t n = 1 + rnd() % 4096;
            if (off + n > msize)
                n = msize - (size_t)off;
            ok = same(off, n, model);
        } else if (what < 94) {
            ok = sync_all();
        } else if (what < 96) {
            /* a row group's end: synced, sealed, the next one after it */
            ok = sync_all() && seal_to(msize);
            rg = msize;
            for (i = 0; i < NREG; i++)
                at[i] = rg + 64 + (uint64_t)i * REG;
            seals++;
        } else if (what < 98) {
            /* a cut, maybe in the middle of a seal */
            if (rnd() % 2 && msize > A.base) {
                upq_status st = S.sync(S.ctx);
                ok = st == UPQ_OK && S.seal(S.ctx, msize) != UPQ_ERR_IO;
            }
            mf_cut(&D);
            mf_cut(&J);
            ok = ok && open_pair(0);
            ok = ok && upq_append_size(&A) == ssize;
            memcpy(model, synced, ssize);
            msize = ssize;
            ok = ok && (msize == 0 || same(0, msize < 60000 ? msize : 60000, model));
            ok = ok && (msize <= 60000 || same(msize - 60000, 60000, model));
            for (i = 0; i < NREG; i++)
                if (at[i] > msize)
                    at[i] = msize > rg + 64 + (uint64_t)i * REG ? msize : rg + 64 + (uint64_t)i * REG;
            cuts++;
        }
    }
    if (!ok)
        printf("# failed at round %d (op %u), size %zu, base %llu: %s\n", r, last, msize,
               (unsigned long long)A.base, A.what ? A.what : "");
    TU_CHECK(ok);
    /* everything once more, then sealed: the data file is the file */
    TU_CHECK(same(0, msize < 65536 ? msize : 65536, model));
    TU_CHECK(sync_all() && upq_append_seal_all(&A) == UPQ_OK);
    TU_CHECK_UINT(D.size, msize);
    TU_CHECK(memcmp(D.b, model, msize) == 0);
    TU_CHECK(cuts > 0 && seals > 0);
}

/* ---- journals written by hand --------------------------------------------- */

/* v as n little-endian bytes at o */
static void le(uint8_t *o, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        o[i] = (uint8_t)(v >> (8 * i));
}

/* a frame with the 24-byte header: "UPQA", type, 3 zero bytes, u32
 * length, u64 offset, u32 CRC of the first 20 bytes and the data */
static size_t frame_long(uint8_t *o, int type, uint64_t voff, const char *data, uint32_t n)
{
    memcpy(o, "UPQA", 4);
    o[4] = (uint8_t)type;
    le(o + 5, 0, 3);
    le(o + 8, n, 4);
    le(o + 12, voff, 8);
    memcpy(o + 24, data, n);
    le(o + 20, upq_crc32_update(upq_crc32(o, 20), o + 24, n), 4);
    return 24u + n;
}

/* a data frame with the 16-byte header: "UPQA", 4, u24 length, u32 offset
 * from the sealed end, u32 CRC of the first 12 bytes and the data */
static size_t frame_short(uint8_t *o, uint32_t rel, const char *data, uint32_t n)
{
    memcpy(o, "UPQA", 4);
    o[4] = 4;
    le(o + 5, n, 3);
    le(o + 8, rel, 4);
    memcpy(o + 16, data, n);
    le(o + 12, upq_crc32_update(upq_crc32(o, 12), o + 16, n), 4);
    return 16u + n;
}

static void by_hand(void)
{
    uint8_t *j = J.b;
    size_t n = 0;
    /* the data file holds "0123456789"; the journal: its head (sealed end
     * 4), a frame with the long header at 4, a short one at 8 (offset 4
     * from the sealed end), then a torn one */
    memcpy(D.b, "0123456789", 10);
    D.size = D.dsize = 10;
    n += frame_long(j + n, 1, 4, "", 0);
    n += frame_long(j + n, 2, 4, "abcd", 4);
    n += frame_short(j + n, 4, "EFGHIJ", 6);
    n += frame_short(j + n, 10, "torn", 4) - 2;
    J.size = J.dsize = n;
    tu_case("a journal written by hand is taken up (long and short data frames)");
    TU_CHECK(open_pair(0));
    TU_CHECK_UINT(upq_append_size(&A), 14);
    memcpy(model, "0123abcdEFGHIJ", 14);
    TU_CHECK(same(0, 14, model));
    TU_CHECK_UINT(J.size, n - (16 + 4 - 2)); /* the torn frame is cut off */
    TU_CHECK(upq_append_seal_all(&A) == UPQ_OK);
    TU_CHECK(D.size == 14 && memcmp(D.b, "0123abcdEFGHIJ", 14) == 0);
    /* what this sink writes: a short frame, byte for byte */
    tu_case("a data frame as written: the short header");
    {
        static const uint8_t hello[] = "hello";
        size_t w = 0;
        TU_CHECK(S.write_at(S.ctx, 14, hello, 5, &w) == UPQ_OK && w == 5);
        TU_CHECK(S.sync(S.ctx) == UPQ_OK);
        /* the journal: its head (24 bytes), then the frame */
        TU_CHECK_UINT(J.size, 24u + 16u + 5u);
        TU_CHECK(J.size >= 45 && memcmp(J.b + 24, "UPQA\4\5\0\0\0\0\0\0", 12) == 0 &&
                 memcmp(J.b + 40, "hello", 5) == 0);
        TU_CHECK_UINT((uint32_t)J.b[36] | (uint32_t)J.b[37] << 8 | (uint32_t)J.b[38] << 16 |
                          (uint32_t)J.b[39] << 24,
                      upq_crc32_update(upq_crc32(J.b + 24, 12), J.b + 40, 5));
    }
}

/* ---- the index: a run read back in order --------------------------------- */

static void index_reads(void)
{
    enum { NREG = 13, PIECE = 550, ROUNDS = 300, REG = PIECE * ROUNDS };
    static uint8_t piece[PIECE];
    unsigned long before, lookups;
    uint64_t off;
    int ok = 1;
    msize = ssize = 0;
    D.size = D.dsize = J.size = J.dsize = 0;
    tu_case("a run read in order: its frames from the index (13 runs interleaved, 3,900 frames)");
    TU_CHECK(open_pair(1));
    for (int r = 0; r < ROUNDS && ok; r++)
        for (int k = 0; k < NREG && ok; k++) {
            for (int i = 0; i < PIECE; i++)
                piece[i] = (uint8_t)rnd();
            ok = put((uint64_t)k * REG + (uint64_t)r * PIECE, piece, PIECE);
        }
    TU_CHECK(ok && sync_all());
    before = J.reads;
    lookups = A.headers;
    for (off = 0; off < msize && ok; off += 2048)
        ok = same(off, msize - off < 2048 ? (size_t)(msize - off) : 2048, model);
    TU_CHECK(ok);
    /* each frame: the header after the last one found (the run may go on
     * there), its index entry (an index frame read for several of the
     * run's frames), its header and its bytes, reads of a file without
     * read-ahead; reading the headers of the frames between made about 13
     * header reads a frame */
    TU_CHECK(J.reads - before < 5u * NREG * ROUNDS);
    TU_CHECK(A.indexed > (unsigned long)(NREG * ROUNDS) / 2);
    TU_CHECK(A.headers - lookups < 3u * NREG * ROUNDS);
    printf("# journal reads %lu for %d frames read in order (%lu looked up by the index)\n",
           J.reads - before, NREG * ROUNDS, A.indexed);
    tu_case("the seal copies the interleaved runs with the index");
    before = J.reads;
    TU_CHECK(upq_append_seal_all(&A) == UPQ_OK);
    TU_CHECK(D.size == msize && memcmp(D.b, model, msize) == 0);
    TU_CHECK(J.reads - before < 6u * NREG * ROUNDS);
    printf("# journal reads %lu for the seal of %d frames\n", J.reads - before, NREG * ROUNDS);
}

int main(void)
{
    uint32_t seed = (uint32_t)tu_seed();
    mf_init(&D);
    mf_init(&J);
    model = calloc(MF_CAP, 1);
    synced = calloc(MF_CAP, 1);
    by_hand();
    index_reads();
    for (int i = 0; i < 40; i++) {
        tu_case("random writes, reads, seals and cuts against the model, seed %u", seed + (uint32_t)i);
        random_run(seed + (uint32_t)i + 1, 3000);
    }
    mf_free(&D);
    mf_free(&J);
    free(model);
    free(synced);
    return tu_summary();
}
