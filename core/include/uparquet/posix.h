/*
 * The POSIX file adapter (port/adapters/posix/io_posix.c): a upq_io over a
 * file to read (open + fstat, pread, and mmap for lent pages) and a upq_sink
 * over a file to write (write, pwrite, pread, fsync, ftruncate), for every
 * writer mode, checkpoint mode and recovery included.
 *
 * Not part of the freestanding library: it calls the OS. `make install`
 * puts it into libuparquet.a for targets with an OS (host, aarch64, armv7,
 * powerpc); the CMake and Meson builds give it as the target
 * uparquet::posix. Firmware writes its own callbacks (docs/firmware.md).
 */
#ifndef UPARQUET_POSIX_H
#define UPARQUET_POSIX_H

#include <stddef.h>
#include <stdint.h>
#include "reader.h"
#include "writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct upq_posix_file {
    int fd;                /* -1 when closed */
    uint64_t size;         /* from fstat at open */
    /* Test knobs, both off after open: they make the file behave like a slow
     * or non-blocking source so callers can prove chunking does not matter. */
    size_t max_read;       /* at most this many bytes per read_at (0: no cap) */
    int again_alternate;   /* every other read_at returns UPQ_AGAIN */
    unsigned long calls;   /* read_at calls so far */
    const uint8_t *map;    /* the file mapped (upq_posix_map), else NULL */
} upq_posix_file;

/* Opens `path` read-only and records its size. Returns UPQ_OK, or UPQ_ERR_IO
 * with errno describing why (the file is then left closed). */
upq_status upq_posix_open(upq_posix_file *f, const char *path);

/* Fills *io to read from `f` (which must stay valid while io is used); with
 * lend when the file is mapped. */
void upq_posix_io(upq_posix_file *f, upq_io *io);

/* The upq_read_at_fn: pread with EINTR retried; 0 bytes at or past the end.
 * `ctx` is a upq_posix_file. */
upq_status upq_posix_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* Maps the open file read-only, so that upq_posix_io also fills io->lend
 * (pages are then decoded from the mapping, not copied). UPQ_OK, or
 * UPQ_ERR_IO with errno set (the file stays usable through pread). A file
 * that shrinks while mapped raises SIGBUS: map only files that do not. */
upq_status upq_posix_map(upq_posix_file *f);

/* The upq_lend_fn over the mapping (read_at's test knobs apply). */
upq_status upq_posix_lend(void *ctx, uint64_t off, size_t len, const void **p, size_t *got);

/* Unmaps (when mapped) and closes the descriptor (safe to call twice). */
void upq_posix_close(upq_posix_file *f);

/* ---- a file to write: the writer's upq_sink ---------------------------- */

typedef struct upq_posix_sink {
    int fd;                /* -1 when closed */
    uint64_t size;         /* the file's length as written so far */
    /* test knob, off after open: every other write call says UPQ_AGAIN */
    int again_alternate;
    unsigned long calls;
    /* what went through it: bytes handed to write/write_at, read back */
    uint64_t bytes_written, bytes_read;
    unsigned long syncs;
} upq_posix_sink;

/* Opens `path` for reading and writing; `create` makes a new empty file
 * (or empties one), else the file must exist (resume, recovery). UPQ_OK or
 * UPQ_ERR_IO with errno set. */
upq_status upq_posix_sink_open(upq_posix_sink *s, const char *path, int create);

/* Fills *sink with every callback: write (appends), write_at (pwrite),
 * read_at (pread), sync (fsync), truncate (ftruncate). */
void upq_posix_sink_init(upq_posix_sink *s, upq_sink *sink);

void upq_posix_sink_close(upq_posix_sink *s);

#ifdef __cplusplus
}
#endif

#endif
