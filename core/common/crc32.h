/* CRC-32 as used by Parquet page checksums (same as gzip/zlib's crc32). */
#ifndef UPARQUET_CRC32_H
#define UPARQUET_CRC32_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC of data[0..len). upq_crc32_update(crc, ...) continues a running CRC
 * (start from 0): crc32(a+b) == update(crc32(a), b). */
uint32_t upq_crc32(const void *data, size_t len);
uint32_t upq_crc32_update(uint32_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
