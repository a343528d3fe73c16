/* A storage device that loses power (see sdcard.h). */
#include "util/sdcard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/flaky_io.h"

#define SEC ((uint64_t)TU_SD_SECTOR)
/* Largest file offset served: keeps offset + length arithmetic far from
 * overflow on any host (a write there fails with UPQ_ERR_IO). */
#define MAX_END ((uint64_t)(SIZE_MAX / 4u))
#define FIRST_CAP ((size_t)64 * 1024)

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "sdcard: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return q;
}

uint8_t tu_sd_stale_byte(uint64_t off)
{
    static const uint8_t pat[4] = {0xDE, 0xAD, 0xBE, 0xEF};
    return pat[off & 3u];
}

uint8_t tu_sd_medium_byte(const tu_sd *sd, uint64_t off)
{
    return off < sd->cap ? sd->img[off] : tu_sd_stale_byte(off);
}

/* The pattern has period 4 and `off` is a multiple of the sector: fill four
 * bytes, then double the filled part. */
static void fill_pattern(uint8_t *p, uint64_t off, size_t n)
{
    size_t done = 0, c;
    while (done < n && done < 4) {
        p[done] = tu_sd_stale_byte(off + done);
        done++;
    }
    while (done < n) {
        c = done < n - done ? done : n - done;
        memcpy(p + done, p, c);
        done += c;
    }
}

static size_t bitmap_bytes(size_t cap)
{
    return (size_t)((cap / SEC + 7u) / 8u);
}

static int bit_get(const uint8_t *bits, uint64_t s)
{
    return (bits[s >> 3] >> (s & 7u)) & 1;
}

static void bit_set(uint8_t *bits, uint64_t s)
{
    bits[s >> 3] = (uint8_t)(bits[s >> 3] | (1u << (s & 7u)));
}

static void bit_clear(uint8_t *bits, uint64_t s)
{
    bits[s >> 3] = (uint8_t)(bits[s >> 3] & ~(1u << (s & 7u)));
}

/* Makes the medium cover [0, end): new sectors hold the pattern. Returns 0
 * when `end` is beyond what the model serves. */
static int ensure(tu_sd *sd, uint64_t end)
{
    size_t need, ncap, oldb, newb;
    if (end > MAX_END)
        return 0;
    need = (size_t)((end + SEC - 1u) / SEC * SEC);
    if (need <= sd->cap)
        return 1;
    ncap = sd->cap ? sd->cap : FIRST_CAP;
    while (ncap < need)
        ncap *= 2u;
    sd->img = (uint8_t *)xrealloc(sd->img, ncap);
    fill_pattern(sd->img + sd->cap, sd->cap, ncap - sd->cap);
    oldb = bitmap_bytes(sd->cap);
    newb = bitmap_bytes(ncap);
    sd->dirty_bits = (uint8_t *)xrealloc(sd->dirty_bits, newb);
    sd->ever_bits = (uint8_t *)xrealloc(sd->ever_bits, newb);
    memset(sd->dirty_bits + oldb, 0, newb - oldb);
    memset(sd->ever_bits + oldb, 0, newb - oldb);
    sd->cap = ncap;
    return 1;
}

static void note_len(tu_sd *sd)
{
    if (sd->len > sd->st.max_len)
        sd->st.max_len = sd->len;
}

/* Sector s takes data: the first time since the last sync, its current
 * (last synced) content is saved so a cut can give it back. */
static void touch(tu_sd *sd, uint64_t s)
{
    if (!bit_get(sd->dirty_bits, s)) {
        if (sd->ndirty == sd->dirty_cap) {
            sd->dirty_cap = sd->dirty_cap ? sd->dirty_cap * 2u : 256u;
            sd->dirty = (uint64_t *)xrealloc(sd->dirty, sd->dirty_cap * sizeof *sd->dirty);
            sd->shadow = (uint8_t *)xrealloc(sd->shadow, sd->dirty_cap * (size_t)SEC);
        }
        sd->dirty[sd->ndirty] = s;
        memcpy(sd->shadow + sd->ndirty * (size_t)SEC, sd->img + s * SEC, (size_t)SEC);
        sd->ndirty++;
        bit_set(sd->dirty_bits, s);
    }
    if (!bit_get(sd->ever_bits, s)) {
        bit_set(sd->ever_bits, s);
        sd->st.sectors_written++;
    }
}

