/*
 * One read through the caller's read_at with its contract checked (see
 * upq_internal.h): the one place every reader of the file (open, pages, page
 * indexes, bloom filters, encrypted modules) meets the callback.
 */
#include "uparquet/reader.h"
#include "upq_internal.h"

upq_status upq_io_read(const upq_io *io, uint64_t off, void *buf, size_t want, size_t *got,
                       const char **what)
{
    upq_status st;
    *got = 0;
    st = io->read_at(io->ctx, off, buf, want, got);
    if (st == UPQ_AGAIN)
        return UPQ_AGAIN;
    if (st != UPQ_OK) {
        *what = UPQ_MSG("read failed");
        return UPQ_ERR_IO;
    }
    if (*got == 0) {
        *what = UPQ_MSG("file shorter than its size");
        return UPQ_ERR_TRUNCATED;
    }
    if (*got > want) {
        *what = UPQ_MSG("read callback returned too much");
        return UPQ_ERR_IO;
    }
    return UPQ_OK;
}
