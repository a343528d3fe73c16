/*
 * The SD card model (test/util/sdcard.h) keeps its promises, since the
 * power-loss tests trust it to be as harsh as documented and no harsher:
 * synced data always survives a cut; unsynced sectors survive exactly per
 * persist_pct (0: none, 100: all), each whole; a torn write changes only the
 * sector being written, and only bytes before the cut point; the file length
 * after a cut follows the length policy (truncates and syncs included); short
 * counts, "again" and one-off errors are honoured and bounded; a cut at byte
 * N leaves exactly the bytes before N (persist 100, clean tear), checked at
 * every byte and every call of a workload with gaps, overwrites and syncs,
 * against a plain reference; gaps show the stale medium; remount resumes on
 * what survived; the counters count; runs are deterministic per seed; a
 * 36 MB log with a sync every 64 KiB stays cheap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/check.h"
#include "util/flaky_io.h"
#include "util/sdcard.h"

#define APPEND UINT64_MAX
#define SPINS 100u

/* Writes all of buf (appends when off == APPEND) through the callbacks,
 * asking again after UPQ_AGAIN and going on after short writes, as a writer
 * would. Returns the first error, UPQ_ERR_STATE if the card broke the
 * contract (0 or too many bytes, endless "again"). */
static upq_status put(tu_sd *sd, uint64_t off, const void *buf, size_t n)
{
    const uint8_t *p = (const uint8_t *)buf;
    unsigned spins = 0;
    while (n) {
        size_t w = 0;
        upq_status st = off == APPEND ? tu_sd_write(sd, p, n, &w)
                                      : tu_sd_write_at(sd, off, p, n, &w);
        if (st == UPQ_AGAIN) {
            if (++spins > SPINS)
                return UPQ_ERR_STATE;
            continue;
        }
        if (st != UPQ_OK)
            return st;
        if (w == 0 || w > n)
            return UPQ_ERR_STATE;
        spins = 0;
        p += w;
        n -= w;
        if (off != APPEND)
            off += w;
    }
    return UPQ_OK;
}

static upq_status sync_all(tu_sd *sd)
{
    unsigned spins = 0;
    upq_status st;
    while ((st = tu_sd_sync(sd)) == UPQ_AGAIN)
        if (++spins > SPINS)
            return UPQ_ERR_STATE;
    return st;
}

/* Reads [off, off+n) or up to the end; *total gets the bytes read. */
static upq_status get(tu_sd *sd, uint64_t off, void *buf, size_t n, size_t *total)
{
    uint8_t *p = (uint8_t *)buf;
    unsigned spins = 0;
    *total = 0;
    while (n) {
        size_t g = 0;
        upq_status st = tu_sd_read_at(sd, off, p, n, &g);
        if (st == UPQ_AGAIN) {
            if (++spins > SPINS)
                return UPQ_ERR_STATE;
            continue;
        }
        if (st != UPQ_OK)
            return st;
        if (g > n)
            return UPQ_ERR_STATE;
        if (g == 0)
            break;
        spins = 0;
        p += g;
        n -= g;
        off += g;
        *total += g;
    }
    return UPQ_OK;
}

static uint8_t dat(unsigned tag, size_t i)
{
    return (uint8_t)(tag * 37u + i * 13u + (i >> 7) + 1u);
}

static uint8_t *gen(unsigned tag, size_t n)
{
    uint8_t *p = (uint8_t *)malloc(n ? n : 1);
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = dat(tag, i);
    return p;
}

static int is_stale(const uint8_t *p, uint64_t off, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != tu_sd_stale_byte(off + i))
            return 0;
    return 1;
}

static void cfg_for(tu_sd_cfg *c, unsigned persist, tu_sd_torn torn, tu_sd_len_policy lp,
                    uint64_t seed)
{
    tu_sd_cfg_default(c);
    c->persist_pct = persist;
    c->torn = torn;
    c->len_policy = lp;
    c->seed = seed;
}

/* ---- basics ----------------------------------------------------------- */

static void test_defaults_and_sink(void)
{
    tu_sd_cfg c;
    tu_sd sd;
    upq_sink s;
    tu_case("defaults and sink");
    tu_sd_cfg_default(&c);
    TU_CHECK_UINT(c.persist_pct, 50);
    TU_CHECK_INT(c.torn, TU_SD_TORN_MIX);
    TU_CHECK_INT(c.len_policy, TU_SD_LEN_DURABLE);
    TU_CHECK(c.cut_call == TU_SD_NEVER && c.cut_byte == TU_SD_NEVER && c.cut_sync == TU_SD_NEVER);
    TU_CHECK(c.fail_write_call == TU_SD_NEVER && c.fail_sync_call == TU_SD_NEVER &&
             c.fail_read_call == TU_SD_NEVER && c.fail_truncate_call == TU_SD_NEVER);
    TU_CHECK_UINT(c.max_again_run, 3);
    tu_sd_init(&sd, NULL);
    tu_sd_sink(&sd, &s);
    TU_CHECK(s.ctx == &sd);
    TU_CHECK(s.write == tu_sd_write && s.write_at == tu_sd_write_at && s.sync == tu_sd_sync &&
             s.read_at == tu_sd_read_at && s.truncate == tu_sd_truncate);
    TU_CHECK_UINT(tu_sd_len(&sd), 0);
    TU_CHECK(!tu_sd_is_cut(&sd));
    tu_sd_free(&sd);
}

static void test_volatile_view(void)
{
    tu_sd sd;
    uint8_t *a = gen(1, 2000), *b = gen(2, 300), want[2000], got[2100];
    size_t n = 0, g = 7;
    tu_case("volatile view: appends, overwrites, reads to the end");
    tu_sd_init(&sd, NULL);
    TU_CHECK_STATUS(put(&sd, APPEND, a, 2000), UPQ_OK);
    TU_CHECK_STATUS(put(&sd, 700, b, 300), UPQ_OK);
    memcpy(want, a, 2000);
    memcpy(want + 700, b, 300);
    TU_CHECK_UINT(tu_sd_len(&sd), 2000);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 0);
    TU_CHECK_STATUS(get(&sd, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 2000);
    TU_CHECK_MEM(got, want, 2000);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 2000, got, 10, &g), UPQ_OK);
    TU_CHECK_UINT(g, 0);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 99999, got, 10, &g), UPQ_OK);
    TU_CHECK_UINT(g, 0);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 1990, got, 100, &g), UPQ_OK);
    TU_CHECK_UINT(g, 10);
    TU_CHECK_STATUS(put(&sd, APPEND, b, 1), UPQ_OK); /* append goes at the end */
    TU_CHECK_UINT(tu_sd_len(&sd), 2001);
    TU_CHECK_STATUS(tu_sd_post_read_at(&sd, 0, got, 10, &g), UPQ_ERR_IO); /* no cut yet */
    TU_CHECK_UINT(tu_sd_post_copy(&sd, got, sizeof got), 0);
    tu_sd_free(&sd);
    free(a);
    free(b);
}