/* A write that completed: the medium covers it already (ensure). */
static void apply(tu_sd *sd, uint64_t off, const uint8_t *src, size_t n)
{
    uint64_t s;
    if (n == 0)
        return;
    for (s = off / SEC; s <= (off + n - 1u) / SEC; s++)
        touch(sd, s);
    memcpy(sd->img + off, src, n);
    if (off + n > sd->len)
        sd->len = off + n;
    note_len(sd);
}

/* The power fails. Each sector written since the last sync persists or
 * gets its shadow back; then the rn bytes at roff that reached the card
 * (all within one sector, not yet applied) land per the torn mode; then the
 * file length is chosen. The medium becomes the surviving state. */
static void cut_now(tu_sd *sd, tu_sd_cut_kind kind, uint64_t roff, const uint8_t *reached,
                    size_t rn)
{
    tu_sd_cut_report *r = &sd->last_cut;
    uint64_t vlen = sd->len, hi = 0, post = sd->dur_len;
    size_t i;
    tu_sd_len_policy pol = sd->cfg.len_policy;

    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->dirty = sd->ndirty;
    r->torn_sector = TU_SD_NEVER;
    r->durable_len = sd->dur_len;
    if (rn && roff + rn > vlen)
        vlen = roff + rn;
    r->volatile_len = vlen;

    for (i = 0; i < sd->ndirty; i++) {
        uint64_t s = sd->dirty[i];
        if (tu_rand_below(&sd->cut_rng, 100) < sd->cfg.persist_pct) {
            /* a sector past the volatile end (truncated away) holds no file data */
            uint64_t end = (s + 1u) * SEC;
            if (end > vlen)
                end = s * SEC < vlen ? vlen : 0;
            if (end > hi)
                hi = end;
            r->persisted++;
        } else {
            memcpy(sd->img + s * SEC, sd->shadow + i * (size_t)SEC, (size_t)SEC);
            r->lost++;
        }
        bit_clear(sd->dirty_bits, s);
    }
    sd->ndirty = 0;

    if (rn) {
        size_t j, prefix = rn;
        uint64_t s = roff / SEC;
        r->torn_sector = s;
        r->torn_off = roff;
        r->torn_len = rn;
        if (sd->cfg.torn == TU_SD_TORN_PREFIX)
            prefix = (size_t)tu_rand_below(&sd->cut_rng, (uint64_t)rn + 1u);
        for (j = 0; j < rn; j++) {
            int lands = sd->cfg.torn == TU_SD_TORN_MIX ? (int)((tu_rand(&sd->cut_rng) >> 32) & 1u)
                                                       : j < prefix;
            if (lands) {
                sd->img[roff + j] = reached[j];
                r->torn_new++;
                if (roff + j + 1u > hi)
                    hi = roff + j + 1u;
            }
        }
        if (!bit_get(sd->ever_bits, s)) {
            bit_set(sd->ever_bits, s);
            sd->st.sectors_written++;
        }
    }

    if (pol == TU_SD_LEN_RANDOM) {
        static const tu_sd_len_policy pick[3] = {TU_SD_LEN_DURABLE, TU_SD_LEN_PERSISTED,
                                                 TU_SD_LEN_VOLATILE};
        pol = pick[tu_rand_below(&sd->cut_rng, 3)];
    }
    switch (pol) {
    case TU_SD_LEN_PERSISTED:
        post = hi > sd->dur_len ? hi : sd->dur_len;
        break;
    case TU_SD_LEN_VOLATILE:
        post = vlen;
        break;
    default:
        post = sd->dur_len;
        break;
    }
    if (post > sd->st.max_len)
        sd->st.max_len = post;
    r->post_len = post;
    sd->len = post;
    sd->cut = 1;
}

