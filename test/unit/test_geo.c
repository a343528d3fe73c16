/*
 * Geospatial statistics from WKB (core/write/geo.c): bounding boxes and type codes
 * of known values, and hostile values (short, counts beyond their bytes,
 * collections nested past the limit, random bytes) that must mark the chunk
 * and never read outside the value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/check.h"
#include "write/geo.h"

static size_t put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return 4;
}

static size_t putd(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put32(p, (uint32_t)u);
    put32(p + 4, (uint32_t)(u >> 32));
    return 8;
}

static size_t point(uint8_t *p, double x, double y)
{
    size_t k = 0;
    p[k++] = 1;
    k += put32(p + k, 1);
    k += putd(p + k, x);
    k += putd(p + k, y);
    return k;
}

/* a heap copy of exactly n bytes, so ASan sees any read past the value */
static void add_exact(upq_geo_acc *g, const uint8_t *src, size_t n)
{
    uint8_t *p = (uint8_t *)malloc(n ? n : 1);
    memcpy(p, src, n);
    upq_geo_add(g, p, n);
    free(p);
}

int main(void)
{
    uint8_t buf[4096];
    upq_geo_acc g;
    upq_geospatial_statistics s;
    size_t n, k;
    int i, d;

    tu_case("points and a LINESTRING Z: box, z range, sorted types");
    upq_geo_reset(&g);
    n = point(buf, 3, -4);
    add_exact(&g, buf, n);
    n = 0;
    buf[n++] = 1;
    n += put32(buf + n, 1002);
    n += put32(buf + n, 2);
    n += putd(buf + n, -1);
    n += putd(buf + n, 10);
    n += putd(buf + n, 7);
    n += putd(buf + n, 5);
    n += putd(buf + n, 0);
    n += putd(buf + n, -7);
    add_exact(&g, buf, n);
    TU_CHECK_INT(upq_geo_stats(&g, &s), 1);
    TU_CHECK(s.bbox.xmin == -1 && s.bbox.xmax == 5 && s.bbox.ymin == -4 && s.bbox.ymax == 10);
    TU_CHECK(s.bbox.zmin == -7 && s.bbox.zmax == 7);
    TU_CHECK_INT(s.bbox.isset, 0x7E);
    TU_CHECK_INT(s.geospatial_types.n, 2);
    TU_CHECK_INT(s.geospatial_types.v[0], 1);
    TU_CHECK_INT(s.geospatial_types.v[1], 1002);

    tu_case("an empty point (NaN) gives a type and no box");
    upq_geo_reset(&g);
    n = point(buf, 0.0 / 0.0, 0.0 / 0.0);
    add_exact(&g, buf, n);
    TU_CHECK_INT(upq_geo_stats(&g, &s), 1);
    TU_CHECK_INT(s.isset, 1u << UPQ_GEOSPATIAL_STATISTICS_GEOSPATIAL_TYPES);

    tu_case("collections nested to the limit and one past it");
    for (d = UPQ_GEO_MAX_DEPTH - 2; d <= UPQ_GEO_MAX_DEPTH; d++) {
        upq_geo_reset(&g);
        n = 0;
        for (i = 0; i < d; i++) {
            buf[n++] = 1;
            n += put32(buf + n, 7);
            n += put32(buf + n, 1);
        }
        n += point(buf + n, 1, 2);
        add_exact(&g, buf, n);
        TU_CHECK_INT(upq_geo_stats(&g, &s), d < UPQ_GEO_MAX_DEPTH ? 1 : 0);
    }

    tu_case("refused: every cut of a valid value, counts beyond the bytes, EWKB flags, a trailing byte");
    n = 0;
    buf[n++] = 1;
    n += put32(buf + n, 3);
    n += put32(buf + n, 1);
    n += put32(buf + n, 3);
    for (i = 0; i < 6; i++)
        n += putd(buf + n, i);
    for (k = 0; k < n; k++) {
        upq_geo_reset(&g);
        add_exact(&g, buf, k);
        TU_CHECK_INT(upq_geo_stats(&g, &s), 0);
    }
    upq_geo_reset(&g);
    put32(buf + 5, 0xFFFFFFFFu);
    add_exact(&g, buf, n);
    TU_CHECK_INT(upq_geo_stats(&g, &s), 0);
    upq_geo_reset(&g);
    n = point(buf, 1, 1);
    put32(buf + 1, 0x20000001u);
    add_exact(&g, buf, n);
    TU_CHECK_INT(upq_geo_stats(&g, &s), 0);
    upq_geo_reset(&g);
    n = point(buf, 1, 1);
    buf[n++] = 0;
    add_exact(&g, buf, n);
    TU_CHECK_INT(upq_geo_stats(&g, &s), 0);

    tu_case("random bytes and random mutations of valid values: no read outside");
    srand(12345);
    for (i = 0; i < 20000; i++) {
        size_t len = (size_t)(rand() % 200);
        upq_geo_reset(&g);
        if (i & 1) {
            n = 0;
            buf[n++] = 1;
            n += put32(buf + n, (uint32_t)(1 + rand() % 7) + 1000u * (uint32_t)(rand() % 4));
            while (n < len)
                buf[n++] = (uint8_t)rand();
            len = n;
        } else {
            for (k = 0; k < len; k++)
                buf[k] = (uint8_t)(rand() % 4 == 0 ? rand() : k % 5 == 0 ? 1 : 0);
        }
        add_exact(&g, buf, len);
        (void)upq_geo_stats(&g, &s);
    }
    TU_CHECK(1);
    return tu_summary();
}
