/* CRC-32 as used by Parquet page checksums: the public declarations
 * (uparquet/checksum.h), kept under this name for the library's files. */
#ifndef UPARQUET_CRC32_H
#define UPARQUET_CRC32_H

#include "uparquet/checksum.h"

#endif
