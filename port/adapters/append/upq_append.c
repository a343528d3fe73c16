/* A sink over a data file and a journal file that only grow (see upq_append.h). */
#include "upq_append.h"
#include "uparquet/checksum.h" /* frames: the library's CRC-32 (the IEEE one, as always) */

/* FRAME_SHORT: a data frame with a 16-byte header ("UPQA", type, 3 bytes
 * of length, u32 offset from the sealed end, u32 CRC), written when its
 * length and offset fit; read back, it is a FRAME_DATA. */
enum { FRAME_HEAD = 1, FRAME_DATA = 2, FRAME_INDEX = 3, FRAME_SHORT = 4 };
#define SHORT_HDR 16u
#define SHORT_MAX 0xffffffu

/* an index frame's data: UPQ_APPEND_INDEX_K entries of ENTRY bytes (u32
 * offset from the sealed end, u16 length: a data frame is at most
 * PIECE_MAX bytes) */
#define ENTRY 6u
#define INDEX_BYTES (UPQ_APPEND_INDEX_K * ENTRY)
#define PIECE_MAX 0xffffu

/* the largest frame (the writer's pieces are far smaller) */
#define FRAME_MAX ((uint32_t)1 << 30)

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static upq_status fail(upq_append *a, upq_status st, const char *what)
{
    a->what = what;
    return st;
}

/* all of p[0..n) appended to a file */
static upq_status put_all(upq_append *a, const upq_sink *s, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    while (n) {
        size_t w = 0;
        upq_status st = s->write(s->ctx, b, n, &w);
        if (st != UPQ_OK || w == 0 || w > n)
            return fail(a, UPQ_ERR_IO, "write failed");
        b += w;
        n -= w;
    }
    return UPQ_OK;
}

/* all of [off, off + n) of a file */
static upq_status get_all(upq_append *a, const upq_sink *s, uint64_t off, void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    while (n) {
        size_t got = 0;
        upq_status st = s->read_at(s->ctx, off, b, n, &got);
        if (st != UPQ_OK)
            return fail(a, UPQ_ERR_IO, "read failed");
        if (got == 0 || got > n)
            return fail(a, UPQ_ERR_CORRUPT, "the journal ends inside a frame");
        b += got;
        off += got;
        n -= got;
    }
    return UPQ_OK;
}

static void frame_hdr(uint8_t h[UPQ_APPEND_FRAME], int type, uint64_t voff, uint32_t len)
{
    uint32_t i;
    h[0] = 'U';
    h[1] = 'P';
    h[2] = 'Q';
    h[3] = 'A';
    h[4] = (uint8_t)type;
    h[5] = h[6] = h[7] = 0;
    put32(h + 8, len);
    put32(h + 12, (uint32_t)voff);
    put32(h + 16, (uint32_t)(voff >> 32));
    for (i = 20; i < UPQ_APPEND_FRAME; i++)
        h[i] = 0;
}

static upq_status index_flush(upq_append *a);
static void index_add(upq_append *a, uint64_t at, uint32_t hs, uint64_t voff, uint32_t len);

/* a frame of p[0..n) then q[0..m) for voff, at the journal's end (a data
 * frame with the short header when it fits) */
static upq_status frame_put(upq_append *a, int type, uint64_t voff, const uint8_t *p, uint32_t n,
                            const uint8_t *q, uint32_t m)
{
    uint8_t h[UPQ_APPEND_FRAME];
    uint64_t at;
    uint32_t crc, hs = UPQ_APPEND_FRAME;
    upq_status st;
    if (type == FRAME_DATA && a->npend == UPQ_APPEND_INDEX_K) {
        st = index_flush(a);
        if (st != UPQ_OK)
            return st;
    }
    at = a->jsize;
    if (type == FRAME_DATA && (uint64_t)n + m <= SHORT_MAX && voff >= a->base && voff - a->base <= UINT32_MAX) {
        frame_hdr(h, FRAME_SHORT, 0, 0);
        h[5] = (uint8_t)(n + m);
        h[6] = (uint8_t)((n + m) >> 8);
        h[7] = (uint8_t)((n + m) >> 16);
        put32(h + 8, (uint32_t)(voff - a->base));
        hs = SHORT_HDR;
    } else {
        frame_hdr(h, type, voff, n + m);
    }
    crc = upq_crc32_update(0, h, hs - 4u);
    crc = upq_crc32_update(crc, p, n);
    crc = upq_crc32_update(crc, q, m);
    put32(h + hs - 4u, crc);
    st = put_all(a, &a->journal, h, hs);
    if (st == UPQ_OK && n)
        st = put_all(a, &a->journal, p, n);
    if (st == UPQ_OK && m)
        st = put_all(a, &a->journal, q, m);
    if (st != UPQ_OK)
        return st;
    a->jsize += hs + (uint64_t)n + m;
    a->jdirty = 1;
    if (type == FRAME_DATA) {
        a->jbytes += (uint64_t)n + m;
        a->frames++;
        index_add(a, at, hs, voff, n + m);
    }
    return UPQ_OK;
}