/* ---- what a cut keeps --------------------------------------------------- */

/* Data A (3000 bytes, ending mid-sector) is synced, then B appended; the
 * power fails inside B or after it. A is intact whatever the policy. */
static void test_synced_survives(void)
{
    static const unsigned persist[3] = {0, 50, 100};
    static const tu_sd_torn torn[3] = {TU_SD_TORN_MIX, TU_SD_TORN_PREFIX, TU_SD_TORN_CUT};
    uint8_t *a = gen(3, 3000), *b = gen(4, 5000);
    unsigned pi, ti, lp, seed, bad = 0, runs = 0;
    tu_case("synced data survives every cut");
    for (pi = 0; pi < 3; pi++)
        for (ti = 0; ti < 3; ti++)
            for (lp = 0; lp <= TU_SD_LEN_RANDOM; lp++)
                for (seed = 1; seed <= 12; seed++) {
                    tu_sd sd;
                    tu_sd_cfg c;
                    uint64_t len;
                    const uint8_t *f;
                    upq_status st;
                    cfg_for(&c, persist[pi], torn[ti], (tu_sd_len_policy)lp, seed * 7919u);
                    if (seed % 3)
                        c.cut_byte = 3000 + (seed * 613u) % 5000u;
                    tu_sd_init(&sd, &c);
                    put(&sd, APPEND, a, 3000);
                    sync_all(&sd);
                    st = put(&sd, APPEND, b, 5000);
                    tu_sd_power_cut(&sd);
                    f = tu_sd_file(&sd, &len);
                    runs++;
                    if (st != (seed % 3 ? UPQ_ERR_IO : UPQ_OK) || len < 3000 ||
                        memcmp(f, a, 3000) != 0 ||
                        (lp == TU_SD_LEN_DURABLE && len != 3000)) {
                        if (bad++ < 3)
                            TU_CHECK_MSG(0, "persist %u torn %u len %u seed %u: status %d, "
                                         "length %llu", persist[pi], ti, lp, seed, (int)st,
                                         (unsigned long long)len);
                    }
                    tu_sd_free(&sd);
                }
    TU_CHECK_MSG(bad == 0, "%u of %u cuts lost synced data", bad, runs);
    free(a);
    free(b);
}

/* A synced; then A partly rewritten and B appended past a gap, no sync. */
static void rewrite_workload(tu_sd *sd, const uint8_t *a, const uint8_t *r, const uint8_t *b)
{
    put(sd, APPEND, a, 3000);
    sync_all(sd);
    put(sd, 1000, r, 1500);  /* sectors 1..4 rewritten */
    put(sd, 3500, b, 2000);  /* gap 3000..3500 */
}

static void test_persist_0_and_100(void)
{
    uint8_t *a = gen(5, 3000), *r = gen(6, 1500), *b = gen(7, 2000);
    uint8_t vol[5500];
    unsigned lp, seed, i;
    tu_case("persist 0: exactly the synced state; persist 100: every write");
    memcpy(vol, a, 3000);
    memcpy(vol + 1000, r, 1500);
    for (i = 3000; i < 3500; i++)
        vol[i] = tu_sd_stale_byte(i);
    memcpy(vol + 3500, b, 2000);
    for (lp = 0; lp <= TU_SD_LEN_VOLATILE; lp++)
        for (seed = 1; seed <= 8; seed++) {
            tu_sd sd;
            tu_sd_cfg c;
            uint64_t len;
            const uint8_t *f;
            unsigned ti = seed % 3;
            /* persist 0 */
            cfg_for(&c, 0, (tu_sd_torn)ti, (tu_sd_len_policy)lp, seed);
            tu_sd_init(&sd, &c);
            rewrite_workload(&sd, a, r, b);
            TU_CHECK_UINT(tu_sd_len(&sd), 5500);
            tu_sd_power_cut(&sd);
            f = tu_sd_file(&sd, &len);
            TU_CHECK_UINT(sd.last_cut.dirty, 9); /* sectors 1..4 and 6..10, not the gap's */
            TU_CHECK_UINT(sd.last_cut.lost, 9);
            TU_CHECK_UINT(sd.last_cut.persisted, 0);
            TU_CHECK_UINT(len, lp == TU_SD_LEN_VOLATILE ? 5500 : 3000);
            TU_CHECK_MEM(f, a, 3000);
            if (len > 3000)
                TU_CHECK_MSG(is_stale(f + 3000, 3000, (size_t)len - 3000),
                             "persist 0, volatile length: lost sectors show the stale medium");
            tu_sd_free(&sd);

            /* persist 100 */
            cfg_for(&c, 100, (tu_sd_torn)ti, (tu_sd_len_policy)lp, seed);
            tu_sd_init(&sd, &c);
            rewrite_workload(&sd, a, r, b);
            tu_sd_power_cut(&sd);
            f = tu_sd_file(&sd, &len);
            TU_CHECK_UINT(sd.last_cut.persisted, 9);
            TU_CHECK_UINT(sd.last_cut.lost, 0);
            TU_CHECK_UINT(len, lp == TU_SD_LEN_DURABLE ? 3000 : 5500);
            TU_CHECK_MEM(f, vol, (size_t)len);
            tu_sd_free(&sd);
        }
    free(a);
    free(r);
    free(b);
}

/* Every byte of 16 sectors rewritten (old 0x11, new 0x22): each sector must
 * come back whole old or whole new, the report must count them, and with
 * PERSISTED the length covers exactly the last new sector. */
static void test_persist_per_sector(void)
{
    uint8_t old[8192], nw[8192];
    unsigned seed, bad = 0, seen_old = 0, seen_new = 0;
    tu_case("persist 50: each unsynced sector whole old or whole new; persisted length");
    memset(old, 0x11, sizeof old);
    memset(nw, 0x22, sizeof nw);
    for (seed = 1; seed <= 40; seed++) {
        tu_sd sd;
        tu_sd_cfg c;
        uint64_t s, n_new = 0, hi = 4096, len;
        cfg_for(&c, 50, TU_SD_TORN_MIX, TU_SD_LEN_PERSISTED, seed * 31u);
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, old, 4096);
        sync_all(&sd);
        put(&sd, 0, nw, 8000); /* 8 rewritten sectors, 8 new ones (the last partial) */
        tu_sd_power_cut(&sd);
        len = tu_sd_len(&sd);
        for (s = 0; s < 16; s++) {
            size_t i, cnt_new = 0, cnt_old = 0, n = s == 15 ? 8000 - 15 * 512 : 512;
            for (i = 0; i < n; i++) {
                uint8_t v = tu_sd_medium_byte(&sd, s * 512 + i);
                cnt_new += v == 0x22;
                cnt_old += s < 8 ? v == 0x11 : v == tu_sd_stale_byte(s * 512 + i);
            }
            if (cnt_new == n) {
                uint64_t end = (s + 1) * 512 < 8000 ? (s + 1) * 512 : 8000;
                n_new++;
                seen_new++;
                if (end > hi)
                    hi = end;
            } else if (cnt_old == n) {
                seen_old++;
            } else if (bad++ < 3) {
                TU_CHECK_MSG(0, "seed %u: sector %llu is a mix (%zu new, %zu old of %zu)", seed,
                             (unsigned long long)s, cnt_new, cnt_old, n);
            }
        }
        TU_CHECK_UINT(sd.last_cut.dirty, 16);
        TU_CHECK_UINT(sd.last_cut.persisted, n_new);
        TU_CHECK_UINT(sd.last_cut.lost, 16 - n_new);
        TU_CHECK_UINT(len, hi);
        tu_sd_free(&sd);
    }
    TU_CHECK_MSG(bad == 0, "%u sectors came back mixed", bad);
    TU_CHECK_MSG(seen_old > 100 && seen_new > 100, "persist 50 gave %u old and %u new sectors",
                 seen_old, seen_new);
}

