/*
 * mbedtls's libc needs, redirected for the package build only: the mbedtls
 * compile line force-includes this header (-include), so every libc name it
 * uses is renamed before any mbedtls or libc header is read. Renaming, rather
 * than a shim that defines memcpy & co., means nothing in uparquet defines a
 * libc symbol that could clash with the C library of a host program.
 */
#ifndef UPQ_MBEDTLS_DEPS_H
#define UPQ_MBEDTLS_DEPS_H

#include <stddef.h>
#include "upq_port.h"

#define memcpy upq_memcpy
#define memset upq_memset
#define memcmp upq_memcmp
#define memmove upq_memmove

/* The one allocation (see upq_mbedtls_config.h). */
#define calloc upq_mbedtls_calloc
#define free upq_mbedtls_free

/* Only mbedtls_cipher_info_from_string compares strings. */
#define strcmp upq_mbedtls_strcmp
static inline int upq_mbedtls_strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (int)(unsigned char)*a - (int)(unsigned char)*b;
}

#endif
