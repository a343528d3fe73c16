/*
 * upq recover FILE [OUT]: a file written in checkpoint mode and cut short
 * (power loss) becomes a valid Parquet file holding every checkpointed row.
 * Without OUT the file is truncated in place; with OUT the valid prefix is
 * copied there and FILE is left alone.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upq.h"
#include "uparquet/writer.h"

#define RECOVER_ARENA ((size_t)64 << 20)

/* Copies the first `len` bytes of `from` into a new file `to`. */
static int copy_prefix(upq_posix_file *from, const char *to, uint64_t len)
{
    static uint8_t buf[1 << 16];
    uint64_t off = 0;
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    while (off < len) {
        size_t want = len - off < sizeof buf ? (size_t)(len - off) : sizeof buf, got = 0;
        if (upq_posix_read_at(from, off, buf, want, &got) != UPQ_OK || got == 0 ||
            write(fd, buf, got) != (ssize_t)got) {
            close(fd);
            return -1;
        }
        off += got;
    }
    if (fsync(fd) != 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

int cmd_recover(const tool_args *a)
{
    const char *path = a->files[0], *out = a->nfiles > 1 ? a->files[1] : NULL;
    upq_posix_file f;
    upq_io io;
    static upq_recover_state st;
    uint8_t *arena;
    uint64_t valid = 0, rows = 0;
    upq_status s;

    if (a->nfiles < 1) {
        fprintf(stderr, "upq: recover needs FILE [OUT]\n");
        return 2;
    }
    if (upq_posix_open(&f, path) != UPQ_OK) {
        fprintf(stderr, "upq: %s: %s\n", path, strerror(errno));
        return 1;
    }
    upq_posix_io(&f, &io);
    arena = (uint8_t *)malloc(RECOVER_ARENA);
    memset(&st, 0, sizeof st);
    do
        s = upq_recover(&st, &io, arena, RECOVER_ARENA, &valid, &rows);
    while (s == UPQ_AGAIN);
    free(arena);
    if (s != UPQ_OK) {
        fprintf(stderr, "upq: %s: no complete checkpoint found (%s)\n", path, upq_strerror(s));
        upq_posix_close(&f);
        return 1;
    }
    if (out) {
        if (copy_prefix(&f, out, valid) != 0) {
            fprintf(stderr, "upq: %s: %s\n", out, strerror(errno));
            upq_posix_close(&f);
            return 1;
        }
    } else if (valid < f.size && truncate(path, (off_t)valid) != 0) {
        fprintf(stderr, "upq: %s: %s\n", path, strerror(errno));
        upq_posix_close(&f);
        return 1;
    }
    printf("%s: %" PRIu64 " rows in %" PRIu64 " bytes (%" PRIu64 " bytes after the last checkpoint %s)\n",
           out ? out : path, rows, valid, f.size - valid, out ? "left out" : "cut off");
    upq_posix_close(&f);
    return 0;
}
