/*
 * A growable byte string for tests that serialise what a reader gives and
 * compare the bytes (test_read, test_record, test_row_fetch).
 */
#ifndef UPQ_TEST_SBUF_H
#define UPQ_TEST_SBUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    uint8_t *p;
    size_t n, cap;
} sbuf;

static inline void sbuf_put(sbuf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 64;
        uint8_t *p = (uint8_t *)realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

#endif