/* Old 0x11 synced over 4 KiB; the rewrite with 0x22 is cut at byte N. Only
 * the sector holding N may mix, only before N. */
static void test_torn(void)
{
    uint8_t old[4096], nw[4096];
    static const tu_sd_torn modes[3] = {TU_SD_TORN_MIX, TU_SD_TORN_PREFIX, TU_SD_TORN_CUT};
    static const unsigned persist[2] = {0, 100};
    unsigned mi, pi, seed, outside = 0, after = 0, shape = 0, mixed = 0, whole_new = 0;
    tu_case("torn sector: mixes only within the sector being written, before the cut");
    memset(old, 0x11, sizeof old);
    memset(nw, 0x22, sizeof nw);
    for (mi = 0; mi < 3; mi++)
        for (pi = 0; pi < 2; pi++)
            for (seed = 1; seed <= 30; seed++) {
                tu_sd sd;
                tu_sd_cfg c;
                /* at least 100 bytes of the torn sector reached the card */
                uint64_t len, ts = 1 + seed % 6, N = ts * 512 + 100 + (seed * 97u) % 312u, i;
                const uint8_t *f;
                size_t n_new = 0, first_old = SIZE_MAX;
                int prefix_ok = 1;
                cfg_for(&c, persist[pi], modes[mi], TU_SD_LEN_VOLATILE, seed * 101u);
                c.cut_byte = 4096 + N;
                tu_sd_init(&sd, &c);
                put(&sd, APPEND, old, 4096);
                sync_all(&sd);
                TU_CHECK_STATUS(put(&sd, 0, nw, 4096), UPQ_ERR_IO);
                f = tu_sd_file(&sd, &len);
                TU_CHECK_UINT(len, 4096);
                TU_CHECK_UINT(sd.last_cut.kind, TU_SD_CUT_BYTE);
                TU_CHECK_UINT(sd.last_cut.torn_sector, ts);
                TU_CHECK_UINT(sd.last_cut.torn_off, ts * 512);
                TU_CHECK_UINT(sd.last_cut.torn_len, N - ts * 512);
                for (i = 0; i < 4096; i++) {
                    uint8_t want_outside = (i < ts * 512 && persist[pi] == 100) ? 0x22 : 0x11;
                    if (i / 512 != ts) {
                        outside += f[i] != want_outside;
                    } else if (i >= N) {
                        after += f[i] != 0x11;
                    } else {
                        if (f[i] == 0x22) {
                            n_new++;
                            if (first_old != SIZE_MAX)
                                prefix_ok = 0;
                        } else if (f[i] == 0x11) {
                            if (first_old == SIZE_MAX)
                                first_old = (size_t)i;
                        } else {
                            shape++;
                        }
                    }
                }
                TU_CHECK_UINT(sd.last_cut.torn_new, n_new);
                if (modes[mi] == TU_SD_TORN_CUT)
                    shape += n_new != N - ts * 512;
                if (modes[mi] == TU_SD_TORN_PREFIX)
                    shape += !prefix_ok;
                if (modes[mi] == TU_SD_TORN_MIX) {
                    mixed += !prefix_ok;
                    whole_new += n_new == N - ts * 512;
                }
                tu_sd_free(&sd);
            }
    TU_CHECK_MSG(outside == 0, "%u bytes outside the torn sector differ from the policy", outside);
    TU_CHECK_MSG(after == 0, "%u bytes at or after the cut point changed", after);
    TU_CHECK_MSG(shape == 0, "%u torn sectors not shaped as their mode says", shape);
    TU_CHECK_MSG(mixed > 40 && whole_new == 0, "MIX: %u of 60 torn sectors interleaved, %u whole",
                 mixed, whole_new);
}

/* A sector written (unsynced) and then torn by a second write: the bytes
 * the second write did not reach keep the sector's decided content. */
static void test_torn_over_dirty(void)
{
    uint8_t a[512], x[512], y[512];
    unsigned seed, bad = 0, bases = 0;
    tu_case("torn sector already written since the sync: tear over its decided content");
    memset(a, 0x11, sizeof a);
    memset(x, 0x33, sizeof x);
    memset(y, 0x44, sizeof y);
    for (seed = 1; seed <= 40; seed++) {
        tu_sd sd;
        tu_sd_cfg c;
        uint64_t len, i;
        const uint8_t *f;
        uint8_t base;
        cfg_for(&c, 50, TU_SD_TORN_MIX, TU_SD_LEN_DURABLE, seed);
        c.cut_byte = 512 + 512 + 200; /* a and x taken whole, y cut after 200 bytes */
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, a, 512);
        sync_all(&sd);
        put(&sd, 0, x, 512);
        TU_CHECK_STATUS(put(&sd, 100, y, 300), UPQ_ERR_IO);
        f = tu_sd_file(&sd, &len);
        TU_CHECK_UINT(sd.last_cut.dirty, 1);
        TU_CHECK_UINT(sd.last_cut.torn_off, 100);
        TU_CHECK_UINT(sd.last_cut.torn_len, 200);
        base = sd.last_cut.persisted ? 0x33 : 0x11;
        bases |= sd.last_cut.persisted ? 2u : 1u;
        for (i = 0; i < 512; i++) {
            int ok = (i >= 100 && i < 300) ? (f[i] == base || f[i] == 0x44) : f[i] == base;
            bad += !ok;
        }
        tu_sd_free(&sd);
    }
    TU_CHECK_MSG(bad == 0, "%u bytes not from the decided base or the torn write", bad);
    TU_CHECK_MSG(bases == 3, "both bases (lost, persisted) seen: %u", bases);
}

/* ---- byte and call cuts against a reference ------------------------------- */

enum { OP_APPEND, OP_AT, OP_SYNC };
typedef struct op {
    int kind;
    uint64_t off;
    size_t n;
    unsigned tag;
} op;

static const op workload[] = {
    {OP_APPEND, 0, 1, 11},    {OP_APPEND, 0, 700, 12}, {OP_APPEND, 0, 512, 13},
    {OP_SYNC, 0, 0, 0},       {OP_AT, 300, 600, 14},   {OP_AT, 3000, 513, 15},
    {OP_APPEND, 0, 1000, 16}, {OP_SYNC, 0, 0, 0},      {OP_AT, 10, 5, 17},
    {OP_APPEND, 0, 2048, 18},
};
#define NOPS (sizeof workload / sizeof workload[0])
#define REF_CAP 8192

