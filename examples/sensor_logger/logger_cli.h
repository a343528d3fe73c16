/*
 * The sensor logger's command line and main loop, shared by the host
 * program (host_main.c) and the Cortex-M4 firmware (examples/firmware/
 * logger_main.c): the options, the log's file names, the loop, and what is
 * printed. Freestanding like the core; each platform supplies where files
 * live (a sensor_store) and where text goes (a sensor_out).
 *
 *   sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]
 *                 [--page-size N] [--device NAME] [--again] [--resume]
 *                 [--max-file-rows N] [--max-file-bytes N]
 *                 [--fs posix|fatfs|littlefs|semihost] [--image PATH] [--count] OUT.parquet
 *
 * --resume continues OUT (cut short by a power loss, or closed): what was
 * checkpointed stays, the readings go on from there, and --rows more are
 * logged. --max-file-rows / --max-file-bytes rotate: when a file is full it
 * is closed and the log goes on in OUT's next file (log.parquet, then
 * log.1.parquet, ...; resuming log.2.parquet goes on with log.3.parquet). A
 * file that would be created must not exist. --again makes every other write
 * say "would block", as a busy card does: the files must come out the same.
 * --fs, --image and --count are the platform's (host_main.c, logger_main.c).
 */
#ifndef SENSOR_LOGGER_CLI_H
#define SENSOR_LOGGER_CLI_H

#include "sensor_logger.h"

/* Where text goes: n bytes of s. */
typedef struct sensor_out {
    void (*put)(void *ctx, const char *s, size_t n);
    void *ctx;
} sensor_out;

/* Where the log's files live. `open` opens file `name`: with `create` a new
 * one (refusing a name that exists), else the existing file (resume), and
 * fills *sink and *size; `close` lets the open file go. UPQ_OK, or an error
 * after printing why. */
typedef struct sensor_store {
    upq_status (*open)(void *ctx, const char *name, int create, upq_sink *sink, uint64_t *size);
    upq_status (*close)(void *ctx);
    void *ctx;
} sensor_store;

enum { SENSOR_FS_DEFAULT = 0, SENSOR_FS_POSIX, SENSOR_FS_FATFS, SENSOR_FS_LITTLEFS, SENSOR_FS_SEMIHOST };

#define SENSOR_CLI_NAME 256

typedef struct sensor_cli {
    sensor_config cfg;
    const char *path;          /* OUT */
    const char *image;         /* --image */
    uint8_t fs;                /* --fs */
    uint8_t again, count;      /* --again, --count */
    char stem[SENSOR_CLI_NAME];/* OUT's name without its number and extension */
    const char *ext;
    char name[SENSOR_CLI_NAME + 24]; /* the current file's name */
    /* run state */
    sensor_logger *lg;
    sensor_store store;
    sensor_out out;
    upq_sink inner;            /* --again: the store's sink */
    unsigned long writes;
} sensor_cli;

/* Reads the command line (argv[0] is the program). Returns 0, or 2 after
 * printing the usage to `err`. */
int sensor_cli_parse(sensor_cli *c, int argc, char **argv, const sensor_out *err);

/* The name of the log's file n ("log.parquet", "log.3.parquet"). */
const char *sensor_cli_file_name(sensor_cli *c, uint32_t n);

/*
 * Runs the log: prints the arena, then a line per file as it closes and a
 * total (or the error). `tick`, when set, is called after every step (the
 * firmware counts instructions there). Returns the exit status: 0, or 1
 * when the writer failed.
 */
int sensor_cli_run(sensor_cli *c, sensor_logger *lg, const sensor_store *store, const sensor_out *out,
                   void (*tick)(void *), void *tick_ctx);

/* Text helpers for the platforms' messages. */
void sensor_puts(const sensor_out *o, const char *s);
void sensor_put_u64(const sensor_out *o, uint64_t v);
int sensor_streq(const char *a, const char *b);

#endif
