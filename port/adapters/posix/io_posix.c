/* POSIX file adapter for upq_io (host tools and tests). */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64

#include "uparquet/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Opens a regular file (flags as open(2) takes them), retrying an
 * interrupted open; errno says why not: EISDIR for a directory, ESPIPE for a
 * pipe or device (no size to find a footer with). */
static upq_status open_regular(const char *path, int flags, int *fd_out, uint64_t *size)
{
    struct stat st;
    int fd, saved;
    do {
        fd = open(path, flags, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return UPQ_ERR_IO;
    if (fstat(fd, &st) != 0)
        saved = errno;
    else if (S_ISDIR(st.st_mode))
        saved = EISDIR;
    else if (!S_ISREG(st.st_mode) || st.st_size < 0)
        saved = ESPIPE;
    else {
        *fd_out = fd;
        *size = (uint64_t)st.st_size;
        return UPQ_OK;
    }
    close(fd);
    errno = saved;
    return UPQ_ERR_IO;
}

upq_status upq_posix_open(upq_posix_file *f, const char *path)
{
    f->fd = -1;
    f->size = 0;
    f->max_read = 0;
    f->again_alternate = 0;
    f->calls = 0;
    f->map = NULL;
    return open_regular(path, O_RDONLY, &f->fd, &f->size);
}

void upq_posix_io(upq_posix_file *f, upq_io *io)
{
    upq_io_init(io, f, upq_posix_read_at, f->size);
#if UPQ_WITH_LEND
    io->lend = f->map ? upq_posix_lend : NULL;
#endif
}

upq_status upq_posix_map(upq_posix_file *f)
{
    void *m;
    if (f->fd < 0 || f->size == 0 || f->size > (uint64_t)SIZE_MAX) {
        errno = EINVAL;
        return UPQ_ERR_IO;
    }
    if (f->map)
        return UPQ_OK;
    m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (m == MAP_FAILED)
        return UPQ_ERR_IO;
    f->map = (const uint8_t *)m;
    return UPQ_OK;
}

upq_status upq_posix_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got)
{
    upq_posix_file *f = (upq_posix_file *)ctx;
    *got = 0;
    f->calls++;
    if (f->again_alternate && (f->calls & 1u))
        return UPQ_AGAIN;
    if (!f->map)
        return UPQ_ERR_IO;
    if (off >= f->size || len == 0)
        return UPQ_OK;
    if (len > f->size - off)
        len = (size_t)(f->size - off);
    if (f->max_read && len > f->max_read)
        len = f->max_read;
    *p = f->map + off;
    *got = len;
    return UPQ_OK;
}

/* pread of [off, off + len) of a file of SIZE bytes, clamped to its end;
 * *got 0 at or past it. SIZE came from a non-negative off_t, so any offset
 * below it fits one. */
static upq_status read_clamped(int fd, uint64_t size, uint64_t off, void *buf, size_t len, size_t *got)
{
    ssize_t n;
    *got = 0;
    if (fd < 0)
        return UPQ_ERR_IO;
    if (off >= size || len == 0)
        return UPQ_OK;
    if (len > size - off)
        len = (size_t)(size - off);
    if (len > (size_t)SSIZE_MAX)
        len = (size_t)SSIZE_MAX;
    do {
        n = pread(fd, buf, len, (off_t)off);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return UPQ_ERR_IO;
    *got = (size_t)n;
    return UPQ_OK;
}

upq_status upq_posix_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_posix_file *f = (upq_posix_file *)ctx;

    *got = 0;
    f->calls++;
    if (f->again_alternate && (f->calls & 1u))
        return UPQ_AGAIN;
    if (f->max_read && len > f->max_read)
        len = f->max_read;
    return read_clamped(f->fd, f->size, off, buf, len, got);
}

void upq_posix_close(upq_posix_file *f)
{
    if (f->map)
        munmap((void *)(uintptr_t)f->map, (size_t)f->size);
    f->map = NULL;
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

/* ---- the writer's sink ---------------------------------------------------- */

upq_status upq_posix_sink_open(upq_posix_sink *s, const char *path, int create)
{
    s->fd = -1;
    s->size = 0;
    s->again_alternate = 0;
    s->calls = 0;
    s->bytes_written = s->bytes_read = 0;
    s->syncs = 0;
    return open_regular(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), &s->fd, &s->size);
}

static int sink_again(upq_posix_sink *s)
{
    s->calls++;
    return s->again_alternate && (s->calls & 1u);
}

static upq_status sink_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_posix_sink *s = (upq_posix_sink *)ctx;
    ssize_t n;
    *written = 0;
    if (sink_again(s))
        return UPQ_AGAIN;
    if (s->fd < 0 || off > (uint64_t)INT64_MAX - len)
        return UPQ_ERR_IO;
    if (len > (size_t)SSIZE_MAX)
        len = (size_t)SSIZE_MAX;
    do {
        n = pwrite(s->fd, buf, len, (off_t)off);
    } while (n < 0 && errno == EINTR);
    if (n <= 0)
        return UPQ_ERR_IO;
    *written = (size_t)n;
    s->bytes_written += (uint64_t)n;
    if (off + (uint64_t)n > s->size)
        s->size = off + (uint64_t)n;
    return UPQ_OK;
}

static upq_status sink_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_posix_sink *s = (upq_posix_sink *)ctx;
    return sink_write_at(ctx, s->size, buf, len, written);
}

static upq_status sink_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_posix_sink *s = (upq_posix_sink *)ctx;
    upq_status st = read_clamped(s->fd, s->size, off, buf, len, got);
    s->bytes_read += (uint64_t)*got;
    return st;
}

static upq_status sink_sync(void *ctx)
{
    upq_posix_sink *s = (upq_posix_sink *)ctx;
    s->syncs++;
    return fsync(s->fd) == 0 ? UPQ_OK : UPQ_ERR_IO;
}

static upq_status sink_truncate(void *ctx, uint64_t size)
{
    upq_posix_sink *s = (upq_posix_sink *)ctx;
    if (size > (uint64_t)INT64_MAX || ftruncate(s->fd, (off_t)size) != 0)
        return UPQ_ERR_IO;
    s->size = size;
    return UPQ_OK;
}

void upq_posix_sink_init(upq_posix_sink *s, upq_sink *sink)
{
    upq_sink_init(sink, s, sink_write, sink_write_at, sink_read_at, sink_sync, sink_truncate, 0);
}

void upq_posix_sink_close(upq_posix_sink *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}
