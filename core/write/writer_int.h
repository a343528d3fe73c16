/*
 * Writer internals shared by its source files (not a public header), by
 * stage, from the sink up:
 *   out.h           the base: models, option constants, errors, the output
 *                   piece and its drain (out.c)
 *   writer_crypto.h keys, nonces, modules (writer_crypto.c)
 *   dict.h          dictionaries (dict.c)
 *   writer_page.h   the page encoder (writer_page.c)
 *   meta.h          ColumnChunk, page index, RowGroup and footer (meta.c)
 *   buffered.h      the buffered and direct layouts (buffered.c)
 * Above them: checkpoint mode (core/checkpoint/checkpoint.h), then the
 * front (core/front/front.h).
 */
#ifndef UPQ_WRITER_INT_H
#define UPQ_WRITER_INT_H

#include "out.h"
#include "writer_crypto.h"
#include "dict.h"
#include "writer_page.h"
#include "meta.h"
#include "buffered.h"

/* Writer API modes. */
enum { UPQ_WM_NONE = 0, UPQ_WM_ROWS = 1, UPQ_WM_COLUMNS = 2 };

#endif