void tu_sd_power_cut(tu_sd *sd)
{
    if (!sd->cut)
        cut_now(sd, TU_SD_CUT_MANUAL, 0, NULL, 0);
}

int tu_sd_is_cut(const tu_sd *sd)
{
    return sd->cut;
}

/* Whether this call (the count-th of its kind, 1-based) says "again". */
static int say_again(tu_sd *sd, const tu_sd_again *a, unsigned *run, unsigned long count)
{
    int again = 0;
    if (*run < sd->cfg.max_again_run) {
        if (a->every && count % a->every == 0)
            again = 1;
        else if (a->pct && tu_rand_below(&sd->rng, 100) < a->pct)
            again = 1;
    }
    if (again)
        (*run)++;
    else
        *run = 0;
    return again;
}

static size_t clip(tu_sd *sd, size_t len)
{
    size_t n = len;
    if (sd->cfg.max_chunk && n > sd->cfg.max_chunk)
        n = sd->cfg.max_chunk;
    if (sd->cfg.short_random && n > 1)
        n = 1u + (size_t)tu_rand_below(&sd->rng, (uint64_t)n);
    return n;
}

static upq_status do_write(tu_sd *sd, int append, uint64_t off, const void *buf, size_t len,
                           size_t *written)
{
    const uint8_t *src = (const uint8_t *)buf;
    uint64_t idx = sd->st.write_calls++;
    size_t n;
    if (sd->cut || idx == sd->cfg.fail_write_call) {
        sd->st.write_errors++;
        return UPQ_ERR_IO;
    }
    if (say_again(sd, &sd->cfg.write_again, &sd->run_write, sd->st.write_calls)) {
        sd->st.write_agains++;
        return UPQ_AGAIN;
    }
    if (append)
        off = sd->len;
    if (len == 0) {
        *written = 0;
        return UPQ_OK;
    }
    n = clip(sd, len);
    if (off > MAX_END || n > MAX_END - off || !ensure(sd, off + n)) {
        sd->st.write_errors++;
        return UPQ_ERR_IO;
    }
    if (sd->st.write_taken == sd->cfg.cut_call) {
        /* the card got some bytes of the first sector, or none */
        size_t first = (size_t)(SEC - off % SEC), k = 0;
        if (first > n)
            first = n;
        if (sd->cfg.torn != TU_SD_TORN_CUT)
            k = (size_t)tu_rand_below(&sd->cut_rng, (uint64_t)first + 1u);
        cut_now(sd, TU_SD_CUT_CALL, off, src, k);
        sd->st.write_errors++;
        return UPQ_ERR_IO;
    }
    if (sd->cfg.cut_byte != TU_SD_NEVER && sd->st.bytes_written + n > sd->cfg.cut_byte) {
        /* whole sectors before the cut point were written; the one holding
         * it was being programmed with the bytes before the cut point */
        size_t k = (size_t)(sd->cfg.cut_byte - sd->st.bytes_written);
        uint64_t start = (off + k) / SEC * SEC;
        size_t full = start > off ? (size_t)(start - off) : 0;
        apply(sd, off, src, full);
        cut_now(sd, TU_SD_CUT_BYTE, off + full, src + full, k - full);
        sd->st.write_errors++;
        return UPQ_ERR_IO;
    }
    apply(sd, off, src, n);
    sd->st.write_taken++;
    sd->st.bytes_written += n;
    if (n < len)
        sd->st.short_writes++;
    *written = n;
    return UPQ_OK;
}

upq_status tu_sd_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    return do_write((tu_sd *)ctx, 1, 0, buf, len, written);
}

upq_status tu_sd_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    return do_write((tu_sd *)ctx, 0, off, buf, len, written);
}

