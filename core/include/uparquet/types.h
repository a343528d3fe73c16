/*
 * The small types the other headers share: byte strings, the lists decoded
 * metadata holds, INT96 values, and the limits on what a file may ask for.
 */
#ifndef UPARQUET_TYPES_H
#define UPARQUET_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A byte string. Points into the arena (decoded data) or caller memory. */
typedef struct upq_bytes {
    const uint8_t *ptr;
    uint32_t len;
} upq_bytes;

/* The generic list layout every upq_*_list type shares. */
typedef struct upq_list {
    void *v;
    uint32_t n;
} upq_list;

#define UPQ_LIST_TYPE(name, T) \
    typedef struct name {      \
        T *v;                  \
        uint32_t n;            \
    } name
UPQ_LIST_TYPE(upq_bool_list, uint8_t);
UPQ_LIST_TYPE(upq_i32_list, int32_t);
UPQ_LIST_TYPE(upq_i64_list, int64_t);
UPQ_LIST_TYPE(upq_bytes_list, upq_bytes);

/* Is field id `id` present in a described struct `s` (anything with isset)? */
#define UPQ_ISSET(s, id) ((((s).isset) >> (id)) & 1u)
#define UPQ_SET(s, id) ((s).isset |= (1u << (id)))

/* An INT96 value as stored: 8 bytes nanoseconds of the day (LE), then the
 * Julian day number (4 bytes LE). */
typedef struct upq_int96 {
    uint8_t b[12];
} upq_int96;

/* Limits applied to untrusted input (defaults from config.h). */
typedef struct upq_thrift_limits {
    uint32_t max_depth;   /* <= UPQ_THRIFT_MAX_DEPTH */
    uint32_t max_list;    /* elements in one list/set/map */
    uint32_t max_binary;  /* bytes in one binary/string */
} upq_thrift_limits;

#ifdef __cplusplus
}
#endif

#endif
