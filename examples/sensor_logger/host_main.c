/*
 * The sensor logger on a host: the core (sensor_logger.c) writing to files
 * through a POSIX sink (pwrite, pread, fsync, ftruncate). On a board only
 * this file changes: the sink becomes the SD card or flash driver.
 *
 *   sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]
 *                 [--page-size N] [--device NAME] [--again]
 *                 [--resume] [--max-file-rows N] [--max-file-bytes N] OUT.parquet
 *
 * --resume continues OUT (cut short by a power loss, or closed): what was
 * checkpointed stays, the readings go on from there, and --rows more are
 * logged. --max-file-rows / --max-file-bytes rotate: when a file is full it
 * is closed and the log goes on in OUT's next file (log.parquet, then
 * log.1.parquet, log.2.parquet, ...; resuming log.2.parquet goes on with
 * log.3.parquet). A file that would be created must not exist.
 *
 * Prints the arena it uses, then a line per file and a total. --again makes
 * every other write say "would block", as a busy card does: the files must
 * come out the same.
 */
#define _POSIX_C_SOURCE 200809L

#include "sensor_logger.h"
#include "uparquet/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static int usage(void)
{
    fputs("usage: sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]\n"
          "                     [--page-size N] [--device NAME] [--again] [--resume]\n"
          "                     [--max-file-rows N] [--max-file-bytes N] OUT.parquet\n",
          stderr);
    return 2;
}

/* The log's files: OUT's name split around its number. */
typedef struct host_files {
    char stem[4096];     /* "dir/log" */
    const char *ext;     /* ".parquet" (or "") */
    uint32_t first;      /* OUT's own number */
    upq_posix_sink sink;
    int again;           /* --again */
    char path[4200];     /* the current file */
    uint64_t rows_before; /* rows in files closed so far */
    const sensor_logger *lg;
} host_files;

/* "log.parquet" is file 0 of its log, "log.3.parquet" file 3. */
static int split_name(host_files *h, const char *out)
{
    size_t n = strlen(out), e = n, d;
    if (n >= sizeof h->stem)
        return 0;
    h->ext = "";
    if (n > 8 && strcmp(out + n - 8, ".parquet") == 0) {
        h->ext = ".parquet";
        e = n - 8;
    }
    memcpy(h->stem, out, e);
    h->stem[e] = '\0';
    h->first = 0;
    d = e;
    while (d > 0 && out[d - 1] >= '0' && out[d - 1] <= '9')
        d--;
    if (d < e && d > 0 && out[d - 1] == '.' && e - d <= 9) {
        h->first = (uint32_t)strtoul(out + d, NULL, 10);
        h->stem[d - 1] = '\0';
    }
    return 1;
}

static void file_name(host_files *h, uint32_t n)
{
    if (n == 0)
        snprintf(h->path, sizeof h->path, "%s%s", h->stem, h->ext);
    else
        snprintf(h->path, sizeof h->path, "%s.%u%s", h->stem, (unsigned)n, h->ext);
}

static upq_status files_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    host_files *h = (host_files *)ctx;
    struct stat sb;
    file_name(h, n);
    if (!resume && stat(h->path, &sb) == 0) {
        fprintf(stderr, "sensor_logger: %s exists: resume the log's last file instead\n", h->path);
        errno = EEXIST;
        return UPQ_ERR_IO;
    }
    if (upq_posix_sink_open(&h->sink, h->path, !resume) != UPQ_OK) {
        fprintf(stderr, "sensor_logger: %s: %s\n", h->path, strerror(errno));
        return UPQ_ERR_IO;
    }
    h->sink.again_alternate = h->again;
    upq_posix_sink_init(&h->sink, sink);
    *size = h->sink.size;
    return UPQ_OK;
}

