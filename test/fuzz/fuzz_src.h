/*
 * The in-memory read callback of the fuzz targets that check resumability:
 * with `chunk` set, every other call says "again" and the others return at
 * most `chunk` bytes, so a read resumes at every point.
 */
#ifndef FUZZ_SRC_H
#define FUZZ_SRC_H

#include <stdint.h>
#include <string.h>

#include "uparquet/reader.h"

typedef struct src {
    const uint8_t *data;
    size_t size;
    size_t chunk; /* 0: whole reads */
    unsigned calls;
} src;

static upq_status src_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    src *s = (src *)ctx;
    s->calls++;
    if (s->chunk && (s->calls & 1u))
        return UPQ_AGAIN;
    if (off >= s->size) {
        *got = 0;
        return UPQ_OK;
    }
    if (len > s->size - off)
        len = (size_t)(s->size - off);
    if (s->chunk && len > s->chunk)
        len = s->chunk;
    memcpy(buf, s->data + off, len);
    *got = len;
    return UPQ_OK;
}

#endif
