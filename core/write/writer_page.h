/*
 * The page encoder (core/write/writer_page.c): a column's committed staging
 * as one data page (levels, values, statistics, compression, sealing,
 * header), dictionary pages, the bounds that size them, and the staging
 * operations that follow a page.
 */
#ifndef UPQ_WRITE_PAGE_H
#define UPQ_WRITE_PAGE_H

#include "out.h"
#include "writer_crypto.h"
#include "dict.h"
#include "geo.h"

/* Encodes a PageHeader model into buf[0..cap) (buf NULL: only counts), the
 * same bytes and statuses as upq_thrift_encode with upq_page_header_desc:
 * *len gets the size (needed, on UPQ_ERR_BUFFER); UPQ_ERR_INVAL for a model
 * missing a required field. */
#if UPQ_FAST_KERNELS
upq_status upq_w_page_header_put(const upq_page_header *ph, uint8_t *buf, size_t cap, size_t *len);
#else
/* without it the descriptor-driven encoder does it: the footer needs that
 * one anyway, and the hand-written one costs about 550 B of flash */
#define upq_w_page_header_put(ph, buf, cap, len) \
    upq_thrift_encode(&upq_page_header_desc, (ph), (buf), (cap), (len))
#endif

/* Bytes an encoded page header can take at most, without the statistics'
 * min/max bounds (upq_w_stats_bounds adds them): SIZE_MAX if it cannot be
 * encoded. Apart from the bounds so that it is counted once, before the
 * schema walk, not with an encoder's frame on top of the walk's. */
size_t upq_w_header_bound(void);

/* Bytes a Statistics' max_value, min_value and is_*_exact fields add with
 * `scap`-byte bounds (0 for none): every field id delta in these structs
 * stays below 16, so each field header is one byte. */
size_t upq_w_stats_bounds(uint32_t scap);
/* The same, a constant 0 without statistics (every scap is 0 then). */
#define UPQ_W_STATS_BOUNDS(scap) (UPQ_WITH_STATISTICS ? upq_w_stats_bounds(scap) : 0u)

/* Bound of a page body (levels and values, before compression) of a column
 * staging `lcap` levels and `vcap` value bytes, and of the page as stored. */
size_t upq_w_body_bound(const upq_wcol *c);
size_t upq_w_stored_bound(const upq_wcol *c, int32_t codec, int v2);
/* ... of a page staged from at most lcap levels and vcap value bytes */
size_t upq_w_stored_bound_n(const upq_wcol *c, int32_t codec, int v2, uint32_t lcap, uint32_t vcap);

/* One encoded data page: where its parts are and what it holds. */
typedef struct upq_wpage {
    const uint8_t *out;   /* the stored body */
    size_t body, stored, hl;
    int64_t nans;
} upq_wpage;

/*
 * Encodes the committed staging prefix of c (`rows` rows) as one data page:
 * the body into w->pbuf, its stored form at dst[0..room) (NULL: uncompressed
 * pages stay in w->pbuf), the header into w->hbuf; mm gets the page's
 * bounds. Touches nothing else of c. `dry`: only the sizes matter (an
 * encrypted page is not sealed, so no nonce is spent). UPQ_OK, or a final
 * error.
 */
upq_status upq_w_encode_page(upq_writer *w, upq_wcol *c, int64_t rows, uint8_t *dst, size_t room,
                             upq_minmax *mm, upq_wpage *pg, int dry);

/* The Statistics of a page or chunk: its null count, bounds mm (those
 * known) and, for a float column, its NaN count. */
void upq_w_put_stats(const upq_wcol *c, upq_statistics *s, const upq_minmax *mm, int64_t nulls,
                     int64_t nans);

/* Removes the first n levels, nv values and vb value bytes from the staging
 * (they are in a page now), and their indices from x (may be NULL); what
 * stays is the start of the next page. */
void upq_w_drop_prefix(upq_wcol *c, upq_wdx *x, uint32_t n, uint32_t nv, uint32_t vb);

/* Levels equal to v among lv[from .. from + n) (packed 1 << lg bits each). */
uint32_t upq_w_lev_count(const uint8_t *lv, uint32_t from, uint32_t n, unsigned lg, uint32_t v);

/* Counts levels lv[0..n) into the level histogram h. */
void upq_w_hist_add(int64_t *h, const uint8_t *lv, unsigned lg, uint32_t n);

/* Puts the first nv staged values of c (the page being made) into its
 * bloom filter. */
void upq_w_bloom_take(upq_wcol *c, uint32_t nv);
/* Compresses (if needed) the dictionary page of c into w->pbuf, computes
 * its CRC and encodes its header into w->hbuf; sets c->dict_* sizes.
 * Returns UPQ_OK, or a final error. */
upq_status upq_w_dict_page(upq_writer *w, upq_wcol *c, size_t *hdr_len);

/* A column's chunk state the pages add up (counts, statistics, histograms,
 * bloom bits, dictionary entries) cleared for a new chunk; every column's,
 * with the geospatial statistics and the staged values' dictionary indices
 * (upq_w_chunks_clear). */
void upq_w_chunk_clear(upq_wcol *c);
void upq_w_chunks_clear(upq_writer *w);

/* The geospatial statistics alone, for a new chunk of every GEOMETRY /
 * GEOGRAPHY column. */
UPQ_INLINE void upq_w_geo_clear(upq_writer *w)
{
#if UPQ_WITH_CHUNK_META
    upq_geo_acc *g;
    for (g = w->geo; g; g = g->next)
        upq_geo_reset(g);
#else
    (void)w;
#endif
}

#endif
