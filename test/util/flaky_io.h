/*
 * Unreliable I/O for reader tests.
 *
 * The reader pulls bytes through a positional callback
 *     upq_status read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
 * that returns UPQ_OK with *got bytes (a short count is allowed; 0 means end
 * of file), UPQ_AGAIN ("would block", nothing read), or UPQ_ERR_IO. A correct
 * reader gives the same answer whatever the callback does within that
 * contract, so tests wrap a source in tu_flaky and run once per entry of
 * tu_flaky_cfgs: whole reads, 1 byte at a time, prime chunk sizes, random
 * short reads, random "again", and an injected I/O error at byte N.
 *
 * The same chunk patterns drive push-mode decoders: tu_flaky_next_chunk()
 * says how many bytes to feed next.
 *
 * Everything is deterministic for a given seed (tu_seed(): $UPQ_TEST_SEED,
 * else a fixed value), so a failure can be replayed.
 */
#ifndef UPQ_TEST_FLAKY_IO_H
#define UPQ_TEST_FLAKY_IO_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/status.h"

typedef upq_status (*tu_read_at_fn)(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* ---- a source in memory ----------------------------------------------- */

typedef struct tu_mem_src {
    const uint8_t *data; /* not owned */
    size_t len;
    unsigned long calls; /* read_at calls seen */
} tu_mem_src;

void tu_mem_src_init(tu_mem_src *s, const void *data, size_t len);

/* read_at over s->data: full reads up to the end, 0 bytes at or past it. */
upq_status tu_mem_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* lend over s->data (upq_lend_fn): all of what is asked up to the end. */
upq_status tu_mem_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got);

/* A source whose data is missing from `cut` up to `footer_start`: reads
 * there see end of file, as if the file had been cut short but its footer
 * (read first, from the end) had survived. Shows how readers handle data
 * that ends early. */
typedef struct tu_cut_src {
    tu_mem_src mem;
    uint64_t cut, footer_start;
} tu_cut_src;

upq_status tu_cut_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* ---- the flaky wrapper ------------------------------------------------ */

typedef enum tu_chunk_mode {
    TU_CHUNK_WHOLE = 0, /* as much as asked */
    TU_CHUNK_FIXED,     /* at most `chunk` bytes per call */
    TU_CHUNK_RANDOM     /* 1..len bytes per call, uniformly */
} tu_chunk_mode;

typedef struct tu_flaky_cfg {
    const char *name;   /* for result lines: "1-byte", "prime-13", ... */
    tu_chunk_mode mode;
    size_t chunk;       /* TU_CHUNK_FIXED: bytes per call */
    unsigned again_pct; /* 0..100: chance that a call says UPQ_AGAIN first */
} tu_flaky_cfg;

/* The standard set every reader test runs through: whole, 1-byte, primes
 * (3, 7, 13, 61, 251, 4093), random, random + 25% again, and "again" before
 * every read. */
extern const tu_flaky_cfg tu_flaky_cfgs[];
extern const size_t tu_flaky_ncfgs;

#define TU_NO_FAIL UINT64_MAX

typedef struct tu_flaky {
    tu_read_at_fn inner;
    void *inner_ctx;
    tu_flaky_cfg cfg;
    uint64_t rng;
    uint64_t fail_at;       /* a read reaching this offset fails with UPQ_ERR_IO */
    unsigned again_run;     /* consecutive UPQ_AGAIN answers given */
    unsigned max_again_run; /* then data is delivered (default 3) */
    /* counters, for tests that assert on I/O behaviour */
    unsigned long calls, agains, short_reads, errors;
    uint64_t bytes;
    uint64_t max_end;       /* highest offset + got served */
    /* tu_flaky_lend: calls that lent all that was asked, and fewer */
    unsigned long lends_whole, lends_short;
} tu_flaky;

/* Wraps inner/inner_ctx. `cfg` is copied. fail_at starts as TU_NO_FAIL. */
void tu_flaky_init(tu_flaky *f, const tu_flaky_cfg *cfg, tu_read_at_fn inner, void *inner_ctx,
                   uint64_t seed);

/* The read_at callback; ctx is the tu_flaky. Never returns *got == 0 unless
 * the inner source did (end of file), so the contract holds. */
upq_status tu_flaky_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* The upq_lend_fn over a flaky wrapper of a tu_mem_src or tu_cut_src (inner
 * must be tu_mem_read_at or tu_cut_read_at): "again" as read_at says it, the failure point likewise,
 * and every other call (at random) a short count in the configuration's
 * chunk pattern, so a reader meets both whole and short lends. */
upq_status tu_flaky_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got);

/* Push mode: how many of `remaining` bytes (> 0) to feed next, following the
 * same pattern (never 0 when remaining > 0). Also says "again" (returns 0)
 * with again_pct chance, at most max_again_run times in a row; a caller that
 * gets 0 should call its decoder with an empty chunk or simply ask again. */
size_t tu_flaky_next_chunk(tu_flaky *f, size_t remaining);

/* ---- randomness ------------------------------------------------------- */

/* $UPQ_TEST_SEED (decimal or 0x hex) when set, else a fixed default. */
uint64_t tu_seed(void);

/* xorshift64*: deterministic, never returns the same state twice in a row. */
uint64_t tu_rand(uint64_t *state);

/* Uniform in [0, n) (n > 0). */
uint64_t tu_rand_below(uint64_t *state, uint64_t n);

#endif
