/*
 * CRC-32 (IEEE 802.3 / gzip polynomial, reflected 0xEDB88320), the page
 * checksum Parquet specifies. UPQ_CRC32_TABLE picks the scalar form:
 * 8 slices eight bytes a step through eight 1 KB tables (the hosts'
 * default: pages are checksummed on every write and read, and this is about
 * four times the byte-wise speed), 4 four bytes through four tables (for
 * 32-bit boards with flash to spare), 1 a word a step through one 1 KB
 * table (the 32-bit default), 0 bitwise (no table, for the smallest
 * flash). AArch64 builds with the CRC32 instructions and x86-64 CPUs with
 * PCLMULQDQ use those instead (port/upq_simd.h; the table finishes the x86
 * kernels' last bytes), and a board's CRC unit through the port when
 * UPQ_CRC32_PORT is on (upq_port.h).
 *
 * crc32_tab8.h was generated with
 *   t[0][n] = bitwise CRC step of n, eight times;
 *   t[k][n] = (t[k-1][n] >> 8) ^ t[0][t[k-1][n] & 0xFF].
 */
#include "crc32.h"
#include "upq_simd.h"
#include "upq_port.h"

#if UPQ_CRC32_TABLE == 8 || UPQ_CRC32_TABLE == 4
#include "crc32_tab8.h"
#define crc_table crc_tab8[0]
#elif UPQ_CRC32_TABLE
/* Built at compile time would need a generator; a const table keeps it in flash. */
#define R(c) (((c) & 1u) ? 0xEDB88320u ^ ((c) >> 1) : (c) >> 1)
#define R8(c) R(R(R(R(R(R(R(R(c))))))))
#define T4(n) R8(n), R8((n) + 1u), R8((n) + 2u), R8((n) + 3u)
#define T16(n) T4(n), T4((n) + 4u), T4((n) + 8u), T4((n) + 12u)
#define T64(n) T16(n), T16((n) + 16u), T16((n) + 32u), T16((n) + 48u)
static const uint32_t crc_table[256] = {T64(0u), T64(64u), T64(128u), T64(192u)};
#endif

#if UPQ_CRC32_TABLE == 1
/* The CRC state after the four bytes XORed into w's low end. */
UPQ_INLINE uint32_t crc_word(uint32_t w)
{
    w = crc_table[w & 0xFFu] ^ (w >> 8);
    w = crc_table[w & 0xFFu] ^ (w >> 8);
    w = crc_table[w & 0xFFu] ^ (w >> 8);
    return crc_table[w & 0xFFu] ^ (w >> 8);
}
#endif

uint32_t upq_crc32_update_scalar(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    crc = ~crc;
#if UPQ_CRC32_TABLE == 8
    /* Bytes are combined by shifts, so big-endian targets get the same
     * words; little-endian compilers turn each group into one load. */
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                      (uint32_t)p[7] << 24;
        crc = crc_tab8[7][lo & 0xFFu] ^ crc_tab8[6][(lo >> 8) & 0xFFu] ^
              crc_tab8[5][(lo >> 16) & 0xFFu] ^ crc_tab8[4][lo >> 24] ^
              crc_tab8[3][hi & 0xFFu] ^ crc_tab8[2][(hi >> 8) & 0xFFu] ^
              crc_tab8[1][(hi >> 16) & 0xFFu] ^ crc_tab8[0][hi >> 24];
        p += 8;
        len -= 8;
    }
#elif UPQ_CRC32_TABLE == 4
    while (len >= 4) {
        uint32_t w = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                            (uint32_t)p[3] << 24);
        crc = crc_tab8[3][w & 0xFFu] ^ crc_tab8[2][(w >> 8) & 0xFFu] ^
              crc_tab8[1][(w >> 16) & 0xFFu] ^ crc_tab8[0][w >> 24];
        p += 4;
        len -= 4;
    }
#endif
#if UPQ_CRC32_TABLE == 1
    /* A word a step through the one table: the word's next bytes are
     * already in place when the CRC shifts down, so each byte is an index,
     * a load and an XOR (3 instructions on Cortex-M4, where the byte loop
     * takes 7); four words a pass spread the loop's own cost */
    {
        /* with the flash-for-speed kernels, eight words a pass and the
         * test at its end: 3.34 instructions a byte where four words and a
         * test at both ends took 3.56 (the table's floor is 3.25) */
        const size_t block = UPQ_FAST_KERNELS ? 32u : 16u;
        const uint8_t *stop = p + (len & ~(block - 1u));
        len &= block - 1u;
        if (p != stop) {
            do {
                crc = crc_word(crc ^ upq_load_le32(p));
                crc = crc_word(crc ^ upq_load_le32(p + 4));
                crc = crc_word(crc ^ upq_load_le32(p + 8));
                crc = crc_word(crc ^ upq_load_le32(p + 12));
                if (UPQ_FAST_KERNELS) {
                    crc = crc_word(crc ^ upq_load_le32(p + 16));
                    crc = crc_word(crc ^ upq_load_le32(p + 20));
                    crc = crc_word(crc ^ upq_load_le32(p + 24));
                    crc = crc_word(crc ^ upq_load_le32(p + 28));
                }
                p += block;
            } while (p != stop);
        }
        for (; len >= 4; len -= 4, p += 4)
            crc = crc_word(crc ^ upq_load_le32(p));
    }
#endif
#if UPQ_CRC32_TABLE
    while (len--)
        crc = crc_table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
#else
    while (len--) {
        unsigned k;
        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc & 1u) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
#endif
    return ~crc;
}

uint32_t upq_crc32_update(uint32_t crc, const void *data, size_t len)
{
#if UPQ_CRC32_PORT
    return upq_port_crc32_update(crc, data, len);
#elif UPQ_CRC32_HW
    return upq_neon_crc32_update(crc, data, len);
#elif UPQ_CRC32_X86 && defined(__PCLMUL__)
    /* built for a CPU that has the carry-less multiply: no need to ask */
#if defined(__VPCLMULQDQ__) && defined(__AVX2__)
    uint8_t k = UPQ_CRC32_K_VCLMUL;
#else
    uint8_t k = UPQ_CRC32_K_CLMUL;
#endif
    return upq_crc32_update_with(&k, crc, data, len);
#else
    return upq_crc32_update_scalar(crc, data, len);
#endif
}

uint32_t upq_crc32_update_with(uint8_t *kernel, uint32_t crc, const void *data, size_t len)
{
#if UPQ_CRC32_X86
    const uint8_t *p = (const uint8_t *)data;
    if (len >= 64) {
        if (*kernel == 0)
            *kernel = (uint8_t)upq_x86_crc32_choose();
        if (*kernel != UPQ_CRC32_K_TABLE) {
            size_t n = len & ~(size_t)15;
            crc = upq_x86_crc32_blocks(*kernel, crc, p, n);
            p += n;
            len -= n;
        }
    }
    return upq_crc32_update_scalar(crc, p, len);
#else
    (void)kernel;
    return upq_crc32_update(crc, data, len);
#endif
}

uint32_t upq_crc32(const void *data, size_t len)
{
    return upq_crc32_update(0, data, len);
}