/* What the card must hold after the workload is cut before byte `cut_byte`
 * of the data or before write op number `cut_call` (persist 100, clean
 * tear): every byte before the cut, nothing after. */
static void reference(uint64_t cut_byte, uint64_t cut_call, uint8_t *ref, uint64_t *vlen,
                      uint64_t *dlen)
{
    uint64_t cum = 0, len = 0, calls = 0;
    size_t k, i;
    for (i = 0; i < REF_CAP; i++)
        ref[i] = tu_sd_stale_byte(i);
    *dlen = 0;
    for (k = 0; k < NOPS; k++) {
        const op *o = &workload[k];
        uint64_t off;
        if (o->kind == OP_SYNC) {
            *dlen = len;
            continue;
        }
        if (calls++ == cut_call)
            break;
        off = o->kind == OP_APPEND ? len : o->off;
        for (i = 0; i < o->n && cum < cut_byte; i++, cum++) {
            ref[off + i] = dat(o->tag, i);
            if (off + i + 1 > len)
                len = off + i + 1;
        }
        if (i < o->n)
            break;
    }
    *vlen = len;
}

/* Runs the workload on sd; returns the index of the op that failed (NOPS
 * when none did) and its status in *st. */
static size_t run_workload(tu_sd *sd, upq_status *st)
{
    size_t k;
    for (k = 0; k < NOPS; k++) {
        const op *o = &workload[k];
        uint8_t *d;
        if (o->kind == OP_SYNC) {
            *st = sync_all(sd);
        } else {
            d = gen(o->tag, o->n);
            *st = put(sd, o->kind == OP_APPEND ? APPEND : o->off, d, o->n);
            free(d);
        }
        if (*st != UPQ_OK)
            return k;
    }
    return NOPS;
}

static void test_cut_sweep(void)
{
    uint64_t total = 0, N, calls = 0;
    size_t k;
    unsigned variant;
    uint8_t ref[REF_CAP];
    for (k = 0; k < NOPS; k++)
        if (workload[k].kind != OP_SYNC) {
            total += workload[k].n;
            calls++;
        }
    for (variant = 0; variant < 2; variant++) {
        unsigned long bad = 0, runs = 0;
        tu_case("byte cut at every N leaves exactly the bytes before N (%s)",
                variant ? "short random writes, again" : "whole writes");
        for (N = 0; N <= total; N++) {
            tu_sd sd;
            tu_sd_cfg c;
            uint64_t vlen, dlen, len;
            const uint8_t *f;
            upq_status st = UPQ_OK, after;
            size_t failed, g;
            uint8_t b;
            tu_sd_len_policy lp = N & 1 ? TU_SD_LEN_DURABLE : TU_SD_LEN_VOLATILE;
            cfg_for(&c, 100, TU_SD_TORN_CUT, lp, 1000 + N);
            c.cut_byte = N;
            if (variant) {
                c.max_chunk = 100;
                c.short_random = 1;
                c.write_again.pct = 30;
                c.sync_again.every = 2;
            }
            tu_sd_init(&sd, &c);
            failed = run_workload(&sd, &st);
            reference(N, TU_SD_NEVER, ref, &vlen, &dlen);
            tu_sd_power_cut(&sd);
            f = tu_sd_file(&sd, &len);
            after = tu_sd_read_at(&sd, 0, &b, 1, &g);
            runs++;
            if ((N < total) != (failed < NOPS) || (failed < NOPS && st != UPQ_ERR_IO) ||
                after != UPQ_ERR_IO || len != (lp == TU_SD_LEN_VOLATILE ? vlen : dlen) ||
                memcmp(f, ref, (size_t)len) != 0 ||
                (N < total && sd.last_cut.kind != TU_SD_CUT_BYTE)) {
                if (bad++ < 3)
                    TU_CHECK_MSG(0, "cut at byte %llu: op %zu failed (%d), length %llu "
                                 "(want %llu), content %s",
                                 (unsigned long long)N, failed, (int)st, (unsigned long long)len,
                                 (unsigned long long)(lp == TU_SD_LEN_VOLATILE ? vlen : dlen),
                                 memcmp(f, ref, (size_t)(len < REF_CAP ? len : 0)) ? "differs"
                                                                                  : "same");
            }
            tu_sd_free(&sd);
        }
        TU_CHECK_MSG(bad == 0, "%lu of %lu byte cuts wrong", bad, runs);
    }

    {
        unsigned long bad = 0;
        tu_case("call cut at every write call N: calls before N only (clean tear)");
        for (N = 0; N <= calls; N++) {
            tu_sd sd;
            tu_sd_cfg c;
            uint64_t vlen, dlen, len;
            const uint8_t *f;
            upq_status st = UPQ_OK;
            size_t failed;
            cfg_for(&c, 100, TU_SD_TORN_CUT, TU_SD_LEN_VOLATILE, 5 + N);
            c.cut_call = N;
            tu_sd_init(&sd, &c);
            failed = run_workload(&sd, &st);
            reference(TU_SD_NEVER, N, ref, &vlen, &dlen);
            tu_sd_power_cut(&sd);
            f = tu_sd_file(&sd, &len);
            if ((N < calls) != (failed < NOPS) || len != vlen || memcmp(f, ref, (size_t)len) ||
                (N < calls && (sd.last_cut.kind != TU_SD_CUT_CALL ||
                               sd.last_cut.torn_sector != TU_SD_NEVER))) {
                if (bad++ < 3)
                    TU_CHECK_MSG(0, "cut at call %llu: op %zu failed, length %llu (want %llu)",
                                 (unsigned long long)N, failed, (unsigned long long)len,
                                 (unsigned long long)vlen);
            }
            tu_sd_free(&sd);
        }
        TU_CHECK_MSG(bad == 0, "%lu call cuts wrong", bad);
    }
}

/* A call cut with a tearing mode touches at most the first sector of the
 * cut call, and only bytes it was writing. */
