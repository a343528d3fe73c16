/*
 * libFuzzer target: whole files through the reader and the record reader.
 *
 * The input is a Parquet file. It is opened and every row of every row group
 * is read as events with whole reads, then once more in one of four ways,
 * picked by the input (so each input costs two or three runs, and each way
 * is taken on a quarter of them):
 *   - with reads of a few bytes that say "again" every other call, in
 *     another batch size: the same events (values included), or both fail
 *     (the record reader is resumable and its output does not depend on
 *     batching);
 *   - so, and with row-group metadata on demand (UPQ_ROW_GROUPS_LAZY: the
 *     bloom pass loads every row group, the row pass loads them again from
 *     the first), when the whole read succeeded: the same;
 *   - so, with rows of top-level columns fetched into structs
 *     (upq_rows_fetch): the same;
 *   - skipping two rows of each row group: the same as a full read from
 *     there on.
 * Every column chunk's bloom filter is loaded and probed in every run too.
 * Any violation aborts; the sanitizers catch out-of-bounds accesses and
 * undefined behaviour on the way.
 *
 * Encrypted inputs are read with parquet-testing's keys (KEYS.md, by their
 * key_metadata "kf", "kc1".."kc8"; the AES-128 set first, the AES-256 set
 * when that fails authentication) and the AAD prefix "tester", so mutations
 * of the encrypted corpus files reach decryption: of the footer, column
 * metadata and pages, and, in probe_blooms, of the bloom filter header and
 * bitset modules of encrypted columns (the reader gets their keys from the
 * same callback).
 *
 * Seeds: the corpus files (make_seeds.sh rows), *.parquet.encrypted
 * included. Build and run: make fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "fuzz_src.h"

#define ARENA_BYTES (8u << 20)
/* Events read per run, and per row group: each input stays quick, and
 * every row group's first pages are still read. */
#define MAX_EVENTS 8192u
#define MAX_RG_EVENTS 1024u
#define MAX_SPINS 1000000u

static uint64_t arena[ARENA_BYTES / 8];

/* A running hash of the events: order, kinds and values. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_event(uint64_t h, const upq_schema *s, const upq_event *ev)
{
    h = mix(h, &ev->type, 1);
    h = mix(h, &ev->role, 1);
    h = mix(h, &ev->node, 4);
    if (ev->type == UPQ_EV_VALUE) {
        int32_t t = s->columns[ev->column].physical_type;
        if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            const upq_bytes *b = (const upq_bytes *)ev->value;
            h = mix(h, &b->len, 4);
            h = mix(h, b->ptr, b->len);
        } else {
            h = mix(h, ev->value, upq_value_size(t));
        }
    }
    return h;
}

/* Which key set the callback gives: 0 AES-128 (data/), 1 AES-256 (data/aes256/). */
static int keyset;

static upq_status corpus_key(void *ctx, const upq_bytes *md, const upq_bytes_list *path, uint8_t *key,
                             size_t *len)
{
    size_t n = keyset ? 32u : 16u;
    (void)ctx;
    if (!path || (md->len == 2 && memcmp(md->ptr, "kf", 2) == 0)) {
        memcpy(key, keyset ? "01234567890123456789012345678901" : "0123456789012345", n);
    } else if (md->len == 3 && memcmp(md->ptr, "kc", 2) == 0 && md->ptr[2] >= '1' && md->ptr[2] <= '8') {
        if (keyset) {
            memcpy(key, "1234567890123456789012345678901", 31);
            key[31] = (uint8_t)('2' + (md->ptr[2] - '1'));
        } else {
            memcpy(key, "123456789012345", 15);
            key[15] = (uint8_t)('0' + (md->ptr[2] - '1'));
        }
    } else {
        return UPQ_ERR_AUTH;
    }
    *len = n;
    return UPQ_OK;
}

/* The AAD prefix "tester" given or not (files that do not store theirs). */
static int with_prefix;

/* Row-group metadata on demand in the runs that follow (opts.row_groups). */
static uint8_t lazy_mode;

/* Row group g's metadata (nothing to do when eager). */
static upq_status load_rg(upq_reader *r, uint32_t g, unsigned *spins)
{
    upq_status st;
    do
        st = upq_reader_row_group_load(r, g);
    while (st == UPQ_AGAIN && ++*spins < MAX_SPINS);
    return st;
}

