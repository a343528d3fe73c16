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
/* it logs: checkpoint mode is the writer's only mode */
#ifndef UPQ_WITH_BUFFERED
#define UPQ_WITH_BUFFERED 0
#endif
#ifndef UPQ_WITH_DIRECT
#define UPQ_WITH_DIRECT 0
#endif

/* and what every set for a microcontroller leaves out */
#include "upq_small.h"

#endif