static void test_call_cut_torn(void)
{
    uint8_t *d = gen(21, 700);
    unsigned seed, bad = 0, some = 0;
    tu_case("call cut: nothing or a torn part of the call's first sector");
    for (seed = 1; seed <= 40; seed++) {
        tu_sd sd;
        tu_sd_cfg c;
        uint64_t len, i;
        upq_status st = UPQ_OK;
        unsigned k;
        cfg_for(&c, 100, seed & 1 ? TU_SD_TORN_MIX : TU_SD_TORN_PREFIX, TU_SD_LEN_PERSISTED,
                seed);
        c.cut_call = 4;
        tu_sd_init(&sd, &c);
        for (k = 0; k < 10 && st == UPQ_OK; k++)
            st = put(&sd, APPEND, d, 700);
        TU_CHECK_UINT(k, 5);
        TU_CHECK_STATUS(st, UPQ_ERR_IO);
        /* the later calls fail too */
        TU_CHECK_STATUS(put(&sd, APPEND, d, 700), UPQ_ERR_IO);
        TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_ERR_IO);
        TU_CHECK_STATUS(tu_sd_truncate(&sd, 0), UPQ_ERR_IO);
        tu_sd_file(&sd, &len);
        /* 2800 bytes written, the 5th call starts in sector 5 (2560..3071) */
        for (i = 0; i < 2800; i++)
            bad += tu_sd_medium_byte(&sd, i) != d[i % 700];
        for (i = 2800; i < 3072; i++) {
            uint8_t v = tu_sd_medium_byte(&sd, i);
            bad += v != d[i - 2800] && v != tu_sd_stale_byte(i);
        }
        for (i = 3072; i < 8192; i++)
            bad += tu_sd_medium_byte(&sd, i) != tu_sd_stale_byte(i);
        TU_CHECK(sd.last_cut.torn_len <= 272);
        if (sd.last_cut.torn_len)
            TU_CHECK_UINT(sd.last_cut.torn_sector, 5);
        some += sd.last_cut.torn_new > 0;
        /* PERSISTED: up to the last byte that landed */
        TU_CHECK(len >= 2800 && len <= 2800 + sd.last_cut.torn_len);
        tu_sd_free(&sd);
    }
    TU_CHECK_MSG(bad == 0, "%u bytes wrong around a call cut", bad);
    TU_CHECK_MSG(some > 10, "only %u of 40 call cuts tore their sector", some);
    free(d);
}

/* ---- length -------------------------------------------------------------- */

static void test_length_rules(void)
{
    uint8_t *d = gen(31, 5000);
    static const uint64_t expect_100[3] = {1000, 5000, 5000}; /* durable, persisted, volatile */
    static const uint64_t expect_0[3] = {1000, 1000, 5000};
    unsigned lp, seed, seen_d = 0, seen_v = 0, seen_other = 0;
    tu_case("durable length rules");
    for (lp = 0; lp < 3; lp++) {
        tu_sd sd;
        tu_sd_cfg c;
        cfg_for(&c, 100, TU_SD_TORN_MIX, (tu_sd_len_policy)lp, 9);
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 1000);
        sync_all(&sd);
        TU_CHECK_UINT(tu_sd_durable_len(&sd), 1000);
        put(&sd, APPEND, d + 1000, 4000);
        TU_CHECK_UINT(tu_sd_durable_len(&sd), 1000);
        tu_sd_power_cut(&sd);
        TU_CHECK_UINT(tu_sd_len(&sd), expect_100[lp]);
        TU_CHECK_UINT(sd.last_cut.durable_len, 1000);
        TU_CHECK_UINT(sd.last_cut.volatile_len, 5000);
        tu_sd_free(&sd);

        c.persist_pct = 0;
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 1000);
        sync_all(&sd);
        put(&sd, APPEND, d + 1000, 4000);
        tu_sd_power_cut(&sd);
        TU_CHECK_UINT(tu_sd_len(&sd), expect_0[lp]);
        tu_sd_free(&sd);

        /* truncate: durable only at sync */
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 4000);
        sync_all(&sd);
        TU_CHECK_STATUS(tu_sd_truncate(&sd, 1000), UPQ_OK);
        TU_CHECK_UINT(tu_sd_len(&sd), 1000);
        tu_sd_power_cut(&sd);
        TU_CHECK_UINT(tu_sd_len(&sd), lp == TU_SD_LEN_VOLATILE ? 1000 : 4000);
        TU_CHECK_MEM(tu_sd_file(&sd, &(uint64_t){0}), d, 1000);
        tu_sd_free(&sd);

        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 4000);
        sync_all(&sd);
        tu_sd_truncate(&sd, 1000);
        sync_all(&sd);
        tu_sd_power_cut(&sd);
        TU_CHECK_UINT(tu_sd_len(&sd), 1000);
        tu_sd_free(&sd);
    }

    /* a cut at a sync: that sync makes nothing durable */
    {
        tu_sd sd;
        tu_sd_cfg c;
        cfg_for(&c, 0, TU_SD_TORN_MIX, TU_SD_LEN_DURABLE, 4);
        c.cut_sync = 1;
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 1000);
        TU_CHECK_STATUS(sync_all(&sd), UPQ_OK);
        put(&sd, APPEND, d + 1000, 1000);
        TU_CHECK_STATUS(sync_all(&sd), UPQ_ERR_IO);
        TU_CHECK(tu_sd_is_cut(&sd));
        TU_CHECK_UINT(sd.last_cut.kind, TU_SD_CUT_SYNC);
        TU_CHECK_UINT(tu_sd_len(&sd), 1000);
        TU_CHECK_MEM(tu_sd_file(&sd, &(uint64_t){0}), d, 1000);
        tu_sd_free(&sd);
    }

    /* RANDOM picks among the three */
    for (seed = 1; seed <= 60; seed++) {
        tu_sd sd;
        tu_sd_cfg c;
        uint64_t len;
        cfg_for(&c, 0, TU_SD_TORN_MIX, TU_SD_LEN_RANDOM, seed * 13u);
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 1000);
        sync_all(&sd);
        put(&sd, APPEND, d + 1000, 4000);
        tu_sd_power_cut(&sd);
        len = tu_sd_len(&sd);
        seen_d += len == 1000;
        seen_v += len == 5000;
        seen_other += len != 1000 && len != 5000;
        tu_sd_free(&sd);
    }
    TU_CHECK_MSG(seen_d > 0 && seen_v > 0 && seen_other == 0,
                 "RANDOM lengths: %u durable, %u volatile, %u other", seen_d, seen_v, seen_other);
    free(d);
}

/* ---- I/O behaviour --------------------------------------------------------- */

