/* CRC-32 (IEEE, reflected 0xEDB88320; Parquet's page CRC, zlib's crc32) by
 * its definition, one bit at a time: the reference the library's table,
 * instruction and port forms are checked against. */
#ifndef UPQ_TEST_CRC_REF_H
#define UPQ_TEST_CRC_REF_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc & 1u) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

#endif
