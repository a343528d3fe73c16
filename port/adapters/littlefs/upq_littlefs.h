/*
 * upq_sink and upq_io over a littlefs file (littlefs v2.x, lfs_file_t): the
 * writer's output, recovery and resume, and the reader, through a file your
 * firmware already has open. Compile upq_littlefs.c with your own littlefs
 * (lfs.h, lfs_util.h on the include path); nothing of littlefs is in µparquet.
 *
 * What it needs from the littlefs build and configuration:
 *   not LFS_READONLY    it writes (seek, write, sync, truncate).
 *   LFS_FILE_MAX        offsets past it are refused with UPQ_ERR_IO (default
 *                       2 GiB - 1).
 *   cache_size, prog_size, block_size  any; they set the cost, not the result.
 *   A file opened with LFS_O_RDWR (LFS_O_RDONLY to read). Give the file its
 *   own buffer (lfs_file_opencfg) to keep it off the heap; cache_size bytes.
 *
 * What littlefs does with what it is given (see the design notes): files are
 * copy-on-write. A write at the end costs what it writes; a write anywhere
 * else rewrites the file from there to its end at the next sync (about the
 * file's size once per checkpoint in checkpoint mode's region layout, so the
 * programmed bytes grow with the square of the file). Writing past the end
 * fills the gap with zeros. lfs_file_sync makes the file's new contents and
 * size durable at once: after a power cut the file is as of its last sync.
 *
 * For checkpoint mode, give the writer upq_littlefs_append's sink instead:
 * the file and a journal file beside it through port/adapters/append, where
 * every write is an append (about 2.1x the file programmed and erased with
 * a checkpoint every 600 rows of the sensor logger, at any length).
 *
 * Errors: every littlefs error is UPQ_ERR_IO, its code kept in `err`
 * (LFS_ERR_NOSPC for a full volume). The callbacks never say UPQ_AGAIN.
 */
#ifndef UPQ_LITTLEFS_H
#define UPQ_LITTLEFS_H

#include <stddef.h>
#include <stdint.h>

#include "lfs.h"
#include "uparquet/reader.h"
#include "uparquet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct upq_littlefs {
    lfs_t *lfs;
    lfs_file_t *file;
    int err;                 /* the last littlefs error (0: none) */
    uint8_t *rbuf, *wbuf;    /* upq_littlefs_buffers: the read-ahead... */
    size_t rcap, wcap;
    uint64_t roff;           /* ... holds [roff, roff + rlen) of the file */
    size_t rlen, wlen;       /* wbuf: the file's last wlen bytes, not yet given to littlefs */
    /* what went through to littlefs: lfs_file_read and lfs_file_write
     * calls, syncs, truncates and bytes, for figures and tests */
    unsigned long reads, writes, syncs, truncates;
    uint64_t bytes_read, bytes_written;
} upq_littlefs;

/* Takes a mounted `lfs` and an open `file` (both must stay valid while the
 * adapter is used); counters start at 0; no buffers. */
void upq_littlefs_init(upq_littlefs *f, lfs_t *lfs, lfs_file_t *file);

/* Optional buffers in caller memory (after init, before any call; NULL or 0
 * for none), each a multiple of cache_size at best:
 *   rbuf: read-ahead. A read smaller than rcap reads rcap bytes from littlefs
 *     and the next reads inside them cost no littlefs call (recovery, close
 *     and the reader read a page header or a record at a time).
 *   wbuf: writes at the file's end are held back until wcap bytes are
 *     gathered, a sync, a truncate, a write elsewhere or upq_littlefs_flush:
 *     littlefs is given the file's growth in large writes. This also matters
 *     for cost: littlefs flushes its file cache before a read of a file it
 *     is writing, and its next write at the end then copies the file's last,
 *     partly written block anew; held back, reads and appends alternate
 *     without it. Bytes held back are lost in a power cut, as littlefs's own
 *     unsynced writes are: durability is still at sync.
 * The sensor logger's store gives 1 KiB of each per file (4 KiB in all,
 * beside littlefs's own: its read and program caches and lookahead, and
 * each open file's cache_size buffer). */
void upq_littlefs_buffers(upq_littlefs *f, void *rbuf, size_t rcap, void *wbuf, size_t wcap);

/* What wbuf holds goes to littlefs: call before lfs_file_close (a sync
 * does it too). */
upq_status upq_littlefs_flush(upq_littlefs *f);

/* Fills *sink with write (at the end), write_at (lfs_file_seek +
 * lfs_file_write), read_at (lfs_file_seek + lfs_file_read), sync
 * (lfs_file_sync) and truncate (lfs_file_truncate). */
void upq_littlefs_sink(upq_littlefs *f, upq_sink *sink);

/* Fills *io to read the file (size: as it is now). */
void upq_littlefs_io(upq_littlefs *f, upq_io *io);

/* Checkpoint mode on littlefs: the log's file `data` and its journal file
 * `journal` (both open, LFS_O_RDWR) through port/adapters/append, which
 * fills *sink (with its seal: the sink says it only appends) and *size (the
 * file's size for upq_recover and upq_writer_resume). `create` 1: a new log
 * (both emptied); 0: a log cut or closed before. buf: the copy buffer (at
 * least 64 bytes; 512 is plenty). Compile port/adapters/append/upq_append.c
 * too. */
#include "../append/upq_append.h"
upq_status upq_littlefs_append(upq_append *a, upq_littlefs *data, upq_littlefs *journal, int create, void *buf,
                               size_t cap, upq_sink *sink, uint64_t *size);

/* The file's size (lfs_file_size and what wbuf holds), 0 after an error
 * (kept in err). */
uint64_t upq_littlefs_size(upq_littlefs *f);

/* The upq_read_at_fn; `ctx` is a upq_littlefs. 0 bytes at or past the end. */
upq_status upq_littlefs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

#ifdef __cplusplus
}
#endif

#endif