static void test_short_and_again(void)
{
    uint8_t *d = gen(41, 5000), got[5000];
    tu_sd sd;
    tu_sd_cfg c;
    size_t w = 0, n;
    unsigned i, run, maxrun, agains;
    upq_status st;

    tu_case("short writes: at most max_chunk");
    tu_sd_cfg_default(&c);
    c.max_chunk = 7;
    tu_sd_init(&sd, &c);
    TU_CHECK_STATUS(tu_sd_write(&sd, d, 1000, &w), UPQ_OK);
    TU_CHECK_UINT(w, 7);
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 7, d + 7, 3, &w), UPQ_OK);
    TU_CHECK_UINT(w, 3);
    TU_CHECK_STATUS(put(&sd, APPEND, d + 10, 4990), UPQ_OK);
    TU_CHECK_UINT(sd.st.write_taken, 2 + (4990 + 6) / 7);
    TU_CHECK_UINT(sd.st.short_writes, 1 + 4990 / 7);
    TU_CHECK_STATUS(get(&sd, 0, got, 5000, &n), UPQ_OK);
    TU_CHECK_MEM(got, d, 5000);
    tu_sd_free(&sd);

    tu_case("short writes: random 1..len");
    tu_sd_cfg_default(&c);
    c.short_random = 1;
    c.short_reads = 1;
    tu_sd_init(&sd, &c);
    {
        unsigned shorter = 0, badlen = 0;
        for (i = 0; i < 200; i++) {
            st = tu_sd_write_at(&sd, 0, d, 100, &w);
            badlen += st != UPQ_OK || w < 1 || w > 100;
            shorter += w < 100;
        }
        TU_CHECK_UINT(badlen, 0);
        TU_CHECK(shorter > 150);
        TU_CHECK_STATUS(put(&sd, 0, d, 5000), UPQ_OK);
        badlen = 0;
        for (i = 0; i < 100; i++) {
            size_t g = 0;
            st = tu_sd_read_at(&sd, 0, got, 100, &g);
            badlen += st != UPQ_OK || g < 1 || g > 100;
        }
        TU_CHECK_UINT(badlen, 0);
        TU_CHECK_STATUS(get(&sd, 0, got, 5000, &n), UPQ_OK);
        TU_CHECK_UINT(n, 5000);
        TU_CHECK_MEM(got, d, 5000);
    }
    tu_sd_free(&sd);

    tu_case("again every k-th call: nothing done");
    tu_sd_cfg_default(&c);
    c.write_again.every = 3;
    c.sync_again.every = 2;
    c.read_again.every = 2;
    c.truncate_again.every = 1;
    tu_sd_init(&sd, &c);
    for (i = 1; i <= 9; i++) {
        uint64_t before = tu_sd_len(&sd);
        st = tu_sd_write(&sd, d, 10, &w);
        if (i % 3 == 0) {
            TU_CHECK_STATUS(st, UPQ_AGAIN);
            TU_CHECK_UINT(tu_sd_len(&sd), before);
        } else {
            TU_CHECK_STATUS(st, UPQ_OK);
        }
    }
    TU_CHECK_UINT(sd.st.write_agains, 3);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    put(&sd, APPEND, d, 10);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_AGAIN);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 60);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 70);
    {
        size_t g = 0;
        TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 10, &g), UPQ_OK);
        TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 10, &g), UPQ_AGAIN);
    }
    /* every truncate says again, but at most max_again_run times in a row */
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 5), UPQ_AGAIN);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 5), UPQ_AGAIN);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 5), UPQ_AGAIN);
    TU_CHECK_UINT(tu_sd_len(&sd), 70);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 5), UPQ_OK);
    TU_CHECK_UINT(tu_sd_len(&sd), 5);
    TU_CHECK_UINT(sd.st.truncate_agains, 3);
    tu_sd_free(&sd);

    tu_case("again at random: bounded runs");
    tu_sd_cfg_default(&c);
    c.write_again.pct = 100;
    c.read_again.pct = 60;
    c.sync_again.pct = 100;
    c.max_again_run = 2;
    tu_sd_init(&sd, &c);
    run = maxrun = agains = 0;
    for (i = 0; i < 30; i++) {
        st = tu_sd_write(&sd, d, 10, &w);
        if (st == UPQ_AGAIN) {
            agains++;
            if (++run > maxrun)
                maxrun = run;
        } else {
            TU_CHECK_STATUS(st, UPQ_OK);
            run = 0;
        }
    }
    TU_CHECK_UINT(maxrun, 2);
    TU_CHECK_UINT(agains, 20);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_AGAIN);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_AGAIN);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    run = maxrun = agains = 0;
    for (i = 0; i < 300; i++) {
        size_t g = 0;
        st = tu_sd_read_at(&sd, 0, got, 10, &g);
        if (st == UPQ_AGAIN) {
            agains++;
            if (++run > maxrun)
                maxrun = run;
        } else {
            run = 0;
        }
    }
    TU_CHECK(maxrun <= 2 && agains > 60 && agains < 240);
    TU_CHECK_UINT(sd.st.read_agains, agains);
    tu_sd_free(&sd);
    free(d);
}

static void test_transient_errors(void)
{
    uint8_t *d = gen(51, 100), got[100];
    tu_sd sd;
    tu_sd_cfg c;
    size_t w = 0, g = 0;
    tu_case("one-off errors: nothing done, no cut");
    tu_sd_cfg_default(&c);
    c.fail_write_call = 2;
    c.fail_sync_call = 0;
    c.fail_read_call = 1;
    c.fail_truncate_call = 0;
    tu_sd_init(&sd, &c);
    TU_CHECK_STATUS(tu_sd_write(&sd, d, 10, &w), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 10, d + 10, 10, &w), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 20, d + 20, 10, &w), UPQ_ERR_IO);
    TU_CHECK_UINT(tu_sd_len(&sd), 20);
    TU_CHECK(!tu_sd_is_cut(&sd));
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 20, d + 20, 10, &w), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_write(&sd, d + 30, 70, &w), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_ERR_IO);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 0);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 100);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 100, &g), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 100, &g), UPQ_ERR_IO);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 100, &g), UPQ_OK);
    TU_CHECK_MEM(got, d, 100);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 50), UPQ_ERR_IO);
    TU_CHECK_UINT(tu_sd_len(&sd), 100);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 50), UPQ_OK);
    TU_CHECK_UINT(tu_sd_len(&sd), 50);
    TU_CHECK_UINT(sd.st.write_errors, 1);
    TU_CHECK_UINT(sd.st.sync_errors, 1);
    TU_CHECK_UINT(sd.st.read_errors, 1);
    TU_CHECK_UINT(sd.st.truncate_errors, 1);
    TU_CHECK(!tu_sd_is_cut(&sd));
    tu_sd_free(&sd);
    free(d);
}

/* ---- the medium ------------------------------------------------------------ */

