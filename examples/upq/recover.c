/*
 * upq recover FILE [OUT]: a checkpoint-mode file cut short (power lost while
 * logging) or damaged becomes a valid Parquet file holding every row up to
 * its last intact checkpoint. Without OUT, or with an OUT that names FILE
 * (the same path, ./FILE, a symbolic link to it), FILE is finished in
 * place; an OUT that is another name of FILE's (a hard link) is refused, as
 * renaming the result to either name would leave the other with the old
 * bytes. Otherwise the result goes to OUT and FILE is left alone. A file that was
 * closed already, and is intact, is not changed.
 *
 * Either way the work is done on a copy beside the target, which is read
 * back whole (every value of every column) and only then renamed over the
 * target: a recovery that fails, or whose result would not read, leaves
 * every file as it was.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upq.h"
#include "uparquet/column.h"
#include "uparquet/writer.h"
#include "uparquet/posix.h"

/* The recovery arena: what a board would give it is far less (make size
 * prints recover-arena); the schema alone sets the need. */
#define RECOVER_ARENA ((size_t)1 << 20)
/* Level entries a read-back batch takes. */
#define CHECK_BATCH 4096u

/* ---- reading a file back whole ---------------------------------------------------- */

/* Every value of leaf column `col` of row group `rg`. */
static upq_status read_chunk(tool_file *tf, uint32_t rg, uint32_t col, void *vals, uint16_t *def,
                             uint16_t *rep)
{
    upq_column_reader c;
    upq_batch b;
    upq_status st;
    do
        st = upq_reader_row_group_load(tf->reader, rg);
    while (st == UPQ_AGAIN);
    if (st == UPQ_OK)
        st = upq_column_open(&c, tf->reader, rg, col);
    if (st != UPQ_OK)
        return st;
    memset(&b, 0, sizeof b);
    b.def = def;
    b.rep = rep;
    b.values = vals;
    b.cap = CHECK_BATCH;
    while ((st = upq_column_read(&c, &b)) == UPQ_OK || st == UPQ_AGAIN)
        ;
    upq_column_close(&c);
    return st == UPQ_DONE ? UPQ_OK : st;
}

int tool_read_all(const char *path, const char *keys_path, const tool_args *a, uint64_t *rows)
{
    /* a value in its widest representation (upq_bytes, INT96) */
    static uint8_t vals[CHECK_BATCH * 16];
    static uint16_t def[CHECK_BATCH], rep[CHECK_BATCH];
    tool_file tf;
    uint32_t g, c;
    int rc = 0;
    if (tool_open_as(&tf, path, keys_path, a))
        return 1;
    *rows = 0;
    for (g = 0; g < upq_reader_num_row_groups(tf.reader) && !rc; g++) {
        const upq_row_group *rg;
        for (c = 0; c < upq_reader_schema(tf.reader)->num_columns && !rc; c++) {
            upq_status st = read_chunk(&tf, g, c, vals, def, rep);
            if (st != UPQ_OK) {
                tool_report(path, upq_reader_error(tf.reader));
                rc = 1;
            }
        }
        rg = upq_reader_row_group(tf.reader, g);
        if (rg)
            *rows += (uint64_t)rg->num_rows;
    }
    tool_close(&tf);
    return rc;
}

/* ---- where the result goes ------------------------------------------------------- */

/* Copies the open file `in` into the new file `to`, with `mode`, synced. */
static int copy_into(int in, const char *to, mode_t mode, int *out_fd)
{
    static uint8_t buf[1 << 16];
    int out = open(to, O_RDWR | O_CREAT | O_EXCL, 0600);
    ssize_t n;
    if (out < 0)
        return -1;
    *out_fd = out;
    if (lseek(in, 0, SEEK_SET) != 0)
        return -1;
    for (;;) {
        ssize_t done = 0;
        do
            n = read(in, buf, sizeof buf);
        while (n < 0 && errno == EINTR);
        if (n <= 0)
            break;
        while (done < n) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return -1;
            done += w;
        }
    }
    if (n < 0 || fchmod(out, mode & 07777) != 0 || fsync(out) != 0)
        return -1;
    return 0;
}

