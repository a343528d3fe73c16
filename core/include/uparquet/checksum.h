/*
 * CRC-32 (IEEE 802.3, reflected: Parquet's page checksums, gzip's and
 * zlib's crc32), for adapters and callers that frame their own records:
 * the library's own CRC, with its word-wise loop and, where the build sets
 * UPQ_CRC32_PORT, the board's CRC unit.
 */
#ifndef UPARQUET_CHECKSUM_H
#define UPARQUET_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC of data[0..len). upq_crc32_update(crc, ...) continues a running CRC
 * (start from 0): crc32(a+b) == update(crc32(a), b). Both read only
 * data[0..len) and keep no state. */
uint32_t upq_crc32(const void *data, size_t len);
uint32_t upq_crc32_update(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
