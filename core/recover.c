/*
 * Recovering a file cut short: find the last checkpoint footer.
 *
 * A file written in checkpoint mode holds a complete footer (FileMetaData,
 * its length, "PAR1") after every row group. Cut anywhere, its longest
 * prefix that ends with such a footer is a valid Parquet file. The scan goes
 * backwards from the end for "PAR1"; each hit is tried as the end of the
 * file with the reader itself (magic at the start, a footer that decodes
 * within the limits, every column chunk between the magic and the footer),
 * and the row counts must add up. The first hit that passes is the answer.
 */
#include "uparquet/writer.h"
#include "upq_port.h"

#if UPQ_WITH_WRITER

enum { RC_INIT = 0, RC_SCAN, RC_READ, RC_CHECK, RC_DONE };

#define MIN_FILE 13u /* "PAR1", a footer of at least one byte, length, "PAR1" */

/* read_at of the file as if it ended at st->cand. */
static upq_status sub_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_recover_state *st = (upq_recover_state *)ctx;
    *got = 0;
    if (off >= st->cand)
        return UPQ_OK;
    if (len > st->cand - off)
        len = (size_t)(st->cand - off);
    return st->io.read_at(st->io.ctx, off, buf, len, got);
}

/* Do the row groups add up to the footer's row count? */
static int rows_add_up(const upq_file_metadata *m)
{
    uint64_t sum = 0;
    uint32_t i;
    for (i = 0; i < m->row_groups.n; i++) {
        if (m->row_groups.v[i].num_rows < 0)
            return 0;
        sum += (uint64_t)m->row_groups.v[i].num_rows;
    }
    return m->num_rows >= 0 && sum == (uint64_t)m->num_rows;
}

upq_status upq_recover(upq_recover_state *st, const upq_io *io, void *arena, size_t arena_len,
                       uint64_t *valid_len, uint64_t *rows)
{
    upq_status s;
    if (!io || !io->read_at)
        return UPQ_ERR_INVAL;
    upq_memcpy(&st->io, io, sizeof st->io);
    for (;;) {
        switch (st->stage) {
        case RC_INIT:
            st->pos = io->size;
            st->bstart = st->pos;
            st->fill = st->want = 0;
            st->stage = RC_SCAN;
            break;
        case RC_SCAN:
            /* is "PAR1" at [pos - 4, pos)? */
            if (st->pos < MIN_FILE)
                return UPQ_ERR_CORRUPT; /* no checkpoint */
            if (st->pos - 4 < st->bstart || st->pos > st->bstart + st->fill) {
                /* the next block ends at pos */
                uint64_t start = st->pos > sizeof st->buf ? st->pos - sizeof st->buf : 0;
                st->bstart = start;
                st->want = (uint32_t)(st->pos - start);
                st->fill = 0;
                st->stage = RC_READ;
                break;
            }
            if (upq_memcmp(st->buf + (st->pos - 4 - st->bstart), "PAR1", 4) == 0) {
                st->cand = st->pos;
                st->sub.ctx = st;
                st->sub.read_at = sub_read;
                st->sub.size = st->cand;
                upq_reader_init(&st->reader, &st->sub, arena, arena_len, (const upq_reader_opts *)0);
                st->stage = RC_CHECK;
                break;
            }
            st->pos--;
            break;
        case RC_READ:
            while (st->fill < st->want) {
                size_t got = 0;
                s = io->read_at(io->ctx, st->bstart + st->fill, st->buf + st->fill,
                                st->want - st->fill, &got);
                if (s == UPQ_AGAIN)
                    return UPQ_AGAIN;
                if (s != UPQ_OK || got == 0 || got > st->want - st->fill)
                    return UPQ_ERR_IO;
                st->fill += (uint32_t)got;
            }
            st->stage = RC_SCAN;
            break;
        case RC_CHECK:
            s = upq_reader_open(&st->reader);
            if (s == UPQ_AGAIN)
                return UPQ_AGAIN;
            if (s == UPQ_OK && rows_add_up(&st->reader.meta)) {
                *valid_len = st->cand;
                *rows = (uint64_t)st->reader.meta.num_rows;
                st->stage = RC_DONE;
                return UPQ_OK;
            }
            if (s == UPQ_ERR_NOMEM || s == UPQ_ERR_IO)
                return s;
            /* not a footer (or not a whole one): look further back */
            st->pos = st->cand - 1;
            st->stage = RC_SCAN;
            break;
        default:
            *valid_len = st->cand;
            *rows = st->reader.meta.num_rows >= 0 ? (uint64_t)st->reader.meta.num_rows : 0;
            return UPQ_OK;
        }
    }
}

#endif /* UPQ_WITH_WRITER */