typedef struct outcome {
    upq_status status;
    uint64_t hash;      /* of every event from row `from` of each row group on */
    uint64_t events;    /* ... and their number, which the limits apply to */
    int capped;         /* a row group was left at MAX_RG_EVENTS, its rest unread */
} outcome;

/* Every column's bloom filter in every row group, loaded and asked about a
 * zero value: status and answer go into the hash (a filter is optional to
 * readers, so a bad one does not end the run, but every run must see it
 * alike). */
static upq_status probe_blooms(upq_reader *r, outcome *out, unsigned *spins)
{
    static const uint8_t zeros[64];
    const upq_schema *sc = upq_reader_schema(r);
    uint32_t g, c;
    for (g = 0; g < upq_reader_num_row_groups(r); g++) {
        upq_status lst = load_rg(r, g, spins);
        if (lst != UPQ_OK)
            return lst;
        for (c = 0; c < sc->num_columns; c++) {
            upq_bloom_reader br;
            union {
                int64_t i;
                double d;
                upq_bytes b;
                upq_int96 t;
            } v;
            int32_t t = sc->columns[c].physical_type;
            int maybe = -1;
            upq_status st = upq_bloom_open(&br, r, g, c);
            memset(&v, 0, sizeof v);
            if (t == UPQ_TYPE_BYTE_ARRAY || t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
                v.b.ptr = zeros;
                v.b.len = t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY &&
                                  sc->columns[c].type_length <= (int32_t)sizeof zeros
                              ? (uint32_t)sc->columns[c].type_length : 0u;
            }
            if (st == UPQ_OK) {
                do
                    st = upq_bloom_load(&br);
                while (st == UPQ_AGAIN && ++*spins < MAX_SPINS);
            }
            if (st == UPQ_OK)
                st = upq_bloom_might_contain(&br, &v, &maybe);
            upq_bloom_close(&br);
            out->hash = mix(out->hash, &st, sizeof st);
            out->hash = mix(out->hash, &maybe, sizeof maybe);
        }
    }
    return UPQ_OK;
}

/* Rows through row-wise binding (upq_rows_fetch) where every field is a
 * top-level column, hashed as their events would be. */
static int fetch_mode;

#define FETCH_MAX 7u
#define FETCH_LEAVES 64u

typedef struct fetch_slot {
    union {
        upq_bytes b;
        upq_int96 t;
        int64_t i;
        double d;
    } v;
    uint8_t null;
} fetch_slot;

/* The rest of row group g through fetch; UPQ_ERR_UNSUPPORTED (nothing
 * read) when its fields are not all top-level columns. */
static upq_status fetch_rows(upq_rows *rows, const upq_schema *sc, uint32_t g, uint64_t row,
                             uint64_t from, uint64_t limit, outcome *out, unsigned *spins)
{
    static fetch_slot slots[FETCH_MAX * FETCH_LEAVES];
    upq_row_binding b[FETCH_LEAVES];
    uint32_t n = rows->num_leaves, i;
    size_t stride = n * sizeof(fetch_slot);
    upq_status st;
    if (n == 0 || n > FETCH_LEAVES)
        return UPQ_ERR_UNSUPPORTED;
    for (i = 0; i < n; i++) {
        b[i].column = rows->leaves[i].col.col;
        b[i].offset = (uint32_t)(i * sizeof(fetch_slot) + offsetof(fetch_slot, v));
        b[i].null_offset = (uint32_t)(i * sizeof(fetch_slot) + offsetof(fetch_slot, null));
    }
    st = upq_rows_bind(rows, b, n);
    if (st != UPQ_OK)
        return st;
    while (out->events < limit) {
        /* no more rows than the events would read before their limit */
        uint64_t left = (limit - out->events + n - 1u) / n + (row < from ? from - row : 0u);
        size_t got = 0, k;
        st = upq_rows_fetch(rows, slots, stride, left < FETCH_MAX ? (size_t)left : FETCH_MAX, &got);
        if (st == UPQ_AGAIN) {
            if (++*spins >= MAX_SPINS)
                return UPQ_ERR_STATE;
            continue;
        }
        if (st != UPQ_OK)
            return st;
        for (k = 0; k < got; k++, row++) {
            if (row >= from) {
                out->hash = mix(out->hash, &g, 4);
                out->hash = mix(out->hash, &row, 8);
            }
            for (i = 0; i < n; i++) {
                const fetch_slot *f = &slots[k * n + i];
                upq_event ev;
                ev.type = f->null ? UPQ_EV_NULL : UPQ_EV_VALUE;
                ev.role = UPQ_ROLE_FIELD;
                ev.node = sc->columns[b[i].column].node;
                ev.column = b[i].column;
                ev.value = f->null ? NULL : &f->v;
                if (row >= from) {
                    out->events++;
                    out->hash = hash_event(out->hash, sc, &ev);
                }
            }
        }
    }
    return UPQ_OK;
}