/* ---- the journal's index (UPQ_APPEND_INDEX_K in upq_append.h) ------------------------ */

static void put_entry(uint8_t *b, const upq_append_entry *e)
{
    put32(b, e->voff);
    b[4] = (uint8_t)e->len;
    b[5] = (uint8_t)(e->len >> 8);
}

/* Nothing indexed: the journal's data frames begin at `start`. */
static void index_clear(upq_append *a, uint64_t start)
{
    a->nidx = a->npend = 0;
    a->ioff = 0;
    a->pstart = start;
}

/* The data frame at journal offset `at` (header `hs` bytes) joins the entries waiting for an
 * index frame (frames the index cannot name end it). */
static void index_add(upq_append *a, uint64_t at, uint32_t hs, uint64_t voff, uint32_t len)
{
    uint64_t end = a->pstart;
    uint32_t i;
    if (a->ioff)
        return;
    for (i = 0; i < a->npend; i++)
        end += SHORT_HDR + (uint64_t)a->pend[i].len;
    if (a->npend == UPQ_APPEND_INDEX_K || at != end || hs != SHORT_HDR || len > PIECE_MAX || voff < a->base ||
        voff - a->base > UINT32_MAX || at > UINT32_MAX - SHORT_HDR - (uint64_t)len) {
        a->ioff = 1;
        return;
    }
    a->pend[a->npend].voff = (uint32_t)(voff - a->base);
    a->pend[a->npend].len = len;
    a->npend++;
}

/* The entries waiting go to the journal as an index frame (its offset
 * field: where the frames it names begin), when there is room to keep
 * where it is; else indexing ends here. */
static upq_status index_flush(upq_append *a)
{
    uint8_t h[UPQ_APPEND_FRAME], b[ENTRY];
    uint64_t at = a->jsize;
    uint32_t crc, i;
    upq_status st;
    if (a->ioff || a->nidx == UPQ_APPEND_INDEX_MAX || at > UINT32_MAX - UPQ_APPEND_FRAME - INDEX_BYTES) {
        a->ioff = 1;
        return UPQ_OK;
    }
    frame_hdr(h, FRAME_INDEX, a->pstart, INDEX_BYTES);
    crc = upq_crc32_update(0, h, 20);
    for (i = 0; i < UPQ_APPEND_INDEX_K; i++) {
        put_entry(b, &a->pend[i]);
        crc = upq_crc32_update(crc, b, sizeof b);
    }
    put32(h + 20, crc);
    st = put_all(a, &a->journal, h, sizeof h);
    for (i = 0; st == UPQ_OK && i < UPQ_APPEND_INDEX_K; i++) {
        put_entry(b, &a->pend[i]);
        st = put_all(a, &a->journal, b, sizeof b);
    }
    if (st != UPQ_OK)
        return st;
    a->jsize += UPQ_APPEND_FRAME + INDEX_BYTES;
    a->jdirty = 1;
    a->ipos[a->nidx++] = (uint32_t)at;
    a->npend = 0;
    a->pstart = a->jsize;
    return UPQ_OK;
}

static upq_status slot_flush(upq_append *a, uint32_t k)
{
    upq_status st;
    if (!a->glen[k])
        return UPQ_OK;
    st = frame_put(a, FRAME_DATA, a->gvoff[k], a->gather[k], a->glen[k], 0, 0);
    a->glen[k] = 0;
    return st;
}

static upq_status gather_flush(upq_append *a)
{
    uint32_t k;
    for (k = 0; k < UPQ_APPEND_GATHERS; k++) {
        upq_status st = slot_flush(a, k);
        if (st != UPQ_OK)
            return st;
    }
    return UPQ_OK;
}

static int gathered(const upq_append *a)
{
    uint32_t k;
    for (k = 0; k < UPQ_APPEND_GATHERS; k++)
        if (a->glen[k])
            return 1;
    return 0;
}

static upq_status sync_file(upq_append *a, const upq_sink *s)
{
    if (s->sync && s->sync(s->ctx) != UPQ_OK)
        return fail(a, UPQ_ERR_IO, "sync failed");
    return UPQ_OK;
}

static upq_status truncate_file(upq_append *a, const upq_sink *s, uint64_t size)
{
    if (!s->truncate || s->truncate(s->ctx, size) != UPQ_OK)
        return fail(a, UPQ_ERR_IO, "truncate failed");
    return UPQ_OK;
}

/* The journal starts over: the data file's first `base` bytes are the file
 * up to there. Synced: from here on a cut finds this. */
