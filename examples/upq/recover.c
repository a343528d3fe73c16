/*
 * upq recover FILE [OUT]: a checkpoint-mode file cut short (power lost while
 * logging) becomes a valid Parquet file holding every checkpointed row.
 * Without OUT the file is finished in place; with OUT, FILE is copied there
 * first and left alone. A file that was closed already is not changed.
 * Garbage, or a Parquet file written without checkpoints, is an error and
 * nothing is written.
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
#include "uparquet/posix.h"

/* The recovery arena: what a board would give it is far less (make size
 * prints recover-arena); the schema alone sets the need. */
#define RECOVER_ARENA ((size_t)1 << 20)

/* Copies `from` into a new file `to`. */
static int copy_file(const char *from, const char *to)
{
    static uint8_t buf[1 << 16];
    int in = open(from, O_RDONLY), out;
    ssize_t n;
    if (in < 0)
        return -1;
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        close(in);
        return -1;
    }
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    }
    close(in);
    if (n < 0 || fsync(out) != 0) {
        close(out);
        return -1;
    }
    return close(out);
}

int cmd_recover(const tool_args *a)
{
    const char *path = a->files[0], *out = a->nfiles > 1 ? a->files[1] : NULL, *target;
    static upq_recover_state st;
    static upq_posix_sink f;
    static tool_keys keys;
    upq_recover_opts opts;
    upq_recover_info info;
    upq_sink sink;
    uint8_t *arena;
    upq_status s;

    if (a->nfiles < 1) {
        fprintf(stderr, "upq: recover needs FILE [OUT]\n");
        return 2;
    }
    if (out && copy_file(path, out) != 0) {
        fprintf(stderr, "upq: %s: %s\n", out, strerror(errno));
        return 1;
    }
    if (tool_keys_parse(&keys, a) || tool_keys_for_file(&keys, path))
        return 1;
    target = out ? out : path;
    if (upq_posix_sink_open(&f, target, 0) != UPQ_OK) {
        fprintf(stderr, "upq: %s: %s\n", target, strerror(errno));
        return 1;
    }
    upq_posix_sink_init(&f, &sink);
    memset(&opts, 0, sizeof opts);
    memset(&st, 0, sizeof st);
    opts.decrypt = keys.any ? &keys.dec : NULL;
    opts.random = tool_random;
    arena = (uint8_t *)malloc(RECOVER_ARENA);
    if (!arena) {
        fprintf(stderr, "upq: out of memory\n");
        upq_posix_sink_close(&f);
        return 1;
    }
    do
        s = upq_recover(&st, &sink, f.size, arena, RECOVER_ARENA, &opts, &info);
    while (s == UPQ_AGAIN);
    free(arena);
    upq_posix_sink_close(&f);
    if (s != UPQ_OK)
        tool_keys_report(&keys, target, s);
    tool_keys_free(&keys);
    if (s != UPQ_OK) {
        const upq_error_info *e = upq_recover_error(&st);
        fprintf(stderr, "upq: %s: cannot recover: %s (%s)", target,
                e->what && *e->what ? e->what : "error", upq_strerror(s));
        if (e->offset != UINT64_MAX)
            fprintf(stderr, " at offset %" PRIu64, e->offset);
        if (e->column >= 0)
            fprintf(stderr, " in column %d", (int)e->column);
        if (s == UPQ_ERR_NOMEM)
            fprintf(stderr, "; arena needed: %zu bytes", upq_recover_needed(&st));
        fputc('\n', stderr);
        if (out)
            unlink(out);
        return 1;
    }
    if (info.was_closed)
        printf("%s: closed already: %" PRIu64 " rows in %" PRIu32 " row groups, %" PRIu64
               " bytes (unchanged)\n",
               target, info.rows, info.row_groups, info.file_size);
    else
        printf("%s: %" PRIu64 " rows in %" PRIu32 " row groups, %" PRIu64 " bytes%s\n", target,
               info.rows, info.row_groups, info.file_size,
               info.bad_pages ? " (a page failed its checksum: the rows from there were dropped)"
                              : "");
    return 0;
}