static void test_stale_gap(void)
{
    uint8_t *stale = gen(61, 6000), *init = gen(62, 100), got[20000];
    tu_sd sd;
    tu_sd_cfg c;
    size_t n = 0;
    tu_case("writes beyond the end show the stale medium in the gap");
    tu_sd_init(&sd, NULL);
    TU_CHECK_STATUS(put(&sd, 10000, "abc", 3), UPQ_OK);
    TU_CHECK_UINT(tu_sd_len(&sd), 10003);
    TU_CHECK_STATUS(get(&sd, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 10003);
    TU_CHECK(is_stale(got, 0, 10000));
    TU_CHECK(got[0] == 0xDE && got[1] == 0xAD && got[2] == 0xBE && got[3] == 0xEF);
    TU_CHECK_MEM(got + 10000, "abc", 3);
    /* far beyond the first allocation */
    TU_CHECK_STATUS(put(&sd, 3000001, "z", 1), UPQ_OK);
    TU_CHECK_UINT(tu_sd_medium_byte(&sd, 2999999), tu_sd_stale_byte(2999999));
    TU_CHECK_UINT(tu_sd_medium_byte(&sd, 3000001), 'z');
    tu_sd_free(&sd);

    tu_case("stale buffer and initial file");
    tu_sd_cfg_default(&c);
    c.stale = stale;
    c.stale_len = 6000;
    c.initial = init;
    c.initial_len = 100;
    tu_sd_init(&sd, &c);
    TU_CHECK_UINT(tu_sd_len(&sd), 100);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 100);
    TU_CHECK_STATUS(put(&sd, 8000, "x", 1), UPQ_OK);
    TU_CHECK_STATUS(get(&sd, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 8001);
    TU_CHECK_MEM(got, init, 100);
    TU_CHECK_MEM(got + 100, stale + 100, 5900);
    TU_CHECK(is_stale(got + 6000, 6000, 2000));
    /* truncating does not wipe: growing again shows the old bytes */
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 50), UPQ_OK);
    TU_CHECK_STATUS(put(&sd, 200, "y", 1), UPQ_OK);
    TU_CHECK_STATUS(get(&sd, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 201);
    TU_CHECK_MEM(got, init, 100);
    TU_CHECK_MEM(got + 100, stale + 100, 100);
    tu_sd_free(&sd);

    tu_case("a cut keeping the volatile length shows the stale gap");
    tu_sd_cfg_default(&c);
    c.persist_pct = 0;
    c.len_policy = TU_SD_LEN_VOLATILE;
    c.stale = stale;
    c.stale_len = 6000;
    tu_sd_init(&sd, &c);
    put(&sd, APPEND, init, 100);
    sync_all(&sd);
    put(&sd, 4000, init, 100);
    tu_sd_power_cut(&sd);
    TU_CHECK_UINT(tu_sd_len(&sd), 4100);
    TU_CHECK_MEM(tu_sd_file(&sd, &(uint64_t){0}), init, 100);
    TU_CHECK_MEM(tu_sd_file(&sd, &(uint64_t){0}) + 100, stale + 100, 4000);
    tu_sd_free(&sd);
    free(stale);
    free(init);
}

/* ---- after the cut ------------------------------------------------------------ */

static void test_post_and_remount(void)
{
    uint8_t *a = gen(71, 5000), *b = gen(72, 3000), *e = gen(73, 2000), *p, small[10];
    uint8_t got[12000], leftover[1000];
    tu_sd sd, sd2;
    tu_sd_cfg c;
    size_t plen = 0, n = 0, g = 0;
    uint64_t len;
    tu_case("post-cut file: read_at, copies");
    tu_sd_cfg_default(&c);
    c.cut_byte = 5000 + 1234;
    tu_sd_init(&sd, &c);
    put(&sd, APPEND, a, 5000);
    sync_all(&sd);
    TU_CHECK_STATUS(put(&sd, APPEND, b, 3000), UPQ_ERR_IO);
    TU_CHECK(tu_sd_is_cut(&sd));
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 10, &g), UPQ_ERR_IO);
    p = tu_sd_post_dup(&sd, &plen);
    TU_CHECK_UINT(plen, 5000);
    TU_CHECK_MEM(p, a, 5000);
    TU_CHECK_UINT(tu_sd_post_copy(&sd, small, sizeof small), 5000);
    TU_CHECK_MEM(small, a, sizeof small);
    TU_CHECK_STATUS(tu_sd_post_read_at(&sd, 4990, got, 100, &g), UPQ_OK);
    TU_CHECK_UINT(g, 10);
    TU_CHECK_MEM(got, a + 4990, 10);
    TU_CHECK_STATUS(tu_sd_post_read_at(&sd, 5000, got, 100, &g), UPQ_OK);
    TU_CHECK_UINT(g, 0);

    tu_case("remount: resume on what survived, cut again");
    tu_sd_remount(&sd, NULL);
    TU_CHECK(!tu_sd_is_cut(&sd));
    TU_CHECK_UINT(tu_sd_len(&sd), 5000);
    TU_CHECK_UINT(tu_sd_durable_len(&sd), 5000);
    TU_CHECK_UINT(sd.st.write_calls, 0);
    TU_CHECK_UINT(sd.st.max_len, 5000);
    TU_CHECK(sd.cfg.cut_byte == TU_SD_NEVER);
    TU_CHECK_STATUS(get(&sd, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 5000);
    TU_CHECK_MEM(got, p, 5000);
    /* "recover": cut back to 4000, resume, sync */
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 4000), UPQ_OK);
    TU_CHECK_STATUS(put(&sd, APPEND, e, 2000), UPQ_OK);
    TU_CHECK_STATUS(sync_all(&sd), UPQ_OK);
    /* the medium past the file now: the first cut's leftovers and the pattern */
    for (n = 0; n < sizeof leftover; n++)
        leftover[n] = tu_sd_medium_byte(&sd, 6000 + n);
    TU_CHECK_STATUS(put(&sd, APPEND, b, 3000), UPQ_OK); /* unsynced */
    sd.cfg.persist_pct = 0;
    tu_sd_power_cut(&sd);
    TU_CHECK_UINT(tu_sd_len(&sd), 6000);
    TU_CHECK_MEM(tu_sd_file(&sd, &len), a, 4000);
    TU_CHECK_MEM(tu_sd_file(&sd, &len) + 4000, e, 2000);

    /* a fresh card started from the surviving file */
    tu_sd_cfg_default(&c);
    c.initial = tu_sd_file(&sd, &len);
    c.initial_len = (size_t)len;
    tu_sd_init(&sd2, &c);
    TU_CHECK_STATUS(get(&sd2, 0, got, sizeof got, &n), UPQ_OK);
    TU_CHECK_UINT(n, 6000);
    TU_CHECK_MEM(got, a, 4000);
    tu_sd_free(&sd2);

    tu_case("remount with a new configuration; the medium beyond the file stays");
    tu_sd_cfg_default(&c);
    c.cut_call = 1;
    c.persist_pct = 100;
    c.torn = TU_SD_TORN_CUT;
    tu_sd_remount(&sd, &c);
    TU_CHECK_UINT(tu_sd_len(&sd), 6000);
    /* the lost tail's sectors got their synced bytes back: the gap shows them */
    TU_CHECK_STATUS(put(&sd, 7000, "q", 1), UPQ_OK);
    TU_CHECK_STATUS(get(&sd, 6000, got, 1000, &n), UPQ_OK);
    TU_CHECK_UINT(n, 1000);
    TU_CHECK_MEM(got, leftover, 1000);
    TU_CHECK_STATUS(put(&sd, APPEND, "r", 1), UPQ_ERR_IO); /* cut_call = 1 */
    TU_CHECK_UINT(tu_sd_len(&sd), 6000);                  /* durable length */
    tu_sd_remount(&sd, NULL);
    TU_CHECK_UINT(tu_sd_len(&sd), 6000);
    TU_CHECK_UINT(tu_sd_medium_byte(&sd, 7000), 'q'); /* persisted past the length */
    tu_sd_free(&sd);

    tu_case("remount without a cut cuts first");
    tu_sd_cfg_default(&c);
    c.persist_pct = 0;
    tu_sd_init(&sd, &c);
    put(&sd, APPEND, a, 1000);
    tu_sd_remount(&sd, NULL);
    TU_CHECK_UINT(sd.last_cut.kind, TU_SD_CUT_MANUAL);
    TU_CHECK_UINT(tu_sd_len(&sd), 0);
    tu_sd_free(&sd);
    free(p);
    free(a);
    free(b);
    free(e);
}

