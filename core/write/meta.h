/*
 * The metadata the writer writes (core/write/meta.c): ColumnChunk, the page
 * index and bloom filter header models, the RowGroup generator, the
 * footer generator, and the bounds that size them.
 */
#ifndef UPQ_WRITE_META_H
#define UPQ_WRITE_META_H

#include "out.h"
#include "writer_crypto.h"
#include "writer_page.h"

/* created_by of the files written (the footer, and the journal's FILE
 * record, which recovery sizes by it) */
#define UPQ_W_CREATED_BY "uparquet version 0.1.0"

/* Upper bound of an encoded RowGroup of ncols chunks, for sizing the
 * metadata log, without what upq_w_cc_bound counts per column: SIZE_MAX on
 * overflow. */
size_t upq_w_rg_bound(uint32_t ncols, const upq_writer_opts *o);
/* A ColumnChunk's bytes at most, without what upq_w_cc_bound counts per
 * column: every field the writer may set (all but the column's own), every
 * integer at its widest varint (i32 5 bytes, i64 10), each field header one
 * byte (no field id delta over 15). test_meta checks it against the
 * encoder. */
#define UPQ_W_CC_I32 (1u + 5u) /* a field: header, varint */
#define UPQ_W_CC_I64 (1u + 10u)
#define UPQ_W_CC_MD                                                               \
    (2u                                      /* type, one-byte code */            \
     + 2u + UPQ_COUNTOF_ENCS * 5u            /* encodings */                      \
     + 2u                                    /* path_in_schema, empty */          \
     + UPQ_W_CC_I32                          /* codec */                          \
     + 5u * UPQ_W_CC_I64                     /* values, sizes, page offsets */    \
     + 1u + 2u * UPQ_W_CC_I64 + 1u           /* statistics: null and NaN counts */\
     + 2u + 3u * (3u * UPQ_W_CC_I32 + 1u)    /* encoding_stats, three */          \
     + 1u + UPQ_W_CC_I64 + 1u                /* size_statistics' byte count */    \
     + 1u)                                   /* STOP */
#define UPQ_W_CC_WORST                                                            \
    (3u * UPQ_W_CC_I64 + 2u * UPQ_W_CC_I32   /* file_offset, the page index's */  \
     + 1u + UPQ_W_CC_MD + 1u)                /* meta_data, STOP */

/* Column c's own part of its ColumnChunk's bound: path_len path elements of
 * path_bytes encoded bytes (the sum of upq_w_path_bytes of their lengths). */
size_t upq_w_cc_bound(const upq_wcol *c, uint32_t path_len, size_t path_bytes);
/* Bytes column `col`'s chunk key-value metadata (upq_column_opts.kv) takes in
 * its ColumnMetaData at most, field header included; 0 without any. */
#if UPQ_WITH_CHUNK_META
size_t upq_w_kv_bound(const upq_writer_opts *o, uint32_t col);
#else
#define upq_w_kv_bound(o, col) ((void)(o), (void)(col), (size_t)0)
#endif
/* A GEOMETRY / GEOGRAPHY leaf, whose chunks get geospatial statistics. */
#define UPQ_W_IS_GEO(e)                                                     \
    (UPQ_WITH_CHUNK_META && UPQ_ISSET(*(e), UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && \
     ((e)->logical_type.isset & ((1u << UPQ_LOGICAL_TYPE_GEOMETRY) | (1u << UPQ_LOGICAL_TYPE_GEOGRAPHY))))
/* bytes of a chunk's geospatial_statistics at most: its header, the bounding
 * box's eight doubles, the 28 type codes, the STOPs */
#define UPQ_W_GEO_BOUND 192u

/* Encoded bytes of one path element of len bytes. */
size_t upq_w_path_bytes(size_t len);

/* The footer generator's first stage for an encrypted footer (its
 * FileCryptoMetaData). */
#define UPQ_W_FOOTER_SEALED 17

/* The footer is a "PARE" one (encrypted), or a signed plaintext one. */
UPQ_INLINE int upq_w_enc_footer(const upq_writer *w)
{
    return UPQ_W_WC(w) && !w->o.encrypt->plaintext_footer;
}

UPQ_INLINE int upq_w_signed_footer(const upq_writer *w)
{
    return UPQ_W_WC(w) && w->o.encrypt->plaintext_footer;
}

/* The models of column c's ColumnIndex, OffsetIndex and bloom filter
 * header (UPQ_W_MODELS(w)->ci, oi, bf). */
void upq_w_build_ci(upq_writer *w, const upq_wcol *c);
void upq_w_build_bf(upq_writer *w, const upq_wcol *c);
UPQ_INLINE void upq_w_build_oi(upq_writer *w, const upq_wcol *c)
{
    upq_offset_index *oi = &UPQ_W_MODELS(w)->oi;
    upq_memset(oi, 0, sizeof *oi);
    oi->isset = 1u << UPQ_OFFSET_INDEX_PAGE_LOCATIONS;
    oi->page_locations.v = c->locs;
    oi->page_locations.n = c->npages;
}

/* Runs the Thrift encoder on `obj` into the window (starting it first) and
 * sets what it made as the next piece; *done once the struct is complete.
 * UPQ_OK, or a final error. */
upq_status upq_w_tenc_piece(upq_writer *w, const upq_tstruct *d, const void *obj, int *done);

/* The RowGroup generator over w->cols (start, then pieces into out:
 * UPQ_OK when complete, UPQ_AGAIN when out is full; out NULL: counts). */
#define UPQ_W_RG_FIRST 0
UPQ_INLINE void upq_w_rg_gen_reset(upq_writer *w)
{
    w->rstage = UPQ_W_RG_FIRST;
    w->lit_len = w->lit_pos = 0;
    w->tenc_on = 0;
}
void upq_w_rg_gen_start(upq_writer *w);
upq_status upq_w_rg_gen(upq_writer *w, uint8_t *out, size_t cap, size_t *produced);

/* Where a footer's row groups come from when they are not the RAM log of
 * the buffered layout (checkpoint mode: the finisher describes each again
 * from the file): called with start 1 before the first (UPQ_OK or an
 * error), then for each next piece (UPQ_OK: a piece is set), UPQ_DONE after
 * the last, UPQ_AGAIN, or an error. */
typedef upq_status (*upq_w_rgs_fn)(upq_writer *w, int start);

/* The footer generator: begin (tmpl: the FILE record's FileMetaData, no
 * row groups), then each piece (UPQ_OK: a piece is set; UPQ_DONE; UPQ_AGAIN
 * while the row groups are read back; an error): upq_w_footer_piece for
 * the buffered layout's footer (its RowGroups in the RAM log) and for a
 * template; upq_w_footer_piece_rgs with the source of the row groups in
 * checkpoint mode. */
void upq_w_footer_begin(upq_writer *w, int tmpl);
upq_status upq_w_footer_piece(upq_writer *w);
upq_status upq_w_footer_piece_rgs(upq_writer *w, upq_w_rgs_fn rgs);
/* The footer generator's first stage (upq_writer.gstage). */
#define UPQ_W_FOOTER_FIRST 0

#endif