static upq_status journal_reset(upq_append *a, uint64_t base)
{
    upq_status st = truncate_file(a, &a->journal, 0);
    if (st != UPQ_OK)
        return st;
    a->jsize = 0;
    a->jbytes = 0;
    a->nruns = 0;
    st = frame_put(a, FRAME_HEAD, base, 0, 0, 0, 0);
    if (st != UPQ_OK)
        return st;
    index_clear(a, a->jsize);
    a->base = base;
    a->jdirty = 0;
    return sync_file(a, &a->journal);
}

/* ---- frames read back -------------------------------------------------------------- */

typedef upq_append_frame frame;

/* The fields of a frame header h (its first 16 bytes; 24 unless short) at
 * journal offset pos: f->pos is where its data begins; a short data frame
 * reads as FRAME_DATA. The header's size. */
static uint32_t frame_parse(const upq_append *a, const uint8_t *h, uint64_t pos, frame *f)
{
    if (h[4] == FRAME_SHORT) {
        f->type = FRAME_DATA;
        f->len = (uint32_t)h[5] | (uint32_t)h[6] << 8 | (uint32_t)h[7] << 16;
        f->voff = a->base + get32(h + 8);
        f->pos = pos + SHORT_HDR;
        return SHORT_HDR;
    }
    f->type = h[4];
    f->len = get32(h + 8);
    f->voff = (uint64_t)get32(h + 12) | (uint64_t)get32(h + 16) << 32;
    f->pos = pos + UPQ_APPEND_FRAME;
    return UPQ_APPEND_FRAME;
}

/* The frame whose header is at pos (not its CRC: the journal was checked
 * when opened and is written by this sink since). */
static upq_status frame_at(upq_append *a, uint64_t pos, frame *f)
{
    uint8_t h[UPQ_APPEND_FRAME];
    upq_status st = get_all(a, &a->journal, pos, h, SHORT_HDR);
    if (st != UPQ_OK)
        return st;
    if (h[0] != 'U' || h[1] != 'P' || h[2] != 'Q' || h[3] != 'A')
        return fail(a, UPQ_ERR_CORRUPT, "not a journal frame");
    if (h[4] != FRAME_SHORT) {
        st = get_all(a, &a->journal, pos + SHORT_HDR, h + SHORT_HDR, UPQ_APPEND_FRAME - SHORT_HDR);
        if (st != UPQ_OK)
            return st;
    }
    (void)frame_parse(a, h, pos, f);
    a->headers++;
    return UPQ_OK;
}

/* The index frame (nidx: the entries waiting) whose frames hold journal
 * offset pos: the first whose frame lies after it. */
static uint32_t index_of(const upq_append *a, uint64_t pos)
{
    uint32_t lo = 0, hi = a->nidx;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->ipos[mid] > pos)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Looks for the data frame holding v (from the sealed end) among the
 * frames index frame j names (j == nidx: the entries waiting): 1 in
 * *found and the frame in *f when there. */
static upq_status index_span(upq_append *a, upq_append_run *r, uint32_t j, uint64_t v, frame *f, int *found)
{
    /* the entries are read into the copy buffer (free between copies) */
    uint32_t per = a->cap / ENTRY < UPQ_APPEND_INDEX_K ? (uint32_t)(a->cap / ENTRY) : UPQ_APPEND_INDEX_K;
    uint64_t pos = j ? (uint64_t)a->ipos[j - 1] + UPQ_APPEND_FRAME + INDEX_BYTES : UPQ_APPEND_FRAME; /* a header */
    uint32_t i, n = j < a->nidx ? UPQ_APPEND_INDEX_K : a->npend;
    if (j == a->nidx)
        pos = a->pstart;
    for (i = 0; i < n; i++) {
        upq_append_entry e;
        if (j == a->nidx) {
            e = a->pend[i];
        } else {
            uint32_t k = i % per;
            if (k == 0) {
                uint32_t want = n - i < per ? n - i : per;
                upq_status st = get_all(a, &a->journal, a->ipos[j] + UPQ_APPEND_FRAME + (uint64_t)i * ENTRY,
                                        a->buf, (size_t)want * ENTRY);
                if (st != UPQ_OK)
                    return st;
            }
            e.voff = get32(a->buf + k * ENTRY);
            e.len = (uint32_t)a->buf[k * ENTRY + 4u] | (uint32_t)a->buf[k * ENTRY + 5u] << 8;
        }
        if (*found) {
            /* the frame after it in the run, when this index frame names it */
            if ((uint64_t)e.voff == f->voff - a->base + f->len) {
                r->npos = (uint32_t)(pos + SHORT_HDR);
                r->nlen = e.len;
                return UPQ_OK;
            }
        } else if (e.voff <= v && v - e.voff < e.len) {
            f->pos = pos + SHORT_HDR;
            f->voff = a->base + e.voff;
            f->len = e.len;
            f->type = FRAME_DATA;
            *found = 1;
            r->nlen = 0;
        }
        pos += SHORT_HDR + (uint64_t)e.len;
    }
    return UPQ_OK;
}