upq_status tu_sd_sync(void *ctx)
{
    tu_sd *sd = (tu_sd *)ctx;
    uint64_t idx = sd->st.sync_calls++;
    size_t i;
    if (sd->cut || idx == sd->cfg.fail_sync_call) {
        sd->st.sync_errors++;
        return UPQ_ERR_IO;
    }
    if (say_again(sd, &sd->cfg.sync_again, &sd->run_sync, sd->st.sync_calls)) {
        sd->st.sync_agains++;
        return UPQ_AGAIN;
    }
    if (sd->st.syncs_done == sd->cfg.cut_sync) {
        cut_now(sd, TU_SD_CUT_SYNC, 0, NULL, 0);
        sd->st.sync_errors++;
        return UPQ_ERR_IO;
    }
    /* durable now: forget the shadows, write the directory entry */
    for (i = 0; i < sd->ndirty; i++)
        bit_clear(sd->dirty_bits, sd->dirty[i]);
    sd->ndirty = 0;
    sd->dur_len = sd->len;
    sd->st.syncs_done++;
    return UPQ_OK;
}

upq_status tu_sd_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    tu_sd *sd = (tu_sd *)ctx;
    uint64_t idx = sd->st.read_calls++;
    size_t n;
    if (sd->cut || idx == sd->cfg.fail_read_call) {
        sd->st.read_errors++;
        return UPQ_ERR_IO;
    }
    if (say_again(sd, &sd->cfg.read_again, &sd->run_read, sd->st.read_calls)) {
        sd->st.read_agains++;
        return UPQ_AGAIN;
    }
    if (off >= sd->len || len == 0) {
        *got = 0;
        return UPQ_OK;
    }
    n = len;
    if (n > sd->len - off)
        n = (size_t)(sd->len - off);
    if (sd->cfg.short_reads)
        n = clip(sd, n);
    memcpy(buf, sd->img + off, n);
    sd->st.bytes_read += n;
    *got = n;
    return UPQ_OK;
}

upq_status tu_sd_truncate(void *ctx, uint64_t size)
{
    tu_sd *sd = (tu_sd *)ctx;
    uint64_t idx = sd->st.truncate_calls++;
    if (sd->cut || idx == sd->cfg.fail_truncate_call) {
        sd->st.truncate_errors++;
        return UPQ_ERR_IO;
    }
    if (say_again(sd, &sd->cfg.truncate_again, &sd->run_truncate, sd->st.truncate_calls)) {
        sd->st.truncate_agains++;
        return UPQ_AGAIN;
    }
    if (!ensure(sd, size)) {
        sd->st.truncate_errors++;
        return UPQ_ERR_IO;
    }
    /* the bytes past the new end stay on the medium: growing the file
     * again shows them */
    sd->len = size;
    note_len(sd);
    return UPQ_OK;
}

upq_status tu_sd_post_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    const tu_sd *sd = (const tu_sd *)ctx;
    size_t n;
    if (!sd->cut)
        return UPQ_ERR_IO;
    if (off >= sd->len) {
        *got = 0;
        return UPQ_OK;
    }
    n = len;
    if (n > sd->len - off)
        n = (size_t)(sd->len - off);
    memcpy(buf, sd->img + off, n);
    *got = n;
    return UPQ_OK;
}

uint8_t *tu_sd_post_dup(const tu_sd *sd, size_t *len)
{
    size_t n = sd->cut ? (size_t)sd->len : 0;
    uint8_t *p = (uint8_t *)xrealloc(NULL, n);
    memcpy(p, sd->img, n);
    *len = n;
    return p;
}

size_t tu_sd_post_copy(const tu_sd *sd, void *buf, size_t cap)
{
    size_t n;
    if (!sd->cut)
        return 0;
    n = (size_t)sd->len;
    memcpy(buf, sd->img, n < cap ? n : cap);
    return n;
}

const uint8_t *tu_sd_file(const tu_sd *sd, uint64_t *len)
{
    *len = sd->len;
    return sd->img;
}

