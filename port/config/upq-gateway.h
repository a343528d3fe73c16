/*
 * µparquet option set `gateway`.
 *
 * An edge gateway (Cortex-A, often aarch64 with NEON) reading files any
 * writer made: every codec package, encryption, bloom filters, Variant, CRCs,
 * error texts; the writer compiled out. Needs `make deps` (the packages).
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-gateway.h"'
 * (port/uparquet.mk: UPQ_SET=gateway; port/cmake: -DUPQ_SET=gateway;
 * make: UPQ_SET=gateway). Each option is set only when not defined already,
 * so a -D on top of the set changes that one option. Options the set does
 * not name keep config.h's defaults (limits, NEON from the target).
 */
#ifndef UPQ_SET_GATEWAY_H
#define UPQ_SET_GATEWAY_H

#define UPQ_SET_NAME "gateway"

#ifndef UPQ_WITH_READER
#define UPQ_WITH_READER 1
#endif
#ifndef UPQ_WITH_WRITER
#define UPQ_WITH_WRITER 0
#endif
#ifndef UPQ_WITH_SNAPPY
#define UPQ_WITH_SNAPPY 1
#endif
#ifndef UPQ_WITH_LZ4
#define UPQ_WITH_LZ4 1
#endif
#ifndef UPQ_WITH_ZSTD
#define UPQ_WITH_ZSTD 1
#endif
#ifndef UPQ_WITH_GZIP
#define UPQ_WITH_GZIP 1
#endif
#ifndef UPQ_WITH_LIBDEFLATE
#define UPQ_WITH_LIBDEFLATE 1
#endif
#ifndef UPQ_WITH_BROTLI
#define UPQ_WITH_BROTLI 1
#endif
#ifndef UPQ_WITH_CRYPTO
#define UPQ_WITH_CRYPTO 1
#endif
#ifndef UPQ_WITH_BLOOM
#define UPQ_WITH_BLOOM 1
#endif
#ifndef UPQ_WITH_VARIANT
#define UPQ_WITH_VARIANT 1
#endif
#ifndef UPQ_WITH_CHECKPOINT
#define UPQ_WITH_CHECKPOINT 1
#endif
#ifndef UPQ_WITH_LAZY_ROW_GROUPS
#define UPQ_WITH_LAZY_ROW_GROUPS 1
#endif
#ifndef UPQ_WITH_DELTA
#define UPQ_WITH_DELTA 1
#endif
#ifndef UPQ_WITH_BSS
#define UPQ_WITH_BSS 1
#endif
#ifndef UPQ_WITH_LEND
#define UPQ_WITH_LEND 1
#endif
#ifndef UPQ_WITH_FLAT_ROWS
#define UPQ_WITH_FLAT_ROWS 1
#endif
#ifndef UPQ_WITH_DICT_INDEX
#define UPQ_WITH_DICT_INDEX 1
#endif
#ifndef UPQ_WITH_CRC
#define UPQ_WITH_CRC 1
#endif
#ifndef UPQ_CRC32_TABLE
#define UPQ_CRC32_TABLE 8
#endif
#ifndef UPQ_MEM_WORDS
#define UPQ_MEM_WORDS 1
#endif
#ifndef UPQ_WITH_PAGE_INDEX
#define UPQ_WITH_PAGE_INDEX 1
#endif
#ifndef UPQ_WITH_PREDICATE
#define UPQ_WITH_PREDICATE 1
#endif
#ifndef UPQ_WITH_DATA_PAGE_V2
#define UPQ_WITH_DATA_PAGE_V2 1
#endif
#ifndef UPQ_WITH_STATISTICS
#define UPQ_WITH_STATISTICS 1
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 0
#endif
#ifndef UPQ_NO_ERRSTR
#define UPQ_NO_ERRSTR 0
#endif

#endif