/* ---- counters and determinism ------------------------------------------------- */

static void test_counters(void)
{
    uint8_t *d = gen(81, 2000), got[2000];
    tu_sd sd;
    tu_sd_cfg c;
    size_t w = 0, g = 0;
    tu_case("counters");
    tu_sd_cfg_default(&c);
    c.write_again.every = 4;
    tu_sd_init(&sd, &c);
    TU_CHECK_STATUS(tu_sd_write(&sd, d, 100, &w), UPQ_OK);            /* sector 0 */
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 1000, d, 10, &w), UPQ_OK);    /* sector 1 */
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 0, d, 50, &w), UPQ_OK);       /* sector 0 again */
    TU_CHECK_STATUS(tu_sd_write(&sd, d, 10, &w), UPQ_AGAIN);          /* 4th call */
    TU_CHECK_STATUS(tu_sd_write_at(&sd, 1500, d, 600, &w), UPQ_OK);   /* sectors 2..4 */
    TU_CHECK_STATUS(tu_sd_write(&sd, d, 0, &w), UPQ_OK);              /* empty */
    TU_CHECK_UINT(w, 0);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 0, got, 1000, &g), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 2000, got, 1000, &g), UPQ_OK);
    TU_CHECK_UINT(g, 100);
    TU_CHECK_STATUS(tu_sd_read_at(&sd, 2100, got, 1000, &g), UPQ_OK);
    TU_CHECK_UINT(g, 0);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_sync(&sd), UPQ_OK);
    TU_CHECK_STATUS(tu_sd_truncate(&sd, 10), UPQ_OK);
    TU_CHECK_UINT(sd.st.write_calls, 6);
    TU_CHECK_UINT(sd.st.write_taken, 4);
    TU_CHECK_UINT(sd.st.write_agains, 1);
    TU_CHECK_UINT(sd.st.bytes_written, 760);
    TU_CHECK_UINT(sd.st.read_calls, 3);
    TU_CHECK_UINT(sd.st.bytes_read, 1100);
    TU_CHECK_UINT(sd.st.sync_calls, 2);
    TU_CHECK_UINT(sd.st.syncs_done, 2);
    TU_CHECK_UINT(sd.st.truncate_calls, 1);
    TU_CHECK_UINT(sd.st.max_len, 2100);
    TU_CHECK_UINT(tu_sd_len(&sd), 10);
    TU_CHECK_UINT(sd.st.sectors_written, 5);
    TU_CHECK_UINT(sd.ndirty, 0);
    tu_sd_free(&sd);
    free(d);
}

static void test_determinism(void)
{
    uint8_t *d = gen(91, 20000);
    uint8_t *p1 = NULL, *p2 = NULL, *p3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0;
    tu_sd sd;
    tu_sd_cfg c;
    int k;
    tu_case("same seeds, same cut; another cut seed, another cut");
    for (k = 0; k < 3; k++) {
        cfg_for(&c, 50, TU_SD_TORN_MIX, TU_SD_LEN_PERSISTED, 77);
        c.cut_byte = 20000 + 15000 + 77;
        c.short_random = 1;
        c.write_again.pct = 20;
        if (k == 2)
            c.cut_seed = 12345;
        tu_sd_init(&sd, &c);
        put(&sd, APPEND, d, 20000);
        sync_all(&sd);
        put(&sd, 0, d + 1, 19999);
        put(&sd, APPEND, d, 20000);
        if (k == 0)
            p1 = tu_sd_post_dup(&sd, &n1);
        else if (k == 1)
            p2 = tu_sd_post_dup(&sd, &n2);
        else
            p3 = tu_sd_post_dup(&sd, &n3);
        tu_sd_free(&sd);
    }
    TU_CHECK_UINT(n1, n2);
    TU_CHECK_MEM(p1, p2, n1 < n2 ? n1 : n2);
    TU_CHECK(n1 != n3 || memcmp(p1, p3, n1) != 0);
    free(p1);
    free(p2);
    free(p3);
    free(d);
}

/* ---- scale ------------------------------------------------------------------- */

/* A 36 MB log in 4 KiB appends, synced every 64 KiB, cut near the end: sync
 * costs the sectors written since the last one, not the file. Under
 * emulation (UPQ_TEST_REPEAT) the log is shorter. */
static void test_big_log(void)
{
    enum { CHUNK = 4096, SYNC_EVERY = 16 };
    const size_t total = ((size_t)36 << 20) / tu_repeat();
    uint8_t chunk[CHUNK];
    tu_sd sd;
    tu_sd_cfg c;
    size_t off = 0, i, nchunks = 0, max_dirty = 0;
    uint64_t len, synced = 0;
    const uint8_t *f;
    clock_t t0 = clock();
    int bad = 0;
    tu_case("%zu MB log with a sync every 64 KiB, cut near the end", total >> 20);
    tu_sd_cfg_default(&c);
    c.cut_byte = total - 100000;
    tu_sd_init(&sd, &c);
    for (;;) {
        for (i = 0; i < CHUNK; i++)
            chunk[i] = (uint8_t)((off + i) * 7u + ((off + i) >> 12));
        if (put(&sd, APPEND, chunk, CHUNK) != UPQ_OK)
            break;
        off += CHUNK;
        if (sd.ndirty > max_dirty)
            max_dirty = sd.ndirty;
        if (++nchunks % SYNC_EVERY == 0) {
            sync_all(&sd);
            synced = off;
        }
    }
    f = tu_sd_file(&sd, &len);
    TU_CHECK(tu_sd_is_cut(&sd));
    TU_CHECK_UINT(len, synced);
    for (i = 0; i < len; i++)
        if (f[i] != (uint8_t)(i * 7u + (i >> 12))) {
            bad = 1;
            break;
        }
    TU_CHECK_MSG(!bad, "synced log differs at byte %zu", i);
    TU_CHECK_UINT(max_dirty, CHUNK * SYNC_EVERY / 512);
    TU_CHECK(sd.last_cut.dirty <= CHUNK * SYNC_EVERY / 512);
    TU_CHECK(sd.st.max_len >= total - 100000 - CHUNK);
    tu_note("%zu MB log: %.2f s", total >> 20, (double)(clock() - t0) / CLOCKS_PER_SEC);
    tu_sd_free(&sd);
}

int main(void)
{
    tu_note("seed %llu", (unsigned long long)tu_seed());
    test_defaults_and_sink();
    test_volatile_view();
    test_synced_survives();
    test_persist_0_and_100();
    test_persist_per_sector();
    test_torn();
    test_torn_over_dirty();
    test_cut_sweep();
    test_call_cut_torn();
    test_length_rules();
    test_short_and_again();
    test_transient_errors();
    test_stale_gap();
    test_post_and_remount();
    test_counters();
    test_determinism();
    test_big_log();
    return tu_summary();
}
