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
#include "util/snappy_ref.h"

#define MAX_OUT (1u << 20)

static void decode_both(const uint8_t *s, size_t n, size_t outlen)
{
    uint8_t *a = (uint8_t *)malloc(outlen ? outlen : 1), *r = (uint8_t *)malloc(outlen ? outlen : 1);
    upq_status st = upq_snappy_decompress(s, n, a, outlen), rs = snappy_ref_decode(s, n, r, outlen);
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
