/*
 * Semantic comparison of two Variant values, each with its own metadata:
 * the same types (a short string equals a long one), the same primitive
 * contents (floating point by bits), objects with the same keys (by text)
 * and values, arrays with the same elements. Dictionaries and layout may
 * differ.
 */
#ifndef UPQ_TEST_VARIANT_CMP_H
#define UPQ_TEST_VARIANT_CMP_H

#include <stddef.h>
#include <stdint.h>

/* 1 when equal, 0 when not (why in `why`, may be NULL), -1 when either is
 * not a valid Variant. */
int tu_variant_equal(const uint8_t *m1, size_t m1n, const uint8_t *v1, size_t v1n,
                     const uint8_t *m2, size_t m2n, const uint8_t *v2, size_t v2n, char *why,
                     size_t whylen);

/* A one-line description of a Variant (for failure messages), into buf. */
void tu_variant_describe(const uint8_t *m, size_t mn, const uint8_t *v, size_t vn, char *buf,
                         size_t len);

#endif
