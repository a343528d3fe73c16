/*
 * What every µparquet option set for a microcontroller leaves out (the
 * logger, reader-min and writer-min sets include it after their own
 * options): bloom filters, Variant, predicates, DATA_PAGE_V2 written, chunk
 * metadata kept, lent buffers, flat-row and dictionary-index reading, lazy
 * row groups, the CRC table, error texts and the speed kernels.
 * Each is set only when not defined already, as in a set. The packages'
 * options (UPQ_WITH_LZ4 ... UPQ_WITH_CRYPTO) stay in each set's own header:
 * port/uparquet.mk and the CMake build read them there to link the packages.
 */
#ifndef UPQ_SET_SMALL_H
#define UPQ_SET_SMALL_H

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
