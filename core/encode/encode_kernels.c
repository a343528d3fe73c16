/*
 * Scalar inner loops of the encoders: LSB-first bit packing. See encode.h for
 * the contracts; like the decoders' kernels they have no state and no error
 * paths, so a SIMD twin can be dropped in and tested against them.
 */
#include "encode.h"

/*
 * `acc` holds `have` (< 32) pending bits; a value of up to 32 bits is ORed
 * in above them and whole 32-bit words are stored as they fill. A group of 8
 * values is exactly bw bytes, so the bits left after the last group are whole
 * bytes.
 */
#define PACK_PUSH(x, width)                              \
    do {                                                 \
        acc |= (uint64_t)(x) << have;                    \
        have += (width);                                 \
        if (have >= 32) {                                \
            upq_store_le32(out, (uint32_t)acc);          \
            out += 4;                                    \
            acc >>= 32;                                  \
            have -= 32;                                  \
        }                                                \
    } while (0)

#define PACK_TAIL()                  \
    do {                             \
        while (have) {               \
            *out++ = (uint8_t)acc;   \
            acc >>= 8;               \
            have -= 8;               \
        }                            \
    } while (0)

/* The one packer, for values of `size` bytes (2, 4 or 8; a constant in each
 * caller, so each gets its own loop): up to 32 bits a value in one push,
 * wider ones as their low word and then the rest, the same bits in the
 * same order. */
UPQ_INLINE void pack(const void *v, size_t size, size_t n, unsigned bw, uint8_t *out)
{
    uint64_t acc = 0;
    unsigned have = 0;
    size_t i;
    if (bw == 0)
        return;
    if (size == 4 && bw == 32) {
        for (i = 0; i < n; i++)
            upq_store_le32(out + 4 * i, ((const uint32_t *)v)[i]);
        return;
    }
    if (size < 8 || bw <= 32) {
        for (i = 0; i < n; i++)
            PACK_PUSH(size == 2   ? ((const uint16_t *)v)[i]
                      : size == 4 ? ((const uint32_t *)v)[i]
                                  : (uint32_t)((const uint64_t *)v)[i],
                      bw);
    } else {
        for (i = 0; i < n; i++) {
            uint64_t x = ((const uint64_t *)v)[i];
            PACK_PUSH((uint32_t)x, 32u);
            PACK_PUSH((uint32_t)(x >> 32), bw - 32u);
        }
    }
    PACK_TAIL();
}

void upq_pack16(const uint16_t *v, size_t n, unsigned bw, uint8_t *out)
{
    pack(v, 2, n, bw, out);
}

void upq_pack32(const uint32_t *v, size_t n, unsigned bw, uint8_t *out)
{
    pack(v, 4, n, bw, out);
}

void upq_pack64(const uint64_t *v, size_t n, unsigned bw, uint8_t *out)
{
    pack(v, 8, n, bw, out);
}

void upq_pack_bool(const uint8_t *v, size_t n, uint8_t *out)
{
    size_t i;
    unsigned k;
    for (i = 0; i + 8 <= n; i += 8) {
        unsigned b = 0;
        for (k = 0; k < 8; k++)
            b |= (unsigned)(v[i + k] != 0) << k;
        *out++ = (uint8_t)b;
    }
    if (i < n) {
        unsigned b = 0;
        for (k = 0; i + k < n; k++)
            b |= (unsigned)(v[i + k] != 0) << k;
        *out = (uint8_t)b;
    }
}