/* The data frame holding voff as the index names it, checked against its
 * header: 1 in *found, else 0. A run is read in order: the search goes from
 * the index frame of the run's last frame found (its first, for a read
 * before that) to the entries waiting; *from: where a search of the
 * headers starts when the index does not have it (past what it covers). */
static upq_status index_find(upq_append *a, upq_append_run *r, uint64_t voff, frame *f, int *found,
                             uint64_t *from)
{
    const frame *c = &r->cur;
    uint64_t start = c->len && c->voff <= voff ? c->pos : r->first, end = a->pstart;
    uint32_t j, i;
    *found = 0;
    for (i = 0; i < a->npend; i++)
        end += SHORT_HDR + (uint64_t)a->pend[i].len;
    if (voff < a->base || voff - a->base > UINT32_MAX || start >= end)
        return UPQ_OK;
    if (c->len && r->nlen && voff >= c->voff + c->len && voff - (c->voff + c->len) < r->nlen) {
        /* the frame after the last one found, named with it */
        f->pos = r->npos;
        f->voff = c->voff + c->len;
        f->len = r->nlen;
        f->type = FRAME_DATA;
        *found = 1;
        r->nlen = 0;
    }
    for (j = index_of(a, start); j <= a->nidx && !*found; j++) {
        upq_status st = index_span(a, r, j, voff - a->base, f, found);
        if (st != UPQ_OK)
            return st;
    }
    if (*found) {
        frame h;
        upq_status st = frame_at(a, f->pos - SHORT_HDR, &h);
        if (st != UPQ_OK)
            return st;
        if (h.type != FRAME_DATA || h.pos != f->pos || h.voff != f->voff || h.len != f->len)
            return fail(a, UPQ_ERR_CORRUPT, "the journal's index names another frame");
        a->indexed++;
    } else if (*from < end) {
        *from = end;
    }
    return UPQ_OK;
}

/* ---- runs ------------------------------------------------------------------------- */

/* [o, e) joins the runs, its frame at journal offset `pos` or later: 1,
 * or 0 when it overlaps one (or no run is left for it), and the journal
 * must be sealed first */
static int run_add(upq_append *a, uint64_t o, uint64_t e, uint64_t pos)
{
    uint32_t i, ext = a->nruns, next = a->nruns;
    for (i = 0; i < a->nruns; i++) {
        upq_append_run *r = &a->runs[i];
        if (o < r->end && e > r->start)
            return 0;
        if (r->end == o)
            ext = i;
        if (r->start == e)
            next = i;
    }
    if (ext < a->nruns && next < a->nruns) {
        /* it joins two runs */
        a->runs[ext].end = a->runs[next].end;
        if (a->runs[next].first < a->runs[ext].first)
            a->runs[ext].first = a->runs[next].first;
        a->runs[next] = a->runs[--a->nruns];
        return 1;
    }
    if (ext < a->nruns) {
        a->runs[ext].end = e;
        return 1;
    }
    if (next < a->nruns) {
        a->runs[next].start = o;
        return 1;
    }
    if (a->nruns == UPQ_APPEND_RUNS)
        return 0;
    a->runs[a->nruns].start = o;
    a->runs[a->nruns].end = e;
    a->runs[a->nruns].first = pos;
    a->runs[a->nruns].cur.len = 0;
    a->runs[a->nruns].nlen = 0;
    a->nruns++;
    return 1;
}

/* The frame of run r holding voff (exactly one: the journal holds no byte
 * twice): the run's last one found, or the first holding it from there on
 * (the next read, or the next frame to seal, usually follows it), or from
 * the run's first frame on. */
