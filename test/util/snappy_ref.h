/*
 * A SNAPPY decoder for tests, one byte at a time, written from the format
 * description: the reference test_snappy and fuzz_snappy hold the library's
 * word-copy decoder to. Decodes s[0..n) into out[0..outlen): UPQ_OK when
 * the stream states exactly outlen bytes and fills them, else
 * UPQ_ERR_CORRUPT.
 */
#ifndef UPQ_TEST_SNAPPY_REF_H
#define UPQ_TEST_SNAPPY_REF_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/status.h"

static upq_status snappy_ref_decode(const uint8_t *s, size_t n, uint8_t *out, size_t outlen)
{
    size_t i = 0, o = 0;
    uint64_t ulen = 0;
    unsigned sh = 0;
    for (;;) {
        if (i == n || sh > 28)
            return UPQ_ERR_CORRUPT;
        ulen |= (uint64_t)(s[i] & 0x7F) << sh;
        sh += 7;
        if (!(s[i++] & 0x80))
            break;
    }
    if (ulen != outlen)
        return UPQ_ERR_CORRUPT;
    while (i < n) {
        unsigned t = s[i++];
        size_t len, off = 0, nb;
        if ((t & 3) == 0) {
            len = (t >> 2) + 1;
            if (len > 60) {
                nb = len - 60;
                if (n - i < nb)
                    return UPQ_ERR_CORRUPT;
                len = 0;
                for (size_t k = 0; k < nb; k++)
                    len |= (size_t)s[i + k] << (8 * k);
                len++;
                i += nb;
            }
            if (len > n - i || len > outlen - o)
                return UPQ_ERR_CORRUPT;
            for (size_t k = 0; k < len; k++)
                out[o++] = s[i++];
            continue;
        }
        nb = (t & 3) == 1 ? 1 : (t & 3) == 2 ? 2 : 4;
        if (n - i < nb)
            return UPQ_ERR_CORRUPT;
        for (size_t k = 0; k < nb; k++)
            off |= (size_t)s[i + k] << (8 * k);
        i += nb;
        if ((t & 3) == 1) {
            len = 4 + ((t >> 2) & 7);
            off |= (size_t)(t >> 5) << 8;
        } else {
            len = (t >> 2) + 1;
        }
        if (off == 0 || off > o || len > outlen - o)
            return UPQ_ERR_CORRUPT;
        for (size_t k = 0; k < len; k++, o++)
            out[o] = out[o - off];
    }
    return o == outlen ? UPQ_OK : UPQ_ERR_CORRUPT;
}

#endif
