/*
 * libFuzzer target: the SNAPPY decoder (codecs/upq_snappy.c), whose word
 * loop copies up to a word past each element while it has room.
 *
 * The first byte picks the mode. Mode 0: the rest is a compressed stream,
 * decoded into a buffer of exactly the size its preamble states (at most
 * 1 MiB), and of that size plus one and minus one; each result must equal a
 * byte-at-a-time decoder's written from the format description (the same
 * status, and on success the same bytes). Mode 1: the rest is plain data,
 * compressed and decoded back, which must give it exactly. Buffers are heap
 * blocks of exactly their size, so ASan sees any access past them.
 *
 * Seeds: make_seeds.sh snappy. Build and run: make fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upq_codec.h"

#define MAX_OUT (1u << 20)

static upq_status ref_dec(const uint8_t *s, size_t n, uint8_t *out, size_t outlen)
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

static void decode_both(const uint8_t *s, size_t n, size_t outlen)
{
    uint8_t *a = (uint8_t *)malloc(outlen ? outlen : 1), *r = (uint8_t *)malloc(outlen ? outlen : 1);
    upq_status st = upq_snappy_decompress(s, n, a, outlen), rs = ref_dec(s, n, r, outlen);
    if (st != rs || (st == UPQ_OK && memcmp(a, r, outlen) != 0))
        abort();
    free(a);
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *in;
    if (size < 1)
        return 0;
    in = (uint8_t *)malloc(size - 1 ? size - 1 : 1);
    memcpy(in, data + 1, size - 1);
    if ((data[0] & 1) == 0) {
        size_t ulen = 0, i = 0;
        unsigned sh = 0;
        while (i < size - 1 && sh < 35) {
            ulen |= (size_t)(in[i] & 0x7F) << sh;
            sh += 7;
            if (!(in[i++] & 0x80))
                break;
        }
        if (ulen <= MAX_OUT) {
            decode_both(in, size - 1, ulen);
            decode_both(in, size - 1, ulen + 1);
            if (ulen)
                decode_both(in, size - 1, ulen - 1);
        }
    } else {
        static uint64_t arena_mem[(64u << 10) / 8];
        upq_arena a;
        size_t n = size - 1, cap = upq_snappy_bound(n), len = 0;
        uint8_t *c = (uint8_t *)malloc(cap), *d = (uint8_t *)malloc(n ? n : 1);
        upq_arena_init(&a, arena_mem, sizeof arena_mem);
        if (upq_snappy_compress(in, n, c, cap, &len, &a) != UPQ_OK || len > cap)
            abort();
        {
            uint8_t *cc = (uint8_t *)malloc(len ? len : 1); /* exactly its size */
            memcpy(cc, c, len);
            if (upq_snappy_decompress(cc, len, d, n) != UPQ_OK || memcmp(d, in, n) != 0)
                abort();
            free(cc);
        }
        free(c);
        free(d);
    }
    free(in);
    return 0;
}
