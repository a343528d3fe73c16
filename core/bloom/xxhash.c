/*
 * XXH64, one-shot, as the xxHash specification (0.1.1) defines it: four
 * lanes over 32-byte stripes, then the 8-, 4- and 1-byte tail, then the
 * avalanche. Input words are read little-endian whatever the host's order,
 * so hashes are the same everywhere.
 */
#include "uparquet/bloom.h"
#include "upq_port.h"

#if UPQ_WITH_BLOOM

#define P1 UINT64_C(0x9E3779B185EBCA87)
#define P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define P3 UINT64_C(0x165667B19E3779F9)
#define P4 UINT64_C(0x85EBCA77C2B2AE63)
#define P5 UINT64_C(0x27D4EB2F165667C5)

UPQ_INLINE uint64_t rotl64(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64u - r));
}

UPQ_INLINE uint64_t round64(uint64_t acc, uint64_t lane)
{
    acc += lane * P2;
    return rotl64(acc, 31) * P1;
}

UPQ_INLINE uint64_t merge64(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

uint64_t upq_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)data; /* may be NULL when len is 0 */
    size_t left = len;
    uint64_t h;

    if (left >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed,
                 v4 = seed - P1;
        do {
            v1 = round64(v1, upq_load_le64(p));
            v2 = round64(v2, upq_load_le64(p + 8));
            v3 = round64(v3, upq_load_le64(p + 16));
            v4 = round64(v4, upq_load_le64(p + 24));
            p += 32;
            left -= 32;
        } while (left >= 32);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;
    while (left >= 8) {
        h ^= round64(0, upq_load_le64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
        left -= 8;
    }
    if (left >= 4) {
        h ^= (uint64_t)upq_load_le32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
        left -= 4;
    }
    while (left != 0) {
        h ^= (uint64_t)*p * P5;
        h = rotl64(h, 11) * P1;
        p++;
        left--;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

#endif /* UPQ_WITH_BLOOM */
