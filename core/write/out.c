/*
 * The writer's base: errors, and the output piece drained to the sink.
 *
 * A piece is a run of bytes in memory (a chunk buffer, a dictionary, the
 * Thrift window, a literal) going to the file where the previous one ended,
 * or in checkpoint mode to an offset of its own (the journal's pieces).
 * The sink may take any part of it or say "again"; the position is kept
 * to the byte. What the next piece is, the running job says (writer.c asks
 * it): nothing here knows the stages above.
 */
#include "out.h"

#if UPQ_WITH_WRITER

static UPQ_NOINLINE void set_err(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM)
{
    w->err.status = st;
    w->err.what = UPQ_W_WHAT_VALUE;
    w->err.column = column;
    w->err.offset = UINT64_MAX;
    w->err.row_group = -1;
}

UPQ_NOINLINE upq_status upq_w_fail_(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM)
{
    set_err(w, st, column UPQ_W_WHAT(what));
    w->failed = st;
    return st;
}

UPQ_NOINLINE upq_status upq_w_refuse_(upq_writer *w, upq_status st, int32_t column UPQ_W_WHAT_PARAM)
{
    set_err(w, st, column UPQ_W_WHAT(what));
    return st;
}

void upq_w_src(upq_writer *w, const uint8_t *p, size_t n)
{
    w->src = p;
    w->src_len = n;
    w->src_pos = 0;
    w->dst = w->file_pos; /* checkpoint mode: right after the previous piece */
}

upq_status upq_w_sync(upq_writer *w)
{
    upq_status st = w->sink.sync ? w->sink.sync(w->sink.ctx) : UPQ_OK;
    /* an append-only sink moves a complete row group or file into place */
    if (st == UPQ_OK && w->sink.seal && w->seal_to > w->sealed) {
        st = w->sink.seal(w->sink.ctx, w->seal_to);
        if (st == UPQ_OK)
            w->sealed = w->seal_to;
    }
    if (st == UPQ_OK || st == UPQ_AGAIN)
        return st;
    return upq_w_fail(w, UPQ_ERR_IO, -1, "sync failed");
}

#endif /* UPQ_WITH_WRITER */
