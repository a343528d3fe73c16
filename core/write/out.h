/*
 * The writer's base, below every stage (core/write/out.c): the Thrift
 * models the stages fill, the options as constants where the build leaves
 * them out, errors, and the output piece with its drain to the sink.
 *
 * Output is pulled, never pumped upward: a stage sets the next piece
 * (upq_w_src, or a layout's own positioned pieces), the driver at the top
 * (upq_w_pump, writer.c) drains it to the sink and asks the running job
 * for the next. Nothing here calls a stage above it.
 */
#ifndef UPQ_WRITE_OUT_H
#define UPQ_WRITE_OUT_H

#include "uparquet/writer.h"
#include "uparquet/reader.h"
#include "encode/encode.h"
#include "common/crc32.h"
#include "format/meta_desc.h"
#include "uparquet/bloom.h"
#include "uparquet/crypto.h"
#include "upq_codec.h"
#include "upq_port.h"
#include "format/stats.h"
#include "common/upq_internal.h"

/* Distinct encodings one column chunk can use: levels (RLE), dictionary
 * data and dictionary page, and the column's other encoding. */
#define UPQ_COUNTOF_ENCS 4u

/* Thrift models the writer fills and encodes, kept in the arena so the
 * writer struct itself stays small enough for a task stack. */
typedef struct upq_wmodels {
    upq_page_header ph;
    upq_column_chunk cc;
    upq_column_index ci;
    upq_offset_index oi;
    upq_bloom_filter_header bf;
    upq_row_group rgt;       /* checkpoint mode: the FILE record's template row group */
    upq_tenc tenc;
    int32_t encs[UPQ_COUNTOF_ENCS];
    upq_page_encoding_stats es[3];
    upq_minmax pst;          /* one page's bounds when there is no page index */
} upq_wmodels;

#define UPQ_W_MODELS(w) ((upq_wmodels *)(void *)(w)->models)

UPQ_INLINE size_t upq_w_align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Records an error; final ones (every status but input errors) stick. The
 * text goes through UPQ_MSG: "" in a UPQ_NO_ERRSTR build. */
#if UPQ_NO_ERRSTR
/* No text to pass: one argument less at each of the many call sites. */
#define UPQ_W_WHAT_PARAM
#define UPQ_W_WHAT(text)
#define UPQ_W_WHAT_VALUE ""
#else
#define UPQ_W_WHAT_PARAM , const char *what
#define UPQ_W_WHAT(text) , (text)
#define UPQ_W_WHAT_VALUE what
#endif
/* Failure paths stay calls (UPQ_NOINLINE): inlined, each site would carry the stores. */
UPQ_NOINLINE upq_status upq_w_fail_(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM);
#define upq_w_fail(w, st, column, what) upq_w_fail_(w, st, column UPQ_W_WHAT(what))
/* An input error: reported, but the writer stays usable (nothing was taken). */
UPQ_NOINLINE upq_status upq_w_refuse_(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM);
#define upq_w_refuse(w, st, column, what) upq_w_refuse_(w, st, column UPQ_W_WHAT(what))

/* Loops over a run of levels or values at once where a level is a row
 * (columns without repetition): not in size-optimised builds, where the
 * row-by-row paths, which stay for the general case, are all there is
 * (Cortex-M flash is worth more). */
#ifdef __OPTIMIZE_SIZE__
#define UPQ_W_FAST 0
#else
#define UPQ_W_FAST 1
#endif

/* Room one encrypted module adds around its plaintext (GCM; CTR needs less). */
#define UPQ_W_CRYPTO_OVER ((size_t)UPQ_CRYPTO_GCM_OVERHEAD)

/* The options' tests, on the options (`o`: a upq_writer_opts pointer, as
 * setup holds them) and on the writer (UPQ_W_*, over its copy): each a
 * constant where the build leaves the option out, so that the compiler
 * leaves those paths out of it. */
#define UPQ_O_ENCRYPTING(o) (UPQ_WITH_CRYPTO && (o)->encrypt)
#define UPQ_O_NO_PI(o) (!UPQ_WITH_PAGE_INDEX || (o)->no_page_index)
#define UPQ_O_DIRECT(o) (UPQ_WITH_DIRECT && (o)->direct)
#define UPQ_O_COMPRESSING(o) (UPQ_W_CAN_COMPRESS && (o)->codec != UPQ_CODEC_UNCOMPRESSED)
#define UPQ_O_V2(o) (UPQ_WITH_DATA_PAGE_V2 && (o)->data_page_v2)

