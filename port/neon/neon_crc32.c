/*
 * CRC-32 with the ARMv8 CRC32 instructions (CRC32B/CRC32X: the IEEE
 * polynomial, reflected 0xEDB88320, as Parquet's page CRC and zlib; the
 * CRC32C ones are another polynomial). Twin of upq_crc32_update_scalar.
 */
#include "upq_simd.h"

#if UPQ_CRC32_HW
#include <arm_acle.h>
#include "upq_port.h"

uint32_t upq_neon_crc32_update(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    crc = ~crc;
    /* eight bytes a step; little-endian loads give the bytes in stream order */
    for (; len >= 32; len -= 32, p += 32) {
        crc = __crc32d(crc, upq_load_le64(p));
        crc = __crc32d(crc, upq_load_le64(p + 8));
        crc = __crc32d(crc, upq_load_le64(p + 16));
        crc = __crc32d(crc, upq_load_le64(p + 24));
    }
    for (; len >= 8; len -= 8, p += 8)
        crc = __crc32d(crc, upq_load_le64(p));
    while (len--)
        crc = __crc32b(crc, *p++);
    return ~crc;
}

#else
typedef int upq_neon_crc32_unused; /* an empty file is not C */
#endif