uint64_t tu_sd_len(const tu_sd *sd)
{
    return sd->len;
}

uint64_t tu_sd_durable_len(const tu_sd *sd)
{
    return sd->dur_len;
}

void tu_sd_sink(tu_sd *sd, upq_sink *sink)
{
    memset(sink, 0, sizeof *sink);
    sink->ctx = sd;
    sink->write = tu_sd_write;
    sink->sync = tu_sd_sync;
    sink->read_at = tu_sd_read_at;
    sink->write_at = tu_sd_write_at;
    sink->truncate = tu_sd_truncate;
}

void tu_sd_cfg_default(tu_sd_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->persist_pct = 50;
    cfg->torn = TU_SD_TORN_MIX;
    cfg->len_policy = TU_SD_LEN_DURABLE;
    cfg->cut_call = cfg->cut_byte = cfg->cut_sync = TU_SD_NEVER;
    cfg->fail_write_call = cfg->fail_sync_call = TU_SD_NEVER;
    cfg->fail_read_call = cfg->fail_truncate_call = TU_SD_NEVER;
    cfg->max_again_run = 3;
    cfg->seed = tu_seed();
    cfg->cut_seed = 0;
}

/* Takes cfg's behaviour (not its medium) and seeds. */
static void set_cfg(tu_sd *sd, const tu_sd_cfg *cfg)
{
    sd->cfg = *cfg;
    sd->cfg.initial = sd->cfg.stale = NULL;
    sd->cfg.initial_len = sd->cfg.stale_len = 0;
    sd->rng = cfg->seed ? cfg->seed : 1u;
    sd->cut_rng = cfg->cut_seed ? cfg->cut_seed : (cfg->seed ^ 0xc0ffee5dcafeULL) | 1u;
}

void tu_sd_init(tu_sd *sd, const tu_sd_cfg *cfg)
{
    tu_sd_cfg def;
    if (!cfg) {
        tu_sd_cfg_default(&def);
        cfg = &def;
    }
    memset(sd, 0, sizeof *sd);
    set_cfg(sd, cfg);
    sd->last_cut.torn_sector = TU_SD_NEVER;
    ensure(sd, 1);
    if (cfg->stale_len) {
        if (!ensure(sd, cfg->stale_len)) {
            fprintf(stderr, "sdcard: stale content too large\n");
            exit(2);
        }
        memcpy(sd->img, cfg->stale, cfg->stale_len);
    }
    if (cfg->initial_len) {
        if (!ensure(sd, cfg->initial_len)) {
            fprintf(stderr, "sdcard: initial content too large\n");
            exit(2);
        }
        memcpy(sd->img, cfg->initial, cfg->initial_len);
    }
    sd->len = sd->dur_len = cfg->initial_len;
    sd->st.max_len = sd->len;
}

void tu_sd_remount(tu_sd *sd, const tu_sd_cfg *cfg)
{
    tu_sd_power_cut(sd);
    if (cfg) {
        set_cfg(sd, cfg);
    } else {
        sd->cfg.cut_call = sd->cfg.cut_byte = sd->cfg.cut_sync = TU_SD_NEVER;
        sd->cfg.fail_write_call = sd->cfg.fail_sync_call = TU_SD_NEVER;
        sd->cfg.fail_read_call = sd->cfg.fail_truncate_call = TU_SD_NEVER;
    }
    sd->dur_len = sd->len;
    sd->cut = 0;
    memset(&sd->st, 0, sizeof sd->st);
    memset(sd->ever_bits, 0, bitmap_bytes(sd->cap));
    sd->st.max_len = sd->len;
    sd->run_write = sd->run_sync = sd->run_read = sd->run_truncate = 0;
}

void tu_sd_free(tu_sd *sd)
{
    free(sd->img);
    free(sd->dirty_bits);
    free(sd->ever_bits);
    free(sd->dirty);
    free(sd->shadow);
    memset(sd, 0, sizeof *sd);
}
