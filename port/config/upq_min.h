/*
 * The bare format on a microcontroller (reader-min and writer-min include it
 * after their own options): upq_small.h, and no page index, statistics, DELTA or
 * BYTE_STREAM_SPLIT encodings, checkpoints, CRCs or word-wise memory moves.
 * Each is set only when not defined already, as in a set.
 */
#ifndef UPQ_SET_MIN_H
#define UPQ_SET_MIN_H

#ifndef UPQ_WITH_PAGE_INDEX
#define UPQ_WITH_PAGE_INDEX 0
#endif
#ifndef UPQ_WITH_STATISTICS
#define UPQ_WITH_STATISTICS 0
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
#ifndef UPQ_WITH_CRC
#define UPQ_WITH_CRC 0
#endif
#ifndef UPQ_MEM_WORDS
#define UPQ_MEM_WORDS 0
#endif

#include "upq_small.h"

#endif