/* `dir`/.NAME.recover-XXXXXX for the target path: a name of its own beside it. */
static int tmp_name(char *buf, size_t cap, const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dlen = slash ? (size_t)(slash - target) + 1u : 0u;
    int n = snprintf(buf, cap, "%.*s.%s.recover-XXXXXX", (int)dlen, target, slash ? slash + 1 : target);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Makes the renamed result durable: the directory entry too. */
static void sync_dir(const char *target)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(target, '/');
    int fd;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - target) + 1, target);
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* The job: FILE, where the result goes, and the copy worked on. */
typedef struct rjob {
    const char *path, *out;
    char target[PATH_MAX];   /* in place: FILE's real path (a link to it stays a link) */
    char tmp[PATH_MAX + 32];
    int in_place;
    int in, work;
    struct stat sb;
} rjob;

/* Opens FILE and decides where the result goes: in place when OUT is absent
 * or names FILE itself. */
static int rjob_open(rjob *j)
{
    struct stat ob;
    j->in = open(j->path, O_RDONLY);
    if (j->in < 0 || fstat(j->in, &j->sb) != 0) {
        fprintf(stderr, "upq: %s: %s\n", j->path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(j->sb.st_mode)) {
        fprintf(stderr, "upq: %s: not a regular file\n", j->path);
        return -1;
    }
    j->in_place = !j->out || (stat(j->out, &ob) == 0 && ob.st_dev == j->sb.st_dev && ob.st_ino == j->sb.st_ino);
    if (!j->in_place) {
        snprintf(j->target, sizeof j->target, "%s", j->out);
    } else if (!realpath(j->path, j->target)) {
        fprintf(stderr, "upq: %s: %s\n", j->path, strerror(errno));
        return -1;
    }
    if (j->out && j->in_place) {
        char other[PATH_MAX];
        if (!realpath(j->out, other) || strcmp(other, j->target) != 0) {
            fprintf(stderr, "upq: %s and %s are one file under two names (a hard link): give %s alone to "
                            "recover it in place\n", j->out, j->path, j->path);
            return -1;
        }
        fprintf(stderr, "upq: note: %s is %s: recovering it in place\n", j->out, j->path);
    }
    if (tmp_name(j->tmp, sizeof j->tmp, j->target) != 0) {
        fprintf(stderr, "upq: %s: path too long\n", j->target);
        return -1;
    }
    {
        int fd = mkstemp(j->tmp);
        if (fd < 0) {
            fprintf(stderr, "upq: %s: %s\n", j->tmp, strerror(errno));
            j->tmp[0] = 0;
            return -1;
        }
        close(fd);
        unlink(j->tmp); /* the name is ours: copy_into creates it anew (O_EXCL) */
    }
    if (copy_into(j->in, j->tmp, j->sb.st_mode, &j->work) != 0) {
        fprintf(stderr, "upq: copying %s to %s: %s\n", j->path, j->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

static void rjob_close(rjob *j, int keep)
{
    if (j->in >= 0)
        close(j->in);
    if (j->work >= 0)
        close(j->work);
    if (!keep && j->tmp[0])
        unlink(j->tmp);
}

/* ---- the command -------------------------------------------------------------------- */

static void report_failure(const upq_recover_state *st, const char *path, upq_status s)
{
    const upq_error_info *e = upq_recover_error(st);
    fprintf(stderr, "upq: %s: cannot recover: %s (%s)", path, e->what && *e->what ? e->what : "error",
            upq_strerror(s));
    if (e->offset != UINT64_MAX)
        fprintf(stderr, " at offset %" PRIu64, e->offset);
    if (e->column >= 0)
        fprintf(stderr, " in column %d", (int)e->column);
    if (s == UPQ_ERR_NOMEM)
        fprintf(stderr, "; arena needed: %zu bytes", upq_recover_needed(st));
    fputc('\n', stderr);
}

/* Recovers the copy open at `fd`. */
static upq_status recover_copy(const char *path, const tool_args *a, int fd, upq_recover_info *info)
{
    static upq_recover_state st;
    static upq_posix_sink f;
    static tool_keys keys;
    upq_recover_opts opts;
    upq_sink sink;
    uint8_t *arena;
    upq_status s;
    if (tool_keys_parse(&keys, a) || tool_keys_for_file(&keys, path))
        return UPQ_ERR_INVAL;
    memset(&f, 0, sizeof f);
    f.fd = fd;
    {
        struct stat sb;
        if (fstat(fd, &sb) != 0)
            return UPQ_ERR_IO;
        f.size = (uint64_t)sb.st_size;
    }
    upq_posix_sink_init(&f, &sink);
    memset(&opts, 0, sizeof opts);
    memset(&st, 0, sizeof st);
    opts.decrypt = keys.any ? &keys.dec : NULL;
    opts.random = tool_random;
    arena = (uint8_t *)malloc(RECOVER_ARENA);
    if (!arena) {
        fprintf(stderr, "upq: out of memory\n");
        tool_keys_free(&keys);
        return UPQ_ERR_NOMEM;
    }
    do
        s = upq_recover(&st, &sink, f.size, arena, RECOVER_ARENA, &opts, info);
    while (s == UPQ_AGAIN);
    free(arena);
    if (s == UPQ_OK && fsync(fd) != 0)
        s = UPQ_ERR_IO;
    if (s != UPQ_OK) {
        tool_keys_report(&keys, path, s);
        report_failure(&st, path, s);
    }
    tool_keys_free(&keys);
    return s;
}

int cmd_recover(const tool_args *a)
{
    rjob j;
    upq_recover_info info;
    uint64_t rows = 0;
    upq_status s;

    if (a->nfiles < 1) {
        fprintf(stderr, "upq: recover needs FILE [OUT]\n");
        return 2;
    }
    memset(&j, 0, sizeof j);
    j.in = j.work = -1;
    j.path = a->files[0];
    j.out = a->nfiles > 1 ? a->files[1] : NULL;
    if (rjob_open(&j) != 0) {
        rjob_close(&j, 0);
        return 1;
    }
    s = recover_copy(j.path, a, j.work, &info);
    if (s != UPQ_OK) {
        rjob_close(&j, 0);
        return 1;
    }
    if (info.was_closed && j.in_place) {
        rjob_close(&j, 0);
        printf("%s: closed already: %" PRIu64 " rows in %" PRIu32 " row groups, %" PRIu64 " bytes (unchanged)\n",
               j.path, info.rows, info.row_groups, info.file_size);
        return 0;
    }
    /* what would replace the target must read, every value of it */
    if (tool_read_all(j.tmp, j.path, a, &rows) != 0 || rows != info.rows) {
        if (rows != info.rows)
            fprintf(stderr, "upq: %s: the recovered file holds %" PRIu64 " rows, recovery kept %" PRIu64 "\n",
                    j.path, rows, info.rows);
        fprintf(stderr, "upq: %s: the recovered file does not read back: %s left as it was\n", j.path,
                j.in_place ? j.path : j.target);
        rjob_close(&j, 0);
        return 1;
    }
    if (rename(j.tmp, j.target) != 0) {
        fprintf(stderr, "upq: %s: %s\n", j.target, strerror(errno));
        rjob_close(&j, 0);
        return 1;
    }
    sync_dir(j.target);
    rjob_close(&j, 1);
    if (info.was_closed)
        printf("%s: closed already: %" PRIu64 " rows in %" PRIu32 " row groups, %" PRIu64 " bytes (copied to %s)\n",
               j.path, info.rows, info.row_groups, info.file_size, j.out);
    else
        printf("%s: %" PRIu64 " rows in %" PRIu32 " row groups, %" PRIu64 " bytes%s\n", j.in_place ? j.path : j.out,
               info.rows, info.row_groups, info.file_size,
               info.bad_pages ? " (a page failed its checks: the rows from its checkpoint on were dropped)" : "");
    return 0;
}
