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
 * make: UPQ_SET=logger).
 * It names only the options it sets otherwise than config.h; each is set
 * only when not defined already, so a -D on top of the set changes that one
 * option.
 */
#ifndef UPQ_SET_LOGGER_H
#define UPQ_SET_LOGGER_H

#define UPQ_SET_NAME "logger"

#ifndef UPQ_WITH_SNAPPY
#define UPQ_WITH_SNAPPY 0
#endif
#ifndef UPQ_WITH_BLOOM
#define UPQ_WITH_BLOOM 0
#endif
#ifndef UPQ_WITH_VARIANT
#define UPQ_WITH_VARIANT 0
#endif
#ifndef UPQ_WITH_PREDICATE
#define UPQ_WITH_PREDICATE 0
#endif
#ifndef UPQ_WITH_DATA_PAGE_V2
#define UPQ_WITH_DATA_PAGE_V2 0
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 0
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
#ifndef UPQ_WITH_LAZY_ROW_GROUPS
#define UPQ_WITH_LAZY_ROW_GROUPS 0
#endif
#ifndef UPQ_CRC32_TABLE
#define UPQ_CRC32_TABLE 0
#endif
#ifndef UPQ_NO_ERRSTR
#define UPQ_NO_ERRSTR 1
#endif
#ifndef UPQ_FAST_KERNELS
#define UPQ_FAST_KERNELS 0
#endif

#endif