static upq_status run_frame(upq_append *a, upq_append_run *r, uint64_t voff, frame *f)
{
    frame *c = &r->cur;
    uint64_t pos = r->first, from;
    int pass;
    if (c->len && c->voff <= voff) {
        if (voff < c->voff + c->len) {
            *f = *c;
            return UPQ_OK;
        }
        pos = c->pos + c->len;
        /* the frame right after it in the journal, when it continues it
         * (a run written alone: records, the page indexes): its header is
         * in what was just read */
        if (pos < a->jsize && voff - (c->voff + c->len) < UPQ_APPEND_GATHER) {
            upq_status st = frame_at(a, pos, f);
            if (st != UPQ_OK)
                return st;
            if (f->type == FRAME_DATA && f->voff <= voff && voff - f->voff < f->len) {
                *c = *f;
                r->nlen = 0;
                return UPQ_OK;
            }
        }
    }
    {
        int found;
        upq_status st = index_find(a, r, voff, f, &found, &pos);
        if (st != UPQ_OK)
            return st;
        if (found) {
            *c = *f;
            return UPQ_OK;
        }
    }
    from = pos;
    for (pass = 0; pass < 2; pass++) {
        for (; pos < a->jsize; pos = f->pos + f->len) {
            upq_status st = frame_at(a, pos, f);
            if (st != UPQ_OK)
                return st;
            if (f->type == FRAME_DATA && f->voff <= voff && voff < f->voff + f->len) {
                *c = *f;
                r->nlen = 0;
                return UPQ_OK;
            }
        }
        if (from == r->first)
            break;
        pos = r->first;
    }
    return fail(a, UPQ_ERR_CORRUPT, "a journal frame is missing");
}

static void runs_sort(upq_append *a)
{
    uint32_t i, j;
    for (i = 1; i < a->nruns; i++) {
        upq_append_run r = a->runs[i];
        for (j = i; j > 0 && a->runs[j - 1].start > r.start; j--)
            a->runs[j] = a->runs[j - 1];
        a->runs[j] = r;
    }
}

/* Up to `budget` bytes of the seal's copy: zeros up to the next run, the
 * frame being copied, then the next frame of the run (in offset order).
 * Moves a->sat (the data file's end as the copy goes) and the budget. */
static upq_status seal_copy(upq_append *a, uint64_t *budget)
{
    upq_append_run *r = &a->runs[a->si];
    uint64_t stop = a->si < a->nruns ? r->start : a->vsize, k;
    upq_status st;
    if (a->sleft) {
        /* the frame being copied: from the journal through the copy buffer */
        k = a->sleft < a->cap ? a->sleft : a->cap;
        if (k > *budget)
            k = *budget;
        st = get_all(a, &a->journal, a->spos, a->buf, (size_t)k);
        if (st == UPQ_OK)
            st = put_all(a, &a->data, a->buf, (size_t)k);
        if (st != UPQ_OK)
            return st;
        a->spos += k;
        a->sleft -= k;
    } else if (a->sat < stop) {
        /* a gap the writer left: zeros */
        size_t i;
        k = stop - a->sat < a->cap ? stop - a->sat : a->cap;
        if (k > *budget)
            k = *budget;
        for (i = 0; i < (size_t)k; i++)
            a->buf[i] = 0;
        st = put_all(a, &a->data, a->buf, (size_t)k);
        if (st != UPQ_OK)
            return st;
        a->sat += k;
    } else if (a->si < a->nruns && a->sat < r->end) {
        frame f;
        st = run_frame(a, r, a->sat, &f);
        if (st == UPQ_OK && (f.voff != a->sat || f.voff + f.len > r->end))
            st = fail(a, UPQ_ERR_CORRUPT, "a journal frame is missing");
        if (st != UPQ_OK)
            return st;
        a->spos = f.pos;
        a->sleft = f.len;
        a->sat += f.len;
        a->scopied += f.len;
        return UPQ_OK;
    } else {
        a->si++;
        return UPQ_OK;
    }
    a->dsize += k;
    *budget -= k;
    return UPQ_OK;
}

/* The seal's start: what is gathered goes to the journal, which syncs; a
 * copy cut short before goes; the runs in offset order. 1 in *more when
 * there is something to copy. */
static upq_status seal_begin(upq_append *a, int *more)
{
    upq_status st = gather_flush(a);
    *more = 0;
    if (st != UPQ_OK)
        return st;
    if (a->vsize <= a->base && !a->jbytes) {
        if (a->ddirty) {
            st = sync_file(a, &a->data);
            a->ddirty = 0;
        }
        return st;
    }
    if (a->jdirty) {
        st = sync_file(a, &a->journal);
        if (st != UPQ_OK)
            return st;
        a->jdirty = 0;
    }
    if (a->dsize != a->base) {
        /* a copy cut short before: what it wrote goes */
        st = truncate_file(a, &a->data, a->base);
        if (st != UPQ_OK)
            return st;
        a->dsize = a->base;
    }
    runs_sort(a);
    a->si = 0;
    a->sat = a->base;
    a->sleft = 0;
    a->scopied = 0;
    a->ddirty = 1;
    *more = 1;
    return UPQ_OK;
}

/* Everything the journal holds goes to the data file, in offset order (gaps
 * as zeros), `budget` bytes of it a call (UPQ_AGAIN until it is all
 * there); the data file syncs; the journal starts over after it. A cut
 * anywhere in here leaves the journal as it was, and the copy is made again
 * from the sealed end. */
