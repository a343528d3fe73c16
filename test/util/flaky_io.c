/* Unreliable I/O for reader tests (see flaky_io.h). */
#include "util/flaky_io.h"

#include <stdlib.h>
#include <string.h>

void tu_mem_src_init(tu_mem_src *s, const void *data, size_t len)
{
    s->data = (const uint8_t *)data;
    s->len = len;
    s->calls = 0;
}

upq_status tu_mem_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    tu_mem_src *s = (tu_mem_src *)ctx;
    size_t n;
    s->calls++;
    if (off >= s->len) {
        *got = 0;
        return UPQ_OK;
    }
    n = s->len - (size_t)off;
    if (n > len)
        n = len;
    memcpy(buf, s->data + off, n);
    *got = n;
    return UPQ_OK;
}

upq_status tu_mem_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got)
{
    tu_mem_src *s = (tu_mem_src *)ctx;
    s->calls++;
    *got = 0;
    if (off >= s->len)
        return UPQ_OK;
    *p = s->data + off;
    *got = s->len - (size_t)off < len ? s->len - (size_t)off : len;
    return UPQ_OK;
}

const tu_flaky_cfg tu_flaky_cfgs[] = {
    {"whole", TU_CHUNK_WHOLE, 0, 0},
    {"1-byte", TU_CHUNK_FIXED, 1, 0},
    {"prime-3", TU_CHUNK_FIXED, 3, 0},
    {"prime-7", TU_CHUNK_FIXED, 7, 0},
    {"prime-13", TU_CHUNK_FIXED, 13, 0},
    {"prime-61", TU_CHUNK_FIXED, 61, 0},
    {"prime-251", TU_CHUNK_FIXED, 251, 0},
    {"prime-4093", TU_CHUNK_FIXED, 4093, 0},
    {"random", TU_CHUNK_RANDOM, 0, 0},
    {"random+again", TU_CHUNK_RANDOM, 0, 25},
    {"again-every-call", TU_CHUNK_WHOLE, 0, 100},
};
const size_t tu_flaky_ncfgs = sizeof tu_flaky_cfgs / sizeof tu_flaky_cfgs[0];

uint64_t tu_seed(void)
{
    const char *s = getenv("UPQ_TEST_SEED");
    if (s && *s)
        return (uint64_t)strtoull(s, NULL, 0);
    return 0x5eed0f0aa7e7ULL;
}

uint64_t tu_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

uint64_t tu_rand_below(uint64_t *state, uint64_t n)
{
    return tu_rand(state) % n;
}

void tu_flaky_init(tu_flaky *f, const tu_flaky_cfg *cfg, tu_read_at_fn inner, void *inner_ctx,
                   uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->inner = inner;
    f->inner_ctx = inner_ctx;
    f->cfg = *cfg;
    f->rng = seed ? seed : 1;
    f->fail_at = TU_NO_FAIL;
    f->max_again_run = 3;
}

/* Decides whether this call says "again"; bounded so callers always progress. */
static int say_again(tu_flaky *f)
{
    if (f->cfg.again_pct == 0 || f->again_run >= f->max_again_run ||
        tu_rand_below(&f->rng, 100) >= f->cfg.again_pct) {
        f->again_run = 0;
        return 0;
    }
    if (f->cfg.again_pct >= 100 && f->again_run >= 1) {
        /* "again every call" alternates: one again, then data */
        f->again_run = 0;
        return 0;
    }
    f->again_run++;
    f->agains++;
    return 1;
}

static size_t pick_len(tu_flaky *f, size_t len)
{
    size_t n = len;
    switch (f->cfg.mode) {
    case TU_CHUNK_WHOLE:
        break;
    case TU_CHUNK_FIXED:
        if (f->cfg.chunk && n > f->cfg.chunk)
            n = f->cfg.chunk;
        break;
    case TU_CHUNK_RANDOM:
        if (n > 1)
            n = 1 + (size_t)tu_rand_below(&f->rng, (uint64_t)n);
        break;
    }
    return n;
}

upq_status tu_flaky_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    tu_flaky *f = (tu_flaky *)ctx;
    size_t want;
    upq_status st;

    f->calls++;
    *got = 0;
    if (len == 0)
        return UPQ_OK;
    if (say_again(f))
        return UPQ_AGAIN;
    if (f->fail_at != TU_NO_FAIL && off + len > f->fail_at) {
        /* deliver what lies before the failure point first, like a device
         * that fails on the next sector */
        if (off >= f->fail_at) {
            f->errors++;
            return UPQ_ERR_IO;
        }
        len = (size_t)(f->fail_at - off);
    }
    want = pick_len(f, len);
    st = f->inner(f->inner_ctx, off, buf, want, got);
    if (st != UPQ_OK) {
        if (st < 0)
            f->errors++;
        return st;
    }
    if (*got > want) /* an inner source breaking the contract is a test bug */
        abort();
    if (*got < len)
        f->short_reads++;
    f->bytes += *got;
    if (off + *got > f->max_end)
        f->max_end = off + *got;
    return UPQ_OK;
}

upq_status tu_flaky_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got)
{
    tu_flaky *f = (tu_flaky *)ctx;
    size_t want = len;
    upq_status st;

    const tu_mem_src *mem = (const tu_mem_src *)f->inner_ctx;
    if (f->inner == tu_cut_read_at) {
        /* a cut source lends what it would read: nothing in the gap */
        const tu_cut_src *c = (const tu_cut_src *)f->inner_ctx;
        mem = &c->mem;
        if (off >= c->cut && off < c->footer_start)
            len = 0;
        else if (off < c->cut && off + len > c->cut)
            len = (size_t)(c->cut - off);
    } else if (f->inner != tu_mem_read_at) { /* lending needs the bytes in memory */
        abort();
    }
    f->calls++;
    *got = 0;
    if (len == 0)
        return UPQ_OK;
    if (say_again(f))
        return UPQ_AGAIN;
    if (f->fail_at != TU_NO_FAIL && off + len > f->fail_at) {
        if (off >= f->fail_at) {
            f->errors++;
            return UPQ_ERR_IO;
        }
        want = len = (size_t)(f->fail_at - off);
    }
    if (tu_rand_below(&f->rng, 2))
        want = pick_len(f, len);
    st = tu_mem_lend((void *)(uintptr_t)mem, off, want, p, got);
    if (st != UPQ_OK)
        return st;
    if (*got < len)
        f->lends_short++;
    else
        f->lends_whole++;
    f->bytes += *got;
    if (off + *got > f->max_end)
        f->max_end = off + *got;
    return UPQ_OK;
}

size_t tu_flaky_next_chunk(tu_flaky *f, size_t remaining)
{
    f->calls++;
    if (remaining == 0)
        return 0;
    if (say_again(f))
        return 0;
    return pick_len(f, remaining);
}

upq_status tu_cut_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    tu_cut_src *s = (tu_cut_src *)ctx;
    if (off >= s->cut && off < s->footer_start) {
        *got = 0;
        return UPQ_OK;
    }
    if (off < s->cut && off + len > s->cut)
        len = (size_t)(s->cut - off);
    return tu_mem_read_at(&s->mem, off, buf, len, got);
}
