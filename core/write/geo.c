/*
 * Geospatial statistics of GEOMETRY and GEOGRAPHY columns (writer): the
 * bounding box of every coordinate of a chunk's WKB values and the WKB type
 * codes of those values, as ColumnMetaData.geospatial_statistics stores them.
 *
 * WKB is walked without recursion: an explicit stack of "geometries still to
 * read" per collection level, at most UPQ_GEO_MAX_DEPTH deep, and every count
 * checked against the bytes left before anything is read, so the work is
 * bounded by the value's length whatever it claims. A value that is not
 * well-formed ISO WKB (unknown type, EWKB flags, short, trailing bytes, too
 * deep) marks the chunk: it gets no geospatial statistics at all.
 */
#include "geo.h"
#include "upq_port.h"

#if UPQ_WITH_WRITER && UPQ_WITH_CHUNK_META

void upq_geo_reset(upq_geo_acc *g)
{
    uint32_t col = g->col;
    upq_geo_acc *next = g->next;
    upq_memset(g, 0, sizeof *g);
    g->col = col;
    g->next = next;
}

upq_geo_acc *upq_geo_find(upq_geo_acc *list, uint32_t col)
{
    while (list && list->col != col)
        list = list->next;
    return list;
}

static uint32_t rd32(const uint8_t *p, int le)
{
    return le ? upq_load_le32(p) : upq_load_be32(p);
}

static double rd64(const uint8_t *p, int le)
{
    uint64_t u = le ? upq_load_le64(p)
                    : ((uint64_t)upq_load_be32(p) << 32) | upq_load_be32(p + 4);
    return upq_f64_from_bits(u);
}

/* Widens axis a (0 x, 1 y, 2 z, 3 m) by v; NaN (an empty point) counts nowhere. */
static void widen(upq_geo_acc *g, unsigned a, double v)
{
    if (v != v)
        return;
    if (!g->seen[a] || v < g->lo[a])
        g->lo[a] = v;
    if (!g->seen[a] || v > g->hi[a])
        g->hi[a] = v;
    g->seen[a] = 1;
}

/* k points of nd coordinates at p (the caller checked the bytes). */
static void points(upq_geo_acc *g, const uint8_t *p, uint32_t k, uint32_t dim, int le)
{
    uint32_t i, nd = dim == 0 ? 2u : dim == 3 ? 4u : 3u;
    for (i = 0; i < k; i++, p += 8u * nd) {
        widen(g, 0, rd64(p, le));
        widen(g, 1, rd64(p + 8, le));
        if (nd == 3)
            widen(g, dim == 1 ? 2u : 3u, rd64(p + 16, le));
        if (nd == 4) {
            widen(g, 2, rd64(p + 16, le));
            widen(g, 3, rd64(p + 24, le));
        }
    }
}

void upq_geo_add(upq_geo_acc *g, const uint8_t *p, size_t n)
{
    uint32_t left[UPQ_GEO_MAX_DEPTH];
    size_t pos = 0;
    int depth = 0, top = 1;
    if (g->bad)
        return;
    left[0] = 1;
    for (;;) {
        uint32_t type, base, dim, cnt, psize, r;
        int le;
        while (depth >= 0 && left[depth] == 0)
            depth--;
        if (depth < 0)
            break;
        left[depth]--;
        if (n - pos < 5 || p[pos] > 1)
            goto bad;
        le = p[pos];
        type = rd32(p + pos + 1, le);
        pos += 5;
        base = type % 1000u;
        dim = type / 1000u;
        if (base < 1 || base > 7 || dim > 3)
            goto bad; /* EWKB's flag bits land here too */
        if (top) {
            g->types |= 1u << (dim * 8u + base);
            top = 0;
        }
        psize = 8u * (dim == 0 ? 2u : dim == 3 ? 4u : 3u);
        if (base == 1) {
            if (n - pos < psize)
                goto bad;
            points(g, p + pos, 1, dim, le);
            pos += psize;
            continue;
        }
        if (n - pos < 4)
            goto bad;
        cnt = rd32(p + pos, le);
        pos += 4;
        if (base == 2) {
            if (cnt > (n - pos) / psize)
                goto bad;
            points(g, p + pos, cnt, dim, le);
            pos += (size_t)cnt * psize;
        } else if (base == 3) {
            if (cnt > (n - pos) / 4u)
                goto bad;
            for (r = 0; r < cnt; r++) {
                uint32_t k;
                if (n - pos < 4)
                    goto bad;
                k = rd32(p + pos, le);
                pos += 4;
                if (k > (n - pos) / psize)
                    goto bad;
                points(g, p + pos, k, dim, le);
                pos += (size_t)k * psize;
            }
        } else {
            /* a collection: each member is a whole WKB geometry of 5 bytes or more */
            if (cnt > (n - pos) / 5u || depth + 1 >= UPQ_GEO_MAX_DEPTH)
                goto bad;
            left[++depth] = cnt;
        }
    }
    if (pos == n) {
        g->any = 1;
        return;
    }
bad:
    g->bad = 1;
}

void upq_geo_page(upq_geo_acc *g, const uint8_t *vals, size_t nv, size_t bytes)
{
    size_t i, pos = 0;
    for (i = 0; i < nv && !g->bad; i++) {
        size_t len;
        if (bytes - pos < 4)
            break;
        len = upq_load_le32(vals + pos);
        if (len > bytes - pos - 4)
            break;
        upq_geo_add(g, vals + pos + 4, len);
        pos += 4 + len;
    }
}

int upq_geo_stats(upq_geo_acc *g, upq_geospatial_statistics *s)
{
    uint32_t dim, base, n = 0;
    upq_memset(s, 0, sizeof *s);
    if (g->bad || !g->any)
        return 0;
    /* ascending codes: dimension by dimension, base types within */
    for (dim = 0; dim < 4; dim++)
        for (base = 1; base <= 7; base++)
            if (g->types & (1u << (dim * 8u + base)))
                g->codes[n++] = (int32_t)(dim * 1000u + base);
    s->geospatial_types.v = g->codes;
    s->geospatial_types.n = n;
    s->isset = 1u << UPQ_GEOSPATIAL_STATISTICS_GEOSPATIAL_TYPES;
    if (g->seen[0] && g->seen[1]) {
        upq_bounding_box *b = &s->bbox;
        b->xmin = g->lo[0];
        b->xmax = g->hi[0];
        b->ymin = g->lo[1];
        b->ymax = g->hi[1];
        b->isset = 0x1Eu;
        if (g->seen[2]) {
            b->zmin = g->lo[2];
            b->zmax = g->hi[2];
            b->isset |= 0x60u;
        }
        if (g->seen[3]) {
            b->mmin = g->lo[3];
            b->mmax = g->hi[3];
            b->isset |= 0x180u;
        }
        s->isset |= 1u << UPQ_GEOSPATIAL_STATISTICS_BBOX;
    }
    return 1;
}

#endif
