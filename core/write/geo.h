/*
 * Geospatial statistics for the writer (internal): a chunk's bounding box and
 * WKB type codes, gathered from its GEOMETRY / GEOGRAPHY values (core/write/geo.c).
 */
#ifndef UPQ_GEO_H
#define UPQ_GEO_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/meta.h"

/* collection levels a WKB value may nest (GeometryCollection in
 * GeometryCollection ...); deeper values give the chunk no statistics */
#define UPQ_GEO_MAX_DEPTH 16

typedef struct upq_geo_acc {
    double lo[4], hi[4];  /* x, y, z, m */
    uint32_t types;       /* bit dim * 8 + base: the WKB codes seen (dim 0..3, base 1..7) */
    int32_t codes[28];    /* the list geospatial_statistics points to */
    uint8_t seen[4];      /* a coordinate on that axis */
    uint8_t any;          /* a value read */
    uint8_t bad;          /* a value that is not WKB: no statistics */
    uint32_t col;         /* the leaf column (the writer's list) */
    struct upq_geo_acc *next;
} upq_geo_acc;

void upq_geo_reset(upq_geo_acc *g);
/* The accumulator of column col in the writer's list, or NULL. */
upq_geo_acc *upq_geo_find(upq_geo_acc *list, uint32_t col);
/* Widens g by one WKB value of n bytes (or marks it bad). */
void upq_geo_add(upq_geo_acc *g, const uint8_t *wkb, size_t n);
/* Each of nv PLAIN BYTE_ARRAY values (4-byte length, bytes) in vals[0..bytes). */
void upq_geo_page(upq_geo_acc *g, const uint8_t *vals, size_t nv, size_t bytes);
/* Fills s from g: 1, or 0 when the chunk gets none (a bad or no value). s
 * points into g (its type list). */
int upq_geo_stats(upq_geo_acc *g, upq_geospatial_statistics *s);

#endif
