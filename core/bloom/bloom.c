/*
 * The split-block bloom filter itself: block selection, the salted bit
 * masks, the hash of a typed value, and sizing.
 *
 * Words are loaded and stored little-endian in place, so the bitset is the
 * file's bytes on every host.
 */
#include "uparquet/bloom.h"
#include "upq_port.h"
#include "format/stats.h"

#if UPQ_WITH_BLOOM

static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

/* The block `hash` lands in: the top 32 bits times the block count, >> 32
 * (Ross's multiply-shift instead of a modulo). */
static uint8_t *block_of(const upq_bloom *b, uint64_t hash)
{
    uint64_t z = b->num_bytes / 32u;
    return b->bits + (size_t)(((hash >> 32) * z) >> 32) * 32u;
}

void upq_bloom_insert(upq_bloom *b, uint64_t hash)
{
    uint8_t *blk = block_of(b, hash);
    uint32_t x = (uint32_t)hash;
    unsigned k;
    for (k = 0; k < 8; k++) {
        uint32_t bit = (uint32_t)(x * salt[k]) >> 27;
        upq_store_le32(blk + 4u * k, upq_load_le32(blk + 4u * k) | (1u << bit));
    }
}

int upq_bloom_check(const upq_bloom *b, uint64_t hash)
{
    const uint8_t *blk = block_of(b, hash);
    uint32_t x = (uint32_t)hash;
    unsigned k;
    for (k = 0; k < 8; k++) {
        uint32_t bit = (uint32_t)(x * salt[k]) >> 27;
        if (!((upq_load_le32(blk + 4u * k) >> bit) & 1u))
            return 0;
    }
    return 1;
}

upq_status upq_bloom_hash_value(int32_t physical_type, int32_t type_length, const void *value,
                                uint64_t *hash)
{
    uint8_t tmp[12];
    const uint8_t *p;
    size_t len;
    upq_bytes b;
    if (!value || physical_type == UPQ_TYPE_BOOLEAN)
        return UPQ_ERR_INVAL; /* BOOLEAN has no filter in the format */
    len = upq_plain_value(physical_type, value, tmp, &p);
    if (len) {
        *hash = upq_xxh64(p, len, 0);
        return UPQ_OK;
    }
    if (physical_type != UPQ_TYPE_BYTE_ARRAY && physical_type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return UPQ_ERR_INVAL;
    upq_memcpy(&b, value, sizeof b);
    if (b.len && !b.ptr)
        return UPQ_ERR_INVAL;
    if (physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && type_length > 0 &&
        b.len != (uint32_t)type_length)
        return UPQ_ERR_INVAL;
    *hash = upq_xxh64(b.ptr, b.len, 0);
    return UPQ_OK;
}

/* ---- sizing ---------------------------------------------------------------- */

/* Blocks loaded more heavily than this answer "maybe" almost always (0.86
 * at this load): such sizes are never the answer, and exp stays in range. */
#define MAX_LOAD 128.0

/* e^-x for 0 <= x <= MAX_LOAD, without libm: (e^(-x/256))^256, the inner
 * power from its Taylor series (|x/256| <= 0.5 converges in 20 terms). */
static double exp_neg(double x)
{
    double y = -x / 256.0, term = 1.0, sum = 1.0;
    int k;
    for (k = 1; k < 20; k++) {
        term *= y / (double)k;
        sum += term;
    }
    for (k = 0; k < 8; k++)
        sum *= sum;
    return sum;
}

/* P(maybe) of a block whose load is Poisson with mean `lam`. The sum stops
 * at 2 lam + 64 values, past which the Poisson tail is negligible. */
static double block_fpp(double lam)
{
    double p = exp_neg(lam), miss = 1.0, sum = 0.0;
    uint32_t k, kmax = (uint32_t)(2.0 * lam) + 64u;
    for (k = 0; k <= kmax; k++) {
        double q = 1.0 - miss;
        q *= q;
        q *= q;
        q *= q;
        sum += p * q;
        miss *= 31.0 / 32.0;
        p *= lam / (double)(k + 1u);
    }
    return sum;
}

double upq_bloom_fpp(uint64_t ndv, uint32_t num_bytes)
{
    uint32_t z = num_bytes / 32u;
    double lam;
    if (z == 0)
        return 1.0;
    lam = (double)ndv / (double)z;
    return lam > MAX_LOAD ? 1.0 : block_fpp(lam);
}

uint32_t upq_bloom_size(uint64_t ndv, double fpp, uint32_t max_bytes)
{
    uint32_t cap = max_bytes ? max_bytes : UPQ_BLOOM_MAX_BYTES, bytes;
    if (!(fpp > 0.0 && fpp < 1.0)) /* NaN too */
        return 0;
    if (cap > UPQ_BLOOM_MAX_BYTES)
        cap = UPQ_BLOOM_MAX_BYTES;
    while (cap & (cap - 1u))
        cap &= cap - 1u; /* down to a power of two */
    if (cap < UPQ_BLOOM_MIN_BYTES)
        cap = UPQ_BLOOM_MIN_BYTES;
    for (bytes = UPQ_BLOOM_MIN_BYTES; bytes < cap; bytes <<= 1)
        if (upq_bloom_fpp(ndv, bytes) <= fpp)
            break;
    return bytes;
}

#endif /* UPQ_WITH_BLOOM */