static upq_status seal_step(upq_append *a, uint64_t budget)
{
    upq_status st = UPQ_OK;
    if (!a->sealing) {
        int more;
        st = seal_begin(a, &more);
        if (st != UPQ_OK || !more)
            return st;
        a->sealing = 1;
    }
    while (st == UPQ_OK && budget && (a->si < a->nruns || a->sat < a->vsize || a->sleft))
        st = seal_copy(a, &budget);
    if (st == UPQ_OK && (a->si < a->nruns || a->sat < a->vsize || a->sleft)) {
        a->seal_steps++;
        return UPQ_AGAIN;
    }
    a->sealing = 0;
    if (st != UPQ_OK)
        return st;
    if (a->scopied != a->jbytes)
        return fail(a, UPQ_ERR_CORRUPT, "journal frames overlap");
    st = sync_file(a, &a->data);
    if (st != UPQ_OK)
        return st;
    a->ddirty = 0;
    a->seals++;
    a->seal_steps++;
    a->bytes_sealed += a->vsize - a->base;
    return journal_reset(a, a->vsize);
}

/* The whole seal in one call (a write over a journaled byte, a truncate,
 * upq_append_seal_all). */
static upq_status seal_all(upq_append *a)
{
    return seal_step(a, UINT64_MAX);
}

/* ---- the sink ---------------------------------------------------------------------- */

static upq_status ap_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_append *a = (upq_append *)ctx;
    const uint8_t *b = (const uint8_t *)buf;
    /* a frame (with what is gathered before it) fits an index entry */
    uint32_t n = len > PIECE_MAX - UPQ_APPEND_GATHER ? PIECE_MAX - UPQ_APPEND_GATHER : (uint32_t)len;
    upq_status st;
    *written = 0;
    if (len == 0)
        return UPQ_OK;
    if (a->sealing) {
        /* a seal under way is finished first */
        st = seal_all(a);
        if (st != UPQ_OK)
            return st;
    }
    if (off < a->base) {
        /* before the sealed end: in place */
        size_t w = 0;
        if (n > a->base - off)
            n = (uint32_t)(a->base - off);
        st = a->data.write_at(a->data.ctx, off, b, n, &w);
        if (st != UPQ_OK || w == 0 || w > n)
            return fail(a, UPQ_ERR_IO, "write failed");
        a->ddirty = 1;
        a->inplace++;
        *written = w;
        return UPQ_OK;
    }
    if (!run_add(a, off, off + n, a->jsize)) {
        /* over a byte the journal holds, or a run too many: seal, then
         * this write goes where it belongs (in place, or a new run) */
        a->early++;
        st = seal_all(a);
        if (st != UPQ_OK)
            return st;
        if (off < a->base)
            return ap_write_at(ctx, off, buf, len, written);
        if (!run_add(a, off, off + n, a->jsize))
            return fail(a, UPQ_ERR_IO, "no run left");
    }
    {
        uint32_t k, i;
        for (k = 0; k < UPQ_APPEND_GATHERS && !(a->glen[k] && off == a->gvoff[k] + a->glen[k]); k++)
            ;
        if (k < UPQ_APPEND_GATHERS) {
            if (a->glen[k] + n <= UPQ_APPEND_GATHER) {
                for (i = 0; i < n; i++)
                    a->gather[k][a->glen[k] + i] = b[i];
                a->glen[k] += n;
            } else {
                st = frame_put(a, FRAME_DATA, a->gvoff[k], a->gather[k], a->glen[k], b, n);
                a->glen[k] = 0;
                if (st != UPQ_OK)
                    return st;
            }
        } else {
            k = a->gnext;
            a->gnext = (a->gnext + 1) % UPQ_APPEND_GATHERS;
            st = slot_flush(a, k);
            if (st != UPQ_OK)
                return st;
            if (n < UPQ_APPEND_GATHER / 2) {
                for (i = 0; i < n; i++)
                    a->gather[k][i] = b[i];
                a->gvoff[k] = off;
                a->glen[k] = n;
            } else {
                st = frame_put(a, FRAME_DATA, off, b, n, 0, 0);
                if (st != UPQ_OK)
                    return st;
            }
        }
    }
    if (off + n > a->vsize)
        a->vsize = off + n;
    *written = n;
    return UPQ_OK;
}

static upq_status ap_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_append *a = (upq_append *)ctx;
    return ap_write_at(ctx, a->vsize, buf, len, written);
}

/* [off, off + n) at or after the sealed end: each run's bytes from its
 * frames, zeros between runs */