/* Reads every row group, skipping `skip` rows at the start of each, and
 * hashes the rows from `from` on. */
static void run(const uint8_t *data, size_t size, size_t chunk, size_t batch, uint64_t skip,
                uint64_t from, outcome *out)
{
    src s = {data, size, chunk, 0};
    upq_io io = {&s, src_read_at, size, NULL};
    upq_reader r;
    upq_status st;
    unsigned spins = 0;
    uint32_t g;

    upq_reader_opts ro;
    upq_decrypt_opts keys = {corpus_key, NULL, (const uint8_t *)"tester", 6, 0};
    memset(out, 0, sizeof *out);
    keys.aad_prefix_given = (uint8_t)with_prefix;
    memset(&ro, 0, sizeof ro);
    ro.decrypt = &keys;
    ro.row_groups = lazy_mode;
    upq_reader_init(&r, &io, arena, sizeof arena, &ro);
    do
        st = upq_reader_open(&r);
    while (st == UPQ_AGAIN && ++spins < MAX_SPINS);
    if (st == UPQ_OK) {
        upq_arena_mark mark = upq_arena_save(&r.arena);
        st = probe_blooms(&r, out, &spins);
        if (upq_arena_save(&r.arena) != mark) {
            fprintf(stderr, "fuzz_rows: closing a bloom filter did not give the arena back\n");
            abort();
        }
    }
    for (g = 0; st == UPQ_OK && g < upq_reader_num_row_groups(&r); g++) {
        const upq_schema *sc = upq_reader_schema(&r);
        upq_arena_mark mark;
        upq_rows rows;
        uint64_t got = 0, row = 0;
        uint64_t limit = out->events + MAX_RG_EVENTS < MAX_EVENTS ? out->events + MAX_RG_EVENTS
                                                                 : MAX_EVENTS;
        st = load_rg(&r, g, &spins);
        if (st != UPQ_OK)
            break;
        mark = upq_arena_save(&r.arena);
        st = upq_rows_open(&rows, &r, g, NULL, 0, batch);
        if (st != UPQ_OK)
            break;
        if (skip) {
            do
                st = upq_rows_skip(&rows, skip, &got);
            while (st == UPQ_AGAIN && ++spins < MAX_SPINS);
            row = got;
        }
        if (st == UPQ_OK && fetch_mode) {
            st = fetch_rows(&rows, sc, g, row, from, limit, out, &spins);
            if (st == UPQ_ERR_UNSUPPORTED)
                st = UPQ_OK; /* not top-level columns: the events */
            else if (st == UPQ_OK)
                st = UPQ_DONE;
        }
        while (st == UPQ_OK && out->events < limit) {
            upq_event ev;
            st = upq_rows_next(&rows);
            if (st == UPQ_AGAIN) {
                st = ++spins < MAX_SPINS ? UPQ_OK : UPQ_ERR_STATE;
                continue;
            }
            if (st != UPQ_OK)
                break;
            if (row >= from) {
                out->hash = mix(out->hash, &g, 4);
                out->hash = mix(out->hash, &row, 8);
            }
            for (;;) {
                st = upq_rows_event(&rows, &ev);
                if (st == UPQ_AGAIN) {
                    if (++spins >= MAX_SPINS)
                        break;
                    continue;
                }
                if (st != UPQ_OK)
                    break;
                if (row >= from) {
                    out->events++;
                    out->hash = hash_event(out->hash, sc, &ev);
                }
            }
            st = st == UPQ_DONE ? UPQ_OK : st;
            row++;
        }
        if (st == UPQ_OK && out->events >= limit)
            out->capped = 1;
        upq_rows_close(&rows);
        if (upq_arena_save(&r.arena) != mark) {
            fprintf(stderr, "fuzz_rows: closing the rows did not give the arena back\n");
            abort();
        }
        if (st == UPQ_DONE)
            st = UPQ_OK;
        if (out->events >= MAX_EVENTS)
            st = UPQ_ERR_LIMIT; /* stop here in every run alike */
    }
    out->status = st;
}

