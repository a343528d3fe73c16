/*
 * µparquet option set `writer-min`.
 *
 * A small writer: buffered mode (no direct mode), PLAIN, dictionary and RLE
 * pages, UNCOMPRESSED, no CRC, statistics, page index or DATA_PAGE_V2
 * written, row groups ended by rows and full chunk buffers (no
 * row_group_bytes), no sorting columns, no error texts (the reader stays in: its code goes unless
 * called). `make size` row writer-min.
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-writer-min.h"'
 * (port/uparquet.mk: UPQ_SET=writer-min; port/cmake: -DUPQ_SET=writer-min;
 * make: UPQ_SET=writer-min).
 * It names only the options it sets otherwise than config.h; each is set
 * only when not defined already, so a -D on top of the set changes that one
 * option.
 */
#ifndef UPQ_SET_WRITER_MIN_H
#define UPQ_SET_WRITER_MIN_H

#define UPQ_SET_NAME "writer-min"

#ifndef UPQ_WITH_SNAPPY
#define UPQ_WITH_SNAPPY 0
#endif
#ifndef UPQ_WITH_RUNS
#define UPQ_WITH_RUNS 0
#endif
#ifndef UPQ_WITH_DIRECT
#define UPQ_WITH_DIRECT 0
#endif
#ifndef UPQ_WITH_RG_BYTES
#define UPQ_WITH_RG_BYTES 0
#endif
#ifndef UPQ_WITH_SORTING
#define UPQ_WITH_SORTING 0
#endif

/* and the bare format on a microcontroller */
#include "upq_min.h"

#endif