/* The writer's encryption state, a column's key, a column's bloom filter
 * bytes: constant null or 0 in a build without the option. */
#define UPQ_W_WC(w) (UPQ_WITH_CRYPTO ? (w)->wc : (struct upq_wcrypto *)0)
#define UPQ_W_ENCRYPTING(w) UPQ_O_ENCRYPTING(&(w)->o)
#define UPQ_W_KEY(c) (UPQ_WITH_CRYPTO ? (c)->key : (upq_wkey *)0)
#define UPQ_W_BLOOM(c) (UPQ_WITH_BLOOM ? (c)->bloom_bytes : 0u)
/* Data pages the column's page index holds (0: no page index), and whether
 * the writer writes one: constants without UPQ_WITH_PAGE_INDEX, so that the
 * index code goes. */
#define UPQ_W_PI_PAGES(c) (UPQ_WITH_PAGE_INDEX ? (c)->max_pages : 0u)
#define UPQ_W_NO_PI(w) UPQ_O_NO_PI(&(w)->o)
/* Direct mode: a constant 0 without UPQ_WITH_DIRECT (configure refuses it). */
#define UPQ_W_DIRECT(w) UPQ_O_DIRECT(&(w)->o)
/* Pages and dictionaries compressed: a constant 0 in a build without a
 * codec that compresses (configure refuses the others). */
#define UPQ_W_CAN_COMPRESS (UPQ_WITH_SNAPPY || UPQ_WITH_LZ4 || UPQ_WITH_GZIP)
#define UPQ_W_COMPRESSING(w) UPQ_O_COMPRESSING(&(w)->o)
/* Page and chunk statistics: a constant 0 without UPQ_WITH_STATISTICS. */
#define UPQ_W_STATS(w) (UPQ_WITH_STATISTICS && !(w)->o.no_statistics)
/* Sorting columns declared: a constant 0 without UPQ_WITH_SORTING
 * (configure refuses them). */
#define UPQ_O_NSORT(o) (UPQ_WITH_SORTING ? (o)->nsorting : 0u)
/* Row groups ended by their bytes: a constant 0 without UPQ_WITH_RG_BYTES
 * (configure refuses row_group_bytes). */
#define UPQ_W_RG_BYTES(w) (UPQ_WITH_RG_BYTES ? (w)->o.row_group_bytes : 0u)
/* DATA_PAGE_V2 pages: a constant 0 without UPQ_WITH_DATA_PAGE_V2. */
#define UPQ_W_V2(w) UPQ_O_V2(&(w)->o)

/* Pieces go to file offsets (checkpoint mode: the sink's write_at), not
 * appended. */
/* (UPQ_WITH_BUFFERED 0: checkpoint mode is the only mode there is, and
 * the other modes' paths go) */
#define UPQ_W_AT(w) (UPQ_WITH_CHECKPOINT && (!UPQ_WITH_BUFFERED || (w)->jr != (struct upq_wjournal *)0))

/* The next piece of output: n bytes at p, written where the previous piece
 * ended. */
UPQ_NOINLINE void upq_w_src(upq_writer *w, const uint8_t *p, size_t n);

/* Writes what is left of the current piece to the sink: UPQ_OK when none
 * is left, UPQ_AGAIN (the sink would block), or UPQ_ERR_IO (final). Pieces
 * at offsets raise *far (NULL: none) to the farthest byte written. Inline:
 * the driver (upq_w_pump) is its one caller. */
UPQ_INLINE upq_status upq_w_drain(upq_writer *w, uint64_t *far)
{
    while (w->src_pos < w->src_len) {
        size_t n = 0, left = w->src_len - w->src_pos;
        upq_status st;
        if (UPQ_W_AT(w))
            st = w->sink.write_at(w->sink.ctx, w->dst + w->src_pos, w->src + w->src_pos, left, &n);
        else
            st = w->sink.write(w->sink.ctx, w->src + w->src_pos, left, &n);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK || n == 0 || n > left) {
            upq_w_fail(w, UPQ_ERR_IO, -1, "write failed");
            w->err.offset = w->file_pos;
            return UPQ_ERR_IO;
        }
        w->src_pos += n;
        if (UPQ_W_AT(w)) {
            w->file_pos = w->dst + w->src_pos;
            if (far && w->file_pos > *far)
                *far = w->file_pos;
        } else {
            w->file_pos += n;
        }
    }
    return UPQ_OK;
}

/* Syncs the sink when it can: UPQ_OK (also without a sync callback),
 * UPQ_AGAIN, or the writer's failure. */
upq_status upq_w_sync(upq_writer *w);

#endif