static upq_status files_close(void *ctx, uint32_t n)
{
    host_files *h = (host_files *)ctx;
    const sensor_logger *lg = h->lg;
    (void)n;
    printf("file: %s: %" PRIu64 " rows, %" PRIu64 " bytes\n", h->path, lg->file_rows,
           upq_writer_file_size(&lg->w));
    upq_posix_sink_close(&h->sink);
    return UPQ_OK;
}

int main(int argc, char **argv)
{
    static sensor_logger lg; /* the writer's state is large: not on the stack */
    static host_files hf;
    sensor_files files;
    sensor_config cfg;
    const char *path = NULL;
    uint64_t v;
    upq_status st;
    int i;

    memset(&cfg, 0, sizeof cfg);
    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = 10000;
    cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--rows") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &v)) {
            cfg.rows = v;
            i++;
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &v)) {
            cfg.seed = v;
            i++;
        } else if (strcmp(a, "--row-group-rows") == 0 && i + 1 < argc &&
                   parse_u64(argv[i + 1], &v) && v > 0 && v <= UINT32_MAX) {
            cfg.row_group_rows = (uint32_t)v;
            i++;
        } else if (strcmp(a, "--checkpoint-rows") == 0 && i + 1 < argc &&
                   parse_u64(argv[i + 1], &v) && v <= UINT32_MAX) {
            cfg.checkpoint_rows = (uint32_t)v;
            i++;
        } else if (strcmp(a, "--page-size") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &v) &&
                   v >= 64 && v <= (1u << 20)) {
            cfg.page_size = (uint32_t)v;
            i++;
        } else if (strcmp(a, "--max-file-rows") == 0 && i + 1 < argc && parse_u64(argv[i + 1], &v) &&
                   v > 0) {
            cfg.max_file_rows = v;
            i++;
        } else if (strcmp(a, "--max-file-bytes") == 0 && i + 1 < argc &&
                   parse_u64(argv[i + 1], &v) && v > 0) {
            cfg.max_file_bytes = v;
            i++;
        } else if (strcmp(a, "--resume") == 0) {
            cfg.resume = 1;
        } else if (strcmp(a, "--again") == 0) {
            hf.again = 1;
        } else if (strcmp(a, "--device") == 0 && i + 1 < argc) {
            cfg.device = argv[++i];
        } else if (a[0] == '-' || path) {
            return usage();
        } else {
            path = a;
        }
    }
    if (!path || !split_name(&hf, path))
        return usage();
    cfg.first_file = hf.first;
    hf.lg = &lg;
    files.open = files_open;
    files.close = files_close;
    files.ctx = &hf;

    st = sensor_logger_open(&lg, &files, &cfg);
    printf("arena: %zu bytes static, the writer needs %zu\n", sensor_logger_arena_size(),
           sensor_logger_arena_need(&lg));
    if (st != UPQ_OK) {
        fprintf(stderr, "sensor_logger: cannot start the writer: %s\n", upq_strerror(st));
        return 1;
    }
    /* the main loop: a board would do other work when the card is busy */
    do
        st = sensor_logger_step(&lg);
    while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE) {
        const upq_error_info *e = upq_writer_error(&lg.w);
        fprintf(stderr, "sensor_logger: %s: after %" PRIu64 " rows: %s (%s)", hf.path[0] ? hf.path : path,
                lg.file_rows, e->what ? e->what : "error", upq_strerror(st));
        if (e->offset != UINT64_MAX)
            fprintf(stderr, " at offset %" PRIu64, e->offset);
        if (e->column >= 0)
            fprintf(stderr, " in column %d", (int)e->column);
        fputc('\n', stderr);
        upq_posix_sink_close(&hf.sink);
        return 1;
    }
    /* every row is durable once sensor_logger_step() said UPQ_DONE */
    printf("rows: %" PRIu64 " written (readings %" PRIu64 " to %" PRIu64 ") in %u file%s\n", cfg.rows,
           lg.end - cfg.rows, lg.end ? lg.end - 1u : 0u, (unsigned)(lg.file - cfg.first_file + 1u),
           lg.file == cfg.first_file ? "" : "s");
    return 0;
}
