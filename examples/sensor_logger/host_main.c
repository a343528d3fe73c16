/*
 * The sensor logger on a host: the core (sensor_logger.c) writing to a file
 * through a POSIX sink (write, fsync, pread). On a board only this file
 * changes: the sink becomes the SD card or flash driver.
 *
 *   sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--device NAME] [--again]
 *                 OUT.parquet
 *
 * Prints the arena it uses and what it wrote. --again makes every other
 * write say "would block", as a busy card does: the file must come out the
 * same.
 */
#define _POSIX_C_SOURCE 200809L

#include "sensor_logger.h"
#include "posix/io_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    fputs("usage: sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--device NAME] "
          "[--again] OUT.parquet\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    static sensor_logger lg; /* the writer's state is large: not on the stack */
    static upq_posix_sink out;
    int again_knob = 0;
    sensor_config cfg;
    upq_sink sink;
    const char *path = NULL;
    uint64_t v;
    upq_status st;
    int i;

    cfg.device = "sensor-07";
    cfg.seed = 42;
    cfg.rows = 10000;
    cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    cfg.page_size = 0; /* the logger's 4 KiB */
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
        } else if (strcmp(a, "--again") == 0) {
            again_knob = 1;
        } else if (strcmp(a, "--device") == 0 && i + 1 < argc) {
            cfg.device = argv[++i];
        } else if (a[0] == '-' || path) {
            return usage();
        } else {
            path = a;
        }
    }
    if (!path)
        return usage();

    if (upq_posix_sink_open(&out, path, 1) != UPQ_OK) {
        fprintf(stderr, "sensor_logger: %s: %s\n", path, strerror(errno));
        return 1;
    }
    out.again_alternate = again_knob;
    upq_posix_sink_init(&out, &sink);

    st = sensor_logger_open(&lg, &sink, &cfg);
    printf("arena: %zu bytes static, the writer needs %zu\n", sensor_logger_arena_size(),
           sensor_logger_arena_need(&lg));
    if (st != UPQ_OK) {
        fprintf(stderr, "sensor_logger: cannot start the writer: %s\n", upq_strerror(st));
        upq_posix_sink_close(&out);
        return 1;
    }
    /* the main loop: a board would do other work when the card is busy */
    do
        st = sensor_logger_step(&lg);
    while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE) {
        const upq_error_info *e = upq_writer_error(&lg.w);
        fprintf(stderr, "sensor_logger: %s: after %" PRIu64 " rows: %s (%s)", path,
                upq_writer_rows(&lg.w), e->what ? e->what : "error", upq_strerror(st));
        if (e->offset != UINT64_MAX)
            fprintf(stderr, " at offset %" PRIu64, e->offset);
        if (e->column >= 0)
            fprintf(stderr, " in column %d", (int)e->column);
        fputc('\n', stderr);
        upq_posix_sink_close(&out);
        return 1;
    }
    upq_posix_sink_close(&out);
    printf("rows: %" PRIu64 " written to %s (%" PRIu64 " bytes, every row durable: %s)\n",
           upq_writer_rows(&lg.w), path, upq_writer_file_size(&lg.w),
           upq_writer_rows_durable(&lg.w) == upq_writer_rows(&lg.w) ? "yes" : "no");
    return 0;
}
