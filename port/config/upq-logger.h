/*
 * µparquet option set `logger`.
 *
 * A data logger on a microcontroller (examples/sensor_logger): the writer in
 * checkpoint mode with recovery, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT and
 * dictionary pages, page CRCs (recovery keeps only pages whose CRC holds; the
 * bitwise CRC saves the 1 KB table at a logger's rates), statistics and the
 * page index (readers prune the log by time); no compression package,
 * encryption, bloom filters, Variant or error texts. `make size` row logger.
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-logger.h"'
 * (port/uparquet.mk: UPQ_SET=logger; port/cmake: -DUPQ_SET=logger;
 * make: UPQ_SET=logger). Each option is set only when not defined already,
 * so a -D on top of the set changes that one option. Options the set does
 * not name keep config.h's defaults (limits, NEON from the target).
 */
#ifndef UPQ_SET_LOGGER_H
#define UPQ_SET_LOGGER_H

#define UPQ_SET_NAME "logger"

#ifndef UPQ_WITH_READER
#define UPQ_WITH_READER 1
#endif
#ifndef UPQ_WITH_WRITER
#define UPQ_WITH_WRITER 1
#endif
#ifndef UPQ_WITH_SNAPPY
#define UPQ_WITH_SNAPPY 0
#endif
#ifndef UPQ_WITH_LZ4
#define UPQ_WITH_LZ4 0
#endif
#ifndef UPQ_WITH_ZSTD
#define UPQ_WITH_ZSTD 0
#endif
#ifndef UPQ_WITH_GZIP
#define UPQ_WITH_GZIP 0
#endif
#ifndef UPQ_WITH_LIBDEFLATE
#define UPQ_WITH_LIBDEFLATE 0
#endif
#ifndef UPQ_WITH_BROTLI
#define UPQ_WITH_BROTLI 0
#endif
#ifndef UPQ_WITH_CRYPTO
#define UPQ_WITH_CRYPTO 0
#endif
#ifndef UPQ_WITH_BLOOM
#define UPQ_WITH_BLOOM 0
#endif
#ifndef UPQ_WITH_VARIANT
#define UPQ_WITH_VARIANT 0
#endif
#ifndef UPQ_WITH_CHECKPOINT
#define UPQ_WITH_CHECKPOINT 1
#endif
#ifndef UPQ_WITH_LAZY_ROW_GROUPS
#define UPQ_WITH_LAZY_ROW_GROUPS 0
#endif
#ifndef UPQ_WITH_DELTA
#define UPQ_WITH_DELTA 1
#endif
#ifndef UPQ_WITH_BSS
#define UPQ_WITH_BSS 1
#endif
#ifndef UPQ_WITH_LEND
#define UPQ_WITH_LEND 0
#endif
#ifndef UPQ_WITH_FLAT_ROWS
#define UPQ_WITH_FLAT_ROWS 0
#endif
#ifndef UPQ_WITH_DICT_INDEX
#define UPQ_WITH_DICT_INDEX 0
#endif
#ifndef UPQ_WITH_CRC
#define UPQ_WITH_CRC 1
#endif
#ifndef UPQ_CRC32_TABLE
#define UPQ_CRC32_TABLE 0
#endif
#ifndef UPQ_MEM_WORDS
#define UPQ_MEM_WORDS 1
#endif
#ifndef UPQ_WITH_PAGE_INDEX
#define UPQ_WITH_PAGE_INDEX 1
#endif
#ifndef UPQ_WITH_PREDICATE
#define UPQ_WITH_PREDICATE 0
#endif
#ifndef UPQ_WITH_DATA_PAGE_V2
#define UPQ_WITH_DATA_PAGE_V2 0
#endif
#ifndef UPQ_WITH_STATISTICS
#define UPQ_WITH_STATISTICS 1
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 0
#endif
#ifndef UPQ_NO_ERRSTR
#define UPQ_NO_ERRSTR 1
#endif

#endif