/* Row groups on demand, read by a few bytes at a time: the same rows,
 * blooms and statuses as the whole read `a`. */
static int check_lazy(const uint8_t *data, size_t size, size_t batch, const outcome *a)
{
    outcome c;
    if (a->status != UPQ_OK)
        return 0;
    lazy_mode = UPQ_ROW_GROUPS_LAZY;
    run(data, size, 1u + size % 13u, batch, 0, 0, &c);
    lazy_mode = UPQ_ROW_GROUPS_EAGER;
    if (c.status != UPQ_ERR_NOMEM && (c.status != UPQ_OK || c.hash != a->hash || c.events != a->events)) {
        fprintf(stderr, "fuzz_rows: lazy row groups differ: status %d, %llu vs %llu events\n",
                c.status, (unsigned long long)c.events, (unsigned long long)a->events);
        abort();
    }
    return 0;
}

/* Rows of top-level columns bound into structs: the same values. */
static int check_fetch(const uint8_t *data, size_t size, size_t batch, const outcome *a)
{
    outcome c;
    if (a->status != UPQ_OK)
        return 0;
    fetch_mode = 1;
    run(data, size, 1u + size % 13u, batch, 0, 0, &c);
    fetch_mode = 0;
    if (c.status != UPQ_ERR_NOMEM && (c.status != UPQ_OK || c.hash != a->hash || c.events != a->events)) {
        fprintf(stderr, "fuzz_rows: fetched rows differ: status %d, %llu vs %llu events\n",
                c.status, (unsigned long long)c.events, (unsigned long long)a->events);
        abort();
    }
    return 0;
}

/* Skipping rows gives the rows after them. */
static int check_skip(const uint8_t *data, size_t size, size_t batch)
{
    outcome c, d;
    run(data, size, 0, batch, 2, 2, &c);
    run(data, size, 0, 256, 0, 2, &d);
    /* the skip reads what the whole read does not: an encrypted column's
     * page index, whose failed authentication is an error (tampering), not
     * a reason to fall back; any other difference is not allowed */
    if (c.status != UPQ_ERR_NOMEM && c.status != UPQ_ERR_AUTH && d.status == UPQ_OK &&
        (c.status != UPQ_OK || c.hash != d.hash)) {
        fprintf(stderr, "fuzz_rows: skipping 2 rows differs (status %d)\n", c.status);
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    outcome a, b;
    size_t batch = size ? 1u + data[size / 2] % 61u : 7u;
    /* the key set and prefix that open it, if any does */
    for (keyset = 0; keyset < 2; keyset++) {
        for (with_prefix = 0; with_prefix < 2; with_prefix++) {
            run(data, size, 0, 256, 0, 0, &a);
            if (a.status != UPQ_ERR_AUTH)
                break;
        }
        if (a.status != UPQ_ERR_AUTH)
            break;
    }
    if (keyset == 2) {
        keyset = 1;
        with_prefix = 1;
    }
    if (a.status == UPQ_ERR_NOMEM)
        return 0; /* the batch size changes the memory needed: nothing to compare */
    switch ((size + (size ? data[size / 2] : 0u)) % 4u) {
    case 0: break;
    case 1: return check_lazy(data, size, batch, &a);
    case 2: return check_fetch(data, size, batch, &a);
    default: return check_skip(data, size, batch);
    }
    run(data, size, 1u + size % 13u, batch, 0, 0, &b);
    if (b.status == UPQ_ERR_NOMEM)
        return 0;
    /* after an error the runs may have stopped at different points (a batch
     * reads ahead), so then both must fail, not necessarily alike; but the
     * first run's batch of 256 reads further ahead than the second's, so an
     * error it met may lie past where the second stopped at a row group's
     * event limit */
    if (a.status < 0 && b.status == UPQ_OK && b.capped)
        return 0;
    if ((a.status < 0) != (b.status < 0) ||
        (a.status == UPQ_OK && (b.status != UPQ_OK || a.hash != b.hash || a.events != b.events))) {
        fprintf(stderr, "fuzz_rows: chunked run differs: status %d vs %d, %llu vs %llu events\n",
                a.status, b.status, (unsigned long long)a.events, (unsigned long long)b.events);
        abort();
    }
    return 0;
}