static upq_status read_frames(upq_append *a, uint64_t off, uint8_t *out, size_t n)
{
    uint64_t at = off, end = off + n;
    while (at < end) {
        uint64_t stop = end;
        uint32_t i;
        int in = 0;
        for (i = 0; i < a->nruns; i++) {
            const upq_append_run *r = &a->runs[i];
            if (r->start <= at && at < r->end) {
                in = 1;
                break;
            }
            if (r->start > at && r->start < stop)
                stop = r->start;
        }
        if (in) {
            frame f;
            upq_status st = run_frame(a, &a->runs[i], at, &f);
            if (st != UPQ_OK)
                return st;
            stop = f.voff + f.len < end ? f.voff + f.len : end;
            st = get_all(a, &a->journal, f.pos + (at - f.voff), out + (at - off),
                         (size_t)(stop - at));
            if (st != UPQ_OK)
                return st;
        } else {
            for (i = 0; i < stop - at; i++)
                out[at - off + i] = 0;
        }
        at = stop;
    }
    return UPQ_OK;
}

static upq_status ap_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_append *a = (upq_append *)ctx;
    uint8_t *b = (uint8_t *)buf;
    upq_status st;
    size_t n;
    *got = 0;
    if (off >= a->vsize || len == 0)
        return UPQ_OK;
    n = a->vsize - off < len ? (size_t)(a->vsize - off) : len;
    if (off < a->base) {
        size_t m = a->base - off < n ? (size_t)(a->base - off) : n;
        st = get_all(a, &a->data, off, b, m);
        if (st != UPQ_OK)
            return st;
        *got = m;
        return UPQ_OK;
    }
    st = gather_flush(a);
    if (st == UPQ_OK)
        st = read_frames(a, off, b, n);
    if (st != UPQ_OK)
        return st;
    *got = n;
    return UPQ_OK;
}

static upq_status ap_sync(void *ctx)
{
    upq_append *a = (upq_append *)ctx;
    upq_status st = gather_flush(a);
    if (st == UPQ_OK && a->jdirty) {
        st = sync_file(a, &a->journal);
        a->jdirty = 0;
    }
    if (st == UPQ_OK && a->ddirty && !a->sealing) {
        /* (a seal under way syncs the data file when its copy is done) */
        st = sync_file(a, &a->data);
        a->ddirty = 0;
    }
    return st;
}

static upq_status ap_truncate(void *ctx, uint64_t size)
{
    upq_append *a = (upq_append *)ctx;
    upq_status st = a->sealing ? seal_all(a) : UPQ_OK;
    if (st == UPQ_OK)
        st = gather_flush(a);
    if (st != UPQ_OK)
        return st;
    if (size >= a->vsize) {
        a->vsize = size; /* what is past the old end reads as zeros */
        return UPQ_OK;
    }
    if (size > a->base) {
        st = seal_all(a);
        if (st != UPQ_OK)
            return st;
    }
    /* the journal first: a cut before the data file is cut finds the new
     * end already */
    st = journal_reset(a, size);
    if (st == UPQ_OK)
        st = truncate_file(a, &a->data, size);
    if (st == UPQ_OK)
        st = sync_file(a, &a->data);
    if (st != UPQ_OK)
        return st;
    a->ddirty = 0;
    a->dsize = a->vsize = size;
    return UPQ_OK;
}

static upq_status ap_seal(void *ctx, uint64_t off)
{
    upq_append *a = (upq_append *)ctx;
    if (!a->sealing && off <= a->base && !gathered(a) && !a->jbytes)
        return UPQ_OK;
    return seal_step(a, UPQ_APPEND_SEAL_STEP);
}

upq_status upq_append_seal_all(upq_append *a)
{
    return seal_all(a);
}

void upq_append_sink(upq_append *a, upq_sink *sink)
{
    upq_sink_init(sink, a, ap_write, ap_write_at, ap_read_at, ap_sync, ap_truncate, ap_seal);
}

uint64_t upq_append_size(const upq_append *a)
{
    return a->vsize;
}

/* ---- opening ----------------------------------------------------------------------- */

/* The frame whose header is at pos, whole and with its CRC: 1 in *ok,
 * else 0 (a cut's torn end). */
