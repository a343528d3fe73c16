/*
 * µparquet option set `writer-min`.
 *
 * A small writer: PLAIN, dictionary and RLE pages, UNCOMPRESSED, no CRC,
 * statistics, page index or DATA_PAGE_V2 written, no error texts (the reader
 * stays in: its code goes unless called). `make size` row writer-min.
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
#ifndef UPQ_WITH_BLOOM
#define UPQ_WITH_BLOOM 0
#endif
#ifndef UPQ_WITH_VARIANT
#define UPQ_WITH_VARIANT 0
#endif
#ifndef UPQ_WITH_PAGE_INDEX
#define UPQ_WITH_PAGE_INDEX 0
#endif
#ifndef UPQ_WITH_PREDICATE
#define UPQ_WITH_PREDICATE 0
#endif
#ifndef UPQ_WITH_DATA_PAGE_V2
#define UPQ_WITH_DATA_PAGE_V2 0
#endif
#ifndef UPQ_WITH_STATISTICS
#define UPQ_WITH_STATISTICS 0
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 0
#endif
#ifndef UPQ_WITH_DELTA
#define UPQ_WITH_DELTA 0
#endif
#ifndef UPQ_WITH_CHECKPOINT
#define UPQ_WITH_CHECKPOINT 0
#endif
#ifndef UPQ_WITH_BSS
#define UPQ_WITH_BSS 0
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
#ifndef UPQ_WITH_RUNS
#define UPQ_WITH_RUNS 0
#endif
#ifndef UPQ_WITH_CRC
#define UPQ_WITH_CRC 0
#endif
#ifndef UPQ_WITH_LAZY_ROW_GROUPS
#define UPQ_WITH_LAZY_ROW_GROUPS 0
#endif
#ifndef UPQ_MEM_WORDS
#define UPQ_MEM_WORDS 0
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
