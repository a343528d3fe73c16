/*
 * The buffered and direct layouts (core/write/buffered.c): a column's pages
 * wait in its chunk buffer (buffered) or in its staging (direct) until the
 * row group ends, which is then written out at once with its bloom
 * filters and page indexes; the footer's row groups wait in a RAM log.
 */
#ifndef UPQ_WRITE_BUFFERED_H
#define UPQ_WRITE_BUFFERED_H

#include "out.h"
#include "writer_page.h"
#include "meta.h"

/* What a page of c (n levels, nv values of vb bytes, still staged) adds to
 * its chunk beyond its counts: bloom filter bits, the BYTE_ARRAY value
 * bytes, the level histograms. Every layout's page takes it once. */
UPQ_INLINE void upq_w_page_tally(upq_wcol *c, uint32_t n, uint32_t nv, uint32_t vb)
{
    if (UPQ_WITH_BLOOM && c->bloom)
        upq_w_bloom_take(c, nv);
    if (c->type == UPQ_TYPE_BYTE_ARRAY)
        c->ba_bytes += (int64_t)vb - 4 * (int64_t)nv;
    if (c->def_hist)
        upq_w_hist_add(c->def_hist, c->def, c->dlg, n);
    if (c->rep_hist)
        upq_w_hist_add(c->rep_hist, c->rep, c->rlg, n);
}

/* Output stages (upq_writer.ostage). UPQ_OS_JOURNAL: checkpoint mode, whose
 * pieces come from the journal's job machine (writer_journal.c). */
enum {
    UPQ_OS_IDLE = 0,
    UPQ_OS_JOURNAL,
    UPQ_OS_MAGIC,
    UPQ_OS_DICT_HDR,
    UPQ_OS_DICT_BODY,
    UPQ_OS_CHUNK,
    UPQ_OS_BF_HDR,
    UPQ_OS_BF_BITS,
    UPQ_OS_PAGE_BODY,
    UPQ_OS_CI,
    UPQ_OS_OI,
    UPQ_OS_FOOTER,
    UPQ_OS_SYNC,
    UPQ_OS_END
};

/* What an output run is for (upq_writer.out_kind). */
enum { UPQ_OUT_RG = 1, UPQ_OUT_FOOTER = 2 };

/*
 * Encodes the committed staging prefix of column c as one data page at the
 * end of its chunk buffer, updating statistics, counters and the page index,
 * and removes it from the staging. `final`: the row group is ending (the
 * chunk need not keep room for another page). UPQ_OK, or a final error.
 */
upq_status upq_w_flush_page(upq_writer *w, upq_wcol *c, int final);

/* Direct mode, at output: encodes column c's page again (the same bytes as
 * upq_w_flush_page made when the layout was fixed), header in w->hbuf and
 * body at *body, and drops it from the staging. UPQ_OK, or a final error. */
upq_status upq_w_direct_page(upq_writer *w, upq_wcol *c, const uint8_t **body, size_t *hl,
                             size_t *stored);

/* Ends the row group at w->rs: last pages, layout, metadata; starts its
 * output (then upq_w_buf_next). UPQ_OK, or a final error (UPQ_ERR_NOMEM
 * when the metadata log is full). */
upq_status upq_w_rg_finish(upq_writer *w);

/* Starts writing the final footer (close without checkpoints). */
void upq_w_footer_start(upq_writer *w);

/* The next piece of a row group's or the footer's output: UPQ_OK (a piece
 * is set, or the run moved on without one: ask again), UPQ_DONE when the
 * run is complete (w->ostage is idle again), or a final error. */
upq_status upq_w_buf_next(upq_writer *w);

#endif
