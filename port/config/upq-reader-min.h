/*
 * µparquet option set `reader-min`.
 *
 * A small reader: PLAIN, dictionary and RLE pages, UNCOMPRESSED and SNAPPY,
 * no CRC, no error texts; the writer compiled out. `make size` row reader-min.
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-reader-min.h"'
 * (port/uparquet.mk: UPQ_SET=reader-min; port/cmake: -DUPQ_SET=reader-min;
 * make: UPQ_SET=reader-min).
 * It names only the options it sets otherwise than config.h; each is set
 * only when not defined already, so a -D on top of the set changes that one
 * option.
 */
#ifndef UPQ_SET_READER_MIN_H
#define UPQ_SET_READER_MIN_H

#define UPQ_SET_NAME "reader-min"

#ifndef UPQ_WITH_WRITER
#define UPQ_WITH_WRITER 0
#endif
#ifndef UPQ_WITH_ROWS
#define UPQ_WITH_ROWS 0
#endif
#ifndef UPQ_WITH_OPEN_TOTAL
#define UPQ_WITH_OPEN_TOTAL 0
#endif

/* and the bare format on a microcontroller */
#include "upq_min.h"

#endif