static upq_status frame_check(upq_append *a, uint64_t pos, frame *f, int *ok)
{
    uint8_t h[UPQ_APPEND_FRAME];
    uint64_t left, at;
    uint32_t crc, hs;
    upq_status st;
    *ok = 0;
    if (a->jsize - pos < SHORT_HDR)
        return UPQ_OK;
    st = get_all(a, &a->journal, pos, h, SHORT_HDR);
    if (st != UPQ_OK)
        return st;
    if (h[0] != 'U' || h[1] != 'P' || h[2] != 'Q' || h[3] != 'A' ||
        (h[4] != FRAME_HEAD && h[4] != FRAME_DATA && h[4] != FRAME_INDEX && h[4] != FRAME_SHORT))
        return UPQ_OK;
    if (h[4] != FRAME_SHORT) {
        if (a->jsize - pos < UPQ_APPEND_FRAME)
            return UPQ_OK;
        st = get_all(a, &a->journal, pos + SHORT_HDR, h + SHORT_HDR, UPQ_APPEND_FRAME - SHORT_HDR);
        if (st != UPQ_OK)
            return st;
    }
    hs = frame_parse(a, h, pos, f);
    if (f->len > FRAME_MAX || f->len > a->jsize - pos - hs || f->voff > UINT64_MAX - f->len)
        return UPQ_OK;
    crc = upq_crc32_update(0, h, hs - 4u);
    for (left = f->len, at = f->pos; left;) {
        size_t k = left < a->cap ? (size_t)left : a->cap;
        st = get_all(a, &a->journal, at, a->buf, k);
        if (st != UPQ_OK)
            return st;
        crc = upq_crc32_update(crc, a->buf, k);
        at += k;
        left -= k;
    }
    *ok = crc == get32(h + hs - 4u);
    return UPQ_OK;
}

/* An index frame met opening the journal: where it is, when it names the
 * entries waiting; else indexing ends (a look-up then reads headers). */
static void index_taken(upq_append *a, uint64_t pos, const frame *f)
{
    if (a->ioff || f->len != INDEX_BYTES || f->voff != a->pstart || a->npend != UPQ_APPEND_INDEX_K ||
        a->nidx == UPQ_APPEND_INDEX_MAX || pos > UINT32_MAX - UPQ_APPEND_FRAME - INDEX_BYTES) {
        a->ioff = 1;
        return;
    }
    a->ipos[a->nidx++] = (uint32_t)pos;
    a->npend = 0;
    a->pstart = pos + UPQ_APPEND_FRAME + INDEX_BYTES;
}

/* The journal as a cut left it: its head (the sealed end), then the frames
 * up to the first that is not whole. */
static upq_status journal_scan(upq_append *a)
{
    uint64_t pos = 0;
    frame f;
    int ok;
    upq_status st = frame_check(a, 0, &f, &ok);
    if (st != UPQ_OK)
        return st;
    if (!ok || f.type != FRAME_HEAD || f.len) {
        /* no journal (or not one written here): the data file is the file */
        a->vsize = a->dsize;
        return journal_reset(a, a->dsize);
    }
    if (f.voff > a->dsize)
        return fail(a, UPQ_ERR_CORRUPT, "the journal begins after the data file's end");
    a->base = a->vsize = f.voff;
    pos = UPQ_APPEND_FRAME;
    index_clear(a, pos);
    for (;;) {
        st = frame_check(a, pos, &f, &ok);
        if (st != UPQ_OK)
            return st;
        if (ok && f.type == FRAME_INDEX) {
            index_taken(a, pos, &f);
            pos = f.pos + f.len;
            continue;
        }
        if (!ok || f.type != FRAME_DATA || f.voff < a->base || !run_add(a, f.voff, f.voff + f.len, pos))
            break;
        a->jbytes += f.len;
        index_add(a, pos, (uint32_t)(f.pos - pos), f.voff, f.len);
        if (f.voff + f.len > a->vsize)
            a->vsize = f.voff + f.len;
        pos = f.pos + f.len;
    }
    if (pos < a->jsize) {
        st = truncate_file(a, &a->journal, pos);
        if (st != UPQ_OK)
            return st;
        a->jsize = pos;
    }
    return UPQ_OK;
}

upq_status upq_append_open(upq_append *a, const upq_sink *data, const upq_sink *journal, uint64_t dsize,
                           uint64_t jsize, int create, void *buf, size_t cap)
{
    upq_status st;
    a->data = *data;
    a->journal = *journal;
    a->buf = (uint8_t *)buf;
    a->cap = cap;
    a->base = a->vsize = 0;
    a->dsize = dsize;
    a->jsize = jsize;
    a->jbytes = 0;
    a->ddirty = a->jdirty = 0;
    {
        uint32_t k;
        for (k = 0; k < UPQ_APPEND_GATHERS; k++)
            a->glen[k] = 0;
        a->gnext = 0;
    }
    a->what = 0;
    a->frames = a->seals = a->inplace = a->early = a->seal_steps = 0;
    a->sealing = 0;
    a->nruns = 0;
    a->bytes_sealed = 0;
    a->headers = a->indexed = 0;
    index_clear(a, UPQ_APPEND_FRAME);
    if (!buf || cap < 64)
        return fail(a, UPQ_ERR_INVAL, "the copy buffer is under 64 bytes");
    if (!create)
        return journal_scan(a);
    if (dsize) {
        st = truncate_file(a, &a->data, 0);
        if (st == UPQ_OK)
            st = sync_file(a, &a->data);
        if (st != UPQ_OK)
            return st;
        a->dsize = 0;
    }
    return journal_reset(a, 0);
}
