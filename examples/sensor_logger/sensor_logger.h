/*
 * A sensor logger: rows of eight analog channels, a device name and a
 * status flag, written to Parquet as they are sampled.
 *
 * The core (sensor_logger.c) is what firmware runs: no libc, no heap, one
 * static arena, and all output through a upq_sink the platform supplies
 * (host_main.c: a POSIX file; on a board: an SD card or flash driver).
 * Porting means writing that sink and calling these functions from the main
 * loop; nothing else changes.
 *
 * Checkpoint mode is on: each column chunk goes to its place in the file
 * page by page, so row groups are as large as asked (64K rows) whatever the
 * RAM; every 600 rows (a minute at 10 Hz) a checkpoint writes what changed
 * and syncs, so a power cut loses at most the rows since the last one.
 * After a reboot the logger resumes the same file (upq_writer_resume()
 * recovers it and goes on), and it can rotate to a new file at a row or
 * byte limit.
 *
 *   ts      int64 TIMESTAMP(MICROS,true)  required
 *   device  binary (STRING)               required
 *   ch0..7  float                         optional (a channel drops out now and then)
 *   status  boolean                       required
 */
#ifndef SENSOR_LOGGER_H
#define SENSOR_LOGGER_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"

#define SENSOR_CHANNELS 8
#define SENSOR_COLUMNS (SENSOR_CHANNELS + 3)
/* Bytes of the static arena: enough for the options in sensor_logger.c
 * (512-byte pages, checkpoint mode: one page per column staged, whatever
 * the row group's size); sensor_logger_open() checks it against
 * upq_writer_workspace_size(). 16 KiB on 32-bit targets (the Cortex-M4
 * figure of make size, logger-arena); a 64-bit host's pointers make the
 * writer's per-column state larger, hence more there. */
#ifndef SENSOR_ARENA_BYTES
#if UINTPTR_MAX > 0xFFFFFFFFu
#define SENSOR_ARENA_BYTES (20u * 1024u)
#else
#define SENSOR_ARENA_BYTES (16u * 1024u)
#endif
#endif
#define SENSOR_PAGE_SIZE 512u
#define SENSOR_ROW_GROUP_ROWS 65536u
#define SENSOR_CHECKPOINT_ROWS 600u

typedef struct sensor_sample {
    int64_t ts_us;                  /* microseconds since 1970-01-01 UTC */
    float ch[SENSOR_CHANNELS];
    uint8_t valid;                  /* bit k: channel k has a reading */
    uint8_t status_ok;
} sensor_sample;

/*
 * The platform's files: `open` gives the sink of file number n of the log
 * (0 first; rotation asks for the next), creating it, or, with `resume`,
 * opening the existing one and telling its size. `close` ends use of file n
 * (its writer is closed already). UPQ_OK, UPQ_AGAIN (asked again) or an
 * error, which stops the logger.
 */
typedef struct sensor_files {
    upq_status (*open)(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size);
    upq_status (*close)(void *ctx, uint32_t n);
    void *ctx;
} sensor_files;

typedef struct sensor_config {
    const char *device;             /* NUL-terminated; must outlive the logger */
    uint64_t seed;                  /* the readings are generated from it */
    uint64_t rows;                  /* rows to log */
    uint32_t row_group_rows;        /* rows per row group (0: SENSOR_ROW_GROUP_ROWS) */
    uint32_t checkpoint_rows;       /* a checkpoint every this many rows (0: only at the
                                       end of each row group) */
    uint32_t page_size;             /* 0: SENSOR_PAGE_SIZE */
    uint8_t resume;                 /* continue file `first_file` (cut short or closed): the
                                       readings go on from the rows it holds, and `rows`
                                       more are logged */
    uint32_t first_file;            /* the log's file number to start (or resume) with */
    uint64_t max_file_rows;         /* rotate: a file holds at most this many rows (0: no limit) */
    uint64_t max_file_bytes;        /* rotate: a file stays within this many bytes (0: no limit) */
    uint64_t file_id;               /* the log's id, file n's is file_id + n (0: from the seed;
                                       a board would use its serial number) */
} sensor_config;

/* The logger's state: may live anywhere (static on a board). */
typedef struct sensor_logger {
    upq_writer w;
    upq_schema_element elems[SENSOR_COLUMNS + 1];
    uint32_t nelems;
    upq_writer_opts opts;
    upq_column_opts cols[SENSOR_COLUMNS];
    sensor_config cfg;
    upq_bytes device;
    sensor_files files;
    uint64_t rng;
    uint64_t row;                   /* the next reading's number */
    uint64_t end;                   /* ... and the one to stop at */
    uint64_t file_rows;             /* rows of the current file */
    uint32_t file;                  /* the current file's number */
    uint64_t resume_size;           /* resuming: the file's size */
    sensor_sample cur;              /* the row being written */
    uint8_t stage;                  /* where a blocked step resumes */
    uint8_t col;                    /* next column to set */
    size_t arena_need;              /* from upq_writer_workspace_size */
} sensor_logger;

/*
 * Builds the schema and the writer options into lg (no writer yet): what
 * sensor_logger_open() starts the writer with, and what sizing tools ask
 * upq_writer_workspace_size() about. Returns UPQ_OK or a schema error.
 */
upq_status sensor_logger_setup(sensor_logger *lg, const sensor_config *cfg);

/*
 * Sets the logger up to write through `files` (nothing is opened yet: the
 * first sensor_logger_step() opens, or resumes, the first file). Returns
 * UPQ_OK, UPQ_ERR_NOMEM when SENSOR_ARENA_BYTES is below what the writer
 * needs (lg->arena_need tells how much), or a schema error.
 */
upq_status sensor_logger_open(sensor_logger *lg, const sensor_files *files, const sensor_config *cfg);

/*
 * Does the next piece of work: opens (or resumes) a file, logs a row, or
 * ends a file (closing it, and rotating to the next when a limit is
 * reached). Returns UPQ_OK (call again), UPQ_DONE (every row logged and
 * the last file complete), UPQ_AGAIN (the sink would block: call again
 * later; the step resumes where it stopped) or an error
 * (upq_writer_error() says what; lg->file which file).
 */
upq_status sensor_logger_step(sensor_logger *lg);

/* The reading of row `i` for a generator state (deterministic: the same
 * seed gives the same rows on every platform). */
void sensor_read(uint64_t *rng, uint64_t i, sensor_sample *out);

/* Bytes of the static arena, and how many the writer needs of it. */
size_t sensor_logger_arena_size(void);
size_t sensor_logger_arena_need(const sensor_logger *lg);

#endif
